// The public API of both entry points over one native engine. `makeApi('current')` is the
// package root (the newest contract: content-part results, cancellation, lenient validation);
// `makeApi('seed')` is `agent-tools-native/v0.1` (the seed contract: `{ isError, text }`,
// strict validation, nine tools). The engine reads the profile where behaviour differs; this
// file adds only what must be JavaScript: Error subclasses, frozen configs, the ToolDef objects,
// AbortSignal wiring, and the JSON conversion at the edge.

const native = require('./native.js')
const guard = require('./guard.js')

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

const DEFAULT_WARN_SINK = (message) => process.stderr.write(message)
let warnSink = DEFAULT_WARN_SINK

/** Routes every diagnostic line (`clarvis-agent-tools: …\n`); `null` restores stderr. */
function setWarnSink(sink) {
  warnSink = typeof sink === 'function' ? sink : DEFAULT_WARN_SINK
}

/** Sends one diagnostic line to the sink; a failing sink is never the caller's problem. */
function warn(line) {
  try {
    warnSink(`clarvis-agent-tools: ${line}\n`)
  } catch {
    // A diagnostic must not turn into a failure.
  }
}

/** Hands the diagnostic lines a native call emitted to the sink. */
function emitWarnings(out) {
  for (const line of out.warnings ?? []) warn(line)
}

/** The JSON envelope for an error; anything but a ToolError becomes `internal`. */
function serializeError(err) {
  if (err instanceof ToolError) {
    return JSON.stringify({ error: err.code, message: err.message, ...err.fields })
  }
  warn(`internal error: ${err?.stack ?? String(err)}`)
  return JSON.stringify({ error: 'internal', message: 'internal error' })
}

/** Maps a Node fs errno error to the ToolError the native tools would return. */
function fsError(err, path) {
  const code = err?.code
  if (code === 'ENOENT') return new ToolError('not_found', `No such file: ${path}`, { path })
  if (code === 'EISDIR')
    return new ToolError('not_a_file', `Path is a directory: ${path}`, { path })
  if (code === 'ENOTDIR') return new ToolError('not_a_file', `Not a directory: ${path}`, { path })
  return new ToolError('io_error', `${code ?? 'EIO'}: ${err?.message}`, { path })
}

function toolErrorFromEnvelope(text) {
  const { error, message, ...fields } = JSON.parse(text)
  return new ToolError(error, message, fields)
}

/** `contentText(content)`: the text parts joined with no separator; images are skipped. */
function contentText(content) {
  if (typeof content === 'string') return content
  let out = ''
  // As `join('')` reads each part's text: a missing one adds nothing.
  for (const part of content ?? []) if (part?.type === 'text') out += part.text ?? ''
  return out
}

/**
 * The JSON of each config object seen, with the values it was made from. The root's config is
 * a plain object a caller may change (CONTRACT-v0.5-wording §3: not frozen), so a cached JSON is
 * reused only while every own value is still the one it was made from (a shallow check of some
 * fifteen fields, far cheaper than encoding them again).
 */
const configJsonCache = new WeakMap()

/** The native side reads a config from JSON (functions such as `guard` stay here). */
function configJson(config) {
  if (config === null || typeof config !== 'object') return JSON.stringify(config ?? {})
  const cached = configJsonCache.get(config)
  if (cached !== undefined && (cached.frozen || sameValues(config, cached.values))) {
    return cached.json
  }
  const json = JSON.stringify(config)
  const frozen = Object.isFrozen(config)
  configJsonCache.set(config, { json, frozen, values: frozen ? null : ownValues(config) })
  return json
}

/** `[key, value]` of each own enumerable property, in order. */
function ownValues(object) {
  const out = []
  for (const key in object) if (Object.hasOwn(object, key)) out.push(key, object[key])
  return out
}

/** Whether `object` still has exactly the own properties and values `values` recorded. */
function sameValues(object, values) {
  let i = 0
  for (const key in object) {
    if (!Object.hasOwn(object, key)) continue
    if (values[i] !== key || values[i + 1] !== object[key]) return false
    i += 2
  }
  return i === values.length
}

/** Top-level string arguments longer than this cross beside the JSON, not inside it. */
const LARGE_STRING = 64 * 1024

/**
 * The arguments as the native side takes them: their JSON, or — when a plain object has large
 * top-level strings (a file's content, a patch) — `{ json, largeKeys, largeValues }` with those
 * strings beside the JSON, so they are neither JSON-escaped here nor re-parsed there. Or the
 * envelope explaining why they cannot be sent.
 */
function encodeArgs(args) {
  try {
    const value = args === undefined ? {} : args
    const bad = loneSurrogateField(value, '', 0)
    if (bad !== null) {
      const field = bad === '' ? 'arguments' : bad
      return {
        envelope: `${field} contains a lone UTF-16 surrogate (a code unit in U+D800-U+DFFF without its pair), which is not valid Unicode text: remove it or send the whole character`,
        fields: { field },
      }
    }
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
    return { wire: largeKeys.length === 0 ? json : { json, largeKeys, largeValues } }
  } catch (err) {
    return { envelope: `arguments are not serializable as JSON: ${err?.message ?? err}` }
  }
}

/** Matches an unpaired surrogate (for engines without String.prototype.isWellFormed). */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

/**
 * The path (`content`, `edits[2].new_string`) of the first string in `value` holding a lone
 * surrogate, or null. Every string argument is checked the same way at every size: JSON would
 * carry it as an escape serde refuses without naming a field, and the large-string side channel
 * would replace it with U+FFFD silently.
 */
function loneSurrogateField(value, path, depth) {
  if (typeof value === 'string') {
    const bad =
      typeof value.isWellFormed === 'function' ? !value.isWellFormed() : LONE_SURROGATE.test(value)
    return bad ? path : null
  }
  if (value === null || typeof value !== 'object' || depth > 64) return null
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = loneSurrogateField(value[i], `${path}[${i}]`, depth + 1)
      if (found !== null) return found
    }
    return null
  }
  for (const key of Object.keys(value)) {
    const found = loneSurrogateField(value[key], path === '' ? key : `${path}.${key}`, depth + 1)
    if (found !== null) return found
  }
  return null
}

function isPlainObject(value) {
  if (value === null || typeof value !== 'object' || typeof value.toJSON === 'function') {
    return false
  }
  const proto = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}

function invalidInput(message, fields = {}) {
  return JSON.stringify({ error: 'invalid_input', message, ...fields })
}

let lastCallId = 0

/** A fresh native call id (32-bit, never 0). */
function nextCallId() {
  lastCallId = (lastCallId + 1) >>> 0 || 1
  return lastCallId
}

/** How often a watched call's progress is read. */
const PROGRESS_INTERVAL_MS = 500

/**
 * Runs `start(callId)` with the call registered natively when it can be cancelled (`signal`)
 * or watched (`onProgress`): an abort, even one that already happened, raises the call's flag,
 * and `onProgress({ files, bytes, tail, elapsedMs })` is called every half second while the
 * call runs. A call with neither is not registered and costs nothing extra.
 */
function withCall(signal, onProgress, start) {
  const cancellable = Boolean(signal) && typeof signal.addEventListener === 'function'
  const watched = typeof onProgress === 'function'
  // The common call, neither cancellable nor watched: the native promise itself, with no
  // async wrapper around it.
  if (!cancellable && !watched) return start(undefined)
  return registeredCall(cancellable && signal, watched && onProgress, start)
}

/** `withCall` for a call that is cancellable (`signal`) or watched (`onProgress`), or both. */
async function registeredCall(signal, onProgress, start) {
  const cancellable = Boolean(signal)
  const watched = Boolean(onProgress)
  const id = nextCallId()
  const onAbort = () => native.abortCall(id)
  if (cancellable) signal.addEventListener('abort', onAbort, { once: true })
  const began = Date.now()
  const timer = watched
    ? setInterval(() => {
        const p = native.callProgress(id)
        if (p) {
          try {
            onProgress({ ...p, elapsedMs: Date.now() - began })
          } catch {
            // A failing progress listener must not fail the call.
          }
        }
      }, PROGRESS_INTERVAL_MS)
    : undefined
  try {
    // A signal aborted already raises the call's flag before its work starts (the native side
    // keeps a flag raised early for the call that registers it), so even a call that would
    // finish at once answers `aborted`.
    if (cancellable && signal.aborted) native.abortCall(id)
    return await start(id)
  } finally {
    if (timer) clearInterval(timer)
    if (cancellable) signal.removeEventListener('abort', onAbort)
  }
}

/**
 * `withCall` for a batch: `start(ids)` gets one call id per call (or `undefined` when there
 * is no signal), and an abort raises every one of them.
 */
async function withCalls(signal, count, start) {
  if (!signal || typeof signal.addEventListener !== 'function') return start(undefined)
  const ids = Array.from({ length: count }, nextCallId)
  const onAbort = () => {
    for (const id of ids) native.abortCall(id)
  }
  signal.addEventListener('abort', onAbort, { once: true })
  try {
    if (signal.aborted) onAbort()
    return await start(ids)
  } finally {
    signal.removeEventListener('abort', onAbort)
  }
}

function deepFreeze(value) {
  if (value && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v)
    Object.freeze(value)
  }
  return value
}

// No process a `bash` call started (a backgrounded server, a daemon) outlives this one. In a
// worker thread the hook runs at the worker's exit, and the native side leaves it alone.
process.once('exit', () => native.killAllBashProcesses())

const nativeDefs = JSON.parse(native.toolDefsJson())

/** The vendor tool surfaces (`surface` option), each `[{name, description, inputSchema, mutating}]`. */
const SURFACE_NAMES = ['codex', 'claude-code', 'cyberpaw', 'anthropic', 'openai']
const surfaceDefCache = new Map()

/**
 * A surface's tool defs, or undefined for a name that is not a surface. Built on first use: a
 * process that never uses a surface (a one-shot CLI call, most hosts) pays nothing for them
 * at load.
 */
function surfaceDefs(surface) {
  if (!SURFACE_NAMES.includes(surface)) return undefined
  let defs = surfaceDefCache.get(surface)
  if (defs === undefined) {
    defs = deepFreeze(JSON.parse(native.surfaceToolsJson(surface)))
    surfaceDefCache.set(surface, defs)
  }
  return defs
}

/**
 * The read-before-write ledger of the `claude-code` and `cyberpaw` surfaces lives in the native
 * engine, one per config object (a tools object has one config): opened on the config's first
 * surface call, closed when the config is garbage-collected.
 */
const ledgers = new WeakMap()
const ledgerCleanup = new FinalizationRegistry((id) => native.ledgerClose(id))

function ledgerFor(config) {
  let id = ledgers.get(config)
  if (id === undefined) {
    id = native.ledgerOpen()
    ledgers.set(config, id)
    ledgerCleanup.register(config, id)
  }
  return id
}

/** The seed contract's `ServerConfig` fields, in order. */
const SEED_CONFIG_FIELDS = [
  'workspaceRoot',
  'maxOutputBytes',
  'maxFileBytes',
  'bashTimeoutMs',
  'bashTimeoutMaxMs',
  'ripgrepAvailable',
  'readOnly',
  'confineToWorkspace',
]

function probeRipgrep(probe) {
  // `options.probeRipgrep ?? defaultProbe`: null too means the default.
  if (probe == null) return native.ripgrepOnPath()
  if (typeof probe !== 'function') {
    throw new StartupError('probeRipgrep must be a function returning a boolean')
  }
  return Boolean(probe())
}

/** The grammars are compiled into the addon: the default probe answers true. */
function probeTreeSitter(probe) {
  if (probe == null) return true
  if (typeof probe !== 'function') {
    throw new StartupError('probeTreeSitter must be a function returning a boolean')
  }
  return Boolean(probe())
}

function hook(options, name) {
  const value = options?.[name]
  if (value !== undefined && value !== null && typeof value !== 'function') {
    throw new StartupError(`${name} must be a function`)
  }
  return value ?? undefined
}

function callNativeConfig(fn) {
  try {
    return JSON.parse(fn())
  } catch (err) {
    throw new StartupError(err?.message ?? String(err))
  }
}

/** Builds the API of one entry point: `profile` is `'current'` (root) or `'seed'` (`/v0.1`). */
function makeApi(profile) {
  const seed = profile === 'seed'
  // Tools beyond the contract (`extra`) exist only at the root, and are offered only to a
  // config with `extras: true`.
  const defs = nativeDefs.filter((d) => !(seed && (d.sinceV05 || d.extra)))

  /**
   * The entry's result shape for a native outcome: an object, or — for a success that is one
   * text part and nothing else — that text alone.
   */
  function toResult(out) {
    if (typeof out === 'string') return textResult(false, out)
    if (seed) return { isError: out.isError, text: contentText(out.content) }
    const content = out.content.map((p) =>
      p.type === 'image'
        ? { type: 'image', data: p.data, mimeType: p.mimeType }
        : { type: 'text', text: p.text },
    )
    const result = { isError: out.isError, content }
    if (!out.isError && out.metaJson) result.meta = JSON.parse(out.metaJson)
    return withTextView(result)
  }

  function errorResult(envelope) {
    return textResult(true, envelope)
  }

  /** The entry's result shape for one text. */
  function textResult(isError, text) {
    return seed ? { isError, text } : withTextView({ isError, content: [{ type: 'text', text }] })
  }

  /**
   * Runs a tool: validates args, asks the guard (root, when configured), bounds the text,
   * and never rejects. `signal` cancels it; `onProgress` (an extension of the contract, used
   * by the MCP server) is told how far it got.
   */
  async function dispatch(name, args, config, signal, onProgress) {
    if (!seed && config?.surface != null) {
      return dispatchSurface(name, args, config, signal, onProgress)
    }
    try {
      const { wire, envelope, fields } = encodeArgs(args)
      if (envelope) return errorResult(invalidInput(envelope, fields))
      if (!seed && typeof config?.guard === 'function') {
        return await guardedDispatch(String(name), wire, config, signal, onProgress)
      }
      const out = await withCall(seed ? undefined : signal, seed ? undefined : onProgress, (id) =>
        native.dispatchNative(String(name), wire, configJson(config), profile, id, false),
      )
      emitWarnings(out)
      return toResult(out)
    } catch (err) {
      return errorResult(serializeError(err))
    }
  }

  /**
   * A call of `config.surface`'s tools. Its results keep the root's shape; an error's text is
   * the message the vendor's executor would show, with the code in `meta.error`.
   */
  async function dispatchSurface(name, args, config, signal, onProgress) {
    const failed = (message, code = 'invalid_input') =>
      withTextView({
        isError: true,
        content: [{ type: 'text', text: message }],
        meta: { error: code },
      })
    try {
      const { wire, envelope } = encodeArgs(args)
      if (envelope) return failed(envelope)
      if (typeof config.guard === 'function') {
        const refusal = await askSurfaceGuard(String(name), args, config)
        if (refusal !== null) {
          const { error, message } = JSON.parse(refusal)
          return failed(message, error)
        }
      }
      const out = await withCall(signal, onProgress, (id) =>
        native.dispatchSurfaceNative(String(name), wire, configJson(config), ledgerFor(config), id),
      )
      emitWarnings(out)
      // An error of a surface keeps the root's result shape, with its text as the vendor's
      // executor shows it.
      const result = toResult(typeof out === 'string' ? out : { ...out, isError: false })
      result.isError = out.isError === true
      return result
    } catch (err) {
      warn(`internal error: ${err?.stack ?? String(err)}`)
      return failed('internal error', 'internal')
    }
  }

  /**
   * Runs many calls (`[{ name, args }]`) in one crossing: results in order, each exactly what
   * `dispatch` gives for it. With a `guard` (or a `surface`) in the config, each call goes
   * through `dispatch` so the guard sees every one. Never rejects for a bad call; `calls` must be an array.
   */
  async function dispatchMany(calls, config, signal) {
    if (!Array.isArray(calls)) {
      throw new TypeError('dispatchMany: calls must be an array of { name, args } objects')
    }
    // A guard must see every call, and a surface's calls have their own path.
    if (typeof config?.guard === 'function' || config?.surface) {
      return Promise.all(calls.map((c) => dispatch(c?.name, c?.args, config, signal)))
    }
    const results = new Array(calls.length)
    const wires = []
    const slots = []
    for (let i = 0; i < calls.length; i++) {
      const { wire, envelope, fields } = encodeArgs(calls[i]?.args)
      if (envelope) {
        results[i] = errorResult(invalidInput(envelope, fields))
      } else {
        wires.push({ name: String(calls[i]?.name), args: wire })
        slots.push(i)
      }
    }
    if (wires.length > 0) {
      try {
        const outs = await withCalls(seed ? undefined : signal, wires.length, (ids) =>
          native.dispatchManyNative(wires, configJson(config), profile, ids),
        )
        for (let k = 0; k < outs.length; k++) {
          emitWarnings(outs[k])
          results[slots[k]] = toResult(outs[k])
        }
      } catch (err) {
        const envelope = serializeError(err)
        for (const i of slots) results[i] = errorResult(envelope)
      }
    }
    return results
  }

  /**
   * Dispatch with a guard (CONTRACT-v0.5 §5): surface lookup and validation first, then the
   * guard sees the coerced arguments, then the tool runs with exactly those (the validated
   * JSON, so a guard that mutates its `args` changes nothing).
   */
  async function guardedDispatch(name, wire, config, signal, onProgress) {
    const json = configJson(config)
    const checked = native.validateNative(name, wire, json, profile)
    if (checked.isError) return toResult(checked)
    const checkedJson = contentText(checked.content)
    const refusal = await askGuard(name, JSON.parse(checkedJson), config)
    if (refusal !== null) return errorResult(refusal)
    const out = await withCall(signal, onProgress, (id) =>
      native.dispatchNative(name, checkedJson, json, profile, id, true),
    )
    emitWarnings(out)
    return toResult(out)
  }

  /** A ToolDef; `extras`: advertise the engine's arguments beyond the contract too. */
  function makeToolDef(def, extras) {
    const { name, description } = def
    // glob bounds its own listing exactly as dispatch would (it orders only what can show),
    // but the newest contract reports it as dispatch-bounded (CONTRACT-v0.5-wording §10).
    const bounded = def.bounded && (seed || def.extra || name !== 'glob')
    const inputSchema = deepFreeze(
      seed ? def.seedInputSchema : extras ? def.inputSchema : def.contractInputSchema,
    )
    return Object.freeze({
      name,
      description,
      inputSchema,
      bounded,
      /**
       * Runs the tool directly: no output bounding; rejects with a ToolError on failure.
       * Resolves to the text (`/v0.1`) or to `{ content, meta? }` (root).
       */
      async handler(args, config, signal) {
        const { wire, envelope, fields } = encodeArgs(args)
        if (envelope) throw new ToolError('invalid_input', envelope, fields)
        const out = await withCall(seed ? undefined : signal, undefined, (id) =>
          native.handlerNative(name, wire, configJson(config), profile, id),
        )
        emitWarnings(out)
        const result = toResult(out)
        if (result.isError) throw toolErrorFromEnvelope(result.text)
        if (seed) return result.text
        const { content, meta } = result
        return meta ? { content, meta } : { content }
      },
    })
  }

  /** Every built tool, in registry order, the extras (tools and arguments) included. */
  const allTools = Object.freeze(defs.map((d) => makeToolDef(d, true)))
  const isReadOnly = new Set(defs.filter((d) => !d.mutating).map((d) => d.name))
  const needsTreeSitter = new Set(defs.filter((d) => d.needsTreeSitter).map((d) => d.name))
  /** The contract's tools, in registry order, with the contract's arguments. */
  const tools = Object.freeze(defs.filter((d) => !d.extra).map((d) => makeToolDef(d, false)))
  /** The non-mutating subset. */
  const readOnlyTools = Object.freeze(tools.filter((t) => isReadOnly.has(t.name)))
  /** The lists `selectSurface` answers with, by [extras][readOnly][treeSitterAvailable]. */
  const surfaces = [
    [tools, readOnlyTools],
    [allTools, Object.freeze(allTools.filter((t) => isReadOnly.has(t.name)))],
  ].map((pair) =>
    pair.map((list) => [Object.freeze(list.filter((t) => !needsTreeSitter.has(t.name))), list]),
  )

  /**
   * `readOnlyTools` when readOnly, else `tools` (the same array objects every time); without
   * tree-sitter (root only), the same lists less outline and check_syntax; with `extras`
   * (root only), the tools beyond the contract too.
   */
  function selectSurface(readOnly, treeSitterAvailable = true, extras = false) {
    // A default parameter stands in for `undefined` only: `null`, `0` or `""` is unavailable.
    const ts = seed || Boolean(treeSitterAvailable)
    return surfaces[!seed && extras === true ? 1 : 0][readOnly ? 1 : 0][ts ? 1 : 0]
  }

  function getTool(name, surface = tools) {
    return surface.find((t) => t.name === name)
  }

  /** The advertised surface for a config: `{ name, description, inputSchema }` per tool. */
  function listTools(config) {
    if (!seed && config?.surface != null) {
      const defs = surfaceDefs(config.surface) ?? []
      return defs
        .filter((d) => !(config.readOnly && d.mutating))
        .map(({ name, description, inputSchema }) => ({
          name,
          description,
          inputSchema: structuredClone(inputSchema),
        }))
    }
    return selectSurface(
      Boolean(config?.readOnly),
      config?.treeSitterAvailable !== false,
      config?.extras === true,
    ).map(({ name, description, inputSchema }) => ({
      name,
      description,
      inputSchema: structuredClone(inputSchema),
    }))
  }

  /**
   * The entry's `ServerConfig` from the engine's resolved one, with the probes' answers: frozen
   * at `/v0.1` (the seed contract), a plain object at the root (CONTRACT-v0.5-wording §3,
   * "not frozen").
   */
  function finish(resolved, options, ripgrepAvailable, treeSitterAvailable) {
    resolved.ripgrepAvailable = ripgrepAvailable
    resolved.treeSitterAvailable = treeSitterAvailable
    if (seed) {
      const out = {}
      for (const key of SEED_CONFIG_FIELDS) out[key] = resolved[key]
      return Object.freeze(out)
    }
    return {
      ...resolved,
      guard: hook(options, 'guard'),
      elicit: hook(options, 'elicit'),
    }
  }

  /** The options resolveConfig checks as integers, in its order. */
  const NUMERIC_OPTIONS = [
    'bashTimeoutMs',
    'bashTimeoutMaxMs',
    'maxOutputBytes',
    'maxBashOutputBytes',
    'maxFileBytes',
    'maxImageBytes',
    'monitorReadyTimeoutMs',
    'maxMonitors',
  ]

  /** Applies defaults and floors to AgentToolsOptions; throws StartupError naming the setting. */
  function resolveConfig(options) {
    if (options === null || typeof options !== 'object') {
      throw new StartupError('options must be an object with at least workspaceRoot')
    }
    const { probeRipgrep: probe, probeTreeSitter: tsProbe, guard, elicit, ...rest } = options
    if (seed) {
      // The seed contract has none of the newer settings: they are ignored, and each is named
      // in the warn sink, as an unknown key is at the root (a `sandbox` that silently does
      // nothing would be a surprise).
      for (const key of Object.keys(rest)) {
        if (SEED_CONFIG_FIELDS.includes(key)) continue
        const typo = native.unknownOptionNotes(JSON.stringify({ [key]: rest[key] }))
        warn(
          typo.length > 0
            ? typo[0]
            : `option ${JSON.stringify(key)} is ignored: agent-tools-native/v0.1 serves the seed contract, which has no such setting; import agent-tools-native (the package root) for it`,
        )
        delete rest[key]
      }
    }
    // Every setting is checked before the probes run, each once (CONTRACT-v0.5-wording §3,
    // "then the two probes"); their answers are filled in after.
    if (!seed) {
      // JSON has no NaN or Infinity (it would write null, the default): such a number is
      // passed as JavaScript writes it, so the floor check refuses it as not a safe integer
      // and quotes it (CONTRACT-v0.5-wording §3, "<name> must be an integer >= <min>").
      for (const key of NUMERIC_OPTIONS) {
        if (typeof rest[key] === 'number' && !Number.isFinite(rest[key])) {
          rest[key] = String(rest[key])
        }
      }
    }
    const json = JSON.stringify({ ...rest, ripgrepAvailable: false, treeSitterAvailable: true })
    const resolved = callNativeConfig(() => native.resolveConfigJson(json, profile))
    const ripgrepAvailable = probeRipgrep(probe)
    const treeSitterAvailable = seed ? true : probeTreeSitter(tsProbe)
    // The contract ignores unknown keys; a typo (`readonly`) still deserves a word in the warn
    // sink (issue 28), never an error.
    for (const note of native.unknownOptionNotes(json)) warn(note)
    return finish(resolved, options, ripgrepAvailable, treeSitterAvailable)
  }

  /** Builds a config from flags and environment variables; flags beat the environment. */
  function buildConfig(
    argv = process.argv.slice(2),
    env = process.env,
    probe = undefined,
    tsProbe = undefined,
  ) {
    // The newest contract skips `undefined` elements (CONTRACT-v0.5-wording §3).
    const allowed = (a) => typeof a === 'string' || (!seed && a === undefined)
    if (!Array.isArray(argv) || !argv.every(allowed)) {
      throw new StartupError('argv must be an array of strings')
    }
    const envStrings = {}
    for (const [k, v] of Object.entries(env ?? {})) {
      if (typeof v === 'string') envStrings[k] = v
    }
    const resolved = callNativeConfig(() =>
      native.buildConfigJson(
        argv.map((a) => (a === undefined ? null : a)),
        JSON.stringify(envStrings),
        false,
        true,
        profile,
      ),
    )
    // The probes run last, once each, as resolveConfig's do.
    const ripgrepAvailable = probeRipgrep(probe)
    const treeSitterAvailable = seed ? true : probeTreeSitter(tsProbe)
    return finish(resolved, {}, ripgrepAvailable, treeSitterAvailable)
  }

  /** The factory: a resolved config, its tool list, and `callTool`. */
  function createAgentTools(options) {
    const config = resolveConfig(options)
    return {
      config,
      listTools: () => listTools(config),
      callTool: (name, args = {}, opts = undefined) => dispatch(name, args, config, opts?.signal),
    }
  }

  return {
    createAgentTools,
    dispatch,
    dispatchMany,
    listTools,
    tools,
    readOnlyTools,
    selectSurface,
    getTool,
    resolveConfig,
    buildConfig,
  }
}

/**
 * Awaits `config.guard(ctx)`: `allow` runs the tool (null); `deny` is `denied` with the
 * reason (or `blocked by guard`); any other verdict asks `config.elicit` (truthy runs the
 * tool) or, without one, is `denied`. A guard or elicit that throws gives its error's envelope
 * (`internal` unless it is a ToolError): a broken guard fails closed.
 */
async function askGuard(name, args, config) {
  try {
    const ctx = guard.buildGuardContext(name, args, config)
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

/** Engine tool names a surface tool's call is shown to a guard as. */
const SURFACE_GUARD_TOOL = {
  Read: 'read_file',
  read_file: 'read_file',
  Write: 'write_file',
  create: 'write_file',
  Edit: 'edit_file',
  MultiEdit: 'multi_edit',
  NotebookEdit: 'write_file',
  Glob: 'glob',
  Grep: 'grep',
  grep_files: 'grep',
  ListDir: 'list_dir',
  list_dir: 'list_dir',
  DeleteFile: 'remove',
  Move: 'move',
}

/** A POSIX-shell-quoted argv, as the codex surface runs it. */
function shQuote(argv) {
  return argv
    .map((a) =>
      /^[\w\-./=:,+@%^]+$/.test(String(a)) ? String(a) : `'${String(a).replace(/'/g, "'\\''")}'`,
    )
    .join(' ')
}

/**
 * How a guard sees a surface call: the engine tool and arguments it amounts to, so the path
 * and bash facts are computed as for the engine's own tools. The context then names the
 * surface tool and its own arguments.
 */
function surfaceGuardView(surface, name, args) {
  const a = args !== null && typeof args === 'object' ? args : {}
  const path = a.file_path ?? a.notebook_path ?? a.dir_path ?? a.path
  if (name === 'Bash' || name === 'bash') return { tool: 'bash', args: { command: a.command } }
  if (name === 'shell') {
    if (surface === 'openai') {
      const commands = Array.isArray(a.commands) ? a.commands : []
      return { tool: 'bash', args: { command: commands.map(String).join('\n') } }
    }
    const argv = Array.isArray(a.command) ? a.command : []
    return { tool: 'bash', args: { command: shQuote(argv), cwd: a.workdir } }
  }
  if (name === 'apply_patch') {
    if (surface === 'openai') return { tool: 'write_file', args: { path: a.path } }
    return { tool: 'apply_patch', args: { patch: a.input } }
  }
  if (name === 'Move')
    return { tool: 'move', args: { source: a.source, destination: a.destination } }
  if (name === 'str_replace_based_edit_tool') {
    return { tool: a.command === 'view' ? 'read_file' : 'edit_file', args: { path: a.path } }
  }
  // Any other surface tool names its one path as read_file does.
  return { tool: SURFACE_GUARD_TOOL[name] ?? 'read_file', args: { path } }
}

/** `askGuard` for a surface call (see `surfaceGuardView`). */
async function askSurfaceGuard(name, args, config) {
  try {
    const view = surfaceGuardView(config.surface, name, args)
    const ctx = { ...guard.buildGuardContext(view.tool, view.args, config), tool: name, args }
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

/**
 * A root result also answers `result.text` (its text parts joined), so code written for the
 * seed contract keeps working. The property is not enumerable: the result's own shape stays
 * exactly `{ isError, content, meta? }`.
 */
function withTextView(result) {
  Object.defineProperty(result, 'text', TEXT_VIEW)
  return result
}

/** The descriptor of every result's `text`, made once. */
const TEXT_VIEW = Object.freeze({
  get() {
    return contentText(this.content)
  },
  enumerable: false,
  configurable: true,
})

/** Removes `.clarvis/bash-*` spill files older than 24 hours. Never rejects. */
async function sweepSpillDir(root) {
  try {
    await native.sweepSpillDirNative(String(root))
  } catch {
    // Sweeping is best effort by contract.
  }
}

/**
 * The `openai` surface's call for an OpenAI Responses API output item: an `apply_patch_call`
 * becomes `apply_patch` with its `operation` as arguments, a `shell_call` becomes `shell` with
 * its `action`. Throws a TypeError for any other item.
 */
function responsesCall(item) {
  if (item?.type === 'apply_patch_call' && item.operation && typeof item.operation === 'object') {
    const { type, path, diff } = item.operation
    return { name: 'apply_patch', args: diff === undefined ? { type, path } : { type, path, diff } }
  }
  if (item?.type === 'shell_call' && item.action && typeof item.action === 'object') {
    const { commands, timeout_ms, max_output_length } = item.action
    const args = { commands }
    if (timeout_ms != null) args.timeout_ms = timeout_ms
    if (max_output_length != null) args.max_output_length = max_output_length
    return { name: 'shell', args }
  }
  throw new TypeError(
    `responsesCall takes an apply_patch_call or shell_call item, got ${JSON.stringify(item?.type)}`,
  )
}

/**
 * The Responses API input item answering `item` with `result` (what `callTool` resolved to):
 * `apply_patch_call_output` (`status` completed or failed, `output` the result text) or
 * `shell_call_output` (`output` one `{stdout, stderr, outcome}` per command run).
 */
function responsesOutput(item, result) {
  const text = contentText(result?.content ?? result?.text ?? '')
  if (item?.type === 'apply_patch_call') {
    return {
      type: 'apply_patch_call_output',
      call_id: item.call_id,
      status: result?.isError ? 'failed' : 'completed',
      output: text,
    }
  }
  if (item?.type === 'shell_call') {
    let output
    let maxOutputLength = item.action?.max_output_length ?? null
    if (!result?.isError) {
      const parsed = JSON.parse(text)
      output = parsed.output
      maxOutputLength = parsed.max_output_length ?? null
    } else {
      // The call itself failed (bad arguments, aborted): one failed command carrying the reason.
      output = [{ stdout: '', stderr: text, outcome: { type: 'exit', exit_code: 1 } }]
    }
    return {
      type: 'shell_call_output',
      call_id: item.call_id,
      output,
      max_output_length: maxOutputLength,
    }
  }
  throw new TypeError(
    `responsesOutput takes an apply_patch_call or shell_call item, got ${JSON.stringify(item?.type)}`,
  )
}

/** Deletes the files of every monitor that is not running; leaves live ones. Never rejects. */
async function sweepMonitors(root) {
  try {
    await native.sweepMonitorsNative(String(root))
  } catch {
    // Sweeping is best effort by contract.
  }
}

/** MCP metadata of every tool by name: `{ annotations, outputSchema }`. */
const toolMeta = new Map(
  nativeDefs.map((d) => [d.name, { annotations: d.annotations, outputSchema: d.outputSchema }]),
)

/**
 * MCP metadata of tool `name` under `surface` (null: the engine's tools). A surface tool has
 * no outputSchema (its results are the vendor's text) and only the read-only hint.
 */
function toolMetaFor(name, surface) {
  if (surface == null) return toolMeta.get(name)
  const def = surfaceDefs(surface)?.find((d) => d.name === name)
  return def ? { annotations: { readOnlyHint: !def.mutating } } : undefined
}

module.exports = {
  makeApi,
  toolMeta,
  toolMetaFor,
  SURFACE_NAMES,
  responsesCall,
  responsesOutput,
  native,
  StartupError,
  ToolError,
  serializeError,
  fsError,
  contentText,
  setWarnSink,
  warn,
  sweepSpillDir,
  sweepMonitors,
}
