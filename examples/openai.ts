import { createAgentTools } from 'agent-tools-native'
import OpenAI from 'openai'

const agent = createAgentTools({ workspaceRoot: process.cwd() })
const openai = new OpenAI() // reads OPENAI_API_KEY

/** The tools in OpenAI's function-calling format. */
export const openaiTools: OpenAI.Chat.ChatCompletionTool[] = agent.listTools().map((t) => ({
  type: 'function',
  function: { name: t.name, description: t.description, parameters: t.inputSchema },
}))

/** A minimal agent loop: ask the model, run the tools it calls, feed the results back. */
export async function runWithOpenAI(task: string, maxTurns = 20): Promise<string> {
  const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [{ role: 'user', content: task }]
  for (let turn = 0; turn < maxTurns; turn++) {
    const completion = await openai.chat.completions.create({
      model: 'gpt-5',
      messages,
      tools: openaiTools,
    })
    const message = completion.choices[0]?.message
    if (!message) throw new Error('the model returned no choice')
    messages.push(message)
    const calls = message.tool_calls ?? []
    if (calls.length === 0) return message.content ?? ''
    for (const call of calls) {
      if (call.type !== 'function') continue
      // An error result is a JSON envelope the model can read and act on.
      const result = await agent.callTool(call.function.name, JSON.parse(call.function.arguments))
      messages.push({ role: 'tool', tool_call_id: call.id, content: result.text })
    }
  }
  throw new Error(`no final answer after ${maxTurns} turns`)
}
