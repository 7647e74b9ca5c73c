// The sandbox's overhead: 50 sequential `bash` calls of `true` under the sandbox
// (workspace-write, each mechanism) vs the same calls without it, in the same run, interleaved.
// Target (issue 22): at most 1.5× the unsandboxed call. Linux only. Outputs are checked equal
// first (the sandboxed result minus its `sandbox` line).
import { mkdtempSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { assertSame, median, quiesce, repoRoot, writeResults } from './lib.mjs'

const require = createRequire(import.meta.url)
const { createAgentTools } = require(join(repoRoot, 'index.js'))

const CALLS = 50
const RUNS = 9

if (process.platform !== 'linux') {
  console.log('sandbox: Linux only, skipped')
  process.exit(0)
}

// Outside the temp directory, like a real workspace.
const root = mkdtempSync('/var/tmp/atn-bench-sandbox-')
const plain = createAgentTools({ workspaceRoot: root })

function caller(tools) {
  return async (command) => {
    const r = await tools.callTool('bash', { command })
    if (r.isError) throw new Error(r.text)
    return r.text
  }
}

const withoutLine = (text) => {
  const { sandbox, ...rest } = JSON.parse(text)
  if (sandbox !== undefined && !sandbox.startsWith('sandbox on:')) throw new Error(text)
  return rest
}

/** Median wall ms of each contender, run alternately `runs` times after one warm-up each. */
async function interleaved(contenders, runs) {
  const times = contenders.map(() => [])
  for (const fn of contenders) await fn()
  for (let i = 0; i < runs; i++) {
    for (const [k, fn] of contenders.entries()) {
      await quiesce()
      const t0 = process.hrtime.bigint()
      await fn()
      times[k].push(Number(process.hrtime.bigint() - t0) / 1e6)
    }
  }
  return times.map(median)
}

const rows = []
try {
  const ours = caller(plain)
  for (const mechanism of ['namespaces', 'landlock']) {
    const boxed = caller(
      createAgentTools({
        workspaceRoot: root,
        sandbox: 'workspace-write',
        sandboxMechanism: mechanism,
      }),
    )
    assertSame(
      `true (${mechanism})`,
      withoutLine(await boxed('true')),
      withoutLine(await ours('true')),
    )
    const many = (fn) => async () => {
      for (let i = 0; i < CALLS; i++) await fn('true')
    }
    const [boxedMs, plainMs] = await interleaved([many(boxed), many(ours)], RUNS)
    rows.push({
      workload: `${CALLS} sequential \`true\`, sandboxed (${mechanism})`,
      ours_ms: boxedMs,
      base_ms: plainMs,
      ratio: boxedMs / plainMs,
      target: 1.5,
      note: `${(boxedMs / CALLS).toFixed(2)} vs ${(plainMs / CALLS).toFixed(2)} ms per call`,
    })
  }
} finally {
  rmSync(root, { recursive: true, force: true })
}

writeResults('sandbox', 'the same bash calls without the sandbox', rows)
