import { symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { err, ok, tempDir, workspace } from './helpers'

describe('read_file', () => {
  it('numbers lines right-aligned in six columns with a tab', async () => {
    const { tools } = workspace({ 'a.txt': 'one\ntwo\n' })
    expect(ok(await tools.callTool('read_file', { path: 'a.txt' }))).toBe(
      '     1\tone\n     2\ttwo',
    )
  })

  it('says (empty file)', async () => {
    const { tools } = workspace({ 'e.txt': '' })
    expect(ok(await tools.callTool('read_file', { path: 'e.txt' }))).toBe('(empty file)')
  })

  it('pages with a continuation footer', async () => {
    const body = Array.from({ length: 10 }, (_, i) => `l${i + 1}`).join('\n')
    const { tools } = workspace({ 'p.txt': body })
    const text = ok(await tools.callTool('read_file', { path: 'p.txt', offset: 3, limit: 2 }))
    expect(text).toBe(
      '     3\tl3\n     4\tl4\n[... 2 of 10 lines shown; continue with offset=5 ...]',
    )
  })

  it('reads the tail with a negative offset and clamps past the start', async () => {
    const { tools } = workspace({ 'p.txt': 'a\nb\nc\nd\n' })
    expect(ok(await tools.callTool('read_file', { path: 'p.txt', offset: -2 }))).toBe(
      '     3\tc\n     4\td',
    )
    expect(ok(await tools.callTool('read_file', { path: 'p.txt', offset: -99 }))).toMatch(
      /^ {5}1\ta\n/,
    )
  })

  it('refuses offset 0 and an offset past the end (with line_count)', async () => {
    const { tools } = workspace({ 'p.txt': 'a\nb\n' })
    expect(err(await tools.callTool('read_file', { path: 'p.txt', offset: 0 })).error).toBe(
      'invalid_input',
    )
    const e = err(await tools.callTool('read_file', { path: 'p.txt', offset: 3 }))
    expect(e).toMatchObject({ error: 'invalid_input', line_count: 2 })
  })

  it('cuts lines over 2000 characters', async () => {
    const { tools } = workspace({ 'long.txt': `${'x'.repeat(2500)}\nshort\n` })
    const text = ok(await tools.callTool('read_file', { path: 'long.txt' }))
    expect(text).toBe(`     1\t${'x'.repeat(2000)} [... line truncated ...]\n     2\tshort`)
  })

  it('normalizes CRLF and lone CR, strips a UTF-8 BOM', async () => {
    const { tools } = workspace({ 'crlf.txt': '\uFEFFa\r\nb\rc\n' })
    expect(ok(await tools.callTool('read_file', { path: 'crlf.txt' }))).toBe(
      '     1\ta\n     2\tb\n     3\tc',
    )
  })

  it('decodes UTF-16 LE and BE with a BOM', async () => {
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('hé\nyo', 'utf16le')])
    const be = Buffer.from(le.subarray(2)).swap16()
    const { tools } = workspace({
      'le.txt': le,
      'be.txt': Buffer.concat([Buffer.from([0xfe, 0xff]), be]),
    })
    expect(ok(await tools.callTool('read_file', { path: 'le.txt' }))).toBe('     1\thé\n     2\tyo')
    expect(ok(await tools.callTool('read_file', { path: 'be.txt' }))).toBe('     1\thé\n     2\tyo')
  })

  it('refuses binary files, directories, missing files and oversized files', async () => {
    const { tools } = workspace(
      { 'bin.dat': Buffer.from([1, 2, 0, 3]), 'd/x.txt': 'x', 'big.txt': 'y'.repeat(5000) },
      { maxFileBytes: 4096 },
    )
    expect(err(await tools.callTool('read_file', { path: 'bin.dat' })).error).toBe('is_binary')
    expect(err(await tools.callTool('read_file', { path: 'd' })).error).toBe('not_a_file')
    expect(err(await tools.callTool('read_file', { path: 'nope.txt' }))).toMatchObject({
      error: 'not_found',
      path: 'nope.txt',
    })
    expect(err(await tools.callTool('read_file', { path: 'big.txt' }))).toMatchObject({
      error: 'too_large',
      size: 5000,
      limit: 4096,
    })
  })

  it('stops rows before the byte cap but always shows one', async () => {
    const line = 'z'.repeat(500)
    const { tools } = workspace(
      { 'w.txt': `${line}\n${line}\n${line}\n${line}\n` },
      { maxOutputBytes: 1024 },
    )
    const text = ok(await tools.callTool('read_file', { path: 'w.txt' }))
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(1024)
    expect(text).toMatch(/\[\.\.\. 1 of 4 lines shown; continue with offset=2 \.\.\.\]$/)
  })

  it('is confined: .. climbs, outside absolute paths, and symlinks out', async () => {
    const outside = tempDir()
    const { root, tools } = workspace({ 'in.txt': 'in' })
    symlinkSync(join(outside), join(root, 'outdir'))
    symlinkSync(join(outside, 'f.txt'), join(root, 'outfile'))
    for (const path of ['../x', join(outside, 'f.txt'), 'outdir/f.txt', 'outfile']) {
      expect(err(await tools.callTool('read_file', { path })).error).toBe('path_escape')
    }
  })
})
