// What a newcomer trips on (issue 28): errors that say what to do. The contract pins the
// `not_found` / `Unknown tool: <name>` message, so the help rides in extra envelope fields, and
// unknown option keys (ignored by the contract) are reported through the warn sink.
import { afterEach, describe, expect, it } from 'vitest'
import { createAgentTools, setWarnSink } from '../index.js'
import * as seed from '../v0.1/index.js'
import { err, workspace } from './root-helpers'

afterEach(() => setWarnSink(null))

describe('an unknown tool', () => {
  it('keeps the contract message and names the closest tool and every available one', async () => {
    const { tools } = workspace()
    const e = err(await tools.callTool('read_fil', { path: 'a' }))
    expect(e.error).toBe('not_found')
    expect(e.message).toBe('Unknown tool: read_fil')
    expect(e.closest).toBe('read_file')
    expect(e.available).toEqual(tools.listTools().map((t) => t.name))
    const far = err(await tools.callTool('launch_rocket', {}))
    expect(far.closest).toBeUndefined()
    expect(far.available).toContain('grep')
  })

  it('hidden by read-only mode says so, with how to turn it on', async () => {
    const { tools } = workspace({}, { readOnly: true })
    const e = err(await tools.callTool('write_file', { path: 'a', content: 'x' }))
    expect(e.message).toBe('Unknown tool: write_file')
    expect(e.hidden_by).toBe('readOnly')
    expect(e.hint).toMatch(/read-only mode offers only the read tools/)
  })

  it('hidden because extras are off says so', async () => {
    const { tools } = workspace()
    const e = err(await tools.callTool('monitor_send', { id: 'm', input: 'x' }))
    expect(e.message).toBe('Unknown tool: monitor_send')
    expect(e.hidden_by).toBe('extras')
    expect(e.hint).toMatch(/extras: true/)
  })

  it('the seed entry keeps the bare envelope', async () => {
    const { root } = workspace()
    const tools = seed.createAgentTools({ workspaceRoot: root })
    const r = await tools.callTool('read_fil', {})
    expect(JSON.parse(r.text)).toEqual({ error: 'not_found', message: 'Unknown tool: read_fil' })
  })
})

describe('an unknown option key', () => {
  it('is ignored, as the contract says, and named in the warn sink with the real option', async () => {
    const lines: string[] = []
    setWarnSink((line) => lines.push(line))
    const { root } = workspace()
    const tools = createAgentTools({ workspaceRoot: root, readonly: true } as never)
    // Ignored: every write tool is still on.
    expect(tools.listTools().map((t) => t.name)).toContain('write_file')
    expect(lines).toEqual([
      'clarvis-agent-tools: unknown option "readonly" is ignored; did you mean "readOnly"?\n',
    ])
  })

  it('known options make no noise', () => {
    const lines: string[] = []
    setWarnSink((line) => lines.push(line))
    const { root } = workspace()
    createAgentTools({ workspaceRoot: root, readOnly: true, maxOutputBytes: 4096, extras: true })
    createAgentTools({ workspaceRoot: root, guard: () => ({ verdict: 'allow' }) })
    expect(lines).toEqual([])
  })
})
