// Code intelligence: outline, check_syntax, syntax warnings after writes, and read_file's
// indentation mode. Every listed language has a clean and a broken fixture.
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  type AgentToolsOptions,
  contentText,
  createAgentTools,
  type DispatchResult,
  dispatch,
} from '../index.js'
import { tempDir, writeTree } from './helpers'

/**
 * A workspace holding `files`, with root (newest contract) tools bound to it, extras on: the
 * languages beyond the contract's are extras. The root without extras (exactly the contract's
 * languages) is checked in contract_exact.test.ts.
 */
function workspace(
  files: Record<string, string> = {},
  options: Omit<AgentToolsOptions, 'workspaceRoot'> = {},
) {
  const root = tempDir()
  writeTree(root, files)
  return { root, tools: createAgentTools({ workspaceRoot: root, extras: true, ...options }) }
}

function ok(result: DispatchResult): string {
  const text = contentText(result.content)
  if (result.isError) throw new Error(`expected success, got ${text}`)
  return text
}

function err(result: DispatchResult): { error: string; message: string } & Record<string, unknown> {
  const text = contentText(result.content)
  if (!result.isError) throw new Error(`expected an error, got ${text}`)
  return JSON.parse(text)
}

const FIXTURES = join(__dirname, 'fixtures', 'code')
const fixture = (name: string) => readFileSync(join(FIXTURES, name), 'utf8')

/** Extension → the grammar name check_syntax reports, and the first issue of broken.<ext>. */
const LANGUAGES: Record<string, { language: string; first: object }> = {
  ts: { language: 'typescript', first: { kind: 'error', line: 6, column: 1 } },
  tsx: { language: 'tsx', first: { kind: 'error', line: 1, column: 1 } },
  js: {
    language: 'javascript',
    first: { kind: 'error', line: 2, column: 21, near: 'return new Counter(;' },
  },
  py: { language: 'python', first: { kind: 'error', line: 1, column: 1 } },
  go: { language: 'go', first: { kind: 'missing', line: 6, column: 1, near: '}' } },
  rs: { language: 'rust', first: { kind: 'error', line: 1, column: 1 } },
  java: { language: 'java', first: { kind: 'missing', line: 3, column: 31, near: ';' } },
  cs: { language: 'c-sharp', first: { kind: 'error', line: 7, column: 13 } },
  c: { language: 'cpp', first: { kind: 'missing', line: 2, column: 29, near: ')' } },
  cpp: { language: 'cpp', first: { kind: 'missing', line: 4, column: 48, near: ';' } },
  rb: { language: 'ruby', first: { kind: 'missing', line: 4, column: 24, near: ')' } },
  php: { language: 'php', first: { kind: 'missing', line: 5, column: 26, near: ')' } },
  sh: { language: 'bash', first: { kind: 'error', line: 1 } },
  css: { language: 'css', first: { kind: 'error', line: 1, column: 1, near: 'body {' } },
  ini: { language: 'ini', first: { kind: 'error', line: 1, column: 1, near: '[server' } },
  ps1: { language: 'powershell', first: { kind: 'error', line: 1, column: 1 } },
  json: { language: 'json', first: { kind: 'error', line: 2 } },
  yaml: { language: 'yaml', first: { kind: 'error', line: 1 } },
  toml: { language: 'toml', first: { kind: 'error', line: 1, column: 1, near: '[package' } },
  html: { language: 'html', first: { kind: 'error', line: 1 } },
  lua: { language: 'lua', first: { kind: 'missing', line: 4, column: 25, near: 'end' } },
  kt: { language: 'kotlin', first: { kind: 'error', line: 1, column: 1 } },
  swift: { language: 'swift', first: { kind: 'error', line: 1, column: 1 } },
  scala: { language: 'scala', first: { kind: 'error', line: 2, column: 30 } },
  zig: { language: 'zig', first: { kind: 'missing', line: 2, column: 17, near: ';' } },
}

/** The outline of clean.<ext> for every outline language, line by line. */
const OUTLINES: Record<string, string[]> = {
  ts: [
    'clean.ts — typescript, 13 lines',
    '  interface Shape (1-3)',
    '    area(): number (2-2)',
    '  class Circle implements Shape (5-10)',
    '    constructor(private r: number) {} (6-6)',
    '    area(): number (7-9)',
    '  const double = (x: number): number => x * 2; (12-12)',
  ],
  tsx: [
    'clean.tsx — tsx, 8 lines',
    '  function Greeting({ name }: { name: string }) (3-5)',
    '  const App = () => <Greeting name="world" />; (7-7)',
  ],
  js: [
    'clean.js — javascript, 17 lines',
    '  class Counter (1-8)',
    '    constructor() (2-4)',
    '    increment() (5-7)',
    '  function makeCounter() (10-12)',
    '  const reset = function (c) (14-16)',
  ],
  py: [
    'clean.py — python, 15 lines',
    '  class Circle (4-10)',
    '    def __init__(self, r) (5-6)',
    '    def area(self) (9-10)',
    '  def unit() (13-14)',
  ],
  go: [
    'clean.go — go, 16 lines',
    '  Circle struct (5-7)',
    '  func (c Circle) Area() float64 (9-11)',
    '  func Unit() Circle (13-15)',
  ],
  rs: [
    'clean.rs — rust, 14 lines',
    '  pub struct Circle (1-3)',
    '  impl Circle (5-9)',
    '    pub fn area(&self) -> f64 (6-8)',
    '  pub fn unit() -> Circle (11-13)',
  ],
  java: [
    'clean.java — java, 14 lines',
    '  public class Circle (3-13)',
    '    public Circle(double r) (6-8)',
    '    public double area() (10-12)',
  ],
  cs: [
    'clean.cs — c-sharp, 18 lines',
    '  namespace Shapes (1-17)',
    '    public class Circle (3-16)',
    '      public double R { get; set; } (5-5)',
    '      public Circle(double r) (7-10)',
    '      public double Area() (12-15)',
  ],
  c: [
    'clean.c — cpp, 16 lines',
    '  struct point (3-6)',
    '  static int add(int a, int b) (8-10)',
    '  int main(void) (12-15)',
  ],
  cpp: [
    'clean.cpp — cpp, 19 lines',
    '  namespace shapes (3-18)',
    '    class Circle (5-12)',
    '      explicit Circle(double r) : r_(r) {} (7-7)',
    '      double area() const; (8-8)',
    '    double Circle::area() const (14-16)',
  ],
  rb: [
    'clean.rb — ruby, 12 lines',
    '  module Shapes (1-11)',
    '    class Circle (2-10)',
    '      def initialize(r) (3-5)',
    '      def area (7-9)',
  ],
  php: [
    'clean.php — php, 19 lines',
    '  namespace Shapes; (3-3)',
    '  class Circle (5-13)',
    '    public function __construct(private float $r) {} (7-7)',
    '    public function area(): float (9-12)',
    '  function unit(): Circle (15-18)',
  ],
  kt: [
    'clean.kt — kotlin, 16 lines',
    '  class Circle(val r: Double) (3-11)',
    '    fun area(): Double (4-6)',
    '    companion object (8-10)',
    '      fun unit() = Circle(1.0) (9-9)',
    '  fun main() (13-15)',
  ],
  swift: [
    'clean.swift — swift, 14 lines',
    '  struct Circle (3-9)',
    '    func area() -> Double (6-8)',
    '  func unit() -> Circle (11-13)',
  ],
  scala: [
    'clean.scala — scala, 14 lines',
    '  trait Shape (3-5)',
    '    def area: Double (4-4)',
    '  case class Circle(r: Double) extends Shape (7-9)',
    '    def area: Double = math.Pi * r * r (8-8)',
    '  object Shapes (11-13)',
    '    def unit(): Circle = Circle(1.0) (12-12)',
  ],
  lua: [
    'clean.lua — lua, 14 lines',
    '  function M.area(r) (3-5)',
    '  local function helper(x) (7-9)',
    '  M.double = function(x) return helper(x) end (11-11)',
  ],
}

const OUTLINE_SUPPORTED =
  'typescript, tsx, javascript, python, go, rust, java, c-sharp, cpp, ruby, php, kotlin, swift, scala, lua'
const CHECK_SUPPORTED =
  '.bash, .c, .cc, .cjs, .cpp, .cs, .css, .cts, .cxx, .go, .h, .hh, .hpp, .htm, .html, .ini, .java, .js, .json, .jsonc, .jsx, .kt, .kts, .lua, .mjs, .mts, .php, .ps1, .psd1, .psm1, .py, .pyi, .rb, .rs, .sc, .scala, .sh, .swift, .toml, .ts, .tsx, .yaml, .yml, .zig'

function fixtureWorkspace() {
  const files: Record<string, string> = {}
  for (const ext of Object.keys(LANGUAGES)) {
    files[`clean.${ext}`] = fixture(`clean.${ext}`)
    files[`broken.${ext}`] = fixture(`broken.${ext}`)
  }
  return workspace(files)
}

describe('check_syntax', () => {
  const { tools } = fixtureWorkspace()

  for (const [ext, { language, first }] of Object.entries(LANGUAGES)) {
    it(`${language}: clean.${ext} parses, broken.${ext} reports where`, async () => {
      const clean = JSON.parse(ok(await tools.callTool('check_syntax', { path: `clean.${ext}` })))
      expect(clean).toEqual({
        path: `clean.${ext}`,
        language,
        ok: true,
        errors: [],
        error_count: 0,
        truncated: false,
      })
      const text = ok(await tools.callTool('check_syntax', { path: `broken.${ext}` }))
      // One compact JSON text, keys in the contract's order.
      expect(Object.keys(JSON.parse(text))).toEqual([
        'path',
        'language',
        'ok',
        'errors',
        'error_count',
        'truncated',
      ])
      expect(text).not.toContain('\n')
      const broken = JSON.parse(text)
      expect(broken.language).toBe(language)
      expect(broken.ok).toBe(false)
      expect(broken.error_count).toBe(broken.errors.length)
      expect(broken.errors[0]).toMatchObject(first)
    })
  }

  it('gives an ERROR node its trimmed start line, cut at 80 characters', async () => {
    const long = `let x = (${'a + '.repeat(40)};`
    const { tools } = workspace({ 'a.js': `ok();\n    ${long}\n` })
    const report = JSON.parse(ok(await tools.callTool('check_syntax', { path: 'a.js' })))
    const issue = report.errors.find((e: { kind: string }) => e.kind === 'error')
    expect(issue.line).toBe(2)
    expect(issue.near).toBe(`${long.slice(0, 80)}...`)
  })

  it('lists at most 50 issues and says when there were more', async () => {
    const { tools } = workspace({ 'many.rs': 'fn f( {}\n'.repeat(80) })
    const report = JSON.parse(ok(await tools.callTool('check_syntax', { path: 'many.rs' })))
    expect(report.errors).toHaveLength(50)
    expect(report.error_count).toBe(50)
    expect(report.truncated).toBe(true)
  })

  it('counts columns in UTF-16 code units', async () => {
    const { tools } = workspace({ 'u.js': "x('𝄞é'));\n" })
    const report = JSON.parse(ok(await tools.callTool('check_syntax', { path: 'u.js' })))
    // The stray `)` follows 8 UTF-16 units (11 UTF-8 bytes).
    expect(report.errors[0]).toMatchObject({ kind: 'error', line: 1, column: 9 })
  })

  it('refuses an unsupported extension before reading, listing every extension', async () => {
    const { tools } = workspace()
    const e = err(await tools.callTool('check_syntax', { path: 'missing.XYZ' }))
    expect(e).toEqual({
      error: 'invalid_input',
      message: `check_syntax does not support '.xyz' files; supported extensions: ${CHECK_SUPPORTED}`,
      path: 'missing.XYZ',
    })
    const e2 = err(await tools.callTool('check_syntax', { path: 'Makefile' }))
    expect(e2.message).toBe(
      `check_syntax does not support extensionless files; supported extensions: ${CHECK_SUPPORTED}`,
    )
  })

  it('detects the language of an extensionless script from its #! line', async () => {
    const { tools } = workspace({
      tool: '#!/usr/bin/env python3\ndef main(:\n    pass\n',
      run: '#!/bin/bash\necho ok\n',
    })
    const py = JSON.parse(ok(await tools.callTool('check_syntax', { path: 'tool' })))
    expect(py).toMatchObject({ language: 'python', ok: false })
    const sh = JSON.parse(ok(await tools.callTool('check_syntax', { path: 'run' })))
    expect(sh).toMatchObject({ language: 'bash', ok: true })
  })

  it('reads like the other tools: missing file, directory, parse limit', async () => {
    const { root, tools } = workspace({ 'dir.py/x': '' })
    expect(err(await tools.callTool('check_syntax', { path: 'nope.py' })).error).toBe('not_found')
    expect(err(await tools.callTool('check_syntax', { path: 'dir.py' })).error).toBe('not_a_file')
    writeFileSync(join(root, 'big.json'), `[${'1,'.repeat(1_000_000)}1]`)
    expect(err(await tools.callTool('check_syntax', { path: 'big.json' }))).toEqual({
      error: 'too_large',
      message: 'File exceeds the 2000000-byte parse limit: big.json',
      path: 'big.json',
      limit: 2000000,
    })
  })
})

describe('outline', () => {
  const { tools } = fixtureWorkspace()

  for (const [ext, lines] of Object.entries(OUTLINES)) {
    it(`${LANGUAGES[ext].language}: clean.${ext}`, async () => {
      expect(ok(await tools.callTool('outline', { path: `clean.${ext}` }))).toBe(lines.join('\n'))
    })
  }

  it('adds a note when the file has syntax errors', async () => {
    const text = ok(await tools.callTool('outline', { path: 'broken.ts' }))
    expect(text.split('\n').at(-1)).toBe(
      'note: file has syntax errors (3); outline may be incomplete — run check_syntax.',
    )
  })

  it('says when there are no symbols', async () => {
    const { tools } = workspace({ 'empty.py': 'x = 1\n' })
    expect(ok(await tools.callTool('outline', { path: 'empty.py' }))).toBe(
      'empty.py — python, 2 lines\n  (no symbols found)',
    )
  })

  it('follows pass-through nodes and skips everything else', async () => {
    const src = [
      'export namespace N {',
      '  export function f() {}',
      '}',
      'if (x) {',
      '  function hidden() {}',
      '}',
      'const g = async () => {',
      '  const inner = () => 1',
      '}',
      'declare module "m" {',
      '  function sig(): void;',
      '}',
      '',
    ].join('\n')
    const { tools } = workspace({ 'a.ts': src })
    expect(ok(await tools.callTool('outline', { path: 'a.ts' }))).toBe(
      [
        'a.ts — typescript, 13 lines',
        '  namespace N (1-3)',
        '    function f() {} (2-2)',
        '  const g = async () => (7-9)',
        '  module "m" (10-12)',
        '    function sig(): void; (11-11)',
      ].join('\n'),
    )
  })

  it('caps the list at 2000 symbols', async () => {
    const src = Array.from({ length: 2005 }, (_, i) => `def f${i}(): pass`).join('\n')
    const { tools } = workspace({ 'many.py': src })
    const lines = ok(await tools.callTool('outline', { path: 'many.py' })).split('\n')
    expect(lines).toHaveLength(1 + 2000 + 1)
    expect(lines.at(-1)).toBe('  [... 5 more symbols omitted ...]')
  })

  it('names the unsupported language exactly', async () => {
    const { tools } = workspace({ 'a.css': 'a {}' })
    expect(err(await tools.callTool('outline', { path: 'a.css' }))).toEqual({
      error: 'invalid_input',
      message: `outline does not support css files (supported: ${OUTLINE_SUPPORTED}); check_syntax does support them.`,
      path: 'a.css',
    })
    expect(err(await tools.callTool('outline', { path: 'x.md' })).message).toBe(
      `outline does not support '.md' files (supported: ${OUTLINE_SUPPORTED}).`,
    )
    expect(err(await tools.callTool('outline', { path: 'README' })).message).toBe(
      `outline does not support extensionless files (supported: ${OUTLINE_SUPPORTED}).`,
    )
  })
})

const PY_WARNING = (rel: string) =>
  `\nwarning: python syntax error in ${rel} at line 1, column 7 (missing \`)\`); run check_syntax for details.`

describe('syntax warnings after writes', () => {
  it('write_file warns when the new content does not parse; the write stands', async () => {
    const { root, tools } = workspace()
    const text = ok(await tools.callTool('write_file', { path: 'a.py', content: 'def f(:\n' }))
    expect(text).toBe(`Wrote 8 bytes to a.py (created).${PY_WARNING('a.py')}`)
    expect(readFileSync(join(root, 'a.py'), 'utf8')).toBe('def f(:\n')
    expect(ok(await tools.callTool('write_file', { path: 'b.py', content: 'x = 1\n' }))).toBe(
      'Wrote 6 bytes to b.py (created).',
    )
    // No grammar, no warning.
    expect(ok(await tools.callTool('write_file', { path: 'c.txt', content: 'def f(:' }))).toBe(
      'Wrote 7 bytes to c.txt (created).',
    )
  })

  it('quotes the line of an ERROR node', async () => {
    const { tools } = workspace()
    const text = ok(await tools.callTool('write_file', { path: 'a.js', content: 'f(1\n' }))
    expect(text).toBe(
      'Wrote 4 bytes to a.js (created).\nwarning: javascript syntax error in a.js at line 1, column 1 (near `f(1`); run check_syntax for details.',
    )
  })

  it('edit_file and multi_edit check the new text', async () => {
    const { tools } = workspace({ 'a.py': 'def f():\n    pass\n' })
    const text = ok(
      await tools.callTool('edit_file', { path: 'a.py', old_string: 'f()', new_string: 'f(' }),
    )
    expect(text).toBe(`Replaced 1 occurrence in a.py.${PY_WARNING('a.py')}`)
    const fixed = ok(
      await tools.callTool('multi_edit', {
        path: 'a.py',
        edits: [{ old_string: 'f(:', new_string: 'f():' }],
      }),
    )
    expect(fixed).toBe('Applied 1 edit to a.py.')
  })

  it('says so when the file was already broken before the write', async () => {
    const { tools } = workspace({ 'a.py': 'def f(:\n    pass\n' })
    const text = ok(
      await tools.callTool('edit_file', { path: 'a.py', old_string: 'pass', new_string: 'return' }),
    )
    expect(text).toMatch(/ The file already had syntax errors before this write\.$/)
    const over = ok(await tools.callTool('write_file', { path: 'a.py', content: 'def g(:\n' }))
    expect(over).toBe(
      `Wrote 8 bytes to a.py (overwritten).${PY_WARNING('a.py')} The file already had syntax errors before this write.`,
    )
    // A clean file before: the plain warning.
    const { tools: t2 } = workspace({ 'b.py': 'x = 1\n' })
    expect(ok(await t2.callTool('write_file', { path: 'b.py', content: 'def f(:\n' }))).toBe(
      `Wrote 8 bytes to b.py (overwritten).${PY_WARNING('b.py')}`,
    )
  })

  it('apply_patch checks at most five files that have a grammar', async () => {
    const { tools } = workspace()
    const adds = [
      ...Array.from({ length: 2 }, (_, i) => `*** Add File: n${i}.txt\n+def f(:`),
      ...Array.from({ length: 7 }, (_, i) => `*** Add File: b${i}.py\n+def f(:`),
    ]
    const text = ok(
      await tools.callTool('apply_patch', {
        patch: `*** Begin Patch\n${adds.join('\n')}\n*** End Patch`,
      }),
    )
    const warnings = text.split('\n').filter((l) => l.startsWith('warning: '))
    expect(warnings).toEqual([0, 1, 2, 3, 4].map((i) => PY_WARNING(`b${i}.py`).slice(1)))
    expect(text.indexOf('  A b6.py')).toBeLessThan(text.indexOf('warning: '))
  })
})

describe('read_file indentation mode', () => {
  const PY = [
    'import os',
    '',
    'class A:',
    '    """Doc."""',
    '',
    '    # helper',
    '    @staticmethod',
    '    def f():',
    '        x = 1',
    '        if x:',
    "            return '''",
    'text',
    "'''",
    '        return x',
    '',
    '    def g(self):',
    '        pass',
    '',
  ].join('\n')
  const rows = (numbers: number[]) =>
    numbers.map((n) => `${String(n).padStart(6)}\t${PY.split('\n')[n - 1]}`).join('\n')

  it('returns the block around the anchor with its comments and decorators', async () => {
    const { tools } = workspace({ 'a.py': PY })
    const text = ok(
      await tools.callTool('read_file', { path: 'a.py', mode: 'indentation', anchor_line: 9 }),
    )
    // The grammar carries the block past the unindented string lines to line 14.
    expect(text).toBe(rows([6, 7, 8, 9, 10, 11, 12, 13, 14]))
  })

  it('adds parent levels and siblings on request, and caps with max_lines', async () => {
    const { tools } = workspace({ 'a.py': PY })
    const parent = ok(
      await tools.callTool('read_file', {
        path: 'a.py',
        mode: 'indentation',
        anchor_line: 9,
        max_levels: 1,
        include_header: false,
      }),
    )
    expect(parent).toBe(rows([3, 8, 9, 10, 11, 12, 13, 14]))
    const siblings = ok(
      await tools.callTool('read_file', {
        path: 'a.py',
        mode: 'indentation',
        anchor_line: 9,
        include_siblings: true,
      }),
    )
    expect(siblings).toBe(rows([4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17]))
    const capped = ok(
      await tools.callTool('read_file', {
        path: 'a.py',
        mode: 'indentation',
        anchor_line: 9,
        max_lines: 3,
      }),
    )
    expect(capped).toBe(
      `${rows([8, 9, 10])}\n[... 3 of 9 block lines shown; raise max_lines, or read a range with offset and limit ...]`,
    )
  })

  it('works by indentation alone where no grammar exists', async () => {
    const yamlish = 'a:\n  b:\n    c: 1\n  d: 2\ne: 3\n'
    const { tools } = workspace({ 'x.conf': yamlish })
    const text = ok(
      await tools.callTool('read_file', { path: 'x.conf', mode: 'indentation', anchor_line: 3 }),
    )
    expect(text).toBe('     2\t  b:\n     3\t    c: 1')
  })

  it('keeps slice mode when mode is absent or "slice"', async () => {
    const { tools } = workspace({ 'a.py': PY })
    const plain = ok(await tools.callTool('read_file', { path: 'a.py', offset: 9, limit: 1 }))
    expect(plain).toBe(`${rows([9])}\n[... 1 of 17 lines shown; continue with offset=10 ...]`)
    expect(
      ok(await tools.callTool('read_file', { path: 'a.py', offset: 9, limit: 1, mode: 'slice' })),
    ).toBe(plain)
  })

  it('refuses an anchor past the end', async () => {
    const { tools } = workspace({ 'a.py': PY })
    const e = err(
      await tools.callTool('read_file', { path: 'a.py', mode: 'indentation', anchor_line: 99 }),
    )
    expect(e).toMatchObject({ error: 'invalid_input', field: 'anchor_line', line_count: 17 })
  })
})

describe('treeSitterAvailable', () => {
  it('a probe answering false hides both tools and turns the warnings off', async () => {
    const { tools } = workspace({ 'a.py': 'x = 1\n' }, { probeTreeSitter: () => false })
    expect(tools.config.treeSitterAvailable).toBe(false)
    const names = tools.listTools().map((t) => t.name)
    expect(names).not.toContain('outline')
    expect(names).not.toContain('check_syntax')
    expect(err(await tools.callTool('outline', { path: 'a.py' }))).toMatchObject({
      error: 'not_found',
      message: 'Unknown tool: outline',
      hidden_by: 'treeSitterAvailable',
    })
    expect(ok(await tools.callTool('write_file', { path: 'b.py', content: 'def f(:\n' }))).toBe(
      'Wrote 8 bytes to b.py (created).',
    )
  })

  it('the default probe answers true and an injected true probe is honoured', () => {
    expect(workspace().tools.config.treeSitterAvailable).toBe(true)
    const { tools } = workspace({}, { probeTreeSitter: () => true })
    expect(tools.listTools().map((t) => t.name)).toContain('check_syntax')
  })

  it('a cancelled call fails with aborted', async () => {
    // Large enough that the parse is still running when the abort reaches it.
    const big = 'function f(a, b) { return [a, b, { c: a + b }]; }\n'.repeat(35_000)
    const { tools } = workspace({ 'a.js': big })
    const controller = new AbortController()
    controller.abort()
    for (const name of ['check_syntax', 'outline']) {
      const r = await dispatch(name, { path: 'a.js' }, tools.config, controller.signal)
      expect(err(r)).toEqual({ error: 'aborted', message: 'Parsing aborted: a.js', path: 'a.js' })
    }
  })
})
