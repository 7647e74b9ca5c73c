// Runs the CLI as a user does: `node cli.js ...` in a child process.
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { OPTIONS } from '../cli-options.js'

export const CLI = join(__dirname, '..', 'cli.js')

/** The contract's mutating tools. Under read-only each is hidden, whether built yet or not. */
export const MUTATING_TOOL_NAMES = ['write_file', 'edit_file', 'multi_edit', 'apply_patch', 'bash']

export interface CliRun {
  code: number | null
  stdout: string
  stderr: string
}

/** Every environment variable the CLI documents (cli-options.js). */
export const ENV_VARS: string[] = OPTIONS.flatMap((o: { env?: string }) => (o.env ? [o.env] : []))

/** The environment a CLI child gets: this process's, minus the variables buildConfig reads. */
export function cleanEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {}
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined) env[k] = v
  }
  for (const k of ENV_VARS) delete env[k]
  return { ...env, ...extra }
}

/** Runs `node cli.js ...args`; `input` is written to its stdin (which is then closed). */
export function runCli(
  args: string[],
  options: { env?: Record<string, string>; cwd?: string; input?: string } = {},
): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      env: cleanEnv(options.env),
      cwd: options.cwd,
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (d) => {
      stdout += d
    })
    child.stderr.setEncoding('utf8').on('data', (d) => {
      stderr += d
    })
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout, stderr }))
    child.stdin.end(options.input ?? '')
  })
}
