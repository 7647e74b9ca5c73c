//! `tree`: an indented, gitignore-aware directory tree, like the `tree` command. Symlinks are
//! listed (`name@`) and never followed. The walk runs on the shared walker ([`crate::walk`])
//! behind one function, [`list`].

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::Deserialize;

use super::Tool;
use crate::call::Ctx;
use crate::config::Config;
use crate::error::{ErrorCode, ToolError, ToolResult};
use crate::output::Output;
use crate::paths;
use crate::tools::r#move::not_found;
use crate::walk::{self, Walk, WalkOptions};

/// Levels shown when `depth` is absent or 0.
pub const DEFAULT_DEPTH: u64 = 4;
/// Deepest level shown; larger requests are clamped.
pub const MAX_DEPTH: u64 = 20;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Args {
    /// Directory to show (default: the workspace root).
    pub path: Option<String>,
    /// How many levels to show: 1 lists only the directory's own entries. Default 4 (0 also
    /// means 4); at most 20.
    #[schemars(range(min = 0))]
    pub depth: Option<u64>,
    /// Hide what the git ignore stack ignores (and .git itself). Default true; false shows
    /// everything.
    pub respect_gitignore: Option<bool>,
}

pub struct Tree;

impl Tool for Tree {
    const NAME: &'static str = "tree";
    const DESCRIPTION: &'static str = "Show a directory as an indented tree (like the tree command): directories first (`name/`), then files with their size in bytes (`name<TAB>size`); symlinks are shown as `name@` and not followed. Files ignored by .gitignore (and .git) are hidden unless respect_gitignore is false. depth limits how many levels are shown (default 4, at most 20). Use it to get the layout of a project; use list_dir for one directory with details, glob to find files by name.";
    const MUTATING: bool = false;
    const TITLE: &'static str = "Show a directory tree";
    const SINCE_V05: bool = true;
    type Args = Args;

    fn run(args: Args, ctx: &Ctx) -> ToolResult<Output> {
        let config: &Config = ctx;
        let raw = args.path.as_deref().unwrap_or(".");
        let base = paths::resolve(config, raw)?;
        match crate::confine::stat(&base) {
            Ok(m) if m.is_dir() => {}
            Ok(_) => return Err(ToolError::not_a_directory(raw)),
            // The contract's tree hands fsError the display path of its directory
            // (CONTRACT-v0.5-wording §4), not the input: `./gone` is `No such file: gone`.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(not_found(&base.display))
            }
            Err(e) => {
                let exact = config.contract_exact();
                return Err(crate::error::fs_error(
                    exact,
                    e,
                    &base.display,
                    "stat",
                    &base.abs,
                ));
            }
        }
        let depth = match args.depth.unwrap_or(0) {
            0 => DEFAULT_DEPTH,
            d => d.min(MAX_DEPTH),
        } as usize;
        let respect = args.respect_gitignore.unwrap_or(true);
        let cancelled = || ctx.cancel.is_cancelled();
        let entries = list(config, &base, depth, respect, &cancelled)?;
        if cancelled() {
            return Err(ToolError::new(
                ErrorCode::Aborted,
                "tree aborted (run cancelled)",
            ));
        }
        Ok(render(&base.display, entries).into())
    }
}

/// What kind of entry a line shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Dir,
    Symlink,
    File,
}

/// One listed entry: its path relative to the tree's base.
#[derive(Debug, Clone)]
pub struct Entry {
    pub rel: PathBuf,
    pub kind: Kind,
    pub size: u64,
}

/// Every entry under `base` down to `depth` levels, symlinks not followed, with the ignore
/// stack (and the internal names) applied when `respect` is set. Stops early when `cancelled`
/// says so. This is the only place `tree` touches the walker, which lists each directory by
/// descriptor: a directory swapped for a symlink mid-walk is never followed.
pub fn list(
    config: &Config,
    base: &crate::confine::WorkPath,
    depth: usize,
    respect: bool,
    cancelled: &(dyn Fn() -> bool + Sync),
) -> ToolResult<Vec<Entry>> {
    let options = WalkOptions {
        respect_ignore: respect,
        follow_links: false,
        show_internal: !respect,
        ..WalkOptions::default()
    };
    let dir = walk::open_base(config, base)?;
    let (walker, root) = Walk::new(config, &base.abs, dir, &options);
    let mut entries = Vec::new();
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        if cancelled() {
            break;
        }
        // A directory that cannot be listed (vanished, no permission) shows empty.
        let Ok(mut listing) = walker.list(node) else {
            continue;
        };
        for child in std::mem::take(&mut listing.children) {
            let kind = match child.kind {
                crate::confine::Kind::Symlink => Kind::Symlink,
                crate::confine::Kind::Dir => Kind::Dir,
                _ => Kind::File,
            };
            let size = if kind == Kind::File {
                listing.meta(&child).map_or(0, |m| m.len)
            } else {
                0
            };
            entries.push(Entry {
                rel: child.rel().to_path_buf(),
                kind,
                size,
            });
            if kind == Kind::Dir && listing.depth() + 1 < depth {
                stack.push(walker.descend(&listing, child));
            }
        }
    }
    Ok(entries)
}

/// The tree text: the root's display path, then one `├── ` / `└── ` line per entry.
pub fn render(root: &str, entries: Vec<Entry>) -> String {
    let mut children: HashMap<PathBuf, Vec<(String, Kind, u64)>> = HashMap::new();
    for e in entries {
        let parent = e.rel.parent().map(Path::to_path_buf).unwrap_or_default();
        let name = e
            .rel
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        children
            .entry(parent)
            .or_default()
            .push((name, e.kind, e.size));
    }
    for list in children.values_mut() {
        list.sort_by(|a, b| {
            (b.1 == Kind::Dir)
                .cmp(&(a.1 == Kind::Dir))
                .then_with(|| a.0.encode_utf16().cmp(b.0.encode_utf16()))
        });
    }
    let mut out = String::from(root);
    if children.get(Path::new("")).is_none_or(Vec::is_empty) {
        out.push_str("\n(no entries)");
        return out;
    }
    let mut prefix = String::new();
    draw(&children, Path::new(""), &mut prefix, &mut out);
    out
}

fn draw(
    children: &HashMap<PathBuf, Vec<(String, Kind, u64)>>,
    dir: &Path,
    prefix: &mut String,
    out: &mut String,
) {
    let Some(list) = children.get(dir) else {
        return;
    };
    for (i, (name, kind, size)) in list.iter().enumerate() {
        let last = i + 1 == list.len();
        out.push('\n');
        out.push_str(prefix);
        out.push_str(if last { "└── " } else { "├── " });
        out.push_str(name);
        match kind {
            Kind::Dir => out.push('/'),
            Kind::Symlink => out.push('@'),
            Kind::File => {
                out.push('\t');
                out.push_str(&size.to_string());
            }
        }
        if *kind == Kind::Dir {
            let len = prefix.len();
            prefix.push_str(if last { "    " } else { "│   " });
            draw(children, &dir.join(name), prefix, out);
            prefix.truncate(len);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::config_at;
    use std::fs;

    fn run(
        root: &Path,
        path: Option<&str>,
        depth: Option<u64>,
        respect: Option<bool>,
    ) -> ToolResult<String> {
        crate::testutil::run_text::<Tree>(
            Args {
                path: path.map(Into::into),
                depth,
                respect_gitignore: respect,
            },
            &config_at(root),
        )
    }

    fn files(root: &Path, list: &[(&str, &str)]) {
        for (p, body) in list {
            let p = root.join(p);
            fs::create_dir_all(p.parent().unwrap()).unwrap();
            fs::write(p, body).unwrap();
        }
    }

    #[test]
    fn a_missing_directory_is_named_by_its_display_path_a_file_by_its_input() {
        // CONTRACT-v0.5-wording §4: "`<p>` is the caller's `<input>` almost everywhere; ...
        // tree the display path of its directory"; §2 tree: a file → `Not a directory: <input>`.
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        files(root, &[("f.txt", "x")]);
        let e = run(root, Some("./a/../gone"), None, None).unwrap_err();
        assert_eq!(
            e.envelope(),
            r#"{"error":"not_found","message":"No such file: gone","path":"gone"}"#
        );
        let e = run(root, Some("./f.txt"), None, None).unwrap_err();
        assert_eq!(e.message, "Not a directory: ./f.txt");
    }

    #[test]
    fn layout_order_and_labels() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        files(
            root,
            &[
                ("b.txt", "12"),
                ("a/x.rs", "1"),
                ("a/sub/y", ""),
                ("Z/z", "zzz"),
                (".gitignore", "*.log\n"),
                ("skip.log", "x"),
                (".git/HEAD", "x"),
            ],
        );
        std::os::unix::fs::symlink(root.join("a"), root.join("link")).unwrap();
        assert_eq!(
            run(root, None, None, None).unwrap(),
            ".\n├── Z/\n│   └── z\t3\n├── a/\n│   ├── sub/\n│   │   └── y\t0\n│   └── x.rs\t1\n├── .gitignore\t6\n├── b.txt\t2\n└── link@"
        );
        assert_eq!(
            run(root, Some("a"), Some(1), None).unwrap(),
            "a\n├── sub/\n└── x.rs\t1"
        );
        let all = run(root, None, Some(1), Some(false)).unwrap();
        assert!(all.contains(".git/") && all.contains("skip.log"), "{all}");
    }

    #[test]
    fn empty_and_errors() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::create_dir(root.join("e")).unwrap();
        fs::write(root.join("f"), "x").unwrap();
        assert_eq!(run(root, Some("e"), None, None).unwrap(), "e\n(no entries)");
        let e = run(root, Some("f"), None, None).unwrap_err();
        assert_eq!(
            (e.code, e.message.as_str()),
            (ErrorCode::NotAFile, "Not a directory: f")
        );
        assert_eq!(
            run(root, Some("nope"), None, None).unwrap_err().code,
            ErrorCode::NotFound
        );
        assert_eq!(
            run(root, Some(".."), None, None).unwrap_err().code,
            ErrorCode::PathEscape
        );
    }

    #[test]
    fn depth_is_clamped_and_zero_means_default() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let deep: String = (0..25).map(|i| format!("d{i}/")).collect();
        files(root, &[(&format!("{deep}f"), "")]);
        let four = run(root, None, Some(0), None).unwrap();
        assert_eq!(four.lines().count(), 5, "{four}");
        let max = run(root, None, Some(99), None).unwrap();
        assert_eq!(max.lines().count(), 21);
    }
}
