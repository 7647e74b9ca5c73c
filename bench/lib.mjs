// Shared benchmark mechanics: timing medians, peak RSS per contender, equality checks, and the
// results table written to bench/results/<suite>.{json,md}. Every suite imports this.
import { spawnSync } from 'node:child_process'
import {
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  renameSync,
  writeFileSync,
  writeSync,
} from 'node:fs'
import { cpus } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const benchDir = dirname(fileURLToPath(import.meta.url))
export const repoRoot = join(benchDir, '..')
/** Large corpora live outside the repo; override with BENCH_CACHE. */
export const cacheDir = process.env.BENCH_CACHE ?? join(repoRoot, '..', '.agent-tools-native-bench')

/**
 * The physical floor of an atomic write with Node's own fs: write a temp file beside `path`,
 * fsync it, rename it over `path`. `data` is a string (UTF-8) or bytes.
 */
export function floorWrite(path, data) {
  const bytes = typeof data === 'string' ? Buffer.from(data) : data
  const tmp = `${path}.floor-tmp-${process.pid}`
  const fd = openSync(tmp, 'w')
  try {
    let off = 0
    while (off < bytes.length) off += writeSync(fd, bytes, off)
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
  renameSync(tmp, path)
}

/**
 * Collects garbage (with --expose-gc, as `npm run bench` runs every suite) and waits until this
 * process is quiet: at least 20 ms, then until a 10 ms window used under 1 ms of CPU (at most
 * 1 s). V8 finishes a collection on helper threads (sweeping, releasing pages) that count in
 * this process's CPU and share its cores, so a fixed pause is not always enough: after the
 * newest reference's 15 MB edit (300,000 line strings and a jsdiff), 20 ms left enough of that
 * work to double the next contender's CPU. Every interleaved timing loop calls this before each
 * call, so no contender pays for another's garbage.
 */
export async function quiesce() {
  globalThis.gc?.()
  const sleep = (ms) => new Promise((done) => setTimeout(done, ms))
  await sleep(20)
  const cpuMs = () => {
    const u = process.cpuUsage()
    return (u.user + u.system) / 1000
  }
  for (let waited = 20; waited < 1000; waited += 10) {
    const before = cpuMs()
    await sleep(10)
    if (cpuMs() - before < 1) return
  }
}

export function median(xs) {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2
}

/** Runs `fn` (sync or async) `runs` times after one warm-up; returns the median wall ms. */
export async function timeMedian(fn, runs = 5) {
  await fn()
  const times = []
  for (let i = 0; i < runs; i++) {
    const t0 = process.hrtime.bigint()
    await fn()
    times.push(Number(process.hrtime.bigint() - t0) / 1e6)
  }
  return median(times)
}

/** Runs a command and returns its wall time in ms and peak RSS in KiB (via GNU time if present). */
export function runTimed(cmd, args, options = {}) {
  const t0 = process.hrtime.bigint()
  const r = spawnSync(cmd, args, { maxBuffer: 1 << 30, ...options })
  const ms = Number(process.hrtime.bigint() - t0) / 1e6
  if (r.error) throw r.error
  return { ms, stdout: r.stdout, stderr: r.stderr, status: r.status }
}

/** Throws unless `a` and `b` are deeply equal; benchmarks compare outputs before timing. */
export function assertSame(label, a, b) {
  const ja = JSON.stringify(a)
  const jb = JSON.stringify(b)
  if (ja !== jb) {
    throw new Error(
      `${label}: outputs differ\n ours: ${ja.slice(0, 500)}\n base: ${jb.slice(0, 500)}`,
    )
  }
}

/**
 * Writes the suite's table. Each row: { workload, ours_ms, base_ms, ratio, target?, ours_rss_kib?,
 * base_rss_kib?, note? } — ratios, not lone absolute times, are what the table is for; a row
 * without a target is a comparison with no goal.
 */
export function writeResults(suite, baseline, rows) {
  const outDir = join(benchDir, 'results')
  mkdirSync(outDir, { recursive: true })
  const meta = {
    suite,
    baseline,
    cores: cpus().length,
    node: process.version,
    date: new Date().toISOString(),
  }
  writeFileSync(join(outDir, `${suite}.json`), `${JSON.stringify({ ...meta, rows }, null, 2)}\n`)
  const fmt = (x) =>
    x === undefined ? '' : typeof x === 'number' ? x.toFixed(x < 10 ? 2 : 1) : String(x)
  const lines = [
    `# ${suite} vs ${baseline}`,
    '',
    `${meta.cores} cores, Node ${meta.node}, ${meta.date}. Medians of repeated runs in one process run; ratio = ours / baseline (lower is better).`,
    '',
    '| workload | ours ms | baseline ms | ratio | target | meets | ours peak RSS KiB | baseline peak RSS KiB | note |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...rows.map(
      (r) =>
        `| ${r.workload} | ${fmt(r.ours_ms)} | ${fmt(r.base_ms)} | ${fmt(r.ratio)} | ${r.target === undefined ? '—' : `≤ ${fmt(r.target)}`} | ${r.target === undefined ? '—' : r.ratio <= r.target ? 'yes' : '**no**'} | ${fmt(r.ours_rss_kib)} | ${fmt(r.base_rss_kib)} | ${r.note ?? ''} |`,
    ),
    '',
  ]
  writeFileSync(join(outDir, `${suite}.md`), lines.join('\n'))
  console.log(lines.join('\n'))
}
