// The `codex` surface against Codex CLI's documented tools: `L<n>: ` reads (slice and
// indentation), listings with `/ @ ?` suffixes, newest-first grep_files, apply_patch's
// `*** Begin Patch` grammar and matching passes, and argv-vector shell calls.
import { execFileSync } from 'node:child_process'
import { mkdirSync, readFileSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createAgentTools, type DispatchResult, selectSurface } from '../index.js'
import { tempDir, writeTree } from './helpers'

function ws(files: Record<string, string> = {}) {
  const root = tempDir()
  writeTree(root, files)
  return { root, tools: createAgentTools({ workspaceRoot: root, surface: 'codex' }) }
}

function ok(r: DispatchResult): string {
  if (r.isError) throw new Error(`expected success, got ${r.text}`)
  return r.text
}

function fail(r: DispatchResult): string {
  if (!r.isError) throw new Error(`expected an error, got ${r.text}`)
  return r.text
}

/** Whether the engine's read_file has indentation mode (branch `code`). */
// The engine's read_file has indentation mode as an extra argument (offered with extras).
const hasIndentation = Boolean(
  (
    selectSurface(false, true, true).find((t) => t.name === 'read_file')?.inputSchema as
      | { properties?: Record<string, unknown> }
      | undefined
  )?.properties?.mode,
)

describe('codex surface', () => {
  it('lists exactly the Codex tools with their argument names', () => {
    const { tools } = ws()
    const list = tools.listTools()
    expect(list.map((t) => t.name)).toEqual([
      'read_file',
      'list_dir',
      'grep_files',
      'apply_patch',
      'shell',
    ])
    const props = (name: string) =>
      Object.keys(
        (list.find((t) => t.name === name)?.inputSchema as { properties?: object } | undefined)
          ?.properties ?? {},
      )
    expect(props('read_file').sort()).toEqual(
      ['file_path', 'offset', 'limit', 'mode', 'indentation'].sort(),
    )
    expect(props('list_dir').sort()).toEqual(['dir_path', 'offset', 'limit', 'depth'].sort())
    expect(props('grep_files').sort()).toEqual(['pattern', 'include', 'path', 'limit'].sort())
    expect(props('apply_patch').sort()).toEqual(['input'].sort())
    expect(props('shell').sort()).toEqual(['command', 'workdir', 'timeout_ms'].sort())
  })

  it('read_file shows L<n>: lines, from offset, at most limit', async () => {
    const { root, tools } = ws({ 'a.rs': 'fn a() {}\n\tfn b() {}\nlast' })
    expect(ok(await tools.callTool('read_file', { file_path: join(root, 'a.rs') }))).toBe(
      'L1: fn a() {}\nL2: \tfn b() {}\nL3: last',
    )
    expect(
      ok(await tools.callTool('read_file', { file_path: 'a.rs', offset: 2, limit: 1 })),
    ).toMatch(/^L2: \tfn b\(\) \{\}/)
    expect(fail(await tools.callTool('read_file', { file_path: 'a.rs', offset: 9 }))).toBe(
      'offset exceeds file length',
    )
    expect(fail(await tools.callTool('read_file', { file_path: 'a.rs', offset: -1 }))).toBe(
      'offset must be a 1-indexed line number',
    )
    expect(fail(await tools.callTool('read_file', { file_path: 'a.rs', limit: -5 }))).toBe(
      'limit must be greater than zero',
    )
  })

  it.runIf(hasIndentation)(
    'read_file mode "indentation" is the engine\'s block, as L<n>: lines',
    async () => {
      const src = 'import os\n\nclass A:\n    def f(self):\n        x = 1\n        return x\n'
      const { root, tools } = ws({ 'a.py': src })
      const indentation = {
        anchor_line: 5,
        max_levels: 1,
        include_siblings: false,
        include_header: true,
      }
      const out = ok(
        await tools.callTool('read_file', { file_path: 'a.py', mode: 'indentation', indentation }),
      )
      const engine = createAgentTools({ workspaceRoot: root, extras: true })
      const rows = ok(
        await engine.callTool('read_file', {
          path: 'a.py',
          mode: 'indentation',
          ...indentation,
        } as never),
      )
      expect(out).toBe(rows.replace(/^ *(\d+)\t/gm, 'L$1: '))
      expect(out).toContain('L5:         x = 1')
      expect(out).not.toContain('L1: import os')
    },
  )

  it.runIf(hasIndentation)(
    'read_file mode "indentation" returns one contiguous run of lines, as Codex does',
    async () => {
      // The engine's block with a parent level is the parent's header plus the anchor's block;
      // Codex's own tool returns every line between them too.
      const src =
        'class A:\n    def f(self):\n        return 1\n\n    def g(self):\n        x = 2\n        return x\n'
      const { tools } = ws({ 'a.py': src })
      const out = ok(
        await tools.callTool('read_file', {
          file_path: 'a.py',
          mode: 'indentation',
          indentation: { anchor_line: 6, max_levels: 1, include_header: true },
        }),
      )
      const numbers = out.split('\n').map((l) => Number(/^L(\d+): /.exec(l)?.[1]))
      expect(numbers).toEqual(numbers.map((_, i) => numbers[0] + i))
      expect(out).toContain('L1: class A:')
      expect(out).toContain('L3:         return 1')
      expect(out).toContain('L6:         x = 2')
    },
  )

  it.skipIf(hasIndentation)(
    'read_file mode "indentation" says when the engine lacks it',
    async () => {
      const { tools } = ws({ 'a.py': 'x\n' })
      expect(
        fail(await tools.callTool('read_file', { file_path: 'a.py', mode: 'indentation' })),
      ).toContain('not available')
    },
  )

  it('list_dir lists depth-first with 2-space indents and / @ ? suffixes, paged by offset and limit', async () => {
    const { root, tools } = ws({ 'b.txt': '', 'a/x.txt': '', 'a/deep/y.txt': '', '.hidden': '' })
    symlinkSync('b.txt', join(root, 'link'))
    execFileSync('mkfifo', [join(root, 'pipe')])
    expect(ok(await tools.callTool('list_dir', { dir_path: root }))).toBe(
      [
        `Absolute path: ${root}`,
        '.hidden',
        'a/',
        '  deep/',
        '  x.txt',
        'b.txt',
        'link@',
        'pipe?',
      ].join('\n'),
    )
    expect(
      ok(await tools.callTool('list_dir', { dir_path: '.', depth: 3, offset: 3, limit: 2 })),
    ).toBe(
      [`Absolute path: ${root}`, '  deep/', '    y.txt', 'More than 2 entries found'].join('\n'),
    )
    expect(fail(await tools.callTool('list_dir', { dir_path: '.', offset: 99 }))).toBe(
      'offset exceeds directory entry count',
    )
    expect(fail(await tools.callTool('list_dir', { dir_path: '.', depth: 0 }))).toBe(
      'depth must be greater than zero',
    )
  })

  it('grep_files lists matching files newest first, limited', async () => {
    const { root, tools } = ws({
      'old.rs': 'needle\n',
      'new.rs': 'needle\n',
      'mid.ts': 'needle\n',
      'no.rs': 'hay\n',
    })
    utimesSync(join(root, 'old.rs'), new Date(2000, 1, 1), new Date(2000, 1, 1))
    utimesSync(join(root, 'mid.ts'), new Date(2010, 1, 1), new Date(2010, 1, 1))
    expect(ok(await tools.callTool('grep_files', { pattern: 'needle' }))).toBe(
      'new.rs\nmid.ts\nold.rs',
    )
    expect(ok(await tools.callTool('grep_files', { pattern: 'needle', include: '*.rs' }))).toBe(
      'new.rs\nold.rs',
    )
    expect(ok(await tools.callTool('grep_files', { pattern: 'needle', limit: 1 }))).toBe('new.rs')
    expect(ok(await tools.callTool('grep_files', { pattern: 'absent' }))).toBe('No matches found.')
    expect(fail(await tools.callTool('grep_files', { pattern: 'x', limit: 0 }))).toBe(
      'limit must be greater than zero',
    )
  })

  it('apply_patch adds, updates (tolerantly) and deletes, answering as Codex does', async () => {
    const { root, tools } = ws({ 'upd.txt': 'a\n  “quoted” line   \nc\n', 'gone.txt': 'x\n' })
    const patch = [
      '*** Begin Patch',
      '*** Add File: new/file.txt',
      '+hello',
      '*** Update File: upd.txt',
      '@@',
      ' a',
      '-"quoted" line',
      '+changed',
      ' c',
      '*** Delete File: gone.txt',
      '*** End Patch',
    ].join('\n')
    expect(ok(await tools.callTool('apply_patch', { input: patch }))).toBe(
      'Success. Updated the following files:\nA new/file.txt\nM upd.txt\nD gone.txt\n',
    )
    expect(readFileSync(join(root, 'new/file.txt'), 'utf8')).toBe('hello\n')
    expect(readFileSync(join(root, 'upd.txt'), 'utf8')).toBe('a\nchanged\nc\n')
    expect(
      fail(
        await tools.callTool('apply_patch', {
          input: '*** Begin Patch\n*** Update File: upd.txt\n@@\n-nothere\n+x\n*** End Patch',
        }),
      ),
    ).toContain('upd.txt')
    expect(readFileSync(join(root, 'upd.txt'), 'utf8')).toBe('a\nchanged\nc\n')
  })

  it('shell runs an argument vector and reports exit code, wall time and output', async () => {
    const { root, tools } = ws()
    mkdirSync(join(root, 'sub'))
    const out = ok(
      await tools.callTool('shell', {
        command: ['bash', '-lc', 'echo "a b"; pwd; exit 2'],
        workdir: 'sub',
      }),
    )
    expect(out).toMatch(/^Exit code: 2\nWall time: \d+\.\d seconds\nOutput:\na b\n/)
    expect(out).toContain(`${join(root, 'sub')}\n`)
    expect(ok(await tools.callTool('shell', { command: ['echo', "it's"] }))).toMatch(
      /Output:\nit's\n$/,
    )
    const timed = ok(await tools.callTool('shell', { command: ['sleep', '5'], timeout_ms: 300 }))
    expect(timed).toMatch(/^Exit code: 124\n/)
  })

  it('turns every bad input into an error result', async () => {
    const { tools } = ws({ 'a.txt': 'a\n' })
    for (const [name, args] of [
      ['read_file', {}],
      ['read_file', { file_path: 'a.txt', mode: 'weird' }],
      ['read_file', { file_path: 'nope' }],
      ['list_dir', {}],
      ['list_dir', { dir_path: 'a.txt' }],
      ['grep_files', {}],
      ['grep_files', { pattern: '(' }],
      ['apply_patch', {}],
      ['apply_patch', { input: 'garbage' }],
      ['shell', {}],
      ['shell', { command: [] }],
      ['shell', { command: 'ls' }],
      ['Read', { file_path: 'a.txt' }],
    ] as const) {
      const r = await tools.callTool(name, args as Record<string, unknown>)
      expect(r.isError, `${name} ${JSON.stringify(args)}`).toBe(true)
      expect(r.meta?.error, `${name} ${JSON.stringify(args)}`).not.toBe('internal')
    }
  })

  it('keeps every path inside the workspace', async () => {
    const { tools } = ws()
    const outside = tempDir()
    writeFileSync(join(outside, 's.txt'), 'secret\n')
    for (const path of ['../s.txt', join(outside, 's.txt')]) {
      for (const [name, args] of [
        ['read_file', { file_path: path }],
        ['list_dir', { dir_path: path.replace('s.txt', '') || '..' }],
        ['grep_files', { pattern: 'secret', path }],
        ['apply_patch', { input: `*** Begin Patch\n*** Add File: ${path}.new\n+x\n*** End Patch` }],
        ['shell', { command: ['true'], workdir: path.replace('/s.txt', '') }],
      ] as const) {
        const r = await tools.callTool(name, args as Record<string, unknown>)
        expect(r.isError, `${name} ${JSON.stringify(args)}`).toBe(true)
        expect(r.meta?.error, `${name} ${JSON.stringify(args)}`).toBe('path_escape')
      }
    }
  })
})

describe('codex grep_files over a scan cut short', () => {
  it('says the scan was incomplete instead of passing a partial list off as whole', async () => {
    const files: Record<string, string> = {}
    const line = `needle ${'x'.repeat(200)}\n`
    for (let i = 0; i < 40; i++) files[`d/f${i}.txt`] = line.repeat(40)
    const root = tempDir()
    writeTree(root, files)
    const tools = createAgentTools({ workspaceRoot: root, surface: 'codex', maxOutputBytes: 1024 })
    const text = ok(await tools.callTool('grep_files', { pattern: 'needle' }))
    expect(text.split('\n').at(-1)).toMatch(/^\[\.\.\. search incomplete: /)
  })
})
