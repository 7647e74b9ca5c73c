// The per-platform packages and the release workflow agree with package.json's napi targets.
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'

const root = join(__dirname, '..')
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
const { binaryName, targets } = pkg.napi as { binaryName: string; targets: string[] }

/** What napi-rs derives from a target triple: the platform suffix and the npm fields. */
const expected: Record<string, { platform: string; os: string; cpu: string; libc?: string }> = {
  'x86_64-unknown-linux-gnu': { platform: 'linux-x64-gnu', os: 'linux', cpu: 'x64', libc: 'glibc' },
  'x86_64-unknown-linux-musl': {
    platform: 'linux-x64-musl',
    os: 'linux',
    cpu: 'x64',
    libc: 'musl',
  },
  'aarch64-unknown-linux-gnu': {
    platform: 'linux-arm64-gnu',
    os: 'linux',
    cpu: 'arm64',
    libc: 'glibc',
  },
  'aarch64-unknown-linux-musl': {
    platform: 'linux-arm64-musl',
    os: 'linux',
    cpu: 'arm64',
    libc: 'musl',
  },
  'x86_64-apple-darwin': { platform: 'darwin-x64', os: 'darwin', cpu: 'x64' },
  'aarch64-apple-darwin': { platform: 'darwin-arm64', os: 'darwin', cpu: 'arm64' },
  'x86_64-pc-windows-gnu': { platform: 'win32-x64-gnu', os: 'win32', cpu: 'x64' },
}

describe('platform packages', () => {
  it('napi.targets lists the seven supported targets', () => {
    expect([...targets].sort()).toEqual(Object.keys(expected).sort())
  })

  it('npm/<platform>/package.json exists for every target and nothing else', () => {
    expect(readdirSync(join(root, 'npm')).sort()).toEqual(
      targets.map((t) => expected[t]?.platform).sort(),
    )
  })

  for (const target of targets) {
    const want = expected[target]
    it(`npm/${want?.platform} carries os, cpu, libc and only the .node file`, () => {
      if (!want) throw new Error(`no expectation for ${target}`)
      const dir = join(root, 'npm', want.platform)
      const sub = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'))
      const node = `${binaryName}.${want.platform}.node`
      expect(sub).toMatchObject({
        name: `${pkg.name}-${want.platform}`,
        version: pkg.version,
        os: [want.os],
        cpu: [want.cpu],
        main: node,
        files: [node],
        license: pkg.license,
        engines: pkg.engines,
      })
      if (want.libc) expect(sub.libc).toEqual([want.libc])
      else expect(sub.libc).toBeUndefined()
    })
  }
})

describe('the CI workflow', () => {
  const workflow = readFileSync(join(root, '.github', 'workflows', 'ci.yml'), 'utf8')

  it('builds every napi target', () => {
    const build = workflow.slice(workflow.indexOf('\n  build:'), workflow.indexOf('\n  test:'))
    const built = [...build.matchAll(/^\s+(?:- )?target: (\S+)$/gm)].map((m) => m[1])
    expect(built.sort()).toEqual([...targets].sort())
    // One way to build a platform package: the script a developer runs, then its checks.
    expect(build).toContain(`run: npm run build:platform -- \${{ matrix.target }}`)
    expect(build).toContain(`run: npm run smoke:platform -- \${{ matrix.target }}`)
  })

  it('tests on Node 20, 22 and 24 and publishes on a version tag', () => {
    expect(workflow).toMatch(/node: \[["']20["'], ["']22["'], ["']24["']\]/)
    expect(workflow).toMatch(/tags: \[["']v\*["']\]/)
    expect(workflow).toMatch(/if: startsWith\(github\.ref, 'refs\/tags\/v'\)/)
    expect(workflow).toContain('npm run artifacts')
  })
})
