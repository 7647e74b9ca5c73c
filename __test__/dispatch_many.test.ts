// dispatchMany: many calls in one crossing, each answered exactly as dispatch answers it.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { contentText, dispatch, dispatchMany, resolveConfig } from '../index.js'
import { tempDir, writeTree } from './helpers'

function setup() {
  const dir = tempDir()
  writeTree(dir, {
    'a.txt': 'alpha\nbeta\n',
    'b.txt': Array.from({ length: 50 }, (_, i) => `row ${i}`).join('\r\n'),
    'src/x.ts': 'export const x = 1\n',
  })
  return { dir, config: resolveConfig({ workspaceRoot: dir }) }
}

/** A result as plain data: its own keys plus the text view. */
const plain = (r: unknown) => JSON.parse(JSON.stringify(r))

describe('dispatchMany', () => {
  it('answers every call in order, each exactly what dispatch gives', async () => {
    const { config } = setup()
    const calls = [
      { name: 'read_file', args: { path: 'a.txt' } },
      { name: 'read_file', args: { path: 'b.txt', offset: -3 } },
      { name: 'grep', args: { pattern: 'row 4\\d', output_mode: 'count' } },
      { name: 'list_dir', args: {} },
      { name: 'glob', args: { pattern: '**/*.ts' } },
      { name: 'read_file', args: { path: 'missing.txt' } },
      { name: 'no_such_tool', args: {} },
      { name: 'read_file', args: { path: 'a.txt', offset: 0 } },
    ]
    const many = await dispatchMany(calls, config)
    expect(many).toHaveLength(calls.length)
    const one = []
    for (const c of calls) one.push(await dispatch(c.name, c.args, config))
    expect(many.map(plain)).toEqual(one.map(plain))
    expect(many.map((r) => r.isError)).toEqual([
      false,
      false,
      false,
      false,
      false,
      true,
      true,
      true,
    ])
    expect(contentText(many[1].content)).toBe('    48\trow 47\n    49\trow 48\n    50\trow 49')
    // The text view of a root result works on batch results too.
    expect(many[0].text).toBe('     1\talpha\n     2\tbeta')
  })

  it('runs mutating calls too', async () => {
    const { config } = setup()
    const [made] = await dispatchMany(
      [{ name: 'write_file', args: { path: 'new.txt', content: 'made\n' } }],
      config,
    )
    expect(made.isError).toBe(false)
    expect(readFileSync(join(config.workspaceRoot, 'new.txt'), 'utf8')).toBe('made\n')
  })

  it('an empty batch answers an empty list; a bad call answers its own envelope', async () => {
    const { config } = setup()
    expect(await dispatchMany([], config)).toEqual([])
    const cyclic: Record<string, unknown> = {}
    cyclic.self = cyclic
    const [bad, good] = await dispatchMany(
      [
        { name: 'read_file', args: cyclic },
        { name: 'read_file', args: { path: 'a.txt', limit: 1 } },
      ],
      config,
    )
    expect(bad.isError).toBe(true)
    expect(JSON.parse(contentText(bad.content))).toMatchObject({ error: 'invalid_input' })
    expect(plain(bad)).toEqual(plain(await dispatch('read_file', cyclic, config)))
    expect(contentText(good.content)).toBe(
      '     1\talpha\n[... 1 of 2 lines shown; continue with offset=2 ...]',
    )
  })

  it('rejects a non-array with a TypeError that says what to pass', async () => {
    const { config } = setup()
    await expect(dispatchMany({} as never, config)).rejects.toThrow(
      /calls must be an array of \{ name, args \}/,
    )
  })

  it('an aborted signal aborts the calls that wait', async () => {
    const { config } = setup()
    const [slow, quick] = await dispatchMany(
      [
        { name: 'bash', args: { command: 'sleep 5; touch late.txt' } },
        { name: 'read_file', args: { path: 'a.txt' } },
      ],
      config,
      AbortSignal.abort(),
    )
    expect(JSON.parse(contentText(slow.content)).error).toBe('aborted')
    expect(quick.isError).toBe(false)
  })

  it('with a guard, every call goes through dispatch (and so through the guard)', async () => {
    const { dir } = setup()
    const seen: string[] = []
    const config = resolveConfig({
      workspaceRoot: dir,
      guard: (ctx) => {
        seen.push(ctx.tool)
        return ctx.tool === 'list_dir'
          ? { verdict: 'deny', reason: 'no listing' }
          : { verdict: 'allow' }
      },
    })
    const calls = [
      { name: 'read_file', args: { path: 'a.txt' } },
      { name: 'list_dir', args: {} },
      { name: 'read_file', args: { path: 'b.txt', limit: 1 } },
    ]
    const many = await dispatchMany(calls, config)
    expect(seen.sort()).toEqual(['list_dir', 'read_file', 'read_file'])
    expect(many[0].isError).toBe(false)
    expect(JSON.parse(contentText(many[1].content))).toEqual({
      error: 'denied',
      message: 'no listing',
    })
    const one = await Promise.all(calls.map((c) => dispatch(c.name, c.args, config)))
    expect(many.map(plain)).toEqual(one.map(plain))
  })

  it('a thousand calls come back in order', async () => {
    const { config } = setup()
    const calls = Array.from({ length: 1000 }, (_, i) => ({
      name: 'read_file',
      args: { path: 'b.txt', offset: (i % 50) + 1, limit: 1 },
    }))
    const many = await dispatchMany(calls, config)
    many.forEach((r, i) => {
      expect(contentText(r.content).split('\n')[0]).toBe(
        `${String((i % 50) + 1).padStart(6)}\trow ${i % 50}`,
      )
    })
  })
})
