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
  const { StdioServerTransport } = sdk()
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
  await server.connect(new StdioServerTransport())
  process.stdin.once('end', () => leave(true))
  const how = await done
  removeSignals()
  return how
}

module.exports = { createMcpServer, onStopSignals, sdk, serveStdio, settled }
