import { chmodSync, lstatSync, readdirSync, readFileSync, statSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { listTools } from '../v0.1/index.js'
import { err, ok, tempDir, workspace } from './helpers'

/** Every name under `dir` (recursively), to prove no temp file is left behind. */
function allNames(dir: string): string[] {
  return readdirSync(dir, { recursive: true }).map(String)
}

describe('write_file', () => {
  it('creates a file and reports its byte count', async () => {
    const { root, tools } = workspace()
    const content = 'héllo\nwörld\n'
    expect(ok(await tools.callTool('write_file', { path: 'new.txt', content }))).toBe(
      `Wrote ${Buffer.byteLength(content)} bytes to new.txt (created).`,
    )
    expect(readFileSync(join(root, 'new.txt'), 'utf8')).toBe(content)
  })

  it('overwrites a file with exactly the given bytes', async () => {
    const { root, tools } = workspace({ 'a.txt': '\uFEFFold\r\ncontent\r\n' })
    const content = 'new\r\nmixed\nends\r'
    expect(ok(await tools.callTool('write_file', { path: 'a.txt', content }))).toBe(
      `Wrote ${Buffer.byteLength(content)} bytes to a.txt (overwritten).`,
    )
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe(content)
  })

  it('writes an empty file', async () => {
    const { root, tools } = workspace()
    expect(ok(await tools.callTool('write_file', { path: 'e.txt', content: '' }))).toBe(
      'Wrote 0 bytes to e.txt (created).',
    )
    expect(statSync(join(root, 'e.txt')).size).toBe(0)
  })

  it('creates missing parent directories', async () => {
    const { root, tools } = workspace()
    ok(await tools.callTool('write_file', { path: 'a/b/c/d.txt', content: 'deep' }))
    expect(readFileSync(join(root, 'a/b/c/d.txt'), 'utf8')).toBe('deep')
  })

  it('keeps the mode of an overwritten file', async () => {
    const { root, tools } = workspace({ 'run.sh': '#!/bin/sh\n' })
    chmodSync(join(root, 'run.sh'), 0o751)
    ok(await tools.callTool('write_file', { path: 'run.sh', content: '#!/bin/sh\necho hi\n' }))
    expect(statSync(join(root, 'run.sh')).mode & 0o777).toBe(0o751)
  })

  it('leaves no temp file behind', async () => {
    const { root, tools } = workspace({ 'a.txt': 'x' })
    ok(await tools.callTool('write_file', { path: 'a.txt', content: 'y' }))
    ok(await tools.callTool('write_file', { path: 'd/b.txt', content: 'z' }))
    expect(allNames(root).filter((n) => n.includes('.clarvis-tmp-'))).toEqual([])
  })

  it('refuses to write through a symlink and leaves link and target untouched', async () => {
    const { root, tools } = workspace({ 'target.txt': 'original' })
    symlinkSync('target.txt', join(root, 'link.txt'))
    const e = err(await tools.callTool('write_file', { path: 'link.txt', content: 'evil' }))
    expect(e).toMatchObject({ error: 'invalid_input', path: 'link.txt' })
    expect(e.message).toMatch(/symlink|symbolic link/)
    expect(lstatSync(join(root, 'link.txt')).isSymbolicLink()).toBe(true)
    expect(readFileSync(join(root, 'target.txt'), 'utf8')).toBe('original')
  })

  it('refuses a directory, an escaping path, and a parent that is a file', async () => {
    const { tools } = workspace({ 'd/x.txt': 'x', 'f.txt': 'file' })
    expect(err(await tools.callTool('write_file', { path: 'd', content: 'x' })).error).toBe(
      'not_a_file',
    )
    expect(
      err(await tools.callTool('write_file', { path: '../out.txt', content: 'x' })).error,
    ).toBe('path_escape')
    const e = err(await tools.callTool('write_file', { path: 'f.txt/child.txt', content: 'x' }))
    expect(e).toMatchObject({ error: 'not_a_file', path: 'f.txt/child.txt' })
  })

  it('validates its arguments', async () => {
    const { tools } = workspace()
    const missing = err(await tools.callTool('write_file', { path: 'a.txt' }))
    expect(missing.error).toBe('invalid_input')
    expect(missing.message).toContain('content')
    expect(err(await tools.callTool('write_file', { path: 'a.txt', content: 1 })).error).toBe(
      'invalid_input',
    )
    expect(
      err(await tools.callTool('write_file', { path: 'a.txt', content: '', mode: 1 })).error,
    ).toBe('invalid_input')
  })

  it('is hidden and refused under readOnly', async () => {
    const { tools } = workspace({}, { readOnly: true })
    expect(err(await tools.callTool('write_file', { path: 'a.txt', content: 'x' }))).toMatchObject({
      error: 'not_found',
      message: 'Unknown tool: write_file',
    })
    const root = tempDir()
    const names = listTools({
      workspaceRoot: root,
      maxOutputBytes: 131072,
      maxFileBytes: 20000000,
      bashTimeoutMs: 120000,
      bashTimeoutMaxMs: 600000,
      ripgrepAvailable: false,
      readOnly: true,
      confineToWorkspace: true,
    }).map((t) => t.name)
    expect(names).not.toContain('write_file')
  })
})
