// Parity with ripgrep: the same searches through `dispatch` and through the `rg` binary on a
// generated tree must give the same results. Skipped (with a message) only when `rg` is absent;
// `.ci/run` installs Debian's ripgrep so CI runs it.
import { spawnSync } from 'node:child_process'
import { mkdirSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { dispatch, resolveConfig, type ServerConfig } from '../v0.1/index.js'
import { tempDir, writeTree } from './helpers'

const hasRg = spawnSync('rg', ['--version']).status === 0
if (!hasRg) {
  console.warn('search_parity: `rg` is not installed; skipping the ripgrep parity tests')
}

/** A small deterministic PRNG, so every run generates the same tree. */
function rng(seed: number): () => number {
  let s = seed >>> 0
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0
    return s / 2 ** 32
  }
}

const WORDS = [
  'alpha',
  'beta',
  'Gamma',
  'TODO: fix',
  'mutex_lock(&m);',
  'MUTEX_LOCK',
  'fn helper(x: u8) {',
  'fn multi(',
  '    a: u32,',
  ') {}',
  'return 0;',
  'static int counter;',
  '',
  'x = y + z',
  'naïve café ünïcode',
]

/** ~250 files over nested, hidden, ignored and linked directories. */
function generate(root: string, repo: boolean): void {
  const next = rng(repo ? 7 : 11)
  const pick = <T>(xs: T[]): T => xs[Math.floor(next() * xs.length)]
  const dirs = ['', 'src', 'src/core', 'src/core/deep', 'docs', '.config', 'vendor/lib', 'build']
  const exts = ['.rs', '.ts', '.md', '.txt', '.gen', '.h']
  const files: Record<string, string | Uint8Array> = {
    '.gitignore': 'build/\n*.gen\n!keep.gen\n/vendor\n',
    'src/.gitignore': 'scratch.*\n',
    'src/core/.ignore': 'local.txt\n',
    'src/scratch.ts': 'alpha\n',
    'src/core/local.txt': 'alpha\n',
    'keep.gen': 'alpha beta\n',
    'bin/blob.dat': Buffer.concat([Buffer.from('alpha\0beta\n'), Buffer.from('alpha\n')]),
    'crlf.txt': 'alpha\r\nbeta\r\nalpha beta\r\n',
  }
  for (let i = 0; i < 250; i++) {
    const dir = pick(dirs)
    const name = `${dir ? `${dir}/` : ''}${next() < 0.1 ? '.' : ''}f${i}${pick(exts)}`
    const n = 1 + Math.floor(next() * 30)
    files[name] = `${Array.from({ length: n }, () => pick(WORDS)).join('\n')}\n`
  }
  if (repo) files['.git/HEAD'] = 'ref: refs/heads/main alpha\n'
  files['.clarvis/bash-1.stdout.log'] = 'alpha\n'
  files['src/.clarvis-tmp-x'] = 'alpha\n'
  writeTree(root, files)
  mkdirSync(join(root, 'empty'), { recursive: true })
  symlinkSync(join(root, 'src/core'), join(root, 'core-link'))
  symlinkSync(join(root, 'keep.gen'), join(root, 'keep-link.gen'))
}

/** Flags that make rg apply our policy. */
const RG_COMMON = [
  '--no-config',
  '--hidden',
  '--no-require-git',
  '--follow',
  '--sort',
  'path',
  '-g',
  '!.git',
  '-g',
  '!.clarvis',
  '-g',
  '!.clarvis-tmp-*',
]

describe.skipIf(!hasRg).each([
  ['a git repository', true],
  ['a plain directory', false],
])('grep and glob match ripgrep in %s', (_label, repo) => {
  let root: string
  let config: ServerConfig
  let home: string
  const savedHome = process.env.HOME

  beforeAll(() => {
    root = tempDir('atn-parity-')
    generate(root, repo)
    config = resolveConfig({ workspaceRoot: root, maxOutputBytes: 1 << 26 })
    // Neither side may see the real user's global excludes.
    home = tempDir('atn-home-')
    process.env.HOME = home
  })
  afterAll(() => {
    process.env.HOME = savedHome
  })

  function rg(args: string[], cwd = root): string[] {
    const r = spawnSync('rg', [...RG_COMMON, ...args], {
      cwd,
      encoding: 'utf8',
      env: { PATH: process.env.PATH, HOME: home },
      // With a readable stdin and no path, rg would search stdin instead of the tree.
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    if (r.status !== 0 && r.status !== 1) throw new Error(`rg failed: ${r.stderr}`)
    return r.stdout.split('\n').filter((l) => l !== '')
  }

  async function ours(tool: string, args: Record<string, unknown>): Promise<string[]> {
    const r = await dispatch(tool, args, config)
    if (r.isError) throw new Error(r.text)
    return r.text === '(no matches)' ? [] : r.text.split('\n')
  }

  const byPath = (xs: string[]) => [...xs].sort()

  it.each([
    ['alpha'],
    ['(?i)gamma|todo'],
    [String.raw`\bfn \w+\(`],
    ['ünïcode'],
    ['zzz-no-such-thing'],
  ])('files_with_matches: %s', async (pattern) => {
    expect(await ours('grep', { pattern })).toEqual(rg(['-l', pattern]))
  })

  it('content, with rg --crlf (our rows never show the \\r)', async () => {
    const theirs = rg(['-n', '--no-heading', '--with-filename', '--crlf', 'alpha|beta']).map((l) =>
      l.replace(/\r$/, ''),
    )
    expect(theirs.length).toBeGreaterThan(100)
    expect(await ours('grep', { pattern: 'alpha|beta', output_mode: 'content' })).toEqual(theirs)
  })

  it.each([
    [{ context: 2 }, ['-C', '2']],
    [{ before_context: 1, after_context: 3 }, ['-B', '1', '-A', '3']],
  ])('content with context %j', async (ctx, flags) => {
    const theirs = rg(['-n', '--no-heading', '--with-filename', ...flags, 'TODO'])
    expect(await ours('grep', { pattern: 'TODO', output_mode: 'content', ...ctx })).toEqual(theirs)
  })

  it('count, case-insensitive', async () => {
    const theirs = rg(['-c', '-i', 'mutex_lock'])
    expect(theirs.length).toBeGreaterThan(10)
    expect(
      await ours('grep', { pattern: 'mutex_lock', ignore_case: true, output_mode: 'count' }),
    ).toEqual(theirs)
  })

  it('multiline files_with_matches', async () => {
    // Files, not counts: where two matches sit on touching lines, rg 13 counts two while
    // today's grep-searcher (ours, and newer rg) reports them as one merged result.
    const pattern = String.raw`fn multi\(\n\s+a: u32,\n.*\{\}`
    const theirs = rg(['-l', '-U', '--multiline-dotall', pattern])
    expect(theirs.length).toBeGreaterThan(0)
    expect(await ours('grep', { pattern, multiline: true })).toEqual(theirs)
  })

  it.each([['*.rs'], ['src/**/*.md'], ['*.{h,md}']])('glob filter %s', async (glob) => {
    expect(await ours('grep', { pattern: 'alpha', glob })).toEqual(rg(['-l', '-g', glob, 'alpha']))
  })

  it('a subdirectory as path', async () => {
    expect(await ours('grep', { pattern: 'beta', path: 'src' })).toEqual(rg(['-l', 'beta', 'src']))
  })

  // Patterns that match no ignored file: rg's --glob whitelists ignored files, ours only filters.
  it.each([['**/*.md'], ['*.h'], ['src/**/*.rs'], ['core-link/**/*.ts']])(
    'glob tool %s lists the same files as rg --files',
    async (pattern) => {
      const rgGlob = pattern.startsWith('**/') ? pattern.slice(3) : pattern
      expect(byPath(await ours('glob', { pattern }))).toEqual(byPath(rg(['--files', '-g', rgGlob])))
    },
  )
})
