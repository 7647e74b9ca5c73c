import type { ServerConfig } from './index.js'

/** A guard's answer: run the tool, refuse it, or ask (through `elicit`). */
export type Verdict = 'allow' | 'deny' | 'ask'

export interface GuardDecision {
  verdict: Verdict
  /** Shown to the model in the `denied` envelope (default `blocked by guard`). */
  reason?: string
}

/** One segment of a command, split on `&&`, `||`, `;`, `|`, `&` and newlines. */
export interface Segment {
  /** The segment's source text, trimmed. */
  command: string
  /** Its tokens, quotes removed, with leading assignments and wrappers (`timeout`, `time`,
   * `nice`, `nohup`, `stdbuf`) stripped. Redirection operators stay in. */
  argv: string[]
  /** `argv.join(" ")`. */
  normalized: string
  /** False on unbalanced quotes or a dynamic construct (substitution, variable, eval-like word). */
  decidable: boolean
}

/** A simple command as bash would run it (additive: from the real parser). */
export interface BashCommand {
  /** The expanded words; `null` where a value is not known (a substitution, an unset variable). */
  argv: (string | null)[]
  /** The directory it runs in: `.` (where the command starts), `~`-based, absolute, or relative
   * to the start; `null` when unknown. */
  cwd: string | null
  /** How it is reached, outermost first: `sudo`, `bash -c`, `$(…)`, `find -exec`, `xargs`, ... */
  via: string[]
}

/** A path a command uses, and how (additive). */
export interface PathAccess {
  /** As written, after quote removal and known expansions. */
  path: string
  /** Resolved against the command's directory (lexically; `~` kept). */
  resolved: string
  /** `arg` is an operand of a command the analyzer has no table for. */
  kind: 'read' | 'write' | 'exec' | 'cd' | 'arg'
  /** Absolute, resolved physically as the kernel will (symlinks followed, `..` from where a
   * symlink leads); only with `workspaceRoot`, and `null` where the directory is unknown. */
  physical?: string | null
}

/**
 * What the parse decides (additive): the facts `commandsIn`, `touchesOutside` and
 * `withinWorkspace` are drawn from for bash.
 */
export interface ParseFacts {
  /** Every simple command that can run, each as the contract normalizes a segment: inside
   * subshells, brace groups, functions (a call runs the body), substitutions, `bash -c` strings,
   * `find -exec`, and behind wrappers (`sudo`, `env`, `command`, ...: both lines). A word whose
   * value is not known shows what is known of it and `…`. */
  segments: string[]
  /** Every path the command may touch (option values, brace alternatives, redirections, paths
   * after a `cd`, ...): absolute and physical with `workspaceRoot`, else resolved lexically. */
  paths: string[]
  /** Those of `paths` outside the workspace (without `workspaceRoot`: absolute, `~` or `..`
   * paths). `/dev/null`, `/dev/stdin`, `/dev/stdout`, `/dev/stderr` never count. */
  outside: string[]
  /** True when anything could not be decided (`eval`, an unknown value in a path, a shell
   * reading its input, a NUL byte, input too large or too deep to analyze, ...). */
  undecidable: boolean
  /** Why the parse is undecidable. */
  reasons: string[]
}

/** Where `analyzeBash` resolves paths physically (both optional). */
export interface AnalyzeOptions {
  /** The workspace root: paths are resolved physically and checked against it. */
  workspaceRoot?: string
  /** The directory the command starts in (relative to the root, or absolute). */
  cwd?: string
}

/** A redirection (additive). */
export interface Redirection {
  fd: number | null
  op: '<' | '>' | '>>' | '<>' | '>|' | '<&' | '>&' | '&>' | '&>>' | '<<' | '<<-' | '<<<'
  /** The file, or the fd for duplications; `null` for here-documents and unknown targets. */
  target: string | null
}

/**
 * Facts about a shell command. The first three keys are the contract's and the only enumerable
 * ones; the rest is read-only detail from the real parser (present, but not enumerable).
 */
export interface BashFacts {
  /** Paths the command names, first seen first. */
  paths: string[]
  /** True when the analyzer cannot decide what the command touches: every helper refuses. */
  undecidable: boolean
  segments: Segment[]
  /** Every simple command the parser found, including those inside substitutions, `bash -c`
   * strings, `eval`, `find -exec`, `xargs` and wrappers. */
  commands?: BashCommand[]
  /** Paths with the kind of access. */
  accesses?: PathAccess[]
  redirections?: Redirection[]
  /** Why the command is undecidable, to the contract's lexer or to the parse. */
  reasons?: string[]
  /** Whether the bash parser accepted the whole command. */
  parsed?: boolean
  /** What the parse decides; the helpers' verdicts come from it. */
  parse?: ParseFacts
}

export interface PathFact {
  /** The path as named (for bash, as written in the command). */
  raw: string
  /** Absolute and normalized against the workspace root; not realpath'd. */
  resolved: string
  /** Whether the v0.1 confinement check passes (realpath of the longest existing prefix). */
  withinWorkspace: boolean
}

export interface GuardContext {
  tool: string
  /** The validated arguments (coerced, defaults filled). */
  args: Record<string, unknown>
  config: ServerConfig
  paths: PathFact[]
  /** For `bash` and `monitor_start`. */
  bash?: BashFacts
}

/** Decides each call after validation and before the tool runs. May be async. */
export type Guard = (ctx: GuardContext) => GuardDecision | Promise<GuardDecision>

export interface ElicitRequest {
  tool: string
  args: Record<string, unknown>
  /** The guard's reason, as it gave it (possibly undefined). */
  reason?: string
  bash?: BashFacts
}

/** Asks a person (or a policy) whether an `ask` call may run; truthy runs it. May be async. */
export type Elicit = (request: ElicitRequest) => boolean | Promise<boolean>

/** Structured facts about a shell command. Never throws. */
export declare function analyzeBash(command: string, options?: AnalyzeOptions): BashFacts

/** The context `config.guard` is called with (paths per tool as the contract lists them). */
export declare function buildGuardContext(
  tool: string,
  args: Record<string, unknown>,
  config: ServerConfig,
): GuardContext

/** False when the command is undecidable or names no path; else whether every path is inside.
 * For bash the parse decides (`bash.parse`). */
export declare function withinWorkspace(ctx: GuardContext): boolean

/** Whether any path is outside the workspace (ignores `undecidable`). For bash the parse's
 * paths decide (`bash.parse.outside`). */
export declare function touchesOutside(ctx: GuardContext): boolean

/** Whether a decidable command's every segment is one of `allowed` (or starts with one and a
 * space). With the parse's facts (`bash.parse`), its segments and its decision count: every
 * simple command that can run. */
export declare function commandsIn(bash: BashFacts | undefined, allowed: readonly string[]): boolean
