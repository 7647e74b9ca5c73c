//! Parsing with a time budget and a cancel check. Parsers are cached per thread (one per
//! grammar), so a pool thread reuses its parser across calls; the most recent trees are kept
//! by grammar and text ([`TreeCache`]), so check_syntax and outline of one file, or a write's
//! syntax warning and a check of the file it wrote, parse it once. A text that an edit made
//! from a text whose tree is kept is parsed incrementally ([`parse_edited`]): the kept tree is
//! told which lines changed and tree-sitter reparses only around them, so successive edits of
//! one file cost a fraction of a parse each.

use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};
use std::ops::ControlFlow;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use rustc_hash::FxHashMap;
use tree_sitter::{InputEdit, ParseOptions, Parser, Point, Range, Tree};

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

/// Trees kept at most: more than the files one apply_patch or replace checks (five), so that
/// successive patches of the same files reparse each incrementally.
const CACHED_TREES: usize = 8;
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

    /// Removes and returns the tree of `text`: the text an edit replaced is not asked for again.
    fn take(&mut self, grammar: &'static str, text: &str) -> Option<Tree> {
        let at = self
            .entries
            .iter()
            .position(|(g, t, _)| *g == grammar && t == text)?;
        self.entries.remove(at).map(|(_, _, tree)| tree)
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
    parse_edited(grammar, None, text, budget, cancelled)
}

/// [`parse`] of `text` that an edit made from `before`: when the tree of `before` is kept,
/// it is edited to match and reparsed incrementally (tree-sitter reuses every subtree the
/// changed lines do not touch; the result is the tree a fresh parse gives).
pub fn parse_edited(
    grammar: &'static Grammar,
    before: Option<&str>,
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
    let old = before.and_then(|before| {
        let mut tree = TreeCache::with(|c| c.take(grammar.name, before))?;
        for edit in line_edits(before, text) {
            tree.edit(&edit);
        }
        Some(tree)
    });
    let mut tree = parse_uncached(grammar, text, &[], budget, cancelled, old.as_ref())?;
    if old.is_some() && tree.root_node().has_error() {
        // Error recovery can take another turn in an incremental parse: a broken text gets
        // the tree (and so the issues) a fresh parse gives.
        tree = parse_uncached(grammar, text, &[], budget, cancelled, None)?;
    }
    TreeCache::with(|c| c.put(grammar.name, text, &tree));
    Ok(tree)
}

/// Byte offset where each line starts, plus the text's length.
fn line_starts(text: &str) -> Vec<usize> {
    let mut starts = vec![0];
    starts.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1));
    if *starts.last().unwrap_or(&0) != text.len() {
        starts.push(text.len());
    }
    starts
}

/// The point of the start of line `line` (the text's end when `line` is past its last line).
fn point_at(text: &str, starts: &[usize], line: usize) -> Point {
    let lines = starts.len() - 1;
    if line < lines || text.is_empty() || text.ends_with('\n') {
        Point::new(line.min(lines), 0)
    } else {
        Point::new(lines - 1, text.len() - starts[lines - 1])
    }
}

/// How `before` became `after`, as tree-sitter edits of whole lines: the changed runs of a
/// line diff (`similar`'s, cut short after a few milliseconds — a coarser diff only makes the
/// reparse cover more), last first, so each edit's start is the same in both texts.
fn line_edits<'s>(before: &'s str, after: &'s str) -> Vec<InputEdit> {
    use similar::{capture_diff_slices_deadline, Algorithm, DiffTag};
    let (old_starts, new_starts) = (line_starts(before), line_starts(after));
    fn line<'t>(text: &'t str, starts: &[usize], i: usize) -> &'t str {
        &text[starts[i]..starts[i + 1]]
    }
    let (old_lines, new_lines) = (old_starts.len() - 1, new_starts.len() - 1);
    // The lines both ends share are not diffed (an edit usually changes a few lines).
    let head = (0..old_lines.min(new_lines))
        .find(|&i| line(before, &old_starts, i) != line(after, &new_starts, i))
        .unwrap_or(old_lines.min(new_lines));
    let tail = (0..(old_lines - head).min(new_lines - head))
        .find(|&i| {
            line(before, &old_starts, old_lines - 1 - i)
                != line(after, &new_starts, new_lines - 1 - i)
        })
        .unwrap_or((old_lines - head).min(new_lines - head));
    // The lines between, as ids (equal lines, equal ids), so the diff compares numbers.
    let mut ids: FxHashMap<&'s str, u32> = FxHashMap::default();
    let mut intern = |text: &'s str, starts: &[usize], lines: usize| -> Vec<u32> {
        (head..lines - tail)
            .map(|i| {
                let next = ids.len() as u32;
                *ids.entry(line(text, starts, i)).or_insert(next)
            })
            .collect()
    };
    let old = intern(before, &old_starts, old_lines);
    let new = intern(after, &new_starts, new_lines);
    let deadline = Instant::now() + Duration::from_millis(5);
    let ops = capture_diff_slices_deadline(Algorithm::Myers, &old, &new, Some(deadline));
    let mut edits: Vec<InputEdit> = ops
        .iter()
        .map(|op| op.as_tag_tuple())
        .filter(|(tag, _, _)| *tag != DiffTag::Equal)
        .map(|(_, o, n)| (o.start + head..o.end + head, n.start + head..n.end + head))
        .map(|(o, n)| {
            let start_byte = old_starts[o.start];
            let start_position = point_at(before, &old_starts, o.start);
            let new_len = new_starts[n.end] - new_starts[n.start];
            // The new end, in the edited text: the rows and (on the same row) columns the new
            // lines span, counted from the edit's start.
            let (from, to) = (
                point_at(after, &new_starts, n.start),
                point_at(after, &new_starts, n.end),
            );
            let new_end_position = if to.row == from.row {
                Point::new(
                    start_position.row,
                    start_position.column + to.column - from.column,
                )
            } else {
                Point::new(start_position.row + to.row - from.row, to.column)
            };
            InputEdit {
                start_byte,
                old_end_byte: old_starts[o.end],
                new_end_byte: start_byte + new_len,
                start_position,
                old_end_position: point_at(before, &old_starts, o.end),
                new_end_position,
            }
        })
        .collect();
    edits.reverse();
    edits
}

/// [`parse`] of the parts `ranges` of `text` only (all of it when `ranges` is empty), not
/// looked up in or kept in the tree cache: tree-sitter's included ranges, where the parser
/// sees the ranges' text as if the rest were not there and every node keeps its place in the
/// whole text. Navigation parses many files once each, and C files around their bodies.
pub fn parse_ranges(
    grammar: &'static Grammar,
    text: &str,
    ranges: &[Range],
    budget: Duration,
    cancelled: &dyn Fn() -> bool,
) -> Result<Tree, ParseFailure> {
    if cancelled() {
        return Err(ParseFailure::Aborted);
    }
    parse_uncached(grammar, text, ranges, budget, cancelled, None)
}

fn parse_uncached(
    grammar: &'static Grammar,
    text: &str,
    ranges: &[Range],
    budget: Duration,
    cancelled: &dyn Fn() -> bool,
    old: Option<&Tree>,
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
        if !ranges.is_empty() {
            parser
                .set_included_ranges(ranges)
                .map_err(|e| ParseFailure::Runtime(format!("bad included range {}", e.0)))?;
        }
        let tree = parser.parse_with_options(
            &mut read,
            old,
            Some(ParseOptions::new().progress_callback(&mut progress)),
        );
        if !ranges.is_empty() {
            // The parser is the thread's for every later parse: back to the whole text.
            let _ = parser.set_included_ranges(&[]);
        }
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
    fn included_ranges_parse_only_them_and_the_parser_forgets_them() {
        let cpp = by_name("cpp").unwrap();
        let never = || false;
        let text = "int f(void) { g(); h(); }\nint k;\n";
        // Leave out ` g(); h(); ` but its last `;`.
        let open = text.find('{').unwrap() + 1;
        let semi = text.find("; }").unwrap();
        let point = |at: usize| Point::new(0, at);
        let range = |a: usize, b: usize| Range {
            start_byte: a,
            end_byte: b,
            start_point: point(a),
            end_point: if b == text.len() {
                Point::new(2, 0)
            } else {
                point(b)
            },
        };
        let around = parse_ranges(
            cpp,
            text,
            &[range(0, open), range(semi, text.len())],
            TOOL_BUDGET,
            &never,
        )
        .unwrap();
        let sexp = around.root_node().to_sexp();
        assert!(!sexp.contains("call_expression"), "{sexp}");
        assert!(
            sexp.contains("body: (compound_statement (expression_statement))"),
            "{sexp}"
        );
        // The next parse on this thread sees the whole text again.
        let whole = parse_ranges(cpp, text, &[], TOOL_BUDGET, &never).unwrap();
        assert!(whole.root_node().to_sexp().contains("call_expression"));
    }

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
        assert!(local.take("rust", text).is_some());
        assert!(local.get("rust", text).is_none());
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

    /// An edited tree reparsed incrementally, when it comes out clean, is the tree a fresh parse
    /// gives (error recovery may differ, which is why [`parse_edited`] reparses a broken result
    /// from scratch): random line edits of TypeScript texts, clean and broken, with and without
    /// a final line break.
    #[test]
    fn a_clean_incremental_reparse_equals_a_fresh_parse() {
        let ts = by_name("typescript").unwrap();
        let never = || false;
        let pieces = [
            "class A { m(): void { return 1; } }\n",
            "class B {\n  n(x: number): number {\n    return x;\n  }\n}\n",
            "const f = (x: number) => x * 2;\n",
            "function g(a, b) {\n  return a + b;\n}\n",
            "let s = `t${1}`;\n",
            "if (x) { y(); }\n",
            "// c\n",
            "\n",
        ];
        let broken = "x = (;\n";
        let mut rng = crate::testutil::XorShift::new(0xC0FF_EE12_3456_789A);
        let mut clean = 0;
        for round in 0..300 {
            let n = 3 + rng.below(30);
            let mut before: String = (0..n).map(|_| pieces[rng.below(pieces.len())]).collect();
            let mut lines: Vec<String> = before.split_inclusive('\n').map(String::from).collect();
            for _ in 0..1 + rng.below(4) {
                let at = rng.below(lines.len() + 1);
                let piece = if rng.below(8) == 0 {
                    broken
                } else {
                    pieces[rng.below(pieces.len())]
                };
                match rng.below(3) {
                    0 => lines.insert(at, piece.to_string()),
                    1 if at < lines.len() => {
                        lines.remove(at);
                    }
                    _ if at < lines.len() => lines[at] = piece.to_string(),
                    _ => {}
                }
            }
            let mut after = lines.concat();
            if round % 3 == 0 {
                // No final line break, on one side or both.
                after.push_str("let last = 1;");
                if round % 2 == 0 {
                    before.push_str("let last = 1;");
                }
            }
            let old = parse_uncached(ts, &before, &[], TOOL_BUDGET, &never, None).unwrap();
            let mut edited = old.clone();
            for edit in line_edits(&before, &after) {
                edited.edit(&edit);
            }
            let incremental =
                parse_uncached(ts, &after, &[], TOOL_BUDGET, &never, Some(&edited)).unwrap();
            let fresh = parse_uncached(ts, &after, &[], TOOL_BUDGET, &never, None).unwrap();
            if !incremental.root_node().has_error() {
                clean += 1;
                assert_eq!(
                    incremental.root_node().to_sexp(),
                    fresh.root_node().to_sexp(),
                    "{before:?} -> {after:?}"
                );
                let span = |t: &Tree| (t.root_node().end_byte(), t.root_node().end_position());
                assert_eq!(span(&incremental), span(&fresh), "{before:?} -> {after:?}");
            }
            // The kept tree itself is untouched by the edits of its copy.
            assert_eq!(
                old.root_node().to_sexp(),
                parse_uncached(ts, &before, &[], TOOL_BUDGET, &never, None)
                    .unwrap()
                    .root_node()
                    .to_sexp()
            );
        }
        assert!(clean > 50, "{clean} clean reparses");
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
