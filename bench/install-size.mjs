#!/usr/bin/env node
// What a library install weighs: packs the package (as `npm pack` does, bundling the MCP SDK)
// and this platform's package, installs both into a fresh project as a user does
// (`npm install <tarballs>`, dependencies from the npm registry), and counts the other packages
// it pulled in and the bytes of node_modules. Pass another checkout's path to weigh its package
// instead (the platform package, the same addon, still comes from this one), e.g. main before a
// change. Not a `.bench.mjs` suite: it needs the registry and times nothing.
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { npm, pack, packBoth, pkg, run } from '../scripts/pack-lib.mjs'

const target = process.argv[2]
const work = mkdtempSync(join(tmpdir(), 'atn-install-size-'))
try {
  const { main: ours, native, platform } = packBoth(work)
  const main = target ? pack(target, mkdtempSync(join(work, 'other-'))) : ours
  const app = join(work, 'app')
  run('mkdir', ['-p', app], work)
  writeFileSync(join(app, 'package.json'), '{"name": "size-app", "private": true}\n')
  run(
    npm,
    ['install', '--no-audit', '--no-fund', '--loglevel=error', main.tarball, native.tarball],
    app,
  )

  /** Every installed package directory (nested node_modules included) and its bytes. */
  const packages = new Map()
  const bytesOf = (dir) => {
    let total = 0
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) total += bytesOf(path)
      else if (entry.isFile()) total += statSync(path).size
    }
    return total
  }
  const walk = (modules) => {
    for (const entry of readdirSync(modules, { withFileTypes: true })) {
      if (!entry.isDirectory() || entry.name.startsWith('.')) continue
      const dirs = entry.name.startsWith('@')
        ? readdirSync(join(modules, entry.name)).map((n) => join(modules, entry.name, n))
        : [join(modules, entry.name)]
      for (const dir of dirs) {
        const name = dir.slice(dir.lastIndexOf('node_modules/') + 'node_modules/'.length)
        packages.set(dir, { name, bytes: bytesOf(dir) })
        try {
          walk(join(dir, 'node_modules'))
        } catch {
          // no nested node_modules
        }
      }
    }
  }
  walk(join(app, 'node_modules'))
  const ourNames = new Set([pkg.name, `${pkg.name}-${platform}`])
  const all = [...packages.values()]
  const others = all.filter((p) => !ourNames.has(p.name))
  const mib = (n) => `${(n / 1024 / 1024).toFixed(1)} MiB`
  const sum = (ps) => ps.reduce((t, p) => t + p.bytes, 0)
  console.log(`package: ${target ?? 'this checkout'}`)
  console.log(`other packages pulled in: ${others.length}`)
  console.log(`node_modules: ${mib(sum(all))} in all`)
  for (const p of all.filter((p) => ourNames.has(p.name)))
    console.log(`  ${p.name}: ${mib(p.bytes)}`)
  console.log(`  the other packages: ${mib(sum(others))}`)
} finally {
  rmSync(work, { recursive: true, force: true })
}
