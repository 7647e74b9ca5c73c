// Round trips against real tools: random edits to a random tree are turned into a patch by
// `git diff` (renames detected, CRLF files, missing final newlines, creates and deletes) and by
// GNU `diff -ruN` (epoch timestamps for missing files); the patch is applied by apply_patch to a
// copy of the original tree, and the result must equal the edited tree byte for byte. The git
// diffs rewritten in the Begin-Patch format must give the same result.
import { execFileSync, spawnSync } from 'node:child_process'
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createAgentTools } from '../v0.1/index.js'
import { ok, tempDir } from './helpers'

/** A small deterministic PRNG (mulberry32). */
function rng(seed: number) {
  let a = seed >>> 0
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  return {
    next,
    int: (n: number) => Math.floor(next() * n),
    pick: <T>(xs: T[]): T => xs[Math.floor(next() * xs.length)],
  }
}

type Tree = Map<string, Buffer>

function readTree(root: string, dir = ''): Tree {
  const out: Tree = new Map()
  for (const e of readdirSync(join(root, dir), { withFileTypes: true })) {
    const rel = dir ? `${dir}/${e.name}` : e.name
    if (rel === '.git') continue
    if (e.isDirectory()) for (const [k, v] of readTree(root, rel)) out.set(k, v)
    else out.set(rel, readFileSync(join(root, rel)))
  }
  return out
}

function writeTree(root: string, tree: Tree) {
  for (const [rel, content] of tree) {
    mkdirSync(dirname(join(root, rel)), { recursive: true })
    writeFileSync(join(root, rel), content)
  }
}

const show = (t: Tree) => Object.fromEntries([...t].map(([k, v]) => [k, v.toString('latin1')]))

/** A random file: unique lines, LF or CRLF, with or without a final newline. */
function randomFile(r: ReturnType<typeof rng>, id: string, ending: string, finalNewline: boolean) {
  const n = 1 + r.int(40)
  const lines = Array.from({ length: n }, (_, i) => `${id} line ${i} ${r.int(1e9).toString(36)}`)
  return { lines, ending, finalNewline }
}

type Doc = ReturnType<typeof randomFile>
const render = (d: Doc) =>
  Buffer.from(d.lines.join(d.ending) + (d.finalNewline && d.lines.length ? d.ending : ''))

/** Random edits to one file's lines: replacements, insertions, deletions. */
function edit(r: ReturnType<typeof rng>, d: Doc, tag: string): Doc {
  const lines = [...d.lines]
  const edits = 1 + r.int(4)
  for (let e = 0; e < edits; e++) {
    const at = r.int(lines.length + 1)
    const kind = r.int(3)
    const fresh = () => `${tag} new ${e} ${r.int(1e9).toString(36)}`
    if (kind === 0 && at < lines.length) lines[at] = fresh()
    else if (kind === 1) lines.splice(at, 0, ...Array.from({ length: 1 + r.int(3) }, fresh))
    else if (at < lines.length && lines.length > 1) lines.splice(at, 1 + r.int(2))
  }
  return { ...d, lines }
}

function git(cwd: string, ...args: string[]) {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    maxBuffer: 1 << 26,
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', HOME: cwd },
  })
}

/** The Begin-Patch rendering of a git diff (no-newline markers have no equivalent there). */
function toBeginPatch(diff: string): string {
  const out = ['*** Begin Patch']
  const blocks = diff.split(/^diff --git /m).slice(1)
  for (const block of blocks) {
    const lines = block.split('\n')
    const header = (p: string) => lines.find((l) => l.startsWith(p))?.slice(p.length)
    const from = header('rename from ')
    const to = header('rename to ')
    const minus = header('--- ')
    const plus = header('+++ ')
    const hunks: string[] = []
    let inHunk = false
    for (const l of lines) {
      if (l.startsWith('@@')) {
        inHunk = true
        hunks.push('@@')
      } else if (inHunk && /^[ +-]/.test(l)) hunks.push(l)
    }
    if (minus === '/dev/null') {
      out.push(`*** Add File: ${plus?.slice(2)}`, ...hunks.filter((l) => l !== '@@'))
    } else if (plus === '/dev/null') {
      out.push(`*** Delete File: ${minus?.slice(2)}`)
    } else if (from && to) {
      out.push(`*** Update File: ${from}`, `*** Move to: ${to}`, ...hunks)
    } else {
      out.push(`*** Update File: ${minus?.slice(2)}`, ...hunks)
    }
  }
  out.push('*** End Patch')
  return `${out.join('\n')}\n`
}

function scenario(seed: number, allowNoFinalNewline: boolean) {
  const r = rng(seed)
  const before: Tree = new Map()
  const after: Tree = new Map()
  const files = 2 + r.int(5)
  for (let f = 0; f < files; f++) {
    const rel = `${r.pick(['', 'src/', 'lib/deep/'])}f${f}.txt`
    const doc = randomFile(
      r,
      `f${f}`,
      r.next() < 0.3 ? '\r\n' : '\n',
      !allowNoFinalNewline || r.next() < 0.8,
    )
    before.set(rel, render(doc))
    const op = r.int(10)
    if (op < 5) after.set(rel, render(edit(r, doc, `e${f}`)))
    else if (op < 6) {
      // deleted
    } else if (op < 7) after.set(rel.replace('.txt', '.moved.txt'), render(doc))
    else if (op < 8)
      after.set(`moved/${rel}`, render(edit(r, { ...doc, lines: doc.lines }, `m${f}`)))
    else after.set(rel, render(doc))
  }
  const creates = r.int(3)
  for (let c = 0; c < creates; c++) {
    after.set(`new/c${c}.txt`, render(randomFile(r, `c${c}`, '\n', true)))
  }
  return { before, after }
}

function gitDiff(before: Tree, after: Tree): string {
  const repo = tempDir('atn-git-')
  git(repo, 'init', '-q')
  git(repo, 'config', 'core.autocrlf', 'false')
  writeTree(repo, before)
  git(repo, 'add', '-A')
  git(repo, '-c', 'user.email=t@t', '-c', 'user.name=t', 'commit', '-qm', 'before', '--allow-empty')
  for (const rel of before.keys()) rmSync(join(repo, rel))
  writeTree(repo, after)
  git(repo, 'add', '-A')
  return git(repo, 'diff', '--cached', '-M50%', '--no-color', '--no-ext-diff')
}

/** GNU `diff -ruN a b`: no renames, epoch timestamps for missing files. */
function gnuDiff(before: Tree, after: Tree): string {
  const dir = tempDir('atn-diff-')
  writeTree(join(dir, 'a'), before)
  writeTree(join(dir, 'b'), after)
  mkdirSync(join(dir, 'a'), { recursive: true })
  mkdirSync(join(dir, 'b'), { recursive: true })
  const r = spawnSync('diff', ['-ruN', 'a', 'b'], {
    cwd: dir,
    encoding: 'utf8',
    maxBuffer: 1 << 26,
  })
  if (r.status !== 0 && r.status !== 1) throw new Error(`diff failed: ${r.stderr}`)
  return r.stdout
}

const variants = {
  'git diff': (b: Tree, a: Tree) => gitDiff(b, a),
  'diff -ruN': (b: Tree, a: Tree) => gnuDiff(b, a),
  'git diff rewritten as Begin-Patch': (b: Tree, a: Tree) => toBeginPatch(gitDiff(b, a)),
}

/** Whether a command runs at all here (the round trips need `git` and GNU `diff`). */
const available = (cmd: string) => spawnSync(cmd, ['--version']).status === 0

describe('apply_patch round trips against git diff and GNU diff', () => {
  for (const [name, make] of Object.entries(variants)) {
    const tool = name.startsWith('diff') ? 'diff' : 'git'
    it.skipIf(!available(tool))(
      `reproduces ${name} results on 25 random trees`,
      async () => {
        const beginPatch = name.includes('Begin-Patch')
        for (let seed = 1; seed <= 25; seed++) {
          const { before, after } = scenario(seed, !beginPatch)
          const text = make(before, after)
          if (!text.trim() || text.trim() === '*** Begin Patch\n*** End Patch') continue
          const root = tempDir()
          writeTree(root, before)
          const tools = createAgentTools({ workspaceRoot: root })
          const result = await tools.callTool('apply_patch', { patch: text })
          if (result.isError) throw new Error(`seed ${seed}: ${result.text}\n${text}`)
          ok(result)
          expect(show(readTree(root)), `seed ${seed}\n${text}`).toEqual(show(after))
          rmSync(root, { recursive: true, force: true })
        }
      },
      120_000,
    )
  }
})
