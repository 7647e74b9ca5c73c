//! Diagnostic lines (`clarvis-agent-tools: <what>`), for the host's warn sink.
//!
//! Tools never print. A line emitted while the binding runs a call is collected with that
//! call's result and handed to the JavaScript sink (`setWarnSink`, stderr by default); a line
//! emitted anywhere else (a unit test, a thread of its own) goes to stderr.

use std::cell::RefCell;

thread_local! {
    static COLLECTED: RefCell<Option<Vec<String>>> = const { RefCell::new(None) };
}

/// Emits one diagnostic line: `what` without the prefix or the newline.
pub fn emit(what: impl Into<String>) {
    let what = what.into();
    let kept = COLLECTED.with(|c| match c.borrow_mut().as_mut() {
        Some(lines) => {
            lines.push(what.clone());
            true
        }
        None => false,
    });
    if !kept {
        eprintln!("clarvis-agent-tools: {what}");
    }
}

/// Runs `f` collecting the lines it emits on this thread.
pub fn collect<T>(f: impl FnOnce() -> T) -> (T, Vec<String>) {
    let outer = COLLECTED.with(|c| c.borrow_mut().replace(Vec::new()));
    let value = f();
    let lines = COLLECTED.with(|c| std::mem::replace(&mut *c.borrow_mut(), outer));
    (value, lines.unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_collected_per_call() {
        let ((), lines) = collect(|| {
            emit("one");
            let ((), inner) = collect(|| emit("two"));
            assert_eq!(inner, vec!["two".to_string()]);
            emit("three");
        });
        assert_eq!(lines, vec!["one".to_string(), "three".to_string()]);
    }
}
