//! Atomic writes: per-path locks shared by the whole process, and transactions that change a
//! set of files together or not at all.
//!
//! Every step works in the target's parent directory fd ([`crate::confine::open_parent`]),
//! opened beneath the workspace root once per target: the temp file is created with `openat`
//! in it, renamed with `renameat` within it, backups are `linkat`/`renameat` in it, deletes
//! `unlinkat`, and it is the fd that gets fsynced. A directory swapped for a symlink after the
//! tool's checks cannot redirect any of it outside the workspace.
//!
//! A transaction commits in three steps:
//! 1. **Stage**: every new content goes to a `.clarvis-tmp-<12 letters/digits>` file beside
//!    its target (created with the target's mode, or `0666 & !umask` for a new file) and is
//!    fsynced, several files at once on the wait pool. Missing parent directories are created
//!    here (`mkdirat`).
//! 2. **Install**, in order: an existing target is first hard-linked to a backup beside it,
//!    then the staged file is renamed over it (a delete renames the target to its backup). A
//!    rename is atomic, so at every instant each target holds either its entire old or its
//!    entire new content — also if the process is killed. The last step needs no backup:
//!    nothing after it can fail (so a one-file write is just temp file, fsync, rename).
//! 3. **Finish**: backups are removed and the touched directories fsynced. The replaced
//!    files are held open from step 2 on and let go after the call has returned, so freeing
//!    their blocks (a wait for the device on a file system mounted with `discard`) is not
//!    part of the call.
//!
//! A failure in steps 1–2 rolls back what was installed (backups renamed back, created files
//! and directories removed), and no temp file is left behind either way.

use std::collections::HashSet;
use std::ffi::{OsStr, OsString};
#[cfg(unix)]
use std::fs::Permissions;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, LazyLock, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant, SystemTime};

use crate::confine::{self, Created, Dir, Held, Kind, Stat, WorkPath};
use crate::error::{io_err, ErrorCode, ToolError, ToolResult};
use crate::paths::{self, identity};

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

/// What exists at a mutation target: `Ok(None)` when nothing does. Judged in the target's
/// parent directory fd without following the final name: a symlink is refused with
/// `invalid_input` (the mutating tools never write through one), a directory is `not_a_file`,
/// and so is a FIFO, socket or device (never replaced by a write).
pub fn check_target(path: &WorkPath) -> ToolResult<Option<Stat>> {
    check_target_with(path, |e| io_err(e, &path.input))
}

/// [`check_target`], with any other failure worded by `words` (the contract-exact root words
/// it as fsError does for the reference's own call).
pub fn check_target_with(
    path: &WorkPath,
    words: impl Fn(std::io::Error) -> ToolError,
) -> ToolResult<Option<Stat>> {
    // An escape is `path_escape` whoever words the rest.
    let fail = |e: std::io::Error| match crate::error::is_escape(&e) {
        true => io_err(e, &path.input),
        false => words(e),
    };
    let (dir, name) = match confine::open_parent(path, None) {
        Ok(parent) => parent,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) if e.kind() == std::io::ErrorKind::IsADirectory => {
            return Err(ToolError::is_a_directory(&path.input));
        }
        Err(e) => return Err(fail(e)),
    };
    match dir.stat(&name) {
        Ok(st) => judge_target(path, st).map(Some),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(fail(e)),
    }
}

fn judge_target(path: &WorkPath, st: Stat) -> ToolResult<Stat> {
    match st.kind {
        Kind::Symlink => Err(ToolError::invalid_input(format!(
            "Refusing to write through a symlink: {} is a symbolic link. Edit the file it points to by its own path instead.",
            path.display
        ))
        .with("path", path.display.as_str())),
        Kind::Dir => Err(ToolError::is_a_directory(&path.input)),
        Kind::Other => Err(ToolError::new(
            ErrorCode::NotAFile,
            format!(
                "Not a regular file: {} is a FIFO, socket or device; the tools write regular files only, and it was left as it is.",
                path.display
            ),
        )
        .with("path", path.display.as_str())),
        Kind::File => Ok(st),
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
        mode_from: Option<WorkPath>,
    },
    Delete {
        target: WorkPath,
    },
}

impl Op {
    fn target(&self) -> &WorkPath {
        match self {
            Op::Write { target, .. } | Op::Delete { target } => target,
        }
    }
}

/// A set of file changes that commit together or not at all. See the module docs.
#[derive(Debug, Default)]
pub struct Transaction {
    ops: Vec<Op>,
}

/// A name inside an open directory: where a target, temp file or backup lives.
struct At {
    dir: Arc<Dir>,
    name: OsString,
}

/// How to undo one installed step.
enum Undo {
    /// Put the backup (in the target's directory) back over the target.
    Restore {
        dir: Arc<Dir>,
        backup: OsString,
        target: OsString,
    },
    /// Remove a file that did not exist before.
    Remove(At),
}

/// A staged write: the temp file beside its target, removed on drop unless installed.
struct Staged {
    dir: Arc<Dir>,
    temp: Option<OsString>,
}

impl Staged {
    /// Renames the temp file over `name` in the same directory.
    fn install(mut self, name: &OsStr) -> std::io::Result<()> {
        let temp = self.temp.take().expect("staged once");
        self.dir.rename(&temp, &self.dir, name).inspect_err(|_| {
            let _ = self.dir.remove_file(&temp);
        })
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        if let Some(temp) = self.temp.take() {
            let _ = self.dir.remove_file(&temp);
        }
    }
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
            mode_from: Some(target.clone()),
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
            mode_from: Some(from.clone()),
        });
        self.ops.push(Op::Delete {
            target: from.clone(),
        });
    }

    /// Commits every change, or none (see the module docs).
    pub fn commit(self) -> ToolResult<()> {
        let mut created: Created = Vec::new();
        let staged = match stage_all(&self.ops, &mut created) {
            Ok(staged) => staged,
            Err(e) => {
                remove_dirs(&created);
                return Err(e);
            }
        };
        let dirs: Vec<Arc<Dir>> = staged.iter().map(|(at, _)| at.dir.clone()).collect();
        let mut undo: Vec<Undo> = Vec::new();
        let mut backups: Vec<At> = Vec::new();
        let mut replaced: Vec<Held> = Vec::new();
        if let Err(e) = install_all(&self.ops, staged, &mut undo, &mut backups, &mut replaced) {
            let unrestored = roll_back(undo);
            // A backup made just before the failing step is an extra link to a target that
            // was never replaced; restored ones were renamed back already. Only a backup whose
            // restore failed still holds data nothing else does: keep that one.
            for backup in backups.iter().filter(|b| !unrestored.contains(&b.name)) {
                let _ = backup.dir.remove_file(&backup.name);
            }
            remove_dirs(&created);
            return Err(e);
        }
        // Removing a backup frees the old content's blocks, which waits for the filesystem's
        // journal; one removal after another, a 20-file patch waited for it 20 times. From
        // several threads at once the waits overlap, as the staged files' fsyncs do.
        let _ = in_parallel(backups, |backup| {
            let _ = backup.dir.remove_file(&backup.name);
            Ok(())
        });
        // Each touched directory once (the same directory is reached through one fd per
        // target), fsynced in parallel too; a target's directory (not one this commit created)
        // may hold a crashed write's temp files, so it is queued for the sweep.
        let mut synced: Vec<(u64, u64)> = Vec::new();
        let mut to_sync: Vec<(&Dir, (u64, u64), bool)> = Vec::new();
        for (i, dir) in dirs
            .iter()
            .map(|d| &**d)
            .chain(created.iter().map(|(d, _)| d))
            .enumerate()
        {
            let id = dir.stat_self().map(|s| (s.dev, s.ino)).unwrap_or_default();
            if id == (0, 0) || !synced.contains(&id) {
                synced.push(id);
                to_sync.push((dir, id, i < dirs.len()));
            }
        }
        let _ = in_parallel(to_sync.iter().collect(), |(dir, _, _)| {
            dir.sync();
            Ok(())
        });
        for (dir, id, target_dir) in to_sync {
            if target_dir {
                sweep_later(dir, id);
            }
        }
        release_later(replaced);
        Ok(())
    }
}

/// Drops the handles on the files a commit replaced or deleted after the call has returned:
/// dropping the last one frees the old content's blocks, which on a file system mounted with
/// `discard` (no journal to defer it) waits for the device — 4 ms for 15 MB here. Every name
/// is already in its final state and synced, so nothing that is read or made durable waits
/// for this.
fn release_later(replaced: Vec<Held>) {
    if !replaced.is_empty() {
        crate::pool::later(move || drop(replaced));
    }
}

/// A one-file transaction: creates or overwrites `target` atomically.
pub fn write_atomic(target: &WorkPath, bytes: Vec<u8>) -> ToolResult<()> {
    let mut tx = Transaction::new();
    tx.write(target, bytes);
    tx.commit()
}

/// Opens each target's parent directory (creating missing ones for writes), then stages every
/// write in a temp file created in that directory fd and fsyncs it; `None` for deletes.
/// Dropping a [`Staged`] removes its temp file, so an early return cleans up every staged
/// file.
///
/// The writes are staged on the wait pool, several at once: creating, filling and fsyncing a
/// file mostly waits for the file system or the disk, and the file system commits concurrent
/// fsyncs together (one commit for many files instead of one each), so a 20-file patch waits
/// for the disk about once, not 20 times, while other files are still being written.
fn stage_all(ops: &[Op], created: &mut Created) -> ToolResult<Vec<(At, Option<Staged>)>> {
    let places = ops
        .iter()
        .map(|op| {
            let target = op.target();
            let create = matches!(op, Op::Write { .. });
            let (dir, name) = confine::open_parent(target, create.then_some(&mut *created))
                .map_err(|e| {
                    if e.kind() == std::io::ErrorKind::IsADirectory {
                        ToolError::invalid_input(format!("{} is not a file path", target.display))
                    } else {
                        io_err(e, &target.display)
                    }
                })?;
            Ok(At {
                dir: Arc::new(dir),
                name,
            })
        })
        .collect::<ToolResult<Vec<At>>>()?;
    let staged =
        crate::pool::overlap_waits(ops.iter().zip(&places).collect(), |(op, at)| match op {
            Op::Write {
                target,
                bytes,
                mode_from,
            } => stage(at, target, bytes, mode_from.as_ref()).map(Some),
            Op::Delete { .. } => Ok(None),
        });
    let staged: Vec<Option<Staged>> = staged.into_iter().collect::<ToolResult<_>>()?;
    Ok(places.into_iter().zip(staged).collect())
}

/// Writes `bytes` to a new temp file beside `at` with the mode (and, where allowed, owner) of
/// `mode_from`, and fsyncs it.
fn stage(
    at: &At,
    target: &WorkPath,
    bytes: &[u8],
    mode_from: Option<&WorkPath>,
) -> ToolResult<Staged> {
    let dir = &at.dir;
    let (temp, mut file) = dir
        .create_temp(paths::temp_name, 0o666)
        .map_err(|e| io_err(e, &target.display))?;
    let staged = Staged {
        dir: dir.clone(),
        temp: Some(temp),
    };
    let source = mode_from.and_then(|p| {
        if p.abs == target.abs {
            return dir.stat(&at.name).ok().filter(Stat::is_file);
        }
        let (d, n) = confine::open_parent(p, None).ok()?;
        d.stat(&n).ok().filter(Stat::is_file)
    });
    if let Some(st) = source {
        // Keep the owner too (best effort: only a privileged process may give a file away),
        // so an agent running as root does not take over the files it edits.
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let _ = std::os::unix::fs::fchown(&file, Some(st.uid), Some(st.gid));
            file.set_permissions(Permissions::from_mode(st.mode))
                .map_err(|e| io_err(e, &target.display))?;
        }
        #[cfg(not(unix))]
        let _ = st;
    }
    write_and_sync(&mut file, bytes).map_err(|e| io_err(e, &target.display))?;
    Ok(staged)
}

/// A file at least this large is written in pieces of this size, each handed to the disk as
/// soon as it is written (Linux only: elsewhere there is no `sync_file_range`).
#[cfg(target_os = "linux")]
const WRITE_PIECE: usize = 2 << 20;

/// Writes `bytes` and fsyncs. A large file starts its writeback piece by piece while the rest
/// is still being copied (`sync_file_range(SYNC_FILE_RANGE_WRITE)`, Linux), so the final fsync
/// waits for the last piece rather than for all of it: for 15 MB, the copy (3 ms) and the
/// device (7 ms) overlap instead of adding up.
fn write_and_sync(file: &mut std::fs::File, bytes: &[u8]) -> std::io::Result<()> {
    #[cfg(target_os = "linux")]
    if bytes.len() >= 2 * WRITE_PIECE {
        use std::os::fd::AsRawFd;
        let mut done = 0;
        for piece in bytes.chunks(WRITE_PIECE) {
            file.write_all(piece)?;
            // SAFETY: a plain system call on an fd this function borrows; a failure only
            // means the final fsync does all the work.
            unsafe {
                nix::libc::sync_file_range(
                    file.as_raw_fd(),
                    done as nix::libc::off64_t,
                    piece.len() as nix::libc::off64_t,
                    nix::libc::SYNC_FILE_RANGE_WRITE,
                );
            }
            done += piece.len();
        }
        return file.sync_all();
    }
    file.write_all(bytes)?;
    file.sync_all()
}

/// Runs `work` on every item, several at once on the wait pool ([`crate::pool::overlap_waits`])
/// when there are several: for steps that mostly wait for the disk or the filesystem's
/// journal, whose waits then overlap. Every item is worked on, also after a failure; if any
/// failed, one of their errors is returned.
fn in_parallel<T: Send>(
    items: Vec<T>,
    work: impl Fn(T) -> ToolResult<()> + Sync + Send,
) -> ToolResult<()> {
    crate::pool::overlap_waits(items, work)
        .into_iter()
        .fold(Ok(()), ToolResult::and)
}

fn install_all(
    ops: &[Op],
    staged: Vec<(At, Option<Staged>)>,
    undo: &mut Vec<Undo>,
    backups: &mut Vec<At>,
    replaced: &mut Vec<Held>,
) -> ToolResult<()> {
    let last = ops.len().saturating_sub(1);
    for (i, (op, (at, temp))) in ops.iter().zip(staged).enumerate() {
        let target = op.target();
        injected_failure(target)?;
        // What is there now, judged in the same directory fd the rename will use: a link,
        // directory or special file that appeared since the tool's check is never replaced.
        // What it held stays alive until the commit has returned ([`release_later`]).
        let existing = match at.dir.stat_held(&at.name) {
            Ok((st, held)) => {
                let st = judge_target(target, st)?;
                replaced.extend(held);
                Some(st)
            }
            Err(_) => None,
        };
        if i == last {
            // Nothing after the last step can fail, and the step itself is one atomic
            // rename or unlink: it needs no backup.
            return match (op, temp) {
                (Op::Write { .. }, Some(temp)) => temp
                    .install(&at.name)
                    .map_err(|e| io_err(e, &target.display)),
                (Op::Delete { .. }, _) => at
                    .dir
                    .remove_file(&at.name)
                    .map_err(|e| io_err(e, &target.display)),
                (Op::Write { .. }, None) => Err(ToolError::internal()),
            };
        }
        let backup = if existing.is_some() {
            let b = backup_of(&at, op, &target.display)?;
            backups.push(At {
                dir: at.dir.clone(),
                name: b.clone(),
            });
            Some(b)
        } else {
            None
        };
        match op {
            Op::Write { .. } => {
                let temp = temp.ok_or_else(ToolError::internal)?;
                temp.install(&at.name)
                    .map_err(|e| io_err(e, &target.display))?;
                undo.push(match backup {
                    Some(backup) => Undo::Restore {
                        dir: at.dir.clone(),
                        backup,
                        target: at.name.clone(),
                    },
                    None => Undo::Remove(at),
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
                    dir: at.dir.clone(),
                    backup,
                    target: at.name.clone(),
                });
            }
        }
    }
    Ok(())
}

/// Keeps the old content of the target reachable under a temp name beside it: a hard link
/// for a write (the target keeps existing until the rename replaces it), a rename for a
/// delete.
fn backup_of(at: &At, op: &Op, display: &str) -> ToolResult<OsString> {
    let mut tries = 0;
    loop {
        let backup = paths::temp_name();
        let made = match op {
            // Reserve the name first so the rename cannot replace anything.
            Op::Delete { .. } => at
                .dir
                .create_new(&backup, 0o600)
                .and_then(|_| at.dir.rename(&at.name, &at.dir, &backup)),
            Op::Write { .. } => at.dir.hard_link(&at.name, &at.dir, &backup),
        };
        match made {
            Ok(()) => return Ok(backup),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && tries < 16 => tries += 1,
            Err(e) => {
                if matches!(op, Op::Delete { .. }) {
                    let _ = at.dir.remove_file(&backup);
                }
                return Err(io_err(e, display));
            }
        }
    }
}

/// Undoes the installed steps, last first; returns the backups it could not put back.
fn roll_back(undo: Vec<Undo>) -> Vec<OsString> {
    let mut unrestored = Vec::new();
    for step in undo.into_iter().rev() {
        let result = match &step {
            Undo::Restore {
                dir,
                backup,
                target,
            } => dir.rename(backup, dir, target),
            Undo::Remove(at) => at.dir.remove_file(&at.name),
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
fn remove_dirs(created: &Created) {
    for (dir, name) in created.iter().rev() {
        let _ = dir.remove_dir(name);
    }
}

// ---------------------------------------------------------------------------------------------
// Stale temp files

/// Temp files older than this are left from a crash and removed by the sweep.
pub const STALE_TEMP_AGE: Duration = Duration::from_secs(60 * 60);
/// How long writes must pause before the sweep runs: it never competes with a burst of calls,
/// and a one-shot process (the CLI's `call`) has exited before it would start.
const SWEEP_IDLE: Duration = Duration::from_secs(1);
/// How many directories wait for the sweep at most (one beyond that is queued by a later write).
const SWEEP_MAX_PENDING: usize = 64;
/// How many swept directories are remembered (then the memory starts over).
const SWEEP_MAX_SEEN: usize = 4096;

/// The directories writes touched, and the sweep of their stale temp files.
struct Sweeps {
    /// Directories (device, inode) queued once already in this process.
    seen: HashSet<(u64, u64)>,
    /// Directories waiting for the sweep.
    pending: Vec<Dir>,
    /// When the last one was queued.
    last: Instant,
    /// Whether the sweeping thread is alive.
    running: bool,
}

static SWEEPS: LazyLock<Mutex<Sweeps>> = LazyLock::new(|| {
    Mutex::new(Sweeps {
        seen: HashSet::new(),
        pending: Vec::new(),
        last: Instant::now(),
        running: false,
    })
});

fn sweeps() -> MutexGuard<'static, Sweeps> {
    SWEEPS.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Queues `dir` (identity `id`), where a write just committed, for the sweep of stale temp
/// files, once per directory per process. The write pays one `dup` of the fd; the sweep runs on
/// a thread of its own once writes have paused for [`SWEEP_IDLE`], and lists only the
/// directories queued: the tree is never walked.
fn sweep_later(dir: &Dir, id: (u64, u64)) {
    let mut sweeps = sweeps();
    if sweeps.pending.len() >= SWEEP_MAX_PENDING {
        return;
    }
    if sweeps.seen.len() >= SWEEP_MAX_SEEN {
        sweeps.seen.clear();
    }
    // Without an identity (a platform whose `Dir` is a path) every write queues its directory.
    if id != (0, 0) && !sweeps.seen.insert(id) {
        return;
    }
    let Ok(dir) = dir.try_clone() else { return };
    sweeps.pending.push(dir);
    sweeps.last = Instant::now();
    if !sweeps.running {
        sweeps.running = std::thread::Builder::new()
            .name("clarvis-temp-sweep".into())
            .spawn(sweep_when_idle)
            .is_ok();
    }
}

/// The sweeping thread: waits until writes pause, sweeps what is queued, and ends when
/// nothing is left (the next queued directory starts it again).
fn sweep_when_idle() {
    loop {
        let batch = {
            let mut sweeps = sweeps();
            let idle = sweeps.last.elapsed();
            if idle < SWEEP_IDLE {
                drop(sweeps);
                std::thread::sleep(SWEEP_IDLE - idle);
                continue;
            }
            let batch = std::mem::take(&mut sweeps.pending);
            if batch.is_empty() {
                sweeps.running = false;
                return;
            }
            batch
        };
        let now = SystemTime::now();
        for dir in &batch {
            sweep_dir(dir, STALE_TEMP_AGE, now);
        }
    }
}

/// Removes the `.clarvis-tmp-*` files in `dir` (exactly the names [`paths::temp_name`] makes)
/// older than `max_age` at `now`, as a crashed write leaves them. Only regular files, judged
/// without following a link; subdirectories are not entered.
fn sweep_dir(dir: &Dir, max_age: Duration, now: SystemTime) {
    let Ok(names) = dir.entries() else { return };
    for name in names.iter().filter(|n| paths::is_temp_name(n)) {
        let Ok(st) = dir.stat(name) else { continue };
        if st.kind == Kind::File && now.duration_since(st.mtime).is_ok_and(|age| age > max_age) {
            let _ = dir.remove_file(name);
        }
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
    use std::fs;
    #[cfg(unix)]
    use std::os::unix::fs::FileTypeExt;
    use std::sync::Arc;
    use std::time::Duration;

    fn wp(root: &Path, rel: &str) -> WorkPath {
        WorkPath::beneath(root, root.join(rel), rel.to_string())
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

    /// Many overwritten files in several directories: every backup is removed (from several
    /// threads) and every file holds its new content.
    #[test]
    fn a_many_file_commit_leaves_no_backup() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let mut tx = Transaction::new();
        for k in 0..20 {
            let rel = format!("d{}/f{k}.txt", k % 4);
            fs::create_dir_all(root.join(format!("d{}", k % 4))).unwrap();
            fs::write(root.join(&rel), format!("old {k}")).unwrap();
            tx.write(&wp(root, &rel), format!("new {k}").into_bytes());
        }
        tx.commit().unwrap();
        for d in 0..4 {
            let names = listing(&root.join(format!("d{d}")));
            assert_eq!(names.len(), 5, "{names:?}");
            for name in names {
                assert!(name.starts_with('f'), "{name}");
                let text = fs::read_to_string(root.join(format!("d{d}/{name}"))).unwrap();
                assert_eq!(text, format!("new {}", &name[1..name.len() - 4]));
            }
        }
    }

    /// The replaced files are held only until the commit has returned: none stays open.
    #[cfg(target_os = "linux")]
    #[test]
    fn replaced_files_are_released_after_the_commit() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let mut tx = Transaction::new();
        for k in 0..3 {
            fs::write(root.join(format!("held{k}.txt")), "old").unwrap();
            tx.write(&wp(root, &format!("held{k}.txt")), b"new".to_vec());
        }
        tx.delete(&{
            fs::write(root.join("gone.txt"), "old").unwrap();
            wp(root, "gone.txt")
        });
        tx.commit().unwrap();
        let open_here = || {
            fs::read_dir("/proc/self/fd")
                .unwrap()
                .filter_map(|e| fs::read_link(e.ok()?.path()).ok())
                .filter(|target| {
                    let name = target.to_string_lossy();
                    target.starts_with(root) && (name.contains("held") || name.contains("gone"))
                })
                .count()
        };
        let deadline = Instant::now() + Duration::from_secs(5);
        while open_here() > 0 && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
        assert_eq!(open_here(), 0, "a replaced file is still held open");
        assert_eq!(fs::read_to_string(root.join("held0.txt")).unwrap(), "new");
        assert!(!root.join("gone.txt").exists());
    }

    /// `in_parallel` works on every item, whatever fails, and returns an error if any failed.
    #[test]
    fn in_parallel_works_on_every_item() {
        let done = Mutex::new(Vec::new());
        let result = in_parallel((0..30).collect(), |i: i32| {
            done.lock().unwrap().push(i);
            if i % 7 == 3 {
                Err(ToolError::invalid_input(format!("item {i}")))
            } else {
                Ok(())
            }
        });
        assert!(result.unwrap_err().message.starts_with("item "));
        let mut done = done.into_inner().unwrap();
        done.sort();
        assert_eq!(done, (0..30).collect::<Vec<_>>());
        assert!(in_parallel(Vec::<i32>::new(), |_| Err(ToolError::internal())).is_ok());
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

    #[cfg(unix)]
    #[test]
    fn stale_temps_are_swept_without_following_links() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let root = dir.path();
        let name = paths::temp_name().into_string().unwrap();
        fs::create_dir_all(root.join("a/b")).unwrap();
        for d in ["a", "a/b"] {
            fs::write(root.join(d).join(&name), "stale").unwrap();
        }
        fs::write(root.join("a/.clarvis-tmp-notours"), "user file").unwrap();
        fs::write(outside.path().join(&name), "outside").unwrap();
        std::os::unix::fs::symlink(
            outside.path().join(&name),
            root.join("a").join(paths::temp_name()),
        )
        .unwrap();
        let a = confine::Root::get(root, true)
            .unwrap()
            .dir()
            .open_dir(OsStr::new("a"))
            .unwrap();
        // Not yet an hour old: kept.
        sweep_dir(&a, STALE_TEMP_AGE, SystemTime::now());
        assert!(root.join("a").join(&name).exists());
        let later = SystemTime::now() + Duration::from_secs(2 * 3600);
        sweep_dir(&a, STALE_TEMP_AGE, later);
        assert!(!root.join("a").join(&name).exists());
        assert!(
            root.join("a/b").join(&name).exists(),
            "subdirectories are not entered"
        );
        assert!(
            root.join("a/.clarvis-tmp-notours").exists(),
            "only our exact pattern"
        );
        assert_eq!(
            fs::read_to_string(outside.path().join(&name)).unwrap(),
            "outside"
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_write_queues_its_directory_for_the_idle_sweep() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::create_dir_all(root.join("w")).unwrap();
        fs::create_dir_all(root.join("quiet")).unwrap();
        let name = paths::temp_name().into_string().unwrap();
        let two_hours_ago = SystemTime::now() - Duration::from_secs(2 * 3600);
        for d in ["w", "quiet"] {
            let f = fs::File::create(root.join(d).join(&name)).unwrap();
            f.set_modified(two_hours_ago).unwrap();
        }
        write_atomic(&wp(root, "w/new.txt"), b"x".to_vec()).unwrap();
        for _ in 0..100 {
            if !root.join("w").join(&name).exists() {
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        assert!(!root.join("w").join(&name).exists(), "swept once idle");
        assert_eq!(fs::read_to_string(root.join("w/new.txt")).unwrap(), "x");
        assert!(
            root.join("quiet").join(&name).exists(),
            "a directory no write touched is not listed"
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_special_file_target_is_never_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        nix::unistd::mkfifo(
            &root.join("fifo"),
            nix::sys::stat::Mode::from_bits_truncate(0o644),
        )
        .unwrap();
        assert_eq!(
            check_target(&wp(root, "fifo")).unwrap_err().code,
            ErrorCode::NotAFile
        );
        let err = write_atomic(&wp(root, "fifo"), b"x".to_vec()).unwrap_err();
        assert_eq!(err.code, ErrorCode::NotAFile);
        assert!(fs::symlink_metadata(root.join("fifo"))
            .unwrap()
            .file_type()
            .is_fifo());
        assert_eq!(listing(root), ["fifo"], "no temp file left");
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
