// The newest contract to the letter, at the package root: each test cites the section of
// /work/shared/CONTRACT-v0.5-wording.md (or CONTRACT-v0.5.md) whose marker, message or rule it
// checks. The seed entry's search-incomplete marker is checked here too.
import { execFileSync, spawn } from 'node:child_process'
import { chmodSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { applyPatch, parsePatch } from 'diff'
import { describe, expect, it } from 'vitest'
import * as root from '../index.js'
import * as seed from '../v0.1/index.js'
import { err, ok, packageForAnyUser, tempDir, workspace, writeTree } from './root-helpers'

/** The message of the StartupError `f` throws. */
function message(f: () => unknown): string {
  try {
    f()
  } catch (e) {
    expect(e).toBeInstanceOf(root.StartupError)
    return (e as Error).message
  }
  throw new Error('expected a StartupError')
}

const INCOMPLETE =
  '[... search incomplete: the scan hit its output cap; some matching files were not scanned. Narrow the pattern, path, or glob for complete results. ...]'

/** `n` files of `lines` matching lines each (`needle` and 40 more bytes). */
function manyMatches(n: number, lines: number): Record<string, string> {
  const files: Record<string, string> = {}
  const body = Array.from({ length: lines }, (_, i) => `needle ${i} ${'x'.repeat(40)}\n`).join('')
  for (let i = 0; i < n; i++) files[`d/f${String(i).padStart(3, '0')}.txt`] = body
  return files
}

describe('grep: budget and markers (wording §1)', () => {
  for (const rg of [false, true]) {
    it(`matches over the scan budget end with the search-incomplete marker (rg path: ${rg})`, async () => {
      // "Once `used > budget`, `truncated = true` and no further file is scanned";
      // "(a) Scan incomplete ... `<bounded>\n<warning>`. No paging footer".
      const { tools } = workspace(manyMatches(60, 100), {
        maxOutputBytes: 1024,
        probeRipgrep: () => rg,
      })
      for (const args of [
        { pattern: 'needle' },
        { pattern: 'needle', output_mode: 'content' },
        { pattern: 'needle', output_mode: 'count', head_limit: 2 },
      ]) {
        const text = ok(await tools.callTool('grep', args))
        expect(text.endsWith(`\n${INCOMPLETE}`)).toBe(true)
        expect(text).not.toContain('offset=')
      }
      // Scanning stopped: far from all 60 matching files are listed.
      const files = ok(await tools.callTool('grep', { pattern: 'needle' })).split('\n')
      expect(files.length - 1).toBeLessThan(60)
    })
  }

  it('the seed entry ends an over-budget search with the same marker', async () => {
    const dir = tempDir()
    writeTree(dir, manyMatches(60, 100))
    const t = seed.createAgentTools({ workspaceRoot: dir, maxOutputBytes: 1024 })
    const r = await t.callTool('grep', { pattern: 'needle', output_mode: 'content' })
    expect(r.isError).toBe(false)
    expect(r.text.endsWith(`\n${INCOMPLETE}`)).toBe(true)
  })

  it('a page over the cap from a finished scan is bounded, then marked page exceeded', async () => {
    // "(b) Page over the cap — scan finished but the rendered page is over `maxOutputBytes`
    // bytes (with or without `head_limit`) → `<bounded>\n[... page exceeded <maxOutputBytes>
    // bytes and was cut; set or reduce head_limit to page in smaller chunks ...]`".
    const body = Array.from(
      { length: 20 },
      (_, i) => `hit ${String(i).padStart(2, '0')} ${'y'.repeat(53)}\n`,
    )
    const { tools } = workspace(
      { 'a.txt': body.join('') },
      {
        maxOutputBytes: 1024,
        probeRipgrep: () => true,
      },
    )
    const rendered = body.map((l, i) => `a.txt:${i + 1}:${l.slice(0, -1)}`).join('\n')
    expect(rendered.length).toBeGreaterThan(1024)
    const exceeded =
      '\n[... page exceeded 1024 bytes and was cut; set or reduce head_limit to page in smaller chunks ...]'
    for (const head_limit of [undefined, 16]) {
      const text = ok(
        await tools.callTool('grep', { pattern: 'hit', output_mode: 'content', head_limit }),
      )
      const page = head_limit ? rendered.split('\n').slice(0, head_limit).join('\n') : rendered
      const marker = `\n[... output truncated: `
      expect(text.endsWith(exceeded)).toBe(true)
      const bounded = text.slice(0, -exceeded.length)
      expect(bounded).toMatch(
        new RegExp(
          `\\[\\.\\.\\. output truncated: \\d+ of ${page.length} bytes shown \\.\\.\\.\\]$`,
        ),
      )
      expect(page.startsWith(bounded.slice(0, bounded.indexOf(marker)))).toBe(true)
      expect(text).not.toContain('showing')
    }
    // Without rg, the same 1,200 bytes of rows are over the in-process budget of 1024.
    const { tools: inProcess } = workspace(
      { 'a.txt': body.join('') },
      {
        maxOutputBytes: 1024,
        probeRipgrep: () => false,
      },
    )
    const text = ok(await inProcess.callTool('grep', { pattern: 'hit', output_mode: 'content' }))
    expect(text.endsWith(`\n${INCOMPLETE}`)).toBe(true)
  })
})

describe('grep: edge cases (wording §1)', () => {
  it('a binary file named as the only target has no matches', async () => {
    // "A single-file target over `maxFileBytes`, or binary ... returns `(no matches)`".
    const { tools } = workspace({ 'bin.dat': new Uint8Array([102, 111, 111, 0, 98]) })
    expect(ok(await tools.callTool('grep', { pattern: 'foo', path: 'bin.dat' }))).toBe(
      '(no matches)',
    )
  })

  it('a zero-width multiline match is no match on the in-process path', async () => {
    // "every zero-length match is skipped, so a line only zero-width matches touch is not
    // reported (`^` or `x*` alone find nothing)".
    const { tools } = workspace({ 'a.txt': 'one\ntwo\n' }, { probeRipgrep: () => false })
    for (const pattern of ['^', 'x*']) {
      expect(ok(await tools.callTool('grep', { pattern, multiline: true }))).toBe('(no matches)')
    }
    expect(
      ok(await tools.callTool('grep', { pattern: 'two', multiline: true, output_mode: 'content' })),
    ).toBe('a.txt:2:two')
    // Not multiline, the regex runs per line and `^` matches every line.
    expect(ok(await tools.callTool('grep', { pattern: '^', output_mode: 'count' }))).toBe('a.txt:2')
  })

  it('text that is not valid UTF-8 is handled as each path of the contract does', async () => {
    // ripgrep path: "A line given as `{"bytes":…}` keeps the event with text `""` (row
    // `<rel>:<line>:`)"; in-process: "decoded as UTF-8 with U+FFFD ... rows show U+FFFD";
    // both: a non-UTF-8 file name is skipped.
    const files = {
      'bad.txt': new Uint8Array([...Buffer.from('needle '), 0xff, 0x0a]),
      'good.txt': 'needle ok\n',
    }
    const rg = workspace(files, { probeRipgrep: () => true })
    const badName = Buffer.concat([Buffer.from(join(rg.root, 'x')), Buffer.from([0xff])])
    writeFileSync(badName, 'needle\n')
    expect(ok(await rg.tools.callTool('grep', { pattern: 'needle', output_mode: 'content' }))).toBe(
      'bad.txt:1:\ngood.txt:1:needle ok',
    )
    expect(ok(await rg.tools.callTool('grep', { pattern: 'needle', output_mode: 'count' }))).toBe(
      'bad.txt:1\ngood.txt:1',
    )
    const inProcess = workspace(files, { probeRipgrep: () => false })
    writeFileSync(
      Buffer.concat([Buffer.from(join(inProcess.root, 'x')), Buffer.from([0xff])]),
      'needle\n',
    )
    expect(
      ok(await inProcess.tools.callTool('grep', { pattern: 'needle', output_mode: 'content' })),
    ).toBe('bad.txt:1:needle \uFFFD\ngood.txt:1:needle ok')
  })

  it("a skipped non-UTF-8 file name's events still fill the ripgrep path's stream", async () => {
    // "The stream cap is `maxOutputBytes * 8`, counted as the JS string length of the JSON
    // received": rg sends that file's events (its name in base64) and the reference drops
    // them after they count. Many matches per line count too (one submatch each).
    const body = `${'y'.repeat(100)}\n`.repeat(120)
    for (const [probeRipgrep, want] of [
      [() => true, INCOMPLETE],
      [() => false, '(no matches)'],
    ] as const) {
      const { root: dir, tools } = workspace({}, { maxOutputBytes: 1024, probeRipgrep })
      writeFileSync(Buffer.concat([Buffer.from(join(dir, 'n')), Buffer.from([0xff])]), body)
      expect(ok(await tools.callTool('grep', { pattern: 'y' }))).toBe(want)
    }
    const { tools } = workspace(
      { 'a.txt': `${'y'.repeat(100)}\n`.repeat(10) },
      { maxOutputBytes: 1024, probeRipgrep: () => true },
    )
    expect(ok(await tools.callTool('grep', { pattern: 'y' }))).toBe(`a.txt\n${INCOMPLETE}`)
  })
})

describe('read_file: cutting long lines (wording §2)', () => {
  it('a line longer than the cap is cut with the marker, never inside a character', async () => {
    // "Content may use `maxOutputBytes − prefixBytes − 1` bytes; if longer it is cut to
    // `max(0, thatBudget − 25)` bytes, then moved back while the first excluded byte is a
    // UTF-8 continuation byte ... marker appended."
    const dir = tempDir()
    const resolved = root.resolveConfig({ workspaceRoot: dir })
    for (const ch of ['a', 'é', '€', '😀']) {
      writeFileSync(join(dir, 'long.txt'), `${ch.repeat(3000)}\nnext\n`)
      for (const cap of [100, 101, 102, 103, 1024]) {
        const config = { ...resolved, maxOutputBytes: cap }
        const r = await root.dispatch('read_file', { path: 'long.txt' }, config)
        const [row] = ok(r).split('\n')
        expect(Buffer.byteLength(row)).toBeLessThanOrEqual(cap)
        const content = row.slice('     1\t'.length)
        expect(content.endsWith(' [... line truncated ...]')).toBe(true)
        const kept = content.slice(0, -' [... line truncated ...]'.length)
        const bytes = Buffer.byteLength(ch)
        const want = Math.floor((cap - 7 - 1 - 25) / bytes) * bytes
        expect(Buffer.byteLength(kept)).toBe(want)
        expect(kept).toBe(ch.repeat(want / bytes))
      }
    }
  })
})

describe('configuration (wording §3)', () => {
  it('names a missing, absent and non-directory workspace root exactly', () => {
    const dir = tempDir()
    writeTree(dir, { f: 'x' })
    expect(message(() => root.resolveConfig({} as never))).toBe(
      'No workspace root: options.workspaceRoot is required.',
    )
    expect(message(() => root.createAgentTools({ workspaceRoot: '' }))).toBe(
      'No workspace root: options.workspaceRoot is required.',
    )
    expect(message(() => root.resolveConfig({ workspaceRoot: join(dir, 'nope') }))).toBe(
      `Workspace root does not exist: ${join(dir, 'nope')}`,
    )
    expect(message(() => root.resolveConfig({ workspaceRoot: join(dir, 'f') }))).toBe(
      `Workspace root is not a directory: ${join(dir, 'f')}`,
    )
    expect(message(() => root.buildConfig([], {}))).toBe(
      'No workspace root: pass --workspace <path> or set WORKSPACE_ROOT.',
    )
    expect(message(() => root.buildConfig([], { WORKSPACE_ROOT: '' }))).toBe(
      'No workspace root: pass --workspace <path> or set WORKSPACE_ROOT.',
    )
  })

  it('skips undefined argv elements; --workspace needs a path; the first one wins', () => {
    const a = tempDir()
    const b = tempDir()
    const argv = [undefined, '--workspace', a, undefined, `--workspace=${b}`] as string[]
    expect(root.buildConfig(argv, {}).workspaceRoot).toBe(a)
    for (const bad of [
      ['--workspace'],
      ['--workspace', undefined],
      ['--workspace', '--read-only'],
      ['--workspace='],
    ]) {
      expect(message(() => root.buildConfig(bad as string[], { WORKSPACE_ROOT: a }))).toBe(
        '--workspace requires a path argument',
      )
    }
  })

  it('checks the environment in the contract order with its templates', () => {
    const dir = tempDir()
    // "root presence, BASH_TIMEOUT_MS, BASH_TIMEOUT_MAX_MS, their order, ..."
    expect(message(() => root.buildConfig([], { MAX_OUTPUT_BYTES: 'x' }))).toBe(
      'No workspace root: pass --workspace <path> or set WORKSPACE_ROOT.',
    )
    expect(
      message(() =>
        root.buildConfig([], { WORKSPACE_ROOT: join(dir, 'missing'), MAX_OUTPUT_BYTES: '1e6' }),
      ),
    ).toBe('MAX_OUTPUT_BYTES must be a positive integer, got: 1e6')
    expect(
      message(() => root.buildConfig([], { WORKSPACE_ROOT: dir, BASH_TIMEOUT_MS: '700000' })),
    ).toBe('BASH_TIMEOUT_MAX_MS (600000) must be >= BASH_TIMEOUT_MS (700000).')
    expect(message(() => root.buildConfig([], { WORKSPACE_ROOT: dir, READ_ONLY: 'maybe' }))).toBe(
      'READ_ONLY must be one of 1/true/yes/on or 0/false/no/off, got: maybe',
    )
    expect(root.buildConfig([], { WORKSPACE_ROOT: dir, MAX_OUTPUT_BYTES: '' }).maxOutputBytes).toBe(
      131072,
    )
    expect(
      message(() =>
        root.resolveConfig({ workspaceRoot: dir, bashTimeoutMs: 10, bashTimeoutMaxMs: 5 }),
      ),
    ).toBe('bashTimeoutMaxMs (5) must be >= bashTimeoutMs (10).')
    expect(message(() => root.resolveConfig({ workspaceRoot: dir, maxOutputBytes: 2048.5 }))).toBe(
      'maxOutputBytes must be an integer >= 1024, got: 2048.5',
    )
  })
})

describe('fsError (wording §4)', () => {
  it('EISDIR is "Path is a directory", ENOTDIR "Not a directory"', () => {
    for (const fsError of [root.fsError, seed.fsError]) {
      const isDir = fsError(Object.assign(new Error('x'), { code: 'EISDIR' }), 'p')
      expect([isDir.code, isDir.message, isDir.fields]).toEqual([
        'not_a_file',
        'Path is a directory: p',
        { path: 'p' },
      ])
      const notDir = fsError(Object.assign(new Error('x'), { code: 'ENOTDIR' }), 'q')
      expect([notDir.code, notDir.message]).toEqual(['not_a_file', 'Not a directory: q'])
    }
  })
})

describe('read_file offsets and directories (wording §2, §4)', () => {
  it('words a zero offset and one past the end as the contract does', async () => {
    // "`offset must be non-zero: use a positive 1-indexed line, or a negative tail offset.`;
    // `offset <o> exceeds file line count <n>; read from offset 1..<n>` (field `line_count`)".
    // read_file's messages are unchanged since the seed contract (CONTRACT-v0.5 §6).
    const dir = tempDir()
    writeTree(dir, { 'f.txt': 'a\nb\nc\n' })
    const rootTools = root.createAgentTools({ workspaceRoot: dir })
    const zero = err(await rootTools.callTool('read_file', { path: 'f.txt', offset: 0 }))
    expect(zero).toEqual({
      error: 'invalid_input',
      message: 'offset must be non-zero: use a positive 1-indexed line, or a negative tail offset.',
    })
    const past = err(await rootTools.callTool('read_file', { path: 'f.txt', offset: 10 }))
    expect(past).toEqual({
      error: 'invalid_input',
      message: 'offset 10 exceeds file line count 3; read from offset 1..3',
      line_count: 3,
    })
    const seedTools = seed.createAgentTools({ workspaceRoot: dir })
    const r = await seedTools.callTool('read_file', { path: 'f.txt', offset: 10 })
    expect(r.isError).toBe(true)
    expect(JSON.parse(r.text)).toEqual(past)
  })

  it('a directory read as a file, or a file listed as a directory, is named as the contract does', async () => {
    // "Thrown directly (not via fsError): `Path is a directory: <input>` (reading a directory
    // as a file) and `Not a directory: <input>` (`list_dir`, `tree`, bash `cwd`)".
    const { root: dir, tools } = workspace({ 'd/a.txt': 'a\n', 'f.txt': 'x\n' })
    const notAFile = (message: string, path: string) => ({ error: 'not_a_file', message, path })
    const onDirectory: [string, Record<string, unknown>][] = [
      ['read_file', { path: 'd' }],
      ['edit_file', { path: 'd', old_string: 'a', new_string: 'b' }],
      ['write_file', { path: 'd', content: 'x' }],
    ]
    for (const [tool, args] of onDirectory) {
      expect(err(await tools.callTool(tool, args))).toEqual(notAFile('Path is a directory: d', 'd'))
    }
    expect(err(await tools.callTool('list_dir', { path: 'f.txt' }))).toEqual(
      notAFile('Not a directory: f.txt', 'f.txt'),
    )
    expect(err(await tools.callTool('tree', { path: 'f.txt' }))).toEqual(
      notAFile('Not a directory: f.txt', 'f.txt'),
    )
    expect(err(await tools.callTool('bash', { command: 'pwd', cwd: 'f.txt' }))).toEqual(
      notAFile('Not a directory: f.txt', 'f.txt'),
    )
    // The directory is untouched.
    expect(readFileSync(join(dir, 'd/a.txt'), 'utf8')).toBe('a\n')
  })

  it('a path with a trailing slash gets fsError words for what the OS answers', async () => {
    // §4: `ENOENT` → `No such file: <p>`, `ENOTDIR` → `Not a directory: <p>`, `<p>` the input.
    // A trailing `/` still names a directory: nothing is created under that name.
    const { root: dir, tools } = workspace({ 'f.txt': 'x\n' })
    for (const [tool, args] of [
      ['read_file', { path: 'nope/' }],
      ['list_dir', { path: 'nope/' }],
      ['write_file', { path: 'nope/', content: 'x' }],
    ] as const) {
      expect(err(await tools.callTool(tool, args))).toEqual({
        error: 'not_found',
        message: 'No such file: nope/',
        path: 'nope/',
      })
    }
    for (const path of ['f.txt/', 'f.txt/x/']) {
      expect(err(await tools.callTool('read_file', { path }))).toEqual({
        error: 'not_a_file',
        message: `Not a directory: ${path}`,
        path,
      })
    }
    expect(readdirSync(dir)).toEqual(['f.txt'])
  })

  it("replace words a missing or impossible path with fsError's template", async () => {
    // §4: "`<p>` is the caller's `<input>` almost everywhere; … replace `path ?? "."`".
    const { tools } = workspace({ 'f.txt': 'x\n' })
    const replace = (path: string) =>
      tools.callTool('replace', { pattern: 'x', replacement: 'y', path })
    expect(err(await replace('f.txt/x'))).toEqual({
      error: 'not_a_file',
      message: 'Not a directory: f.txt/x',
      path: 'f.txt/x',
    })
    expect(err(await replace('nope/x'))).toEqual({
      error: 'not_found',
      message: 'No such file: nope/x',
      path: 'nope/x',
    })
  })
})

describe('syntax warnings know the contract languages only, unless extras', () => {
  it('a broken Kotlin file gets no warning at the root, and one with extras', async () => {
    // The contract's grammar table (CONTRACT-v0.5 §4, -wording §6) has no Kotlin; check_syntax
    // refuses `.kt` at the root without extras, so a write of one is not checked either.
    const { tools } = workspace({})
    const broken = 'fun main( {\n'
    expect(ok(await tools.callTool('write_file', { path: 'a.kt', content: broken }))).toBe(
      'Wrote 12 bytes to a.kt (created).',
    )
    const { tools: withExtras } = workspace({}, { extras: true })
    const text = ok(await withExtras.callTool('write_file', { path: 'a.kt', content: broken }))
    expect(text).toContain('warning: kotlin syntax error in a.kt at line 1')
  })
})

describe('list_dir (wording §5)', () => {
  it('lists a broken symlink as a file of size 0', async () => {
    // "Broken symlink (stat fails) → listed as a file with size 0: `<name>\t0`".
    const { root: dir, tools } = workspace({ 'a.txt': 'abc' })
    symlinkSync('nowhere-at-all', join(dir, 'broken'))
    expect(ok(await tools.callTool('list_dir', {}))).toBe('a.txt\t3\nbroken\t0')
  })
})

describe('outline (wording §6)', () => {
  it('shows TypeScript members with their modifiers and types, as written', async () => {
    const src = [
      'export class Store<T> extends Base {',
      '  private static readonly cache: Map<string, T> = new Map();',
      '  protected name?: string;',
      '  constructor(private readonly db: Db) {',
      '    super()',
      '  }',
      '  public async get(id: string): Promise<T | undefined> {',
      '  }',
      '}',
      '',
    ].join('\n')
    const { tools } = workspace({ 'store.ts': src })
    expect(ok(await tools.callTool('outline', { path: 'store.ts' }))).toBe(
      [
        'store.ts — typescript, 10 lines',
        '  class Store<T> extends Base (1-9)',
        '    private static readonly cache: Map<string, T> = new Map() (2-2)',
        '    protected name?: string (3-3)',
        '    constructor(private readonly db: Db) (4-6)',
        '    public async get(id: string): Promise<T | undefined> (7-8)',
      ].join('\n'),
    )
  })

  it('a grammar without an outline points at check_syntax; no grammar says which are supported', async () => {
    const supported = 'typescript, tsx, javascript, python, go, rust, java, c-sharp'
    const { tools } = workspace({ 'a.c': 'int main() { return 0; }\n' })
    for (const [path, grammar] of [
      ['a.c', 'cpp'],
      ['missing.rb', 'ruby'],
      ['x.php', 'php'],
      ['x.sh', 'bash'],
    ]) {
      expect(err(await tools.callTool('outline', { path }))).toEqual({
        error: 'invalid_input',
        message: `outline does not support ${grammar} files (supported: ${supported}); check_syntax does support them.`,
        path,
      })
    }
    expect(err(await tools.callTool('outline', { path: 'a.kt' })).message).toBe(
      `outline does not support '.kt' files (supported: ${supported}).`,
    )
    expect(err(await tools.callTool('outline', { path: 'Makefile' })).message).toBe(
      `outline does not support extensionless files (supported: ${supported}).`,
    )
    // check_syntax still parses C.
    expect(JSON.parse(ok(await tools.callTool('check_syntax', { path: 'a.c' }))).ok).toBe(true)
  })
})

describe('apply_patch messages (wording §7)', () => {
  const cases: [string, string][] = [
    [
      '--- a/x.ts\n@@ -1 +1 @@\n-a\n+A\n',
      'Malformed patch: Missing "+++ ..." file header for a/x.ts',
    ],
    [
      '--- a/x.ts\t2024-01-01\nnot a header\n',
      'Malformed patch: Missing "+++ ..." file header for a/x.ts',
    ],
    ['--- a/x.ts\n+++ b/x.ts\n', 'Patch contains no applicable hunks'],
    ['just prose\n', 'Patch contains no applicable hunks'],
    ['', 'Patch contains no applicable hunks'],
    ['--- /dev/null\n+++ /dev/null\n', 'Patch contains no applicable hunks'],
    // "when no block has hunks and none is a rename (both cleaned names present, neither
    // `/dev/null`, different)": a hunk-less create or delete block alone has nothing to apply.
    ['--- /dev/null\n+++ b/new.ts\n', 'Patch contains no applicable hunks'],
    ['--- a/x.ts\n+++ /dev/null\n', 'Patch contains no applicable hunks'],
    ['--- /dev/null\n+++ /dev/null\n@@ -0,0 +1 @@\n+x\n', 'Patch is missing a valid file path'],
    ['@@ -1 +1 @@\n-a\n+A\n', 'Patch is missing a valid file path'],
  ]
  for (const [patch, message] of cases) {
    it(`${JSON.stringify(patch).slice(0, 40)} → ${message}`, async () => {
      const { tools } = workspace({ 'x.ts': 'a\nb\nc\n' })
      expect(err(await tools.callTool('apply_patch', { patch }))).toEqual({
        error: 'invalid_input',
        message,
      })
    })
  }

  it('a hunk-less block beside an actionable one is still processed', async () => {
    // "A hunk-less non-rename block beside an actionable one is still processed (a modify
    // rewrites the same text: `  M <rel> (+0 -0)`)".
    const { root: dir, tools } = workspace({ 'x.ts': 'a\n', 'y.ts': 'b\n' })
    const patch = '--- a/x.ts\n+++ b/x.ts\n--- a/y.ts\n+++ b/y.ts\n@@ -1 +1 @@\n-b\n+B\n'
    expect(ok(await tools.callTool('apply_patch', { patch }))).toBe(
      'Applied patch:\n  M x.ts (+0 -0)\n  M y.ts (+1 -1)',
    )
    expect(readFileSync(join(dir, 'y.ts'), 'utf8')).toBe('B\n')
  })

  it('hunks that each apply alone but not together fail with no hunk number', async () => {
    // "`hunk` is omitted when every hunk applies alone in that sequence although the whole
    // block failed (... hunks must land in file order ...)".
    const { root: dir, tools } = workspace({ 'x.ts': 'a\nb\nc\n' })
    const patch = '--- a/x.ts\n+++ b/x.ts\n@@ -2,1 +2,1 @@\n-b\n+B\n@@ -1,1 +1,1 @@\n-a\n+A\n'
    const e = err(await tools.callTool('apply_patch', { patch }))
    expect(e.error).toBe('patch_failed')
    expect(e.message).toBe('Hunk did not apply cleanly in x.ts')
    expect(e.file).toBe('x.ts')
    expect(e).not.toHaveProperty('hunk')
    expect(readFileSync(join(dir, 'x.ts'), 'utf8')).toBe('a\nb\nc\n')
    // A hunk that fails alone is numbered.
    const bad = '--- a/x.ts\n+++ b/x.ts\n@@ -1,1 +1,1 @@\n-a\n+A\n@@ -3,1 +3,1 @@\n-zzz\n+Z\n'
    expect(err(await tools.callTool('apply_patch', { patch: bad }))).toMatchObject({
      error: 'patch_failed',
      message: 'Hunk did not apply cleanly in x.ts',
      file: 'x.ts',
      hunk: 2,
    })
  })
})

describe('apply_patch: a patch that changes only line endings', () => {
  function git(cwd: string, ...args: string[]): string {
    return execFileSync('git', args, {
      cwd,
      encoding: 'utf8',
      env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', HOME: cwd },
    })
  }

  const cases: [string, string, string][] = [
    ['CRLF to LF on some lines', 'a\r\nb\r\nc\r\nd\r\ne\r\n', 'a\r\nb\nc\nd\r\ne\r\n'],
    ['LF to CRLF on some lines', 'a\nb\nc\nd\ne\n', 'a\nb\r\nc\nd\r\ne\n'],
    ['a whole file CRLF to LF', 'one\r\ntwo\r\n', 'one\ntwo\n'],
    ['mixed with a text change', 'x\r\ny\r\nz\r\n', 'x\nY\r\nz\r\n'],
  ]
  for (const [name, before, after] of cases) {
    it(`${name}: the result is what git apply writes`, async () => {
      const repo = tempDir()
      git(repo, 'init', '-q')
      git(repo, 'config', 'core.autocrlf', 'false')
      writeFileSync(join(repo, 'f.txt'), before)
      git(repo, 'add', '.')
      git(repo, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'before')
      writeFileSync(join(repo, 'f.txt'), after)
      git(repo, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qam', 'after')
      const patch = git(repo, 'diff', 'HEAD~1', 'HEAD')
      git(repo, 'checkout', '-q', 'HEAD~1', '--', 'f.txt')
      const patchFile = join(tempDir(), 'p.diff')
      writeFileSync(patchFile, patch)
      git(repo, 'apply', patchFile)
      const viaGit = readFileSync(join(repo, 'f.txt'))
      const { root: dir, tools } = workspace({ 'f.txt': before })
      ok(await tools.callTool('apply_patch', { patch }))
      expect(readFileSync(join(dir, 'f.txt'))).toEqual(viaGit)
    })
  }
})

describe('bash at the root (wording §8)', () => {
  it('spills an overflowing stream and shows its tail behind the marker, even at 64 bytes', async () => {
    // "The marker goes before the tail ... `[... earlier output truncated: last <shownBytes> of
    // <totalBytes> bytes shown; full output written to <rel spill path> ...]\n<tail>` ...
    // Marker bytes are outside the budget."
    const dir = tempDir()
    const config = { ...root.resolveConfig({ workspaceRoot: dir }), maxBashOutputBytes: 64 }
    const r = await root.dispatch('bash', { command: 'seq 1 3000; echo the-end' }, config)
    const report = JSON.parse(ok(r))
    const m =
      /^\[\.\.\. earlier output truncated: last 64 of 13901 bytes shown; full output written to (\.clarvis\/bash-\S+\.stdout\.log) \.\.\.\]\n([\s\S]*)$/.exec(
        report.stdout,
      )
    expect(m).not.toBeNull()
    expect(m?.[2]).toHaveLength(64)
    expect(m?.[2].endsWith('2999\n3000\nthe-end\n')).toBe(true)
    expect(readFileSync(join(dir, m?.[1] ?? ''), 'utf8')).toContain('1\n2\n3\n')
  })

  it('a NUL byte in the command is the io_error Node gives, after the cwd check', async () => {
    const { tools } = workspace({ f: 'x' })
    expect(err(await tools.callTool('bash', { command: 'echo a\0b' }))).toEqual({
      error: 'io_error',
      message:
        "Failed to spawn command: The argument 'args[1]' must be a string without null bytes. Received 'echo a\\x00b'",
    })
    expect(err(await tools.callTool('bash', { command: 'echo a\0b', cwd: 'f' })).error).toBe(
      'not_a_file',
    )
  })
})

/** The raw envelope text of an error result (key order included). */
function envelopeText(r: root.DispatchResult): string {
  expect(r.isError).toBe(true)
  return root.contentText(r.content)
}

describe('the close-reading audit: texts, fields and orders the contract pins', () => {
  it('an envelope is error, message, then the fields in order (serializeError)', async () => {
    // CONTRACT.md: "`serializeError(e)` → `JSON.stringify({ error: code, message, ...fields })`".
    const { tools } = workspace(
      { big: 'x'.repeat(2000), 'a.txt': 'foo\nfoo\n' },
      { maxFileBytes: 1024 },
    )
    expect(envelopeText(await tools.callTool('read_file', { path: 'big' }))).toBe(
      '{"error":"too_large","message":"File is 2000 bytes, exceeding the 1024-byte limit (raise MAX_FILE_BYTES): big","path":"big","size":2000,"limit":1024}',
    )
    const m = JSON.parse(
      envelopeText(
        await tools.callTool('multi_edit', {
          path: 'a.txt',
          edits: [{ old_string: '', new_string: 'y' }],
        }),
      ),
    )
    expect(Object.keys(m).slice(0, 2)).toEqual(['error', 'message'])
  })

  it('an unknown or hidden tool keeps the not_found envelope exactly, the help after it', async () => {
    // Wording §11: "`{"error":"not_found","message":"Unknown tool: <name>"}`". Issue 28 keeps
    // that code and message exactly and adds the help as further fields (`closest`,
    // `available`, or `hidden_by` and `hint`); the seed entry's envelope stays bare.
    const { root: dir, tools } = workspace({}, { readOnly: true })
    for (const name of ['Read_file', 'write_file', 'monitor_send']) {
      const text = envelopeText(await tools.callTool(name, {}))
      expect(text.startsWith(`{"error":"not_found","message":"Unknown tool: ${name}"`)).toBe(true)
    }
    expect(err(await tools.callTool('Read_file', {})).closest).toBe('read_file')
    expect(err(await tools.callTool('write_file', {})).hidden_by).toBe('readOnly')
    const bare = seed.createAgentTools({ workspaceRoot: dir })
    expect(JSON.parse((await bare.callTool('Read_file', {})).text)).toEqual({
      error: 'not_found',
      message: 'Unknown tool: Read_file',
    })
  })

  it('bash timeout and output_limit carry the contract messages', async () => {
    // v0.5 §6: "`Command exceeded <ms>ms`; `Command output exceeded <cap> bytes on a single
    // stream and was killed`".
    const { tools } = workspace()
    const e = err(await tools.callTool('bash', { command: 'echo hi; sleep 5', timeout_ms: 200 }))
    expect(Object.keys(e)).toEqual(['error', 'message', 'timeout_ms', 'stdout', 'stderr'])
    expect(e.message).toBe('Command exceeded 200ms')
    expect(e.stdout).toBe('hi\n')
    const big = err(
      await tools.callTool('bash', { command: 'head -c 9000000 /dev/zero | tr "\\0" x' }),
    )
    expect(big.error).toBe('output_limit')
    expect(big.message).toBe(
      'Command output exceeded 8388608 bytes on a single stream and was killed',
    )
    expect(big.max_capture_bytes).toBe(8388608)
    expect(big.stream).toBeUndefined()
  })

  it('a missing file is "No such file: <input>" for the editing tools too', async () => {
    // v0.5 §2: "Missing → `not_found` `No such file: <input>`".
    const { tools } = workspace()
    for (const [name, args] of [
      ['edit_file', { path: 'nope.txt', old_string: 'a', new_string: 'b' }],
      ['multi_edit', { path: 'nope.txt', edits: [{ old_string: 'a', new_string: 'b' }] }],
      ['apply_patch', { patch: '--- a/nope.txt\n+++ b/nope.txt\n@@ -1,1 +1,1 @@\n-a\n+b\n' }],
    ] as const) {
      expect(envelopeText(await tools.callTool(name, args))).toBe(
        '{"error":"not_found","message":"No such file: nope.txt","path":"nope.txt"}',
      )
    }
  })

  it('apply_patch words a create over a file, two blocks, a partial delete and UTF-16 as the contract', async () => {
    // Wording §7, "Other texts".
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('x\n', 'utf16le')])
    const { tools } = workspace({ 'a.txt': 'a\nb\n', 'u.txt': utf16 })
    const cases: [string, string][] = [
      [
        '--- /dev/null\n+++ b/a.txt\n@@ -0,0 +1,1 @@\n+x\n',
        '{"error":"invalid_input","message":"Cannot create a.txt: a file already exists there. Use a modify hunk with context, or delete it first.","path":"a.txt"}',
      ],
      [
        '--- a/a.txt\n+++ b/a.txt\n@@ -1,1 +1,1 @@\n-a\n+x\n--- a/a.txt\n+++ b/a.txt\n@@ -2,1 +2,1 @@\n-b\n+y\n',
        '{"error":"invalid_input","message":"Patch contains multiple blocks for a.txt; combine them into a single block.","path":"a.txt"}',
      ],
      [
        '--- a/a.txt\n+++ /dev/null\n@@ -1,1 +0,0 @@\n-a\n',
        '{"error":"invalid_input","message":"Delete patch for a.txt does not remove the entire file","path":"a.txt"}',
      ],
      [
        '--- a/u.txt\n+++ b/u.txt\n@@ -1,1 +1,1 @@\n-x\n+y\n',
        '{"error":"is_binary","message":"Patching utf-16le files is not supported (the file would be rewritten as UTF-8): u.txt","path":"u.txt","encoding":"utf-16le"}',
      ],
      [
        '--- a/a.txt\n+++ b/a.txt\n@@ -1,1 +1,1 @@\n-zzz\n+x\n',
        '{"error":"patch_failed","message":"Hunk did not apply cleanly in a.txt","file":"a.txt","hunk":1}',
      ],
    ]
    for (const [patch, envelope] of cases) {
      expect(envelopeText(await tools.callTool('apply_patch', { patch }))).toBe(envelope)
    }
  })

  it('a bad grep regex is the rg path error or Invalid regex, with the pattern field', async () => {
    // Wording §1, "Errors": rg exit 2 → `ripgrep error: <stderr trimmed>`, field `pattern`;
    // in-process → `Invalid regex: <engine message>`, field `pattern`.
    for (const rg of [true, false]) {
      const { tools } = workspace({ 'a.txt': 'x\n' }, { probeRipgrep: () => rg })
      const e = err(await tools.callTool('grep', { pattern: '(' }))
      expect(Object.keys(e)).toEqual(['error', 'message', 'pattern'])
      expect(e.pattern).toBe('(')
      expect(e.message).toBe(
        rg
          ? 'ripgrep error: regex parse error:\n    (\n    ^\nerror: unclosed group'
          : // The in-process engine is the reference's V8.
            'Invalid regex: Invalid regular expression: /(/: Unterminated group',
      )
    }
  })

  it('without rg, grep reads its pattern as the in-process path’s JavaScript RegExp does', async () => {
    // Wording §1: the in-process path compiles a `RegExp` (flags `i` or none; `gms`/`gmsi` when
    // multiline), so `\d` is ASCII, `\p` an identity escape and `x{` a literal.
    const text = 'x{\n٣\np{L}\n7\n'
    for (const rg of [true, false]) {
      const { tools } = workspace({ 'a.txt': text }, { probeRipgrep: () => rg })
      for (const pattern of ['^\\d$', '\\p{L}', 'x{']) {
        const r = await tools.callTool('grep', { pattern, output_mode: 'content' })
        if (rg) {
          // rg's syntax: `\d` is Unicode, `\p{L}` a letter class, `x{` an error.
          if (pattern === 'x{') expect(err(r).message).toMatch(/^ripgrep error: /)
          continue
        }
        const re = new RegExp(pattern)
        const want = text
          .split('\n')
          .map((line, i) => (re.test(line) && line ? `a.txt:${i + 1}:${line}` : ''))
          .filter(Boolean)
          .join('\n')
        expect(ok(r), pattern).toBe(want)
      }
    }
  })

  it('monitor regex errors name the argument as their field; monitor_start answers five keys', async () => {
    // v0.5 §3: "`Invalid match regex: <msg>`, field `match`"; "`Invalid ready_when regex:
    // <msg>`, field `ready_when`"; monitor_start "returns `{"id","running","ready","output",
    // "next_offset"}`".
    const { tools } = workspace()
    const e = err(await tools.callTool('monitor_start', { command: 'true', ready_when: '(' }))
    expect(e).toEqual({
      error: 'invalid_input',
      // <msg> is what the reference's `new RegExp(ready_when)` throws.
      message: 'Invalid ready_when regex: Invalid regular expression: /(/: Unterminated group',
      ready_when: '(',
    })
    const done = JSON.parse(
      ok(await tools.callTool('monitor_start', { command: 'exit 0', ready_when: 'never' })),
    )
    expect(Object.keys(done)).toEqual(['id', 'running', 'ready', 'output', 'next_offset'])
    expect([done.ready, done.running]).toEqual([false, false])
    const p = err(await tools.callTool('monitor_poll', { id: done.id, match: '(' }))
    expect(p).toEqual({
      error: 'invalid_input',
      message: 'Invalid match regex: Invalid regular expression: /(/: Unterminated group',
      match: '(',
    })
    await tools.callTool('monitor_stop', { id: done.id })
  })

  it('the syntax warning is the contract line alone, even over a broken file', async () => {
    // v0.5 §4: "\nwarning: <grammar> syntax error in <rel> at line <L>, column <C> (near
    // `<near>`); run check_syntax for details."
    const { tools } = workspace({ 'w.ts': 'const x = ;\n' })
    const text = ok(await tools.callTool('write_file', { path: 'w.ts', content: 'const y = ;\n' }))
    expect(text).toBe(
      'Wrote 12 bytes to w.ts (overwritten).\nwarning: typescript syntax error in w.ts at line 1, column 9 (near `const y = ;`); run check_syntax for details.',
    )
  })

  it('read_image answers exactly one image part, with no meta', async () => {
    // v0.5 §2: "Output: exactly one `ImagePart` (base64 data) and no text part."
    const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex')
    const { tools } = workspace({ 'i.png': png })
    const r = await tools.callTool('read_image', { path: 'i.png' })
    expect(r).toEqual({
      isError: false,
      content: [{ type: 'image', data: png.toString('base64'), mimeType: 'image/png' }],
    })
  })

  it('names a spill file bash-<pid>-<epochMs>-<counter>-<12 hex>', async () => {
    // Wording §8: "`.clarvis/bash-<pid>-<epochMs>-<counter>-<12 hex>.<stdout|stderr>.log`".
    const { tools } = workspace({}, { maxBashOutputBytes: 1024 })
    const before = Date.now()
    const out = JSON.parse(ok(await tools.callTool('bash', { command: 'seq 1 2000' })))
    const m =
      /full output written to \.clarvis\/bash-(\d+)-(\d+)-(\d+)-([0-9a-f]{12})\.stdout\.log/.exec(
        out.stdout,
      )
    expect(m).not.toBeNull()
    expect(Number(m?.[1])).toBe(process.pid)
    expect(Math.abs(Number(m?.[2]) - before)).toBeLessThan(60_000)
  })

  it('buildGuardContext always has the five keys; bash facts only for a string command', () => {
    // Wording §9: "`buildGuardContext` always returns `{ tool, args, config, paths, bash }` ...
    // bash/monitor_start without a string `command`: `bash` undefined, `paths` = `cwd` only".
    const config = root.resolveConfig({ workspaceRoot: tempDir() })
    const ctx = root.buildGuardContext('read_file', {}, config)
    expect(Object.keys(ctx)).toEqual(['tool', 'args', 'config', 'paths', 'bash'])
    expect(ctx.bash).toBeUndefined()
    const b = root.buildGuardContext('bash', { cwd: 'sub' }, config)
    expect(b.bash).toBeUndefined()
    expect(b.paths.map((p) => p.raw)).toEqual(['sub'])
  })

  it('resolveConfig: unknown keys ignored, a plain unfrozen object, probes last', () => {
    // Wording §3: "Unknown option keys are ignored silently: `resolveConfig` builds a new plain
    // object from the known fields only (not frozen)"; "then the two probes (each called once)".
    // Ignored: the key changes nothing and is not in the config; issue 28 adds one warn-sink
    // line naming the real option, never an error.
    const lines: string[] = []
    root.setWarnSink((m) => lines.push(m))
    try {
      const dir = tempDir()
      const config = root.resolveConfig({ workspaceRoot: dir, readonly: true } as never)
      expect(config.readOnly).toBe(false)
      expect('readonly' in config).toBe(false)
      expect(lines).toEqual([
        'clarvis-agent-tools: unknown option "readonly" is ignored; did you mean "readOnly"?\n',
      ])
      lines.length = 0
      expect(Object.isFrozen(config)).toBe(false)
      let calls = 0
      const probe = () => {
        calls++
        return true
      }
      expect(() =>
        root.resolveConfig({
          workspaceRoot: join(dir, 'none'),
          probeRipgrep: probe,
          probeTreeSitter: probe,
        }),
      ).toThrow('Workspace root does not exist:')
      expect(() =>
        root.buildConfig([], { WORKSPACE_ROOT: dir, MAX_OUTPUT_BYTES: 'x' }, probe, probe),
      ).toThrow('MAX_OUTPUT_BYTES must be a positive integer, got: x')
      expect(calls).toBe(0)
      const c = root.resolveConfig({
        workspaceRoot: dir,
        probeRipgrep: probe,
        probeTreeSitter: () => false,
      })
      expect(calls).toBe(1)
      expect([c.ripgrepAvailable, c.treeSitterAvailable]).toEqual([true, false])
    } finally {
      root.setWarnSink(null)
    }
  })

  it('a changed config is seen by the next call (the root config is not frozen)', async () => {
    // Wording §3: "(not frozen)": a caller may change a field, and dispatch must read it.
    const { root: dir } = workspace({ 'a.txt': 'x\n' })
    const config = root.resolveConfig({ workspaceRoot: dir })
    expect(ok(await root.dispatch('write_file', { path: 'b.txt', content: 'y' }, config))).toMatch(
      /created/,
    )
    config.readOnly = true
    expect(
      err(await root.dispatch('write_file', { path: 'b.txt', content: 'z' }, config)),
    ).toMatchObject({
      error: 'not_found',
      message: 'Unknown tool: write_file',
      hidden_by: 'readOnly',
    })
    config.readOnly = false
    expect(ok(await root.dispatch('write_file', { path: 'b.txt', content: 'z' }, config))).toMatch(
      /overwritten/,
    )
  })

  it('grep names a missing search root by its absolute path, before compiling the pattern', async () => {
    // Wording §1: "a missing root (file or directory) → `not_found` `No such file: <absolute
    // resolved path>`, field `path` also absolute"; the regex is compiled after.
    const { root: dir, tools } = workspace()
    for (const pattern of ['x', '(']) {
      expect(envelopeText(await tools.callTool('grep', { pattern, path: 'nope/d' }))).toBe(
        JSON.stringify({
          error: 'not_found',
          message: `No such file: ${join(dir, 'nope/d')}`,
          path: join(dir, 'nope/d'),
        }),
      )
    }
  })

  it('quotes a number under its floor as JavaScript writes it', () => {
    // Wording §3: "`<name> must be an integer >= <min>, got: <value>` (under the floor or not a
    // safe integer)"; `got:` is `String(value)`.
    const dir = tempDir()
    expect(() => root.resolveConfig({ workspaceRoot: dir, bashTimeoutMs: 1e20 })).toThrow(
      'bashTimeoutMs must be an integer >= 1, got: 100000000000000000000',
    )
    expect(() => root.resolveConfig({ workspaceRoot: dir, maxOutputBytes: 1e21 })).toThrow(
      'maxOutputBytes must be an integer >= 1024, got: 1e+21',
    )
    // Digits past a safe integer are still a number (`^\d+$`), refused by the floor check.
    expect(() =>
      root.buildConfig([], { WORKSPACE_ROOT: dir, MAX_OUTPUT_BYTES: '99999999999999999999' }),
    ).toThrow('maxOutputBytes must be an integer >= 1024, got: 100000000000000000000')
  })

  it('mkdir makes a directory named with a trailing slash, as mkdir -p does', async () => {
    // v0.5 §2 mkdir: "Behaves like `mkdir -p`". Output `Created directory <rel>.`
    const { root: dir, tools } = workspace()
    expect(ok(await tools.callTool('mkdir', { path: './a/b/' }))).toBe('Created directory a/b.')
    expect(ok(await tools.callTool('mkdir', { path: 'a/b/' }))).toBe(
      'Directory already exists: a/b.',
    )
    expect(readdirSync(join(dir, 'a'))).toEqual(['b'])
  })

  it('errors quote the path exactly as the caller passed it', async () => {
    // v0.5 page: "`<input>` is the path string exactly as the caller passed it"; §2: "Missing →
    // `not_found` `No such file: <input>`"; wording §4: `Path is a directory: <input>`,
    // `Not a directory: <input>` (list_dir, bash `cwd`).
    const { root: dir, tools } = workspace({ 'f.txt': 'x\n', 'd/g.txt': 'y\n' })
    const abs = join(dir, 'gone.txt')
    const cases: [string, Record<string, unknown>, string, string][] = [
      ['read_file', { path: './gone.txt' }, 'not_found', 'No such file: ./gone.txt'],
      ['read_file', { path: abs }, 'not_found', `No such file: ${abs}`],
      ['read_file', { path: './d/' }, 'not_a_file', 'Path is a directory: ./d/'],
      [
        'edit_file',
        { path: './gone.txt', old_string: 'a', new_string: 'b' },
        'not_found',
        'No such file: ./gone.txt',
      ],
      ['write_file', { path: 'd/../d', content: 'x' }, 'not_a_file', 'Path is a directory: d/../d'],
      ['list_dir', { path: './nope' }, 'not_found', 'No such file: ./nope'],
      ['list_dir', { path: './f.txt' }, 'not_a_file', 'Not a directory: ./f.txt'],
      ['diff', { from: './f.txt', to: './gone.txt' }, 'not_found', 'No such file: ./gone.txt'],
      ['bash', { command: 'true', cwd: './f.txt' }, 'not_a_file', 'Not a directory: ./f.txt'],
    ]
    for (const [name, args, code, message] of cases) {
      const e = err(await tools.callTool(name, args))
      expect([name, e.error, e.message]).toEqual([name, code, message])
      expect(e.path).toBe(message.slice(message.indexOf(': ') + 2))
    }
  })

  it('monitor_start with a NUL byte fails as Node spawning its sh -c script does', async () => {
    // v0.5 §3: the command runs as `sh -c "trap 'printf \"%s\" \"$?\" > \"$MON_EXIT\"'
    // EXIT\n<command>\n"`; "Order: cwd check, regex compile, live-count check, spawn"; "A spawn
    // failure → `io_error` `Failed to spawn monitor: <msg>`". The expected text is Node's own.
    const { tools } = workspace({ f: 'x' })
    for (const command of ['echo a\0b', `${'x'.repeat(200)}\0`]) {
      const script = `trap 'printf "%s" "$?" > "$MON_EXIT"' EXIT\n${command}\n`
      let nodeMessage = ''
      try {
        spawn('sh', ['-c', script])
      } catch (e) {
        nodeMessage = (e as Error).message
      }
      expect(nodeMessage).toContain('without null bytes')
      expect(err(await tools.callTool('monitor_start', { command }))).toEqual({
        error: 'io_error',
        message: `Failed to spawn monitor: ${nodeMessage}`,
      })
    }
    expect(err(await tools.callTool('monitor_start', { command: 'a\0', cwd: 'f' })).error).toBe(
      'not_a_file',
    )
  })

  it('tree names a missing directory by its display path', async () => {
    // Wording §4: "`<p>` is the caller's `<input>` almost everywhere; ... tree the display path
    // of its directory".
    const { tools } = workspace({ 'f.txt': 'x' })
    expect(envelopeText(await tools.callTool('tree', { path: './x/../gone' }))).toBe(
      '{"error":"not_found","message":"No such file: gone","path":"gone"}',
    )
    expect(err(await tools.callTool('tree', { path: './f.txt' })).message).toBe(
      'Not a directory: ./f.txt',
    )
  })

  it('reports the self-bounded tools of the registry', () => {
    // Wording §10: "Self-bounded (`bounded: true`): `read_file`, `read_files`, `grep`, `bash`,
    // the four `monitor_*`."
    expect(root.tools.filter((t) => t.bounded).map((t) => t.name)).toEqual([
      'read_file',
      'read_files',
      'grep',
      'bash',
      'monitor_start',
      'monitor_poll',
      'monitor_stop',
      'monitor_list',
    ])
  })
})

describe('a symlink loop is fsError ELOOP at the root, an escape with extras', () => {
  // CONTRACT.md: the check "canonicalizes the longest existing prefix of the path", which a
  // loop passes; the I/O then fails, and wording §4 words it:
  // `ELOOP: ELOOP: too many symbolic links encountered, stat '/abs/x'`.
  it('read_file, list_dir, tree, glob and grep say ELOOP; nothing is read', async () => {
    const { root: dir, tools } = workspace({})
    symlinkSync('loopb', join(dir, 'loopa'))
    symlinkSync('loopa', join(dir, 'loopb'))
    const eloop = (p: string) =>
      `ELOOP: ELOOP: too many symbolic links encountered, stat '${join(dir, p)}'`
    for (const [tool, args, path] of [
      ['read_file', { path: 'loopa' }, 'loopa'],
      ['list_dir', { path: 'loopa' }, 'loopa'],
      ['tree', { path: 'loopa' }, 'loopa'],
      ['glob', { pattern: '*', path: 'loopa' }, 'loopa'],
      // grep passes its absolute search root (wording §4).
      ['grep', { pattern: 'x', path: 'loopa' }, join(dir, 'loopa')],
    ] as const) {
      expect(JSON.parse(envelopeText(await tools.callTool(tool, args))), tool).toEqual({
        error: 'io_error',
        message: eloop('loopa'),
        path,
      })
    }
    // bash's cwd is stat'ed the same way.
    expect(
      JSON.parse(envelopeText(await tools.callTool('bash', { command: 'pwd', cwd: 'loopa' }))),
    ).toEqual({ error: 'io_error', message: eloop('loopa'), path: 'loopa' })
    // A loop further up the path is no final name the check can pass: an escape.
    expect(
      JSON.parse(envelopeText(await tools.callTool('read_file', { path: 'loopa/x' }))).error,
    ).toBe('path_escape')
    const extras = root.createAgentTools({ workspaceRoot: dir, extras: true })
    const e = JSON.parse(envelopeText(await extras.callTool('read_file', { path: 'loopa' })))
    expect(e.error).toBe('path_escape')
  })
})

describe('apply_patch reads a unified diff as jsdiff 9 does (wording §7, second audit)', () => {
  // "Any jsdiff parse error → `invalid_input` `Malformed patch: <jsdiff message>` (no fields)";
  // "the text after `Malformed patch: ` is jsdiff 9's own". Each expected text below is what
  // jsdiff 9.0.0's `parsePatch` throws for that patch.
  const cases: [string, string][] = [
    // The header is trimmed before the tab split, and a quoted name is unquoted.
    ['--- \ta/x.ts\n', 'Missing "+++ ..." file header for a/x.ts'],
    ['--- "a/x.ts"\n+++\n', 'Missing "+++ ..." file header for a/x.ts'],
    // "A lone `+++` gives `Malformed patch: Missing "--- ..." file header for <new name>`".
    ['+++ b/x.ts\n', 'Missing "--- ..." file header for b/x.ts'],
    // Counts the body does not meet, which our own reader would have tolerated.
    [
      '--- a/x.ts\n+++ b/x.ts\n@@ -1,2 +1,3 @@\n-a\n+A\n b',
      'Added line count did not match for hunk at line 3',
    ],
    [
      '--- a/x.ts\n+++ b/x.ts\n@@ -1,3 +1,2 @@\n-a\n+A\n b',
      'Removed line count did not match for hunk at line 3',
    ],
    [
      '--- a/x.ts\n+++ b/x.ts\n@@ -1 +1 @@\n-a\n+A\n+B\n',
      'Hunk at line 3 has more lines than expected (expected 1 old lines and 1 new lines)',
    ],
    [
      '--- a/x.ts\n+++ b/x.ts\n@@ -1,2 +1,2 @@\n-a\n+A\nb\n c\n',
      'Hunk at line 3 contained invalid line b',
    ],
    // The final empty string after the last `\n` is no context line.
    ['--- a/x.ts\n+++ b/x.ts\n@@ -1,3 +1,3 @@\n-a\n+A\n', 'Hunk at line 3 contained invalid line '],
    [
      '--- a/x.ts\n+++ b/x.ts\n@@ -1 +1 @@\n-a\n+A\n--- a/y.ts\n+++ b/y.ts\n@@ -1,2 +1,2 @@\n-b\n+B\n',
      'Hunk at line 8 contained invalid line ',
    ],
  ]
  for (const [patch, jsdiff] of cases) {
    it(`${JSON.stringify(patch).slice(0, 48)} → ${jsdiff}`, async () => {
      const { root: dir, tools } = workspace({ 'x.ts': 'a\nb\nc\n', 'y.ts': 'b\nc\n' })
      expect(envelopeText(await tools.callTool('apply_patch', { patch }))).toBe(
        JSON.stringify({ error: 'invalid_input', message: `Malformed patch: ${jsdiff}` }),
      )
      expect(readFileSync(join(dir, 'x.ts'), 'utf8')).toBe('a\nb\nc\n')
    })
  }

  it('reads hunk headers as jsdiff 9 does: `@@` and a space, numbers it can read, or the hunk never applies', async () => {
    // "Parsing is jsdiff's `parsePatch`": a line that is not `@@` plus a space is prose, and a
    // header whose ranges jsdiff cannot read gets a NaN start, so `applyPatch` fails it
    // ("Hunk failure → `patch_failed`"). Each expectation is what jsdiff 9 itself does.
    const file = 'a\nb\nc\n'
    const headers = [
      '@@ -x +y @@',
      '@@ @@',
      '@@',
      '@@@ -1 +1 @@@',
      '@@  -1 +1 @@',
      '@@ -1 +1 @@ trailing text',
      '@@ note @@ -1 +1 @@',
    ]
    const bodies = ['-a\n+A\n', ' a\n-b\n+B\n']
    for (const header of headers) {
      for (const body of bodies) {
        const patch = `--- a/x.ts\n+++ b/x.ts\n${header}\n${body}`
        const { root: dir, tools } = workspace({ 'x.ts': file })
        const r = await tools.callTool('apply_patch', { patch })
        const label = JSON.stringify(patch)
        let parsed: ReturnType<typeof parsePatch>
        try {
          parsed = parsePatch(patch)
        } catch (e) {
          expect(envelopeText(r), label).toBe(
            JSON.stringify({
              error: 'invalid_input',
              message: `Malformed patch: ${(e as Error).message}`,
            }),
          )
          continue
        }
        const hunks = parsed.flatMap((p) => p.hunks)
        if (hunks.length === 0) {
          expect(envelopeText(r), label).toBe(
            '{"error":"invalid_input","message":"Patch contains no applicable hunks"}',
          )
          continue
        }
        const applied = applyPatch(file, parsed[0])
        if (applied === false) {
          expect(JSON.parse(envelopeText(r)), label).toMatchObject({
            error: 'patch_failed',
            message: 'Hunk did not apply cleanly in x.ts',
            file: 'x.ts',
          })
          expect(readFileSync(join(dir, 'x.ts'), 'utf8')).toBe(file)
        } else {
          expect(r.isError, label).toBe(false)
          expect(readFileSync(join(dir, 'x.ts'), 'utf8'), label).toBe(applied)
        }
      }
    }
    // Prose between two hunks does not end the block: both hunks are its own.
    const { root: dir, tools } = workspace({ 'x.ts': file })
    const patch = '--- a/x.ts\n+++ b/x.ts\n@@ -1 +1 @@\n-a\n+A\nsome prose\n@@ -3 +3 @@\n-c\n+C\n'
    expect(applyPatch(file, parsePatch(patch)[0])).toBe('A\nb\nC\n')
    expect(ok(await tools.callTool('apply_patch', { patch }))).toBe(
      'Applied patch:\n  M x.ts (+2 -2)',
    )
    expect(readFileSync(join(dir, 'x.ts'), 'utf8')).toBe('A\nb\nC\n')
  })

  it('takes end-of-file markers as jsdiff 9 does: after a change in the last hunk only', async () => {
    // wording §7: "end-of-file newline markers are taken from the last hunk only"; after a
    // context line the file keeps its own ending. Each expectation is jsdiff 9's own result.
    const H = '--- a/x.ts\n+++ b/x.ts\n'
    const NO_EOL = '\\ No newline at end of file\n'
    const cases: [string, string][] = [
      ['a\nb\nc\n', `${H}@@ -1,3 +1,3 @@\n-a\n+x\n b\n c\n${NO_EOL}`],
      ['a\nb\nc', `${H}@@ -1,3 +1,3 @@\n-a\n+x\n b\n c\n${NO_EOL}`],
      ['a\nb\nc\n', `${H}@@ -1,3 +1,3 @@\n a\n${NO_EOL}-b\n+y\n c\n`],
      ['a\nb\nc', `${H}@@ -1,3 +1,3 @@\n a\n b\n-c\n${NO_EOL}+c\n`],
      ['a\nb\nc\n', `${H}@@ -1,3 +1,3 @@\n a\n b\n-c\n+c\n${NO_EOL}`],
      ['a\nb\nc\nd\ne\n', `${H}@@ -1,1 +1,1 @@\n-a\n+x\n${NO_EOL}@@ -5,1 +5,1 @@\n-e\n+y\n`],
      // A new start no line number holds: jsdiff places a hunk by its old start.
      ['a\nb\nc\n', `${H}@@ -1,1 +99999999999999999999999,1 @@\n-a\n+x\n`],
    ]
    for (const [file, patch] of cases) {
      const want = applyPatch(file, parsePatch(patch)[0])
      expect(want, patch).not.toBe(false)
      const { root: dir, tools } = workspace({ 'x.ts': file })
      ok(await tools.callTool('apply_patch', { patch }))
      expect(readFileSync(join(dir, 'x.ts'), 'utf8'), patch).toBe(want)
    }
  })

  it('with extras the engine still reads counts leniently', async () => {
    const { root: dir, tools } = workspace({ 'x.ts': 'a\nb\nc\n' }, { extras: true })
    const patch = '--- a/x.ts\n+++ b/x.ts\n@@ -1,3 +1,3 @@\n-a\n+A\n'
    expect(ok(await tools.callTool('apply_patch', { patch }))).toBe(
      'Applied patch:\n  M x.ts (+1 -1)',
    )
    expect(readFileSync(join(dir, 'x.ts'), 'utf8')).toBe('A\nb\nc\n')
  })

  it('an earlier block’s error wins over a later block with no valid file path', async () => {
    // "Blocks are handled in order, so an earlier block's error (e.g. `not_found`) wins."
    const { root: dir, tools } = workspace({ 'x.ts': 'a\n' })
    const nullBlock = '--- /dev/null\n+++ /dev/null\n@@ -0,0 +1 @@\n+x\n'
    const missing = '--- a/nope.ts\n+++ b/nope.ts\n@@ -1 +1 @@\n-a\n+b\n'
    const fine = '--- a/x.ts\n+++ b/x.ts\n@@ -1 +1 @@\n-a\n+A\n'
    expect(envelopeText(await tools.callTool('apply_patch', { patch: missing + nullBlock }))).toBe(
      '{"error":"not_found","message":"No such file: nope.ts","path":"nope.ts"}',
    )
    for (const patch of [nullBlock + missing, fine + nullBlock, fine + nullBlock + missing]) {
      expect(envelopeText(await tools.callTool('apply_patch', { patch }))).toBe(
        '{"error":"invalid_input","message":"Patch is missing a valid file path"}',
      )
    }
    expect(readFileSync(join(dir, 'x.ts'), 'utf8')).toBe('a\n')
  })

  it('reads `+++` before `---` as jsdiff does, each header naming its own side', async () => {
    // jsdiff 9's parsePatch reads a block's two file headers in either order: `---` names the
    // old file and `+++` the new one.
    for (const options of [{}, { extras: true }]) {
      const { root: dir, tools } = workspace({ x: 'a\nb\nc\n', y: 'k\nb\n' }, options)
      const patch =
        '+++ b/x\n--- a/x\n@@ -1 +1 @@\n-a\n+A\n+++ b/y\n--- a/y\n@@ -1,2 +1,2 @@\n k\n-b\n+B\n'
      expect(ok(await tools.callTool('apply_patch', { patch }))).toBe(
        'Applied patch:\n  M x (+1 -1)\n  M y (+1 -1)',
      )
      expect(readFileSync(join(dir, 'x'), 'utf8')).toBe('A\nb\nc\n')
      expect(readFileSync(join(dir, 'y'), 'utf8')).toBe('k\nB\n')
    }
  })
})

describe('outline and the guard, second audit (wording §6, §9)', () => {
  it('cuts a header at 150 characters as JavaScript counts them', async () => {
    // Wording §6: "over 150 characters → first 150 + `...`": `length` counts an astral
    // character (an emoji) as two.
    const line = `function f() { return 'x${'😀'.repeat(100)}' }`
    const { tools } = workspace({ 'e.ts': `${line}\n` })
    const row = ok(await tools.callTool('outline', { path: 'e.ts' })).split('\n')[1]
    const header = line.slice(0, 150)
    expect(header.length).toBe(150)
    expect(row).toBe(`  ${header}... (1-1)`)
  })

  it('an unknown tool name gives no paths; replace adds . only for a missing or empty path', () => {
    // Wording §9: "A missing or non-string argument adds nothing ... **Exception:** `replace`
    // with `path` missing or `""` adds `.` (the root) ... an unknown tool name gives
    // `paths: []`."
    const config = root.resolveConfig({ workspaceRoot: tempDir() })
    const raw = (tool: string, args: Record<string, unknown>) =>
      root.buildGuardContext(tool, args, config).paths.map((p) => p.raw)
    expect(raw('no_such_tool', { path: 'a.txt' })).toEqual([])
    expect(raw('Read_file', { path: 'a.txt' })).toEqual([])
    expect(raw('read_file', { path: 'a.txt' })).toEqual(['a.txt'])
    expect(raw('replace', {})).toEqual(['.'])
    expect(raw('replace', { path: '' })).toEqual(['.'])
    expect(raw('replace', { path: 7 })).toEqual([])
    expect(raw('replace', { path: 'src' })).toEqual(['src'])
  })

  it('keeps a substitution in double quotes as one token', () => {
    // Wording §9: "`"$(cat /x)"` is one token `$(cat /x)` with metacharacters: not listed."
    expect(root.analyzeBash('echo "$(cat /x)"')).toEqual({
      paths: [],
      undecidable: true,
      segments: [
        {
          command: 'echo "$(cat /x)"',
          argv: ['echo', '$(cat /x)'],
          normalized: 'echo $(cat /x)',
          decidable: false,
        },
      ],
    })
    // Outside quotes its contents are dropped, as before.
    expect(root.analyzeBash('cat $(cat /x) /y').segments[0].argv).toEqual(['cat', '/y'])
  })

  it('a variable is $ or ${ followed by a letter or _', () => {
    // Wording §9: "`$` + letter/`_` (`$X`, `${X`)" makes a segment undecidable.
    const decidable = (c: string) => root.analyzeBash(c).segments[0].decidable
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell commands, not templates
    for (const c of ['echo $X', 'echo ${X}', 'echo ${_x}', 'echo "$HOME"']) {
      expect([c, decidable(c)]).toEqual([c, false])
    }
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell commands, not templates
    for (const c of ['echo $1', 'echo ${1}', "echo '$X'"]) {
      expect([c, decidable(c)]).toEqual([c, true])
    }
  })
})
describe('the second close-reading audit (wording §1-§5)', () => {
  it('grep rows show whole lines; paths sort by UTF-16 code units', async () => {
    // Wording §1: rows are `<rel>:<line>:<text>` (only a final `\r?\n` stripped), units
    // "code-unit sorted" (JavaScript's default sort).
    const names = ['a/x.txt', 'a-b.txt', 'a.txt', '\uFF41', '\u{1F600}']
    const long = `${'x'.repeat(700)}needle`
    for (const rg of [true, false]) {
      const files: Record<string, string> = { 'long.txt': `${long}\n` }
      for (const n of names) files[n] = 'needle\n'
      const { tools } = workspace(files, { probeRipgrep: () => rg })
      const sorted = [...names, 'long.txt'].sort()
      expect(ok(await tools.callTool('grep', { pattern: 'needle' }))).toBe(sorted.join('\n'))
      expect(ok(await tools.callTool('grep', { pattern: 'x{700}', output_mode: 'content' }))).toBe(
        `long.txt:1:${long}`,
      )
    }
  })

  it('grep: UTF-16 and lone CR as each path of the contract reads them', async () => {
    // Wording §1: a single-file target that is binary by the NUL check "with no UTF-16-BOM
    // exception" has no matches; the in-process path skips UTF-16 files and decodes
    // "CRLF/CR → LF"; the ripgrep path searches them as rg does.
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('needle\n', 'utf16le')])
    const files = { 'u.txt': utf16, 'c.txt': 'a\rneedle\r\nb\n' }
    const rg = workspace(files, { probeRipgrep: () => true }).tools
    const inProcess = workspace(files, { probeRipgrep: () => false }).tools
    for (const tools of [rg, inProcess]) {
      expect(ok(await tools.callTool('grep', { pattern: 'needle', path: 'u.txt' }))).toBe(
        '(no matches)',
      )
    }
    const content = { pattern: 'needle', output_mode: 'content' }
    expect(ok(await rg.callTool('grep', content))).toBe('c.txt:1:a\rneedle\nu.txt:1:needle')
    expect(ok(await inProcess.callTool('grep', content))).toBe('c.txt:2:needle')
  })

  it('in-process multiline: a run of single-line matches is one row per line', async () => {
    // Wording §1: "a run containing any multi-line match is one match row ...; a run of
    // single-line matches is one row per line".
    const { tools } = workspace({ 'n.txt': 'x1\nx2\ny\nz\n' }, { probeRipgrep: () => false })
    const grep = (pattern: string, output_mode: string) =>
      tools.callTool('grep', { pattern, multiline: true, output_mode })
    expect(ok(await grep('x\\d\\n', 'content'))).toBe('n.txt:1:x1\nn.txt:2:x2')
    expect(ok(await grep('x\\d\\n', 'count'))).toBe('n.txt:2')
    expect(ok(await grep('x2\\ny|z', 'content'))).toBe('n.txt:2:x2\ny\nz')
  })

  it('grep context: only context rows near an anchor on the page, -- where lines jump', async () => {
    // Wording §1: "a unit is a match row ... A context row is shown only if within
    // before/after of an anchor on the current page"; a match row off the page is not shown.
    const { tools } = workspace({ 'f.txt': 'c1\nm2\nc3\nm4\nc5\nc6\nm7\nc8\n' })
    const grep = (args: Record<string, unknown>) =>
      tools.callTool('grep', { pattern: '^m', output_mode: 'content', ...args })
    // Before m7 (offset 2): c5 and c6, not the match m4 of the page before.
    expect(ok(await grep({ before_context: 3, offset: 2, head_limit: 1 }))).toBe(
      'f.txt-5-c5\nf.txt-6-c6\nf.txt:7:m7',
    )
    // After m2 (page 0..1): c3, then c5 across the next page's m4, so `--` between them.
    expect(ok(await grep({ after_context: 3, head_limit: 1 }))).toBe(
      'f.txt:2:m2\nf.txt-3-c3\n--\nf.txt-5-c5\n[... showing 0..1 of 3; call again with offset=1 for more ...]',
    )
  })
})

describe('the second close-reading audit: list_dir, configuration, fsError (wording §3-§5)', () => {
  it('list_dir sorts names by UTF-16 code units', async () => {
    // Wording §5: "Directories first, then name in UTF-16 code-unit order".
    const { tools } = workspace({
      '\uFF41': '1',
      '\u{1F600}': '22',
      b: '',
      'd\uFF41/x': '',
      'd\u{1F600}/x': '',
    })
    expect(ok(await tools.callTool('list_dir', {}))).toBe(
      'd\u{1F600}/\nd\uFF41/\nb\t0\n\u{1F600}\t2\n\uFF41\t1',
    )
  })

  it('list_dir: a name that is not UTF-8 names no file, so its stat fails (size 0)', async () => {
    // Wording §5: "Every non-directory entry and every symlink is `stat`ed ... (same for any
    // entry whose stat fails)": Node reads the name with U+FFFD, which names no entry (as
    // wording §1 says of grep's walker: "a non-UTF-8 name no longer names a real file").
    const { root: dir, tools } = workspace({ 'a.txt': 'abc' })
    writeFileSync(Buffer.concat([Buffer.from(join(dir, 'x')), Buffer.from([0xff])]), 'hello')
    expect(ok(await tools.callTool('list_dir', {}))).toBe('a.txt\t3\nx\uFFFD\t0')
  })

  it('NaN and Infinity are not safe integers; the first --workspace wins', () => {
    // Wording §3: "`<name> must be an integer >= <min>, got: <value>` (under the floor or not
    // a safe integer)"; "The first `--workspace`/`--workspace=` in order wins"; "neither argv
    // nor `WORKSPACE_ROOT` (empty counts as absent)".
    const dir = tempDir()
    expect(
      message(() => root.resolveConfig({ workspaceRoot: dir, maxOutputBytes: Number.NaN })),
    ).toBe('maxOutputBytes must be an integer >= 1024, got: NaN')
    expect(
      message(() =>
        root.resolveConfig({ workspaceRoot: dir, maxMonitors: Number.POSITIVE_INFINITY }),
      ),
    ).toBe('maxMonitors must be an integer >= 1, got: Infinity')
    expect(root.buildConfig(['--workspace', dir, '--workspace'], {}).workspaceRoot).toBe(dir)
    expect(root.buildConfig([`--workspace=${dir}`, '--workspace='], {}).workspaceRoot).toBe(dir)
    expect(message(() => root.buildConfig(['--workspace', ''], {}))).toBe(
      'No workspace root: pass --workspace <path> or set WORKSPACE_ROOT.',
    )
  })

  it("an fs failure other than ENOENT/EISDIR/ENOTDIR quotes Node's own message", async () => {
    // Wording §4: "`<err.code>: <err.message>` ... e.g. `ENAMETOOLONG: ENAMETOOLONG: name too
    // long, stat '/abs/…'`"; grep passes its absolute search root.
    const { root: dir, tools } = workspace()
    const name = 'n'.repeat(300)
    const abs = join(dir, name)
    const node = `ENAMETOOLONG: ENAMETOOLONG: name too long, stat '${abs}'`
    for (const tool of ['read_file', 'list_dir']) {
      expect(err(await tools.callTool(tool, { path: name }))).toEqual({
        error: 'io_error',
        message: node,
        path: name,
      })
    }
    expect(err(await tools.callTool('grep', { pattern: 'x', path: name }))).toEqual({
      error: 'io_error',
      message: node,
      path: abs,
    })
  })
})

describe('fsError without permission (wording §4)', () => {
  /** Runs `script` (CommonJS, `root` and `dir` bound) as a user without root's bypass. */
  function unprivileged(dir: string, script: string): unknown {
    const entry = join(packageForAnyUser(), 'index.js')
    const code = `const root = require(${JSON.stringify(entry)}); const dir = ${JSON.stringify(dir)};
      (async () => { ${script} })().then((r) => process.stdout.write(JSON.stringify(r)))`
    const asRoot = process.getuid?.() === 0
    const [cmd, args] = asRoot
      ? [
          'setpriv',
          ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, '-e', code],
        ]
      : [process.execPath, ['-e', code]]
    return JSON.parse(execFileSync(cmd, args as string[], { encoding: 'utf8' }))
  }

  it.runIf(process.platform === 'linux')(
    'a directory that may not be read is scandir; a file that stats but cannot be opened is internal',
    () => {
      // "`EACCES: EACCES: permission denied, scandir '/abs/d'`"; "A file that stats but cannot
      // be opened (e.g. mode 000 → EACCES) makes `read_file`, ... return
      // `{"error":"internal","message":"internal error"}`; `read_files` ... the whole batch is
      // `internal`"; grep (in-process) skips the file.
      const dir = tempDir()
      chmodSync(dir, 0o777)
      writeTree(dir, { 'secret.txt': 'x\n', 'd/a': 'a', 'ok.txt': 'x\n', 'i.png': 'x' })
      chmodSync(join(dir, 'secret.txt'), 0)
      chmodSync(join(dir, 'i.png'), 0)
      chmodSync(join(dir, 'd'), 0)
      const results = unprivileged(
        dir,
        `const lines = []; root.setWarnSink((m) => lines.push(m))
        const t = root.createAgentTools({ workspaceRoot: dir, probeRipgrep: () => false })
        const out = []
        for (const [tool, args] of [
          ['list_dir', { path: 'd' }],
          ['read_file', { path: 'secret.txt' }],
          ['read_files', { paths: ['ok.txt', 'secret.txt'] }],
          ['edit_file', { path: 'secret.txt', old_string: 'x', new_string: 'y' }],
          ['grep', { pattern: 'x', path: 'secret.txt' }],
          ['read_image', { path: 'i.png' }],
        ]) out.push(root.contentText((await t.callTool(tool, args)).content))
        const before = lines.length
        const replaced = root.contentText(
          (await t.callTool('replace', { pattern: 'x', replacement: 'y', path: '.' })).content,
        )
        return { out, lines, replaced, replaceLines: lines.slice(before) }`,
      ) as { out: string[]; lines: string[]; replaced: string; replaceLines: string[] }
      chmodSync(join(dir, 'd'), 0o755)
      const internal = '{"error":"internal","message":"internal error"}'
      expect(results.out).toEqual([
        JSON.stringify({
          error: 'io_error',
          message: `EACCES: EACCES: permission denied, scandir '${join(dir, 'd')}'`,
          path: 'd',
        }),
        internal,
        internal,
        internal,
        '(no matches)',
        internal,
      ])
      expect(results.lines[0]).toBe(
        `clarvis-agent-tools: internal error: Error: EACCES: permission denied, open '${join(dir, 'secret.txt')}'\n`,
      )
      // "grep and replace skip the file": replace skips it without a warn line.
      expect(results.replaced).toMatch(/^1 replacement\(s\) across 1 file\(s\)/)
      expect(results.replaceLines).toEqual([])
    },
  )

  it.runIf(process.platform === 'linux')(
    'apply_patch gives the warn line of a block it could not open, not of blocks after an error',
    () => {
      // Wording §4: a file that stats but cannot be opened makes apply_patch `internal`, its
      // detail in the warn sink; blocks are read several at once, but only what comes up to
      // the first failing block (in patch order) is reported.
      const dir = tempDir()
      chmodSync(dir, 0o777)
      writeTree(dir, { 'a.txt': 'a\n', 'b.txt': 'b\n' })
      chmodSync(join(dir, 'a.txt'), 0o666)
      chmodSync(join(dir, 'b.txt'), 0)
      const block = (f: string, from: string, to: string) =>
        `--- a/${f}\n+++ b/${f}\n@@ -1 +1 @@\n-${from}\n+${to}\n`
      const results = unprivileged(
        dir,
        `const lines = []; root.setWarnSink((m) => lines.push(m))
        const t = root.createAgentTools({ workspaceRoot: dir })
        const call = async (patch) => {
          const before = lines.length
          const r = root.contentText((await t.callTool('apply_patch', { patch })).content)
          return { r, lines: lines.slice(before) }
        }
        return [
          await call(${JSON.stringify(block('a.txt', 'a', 'A') + block('b.txt', 'b', 'B'))}),
          await call(${JSON.stringify(block('nope.txt', 'n', 'N') + block('b.txt', 'b', 'B'))}),
        ]`,
      ) as { r: string; lines: string[] }[]
      expect(results[0]).toEqual({
        r: '{"error":"internal","message":"internal error"}',
        lines: [
          `clarvis-agent-tools: internal error: Error: EACCES: permission denied, open '${join(dir, 'b.txt')}'\n`,
        ],
      })
      expect(JSON.parse(results[1].r)).toMatchObject({ error: 'not_found' })
      expect(results[1].lines).toEqual([])
      expect(readFileSync(join(dir, 'a.txt'), 'utf8')).toBe('a\n')
    },
  )

  it.runIf(process.platform === 'linux')(
    'an unreadable .gitignore is reported to the warn sink and its rules left out',
    () => {
      // CONTRACT-v0.5 §1 Logging: "`warning: cannot read <path>` (for an unreadable
      // `.gitignore`)".
      const dir = tempDir()
      chmodSync(dir, 0o777)
      writeTree(dir, { 'sub/.gitignore': '*.log\n', 'sub/a.log': '', 'sub/b.txt': '' })
      chmodSync(join(dir, 'sub/.gitignore'), 0)
      const results = unprivileged(
        dir,
        `const lines = []; root.setWarnSink((m) => lines.push(m))
        const t = root.createAgentTools({ workspaceRoot: dir })
        const text = root.contentText((await t.callTool('glob', { pattern: '**/*' })).content)
        return { files: text.split('\\n').sort(), lines }`,
      ) as { files: string[]; lines: string[] }
      expect(results.files).toEqual(['sub/.gitignore', 'sub/a.log', 'sub/b.txt'])
      expect(results.lines).toEqual([
        `clarvis-agent-tools: warning: cannot read ${join(dir, 'sub', '.gitignore')}\n`,
      ])
    },
  )
})

describe('a close reading, once more', () => {
  it('apply_patch strips a/ or b/ from each header name, as its guard paths do', async () => {
    // CONTRACT.md: "`a/` and `b/` prefixes and tab-separated timestamps are stripped from
    // header paths"; CONTRACT-v0.5 §5 (guard paths): "`a/` or `b/` is stripped".
    for (const entry of [root, seed]) {
      for (const headers of [
        '--- a/x.txt\n+++ x.txt',
        '--- x.txt\n+++ b/x.txt',
        '--- b/x.txt\n+++ b/x.txt',
      ]) {
        const dir = tempDir()
        writeTree(dir, { 'x.txt': 'a\n', 'b/x.txt': 'a\n' })
        const tools = entry.createAgentTools({ workspaceRoot: dir })
        const patch = `${headers}\n@@ -1,1 +1,1 @@\n-a\n+A\n`
        const result = await tools.callTool('apply_patch', { patch })
        const text = 'text' in result ? result.text : root.contentText(result.content)
        expect(text).toBe('Applied patch:\n  M x.txt (+1 -1)')
        expect(readFileSync(join(dir, 'x.txt'), 'utf8')).toBe('A\n')
        expect(readFileSync(join(dir, 'b/x.txt'), 'utf8')).toBe('a\n')
        if (entry === root) {
          const ctx = root.buildGuardContext('apply_patch', { patch }, tools.config)
          expect(ctx.paths.map((p) => p.raw)).toEqual(['x.txt'])
        }
      }
    }
  })

  it('replace goes through its files in JavaScript string order', async () => {
    // CONTRACT-v0.5 §2 replace: "Files are processed in sorted absolute-path order" (a JS sort:
    // UTF-16 code units, so U+1F600 sorts before U+FF21).
    const { tools } = workspace({ 'Ａ.txt': 'foo', '😀.txt': 'foo' })
    const text = ok(
      await tools.callTool('replace', {
        pattern: 'foo',
        replacement: 'x',
        path: '.',
        dry_run: false,
      }),
    )
    expect(text.split('\n').slice(1)).toEqual([
      '  M 😀.txt (1 replacement)',
      '  M Ａ.txt (1 replacement)',
    ])
  })

  it("write_file's meta.diff compares the prior decoded text, LF-normalized", async () => {
    // CONTRACT-v0.5 §1 meta.diff: "The edit tools diff the decoded text: LF-normalized, with the
    // BOM stripped. `write_file` compares the prior decoded text with the new content exactly
    // as given ... no diff ... when nothing changed."
    const { root: dir, tools } = workspace({ 'cr.txt': '\ufeffa\r\nb\r\n' })
    const same = await tools.callTool('write_file', { path: 'cr.txt', content: 'a\nb\n' })
    expect(same.meta).toBeUndefined()
    writeFileSync(join(dir, 'cr.txt'), 'a\r\nb\r\n')
    const changed = await tools.callTool('write_file', { path: 'cr.txt', content: 'a\nc\n' })
    expect(changed.meta?.diff).toBe(
      `Index: cr.txt\n${'='.repeat(67)}\n--- cr.txt\n+++ cr.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n`,
    )
  })

  it('edit_file and multi_edit word a failed stat as fsError does', async () => {
    // CONTRACT-v0.5-wording §4: anything else → `io_error` `<err.code>: <err.message>`, e.g.
    // `ENAMETOOLONG: ENAMETOOLONG: name too long, stat '/abs/…'`; edit_file and multi_edit read
    // through the shared reader, whose stat goes through fsError.
    const { root: dir, tools } = workspace()
    const name = 'y'.repeat(300)
    for (const [tool, args] of [
      ['edit_file', { path: name, old_string: 'x', new_string: 'y' }],
      ['multi_edit', { path: name, edits: [{ old_string: 'x', new_string: 'y' }] }],
    ] as const) {
      expect(err(await tools.callTool(tool, args))).toEqual({
        error: 'io_error',
        message: `ENAMETOOLONG: ENAMETOOLONG: name too long, stat '${join(dir, name)}'`,
        path: name,
      })
    }
  })

  it('check_syntax cuts `near` at 80 UTF-16 units and trims as JavaScript does', async () => {
    // CONTRACT-v0.5 §4 check_syntax: "`near` is its start line ..., trimmed, cut at 80
    // characters with `...` appended" (the reference's JavaScript counts UTF-16 units).
    const { tools } = workspace({
      'e.ts': `let x = ${'"😀"+'.repeat(30)} ;\n`,
      'b.ts': 'let a = 1;\n\ufeffconst b = );\n',
    })
    const near = async (path: string) =>
      JSON.parse(ok(await tools.callTool('check_syntax', { path }))).errors[0].near
    expect(await near('e.ts')).toBe(`let x = ${'"😀"+'.repeat(14)}"...`)
    expect(await near('b.ts')).toBe('const b = );')
  })

  it('whole numbers past 2^64 are taken as ajv takes them', async () => {
    // CONTRACT-v0.5 §1 Relaxed validation: ajv with coerceTypes, whose integer test is
    // `!(x % 1) && isFinite(x)`; CONTRACT.md: `timeout_ms` above the maximum is clamped.
    const { tools } = workspace({ 'a.txt': 'a\nb\n' })
    expect(ok(await tools.callTool('read_file', { path: 'a.txt', limit: 2 ** 64 }))).toBe(
      '     1\ta\n     2\tb',
    )
    const bash = JSON.parse(
      ok(await tools.callTool('bash', { command: 'echo hi', timeout_ms: 1e20 })),
    )
    expect(bash.stdout).toBe('hi\n')
    expect(err(await tools.callTool('read_file', { path: 'a.txt', limit: -1e300 })).message).toBe(
      'data/limit must be >= 0',
    )
  })

  it('null probes, selectSurface, contentText and fsError read as JavaScript reads them', () => {
    // CONTRACT-v0.5 §1: "`treeSitterAvailable` is `(options.probeTreeSitter ?? defaultProbe)()`";
    // `selectSurface(readOnly, treeSitterAvailable = true)` (a default parameter stands in for
    // `undefined` only); contentText "joins the `text` of the text parts"; wording §4:
    // `<err.code>: <err.message>`, a missing code reads `EIO`.
    const dir = tempDir()
    const config = root.resolveConfig({
      workspaceRoot: dir,
      probeTreeSitter: null,
      probeRipgrep: null,
    })
    expect(config.treeSitterAvailable).toBe(true)
    expect(root.selectSurface(false).map((t) => t.name)).toContain('outline')
    expect(root.selectSurface(false, null).map((t) => t.name)).not.toContain('outline')
    expect(root.contentText([{ type: 'text' } as never, { type: 'text', text: 'a' }])).toBe('a')
    expect(root.fsError({ code: 'EPERM' } as never, 'p').message).toBe('EPERM: undefined')
  })
})

describe('grep on the ripgrep path judges binary files as rg does', () => {
  it('keeps the matches read before the first buffer holding a NUL', async () => {
    // CONTRACT-v0.5-wording §1: on the ripgrep path, "rg's own semantics". rg reads a file its
    // walk finds in 64 KiB buffers and quits at the first one holding a NUL, keeping what it
    // matched before; a UTF-16 file with a BOM is transcoded first.
    const file = (nul?: number) => {
      const b = Buffer.alloc(200_000, 0x61)
      for (let i = 99; i < b.length; i += 100) b[i] = 10
      b.write('hello', 0)
      b.write('hello', 150_000)
      if (nul !== undefined) b[nul] = 0
      return b
    }
    const { tools } = workspace(
      {
        'd/late.txt': file(199_990),
        'd/mid.txt': file(100_050),
        'd/small.bin': 'hello\nx\0y\n',
        'd/u16.txt': Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('hello\n', 'utf16le')]),
      },
      { probeRipgrep: () => true },
    )
    const rows = ok(
      await tools.callTool('grep', { pattern: 'hello', path: 'd', output_mode: 'content' }),
    )
    expect(rows.split('\n').map((r) => r.split(':').slice(0, 2).join(':'))).toEqual([
      'd/late.txt:1',
      'd/late.txt:1501',
      'd/mid.txt:1',
      'd/u16.txt:1',
    ])
  })
})

describe('the seed entry names the options it ignores', () => {
  it('warns for a root-only option and for a typo, as the root does for unknown keys', () => {
    // SPEC, Configuration: an unknown option key "is named in one warn-sink line ... at both
    // entries"; a `sandbox` that silently does nothing at /v0.1 would be a surprise.
    const lines: string[] = []
    root.setWarnSink((m) => lines.push(m))
    try {
      seed.createAgentTools({
        workspaceRoot: tempDir(),
        readonly: true,
        sandbox: 'read-only',
      } as never)
    } finally {
      root.setWarnSink(null)
    }
    expect(lines).toEqual([
      'clarvis-agent-tools: unknown option "readonly" is ignored; did you mean "readOnly"?\n',
      'clarvis-agent-tools: option "sandbox" is ignored: agent-tools-native/v0.1 serves the seed contract, which has no such setting; import agent-tools-native (the package root) for it\n',
    ])
  })
})
