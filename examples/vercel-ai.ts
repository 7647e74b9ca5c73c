import { createAgentTools } from 'agent-tools-native'
import { generateText, jsonSchema, type LanguageModel, stepCountIs, type ToolSet, tool } from 'ai'

const agent = createAgentTools({ workspaceRoot: process.cwd() })

/** The tools for the Vercel AI SDK: each JSON Schema through jsonSchema(), run by callTool. */
export const aiTools: ToolSet = Object.fromEntries(
  agent.listTools().map((t) => [
    t.name,
    tool({
      description: t.description,
      inputSchema: jsonSchema<Record<string, unknown>>(t.inputSchema),
      // An error result is a JSON envelope the model can read and act on.
      execute: async (input) => (await agent.callTool(t.name, input)).text,
    }),
  ]),
)

/** The AI SDK runs the agent loop itself: up to 20 steps of model call + tool calls. */
export async function runWithAiSdk(model: LanguageModel, task: string): Promise<string> {
  const { text } = await generateText({
    model,
    tools: aiTools,
    prompt: task,
    stopWhen: stepCountIs(20),
  })
  return text
}
