// Every surface through the CLI (`--surface`) and the MCP server (`mcp --surface`), and the
// `surface` option's validation.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { afterEach, describe, expect, it } from 'vitest'
import {
  createAgentTools,
  type Guard,
  type GuardContext,
  listTools,
  resolveConfig,
} from '../index.js'
import { CLI, cleanEnv, runCli } from './cli-helpers'
import { tempDir, writeTree } from './helpers'

const open: Client[] = []
afterEach(async () => {
  for (const client of open.splice(0)) await client.close()
})

const FIRST_TOOL = {
  codex: 'read_file',
  'claude-code': 'Read',
  cyberpaw: 'Read',
  anthropic: 'str_replace_based_edit_tool',
  openai: 'apply_patch',
} as const

describe('surface option', () => {
  it('is refused by name when unknown; absent, nothing changes', () => {
    const root = tempDir()
    expect(() => resolveConfig({ workspaceRoot: root, surface: 'gpt' as never })).toThrow(
      /surface must be one of codex/,
    )
    expect(() => resolveConfig({ workspaceRoot: root, maxCharacters: 0 })).toThrow(/maxCharacters/)
    const plain = createAgentTools({ workspaceRoot: root })
    expect('surface' in plain.config).toBe(false)
    expect(plain.listTools()[0]?.name).toBe('read_file')
    expect(plain.listTools().some((t) => t.name === 'Read')).toBe(false)
    for (const [surface, first] of Object.entries(FIRST_TOOL)) {
      const config = resolveConfig({ workspaceRoot: root, surface: surface as never })
      expect(listTools(config)[0]?.name).toBe(first)
    }
  })
})

describe('surfaces and the guard', () => {
  it('shows the guard each surface call with its paths and bash facts, and obeys it', async () => {
    const root = tempDir()
    writeTree(root, { 'a.txt': 'one\n', 'secret.txt': 's\n' })
    const seen: GuardContext[] = []
    const guard: Guard = (ctx) => {
      seen.push(ctx)
      return ctx.paths.some((p) => p.raw.includes('secret'))
        ? { verdict: 'deny', reason: 'no secrets' }
        : { verdict: 'allow' }
    }
    const cc = createAgentTools({ workspaceRoot: root, surface: 'claude-code', guard })
    expect((await cc.callTool('Read', { file_path: 'a.txt' })).isError).toBe(false)
    const denied = await cc.callTool('Read', { file_path: 'secret.txt' })
    expect(denied.isError).toBe(true)
    expect(denied.text).toBe('no secrets')
    expect(denied.meta?.error).toBe('denied')
    expect(seen[0]?.tool).toBe('Read')
    expect(seen[0]?.args).toEqual({ file_path: 'a.txt' })
    expect(seen[0]?.paths.map((p) => p.raw)).toEqual(['a.txt'])
    const codex = createAgentTools({ workspaceRoot: root, surface: 'codex', guard })
    const shell = await codex.callTool('shell', { command: ['cat', 'secret.txt'] })
    expect(shell.isError).toBe(true)
    expect(seen.at(-1)?.bash?.paths).toContain('secret.txt')
    const openai = createAgentTools({ workspaceRoot: root, surface: 'openai', guard })
    const cmds = await openai.callTool('shell', { commands: ['echo ok', 'cat secret.txt'] })
    expect(cmds.isError).toBe(true)
    const anthropic = createAgentTools({ workspaceRoot: root, surface: 'anthropic', guard })
    const view = await anthropic.callTool('str_replace_based_edit_tool', {
      command: 'view',
      path: 'secret.txt',
    })
    expect(view.text).toBe('no secrets')
  })
})

describe('surfaces through the CLI', () => {
  it('lists and calls each surface', async () => {
    const root = tempDir()
    writeTree(root, { 'a.txt': 'one\n' })
    for (const [surface, first] of Object.entries(FIRST_TOOL)) {
      const list = await runCli(['list', '--workspace', root, '--surface', surface])
      expect(list.code, list.stderr).toBe(0)
      expect(JSON.parse(list.stdout)[0].name).toBe(first)
    }
    const read = await runCli([
      'call',
      'Read',
      '{"file_path": "a.txt"}',
      `--workspace=${root}`,
      '--surface=claude-code',
    ])
    expect(read.stdout).toBe('     1\tone\n')
    const codex = await runCli([
      'call',
      'read_file',
      '{"file_path": "a.txt"}',
      '--workspace',
      root,
      '--surface',
      'codex',
    ])
    expect(codex.stdout).toBe('L1: one\n')
    const outside = await runCli([
      'call',
      'read_file',
      '{"file_path": "../x"}',
      '--workspace',
      root,
      '--surface',
      'codex',
    ])
    expect(outside.code).toBe(1)
    const bad = await runCli(['list', '--workspace', root, '--surface', 'nope'])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('--surface must be one of')
  })
})

describe('surfaces through the MCP server', () => {
  it('serves the surface tools, and the ledger holds across calls of one server', async () => {
    const root = tempDir()
    writeTree(root, { 'a.txt': 'one\n' })
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'mcp', '--workspace', root, '--surface', 'claude-code'],
      env: cleanEnv(),
      stderr: 'pipe',
    })
    const client = new Client({ name: 'surface-test', version: '1.0.0' })
    await client.connect(transport)
    open.push(client)
    const { tools } = await client.listTools()
    expect(tools.map((t) => t.name)).toEqual([
      'Read',
      'Write',
      'Edit',
      'MultiEdit',
      'Glob',
      'Grep',
      'Bash',
      'NotebookEdit',
    ])
    expect(tools.find((t) => t.name === 'Read')?.annotations?.readOnlyHint).toBe(true)
    expect(tools.find((t) => t.name === 'Edit')?.annotations?.readOnlyHint).toBe(false)
    const edit = { file_path: 'a.txt', old_string: 'one', new_string: 'two' }
    const refused = await client.callTool({ name: 'Edit', arguments: edit })
    expect(refused.isError).toBe(true)
    await client.callTool({ name: 'Read', arguments: { file_path: 'a.txt' } })
    const done = await client.callTool({ name: 'Edit', arguments: edit })
    expect(done.isError).toBeFalsy()
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('two\n')
  })
})
