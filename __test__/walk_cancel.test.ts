// Cancelled searches: a walk polls the call's abort signal between files and directories and
// answers the `aborted` envelope instead of a partial result.
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
  ])('%s %j with an aborted signal answers aborted', async (tool, args) => {
    const config = resolveConfig({ workspaceRoot: bigTree() })
    const r = await dispatch(tool, args, config, AbortSignal.abort())
    expect(r.isError).toBe(true)
    expect(JSON.parse(r.text)).toMatchObject({
      error: 'aborted',
      message: 'Search aborted (run cancelled)',
    })
  })

  it('an abort during a search gives aborted or the whole answer, never a partial one', async () => {
    const config = resolveConfig({ workspaceRoot: bigTree() })
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
