#!/usr/bin/env node
// Bundles the MCP SDK (and everything it pulls in: its HTTP adapter, ajv, zod) into one file,
// `mcp-sdk.bundle.js`, at pack time (`prepack`), so the published package has no runtime
// dependencies: a library install stays small, and `agent-tools-native mcp` still works with no
// extra step. `postpack` removes it again; a checkout uses the SDK from node_modules (mcp-sdk.js).
// The licence texts of the bundled packages are appended to the file, as their licences require.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'

const repo = join(dirname(fileURLToPath(import.meta.url)), '..')
const out = join(repo, 'mcp-sdk.bundle.js')

if (process.argv[2] === '--clean') {
  rmSync(out, { force: true })
  process.exit(0)
}

const result = await build({
  entryPoints: [join(repo, 'mcp-sdk.js')],
  outfile: out,
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  minify: true,
  legalComments: 'none',
  metafile: true,
  logLevel: 'warning',
})

// One notice per bundled package: name, version, licence, and the licence file's text.
const packages = new Map()
for (const input of Object.keys(result.metafile.inputs)) {
  const m = input.match(/^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//)
  if (m && !packages.has(m[1])) packages.set(m[1], join(repo, m[1]))
}
const notices = [...packages.values()].sort().map((dir) => {
  const meta = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'))
  const file = ['LICENSE', 'LICENSE.md', 'LICENSE.txt', 'license', 'LICENCE']
    .map((f) => join(dir, f))
    .find((f) => existsSync(f))
  const text = file ? readFileSync(file, 'utf8').trim() : `Licence: ${meta.license}`
  return `${meta.name}@${meta.version} (${meta.license})\n\n${text}`
})
const body = readFileSync(out, 'utf8')
const legal = notices
  .join('\n\n----------------------------------------\n\n')
  .replaceAll('*/', '* /')
writeFileSync(
  out,
  `// The MCP SDK and its dependencies, bundled by scripts/bundle-mcp-sdk.mjs from mcp-sdk.js.\n${body}\n/*\nBundled packages and their licences:\n\n${legal}\n*/\n`,
)
console.error(
  `bundle-mcp-sdk: mcp-sdk.bundle.js, ${packages.size} packages, ${(Buffer.byteLength(readFileSync(out)) / 1024).toFixed(0)} KiB`,
)
