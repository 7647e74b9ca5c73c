//! `list_dir`: one directory's entries, directories first, then files with their sizes.

use std::fs;

use schemars::JsonSchema;
use serde::Deserialize;

use super::Tool;
use crate::call::Ctx;
use crate::config::Config;
use crate::dirfd::Kind;
use crate::error::{io_err, ErrorCode, ToolError, ToolResult};
use crate::output::Output;
use crate::paths;
use crate::walk;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// Directory to list (default: the workspace root).
    pub path: Option<String>,
}

pub struct ListDir;

impl Tool for ListDir {
    const NAME: &'static str = "list_dir";
    const DESCRIPTION: &'static str = "List the entries of one directory (not recursive): subdirectories first as `name/`, then files as `name<TAB>size in bytes`, each group sorted by name; hidden entries included, ignore files not applied. Use it to get your bearings in a directory. To find files by name pattern across a tree use glob; to find files by content use grep; to read a file use read_file.";
    const MUTATING: bool = false;
    type Args = Args;

    fn run(args: Args, ctx: &Ctx) -> ToolResult<Output> {
        let config: &Config = ctx;
        let dir = paths::resolve_or_root(config, args.path.as_deref())?;
        let meta = fs::metadata(&dir.abs).map_err(|e| io_err(e, &dir.display))?;
        if !meta.is_dir() {
            return Err(ToolError::new(
                ErrorCode::NotAFile,
                format!(
                    "Not a directory: {} is a file. Use read_file to read it.",
                    dir.display
                ),
            )
            .with("path", dir.display.as_str()));
        }
        // Names come from the open directory; each entry is judged relative to it.
        let handle = walk::open_base(config, &dir)?;
        let mut entries = Vec::new();
        handle
            .list(&mut entries)
            .map_err(|e| io_err(e, &dir.display))?;
        let mut dirs = Vec::new();
        let mut files = Vec::new();
        for entry in entries {
            let name = entry.name.to_string_lossy().into_owned();
            // Symlinks are followed for type and size; a dangling one shows as the link itself.
            let meta = match handle.stat(&entry.name, true) {
                Ok(m) => m,
                Err(_) => match handle.stat(&entry.name, false) {
                    Ok(m) => m,
                    // Gone since it was listed.
                    Err(_) => continue,
                },
            };
            if meta.kind == Kind::Dir {
                dirs.push(name);
            } else {
                files.push((name, meta.len));
            }
        }
        if dirs.is_empty() && files.is_empty() {
            return Ok(Output::text("(empty directory)"));
        }
        dirs.sort();
        files.sort();
        let rows: Vec<String> = dirs
            .into_iter()
            .map(|d| format!("{d}/"))
            .chain(files.into_iter().map(|(f, size)| format!("{f}\t{size}")))
            .collect();
        Ok(rows.join("\n").into())
    }
}
