import type { SeedToolArgs as ToolArgs, SeedToolName as ToolName } from '../tool-types'

/** The arguments of each tool, by name (generated from the Rust input structs). */
export type { ToolArgs, ToolName }

/** `args` may be omitted for a tool with no required argument. */
type ArgsFor<N extends ToolName> =
  Record<never, never> extends ToolArgs[N] ? [args?: ToolArgs[N]] : [args: ToolArgs[N]]

/**
 * A tool name the compiler cannot know (a model's tool call): its arguments are checked at run
 * time. A literal name must be a known tool.
 */
type DynamicName<S extends string> = string extends S ? S : never

/**
 * Arguments typed only as a record (`Record<string, unknown>`, as the seed declares them; a
 * model's tool call): checked at run time. An object literal has no index signature, so it is
 * checked against its tool's own type instead.
 */
type RecordArgs<A> = string extends keyof A ? A : never

/** The stable error codes of every error envelope. */
export type ErrorCode =
  | 'invalid_input'
  | 'not_found'
  | 'not_a_file'
  | 'is_binary'
  | 'no_match'
  | 'ambiguous_match'
  | 'patch_failed'
  | 'io_error'
  | 'timeout'
  | 'output_limit'
  | 'too_large'
  | 'path_escape'
  | 'internal'

/** The resolved configuration every call runs under. `resolveConfig` returns it frozen. */
export interface ServerConfig {
  /** Absolute, resolved (not realpath'd) workspace directory. */
  readonly workspaceRoot: string
  /** Cap on the text of one successful result, in bytes (≥ 1024). */
  readonly maxOutputBytes: number
  /** Largest file read or edited, in bytes (≥ 1024). */
  readonly maxFileBytes: number
  /** Default `bash` timeout in milliseconds (≥ 1). */
  readonly bashTimeoutMs: number
  /** Largest `bash` timeout a call may ask for (≥ bashTimeoutMs); larger requests clamp. */
  readonly bashTimeoutMaxMs: number
  /** Whether an `rg` binary was found. Reported only: the search engine is always native. */
  readonly ripgrepAvailable: boolean
  /** Only the read tools are registered. */
  readonly readOnly: boolean
  /** Paths outside the workspace are refused with `path_escape`. */
  readonly confineToWorkspace: boolean
}

export interface AgentToolsOptions {
  /** The directory the tools work in (required); relative paths resolve against the cwd. */
  workspaceRoot: string
  /** Register only read_file, list_dir, glob and grep. Default false. */
  readOnly?: boolean
  /** Refuse paths outside the workspace. Default true. */
  confineToWorkspace?: boolean
  /** Default 131072 (DEFAULT_MAX_OUTPUT_BYTES); at least 1024. */
  maxOutputBytes?: number
  /** Default 20000000 (DEFAULT_MAX_FILE_BYTES); at least 1024. */
  maxFileBytes?: number
  /** Default 120000 (DEFAULT_BASH_TIMEOUT_MS); at least 1. */
  bashTimeoutMs?: number
  /** Default 600000 (DEFAULT_BASH_TIMEOUT_MAX_MS); at least bashTimeoutMs. */
  bashTimeoutMaxMs?: number
  /** Decides `config.ripgrepAvailable`; by default, whether `rg` is on PATH. */
  probeRipgrep?: () => boolean
}

/** What `dispatch` / `callTool` resolve to. On error, `text` is a JSON error envelope. */
export interface DispatchResult {
  isError: boolean
  text: string
}

/** One advertised tool. */
export interface ToolInfo {
  name: string
  description: string
  /** A JSON Schema object with `additionalProperties: false`. */
  inputSchema: Record<string, unknown>
}

/** A registered tool. Calling `handler` directly skips output bounding. */
export interface ToolDef extends ToolInfo {
  /** When true, the tool bounds its own output (dispatch does not cut it again). */
  bounded?: boolean
  /** Runs the tool; rejects with a ToolError on failure. */
  handler: (args: Record<string, unknown>, config: ServerConfig) => Promise<string>
}

export interface AgentTools {
  readonly config: ServerConfig
  listTools(): ToolInfo[]
  /** Runs a tool; its name and arguments are checked against the tool's own types. */
  callTool<N extends ToolName>(name: N, ...rest: ArgsFor<N>): Promise<DispatchResult>
  /**
   * Runs a known tool with arguments typed `Record<string, unknown>` (the seed's signature):
   * they are checked at run time.
   */
  callTool<N extends ToolName, A extends Record<string, unknown>>(
    name: N,
    args: A & RecordArgs<A>,
  ): Promise<DispatchResult>
  /** Runs a tool named at run time (from a model's tool call). */
  callTool<S extends string>(
    name: DynamicName<S>,
    args?: Record<string, unknown>,
  ): Promise<DispatchResult>
  /**
   * The seed's own signature, last: any name with any arguments compiles, as it did against
   * the seed's declarations (CONTRACT.md: "a TypeScript agent swaps only its import specifier
   * and everything ... keeps working"), a test of `not_found` or `invalid_input` included. The
   * typed signatures above come first, so editors still offer the tools' names and arguments.
   */
  callTool(name: string, args?: Record<string, unknown>): Promise<DispatchResult>
}

/** Resolves the options and returns the tool surface bound to them. Throws StartupError. */
export declare function createAgentTools(options: AgentToolsOptions): AgentTools

/** Validates and runs one tool call. Never rejects: failures resolve as `isError` results. */
export declare function dispatch<N extends ToolName>(
  name: N,
  args: ToolArgs[N],
  config: ServerConfig,
): Promise<DispatchResult>
/**
 * Runs a known tool with arguments typed `Record<string, unknown>` (the seed's signature): they
 * are checked at run time.
 */
export declare function dispatch<N extends ToolName, A extends Record<string, unknown>>(
  name: N,
  args: A & RecordArgs<A>,
  config: ServerConfig,
): Promise<DispatchResult>
/** Runs a tool named at run time (from a model's tool call). */
export declare function dispatch<S extends string>(
  name: DynamicName<S>,
  args: Record<string, unknown>,
  config: ServerConfig,
): Promise<DispatchResult>
/** The seed's own signature, last: any name with any arguments compiles, as it did there. */
export declare function dispatch(
  name: string,
  args: Record<string, unknown>,
  config: ServerConfig,
): Promise<DispatchResult>

/** The advertised surface for a config (read-only mode lists only the read tools). */
export declare function listTools(config: ServerConfig): ToolInfo[]

// The registry arrays are typed `ToolDef[]`, as the seed declares them, so code that stores them
// in a `ToolDef[]` compiles; at run time they are frozen (a push or an assignment throws).

/** Every tool, in registry order. Frozen at run time. */
export declare const tools: ToolDef[]
/** The non-mutating tools: read_file, list_dir, glob, grep. Frozen at run time. */
export declare const readOnlyTools: ToolDef[]
/** `readOnlyTools` when readOnly is true, else `tools` (frozen at run time). */
export declare function selectSurface(readOnly: boolean): ToolDef[]
/** Finds a tool by name within a surface (default: `tools`). */
export declare function getTool(name: string, surface?: readonly ToolDef[]): ToolDef | undefined

/** Applies defaults and floors; throws StartupError naming a bad setting. */
export declare function resolveConfig(options: AgentToolsOptions): ServerConfig

/**
 * Builds a config from flags (`--workspace <p>`, `--read-only`, `--allow-outside-workspace`)
 * and environment variables (`WORKSPACE_ROOT`, `READ_ONLY`, `ALLOW_OUTSIDE_WORKSPACE`,
 * `MAX_OUTPUT_BYTES`, `MAX_FILE_BYTES`, `BASH_TIMEOUT_MS`, `BASH_TIMEOUT_MAX_MS`). Flags win.
 */
export declare function buildConfig(
  argv?: readonly string[],
  env?: Record<string, string | undefined>,
  probe?: () => boolean,
): ServerConfig

/** Thrown synchronously for a bad configuration. */
export declare class StartupError extends Error {
  constructor(message: string)
  readonly name: 'StartupError'
}

/** The structured error a tool handler rejects with. */
export declare class ToolError extends Error {
  constructor(code: ErrorCode, message: string, fields?: Record<string, unknown>)
  readonly name: 'ToolError'
  readonly code: ErrorCode
  readonly fields: Record<string, unknown>
}

/** `{"error": code, "message": ..., ...fields}`; anything not a ToolError becomes `internal`. */
export declare function serializeError(err: unknown): string

/** Maps a Node fs error: ENOENT → not_found, EISDIR/ENOTDIR → not_a_file, else io_error. */
export declare function fsError(err: { code?: string; message?: string }, path: string): ToolError

/** Removes `.clarvis/bash-*` spill files older than 24 hours. Never rejects. */
export declare function sweepSpillDir(workspaceRoot: string): Promise<void>

export declare const DEFAULT_MAX_OUTPUT_BYTES: 131072
export declare const DEFAULT_MAX_FILE_BYTES: 20000000
export declare const DEFAULT_BASH_TIMEOUT_MS: 120000
export declare const DEFAULT_BASH_TIMEOUT_MAX_MS: 600000
