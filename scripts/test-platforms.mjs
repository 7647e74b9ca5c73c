// `npm run test:platforms [-- <rust-target>...]`: builds and smoke-tests every published target
// (or the ones named), one after another, and ends with a table of sizes and build times. Long
// (each target compiles every dependency, ~23 C grammars included), so not part of .ci/run.
import { spawnSync } from 'node:child_process'
import { statSync } from 'node:fs'
import { join } from 'node:path'
import { platformFile, repo, say, TARGETS } from './platforms-lib.mjs'

const named = process.argv.slice(2).filter((a) => !a.startsWith('-'))
const targets = named.length > 0 ? named : Object.keys(TARGETS)
const rows = []
for (const target of targets) {
  const started = performance.now()
  const build = spawnSync(process.execPath, [join(repo, 'scripts', 'build-platform.mjs'), target], {
    stdio: 'inherit',
  })
  const seconds = Math.round((performance.now() - started) / 1000)
  const smoke =
    build.status === 0
      ? spawnSync(process.execPath, [join(repo, 'scripts', 'smoke-platform.mjs'), target], {
          stdio: 'inherit',
        })
      : { status: null }
  const mb = build.status === 0 ? (statSync(platformFile(target)).size / 1e6).toFixed(1) : '-'
  rows.push({
    target,
    build: build.status === 0 ? 'ok' : 'FAIL',
    smoke: smoke.status === 0 ? 'ok' : build.status === 0 ? 'FAIL' : '-',
    mb,
    seconds,
  })
}
const lto = process.env.CARGO_PROFILE_RELEASE_LTO ?? 'true'
const cgu = process.env.CARGO_PROFILE_RELEASE_CODEGEN_UNITS ?? '1'
say(`release profile: lto=${lto}, codegen-units=${cgu}`)
console.log('| target | build | smoke | MB | build s |\n| --- | --- | --- | --- | --- |')
for (const r of rows) {
  console.log(`| ${r.target} | ${r.build} | ${r.smoke} | ${r.mb} | ${r.seconds} |`)
}
process.exit(rows.every((r) => r.build === 'ok' && r.smoke === 'ok') ? 0 : 1)
