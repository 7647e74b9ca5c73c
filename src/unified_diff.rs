//! Unified diffs, byte-identical to jsdiff's `createTwoFilesPatch(old, new, a, b, undefined,
//! undefined, { context })`: the one formatter behind the `diff` tool and every `meta.diff`.
//!
//! Matching jsdiff byte for byte needs more than "a" minimal diff: where several minimal line
//! alignments exist, which one is shown (and so how hunks split, and whether removals come
//! before additions) depends on the exact order in which the Myers search explores diagonals.
//! So the line diff here is a port of jsdiff's `Diff.diff` (its O(ND) search with the
//! "stop considering diagonals past an edge" pruning, and its path-extension tie-break), on
//! interned line ids. Its memory grows with the square of the edit distance, as jsdiff's does;
//! past [`MAX_COMPONENTS`] path components (about an edit distance of 2000 lines) the search gives up and `similar`'s Myers diff (a
//! linear-space implementation) supplies the alignment instead, so a huge rewrite still gets a
//! correct, if differently laid out, patch.

use std::collections::HashMap;

/// The 67 `=` that underline the header.
const UNDERLINE: &str = "===================================================================";

/// Past this many path components (12 bytes each) the jsdiff search hands over to `similar`.
const MAX_COMPONENTS: usize = 2_000_000;

/// One run of the line diff: `count` lines, kept, added or removed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    Equal(usize),
    Removed(usize),
    Added(usize),
}

/// jsdiff's `createTwoFilesPatch(old_name, new_name, old, new, undefined, undefined, { context })`.
/// The `Index:` line appears only when the names are equal. An equal pair still gets the
/// header lines (jsdiff does the same); callers that want "(no differences)" check first.
pub fn two_files_patch(
    old_name: &str,
    new_name: &str,
    old: &str,
    new: &str,
    context: usize,
) -> String {
    let old_lines = tokenize(old);
    let new_lines = tokenize(new);
    let changes = diff_lines(&old_lines, &new_lines);
    let mut out = String::new();
    if old_name == new_name {
        out.push_str("Index: ");
        out.push_str(old_name);
        out.push('\n');
    }
    out.push_str(UNDERLINE);
    out.push('\n');
    out.push_str("--- ");
    out.push_str(old_name);
    out.push('\n');
    out.push_str("+++ ");
    out.push_str(new_name);
    out.push('\n');
    for hunk in hunks(&changes, &old_lines, &new_lines, context) {
        let old_start = if hunk.old_lines == 0 {
            hunk.old_start - 1
        } else {
            hunk.old_start
        };
        let new_start = if hunk.new_lines == 0 {
            hunk.new_start - 1
        } else {
            hunk.new_start
        };
        out.push_str(&format!(
            "@@ -{old_start},{} +{new_start},{} @@\n",
            hunk.old_lines, hunk.new_lines
        ));
        for (prefix, line) in hunk.lines {
            out.push(prefix);
            match line.strip_suffix('\n') {
                Some(body) => {
                    out.push_str(body);
                    out.push('\n');
                }
                None => {
                    out.push_str(line);
                    out.push_str("\n\\ No newline at end of file\n");
                }
            }
        }
    }
    out
}

/// `meta.diff` for an edit of one file: `createTwoFilesPatch(rel, rel, before, after)` on the
/// decoded texts with every line terminator as `\n` (the BOM is already stripped by the
/// decoder), an undecodable byte's stand-in shown as U+FFFD.
pub fn edit_patch(rel: &str, before: &str, after: &str) -> String {
    two_files_patch(rel, rel, &shown(before), &shown(after), 3)
}

/// LF-normalized text with each undecodable byte's stand-in as U+FFFD; borrowed when there is
/// nothing to change (the stand-ins are U+10FF00..U+10FFFF, whose UTF-8 starts with F4 8F).
fn shown(text: &str) -> std::borrow::Cow<'_, str> {
    let text = crate::text::normalize_newlines(text);
    if memchr::memmem::find(text.as_bytes(), b"\xF4\x8F").is_none() {
        return text;
    }
    std::borrow::Cow::Owned(text.chars().map(crate::text::display_char).collect())
}

/// jsdiff's line tokenizer for LF text: each line with its `\n`; the last may lack one.
/// (Callers pass LF-normalized text; a `\r\n` is treated as a line end too, as jsdiff does.)
pub fn tokenize(text: &str) -> Vec<&str> {
    let mut lines = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        match memchr::memchr(b'\n', rest.as_bytes()) {
            Some(i) => {
                lines.push(&rest[..=i]);
                rest = &rest[i + 1..];
            }
            None => {
                lines.push(rest);
                rest = "";
            }
        }
    }
    lines
}

struct Hunk<'a> {
    old_start: usize,
    old_lines: usize,
    new_start: usize,
    new_lines: usize,
    lines: Vec<(char, &'a str)>,
}

/// jsdiff's `structuredPatch` hunk builder over the change runs.
fn hunks<'a>(
    changes: &[Change],
    old: &[&'a str],
    new: &[&'a str],
    context: usize,
) -> Vec<Hunk<'a>> {
    // Each run's lines, resolved against the side it comes from.
    let mut runs: Vec<(Change, &[&'a str])> = Vec::with_capacity(changes.len() + 1);
    let (mut o, mut n) = (0usize, 0usize);
    for &c in changes {
        match c {
            Change::Equal(k) => {
                runs.push((c, &new[n..n + k]));
                o += k;
                n += k;
            }
            Change::Removed(k) => {
                runs.push((c, &old[o..o + k]));
                o += k;
            }
            Change::Added(k) => {
                runs.push((c, &new[n..n + k]));
                n += k;
            }
        }
    }
    // jsdiff appends an empty kept run to flush the last hunk.
    runs.push((Change::Equal(0), &[]));
    let total = runs.len();
    let mut out = Vec::new();
    let (mut old_range_start, mut new_range_start) = (0usize, 0usize);
    let mut cur: Vec<(char, &'a str)> = Vec::new();
    let (mut old_line, mut new_line) = (1usize, 1usize);
    for i in 0..total {
        let (change, lines) = runs[i];
        match change {
            Change::Added(_) | Change::Removed(_) => {
                if old_range_start == 0 {
                    old_range_start = old_line;
                    new_range_start = new_line;
                    if i > 0 {
                        let prev = runs[i - 1].1;
                        let from = prev.len().saturating_sub(context);
                        cur = prev[from..].iter().map(|l| (' ', *l)).collect();
                        old_range_start -= cur.len();
                        new_range_start -= cur.len();
                    }
                }
                let added = matches!(change, Change::Added(_));
                cur.extend(lines.iter().map(|l| (if added { '+' } else { '-' }, *l)));
                if added {
                    new_line += lines.len();
                } else {
                    old_line += lines.len();
                }
            }
            Change::Equal(_) => {
                if old_range_start != 0 {
                    if lines.len() <= context * 2 && i + 2 < total {
                        cur.extend(lines.iter().map(|l| (' ', *l)));
                    } else {
                        let size = lines.len().min(context);
                        cur.extend(lines[..size].iter().map(|l| (' ', *l)));
                        out.push(Hunk {
                            old_start: old_range_start,
                            old_lines: old_line - old_range_start + size,
                            new_start: new_range_start,
                            new_lines: new_line - new_range_start + size,
                            lines: std::mem::take(&mut cur),
                        });
                        old_range_start = 0;
                        new_range_start = 0;
                    }
                }
                old_line += lines.len();
                new_line += lines.len();
            }
        }
    }
    out
}

/// The line diff as runs, in jsdiff's order.
pub fn diff_lines<'a>(old: &[&'a str], new: &[&'a str]) -> Vec<Change> {
    let mut ids: HashMap<&'a str, u32> = HashMap::new();
    let mut intern = |l: &'a str| -> u32 {
        let next = ids.len() as u32;
        *ids.entry(l).or_insert(next)
    };
    let a: Vec<u32> = old.iter().map(|l| intern(l)).collect();
    let old_ids = a.iter().max().map_or(0, |m| m + 1);
    let b: Vec<u32> = new.iter().map(|l| intern(l)).collect();
    if b.iter().all(|&id| id >= old_ids) {
        // No line in common (a rewrite): jsdiff's search ends with every removal before every
        // addition, and gets there in quadratic time; this is the same answer at once.
        return [Change::Removed(a.len()), Change::Added(b.len())]
            .into_iter()
            .filter(|c| !matches!(c, Change::Removed(0) | Change::Added(0)))
            .collect();
    }
    match jsdiff_myers(&a, &b) {
        Some(changes) => changes,
        None => similar_fallback(&a, &b),
    }
}

#[derive(Clone, Copy)]
struct Component {
    count: u32,
    kind: u8, // 0 equal, 1 added, 2 removed
    prev: Option<u32>,
}

#[derive(Clone, Copy)]
struct PathHead {
    old_pos: isize,
    last: Option<u32>,
}

/// A port of jsdiff's `Diff.diffWithOptionsObj` (no options). `None` when the component arena
/// outgrows [`MAX_COMPONENTS`].
fn jsdiff_myers(old: &[u32], new: &[u32]) -> Option<Vec<Change>> {
    let (old_len, new_len) = (old.len() as isize, new.len() as isize);
    let max_edit = old_len + new_len;
    let offset = max_edit + 1;
    let mut arena: Vec<Component> = Vec::new();
    let mut best: Vec<Option<PathHead>> = vec![None; (2 * offset + 1) as usize];
    let slot = |d: isize| (d + offset) as usize;

    fn extract_common(
        arena: &mut Vec<Component>,
        path: &mut PathHead,
        old: &[u32],
        new: &[u32],
        diagonal: isize,
    ) -> isize {
        let (old_len, new_len) = (old.len() as isize, new.len() as isize);
        let mut old_pos = path.old_pos;
        let mut new_pos = old_pos - diagonal;
        let mut common = 0usize;
        while new_pos + 1 < new_len
            && old_pos + 1 < old_len
            && old[(old_pos + 1) as usize] == new[(new_pos + 1) as usize]
        {
            new_pos += 1;
            old_pos += 1;
            common += 1;
        }
        if common > 0 {
            arena.push(Component {
                count: common as u32,
                kind: 0,
                prev: path.last,
            });
            path.last = Some((arena.len() - 1) as u32);
        }
        path.old_pos = old_pos;
        new_pos
    }

    fn add_to_path(
        arena: &mut Vec<Component>,
        path: PathHead,
        kind: u8,
        old_inc: isize,
    ) -> PathHead {
        let comp = match path.last.map(|i| arena[i as usize]) {
            Some(last) if last.kind == kind => Component {
                count: last.count + 1,
                kind,
                prev: last.prev,
            },
            _ => Component {
                count: 1,
                kind,
                prev: path.last,
            },
        };
        arena.push(comp);
        PathHead {
            old_pos: path.old_pos + old_inc,
            last: Some((arena.len() - 1) as u32),
        }
    }

    let mut first = PathHead {
        old_pos: -1,
        last: None,
    };
    let new_pos = extract_common(&mut arena, &mut first, old, new, 0);
    if first.old_pos + 1 >= old_len && new_pos + 1 >= new_len {
        return Some(build(&arena, first.last));
    }
    best[slot(0)] = Some(first);
    let (mut min_diag, mut max_diag) = (isize::MIN, isize::MAX);
    let mut edit_len: isize = 1;
    while edit_len <= max_edit {
        let mut diagonal = min_diag.max(-edit_len);
        let top = max_diag.min(edit_len);
        while diagonal <= top {
            // |diagonal| <= edit_len <= max_edit, so both neighbours are inside the table.
            let remove_path = best[slot(diagonal - 1)];
            let add_path = best[slot(diagonal + 1)];
            if remove_path.is_some() {
                best[slot(diagonal - 1)] = None;
            }
            let can_add = add_path.is_some_and(|p| {
                let add_new_pos = p.old_pos - diagonal;
                0 <= add_new_pos && add_new_pos < new_len
            });
            let can_remove = remove_path.is_some_and(|p| p.old_pos + 1 < old_len);
            if !can_add && !can_remove {
                best[slot(diagonal)] = None;
                diagonal += 2;
                continue;
            }
            let mut base = match (add_path, remove_path) {
                (Some(add), remove)
                    if !can_remove
                        || (can_add && remove.is_some_and(|r| r.old_pos < add.old_pos)) =>
                {
                    add_to_path(&mut arena, add, 1, 0)
                }
                (_, Some(remove)) => add_to_path(&mut arena, remove, 2, 1),
                _ => unreachable_path(),
            };
            let new_pos = extract_common(&mut arena, &mut base, old, new, diagonal);
            if base.old_pos + 1 >= old_len && new_pos + 1 >= new_len {
                return Some(build(&arena, base.last));
            }
            best[slot(diagonal)] = Some(base);
            if base.old_pos + 1 >= old_len {
                max_diag = max_diag.min(diagonal - 1);
            }
            if new_pos + 1 >= new_len {
                min_diag = min_diag.max(diagonal + 1);
            }
            if arena.len() > MAX_COMPONENTS {
                return None;
            }
            diagonal += 2;
        }
        edit_len += 1;
    }
    // Unreachable for finite inputs: some path reaches the end within old_len + new_len edits.
    None
}

/// Only reached if neither path exists, which the `can_add || can_remove` check rules out.
fn unreachable_path() -> PathHead {
    PathHead {
        old_pos: isize::MAX,
        last: None,
    }
}

/// jsdiff's `buildValues`: the component chain, oldest first, as runs.
fn build(arena: &[Component], mut last: Option<u32>) -> Vec<Change> {
    let mut out = Vec::new();
    while let Some(i) = last {
        let c = arena[i as usize];
        out.push(match c.kind {
            0 => Change::Equal(c.count as usize),
            1 => Change::Added(c.count as usize),
            _ => Change::Removed(c.count as usize),
        });
        last = c.prev;
    }
    out.reverse();
    out
}

/// A linear-space alignment for inputs too different for the jsdiff search: `similar`'s Myers,
/// with removals before additions inside each change, as jsdiff lists them.
fn similar_fallback(old: &[u32], new: &[u32]) -> Vec<Change> {
    use similar::{capture_diff_slices, Algorithm, DiffOp};
    let mut out: Vec<Change> = Vec::new();
    let mut push = |c: Change| {
        let merged = match (out.last_mut(), c) {
            (Some(Change::Equal(a)), Change::Equal(b))
            | (Some(Change::Removed(a)), Change::Removed(b))
            | (Some(Change::Added(a)), Change::Added(b)) => {
                *a += b;
                true
            }
            _ => false,
        };
        if !merged && !matches!(c, Change::Equal(0) | Change::Removed(0) | Change::Added(0)) {
            out.push(c);
        }
    };
    for op in capture_diff_slices(Algorithm::Myers, old, new) {
        match op {
            DiffOp::Equal { len, .. } => push(Change::Equal(len)),
            DiffOp::Delete { old_len, .. } => push(Change::Removed(old_len)),
            DiffOp::Insert { new_len, .. } => push(Change::Added(new_len)),
            DiffOp::Replace {
                old_len, new_len, ..
            } => {
                push(Change::Removed(old_len));
                push(Change::Added(new_len));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn patch(a: &str, b: &str) -> String {
        two_files_patch("f", "f", a, b, 3)
    }

    #[test]
    fn single_change_with_context() {
        let a = "1\n2\n3\n4\n5\n6\n7\n8\n";
        let b = "1\n2\n3\n4x\n5\n6\n7\n8\n";
        assert_eq!(
            patch(a, b),
            "Index: f\n===================================================================\n--- f\n+++ f\n@@ -1,7 +1,7 @@\n 1\n 2\n 3\n-4\n+4x\n 5\n 6\n 7\n"
        );
    }

    #[test]
    fn empty_sides_and_missing_newlines() {
        assert_eq!(
            patch("a", ""),
            "Index: f\n===================================================================\n--- f\n+++ f\n@@ -1,1 +0,0 @@\n-a\n\\ No newline at end of file\n"
        );
        assert_eq!(
            patch("", "a\n"),
            "Index: f\n===================================================================\n--- f\n+++ f\n@@ -0,0 +1,1 @@\n+a\n"
        );
        assert_eq!(
            patch("a", "a\n"),
            "Index: f\n===================================================================\n--- f\n+++ f\n@@ -1,1 +1,1 @@\n-a\n\\ No newline at end of file\n+a\n"
        );
    }

    #[test]
    fn different_names_have_no_index_line() {
        let p = two_files_patch("a.txt", "b.txt", "x\n", "y\n", 3);
        assert!(p.starts_with("===="), "{p}");
        assert!(p.contains("--- a.txt\n+++ b.txt\n"));
    }

    #[test]
    fn equal_text_has_headers_only() {
        assert_eq!(
            patch("a\n", "a\n"),
            "Index: f\n===================================================================\n--- f\n+++ f\n"
        );
    }

    #[test]
    fn far_apart_changes_make_two_hunks() {
        let a: String = (1..=20).map(|i| format!("{i}\n")).collect();
        let b = a
            .replacen("2\n", "two\n", 1)
            .replacen("18\n", "eighteen\n", 1);
        let p = patch(&a, &b);
        assert_eq!(p.matches("@@ -").count(), 2, "{p}");
        assert!(p.contains("@@ -1,5 +1,5 @@"), "{p}");
        assert!(p.contains("@@ -15,6 +15,6 @@"), "{p}");
    }

    #[test]
    fn disjoint_inputs_are_all_removals_then_all_additions() {
        let mut rng = crate::testutil::XorShift::new(99);
        for _ in 0..200 {
            let (n, m) = (rng.below(30), rng.below(30));
            let a: Vec<u32> = (0..n).map(|_| rng.below(5) as u32).collect();
            let b: Vec<u32> = (0..m).map(|_| 5 + rng.below(5) as u32).collect();
            let want: Vec<Change> = [Change::Removed(n), Change::Added(m)]
                .into_iter()
                .filter(|c| !matches!(c, Change::Removed(0) | Change::Added(0)))
                .collect();
            assert_eq!(jsdiff_myers(&a, &b).unwrap(), want, "{a:?} {b:?}");
        }
        let old = ["a\n", "b\n"];
        let new = ["x\n"];
        assert_eq!(
            diff_lines(&old, &new),
            [Change::Removed(2), Change::Added(1)]
        );
    }

    #[test]
    fn fallback_agrees_on_counts() {
        let a: Vec<u32> = (0..50).map(|i| i % 7).collect();
        let b: Vec<u32> = (0..60).map(|i| i % 5).collect();
        let count = |cs: &[Change]| {
            cs.iter().fold((0, 0), |(o, n), c| match *c {
                Change::Equal(k) => (o + k, n + k),
                Change::Removed(k) => (o + k, n),
                Change::Added(k) => (o, n + k),
            })
        };
        assert_eq!(count(&similar_fallback(&a, &b)), (50, 60));
        assert_eq!(count(&jsdiff_myers(&a, &b).unwrap()), (50, 60));
    }
}
