// The CLI's flags and environment variables, in one table: `cli.js` parses its arguments with
// it and renders `--help` from it, and README's CLI section is generated from it
// (`npm run gen:docs`; a test fails when README differs). A new flag is one entry here.

/**
 * One setting. `flag`: the command-line flag (absent: environment only); `value`: its
 * placeholder when it takes one; `env`: the variable that sets the same thing (a flag wins);
 * `config`: the flag is handed on to `buildConfig` (else the CLI reads it itself); `commands`:
 * where it applies (absent: every command); `http`: an option of `mcp --http` only;
 * `repeatable`: may be given several times (its values are collected); `needs`: what a missing
 * value is called in the usage error; `help(facts)`: one line of description.
 */
const OPTIONS = [
  {
    flag: '--workspace',
    value: '<dir>',
    needs: 'a directory',
    env: 'WORKSPACE_ROOT',
    config: true,
    help: () => 'the directory the tools work in (default: the current directory)',
  },
  {
    flag: '--read-only',
    env: 'READ_ONLY',
    config: true,
    help: (f) =>
      f.readOnlyTools
        ? `only the tools that change nothing (at the root, these ${f.readOnlyTools.length}: ${f.readOnlyTools.join(', ')})`
        : 'only the tools that change nothing (`list --read-only` names them)',
  },
  {
    flag: '--allow-outside-workspace',
    env: 'ALLOW_OUTSIDE_WORKSPACE',
    config: true,
    help: () => 'let paths leave the workspace (confined by default)',
  },
  {
    flag: '--surface',
    value: '<name>',
    needs: 'a name: --surface codex|claude-code|cyberpaw|anthropic|openai',
    config: true,
    help: () =>
      "offer a vendor's tool surface instead of the engine's tools: codex, claude-code, cyberpaw, anthropic or openai",
  },
  {
    flag: '--shell',
    value: '<program>',
    needs: 'a program: --shell bash',
    env: 'BASH_SHELL',
    config: true,
    help: () =>
      'the shell the `bash` tool runs commands with, as `<program> -c` (default sh, which is dash on Debian; e.g. bash). The surfaces choose their own',
  },
  {
    flag: '--sandbox',
    value: '<mode>',
    needs: 'a mode: --sandbox off|read-only|workspace-write',
    env: 'SANDBOX',
    config: true,
    help: () =>
      "the kernel sandbox of bash and monitors (Linux): off, read-only or workspace-write (the CLI's default on Linux: workspace-write, network on; elsewhere off, as no sandbox exists there yet)",
  },
  {
    flag: '--no-sandbox-network',
    env: 'SANDBOX_NETWORK',
    config: true,
    help: () => 'sandboxed commands may not use TCP/UDP (the variable: 1 may, 0 may not)',
  },
  {
    flag: '--sandbox-network',
    config: true,
    help: () => 'sandboxed commands may use TCP/UDP (the default)',
  },
  {
    flag: '--sandbox-writable-root',
    value: '<dir>',
    needs: 'a directory',
    env: 'SANDBOX_WRITABLE_ROOTS',
    config: true,
    repeatable: true,
    help: () =>
      "one more directory sandboxed commands may write; repeatable (the variable: directories joined with ':')",
  },
  {
    flag: '--sandbox-mechanism',
    value: '<m>',
    needs: 'a mechanism: --sandbox-mechanism auto|namespaces|landlock',
    env: 'SANDBOX_MECHANISM',
    config: true,
    help: () => 'how the sandbox is made: auto (default), namespaces or landlock',
  },
  {
    flag: '--no-extras',
    help: () =>
      "only the contract's tools, none of the tools beyond it (monitor_send, ...); by default the CLI and the MCP server offer them",
  },
  {
    env: 'MAX_OUTPUT_BYTES',
    help: (f) => `cap on one result's text, in bytes${dflt(f, 'DEFAULT_MAX_OUTPUT_BYTES')}`,
  },
  {
    env: 'MAX_BASH_OUTPUT_BYTES',
    help: (f) =>
      `the inline budget of bash's stdout and stderr together, in bytes${dflt(f, 'DEFAULT_MAX_BASH_OUTPUT_BYTES')}`,
  },
  {
    env: 'MAX_FILE_BYTES',
    help: (f) =>
      `largest file the tools read or edit, in bytes${dflt(f, 'DEFAULT_MAX_FILE_BYTES')}`,
  },
  {
    env: 'MAX_IMAGE_BYTES',
    help: (f) => `largest image read_image returns, in bytes${dflt(f, 'DEFAULT_MAX_IMAGE_BYTES')}`,
  },
  {
    env: 'BASH_TIMEOUT_MS',
    help: (f) => `default bash timeout, in milliseconds${dflt(f, 'DEFAULT_BASH_TIMEOUT_MS')}`,
  },
  {
    env: 'BASH_TIMEOUT_MAX_MS',
    help: (f) =>
      `largest timeout a bash call may ask for, in milliseconds${dflt(f, 'DEFAULT_BASH_TIMEOUT_MAX_MS')}`,
  },
  {
    env: 'MONITOR_READY_TIMEOUT_MS',
    help: (f) =>
      `how long monitor_start waits for ready_when, in milliseconds${dflt(f, 'DEFAULT_MONITOR_READY_TIMEOUT_MS')}`,
  },
  {
    env: 'MAX_MONITORS',
    help: (f) => `how many monitors may run at once${dflt(f, 'DEFAULT_MAX_MONITORS')}`,
  },
  {
    flag: '--http',
    commands: ['mcp'],
    http: true,
    help: () =>
      'serve over the MCP Streamable HTTP transport (at /mcp) instead of stdio; needs a bearer token (MCP_HTTP_TOKEN or --token-file)',
  },
  {
    flag: '--host',
    value: '<address>',
    commands: ['mcp'],
    http: true,
    help: () =>
      'the address mcp --http listens on (default 127.0.0.1; anything that is not loopback exposes the workspace to the network: see README, "Remote workspace")',
  },
  {
    flag: '--port',
    value: '<number>',
    commands: ['mcp'],
    http: true,
    help: () => 'the port of mcp --http (default 8765; 0 picks a free one)',
  },
  {
    flag: '--token-file',
    value: '<path>',
    commands: ['mcp'],
    http: true,
    help: () =>
      'read the bearer token of mcp --http from this file (a trailing newline is trimmed); instead of MCP_HTTP_TOKEN',
  },
  {
    flag: '--max-sessions',
    value: '<number>',
    commands: ['mcp'],
    http: true,
    help: () => 'most sessions mcp --http keeps open at once (default 16; more get 503)',
  },
  {
    flag: '--session-idle-ms',
    value: '<number>',
    commands: ['mcp'],
    http: true,
    help: () =>
      'an mcp --http session with no request open for this long ends, its running calls cancelled (monitors run on) (default 1800000, 30 minutes)',
  },
  {
    flag: '--allowed-host',
    value: '<name>',
    commands: ['mcp'],
    http: true,
    repeatable: true,
    help: () =>
      "one more Host a client may address mcp --http by (name, or name:port; without a port, the server's); repeatable",
  },
  {
    env: 'MCP_HTTP_TOKEN',
    commands: ['mcp'],
    http: true,
    help: () =>
      'the bearer token clients of mcp --http must send, when --token-file is not given (e.g. MCP_HTTP_TOKEN=$(openssl rand -hex 32))',
  },
  { flag: '--help', short: '-h', help: () => 'show help' },
  { flag: '--version', short: '-v', commands: ['main'], help: () => 'print the version' },
]

/** ` (default N)` from the addon's constant, when the addon could be loaded. */
function dflt(facts, name) {
  return facts.defaults?.[name] === undefined ? '' : ` (default ${facts.defaults[name]})`
}

/**
 * What the descriptions are made of, read from the addon (the registry and the defaults), so
 * nothing is written twice. `{}` when the addon cannot be loaded: help still renders.
 */
function facts() {
  try {
    const api = require('./index.js')
    const defaults = {}
    for (const [k, v] of Object.entries(api)) if (k.startsWith('DEFAULT_')) defaults[k] = v
    return {
      readOnlyTools: api.selectSurface(true, true, true).map((t) => t.name),
      defaults,
    }
  } catch {
    return {}
  }
}

/** The entries that apply to `command`; the top-level help (`main`) shows them all. */
function optionsFor(command) {
  return OPTIONS.filter((o) => !o.commands || o.commands.includes(command) || command === 'main')
}

/** How a flag is written in help: `-h, --help`, `--workspace <dir>`. */
function flagSpelling(o) {
  return `${o.short ? `${o.short}, ` : ''}${o.flag}${o.value ? ` ${o.value}` : ''}`
}

/** Wraps `text` to `width` columns, every line after the first indented by `indent`. */
function wrap(text, width, indent) {
  const lines = []
  let line = ''
  for (const word of text.split(' ')) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line)
      line = word
    } else line = line ? `${line} ${word}` : word
  }
  if (line) lines.push(line)
  return lines.join(`\n${' '.repeat(indent)}`)
}

/** The options and environment sections of `--help` for `command`. */
function renderHelp(command, f = facts()) {
  const col = 30
  const flags = optionsFor(command)
    .filter((o) => o.flag)
    .map((o) => {
      const spelling = `  ${flagSpelling(o)}`
      const left = spelling.length < col ? spelling.padEnd(col) : `${spelling}\n${' '.repeat(col)}`
      const env = o.env ? `; also $${o.env}` : ''
      return `${left}${wrap(`${o.help(f)}${env}`, 96 - col, col)}`
    })
  const envOnly = optionsFor(command)
    .filter((o) => !o.flag && o.env)
    .map((o) => `  ${o.env.padEnd(col - 2)}${wrap(o.help(f), 96 - col, col)}`)
  return `Options (a flag wins over its variable; --name=value works too):
${flags.join('\n')}

Environment (booleans: 1/true/yes/on or 0/false/no/off; integers: plain digits):
${envOnly.join('\n')}`
}

/** README's table of the same entries (every command's). */
function renderMarkdown(f = facts()) {
  const rows = OPTIONS.filter((o) => o.flag !== '--help' && o.flag !== '--version').map((o) => {
    const flag = o.flag ? `\`${flagSpelling(o)}\`` : ''
    const env = o.env ? `\`${o.env}\`` : ''
    const where = o.http
      ? ' (mcp --http only)'
      : o.commands
        ? ` (${o.commands.join(', ')} only)`
        : ''
    return `| ${flag} | ${env} | ${o.help(f).replace(/\|/g, '\\|')}${where} |`
  })
  return ['| flag | environment variable | what it sets |', '| --- | --- | --- |', ...rows].join(
    '\n',
  )
}

module.exports = { OPTIONS, optionsFor, renderHelp, renderMarkdown, facts }
