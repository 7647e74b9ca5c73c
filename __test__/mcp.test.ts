// Starts `agent-tools-native mcp` as a child process and drives it with the official SDK client
// over stdio, as an MCP host does.
import { spawn } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { afterEach, describe, expect, it } from 'vitest'
import { createAgentTools, readOnlyTools, tools } from '../index.js'
import { CLI, cleanEnv, MUTATING_TOOL_NAMES } from './cli-helpers'
import { alive, gone, pidIn, tempDir, writeTree } from './helpers'

const { version } = JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8'))

const open: Client[] = []
afterEach(async () => {
  for (const client of open.splice(0)) await client.close()
})

function fixture(): string {
  const root = tempDir('atn-mcp-')
  writeTree(root, { 'a.txt': 'one\ntwo\n', 'src/b.ts': 'export {}\n' })
  return root
}

/** A connected client (initialize done) talking to a fresh server process. */
async function connect(args: string[], env: Record<string, string> = {}): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp', ...args],
    env: cleanEnv(env),
    stderr: 'pipe',
  })
  const client = new Client({ name: 'agent-tools-native-test', version: '1.0.0' })
  await client.connect(transport)
  open.push(client)
  return client
}

type TextContent = { type: 'text'; text: string }

/** The one text content of a tools/call result. */
function textOf(result: Awaited<ReturnType<Client['callTool']>>): string {
  const [content, ...more] = result.content as TextContent[]
  expect(more).toEqual([])
  expect(content?.type).toBe('text')
  return content?.text ?? ''
}

/**
 * Sends `lines` (after initialize) to a fresh server over raw stdio, closes stdin, and returns
 * every reply line but initialize's, parsed: what a client sees, malformed input included.
 */
async function rawReplies(root: string, lines: string[]): Promise<Record<string, unknown>[]> {
  const child = spawn(process.execPath, [CLI, 'mcp', '--workspace', root], { env: cleanEnv() })
  let stdout = ''
  child.stdout.setEncoding('utf8').on('data', (d) => {
    stdout += d
  })
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve))
  const initialize = {
    jsonrpc: '2.0',
    id: 'init',
    method: 'initialize',
    params: {
      protocolVersion: '2025-03-26',
      capabilities: {},
      clientInfo: { name: 'raw', version: '1' },
    },
  }
  const initialized = { jsonrpc: '2.0', method: 'notifications/initialized' }
  child.stdin.end(
    [JSON.stringify(initialize), JSON.stringify(initialized), ...lines]
      .map((l) => `${l}\n`)
      .join(''),
  )
  expect(await exited).toBe(0)
  return stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line))
    .filter((reply) => reply.id !== 'init')
}

/** The reply whose id is `id`. */
function replyTo(replies: Record<string, unknown>[], id: unknown) {
  const found = replies.filter((r) => r.id === id)
  expect(found, `one reply to ${JSON.stringify(id)}`).toHaveLength(1)
  return found[0] as {
    result?: { content: TextContent[]; isError: boolean }
    error?: { code: number; message: string }
  }
}

describe('mcp server', () => {
  it('initializes: server info, tools capability, instructions naming the workspace', async () => {
    const root = fixture()
    const client = await connect(['--workspace', root])
    expect(client.getServerVersion()).toEqual({ name: 'agent-tools-native', version })
    expect(client.getServerCapabilities()?.tools).toBeDefined()
    expect(client.getInstructions()).toContain(root)
  })

  it('lists every tool with its description and input schema', async () => {
    const root = fixture()
    const client = await connect(['--workspace', root])
    const { tools: listed } = await client.listTools()
    // The server offers the tools beyond the contract too, as the library's `extras: true` does.
    const expected = createAgentTools({ workspaceRoot: root, extras: true }).listTools()
    expect(listed.map((t) => t.name)).toEqual(expected.map((t) => t.name))
    expect(listed.map((t) => t.name)).toContain('monitor_send')
    const readOnly = createAgentTools({ workspaceRoot: root, extras: true, readOnly: true })
      .listTools()
      .map((t) => t.name)
    for (const [i, tool] of listed.entries()) {
      expect(tool.description).toBe(expected[i]?.description)
      expect(tool.inputSchema).toEqual(expected[i]?.inputSchema)
      expect(tool.annotations?.readOnlyHint).toBe(readOnly.includes(tool.name))
    }
  })

  it('lists exactly the contract tools with --no-extras', async () => {
    const client = await connect(['--workspace', fixture(), '--no-extras'])
    const names = (await client.listTools()).tools.map((t) => t.name)
    expect(names).toEqual(tools.map((t) => t.name))
  })

  it('lists only the read tools in read-only mode (flag or environment)', async () => {
    const root = fixture()
    for (const client of [
      await connect(['--workspace', root, '--read-only']),
      await connect([], { WORKSPACE_ROOT: root, READ_ONLY: '1' }),
    ]) {
      const names = (await client.listTools()).tools.map((t) => t.name)
      // The contract's read-only tools, then the read-only extras (the server offers extras).
      const extras = createAgentTools({ workspaceRoot: root, extras: true, readOnly: true })
      expect(names).toEqual(extras.listTools().map((t) => t.name))
      expect(names).toEqual(expect.arrayContaining(readOnlyTools.map((t) => t.name)))
      for (const name of MUTATING_TOOL_NAMES) expect(names).not.toContain(name)
    }
  })

  it('calls a tool: the result text as text content, isError false', async () => {
    const root = fixture()
    const client = await connect(['--workspace', root])
    const read = await client.callTool({ name: 'read_file', arguments: { path: 'a.txt' } })
    expect(read.isError).toBe(false)
    expect(textOf(read)).toBe('     1\tone\n     2\ttwo')
    const listed = await client.callTool({ name: 'list_dir', arguments: {} })
    expect(textOf(listed)).toBe('src/\na.txt\t8')
    // Same answer as the library gives for the same call.
    const direct = await createAgentTools({ workspaceRoot: root }).callTool('read_file', {
      path: 'a.txt',
      offset: 2,
    })
    const viaMcp = await client.callTool({
      name: 'read_file',
      arguments: { path: 'a.txt', offset: 2 },
    })
    expect({ isError: viaMcp.isError, text: textOf(viaMcp) }).toEqual(direct)
  })

  it('maps a tool error to isError with the JSON envelope as text', async () => {
    const root = fixture()
    const client = await connect(['--workspace', root])
    const r = await client.callTool({ name: 'read_file', arguments: { path: 'missing.txt' } })
    expect(r.isError).toBe(true)
    expect(JSON.parse(textOf(r))).toMatchObject({ error: 'not_found', path: 'missing.txt' })
    const outside = await client.callTool({ name: 'list_dir', arguments: { path: '..' } })
    expect(outside.isError).toBe(true)
    expect(JSON.parse(textOf(outside)).error).toBe('path_escape')
  })

  it('answers invalid arguments with an invalid_input envelope in the validator words', async () => {
    const root = fixture()
    const client = await connect(['--workspace', root])
    const wrongType = await client.callTool({
      name: 'read_file',
      arguments: { path: 'a.txt', limit: 'many' },
    })
    expect(wrongType.isError).toBe(true)
    expect(JSON.parse(textOf(wrongType))).toEqual({
      error: 'invalid_input',
      message: 'data/limit must be integer',
    })
    // The newest contract ignores unknown keys and coerces string numbers.
    const lenient = await client.callTool({
      name: 'read_file',
      arguments: { path: 'a.txt', limit: '1', recursive: true },
    })
    expect(lenient.isError).toBe(false)
    expect(textOf(lenient)).toContain('     1\tone')
    const missing = await client.callTool({ name: 'read_file', arguments: {} })
    expect(missing.isError).toBe(true)
    const envelope = JSON.parse(textOf(missing))
    expect(envelope.error).toBe('invalid_input')
    expect(envelope.message).toBe("data must have required property 'path'")
  })

  it('answers malformed params with -32602 naming the field, bad arguments with invalid_input', async () => {
    const root = fixture()
    const call = (id: number, params?: unknown) =>
      JSON.stringify({
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        ...(params === undefined ? {} : { params }),
      })
    const replies = await rawReplies(root, [
      call(1, {}),
      call(2),
      JSON.stringify({
        jsonrpc: '2.0',
        id: 3,
        method: 'logging/setLevel',
        params: { level: 'bogus' },
      }),
      JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'initialize', params: {} }),
      call(5, { name: 'read_file', arguments: 'a.txt' }),
      call(6, { name: 'read_file', arguments: ['a.txt'] }),
      call(7, { name: 'list_dir', arguments: null }),
      call(8, { name: 'no_such_tool', arguments: 'x' }),
    ])
    for (const [id, field] of [
      [1, 'params.name: expected string'],
      [2, 'params: expected object'],
      [3, 'params.level: expected one of "debug"|'],
      [4, 'params.protocolVersion: expected string'],
    ] as const) {
      const { error } = replyTo(replies, id)
      expect(error?.code, `reply ${id}`).toBe(-32602)
      expect(error?.message).toContain(field)
      // One short line, not the validator's JSON dump.
      expect(error?.message).not.toMatch(/[\n[{]/)
    }
    for (const [id, kind] of [
      [5, 'a string'],
      [6, 'an array'],
    ] as const) {
      const { result } = replyTo(replies, id)
      expect(result?.isError).toBe(true)
      expect(JSON.parse(result?.content[0]?.text ?? '')).toEqual({
        error: 'invalid_input',
        message: `arguments must be an object of read_file's parameters, not ${kind}`,
      })
    }
    // `arguments: null` is no arguments, as SPEC's `arguments ?? {}` says.
    expect(replyTo(replies, 7).result).toEqual({
      content: [{ type: 'text', text: 'src/\na.txt\t8' }],
      isError: false,
    })
    // An unknown tool is still answered as unknown.
    expect(JSON.parse(replyTo(replies, 8).result?.content[0]?.text ?? '')).toMatchObject({
      error: 'not_found',
      message: 'Unknown tool: no_such_tool',
    })
  })

  it('answers what is not JSON or not JSON-RPC 2.0, and each element of a batch', async () => {
    const root = fixture()
    const ping = (id: unknown) => JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' })
    const replies = await rawReplies(root, [
      'not json',
      '',
      JSON.stringify({ jsonrpc: '1.0', id: 1, method: 'ping' }),
      JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping', params: [1] }),
      JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'ping', extra: true }),
      `[${ping(4)},${JSON.stringify({
        jsonrpc: '2.0',
        id: 5,
        method: 'tools/call',
        params: { name: 'read_file', arguments: { path: 'a.txt' } },
      })},7]`,
      ping(6),
    ])
    const nulls = replies.filter((r) => r.id === null) as {
      error: { code: number; message: string }
    }[]
    expect(nulls.map((r) => r.error.code).sort()).toEqual([-32700, -32600].sort())
    expect(nulls.find((r) => r.error.code === -32700)?.error.message).toMatch(/^Parse error: /)
    expect(nulls.find((r) => r.error.code === -32600)?.error.message).toBe(
      'Invalid Request: a message is an object, not a number',
    )
    expect(replyTo(replies, 1).error).toEqual({
      code: -32600,
      message: 'Invalid Request: jsonrpc must be "2.0", not "1.0"',
    })
    expect(replyTo(replies, 2).error).toEqual({
      code: -32600,
      message: 'Invalid Request: params must be an object, not an array',
    })
    expect(replyTo(replies, 3).error?.code).toBe(-32600)
    expect(replyTo(replies, 4).result).toEqual({})
    expect(replyTo(replies, 5).result?.content[0]?.text).toBe('     1\tone\n     2\ttwo')
    // The server still answers after all that.
    expect(replyTo(replies, 6).result).toEqual({})
  })

  it('answers a request whose id is null as an invalid request', async () => {
    const replies = await rawReplies(fixture(), [
      JSON.stringify({ jsonrpc: '2.0', id: null, method: 'ping' }),
      '[]',
    ])
    expect(replies).toEqual([
      {
        jsonrpc: '2.0',
        id: null,
        error: {
          code: -32600,
          message: 'Invalid Request: id must be a string or an integer, not null',
        },
      },
      {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: 'Invalid Request: an empty batch' },
      },
    ])
  })

  it('answers an unknown tool, and a mutating tool in read-only mode, with not_found', async () => {
    const root = fixture()
    const client = await connect(['--workspace', root])
    const unknown = await client.callTool({ name: 'no_such_tool', arguments: {} })
    expect(unknown.isError).toBe(true)
    expect(JSON.parse(textOf(unknown))).toMatchObject({
      error: 'not_found',
      message: 'Unknown tool: no_such_tool',
      available: expect.arrayContaining(['read_file', 'bash']),
    })
    const readOnly = await connect(['--workspace', root, '--read-only'])
    for (const name of MUTATING_TOOL_NAMES) {
      const r = await readOnly.callTool({
        name,
        arguments: { path: 'new.txt', content: 'x', command: 'touch new.txt' },
      })
      expect(r.isError).toBe(true)
      expect(JSON.parse(textOf(r))).toMatchObject({
        error: 'not_found',
        message: `Unknown tool: ${name}`,
        hidden_by: 'readOnly',
      })
    }
    expect(existsSync(join(root, 'new.txt'))).toBe(false)
  })

  it('answers a call already sent when the client closes stdin, then exits 0', async () => {
    const root = fixture()
    const child = spawn(process.execPath, [CLI, 'mcp', '--workspace', root], {
      env: cleanEnv(),
    })
    let stdout = ''
    child.stdout.setEncoding('utf8').on('data', (d) => {
      stdout += d
    })
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve))
    const messages = [
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'raw', version: '1' },
        },
      },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      {
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'read_file', arguments: { path: 'a.txt' } },
      },
    ]
    child.stdin.end(messages.map((m) => `${JSON.stringify(m)}\n`).join(''))
    expect(await exited).toBe(0)
    const replies = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
    expect(replies.map((r) => r.id)).toEqual([1, 2])
    expect(replies[1].result).toEqual({
      content: [{ type: 'text', text: '     1\tone\n     2\ttwo' }],
      isError: false,
    })
  })

  describe('when the client goes away mid-call', () => {
    /** A server whose client has started a `sleep 30` (with a progressToken); its pid. */
    async function sleeping() {
      const root = fixture()
      const child = spawn(process.execPath, [CLI, 'mcp', '--workspace', root], {
        env: cleanEnv(),
      })
      let stderr = ''
      child.stderr.setEncoding('utf8').on('data', (d) => {
        stderr += d
      })
      child.stdout.on('error', () => {})
      const exited = new Promise<number | null>((resolve) => child.on('close', resolve))
      const messages = [
        {
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: {
            protocolVersion: '2025-06-18',
            capabilities: {},
            clientInfo: { name: 'raw', version: '1' },
          },
        },
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        {
          jsonrpc: '2.0',
          id: 2,
          method: 'tools/call',
          params: {
            name: 'bash',
            arguments: { command: 'echo $$ > pid.tmp && mv pid.tmp pid && exec sleep 30' },
            _meta: { progressToken: 'p' },
          },
        },
      ]
      child.stdin.write(messages.map((m) => `${JSON.stringify(m)}\n`).join(''))
      const pid = await pidIn(join(root, 'pid'))
      expect(alive(pid)).toBe(true)
      return { child, pid, exited, stderr: () => stderr }
    }

    it('stdin closed: the tool process is killed, exit 0, no stack trace', async () => {
      const { child, pid, exited, stderr } = await sleeping()
      child.stdin.end()
      expect(await exited).toBe(0)
      expect(await gone(pid)).toBe(true)
      expect(stderr()).not.toMatch(/Error|^\s+at /m)
    })

    it('stdout broken (EPIPE): the tool process is killed, exit 0, no stack trace', async () => {
      const { child, pid, exited, stderr } = await sleeping()
      // The client stops reading: the next progress notification the server writes hits EPIPE.
      child.stdout.destroy()
      expect(await exited).toBe(0)
      expect(await gone(pid)).toBe(true)
      expect(stderr()).not.toMatch(/Error|EPIPE|^\s+at /m)
    })

    it.each(['SIGTERM', 'SIGHUP'] as const)(
      '%s: the tool process is killed, exit 0, no stack trace',
      async (signal) => {
        const { child, pid, exited, stderr } = await sleeping()
        child.kill(signal)
        expect(await exited).toBe(0)
        expect(await gone(pid)).toBe(true)
        expect(stderr()).not.toMatch(/Error|^\s+at /m)
      },
    )
  })
})
