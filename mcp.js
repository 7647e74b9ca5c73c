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
const { dispatch, listTools } = require('./index.js')
const { isMutating } = require('./api.js')
const { version } = require('./package.json')

/**
 * An MCP `Server` (not yet connected) exposing the surface of `config`. `inFlight` collects the
 * promises of running tool calls, so a closing transport can wait for them; aborting
 * `disconnect` cancels every running call (the client went away).
 */
function createMcpServer(config, inFlight = new Set(), disconnect = new AbortController()) {
  const server = new Server(
    { name: 'agent-tools-native', version },
    {
      capabilities: { tools: {} },
      instructions:
        `File-and-shell tools working in the workspace ${config.workspaceRoot}; relative paths ` +
        'resolve against it.' +
        (config.readOnly ? ' Read-only: only the read tools are available.' : '') +
        (config.confineToWorkspace ? ' Paths outside the workspace are refused.' : ''),
    },
  )

  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: listTools(config).map(({ name, description, inputSchema }) => ({
      name,
      description,
      inputSchema,
      annotations: { readOnlyHint: !isMutating(name, config.surface) },
    })),
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
    const call = dispatch(name, args ?? {}, config, signal)
    inFlight.add(call)
    const result = await call.finally(() => inFlight.delete(call))
    return { content: result.content, isError: result.isError }
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
