//! `list_dir`: one directory's entries, directories first, then files with their sizes.

use schemars::JsonSchema;
use serde::Deserialize;

use super::Tool;
use crate::call::Ctx;
use crate::config::Config;
use crate::error::{io_err, ToolError, ToolResult};
use crate::output::Output;
use crate::{confine, paths};

/// Entries stated in one batch: a directory of fewer is stated on the calling thread.
const STAT_BATCH: usize = 256;

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
        // Opened beneath the root (following links that stay inside); the entries are judged
        // in that directory fd, so a swapped directory cannot list something outside.
        let handle = confine::open_dir(&dir).map_err(|e| {
            // The path names a file (not: a file stands where a directory was expected).
            let names_file = e.kind() == std::io::ErrorKind::NotADirectory
                && confine::stat(&dir).is_ok_and(|st| !st.is_dir());
            if names_file {
                ToolError::not_a_directory(&dir.input)
            } else {
                io_err(e, &dir.input)
            }
        })?;
        let mut dirs = Vec::new();
        let mut files = Vec::new();
        // Symlinks are followed for type and size; an entry whose stat fails (a dangling
        // link) is listed as a file of size 0 (CONTRACT-v0.5-wording §5). A large directory's
        // stats are shared out over the walk pool in batches.
        let names = handle.entries().map_err(|e| io_err(e, &dir.input))?;
        let batches: Vec<&[std::ffi::OsString]> = names.chunks(STAT_BATCH).collect();
        let stats = crate::walk::par_map(batches, |batch| {
            batch
                .iter()
                .map(|name| handle.stat_follow(name).ok())
                .collect::<Vec<_>>()
        });
        for (name, meta) in names.iter().zip(stats.into_iter().flatten()) {
            let name = name.to_string_lossy().into_owned();
            match meta {
                Some(meta) if meta.is_dir() => dirs.push(name),
                Some(meta) => files.push((name, meta.len)),
                None => files.push((name, 0)),
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
