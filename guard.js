// The guard's helpers (CONTRACT-v0.5 §5): `analyzeBash` (native: the contract's lexer plus a
// real bash parser), `buildGuardContext`, and the fail-closed policy helpers. Served at the
// package root and at `agent-tools-native/guard`.

const nodePath = require('node:path')
const os = require('node:os')

const native = require('./native.js')

/**
 * The contract's `BashFacts` (`paths`, `undecidable`, `segments`: the only enumerable keys, so
 * the object compares and serializes exactly as the contract's) with the parser's detail as
 * non-enumerable, read-only extras.
 */
function facts(paths, undecidable, segments, extra) {
  const out = { paths, undecidable, segments }
  for (const [key, value] of Object.entries(extra)) {
    Object.defineProperty(out, key, { value, enumerable: false, writable: false })
  }
  return out
}

/** Facts for a command the analyzer could not look at: undecidable, so every helper refuses. */
function undecidableFacts(reason) {
  return facts([], true, [], {
    commands: [],
    accesses: [],
    redirections: [],
    reasons: [reason],
    parsed: false,
    parse: { segments: [], paths: [], outside: [], undecidable: true, reasons: [reason] },
  })
}

/** An option that is a string, or undefined. */
const optionalString = (v) => (typeof v === 'string' ? v : undefined)

/**
 * Structured facts about a shell command: the contract's `{ paths, undecidable, segments }`,
 * exactly as the contract's lexer gives them, plus the parse's facts (not enumerable):
 * `commands`, `accesses`, `redirections`, `reasons`, `parsed`, and `parse` (the segments,
 * paths and decision the helpers' verdicts come from). With `options.workspaceRoot` the parse
 * resolves paths physically against it, starting in `options.cwd`. Never throws.
 */
function analyzeBash(command, options) {
  let text
  let root
  let cwd
  try {
    text = typeof command === 'string' ? command : String(command ?? '')
    root = optionalString(options?.workspaceRoot)
    cwd = root === undefined ? undefined : optionalString(options?.cwd)
  } catch {
    return undecidableFacts('the command is not a string')
  }
  try {
    const f = JSON.parse(native.analyzeBashJson(text, root, cwd))
    const segments = f.segments.map((s) => ({
      command: s.command,
      argv: s.argv,
      normalized: s.normalized,
      decidable: s.decidable,
    }))
    return facts(f.paths, f.undecidable, segments, {
      commands: f.commands,
      accesses: f.accesses,
      redirections: f.redirections,
      reasons: f.reasons,
      parsed: f.parsed,
      parse: Object.freeze(f.parse),
    })
  } catch (err) {
    return undecidableFacts(`the analyzer failed: ${err?.message ?? err}`)
  }
}

/** `~` and `~/…` become the home directory, as the shell expands them. */
function expandTilde(raw) {
  if (raw === '~') return os.homedir()
  if (raw.startsWith('~/')) return nodePath.join(os.homedir(), raw.slice(2))
  return raw
}

/** The `---` / `+++` file names of a unified diff: tab tail dropped, trimmed, `a/`/`b/`
 * stripped, `/dev/null` skipped, duplicates removed. */
function patchPaths(patch) {
  const out = []
  if (typeof patch !== 'string') return out
  for (const line of patch.split(/\r?\n/)) {
    if (!line.startsWith('--- ') && !line.startsWith('+++ ')) continue
    let name = line.slice(4)
    const tab = name.indexOf('\t')
    if (tab >= 0) name = name.slice(0, tab)
    name = name.trim()
    if (name.startsWith('a/') || name.startsWith('b/')) name = name.slice(2)
    if (name === '/dev/null' || name === '' || out.includes(name)) continue
    out.push(name)
  }
  return out
}

const str = (v) => (typeof v === 'string' ? [v] : [])

/**
 * The tools whose one path is their `path` argument: the contract's table (CONTRACT-v0.5 §5),
 * then the extras that take a `path`. Any other name is not a tool of this library, and
 * names no path (CONTRACT-v0.5-wording §9: "an unknown tool name gives `paths: []`").
 */
const PATH_TOOLS = new Set([
  'read_file',
  'write_file',
  'edit_file',
  'multi_edit',
  'read_image',
  'list_dir',
  'glob',
  'grep',
  'file_stat',
  'tree',
  'outline',
  'check_syntax',
  'mkdir',
  'remove',
  'ast_grep',
  'find_references',
  'find_symbol',
  'repo_map',
])

/** The raw paths a tool call names, per the contract's table. */
function rawPaths(tool, args) {
  switch (tool) {
    case 'apply_patch':
      return patchPaths(args.patch)
    case 'move':
    case 'copy':
      return [...str(args.source), ...str(args.destination)]
    case 'read_files':
      return Array.isArray(args.paths) ? args.paths.filter((p) => typeof p === 'string') : []
    case 'diff':
      return [...str(args.from), ...str(args.to)]
    case 'replace':
      // "`replace` with `path` missing or `""` adds `.`"; another non-string adds nothing.
      return args.path === undefined || args.path === '' ? ['.'] : str(args.path)
    default:
      return PATH_TOOLS.has(tool) ? str(args.path) : []
  }
}

/**
 * The context a guard sees: `{ tool, args, config, paths, bash? }`. Every path is resolved
 * against the workspace root (absolute, normalized, not realpath'd); `withinWorkspace` says
 * whether the v0.1 confinement check would pass, whatever `confineToWorkspace` says.
 */
function buildGuardContext(tool, args, config) {
  const a = args !== null && typeof args === 'object' ? args : {}
  const root = nodePath.resolve(String(config?.workspaceRoot ?? '.'))
  const fact = (raw, expanded) => {
    const resolved = nodePath.resolve(root, expanded)
    let within = false
    try {
      within = native.pathWithinWorkspace(root, resolved)
    } catch {
      within = false
    }
    return { raw, resolved, withinWorkspace: within }
  }
  // Always these five keys, `bash` undefined unless a string command was analyzed
  // (CONTRACT-v0.5-wording §9).
  const ctx = { tool, args, config, paths: [], bash: undefined }
  if (tool === 'bash' || tool === 'monitor_start') {
    if (typeof a.command === 'string') {
      const bash = analyzeBash(a.command, { workspaceRoot: root, cwd: optionalString(a.cwd) })
      ctx.paths = bash.paths.map((p) => fact(p, expandTilde(p)))
      ctx.bash = bash
    }
    if (typeof a.cwd === 'string') ctx.paths.push(fact(a.cwd, a.cwd))
  } else {
    ctx.paths = rawPaths(tool, a).map((p) => fact(p, p))
  }
  return ctx
}

/**
 * Device files that hold no data: reading or writing them touches nothing. `cmd >/dev/null`
 * is ordinary work, so the helpers do not count these as outside (their `PathFact` still
 * says `withinWorkspace: false`, as the confinement check would).
 */
const HARMLESS_DEVICES = new Set(['/dev/null', '/dev/stdin', '/dev/stdout', '/dev/stderr'])

function inside(p) {
  return Boolean(p?.withinWorkspace) || HARMLESS_DEVICES.has(p?.resolved)
}

/**
 * The parse's facts of a command, when the analyzer made them (`analyzeBash` sets `parse` on
 * every result; a caller-built `BashFacts` has none, and the contract's fields decide).
 */
function parseOf(bash) {
  const p = bash?.parse
  if (p === null || typeof p !== 'object') return null
  const strings = (v) => Array.isArray(v) && v.every((x) => typeof x === 'string')
  if (!strings(p.segments) || !strings(p.paths) || !strings(p.outside)) return null
  return p
}

/**
 * True only when the command is decidable, names at least one path, and all are inside. For
 * bash the parse decides: its paths (physical, every simple command's), its decision.
 */
function withinWorkspace(ctx) {
  const p = parseOf(ctx?.bash)
  if (p) return !p.undecidable && p.paths.length > 0 && p.outside.length === 0
  if (ctx?.bash?.undecidable) return false
  const paths = ctx?.paths
  if (!Array.isArray(paths) || paths.length === 0) return false
  return paths.every(inside)
}

/**
 * True when any path lies outside the workspace. Ignores `undecidable`. For bash the parse's
 * paths decide (plus the contract's, when the parser could not read the command at all).
 */
function touchesOutside(ctx) {
  const paths = ctx?.paths
  const contract = Array.isArray(paths) && paths.some((p) => !inside(p))
  const p = parseOf(ctx?.bash)
  if (!p) return contract
  return p.outside.length > 0 || (ctx.bash.parsed === false && contract)
}

/**
 * True when the command is decidable, has segments, and every segment's `normalized` equals
 * an allowed entry (trimmed, non-empty) or starts with it followed by a space. The parse's
 * segments decide: every simple command that can run (inside subshells, functions,
 * substitutions, `bash -c` strings, wrappers such as `sudo` or `command`), each one checked.
 */
function commandsIn(bash, allowed) {
  if (!bash) return false
  const p = parseOf(bash)
  const lines = p
    ? p.segments
    : Array.isArray(bash.segments)
      ? bash.segments.map((s) => s.normalized)
      : []
  if ((p ? p.undecidable : bash.undecidable) || lines.length === 0) return false
  const entries = (Array.isArray(allowed) ? allowed : [])
    .filter((e) => typeof e === 'string')
    .map((e) => e.trim())
    .filter((e) => e !== '')
  return lines.every(
    (line) =>
      typeof line === 'string' && entries.some((e) => line === e || line.startsWith(`${e} `)),
  )
}

module.exports = {
  analyzeBash,
  buildGuardContext,
  withinWorkspace,
  touchesOutside,
  commandsIn,
}
