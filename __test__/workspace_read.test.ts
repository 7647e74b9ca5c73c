// Contract tests for read_files, read_image, file_stat and tree (v0.5 §2), through the public
// API.
import { execFileSync } from 'node:child_process'
import { chmodSync, mkdirSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createAgentTools } from '../index.js'
import { err, isolateGitHome, ok, tempDir, workspace } from './root-helpers'

/** A 3x2 PNG header: signature and IHDR. */
function png(): Buffer {
  const b = Buffer.alloc(33)
  Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex').copy(b)
  b.writeUInt32BE(3, 16)
  b.writeUInt32BE(2, 20)
  return b
}

describe('read_files', () => {
  it('renders sections like read_file, with inline errors', async () => {
    const outside = tempDir()
    const { tools } = workspace({
      'a.txt': 'one\r\ntwo\n',
      'e.txt': '',
      'u16.txt': Buffer.from('\ufeffhi\n', 'utf16le'),
      'bin.dat': Buffer.from([1, 0, 2]),
      'd/x': '',
    })
    const out = ok(
      await tools.callTool('read_files', {
        paths: ['./a.txt', 'e.txt', 'u16.txt', 'missing', 'bin.dat', 'd', '../up', outside],
      }),
    )
    const sections = out.split('\n\n')
    expect(sections.slice(0, 3)).toEqual([
      '==> ./a.txt <==\n     1\tone\n     2\ttwo',
      '==> e.txt <==\n(empty file)',
      '==> u16.txt <==\n     1\thi',
    ])
    expect(sections[3]).toMatch(/^==> missing \u2014 not_found: .* <==$/)
    expect(sections[4]).toMatch(/^==> bin\.dat \u2014 is_binary: .* <==$/)
    expect(sections[5]).toMatch(/^==> d \u2014 not_a_file: .* <==$/)
    expect(sections[6]).toMatch(/^==> \.\.\/up \u2014 path_escape: .* <==$/)
    expect(sections[7]).toMatch(/ \u2014 path_escape: /)
  })

  it('shares one budget: cuts a file, then drops the rest', async () => {
    const body = Array.from({ length: 300 }, (_, i) => `line ${i}`).join('\n')
    const { tools } = workspace({ a: body, b: body, c: body }, { maxOutputBytes: 2048 })
    const r = await tools.callTool('read_files', { paths: ['a', 'b', 'c'] })
    const out = ok(r)
    expect(out).toMatch(/\n\[\.\.\. \d+ of 300 lines shown; use read_file for the rest \.\.\.\]/)
    expect(out.endsWith('more file(s) not shown; call read_files with fewer paths ...]')).toBe(true)
    // The first section's rows stay within budget - header - 1.
    const first = out.split('\n[... ')[0]
    expect(Buffer.byteLength(first)).toBeLessThanOrEqual(2048)
  })

  it('keeps line cuts and always shows one row', async () => {
    const { tools } = workspace({ long: 'x'.repeat(5000) }, { maxOutputBytes: 1024 })
    const out = ok(await tools.callTool('read_files', { paths: ['long'] }))
    expect(out).toContain(' [... line truncated ...]')
  })

  it('validates 1 to 64 paths', async () => {
    const { tools } = workspace()
    expect(err(await tools.callTool('read_files', { paths: [] })).error).toBe('invalid_input')
    const many = Array.from({ length: 65 }, (_, i) => `f${i}`)
    expect(err(await tools.callTool('read_files', { paths: many })).error).toBe('invalid_input')
    const max = Array.from({ length: 64 }, (_, i) => `f${i}`)
    expect(ok(await tools.callTool('read_files', { paths: max })).split('\n\n')).toHaveLength(64)
  })
})

describe('read_image', () => {
  it('returns exactly one image part, with the size in meta when extras are on', async () => {
    const { root, tools } = workspace({ 'pic.dat': png() })
    const part = { type: 'image', data: png().toString('base64'), mimeType: 'image/png' }
    // The contract's result: the part alone (CONTRACT-v0.5 §2).
    expect(await tools.callTool('read_image', { path: 'pic.dat' })).toEqual({
      isError: false,
      content: [part],
    })
    const extras = createAgentTools({ workspaceRoot: root, extras: true })
    const r = await extras.callTool('read_image', { path: 'pic.dat' })
    expect(r.content).toEqual([part])
    expect(r.meta).toEqual({ mimeType: 'image/png', bytes: 33, width: 3, height: 2 })
  })

  it.each([
    ['image/jpeg', Buffer.from('ffd8ffe000104a464946', 'hex')],
    ['image/gif', Buffer.from('GIF87a\x01\x00\x01\x00', 'latin1')],
    ['image/webp', Buffer.from('RIFF\x00\x00\x00\x00WEBPVP8 ', 'latin1')],
  ])('sniffs %s by magic bytes', async (mime, bytes) => {
    const { tools } = workspace({ 'x.png': bytes })
    const r = await tools.callTool('read_image', { path: 'x.png' })
    expect(r.content).toEqual([{ type: 'image', data: bytes.toString('base64'), mimeType: mime }])
  })

  it('errors: not an image, a directory, too large, missing, an escape', async () => {
    const big = Buffer.concat([png(), Buffer.alloc(2000)])
    const { tools } = workspace({ 'a.png': 'plain text', 'd/x': '', 'big.png': big }, {
      maxImageBytes: 1024,
    } as never)
    expect(err(await tools.callTool('read_image', { path: 'a.png' }))).toEqual({
      error: 'not_an_image',
      message: 'Not a supported image (expected png, jpeg, gif, or webp): a.png',
      path: 'a.png',
    })
    expect(err(await tools.callTool('read_image', { path: 'd' }))).toMatchObject({
      error: 'not_a_file',
      message: 'Path is a directory: d',
    })
    const large = err(await tools.callTool('read_image', { path: 'big.png' }))
    expect(large).toMatchObject({ error: 'too_large', size: 2033, limit: 1024 })
    expect(large.message.endsWith('(raise MAX_IMAGE_BYTES): big.png')).toBe(true)
    expect(err(await tools.callTool('read_image', { path: 'nope.png' })).error).toBe('not_found')
    expect(err(await tools.callTool('read_image', { path: '../x.png' })).error).toBe('path_escape')
  })
})

describe('file_stat', () => {
  it('describes files, directories and symlinks with keys in order', async () => {
    const { root, tools } = workspace({ 'a.txt': 'hello', 'p.png': png(), 'd/x': '' })
    chmodSync(join(root, 'a.txt'), 0o640)
    utimesSync(join(root, 'a.txt'), 1700000000.5, 1700000000.5)
    symlinkSync('a.txt', join(root, 'l'))
    symlinkSync('nowhere', join(root, 'dangling'))
    expect(ok(await tools.callTool('file_stat', { path: 'a.txt' }))).toBe(
      '{"path":"a.txt","type":"file","size":5,"mtime":"2023-11-14T22:13:20.500Z","mode":"0640","binary":false,"mime":null}',
    )
    const p = JSON.parse(ok(await tools.callTool('file_stat', { path: 'p.png' })))
    expect([p.binary, p.mime]).toEqual([true, 'image/png'])
    const d = JSON.parse(ok(await tools.callTool('file_stat', { path: 'd' })))
    expect(Object.keys(d)).toEqual(['path', 'type', 'size', 'mtime', 'mode'])
    expect(d.type).toBe('directory')
    const l = JSON.parse(ok(await tools.callTool('file_stat', { path: 'l' })))
    expect(Object.keys(l)).toEqual(['path', 'type', 'size', 'mtime', 'mode', 'symlink_target'])
    expect([l.type, l.symlink_target]).toEqual(['symlink', 'a.txt'])
    expect(JSON.parse(ok(await tools.callTool('file_stat', { path: '.' }))).path).toBe('.')
  })

  it('gives mtime as Node does: the Date of lstat, rounded to the millisecond', async () => {
    // v0.5 §2: "`mtime` is `Date.toISOString()`": Node's `Math.round(sec * 1e3 + nsec / 1e6)`,
    // so about half of fresh files (nanosecond mtimes) differ from a cut to the millisecond.
    const { root, tools } = workspace()
    for (let i = 0; i < 40; i++) {
      writeFileSync(join(root, `f${i}`), `${i}`)
      const stat = JSON.parse(ok(await tools.callTool('file_stat', { path: `f${i}` })))
      expect(stat.mtime).toBe(statSync(join(root, `f${i}`)).mtime.toISOString())
    }
    // Before 1970 the fraction is kept and rounded the same way (Node's utimes cannot set a
    // negative time, touch can).
    for (const [name, at, iso] of [
      ['old1', '@-0.5', '1969-12-31T23:59:59.500Z'],
      ['old2', '@-1.7', '1969-12-31T23:59:58.300Z'],
      ['old3', '@-0.0005', '1970-01-01T00:00:00.000Z'],
    ]) {
      writeFileSync(join(root, name), '')
      execFileSync('touch', ['-m', '-d', at, join(root, name)])
      const stat = JSON.parse(ok(await tools.callTool('file_stat', { path: name })))
      expect(statSync(join(root, name)).mtime.toISOString()).toBe(iso)
      expect(stat.mtime).toBe(iso)
    }
  })

  it('reports UTF-16 as binary and works past maxFileBytes', async () => {
    const { tools } = workspace(
      { 'u.txt': Buffer.from('\ufeffhi', 'utf16le'), 'big.txt': 'x'.repeat(5000) },
      { maxFileBytes: 1024 },
    )
    expect(JSON.parse(ok(await tools.callTool('file_stat', { path: 'u.txt' }))).binary).toBe(true)
    expect(JSON.parse(ok(await tools.callTool('file_stat', { path: 'big.txt' }))).size).toBe(5000)
  })

  it('errors: missing, an escape', async () => {
    const outside = tempDir()
    const { root, tools } = workspace()
    symlinkSync(outside, join(root, 'out'))
    expect(err(await tools.callTool('file_stat', { path: 'nope' }))).toMatchObject({
      error: 'not_found',
    })
    for (const path of ['..', outside, 'out']) {
      expect(err(await tools.callTool('file_stat', { path })).error).toBe('path_escape')
    }
  })
})

describe('tree', () => {
  isolateGitHome()

  it('draws the tree: directories first, labels, ignore stack', async () => {
    const { root, tools } = workspace({
      'b.txt': '12',
      'a/x.rs': '1',
      'a/sub/y': '',
      'Z/z': 'zzz',
      '.gitignore': '*.log\n',
      'skip.log': 'x',
      '.git/HEAD': 'x',
    })
    symlinkSync(join(root, 'a'), join(root, 'link'))
    expect(ok(await tools.callTool('tree', {}))).toBe(
      [
        '.',
        '├── Z/',
        '│   └── z\t3',
        '├── a/',
        '│   ├── sub/',
        '│   │   └── y\t0',
        '│   └── x.rs\t1',
        '├── .gitignore\t6',
        '├── b.txt\t2',
        '└── link@',
      ].join('\n'),
    )
    expect(ok(await tools.callTool('tree', { path: 'a', depth: 1 }))).toBe(
      'a\n├── sub/\n└── x.rs\t1',
    )
    const all = ok(await tools.callTool('tree', { depth: 1, respect_gitignore: false }))
    expect(all).toContain('├── .git/')
    expect(all).toContain('skip.log\t1')
  })

  it('depth 0 means 4, and depth is clamped to 20', async () => {
    const deep = `${Array.from({ length: 25 }, (_, i) => `d${i}`).join('/')}/f`
    const { tools } = workspace({ [deep]: '' })
    expect(ok(await tools.callTool('tree', { depth: 0 })).split('\n')).toHaveLength(5)
    expect(ok(await tools.callTool('tree', { depth: 99 })).split('\n')).toHaveLength(21)
  })

  it('says (no entries), and errors: a file, missing, an escape', async () => {
    const outside = tempDir()
    const { root, tools } = workspace({ f: 'x' })
    mkdirSync(join(root, 'e'))
    symlinkSync(outside, join(root, 'out'))
    expect(ok(await tools.callTool('tree', { path: 'e' }))).toBe('e\n(no entries)')
    expect(err(await tools.callTool('tree', { path: 'f' }))).toMatchObject({
      error: 'not_a_file',
      message: 'Not a directory: f',
    })
    expect(err(await tools.callTool('tree', { path: 'nope' })).error).toBe('not_found')
    for (const path of ['..', outside, 'out']) {
      expect(err(await tools.callTool('tree', { path })).error).toBe('path_escape')
    }
    expect(err(await tools.callTool('tree', { depth: -1 })).error).toBe('invalid_input')
  })
})
