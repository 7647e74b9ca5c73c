// Regressions found in review: each case once crashed, hung, escaped the workspace, or
// changed more than the caller asked for.
import { execFileSync } from 'node:child_process'
import { chownSync, existsSync, readdirSync, statSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { err, ok, tempDir, workspace } from './helpers'

describe('hardening', () => {
  it('an over-deep glob is invalid_input, not a crash', async () => {
    const { tools } = workspace({ 'a.txt': 'a' })
    const deep = `${'{'.repeat(30_000)}a${'}'.repeat(30_000)}`
    expect(err(await tools.callTool('glob', { pattern: deep })).error).toBe('invalid_input')
    expect(err(await tools.callTool('grep', { pattern: 'a', glob: deep })).error).toBe(
      'invalid_input',
    )
    expect(ok(await tools.callTool('glob', { pattern: '{a,{b,c}}.txt' }))).toBe('a.txt')
  })

  it('a FIFO is refused at once, never opened for a blocking read', async () => {
    const { root, tools } = workspace()
    execFileSync('mkfifo', [join(root, 'fifo')])
    for (const [name, args] of [
      ['read_file', { path: 'fifo' }],
      ['edit_file', { path: 'fifo', old_string: 'a', new_string: 'b' }],
      ['apply_patch', { patch: '*** Begin Patch\n*** Delete File: fifo\n*** End Patch' }],
    ] as const) {
      const e = err(await tools.callTool(name, args))
      expect(e.error, name).toBe('not_a_file')
    }
    // The path's lock was not left held: another call on it still answers. A write onto a
    // FIFO is refused too, and the FIFO is never replaced.
    expect(err(await tools.callTool('write_file', { path: 'fifo', content: 'x' })).error).toBe(
      'not_a_file',
    )
    expect(statSync(join(root, 'fifo')).isFIFO()).toBe(true)
  })

  it('no number of missing components under an outside link gets a write out', async () => {
    const outside = tempDir()
    const { root, tools } = workspace()
    symlinkSync(outside, join(root, 'lnk'))
    const deep = Array.from({ length: 70 }, (_, i) => `d${i}`).join('/')
    const e = err(await tools.callTool('write_file', { path: `lnk/${deep}/f.txt`, content: 'x' }))
    expect(e.error).toBe('path_escape')
    expect(readdirSync(outside)).toEqual([])
  })

  it('a trailing slash names a directory', async () => {
    const { root, tools } = workspace({ 'a.txt': 'a\n', 'd/x.txt': 'x' })
    expect(err(await tools.callTool('write_file', { path: 'newdir/', content: 'x' })).error).toBe(
      'not_found',
    )
    expect(existsSync(join(root, 'newdir'))).toBe(false)
    expect(err(await tools.callTool('read_file', { path: 'a.txt/' })).error).toBe('not_a_file')
    expect(ok(await tools.callTool('list_dir', { path: 'd/' }))).toBe('x.txt\t1')
  })

  it.skipIf(process.getuid?.() !== 0)(
    'an edit keeps the file owner as well as its mode',
    async () => {
      const { root, tools } = workspace({ 'o.txt': 'old\n' })
      chownSync(join(root, 'o.txt'), 1000, 1000)
      ok(await tools.callTool('edit_file', { path: 'o.txt', old_string: 'old', new_string: 'new' }))
      const st = statSync(join(root, 'o.txt'))
      expect([st.uid, st.gid]).toEqual([1000, 1000])
    },
  )
})
