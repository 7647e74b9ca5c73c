import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createAgentTools, readOnlyTools, tools } from '../index.js'
import { MUTATING_TOOL_NAMES, runCli } from './cli-helpers'
import { tempDir, writeTree } from './helpers'

function fixture(): string {
  const root = tempDir('atn-cli-')
  writeTree(root, { 'a.txt': 'one\ntwo\n', 'src/b.ts': 'export {}\n' })
  return root
}

const { version } = JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8'))

describe('cli --help and --version', () => {
  it('prints the usage with every command on stdout, exit 0', async () => {
    for (const args of [['--help'], ['-h'], ['help']]) {
      const r = await runCli(args)
      expect(r.code).toBe(0)
      expect(r.stderr).toBe('')
      expect(r.stdout).toMatch(/^Usage: agent-tools-native <command>/)
      for (const word of ['list', 'call <tool> [json]', 'mcp', '--workspace', '--read-only']) {
        expect(r.stdout).toContain(word)
      }
      expect(r.stdout).toContain('--allow-outside-workspace')
      expect(r.stdout).toContain('Exit status')
    }
  })

  it('has a help page per command, by flag or by `help <command>`', async () => {
    for (const command of ['list', 'call', 'mcp']) {
      const byFlag = await runCli([command, '--help'])
      expect(byFlag.code).toBe(0)
      expect(byFlag.stdout).toMatch(new RegExp(`^Usage: agent-tools-native ${command}`))
      const byCommand = await runCli(['help', command])
      expect(byCommand).toEqual(byFlag)
    }
  })

  it('help help prints the usage of help itself', async () => {
    const r = await runCli(['help', 'help'])
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/^Usage: agent-tools-native help \[command\]/)
    expect(await runCli(['help', '--help'])).toEqual(await runCli(['--help']))
  })

  it('help mcp says monitors outlive the client and a deleted session', async () => {
    const r = await runCli(['help', 'mcp'])
    expect(r.stdout).toMatch(/Monitors \(monitor_start\) are\s+not calls: they outlive the server/)
    expect(r.stdout).toMatch(/DELETE ends a session and cancels its running calls; its monitors/)
    expect(r.stdout).toContain(
      'agent-tools-native: MCP server listening on http://<host>:<port>/mcp',
    )
  })

  it('prints the package version', async () => {
    const r = await runCli(['--version'])
    expect(r).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' })
    expect(await runCli(['-v'])).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' })
  })
})

describe('cli list', () => {
  it('prints the active surface as JSON, the same as listTools', async () => {
    const root = fixture()
    const r = await runCli(['list', '--workspace', root])
    expect(r.code).toBe(0)
    // The CLI offers the tools beyond the contract too (the library's `extras: true`).
    expect(JSON.parse(r.stdout)).toEqual(
      createAgentTools({ workspaceRoot: root, extras: true }).listTools(),
    )
    expect(JSON.parse(r.stdout).map((t: { name: string }) => t.name)).toContain('monitor_send')
  })

  it('--no-extras lists exactly the contract tools', async () => {
    const root = fixture()
    const r = await runCli(['list', '--no-extras', '--workspace', root])
    expect(r.code).toBe(0)
    expect(JSON.parse(r.stdout)).toEqual(createAgentTools({ workspaceRoot: root }).listTools())
    expect(JSON.parse(r.stdout).map((t: { name: string }) => t.name)).toEqual(
      tools.map((t) => t.name),
    )
  })

  it('hides every mutating tool with --read-only or READ_ONLY', async () => {
    const root = fixture()
    // The contract's read-only tools and the read-only extras (the CLI offers extras).
    const readOnlyNames = createAgentTools({ workspaceRoot: root, extras: true, readOnly: true })
      .listTools()
      .map((t) => t.name)
    expect(readOnlyNames).toEqual(expect.arrayContaining(readOnlyTools.map((t) => t.name)))
    for (const run of [
      runCli(['list', '--read-only', '--workspace', root]),
      runCli(['list'], { env: { READ_ONLY: 'yes', WORKSPACE_ROOT: root } }),
    ]) {
      const r = await run
      expect(r.code).toBe(0)
      const names = JSON.parse(r.stdout).map((t: { name: string }) => t.name)
      expect(names).toEqual(readOnlyNames)
      for (const name of MUTATING_TOOL_NAMES) expect(names).not.toContain(name)
    }
  })
})

describe('cli call', () => {
  it('prints the result text, exit 0', async () => {
    const root = fixture()
    const r = await runCli(['call', 'read_file', '{"path": "a.txt"}', '--workspace', root])
    expect(r).toEqual({ code: 0, stdout: '     1\tone\n     2\ttwo\n', stderr: '' })
    const dir = await runCli([`--workspace=${root}`, 'call', 'list_dir'])
    expect(dir.code).toBe(0)
    expect(dir.stdout).toBe('src/\na.txt\t8\n')
  })

  it('prints the error envelope with exit 1 on an error result', async () => {
    const root = fixture()
    const r = await runCli(['call', 'read_file', '{"path": "nope.txt"}', '--workspace', root])
    expect(r.code).toBe(1)
    expect(JSON.parse(r.stdout)).toMatchObject({ error: 'not_found', path: 'nope.txt' })
    const unknown = await runCli(['call', 'no_such_tool', '{}', '--workspace', root])
    expect(unknown.code).toBe(1)
    // The contract's envelope, with the help beside it (the tools there are).
    expect(JSON.parse(unknown.stdout)).toMatchObject({
      error: 'not_found',
      message: 'Unknown tool: no_such_tool',
      available: expect.arrayContaining(['read_file', 'bash']),
    })
    const invalid = await runCli(['call', 'read_file', '{"path": [3]}', '--workspace', root])
    expect(invalid.code).toBe(1)
    expect(JSON.parse(invalid.stdout)).toEqual({
      error: 'invalid_input',
      message: 'data/path must be string',
    })
  })

  it('takes the workspace from WORKSPACE_ROOT, else the current directory; the flag wins', async () => {
    const root = fixture()
    const other = tempDir('atn-cli-other-')
    const args = ['call', 'read_file', '{"path": "a.txt"}']
    expect((await runCli(args, { env: { WORKSPACE_ROOT: root } })).code).toBe(0)
    expect((await runCli(args, { cwd: root })).code).toBe(0)
    expect((await runCli(args, { cwd: other })).code).toBe(1)
    const flagWins = await runCli([...args, '--workspace', root], {
      env: { WORKSPACE_ROOT: other },
    })
    expect(flagWins.code).toBe(0)
  })

  it('confines paths to the workspace unless --allow-outside-workspace', async () => {
    const root = fixture()
    const outside = tempDir('atn-cli-out-')
    writeTree(outside, { 'secret.txt': 'x\n' })
    const args = ['call', 'read_file', JSON.stringify({ path: join(outside, 'secret.txt') })]
    const confined = await runCli([...args, '--workspace', root])
    expect(confined.code).toBe(1)
    expect(JSON.parse(confined.stdout).error).toBe('path_escape')
    const allowed = await runCli([...args, '--workspace', root, '--allow-outside-workspace'])
    expect(allowed).toMatchObject({ code: 0, stdout: '     1\tx\n' })
    const byEnv = await runCli([...args, '--workspace', root], {
      env: { ALLOW_OUTSIDE_WORKSPACE: '1' },
    })
    expect(byEnv.code).toBe(0)
  })

  it('refuses mutating tools under --read-only, writing nothing', async () => {
    const root = fixture()
    for (const name of MUTATING_TOOL_NAMES) {
      const r = await runCli(
        ['call', name, '{"path": "new.txt", "content": "x", "command": "touch new.txt"}'],
        { env: { WORKSPACE_ROOT: root, READ_ONLY: 'true' } },
      )
      expect(r.code).toBe(1)
      expect(JSON.parse(r.stdout)).toMatchObject({
        error: 'not_found',
        message: `Unknown tool: ${name}`,
        hidden_by: 'readOnly',
      })
    }
    expect(existsSync(join(root, 'new.txt'))).toBe(false)
  })

  it("reads the arguments from stdin with '-'", async () => {
    const root = fixture()
    const r = await runCli(['call', 'read_file', '-', '--workspace', root], {
      input: '{"path": "a.txt", "offset": -1}',
    })
    expect(r).toEqual({ code: 0, stdout: '     2\ttwo\n', stderr: '' })
  })

  it('honours the numeric environment settings', async () => {
    const root = fixture()
    writeTree(root, { 'big.txt': 'y'.repeat(5000) })
    const r = await runCli(['call', 'read_file', '{"path": "big.txt"}', '--workspace', root], {
      env: { MAX_FILE_BYTES: '4096' },
    })
    expect(r.code).toBe(1)
    expect(JSON.parse(r.stdout)).toMatchObject({ error: 'too_large', limit: 4096 })
  })
})

describe('cli usage errors: a clear message on stderr, exit 2', () => {
  const cases: [string, string[], Record<string, string>, RegExp][] = [
    ['no command', [], {}, /expected a command: list, call or mcp/],
    ['an unknown command', ['frobnicate'], {}, /unknown command frobnicate/],
    ['an unknown option', ['list', '--verbose'], {}, /unknown option --verbose/],
    ['call without a tool', ['call'], {}, /call needs a tool name/],
    ['arguments that are not JSON', ['call', 'read_file', '{path: 1}'], {}, /not valid JSON/],
    ['arguments that are not an object', ['call', 'read_file', '[1]'], {}, /must be a JSON object/],
    ['extra arguments', ['call', 'read_file', '{}', 'x'], {}, /takes one JSON argument/],
    ['list with arguments', ['list', 'x'], {}, /list takes no arguments/],
    ['--workspace without a value', ['list', '--workspace'], {}, /--workspace needs a directory/],
    [
      'a missing workspace',
      ['list', '--workspace', '/no/such/dir'],
      {},
      /Workspace root does not exist: \/no\/such\/dir/,
    ],
    [
      'a bad boolean variable',
      ['list'],
      { READ_ONLY: 'maybe' },
      /READ_ONLY must be one of 1\/true\/yes\/on or 0\/false\/no\/off, got: maybe/,
    ],
    ['a bad integer variable', ['list'], { MAX_FILE_BYTES: '1e6' }, /MAX_FILE_BYTES/],
    [
      'a setting under its floor',
      ['list'],
      { MAX_OUTPUT_BYTES: '10' },
      /MAX_OUTPUT_BYTES must be an integer >= 1024, got: 10/,
    ],
    [
      'mcp with a missing workspace',
      ['mcp', '--workspace', '/no/such/dir'],
      {},
      /Workspace root does not exist: \/no\/such\/dir/,
    ],
    [
      'a timeout maximum under the timeout',
      ['list'],
      { BASH_TIMEOUT_MS: '10', BASH_TIMEOUT_MAX_MS: '5' },
      /BASH_TIMEOUT_MAX_MS \(5\) must be >= BASH_TIMEOUT_MS \(10\)\./,
    ],
    ['help for an unknown command', ['help', 'frob'], {}, /no help for unknown command frob/],
    ['a mistyped command', ['lst'], {}, /unknown command lst; did you mean list\?/],
    [
      'help for a mistyped command',
      ['help', 'lst'],
      {},
      /unknown command lst; did you mean list\?/,
    ],
    [
      'a mistyped flag',
      ['list', '--readonly'],
      {},
      /unknown option --readonly; did you mean --read-only\?/,
    ],
    ['a mistyped value flag', ['list', '--workspce=.'], {}, /did you mean --workspace\?/],
    ['empty arguments', ['call', 'read_file', ''], {}, /the arguments are empty/],
  ]
  for (const [what, args, env, message] of cases) {
    it(`rejects ${what}`, async () => {
      const r = await runCli(args, { env, cwd: tempDir() })
      expect(r.code).toBe(2)
      expect(r.stdout).toBe('')
      expect(r.stderr).toMatch(/^agent-tools-native: /)
      expect(r.stderr).toMatch(message)
      expect(r.stderr).toMatch(/Run 'agent-tools-native( \w+)? --help' for usage\./)
    })
  }

  it('suggests nothing when no command or flag is close', async () => {
    for (const args of [['frobnicate'], ['list', '--verbose'], ['help', 'main']]) {
      const r = await runCli(args)
      expect(r.code).toBe(2)
      expect(r.stderr).not.toContain('did you mean')
    }
  })

  it('points every flag error at the help of the command it was given to', async () => {
    for (const [args, topic] of [
      [['mcp', '--port='], 'mcp'],
      [['--port=', 'mcp'], 'mcp'],
      [['mcp', '--host'], 'mcp'],
      [['list', '--readonly'], 'list'],
      [['--workspace', 'call', 'list', '--verbose'], 'list'],
      [['call', 'read_file', '--http'], 'call'],
      [['--verbose'], ''],
    ] as const) {
      const r = await runCli([...args])
      expect(r.code, args.join(' ')).toBe(2)
      expect(r.stderr.split('\n')[1]).toBe(
        `Run 'agent-tools-native${topic ? ` ${topic}` : ''} --help' for usage.`,
      )
    }
  })

  it('says stdin was empty for call <tool> - with nothing piped, and what to pass', async () => {
    const r = await runCli(['call', 'read_file', '-'], { input: '' })
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(
      /^agent-tools-native: stdin was empty: '-' reads the arguments object from stdin, e\.g\. echo /,
    )
    expect(r.stderr).not.toContain('Unexpected end of JSON input')
  })

  it('quotes piped input on one line: the trailing newline is trimmed', async () => {
    const notObject = await runCli(['call', 'read_file', '-'], { input: '[1,\n2]\n' })
    expect(notObject.stderr.split('\n')[0]).toBe(
      `agent-tools-native: the arguments must be a JSON object, e.g. '{"path": "."}', got [1,2]`,
    )
    const notJson = await runCli(['call', 'read_file', '-'], { input: 'nope\n' })
    expect(notJson.stderr.split('\n')).toHaveLength(3)
    expect(notJson.stderr.split('\n')[1]).toBe("Run 'agent-tools-native call --help' for usage.")
  })
})
