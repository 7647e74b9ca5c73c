// Type tests of the public typings (index.d.ts): names, option and result types, the ErrorCode
// union, the ToolDef shape, and the mistakes the types must catch. `typings.test.ts` checks the
// same declarations against the runtime, so the two cannot drift.
import {
  type AgentTools,
  type AgentToolsOptions,
  buildConfig,
  createAgentTools,
  DEFAULT_BASH_TIMEOUT_MAX_MS,
  DEFAULT_BASH_TIMEOUT_MS,
  DEFAULT_MAX_FILE_BYTES,
  DEFAULT_MAX_OUTPUT_BYTES,
  type DispatchResult,
  dispatch,
  type ErrorCode,
  fsError,
  getTool,
  listTools,
  readOnlyTools,
  resolveConfig,
  type ServerConfig,
  StartupError,
  selectSurface,
  serializeError,
  sweepSpillDir,
  type ToolDef,
  ToolError,
  type ToolInfo,
  tools,
} from 'agent-tools-native/v0.1'
import { describe, expectTypeOf, it } from 'vitest'

describe('the factory', () => {
  it('takes AgentToolsOptions and returns AgentTools', () => {
    expectTypeOf(createAgentTools).parameters.toEqualTypeOf<[AgentToolsOptions]>()
    expectTypeOf(createAgentTools).returns.toEqualTypeOf<AgentTools>()
    expectTypeOf<AgentTools['config']>().toEqualTypeOf<ServerConfig>()
    expectTypeOf<AgentTools['listTools']>().toEqualTypeOf<() => ToolInfo[]>()
    const agent = createAgentTools({ workspaceRoot: '.' })
    expectTypeOf(agent.callTool('list_dir')).toEqualTypeOf<Promise<DispatchResult>>()
    agent.callTool('read_file', { path: 'a.txt', offset: -20 })
    // A name only known at run time (a model's tool call) takes any object.
    const fromModel: { name: string; args: Record<string, unknown> } = { name: 'x', args: {} }
    agent.callTool(fromModel.name, fromModel.args)
    // The seed declares `callTool(name: string, args: Record<string, unknown>)`, so whatever
    // compiled against it compiles here (a test of `not_found` or `invalid_input` included);
    // the package root checks names and arguments (see root.test-d.ts).
    expectTypeOf(agent.callTool('read_fil', { pth: 1 })).toEqualTypeOf<Promise<DispatchResult>>()
    expectTypeOf(agent.callTool('read_file', { path: 'a.txt', limit: '10' })).toEqualTypeOf<
      Promise<DispatchResult>
    >()
    expectTypeOf(dispatch('nope', {}, agent.config)).toEqualTypeOf<Promise<DispatchResult>>()
  })

  it('has exactly the documented options, only workspaceRoot required', () => {
    expectTypeOf<AgentToolsOptions>().toEqualTypeOf<{
      workspaceRoot: string
      readOnly?: boolean
      confineToWorkspace?: boolean
      maxOutputBytes?: number
      maxFileBytes?: number
      bashTimeoutMs?: number
      bashTimeoutMaxMs?: number
      probeRipgrep?: () => boolean
    }>()
    createAgentTools({ workspaceRoot: '.' })
    // @ts-expect-error workspaceRoot is required
    createAgentTools({ readOnly: true })
    // @ts-expect-error byte limits are numbers
    createAgentTools({ workspaceRoot: '.', maxOutputBytes: '4096' })
    // @ts-expect-error an unknown option is a mistake
    createAgentTools({ workspaceRoot: '.', readonly: true })
    // @ts-expect-error probeRipgrep is a function, not a boolean
    createAgentTools({ workspaceRoot: '.', probeRipgrep: true })
  })

  it('resolves a readonly ServerConfig of exactly eight fields', () => {
    expectTypeOf<ServerConfig>().toEqualTypeOf<{
      readonly workspaceRoot: string
      readonly maxOutputBytes: number
      readonly maxFileBytes: number
      readonly bashTimeoutMs: number
      readonly bashTimeoutMaxMs: number
      readonly ripgrepAvailable: boolean
      readonly readOnly: boolean
      readonly confineToWorkspace: boolean
    }>()
    const config = resolveConfig({ workspaceRoot: '.' })
    // @ts-expect-error a resolved config is frozen
    config.readOnly = true
  })
})

describe('the core API', () => {
  it('dispatch and listTools run against a config', () => {
    const config = resolveConfig({ workspaceRoot: '.' })
    expectTypeOf(dispatch('glob', { pattern: '*.ts' }, config)).toEqualTypeOf<
      Promise<DispatchResult>
    >()
    // The seed's `dispatch(name: string, args: Record<string, unknown>, config)` accepts this.
    dispatch('glob', { patern: '*.ts' }, config)
    const dynamic: string = 'glob'
    dispatch(dynamic, { anything: true }, config)
    expectTypeOf<DispatchResult>().toEqualTypeOf<{ isError: boolean; text: string }>()
    expectTypeOf(listTools).parameters.toEqualTypeOf<[config: ServerConfig]>()
    expectTypeOf(listTools).returns.toEqualTypeOf<ToolInfo[]>()
    // @ts-expect-error the arguments are an object, not a JSON string
    dispatch('read_file', '{"path": "a"}', resolveConfig({ workspaceRoot: '.' }))
  })

  it('buildConfig takes argv, an environment and a probe, all optional', () => {
    expectTypeOf(buildConfig).returns.toEqualTypeOf<ServerConfig>()
    buildConfig()
    buildConfig(process.argv.slice(2), process.env)
    buildConfig(['--read-only'], { READ_ONLY: undefined }, () => false)
    // @ts-expect-error argv is an array of strings
    buildConfig('--read-only')
  })

  it('sweepSpillDir resolves to nothing', () => {
    expectTypeOf(sweepSpillDir).parameters.toEqualTypeOf<[workspaceRoot: string]>()
    expectTypeOf(sweepSpillDir).returns.toEqualTypeOf<Promise<void>>()
  })

  it('the defaults are their literal values', () => {
    expectTypeOf(DEFAULT_MAX_OUTPUT_BYTES).toEqualTypeOf<131072>()
    expectTypeOf(DEFAULT_MAX_FILE_BYTES).toEqualTypeOf<20000000>()
    expectTypeOf(DEFAULT_BASH_TIMEOUT_MS).toEqualTypeOf<120000>()
    expectTypeOf(DEFAULT_BASH_TIMEOUT_MAX_MS).toEqualTypeOf<600000>()
  })
})

describe('the registry', () => {
  it('ToolInfo is what a model is given, ToolDef adds bounded and handler', () => {
    expectTypeOf<ToolInfo>().toEqualTypeOf<{
      name: string
      description: string
      inputSchema: Record<string, unknown>
    }>()
    expectTypeOf<ToolDef>().toExtend<ToolInfo>()
    expectTypeOf<ToolDef['bounded']>().toEqualTypeOf<boolean | undefined>()
    expectTypeOf<ToolDef['handler']>().toEqualTypeOf<
      (args: Record<string, unknown>, config: ServerConfig) => Promise<string>
    >()
    expectTypeOf<keyof ToolDef>().toEqualTypeOf<
      'name' | 'description' | 'inputSchema' | 'bounded' | 'handler'
    >()
  })

  it('tools and readOnlyTools are ToolDef[], as the seed declares them (frozen at run time)', () => {
    expectTypeOf(tools).toEqualTypeOf<ToolDef[]>()
    expectTypeOf(readOnlyTools).toEqualTypeOf<ToolDef[]>()
    expectTypeOf(selectSurface).toEqualTypeOf<(readOnly: boolean) => ToolDef[]>()
    expectTypeOf(getTool).returns.toEqualTypeOf<ToolDef | undefined>()
    getTool('read_file', readOnlyTools)
  })
})

describe('the error contract', () => {
  it('ErrorCode is exactly the thirteen contract codes', () => {
    expectTypeOf<ErrorCode>().toEqualTypeOf<
      | 'invalid_input'
      | 'not_found'
      | 'not_a_file'
      | 'is_binary'
      | 'no_match'
      | 'ambiguous_match'
      | 'patch_failed'
      | 'io_error'
      | 'timeout'
      | 'output_limit'
      | 'too_large'
      | 'path_escape'
      | 'internal'
    >()
  })

  it('ToolError carries a code and fields; StartupError is a plain Error subclass', () => {
    const e = new ToolError('not_found', 'No such file: a', { path: 'a' })
    expectTypeOf(e).toExtend<Error>()
    expectTypeOf(e.code).toEqualTypeOf<ErrorCode>()
    expectTypeOf(e.fields).toEqualTypeOf<Record<string, unknown>>()
    expectTypeOf(e.name).toEqualTypeOf<'ToolError'>()
    // @ts-expect-error the code must be one of the contract's codes
    new ToolError('file_missing', 'x')
    expectTypeOf(new StartupError('bad')).toExtend<Error>()
    expectTypeOf(new StartupError('bad').name).toEqualTypeOf<'StartupError'>()
    expectTypeOf(serializeError).toEqualTypeOf<(err: unknown) => string>()
    expectTypeOf(fsError).returns.toEqualTypeOf<ToolError>()
    expectTypeOf(fsError).parameters.toEqualTypeOf<
      [err: { code?: string; message?: string }, path: string]
    >()
  })
})
