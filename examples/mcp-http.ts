import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'

/** Connects to `agent-tools-native mcp --http` and reads a file through it. */
export async function readRemote(url: string, token: string, path: string): Promise<string> {
  const client = new Client({ name: 'my-agent', version: '1.0.0' })
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  )
  try {
    const { tools } = await client.listTools() // give these to the model
    console.log(tools.map((t) => t.name))
    const result = await client.callTool({ name: 'read_file', arguments: { path } })
    const [first] = result.content as { type: string; text?: string }[]
    return first?.text ?? ''
  } finally {
    await client.close()
  }
}

// readRemote('http://127.0.0.1:8765/mcp', process.env.MCP_HTTP_TOKEN ?? '', 'README.md')
