// Packing the package the way it is published: the main tarball, and this machine's platform
// package with the built addon in it (what `napi artifacts` does in the release workflow).
// Used by `npm run pack:local` and by the pack test.
import { spawnSync } from 'node:child_process'
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const repo = join(dirname(fileURLToPath(import.meta.url)), '..')
export const pkg = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8'))
export const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'

/** Runs a command; a non-zero exit throws with its output. Returns stdout. */
export function run(cmd, args, cwd, options = {}) {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', ...options })
  if (r.status !== 0) {
    throw new Error(
      `\`${cmd} ${args.join(' ')}\` in ${cwd} exited ${r.status ?? r.signal}\n${r.stdout}\n${r.stderr}`,
    )
  }
  return r.stdout
}

/** `npm pack` of `dir` into `dest`; returns the tarball path and its file list. */
export function pack(dir, dest) {
  const [info] = JSON.parse(run(npm, ['pack', '--json', '--pack-destination', dest], dir))
  return { tarball: join(dest, info.filename), files: info.files.map((f) => f.path).sort() }
}

/** The built addon in the package directory and the platform it was built for. */
export function builtAddon() {
  const addon = readdirSync(repo).find(
    (f) => f.startsWith(`${pkg.napi.binaryName}.`) && f.endsWith('.node'),
  )
  if (!addon) throw new Error('no built addon in the package directory: run `npm run build` first')
  const platform = addon.slice(pkg.napi.binaryName.length + 1, -'.node'.length)
  const platformDir = join(repo, 'npm', platform)
  if (!existsSync(platformDir)) throw new Error(`npm/${platform} does not exist for ${addon}`)
  return { addon, platform, platformDir }
}

/** Packs the main package and this platform's package (with the addon) into `dest`. */
export function packBoth(dest) {
  const { addon, platform, platformDir } = builtAddon()
  const main = pack(repo, dest)
  const staged = mkdtempSync(join(tmpdir(), 'atn-platform-'))
  try {
    cpSync(platformDir, staged, { recursive: true })
    copyFileSync(join(repo, addon), join(staged, addon))
    const native = pack(staged, dest)
    return { main, native, addon, platform }
  } finally {
    rmSync(staged, { recursive: true, force: true })
  }
}
