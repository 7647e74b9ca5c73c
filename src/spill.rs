//! The `.clarvis/` spill directory where `bash` writes output too large to show.
//!
//! Spill files are `.clarvis/bash-<token>.<stream>.log` under the workspace root; the directory
//! holds a `.gitignore` of `*` so nothing in it is ever committed. [`sweep`] removes old ones.
//!
//! The directory is only ever reached through [`open_dir`]: opened with `O_NOFOLLOW |
//! O_DIRECTORY` in the workspace root's fd, so a `.clarvis` replaced by a symlink is refused
//! and every file made in it ([`create_file`]) is created with `openat` in that fd. The
//! monitors use the same directory fd for all their files (see the monitors' `Store`).

use std::ffi::OsStr;
use std::fs;
use std::io::{self, Write};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::confine::{Dir, Root};

/// The workspace-relative directory holding spill files.
pub const SPILL_DIR: &str = ".clarvis";
/// Spill files older than this are removed by [`sweep`].
pub const SPILL_MAX_AGE: Duration = Duration::from_secs(24 * 60 * 60);

/// Removes `.clarvis/bash-*` files older than 24 hours under `root`. Never fails: a missing
/// directory or an unremovable file is skipped.
pub fn sweep(root: &Path) {
    sweep_older_than(root, SPILL_MAX_AGE, SystemTime::now());
}

/// A token unique to this call within the process and, through the pid and clock, across
/// processes, in the contract's shape (CONTRACT-v0.5-wording §8):
/// `<pid>-<epochMs>-<counter>-<12 hex>`, the hex mixed from the clock's nanoseconds.
pub fn new_token() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let pid = std::process::id();
    // splitmix64 of the nanoseconds, the counter and the pid: 48 bits that differ per call.
    let mut z = (now.as_nanos() as u64) ^ n.rotate_left(32) ^ u64::from(pid).rotate_left(48);
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    format!(
        "{pid}-{}-{n}-{:012x}",
        now.as_millis(),
        z & 0xFFFF_FFFF_FFFF
    )
}

/// Writes `bytes` to a new spill file `.clarvis/bash-<token>.<stream>.log` under `root`,
/// creating the directory (with its `.gitignore` of `*`) when needed. Returns the path
/// relative to `root`. An existing file is never overwritten, and a `.clarvis` that is a
/// symlink is refused, so a spill can never write outside the directory.
pub fn write_spill(root: &Path, token: &str, stream: &str, bytes: &[u8]) -> io::Result<String> {
    let dir = open_dir(root, true)?;
    let name = format!("bash-{token}.{stream}.log");
    let mut file = create_file(&dir, OsStr::new(&name))?;
    file.write_all(bytes)?;
    Ok(format!("{SPILL_DIR}/{name}"))
}

/// The `.clarvis` directory under the workspace `root`, opened as a directory fd with
/// `O_NOFOLLOW | O_DIRECTORY` in the root's fd: a `.clarvis` that is a symlink (or not a
/// directory) is refused, so nothing done through the returned [`Dir`] can land outside.
/// With `create`, a missing directory is made, with a `.gitignore` of `*` so nothing in it
/// is ever committed. Use [`Dir::entries`], [`Dir::stat`] and [`Dir::remove_file`] to list
/// and remove what is in it, and [`create_file`] to add a file.
pub fn open_dir(root: &Path, create: bool) -> io::Result<Dir> {
    let root = Root::get(root, true)?;
    let name = OsStr::new(SPILL_DIR);
    let dir = match root.dir().open_dir(name) {
        Ok(dir) => dir,
        Err(e) if e.kind() == io::ErrorKind::NotFound && create => {
            match root.dir().mkdir(name, 0o777) {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
                Err(e) => return Err(e),
            }
            root.dir().open_dir(name)?
        }
        Err(e) => {
            return Err(match root.dir().stat(name) {
                Ok(st) if !st.is_dir() => io::Error::new(
                    io::ErrorKind::AlreadyExists,
                    format!("{SPILL_DIR} exists and is not a directory (a symlink is refused)"),
                ),
                _ => e,
            })
        }
    };
    if create {
        let ignore = OsStr::new(".gitignore");
        if dir.stat(ignore).is_err() {
            match dir.create_new(ignore, 0o666) {
                Ok(mut f) => f.write_all(b"*\n")?,
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
                Err(e) => return Err(e),
            }
        }
    }
    Ok(dir)
}

/// Creates the new file `name` in the `.clarvis` directory `dir` (from [`open_dir`]). Never
/// overwrites and never follows a symlink: anything already there is `AlreadyExists`.
pub fn create_file(dir: &Dir, name: &OsStr) -> io::Result<fs::File> {
    dir.create_new(name, 0o666)
}

/// Removes old `bash-*` regular files from `.clarvis`. A `.clarvis` that is a symlink is left
/// alone (never followed), and so is every entry that is not a regular file.
fn sweep_older_than(root: &Path, max_age: Duration, now: SystemTime) {
    let Ok(dir) = open_dir(root, false) else {
        return;
    };
    let Ok(names) = dir.entries() else { return };
    for name in names {
        if !name.as_encoded_bytes().starts_with(b"bash-") {
            continue;
        }
        let Ok(st) = dir.stat(&name) else { continue };
        let old = now.duration_since(st.mtime).is_ok_and(|age| age > max_age);
        if st.is_file() && old {
            let _ = dir.remove_file(&name);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn removes_only_old_bash_files() {
        let dir = tempfile::tempdir().unwrap();
        let spill = dir.path().join(SPILL_DIR);
        fs::create_dir(&spill).unwrap();
        for name in ["bash-a.stdout.log", "keep.txt"] {
            fs::write(spill.join(name), "x").unwrap();
        }
        let later = SystemTime::now() + Duration::from_secs(2 * 24 * 3600);
        sweep_older_than(dir.path(), SPILL_MAX_AGE, later);
        assert!(!spill.join("bash-a.stdout.log").exists());
        assert!(spill.join("keep.txt").exists());
        sweep(Path::new("/definitely/not/here"));
    }

    #[test]
    fn spill_creates_dir_gitignore_and_never_overwrites() {
        let dir = tempfile::tempdir().unwrap();
        let token = new_token();
        let rel = write_spill(dir.path(), &token, "stdout", b"hello").unwrap();
        assert_eq!(rel, format!(".clarvis/bash-{token}.stdout.log"));
        assert_eq!(fs::read(dir.path().join(&rel)).unwrap(), b"hello");
        assert_eq!(
            fs::read_to_string(dir.path().join(".clarvis/.gitignore")).unwrap(),
            "*\n"
        );
        assert!(write_spill(dir.path(), &token, "stdout", b"again").is_err());
        assert_ne!(new_token(), token);
        // `<pid>-<epochMs>-<counter>-<12 hex>` (CONTRACT-v0.5-wording §8).
        let parts: Vec<&str> = token.split('-').collect();
        assert_eq!(parts.len(), 4, "{token}");
        assert_eq!(parts[0], std::process::id().to_string());
        assert!(parts[1].len() >= 13 && parts[1].bytes().all(|b| b.is_ascii_digit()));
        assert!(parts[2].bytes().all(|b| b.is_ascii_digit()));
        assert!(parts[3].len() == 12 && parts[3].bytes().all(|b| b.is_ascii_hexdigit()));
    }

    #[cfg(unix)]
    #[test]
    fn sweep_never_follows_a_symlinked_dir() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        fs::write(outside.path().join("bash-victim.stdout.log"), "keep").unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join(SPILL_DIR)).unwrap();
        let later = SystemTime::now() + Duration::from_secs(2 * 24 * 3600);
        sweep_older_than(dir.path(), SPILL_MAX_AGE, later);
        assert!(outside.path().join("bash-victim.stdout.log").exists());
        // Entries that are links are not followed either.
        fs::remove_file(dir.path().join(SPILL_DIR)).unwrap();
        fs::create_dir(dir.path().join(SPILL_DIR)).unwrap();
        let victim = outside.path().join("bash-victim.stdout.log");
        std::os::unix::fs::symlink(&victim, dir.path().join(".clarvis/bash-link.log")).unwrap();
        sweep_older_than(dir.path(), SPILL_MAX_AGE, later);
        assert_eq!(fs::read_to_string(&victim).unwrap(), "keep");
    }

    #[cfg(unix)]
    #[test]
    fn spill_refuses_a_symlinked_dir() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join(SPILL_DIR)).unwrap();
        assert!(write_spill(dir.path(), "t", "stdout", b"x").is_err());
        assert_eq!(fs::read_dir(outside.path()).unwrap().count(), 0);
    }
}
