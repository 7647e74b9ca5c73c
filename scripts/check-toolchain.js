// Runs before `npm run build`: checks that the tools the build needs are installed, and says
// which package installs the missing one. Rust's linker on Linux and macOS is the system C
// compiler, and the tree-sitter grammars are C, so without one the build fails before any of
// this crate's code (build.rs included) runs — with `linker \`cc\` not found` and no hint.
//
//   node scripts/check-toolchain.js   exits 1 with the fix when something is missing
const { spawnSync } = require('node:child_process')

/** Whether `command --version` runs. */
function runs(command) {
  const r = spawnSync(command, ['--version'], { stdio: 'ignore', shell: false })
  return r.status === 0
}

/** The fixes for what is missing on this platform, one line each; empty when all is there. */
function missing(platform = process.platform, has = runs, env = process.env) {
  const problems = []
  if (!has('cargo') || !has('rustc')) {
    problems.push(
      'Rust (cargo, rustc) is not installed or not on PATH: install it from https://rustup.rs',
    )
  }
  if (platform === 'win32') return problems // MSVC's cl.exe is found through vswhere by cc-rs.
  const cc = env.CC || 'cc'
  if (!has(cc)) {
    const fix =
      platform === 'darwin'
        ? 'install the Xcode Command Line Tools: xcode-select --install'
        : 'install one: Debian/Ubuntu `apt-get install build-essential`, Fedora `dnf install gcc`, Alpine `apk add build-base`'
    problems.push(
      `no C compiler (${env.CC ? `CC=${env.CC}` : '`cc`'} not found): Rust links with it and the tree-sitter grammars are C; ${fix}`,
    )
  }
  return problems
}

module.exports = { missing }

if (require.main === module) {
  const problems = missing()
  if (problems.length > 0) {
    console.error('agent-tools-native: the build needs tools that are missing:')
    for (const p of problems) console.error(`  - ${p}`)
    process.exit(1)
  }
}
