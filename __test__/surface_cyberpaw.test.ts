// The `cyberpaw` surface against CyberPaw's documented file tools: Claude Code's Read / Write /
// Edit / MultiEdit / Glob / Grep with the same staleness rule, plus ListDir, Move and DeleteFile.
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createAgentTools, type DispatchResult, tools as engineTools } from '../index.js'
import { tempDir, writeTree } from './helpers'

function ws(files: Record<string, string> = {}) {
  const root = tempDir()
  writeTree(root, files)
  return { root, tools: createAgentTools({ workspaceRoot: root, surface: 'cyberpaw' }) }
}

function ok(r: DispatchResult): string {
  if (r.isError) throw new Error(`expected success, got ${r.text}`)
  return r.text
}

/** Move and DeleteFile run the engine's `move` and `remove` (branch `tools`). */
const hasMove = engineTools.some((t) => t.name === 'move')
const hasRemove = engineTools.some((t) => t.name === 'remove')

describe('cyberpaw surface', () => {
  it('lists the CyberPaw tools with their argument names', () => {
    const { tools } = ws()
    const list = tools.listTools()
    expect(list.map((t) => t.name)).toEqual([
      'Read',
      'Write',
      'Edit',
      'MultiEdit',
      'Glob',
      'Grep',
      'ListDir',
      'Move',
      'DeleteFile',
    ])
    const props = (name: string) =>
      Object.keys(
        (list.find((t) => t.name === name)?.inputSchema as { properties?: object } | undefined)
          ?.properties ?? {},
      )
    expect(props('ListDir').sort()).toEqual(['path'].sort())
    expect(props('Move').sort()).toEqual(['source', 'destination'].sort())
    expect(props('DeleteFile').sort()).toEqual(['file_path'].sort())
    const readOnly = createAgentTools({
      workspaceRoot: tempDir(),
      surface: 'cyberpaw',
      readOnly: true,
    })
    expect(readOnly.listTools().map((t) => t.name)).toEqual(['Read', 'Glob', 'Grep', 'ListDir'])
  })

  it('Read is cat -n; Edit needs a Read and refuses a file changed since', async () => {
    const { root, tools } = ws({ 'src/main.py': 'def foo():\n    pass\n' })
    expect(ok(await tools.callTool('Read', { file_path: 'src/main.py' }))).toBe(
      '     1\tdef foo():\n     2\t    pass',
    )
    ok(
      await tools.callTool('Edit', {
        file_path: 'src/main.py',
        old_string: '    pass',
        new_string: '    return 42',
      }),
    )
    writeFileSync(join(root, 'src/main.py'), 'changed\n')
    const r = await tools.callTool('Edit', {
      file_path: 'src/main.py',
      old_string: 'changed',
      new_string: 'x',
    })
    expect(r.isError).toBe(true)
    expect(r.text).toContain('modified since read')
    const w = await tools.callTool('Write', { file_path: 'output.txt', content: 'Hello, world!' })
    expect(ok(w)).toBe('File created successfully at: output.txt')
  })

  it('ListDir lists one directory', async () => {
    const { tools } = ws({ 'src/components/a.tsx': 'x', 'src/components/sub/b.tsx': '' })
    expect(ok(await tools.callTool('ListDir', { path: 'src/components' }))).toBe('sub/\na.tsx\t1')
  })

  it('Move renames a directory, refusing an existing destination', async () => {
    const { root, tools } = ws({ 'dir/a.txt': 'a', 'dir/sub/b.txt': 'b', 'taken/x': '' })
    expect(ok(await tools.callTool('Move', { source: 'dir', destination: 'moved/here' }))).toBe(
      'Moved dir/ to moved/here/',
    )
    expect(readFileSync(join(root, 'moved/here/sub/b.txt'), 'utf8')).toBe('b')
    expect(existsSync(join(root, 'dir'))).toBe(false)
    const r = await tools.callTool('Move', { source: 'moved', destination: 'taken' })
    expect(r.isError).toBe(true)
    expect(r.text).toContain('destination already exists')
    expect(
      (await tools.callTool('Move', { source: 'moved', destination: 'moved/in' })).isError,
    ).toBe(true)
  })

  it.runIf(hasMove)(
    'Move renames a file; what was read at the old path must be read again',
    async () => {
      const { root, tools } = ws({ 'old_name.py': 'x\n' })
      ok(await tools.callTool('Read', { file_path: 'old_name.py' }))
      ok(await tools.callTool('Move', { source: 'old_name.py', destination: 'new_name.py' }))
      expect(readFileSync(join(root, 'new_name.py'), 'utf8')).toBe('x\n')
      expect(existsSync(join(root, 'old_name.py'))).toBe(false)
      const r = await tools.callTool('Edit', {
        file_path: 'new_name.py',
        old_string: 'x',
        new_string: 'y',
      })
      expect(r.isError).toBe(true)
    },
  )

  it.runIf(hasRemove)('DeleteFile deletes a file', async () => {
    const { root, tools } = ws({ 'temp/scratch.txt': 'x' })
    ok(await tools.callTool('DeleteFile', { file_path: 'temp/scratch.txt' }))
    expect(existsSync(join(root, 'temp/scratch.txt'))).toBe(false)
  })

  it.skipIf(hasMove && hasRemove)(
    'Move and DeleteFile say when the engine lacks their tool',
    async () => {
      const { tools } = ws({ 'a.txt': 'x' })
      const r = hasMove
        ? await tools.callTool('DeleteFile', { file_path: 'a.txt' })
        : await tools.callTool('Move', { source: 'a.txt', destination: 'b.txt' })
      expect(r.isError).toBe(true)
      expect(r.text).toContain('this build has no engine tool')
    },
  )

  it('turns every bad input into an error result', async () => {
    const { tools } = ws({ 'a.txt': 'a\n' })
    for (const [name, args] of [
      ['Read', {}],
      ['ListDir', { path: 'a.txt' }],
      ['ListDir', { path: 'missing' }],
      ['Move', { source: 'a.txt' }],
      ['Move', { source: 'missing', destination: 'b' }],
      ['DeleteFile', {}],
      ['DeleteFile', { file_path: 'missing' }],
      ['NotebookEdit', { notebook_path: 'a.ipynb', cell_id: 'x', new_source: '' }],
    ] as const) {
      const r = await tools.callTool(name, args as Record<string, unknown>)
      expect(r.isError, `${name} ${JSON.stringify(args)}`).toBe(true)
      if (hasMove && hasRemove)
        expect(r.meta?.error, `${name} ${JSON.stringify(args)}`).not.toBe('internal')
    }
  })

  it('keeps every path inside the workspace', async () => {
    const { tools } = ws({ 'in.txt': 'x' })
    const outside = tempDir()
    writeFileSync(join(outside, 's.txt'), 'secret\n')
    for (const path of ['../s.txt', join(outside, 's.txt')]) {
      for (const [name, args] of [
        ['Read', { file_path: path }],
        ['Write', { file_path: path, content: 'x' }],
        ['ListDir', { path: path.replace('s.txt', '') }],
        ['Move', { source: 'in.txt', destination: path }],
        ['Move', { source: path, destination: 'in2.txt' }],
        ['DeleteFile', { file_path: path }],
      ] as const) {
        const r = await tools.callTool(name, args)
        expect(r.meta?.error, `${name} ${path}`).toBe('path_escape')
      }
    }
    expect(readFileSync(join(outside, 's.txt'), 'utf8')).toBe('secret\n')
  })
})

describe('cyberpaw Move onto an existing file', () => {
  it('does not tell the model to pass an overwrite argument Move does not have', async () => {
    const { tools } = ws({ 'a.txt': 'a', 'b.txt': 'b' })
    const r = await tools.callTool('Move', { source: 'a.txt', destination: 'b.txt' })
    expect(r.isError).toBe(true)
    expect(r.text).not.toMatch(/overwrite/)
    expect(r.text).toMatch(
      /destination already exists: b\.txt; choose a new path, or delete it first with DeleteFile/,
    )
  })
})
