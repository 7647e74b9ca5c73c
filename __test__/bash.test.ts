import { execFileSync, spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { contentText, createAgentTools as createRoot } from '../index.js'
import { listTools, sweepSpillDir } from '../v0.1/index.js'
import { alive, err, ok, tempDir, workspace } from './helpers'

// Every command of this file inherits this variable; at the end no process may still carry it.
const MARK = `ATN_BASH_TEST=${randomUUID()}`
process.env.ATN_BASH_TEST = MARK.slice('ATN_BASH_TEST='.length)

type Report = {
  exit_code: number
  stdout: string
  stderr: string
  signal: string | null
  timed_out: boolean
  background_pids?: number[]
}

const repoRoot = join(__dirname, '..')
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Waits up to `ms` for every pid to be gone; returns the survivors. */
async function survivors(pids: number[], ms = 3000): Promise<number[]> {
  const until = Date.now() + ms
  let left = pids.filter(alive)
  while (left.length > 0 && Date.now() < until) {
    await sleep(25)
    left = left.filter(alive)
  }
  return left
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

function killAll(pids: number[]) {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL')
    } catch {
      // already gone
    }
  }
}

const pidsIn = (text: string) => (text.match(/\d+/g) ?? []).map(Number)

/** Runs `script` as a host process (`node -e`) to its end; what it wrote to stdout. */
async function hostOutput(script: string): Promise<string> {
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] })
  let out = ''
  child.stdout.on('data', (d) => {
    out += d
  })
  await new Promise((resolve) => child.on('close', resolve))
  return out
}

async function run(
  command: string,
  extra: { cwd?: string; timeout_ms?: number } = {},
  options = {},
): Promise<Report> {
  const { tools } = workspace({}, options)
  return JSON.parse(ok(await tools.callTool('bash', { command, ...extra })))
}

afterAll(async () => {
  // No test may leave a process behind: wait briefly for killed ones to be reaped, then check.
  const until = Date.now() + 3000
  let left = marked()
  while (left.length > 0 && Date.now() < until) {
    await sleep(50)
    left = marked()
  }
  killAll(left)
  expect(left, 'processes left behind by the bash tests').toEqual([])
})

describe('bash', () => {
  it('is listed with its schema and hidden under readOnly', () => {
    const { tools } = workspace()
    const bash = tools.listTools().find((t) => t.name === 'bash')
    expect(bash?.inputSchema).toMatchObject({
      type: 'object',
      required: ['command'],
      additionalProperties: false,
      properties: { timeout_ms: { type: 'integer', minimum: 1 } },
    })
    expect(bash?.description).toMatch(/read_file/)
    const ro = workspace({}, { readOnly: true }).tools
    expect(ro.listTools().map((t) => t.name)).not.toContain('bash')
    expect(listTools({ ...ro.config, readOnly: false }).map((t) => t.name)).toContain('bash')
  })

  it('returns the contract JSON, keys in order; a non-zero exit is a success', async () => {
    const { tools } = workspace()
    const r = await tools.callTool('bash', { command: 'echo hi; echo oops >&2; exit 3' })
    expect(r.isError).toBe(false)
    expect(r.text).toBe(
      '{"exit_code":3,"stdout":"hi\\n","stderr":"oops\\n","signal":null,"timed_out":false}',
    )
  })

  it('reports death by signal as 128 + signo with the signal name', async () => {
    expect(await run('kill -9 $$')).toMatchObject({ exit_code: 137, signal: 'SIGKILL' })
    expect(await run('echo before; kill -TERM $$')).toMatchObject({
      exit_code: 143,
      signal: 'SIGTERM',
      stdout: 'before\n',
    })
  })

  it('captures stderr separately and closes stdin', async () => {
    const r = await run('echo to-err >&2; cat; echo "cat=$?"')
    expect(r).toMatchObject({ exit_code: 0, stdout: 'cat=0\n', stderr: 'to-err\n' })
  })

  it('runs in the workspace root by default and in cwd (relative or absolute)', async () => {
    const { root, tools } = workspace({ 'sub/deeper/f.txt': 'x' })
    const pwd = async (cwd?: string) =>
      JSON.parse(ok(await tools.callTool('bash', { command: 'pwd -P', cwd }))).stdout.trim()
    const real = execFileSync('realpath', [root]).toString().trim()
    expect(await pwd()).toBe(real)
    expect(await pwd('sub')).toBe(join(real, 'sub'))
    expect(await pwd(join(root, 'sub/deeper'))).toBe(join(real, 'sub/deeper'))
  })

  it('refuses a cwd that escapes, is missing, or is a file', async () => {
    const { tools } = workspace({ 'f.txt': 'x' })
    expect(err(await tools.callTool('bash', { command: 'pwd', cwd: '..' })).error).toBe(
      'path_escape',
    )
    expect(err(await tools.callTool('bash', { command: 'pwd', cwd: '/' })).error).toBe(
      'path_escape',
    )
    expect(err(await tools.callTool('bash', { command: 'pwd', cwd: 'nope' }))).toMatchObject({
      error: 'not_found',
      path: 'nope',
    })
    expect(err(await tools.callTool('bash', { command: 'pwd', cwd: 'f.txt' }))).toMatchObject({
      error: 'not_a_file',
      path: 'f.txt',
    })
    const open = workspace({}, { confineToWorkspace: false }).tools
    expect(JSON.parse(ok(await open.callTool('bash', { command: 'pwd', cwd: '/' }))).stdout).toBe(
      '/\n',
    )
  })

  it('runs an empty command as sh does, and refuses bad arguments', async () => {
    const { tools } = workspace()
    // CONTRACT.md "Schema bounds" puts no bound on `command`: `sh -c ""` exits 0.
    for (const command of ['', '   ']) {
      expect(JSON.parse(ok(await tools.callTool('bash', { command })))).toEqual({
        exit_code: 0,
        stdout: '',
        stderr: '',
        signal: null,
        timed_out: false,
      })
    }
    expect(err(await tools.callTool('bash', {})).error).toBe('invalid_input')
    expect(err(await tools.callTool('bash', { command: 'true', timeout_ms: 0 })).error).toBe(
      'invalid_input',
    )
    expect(err(await tools.callTool('bash', { command: 'true', shell: 'zsh' })).error).toBe(
      'invalid_input',
    )
    expect(
      JSON.parse(ok(await tools.callTool('bash', { command: 'true', timeout_ms: '500' }))),
    ).toMatchObject({ exit_code: 0 })
  })

  it('times out with the default timeout, keeping partial output', async () => {
    const { tools } = workspace({}, { bashTimeoutMs: 1000 })
    const e = err(await tools.callTool('bash', { command: 'echo before; echo e >&2; sleep 20' }))
    expect(e).toMatchObject({
      error: 'timeout',
      timeout_ms: 1000,
      stdout: 'before\n',
      stderr: 'e\n',
    })
    // CONTRACT-v0.5 §6: the `timeout` message `Command exceeded <ms>ms` is the seed's, unchanged.
    expect(e.message).toBe('Command exceeded 1000ms')
  })

  it('honours a per-call timeout and clamps one above the maximum', async () => {
    const { tools } = workspace({}, { bashTimeoutMs: 100, bashTimeoutMaxMs: 400 })
    expect(
      err(await tools.callTool('bash', { command: 'sleep 20', timeout_ms: 200 })),
    ).toMatchObject({ error: 'timeout', timeout_ms: 200 })
    const e = err(await tools.callTool('bash', { command: 'sleep 20', timeout_ms: 100000 }))
    expect(e).toMatchObject({ error: 'timeout', timeout_ms: 400 })
    expect(e.message).toBe('Command exceeded 400ms')
    // A longer per-call timeout lets a command finish that the default would kill.
    expect(
      JSON.parse(
        ok(await tools.callTool('bash', { command: 'sleep 0.2; echo done', timeout_ms: 5000 })),
      ),
    ).toMatchObject({ stdout: 'done\n' })
  })

  it('kills the whole group on timeout: a child and a grandchild are gone', async () => {
    // Generous: both pids must be printed before the deadline even on a busy machine.
    const { tools } = workspace({}, { bashTimeoutMs: 2000 })
    const e = err(
      await tools.callTool('bash', {
        command: "sleep 60 & echo $!; sh -c 'sleep 60 & echo $!; wait' & sleep 60",
      }),
    )
    expect(e.error).toBe('timeout')
    const pids = pidsIn(String(e.stdout))
    expect(pids).toHaveLength(2)
    expect(await survivors(pids)).toEqual([])
  })

  it('does not hang on a background child holding the pipes; the JSON keeps its five keys', async () => {
    const { tools } = workspace()
    const r: Report = JSON.parse(
      ok(await tools.callTool('bash', { command: 'sleep 60 & echo $!', timeout_ms: 60000 })),
    )
    const [pid] = pidsIn(r.stdout)
    // CONTRACT.md "bash": the success text is {"exit_code","stdout","stderr","signal","timed_out"}.
    expect(r).toEqual({
      exit_code: 0,
      stdout: `${pid}\n`,
      stderr: '',
      signal: null,
      timed_out: false,
    })
    expect(alive(pid)).toBe(true)
    killAll([pid])
    expect(await survivors([pid])).toEqual([])
  })

  it('names the background child with extras at the root', async () => {
    const root = tempDir()
    const tools = createRoot({ workspaceRoot: root, extras: true })
    const r: Report = JSON.parse(
      contentText(
        (await tools.callTool('bash', { command: 'sleep 60 & echo $!', timeout_ms: 60000 }))
          .content,
      ),
    )
    const [pid] = pidsIn(r.stdout)
    expect(r.background_pids).toEqual([pid])
    killAll([pid])
    expect(await survivors([pid])).toEqual([])
  })

  it('does not hang on a daemon that left the group but holds the pipes', async () => {
    const { tools } = workspace()
    const r: Report = JSON.parse(
      ok(await tools.callTool('bash', { command: 'setsid sleep 60 & echo $!', timeout_ms: 60000 })),
    )
    const [pid] = pidsIn(r.stdout)
    expect(alive(pid)).toBe(true)
    expect(r.background_pids).toBeUndefined()
    killAll([pid])
    expect(await survivors([pid])).toEqual([])
  })

  it('keeps waiting on the other stream when a command closes stdout early', async () => {
    const r = await run('exec 1>&-; sleep 0.2; echo tail >&2; exit 4')
    expect(r).toMatchObject({ exit_code: 4, stdout: '', stderr: 'tail\n' })
  })

  it('fails with output_limit when a stream passes the capture ceiling', async () => {
    const { root, tools } = workspace()
    const result = await tools.callTool('bash', { command: 'yes' })
    const e = err(result)
    // CONTRACT-v0.5 §6: the `output_limit` message is the seed's, unchanged.
    expect(e).toMatchObject({
      error: 'output_limit',
      message: 'Command output exceeded 8388608 bytes on a single stream and was killed',
      max_capture_bytes: 8 * 1024 * 1024,
    })
    expect(e).not.toHaveProperty('stream')
    // The envelope's stdout is the same head a success shows: maxOutputBytes of it.
    const stdout = String(e.stdout)
    expect(stdout.slice(0, 131072)).toBe('y\n'.repeat(65536))
    expect(stdout.slice(131072)).toMatch(
      /^\n\[\.\.\. output truncated: 131072 of 8388608 bytes shown; full output written to /,
    )
    const rel = /full output written to (\S+) \.\.\.\]$/.exec(stdout)?.[1]
    expect(rel).toBeDefined()
    expect(statSync(join(root, String(rel))).size).toBe(8 * 1024 * 1024)
  })

  it('raises the capture ceiling with maxOutputBytes', async () => {
    const { tools } = workspace({}, { maxOutputBytes: 24 * 1024 * 1024 })
    const r: Report = JSON.parse(
      ok(await tools.callTool('bash', { command: 'yes | head -c 10000000' })),
    )
    expect(r.stdout.length).toBe(10_000_000)
    expect(r.stdout.slice(0, 6)).toBe('y\ny\ny\n')
    // Large non-ASCII output takes the other way into JavaScript; it must arrive intact too.
    const u: Report = JSON.parse(
      ok(await tools.callTool('bash', { command: "yes 'héllo wörld' | head -n 200000" })),
    )
    expect(u.stdout).toBe('héllo wörld\n'.repeat(200_000))
  })

  it('splits the display budget: a stream under half keeps all of it', async () => {
    const { root, tools } = workspace({}, { maxOutputBytes: 4096 })
    const text = ok(
      await tools.callTool('bash', {
        command: 'yes abcdefghi | head -c 10000; echo small >&2',
      }),
    )
    // CONTRACT.md "bash": the split is of the captured bytes; stderr (6) is under half, so
    // stdout shows 4096 - 6 bytes, its head.
    const r: Report = JSON.parse(text)
    expect(r.stderr).toBe('small\n')
    const m =
      /\n\[\.\.\. output truncated: (\d+) of 10000 bytes shown; full output written to (\.clarvis\/bash-\S+\.stdout\.log) \.\.\.\]$/.exec(
        r.stdout,
      )
    expect(m).not.toBeNull()
    const shown = Number(m?.[1])
    const full = 'abcdefghi\n'.repeat(1000)
    expect(shown).toBe(4090)
    expect(r.stdout.slice(0, shown)).toBe(full.slice(0, shown))
    expect(readFileSync(join(root, String(m?.[2])), 'utf8')).toBe(full)
  })

  it('splits the display budget evenly when both streams are large', async () => {
    const { tools } = workspace({}, { maxOutputBytes: 4096 })
    const text = ok(
      await tools.callTool('bash', {
        command: 'yes out | head -c 9000; yes err | head -c 9000 >&2',
      }),
    )
    const r: Report = JSON.parse(text)
    expect(r.stdout).toMatch(
      /^(out\n)+o?u?\n\[\.\.\. output truncated: 2048 of 9000 bytes shown; full output written to \.clarvis\/bash-\S+\.stdout\.log \.\.\.\]$/,
    )
    expect(r.stderr).toMatch(
      /^(err\n)+e?r?\n\[\.\.\. output truncated: 2048 of 9000 bytes shown; full output written to \.clarvis\/bash-\S+\.stderr\.log \.\.\.\]$/,
    )
  })

  it('writes spill files under .clarvis/ with a .gitignore of *', async () => {
    const { root, tools } = workspace({}, { maxOutputBytes: 2048 })
    ok(await tools.callTool('bash', { command: 'seq 1 5000' }))
    expect(readFileSync(join(root, '.clarvis/.gitignore'), 'utf8')).toBe('*\n')
    const spills = readdirSync(join(root, '.clarvis')).filter((f) => f.startsWith('bash-'))
    expect(spills).toHaveLength(1)
    expect(spills[0]).toMatch(/^bash-.+\.stdout\.log$/)
    const full = execFileSync('seq', ['1', '5000']).toString()
    expect(readFileSync(join(root, '.clarvis', spills[0]), 'utf8')).toBe(full)
    // The search tools never show it: the directory is internal.
  })

  it('shows output within the budget whole: long lines, newlines and escapes included', async () => {
    const { root, tools } = workspace({}, { maxOutputBytes: 8192 })
    // CONTRACT.md "bash" cuts only a stream over its share of the budget, counted in captured
    // bytes: neither a 5000-character line nor JSON escapes count against it.
    for (const [command, stdout] of [
      ["head -c 5000 /dev/zero | tr '\\0' x; echo; echo end", `${'x'.repeat(5000)}\nend\n`],
      ['seq 1 1700', `${Array.from({ length: 1700 }, (_, i) => i + 1).join('\n')}\n`],
      ['head -c 8192 /dev/zero', '\0'.repeat(8192)],
    ]) {
      expect(JSON.parse(ok(await tools.callTool('bash', { command }))).stdout).toBe(stdout)
    }
    expect(existsSync(join(root, '.clarvis'))).toBe(false)
  })

  it('shows binary and invalid UTF-8 output with replacement characters', async () => {
    const r = await run("printf 'a\\000b\\377c'")
    expect(r).toMatchObject({ exit_code: 0, stdout: 'a\u0000b\uFFFDc' })
  })

  it('sweepSpillDir removes old spill files, keeps fresh ones, never rejects', async () => {
    const root = tempDir()
    const dir = join(root, '.clarvis')
    mkdirSync(dir)
    for (const f of ['bash-old.stdout.log', 'bash-new.stdout.log', 'notes.txt']) {
      writeFileSync(join(dir, f), 'x')
    }
    const twoDaysAgo = new Date(Date.now() - 2 * 24 * 3600 * 1000)
    utimesSync(join(dir, 'bash-old.stdout.log'), twoDaysAgo, twoDaysAgo)
    utimesSync(join(dir, 'notes.txt'), twoDaysAgo, twoDaysAgo)
    await sweepSpillDir(root)
    expect(existsSync(join(dir, 'bash-old.stdout.log'))).toBe(false)
    expect(existsSync(join(dir, 'bash-new.stdout.log'))).toBe(true)
    expect(existsSync(join(dir, 'notes.txt'))).toBe(true)
    await expect(sweepSpillDir(join(root, 'missing'))).resolves.toBeUndefined()
  })

  it.each([
    ['a natural exit', ''],
    ['process.exit()', 'process.exit(0)'],
    ['SIGKILL', "process.kill(process.pid, 'SIGKILL')"],
    ['SIGTERM', "process.kill(process.pid, 'SIGTERM')"],
  ])('leaves no background process behind after the host dies by %s', async (_, ending) => {
    const script = `
      const { createAgentTools } = require(${JSON.stringify(repoRoot)})
      const t = createAgentTools({ workspaceRoot: ${JSON.stringify(tempDir())} })
      t.callTool('bash', { command: 'sleep 60 & echo $!; setsid sleep 60 & echo $!' }).then((r) => {
        process.stdout.write(JSON.parse(r.text).stdout, () => { ${ending} })
      })`
    const out = await hostOutput(script)
    const pids = pidsIn(out)
    expect(pids).toHaveLength(2)
    const left = await survivors(pids, 5000)
    killAll(left)
    expect(left).toEqual([])
  })

  it('runs the sh that PATH names now: after PATH changes, and after the one found is removed', async () => {
    const dir = tempDir()
    const [one, two] = ['one', 'two'].map((name) => {
      const bin = join(dir, name)
      mkdirSync(bin)
      writeFileSync(join(bin, 'sh'), `#!/bin/sh\necho ${name}\n`, { mode: 0o755 })
      return bin
    })
    const script = `
      const { createAgentTools } = require(${JSON.stringify(repoRoot)})
      const fs = require('node:fs')
      const t = createAgentTools({ workspaceRoot: ${JSON.stringify(dir)} })
      const run = async () => JSON.parse((await t.callTool('bash', { command: 'true' })).text).stdout
      ;(async () => {
        const seen = []
        process.env.PATH = ${JSON.stringify(one)} + ':' + process.env.PATH
        seen.push(await run(), await run())
        process.env.PATH = ${JSON.stringify(two)} + ':' + process.env.PATH
        seen.push(await run())
        fs.rmSync(${JSON.stringify(join(two, 'sh'))})
        seen.push(await run())
        process.stdout.write(JSON.stringify(seen))
      })()`
    const out = execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' })
    // Once two/sh is gone, the next sh on PATH runs.
    expect(JSON.parse(out)).toEqual(['one\n', 'one\n', 'two\n', 'one\n'])
    // `$0` is the bare name, as when exec searches PATH itself.
    expect(await run('echo $0')).toMatchObject({ stdout: 'sh\n' })
  })

  it("a worker thread's exit leaves the host's background processes; the host's exit ends them", async () => {
    const script = `
      const { createAgentTools } = require(${JSON.stringify(repoRoot)})
      const { Worker } = require('node:worker_threads')
      const t = createAgentTools({ workspaceRoot: ${JSON.stringify(tempDir())} })
      t.callTool('bash', { command: 'sleep 60 >/dev/null 2>&1 & echo $!' }).then((r) => {
        const pid = Number(JSON.parse(r.text).stdout.trim())
        const w = new Worker('require(' + JSON.stringify(${JSON.stringify(repoRoot)}) + ')', { eval: true })
        w.on('exit', () => {
          let alive = true
          try { process.kill(pid, 0) } catch { alive = false }
          process.stdout.write(JSON.stringify({ pid, alive }))
        })
      })`
    const out = await hostOutput(script)
    const { pid, alive: aliveAfterWorker } = JSON.parse(out)
    const left = await survivors([pid], 5000)
    killAll(left)
    expect(aliveAfterWorker).toBe(true)
    expect(left).toEqual([])
  })

  it('kills a running command whose process dropped the host mark when the host is SIGKILLed', async () => {
    // `env -i` clears the environment, mark included: only the group the watchdog was told of
    // can find this sleep once the host is gone.
    const dir = tempDir()
    const script = `
      const { createAgentTools } = require(${JSON.stringify(repoRoot)})
      const fs = require('node:fs')
      const t = createAgentTools({ workspaceRoot: ${JSON.stringify(dir)} })
      t.callTool('bash', { command: 'env -i /bin/sh -c "echo \\\\$\\\\$ > pid; exec sleep 60"' })
      const wait = setInterval(() => {
        if (!fs.existsSync(${JSON.stringify(join(dir, 'pid'))})) return
        clearInterval(wait)
        setTimeout(() => process.kill(process.pid, 'SIGKILL'), 100)
      }, 5)`
    const child = spawn(process.execPath, ['-e', script], {
      stdio: ['ignore', 'ignore', 'inherit'],
    })
    await new Promise((resolve) => child.on('close', resolve))
    const pids = pidsIn(readFileSync(join(dir, 'pid'), 'utf8'))
    expect(pids).toHaveLength(1)
    const left = await survivors(pids, 5000)
    killAll(left)
    expect(left).toEqual([])
  })
})
