// Item 9 of issue 28: `npm run build` checks for Rust and a C compiler first (Rust links with
// the system C compiler and the grammars are C, so without one the build fails before any of
// this crate's code runs) and names the package that installs the missing one.
import { spawnSync } from 'node:child_process'
import { symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { missing } from '../scripts/check-toolchain.js'
import { tempDir } from './helpers'

const script = join(__dirname, '..', 'scripts', 'check-toolchain.js')

describe('the build prerequisites check', () => {
  it('names the package per platform', () => {
    const noCc = (c: string) => c === 'cargo' || c === 'rustc'
    expect(missing('linux', noCc, {}).join('\n')).toMatch(
      /no C compiler.*apt-get install build-essential/,
    )
    expect(missing('darwin', noCc, {}).join('\n')).toMatch(/xcode-select --install/)
    expect(missing('linux', noCc, { CC: 'clang-99' }).join('\n')).toContain('CC=clang-99')
    expect(missing('linux', () => false, {}).join('\n')).toContain('https://rustup.rs')
    expect(missing('linux', () => true, {})).toEqual([])
    expect(missing('win32', noCc, {})).toEqual([])
  })

  it('passes here, and fails with the fix on a PATH without a C compiler', () => {
    expect(spawnSync(process.execPath, [script]).status).toBe(0)
    const bin = tempDir('atn-nocc-')
    for (const tool of ['cargo', 'rustc']) {
      const found = spawnSync('sh', ['-c', `command -v ${tool}`], {
        encoding: 'utf8',
      }).stdout.trim()
      if (found) symlinkSync(found, join(bin, tool))
    }
    const env: Record<string, string> = { PATH: bin }
    for (const k of ['HOME', 'RUSTUP_HOME', 'CARGO_HOME', 'RUSTUP_TOOLCHAIN']) {
      const v = process.env[k]
      if (v) env[k] = v
    }
    const r = spawnSync(process.execPath, [script], { env, encoding: 'utf8' })
    expect(r.status).toBe(1)
    expect(r.stderr).toContain('no C compiler')
    expect(r.stderr).toContain('build-essential')
  })
})
