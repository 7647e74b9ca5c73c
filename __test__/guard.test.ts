// The guard (CONTRACT-v0.5 §5): buildGuardContext, the policy helpers, and the hook in dispatch.
import { mkdirSync, symlinkSync } from 'node:fs'
import { createRequire } from 'node:module'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import * as guardEsm from '../guard.mjs'
import {
  type BashFacts,
  buildGuardContext,
  commandsIn,
  createAgentTools,
  dispatch,
  type ElicitRequest,
  type GuardContext,
  type GuardDecision,
  resolveConfig,
  StartupError,
  ToolError,
  touchesOutside,
  withinWorkspace,
} from '../index.js'
import { tempDir, writeTree } from './helpers.js'

const require = createRequire(import.meta.url)

function setup() {
  const root = tempDir()
  writeTree(root, { 'a.txt': 'alpha\nbeta\n', 'src/x.ts': 'x\n' })
  return { root, config: resolveConfig({ workspaceRoot: root }) }
}

describe('buildGuardContext', () => {
  it('names the path of every listed tool that takes one, extras included', () => {
    // The guard keeps its own table of tools whose one path is their `path` argument (an
    // unknown name names no path, CONTRACT-v0.5-wording §9): a tool added to the registry but
    // not to that table would reach the guard with no path to judge.
    const { root } = setup()
    const config = resolveConfig({ workspaceRoot: root, extras: true })
    const taking = createAgentTools({ workspaceRoot: root, extras: true })
      .listTools()
      .filter((t) => Object.hasOwn(t.inputSchema.properties ?? {}, 'path'))
      .map((t) => t.name)
    expect(taking.length).toBeGreaterThan(10)
    for (const tool of taking) {
      const raw = buildGuardContext(tool, { path: 'a.txt' }, config).paths.map((p) => p.raw)
      expect(raw, tool).toContain('a.txt')
    }
  })

  it('bash: the command paths (tilde expanded), then cwd, all against the root', () => {
    const { root, config } = setup()
    const args = { command: 'cat a.txt ~/.ssh/id_rsa /etc/passwd ../up.txt', cwd: 'src' }
    const ctx = buildGuardContext('bash', args, config)
    expect(ctx.tool).toBe('bash')
    expect(ctx.args).toBe(args)
    expect(ctx.config).toBe(config)
    expect(ctx.bash?.paths).toEqual(['a.txt', '~/.ssh/id_rsa', '/etc/passwd', '../up.txt'])
    expect(ctx.paths).toEqual([
      { raw: 'a.txt', resolved: join(root, 'a.txt'), withinWorkspace: true },
      { raw: '~/.ssh/id_rsa', resolved: join(homedir(), '.ssh/id_rsa'), withinWorkspace: false },
      { raw: '/etc/passwd', resolved: '/etc/passwd', withinWorkspace: false },
      { raw: '../up.txt', resolved: join(root, '..', 'up.txt'), withinWorkspace: false },
      { raw: 'src', resolved: join(root, 'src'), withinWorkspace: true },
    ])
  })

  it('monitor_start is analyzed like bash', () => {
    const { config } = setup()
    const ctx = buildGuardContext('monitor_start', { command: 'tail -f log.txt' }, config)
    expect(ctx.bash?.segments[0].normalized).toBe('tail -f log.txt')
    expect(ctx.paths.map((p) => p.raw)).toEqual(['log.txt'])
  })

  it('the paths of each tool, in the contract order', () => {
    const { root, config } = setup()
    const raws = (tool: string, args: Record<string, unknown>) =>
      buildGuardContext(tool, args, config).paths.map((p) => p.raw)
    const patch = [
      '--- a/src/x.ts\t2024-01-01',
      '+++ b/src/x.ts',
      '--- /dev/null',
      '+++  b/new.ts ',
      '@@ -1 +1 @@',
    ].join('\n')
    expect(raws('apply_patch', { patch })).toEqual(['src/x.ts', 'new.ts'])
    expect(raws('move', { source: 'a.txt', destination: 'b.txt' })).toEqual(['a.txt', 'b.txt'])
    expect(raws('copy', { source: 'a.txt', destination: '/tmp/b' })).toEqual(['a.txt', '/tmp/b'])
    expect(raws('read_files', { paths: ['a.txt', 'src/x.ts'] })).toEqual(['a.txt', 'src/x.ts'])
    expect(raws('diff', { from: 'a.txt', to: 'src/x.ts' })).toEqual(['a.txt', 'src/x.ts'])
    expect(raws('replace', { pattern: 'a', replacement: 'b', glob: '*.ts' })).toEqual(['.'])
    expect(raws('replace', { pattern: 'a', replacement: 'b', path: 'src' })).toEqual(['src'])
    expect(raws('read_file', { path: 'a.txt' })).toEqual(['a.txt'])
    expect(raws('grep', { pattern: 'x' })).toEqual([])
    expect(raws('glob', { pattern: '*.ts', path: 'src' })).toEqual(['src'])
    expect(raws('monitor_poll', { id: 'mon_1', path: 'x' })).toEqual([])
    expect(buildGuardContext('read_file', { path: 'a.txt' }, config).bash).toBeUndefined()
    expect(buildGuardContext('write_file', { path: 'd/../n.txt' }, config).paths).toEqual([
      { raw: 'd/../n.txt', resolved: join(root, 'n.txt'), withinWorkspace: true },
    ])
  })

  it('withinWorkspace follows symlinks as confinement does, whatever confineToWorkspace says', () => {
    const { root } = setup()
    const outside = tempDir()
    symlinkSync(outside, join(root, 'out'))
    mkdirSync(join(root, 'in'))
    symlinkSync(join(root, 'in'), join(root, 'inlink'))
    const open = resolveConfig({ workspaceRoot: root, confineToWorkspace: false })
    const fact = (p: string) => buildGuardContext('read_file', { path: p }, open).paths[0]
    expect(fact('out/new.txt')).toEqual({
      raw: 'out/new.txt',
      resolved: join(root, 'out/new.txt'),
      withinWorkspace: false,
    })
    expect(fact('inlink/new.txt').withinWorkspace).toBe(true)
    expect(fact(outside).withinWorkspace).toBe(false)
    expect(fact('.').withinWorkspace).toBe(true)
  })
})

describe('policy helpers', () => {
  const { config } = setup()
  const ctx = (command: string) => buildGuardContext('bash', { command }, config)

  it('withinWorkspace: decidable, at least one path, all inside', () => {
    expect(withinWorkspace(ctx('cat a.txt src/x.ts'))).toBe(true)
    expect(withinWorkspace(ctx('cat a.txt /etc/passwd'))).toBe(false)
    expect(withinWorkspace(ctx('ls'))).toBe(false)
    expect(withinWorkspace(ctx('cat a.txt $X'))).toBe(false)
    expect(withinWorkspace(ctx('cd /etc && cat passwd'))).toBe(false)
    expect(withinWorkspace(buildGuardContext('read_file', { path: 'a.txt' }, config))).toBe(true)
    expect(withinWorkspace(buildGuardContext('grep', { pattern: 'x' }, config))).toBe(false)
  })

  it('touchesOutside: any path outside, undecidable or not', () => {
    expect(touchesOutside(ctx('cat a.txt'))).toBe(false)
    expect(touchesOutside(ctx('cat ~/.ssh/id_rsa'))).toBe(true)
    expect(touchesOutside(ctx('echo $(cat /etc/shadow)'))).toBe(true)
    expect(touchesOutside(ctx('echo hi>/etc/x'))).toBe(true)
    expect(touchesOutside(ctx('cd; rm -rf *'))).toBe(true)
    expect(touchesOutside(ctx('ls'))).toBe(false)
  })

  it('no false alarms on ordinary work', () => {
    for (const command of [
      'npm test 2>&1 | tee test.log',
      'make >/dev/null 2>&1',
      'grep -r foo .',
      'cat src/x.ts | head -5 2>/dev/null',
      'curl -s https://example.com/api -o out.json',
    ]) {
      expect(touchesOutside(ctx(command)), command).toBe(false)
      expect(withinWorkspace(ctx(command)), command).toBe(true)
    }
    // No path at all is not "within": the helper fails closed.
    expect(touchesOutside(ctx('npm test 2>&1'))).toBe(false)
    expect(withinWorkspace(ctx('npm test 2>&1'))).toBe(false)
  })

  it('commandsIn: decidable, every segment an allowed entry or its prefix and a space', () => {
    const facts = (command: string): BashFacts => ctx(command).bash as BashFacts
    const allowed = ['git status', 'ls', ' npm test ', '']
    expect(commandsIn(facts('git status && ls -la'), allowed)).toBe(true)
    expect(commandsIn(facts('npm test -- --watch'), allowed)).toBe(true)
    expect(commandsIn(facts('lsof'), allowed)).toBe(false)
    expect(commandsIn(facts('git status; rm -rf x'), allowed)).toBe(false)
    expect(commandsIn(facts('ls $(rm -rf x)'), allowed)).toBe(false)
    expect(commandsIn(facts('ls | sh'), allowed)).toBe(false)
    expect(commandsIn(facts(''), allowed)).toBe(false)
    expect(commandsIn(undefined, allowed)).toBe(false)
    expect(commandsIn(facts('FOO=1 ls'), allowed)).toBe(true)
    expect(commandsIn(facts('ls'), ['', '  '])).toBe(false)
  })

  it('the ./guard subpath serves the same functions, in CJS and ESM', () => {
    const cjs = require('../guard.js')
    const root = require('../index.js')
    for (const name of [
      'analyzeBash',
      'buildGuardContext',
      'withinWorkspace',
      'touchesOutside',
      'commandsIn',
    ]) {
      expect(typeof cjs[name]).toBe('function')
      expect(root[name]).toBe(cjs[name])
      expect((guardEsm as Record<string, unknown>)[name]).toBe(cjs[name])
    }
    expect(require('../package.json').exports['./guard']).toEqual({
      types: './guard.d.ts',
      import: './guard.mjs',
      require: './guard.js',
    })
  })
})

describe('the guard in dispatch', () => {
  function tools(guard?: (ctx: GuardContext) => unknown, elicit?: (r: ElicitRequest) => unknown) {
    const root = tempDir()
    writeTree(root, { 'a.txt': 'alpha\nbeta\n' })
    const seen: GuardContext[] = []
    const asked: ElicitRequest[] = []
    const t = createAgentTools({
      workspaceRoot: root,
      guard: guard
        ? async (ctx) => {
            seen.push(ctx)
            return (await guard(ctx)) as GuardDecision
          }
        : undefined,
      elicit: elicit
        ? async (r) => {
            asked.push(r)
            return Boolean(await elicit(r))
          }
        : undefined,
    })
    return { root, t, seen, asked }
  }
  const read = { path: 'a.txt' }

  it('resolveConfig always sets the guard and elicit keys', () => {
    const config = resolveConfig({ workspaceRoot: tempDir() })
    expect(Object.keys(config)).toContain('guard')
    expect(Object.keys(config)).toContain('elicit')
    expect(config.guard).toBeUndefined()
    const guard = () => ({ verdict: 'allow' as const })
    expect(resolveConfig({ workspaceRoot: tempDir(), guard }).guard).toBe(guard)
    // @ts-expect-error: not a function
    expect(() => resolveConfig({ workspaceRoot: tempDir(), guard: 'allow' })).toThrow(StartupError)
  })

  it('allow runs the tool', async () => {
    const { t, seen } = tools(() => ({ verdict: 'allow' }))
    const r = await t.callTool('read_file', read)
    expect(r.isError).toBe(false)
    expect(r.text).toContain('alpha')
    expect(seen).toHaveLength(1)
    expect(seen[0].tool).toBe('read_file')
    expect(seen[0].paths[0].withinWorkspace).toBe(true)
  })

  it('deny is `denied` with the reason, or `blocked by guard`', async () => {
    const { t } = tools(() => ({ verdict: 'deny', reason: 'not today' }))
    expect(await t.callTool('read_file', read)).toEqual({
      isError: true,
      content: [{ type: 'text', text: '{"error":"denied","message":"not today"}' }],
    })
    const quiet = tools(() => ({ verdict: 'deny' })).t
    expect((await quiet.callTool('read_file', read)).text).toBe(
      '{"error":"denied","message":"blocked by guard"}',
    )
  })

  it('deny stops a mutating tool before it runs', async () => {
    const { t, root } = tools(() => ({ verdict: 'deny' }))
    await t.callTool('write_file', { path: 'new.txt', content: 'x' })
    const r = await createAgentTools({ workspaceRoot: root }).callTool('read_file', {
      path: 'new.txt',
    })
    expect(JSON.parse(r.text).error).toBe('not_found')
  })

  it('ask without elicit is denied', async () => {
    const { t } = tools(() => ({ verdict: 'ask', reason: 'outside?' }))
    expect((await t.callTool('read_file', read)).text).toBe(
      '{"error":"denied","message":"outside?"}',
    )
    const odd = tools(() => ({ verdict: 'maybe' })).t
    expect((await odd.callTool('read_file', read)).text).toBe(
      '{"error":"denied","message":"blocked by guard"}',
    )
  })

  it('ask with elicit: truthy runs, falsy is denied; elicit sees tool, args, raw reason, bash', async () => {
    const yes = tools(
      () => ({ verdict: 'ask' }),
      () => true,
    )
    const r = await yes.t.callTool('bash', { command: 'cat a.txt' })
    expect(r.isError).toBe(false)
    expect(yes.asked).toHaveLength(1)
    expect(Object.keys(yes.asked[0])).toEqual(['tool', 'args', 'reason', 'bash'])
    expect(yes.asked[0].tool).toBe('bash')
    expect(yes.asked[0].reason).toBeUndefined()
    expect(yes.asked[0].bash?.paths).toEqual(['a.txt'])
    expect(yes.asked[0].args).toEqual(yes.seen[0].args)

    const no = tools(
      () => ({ verdict: 'ask', reason: 'sure?' }),
      () => 0,
    )
    expect((await no.t.callTool('read_file', read)).text).toBe(
      '{"error":"denied","message":"sure?"}',
    )
    const denyNeverAsks = tools(
      () => ({ verdict: 'deny' }),
      () => true,
    )
    expect((await denyNeverAsks.t.callTool('read_file', read)).isError).toBe(true)
    expect(denyNeverAsks.asked).toHaveLength(0)
  })

  it('elicit gets the facts of the command it is asked about: an eval of a write too', async () => {
    const asks = tools(
      () => ({ verdict: 'ask' }),
      () => false,
    )
    const command = `eval "rm -rf build"`
    expect((await asks.t.callTool('bash', { command })).isError).toBe(true)
    const bash = asks.asked[0]?.bash
    expect(bash?.paths).toEqual([]) // the contract's lexer sees no path in `eval "…"`
    expect(bash?.parse?.segments).toEqual(['eval rm -rf build', 'rm -rf build'])
    expect(bash?.parse?.paths).toEqual([join(asks.root, 'build')])
    expect(bash?.parse?.undecidable).toBe(true)
    expect(bash?.accesses?.map((a) => a.kind)).toEqual(['write'])
    expect(bash).toBe(asks.seen[0].bash)
  })

  it('the README example: a subshell bypass the guard catches', async () => {
    const { subshellBypass } = await import('../examples/guard-bypass')
    expect(subshellBypass()).toEqual({
      tokenizer: ['pwd; rm -rf dist'],
      parse: ['pwd', 'rm -rf dist'],
      allowed: false,
    })
  })

  it('a throwing guard or elicit fails closed: internal, or the ToolError envelope', async () => {
    const boom = tools(() => {
      throw new Error('guard bug')
    }).t
    expect((await boom.callTool('read_file', read)).text).toBe(
      '{"error":"internal","message":"internal error"}',
    )
    const rejects = tools(() => Promise.reject(new TypeError('async bug'))).t
    expect(JSON.parse((await rejects.callTool('read_file', read)).text).error).toBe('internal')
    const typed = tools(() => {
      throw new ToolError('path_escape', 'nope', { path: 'a.txt' })
    }).t
    expect((await typed.callTool('read_file', read)).text).toBe(
      '{"error":"path_escape","message":"nope","path":"a.txt"}',
    )
    const badElicit = tools(
      () => ({ verdict: 'ask' }),
      () => {
        throw new Error('elicit bug')
      },
    ).t
    expect(JSON.parse((await badElicit.callTool('read_file', read)).text).error).toBe('internal')
  })

  it('the guard sees the validated, coerced arguments, and the tool runs with them', async () => {
    const { t, seen } = tools(() => ({ verdict: 'allow' }))
    const r = await t.callTool('read_file', { path: 'a.txt', offset: '2' })
    expect(seen[0].args).toEqual({ path: 'a.txt', offset: 2 })
    expect(r.text).toContain('beta')
    expect(r.text).not.toContain('alpha')
  })

  it('is not called for unknown tools or invalid input', async () => {
    const { t, seen } = tools(() => ({ verdict: 'allow' }))
    expect(JSON.parse((await t.callTool('nope', {})).text).error).toBe('not_found')
    expect(JSON.parse((await t.callTool('read_file', {})).text).error).toBe('invalid_input')
    expect(
      JSON.parse((await t.callTool('read_file', { path: 'a.txt', limit: -1 })).text).error,
    ).toBe('invalid_input')
    expect(seen).toHaveLength(0)
  })

  it('is awaited without blocking the event loop', async () => {
    let ticks = 0
    const timer = setInterval(() => ticks++, 1)
    const { t } = tools(async () => {
      const before = ticks
      while (ticks < before + 3) await new Promise((r) => setTimeout(r, 2))
      return { verdict: 'allow' }
    })
    const r = await t.callTool('read_file', read)
    clearInterval(timer)
    expect(r.isError).toBe(false)
    expect(ticks).toBeGreaterThanOrEqual(3)
  })

  it('/v0.1 (the seed contract) has no guard', async () => {
    const seed = require('../v0.1/index.js')
    const root = tempDir()
    writeTree(root, { 'a.txt': 'x' })
    const config = { ...resolveConfig({ workspaceRoot: root }), guard: () => ({ verdict: 'deny' }) }
    expect((await seed.dispatch('read_file', read, config)).isError).toBe(false)
  })

  it('dispatch with a caller-built config honours its guard', async () => {
    const root = tempDir()
    writeTree(root, { 'a.txt': 'x' })
    const base = resolveConfig({ workspaceRoot: root })
    const config = { ...base, guard: () => ({ verdict: 'deny' as const, reason: 'r' }) }
    expect((await dispatch('read_file', read, config)).text).toBe(
      '{"error":"denied","message":"r"}',
    )
  })
})

// The verdicts come from the parse (issue 23): one row per command, with an allowlist and what
// `commandsIn` answers for it, whether it touches outside, whether the parse can decide it, and
// the paths it finds (relative to the workspace root; `~/…` in the home directory; `<out>/…` in
// the directory the workspace's `out` link points to; `..` for the root's parent; else
// absolute). Each item comes in both directions: the bypass caught, ordinary work still allowed.
interface VerdictRow {
  cmd: string
  allow: string[]
  allowed: boolean
  outside: boolean
  undecidable: boolean
  paths?: string[]
  /** The bash tool's `cwd`. */
  cwd?: string
}

const verdictRows: Record<string, VerdictRow[]> = {
  'segments: subshells, groups, functions, wrappers': [
    {
      cmd: '(pwd; rm -rf dist)',
      allow: ['pwd'],
      allowed: false,
      outside: false,
      undecidable: false,
      paths: ['dist'],
    },
    {
      cmd: '(ls ; rm -rf dist)',
      allow: ['ls'],
      allowed: false,
      outside: false,
      undecidable: false,
    },
    {
      cmd: '(pwd && ls)',
      allow: ['pwd', 'ls'],
      allowed: true,
      outside: false,
      undecidable: false,
      paths: [],
    },
    {
      cmd: '{ ls; rm -rf dist; }',
      allow: ['ls'],
      allowed: false,
      outside: false,
      undecidable: false,
    },
    {
      cmd: '{ ls; pwd; }',
      allow: ['ls', 'pwd'],
      allowed: true,
      outside: false,
      undecidable: false,
    },
    {
      cmd: 'ls() { rm -rf dist; }; ls',
      allow: ['ls'],
      allowed: false,
      outside: false,
      undecidable: false,
      paths: ['dist'],
    },
    {
      cmd: 'git() { rm -rf .git; }; git status',
      allow: ['git status'],
      allowed: false,
      outside: false,
      undecidable: false,
    },
    {
      cmd: 'f() { rm -rf x; }; cd /etc; f',
      allow: ['f', 'cd'],
      allowed: false,
      outside: true,
      undecidable: false,
      paths: ['x', '/etc', '/etc/x'],
    },
    {
      cmd: 'f() { ls -la; }; f',
      allow: ['f', 'ls'],
      allowed: true,
      outside: false,
      undecidable: false,
    },
    {
      cmd: 'command rm -rf dist',
      allow: ['command'],
      allowed: false,
      outside: false,
      undecidable: false,
    },
    {
      cmd: 'command ls',
      allow: ['command', 'ls'],
      allowed: true,
      outside: false,
      undecidable: false,
    },
    {
      cmd: 'command -v rm',
      allow: ['command -v'],
      allowed: true,
      outside: false,
      undecidable: false,
    },
    {
      cmd: 'builtin source evil.sh',
      allow: ['builtin'],
      allowed: false,
      outside: false,
      undecidable: false,
    },
    {
      cmd: 'exec rm -rf dist',
      allow: ['exec'],
      allowed: false,
      outside: false,
      undecidable: false,
    },
    { cmd: 'env rm -rf dist', allow: ['env'], allowed: false, outside: false, undecidable: false },
    {
      cmd: 'env FOO=1 npm test',
      allow: ['env', 'npm test'],
      allowed: true,
      outside: false,
      undecidable: false,
    },
    {
      cmd: 'sudo rm -rf dist',
      allow: ['sudo'],
      allowed: false,
      outside: false,
      undecidable: false,
    },
    {
      cmd: 'nice rm -rf dist',
      allow: ['nice'],
      allowed: false,
      outside: false,
      undecidable: false,
    },
    { cmd: 'nice -n 5 make', allow: ['make'], allowed: true, outside: false, undecidable: false },
    {
      cmd: 'timeout 5 rm -rf dist',
      allow: ['timeout'],
      allowed: false,
      outside: false,
      undecidable: false,
    },
    {
      cmd: 'timeout 30s npm test',
      allow: ['npm test'],
      allowed: true,
      outside: false,
      undecidable: false,
    },
    {
      cmd: 'ls | xargs rm',
      allow: ['ls', 'xargs'],
      allowed: false,
      outside: false,
      undecidable: true,
    },
    {
      cmd: 'find . -name "*.o" -exec rm {} \\;',
      allow: ['find'],
      allowed: false,
      outside: false,
      undecidable: false,
    },
    {
      cmd: "find src -name '*.ts' -exec grep -l foo {} +",
      allow: ['find', 'grep'],
      allowed: true,
      outside: false,
      undecidable: false,
      paths: ['src'],
    },
    {
      cmd: "bash -c 'ls; rm -rf dist'",
      allow: ['bash', 'ls'],
      allowed: false,
      outside: false,
      undecidable: false,
    },
    {
      cmd: "bash -c 'ls -la'",
      allow: ['bash -c', 'ls'],
      allowed: true,
      outside: false,
      undecidable: false,
    },
    {
      cmd: `sh -c "sh -c 'rm -rf dist'"`,
      allow: ['sh'],
      allowed: false,
      outside: false,
      undecidable: false,
    },
    { cmd: 'eval ls', allow: ['eval', 'ls'], allowed: false, outside: false, undecidable: true },
    {
      cmd: 'echo $(rm -rf dist)',
      allow: ['echo'],
      allowed: false,
      outside: false,
      undecidable: false,
    },
    {
      cmd: 'cat <(rm -rf dist)',
      allow: ['cat'],
      allowed: false,
      outside: false,
      undecidable: false,
    },
    {
      cmd: 'if true; then rm -rf dist; fi',
      allow: ['true'],
      allowed: false,
      outside: false,
      undecidable: false,
    },
    {
      cmd: 'if test -f a.txt; then cat a.txt; fi',
      allow: ['test', 'cat'],
      allowed: true,
      outside: false,
      undecidable: false,
      paths: ['a.txt'],
    },
    {
      cmd: "alias ls='rm -rf dist'; ls",
      allow: ['alias', 'ls'],
      allowed: false,
      outside: false,
      undecidable: false,
    },
    {
      cmd: 'git status && git diff',
      allow: ['git status', 'git diff'],
      allowed: true,
      outside: false,
      undecidable: false,
    },
    {
      cmd: 'npm test 2>&1 | tee test.log',
      allow: ['npm test', 'tee'],
      allowed: true,
      outside: false,
      undecidable: false,
      paths: ['test.log'],
    },
    {
      cmd: "trap 'rm -rf dist' EXIT; ls",
      allow: ['trap', 'ls'],
      allowed: false,
      outside: false,
      undecidable: false,
    },
    {
      cmd: "watch -n 5 'rm -rf dist'",
      allow: ['watch'],
      allowed: false,
      outside: false,
      undecidable: false,
    },
    {
      cmd: 'flock /tmp/lock rm -rf dist',
      allow: ['flock'],
      allowed: false,
      outside: true,
      undecidable: false,
    },
    {
      cmd: 'IFS=,; X=rm,-rf,/etc; $X',
      allow: ['rm'],
      allowed: false,
      outside: false,
      undecidable: true,
    },
  ],
  'expansions: braces, tilde, globs, parameters': [
    {
      cmd: 'cp a.txt {/var,.}/y',
      allow: ['cp'],
      allowed: true,
      outside: true,
      undecidable: false,
      paths: ['a.txt', '/var/y', 'y'],
    },
    {
      cmd: 'cp a.txt {x,y}.txt',
      allow: ['cp'],
      allowed: true,
      outside: false,
      undecidable: false,
      paths: ['a.txt', 'x.txt', 'y.txt'],
    },
    {
      cmd: 'touch f{1..3}.txt',
      allow: ['touch'],
      allowed: true,
      outside: false,
      undecidable: false,
      paths: ['f1.txt', 'f2.txt', 'f3.txt'],
    },
    {
      cmd: 'cat ~/.ssh/id_rsa',
      allow: ['cat'],
      allowed: true,
      outside: true,
      undecidable: false,
      paths: ['~/.ssh/id_rsa'],
    },
    { cmd: 'cat ~root/.bashrc', allow: ['cat'], allowed: false, outside: false, undecidable: true },
    {
      cmd: 'ls ../*',
      allow: ['ls'],
      allowed: true,
      outside: true,
      undecidable: false,
      paths: ['..'],
    },
    {
      cmd: 'rm -rf /var/tmp/*',
      allow: ['rm'],
      allowed: true,
      outside: true,
      undecidable: false,
      paths: ['/var/tmp'],
    },
    {
      cmd: 'ls src/*.ts',
      allow: ['ls'],
      allowed: true,
      outside: false,
      undecidable: false,
      paths: ['src'],
    },
    {
      cmd: 'X=/etc; cat $X/passwd',
      allow: ['cat'],
      allowed: true,
      outside: true,
      undecidable: false,
      paths: ['/etc/passwd'],
    },
    {
      cmd: 'D=src; cat "$D"/x.ts',
      allow: ['cat'],
      allowed: true,
      outside: false,
      undecidable: false,
      paths: ['src/x.ts'],
    },
    { cmd: 'cat $X/passwd', allow: ['cat'], allowed: false, outside: false, undecidable: true },
    {
      cmd: 'X="a.txt /etc/x"; rm $X',
      allow: ['rm'],
      allowed: true,
      outside: true,
      undecidable: false,
      paths: ['a.txt', '/etc/x'],
    },
    {
      cmd: 'X="a.txt b"; rm "$X"',
      allow: ['rm'],
      allowed: true,
      outside: false,
      undecidable: false,
      paths: ['a.txt b'],
    },
  ],
  'option values: glued or separate, short or long': [
    {
      cmd: 'tar -cf/var/x.tar .',
      allow: ['tar'],
      allowed: true,
      outside: true,
      undecidable: false,
      paths: ['/var/x.tar', '.'],
    },
    {
      cmd: 'tar -czf out.tgz src',
      allow: ['tar'],
      allowed: true,
      outside: false,
      undecidable: false,
      paths: ['out.tgz'],
    },
    {
      cmd: 'tar xf a.tar -C /opt',
      allow: ['tar'],
      allowed: true,
      outside: true,
      undecidable: false,
    },
    {
      cmd: 'cp -t/var/x a.txt',
      allow: ['cp'],
      allowed: true,
      outside: true,
      undecidable: false,
      paths: ['/var/x', 'a.txt'],
    },
    {
      cmd: 'cp --target-directory=/var/x a.txt',
      allow: ['cp'],
      allowed: true,
      outside: true,
      undecidable: false,
    },
    {
      cmd: 'cp -t build a.txt',
      allow: ['cp'],
      allowed: true,
      outside: false,
      undecidable: false,
      paths: ['build', 'a.txt'],
    },
    {
      cmd: 'curl -sSLo/tmp/i.sh https://e.com/i.sh',
      allow: ['curl'],
      allowed: true,
      outside: true,
      undecidable: false,
    },
    {
      cmd: 'curl -o out.json https://e.com/api',
      allow: ['curl'],
      allowed: true,
      outside: false,
      undecidable: false,
    },
    {
      cmd: 'sort -o/etc/x a.txt',
      allow: ['sort'],
      allowed: true,
      outside: true,
      undecidable: false,
    },
    {
      cmd: 'gcc -o/usr/local/bin/x main.c',
      allow: ['gcc'],
      allowed: true,
      outside: true,
      undecidable: false,
    },
    {
      cmd: 'dd if=a.txt of=/dev/sda',
      allow: ['dd'],
      allowed: true,
      outside: true,
      undecidable: false,
    },
    {
      cmd: 'wget -O /etc/x https://e.com',
      allow: ['wget'],
      allowed: true,
      outside: true,
      undecidable: false,
    },
    { cmd: 'git -C /srv status', allow: ['git'], allowed: true, outside: true, undecidable: false },
  ],
  'physical cd and ..': [
    {
      cmd: 'cd build && cmake ..',
      allow: ['cd', 'cmake'],
      allowed: true,
      outside: false,
      undecidable: false,
      paths: ['build', '.'],
    },
    {
      cmd: 'mkdir -p build && cd build && cmake .. && make',
      allow: ['mkdir', 'cd', 'cmake', 'make'],
      allowed: true,
      outside: false,
      undecidable: false,
      paths: ['build', '.'],
    },
    {
      cmd: 'cd build && make; cat x.txt',
      allow: ['cd', 'make', 'cat'],
      allowed: false,
      outside: false,
      undecidable: true,
    },
    {
      cmd: 'cd sub && cat ../a.txt',
      allow: ['cd', 'cat'],
      allowed: true,
      outside: false,
      undecidable: false,
      paths: ['sub', 'a.txt'],
    },
    {
      cmd: 'cat ../a.txt',
      cwd: 'sub',
      allow: ['cat'],
      allowed: true,
      outside: false,
      undecidable: false,
      paths: ['sub', 'a.txt'],
    },
    {
      cmd: 'cd sub && cat ../../x',
      allow: ['cd', 'cat'],
      allowed: true,
      outside: true,
      undecidable: false,
      paths: ['sub', '../x'],
    },
    {
      cmd: 'cd out && rm -rf x',
      allow: ['cd', 'rm'],
      allowed: true,
      outside: true,
      undecidable: false,
      paths: ['<out>', '<out>/x'],
    },
    { cmd: 'cat out/../secret', allow: ['cat'], allowed: true, outside: true, undecidable: false },
    {
      cmd: 'cd out/.. && rm x',
      allow: ['cd', 'rm'],
      allowed: true,
      outside: false,
      undecidable: false,
      paths: ['.', 'x'],
    },
    {
      cmd: 'cd inlink && rm x',
      allow: ['cd', 'rm'],
      allowed: true,
      outside: false,
      undecidable: false,
      paths: ['src', 'src/x'],
    },
    {
      cmd: 'cd - && rm a.txt',
      allow: ['cd', 'rm'],
      allowed: false,
      outside: false,
      undecidable: true,
    },
  ],
  'comments and here-docs': [
    {
      cmd: 'ls # cat /etc/passwd',
      allow: ['ls'],
      allowed: true,
      outside: false,
      undecidable: false,
      paths: [],
    },
    { cmd: '# rm -rf /\nls', allow: ['ls'], allowed: true, outside: false, undecidable: false },
    {
      cmd: "cat <<'EOF'\n/etc/passwd $(rm -rf /)\nEOF",
      allow: ['cat'],
      allowed: true,
      outside: false,
      undecidable: false,
    },
    {
      cmd: 'cat <<EOF\n$(rm -rf /)\nEOF',
      allow: ['cat'],
      allowed: false,
      outside: true,
      undecidable: false,
    },
    {
      cmd: 'echo "cost \\$(x)"',
      allow: ['echo'],
      allowed: true,
      outside: false,
      undecidable: false,
    },
    {
      cmd: 'echo "a $(rm -rf dist)"',
      allow: ['echo'],
      allowed: false,
      outside: false,
      undecidable: false,
    },
  ],
  'hostile input': [
    { cmd: 'ls\0rm -rf /', allow: ['ls'], allowed: false, outside: true, undecidable: true },
    { cmd: 'ls \uD800', allow: ['ls'], allowed: false, outside: false, undecidable: true },
    {
      cmd: 'echo "unterminated',
      allow: ['echo'],
      allowed: false,
      outside: false,
      undecidable: true,
    },
    { cmd: 'echo {1..100000}', allow: ['echo'], allowed: false, outside: false, undecidable: true },
  ],
}

describe('the verdicts come from the parse', () => {
  const root = tempDir()
  const away = tempDir()
  writeTree(root, { 'a.txt': 'a\n', 'src/x.ts': 'x\n', 'build/.keep': '', 'sub/.keep': '' })
  symlinkSync(away, join(root, 'out'))
  symlinkSync(join(root, 'src'), join(root, 'inlink'))
  const config = resolveConfig({ workspaceRoot: root })
  const home = homedir()
  const show = (p: string) => {
    if (p === root) return '.'
    if (p.startsWith(`${root}/`)) return p.slice(root.length + 1)
    if (p === away) return '<out>'
    if (p.startsWith(`${away}/`)) return `<out>/${p.slice(away.length + 1)}`
    if (p === join(root, '..')) return '..'
    if (p.startsWith(`${join(root, '..')}/`)) return `../${p.slice(join(root, '..').length + 1)}`
    if (p.startsWith(`${home}/`)) return `~/${p.slice(home.length + 1)}`
    return p
  }

  it('has at least 60 rows', () => {
    expect(Object.values(verdictRows).flat().length).toBeGreaterThanOrEqual(60)
  })

  for (const [topic, rows] of Object.entries(verdictRows)) {
    it.each(rows.map((r) => [r.cmd, r]))(`${topic}: %j`, (_, r) => {
      const row = r as VerdictRow
      const args: Record<string, unknown> = { command: row.cmd }
      if (row.cwd) args.cwd = row.cwd
      const ctx = buildGuardContext('bash', args, config)
      const bash = ctx.bash as BashFacts
      const parse = bash.parse
      expect(parse).toBeDefined()
      expect({
        allowed: commandsIn(bash, row.allow),
        outside: touchesOutside(ctx),
        undecidable: parse?.undecidable,
      }).toEqual({ allowed: row.allowed, outside: row.outside, undecidable: row.undecidable })
      const within = !row.undecidable && (parse?.paths.length ?? 0) > 0 && !row.outside
      expect(withinWorkspace(ctx)).toBe(within)
      if (row.paths) expect(parse?.paths.map(show)).toEqual(row.paths)
      // The contract's fields stay the contract's lexer's.
      expect(Object.keys(bash)).toEqual(['paths', 'undecidable', 'segments'])
    })
  }
})
