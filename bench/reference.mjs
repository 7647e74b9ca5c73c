// The contracts' editing tools as the reference library does them, in Node: the baseline that
// stands in for the reference (which cannot be installed here) in the edit and patch suites,
// as `referenceRead` does for read_file in the calls suite. Each follows its contract
// (CONTRACT.md for `seed`, CONTRACT-v0.5.md for `newest`) with Node's async fs, as an async
// library must:
//
// - arguments validated with ajv (the reference's options; compiled once);
// - the path confined by `realpath` (the root's canonical form computed once), a symlink
//   refused (`lstat`), a stat for `not_a_file` / `too_large`;
// - the read, the binary check (a NUL in the first or last 8000 bytes), BOM strip;
// - line endings as CONTRACT.md's "Shared mechanics" (Text) says, for every file: "Line endings
//   are normalized to `\n` for display and matching; on write every untouched line keeps its
//   own terminator and new lines get the file's dominant one" (CONTRACT-v0.5.md: "Anything this
//   page does not mention behaves as CONTRACT.md says"). Done the straightforward way: the text
//   is split into lines and their terminators, matched as the lines joined by `\n`, and
//   written back line by line, each with its terminator (`splitLines` / `joinLines` below).
//   Until issue 24's second round this stand-in was generous: a file without `\r` skipped all
//   of it (every benchmark file here). `referenceWorkspace(root, { generous: true })` keeps
//   that version, so a run can report the ratio against both (bench/README.md);
// - the edit by `indexOf` (exact and unique; no tolerant tiers are needed by these workloads);
// - newest only: `meta.diff` by jsdiff's `createTwoFilesPatch` (the `diff` package), and the
//   syntax warning — a parse with the reference's WASM grammar (`@vscode/tree-sitter-wasm`)
//   of each written file that has a grammar and is at most 1,000,000 bytes (apply_patch: five
//   files at most);
// - the atomic write: `.clarvis-tmp-<token>` beside the target, fsync, the old mode kept,
//   rename, fsync of the directory.
//
// apply_patch parses and applies with jsdiff's `parsePatch` / `applyPatch`.
import { randomBytes } from 'node:crypto'
import { constants } from 'node:fs'
import { lstat, mkdir, open, readFile, realpath, rename, stat } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { dirname, extname, join, relative, resolve, sep } from 'node:path'
import Ajv from 'ajv'
import { applyPatch, createTwoFilesPatch, parsePatch } from 'diff'
import { getTool } from '../index.mjs'

const require = createRequire(import.meta.url)
const wasmDir = join(require.resolve('@vscode/tree-sitter-wasm/package.json'), '..', 'wasm')
const { Parser, Language } = require('@vscode/tree-sitter-wasm')

const MAX_FILE_BYTES = 64_000_000
const WARNING_LIMIT = 1_000_000
const GRAMMARS = { '.ts': 'typescript', '.rs': 'rust', '.py': 'python' }

let parsers
/** The WASM parsers, loaded once (the reference caches them too). */
async function parserFor(ext) {
  if (!parsers) {
    await Parser.init({ locateFile: (file) => join(wasmDir, file) })
    parsers = {}
  }
  const grammar = GRAMMARS[ext]
  if (!grammar) return null
  if (!parsers[grammar]) {
    const p = new Parser()
    p.setLanguage(await Language.load(join(wasmDir, `tree-sitter-${grammar}.wasm`)))
    parsers[grammar] = p
  }
  return parsers[grammar]
}

/** The newest contract's write warning: does the written text parse cleanly? */
async function syntaxWarning(rel, text) {
  if (Buffer.byteLength(text) > WARNING_LIMIT) return null
  const parser = await parserFor(extname(rel))
  if (!parser) return null
  const deadline = performance.now() + 1000
  const tree = parser.parse(text, null, { progressCallback: () => performance.now() > deadline })
  const broken = tree?.rootNode.hasError
  tree?.delete()
  return broken ? `warning: ${rel} has syntax errors` : null
}

const validators = new Map()
function validate(tool, args) {
  let v = validators.get(tool)
  if (!v) {
    v = new Ajv({ allErrors: true, useDefaults: true, coerceTypes: true, strict: false }).compile(
      getTool(tool).inputSchema,
    )
    validators.set(tool, v)
  }
  if (!v(args)) throw new Error(`invalid_input: ${JSON.stringify(v.errors)}`)
}

/**
 * A file's text as lines and the terminator of each (`\r\n`, `\n`, `\r`, or `''` for a last
 * line without one): the per-line bookkeeping of CONTRACT.md's Text rule.
 */
function splitLines(text) {
  const parts = text.split(/(\r\n|\r|\n)/)
  const lines = []
  const eols = []
  for (let i = 0; i < parts.length; i += 2) {
    lines.push(parts[i])
    eols.push(parts[i + 1] ?? '')
  }
  // A text ending in a terminator has no empty last line.
  if (lines.length > 1 && lines.at(-1) === '') {
    lines.pop()
    eols.pop()
  }
  return { lines, eols }
}

/** The text matching sees: every line ended by `\n` where it had a terminator. */
function normalizedOf({ lines, eols }) {
  const text = lines.join('\n')
  return eols.at(-1) === '' ? text : `${text}\n`
}

/** The file's dominant terminator (ties: `\n`, then `\r\n`). */
function dominantOf(eols) {
  let lf = 0
  let crlf = 0
  let cr = 0
  for (const e of eols) {
    if (e === '\n') lf++
    else if (e === '\r\n') crlf++
    else if (e === '\r') cr++
  }
  if (lf >= crlf && lf >= cr) return '\n'
  return crlf >= cr ? '\r\n' : '\r'
}

/** The text written back: every line with its own terminator. */
function joinLines({ lines, eols }) {
  const parts = new Array(lines.length * 2)
  for (let i = 0; i < lines.length; i++) {
    parts[2 * i] = lines[i]
    parts[2 * i + 1] = eols[i]
  }
  return parts.join('')
}

/**
 * Replaces `norm.slice(at, end)` (offsets in the normalized text) with `replacement` in the
 * line arrays: the touched lines are replaced by the new ones; a new line standing where a
 * replaced line stood keeps that line's terminator, the last keeps the last touched line's,
 * added lines get the dominant one.
 */
function spliceLines(file, norm, at, end, replacement, dominant) {
  const { lines, eols } = file
  let a = 0
  let start = 0
  while (a < lines.length - 1 && at > start + lines[a].length) {
    start += lines[a].length + 1
    a++
  }
  let b = a
  let bStart = start
  while (b < lines.length - 1 && end > bStart + lines[b].length) {
    bStart += lines[b].length + 1
    b++
  }
  const bEnd = bStart + lines[b].length
  const middle = (norm.slice(start, at) + replacement + norm.slice(end, bEnd)).split('\n')
  const ends = middle.map((_, i) =>
    i === middle.length - 1 ? eols[b] : a + i < b ? eols[a + i] : dominant,
  )
  lines.splice(a, b - a + 1, ...middle)
  eols.splice(a, b - a + 1, ...ends)
}

/** A workspace the reference tools run in (`generous`: the stand-in before issue 24's second
 * round, which skipped the line bookkeeping for a file without `\r`). */
export async function referenceWorkspace(root, { generous = false } = {}) {
  const realRoot = await realpath(root)

  async function confine(path) {
    const abs = resolve(realRoot, path)
    // The longest existing prefix is canonicalized; here every parent exists.
    const real = join(await realpath(dirname(abs)), abs.slice(dirname(abs).length + 1))
    if (real !== realRoot && !real.startsWith(realRoot + sep)) throw new Error('path_escape')
    return real
  }

  async function loadText(abs) {
    const st = await lstat(abs)
    if (st.isSymbolicLink()) throw new Error('invalid_input: symlink')
    if (!st.isFile()) throw new Error('not_a_file')
    if (st.size > MAX_FILE_BYTES) throw new Error('too_large')
    const bytes = await readFile(abs)
    const head = bytes.subarray(0, 8000)
    const tail = bytes.subarray(Math.max(0, bytes.length - 8000))
    if (head.includes(0) || tail.includes(0)) throw new Error('is_binary')
    let text = bytes.toString('utf8')
    const bom = text.charCodeAt(0) === 0xfeff
    if (bom) text = text.slice(1)
    if (generous && text.includes('\r'))
      throw new Error('reference: CRLF files are not needed here')
    return { text, bom, mode: st.mode }
  }

  async function writeAtomic(abs, text, bom, mode) {
    const tmp = join(dirname(abs), `.clarvis-tmp-${randomBytes(6).toString('hex')}`)
    const fh = await open(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o644)
    try {
      await fh.writeFile(bom ? `\ufeff${text}` : text)
      if (mode !== undefined) await fh.chmod(mode & 0o7777)
      await fh.sync()
    } finally {
      await fh.close()
    }
    await rename(tmp, abs)
    const dh = await open(dirname(abs), constants.O_RDONLY)
    try {
      await dh.sync()
    } finally {
      await dh.close()
    }
  }

  function uniqueIndex(text, oldString) {
    const at = text.indexOf(oldString)
    if (at < 0) throw new Error('no_match')
    if (text.indexOf(oldString, at + 1) >= 0) throw new Error('ambiguous_match')
    return at
  }

  function replaceOnce(text, oldString, newString) {
    const at = uniqueIndex(text, oldString)
    return text.slice(0, at) + newString + text.slice(at + oldString.length)
  }

  const lf = (s) => s.replace(/\r\n?/g, '\n')

  /** `edits` applied in order to `text` as the contract's Text rule says (module comment). */
  function applyEdits(text, edits) {
    if (generous) {
      let after = text
      for (const e of edits) after = replaceOnce(after, e.old_string, e.new_string)
      return after
    }
    const file = splitLines(text)
    const dominant = dominantOf(file.eols)
    let norm = normalizedOf(file)
    for (const e of edits) {
      const [oldString, newString] = [lf(e.old_string), lf(e.new_string)]
      const at = uniqueIndex(norm, oldString)
      const end = at + oldString.length
      spliceLines(file, norm, at, end, newString, dominant)
      norm = norm.slice(0, at) + newString + norm.slice(end)
    }
    return joinLines(file)
  }

  /** edit_file / multi_edit: `edits` applied in order; the newest contract adds diff + warning. */
  async function edit(profile, tool, args) {
    validate(tool, args)
    const edits = tool === 'edit_file' ? [args] : args.edits
    const abs = await confine(args.path)
    const rel = relative(realRoot, abs)
    const { text, bom, mode } = await loadText(abs)
    const after = applyEdits(text, edits)
    const result = { text: `edited ${rel}` }
    if (profile === 'newest') {
      result.warning = await syntaxWarning(rel, after)
      result.diff = createTwoFilesPatch(rel, rel, text, after, undefined, undefined, {
        context: 3,
      })
    }
    await writeAtomic(abs, after, bom, mode)
    return result
  }

  /** write_file: the newest contract reads the file it overwrites for `meta.diff`. */
  async function write(profile, args) {
    validate('write_file', args)
    const abs = await confine(args.path)
    const rel = relative(realRoot, abs)
    await mkdir(dirname(abs), { recursive: true })
    let prior = null
    let mode
    try {
      const st = await lstat(abs)
      if (st.isSymbolicLink()) throw new Error('invalid_input: symlink')
      mode = st.mode
      if (profile === 'newest') prior = (await loadText(abs)).text
    } catch (e) {
      if (e.code !== 'ENOENT') throw e
    }
    const result = { text: `wrote ${rel}` }
    if (profile === 'newest') {
      result.warning = await syntaxWarning(rel, args.content)
      if (prior !== null && prior !== args.content) {
        result.diff = createTwoFilesPatch(rel, rel, prior, args.content, undefined, undefined, {
          context: 3,
        })
      }
    }
    await writeAtomic(abs, args.content, false, mode)
    return result
  }

  /** One file's patch under the Text rule: jsdiff applies it to the normalized text; the lines
   * are then written back with their terminators, hunk by hunk (context lines keep theirs,
   * added lines get the dominant one). Hunks apply where they say here (the benchmark's do). */
  function patchLines(text, p) {
    const file = splitLines(text)
    const after = applyPatch(normalizedOf(file), p)
    if (after === false) return false
    const dominant = dominantOf(file.eols)
    const lines = []
    const eols = []
    let next = 0
    for (const h of p.hunks) {
      for (; next < h.oldStart - 1; next++) {
        lines.push(file.lines[next])
        eols.push(file.eols[next])
      }
      for (const l of h.lines) {
        if (l[0] === ' ') {
          lines.push(file.lines[next])
          eols.push(file.eols[next++])
        } else if (l[0] === '-') next++
        else if (l[0] === '+') {
          lines.push(l.slice(1))
          eols.push(dominant)
        }
      }
    }
    for (; next < file.lines.length; next++) {
      lines.push(file.lines[next])
      eols.push(file.eols[next])
    }
    return joinLines({ lines, eols })
  }

  /** apply_patch (unified diffs): jsdiff parses and applies; every file is read first, then
   * all are written (all or nothing); the newest contract checks five files for warnings. */
  async function patch(profile, args) {
    validate('apply_patch', args)
    const staged = []
    for (const p of parsePatch(args.patch)) {
      const name = p.newFileName.replace(/^b\//, '')
      const abs = await confine(name)
      const { text, bom, mode } = await loadText(abs)
      const after = generous ? applyPatch(text, p) : patchLines(text, p)
      if (after === false) throw new Error(`patch_failed: ${name}`)
      staged.push({ abs, rel: relative(realRoot, abs), after, bom, mode })
    }
    const warnings = []
    if (profile === 'newest') {
      for (const s of staged.filter((s) => GRAMMARS[extname(s.rel)]).slice(0, 5)) {
        warnings.push(await syntaxWarning(s.rel, s.after))
      }
    }
    for (const s of staged) await writeAtomic(s.abs, s.after, s.bom, s.mode)
    return { text: `Applied patch: ${staged.length} files`, warnings }
  }

  return { edit, write, patch, stat }
}
