// `npm run bench`: runs every suite (bench/<suite>.bench.mjs) in its own Node process, in order.
// Pass suite names to run only those: `npm run bench -- search`.
import { spawnSync } from 'node:child_process'
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { benchDir } from './lib.mjs'

const only = process.argv.slice(2)
const suites = readdirSync(benchDir)
  .filter((f) => f.endsWith('.bench.mjs'))
  .map((f) => f.replace(/\.bench\.mjs$/, ''))
  .filter((s) => only.length === 0 || only.includes(s))
let failed = 0
for (const suite of suites) {
  console.log(`\n### bench suite: ${suite}`)
  const r = spawnSync(process.execPath, ['--expose-gc', join(benchDir, `${suite}.bench.mjs`)], {
    stdio: 'inherit',
  })
  if (r.status !== 0) failed++
}
process.exit(failed ? 1 : 0)
