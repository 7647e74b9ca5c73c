// The package root serves the newest contract (CONTRACT-v0.5.md §1, §6): content-part results,
// lenient validation, cancellation, the bash tail view, the new settings and exports. The seed
// contract's own suite runs against `agent-tools-native/v0.1` (see helpers.ts).
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import * as root from '../index.js'
import * as seed from '../v0.1/index.js'
import { alive, tempDir, writeTree } from './helpers'

const { buildConfig, contentText, createAgentTools, dispatch, resolveConfig, setWarnSink, tools } =
  root

function agent(files: Record<string, string> = {}, options: Record<string, unknown> = {}) {
  const dir = tempDir()
  writeTree(dir, files)
  return { dir, tools: createAgentTools({ workspaceRoot: dir, ...options }) }
}

const envelope = (r: root.DispatchResult) => JSON.parse(contentText(r.content))

describe('results are content parts', () => {
  it('a success is { isError, content } with a text part, and answers .text too', async () => {
    const { tools: t } = agent({ 'a.txt': 'one\ntwo\n' })
    const r = await t.callTool('read_file', { path: 'a.txt' })
    expect(r).toEqual({
      isError: false,
      content: [{ type: 'text', text: '     1\tone\n     2\ttwo' }],
    })
    expect(Object.keys(r)).toEqual(['isError', 'content'])
    expect(r.text).toBe('     1\tone\n     2\ttwo')
  })

  it('an error is one text part holding the envelope, with no meta', async () => {
    const { tools: t } = agent()
    const r = await t.callTool('read_file', { path: 'missing.txt' })
    expect(r.isError).toBe(true)
    expect(r.meta).toBeUndefined()
    expect(r.content).toHaveLength(1)
    expect(envelope(r)).toEqual({
      error: 'not_found',
      message: 'No such file: missing.txt',
      path: 'missing.txt',
    })
  })

  it('contentText joins text parts with no separator and skips images', () => {
    expect(
      contentText([
        { type: 'text', text: 'a' },
        { type: 'image', data: 'AA==', mimeType: 'image/png' },
        { type: 'text', text: 'b' },
      ]),
    ).toBe('ab')
    expect(contentText('plain')).toBe('plain')
  })

  it('a handler called directly resolves to { content } and rejects with a ToolError', async () => {
    const dir = tempDir()
    writeTree(dir, { 'a.txt': 'x\n' })
    const config = resolveConfig({ workspaceRoot: dir })
    const readFile = tools.find((t) => t.name === 'read_file')
    expect(await readFile?.handler({ path: 'a.txt' }, config)).toEqual({
      content: [{ type: 'text', text: '     1\tx' }],
    })
    await expect(readFile?.handler({ path: 'nope' }, config)).rejects.toMatchObject({
      name: 'ToolError',
      code: 'not_found',
    })
  })

  it('the seed entry keeps { isError, text } from the same engine', async () => {
    const dir = tempDir()
    writeTree(dir, { 'a.txt': 'x\n' })
    const r = await seed.createAgentTools({ workspaceRoot: dir }).callTool('read_file', {
      path: 'a.txt',
    })
    expect(r).toEqual({ isError: false, text: '     1\tx' })
  })
})

describe('lenient validation at the root', () => {
  it('coerces strings, numbers, booleans and null the way ajv does, and ignores unknown keys', async () => {
    const { tools: t } = agent({ 'a.txt': 'l1\nl2\nl3\n' })
    const r = await t.callTool('read_file', { path: 'a.txt', offset: '2', limit: '1', extra: 1 })
    expect(r.text).toBe('     2\tl2\n[... 1 of 3 lines shown; continue with offset=3 ...]')
    const g = await t.callTool('grep', { pattern: 'l', output_mode: 'count', '-n': 'true' })
    expect(g.isError).toBe(false)
  })

  it('reads a number from a string as ajv does: JavaScript Number(), whitespace and 0x too', async () => {
    // CONTRACT-v0.5 §1: values are coerced (ajv `coerceTypes`: a string `s` with `s == +s`).
    // Each expectation is ajv's own verdict on the advertised schema.
    const Ajv = (await import('ajv')).default
    const schema = tools.find((t) => t.name === 'read_file')?.inputSchema as object
    const validate = new Ajv({ coerceTypes: true, strict: false }).compile(schema)
    const { tools: t } = agent({ 'a.txt': 'l1\nl2\nl3\n' })
    for (const offset of [
      '2',
      ' 2 ',
      '2\n',
      '\u00a02',
      '0x2',
      '0b10',
      '0o2',
      '.2e1',
      '2.',
      '+2',
      '2.5',
      '0x',
      '2 3',
      '1_0',
      '',
      'two',
    ]) {
      const data: Record<string, unknown> = { path: 'a.txt', offset, limit: 1 }
      const valid = validate(data)
      const r = await t.callTool('read_file', { path: 'a.txt', offset, limit: 1 })
      expect(r.isError, JSON.stringify(offset)).toBe(!valid)
      if (valid)
        expect(r.text.split('\t')[0].trim(), JSON.stringify(offset)).toBe(String(data.offset))
      else expect(envelope(r).message).toBe('data/offset must be integer')
    }
  })

  it('0 means the default for read_file.limit, grep.head_limit and bash.timeout_ms', async () => {
    const lines = Array.from({ length: 2500 }, (_, i) => `line ${i + 1}`).join('\n')
    const { tools: t } = agent({ 'big.txt': lines })
    const r = await t.callTool('read_file', { path: 'big.txt', limit: 0 })
    expect(r.text).toContain('[... 2000 of 2500 lines shown; continue with offset=2001 ...]')
    const g = await t.callTool('grep', {
      pattern: 'line 1',
      path: 'big.txt',
      output_mode: 'content',
      head_limit: 0,
    })
    expect(g.text.split('\n').filter((l) => l.startsWith('big.txt:')).length).toBe(1111)
    const b = await t.callTool('bash', { command: 'echo ok', timeout_ms: 0 })
    expect(JSON.parse(b.text).stdout).toBe('ok\n')
  })

  it('truly bad input is invalid_input in the validator words, every error joined', async () => {
    const { tools: t } = agent()
    expect(envelope(await t.callTool('read_file', { limit: -1 }))).toEqual({
      error: 'invalid_input',
      message: "data must have required property 'path'; data/limit must be >= 0",
    })
    expect(envelope(await t.callTool('multi_edit', { path: 'a', edits: [] }))).toEqual({
      error: 'invalid_input',
      message: 'data/edits must NOT have fewer than 1 items',
    })
  })

  it('advertises open schemas with no minLength inside arrays of objects', () => {
    for (const tool of tools) {
      expect(JSON.stringify(tool.inputSchema)).not.toContain('"additionalProperties":false')
    }
    const multi = tools.find((t) => t.name === 'multi_edit')?.inputSchema as {
      properties: { edits: { items: { properties: { old_string: Record<string, unknown> } } } }
    }
    expect(multi.properties.edits.items.properties.old_string.minLength).toBeUndefined()
  })

  it('an empty old_string inside multi_edit is refused at run time with its index', async () => {
    const { tools: t } = agent({ 'a.txt': 'abc\n' })
    const r = await t.callTool('multi_edit', {
      path: 'a.txt',
      edits: [
        { old_string: 'a', new_string: 'A' },
        { old_string: '', new_string: 'x' },
      ],
    })
    expect(envelope(r)).toMatchObject({
      error: 'invalid_input',
      message: 'edit[1]: old_string must not be empty.',
      index: 1,
    })
    expect(readFileSync(join(t.config.workspaceRoot, 'a.txt'), 'utf8')).toBe('abc\n')
  })
})

describe('bash under the newest contract', () => {
  it('keeps the tail within maxBashOutputBytes and spills the whole output', async () => {
    const { dir, tools: t } = agent({}, { maxBashOutputBytes: 1024 })
    const r = await t.callTool('bash', { command: 'seq 1 3000; echo the-end' })
    const report = JSON.parse(r.text)
    // The budget is of captured bytes; the marker and the JSON are outside it (wording §8).
    expect(report.stdout).toMatch(
      /^\[\.\.\. earlier output truncated: last 1024 of 13901 bytes shown; full output written to \.clarvis\/bash-[^ ]+\.stdout\.log \.\.\.\]\n/,
    )
    expect(report.stdout.split(' ...]\n')[1]).toHaveLength(1024)
    expect(report.stdout.endsWith('2999\n3000\nthe-end\n')).toBe(true)
    const rel = /written to (\S+) /.exec(report.stdout)?.[1] ?? ''
    expect(readFileSync(join(dir, rel), 'utf8')).toContain('1\n2\n3\n')
  })

  it('an abort kills the whole process group and resolves an aborted envelope', async () => {
    const { tools: t } = agent()
    const controller = new AbortController()
    const call = t.callTool(
      'bash',
      { command: 'sleep 30 & echo $! > bg.pid; echo started; sleep 30' },
      { signal: controller.signal },
    )
    await new Promise((r) => setTimeout(r, 300))
    controller.abort()
    const r = await call
    const e = envelope(r)
    expect(e).toMatchObject({ error: 'aborted', message: 'Command aborted (run cancelled)' })
    expect(e.stdout).toBe('started\n')
    const bg = Number(readFileSync(join(t.config.workspaceRoot, 'bg.pid'), 'utf8'))
    for (let i = 0; i < 100 && alive(bg); i++) await new Promise((r) => setTimeout(r, 20))
    expect(alive(bg)).toBe(false)
  })

  it('a signal that is already aborted never lets the command run on', async () => {
    const { dir } = agent()
    const config = resolveConfig({ workspaceRoot: dir })
    const r = await dispatch(
      'bash',
      { command: 'sleep 5; touch late.txt' },
      config,
      AbortSignal.abort(),
    )
    expect(envelope(r).error).toBe('aborted')
  })
})

describe('configuration', () => {
  it('resolveConfig gives the fifteen fields in the contract order, guard and elicit included', () => {
    const dir = tempDir()
    const config = resolveConfig({ workspaceRoot: dir })
    expect(Object.keys(config)).toEqual([
      'workspaceRoot',
      'maxOutputBytes',
      'maxBashOutputBytes',
      'maxFileBytes',
      'maxImageBytes',
      'bashTimeoutMs',
      'bashTimeoutMaxMs',
      'monitorReadyTimeoutMs',
      'maxMonitors',
      'ripgrepAvailable',
      'treeSitterAvailable',
      'readOnly',
      'confineToWorkspace',
      'guard',
      'elicit',
    ])
    expect(config).toMatchObject({
      maxBashOutputBytes: 16384,
      maxImageBytes: 5000000,
      monitorReadyTimeoutMs: 30000,
      maxMonitors: 32,
      treeSitterAvailable: true,
      guard: undefined,
      elicit: undefined,
    })
    // Wording §3: "a new plain object from the known fields only (not frozen)"; the seed
    // contract's config is frozen.
    expect(Object.isFrozen(config)).toBe(false)
    expect(Object.isFrozen(seed.resolveConfig({ workspaceRoot: dir }))).toBe(true)
    expect(Object.keys(seed.resolveConfig({ workspaceRoot: dir }))).toHaveLength(8)
  })

  it('floors name the setting, and an injected tree-sitter probe is honoured', () => {
    const dir = tempDir()
    for (const [name, value, min] of [
      ['maxBashOutputBytes', 1023, 1024],
      ['maxImageBytes', 10, 1024],
      ['monitorReadyTimeoutMs', 0, 1],
      ['maxMonitors', 0, 1],
    ] as const) {
      expect(() => resolveConfig({ workspaceRoot: dir, [name]: value })).toThrow(
        `${name} must be an integer >= ${min}, got: ${value}`,
      )
    }
    expect(
      resolveConfig({ workspaceRoot: dir, probeTreeSitter: () => false }).treeSitterAvailable,
    ).toBe(false)
  })

  it('a caller-built config without treeSitterAvailable offers outline but gets no warnings', async () => {
    const dir = tempDir()
    const resolved = resolveConfig({ workspaceRoot: dir })
    const { treeSitterAvailable: _, guard: _g, elicit: _e, ...plain } = resolved
    const broken = { path: 'a.ts', content: 'function f( {\n' }
    const warned = await dispatch('write_file', broken, resolved)
    expect(warned.text).toContain('warning: typescript syntax error in a.ts')
    const silent = await dispatch('write_file', broken, plain as typeof resolved)
    expect(silent.text).toBe('Wrote 14 bytes to a.ts (overwritten).')
    const outline = await dispatch('outline', { path: 'a.ts' }, plain as typeof resolved)
    expect(outline.isError).toBe(false)
  })

  it('buildConfig reads the new variables with the seed rules', () => {
    const dir = tempDir()
    const c = buildConfig([], {
      WORKSPACE_ROOT: dir,
      MAX_BASH_OUTPUT_BYTES: '2048',
      MAX_IMAGE_BYTES: '4096',
      MONITOR_READY_TIMEOUT_MS: '5',
      MAX_MONITORS: '3',
    })
    expect(c).toMatchObject({
      maxBashOutputBytes: 2048,
      maxImageBytes: 4096,
      monitorReadyTimeoutMs: 5,
      maxMonitors: 3,
    })
    expect(() => buildConfig([], { WORKSPACE_ROOT: dir, MAX_MONITORS: '3x' })).toThrow(
      'MAX_MONITORS must be a positive integer, got: 3x',
    )
    // The seed entry does not read the newer variables at all.
    expect(() => seed.buildConfig([], { WORKSPACE_ROOT: dir, MAX_MONITORS: '3x' })).not.toThrow()
  })

  it('exports the defaults', () => {
    expect([
      root.DEFAULT_MAX_OUTPUT_BYTES,
      root.DEFAULT_MAX_BASH_OUTPUT_BYTES,
      root.DEFAULT_MAX_FILE_BYTES,
      root.DEFAULT_MAX_IMAGE_BYTES,
      root.DEFAULT_BASH_TIMEOUT_MS,
      root.DEFAULT_BASH_TIMEOUT_MAX_MS,
      root.DEFAULT_MONITOR_READY_TIMEOUT_MS,
      root.DEFAULT_MAX_MONITORS,
    ]).toEqual([131072, 16384, 20000000, 5000000, 120000, 600000, 30000, 32])
  })

  it('setWarnSink routes diagnostics, and null restores stderr', () => {
    const lines: string[] = []
    setWarnSink((m) => lines.push(m))
    try {
      expect(root.serializeError(new Error('boom'))).toBe(
        '{"error":"internal","message":"internal error"}',
      )
    } finally {
      setWarnSink(null)
    }
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(/^clarvis-agent-tools: internal error: Error: boom/)
    expect(lines[0].endsWith('\n')).toBe(true)
  })

  it('the engine hands its diagnostics (a panic) to the sink instead of printing them', async () => {
    const { native } = require('../api.js')
    const out = await native.testOnlyPanic()
    expect(out.warnings).toEqual([
      'internal error: tool `test_only_panic` panicked: injected test panic',
    ])
  })
})

describe('the MCP server', () => {
  it('notifications/cancelled kills a running command', async () => {
    const dir = tempDir()
    const child = spawn(
      process.execPath,
      [join(__dirname, '..', 'cli.js'), 'mcp', '--workspace', dir],
      {
        stdio: ['pipe', 'pipe', 'inherit'],
      },
    )
    let stdout = ''
    child.stdout.setEncoding('utf8').on('data', (d) => {
      stdout += d
    })
    const send = (m: object) => child.stdin.write(`${JSON.stringify(m)}\n`)
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 't', version: '1' },
      },
    })
    send({ jsonrpc: '2.0', method: 'notifications/initialized' })
    send({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'bash', arguments: { command: 'echo $$ > sh.pid; sleep 30' } },
    })
    let shPid = 0
    for (let i = 0; i < 250 && !shPid; i++) {
      await new Promise((r) => setTimeout(r, 20))
      try {
        shPid = Number(readFileSync(join(dir, 'sh.pid'), 'utf8'))
      } catch {
        // Not written yet.
      }
    }
    expect(shPid).toBeGreaterThan(0)
    send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 2 } })
    for (let i = 0; i < 50 && alive(shPid); i++) await new Promise((r) => setTimeout(r, 20))
    expect(alive(shPid)).toBe(false)
    child.stdin.end()
    await new Promise((r) => child.on('close', r))
    expect(stdout).toContain('"id":1')
  })

  it('a client that disconnects takes its running commands with it', async () => {
    const dir = tempDir()
    const child = spawn(
      process.execPath,
      [join(__dirname, '..', 'cli.js'), 'mcp', '--workspace', dir],
      {
        stdio: ['pipe', 'pipe', 'inherit'],
      },
    )
    const lines = [
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 't', version: '1' },
        },
      },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      {
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'bash', arguments: { command: 'echo $$ > sh.pid; sleep 30' } },
      },
    ]
    for (const m of lines) child.stdin.write(`${JSON.stringify(m)}\n`)
    let shPid = 0
    for (let i = 0; i < 250 && !shPid; i++) {
      await new Promise((r) => setTimeout(r, 20))
      try {
        shPid = Number(readFileSync(join(dir, 'sh.pid'), 'utf8'))
      } catch {
        // Not written yet.
      }
    }
    expect(shPid).toBeGreaterThan(0)
    const closed = new Promise((r) => child.on('close', r))
    child.stdin.end()
    await closed
    expect(alive(shPid)).toBe(false)
  })
})
