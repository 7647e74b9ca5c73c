// Race-free confinement (issue 15) as a user sees it: symlink rules, the .clarvis sweep, temp
// files, and the caps on bad input. The race itself is tested in Rust (src/race.rs).
import { execFileSync } from 'node:child_process'
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createAgentTools, getTool, sweepSpillDir } from '../index.js'
import { err, ok, tempDir, workspace } from './helpers'

describe('confinement through directory fds', () => {
  it('an absolute symlink that stays inside works; one that leaves is path_escape', async () => {
    const outside = tempDir()
    writeFileSync(join(outside, 'canary.txt'), 'CANARY')
    const { root, tools } = workspace({ 'd/f.txt': 'inside\n' })
    symlinkSync(join(root, 'd'), join(root, 'abs'))
    symlinkSync(outside, join(root, 'out'))
    expect(ok(await tools.callTool('read_file', { path: 'abs/f.txt' }))).toBe('     1\tinside')
    expect(ok(await tools.callTool('write_file', { path: 'abs/new.txt', content: 'n' }))).toMatch(
      /^Wrote/,
    )
    expect(readFileSync(join(root, 'd/new.txt'), 'utf8')).toBe('n')
    expect(ok(await tools.callTool('bash', { command: 'cat f.txt', cwd: 'abs' }))).toContain(
      'inside',
    )
    for (const [name, args] of [
      ['read_file', { path: 'out/canary.txt' }],
      ['write_file', { path: 'out/x.txt', content: 'x' }],
      ['list_dir', { path: 'out' }],
      ['grep', { pattern: 'CANARY', path: 'out/canary.txt' }],
      ['bash', { command: 'cat canary.txt', cwd: 'out' }],
    ] as const) {
      const e = err(await tools.callTool(name, args))
      expect(e.error, name).toBe('path_escape')
    }
    expect(readdirSync(outside)).toEqual(['canary.txt'])
  })

  it('write_file onto a socket-like node (a FIFO) is not_a_file and leaves it alone', async () => {
    const { root, tools } = workspace()
    execFileSync('mkfifo', [join(root, 'pipe')])
    const e = err(await tools.callTool('write_file', { path: 'pipe', content: 'x' }))
    expect(e.error).toBe('not_a_file')
    expect(e.path).toBe('pipe')
    expect(statSync(join(root, 'pipe')).isFIFO()).toBe(true)
    expect(readdirSync(root)).toEqual(['pipe'])
  })

  it('sweepSpillDir never follows a symlinked .clarvis', async () => {
    const outside = tempDir()
    const victim = join(outside, 'bash-victim.stdout.log')
    writeFileSync(victim, 'keep')
    const old = new Date(Date.now() - 3 * 24 * 3600 * 1000)
    utimesSync(victim, old, old)
    const root = tempDir()
    symlinkSync(outside, join(root, '.clarvis'))
    await sweepSpillDir(root)
    expect(readFileSync(victim, 'utf8')).toBe('keep')
  })

  it('stale temp files of a crashed write are swept where a write lands, once writes pause', async () => {
    const root = tempDir()
    const outside = tempDir()
    mkdirSync(join(root, 'a'))
    mkdirSync(join(root, 'quiet'))
    const stale = join(root, 'a', '.clarvis-tmp-AbCdEf123456')
    const fresh = join(root, 'a', '.clarvis-tmp-ZyXwVu987654')
    const notOurs = join(root, 'a', '.clarvis-tmp-mine')
    const untouched = join(root, 'quiet', '.clarvis-tmp-QuIeT1234567')
    const outsideTemp = join(outside, '.clarvis-tmp-Outside12345')
    for (const f of [stale, fresh, notOurs, untouched, outsideTemp]) writeFileSync(f, 'x')
    const old = new Date(Date.now() - 2 * 3600 * 1000)
    for (const f of [stale, notOurs, untouched, outsideTemp]) utimesSync(f, old, old)
    symlinkSync(outside, join(root, 'out'))
    symlinkSync(outsideTemp, join(root, 'a', '.clarvis-tmp-LinkOut12345'))
    const tools = createAgentTools({ workspaceRoot: root })
    ok(await tools.callTool('list_dir', {}))
    ok(await tools.callTool('grep', { pattern: 'x' }))
    // Reads queue nothing: past the idle delay, the stale file is still there.
    await new Promise((r) => setTimeout(r, 1500))
    expect(existsSync(stale)).toBe(true)
    ok(await tools.callTool('write_file', { path: 'a/new.txt', content: 'hi' }))
    // The directory the write landed in is swept about a second after writes pause.
    for (let i = 0; i < 100 && existsSync(stale); i++) {
      await new Promise((r) => setTimeout(r, 50))
    }
    expect(existsSync(stale)).toBe(false)
    expect(existsSync(fresh)).toBe(true)
    expect(existsSync(notOurs)).toBe(true)
    expect(existsSync(untouched)).toBe(true)
    expect(existsSync(outsideTemp)).toBe(true)
    expect(readFileSync(join(root, 'a', 'new.txt'), 'utf8')).toBe('hi')
  })
})

describe('bad input and resource caps', () => {
  it('a lone surrogate is invalid_input naming the field, at every size', async () => {
    const { root, tools } = workspace({ 'a.txt': 'hello\n' })
    for (const size of [10, 70_000, 2_000_000]) {
      const content = `${'x'.repeat(size)}\uD800`
      const e = err(await tools.callTool('write_file', { path: 'b.txt', content }))
      expect(e.error, String(size)).toBe('invalid_input')
      expect(e.field).toBe('content')
      expect(e.message).toContain('surrogate')
    }
    const e = err(
      await tools.callTool('multi_edit', {
        path: 'a.txt',
        edits: [{ old_string: 'hello', new_string: 'ok \uDC00 then' }],
      }),
    )
    expect(e.field).toBe('edits[0].new_string')
    const handler = getTool('write_file')?.handler
    await expect(
      handler?.({ path: 'c.txt', content: '\uDBFF' }, tools.config),
    ).rejects.toMatchObject({ code: 'invalid_input', fields: { field: 'content' } })
    // A well-formed pair is fine.
    ok(await tools.callTool('write_file', { path: 'emoji.txt', content: '\uD83D\uDE00' }))
    expect(readFileSync(join(root, 'emoji.txt'), 'utf8')).toBe('😀')
    expect(existsSync(join(root, 'b.txt'))).toBe(false)
  })

  it('an error envelope echoes at most a few KiB of an input', async () => {
    const { tools } = workspace()
    const path = `${'p'.repeat(1_000_000)}.txt`
    const res = await tools.callTool('read_file', { path })
    expect(res.text.length).toBeLessThan(16 * 1024)
    const e = err(res)
    // ENAMETOOLONG: an io_error that carries the path, cut.
    expect(e.error).toBe('io_error')
    expect(String(e.path)).toContain('[... cut ...]')
  })

  it('grep refuses a huge pattern and a pattern that compiles too big', async () => {
    const { tools } = workspace({ 'a.txt': 'abc\n' })
    const long = err(await tools.callTool('grep', { pattern: 'a'.repeat(20_000_000) }))
    expect(long.error).toBe('invalid_input')
    expect(long.field).toBe('pattern')
    const heavy = err(await tools.callTool('grep', { pattern: '(\\w{1000}){1000}' }))
    expect(heavy.error).toBe('invalid_input')
    expect(heavy.field).toBe('pattern')
    expect(ok(await tools.callTool('grep', { pattern: 'ab' }))).toContain('a.txt')
  })

  it('multi_edit with more than 1,000 edits is refused before anything changes', async () => {
    const { root, tools } = workspace({ 'a.txt': 'a\n' })
    const edits = Array.from({ length: 1001 }, (_, i) => ({
      old_string: `x${i}`,
      new_string: `y${i}`,
    }))
    const e = err(await tools.callTool('multi_edit', { path: 'a.txt', edits }))
    expect(e.error).toBe('invalid_input')
    expect(e.field).toBe('edits')
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('a\n')
  })
})

describe('a workspace root reached through a symlink', () => {
  it('owns the paths of its real directory, as the contract realpaths the prefix', async () => {
    // CONTRACT.md, Confinement: "the check canonicalizes the longest existing prefix of the
    // path". The path bash's `pwd` prints under a symlinked root must work in the file tools.
    const dir = tempDir()
    mkdirSync(join(dir, 'real/sub'), { recursive: true })
    mkdirSync(join(dir, 'realx'))
    writeFileSync(join(dir, 'real/sub/r.txt'), 'hi\n')
    writeFileSync(join(dir, 'realx/s.txt'), 'secret\n')
    symlinkSync(join(dir, 'real'), join(dir, 'link'))
    const real = realpathSync(join(dir, 'real'))
    for (const entry of ['../index.js', '../v0.1/index.js']) {
      const { createAgentTools: create } = await import(entry)
      const tools = create({ workspaceRoot: join(dir, 'link') })
      const r = await tools.callTool('read_file', { path: join(real, 'sub/r.txt') })
      expect(r.isError).toBe(false)
      expect(r.text).toBe('     1\thi')
      const g = await tools.callTool('glob', { pattern: '**/*.txt', path: real })
      expect(g.text).toBe('sub/r.txt')
      const out = await tools.callTool('read_file', {
        path: join(realpathSync(join(dir, 'realx')), 's.txt'),
      })
      expect(out.isError).toBe(true)
      expect(out.text).toContain('path_escape')
    }
  })
})
