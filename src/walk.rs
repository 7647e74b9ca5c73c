//! The one file-walking policy behind `glob` and `grep`, and the glob patterns both accept.
//!
//! What a walk yields:
//! - hidden files and directories (dotfiles) are included;
//! - `.git`, `.clarvis` and `.clarvis-tmp-*` are never yielded ([`paths::is_internal_name`]);
//! - with ignore files respected, the git ignore stack: `.gitignore` files from the walk base
//!   down, the `.gitignore` files of parent directories up to the repository root,
//!   `.git/info/exclude`, the global excludes file (`core.excludesFile`, by default
//!   `~/.config/git/ignore`), plus ripgrep's `.ignore` files. They apply whether or not the
//!   workspace is a git repository: inside one, the stack stops at the repository root as git's
//!   does; outside any repository, every parent directory's ignore files apply (ripgrep's
//!   `--no-require-git`);
//! - symlinks are followed (loops are detected and skipped); with confinement on, a link whose
//!   target lies outside the workspace is skipped, as a direct path to it would be refused.
//!
//! Walks run on ripgrep's parallel walker; each thread collects on its own and the results are
//! merged once at the end, unordered: callers sort what they collect.

use std::cmp::Ordering;
use std::ffi::OsString;
use std::fs;
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering as Atomic};
use std::sync::Mutex;

use globset::{GlobBuilder, GlobMatcher};
use ignore::{DirEntry, WalkBuilder, WalkState};

use crate::config::Config;
use crate::error::{ToolError, ToolResult};
use crate::paths;

/// How one walk is set up.
#[derive(Debug, Clone, Default)]
pub struct WalkOptions {
    /// Apply the git ignore stack (and `.ignore` files).
    pub respect_ignore: bool,
    /// Directories every wanted file lies under, relative to the base (from
    /// [`FileGlob::literal_prefix`]): other branches are pruned at the top, while ignore files
    /// are still read from the base down, exactly as in a full walk.
    pub prefix: Vec<OsString>,
}

/// A walker over `base` under the shared policy.
pub fn walker(config: &Config, base: &Path, options: &WalkOptions) -> WalkBuilder {
    let mut builder = WalkBuilder::new(base);
    builder
        .standard_filters(options.respect_ignore)
        .hidden(false)
        .follow_links(true)
        .threads(0);
    if options.respect_ignore {
        let repo = repo_root(base);
        // Inside a repository `require_git` makes the stack stop at its root, as git does;
        // outside any, ignore files still apply.
        builder.require_git(repo.is_some()).parents(true);
        builder.current_dir(repo.unwrap_or_else(|| config.workspace_root.clone()));
    }
    let outside_check = config.confine_to_workspace.then(|| {
        fs::canonicalize(&config.workspace_root).unwrap_or_else(|_| config.workspace_root.clone())
    });
    let prefix = options.prefix.clone();
    builder.filter_entry(move |dent| {
        if paths::is_internal_name(dent.file_name()) {
            return false;
        }
        let depth = dent.depth();
        if depth >= 1 && depth <= prefix.len() {
            let is_dir = dent.file_type().is_some_and(|t| t.is_dir());
            if !is_dir || dent.file_name() != prefix[depth - 1] {
                return false;
            }
        }
        match &outside_check {
            Some(root) if dent.path_is_symlink() => {
                fs::canonicalize(dent.path()).is_ok_and(|target| target.starts_with(root))
            }
            _ => true,
        }
    });
    builder
}

/// The root of the git repository holding `dir` (the nearest ancestor, itself included, with a
/// `.git` directory or file), if any.
pub fn repo_root(dir: &Path) -> Option<PathBuf> {
    let canon = fs::canonicalize(dir).ok()?;
    canon
        .ancestors()
        .find(|a| fs::symlink_metadata(a.join(".git")).is_ok())
        .map(Path::to_path_buf)
}

/// What a parallel walk collected.
#[derive(Debug)]
pub struct Collected<T> {
    /// Every item, in no particular order.
    pub items: Vec<T>,
    /// The walk stopped at the item cap: `items` is not everything.
    pub stopped_early: bool,
}

/// Walks every file `builder` yields on the parallel walker and keeps what `visit` returns.
/// `make_visitor` is called once per walker thread (so each thread can own a buffer and a
/// searcher). At most `cap` items are kept; reaching it stops the walk. Entries that cannot be
/// read (permissions, dangling links, loops) are skipped, as ripgrep does.
pub fn collect_files<T, V, M>(
    builder: &WalkBuilder,
    cap: usize,
    mut make_visitor: M,
) -> Collected<T>
where
    T: Send,
    V: FnMut(&DirEntry) -> Option<T> + Send,
    M: FnMut() -> V,
{
    let shared: Mutex<Vec<T>> = Mutex::new(Vec::new());
    let kept = AtomicUsize::new(0);
    let stopped = AtomicBool::new(false);
    builder.build_parallel().run(|| {
        let mut visit = make_visitor();
        let mut local = Local {
            items: Vec::new(),
            shared: &shared,
        };
        let (kept, stopped) = (&kept, &stopped);
        Box::new(move |entry| {
            let Ok(entry) = entry else {
                return WalkState::Continue;
            };
            if !entry.file_type().is_some_and(|t| t.is_file()) {
                return WalkState::Continue;
            }
            if let Some(item) = visit(&entry) {
                if kept.fetch_add(1, Atomic::Relaxed) >= cap {
                    stopped.store(true, Atomic::Relaxed);
                    return WalkState::Quit;
                }
                local.items.push(item);
            }
            WalkState::Continue
        })
    });
    let items = shared.into_inner().unwrap_or_else(|e| e.into_inner());
    Collected {
        items,
        stopped_early: stopped.into_inner(),
    }
}

/// One walker thread's results, handed to the shared list when the thread finishes.
struct Local<'a, T> {
    items: Vec<T>,
    shared: &'a Mutex<Vec<T>>,
}

impl<T> Drop for Local<'_, T> {
    fn drop(&mut self) {
        let mut shared = self.shared.lock().unwrap_or_else(|e| e.into_inner());
        shared.append(&mut self.items);
    }
}

/// The order results are listed in: by path, component by component (so a directory's entries
/// stay together and `a/b` sorts before `a-b/c`), bytewise within a component. Comparing the
/// bytes with `/` ranked below every other byte gives exactly that order (for the clean paths
/// results show) without splitting either path into components.
pub fn cmp_paths(a: &str, b: &str) -> Ordering {
    let rank = |c: u8| if c == b'/' { 0 } else { c };
    a.bytes().map(rank).cmp(b.bytes().map(rank))
}

/// A glob pattern as `glob` and `grep`'s `glob` filter read it (ripgrep's `--glob` rules):
/// a pattern without `/` matches file names at any depth (`*.rs`); one with `/` matches the
/// path relative to the search base (`src/**/*.rs`; a leading `/` or `./` only anchors it).
/// `*` and `?` never cross `/`, `**` spans directories, `{a,b}` and `[a-z]` work as usual.
#[derive(Debug, Clone)]
pub struct FileGlob {
    matcher: GlobMatcher,
    whole_path: bool,
    prefix: Vec<OsString>,
}

impl FileGlob {
    /// Compiles `pattern`; a bad one is `invalid_input` naming `field` and the parser's reason.
    pub fn new(pattern: &str, field: &str) -> ToolResult<FileGlob> {
        let mut pat = pattern;
        loop {
            if let Some(rest) = pat.strip_prefix("./") {
                pat = rest;
            } else if let Some(rest) = pat.strip_prefix('/') {
                pat = rest;
            } else {
                break;
            }
        }
        if pat.is_empty() {
            return Err(ToolError::invalid_input(format!(
                "{field} is empty: pass a glob such as **/*.ts or *.rs"
            ))
            .with("field", field));
        }
        check_glob_size(pat, field)?;
        let glob = GlobBuilder::new(pat)
            .literal_separator(true)
            .backslash_escape(true)
            .build()
            .map_err(|e| {
                ToolError::invalid_input(format!("invalid glob in {field}: {e}"))
                    .with("field", field)
            })?;
        let whole_path = pat.contains('/');
        let prefix = if whole_path {
            literal_dirs(pat)
        } else {
            Vec::new()
        };
        Ok(FileGlob {
            matcher: glob.compile_matcher(),
            whole_path,
            prefix,
        })
    }

    /// Whether a file at `rel` (relative to the search base) matches.
    pub fn is_match(&self, rel: &Path) -> bool {
        if self.whole_path {
            self.matcher.is_match(rel)
        } else {
            rel.file_name()
                .is_some_and(|name| self.matcher.is_match(name))
        }
    }

    /// The literal leading directories of an anchored pattern (`drivers` for
    /// `drivers/**/Kconfig`): every match lies under them, so the walk can skip the rest.
    pub fn literal_prefix(&self) -> &[OsString] {
        &self.prefix
    }
}

/// The leading components of `pattern` with no glob syntax, excluding the last (file) one.
/// Anything that could make the pruned walk differ from the full one (`.`, `..`, an internal
/// name) ends the prefix.
fn literal_dirs(pattern: &str) -> Vec<OsString> {
    let parts: Vec<&str> = pattern.split('/').collect();
    let mut out = Vec::new();
    for part in &parts[..parts.len().saturating_sub(1)] {
        let plain = !part.is_empty()
            && !part.contains(['*', '?', '[', ']', '{', '}', '\\'])
            && matches!(
                Path::new(part).components().next(),
                Some(Component::Normal(_))
            )
            && !paths::is_internal_name(part.as_ref());
        if !plain {
            break;
        }
        out.push(OsString::from(part));
    }
    out
}

/// Longest glob accepted, in bytes.
const MAX_GLOB_BYTES: usize = 4096;
/// Deepest `{…}` nesting accepted: globset recurses per level, and a deep enough pattern
/// overflows the stack, which no panic guard can catch.
const MAX_GLOB_NESTING: usize = 32;

fn check_glob_size(pat: &str, field: &str) -> ToolResult<()> {
    let mut depth = 0usize;
    let mut deepest = 0usize;
    for b in pat.bytes() {
        match b {
            b'{' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    if pat.len() > MAX_GLOB_BYTES || deepest > MAX_GLOB_NESTING {
        return Err(ToolError::invalid_input(format!(
            "{field} is too complex: at most {MAX_GLOB_BYTES} bytes and {MAX_GLOB_NESTING} nested {{…}} groups"
        ))
        .with("field", field));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn over_deep_or_long_globs_are_refused_before_compiling() {
        let deep = format!("{}a{}", "{".repeat(30_000), "}".repeat(30_000));
        let err = super::check_glob_size(&deep, "pattern").unwrap_err();
        assert!(err.message.contains("too complex"), "{}", err.message);
        assert!(super::check_glob_size(&"a".repeat(5000), "glob").is_err());
        assert!(super::check_glob_size("{a,{b,c}}/**/*.rs", "glob").is_ok());
    }

    use super::*;
    use std::fs;

    use crate::testutil::config_at as config;

    fn tree(root: &Path, files: &[&str]) {
        for f in files {
            let p = root.join(f);
            fs::create_dir_all(p.parent().unwrap()).unwrap();
            fs::write(p, "x").unwrap();
        }
    }

    fn walk(config: &Config, base: &Path, options: &WalkOptions) -> Vec<String> {
        let b = walker(config, base, options);
        let mut got: Vec<String> = collect_files(&b, usize::MAX, || {
            |d: &DirEntry| Some(paths::display_of(base, d.path()))
        })
        .items;
        got.sort_by(|a, b| cmp_paths(a, b));
        got
    }

    #[test]
    fn hidden_included_internal_never() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        tree(
            root,
            &[
                ".env",
                "a/.hidden",
                ".git/config",
                ".clarvis/x",
                "b/.clarvis-tmp-1",
                "b/c",
            ],
        );
        let c = config(root);
        for respect in [true, false] {
            let opts = WalkOptions {
                respect_ignore: respect,
                ..WalkOptions::default()
            };
            assert_eq!(walk(&c, root, &opts), [".env", "a/.hidden", "b/c"]);
        }
    }

    #[test]
    fn ignore_stack_without_a_repository() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        tree(
            root,
            &[
                "a.log",
                "keep.log",
                "sub/b.log",
                "sub/c.txt",
                "sub/d.tmp",
                "e.txt",
            ],
        );
        fs::write(root.join(".gitignore"), "*.log\n!keep.log\n").unwrap();
        fs::write(root.join("sub/.gitignore"), "*.tmp\n").unwrap();
        let c = config(root);
        let on = WalkOptions {
            respect_ignore: true,
            ..WalkOptions::default()
        };
        assert_eq!(
            walk(&c, root, &on),
            [
                ".gitignore",
                "e.txt",
                "keep.log",
                "sub/.gitignore",
                "sub/c.txt"
            ]
        );
        // A base below the root still sees the root's rules.
        assert_eq!(walk(&c, &root.join("sub"), &on), [".gitignore", "c.txt"]);
        assert_eq!(walk(&c, root, &WalkOptions::default()).len(), 8);
    }

    #[test]
    fn parent_rules_stop_at_the_repository_root() {
        let dir = tempfile::tempdir().unwrap();
        let top = dir.path();
        tree(top, &["repo/ws/a.txt", "repo/ws/b.md", "repo/ws/c.rs"]);
        fs::write(top.join(".gitignore"), "*.txt\n").unwrap();
        fs::create_dir_all(top.join("repo/.git/info")).unwrap();
        fs::write(top.join("repo/.gitignore"), "*.md\n").unwrap();
        fs::write(top.join("repo/.git/info/exclude"), "*.rs\n").unwrap();
        let ws = top.join("repo/ws");
        let c = config(&ws);
        let on = WalkOptions {
            respect_ignore: true,
            ..WalkOptions::default()
        };
        // *.md (repo) and *.rs (info/exclude) apply; *.txt above the repository does not.
        assert_eq!(walk(&c, &ws, &on), ["a.txt"]);
        assert_eq!(
            repo_root(&ws),
            Some(fs::canonicalize(top.join("repo")).unwrap())
        );
    }

    #[cfg(unix)]
    #[test]
    fn links_followed_inside_skipped_outside_when_confined() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let root = dir.path();
        tree(root, &["real/f.txt"]);
        tree(outside.path(), &["o.txt"]);
        std::os::unix::fs::symlink(root.join("real"), root.join("linkdir")).unwrap();
        std::os::unix::fs::symlink(root.join("real/f.txt"), root.join("link.txt")).unwrap();
        std::os::unix::fs::symlink(outside.path(), root.join("outdir")).unwrap();
        std::os::unix::fs::symlink(outside.path().join("o.txt"), root.join("out.txt")).unwrap();
        std::os::unix::fs::symlink(root, root.join("real/loop")).unwrap();
        let mut c = config(root);
        let opts = WalkOptions::default();
        assert_eq!(
            walk(&c, root, &opts),
            ["link.txt", "linkdir/f.txt", "real/f.txt"]
        );
        c.confine_to_workspace = false;
        assert_eq!(
            walk(&c, root, &opts),
            [
                "link.txt",
                "linkdir/f.txt",
                "out.txt",
                "outdir/o.txt",
                "real/f.txt"
            ]
        );
    }

    #[test]
    fn prefix_prunes_without_changing_results() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        tree(
            root,
            &[
                "drivers/a/Kconfig",
                "drivers/Kconfig",
                "other/Kconfig",
                "x/drivers",
            ],
        );
        let c = config(root);
        let g = FileGlob::new("drivers/**/Kconfig", "pattern").unwrap();
        assert_eq!(g.literal_prefix(), [OsString::from("drivers")]);
        let opts = WalkOptions {
            respect_ignore: true,
            prefix: g.literal_prefix().to_vec(),
        };
        assert_eq!(
            walk(&c, root, &opts),
            ["drivers/Kconfig", "drivers/a/Kconfig"]
        );
    }

    #[test]
    fn globs_follow_ripgrep_rules() {
        let g = FileGlob::new("*.rs", "pattern").unwrap();
        assert!(g.is_match(Path::new("a/b/c.rs")));
        assert!(g.is_match(Path::new("c.rs")));
        let g = FileGlob::new("src/*.rs", "pattern").unwrap();
        assert!(g.is_match(Path::new("src/c.rs")));
        assert!(!g.is_match(Path::new("src/x/c.rs")));
        assert!(!g.is_match(Path::new("lib/src/c.rs")));
        let g = FileGlob::new("./**/*.{c,h}", "pattern").unwrap();
        assert!(g.is_match(Path::new("x.h")) && g.is_match(Path::new("a/b/x.c")));
        assert!(FileGlob::new("/src/*.rs", "pattern")
            .unwrap()
            .is_match(Path::new("src/a.rs")));
        let e = FileGlob::new("a/[b", "glob").unwrap_err();
        assert!(e.message.contains("unclosed"), "{}", e.message);
        assert_eq!(e.fields["field"], "glob");
        assert!(FileGlob::new("./", "pattern").is_err());
        assert_eq!(literal_dirs("a/../b/*.c"), [OsString::from("a")]);
        assert!(literal_dirs(".git/x/*.c").is_empty());
        assert!(literal_dirs("**/x/*.c").is_empty());
    }

    #[test]
    fn path_order_is_component_wise() {
        let mut paths = vec![
            "a-b/c", "a/b", "a.txt", "a", "a/b/c", "a/b-c", "a/bc", "b", ".x", "A", "a/.h", "é/x",
            "/abs/z", "/abs/y/z",
        ];
        let mut by_components = paths.clone();
        by_components.sort_by(|x, y| Path::new(x).cmp(Path::new(y)));
        paths.sort_by(|x, y| cmp_paths(x, y));
        assert_eq!(paths, by_components);
        assert_eq!(&paths[..4], ["/abs/y/z", "/abs/z", ".x", "A"]);
    }

    #[test]
    fn cap_stops_the_walk() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        tree(root, &["a", "b", "c", "d"]);
        let b = walker(&config(root), root, &WalkOptions::default());
        let got = collect_files(&b, 2, || |_: &DirEntry| Some(()));
        assert_eq!(got.items.len(), 2);
        assert!(got.stopped_early);
        let got = collect_files(&b, 4, || |_: &DirEntry| Some(()));
        assert!(!got.stopped_early);
    }
}
