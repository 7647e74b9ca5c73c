// Item 2 of issue 28: the shell each bash-like tool runs. The surfaces whose vendor tool is a
// bash tool run bash (models trained on them write bash: `[[ … ]]`, `{1..3}`); the codex
// `shell` executes its argument vector as Codex does; the root's `bash` keeps the contract's
// `sh -c` unless the `shell` option says otherwise; a missing bash is named in the result.
import { spawnSync } from 'node:child_process'
import { existsSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { contentText, createAgentTools } from '../index.js'
import { runCli } from './cli-helpers'
import { tempDir } from './helpers'

/** Runs only in bash: a `[[ ]]` test and a brace expansion. */
const BASHISM = '[[ 1 == 1 ]] && echo {1..3}'
const hasBash = spawnSync('bash', ['-c', 'true']).status === 0

describe.skipIf(process.platform === 'win32' || !hasBash)('the shells of the bash tools', () => {
  it('claude-code Bash runs bash', async () => {
    const agent = createAgentTools({ workspaceRoot: tempDir(), surface: 'claude-code' })
    const r = await agent.callTool('Bash', { command: BASHISM })
    expect(r.isError).toBe(false)
    expect(r.text).toBe('1 2 3')
    expect((await agent.callTool('Bash', { command: 'echo $0' })).text).toBe('bash')
  })

  it('anthropic bash runs bash', async () => {
    const agent = createAgentTools({ workspaceRoot: tempDir(), surface: 'anthropic' })
    const r = await agent.callTool('bash', { command: BASHISM })
    expect(r.isError).toBe(false)
    expect(r.text).toBe('1 2 3\n')
  })

  it('the codex shell executes its argument vector itself, as Codex does', async () => {
    const agent = createAgentTools({ workspaceRoot: tempDir(), surface: 'codex' })
    const r = await agent.callTool('shell', { command: ['bash', '-lc', BASHISM] })
    expect(r.isError).toBe(false)
    expect(r.text).toMatch(/^Exit code: 0\n.*\nOutput:\n1 2 3\n$/s)
    // Each element is one argument, expanded by nothing.
    const literal = await agent.callTool('shell', { command: ['printf', '%s|', '$HOME', 'a b'] })
    expect(literal.text).toMatch(/Output:\n\$HOME\|a b\|$/)
    if (existsSync('/proc/self/comm')) {
      // No shell in between: the program's parent is this process, not an `sh`.
      const parent = await agent.callTool('shell', {
        command: ['sh', '-c', 'cat /proc/$PPID/comm'],
      })
      expect(parent.text).not.toMatch(/Output:\nsh\n/)
    }
  })

  it("the root's bash keeps sh -c, and runs the shell the `shell` option names", async () => {
    const root = tempDir()
    const plain = await createAgentTools({ workspaceRoot: root }).callTool('bash', {
      command: 'echo $0',
    })
    expect(JSON.parse(contentText(plain.content)).stdout).toBe('sh\n')
    const agent = createAgentTools({ workspaceRoot: root, shell: 'bash' })
    expect(agent.config.shell).toBe('bash')
    const r = await agent.callTool('bash', { command: BASHISM })
    expect(JSON.parse(r.text)).toMatchObject({ exit_code: 0, stdout: '1 2 3\n' })
  })

  it('the CLI takes --shell and BASH_SHELL', async () => {
    const root = tempDir()
    const args = ['call', 'bash', '{"command": "echo $0"}', '--workspace', root]
    const byFlag = await runCli([...args, '--shell', 'bash'])
    expect(JSON.parse(byFlag.stdout).stdout).toBe('bash\n')
    const byEnv = await runCli(args, { env: { BASH_SHELL: 'bash' } })
    expect(JSON.parse(byEnv.stdout).stdout).toBe('bash\n')
    expect(JSON.parse((await runCli(args)).stdout).stdout).toBe('sh\n')
    const empty = await runCli(args, { env: { BASH_SHELL: ' ' } })
    expect(empty.code).toBe(2)
    expect(empty.stderr).toContain('BASH_SHELL must name a shell program')
  })

  it('says so in the result where bash is missing (a PATH without bash)', () => {
    const bin = tempDir('atn-nobash-')
    symlinkSync('/bin/sh', join(bin, 'sh'))
    const script = `
      const { createAgentTools, dispatch } = require(${JSON.stringify(join(__dirname, '..', 'index.js'))})
      const root = ${JSON.stringify(tempDir())}
      ;(async () => {
        const cc = await createAgentTools({ workspaceRoot: root, surface: 'claude-code' })
          .callTool('Bash', { command: 'echo hi' })
        const plain = await createAgentTools({ workspaceRoot: root }).callTool('bash', { command: 'echo hi' })
        // A caller-built config is not checked: the call says it.
        const chosen = await dispatch('bash', { command: 'echo hi' }, { workspaceRoot: root, shell: 'bash' })
        let refused = ''
        try {
          createAgentTools({ workspaceRoot: root, shell: 'bash' })
        } catch (err) {
          refused = err.name + ': ' + err.message
        }
        console.log(JSON.stringify({ cc, plain: plain.text, chosen, refused }))
      })()`
    const run = spawnSync(process.execPath, ['-e', script], {
      env: { PATH: bin },
      encoding: 'utf8',
    })
    expect(run.stderr).toBe('')
    const { cc, plain, chosen, refused } = JSON.parse(run.stdout)
    // The option is checked when the config is made.
    expect(refused).toMatch(/^StartupError: shell "bash" is not installed \(not found on PATH\)/)
    expect(cc.isError).toBe(true)
    expect(cc.content[0].text).toMatch(/^bash is not installed \(not found on PATH\)/)
    expect(cc.content[0].text).toContain('apt-get install bash')
    expect(JSON.parse(plain)).toMatchObject({ exit_code: 0, stdout: 'hi\n' })
    expect(chosen.isError).toBe(true)
    expect(JSON.parse(chosen.content[0].text)).toMatchObject({
      error: 'io_error',
      shell: 'bash',
    })
  })
})
