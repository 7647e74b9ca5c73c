//! `glob`: files whose path matches a glob pattern, newest first, on the shared walk policy
//! ([`crate::walk`]).

use std::cmp::Ordering;
use std::path::Path;
use std::sync::Mutex;
use std::time::SystemTime;

use schemars::JsonSchema;
use serde::Deserialize;

use super::Tool;
use crate::bound::{floor_char_boundary, marker};
use crate::call::Ctx;
use crate::config::{Config, Profile};
use crate::error::{ErrorCode, ToolError, ToolResult};
use crate::output::Output;
use crate::paths;
use crate::walk::{self, FileEntry, FileGlob, Walk, WalkOptions};

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
    /// The listing bounds itself: it only orders the entries that can show.
    const BOUNDED: bool = true;
    const TITLE: &'static str = "Find files by pattern";
    type Args = Args;

    fn run(args: Args, ctx: &Ctx) -> ToolResult<Output> {
        let config: &Config = ctx;
        crate::pattern::check_len(&args.pattern, "pattern")?;
        let glob = FileGlob::new(&args.pattern, "pattern")?;
        let base = paths::resolve_or_root(config, args.path.as_deref())?;
        let meta = crate::confine::stat(&base).map_err(|e| {
            crate::error::fs_error(config.contract_exact(), e, &base.input, "stat", &base.abs)
        })?;
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
            show_internal: false,
            follow_links: true,
            prefix: glob.literal_prefix().to_vec(),
            // The walk yields only the files the pattern matches.
            files: Some(glob),
        };
        let dir = walk::open_base(config, &base)?;
        let (walker, root) = Walk::new(config, &base.abs, dir, &options);
        let ties = Ties::of(config);
        // Rows are keyed for sorting as they are found, on the walk's threads.
        let unkeyed: Mutex<Vec<Row>> = Mutex::new(Vec::new());
        let found = walk::collect_files(
            &walker,
            root,
            usize::MAX,
            &|| ctx.cancel.is_cancelled(),
            || {
                |entry: &mut FileEntry<'_>| {
                    let meta = entry.meta();
                    // Files found, for a host that shows progress (nothing when unwatched).
                    ctx.progress.add_file(0);
                    let mtime = meta.map_or(SystemTime::UNIX_EPOCH, |m| m.mtime);
                    let path = rel_string(entry.take_rel());
                    if ties == Ties::CodeUnits {
                        return Some((path.into_bytes(), mtime));
                    }
                    match key_row(path, mtime) {
                        Ok(row) => Some(row),
                        Err(row) => {
                            unkeyed.lock().unwrap_or_else(|e| e.into_inner()).push(row);
                            None
                        }
                    }
                }
            },
        );
        if found.aborted {
            return Err(walk::aborted());
        }
        let prefix = base.display_prefix();
        let unkeyed = unkeyed.into_inner().unwrap_or_else(|e| e.into_inner());
        let budget = config.max_output_bytes as usize;
        Ok(listing_rows(found.items, unkeyed, &prefix, budget, ties).into())
    }
}

/// How paths of the same mtime are ordered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ties {
    /// Folder by folder (`a/x` before `a b`): a listing grouped by directory, the engine's.
    Folders,
    /// The whole paths as JavaScript compares strings (`a b` before `a/x`), as the contracts'
    /// references sort (`ties by path`, CONTRACT.md "glob").
    CodeUnits,
}

impl Ties {
    fn of(config: &Config) -> Ties {
        if config.contract_exact() || config.profile == Profile::Seed {
            Ties::CodeUnits
        } else {
            Ties::Folders
        }
    }
}

/// Newest first, ties by path in UTF-16 code-unit order, on the paths' own bytes.
fn newest_first_utf16(a: &Row, b: &Row) -> Ordering {
    b.1.cmp(&a.1)
        .then_with(|| walk::cmp_utf16_bytes(&a.0, &b.0))
}

/// A relative path as results show it: `/`-separated, invalid UTF-8 replaced.
fn rel_string(rel: std::ffi::OsString) -> String {
    if cfg!(unix) {
        rel.into_string()
            .unwrap_or_else(|rel| rel.to_string_lossy().into_owned())
    } else {
        paths::slash_join(Path::new(&rel))
    }
}

/// Newest first, ties by path.
#[cfg(test)]
fn newest_first(a: &(String, SystemTime), b: &(String, SystemTime)) -> Ordering {
    b.1.cmp(&a.1).then_with(|| walk::cmp_paths(&a.0, &b.0))
}

/// A path to list with its mtime. The path's bytes are a sort key: `/` swapped for NUL when
/// keyed (see [`key_row`]).
type Row = (Vec<u8>, SystemTime);

/// Newest first, ties by path, on keyed rows: plain byte order (memcmp) is path order.
fn newest_first_keyed(a: &Row, b: &Row) -> Ordering {
    b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0))
}

/// Newest first, ties by path, on rows that hold the paths' own bytes.
fn newest_first_plain(a: &Row, b: &Row) -> Ordering {
    b.1.cmp(&a.1).then_with(|| walk::cmp_path_bytes(&a.0, &b.0))
}

/// The result text: one path per line (`prefix` + relative path), newest first, bounded to
/// `budget` bytes exactly as dispatch bounds text. When not everything fits, only the entries
/// that can show are put in order (a partial selection, not a sort of every match).
#[cfg(test)]
fn listing(files: Vec<(String, SystemTime)>, prefix: &str, budget: usize) -> String {
    let (mut keyed, mut unkeyed) = (Vec::new(), Vec::new());
    for (path, mtime) in files {
        match key_row(path, mtime) {
            Ok(row) => keyed.push(row),
            Err(row) => unkeyed.push(row),
        }
    }
    listing_rows(keyed, unkeyed, prefix, budget, Ties::Folders)
}

/// A path made a sort key. Sorting is mostly comparing paths, so each path's bytes are keyed
/// as it is found: with every `/` swapped for NUL, plain byte order ranks `/` below every
/// other byte, which is the path order of [`walk::cmp_paths`], and a comparison is one
/// `memcmp`. The swap is undone as the text is written. A path that holds a NUL itself (none
/// does: no file system allows one in a name) could not be restored, so it is left as it is
/// (`Err`), and a list with such a row is ordered by `cmp_paths` itself.
fn key_row(path: String, mtime: SystemTime) -> Result<Row, Row> {
    let mut key = path.into_bytes();
    if key.contains(&0) {
        return Err((key, mtime));
    }
    swap_byte(&mut key, b'/', 0);
    Ok((key, mtime))
}

/// [`listing`] of rows keyed by [`key_row`] (`keyed`) and those it could not key; with
/// [`Ties::CodeUnits`] no row is keyed (`keyed` holds the paths' own bytes).
fn listing_rows(
    mut keyed: Vec<Row>,
    unkeyed: Vec<Row>,
    prefix: &str,
    budget: usize,
    ties: Ties,
) -> String {
    if keyed.is_empty() && unkeyed.is_empty() {
        return "(no matches)".to_string();
    }
    if ties == Ties::CodeUnits {
        return write_rows(keyed, prefix, budget, newest_first_utf16, false);
    }
    if unkeyed.is_empty() {
        return write_rows(keyed, prefix, budget, newest_first_keyed, true);
    }
    for (key, _) in &mut keyed {
        swap_byte(key, 0, b'/');
    }
    keyed.extend(unkeyed);
    write_rows(keyed, prefix, budget, newest_first_plain, false)
}

fn swap_byte(bytes: &mut [u8], from: u8, to: u8) {
    for b in bytes {
        if *b == from {
            *b = to;
        }
    }
}

/// [`listing_rows`] once the rows are keyed (or not) and the order to put them in is chosen.
fn write_rows(
    mut rows: Vec<Row>,
    prefix: &str,
    budget: usize,
    order: impl Fn(&Row, &Row) -> Ordering + Copy + Sync + Send,
    keyed: bool,
) -> String {
    let total: usize = rows
        .iter()
        .map(|(p, _)| prefix.len() + p.len() + 1)
        .sum::<usize>()
        - 1;
    let shown = if total <= budget {
        walk::par_sort_unstable_by(&mut rows, order);
        rows.len()
    } else {
        // The fewest leading entries whose text reaches the budget: guess from the average
        // length, widen until the guess is enough.
        let avg = total / rows.len() + 1;
        let mut k = (budget / avg)
            .saturating_mul(2)
            .saturating_add(16)
            .min(rows.len());
        loop {
            if k < rows.len() {
                rows.select_nth_unstable_by(k, order);
            }
            rows[..k].sort_unstable_by(order);
            let covered: usize = rows[..k]
                .iter()
                .map(|(p, _)| prefix.len() + p.len() + 1)
                .sum();
            if covered > budget || k == rows.len() {
                break k;
            }
            k = k.saturating_mul(2).min(rows.len());
        }
    };
    let mut out: Vec<u8> = Vec::with_capacity(budget.min(total) + 64);
    for (i, (path, _)) in rows[..shown].iter().enumerate() {
        if i > 0 {
            out.push(b'\n');
        }
        out.extend_from_slice(prefix.as_bytes());
        let from = out.len();
        out.extend_from_slice(path);
        if keyed {
            swap_byte(&mut out[from..], 0, b'/');
        }
        if out.len() > budget {
            break;
        }
    }
    // The rows were Strings, whole: these bytes are UTF-8.
    let mut out =
        String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into());
    if total <= budget {
        return out;
    }
    // As `bound` cuts the whole text (whose first bytes these are), with the whole length.
    let reserve = marker(total, total, None).len();
    let keep = floor_char_boundary(&out, budget.saturating_sub(reserve));
    out.truncate(keep);
    out.push_str(&marker(keep, total, None));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::fs;
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
    fn ties_compare_whole_paths_at_the_contract_entries_and_folders_with_extras() {
        // CONTRACT.md "glob": "newest mtime first (ties by path)"; the references compare the
        // paths as JavaScript compares strings (UTF-16 code units).
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for rel in [
            "a/x.rs",
            "a.rs",
            "a b.rs",
            "a-c/z.rs",
            "\u{E000}.rs",
            "😀.rs",
        ] {
            touch(root, rel, 3_000);
        }
        let run = |c: Config| crate::testutil::call_text("glob", json!({"pattern": "**/*.rs"}), &c);
        let exact = crate::testutil::config_at(root);
        assert!(exact.contract_exact());
        let code_units = "a b.rs\na-c/z.rs\na.rs\na/x.rs\n😀.rs\n\u{E000}.rs";
        assert_eq!(run(exact.clone()).unwrap(), code_units);
        let seed = Config {
            profile: Profile::Seed,
            ..exact.clone()
        };
        assert_eq!(run(seed).unwrap(), code_units);
        let extras = Config {
            extras: true,
            ..exact
        };
        assert_eq!(
            run(extras).unwrap(),
            "a/x.rs\na b.rs\na-c/z.rs\na.rs\n\u{E000}.rs\n😀.rs"
        );
    }

    #[test]
    fn partial_ordering_bounds_exactly_like_bound_on_the_whole_text() {
        let mut rng = crate::testutil::XorShift::new(7);
        for budget in [1024usize, 2000, 5000, 60_000, 1_000_000] {
            let files: Vec<(String, SystemTime)> = (0..3000)
                .map(|i| {
                    let name = format!("d{}/{}é{i}.rs", rng.below(50), "x".repeat(rng.below(40)));
                    let t = SystemTime::UNIX_EPOCH + Duration::from_secs(rng.below(100) as u64);
                    (name, t)
                })
                .collect();
            let mut sorted = files.clone();
            sorted.sort_by(newest_first);
            let whole: Vec<String> = sorted.iter().map(|(p, _)| format!("sub/{p}")).collect();
            let want = crate::bound::bound(whole.join("\n"), budget);
            assert_eq!(listing(files, "sub/", budget), want, "budget {budget}");
        }
    }

    #[test]
    fn keyed_order_is_path_order_even_where_bytes_disagree() {
        // `-` and `.` sort below `/` as bytes, above it as paths; a NUL (in no real path)
        // turns the keys off and the same order must come out.
        let mut rng = crate::testutil::XorShift::new(3);
        let parts = ["a", "a-b", "a.b", "a/b", "b", "é", "a b", "A", "_"];
        for with_nul in [false, true] {
            let mut files: Vec<(String, SystemTime)> = (0..2000)
                .map(|_| {
                    let n = 1 + rng.below(3);
                    let path: Vec<&str> = (0..n).map(|_| parts[rng.below(parts.len())]).collect();
                    let t = SystemTime::UNIX_EPOCH + Duration::from_secs(rng.below(4) as u64);
                    (path.join("/"), t)
                })
                .collect();
            if with_nul {
                // Unlike `zz/`-anything (none here): `/` and NUL rank alike, so such a pair
                // would be a tie in whatever order an unstable sort leaves it.
                files.push(("zz\0".to_string(), SystemTime::UNIX_EPOCH));
            }
            let mut sorted = files.clone();
            sorted.sort_by(newest_first);
            let whole: Vec<&str> = sorted.iter().map(|(p, _)| p.as_str()).collect();
            for budget in [300usize, 4000, 1 << 20] {
                let want = crate::bound::bound(whole.join("\n"), budget);
                assert_eq!(
                    listing(files.clone(), "", budget),
                    want,
                    "{with_nul} {budget}"
                );
            }
        }
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
