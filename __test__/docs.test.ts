// Items 4 and 5 of issue 28: every tool's arguments are documented in the package, generated
// from the schemas the addon advertises; `--help`, README's CLI table and the environment
// variables come from one table (cli-options.js), and nothing the CLI reads goes unmentioned.
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import native from '../binding.js'
import { OPTIONS, renderMarkdown } from '../cli-options.js'
import { selectSurface } from '../index.js'
import { runCli } from './cli-helpers'

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
