// The `openai` surface against the Responses API's apply_patch and shell tools: V4A diffs for
// create_file / update_file / delete_file, per-command {stdout, stderr, outcome}, and the
// conversion of apply_patch_call / shell_call items to calls and results to output items.
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type OpenAI from 'openai'
import { describe, expect, it } from 'vitest'
import { createAgentTools, type DispatchResult, responsesCall, responsesOutput } from '../index.js'
import { tempDir, writeTree } from './helpers'

function ws(files: Record<string, string> = {}) {
  const root = tempDir()
  writeTree(root, files)
  return { root, tools: createAgentTools({ workspaceRoot: root, surface: 'openai' }) }
}

function ok(r: DispatchResult): string {
  if (r.isError) throw new Error(`expected success, got ${r.text}`)
  return r.text
}

describe('openai surface', () => {
  it('lists apply_patch and shell with the Responses API argument shapes', () => {
    const { tools } = ws()
    const list = tools.listTools()
    expect(list.map((t) => t.name)).toEqual(['apply_patch', 'shell'])
    const props = (i: number) =>
      Object.keys((list[i]?.inputSchema as { properties?: object } | undefined)?.properties ?? {})
    expect(props(0).sort()).toEqual(['type', 'path', 'diff'].sort())
    expect(props(1).sort()).toEqual(['commands', 'timeout_ms', 'max_output_length'].sort())
  })

  it('apply_patch creates, updates (V4A) and deletes files', async () => {
    const { root, tools } = ws({
      'lib.py': 'def greet():\n    return "hi"\n\nprint(greet())\n',
      'old.txt': 'x\n',
    })
    expect(
      ok(
        await tools.callTool('apply_patch', {
          type: 'create_file',
          path: 'pkg/new.py',
          diff: '+a = 1\n+b = 2\n',
        }),
      ),
    ).toBe('Created pkg/new.py')
    expect(readFileSync(join(root, 'pkg/new.py'), 'utf8')).toBe('a = 1\nb = 2\n')
    const diff = '@@ def greet():\n-    return "hi"\n+    return "hello"\n \n'
    expect(
      ok(await tools.callTool('apply_patch', { type: 'update_file', path: 'lib.py', diff })),
    ).toBe('Updated lib.py')
    expect(readFileSync(join(root, 'lib.py'), 'utf8')).toBe(
      'def greet():\n    return "hello"\n\nprint(greet())\n',
    )
    expect(ok(await tools.callTool('apply_patch', { type: 'delete_file', path: 'old.txt' }))).toBe(
      'Deleted old.txt',
    )
    expect(existsSync(join(root, 'old.txt'))).toBe(false)
    const bad = await tools.callTool('apply_patch', {
      type: 'update_file',
      path: 'lib.py',
      diff: '@@\n-nothing like this\n+x\n',
    })
    expect(bad.isError).toBe(true)
    expect(bad.text).toContain('lib.py')
  })

  it('shell gives each command its stdout, stderr and outcome; a timeout ends the call', async () => {
    const { tools } = ws()
    const out = JSON.parse(
      ok(
        await tools.callTool('shell', {
          commands: ['echo one', 'echo two >&2; exit 3', 'printf 123456789'],
          max_output_length: 4,
        }),
      ),
    )
    expect(out).toEqual({
      output: [
        { stdout: 'one\n', stderr: '', outcome: { type: 'exit', exit_code: 0 } },
        { stdout: '', stderr: 'two\n', outcome: { type: 'exit', exit_code: 3 } },
        { stdout: '1234', stderr: '', outcome: { type: 'exit', exit_code: 0 } },
      ],
      max_output_length: 4,
    })
    const timed = JSON.parse(
      ok(await tools.callTool('shell', { commands: ['sleep 5', 'echo never'], timeout_ms: 300 })),
    )
    expect(timed.output).toHaveLength(1)
    expect(timed.output[0].outcome).toEqual({ type: 'timeout' })
  })

  it('converts Responses API items to calls and results to output items', async () => {
    const { root, tools } = ws()
    const patchCall: OpenAI.Responses.ResponseApplyPatchToolCall = {
      type: 'apply_patch_call',
      id: 'apc_1',
      call_id: 'call_1',
      status: 'completed',
      operation: { type: 'create_file', path: 'hello.txt', diff: '+hello\n' },
    }
    const call = responsesCall(patchCall)
    expect(call).toEqual({
      name: 'apply_patch',
      args: { type: 'create_file', path: 'hello.txt', diff: '+hello\n' },
    })
    const item: OpenAI.Responses.ResponseInputItem = responsesOutput(
      patchCall,
      await tools.callTool(call.name, call.args),
    )
    expect(item).toEqual({
      type: 'apply_patch_call_output',
      call_id: 'call_1',
      status: 'completed',
      output: 'Created hello.txt',
    })
    expect(readFileSync(join(root, 'hello.txt'), 'utf8')).toBe('hello\n')
    const again = responsesOutput(
      patchCall,
      await tools.callTool(call.name, { ...call.args, path: '../x' }),
    )
    expect(again).toMatchObject({ type: 'apply_patch_call_output', status: 'failed' })

    const shellCall: OpenAI.Responses.ResponseFunctionShellToolCall = {
      type: 'shell_call',
      id: 'sc_1',
      call_id: 'call_2',
      status: 'completed',
      environment: null,
      action: { commands: ['echo hi'], timeout_ms: null, max_output_length: null },
    }
    const sc = responsesCall(shellCall)
    expect(sc).toEqual({ name: 'shell', args: { commands: ['echo hi'] } })
    const out: OpenAI.Responses.ResponseInputItem = responsesOutput(
      shellCall,
      await tools.callTool(sc.name, sc.args),
    )
    expect(out).toEqual({
      type: 'shell_call_output',
      call_id: 'call_2',
      output: [{ stdout: 'hi\n', stderr: '', outcome: { type: 'exit', exit_code: 0 } }],
      max_output_length: null,
    })
    expect(() => responsesCall({ type: 'message' } as never)).toThrow(TypeError)
  })

  it('turns every bad input into an error result', async () => {
    const { tools } = ws({ 'a.txt': 'a\n' })
    for (const [name, args] of [
      ['apply_patch', {}],
      ['apply_patch', { type: 'rename_file', path: 'a.txt' }],
      ['apply_patch', { type: 'create_file', path: 'b.txt' }],
      ['apply_patch', { type: 'update_file', path: 'a.txt\n*** Delete File: a.txt', diff: '' }],
      ['apply_patch', { type: 'create_file', path: 'a.txt', diff: '+again' }],
      ['shell', {}],
      ['shell', { commands: [] }],
      ['shell', { commands: 'ls' }],
      ['bash', { command: 'ls' }],
    ] as const) {
      const r = await tools.callTool(name, args as Record<string, unknown>)
      expect(r.isError, `${name} ${JSON.stringify(args)}`).toBe(true)
      expect(r.meta?.error, `${name} ${JSON.stringify(args)}`).not.toBe('internal')
    }
    expect(readFileSync(join(tools.config.workspaceRoot, 'a.txt'), 'utf8')).toBe('a\n')
  })

  it('keeps every path inside the workspace', async () => {
    const { tools } = ws()
    const outside = tempDir()
    writeFileSync(join(outside, 's.txt'), 'secret\n')
    for (const path of ['../s.txt', join(outside, 's.txt')]) {
      for (const args of [
        { type: 'create_file', path: `${path}.new`, diff: '+x' },
        { type: 'update_file', path, diff: '@@\n-secret\n+x' },
        { type: 'delete_file', path },
      ]) {
        const r = await tools.callTool('apply_patch', args)
        expect(r.meta?.error, JSON.stringify(args)).toBe('path_escape')
      }
    }
    expect(readFileSync(join(outside, 's.txt'), 'utf8')).toBe('secret\n')
  })
})

describe('openai apply_patch changes its own path only', () => {
  it('refuses a patch header inside diff, which would reach files the guard never saw', async () => {
    // docs/tools/openai.md: apply_patch "Create, update or delete one file"; the guard sees
    // `path` alone (SPEC, "Tool surfaces").
    const dir = tempDir()
    writeTree(dir, { 'a.txt': 'one\n', 'secret/.env': 'S=1\n', 'keep.txt': 'k\n' })
    const seen: string[] = []
    const tools = createAgentTools({
      workspaceRoot: dir,
      surface: 'openai',
      guard: (ctx) => {
        seen.push(...ctx.paths.map((p) => p.raw))
        return { verdict: 'allow' }
      },
    })
    const diff =
      '@@\n-one\n+ONE\n*** Update File: secret/.env\n@@\n-S=1\n+S=HACKED\n*** Delete File: keep.txt\n'
    const r = await tools.callTool('apply_patch', { type: 'update_file', path: 'a.txt', diff })
    expect(r.isError).toBe(true)
    expect(r.text).toMatch(/diff line 4 is a patch header \(\*\*\* Update File: secret\/\.env\)/)
    expect(readFileSync(join(dir, 'a.txt'), 'utf8')).toBe('one\n')
    expect(readFileSync(join(dir, 'secret/.env'), 'utf8')).toBe('S=1\n')
    expect(existsSync(join(dir, 'keep.txt'))).toBe(true)
    for (const d of ['+c\n*** Add File: c2.txt\n+c2\n', '+c\n*** End Patch\n']) {
      const made = await tools.callTool('apply_patch', {
        type: 'create_file',
        path: 'c.txt',
        diff: d,
      })
      expect(made.isError).toBe(true)
      expect(existsSync(join(dir, 'c2.txt'))).toBe(false)
    }
    // V4A's own end-of-file marker is a hunk line, not a header.
    const eof = '@@\n-one\n+ONE\n*** End of File\n'
    expect(
      ok(await tools.callTool('apply_patch', { type: 'update_file', path: 'a.txt', diff: eof })),
    ).toBe('Updated a.txt')
    expect(seen.every((p) => p === 'a.txt' || p === 'c.txt')).toBe(true)
  })

  it('refuses a path with white space at its ends rather than report another file', async () => {
    const { root, tools } = ws()
    const r = await tools.callTool('apply_patch', {
      type: 'create_file',
      path: ' sp.txt',
      diff: '+a\n',
    })
    expect(r.isError).toBe(true)
    expect(r.text).toMatch(/white space/)
    expect(existsSync(join(root, 'sp.txt'))).toBe(false)
  })
})

describe("openai apply_patch's errors speak in its own operations", () => {
  it('hints at create_file / update_file / delete_file, not a patch grammar or tools it lacks', async () => {
    const { tools } = ws({ 'a.txt': 'one\n' })
    const missing = await tools.callTool('apply_patch', {
      type: 'update_file',
      path: 'nope.txt',
      diff: '@@\n-a\n+b\n',
    })
    expect(missing.text).toBe(
      "No such file: nope.txt. To create it, use an apply_patch create_file operation for 'nope.txt'.",
    )
    const exists = await tools.callTool('apply_patch', {
      type: 'create_file',
      path: 'a.txt',
      diff: '+a\n',
    })
    expect(exists.text).toContain('delete it with a delete_file operation and create it again')
    expect(exists.text).not.toMatch(/write_file|\*\*\* /)
  })
})
