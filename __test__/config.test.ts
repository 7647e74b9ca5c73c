import { writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  buildConfig,
  createAgentTools,
  DEFAULT_BASH_TIMEOUT_MAX_MS,
  DEFAULT_BASH_TIMEOUT_MS,
  DEFAULT_MAX_FILE_BYTES,
  DEFAULT_MAX_OUTPUT_BYTES,
  resolveConfig,
  StartupError,
} from '../v0.1/index.js'
import { tempDir } from './helpers'

const FIELDS = [
  'workspaceRoot',
  'maxOutputBytes',
  'maxFileBytes',
  'bashTimeoutMs',
  'bashTimeoutMaxMs',
  'ripgrepAvailable',
  'readOnly',
  'confineToWorkspace',
].sort()

function startupMessage(fn: () => unknown): string {
  try {
    fn()
  } catch (e) {
    expect(e).toBeInstanceOf(StartupError)
    expect(e).toBeInstanceOf(Error)
    expect((e as Error).name).toBe('StartupError')
    return (e as Error).message
  }
  throw new Error('expected a StartupError')
}

describe('resolveConfig', () => {
  it('exports the contract defaults', () => {
    expect(DEFAULT_MAX_OUTPUT_BYTES).toBe(131072)
    expect(DEFAULT_MAX_FILE_BYTES).toBe(20000000)
    expect(DEFAULT_BASH_TIMEOUT_MS).toBe(120000)
    expect(DEFAULT_BASH_TIMEOUT_MAX_MS).toBe(600000)
  })

  it('returns a frozen config with exactly the eight fields and their defaults', () => {
    const root = tempDir()
    const c = resolveConfig({ workspaceRoot: root, probeRipgrep: () => true })
    expect(Object.keys(c).sort()).toEqual(FIELDS)
    expect(Object.isFrozen(c)).toBe(true)
    expect(c).toEqual({
      workspaceRoot: root,
      maxOutputBytes: 131072,
      maxFileBytes: 20000000,
      bashTimeoutMs: 120000,
      bashTimeoutMaxMs: 600000,
      ripgrepAvailable: true,
      readOnly: false,
      confineToWorkspace: true,
    })
    expect(resolveConfig({ workspaceRoot: root, probeRipgrep: () => false }).ripgrepAvailable).toBe(
      false,
    )
  })

  it('resolves a relative workspace against the cwd without following symlinks', () => {
    const root = tempDir()
    const c = resolveConfig({ workspaceRoot: `${relative(process.cwd(), root)}/./x/..` })
    expect(c.workspaceRoot).toBe(root)
  })

  it('names the setting of every bad value', () => {
    const root = tempDir()
    writeFileSync(join(root, 'f'), 'x')
    const cases: [Record<string, unknown>, string][] = [
      [{}, 'workspaceRoot'],
      [{ workspaceRoot: join(root, 'missing') }, 'workspaceRoot'],
      [{ workspaceRoot: join(root, 'f') }, 'workspaceRoot'],
      [{ workspaceRoot: root, maxOutputBytes: 1023 }, 'maxOutputBytes'],
      [{ workspaceRoot: root, maxFileBytes: 5 }, 'maxFileBytes'],
      [{ workspaceRoot: root, bashTimeoutMs: 0 }, 'bashTimeoutMs'],
      [{ workspaceRoot: root, bashTimeoutMs: 10, bashTimeoutMaxMs: 9 }, 'bashTimeoutMaxMs'],
      [{ workspaceRoot: root, readOnly: 'yes' }, 'readOnly'],
      [{ workspaceRoot: root, maxOutputBytes: 2048.5 }, 'maxOutputBytes'],
    ]
    for (const [options, name] of cases) {
      expect(startupMessage(() => resolveConfig(options as never))).toContain(name)
    }
    expect(resolveConfig({ workspaceRoot: root, maxOutputBytes: 1024 }).maxOutputBytes).toBe(1024)
  })

  it('createAgentTools throws StartupError synchronously', () => {
    expect(() => createAgentTools({ workspaceRoot: '/definitely/not/here' })).toThrow(StartupError)
  })
})

describe('buildConfig', () => {
  it('reads flags and env, flags winning', () => {
    const a = tempDir()
    const b = tempDir()
    const c = buildConfig(['--workspace', a, '--read-only'], {
      WORKSPACE_ROOT: b,
      READ_ONLY: 'off',
      MAX_OUTPUT_BYTES: '4096',
      MAX_FILE_BYTES: '8192',
      BASH_TIMEOUT_MS: '5',
      BASH_TIMEOUT_MAX_MS: '10',
      ALLOW_OUTSIDE_WORKSPACE: 'YES',
    })
    expect(c).toMatchObject({
      workspaceRoot: a,
      readOnly: true,
      maxOutputBytes: 4096,
      maxFileBytes: 8192,
      bashTimeoutMs: 5,
      bashTimeoutMaxMs: 10,
      confineToWorkspace: false,
    })
    expect(Object.isFrozen(c)).toBe(true)
    expect(buildConfig([`--workspace=${a}`], { WORKSPACE_ROOT: b }).workspaceRoot).toBe(a)
    expect(buildConfig([], { WORKSPACE_ROOT: b }).workspaceRoot).toBe(b)
    expect(
      buildConfig(['--allow-outside-workspace'], { WORKSPACE_ROOT: b }).confineToWorkspace,
    ).toBe(false)
  })

  it('accepts every boolean spelling and refuses others', () => {
    const root = tempDir()
    for (const v of ['1', 'true', 'YES', 'On']) {
      expect(buildConfig([], { WORKSPACE_ROOT: root, READ_ONLY: v }).readOnly).toBe(true)
    }
    for (const v of ['0', 'false', 'No', 'OFF', '']) {
      expect(buildConfig([], { WORKSPACE_ROOT: root, READ_ONLY: v }).readOnly).toBe(false)
    }
    expect(
      startupMessage(() => buildConfig([], { WORKSPACE_ROOT: root, READ_ONLY: 'maybe' })),
    ).toContain('READ_ONLY')
  })

  it('refuses non-digit integers and a --workspace without a value', () => {
    const root = tempDir()
    // CONTRACT.md, buildConfig: "integers must be plain digits" (no sign, no surrounding space).
    for (const v of ['1e5', '-5', '+5', '12.0', 'abc', ' 2048', '2048 ', '\t2048\n']) {
      expect(
        startupMessage(() => buildConfig([], { WORKSPACE_ROOT: root, MAX_OUTPUT_BYTES: v })),
      ).toContain('MAX_OUTPUT_BYTES')
    }
    expect(startupMessage(() => buildConfig(['--workspace'], {}))).toContain('--workspace')
    expect(startupMessage(() => buildConfig(['--workspace='], {}))).toContain('--workspace')
    expect(
      startupMessage(() => buildConfig([], { WORKSPACE_ROOT: root, MAX_FILE_BYTES: '100' })),
    ).toContain('maxFileBytes')
  })

  it('uses the probe for ripgrepAvailable', () => {
    const root = tempDir()
    expect(buildConfig([], { WORKSPACE_ROOT: root }, () => true).ripgrepAvailable).toBe(true)
    expect(buildConfig([], { WORKSPACE_ROOT: root }, () => false).ripgrepAvailable).toBe(false)
  })
})
