// Workspace-tool benchmark on the Linux kernel source (the corpus `search.bench.mjs --prepare`
// unpacks into the cache directory; set BENCH_CACHE to reuse another unpacked copy):
//
// - replace vs sed (and sd when installed): a project-wide regex replacement applied to a fresh
//   copy of drivers/net for each run. The baselines are what a person would type:
//   `grep -rlZ --include='*.c' PAT dir | xargs -0 sed -i -E 's/PAT/REP/g'` (and `sd`). Before
//   timing, the trees the two sides leave behind are compared byte for byte.
// - tree vs `tree -a -F -L 4` on the whole kernel tree (ignore files off on both sides, so both
//   list the same entries). Both outputs are parsed back into the set of listed paths (with
//   their kind) and compared before timing; `tree` orders symlinked directories among the
//   directories, ours among the files, so the order itself is not compared.
//
//   node bench/workspace.bench.mjs
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { assertSame, cacheDir, median, runTimed, writeResults } from './lib.mjs'

const require = createRequire(import.meta.url)
const corpus = join(cacheDir, 'linux-6.1')
const RUNS = Number(process.env.BENCH_RUNS ?? 5)
const SUBTREE = 'drivers/net'
const PATTERN = 'spin_lock_irqsave\\(&([a-z_]+)->lock'
const REPLACEMENT_JS = 'spin_lock_irqsave(&$1->guard'
const REPLACEMENT_SED = 'spin_lock_irqsave(\\&\\1->guard'
const REPLACEMENT_SD = 'spin_lock_irqsave(&$1->guard'

function have(cmd) {
  return spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0
}

function dispatchSync(tool, args, cfg) {
  const { dispatch } = require('../index.js')
  return dispatch(tool, args, cfg)
}

async function ours(tool, args, cfg) {
  const r = await dispatchSync(tool, args, cfg)
  const text = r.content
    .filter((p) => p.type === 'text')
    .map((p) => p.text)
    .join('')
  if (r.isError) throw new Error(`${tool} failed: ${text}`)
  return text
}

function config(root, extra = {}) {
  const { resolveConfig } = require('../index.js')
  return resolveConfig({ workspaceRoot: root, maxOutputBytes: 1 << 30, ...extra })
}

/** A fresh copy of the subtree under a new temp dir; returns the copy's path. */
function freshCopy(scratch, name) {
  const dest = join(scratch, name)
  rmSync(dest, { recursive: true, force: true })
  execFileSync('cp', ['-a', join(corpus, SUBTREE), dest])
  return dest
}

function sedPipeline(dir) {
  const cmd = `grep -rlZ -E --include='*.c' '${PATTERN}' . | xargs -0 -r sed -i -E 's/${PATTERN}/${REPLACEMENT_SED}/g'`
  return runTimed('sh', ['-c', cmd], { cwd: dir })
}

function sdPipeline(dir) {
  const cmd = `grep -rlZ -E --include='*.c' '${PATTERN}' . | xargs -0 -r sd '${PATTERN}' '${REPLACEMENT_SD}'`
  return runTimed('sh', ['-c', cmd], { cwd: dir })
}

function sameTrees(label, a, b) {
  const r = spawnSync('diff', ['-r', '-q', a, b], { encoding: 'utf8' })
  if (r.status !== 0) throw new Error(`${label}: trees differ:\n${r.stdout.slice(0, 2000)}`)
}

/** Times `run(dir)` on a fresh copy each time (the copy is not timed); median ms. */
async function timeOnCopies(scratch, name, run) {
  const times = []
  for (let i = 0; i < RUNS; i++) {
    const dir = freshCopy(scratch, name)
    const t0 = process.hrtime.bigint()
    await run(dir)
    times.push(Number(process.hrtime.bigint() - t0) / 1e6)
  }
  return median(times)
}

async function replaceRows(rows) {
  const scratch = mkdtempSync(join(tmpdir(), 'atn-bench-replace-'))
  try {
    const args = {
      pattern: PATTERN,
      replacement: REPLACEMENT_JS,
      path: '.',
      glob: '*.c',
      dry_run: false,
    }
    const oursRun = (dir) => ours('replace', args, config(dir))
    const a = freshCopy(scratch, 'ours')
    const summary = (await oursRun(a)).split('\n')[0]
    const b = freshCopy(scratch, 'sed')
    sedPipeline(b)
    sameTrees('replace vs sed', a, b)
    const oursMs = await timeOnCopies(scratch, 'ours', oursRun)
    const sedMs = await timeOnCopies(scratch, 'sed', (dir) => sedPipeline(dir))
    // The same scan and diffs without the durable commit: where the apply's time goes.
    const dry = freshCopy(scratch, 'dry')
    const dryArgs = { ...args, dry_run: true }
    const dryTimes = []
    for (let i = 0; i < RUNS; i++) {
      const t0 = process.hrtime.bigint()
      await ours('replace', dryArgs, config(dry))
      dryTimes.push(Number(process.hrtime.bigint() - t0) / 1e6)
    }
    const dryMs = median(dryTimes)
    rows.push({
      workload: `replace (applied) in ${SUBTREE}/**/*.c vs grep -rl | xargs sed -i`,
      ours_ms: oursMs,
      base_ms: sedMs,
      ratio: oursMs / sedMs,
      target: 1,
      note: `same trees after: ${summary} Ours fsyncs every file and commits all-or-nothing (sed -i does neither); its dry run (same scan and diffs, no write) takes ${dryMs.toFixed(0)} ms`,
    })
    console.log(rows.at(-1))
    if (have('sd')) {
      const c = freshCopy(scratch, 'sd')
      sdPipeline(c)
      sameTrees('replace vs sd', a, c)
      const sdMs = await timeOnCopies(scratch, 'sd', (dir) => sdPipeline(dir))
      rows.push({
        workload: `replace (applied) in ${SUBTREE}/**/*.c vs grep -rl | xargs sd`,
        ours_ms: oursMs,
        base_ms: sdMs,
        ratio: oursMs / sdMs,
        target: 1,
        note: 'same trees after',
      })
      console.log(rows.at(-1))
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true })
  }
}

/** Paths (with a kind mark: / dir, @ link, nothing for a file) from an indented tree text. */
function treePaths(text, strip) {
  const out = []
  const stack = []
  for (const line of text.split('\n').slice(1)) {
    // tree indents with `│` + two no-break spaces + a space; ours with `│` + three spaces.
    const m = /^((?:│[ \u00a0]{2} | {4})*)(?:├── |└── )(.*)$/u.exec(line)
    if (!m) continue
    const depth = m[1].length / 4
    const name = strip(m[2])
    stack.length = depth
    stack.push(name.replace(/[/@]$/, ''))
    out.push(stack.join('/') + (name.endsWith('/') ? '/' : name.endsWith('@') ? '@' : ''))
  }
  return out.sort()
}

const oursLabel = (s) => s.replace(/\t\d+$/, '')
const treeLabel = (s) => {
  const link = / -> /.exec(s)
  if (link) return `${s.slice(0, link.index)}@`
  return s.replace(/[*|=]$/, '')
}

async function treeRows(rows) {
  const cfg = config(corpus, { readOnly: true })
  const args = { path: '.', depth: 4, respect_gitignore: false }
  const treeArgs = ['-a', '-F', '-L', '4', '--noreport', '--charset=utf-8', '.']
  const base = () =>
    runTimed('tree', treeArgs, { cwd: corpus, env: { ...process.env, LC_ALL: 'C' } })
  const mine = treePaths(await ours('tree', args, cfg), oursLabel)
  const theirs = treePaths(base().stdout.toString(), treeLabel)
  assertSame('tree vs tree -a -F -L 4', mine, theirs)
  const a = []
  const b = []
  await ours('tree', args, cfg)
  for (let i = 0; i < RUNS; i++) {
    let t0 = process.hrtime.bigint()
    await ours('tree', args, cfg)
    a.push(Number(process.hrtime.bigint() - t0) / 1e6)
    t0 = process.hrtime.bigint()
    base()
    b.push(Number(process.hrtime.bigint() - t0) / 1e6)
  }
  rows.push({
    workload: 'tree depth 4 of the kernel source vs tree -a -F -L 4',
    ours_ms: median(a),
    base_ms: median(b),
    ratio: median(a) / median(b),
    target: 1,
    note: `same ${mine.length} entries`,
  })
  console.log(rows.at(-1))
}

async function main() {
  if (!existsSync(corpus)) {
    throw new Error(
      `no corpus at ${corpus}: run \`node bench/search.bench.mjs --prepare\` (or set BENCH_CACHE)`,
    )
  }
  for (const tool of ['tree']) {
    if (!have(tool)) {
      execFileSync('apt-get', ['install', '-y', '-qq', tool], { stdio: 'inherit' })
    }
  }
  const rows = []
  await replaceRows(rows)
  await treeRows(rows)
  writeResults('workspace', 'GNU sed / sd / tree (Debian), same outputs checked first', rows)
}

await main()
