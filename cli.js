#!/usr/bin/env node

// agent-tools-native CLI: `list`, `call <tool> [json]`, `mcp`. Plain JavaScript so it runs
// without a build step. Exit status: 0 ok, 1 an error result from `call`, 2 bad usage or a bad
// configuration (the message says which and how to fix it).

const { readFileSync } = require('node:fs')

const BIN = 'agent-tools-native'

const OPTIONS_HELP = `Options (every command):
  --workspace <dir>          the directory the tools work in (default: $WORKSPACE_ROOT,
                             else the current directory); also --workspace=<dir>
  --read-only                only the read tools (read_file, list_dir, glob, grep)
  --allow-outside-workspace  let paths leave the workspace (confined by default)
  --surface <name>           offer a vendor's tool surface instead of the engine's tools:
                             codex, claude-code, cyberpaw, anthropic or openai
  --sandbox <mode>           the kernel sandbox of bash and monitors (Linux): off, read-only
                             or workspace-write (default on Linux: workspace-write,
                             network on; elsewhere off, as no sandbox exists there yet)
  --no-sandbox-network       sandboxed commands may not use TCP/UDP (--sandbox-network: may)
  --sandbox-writable-root <dir>
                             one more directory sandboxed commands may write (repeatable)
  --sandbox-mechanism <m>    auto (default), namespaces or landlock
  --no-extras                only the contract's tools, none of the tools beyond it
                             (monitor_send, ...); the CLI and the MCP server offer them
  -h, --help                 show help`

const ENV_HELP = `Environment (a flag wins over its variable):
  WORKSPACE_ROOT, READ_ONLY, ALLOW_OUTSIDE_WORKSPACE, MAX_OUTPUT_BYTES, MAX_FILE_BYTES,
  BASH_TIMEOUT_MS, BASH_TIMEOUT_MAX_MS, SANDBOX, SANDBOX_NETWORK,
  SANDBOX_WRITABLE_ROOTS (directories joined with ':'), SANDBOX_MECHANISM;
  MCP_HTTP_TOKEN (the bearer token of mcp --http)
  (booleans: 1/true/yes/on or 0/false/no/off; integers: plain digits)`

const CONFIG_HELP = `${OPTIONS_HELP}

${ENV_HELP}`

const EXIT_HELP = `Exit status: 0 success, 1 the tool call returned an error result (or an unexpected
failure), 2 bad usage or a bad configuration.`

const HELP = {
  main: `Usage: ${BIN} <command> [options]

The file-and-shell tools for LLM coding agents, from a shell or as an MCP server.

Commands:
  list                  print the active tool surface as JSON
  call <tool> [json]    run one tool call and print its result text
  mcp                   serve the tools over the Model Context Protocol (stdio)
  mcp --http            the same, over Streamable HTTP at http://127.0.0.1:8765/mcp
  help [command]        show help for a command

${OPTIONS_HELP}
  -v, --version              print the version

${ENV_HELP}

${EXIT_HELP}`,
  list: `Usage: ${BIN} list [options]

Prints the active tool surface as a JSON array of { name, description, inputSchema }: every
tool, or only the read tools with --read-only.

${CONFIG_HELP}

${EXIT_HELP}`,
  call: `Usage: ${BIN} call <tool> [json] [options]

Runs one tool call and prints the result text on stdout. <json> is the arguments object
(default {}); '-' reads it from stdin. On an error result the text is the JSON error envelope
{"error": <code>, "message": ...} and the exit status is 1.

Examples:
  ${BIN} call list_dir '{"path": "src"}' --workspace .
  ${BIN} call read_file '{"path": "README.md", "offset": -20}'
  echo '{"path": "a.txt"}' | ${BIN} call read_file -

${CONFIG_HELP}

${EXIT_HELP}`,
  mcp: `Usage: ${BIN} mcp [options]
       ${BIN} mcp --http [--host <address>] [--port <number>] [options]

Serves the active tool surface as a Model Context Protocol server over stdio (JSON-RPC on
stdin/stdout; diagnostics on stderr). With --read-only the mutating tools are neither listed
nor callable. A tool result is returned as text content, with isError set on an error envelope.
When the client goes away (stdin closed, stdout broken, a signal) its running tool processes
are killed and the server exits 0.

Register it with an MCP client, e.g. from a checkout:
  claude mcp add agent-tools -- node /path/to/${BIN}/cli.js mcp --workspace /path/to/repo
(once the package is published: ... -- npx -y ${BIN} mcp --workspace /path/to/repo)

With --http, the same server over the MCP Streamable HTTP transport, at /mcp. Every request
must carry the bearer token (Authorization: Bearer <token>); requests whose Host is not this
server's host:port (or localhost:port), or whose Origin is not a loopback origin, get 403.
When ready it prints "listening on http://<host>:<port>/mcp" on stderr; SIGTERM stops it.
  --http                     serve over HTTP instead of stdio
  --host <address>           the address to listen on (default 127.0.0.1; anything that is
                             not loopback exposes the workspace to the network: see README,
                             "Remote workspace")
  --port <number>            the port (default 8765; 0 picks a free one)
  --token-file <path>        read the bearer token from this file (a trailing newline is
                             trimmed); instead of MCP_HTTP_TOKEN
  --max-sessions <number>    most sessions open at once (default 16; more get 503)
  --session-idle-ms <number> a session with no request open for this long ends, its tool
                             processes killed (default 1800000, 30 minutes)
  --allowed-host <name>      one more Host a client may address the server by (name, or
                             name:port; without a port, the server's); repeatable
  MCP_HTTP_TOKEN             the bearer token, when --token-file is not given; one of the two
                             is required (e.g. MCP_HTTP_TOKEN=$(openssl rand -hex 32))

${CONFIG_HELP}

Exit status: 0 when the client closes the connection (stdio) or on SIGTERM, 2 bad usage or a
bad configuration (no token, a port in use).`,
}

const COMMANDS = new Set(['list', 'call', 'mcp'])
/** Flags handed on to buildConfig (with `--workspace`'s value). */
const CONFIG_FLAGS = new Set([
  '--read-only',
  '--allow-outside-workspace',
  '--sandbox-network',
  '--no-sandbox-network',
])
/** Config flags that take a value (`--flag value` or `--flag=value`). */
const VALUED_FLAGS = new Set(['--sandbox', '--sandbox-writable-root', '--sandbox-mechanism'])
/**
 * The CLI's and the MCP server's own defaults, under the user's variables and flags: on Linux
 * the sandbox on, writes confined to the workspace, the network on (so npm install works).
 * Elsewhere no sandbox exists yet, and asking for one is a startup error, so the default there
 * is off: a plain `agent-tools-native mcp` must start on a Mac.
 */
const CLI_DEFAULTS =
  process.platform === 'linux' ? { SANDBOX: 'workspace-write', SANDBOX_NETWORK: '1' } : {}
/** `mcp --http`'s port unless --port says otherwise (0: any free port). */
const DEFAULT_HTTP_PORT = 8765
/** `mcp --http`'s flags that take a value, with what the value is, for a usage message. */
const HTTP_VALUE_FLAGS = {
  '--host': '<address>',
  '--port': '<number>',
  '--token-file': '<path>',
  '--max-sessions': '<number>',
  '--session-idle-ms': '<number>',
  '--allowed-host': '<name>',
}

class UsageError extends Error {}

/** The command being run, once known: its help is the one a usage error points to. */
let helpTopic = ''

/** Splits argv into the command, its positional arguments, the config flags and --help. */
function parseArgs(argv) {
  const positional = []
  const configArgv = []
  const http = {}
  let help = false
  let version = false
  let onlyPositional = false
  let extras = true
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]
    if (onlyPositional || arg === '-' || !arg.startsWith('-')) positional.push(arg)
    else if (arg === '--') onlyPositional = true
    else if (arg === '-h' || arg === '--help') help = true
    else if (arg === '-v' || arg === '--version') version = true
    else if (CONFIG_FLAGS.has(arg)) configArgv.push(arg)
    else if (arg === '--no-extras') extras = false
    else if (arg === '--workspace') {
      if (i + 1 >= argv.length || argv[i + 1].startsWith('--')) {
        throw new UsageError('--workspace needs a directory: --workspace <dir>')
      }
      configArgv.push(arg, argv[++i])
    } else if (arg.startsWith('--workspace=')) configArgv.push(arg)
    else if (arg === '--surface') {
      if (i + 1 >= argv.length || argv[i + 1].startsWith('--')) {
        throw new UsageError(
          '--surface needs a name: --surface codex|claude-code|cyberpaw|anthropic|openai',
        )
      }
      configArgv.push(arg, argv[++i])
    } else if (arg.startsWith('--surface=')) configArgv.push(arg)
    else if (VALUED_FLAGS.has(arg)) {
      if (i + 1 >= argv.length || argv[i + 1].startsWith('--')) {
        throw new UsageError(`${arg} needs a value: ${arg} <value>`)
      }
      configArgv.push(arg, argv[++i])
    } else if (VALUED_FLAGS.has(arg.split('=')[0])) configArgv.push(arg)
    else if (arg === '--http') http.enabled = true
    else if (arg.split('=')[0] in HTTP_VALUE_FLAGS) {
      const [flag, inline] = arg.includes('=')
        ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)]
        : [arg]
      if (inline === undefined && (i + 1 >= argv.length || argv[i + 1].startsWith('--'))) {
        throw new UsageError(`${flag} needs a value: ${flag} ${HTTP_VALUE_FLAGS[flag]}`)
      }
      const value = inline ?? argv[++i]
      // --allowed-host may be given several times; the others once (the last wins).
      if (flag === '--allowed-host') http[flag.slice(2)] = [...(http[flag.slice(2)] ?? []), value]
      else http[flag.slice(2)] = value
    } else throw new UsageError(`unknown option ${arg}`)
  }
  // The library offers only the contract's tools unless asked; a CLI user gets them all.
  if (extras) configArgv.push('--extras')
  const [command, ...rest] = positional
  return { command, rest, configArgv, http, help, version }
}

function out(text) {
  process.stdout.write(text.endsWith('\n') ? text : `${text}\n`)
}

function loadApi() {
  return require('./index.js')
}

/** The flag or variable a CLI user sets for each library option a message may name. */
const USER_NAMES = {
  workspaceRoot: 'the workspace (--workspace or WORKSPACE_ROOT)',
  maxOutputBytes: 'MAX_OUTPUT_BYTES',
  maxBashOutputBytes: 'MAX_BASH_OUTPUT_BYTES',
  maxFileBytes: 'MAX_FILE_BYTES',
  maxImageBytes: 'MAX_IMAGE_BYTES',
  bashTimeoutMs: 'BASH_TIMEOUT_MS',
  bashTimeoutMaxMs: 'BASH_TIMEOUT_MAX_MS',
  monitorReadyTimeoutMs: 'MONITOR_READY_TIMEOUT_MS',
  maxMonitors: 'MAX_MONITORS',
  sandbox: '--sandbox (SANDBOX)',
  sandboxNetwork: '--sandbox-network / --no-sandbox-network (SANDBOX_NETWORK)',
  sandboxWritableRoots: '--sandbox-writable-root (SANDBOX_WRITABLE_ROOTS)',
  sandboxMechanism: '--sandbox-mechanism (SANDBOX_MECHANISM)',
}

/** A configuration message in the CLI user's words: the variable or flag, not the option. */
function inUserWords(message) {
  return message.replace(
    /\b(workspaceRoot|[a-z]+(?:[A-Z][a-z]+)+)\b/g,
    (word) => USER_NAMES[word] ?? word,
  )
}

function buildConfigOrUsage(configArgv) {
  const { buildConfig, StartupError } = loadApi()
  // The CLI works in the current directory unless told otherwise (the library's buildConfig
  // asks for a workspace).
  const named =
    configArgv.some((a) => a === '--workspace' || a.startsWith('--workspace=')) ||
    Boolean(process.env.WORKSPACE_ROOT)
  const argv = named ? configArgv : [...configArgv, `--workspace=${process.cwd()}`]
  try {
    return buildConfig(argv, { ...CLI_DEFAULTS, ...process.env })
  } catch (err) {
    if (err instanceof StartupError) {
      throw new UsageError(`bad configuration: ${inUserWords(err.message)}`)
    }
    throw err
  }
}

function parseCallArgs(json) {
  const text = json === '-' ? readFileSync(0, 'utf8') : json
  let args
  try {
    args = JSON.parse(text)
  } catch (err) {
    throw new UsageError(
      `the arguments are not valid JSON (${err.message}); pass an object, e.g. '{"path": "."}'`,
    )
  }
  if (args === null || typeof args !== 'object' || Array.isArray(args)) {
    throw new UsageError(`the arguments must be a JSON object, e.g. '{"path": "."}', got ${text}`)
  }
  return args
}

async function main(argv) {
  const { command, rest, configArgv, http, help, version } = parseArgs(argv)
  if (version) {
    out(require('./package.json').version)
    return 0
  }
  if (command === 'help') {
    const topic = rest[0] ?? 'main'
    if (!HELP[topic]) throw new UsageError(`no help for unknown command ${topic}`)
    out(HELP[topic])
    return 0
  }
  if (command === undefined) {
    if (help) {
      out(HELP.main)
      return 0
    }
    throw new UsageError('expected a command: list, call or mcp')
  }
  if (!COMMANDS.has(command)) {
    throw new UsageError(`unknown command ${command}; expected list, call or mcp`)
  }
  if (help) {
    out(HELP[command])
    return 0
  }
  helpTopic = ` ${command}`

  if (!(command === 'mcp' && http.enabled)) {
    const flag = Object.keys(http).find((k) => k !== 'enabled')
    if (http.enabled || flag) {
      throw new UsageError(`--${flag ?? 'http'} is an option of mcp --http only`)
    }
  }

  if (command === 'list') {
    if (rest.length > 0) throw new UsageError(`list takes no arguments, got ${rest.join(' ')}`)
    const config = buildConfigOrUsage(configArgv)
    out(JSON.stringify(loadApi().listTools(config), null, 2))
    return 0
  }

  if (command === 'call') {
    const [name, json = '{}', ...extra] = rest
    if (!name) throw new UsageError('call needs a tool name: call <tool> [json]')
    if (extra.length > 0) {
      throw new UsageError(
        `call takes one JSON argument, got extra ${extra.join(' ')} (quote the JSON as one argument)`,
      )
    }
    const args = parseCallArgs(json)
    const config = buildConfigOrUsage(configArgv)
    const result = await loadApi().dispatch(name, args, config)
    out(result.text)
    return result.isError ? 1 : 0
  }

  // mcp
  if (rest.length > 0) throw new UsageError(`mcp takes no arguments, got ${rest.join(' ')}`)
  const config = buildConfigOrUsage(configArgv)
  if (http.enabled) {
    const options = httpOptions(http)
    try {
      await require('./mcp-http.js').serveHttp(config, options)
    } catch (err) {
      if (err?.syscall === 'listen') {
        throw new UsageError(`cannot listen on ${options.host}:${options.port}: ${err.message}`)
      }
      throw err
    }
    // Stopped by a signal: every call is cancelled and answered; leave now.
    process.exit(0)
  }
  if ((await require('./mcp.js').serveStdio(config)) === 'gone') {
    // The client is gone (a signal, or stdout broke): nothing more can be said to it.
    process.exit(0)
  }
  return 0
}

/** A whole number in [min, max] from flag `name`'s value, or a usage error saying so. */
function intFlag(name, text, min, max) {
  if (!/^\d+$/.test(text) || Number(text) < min || Number(text) > max) {
    throw new UsageError(`--${name} must be a whole number from ${min} to ${max}, got ${text}`)
  }
  return Number(text)
}

/** `mcp --http`'s options from its flags and MCP_HTTP_TOKEN: the token is required. */
function httpOptions(http) {
  let token = process.env.MCP_HTTP_TOKEN ?? ''
  if (http['token-file'] !== undefined) {
    try {
      token = readFileSync(http['token-file'], 'utf8').replace(/\r?\n$/, '')
    } catch (err) {
      throw new UsageError(`cannot read --token-file ${http['token-file']}: ${err.message}`)
    }
    if (!token) throw new UsageError(`--token-file ${http['token-file']} is empty`)
  }
  if (!token) {
    throw new UsageError(
      'mcp --http needs a bearer token that clients must send: set the MCP_HTTP_TOKEN ' +
        'environment variable, or pass --token-file <path> (a file holding the token), ' +
        'e.g. MCP_HTTP_TOKEN=$(openssl rand -hex 32)',
    )
  }
  if (/\s/.test(token)) {
    throw new UsageError(
      'the bearer token must not contain whitespace (clients send it as Authorization: Bearer <token>)',
    )
  }
  return {
    host: http.host ?? '127.0.0.1',
    port: http.port === undefined ? DEFAULT_HTTP_PORT : intFlag('port', http.port, 0, 65535),
    token,
    maxSessions:
      http['max-sessions'] === undefined
        ? undefined
        : intFlag('max-sessions', http['max-sessions'], 1, 10_000),
    sessionIdleMs:
      http['session-idle-ms'] === undefined
        ? undefined
        : intFlag('session-idle-ms', http['session-idle-ms'], 1000, 2 ** 31 - 1),
    allowedHosts: http['allowed-host'] ?? [],
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code
  },
  (err) => {
    if (err instanceof UsageError) {
      process.stderr.write(`${BIN}: ${err.message}\nRun '${BIN}${helpTopic} --help' for usage.\n`)
      process.exitCode = 2
    } else if (err?.code === 'ERR_AGENT_TOOLS_NATIVE_LOAD') {
      // The message already lists every attempt and the fix; a stack trace would bury it.
      process.stderr.write(`${err.message}\n`)
      process.exitCode = 1
    } else {
      process.stderr.write(`${BIN}: ${err?.stack ?? err}\n`)
      process.exitCode = 1
    }
  },
)
