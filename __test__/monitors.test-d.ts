// Type tests of the monitor export at the package root.
import { sweepMonitors } from 'agent-tools-native'
import { describe, expectTypeOf, it } from 'vitest'

describe('sweepMonitors', () => {
  it('takes a workspace root and resolves to nothing', () => {
    expectTypeOf(sweepMonitors).parameters.toEqualTypeOf<[workspaceRoot: string]>()
    expectTypeOf(sweepMonitors).returns.toEqualTypeOf<Promise<void>>()
  })
})
