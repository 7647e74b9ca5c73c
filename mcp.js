// The MCP server behind `agent-tools-native mcp`: the active tool surface over stdio, on the
// official SDK. The low-level `Server` is used (not `McpServer`) because the tools already carry
// JSON Schemas and validate their own arguments: each tool is advertised with its schema as is,
// and every call goes through `dispatch`, so the server answers exactly as the library does.

const { dispatch, listTools, setWarnSink } = require('./index.js')
const { toolMetaFor } = require('./api.js')
const { version } = require('./package.json')

let loaded

/** The SDK: bundled into one file in the published package, from node_modules in a checkout. */
function sdk() {
  if (loaded) return loaded
  try {
    loaded = require('./mcp-sdk.bundle.js').load()
  } catch (err) {
    if (err?.code !== 'MODULE_NOT_FOUND' || !String(err.message).includes('mcp-sdk.bundle.js')) {
      throw err
    }
    loaded = require('./mcp-sdk.js').load()
  }
  return loaded
}

/** `read_file` → `Read file`, for a tool without a title of its own. */
function titleOf(name) {
  const words = name.replace(/_/g, ' ')
  return words.charAt(0).toUpperCase() + words.slice(1)
}

/** A progress notification's message: what a running call has done so far. */
function progressMessage(name, p) {
  const parts = [`${name}: ${(p.elapsedMs / 1000).toFixed(1)}s`]
  if (p.files > 0) parts.push(`${p.files} files walked`)
  if (p.bytes > 0) parts.push(`${p.bytes} bytes scanned`)
  if (p.tail) parts.push(`latest output: ${p.tail.trimEnd().split('\n').slice(-3).join(' ⏎ ')}`)
  return parts.join('; ')
}

/**
 * An MCP `Server` (not yet connected) exposing the surface of `config`. `inFlight` collects the
 * promises of running tool calls, so a closing transport can wait for them; aborting
 * `disconnect` cancels every running call (the client went away). `callSignal(requestId)`, if
 * given, returns one more signal that cancels that call (over HTTP: its response stream closed).
 */
function createMcpServer(
  config,
  inFlight = new Set(),
  disconnect = new AbortController(),
  callSignal = undefined,
) {
  const { Server, CallToolRequestSchema, ListToolsRequestSchema } = sdk()
  const server = new Server(
    { name: 'agent-tools-native', version },
    {
      capabilities: { tools: {}, logging: {} },
      instructions:
        `File-and-shell tools working in the workspace ${config.workspaceRoot}; relative paths ` +
        'resolve against it.' +
        (config.readOnly ? ' Read-only: only the read tools are available.' : '') +
        (config.confineToWorkspace ? ' Paths outside the workspace are refused.' : '') +
        (config.sandbox && config.sandbox !== 'off'
          ? ` bash and monitors run in a ${config.sandbox} sandbox${config.sandboxNetwork ? '' : ' without network'}: writes it refuses fail with "Read-only file system" or "Permission denied".`
          : ''),
    },
  )

  // Each tool with its title and behaviour hints; a tool whose result is one JSON object also
  // declares its outputSchema, and its results carry that object as structuredContent.
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: listTools(config).map(({ name, description, inputSchema }) => {
      const meta = toolMetaFor(name, config.surface)
      const { title, ...hints } = meta?.annotations ?? {}
      const tool = {
        name,
        title: title || titleOf(name),
        description,
        inputSchema,
        annotations: { title: title || titleOf(name), ...hints },
      }
      if (meta?.outputSchema) tool.outputSchema = meta.outputSchema
      return tool
    }),
  }))

  // An unknown (or, read-only, hidden) tool and bad arguments come back like any tool error:
  // an `isError` result whose text is the JSON envelope, which the model can read and act on.
  // `notifications/cancelled` aborts `extra.signal`; a disconnect aborts every call. Either
  // kills the work (a command's whole process group, a walk) through the call's signal.
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { name, arguments: args } = request.params
    const signals = [disconnect.signal]
    if (extra?.signal) signals.push(extra.signal)
    const own = callSignal?.(extra?.requestId)
    if (own) signals.push(own)
    const signal = signals.length === 1 ? signals[0] : AbortSignal.any(signals)
    // A client that sent a progressToken hears, every half second, what the call has done.
    const token = request.params._meta?.progressToken
    let ticks = 0
    const onProgress =
      token === undefined
        ? undefined
        : (p) => {
            ticks += 1
            extra
              .sendNotification({
                method: 'notifications/progress',
                params: {
                  progressToken: token,
                  progress: ticks,
                  message: progressMessage(name, p),
                },
              })
              .catch(() => {})
          }
    const call = dispatch(name, args ?? {}, config, signal, onProgress)
    inFlight.add(call)
    const result = await call.finally(() => inFlight.delete(call))
    const reply = { content: result.content, isError: result.isError }
    if (!result.isError && toolMetaFor(name, config.surface)?.outputSchema) {
      try {
        reply.structuredContent = JSON.parse(result.text)
      } catch {
        // Not JSON after all (never expected): the text alone still answers.
      }
    }
    return reply
  })

  return server
}

/** JSON-RPC 2.0's error codes used here. */
const PARSE_ERROR = -32700
const INVALID_REQUEST = -32600
const INVALID_PARAMS = -32602

function isPlainObject(value) {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** `string`, `array`, `null`, `number`…: what a value is, for an error message. */
function kindOf(value) {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  return `a ${typeof value}`
}

function errorReply(id, code, message) {
  return { jsonrpc: '2.0', id, error: { code, message } }
}

/**
 * A zod error as one short line naming each field and what it expects:
 * `params.level: expected one of "debug"|"info"|…` rather than the SDK's JSON dump.
 */
function describeIssues(error) {
  const issues = error?.issues ?? []
  if (issues.length === 0) return String(error?.message ?? error)
  return issues
    .map((issue) => {
      const where = issue.path?.length ? issue.path.join('.') : 'the message'
      const what = String(issue.message).replace(/^Invalid (input|option|value): /, '')
      return `${where}: ${what}`
    })
    .join('; ')
}

/** The SDK's schema of each request method the server answers, made once. */
let schemasByMethod
function requestSchemas() {
  if (!schemasByMethod) {
    const {
      CallToolRequestSchema,
      InitializeRequestSchema,
      ListToolsRequestSchema,
      PingRequestSchema,
      SetLevelRequestSchema,
    } = sdk()
    schemasByMethod = {
      initialize: InitializeRequestSchema,
      ping: PingRequestSchema,
      'logging/setLevel': SetLevelRequestSchema,
      'tools/list': ListToolsRequestSchema,
      'tools/call': CallToolRequestSchema,
    }
  }
  return schemasByMethod
}

/**
 * The params checks of the requests the server answers, run before the SDK sees a request (the
 * SDK's own check turns a bad params into -32603 carrying the raw zod dump): `{ message }`, the
 * request to hand on, or `{ reply }`, the answer to send instead.
 */
function checkParams(message, config) {
  // Own keys only: a method named `constructor` or `toString` is no request of ours.
  const schemas = requestSchemas()
  const schema = Object.hasOwn(schemas, message.method) ? schemas[message.method] : undefined
  if (!schema) return { message }
  let checked = message
  const params = message.params
  if (message.method === 'tools/call' && isPlainObject(params) && typeof params.name === 'string') {
    const args = params.arguments
    if (args === null) {
      // `arguments: null` means no arguments (`arguments ?? {}`), as an absent one does.
      checked = { ...message, params: { ...params, arguments: undefined } }
    } else if (args !== undefined && !isPlainObject(args)) {
      // Arguments that are no object are the model's mistake, not the client's: the model gets
      // a tool error it can read, as for invalid arguments (SPEC). An unknown tool is still
      // answered as unknown (`not_found`), by the call itself, with no arguments.
      if (!listTools(config).some((tool) => tool.name === params.name)) {
        return { message: { ...message, params: { ...params, arguments: {} } } }
      }
      const envelope = {
        error: 'invalid_input',
        message: `arguments must be an object of ${params.name}'s parameters, not ${kindOf(args)}`,
      }
      return {
        reply: {
          jsonrpc: '2.0',
          id: message.id,
          result: { content: [{ type: 'text', text: JSON.stringify(envelope) }], isError: true },
        },
      }
    }
  }
  const parsed = schema.safeParse(checked)
  if (parsed.success) return { message: checked }
  return {
    reply: errorReply(
      message.id,
      INVALID_PARAMS,
      `Invalid params for ${message.method}: ${describeIssues(parsed.error)}`,
    ),
  }
}

/**
 * Connects `server` to `transport`, with every request's params checked first (`checkParams`):
 * a malformed one is answered -32602 naming the field, or, for a call whose arguments are not an
 * object, with an `invalid_input` tool error.
 */
async function connectChecked(server, transport, config) {
  await server.connect(transport)
  const handle = transport.onmessage
  transport.onmessage = (message, extra) => {
    if (typeof message?.method !== 'string' || message.id === undefined) {
      handle?.(message, extra)
      return
    }
    const checked = checkParams(message, config)
    if (checked.reply) transport.send(checked.reply).catch(() => {})
    else handle?.(checked.message, extra)
  }
}

/** A line longer than this (10 MiB, the SDK's own limit) is dropped, and answered -32600. */
const MAX_LINE_BYTES = 10 * 1024 * 1024

/**
 * JSON-RPC 2.0's own rules on one received value: `{ message }` to hand to the server, or
 * `{ reply }`, the error to answer instead (the request's id when it has a usable one, else
 * null). Responses (a reply to a request of the server's) are handed on and never answered.
 */
function vet(value) {
  const { isJSONRPCNotification, isJSONRPCRequest } = sdk()
  if (!isPlainObject(value)) {
    return {
      reply: errorReply(
        null,
        INVALID_REQUEST,
        `Invalid Request: a message is an object, not ${kindOf(value)}`,
      ),
    }
  }
  const id = typeof value.id === 'string' || Number.isInteger(value.id) ? value.id : null
  const invalid = (why) => ({ reply: errorReply(id, INVALID_REQUEST, `Invalid Request: ${why}`) })
  if (value.jsonrpc !== '2.0') {
    return invalid(`jsonrpc must be "2.0", not ${JSON.stringify(value.jsonrpc) ?? 'missing'}`)
  }
  if ('method' in value) {
    if (typeof value.method !== 'string') return invalid('method must be a string')
    if ('id' in value && id === null) {
      return invalid(`id must be a string or an integer, not ${kindOf(value.id)}`)
    }
    if ('params' in value && !isPlainObject(value.params)) {
      return invalid(`params must be an object, not ${kindOf(value.params)}`)
    }
    if (!isJSONRPCRequest(value) && !isJSONRPCNotification(value)) {
      const extra = Object.keys(value).filter(
        (k) => !['jsonrpc', 'id', 'method', 'params'].includes(k),
      )
      return invalid(
        extra.length
          ? `unexpected member ${extra.map((k) => JSON.stringify(k)).join(', ')}`
          : 'malformed request',
      )
    }
    return { message: value }
  }
  if (('result' in value || 'error' in value) && 'id' in value) return { message: value }
  return invalid(
    'a message has a method (a request or notification), or a result or error (a response)',
  )
}

/**
 * The stdio transport: one JSON-RPC message (or batch) per line on stdin, replies one per line
 * on stdout. Unlike the SDK's, it answers what JSON-RPC 2.0 says must be answered instead of
 * dropping it: a line that is not JSON (-32700), a message that is not valid JSON-RPC (-32600,
 * id null when unknown), and a batch, each of whose elements is handled (and answered, on a
 * line of its own) as if sent alone. Blank lines are skipped.
 */
class StdioLineTransport {
  constructor(stdin = process.stdin, stdout = process.stdout) {
    this.stdin = stdin
    this.stdout = stdout
    this.buffer = Buffer.alloc(0)
    /** Inside an over-long line: discard up to its newline. */
    this.skipping = false
    this.onData = (chunk) => this.receive(chunk)
    this.onError = (error) => this.onerror?.(error)
  }

  async start() {
    this.stdin.on('data', this.onData)
    this.stdin.on('error', this.onError)
  }

  receive(chunk) {
    this.buffer = this.buffer.length ? Buffer.concat([this.buffer, chunk]) : chunk
    for (;;) {
      const end = this.buffer.indexOf(10)
      if (end === -1) break
      const line = this.buffer.subarray(0, end)
      this.buffer = this.buffer.subarray(end + 1)
      if (this.skipping) this.skipping = false
      else this.line(line.toString('utf8').replace(/\r$/, ''))
    }
    if (this.buffer.length > MAX_LINE_BYTES) {
      this.buffer = Buffer.alloc(0)
      if (!this.skipping) {
        this.skipping = true
        this.reply(
          errorReply(
            null,
            INVALID_REQUEST,
            `Invalid Request: a message longer than ${MAX_LINE_BYTES} bytes was dropped`,
          ),
        )
      }
    }
  }

  line(text) {
    if (text.trim() === '') return
    let value
    try {
      value = JSON.parse(text)
    } catch (err) {
      this.reply(
        errorReply(null, PARSE_ERROR, `Parse error: the line is not JSON (${err.message})`),
      )
      return
    }
    if (!Array.isArray(value)) {
      this.handle(value)
    } else if (value.length === 0) {
      this.reply(errorReply(null, INVALID_REQUEST, 'Invalid Request: an empty batch'))
    } else {
      for (const element of value) this.handle(element)
    }
  }

  handle(value) {
    const { message, reply } = vet(value)
    if (reply) this.reply(reply)
    else this.onmessage?.(message)
  }

  reply(message) {
    this.send(message).catch(() => {})
  }

  send(message) {
    return new Promise((resolve) => {
      if (this.stdout.write(`${JSON.stringify(message)}\n`)) resolve()
      else this.stdout.once('drain', resolve)
    })
  }

  async close() {
    this.stdin.off('data', this.onData)
    this.stdin.off('error', this.onError)
    if (this.stdin.listenerCount('data') === 0) this.stdin.pause()
    this.buffer = Buffer.alloc(0)
    this.onclose?.()
  }
}

/**
 * Calls `stop(signalName)` once on SIGTERM, SIGINT or SIGHUP: the client (or whoever runs the
 * server) wants it gone. Returns a function removing the handlers.
 */
function onStopSignals(stop) {
  const signals = ['SIGTERM', 'SIGINT', 'SIGHUP']
  let stopped = false
  const handler = (name) => {
    if (stopped) return
    stopped = true
    stop(name)
  }
  for (const name of signals) process.on(name, handler)
  return () => {
    for (const name of signals) process.off(name, handler)
  }
}

/**
 * Waits for `calls` to settle (they were just cancelled, so they answer fast), but at most
 * `ms`: a stopping server must not hang on a call that ignores its signal.
 */
function settled(calls, ms) {
  let timer
  return Promise.race([
    Promise.allSettled([...calls]),
    new Promise((resolve) => {
      timer = setTimeout(resolve, ms)
    }),
  ]).finally(() => clearTimeout(timer))
}

/**
 * Serves `config`'s surface on stdin/stdout until the client goes away: it closes stdin, stdout
 * breaks (EPIPE: the client died), or a signal arrives. Running calls are then cancelled (a
 * command's whole process group is killed) and the server resolves, for an exit status of 0:
 * `'closed'` after a clean stdin EOF (the replies of calls already sent were written, and the
 * process ends by itself), `'gone'` when nothing more can be written (the caller exits now).
 */
async function serveStdio(config) {
  const inFlight = new Set()
  const disconnect = new AbortController()
  const server = createMcpServer(config, inFlight, disconnect)
  // Diagnostics go to stderr as always, and to the client as log messages (`logging/setLevel`
  // picks how many).
  setWarnSink((line) => {
    process.stderr.write(line)
    server
      .sendLoggingMessage({ level: 'warning', logger: 'agent-tools-native', data: line.trimEnd() })
      .catch(() => {})
  })
  let finish
  const done = new Promise((resolve) => {
    finish = resolve
  })
  server.onclose = () => finish('closed')
  // Transport errors (a reply that cannot be written) are the client's departure, not ours.
  server.onerror = () => {}
  let leaving = false
  /** The client is gone: cancel every running call, let them answer, then close. */
  const leave = async (canStillWrite) => {
    if (leaving) return
    leaving = true
    disconnect.abort()
    await settled(inFlight, 1500)
    if (canStillWrite) {
      // The replies of those calls are sent once their handlers return: let that happen first.
      setImmediate(() => server.close())
    } else {
      finish('gone')
    }
  }
  // A broken stdout (EPIPE) emits 'error' on the stream: without this handler it would be an
  // uncaught exception with a stack trace and exit status 1.
  process.stdout.on('error', () => leave(false))
  const removeSignals = onStopSignals(() => leave(false))
  await connectChecked(server, new StdioLineTransport(), config)
  process.stdin.once('end', () => leave(true))
  const how = await done
  removeSignals()
  return how
}

module.exports = {
  connectChecked,
  createMcpServer,
  onStopSignals,
  sdk,
  serveStdio,
  settled,
  StdioLineTransport,
}
