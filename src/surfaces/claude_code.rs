//! The `claude-code` surface: Claude Code's `Read`, `Write`, `Edit`, `MultiEdit`, `Glob`,
//! `Grep`, `Bash` and `NotebookEdit`, with its read-before-write rule (see [`super::ledger`]).
//! `cyberpaw` reuses the file tools defined here.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};

use super::ledger::{ledger_key, require_fresh, Ledger};
use super::{
    args, as_given, engine, engine_text, newest_first, notebook, path_rows, run_shell, Call,
};
use super::{SurfaceTool, SurfaceTool as T};
use crate::call::Ctx;
use crate::confine::WorkPath;
use crate::error::{ErrorCode, ToolError, ToolResult};
use crate::output::Output;
use crate::paths;
use crate::{confine, text};

pub static TOOLS: [SurfaceTool; 8] = [
    T::new::<ReadArgs>("Read", READ_DESCRIPTION, false, read),
    T::new::<WriteArgs>("Write", WRITE_DESCRIPTION, true, write),
    T::new::<EditArgs>("Edit", EDIT_DESCRIPTION, true, edit),
    T::new::<MultiEditArgs>("MultiEdit", MULTI_EDIT_DESCRIPTION, true, multi_edit),
    T::new::<GlobArgs>("Glob", GLOB_DESCRIPTION, false, glob),
    T::new::<GrepArgs>("Grep", GREP_DESCRIPTION, false, grep),
    T::new::<BashArgs>("Bash", BASH_DESCRIPTION, true, bash),
    T::new::<notebook::EditArgs>(
        "NotebookEdit",
        notebook::EDIT_DESCRIPTION,
        true,
        notebook_edit,
    ),
];

pub const READ_DESCRIPTION: &str = "Reads a file from the local filesystem. The file_path parameter should be an absolute path inside the workspace (a path relative to the workspace root also works). By default, it reads up to 2000 lines starting from the beginning of the file; you can optionally specify a line offset and limit (especially handy for long files). Any lines longer than 2000 characters will be truncated. Results are returned using cat -n format, with line numbers starting at 1. This tool can read Jupyter notebooks (.ipynb files) and returns all cells with their outputs. You must Read a file before you Write over it or Edit it; reading it again after it changed on disk is required too.";
pub const WRITE_DESCRIPTION: &str = "Writes a file to the local filesystem, creating missing parent directories. This tool will overwrite the existing file if there is one at the provided path. If this is an existing file, you MUST use the Read tool first to read the file's contents; this tool will fail if you did not read the file first, or if it changed since you read it. Prefer editing existing files with Edit or MultiEdit.";
pub const EDIT_DESCRIPTION: &str = "Performs exact string replacements in files. You must use your Read tool at least once before editing, and the file must not have changed since. When editing text from Read output, preserve the exact indentation as it appears AFTER the line number prefix (spaces and a tab); never include any part of the prefix in old_string or new_string. The edit will FAIL if old_string is not unique in the file: provide a larger string with more surrounding context, or use replace_all to change every instance. The rest of the file is kept byte for byte.";
pub const MULTI_EDIT_DESCRIPTION: &str = "Makes multiple edits to a single file in one operation: a list of {old_string, new_string, replace_all?} applied in sequence, each to the result of the previous one. All edits apply or none does. The same rules as Edit apply: Read the file first, old_string must be unique unless replace_all is true.";
pub const GLOB_DESCRIPTION: &str = "Fast file pattern matching tool that works with any codebase size. Supports glob patterns like \"**/*.js\" or \"src/**/*.ts\". Returns matching file paths (relative to the workspace root) sorted by modification time, newest first, at most 100. Use this tool when you need to find files by name patterns.";
pub const GREP_DESCRIPTION: &str = "A powerful search tool built on ripgrep's engine. Supports full regex syntax (e.g. \"log.*Error\", \"function\\s+\\w+\"). Filter files with the glob parameter (e.g. \"*.js\", \"**/*.tsx\") or the type parameter (e.g. \"js\", \"py\", \"rust\"). Output modes: \"content\" shows matching lines (path:line:text), \"files_with_matches\" shows only file paths (default, newest first), \"count\" shows match counts. Pattern syntax is ripgrep's: literal braces need escaping (use `interface\\{\\}` to find `interface{}` in Go code). Multiline matching: by default patterns match within single lines only; use multiline: true for patterns that span lines.";
pub const BASH_DESCRIPTION: &str = "Executes a given bash command (run with `bash -c` in the workspace root) with an optional timeout in milliseconds (default 120000, max 600000), and returns its output. Each call is a fresh shell: the working directory and environment do not persist between calls. A non-zero exit status is reported as an error with the exit code and the output. Use the dedicated tools instead of shell commands to read (Read), search (Grep, Glob) and edit (Edit, Write) files.";

#[derive(Debug, Deserialize, JsonSchema)]
pub struct ReadArgs {
    /// The absolute path to the file to read (inside the workspace; a relative path resolves
    /// from the workspace root).
    pub file_path: String,
    /// The line number to start reading from (1-based). Only provide if the file is too large
    /// to read at once.
    pub offset: Option<i64>,
    /// The number of lines to read. Only provide if the file is too large to read at once.
    pub limit: Option<i64>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct WriteArgs {
    /// The absolute path to the file to write (must be inside the workspace).
    pub file_path: String,
    /// The content to write to the file.
    pub content: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct EditArgs {
    /// The absolute path to the file to modify.
    pub file_path: String,
    /// The text to replace.
    pub old_string: String,
    /// The text to replace it with (must be different from old_string).
    pub new_string: String,
    /// Replace all occurrences of old_string (default false).
    pub replace_all: Option<bool>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct OneEdit {
    /// The text to replace.
    pub old_string: String,
    /// The text to replace it with.
    pub new_string: String,
    /// Replace all occurrences of old_string (default false).
    pub replace_all: Option<bool>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct MultiEditArgs {
    /// The absolute path to the file to modify.
    pub file_path: String,
    /// Array of edit operations to perform sequentially on the file.
    #[schemars(length(min = 1))]
    pub edits: Vec<OneEdit>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct GlobArgs {
    /// The glob pattern to match files against.
    pub pattern: String,
    /// The directory to search in (default: the workspace root).
    pub path: Option<String>,
}

#[derive(Debug, Clone, Copy, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum GrepMode {
    Content,
    FilesWithMatches,
    Count,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct GrepArgs {
    /// The regular expression pattern to search for in file contents.
    pub pattern: String,
    /// File or directory to search in (default: the workspace root).
    pub path: Option<String>,
    /// Glob pattern to filter files (e.g. "*.js", "*.{ts,tsx}").
    pub glob: Option<String>,
    /// File type to search (e.g. js, py, rust, go, java): a shortcut for the type's
    /// extensions. Use either glob or type, not both.
    #[serde(rename = "type")]
    pub file_type: Option<String>,
    /// Output mode: "content" shows matching lines, "files_with_matches" shows file paths
    /// (default), "count" shows match counts.
    pub output_mode: Option<GrepMode>,
    /// Case insensitive search.
    #[serde(rename = "-i")]
    pub case_insensitive: Option<bool>,
    /// Show line numbers in output (content mode). Line numbers are always shown.
    #[serde(rename = "-n")]
    pub line_numbers: Option<bool>,
    /// Number of lines to show after each match (content mode).
    #[serde(rename = "-A")]
    pub after: Option<u64>,
    /// Number of lines to show before each match (content mode).
    #[serde(rename = "-B")]
    pub before: Option<u64>,
    /// Number of lines to show before and after each match (content mode).
    #[serde(rename = "-C")]
    pub around: Option<u64>,
    /// Alias for -C.
    pub context: Option<u64>,
    /// Limit output to the first N entries (lines, files or counts).
    pub head_limit: Option<u64>,
    /// Skip the first N entries before applying head_limit (default 0).
    pub offset: Option<u64>,
    /// Enable multiline mode where . matches newlines and patterns can span lines (default
    /// false).
    pub multiline: Option<bool>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct BashArgs {
    /// The command to execute.
    pub command: String,
    /// Optional timeout in milliseconds (max 600000).
    pub timeout: Option<u64>,
    /// Clear, concise description of what this command does in 5-10 words.
    pub description: Option<String>,
}

/// The file's bytes now, or `None` when nothing is there.
fn current_bytes(path: &WorkPath, ctx: &Ctx) -> ToolResult<Option<Vec<u8>>> {
    match confine::lstat(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        _ => text::read_capped(path, ctx).map(Some),
    }
}

/// Refuses unless the model has read `path` through this tools object and it is unchanged.
fn require_read(path: &WorkPath, ctx: &Ctx, ledger: &Ledger) -> ToolResult<()> {
    match current_bytes(path, ctx)? {
        Some(bytes) => require_fresh(ledger, &ledger_key(path), &bytes, &path.display),
        None => Err(ToolError::new(
            ErrorCode::NotFound,
            format!("File does not exist: {}", as_given(path)),
        )
        .with("path", as_given(path))),
    }
}

/// Records the file as it is now (after a successful write by this tools object).
fn record_now(path: &WorkPath, ctx: &Ctx, ledger: &Ledger) {
    if let Ok(Some(bytes)) = current_bytes(path, ctx) {
        ledger.record(&ledger_key(path), &bytes);
    }
}

pub fn read(v: Value, call: &Call) -> ToolResult<Output> {
    let a: ReadArgs = args(v)?;
    let ctx = call.ctx;
    let path = paths::resolve(ctx, &a.file_path)?;
    // The bytes are read before the engine renders them: if the file changes in between, the
    // ledger holds the older content and a later write is refused as stale (the safe side).
    let bytes = text::read_capped(&path, ctx)?;
    if crate::tools::read_image::sniff(&bytes).is_some() {
        // Claude Code's Read shows an image to the model: the engine's read_image part.
        let out = engine("read_image", json!({ "path": a.file_path }), ctx)?;
        call.ledger.record(&ledger_key(&path), &bytes);
        return Ok(out);
    }
    if path.abs.extension().is_some_and(|e| e == "ipynb") {
        let out = notebook::render(&bytes, &path.display)?;
        call.ledger.record(&ledger_key(&path), &bytes);
        return Ok(out);
    }
    let mut engine_args = json!({ "path": a.file_path });
    // Claude Code reads from the start for offset 0.
    if let Some(o) = a.offset.filter(|&o| o != 0) {
        engine_args["offset"] = json!(o);
    }
    if let Some(l) = a.limit {
        engine_args["limit"] = json!(l);
    }
    let out = engine("read_file", engine_args, ctx)?;
    call.ledger.record(&ledger_key(&path), &bytes);
    if out.joined_text() == "(empty file)" {
        return Ok(Output::text(
            "<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>",
        ));
    }
    Ok(out)
}

pub fn write(v: Value, call: &Call) -> ToolResult<Output> {
    let a: WriteArgs = args(v)?;
    let ctx = call.ctx;
    let path = paths::resolve(ctx, &a.file_path)?;
    let existed = match current_bytes(&path, ctx)? {
        Some(bytes) => {
            require_fresh(call.ledger, &ledger_key(&path), &bytes, &path.display)?;
            true
        }
        None => false,
    };
    engine(
        "write_file",
        json!({ "path": a.file_path, "content": a.content }),
        ctx,
    )?;
    call.ledger.record(&ledger_key(&path), a.content.as_bytes());
    Ok(Output::text(if existed {
        format!(
            "The file {} has been updated successfully.",
            as_given(&path)
        )
    } else {
        format!("File created successfully at: {}", as_given(&path))
    }))
}

/// Claude Code's wording for the engine's match failures.
fn edit_error(err: ToolError, old_string: &str) -> ToolError {
    let message = match err.code {
        ErrorCode::NoMatch => format!(
            "String to replace not found in file.\nString: {old_string}\n{}",
            err.message
        ),
        ErrorCode::InvalidInput if err.message.starts_with("new_string is identical") => {
            "No changes to make: old_string and new_string are exactly the same.".to_string()
        }
        ErrorCode::AmbiguousMatch => format!(
            "Found {} matches of the string to replace, but replace_all is false. To replace all occurrences, set replace_all to true. To replace only one occurrence, please provide more context to uniquely identify the instance.\nString: {old_string}",
            err.fields.get("count").and_then(Value::as_u64).unwrap_or(2)
        ),
        _ => return err,
    };
    ToolError { message, ..err }
}

pub fn edit(v: Value, call: &Call) -> ToolResult<Output> {
    let a: EditArgs = args(v)?;
    let ctx = call.ctx;
    let path = paths::resolve(ctx, &a.file_path)?;
    require_read(&path, ctx, call.ledger)?;
    let mut engine_args = json!({
        "path": a.file_path,
        "old_string": a.old_string,
        "new_string": a.new_string,
    });
    if let Some(all) = a.replace_all {
        engine_args["replace_all"] = json!(all);
    }
    let out =
        engine_text("edit_file", engine_args, ctx).map_err(|e| edit_error(e, &a.old_string))?;
    record_now(&path, ctx, call.ledger);
    Ok(Output::text(updated(&path, &out)))
}

/// "The file … has been updated", with the engine's note when a tolerant match was used.
fn updated(path: &WorkPath, engine_text: &str) -> String {
    let mut text = format!("The file {} has been updated successfully.", as_given(path));
    if let Some((_, note)) = engine_text.split_once(" Note: ") {
        text.push_str(" Note: ");
        text.push_str(note);
    }
    text
}

pub fn multi_edit(v: Value, call: &Call) -> ToolResult<Output> {
    let a: MultiEditArgs = args(v)?;
    let ctx = call.ctx;
    let path = paths::resolve(ctx, &a.file_path)?;
    require_read(&path, ctx, call.ledger)?;
    let edits: Vec<Value> = a
        .edits
        .iter()
        .map(|e| {
            let mut o = json!({ "old_string": e.old_string, "new_string": e.new_string });
            if let Some(all) = e.replace_all {
                o["replace_all"] = json!(all);
            }
            o
        })
        .collect();
    let out = engine_text(
        "multi_edit",
        json!({ "path": a.file_path, "edits": edits }),
        ctx,
    )
    .map_err(|e| {
        // The failing edit (`index`) gets Edit's wording, as Claude Code's MultiEdit gives it.
        let edit = e.fields.get("index").and_then(Value::as_u64);
        match edit.and_then(|i| a.edits.get(i as usize).map(|edit| (i, edit))) {
            Some((i, edit)) => {
                let engine = e
                    .message
                    .strip_prefix(&format!("edit[{i}]: "))
                    .map(str::to_string);
                let e = match engine {
                    Some(message) => ToolError { message, ..e },
                    None => e,
                };
                edit_error(e, &edit.old_string)
            }
            None => e,
        }
    })?;
    record_now(&path, ctx, call.ledger);
    let mut text = format!(
        "Applied {} edit{} to {}.",
        a.edits.len(),
        if a.edits.len() == 1 { "" } else { "s" },
        as_given(&path)
    );
    if let Some((_, note)) = out.split_once(" Note: ") {
        text.push_str(" Note: ");
        text.push_str(note);
    }
    Ok(Output::text(text))
}

/// Claude Code's cap on Glob results.
pub const GLOB_LIMIT: usize = 100;

pub fn glob(v: Value, call: &Call) -> ToolResult<Output> {
    let a: GlobArgs = args(v)?;
    let mut engine_args = json!({ "pattern": a.pattern });
    if let Some(p) = a.path {
        engine_args["path"] = json!(p);
    }
    let out = engine_text("glob", engine_args, call.ctx)?;
    let (rows, _) = path_rows(&out);
    if rows.is_empty() {
        return Ok(Output::text("No files found"));
    }
    let truncated = rows.len() > GLOB_LIMIT;
    let mut text = rows[..rows.len().min(GLOB_LIMIT)].join("\n");
    if truncated {
        text.push_str("\n(Results are truncated. Consider using a more specific path or pattern.)");
    }
    Ok(Output::text(text))
}

/// The extensions of ripgrep's common file types (`rg --type-list`), as one glob.
pub fn type_glob(file_type: &str) -> ToolResult<&'static str> {
    Ok(match file_type {
        "js" => "*.{js,jsx,mjs,cjs,vue}",
        "ts" | "typescript" => "*.{ts,tsx,cts,mts}",
        "py" | "python" => "*.{py,pyi}",
        "rust" | "rs" => "*.rs",
        "go" => "*.go",
        "java" => "*.{java,jsp,jspx,properties}",
        "c" => "*.{c,h,H,cats}",
        "cpp" => "*.{C,cc,cpp,cxx,c++,h,H,hh,hpp,hxx,h++,inl,ipp}",
        "cs" | "csharp" => "*.{cs,csx}",
        "rb" | "ruby" => "*.{rb,gemspec,rake,ru}",
        "php" => "*.{php,php3,php4,php5,phtml}",
        "swift" => "*.swift",
        "kotlin" | "kt" => "*.{kt,kts}",
        "scala" => "*.{scala,sbt}",
        "sh" => "*.{sh,bash,zsh,csh,ksh,tcsh}",
        "html" => "*.{htm,html,ejs}",
        "css" => "*.{css,scss,sass,less}",
        "json" => "*.{json,jsonl,ipynb}",
        "yaml" | "yml" => "*.{yaml,yml}",
        "toml" => "*.toml",
        "md" | "markdown" => "*.{md,markdown,mdx,mkd,mkdn,mdown}",
        "sql" => "*.{sql,psql}",
        "lua" => "*.lua",
        "dart" => "*.dart",
        "elixir" => "*.{ex,exs,eex,heex,leex}",
        "haskell" => "*.{hs,lhs}",
        "zig" => "*.zig",
        "xml" => "*.{xml,xsd,xsl,xslt,svg}",
        "txt" => "*.txt",
        other => {
            return Err(ToolError::invalid_input(format!(
                "unknown file type {other:?}: use one of js, ts, py, rust, go, java, c, cpp, cs, rb, php, swift, kotlin, scala, sh, html, css, json, yaml, toml, md, sql, lua, dart, elixir, haskell, zig, xml, txt, or pass a glob instead"
            ))
            .with("field", "type"))
        }
    })
}

pub fn grep(v: Value, call: &Call) -> ToolResult<Output> {
    let a: GrepArgs = args(v)?;
    let ctx = call.ctx;
    let mode = a.output_mode.unwrap_or(GrepMode::FilesWithMatches);
    let glob = match (&a.glob, &a.file_type) {
        (Some(_), Some(_)) => {
            return Err(ToolError::invalid_input(
                "pass either glob or type, not both: type is a shortcut for a glob of the type's extensions",
            ))
        }
        (Some(g), None) => Some(g.clone()),
        (None, Some(t)) => Some(type_glob(t)?.to_string()),
        (None, None) => None,
    };
    let mut e = json!({
        "pattern": a.pattern,
        "output_mode": match mode {
            GrepMode::Content => "content",
            GrepMode::FilesWithMatches => "files_with_matches",
            GrepMode::Count => "count",
        },
    });
    let mut set = |k: &str, v: Option<Value>| {
        if let Some(v) = v {
            e[k] = v;
        }
    };
    set("path", a.path.map(Value::from));
    set("glob", glob.map(Value::from));
    set("ignore_case", a.case_insensitive.map(Value::from));
    set("multiline", a.multiline.map(Value::from));
    set("context", a.around.or(a.context).map(Value::from));
    set("before_context", a.before.map(Value::from));
    set("after_context", a.after.map(Value::from));
    // Files are listed newest first, so their whole list is fetched and paged here.
    let paged_here = mode == GrepMode::FilesWithMatches;
    set("offset", a.offset.filter(|_| !paged_here).map(Value::from));
    set(
        "head_limit",
        a.head_limit
            .filter(|&n| n > 0 && !paged_here)
            .map(Value::from),
    );
    let out = engine_text("grep", e, ctx)?;
    match mode {
        GrepMode::FilesWithMatches => {
            let (rows, footer) = path_rows(&out);
            let files = newest_first(ctx, rows);
            let skip = a.offset.unwrap_or(0) as usize;
            let take = a.head_limit.filter(|&n| n > 0).unwrap_or(u64::MAX) as usize;
            let page: Vec<String> = files.iter().skip(skip).take(take).cloned().collect();
            if page.is_empty() {
                return Ok(Output::text("No files found"));
            }
            let mut text = format!(
                "Found {} file{}\n{}",
                page.len(),
                if page.len() == 1 { "" } else { "s" },
                page.join("\n")
            );
            if skip + page.len() < files.len() {
                text.push_str(&format!(
                    "\n[... {} more files; call again with offset={} ...]",
                    files.len() - skip - page.len(),
                    skip + page.len()
                ));
            }
            if let Some(f) = footer {
                text.push('\n');
                text.push_str(f);
            }
            Ok(Output::text(text))
        }
        GrepMode::Content => {
            if out.starts_with("(no matches)") {
                return Ok(Output::text("No matches found"));
            }
            Ok(Output::text(out))
        }
        GrepMode::Count => {
            let (rows, footer) = path_rows(&out);
            if rows.is_empty() {
                return Ok(Output::text("No matches found"));
            }
            let total: u64 = rows
                .iter()
                .filter_map(|r| r.rsplit_once(':').and_then(|(_, n)| n.parse::<u64>().ok()))
                .sum();
            let mut text = rows.join("\n");
            if let Some(f) = footer {
                text.push('\n');
                text.push_str(f);
            }
            text.push_str(&format!(
                "\n\nFound {total} total occurrence{} across {} file{}.",
                if total == 1 { "" } else { "s" },
                rows.len(),
                if rows.len() == 1 { "" } else { "s" }
            ));
            Ok(Output::text(text))
        }
    }
}

pub fn bash(v: Value, call: &Call) -> ToolResult<Output> {
    let a: BashArgs = args(v)?;
    let run = run_shell("bash", &a.command, None, a.timeout, call.ctx)?;
    let mut output = run.stdout.trim_end_matches('\n').to_string();
    let stderr = run.stderr.trim_end_matches('\n');
    if !stderr.is_empty() {
        if !output.is_empty() {
            output.push('\n');
        }
        output.push_str(stderr);
    }
    match (run.exit_code, run.message) {
        (Some(0), _) => Ok(Output::text(output)),
        (Some(code), _) => Err(ToolError::new(
            ErrorCode::IoError,
            format!("Exit code {code}\n{output}"),
        )
        .with("exit_code", code)),
        (None, message) => Err(ToolError::new(
            if run.timed_out {
                ErrorCode::Timeout
            } else {
                ErrorCode::Aborted
            },
            format!("{}\n{output}", message.unwrap_or_default()),
        )),
    }
}

pub fn notebook_edit(v: Value, call: &Call) -> ToolResult<Output> {
    let a: notebook::EditArgs = args(v)?;
    notebook::edit(a, call)
}
