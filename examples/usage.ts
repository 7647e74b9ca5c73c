import { contentText, createAgentTools } from 'agent-tools-native'

const agent = createAgentTools({ workspaceRoot: '/path/to/repo' })
const tools = agent.listTools() // [{ name, description, inputSchema }, ...]: give these to the model
console.log(tools.map((t) => t.name)) // [ 'read_file', ..., 'bash', ... ]

const result = await agent.callTool('read_file', { path: 'src/main.ts', offset: -50 })
if (result.isError) {
  const envelope: { error: string; message: string } = JSON.parse(contentText(result.content))
  console.error(envelope.error, envelope.message) // not_found No such file: src/main.ts
} else {
  console.log(contentText(result.content)) // the last 50 lines, numbered
}

// A long command can be cancelled: its whole process group is killed.
const controller = new AbortController()
setTimeout(() => controller.abort(), 5_000)
const build = await agent.callTool('bash', { command: 'make' }, { signal: controller.signal })
if (build.isError) {
  // The command did not run to its end: cancelled, or it could not start.
  console.error(contentText(build.content)) // {"error":"aborted","message":"Command aborted (run cancelled)",...}
} else {
  // A command that exits non-zero is no error: bash's JSON result carries its exit code.
  const run: { exit_code: number | null; stdout: string; stderr: string } = JSON.parse(
    contentText(build.content),
  )
  console.log(run.exit_code === 0 ? run.stdout : `make exited ${run.exit_code}: ${run.stderr}`)
}
