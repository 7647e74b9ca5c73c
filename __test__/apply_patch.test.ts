import {
  chmodSync,
  cpSync,
  existsSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { createAgentTools } from '../v0.1/index.js'
import { err, ok, tempDir, workspace } from './helpers'

const require = createRequire(import.meta.url)
const native = require('../binding.js')

const patch = (text: string) => ({ patch: text })
const bytes = (root: string, rel: string) => readFileSync(join(root, rel))
const text = (root: string, rel: string) => readFileSync(join(root, rel), 'utf8')

/** Every file under `root` (relative path → content), to prove nothing changed. */
function snapshot(root: string): Record<string, string> {
  const out: Record<string, string> = {}
  for (const entry of readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue
    const abs = join(entry.parentPath, entry.name)
    out[abs.slice(root.length + 1)] = readFileSync(abs).toString('base64')
  }
  return out
}

describe('apply_patch: the Begin-Patch format', () => {
  it('updates a file found by an @@ context anchor', async () => {
    const { root, tools } = workspace({
      'src/greet.ts':
        'export function greet(name) {\n  return name\n}\n\nfunction other() {\n  return name\n}\n',
    })
    const out = ok(
      await tools.callTool(
        'apply_patch',
        patch(
          '*** Begin Patch\n*** Update File: src/greet.ts\n@@ function other() {\n-  return name\n+  return "hi " + name\n*** End Patch\n',
        ),
      ),
    )
    expect(out).toBe('Applied patch:\n  M src/greet.ts (+1 -1)')
    expect(text(root, 'src/greet.ts')).toBe(
      'export function greet(name) {\n  return name\n}\n\nfunction other() {\n  return "hi " + name\n}\n',
    )
  })

  it('adds a file (creating its directories, with \\n endings), deletes one, and moves one', async () => {
    const { root, tools } = workspace({ 'old.txt': 'a\nb\nc\n', 'from.txt': 'keep me\r\n' })
    const out = ok(
      await tools.callTool(
        'apply_patch',
        patch(
          [
            '*** Begin Patch',
            '*** Add File: deep/new/file.txt',
            '+first',
            '+second',
            '*** Delete File: old.txt',
            '*** Update File: from.txt',
            '*** Move to: moved/to.txt',
            '*** End Patch',
          ].join('\n'),
        ),
      ),
    )
    expect(out).toBe(
      'Applied patch:\n  A deep/new/file.txt (+2 -0)\n  D old.txt (+0 -3)\n  R from.txt -> moved/to.txt',
    )
    expect(text(root, 'deep/new/file.txt')).toBe('first\nsecond\n')
    expect(existsSync(join(root, 'old.txt'))).toBe(false)
    expect(existsSync(join(root, 'from.txt'))).toBe(false)
    expect(text(root, 'moved/to.txt')).toBe('keep me\r\n')
  })

  it('moves and edits in one step', async () => {
    const { root, tools } = workspace({ 'a.py': 'def f():\n    return 1\n' })
    const out = ok(
      await tools.callTool(
        'apply_patch',
        patch(
          '*** Begin Patch\n*** Update File: a.py\n*** Move to: b.py\n@@ def f():\n-    return 1\n+    return 2\n*** End Patch',
        ),
      ),
    )
    expect(out).toBe('Applied patch:\n  R a.py -> b.py (+1 -1)')
    expect(text(root, 'b.py')).toBe('def f():\n    return 2\n')
    expect(existsSync(join(root, 'a.py'))).toBe(false)
  })

  it('applies *** End of File chunks at the end, several chunks in order, and nested anchors', async () => {
    const { root, tools } = workspace({
      'x.py':
        'class A:\n    def f(self):\n        pass\nclass B:\n    def f(self):\n        pass\n}\n',
    })
    ok(
      await tools.callTool(
        'apply_patch',
        patch(
          [
            '*** Begin Patch',
            '*** Update File: x.py',
            '@@ class B:',
            '@@     def f(self):',
            '-        pass',
            '+        return "B"',
            '@@',
            ' }',
            '+# end',
            '*** End of File',
            '*** End Patch',
          ].join('\n'),
        ),
      ),
    )
    expect(text(root, 'x.py')).toBe(
      'class A:\n    def f(self):\n        pass\nclass B:\n    def f(self):\n        return "B"\n}\n# end\n',
    )
  })

  it('accepts the patch wrapped in a shell heredoc', async () => {
    const { root, tools } = workspace({ 'h.txt': 'one\n' })
    ok(
      await tools.callTool(
        'apply_patch',
        patch(
          "apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: h.txt\n-one\n+two\n*** End Patch\nEOF\n",
        ),
      ),
    )
    expect(text(root, 'h.txt')).toBe('two\n')
    // With `cd <dir> &&` in front, relative paths are relative to <dir>.
    const out = ok(
      await tools.callTool(
        'apply_patch',
        patch(
          'cd sub && apply_patch <<EOF\n*** Begin Patch\n*** Add File: new.txt\n+n\n*** End Patch\nEOF',
        ),
      ),
    )
    expect(out).toBe('Applied patch:\n  A sub/new.txt (+1 -0)')
    expect(text(root, 'sub/new.txt')).toBe('n\n')
  })

  it('matches in passes: trailing whitespace, both ends, then Unicode punctuation — keeping the file’s own context text', async () => {
    const file = 'a = 1   \n\t\tb = 2\nsay(“hello” — it’s\u00a0me)\nend\n'
    const { root, tools } = workspace({ 'p.txt': file })
    ok(
      await tools.callTool(
        'apply_patch',
        patch(
          [
            '*** Begin Patch',
            '*** Update File: p.txt',
            ' a = 1', // trailing whitespace differs
            '-b = 2', // indentation differs
            '+\t\tb = 3',
            ' say("hello" - it\'s me)', // ASCII stand-ins for the file's punctuation
            '*** End Patch',
          ].join('\n'),
        ),
      ),
    )
    expect(text(root, 'p.txt')).toBe('a = 1   \n\t\tb = 3\nsay(“hello” — it’s\u00a0me)\nend\n')
  })

  it('reports parse errors as invalid_input with the patch line', async () => {
    const { tools } = workspace({ 'a.txt': 'a\n' })
    const e = err(
      await tools.callTool(
        'apply_patch',
        patch('*** Begin Patch\n*** Update File: a.txt\n@@\n a\nstray line\n*** End Patch'),
      ),
    )
    expect(e).toMatchObject({ error: 'invalid_input', line: 5 })
    expect(e.message).toContain("starts with ' '")
    const cut = err(
      await tools.callTool('apply_patch', patch('*** Begin Patch\n*** Add File: b.txt\n+x\n')),
    )
    expect(cut.error).toBe('invalid_input')
    expect(cut.message).toContain('*** End Patch')
  })
})

describe('apply_patch: unified diffs', () => {
  it('modifies with a/ b/ prefixes and tab-separated timestamps stripped', async () => {
    const { root, tools } = workspace({ 'src/m.c': 'int a;\nint b;\nint c;\n' })
    const out = ok(
      await tools.callTool(
        'apply_patch',
        patch(
          '--- a/src/m.c\t2024-05-01 12:00:00.000000000 +0200\n+++ b/src/m.c\t2024-05-02 12:00:00.000000000 +0200\n@@ -1,3 +1,3 @@\n int a;\n-int b;\n+long b;\n int c;\n',
        ),
      ),
    )
    expect(out).toBe('Applied patch:\n  M src/m.c (+1 -1)')
    expect(text(root, 'src/m.c')).toBe('int a;\nlong b;\nint c;\n')
  })

  it('creates from /dev/null and deletes to /dev/null', async () => {
    const { root, tools } = workspace({ 'gone.txt': 'x\ny\n' })
    const out = ok(
      await tools.callTool(
        'apply_patch',
        patch(
          '--- /dev/null\n+++ b/made/new.txt\n@@ -0,0 +1,2 @@\n+hello\n+world\n--- a/gone.txt\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-x\n-y\n',
        ),
      ),
    )
    expect(out).toBe('Applied patch:\n  A made/new.txt (+2 -0)\n  D gone.txt (+0 -2)')
    expect(text(root, 'made/new.txt')).toBe('hello\nworld\n')
    expect(existsSync(join(root, 'gone.txt'))).toBe(false)
  })

  it('refuses a delete that does not remove the whole content', async () => {
    const { root, tools } = workspace({ 'keep.txt': 'x\ny\nz\n' })
    const e = err(
      await tools.callTool(
        'apply_patch',
        patch('--- a/keep.txt\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-x\n-y\n'),
      ),
    )
    expect(e).toMatchObject({ error: 'invalid_input', path: 'keep.txt' })
    expect(e.message).toContain('whole content')
    expect(text(root, 'keep.txt')).toBe('x\ny\nz\n')
  })

  it('understands git extended headers: new/deleted file mode, index, pure rename, rename with edits', async () => {
    const { root, tools } = workspace({
      'empty-old': '',
      'r1.txt': 'same\n',
      'r2.txt': 'one\ntwo\n',
    })
    const diff = [
      'diff --git a/empty-new b/empty-new',
      'new file mode 100644',
      'index 0000000..e69de29',
      'diff --git a/empty-old b/empty-old',
      'deleted file mode 100644',
      'index e69de29..0000000',
      'diff --git a/r1.txt b/sub/r1.txt',
      'similarity index 100%',
      'rename from r1.txt',
      'rename to sub/r1.txt',
      'diff --git a/r2.txt b/r3.txt',
      'similarity index 60%',
      'rename from r2.txt',
      'rename to r3.txt',
      'index 1111111..2222222 100644',
      '--- a/r2.txt',
      '+++ b/r3.txt',
      '@@ -1,2 +1,2 @@',
      ' one',
      '-two',
      '+2',
      '',
    ].join('\n')
    const out = ok(await tools.callTool('apply_patch', patch(diff)))
    expect(out).toBe(
      [
        'Applied patch:',
        '  A empty-new (+0 -0)',
        '  D empty-old (+0 -0)',
        '  R r1.txt -> sub/r1.txt',
        '  R r2.txt -> r3.txt (+1 -1)',
      ].join('\n'),
    )
    expect(text(root, 'empty-new')).toBe('')
    expect(existsSync(join(root, 'empty-old'))).toBe(false)
    expect(text(root, 'sub/r1.txt')).toBe('same\n')
    expect(text(root, 'r3.txt')).toBe('one\n2\n')
    expect(existsSync(join(root, 'r2.txt'))).toBe(false)
  })

  it('renames by differing ---/+++ paths without git headers', async () => {
    const { root, tools } = workspace({ 'a.txt': 'k\n' })
    const out = ok(
      await tools.callTool(
        'apply_patch',
        patch('--- a/a.txt\n+++ b/b.txt\n@@ -1 +1,2 @@\n k\n+l\n'),
      ),
    )
    expect(out).toBe('Applied patch:\n  R a.txt -> b.txt (+1 -0)')
    expect(text(root, 'b.txt')).toBe('k\nl\n')
  })

  it('finds hunks a few lines away from their stated position', async () => {
    const lines = Array.from({ length: 40 }, (_, i) => `line ${i + 1}`)
    const { root, tools } = workspace({ 'f.txt': `${lines.join('\n')}\n` })
    // The header says line 10; the text is at line 15.
    ok(
      await tools.callTool(
        'apply_patch',
        patch(
          '--- a/f.txt\n+++ b/f.txt\n@@ -10,3 +10,3 @@\n line 15\n-line 16\n+LINE 16\n line 17\n',
        ),
      ),
    )
    const after = text(root, 'f.txt').split('\n')
    expect(after[15]).toBe('LINE 16')
    expect(after.filter((l) => l.startsWith('LINE'))).toHaveLength(1)
  })

  it('prefers the occurrence nearest the stated position', async () => {
    const { root, tools } = workspace({ 'd.txt': 'x\na\nb\nc\nd\ne\nf\nx\ng\n' })
    ok(
      await tools.callTool(
        'apply_patch',
        patch('--- a/d.txt\n+++ b/d.txt\n@@ -7,1 +7,1 @@\n-x\n+y\n'),
      ),
    )
    expect(text(root, 'd.txt')).toBe('x\na\nb\nc\nd\ne\nf\ny\ng\n')
  })

  it('honours \\ No newline at end of file on either side', async () => {
    const { root, tools } = workspace({ 'n1.txt': 'a\nb', 'n2.txt': 'a\nb\n' })
    ok(
      await tools.callTool(
        'apply_patch',
        patch(
          [
            '--- a/n1.txt',
            '+++ b/n1.txt',
            '@@ -1,2 +1,3 @@',
            ' a',
            '-b',
            '\\ No newline at end of file',
            '+b',
            '+c',
            '--- a/n2.txt',
            '+++ b/n2.txt',
            '@@ -1,2 +1,2 @@',
            ' a',
            '-b',
            '+z',
            '\\ No newline at end of file',
          ].join('\n'),
        ),
      ),
    )
    expect(text(root, 'n1.txt')).toBe('a\nb\nc\n')
    expect(text(root, 'n2.txt')).toBe('a\nz')
  })

  it('creates a file without a final newline when the marker says so', async () => {
    const { root, tools } = workspace()
    ok(
      await tools.callTool(
        'apply_patch',
        patch('--- /dev/null\n+++ b/t.txt\n@@ -0,0 +1 @@\n+only\n\\ No newline at end of file\n'),
      ),
    )
    expect(text(root, 't.txt')).toBe('only')
  })

  it('tolerates wrong hunk counts and bare @@ headers', async () => {
    const { root, tools } = workspace({ 'w.txt': 'a\nb\nc\n' })
    ok(
      await tools.callTool(
        'apply_patch',
        patch('--- a/w.txt\n+++ b/w.txt\n@@ -1,1 +1,1 @@\n a\n-b\n+B\n c\n'),
      ),
    )
    expect(text(root, 'w.txt')).toBe('a\nB\nc\n')
    ok(await tools.callTool('apply_patch', patch('--- w.txt\n+++ w.txt\n@@\n-c\n+C\n')))
    expect(text(root, 'w.txt')).toBe('a\nB\nC\n')
  })
})

describe('apply_patch: the contract rules', () => {
  it('a patch with no hunks and no rename is invalid_input', async () => {
    const { tools } = workspace({ 'a.txt': 'a\n' })
    for (const p of [
      '*** Begin Patch\n*** End Patch',
      '--- a/a.txt\n+++ b/a.txt\n',
      'diff --git a/a.txt b/a.txt\nold mode 100644\nnew mode 100755\n',
      'just some prose',
    ]) {
      expect(err(await tools.callTool('apply_patch', patch(p))).error).toBe('invalid_input')
    }
  })

  it('a mode-only diff says that modes are not applied and what to do instead', async () => {
    const { root, tools } = workspace({ 'run.sh': 'echo hi\n' })
    const e = err(
      await tools.callTool(
        'apply_patch',
        patch('diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n'),
      ),
    )
    expect(e).toMatchObject({ error: 'invalid_input', path: 'run.sh' })
    expect(e.message).toContain('only changes file modes')
    expect(e.message).toContain('chmod +x run.sh')
    expect(text(root, 'run.sh')).toBe('echo hi\n')
  })

  it('a binary-files line outside a git block refuses the whole patch', async () => {
    const { root, tools } = workspace({ 'a.txt': 'old\n' })
    const e = err(
      await tools.callTool(
        'apply_patch',
        patch(
          '--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-old\n+new\nBinary files a/i.png and b/i.png differ\n',
        ),
      ),
    )
    expect(e).toMatchObject({ error: 'invalid_input', line: 6 })
    expect(e.message).toContain('binary diffs are not supported')
    expect(text(root, 'a.txt')).toBe('old\n')
  })

  it('deleting a last sibling removes the directories left empty, never the root', async () => {
    const { root, tools } = workspace({
      'src/deep/er/gone.ts': 'x\n',
      'src/keep.ts': 'k\n',
      'mv/from.txt': 'm\n',
    })
    const out = ok(
      await tools.callTool(
        'apply_patch',
        patch(
          '*** Begin Patch\n*** Delete File: src/deep/er/gone.ts\n*** Update File: mv/from.txt\n*** Move to: to/from.txt\n*** End Patch',
        ),
      ),
    )
    expect(out).toBe(
      'Applied patch:\n  D src/deep/er/gone.ts (+0 -1)\n  R mv/from.txt -> to/from.txt',
    )
    expect(existsSync(join(root, 'src/deep'))).toBe(false)
    expect(readdirSync(join(root, 'src'))).toEqual(['keep.ts'])
    expect(existsSync(join(root, 'mv'))).toBe(false)
    ok(
      await tools.callTool(
        'apply_patch',
        patch(
          'diff --git a/src/keep.ts b/src/keep.ts\ndeleted file mode 100644\n--- a/src/keep.ts\n+++ /dev/null\n@@ -1 +0,0 @@\n-k\n',
        ),
      ),
    )
    expect(readdirSync(root).sort()).toEqual(['to'])
  })

  it('refuses to create over an existing file, in both formats', async () => {
    const { root, tools } = workspace({ 'e.txt': 'mine\n' })
    for (const p of [
      '*** Begin Patch\n*** Add File: e.txt\n+theirs\n*** End Patch',
      '--- /dev/null\n+++ b/e.txt\n@@ -0,0 +1 @@\n+theirs\n',
    ]) {
      const e = err(await tools.callTool('apply_patch', patch(p)))
      expect(e).toMatchObject({ error: 'invalid_input', path: 'e.txt' })
      expect(e.message).toContain('already exists')
    }
    expect(text(root, 'e.txt')).toBe('mine\n')
  })

  it('refuses a rename onto an existing file, in both formats, leaving both intact', async () => {
    const { root, tools } = workspace({ 'src.txt': 'S\n', 'dst.txt': 'D\n' })
    for (const p of [
      '*** Begin Patch\n*** Update File: src.txt\n*** Move to: dst.txt\n*** End Patch',
      'diff --git a/src.txt b/dst.txt\nsimilarity index 100%\nrename from src.txt\nrename to dst.txt\n',
      '--- a/src.txt\n+++ b/dst.txt\n@@ -1 +1 @@\n-S\n+T\n',
    ]) {
      const e = err(await tools.callTool('apply_patch', patch(p)))
      expect(e).toMatchObject({ error: 'invalid_input', path: 'dst.txt' })
    }
    expect(text(root, 'src.txt')).toBe('S\n')
    expect(text(root, 'dst.txt')).toBe('D\n')
  })

  it('allows one block per path', async () => {
    const { root, tools } = workspace({ 'a.txt': 'a\nb\n' })
    const e = err(
      await tools.callTool(
        'apply_patch',
        patch(
          '*** Begin Patch\n*** Update File: a.txt\n-a\n+A\n*** Update File: ./a.txt\n-b\n+B\n*** End Patch',
        ),
      ),
    )
    expect(e.error).toBe('invalid_input')
    expect(e.message).toContain('more than one block')
    expect(text(root, 'a.txt')).toBe('a\nb\n')
  })

  it('a failing hunk is patch_failed with file and 1-based hunk, showing expected and actual lines', async () => {
    const { tools } = workspace({
      'code.js': 'function a() {\n  const x = 1\n  return x\n}\n',
    })
    const e = err(
      await tools.callTool(
        'apply_patch',
        patch(
          '--- a/code.js\n+++ b/code.js\n@@ -1,2 +1,2 @@\n function a() {\n-  const x = 1\n+  const x = 2\n@@ -2,3 +2,3 @@\n   const x = 1\n-  return y\n+  return x + 1\n }\n',
        ),
      ),
    )
    expect(e).toMatchObject({ error: 'patch_failed', file: 'code.js', hunk: 2 })
    expect(e.message).toContain('The hunk expects:\n    const x = 1\n    return y\n  }')
    expect(e.message).toContain('     3!\t  return x')
    expect(e.message).toContain('Nothing was written')
  })

  it('says when a hunk looks already applied', async () => {
    const { tools } = workspace({ 'done.txt': 'a\nNEW\nc\n' })
    const e = err(
      await tools.callTool(
        'apply_patch',
        patch('*** Begin Patch\n*** Update File: done.txt\n a\n-old\n+NEW\n c\n*** End Patch'),
      ),
    )
    expect(e.error).toBe('patch_failed')
    expect(e.message).toContain('already applied')
  })

  it('missing files, directories, escapes and oversized files get their own codes', async () => {
    const { tools } = workspace(
      { 'dir/x.txt': 'x\n', 'big.txt': 'y\n'.repeat(1000) },
      { maxFileBytes: 1024 },
    )
    const up = (p: string) => `*** Begin Patch\n*** Update File: ${p}\n-x\n+y\n*** End Patch`
    expect(err(await tools.callTool('apply_patch', patch(up('nope.txt'))))).toMatchObject({
      error: 'not_found',
      path: 'nope.txt',
    })
    expect(err(await tools.callTool('apply_patch', patch(up('dir')))).error).toBe('not_a_file')
    expect(err(await tools.callTool('apply_patch', patch(up('../out.txt')))).error).toBe(
      'path_escape',
    )
    expect(
      err(
        await tools.callTool(
          'apply_patch',
          patch('*** Begin Patch\n*** Add File: /etc/evil\n+x\n*** End Patch'),
        ),
      ).error,
    ).toBe('path_escape')
    expect(err(await tools.callTool('apply_patch', patch(up('big.txt'))))).toMatchObject({
      error: 'too_large',
      limit: 1024,
    })
  })

  it('refuses symlink targets and leaves link and target untouched', async () => {
    const { root, tools } = workspace({ 'real.txt': 'a\n' })
    symlinkSync('real.txt', join(root, 'link.txt'))
    for (const p of [
      '*** Begin Patch\n*** Update File: link.txt\n-a\n+b\n*** End Patch',
      '*** Begin Patch\n*** Delete File: link.txt\n*** End Patch',
      '*** Begin Patch\n*** Add File: link.txt\n+b\n*** End Patch',
    ]) {
      const e = err(await tools.callTool('apply_patch', patch(p)))
      expect(e.error).toBe('invalid_input')
      expect(e.message).toContain('symlink')
    }
    expect(text(root, 'real.txt')).toBe('a\n')
    expect(text(root, 'link.txt')).toBe('a\n')
  })

  it('is hidden and refused under readOnly', async () => {
    const { tools } = workspace({}, { readOnly: true })
    expect(tools.listTools().map((t) => t.name)).not.toContain('apply_patch')
    expect(err(await tools.callTool('apply_patch', patch('x')))).toMatchObject({
      error: 'not_found',
      message: 'Unknown tool: apply_patch',
    })
  })

  it('advertises a schema with one required patch field', async () => {
    const { tools } = workspace()
    const info = tools.listTools().find((t) => t.name === 'apply_patch')
    expect(info?.inputSchema).toMatchObject({
      type: 'object',
      required: ['patch'],
      additionalProperties: false,
    })
    expect(info?.description).toContain('edit_file')
    expect(err(await tools.callTool('apply_patch', { diff: 'x' })).error).toBe('invalid_input')
  })
})

describe('apply_patch: bytes', () => {
  it('changes only the edited bytes of CRLF, lone-CR and mixed-ending files', async () => {
    const { root, tools } = workspace({
      'crlf.txt': 'a\r\nb\r\nc\r\n',
      'cr.txt': 'a\rb\rc\r',
      'mixed.txt': 'a\r\nb\nc\r\nd\r\n',
    })
    ok(
      await tools.callTool(
        'apply_patch',
        patch(
          [
            '*** Begin Patch',
            '*** Update File: crlf.txt',
            ' a',
            '-b',
            '+B1',
            '+B2',
            '*** Update File: cr.txt',
            '-b',
            '+B',
            '*** Update File: mixed.txt',
            ' b',
            '-c',
            '+C',
            '*** End Patch',
          ].join('\n'),
        ),
      ),
    )
    expect(text(root, 'crlf.txt')).toBe('a\r\nB1\r\nB2\r\nc\r\n')
    expect(text(root, 'cr.txt')).toBe('a\rB\rc\r')
    // b keeps its own \n; the new line takes the dominant \r\n.
    expect(text(root, 'mixed.txt')).toBe('a\r\nb\nC\r\nd\r\n')
  })

  it('keeps a UTF-8 BOM and a missing final newline', async () => {
    const { root, tools } = workspace({ 'bom.txt': '\uFEFFfirst\nlast' })
    ok(
      await tools.callTool(
        'apply_patch',
        patch('--- a/bom.txt\n+++ b/bom.txt\n@@ -1,2 +1,2 @@\n-first\n+FIRST\n last\n'),
      ),
    )
    expect(bytes(root, 'bom.txt')).toEqual(Buffer.from('\uFEFFFIRST\nlast'))
  })

  it('refuses UTF-16 files with is_binary and an encoding field, and binary files', async () => {
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('a\nb\n', 'utf16le')])
    const { root, tools } = workspace({ 'u16.txt': le, 'bin.dat': Buffer.from([0x61, 0, 0x0a]) })
    const e = err(
      await tools.callTool(
        'apply_patch',
        patch('*** Begin Patch\n*** Update File: u16.txt\n-a\n+c\n*** End Patch'),
      ),
    )
    expect(e).toMatchObject({ error: 'is_binary', encoding: 'utf-16le', path: 'u16.txt' })
    expect(bytes(root, 'u16.txt')).toEqual(le)
    const b = err(
      await tools.callTool(
        'apply_patch',
        patch('*** Begin Patch\n*** Update File: bin.dat\n-a\n+c\n*** End Patch'),
      ),
    )
    expect(b.error).toBe('is_binary')
  })

  it('edits a Latin-1 file byte-exactly, refusing U+FFFD and non-ASCII added text', async () => {
    const latin1 = Buffer.from('café\nold\nnaïve\n', 'latin1')
    const { root, tools } = workspace({ 'l1.txt': latin1 })
    // The model saw "caf\uFFFD" through read_file; it may use that as context.
    ok(
      await tools.callTool(
        'apply_patch',
        patch('*** Begin Patch\n*** Update File: l1.txt\n caf\uFFFD\n-old\n+new\n*** End Patch'),
      ),
    )
    expect(bytes(root, 'l1.txt')).toEqual(Buffer.from('café\nnew\nnaïve\n', 'latin1'))
    const e = err(
      await tools.callTool(
        'apply_patch',
        patch('*** Begin Patch\n*** Update File: l1.txt\n-na\uFFFDve\n+na\uFFFDve!\n*** End Patch'),
      ),
    )
    expect(e).toMatchObject({ error: 'invalid_input', path: 'l1.txt', hunk: 1 })
    expect(e.message).toContain('not valid UTF-8')
    expect(e.message).toContain('U+FFFD')
    // Non-ASCII text would be written as UTF-8 into a Latin-1 file: refused too.
    const mixed = err(
      await tools.callTool(
        'apply_patch',
        patch('*** Begin Patch\n*** Update File: l1.txt\n-new\n+neu über\n*** End Patch'),
      ),
    )
    expect(mixed.message).toContain('non-ASCII')
    expect(bytes(root, 'l1.txt')).toEqual(Buffer.from('café\nnew\nnaïve\n', 'latin1'))
  })

  it('keeps the mode of a modified file and of a renamed one', async () => {
    const { root, tools } = workspace({ 'run.sh': '#!/bin/sh\necho a\n', 'mv.sh': 'x\n' })
    chmodSync(join(root, 'run.sh'), 0o755)
    chmodSync(join(root, 'mv.sh'), 0o750)
    ok(
      await tools.callTool(
        'apply_patch',
        patch(
          '*** Begin Patch\n*** Update File: run.sh\n-echo a\n+echo b\n*** Update File: mv.sh\n*** Move to: moved.sh\n-x\n+y\n*** End Patch',
        ),
      ),
    )
    expect(statSync(join(root, 'run.sh')).mode & 0o777).toBe(0o755)
    expect(statSync(join(root, 'moved.sh')).mode & 0o777).toBe(0o750)
  })

  it('moves the exact bytes of a file in a pure rename', async () => {
    const raw = Buffer.from([0xef, 0xbb, 0xbf, 0x61, 0x0d, 0x0a, 0xe9, 0x0d])
    const { root, tools } = workspace({ 'raw.bin': raw })
    ok(
      await tools.callTool(
        'apply_patch',
        patch('*** Begin Patch\n*** Update File: raw.bin\n*** Move to: raw2.bin\n*** End Patch'),
      ),
    )
    expect(bytes(root, 'raw2.bin')).toEqual(raw)
  })
})

describe('apply_patch: transactions', () => {
  afterEach(() => native.testOnlyFailCommitOn(null))

  const threeFiles = { 'one.txt': '1\n', 'two.txt': '2\n', 'three.txt': '3\n' }

  it('a failing hunk in a later file leaves every file exactly as before', async () => {
    const { root, tools } = workspace(threeFiles)
    const before = snapshot(root)
    const e = err(
      await tools.callTool(
        'apply_patch',
        patch(
          [
            '*** Begin Patch',
            '*** Update File: one.txt',
            '-1',
            '+uno',
            '*** Add File: four.txt',
            '+4',
            '*** Delete File: two.txt',
            '*** Update File: three.txt',
            '-33',
            '+tres',
            '*** End Patch',
          ].join('\n'),
        ),
      ),
    )
    expect(e).toMatchObject({ error: 'patch_failed', file: 'three.txt', hunk: 1 })
    expect(snapshot(root)).toEqual(before)
  })

  it('a later file whose parent path is a regular file fails the whole patch, leaving no trace', async () => {
    const { root, tools } = workspace({ ...threeFiles, blocker: 'I am a file\n' })
    const before = snapshot(root)
    const e = err(
      await tools.callTool(
        'apply_patch',
        patch(
          [
            '--- a/one.txt',
            '+++ b/one.txt',
            '@@ -1 +1 @@',
            '-1',
            '+uno',
            '--- a/two.txt',
            '+++ /dev/null',
            '@@ -1 +0,0 @@',
            '-2',
            '--- /dev/null',
            '+++ b/blocker/sub/new.txt',
            '@@ -0,0 +1 @@',
            '+new',
          ].join('\n'),
        ),
      ),
    )
    expect(['not_a_file', 'io_error']).toContain(e.error)
    expect(snapshot(root)).toEqual(before)
  })

  it('refuses a patch that makes a path both a file and a parent directory', async () => {
    const { root, tools } = workspace(threeFiles)
    const before = snapshot(root)
    const e = err(
      await tools.callTool(
        'apply_patch',
        patch(
          [
            '*** Begin Patch',
            '*** Update File: one.txt',
            '-1',
            '+uno',
            '*** Add File: blocker',
            '+I want to be a file',
            '*** Add File: blocker/new.txt',
            '+new',
            '*** End Patch',
          ].join('\n'),
        ),
      ),
    )
    expect(e).toMatchObject({ error: 'invalid_input', path: 'blocker/new.txt' })
    expect(e.message).toContain('both a file and a directory')
    expect(snapshot(root)).toEqual(before)
  })

  it('a commit failing half-way (test-only hook) rolls back the files already installed', async () => {
    const { root, tools } = workspace({ ...threeFiles, 'mv-src.txt': 'm\n' })
    const before = snapshot(root)
    native.testOnlyFailCommitOn('three.txt')
    const e = err(
      await tools.callTool(
        'apply_patch',
        patch(
          [
            '*** Begin Patch',
            '*** Update File: one.txt',
            '-1',
            '+uno',
            '*** Delete File: two.txt',
            '*** Add File: made/dir/four.txt',
            '+4',
            '*** Update File: mv-src.txt',
            '*** Move to: mv-dst.txt',
            '*** Update File: three.txt',
            '-3',
            '+tres',
            '*** End Patch',
          ].join('\n'),
        ),
      ),
    )
    expect(e.error).toBe('io_error')
    expect(snapshot(root)).toEqual(before)
    expect(existsSync(join(root, 'made'))).toBe(false)
    native.testOnlyFailCommitOn(null)
    ok(
      await tools.callTool(
        'apply_patch',
        patch('*** Begin Patch\n*** Update File: three.txt\n-3\n+tres\n*** End Patch'),
      ),
    )
    expect(text(root, 'three.txt')).toBe('tres\n')
  })

  it('concurrent patches over overlapping files never interleave', async () => {
    const files = ['f1.txt', 'f2.txt', 'f3.txt', 'f4.txt']
    const root = tempDir()
    for (const f of files) writeFileSync(join(root, f), 'MARK\nend\n')
    // Two independent instances share the process-wide locks.
    const instances = [
      createAgentTools({ workspaceRoot: root }),
      createAgentTools({ workspaceRoot: root }),
    ]
    const n = 60
    const calls = Array.from({ length: n }, (_, i) => {
      // Each patch touches three of the four files, in a rotating order.
      const picked = [0, 1, 2].map((k) => files[(i + k) % files.length])
      if (i % 2) picked.reverse()
      const body = picked.map((f) => `*** Update File: ${f}\n@@ MARK\n+p${i}`).join('\n')
      return instances[i % 2].callTool(
        'apply_patch',
        patch(`*** Begin Patch\n${body}\n*** End Patch`),
      )
    })
    const results = await Promise.all(calls)
    for (const r of results) ok(r)
    // Each file lists the patches that touched it, newest first (each inserts right after
    // MARK). Any two files must order their common patches identically.
    const orders = files.map((f) =>
      text(root, f)
        .split('\n')
        .filter((l) => l.startsWith('p'))
        .map((l) => Number(l.slice(1))),
    )
    for (const order of orders) expect(order).toHaveLength(n - n / files.length)
    for (let a = 0; a < orders.length; a++) {
      for (let b = a + 1; b < orders.length; b++) {
        const common = orders[a].filter((p) => orders[b].includes(p))
        expect(orders[b].filter((p) => orders[a].includes(p))).toEqual(common)
      }
    }
    expect(readdirSync(root).filter((f) => f.startsWith('.clarvis-tmp-'))).toEqual([])
  })
})

// Scenario fixtures: __test__/fixtures/patch/NNN_name/{input/, patch, expected/ | error.json}.
// The patch is applied to a copy of input/; the workspace must then equal expected/, or —
// when error.json is there — the call must fail with (at least) those envelope fields and
// leave the workspace equal to input/.
describe('apply_patch: scenario fixtures', () => {
  const fixtures = fileURLToPath(new URL('./fixtures/patch', import.meta.url))
  for (const name of readdirSync(fixtures).sort()) {
    it(name, async () => {
      const dir = join(fixtures, name)
      const root = tempDir()
      cpSync(join(dir, 'input'), root, { recursive: true })
      const tools = createAgentTools({ workspaceRoot: root })
      const result = await tools.callTool('apply_patch', {
        patch: readFileSync(join(dir, 'patch'), 'utf8'),
      })
      if (existsSync(join(dir, 'error.json'))) {
        expect(err(result)).toMatchObject(JSON.parse(readFileSync(join(dir, 'error.json'), 'utf8')))
        expect(snapshot(root)).toEqual(snapshot(join(dir, 'input')))
      } else {
        expect(ok(result)).toMatch(/^Applied patch:\n/)
        expect(snapshot(root)).toEqual(snapshot(join(dir, 'expected')))
      }
    })
  }
})
