#!/usr/bin/env node
// `npm pack` for real: packs the package and this machine's platform package as they would be
// published, installs both tarballs into a fresh temporary project (every other dependency
// comes from the npm registry), and uses the package from ESM, from CommonJS, from a TypeScript
// file that must pass `tsc --noEmit --strict`, and through its bin (CLI and MCP server). Also
// checks that `napi prepublish` wires all seven platform packages into optionalDependencies, that
// the install pulls in at most 5 other packages (the MCP SDK is bundled into the package at pack
// time), and that the MCP server works from the tarball over stdio and over HTTP.
// Needs a built addon (`npm run build`). Any failure exits non-zero with what went wrong.
import assert from 'node:assert/strict'
import { spawn, spawnSync } from 'node:child_process'
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { npm, packBoth, pkg, repo, run } from './pack-lib.mjs'

const started = Date.now()

function step(what) {
  console.log(`pack-test: ${what} (${((Date.now() - started) / 1000).toFixed(1)}s)`)
}

/**
 * Starts `bin mcp --http --port 0`, initializes a session and lists the tools over plain HTTP
 * (the replies arrive as server-sent events), then stops it with SIGTERM: exit 0.
 */
async function mcpOverHttp(bin, workspace, cwd) {
  const token = 'pack-test-token'
  const child = spawn(bin, ['mcp', '--http', '--port', '0', '--workspace', workspace], {
    cwd,
    env: { ...process.env, MCP_HTTP_TOKEN: token },
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  const exited = new Promise((resolve) => child.on('close', resolve))
  try {
    let stderr = ''
    const url = await new Promise((resolve, reject) => {
      child.stderr.setEncoding('utf8').on('data', (d) => {
        stderr += d
        const m = /listening on (http:\/\/\S+\/mcp)/.exec(stderr)
        if (m) resolve(m[1])
      })
      exited.then((code) => reject(new Error(`mcp --http exited ${code}: ${stderr}`)))
    })
    const headers = {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    }
    /** POSTs one JSON-RPC request; returns the response and the JSON-RPC reply in its events. */
    const post = async (message, extra = {}) => {
      const res = await fetch(url, {
        method: 'POST',
        headers: { ...headers, ...extra },
        body: JSON.stringify(message),
      })
      const text = await res.text()
      assert.equal(res.status, 200, text)
      const data = text.split('\n').find((line) => line.startsWith('data: '))
      return { res, reply: JSON.parse(data.slice('data: '.length)) }
    }
    const init = await post({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'p', version: '1' },
      },
    })
    assert.equal(init.reply.result.serverInfo.name, pkg.name)
    const session = { 'mcp-session-id': init.res.headers.get('mcp-session-id') }
    const unauthorized = await fetch(url, {
      method: 'POST',
      headers: { ...headers, authorization: '' },
    })
    assert.equal(unauthorized.status, 401)
    const list = await post({ jsonrpc: '2.0', id: 2, method: 'tools/list' }, session)
    assert.ok(list.reply.result.tools.some((t) => t.name === 'read_file'))
  } finally {
    child.kill('SIGTERM')
  }
  assert.equal(await exited, 0)
}

const work = mkdtempSync(join(tmpdir(), 'atn-pack-'))
try {
  step(`packing ${pkg.name}@${pkg.version} and this platform's package`)
  const { main, native, addon, platform } = packBoth(work)
  // An entry ending in `/` is a directory: every file under it is listed.
  const inFiles = (f) => pkg.files.some((e) => (e.endsWith('/') ? f.startsWith(e) : f === e))
  for (const e of pkg.files) {
    const has = e.endsWith('/') ? main.files.some((f) => f.startsWith(e)) : main.files.includes(e)
    assert.ok(has, `the tarball lacks ${e}`)
  }
  assert.ok(main.files.includes('docs/tools/root.md'), 'the tarball lacks the tool reference')
  assert.deepEqual(
    main.files.filter((f) => !inFiles(f)).sort(),
    ['LICENSE', 'README.md', 'package.json'].filter((f) => existsSync(join(repo, f))),
    'the main tarball holds only the files listed in package.json (no .node, no sources)',
  )

  assert.deepEqual(native.files, ['README.md', addon, 'package.json'].sort())

  step('napi prepublish wires every platform package into optionalDependencies')
  const prepub = join(work, 'prepublish')
  mkdirSync(prepub)
  copyFileSync(join(repo, 'package.json'), join(prepub, 'package.json'))
  cpSync(join(repo, 'npm'), join(prepub, 'npm'), { recursive: true })
  for (const dir of readdirSync(join(prepub, 'npm'))) {
    // Stand-ins for the other targets' artifacts; nothing is published (--skip-optional-publish).
    writeFileSync(join(prepub, 'npm', dir, `${pkg.napi.binaryName}.${dir}.node`), '')
  }
  run(
    process.execPath,
    [
      join(repo, 'node_modules', '@napi-rs', 'cli', 'dist', 'cli.js'),
      'prepublish',
      '-t',
      'npm',
      '--skip-optional-publish',
      '--no-gh-release',
    ],
    prepub,
  )
  const wired = JSON.parse(readFileSync(join(prepub, 'package.json'), 'utf8')).optionalDependencies
  assert.deepEqual(
    wired,
    Object.fromEntries(
      readdirSync(join(repo, 'npm'))
        .map((dir) => JSON.parse(readFileSync(join(repo, 'npm', dir, 'package.json'), 'utf8')))
        .map((p) => [p.name, pkg.version]),
    ),
  )
  assert.equal(Object.keys(wired).length, 7)

  step('installing both tarballs into a fresh project (dependencies from the npm registry)')
  const app = join(work, 'app')
  mkdirSync(app)
  writeFileSync(
    join(app, 'package.json'),
    JSON.stringify({ name: 'pack-test-app', private: true, type: 'module' }, null, 2),
  )
  run(
    npm,
    [
      'install',
      '--no-audit',
      '--no-fund',
      '--loglevel=error',
      main.tarball,
      native.tarball,
      'typescript@5',
      '@types/node@20',
    ],
    app,
  )
  const installed = join(app, 'node_modules', pkg.name)
  assert.ok(
    !readdirSync(installed).some((f) => f.endsWith('.node')),
    'the main package must load the addon from its platform package',
  )

  step('the library install carries the library only: at most 5 other packages')
  const tree = JSON.parse(run(npm, ['ls', '--all', '--json'], app)).dependencies
  const pulled = new Set()
  const walk = (deps) => {
    for (const [name, dep] of Object.entries(deps ?? {})) {
      if (!pulled.has(name)) {
        pulled.add(name)
        walk(dep.dependencies)
      }
    }
  }
  walk(tree[pkg.name].dependencies)
  walk(tree[`${pkg.name}-${platform}`].dependencies)
  pulled.delete(`${pkg.name}-${platform}`)
  assert.ok(pulled.size <= 5, `the package pulls in ${pulled.size}: ${[...pulled].join(', ')}`)
  // The MCP server runs from the SDK bundled into the package, not from an installed SDK.
  assert.ok(main.files.includes('mcp-sdk.bundle.js'), 'the tarball lacks the bundled MCP SDK')
  assert.ok(!existsSync(join(app, 'node_modules', '@modelcontextprotocol')))

  const fixture = join(work, 'workspace')
  mkdirSync(join(fixture, 'src'), { recursive: true })
  writeFileSync(join(fixture, 'a.txt'), 'one\ntwo\n')
  const ws = JSON.stringify(fixture)

  step('ESM')
  writeFileSync(
    join(app, 'esm.mjs'),
    `import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import api, { createAgentTools, readOnlyTools, tools } from '${pkg.name}'
const require = createRequire(import.meta.url)
assert.equal(api.tools, tools)
assert.ok(require.resolve('${pkg.name}-${platform}').endsWith('${addon}'))
const agent = createAgentTools({ workspaceRoot: ${ws} })
assert.deepEqual(agent.listTools().map((t) => t.name), tools.map((t) => t.name))
assert.ok(readOnlyTools.length > 0)
const r = await agent.callTool('read_file', { path: 'a.txt' })
assert.deepEqual(r, { isError: false, content: [{ type: 'text', text: '     1\\tone\\n     2\\ttwo' }] })
const seed = await import('${pkg.name}/v0.1')
const s = await seed.createAgentTools({ workspaceRoot: ${ws} }).callTool('read_file', { path: 'a.txt' })
assert.deepEqual(s, { isError: false, text: '     1\\tone\\n     2\\ttwo' })
console.log('esm ok')
`,
  )
  assert.equal(run(process.execPath, ['esm.mjs'], app), 'esm ok\n')

  step('CommonJS')
  writeFileSync(
    join(app, 'cjs.cjs'),
    `const assert = require('node:assert/strict')
const { createAgentTools, ToolError, StartupError } = require('${pkg.name}')
const agent = createAgentTools({ workspaceRoot: ${ws} })
assert.throws(() => createAgentTools({ workspaceRoot: '/no/such/dir' }), StartupError)
assert.equal(new ToolError('not_found', 'x').code, 'not_found')
agent.callTool('list_dir', {}).then(async (r) => {
  assert.deepEqual(r, { isError: false, content: [{ type: 'text', text: 'src/\\na.txt\\t8' }] })
  const seed = require('${pkg.name}/v0.1')
  const s = await seed.createAgentTools({ workspaceRoot: ${ws} }).callTool('list_dir', {})
  assert.deepEqual(s, { isError: false, text: 'src/\\na.txt\\t8' })
  const e = await agent.callTool('read_file', { path: 'missing.txt' })
  assert.equal(e.isError, true)
  assert.equal(JSON.parse(e.text).error, 'not_found')
  console.log('cjs ok')
})
`,
  )
  assert.equal(run(process.execPath, ['cjs.cjs'], app), 'cjs ok\n')

  step('TypeScript: tsc --noEmit --strict, then run it')
  writeFileSync(
    join(app, 'tsconfig.json'),
    JSON.stringify(
      {
        compilerOptions: {
          target: 'es2022',
          module: 'nodenext',
          moduleResolution: 'nodenext',
          types: ['node'],
        },
        files: ['typed.ts'],
      },
      null,
      2,
    ),
  )
  writeFileSync(
    join(app, 'typed.ts'),
    `import {
  type AgentTools,
  createAgentTools,
  type DispatchResult,
  type ErrorCode,
  type ServerConfig,
  type ToolDef,
  ToolError,
  type ToolInfo,
  tools,
} from '${pkg.name}'

const agent: AgentTools = createAgentTools({ workspaceRoot: ${ws}, readOnly: true })
const config: ServerConfig = agent.config
const listed: ToolInfo[] = agent.listTools()
const first: ToolDef | undefined = tools[0]
const code: ErrorCode = new ToolError('not_found', 'x').code
const result: DispatchResult = await agent.callTool('read_file', { path: 'a.txt', offset: -1 })
if (result.isError || result.text !== '     2\\ttwo') throw new Error(result.text)
if (!config.readOnly || listed.length === 0 || !first || code !== 'not_found') {
  throw new Error('unexpected typed values')
}
console.log('ts ok')
`,
  )
  const tsc = join(app, 'node_modules', 'typescript', 'bin', 'tsc')
  run(process.execPath, [tsc, '--noEmit', '--strict', '-p', '.'], app)
  // Type-checked above; to run it, only strip the types (a second full tsc run is slow).
  run(
    process.execPath,
    [
      '-e',
      `const ts = require('typescript'), fs = require('node:fs')
const out = ts.transpileModule(fs.readFileSync('typed.ts', 'utf8'), {
  compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
})
fs.writeFileSync('typed.js', out.outputText)`,
    ],
    app,
  )
  assert.equal(run(process.execPath, ['typed.js'], app), 'ts ok\n')

  step('the bin: CLI call and list, and an MCP handshake')
  const bin = join(app, 'node_modules', '.bin', pkg.name)
  assert.equal(
    run(bin, ['call', 'read_file', '{"path": "a.txt"}', '--workspace', fixture], app),
    '     1\tone\n     2\ttwo\n',
  )
  const listed = JSON.parse(run(bin, ['list', '--read-only', '--workspace', fixture], app))
  assert.ok(listed.length > 0 && listed.every((t) => typeof t.inputSchema === 'object'))
  const usage = spawnSync(bin, ['frobnicate'], { cwd: app, encoding: 'utf8' })
  assert.equal(usage.status, 2, usage.stderr)
  const mcp = spawnSync(bin, ['mcp', '--workspace', fixture], {
    cwd: app,
    encoding: 'utf8',
    input: [
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'p', version: '1' },
        },
      },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
    ]
      .map((m) => `${JSON.stringify(m)}\n`)
      .join(''),
    timeout: 30_000,
  })
  assert.equal(mcp.status, 0, mcp.stderr)
  const replies = mcp.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l))
  assert.equal(replies[0].result.serverInfo.name, pkg.name)
  assert.deepEqual(
    replies[1].result.tools.map((t) => t.name),
    JSON.parse(run(bin, ['list', '--workspace', fixture], app)).map((t) => t.name),
  )

  step('the bin: the MCP server over HTTP (mcp --http), initialize and tools/list')
  await mcpOverHttp(bin, fixture, app)

  step('without the platform package: one clear error saying how to fix it')
  const platformPkg = join(app, 'node_modules', `${pkg.name}-${platform}`)
  renameSync(platformPkg, `${platformPkg}.away`)
  const failed = spawnSync(process.execPath, ['cjs.cjs'], { cwd: app, encoding: 'utf8' })
  renameSync(`${platformPkg}.away`, platformPkg)
  assert.notEqual(failed.status, 0)
  assert.match(failed.stderr, /cannot load the native addon/)
  assert.match(failed.stderr, new RegExp(`Cannot find module '${pkg.name}-${platform}'`))
  assert.match(failed.stderr, /To fix: build \S+ from source with Rust .*npm run build/)

  step('passed')
} catch (err) {
  console.error(`pack-test: FAILED\n${err?.stack ?? err}`)
  process.exitCode = 1
} finally {
  if (process.exitCode) console.error(`pack-test: leaving ${work} for inspection`)
  else rmSync(work, { recursive: true, force: true })
}
