// ESM entry of `agent-tools-native/guard`: the same functions as the CommonJS entry.
import { createRequire } from 'node:module'

const guard = createRequire(import.meta.url)('./guard.js')

export const { analyzeBash, buildGuardContext, withinWorkspace, touchesOutside, commandsIn } = guard
export default guard
