// The typings against the runtime, for each entry point (the package root and `/v0.1`): every
// value its .d.ts declares is exported by its CommonJS and ESM files (and nothing else is), the
// declared literal defaults are the runtime values, and the declared object shapes have exactly
// the runtime's keys. Each .d.ts also compiles on its own under --strict without skipLibCheck
// and without @types/node, as a consumer's tsc sees it.
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'
import native from '../binding.js'
import { tempDir } from './helpers'

const ENTRIES = [
  {
    label: 'index.d.ts (package root)',
    dts: 'index.d.ts',
    cjs: '../index.js',
    specifier: 'agent-tools-native',
    types: [
      'AbortSignalLike',
      'AgentTools',
      'AgentToolsOptions',
      'AnalyzeOptions',
      'BashCommand',
      'BashFacts',
      'ContentPart',
      'DispatchResult',
      'Elicit',
      'ElicitRequest',
      'ErrorCode',
      'ExtraToolArgs',
      'ExtraToolName',
      'Guard',
      'GuardContext',
      'GuardDecision',
      'ImagePart',
      'ParseFacts',
      'PathAccess',
      'PathFact',
      'Redirection',
      'ResponsesToolCallItem',
      'ResponsesToolCallOutputItem',
      'Segment',
      'ServerConfig',
      'SandboxMechanism',
      'SandboxMode',
      'Surface',
      'SurfaceAgentTools',
      'SurfaceToolArgs',
      'SurfaceToolName',
      'TextPart',
      'ToolArgs',
      'ToolCall',
      'ToolDef',
      'ToolInfo',
      'ToolName',
      'ToolResult',
      'Verdict',
      'WarnSink',
      'WidenedToolArgs',
    ],
    codes: 18,
    resultKeys: ['content', 'isError'],
    profile: 'current',
  },
  {
    label: 'v0.1/index.d.ts (seed contract)',
    dts: 'v0.1/index.d.ts',
    cjs: '../v0.1/index.js',
    specifier: 'agent-tools-native/v0.1',
    types: [
      'AgentTools',
      'AgentToolsOptions',
      'DispatchResult',
      'ErrorCode',
      'ServerConfig',
      'ToolArgs',
      'ToolDef',
      'ToolInfo',
      'ToolName',
    ],
    codes: 13,
    resultKeys: ['isError', 'text'],
    profile: 'seed',
  },
]

for (const entry of ENTRIES) {
  const api = createRequire(__filename)(entry.cjs)
  const { createAgentTools, resolveConfig, serializeError, ToolError, tools } = api
  const dts = join(__dirname, '..', entry.dts)
  const program = ts.createProgram([dts], {
    strict: true,
    noEmit: true,
    skipLibCheck: false,
    types: [],
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
  })
  const checker = program.getTypeChecker()
  const source = program.getSourceFile(dts)
  if (!source) throw new Error(`${entry.dts} did not load`)
  const moduleSymbol = checker.getSymbolAtLocation(source)
  if (!moduleSymbol) throw new Error(`${entry.dts} is not a module`)
  const exported = checker.getExportsOfModule(moduleSymbol)

  /** A re-export (`export { x } from './guard.js'`) counts as what it names. */
  const target = (s: ts.Symbol) =>
    s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s
  const declared = (flags: ts.SymbolFlags) =>
    exported
      .filter((s) => target(s).flags & flags)
      .map((s) => s.name)
      .sort()

  /** The property names of an exported interface or type alias. */
  const propertiesOf = (typeName: string): string[] => {
    const symbol = exported.find((s) => s.name === typeName)
    if (!symbol) throw new Error(`${entry.dts} does not export ${typeName}`)
    return checker
      .getDeclaredTypeOfSymbol(symbol)
      .getProperties()
      .map((p) => p.name)
      .sort()
  }

  const runtimeKeys = (value: object) => Object.keys(value).sort()

  /** The doc comment of an export, or of one member of an exported interface. */
  const docOf = (name: string, member?: string): string => {
    const symbol = exported.find((s) => s.name === name)
    if (!symbol) throw new Error(`${entry.dts} does not export ${name}`)
    const target = member
      ? checker.getDeclaredTypeOfSymbol(symbol).getProperty(member)
      : symbol.flags & ts.SymbolFlags.Alias
        ? checker.getAliasedSymbol(symbol)
        : symbol
    if (!target) throw new Error(`${name} has no member ${member}`)
    const declarations = target.getDeclarations() ?? []
    // An overloaded function: every overload's comment.
    return declarations
      .flatMap((d) => ts.getJSDocCommentsAndTags(d).map((c) => c.getText()))
      .join('\n')
      .replace(/\s*\n\s*\*\s?/g, ' ')
  }

  describe(entry.label, () => {
    // Type-checking @types/node takes several seconds on a busy machine.
    it('compiles on its own under --strict', { timeout: 120_000 }, () => {
      const diagnostics = ts.getPreEmitDiagnostics(program)
      expect(diagnostics.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'))).toEqual(
        [],
      )
    })

    it('declares exactly the values index.js and index.mjs export', async () => {
      const values = declared(ts.SymbolFlags.Value)
      const cjs = api
      expect(runtimeKeys(cjs)).toEqual(values)
      // The package's own name resolves through its exports map: `import` → the .mjs file.
      const esm = await import(entry.specifier)
      expect(runtimeKeys(esm).filter((k) => k !== 'default')).toEqual(values)
      expect(esm.default).toBe(cjs)
    })

    it('declares the documented types', () => {
      const types = declared(ts.SymbolFlags.Type & ~ts.SymbolFlags.Class)
      expect(types).toEqual([...entry.types].sort())
    })

    it('declares the defaults as their runtime values', () => {
      const defaults = Object.fromEntries(
        Object.entries(api).filter(([name]) => name.startsWith('DEFAULT_')),
      )
      expect(Object.keys(defaults).length).toBeGreaterThanOrEqual(4)
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
      // `surface`, `maxCharacters`, `extras`, `shell` and the sandbox keys are present only when set.
      const withSurface = resolveConfig({
        workspaceRoot: root,
        surface: 'anthropic',
        maxCharacters: 1000,
        ...(process.platform === 'linux'
          ? { sandbox: 'workspace-write', sandboxWritableRoots: [root] }
          : {}),
        extras: true,
        shell: 'sh',
      } as never)
      // The sandbox exists on Linux only: elsewhere resolveConfig refuses its keys, so a config
      // there never holds them (the typings declare them optional on every platform).
      const onThisPlatform = (k: string) => process.platform === 'linux' || !k.startsWith('sandbox')
      expect(propertiesOf('ServerConfig').filter(onThisPlatform)).toEqual(runtimeKeys(withSurface))
      expect(propertiesOf('AgentTools')).toEqual(runtimeKeys(agent))
      expect(propertiesOf('ToolInfo')).toEqual(runtimeKeys(agent.listTools()[0] ?? {}))
      for (const tool of tools) expect(propertiesOf('ToolDef')).toEqual(runtimeKeys(tool))
      const result = await agent.callTool('list_dir', {})
      expect(runtimeKeys(result)).toEqual(entry.resultKeys)
      // `meta` is optional; the root's `text` is a non-enumerable view of the content.
      const viewOnly = (k: string) =>
        k === 'meta' || (k === 'text' && !entry.resultKeys.includes(k))
      expect(propertiesOf('DispatchResult').filter((k) => !viewOnly(k))).toEqual(
        runtimeKeys(result),
      )
      expect(typeof result.text).toBe('string')
      const error = new ToolError('not_found', 'x', { path: 'a' })
      expect(runtimeKeys(error)).toEqual(['code', 'fields', 'name'])
    })

    it('declares every option resolveConfig reads (a bad value of each is refused by name)', () => {
      const root = tempDir()
      for (const option of propertiesOf('AgentToolsOptions')) {
        const bad = { workspaceRoot: root, [option]: option === 'workspaceRoot' ? 7 : 'wrong' }
        expect(() => resolveConfig(bad as never), option).toThrow(
          expect.objectContaining({
            name: 'StartupError',
            message: expect.stringContaining(option),
          }),
        )
      }
    })

    it("buildConfig's comment names every environment variable it reads", () => {
      const doc = docOf('buildConfig')
      const read: string[] = native.configEnvVars(entry.profile)
      expect(read).toContain('WORKSPACE_ROOT')
      for (const name of read) expect(doc, name).toContain(`\`${name}\``)
    })

    it("getTool's comment names its default surface, `tools`, where an extra is not found", () => {
      expect(docOf('getTool')).toContain('default: `tools`')
      expect(api.getTool('read_file')).toBe(tools[0])
      expect(api.getTool('monitor_send')).toBeUndefined()
    })

    it('declares the ErrorCode union the native side produces for its errors', () => {
      const symbol = exported.find((s) => s.name === 'ErrorCode')
      if (!symbol) throw new Error('ErrorCode is not declared')
      const union = checker.getDeclaredTypeOfSymbol(symbol)
      const codes = (union.isUnion() ? union.types : [union])
        .map((t) => (t.isStringLiteral() ? t.value : '?'))
        .sort()
      expect(codes).toHaveLength(entry.codes)
      // Every code a ToolError round-trips through serializeError unchanged.
      for (const code of codes) {
        const text = serializeError(new ToolError(code, 'm'))
        expect(JSON.parse(text)).toEqual({ error: code, message: 'm' })
      }
    })
  })
}

describe('index.d.ts comments say what the runtime does', () => {
  const dts = join(__dirname, '..', 'index.d.ts')
  const source = readFileSync(dts, 'utf8')
  const api = createRequire(__filename)('../index.js')
  /** The comment block right above the line holding `anchor`, its `*` gutters removed. */
  const commentAbove = (anchor: string) => {
    const at = source.indexOf(anchor)
    expect(at, anchor).toBeGreaterThan(0)
    const before = source.slice(0, at)
    const start = before.lastIndexOf('/**')
    return before
      .slice(start)
      .replace(/\s*\n\s*\*\s?/g, ' ')
      .replace(/\s+/g, ' ')
  }

  it('buildConfig names every flag the config parser reads (src/config.rs)', () => {
    const parser = readFileSync(join(__dirname, '..', 'src', 'config.rs'), 'utf8')
    const flags = [...new Set([...parser.matchAll(/"(--[a-z][a-z-]*)"/g)].map((m) => m[1]))]
    expect(flags).toContain('--no-extras')
    const doc = commentAbove('export declare function buildConfig(')
    for (const flag of flags) expect(doc, flag).toContain(`\`${flag}`)
    const root = tempDir()
    const config = api.buildConfig(['--workspace', root, '--surface', 'codex', '--shell', 'sh'], {})
    expect(config).toMatchObject({ surface: 'codex', shell: 'sh' })
    expect(api.buildConfig([`--workspace=${root}`, '--extras'], {}).extras).toBe(true)
  })

  it('DispatchResult.meta: an engine error has none, a surface error carries meta.error', async () => {
    const doc = commentAbove('  meta?: Record<string, unknown>\n  /**\n   * The text parts')
    expect(doc).toContain("An engine tool's error has none")
    expect(doc).toContain('`meta.error`')
    const root = tempDir()
    const engine = await api.dispatch(
      'read_file',
      { path: 'nope' },
      api.resolveConfig({ workspaceRoot: root }),
    )
    expect(engine.isError).toBe(true)
    expect(engine.meta).toBeUndefined()
    const surface = await api.dispatch(
      'Read',
      { file_path: 'nope' },
      api.resolveConfig({ workspaceRoot: root, surface: 'claude-code' }),
    )
    expect(surface.isError).toBe(true)
    expect(surface.meta).toEqual({ error: 'not_found' })
  })

  it('DispatchResult.text: a non-enumerable getter, which a copy loses', async () => {
    const doc = commentAbove('  readonly text: string\n}')
    expect(doc).toContain('non-enumerable')
    expect(doc).toContain('`{ ...r }`')
    const r = await api.dispatch('list_dir', {}, api.resolveConfig({ workspaceRoot: tempDir() }))
    expect(typeof r.text).toBe('string')
    expect(Object.getOwnPropertyDescriptor(r, 'text')?.enumerable).toBe(false)
    expect({ ...r }.text).toBeUndefined()
    expect(JSON.parse(JSON.stringify(r)).text).toBeUndefined()
  })
})

describe('tool-types.d.ts', () => {
  it('is what scripts/gen-types.mjs makes from the Rust input structs (run `npm run gen:types`)', () => {
    const r = spawnSync(
      process.execPath,
      [join(__dirname, '..', 'scripts', 'gen-types.mjs'), '--check'],
      {
        encoding: 'utf8',
      },
    )
    expect(r.stderr).toBe('')
    expect(r.status).toBe(0)
  })
})
