// Cancelled searches: with extras, a walk polls the call's abort signal between files and
// directories and answers the `aborted` envelope instead of a partial result. At the contract
// root the signal stops bash, outline, check_syntax and monitor_start only (CONTRACT-v0.5 §1
// "Cancellation": "The guard and the other tools ignore the signal").
import { describe, expect, it } from 'vitest'
import { dispatch, resolveConfig } from '../index.js'
import { tempDir, writeTree } from './helpers'

function bigTree(): string {
  const root = tempDir('atn-cancel-')
  const files: Record<string, string> = {}
  for (let i = 0; i < 600; i++) files[`d${i % 20}/e${i % 7}/f${i}.txt`] = 'needle\n'
  writeTree(root, files)
  return root
}

describe('cancelled walks', () => {
  it.each([
    ['grep', { pattern: 'needle' }],
    ['grep', { pattern: 'needle', output_mode: 'content' }],
    ['glob', { pattern: '**/*.txt' }],
  ])('%s %j with an aborted signal answers aborted (extras)', async (tool, args) => {
    const config = resolveConfig({ workspaceRoot: bigTree(), extras: true })
    const r = await dispatch(tool, args, config, AbortSignal.abort())
    expect(r.isError).toBe(true)
    expect(JSON.parse(r.text)).toMatchObject({
      error: 'aborted',
      message: 'Search aborted (run cancelled)',
    })
  })

  it.each([
    ['grep', { pattern: 'needle' }, 600],
    ['glob', { pattern: '**/*.txt' }, 600],
    ['tree', { path: '.' }, 20 + 140 + 600 + 1],
    ['replace', { pattern: 'needle', replacement: 'pin', path: '.', dry_run: true }, 0],
  ])('%s %j ignores an aborted signal at the contract root', async (tool, args, rows) => {
    const config = resolveConfig({ workspaceRoot: bigTree() })
    const r = await dispatch(tool, args, config, AbortSignal.abort())
    expect(r.isError).toBe(false)
    if (rows) expect(r.text.split('\n')).toHaveLength(rows)
    else expect(r.text).toMatch(/^600 replacement\(s\) across 600 file\(s\); 600 scanned/)
  })

  it('an abort during a search gives aborted or the whole answer, never a partial one', async () => {
    const config = resolveConfig({ workspaceRoot: bigTree(), extras: true })
    const controller = new AbortController()
    const call = dispatch('grep', { pattern: 'needle' }, config, controller.signal)
    setImmediate(() => controller.abort())
    const r = await call
    if (r.isError) {
      expect(JSON.parse(r.text).error).toBe('aborted')
    } else {
      expect(r.text.split('\n')).toHaveLength(600)
    }
  })
})
