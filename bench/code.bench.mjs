// Code-intelligence benchmark: check_syntax + outline of a 5,000-line file, against the
// reference's path — the WASM grammars of `@vscode/tree-sitter-wasm` driven from JavaScript
// (web-tree-sitter's API, which that package ships). The baseline does what the reference's two
// tools do: read the file, parse it with the 2 s progress-callback budget, walk the tree for
// the outline (capture / pass-through node kinds) and for ERROR / MISSING issues, and render
// the same texts. The WASM runtime and grammar are loaded once, outside the timing, as the
// reference caches them. Both outputs are checked equal before anything is timed; the two
// sides run interleaved so machine load hits both alike.

//
// Rows: repeated calls in one process (the file changes by one comment line before every round,
// so each round parses it: our outline reuses check_syntax's tree, which the tree cache keeps by
// exact text; an unchanged file would be served from the cache) and the first call of a fresh
// Node process (from loading the library — our addon, or the WASM runtime and grammar — to both
// results; fresh processes of the two sides alternate).

import { spawnSync } from 'node:child_process'
import { appendFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { assertSame, cacheDir, median, writeResults } from './lib.mjs'

const require = createRequire(import.meta.url)
const wasmDir = join(require.resolve('@vscode/tree-sitter-wasm/package.json'), '..', 'wasm')
const child = process.argv[2] === '--first'
const dir = child ? process.argv[4] : join(cacheDir, `code-${process.pid}`)

// --- The reference's walks, in JavaScript (CONTRACT-v0.5.md §4) --------------------------------
const ECMA = {
  capture: [
    'function_declaration',
    'generator_function_declaration',
    'class_declaration',
    'abstract_class_declaration',
    'interface_declaration',
    'enum_declaration',
    'type_alias_declaration',
    'internal_module',
    'module',
    'function_signature',
    'method_definition',
    'method_signature',
    'abstract_method_signature',
    'public_field_definition',
  ],
  pass: [
    'program',
    'export_statement',
    'expression_statement',
    'ambient_declaration',
    'statement_block',
    'class_body',
    'interface_body',
  ],
  topLevelFunctions: true,
}
const KINDS = {
  typescript: ECMA,
  python: {
    capture: ['function_definition', 'class_definition'],
    pass: ['module', 'decorated_definition', 'block'],
  },
}
const FN_VALUES = new Set(['arrow_function', 'function_expression', 'generator_function'])

/** CONTRACT-v0.5-wording.md §6: "the node's own first source line, trimmed, with one trailing
 * `{` or `:` … removed" (so a member's `;`, outside the node, never shows). Cut at the first
 * newline by `indexOf`, the cheapest way for the reference. */
function header(node, src) {
  const newline = src.indexOf('\n', node.startIndex)
  const stop = newline < 0 || newline > node.endIndex ? node.endIndex : newline
  const first = src.slice(node.startIndex, stop).trim()
  const stripped = /[{:]$/.test(first) ? first.slice(0, -1).trimEnd() : first
  const chars = [...stripped]
  return chars.length > 150 ? `${chars.slice(0, 150).join('')}...` : stripped
}

function outlineSymbols(root, grammar, src) {
  const kinds = KINDS[grammar]
  const capture = new Set(kinds.capture)
  const pass = new Set(kinds.pass)
  const out = []
  const emit = (node, depth) =>
    out.push(
      `${'  '.repeat(depth + 1)}${header(node, src)} (${node.startPosition.row + 1}-${node.endPosition.row + 1})`,
    )
  const walk = (node, depth) => {
    for (const child of node.namedChildren) {
      if (capture.has(child.type)) {
        emit(child, depth)
        walk(child, depth + 1)
      } else if (pass.has(child.type)) {
        walk(child, depth)
      } else if (
        kinds.topLevelFunctions &&
        depth === 0 &&
        (child.type === 'lexical_declaration' || child.type === 'variable_declaration') &&
        child.namedChildren.some(
          (d) =>
            d.type === 'variable_declarator' && FN_VALUES.has(d.childForFieldName('value')?.type),
        )
      ) {
        emit(child, depth)
      }
    }
  }
  if (pass.has(root.type)) walk(root, 0)
  return out
}

function issues(root, src) {
  const lines = src.split(/\r?\n/)
  const out = []
  let truncated = false
  const visit = (node) => {
    if (node.isError || node.isMissing) {
      if (out.length === 50) {
        truncated = true
        return true
      }
      const { row, column } = node.startPosition
      let near = node.type
      if (node.isError) {
        const line = (lines[row] ?? '').trim()
        near = line.length > 80 ? `${line.slice(0, 80)}...` : line
      }
      out.push({
        kind: node.isMissing ? 'missing' : 'error',
        line: row + 1,
        column: column + 1,
        near,
      })
      if (node.isError) return false
    }
    for (const child of node.children) {
      if (child.hasError && visit(child)) return true
    }
    return false
  }
  if (root.hasError) visit(root)
  return { out, truncated }
}

function parseBudgeted(parser, src) {
  const deadline = performance.now() + 2000
  const tree = parser.parse(src, null, { progressCallback: () => performance.now() > deadline })
  if (!tree) throw new Error('parse timed out')
  return tree
}

/** The reference's outline: read, parse, walk, render. */
function wasmOutline(parser, grammar, rel) {
  const src = readFileSync(join(dir, rel), 'utf8')
  const tree = parseBudgeted(parser, src)
  const symbols = outlineSymbols(tree.rootNode, grammar, src)
  const { out, truncated } = issues(tree.rootNode, src)
  tree.delete()
  const lineCount = src.split('\n').length
  const lines = [`${rel} — ${grammar}, ${lineCount} lines`]
  lines.push(...(symbols.length ? symbols.slice(0, 2000) : ['  (no symbols found)']))
  if (symbols.length > 2000) lines.push(`  [... ${symbols.length - 2000} more symbols omitted ...]`)
  if (out.length) {
    lines.push(
      `note: file has syntax errors (${out.length}${truncated ? '+' : ''}); outline may be incomplete — run check_syntax.`,
    )
  }
  return lines.join('\n')
}

/** The reference's check_syntax: read, parse, collect, one JSON text. */
function wasmCheck(parser, grammar, rel) {
  const src = readFileSync(join(dir, rel), 'utf8')
  const tree = parseBudgeted(parser, src)
  const { out, truncated } = issues(tree.rootNode, src)
  tree.delete()
  return JSON.stringify({
    path: rel,
    language: grammar,
    ok: out.length === 0,
    errors: out,
    error_count: out.length,
    truncated,
  })
}

// --- Workloads: 5,000-line files with a few syntax errors near the end ------------------------
function typescriptFile(lines) {
  const out = []
  for (let i = 0; out.length < lines - 3; i++) {
    out.push(
      `export interface Shape${i} {`,
      `  area(): number;`,
      `}`,
      `export class Circle${i} implements Shape${i} {`,
      `  private r: number = ${i};`,
      `  constructor(r: number) {`,
      `    this.r = r;`,
      `  }`,
      `  area(): number {`,
      `    const k = (x: number): number => x * Math.PI;`,
      `    return k(this.r ** 2);`,
      `  }`,
      `}`,
      `export const double${i} = (x: number): number => x * 2;`,
      `function helper${i}(a: string, b: string): string {`,
      '  return a + "-" + b;',
      `}`,
    )
  }
  out.length = lines - 3
  out.push('function broken(x: number {', '  return x', '')
  return out.join('\n')
}

function pythonFile(lines) {
  const out = []
  for (let i = 0; out.length < lines - 3; i++) {
    out.push(
      `class Circle${i}:`,
      `    """A circle."""`,
      ``,
      `    def __init__(self, r):`,
      `        self.r = r`,
      ``,
      `    @property`,
      `    def area(self):`,
      `        return 3.14159 * self.r ** 2`,
      ``,
      ``,
      `def helper${i}(a, b):`,
      `    if a > b:`,
      `        return a - b`,
      `    return [x for x in range(a, b)]`,
      ``,
    )
  }
  out.length = lines - 3
  out.push('def broken(x:', '    return x', '')
  return out.join('\n')
}

/** A few long functions: 10 functions of 500 lines of statements each. */
function longFunctionsFile(lines) {
  const out = []
  for (let f = 0; out.length < lines - 3; f++) {
    out.push(`export function process${f}(items: number[], label: string): number {`)
    out.push('  let total = 0;')
    for (let i = 0; i < 120; i++) {
      out.push(
        `  for (const item of items.filter((x) => x % ${i + 2} === 0)) {`,
        `    total += item * ${i} + label.length; // step ${i}`,
        '  }',
        `  if (total > ${i * 1000}) console.log(\`\${label}: \${total}\`);`,
      )
    }
    out.push('  return total;', '}')
  }
  out.length = lines - 3
  out.push('function broken(x: number {', '  return x', '')
  return out.join('\n')
}

const WORKLOADS = [
  { grammar: 'typescript', rel: 'big.ts', text: typescriptFile(5000), shape: 'many small classes' },
  {
    grammar: 'typescript',
    rel: 'long.ts',
    text: longFunctionsFile(5000),
    shape: 'a few long functions',
  },
  { grammar: 'python', rel: 'big.py', text: pythonFile(5000), shape: 'many small classes' },
]

/** Child mode: one side's first check_syntax + outline in this fresh process, timed from
 * loading its library; prints `{ ms, cpu, out }`. */
if (child) {
  const [, , , side, , grammar, rel] = process.argv
  const c0 = process.cpuUsage()
  const t0 = performance.now()
  let out
  if (side === 'ours') {
    const { createAgentTools } = await import('../index.mjs')
    const tools = createAgentTools({ workspaceRoot: dir })
    out = []
    for (const name of ['check_syntax', 'outline']) {
      out.push((await tools.callTool(name, { path: rel })).content[0].text)
    }
  } else {
    const { Parser, Language } = require('@vscode/tree-sitter-wasm')
    await Parser.init({ locateFile: (file) => join(wasmDir, file) })
    const parser = new Parser()
    parser.setLanguage(await Language.load(join(wasmDir, `tree-sitter-${grammar}.wasm`)))
    out = [wasmCheck(parser, grammar, rel), wasmOutline(parser, grammar, rel)]
  }
  const ms = performance.now() - t0
  const c = process.cpuUsage(c0)
  console.log(JSON.stringify({ ms, cpu: (c.user + c.system) / 1000, out }))
  process.exit(0)
}

const { Parser, Language } = require('@vscode/tree-sitter-wasm')
await Parser.init({ locateFile: (file) => join(wasmDir, file) })
const { createAgentTools } = await import('../index.mjs')
rmSync(dir, { recursive: true, force: true })
mkdirSync(dir, { recursive: true })
const tools = createAgentTools({ workspaceRoot: dir })

async function call(name, args) {
  const r = await tools.callTool(name, args)
  if (r.isError) throw new Error(`${name}: ${r.content[0].text}`)
  return r.content[0].text
}

/** One fresh Node process running one side's first call. */
function first(side, grammar, rel) {
  const r = spawnSync(
    process.execPath,
    [fileURLToPath(import.meta.url), '--first', side, dir, grammar, rel],
    { encoding: 'utf8' },
  )
  if (r.status !== 0) throw new Error(`first call (${side}) failed: ${r.stderr}`)
  return JSON.parse(r.stdout)
}

const rows = []
for (const { grammar, rel, text, shape } of WORKLOADS) {
  writeFileSync(join(dir, rel), text)
  const parser = new Parser()
  parser.setLanguage(await Language.load(join(wasmDir, `tree-sitter-${grammar}.wasm`)))

  const ours = async () => [
    await call('check_syntax', { path: rel }),
    await call('outline', { path: rel }),
  ]
  const base = () => [wasmCheck(parser, grammar, rel), wasmOutline(parser, grammar, rel)]
  const mine = await ours()
  assertSame(`${grammar} check_syntax + outline`, mine, base())
  const errors = JSON.parse(mine[0]).error_count
  const symbols = mine[1].split('\n').filter((l) => / \(\d+-\d+\)$/.test(l)).length

  // Interleaved, after the warm-up above; the file changes (one comment line) every round.
  const [a, b, ac, bc] = [[], [], [], []]
  for (let i = 0; i < 15; i++) {
    appendFileSync(join(dir, rel), `\n// round ${i}`)
    for (const [fn, wall, cpu] of [
      [ours, a, ac],
      [base, b, bc],
    ]) {
      const c0 = process.cpuUsage()
      const t0 = process.hrtime.bigint()
      await fn()
      wall.push(Number(process.hrtime.bigint() - t0) / 1e6)
      const c = process.cpuUsage(c0)
      cpu.push((c.user + c.system) / 1000)
    }
  }
  const what = `5,000-line ${grammar} file, ${shape} (${symbols} symbols shown, ${errors} issues)`
  const push = (workload, ours_ms, base_ms, oursCpu, baseCpu) => {
    const r = { workload, ours_ms, base_ms, ratio: ours_ms / base_ms, target: 0.5 }
    r.note = `CPU ms ${oursCpu.toFixed(1)} vs ${baseCpu.toFixed(1)} = ${(oursCpu / baseCpu).toFixed(2)}`
    console.log(`${r.workload}: ratio ${r.ratio.toFixed(2)} (${r.note})`)
    rows.push(r)
  }
  push(
    `check_syntax + outline, repeated calls: ${what}`,
    median(a),
    median(b),
    median(ac),
    median(bc),
  )
  // First calls, each in a fresh process, alternating sides; outputs compared first.
  writeFileSync(join(dir, rel), text)
  const firsts = { ours: [], ref: [] }
  for (let i = 0; i < 5; i++) {
    for (const side of ['ours', 'ref']) firsts[side].push(first(side, grammar, rel))
  }
  assertSame(`${grammar} first call`, firsts.ours[0].out, firsts.ref[0].out)
  const m = (side, key) => median(firsts[side].map((f) => f[key]))
  push(
    `check_syntax + outline, first call in a fresh process (loading included): ${what}`,
    m('ours', 'ms'),
    m('ref', 'ms'),
    m('ours', 'cpu'),
    m('ref', 'cpu'),
  )
  parser.delete()
}

rmSync(dir, { recursive: true, force: true })
writeResults('code', '@vscode/tree-sitter-wasm 0.3.1 (the reference’s WASM grammars)', rows)
