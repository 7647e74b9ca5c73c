// The typings against the runtime: every value index.d.ts declares is exported by index.js and
// index.mjs (and nothing else is), the declared literal defaults are the runtime values, and the
// declared object shapes have exactly the runtime's keys. index.d.ts also compiles on its own
// under --strict without skipLibCheck, as a consumer's tsc sees it.
import { createRequire } from 'node:module'
import { join } from 'node:path'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'
import {
  createAgentTools,
  DEFAULT_BASH_TIMEOUT_MAX_MS,
  DEFAULT_BASH_TIMEOUT_MS,
  DEFAULT_MAX_FILE_BYTES,
  DEFAULT_MAX_OUTPUT_BYTES,
  type ErrorCode,
  resolveConfig,
  serializeError,
  ToolError,
  tools,
} from '../index.js'
import { tempDir } from './helpers'

const dts = join(__dirname, '..', 'index.d.ts')
const program = ts.createProgram([dts], {
  strict: true,
  noEmit: true,
  skipLibCheck: false,
  types: ['node'],
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
})
const checker = program.getTypeChecker()
const source = program.getSourceFile(dts)
if (!source) throw new Error('index.d.ts did not load')
const moduleSymbol = checker.getSymbolAtLocation(source)
if (!moduleSymbol) throw new Error('index.d.ts is not a module')
const exported = checker.getExportsOfModule(moduleSymbol)

const declared = (flags: ts.SymbolFlags) =>
  exported
    .filter((s) => s.flags & flags)
    .map((s) => s.name)
    .sort()

/** The property names of an exported interface or type alias. */
function propertiesOf(typeName: string): string[] {
  const symbol = exported.find((s) => s.name === typeName)
  if (!symbol) throw new Error(`index.d.ts does not export ${typeName}`)
  return checker
    .getDeclaredTypeOfSymbol(symbol)
    .getProperties()
    .map((p) => p.name)
    .sort()
}

const runtimeKeys = (value: object) => Object.keys(value).sort()

describe('index.d.ts against the runtime', () => {
  // Type-checking @types/node takes several seconds on a busy machine.
  it('compiles on its own under --strict', { timeout: 120_000 }, () => {
    const diagnostics = ts.getPreEmitDiagnostics(program)
    expect(diagnostics.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'))).toEqual([])
  })

  it('declares exactly the values index.js and index.mjs export', async () => {
    const values = declared(ts.SymbolFlags.Value)
    const cjs = createRequire(__filename)('../index.js')
    expect(runtimeKeys(cjs)).toEqual(values)
    // The package's own name resolves through its exports map: `import` → index.mjs.
    const esm = await import('agent-tools-native')
    expect(runtimeKeys(esm).filter((k) => k !== 'default')).toEqual(values)
    expect(esm.default).toBe(cjs)
  })

  it('declares the documented types', () => {
    const types = declared(ts.SymbolFlags.Type & ~ts.SymbolFlags.Class)
    expect(types).toEqual(
      [
        'AgentTools',
        'AgentToolsOptions',
        'DispatchResult',
        'ErrorCode',
        'ServerConfig',
        'ToolDef',
        'ToolInfo',
      ].sort(),
    )
  })

  it('declares the defaults as their runtime values', () => {
    const defaults = {
      DEFAULT_MAX_OUTPUT_BYTES,
      DEFAULT_MAX_FILE_BYTES,
      DEFAULT_BASH_TIMEOUT_MS,
      DEFAULT_BASH_TIMEOUT_MAX_MS,
    }
    for (const [name, value] of Object.entries(defaults)) {
      const symbol = exported.find((s) => s.name === name)
      if (!symbol) throw new Error(`${name} is not declared`)
      const type = checker.getTypeOfSymbol(symbol)
      expect(type.isNumberLiteral() && type.value, name).toBe(value)
    }
  })

  it('declares the runtime keys of ServerConfig, ToolDef, ToolInfo, DispatchResult, AgentTools', async () => {
    const root = tempDir()
    const agent = createAgentTools({ workspaceRoot: root })
    expect(propertiesOf('ServerConfig')).toEqual(runtimeKeys(agent.config))
    expect(propertiesOf('AgentTools')).toEqual(runtimeKeys(agent))
    expect(propertiesOf('ToolInfo')).toEqual(runtimeKeys(agent.listTools()[0] ?? {}))
    for (const tool of tools) expect(propertiesOf('ToolDef')).toEqual(runtimeKeys(tool))
    const result = await agent.callTool('list_dir', {})
    expect(propertiesOf('DispatchResult')).toEqual(runtimeKeys(result))
    const error = new ToolError('not_found', 'x', { path: 'a' })
    expect(runtimeKeys(error)).toEqual(['code', 'fields', 'name'])
  })

  it('declares every option resolveConfig reads (a bad value of each is refused by name)', () => {
    const root = tempDir()
    for (const option of propertiesOf('AgentToolsOptions')) {
      const bad = { workspaceRoot: root, [option]: option === 'workspaceRoot' ? 7 : 'wrong' }
      expect(() => resolveConfig(bad as never), option).toThrow(
        expect.objectContaining({ name: 'StartupError', message: expect.stringContaining(option) }),
      )
    }
  })

  it('declares the ErrorCode union the native side produces for its errors', () => {
    const symbol = exported.find((s) => s.name === 'ErrorCode')
    if (!symbol) throw new Error('ErrorCode is not declared')
    const union = checker.getDeclaredTypeOfSymbol(symbol)
    const codes = (union.isUnion() ? union.types : [union])
      .map((t) => (t.isStringLiteral() ? t.value : '?'))
      .sort()
    expect(codes).toHaveLength(13)
    // Every code a ToolError round-trips through serializeError unchanged.
    for (const code of codes) {
      const text = serializeError(new ToolError(code as ErrorCode, 'm'))
      expect(JSON.parse(text)).toEqual({ error: code, message: 'm' })
    }
  })
})
