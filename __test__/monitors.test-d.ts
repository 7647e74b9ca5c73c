// Type tests of the monitor export at the package root, and of calling the tools with no
// required argument.
import { createAgentTools, dispatchMany, resolveConfig, sweepMonitors } from 'agent-tools-native'
import { describe, expectTypeOf, it } from 'vitest'

describe('sweepMonitors', () => {
  it('takes a workspace root and resolves to nothing', () => {
    expectTypeOf(sweepMonitors).parameters.toEqualTypeOf<[workspaceRoot: string]>()
    expectTypeOf(sweepMonitors).returns.toEqualTypeOf<Promise<void>>()
  })
})

describe('a tool with no required argument', () => {
  it('is called without args, as it runs', () => {
    const agent = createAgentTools({ workspaceRoot: '.' })
    agent.callTool('monitor_list')
    agent.callTool('monitor_list', {})
    agent.callTool('monitor_list', undefined, { signal: AbortSignal.abort() })
    agent.callTool('list_dir')
    // @ts-expect-error monitor_list takes no argument
    agent.callTool('monitor_list', { id: 'm1' })
    // @ts-expect-error read_file needs a path
    agent.callTool('read_file')
    dispatchMany([{ name: 'monitor_list' }], resolveConfig({ workspaceRoot: '.' }))
  })
})
