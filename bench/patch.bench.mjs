// apply_patch across 20 files at each entry against its own contract's reference in the same
// run (bench/reference.mjs: the root against the newest contract's, /v0.1 against the seed's).
//
// Each timed round applies a patch (3 hunks in each of 20 files of 2,000 lines, spread over 4
// directories) and then its reverse, so every round starts from the same files; the six
// contenders (root, its reference, /v0.1, its reference, and the generous stand-in for both)
// take turns. Outputs are checked byte-equal before timing.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import { join } from 'node:path'
import { createAgentTools } from '../index.mjs'
import { createAgentTools as createSeedTools } from '../v0.1/index.mjs'
import { assertSame, cacheDir, median, quiesce, writeResults } from './lib.mjs'
import { referenceWorkspace } from './reference.mjs'

const FILES = 20
const LINES = 2000
const HUNK_AT = [300, 1000, 1700] // 1-based lines changed in every file
const RUNS = 15

const rel = (k) => `pkg${k % 4}/module_${k}.ts`
const original = (k) =>
  Array.from(
    { length: LINES },
    (_, i) => `  const value_${k}_${i + 1} = compute(${i + 1}, 'module ${k}') // line ${i + 1}`,
  )
const changed = (line) => line.replace('compute(', 'computeFast(')

/** A unified diff (or its reverse) changing the HUNK_AT lines of every file. */
function unifiedPatch(reverse) {
  const out = []
  for (let k = 0; k < FILES; k++) {
    const lines = original(k)
    out.push(`diff --git a/${rel(k)} b/${rel(k)}`, `--- a/${rel(k)}`, `+++ b/${rel(k)}`)
    for (const at of HUNK_AT) {
      const i = at - 1
      const [from, to] = reverse ? [changed(lines[i]), lines[i]] : [lines[i], changed(lines[i])]
      out.push(`@@ -${at - 3},7 +${at - 3},7 @@`)
      for (let j = i - 3; j < i; j++) out.push(` ${lines[j]}`)
      out.push(`-${from}`, `+${to}`)
      for (let j = i + 1; j <= i + 3; j++) out.push(` ${lines[j]}`)
    }
  }
  return `${out.join('\n')}\n`
}

function freshTree(root) {
  rmSync(root, { recursive: true, force: true })
  for (let k = 0; k < FILES; k++) {
    mkdirSync(join(root, `pkg${k % 4}`), { recursive: true })
    writeFileSync(join(root, rel(k)), `${original(k).join('\n')}\n`)
  }
}

function snapshot(root) {
  const out = {}
  for (const d of readdirSync(root).sort()) {
    for (const f of readdirSync(join(root, d)).sort()) {
      out[`${d}/${f}`] = readFileSync(join(root, d, f), 'utf8')
    }
  }
  return out
}

const base = join(cacheDir, `patch-${process.pid}`)
const trees = ['root', 'newest', 'seed', 'seedref', 'newestg', 'seedrefg'].map((n) => join(base, n))
const patches = [unifiedPatch(false), unifiedPatch(true)]
for (const t of trees) freshTree(t)
const start = snapshot(trees[0])
const rootTools = createAgentTools({ workspaceRoot: trees[0] })
const seedTools = createSeedTools({ workspaceRoot: trees[2] })
const newestRef = await referenceWorkspace(trees[1])
const seedRef = await referenceWorkspace(trees[3])
// The stand-in as first written (generous: no line bookkeeping for a file without `\r`), timed
// beside the contract-faithful one so both ratios can be read (bench/README.md).
const newestGenerous = await referenceWorkspace(trees[4], { generous: true })
const seedGenerous = await referenceWorkspace(trees[5], { generous: true })

async function ours(tools, reverse) {
  const r = await tools.callTool('apply_patch', { patch: patches[reverse ? 1 : 0] })
  if (r.isError) throw new Error(`apply_patch failed: ${JSON.stringify(r)}`)
  return r
}
/** root, the newest reference, /v0.1, the seed reference: one patch (forward or reverse). */
const contenders = [
  (rev) => ours(rootTools, rev),
  (rev) => newestRef.patch('newest', { patch: patches[rev ? 1 : 0] }),
  (rev) => ours(seedTools, rev),
  (rev) => seedRef.patch('seed', { patch: patches[rev ? 1 : 0] }),
  (rev) => newestGenerous.patch('newest', { patch: patches[rev ? 1 : 0] }),
  (rev) => seedGenerous.patch('seed', { patch: patches[rev ? 1 : 0] }),
]
// Same trees before timing: forward, then back to the start.
for (const rev of [false, true]) {
  for (const c of contenders) await c(rev)
  const want = snapshot(trees[0])
  for (const t of trees.slice(1))
    assertSame(`apply_patch ${rev ? 'reverse' : 'forward'}`, snapshot(t), want)
}
assertSame('apply_patch round trip', snapshot(trees[0]), start)

// Interleaved: each round applies the patch and its reverse on every contender in turn; the
// order turns every round, and garbage is collected (with --expose-gc, as `npm run bench` runs
// it) and the process left to go quiet (lib.mjs `quiesce`) before each contender, so none pays for another's.
const wall = contenders.map(() => [])
const cpu = contenders.map(() => [])
for (let run = 0; run < RUNS; run++) {
  for (let j = 0; j < contenders.length; j++) {
    const k = (run + j) % contenders.length
    const c = contenders[k]
    await quiesce()
    const c0 = process.cpuUsage()
    const t0 = process.hrtime.bigint()
    await c(false)
    await c(true)
    wall[k].push(Number(process.hrtime.bigint() - t0) / 1e6 / 2)
    const u = process.cpuUsage(c0)
    cpu[k].push((u.user + u.system) / 1000 / 2)
  }
}
for (const t of trees) assertSame('after timing', snapshot(t), start)
const [w, c] = [wall.map(median), cpu.map(median)]
const rows = [
  ['root', 0, 1, 'newest reference'],
  ['/v0.1', 2, 3, 'seed reference'],
  ['root', 0, 4, 'newest reference as first written (generous: no line bookkeeping)'],
  ['/v0.1', 2, 5, 'seed reference as first written (generous: no line bookkeeping)'],
].map(([entry, o, b, label]) => ({
  workload: `apply_patch, unified diff: 20 files × 3 hunks, 2,000-line files — ${entry} vs the ${label}`,
  ours_ms: w[o],
  base_ms: w[b],
  ratio: w[o] / w[b],
  target: 0.2,
  note: `per patch (forward and reverse rounds / 2); CPU ms ${c[o].toFixed(1)} vs ${c[b].toFixed(1)} = ${(c[o] / c[b]).toFixed(2)}; load average ${loadavg()[0].toFixed(1)}`,
}))
rmSync(base, { recursive: true, force: true })
writeResults(
  'patch',
  "each entry's own contract's reference in Node (bench/reference.mjs: jsdiff's parsePatch / applyPatch, atomic writes with fsync, and at the newest the WASM syntax check of five files)",
  rows,
)
