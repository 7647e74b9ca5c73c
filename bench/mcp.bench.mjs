// The MCP server's transports side by side: calls per second over Streamable HTTP
// (`mcp --http`, one session) against stdio (`mcp`), both driven by the official SDK client
// from this process, both servers started from cli.js on the same workspace. Each row is the
// same batch of small read_file calls through each transport, interleaved (http, stdio, http, …
// after one warm-up each); the answers are compared first. Besides wall time, each row notes the
// CPU per call of the server process (from /proc, Linux) and of the client (this process), the
// steadier numbers on a shared machine. Needs the release build.
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { Agent, request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { assertSame, median, repoRoot, writeResults } from './lib.mjs'

const CLI = join(repoRoot, 'cli.js')
const TOKEN = 'bench-token'
const root = mkdtempSync(join(tmpdir(), 'atn-mcp-bench-'))
for (let i = 0; i < 50; i++) {
  writeFileSync(
    join(root, `f${i}.txt`),
    Array.from({ length: 40 }, (_, j) => `line ${j} of file ${i}`).join('\n'),
  )
}

const stdio = new Client({ name: 'bench', version: '1' })
const stdioTransport = new StdioClientTransport({
  command: process.execPath,
  args: [CLI, 'mcp', '--workspace', root],
})
await stdio.connect(stdioTransport)

const server = spawn(process.execPath, [CLI, 'mcp', '--http', '--port', '0', '--workspace', root], {
  env: { ...process.env, MCP_HTTP_TOKEN: TOKEN },
  stdio: ['ignore', 'ignore', 'pipe'],
})
const url = await new Promise((resolve, reject) => {
  let err = ''
  server.stderr.setEncoding('utf8').on('data', (d) => {
    err += d
    const m = /listening on (http:\/\/\S+\/mcp)/.exec(err)
    if (m) resolve(m[1])
  })
  server.on('close', (code) => reject(new Error(`mcp --http exited ${code}: ${err}`)))
})
const http = new Client({ name: 'bench', version: '1' })
await http.connect(
  new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } },
  }),
)

/** `count` read_file calls, `inFlight` at once; returns the answers' texts in call order. */
async function calls(client, count, inFlight) {
  const texts = new Array(count)
  let next = 0
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < count) {
        const i = next++
        const r = await client.callTool({
          name: 'read_file',
          arguments: { path: `f${i % 50}.txt`, offset: 1 + (i % 30), limit: 10 },
        })
        texts[i] = r.content[0].text
      }
    }),
  )
  return texts
}

/** CPU ms (user + system) a process has used so far, from /proc (10 ms ticks). */
function cpuOf(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
  return (Number(fields[11]) + Number(fields[12])) * 10
}

const rows = []
for (const [count, inFlight, runs] of [
  [300, 1, 7],
  [1000, 8, 7],
]) {
  assertSame(
    `${count} calls`,
    await calls(http, count, inFlight),
    await calls(stdio, count, inFlight),
  )
  const t = {
    http: [],
    stdio: [],
    httpServer: [],
    stdioServer: [],
    httpClient: [],
    stdioClient: [],
  }
  for (let i = 0; i < runs; i++) {
    for (const [key, client, pid] of [
      ['http', http, server.pid],
      ['stdio', stdio, stdioTransport.pid],
    ]) {
      const [server0, client0] = [cpuOf(pid), process.cpuUsage()]
      const t0 = process.hrtime.bigint()
      await calls(client, count, inFlight)
      t[key].push(Number(process.hrtime.bigint() - t0) / 1e6)
      const used = process.cpuUsage(client0)
      t[`${key}Server`].push(cpuOf(pid) - server0)
      t[`${key}Client`].push((used.user + used.system) / 1000)
    }
  }
  const m = Object.fromEntries(Object.entries(t).map(([k, v]) => [k, median(v)]))
  const perSecond = (ms) => Math.round((count / ms) * 1000)
  const perCall = (ms) => (ms / count).toFixed(2)
  rows.push({
    workload: `${count} small read_file calls, ${inFlight === 1 ? 'one at a time' : `${inFlight} at once`}`,
    ours_ms: m.http,
    base_ms: m.stdio,
    ratio: m.http / m.stdio,
    note:
      `calls/s: HTTP ${perSecond(m.http)}, stdio ${perSecond(m.stdio)}; CPU ms per call, ` +
      `server: HTTP ${perCall(m.httpServer)}, stdio ${perCall(m.stdioServer)}; SDK client: ` +
      `HTTP ${perCall(m.httpClient)}, stdio ${perCall(m.stdioClient)}; ${runs} interleaved runs, medians`,
  })
}

// The same calls without the SDK client: plain node:http with keep-alive (the reply read from
// the event stream) against JSON lines written to a second stdio server's stdin. This is the
// transports' own cost; the SDK's HTTP client (fetch, an event-stream parser) adds the rest.
const url0 = new URL(url)
const agent = new Agent({ keepAlive: true, maxSockets: 8 })
function post(message, headers = {}) {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url0.hostname,
        port: url0.port,
        path: '/mcp',
        method: 'POST',
        agent,
        headers: {
          authorization: `Bearer ${TOKEN}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
      },
      (res) => {
        let body = ''
        res.setEncoding('utf8').on('data', (d) => {
          body += d
        })
        res.on('end', () => {
          const data = body.split('\n').find((line) => line.startsWith('data: '))
          resolve({ res, reply: data && JSON.parse(data.slice(6)) })
        })
      },
    )
    req.on('error', reject)
    req.end(JSON.stringify(message))
  })
}
const INIT = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'b', version: '1' },
  },
}
const session = {
  'mcp-session-id': (await post(INIT)).res.headers['mcp-session-id'],
  'mcp-protocol-version': '2025-06-18',
}
const rawStdio = spawn(process.execPath, [CLI, 'mcp', '--workspace', root], {
  stdio: ['pipe', 'pipe', 'ignore'],
})
const waiting = new Map()
createInterface({ input: rawStdio.stdout }).on('line', (line) => {
  const reply = JSON.parse(line)
  waiting.get(reply.id)?.(reply)
  waiting.delete(reply.id)
})
function send(message) {
  return new Promise((resolve) => {
    waiting.set(message.id, resolve)
    rawStdio.stdin.write(`${JSON.stringify(message)}\n`)
  })
}
await send(INIT)
rawStdio.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
let nextId = 1
const readCall = (i) => ({
  jsonrpc: '2.0',
  id: nextId++,
  method: 'tools/call',
  params: {
    name: 'read_file',
    arguments: { path: `f${i % 50}.txt`, offset: 1 + (i % 30), limit: 10 },
  },
})
const raw = {
  http: async (i) => (await post(readCall(i), session)).reply.result.content[0].text,
  stdio: async (i) => (await send(readCall(i))).result.content[0].text,
}
for (const [count, inFlight, runs] of [
  [300, 1, 7],
  [1000, 8, 7],
]) {
  const each = async (key) => {
    const texts = new Array(count)
    let next = 0
    await Promise.all(
      Array.from({ length: inFlight }, async () => {
        while (next < count) {
          const i = next++
          texts[i] = await raw[key](i)
        }
      }),
    )
    return texts
  }
  assertSame(`${count} raw calls`, await each('http'), await each('stdio'))
  const t = { http: [], stdio: [], httpServer: [], stdioServer: [] }
  for (let i = 0; i < runs; i++) {
    for (const [key, pid] of [
      ['http', server.pid],
      ['stdio', rawStdio.pid],
    ]) {
      const server0 = cpuOf(pid)
      const t0 = process.hrtime.bigint()
      await each(key)
      t[key].push(Number(process.hrtime.bigint() - t0) / 1e6)
      t[`${key}Server`].push(cpuOf(pid) - server0)
    }
  }
  const m = Object.fromEntries(Object.entries(t).map(([k, v]) => [k, median(v)]))
  const perSecond = (ms) => Math.round((count / ms) * 1000)
  const perCall = (ms) => (ms / count).toFixed(2)
  rows.push({
    workload: `${count} small read_file calls, ${inFlight === 1 ? 'one at a time' : `${inFlight} at once`}, no SDK client (node:http keep-alive vs JSON lines)`,
    ours_ms: m.http,
    base_ms: m.stdio,
    ratio: m.http / m.stdio,
    note:
      `calls/s: HTTP ${perSecond(m.http)}, stdio ${perSecond(m.stdio)}; server CPU ms per call: ` +
      `HTTP ${perCall(m.httpServer)}, stdio ${perCall(m.stdioServer)}; ${runs} interleaved runs, medians`,
  })
}
agent.destroy()
rawStdio.stdin.end()

await http.close()
await stdio.close()
server.kill('SIGTERM')
writeResults('mcp', 'the same server over stdio (SDK client both ways)', rows)
