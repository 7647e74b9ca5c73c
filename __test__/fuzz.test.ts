// Throws 100,000 random argument objects at dispatch, across every advertised tool: wrong
// types, huge strings, deep nesting, odd Unicode, NUL bytes in paths. Every result must be a
// success or a well-formed envelope, and the process must survive.
import { describe, expect, it } from 'vitest'
import { tools } from '../v0.1/index.js'
import { workspace } from './helpers'

const CODES = new Set([
  'invalid_input',
  'not_found',
  'not_a_file',
  'is_binary',
  'no_match',
  'ambiguous_match',
  'patch_failed',
  'io_error',
  'timeout',
  'output_limit',
  'too_large',
  'path_escape',
  'internal',
])

/** mulberry32: a small seeded PRNG so a failure can be replayed with FUZZ_SEED. */
function rng(seed: number) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const STRINGS = [
  '',
  'a.txt',
  'dir',
  'dir/b.txt',
  '.',
  '..',
  '../etc/passwd',
  '/etc/passwd',
  'a\0b',
  '\0',
  '💥🧨\u202e\u0000\uFFFF',
  'ä'.repeat(3000),
  '*.txt',
  '**/*',
  '[',
  '(unclosed',
  'line\r\nbreak',
  'x'.repeat(100_000),
  '-1',
  '10',
  'true',
  'yes',
  'content',
  'count',
  'files_with_matches',
  '*** Begin Patch\n*** End Patch',
  '--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-hello\n+bye\n',
]

function deep(depth: number): unknown {
  let v: unknown = 'leaf'
  for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { k: v }
  return v
}

describe('fuzz', () => {
  it('dispatch answers 100,000 random calls with a success or a valid envelope', async () => {
    const seed = Number(process.env.FUZZ_SEED ?? 20261121)
    const random = rng(seed)
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]
    const { tools: at } = workspace(
      { 'a.txt': 'hello\nworld\n', 'dir/b.txt': 'bee\n', 'bin.dat': Buffer.from([0, 1, 2]) },
      { maxOutputBytes: 4096, bashTimeoutMs: 2000, bashTimeoutMaxMs: 2000 },
    )
    const anyValue = (): unknown => {
      switch (Math.floor(random() * 10)) {
        case 0:
          return Math.floor(random() * 2 ** 40) * (random() < 0.5 ? -1 : 1)
        case 1:
          return random() * 100 - 50
        case 2:
          return random() < 0.5
        case 3:
          return null
        case 4:
          return deep(Math.floor(random() * 200))
        case 5:
          return [pick(STRINGS), Math.floor(random() * 5)]
        case 6:
          return { old_string: pick(STRINGS), new_string: pick(STRINGS) }
        default:
          return pick(STRINGS)
      }
    }
    const valueFor = (schema: Record<string, unknown>): unknown => {
      if (random() < 0.3) return anyValue()
      switch (schema.type) {
        case 'string':
          return Array.isArray(schema.enum) && random() < 0.5 ? pick(schema.enum) : pick(STRINGS)
        case 'integer':
          return pick([0, 1, -1, 5, 2 ** 31, -(2 ** 53), '3', '-2', '1.5'])
        case 'boolean':
          return pick([true, false, 'true', 'false', 'yes', 1])
        case 'array':
          return Array.from({ length: Math.floor(random() * 4) }, () =>
            random() < 0.8 ? argsFor((schema.items ?? {}) as Record<string, unknown>) : anyValue(),
          )
        default:
          return anyValue()
      }
    }
    const argsFor = (schema: Record<string, unknown>): Record<string, unknown> => {
      const out: Record<string, unknown> = {}
      const props = (schema.properties ?? {}) as Record<string, Record<string, unknown>>
      for (const [name, sub] of Object.entries(props)) {
        if (random() < 0.7) out[name] = valueFor(sub)
      }
      if (random() < 0.1) out[pick(['bogus', '__proto__', 'constructor', ''])] = anyValue()
      return out
    }

    const N = 100_000
    const BATCH = 250
    let errors = 0
    for (let start = 0; start < N; start += BATCH) {
      const calls = []
      for (let i = start; i < Math.min(N, start + BATCH); i++) {
        const tool = pick(tools)
        const args: unknown = random() < 0.03 ? anyValue() : argsFor(tool.inputSchema)
        if (tool.name === 'bash' && args && typeof args === 'object' && !Array.isArray(args)) {
          // Random text is never run as a shell command: a real run gets a harmless one,
          // and most bash calls are made to fail validation so the fuzz stays fast.
          const a = args as Record<string, unknown>
          if (typeof a.command === 'string') a.command = 'true'
          if (random() < 0.97) a.timeout_ms = 'never'
        }
        const name = random() < 0.01 ? pick(['', 'nope', 'READ_FILE', '__proto__']) : tool.name
        calls.push(at.callTool(name, args as Record<string, unknown>))
      }
      for (const r of await Promise.all(calls)) {
        expect(typeof r.isError).toBe('boolean')
        expect(typeof r.text).toBe('string')
        if (r.isError) {
          errors++
          const env = JSON.parse(r.text)
          if (
            !CODES.has(env.error) ||
            typeof env.message !== 'string' ||
            env.error === 'internal'
          ) {
            throw new Error(`bad envelope (seed ${seed}): ${r.text}`)
          }
        }
      }
    }
    // Most random calls are wrong; some must also succeed, or the generator is broken.
    expect(errors).toBeGreaterThan(N / 10)
    expect(errors).toBeLessThan(N)
  }, 300_000)
})
