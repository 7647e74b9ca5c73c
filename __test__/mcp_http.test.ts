// `agent-tools-native mcp --http`, started as a child process on a loopback port and driven with
// the official SDK's Streamable HTTP client, as a remote MCP host does; its refusals are checked
// on plain HTTP status codes with node:http (which can send any Host header).
import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import http from 'node:http'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import { afterEach, describe, expect, it } from 'vitest'
import { createAgentTools, selectSurface } from '../index.js'
import { CLI, cleanEnv, runCli } from './cli-helpers'
import { alive, gone, pidIn, tempDir, writeTree } from './helpers'

const TOKEN = 'test-token-0123456789abcdef'

const children: ChildProcess[] = []
const clients: Client[] = []
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close().catch(() => {})
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL')
})

function workspace(): string {
  const root = tempDir('atn-mcphttp-')
  writeTree(root, { 'a.txt': 'one\ntwo\n' })
  return root
}

interface Served {
  url: string
  port: number
  child: ChildProcess
  stderr: () => string
  exited: Promise<number | null>
}

/** Starts `mcp --http --port 0` and waits for its "listening on" line. */
function serve(args: string[], env: Record<string, string> = { MCP_HTTP_TOKEN: TOKEN }) {
  const child = spawn(process.execPath, [CLI, 'mcp', '--http', '--port', '0', ...args], {
    env: cleanEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  children.push(child)
  let stderr = ''
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve))
  return new Promise<Served>((resolve, reject) => {
    child.stderr.setEncoding('utf8').on('data', (d) => {
      stderr += d
      const m = /listening on (http:\/\/127\.0\.0\.1:(\d+)\/mcp)/.exec(stderr)
      if (m?.[1] && m[2]) {
        resolve({ url: m[1], port: Number(m[2]), child, stderr: () => stderr, exited })
      }
    })
    exited.then((code) => reject(new Error(`the server exited ${code}: ${stderr}`)))
  })
}

async function connect(url: string, token = TOKEN): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  })
  const client = new Client({ name: 'mcp-http-test', version: '1.0.0' })
  await client.connect(transport)
  clients.push(client)
  return client
}

function sessionOf(client: Client): string {
  return (client.transport as StreamableHTTPClientTransport).sessionId ?? ''
}

type TextContent = { type: 'text'; text: string }
function textOf(result: Awaited<ReturnType<Client['callTool']>>): string {
  return (result.content as TextContent[])[0]?.text ?? ''
}

interface Reply {
  status: number
  headers: http.IncomingHttpHeaders
  body: string
}

/** One raw HTTP request; `body` as a string (Content-Length) or as chunks (chunked). */
function request(
  port: number,
  options: { method?: string; headers?: Record<string, string>; body?: string | Buffer[] },
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path: '/mcp',
        method: options.method ?? 'POST',
        headers: {
          host: `127.0.0.1:${port}`,
          authorization: `Bearer ${TOKEN}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...options.headers,
        },
      },
      (res) => {
        let body = ''
        res.setEncoding('utf8').on('data', (d) => {
          body += d
        })
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }))
      },
    )
    // The server may close the connection while a refused upload is still being sent.
    req.on('error', (err) => {
      if (!req.destroyed || !('code' in err)) reject(err)
    })
    if (Array.isArray(options.body)) {
      const chunks = options.body
      const next = () => {
        const chunk = chunks.shift()
        if (chunk === undefined) req.end()
        else if (req.write(chunk)) setImmediate(next)
        else req.once('drain', next)
      }
      next()
    } else req.end(options.body)
  })
}

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'raw', version: '1' },
  },
})

/** A tools/call body running `command` through bash. */
function bashCall(id: number, command: string): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: 'bash', arguments: { command } },
  })
}

/** A shell command that records its pid in `file`, then sleeps 30 s as that same process. */
function sleeper(file: string): string {
  return `echo $$ > ${file}.tmp && mv ${file}.tmp ${file} && exec sleep 30`
}

describe('mcp --http', () => {
  it('refuses to start without a token, naming both ways to set one (exit 2)', async () => {
    const child = spawn(process.execPath, [CLI, 'mcp', '--http', '--port', '0'], {
      env: cleanEnv(),
    })
    let stderr = ''
    child.stderr.setEncoding('utf8').on('data', (d) => {
      stderr += d
    })
    const code = await new Promise((resolve) => child.on('close', resolve))
    expect(code).toBe(2)
    expect(stderr).toContain('MCP_HTTP_TOKEN')
    expect(stderr).toContain('--token-file')
  })

  it('refuses bad flags (exit 2) and warns before listening on a non-loopback --host', async () => {
    const env = { MCP_HTTP_TOKEN: TOKEN }
    for (const [args, message] of [
      [['mcp', '--port', '3000'], /--port is an option of mcp --http only/],
      [['list', '--http'], /--http is an option of mcp --http only/],
      [['mcp', '--http', '--port', '70000'], /--port must be a whole number from 0 to 65535/],
      [['mcp', '--http', '--max-sessions', '0'], /--max-sessions must be a whole number from 1/],
      [['mcp', '--http', '--token-file', '/no/such/file'], /cannot read --token-file/],
    ] as const) {
      const r = await runCli([...args], { env })
      expect(r.code, args.join(' ')).toBe(2)
      expect(r.stderr).toMatch(message)
    }
    // 192.0.2.1 (TEST-NET-1) is no address of this machine: the warning comes, then listening
    // fails, and nothing is ever bound.
    const r = await runCli(['mcp', '--http', '--host', '192.0.2.1', '--port', '0'], { env })
    expect(r.stderr).toMatch(/warning: --host 192\.0\.2\.1 is not a loopback address/)
    expect(r.stderr).toMatch(/unencrypted/)
    expect(r.stderr).toMatch(/cannot listen on 192\.0\.2\.1:0/)
    expect(r.code).toBe(2)
  })

  it('lists and calls like stdio: same tools, same results, structured content', async () => {
    const root = workspace()
    const { url } = await serve(['--workspace', root])
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/)
    const client = await connect(url)
    expect(sessionOf(client)).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    )
    const { tools } = await client.listTools()
    // The same surface as stdio: the CLI offers the tools beyond the contract (extras) too.
    const expected = createAgentTools({ workspaceRoot: root, extras: true }).listTools()
    expect(tools.map((t) => t.name)).toEqual(expected.map((t) => t.name))
    expect(tools.map((t) => t.inputSchema)).toEqual(expected.map((t) => t.inputSchema))
    const read = await client.callTool({ name: 'read_file', arguments: { path: 'a.txt' } })
    expect({ isError: read.isError, text: textOf(read) }).toEqual({
      isError: false,
      text: '     1\tone\n     2\ttwo',
    })
    const bash = await client.callTool({ name: 'bash', arguments: { command: 'echo hi' } })
    expect(bash.structuredContent).toMatchObject({ exit_code: 0, stdout: 'hi\n' })
    await expect(client.setLoggingLevel('warning')).resolves.toEqual({})
  })

  it('serves the read tools only with --read-only, and reads the token from --token-file', async () => {
    const root = workspace()
    const tokenFile = join(tempDir('atn-token-'), 'token')
    writeFileSync(tokenFile, 'from-a-file\n')
    const { url } = await serve(['--workspace', root, '--read-only', '--token-file', tokenFile], {})
    const client = await connect(url, 'from-a-file')
    const names = (await client.listTools()).tools.map((t) => t.name)
    expect(names).toEqual(selectSurface(true, true, true).map((t) => t.name))
  })

  it('answers 401 with WWW-Authenticate: Bearer to a missing or wrong token, and runs nothing', async () => {
    const root = workspace()
    const { url, port } = await serve(['--workspace', root])
    const missing = await request(port, { body: INITIALIZE, headers: { authorization: '' } })
    expect(missing.status).toBe(401)
    expect(missing.headers['www-authenticate']).toMatch(/^Bearer\b/)
    const wrong = await request(port, {
      body: INITIALIZE,
      headers: { authorization: `Bearer ${TOKEN}x` },
    })
    expect(wrong.status).toBe(401)
    expect(wrong.headers['www-authenticate']).toMatch(/^Bearer\b/)
    // Inside a live session, a call with a wrong token does not run.
    const session = sessionOf(await connect(url))
    const call = await request(port, {
      body: bashCall(7, 'touch pwned'),
      headers: {
        authorization: 'Bearer nope',
        'mcp-session-id': session,
        'mcp-protocol-version': '2025-06-18',
      },
    })
    expect(call.status).toBe(401)
    await new Promise((r) => setTimeout(r, 300))
    expect(existsSync(join(root, 'pwned'))).toBe(false)
  })

  it('answers 403 to a foreign Origin and to a Host that is not this server (port included)', async () => {
    const { port } = await serve([
      '--workspace',
      workspace(),
      '--allowed-host',
      'DevBox',
      '--allowed-host',
      'proxy.example:443',
    ])
    for (const origin of ['http://evil.example', 'null', 'http://127.0.0.1.evil.example']) {
      const r = await request(port, { body: INITIALIZE, headers: { origin } })
      expect(r.status, origin).toBe(403)
    }
    for (const host of [
      `evil.example:${port}`,
      `127.0.0.1:${port + 1}`,
      `localhost:${port + 1}`,
      `devbox:${port + 1}`,
      'devbox',
    ]) {
      const r = await request(port, { body: INITIALIZE, headers: { host } })
      expect(r.status, host).toBe(403)
    }
    // What a local client sends is served.
    for (const headers of [
      { host: `localhost:${port}` },
      { host: `devbox:${port}` }, // --allowed-host, with the server's port
      { host: 'proxy.example:443' }, // --allowed-host, with its own
      { host: `127.0.0.1:${port}`, origin: 'http://localhost:5173' },
    ]) {
      const r = await request(port, { body: INITIALIZE, headers })
      expect(r.status, JSON.stringify(headers)).toBe(200)
      expect(r.headers['mcp-session-id']).toBeTruthy()
    }
  })

  it('answers malformed params as over stdio: -32602 naming the field, or invalid_input', async () => {
    const { url, port } = await serve(['--workspace', workspace()])
    const client = await connect(url)
    const headers = { 'mcp-session-id': sessionOf(client), 'mcp-protocol-version': '2025-06-18' }
    /** The one JSON-RPC message of a POST's event stream. */
    const post = async (params: unknown) => {
      const reply = await request(port, {
        body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params }),
        headers,
      })
      expect(reply.status).toBe(200)
      const data = reply.body.split('\n').find((line) => line.startsWith('data: '))
      return JSON.parse(data?.slice('data: '.length) ?? '')
    }
    expect((await post({})).error).toEqual({
      code: -32602,
      message: 'Invalid params for tools/call: params.name: expected string, received undefined',
    })
    const { result } = await post({ name: 'read_file', arguments: 'a.txt' })
    expect(result.isError).toBe(true)
    expect(JSON.parse(result.content[0].text)).toEqual({
      error: 'invalid_input',
      message: "arguments must be an object of read_file's parameters, not a string",
    })
  })

  it('sends warn-sink lines to every session on its GET stream, at the level it set', async () => {
    const root = workspace()
    // A .gitignore that cannot be read (a directory) makes every walk warn.
    mkdirSync(join(root, '.gitignore'))
    const { url } = await serve(['--workspace', root])
    const quiet = await connect(url)
    const loud = await connect(url)
    const heard = { quiet: [] as string[], loud: [] as string[] }
    quiet.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      heard.quiet.push(String(n.params.data))
    })
    loud.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      heard.loud.push(String(n.params.data))
    })
    await quiet.setLoggingLevel('error')
    // The GET streams open right after initialize; give them a moment.
    await new Promise((resolve) => setTimeout(resolve, 300))
    const r = await quiet.callTool({ name: 'glob', arguments: { pattern: '*' } })
    expect(textOf(r)).toBe('a.txt')
    await expect.poll(() => heard.loud.length, { timeout: 5000 }).toBeGreaterThan(0)
    expect(heard.loud[0]).toMatch(/^clarvis-agent-tools: warning: cannot read .*\.gitignore$/)
    await new Promise((resolve) => setTimeout(resolve, 300))
    // The session that asked for errors only hears no warning, though its own call caused it.
    expect(heard.quiet).toEqual([])
  })

  it('answers 404 to an unknown session id and to one ended with DELETE', async () => {
    const { url, port } = await serve(['--workspace', workspace()])
    const headers = { 'mcp-session-id': crypto.randomUUID(), 'mcp-protocol-version': '2025-06-18' }
    const unknown = await request(port, { body: bashCall(2, 'true'), headers })
    expect(unknown.status).toBe(404)
    const client = await connect(url)
    const id = sessionOf(client)
    await (client.transport as StreamableHTTPClientTransport).terminateSession()
    const ended = await request(port, {
      body: bashCall(3, 'true'),
      headers: { ...headers, 'mcp-session-id': id },
    })
    expect(ended.status).toBe(404)
  })

  it('answers 413 to a body over 4 MiB, by Content-Length or chunked, and keeps serving', async () => {
    const { url, port } = await serve(['--workspace', workspace()])
    const big = `{"pad":"${'x'.repeat(4 * 1024 * 1024)}"}`
    const sized = await request(port, { body: big })
    expect(sized.status).toBe(413)
    const chunks = Array.from({ length: 80 }, () => Buffer.alloc(64 * 1024, 0x20))
    const chunked = await request(port, { body: chunks })
    expect(chunked.status).toBe(413)
    // The server is still there for everyone else.
    const client = await connect(url)
    const r = await client.callTool({ name: 'read_file', arguments: { path: 'a.txt' } })
    expect(r.isError).toBe(false)
  })

  it('caps the sessions (503 beyond --max-sessions) and expires an idle one', async () => {
    const { url, port } = await serve([
      '--workspace',
      workspace(),
      '--max-sessions',
      '2',
      '--session-idle-ms',
      '1000',
    ])
    // A connected client keeps its session: its event stream (GET) stays open.
    const kept = await connect(url)
    const idle = await request(port, { body: INITIALIZE })
    expect(idle.status).toBe(200)
    expect((await request(port, { body: INITIALIZE })).status).toBe(503)
    // Once the raw session has been idle for a second, it expires and makes room.
    let status = 503
    for (let i = 0; i < 50 && status === 503; i++) {
      await new Promise((r) => setTimeout(r, 100))
      status = (await request(port, { body: INITIALIZE })).status
    }
    expect(status).toBe(200)
    const expired = await request(port, {
      body: bashCall(2, 'true'),
      headers: {
        'mcp-session-id': String(idle.headers['mcp-session-id']),
        'mcp-protocol-version': '2025-06-18',
      },
    })
    expect(expired.status).toBe(404)
    expect((await kept.listTools()).tools.length).toBeGreaterThan(0)
  })

  it('cancels a running sleep 30: its process is killed', async () => {
    const root = workspace()
    const { url } = await serve(['--workspace', root])
    const client = await connect(url)
    const abort = new AbortController()
    const call = client.callTool(
      { name: 'bash', arguments: { command: sleeper('pid') } },
      undefined,
      { signal: abort.signal },
    )
    const pid = await pidIn(join(root, 'pid'))
    expect(alive(pid)).toBe(true)
    abort.abort()
    await expect(call).rejects.toThrow()
    expect(await gone(pid)).toBe(true)
    // The session goes on.
    expect((await client.listTools()).tools.length).toBeGreaterThan(0)
  })

  it('kills the call of a client that goes away mid-call', async () => {
    const root = workspace()
    const { port } = await serve(['--workspace', root])
    const init = await request(port, { body: INITIALIZE })
    const headers = {
      host: `127.0.0.1:${port}`,
      authorization: `Bearer ${TOKEN}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-session-id': String(init.headers['mcp-session-id']),
      'mcp-protocol-version': '2025-06-18',
    }
    const req = http.request({ host: '127.0.0.1', port, path: '/mcp', method: 'POST', headers })
    req.on('error', () => {})
    const response = new Promise<http.IncomingMessage>((resolve) => req.on('response', resolve))
    req.end(bashCall(5, sleeper('pid')))
    // The reply is a stream of events (progress, logs, then the result), open while the call runs.
    expect((await response).headers['content-type']).toBe('text/event-stream')
    const pid = await pidIn(join(root, 'pid'))
    req.destroy()
    expect(await gone(pid)).toBe(true)
  })

  it('streams progress notifications on a long call', async () => {
    const { url } = await serve(['--workspace', workspace()])
    const client = await connect(url)
    const seen: { progress: number; message?: string }[] = []
    const r = await client.callTool(
      {
        name: 'bash',
        arguments: { command: 'for i in 1 2 3 4; do echo tick-$i; sleep 0.4; done' },
      },
      undefined,
      { onprogress: (p) => seen.push(p), timeout: 20_000 },
    )
    expect(r.isError).toBe(false)
    expect(seen.length).toBeGreaterThanOrEqual(2)
    expect(seen.some((p) => /latest output: .*tick-\d/.test(p.message ?? ''))).toBe(true)
  })

  it('serves four concurrent sessions of 50 calls each, each getting its own answers', async () => {
    const root = workspace()
    const { url } = await serve(['--workspace', root])
    const sessions = await Promise.all([0, 1, 2, 3].map(() => connect(url)))
    expect(new Set(sessions.map(sessionOf)).size).toBe(4)
    await Promise.all(
      sessions.map(async (client, s) => {
        const writes = await Promise.all(
          Array.from({ length: 25 }, (_, i) =>
            client.callTool({
              name: 'write_file',
              arguments: { path: `s${s}/f${i}.txt`, content: `session ${s} file ${i}\n` },
            }),
          ),
        )
        for (const w of writes) expect(w.isError).toBe(false)
        const reads = await Promise.all(
          Array.from({ length: 25 }, (_, i) =>
            client.callTool({ name: 'read_file', arguments: { path: `s${s}/f${i}.txt` } }),
          ),
        )
        reads.forEach((r, i) => {
          expect(textOf(r)).toBe(`     1\tsession ${s} file ${i}`)
        })
      }),
    )
  })

  it('DELETE kills the running calls of that session only', async () => {
    const root = workspace()
    const { url } = await serve(['--workspace', root])
    const [a, b] = [await connect(url), await connect(url)]
    const callA = a.callTool({ name: 'bash', arguments: { command: sleeper('a') } })
    const callB = b.callTool({ name: 'bash', arguments: { command: sleeper('b') } })
    callA.catch(() => {})
    callB.catch(() => {})
    const [pidA, pidB] = [await pidIn(join(root, 'a')), await pidIn(join(root, 'b'))]
    await (a.transport as StreamableHTTPClientTransport).terminateSession()
    expect(await gone(pidA)).toBe(true)
    expect(alive(pidB)).toBe(true)
    expect((await b.listTools()).tools.length).toBeGreaterThan(0)
  })

  it('stops on SIGTERM with exit 0, killing the running tool process', async () => {
    const root = workspace()
    const server = await serve(['--workspace', root])
    const client = await connect(server.url)
    client.callTool({ name: 'bash', arguments: { command: sleeper('pid') } }).catch(() => {})
    const pid = await pidIn(join(root, 'pid'))
    server.child.kill('SIGTERM')
    expect(await server.exited).toBe(0)
    expect(await gone(pid)).toBe(true)
    expect(server.stderr()).not.toMatch(/^\s+at /m)
  })
})
