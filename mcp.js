// The MCP server behind `agent-tools-native mcp`: the active tool surface over stdio, on the
// official SDK. The low-level `Server` is used (not `McpServer`) because the tools already carry
// JSON Schemas and validate their own arguments: each tool is advertised with its schema as is,
// and every call goes through `dispatch`, so the server answers exactly as the library does.

const { Server } = require('@modelcontextprotocol/sdk/server/index.js')
const { StdioServerTransport } = require('@modelcontextprotocol/sdk/server/stdio.js')
const {
  CallToolRequestSchema,
  ListToolsRequestSchema,
} = require('@modelcontextprotocol/sdk/types.js')
const { dispatch, listTools, setWarnSink } = require('./index.js')
const { toolMetaFor } = require('./api.js')
const { version } = require('./package.json')

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
 * `disconnect` cancels every running call (the client went away).
 */
function createMcpServer(config, inFlight = new Set(), disconnect = new AbortController()) {
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
    const signal = extra?.signal
      ? AbortSignal.any([extra.signal, disconnect.signal])
      : disconnect.signal
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
 * Serves `config`'s surface on stdin/stdout until the client closes stdin; calls still running
 * then are cancelled, and answered before the server closes.
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
  const closed = new Promise((resolve) => {
    server.onclose = resolve
  })
  await server.connect(new StdioServerTransport())
  process.stdin.once('end', async () => {
    // The client is gone: running calls are cancelled (a command's processes are killed), and
    // what they answer is still sent before the server closes.
    disconnect.abort()
    await Promise.allSettled([...inFlight])
    // The replies of those calls are sent once their handlers return: let that happen first.
    setImmediate(() => server.close())
  })
  await closed
}

module.exports = { createMcpServer, serveStdio }
