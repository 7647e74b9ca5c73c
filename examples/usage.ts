import { createAgentTools } from 'agent-tools-native'

const agent = createAgentTools({ workspaceRoot: '/path/to/repo' })
const tools = agent.listTools() // [{ name, description, inputSchema }, ...]: give these to the model
console.log(tools.map((t) => t.name)) // [ 'read_file', ..., 'bash' ]

const result = await agent.callTool('read_file', { path: 'src/main.ts', offset: -50 })
if (result.isError) {
  const envelope: { error: string; message: string } = JSON.parse(result.text)
  console.error(envelope.error, envelope.message) // not_found No such file: src/main.ts
} else {
  console.log(result.text) // the last 50 lines, numbered
}
