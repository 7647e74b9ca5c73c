//! The `anthropic` surface: Anthropic's client tools `str_replace_based_edit_tool` (the text
//! editor, `text_editor_20250728`: `view`, `create`, `str_replace`, `insert`) and `bash`
//! (`bash_20250124`), answering with the strings Anthropic's documentation and reference
//! implementation use (listed in SPEC.md, "Tool surfaces").

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};

use super::{
    args, as_given, engine, run_shell, walk_dir, Call, Kind, SurfaceTool, SurfaceTool as T,
};
use crate::confine::WorkPath;
use crate::error::{ErrorCode, ToolError, ToolResult};
use crate::output::Output;
use crate::paths;
use crate::text::{self, split_lines};
use crate::{atomic, confine, editing};

pub static TOOLS: [SurfaceTool; 2] = [
    T::new::<EditorArgs>(
        "str_replace_based_edit_tool",
        EDITOR_DESCRIPTION,
        true,
        editor,
    ),
    T::new::<BashArgs>("bash", BASH_DESCRIPTION, true, bash),
];

const EDITOR_DESCRIPTION: &str = "Anthropic's text editor tool: view a file (numbered lines) or a directory (two levels deep), create a new file, replace one unique occurrence of old_str with new_str, or insert text after line insert_line (0 = at the top). Paths are inside the workspace, absolute or relative to its root.";
const BASH_DESCRIPTION: &str = "Run a command in a bash shell (bash -c in the workspace root) and get its stdout and stderr. Each call runs in a fresh shell: the working directory and environment do not persist; `restart` reports a fresh shell.";

/// The note appended where `view` output is cut at `max_characters` (the reference
/// implementation's wording).
pub const CLIPPED: &str = "<response clipped><NOTE>To save on context only part of this file has been shown to you.</NOTE>";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Command {
    View,
    Create,
    StrReplace,
    Insert,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct EditorArgs {
    /// The command to run: view, create, str_replace or insert.
    pub command: Command,
    /// Path of the file or directory (inside the workspace; relative paths resolve from its
    /// root).
    pub path: String,
    /// view: the lines to show, [start, end] 1-indexed and inclusive; end -1 reads to the end.
    pub view_range: Option<Vec<i64>>,
    /// create: the content of the new file.
    pub file_text: Option<String>,
    /// str_replace: the text to replace; it must match exactly one place in the file.
    pub old_str: Option<String>,
    /// str_replace: the replacement (default: empty, which deletes old_str). insert: the text
    /// to insert (also accepted as insert_text).
    pub new_str: Option<String>,
    /// insert: the line after which to insert the text (0 = at the top of the file).
    pub insert_line: Option<i64>,
    /// insert: the text to insert.
    pub insert_text: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct BashArgs {
    /// The bash command to run. Required unless restart is true.
    pub command: Option<String>,
    /// Restart the shell (every call already runs in a fresh one).
    pub restart: Option<bool>,
}

fn error(code: ErrorCode, message: impl Into<String>) -> ToolError {
    ToolError::new(code, message)
}

fn missing(param: &str, command: &str) -> ToolError {
    error(
        ErrorCode::InvalidInput,
        format!("Error: Parameter `{param}` is required for command: {command}"),
    )
    .with("field", param)
}

fn editor(v: Value, call: &Call) -> ToolResult<Output> {
    let a: EditorArgs = args(v)?;
    let path = paths::resolve(call.ctx, &a.path)?;
    match a.command {
        Command::View => view(&a, &path, call),
        Command::Create => create(&a, &path, call),
        Command::StrReplace => str_replace(&a, &path, call),
        Command::Insert => insert(&a, &path, call),
    }
}

/// Whether `path` is a regular file (following links that stay inside); an escape is an error,
/// and so is a directory, which only `view` reads (the reference tool's own check).
fn is_file(path: &WorkPath) -> ToolResult<bool> {
    match confine::stat(path) {
        Ok(s) if s.is_dir() => Err(error(
            ErrorCode::NotAFile,
            format!(
                "Error: The path {} is a directory and only the `view` command can be used on directories",
                as_given(path)
            ),
        )
        .with("path", as_given(path))),
        Ok(s) => Ok(s.is_file()),
        Err(e) if crate::error::is_escape(&e) => Err(ToolError::from_io(&e, &path.display)),
        Err(_) => Ok(false),
    }
}

fn not_found(path: &WorkPath) -> ToolError {
    error(
        ErrorCode::NotFound,
        format!(
            "Error: The path {} does not exist. Please provide a valid path.",
            as_given(path)
        ),
    )
    .with("path", as_given(path))
}

/// `max_characters`: the first that many characters, then the clipped note.
fn clip(text: String, call: &Call) -> String {
    match call.ctx.max_characters {
        Some(max) if text.chars().count() as u64 > max => {
            let cut = text
                .char_indices()
                .nth(max as usize)
                .map_or(text.len(), |(i, _)| i);
            format!("{}{CLIPPED}", &text[..cut])
        }
        _ => text,
    }
}

fn view(a: &EditorArgs, path: &WorkPath, call: &Call) -> ToolResult<Output> {
    let meta = confine::stat(path).map_err(|e| {
        if crate::error::is_escape(&e) {
            ToolError::from_io(&e, &path.display)
        } else {
            not_found(path)
        }
    })?;
    if meta.is_dir() {
        if a.view_range.is_some() {
            return Err(error(
                ErrorCode::InvalidInput,
                "Error: The `view_range` parameter is not allowed when `path` points to a directory.",
            ));
        }
        let entries = walk_dir(call.ctx, path, 2, false, 100_000)?;
        let mut out = format!(
            "Here's the files and directories up to 2 levels deep in {}, excluding hidden items:\n{}\n",
            as_given(path),
            as_given(path)
        );
        let under = as_given(path).trim_end_matches('/');
        for e in entries {
            let slash = if e.kind == Kind::Dir { "/" } else { "" };
            out.push_str(&format!("{under}/{}{slash}\n", e.rel));
        }
        return Ok(Output::text(clip(out, call)));
    }
    let decoded = text::read_text(path, call.ctx)?;
    let lines: Vec<&str> = split_lines(&decoded.text).map(|(l, _)| l).collect();
    let n = lines.len() as i64;
    let (start, end) = match &a.view_range {
        None => (1, n),
        Some(r) if r.len() != 2 => {
            return Err(error(
                ErrorCode::InvalidInput,
                "Error: Invalid `view_range`. It should be a list of two integers.",
            )
            .with("field", "view_range"))
        }
        Some(r) => {
            let (s, e) = (r[0], r[1]);
            if s < 1 || s > n.max(1) {
                return Err(error(
                    ErrorCode::InvalidInput,
                    format!("Error: Invalid `view_range`: [{s}, {e}]. Its first element `{s}` should be within the range of lines of the file: [1, {n}]"),
                ));
            }
            if e != -1 && e < s {
                return Err(error(
                    ErrorCode::InvalidInput,
                    format!("Error: Invalid `view_range`: [{s}, {e}]. Its second element `{e}` should be larger or equal than its first `{s}`"),
                ));
            }
            if e > n {
                return Err(error(
                    ErrorCode::InvalidInput,
                    format!("Error: Invalid `view_range`: [{s}, {e}]. Its second element `{e}` should be smaller than the number of lines in the file: `{n}`"),
                ));
            }
            (s, if e == -1 { n } else { e })
        }
    };
    let mut out = String::new();
    for i in start..=end {
        if i < 1 {
            continue;
        }
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&format!("{i}: {}", lines[(i - 1) as usize]));
    }
    Ok(Output::text(clip(out, call)))
}

fn create(a: &EditorArgs, path: &WorkPath, call: &Call) -> ToolResult<Output> {
    let Some(content) = &a.file_text else {
        return Err(missing("file_text", "create"));
    };
    if confine::lstat(path).is_ok() {
        return Err(error(
            ErrorCode::InvalidInput,
            format!(
                "Error: File already exists at: {}. Cannot overwrite files using command `create`.",
                as_given(path)
            ),
        )
        .with("path", as_given(path)));
    }
    engine(
        "write_file",
        json!({ "path": a.path, "content": content }),
        call.ctx,
    )?;
    Ok(Output::text(format!(
        "File created successfully at: {}",
        as_given(path)
    )))
}

fn str_replace(a: &EditorArgs, path: &WorkPath, call: &Call) -> ToolResult<Output> {
    let Some(old) = a.old_str.as_deref().filter(|s| !s.is_empty()) else {
        return Err(missing("old_str", "str_replace"));
    };
    let new = a.new_str.as_deref().unwrap_or("");
    if !is_file(path)? {
        return Err(not_found(path));
    }
    // Exact occurrences only (over `\n` line ends, as the engine matches): the engine's
    // tolerant fallback is not what this tool promises.
    let decoded = text::read_text(path, call.ctx)?;
    let haystack = text::normalize_newlines(&decoded.text);
    let needle = text::normalize_newlines(old);
    let starts: Vec<usize> = haystack
        .match_indices(needle.as_ref())
        .map(|(i, _)| i)
        .collect();
    match starts.len() {
        0 => Err(error(
            ErrorCode::NoMatch,
            "Error: No replacement was performed, no match was found for replacement text. Please check your text (including whitespace and indentation, which must match exactly) with `view` and try again.",
        )),
        1 => {
            engine(
                "edit_file",
                json!({ "path": a.path, "old_string": old, "new_string": new }),
                call.ctx,
            )?;
            Ok(Output::text(
                "Successfully replaced text at exactly one location.",
            ))
        }
        n => {
            let lines: Vec<String> = starts
                .iter()
                .map(|&i| (haystack[..i].matches('\n').count() + 1).to_string())
                .collect();
            Err(error(
                ErrorCode::AmbiguousMatch,
                format!(
                    "Error: No replacement was performed. Found {n} matches for replacement text in lines {}. Please provide more context to make a unique match.",
                    lines.join(", ")
                ),
            )
            .with("count", n))
        }
    }
}

fn insert(a: &EditorArgs, path: &WorkPath, call: &Call) -> ToolResult<Output> {
    let Some(line) = a.insert_line else {
        return Err(missing("insert_line", "insert"));
    };
    let Some(new) = a.insert_text.as_deref().or(a.new_str.as_deref()) else {
        return Err(missing("insert_text", "insert"));
    };
    if !is_file(path)? {
        return Err(not_found(path));
    }
    let _lock = atomic::lock(&[&path.abs]);
    let mut file = editing::load(path, call.ctx)?;
    let lines: Vec<(&str, &str)> = split_lines(&file.text).collect();
    let n = lines.len() as i64;
    if line < 0 || line > n {
        return Err(error(
            ErrorCode::InvalidInput,
            format!("Error: Invalid `insert_line` parameter: {line}. It should be within the range of lines of the file: [0, {n}]"),
        )
        .with("field", "insert_line"));
    }
    let pos: usize = lines[..line as usize]
        .iter()
        .map(|(l, t)| l.len() + t.len())
        .sum();
    let eol = text::dominant_terminator_in(&file.text);
    let mut inserted = text::normalize_newlines(new).replace('\n', eol);
    if pos == file.text.len() && lines.last().is_some_and(|(_, t)| t.is_empty()) {
        // After a last line with no terminator: the lines are joined, and the file still ends
        // without one (the reference splits on `\n`, inserts, and joins with `\n`).
        inserted.insert_str(0, eol);
    } else if !inserted.ends_with(eol) {
        inserted.push_str(eol);
    }
    file.text.insert_str(pos, &inserted);
    atomic::write_atomic(path, file.into_bytes())?;
    Ok(Output::text(format!(
        "The file {} has been edited: the text was inserted after line {line}.",
        as_given(path)
    )))
}

fn bash(v: Value, call: &Call) -> ToolResult<Output> {
    let a: BashArgs = args(v)?;
    if a.restart == Some(true) {
        return Ok(Output::text("tool has been restarted."));
    }
    let Some(command) = a.command.filter(|c| !c.trim().is_empty()) else {
        return Err(error(ErrorCode::InvalidInput, "no command provided.").with("field", "command"));
    };
    let run = run_shell("bash", &command, None, None, call.ctx)?;
    let mut out = run.stdout;
    if !run.stderr.is_empty() {
        if !out.is_empty() && !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(&run.stderr);
    }
    if run.exit_code.is_none() {
        let code = if run.timed_out {
            ErrorCode::Timeout
        } else {
            ErrorCode::Aborted
        };
        let message = if run.timed_out {
            format!(
                "timed out: bash has not returned in {} seconds and must be restarted\n{out}",
                call.ctx.bash_timeout_ms / 1000
            )
        } else {
            format!("{}\n{out}", run.message.unwrap_or_default())
        };
        return Err(error(code, message));
    }
    Ok(Output::text(out))
}
