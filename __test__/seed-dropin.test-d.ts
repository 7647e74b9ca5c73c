// Code written against the seed's own declarations (seeds/002: `dispatch(name: string, args:
// Record<string, unknown>, config)`, `callTool(name: string, args: Record<string, unknown>)`,
// `tools: ToolDef[]`, `selectSurface(readOnly): ToolDef[]`, `getTool(name, surface?: ToolDef[])`)
// compiles unchanged against both entries: an agent swaps its import specifier and everything
// keeps working. The typed overloads still check object-literal arguments and literal names.
import * as root from 'agent-tools-native'
import * as seed from 'agent-tools-native/v0.1'
import { describe, expectTypeOf, it } from 'vitest'

/** A model's tool call, typed as the seed types it. */
declare const modelArgs: Record<string, unknown>
/** A name the caller narrowed to some known tools. */
declare const known: 'read_file' | 'grep'

describe('seed code compiles unchanged against agent-tools-native/v0.1', () => {
  const {
    createAgentTools,
    dispatch,
    getTool,
    readOnlyTools,
    resolveConfig,
    selectSurface,
    tools,
  } = seed
  type ToolDef = seed.ToolDef

  it('dispatch and callTool take a known name with Record<string, unknown> arguments', () => {
    const config = resolveConfig({ workspaceRoot: '.' })
    expectTypeOf(dispatch('read_file', modelArgs, config)).toEqualTypeOf<
      Promise<seed.DispatchResult>
    >()
    dispatch(known, modelArgs, config)
    dispatch('grep', JSON.parse('{"pattern":"x"}'), config)
    const agent = createAgentTools({ workspaceRoot: '.' })
    agent.callTool('grep', modelArgs)
    agent.callTool(known, modelArgs)
    // What the seed's `name: string` / `Record<string, unknown>` signatures accept compiles
    // too: a test of `not_found` or `invalid_input` is seed code as well.
    dispatch('gerp', modelArgs, config)
    dispatch('grep', { patern: 'x' }, config)
    agent.callTool('grep', { pattern: 1 })
  })

  it('the registry arrays are ToolDef[]', () => {
    const all: ToolDef[] = tools
    const readOnly: ToolDef[] = readOnlyTools
    const s: ToolDef[] = selectSurface(false)
    const surface: ToolDef[] = s
    expectTypeOf(getTool('grep', surface)).toEqualTypeOf<ToolDef | undefined>()
    expectTypeOf([all, readOnly]).toEqualTypeOf<ToolDef[][]>()
  })
})

describe('seed code compiles unchanged against the package root', () => {
  const {
    createAgentTools,
    dispatch,
    getTool,
    readOnlyTools,
    resolveConfig,
    selectSurface,
    tools,
  } = root
  type ToolDef = root.ToolDef

  it('dispatch and callTool take a known name with Record<string, unknown> arguments', () => {
    const config = resolveConfig({ workspaceRoot: '.' })
    expectTypeOf(dispatch('read_file', modelArgs, config)).toEqualTypeOf<
      Promise<root.DispatchResult>
    >()
    dispatch(known, modelArgs, config)
    dispatch('monitor_send', modelArgs, config)
    const agent = createAgentTools({ workspaceRoot: '.' })
    agent.callTool('grep', modelArgs)
    agent.callTool(known, modelArgs, { signal: AbortSignal.abort() })
    createAgentTools({ workspaceRoot: '.', extras: true }).callTool('find_symbol', modelArgs)
    createAgentTools({ workspaceRoot: '.', surface: 'claude-code' }).callTool('Grep', modelArgs)
    // @ts-expect-error a misspelled literal name still does not compile
    dispatch('gerp', modelArgs, config)
    // @ts-expect-error a misspelled literal name still does not compile
    agent.callTool('gerp', modelArgs)
    // @ts-expect-error an object literal is still checked against the tool's type
    dispatch('grep', { patern: 'x' }, config)
    // @ts-expect-error an object literal is still checked against the tool's type
    agent.callTool('grep', { pattern: 1 })
  })

  it('the registry arrays are ToolDef[]', () => {
    const all: ToolDef[] = tools
    const readOnly: ToolDef[] = readOnlyTools
    const s: ToolDef[] = selectSurface(false)
    expectTypeOf(getTool('grep', s)).toEqualTypeOf<ToolDef | undefined>()
    expectTypeOf([all, readOnly]).toEqualTypeOf<ToolDef[][]>()
  })
})
