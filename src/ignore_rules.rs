//! The ignore stack of a walk: ripgrep's rules (the `ignore` crate's `dir.rs`, which the walks
//! used through `WalkBuilder` before), rebuilt on its `Gitignore` matchers so that every ignore
//! file inside the walk is read through the walk's own directory handles.
//!
//! Per directory, in order of precedence: `.rgignore`, `.ignore`, `.gitignore`, then
//! `.git/info/exclude`; the closest directory's file that says anything wins within each kind,
//! and the first kind that says anything wins. `.gitignore` and `info/exclude` rules stop at
//! the repository root when the walk requires a repository (inside one); the global excludes
//! file applies last. Parent directories of the walk base contribute their files too (read by
//! path: they lie above the walk).

use std::ffi::{OsStr, OsString};
use std::fs::{self, File};
use std::io::{self, BufRead, Read};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use ignore::gitignore::{Gitignore, GitignoreBuilder};
use ignore::Match;

use crate::confine::{Dir, Kind, LinkPolicy, RawEntry};

/// Ignore file names, highest precedence first. `.rgignore` is ripgrep's own.
const NAMES: [&str; 3] = [".rgignore", ".ignore", ".gitignore"];
/// Index of `.gitignore` in [`NAMES`] and [`Layer::matchers`]; `info/exclude` follows it.
const GITIGNORE: usize = 2;
const EXCLUDE: usize = 3;
/// Largest ignore file read; anything bigger is not an ignore file anyone wrote by hand.
const MAX_IGNORE_FILE: u64 = 16 << 20;

/// The rules of one directory (or none, for a directory without ignore files).
#[derive(Debug)]
pub struct Layer {
    parent: Option<Arc<Layer>>,
    /// A directory above the walk base (its matchers see canonical paths).
    absolute_parent: bool,
    /// For a directory inside the walk: its path relative to the base. Its matchers are
    /// rooted at `.` and see a walked path relative to this directory (what
    /// `Gitignore::matched` would strip if they were rooted here, cut off without comparing).
    dir: PathBuf,
    /// `.rgignore`, `.ignore`, `.gitignore`, `info/exclude`.
    matchers: [Arc<Gitignore>; 4],
    /// The directory is a repository root (has `.git` or `.jj`), counted only when the walk
    /// requires a repository.
    has_git: bool,
    /// Some layer here or above is a repository root.
    chain_git: bool,
    /// Some layer here or above has a rule.
    chain_rules: bool,
}

impl Layer {
    fn new(
        parent: Option<Arc<Layer>>,
        absolute_parent: bool,
        dir: PathBuf,
        matchers: [Arc<Gitignore>; 4],
        has_git: bool,
    ) -> Arc<Layer> {
        let rules = matchers.iter().any(|m| !m.is_empty());
        let (pg, pr) = parent
            .as_ref()
            .map_or((false, false), |p| (p.chain_git, p.chain_rules));
        Arc::new(Layer {
            parent,
            absolute_parent,
            dir,
            matchers,
            has_git,
            chain_git: pg || has_git,
            chain_rules: pr || rules,
        })
    }

    fn parents(self: &Arc<Layer>) -> impl Iterator<Item = &Layer> {
        std::iter::successors(Some(&**self), |l| l.parent.as_deref())
    }
}

/// The walk-wide part of the ignore stack.
#[derive(Debug)]
pub struct Rules {
    require_git: bool,
    global: Arc<Gitignore>,
    /// The walk base as walked (lexical) and canonical: local matchers see the first joined
    /// with the relative path, parent-directory matchers the second.
    base_abs: PathBuf,
    base_canon: Option<PathBuf>,
    /// The stack above the base (parent directories), if any.
    top: Option<Arc<Layer>>,
}

/// Which ignore-related names a directory listing holds.
#[derive(Debug, Default)]
pub struct Found {
    files: [bool; 3],
    git: Option<Option<Kind>>,
    jj: bool,
}

impl Found {
    pub fn note(&mut self, entry: &RawEntry) {
        let name = entry.name.as_encoded_bytes();
        match name {
            b".git" => self.git = Some(entry.kind),
            b".jj" => self.jj = true,
            _ => {
                for (i, n) in NAMES.iter().enumerate() {
                    if name == n.as_bytes() {
                        self.files[i] = true;
                    }
                }
            }
        }
    }
    fn any(&self) -> bool {
        self.files.iter().any(|&f| f) || self.git.is_some() || self.jj
    }
}

impl Rules {
    /// The stack for a walk of `base_abs` (its canonical form `base_canon`): the global
    /// excludes file (relative to `cwd`) and the ignore files of every parent directory.
    /// `require_git`: `.gitignore` rules stop at the repository root (a walk inside one).
    pub fn new(
        base_abs: &Path,
        base_canon: Option<PathBuf>,
        require_git: bool,
        cwd: &Path,
    ) -> Rules {
        let global = global_matcher(cwd);
        let mut top: Option<Arc<Layer>> = None;
        if let Some(canon) = &base_canon {
            let mut ancestors: Vec<&Path> = canon.ancestors().skip(1).collect();
            ancestors.reverse();
            for dir in ancestors {
                let matchers = path_matchers(dir);
                let has_git = require_git
                    && (fs::metadata(dir.join(".git")).is_ok() || dir.join(".jj").exists());
                if matchers.iter().all(|m| m.is_empty()) && !has_git {
                    continue;
                }
                top = Some(Layer::new(top, true, PathBuf::new(), matchers, has_git));
            }
        }
        Rules {
            require_git,
            global,
            base_abs: base_abs.to_path_buf(),
            base_canon,
            top,
        }
    }

    /// The stack above the walk base.
    pub fn top(&self) -> Option<Arc<Layer>> {
        self.top.clone()
    }

    /// The stack for a directory at `dir_rel` (relative to the base) whose listing gave
    /// `found`, on top of its parent's stack. Its ignore files are opened through `dir`; one
    /// that is a symlink is followed under the walk's `links` policy.
    pub fn layer(
        &self,
        parent: Option<Arc<Layer>>,
        dir: &Dir,
        dir_rel: &Path,
        found: &Found,
        links: &LinkPolicy,
    ) -> Option<Arc<Layer>> {
        if !found.any() {
            return parent;
        }
        let mut matchers: [Arc<Gitignore>; 4] = std::array::from_fn(|_| empty());
        for (i, name) in NAMES.iter().enumerate() {
            if found.files[i] {
                match links.open_file(dir, OsStr::new(name)).and_then(read_small) {
                    Ok(bytes) => matchers[i] = local_matcher(bytes, || dir_rel.join(name)),
                    // Listed but gone since: nothing to read.
                    Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                    // CONTRACT-v0.5 §1 Logging: `warning: cannot read <path>` for an
                    // unreadable `.gitignore`; its rules are then left out, as before.
                    Err(_) if *name == ".gitignore" => crate::warn::emit(format!(
                        "warning: cannot read {}",
                        self.base_abs.join(dir_rel).join(name).display()
                    )),
                    Err(_) => {}
                }
            }
        }
        let mut git_exists = false;
        if let Some(kind) = found.git {
            let kind = match kind {
                Some(Kind::Symlink) | None => {
                    dir.stat_follow(OsStr::new(".git")).ok().map(|m| m.kind)
                }
                k => k,
            };
            git_exists = kind.is_some();
            let exclude = match kind {
                Some(Kind::Dir) => links
                    .open_dir(dir, OsStr::new(".git"))
                    .and_then(|g| g.open_dir(OsStr::new("info")))
                    .and_then(|info| info.open_file(OsStr::new("exclude")))
                    .and_then(read_small)
                    .ok(),
                Some(Kind::File) => commondir_of_git_file(&self.base_abs.join(dir_rel))
                    .and_then(|common| File::open(common.join("info/exclude")).ok())
                    .and_then(|f| read_small(f).ok()),
                _ => None,
            };
            if let Some(bytes) = exclude {
                matchers[EXCLUDE] = local_matcher(bytes, || dir_rel.join(".git/info/exclude"));
            }
        }
        let has_git = self.require_git
            && (git_exists || (found.jj && dir.stat_follow(OsStr::new(".jj")).is_ok()));
        if matchers.iter().all(|m| m.is_empty()) && !has_git {
            return parent;
        }
        Some(Layer::new(
            parent,
            false,
            dir_rel.to_path_buf(),
            matchers,
            has_git,
        ))
    }

    /// Whether the entry at `rel` (relative to the base) in a directory with stack `layer` is
    /// ignored: ripgrep's `matched_ignore`, first match per kind, closest directory first.
    pub fn is_ignored(&self, layer: Option<&Arc<Layer>>, rel: &Path, is_dir: bool) -> bool {
        let chain_rules = layer.is_some_and(|l| l.chain_rules);
        let any_git = !self.require_git || layer.is_some_and(|l| l.chain_git);
        let global = any_git && !self.global.is_empty();
        if !chain_rules && !global {
            return false;
        }
        let mut found: [Match<()>; 4] = [Match::None, Match::None, Match::None, Match::None];
        let mut saw_git = false;
        let mut canon_path: Option<PathBuf> = None;
        if let Some(layer) = layer.filter(|l| l.chain_rules) {
            for l in layer.parents() {
                let path: &Path = if l.absolute_parent {
                    match &self.base_canon {
                        Some(c) => canon_path.get_or_insert_with(|| c.join(rel)),
                        None => break,
                    }
                } else {
                    below(rel, &l.dir)
                };
                for (i, m) in l.matchers.iter().enumerate() {
                    if !found[i].is_none() || m.is_empty() {
                        continue;
                    }
                    // `.gitignore` and `info/exclude` only while no repository root was passed.
                    if i >= GITIGNORE && (saw_git || !any_git) {
                        continue;
                    }
                    found[i] = m.matched(path, is_dir).map(|_| ());
                }
                saw_git = saw_git || l.has_git;
            }
        }
        let mut verdict = found
            .into_iter()
            .find(|m| !m.is_none())
            .unwrap_or(Match::None);
        if verdict.is_none() && global {
            verdict = self
                .global
                .matched(self.base_abs.join(rel), is_dir)
                .map(|_| ());
        }
        verdict.is_ignore()
    }
}

/// `rel` (a walked path relative to the base) relative to `dir`, one of its directories
/// (`""` for the base): on Unix the bytes after `dir/`, no comparison needed.
#[cfg(unix)]
fn below<'a>(rel: &'a Path, dir: &Path) -> &'a Path {
    use std::os::unix::ffi::OsStrExt;
    let skip = match dir.as_os_str().len() {
        0 => 0,
        n => n + 1,
    };
    let bytes = rel.as_os_str().as_bytes();
    Path::new(OsStr::from_bytes(bytes.get(skip..).unwrap_or_default()))
}

#[cfg(not(unix))]
fn below<'a>(rel: &'a Path, dir: &Path) -> &'a Path {
    rel.strip_prefix(dir).unwrap_or(rel)
}

/// The matcher that matches nothing.
fn empty() -> Arc<Gitignore> {
    static EMPTY: std::sync::LazyLock<Arc<Gitignore>> =
        std::sync::LazyLock::new(|| Arc::new(Gitignore::empty()));
    EMPTY.clone()
}

/// Ignore-file contents whose compiled matchers the cache keeps, at most, and their bytes.
const CACHED_FILES: usize = 4096;
const CACHED_BYTES: usize = 8 << 20;

/// The matcher of an ignore file inside the walk with contents `bytes` (`from` names it, for
/// the matcher's own record). Rooted at `.`, a matcher depends on the contents alone, so the
/// compiled matchers are kept across walks by contents: a tree's few hundred ignore files are
/// compiled once, not on every search (and their lazy DFAs stay warm).
fn local_matcher(bytes: Vec<u8>, from: impl FnOnce() -> PathBuf) -> Arc<Gitignore> {
    type Cache = (std::collections::HashMap<Vec<u8>, Arc<Gitignore>>, usize);
    static CACHE: std::sync::LazyLock<Mutex<Cache>> = std::sync::LazyLock::new(Mutex::default);
    if let Some(gi) = CACHE
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .0
        .get(&bytes)
    {
        return gi.clone();
    }
    let gi = Arc::new(build(Path::new("."), Some((from(), bytes.clone()))));
    let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
    let (map, held) = &mut *cache;
    if map.len() >= CACHED_FILES || *held + bytes.len() > CACHED_BYTES {
        map.clear();
        *held = 0;
    }
    *held += bytes.len();
    map.insert(bytes, gi.clone());
    gi
}

/// Reads a (small) ignore file whole.
fn read_small(file: File) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    file.take(MAX_IGNORE_FILE).read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// A matcher rooted at `root` from one file's contents, read the way `GitignoreBuilder::add`
/// reads a file: line by line, a UTF-8 BOM dropped from the first, stopping at invalid UTF-8.
fn build(root: &Path, contents: Option<(PathBuf, Vec<u8>)>) -> Gitignore {
    let Some((from, bytes)) = contents else {
        return Gitignore::empty();
    };
    let mut builder = GitignoreBuilder::new(root);
    for (i, line) in bytes.split(|&b| b == b'\n').enumerate() {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let Ok(line) = std::str::from_utf8(line) else {
            break;
        };
        let line = if i == 0 {
            line.trim_start_matches('\u{feff}')
        } else {
            line
        };
        let _ = builder.add_line(Some(from.clone()), line);
    }
    builder.build().unwrap_or_else(|_| Gitignore::empty())
}

/// The matchers of a directory above the walk, read by path (`create_gitignore`).
fn path_matchers(dir: &Path) -> [Arc<Gitignore>; 4] {
    let mut matchers: [Arc<Gitignore>; 4] = std::array::from_fn(|_| empty());
    for (i, name) in NAMES.iter().enumerate() {
        let path = dir.join(name);
        if path.exists() {
            let bytes = File::open(&path).and_then(read_small).ok();
            matchers[i] = Arc::new(build(dir, bytes.map(|b| (path, b))));
        }
    }
    let git = dir.join(".git");
    let exclude = match fs::metadata(&git) {
        Ok(m) if m.is_file() => commondir_of_git_file(dir).map(|c| c.join("info/exclude")),
        Ok(_) => Some(git.join("info/exclude")),
        Err(_) => None,
    };
    if let Some(path) = exclude.filter(|p| p.exists()) {
        let bytes = File::open(&path).and_then(read_small).ok();
        matchers[EXCLUDE] = Arc::new(build(dir, bytes.map(|b| (path, b))));
    }
    matchers
}

/// The common git directory of a worktree whose `.git` is a file (`gitdir: …` then
/// `commondir`), as `resolve_git_commondir` finds it.
fn commondir_of_git_file(dir: &Path) -> Option<PathBuf> {
    let first_line = |path: &Path| -> Option<String> {
        let file = File::open(path).ok()?;
        io::BufReader::new(file).lines().next()?.ok()
    };
    let line = first_line(&dir.join(".git"))?;
    let real = PathBuf::from(line.strip_prefix("gitdir: ")?);
    let common = first_line(&real.join("commondir"))?;
    Some(if common.starts_with('.') {
        real.join(common)
    } else {
        PathBuf::from(common)
    })
}

/// What decides the global excludes file: the environment git reads and the config files.
#[derive(Debug, Clone, PartialEq)]
struct GlobalKey {
    cwd: PathBuf,
    env: Vec<Option<OsString>>,
    stamps: Vec<Option<(SystemTime, u64)>>,
}

const GLOBAL_ENV: [&str; 4] = [
    "HOME",
    "XDG_CONFIG_HOME",
    "GIT_CONFIG_GLOBAL",
    "GIT_CONFIG_SYSTEM",
];

fn stamp(path: &Path) -> Option<(SystemTime, u64)> {
    let m = fs::metadata(path).ok()?;
    Some((m.modified().ok()?, m.len()))
}

fn global_key(cwd: &Path) -> GlobalKey {
    let env: Vec<Option<OsString>> = GLOBAL_ENV.iter().map(std::env::var_os).collect();
    #[allow(deprecated)]
    let home = std::env::home_dir();
    let xdg = env[1]
        .clone()
        .filter(|x| !x.is_empty())
        .map(PathBuf::from)
        .or_else(|| home.as_ref().map(|h| h.join(".config")));
    let mut files: Vec<PathBuf> = Vec::new();
    if let Some(p) = env[2].clone().filter(|x| !x.is_empty()) {
        files.push(PathBuf::from(p));
    }
    if let Some(h) = &home {
        files.push(h.join(".gitconfig"));
    }
    if let Some(x) = &xdg {
        files.push(x.join("git/config"));
        files.push(x.join("git/ignore"));
    }
    files.push(
        env[3]
            .clone()
            .filter(|x| !x.is_empty())
            .map_or_else(|| PathBuf::from("/etc/gitconfig"), PathBuf::from),
    );
    if let Some(p) = ignore::gitignore::gitconfig_excludes_path() {
        files.push(p);
    }
    GlobalKey {
        cwd: cwd.to_path_buf(),
        env,
        stamps: files.iter().map(|f| stamp(f)).collect(),
    }
}

/// The global excludes matcher relative to `cwd`, rebuilt only when git's config files, the
/// excludes file or the environment naming them changed.
fn global_matcher(cwd: &Path) -> Arc<Gitignore> {
    static CACHE: Mutex<Vec<(GlobalKey, Arc<Gitignore>)>> = Mutex::new(Vec::new());
    let key = global_key(cwd);
    let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, gi)) = cache.iter().find(|(k, _)| *k == key) {
        return gi.clone();
    }
    let (gi, _) = GitignoreBuilder::new(cwd).build_global();
    let gi = Arc::new(gi);
    cache.retain(|(k, _)| k.cwd != key.cwd);
    if cache.len() >= 8 {
        cache.remove(0);
    }
    cache.push((key, gi.clone()));
    gi
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matchers_rooted_at_dot_see_what_a_rooted_matcher_strips_to() {
        let lines = [
            "*.o", "/build", "build/", "sub/*.c", "**/gen", "!keep.o", "/a/b", "x", "*.c", "!*.c",
            "d/", "a/**/z", "\\#lit", "#c", "", "e*", "!/x", "/*", "a/", "**/b/*.o",
        ];
        let names = [
            "a", "b", "x", "keep.o", "m.o", "z", "gen", "build", "d", "sub", "c.c", "e1", "#lit",
        ];
        let mut rng = crate::testutil::XorShift::new(9);
        for _ in 0..300 {
            let n = 1 + rng.below(6);
            let body: Vec<&str> = (0..n).map(|_| lines[rng.below(lines.len())]).collect();
            let body = body.join("\n").into_bytes();
            let depth = rng.below(3);
            let dir: Vec<&str> = (0..depth).map(|_| names[rng.below(names.len())]).collect();
            let dir = PathBuf::from(dir.join("/"));
            let rooted = build(&dir, Some((dir.join(".gitignore"), body.clone())));
            let dotted = local_matcher(body, || dir.join(".gitignore"));
            for _ in 0..60 {
                let extra = 1 + rng.below(3);
                let mut rel = dir.clone();
                for _ in 0..extra {
                    rel.push(names[rng.below(names.len())]);
                }
                let is_dir = rng.below(2) == 0;
                let want = rooted.matched(&rel, is_dir);
                let got = dotted.matched(below(&rel, &dir), is_dir);
                assert_eq!(
                    (want.is_ignore(), want.is_whitelist()),
                    (got.is_ignore(), got.is_whitelist()),
                    "{dir:?} {rel:?} {is_dir}"
                );
            }
        }
    }

    #[test]
    fn walks_ignore_what_ripgreps_walker_ignores() {
        let names = [
            "a", "b", "x", "keep.o", "m.o", "z", "gen", "build", "d", "sub", "c.c",
        ];
        let lines = [
            "*.o", "/build", "build/", "sub/*.c", "**/gen", "!keep.o", "/a/b", "x", "!x", "d/",
            "a/**/z", "/*.c", "!/c.c", "b",
        ];
        let mut rng = crate::testutil::XorShift::new(21);
        let (mut ignored, mut kept) = (0, 0);
        for round in 0..20 {
            let dir = tempfile::tempdir().unwrap();
            let root = dir.path();
            for _ in 0..80 {
                let depth = 1 + rng.below(4);
                let parts: Vec<&str> = (0..depth).map(|_| names[rng.below(names.len())]).collect();
                let p = root.join(parts.join("/"));
                if p.is_dir() || p.ancestors().skip(1).any(|a| a.is_file()) {
                    continue;
                }
                fs::create_dir_all(p.parent().unwrap()).unwrap();
                fs::write(&p, "x").unwrap();
            }
            let dirs: Vec<PathBuf> = walkdir_dirs(root);
            for d in &dirs {
                if rng.below(2) == 0 {
                    let n = 1 + rng.below(5);
                    let body: Vec<&str> = (0..n).map(|_| lines[rng.below(lines.len())]).collect();
                    let name = [".gitignore", ".ignore", ".rgignore"][rng.below(3)];
                    fs::write(d.join(name), body.join("\n")).unwrap();
                }
            }
            let mut want: Vec<String> = ignore::WalkBuilder::new(root)
                .hidden(false)
                .follow_links(true)
                .require_git(false)
                .git_global(false)
                .add_custom_ignore_filename(".rgignore")
                .build()
                .filter_map(Result::ok)
                .filter(|e| e.file_type().is_some_and(|t| t.is_file()))
                .map(|e| {
                    let rel = e.path().strip_prefix(root).unwrap();
                    rel.to_string_lossy().into_owned()
                })
                .collect();
            want.sort();
            let c = crate::testutil::config_at(root);
            let options = crate::walk::WalkOptions {
                respect_ignore: true,
                follow_links: true,
                ..Default::default()
            };
            let (w, node) =
                crate::walk::Walk::new(&c, root, Dir::open_path(root).unwrap(), &options);
            let mut got: Vec<String> =
                crate::walk::collect_files(&w, node, usize::MAX, &|| false, || {
                    |e: &mut crate::walk::FileEntry<'_>| {
                        Some(e.rel().to_string_lossy().into_owned())
                    }
                })
                .items;
            got.sort();
            assert_eq!(got, want, "round {round}");
            let all = walkdir_files(root);
            ignored += all - got.len();
            kept += got.len();
        }
        // The rules did decide things both ways.
        assert!(
            ignored > 100 && kept > 100,
            "{ignored} ignored, {kept} kept"
        );
    }

    fn walkdir_files(root: &Path) -> usize {
        walkdir_dirs(root)
            .iter()
            .flat_map(|d| fs::read_dir(d).unwrap())
            .filter(|e| e.as_ref().unwrap().file_type().unwrap().is_file())
            .count()
    }

    fn walkdir_dirs(root: &Path) -> Vec<PathBuf> {
        let mut out = vec![root.to_path_buf()];
        let mut i = 0;
        while i < out.len() {
            for e in fs::read_dir(&out[i]).unwrap() {
                let e = e.unwrap();
                if e.file_type().unwrap().is_dir() {
                    out.push(e.path());
                }
            }
            i += 1;
        }
        out
    }

    #[test]
    fn contents_read_like_gitignore_builder_add() {
        let gi = build(
            Path::new("/r"),
            Some((
                PathBuf::from("/r/.gitignore"),
                b"\xef\xbb\xbf*.log\r\n!keep.log\n\n# c\n/a\n".to_vec(),
            )),
        );
        assert!(gi.matched("/r/x.log", false).is_ignore());
        assert!(gi.matched("/r/keep.log", false).is_whitelist());
        assert!(gi.matched("/r/a", true).is_ignore());
        assert!(gi.matched("/r/b/a", true).is_none());
        // Invalid UTF-8 ends the file, as `lines()` does.
        let gi = build(
            Path::new("/r"),
            Some((PathBuf::from("/r/.gitignore"), b"*.a\n\xff\n*.b\n".to_vec())),
        );
        assert!(gi.matched("/r/x.a", false).is_ignore());
        assert!(gi.matched("/r/x.b", false).is_none());
    }
}
