// bash vs Node's own child_process.spawn('sh', ['-c', …]) doing the same capture (stdout and
// stderr collected as strings, exit code and signal kept), in the same run:
//   1. 50 sequential trivial commands (`true`): round-trip latency.
//   2. one command printing 50 MB: capture throughput, and peak RSS measured in a fresh
//      process per contender (both load the addon, so their baselines match).
// Outputs are checked equal before anything is timed. The contenders run interleaved (ours,
// node, ours, node, …) so a busy machine slows both alike. "Ours" is the call's result text —
// what an agent hands to the model; a second row adds the JSON.parse a program would need to
// get the strings back out.
import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { assertSame, median, quiesce, repoRoot, writeResults } from './lib.mjs'

const require = createRequire(import.meta.url)
const { createAgentTools } = require(join(repoRoot, 'index.js'))

const BIG_BYTES = 50_000_000
const BIG_COMMAND = `yes 'a line of build output, repeated for the capture benchmark' | head -c ${BIG_BYTES}`
const TRIVIAL_CALLS = 50

const root = mkdtempSync(join(tmpdir(), 'atn-bench-bash-'))
const tools = createAgentTools({
  workspaceRoot: root,
  maxOutputBytes: 64 * 1024 * 1024,
  maxBashOutputBytes: 64 * 1024 * 1024,
})
const seedTools = require(join(repoRoot, 'v0.1/index.js')).createAgentTools({ workspaceRoot: root })

/** The /v0.1 entry: one bash call; its result text. */
async function seedText(command) {
  const r = await seedTools.callTool('bash', { command })
  if (r.isError) throw new Error(r.text)
  return r.text
}

/** Ours: one bash call; its result text. */
async function oursText(command) {
  const r = await tools.callTool('bash', { command })
  if (r.isError) throw new Error(r.text)
  return r.text
}

/** Ours, parsed into the same shape as the baseline's. */
async function ours(command) {
  const { exit_code, stdout, stderr, signal } = JSON.parse(await oursText(command))
  return { exit_code, stdout, stderr, signal }
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

/** Baseline: the same capture with Node's child_process. */
function node(command) {
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', command], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] })
    const out = []
    const err = []
    child.stdout.on('data', (d) => out.push(d))
    child.stderr.on('data', (d) => err.push(d))
    child.on('error', reject)
    child.on('close', (code, signal) =>
      resolve({
        exit_code: code ?? 128,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
        signal,
      }),
    )
  })
}

/** Child mode: run one contender once on the big command and print its peak RSS (KiB). */
if (process.argv[2] === '--rss') {
  const which = process.argv[3]
  const r = which === 'ours' ? await ours(BIG_COMMAND) : await node(BIG_COMMAND)
  if (r.stdout.length !== BIG_BYTES) throw new Error(`${which}: got ${r.stdout.length} bytes`)
  process.stdout.write(`${process.resourceUsage().maxRSS}\n`)
  rmSync(root, { recursive: true, force: true })
  process.exit(0)
}

function peakRss(which) {
  const self = fileURLToPath(import.meta.url)
  const r = spawnSync(process.execPath, [self, '--rss', which], { encoding: 'utf8' })
  if (r.status !== 0) throw new Error(`rss run ${which} failed: ${r.stderr}`)
  return Number(r.stdout.trim())
}

const rows = []
try {
  // 1. Trivial round trips.
  assertSame('true', await ours('true'), await node('true'))
  assertSame(
    'echo',
    await ours('echo hi; echo e >&2; exit 3'),
    await node('echo hi; echo e >&2; exit 3'),
  )
  const runMany = (fn) => async () => {
    for (let i = 0; i < TRIVIAL_CALLS; i++) await fn('true')
  }
  // The root, /v0.1 and Node take turns, and the order turns every round (whoever runs right
  // after Node's spawns pays for the garbage they leave: up to 0.3 ms a call on this machine).
  assertSame('true at /v0.1', JSON.parse(await seedText('true')).exit_code, 0)
  const trivial = [runMany(oursText), runMany(seedText), runMany(node)]
  const wall = trivial.map(() => [])
  const cpu = trivial.map(() => [])
  for (const fn of trivial) await fn()
  for (let round = 0; round < 12; round++) {
    for (let j = 0; j < trivial.length; j++) {
      const k = (round + j) % trivial.length
      await quiesce()
      const c0 = process.cpuUsage()
      const t0 = process.hrtime.bigint()
      await trivial[k]()
      wall[k].push(Number(process.hrtime.bigint() - t0) / 1e6)
      const c = process.cpuUsage(c0)
      cpu[k].push((c.user + c.system) / 1000)
    }
  }
  const [w, c] = [wall.map(median), cpu.map(median)]
  for (const [entry, k] of [
    ['root', 0],
    ['/v0.1', 1],
  ]) {
    rows.push({
      workload: `${TRIVIAL_CALLS} sequential \`true\` — ${entry}`,
      ours_ms: w[k],
      base_ms: w[2],
      ratio: w[k] / w[2],
      target: 0.5,
      note: `${(w[k] / TRIVIAL_CALLS).toFixed(2)} vs ${(w[2] / TRIVIAL_CALLS).toFixed(2)} ms per call; this process's CPU ${c[k].toFixed(1)} vs ${c[2].toFixed(1)} ms (the shells' own CPU is the same on both sides and not counted)`,
    })
  }

  // 2. 50 MB of output.
  const a = await ours(BIG_COMMAND)
  const b = await node(BIG_COMMAND)
  if (a.stdout.length !== BIG_BYTES) throw new Error(`ours captured ${a.stdout.length} bytes`)
  assertSame('50 MB', a, b)
  const [bigOurs, bigNode, bigParsed] = await interleaved(
    [() => oursText(BIG_COMMAND), () => node(BIG_COMMAND), () => ours(BIG_COMMAND)],
    7,
  )
  rows.push({
    workload: 'capture 50 MB of stdout',
    ours_ms: bigOurs,
    base_ms: bigNode,
    ratio: bigOurs / bigNode,
    target: 1.0,
    ours_rss_kib: peakRss('ours'),
    base_rss_kib: peakRss('node'),
    note: 'ours = the result text (maxOutputBytes 64 MiB so all 50 MB is shown); peak RSS: one capture (+ JSON.parse for ours) in a fresh process each',
  })
  rows.push({
    workload: 'capture 50 MB, then JSON.parse the result',
    ours_ms: bigParsed,
    base_ms: bigNode,
    ratio: bigParsed / bigNode,
    target: 1.0,
    note: 'informational: what a program (not a model) reading stdout pays',
  })
} finally {
  rmSync(root, { recursive: true, force: true })
}

writeResults('bash', "Node child_process.spawn('sh', ['-c', …]) capturing the same", rows)
const rss = rows[2]
if (rss.ours_rss_kib > rss.base_rss_kib) {
  console.log(`peak RSS target missed: ${rss.ours_rss_kib} KiB vs ${rss.base_rss_kib} KiB`)
}
