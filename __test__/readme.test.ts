// The README's code is real: every TypeScript block is an example file compiled by the type
// tests, and the MCP registration snippets start a server that answers.
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { describe, expect, it } from 'vitest'
import { selectSurface } from '../index.js'
import { CLI, cleanEnv } from './cli-helpers'
import { tempDir } from './helpers'

const root = join(__dirname, '..')
const readme = readFileSync(join(root, 'README.md'), 'utf8')

interface Block {
  lang: string
  body: string
  /** The `<!-- examples/x.ts -->` marker just before the block, if any. */
  marker?: string
}

function blocks(markdown: string): Block[] {
  const found: Block[] = []
  const re = /(?:<!-- (\S+) -->\n\n)?```(\w*)\n([\s\S]*?)```/g
  for (const m of markdown.matchAll(re)) {
    found.push({ marker: m[1], lang: m[2] ?? '', body: m[3] ?? '' })
  }
  return found
}

describe('README', () => {
  it('shows each examples/*.ts verbatim, and no TypeScript that is not one', () => {
    const ts = blocks(readme).filter((b) => ['ts', 'typescript', 'js', 'mjs'].includes(b.lang))
    for (const block of ts) {
      expect(block.marker, `a code block without an examples/ marker:\n${block.body}`).toMatch(
        /^examples\/[\w-]+\.ts$/,
      )
      expect(block.body).toBe(readFileSync(join(root, block.marker ?? ''), 'utf8'))
    }
    const files = readdirSync(join(root, 'examples')).map((f) => `examples/${f}`)
    expect(ts.map((b) => b.marker).sort()).toEqual(files.sort())
  })

  it('registers a working MCP server in the JSON (Claude Desktop, Cursor) and TOML (Codex) snippets', async () => {
    const json = blocks(readme).find((b) => b.lang === 'json')
    const toml = blocks(readme).find((b) => b.lang === 'toml')
    if (!json || !toml) throw new Error('the README lost its MCP registration snippets')
    const server = JSON.parse(json.body).mcpServers['agent-tools']
    const tomlArgs = JSON.parse(toml.body.match(/^args = (\[.*\])$/m)?.[1] ?? 'null')
    expect(toml.body).toMatch(/^\[mcp_servers\.agent-tools\]\ncommand = "npx"$/m)
    const cases = [
      { args: server.args as string[], env: server.env as Record<string, string>, readOnly: false },
      { args: tomlArgs as string[], env: {}, readOnly: true },
    ]
    for (const { args, env, readOnly } of cases) {
      expect(args.slice(0, 3)).toEqual(['-y', 'agent-tools-native', 'mcp'])
      // `npx -y agent-tools-native` runs this package's bin, i.e. cli.js.
      const workspace = tempDir('atn-readme-')
      const rest = args.slice(2).map((a) => (a === '/path/to/repo' ? workspace : a))
      const client = new Client({ name: 'readme-test', version: '1.0.0' })
      await client.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [CLI, ...rest],
          env: cleanEnv(env),
          stderr: 'pipe',
        }),
      )
      try {
        expect(client.getInstructions()).toContain(workspace)
        const names = (await client.listTools()).tools.map((t) => t.name)
        // The server offers the tools beyond the contract (extras) unless --no-extras.
        expect(names).toEqual(selectSurface(readOnly, true, true).map((t) => t.name))
      } finally {
        await client.close()
      }
    }
  })
})
