import { mkdirSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { err, isolateGitHome, ok, tempDir, workspace, writeTree } from './helpers'

/** Sets a file's mtime to `secs` seconds after the epoch. */
function age(root: string, rel: string, secs: number): void {
  utimesSync(join(root, rel), secs, secs)
}

describe('glob', () => {
  isolateGitHome()

  it('lists files newest first, ties by path, relative to the workspace root', async () => {
    const { root, tools } = workspace({
      'old.ts': '',
      'src/b.ts': '',
      'src/a.ts': '',
      'src/deep/new.ts': '',
      'readme.md': '',
    })
    age(root, 'old.ts', 1000)
    age(root, 'src/b.ts', 2000)
    age(root, 'src/a.ts', 2000)
    age(root, 'src/deep/new.ts', 3000)
    age(root, 'readme.md', 9000)
    expect(ok(await tools.callTool('glob', { pattern: '**/*.ts' }))).toBe(
      'src/deep/new.ts\nsrc/a.ts\nsrc/b.ts\nold.ts',
    )
    // A base path narrows the search; results stay relative to the root.
    expect(ok(await tools.callTool('glob', { pattern: '*.ts', path: 'src/deep' }))).toBe(
      'src/deep/new.ts',
    )
  })

  it('reads patterns the ripgrep --glob way', async () => {
    const { tools } = workspace({ 'a.rs': '', 'src/b.rs': '', 'src/x/c.rs': '', 'src/d.c': '' })
    const sorted = async (pattern: string) =>
      ok(await tools.callTool('glob', { pattern }))
        .split('\n')
        .sort()
    // No slash: file names at any depth.
    expect(await sorted('*.rs')).toEqual(['a.rs', 'src/b.rs', 'src/x/c.rs'])
    // With a slash: the path relative to the base; * stays in one segment, ** spans them.
    expect(await sorted('src/*.rs')).toEqual(['src/b.rs'])
    expect(await sorted('src/**/*.rs')).toEqual(['src/b.rs', 'src/x/c.rs'])
    expect(await sorted('src/*.{rs,c}')).toEqual(['src/b.rs', 'src/d.c'])
    expect(await sorted('./src/[d]*')).toEqual(['src/d.c'])
  })

  it('lists files only, hidden ones included', async () => {
    const { tools } = workspace({ '.env': '', '.config/app.json': '', 'dir/file': '' })
    const out = ok(await tools.callTool('glob', { pattern: '**/*' }))
      .split('\n')
      .sort()
    expect(out).toEqual(['.config/app.json', '.env', 'dir/file'])
  })

  it('says (no matches)', async () => {
    const { tools } = workspace({ 'a.txt': '' })
    expect(ok(await tools.callTool('glob', { pattern: '**/*.zig' }))).toBe('(no matches)')
  })

  it('never lists .git, .clarvis or temp files, even without ignore files', async () => {
    const { tools } = workspace({
      '.git/HEAD': '',
      '.git/objects/ab': '',
      '.clarvis/bash-1.stdout.log': '',
      'src/.clarvis-tmp-1a2b': '',
      'src/keep.txt': '',
    })
    for (const respect_gitignore of [true, false]) {
      expect(ok(await tools.callTool('glob', { pattern: '**/*', respect_gitignore }))).toBe(
        'src/keep.txt',
      )
    }
    expect(ok(await tools.callTool('glob', { pattern: '*', path: '.git' }))).toBe('(no matches)')
  })

  it('applies the git ignore stack unless respect_gitignore is false', async () => {
    const { root, tools } = workspace({
      '.gitignore': '*.log\n!keep.log\nbuild/\n',
      'a.log': '',
      'keep.log': '',
      'build/out.js': '',
      'src/.gitignore': '*.tmp\n',
      'src/x.tmp': '',
      'src/x.ts': '',
      'y.tmp': '',
      '.ignore': 'secret.txt\n',
      'secret.txt': '',
    })
    for (const f of ['.gitignore', 'src/.gitignore', '.ignore']) age(root, f, 1)
    const on = ok(await tools.callTool('glob', { pattern: '**/*' }))
      .split('\n')
      .sort()
    expect(on).toEqual(['.gitignore', '.ignore', 'keep.log', 'src/.gitignore', 'src/x.ts', 'y.tmp'])
    const off = ok(await tools.callTool('glob', { pattern: '**/*', respect_gitignore: false }))
    expect(off.split('\n')).toHaveLength(10)
  })

  it('never brings back an ignored file because the pattern names it', async () => {
    const { tools } = workspace({ '.gitignore': '*.log\n', 'a.log': '', 'b.txt': '' })
    expect(ok(await tools.callTool('glob', { pattern: '*.log' }))).toBe('(no matches)')
    expect(ok(await tools.callTool('glob', { pattern: '*.log', respect_gitignore: false }))).toBe(
      'a.log',
    )
  })

  it("applies a parent directory's .gitignore up to the repository root, and info/exclude", async () => {
    const top = tempDir()
    writeTree(top, {
      '.gitignore': '*.md\n',
      'repo/.git/info/exclude': '*.gen\n',
      'repo/.gitignore': '*.log\n',
      'repo/ws/a.log': '',
      'repo/ws/b.gen': '',
      'repo/ws/c.md': '',
      'repo/ws/d.ts': '',
    })
    const { createAgentTools } = await import('../v0.1/index.js')
    const tools = createAgentTools({ workspaceRoot: join(top, 'repo/ws') })
    // *.log (parent .gitignore) and *.gen (info/exclude) apply; *.md above the repo does not.
    expect(
      ok(await tools.callTool('glob', { pattern: '*' }))
        .split('\n')
        .sort(),
    ).toEqual(['c.md', 'd.ts'])
  })

  it('applies the global excludes file, with or without a repository', async () => {
    const home = process.env.HOME as string
    mkdirSync(join(home, '.config/git'), { recursive: true })
    writeFileSync(join(home, '.config/git/ignore'), '*.swp\n')
    const { tools } = workspace({ 'a.swp': '', 'a.txt': '' })
    expect(ok(await tools.callTool('glob', { pattern: '*' }))).toBe('a.txt')
    const custom = join(home, 'my-excludes')
    writeFileSync(custom, '*.txt\n')
    writeFileSync(join(home, '.gitconfig'), `[core]\n\texcludesFile = ${custom}\n`)
    const repo = workspace({ '.git/HEAD': '', 'a.swp': '', 'a.txt': '', 'b.rs': '' })
    expect(
      ok(await repo.tools.callTool('glob', { pattern: '*' }))
        .split('\n')
        .sort(),
    ).toEqual(['a.swp', 'b.rs'])
  })

  it('follows symlinks inside the workspace and skips those leading out when confined', async () => {
    const outside = tempDir()
    writeTree(outside, { 'o.ts': '' })
    const { root, tools } = workspace({ 'real/f.ts': '' })
    symlinkSync(join(root, 'real'), join(root, 'linkdir'))
    symlinkSync(join(root, 'real/f.ts'), join(root, 'link.ts'))
    symlinkSync(outside, join(root, 'outdir'))
    symlinkSync(join(outside, 'o.ts'), join(root, 'out.ts'))
    symlinkSync(root, join(root, 'real/loop'))
    const list = async (t: typeof tools) =>
      ok(await t.callTool('glob', { pattern: '**/*.ts' }))
        .split('\n')
        .sort()
    expect(await list(tools)).toEqual(['link.ts', 'linkdir/f.ts', 'real/f.ts'])
    const { createAgentTools } = await import('../v0.1/index.js')
    const open = createAgentTools({ workspaceRoot: root, confineToWorkspace: false })
    expect(await list(open)).toEqual([
      'link.ts',
      'linkdir/f.ts',
      'out.ts',
      'outdir/o.ts',
      'real/f.ts',
    ])
    expect(err(await tools.callTool('glob', { pattern: '*', path: 'outdir' })).error).toBe(
      'path_escape',
    )
  })

  it('refuses a bad pattern, a file as base, a missing base and escapes', async () => {
    const outside = tempDir()
    const { tools } = workspace({ 'f.txt': '' })
    const bad = err(await tools.callTool('glob', { pattern: 'src/[a' }))
    expect(bad).toMatchObject({ error: 'invalid_input', field: 'pattern' })
    expect(bad.message).toMatch(/unclosed character class/)
    expect(err(await tools.callTool('glob', { pattern: '' })).error).toBe('invalid_input')
    expect(err(await tools.callTool('glob', { pattern: '*', path: 'f.txt' }))).toMatchObject({
      error: 'not_a_file',
      path: 'f.txt',
    })
    expect(err(await tools.callTool('glob', { pattern: '*', path: 'nope' })).error).toBe(
      'not_found',
    )
    for (const path of ['..', outside]) {
      expect(err(await tools.callTool('glob', { pattern: '*', path })).error).toBe('path_escape')
    }
    expect(err(await tools.callTool('glob', { pattern: '*', depth: 2 })).error).toBe(
      'invalid_input',
    )
  })

  it('bounds long listings to maxOutputBytes', async () => {
    const files: Record<string, string> = {}
    for (let i = 0; i < 300; i++) files[`dir/file-${String(i).padStart(4, '0')}.txt`] = ''
    const { tools } = workspace(files, { maxOutputBytes: 1024 })
    const text = ok(await tools.callTool('glob', { pattern: '**/*.txt' }))
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(1024)
    expect(text).toMatch(/\[\.\.\. output truncated: \d+ of \d+ bytes shown \.\.\.\]$/)
  })
})
