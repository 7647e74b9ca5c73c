// The guard's analyzer on hostile input (issue 23): every answer within 200 ms, at 1 MB and at
// 10,000 levels of nesting, and undecidable. The baseline is that bound (ratio = ours / 200 ms).
import { createRequire } from 'node:module'
import { timeMedian, writeResults } from './lib.mjs'

const require = createRequire(import.meta.url)
const { analyzeBash } = require('../guard.js')

const MB = 1 << 20
const BOUND_MS = 200
const workloads = {
  '1 MB of statements': 'echo hello; rm -rf build/x && cat a.txt | grep foo\n'
    .repeat(Math.ceil(MB / 52))
    .slice(0, MB),
  '1 MB of `x;`': 'x;'.repeat(MB / 2),
  '1 MB word': `echo ${'a'.repeat(MB)}`,
  '10,000 nested $(…)': `echo ${'$('.repeat(10000)}x${')'.repeat(10000)}`,
  '10,000 nested ( )': `${'( '.repeat(10000)}ls${' )'.repeat(10000)}`,
  '10,000 nested { }': `${'{ '.repeat(10000)}ls${'; }'.repeat(10000)}`,
  '10,000 nested if': `${'if true; then '.repeat(10000)}ls${'; fi'.repeat(10000)}`,
  '10,000 backticks': `echo ${'`'.repeat(10000)}`,
  // The largest inputs still read in full (64 KiB, up to 2,000 segments).
  '64 KiB of `x;`': 'x;'.repeat(32767),
  '1,999 segments': 'cat a/b.txt;'.repeat(1999),
  '64 KiB of paths': Array.from({ length: 9000 }, (_, i) => `a/${i}`)
    .join(' ')
    .slice(0, 65000),
  '64 KiB of braces': `echo ${'{a,b}'.repeat(13000)}`,
}

const rows = []
for (const [workload, cmd] of Object.entries(workloads)) {
  const f = analyzeBash(cmd)
  if (!f.parse.undecidable) throw new Error(`${workload}: expected undecidable`)
  const ms = await timeMedian(() => analyzeBash(cmd))
  rows.push({
    workload,
    ours_ms: ms,
    base_ms: BOUND_MS,
    ratio: ms / BOUND_MS,
    target: 1,
    note: `${cmd.length} B; ${f.parse.reasons[0] ?? ''}`,
  })
}
writeResults('guard', `the ${BOUND_MS} ms bound`, rows)
