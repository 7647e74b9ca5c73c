//! One call's context: the configuration it runs under and whether its caller gave up.
//!
//! Cancellation is a shared flag, and progress a few shared counters. The binding registers a flag per call that has an
//! `AbortSignal` (under an id the JavaScript side chose) and raises it when the signal fires;
//! tools poll [`Cancel::is_cancelled`] in their long loops (walks, waits, a child's output).

use std::collections::HashMap;
use std::ops::Deref;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, LazyLock, Mutex};

use crate::config::Config;

/// Whether the caller of one call has aborted it. The default is never cancelled.
#[derive(Debug, Clone, Default)]
pub struct Cancel(Option<Arc<AtomicBool>>);

impl Cancel {
    /// A cancel flag that can be raised through [`Cancel::cancel`].
    pub fn armed() -> Self {
        Cancel(Some(Arc::new(AtomicBool::new(false))))
    }

    pub fn is_cancelled(&self) -> bool {
        self.0.as_ref().is_some_and(|f| f.load(Ordering::Relaxed))
    }

    /// Whether this call can be cancelled at all (long waits may then poll more often).
    pub fn is_cancellable(&self) -> bool {
        self.0.is_some()
    }

    pub fn cancel(&self) {
        if let Some(f) = &self.0 {
            f.store(true, Ordering::Relaxed);
        }
    }
}

/// How far a call has got, for a host that shows progress: files walked, bytes scanned, and the
/// latest output of a command. Updating it is a relaxed atomic add (or a short lock for the
/// tail); a call nobody watches has none and pays nothing.
#[derive(Debug, Clone, Default)]
pub struct Progress(Option<Arc<ProgressState>>);

#[derive(Debug, Default)]
pub struct ProgressState {
    files: AtomicU64,
    bytes: AtomicU64,
    tail: Mutex<String>,
}

/// A snapshot of a call's [`Progress`].
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ProgressReport {
    pub files: u64,
    pub bytes: u64,
    pub tail: String,
}

/// How much of a command's latest output a progress report carries.
const TAIL_CHARS: usize = 200;

impl Progress {
    /// A progress record that is kept (one a host watches).
    pub fn watched() -> Self {
        Progress(Some(Arc::default()))
    }

    /// Whether anyone watches this call's progress (a tool may skip work that only feeds it).
    pub fn is_watched(&self) -> bool {
        self.0.is_some()
    }

    /// Counts one more file walked and the bytes read of it.
    pub fn add_file(&self, bytes: u64) {
        if let Some(p) = &self.0 {
            p.files.fetch_add(1, Ordering::Relaxed);
            p.bytes.fetch_add(bytes, Ordering::Relaxed);
        }
    }

    /// Records the latest output of a command (its last [`TAIL_CHARS`] characters are kept).
    pub fn set_tail(&self, output: &[u8]) {
        if let Some(p) = &self.0 {
            let start = output.len().saturating_sub(TAIL_CHARS * 4);
            let text = String::from_utf8_lossy(&output[start..]);
            let skip = text.chars().count().saturating_sub(TAIL_CHARS);
            let tail: String = text.chars().skip(skip).collect();
            *p.tail.lock().unwrap_or_else(|e| e.into_inner()) = tail;
        }
    }

    pub fn report(&self) -> Option<ProgressReport> {
        self.0.as_ref().map(|p| ProgressReport {
            files: p.files.load(Ordering::Relaxed),
            bytes: p.bytes.load(Ordering::Relaxed),
            tail: p.tail.lock().unwrap_or_else(|e| e.into_inner()).clone(),
        })
    }
}

/// What the registry keeps of a call in flight.
#[derive(Clone, Default)]
struct Entry {
    cancel: Cancel,
    progress: Progress,
}

impl Entry {
    fn armed() -> Entry {
        Entry {
            cancel: Cancel::armed(),
            progress: Progress::watched(),
        }
    }
}

/// The calls in flight that can be aborted or watched, by the id JavaScript gave them.
static IN_FLIGHT: LazyLock<Mutex<HashMap<u32, Entry>>> = LazyLock::new(Default::default);

/// Registers call `id` when its work starts and returns its cancel flag (already raised when
/// the abort came first) and its progress record; the returned guard removes them when the
/// call ends.
pub fn register(id: u32) -> (Cancel, Progress, Registration) {
    let entry = lock().entry(id).or_insert_with(Entry::armed).clone();
    (entry.cancel, entry.progress, Registration(id))
}

/// Raises the flag of call `id`. An abort may reach us before the call's work has started
/// (the work starts on another thread): the raised flag then waits for [`register`]. The
/// JavaScript side stops listening once a call settles; at worst an abort racing the very end
/// of a call leaves one raised flag behind.
pub fn abort(id: u32) {
    lock()
        .entry(id)
        .or_insert_with(Entry::armed)
        .cancel
        .cancel();
}

/// How far call `id` has got, while it runs.
pub fn progress(id: u32) -> Option<ProgressReport> {
    lock().get(&id).and_then(|e| e.progress.report())
}

fn lock() -> std::sync::MutexGuard<'static, HashMap<u32, Entry>> {
    IN_FLIGHT.lock().unwrap_or_else(|e| e.into_inner())
}

/// Removes a call's flag from the registry when dropped.
pub struct Registration(u32);

impl Drop for Registration {
    fn drop(&mut self) {
        lock().remove(&self.0);
    }
}

/// What a tool runs with: the configuration (it derefs to it), the cancel flag, and the
/// progress record a watching host reads.
pub struct Ctx<'a> {
    pub config: &'a Config,
    pub cancel: Cancel,
    pub progress: Progress,
}

impl<'a> Ctx<'a> {
    pub fn new(config: &'a Config, cancel: Cancel) -> Self {
        Ctx {
            config,
            cancel,
            progress: Progress::default(),
        }
    }

    /// A context that is never cancelled.
    pub fn plain(config: &'a Config) -> Self {
        Ctx::new(config, Cancel::default())
    }
}

impl Deref for Ctx<'_> {
    type Target = Config;
    fn deref(&self) -> &Config {
        self.config
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn abort_raises_the_flag_of_its_call() {
        let (cancel, _, reg) = register(7);
        assert!(!cancel.is_cancelled());
        abort(7);
        assert!(cancel.is_cancelled());
        drop(reg);
        let (again, _, _reg) = register(8);
        assert!(!again.is_cancelled());
        assert!(!Cancel::default().is_cancelled());
        // An abort that comes before the work starts is not lost.
        abort(9);
        let (early, _, _reg) = register(9);
        assert!(early.is_cancelled());
    }

    #[test]
    fn progress_is_read_while_the_call_runs() {
        let (_, progress, reg) = register(11);
        progress.add_file(10);
        progress.add_file(5);
        progress.set_tail("x".repeat(500).as_bytes());
        let report = super::progress(11).unwrap();
        assert_eq!((report.files, report.bytes), (2, 15));
        assert_eq!(report.tail.len(), TAIL_CHARS);
        drop(reg);
        assert_eq!(super::progress(11), None);
        Progress::default().add_file(1);
    }
}
