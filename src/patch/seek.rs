//! Finding a hunk's lines in a file: named matching passes, tried in order from strictest to
//! most tolerant, each over every candidate position before the next pass is tried.
//!
//! 1. [`Pass::Exact`]: character-for-character equality.
//! 2. [`Pass::TrimEnd`]: trailing whitespace ignored.
//! 3. [`Pass::Trim`]: leading and trailing whitespace ignored.
//! 4. [`Pass::Punctuation`]: as `Trim`, with typographic dashes, quotes and spaces folded to
//!    ASCII ([`crate::punctuation`]).
//!
//! A match only locates the lines: the file's own text is what stays for context lines, so a
//! tolerant match never rewrites a line the hunk does not remove.

use crate::punctuation::fold_char;

/// One matching pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pass {
    Exact,
    TrimEnd,
    Trim,
    Punctuation,
}

impl Pass {
    /// Every pass, strictest first.
    pub const ALL: [Pass; 4] = [Pass::Exact, Pass::TrimEnd, Pass::Trim, Pass::Punctuation];

    /// Whether a file line and a patch line are equal under this pass.
    pub fn same(self, file: &str, patch: &str) -> bool {
        match self {
            Pass::Exact => file == patch,
            Pass::TrimEnd => file.trim_end() == patch.trim_end(),
            Pass::Trim => file.trim() == patch.trim(),
            // ASCII text has nothing to fold: the `Trim` pass already compared it.
            Pass::Punctuation if file.is_ascii() && patch.is_ascii() => file.trim() == patch.trim(),
            Pass::Punctuation => file
                .trim()
                .chars()
                .map(fold_char)
                .eq(patch.trim().chars().map(fold_char)),
        }
    }

    /// How this pass compares, for messages.
    pub fn describe(self) -> &'static str {
        match self {
            Pass::Exact => "exactly",
            Pass::TrimEnd => "ignoring trailing whitespace",
            Pass::Trim => "ignoring leading and trailing whitespace",
            Pass::Punctuation => {
                "ignoring surrounding whitespace and typographic quotes, dashes and spaces"
            }
        }
    }
}

/// The order in which candidate start positions are tried.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    /// From the lowest allowed position upwards (the Begin-Patch format).
    Forward,
    /// Nearest to a stated 0-based position first, then alternately below and above it
    /// (unified diffs, whose headers state where the hunk was).
    Nearest(usize),
}

/// Where to look for a pattern.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Search {
    /// The lowest allowed start position (0-based).
    pub from: usize,
    pub order: Order,
    /// Try the position that ends the pattern at the end of the file first.
    pub prefer_end: bool,
}

/// Finds `pattern` in `file` at or after `search.from`: the first position in the search
/// order where every line is equal under the first pass that succeeds anywhere.
/// An empty pattern is never found.
pub fn find<S: AsRef<str>>(file: &[S], pattern: &[&str], search: Search) -> Option<(usize, Pass)> {
    find_in_passes(file, pattern, search, &Pass::ALL)
}

/// Like [`find`], but only when the match is the only one at or after `search.from` under
/// the pass that found it (for searches that lost the guidance of an anchor).
pub fn find_unique<S: AsRef<str>>(
    file: &[S],
    pattern: &[&str],
    search: Search,
) -> Option<(usize, Pass)> {
    let (at, pass) = find(file, pattern, search)?;
    let forward = Search {
        from: search.from,
        order: Order::Forward,
        prefer_end: false,
    };
    let first = find_in_passes(file, pattern, forward, &[pass])?.0;
    let again = Search {
        from: first + 1,
        ..forward
    };
    match find_in_passes(file, pattern, again, &[pass]) {
        None => Some((at, pass)),
        Some(_) => None,
    }
}

/// [`find`] restricted to `passes`.
fn find_in_passes<S: AsRef<str>>(
    file: &[S],
    pattern: &[&str],
    search: Search,
    passes: &[Pass],
) -> Option<(usize, Pass)> {
    let m = pattern.len();
    if m == 0 || m > file.len() {
        return None;
    }
    let last = file.len() - m;
    if search.from > last {
        return None;
    }
    for &pass in passes {
        let matches_at = |i: usize| {
            pattern
                .iter()
                .zip(&file[i..i + m])
                .all(|(p, f)| pass.same(f.as_ref(), p))
        };
        if search.prefer_end && matches_at(last) {
            return Some((last, pass));
        }
        if let Some(i) = candidates(search.from, last, search.order).find(|&i| matches_at(i)) {
            return Some((i, pass));
        }
    }
    None
}

/// Every position in `from..=last`, in `order`.
pub fn candidates(from: usize, last: usize, order: Order) -> impl Iterator<Item = usize> {
    let hint = match order {
        Order::Forward => from,
        Order::Nearest(h) => h.clamp(from, last),
    };
    let span = (hint - from).max(last - hint);
    std::iter::once(hint).chain((1..=span).flat_map(move |d| {
        let below = hint.checked_sub(d).filter(|&i| i >= from);
        let above = Some(hint + d).filter(|&i| i <= last);
        match order {
            // Forward from `from`: `below` never exists.
            Order::Forward => [above, None],
            Order::Nearest(_) => [below, above],
        }
        .into_iter()
        .flatten()
    }))
}

/// The region most like `pattern` (per-line equality ignoring surrounding whitespace), for
/// diagnostics: its start and how many lines are equal. Ties go to the position nearest
/// `near`. Looks at no more than about two million line pairs around `near`; `None` when no
/// line is equal anywhere.
pub fn closest<S: AsRef<str>>(
    file: &[S],
    pattern: &[&str],
    from: usize,
    near: usize,
) -> Option<(usize, usize)> {
    let m = pattern.len();
    if m == 0 || file.is_empty() {
        return None;
    }
    // A region may run past the end of the file (only its lines there are compared).
    let last = file.len() - 1;
    if from > last {
        return None;
    }
    let budget = (2_000_000 / m).max(1);
    let mut best: Option<(usize, usize)> = None;
    for i in candidates(from, last, Order::Nearest(near)).take(budget) {
        let score = pattern
            .iter()
            .zip(file[i..].iter())
            .filter(|(p, f)| Pass::Trim.same(f.as_ref(), p))
            .count();
        if score > best.map_or(0, |b| b.1) {
            best = Some((i, score));
            if score == m {
                break;
            }
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    fn search(from: usize, order: Order) -> Search {
        Search {
            from,
            order,
            prefer_end: false,
        }
    }

    #[test]
    fn pass_exact() {
        assert!(Pass::Exact.same("  a b", "  a b"));
        assert!(!Pass::Exact.same("a ", "a"));
    }

    #[test]
    fn pass_trim_end() {
        assert!(Pass::TrimEnd.same("a  \t", "a"));
        assert!(!Pass::TrimEnd.same(" a", "a"));
    }

    #[test]
    fn pass_trim() {
        assert!(Pass::Trim.same("\t  a b ", "a b"));
        assert!(!Pass::Trim.same("a  b", "a b"));
    }

    #[test]
    fn pass_punctuation() {
        assert!(Pass::Punctuation.same("  let s = “hi” – ‘x’;", "let s = \"hi\" - 'x';"));
        assert!(Pass::Punctuation.same("a\u{00A0}b", "a b"));
        assert!(!Pass::Punctuation.same("a…", "a..."));
    }

    #[test]
    fn passes_are_tried_strictest_first_over_the_whole_file() {
        let file = ["  x", "x", "y"];
        // The exact match at 1 wins over the earlier trim match at 0.
        assert_eq!(
            find(&file, &["x"], search(0, Order::Forward)),
            Some((1, Pass::Exact))
        );
        assert_eq!(
            find(&file, &["x "], search(0, Order::Forward)),
            Some((1, Pass::TrimEnd))
        );
        assert_eq!(
            find(&file, &["  x", "x "], search(0, Order::Forward)),
            Some((0, Pass::TrimEnd))
        );
        assert_eq!(
            find(&["“q”"], &["\"q\""], search(0, Order::Forward)),
            Some((0, Pass::Punctuation))
        );
        assert_eq!(find(&file, &["z"], search(0, Order::Forward)), None);
    }

    #[test]
    fn nearest_order_and_lower_bound() {
        let file = ["a", "b", "a", "c", "d", "a"];
        assert_eq!(
            find(&file, &["a"], search(0, Order::Nearest(4))),
            Some((5, Pass::Exact))
        );
        assert_eq!(
            find(&file, &["a"], search(0, Order::Nearest(3))),
            Some((2, Pass::Exact))
        );
        assert_eq!(
            find(&file, &["a"], search(3, Order::Nearest(0))),
            Some((5, Pass::Exact))
        );
        let order: Vec<_> = candidates(1, 5, Order::Nearest(3)).collect();
        assert_eq!(order, [3, 2, 4, 1, 5]);
        let order: Vec<_> = candidates(2, 4, Order::Forward).collect();
        assert_eq!(order, [2, 3, 4]);
    }

    #[test]
    fn unique_matches_only() {
        let s = search(0, Order::Forward);
        assert_eq!(
            find_unique(&["a", "b", "a"], &["b"], s),
            Some((1, Pass::Exact))
        );
        assert_eq!(find_unique(&["a", "b", "a"], &["a"], s), None);
        assert_eq!(
            find_unique(&["a", "b", "a"], &["a"], search(1, Order::Forward)),
            Some((2, Pass::Exact))
        );
    }

    #[test]
    fn prefer_end_tries_the_tail_first() {
        let file = ["x", "y", "x"];
        let s = Search {
            from: 0,
            order: Order::Forward,
            prefer_end: true,
        };
        assert_eq!(find(&file, &["x"], s), Some((2, Pass::Exact)));
    }

    #[test]
    fn closest_region_counts_equal_lines() {
        let file = ["a", "b", "c", "d", "e"];
        assert_eq!(closest(&file, &["c", "X", "e"], 0, 0), Some((2, 2)));
        assert_eq!(closest(&file, &["q"], 0, 0), None);
        // A region cut by the end of the file still counts its lines there.
        assert_eq!(closest(&file, &["X", "e", "Y"], 0, 0), Some((3, 1)));
    }
}
