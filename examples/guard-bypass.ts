import { analyzeBash, commandsIn } from 'agent-tools-native'

/** A forbidden command hidden in a subshell: one segment to a tokenizer, two to the parse. */
export function subshellBypass() {
  const facts = analyzeBash('(pwd; rm -rf dist)')
  const tokenizer = facts.segments.map((s) => s.normalized) // ['pwd; rm -rf dist']
  const parse = facts.parse?.segments // ['pwd', 'rm -rf dist']
  const allowed = commandsIn(facts, ['pwd']) // false: `rm -rf dist` is not allowed
  return { tokenizer, parse, allowed }
}
