// Editing benchmark: edit_file, multi_edit and write_file against the physical floor measured
// in the same run — Node's fs reading the file, writing a temp file beside it, fsync, rename.
// The floor writes bytes computed before timing (no string work is timed on its side); what
// our tool writes is checked byte-equal to them before anything is timed. Ours and the floor
// run interleaved, so machine load hits both alike.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createAgentTools } from '../index.mjs'
import { assertSame, cacheDir, floorWrite, median, writeResults } from './lib.mjs'

const dir = join(cacheDir, `edit-${process.pid}`)
rmSync(dir, { recursive: true, force: true })
mkdirSync(dir, { recursive: true })
const tools = createAgentTools({ workspaceRoot: dir, maxFileBytes: 64_000_000 })

/** Buffer-level replacement, so the floor writes exactly the bytes the tool writes. */
function replaceOnce(buf, from, to) {
  const at = buf.indexOf(from)
  if (at < 0 || buf.indexOf(from, at + 1) >= 0) throw new Error(`floor: ${from} not unique`)
  return Buffer.concat([buf.subarray(0, at), Buffer.from(to), buf.subarray(at + from.length)])
}

async function call(name, args) {
  const r = await tools.callTool(name, args)
  if (r.isError) throw new Error(`${name}: ${r.text}`)
  return r.text
}

/** Runs both sides `runs` times, interleaved, after one warm-up each; median ms of each. */
async function interleaved(ours, base, runs) {
  await ours(0)
  await base(0)
  const a = []
  const b = []
  for (let i = 1; i <= runs; i++) {
    let t0 = process.hrtime.bigint()
    await ours(i)
    a.push(Number(process.hrtime.bigint() - t0) / 1e6)
    t0 = process.hrtime.bigint()
    await base(i)
    b.push(Number(process.hrtime.bigint() - t0) / 1e6)
  }
  return { ours_ms: median(a), base_ms: median(b) }
}

function row(workload, target, t, note) {
  const r = { workload, ...t, ratio: t.ours_ms / t.base_ms, target, note }
  console.log(
    `${workload}: ours ${t.ours_ms.toFixed(2)} ms, floor ${t.base_ms.toFixed(2)} ms, ratio ${r.ratio.toFixed(2)}`,
  )
  return r
}

const rows = []

// --- edit_file: one line near the end of a 15 MB file -----------------------------------------
{
  const lines = []
  let size = 0
  for (let i = 0; size < 15_000_000; i++) {
    const l = `    let value_${i} = compute(${i}, "some payload text for line ${i}");\n`
    lines.push(l)
    size += l.length
  }
  const target = lines.length - 20
  const old = lines[target]
  const variants = [old.trimEnd(), old.trimEnd().replace('compute(', 'compute_fast(')]
  const content = lines.join('')
  const ours = join(dir, 'big-ours.rs')
  const base = join(dir, 'big-base.rs')
  writeFileSync(ours, content)
  writeFileSync(base, content)
  // Each run flips the line to the other variant.
  const oursEdit = async (i) =>
    call('edit_file', {
      path: 'big-ours.rs',
      old_string: variants[i % 2],
      new_string: variants[(i + 1) % 2],
    })
  const baseEdit = (i) =>
    floorWrite(base, replaceOnce(readFileSync(base), variants[i % 2], variants[(i + 1) % 2]))
  await oursEdit(0)
  baseEdit(0)
  assertSame(
    'edit_file 15 MB',
    readFileSync(ours).toString('base64'),
    readFileSync(base).toString('base64'),
  )
  await oursEdit(1)
  baseEdit(1)
  const t = await interleaved(oursEdit, baseEdit, 9)
  rows.push(
    row(
      `edit_file: 1 line near the end of a ${(content.length / 1e6).toFixed(1)} MB file`,
      1.5,
      t,
      'floor = read + write temp + fsync + rename',
    ),
  )
  rmSync(ours)
  rmSync(base)
}

// --- multi_edit: 50 edits on a 5,000-line file -------------------------------------------------
{
  const lines = Array.from(
    { length: 5000 },
    (_, i) => `export const setting${i} = { id: ${i}, name: "setting ${i}", enabled: true };\n`,
  )
  const content = lines.join('')
  const picks = Array.from({ length: 50 }, (_, k) => k * 100 + 37)
  const edits = (i) =>
    picks.map((p) => {
      const [a, b] = [`name: "setting ${p}"`, `name: "renamed ${p}"`]
      return i % 2 ? { old_string: b, new_string: a } : { old_string: a, new_string: b }
    })
  const ours = join(dir, 'multi-ours.ts')
  const base = join(dir, 'multi-base.ts')
  writeFileSync(ours, content)
  writeFileSync(base, content)
  let edited = Buffer.from(content)
  for (const e of edits(0)) edited = replaceOnce(edited, e.old_string, e.new_string)
  const outputs = [Buffer.from(content), edited]
  const oursEdit = (i) => call('multi_edit', { path: 'multi-ours.ts', edits: edits(i) })
  const baseEdit = (i) => {
    readFileSync(base)
    floorWrite(base, outputs[(i + 1) % 2])
  }
  await oursEdit(0)
  assertSame('multi_edit', readFileSync(ours).equals(outputs[1]), true)
  await oursEdit(1)
  assertSame('multi_edit back', readFileSync(ours).equals(outputs[0]), true)
  const t = await interleaved(oursEdit, baseEdit, 21)
  rows.push(
    row(
      'multi_edit: 50 edits on a 5,000-line file',
      1.5,
      t,
      'floor = read + write temp + fsync + rename; 1.5x is our target (the issue sets none)',
    ),
  )
}

// --- write_file: 1 MB --------------------------------------------------------------------------
{
  const contents = ['a', 'b'].map((c) => `${c.repeat(99)}\n`.repeat(10_000))
  const ours = join(dir, 'w-ours.txt')
  const base = join(dir, 'w-base.txt')
  writeFileSync(ours, contents[1])
  writeFileSync(base, contents[1])
  const bufs = contents.map((c) => Buffer.from(c))
  const oursWrite = (i) => call('write_file', { path: 'w-ours.txt', content: contents[i % 2] })
  const baseWrite = (i) => floorWrite(base, bufs[i % 2])
  await oursWrite(0)
  assertSame('write_file', readFileSync(ours).equals(bufs[0]), true)
  const t = await interleaved(oursWrite, baseWrite, 21)
  rows.push(
    row(
      'write_file: 1 MB (overwrite)',
      1.5,
      t,
      'floor = write temp + fsync + rename (no read: write_file needs none); 1.5x is our target (the issue sets none)',
    ),
  )
}

rmSync(dir, { recursive: true, force: true })
writeResults('edit', 'Node fs floor (read + write temp + fsync + rename)', rows)
