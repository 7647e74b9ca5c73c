// Code navigation (tools beyond the contract, offered with `extras: true`): find_symbol,
// find_references, repo_map and ast_grep, through the public API, on small real-looking
// projects in each language family.
import { readFileSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  type AgentToolsOptions,
  contentText,
  createAgentTools,
  type DispatchResult,
  dispatch,
  resolveConfig,
} from '../index.js'
import { tempDir, writeTree } from './helpers'

function workspace(
  files: Record<string, string> = {},
  options: Omit<AgentToolsOptions, 'workspaceRoot'> = {},
) {
  const root = tempDir('atn-nav-')
  writeTree(root, files)
  return { root, tools: createAgentTools({ workspaceRoot: root, extras: true, ...options }) }
}

function ok(result: DispatchResult): string {
  const text = contentText(result.content)
  if (result.isError) throw new Error(`expected success, got ${text}`)
  return text
}

function err(result: DispatchResult): { error: string; message: string } {
  const text = contentText(result.content)
  if (!result.isError) throw new Error(`expected an error, got ${text}`)
  return JSON.parse(text)
}

/** A TypeScript line whose template literal uses a name: `${Client.name}` is a reference. */
const RUN_LINE = ['export const run = () => c.get(`/$', '{Client.name}`)'].join('')

/** One small project per language family: a central module used by two others. */
const PROJECT: Record<string, string> = {
  'rust/src/store.rs': [
    '/// A key-value store. Store is used everywhere.',
    'pub struct Store {',
    '    items: Vec<u8>,',
    '}',
    '',
    'impl Store {',
    '    pub fn open(path: &str) -> Store {',
    '        Store { items: Vec::new() }',
    '    }',
    '}',
    '',
  ].join('\n'),
  'rust/src/main.rs': [
    'use crate::store::Store;',
    '',
    'fn main() {',
    '    // Store::open is called once',
    '    let s = Store::open("db");',
    '    let label = "Store";',
    '    let StoreExt = 1;',
    '}',
    '',
  ].join('\n'),
  'ts/src/client.ts': [
    '// The HTTP client.',
    'export class Client {',
    '  constructor(private base: string) {}',
    '  get(path: string): string {',
    '    return this.base + path',
    '  }',
    '}',
    '',
  ].join('\n'),
  'ts/src/app.ts': [
    "import { Client } from './client'",
    '',
    "const c = new Client('http://x') // Client here is a comment",
    "const name = 'Client'",
    RUN_LINE,
    '',
  ].join('\n'),
  'py/pkg/db.py': [
    'class Database:',
    '    """Database access."""',
    '',
    '    def query(self, sql):',
    '        return sql',
    '',
  ].join('\n'),
  'py/pkg/api.py': [
    'from pkg.db import Database',
    '',
    '# Database is created per request',
    'def handle(req):',
    '    db = Database()',
    "    return db.query('Database')",
    '',
  ].join('\n'),
  'go/server/server.go': [
    'package server',
    '',
    '// Server serves.',
    'type Server struct {',
    '\tAddr string',
    '}',
    '',
    'func NewServer(addr string) *Server {',
    '\treturn &Server{Addr: addr}',
    '}',
    '',
  ].join('\n'),
  'go/main.go': [
    'package main',
    '',
    'func main() {',
    '\ts := server.NewServer(":80") // NewServer',
    '\tprintln("NewServer", s)',
    '}',
    '',
  ].join('\n'),
  'c/list.h': [
    'struct list {',
    '  struct list *next;',
    '};',
    'int list_len(struct list *l);',
    '',
  ].join('\n'),
  'c/list.c': [
    '#include "list.h"',
    '',
    '/* list_len counts */',
    'int list_len(struct list *l)',
    '{',
    '  int n = 0;',
    '  for (; l; l = l->next) n++;',
    '  return n;',
    '}',
    '',
    'int list_len_twice(struct list *l) { return 2 * list_len(l); }',
    '',
  ].join('\n'),
  'java/src/Cache.java': [
    'public class Cache {',
    '  public Object lookup(String key) {',
    '    return null;',
    '  }',
    '}',
    '',
  ].join('\n'),
  'java/src/Main.java': [
    'class Main {',
    '  void run(Cache cache) {',
    '    // lookup first',
    '    cache.lookup("lookup");',
    '  }',
    '}',
    '',
  ].join('\n'),
}

describe('find_symbol', () => {
  it('finds definitions with their kind, line and first line, per family', async () => {
    const { tools } = workspace(PROJECT)
    const find = async (args: object) => ok(await tools.callTool('find_symbol', args))
    expect(await find({ name: 'Store' })).toBe('rust/src/store.rs:2: struct pub struct Store {')
    expect(await find({ name: 'open' })).toBe(
      'rust/src/store.rs:7: method pub fn open(path: &str) -> Store {',
    )
    expect(await find({ name: 'Client' })).toBe('ts/src/client.ts:2: class export class Client {')
    expect(await find({ name: 'run' })).toBe(
      [
        'java/src/Main.java:2: method void run(Cache cache) {',
        `ts/src/app.ts:5: function ${RUN_LINE}`,
      ].join('\n'),
    )
    expect(await find({ name: 'query' })).toBe('py/pkg/db.py:4: method def query(self, sql):')
    expect(await find({ name: 'Server' })).toBe(
      'go/server/server.go:4: struct type Server struct {',
    )
    expect(await find({ name: 'list_len' })).toBe(
      'c/list.c:4: function int list_len(struct list *l)',
    )
    expect(await find({ name: 'list', kind: 'struct' })).toBe('c/list.h:1: struct struct list {')
    expect(await find({ name: 'lookup', path: 'java' })).toBe(
      'java/src/Cache.java:2: method public Object lookup(String key) {',
    )
    expect(await find({ name: 'Store', kind: 'function' })).toBe('(no matches)')
    expect(err(await tools.callTool('find_symbol', { name: 'x', kind: 'klass' }))).toMatchObject({
      error: 'invalid_input',
    })
  })
})

describe('find_references', () => {
  it('lists uses, skipping comments, strings, longer names and the definition', async () => {
    const { tools } = workspace(PROJECT)
    const refs = async (name: string) => ok(await tools.callTool('find_references', { name }))
    expect(await refs('Store')).toBe(
      [
        'rust/src/main.rs:1: use crate::store::Store;',
        'rust/src/main.rs:5:     let s = Store::open("db");',
        'rust/src/store.rs:6: impl Store {',
        'rust/src/store.rs:7:     pub fn open(path: &str) -> Store {',
        'rust/src/store.rs:8:         Store { items: Vec::new() }',
      ].join('\n'),
    )
    expect(await refs('Client')).toBe(
      [
        "ts/src/app.ts:1: import { Client } from './client'",
        "ts/src/app.ts:3: const c = new Client('http://x') // Client here is a comment",
        `ts/src/app.ts:5: ${RUN_LINE}`,
      ].join('\n'),
    )
    expect(await refs('Database')).toBe(
      ['py/pkg/api.py:1: from pkg.db import Database', 'py/pkg/api.py:5:     db = Database()'].join(
        '\n',
      ),
    )
    expect(await refs('NewServer')).toBe(
      'go/main.go:4: \ts := server.NewServer(":80") // NewServer',
    )
    expect(await refs('list_len')).toBe(
      [
        'c/list.c:11: int list_len_twice(struct list *l) { return 2 * list_len(l); }',
        'c/list.h:4: int list_len(struct list *l);',
      ].join('\n'),
    )
    expect(await refs('lookup')).toBe('java/src/Main.java:4:     cache.lookup("lookup");')
  })

  it('pages like grep and stays within maxOutputBytes', async () => {
    const body = Array.from({ length: 300 }, (_, i) => `fn f${i}() { target(); }`).join('\n')
    const { tools } = workspace(
      { 'a.rs': body, 'b.rs': 'fn g() { target() }\n' },
      { maxOutputBytes: 2000 },
    )
    const page = ok(
      await tools.callTool('find_references', { name: 'target', head_limit: 2, offset: 299 }),
    )
    expect(page).toBe('a.rs:300: fn f299() { target(); }\nb.rs:1: fn g() { target() }')
    const cut = ok(await tools.callTool('find_references', { name: 'target' }))
    expect(cut.length).toBeLessThanOrEqual(2000)
    expect(cut).toMatch(/\[\.\.\. showing 0\.\.\d+ of 301; the output limit cut this page short/)
  })
})

describe('repo_map', () => {
  const SERVICE = {
    'svc/core.py':
      'class Registry:\n    def lookup(self, key):\n        return key\n\ndef register(name):\n    return Registry()\n',
    'svc/http.py':
      'from svc.core import Registry, register\n\ndef serve():\n    register("http")\n    Registry().lookup(1)\n',
    'svc/cli.py': 'from svc.core import register\n\ndef main():\n    register("cli")\n',
    'svc/worker.py': 'from svc.core import Registry\n\ndef work():\n    Registry().lookup(2)\n',
    'scripts/report.py': 'def report():\n    pass\n\ndef summary():\n    return report()\n',
  }

  it('ranks the central file first, shows signatures only, and stays within budget', async () => {
    const { tools } = workspace(SERVICE)
    const map = ok(await tools.callTool('repo_map', {}))
    expect(map.startsWith('svc/core.py:\n  1: class Registry\n')).toBe(true)
    expect(map).toContain('  5: def register(name)')
    expect(map).not.toContain('return')
    expect(ok(await tools.callTool('repo_map', {}))).toBe(map)
    const small = ok(await tools.callTool('repo_map', { max_tokens: 10 }))
    expect(small.length).toBeLessThanOrEqual(40)
    expect(small.startsWith('svc/core.py:')).toBe(true)
  })

  it('honours focus (a file or a symbol name)', async () => {
    const { tools } = workspace(SERVICE)
    const byFile = ok(await tools.callTool('repo_map', { focus: ['scripts/report.py'] }))
    expect(byFile.startsWith('scripts/report.py:\n')).toBe(true)
    const byName = ok(await tools.callTool('repo_map', { focus: ['work'] }))
    expect(byName.startsWith('svc/worker.py:\n')).toBe(true)
  })

  it('maps every family in one tree', async () => {
    const { tools } = workspace(PROJECT)
    const map = ok(await tools.callTool('repo_map', { max_tokens: 4096 }))
    for (const path of [
      'rust/src/store.rs',
      'ts/src/client.ts',
      'py/pkg/db.py',
      'go/server/server.go',
      'c/list.h',
      'java/src/Cache.java',
    ]) {
      expect(map).toContain(`${path}:\n`)
    }
  })
})

describe('C, parsed around its function bodies', () => {
  const C = {
    'k/walk.c': [
      'static int walk(struct list_head *head, int new)',
      '{',
      '#define WALK_LIMIT 8',
      '\tstruct item *pos;',
      '\tlist_for_each_entry(pos, head, link) {',
      '\t\tif (pos->n > WALK_LIMIT)',
      '\t\t\treturn new;',
      '\t}',
      '\treturn 0; /* new */',
      '}',
      '',
    ].join('\n'),
  }

  it('finds a #define inside a body, and no function in a loop macro', async () => {
    const { tools } = workspace(C)
    const find = async (name: string) => ok(await tools.callTool('find_symbol', { name }))
    expect(await find('WALK_LIMIT')).toBe('k/walk.c:3: macro #define WALK_LIMIT 8')
    expect(await find('walk')).toBe(
      'k/walk.c:1: function static int walk(struct list_head *head, int new)',
    )
    // A whole parse reads `list_for_each_entry(...) {` in a body as a function definition.
    expect(await find('list_for_each_entry')).toBe('(no matches)')
  })

  it('counts a C name the C++ grammar reserves (`new`), not its mention in a comment', async () => {
    const { tools } = workspace(C)
    expect(ok(await tools.callTool('find_references', { name: 'new' }))).toBe(
      'k/walk.c:1: static int walk(struct list_head *head, int new)\nk/walk.c:7: \t\t\treturn new;',
    )
    expect(ok(await tools.callTool('find_references', { name: 'pos' }))).toBe(
      [
        'k/walk.c:4: \tstruct item *pos;',
        'k/walk.c:5: \tlist_for_each_entry(pos, head, link) {',
        'k/walk.c:6: \t\tif (pos->n > WALK_LIMIT)',
      ].join('\n'),
    )
  })
})

describe('ast_grep', () => {
  const CODE = {
    'src/a.rs': 'fn a() {\n    // b.unwrap() in a comment\n    let x = opt.unwrap();\n}\n',
    'src/b.rs': 'fn b() -> u8 {\n    parse(s).unwrap()\n}\n',
    'web/log.ts': 'console.log("a", b)\nconsole.error(c)\n',
  }

  it('matches structurally, one row per match', async () => {
    const { tools } = workspace(CODE)
    expect(ok(await tools.callTool('ast_grep', { pattern: '$X.unwrap()', language: 'rust' }))).toBe(
      'src/a.rs:3: opt.unwrap()\nsrc/b.rs:2: parse(s).unwrap()',
    )
    expect(ok(await tools.callTool('ast_grep', { pattern: 'console.log($$$A)' }))).toBe(
      'web/log.ts:1: console.log("a", b)',
    )
  })

  it('rewrites: a dry run touches nothing, an apply writes every file with meta.diff', async () => {
    const { root, tools } = workspace(CODE)
    const args = { pattern: '$X.unwrap()', rewrite: '$X.expect("checked")', language: 'rust' }
    const dry = ok(await tools.callTool('ast_grep', args))
    expect(dry.startsWith('2 rewrite(s) across 2 file(s) (dry run')).toBe(true)
    expect(readFileSync(join(root, 'src/a.rs'), 'utf8')).toBe(CODE['src/a.rs'])
    const applied = await tools.callTool('ast_grep', { ...args, dry_run: false })
    expect(ok(applied)).toBe(
      'Rewrote 2 match(es) in 2 file(s):\n  M src/a.rs (1 rewrite)\n  M src/b.rs (1 rewrite)',
    )
    expect(String(applied.meta?.diff)).toContain('+    let x = opt.expect("checked");')
    expect(readFileSync(join(root, 'src/b.rs'), 'utf8')).toBe(
      'fn b() -> u8 {\n    parse(s).expect("checked")\n}\n',
    )
  })

  it('is all or nothing: one refused file leaves every file as it was', async () => {
    const { root, tools } = workspace(CODE)
    symlinkSync(join(root, 'src/b.rs'), join(root, 'src/link.rs'))
    const r = await tools.callTool('ast_grep', {
      pattern: '$X.unwrap()',
      rewrite: '$X.expect("x")',
      language: 'rust',
      dry_run: false,
    })
    expect(r.isError).toBe(true)
    expect(readFileSync(join(root, 'src/a.rs'), 'utf8')).toBe(CODE['src/a.rs'])
    expect(readFileSync(join(root, 'src/b.rs'), 'utf8')).toBe(CODE['src/b.rs'])
  })

  it('names what is wrong with a bad pattern or language', async () => {
    const { tools } = workspace(CODE)
    const bad = err(await tools.callTool('ast_grep', { pattern: '$$$A', language: 'rust' }))
    expect(bad.error).toBe('invalid_input')
    expect(bad.message).toMatch(/^invalid ast-grep pattern for rust: /)
    const lang = err(await tools.callTool('ast_grep', { pattern: 'x', language: 'cobol' }))
    expect(lang.error).toBe('invalid_input')
    expect(lang.message).toMatch(/^unknown language "cobol": use one of typescript, tsx, /)
  })
})

describe('navigation tools are extras', () => {
  const NAV = ['find_symbol', 'find_references', 'repo_map', 'ast_grep']

  it('are listed only with extras: true, with titles and annotations', async () => {
    const root = tempDir('atn-nav-')
    const plain = createAgentTools({ workspaceRoot: root })
      .listTools()
      .map((t) => t.name)
    for (const name of NAV) expect(plain).not.toContain(name)
    const extras = createAgentTools({ workspaceRoot: root, extras: true }).listTools()
    for (const name of NAV) {
      const tool = extras.find((t) => t.name === name)
      expect(tool, name).toBeDefined()
      expect(tool?.description).toMatch(/grep/)
    }
    const readOnly = createAgentTools({ workspaceRoot: root, extras: true, readOnly: true })
      .listTools()
      .map((t) => t.name)
    expect(readOnly).toEqual(expect.arrayContaining(['find_symbol', 'find_references', 'repo_map']))
    expect(readOnly).not.toContain('ast_grep')
  })

  it('answer aborted when the call is cancelled', async () => {
    // A tree big enough that the walk is still going when the abort lands (as grep's test).
    const root = tempDir('atn-nav-')
    const files: Record<string, string> = {}
    for (let i = 0; i < 600; i++)
      files[`d${i % 20}/e${i % 7}/f${i}.rs`] = 'fn Store() { x.unwrap(); }\n'
    writeTree(root, files)
    const config = resolveConfig({ workspaceRoot: root, extras: true })
    for (const [tool, args] of [
      ['find_symbol', { name: 'Store' }],
      ['find_references', { name: 'Store' }],
      ['repo_map', {}],
      ['ast_grep', { pattern: '$X.unwrap()' }],
    ] as const) {
      const r = await dispatch(tool, args, config, AbortSignal.abort())
      expect(r.isError, tool).toBe(true)
      expect(JSON.parse(r.text).error, tool).toBe('aborted')
    }
  })
})
