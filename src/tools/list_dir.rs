//! `list_dir`: one directory's entries, directories first, then files with their sizes.

use std::fs;

use schemars::JsonSchema;
use serde::Deserialize;

use super::Tool;
use crate::call::Ctx;
use crate::config::Config;
use crate::error::{io_err, ErrorCode, ToolError, ToolResult};
use crate::output::Output;
use crate::paths;

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
    const TITLE: &'static str = "List directory";
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
        let mut dirs = Vec::new();
        let mut files = Vec::new();
        for entry in fs::read_dir(&dir.abs).map_err(|e| io_err(e, &dir.display))? {
            let entry = entry.map_err(|e| io_err(e, &dir.display))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            // Symlinks are followed for type and size; a dangling one shows as the link itself.
            let meta = match fs::metadata(entry.path()) {
                Ok(m) => m,
                Err(_) => entry.metadata().map_err(|e| io_err(e, &dir.display))?,
            };
            if meta.is_dir() {
                dirs.push(name);
            } else {
                files.push((name, meta.len()));
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
