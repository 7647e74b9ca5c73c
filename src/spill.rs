//! The `.clarvis/` spill directory where `bash` writes output too large to show.
//!
//! Spill files are `.clarvis/bash-<token>.<stream>.log` under the workspace root; the directory
//! holds a `.gitignore` of `*` so nothing in it is ever committed. [`sweep`] removes old ones.

use std::fs;
use std::io::{self, Write};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

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
/// processes: `<pid>-<nanoseconds>-<counter>` in hex.
pub fn new_token() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    format!("{:x}-{nanos:x}-{n:x}", std::process::id())
}

/// Writes `bytes` to a new spill file `.clarvis/bash-<token>.<stream>.log` under `root`,
/// creating the directory (with its `.gitignore` of `*`) when needed. Returns the path
/// relative to `root`. An existing file is never overwritten, and a `.clarvis` that is a
/// symlink is refused, so a spill can never write outside the directory.
pub fn write_spill(root: &Path, token: &str, stream: &str, bytes: &[u8]) -> io::Result<String> {
    let dir = root.join(SPILL_DIR);
    ensure_dir(&dir)?;
    let name = format!("bash-{token}.{stream}.log");
    let mut file = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(dir.join(&name))?;
    file.write_all(bytes)?;
    Ok(format!("{SPILL_DIR}/{name}"))
}

/// `<root>/.clarvis`, created (with its `.gitignore` of `*`) when missing; a `.clarvis` that
/// is a symlink or not a directory is refused. Used by the monitors for their files.
pub fn clarvis_dir(root: &Path) -> io::Result<std::path::PathBuf> {
    let dir = root.join(SPILL_DIR);
    ensure_dir(&dir)?;
    Ok(dir)
}

/// Creates the spill directory and its `.gitignore` (content `*`) if they are missing.
fn ensure_dir(dir: &Path) -> io::Result<()> {
    match fs::symlink_metadata(dir) {
        Ok(meta) if meta.is_dir() => {}
        Ok(_) => {
            return Err(io::Error::new(
                io::ErrorKind::AlreadyExists,
                format!("{SPILL_DIR} exists and is not a directory"),
            ))
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => match fs::create_dir(dir) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(e),
        },
        Err(e) => return Err(e),
    }
    let ignore = dir.join(".gitignore");
    if fs::symlink_metadata(&ignore).is_err() {
        match fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&ignore)
        {
            Ok(mut f) => f.write_all(b"*\n")?,
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

fn sweep_older_than(root: &Path, max_age: Duration, now: SystemTime) {
    let Ok(entries) = fs::read_dir(root.join(SPILL_DIR)) else {
        return;
    };
    for entry in entries.flatten() {
        if !entry.file_name().to_string_lossy().starts_with("bash-") {
            continue;
        }
        let Ok(meta) = entry.metadata() else { continue };
        let old = meta
            .modified()
            .ok()
            .and_then(|m| now.duration_since(m).ok())
            .is_some_and(|age| age > max_age);
        if meta.is_file() && old {
            let _ = fs::remove_file(entry.path());
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
