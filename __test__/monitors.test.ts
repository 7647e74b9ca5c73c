// Background process monitors at the package root: monitor_start, monitor_poll, monitor_stop,
// monitor_list (the contract), monitor_send and `pty` (this package's additions), sweepMonitors.
import { execFile, spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import {
  existsSync,
  readdirSync,
  readFileSync,
  renameSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, describe, expect, it } from 'vitest'
import {
  type AgentTools,
  contentText,
  createAgentTools,
  type DispatchResult,
  dispatch,
  listTools,
  resolveConfig,
  sweepMonitors,
} from '../index.js'
import * as seed from '../v0.1/index.js'
import { alive, tempDir } from './helpers'

// Every monitor of this file inherits this variable; at the end no process may still carry it.
const MARK = `ATN_MONITOR_TEST=${randomUUID()}`
process.env.ATN_MONITOR_TEST = MARK.slice('ATN_MONITOR_TEST='.length)

const repoRoot = join(__dirname, '..')
const node = JSON.stringify(process.execPath)
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const run = promisify(execFile)

type Json = Record<string, unknown>

/** Waits (bounded) until `done()` holds; returns whether it did. */
async function until(done: () => boolean | Promise<boolean>, ms = 10_000): Promise<boolean> {
  const end = Date.now() + ms
  while (Date.now() < end) {
    if (await done()) return true
    await sleep(25)
  }
  return done()
}

/** Live processes other than this one whose environment carries MARK. */
function marked(): number[] {
  const found: number[] = []
  for (const name of readdirSync('/proc')) {
    const pid = Number(name)
    if (!Number.isInteger(pid) || pid === process.pid) continue
    try {
      const env = readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0')
      if (env.includes(MARK) && alive(pid)) found.push(pid)
    } catch {
      // gone, or not ours to read
    }
  }
  return found
}

function ok(r: DispatchResult): Json {
  if (r.isError) throw new Error(`expected success, got ${contentText(r.content)}`)
  return JSON.parse(contentText(r.content))
}

function err(r: DispatchResult): Json {
  if (!r.isError) throw new Error(`expected an error, got ${contentText(r.content)}`)
  return JSON.parse(contentText(r.content))
}

const roots: string[] = []
function setup(options: Json = {}): { root: string; tools: AgentTools } {
  const root = tempDir('atn-mon-')
  roots.push(root)
  // monitor_send is beyond the contract: offered with `extras: true`.
  return { root, tools: createAgentTools({ workspaceRoot: root, extras: true, ...options }) }
}

const meta = (root: string, id: unknown) => join(root, '.clarvis', `monitor-${id}.json`)

/** Polls until the monitor's log holds `pattern` (bounded); returns the output so far. */
async function waitFor(tools: AgentTools, id: unknown, pattern: RegExp): Promise<string> {
  let out = ''
  await until(async () => {
    out = ok(await tools.callTool('monitor_poll', { id })).output as string
    return pattern.test(out)
  })
  return out
}

afterAll(async () => {
  // Stop whatever a failed test left, then check nothing carrying the mark survives.
  for (const root of roots) {
    const tools = createAgentTools({ workspaceRoot: root })
    const { monitors } = ok(await tools.callTool('monitor_list', {})) as { monitors: Json[] }
    for (const m of monitors) await tools.callTool('monitor_stop', { id: m.id })
  }
  // The stdin holder notices its monitor's end within a second.
  await until(() => marked().length === 0, 5000)
  const left = marked()
  for (const pid of left) {
    try {
      process.kill(pid, 'SIGKILL')
    } catch {
      // already gone
    }
  }
  expect(left, 'processes left behind by the monitor tests').toEqual([])
})

describe('monitors', () => {
  it('are listed at the root, hidden under readOnly and at /v0.1', async () => {
    const { root, tools } = setup()
    const names = tools.listTools().map((t) => t.name)
    const at = names.indexOf('monitor_start')
    expect(names.slice(at, at + 5)).toEqual([
      'monitor_start',
      'monitor_poll',
      'monitor_stop',
      'monitor_list',
      'monitor_send',
    ])
    // Without `extras` the root lists exactly the contract's four (CONTRACT-v0.5 §1: 25 tools).
    const contract = setup({ extras: false }).tools.listTools()
    expect(contract.map((t) => t.name).filter((n) => n.startsWith('monitor_'))).toEqual([
      'monitor_start',
      'monitor_poll',
      'monitor_stop',
      'monitor_list',
    ])
    expect(contract).toHaveLength(25)
    const refused = err(
      await setup({ extras: false }).tools.callTool('monitor_send', { id: 1, input: 'x' }),
    )
    expect(refused).toMatchObject({ error: 'not_found', message: 'Unknown tool: monitor_send' })
    const ro = setup({ readOnly: true })
      .tools.listTools()
      .map((t) => t.name)
    expect(ro.filter((n) => n.startsWith('monitor_'))).toEqual([])
    const old = seed.createAgentTools({ workspaceRoot: root }).listTools()
    expect(old.map((t) => t.name).filter((n) => n.startsWith('monitor_'))).toEqual([])
    const start = listTools(tools.config).find((t) => t.name === 'monitor_start')
    expect(start?.inputSchema).toMatchObject({
      required: ['command'],
      properties: { ready_timeout_ms: { minimum: 0 } },
    })
  })

  it('sweepMonitors is exported by both module formats, at the root only', async () => {
    const esm = await import('../index.mjs')
    expect(esm.sweepMonitors).toBe(sweepMonitors)
    expect((seed as Record<string, unknown>).sweepMonitors).toBeUndefined()
  })

  it('start a real HTTP server, wait for its log line, then fetch from it', async () => {
    const { root, tools } = setup()
    const server = `require("http").createServer((q, s) => s.end("hello from " + q.url)).listen(0, "127.0.0.1", function () { console.log("listening on " + this.address().port) })`
    const command = `echo booting; exec ${node} -e '${server}'`
    const started = ok(
      await tools.callTool('monitor_start', { command, ready_when: 'listening on \\d+' }),
    )
    expect(started).toMatchObject({ running: true, ready: true })
    expect(Object.keys(started)).toEqual(['id', 'running', 'ready', 'output', 'next_offset'])
    expect(started.id).toMatch(/^mon_[0-9a-f]{8}$/)
    const output = started.output as string
    expect(output).toMatch(/^booting\nlistening on \d+\n$/)
    expect(started.next_offset).toBe(Buffer.byteLength(output))
    const port = Number(/listening on (\d+)/.exec(output)?.[1])
    const res = await fetch(`http://127.0.0.1:${port}/ping`)
    expect(await res.text()).toBe('hello from /ping')

    const saved = JSON.parse(readFileSync(meta(root, started.id), 'utf8'))
    expect(saved).toMatchObject({
      id: started.id,
      command,
      cwd: root,
      readyWhen: 'listening on \\d+',
    })
    expect(typeof saved.pidStart).toBe('number')
    expect(readFileSync(join(root, '.clarvis', '.gitignore'), 'utf8')).toBe('*\n')

    const polled = ok(await tools.callTool('monitor_poll', { id: started.id, offset: 0 }))
    expect(polled).toEqual({
      running: true,
      output,
      next_offset: started.next_offset,
      exit_code: null,
    })
    expect(ok(await tools.callTool('monitor_stop', { id: started.id }))).toEqual({
      stopped: true,
      id: started.id,
    })
    expect(await until(() => !alive(saved.pid))).toBe(true)
    await expect(fetch(`http://127.0.0.1:${port}/`)).rejects.toThrow()
    for (const ext of ['json', 'log', 'exit']) {
      expect(existsSync(join(root, '.clarvis', `monitor-${started.id}.${ext}`))).toBe(false)
    }
  })

  it('start without ready_when returns at once with the contract shape', async () => {
    const { tools } = setup()
    const r = await tools.callTool('monitor_start', { command: 'sleep 30' })
    const started = ok(r)
    expect(contentText(r.content)).toBe(
      `{"id":"${started.id}","running":true,"ready":null,"output":"","next_offset":0}`,
    )
    await tools.callTool('monitor_stop', { id: started.id })
  })

  it('a process that dies before it is ready returns at once with its code and output', async () => {
    const { tools } = setup()
    const started = ok(
      await tools.callTool('monitor_start', {
        command: 'echo starting; echo "fatal: no config file" >&2; exit 4',
        ready_when: 'listening',
        ready_timeout_ms: 60_000,
      }),
    )
    expect(started).toMatchObject({
      running: false,
      ready: false,
      output: 'starting\nfatal: no config file\n',
      next_offset: 31,
      exit_code: 4,
    })
    const polled = ok(await tools.callTool('monitor_poll', { id: started.id }))
    expect(polled).toMatchObject({ running: false, exit_code: 4 })
    const killed = ok(await tools.callTool('monitor_start', { command: 'kill -9 $$' }))
    await until(async () => !ok(await tools.callTool('monitor_poll', { id: killed.id })).running)
    // Killed before its trap could run: no exit code.
    expect(ok(await tools.callTool('monitor_poll', { id: killed.id })).exit_code).toBe(null)
  })

  it('at the contract root, an early exit answers with the head of the log and no exit_code', async () => {
    // CONTRACT-v0.5 §3: "The regex is matched against the first `maxOutputBytes` of the log …
    // It returns {"id","running","ready","output","next_offset"} (output is that slice)".
    const root = tempDir('atn-mon-')
    roots.push(root)
    const tools = createAgentTools({ workspaceRoot: root, maxOutputBytes: 1024 })
    const started = ok(
      await tools.callTool('monitor_start', {
        command: 'yes x | head -c 3000; echo "fatal: port in use"; exit 1',
        ready_when: 'listening',
        ready_timeout_ms: 60_000,
      }),
    )
    expect(started).toEqual({
      id: started.id,
      running: false,
      ready: false,
      output: 'x\n'.repeat(512),
      next_offset: 1024,
    })
  })

  it('an exit file that holds no status means exited with null, an empty one too', async () => {
    // CONTRACT-v0.5 §3: "A non-integer or empty exit file means exited with `null`", also
    // while the shell lives, and the monitor no longer counts as live.
    const { root, tools } = setup({ maxMonitors: 1 })
    const started = ok(await tools.callTool('monitor_start', { command: 'sleep 30' }))
    const exit = join(root, '.clarvis', `monitor-${started.id}.exit`)
    writeFileSync(exit, '')
    expect(ok(await tools.callTool('monitor_poll', { id: started.id }))).toMatchObject({
      running: false,
      exit_code: null,
    })
    const { monitors } = ok(await tools.callTool('monitor_list', {})) as { monitors: Json[] }
    expect(monitors.find((m) => m.id === started.id)).toMatchObject({ running: false })
    const second = ok(await tools.callTool('monitor_start', { command: 'true' }))
    await tools.callTool('monitor_stop', { id: second.id })
    writeFileSync(exit, 'abc')
    expect(ok(await tools.callTool('monitor_poll', { id: started.id }))).toMatchObject({
      running: false,
      exit_code: null,
    })
    await tools.callTool('monitor_stop', { id: started.id })
  })

  it('ready_when times out (ready false, running true) and rejects a bad regex', async () => {
    const { tools } = setup()
    const r = ok(
      await tools.callTool('monitor_start', {
        command: 'echo waiting; sleep 30',
        ready_when: 'never',
        ready_timeout_ms: 300,
      }),
    )
    expect(r).toMatchObject({ ready: false, running: true, output: 'waiting\n', next_offset: 8 })
    await tools.callTool('monitor_stop', { id: r.id })
    const bad = err(await tools.callTool('monitor_start', { command: 'true', ready_when: '(' }))
    expect(bad).toMatchObject({ error: 'invalid_input', field: 'ready_when' })
    expect(bad.message).toMatch(/^Invalid ready_when regex: /)
    const out = err(await tools.callTool('monitor_start', { command: 'true', cwd: '/' }))
    expect(out.error).toBe('path_escape')
  })

  it('an abort stops the wait without an error: ready false, running true', async () => {
    const { root } = setup()
    const config = resolveConfig({ workspaceRoot: root })
    const ctl = new AbortController()
    setTimeout(() => ctl.abort(), 200)
    const r = await dispatch(
      'monitor_start',
      { command: 'sleep 30', ready_when: 'never', ready_timeout_ms: 60_000 },
      config,
      ctl.signal,
    )
    const started = ok(r)
    expect(started).toMatchObject({ ready: false, running: true })
    await dispatch('monitor_stop', { id: started.id }, config)
  })

  it('poll reads from an offset, holds back a partial line, filters, and says when more remains', async () => {
    const { tools } = setup({ maxOutputBytes: 1024 })
    const command = `printf 'alpha 1\\nbeta 2\\nalpha 3\\npart'; sleep 30`
    const started = ok(await tools.callTool('monitor_start', { command, ready_when: 'part' }))
    const all = ok(await tools.callTool('monitor_poll', { id: started.id }))
    expect(all).toEqual({
      running: true,
      output: 'alpha 1\nbeta 2\nalpha 3\n',
      next_offset: 23,
      exit_code: null,
    })
    const rest = ok(await tools.callTool('monitor_poll', { id: started.id, offset: 23 }))
    expect(rest).toMatchObject({ output: 'part', next_offset: 27 })
    const from8 = ok(await tools.callTool('monitor_poll', { id: started.id, offset: 8 }))
    expect(from8).toMatchObject({ output: 'beta 2\nalpha 3\n', next_offset: 23 })
    const past = ok(await tools.callTool('monitor_poll', { id: started.id, offset: 10_000 }))
    expect(past).toMatchObject({ output: '', next_offset: 27 })
    const only = ok(await tools.callTool('monitor_poll', { id: started.id, match: '^alpha' }))
    expect(only).toMatchObject({ output: 'alpha 1\nalpha 3', next_offset: 23 })
    const badMatch = err(await tools.callTool('monitor_poll', { id: started.id, match: '[' }))
    expect(badMatch).toMatchObject({ error: 'invalid_input', field: 'match' })
    expect(badMatch.message).toMatch(/^Invalid match regex: /)
    await tools.callTool('monitor_stop', { id: started.id })

    const big = ok(
      await tools.callTool('monitor_start', {
        command: `i=0; while [ $i -lt 300 ]; do echo "line $i"; i=$((i+1)); done; echo end`,
        ready_when: 'end',
      }),
    )
    const first = ok(await tools.callTool('monitor_poll', { id: big.id }))
    expect(first.next_offset).toBe(1024)
    expect(first.output).toMatch(
      /\n\[\.\.\. more output buffered; continue with offset=1024 \.\.\.\]$/,
    )
    let offset = first.next_offset as number
    let text = (first.output as string).replace(/\n\[\.\.\. more .*\]$/, '')
    for (;;) {
      const next = ok(await tools.callTool('monitor_poll', { id: big.id, offset }))
      text += (next.output as string).replace(/\n\[\.\.\. more .*\]$/, '')
      if (next.next_offset === offset) break
      offset = next.next_offset as number
    }
    const lines = Array.from({ length: 300 }, (_, i) => `line ${i}\n`).join('')
    expect(text).toBe(`${lines}end\n`)
    await tools.callTool('monitor_stop', { id: big.id })
  })

  it('ready_when and match are JavaScript RegExps, as the contract compiles them', async () => {
    // CONTRACT-v0.5 §3: `ready_when` "(regex, no flags)", `match` "(regex)"; the reference
    // compiles both with `new RegExp(source)`. Each expectation is JavaScript's own answer.
    const { tools } = setup()
    const lines = [
      '{"status":"ready","port":5173}',
      'listening on http://localhost:5173/',
      'digits ٣٣ only',
      'ready in 3s',
      'ready!',
      'abba',
      'Word_1 é',
    ]
    const command = `printf '%s\\n' ${lines.map((l) => `'${l}'`).join(' ')}; sleep 30`
    // A `{` that is not a quantifier is literal in JavaScript (and an error in Rust's syntax).
    const started = ok(
      await tools.callTool('monitor_start', { command, ready_when: '{"status":"ready"' }),
    )
    expect(started).toMatchObject({ ready: true, running: true })
    await until(async () => {
      const p = ok(await tools.callTool('monitor_poll', { id: started.id }))
      return String(p.output).includes('Word_1')
    })
    const patterns = [
      'digits \\d', // ASCII digits only: ٣ is not one
      'http:\\/\\/localhost:\\d+\\/',
      'ready(?! in)', // look-ahead
      '(\\w)\\1', // backreference
      '^\\w+ \\W$', // \w is ASCII: é is \W
      '\\bin\\b',
      '[^]y!$',
      '"port":\\d{4}}',
    ]
    for (const match of patterns) {
      const polled = ok(await tools.callTool('monitor_poll', { id: started.id, match }))
      const re = new RegExp(match)
      expect(polled.output, match).toBe(lines.filter((l) => re.test(l)).join('\n'))
    }
    await tools.callTool('monitor_stop', { id: started.id })
  })

  it('stop kills the whole group, grandchildren that ignore SIGTERM included', async () => {
    const { tools } = setup()
    const command = [
      `sh -c 'trap "" TERM; echo child $$; sh -c "echo grandchild \\$\\$; exec sleep 60" & wait' &`,
      'echo shell $$',
      'wait',
    ].join('\n')
    const started = ok(await tools.callTool('monitor_start', { command }))
    const out = await waitFor(tools, started.id, /grandchild \d+/)
    const pids = [...out.matchAll(/(?:shell|child|grandchild) (\d+)/g)].map((m) => Number(m[1]))
    expect(pids).toHaveLength(3)
    expect(pids.every(alive)).toBe(true)
    ok(await tools.callTool('monitor_stop', { id: started.id }))
    expect(await until(() => !pids.some(alive))).toBe(true)
    expect(err(await tools.callTool('monitor_poll', { id: started.id }))).toEqual({
      error: 'monitor_not_found',
      message: `No such monitor: ${started.id}`,
      id: started.id,
    })
    expect(err(await tools.callTool('monitor_stop', { id: 'mon_../../x' })).error).toBe(
      'monitor_not_found',
    )
  })

  it('refuses a start past maxMonitors', async () => {
    const { tools } = setup({ maxMonitors: 2 })
    const a = ok(await tools.callTool('monitor_start', { command: 'sleep 30' }))
    const b = ok(await tools.callTool('monitor_start', { command: 'sleep 30' }))
    expect(err(await tools.callTool('monitor_start', { command: 'sleep 30' }))).toEqual({
      error: 'too_many_monitors',
      message: 'Too many live monitors (2/2); stop some with monitor_stop first',
      limit: 2,
    })
    ok(await tools.callTool('monitor_stop', { id: a.id }))
    const c = ok(await tools.callTool('monitor_start', { command: 'sleep 30' }))
    const { monitors } = ok(await tools.callTool('monitor_list', {})) as { monitors: Json[] }
    expect(monitors.map((m) => m.id).sort()).toEqual([b.id, c.id].sort())
    for (const id of [b.id, c.id]) await tools.callTool('monitor_stop', { id })
  })

  it('list shows every monitor newest first, exited ones too', async () => {
    const { root, tools } = setup()
    const a = ok(await tools.callTool('monitor_start', { command: 'sleep 30' }))
    await sleep(5)
    const b = ok(await tools.callTool('monitor_start', { command: 'exit 0' }))
    writeFileSync(join(root, '.clarvis', 'monitor-mon_deadbeef.json'), '{not json')
    await until(async () => !ok(await tools.callTool('monitor_poll', { id: b.id })).running)
    const { monitors } = ok(await tools.callTool('monitor_list', {})) as { monitors: Json[] }
    expect(monitors).toHaveLength(2)
    expect(monitors[0]).toMatchObject({ id: b.id, command: 'exit 0', running: false, cwd: root })
    expect(Object.keys(monitors[0])).toEqual(['id', 'command', 'running', 'started_at', 'cwd'])
    expect(monitors[1]).toMatchObject({ id: a.id, running: true })
    expect(monitors[0].started_at as number).toBeGreaterThan(monitors[1].started_at as number)
    for (const id of [a.id, b.id]) await tools.callTool('monitor_stop', { id })
  })

  it('a recycled pid is reported not running and is never signalled', async () => {
    const { root, tools } = setup()
    const started = ok(await tools.callTool('monitor_start', { command: 'sleep 60' }))
    const file = meta(root, started.id)
    const real = JSON.parse(readFileSync(file, 'utf8'))
    expect(alive(real.pid)).toBe(true)
    // An unrelated live process now holds the recorded pid (a different start time: start
    // times tick in hundredths of a second, so the bystander starts a few ticks later).
    await new Promise((r) => setTimeout(r, 100))
    const bystander = spawn('sleep', ['60'], { detached: true, stdio: 'ignore' })
    const pid = bystander.pid as number
    writeFileSync(file, JSON.stringify({ ...real, pid }))
    expect(ok(await tools.callTool('monitor_poll', { id: started.id })).running).toBe(false)
    const { monitors } = ok(await tools.callTool('monitor_list', {})) as { monitors: Json[] }
    expect(monitors[0]).toMatchObject({ id: started.id, running: false })
    ok(await tools.callTool('monitor_stop', { id: started.id }))
    await sleep(500)
    expect(alive(pid)).toBe(true)
    // The same pid with a different recorded start time is not the monitor either.
    const again = ok(await tools.callTool('monitor_start', { command: 'sleep 60' }))
    const second = JSON.parse(readFileSync(meta(root, again.id), 'utf8'))
    writeFileSync(
      meta(root, again.id),
      JSON.stringify({ ...second, pidStart: second.pidStart + 1 }),
    )
    expect(ok(await tools.callTool('monitor_poll', { id: again.id })).running).toBe(false)
    ok(await tools.callTool('monitor_stop', { id: again.id }))
    await sleep(500)
    expect(alive(second.pid)).toBe(true)
    for (const p of [-real.pid, -second.pid, pid]) process.kill(p, 'SIGKILL')
    expect(await until(() => ![real.pid, second.pid, pid].some(alive))).toBe(true)
  })

  it('a second process polls and stops a monitor it did not start, and one outlives its host', async () => {
    const { root, tools } = setup()
    const started = ok(
      await tools.callTool('monitor_start', { command: 'echo from-first; sleep 60' }),
    )
    await waitFor(tools, started.id, /from-first/)
    const script = `
      const { createAgentTools, contentText } = require(${JSON.stringify(repoRoot)})
      const tools = createAgentTools({ workspaceRoot: process.argv[1] })
      ;(async () => {
        const out = {}
        for (const [name, args] of JSON.parse(process.argv[2])) {
          out[name] = JSON.parse(contentText((await tools.callTool(name, args)).content))
        }
        console.log(JSON.stringify(out))
      })()`
    const other = async (calls: [string, Json][]) =>
      JSON.parse((await run(process.execPath, ['-e', script, root, JSON.stringify(calls)])).stdout)
    const seen = await other([
      ['monitor_poll', { id: started.id }],
      ['monitor_stop', { id: started.id }],
    ])
    expect(seen.monitor_poll).toMatchObject({ running: true, output: 'from-first\n' })
    expect(seen.monitor_stop).toEqual({ stopped: true, id: started.id })
    expect(err(await tools.callTool('monitor_poll', { id: started.id })).error).toBe(
      'monitor_not_found',
    )
    // Started by a host that then exits: still running, and stoppable from here.
    const born = await other([['monitor_start', { command: 'echo orphan; sleep 60' }]])
    const id = born.monitor_start.id
    const pid = JSON.parse(readFileSync(meta(root, id), 'utf8')).pid
    expect(alive(pid)).toBe(true)
    expect(await waitFor(tools, id, /orphan/)).toBe('orphan\n')
    ok(await tools.callTool('monitor_stop', { id }))
    expect(await until(() => !alive(pid))).toBe(true)
  })

  it('a host killed with SIGKILL takes its bash processes along but leaves its monitors', async () => {
    const { root, tools } = setup()
    const script = `
      const { createAgentTools, contentText } = require(${JSON.stringify(repoRoot)})
      // background_pids is an extra (the contract's success JSON has five keys).
      const tools = createAgentTools({ workspaceRoot: process.argv[1], extras: true })
      ;(async () => {
        const bash = JSON.parse(contentText((await tools.callTool('bash', { command: 'sleep 60 &' })).content))
        const mon = JSON.parse(contentText((await tools.callTool('monitor_start', { command: 'echo up; sleep 60' })).content))
        console.log(JSON.stringify({ bg: bash.background_pids[0], id: mon.id }))
        setInterval(() => {}, 1000)
      })()`
    const host = spawn(process.execPath, ['-e', script, root], {
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    const line = await new Promise<string>((resolve) => {
      let buf = ''
      host.stdout?.on('data', (d) => {
        buf += d
        if (buf.includes('\n')) resolve(buf)
      })
    })
    const { bg, id } = JSON.parse(line)
    expect(alive(bg)).toBe(true)
    host.kill('SIGKILL')
    // The bash watchdog notices the host's death and kills the bash leftovers...
    expect(await until(() => !alive(bg))).toBe(true)
    // ...but not the monitor.
    const pid = JSON.parse(readFileSync(meta(root, id), 'utf8')).pid
    expect(alive(pid)).toBe(true)
    expect(ok(await tools.callTool('monitor_poll', { id }))).toMatchObject({
      running: true,
      output: 'up\n',
    })
    ok(await tools.callTool('monitor_stop', { id }))
    expect(await until(() => !alive(pid))).toBe(true)
  })

  it('sweepMonitors removes the files of exited monitors and leaves live ones', async () => {
    const { root, tools } = setup()
    const live = ok(await tools.callTool('monitor_start', { command: 'sleep 30' }))
    const done = ok(await tools.callTool('monitor_start', { command: 'echo bye' }))
    await until(async () => !ok(await tools.callTool('monitor_poll', { id: done.id })).running)
    await expect(sweepMonitors(root)).resolves.toBeUndefined()
    const files = readdirSync(join(root, '.clarvis')).sort()
    expect(files.filter((f) => f.includes(done.id as string))).toEqual([])
    expect(files).toContain(`monitor-${live.id}.json`)
    expect(ok(await tools.callTool('monitor_poll', { id: live.id })).running).toBe(true)
    await expect(sweepMonitors(join(root, 'missing'))).resolves.toBeUndefined()
    await tools.callTool('monitor_stop', { id: live.id })
  })

  it('monitor_send writes to stdin; eof closes it; without stdin: true stdin is empty', async () => {
    const { tools } = setup()
    const command = 'while read -r line; do echo "got $line"; done; echo "stdin closed"'
    const started = ok(await tools.callTool('monitor_start', { command, stdin: true }))
    expect(ok(await tools.callTool('monitor_send', { id: started.id, input: 'one\n' }))).toEqual({
      id: started.id,
      written: 4,
      eof: false,
    })
    await waitFor(tools, started.id, /got one/)
    ok(await tools.callTool('monitor_send', { id: started.id, input: 'two\n', eof: true }))
    await until(async () => !ok(await tools.callTool('monitor_poll', { id: started.id })).running)
    expect(ok(await tools.callTool('monitor_poll', { id: started.id }))).toEqual({
      running: false,
      output: 'got one\ngot two\nstdin closed\n',
      next_offset: 29,
      exit_code: 0,
    })
    ok(await tools.callTool('monitor_stop', { id: started.id }))

    const plain = ok(await tools.callTool('monitor_start', { command: 'cat; echo "cat=$?"' }))
    expect(await waitFor(tools, plain.id, /cat=/)).toBe('cat=0\n')
    const refused = err(await tools.callTool('monitor_send', { id: plain.id, input: 'x' }))
    expect(refused).toMatchObject({ error: 'invalid_input', id: plain.id })
    ok(await tools.callTool('monitor_stop', { id: plain.id }))
  })

  it('pty: true runs the command on a terminal', async () => {
    const { tools } = setup()
    const command = 'if [ -t 0 ] && [ -t 1 ]; then echo terminal; fi; read -r l; echo "read $l"'
    const started = ok(
      await tools.callTool('monitor_start', {
        command,
        pty: true,
        stdin: true,
        ready_when: 'terminal',
      }),
    )
    expect(started).toMatchObject({ ready: true, output: 'terminal\n' })
    ok(await tools.callTool('monitor_send', { id: started.id, input: 'hi\n' }))
    expect(await waitFor(tools, started.id, /read hi/)).toBe('terminal\nread hi\n')
    ok(await tools.callTool('monitor_stop', { id: started.id }))
  })

  it('never follow a .clarvis swapped for a symlink after the start (issues 12, 15)', async () => {
    const { root, tools } = setup()
    const outside = tempDir('atn-mon-out-')
    const chatty = ok(
      await tools.callTool('monitor_start', { command: 'while :; do echo tick; sleep 0.05; done' }),
    )
    const exiting = ok(
      await tools.callTool('monitor_start', {
        command: 'while [ ! -e go ]; do sleep 0.02; done; echo bye; exit 3',
      }),
    )
    await waitFor(tools, chatty.id, /tick/)
    // The outside directory looks like a store of the same monitors, all exited.
    writeFileSync(join(outside, 'canary'), 'canary')
    for (const id of [chatty.id, exiting.id]) {
      const forged = {
        id,
        command: 'forged',
        cwd: '/',
        pid: 999999999,
        startedAt: 1,
        readyWhen: null,
      }
      writeFileSync(join(outside, `monitor-${id}.json`), JSON.stringify(forged))
      writeFileSync(join(outside, `monitor-${id}.log`), 'OUTSIDE\n')
    }
    const snapshot = () =>
      readdirSync(outside)
        .sort()
        .map((n) => [n, readFileSync(join(outside, n), 'utf8')])
    const before = snapshot()
    const real = join(root, '.clarvis')
    const aside = join(root, 'aside')
    renameSync(real, aside)
    symlinkSync(outside, real)

    for (const id of [chatty.id, exiting.id]) {
      const polled = err(await tools.callTool('monitor_poll', { id }))
      expect(polled).toMatchObject({ error: 'monitor_not_found' })
      const stopped = err(await tools.callTool('monitor_stop', { id }))
      expect(stopped).toMatchObject({ error: 'monitor_not_found' })
    }
    expect(ok(await tools.callTool('monitor_list', {}))).toEqual({ monitors: [] })
    await sweepMonitors(root)
    const refused = err(await tools.callTool('monitor_start', { command: 'echo new' }))
    expect(refused).toMatchObject({ error: 'io_error' })
    // One monitor exits meanwhile: its exit file lands in the real directory.
    writeFileSync(join(root, 'go'), '')
    const exitFile = join(aside, `monitor-${exiting.id}.exit`)
    expect(await until(() => existsSync(exitFile))).toBe(true)
    expect(readFileSync(exitFile, 'utf8')).toBe('3')
    expect(snapshot()).toEqual(before)

    unlinkSync(real)
    renameSync(aside, real)
    expect(ok(await tools.callTool('monitor_poll', { id: exiting.id }))).toEqual({
      running: false,
      output: 'bye\n',
      next_offset: 4,
      exit_code: 3,
    })
    expect(ok(await tools.callTool('monitor_poll', { id: chatty.id })).running).toBe(true)
    for (const id of [chatty.id, exiting.id]) ok(await tools.callTool('monitor_stop', { id }))
    expect(snapshot()).toEqual(before)
  })
})
