//! `list_dir`: one directory's entries, directories first, then files with their sizes.

use schemars::JsonSchema;
use serde::Deserialize;

use super::Tool;
use crate::call::Ctx;
use crate::config::Config;
use crate::confine::{Kind, RawEntry};
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
            let names_file = e.kind() == std::io::ErrorKind::NotADirectory;
            // One stat, for the two answers that need it.
            let stat = (names_file || config.contract_exact()).then(|| confine::stat(&dir));
            match stat {
                // The path names a file (not: a file stands where a directory was expected).
                Some(Ok(st)) if names_file && !st.is_dir() => {
                    ToolError::not_a_directory(&dir.input)
                }
                // fsError as the reference words it (wording §4): its stat first, then the
                // directory read (`scandir`), e.g. a directory it may not list.
                Some(Err(st)) if config.contract_exact() => {
                    crate::error::node_fs_error(&st, &dir.input, "stat", &dir.abs)
                }
                Some(Ok(_)) if config.contract_exact() => {
                    crate::error::node_fs_error(&e, &dir.input, "scandir", &dir.abs)
                }
                _ => io_err(e, &dir.input),
            }
        })?;
        let mut listed = Vec::new();
        handle
            .list(&mut listed)
            .map_err(|e| io_err(e, &dir.input))?;
        if listed.is_empty() {
            return Ok(Output::text("(empty directory)"));
        }
        // Symlinks are followed for type and size; an entry whose stat fails (a dangling
        // link) is listed as a file of size 0 (CONTRACT-v0.5-wording §5). An entry the
        // listing already calls a directory needs no stat (no size is shown for it, and it is
        // not a link). A large directory's stats are shared out over the walk pool in batches.
        let batches: Vec<&[RawEntry]> = listed.chunks(STAT_BATCH).collect();
        // At the root the reference stats the name as Node decoded it (U+FFFD for bytes that
        // are not UTF-8), which names no entry: such a name's stat fails (wording §5).
        let lossy_stat_fails = config.contract_exact();
        // Per entry: `None` for a directory, else the file's size.
        let sizes = crate::walk::par_map(batches, |batch| {
            batch
                .iter()
                .map(|entry| match entry.kind {
                    Some(Kind::Dir) => None,
                    _ if lossy_stat_fails && entry.name.to_str().is_none() => Some(0),
                    _ => match handle.stat_follow(&entry.name) {
                        Ok(st) if st.is_dir() => None,
                        Ok(st) => Some(st.len),
                        Err(_) => Some(0),
                    },
                })
                .collect::<Vec<_>>()
        });
        let mut dirs: Vec<String> = Vec::new();
        let mut files: Vec<(String, u64)> = Vec::new();
        for (entry, size) in listed.into_iter().zip(sizes.into_iter().flatten()) {
            let name = entry
                .name
                .into_string()
                .unwrap_or_else(|name| name.to_string_lossy().into_owned());
            match size {
                None => dirs.push(name),
                Some(len) => files.push((name, len)),
            }
        }
        if config.contract_exact() {
            // "name in UTF-16 code-unit order" (CONTRACT-v0.5-wording §5).
            dirs.sort_unstable_by(|a, b| crate::walk::cmp_utf16(a, b));
            files.sort_unstable_by(|a, b| crate::walk::cmp_utf16(&a.0, &b.0));
        } else {
            dirs.sort_unstable();
            files.sort_unstable();
        }
        let mut out = String::with_capacity(
            dirs.iter().map(|d| d.len() + 2).sum::<usize>()
                + files.iter().map(|(f, _)| f.len() + 12).sum::<usize>(),
        );
        for d in &dirs {
            out.push_str(d);
            out.push_str("/\n");
        }
        for (f, size) in &files {
            use std::fmt::Write as _;
            let _ = writeln!(out, "{f}\t{size}");
        }
        out.pop();
        Ok(out.into())
    }
}
