// Concurrency and crash safety of the editing tools: no lost update under 200 concurrent edits
// of one file, and no torn file when the writing process is SIGKILLed at random moments.
import { spawn } from 'node:child_process'
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createAgentTools } from '../v0.1/index.js'
import { ok, tempDir, workspace } from './helpers'

const { versions } = createRequire(import.meta.url)('./fixtures/crash_content.cjs') as {
  versions(): { labels: string[]; files: Record<string, string[]> }
}

describe('concurrency', () => {
  it('200 concurrent edit_file calls on one file all land', async () => {
    const n = 200
    const lines = Array.from({ length: n }, (_, i) => `<marker ${i}>: todo`)
    const { root, tools } = workspace({ 'f.txt': `${lines.join('\n')}\n` })
    // A second instance with its own config: the per-path lock is process-wide.
    const other = createAgentTools({ workspaceRoot: root })
    const results = await Promise.all(
      lines.map((_, i) =>
        (i % 2 ? other : tools).callTool('edit_file', {
          path: 'f.txt',
          old_string: `<marker ${i}>: todo`,
          new_string: `<marker ${i}>: done`,
        }),
      ),
    )
    for (const r of results) expect(ok(r)).toBe('Replaced 1 occurrence in f.txt.')
    const want = Array.from({ length: n }, (_, i) => `<marker ${i}>: done`)
    expect(readFileSync(join(root, 'f.txt'), 'utf8')).toBe(`${want.join('\n')}\n`)
    expect(readdirSync(root)).toEqual(['f.txt'])
  })

  it('concurrent multi_edit, edit_file and write_file calls never interleave', async () => {
    const { root, tools } = workspace({ 'f.txt': 'a0\nb0\n' })
    const calls = []
    for (let i = 0; i < 50; i++) {
      calls.push(
        tools.callTool('multi_edit', {
          path: 'f.txt',
          edits: [
            { old_string: 'a', new_string: 'a+' },
            { old_string: 'b', new_string: 'b+' },
          ],
        }),
      )
      calls.push(tools.callTool('edit_file', { path: 'g.txt', old_string: 'x', new_string: 'y' }))
      calls.push(tools.callTool('write_file', { path: 'g.txt', content: `x${i}` }))
    }
    await Promise.all(calls)
    // Each multi_edit added one "+" to both lines in one step: the counts stay equal.
    const [a, b] = readFileSync(join(root, 'f.txt'), 'utf8').split('\n')
    expect(a).toBe(`a${'+'.repeat(50)}0`)
    expect(b).toBe(`b${'+'.repeat(50)}0`)
  })
})

describe('crash safety', () => {
  it('every file is entirely old or entirely new after SIGKILL at random moments (200 trials; write_file, edit_file, multi_edit, apply_patch)', async () => {
    const { files } = versions()
    const child = join(__dirname, 'fixtures', 'crash_child.cjs')
    const trials = 200
    const lanes = 6
    let tempLeft = 0
    const seen: Record<string, Set<number>> = {}
    for (const name of Object.keys(files)) seen[name] = new Set()

    const trial = async () => {
      const root = tempDir('atn-crash-')
      for (const [name, v] of Object.entries(files)) writeFileSync(join(root, name), v[0])
      const proc = spawn(process.execPath, [child, root], { stdio: ['ignore', 'pipe', 'pipe'] })
      let stderr = ''
      proc.stderr.on('data', (d) => {
        stderr += d
      })
      const exited = new Promise<NodeJS.Signals | null>((resolve) =>
        proc.on('exit', (_code, signal) => resolve(signal)),
      )
      await new Promise<void>((resolve, reject) => {
        proc.stdout.on('data', (d) => {
          if (String(d).includes('ready')) resolve()
        })
        proc.on('exit', () => reject(new Error(`child exited early: ${stderr}`)))
      })
      await new Promise((r) => setTimeout(r, Math.random() * 60))
      proc.kill('SIGKILL')
      expect(await exited).toBe('SIGKILL')
      for (const [name, v] of Object.entries(files)) {
        const got = readFileSync(join(root, name), 'utf8')
        const which = v.indexOf(got)
        expect(which, `${name} is neither the old nor the new content`).toBeGreaterThanOrEqual(0)
        seen[name].add(which)
      }
      const extra = readdirSync(root).filter((n) => !(n in files))
      // A kill between staging and rename may leave a temp file; never anything else.
      for (const n of extra) expect(n.startsWith('.clarvis-tmp-')).toBe(true)
      if (extra.length) tempLeft++
    }

    let next = 0
    await Promise.all(
      Array.from({ length: lanes }, async () => {
        while (next < trials) {
          next++
          await trial()
        }
      }),
    )
    console.log(
      `crash safety: ${trials} trials, ${tempLeft} killed mid-write (temp file left); versions seen: ${Object.entries(
        seen,
      )
        .map(([n, s]) => `${n}=${[...s].sort().join('/')}`)
        .join(' ')}`,
    )
  }, 120_000)
})
