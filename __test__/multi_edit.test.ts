import { readdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import * as rootApi from '../index.js'
import { err, ok, tempDir, workspace, writeTree } from './helpers'

const binding = createRequire(import.meta.url)('../binding.js') as {
  testOnlyFailCommitOn(name: string | null): void
}
const text = (root: string, rel: string) => readFileSync(join(root, rel), 'utf8')

afterEach(() => binding.testOnlyFailCommitOn(null))

describe('multi_edit', () => {
  it('applies edits in order, each on the result of the previous one', async () => {
    const { root, tools } = workspace({ 'a.txt': 'alpha\nbeta\ngamma\n' })
    const r = await tools.callTool('multi_edit', {
      path: 'a.txt',
      edits: [
        { old_string: 'alpha', new_string: 'ALPHA' },
        { old_string: 'ALPHA\nbeta', new_string: 'ALPHA\nBETA' },
        { old_string: 'a', new_string: 'A', replace_all: true },
      ],
    })
    expect(ok(r)).toBe('Applied 3 edits to a.txt.')
    expect(text(root, 'a.txt')).toBe('ALPHA\nBETA\ngAmmA\n')
  })

  it('says "1 edit" for one edit', async () => {
    const { tools } = workspace({ 'a.txt': 'x\n' })
    const r = await tools.callTool('multi_edit', {
      path: 'a.txt',
      edits: [{ old_string: 'x', new_string: 'y' }],
    })
    expect(ok(r)).toBe('Applied 1 edit to a.txt.')
  })

  it('writes nothing when an edit fails, and names the failing edit', async () => {
    const file = 'one\ntwo\nthree\n'
    const { root, tools } = workspace({ 'a.txt': file })
    const e = err(
      await tools.callTool('multi_edit', {
        path: 'a.txt',
        edits: [
          { old_string: 'one', new_string: '1' },
          { old_string: 'four', new_string: '4' },
          { old_string: 'three', new_string: '3' },
        ],
      }),
    )
    expect(e).toMatchObject({ error: 'no_match', index: 1, path: 'a.txt' })
    expect(e.message).toBe(
      'edit[1]: old_string not found. It must match the file byte-for-byte (whitespace, indentation, and line breaks included) and must NOT include the line-number prefixes shown by read_file. Re-read the exact region and copy the text verbatim.',
    )
    expect(text(root, 'a.txt')).toBe(file)
  })

  it('names an ambiguous edit and lists its lines', async () => {
    const { tools } = workspace({ 'a.txt': 'x\ny\nx\n' })
    const e = err(
      await tools.callTool('multi_edit', {
        path: 'a.txt',
        edits: [{ old_string: 'x', new_string: 'z' }],
      }),
    )
    expect(e).toMatchObject({ error: 'ambiguous_match', index: 0, lines: [1, 3] })
    expect(e.message).toMatch(/^edit\[0\]: /)
  })

  it('refuses an identical pair before touching the file', async () => {
    const { tools } = workspace({ 'a.txt': 'x\n' })
    const e = err(
      await tools.callTool('multi_edit', {
        path: 'a.txt',
        edits: [
          { old_string: 'x', new_string: 'y' },
          { old_string: 'q', new_string: 'q' },
        ],
      }),
    )
    expect(e).toMatchObject({ error: 'invalid_input', index: 1 })
    expect(e.message).toMatch(/^edit\[1\]: new_string is identical/)
  })

  it('requires at least one edit and non-empty old_strings', async () => {
    const { tools } = workspace({ 'a.txt': 'x\n' })
    expect(err(await tools.callTool('multi_edit', { path: 'a.txt', edits: [] }))).toMatchObject({
      error: 'invalid_input',
      field: 'edits',
    })
    expect(
      err(
        await tools.callTool('multi_edit', {
          path: 'a.txt',
          edits: [{ old_string: '', new_string: 'x' }],
        }),
      ),
    ).toMatchObject({ error: 'invalid_input', field: 'edits[0].old_string' })
    expect(
      err(
        await tools.callTool('multi_edit', {
          path: 'a.txt',
          edits: [{ old_string: 'x', new_string: 'y', extra: 1 }],
        }),
      ).error,
    ).toBe('invalid_input')
  })

  it('adds a tolerant-match note counting the tolerant edits', async () => {
    const { root, tools } = workspace({ 'a.py': 'def f():\n    return 1\n' })
    const r = ok(
      await tools.callTool('multi_edit', {
        path: 'a.py',
        edits: [
          { old_string: 'def f():', new_string: 'def g():' },
          { old_string: 'return 1 \n', new_string: '    return 2\n' },
        ],
      }),
    )
    expect(r).toBe(
      'Applied 2 edits to a.py. (1 matched after a whitespace-tolerant search; each such region \u2014 including its leading indentation \u2014 was replaced verbatim, so re-read to verify.)',
    )
    expect(text(root, 'a.py')).toBe('def g():\n    return 2\n')
  })

  it('keeps CRLF, lone CR and the BOM of the untouched text', async () => {
    const file = '\uFEFFa\r\nb\rc\nd\r\n'
    const { root, tools } = workspace({ 'm.txt': file })
    ok(
      await tools.callTool('multi_edit', {
        path: 'm.txt',
        edits: [
          { old_string: 'a', new_string: 'A' },
          { old_string: 'd', new_string: 'D\nE' },
        ],
      }),
    )
    expect(readFileSync(join(root, 'm.txt')).toString()).toBe('\uFEFFA\r\nb\rc\nD\r\nE\r\n')
  })

  it('is all-or-nothing when the write itself fails (injected), leaving no temp file', async () => {
    const file = 'one\ntwo\n'
    const { root, tools } = workspace({ 'a.txt': file })
    binding.testOnlyFailCommitOn('a.txt')
    const e = err(
      await tools.callTool('multi_edit', {
        path: 'a.txt',
        edits: [
          { old_string: 'one', new_string: '1' },
          { old_string: 'two', new_string: '2' },
        ],
      }),
    )
    expect(e.error).toBe('io_error')
    expect(text(root, 'a.txt')).toBe(file)
    expect(readdirSync(root)).toEqual(['a.txt'])
  })

  it('refuses UTF-16, and edits a non-UTF-8 file byte-exactly like edit_file', async () => {
    const { root, tools } = workspace({
      'u.txt': Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from('\0a')]),
      'l.txt': Buffer.from([0x61, 0xe9, 0x0a, 0x62, 0x0a]),
    })
    const edits = [
      { old_string: 'a', new_string: 'A' },
      { old_string: 'b', new_string: 'B' },
    ]
    expect(err(await tools.callTool('multi_edit', { path: 'u.txt', edits }))).toMatchObject({
      error: 'is_binary',
      encoding: 'utf-16be',
    })
    expect(ok(await tools.callTool('multi_edit', { path: 'l.txt', edits }))).toBe(
      'Applied 2 edits to l.txt.',
    )
    expect([...readFileSync(join(root, 'l.txt'))]).toEqual([0x41, 0xe9, 0x0a, 0x42, 0x0a])
    const e = err(
      await tools.callTool('multi_edit', {
        path: 'l.txt',
        edits: [
          { old_string: 'A', new_string: 'a' },
          { old_string: 'B', new_string: 'ß' },
        ],
      }),
    )
    expect(e).toMatchObject({ error: 'invalid_input', index: 1 })
    expect(e.message).toMatch(/^edit\[1\]: l\.txt is not valid UTF-8/)
  })
})

describe('multi_edit at the package root (CONTRACT-v0.5 §6)', () => {
  it('notes the tolerant edits in the newest wording', async () => {
    const dir = tempDir()
    writeTree(dir, { 'a.py': 'def f():\n    return 1\n    return 3\n' })
    const tools = rootApi.createAgentTools({ workspaceRoot: dir })
    const r = await tools.callTool('multi_edit', {
      path: 'a.py',
      edits: [
        { old_string: 'def f():', new_string: 'def g():' },
        { old_string: 'return 1 \n', new_string: '    return 2\n' },
        { old_string: 'return 3 ', new_string: '    return 4' },
      ],
    })
    expect(r.isError).toBe(false)
    expect(rootApi.contentText(r.content)).toBe(
      'Applied 3 edits to a.py. (2 matched after a whitespace-tolerant search; each such region \u2014 including its leading indentation \u2014 was replaced verbatim, so re-read to verify.)',
    )
    expect(text(dir, 'a.py')).toBe('def g():\n    return 2\n    return 4\n')
  })
})
