//! Atomic writes: per-path locks shared by the whole process, and transactions that change a
//! set of files together or not at all.
//!
//! A transaction commits in three steps:
//! 1. **Stage**: every new content goes to a `.clarvis-tmp-<token>` file beside its target
//!    (created with the target's mode, or `0666 & !umask` for a new file) and is fsynced.
//!    Missing parent directories are created here.
//! 2. **Install**, in order: an existing target is first hard-linked to a backup beside it,
//!    then the staged file is renamed over it (a delete renames the target to its backup). A
//!    rename is atomic, so at every instant each target holds either its entire old or its
//!    entire new content — also if the process is killed. The last step needs no backup:
//!    nothing after it can fail (so a one-file write is just temp file, fsync, rename).
//! 3. **Finish**: backups are removed and the touched directories fsynced.
//!
//! A failure in steps 1–2 rolls back what was installed (backups renamed back, created files
//! and directories removed), and no temp file is left behind either way.

use std::collections::HashSet;
use std::fs::{self, File, Metadata, Permissions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Condvar, LazyLock, Mutex, MutexGuard, PoisonError};

use tempfile::{Builder, NamedTempFile};

use crate::error::{io_err, ErrorCode, ToolError, ToolResult};
use crate::paths::{identity, WorkPath, TEMP_PREFIX};

// ---------------------------------------------------------------------------------------------
// Per-path locks

struct LockTable {
    held: Mutex<HashSet<PathBuf>>,
    freed: Condvar,
}

static LOCKS: LazyLock<LockTable> = LazyLock::new(|| LockTable {
    held: Mutex::new(HashSet::new()),
    freed: Condvar::new(),
});

fn held() -> MutexGuard<'static, HashSet<PathBuf>> {
    LOCKS.held.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Exclusive locks on a set of paths, released on drop.
#[must_use = "the paths are unlocked as soon as this is dropped"]
pub struct PathLocks {
    keys: Vec<PathBuf>,
}

/// Locks `paths` for this process: every call, every config, every `createAgentTools` instance.
/// Blocks until all of them are free, then takes them all at once (so two callers locking
/// overlapping sets cannot deadlock). Paths are keyed by their canonical form, so two spellings
/// of one file share a lock. Take the lock before reading a file you will rewrite.
pub fn lock(paths: &[&Path]) -> PathLocks {
    let mut keys: Vec<PathBuf> = paths.iter().map(|p| identity(p)).collect();
    keys.sort();
    keys.dedup();
    let mut table = held();
    while keys.iter().any(|k| table.contains(k)) {
        table = LOCKS
            .freed
            .wait(table)
            .unwrap_or_else(PoisonError::into_inner);
    }
    table.extend(keys.iter().cloned());
    PathLocks { keys }
}

impl Drop for PathLocks {
    fn drop(&mut self) {
        let mut table = held();
        for k in &self.keys {
            table.remove(k);
        }
        drop(table);
        LOCKS.freed.notify_all();
    }
}

// ---------------------------------------------------------------------------------------------
// Target checks

/// What exists at a mutation target: `Ok(None)` when nothing does. A symlink is refused with
/// `invalid_input` (the mutating tools never write through one) and a directory with
/// `not_a_file`.
pub fn check_target(path: &WorkPath) -> ToolResult<Option<Metadata>> {
    match fs::symlink_metadata(&path.abs) {
        Ok(meta) if meta.file_type().is_symlink() => Err(ToolError::invalid_input(format!(
            "Refusing to write through a symlink: {} is a symbolic link. Edit the file it points to by its own path instead.",
            path.display
        ))
        .with("path", path.display.as_str())),
        Ok(meta) if meta.is_dir() => Err(ToolError::new(
            ErrorCode::NotAFile,
            format!("Not a file: {} is a directory.", path.display),
        )
        .with("path", path.display.as_str())),
        Ok(meta) => Ok(Some(meta)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(io_err(e, &path.display)),
    }
}

// ---------------------------------------------------------------------------------------------
// Transactions

#[derive(Debug)]
enum Op {
    Write {
        target: WorkPath,
        bytes: Vec<u8>,
        /// Whose mode the new file takes (the target itself when it exists).
        mode_from: Option<PathBuf>,
    },
    Delete {
        target: WorkPath,
    },
}

/// A set of file changes that commit together or not at all. See the module docs.
#[derive(Debug, Default)]
pub struct Transaction {
    ops: Vec<Op>,
}

/// How to undo one installed step.
enum Undo {
    /// Put the backup back over the target.
    Restore { backup: PathBuf, target: PathBuf },
    /// Remove a file that did not exist before.
    Remove(PathBuf),
}

impl Transaction {
    pub fn new() -> Self {
        Self::default()
    }

    /// Creates or overwrites `target` with `bytes`. An overwritten file keeps its mode;
    /// missing parent directories are created at commit (and removed again on rollback).
    pub fn write(&mut self, target: &WorkPath, bytes: Vec<u8>) {
        self.ops.push(Op::Write {
            target: target.clone(),
            bytes,
            mode_from: Some(target.abs.clone()),
        });
    }

    /// Removes `target`.
    pub fn delete(&mut self, target: &WorkPath) {
        self.ops.push(Op::Delete {
            target: target.clone(),
        });
    }

    /// Moves `from` to `to` with content `bytes`; the new file keeps `from`'s mode.
    pub fn rename(&mut self, from: &WorkPath, to: &WorkPath, bytes: Vec<u8>) {
        self.ops.push(Op::Write {
            target: to.clone(),
            bytes,
            mode_from: Some(from.abs.clone()),
        });
        self.ops.push(Op::Delete {
            target: from.clone(),
        });
    }

    /// Commits every change, or none (see the module docs).
    pub fn commit(self) -> ToolResult<()> {
        let mut created_dirs: Vec<PathBuf> = Vec::new();
        let staged = match stage_all(&self.ops, &mut created_dirs) {
            Ok(staged) => staged,
            Err(e) => {
                remove_dirs(&created_dirs);
                return Err(e);
            }
        };
        let mut undo: Vec<Undo> = Vec::new();
        let mut backups: Vec<PathBuf> = Vec::new();
        if let Err(e) = install_all(&self.ops, staged, &mut undo, &mut backups) {
            let unrestored = roll_back(undo);
            // A backup made just before the failing step is an extra link to a target that
            // was never replaced; restored ones were renamed back already. Only a backup whose
            // restore failed still holds data nothing else does: keep that one.
            for backup in backups.iter().filter(|b| !unrestored.contains(b)) {
                let _ = fs::remove_file(backup);
            }
            remove_dirs(&created_dirs);
            return Err(e);
        }
        for backup in backups {
            let _ = fs::remove_file(backup);
        }
        let mut dirs: Vec<&Path> = self
            .ops
            .iter()
            .filter_map(|op| match op {
                Op::Write { target, .. } | Op::Delete { target } => target.abs.parent(),
            })
            .chain(created_dirs.iter().filter_map(|d| d.parent()))
            .collect();
        dirs.sort();
        dirs.dedup();
        for dir in dirs {
            sync_dir(dir);
        }
        Ok(())
    }
}

/// A one-file transaction: creates or overwrites `target` atomically.
pub fn write_atomic(target: &WorkPath, bytes: Vec<u8>) -> ToolResult<()> {
    let mut tx = Transaction::new();
    tx.write(target, bytes);
    tx.commit()
}

/// Stages each write in a temp file beside its target; `None` for deletes. Dropping a
/// `NamedTempFile` removes it, so an early return cleans up every staged file.
fn stage_all(
    ops: &[Op],
    created_dirs: &mut Vec<PathBuf>,
) -> ToolResult<Vec<Option<NamedTempFile>>> {
    ops.iter()
        .map(|op| match op {
            Op::Write {
                target,
                bytes,
                mode_from,
            } => stage(target, bytes, mode_from.as_deref(), created_dirs).map(Some),
            Op::Delete { .. } => Ok(None),
        })
        .collect()
}

fn stage(
    target: &WorkPath,
    bytes: &[u8],
    mode_from: Option<&Path>,
    created_dirs: &mut Vec<PathBuf>,
) -> ToolResult<NamedTempFile> {
    let parent = target.abs.parent().ok_or_else(|| {
        ToolError::invalid_input(format!("{} is not a file path", target.display))
    })?;
    create_parents(parent, created_dirs).map_err(|e| io_err(e, &target.display))?;
    let mut temp = temp_builder()
        .tempfile_in(parent)
        .map_err(|e| io_err(e, &target.display))?;
    if let Some(meta) = mode_from.and_then(|p| fs::metadata(p).ok()) {
        // Keep the owner too (best effort: only a privileged process may give a file away),
        // so an agent running as root does not take over the files it edits.
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            let _ = std::os::unix::fs::fchown(temp.as_file(), Some(meta.uid()), Some(meta.gid()));
        }
        temp.as_file()
            .set_permissions(meta.permissions())
            .map_err(|e| io_err(e, &target.display))?;
    }
    temp.write_all(bytes)
        .and_then(|()| temp.as_file().sync_all())
        .map_err(|e| io_err(e, &target.display))?;
    Ok(temp)
}

fn temp_builder() -> Builder<'static, 'static> {
    let mut builder = Builder::new();
    builder.prefix(TEMP_PREFIX).rand_bytes(12);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        // Like a plain create: 0666 minus the umask, not tempfile's private 0600.
        builder.permissions(Permissions::from_mode(0o666));
    }
    builder
}

/// Creates `dir` and its missing ancestors, recording each one created (outermost first).
fn create_parents(dir: &Path, created: &mut Vec<PathBuf>) -> std::io::Result<()> {
    let mut missing = Vec::new();
    let mut cur = Some(dir);
    while let Some(d) = cur {
        match fs::symlink_metadata(d) {
            Ok(_) => break,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                missing.push(d.to_path_buf());
                cur = d.parent();
            }
            Err(e) => return Err(e),
        }
    }
    for d in missing.into_iter().rev() {
        match fs::create_dir(&d) {
            Ok(()) => created.push(d),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && d.is_dir() => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

fn install_all(
    ops: &[Op],
    staged: Vec<Option<NamedTempFile>>,
    undo: &mut Vec<Undo>,
    backups: &mut Vec<PathBuf>,
) -> ToolResult<()> {
    let last = ops.len().saturating_sub(1);
    for (i, (op, temp)) in ops.iter().zip(staged).enumerate() {
        let target = match op {
            Op::Write { target, .. } | Op::Delete { target } => target,
        };
        injected_failure(target)?;
        if i == last {
            // Nothing after the last step can fail, and the step itself is one atomic
            // rename or unlink: it needs no backup.
            return match (op, temp) {
                (Op::Write { .. }, Some(temp)) => temp
                    .persist(&target.abs)
                    .map(drop)
                    .map_err(|e| io_err(e.error, &target.display)),
                (Op::Delete { .. }, _) => {
                    fs::remove_file(&target.abs).map_err(|e| io_err(e, &target.display))
                }
                (Op::Write { .. }, None) => Err(ToolError::internal()),
            };
        }
        let existed = fs::symlink_metadata(&target.abs).is_ok();
        let backup = if existed {
            let b = backup_of(&target.abs, op)?;
            backups.push(b.clone());
            Some(b)
        } else {
            None
        };
        match op {
            Op::Write { .. } => {
                let temp = temp.ok_or_else(ToolError::internal)?;
                temp.persist(&target.abs)
                    .map_err(|e| io_err(e.error, &target.display))?;
                undo.push(match backup {
                    Some(backup) => Undo::Restore {
                        backup,
                        target: target.abs.clone(),
                    },
                    None => Undo::Remove(target.abs.clone()),
                });
            }
            Op::Delete { .. } => {
                let Some(backup) = backup else {
                    return Err(io_err(
                        std::io::Error::from(std::io::ErrorKind::NotFound),
                        &target.display,
                    ));
                };
                undo.push(Undo::Restore {
                    backup,
                    target: target.abs.clone(),
                });
            }
        }
    }
    Ok(())
}

/// Keeps the old content of `target` reachable under a temp name beside it: a hard link for
/// a write (the target keeps existing until the rename replaces it), a rename for a delete.
fn backup_of(target: &Path, op: &Op) -> ToolResult<PathBuf> {
    let display = target.to_string_lossy();
    let dir = target.parent().unwrap_or(Path::new("."));
    // Reserve a unique name, then free it for the link / rename to take.
    let reserved = temp_builder()
        .tempfile_in(dir)
        .map_err(|e| io_err(e, &display))?
        .into_temp_path();
    let backup = reserved.to_path_buf();
    reserved.close().map_err(|e| io_err(e, &display))?;
    let made = match op {
        Op::Delete { .. } => fs::rename(target, &backup),
        Op::Write { .. } => {
            fs::hard_link(target, &backup).or_else(|_| fs::copy(target, &backup).map(|_| ()))
        }
    };
    made.map_err(|e| io_err(e, &display))?;
    Ok(backup)
}

/// Undoes the installed steps, last first; returns the backups it could not put back.
fn roll_back(undo: Vec<Undo>) -> Vec<PathBuf> {
    let mut unrestored = Vec::new();
    for step in undo.into_iter().rev() {
        let result = match &step {
            Undo::Restore { backup, target } => fs::rename(backup, target),
            Undo::Remove(target) => fs::remove_file(target),
        };
        if let Err(e) = result {
            crate::warn::emit(format!("rollback step failed: {e}"));
            if let Undo::Restore { backup, .. } = step {
                unrestored.push(backup);
            }
        }
    }
    unrestored
}

/// Removes directories this transaction created, innermost first, if they are empty.
fn remove_dirs(created: &[PathBuf]) {
    for d in created.iter().rev() {
        let _ = fs::remove_dir(d);
    }
}

fn sync_dir(dir: &Path) {
    if let Ok(f) = File::open(dir) {
        let _ = f.sync_all();
    }
}

// ---------------------------------------------------------------------------------------------
// Test-only failure injection

static FAIL_ON: Mutex<Option<String>> = Mutex::new(None);

/// Test-only: while set, a commit fails with `io_error` when it is about to install a target
/// with this file name (after earlier targets of the same transaction were installed).
pub fn set_fail_on(name: Option<String>) {
    *FAIL_ON.lock().unwrap_or_else(PoisonError::into_inner) = name;
}

fn injected_failure(target: &WorkPath) -> ToolResult<()> {
    let fail_on = FAIL_ON.lock().unwrap_or_else(PoisonError::into_inner);
    match (&*fail_on, target.abs.file_name()) {
        (Some(name), Some(file)) if file.to_string_lossy() == *name => Err(ToolError::new(
            ErrorCode::IoError,
            format!("EIO: injected test failure writing {}", target.display),
        )
        .with("path", target.display.as_str())),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::time::Duration;

    fn wp(root: &Path, rel: &str) -> WorkPath {
        WorkPath {
            abs: root.join(rel),
            display: rel.to_string(),
        }
    }

    fn listing(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn writes_creates_parents_and_leaves_no_temp() {
        let dir = tempfile::tempdir().unwrap();
        write_atomic(&wp(dir.path(), "a/b/c.txt"), b"hi".to_vec()).unwrap();
        assert_eq!(fs::read(dir.path().join("a/b/c.txt")).unwrap(), b"hi");
        assert_eq!(listing(&dir.path().join("a/b")), ["c.txt"]);
    }

    #[cfg(unix)]
    #[test]
    fn keeps_mode_of_overwritten_file() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("x.sh");
        fs::write(&f, "old").unwrap();
        fs::set_permissions(&f, Permissions::from_mode(0o751)).unwrap();
        write_atomic(&wp(dir.path(), "x.sh"), b"new".to_vec()).unwrap();
        assert_eq!(
            fs::metadata(&f).unwrap().permissions().mode() & 0o777,
            0o751
        );
    }

    #[test]
    fn failure_rolls_back_every_file() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::write(root.join("a.txt"), "A").unwrap();
        fs::write(root.join("gone.txt"), "G").unwrap();
        fs::write(root.join("blocker"), "not a dir").unwrap();
        let mut tx = Transaction::new();
        tx.write(&wp(root, "a.txt"), b"A2".to_vec());
        tx.delete(&wp(root, "gone.txt"));
        tx.write(&wp(root, "new/n.txt"), b"N".to_vec());
        tx.write(&wp(root, "blocker/x.txt"), b"X".to_vec());
        let err = tx.commit().unwrap_err();
        assert_eq!(err.code, ErrorCode::NotAFile, "{err}");
        assert_eq!(fs::read_to_string(root.join("a.txt")).unwrap(), "A");
        assert_eq!(fs::read_to_string(root.join("gone.txt")).unwrap(), "G");
        assert!(!root.join("new").exists(), "created dirs are removed");
        assert_eq!(listing(root), ["a.txt", "blocker", "gone.txt"]);
    }

    #[test]
    fn install_failure_restores_installed_targets() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::write(root.join("one.txt"), "1").unwrap();
        fs::write(root.join("two.txt"), "2").unwrap();
        fs::write(root.join("inject-me.txt"), "3").unwrap();
        let mut tx = Transaction::new();
        tx.write(&wp(root, "one.txt"), b"one".to_vec());
        tx.rename(&wp(root, "two.txt"), &wp(root, "moved.txt"), b"2".to_vec());
        tx.write(&wp(root, "inject-me.txt"), b"three".to_vec());
        set_fail_on(Some("inject-me.txt".into()));
        let err = tx.commit();
        set_fail_on(None);
        assert_eq!(err.unwrap_err().code, ErrorCode::IoError);
        assert_eq!(fs::read_to_string(root.join("one.txt")).unwrap(), "1");
        assert_eq!(fs::read_to_string(root.join("two.txt")).unwrap(), "2");
        assert_eq!(listing(root), ["inject-me.txt", "one.txt", "two.txt"]);
    }

    #[test]
    fn rename_moves_and_deletes() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::write(root.join("a.txt"), "A").unwrap();
        let mut tx = Transaction::new();
        tx.rename(&wp(root, "a.txt"), &wp(root, "d/b.txt"), b"A".to_vec());
        tx.commit().unwrap();
        assert_eq!(listing(root), ["d"]);
        assert_eq!(fs::read_to_string(root.join("d/b.txt")).unwrap(), "A");
    }

    #[cfg(unix)]
    #[test]
    fn check_target_refuses_symlinks_and_dirs() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::write(root.join("t"), "x").unwrap();
        std::os::unix::fs::symlink(root.join("t"), root.join("l")).unwrap();
        fs::create_dir(root.join("d")).unwrap();
        assert_eq!(
            check_target(&wp(root, "l")).unwrap_err().code,
            ErrorCode::InvalidInput
        );
        assert_eq!(
            check_target(&wp(root, "d")).unwrap_err().code,
            ErrorCode::NotAFile
        );
        assert!(check_target(&wp(root, "none")).unwrap().is_none());
        assert!(check_target(&wp(root, "t")).unwrap().is_some());
    }

    #[test]
    fn locks_serialize_overlapping_sets() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a");
        let b = dir.path().join("b");
        let counter = Arc::new(Mutex::new((0u32, 0u32))); // (inside, max inside)
        let threads: Vec<_> = (0..8)
            .map(|i| {
                let (a, b, counter) = (a.clone(), b.clone(), counter.clone());
                std::thread::spawn(move || {
                    let paths: Vec<&Path> = if i % 2 == 0 { vec![&a, &b] } else { vec![&b] };
                    let _guard = lock(&paths);
                    {
                        let mut c = counter.lock().unwrap();
                        c.0 += 1;
                        c.1 = c.1.max(c.0);
                    }
                    std::thread::sleep(Duration::from_millis(5));
                    counter.lock().unwrap().0 -= 1;
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert_eq!(counter.lock().unwrap().1, 1, "every set shares `b`");
    }
}
