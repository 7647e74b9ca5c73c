// Loads the addon once for every entry point (the package root and `/v0.1`).

/**
 * Loads the addon through napi-rs' generated loader (`binding.js`: the local `.node` build
 * first, then the platform package). If nothing loads, throws one error saying what was tried
 * and how to fix it; the loader's own error (its `cause` chain holds every attempt) stays as
 * `cause`.
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

function nativeLoadError(err) {
  // The loader's error is a summary whose `cause` chain runs from the last attempt back to the
  // first; list the attempts in the order they were made.
  const attempts = []
  for (let e = err?.cause ?? err; e && attempts.length < 50; e = e.cause) {
    attempts.unshift(`  - ${String(e?.message ?? e).split('\n')[0]}`)
  }
  let prebuilt = []
  try {
    prebuilt = require('./package.json').napi.targets.map(platformOfTarget)
  } catch {
    // The list only decorates the message.
  }
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
      `Prebuilt packages exist for: ${prebuilt.join(', ') || '(unknown)'}.\n${fix}`,
  )
  error.code = 'ERR_AGENT_TOOLS_NATIVE_LOAD'
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
  const { version } = require('./package.json')
  const platform = hostPlatform()
  const name = `agent-tools-native-${platform}`
  const source =
    'build from source with Rust (https://rustup.rs): in a checkout of the agent-tools-native ' +
    'sources run `npm ci && npm run build`, then `npm run pack:local` and install the two ' +
    'tarballs it prints together.'
  if (!prebuilt.includes(platform)) {
    return `no prebuilt package exists for ${platform}. To fix: ${source}`
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
    if (otherInstalled) {
      return (
        `libc mismatch: agent-tools-native-${other} is installed, but this Node runs on ` +
        `${hostLibc() === 'gnu' ? 'glibc' : 'musl'} and needs ${name}. To fix: ` +
        `\`npm install ${name}@${version}\` (a lockfile made on another system pins the other one).`
      )
    }
    return (
      `the platform package ${name} is not installed. To fix: \`npm install ${name}@${version}\` ` +
      '(npm skips it with --omit=optional, or when the lockfile was made on another platform). ' +
      'Before the package is published, install the two tarballs from `npm run pack:local` ' +
      `together; anywhere else, ${source}`
    )
  }
  const file = `agent-tools-native.${platform}.node`
  if (!require('node:fs').existsSync(require('node:path').join(dir, file))) {
    return (
      `${name} is installed at ${dir} but holds no ${file} (it was packed before the addon ` +
      'was built into it). To fix: reinstall it from a release, or pack it with ' +
      `\`npm run pack:local\` after \`npm run build\`; anywhere else, ${source}`
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
