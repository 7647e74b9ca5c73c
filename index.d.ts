// The package root: the newest contract. The seed contract is `agent-tools-native/v0.1`.

import type {
  ExtraToolArgs,
  ExtraToolName,
  SurfaceToolArgs,
  ToolArgs,
  ToolName,
  WidenedToolArgs,
} from './tool-types'

/**
 * The arguments of each tool, by name, and of each vendor surface's tools (generated from the
 * Rust input structs).
 */
export type { ExtraToolArgs, ExtraToolName, SurfaceToolArgs, ToolArgs, ToolName, WidenedToolArgs }

/**
 * The arguments with `extras: true`: the contract's tools (some of them with more arguments)
 * and the tools beyond it.
 */
type AllToolArgs = Omit<ToolArgs, keyof WidenedToolArgs> & WidenedToolArgs & ExtraToolArgs

/** `args` may be omitted for a tool with no required argument (`monitor_list` has none). */
type ArgsFor<A, N extends keyof A> =
  Record<never, never> extends A[N] ? [args?: A[N]] : [args: A[N]]

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
  | 'not_an_image'
  | 'no_match'
  | 'ambiguous_match'
  | 'patch_failed'
  | 'io_error'
  | 'timeout'
  | 'aborted'
  | 'output_limit'
  | 'too_large'
  | 'path_escape'
  | 'denied'
  | 'monitor_not_found'
  | 'too_many_monitors'
  | 'internal'

/**
 * A vendor tool surface: the tool names, argument shapes and result formats an agent or model
 * family is trained on, over the same engine (see README, "Tool surfaces"). Generated with the
 * surfaces' tools (`SurfaceToolArgs`).
 */
export type Surface = keyof SurfaceToolArgs

/** The tool names of the surfaces, every surface together. */
export type SurfaceToolName = { [S in Surface]: keyof SurfaceToolArgs[S] }[Surface]

/** An `AbortSignal` (or anything shaped like one): aborting it cancels the call. */
export interface AbortSignalLike {
  readonly aborted: boolean
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void
  removeEventListener(type: 'abort', listener: () => void): void
}

/** A piece of text for the model. */
export interface TextPart {
  type: 'text'
  text: string
}

/** An image for the model: base64 `data` and its MIME type. */
export interface ImagePart {
  type: 'image'
  data: string
  mimeType: string
}

export type ContentPart = TextPart | ImagePart

/** What a handler resolves to: a string (one text part) or content with an optional `meta`. */
export interface ToolResult {
  content: string | ContentPart[]
  /** A sidecar for the host (e.g. `diff`); never shown to the model. */
  meta?: Record<string, unknown>
}

/** Receives every diagnostic line (`clarvis-agent-tools: …\n`). */
export type WarnSink = (message: string) => void

// The guard's types and helpers live in guard.d.ts (also served at `agent-tools-native/guard`).
import type { Elicit, Guard } from './guard.js'

export type {
  AnalyzeOptions,
  BashCommand,
  BashFacts,
  Elicit,
  ElicitRequest,
  Guard,
  GuardContext,
  GuardDecision,
  ParseFacts,
  PathAccess,
  PathFact,
  Redirection,
  Segment,
  Verdict,
} from './guard.js'
export {
  analyzeBash,
  buildGuardContext,
  commandsIn,
  touchesOutside,
  withinWorkspace,
} from './guard.js'

/**
 * The resolved configuration every call runs under. `resolveConfig` returns a plain object here
 * (CONTRACT-v0.5-wording §3: not frozen); the `/v0.1` entry's is frozen.
 */
export interface ServerConfig {
  /** Absolute, resolved (not realpath'd) workspace directory. */
  readonly workspaceRoot: string
  /** Cap on the text of one successful result, in bytes (≥ 1024). */
  readonly maxOutputBytes: number
  /** The inline budget of bash's two streams, in bytes (≥ 1024). */
  readonly maxBashOutputBytes: number
  /** Largest file read or edited, in bytes (≥ 1024). */
  readonly maxFileBytes: number
  /** Largest image read_image returns, in bytes (≥ 1024). */
  readonly maxImageBytes: number
  /** Default `bash` timeout in milliseconds (≥ 1). */
  readonly bashTimeoutMs: number
  /** Largest `bash` timeout a call may ask for (≥ bashTimeoutMs); larger requests clamp. */
  readonly bashTimeoutMaxMs: number
  /** How long monitor_start waits for `ready_when` by default (≥ 1). */
  readonly monitorReadyTimeoutMs: number
  /** How many monitors may be live at once (≥ 1). */
  readonly maxMonitors: number
  /** Whether an `rg` binary was found. Reported only: the search engine is always native. */
  readonly ripgrepAvailable: boolean
  /** Whether outline and check_syntax are offered and writes get syntax warnings. */
  readonly treeSitterAvailable: boolean
  /** Only the read tools are registered. */
  readonly readOnly: boolean
  /** Paths outside the workspace are refused with `path_escape`. */
  readonly confineToWorkspace: boolean
  /** The tools beyond the contract are offered (absent: the contract's tools only). */
  readonly extras?: boolean
  /** The vendor tool surface offered (absent: the engine's own tools). */
  readonly surface?: Surface
  /** The `anthropic` surface's `max_characters` (view output cut past it), when set. */
  readonly maxCharacters?: number
  /** The shell the `bash` tool runs commands with, when set (absent: `sh`). */
  readonly shell?: string
  /** What bash and the monitors may write (absent: off). */
  readonly sandbox?: SandboxMode
  /** Whether sandboxed commands may use TCP/UDP; present once the sandbox is on. */
  readonly sandboxNetwork?: boolean
  /** More directories sandboxed commands may write beneath, when given. */
  readonly sandboxWritableRoots?: readonly string[]
  /** The mechanism enforcing the sandbox (`resolveConfig` names the one in use). */
  readonly sandboxMechanism?: SandboxMechanism
  /** Decides whether each call runs (optional). */
  readonly guard: Guard | undefined
  /** Asked when the guard answers `ask` (optional). */
  readonly elicit: Elicit | undefined
}

/**
 * The kernel-enforced sandbox of bash and the monitors (Linux): `read-only` allows no writes
 * but /dev/null; `workspace-write` allows writes beneath the workspace, the temp directory
 * and `sandboxWritableRoots` (with the workspace's .git/hooks and .git/config read-only).
 */
export type SandboxMode = 'off' | 'read-only' | 'workspace-write'
/** `auto`: a mount namespace where the kernel allows it, else Landlock + seccomp alone. */
export type SandboxMechanism = 'auto' | 'namespaces' | 'landlock'

export interface AgentToolsOptions {
  /** The directory the tools work in (required); relative paths resolve against the cwd. */
  workspaceRoot: string
  /** Register only the read tools. Default false. */
  readOnly?: boolean
  /** Refuse paths outside the workspace. Default true. */
  confineToWorkspace?: boolean
  /** Default 131072 (DEFAULT_MAX_OUTPUT_BYTES); at least 1024. */
  maxOutputBytes?: number
  /** Default 16384 (DEFAULT_MAX_BASH_OUTPUT_BYTES); at least 1024. */
  maxBashOutputBytes?: number
  /** Default 20000000 (DEFAULT_MAX_FILE_BYTES); at least 1024. */
  maxFileBytes?: number
  /** Default 5000000 (DEFAULT_MAX_IMAGE_BYTES); at least 1024. */
  maxImageBytes?: number
  /** Default 120000 (DEFAULT_BASH_TIMEOUT_MS); at least 1. */
  bashTimeoutMs?: number
  /** Default 600000 (DEFAULT_BASH_TIMEOUT_MAX_MS); at least bashTimeoutMs. */
  bashTimeoutMaxMs?: number
  /** Default 30000 (DEFAULT_MONITOR_READY_TIMEOUT_MS); at least 1. */
  monitorReadyTimeoutMs?: number
  /** Default 32 (DEFAULT_MAX_MONITORS); at least 1. */
  maxMonitors?: number
  /** Decides `config.ripgrepAvailable`; by default, whether `rg` is on PATH. */
  probeRipgrep?: () => boolean
  /** Decides `config.treeSitterAvailable`; by default true (the grammars are built in). */
  probeTreeSitter?: () => boolean
  /** Decides whether each call runs. */
  guard?: Guard
  /** Asked when the guard answers `ask`. */
  elicit?: Elicit
  /**
   * Also offer the tools beyond the contract (`monitor_send`, ...). Default false, so the tool
   * list is exactly the contract's; the CLI and the MCP server turn it on (`--no-extras` off).
   */
  extras?: boolean
  /** Offer a vendor's tool surface instead of the engine's tool names. Default: none. */
  surface?: 'codex' | 'claude-code' | 'cyberpaw' | 'anthropic' | 'openai'
  /**
   * The `anthropic` surface's `max_characters` (a parameter of Anthropic's
   * `text_editor_20250728`): `view` output is cut past this many characters. At least 1.
   */
  maxCharacters?: number
  /**
   * The shell the contract's `bash` tool runs commands with, as `<shell> -c <command>`: a
   * program name on PATH or a path, e.g. `'bash'`. Default `sh`, as the contract says (on
   * Debian that is dash: no `[[ ]]`, no `{1..3}`). The vendor surfaces' shell tools choose their
   * own (`bash` for claude-code `Bash` and anthropic `bash`). One that is not installed is a
   * `StartupError`.
   */
  shell?: string
  /**
   * The kernel-enforced sandbox of bash and the monitors (Linux only). Default `'off'` in the
   * library; the CLI and the MCP server default to `'workspace-write'` with the network on.
   * resolveConfig throws a StartupError when the kernel cannot enforce it.
   */
  sandbox?: SandboxMode
  /** Whether sandboxed commands may use TCP/UDP. Default false once the sandbox is on. */
  sandboxNetwork?: boolean
  /** More absolute directories sandboxed commands may write beneath (workspace-write). */
  sandboxWritableRoots?: string[]
  /** How the sandbox is enforced. Default `'auto'`: namespaces, else Landlock + seccomp. */
  sandboxMechanism?: SandboxMechanism
}

/**
 * What `dispatch` / `callTool` resolve to. On error, the one text part is a JSON envelope (with
 * a vendor `surface`, the vendor's message, its code in `meta.error`).
 */
export interface DispatchResult {
  isError: boolean
  content: ContentPart[]
  /**
   * A sidecar for the host (e.g. `diff` of an edit, `width` and `height` of read_image with
   * `extras`); never shown to the model. An engine tool's error has none; a vendor surface's
   * error carries its code here (`meta.error`, e.g. `not_found`, `denied`).
   */
  meta?: Record<string, unknown>
  /**
   * The text parts joined, for code written against the seed contract. A non-enumerable
   * getter: the result's enumerable keys stay `isError`, `content` and `meta`, so a copy
   * (`{ ...r }`, `Object.assign`, `structuredClone`) or `JSON.stringify(r)` loses it; use
   * `contentText(r.content)` on a copy.
   */
  readonly text: string
}

/** One advertised tool. */
export interface ToolInfo {
  name: string
  description: string
  /** A JSON Schema object. */
  inputSchema: Record<string, unknown>
}

/** A registered tool. Calling `handler` directly skips validation's bounding. */
export interface ToolDef extends ToolInfo {
  /** When true, the tool bounds its own output (dispatch does not cut it again). */
  bounded?: boolean
  /** Runs the tool; rejects with a ToolError on failure. */
  handler: (
    args: Record<string, unknown>,
    config: ServerConfig,
    signal?: AbortSignalLike,
  ) => Promise<string | ToolResult>
}

/**
 * The tools object. `A` is the arguments of the tools it offers by name: the contract's, or with
 * `extras: true` the tools beyond it too.
 */
export interface AgentTools<A extends object = ToolArgs> {
  readonly config: ServerConfig
  listTools(): ToolInfo[]
  /** Runs a tool; its name and arguments are checked against the tool's own types. */
  callTool<N extends keyof A & string>(
    name: N,
    ...rest: [...ArgsFor<A, N>, options?: { signal?: AbortSignalLike }]
  ): Promise<DispatchResult>
  /**
   * Runs a known tool with arguments typed `Record<string, unknown>` (the seed's signature):
   * they are checked at run time.
   */
  callTool<N extends keyof A & string, R extends Record<string, unknown>>(
    name: N,
    args: R & RecordArgs<R>,
    options?: { signal?: AbortSignalLike },
  ): Promise<DispatchResult>
  /** Runs a tool named at run time (from a model's tool call). */
  callTool<S extends string>(
    name: DynamicName<S>,
    args?: Record<string, unknown>,
    options?: { signal?: AbortSignalLike },
  ): Promise<DispatchResult>
}

/**
 * What `createAgentTools` adds when the options' `surface` is not known at compile time (options
 * typed `AgentToolsOptions`): a surface tool's literal name is accepted too, its arguments
 * checked at run time.
 */
interface AnySurfaceCalls<A extends object> {
  /** Runs a tool of the configured `surface` (its arguments are checked at run time). */
  callTool(
    name: Exclude<SurfaceToolName, keyof A>,
    args?: Record<string, unknown>,
    options?: { signal?: AbortSignalLike },
  ): Promise<DispatchResult>
}

/** `args` may be omitted for a surface tool with no required argument. */
type SurfaceArgsFor<S extends Surface, N extends keyof SurfaceToolArgs[S]> = ArgsFor<
  SurfaceToolArgs[S],
  N
>

/** The tools object of a vendor surface: its own tool names and argument shapes are checked. */
export interface SurfaceAgentTools<S extends Surface> {
  readonly config: ServerConfig
  listTools(): ToolInfo[]
  /** Runs one of the surface's tools; its name and arguments are checked. */
  callTool<N extends keyof SurfaceToolArgs[S] & string>(
    name: N,
    ...rest: [...SurfaceArgsFor<S, N>, options?: { signal?: AbortSignalLike }]
  ): Promise<DispatchResult>
  /** Runs one of the surface's tools with arguments typed `Record<string, unknown>`. */
  callTool<N extends keyof SurfaceToolArgs[S] & string, R extends Record<string, unknown>>(
    name: N,
    args: R & RecordArgs<R>,
    options?: { signal?: AbortSignalLike },
  ): Promise<DispatchResult>
  /** Runs a tool named at run time (from a model's tool call). */
  callTool<X extends string>(
    name: DynamicName<X>,
    args?: Record<string, unknown>,
    options?: { signal?: AbortSignalLike },
  ): Promise<DispatchResult>
}

/**
 * Resolves the options and returns the tool surface bound to them. Throws StartupError. With a
 * literal `surface`, the tools object checks that surface's tool names and arguments; with no
 * `surface`, a surface tool's name does not compile; with options whose `surface` is not known
 * at compile time, a surface tool's name is accepted (and checked at run time).
 */
export declare function createAgentTools<S extends Surface>(
  options: AgentToolsOptions & { surface: S },
): SurfaceAgentTools<S>
export declare function createAgentTools(
  options: AgentToolsOptions & { extras: true; surface?: undefined },
): AgentTools<AllToolArgs>
export declare function createAgentTools(
  options: AgentToolsOptions & { surface?: undefined },
): AgentTools
export declare function createAgentTools(
  options: AgentToolsOptions & { extras: true },
): AgentTools<AllToolArgs> & AnySurfaceCalls<AllToolArgs>
export declare function createAgentTools(
  options: AgentToolsOptions,
): AgentTools & AnySurfaceCalls<ToolArgs>

/**
 * Runs a tool of a vendor surface, for a config whose `surface` is known at compile time
 * (`resolveConfig({ ..., surface: 'claude-code' })`): the surface's names and arguments are
 * checked.
 */
export declare function dispatch<S extends Surface, N extends keyof SurfaceToolArgs[S] & string>(
  name: N,
  args: SurfaceToolArgs[S][N],
  config: ServerConfig & { readonly surface: S },
  signal?: AbortSignalLike,
): Promise<DispatchResult>
/** Runs a surface's tool with arguments typed `Record<string, unknown>` (checked at run time). */
export declare function dispatch<
  S extends Surface,
  N extends keyof SurfaceToolArgs[S] & string,
  R extends Record<string, unknown>,
>(
  name: N,
  args: R & RecordArgs<R>,
  config: ServerConfig & { readonly surface: S },
  signal?: AbortSignalLike,
): Promise<DispatchResult>
/**
 * Validates and runs one tool call. Never rejects: failures resolve as `isError` results.
 * Aborting `signal` kills a running command and stops a walk.
 */
export declare function dispatch<N extends ToolName | ExtraToolName>(
  name: N,
  args: AllToolArgs[N],
  config: ServerConfig,
  signal?: AbortSignalLike,
): Promise<DispatchResult>
/**
 * Runs a known tool with arguments typed `Record<string, unknown>` (the seed's signature): they
 * are checked at run time.
 */
export declare function dispatch<
  N extends ToolName | ExtraToolName,
  R extends Record<string, unknown>,
>(
  name: N,
  args: R & RecordArgs<R>,
  config: ServerConfig,
  signal?: AbortSignalLike,
): Promise<DispatchResult>
/** Runs a tool named at run time (from a model's tool call). */
export declare function dispatch<S extends string>(
  name: DynamicName<S>,
  args: Record<string, unknown>,
  config: ServerConfig,
  signal?: AbortSignalLike,
): Promise<DispatchResult>

/** A call of a known tool, its arguments typed (omittable when none is required). */
type KnownCall = {
  [N in keyof AllToolArgs]: Record<never, never> extends AllToolArgs[N]
    ? { name: N; args?: AllToolArgs[N] }
    : { name: N; args: AllToolArgs[N] }
}[keyof AllToolArgs]

/**
 * One call of a batch: a known tool with its typed arguments, or a name known only at run time
 * (arguments checked then). As an annotation it admits any name; `dispatchMany` itself checks
 * each call's literal name and arguments as `dispatch` does.
 */
export type ToolCall = KnownCall | { name: string; args?: Record<string, unknown> }

/** `X`'s keys that `T` lacks, each typed `never`: an unknown argument does not compile. */
type NoExtraKeys<X, T> = { [K in Exclude<keyof X, keyof T>]: never }

/**
 * What one call `C` of a `dispatchMany` batch must be. A name known only at run time (`string`)
 * takes any object, as `dispatch` does; a literal name must be a tool's (with its extras), and
 * its arguments that tool's with no unknown key (or typed `Record<string, unknown>`, checked at
 * run time, as `dispatch` takes them); any other literal name resolves to `never`.
 */
type CheckedCall<C> = C extends { name: infer N extends string }
  ? string extends N
    ? { name: N; args?: Record<string, unknown> }
    : N extends keyof AllToolArgs
      ? C extends { args: infer X }
        ? string extends keyof X
          ? { name: N; args: X }
          : { name: N; args: AllToolArgs[N] & NoExtraKeys<X, AllToolArgs[N]> }
        : Extract<KnownCall, { name: N }>
      : { name: keyof AllToolArgs }
  : KnownCall

/**
 * Runs many calls in one crossing: resolves once, with each call's result in order — exactly
 * what `dispatch` gives for it. With `config.guard` set, each call goes through `dispatch` so
 * the guard sees every one. Aborting `signal` aborts every call. Rejects only when `calls` is
 * not an array. A literal tool name and its arguments are checked as `dispatch` checks them.
 */
export declare function dispatchMany<
  N extends string,
  C extends readonly { name: N; args?: unknown }[] | [],
>(
  calls: C & { [I in keyof C]: CheckedCall<C[I]> },
  config: ServerConfig,
  signal?: AbortSignalLike,
): Promise<DispatchResult[]>

/** The advertised surface for a config. */
export declare function listTools(config: ServerConfig): ToolInfo[]

// The registry arrays are typed `ToolDef[]`, as the seed declares them, so code that stores them
// in a `ToolDef[]` compiles; at run time they are frozen (a push or an assignment throws).

/**
 * The contract's tools, in registry order (the tools beyond it are not here). Frozen at run
 * time.
 */
export declare const tools: ToolDef[]
/** The non-mutating tools. Frozen at run time. */
export declare const readOnlyTools: ToolDef[]
/**
 * `readOnlyTools` when readOnly is true, else `tools`; less outline and check_syntax without
 * tree-sitter; with `extras`, the tools beyond the contract too. Frozen at run time.
 */
export declare function selectSurface(
  readOnly: boolean,
  treeSitterAvailable?: boolean,
  extras?: boolean,
): ToolDef[]
/**
 * Finds a tool by name within a surface (default: `tools`, the contract's tools only: pass
 * `selectSurface(false, true, true)` to find a tool beyond the contract).
 */
export declare function getTool(name: string, surface?: readonly ToolDef[]): ToolDef | undefined

/**
 * Applies defaults and floors; throws StartupError naming a bad setting. With a literal
 * `surface`, the config's type names it, so `dispatch` checks that surface's tools.
 */
export declare function resolveConfig<S extends Surface>(
  options: AgentToolsOptions & { surface: S },
): ServerConfig & { readonly surface: S }
export declare function resolveConfig(options: AgentToolsOptions): ServerConfig

/**
 * Builds a config from flags and environment variables. Flags win.
 *
 * Flags: `--workspace <p>` (or `--workspace=<p>`), `--read-only`, `--allow-outside-workspace`,
 * `--extras`, `--no-extras`, `--surface <name>`, `--shell <program>`, `--sandbox <mode>`,
 * `--sandbox-network`, `--no-sandbox-network`, `--sandbox-writable-root <dir>` (repeatable)
 * and `--sandbox-mechanism <m>` (the valued `--surface`, `--shell` and `--sandbox*` flags also
 * as `--flag=<value>`).
 *
 * Environment variables: `WORKSPACE_ROOT`, `READ_ONLY`, `ALLOW_OUTSIDE_WORKSPACE`,
 * `MAX_OUTPUT_BYTES`, `MAX_BASH_OUTPUT_BYTES`, `MAX_FILE_BYTES`, `MAX_IMAGE_BYTES`,
 * `BASH_TIMEOUT_MS`, `BASH_TIMEOUT_MAX_MS`, `MONITOR_READY_TIMEOUT_MS`, `MAX_MONITORS`,
 * `BASH_SHELL`, `SANDBOX`, `SANDBOX_NETWORK`, `SANDBOX_WRITABLE_ROOTS` (a path list) and
 * `SANDBOX_MECHANISM`.
 */
export declare function buildConfig(
  argv?: readonly string[],
  env?: Record<string, string | undefined>,
  probe?: () => boolean,
  probeTreeSitter?: () => boolean,
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

/** The text parts joined with no separator; images are skipped. */
export declare function contentText(content: string | readonly ContentPart[]): string

/** Routes every diagnostic line; `null` restores the default (stderr). */
export declare function setWarnSink(sink: WarnSink | null): void

/** An OpenAI Responses API `apply_patch_call` or `shell_call` output item (the fields read). */
export type ResponsesToolCallItem =
  | {
      type: 'apply_patch_call'
      call_id: string
      operation:
        | { type: 'create_file'; path: string; diff: string }
        | { type: 'update_file'; path: string; diff: string }
        | { type: 'delete_file'; path: string }
    }
  | {
      type: 'shell_call'
      call_id: string
      action: {
        commands: string[]
        timeout_ms?: number | null
        max_output_length?: number | null
      }
    }

/** The Responses API input item answering a call. */
export type ResponsesToolCallOutputItem =
  | {
      type: 'apply_patch_call_output'
      call_id: string
      status: 'completed' | 'failed'
      output: string
    }
  | {
      type: 'shell_call_output'
      call_id: string
      output: Array<{
        stdout: string
        stderr: string
        outcome: { type: 'exit'; exit_code: number } | { type: 'timeout' }
      }>
      max_output_length: number | null
    }

/** The `openai` surface's call for a Responses API item; throws TypeError for other items. */
export declare function responsesCall(item: ResponsesToolCallItem): {
  /** `apply_patch` or `shell`. */
  name: string
  args: Record<string, unknown>
}

/** The `*_call_output` item answering `item` with a `callTool` result. */
export declare function responsesOutput(
  item: ResponsesToolCallItem,
  result: DispatchResult,
): ResponsesToolCallOutputItem

/** Removes `.clarvis/bash-*` spill files older than 24 hours. Never rejects. */
export declare function sweepSpillDir(workspaceRoot: string): Promise<void>

/**
 * Deletes the `.clarvis/monitor-*` files of every monitor that is not running and leaves live
 * ones alone. Never rejects.
 */
export declare function sweepMonitors(workspaceRoot: string): Promise<void>

export declare const DEFAULT_MAX_OUTPUT_BYTES: 131072
export declare const DEFAULT_MAX_BASH_OUTPUT_BYTES: 16384
export declare const DEFAULT_MAX_FILE_BYTES: 20000000
export declare const DEFAULT_MAX_IMAGE_BYTES: 5000000
export declare const DEFAULT_BASH_TIMEOUT_MS: 120000
export declare const DEFAULT_BASH_TIMEOUT_MAX_MS: 600000
export declare const DEFAULT_MONITOR_READY_TIMEOUT_MS: 30000
export declare const DEFAULT_MAX_MONITORS: 32
