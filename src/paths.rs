//! Workspace paths: resolving what the model typed, confining it, and showing it back.
//!
//! Relative paths resolve against the workspace root; absolute paths are taken as they are.
//! With confinement on, a path escapes when it climbs out with `..`, names an outside absolute
//! path, or reaches outside through a symlink. [`resolve`] answers the common case up front
//! with the exact contract message: the lexical check, then (on Unix) a walk of the existing
//! part of the path with directory fds ([`crate::confine::check`]), which also covers paths
//! that do not exist yet (a file about to be created under a linked directory). That check is
//! advisory: the I/O itself is done beneath the root's fd ([`crate::confine`]), so a path
//! swapped after the check still cannot lead outside (the fd answer wins).

use std::ffi::{OsStr, OsString};
use std::fs;
use std::path::{Component, Path, PathBuf};
use std::time::SystemTime;

use crate::config::{lexical_absolute, Config};
use crate::confine::{RootSlot, WorkPath};
#[cfg(unix)]
use crate::error::is_escape;
use crate::error::{ErrorCode, ToolError, ToolResult};

/// Resolves `raw` against the workspace and enforces confinement when it is on.
/// An empty string names the workspace root.
pub fn resolve(config: &Config, raw: &str) -> ToolResult<WorkPath> {
    let path = lexical(config, raw)?;
    if config.confine_to_workspace {
        check_confined(&config.workspace_root, &path, raw, config.contract_exact())?;
    }
    if raw.len() > 1 && raw.ends_with('/') {
        check_names_directory(config, &path)?;
    }
    Ok(path)
}

/// [`resolve`] for a read, which changes nothing: the link part of the confinement check is
/// made only when `read` fails. That check is advisory — every I/O runs beneath the root's fd,
/// so a path that leads outside cannot be read — and is there to give an escape the contract's
/// `path_escape` error, which it still gets; a read that succeeds costs no separate walk of
/// the path.
pub fn resolve_for_read<T>(
    config: &Config,
    raw: &str,
    read: impl FnOnce(&WorkPath) -> ToolResult<T>,
) -> ToolResult<(WorkPath, T)> {
    if raw.ends_with('/') {
        let path = resolve(config, raw)?;
        let value = read(&path)?;
        return Ok((path, value));
    }
    let path = lexical(config, raw)?;
    let root = &config.workspace_root;
    if config.confine_to_workspace {
        check_lexical(root, &path, raw)?;
    }
    match read(&path) {
        Ok(value) => Ok((path, value)),
        Err(err) => {
            if config.confine_to_workspace {
                check_links(root, &path, raw, config.contract_exact())?;
            }
            Err(err)
        }
    }
}

/// A path under the root's canonical form, where the root is reached through a symlink
/// (`/tmp` → `/private/tmp` on macOS; the directory `pwd` prints in a command), named from the
/// root as configured: it is inside the workspace, as the contract's realpath check of the
/// longest existing prefix finds. Any other path is returned as it is.
fn rebased(root: &Path, abs: PathBuf) -> PathBuf {
    if abs.starts_with(root) {
        return abs;
    }
    let canon = crate::confine::canonical_root(root);
    match abs.strip_prefix(&canon) {
        Ok(rest) if canon != root && rest.as_os_str().is_empty() => root.to_path_buf(),
        Ok(rest) if canon != root => root.join(rest),
        _ => abs,
    }
}

/// `raw` made absolute and shown, with no check but the one for a NUL byte.
fn lexical(config: &Config, raw: &str) -> ToolResult<WorkPath> {
    if raw.contains('\0') {
        return Err(ToolError::invalid_input(
            "path contains a NUL byte: pass a plain file path",
        ));
    }
    let root = &config.workspace_root;
    let abs = rebased(root, lexical_absolute(Path::new(raw), root));
    let display = display_of(root, &abs);
    Ok(WorkPath {
        abs,
        display,
        input: raw.to_string(),
        within: config.confine_to_workspace.then(|| root.clone()),
        root: RootSlot::default(),
    })
}

/// Resolves an optional path argument, defaulting to the workspace root.
pub fn resolve_or_root(config: &Config, raw: Option<&str>) -> ToolResult<WorkPath> {
    // An omitted path is the root, named `.` as the contract's `path ?? "."` does.
    resolve(config, raw.unwrap_or("."))
}

/// The path as results show it: relative to `root` with `/` separators, `.` for the root
/// itself, and the absolute path when it lies outside.
pub fn display_of(root: &Path, abs: &Path) -> String {
    match abs.strip_prefix(root) {
        Ok(rel) if rel.as_os_str().is_empty() => ".".to_string(),
        Ok(rel) => slash_join(rel),
        Err(_) => abs.to_string_lossy().into_owned(),
    }
}

/// Joins a relative path's components with `/` on every platform.
pub fn slash_join(rel: &Path) -> String {
    let parts: Vec<_> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    parts.join("/")
}

/// A path written with a trailing `/` names a directory, as it does for the OS: a file there is
/// `not_a_file` and nothing there is `not_found` (never a file created under that name). At
/// the contract-exact root the words are fsError's for what the OS answers, `ENOTDIR` and
/// `ENOENT` (CONTRACT-v0.5-wording §4), naming the path as given.
fn check_names_directory(config: &Config, path: &WorkPath) -> ToolResult<()> {
    let display = path.display.as_str();
    let exact = config.contract_exact();
    match crate::confine::stat(path) {
        Ok(meta) if meta.is_dir() => Ok(()),
        Ok(_) if exact => Err(ToolError::new(
            ErrorCode::NotAFile,
            format!("Not a directory: {}", path.input),
        )
        .with("path", path.input.as_str())),
        Ok(_) => Err(ToolError::new(
            ErrorCode::NotAFile,
            format!("{display}/ ends with `/`, which names a directory, but {display} is a file: drop the trailing `/`."),
        )
        .with("path", display)),
        Err(e) if exact => Err(crate::error::node_fs_error(
            &e,
            &path.input,
            "stat",
            &path.abs,
        )),
        Err(_) => Err(ToolError::new(
            ErrorCode::NotFound,
            format!("No such directory: {display}/ (a path ending in `/` names a directory; drop the `/` to name a file)."),
        )
        .with("path", display)),
    }
}

/// The `path_escape` error for `raw`, saying `why` and how to permit outside paths.
pub fn escape_error(raw: &str, root: &Path, why: &str) -> ToolError {
    ToolError::new(
        ErrorCode::PathEscape,
        format!(
            "Path escapes the workspace: {raw} {why}. Use a path inside {}; to permit outside paths, start with confineToWorkspace: false (--allow-outside-workspace).",
            root.display()
        ),
    )
    .with("path", raw)
}

/// Whether the absolute, lexically normalized `abs` passes the confinement check for `root`
/// (exactly [`check_confined`]). The guard's `PathFact.withinWorkspace` is this, whatever
/// `confineToWorkspace` says.
pub fn is_within(root: &Path, abs: &Path) -> bool {
    let path = WorkPath::beneath(root, rebased(root, abs.to_path_buf()), String::new());
    check_confined(root, &path, "", false).is_ok()
}

fn check_confined(root: &Path, path: &WorkPath, raw: &str, loop_is_io: bool) -> ToolResult<()> {
    check_lexical(root, path, raw)?;
    check_links(root, path, raw, loop_is_io)
}

/// The part of the confinement check that needs no I/O: the path must lie under the root.
fn check_lexical(root: &Path, path: &WorkPath, raw: &str) -> ToolResult<()> {
    if !path.abs.starts_with(root) {
        return Err(escape_error(raw, root, "lies outside the workspace"));
    }
    Ok(())
}

/// The part that walks the existing path: no symlink on it may lead outside. A symlink loop
/// counts as an escape, except at the contract root (`loop_is_io`) when the loop is the final
/// name: there the check is the reference's realpath of the longest existing prefix, which
/// such a path passes, and the I/O then reports `ELOOP` in fsError's words (or, for a write,
/// refuses the symlink) (CONTRACT-v0.5-wording §4). A loop further up stays an escape.
fn check_links(root: &Path, path: &WorkPath, raw: &str, loop_is_io: bool) -> ToolResult<()> {
    #[cfg(unix)]
    {
        let is_loop =
            |e: &std::io::Error| e.raw_os_error() == Some(nix::errno::Errno::ELOOP as i32);
        let final_name_loops = || {
            path.abs.parent().is_some_and(|parent| {
                let parent = WorkPath::beneath(root, parent.to_path_buf(), String::new());
                crate::confine::check(&parent).is_ok()
            })
        };
        match crate::confine::check(path) {
            Err(e) if is_escape(&e) || (is_loop(&e) && !(loop_is_io && final_name_loops())) => {
                Err(escape_error(
                    raw,
                    root,
                    "resolves outside the workspace through a symlink (or through a symlink loop)",
                ))
            }
            // Anything else (an unreadable directory, a missing root) is for the I/O to report.
            _ => Ok(()),
        }
    }
    #[cfg(not(unix))]
    {
        let _ = loop_is_io;
        check_canonical(root, &path.abs, raw)
    }
}

#[cfg(not(unix))]
fn check_canonical(root: &Path, abs: &Path, raw: &str) -> ToolResult<()> {
    // The root itself may be reached through a symlink; compare canonical forms.
    let canon_root = fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    let inside = canonical_longest_prefix(abs).is_some_and(|canon| canon.starts_with(&canon_root));
    if !inside {
        return Err(escape_error(
            raw,
            root,
            "resolves outside the workspace through a symlink (or through a symlink loop)",
        ));
    }
    Ok(())
}

/// How many symlinks one resolution may follow before it gives up (as the kernel's ELOOP).
const MAX_LINK_FOLLOWS: usize = 40;

/// Canonicalizes the longest existing prefix of `abs` and appends the rest unchanged. A
/// dangling link is followed lexically, so a link to a not-yet-existing outside file still
/// resolves outside. `None` when it cannot be decided (a link loop, too many links): callers
/// that confine must then refuse the path.
pub fn canonical_longest_prefix(abs: &Path) -> Option<PathBuf> {
    let mut existing = abs.to_path_buf();
    let mut rest: Vec<OsString> = Vec::new();
    let mut follows = 0;
    loop {
        if let Ok(mut canon) = fs::canonicalize(&existing) {
            for part in rest.iter().rev() {
                canon.push(part);
            }
            return Some(canon);
        }
        // A dangling link: continue from its target, resolved against its directory.
        if let Ok(target) = fs::read_link(&existing) {
            follows += 1;
            if follows > MAX_LINK_FOLLOWS {
                return None;
            }
            let parent = existing.parent().unwrap_or(Path::new("/")).to_path_buf();
            existing = lexical_absolute(&target, &parent);
            continue;
        }
        match (existing.file_name(), existing.parent()) {
            (Some(name), Some(parent)) => {
                rest.push(name.to_os_string());
                existing = parent.to_path_buf();
            }
            _ => return None,
        }
    }
}

/// One key per file however it is spelled (for locks and duplicate detection): the canonical
/// form where it can be decided, else the lexical one.
pub fn identity(abs: &Path) -> PathBuf {
    canonical_longest_prefix(abs).unwrap_or_else(|| abs.to_path_buf())
}

/// True when `rel` (as shown to the model) contains a path component that the search tools
/// never report: `.git`, `.clarvis`, or a `.clarvis-tmp-*` temp file.
pub fn is_internal(rel: &Path) -> bool {
    rel.components().any(|c| match c {
        Component::Normal(name) => is_internal_name(name),
        _ => false,
    })
}

/// True for one path component the search tools never report: `.git`, `.clarvis`, or a
/// `.clarvis-tmp-*` temp file. The walkers test each entry's file name with this.
pub fn is_internal_name(name: &std::ffi::OsStr) -> bool {
    let bytes = name.as_encoded_bytes();
    bytes == b".git" || bytes == b".clarvis" || bytes.starts_with(TEMP_PREFIX.as_bytes())
}

/// The prefix of the atomic-write temp files placed beside their targets.
pub const TEMP_PREFIX: &str = ".clarvis-tmp-";

/// A temp-file name: `.clarvis-tmp-` and 12 random ASCII letters and digits (the pattern the
/// stale-temp sweep matches).
pub fn temp_name() -> OsString {
    use std::hash::{BuildHasher, Hasher};
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    // std's RandomState is seeded from the OS once per thread and differs for every call;
    // the counter and the clock make each name's input unique as well.
    let random = || {
        let mut h = std::hash::RandomState::new().build_hasher();
        h.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
        h.write_u128(
            SystemTime::now()
                .duration_since(SystemTime::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos()),
        );
        h.finish()
    };
    let mut name = String::from(TEMP_PREFIX);
    let mut bits = 0u64;
    for i in 0..12 {
        // 62^6 < 2^64: six characters per 64 random bits.
        if i % 6 == 0 {
            bits = random();
        }
        name.push(ALPHABET[(bits % ALPHABET.len() as u64) as usize] as char);
        bits /= ALPHABET.len() as u64;
    }
    name.into()
}

/// True for a name [`temp_name`] makes.
pub fn is_temp_name(name: &OsStr) -> bool {
    let bytes = name.as_encoded_bytes();
    let prefix = TEMP_PREFIX.as_bytes();
    bytes.len() == prefix.len() + 12
        && bytes.starts_with(prefix)
        && bytes[prefix.len()..].iter().all(u8::is_ascii_alphanumeric)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(root: &Path, confine: bool) -> Config {
        Config {
            confine_to_workspace: confine,
            ..crate::testutil::config_at(root)
        }
    }

    #[test]
    fn temp_names_are_unique_and_recognized() {
        let names: std::collections::HashSet<OsString> = (0..1000).map(|_| temp_name()).collect();
        assert_eq!(names.len(), 1000);
        assert!(names.iter().all(|n| is_temp_name(n) && is_internal_name(n)));
        assert!(!is_temp_name(OsStr::new(".clarvis-tmp-mine")));
    }

    #[test]
    fn relative_and_root_display() {
        let dir = tempfile::tempdir().unwrap();
        let c = config(dir.path(), true);
        assert_eq!(resolve(&c, "").unwrap().display, ".");
        assert_eq!(resolve(&c, "a/./b/../c.txt").unwrap().display, "a/c.txt");
        let abs = dir.path().join("x");
        assert_eq!(resolve(&c, abs.to_str().unwrap()).unwrap().display, "x");
    }

    /// A root reached through a symlink: the real directory's paths are the workspace's too
    /// (what `pwd` prints in a command), shown from the root as configured; a sibling of the
    /// real directory is still outside.
    #[cfg(unix)]
    #[test]
    fn a_path_under_the_roots_real_directory_is_inside() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real");
        std::fs::create_dir_all(real.join("sub")).unwrap();
        std::fs::create_dir_all(dir.path().join("realx")).unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let c = config(&link, true);
        let canon = std::fs::canonicalize(&real).unwrap();
        let p = resolve(&c, canon.join("sub/a.txt").to_str().unwrap()).unwrap();
        assert_eq!(
            (p.display.as_str(), p.abs.clone()),
            ("sub/a.txt", link.join("sub/a.txt"))
        );
        assert_eq!(resolve(&c, canon.to_str().unwrap()).unwrap().display, ".");
        assert!(is_within(&link, &canon.join("sub")));
        let sibling = std::fs::canonicalize(dir.path().join("realx")).unwrap();
        assert!(resolve(&c, sibling.to_str().unwrap()).is_err());
        assert!(!is_within(&link, &sibling));
    }

    #[test]
    fn climbs_and_outside_absolute_escape() {
        let dir = tempfile::tempdir().unwrap();
        let c = config(dir.path(), true);
        for raw in ["../x", "a/../../x", "/etc/passwd"] {
            let e = resolve(&c, raw).unwrap_err();
            assert_eq!(e.code, ErrorCode::PathEscape, "{raw}");
            assert!(e.message.contains("confineToWorkspace"));
        }
        let open = config(dir.path(), false);
        assert_eq!(
            resolve(&open, "/etc/passwd").unwrap().display,
            "/etc/passwd"
        );
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_out_escape_including_dangling_and_new_children() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::os::unix::fs::symlink(outside.path(), root.join("out")).unwrap();
        std::os::unix::fs::symlink(outside.path().join("nope"), root.join("dangling")).unwrap();
        fs::create_dir(root.join("in")).unwrap();
        std::os::unix::fs::symlink(root.join("in"), root.join("inlink")).unwrap();
        let c = config(root, true);
        for raw in ["out", "out/new.txt", "dangling"] {
            assert_eq!(
                resolve(&c, raw).unwrap_err().code,
                ErrorCode::PathEscape,
                "{raw}"
            );
        }
        assert!(resolve(&c, "inlink/new.txt").is_ok());
        let deep: Vec<String> = (0..70).map(|i| format!("d{i}")).collect();
        let raw = format!("out/{}/f.txt", deep.join("/"));
        assert_eq!(resolve(&c, &raw).unwrap_err().code, ErrorCode::PathEscape);
    }

    #[cfg(unix)]
    #[test]
    fn link_loops_are_refused_when_confined() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::os::unix::fs::symlink(root.join("b"), root.join("a")).unwrap();
        std::os::unix::fs::symlink(root.join("a"), root.join("b")).unwrap();
        // With extras an escape; at the contract root the realpath of the longest existing
        // prefix passes a loop that is the final name, and the I/O reports ELOOP
        // (CONTRACT-v0.5-wording §4). A loop further up stays an escape everywhere.
        let c = config(root, true);
        let extras = Config {
            extras: true,
            ..c.clone()
        };
        for name in ["a", "a/x"] {
            let e = resolve(&extras, name).unwrap_err();
            assert_eq!(e.code, ErrorCode::PathEscape);
            assert!(!is_within(root, &root.join(name)));
        }
        assert!(resolve(&c, "a").is_ok());
        assert_eq!(resolve(&c, "a/x").unwrap_err().code, ErrorCode::PathEscape);
    }

    /// A read resolved with the link check deferred fails exactly as one checked first, escapes
    /// included, and reads what the checked one reads.
    #[cfg(unix)]
    #[test]
    fn reads_checked_late_fail_and_succeed_as_checked_ones() {
        use std::os::unix::fs::symlink;
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::write(outside.path().join("secret"), "s").unwrap();
        fs::write(root.join("f.txt"), "inside").unwrap();
        fs::create_dir(root.join("in")).unwrap();
        symlink(outside.path(), root.join("out")).unwrap();
        symlink(outside.path().join("secret"), root.join("secret-link")).unwrap();
        symlink(outside.path().join("nope"), root.join("dangling")).unwrap();
        symlink(root.join("f.txt"), root.join("abs-in")).unwrap();
        symlink(root.join("b"), root.join("a")).unwrap();
        symlink(root.join("a"), root.join("b")).unwrap();
        let outside_abs = outside.path().join("secret");
        let c = config(root, true);
        let read = |path: &WorkPath| crate::text::read_capped(path, &c);
        for raw in [
            "f.txt",
            "abs-in",
            "in",
            "in/",
            "missing.txt",
            "in/missing/x",
            "out/secret",
            "out/new.txt",
            "secret-link",
            "dangling",
            "a/x",
            "a",
            "../x",
            outside_abs.to_str().unwrap(),
        ] {
            let early = resolve(&c, raw).and_then(|p| read(&p));
            let late = resolve_for_read(&c, raw, read).map(|(_, bytes)| bytes);
            match (early, late) {
                (Ok(a), Ok(b)) => assert_eq!(a, b, "{raw}"),
                (Err(a), Err(b)) => assert_eq!(a.envelope(), b.envelope(), "{raw}"),
                (a, b) => panic!("{raw}: {a:?} vs {b:?}"),
            }
        }
        let (_, bytes) = resolve_for_read(&c, "abs-in", read).unwrap();
        assert_eq!(bytes, b"inside");
        let e = resolve_for_read(&c, "secret-link", read).unwrap_err();
        assert_eq!(e.code, ErrorCode::PathEscape);
    }

    #[test]
    fn a_trailing_slash_names_a_directory() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("a.txt"), "x").unwrap();
        fs::create_dir(dir.path().join("d")).unwrap();
        let c = config(dir.path(), true);
        assert_eq!(resolve(&c, "a.txt/").unwrap_err().code, ErrorCode::NotAFile);
        assert_eq!(resolve(&c, "new/").unwrap_err().code, ErrorCode::NotFound);
        assert_eq!(resolve(&c, "d/").unwrap().display, "d");
        assert!(resolve(&c, "/").is_err(), "outside, confined");
    }

    #[test]
    fn nul_is_invalid_input() {
        let dir = tempfile::tempdir().unwrap();
        let c = config(dir.path(), true);
        assert_eq!(
            resolve(&c, "a\0b").unwrap_err().code,
            ErrorCode::InvalidInput
        );
    }

    #[test]
    fn internal_names() {
        assert!(is_internal(Path::new(".git/config")));
        assert!(is_internal(Path::new("a/.clarvis/bash-1.log")));
        assert!(is_internal(Path::new("a/.clarvis-tmp-abc")));
        assert!(!is_internal(Path::new("a/.gitignore")));
        assert!(is_internal_name(std::ffi::OsStr::new(".clarvis-tmp-x1")));
        assert!(!is_internal_name(std::ffi::OsStr::new(".github")));
        assert!(!is_internal_name(std::ffi::OsStr::new("x.git")));
    }
}
