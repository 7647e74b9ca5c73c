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
import { assertSame, median, repoRoot, writeResults } from './lib.mjs'

const require = createRequire(import.meta.url)
const { createAgentTools } = require(join(repoRoot, 'index.js'))

const BIG_BYTES = 50_000_000
const BIG_COMMAND = `yes 'a line of build output, repeated for the capture benchmark' | head -c ${BIG_BYTES}`
const TRIVIAL_CALLS = 50

const root = mkdtempSync(join(tmpdir(), 'atn-bench-bash-'))
const tools = createAgentTools({ workspaceRoot: root, maxOutputBytes: 64 * 1024 * 1024 })

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
      globalThis.gc?.()
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
  const [trivialOurs, trivialNode] = await interleaved([runMany(oursText), runMany(node)], 9)
  rows.push({
    workload: `${TRIVIAL_CALLS} sequential \`true\``,
    ours_ms: trivialOurs,
    base_ms: trivialNode,
    ratio: trivialOurs / trivialNode,
    target: 1.0,
    note: `${(trivialOurs / TRIVIAL_CALLS).toFixed(2)} vs ${(trivialNode / TRIVIAL_CALLS).toFixed(2)} ms per call`,
  })

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
const rss = rows[1]
if (rss.ours_rss_kib > rss.base_rss_kib) {
  console.log(`peak RSS target missed: ${rss.ours_rss_kib} KiB vs ${rss.base_rss_kib} KiB`)
}
