// `npm run smoke:platform -- <rust-target> [--no-qemu]`: checks the file `npm run build:platform` put in
// npm/<platform>/, as far as a Linux x64 machine can. Exits non-zero on the first failed check.
// - Every target: object format and architecture, the exported N-API registration symbol (and
//   no other export), the libraries it links against, under 40 MB; and the loader's error on this machine with
//   that platform package installed (the real file in it) instead of this machine's own.
// - linux-x64-gnu: host Node loads the package through its real loader and calls tools.
// - linux-arm64-gnu: the same under qemu-aarch64 with Debian's arm64 Node, plus the loader's
//   errors there with its package missing, empty, or only the musl one installed.
import { spawnSync } from 'node:child_process'
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import {
  ensureApt,
  llvmTools,
  out,
  pkg,
  platformFile,
  repo,
  say,
  sh,
  shRoot,
  TARGETS,
  targetArg,
  toolsDir,
} from './platforms-lib.mjs'

const MAX_BYTES = 40e6
const REGISTER = 'napi_register_module_v1'

/** Windows DLLs every Windows has; anything else would have to ship with the package. */
const WINDOWS_SYSTEM_DLLS = new Set([
  'kernel32.dll',
  'ntdll.dll',
  'advapi32.dll',
  'bcrypt.dll',
  'bcryptprimitives.dll',
  'msvcrt.dll',
  'ucrtbase.dll',
  'ws2_32.dll',
  'userenv.dll',
  'shell32.dll',
  'ole32.dll',
  'oleaut32.dll',
  'user32.dll',
  'secur32.dll',
  'crypt32.dll',
  'synchronization.dll',
])

let failures = 0
function check(ok, what, detail = '') {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}${detail ? `: ${detail}` : ''}`)
  if (!ok) failures++
  return ok
}

/**
 * Nothing but N-API's registration symbol is exported (`names` without the platform's leading
 * underscore): another addon's or Node's own symbols of the same name (tree-sitter's, Rust's)
 * are never bound to ours, and the linker can drop what nothing calls.
 */
function checkExportsOnly(names, allowed = [], what = 'exports nothing else') {
  const others = names.filter((name) => name !== REGISTER && !allowed.some((a) => a.test(name)))
  check(
    others.length === 0,
    what,
    others.length ? `also ${others.length}: ${others.slice(0, 5).join(', ')}` : '',
  )
}

/**
 * What a zig-linked dylib exports beyond the registration symbol, and why it may: the header
 * symbols the linker itself defines, and two symbols of Rust's standard library that rustc keeps
 * global (Apple's linker would hide them through the export list rustc passes, which zig's
 * ignores; LTO made every other Rust symbol internal, and the C code is compiled hidden).
 */
const MACHO_EXTRA_EXPORTS = [
  /^_mh_dylib_header$/,
  /^__dso_handle$/,
  /^rust_eh_personality$/,
  /^_RNv\w*EMPTY_PANIC$/,
]

/** The binary checks: format, architecture, exports, linked libraries, size. */
function checkBinary(target, file) {
  const tools = llvmTools()
  const readobj = (...args) => out(join(tools, 'llvm-readobj'), [...args, file])
  const nm = (...args) => out(join(tools, 'llvm-nm'), [...args, file])
  const size = statSync(file).size
  check(size < MAX_BYTES, 'under 40 MB', `${(size / 1e6).toFixed(1)} MB`)
  const headers = readobj('--file-headers')
  const format = headers.match(/^Format: (.+)$/m)?.[1] ?? '(unreadable)'
  const arch = target.split('-')[0]
  if (target.includes('-linux-')) {
    const machine = { x86_64: 'EM_X86_64', aarch64: 'EM_AARCH64' }[arch]
    check(
      format === `elf64-${arch === 'x86_64' ? 'x86-64' : 'littleaarch64'}`,
      'ELF 64-bit',
      format,
    )
    check(headers.includes(machine), `machine ${machine}`, headers.match(/Machine: (\S+)/)?.[1])
    check(/Type: SharedObject/.test(headers), 'a shared object')
    const exported = nm('-D', '--defined-only')
    check(new RegExp(` T ${REGISTER}$`, 'm').test(exported), `exports ${REGISTER}`)
    checkExportsOnly([...exported.matchAll(/^\S+ \S (\S+)$/gm)].map((m) => m[1]))
    const needed = [...readobj('--needed-libs').matchAll(/^\s+(\S+\.so[.\d]*)$/gm)].map((m) => m[1])
    const versions = [...new Set(nm('-D', '--undefined-only').match(/GLIBC_[\d.]+/g) ?? [])]
    if (target.endsWith('-musl')) {
      const musl = (lib) => lib === 'libc.so' || /^libc\.musl-[\w]+\.so\.1$/.test(lib)
      check(
        needed.length > 0 && needed.every(musl),
        "links against musl's libc only",
        needed.join(', '),
      )
      check(versions.length === 0, 'no glibc symbol versions', versions.join(', ') || 'none')
    } else {
      const glibc = /^(libc|libm|libdl|libpthread|librt|libgcc_s|ld-linux-[\w-]+)\.so\.[\d]+$/
      check(
        needed.every((lib) => glibc.test(lib)),
        'links against glibc (and libgcc_s) only',
        needed.join(', '),
      )
      const newest = versions
        .map((v) => v.slice(6).split('.').map(Number))
        .sort((a, b) => a[0] - b[0] || (a[1] ?? 0) - (b[1] ?? 0))
        .at(-1)
      say(`needs glibc ${newest ? newest.join('.') : '(none)'} or newer`)
    }
  } else if (target.includes('-apple-')) {
    const cpu = { x86_64: 'X86-64', aarch64: 'Arm64' }[arch]
    check(/Magic: Magic64 /.test(headers), 'Mach-O 64-bit', format)
    check(
      new RegExp(`CpuType: ${cpu} `).test(headers),
      `cpu ${cpu}`,
      headers.match(/CpuType: (\S+)/)?.[1],
    )
    check(/FileType: DynamicLibrary /.test(headers), 'a dylib (MH_DYLIB)')
    check(
      new RegExp(` T _${REGISTER}$`, 'm').test(nm('--extern-only', '--defined-only')),
      `exports _${REGISTER}`,
    )
    // The export trie: what dyld binds against.
    const trie = out(join(tools, 'llvm-objdump'), ['--macho', '--exports-trie', file])
    checkExportsOnly(
      [...trie.matchAll(/^0x[0-9A-F]+\s+_(\S+)/gm)].map((m) => m[1]),
      MACHO_EXTRA_EXPORTS,
      "exports nothing else (but the linker's header symbols and Rust's rust_eh_personality and EMPTY_PANIC)",
    )
    // napi-build links with `-undefined dynamic_lookup`: node's N-API comes from the process.
    check(
      /^\s*(U )?_napi_create_object$/m.test(nm('--undefined-only')),
      'N-API left to the process (dynamic_lookup)',
    )
    // --needed-libs lists the dylib's own install name too (LC_ID_DYLIB).
    const id = out(join(tools, 'llvm-objdump'), ['--macho', '--dylib-id', file]).split('\n')[1]
    const dylibs = [...readobj('--needed-libs').matchAll(/^\s+(\/\S+)$/gm)]
      .map((m) => m[1])
      .filter((d) => d !== id)
    check(
      dylibs.length > 0 &&
        dylibs.every((d) => d.startsWith('/usr/lib/') || d.startsWith('/System/')),
      'links against macOS system libraries only',
      dylibs.join(', '),
    )
  } else if (target.includes('-windows-')) {
    check(format === 'COFF-x86-64', 'PE32+ x86-64', format)
    check(headers.includes('IMAGE_FILE_MACHINE_AMD64'), 'machine IMAGE_FILE_MACHINE_AMD64')
    check(/IMAGE_FILE_DLL/.test(headers), 'a DLL')
    const exports = readobj('--coff-exports')
    check(new RegExp(`Name: ${REGISTER}$`, 'm').test(exports), `exports ${REGISTER}`)
    checkExportsOnly([...exports.matchAll(/^\s*Name: (\S+)$/gm)].map((m) => m[1]))
    const imports = [...readobj('--coff-imports').matchAll(/^\s+Name: (\S+\.dll)$/gim)].map(
      (m) => m[1],
    )
    const foreign = imports.filter(
      (d) => !WINDOWS_SYSTEM_DLLS.has(d.toLowerCase()) && !/^api-ms-win-/i.test(d),
    )
    check(
      imports.length > 0 && foreign.length === 0,
      'imports system DLLs only',
      foreign.length ? `also ${foreign.join(', ')}` : imports.join(', '),
    )
    // N-API comes from node.exe at load time (napi's dyn-symbols), so nothing names node.exe
    // or a libnode.dll in the import table; the loader must find the symbols by name.
    const strings = out('strings', ['-n', '8', file])
    check(/^napi_create_object$/m.test(strings), 'N-API looked up by name in the host process')
  }
}

/** The files of the main package, copied into `dir` as npm would install them. */
function installMain(dir) {
  // Files made only while packing (a bundle) are absent here; loading needs none of them.
  // An entry may be a directory (docs/tools/).
  for (const f of pkg.files.filter((f) => existsSync(join(repo, f)))) {
    cpSync(join(repo, f), join(dir, f), { recursive: true })
  }
  copyFileSync(join(repo, 'package.json'), join(dir, 'package.json'))
}

/** A platform package as npm would install it; `withNode: false` leaves its .node out. */
function installPlatform(nodeModules, target, withNode = true) {
  const { platform } = TARGETS[target]
  const dir = join(nodeModules, `${pkg.name}-${platform}`)
  mkdirSync(dir, { recursive: true })
  copyFileSync(join(repo, 'npm', platform, 'package.json'), join(dir, 'package.json'))
  if (withNode)
    copyFileSync(platformFile(target), join(dir, `${pkg.napi.binaryName}.${platform}.node`))
}

/**
 * A project with the main package and the given platform packages in node_modules, and a
 * probe that loads `agent-tools-native` and either reports the loader's error or makes a
 * read_file, a grep and a bash call. Returns the project directory.
 */
function project(platforms) {
  const dir = mkdtempSync(join(tmpdir(), 'atn-smoke-'))
  const nodeModules = join(dir, 'node_modules')
  installMain(join(nodeModules, pkg.name))
  for (const [target, withNode] of platforms) installPlatform(nodeModules, target, withNode)
  mkdirSync(join(dir, 'ws'))
  writeFileSync(join(dir, 'ws', 'hello.txt'), 'first line\nneedle here\nlast line\n')
  writeFileSync(
    join(dir, 'probe.js'),
    `const path = require('node:path')
let api
try {
  api = require('${pkg.name}')
} catch (e) {
  console.log(JSON.stringify({ loaded: false, code: e.code, message: e.message }))
  process.exit(0)
}
const agent = api.createAgentTools({ workspaceRoot: path.join(__dirname, 'ws') })
const text = (r) => ({ isError: r.isError, text: api.contentText(r.content) })
;(async () => {
  const read = text(await agent.callTool('read_file', { path: 'hello.txt' }))
  const grep = text(await agent.callTool('grep', { pattern: 'needle', output_mode: 'content' }))
  const bash = text(await agent.callTool('bash', { command: 'echo from-bash; uname -m' }))
  console.log(JSON.stringify({ loaded: true, arch: process.arch, read, grep, bash }))
})()
`,
  )
  return dir
}

/** Runs the probe with `node` (a command line); returns its JSON report. */
function probe(dir, node) {
  const env = { ...process.env }
  delete env.NAPI_RS_NATIVE_LIBRARY_PATH
  const r = spawnSync(node[0], [...node.slice(1), join(dir, 'probe.js')], {
    cwd: dir,
    env,
    encoding: 'utf8',
    timeout: 300_000,
  })
  try {
    return JSON.parse(r.stdout.trim().split('\n').at(-1))
  } catch {
    return { loaded: false, message: `the probe failed (${r.status ?? r.signal}): ${r.stderr}` }
  }
}

/** The three calls came back right. */
function checkCalls(report, arch) {
  if (!check(report.loaded, 'loads through the package loader', report.message)) return
  check(report.arch === arch, `process.arch is ${arch}`, report.arch)
  check(
    !report.read.isError && /2\tneedle here/.test(report.read.text),
    'read_file',
    report.read.text.split('\n')[1],
  )
  check(
    !report.grep.isError && /needle here/.test(report.grep.text),
    'grep',
    report.grep.text.trim(),
  )
  check(
    !report.bash.isError && /from-bash/.test(report.bash.text),
    'bash',
    report.bash.text.trim().replace(/\n/g, ' | '),
  )
}

/** The last line of the loader's error: the `Cause:` it diagnosed. */
function cause(report) {
  return report.loaded ? '(it loaded)' : String(report.message).split('\n').at(-1)
}

/** On this machine (linux-x64-gnu), with only `target`'s package installed. */
function checkLoaderHere(target) {
  const { platform } = TARGETS[target]
  const dir = project([[target, true]])
  try {
    const report = probe(dir, [process.execPath])
    if (platform === 'linux-x64-gnu') return checkCalls(report, 'x64')
    const want =
      platform === 'linux-x64-musl'
        ? `Cause: libc mismatch: ${pkg.name}-linux-x64-musl is installed, but this Node runs on glibc and needs ${pkg.name}-linux-x64-gnu.`
        : `Cause: the platform package ${pkg.name}-linux-x64-gnu is not installed.`
    check(
      !report.loaded &&
        report.code === 'ERR_AGENT_TOOLS_NATIVE_LOAD' &&
        cause(report).startsWith(want),
      `with only ${pkg.name}-${platform} installed, the loader on linux-x64-gnu says`,
      cause(report),
    )
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** The platform/arch/libc a target's Node reports, for the loader run as that platform. */
function nodePlatformOf(target) {
  const [arch, , os, env] = target.split('-')
  return {
    platform: { linux: 'linux', darwin: 'darwin', windows: 'win32' }[os],
    arch: { x86_64: 'x64', aarch64: 'arm64' }[arch],
    libc: env === 'musl' ? 'musl' : 'glibc',
  }
}

/**
 * Makes this Node report another platform (process.platform/arch, and the C library the loaders
 * detect through /usr/bin/ldd and process.report), before the package loads. Its loader then
 * takes the paths it takes there; loading a foreign binary fails as it would on a broken
 * install there.
 */
const FAKE_PLATFORM = `const fake = JSON.parse(process.env.ATN_FAKE_PLATFORM)
Object.defineProperty(process, 'platform', { value: fake.platform })
Object.defineProperty(process, 'arch', { value: fake.arch })
const fs = require('node:fs')
const readFileSync = fs.readFileSync
fs.readFileSync = function (file, ...rest) {
  if (file === '/usr/bin/ldd') return fake.libc === 'musl' ? 'musl libc' : 'GNU C Library'
  return readFileSync.call(this, file, ...rest)
}
const getReport = process.report.getReport.bind(process.report)
process.report.getReport = (...args) => {
  const report = getReport(...args)
  if (fake.libc === 'musl') delete report.header.glibcVersionRuntime
  return report
}
`

/**
 * The loader as it runs on `target`'s platform: with its package missing, the error names it
 * and says to install it; with the package and its real file in place (which cannot load on
 * this machine), the error says it is installed and failed to load, and lists that attempt.
 */
function checkLoaderAs(target) {
  const { platform } = TARGETS[target]
  const fake = nodePlatformOf(target)
  const name = `${pkg.name}-${platform}`
  const file = `${pkg.napi.binaryName}.${platform}.node`
  const as = (platforms) => {
    const dir = project(platforms)
    try {
      writeFileSync(join(dir, 'fake-platform.js'), FAKE_PLATFORM)
      process.env.ATN_FAKE_PLATFORM = JSON.stringify(fake)
      return probe(dir, [process.execPath, '--require', join(dir, 'fake-platform.js')])
    } finally {
      delete process.env.ATN_FAKE_PLATFORM
      rmSync(dir, { recursive: true, force: true })
    }
  }
  const missing = as([])
  check(
    cause(missing).startsWith(`Cause: the platform package ${name} is not installed.`) &&
      missing.message.startsWith(
        `agent-tools-native: cannot load the native addon on ${fake.platform}-${fake.arch} `,
      ),
    `as ${platform}, no platform package: the loader says`,
    cause(missing),
  )
  const present = as([[target, true]])
  const attempts = (report) =>
    String(report.message)
      .split('\n')
      .filter((l) => l.startsWith('  - '))
  // The platform package's attempt is there (its message is the dlopen error, which need not
  // name the file: a musl build on glibc fails on its `libc.so`).
  check(
    cause(present) ===
      `Cause: ${name} is installed with ${file}, but it failed to load (see the attempts above).` &&
      attempts(present).length === attempts(missing).length,
    `as ${platform}, ${name} with its real file (not loadable on this machine): the loader says`,
    `${cause(present)} / the attempt: ${attempts(present)
      .at(platform.startsWith('win32') ? -1 : 1)
      ?.trim()}`,
  )
}

/**
 * Debian's arm64 node and the libraries it needs, unpacked into a sysroot for qemu-aarch64
 * (not installed: nodejs:arm64 would replace the host's node). Returns the sysroot.
 */
function arm64Sysroot() {
  const sysroot = join(toolsDir, 'arm64-sysroot')
  if (existsSync(join(sysroot, 'usr', 'bin', 'node'))) return sysroot
  ensureApt(['qemu-user'])
  if (!out('dpkg', ['--print-foreign-architectures']).split('\n').includes('arm64')) {
    say('adding arm64 to dpkg architectures (dpkg --add-architecture arm64; apt-get update)')
    shRoot(['dpkg', '--add-architecture', 'arm64'])
    shRoot(['apt-get', 'update', '-qq'])
  }
  // nodejs:arm64 and its arm64 shared libraries; dpkg's own tools are not needed to run it.
  const deps = out('apt-cache', [
    'depends',
    '--recurse',
    '--no-recommends',
    '--no-suggests',
    '--no-conflicts',
    '--no-breaks',
    '--no-replaces',
    '--no-enhances',
    '--no-pre-depends',
    'nodejs:arm64',
  ])
  const skip = new Set(['dpkg', 'install-info', 'tar', 'openssl'])
  const names = [...new Set(deps.match(/^[\w.+-]+:arm64$/gm) ?? [])].filter(
    (n) => !skip.has(n.slice(0, -6)),
  )
  // Debian's node loads some builtins from arch-independent packages (/usr/share/nodejs).
  for (const m of deps.matchAll(/^\s+Depends: <(node-[\w.+-]+):arm64>$/gm)) names.push(m[1])
  const debs = join(toolsDir, 'arm64-debs')
  rmSync(debs, { recursive: true, force: true })
  mkdirSync(debs, { recursive: true })
  say(`downloading ${names.join(' ')} (apt-get download) and unpacking them into ${sysroot}`)
  sh('apt-get', ['download', '-qq', '-o', 'APT::Sandbox::User=root', ...names], { cwd: debs })
  for (const deb of readdirSync(debs)) sh('dpkg', ['-x', join(debs, deb), sysroot])
  return sysroot
}

/** linux-arm64-gnu under qemu: the real loader, three tool calls, and the loader's errors. */
function checkArm64(target) {
  const sysroot = arm64Sysroot()
  const node = ['qemu-aarch64', '-L', sysroot, join(sysroot, 'usr', 'bin', 'node')]
  const version = out(node[0], [...node.slice(1), '--version']).trim()
  say(`running ${version} (Debian's arm64 node) under qemu-aarch64`)
  const run = (platforms) => {
    const dir = project(platforms)
    try {
      return probe(dir, node)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }
  checkCalls(run([[target, true]]), 'arm64')
  const name = `${pkg.name}-linux-arm64-gnu`
  const missing = cause(run([]))
  check(
    missing.startsWith(`Cause: the platform package ${name} is not installed.`),
    `arm64, no platform package: the loader says`,
    missing,
  )
  const empty = cause(run([[target, false]]))
  check(
    new RegExp(
      `^Cause: ${name} is installed at .* but holds no ${pkg.napi.binaryName}\\.linux-arm64-gnu\\.node`,
    ).test(empty),
    `arm64, ${name} without its .node: the loader says`,
    empty,
  )
  if (existsSync(platformFile('aarch64-unknown-linux-musl'))) {
    const musl = cause(run([['aarch64-unknown-linux-musl', true]]))
    check(
      musl.startsWith(
        `Cause: libc mismatch: ${pkg.name}-linux-arm64-musl is installed, but this Node runs on glibc and needs ${name}.`,
      ),
      'arm64, only the musl package (real file): the loader says',
      musl,
    )
  } else {
    say('no npm/linux-arm64-musl build: the libc-mismatch check under qemu is skipped')
  }
}

function main() {
  const target = targetArg(process.argv.slice(2))
  const file = platformFile(target)
  if (!existsSync(file)) {
    throw new Error(
      `${relative(repo, file)} does not exist: run \`npm run build:platform -- ${target}\` first`,
    )
  }
  say(`checking ${relative(repo, file)} (${target})`)
  checkBinary(target, file)
  checkLoaderHere(target)
  if (target !== 'x86_64-unknown-linux-gnu') checkLoaderAs(target)
  if (target === 'aarch64-unknown-linux-gnu') {
    if (process.argv.includes('--no-qemu')) say('--no-qemu: the run under qemu-aarch64 is skipped')
    else checkArm64(target)
  }
  if (failures > 0) throw new Error(`${failures} check(s) failed for ${target}`)
  say(`all checks passed for ${target}`)
}

try {
  main()
} catch (err) {
  console.error(`[platform] ${err.message}`)
  process.exit(1)
}
