//! `glob`: files whose path matches a glob pattern, newest first, on the shared walk policy
//! ([`crate::walk`]) and ripgrep's parallel walker.

use std::time::SystemTime;

use schemars::JsonSchema;
use serde::Deserialize;

use super::Tool;
use crate::call::Ctx;
use crate::config::Config;
use crate::error::{io_err, ErrorCode, ToolError, ToolResult};
use crate::output::Output;
use crate::paths;
use crate::walk::{self, FileGlob, WalkOptions};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// Glob pattern. `**/*.ts` finds .ts files at any depth; a pattern without `/` matches file
    /// names at any depth (`*.rs`, `Cargo.toml`); one with `/` matches paths relative to `path`
    /// (`src/**/*.rs`, `docs/*.md`). `*` and `?` stay within one path segment, `**` spans
    /// directories, `{a,b}` and `[abc]` work as usual.
    pub pattern: String,
    /// Directory to search from (default: the workspace root).
    pub path: Option<String>,
    /// Skip files ignored by the git ignore stack (.gitignore files, .git/info/exclude, the
    /// global excludes file). Default true; the .git directory is never listed.
    pub respect_gitignore: Option<bool>,
}

pub struct Glob;

impl Tool for Glob {
    const NAME: &'static str = "glob";
    const DESCRIPTION: &'static str = "Find files by name pattern under a directory, listed most recently modified first, one path per line (relative to the workspace root). `**/*.ts` finds .ts files at any depth; a pattern without `/` such as `*.rs` also matches file names at any depth; `src/**/*.rs` matches paths under src. Lists files only, hidden files included; files ignored by .gitignore are skipped unless respect_gitignore is false, and .git is never listed. Use grep to search inside files, list_dir to see one directory's entries, read_file to read a file.";
    const MUTATING: bool = false;
    const TITLE: &'static str = "Find files by pattern";
    type Args = Args;

    fn run(args: Args, ctx: &Ctx) -> ToolResult<Output> {
        let config: &Config = ctx;
        crate::pattern::check_len(&args.pattern, "pattern")?;
        let glob = FileGlob::new(&args.pattern, "pattern")?;
        let base = paths::resolve_or_root(config, args.path.as_deref())?;
        let meta = crate::confine::stat(&base).map_err(|e| io_err(e, &base.display))?;
        if !meta.is_dir() {
            return Err(ToolError::new(
                ErrorCode::NotAFile,
                format!(
                    "Not a directory: {} is a file. glob searches a directory; use read_file to read the file.",
                    base.display
                ),
            )
            .with("path", base.display.as_str()));
        }
        let inside_internal = base
            .abs
            .strip_prefix(&config.workspace_root)
            .is_ok_and(paths::is_internal);
        if inside_internal {
            return Ok(Output::text("(no matches)"));
        }
        let options = WalkOptions {
            respect_ignore: args.respect_gitignore.unwrap_or(true),
            prefix: glob.literal_prefix().to_vec(),
        };
        let builder = walk::walker(config, &base.abs, &options);
        let found = walk::collect_files(&builder, usize::MAX, || {
            |dent: &ignore::DirEntry| {
                let path = dent.path();
                if !glob.is_match(path.strip_prefix(&base.abs).ok()?) {
                    return None;
                }
                let mtime = dent
                    .metadata()
                    .ok()
                    .and_then(|m| m.modified().ok())
                    .unwrap_or(SystemTime::UNIX_EPOCH);
                Some((paths::display_of(&config.workspace_root, path), mtime))
            }
        });
        let mut files = found.items;
        if files.is_empty() {
            return Ok(Output::text("(no matches)"));
        }
        files.sort_unstable_by(|(pa, ta), (pb, tb)| {
            tb.cmp(ta).then_with(|| walk::cmp_paths(pa, pb))
        });
        let mut out = String::with_capacity(files.iter().map(|(p, _)| p.len() + 1).sum());
        for (i, (path, _)) in files.iter().enumerate() {
            if i > 0 {
                out.push('\n');
            }
            out.push_str(path);
        }
        Ok(out.into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::fs;
    use std::path::Path;
    use std::time::Duration;

    fn glob(root: &Path, args: serde_json::Value) -> ToolResult<String> {
        let c = crate::testutil::config_at(root);
        crate::testutil::call_text("glob", args, &c)
    }

    fn touch(root: &Path, rel: &str, secs: u64) {
        touch_with(root, rel, rel, secs)
    }

    fn touch_with(root: &Path, rel: &str, body: &str, secs: u64) {
        let p = root.join(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(&p, body).unwrap();
        let t = SystemTime::UNIX_EPOCH + Duration::from_secs(secs);
        fs::File::options()
            .write(true)
            .open(&p)
            .unwrap()
            .set_modified(t)
            .unwrap();
    }

    #[test]
    fn newest_first_ties_by_path() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        touch(root, "old.rs", 1_000);
        touch(root, "src/b.rs", 3_000);
        touch(root, "src/a.rs", 3_000);
        touch(root, "new.rs", 5_000);
        touch(root, "note.md", 9_000);
        assert_eq!(
            glob(root, json!({"pattern": "**/*.rs"})).unwrap(),
            "new.rs\nsrc/a.rs\nsrc/b.rs\nold.rs"
        );
        assert_eq!(
            glob(root, json!({"pattern": "src/*.rs"})).unwrap(),
            "src/a.rs\nsrc/b.rs"
        );
        assert_eq!(
            glob(root, json!({"pattern": "*.rs", "path": "src"})).unwrap(),
            "src/a.rs\nsrc/b.rs"
        );
        assert_eq!(
            glob(root, json!({"pattern": "*.zig"})).unwrap(),
            "(no matches)"
        );
    }

    #[test]
    fn errors() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        touch(root, "f.txt", 1);
        let e = glob(root, json!({"pattern": "[oops"})).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidInput);
        let e = glob(root, json!({"pattern": "*", "path": "f.txt"})).unwrap_err();
        assert_eq!(e.code, ErrorCode::NotAFile);
        let e = glob(root, json!({"pattern": "*", "path": "nope"})).unwrap_err();
        assert_eq!(e.code, ErrorCode::NotFound);
        let e = glob(root, json!({"pattern": "*", "path": ".."})).unwrap_err();
        assert_eq!(e.code, ErrorCode::PathEscape);
    }

    #[test]
    fn gitignore_respected_by_default_and_git_never_listed() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        touch_with(root, ".gitignore", "*.log\n", 1);
        touch(root, "a.log", 2);
        touch(root, ".git/HEAD", 3);
        touch(root, ".hidden", 4);
        assert_eq!(
            glob(root, json!({"pattern": "*"})).unwrap(),
            ".hidden\n.gitignore"
        );
        assert_eq!(
            glob(root, json!({"pattern": "*", "respect_gitignore": false})).unwrap(),
            ".hidden\na.log\n.gitignore"
        );
        assert_eq!(
            glob(root, json!({"pattern": "*", "path": ".git"})).unwrap(),
            "(no matches)"
        );
    }
}
