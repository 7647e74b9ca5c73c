//! Tool surfaces: the exact tool names, argument shapes and result formats that an agent or a
//! model family is trained on, over the one engine.
//!
//! A surface is a thin layer, one file each: it maps a vendor tool's arguments onto engine tools
//! (called by name through [`engine`], so confinement, atomic writes, byte preservation, limits
//! and cancellation are the engine's), and formats the engine's result the vendor's way. Where
//! a vendor tool has no engine counterpart (a notebook cell edit, a line insert, a recursive
//! listing) it is built from the shared modules (`paths`, `atomic`, `editing`, `text`), never
//! from copied engine code.
//!
//! The one piece of per-instance state is the read-before-write [`ledger::Ledger`] of the
//! `claude-code` and `cyberpaw` surfaces.

use std::time::SystemTime;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::bound::bound;
use crate::call::Ctx;
use crate::config::{Config, Profile, StartupError};
use crate::confine::WorkPath;
use crate::dispatch::{guarded, Outcome};
use crate::error::{io_err, ErrorCode, ToolError, ToolResult};
use crate::output::Output;
use crate::paths;
use crate::schema::{check_args, deserialize, schema_for};
use crate::{confine, tools};

pub mod anthropic;
pub mod claude_code;
pub mod codex;
pub mod cyberpaw;
pub mod ledger;
pub mod notebook;
pub mod openai;
pub mod vocabulary;

use ledger::Ledger;

/// A vendor tool surface.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Surface {
    Codex,
    ClaudeCode,
    Cyberpaw,
    Anthropic,
    Openai,
}

pub const SURFACE_NAMES: &str = "codex, claude-code, cyberpaw, anthropic, openai";

impl Surface {
    /// Reads a surface name; `setting` names the option in the error.
    pub fn parse(setting: &str, name: &str) -> Result<Surface, StartupError> {
        Ok(match name {
            "codex" => Surface::Codex,
            "claude-code" => Surface::ClaudeCode,
            "cyberpaw" => Surface::Cyberpaw,
            "anthropic" => Surface::Anthropic,
            "openai" => Surface::Openai,
            other => {
                return Err(StartupError(format!(
                    "{setting} must be one of {SURFACE_NAMES}, got {other:?}"
                )))
            }
        })
    }

    /// The tools of this surface, in the vendor's order.
    pub fn tools(self) -> &'static [SurfaceTool] {
        match self {
            Surface::Codex => &codex::TOOLS,
            Surface::ClaudeCode => &claude_code::TOOLS,
            Surface::Cyberpaw => &cyberpaw::TOOLS,
            Surface::Anthropic => &anthropic::TOOLS,
            Surface::Openai => &openai::TOOLS,
        }
    }
}

/// What a surface tool runs with: the call's context and the tools object's ledger.
pub struct Call<'a, 'c> {
    pub ctx: &'a Ctx<'c>,
    pub ledger: &'a Ledger,
}

/// One tool of a surface.
pub struct SurfaceTool {
    pub name: &'static str,
    pub description: &'static str,
    pub mutating: bool,
    schema: fn() -> Value,
    run: fn(Value, &Call) -> ToolResult<Output>,
}

impl SurfaceTool {
    /// A tool whose arguments deserialize into `A`, whose schema is generated from `A`.
    pub const fn new<A: DeserializeOwned + JsonSchema>(
        name: &'static str,
        description: &'static str,
        mutating: bool,
        run: fn(Value, &Call) -> ToolResult<Output>,
    ) -> SurfaceTool {
        SurfaceTool {
            name,
            description,
            mutating,
            schema: schema_for::<A>,
            run,
        }
    }

    pub fn schema(&self) -> Value {
        (self.schema)()
    }
}

/// Whether a surface tool of this name runs commands (and so mostly waits on a child).
pub fn runs_commands(name: &str) -> bool {
    matches!(name, "Bash" | "bash" | "shell")
}

/// Deserializes a surface tool's checked arguments.
pub fn args<A: DeserializeOwned>(value: Value) -> ToolResult<A> {
    deserialize(value)
}

/// The tools `surface` offers under `ctx` (mutating ones hidden when read-only).
pub fn offered(surface: Surface, read_only: bool) -> impl Iterator<Item = &'static SurfaceTool> {
    surface
        .tools()
        .iter()
        .filter(move |t| !(read_only && t.mutating))
}

/// Runs `name` of `surface`: find, validate (leniently, as the root does), run with panics
/// caught, bound the text. An error result's text is the message alone (what the vendor's
/// executor would show the model); its code rides in `meta.error`.
pub fn dispatch(surface: Surface, name: &str, args: Value, ctx: &Ctx, ledger: &Ledger) -> Outcome {
    let result = offered(surface, ctx.read_only)
        .find(|t| t.name == name)
        .ok_or_else(|| {
            let names: Vec<&str> = offered(surface, ctx.read_only).map(|t| t.name).collect();
            ToolError::new(
                ErrorCode::NotFound,
                format!("Unknown tool: {name}. The tools are: {}", names.join(", ")),
            )
        })
        .and_then(|tool| {
            let checked = check_args(&tool.schema(), args, Profile::Current)?;
            let call = Call { ctx, ledger };
            guarded(tool.name, || (tool.run)(checked, &call))
        });
    match result {
        Ok(output) => {
            let max = ctx.max_output_bytes as usize;
            Outcome {
                is_error: false,
                output: output.map_text(|t| bound(t, max)),
            }
        }
        Err(err) => {
            err.report_detail();
            Outcome {
                is_error: true,
                output: Output::text(vocabulary::message(surface, &err))
                    .with_meta("error", err.code.as_str()),
            }
        }
    }
}

/// The surface's tool list as JSON: `[{name, description, inputSchema, mutating}]`.
pub fn defs_json(surface: Surface) -> Value {
    Value::Array(
        surface
            .tools()
            .iter()
            .map(|t| {
                json!({
                    "name": t.name,
                    "description": t.description,
                    "inputSchema": t.schema(),
                    "mutating": t.mutating,
                })
            })
            .collect(),
    )
}

/// Runs the engine tool `name` on `args`, validated as the root validates them. Surfaces reach
/// the engine only through here, so a surface tool works as soon as its engine tool exists.
pub fn engine(name: &str, args: Value, ctx: &Ctx) -> ToolResult<Output> {
    let tool = tools::find(name, ctx).ok_or_else(|| {
        if ctx.read_only {
            ToolError::new(
                ErrorCode::Denied,
                format!("{name} is not available: the tools are read-only"),
            )
        } else {
            ToolError::new(
                ErrorCode::Internal,
                format!("this build has no engine tool `{name}`, which this surface tool needs"),
            )
        }
    })?;
    tool.call_engine(args, ctx)
}

/// The path as the model wrote it, for the vendor messages that echo it (Claude Code's and
/// Anthropic's tools print the `file_path` / `path` they were given, absolute or not); a
/// trailing `/` is dropped so that entries can be joined under it.
pub fn as_given(path: &crate::confine::WorkPath) -> &str {
    match path.input.trim_end_matches('/') {
        "" if path.input.starts_with('/') => "/",
        "" => ".",
        shown => shown,
    }
}

/// [`engine`], its text parts joined.
pub fn engine_text(name: &str, args: Value, ctx: &Ctx) -> ToolResult<String> {
    engine(name, args, ctx).map(|o| o.joined_text())
}

/// Splits the engine's numbered rows (`{n:>6}\t{text}`) from a trailing `[... ...]` footer.
pub fn numbered_rows(text: &str) -> (Vec<(usize, &str)>, Option<&str>) {
    let mut rows = Vec::new();
    let mut footer = None;
    for line in text.split('\n') {
        let trimmed = line.trim_start_matches(' ');
        match trimmed.split_once('\t') {
            Some((n, rest)) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => {
                rows.push((n.parse().unwrap_or(0), rest));
            }
            _ if line.starts_with("[...") => footer = Some(line),
            _ => {}
        }
    }
    (rows, footer)
}

/// The engine's path list (glob, grep's files mode): its rows, less the "(no matches)" line and
/// a `[... ...]` footer, which is returned apart.
pub fn path_rows(text: &str) -> (Vec<&str>, Option<&str>) {
    if text.starts_with("(no matches)") || text.starts_with("(no results") {
        return (Vec::new(), None);
    }
    let mut rows: Vec<&str> = text.split('\n').filter(|l| !l.is_empty()).collect();
    let footer = match rows.last() {
        Some(l) if l.starts_with("[... ") && l.ends_with("...]") => rows.pop(),
        _ => None,
    };
    (rows, footer)
}

/// Sorts workspace paths (as the engine shows them) newest modification first, ties by path.
pub fn newest_first(ctx: &Ctx, rows: Vec<&str>) -> Vec<String> {
    let mut dated: Vec<(SystemTime, String)> = rows
        .into_iter()
        .map(|p| {
            let mtime = paths::resolve(ctx, p)
                .ok()
                .and_then(|w| confine::stat(&w).ok())
                .map_or(SystemTime::UNIX_EPOCH, |s| s.mtime);
            (mtime, p.to_string())
        })
        .collect();
    dated.sort_by(|(ta, pa), (tb, pb)| tb.cmp(ta).then_with(|| pa.cmp(pb)));
    dated.into_iter().map(|(_, p)| p).collect()
}

/// The kind of a directory entry, as listings mark it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Dir,
    File,
    Symlink,
    Other,
}

/// One entry of [`walk_dir`]: its path relative to the listed directory, depth (0 = direct
/// child) and kind.
#[derive(Debug, Clone)]
pub struct Entry {
    pub rel: String,
    pub name: String,
    pub depth: usize,
    pub kind: Kind,
}

/// The entries of `dir` down to `depth` levels (1 = direct children), sorted by relative path,
/// symlinks not followed, the engine's internal names (`.clarvis`) skipped, hidden entries
/// skipped when `hidden` is false. Stops when the call is cancelled or `cap` entries are found.
pub fn walk_dir(
    ctx: &Ctx,
    dir: &WorkPath,
    depth: usize,
    hidden: bool,
    cap: usize,
) -> ToolResult<Vec<Entry>> {
    let stat = confine::stat(dir).map_err(|e| io_err(e, &dir.display))?;
    if !stat.is_dir() {
        return Err(ToolError::not_a_directory(&dir.display));
    }
    let top = confine::open_dir(dir).map_err(|e| io_err(e, &dir.display))?;
    let mut out = Vec::new();
    // Each directory is descended through its parent's fd, never following a link.
    let mut queue = vec![(top, String::new(), 0usize)];
    while let Some((handle, rel, level)) = queue.pop() {
        if ctx.cancel.is_cancelled() {
            return Err(ToolError::new(ErrorCode::Aborted, "listing aborted"));
        }
        let Ok(names) = handle.entries() else {
            continue;
        };
        for os_name in names {
            if paths::is_internal_name(&os_name) {
                continue;
            }
            let name = os_name.to_string_lossy().into_owned();
            if !hidden && name.starts_with('.') {
                continue;
            }
            let kind = match handle.stat(&os_name).map(|s| s.kind) {
                Ok(confine::Kind::Symlink) => Kind::Symlink,
                Ok(confine::Kind::Dir) => Kind::Dir,
                Ok(confine::Kind::File) => Kind::File,
                _ => Kind::Other,
            };
            let child_rel = if rel.is_empty() {
                name.clone()
            } else {
                format!("{rel}/{name}")
            };
            if kind == Kind::Dir && level + 1 < depth {
                if let Ok(sub) = handle.open_dir(&os_name) {
                    queue.push((sub, child_rel.clone(), level + 1));
                }
            }
            out.push(Entry {
                rel: child_rel,
                name,
                depth: level,
                kind,
            });
            if out.len() >= cap {
                queue.clear();
                break;
            }
        }
    }
    out.sort_by(|a, b| a.rel.cmp(&b.rel));
    Ok(out)
}

/// Quotes `arg` for `sh -c` (single quotes; a `'` becomes `'\''`) unless it is plainly safe.
pub fn sh_quote(arg: &str) -> String {
    let safe = !arg.is_empty()
        && arg
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./=:,+@%^".contains(&b));
    if safe {
        arg.to_string()
    } else {
        format!("'{}'", arg.replace('\'', r"'\''"))
    }
}

/// One command's run through the engine's `bash`: what every shell-like surface tool reads.
#[derive(Debug, Clone, Default)]
pub struct ShellRun {
    pub stdout: String,
    pub stderr: String,
    /// `None` when the command timed out (or was aborted, or flooded its output).
    pub exit_code: Option<i64>,
    pub timed_out: bool,
    /// The caller aborted the call.
    pub aborted: bool,
    /// The engine's message when the command did not exit by itself.
    pub message: Option<String>,
}

/// Runs `<shell> -c <command>` with the engine's `bash` and reads its JSON result (or its error
/// envelope's fields) into a [`ShellRun`]. `shell` is the vendor's (`bash` for a tool the
/// vendor runs in bash), whatever the root's `shell` option says. Errors that are not about the
/// command (a bad `cwd`, read-only tools, a shell that is not installed) stay errors.
pub fn run_shell(
    shell: &str,
    command: &str,
    cwd: Option<&str>,
    timeout_ms: Option<u64>,
    ctx: &Ctx,
) -> ToolResult<ShellRun> {
    let mut args = json!({ "command": command });
    if let Some(cwd) = cwd {
        args["cwd"] = json!(cwd);
    }
    if let Some(ms) = timeout_ms {
        args["timeout_ms"] = json!(ms);
    }
    let field = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).unwrap_or("").to_string();
    let config = Config {
        shell: Some(shell.to_string()),
        ..ctx.config.clone()
    };
    let ctx = &Ctx {
        config: &config,
        cancel: ctx.cancel.clone(),
        progress: ctx.progress.clone(),
    };
    match engine_text("bash", args, ctx) {
        Ok(text) => {
            let v: Value = serde_json::from_str(&text).map_err(|_| ToolError::internal())?;
            Ok(ShellRun {
                stdout: field(&v, "stdout"),
                stderr: field(&v, "stderr"),
                exit_code: v.get("exit_code").and_then(Value::as_i64),
                timed_out: false,
                aborted: false,
                message: None,
            })
        }
        Err(err)
            if matches!(
                err.code,
                ErrorCode::Timeout | ErrorCode::OutputLimit | ErrorCode::Aborted
            ) =>
        {
            let fields = Value::Object(err.fields.clone());
            Ok(ShellRun {
                stdout: field(&fields, "stdout"),
                stderr: field(&fields, "stderr"),
                exit_code: None,
                timed_out: err.code == ErrorCode::Timeout,
                aborted: err.code == ErrorCode::Aborted,
                message: Some(err.message),
            })
        }
        Err(err) => Err(err),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_and_footer_split() {
        let (rows, footer) =
            numbered_rows("     1\ta\tb\n    10\t\n[... 2 of 9 lines shown; continue ...]");
        assert_eq!(rows, vec![(1, "a\tb"), (10, "")]);
        assert_eq!(footer, Some("[... 2 of 9 lines shown; continue ...]"));
        let (paths, footer) = path_rows("a\nb\n[... showing 1..2 of 3; call again ...]");
        assert_eq!(paths, vec!["a", "b"]);
        assert!(footer.is_some());
        assert!(path_rows("(no matches)").0.is_empty());
    }

    #[test]
    fn quoting() {
        assert_eq!(sh_quote("ls"), "ls");
        assert_eq!(sh_quote("a b"), "'a b'");
        assert_eq!(sh_quote("it's"), r"'it'\''s'");
        assert_eq!(sh_quote(""), "''");
    }

    #[test]
    fn surface_names_parse() {
        assert_eq!(
            Surface::parse("surface", "claude-code").unwrap(),
            Surface::ClaudeCode
        );
        assert!(Surface::parse("surface", "gpt")
            .unwrap_err()
            .0
            .contains("surface must be one of"));
    }
}
