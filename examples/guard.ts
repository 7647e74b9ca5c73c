import { createInterface } from 'node:readline/promises'
import {
  commandsIn,
  createAgentTools,
  type Elicit,
  type Guard,
  touchesOutside,
} from 'agent-tools-native'

/** Commands that may run without asking, as long as they stay in the workspace. */
const SAFE = ['git status', 'git diff', 'git log', 'ls', 'cat', 'grep', 'npm test']

/** Policy: reads inside the workspace pass; anything outside is refused; the rest asks. */
export const guard: Guard = (ctx) => {
  if (touchesOutside(ctx)) return { verdict: 'deny', reason: 'touches files outside the workspace' }
  if (ctx.bash) {
    // A path outside was refused above; `withinWorkspace` would not do here, as it is false
    // for a command that names no path (`git status`, `npm test`).
    if (commandsIn(ctx.bash, SAFE)) return { verdict: 'allow' }
    return { verdict: 'ask', reason: `run \`${ctx.args.command}\`?` }
  }
  const writes = ['write_file', 'edit_file', 'multi_edit', 'apply_patch']
  return writes.includes(ctx.tool) ? { verdict: 'ask' } : { verdict: 'allow' }
}

/** Asks the person at the terminal; anything but "y" refuses. */
export const confirm: Elicit = async ({ tool, args, reason }) => {
  const rl = createInterface({ input: process.stdin, output: process.stdout })
  try {
    const answer = await rl.question(`${reason ?? `${tool} ${JSON.stringify(args)}`} [y/N] `)
    return answer.trim().toLowerCase() === 'y'
  } finally {
    rl.close()
  }
}

export const agent = createAgentTools({ workspaceRoot: process.cwd(), guard, elicit: confirm })

// Denied calls come back as `{"error":"denied","message":<reason>}` for the model to read.
const result = await agent.callTool('bash', { command: 'cat ~/.ssh/id_rsa' })
console.log(result.text) // {"error":"denied","message":"touches files outside the workspace"}
