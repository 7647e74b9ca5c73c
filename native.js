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
    throw nativeLoadError(err)
  }
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
  // Rust sources, so the build happens in a checkout that is then installed.
  const fix = require('node:fs').existsSync(require('node:path').join(__dirname, 'Cargo.toml'))
    ? 'To fix: build the addon from source with Rust (https://rustup.rs): run `npm run build` ' +
      `in ${__dirname}.`
    : 'To fix: on one of those platforms, reinstall with optional dependencies enabled ' +
      '(`npm install` without --omit=optional / --no-optional) so npm fetches ' +
      '`agent-tools-native-<platform>`; anywhere else, build from source with Rust ' +
      '(https://rustup.rs): in a checkout of the agent-tools-native sources run ' +
      '`npm ci && npm run build`, then install that checkout (`npm install <path-to-checkout>`).'
  const error = new Error(
    `agent-tools-native: cannot load the native addon on ${here} (Node ${process.version}).\n` +
      `Tried:\n${attempts.join('\n')}\n` +
      `Prebuilt packages exist for: ${prebuilt.join(', ') || '(unknown)'}.\n${fix}`,
  )
  error.code = 'ERR_AGENT_TOOLS_NATIVE_LOAD'
  error.cause = err
  return error
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
