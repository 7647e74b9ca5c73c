//! The read-before-write ledger of the `claude-code` and `cyberpaw` surfaces: which files the
//! model has read through one tools object, and what they held then.
//!
//! `Write` over an existing file, `Edit`, `MultiEdit` and `NotebookEdit` refuse a file with no
//! entry ("not read yet") and a file whose content hash differs from its entry ("modified since
//! read"). Staleness is judged by a 64-bit hash of the file's bytes, not by mtime, so a touch
//! does not invalidate a read and a same-second rewrite does. A successful read or write records
//! the bytes it saw or left.
//!
//! It is the one piece of per-instance state: one ledger per tools object (per resolved config
//! on the JavaScript side), at most [`CAPACITY`] files, the least recently used dropped first.
//! Ledgers live in a registry under a numeric id the JavaScript side holds; it closes its id
//! when the tools object is garbage-collected.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, LazyLock, Mutex};

use crate::confine::WorkPath;
use crate::error::{ErrorCode, ToolError, ToolResult};
use crate::paths;

/// Files remembered per ledger.
pub const CAPACITY: usize = 4096;

/// The key the ledger files a path under: its identity (symlinked directories resolved).
pub fn ledger_key(path: &WorkPath) -> std::path::PathBuf {
    paths::identity(&path.abs)
}

/// The content hash: SipHash over the bytes (std's fixed-key hasher), and the length.
pub fn content_hash(bytes: &[u8]) -> u64 {
    let mut h = std::hash::DefaultHasher::new();
    bytes.hash(&mut h);
    h.finish()
}

#[derive(Debug, Default)]
struct Inner {
    files: HashMap<PathBuf, (u64, u64)>,
    tick: u64,
}

/// One tools object's ledger: resolved path → content hash of its last read or write.
#[derive(Debug, Default)]
pub struct Ledger(Mutex<Inner>);

/// What a ledger check found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Check {
    Fresh,
    Unread,
    Stale,
}

impl Ledger {
    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Records that `path` holds `bytes` as the model last saw them.
    pub fn record(&self, path: &Path, bytes: &[u8]) {
        let hash = content_hash(bytes);
        let mut inner = self.lock();
        inner.tick += 1;
        let tick = inner.tick;
        inner.files.insert(path.to_path_buf(), (hash, tick));
        if inner.files.len() > CAPACITY {
            if let Some(oldest) = inner
                .files
                .iter()
                .min_by_key(|(_, (_, t))| *t)
                .map(|(p, _)| p.clone())
            {
                inner.files.remove(&oldest);
            }
        }
    }

    /// Whether `bytes` (the file as it is now) is what the model last saw of `path`.
    pub fn check(&self, path: &Path, bytes: &[u8]) -> Check {
        let mut inner = self.lock();
        inner.tick += 1;
        let tick = inner.tick;
        match inner.files.get_mut(path) {
            None => Check::Unread,
            Some((hash, t)) => {
                *t = tick;
                if *hash == content_hash(bytes) {
                    Check::Fresh
                } else {
                    Check::Stale
                }
            }
        }
    }

    pub fn forget(&self, path: &Path) {
        self.lock().files.remove(path);
    }

    pub fn len(&self) -> usize {
        self.lock().files.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The error for a file written without a read: Claude Code's own wording.
pub fn unread_error(display: &str) -> ToolError {
    ToolError::new(
        ErrorCode::Denied,
        "File has not been read yet. Read it first before writing to it.",
    )
    .with("path", display)
}

/// The error for a file changed since the model read it: Claude Code's own wording.
pub fn stale_error(display: &str) -> ToolError {
    ToolError::new(
        ErrorCode::Denied,
        "File has been modified since read, either by the user or by a linter. Read it again before attempting to write it.",
    )
    .with("path", display)
}

/// Refuses unless `bytes` (the file now) is what the model last read of `key`.
pub fn require_fresh(ledger: &Ledger, key: &Path, bytes: &[u8], display: &str) -> ToolResult<()> {
    match ledger.check(key, bytes) {
        Check::Fresh => Ok(()),
        Check::Unread => Err(unread_error(display)),
        Check::Stale => Err(stale_error(display)),
    }
}

static LEDGERS: LazyLock<Mutex<HashMap<u32, Arc<Ledger>>>> = LazyLock::new(Default::default);
static NEXT_ID: AtomicU32 = AtomicU32::new(1);

fn ledgers() -> std::sync::MutexGuard<'static, HashMap<u32, Arc<Ledger>>> {
    LEDGERS.lock().unwrap_or_else(|e| e.into_inner())
}

/// Opens a new, empty ledger and returns its id.
pub fn open() -> u32 {
    let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
    ledgers().insert(id, Arc::new(Ledger::default()));
    id
}

/// Drops ledger `id` (its tools object is gone).
pub fn close(id: u32) {
    ledgers().remove(&id);
}

/// Ledger `id`, or a fresh empty one when there is none (a call made without a tools object
/// then finds nothing read).
pub fn get(id: Option<u32>) -> Arc<Ledger> {
    id.and_then(|id| ledgers().get(&id).cloned())
        .unwrap_or_default()
}

/// How many ledgers are open (for tests of the JavaScript side's cleanup).
pub fn open_count() -> usize {
    ledgers().len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fresh_stale_unread() {
        let l = Ledger::default();
        let p = Path::new("/w/a");
        assert_eq!(l.check(p, b"x"), Check::Unread);
        l.record(p, b"x");
        assert_eq!(l.check(p, b"x"), Check::Fresh);
        assert_eq!(l.check(p, b"y"), Check::Stale);
        l.forget(p);
        assert_eq!(l.check(p, b"x"), Check::Unread);
    }

    #[test]
    fn bounded_lru() {
        let l = Ledger::default();
        for i in 0..CAPACITY + 10 {
            l.record(&PathBuf::from(format!("/w/{i}")), b"x");
            if i == 0 {
                continue;
            }
            // Keep the first entry in use: it must survive eviction.
            assert_eq!(l.check(Path::new("/w/0"), b"x"), Check::Fresh);
        }
        assert_eq!(l.len(), CAPACITY);
        assert_eq!(l.check(Path::new("/w/1"), b"x"), Check::Unread);
    }

    #[test]
    fn registry() {
        let id = open();
        get(Some(id)).record(Path::new("/r"), b"1");
        assert_eq!(get(Some(id)).check(Path::new("/r"), b"1"), Check::Fresh);
        close(id);
        assert!(get(Some(id)).is_empty());
    }
}
