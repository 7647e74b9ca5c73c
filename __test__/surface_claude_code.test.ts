// The `claude-code` surface against Claude Code's documented tools: names and argument shapes,
// cat -n reads, read-before-write judged by content hash, Write creating parent directories,
// Grep's flags and output modes, and NotebookEdit's byte-stable cell edits.
import { readFileSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createAgentTools, type DispatchResult } from '../index.js'
import { tempDir, writeTree } from './helpers'

function ws(files: Record<string, string> = {}) {
  const root = tempDir()
  writeTree(root, files)
  return { root, tools: createAgentTools({ workspaceRoot: root, surface: 'claude-code' }) }
}

function ok(r: DispatchResult): string {
  if (r.isError) throw new Error(`expected success, got ${r.text}`)
  return r.text
}

function fail(r: DispatchResult): string {
  if (!r.isError) throw new Error(`expected an error, got ${r.text}`)
  return r.text
}

const NOTEBOOK = `{
 "cells": [
  {
   "cell_type": "code",
   "execution_count": 7,
   "id": "c1",
   "metadata": {},
   "outputs": [
    {
     "name": "stdout",
     "output_type": "stream",
     "text": [
      "hello\\n"
     ]
    },
    {
     "data": {
      "image/png": "iVBORw0KGgo=",
      "text/plain": [
       "<Figure>"
      ]
     },
     "metadata": {},
     "output_type": "display_data"
    }
   ],
   "source": [
    "print('hello')"
   ]
  },
  {
   "cell_type": "markdown",
   "id": "m1",
   "metadata": {},
   "source": [
    "# Title"
   ]
  }
 ],
 "metadata": {
  "kernelspec": {"display_name": "Python 3", "name": "python3"}
 },
 "nbformat": 4,
 "nbformat_minor": 5
}
`

describe('claude-code surface', () => {
  it('lists exactly Claude Code tools with its argument names', () => {
    const { tools } = ws()
    const list = tools.listTools()
    expect(list.map((t) => t.name)).toEqual([
      'Read',
      'Write',
      'Edit',
      'MultiEdit',
      'Glob',
      'Grep',
      'Bash',
      'NotebookEdit',
    ])
    const grep = list.find((t) => t.name === 'Grep')?.inputSchema as {
      properties: Record<string, unknown>
      required: string[]
    }
    for (const key of [
      'pattern',
      'path',
      'glob',
      'type',
      'output_mode',
      '-i',
      '-n',
      '-A',
      '-B',
      '-C',
      'head_limit',
      'multiline',
    ]) {
      expect(grep.properties).toHaveProperty([key])
    }
    expect(grep.required).toEqual(['pattern'])
    const edit = list.find((t) => t.name === 'Edit')?.inputSchema as { required: string[] }
    expect(edit.required.sort()).toEqual(['file_path', 'new_string', 'old_string'])
    expect(tools.config.surface).toBe('claude-code')
  })

  it('Read answers in cat -n format: the number right-aligned in 6, a tab, the line', async () => {
    const { root, tools } = ws({ 'a.txt': 'one\ntwo\nthree\n' })
    expect(ok(await tools.callTool('Read', { file_path: join(root, 'a.txt') }))).toBe(
      '     1\tone\n     2\ttwo\n     3\tthree',
    )
    expect(ok(await tools.callTool('Read', { file_path: 'a.txt', offset: 2, limit: 1 }))).toMatch(
      /^ {5}2\ttwo\n/,
    )
  })

  it('Edit and MultiEdit need a Read first, and a second Edit after one Read applies', async () => {
    const { root, tools } = ws({ 'a.txt': 'alpha beta gamma\n' })
    expect(
      fail(
        await tools.callTool('Edit', { file_path: 'a.txt', old_string: 'alpha', new_string: 'A' }),
      ),
    ).toBe('File has not been read yet. Read it first before writing to it.')
    expect(
      fail(
        await tools.callTool('MultiEdit', {
          file_path: 'a.txt',
          edits: [{ old_string: 'beta', new_string: 'B' }],
        }),
      ),
    ).toContain('has not been read yet')
    ok(await tools.callTool('Read', { file_path: 'a.txt' }))
    expect(
      ok(
        await tools.callTool('Edit', { file_path: 'a.txt', old_string: 'alpha', new_string: 'A' }),
      ),
    ).toBe('The file a.txt has been updated successfully.')
    ok(await tools.callTool('Edit', { file_path: 'a.txt', old_string: 'beta', new_string: 'B' }))
    ok(
      await tools.callTool('MultiEdit', {
        file_path: 'a.txt',
        edits: [
          { old_string: 'gamma', new_string: 'G' },
          { old_string: 'G', new_string: 'GG' },
        ],
      }),
    )
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('A B GG\n')
    // Another tools object has its own ledger.
    const other = createAgentTools({ workspaceRoot: root, surface: 'claude-code' })
    expect(
      fail(await other.callTool('Edit', { file_path: 'a.txt', old_string: 'A', new_string: 'Z' })),
    ).toContain('not been read')
  })

  it('refuses a file changed since the Read, judged by content, not mtime', async () => {
    const { root, tools } = ws({ 'a.txt': 'x = 1\n' })
    const file = join(root, 'a.txt')
    ok(await tools.callTool('Read', { file_path: file }))
    // A touch alone changes nothing.
    utimesSync(file, new Date(2001, 1, 1), new Date(2001, 1, 1))
    ok(await tools.callTool('Edit', { file_path: file, old_string: 'x = 1', new_string: 'x = 2' }))
    // A change with the mtime put back is still caught.
    writeFileSync(file, 'x = 3\n')
    utimesSync(file, new Date(2001, 1, 1), new Date(2001, 1, 1))
    const message = fail(
      await tools.callTool('Edit', { file_path: file, old_string: 'x = 3', new_string: 'x = 4' }),
    )
    expect(message).toBe(
      'File has been modified since read, either by the user or by a linter. Read it again before attempting to write it.',
    )
    expect(fail(await tools.callTool('Write', { file_path: file, content: 'y' }))).toContain(
      'modified since read',
    )
    expect(readFileSync(file, 'utf8')).toBe('x = 3\n')
    ok(await tools.callTool('Read', { file_path: file }))
    ok(await tools.callTool('Write', { file_path: file, content: 'y\n' }))
    expect(readFileSync(file, 'utf8')).toBe('y\n')
  })

  it('Write creates a new file and its missing parent directories without a Read', async () => {
    const { root, tools } = ws()
    expect(
      ok(await tools.callTool('Write', { file_path: 'deep/er/new.txt', content: 'hi\n' })),
    ).toBe('File created successfully at: deep/er/new.txt')
    expect(readFileSync(join(root, 'deep/er/new.txt'), 'utf8')).toBe('hi\n')
    // Its own write counts as seen: an Edit right after applies.
    ok(
      await tools.callTool('Edit', {
        file_path: 'deep/er/new.txt',
        old_string: 'hi',
        new_string: 'ho',
      }),
    )
  })

  it('Edit speaks Claude Code about missing and repeated strings', async () => {
    const { tools } = ws({ 'a.txt': 'dup dup\n' })
    ok(await tools.callTool('Read', { file_path: 'a.txt' }))
    expect(
      fail(
        await tools.callTool('Edit', { file_path: 'a.txt', old_string: 'dup', new_string: 'x' }),
      ),
    ).toMatch(/^Found 2 matches of the string to replace, but replace_all is false/)
    expect(
      fail(
        await tools.callTool('Edit', { file_path: 'a.txt', old_string: 'zzz', new_string: 'x' }),
      ),
    ).toMatch(/^String to replace not found in file\.\nString: zzz/)
    ok(
      await tools.callTool('Edit', {
        file_path: 'a.txt',
        old_string: 'dup',
        new_string: 'x',
        replace_all: true,
      }),
    )
  })

  it('Glob lists newest first; Grep has its flags and output modes', async () => {
    const { root, tools } = ws({ 'a.py': 'Hello\nworld\n', 'b.py': 'hello\n', 'c.ts': 'hello\n' })
    utimesSync(join(root, 'a.py'), new Date(2000, 1, 1), new Date(2000, 1, 1))
    expect(ok(await tools.callTool('Glob', { pattern: '**/*.py' }))).toBe('b.py\na.py')
    expect(ok(await tools.callTool('Glob', { pattern: '*.none' }))).toBe('No files found')
    expect(ok(await tools.callTool('Grep', { pattern: 'hello', '-i': true, type: 'py' }))).toBe(
      'Found 2 files\nb.py\na.py',
    )
    expect(ok(await tools.callTool('Grep', { pattern: 'hello', glob: '*.ts' }))).toBe(
      'Found 1 file\nc.ts',
    )
    expect(
      ok(
        await tools.callTool('Grep', {
          pattern: 'Hello',
          output_mode: 'content',
          '-n': true,
          '-A': 1,
        }),
      ),
    ).toBe('a.py:1:Hello\na.py-2-world')
    expect(
      ok(await tools.callTool('Grep', { pattern: 'hello', output_mode: 'count', '-i': true })),
    ).toBe('a.py:1\nb.py:1\nc.ts:1\n\nFound 3 total occurrences across 3 files.')
    expect(ok(await tools.callTool('Grep', { pattern: 'nope' }))).toBe('No files found')
    expect(ok(await tools.callTool('Grep', { pattern: 'nope', output_mode: 'content' }))).toBe(
      'No matches found',
    )
    expect(
      ok(await tools.callTool('Grep', { pattern: 'o\\nw', multiline: true, output_mode: 'count' })),
    ).toContain('a.py:1')
    expect(
      fail(await tools.callTool('Grep', { pattern: 'x', type: 'py', glob: '*.py' })),
    ).toContain('either glob or type')
    expect(fail(await tools.callTool('Grep', { pattern: 'x', type: 'klingon' }))).toContain(
      'unknown file type',
    )
  })

  it('Bash returns the output; a non-zero exit is an error naming the code', async () => {
    const { tools } = ws()
    expect(ok(await tools.callTool('Bash', { command: 'echo out; echo err >&2' }))).toBe('out\nerr')
    const r = await tools.callTool('Bash', { command: 'echo bad; exit 3' })
    expect(fail(r)).toBe('Exit code 3\nbad')
  })

  it('Read shows a notebook cells and outputs, images as image parts', async () => {
    const { tools } = ws({ 'n.ipynb': NOTEBOOK })
    const r = await tools.callTool('Read', { file_path: 'n.ipynb' })
    ok(r)
    expect(r.content).toEqual([
      {
        type: 'text',
        text: `<cell id="c1">print('hello')</cell id="c1">\n<output>hello\n</output>\n`,
      },
      { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
      {
        type: 'text',
        text: '<output><Figure>\n</output>\n<cell id="m1"><cell_type>markdown</cell_type># Title</cell id="m1">\n',
      },
    ])
  })

  it('NotebookEdit replaces (clearing outputs), inserts and deletes cells, keeping the rest byte for byte', async () => {
    const { root, tools } = ws({ 'n.ipynb': NOTEBOOK })
    const file = join(root, 'n.ipynb')
    expect(
      fail(
        await tools.callTool('NotebookEdit', {
          notebook_path: 'n.ipynb',
          cell_id: 'c1',
          new_source: 'x',
        }),
      ),
    ).toContain('not been read')
    ok(await tools.callTool('Read', { file_path: 'n.ipynb' }))
    expect(
      ok(
        await tools.callTool('NotebookEdit', {
          notebook_path: 'n.ipynb',
          cell_id: 'c1',
          new_source: 'a = 1\nb = 2',
        }),
      ),
    ).toBe('Updated cell c1 with a = 1\nb = 2')
    const outputsStart = NOTEBOOK.indexOf('"outputs": [') + '"outputs": '.length
    const outputsEnd = NOTEBOOK.indexOf('   ],\n   "source"') + 4
    const expected = `${NOTEBOOK.slice(0, outputsStart)}[]${NOTEBOOK.slice(outputsEnd)}`
      .replace('"execution_count": 7', '"execution_count": null')
      .replace(`[\n    "print('hello')"\n   ]`, '[\n    "a = 1\\n",\n    "b = 2"\n   ]')
    expect(readFileSync(file, 'utf8')).toBe(expected)
    // Its own edit refreshed the ledger: insert and delete follow without another Read.
    const inserted = ok(
      await tools.callTool('NotebookEdit', {
        notebook_path: 'n.ipynb',
        cell_id: 'c1',
        edit_mode: 'insert',
        cell_type: 'markdown',
        new_source: 'Note',
      }),
    )
    const newId = inserted.match(/^Inserted cell (\S+) with Note$/)?.[1]
    expect(newId).toMatch(/^[0-9a-f]{8}$/)
    const nb = JSON.parse(readFileSync(file, 'utf8'))
    expect(nb.cells.map((c: { id: string }) => c.id)).toEqual(['c1', newId, 'm1'])
    expect(nb.cells[1]).toEqual({
      cell_type: 'markdown',
      id: newId,
      metadata: {},
      source: ['Note'],
    })
    // new_source is required, as in Claude Code's own NotebookEdit schema, even for delete.
    expect(
      fail(
        await tools.callTool('NotebookEdit', {
          notebook_path: 'n.ipynb',
          cell_id: newId,
          edit_mode: 'delete',
        }),
      ),
    ).toContain('new_source')
    ok(
      await tools.callTool('NotebookEdit', {
        notebook_path: 'n.ipynb',
        cell_id: newId,
        edit_mode: 'delete',
        new_source: '',
      }),
    )
    expect(readFileSync(file, 'utf8')).toBe(expected)
    expect(
      fail(
        await tools.callTool('NotebookEdit', {
          notebook_path: 'n.ipynb',
          cell_id: 'zz',
          new_source: '',
        }),
      ),
    ).toBe('Cell with ID "zz" not found in notebook.')
    expect(
      fail(
        await tools.callTool('NotebookEdit', {
          notebook_path: 'n.ipynb',
          edit_mode: 'insert',
          new_source: '',
        }),
      ),
    ).toContain('cell_type is required')
  })

  it('turns every bad input into an error result', async () => {
    const { tools } = ws({ 'a.txt': 'a\n' })
    for (const [name, args] of [
      ['Read', {}],
      ['Read', { file_path: 7 }],
      ['Read', { file_path: 'missing.txt' }],
      ['Write', { file_path: 'b.txt' }],
      ['Edit', { file_path: 'a.txt' }],
      ['MultiEdit', { file_path: 'a.txt', edits: 'x' }],
      ['Glob', {}],
      ['Grep', { pattern: '(' }],
      ['Grep', { pattern: 'a', output_mode: 'lines' }],
      ['Bash', {}],
      ['NotebookEdit', { notebook_path: 'a.txt', cell_id: 'x', new_source: '' }],
      ['read_file', { path: 'a.txt' }],
    ] as const) {
      const r = await tools.callTool(name, args as Record<string, unknown>)
      expect(r.isError, `${name} ${JSON.stringify(args)}`).toBe(true)
      expect(r.meta?.error, `${name} ${JSON.stringify(args)}`).not.toBe('internal')
      expect(typeof r.meta?.error).toBe('string')
    }
  })

  it('keeps every path inside the workspace', async () => {
    const { root, tools } = ws()
    const outside = tempDir()
    writeFileSync(join(outside, 'secret.txt'), 'secret\n')
    for (const path of ['../secret.txt', join(outside, 'secret.txt')]) {
      for (const [name, args] of [
        ['Read', { file_path: path }],
        ['Write', { file_path: path, content: 'x' }],
        ['Edit', { file_path: path, old_string: 'secret', new_string: 'x' }],
        ['Glob', { pattern: '*', path: outside }],
        ['Grep', { pattern: 'secret', path: outside }],
        ['NotebookEdit', { notebook_path: `${path}.ipynb`, cell_id: 'x', new_source: '' }],
      ] as const) {
        const r = await tools.callTool(name, args)
        expect(r.isError, `${name} ${path}`).toBe(true)
        expect(r.meta?.error, `${name} ${path}`).toBe('path_escape')
      }
    }
    expect(readFileSync(join(outside, 'secret.txt'), 'utf8')).toBe('secret\n')
    expect(root).not.toBe(outside)
  })
})

describe('claude-code MultiEdit and messages as Claude Code words them', () => {
  it("MultiEdit's failing edit gets Edit's texts", async () => {
    const { tools } = ws({ 'a.txt': 'x\ny\n' })
    ok(await tools.callTool('Read', { file_path: 'a.txt' }))
    const missing = fail(
      await tools.callTool('MultiEdit', {
        file_path: 'a.txt',
        edits: [{ old_string: 'zz', new_string: 'q' }],
      }),
    )
    expect(missing).toMatch(/^String to replace not found in file\.\nString: zz\n/)
    const several = fail(
      await tools.callTool('MultiEdit', {
        file_path: 'a.txt',
        edits: [
          { old_string: 'x', new_string: 'X' },
          { old_string: '\n', new_string: ';' },
        ],
      }),
    )
    expect(several).toMatch(/^Found 2 matches of the string to replace, but replace_all is false\./)
  })

  it('echoes file_path as the model gave it', async () => {
    const { root, tools } = ws()
    const abs = join(root, 'new.txt')
    expect(ok(await tools.callTool('Write', { file_path: abs, content: 'a\n' }))).toBe(
      `File created successfully at: ${abs}`,
    )
  })
})

describe('claude-code Read of an image, and hints in its own words', () => {
  it('Read shows an image as an image part, as Claude Code does', async () => {
    const png = Buffer.from(
      '89504e470d0a1a0a0000000d4948445200000001000000010806000000' +
        '1f15c4890000000d49444154789c6360000002000001e221bc330000000049454e44ae426082',
      'hex',
    )
    const root = tempDir()
    writeFileSync(join(root, 'i.png'), png)
    const tools = createAgentTools({ workspaceRoot: root, surface: 'claude-code' })
    const r = await tools.callTool('Read', { file_path: 'i.png' })
    expect(r.isError).toBe(false)
    expect(r.content[0]).toMatchObject({ type: 'image', mimeType: 'image/png' })
  })

  it("Edit's texts name Read, not the engine's read_file; identical strings as Claude Code says", async () => {
    const { tools } = ws({ 'a.txt': 'one\n' })
    ok(await tools.callTool('Read', { file_path: 'a.txt' }))
    const missing = fail(
      await tools.callTool('Edit', { file_path: 'a.txt', old_string: 'zz', new_string: 'b' }),
    )
    expect(missing).toContain('shown by Read')
    expect(missing).not.toContain('read_file')
    expect(
      fail(
        await tools.callTool('Edit', { file_path: 'a.txt', old_string: 'one', new_string: 'one' }),
      ),
    ).toBe('No changes to make: old_string and new_string are exactly the same.')
  })
})
