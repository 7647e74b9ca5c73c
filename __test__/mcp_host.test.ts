// What a real MCP host expects beyond calling tools, checked with the SDK's own client:
// annotations true to each tool, structured output for JSON results, progress notifications,
// and the logging capability.

import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { afterEach, describe, expect, it } from 'vitest'
import { CLI, cleanEnv } from './cli-helpers'
import { tempDir, writeTree } from './helpers'

const open: Client[] = []
afterEach(async () => {
  for (const client of open.splice(0)) await client.close()
})

async function connect(root: string): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp', '--workspace', root],
    env: cleanEnv({}),
    stderr: 'pipe',
  })
  const client = new Client({ name: 'mcp-host-test', version: '1.0.0' })
  await client.connect(transport)
  open.push(client)
  return client
}

function workspace(): string {
  const root = tempDir('atn-mcphost-')
  writeTree(root, { 'a.txt': 'one\ntwo\n' })
  return root
}

describe('an MCP host', () => {
  it('sees a title and all four behaviour hints on every tool, true to what it does', async () => {
    const client = await connect(workspace())
    const { tools } = await client.listTools()
    for (const tool of tools) {
      expect(tool.title, tool.name).toBeTruthy()
      expect(tool.annotations?.title).toBe(tool.title)
      for (const hint of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint']) {
        expect(typeof tool.annotations?.[hint as 'readOnlyHint'], `${tool.name}.${hint}`).toBe(
          'boolean',
        )
      }
      // A read-only tool never destroys anything.
      if (tool.annotations?.readOnlyHint) expect(tool.annotations?.destructiveHint).toBe(false)
    }
    const byName = Object.fromEntries(tools.map((t) => [t.name, t.annotations]))
    expect(byName.read_file).toMatchObject({ readOnlyHint: true, openWorldHint: false })
    expect(byName.bash).toMatchObject({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: true,
    })
    expect(byName.write_file).toMatchObject({ destructiveHint: true, idempotentHint: true })
    expect(byName.edit_file).toMatchObject({ destructiveHint: true, idempotentHint: false })
    // A monitor runs a shell command (or types into one) as bash does: it may destroy as much.
    for (const name of ['monitor_start', 'monitor_send']) {
      expect(byName[name], name).toMatchObject({ destructiveHint: true, openWorldHint: true })
    }
  })

  it('sees the hints SPEC lists, tool by tool', async () => {
    const { tools } = await (await connect(workspace())).listTools()
    const withHint = (hint: string) =>
      tools
        .filter((t) => t.annotations?.[hint as 'readOnlyHint'])
        .map((t) => t.name)
        .sort()
    // SPEC, "MCP server": the tools that are mutating but not destructive, idempotent but not
    // read-only, and open-world, each named there.
    const mutating = tools.filter((t) => !t.annotations?.readOnlyHint).map((t) => t.name)
    expect(mutating.filter((n) => !withHint('destructiveHint').includes(n)).sort()).toEqual([
      'mkdir',
      'monitor_list',
      'monitor_poll',
    ])
    expect(
      withHint('idempotentHint')
        .filter((n) => !withHint('readOnlyHint').includes(n))
        .sort(),
    ).toEqual(['mkdir', 'monitor_list', 'monitor_poll', 'monitor_stop', 'write_file'])
    expect(withHint('openWorldHint')).toEqual(['bash', 'monitor_send', 'monitor_start'])
  })

  it('gets bash results as structured content matching the advertised outputSchema', async () => {
    const client = await connect(workspace())
    const { tools } = await client.listTools()
    const bash = tools.find((t) => t.name === 'bash')
    expect(bash?.outputSchema?.required).toEqual([
      'exit_code',
      'stdout',
      'stderr',
      'signal',
      'timed_out',
    ])
    // The SDK client validates structuredContent against the outputSchema itself.
    const r = await client.callTool({ name: 'bash', arguments: { command: 'echo hi; exit 3' } })
    // The CLI's MCP server runs bash in the sandbox by default (Linux), and says so.
    expect(r.structuredContent).toEqual({
      exit_code: 3,
      stdout: 'hi\n',
      stderr: '',
      signal: null,
      timed_out: false,
      ...(process.platform === 'linux'
        ? { sandbox: expect.stringMatching(/^sandbox on: workspace-write \(.*\), network on;/) }
        : {}),
    })
    // Older clients still read the same JSON as text.
    const [text] = r.content as { type: string; text: string }[]
    expect(JSON.parse(text?.text ?? '')).toEqual(r.structuredContent)
    // Tools without a JSON result declare no outputSchema.
    expect(tools.find((t) => t.name === 'read_file')?.outputSchema).toBeUndefined()
  })

  it('gets file_stat as structured content and read_image as image content', async () => {
    const root = workspace()
    // A 1x1 PNG.
    const png = Buffer.from(
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
      'base64',
    )
    writeFileSync(join(root, 'dot.png'), png)
    const client = await connect(root)
    const stat = await client.callTool({ name: 'file_stat', arguments: { path: 'a.txt' } })
    expect(stat.structuredContent).toMatchObject({ path: 'a.txt', type: 'file', size: 8 })
    const image = await client.callTool({ name: 'read_image', arguments: { path: 'dot.png' } })
    expect(image.content).toEqual([
      { type: 'image', data: png.toString('base64'), mimeType: 'image/png' },
    ])
  })

  it('hears progress at least every second from a call given a progressToken', async () => {
    const client = await connect(workspace())
    const seen: { progress: number; message?: string }[] = []
    const r = await client.callTool(
      {
        name: 'bash',
        arguments: { command: 'for i in 1 2 3 4 5 6; do echo tick-$i; sleep 0.4; done' },
      },
      undefined,
      { onprogress: (p) => seen.push(p), timeout: 20_000 },
    )
    expect(r.isError).toBe(false)
    expect(seen.length).toBeGreaterThanOrEqual(2)
    const progress = seen.map((p) => p.progress)
    expect(progress).toEqual([...progress].sort((a, b) => a - b))
    expect(seen.some((p) => /latest output: .*tick-\d/.test(p.message ?? ''))).toBe(true)
  })

  it('has the logging capability: logging/setLevel answers', async () => {
    const client = await connect(workspace())
    expect(client.getServerCapabilities()?.logging).toBeDefined()
    await expect(client.setLoggingLevel('warning')).resolves.toEqual({})
  })
})
