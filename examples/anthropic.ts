import Anthropic from '@anthropic-ai/sdk'
import { createAgentTools } from 'agent-tools-native'

const agent = createAgentTools({ workspaceRoot: process.cwd() })
const anthropic = new Anthropic() // reads ANTHROPIC_API_KEY

/** The tools in Anthropic's tool-use format. */
export const anthropicTools: Anthropic.Tool[] = agent.listTools().map((t) => ({
  name: t.name,
  description: t.description,
  input_schema: { ...t.inputSchema, type: 'object' },
}))

/** A minimal agent loop: ask the model, run the tools it calls, feed the results back. */
export async function runWithClaude(task: string, maxTurns = 20): Promise<string> {
  const messages: Anthropic.MessageParam[] = [{ role: 'user', content: task }]
  for (let turn = 0; turn < maxTurns; turn++) {
    const reply = await anthropic.messages.create({
      model: 'claude-sonnet-4-5',
      max_tokens: 8192,
      tools: anthropicTools,
      messages,
    })
    messages.push({ role: 'assistant', content: reply.content })
    const calls = reply.content.filter((block) => block.type === 'tool_use')
    if (calls.length === 0) {
      return reply.content.map((block) => (block.type === 'text' ? block.text : '')).join('')
    }
    const results: Anthropic.ToolResultBlockParam[] = []
    for (const call of calls) {
      const result = await agent.callTool(call.name, call.input as Record<string, unknown>)
      results.push({
        type: 'tool_result',
        tool_use_id: call.id,
        content: result.text,
        is_error: result.isError,
      })
    }
    messages.push({ role: 'user', content: results })
  }
  throw new Error(`no final answer after ${maxTurns} turns`)
}
