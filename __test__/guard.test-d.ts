// The `./guard` subpath's typings: the same functions and types as the package root.
import * as root from 'agent-tools-native'
import {
  analyzeBash,
  type BashFacts,
  buildGuardContext,
  commandsIn,
  type Elicit,
  type Guard,
  type GuardContext,
  type GuardDecision,
  type PathFact,
  type Segment,
  touchesOutside,
  withinWorkspace,
} from 'agent-tools-native/guard'
import { describe, expectTypeOf, it } from 'vitest'

describe('agent-tools-native/guard', () => {
  it('serves the root helpers with the same types', () => {
    expectTypeOf(analyzeBash).toEqualTypeOf(root.analyzeBash)
    expectTypeOf(buildGuardContext).toEqualTypeOf(root.buildGuardContext)
    expectTypeOf(withinWorkspace).toEqualTypeOf(root.withinWorkspace)
    expectTypeOf(touchesOutside).toEqualTypeOf(root.touchesOutside)
    expectTypeOf(commandsIn).toEqualTypeOf(root.commandsIn)
    expectTypeOf<Guard>().toEqualTypeOf<root.Guard>()
    expectTypeOf<Elicit>().toEqualTypeOf<root.Elicit>()
  })

  it('types the contract facts', () => {
    const facts = analyzeBash('ls')
    expectTypeOf(facts).toEqualTypeOf<BashFacts>()
    expectTypeOf(facts.segments).toEqualTypeOf<Segment[]>()
    expectTypeOf(facts.paths).toEqualTypeOf<string[]>()
    expectTypeOf<GuardContext['paths']>().toEqualTypeOf<PathFact[]>()
    expectTypeOf<ReturnType<Guard>>().toEqualTypeOf<GuardDecision | Promise<GuardDecision>>()
  })
})
