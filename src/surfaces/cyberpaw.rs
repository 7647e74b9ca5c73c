//! The `cyberpaw` surface: CyberPaw's file tools. `Read`, `Write`, `Edit`, `MultiEdit`, `Glob`
//! and `Grep` are Claude Code's (same arguments, same read-before-write rule); `ListDir`,
//! `Move` and `DeleteFile` map onto the engine's `list_dir`, `move` and `remove`.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};

use super::claude_code::{self as cc, GlobArgs, GrepArgs, MultiEditArgs};
use super::claude_code::{EditArgs, ReadArgs, WriteArgs};
use super::ledger::ledger_key;
use super::{args, engine_text, Call, SurfaceTool, SurfaceTool as T};
use crate::confine::WorkPath;
use crate::error::{io_err, ToolError, ToolResult};
use crate::output::Output;
use crate::paths;
use crate::{atomic, confine};

pub static TOOLS: [SurfaceTool; 9] = [
    T::new::<ReadArgs>("Read", cc::READ_DESCRIPTION, false, cc::read),
    T::new::<WriteArgs>("Write", cc::WRITE_DESCRIPTION, true, cc::write),
    T::new::<EditArgs>("Edit", cc::EDIT_DESCRIPTION, true, cc::edit),
    T::new::<MultiEditArgs>(
        "MultiEdit",
        cc::MULTI_EDIT_DESCRIPTION,
        true,
        cc::multi_edit,
    ),
    T::new::<GlobArgs>("Glob", cc::GLOB_DESCRIPTION, false, cc::glob),
    T::new::<GrepArgs>("Grep", cc::GREP_DESCRIPTION, false, cc::grep),
    T::new::<ListDirArgs>("ListDir", LIST_DIR_DESCRIPTION, false, list_dir),
    T::new::<MoveArgs>("Move", MOVE_DESCRIPTION, true, move_),
    T::new::<DeleteArgs>("DeleteFile", DELETE_DESCRIPTION, true, delete_file),
];

const LIST_DIR_DESCRIPTION: &str = "Lists files and directories at a path (not recursive): directories first as `name/`, then files with their size in bytes. The path is relative to the workspace root or absolute inside it; it defaults to the root.";
const MOVE_DESCRIPTION: &str = "Moves or renames a file or directory to a new path (not the directory to put it in); missing parent directories are created. Refuses to overwrite an existing destination. Paths are relative to the workspace root or absolute inside it.";
const DELETE_DESCRIPTION: &str =
    "Deletes a file. Irreversible — use with care. Directories are refused.";

#[derive(Debug, Deserialize, JsonSchema)]
pub struct ListDirArgs {
    /// The directory to list (default: the workspace root).
    pub path: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct MoveArgs {
    /// The file or directory to move.
    pub source: String,
    /// Where to move it (its new path, not the directory to move it into).
    pub destination: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct DeleteArgs {
    /// The file to delete.
    pub file_path: String,
}

fn list_dir(v: Value, call: &Call) -> ToolResult<Output> {
    let a: ListDirArgs = args(v)?;
    let mut e = json!({});
    if let Some(p) = a.path {
        e["path"] = json!(p);
    }
    engine_text("list_dir", e, call.ctx).map(Output::text)
}

fn move_(v: Value, call: &Call) -> ToolResult<Output> {
    let a: MoveArgs = args(v)?;
    let ctx = call.ctx;
    let from = paths::resolve(ctx, &a.source)?;
    let to = paths::resolve(ctx, &a.destination)?;
    let key = ledger_key(&from);
    let is_dir = confine::lstat(&from).is_ok_and(|s| s.is_dir());
    let out = if is_dir {
        move_dir(&from, &to)?
    } else {
        // One file: the engine's move (atomic, bytes and permissions kept).
        engine_text(
            "move",
            json!({ "source": a.source, "destination": a.destination }),
            ctx,
        )
        .map_err(|e| {
            // Move has no `overwrite`: the engine's hint to pass one would fail again.
            if e.message.starts_with("Destination already exists: ") {
                ToolError {
                    message: format!(
                        "destination already exists: {}; choose a new path, or delete it first with DeleteFile",
                        to.display
                    ),
                    ..e
                }
            } else {
                e
            }
        })?
    };
    // What was read at the old path is no longer there.
    call.ledger.forget(&key);
    Ok(Output::text(out))
}

/// Renames a directory (the engine's `move` takes one file): both paths confined, the
/// destination must not exist, its missing parents are created; one `rename`, under both
/// paths' locks.
fn move_dir(from: &WorkPath, to: &WorkPath) -> ToolResult<String> {
    let _lock = atomic::lock(&[&from.abs, &to.abs]);
    if confine::lstat(to).is_ok() {
        return Err(ToolError::invalid_input(format!(
            "destination already exists: {}; choose a new path",
            to.display
        ))
        .with("path", to.display.as_str()));
    }
    if to.abs.starts_with(&from.abs) {
        return Err(ToolError::invalid_input(format!(
            "cannot move the directory {} into itself ({})",
            from.display, to.display
        )));
    }
    // Both ends through directory fds beneath the root: a swapped parent cannot redirect it.
    let (from_dir, from_name) =
        confine::open_parent(from, None).map_err(|e| io_err(e, &from.display))?;
    let mut created = confine::Created::new();
    let (to_dir, to_name) =
        confine::open_parent(to, Some(&mut created)).map_err(|e| io_err(e, &to.display))?;
    from_dir
        .rename(&from_name, &to_dir, &to_name)
        .map_err(|e| io_err(e, &from.display))?;
    Ok(format!("Moved {}/ to {}/", from.display, to.display))
}

fn delete_file(v: Value, call: &Call) -> ToolResult<Output> {
    let a: DeleteArgs = args(v)?;
    let ctx = call.ctx;
    let path = paths::resolve(ctx, &a.file_path)?;
    let key = ledger_key(&path);
    let out = engine_text("remove", json!({ "path": a.file_path }), ctx)?;
    call.ledger.forget(&key);
    Ok(Output::text(out))
}
