// Loads the addon once for every entry point (the package root and `/v0.1`).

/**
 * Loads the addon through napi-rs' generated loader (`binding.js`: the local `.node` build
 * first, then the platform package). If nothing loads, throws one error saying what was tried
 * and how to fix it. The loader's own error stays as `cause`, its `cause` chain holding those
 * attempts (the last first), but without its generic advice, which does not fit this package.
 */
function loadNative() {
  try {
    return require('./binding.js')
  } catch (err) {
    if (process.platform === 'win32' && process.arch === 'x64') {
      const addon = loadWindowsGnu(err)
      if (addon) return addon
    }
    throw nativeLoadError(err)
  }
}

/**
 * The Windows package is the MinGW build (`win32-x64-gnu`: the MSVC C runtime cannot be had to
 * build the MSVC one), but napi-rs' loader looks for `win32-x64-msvc` under an MSVC-built Node.
 * Tries the local build, then the platform package; each failure joins the loader's `cause`
 * chain so the error lists it as one more attempt.
 */
function loadWindowsGnu(err) {
  for (const id of [
    './agent-tools-native.win32-x64-gnu.node',
    'agent-tools-native-win32-x64-gnu',
  ]) {
    try {
      return require(id)
    } catch (e) {
      err.cause = new Error(String(e?.message ?? e), { cause: err.cause })
    }
  }
  return undefined
}

/** The first line of an error's message. */
function firstLine(e) {
  return String(e?.message ?? e).split('\n')[0]
}

function nativeLoadError(err) {
  let targets = []
  try {
    targets = require('./package.json').napi.targets
  } catch {
    // The list only decorates the message.
  }
  const prebuilt = targets.map(platformOfTarget)
  // The loader's error is a summary ("npm has a bug…", advice that does not fit here) whose
  // `cause` chain runs from the last attempt back to the first. Its WASI attempts are left out
  // unless a WASI target is built: no such file or package exists for this package.
  const failures = []
  for (let e = err?.cause ?? err; e && failures.length < 50; e = e.cause) failures.unshift(e)
  const wasiBuilt = targets.some((t) => t.startsWith('wasm32'))
  const tried = wasiBuilt
    ? failures
    : failures.filter((e) => !/\.wasi\.cjs\b|\bwasm32-wasi\b/.test(firstLine(e)))
  const attempts = tried.map((e) => `  - ${firstLine(e)}`)
  const here = `${process.platform}-${process.arch}`
  // A source checkout (Cargo.toml beside this file) builds in place; an installed copy has no
  // Rust sources, so the fix depends on what is actually wrong with its platform package.
  const fs = require('node:fs')
  const path = require('node:path')
  const fix = fs.existsSync(path.join(__dirname, 'Cargo.toml'))
    ? 'To fix: build the addon from source with Rust (https://rustup.rs): run `npm run build` ' +
      `in ${__dirname}.`
    : `Cause: ${diagnose(prebuilt)}`
  const error = new Error(
    `agent-tools-native: cannot load the native addon on ${here} (Node ${process.version}).\n` +
      `Tried:\n${attempts.join('\n')}\n` +
      `Platform packages are built for: ${prebuilt.join(', ') || '(unknown)'}.\n${fix}`,
  )
  error.code = 'ERR_AGENT_TOOLS_NATIVE_LOAD'
  // The loader's error, kept as the cause: its message loses the advice (remove the lockfile
  // and node_modules for an npm bug) that does not apply here, its chain the WASI attempts.
  let chain
  for (const e of tried) {
    chain = new Error(String(e?.message ?? e), { cause: chain })
    if (e?.code) chain.code = e.code
  }
  if (err instanceof Error) {
    err.message =
      'Cannot find native binding: binding.js (the napi-rs loader) tried each place listed ' +
      'above; its cause chain holds each failure, the last first.'
    err.cause = chain
  }
  error.cause = err
  return error
}

/** This machine's napi-rs platform suffix (`linux-x64-gnu`, `darwin-arm64`, …). */
function hostPlatform() {
  const base = `${process.platform}-${process.arch}`
  if (process.platform === 'linux') return `${base}-${hostLibc()}`
  if (process.platform === 'win32') return `${base}-gnu`
  return base
}

/** `gnu` or `musl`: the C library this Node runs on. */
function hostLibc() {
  try {
    return process.report?.getReport?.().header?.glibcVersionRuntime ? 'gnu' : 'musl'
  } catch {
    return 'gnu'
  }
}

/**
 * Why an installed copy found no addon, and what to do: no prebuilt package for this platform,
 * the platform package missing, one for the other C library, or a platform package without its
 * `.node` file (a package packed before the addon was built into it).
 */
function diagnose(prebuilt) {
  const platform = hostPlatform()
  const name = `agent-tools-native-${platform}`
  const source =
    'build from source with Rust (https://rustup.rs): in a checkout of the agent-tools-native ' +
    'sources run `npm ci && npm run build`, then `npm run pack:local` and install the two ' +
    'tarballs it prints together.'
  if (!prebuilt.includes(platform)) {
    return `no platform package is built for ${platform}. To fix: ${source}`
  }
  let dir
  try {
    dir = require('node:path').dirname(require.resolve(`${name}/package.json`))
  } catch {
    const other = platform.endsWith('-gnu')
      ? platform.replace(/-gnu$/, '-musl')
      : platform.replace(/-musl$/, '-gnu')
    let otherInstalled = false
    try {
      require.resolve(`agent-tools-native-${other}/package.json`)
      otherInstalled = other !== platform
    } catch {
      // Not installed either.
    }
    // Not published to the registry (README, "Install"): the platform package comes from
    // `npm run pack:local`, built on a machine of this platform.
    if (otherInstalled) {
      return (
        `libc mismatch: agent-tools-native-${other} is installed, but this Node runs on ` +
        `${hostLibc() === 'gnu' ? 'glibc' : 'musl'} and needs ${name}. (The tarballs were ` +
        `packed, or the lockfile made, on the other system.) To fix: ${source.replace('build from source', `build ${name} on this system`)}`
      )
    }
    return (
      `the platform package ${name} is not installed. (npm leaves it out with --omit=optional, ` +
      'or when it was not installed together with this package.) To fix: ' +
      `${source.replace('build from source', `build ${name} from source`)}`
    )
  }
  const file = `agent-tools-native.${platform}.node`
  if (!require('node:fs').existsSync(require('node:path').join(dir, file))) {
    return (
      `${name} is installed at ${dir} but holds no ${file} (it was packed before the addon ` +
      'was built into it). To fix: pack it again with `npm run pack:local` after `npm run build` ' +
      `in its checkout; anywhere else, ${source}`
    )
  }
  return `${name} is installed with ${file}, but it failed to load (see the attempts above).`
}

/** `x86_64-unknown-linux-gnu` → `linux-x64-gnu`: the napi-rs platform package suffix. */
function platformOfTarget(target) {
  const parts = target.split('-')
  const arch = { x86_64: 'x64', aarch64: 'arm64' }[parts[0]] ?? parts[0]
  if (parts[2] === 'linux') return `linux-${arch}-${parts[3]}`
  if (parts[2] === 'darwin') return `darwin-${arch}`
  if (parts[2] === 'windows') return `win32-${arch}-${parts[3]}`
  return target
}

module.exports = loadNative()
