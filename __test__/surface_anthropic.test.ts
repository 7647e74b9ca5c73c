// The `anthropic` surface against Anthropic's text editor (text_editor_20250728) and bash tool
// docs: view with numbered lines and view_range, directory views, create, str_replace refusing
// 0 or 2+ matches with the documented strings, insert_line 0 at the top, max_characters.
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createAgentTools, type DispatchResult } from '../index.js'
import { tempDir, writeTree } from './helpers'

const EDITOR = 'str_replace_based_edit_tool'

function ws(files: Record<string, string> = {}, maxCharacters?: number) {
  const root = tempDir()
  writeTree(root, files)
  return {
    root,
    tools: createAgentTools({ workspaceRoot: root, surface: 'anthropic', maxCharacters }),
  }
}

function ok(r: DispatchResult): string {
  if (r.isError) throw new Error(`expected success, got ${r.text}`)
  return r.text
}

function fail(r: DispatchResult): string {
  if (!r.isError) throw new Error(`expected an error, got ${r.text}`)
  return r.text
}

describe('anthropic surface', () => {
  it('lists the text editor and bash tools', () => {
    const { tools } = ws()
    const list = tools.listTools()
    expect(list.map((t) => t.name)).toEqual([EDITOR, 'bash'])
    const props = (list[0]?.inputSchema as { properties?: object } | undefined)?.properties
    for (const key of [
      'command',
      'path',
      'view_range',
      'file_text',
      'old_str',
      'new_str',
      'insert_line',
    ]) {
      expect(props).toHaveProperty([key])
    }
  })

  it('view numbers lines as the docs show, honours view_range, and lists directories', async () => {
    const { root, tools } = ws({
      'p.py': 'def f():\n    return 1\n\nprint(f())\n',
      'd/x.txt': '',
      'd/e/y.txt': '',
      '.h': '',
    })
    expect(ok(await tools.callTool(EDITOR, { command: 'view', path: join(root, 'p.py') }))).toBe(
      '1: def f():\n2:     return 1\n3: \n4: print(f())',
    )
    expect(
      ok(await tools.callTool(EDITOR, { command: 'view', path: 'p.py', view_range: [2, 3] })),
    ).toBe('2:     return 1\n3: ')
    expect(
      ok(await tools.callTool(EDITOR, { command: 'view', path: 'p.py', view_range: [3, -1] })),
    ).toBe('3: \n4: print(f())')
    expect(
      fail(await tools.callTool(EDITOR, { command: 'view', path: 'p.py', view_range: [0, 2] })),
    ).toBe(
      'Error: Invalid `view_range`: [0, 2]. Its first element `0` should be within the range of lines of the file: [1, 4]',
    )
    expect(ok(await tools.callTool(EDITOR, { command: 'view', path: '.' }))).toBe(
      "Here's the files and directories up to 2 levels deep in ., excluding hidden items:\n.\n./d/\n./d/e/\n./d/x.txt\n./p.py\n",
    )
  })

  it('max_characters clips view output with the reference note', async () => {
    const { tools } = ws({ 'big.txt': 'abcdefghij\n'.repeat(10) }, 15)
    expect(ok(await tools.callTool(EDITOR, { command: 'view', path: 'big.txt' }))).toBe(
      '1: abcdefghij\n2<response clipped><NOTE>To save on context only part of this file has been shown to you.</NOTE>',
    )
  })

  it('create makes a new file and refuses an existing one', async () => {
    const { root, tools } = ws({ 'a.txt': 'keep\n' })
    expect(
      ok(await tools.callTool(EDITOR, { command: 'create', path: 'n/new.txt', file_text: 'x\n' })),
    ).toBe('File created successfully at: n/new.txt')
    expect(readFileSync(join(root, 'n/new.txt'), 'utf8')).toBe('x\n')
    expect(
      fail(await tools.callTool(EDITOR, { command: 'create', path: 'a.txt', file_text: 'y' })),
    ).toBe('Error: File already exists at: a.txt. Cannot overwrite files using command `create`.')
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('keep\n')
    expect(fail(await tools.callTool(EDITOR, { command: 'create', path: 'b.txt' }))).toBe(
      'Error: Parameter `file_text` is required for command: create',
    )
  })

  it('str_replace replaces exactly one match and refuses 0 or 2+ with helpful messages', async () => {
    const { root, tools } = ws({ 'a.txt': 'x = 1\r\ny = 2\r\nx = 1\r\n' })
    expect(
      fail(
        await tools.callTool(EDITOR, {
          command: 'str_replace',
          path: 'a.txt',
          old_str: 'x = 1',
          new_str: 'z',
        }),
      ),
    ).toBe(
      'Error: No replacement was performed. Found 2 matches for replacement text in lines 1, 3. Please provide more context to make a unique match.',
    )
    expect(
      fail(
        await tools.callTool(EDITOR, {
          command: 'str_replace',
          path: 'a.txt',
          old_str: 'x  = 1',
          new_str: 'z',
        }),
      ),
    ).toMatch(
      /^Error: No replacement was performed, no match was found for replacement text\. Please check your text/,
    )
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('x = 1\r\ny = 2\r\nx = 1\r\n')
    expect(
      ok(
        await tools.callTool(EDITOR, {
          command: 'str_replace',
          path: 'a.txt',
          old_str: 'y = 2\nx = 1',
          new_str: 'y = 3\nx = 4',
        }),
      ),
    ).toBe('Successfully replaced text at exactly one location.')
    // CRLF kept.
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('x = 1\r\ny = 3\r\nx = 4\r\n')
  })

  it('insert puts text after insert_line; 0 inserts at the top', async () => {
    const { root, tools } = ws({ 'a.txt': 'one\ntwo' })
    ok(
      await tools.callTool(EDITOR, {
        command: 'insert',
        path: 'a.txt',
        insert_line: 0,
        insert_text: 'zero',
      }),
    )
    ok(
      await tools.callTool(EDITOR, {
        command: 'insert',
        path: 'a.txt',
        insert_line: 3,
        new_str: 'three\nfour',
      }),
    )
    ok(
      await tools.callTool(EDITOR, {
        command: 'insert',
        path: 'a.txt',
        insert_line: 1,
        insert_text: 'half\n',
      }),
    )
    // The file had no final newline, and still has none (as the reference joins its lines).
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('zero\nhalf\none\ntwo\nthree\nfour')
    expect(
      fail(
        await tools.callTool(EDITOR, {
          command: 'insert',
          path: 'a.txt',
          insert_line: 99,
          insert_text: 'x',
        }),
      ),
    ).toBe(
      'Error: Invalid `insert_line` parameter: 99. It should be within the range of lines of the file: [0, 6]',
    )
  })

  it('bash runs a command; restart answers as the reference tool does', async () => {
    const { tools } = ws()
    expect(ok(await tools.callTool('bash', { command: 'echo hi; echo err >&2' }))).toBe('hi\nerr\n')
    expect(ok(await tools.callTool('bash', { restart: true }))).toBe('tool has been restarted.')
    expect(fail(await tools.callTool('bash', {}))).toBe('no command provided.')
  })

  it('turns every bad input into an error result', async () => {
    const { tools } = ws({ 'a.txt': 'a\n' })
    for (const args of [
      {},
      { command: 'undo_edit', path: 'a.txt' },
      { command: 'view' },
      { command: 'view', path: 'missing' },
      { command: 'view', path: 'a.txt', view_range: [1] },
      { command: 'view', path: 'a.txt', view_range: [1, 9] },
      { command: 'view', path: '.', view_range: [1, 2] },
      { command: 'str_replace', path: 'a.txt' },
      { command: 'str_replace', path: 'missing', old_str: 'a' },
      { command: 'insert', path: 'a.txt', insert_text: 'x' },
      { command: 'insert', path: 'a.txt', insert_line: -1, insert_text: 'x' },
    ]) {
      const r = await tools.callTool(EDITOR, args)
      expect(r.isError, JSON.stringify(args)).toBe(true)
      expect(r.meta?.error, JSON.stringify(args)).not.toBe('internal')
    }
    expect((await tools.callTool('view', {})).isError).toBe(true)
  })

  it('keeps every path inside the workspace', async () => {
    const { tools } = ws()
    const outside = tempDir()
    writeFileSync(join(outside, 's.txt'), 'secret\n')
    for (const path of ['../s.txt', join(outside, 's.txt')]) {
      for (const args of [
        { command: 'view', path },
        { command: 'create', path: `${path}.new`, file_text: 'x' },
        { command: 'str_replace', path, old_str: 'secret', new_str: 'x' },
        { command: 'insert', path, insert_line: 0, insert_text: 'x' },
      ]) {
        const r = await tools.callTool(EDITOR, args)
        expect(r.meta?.error, JSON.stringify(args)).toBe('path_escape')
      }
    }
    expect(readFileSync(join(outside, 's.txt'), 'utf8')).toBe('secret\n')
  })
})

describe('anthropic editor: directories, paths as given, insert at the end', () => {
  it('a command other than view on a directory says so', async () => {
    // Anthropic's reference edit tool: "The path {path} is a directory and only the `view`
    // command can be used on directories".
    const { root, tools } = ws({ 'd/a.txt': 'a\n' })
    expect(
      fail(
        await tools.callTool('str_replace_based_edit_tool', {
          command: 'str_replace',
          path: 'd',
          old_str: 'a',
          new_str: 'b',
        }),
      ),
    ).toBe(
      'Error: The path d is a directory and only the `view` command can be used on directories',
    )
    const listed = ok(
      await tools.callTool('str_replace_based_edit_tool', {
        command: 'view',
        path: join(root, 'd'),
      }),
    )
    expect(listed).toContain(
      `deep in ${join(root, 'd')}, excluding hidden items:\n${join(root, 'd')}\n${join(root, 'd')}/a.txt\n`,
    )
  })

  it('insert after a last line with no newline keeps the file without one', async () => {
    const { root, tools } = ws({ 'a.txt': 'x\ny' })
    ok(
      await tools.callTool('str_replace_based_edit_tool', {
        command: 'insert',
        path: 'a.txt',
        insert_line: 2,
        insert_text: 'end',
      }),
    )
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('x\ny\nend')
  })
})
