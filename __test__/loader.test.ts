// The loader's failure: a copy of the package without any compiled addon must throw one clear
// error that lists every attempt and says how to fix it.
import { spawnSync } from 'node:child_process'
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { tempDir } from './helpers'

const root = join(__dirname, '..')

describe('loading the addon', () => {
  it('throws one error naming every attempt and how to fix it, the loader error as cause', () => {
    const pkg = tempDir('atn-noaddon-')
    for (const f of ['index.js', 'api.js', 'native.js', 'binding.js', 'package.json']) {
      copyFileSync(join(root, f), join(pkg, f))
    }
    const probe = `
      try { require(${JSON.stringify(join(pkg, 'index.js'))}); console.log('loaded') }
      catch (e) {
        const causes = []
        for (let c = e.cause; c; c = c.cause) causes.push(c.message.split('\\n')[0])
        console.log(JSON.stringify({ message: e.message, code: e.code, causes }))
      }`
    const env = { ...process.env }
    delete env.NAPI_RS_NATIVE_LIBRARY_PATH
    const r = spawnSync(process.execPath, ['-e', probe], { cwd: pkg, env, encoding: 'utf8' })
    expect(r.status).toBe(0)
    const err = JSON.parse(r.stdout)
    expect(err.code).toBe('ERR_AGENT_TOOLS_NATIVE_LOAD')
    // The cause is the loader's error, then the attempts, the last first; without napi-rs'
    // generic advice (an npm bug: remove the lockfile) and without WASI, never built here.
    expect(err.causes).toHaveLength(3)
    expect(err.causes[0]).toMatch(/^Cannot find native binding: binding\.js/)
    expect(err.causes[1]).toContain(`agent-tools-native-${readdirPlatform()}`)
    expect(err.causes.join('\n')).not.toMatch(/npm has a bug|wasi/i)
    const lines: string[] = err.message.split('\n')
    expect(lines[0]).toBe(
      `agent-tools-native: cannot load the native addon on ${process.platform}-${process.arch} (Node ${process.version}).`,
    )
    // Every attempt, in order: the local build first, then the platform package.
    const attempts = lines.filter((l) => l.startsWith('  - '))
    const platform = readdirPlatform()
    expect(attempts[0]).toContain(`./agent-tools-native.${platform}.node`)
    expect(attempts[1]).toContain(`agent-tools-native-${platform}`)
    // No WASI file or package is ever built: those attempts are left out.
    expect(attempts).toHaveLength(2)
    expect(err.message).not.toMatch(/wasi/i)
    expect(err.message).toContain(
      'Platform packages are built for: linux-x64-gnu, linux-x64-musl, linux-arm64-gnu, linux-arm64-musl, darwin-x64, darwin-arm64, win32-x64-gnu.',
    )
    expect(lines.at(-1)).toMatch(
      new RegExp(
        `^Cause: the platform package agent-tools-native-${platform} is not installed\\. \\(.*\\) To fix: build agent-tools-native-${platform} from source`,
      ),
    )
    // The package is not on the registry: no advice to install it from there.
    expect(err.message).not.toMatch(/npm install agent-tools-native-/)
    expect(lines.at(-1)).toContain('npm run pack:local')
    expect(lines.at(-1)).toContain('`npm ci && npm run build`')
  })

  it('names the real cause: a platform package without its .node, or for the other libc', () => {
    const platform = readdirPlatform()
    const load = (extra: (pkg: string) => void) => {
      const pkg = tempDir('atn-cause-')
      for (const f of ['index.js', 'api.js', 'native.js', 'binding.js', 'package.json']) {
        copyFileSync(join(root, f), join(pkg, f))
      }
      extra(pkg)
      const env = { ...process.env }
      delete env.NAPI_RS_NATIVE_LIBRARY_PATH
      const r = spawnSync(
        process.execPath,
        ['-e', `try { require('./index.js') } catch (e) { console.log(e.message) }`],
        { cwd: pkg, env, encoding: 'utf8' },
      )
      return r.stdout.trim().split('\n').at(-1) ?? ''
    }
    const stub = (pkg: string, name: string) => {
      const dir = join(pkg, 'node_modules', name)
      mkdirSync(dir, { recursive: true })
      writeFileSync(
        join(dir, 'package.json'),
        JSON.stringify({ name, main: `agent-tools-native.${name.slice(19)}.node` }),
      )
    }
    const empty = load((pkg) => stub(pkg, `agent-tools-native-${platform}`))
    expect(empty).toMatch(
      new RegExp(
        `^Cause: agent-tools-native-${platform} is installed at .* but holds no agent-tools-native\\.${platform}\\.node`,
      ),
    )
    if (platform.endsWith('-gnu') || platform.endsWith('-musl')) {
      const other = platform.endsWith('-gnu')
        ? platform.replace(/-gnu$/, '-musl')
        : platform.replace(/-musl$/, '-gnu')
      const mismatch = load((pkg) => stub(pkg, `agent-tools-native-${other}`))
      expect(mismatch).toMatch(
        new RegExp(
          `^Cause: libc mismatch: agent-tools-native-${other} is installed, but this Node runs on`,
        ),
      )
    }
  })

  it('on Windows x64, loads the MinGW package (win32-x64-gnu) and names it when it fails', () => {
    // napi-rs' loader looks for win32-x64-msvc under an MSVC-built Node; the Windows package is
    // the MinGW build, so native.js tries that one too. Run as win32-x64 (process.platform and
    // process.arch overridden before the package loads).
    const load = (extra: (pkg: string) => void) => {
      const pkg = tempDir('atn-win32-')
      for (const f of ['index.js', 'api.js', 'native.js', 'binding.js', 'package.json']) {
        copyFileSync(join(root, f), join(pkg, f))
      }
      writeFileSync(
        join(pkg, 'as-win32.js'),
        `Object.defineProperty(process, 'platform', { value: 'win32' })
         Object.defineProperty(process, 'arch', { value: 'x64' })`,
      )
      extra(pkg)
      const env = { ...process.env }
      delete env.NAPI_RS_NATIVE_LIBRARY_PATH
      const r = spawnSync(
        process.execPath,
        [
          '--require',
          './as-win32.js',
          '-e',
          `try { require('./index.js') } catch (e) { console.log(e.message) }`,
        ],
        { cwd: pkg, env, encoding: 'utf8' },
      )
      return r.stdout.trim().split('\n')
    }
    const missing = load(() => {})
    expect(missing[0]).toMatch(/^agent-tools-native: cannot load the native addon on win32-x64 /)
    const tried = missing.filter((l) => l.startsWith('  - '))
    expect(tried.at(-2)).toContain('./agent-tools-native.win32-x64-gnu.node')
    expect(tried.at(-1)).toContain('agent-tools-native-win32-x64-gnu')
    expect(missing.at(-1)).toMatch(
      /^Cause: the platform package agent-tools-native-win32-x64-gnu is not installed\. \(.*\) To fix: build agent-tools-native-win32-x64-gnu from source/,
    )
    // Installed, with a file that is no loadable DLL here: the attempt and the cause name it.
    const broken = load((pkg) => {
      const dir = join(pkg, 'node_modules', 'agent-tools-native-win32-x64-gnu')
      mkdirSync(dir, { recursive: true })
      copyFileSync(join(root, 'npm', 'win32-x64-gnu', 'package.json'), join(dir, 'package.json'))
      writeFileSync(join(dir, 'agent-tools-native.win32-x64-gnu.node'), 'not a DLL')
    })
    expect(broken.filter((l) => l.startsWith('  - ')).at(-1)).toContain(
      'node_modules/agent-tools-native-win32-x64-gnu/agent-tools-native.win32-x64-gnu.node',
    )
    expect(broken.at(-1)).toBe(
      'Cause: agent-tools-native-win32-x64-gnu is installed with agent-tools-native.win32-x64-gnu.node, but it failed to load (see the attempts above).',
    )
  })

  it('in a source checkout, says to run `npm run build` in it', () => {
    const pkg = tempDir('atn-checkout-')
    for (const f of [
      'index.js',
      'api.js',
      'native.js',
      'binding.js',
      'package.json',
      'Cargo.toml',
    ]) {
      copyFileSync(join(root, f), join(pkg, f))
    }
    const env = { ...process.env }
    delete env.NAPI_RS_NATIVE_LIBRARY_PATH
    const r = spawnSync(
      process.execPath,
      ['-e', `require(${JSON.stringify(join(pkg, 'index.js'))})`],
      {
        cwd: pkg,
        env,
        encoding: 'utf8',
      },
    )
    expect(r.status).not.toBe(0)
    expect(r.stderr).toContain(
      `To fix: build the addon from source with Rust (https://rustup.rs): run \`npm run build\` in ${pkg}.`,
    )
  })

  it('the CLI prints that error without a stack trace, exit 1; --help still works', () => {
    const pkg = tempDir('atn-noaddon-cli-')
    for (const f of [
      'index.js',
      'api.js',
      'native.js',
      'binding.js',
      'package.json',
      'cli.js',
      'cli-options.js',
      'mcp.js',
    ]) {
      copyFileSync(join(root, f), join(pkg, f))
    }
    const env = { ...process.env }
    delete env.NAPI_RS_NATIVE_LIBRARY_PATH
    const list = spawnSync(process.execPath, [join(pkg, 'cli.js'), 'list'], {
      cwd: pkg,
      env,
      encoding: 'utf8',
    })
    expect(list.status).toBe(1)
    expect(list.stdout).toBe('')
    expect(list.stderr).toMatch(/^agent-tools-native: cannot load the native addon/)
    expect(list.stderr).toContain('npm run build')
    expect(list.stderr).not.toMatch(/^\s+at /m)
    const help = spawnSync(process.execPath, [join(pkg, 'cli.js'), '--help'], {
      cwd: pkg,
      env,
      encoding: 'utf8',
    })
    expect(help.status).toBe(0)
    expect(help.stdout).toMatch(/^Usage: agent-tools-native/)
  })
})

/** The platform suffix of the addon built in this checkout, e.g. `linux-x64-gnu`. */
function readdirPlatform(): string {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
  const names = readdirSync(root)
  const built = names.find((f) => f.startsWith(`${pkg.napi.binaryName}.`) && f.endsWith('.node'))
  if (!built) throw new Error('no built addon next to package.json: run `npm run build` first')
  return built.slice(pkg.napi.binaryName.length + 1, -'.node'.length)
}
