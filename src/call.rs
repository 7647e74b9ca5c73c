//! One call's context: the configuration it runs under and whether its caller gave up.
//!
//! Cancellation is a shared flag. The binding registers a flag per call that has an
//! `AbortSignal` (under an id the JavaScript side chose) and raises it when the signal fires;
//! tools poll [`Cancel::is_cancelled`] in their long loops (walks, waits, a child's output).

use std::collections::HashMap;
use std::ops::Deref;
use std::sync::atomic::{AtomicBool, Ordering};
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

/// The flags of the calls in flight that can be aborted, by the id JavaScript gave them.
static IN_FLIGHT: LazyLock<Mutex<HashMap<u32, Cancel>>> = LazyLock::new(Default::default);

/// Registers call `id` when its work starts and returns its flag, already raised when the
/// abort came first; the returned guard removes it when the call ends.
pub fn register(id: u32) -> (Cancel, Registration) {
    let cancel = lock().entry(id).or_insert_with(Cancel::armed).clone();
    (cancel, Registration(id))
}

/// Raises the flag of call `id`. An abort may reach us before the call's work has started
/// (the work starts on another thread): the raised flag then waits for [`register`]. The
/// JavaScript side stops listening once a call settles; at worst an abort racing the very end
/// of a call leaves one raised flag behind.
pub fn abort(id: u32) {
    lock().entry(id).or_insert_with(Cancel::armed).cancel();
}

fn lock() -> std::sync::MutexGuard<'static, HashMap<u32, Cancel>> {
    IN_FLIGHT.lock().unwrap_or_else(|e| e.into_inner())
}

/// Removes a call's flag from the registry when dropped.
pub struct Registration(u32);

impl Drop for Registration {
    fn drop(&mut self) {
        lock().remove(&self.0);
    }
}

/// What a tool runs with: the configuration (it derefs to it) and the cancel flag.
pub struct Ctx<'a> {
    pub config: &'a Config,
    pub cancel: Cancel,
}

impl<'a> Ctx<'a> {
    pub fn new(config: &'a Config, cancel: Cancel) -> Self {
        Ctx { config, cancel }
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
        let (cancel, reg) = register(7);
        assert!(!cancel.is_cancelled());
        abort(7);
        assert!(cancel.is_cancelled());
        drop(reg);
        let (again, _reg) = register(8);
        assert!(!again.is_cancelled());
        assert!(!Cancel::default().is_cancelled());
        // An abort that comes before the work starts is not lost.
        abort(9);
        let (early, _reg) = register(9);
        assert!(early.is_cancelled());
    }
}
