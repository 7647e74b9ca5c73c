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
import { join } from 'node:path'
import { createAgentTools } from '../index.mjs'
import { createAgentTools as createSeedTools } from '../v0.1/index.mjs'
import { assertSame, cacheDir, median, writeResults } from './lib.mjs'
import { referenceWorkspace } from './reference.mjs'

const dir = join(cacheDir, `edit-${process.pid}`)
rmSync(dir, { recursive: true, force: true })
mkdirSync(dir, { recursive: true })
const options = { workspaceRoot: dir, maxFileBytes: 64_000_000 }
const root = createAgentTools(options)
const seed = createSeedTools(options)
const ref = await referenceWorkspace(dir)

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

/** Median wall and CPU ms of each contender, run in turn `runs` times after a warm-up each. */
async function interleaved(contenders, runs) {
  for (const fn of contenders) await fn()
  const wall = contenders.map(() => [])
  const cpu = contenders.map(() => [])
  for (let i = 1; i <= runs; i++) {
    for (const [k, fn] of contenders.entries()) {
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
/** Two rows (root vs newest, /v0.1 vs seed) from one interleaved run of four contenders. */
function pushRows(workload, target, t) {
  for (const [entry, o, b, label] of [
    ['root', 0, 1, 'newest'],
    ['/v0.1', 2, 3, 'seed'],
  ]) {
    const r = {
      workload: `${workload} — ${entry} vs the ${label} reference`,
      ours_ms: t.wall[o],
      base_ms: t.wall[b],
      ratio: t.wall[o] / t.wall[b],
      target,
      note: `CPU ms ${t.cpu[o].toFixed(1)} vs ${t.cpu[b].toFixed(1)} = ${(t.cpu[o] / t.cpu[b]).toFixed(2)}`,
    }
    console.log(`${r.workload}: ratio ${r.ratio.toFixed(2)} (${r.note})`)
    rows.push(r)
  }
}

/** Files of the four contenders: root, newest reference, /v0.1, seed reference. */
const NAMES = ['root', 'newest', 'seed', 'seedref']
function copies(base, ext, content) {
  const names = NAMES.map((n) => `${base}-${n}${ext}`)
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

/** The four contenders of an edit workload. */
function editContenders(tool, names, args) {
  return [
    counted((n) => rootCall(tool, args(n, names[0]))),
    counted((n) => ref.edit('newest', tool, args(n, names[1]))),
    counted((n) => seedCall(tool, args(n, names[2]))),
    counted((n) => ref.edit('seed', tool, args(n, names[3]))),
  ]
}

/** Checks two runs of every contender: same bytes, same meta.diff at the root. */
async function check(label, contenders, names) {
  for (const i of [0, 1]) {
    const [r, n] = [await contenders[0](), await contenders[1]()]
    await contenders[2]()
    await contenders[3]()
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
  const names = copies('w', '.txt', contents[1])
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
