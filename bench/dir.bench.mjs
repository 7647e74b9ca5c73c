// list_dir at each entry against the contract's list_dir in Node (the reference cannot be
// installed here; list_dir is the same in both contracts): ajv validation (compiled once),
// confinement by `realpath` (the root's computed once), a stat for `not_a_file`, `readdir`, a
// `stat` of every entry (symlinks followed for type and size; all at once through libuv's pool),
// directories first then files, each sorted by name, `name/` or `name<TAB><bytes>`, and the
// output bound. Outputs are checked equal first; the root, /v0.1 and the reference take turns,
// 41 rounds after 5 warm-up calls each, median wall and CPU (this whole process) each.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { readdir, realpath, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve, sep } from 'node:path'
import Ajv from 'ajv'
import { createAgentTools, getTool } from '../index.mjs'
import { createAgentTools as createSeedTools } from '../v0.1/index.mjs'
import { assertSame, median, quiesce, writeResults } from './lib.mjs'

const root = mkdtempSync(join(tmpdir(), 'atn-bench-dir-'))
const big = join(root, 'big')
mkdirSync(big)
for (let i = 0; i < 1500; i++) writeFileSync(join(big, `file_${i}.ts`), 'x'.repeat(i % 300))
for (let i = 0; i < 200; i++) mkdirSync(join(big, `dir_${i}`))
for (let i = 0; i < 20; i++) symlinkSync(`file_${i}.ts`, join(big, `link_${i}.ts`))
writeFileSync(join(big, '.hidden'), 'h')

const rootTools = createAgentTools({ workspaceRoot: root })
const seedTools = createSeedTools({ workspaceRoot: root })
const MAX_OUTPUT_BYTES = rootTools.config.maxOutputBytes
const validate = new Ajv({ allErrors: true, useDefaults: true, coerceTypes: true }).compile(
  getTool('list_dir').inputSchema,
)
const realRoot = realpathSync(root)

async function referenceListDir(args) {
  if (!validate(args)) throw new Error('invalid_input')
  const real = await realpath(resolve(realRoot, args.path))
  if (real !== realRoot && !real.startsWith(realRoot + sep)) throw new Error('path_escape')
  if (!(await stat(real)).isDirectory()) throw new Error('not_a_file')
  const names = await readdir(real)
  const stats = await Promise.all(names.map((n) => stat(join(real, n)).catch(() => null)))
  const dirs = []
  const files = []
  names.forEach((n, i) => {
    if (stats[i]?.isDirectory()) dirs.push(n)
    else files.push([n, stats[i]?.size ?? 0])
  })
  const byName = (a, b) => (a < b ? -1 : a > b ? 1 : 0)
  dirs.sort(byName)
  files.sort((a, b) => byName(a[0], b[0]))
  const out = [...dirs.map((d) => `${d}/`), ...files.map(([n, s]) => `${n}\t${s}`)].join('\n')
  return Buffer.byteLength(out) > MAX_OUTPUT_BYTES ? out.slice(0, MAX_OUTPUT_BYTES) : out
}

const contenders = [
  async () => (await rootTools.callTool('list_dir', { path: 'big' })).content[0].text,
  async () => (await seedTools.callTool('list_dir', { path: 'big' })).text,
  () => referenceListDir({ path: 'big' }),
]
const outs = []
for (const c of contenders) outs.push(await c())
assertSame('list_dir root', outs[0], outs[2])
assertSame('list_dir /v0.1', outs[1], outs[2])

const wall = contenders.map(() => [])
const cpu = contenders.map(() => [])
// The order turns every round, and garbage is collected before each call (run with
// --expose-gc, as `npm run bench` does), then a wait until the process is quiet (lib.mjs
// `quiesce`: V8's concurrent sweeping runs on helper threads counted in this process's CPU): whoever follows the
// reference would otherwise pay for the garbage of its 1,721 stat promises. Each contender is
// warmed up with a few calls first.
for (let i = 0; i < 5; i++) for (const c of contenders) await c()
for (let round = 0; round < 41; round++) {
  for (let j = 0; j < contenders.length; j++) {
    const k = (round + j) % contenders.length
    const c = contenders[k]
    await quiesce()
    const c0 = process.cpuUsage()
    const t0 = process.hrtime.bigint()
    await c()
    wall[k].push(Number(process.hrtime.bigint() - t0) / 1e6)
    const u = process.cpuUsage(c0)
    cpu[k].push((u.user + u.system) / 1000)
  }
}
const [w, c] = [wall.map(median), cpu.map(median)]
const rows = [
  ['root', 0],
  ['/v0.1', 1],
].map(([entry, k]) => ({
  workload: `list_dir of a directory of 1,721 entries — ${entry}`,
  ours_ms: w[k],
  base_ms: w[2],
  ratio: w[k] / w[2],
  target: 0.2,
  note: `CPU ms ${c[k].toFixed(2)} vs ${c[2].toFixed(2)} = ${(c[k] / c[2]).toFixed(2)}`,
}))
rmSync(root, { recursive: true, force: true })
writeResults(
  'dir',
  "the contract's list_dir in Node (ajv, async realpath / readdir / stat of every entry, sort, format, bound)",
  rows,
)
