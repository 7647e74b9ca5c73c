// The public API. All tool work is native (binding.js loads the addon); this file adds only
// what must be JavaScript: real Error subclasses, frozen configs, the ToolDef objects, and the
// JSON conversion at the edge.

const native = loadNative()
// The guard's helpers (analyzeBash and the policy helpers), also served at `./guard`.
const {
  analyzeBash,
  buildGuardContext,
  withinWorkspace,
  touchesOutside,
  commandsIn,
} = require('./guard.js')

/**
 * Loads the addon through napi-rs' generated loader (`binding.js`: the local `.node` build
 * first, then the platform package). If nothing loads, throws one error saying what was tried
 * and how to fix it; the loader's own error (its `cause` chain holds every attempt) stays as
 * `cause`.
 */
function loadNative() {
  try {
    return require('./binding.js')
  } catch (err) {
    throw nativeLoadError(err)
  }
}

function nativeLoadError(err) {
  // The loader's error is a summary whose `cause` chain runs from the last attempt back to the
  // first; list the attempts in the order they were made.
  const attempts = []
  for (let e = err?.cause ?? err; e && attempts.length < 50; e = e.cause) {
    attempts.unshift(`  - ${String(e?.message ?? e).split('\n')[0]}`)
  }
  let prebuilt = []
  try {
    prebuilt = require('./package.json').napi.targets.map(platformOfTarget)
  } catch {
    // The list only decorates the message.
  }
  const here = `${process.platform}-${process.arch}`
  // A source checkout (Cargo.toml beside this file) builds in place; an installed copy has no
  // Rust sources, so the build happens in a checkout that is then installed.
  const fix = require('node:fs').existsSync(require('node:path').join(__dirname, 'Cargo.toml'))
    ? 'To fix: build the addon from source with Rust (https://rustup.rs): run `npm run build` ' +
      `in ${__dirname}.`
    : 'To fix: on one of those platforms, reinstall with optional dependencies enabled ' +
      '(`npm install` without --omit=optional / --no-optional) so npm fetches ' +
      '`agent-tools-native-<platform>`; anywhere else, build from source with Rust ' +
      '(https://rustup.rs): in a checkout of the agent-tools-native sources run ' +
      '`npm ci && npm run build`, then install that checkout (`npm install <path-to-checkout>`).'
  const error = new Error(
    `agent-tools-native: cannot load the native addon on ${here} (Node ${process.version}).\n` +
      `Tried:\n${attempts.join('\n')}\n` +
      `Prebuilt packages exist for: ${prebuilt.join(', ') || '(unknown)'}.\n${fix}`,
  )
  error.code = 'ERR_AGENT_TOOLS_NATIVE_LOAD'
  error.cause = err
  return error
}

/** `x86_64-unknown-linux-gnu` → `linux-x64-gnu`: the napi-rs platform package suffix. */
function platformOfTarget(target) {
  const parts = target.split('-')
  const arch = { x86_64: 'x64', aarch64: 'arm64' }[parts[0]] ?? parts[0]
  if (parts[2] === 'linux') return `linux-${arch}-${parts[3]}`
  if (parts[2] === 'darwin') return `darwin-${arch}`
  if (parts[2] === 'windows') return `win32-${arch}-${parts[3]}`
  return target
}

const DEFAULT_MAX_OUTPUT_BYTES = native.DEFAULT_MAX_OUTPUT_BYTES
const DEFAULT_MAX_FILE_BYTES = native.DEFAULT_MAX_FILE_BYTES
const DEFAULT_BASH_TIMEOUT_MS = native.DEFAULT_BASH_TIMEOUT_MS
const DEFAULT_BASH_TIMEOUT_MAX_MS = native.DEFAULT_BASH_TIMEOUT_MAX_MS

/** A bad configuration, thrown synchronously by resolveConfig / buildConfig / createAgentTools. */
class StartupError extends Error {
  constructor(message) {
    super(message)
    this.name = 'StartupError'
  }
}

/** The structured error a tool handler rejects with; `fields` are merged into the envelope. */
class ToolError extends Error {
  constructor(code, message, fields = {}) {
    super(message)
    this.name = 'ToolError'
    this.code = code
    this.fields = fields
  }
}

/** The JSON envelope for an error; anything but a ToolError becomes `internal`. */
function serializeError(err) {
  if (err instanceof ToolError) {
    return JSON.stringify({ error: err.code, message: err.message, ...err.fields })
  }
  process.stderr.write(`agent-tools-native: internal error: ${err?.stack ?? String(err)}\n`)
  return JSON.stringify({ error: 'internal', message: 'internal error' })
}

/** Maps a Node fs errno error to the ToolError the native tools would return. */
function fsError(err, path) {
  const code = err?.code
  if (code === 'ENOENT') return new ToolError('not_found', `No such file: ${path}`, { path })
  if (code === 'EISDIR' || code === 'ENOTDIR') {
    return new ToolError('not_a_file', `Not a file: ${path}`, { path })
  }
  return new ToolError('io_error', `${code ?? 'EIO'}: ${err?.message ?? String(err)}`, { path })
}

function toolErrorFromEnvelope(text) {
  const { error, message, ...fields } = JSON.parse(text)
  return new ToolError(error, message, fields)
}

/** The native side reads a config from JSON; a caller-built plain object works as well. */
function configJson(config) {
  return JSON.stringify(config ?? {})
}

/** Top-level string arguments longer than this cross beside the JSON, not inside it. */
const LARGE_STRING = 64 * 1024

/**
 * The arguments as the native side takes them: JSON, plus the large top-level strings of a
 * plain object (a file's content, a patch) as separate key/value lists, so they are neither
 * JSON-escaped here nor re-parsed there. Or the envelope explaining why they cannot be sent.
 */
function encodeArgs(args) {
  try {
    const value = args === undefined ? {} : args
    const largeKeys = []
    const largeValues = []
    let rest = value
    if (isPlainObject(value)) {
      for (const key of Object.keys(value)) {
        const v = value[key]
        if (typeof v === 'string' && v.length > LARGE_STRING) {
          if (rest === value) rest = { ...value }
          delete rest[key]
          largeKeys.push(key)
          largeValues.push(v)
        }
      }
    }
    const json = JSON.stringify(rest)
    if (json === undefined) return { envelope: 'arguments must be a JSON object' }
    return { wire: { json, largeKeys, largeValues } }
  } catch (err) {
    return { envelope: `arguments are not serializable as JSON: ${err?.message ?? err}` }
  }
}

function isPlainObject(value) {
  if (value === null || typeof value !== 'object' || typeof value.toJSON === 'function') {
    return false
  }
  const proto = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}

function invalidInput(message) {
  return JSON.stringify({ error: 'invalid_input', message })
}

/** Runs a tool: looks it up, validates args, asks the guard (if any), runs it, bounds the
 * text, and never rejects. */
async function dispatch(name, args, config) {
  try {
    const { wire, envelope } = encodeArgs(args)
    if (envelope) return { isError: true, text: invalidInput(envelope) }
    if (typeof config?.guard === 'function')
      return await guardedDispatch(String(name), wire, config)
    const out = await native.dispatchNative(String(name), wire, configJson(config))
    return { isError: out.isError, text: out.text }
  } catch (err) {
    return { isError: true, text: serializeError(err) }
  }
}

/** Dispatch with a guard: lookup and validation first, then the guard sees the coerced
 * arguments, then the tool runs with them. */
async function guardedDispatch(name, wire, config) {
  const json = configJson(config)
  const checked = await native.validateNative(name, wire, json)
  if (checked.isError) return { isError: true, text: checked.text }
  const validArgs = JSON.parse(checked.text)
  const refusal = await askGuard(name, validArgs, config)
  if (refusal !== null) return { isError: true, text: refusal }
  const out = await native.dispatchNative(name, encodeArgs(validArgs).wire, json)
  return { isError: out.isError, text: out.text }
}

/**
 * Awaits `config.guard(ctx)`: `allow` runs the tool (null); `deny` is `denied` with the
 * reason; anything else asks `config.elicit` (truthy runs the tool) or, without one, is
 * `denied`. A guard or elicit that throws gives its error's envelope (`internal` unless it is
 * a ToolError), so a broken guard fails closed.
 */
async function askGuard(name, args, config) {
  try {
    const ctx = buildGuardContext(name, args, config)
    const decision = await config.guard(ctx)
    const verdict = decision?.verdict
    if (verdict === 'allow') return null
    const reason = decision?.reason
    if (verdict !== 'deny' && typeof config.elicit === 'function') {
      if (await config.elicit({ tool: name, args, reason, bash: ctx.bash })) return null
    }
    return JSON.stringify({ error: 'denied', message: reason ?? 'blocked by guard' })
  } catch (err) {
    return serializeError(err)
  }
}

function makeToolDef(def) {
  const { name, description, inputSchema, bounded } = def
  const toolDef = {
    name,
    description,
    inputSchema,
    bounded,
    /** Runs the tool directly: no output bounding; rejects with a ToolError on failure. */
    async handler(args, config) {
      const { wire, envelope } = encodeArgs(args)
      if (envelope) throw new ToolError('invalid_input', envelope)
      const out = await native.handlerNative(name, wire, configJson(config))
      if (out.isError) throw toolErrorFromEnvelope(out.text)
      return out.text
    },
  }
  deepFreeze(inputSchema)
  return Object.freeze(toolDef)
}

function deepFreeze(value) {
  if (value && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v)
    Object.freeze(value)
  }
  return value
}

// No process a `bash` call started (a backgrounded server, a daemon) outlives this one.
if (require('node:worker_threads').isMainThread) {
  process.once('exit', () => native.killAllBashProcesses())
}

const nativeDefs = JSON.parse(native.toolDefsJson())
/** Every built tool, in registry order. */
const tools = Object.freeze(nativeDefs.map(makeToolDef))
/** The non-mutating subset: read_file, list_dir, glob, grep. */
const readOnlyTools = Object.freeze(tools.filter((_, i) => !nativeDefs[i].mutating))

/** `readOnlyTools` when readOnly, else `tools` (the same array objects every time). */
function selectSurface(readOnly) {
  return readOnly ? readOnlyTools : tools
}

function getTool(name, surface = tools) {
  return surface.find((t) => t.name === name)
}

/** The advertised surface for a config: `{ name, description, inputSchema }` per tool. */
function listTools(config) {
  return selectSurface(Boolean(config?.readOnly)).map(({ name, description, inputSchema }) => ({
    name,
    description,
    inputSchema: structuredClone(inputSchema),
  }))
}

/** Runs a native config builder; the hooks (functions, which cannot cross as JSON) are added
 * on this side. */
function callNativeConfig(fn, hooks = {}) {
  let json
  try {
    json = fn()
  } catch (err) {
    throw new StartupError(err?.message ?? String(err))
  }
  return Object.freeze({ ...JSON.parse(json), guard: hooks.guard, elicit: hooks.elicit })
}

function checkHook(name, value) {
  if (value !== undefined && typeof value !== 'function') {
    throw new StartupError(`${name} must be a function, got: ${typeof value}`)
  }
  return value
}

function probe(probeRipgrep) {
  if (probeRipgrep === undefined) return native.ripgrepOnPath()
  if (typeof probeRipgrep !== 'function') {
    throw new StartupError('probeRipgrep must be a function returning a boolean')
  }
  return Boolean(probeRipgrep())
}

/** Applies defaults and floors to AgentToolsOptions; throws StartupError naming the setting. */
function resolveConfig(options) {
  if (options === null || typeof options !== 'object') {
    throw new StartupError('options must be an object with at least workspaceRoot')
  }
  const { probeRipgrep, guard, elicit, ...rest } = options
  const hooks = { guard: checkHook('guard', guard), elicit: checkHook('elicit', elicit) }
  const ripgrepAvailable = probe(probeRipgrep)
  return callNativeConfig(
    () => native.resolveConfigJson(JSON.stringify({ ...rest, ripgrepAvailable })),
    hooks,
  )
}

/** Builds a config from flags (`--workspace`, `--read-only`, `--allow-outside-workspace`) and
 * environment variables; flags beat the environment. */
function buildConfig(argv = process.argv.slice(2), env = process.env, probeRipgrep) {
  if (!Array.isArray(argv) || argv.some((a) => typeof a !== 'string')) {
    throw new StartupError('argv must be an array of strings')
  }
  const ripgrepAvailable = probe(probeRipgrep)
  const envStrings = {}
  for (const [k, v] of Object.entries(env ?? {})) {
    if (typeof v === 'string') envStrings[k] = v
  }
  return callNativeConfig(() =>
    native.buildConfigJson(argv, JSON.stringify(envStrings), ripgrepAvailable),
  )
}

/** The factory: a resolved config, its tool list, and `callTool`. */
function createAgentTools(options) {
  const config = resolveConfig(options)
  return {
    config,
    listTools: () => listTools(config),
    callTool: (name, args = {}) => dispatch(name, args, config),
  }
}

/** Removes `.clarvis/bash-*` spill files older than 24 hours. Never rejects. */
async function sweepSpillDir(root) {
  try {
    await native.sweepSpillDirNative(String(root))
  } catch {
    // Sweeping is best effort by contract.
  }
}

module.exports = {
  createAgentTools,
  dispatch,
  listTools,
  tools,
  readOnlyTools,
  selectSurface,
  getTool,
  resolveConfig,
  buildConfig,
  StartupError,
  ToolError,
  serializeError,
  fsError,
  sweepSpillDir,
  DEFAULT_MAX_OUTPUT_BYTES,
  DEFAULT_MAX_FILE_BYTES,
  DEFAULT_BASH_TIMEOUT_MS,
  DEFAULT_BASH_TIMEOUT_MAX_MS,
  analyzeBash,
  buildGuardContext,
  withinWorkspace,
  touchesOutside,
  commandsIn,
}
