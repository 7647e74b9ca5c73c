// Calls run on persistent, bounded pools: a burst of concurrent calls starts no thread of its
// own (a thread per call costs 10× under load). Judged in a fresh Node process by the kernel's
// own count of its threads (/proc/self/task), sampled while the calls run: never more than
// once the warm-up has started every pool (fewer is fine: the stale-temp sweep's thread, started
// by the warm-up's writes, ends once writes pause).
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'

const entry = join(__dirname, '..', 'index.js')

/** Runs `body` in a fresh Node process beside a workspace; its last stdout line as JSON. */
async function inHost(body: string): Promise<{ baseline: number; max: number; samples: number }> {
  const script = `
const { mkdtempSync, readdirSync, writeFileSync, mkdirSync } = require('node:fs')
const { join } = require('node:path')
const { tmpdir } = require('node:os')
const { createAgentTools } = require(${JSON.stringify(entry)})
const root = mkdtempSync(join(tmpdir(), 'atn-threads-'))
const tools = createAgentTools({ workspaceRoot: root })
const threads = () => readdirSync('/proc/self/task').length
const call = async (name, args) => {
  const r = await tools.callTool(name, args)
  if (r.isError) throw new Error(name + ': ' + r.content[0].text)
  return r
}
/** The most threads seen while \`burst()\` runs, sampled between the calls' completions. */
async function peak(burst) {
  let max = threads()
  let samples = 0
  let running = true
  const sample = () => {
    max = Math.max(max, threads())
    samples++
    if (running) setImmediate(sample)
  }
  setImmediate(sample)
  await burst()
  running = false
  return { max: Math.max(max, threads()), samples }
}
;(async () => {
${body}
})().catch((e) => { console.error(e); process.exit(1) })
`
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] })
  let out = ''
  child.stdout.on('data', (d) => {
    out += d
  })
  const code = await new Promise((resolve) => child.on('close', resolve))
  expect(code).toBe(0)
  return JSON.parse(out.trim().split('\n').at(-1) ?? '')
}

describe.runIf(process.platform === 'linux')('threads', () => {
  it('read_files reads on the walk pool: 16 concurrent calls of 16 files start no thread', async () => {
    const r = await inHost(`
const paths = []
for (let i = 0; i < 16; i++) {
  writeFileSync(join(root, 'f' + i + '.txt'), ('line ' + i + '\\n').repeat(2000))
  paths.push('f' + i + '.txt')
}
// Warm-up: every pool a read_files call uses is started by the first one.
await call('read_files', { paths })
const baseline = threads()
const { max, samples } = await peak(async () => {
  for (let round = 0; round < 30; round++) {
    await Promise.all(Array.from({ length: 16 }, () => call('read_files', { paths })))
  }
})
console.log(JSON.stringify({ baseline, max, samples }))
`)
    expect(r.samples).toBeGreaterThan(30)
    expect(r.max).toBeLessThanOrEqual(r.baseline)
  })

  it("apply_patch's syntax checks parse on the walk pool: concurrent patches start no thread", async () => {
    const r = await inHost(`
const lines = (g, k, word) =>
  Array.from({ length: 400 }, (_, i) => 'export const v' + g + '_' + k + '_' + i + ' = ' + word + '(' + i + ')\\n').join('')
function patch(g, from, to) {
  const out = []
  for (let k = 0; k < 5; k++) {
    const name = 'g' + g + '/m' + k + '.ts'
    // Only the first line changes; the next two are context.
    const [a, b, same] = [from, to, 'f'].map((w) => lines(g, k, w).split('\\n'))
    out.push('--- a/' + name, '+++ b/' + name, '@@ -1,3 +1,3 @@', '-' + a[0], '+' + b[0], ' ' + same[1], ' ' + same[2])
  }
  return out.join('\\n') + '\\n'
}
for (const g of [0, 1, 2, 3]) {
  mkdirSync(join(root, 'g' + g))
  for (let k = 0; k < 5; k++) writeFileSync(join(root, 'g' + g, 'm' + k + '.ts'), lines(g, k, 'f'))
}
// Warm-up: each group forward and back, which starts the walk pool and parses with each grammar.
for (const g of [0, 1, 2, 3]) {
  await call('apply_patch', { patch: patch(g, 'f', 'h') })
  await call('apply_patch', { patch: patch(g, 'h', 'f') })
}
const baseline = threads()
const { max, samples } = await peak(async () => {
  for (let round = 0; round < 20; round++) {
    const [from, to] = round % 2 === 0 ? ['f', 'h'] : ['h', 'f']
    await Promise.all([0, 1, 2, 3].map((g) => call('apply_patch', { patch: patch(g, from, to) })))
  }
})
console.log(JSON.stringify({ baseline, max, samples }))
`)
    expect(r.samples).toBeGreaterThan(20)
    expect(r.max).toBeLessThanOrEqual(r.baseline)
  })
})
