// Call overhead and responsiveness (issue: "read pages not files, never block the event loop").
//
// - read_file of one page (head, middle, tail) of a 15 MB file, against Node's fs doing what a
//   TypeScript implementation does: read the whole file, split it into lines, format the page.
// - 2,000 small read_file calls, 16 at once, against two Node implementations: the same minimal
//   one, and one that does everything the contract's read_file does (`referenceRead` below).
// - The same 2,000 calls as one dispatchMany batch, against the same baselines.
// - The worst event-loop delay while 1,000 greps run at once (no baseline: the goal is < 50 ms),
//   measured in several rounds: the median round and the worst are both reported.
//
// Outputs are checked equal before timing. Needs the release build (`npm run build`).
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs'
import { readFile, realpath, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve, sep } from 'node:path'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import Ajv from 'ajv'
import { contentText, createAgentTools, dispatchMany, getTool } from '../index.js'
import { assertSame, median, quiesce, writeResults } from './lib.mjs'

const root = mkdtempSync(join(tmpdir(), 'atn-calls-'))
const agent = createAgentTools({ workspaceRoot: root })

/** read_file's rendering, as a TypeScript implementation does it: whole file, split, page. */
function nodePage(text, offset, limit, cut = (line) => line) {
  const lines = text.split('\n')
  if (lines.at(-1) === '') lines.pop()
  const total = lines.length
  const start = offset < 0 ? Math.max(total + offset, 0) : offset - 1
  const end = Math.min(start + limit, total)
  const rows = []
  for (let i = start; i < end; i++) rows.push(`${String(i + 1).padStart(6)}\t${cut(lines[i])}`)
  if (end < total) {
    rows.push(`[... ${end - start} of ${total} lines shown; continue with offset=${end + 1} ...]`)
  }
  return rows.join('\n')
}

/** The baseline's whole call: confine the path, read, render. */
async function nodeRead(path, offset = 1, limit = 2000) {
  const abs = resolve(root, path)
  const real = realpathSync(abs)
  if (!real.startsWith(realpathSync(root))) throw new Error('escape')
  return nodePage(await readFile(real, 'utf8'), offset, limit)
}

/**
 * read_file as the reference does it, with Node's async fs (the reference is an async library
 * that must not block its caller's loop), following the contract (CONTRACT.md, CONTRACT-v0.5.md):
 * ajv validation with the reference's options, then confinement by canonicalizing the path
 * (the root's canonical form computed once), a stat for `not_a_file` / `too_large`, the read,
 * the binary check (a NUL in the first or last 8000 bytes), BOM strip and line-ending
 * normalization, the page with lines cut at 2000 characters, and the output bound. Generous to
 * the baseline: the validator is compiled once and the root's realpath is cached.
 */
const validateReadArgs = new Ajv({ allErrors: true, useDefaults: true, coerceTypes: true }).compile(
  getTool('read_file').inputSchema,
)
const realRoot = realpathSync(root)
const MAX_FILE_BYTES = agent.config.maxFileBytes
const MAX_OUTPUT_BYTES = agent.config.maxOutputBytes
async function referenceRead(path, offset = 1, limit = 2000) {
  const args = { path, offset, limit }
  if (!validateReadArgs(args)) throw new Error('invalid_input')
  const real = await realpath(resolve(root, args.path))
  if (real !== realRoot && !real.startsWith(realRoot + sep)) throw new Error('path_escape')
  const st = await stat(real)
  if (!st.isFile()) throw new Error('not_a_file')
  if (st.size > MAX_FILE_BYTES) throw new Error('too_large')
  const bytes = await readFile(real)
  const head = bytes.subarray(0, 8000)
  const tail = bytes.subarray(Math.max(0, bytes.length - 8000))
  if (head.includes(0) || tail.includes(0)) throw new Error('is_binary')
  let text = bytes.toString('utf8')
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1)
  text = text.replace(/\r\n?/g, '\n')
  const cut = (line) =>
    line.length > 2000 ? `${line.slice(0, 2000)} [... line truncated ...]` : line
  const out = nodePage(text, args.offset, args.limit, cut)
  return Buffer.byteLength(out) > MAX_OUTPUT_BYTES ? out.slice(0, MAX_OUTPUT_BYTES) : out
}

async function oursRead(path, offset, limit) {
  const r = await agent.callTool('read_file', { path, offset, limit })
  if (r.isError) throw new Error(contentText(r.content))
  return contentText(r.content)
}

const rows = []

/**
 * Times `ours` and `base` interleaved (after one warm-up each), so a burst of load from other
 * sessions hits both alike: median wall ms and median CPU ms (user + system, every thread of
 * this process) of each. Who goes first turns every round, and garbage is collected before
 * each run (with --expose-gc, as `npm run bench` runs the suites), then a wait until the process is
 * quiet lets V8's concurrent sweeping finish (lib.mjs `quiesce`): whoever follows the other would otherwise pay for its garbage
 * (the reference's 2,000 calls leave tens of MB of it: ours then measured 19.8 ms in one row
 * and 35.4 ms in the next for the same work).
 */
async function interleaved(ours, base, runs) {
  await ours()
  await base()
  const t = { ours: [], base: [], oursCpu: [], baseCpu: [] }
  for (let i = 0; i < runs; i++) {
    const order = [
      ['ours', ours],
      ['base', base],
    ]
    if (i % 2 === 1) order.reverse()
    for (const [key, fn] of order) {
      await quiesce()
      const cpu0 = process.cpuUsage()
      const t0 = process.hrtime.bigint()
      await fn()
      t[key].push(Number(process.hrtime.bigint() - t0) / 1e6)
      const used = process.cpuUsage(cpu0)
      t[`${key}Cpu`].push((used.user + used.system) / 1000)
    }
  }
  return Object.fromEntries(Object.entries(t).map(([k, v]) => [k, median(v)]))
}

const cpuNote = (m) =>
  `CPU ms ${m.oursCpu.toFixed(1)} vs ${m.baseCpu.toFixed(1)} = ${(m.oursCpu / m.baseCpu).toFixed(2)}`

// 1. One page of a big file.
const big = Array.from({ length: 150_000 }, (_, i) => `line ${i + 1} ${'x'.repeat(90)}`).join('\n')
writeFileSync(join(root, 'big.txt'), `${big}\n`)
for (const [label, offset, limit] of [
  ['head', 1, 100],
  ['middle', 75_000, 100],
  ['tail', -100, 100],
]) {
  assertSame(
    `read_file ${label}`,
    await oursRead('big.txt', offset, limit),
    await nodeRead('big.txt', offset, limit),
  )
  const m = await interleaved(
    () => oursRead('big.txt', offset, limit),
    () => nodeRead('big.txt', offset, limit),
    21,
  )
  rows.push({
    workload: `read_file ${label}: 100 lines of a 15 MB file`,
    ours_ms: m.ours,
    base_ms: m.base,
    ratio: m.ours / m.base,
    target: 0.1,
    note: `baseline = Node fs: realpath check, readFile, split, format the page; ${cpuNote(m)}`,
  })
}

// 2. Many small calls, 16 in flight.
mkdirSync(join(root, 'small'))
for (let i = 0; i < 200; i++) {
  writeFileSync(
    join(root, 'small', `f${i}.txt`),
    Array.from({ length: 40 }, (_, j) => `row ${j}`).join('\n'),
  )
}
async function many(read) {
  let next = 0
  const worker = async () => {
    while (next < 2000) {
      const i = next++
      await read(`small/f${i % 200}.txt`)
    }
  }
  await Promise.all(Array.from({ length: 16 }, worker))
}
assertSame('small read', await oursRead('small/f1.txt', 1, 2000), await nodeRead('small/f1.txt'))
assertSame(
  'small read, reference pipeline',
  await oursRead('small/f1.txt', 1, 2000),
  await referenceRead('small/f1.txt'),
)
const baselines = [
  ['the minimal Node read: realpathSync, readFile, split, format', (p) => nodeRead(p)],
  [
    "the contract's read_file in Node (ajv, async realpath/stat/readFile, binary check, EOL normalization, bound) — what the reference does",
    (p) => referenceRead(p),
  ],
]
for (const [label, read] of baselines) {
  const m = await interleaved(
    () => many((p) => oursRead(p, 1, 2000)),
    () => many(read),
    9,
  )
  rows.push({
    workload: `2,000 small read_file calls, 16 at once, vs ${label.split(':')[0].split(' (')[0]}`,
    ours_ms: m.ours,
    base_ms: m.base,
    ratio: m.ours / m.base,
    target: 0.2,
    note: `baseline = ${label}; the 0.2 goal was set against the reference library; ${cpuNote(m)}`,
  })
}

// 2b. The same calls as one batch.
const batch = Array.from({ length: 2000 }, (_, i) => ({
  name: 'read_file',
  args: { path: `small/f${i % 200}.txt`, offset: 1, limit: 2000 },
}))
assertSame(
  'batch',
  (await dispatchMany(batch.slice(0, 3), agent.config)).map((r) => contentText(r.content)),
  await Promise.all(batch.slice(0, 3).map((c) => nodeRead(c.args.path))),
)
for (const [label, read] of baselines) {
  const m = await interleaved(
    () => dispatchMany(batch, agent.config),
    () => many(read),
    9,
  )
  rows.push({
    workload: `2,000 small read_file calls as one dispatchMany batch, vs ${label.split(':')[0].split(' (')[0]}`,
    ours_ms: m.ours,
    base_ms: m.base,
    ratio: m.ours / m.base,
    target: 0.2,
    note: `baseline = ${label}, 16 at once; ${cpuNote(m)}`,
  })
}

// 3. Event-loop delay under 1,000 concurrent greps.
for (let i = 0; i < 300; i++) {
  writeFileSync(join(root, 'small', `g${i}.txt`), `alpha ${i}\nbeta\ngamma ${i}\n`.repeat(20))
}
const lags = []
for (let round = 0; round < 7; round++) {
  const histogram = monitorEventLoopDelay({ resolution: 5 })
  histogram.enable()
  await Promise.all(
    Array.from({ length: 1000 }, (_, i) =>
      agent.callTool('grep', { pattern: `gamma ${i % 300}\\b`, output_mode: 'count' }),
    ),
  )
  histogram.disable()
  lags.push(histogram.max / 1e6)
}
const lagMs = median(lags)
rows.push({
  workload: 'max event-loop delay while 1,000 greps run at once (ms, absolute; median of 7 rounds)',
  ours_ms: lagMs,
  base_ms: 50,
  ratio: lagMs / 50,
  target: 1,
  note: `ratio = delay / the 50 ms goal; perf_hooks.monitorEventLoopDelay, 5 ms resolution; rounds: ${lags.map((x) => x.toFixed(0)).join(', ')} ms`,
})

writeResults('calls', 'Node fs doing the same work', rows)
