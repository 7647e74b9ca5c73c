// `null` means "not given" for every optional argument, at the root and in every surface:
// hosts with strict function calling (OpenAI's) send every property, with null where unset.
// Generic over the tool lists: each listed tool is called once with every optional property
// null and once without them, each in a fresh identical workspace, and the two answers match.
import { describe, expect, it } from 'vitest'
import { contentText, createAgentTools, type Surface } from '../index.js'
import { tempDir, writeTree } from './helpers'

type Schema = { properties?: Record<string, Schema>; required?: string[]; type?: string }

/** A value for each required argument name that leads each tool into real work. */
const REQUIRED: Record<string, unknown> = {
  path: 'a.txt',
  file_path: 'a.txt',
  notebook_path: 'n.ipynb',
  dir_path: '.',
  paths: ['a.txt'],
  content: 'new\n',
  old_string: 'hello',
  new_string: 'bye',
  edits: [{ old_string: 'hello', new_string: 'bye' }],
  patch: '*** Begin Patch\n*** Update File: a.txt\n@@\n-hello\n+bye\n*** End Patch\n',
  input: '*** Begin Patch\n*** Update File: a.txt\n@@\n-hello\n+bye\n*** End Patch\n',
  pattern: 'hello',
  replacement: 'bye',
  from: 'a.txt',
  to: 'b.txt',
  source: 'a.txt',
  destination: 'c.txt',
  id: 'no-such-monitor',
  type: 'update_file',
}

/** Per tool, where a name means something else there. */
const REQUIRED_BY_TOOL: Record<string, Record<string, unknown>> = {
  shell: { command: ['echo', 'hi'], commands: ['echo hi'] },
  bash: { command: 'echo hi' },
  Bash: { command: 'echo hi' },
  monitor_start: { command: 'echo hi' },
  str_replace_based_edit_tool: { command: 'view' },
  apply_patch: { diff: '@@\n-hello\n+bye\n' },
  mkdir: { path: 'newdir' },
  // These list matching files newest first: one match keeps the order from mtimes' ties.
  grep_files: { pattern: 'world' },
  Grep: { pattern: 'world' },
}

const FILES = {
  'a.txt': 'hello\nworld\n',
  'b.txt': 'hello\nthere\n',
  'src/m.ts': 'export function hello(): number {\n  return 1\n}\n',
  'n.ipynb': JSON.stringify({
    cells: [{ cell_type: 'code', id: 'c1', metadata: {}, source: ['x = 1\n'], outputs: [] }],
    metadata: {},
    nbformat: 4,
    nbformat_minor: 5,
  }),
}

function argsFor(tool: string, schema: Schema, withNulls: boolean): Record<string, unknown> {
  const args: Record<string, unknown> = {}
  for (const name of schema.required ?? []) {
    args[name] = REQUIRED_BY_TOOL[tool]?.[name] ?? REQUIRED[name]
  }
  if (withNulls) {
    for (const name of Object.keys(schema.properties ?? {})) {
      if (!(schema.required ?? []).includes(name)) args[name] = null
    }
  }
  return args
}

/** A fresh workspace with `FILES`, and the tools of `surface` (or the root's, extras on). */
function fresh(surface?: Surface) {
  const root = tempDir('atn-null-')
  writeTree(root, FILES)
  const tools = createAgentTools({ workspaceRoot: root, extras: true, ...(surface && { surface }) })
  return { root, tools }
}

async function answer(surface: Surface | undefined, tool: string, withNulls: boolean) {
  const { root, tools } = fresh(surface)
  const schema = tools.listTools().find((t) => t.name === tool)?.inputSchema as Schema
  const result = await tools.callTool(tool, argsFor(tool, schema, withNulls))
  // Absolute paths, times, process ids and monitor ids differ between the two workspaces.
  const text = contentText(result.content)
    .split(root)
    .join('<root>')
    .replace(/mon_\w+/g, 'mon_')
    .replace(/\d+/g, '#')
  return { isError: result.isError, text, optional: optionalNames(schema) }
}

function optionalNames(schema: Schema): string[] {
  return Object.keys(schema.properties ?? {}).filter((n) => !(schema.required ?? []).includes(n))
}

const SURFACES: (Surface | undefined)[] = [
  undefined,
  'codex',
  'claude-code',
  'cyberpaw',
  'anthropic',
  'openai',
]

describe('null means absent for every optional argument', () => {
  for (const surface of SURFACES) {
    const names = fresh(surface)
      .tools.listTools()
      .map((t) => t.name)
    for (const tool of names) {
      it(`${surface ?? 'root'}: ${tool}`, async () => {
        const given = await answer(surface, tool, true)
        const absent = await answer(surface, tool, false)
        for (const name of given.optional) {
          expect(given.text, `${tool}: ${name}: null was refused`).not.toMatch(
            new RegExp(`\\b${name}\\b[^\\n]*\\bmust\\b`),
          )
        }
        expect(given).toEqual(absent)
      })
    }
  }

  it('read_file mode: null and grep output_mode: null (the reported cases)', async () => {
    const { tools } = fresh()
    const read = await tools.callTool('read_file', { path: 'a.txt', mode: null } as never)
    expect(read.isError).toBe(false)
    expect(contentText(read.content)).toContain('hello')
    const grep = await tools.callTool('grep', { pattern: 'hello', output_mode: null } as never)
    expect(grep.isError).toBe(false)
    expect(contentText(grep.content)).toContain('a.txt')
  })

  it('a required argument sent as null is still refused', async () => {
    const { tools } = fresh()
    const r = await tools.callTool('write_file', { path: null, content: 'x' } as never)
    expect(r.isError).toBe(true)
  })
})
