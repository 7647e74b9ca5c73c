import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { contentText, createAgentTools as createRoot } from '../index.js'
import { createAgentTools, dispatch, listTools, resolveConfig } from '../v0.1/index.js'
import { err, isolateGitHome, ok, tempDir, workspace, writeTree } from './helpers'

const grep = (tools: ReturnType<typeof workspace>['tools'], args: Record<string, unknown>) =>
  tools.callTool('grep', args)

describe('grep', () => {
  isolateGitHome()

  describe('output modes', () => {
    const files = {
      'b.ts': 'const foo = 1\nbar\nfoo()\n',
      'a/z.ts': 'foo\n',
      'a-b.ts': 'no match here\n',
      'a/y.ts': 'FOO\n',
    }

    it('files_with_matches (the default) lists paths sorted by path', async () => {
      const { tools } = workspace(files)
      expect(ok(await grep(tools, { pattern: 'foo' }))).toBe('a/z.ts\nb.ts')
      expect(ok(await grep(tools, { pattern: 'foo', output_mode: 'files_with_matches' }))).toBe(
        'a/z.ts\nb.ts',
      )
    })

    it('content prints path:LINE:text sorted by path, then line', async () => {
      const { tools } = workspace(files)
      expect(ok(await grep(tools, { pattern: 'foo', output_mode: 'content' }))).toBe(
        'a/z.ts:1:foo\nb.ts:1:const foo = 1\nb.ts:3:foo()',
      )
    })

    it('count prints path:N sorted by path', async () => {
      const { tools } = workspace(files)
      expect(ok(await grep(tools, { pattern: 'foo', output_mode: 'count' }))).toBe(
        'a/z.ts:1\nb.ts:2',
      )
    })

    it('ignore_case', async () => {
      const { tools } = workspace(files)
      expect(
        ok(await grep(tools, { pattern: 'foo', ignore_case: true, output_mode: 'count' })),
      ).toBe('a/y.ts:1\na/z.ts:1\nb.ts:2')
      // Strings for booleans and integers are tolerated, nothing looser.
      expect(
        ok(await grep(tools, { pattern: 'foo', ignore_case: 'true', head_limit: '1' })),
      ).toMatch(/^a\/y\.ts\n/)
    })

    it('says (no matches)', async () => {
      const { tools } = workspace(files)
      for (const output_mode of ['files_with_matches', 'content', 'count']) {
        expect(ok(await grep(tools, { pattern: 'zzz', output_mode }))).toBe('(no matches)')
      }
    })

    it('uses Rust regex syntax', async () => {
      const { tools } = workspace({ 'r.rs': 'fn main() {}\nfn helper_1(x: u8) {}\nlet f = 1;\n' })
      expect(ok(await grep(tools, { pattern: String.raw`^fn \w+\(`, output_mode: 'count' }))).toBe(
        'r.rs:2',
      )
      expect(ok(await grep(tools, { pattern: String.raw`\bf\b`, output_mode: 'content' }))).toBe(
        'r.rs:3:let f = 1;',
      )
    })
  })

  describe('paging', () => {
    const body = (n: number, tag: string) =>
      Array.from({ length: n }, (_, i) => `${tag} ${i + 1}`).join('\n')

    it('pages content results with the exact footer', async () => {
      const { tools } = workspace({ 'a.txt': body(3, 'hit'), 'b.txt': body(4, 'hit') })
      expect(ok(await grep(tools, { pattern: 'hit', output_mode: 'content', head_limit: 2 }))).toBe(
        'a.txt:1:hit 1\na.txt:2:hit 2\n[... showing 0..2 of 7; call again with offset=2 for more ...]',
      )
      expect(
        ok(await grep(tools, { pattern: 'hit', output_mode: 'content', head_limit: 3, offset: 2 })),
      ).toBe(
        'a.txt:3:hit 3\nb.txt:1:hit 1\nb.txt:2:hit 2\n[... showing 2..5 of 7; call again with offset=5 for more ...]',
      )
      // The last page has no footer.
      expect(
        ok(await grep(tools, { pattern: 'hit', output_mode: 'content', head_limit: 5, offset: 5 })),
      ).toBe('b.txt:3:hit 3\nb.txt:4:hit 4')
    })

    it('pages files and count rows', async () => {
      const files: Record<string, string> = {}
      for (const n of ['e', 'a', 'd', 'c', 'b']) files[`${n}.txt`] = 'x\nx\n'
      const { tools } = workspace(files)
      expect(ok(await grep(tools, { pattern: 'x', head_limit: 2, offset: 1 }))).toBe(
        'b.txt\nc.txt\n[... showing 1..3 of 5; call again with offset=3 for more ...]',
      )
      expect(ok(await grep(tools, { pattern: 'x', output_mode: 'count', head_limit: 4 }))).toBe(
        'a.txt:2\nb.txt:2\nc.txt:2\nd.txt:2\n[... showing 0..4 of 5; call again with offset=4 for more ...]',
      )
    })

    it('says so when the offset is past the end', async () => {
      const { tools } = workspace({ 'a.txt': body(3, 'hit') })
      expect(ok(await grep(tools, { pattern: 'hit', output_mode: 'content', offset: 3 }))).toBe(
        '(no results at offset 3; 3 total)',
      )
      expect(ok(await grep(tools, { pattern: 'hit', offset: 9 }))).toBe(
        '(no results at offset 9; 1 total)',
      )
      expect(ok(await grep(tools, { pattern: 'zzz', offset: 9 }))).toBe('(no matches)')
    })

    it('tells the model to lower head_limit when the byte cap cuts a page', async () => {
      // 40 rows: within the scan budget of the rg path (8 × the cap of rg's JSON), over the cap
      // once rendered.
      const long = Array.from({ length: 40 }, (_, i) => `match ${i} ${'y'.repeat(60)}`)
      const { tools } = workspace(
        { 'big.txt': long.join('\n') },
        { maxOutputBytes: 2048, probeRipgrep: () => true },
      )
      const text = ok(await grep(tools, { pattern: 'match', output_mode: 'content' }))
      expect(Buffer.byteLength(text)).toBeLessThanOrEqual(2048)
      const shown = text.split('\n').filter((l) => l.startsWith('big.txt:')).length
      expect(shown).toBeGreaterThan(10)
      expect(text.split('\n').at(-1)).toBe(
        `[... showing 0..${shown} of 40; the output limit cut this page short: call again with offset=${shown} and a lower head_limit ...]`,
      )
      // The next page continues exactly where the cut one stopped.
      const next = ok(
        await grep(tools, { pattern: 'match', output_mode: 'content', offset: shown }),
      )
      expect(next.startsWith(`big.txt:${shown + 1}:match ${shown} `)).toBe(true)
    })

    it('stops a scan whose matches pass the budget, and says the result is incomplete', async () => {
      // The seed contract: "a scan that stopped early says the result is incomplete and does not
      // suggest paging"; the budget is the reference's (CONTRACT-v0.5-wording §1).
      const rows = Array.from({ length: 50_000 }, (_, i) => `line ${i}`).join('\n')
      const { tools } = workspace({ 'a.txt': rows, 'b.txt': rows })
      const text = ok(await grep(tools, { pattern: 'line', output_mode: 'content', head_limit: 3 }))
      expect(text).toMatch(
        /^([ab])\.txt:1:line 0\n\1\.txt:2:line 1\n\1\.txt:3:line 2\n\[\.\.\. search incomplete: the scan hit its output cap; some matching files were not scanned\. Narrow the pattern, path, or glob for complete results\. \.\.\.\]$/,
      )
    })

    it('gives no partial total for an offset past the end of a scan that stopped early', async () => {
      // The seed contract: "a scan that stopped early says the result is incomplete"; the
      // files it never scanned make any total a guess, so the warning comes after the empty
      // page, as the newest contract composes it (CONTRACT-v0.5-wording §1 (a)).
      const files = Object.fromEntries(
        Array.from({ length: 200 }, (_, i) => [`f${i}.txt`, `match line ${i}\n`]),
      )
      for (const probeRipgrep of [() => true, () => false]) {
        const { tools } = workspace(files, { maxOutputBytes: 1024, probeRipgrep })
        for (const output_mode of ['files_with_matches', 'content', 'count']) {
          const text = ok(await grep(tools, { pattern: 'match', output_mode, offset: 500 }))
          expect(text).toBe(
            '\n[... search incomplete: the scan hit its output cap; some matching files were not scanned. Narrow the pattern, path, or glob for complete results. ...]',
          )
        }
      }
      // A finished scan still gives its total.
      const { tools } = workspace({ 'a.txt': 'match\n' })
      expect(ok(await grep(tools, { pattern: 'match', offset: 5 }))).toBe(
        '(no results at offset 5; 1 total)',
      )
    })

    it('refuses head_limit 0 and negative offsets', async () => {
      const { tools } = workspace({ 'a.txt': 'x' })
      expect(err(await grep(tools, { pattern: 'x', head_limit: 0 }))).toMatchObject({
        error: 'invalid_input',
        field: 'head_limit',
      })
      expect(err(await grep(tools, { pattern: 'x', offset: -1 })).error).toBe('invalid_input')
      expect(err(await grep(tools, { pattern: 'x', context: -2 })).error).toBe('invalid_input')
      expect(err(await grep(tools, { pattern: 'x', output_mode: 'lines' })).error).toBe(
        'invalid_input',
      )
    })
  })

  describe('context', () => {
    const text = ['a', 'hit 1', 'b', 'c', 'd', 'e', 'hit 2', 'f', 'hit 3', 'g'].join('\n')

    it('separates non-adjacent groups with -- and merges overlapping ones', async () => {
      const { tools } = workspace({ 'f.txt': text, 'g.txt': 'hit 4\n' })
      expect(ok(await grep(tools, { pattern: 'hit', output_mode: 'content', context: 1 }))).toBe(
        [
          'f.txt-1-a',
          'f.txt:2:hit 1',
          'f.txt-3-b',
          '--',
          'f.txt-6-e',
          'f.txt:7:hit 2',
          'f.txt-8-f',
          'f.txt:9:hit 3',
          'f.txt-10-g',
          '--',
          'g.txt:1:hit 4',
        ].join('\n'),
      )
    })

    it('before_context and after_context override context per side', async () => {
      const { tools } = workspace({ 'f.txt': text })
      expect(
        ok(
          await grep(tools, {
            pattern: 'hit 2',
            output_mode: 'content',
            context: 3,
            before_context: 1,
          }),
        ),
      ).toBe('f.txt-6-e\nf.txt:7:hit 2\nf.txt-8-f\nf.txt-9-hit 3\nf.txt-10-g')
      expect(
        ok(await grep(tools, { pattern: 'hit 1', output_mode: 'content', after_context: 2 })),
      ).toBe('f.txt:2:hit 1\nf.txt-3-b\nf.txt-4-c')
    })

    it('is ignored outside content mode', async () => {
      const { tools } = workspace({ 'f.txt': text })
      expect(ok(await grep(tools, { pattern: 'hit', output_mode: 'count', context: 2 }))).toBe(
        'f.txt:3',
      )
    })

    it('a page keeps the leading context of its first match', async () => {
      const { tools } = workspace({ 'f.txt': text })
      expect(
        ok(
          await grep(tools, {
            pattern: 'hit',
            output_mode: 'content',
            context: 1,
            offset: 1,
            head_limit: 1,
          }),
        ),
      ).toBe(
        'f.txt-6-e\nf.txt:7:hit 2\nf.txt-8-f\n[... showing 1..2 of 3; call again with offset=2 for more ...]',
      )
    })
  })

  describe('multiline', () => {
    it('prints a match spanning lines under its first line prefix and counts it once', async () => {
      const { tools } = workspace({
        'm.rs': 'fn a(\n    x: u8,\n) {}\n\nfn b() {}\n',
      })
      const args = { pattern: String.raw`fn \w+\(.*?\)`, multiline: true }
      expect(ok(await grep(tools, { ...args, output_mode: 'content' }))).toBe(
        'm.rs:1:fn a(\n    x: u8,\n) {}\nm.rs:5:fn b() {}',
      )
      expect(ok(await grep(tools, { ...args, output_mode: 'count' }))).toBe('m.rs:2')
      expect(ok(await grep(tools, { ...args, output_mode: 'content', head_limit: 1 }))).toBe(
        'm.rs:1:fn a(\n    x: u8,\n) {}\n[... showing 0..1 of 2; call again with offset=1 for more ...]',
      )
    })

    it('lets ^ and $ match at line bounds, and a newline needs multiline', async () => {
      const { tools } = workspace({ 'x.txt': 'start\nmiddle\nend\n' })
      expect(
        ok(
          await grep(tools, {
            pattern: String.raw`^middle$\nend`,
            multiline: true,
            output_mode: 'content',
          }),
        ),
      ).toBe('x.txt:2:middle\nend')
      const e = err(await grep(tools, { pattern: String.raw`middle\nend` }))
      expect(e.error).toBe('invalid_input')
      expect(e.message).toMatch(/multiline: true/)
    })
  })

  describe('what is searched', () => {
    it('searches files of many megabytes exactly, whether found by the walk or named', async () => {
      // Lines of 100 bytes; a match every 1,000th line, and one split by no block boundary in
      // particular: 3 MB is searched in pieces, never loaded whole.
      const lines = Array.from({ length: 30_000 }, (_, i) =>
        i % 1000 === 999 ? `needle ${i + 1}`.padEnd(99, '.') : `line ${i + 1}`.padEnd(99, '-'),
      )
      const big = `${lines.join('\r\n')}\r\n`
      const nulAtEnd = `${'needle\n'.repeat(50_000)}\0`
      const { tools } = workspace({
        'big.txt': big,
        'sub/tail-nul.txt': nulAtEnd,
        'small.txt': 'needle\n',
      })
      expect(ok(await grep(tools, { pattern: '^needle \\d+\\.+$', output_mode: 'count' }))).toBe(
        'big.txt:30',
      )
      expect(ok(await grep(tools, { pattern: 'needle' }))).toBe('big.txt\nsmall.txt')
      const page = ok(
        await grep(tools, {
          pattern: 'needle',
          path: 'big.txt',
          output_mode: 'content',
          offset: 28,
          head_limit: 5,
        }),
      )
      expect(page.split('\n')).toEqual([
        `big.txt:29000:${'needle 29000'.padEnd(99, '.')}`,
        `big.txt:30000:${'needle 30000'.padEnd(99, '.')}`,
      ])
      // A NUL in the last 8000 bytes of a big file makes it binary: skipped by a walk,
      // refused when named.
      expect(err(await grep(tools, { pattern: 'needle', path: 'sub/tail-nul.txt' })).error).toBe(
        'is_binary',
      )
    })

    it('searches hidden files but never .git, .clarvis or temp files', async () => {
      const { tools } = workspace({
        '.env': 'TOKEN=needle',
        '.github/ci.yml': 'needle',
        '.git/config': 'needle',
        '.clarvis/bash-1.stdout.log': 'needle',
        'src/.clarvis-tmp-abc': 'needle',
      })
      expect(ok(await grep(tools, { pattern: 'needle' }))).toBe('.env\n.github/ci.yml')
      expect(ok(await grep(tools, { pattern: 'needle', path: '.git' }))).toBe('(no matches)')
    })

    it('applies nested .gitignore files, negations and .ignore files', async () => {
      const { tools } = workspace({
        '.gitignore': '*.log\n!keep.log\n/dist\n',
        'a.log': 'needle',
        'keep.log': 'needle',
        'dist/x.js': 'needle',
        'src/dist/y.js': 'needle',
        'src/.gitignore': 'gen/\n',
        'src/gen/z.ts': 'needle',
        '.ignore': 'private.txt\n',
        'private.txt': 'needle',
      })
      expect(ok(await grep(tools, { pattern: 'needle' }))).toBe('keep.log\nsrc/dist/y.js')
      // An explicitly named file is searched even when ignored.
      expect(ok(await grep(tools, { pattern: 'needle', path: 'a.log' }))).toBe('a.log')
    })

    it("applies the parent directory's .gitignore and info/exclude of the enclosing repo", async () => {
      const top = tempDir()
      writeTree(top, {
        '.gitignore': '*.md\n',
        'repo/.git/info/exclude': '*.gen\n',
        'repo/.gitignore': '*.log\n',
        'repo/ws/a.log': 'needle',
        'repo/ws/b.gen': 'needle',
        'repo/ws/c.md': 'needle',
        'repo/ws/d.ts': 'needle',
      })
      const tools = createAgentTools({ workspaceRoot: join(top, 'repo/ws') })
      expect(ok(await grep(tools, { pattern: 'needle' }))).toBe('c.md\nd.ts')
    })

    it('applies parent .gitignore files when the workspace is not in a repository', async () => {
      const top = tempDir()
      writeTree(top, { '.gitignore': '*.md\n', 'ws/a.md': 'needle', 'ws/b.ts': 'needle' })
      const tools = createAgentTools({ workspaceRoot: join(top, 'ws') })
      expect(ok(await grep(tools, { pattern: 'needle' }))).toBe('b.ts')
    })

    it('applies the global excludes file', async () => {
      const home = process.env.HOME as string
      mkdirSync(join(home, '.config/git'), { recursive: true })
      writeFileSync(join(home, '.config/git/ignore'), '*.swp\n')
      const { tools } = workspace({ 'a.swp': 'needle', 'a.txt': 'needle' })
      expect(ok(await grep(tools, { pattern: 'needle' }))).toBe('a.txt')
    })

    it('skips binary and oversized files in a tree, and refuses them when named', async () => {
      const nulTail = Buffer.concat([
        Buffer.from(`needle\n${'x'.repeat(20_000)}`),
        Buffer.from([0]),
      ])
      const utf16 = Buffer.concat([
        Buffer.from([0xff, 0xfe]),
        Buffer.from('a\nneedle\n', 'utf16le'),
      ])
      const { tools } = workspace(
        {
          'bin.dat': Buffer.from([110, 101, 101, 100, 108, 101, 0, 1]),
          'tail.dat': nulTail,
          'big.txt': `needle\n${'z'.repeat(5000)}`,
          'u16.txt': utf16,
          'ok.txt': 'needle',
        },
        { maxFileBytes: 4096 },
      )
      expect(ok(await grep(tools, { pattern: 'needle', output_mode: 'content' }))).toBe(
        'ok.txt:1:needle\nu16.txt:2:needle',
      )
      expect(err(await grep(tools, { pattern: 'needle', path: 'bin.dat' }))).toMatchObject({
        error: 'is_binary',
        path: 'bin.dat',
      })
      // Over maxFileBytes: skipped even when named, as rg --max-filesize skips it.
      expect(ok(await grep(tools, { pattern: 'needle', path: 'big.txt' }))).toBe('(no matches)')
    })

    it('normalizes CRLF for matching and display, and ignores a UTF-8 BOM', async () => {
      const { tools } = workspace({ 'w.txt': 'one\r\ntwo\r\n', 'b.txt': '\uFEFFtwo\n' })
      expect(ok(await grep(tools, { pattern: '^two$', output_mode: 'content' }))).toBe(
        'b.txt:1:two\nw.txt:2:two',
      )
    })

    it('restricts to a glob: file names without a slash, paths with one', async () => {
      const { tools } = workspace({
        'a.ts': 'needle',
        'src/b.ts': 'needle',
        'src/c.js': 'needle',
        'src/deep/d.ts': 'needle',
      })
      expect(ok(await grep(tools, { pattern: 'needle', glob: '*.ts' }))).toBe(
        'a.ts\nsrc/b.ts\nsrc/deep/d.ts',
      )
      expect(ok(await grep(tools, { pattern: 'needle', glob: 'src/*.ts' }))).toBe('src/b.ts')
      expect(ok(await grep(tools, { pattern: 'needle', glob: '*.ts', path: 'src' }))).toBe(
        'src/b.ts\nsrc/deep/d.ts',
      )
      expect(ok(await grep(tools, { pattern: 'needle', glob: '*.{js,ts}', path: 'src' }))).toBe(
        'src/b.ts\nsrc/c.js\nsrc/deep/d.ts',
      )
    })

    it('a glob only narrows: it never brings back an ignored file (unlike rg --glob)', async () => {
      const { tools } = workspace({ '.gitignore': '*.log\n', 'a.log': 'needle', 'b.txt': 'needle' })
      expect(ok(await grep(tools, { pattern: 'needle', glob: '*.log' }))).toBe('(no matches)')
    })

    it('searches a single file when path is a file', async () => {
      const { tools } = workspace({ 'src/one.ts': 'x\nneedle\n', 'src/two.ts': 'needle\n' })
      expect(
        ok(await grep(tools, { pattern: 'needle', path: 'src/one.ts', output_mode: 'content' })),
      ).toBe('src/one.ts:2:needle')
      expect(ok(await grep(tools, { pattern: 'zzz', path: 'src/one.ts' }))).toBe('(no matches)')
    })

    it('follows symlinks inside the workspace and skips those leading out when confined', async () => {
      const outside = tempDir()
      writeTree(outside, { 'o.txt': 'needle' })
      const { root, tools } = workspace({ 'real/f.txt': 'needle' })
      symlinkSync(join(root, 'real'), join(root, 'linkdir'))
      symlinkSync(join(root, 'real/f.txt'), join(root, 'link.txt'))
      symlinkSync(outside, join(root, 'outdir'))
      symlinkSync(join(outside, 'o.txt'), join(root, 'out.txt'))
      expect(ok(await grep(tools, { pattern: 'needle' }))).toBe(
        'link.txt\nlinkdir/f.txt\nreal/f.txt',
      )
      for (const path of ['outdir', 'out.txt', '..', outside]) {
        expect(err(await grep(tools, { pattern: 'needle', path })).error).toBe('path_escape')
      }
      const open = createAgentTools({ workspaceRoot: root, confineToWorkspace: false })
      expect(ok(await grep(open, { pattern: 'needle' }))).toBe(
        'link.txt\nlinkdir/f.txt\nout.txt\noutdir/o.txt\nreal/f.txt',
      )
      expect(ok(await grep(open, { pattern: 'needle', path: outside }))).toBe(
        join(outside, 'o.txt'),
      )
    })

    it('reports a missing path as not_found', async () => {
      const { tools } = workspace({})
      expect(err(await grep(tools, { pattern: 'x', path: 'nope' }))).toMatchObject({
        error: 'not_found',
        path: 'nope',
      })
    })
  })

  it('shows a long line whole, as the contract row `path:LINE:text` is', async () => {
    const line = `${'a'.repeat(3000)}NEEDLE${'b'.repeat(3000)}`
    const { tools } = workspace({ 'min.js': `x\n${line}\n` })
    const text = ok(await grep(tools, { pattern: 'NEEDLE', output_mode: 'content' }))
    expect(text).toBe(`min.js:2:${line}`)
  })

  it('with extras (the root), cuts very long lines with a marker saying how much and how to read the rest', async () => {
    const line = `${'a'.repeat(3000)}NEEDLE${'b'.repeat(3000)}`
    const root = tempDir()
    writeTree(root, { 'min.js': `x\n${line}\n` })
    const tools = createRoot({ workspaceRoot: root, extras: true })
    const text = contentText(
      (await tools.callTool('grep', { pattern: 'NEEDLE', output_mode: 'content' })).content,
    )
    expect(text.length).toBeLessThan(1000)
    expect(text).toMatch(/^min\.js:2:\[\.\.\. 2900 characters cut \.\.\.\] a+NEEDLEb+ \[\.\.\. /)
    expect(text).toMatch(
      /\[\.\.\. 2606 characters cut; line 2 is 6006 characters: read_file with offset=2 shows it \.\.\.\]$/,
    )
  })

  it('refuses an invalid regex or glob with the parser reason', async () => {
    const { tools } = workspace({ 'a.txt': 'x' })
    const bad = err(await grep(tools, { pattern: 'foo(' }))
    expect(bad).toMatchObject({ error: 'invalid_input', field: 'pattern' })
    expect(bad.message).toMatch(/unclosed group/)
    // The message quotes the pattern as given, not an internal rewrite of it.
    expect(bad.message).toContain('\n    foo(\n')
    const glob = err(await grep(tools, { pattern: 'x', glob: '[a-' }))
    expect(glob).toMatchObject({ error: 'invalid_input', field: 'glob' })
    expect(err(await grep(tools, {})).message).toMatch(/pattern/)
    expect(err(await grep(tools, { pattern: 'x', recursive: true })).message).toMatch(/recursive/)
  })

  it('is the native engine whether or not rg is available', async () => {
    const root = tempDir()
    writeTree(root, { 'a.txt': 'needle', '.gitignore': 'b.txt\n', 'b.txt': 'needle' })
    for (const available of [true, false]) {
      const config = resolveConfig({ workspaceRoot: root, probeRipgrep: () => available })
      expect(config.ripgrepAvailable).toBe(available)
      expect(await dispatch('grep', { pattern: 'needle' }, config)).toEqual({
        isError: false,
        text: 'a.txt',
      })
    }
  })

  it('is listed on the read-only surface with its schema', async () => {
    const config = resolveConfig({ workspaceRoot: tempDir(), readOnly: true })
    const names = listTools(config).map((t) => t.name)
    expect(names).toEqual(expect.arrayContaining(['glob', 'grep']))
    const schema = listTools(config).find((t) => t.name === 'grep')?.inputSchema as {
      properties: Record<string, { enum?: string[]; minimum?: number }>
      additionalProperties: boolean
    }
    expect(schema.additionalProperties).toBe(false)
    expect(schema.properties.output_mode.enum).toEqual(['files_with_matches', 'content', 'count'])
    expect(schema.properties.head_limit.minimum).toBe(1)
    expect(schema.properties.offset.minimum).toBe(0)
  })
})
