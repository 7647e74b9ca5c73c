// Contract tests for diff and replace (v0.5 §2) and the shared unified-diff format (§1,
// `meta.diff`), checked against jsdiff itself (the `diff` package) over random inputs.
import { readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createTwoFilesPatch } from 'diff'
import { describe, expect, it } from 'vitest'
import { err, isolateGitHome, ok, tempDir, workspace } from './root-helpers'

/** A small deterministic generator, so a failure can be replayed. */
function rng(seed: number) {
  let s = seed
  return (n: number) => {
    s = (s * 1103515245 + 12345) % 2147483648
    return s % n
  }
}

describe('diff', () => {
  it('matches jsdiff createTwoFilesPatch byte for byte on random files', async () => {
    const { root, tools } = workspace()
    const next = rng(7)
    const pieces = ['a\n', 'b\n', 'c\n', '\n', 'x', 'dd\n', 'a', '  e\n']
    const gen = (n: number) => Array.from({ length: n }, () => pieces[next(pieces.length)]).join('')
    for (let i = 0; i < 300; i++) {
      const a = gen(next(40))
      const b =
        next(3) === 0
          ? gen(next(40))
          : a
              .split('\n')
              .map((l) => (next(6) === 0 ? `${l}z` : l))
              .filter(() => next(10) !== 0)
              .join('\n')
      writeFileSync(join(root, 'old.txt'), a)
      writeFileSync(join(root, 'new.txt'), b)
      const out = ok(await tools.callTool('diff', { from: 'old.txt', to: 'new.txt' }))
      if (a === b) {
        expect(out).toBe('(no differences)')
      } else {
        const want = createTwoFilesPatch('old.txt', 'new.txt', a, b, undefined, undefined, {
          context: 3,
        })
        expect(out, JSON.stringify({ a, b })).toBe(want)
      }
    }
  })

  // The line diff skips the lines both texts share at their ends (CONTRACT-v0.5 §1, `meta.diff`
  // is exactly jsdiff's createTwoFilesPatch): long shared heads and tails of repeated lines,
  // so the lines around a change also occur inside it, must still give jsdiff's bytes.
  it('edit_file meta.diff matches jsdiff when long ends are shared', async () => {
    const { root, tools } = workspace()
    const next = rng(11)
    const pool = ['a\n', 'b\n', '}\n', '\n', 'a\n', 'return x;\n']
    const gen = (n: number) => Array.from({ length: n }, () => pool[next(pool.length)]).join('')
    for (let i = 0; i < 120; i++) {
      const [head, tail] = [gen(next(200)), gen(next(200))]
      const middle = `${gen(next(4))}MARK ${i}\n${gen(next(4))}`
      const before = `${head}${middle}${tail}${next(2) ? '' : 'last'}`
      writeFileSync(join(root, 'f.txt'), before)
      const replacement = [gen(next(5)) || 'x\n', `MARK ${i}!\n${gen(next(3))}`, '', 'a\nb\n'][
        next(4)
      ]
      const r = await tools.callTool('edit_file', {
        path: 'f.txt',
        old_string: `MARK ${i}\n`,
        new_string: replacement,
      })
      ok(r)
      const after = readFileSync(join(root, 'f.txt'), 'utf8')
      expect(after).toBe(before.replace(`MARK ${i}\n`, replacement))
      const want = createTwoFilesPatch('f.txt', 'f.txt', before, after, undefined, undefined, {
        context: 3,
      })
      expect(r.meta?.diff, JSON.stringify({ before, after })).toBe(want)
    }
  })

  it('normalizes line endings and the BOM, and names differing files without Index', async () => {
    const { tools } = workspace({
      'a.txt': 'x\r\ny\r\n',
      'b.txt': '\ufeffx\ny\n',
      'c.txt': 'x\nz',
      'u16.txt': Buffer.from('\ufeffx\ny\n', 'utf16le'),
    })
    expect(ok(await tools.callTool('diff', { from: 'a.txt', to: 'b.txt' }))).toBe(
      '(no differences)',
    )
    expect(ok(await tools.callTool('diff', { from: 'u16.txt', to: 'a.txt' }))).toBe(
      '(no differences)',
    )
    expect(ok(await tools.callTool('diff', { from: 'a.txt', to: 'c.txt' }))).toBe(
      [
        '===================================================================',
        '--- a.txt',
        '+++ c.txt',
        '@@ -1,2 +1,2 @@',
        ' x',
        '-y',
        '+z',
        '\\ No newline at end of file',
        '',
      ].join('\n'),
    )
  })

  it('errors per operand, from first', async () => {
    const { tools } = workspace({ 'a.txt': 'x', bin: Buffer.from([0, 1]), 'd/x': '' })
    const call = (from: string, to: string) => tools.callTool('diff', { from, to })
    expect(err(await call('nope', '../x'))).toMatchObject({ error: 'not_found' })
    expect(err(await call('a.txt', '../x')).error).toBe('path_escape')
    expect(err(await call('a.txt', 'bin')).error).toBe('is_binary')
    expect(err(await call('d', 'a.txt')).error).toBe('not_a_file')
    expect(err(await tools.callTool('diff', { from: 'a.txt' })).error).toBe('invalid_input')
  })

  it('is too_large past maxFileBytes', async () => {
    const { tools } = workspace({ big: 'x'.repeat(2000), s: 'x' }, { maxFileBytes: 1024 })
    expect(err(await tools.callTool('diff', { from: 's', to: 'big' }))).toMatchObject({
      error: 'too_large',
      size: 2000,
      limit: 1024,
    })
  })
})

describe('replace', () => {
  isolateGitHome()

  it('dry run by default: counts and per-file patches, nothing written', async () => {
    const { root, tools } = workspace({ 'a.txt': 'foo 1\nfoo 2\n', 'b/c.txt': 'x foo\n' })
    const out = ok(
      await tools.callTool('replace', { pattern: 'foo (\\d)', replacement: 'bar $1', path: '.' }),
    )
    const a = createTwoFilesPatch(
      'a.txt',
      'a.txt',
      'foo 1\nfoo 2\n',
      'bar 1\nbar 2\n',
      undefined,
      undefined,
      { context: 3 },
    )
    expect(out).toBe(
      `2 replacement(s) across 1 file(s); 2 scanned (dry run \u2014 pass dry_run: false to apply)\n\n${a}`,
    )
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('foo 1\nfoo 2\n')
  })

  it('takes JavaScript look-around and backreferences, as String.prototype.replace does', async () => {
    // CONTRACT-v0.5 §2 replace: "Regex: JavaScript `RegExp` with flags `g`".
    const text = 'foo bar foo baz\naa ab bb\n$5 and 7\n'
    const { root, tools } = workspace({ 'f.txt': text })
    for (const [pattern, replacement] of [
      ['foo(?= bar)', 'X'],
      ['(\\w)\\1', '<$1>'],
      ['(?<=\\$)\\d', 'N'],
      ['(?<c>o)\\k<c>', '[$<c>]'],
    ]) {
      writeFileSync(join(root, 'f.txt'), text)
      ok(await tools.callTool('replace', { pattern, replacement, path: 'f.txt', dry_run: false }))
      const want = text.replace(new RegExp(pattern, 'g'), replacement)
      expect(readFileSync(join(root, 'f.txt'), 'utf8'), pattern).toBe(want)
    }
  })

  it('reads patterns as JavaScript does, and refuses them with V8’s own message', async () => {
    // CONTRACT-v0.5 §2 replace: "Regex: JavaScript `RegExp` with flags `g`, `ms` if multiline,
    // `i` if ignore_case"; "Bad regex → `Invalid regex: <engine message>`", the engine being
    // the reference's V8. Every expectation comes from JavaScript itself.
    const text = 'x{ a{,2} \\k p{L} \u2028 A.b a\rb \ufeff \u0001 éé kK\nfoo\tbar ٣3 [x] (y)\n'
    const { root, tools } = workspace({ 'f.txt': text })
    const cases: [string, boolean, boolean][] = []
    for (const pattern of [
      'x{',
      'a{,2}',
      '\\k',
      '\\p{L}',
      '\\s',
      '.',
      'a.b',
      '^\\w+$',
      '\\d',
      '\\b\\w',

      '\\101',
      '\\1',
      '\\cA',
      '[\\d-]',
      '[]a]|\\]',
      '(?=o)+o',
      '\\bfoo(?=\\tbar)',
      'é{2}',
      'k',
      '(?<n>o)\\k<n>',
      '(',
      ')',
      '[',
      '*',
      'a{2,1}',
      '(?<n>a)(?<n>b)',
      '(?i)x',
      '\\',
      '[z-a]',
      '(?<n>a)\\k<m>',
      '(?<=a)*',
      '(?<1>a)',
    ]) {
      for (const [ignore_case, multiline] of [
        [false, false],
        [true, false],
        [false, true],
        [true, true],
      ]) {
        cases.push([pattern, ignore_case, multiline])
      }
    }
    for (const [pattern, ignore_case, multiline] of cases) {
      writeFileSync(join(root, 'f.txt'), text)
      const flags = `g${ignore_case ? 'i' : ''}${multiline ? 'ms' : ''}`
      const r = await tools.callTool('replace', {
        pattern,
        replacement: '<$&>',
        path: 'f.txt',
        dry_run: false,
        ignore_case,
        multiline,
      })
      const label = `/${pattern}/${flags}`
      let re: RegExp
      try {
        re = new RegExp(pattern, flags)
      } catch (e) {
        expect(err(r), label).toEqual({
          error: 'invalid_input',
          message: `Invalid regex: ${(e as Error).message}`,
          pattern,
        })
        continue
      }
      const want = text.replace(re, '<$&>')
      if (want === text) expect(ok(r), label).toBe('(no matches)')
      else ok(r)
      expect(readFileSync(join(root, 'f.txt'), 'utf8'), label).toBe(want)
    }
  })

  it('applies atomically, keeping EOLs, BOM and undecodable bytes; meta.diff joins patches', async () => {
    const { root, tools } = workspace({
      'crlf.txt': 'foo\r\nkeep\r\nfoo\r\n',
      'bom.txt': '\ufefffoo\n',
      'latin1.txt': Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x20, 0x66, 0x6f, 0x6f, 0x0a]),
      'bin.dat': Buffer.from('foo\0'),
      'skip.txt': 'nothing here\n',
    })
    const r = await tools.callTool('replace', {
      pattern: 'foo',
      replacement: 'qux',
      path: '.',
      dry_run: false,
    })
    expect(ok(r)).toBe(
      [
        'Replaced 4 occurrence(s) in 3 file(s):',
        '  M bom.txt (1 replacement)',
        '  M crlf.txt (2 replacements)',
        '  M latin1.txt (1 replacement)',
      ].join('\n'),
    )
    const patch = (rel: string, a: string, b: string) =>
      createTwoFilesPatch(rel, rel, a, b, undefined, undefined, { context: 3 })
    expect(r.meta?.diff).toBe(
      [
        patch('bom.txt', 'foo\n', 'qux\n'),
        patch('crlf.txt', 'foo\nkeep\nfoo\n', 'qux\nkeep\nqux\n'),
        patch('latin1.txt', 'caf\ufffd foo\n', 'caf\ufffd qux\n'),
      ].join('\n'),
    )
    expect(readFileSync(join(root, 'crlf.txt'), 'utf8')).toBe('qux\r\nkeep\r\nqux\r\n')
    expect(readFileSync(join(root, 'bom.txt'), 'utf8')).toBe('\ufeffqux\n')
    expect([...readFileSync(join(root, 'latin1.txt'))]).toEqual([
      0x63, 0x61, 0x66, 0xe9, 0x20, 0x71, 0x75, 0x78, 0x0a,
    ])
    expect(readFileSync(join(root, 'bin.dat'), 'utf8')).toBe('foo\0')
  })

  it('scopes by path and glob; JS regex and replacement semantics', async () => {
    const { tools } = workspace({
      'src/a.ts': 'let x = 1;\n',
      'src/deep/b.ts': 'let y = 2;\n',
      'src/c.md': 'let z = 3;\n',
      '.gitignore': 'gen/\n',
      'gen/d.ts': 'let w = 4;\n',
    })
    const call = (args: Record<string, unknown>) =>
      tools.callTool('replace', { pattern: 'let (?<n>\\w)', replacement: 'const $<n>', ...args })
    expect(ok(await call({ glob: '*.ts' }))).toMatch(
      /^2 replacement\(s\) across 2 file\(s\); 2 scanned/,
    )
    expect(ok(await call({ path: 'src', glob: 'deep/*.ts' }))).toMatch(
      /across 1 file\(s\); 1 scanned/,
    )
    expect(ok(await call({ path: 'src/c.md', glob: '*.ts' }))).toContain('+const z = 3;')
    expect(ok(await call({ path: 'src', glob: '*.zig' }))).toBe('(no matches)')
    const js = await tools.callTool('replace', {
      pattern: '^let',
      replacement: '$$$&',
      path: 'src/a.ts',
      dry_run: false,
    })
    // `$let x` no longer parses as TypeScript: the contract's warning line follows the rows.
    expect(ok(js)).toBe(
      'Replaced 1 occurrence(s) in 1 file(s):\n  M src/a.ts (1 replacement)\n' +
        'warning: typescript syntax error in src/a.ts at line 1, column 6 (near `$let x = 1;`); run check_syntax for details.',
    )
    const multi = await tools.callTool('replace', {
      pattern: '^LET',
      replacement: 'var',
      path: 'src',
      multiline: true,
      ignore_case: true,
    })
    expect(ok(multi)).toMatch(/^2 replacement\(s\) across 2 file\(s\)/)
  })

  it('errors', async () => {
    const outside = tempDir()
    const { root, tools } = workspace({ 'a.txt': 'foo\n', 'real.txt': 'foo\n' })
    symlinkSync(join(root, 'real.txt'), join(root, 'z.txt'))
    symlinkSync(outside, join(root, 'out'))
    const call = (args: Record<string, unknown>) =>
      tools.callTool('replace', { pattern: 'foo', replacement: 'bar', ...args })
    expect(err(await call({}))).toEqual({
      error: 'invalid_input',
      message: 'Provide `path` or `glob` to scope the replacement.',
    })
    expect(err(await call({ path: '', glob: '' })).error).toBe('invalid_input')
    const bad = err(await call({ path: '.', pattern: '(' }))
    expect(bad).toMatchObject({ error: 'invalid_input', pattern: '(' })
    expect(bad.message).toBe('Invalid regex: Invalid regular expression: /(/g: Unterminated group')
    expect(err(await call({ path: '.', pattern: 'a*' }))).toEqual({
      error: 'invalid_input',
      message:
        'pattern matches the empty string; refusing to insert the replacement between every character.',
      pattern: 'a*',
    })
    expect(err(await call({ path: 'nope' })).error).toBe('not_found')
    for (const path of ['..', outside, 'out']) {
      expect(err(await call({ path })).error).toBe('path_escape')
    }
    expect(err(await call({ path: '.', dry_run: false }))).toEqual({
      error: 'invalid_input',
      message: `Refusing to write through a symlink: ${join(root, 'z.txt')}`,
      path: join(root, 'z.txt'),
    })
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('foo\n')
    expect(readFileSync(join(root, 'real.txt'), 'utf8')).toBe('foo\n')
  })
})

describe('meta.diff on edits', () => {
  const patch = (rel: string, a: string, b: string) =>
    createTwoFilesPatch(rel, rel, a, b, undefined, undefined, { context: 3 })

  it('edit_file and multi_edit diff the LF-normalized, BOM-stripped text', async () => {
    const { tools } = workspace({ 'a.txt': '\ufeffone\r\ntwo\r\nthree\r\n' })
    const r = await tools.callTool('edit_file', {
      path: 'a.txt',
      old_string: 'two',
      new_string: 'TWO',
    })
    expect(r.meta).toEqual({ diff: patch('a.txt', 'one\ntwo\nthree\n', 'one\nTWO\nthree\n') })
    const m = await tools.callTool('multi_edit', {
      path: 'a.txt',
      edits: [
        { old_string: 'one', new_string: '1' },
        { old_string: 'three', new_string: '3\n4' },
      ],
    })
    expect(m.meta).toEqual({ diff: patch('a.txt', 'one\nTWO\nthree\n', '1\nTWO\n3\n4\n') })
  })

  it('quotes a file name as jsdiff 9 does (the contract reference declares diff ^9.0.0)', async () => {
    // CONTRACT-v0.5 §1: meta.diff is exactly jsdiff's createTwoFilesPatch(rel, rel, …):
    // jsdiff 9 C-quotes a `---` / `+++` name with a non-ASCII or control character, `"` or `\`.
    const names = [
      'caf\u00e9.txt',
      'q"x.txt',
      'b\\s.txt',
      'tab\tx.txt',
      'del\u007f.txt',
      '\u{1F600}.md',
    ]
    const files = Object.fromEntries(names.map((n) => [n, 'a\n']))
    const { tools } = workspace(files)
    for (const rel of names) {
      const r = await tools.callTool('write_file', { path: rel, content: 'b\n' })
      expect(r.meta).toEqual({ diff: patch(rel, 'a\n', 'b\n') })
    }
    expect(patch('caf\u00e9.txt', 'a\n', 'b\n')).toContain('--- "caf\\303\\251.txt"\n')
  })

  it('write_file has a diff only when it overwrites UTF-8 text with something else', async () => {
    // CONTRACT-v0.5 §1: "`write_file` compares the prior decoded text [LF-normalized, BOM
    // stripped] with the new content exactly as given".
    const { tools } = workspace({
      'a.txt': 'x\r\ny\n',
      'u16.txt': Buffer.from('\ufeffx', 'utf16le'),
      bin: Buffer.from([0, 1]),
    })
    const over = await tools.callTool('write_file', { path: 'a.txt', content: 'x\nz\n' })
    expect(over.meta).toEqual({ diff: patch('a.txt', 'x\ny\n', 'x\nz\n') })
    const same = await tools.callTool('write_file', { path: 'a.txt', content: 'x\nz\n' })
    expect(same.meta).toBeUndefined()
    const crlf = await tools.callTool('write_file', { path: 'a.txt', content: 'x\r\nz\n' })
    expect(crlf.meta).toEqual({ diff: patch('a.txt', 'x\nz\n', 'x\r\nz\n') })
    const fresh = await tools.callTool('write_file', { path: 'new.txt', content: 'n\n' })
    expect(fresh.meta).toBeUndefined()
    for (const path of ['u16.txt', 'bin']) {
      expect((await tools.callTool('write_file', { path, content: 'text\n' })).meta).toBeUndefined()
    }
  })
})
