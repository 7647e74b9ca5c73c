// Items 4 and 5 of issue 28: every tool's arguments are documented in the package, generated
// from the schemas the addon advertises; `--help`, README's CLI table and the environment
// variables come from one table (cli-options.js), and nothing the CLI reads goes unmentioned.
import { spawnSync } from 'node:child_process'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import native from '../binding.js'
import { OPTIONS, renderMarkdown } from '../cli-options.js'
import { type AgentToolsOptions, dispatch, resolveConfig, selectSurface } from '../index.js'
import { UNSTATED_DEFAULTS } from '../scripts/gen-docs.mjs'
import { runCli } from './cli-helpers'
import { tempDir } from './helpers'

const repo = join(__dirname, '..')
const pkg = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8'))

describe('the tool reference (docs/tools/)', () => {
  it('is what scripts/gen-docs.mjs makes from the advertised schemas (run `npm run gen:docs`)', () => {
    const r = spawnSync(process.execPath, [join(repo, 'scripts', 'gen-docs.mjs'), '--check'], {
      encoding: 'utf8',
    })
    expect(r.stderr).toBe('')
    expect(r.status).toBe(0)
  })

  it('documents every argument of every tool of each entry point and surface', () => {
    const files: [string, { name: string; inputSchema: { properties?: object } }[]][] = [
      ['root.md', JSON.parse(native.toolDefsJson())],
      ...['codex', 'claude-code', 'cyberpaw', 'anthropic', 'openai'].map(
        (s): [string, { name: string; inputSchema: { properties?: object } }[]] => [
          `${s}.md`,
          JSON.parse(native.surfaceToolsJson(s)),
        ],
      ),
    ]
    for (const [file, defs] of files) {
      const doc = readFileSync(join(repo, 'docs', 'tools', file), 'utf8')
      for (const def of defs) {
        expect(doc, `${file} lacks ${def.name}`).toContain(`## \`${def.name}\``)
        for (const arg of Object.keys(def.inputSchema.properties ?? {})) {
          expect(doc, `${file} lacks ${def.name}.${arg}`).toContain(`| \`${arg}\` |`)
        }
      }
    }
  })

  it('ships in the package with SPEC.md, and README links it', () => {
    expect(pkg.files).toContain('docs/tools/')
    expect(pkg.files).toContain('SPEC.md')
    const readme = readFileSync(join(repo, 'README.md'), 'utf8')
    for (const f of ['root', 'v0.1', 'codex', 'claude-code', 'cyberpaw', 'anthropic', 'openai']) {
      expect(readme).toContain(`(docs/tools/${f}.md)`)
    }
  })
})

/** The text of a tool's section in docs/tools/<file>. */
function sectionOf(file: string, tool: string): string {
  const doc = readFileSync(join(repo, 'docs', 'tools', file), 'utf8')
  const start = doc.indexOf(`## \`${tool}\`\n`)
  if (start < 0) throw new Error(`${file} has no section ${tool}`)
  const end = doc.indexOf('\n## ', start + 1)
  return doc.slice(start, end < 0 ? undefined : end)
}

/**
 * The default column of an argument in docs/tools/<file>: its row in the tool's section, else
 * its row in the root's table of arguments beyond the contract (`| tool | argument | ...`).
 */
function shownDefault(file: string, tool: string, arg: string): string {
  const cells = (line: string) => line.split(' | ').map((c) => c.replace(/^\| /, ''))
  const row = sectionOf(file, tool)
    .split('\n')
    .find((l) => l.startsWith(`| \`${arg}\` |`))
  if (row) return cells(row)[2] ?? ''
  const doc = readFileSync(join(repo, 'docs', 'tools', file), 'utf8')
  const widened = doc.split('\n').find((l) => l.startsWith(`| \`${tool}\` | \`${arg}\` |`))
  if (!widened) throw new Error(`${file} has no row ${tool}.${arg}`)
  return cells(widened)[3] ?? ''
}

/** A workspace with a text file, a Python file and a TypeScript file. */
function workspace(): string {
  const root = tempDir()
  writeFileSync(join(root, 'a.txt'), 'alpha\nbeta\n')
  mkdirSync(join(root, 'src'))
  writeFileSync(
    join(root, 'src', 'app.py'),
    'class App:\n    def main(self):\n        print("hi")\n        return 1\n',
  )
  writeFileSync(join(root, 'src', 'b.ts'), 'export function main() {\n  return main\n}\n')
  return root
}

/** A result's text with the monitor ids (new for each call) blanked. */
async function run(
  options: Partial<AgentToolsOptions>,
  tool: string,
  args: Record<string, unknown>,
  root: string,
) {
  const r = await dispatch(tool, args, resolveConfig({ workspaceRoot: root, ...options }))
  return { isError: r.isError, text: r.text.replace(/mon_[0-9a-f]+/g, 'mon_') }
}

describe('the default column of the tool reference', () => {
  // Each row: what the docs show, and leaving the argument out does what passing it does.
  const cases: {
    file: string
    options?: Partial<AgentToolsOptions>
    tool: string
    args: Record<string, unknown>
    arg: string
    value: unknown
    shown: string
  }[] = [
    ...['root.md', 'v0.1.md'].map((file) => ({
      file,
      tool: 'grep',
      args: { pattern: 'alpha' },
      arg: 'output_mode',
      value: 'files_with_matches',
      shown: '`"files_with_matches"`',
    })),
    ...(['claude-code', 'cyberpaw'] as const).map((surface) => ({
      file: `${surface}.md`,
      options: { surface },
      tool: 'Grep',
      args: { pattern: 'alpha' },
      arg: 'output_mode',
      value: 'files_with_matches',
      shown: '`"files_with_matches"`',
    })),
    {
      file: 'codex.md',
      options: { surface: 'codex' },
      tool: 'grep_files',
      args: { pattern: 'alpha' },
      arg: 'path',
      value: '.',
      shown: 'the workspace root',
    },
    {
      file: 'root.md',
      options: { extras: true },
      tool: 'read_file',
      args: { path: 'src/app.py', mode: 'indentation', anchor_line: 3 },
      arg: 'max_levels',
      value: 0,
      shown: '`0`',
    },
    {
      file: 'root.md',
      tool: 'replace',
      args: { pattern: 'alpha', replacement: 'x', glob: '*.txt' },
      arg: 'path',
      value: '.',
      shown: 'required unless `glob` is given (then the workspace root)',
    },
    {
      file: 'root.md',
      options: { extras: true },
      tool: 'monitor_start',
      args: { command: 'cat; echo done', ready_when: 'done' },
      arg: 'stdin',
      value: false,
      shown: '`false`',
    },
    {
      file: 'root.md',
      options: { extras: true },
      tool: 'monitor_start',
      args: { command: 'test -t 1 && echo tty || echo notty', ready_when: 'tty' },
      arg: 'pty',
      value: false,
      shown: '`false`',
    },
    ...['find_symbol', 'find_references'].map((tool) => ({
      file: 'root.md',
      options: { extras: true },
      tool,
      args: { name: 'main', head_limit: 1 },
      arg: 'offset',
      value: 0,
      shown: '`0`',
    })),
    {
      file: 'root.md',
      options: { extras: true },
      tool: 'ast_grep',
      args: { pattern: 'return $X', language: 'typescript', head_limit: 1 },
      arg: 'offset',
      value: 0,
      shown: '`0`',
    },
  ]

  for (const c of cases) {
    it(`${c.file} ${c.tool}.${c.arg}: ${c.shown}`, async () => {
      expect(shownDefault(c.file, c.tool, c.arg)).toBe(c.shown)
      if (c.file === 'v0.1.md') return // the same engine as the root's row above
      const root = workspace()
      const left = await run(c.options ?? {}, c.tool, c.args, root)
      const given = await run(c.options ?? {}, c.tool, { ...c.args, [c.arg]: c.value }, root)
      expect(left.isError).toBe(false)
      expect(left).toEqual(given)
    })
  }

  it('replace needs path or glob: without either it is refused', async () => {
    const r = await run({}, 'replace', { pattern: 'alpha', replacement: 'x' }, workspace())
    expect(r.isError).toBe(true)
    expect(r.text).toContain('Provide `path` or `glob`')
  })

  it('monitor_send.eof: `false`, stdin stays open', async () => {
    expect(shownDefault('root.md', 'monitor_send', 'eof')).toBe('`false`')
    const config = resolveConfig({ workspaceRoot: workspace(), extras: true })
    for (const eof of [undefined, false]) {
      const started = await dispatch('monitor_start', { command: 'cat', stdin: true }, config)
      const { id } = JSON.parse(started.text)
      const sent = await dispatch(
        'monitor_send',
        { id, input: 'x\n', ...(eof === undefined ? {} : { eof }) },
        config,
      )
      expect(JSON.parse(sent.text)).toMatchObject({ eof: false })
      await new Promise((r) => setTimeout(r, 200))
      const polled = JSON.parse((await dispatch('monitor_poll', { id }, config)).text)
      expect(polled).toMatchObject({ running: true, output: 'x\n' })
      await dispatch('monitor_stop', { id }, config)
    }
  })

  it('every unstated default the generator knows is checked above', () => {
    const checked = new Set([...cases.map((c) => `${c.tool}.${c.arg}`), 'monitor_send.eof'])
    for (const key of Object.keys(UNSTATED_DEFAULTS)) expect(checked).toContain(key)
  })
})

describe('a tool description of several lines', () => {
  it('keeps its line breaks, each patch example in a fenced block that applies as it is', async () => {
    const doc = sectionOf('root.md', 'apply_patch')
    const example = doc.match(/\n```\n(\*\*\* Begin Patch\n[\s\S]*?\n\*\*\* End Patch)\n```\n/)
    expect(example, 'the Begin-Patch example is not a fenced block').not.toBeNull()
    const root = tempDir()
    mkdirSync(join(root, 'src'))
    writeFileSync(join(root, 'src', 'app.py'), 'def main():\n    print("hi")\n')
    writeFileSync(join(root, 'old.txt'), 'old\n')
    const r = await dispatch(
      'apply_patch',
      { patch: example?.[1] ?? '' },
      resolveConfig({ workspaceRoot: root }),
    )
    expect(r.isError).toBe(false)
    expect(readFileSync(join(root, 'src', 'app.py'), 'utf8')).toBe(
      'def main():\n    print("hello")\n',
    )
    expect(readFileSync(join(root, 'notes.txt'), 'utf8')).toBe('first line\n')
  })

  it('every description line of every tool is a line of its doc', () => {
    const files: [string, { name: string; description: string }[]][] = [
      ['root.md', JSON.parse(native.toolDefsJson())],
      ...['codex', 'claude-code', 'cyberpaw', 'anthropic', 'openai'].map(
        (s): [string, { name: string; description: string }[]] => [
          `${s}.md`,
          JSON.parse(native.surfaceToolsJson(s)),
        ],
      ),
    ]
    for (const [file, defs] of files) {
      for (const def of defs) {
        const lines = sectionOf(file, def.name).split('\n')
        for (const line of def.description.split('\n')) {
          expect(lines, `${file} ${def.name}`).toContain(line.replace(/\|/g, '\\|'))
        }
      }
    }
  })
})

describe("README's word on read_image's meta", () => {
  it('width and height in result.meta only with extras: true', async () => {
    const readme = readFileSync(join(repo, 'README.md'), 'utf8').replace(/\s+/g, ' ')
    expect(readme).toContain(
      '`read_image` (PNG/JPEG/GIF/WebP as an image part; with `extras: true` its width and height in `result.meta`, without it no `meta`)',
    )
    const root = tempDir()
    const png =
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=='
    writeFileSync(join(root, 'p.png'), Buffer.from(png, 'base64'))
    const plain = await dispatch(
      'read_image',
      { path: 'p.png' },
      resolveConfig({ workspaceRoot: root }),
    )
    expect(plain.isError).toBe(false)
    expect(plain.meta).toBeUndefined()
    const extras = await dispatch(
      'read_image',
      { path: 'p.png' },
      resolveConfig({ workspaceRoot: root, extras: true }),
    )
    expect(extras.meta).toMatchObject({ width: 1, height: 1 })
  })
})

/** The variables the CLI's own JavaScript reads (`process.env.NAME`). */
function jsReads(): string[] {
  const names: string[] = []
  for (const file of ['cli.js', 'cli-options.js', 'mcp.js', 'mcp-http.js']) {
    const source = readFileSync(join(repo, file), 'utf8')
    const re = /process\.env(?:\.([A-Z_][A-Z0-9_]*)|\[['"]([A-Z_0-9]+)['"]\])/g
    for (const m of source.matchAll(re)) names.push(m[1] ?? m[2] ?? '')
  }
  return names
}

describe('help from one source', () => {
  const envOf = (o: { env?: string }) => o.env
  const helps = Promise.all(
    ['--help', 'list --help', 'call --help', 'mcp --help'].map((a) => runCli(a.split(' '))),
  )

  it('--help names every environment variable buildConfig reads', async () => {
    const read: string[] = native.configEnvVars('current')
    expect(read).toContain('MAX_IMAGE_BYTES')
    for (const h of await helps) {
      expect(h.code).toBe(0)
      for (const name of read) expect(h.stdout, `--help lacks ${name}`).toContain(name)
    }
    // And every variable the table documents is read by someone.
    for (const name of OPTIONS.map(envOf).filter(Boolean)) {
      expect(read.includes(name) || jsReads().includes(name), `nothing reads ${name}`).toBe(true)
    }
  })

  it('--help names every variable the CLI and the MCP server read themselves', async () => {
    const [main] = await helps
    expect(jsReads()).toContain('MCP_HTTP_TOKEN')
    for (const name of jsReads()) {
      expect(main?.stdout, `the CLI reads ${name}, which --help does not name`).toContain(name)
    }
  })

  it('--help lists every flag the CLI accepts, and the CLI accepts every flag it lists', async () => {
    const [main] = await helps
    for (const o of OPTIONS) if (o.flag) expect(main?.stdout).toContain(o.flag)
    const flags = [...(main?.stdout ?? '').matchAll(/^ {2}(?:-\w, )?(--[a-z-]+)/gm)].map(
      (m) => m[1],
    )
    expect(flags.sort()).toEqual(
      OPTIONS.map((o: { flag?: string }) => o.flag)
        .filter(Boolean)
        .sort(),
    )
  })

  it('--read-only names the read tools, counted from the registry', async () => {
    const [main] = await helps
    const read = selectSurface(true, true, true).map((t) => t.name)
    expect(main?.stdout.replace(/\s+/g, ' ')).toContain(
      `(at the root, these ${read.length}: ${read.join(', ')})`,
    )
  })

  it("README's CLI table is the table --help is rendered from", () => {
    const readme = readFileSync(join(repo, 'README.md'), 'utf8')
    expect(readme).toContain(`\n${renderMarkdown()}\n`)
  })
})
