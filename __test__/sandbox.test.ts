// The kernel-enforced sandbox of bash and the monitors, through the public API. Every escape
// attempt is judged by what is on disk (bytes and metadata of a directory outside the
// workspace, and of $HOME) or on the wire (loopback listeners), never by the command's output.
import { execFileSync, spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { createSocket } from 'node:dgram'
import {
  chmodSync,
  chownSync,
  closeSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type AgentTools, createAgentTools, resolveConfig, StartupError } from '../index.js'
import { packageForAnyUser } from './helpers'

const linux = process.platform === 'linux'
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

// Everything lives outside the temp directory, which sandboxed commands may write.
const base = linux ? mkdtempSync('/var/tmp/atn-sandbox-') : ''
const savedHome = process.env.HOME
afterAll(() => {
  process.env.HOME = savedHome
  if (base) rmSync(base, { recursive: true, force: true })
})

let counter = 0
function fresh(name: string): string {
  const dir = join(base, `${name}-${counter++}`)
  mkdirSync(dir, { recursive: true })
  return dir
}

type Report = {
  exit_code: number
  stdout: string
  stderr: string
  sandbox?: string
  background_pids?: number[]
}

async function bash(tools: AgentTools, command: string): Promise<Report> {
  const result = await tools.callTool('bash', { command })
  if (result.isError) throw new Error(`bash failed: ${result.text}`)
  return JSON.parse(result.text)
}

/** Every entry beneath `dir`: type, mode, owner, size, times, bytes, xattrs. */
function snapshot(dir: string): string {
  const rows: string[] = []
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name)
      const st = lstatSync(p)
      const bytes = st.isFile() ? createHash('sha256').update(readFileSync(p)).digest('hex') : ''
      rows.push(
        [p, st.mode, st.uid, st.gid, st.size, st.mtimeMs, st.ctimeMs, st.nlink, bytes].join(' '),
      )
      if (st.isDirectory()) walk(p)
    }
  }
  walk(dir)
  const xattrs = execFileSync('python3', [
    '-c',
    'import os,sys\nfor r,ds,fs in os.walk(sys.argv[1]):\n  for n in ds+fs: p=os.path.join(r,n); print(p, os.listxattr(p, follow_symlinks=False))',
    dir,
  ]).toString()
  return `${rows.join('\n')}\n${xattrs}`
}

/** A workspace (a git repository with hooks), an outside directory and a $HOME. */
function setup() {
  const ws = fresh('ws')
  const out = fresh('out')
  const home = fresh('home')
  writeFileSync(join(ws, 'in.txt'), 'inside\n')
  execFileSync('git', ['init', '-q', ws])
  writeFileSync(join(ws, '.git/hooks/pre-commit'), '#!/bin/sh\nexit 0\n')
  chmodSync(join(ws, '.git/hooks/pre-commit'), 0o755)
  writeFileSync(join(out, 'f'), 'keep\n')
  mkdirSync(join(out, 'dir'))
  writeFileSync(join(out, 'dir/g'), 'keep too\n')
  writeFileSync(join(home, '.bashrc'), '# rc\n')
  return { ws, out, home }
}

// Attempts that Landlock + seccomp alone can refuse ({O}: the outside directory).
const CONTENT_ESCAPES = [
  'echo x > {O}/f',
  'echo x >> {O}/f',
  'echo x > {O}/new',
  'cp in.txt {O}/',
  'cp in.txt {O}/dir/g',
  'mv {O}/f moved',
  'mv in.txt {O}/moved',
  'rm -f {O}/f',
  'rm -rf {O}/dir',
  'rmdir {O}/dir',
  'mkdir {O}/newdir',
  'truncate -s 0 {O}/f',
  'mkfifo {O}/fifo',
  'mknod {O}/node c 1 3',
  'ln in.txt {O}/hard',
  'ln {O}/f hard && echo x >> hard',
  'ln -s /etc/passwd {O}/sym',
  'ln -s {O}/f sym && echo x > sym',
  'echo x > /proc/self/root{O}/f',
  'echo x > /proc/$$/root{O}/f',
  `python3 -c "open('{O}/f','w').write('x')"`,
  `python3 -c "import os; os.rename('{O}/f', 'p')"`,
  `perl -e 'open(F, ">", "{O}/f") or die "$!"; print F "x"'`,
  `node -e "require('fs').writeFileSync('{O}/f', 'x')"`,
  'echo x >> ~/.bashrc',
  'echo x > ~/.profile',
  'mkdir -p ~/.config',
  '(sleep 0.4; echo late > {O}/late) > /dev/null 2>&1 &',
  "setsid sh -c 'sleep 0.4; echo x > {O}/setsid' > /dev/null 2>&1 &",
  "nohup sh -c 'sleep 0.4; echo x > {O}/nohup' > /dev/null 2>&1 &",
]

// Metadata changes: refused only where a read-only mount can (namespaces).
const METADATA_ESCAPES = [
  'touch {O}/f',
  'touch -d 2001-01-01 {O}/dir',
  'chmod 777 {O}/f',
  'chown 12345:12345 {O}/f',
  `python3 -c "import os; os.setxattr('{O}/f', 'user.x', b'1')"`,
  `python3 -c "import os; os.utime('{O}/f', (1, 1))"`,
]

const GIT_ESCAPES = [
  'echo x >> .git/hooks/pre-commit',
  'echo x > .git/hooks/post-checkout',
  'rm -f .git/hooks/pre-commit',
  'echo "[core] hooksPath = /tmp" >> .git/config',
  'git config core.fsmonitor "touch /var/tmp/pwned"',
  'mv .git/hooks .git/hooks-old',
  'mv .git .git-old && cp -r .git-old .git && echo x >> .git/hooks/pre-commit; rm -rf .git-old',
  'rm -rf .git',
]

describe.skipIf(!linux).each(['namespaces', 'landlock'] as const)(
  'workspace-write (%s)',
  (mechanism) => {
    let ws: string
    let out: string
    let home: string
    let tools: AgentTools
    beforeAll(() => {
      ;({ ws, out, home } = setup())
      process.env.HOME = home
      tools = createAgentTools({
        workspaceRoot: ws,
        sandbox: 'workspace-write',
        sandboxMechanism: mechanism,
      })
    })
    afterAll(() => {
      process.env.HOME = savedHome
    })

    it("cannot change another process's limits, priority or CPUs, nor type into a terminal", async () => {
      // Judged on the victim: its limits as /proc shows them, from outside the sandbox.
      const victim = spawn('sleep', ['30'], { stdio: 'ignore' })
      try {
        const pid = victim.pid as number
        const limits = () => readFileSync(`/proc/${pid}/limits`, 'utf8')
        const before = limits()
        const r = await bash(
          tools,
          `prlimit --pid ${pid} --nofile=7:7 --cpu=1:1; echo "prlimit=$?"; renice -n 7 -p ${pid} >/dev/null 2>&1; echo "renice=$?"; ` +
            `prlimit --nofile=100:100 true; echo "own=$?"; ` +
            `if command -v python3 >/dev/null; then python3 -c 'import fcntl,termios
try:
    fcntl.ioctl(1, termios.TIOCSTI, b"x"); print("tiocsti=allowed")
except OSError as e:
    print("tiocsti=%d" % e.errno)'; else echo tiocsti=1; fi`,
        )
        expect(r.stdout).toContain('prlimit=1')
        expect(r.stdout).toContain('renice=1')
        expect(r.stdout).toContain('own=0')
        // EPERM (1), where an unsandboxed command gets ENOTTY (25) for a pipe.
        expect(r.stdout).toContain('tiocsti=1')
        expect(limits()).toBe(before)
        expect(readFileSync(`/proc/${pid}/stat`, 'utf8').split(' ')[18]).toBe('0')
      } finally {
        victim.kill('SIGKILL')
      }
    })

    it('a monitor file the command forged makes the host signal nobody', async () => {
      // SPEC, Monitors: with the sandbox on, only a process carrying the monitor's mark is
      // signalled; judged by the victim, a process outside the sandbox.
      const victim = spawn('sleep', ['30'], { stdio: 'ignore', detached: true })
      try {
        const meta = JSON.stringify({
          id: 'mon_deadbeef',
          command: 'x',
          cwd: '/',
          pid: victim.pid,
          startedAt: 1,
        })
        await bash(
          tools,
          `mkdir -p .clarvis && printf '%s' '${meta}' > .clarvis/monitor-mon_deadbeef.json`,
        )
        const monitors = createAgentTools({
          workspaceRoot: ws,
          sandbox: 'workspace-write',
          sandboxMechanism: mechanism,
          extras: true,
        })
        await monitors.callTool('monitor_stop', { id: 'mon_deadbeef' })
        await sleep(600)
        expect(victim.exitCode).toBeNull()
        expect(victim.signalCode).toBeNull()
      } finally {
        victim.kill('SIGKILL')
      }
    })

    it('closes the descriptors its host inherited, so none reaches a file outside', () => {
      // A host whose parent left fd 3 open on a file outside (spawn's extra stdio entry is
      // inherited without close-on-exec); judged by the file's bytes.
      const target = join(out, `inherited-${mechanism}`)
      writeFileSync(target, '')
      const fd = openSync(target, 'a')
      try {
        const script = `const { createAgentTools } = require(${JSON.stringify(join(__dirname, '..', 'index.js'))})
createAgentTools({ workspaceRoot: ${JSON.stringify(ws)}, sandbox: 'workspace-write', sandboxMechanism: ${JSON.stringify(mechanism)} })
  .callTool('bash', { command: 'printf LEAK >&3; echo rc=$?' }).then((r) => process.stdout.write(r.text))`
        const shown = execFileSync(process.execPath, ['-e', script], {
          stdio: ['ignore', 'pipe', 'pipe', fd],
        })
        expect(JSON.parse(shown.toString()).stdout).not.toContain('rc=0')
      } finally {
        closeSync(fd)
      }
      expect(readFileSync(target, 'utf8')).toBe('')
    })

    it('resolves to the mechanism asked for, with the network off', () => {
      expect(tools.config.sandbox).toBe('workspace-write')
      expect(tools.config.sandboxMechanism).toBe(mechanism)
      expect(tools.config.sandboxNetwork).toBe(false)
    })

    const attempts = [
      ...CONTENT_ESCAPES,
      ...(mechanism === 'namespaces' ? [...METADATA_ESCAPES, ...GIT_ESCAPES] : []),
    ]
    it(`refuses ${attempts.length} escape attempts: the outside, $HOME and .git stay byte for byte`, async () => {
      const before = {
        out: snapshot(out),
        home: snapshot(home),
        git: snapshot(join(ws, '.git/hooks')),
      }
      const config = readFileSync(join(ws, '.git/config'))
      for (const attempt of attempts) {
        const report = await bash(tools, attempt.replaceAll('{O}', out))
        expect(report.sandbox, attempt).toMatch(/^sandbox on: workspace-write/)
      }
      await sleep(800) // the late writers
      expect(snapshot(out)).toBe(before.out)
      expect(snapshot(home)).toBe(before.home)
      if (mechanism === 'namespaces') {
        expect(snapshot(join(ws, '.git/hooks'))).toBe(before.git)
        expect(readFileSync(join(ws, '.git/config'))).toEqual(config)
      }
      expect(existsSync('/var/tmp/pwned')).toBe(false)
    })

    it('a refused write is the command own failure, with the errno in its stderr', async () => {
      const report = await bash(tools, `echo x > ${out}/f`)
      expect(report.exit_code).not.toBe(0)
      expect(report.stderr).toMatch(
        /Read-only file system|Permission denied|Operation not permitted/,
      )
    })

    if (mechanism === 'landlock') {
      it('says what Landlock alone does not protect', async () => {
        const report = await bash(tools, 'true')
        expect(report.sandbox).toContain('Landlock + seccomp only')
        expect(report.sandbox).toMatch(/NOT protected: metadata changes .*\.git\/hooks/)
      })
    } else {
      it('says the sandbox is on, in one line', async () => {
        const report = await bash(tools, 'true')
        expect(report.sandbox).toBe(
          'sandbox on: workspace-write (mount namespace + Landlock + seccomp), network off; writes only beneath the workspace, the temp dir and the writable roots',
        )
      })
    }

    it('lets legitimate work through: workspace and temp writes, mktemp, pipelines, git commit, gcc', async () => {
      const script = [
        'set -e',
        'echo hello > a.txt',
        'mkdir -p sub/deeper && mv a.txt sub/deeper/b.txt && cp sub/deeper/b.txt c.txt',
        't=$(mktemp) && echo tmp > "$t" && cat "$t" && rm "$t"',
        'cat c.txt | tr a-z A-Z | sort | head -1',
        'echo devnull > /dev/null',
        'git -c user.name=t -c user.email=t@t add c.txt',
        'git -c user.name=t -c user.email=t@t -c core.hooksPath=/dev/null commit -qm one',
        'git log --oneline | wc -l',
        'printf "#include <stdio.h>\\nint main(void){puts(\\"compiled\\");return 0;}\\n" > m.c',
        'gcc -o m m.c && ./m',
      ].join('\n')
      // A workspace of its own: the escape attempts above may have emptied this one's .git.
      const own = setup().ws
      const boxed = createAgentTools({
        workspaceRoot: own,
        sandbox: 'workspace-write',
        sandboxMechanism: mechanism,
      })
      const report = await bash(boxed, script)
      expect(report.stdout, report.stderr).toBe('tmp\nHELLO\n1\ncompiled\n')
      expect(readFileSync(join(own, 'c.txt'), 'utf8')).toBe('hello\n')
    })

    it('keeps Unix-domain sockets working with the network off', async () => {
      const report = await bash(
        tools,
        `python3 -c "
import socket, os
a, b = socket.socketpair()
a.send(b'pair'); print(b.recv(4).decode())
s = socket.socket(socket.AF_UNIX); s.bind('u.sock'); s.listen()
c = socket.socket(socket.AF_UNIX); c.connect('u.sock'); c.send(b'path')
print(s.accept()[0].recv(4).decode())"`,
      )
      expect(report.stdout).toBe('pair\npath\n')
    })

    it('denies io_uring, ptrace of the host and signals to it', async () => {
      const c = String.raw`#include <stdio.h>
#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
int main(void){ char p[120]={0}; long r=syscall(425,8,p); printf("%ld %s\n", r, r<0?strerror(errno):"ok"); return 0; }`
      writeFileSync(join(ws, 'uring.c'), c)
      const report = await bash(
        tools,
        `gcc -o uring uring.c && ./uring; python3 -c "
import ctypes; libc = ctypes.CDLL(None, use_errno=True)
print(libc.ptrace(16, ${process.pid}, 0, 0), ctypes.get_errno())"; kill -0 ${process.pid} && echo signalled || echo refused`,
      )
      expect(report.stdout).toBe('-1 Operation not permitted\n-1 1\nrefused\n')
    })

    it("keeps the host's kernel keyrings out of reach, and bpf and perf_event_open", async () => {
      // A key added to the user keyring (@u) would be the host's: the keyring is the uid's,
      // shared with every process of it. Judged by the host's own /proc/keys.
      const probe = `atn-sandbox-probe-${process.pid}-${counter++}`
      const report = await bash(
        tools,
        `python3 -c "
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
arm = os.uname().machine == 'aarch64'
add_key, perf_event_open = (217, 241) if arm else (248, 298)
r = libc.syscall(add_key, b'user', b'${probe}', b'secret', 6, ctypes.c_int(-4))
print('add_key', r, ctypes.get_errno())
r = libc.syscall(perf_event_open, None, 0, -1, -1, 0)
print('perf_event_open', r, ctypes.get_errno())"`,
      )
      expect(report.stdout, report.stderr).toBe('add_key -1 1\nperf_event_open -1 1\n')
      expect(readFileSync('/proc/keys', 'utf8')).not.toContain(probe)
    })
  },
)

// The sandbox as most users run it: not as root. A user namespace made by an unprivileged
// user maps only that user, and setgroups is denied first; judged by what lands on disk in a
// directory that same user may write without the sandbox.
const nobody = (() => {
  if (!linux || process.getuid?.() !== 0) return null
  try {
    const uid = Number(execFileSync('id', ['-u', 'nobody'], { encoding: 'utf8' }).trim())
    const gid = Number(execFileSync('id', ['-g', 'nobody'], { encoding: 'utf8' }).trim())
    execFileSync('runuser', ['-u', 'nobody', '--', process.execPath, '-e', '0'])
    return { uid, gid }
  } catch {
    return null
  }
})()

describe.skipIf(!nobody)('as an unprivileged user', () => {
  it('refuses a write outside the workspace that the same user may make without it', () => {
    const user = nobody as { uid: number; gid: number }
    const entry = join(packageForAnyUser(), 'index.js')
    const pkg = fresh('nonroot')
    chmodSync(base, 0o755)
    chmodSync(pkg, 0o755)
    const outside = join(pkg, 'outside')
    mkdirSync(outside)
    chmodSync(outside, 0o777)
    const results: Record<string, string> = {}
    for (const mechanism of ['namespaces', 'landlock', 'off']) {
      const ws = join(pkg, `ws-${mechanism}`)
      mkdirSync(ws)
      chownSync(ws, user.uid, user.gid)
      const script = join(pkg, `run-${mechanism}.cjs`)
      const options =
        mechanism === 'off'
          ? { workspaceRoot: ws }
          : { workspaceRoot: ws, sandbox: 'workspace-write', sandboxMechanism: mechanism }
      writeFileSync(
        script,
        `const { createAgentTools } = require(${JSON.stringify(entry)})
createAgentTools(${JSON.stringify(options)})
  .callTool('bash', { command: 'id -u; echo in > inside.txt; echo out > ${outside}/${mechanism}.txt' })
  .then((r) => process.stdout.write(r.text))`,
      )
      const out = execFileSync('runuser', ['-u', 'nobody', '--', process.execPath, script], {
        encoding: 'utf8',
      })
      results[mechanism] = JSON.parse(out).stdout
      expect(readFileSync(join(ws, 'inside.txt'), 'utf8')).toBe('in\n')
    }
    expect(results).toEqual({
      namespaces: `${user.uid}\n`,
      landlock: `${user.uid}\n`,
      off: `${user.uid}\n`,
    })
    // Without the sandbox the same user wrote there; with it, neither mechanism let it.
    expect(readdirSync(outside).sort()).toEqual(['off.txt'])
  })
})

describe.skipIf(!linux)('network', () => {
  let ws: string
  const received: string[] = []
  let tcpPort = 0
  let udpPort = 0
  const tcp = createServer((sock) => {
    received.push('tcp')
    sock.on('data', (d) => received.push(`tcp:${d}`))
    sock.on('error', () => {})
  })
  const udp = createSocket('udp4')
  beforeAll(async () => {
    ws = fresh('net')
    await new Promise<void>((r) => tcp.listen(0, '127.0.0.1', r))
    tcpPort = (tcp.address() as { port: number }).port
    udp.on('message', (m) => received.push(`udp:${m}`))
    await new Promise<void>((r) => udp.bind(0, '127.0.0.1', r))
    udpPort = udp.address().port
  })
  afterAll(() => {
    tcp.close()
    udp.close()
  })

  const attempts = () => [
    `python3 -c "import socket; socket.create_connection(('127.0.0.1', ${tcpPort}), 2).send(b'x')"`,
    `python3 -c "import socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b'x', ('127.0.0.1', ${udpPort}))"`,
    `python3 -c "import socket; socket.socket(socket.AF_INET6, socket.SOCK_DGRAM).sendto(b'x', ('::ffff:127.0.0.1', ${udpPort}))"`,
    `node -e "require('net').connect(${tcpPort}, '127.0.0.1').on('error', e => { console.error(e.code); process.exit(1) })"`,
    `python3 -c "import socket; socket.socket().bind(('127.0.0.1', 0))"`,
  ]

  for (const mechanism of ['namespaces', 'landlock'] as const) {
    it(`network off (${mechanism}): TCP and UDP listeners on loopback receive nothing`, async () => {
      const tools = createAgentTools({
        workspaceRoot: ws,
        sandbox: 'workspace-write',
        sandboxMechanism: mechanism,
      })
      for (const attempt of attempts()) {
        const report = await bash(tools, attempt)
        expect(report.exit_code, attempt).not.toBe(0)
      }
      await sleep(200)
      expect(received).toEqual([])
    })
  }

  it('network on: TCP connects', async () => {
    const tools = createAgentTools({
      workspaceRoot: ws,
      sandbox: 'workspace-write',
      sandboxNetwork: true,
    })
    expect(tools.config.sandboxNetwork).toBe(true)
    const report = await bash(tools, attempts()[0])
    expect(report.exit_code).toBe(0)
    expect(report.sandbox).toContain('network on')
    const until = Date.now() + 3000
    while (!received.includes('tcp:x') && Date.now() < until) await sleep(20)
    expect(received).toContain('tcp:x')
  })
})

describe.skipIf(!linux)('read-only and writable roots', () => {
  it('read-only refuses writes in the workspace and the temp dir; reads work', async () => {
    const { ws } = setup()
    const tools = createAgentTools({ workspaceRoot: ws, sandbox: 'read-only' })
    const before = snapshot(ws)
    const name = `atn-ro-${process.pid}-${counter++}`
    const report = await bash(
      tools,
      `cat in.txt; echo x > in.txt; echo y > new.txt; mkdir d; touch in.txt; echo z > ${tmpdir()}/${name}; echo ok > /dev/null && echo devnull`,
    )
    expect(report.stdout).toBe('inside\ndevnull\n')
    expect(report.sandbox).toMatch(/^sandbox on: read-only/)
    expect(snapshot(ws)).toBe(before)
    expect(existsSync(join(tmpdir(), name))).toBe(false)
  })

  it('sandboxWritableRoots adds directories that may be written', async () => {
    const ws = fresh('ws')
    const extra = fresh('extra')
    const tools = createAgentTools({
      workspaceRoot: ws,
      sandbox: 'workspace-write',
      sandboxWritableRoots: [extra],
    })
    expect(tools.config.sandboxWritableRoots).toEqual([extra])
    const report = await bash(tools, `echo yes > ${extra}/w && cat ${extra}/w`)
    expect(report.stdout).toBe('yes\n')
  })

  it('monitors run in the same sandbox', async () => {
    const { ws, out } = setup()
    const tools = createAgentTools({ workspaceRoot: ws, sandbox: 'workspace-write' })
    const before = snapshot(out)
    const started = await tools.callTool('monitor_start', {
      command: `echo x > ${out}/f; echo y > ${out}/new; echo inside > mon.txt; echo .git >> .git/hooks/pre-commit; echo done`,
      ready_when: 'done',
    })
    const body = JSON.parse(started.text)
    expect(body.sandbox).toMatch(/^sandbox on: workspace-write/)
    await sleep(300)
    expect(snapshot(out)).toBe(before)
    expect(readFileSync(join(ws, 'mon.txt'), 'utf8')).toBe('inside\n')
    expect(readFileSync(join(ws, '.git/hooks/pre-commit'), 'utf8')).toBe('#!/bin/sh\nexit 0\n')
    await tools.callTool('monitor_stop', { id: body.id })
  })

  it('npm install of a local tarball works in workspace-write', async () => {
    const { ws, home } = setup()
    const pkg = fresh('pkg')
    writeFileSync(
      join(pkg, 'package.json'),
      JSON.stringify({ name: 'atn-local', version: '1.0.0' }),
    )
    writeFileSync(join(pkg, 'index.js'), 'module.exports = 42\n')
    execFileSync('npm', ['pack', '--silent', '--pack-destination', ws], {
      cwd: pkg,
      env: { ...process.env, HOME: home },
    })
    process.env.HOME = home
    try {
      const homeBefore = snapshot(home)
      const tools = createAgentTools({ workspaceRoot: ws, sandbox: 'workspace-write' })
      const report = await bash(
        tools,
        'npm install --offline --no-audit --no-fund ./atn-local-1.0.0.tgz > /dev/null && node -p "require(\'atn-local\')"',
      )
      expect(report.stdout, report.stderr).toBe('42\n')
      expect(snapshot(home)).toBe(homeBefore)
    } finally {
      process.env.HOME = savedHome
    }
  })
})

describe('configuration', () => {
  it('a config shows sandbox keys only when they are set', () => {
    const ws = linux ? fresh('cfg') : tmpdir()
    const plain = resolveConfig({ workspaceRoot: ws })
    expect(Object.keys(plain).filter((k) => k.startsWith('sandbox'))).toEqual([])
    const off = resolveConfig({ workspaceRoot: ws, sandbox: 'off' })
    expect(Object.keys(off).filter((k) => k.startsWith('sandbox'))).toEqual(['sandbox'])
  })

  it.each([
    [{ sandbox: 'bwrap' }, /sandbox must be "off", "read-only" or "workspace-write", got "bwrap"/],
    [{ sandbox: true }, /sandbox must be/],
    [{ sandboxNetwork: 'yes' }, /sandboxNetwork must be a boolean/],
    [{ sandboxWritableRoots: '/tmp' }, /sandboxWritableRoots must be an array/],
    [
      { sandboxWritableRoots: ['relative/dir'] },
      /sandboxWritableRoots must hold absolute directories/,
    ],
    [
      { sandboxWritableRoots: ['/no/such/dir'] },
      /sandboxWritableRoots: \/no\/such\/dir is not an existing directory/,
    ],
    [
      { sandboxMechanism: 'seatbelt' },
      /sandboxMechanism must be "auto", "namespaces" or "landlock"/,
    ],
  ])('refuses %j', (bad, message) => {
    expect(() => resolveConfig({ workspaceRoot: tmpdir(), ...(bad as object) })).toThrow(
      StartupError,
    )
    expect(() => resolveConfig({ workspaceRoot: tmpdir(), ...(bad as object) })).toThrow(message)
  })
})
