import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  dispatch,
  fsError,
  getTool,
  listTools,
  readOnlyTools,
  resolveConfig,
  selectSurface,
  serializeError,
  ToolError,
  tools,
} from '../v0.1/index.js'
import * as esm from '../v0.1/index.mjs'
import { err, ok, tempDir, workspace } from './helpers'

const require = createRequire(import.meta.url)
const native = require('../binding.js')

describe('module formats', () => {
  it('ESM and CommonJS expose the same objects', () => {
    const cjs = require('../v0.1/index.js')
    const names = [
      'createAgentTools',
      'dispatch',
      'listTools',
      'tools',
      'readOnlyTools',
      'selectSurface',
      'getTool',
      'resolveConfig',
      'buildConfig',
      'StartupError',
      'ToolError',
      'serializeError',
      'fsError',
      'sweepSpillDir',
      'DEFAULT_MAX_OUTPUT_BYTES',
      'DEFAULT_MAX_FILE_BYTES',
      'DEFAULT_BASH_TIMEOUT_MS',
      'DEFAULT_BASH_TIMEOUT_MAX_MS',
    ]
    for (const name of names) {
      expect(cjs[name], name).toBeDefined()
      expect((esm as Record<string, unknown>)[name], name).toBe(cjs[name])
    }
  })
})

describe('registry', () => {
  it('lists tools in registry order with closed schemas', () => {
    const order = [
      'read_file',
      'write_file',
      'edit_file',
      'multi_edit',
      'apply_patch',
      'list_dir',
      'glob',
      'grep',
      'bash',
    ]
    const names = tools.map((t) => t.name)
    expect(names).toEqual(order.filter((n) => names.includes(n)))
    expect(names).toEqual(expect.arrayContaining(['read_file', 'list_dir']))
    for (const t of tools) {
      expect(t.inputSchema.type).toBe('object')
      expect(t.inputSchema.additionalProperties).toBe(false)
      expect(t.description.length).toBeGreaterThan(80)
    }
    const readOnly = readOnlyTools.map((t) => t.name)
    expect(readOnly).toEqual(
      ['read_file', 'list_dir', 'glob', 'grep'].filter((n) => names.includes(n)),
    )
  })

  it('selectSurface returns the same stable arrays; getTool searches a surface', () => {
    expect(selectSurface(true)).toBe(readOnlyTools)
    expect(selectSurface(false)).toBe(tools)
    expect(getTool('read_file')).toBe(tools[0])
    expect(getTool('nope')).toBeUndefined()
    expect(getTool('write_file', readOnlyTools)).toBeUndefined()
  })

  it('listTools projects name, description and inputSchema for the surface', () => {
    const root = tempDir()
    const full = listTools(resolveConfig({ workspaceRoot: root }))
    expect(full.map((t) => t.name)).toEqual(tools.map((t) => t.name))
    expect(Object.keys(full[0]).sort()).toEqual(['description', 'inputSchema', 'name'])
    const ro = listTools(resolveConfig({ workspaceRoot: root, readOnly: true }))
    expect(ro.map((t) => t.name)).toEqual(readOnlyTools.map((t) => t.name))
  })

  it('a handler runs the tool directly and rejects with a ToolError', async () => {
    const { tools: at } = workspace({ 'a.txt': 'x\n' })
    const readFile = getTool('read_file')
    expect(readFile).toBeDefined()
    expect(await readFile?.handler({ path: 'a.txt' }, at.config)).toBe('     1\tx')
    const rejection = await readFile?.handler({ path: 'missing' }, at.config).catch((e) => e)
    expect(rejection).toBeInstanceOf(ToolError)
    expect(rejection).toMatchObject({ code: 'not_found', fields: { path: 'missing' } })
  })
})

describe('dispatch', () => {
  it('unknown tools are not_found', async () => {
    const { tools: at } = workspace()
    expect(err(await at.callTool('frobnicate', {}))).toEqual({
      error: 'not_found',
      message: 'Unknown tool: frobnicate',
    })
  })

  it('a mutating tool under readOnly is not_found', async () => {
    const { tools: at } = workspace({}, { readOnly: true })
    const mutating = tools.filter((t) => !readOnlyTools.includes(t))
    for (const t of mutating) {
      expect(err(await at.callTool(t.name, {}))).toEqual({
        error: 'not_found',
        message: `Unknown tool: ${t.name}`,
      })
    }
  })

  it('schema errors name the field', async () => {
    const { tools: at } = workspace({ 'a.txt': 'x' })
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ path: 'a.txt', bogus: 1 }, /unknown field `bogus`/],
      [{ path: 7 }, /`path` must be a string/],
      [{}, /missing required field `path`/],
      [{ path: 'a.txt', limit: 0 }, /`limit` must be at least 1/],
      [{ path: 'a.txt', limit: 'ten' }, /`limit` must be an integer/],
      [{ path: 'a.txt', limit: '1.5' }, /`limit` must be an integer/],
      [{ path: 'a.txt', limit: 2.5 }, /`limit` must be an integer/],
      [{ path: 'a.txt', offset: null }, /`offset` must be an integer/],
    ]
    for (const [args, message] of cases) {
      const e = err(await at.callTool('read_file', args))
      expect(e.error, JSON.stringify(args)).toBe('invalid_input')
      expect(e.message).toMatch(message)
    }
    expect(err(await at.callTool('read_file', [] as never)).message).toMatch(/must be an object/)
    expect(err(await at.callTool('read_file', {}))).toMatchObject({ field: 'path' })
    expect(err(await at.callTool('read_file', { path: 'a.txt', zz: 1 }))).toMatchObject({
      field: 'zz',
    })
  })

  it('accepts string-encoded integers', async () => {
    const { tools: at } = workspace({ 'a.txt': 'a\nb\nc\n' })
    expect(ok(await at.callTool('read_file', { path: 'a.txt', offset: '2', limit: '1' }))).toBe(
      '     2\tb\n[... 1 of 3 lines shown; continue with offset=3 ...]',
    )
    expect(ok(await at.callTool('read_file', { path: 'a.txt', offset: '-1' }))).toBe('     3\tc')
  })

  it('bounds success text to maxOutputBytes with the marker', async () => {
    const files: Record<string, string> = {}
    for (let i = 0; i < 200; i++) files[`file-with-a-longish-name-${i}.txt`] = 'x'
    const { tools: at } = workspace(files, { maxOutputBytes: 1024 })
    const text = ok(await at.callTool('list_dir', {}))
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(1024)
    expect(text).toMatch(/\n\[\.\.\. output truncated: \d+ of \d+ bytes shown \.\.\.\]$/)
  })

  it('large string arguments arrive intact and are validated like any other', async () => {
    const { root, tools: at } = workspace()
    const content = 'é€😀 line\n'.repeat(20_000) // well over the 64 KiB side-channel threshold
    expect(ok(await at.callTool('write_file', { path: 'big.txt', content }))).toBe(
      `Wrote ${Buffer.byteLength(content)} bytes to big.txt (created).`,
    )
    expect(readFileSync(join(root, 'big.txt'), 'utf8')).toBe(content)
    const handler = getTool('write_file')?.handler
    expect(await handler?.({ path: 'h.txt', content }, at.config)).toMatch(/^Wrote/)
    expect(
      err(await at.callTool('write_file', { path: 'x.txt', content, extra: content })),
    ).toMatchObject({ error: 'invalid_input', field: 'extra' })
    expect(err(await at.callTool('read_file', { path: content })).error).not.toBe('internal')
  })

  it('accepts a plain config object built by the caller', async () => {
    const root = tempDir()
    const r = await dispatch(
      'list_dir',
      {},
      {
        workspaceRoot: root,
        maxOutputBytes: 131072,
        maxFileBytes: 20000000,
        bashTimeoutMs: 120000,
        bashTimeoutMaxMs: 600000,
        ripgrepAvailable: false,
        readOnly: false,
        confineToWorkspace: true,
      },
    )
    expect(ok(r)).toBe('(empty directory)')
  })

  it('never rejects, even on unserializable arguments or a missing config', async () => {
    const circular: Record<string, unknown> = {}
    circular.self = circular
    const root = tempDir()
    const config = resolveConfig({ workspaceRoot: root })
    expect(err(await dispatch('read_file', circular, config)).error).toBe('invalid_input')
    expect(err(await dispatch('read_file', { path: 1n } as never, config)).error).toBe(
      'invalid_input',
    )
    expect(err(await dispatch('read_file', { path: 'x' }, undefined as never)).error).toBe(
      'invalid_input',
    )
  })

  it('NUL bytes in paths are invalid_input', async () => {
    const { tools: at } = workspace()
    expect(err(await at.callTool('read_file', { path: 'a\0b' })).error).toBe('invalid_input')
  })

  it('a panic inside a tool comes back as internal and the process lives on', async () => {
    const r = await native.testOnlyPanic()
    expect(r.isError).toBe(true)
    expect(r.content).toEqual([
      { type: 'text', text: '{"error":"internal","message":"internal error"}' },
    ])
    const { tools: at } = workspace({ 'a.txt': 'still alive' })
    expect(ok(await at.callTool('read_file', { path: 'a.txt' }))).toBe('     1\tstill alive')
  })

  it('a thousand concurrent calls all answer correctly', async () => {
    const big = 'line of text\n'.repeat(20_000)
    const { tools: at } = workspace({ 'big.txt': big })
    const results = await Promise.all(
      Array.from({ length: 1000 }, () => at.callTool('read_file', { path: 'big.txt', offset: -1 })),
    )
    expect(results.every((r) => !r.isError && r.text === ' 20000\tline of text')).toBe(true)
  })

  it('a thousand concurrent calls leave the event loop responsive', async () => {
    // Each call sleeps for a second, so none can answer before then. Submitting all of them
    // must return at once and the event loop must turn (a setImmediate callback runs) before
    // the first answer; a call that did its work on the JS thread would block both. Timer
    // tick counts are not asserted: on a loaded machine they measure CPU share, not blocking.
    const { tools: at } = workspace()
    let answered = 0
    const calls = Array.from({ length: 1000 }, () =>
      at.callTool('bash', { command: 'sleep 1' }).then((r) => {
        answered++
        return r
      }),
    )
    const answeredWhenLoopTurned = await new Promise<number>((resolve) =>
      setImmediate(() => resolve(answered)),
    )
    const results = await Promise.all(calls)
    expect(answeredWhenLoopTurned).toBe(0)
    expect(results.every((r) => !r.isError && JSON.parse(r.text).exit_code === 0)).toBe(true)
  }, 120_000)
})

describe('errors', () => {
  it('ToolError is a real Error with code and fields', () => {
    const e = new ToolError('too_large', 'big', { size: 2, limit: 1 })
    expect(e).toBeInstanceOf(Error)
    expect(e.name).toBe('ToolError')
    expect(e.code).toBe('too_large')
    expect(new ToolError('internal', 'x').fields).toEqual({})
    expect(JSON.parse(serializeError(e))).toEqual({
      error: 'too_large',
      message: 'big',
      size: 2,
      limit: 1,
    })
  })

  it('serializeError hides anything that is not a ToolError', () => {
    const writes: string[] = []
    const orig = process.stderr.write.bind(process.stderr)
    process.stderr.write = ((chunk: string) => {
      writes.push(String(chunk))
      return true
    }) as typeof process.stderr.write
    try {
      expect(serializeError(new Error('secret detail'))).toBe(
        '{"error":"internal","message":"internal error"}',
      )
    } finally {
      process.stderr.write = orig
    }
    expect(writes.join('')).toContain('secret detail')
  })

  it('fsError maps errno codes', () => {
    const mk = (code: string) => Object.assign(new Error(`${code} happened`), { code })
    expect(fsError(mk('ENOENT'), 'a')).toMatchObject({
      code: 'not_found',
      message: 'No such file: a',
      fields: { path: 'a' },
    })
    expect(fsError(mk('EISDIR'), 'd').code).toBe('not_a_file')
    expect(fsError(mk('ENOTDIR'), 'd').code).toBe('not_a_file')
    const io = fsError(mk('EACCES'), 'p')
    expect(io).toMatchObject({ code: 'io_error', fields: { path: 'p' } })
    expect(io.message).toBe('EACCES: EACCES happened')
  })
})
