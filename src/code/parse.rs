//! Parsing with a time budget and a cancel check. Parsers are cached per thread (one per
//! grammar), so a pool thread reuses its parser across calls; the most recent trees are kept
//! by grammar and text ([`TreeCache`]), so check_syntax and outline of one file, or a write's
//! syntax warning and a check of the file it wrote, parse it once.

use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};
use std::ops::ControlFlow;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use tree_sitter::{ParseOptions, Parser, Tree};

use super::lang::Grammar;

/// The parse budget of outline and check_syntax.
pub const TOOL_BUDGET: Duration = Duration::from_secs(2);
/// The parse budget of a syntax warning after a write.
pub const WARNING_BUDGET: Duration = Duration::from_secs(1);
/// Largest text outline and check_syntax parse (decoded UTF-8 bytes).
pub const PARSE_LIMIT: usize = 2_000_000;
/// Largest text a write warning parses.
pub const WARNING_LIMIT: usize = 1_000_000;

/// Why a parse produced no tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParseFailure {
    /// The budget ran out.
    Timeout,
    /// The caller cancelled.
    Aborted,
    /// The grammar could not be loaded (an ABI mismatch): the message says why.
    Runtime(String),
}

thread_local! {
    static PARSERS: RefCell<HashMap<&'static str, Parser>> = RefCell::new(HashMap::new());
}

/// Trees kept at most.
const CACHED_TREES: usize = 4;
/// Text bytes the kept trees may stand for, in all (a tree takes some 20-30 times its text).
const CACHED_TEXT_BYTES: usize = 1_000_000;

/// The most recent trees, newest first, each with the grammar and the exact text it was
/// parsed from: a hit needs the same text byte for byte. A `Tree` clone shares the tree.
struct TreeCache {
    entries: VecDeque<(&'static str, String, Tree)>,
}

static TREES: Mutex<TreeCache> = Mutex::new(TreeCache {
    entries: VecDeque::new(),
});

impl TreeCache {
    fn with<R>(f: impl FnOnce(&mut TreeCache) -> R) -> R {
        f(&mut TREES.lock().unwrap_or_else(PoisonError::into_inner))
    }

    fn get(&mut self, grammar: &'static str, text: &str) -> Option<Tree> {
        let at = self
            .entries
            .iter()
            .position(|(g, t, _)| *g == grammar && t == text)?;
        let entry = self.entries.remove(at)?;
        let tree = entry.2.clone();
        self.entries.push_front(entry);
        Some(tree)
    }

    fn put(&mut self, grammar: &'static str, text: &str, tree: &Tree) {
        if text.len() > CACHED_TEXT_BYTES {
            return;
        }
        self.entries
            .push_front((grammar, text.to_owned(), tree.clone()));
        let mut bytes = 0;
        let keep = self
            .entries
            .iter()
            .take(CACHED_TREES)
            .take_while(|(_, t, _)| {
                bytes += t.len();
                bytes <= CACHED_TEXT_BYTES
            })
            .count();
        self.entries.truncate(keep);
    }
}

/// Parses `text` with `grammar`, giving up after `budget` or as soon as `cancelled()` answers
/// true (both are checked from tree-sitter's progress callback, so a long parse stops promptly).
pub fn parse(
    grammar: &'static Grammar,
    text: &str,
    budget: Duration,
    cancelled: &dyn Fn() -> bool,
) -> Result<Tree, ParseFailure> {
    if cancelled() {
        return Err(ParseFailure::Aborted);
    }
    if let Some(tree) = TreeCache::with(|c| c.get(grammar.name, text)) {
        return Ok(tree);
    }
    let tree = parse_uncached(grammar, text, budget, cancelled)?;
    TreeCache::with(|c| c.put(grammar.name, text, &tree));
    Ok(tree)
}

fn parse_uncached(
    grammar: &'static Grammar,
    text: &str,
    budget: Duration,
    cancelled: &dyn Fn() -> bool,
) -> Result<Tree, ParseFailure> {
    PARSERS.with(|cell| {
        let mut parsers = cell.borrow_mut();
        let parser = match parsers.entry(grammar.name) {
            std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::hash_map::Entry::Vacant(v) => {
                let mut parser = Parser::new();
                parser
                    .set_language(&grammar.language())
                    .map_err(|e| ParseFailure::Runtime(e.to_string()))?;
                v.insert(parser)
            }
        };
        let deadline = Instant::now() + budget;
        let mut stop: Option<ParseFailure> = None;
        let mut progress = |_: &tree_sitter::ParseState| {
            if cancelled() {
                stop = Some(ParseFailure::Aborted);
                ControlFlow::Break(())
            } else if Instant::now() >= deadline {
                stop = Some(ParseFailure::Timeout);
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        };
        let bytes = text.as_bytes();
        let mut read = |offset: usize, _| &bytes[offset.min(bytes.len())..];
        let tree = parser.parse_with_options(
            &mut read,
            None,
            Some(ParseOptions::new().progress_callback(&mut progress)),
        );
        match tree {
            Some(tree) => Ok(tree),
            None => {
                // A stopped parse leaves state behind; the next parse must start afresh.
                parser.reset();
                Err(stop.unwrap_or(ParseFailure::Timeout))
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::code::lang::by_name;

    #[test]
    fn parses_and_reuses_the_thread_parser() {
        let rust = by_name("rust").unwrap();
        let never = || false;
        let t = parse(rust, "fn main() {}", TOOL_BUDGET, &never).unwrap();
        assert!(!t.root_node().has_error());
        let t = parse(rust, "fn main( {}", TOOL_BUDGET, &never).unwrap();
        assert!(t.root_node().has_error());
    }

    #[test]
    fn recent_trees_are_reused_for_the_same_text_only() {
        let rust = by_name("rust").unwrap();
        let never = || false;
        let text = "fn cached_tree_probe() { let x = 1; }\n";
        let a = parse(rust, text, TOOL_BUDGET, &never).unwrap();
        // (Other tests parse at the same time, so the process-wide cache is not probed here.)
        let mut local = TreeCache {
            entries: VecDeque::new(),
        };
        local.put("rust", text, &a);
        let hit = local.get("rust", text).unwrap();
        assert_eq!(a.root_node().to_sexp(), hit.root_node().to_sexp());
        assert!(local
            .get("rust", "fn cached_tree_probe() { let x = 2; }\n")
            .is_none());
        // A text over the budget is never kept.
        let mut cache = TreeCache {
            entries: VecDeque::new(),
        };
        cache.put("rust", &"x".repeat(CACHED_TEXT_BYTES + 1), &a);
        assert!(cache.entries.is_empty());
        for i in 0..CACHED_TREES + 2 {
            cache.put("rust", &i.to_string(), &a);
        }
        assert_eq!(cache.entries.len(), CACHED_TREES);
        assert!(cache.get("rust", "0").is_none());
        assert!(cache.get("rust", &(CACHED_TREES + 1).to_string()).is_some());
        assert!(cache
            .get("python", &(CACHED_TREES + 1).to_string())
            .is_none());
    }

    #[test]
    fn cancel_and_budget_stop_a_parse() {
        let js = by_name("javascript").unwrap();
        let big = "function f(a, b) { return [a, b, { c: a + b }]; }\n".repeat(40_000);
        assert_eq!(
            parse(js, &big, TOOL_BUDGET, &|| true).unwrap_err(),
            ParseFailure::Aborted
        );
        // Cancelled mid-parse: the first check passes, the progress callback's does not.
        let calls = std::cell::Cell::new(0);
        let later = || {
            calls.set(calls.get() + 1);
            calls.get() > 1
        };
        assert_eq!(
            parse(js, &big, TOOL_BUDGET, &later).unwrap_err(),
            ParseFailure::Aborted
        );
        assert_eq!(
            parse(js, &big, Duration::ZERO, &|| false).unwrap_err(),
            ParseFailure::Timeout
        );
        // The parser still works after being stopped.
        assert!(parse(js, "let x = 1;", TOOL_BUDGET, &|| false).is_ok());
    }
}
