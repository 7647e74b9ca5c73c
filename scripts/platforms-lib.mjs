// What `npm run build:platform` and `npm run smoke:platform` share: the targets this package is
// published for, how each one is built on a Linux x64 host, and the installation of their
// prerequisites (rustup targets, Debian packages, zig and cargo-zigbuild from PyPI).
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import { delimiter, dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const repo = join(dirname(fileURLToPath(import.meta.url)), '..')
export const pkg = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8'))
/** Tools the scripts install for themselves (a Python venv, the arm64 sysroot): gitignored. */
export const toolsDir = join(repo, 'target', 'platform-tools')

/** The PyPI versions the zig builds were made and checked with. */
const ZIG_PIP = ['ziglang==0.17.1', 'cargo-zigbuild==0.24.1']

/**
 * C flags for the targets whose linker exports every global symbol of the C code: zig's Mach-O
 * linker ignores the export list rustc passes (so every C function of the tree-sitter runtime
 * and grammars was exported), and MinGW exports what the grammars mark `__declspec(dllexport)`.
 * `TREE_SITTER_HIDE_SYMBOLS` (honoured by the runtime and every grammar's parser.c) drops those
 * marks and `-fvisibility=hidden` hides the rest, so the addon exports N-API's registration
 * symbol alone, as on Linux, where rustc's version script does it. Hidden functions nothing
 * calls are dead-stripped too.
 */
const HIDE_C_SYMBOLS = '-fvisibility=hidden -DTREE_SITTER_HIDE_SYMBOLS'

/**
 * Every published target. `via`: how a Linux x64 host builds it.
 * - `host`: plain cargo;
 * - `gcc`: a Debian cross gcc (`apt`) as C compiler and linker;
 * - `zig`: cargo-zigbuild with zig as C compiler and linker (musl, and macOS: zig ships the
 *   macOS libSystem stubs, so no SDK is needed);
 * - `mingw`: MinGW-w64's gcc (the MSVC CRT and Windows SDK are not in any package registry).
 */
export const TARGETS = {
  'x86_64-unknown-linux-gnu': { platform: 'linux-x64-gnu', via: 'host' },
  'aarch64-unknown-linux-gnu': {
    platform: 'linux-arm64-gnu',
    via: 'gcc',
    apt: ['gcc-aarch64-linux-gnu'],
    env: {
      CC_aarch64_unknown_linux_gnu: 'aarch64-linux-gnu-gcc',
      AR_aarch64_unknown_linux_gnu: 'aarch64-linux-gnu-ar',
      CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER: 'aarch64-linux-gnu-gcc',
    },
  },
  'x86_64-unknown-linux-musl': { platform: 'linux-x64-musl', via: 'zig' },
  'aarch64-unknown-linux-musl': { platform: 'linux-arm64-musl', via: 'zig' },
  'x86_64-apple-darwin': {
    platform: 'darwin-x64',
    via: 'zig',
    env: { CFLAGS_x86_64_apple_darwin: HIDE_C_SYMBOLS },
  },
  'aarch64-apple-darwin': {
    platform: 'darwin-arm64',
    via: 'zig',
    env: { CFLAGS_aarch64_apple_darwin: HIDE_C_SYMBOLS },
  },
  'x86_64-pc-windows-gnu': {
    platform: 'win32-x64-gnu',
    via: 'mingw',
    apt: ['gcc-mingw-w64-x86-64'],
    env: {
      CC_x86_64_pc_windows_gnu: 'x86_64-w64-mingw32-gcc',
      AR_x86_64_pc_windows_gnu: 'x86_64-w64-mingw32-ar',
      CARGO_TARGET_X86_64_PC_WINDOWS_GNU_LINKER: 'x86_64-w64-mingw32-gcc',
      CFLAGS_x86_64_pc_windows_gnu: HIDE_C_SYMBOLS,
    },
  },
}

/** Prints what the script is doing, prefixed so it stands out of cargo's output. */
export function say(msg) {
  console.log(`[platform] ${msg}`)
}

/** Runs a command with inherited output; a failure exits the script with its status. */
export function sh(cmd, args, options = {}) {
  const r = spawnSync(cmd, args, { stdio: 'inherit', ...options })
  if (r.error) throw new Error(`\`${cmd}\` could not start: ${r.error.message}`)
  if (r.status !== 0) {
    throw new Error(`\`${cmd} ${args.join(' ')}\` exited ${r.status ?? r.signal}`)
  }
}

/** Runs a command and returns its stdout ('' when it cannot start or fails). */
export function out(cmd, args, options = {}) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', ...options })
  return r.status === 0 ? r.stdout : ''
}

/** The target named on the command line, or an error that lists the known ones. */
export function targetArg(argv) {
  const target = argv.find((a) => !a.startsWith('-'))
  if (target === 'x86_64-pc-windows-msvc') {
    throw new Error(
      'x86_64-pc-windows-msvc cannot be built here: its C runtime and the Windows SDK come only ' +
        "from Microsoft's download servers, not from any package registry. The Windows package " +
        'is the MinGW build: run `npm run build:platform -- x86_64-pc-windows-gnu`.',
    )
  }
  if (!target || !TARGETS[target]) {
    throw new Error(
      `usage: npm run build:platform -- <rust-target>, one of:\n  ${Object.keys(TARGETS).join('\n  ')}`,
    )
  }
  return target
}

/** The built file for `target`, where a publish puts it: `npm/<platform>/<name>.<platform>.node`. */
export function platformFile(target) {
  const { platform } = TARGETS[target]
  return join(repo, 'npm', platform, `${pkg.napi.binaryName}.${platform}.node`)
}

/** `args` run as root: through sudo unless this already is root. */
export const asRoot = (args) =>
  process.getuid?.() === 0 ? args : ['sudo', '--non-interactive', '--preserve-env=PATH', ...args]

/** `sh` as root. */
export function shRoot(args, options) {
  const [cmd, ...rest] = asRoot(args)
  sh(cmd, rest, options)
}

/** Installs the Debian packages that are not installed yet (apt-get update first). */
export function ensureApt(packages) {
  const missing = packages.filter(
    (p) => !out('dpkg-query', ['-W', `-f=\${Status}`, p]).includes('install ok installed'),
  )
  if (missing.length === 0) return
  say(`installing Debian packages: ${missing.join(' ')}`)
  shRoot(['apt-get', 'update', '-qq'])
  shRoot(['apt-get', 'install', '-y', '-qq', '--no-install-recommends', ...missing], {
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  })
}

/** `rustup target add`, when the standard library for `target` is not installed. */
export function ensureRustTarget(target) {
  if (out('rustup', ['target', 'list', '--installed']).split('\n').includes(target)) return
  say(`installing the Rust standard library for ${target} (rustup target add)`)
  sh('rustup', ['target', 'add', target])
}

/** The directory of rustup's llvm-tools (llvm-readobj, llvm-nm), installed if missing. */
export function llvmTools() {
  const sysroot = out('rustc', ['--print', 'sysroot']).trim()
  const host = out('rustc', ['-vV']).match(/^host: (.+)$/m)?.[1]
  const dir = join(sysroot, 'lib', 'rustlib', host, 'bin')
  if (!existsSync(join(dir, 'llvm-readobj'))) {
    say('installing llvm-readobj and llvm-nm (rustup component add llvm-tools)')
    sh('rustup', ['component', 'add', 'llvm-tools'])
  }
  return dir
}

/**
 * zig and cargo-zigbuild from PyPI, in a venv of their own (so no system Python is touched);
 * returns the PATH that finds them (cargo-zigbuild runs zig as `python3 -m ziglang`).
 */
export function ensureZig() {
  const venv = join(toolsDir, 'venv')
  const bin = join(venv, 'bin')
  const ready =
    existsSync(join(bin, 'cargo-zigbuild')) &&
    spawnSync(join(bin, 'python3'), ['-c', 'import ziglang']).status === 0
  if (!ready) {
    say(`installing ${ZIG_PIP.join(' and ')} from PyPI into ${venv}`)
    mkdirSync(toolsDir, { recursive: true })
    if (!existsSync(join(bin, 'python3'))) sh('python3', ['-m', 'venv', venv])
    sh(join(bin, 'python3'), ['-m', 'pip', 'install', '--quiet', ...ZIG_PIP])
  }
  return `${bin}${delimiter}${process.env.PATH}`
}
