// Shared fixtures for the contract tests: temporary workspaces and result parsing.
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, afterEach, beforeEach } from 'vitest'
import {
  type AgentTools,
  type AgentToolsOptions,
  createAgentTools,
  type DispatchResult,
} from '../v0.1/index.js'

const made: string[] = []
afterAll(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true })
})

/** A fresh temporary directory, removed after the test file. */
export function tempDir(prefix = 'atn-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  made.push(dir)
  return dir
}

/**
 * A copy of the package's entry files (`package.json`, the JavaScript entries, the addon) in a
 * directory every user may read, for tests that run the package as an unprivileged user: the
 * checkout itself may sit in a private directory (CI clones into a `mktemp -d`). Made once per
 * test file, removed after it.
 */
let packageCopy: string | undefined
export function packageForAnyUser(): string {
  if (packageCopy) return packageCopy
  const repo = join(__dirname, '..')
  const dir = mkdtempSync(join('/var/tmp', 'atn-package-'))
  made.push(dir)
  chmodSync(dir, 0o755)
  for (const name of readdirSync(repo)) {
    if (name === 'package.json' || name.endsWith('.js') || name.endsWith('.node')) {
      writeFileSync(join(dir, name), readFileSync(join(repo, name)))
      chmodSync(join(dir, name), 0o644)
    }
  }
  packageCopy = dir
  return dir
}

/** Writes `files` (relative path → content) under `root`, creating parent directories. */
export function writeTree(root: string, files: Record<string, string | Uint8Array>): void {
  for (const [rel, content] of Object.entries(files)) {
    const abs = join(root, rel)
    mkdirSync(dirname(abs), { recursive: true })
    writeFileSync(abs, content)
  }
}

/** A workspace holding `files`, with tools bound to it. */
export function workspace(
  files: Record<string, string | Uint8Array> = {},
  options: Omit<AgentToolsOptions, 'workspaceRoot'> = {},
): { root: string; tools: AgentTools } {
  const root = tempDir()
  writeTree(root, files)
  return { root, tools: createAgentTools({ workspaceRoot: root, ...options }) }
}

/** The success text of a result; fails the test with the envelope otherwise. */
export function ok(result: DispatchResult): string {
  if (result.isError) throw new Error(`expected success, got ${result.text}`)
  return result.text
}

/** The parsed envelope of an error result; fails the test on success. */
export function err(
  result: DispatchResult,
): { error: string; message: string } & Record<string, unknown> {
  if (!result.isError) throw new Error(`expected an error, got ${result.text}`)
  return JSON.parse(result.text)
}

/**
 * Points HOME at a fresh empty directory for each test of the enclosing suite, so the git
 * ignore stack never reads the real user's global excludes file.
 */
export function isolateGitHome(): void {
  const saved = { HOME: process.env.HOME, XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME }
  beforeEach(() => {
    process.env.HOME = tempDir('atn-home-')
    delete process.env.XDG_CONFIG_HOME
  })
  afterEach(() => {
    process.env.HOME = saved.HOME
    if (saved.XDG_CONFIG_HOME === undefined) delete process.env.XDG_CONFIG_HOME
    else process.env.XDG_CONFIG_HOME = saved.XDG_CONFIG_HOME
  })
}

/** Whether `pid` is a live (non-zombie) process. */
export function alive(pid: number): boolean {
  if (!existsSync('/proc/self/stat')) {
    // No /proc (macOS): signal 0 tells whether the process exists.
    try {
      process.kill(pid, 0)
      return true
    } catch (err) {
      return (err as NodeJS.ErrnoException).code === 'EPERM'
    }
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0]
    return state !== 'Z' && state !== 'X'
  } catch {
    return false
  }
}

/** Waits (up to 5 s) for `pid` to be gone; returns whether it is. */
export async function gone(pid: number): Promise<boolean> {
  for (let i = 0; i < 100 && alive(pid); i++) await new Promise((r) => setTimeout(r, 50))
  return !alive(pid)
}

/** Waits (up to 5 s) for a command to have written its pid to `file`; returns it. */
export async function pidIn(file: string): Promise<number> {
  for (let i = 0; i < 200 && !existsSync(file); i++) await new Promise((r) => setTimeout(r, 25))
  return Number(readFileSync(file, 'utf8').trim())
}
