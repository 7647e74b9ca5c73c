//! The `codex` surface: OpenAI Codex CLI's `read_file`, `list_dir`, `grep_files`,
//! `apply_patch` and `shell`, with Codex's argument names and result formats (`L<n>: <text>`
//! lines, `Absolute path:` listings with `/` `@` `?` suffixes, newest-first file lists,
//! `Success. Updated the following files:`, `Exit code:` / `Wall time:` / `Output:`).

use std::time::Instant;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};

use super::{
    args, engine_text, newest_first, numbered_rows, path_rows, run_shell, sh_quote, walk_dir, Call,
    Kind, SurfaceTool, SurfaceTool as T,
};
use crate::error::{ErrorCode, ToolError, ToolResult};
use crate::output::Output;
use crate::{paths, tools};

pub static TOOLS: [SurfaceTool; 5] = [
    T::new::<ReadFileArgs>("read_file", READ_FILE_DESCRIPTION, false, read_file),
    T::new::<ListDirArgs>("list_dir", LIST_DIR_DESCRIPTION, false, list_dir),
    T::new::<GrepFilesArgs>("grep_files", GREP_FILES_DESCRIPTION, false, grep_files),
    T::new::<ApplyPatchArgs>("apply_patch", APPLY_PATCH_DESCRIPTION, true, apply_patch),
    T::new::<ShellArgs>("shell", SHELL_DESCRIPTION, true, shell),
];

const READ_FILE_DESCRIPTION: &str = "Reads a local file with 1-indexed line numbers (each line as `L<n>: <text>`), supporting slice and indentation-aware block modes. The file_path is absolute (inside the workspace) or relative to the workspace root.";
const LIST_DIR_DESCRIPTION: &str = "Lists entries in a local directory with 1-indexed entry numbers and simple type labels: `/` directory, `@` symlink, `?` other (socket, pipe, ...), no suffix for a regular file. Nested entries are indented two spaces per level.";
const GREP_FILES_DESCRIPTION: &str = "Finds files whose contents match the pattern and lists them by modification time, most recent first. Returns file paths (relative to the workspace root), not the matching lines.";
const APPLY_PATCH_DESCRIPTION: &str = "Use the `apply_patch` tool to edit files. The input is the entire patch, from `*** Begin Patch` to `*** End Patch`, made of `*** Add File: <path>` (every following line starts with +), `*** Delete File: <path>`, and `*** Update File: <path>` (optionally followed by `*** Move to: <new path>`) sections; an update holds hunks that start with `@@` (optionally followed by a line of context such as a function signature), then lines prefixed with ` ` (context), `-` (removed) or `+` (added), and `*** End of File` for a change at the very end. Show 3 lines of context around each change. Paths are relative to the workspace root (absolute paths must lie inside it). Context is matched exactly, then ignoring trailing whitespace, then ignoring surrounding whitespace, then with Unicode punctuation normalised.";
const SHELL_DESCRIPTION: &str = "Runs a shell command and returns its output. `command` is the argument vector, usually [\"bash\", \"-lc\", \"<script>\"]; `workdir` is the working directory (default: the workspace root). The result reports the exit code, the wall time and the output (stdout, then stderr).";

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    #[default]
    Slice,
    Indentation,
}

#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct Indentation {
    /// Anchor line to center the indentation lookup on (defaults to offset).
    pub anchor_line: Option<i64>,
    /// How many parent indentation levels (smaller indents) to include (default 0).
    pub max_levels: Option<i64>,
    /// When true, include additional blocks that share the anchor indentation (default false).
    pub include_siblings: Option<bool>,
    /// Include doc comments or attributes directly above the selected block (default true).
    pub include_header: Option<bool>,
    /// Hard cap on the number of lines returned when using indentation mode.
    pub max_lines: Option<i64>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct ReadFileArgs {
    /// Absolute path to the file (inside the workspace), or a path relative to its root.
    pub file_path: String,
    /// The line number to start reading from. Must be 1 or greater (default 1).
    pub offset: Option<i64>,
    /// The maximum number of lines to return (default 2000).
    pub limit: Option<i64>,
    /// Optional mode selector: "slice" for simple ranges (default) or "indentation" to expand
    /// around an anchor line.
    pub mode: Option<Mode>,
    /// Configuration for indentation mode.
    pub indentation: Option<Indentation>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct ListDirArgs {
    /// Absolute path to the directory to list (inside the workspace), or a path relative to
    /// its root.
    pub dir_path: String,
    /// The entry number to start listing from. Must be 1 or greater (default 1).
    pub offset: Option<i64>,
    /// The maximum number of entries to return (default 25).
    pub limit: Option<i64>,
    /// The maximum directory depth to traverse. Must be 1 or greater (default 2).
    pub depth: Option<i64>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct GrepFilesArgs {
    /// Regular expression pattern to search for.
    pub pattern: String,
    /// Optional glob that limits which files are searched (e.g. "*.rs" or "*.{ts,tsx}").
    pub include: Option<String>,
    /// Directory or file path to search. Defaults to the workspace root.
    pub path: Option<String>,
    /// Maximum number of file paths to return (default 100, at most 2000).
    pub limit: Option<i64>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct ApplyPatchArgs {
    /// The entire contents of the apply_patch command, from *** Begin Patch to *** End Patch.
    pub input: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct ShellArgs {
    /// The command to execute, as an argument vector (e.g. ["bash", "-lc", "ls -la"]).
    #[schemars(length(min = 1))]
    pub command: Vec<String>,
    /// The working directory to execute the command in (default: the workspace root).
    pub workdir: Option<String>,
    /// The timeout for the command in milliseconds.
    pub timeout_ms: Option<u64>,
}

fn positive(value: Option<i64>, default: i64, message: &str, field: &str) -> ToolResult<usize> {
    match value.unwrap_or(default) {
        n if n >= 1 => Ok(n as usize),
        _ => Err(ToolError::invalid_input(message).with("field", field)),
    }
}

/// Whether the engine's read_file has indentation mode (branch `code`).
fn engine_has_indentation() -> bool {
    tools::REGISTRY
        .iter()
        .find(|t| t.name == "read_file")
        .is_some_and(|t| t.schema["properties"].get("mode").is_some())
}

fn read_file(v: Value, call: &Call) -> ToolResult<Output> {
    let a: ReadFileArgs = args(v)?;
    let offset = positive(
        a.offset,
        1,
        "offset must be a 1-indexed line number",
        "offset",
    )?;
    let limit = positive(a.limit, 2000, "limit must be greater than zero", "limit")?;
    let mut e = json!({ "path": a.file_path, "offset": offset, "limit": limit });
    let indentation = a.mode.unwrap_or_default() == Mode::Indentation;
    if indentation {
        if !engine_has_indentation() {
            return Err(ToolError::new(
                ErrorCode::Internal,
                "indentation mode is not available in this build (the engine's read_file lacks it); use mode \"slice\"",
            ));
        }
        let ind = a.indentation.unwrap_or_default();
        e["mode"] = json!("indentation");
        let mut set = |k: &str, v: Option<Value>| {
            if let Some(v) = v {
                e[k] = v;
            }
        };
        set("anchor_line", ind.anchor_line.map(Value::from));
        set("max_levels", ind.max_levels.map(Value::from));
        set("include_siblings", ind.include_siblings.map(Value::from));
        set("include_header", ind.include_header.map(Value::from));
        set("max_lines", ind.max_lines.map(Value::from));
    }
    let text = engine_text("read_file", e, call.ctx).map_err(|err| {
        if err.fields.contains_key("line_count") {
            ToolError {
                message: "offset exceeds file length".into(),
                ..err
            }
        } else {
            err
        }
    })?;
    if text == "(empty file)" {
        return Ok(Output::text(""));
    }
    let (rows, _) = numbered_rows(&text);
    // Codex's indentation mode returns one contiguous run of lines: the engine's block may
    // skip lines between a parent's header and the anchor's block, so the whole span from the
    // block's first line to its last is read instead.
    let span = match (rows.first(), rows.last()) {
        (Some(&(first, _)), Some(&(last, _))) if indentation && last + 1 - first > rows.len() => {
            Some((first, last))
        }
        _ => None,
    };
    let text = match span {
        Some((first, last)) => engine_text(
            "read_file",
            json!({ "path": a.file_path, "offset": first, "limit": last + 1 - first }),
            call.ctx,
        )?,
        None => text,
    };
    let (rows, footer) = numbered_rows(&text);
    let mut out: Vec<String> = rows.iter().map(|(n, t)| format!("L{n}: {t}")).collect();
    if let Some(f) = footer {
        out.push(f.to_string());
    }
    Ok(Output::text(out.join("\n")))
}

/// Entries a listing gathers before it stops.
const MAX_LIST_ENTRIES: usize = 100_000;

fn list_dir(v: Value, call: &Call) -> ToolResult<Output> {
    let a: ListDirArgs = args(v)?;
    let offset = positive(
        a.offset,
        1,
        "offset must be a 1-indexed entry number",
        "offset",
    )?;
    let limit = positive(a.limit, 25, "limit must be greater than zero", "limit")?;
    let depth = positive(a.depth, 2, "depth must be greater than zero", "depth")?;
    let dir = paths::resolve(call.ctx, &a.dir_path)?;
    let entries = walk_dir(call.ctx, &dir, depth, true, MAX_LIST_ENTRIES)?;
    let mut out = vec![format!("Absolute path: {}", dir.abs.display())];
    if entries.is_empty() {
        return Ok(Output::text(out.join("\n")));
    }
    if offset > entries.len() {
        return Err(
            ToolError::invalid_input("offset exceeds directory entry count")
                .with("field", "offset")
                .with("entry_count", entries.len()),
        );
    }
    let end = (offset - 1 + limit).min(entries.len());
    for e in &entries[offset - 1..end] {
        let suffix = match e.kind {
            Kind::Dir => "/",
            Kind::Symlink => "@",
            Kind::Other => "?",
            Kind::File => "",
        };
        out.push(format!("{}{}{}", "  ".repeat(e.depth), e.name, suffix));
    }
    if end < entries.len() {
        out.push(format!("More than {limit} entries found"));
    }
    Ok(Output::text(out.join("\n")))
}

/// The most file paths grep_files returns.
const MAX_GREP_LIMIT: usize = 2000;

fn grep_files(v: Value, call: &Call) -> ToolResult<Output> {
    let a: GrepFilesArgs = args(v)?;
    if a.pattern.trim().is_empty() {
        return Err(ToolError::invalid_input("pattern must not be empty").with("field", "pattern"));
    }
    let limit =
        positive(a.limit, 100, "limit must be greater than zero", "limit")?.min(MAX_GREP_LIMIT);
    let mut e = json!({ "pattern": a.pattern, "output_mode": "files_with_matches" });
    if let Some(g) = a.include.filter(|g| !g.trim().is_empty()) {
        e["glob"] = json!(g);
    }
    if let Some(p) = a.path {
        e["path"] = json!(p);
    }
    let text = engine_text("grep", e, call.ctx)?;
    let (rows, footer) = path_rows(&text);
    let files = newest_first(call.ctx, rows);
    let mut out = if files.is_empty() {
        "No matches found.".to_string()
    } else {
        files.into_iter().take(limit).collect::<Vec<_>>().join("\n")
    };
    // A scan that stopped at its output cap says so: the list may lack matching files.
    if let Some(warning) = footer.filter(|f| f.starts_with("[... search incomplete")) {
        out.push('\n');
        out.push_str(warning);
    }
    Ok(Output::text(out))
}

fn apply_patch(v: Value, call: &Call) -> ToolResult<Output> {
    let a: ApplyPatchArgs = args(v)?;
    let text = engine_text("apply_patch", json!({ "patch": a.input }), call.ctx)?;
    Ok(Output::text(codex_summary(&text)))
}

/// The engine's `  A path (+n -m)` rows as Codex's `Success. Updated the following files:`
/// list (`A`, `M`, `D`; a move shows as `M <new path>`).
pub fn codex_summary(engine: &str) -> String {
    let mut out = String::from("Success. Updated the following files:\n");
    for row in engine.lines().skip(1) {
        let row = row.trim_start();
        let Some((letter, rest)) = row.split_once(' ') else {
            continue;
        };
        let rest = match rest.rfind(" (+") {
            Some(i) if rest.ends_with(')') => &rest[..i],
            _ => rest,
        };
        match letter {
            "R" => {
                let to = rest.split_once(" -> ").map_or(rest, |(_, to)| to);
                out.push_str(&format!("M {to}\n"));
            }
            l => out.push_str(&format!("{l} {rest}\n")),
        }
    }
    out
}

fn shell(v: Value, call: &Call) -> ToolResult<Output> {
    let a: ShellArgs = args(v)?;
    if a.command.is_empty() {
        return Err(ToolError::invalid_input(
            "command is empty: pass an argument vector such as [\"bash\", \"-lc\", \"ls\"]",
        )
        .with("field", "command"));
    }
    // Codex executes the vector itself (program = command[0], no shell in between): `sh`
    // here only hands the quoted vector to `exec`, so the program replaces it and sees exactly
    // these arguments; ["bash", "-lc", script] runs bash, whatever `sh` is.
    let line: Vec<String> = a.command.iter().map(|s| sh_quote(s)).collect();
    let started = Instant::now();
    let run = run_shell(
        "sh",
        &format!("exec {}", line.join(" ")),
        a.workdir.as_deref(),
        a.timeout_ms,
        call.ctx,
    )?;
    let wall = started.elapsed().as_secs_f64();
    let mut output = run.stdout;
    output.push_str(&run.stderr);
    let exit_code = match run.exit_code {
        Some(code) => code,
        None => {
            if let Some(m) = &run.message {
                output.push_str(&format!("\n{m}"));
            }
            if run.timed_out {
                124
            } else {
                -1
            }
        }
    };
    Ok(Output::text(format!(
        "Exit code: {exit_code}\nWall time: {wall:.1} seconds\nOutput:\n{output}"
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_rows() {
        assert_eq!(
            codex_summary("Applied patch:\n  A a.txt (+2 -0)\n  M b.txt (+1 -1)\n  R c -> d (+0 -0)\n  D e (+0 -3)"),
            "Success. Updated the following files:\nA a.txt\nM b.txt\nM d\nD e\n"
        );
    }
}
