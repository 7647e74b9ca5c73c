// apply_patch across 20 files vs the physical floor of rewriting those 20 files atomically with
// Node's fs in the same run: read the file, write a temp file beside it, fsync, rename.
//
// Each timed round applies a patch (3 hunks in each of 20 files of 2,000 lines, spread over 4
// directories) and then its reverse, so every round starts from the same files; the floor does
// the same two rewrites of every file. Outputs are checked byte-equal before timing.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createAgentTools } from '../index.js'
import { assertSame, cacheDir, floorWrite, median, writeResults } from './lib.mjs'

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

/** The same change in the Begin-Patch format. */
function beginPatch(reverse) {
  const out = ['*** Begin Patch']
  for (let k = 0; k < FILES; k++) {
    const lines = original(k)
    out.push(`*** Update File: ${rel(k)}`)
    for (const at of HUNK_AT) {
      const i = at - 1
      const [from, to] = reverse ? [changed(lines[i]), lines[i]] : [lines[i], changed(lines[i])]
      out.push('@@')
      for (let j = i - 3; j < i; j++) out.push(` ${lines[j]}`)
      out.push(`-${from}`, `+${to}`)
      for (let j = i + 1; j <= i + 3; j++) out.push(` ${lines[j]}`)
    }
  }
  out.push('*** End Patch')
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

/** The floor: each file read, changed, written to a temp file beside it, fsynced, renamed. */
function floorRewrite(root, reverse) {
  for (let k = 0; k < FILES; k++) {
    const path = join(root, rel(k))
    let text = readFileSync(path, 'utf8')
    const lines = original(k)
    for (const at of HUNK_AT) {
      const [from, to] = reverse
        ? [changed(lines[at - 1]), lines[at - 1]]
        : [lines[at - 1], changed(lines[at - 1])]
      text = text.replace(`${from}\n`, `${to}\n`)
    }
    floorWrite(path, text)
  }
}

async function ours(tools, patches, reverse) {
  const r = await tools.callTool('apply_patch', { patch: patches[reverse ? 1 : 0] })
  if (r.isError) throw new Error(`apply_patch failed: ${r.text}`)
  return r.text
}

const base = join(cacheDir, 'patch')
const oursRoot = join(base, 'ours')
const floorRoot = join(base, 'floor')
const formats = [
  { name: 'unified diff', patches: [unifiedPatch(false), unifiedPatch(true)] },
  { name: 'Begin-Patch', patches: [beginPatch(false), beginPatch(true)] },
]
const rows = []
for (const { name, patches } of formats) {
  freshTree(oursRoot)
  freshTree(floorRoot)
  const tools = createAgentTools({ workspaceRoot: oursRoot })
  const start = snapshot(oursRoot)
  // Same output before timing: forward, then back to the start.
  const summary = await ours(tools, patches, false)
  floorRewrite(floorRoot, false)
  assertSame(`${name}: forward`, snapshot(oursRoot), snapshot(floorRoot))
  if (summary.split('\n').length !== FILES + 1) throw new Error(`unexpected summary: ${summary}`)
  await ours(tools, patches, true)
  floorRewrite(floorRoot, true)
  assertSame(`${name}: reverse`, snapshot(oursRoot), start)
  assertSame(`${name}: floor reverse`, snapshot(floorRoot), start)

  const oursTimes = []
  const floorTimes = []
  for (let run = 0; run < RUNS; run++) {
    let t0 = process.hrtime.bigint()
    await ours(tools, patches, false)
    await ours(tools, patches, true)
    oursTimes.push(Number(process.hrtime.bigint() - t0) / 1e6)
    t0 = process.hrtime.bigint()
    floorRewrite(floorRoot, false)
    floorRewrite(floorRoot, true)
    floorTimes.push(Number(process.hrtime.bigint() - t0) / 1e6)
  }
  assertSame(`${name}: after timing`, snapshot(oursRoot), start)
  const ours_ms = median(oursTimes) / 2
  const base_ms = median(floorTimes) / 2
  rows.push({
    workload: `apply_patch, ${name}: 20 files × 3 hunks, 2,000-line files`,
    ours_ms,
    base_ms,
    ratio: ours_ms / base_ms,
    target: 2,
    note: 'per patch (median of forward+reverse rounds / 2); ours also fsyncs directories',
  })
}
rmSync(base, { recursive: true, force: true })
writeResults(
  'patch',
  "Node fs floor: read + write temp + fsync + rename of the same 20 files (the patch's changes applied by String.replace)",
  rows,
)
