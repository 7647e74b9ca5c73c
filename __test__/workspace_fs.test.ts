// Contract tests for move, copy, mkdir and remove (v0.5 §2), through the public API.
import { chmodSync, existsSync, readdirSync, readFileSync, statSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { err, ok, tempDir, workspace } from './root-helpers'

describe.each(['move', 'copy'] as const)('%s', (tool) => {
  const verb = tool === 'move' ? 'Moved' : 'Copied'

  it('publishes the file with its bytes and mode, creating parents', async () => {
    const bytes = Buffer.from(Array.from({ length: 70000 }, (_, i) => i % 256))
    const { root, tools } = workspace({ 'a.bin': bytes })
    chmodSync(join(root, 'a.bin'), 0o751)
    expect(ok(await tools.callTool(tool, { source: 'a.bin', destination: 'x/y/b.bin' }))).toBe(
      `${verb} a.bin \u2192 x/y/b.bin.`,
    )
    expect(readFileSync(join(root, 'x/y/b.bin'))).toEqual(bytes)
    expect(statSync(join(root, 'x/y/b.bin')).mode & 0o777).toBe(0o751)
    expect(existsSync(join(root, 'a.bin'))).toBe(tool === 'copy')
    expect(readdirSync(join(root, 'x/y'))).toEqual(['b.bin'])
  })

  it('overwrites only when asked', async () => {
    const { root, tools } = workspace({ 'a.txt': 'A', 'b.txt': 'B' })
    expect(err(await tools.callTool(tool, { source: 'a.txt', destination: 'b.txt' }))).toEqual({
      error: 'invalid_input',
      message: 'Destination already exists: b.txt (pass overwrite: true to replace it)',
      path: 'b.txt',
    })
    expect(readFileSync(join(root, 'b.txt'), 'utf8')).toBe('B')
    expect(
      ok(await tools.callTool(tool, { source: 'a.txt', destination: 'b.txt', overwrite: true })),
    ).toBe(`${verb} a.txt \u2192 b.txt (overwritten).`)
    expect(readFileSync(join(root, 'b.txt'), 'utf8')).toBe('A')
  })

  it('errors in the contract order', async () => {
    const outside = tempDir()
    const { root, tools } = workspace({ 'a.txt': 'A', 'd/x': '' })
    symlinkSync(join(root, 'a.txt'), join(root, 'link'))
    symlinkSync(outside, join(root, 'out'))
    const call = (source: string, destination: string) =>
      tools.callTool(tool, { source, destination })
    expect(err(await call('a.txt', './a.txt'))).toMatchObject({
      error: 'invalid_input',
      message: 'Source and destination are the same: a.txt',
    })
    const link = err(await call('link', 'new'))
    expect(link.error).toBe('invalid_input')
    expect(link.message).toBe(`Refusing to write through a symlink: ${join(root, 'link')}`)
    // "Identical resolved paths" are compared before the symlink check, and `link` resolves
    // (not realpath'd) to a path of its own: the symlink is what is refused.
    expect(err(await call('a.txt', 'link'))).toMatchObject({
      error: 'invalid_input',
      message: `Refusing to write through a symlink: ${join(root, 'link')}`,
    })
    expect(err(await call('missing', 'new'))).toMatchObject({ error: 'not_found', path: 'missing' })
    expect(err(await call('d', 'new'))).toMatchObject({
      error: 'not_a_file',
      message: 'Source is a directory (files only): d',
    })
    expect(err(await call('a.txt', 'd'))).toMatchObject({
      error: 'not_a_file',
      message: 'Destination is a directory: d',
    })
    for (const dest of ['../x', join(outside, 'x'), 'out/x']) {
      expect(err(await call('a.txt', dest)).error).toBe('path_escape')
    }
    expect(err(await call('../y', 'z')).error).toBe('path_escape')
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('A')
  })

  it('is hidden under readOnly', async () => {
    const { tools } = workspace({ 'a.txt': 'A' }, { readOnly: true })
    expect(err(await tools.callTool(tool, { source: 'a.txt', destination: 'b' }))).toMatchObject({
      error: 'not_found',
      message: `Unknown tool: ${tool}`,
    })
  })
})

describe('mkdir', () => {
  it('creates parents and is idempotent', async () => {
    const { root, tools } = workspace({ f: 'x' })
    expect(ok(await tools.callTool('mkdir', { path: 'a/b/c' }))).toBe('Created directory a/b/c.')
    expect(statSync(join(root, 'a/b/c')).isDirectory()).toBe(true)
    expect(ok(await tools.callTool('mkdir', { path: 'a/b' }))).toBe(
      'Directory already exists: a/b.',
    )
    expect(ok(await tools.callTool('mkdir', { path: '.' }))).toBe('Directory already exists: ..')
  })

  it('errors: a file at the path or as a parent, an escape', async () => {
    const { tools } = workspace({ f: 'x' })
    expect(err(await tools.callTool('mkdir', { path: 'f' }))).toMatchObject({
      error: 'not_a_file',
      message: 'Path exists and is not a directory: f',
    })
    expect(err(await tools.callTool('mkdir', { path: 'f/g' }))).toMatchObject({
      error: 'not_a_file',
      message: 'Not a directory: f/g',
    })
    expect(err(await tools.callTool('mkdir', { path: '../up' })).error).toBe('path_escape')
  })
})

describe('remove', () => {
  it('removes one file', async () => {
    const { root, tools } = workspace({ 'd/f.txt': 'x' })
    expect(ok(await tools.callTool('remove', { path: 'd/f.txt' }))).toBe('Removed d/f.txt.')
    expect(existsSync(join(root, 'd/f.txt'))).toBe(false)
  })

  it('errors: missing, a directory, a symlink (even to a directory), an escape', async () => {
    const outside = tempDir()
    const { root, tools } = workspace({ 'd/f.txt': 'x' })
    symlinkSync(join(root, 'd'), join(root, 'dl'))
    symlinkSync(outside, join(root, 'out'))
    expect(err(await tools.callTool('remove', { path: 'nope' }))).toMatchObject({
      error: 'not_found',
    })
    expect(err(await tools.callTool('remove', { path: 'd' }))).toMatchObject({
      error: 'not_a_file',
      message: 'Path is a directory (files only): d',
    })
    expect(err(await tools.callTool('remove', { path: 'dl' }))).toMatchObject({
      error: 'invalid_input',
      message: `Refusing to write through a symlink: ${join(root, 'dl')}`,
    })
    expect(existsSync(join(root, 'dl'))).toBe(true)
    for (const path of ['../x', 'out', join(outside, 'x')]) {
      expect(err(await tools.callTool('remove', { path })).error).toBe('path_escape')
    }
  })
})

describe('registry and surfaces', () => {
  const ten = [
    'read_image',
    'read_files',
    'replace',
    'diff',
    'move',
    'copy',
    'mkdir',
    'remove',
    'file_stat',
    'tree',
  ]

  it('the root lists the ten in the contract order; readOnlyTools keeps the five read tools', async () => {
    const root = await import('../index.js')
    const names = root.tools.map((t: { name: string }) => t.name).filter((n) => ten.includes(n))
    expect(names).toEqual([
      'read_image',
      'read_files',
      'replace',
      'diff',
      'move',
      'copy',
      'mkdir',
      'remove',
      'file_stat',
      'tree',
    ])
    const ro = root.readOnlyTools
      .map((t: { name: string }) => t.name)
      .filter((n) => ten.includes(n))
    expect(ro).toEqual(['read_image', 'read_files', 'diff', 'file_stat', 'tree'])
  })

  it('the v0.1 entry does not offer them', async () => {
    const seed = await import('../v0.1/index.js')
    const names = seed.tools.map((t: { name: string }) => t.name)
    for (const n of ten) expect(names).not.toContain(n)
    const t = seed.createAgentTools({ workspaceRoot: tempDir() })
    const r = await t.callTool('tree', {})
    expect(r.isError).toBe(true)
  })
})
