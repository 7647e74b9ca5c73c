import Anthropic from '@anthropic-ai/sdk'
import { createAgentTools, responsesCall, responsesOutput } from 'agent-tools-native'
import OpenAI from 'openai'

// Claude's own text editor and bash tools, executed by this package.
const forClaude = createAgentTools({
  workspaceRoot: process.cwd(),
  surface: 'anthropic',
  maxCharacters: 20000,
})

/** Anthropic's schema-less client tools: Claude knows their shapes already. */
export const claudeTools: Anthropic.ToolUnion[] = [
  { type: 'text_editor_20250728', name: 'str_replace_based_edit_tool', max_characters: 20000 },
  { type: 'bash_20250124', name: 'bash' },
]

export async function editWithClaude(task: string, maxTurns = 20): Promise<string> {
  const anthropic = new Anthropic() // reads ANTHROPIC_API_KEY
  const messages: Anthropic.MessageParam[] = [{ role: 'user', content: task }]
  for (let turn = 0; turn < maxTurns; turn++) {
    const reply = await anthropic.messages.create({
      model: 'claude-sonnet-4-5',
      max_tokens: 8192,
      tools: claudeTools,
      messages,
    })
    messages.push({ role: 'assistant', content: reply.content })
    const calls = reply.content.filter((block) => block.type === 'tool_use')
    if (calls.length === 0) {
      return reply.content.map((block) => (block.type === 'text' ? block.text : '')).join('')
    }
    const results: Anthropic.ToolResultBlockParam[] = []
    for (const call of calls) {
      const result = await forClaude.callTool(call.name, call.input as Record<string, unknown>)
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

// OpenAI's hosted-schema apply_patch and shell tools, executed by this package.
const forGpt = createAgentTools({ workspaceRoot: process.cwd(), surface: 'openai' })

export async function editWithGpt(task: string, maxTurns = 20): Promise<string> {
  const openai = new OpenAI() // reads OPENAI_API_KEY
  const input: OpenAI.Responses.ResponseInput = [{ role: 'user', content: task }]
  for (let turn = 0; turn < maxTurns; turn++) {
    const response = await openai.responses.create({
      model: 'gpt-5.1',
      tools: [{ type: 'apply_patch' }, { type: 'shell' }],
      input,
    })
    input.push(...(response.output as OpenAI.Responses.ResponseInputItem[]))
    const calls = response.output.filter(
      (item) => item.type === 'apply_patch_call' || item.type === 'shell_call',
    )
    if (calls.length === 0) return response.output_text
    for (const item of calls) {
      const { name, args } = responsesCall(item)
      const result = await forGpt.callTool(name, args)
      input.push(responsesOutput(item, result))
    }
  }
  throw new Error(`no final answer after ${maxTurns} turns`)
}
