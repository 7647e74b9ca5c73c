// `npm run build:platform -- <rust-target>`: builds the addon for one published target on a
// Linux x64 host and puts it where a publish takes it from, npm/<platform>/<name>.<platform>.node.
// It installs what the target needs first (see platforms-lib.mjs) and says so. The release
// profile of Cargo.toml applies; CARGO_PROFILE_RELEASE_* in the environment override it (CI's
// faster flags: CARGO_PROFILE_RELEASE_LTO=thin CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16).
import { copyFileSync, existsSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import {
  ensureApt,
  ensureRustTarget,
  ensureZig,
  pkg,
  platformFile,
  repo,
  say,
  sh,
  TARGETS,
  targetArg,
  toolsDir,
} from './platforms-lib.mjs'

/**
 * napi-build links a windows-gnu addon with `-lnode` and insists on a `libnode.dll` in
 * LIBNODE_PATH. The addon needs neither: on Windows it looks up the N-API functions in the
 * running node.exe at load time (napi's `dyn-symbols` feature, on for this target in
 * Cargo.toml), as napi-rs' MSVC builds do. An import library with no symbols satisfies the
 * linker and adds no import.
 */
function emptyLibnode() {
  const dir = join(toolsDir, 'libnode')
  mkdirSync(dir, { recursive: true })
  const def = join(dir, 'node.def')
  writeFileSync(def, 'LIBRARY node.exe\nEXPORTS\n')
  for (const name of ['libnode.dll.a', 'libnode.dll']) {
    sh('x86_64-w64-mingw32-dlltool', ['--def', def, '--output-lib', join(dir, name)])
  }
  return dir
}

function main() {
  const target = targetArg(process.argv.slice(2))
  const { platform, via, apt = [], env: targetEnv = {} } = TARGETS[target]
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new Error(
      `build:platform runs on a Linux x64 host (this is ${process.platform}-${process.arch})`,
    )
  }
  say(`building ${target} (npm/${platform}) via ${via}`)
  ensureRustTarget(target)
  ensureApt(apt)
  const env = { ...process.env, ...targetEnv }
  const args = ['build', '--platform', '--release', '--target', target]
  if (via === 'zig') {
    env.PATH = ensureZig()
    args.push('--cross-compile')
  }
  if (via === 'mingw') env.LIBNODE_PATH = emptyLibnode()
  const lto = env.CARGO_PROFILE_RELEASE_LTO ?? 'true (Cargo.toml)'
  const cgu = env.CARGO_PROFILE_RELEASE_CODEGEN_UNITS ?? '1 (Cargo.toml)'
  say(`release profile: lto=${lto}, codegen-units=${cgu}`)

  // The build writes its .node (and the type definitions, which only the host build keeps in
  // binding.d.ts) into a staging directory, so binding.js and binding.d.ts stay untouched.
  const staging = join(repo, 'target', 'platform', target)
  rmSync(staging, { recursive: true, force: true })
  mkdirSync(staging, { recursive: true })
  args.push('--output-dir', staging, '--no-js', '--dts', 'binding.d.ts')
  const napi = join(repo, 'node_modules', '.bin', 'napi')
  say(`napi ${args.join(' ')}`)
  const started = performance.now()
  sh(napi, args, { cwd: repo, env })
  const seconds = (performance.now() - started) / 1000

  const file = `${pkg.napi.binaryName}.${platform}.node`
  const built = join(staging, file)
  if (!existsSync(built)) throw new Error(`the build produced no ${relative(repo, built)}`)
  const dest = platformFile(target)
  copyFileSync(built, dest)
  const mb = (statSync(dest).size / 1e6).toFixed(1)
  say(
    `${relative(repo, dest)}: ${mb} MB, built in ${Math.round(seconds)} s (lto=${lto}, codegen-units=${cgu})`,
  )
  say(`check it with: npm run smoke:platform -- ${target}`)
}

try {
  main()
} catch (err) {
  console.error(`[platform] ${err.message}`)
  process.exit(1)
}
