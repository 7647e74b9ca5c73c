#!/usr/bin/env node

// agent-tools-native CLI: `list`, `call <tool> [json]`, `mcp`. Plain JavaScript so it runs
// without a build step. Exit status: 0 ok, 1 an error result from `call`, 2 bad usage or a bad
// configuration (the message says which and how to fix it).

const { readFileSync } = require('node:fs')

const BIN = 'agent-tools-native'

const { OPTIONS, renderHelp } = require('./cli-options.js')
const EXIT_HELP = `Exit status: 0 success, 1 the tool call returned an error result (or an unexpected
failure), 2 bad usage or a bad configuration.`

/** Each help page, rendered when asked for (the option lines come from cli-options.js). */
const HELP = {
  main: () => `Usage: ${BIN} <command> [options]

The file-and-shell tools for LLM coding agents, from a shell or as an MCP server.

Commands:
  list                  print the active tool surface as JSON
  call <tool> [json]    run one tool call and print its result text
  mcp                   serve the tools over the Model Context Protocol (stdio)
  mcp --http            the same, over Streamable HTTP at http://127.0.0.1:8765/mcp
  help [command]        show help for a command

${renderHelp('main')}

${EXIT_HELP}`,
  list: () => `Usage: ${BIN} list [options]

Prints the active tool surface as a JSON array of { name, description, inputSchema }: every
tool, or only the read tools with --read-only.

${renderHelp('list')}

${EXIT_HELP}`,
  call: () => `Usage: ${BIN} call <tool> [json] [options]

Runs one tool call and prints the result text on stdout. <json> is the arguments object
(default {}); '-' reads it from stdin. On an error result the text is the JSON error envelope
{"error": <code>, "message": ...} and the exit status is 1.

Examples:
  ${BIN} call list_dir '{"path": "src"}' --workspace .
  ${BIN} call read_file '{"path": "README.md", "offset": -20}'
  echo '{"path": "a.txt"}' | ${BIN} call read_file -

${renderHelp('call')}

${EXIT_HELP}`,
  help: () => `Usage: ${BIN} help [command]

Prints the usage of <command> (list, call, mcp or help), or with no command the usage of the
whole CLI. The same as ${BIN} [command] --help.`,
  mcp: () => `Usage: ${BIN} mcp [options]
       ${BIN} mcp --http [--host <address>] [--port <number>] [options]

Serves the active tool surface as a Model Context Protocol server over stdio (JSON-RPC on
stdin/stdout; diagnostics on stderr). With --read-only the mutating tools are neither listed
nor callable. A tool result is returned as text content, with isError set on an error envelope.
When the client goes away (stdin closed, stdout broken, a signal) its running tool calls are
cancelled (a command's processes killed) and the server exits 0. Monitors (monitor_start) are
not calls: they outlive the server by design, until monitor_stop.

Register it with an MCP client, e.g. from a checkout:
  claude mcp add agent-tools -- node /path/to/${BIN}/cli.js mcp --workspace /path/to/repo
(once the package is published: ... -- npx -y ${BIN} mcp --workspace /path/to/repo)

With --http, the same server over the MCP Streamable HTTP transport, at /mcp. Every request
must carry the bearer token (Authorization: Bearer <token>); requests whose Host is not this
server's host:port (or localhost:port), or whose Origin is not a loopback origin, get 403.
When ready it prints "${BIN}: MCP server listening on http://<host>:<port>/mcp" on stderr;
SIGTERM stops it. DELETE ends a session and cancels its running calls; its monitors, too, run
on until monitor_stop.

${renderHelp('mcp')}

Exit status: 0 when the client closes the connection (stdio) or on SIGTERM, 2 bad usage or a
bad configuration (no token, a port in use).`,
}

const COMMANDS = new Set(['list', 'call', 'mcp'])
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
class UsageError extends Error {}

/** The command being run, once known: its help is the one a usage error points to. */
let helpTopic = ''

/**
 * The edit distance of `a` and `b` (insertions, deletions, substitutions and swaps of two
 * neighbours each count 1).
 */
function distance(a, b) {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array(b.length).fill(0)])
  for (let j = 1; j <= b.length; j++) d[0][j] = j
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1)
      }
    }
  }
  return d[a.length][b.length]
}

/**
 * `; did you mean <closest>?` when one of `candidates` is close to `word` (at most one edit per
 * three characters, and at most two), else nothing: a far guess misleads more than none.
 */
function didYouMean(word, candidates) {
  let best
  let bestDistance = Number.POSITIVE_INFINITY
  for (const candidate of candidates) {
    const d = distance(word, candidate)
    if (d < bestDistance) {
      best = candidate
      bestDistance = d
    }
  }
  const close =
    bestDistance > 0 && bestDistance <= Math.max(1, Math.min(2, Math.floor(word.length / 3)))
  return close ? `; did you mean ${best}?` : ''
}

/**
 * The command `argv` names — its first positional argument, flag values skipped — so that a
 * usage error found while parsing still points at that command's help.
 */
function commandOf(argv) {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]
    if (arg === '--') return argv[i + 1]
    if (arg === '-' || !arg.startsWith('-')) return arg
    const option = OPTIONS.find((o) => o.flag === arg || o.short === arg)
    if (option?.value) i++
  }
  return undefined
}

/**
 * Splits argv into the command, its positional arguments, the flags handed on to buildConfig,
 * and the CLI's own flags (`flags['--no-extras']`, ...), by the table in cli-options.js.
 */
function parseArgs(argv) {
  const positional = []
  const configArgv = []
  const flags = {}
  let onlyPositional = false
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]
    if (onlyPositional || arg === '-' || !arg.startsWith('-')) {
      positional.push(arg)
      continue
    }
    if (arg === '--') {
      onlyPositional = true
      continue
    }
    const eq = arg.startsWith('--') ? arg.indexOf('=') : -1
    const name = eq > 0 ? arg.slice(0, eq) : arg
    const option = OPTIONS.find((o) => o.flag === name || o.short === name)
    if (!option) {
      const flags = OPTIONS.flatMap((o) => (o.flag ? [o.flag] : []))
      throw new UsageError(`unknown option ${arg}${didYouMean(name, flags)}`)
    }
    let value = true
    if (option.value) {
      const usage = `${option.flag} needs ${option.needs ?? 'a value'}`
      if (eq > 0) {
        value = arg.slice(eq + 1)
        if (value === '') throw new UsageError(`${usage} (${option.flag}=${option.value})`)
      } else {
        if (i + 1 >= argv.length || argv[i + 1].startsWith('--')) {
          throw new UsageError(`${usage} (${option.flag} ${option.value})`)
        }
        value = argv[++i]
      }
    } else if (eq > 0) {
      throw new UsageError(`${option.flag} takes no value, got ${arg}`)
    }
    flags[option.flag] = option.repeatable ? [...(flags[option.flag] ?? []), value] : value
    if (option.config) configArgv.push(...(value === true ? [option.flag] : [option.flag, value]))
  }
  // The library offers only the contract's tools unless asked; a CLI user gets them all.
  if (!flags['--no-extras']) configArgv.push('--extras')
  const [command, ...rest] = positional
  return {
    command,
    rest,
    configArgv,
    flags,
    help: '--help' in flags,
    version: '--version' in flags,
  }
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
  // Trimmed, so that a message quoting it is one line (stdin ends with a newline).
  const text = (json === '-' ? readFileSync(0, 'utf8') : json).trim()
  if (text === '') {
    throw new UsageError(
      json === '-'
        ? `stdin was empty: '-' reads the arguments object from stdin, e.g. echo '{"path": "."}' | ${BIN} call list_dir -`
        : `the arguments are empty; pass a JSON object, e.g. '{"path": "."}', or leave them out for {}`,
    )
  }
  let args
  try {
    args = JSON.parse(text)
  } catch (err) {
    throw new UsageError(
      `the arguments are not valid JSON (${err.message}); pass an object, e.g. '{"path": "."}'`,
    )
  }
  if (args === null || typeof args !== 'object' || Array.isArray(args)) {
    throw new UsageError(
      `the arguments must be a JSON object, e.g. '{"path": "."}', got ${JSON.stringify(args)}`,
    )
  }
  return args
}

async function main(argv) {
  const named = commandOf(argv)
  if (COMMANDS.has(named)) helpTopic = ` ${named}`
  const { command, rest, configArgv, flags, help, version } = parseArgs(argv)
  if (version) {
    out(require('./package.json').version)
    return 0
  }
  if (command === 'help') {
    const [topic] = rest
    // `main` names the CLI's own page internally; it is no command.
    if (topic !== undefined && (topic === 'main' || !HELP[topic])) {
      const guess = didYouMean(topic, [...COMMANDS, 'help'])
      throw new UsageError(`no help for unknown command ${topic}${guess}`)
    }
    out(HELP[topic ?? 'main']())
    return 0
  }
  if (command === undefined) {
    if (help) {
      out(HELP.main())
      return 0
    }
    throw new UsageError('expected a command: list, call or mcp')
  }
  if (!COMMANDS.has(command)) {
    const guess = didYouMean(command, [...COMMANDS, 'help'])
    throw new UsageError(`unknown command ${command}${guess || '; expected list, call or mcp'}`)
  }
  if (help) {
    out(HELP[command]())
    return 0
  }
  helpTopic = ` ${command}`
  for (const option of OPTIONS) {
    if (!(option.flag in flags)) continue
    const elsewhere = option.commands && !option.commands.includes(command)
    if (elsewhere || (option.http && !flags['--http'])) {
      const where = option.http ? 'mcp --http' : option.commands.join(', ')
      throw new UsageError(`${option.flag} is an option of ${where} only`)
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
  if (flags['--http']) {
    // `--token-file` is `http['token-file']`.
    const options = httpOptions(
      Object.fromEntries(Object.entries(flags).map(([k, v]) => [k.replace(/^--/, ''), v])),
    )
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
