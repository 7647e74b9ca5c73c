//! The `openai` surface: the OpenAI Responses API's hosted-schema tools `apply_patch`
//! (`{type: create_file|update_file|delete_file, path, diff}`, V4A diffs) and `shell`
//! (`{commands, timeout_ms, max_output_length}`, a `{stdout, stderr, outcome}` per command).
//! The JavaScript side converts `apply_patch_call` / `shell_call` items to these calls and the
//! results to `*_call_output` items (`responsesCall`, `responsesOutput`).

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};

use super::{args, engine_text, run_shell, Call, SurfaceTool, SurfaceTool as T};
use crate::bound::floor_char_boundary;
use crate::error::{ErrorCode, ToolError, ToolResult};
use crate::output::Output;
use crate::paths;

pub static TOOLS: [SurfaceTool; 2] = [
    T::new::<ApplyPatchArgs>("apply_patch", APPLY_PATCH_DESCRIPTION, true, apply_patch),
    T::new::<ShellArgs>("shell", SHELL_DESCRIPTION, true, shell),
];

const APPLY_PATCH_DESCRIPTION: &str = "Create, update or delete one file. create_file: diff is the new file's lines, each prefixed with `+`. update_file: diff is a V4A diff: hunks starting with `@@` (optionally followed by a line of context such as a function signature), then lines prefixed with ` ` (context), `-` (removed) or `+` (added), and `*** End of File` for a change at the very end. delete_file: no diff. Paths are inside the workspace, relative to its root or absolute.";
const SHELL_DESCRIPTION: &str = "Run shell commands (each with `sh -c` in the workspace root, one after another; a command that times out ends the call). Returns, per command, its stdout, stderr and outcome: {type: \"exit\", exit_code} or {type: \"timeout\"}.";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Operation {
    CreateFile,
    UpdateFile,
    DeleteFile,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct ApplyPatchArgs {
    /// The operation: create_file, update_file or delete_file.
    #[serde(rename = "type")]
    pub operation: Operation,
    /// The file's path (relative to the workspace root, or absolute inside it).
    pub path: String,
    /// The V4A diff (create_file and update_file).
    pub diff: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct ShellArgs {
    /// The commands to run, in order.
    #[schemars(length(min = 1))]
    pub commands: Vec<String>,
    /// The timeout of each command, in milliseconds.
    pub timeout_ms: Option<u64>,
    /// The most characters of each stream returned.
    pub max_output_length: Option<u64>,
}

fn apply_patch(v: Value, call: &Call) -> ToolResult<Output> {
    let a: ApplyPatchArgs = args(v)?;
    if a.path.contains(['\n', '\r']) || a.path.trim().is_empty() {
        return Err(
            ToolError::invalid_input("path must be one non-empty line").with("field", "path")
        );
    }
    if a.path.trim() != a.path {
        return Err(ToolError::invalid_input(
            "path starts or ends with white space, which a patch header cannot carry: pass the file's path without it",
        )
        .with("field", "path"));
    }
    let display = paths::resolve(call.ctx, &a.path)?.display;
    let body = |diff: Option<String>| -> ToolResult<String> {
        match diff {
            Some(d) => {
                check_one_file(&d)?;
                Ok(d.trim_end_matches(['\n', '\r']).to_string())
            }
            None => Err(ToolError::invalid_input(
                "diff is required for create_file and update_file",
            )
            .with("field", "diff")),
        }
    };
    let (patch, done) = match a.operation {
        Operation::CreateFile => {
            let d = body(a.diff)?;
            let sep = if d.is_empty() { "" } else { "\n" };
            (
                format!(
                    "*** Begin Patch\n*** Add File: {}\n{d}{sep}*** End Patch",
                    a.path
                ),
                "Created",
            )
        }
        Operation::UpdateFile => {
            let d = body(a.diff)?;
            (
                format!(
                    "*** Begin Patch\n*** Update File: {}\n{d}\n*** End Patch",
                    a.path
                ),
                "Updated",
            )
        }
        Operation::DeleteFile => (
            format!(
                "*** Begin Patch\n*** Delete File: {}\n*** End Patch",
                a.path
            ),
            "Deleted",
        ),
    };
    engine_text("apply_patch", json!({ "patch": patch }), call.ctx)?;
    Ok(Output::text(format!("{done} {display}")))
}

/// An operation's diff holds the hunks of its one file: a patch header inside it (`*** Update
/// File: …`, `*** End Patch`) would reach files the call does not name, past the guard, which
/// sees `path` alone. `*** End of File` is V4A's own hunk marker.
fn check_one_file(diff: &str) -> ToolResult<()> {
    let header = diff
        .lines()
        .enumerate()
        .find(|(_, line)| crate::patch::codex::is_file_marker(line));
    match header {
        Some((i, line)) => Err(ToolError::invalid_input(format!(
            "diff line {} is a patch header ({}): the diff of one operation holds only the hunks of its own path; make one apply_patch call per file",
            i + 1,
            line.trim_end()
        ))
        .with("field", "diff")),
        None => Ok(()),
    }
}

/// `text` cut to at most `max` characters.
fn cut(text: String, max: Option<u64>) -> String {
    match max {
        Some(max) => match text.char_indices().nth(max as usize) {
            Some((i, _)) => text[..i].to_string(),
            None => text,
        },
        None => text,
    }
}

fn shell(v: Value, call: &Call) -> ToolResult<Output> {
    let a: ShellArgs = args(v)?;
    if a.commands.is_empty() {
        return Err(
            ToolError::invalid_input("commands is empty: pass at least one command")
                .with("field", "commands"),
        );
    }
    let mut results = Vec::new();
    for command in &a.commands {
        let run = run_shell("sh", command, None, a.timeout_ms, call.ctx)?;
        if run.aborted || call.ctx.cancel.is_cancelled() {
            return Err(ToolError::new(ErrorCode::Aborted, "shell call aborted"));
        }
        let outcome = match run.exit_code {
            Some(code) => json!({ "type": "exit", "exit_code": code }),
            None if run.timed_out => json!({ "type": "timeout" }),
            // Killed for flooding its output: reported as a failed exit with the reason.
            None => json!({ "type": "exit", "exit_code": -1 }),
        };
        let mut stderr = run.stderr;
        if run.exit_code.is_none() && !run.timed_out {
            if let Some(m) = &run.message {
                stderr.push_str(m);
            }
        }
        results.push((
            cut(run.stdout, a.max_output_length),
            cut(stderr, a.max_output_length),
            outcome,
        ));
        if run.timed_out {
            break;
        }
    }
    // The JSON must stay whole: past maxOutputBytes, every stream keeps its share.
    let render = |results: &[(String, String, Value)]| {
        let output: Vec<Value> = results
            .iter()
            .map(|(o, e, outcome)| json!({ "stdout": o, "stderr": e, "outcome": outcome }))
            .collect();
        json!({ "output": output, "max_output_length": a.max_output_length }).to_string()
    };
    let mut text = render(&results);
    let budget = call.ctx.max_output_bytes as usize;
    if text.len() > budget {
        let share = (budget / (2 * results.len())).saturating_sub(64) / 2;
        for (o, e, _) in &mut results {
            for s in [o, e] {
                if s.len() > share {
                    let at = floor_char_boundary(s, share);
                    s.truncate(at);
                    s.push_str("…[cut]");
                }
            }
        }
        text = render(&results);
    }
    Ok(Output::text(text))
}
