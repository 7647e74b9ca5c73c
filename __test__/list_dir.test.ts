import { mkdirSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { err, ok, tempDir, workspace } from './helpers'

describe('list_dir', () => {
  it('lists directories first, then files with sizes, each sorted by name', async () => {
    const { tools } = workspace({
      'b.txt': '12345',
      'a.txt': '',
      '.hidden': 'hh',
      'zdir/x': 'x',
      'adir/y': 'y',
      '.gitignore': 'a.txt\n',
    })
    expect(ok(await tools.callTool('list_dir', {}))).toBe(
      ['adir/', 'zdir/', '.gitignore\t6', '.hidden\t2', 'a.txt\t0', 'b.txt\t5'].join('\n'),
    )
    expect(ok(await tools.callTool('list_dir', { path: 'zdir' }))).toBe('x\t1')
  })

  it('follows symlinks for type and size', async () => {
    const { root, tools } = workspace({ 'real/f.txt': 'abc', 'data.bin': 'abcdef' })
    symlinkSync(join(root, 'real'), join(root, 'linkdir'))
    symlinkSync(join(root, 'data.bin'), join(root, 'linkfile'))
    expect(ok(await tools.callTool('list_dir', {}))).toBe(
      ['linkdir/', 'real/', 'data.bin\t6', 'linkfile\t6'].join('\n'),
    )
  })

  it('a large directory (stated in batches) lists every entry with its own type and size', async () => {
    // 700 files, 100 directories and links among them: more than one stat batch.
    const files: Record<string, string> = {}
    for (let i = 0; i < 700; i++) files[`f${String(i).padStart(3, '0')}.txt`] = 'x'.repeat(i % 37)
    const { root, tools } = workspace(files)
    for (let i = 0; i < 100; i++) mkdirSync(join(root, `d${String(i).padStart(3, '0')}`))
    symlinkSync('d007', join(root, 'link-to-dir'))
    symlinkSync('f010.txt', join(root, 'link-to-file'))
    symlinkSync('nowhere', join(root, 'link-broken'))
    const dirs = Array.from({ length: 100 }, (_, i) => `d${String(i).padStart(3, '0')}/`)
    const names = [...Object.keys(files), 'link-broken', 'link-to-file'].sort()
    const size = (n: string) =>
      n === 'link-broken' ? 0 : n === 'link-to-file' ? 10 % 37 : Number(n.slice(1, 4)) % 37
    expect(ok(await tools.callTool('list_dir', {}))).toBe(
      [...dirs, 'link-to-dir/', ...names.map((n) => `${n}\t${size(n)}`)].join('\n'),
    )
  })

  it('says (empty directory)', async () => {
    const { root, tools } = workspace()
    mkdirSync(join(root, 'empty'))
    expect(ok(await tools.callTool('list_dir', { path: 'empty' }))).toBe('(empty directory)')
  })

  it('errors: a file, a missing path, an escape', async () => {
    const outside = tempDir()
    const { root, tools } = workspace({ 'f.txt': 'x' })
    symlinkSync(outside, join(root, 'out'))
    expect(err(await tools.callTool('list_dir', { path: 'f.txt' }))).toMatchObject({
      error: 'not_a_file',
      path: 'f.txt',
    })
    expect(err(await tools.callTool('list_dir', { path: 'missing' })).error).toBe('not_found')
    for (const path of ['..', outside, 'out']) {
      expect(err(await tools.callTool('list_dir', { path })).error).toBe('path_escape')
    }
  })

  it('lists outside paths when confinement is off', async () => {
    const outside = tempDir()
    const { tools } = workspace({}, { confineToWorkspace: false })
    expect(ok(await tools.callTool('list_dir', { path: outside }))).toBe('(empty directory)')
  })
})
