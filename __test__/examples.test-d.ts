// The README's examples live in examples/ (readme.test.ts checks the README shows them
// verbatim). Importing them here (usage.ts for its side effects only) compiles each one under
// the strict tsconfig against the real types of the OpenAI, Anthropic and AI SDK packages.
import type Anthropic from '@anthropic-ai/sdk'
import type { LanguageModel, ToolSet } from 'ai'
import type OpenAI from 'openai'
import { describe, expectTypeOf, it } from 'vitest'
import { anthropicTools, runWithClaude } from '../examples/anthropic'
import { agent, confirm, guard } from '../examples/guard'
import { subshellBypass } from '../examples/guard-bypass'
import { readRemote } from '../examples/mcp-http'
import { openaiTools, runWithOpenAI } from '../examples/openai'
import { claudeTools, editWithClaude, editWithGpt } from '../examples/surfaces'
import '../examples/usage'
import { aiTools, runWithAiSdk } from '../examples/vercel-ai'
import type { AgentTools, Elicit, Guard } from '../index.js'

describe('README examples', () => {
  it('OpenAI function calling: the tool list and an agent loop', () => {
    expectTypeOf(openaiTools).toEqualTypeOf<OpenAI.Chat.ChatCompletionTool[]>()
    expectTypeOf(runWithOpenAI).toEqualTypeOf<
      (task: string, maxTurns?: number) => Promise<string>
    >()
  })

  it('Anthropic tool use: the tool list and an agent loop', () => {
    expectTypeOf(anthropicTools).toEqualTypeOf<Anthropic.Tool[]>()
    expectTypeOf(runWithClaude).toEqualTypeOf<
      (task: string, maxTurns?: number) => Promise<string>
    >()
  })

  it('Vercel AI SDK: tool() with a JSON schema, and generateText running the loop', () => {
    expectTypeOf(aiTools).toEqualTypeOf<ToolSet>()
    expectTypeOf(runWithAiSdk).toEqualTypeOf<
      (model: LanguageModel, task: string) => Promise<string>
    >()
  })

  it("Tool surfaces: the anthropic and openai surfaces with the vendors' own tool types", () => {
    expectTypeOf(claudeTools).toEqualTypeOf<Anthropic.ToolUnion[]>()
    expectTypeOf(editWithClaude).toEqualTypeOf<
      (task: string, maxTurns?: number) => Promise<string>
    >()
    expectTypeOf(editWithGpt).toEqualTypeOf<(task: string, maxTurns?: number) => Promise<string>>()
  })

  it('A guard wired to a readline confirm prompt', () => {
    expectTypeOf(guard).toEqualTypeOf<Guard>()
    expectTypeOf(confirm).toEqualTypeOf<Elicit>()
    expectTypeOf(agent).toEqualTypeOf<AgentTools>()
  })

  it('the guard catches a bypass a tokenizer misses', () => {
    expectTypeOf(subshellBypass).returns.toEqualTypeOf<{
      tokenizer: string[]
      parse: string[] | undefined
      allowed: boolean
    }>()
  })

  it('The MCP SDK client over Streamable HTTP', () => {
    expectTypeOf(readRemote).toEqualTypeOf<
      (url: string, token: string, path: string) => Promise<string>
    >()
  })
})
