// The README's code is real: every TypeScript block is an example file compiled by the type
// tests, and the MCP registration snippets (stdio and HTTP) start a server that answers.
import { spawn } from 'node:child_process'
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { describe, expect, it } from 'vitest'
import { readRemote } from '../examples/mcp-http'
import { buildGuardContext, createAgentTools, selectSurface } from '../index.js'
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

  it("runs the guard example's SAFE commands without asking, as its comment says", async () => {
    const { guard } = await import('../examples/guard')
    const { config } = createAgentTools({ workspaceRoot: tempDir('atn-readme-guard-') })
    const verdict = (command: string) =>
      (guard(buildGuardContext('bash', { command }, config)) as { verdict: string }).verdict
    for (const command of ['git status', 'git log', 'npm test', 'ls', 'ls src', 'cat a.txt']) {
      expect(verdict(command), command).toBe('allow')
    }
    for (const command of ['ls /etc', 'cat ~/.ssh/id_rsa', 'grep -r key ..']) {
      expect(verdict(command), command).toBe('deny')
    }
    for (const command of ['rm -rf dist', 'git status; rm -rf x', 'npm publish']) {
      expect(verdict(command), command).toBe('ask')
    }
  })

  it('names every root export in the API table, and exactly what /v0.1 lacks', async () => {
    const rootNames = Object.keys(await import('../index.js')).filter((k) => k !== 'default')
    const seedNames = Object.keys(await import('../v0.1/index.js')).filter((k) => k !== 'default')
    const api = readme.slice(readme.indexOf('## API'), readme.indexOf('## Code intelligence'))
    const table = api.slice(0, api.indexOf('\nOptions:'))
    for (const name of rootNames) expect(table, name).toMatch(new RegExp(`\`${name}[\`(]`))
    const from = api.indexOf('every root name except')
    const lacks = api.slice(from, api.indexOf('ServerConfig', from))
    const listed = [...lacks.matchAll(/`(\w+)`/g)].map((m) => m[1])
    expect(listed.sort()).toEqual(rootNames.filter((n) => !seedNames.includes(n)).sort())
  })

  it('says which languages Code intelligence needs extras for, truly', async () => {
    const root = tempDir('atn-readme-code-')
    writeFileSync(join(root, 'a.rb'), 'class A\n  def b\n  end\nend\n')
    writeFileSync(join(root, 'script'), '#!/usr/bin/env python3\ndef f():\n  pass\n')
    const contract = createAgentTools({ workspaceRoot: root })
    const extras = createAgentTools({ workspaceRoot: root, extras: true })
    for (const args of [{ path: 'a.rb' }, { path: 'script' }]) {
      expect((await contract.callTool('outline', args)).isError, args.path).toBe(true)
      expect((await extras.callTool('outline', args)).isError, args.path).toBe(false)
    }
    expect(readme).toMatch(/With\s+`extras: true` at the root/)
  })

  it('registers a working MCP server in the JSON (Claude Desktop, Cursor) and TOML (Codex) snippets', async () => {
    const json = blocks(readme).find((b) => b.lang === 'json')
    const toml = blocks(readme).find((b) => b.lang === 'toml')
    if (!json || !toml) throw new Error('the README lost its MCP registration snippets')
    const server = JSON.parse(json.body).mcpServers['agent-tools']
    const tomlArgs = JSON.parse(toml.body.match(/^args = (\[.*\])$/m)?.[1] ?? 'null')
    // From a checkout, today: node <checkout>/cli.js mcp (npx only once published).
    expect(server.command).toBe('node')
    expect(toml.body).toMatch(/^\[mcp_servers\.agent-tools\]\ncommand = "node"$/m)
    const cases = [
      { args: server.args as string[], env: server.env as Record<string, string>, readOnly: false },
      { args: tomlArgs as string[], env: {}, readOnly: true },
    ]
    for (const { args, env, readOnly } of cases) {
      expect(args.slice(0, 2)).toEqual([CHECKOUT_CLI, 'mcp'])
      const workspace = tempDir('atn-readme-')
      const rest = args.slice(1).map((a) => (a === '/path/to/repo' ? workspace : a))
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
    // Every shell snippet that starts the server runs the checkout's cli.js, or says npx waits.
    for (const block of blocks(readme).filter((b) => b.lang === 'sh')) {
      for (const line of block.body.split('\n').filter((l) => /\bnpx\b.*\bmcp\b/.test(l))) {
        throw new Error(`an npx MCP snippet, which fails until the package is published: ${line}`)
      }
    }
  })

  it('connects to mcp --http as the .mcp.json HTTP snippet and the SDK example do', async () => {
    const httpJson = blocks(readme).find((b) => b.lang === 'json' && b.body.includes('"http"'))
    if (!httpJson) throw new Error('the README lost its HTTP client snippet')
    const entry = JSON.parse(httpJson.body).mcpServers['agent-tools']
    expect(entry.url).toBe('http://127.0.0.1:8765/mcp')
    const token = 'readme-token'
    const workspace = tempDir('atn-readme-http-')
    writeFileSync(join(workspace, 'hello.txt'), 'hello\n')
    const child = spawn(
      process.execPath,
      [CLI, 'mcp', '--http', '--port', '0', '--workspace', workspace],
      { env: cleanEnv({ MCP_HTTP_TOKEN: token }), stdio: ['ignore', 'ignore', 'pipe'] },
    )
    try {
      const url = await new Promise<string>((resolve) => {
        let stderr = ''
        child.stderr.setEncoding('utf8').on('data', (d) => {
          stderr += d
          const m = /listening on (http:\/\/\S+\/mcp)/.exec(stderr)
          if (m?.[1]) resolve(m[1])
        })
      })
      // The snippet's URL and header, with the port the server picked and the token expanded.
      const headers = Object.fromEntries(
        Object.entries(entry.headers as Record<string, string>).map(([k, v]) => [
          k,
          v.replace(/\$\{MCP_HTTP_TOKEN\}/, token),
        ]),
      )
      const client = new Client({ name: 'readme-test', version: '1.0.0' })
      await client.connect(
        new StreamableHTTPClientTransport(
          new URL(entry.url.replace(':8765', `:${new URL(url).port}`)),
          {
            requestInit: { headers },
          },
        ),
      )
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(
        selectSurface(false, true, true).map((t) => t.name),
      )
      await client.close()
      expect(await readRemote(url, token, 'hello.txt')).toBe('     1\thello')
    } finally {
      child.kill('SIGTERM')
    }
  })
})

/** The path the README's snippets give for a checkout's cli.js. */
const CHECKOUT_CLI = '/path/to/agent-tools-native/cli.js'
