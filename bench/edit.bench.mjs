// Editing benchmark: edit_file, multi_edit and write_file at each entry against its own
// contract's reference, in one run: the package root against the newest contract's reference
// (which also computes `meta.diff` with jsdiff and checks the written file's syntax), `/v0.1`
// against the seed's (neither). The reference is `bench/reference.mjs`: the contract's tool in
// Node, as the reference library does it (it cannot be installed here). Each side edits its own
// copy of the file; the files' bytes (and at the root, `meta.diff` against jsdiff's) are checked
// equal before anything is timed. The four contenders of a row run interleaved — root, its
// reference, /v0.1, its reference, … — so a burst of load from other sessions hits all alike;
// each reports median wall and median CPU (user + system of this whole process: our threads, or
// the reference's libuv threads).
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import { join } from 'node:path'
import { createAgentTools } from '../index.mjs'
import { createAgentTools as createSeedTools } from '../v0.1/index.mjs'
import { assertSame, cacheDir, median, quiesce, writeResults } from './lib.mjs'
import { referenceWorkspace } from './reference.mjs'

const dir = join(cacheDir, `edit-${process.pid}`)
rmSync(dir, { recursive: true, force: true })
mkdirSync(dir, { recursive: true })
const options = { workspaceRoot: dir, maxFileBytes: 64_000_000 }
const root = createAgentTools(options)
const seed = createSeedTools(options)
const ref = await referenceWorkspace(dir)
// The stand-in as first written (generous: no line bookkeeping for a file without `\r`), timed
// beside the contract-faithful one in the edit rows so both ratios can be read (bench/README.md).
const generousRef = await referenceWorkspace(dir, { generous: true })

async function rootCall(name, args) {
  const r = await root.callTool(name, args)
  if (r.isError) throw new Error(`${name}: ${r.content[0].text}`)
  return r
}

async function seedCall(name, args) {
  const r = await seed.callTool(name, args)
  if (r.isError) throw new Error(`${name}: ${r.text}`)
  return r
}

/** Median wall and CPU ms of each contender, run in turn `runs` times after a warm-up each.
 * The order turns every round, and garbage is collected before each call (run with
 * --expose-gc, as `npm run bench` does), then the process is left to go quiet (lib.mjs
 * `quiesce`): whoever follows a reference would otherwise pay for its garbage (the line
 * bookkeeping of 15 MB leaves 300,000 strings behind, and a 20 ms pause was not enough). */
async function interleaved(contenders, runs) {
  for (const fn of contenders) await fn()
  const wall = contenders.map(() => [])
  const cpu = contenders.map(() => [])
  for (let i = 1; i <= runs; i++) {
    for (let j = 0; j < contenders.length; j++) {
      const k = (i + j) % contenders.length
      const fn = contenders[k]
      await quiesce()
      const c0 = process.cpuUsage()
      const t0 = process.hrtime.bigint()
      await fn()
      wall[k].push(Number(process.hrtime.bigint() - t0) / 1e6)
      const c = process.cpuUsage(c0)
      cpu[k].push((c.user + c.system) / 1000)
    }
  }
  return { wall: wall.map(median), cpu: cpu.map(median) }
}

const rows = []
/** Rows from one interleaved run: root vs newest, /v0.1 vs seed, and (with six contenders) the
 * same against the generous stand-in (contenders 4 and 5). */
function pushRows(workload, target, t) {
  const pairs = [
    ['root', 0, 1, 'newest reference'],
    ['/v0.1', 2, 3, 'seed reference'],
  ]
  if (t.wall.length === 6) {
    pairs.push(
      ['root', 0, 4, 'newest reference as first written (generous: no line bookkeeping)'],
      ['/v0.1', 2, 5, 'seed reference as first written (generous: no line bookkeeping)'],
    )
  }
  for (const [entry, o, b, label] of pairs) {
    const r = {
      workload: `${workload} — ${entry} vs the ${label}`,
      ours_ms: t.wall[o],
      base_ms: t.wall[b],
      ratio: t.wall[o] / t.wall[b],
      target,
      note: `CPU ms ${t.cpu[o].toFixed(1)} vs ${t.cpu[b].toFixed(1)} = ${(t.cpu[o] / t.cpu[b]).toFixed(2)}; load average ${loadavg()[0].toFixed(1)}`,
    }
    console.log(`${r.workload}: ratio ${r.ratio.toFixed(2)} (${r.note})`)
    rows.push(r)
  }
}

/** Files of the contenders: root, newest reference, /v0.1, seed reference, and the generous
 * stand-in's newest and seed (edit workloads only). */
const NAMES = ['root', 'newest', 'seed', 'seedref', 'newestg', 'seedrefg']
function copies(base, ext, content, count = 6) {
  const names = NAMES.slice(0, count).map((n) => `${base}-${n}${ext}`)
  for (const n of names) writeFileSync(join(dir, n), content)
  return names
}

function sameFiles(label, names) {
  const bytes = names.map((n) => readFileSync(join(dir, n)))
  for (const b of bytes.slice(1)) assertSame(label, b.equals(bytes[0]), true)
}

/** Each contender counts its own runs: `args(n, path)` are the arguments of its run n. */
function counted(fn) {
  let n = 0
  return () => fn(n++)
}

/** The six contenders of an edit workload (the last two: the generous stand-in). */
function editContenders(tool, names, args) {
  return [
    counted((n) => rootCall(tool, args(n, names[0]))),
    counted((n) => ref.edit('newest', tool, args(n, names[1]))),
    counted((n) => seedCall(tool, args(n, names[2]))),
    counted((n) => ref.edit('seed', tool, args(n, names[3]))),
    counted((n) => generousRef.edit('newest', tool, args(n, names[4]))),
    counted((n) => generousRef.edit('seed', tool, args(n, names[5]))),
  ]
}

/** Checks two runs of every contender: same bytes, same meta.diff at the root. */
async function check(label, contenders, names) {
  for (const i of [0, 1]) {
    const [r, n] = [await contenders[0](), await contenders[1]()]
    for (const c of contenders.slice(2)) await c()
    sameFiles(`${label} run ${i}`, names)
    assertSame(
      `${label} meta.diff`,
      r.meta?.diff?.replaceAll(names[0], 'F'),
      n.diff?.replaceAll(names[1], 'F'),
    )
  }
}

// --- edit_file: one line near the end of a 15 MB file -----------------------------------------
{
  const lines = []
  let size = 0
  for (let i = 0; size < 15_000_000; i++) {
    const l = `    let value_${i} = compute(${i}, "some payload text for line ${i}");\n`
    lines.push(l)
    size += l.length
  }
  const old = lines[lines.length - 20].trimEnd()
  const variants = [old, old.replace('compute(', 'compute_fast(')]
  const content = lines.join('')
  const names = copies('big', '.rs', content)
  // Each run flips the line to the other variant.
  const args = (i, path) => ({
    path,
    old_string: variants[i % 2],
    new_string: variants[(i + 1) % 2],
  })
  const contenders = editContenders('edit_file', names, args)
  await check('edit_file 15 MB', contenders, names)
  const t = await interleaved(contenders, 9)
  pushRows(
    `edit_file: 1 line near the end of a ${(content.length / 1e6).toFixed(1)} MB file`,
    0.15,
    t,
  )
  for (const n of names) rmSync(join(dir, n))
}

// --- multi_edit: 50 edits on a 5,000-line file -------------------------------------------------
{
  const lines = Array.from(
    { length: 5000 },
    (_, i) => `export const setting${i} = { id: ${i}, name: "setting ${i}", enabled: true };\n`,
  )
  const picks = Array.from({ length: 50 }, (_, k) => k * 100 + 37)
  // Every run writes new text (run n renames what run n - 1 wrote), as an agent's successive
  // edits do: no run's result equals an earlier one, so no parse of it can be reused.
  const name = (p, n) => (n < 0 ? `name: "setting ${p}"` : `name: "renamed ${p} r${n}"`)
  const args = (n, path) => ({
    path,
    edits: picks.map((p) => ({ old_string: name(p, n - 1), new_string: name(p, n) })),
  })
  const names = copies('multi', '.ts', lines.join(''))
  const contenders = editContenders('multi_edit', names, args)
  await check('multi_edit', contenders, names)
  const t = await interleaved(contenders, 15)
  pushRows('multi_edit: 50 edits on a 5,000-line TypeScript file', 0.15, t)
}

// --- write_file: 1 MB over a file that differs in three lines ---------------------------------
{
  const base = Array.from(
    { length: 10_000 },
    (_, i) => `${String(i).padStart(6, '0')} ${'a'.repeat(92)}\n`,
  )
  const variant = (v) => {
    const l = [...base]
    for (const at of [100, 5000, 9900])
      l[at] = `${String(at).padStart(6, '0')} ${'b'.repeat(91)}${v}\n`
    return l.join('')
  }
  const contents = [variant('x'), variant('y')]
  const names = copies('w', '.txt', contents[1], 4)
  const args = (i, path) => ({ path, content: contents[i % 2] })
  const contenders = [
    counted((n) => rootCall('write_file', args(n, names[0]))),
    counted((n) => ref.write('newest', args(n, names[1]))),
    counted((n) => seedCall('write_file', args(n, names[2]))),
    counted((n) => ref.write('seed', args(n, names[3]))),
  ]
  await check('write_file', contenders, names)
  const t = await interleaved(contenders, 15)
  pushRows('write_file: 1 MB over a file that differs in 3 lines', 0.7, t)
}

rmSync(dir, { recursive: true, force: true })
writeResults(
  'edit',
  "each entry's own contract's reference in Node (bench/reference.mjs: ajv, async fs, jsdiff's meta.diff and the WASM syntax check at the newest; atomic write with fsync)",
  rows,
)
