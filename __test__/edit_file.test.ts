import { chmodSync, lstatSync, readdirSync, readFileSync, statSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import * as rootApi from '../index.js'
import { err, ok, tempDir, workspace, writeTree } from './helpers'

const read = (root: string, rel: string) => readFileSync(join(root, rel))
const text = (root: string, rel: string) => readFileSync(join(root, rel), 'utf8')

const NO_MATCH =
  'old_string not found. It must match the file byte-for-byte (whitespace, indentation, and line breaks included) and must NOT include the line-number prefixes shown by read_file. Re-read the exact region and copy the text verbatim.'
const wsHint = (at: string) =>
  ` The text is present at ${at} but its leading/trailing whitespace differs from old_string. Re-read that region with read_file and copy the indentation verbatim.`

describe('edit_file: exact matching', () => {
  it('replaces one unique occurrence', async () => {
    const { root, tools } = workspace({ 'a.txt': 'one\ntwo\nthree\n' })
    const r = await tools.callTool('edit_file', {
      path: 'a.txt',
      old_string: 'two',
      new_string: 'TWO',
    })
    expect(ok(r)).toBe('Replaced 1 occurrence in a.txt.')
    expect(text(root, 'a.txt')).toBe('one\nTWO\nthree\n')
  })

  it('replaces every occurrence with replace_all', async () => {
    const { root, tools } = workspace({ 'a.txt': 'x = 1; x = 2; x = 3\n' })
    const r = await tools.callTool('edit_file', {
      path: 'a.txt',
      old_string: 'x =',
      new_string: 'y =',
      replace_all: true,
    })
    expect(ok(r)).toBe('Replaced 3 occurrences in a.txt.')
    expect(text(root, 'a.txt')).toBe('y = 1; y = 2; y = 3\n')
  })

  it('deletes text when new_string is empty, and shows paths relative to the root', async () => {
    const { root, tools } = workspace({ 'src/a.txt': 'keep DROP keep\n' })
    const r = await tools.callTool('edit_file', {
      path: join(root, 'src/a.txt'),
      old_string: ' DROP',
      new_string: '',
    })
    expect(ok(r)).toBe('Replaced 1 occurrence in src/a.txt.')
    expect(text(root, 'src/a.txt')).toBe('keep keep\n')
  })

  it('refuses an ambiguous match and lists its line numbers', async () => {
    const { root, tools } = workspace({ 'a.txt': 'foo()\nbar()\nfoo()\nfoo()\n' })
    const e = err(
      await tools.callTool('edit_file', { path: 'a.txt', old_string: 'foo()', new_string: 'x' }),
    )
    expect(e).toMatchObject({ error: 'ambiguous_match', path: 'a.txt', lines: [1, 3, 4] })
    expect(e.message).toContain('lines 1, 3, 4')
    expect(e.message).toContain('replace_all')
    expect(text(root, 'a.txt')).toBe('foo()\nbar()\nfoo()\nfoo()\n')
  })

  it('refuses identical strings, an empty old_string, and unknown fields', async () => {
    const { tools } = workspace({ 'a.txt': 'a\n' })
    const same = err(
      await tools.callTool('edit_file', { path: 'a.txt', old_string: 'a', new_string: 'a' }),
    )
    expect(same.error).toBe('invalid_input')
    expect(same.message).toContain('identical')
    const empty = err(
      await tools.callTool('edit_file', { path: 'a.txt', old_string: '', new_string: 'b' }),
    )
    expect(empty).toMatchObject({ error: 'invalid_input', field: 'old_string' })
    expect(
      err(
        await tools.callTool('edit_file', {
          path: 'a.txt',
          old_string: 'a',
          new_string: 'b',
          fuzzy: true,
        }),
      ).error,
    ).toBe('invalid_input')
  })

  it('advertises the schema bounds', async () => {
    const { tools } = workspace()
    const def = tools.listTools().find((t) => t.name === 'edit_file')
    const schema = def?.inputSchema as {
      properties: Record<string, Record<string, unknown>>
      required: string[]
      additionalProperties: boolean
    }
    expect(schema.additionalProperties).toBe(false)
    expect(schema.properties.old_string.minLength).toBe(1)
    expect(schema.required.sort()).toEqual(['new_string', 'old_string', 'path'])
  })
})

describe('edit_file: the tolerant cascade', () => {
  const cases: Array<{
    tier: string
    file: string
    old: string
    new: string
    want: string
  }> = [
    {
      tier: 'indentation-flexible',
      file: 'fn a() {\n\tif x {\n\t\tgo();\n\t}\n}\n',
      old: 'if x {\n\tgo();\n}\n',
      new: '\tif x {\n\t\tstop();\n\t}\n',
      want: 'fn a() {\n\tif x {\n\t\tstop();\n\t}\n}\n',
    },
    {
      tier: 'per-line trimmed',
      file: 'def f():\n    return 1  \n',
      old: 'return 1\n',
      new: '    return 2\n',
      want: 'def f():\n    return 2\n',
    },
    {
      tier: 'whitespace-collapsed',
      file: 'let  total =   a + b;\n',
      old: 'let total = a + b;',
      new: 'let total = a - b;',
      want: 'let total = a - b;\n',
    },
    {
      tier: 'trimmed substring',
      file: 'call(alpha, beta)\n',
      old: '  alpha, beta ',
      new: 'gamma',
      want: 'call(gamma)\n',
    },
    {
      tier: 'Unicode punctuation',
      file: 'msg = \u201Chello\u201D \u2014 world\n',
      old: 'msg = "hello" - world',
      new: 'msg = "goodbye" - world',
      want: 'msg = \u201Cgoodbye\u201D \u2014 world\n',
    },
  ]
  for (const c of cases) {
    it(`${c.tier}: applies a unique match and says so`, async () => {
      const { root, tools } = workspace({ 'f.txt': c.file })
      const msg = ok(
        await tools.callTool('edit_file', {
          path: 'f.txt',
          old_string: c.old,
          new_string: c.new,
        }),
      )
      // CONTRACT-v0.5 §6: the seed's messages are unchanged at the newest contract, this one
      // included, so /v0.1 words it as the root does.
      expect(msg).toBe(
        'Replaced 1 occurrence in f.txt (matched after a whitespace-tolerant search; the matched region \u2014 including its leading indentation \u2014 was replaced by new_string verbatim, so re-read the file to verify the indentation is correct).',
      )
      expect(text(root, 'f.txt')).toBe(c.want)
    })
  }

  it('replaces the matched whole lines, indentation included, by new_string verbatim', async () => {
    const cases: Array<[string, string]> = [
      ['a\nb', 'X\n  c\n'],
      ['a\nb\n', 'X  c\n'],
    ]
    for (const [old, want] of cases) {
      const { root, tools } = workspace({ 'f.txt': '  a\n  b\n  c\n' })
      ok(await tools.callTool('edit_file', { path: 'f.txt', old_string: old, new_string: 'X' }))
      expect(text(root, 'f.txt')).toBe(want)
    }
  })

  it('refuses a tolerant match that finds several places', async () => {
    const file = '  total = 1 \nx\n\ttotal = 1\t\n'
    const { root, tools } = workspace({ 'f.txt': file })
    const e = err(
      await tools.callTool('edit_file', {
        path: 'f.txt',
        old_string: 'total = 1\n',
        new_string: 'total = 2\n',
      }),
    )
    expect(e).toMatchObject({ error: 'ambiguous_match', lines: [1, 3], count: 2 })
    expect(e.message).toBe(
      'old_string was not found exactly; after whitespace-tolerant matching it matched 2 regions (at lines 1, 3); it must be unique. Add surrounding lines, or correct the whitespace so it matches one region exactly.',
    )
    expect(text(root, 'f.txt')).toBe(file)
  })

  it('discards a disproportionate match: twice the lines', async () => {
    const file = 'result = compute(a,\n                 b)\n'
    const { root, tools } = workspace({ 'f.txt': file })
    const e = err(
      await tools.callTool('edit_file', {
        path: 'f.txt',
        old_string: 'compute(a, b)',
        new_string: 'compute(b, a)',
      }),
    )
    expect(e.error).toBe('no_match')
    expect(e.message).toBe(NO_MATCH + wsHint('line 1'))
    expect(text(root, 'f.txt')).toBe(file)
  })

  it('discards a disproportionate match: 500+ characters more', async () => {
    const file = `start${' '.repeat(700)}end\n`
    const { tools } = workspace({ 'f.txt': file })
    const e = err(
      await tools.callTool('edit_file', {
        path: 'f.txt',
        old_string: 'start end',
        new_string: 'x',
      }),
    )
    expect(e.error).toBe('no_match')
    expect(e.message).toBe(NO_MATCH + wsHint('line 1'))
  })

  it('replace_all uses exact matches only, and still gives the whitespace diagnosis', async () => {
    const { tools } = workspace({ 'f.txt': '    a = 1  \n' })
    const e = err(
      await tools.callTool('edit_file', {
        path: 'f.txt',
        old_string: 'a = 1 \n',
        new_string: 'a = 2\n',
        replace_all: true,
      }),
    )
    expect(e).toMatchObject({ error: 'no_match', path: 'f.txt' })
    expect(e.message).toBe(NO_MATCH + wsHint('line 1'))
  })
})

describe('edit_file: no_match diagnostics', () => {
  const body = 'function main() {\n  const total = compute(items, 3)\n  print(total)\n}\n'

  const miss = async (file: string, old: string, neu = 'z') => {
    const { tools } = workspace({ 'f.txt': file })
    const e = err(
      await tools.callTool('edit_file', { path: 'f.txt', old_string: old, new_string: neu }),
    )
    expect(e).toMatchObject({ error: 'no_match', path: 'f.txt' })
    expect(e.message.startsWith(NO_MATCH)).toBe(true)
    return e.message
  }

  it('is the bare message when no diagnosis applies', async () => {
    expect(await miss(body, 'const total = compute(things, 3)\nprint(total)')).toBe(NO_MATCH)
    expect(await miss('', 'anything')).toBe(NO_MATCH)
  })

  it('spots read_file line-number prefixes left in old_string', async () => {
    const m = await miss(body, '     2\t  const total = compute(items, 3)\n     3\t  print(total)')
    expect(m).toMatch(
      /^old_string not found\. .* It looks like old_string still contains read_file's line-number prefixes/,
    )
    expect(m).toContain('Without them it matches at line 2')
    expect(m).not.toContain('is present at')
  })

  it('reports the same text with different whitespace, with its line numbers', async () => {
    expect(await miss(body, 'compute(items,3)')).toBe(NO_MATCH + wsHint('line 2'))
    const twice = 'a(x, y)\nb\na(x,  y)\n'
    expect(await miss(twice, 'a(x,y)')).toBe(NO_MATCH + wsHint('lines 1, 3'))
  })
})

describe('edit_file: byte preservation', () => {
  const edit = async (content: Buffer | string, old: string, neu: string) => {
    const { root, tools } = workspace({ 'f.txt': content })
    ok(await tools.callTool('edit_file', { path: 'f.txt', old_string: old, new_string: neu }))
    return read(root, 'f.txt')
  }

  it('edits a CRLF file with LF strings and changes only the edited bytes', async () => {
    const out = await edit('a\r\nb\r\nc\r\n', 'b\nc', 'B\nC\nD')
    expect(out.toString()).toBe('a\r\nB\r\nC\r\nD\r\n')
  })

  it('keeps lone-CR terminators', async () => {
    expect((await edit('x\ry\rz\r', 'y', 'Y\nY2')).toString()).toBe('x\rY\rY2\rz\r')
  })

  it('keeps every untouched terminator of a mixed-ending file; new lines get the dominant one', async () => {
    const out = await edit('1\r\n2\n3\r4\r\n5\r\n', '3', 'three\nthree-b')
    // The line's own lone CR stays after it; the added line break gets the dominant CRLF.
    expect(out.toString()).toBe('1\r\n2\nthree\r\nthree-b\r4\r\n5\r\n')
    const kept = await edit('1\r\n2\n3\r4\r\n', '2\n3', 'two\nthree')
    expect(kept.toString()).toBe('1\r\ntwo\nthree\r4\r\n')
  })

  it('keeps a UTF-8 BOM and a missing final newline', async () => {
    const out = await edit('\uFEFFa\nb', 'b', 'B')
    expect([...out.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf])
    expect(out.toString()).toBe('\uFEFFa\nB')
  })

  it('keeps non-ASCII text around the edit byte for byte', async () => {
    const file = 'ünïcödé 🎉\r\nline two\r\n日本語\r\n'
    const out = await edit(file, 'two', '2')
    expect(out.equals(Buffer.from(file.replace('two', '2')))).toBe(true)
  })

  it('refuses UTF-16 with is_binary and an encoding field, leaving the file alone', async () => {
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('hello\n', 'utf16le')])
    const { root, tools } = workspace({ 'u.txt': le })
    const e = err(
      await tools.callTool('edit_file', { path: 'u.txt', old_string: 'hello', new_string: 'x' }),
    )
    expect(e).toMatchObject({ error: 'is_binary', encoding: 'utf-16le', path: 'u.txt' })
    expect(read(root, 'u.txt').equals(le)).toBe(true)
  })

  it('edits a non-UTF-8 (Latin-1) file byte-exactly', async () => {
    const latin1 = Buffer.from('caf\xe9 = 1\r\nbar\r\nna\xefve\r\n', 'latin1')
    const { root, tools } = workspace({ 'l.txt': latin1 })
    const r = await tools.callTool('edit_file', {
      path: 'l.txt',
      old_string: 'bar',
      new_string: 'baz\nqux',
    })
    expect(ok(r)).toBe('Replaced 1 occurrence in l.txt.')
    expect(
      read(root, 'l.txt').equals(
        Buffer.from('caf\xe9 = 1\r\nbaz\r\nqux\r\nna\xefve\r\n', 'latin1'),
      ),
    ).toBe(true)
  })

  it('refuses, in a non-UTF-8 file, U+FFFD in old_string and non-ASCII new_string', async () => {
    const latin1 = Buffer.from('caf\xe9 = 1\nbar\n', 'latin1')
    const { root, tools } = workspace({ 'l.txt': latin1 })
    const fffd = err(
      await tools.callTool('edit_file', {
        path: 'l.txt',
        old_string: 'caf\uFFFD = 1',
        new_string: 'cafe = 2',
      }),
    )
    expect(fffd).toMatchObject({ error: 'invalid_input', path: 'l.txt' })
    expect(fffd.message).toContain('not valid UTF-8')
    expect(fffd.message).toContain('U+FFFD')
    const utf8 = err(
      await tools.callTool('edit_file', { path: 'l.txt', old_string: 'bar', new_string: 'bär' }),
    )
    expect(utf8.error).toBe('invalid_input')
    expect(utf8.message).toContain('non-ASCII')
    expect(read(root, 'l.txt').equals(latin1)).toBe(true)
  })

  it('refuses binary files', async () => {
    const { tools } = workspace({ 'b.bin': Buffer.from([0x61, 0, 0x62]) })
    expect(
      err(await tools.callTool('edit_file', { path: 'b.bin', old_string: 'a', new_string: 'b' }))
        .error,
    ).toBe('is_binary')
  })
})

describe('edit_file: files and paths', () => {
  it('keeps the mode of the edited file', async () => {
    const { root, tools } = workspace({ 'run.sh': '#!/bin/sh\necho a\n' })
    chmodSync(join(root, 'run.sh'), 0o700)
    ok(await tools.callTool('edit_file', { path: 'run.sh', old_string: 'a', new_string: 'b' }))
    expect(statSync(join(root, 'run.sh')).mode & 0o777).toBe(0o700)
    expect(readdirSync(root)).toEqual(['run.sh'])
  })

  it('refuses a symlink, leaving link and target untouched', async () => {
    const { root, tools } = workspace({ 't.txt': 'hello\n' })
    symlinkSync('t.txt', join(root, 'l.txt'))
    const e = err(
      await tools.callTool('edit_file', { path: 'l.txt', old_string: 'hello', new_string: 'x' }),
    )
    expect(e).toMatchObject({ error: 'invalid_input', path: 'l.txt' })
    expect(lstatSync(join(root, 'l.txt')).isSymbolicLink()).toBe(true)
    expect(text(root, 't.txt')).toBe('hello\n')
  })

  it('maps missing files, directories, escapes and oversized files to their codes', async () => {
    const { tools } = workspace(
      { 'd/x.txt': 'x', 'big.txt': 'y'.repeat(3000) },
      { maxFileBytes: 2048 },
    )
    const call = (path: string) =>
      tools.callTool('edit_file', { path, old_string: 'y', new_string: 'z' })
    expect(err(await call('nope.txt'))).toMatchObject({ error: 'not_found', path: 'nope.txt' })
    expect(err(await call('d')).error).toBe('not_a_file')
    expect(err(await call('../x.txt')).error).toBe('path_escape')
    expect(err(await call('big.txt'))).toMatchObject({
      error: 'too_large',
      size: 3000,
      limit: 2048,
    })
  })
})

describe('edit_file at the package root (CONTRACT-v0.5 §6)', () => {
  const agent = (files: Record<string, string>) => {
    const dir = tempDir()
    writeTree(dir, files)
    return { dir, tools: rootApi.createAgentTools({ workspaceRoot: dir }) }
  }

  it('discloses a tolerant match in the newest wording, replacing the lines verbatim', async () => {
    const { dir, tools } = agent({ 'f.txt': '  a\n  b\n  c\n' })
    const r = await tools.callTool('edit_file', {
      path: 'f.txt',
      old_string: 'a\nb',
      new_string: 'X',
    })
    expect(r.isError).toBe(false)
    expect(rootApi.contentText(r.content)).toBe(
      'Replaced 1 occurrence in f.txt (matched after a whitespace-tolerant search; the matched region \u2014 including its leading indentation \u2014 was replaced by new_string verbatim, so re-read the file to verify the indentation is correct).',
    )
    expect(text(dir, 'f.txt')).toBe('X\n  c\n')
  })

  it('keeps the exact-match and no_match messages of the seed', async () => {
    const { tools } = agent({ 'f.txt': 'one\nfoo(x,y)\n' })
    const r = await tools.callTool('edit_file', {
      path: 'f.txt',
      old_string: 'one',
      new_string: '1',
    })
    expect(rootApi.contentText(r.content)).toBe('Replaced 1 occurrence in f.txt.')
    const miss = await tools.callTool('edit_file', {
      path: 'f.txt',
      old_string: 'foo(x, y)',
      new_string: 'z',
    })
    expect(miss.isError).toBe(true)
    expect(JSON.parse(rootApi.contentText(miss.content))).toEqual({
      error: 'no_match',
      message: NO_MATCH + wsHint('line 2'),
      path: 'f.txt',
    })
  })
})
