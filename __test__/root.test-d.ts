// Type tests of the package root's typings: the newest contract's shapes, and tool names and
// arguments checked from the generated ToolArgs (tool-types.d.ts, made from the Rust structs).
import {
  type AgentTools,
  type AgentToolsOptions,
  type ContentPart,
  contentText,
  createAgentTools,
  type DispatchResult,
  dispatch,
  dispatchMany,
  type ErrorCode,
  type ExtraToolName,
  resolveConfig,
  type Surface,
  type SurfaceToolName,
  type ToolArgs,
  type ToolCall,
  type ToolName,
} from 'agent-tools-native'
import { describe, expectTypeOf, it } from 'vitest'

describe('the package root typings', () => {
  it('takes the surfaces and their tool names from the generated surface tools', () => {
    expectTypeOf<Surface>().toEqualTypeOf<
      'codex' | 'claude-code' | 'cyberpaw' | 'anthropic' | 'openai'
    >()
    expectTypeOf<SurfaceToolName>().toEqualTypeOf<
      | 'read_file'
      | 'list_dir'
      | 'grep_files'
      | 'apply_patch'
      | 'shell'
      | 'Read'
      | 'Write'
      | 'Edit'
      | 'MultiEdit'
      | 'Glob'
      | 'Grep'
      | 'Bash'
      | 'NotebookEdit'
      | 'ListDir'
      | 'Move'
      | 'DeleteFile'
      | 'str_replace_based_edit_tool'
      | 'bash'
    >()
  })

  it('results are content parts, with the text view', () => {
    expectTypeOf<DispatchResult['content']>().toEqualTypeOf<ContentPart[]>()
    expectTypeOf<DispatchResult['meta']>().toEqualTypeOf<Record<string, unknown> | undefined>()
    expectTypeOf(contentText).returns.toEqualTypeOf<string>()
    expectTypeOf<'aborted'>().toMatchTypeOf<ErrorCode>()
    expectTypeOf<'denied'>().toMatchTypeOf<ErrorCode>()
  })

  it('checks tool names and arguments under strict', () => {
    const agent: AgentTools = createAgentTools({ workspaceRoot: '.' })
    expectTypeOf<'read_file'>().toMatchTypeOf<ToolName>()
    expectTypeOf<ToolArgs['read_file']['path']>().toEqualTypeOf<string>()
    agent.callTool('read_file', { path: 'a.txt' }, { signal: new AbortController().signal })
    agent.callTool('bash', { command: 'ls', timeout_ms: 0 })
    // An optional argument may be null, meaning "not given" (strict function calling sends it).
    agent.callTool('read_file', { path: 'a.txt', offset: null, limit: null })
    // @ts-expect-error a required one may not
    agent.callTool('read_file', { path: null })
    // @ts-expect-error an unknown tool name does not compile
    agent.callTool('read_fil', { pth: 1 })
    // @ts-expect-error a misspelled argument does not compile
    agent.callTool('bash', { comand: 'ls' })
    // @ts-expect-error a wrong argument type does not compile
    agent.callTool('grep', { pattern: 'x', output_mode: 'lines' })
    const fromModel = {
      name: 'read_file' as string,
      input: { path: 'a' } as Record<string, unknown>,
    }
    agent.callTool(fromModel.name, fromModel.input)
    const config = resolveConfig({ workspaceRoot: '.' })
    dispatch('list_dir', {}, config, AbortSignal.abort())
    // @ts-expect-error dispatch checks a known tool's arguments too
    dispatch('list_dir', { dir: 'x' }, config)
  })

  it('the tools beyond the contract are typed only with extras: true', () => {
    expectTypeOf<'monitor_send'>().toMatchTypeOf<ExtraToolName>()
    expectTypeOf<'monitor_send'>().not.toMatchTypeOf<ToolName>()
    const withExtras = createAgentTools({ workspaceRoot: '.', extras: true })
    withExtras.callTool('monitor_send', { id: 'm1', input: 'y\n' })
    withExtras.callTool('read_file', { path: 'a.txt' })
    // @ts-expect-error an extra tool's arguments are checked too
    withExtras.callTool('monitor_send', { id: 'm1', inptu: 'y' })
    const contractOnly = createAgentTools({ workspaceRoot: '.' })
    // @ts-expect-error without extras, an extra tool's literal name does not compile
    contractOnly.callTool('monitor_send', { id: 'm1', input: 'y' })
  })

  it('dispatchMany takes { name, args } calls and resolves one result per call', () => {
    const config = resolveConfig({ workspaceRoot: '.' })
    expectTypeOf(dispatchMany([{ name: 'read_file', args: { path: 'a' } }], config)).toEqualTypeOf<
      Promise<DispatchResult[]>
    >()
    const fromModel = { name: 'grep' as string, args: { pattern: 'x' } as Record<string, unknown> }
    dispatchMany([fromModel, { name: 'list_dir', args: {} }], config, AbortSignal.abort())
    // @ts-expect-error the calls are an array
    dispatchMany({ name: 'read_file', args: { path: 'a' } }, config)
    // @ts-expect-error a call names its tool
    dispatchMany([{ args: {} }], config)
  })

  it('dispatchMany checks a literal name and its arguments as dispatch does', () => {
    const config = resolveConfig({ workspaceRoot: '.' })
    const fromModel = { name: 'grep' as string, args: { pattern: 'x' } as Record<string, unknown> }
    const modelArgs: Record<string, unknown> = { pattern: 'x' }
    dispatchMany(
      [
        { name: 'grep', args: { pattern: 'x', output_mode: 'content' } },
        { name: 'read_files', args: { paths: ['a', 'b'] } },
        { name: 'monitor_send', args: { id: 'm1', input: 'y\n' } },
        { name: 'grep', args: modelArgs },
        { name: 'monitor_list' },
        fromModel,
      ],
      config,
    )
    const typed: ToolCall[] = [{ name: 'glob', args: { pattern: '*' } }, fromModel]
    dispatchMany(typed, config)
    dispatchMany([], config)
    // @ts-expect-error a misspelled tool name does not compile
    dispatchMany([{ name: 'gerp', args: { pattern: 'x' } }], config)
    // @ts-expect-error nor beside a call named at run time
    dispatchMany([fromModel, { name: 'gerp', args: { pattern: 'x' } }], config)
    // @ts-expect-error a misspelled argument does not compile
    dispatchMany([{ name: 'grep', args: { patern: 'x' } }], config)
    // @ts-expect-error an argument of the wrong type does not compile
    dispatchMany([{ name: 'grep', args: { pattern: 1 } }], config)
    // @ts-expect-error an unknown argument does not compile
    dispatchMany([{ name: 'grep', args: { pattern: 'x', extra: 1 } }], config)
    // @ts-expect-error a required argument cannot be left out
    dispatchMany([fromModel, { name: 'read_file' }], config)
  })
})

describe('the surface typings', () => {
  it('a literal surface checks its own tool names and arguments', () => {
    const codex = createAgentTools({ workspaceRoot: '.', surface: 'codex' })
    codex.callTool('read_file', { file_path: 'a.ts', offset: 1, limit: 10 })
    codex.callTool('shell', { command: ['ls', '-la'] })
    // @ts-expect-error codex's read_file takes file_path, not path
    codex.callTool('read_file', { path: 'a.ts' })
    // @ts-expect-error codex has no Read tool
    codex.callTool('Read', { file_path: 'a.ts' })
    const claude = createAgentTools({ workspaceRoot: '.', surface: 'claude-code' })
    claude.callTool('Edit', { file_path: 'a.ts', old_string: 'a', new_string: 'b' })
    // @ts-expect-error Edit needs new_string
    claude.callTool('Edit', { file_path: 'a.ts', old_string: 'a' })
    const anthropic = createAgentTools({ workspaceRoot: '.', surface: 'anthropic' })
    anthropic.callTool('str_replace_based_edit_tool', { command: 'view', path: '.' })
    // @ts-expect-error command is one of the editor's four
    anthropic.callTool('str_replace_based_edit_tool', { command: 'delete', path: '.' })
    const fromModel: { name: string; input: Record<string, unknown> } = { name: 'x', input: {} }
    anthropic.callTool(fromModel.name, fromModel.input)
  })

  it('dispatch checks a surface tool against a config whose surface is known', () => {
    const claude = resolveConfig({ workspaceRoot: '.', surface: 'claude-code' })
    dispatch('Read', { file_path: 'a.ts' }, claude)
    dispatch('Grep', { pattern: 'x', output_mode: 'content' }, claude, AbortSignal.abort())
    const modelArgs: Record<string, unknown> = { file_path: 'a.ts' }
    dispatch('Read', modelArgs, claude)
    // @ts-expect-error Read takes file_path
    dispatch('Read', { path: 'a.ts' }, claude)
    // @ts-expect-error claude-code has no str_replace_based_edit_tool
    dispatch('str_replace_based_edit_tool', { command: 'view', path: '.' }, claude)
    // @ts-expect-error a config without a surface runs the engine's tools only
    dispatch('Read', { file_path: 'a.ts' }, resolveConfig({ workspaceRoot: '.' }))
    dispatch('read_file', { path: 'a.ts' }, resolveConfig({ workspaceRoot: '.' }))
  })

  it('a tools object with no surface refuses a surface tool name', () => {
    // @ts-expect-error no surface: Read is not a tool here (at run time: not_found)
    createAgentTools({ workspaceRoot: '.' }).callTool('Read', { file_path: 'a.ts' })
    // @ts-expect-error nor with extras
    createAgentTools({ workspaceRoot: '.', extras: true }).callTool('Read', { file_path: 'a.ts' })
    // Options whose surface is known only at run time accept a surface tool's name.
    const options: AgentToolsOptions = { workspaceRoot: '.', surface: 'claude-code' }
    createAgentTools(options).callTool('Read', { file_path: 'a.ts' })
    createAgentTools(options).callTool('read_file', { path: 'a.ts' })
    createAgentTools({ ...options, extras: true }).callTool('monitor_send', { id: 'm1' })
  })
})
