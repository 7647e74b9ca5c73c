// The CLI's flags and environment variables, in one table: `cli.js` parses its arguments with
// it and renders `--help` from it, and README's CLI section is generated from it
// (`npm run gen:docs`; a test fails when README differs). A new flag is one entry here.

/**
 * One setting. `flag`: the command-line flag (absent: environment only); `value`: its
 * placeholder when it takes one; `env`: the variable that sets the same thing (a flag wins);
 * `config`: the flag is handed on to `buildConfig` (else the CLI reads it itself); `commands`:
 * where it applies (absent: every command); `needs`: what a missing value is called in the
 * usage error; `help(facts)`: one line of description.
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

/** The entries that apply to `command` (`main` is the top-level help). */
function optionsFor(command) {
  return OPTIONS.filter((o) => !o.commands || o.commands.includes(command))
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
      const left = `  ${flagSpelling(o)}`.padEnd(col)
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
    const where = o.commands ? ` (${o.commands.join(', ')} only)` : ''
    return `| ${flag} | ${env} | ${o.help(f).replace(/\|/g, '\\|')}${where} |`
  })
  return ['| flag | environment variable | what it sets |', '| --- | --- | --- |', ...rows].join(
    '\n',
  )
}

module.exports = { OPTIONS, optionsFor, renderHelp, renderMarkdown, facts }
