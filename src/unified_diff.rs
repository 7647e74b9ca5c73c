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
//!
//! Cost follows the change, not the file: the common prefix and suffix are found by byte
//! comparison (cut back to line boundaries), the search starts after the prefix as jsdiff's
//! first snake would, and a snake that reaches the common suffix on its own diagonal jumps to
//! the end instead of comparing it line by line. Lines are tokenized and interned only where
//! the search or the hunks look, so a one-line change in a 15 MB file costs a scan of it, not
//! a hash of every line. Nothing is assumed about where jsdiff would align the suffix: the
//! search is the same, only cheaper, so the output is the same (tested against the plain
//! search on random pairs).

use rustc_hash::FxHashMap;

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
    render(old_name, new_name, &patch_hunks(old, new, context))
}

/// A `---` / `+++` file name as jsdiff 9 writes it (`quoteFileNameIfNeeded`, after git and
/// GNU diff): as it is, unless it holds a control character, a non-ASCII one, `"` or `\`;
/// then C-quoted, its UTF-8 bytes outside printable ASCII as 3-digit octal escapes. The
/// `Index:` line keeps the name as it is.
fn push_file_name(out: &mut String, name: &str) {
    let plain = |c: char| (' '..='~').contains(&c) && c != '"' && c != '\\';
    if name.chars().all(plain) {
        out.push_str(name);
        return;
    }
    out.push('"');
    for &b in name.as_bytes() {
        match b {
            0x07 => out.push_str("\\a"),
            0x08 => out.push_str("\\b"),
            b'\t' => out.push_str("\\t"),
            b'\n' => out.push_str("\\n"),
            0x0b => out.push_str("\\v"),
            0x0c => out.push_str("\\f"),
            b'\r' => out.push_str("\\r"),
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            0x20..=0x7e => out.push(b as char),
            _ => out.push_str(&format!("\\{b:03o}")),
        }
    }
    out.push('"');
}

/// The header and hunks as jsdiff prints them.
fn render(old_name: &str, new_name: &str, hunks: &[Hunk<'_>]) -> String {
    let body: usize = hunks
        .iter()
        .flat_map(|h| h.lines.iter())
        .map(|(_, l)| l.len() + 2)
        .sum();
    let mut out = String::with_capacity(body + 2 * old_name.len() + 128);
    if old_name == new_name {
        out.push_str("Index: ");
        out.push_str(old_name);
        out.push('\n');
    }
    out.push_str(UNDERLINE);
    out.push('\n');
    out.push_str("--- ");
    push_file_name(&mut out, old_name);
    out.push('\n');
    out.push_str("+++ ");
    push_file_name(&mut out, new_name);
    out.push('\n');
    for hunk in hunks {
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
        for (prefix, line) in &hunk.lines {
            out.push(*prefix);
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

/// Lines in `text` as [`tokenize`] cuts them, counted with SIMD byte counts.
fn count_lines(text: &[u8]) -> usize {
    memchr::memchr_iter(b'\n', text).count() + usize::from(text.last().is_some_and(|&b| b != b'\n'))
}

/// What both texts share at their ends, in whole lines: `prefix` lines (ending at byte
/// `prefix_bytes`) and the last `suffix_bytes` bytes, which start a line in both texts and do
/// not overlap the prefix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Common {
    prefix: usize,
    prefix_bytes: usize,
    suffix_bytes: usize,
}

fn common_ends(old: &[u8], new: &[u8]) -> Common {
    let shared = old.len().min(new.len());
    let first_diff = mismatch(old, new, shared, false);
    let prefix_bytes = memchr::memrchr(b'\n', &old[..first_diff]).map_or(0, |i| i + 1);
    let prefix = memchr::memchr_iter(b'\n', &old[..prefix_bytes]).count();
    let limit = shared - prefix_bytes;
    let tail = mismatch(old, new, limit, true);
    // The longest common tail that starts a line on both sides: all of it when both sides have
    // a line break (or the prefix's end) just before it, else from its first line break on.
    let starts_line = |text: &[u8], at: usize| at == prefix_bytes || text[at - 1] == b'\n';
    let suffix_bytes = if starts_line(old, old.len() - tail) && starts_line(new, new.len() - tail) {
        tail
    } else {
        let from = old.len() - tail;
        memchr::memchr(b'\n', &old[from..]).map_or(0, |i| tail - i - 1)
    };
    Common {
        prefix,
        prefix_bytes,
        suffix_bytes,
    }
}

/// How many bytes `old` and `new` share at their start (or, `from_end`, at their end), at most
/// `limit`: compared a block at a time (`memcmp`), then byte by byte in the first block that
/// differs.
fn mismatch(old: &[u8], new: &[u8], limit: usize, from_end: bool) -> usize {
    const BLOCK: usize = 4096;
    fn at(text: &[u8], from: usize, len: usize, from_end: bool) -> &[u8] {
        if from_end {
            &text[text.len() - from - len..text.len() - from]
        } else {
            &text[from..from + len]
        }
    }
    let mut done = 0;
    while done < limit {
        let len = BLOCK.min(limit - done);
        let (a, b) = (at(old, done, len, from_end), at(new, done, len, from_end));
        if a == b {
            done += len;
            continue;
        }
        let pairs = a.iter().zip(b);
        let same = if from_end {
            pairs.rev().take_while(|(x, y)| x == y).count()
        } else {
            pairs.take_while(|(x, y)| x == y).count()
        };
        return done + same;
    }
    limit
}

struct Hunk<'a> {
    old_start: usize,
    old_lines: usize,
    new_start: usize,
    new_lines: usize,
    lines: Vec<(char, &'a str)>,
}

/// The hunks of the line diff of `old` and `new`: the plain search when the texts share no
/// line at either end, else the search with the shared ends skipped ([`trimmed_hunks`]).
fn patch_hunks<'a>(old: &'a str, new: &'a str, context: usize) -> Vec<Hunk<'a>> {
    let common = common_ends(old.as_bytes(), new.as_bytes());
    if common.prefix == 0 && common.suffix_bytes == 0 {
        return plain_hunks(old, new, context);
    }
    trimmed_hunks(old, new, common, context)
}

/// Tokenizes and interns every line, then searches: the oracle the trimmed search is tested
/// against, and the path for texts that share no line at either end.
fn plain_hunks<'a>(old: &'a str, new: &'a str, context: usize) -> Vec<Hunk<'a>> {
    let old_lines = tokenize(old);
    let new_lines = tokenize(new);
    let changes = diff_lines(&old_lines, &new_lines);
    hunks(
        &changes,
        Lines {
            lines: &old_lines,
            base: 0,
        },
        Lines {
            lines: &new_lines,
            base: 0,
        },
        context,
    )
}

/// Line ids shared by both sides of one diff.
#[derive(Default)]
struct Interner<'a> {
    ids: FxHashMap<&'a str, u32>,
}

impl<'a> Interner<'a> {
    fn id(&mut self, line: &'a str) -> u32 {
        let next = self.ids.len() as u32;
        *self.ids.entry(line).or_insert(next)
    }
}

/// One side's lines from line `base` on, tokenized and interned only as far as asked.
struct LazyLines<'a> {
    text: &'a str,
    base: usize,
    lines: Vec<&'a str>,
    ids: Vec<u32>,
    /// Where line `base + lines.len()` starts.
    next: usize,
    total: usize,
}

impl<'a> LazyLines<'a> {
    /// Makes lines up to `i` (exclusive of `total`) available.
    fn fill_to(&mut self, i: usize, interner: &mut Interner<'a>) {
        let want = (i + 1).min(self.total);
        while self.base + self.lines.len() < want {
            let rest = &self.text[self.next..];
            let end = memchr::memchr(b'\n', rest.as_bytes()).map_or(rest.len(), |k| k + 1);
            let line = &rest[..end];
            self.next += end;
            self.lines.push(line);
            self.ids.push(interner.id(line));
        }
    }

    fn id(&mut self, i: usize, interner: &mut Interner<'a>) -> u32 {
        self.fill_to(i, interner);
        self.ids[i - self.base]
    }

    fn view(&self) -> Lines<'_, 'a> {
        Lines {
            lines: &self.lines,
            base: self.base,
        }
    }
}

/// The search and hunks with the shared ends skipped. The search starts after the `prefix`
/// lines (where jsdiff's first snake ends: line `prefix` differs, or a side has none), and a
/// snake on the diagonal of the end (`old_len - new_len`) that reaches the shared suffix jumps
/// to the end (every later pair of lines on it is equal). Lines are tokenized from a few lines
/// of context before the prefix's end, and only as far as the search and the hunks read them.
fn trimmed_hunks<'a>(old: &'a str, new: &'a str, common: Common, context: usize) -> Vec<Hunk<'a>> {
    let Common {
        prefix,
        prefix_bytes,
        suffix_bytes,
    } = common;
    // Start `context` lines before the prefix's end: the first hunk's leading context.
    let back = prefix.min(context);
    let mut start = prefix_bytes;
    for _ in 0..back {
        start = memchr::memrchr(b'\n', &old.as_bytes()[..start - 1]).map_or(0, |i| i + 1);
    }
    let base = prefix - back;
    let suffix_lines = count_lines(&old.as_bytes()[old.len() - suffix_bytes..]);
    let side = |text: &'a str| {
        let middle = &text.as_bytes()[start..text.len() - suffix_bytes];
        LazyLines {
            text,
            base,
            lines: Vec::new(),
            ids: Vec::new(),
            next: start,
            total: base + count_lines(middle) + suffix_lines,
        }
    };
    let (mut a, mut b) = (side(old), side(new));
    let mut interner = Interner::default();
    let (old_len, new_len) = (a.total, b.total);
    let suffix_from = (suffix_lines > 0).then_some(old_len - suffix_lines);
    let found = jsdiff_myers(old_len, new_len, prefix, suffix_from, |i, j| {
        a.id(i, &mut interner) == b.id(j, &mut interner)
    });
    let changes = match found {
        Some(changes) => changes,
        None => {
            // Too different for the jsdiff search: `similar` on the lines between the ends.
            let (old_mid, new_mid) = (old_len - suffix_lines, new_len - suffix_lines);
            if old_mid > prefix {
                a.fill_to(old_mid - 1, &mut interner);
            }
            if new_mid > prefix {
                b.fill_to(new_mid - 1, &mut interner);
            }
            let mid = similar_fallback(
                &a.ids[prefix - base..old_mid - base],
                &b.ids[prefix - base..new_mid - base],
            );
            let mut all = vec![Change::Equal(prefix)];
            all.extend(mid);
            all.push(Change::Equal(suffix_lines));
            merge_runs(all)
        }
    };
    // The hunks read each change and up to `context` lines after the last one.
    let (mut o, mut n, mut old_end, mut new_end) = (0, 0, 0, 0);
    for c in &changes {
        match *c {
            Change::Equal(k) => {
                o += k;
                n += k;
            }
            Change::Removed(k) => {
                o += k;
                (old_end, new_end) = (o, n);
            }
            Change::Added(k) => {
                n += k;
                (old_end, new_end) = (o, n);
            }
        }
    }
    if old_end + new_end > 0 {
        a.fill_to((old_end + context).saturating_sub(1), &mut interner);
        b.fill_to((new_end + context).saturating_sub(1), &mut interner);
    }
    hunks(&changes, a.view(), b.view(), context)
}

/// Runs with neighbours of one kind merged and empty runs dropped.
fn merge_runs(runs: Vec<Change>) -> Vec<Change> {
    let mut out: Vec<Change> = Vec::with_capacity(runs.len());
    for c in runs {
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
    }
    out
}

/// One side's lines from line `base` on.
#[derive(Clone, Copy)]
struct Lines<'s, 'a> {
    lines: &'s [&'a str],
    base: usize,
}

impl<'a> Lines<'_, 'a> {
    fn range(&self, from: usize, to: usize) -> impl Iterator<Item = &'a str> + '_ {
        self.lines[from - self.base..to - self.base].iter().copied()
    }
}

/// jsdiff's `structuredPatch` hunk builder over the change runs. Each side's lines must cover
/// every line a hunk shows.
fn hunks<'a>(
    changes: &[Change],
    old: Lines<'_, 'a>,
    new: Lines<'_, 'a>,
    context: usize,
) -> Vec<Hunk<'a>> {
    // Each run: its kind and where its lines start on the side they come from.
    let mut runs: Vec<(Change, usize)> = Vec::with_capacity(changes.len() + 1);
    let (mut o, mut n) = (0usize, 0usize);
    for &c in changes {
        match c {
            Change::Equal(k) => {
                runs.push((c, n));
                o += k;
                n += k;
            }
            Change::Removed(k) => {
                runs.push((c, o));
                o += k;
            }
            Change::Added(k) => {
                runs.push((c, n));
                n += k;
            }
        }
    }
    // jsdiff appends an empty kept run to flush the last hunk.
    runs.push((Change::Equal(0), n));
    let run_lines = |(c, at): (Change, usize), from: usize, to: usize| match c {
        Change::Removed(_) => old.range(at + from, at + to),
        Change::Equal(_) | Change::Added(_) => new.range(at + from, at + to),
    };
    let count = |c: Change| match c {
        Change::Equal(k) | Change::Removed(k) | Change::Added(k) => k,
    };
    let total = runs.len();
    let mut out = Vec::new();
    let (mut old_range_start, mut new_range_start) = (0usize, 0usize);
    let mut cur: Vec<(char, &'a str)> = Vec::new();
    let (mut old_line, mut new_line) = (1usize, 1usize);
    for i in 0..total {
        let (change, _) = runs[i];
        let len = count(change);
        match change {
            Change::Added(_) | Change::Removed(_) => {
                if old_range_start == 0 {
                    old_range_start = old_line;
                    new_range_start = new_line;
                    if i > 0 {
                        let prev = runs[i - 1];
                        let prev_len = count(prev.0);
                        let from = prev_len.saturating_sub(context);
                        cur = run_lines(prev, from, prev_len).map(|l| (' ', l)).collect();
                        old_range_start -= cur.len();
                        new_range_start -= cur.len();
                    }
                }
                let added = matches!(change, Change::Added(_));
                let mark = if added { '+' } else { '-' };
                cur.extend(run_lines(runs[i], 0, len).map(|l| (mark, l)));
                if added {
                    new_line += len;
                } else {
                    old_line += len;
                }
            }
            Change::Equal(_) => {
                if old_range_start != 0 {
                    if len <= context * 2 && i + 2 < total {
                        cur.extend(run_lines(runs[i], 0, len).map(|l| (' ', l)));
                    } else {
                        let size = len.min(context);
                        cur.extend(run_lines(runs[i], 0, size).map(|l| (' ', l)));
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
                old_line += len;
                new_line += len;
            }
        }
    }
    out
}

/// The line diff as runs, in jsdiff's order.
pub fn diff_lines<'a>(old: &[&'a str], new: &[&'a str]) -> Vec<Change> {
    let mut ids: FxHashMap<&'a str, u32> = FxHashMap::default();
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
    match jsdiff_myers(a.len(), b.len(), 0, None, |i, j| a[i] == b[j]) {
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

/// The furthest path head found on each diagonal, in a table that grows with the edit length
/// searched so far (not with the inputs' lengths).
struct Diagonals {
    heads: Vec<Option<PathHead>>,
    half: isize,
}

impl Diagonals {
    fn new() -> Diagonals {
        Diagonals {
            heads: vec![None; 129],
            half: 64,
        }
    }

    fn get(&self, d: isize) -> Option<PathHead> {
        usize::try_from(d + self.half)
            .ok()
            .and_then(|i| self.heads.get(i).copied().flatten())
    }

    fn set(&mut self, d: isize, head: Option<PathHead>) {
        if d.abs() >= self.half {
            if head.is_none() {
                return;
            }
            let half = (self.half * 2).max(d.abs() + 1);
            let mut heads = vec![None; (2 * half + 1) as usize];
            let shift = (half - self.half) as usize;
            heads[shift..shift + self.heads.len()].copy_from_slice(&self.heads);
            self.heads = heads;
            self.half = half;
        }
        self.heads[(d + self.half) as usize] = head;
    }
}

/// A port of jsdiff's `Diff.diffWithOptionsObj` (no options) over `old_len` and `new_len`
/// lines, `same(i, j)` telling whether old line `i` equals new line `j`. `None` when the
/// component arena outgrows [`MAX_COMPONENTS`].
///
/// Two shortcuts leave the answer as it is: the first `prefix` lines are known equal (jsdiff's
/// first snake would run through them), and from old line `suffix_from` on, the lines on the
/// diagonal of the end are known equal, so a snake there jumps to the end.
fn jsdiff_myers(
    old_len: usize,
    new_len: usize,
    prefix: usize,
    suffix_from: Option<usize>,
    mut same: impl FnMut(usize, usize) -> bool,
) -> Option<Vec<Change>> {
    let (old_len, new_len) = (old_len as isize, new_len as isize);
    let max_edit = old_len + new_len;
    let end_diagonal = old_len - new_len;
    let suffix_from = suffix_from.map(|s| s as isize);
    let mut arena: Vec<Component> = Vec::new();
    let mut best = Diagonals::new();

    // jsdiff's `extractCommon`: follows the snake from `path`, whose first `already` lines
    // of it are known equal; returns the new position.
    let mut extract_common = |arena: &mut Vec<Component>,
                              path: &mut PathHead,
                              diagonal: isize,
                              already: usize|
     -> isize {
        let mut old_pos = path.old_pos;
        let mut new_pos = old_pos - diagonal;
        let mut common = already;
        loop {
            if diagonal == end_diagonal && suffix_from.is_some_and(|s| old_pos + 1 >= s) {
                common += (old_len - 1 - old_pos) as usize;
                old_pos = old_len - 1;
                new_pos = new_len - 1;
                break;
            }
            if new_pos + 1 < new_len
                && old_pos + 1 < old_len
                && same((old_pos + 1) as usize, (new_pos + 1) as usize)
            {
                new_pos += 1;
                old_pos += 1;
                common += 1;
            } else {
                break;
            }
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
    };

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
        old_pos: prefix as isize - 1,
        last: None,
    };
    let new_pos = extract_common(&mut arena, &mut first, 0, prefix);
    if first.old_pos + 1 >= old_len && new_pos + 1 >= new_len {
        return Some(build(&arena, first.last));
    }
    best.set(0, Some(first));
    let (mut min_diag, mut max_diag) = (isize::MIN, isize::MAX);
    let mut edit_len: isize = 1;
    while edit_len <= max_edit {
        let mut diagonal = min_diag.max(-edit_len);
        let top = max_diag.min(edit_len);
        while diagonal <= top {
            let remove_path = best.get(diagonal - 1);
            let add_path = best.get(diagonal + 1);
            if remove_path.is_some() {
                best.set(diagonal - 1, None);
            }
            let can_add = add_path.is_some_and(|p| {
                let add_new_pos = p.old_pos - diagonal;
                0 <= add_new_pos && add_new_pos < new_len
            });
            let can_remove = remove_path.is_some_and(|p| p.old_pos + 1 < old_len);
            if !can_add && !can_remove {
                best.set(diagonal, None);
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
            let new_pos = extract_common(&mut arena, &mut base, diagonal, 0);
            if base.old_pos + 1 >= old_len && new_pos + 1 >= new_len {
                return Some(build(&arena, base.last));
            }
            best.set(diagonal, Some(base));
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
    let mut runs = Vec::new();
    for op in capture_diff_slices(Algorithm::Myers, old, new) {
        match op {
            DiffOp::Equal { len, .. } => runs.push(Change::Equal(len)),
            DiffOp::Delete { old_len, .. } => runs.push(Change::Removed(old_len)),
            DiffOp::Insert { new_len, .. } => runs.push(Change::Added(new_len)),
            DiffOp::Replace {
                old_len, new_len, ..
            } => {
                runs.push(Change::Removed(old_len));
                runs.push(Change::Added(new_len));
            }
        }
    }
    merge_runs(runs)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// jsdiff 9's `quoteFileNameIfNeeded` (its outputs, checked with diff 9.0.0).
    #[test]
    fn file_names_are_quoted_as_jsdiff_9_quotes_them() {
        let quoted = |name: &str| {
            let mut out = String::new();
            push_file_name(&mut out, name);
            out
        };
        assert_eq!(quoted("src/a b.txt"), "src/a b.txt");
        assert_eq!(quoted("caf\u{e9}.txt"), r#""caf\303\251.txt""#);
        assert_eq!(quoted("q\"x"), r#""q\"x""#);
        assert_eq!(quoted("b\\s"), r#""b\\s""#);
        assert_eq!(quoted("t\tx\u{7}\u{7f}"), r#""t\tx\a\177""#);
        let p = two_files_patch("\u{e9}", "\u{e9}", "a\n", "b\n", 3);
        assert!(p.starts_with("Index: \u{e9}\n"), "{p}");
        assert!(
            p.contains("\n--- \"\\303\\251\"\n+++ \"\\303\\251\"\n"),
            "{p}"
        );
    }

    fn patch(a: &str, b: &str) -> String {
        two_files_patch("f", "f", a, b, 3)
    }

    fn myers_ids(a: &[u32], b: &[u32]) -> Option<Vec<Change>> {
        jsdiff_myers(a.len(), b.len(), 0, None, |i, j| a[i] == b[j])
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
            assert_eq!(myers_ids(&a, &b).unwrap(), want, "{a:?} {b:?}");
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
        assert_eq!(count(&myers_ids(&a, &b).unwrap()), (50, 60));
    }

    fn plain_patch(a: &str, b: &str) -> String {
        render("f", "f", &plain_hunks(a, b, 3))
    }

    /// Random pairs with shared ends (and repeated lines, so that the suffix's lines also occur
    /// in the changed middle): the trimmed search gives exactly the plain search's patch.
    #[test]
    fn trimmed_search_equals_the_plain_one_on_random_pairs() {
        let mut rng = crate::testutil::XorShift::new(0x9E37_79B9_7F4A_7C15);
        let pieces = [
            "a\n", "b\n", "a\n", "\n", "c\n", "x", "a", "}\n", "\r\n", "é\n",
        ];
        for round in 0..6000 {
            let gen = |rng: &mut crate::testutil::XorShift, n: usize| -> String {
                let n = rng.below(n);
                (0..n).map(|_| pieces[rng.below(pieces.len())]).collect()
            };
            let (head, tail) = (gen(&mut rng, 12), gen(&mut rng, 12));
            let (mid_a, mid_b) = (gen(&mut rng, 8), gen(&mut rng, 8));
            let a = format!("{head}{mid_a}{tail}");
            let b = if round % 5 == 0 {
                // Edits of single characters, which may split a line's shared bytes.
                let mut b = a.clone().into_bytes();
                for _ in 0..1 + rng.below(3) {
                    if !b.is_empty() {
                        let at = rng.below(b.len());
                        b[at] = b"ab\nx"[rng.below(4)];
                    }
                }
                match String::from_utf8(b) {
                    Ok(b) => b,
                    Err(_) => continue,
                }
            } else {
                format!("{head}{mid_b}{tail}")
            };
            assert_eq!(patch(&a, &b), plain_patch(&a, &b), "{a:?} -> {b:?}");
            assert_eq!(patch(&b, &a), plain_patch(&b, &a), "{b:?} -> {a:?}");
        }
    }

    #[test]
    fn shared_bytes_counted_across_blocks() {
        let mut rng = crate::testutil::XorShift::new(5);
        for _ in 0..200 {
            let len = rng.below(20_000);
            let a: Vec<u8> = (0..len).map(|_| b"ab"[rng.below(2)]).collect();
            let mut b = a.clone();
            if len > 0 && rng.below(4) > 0 {
                let at = rng.below(len);
                b[at] ^= 1;
            }
            let limit = rng.below(len + 1);
            let naive = |rev: bool| {
                let pairs: Vec<(u8, u8)> = if rev {
                    a.iter()
                        .rev()
                        .zip(b.iter().rev())
                        .map(|(x, y)| (*x, *y))
                        .collect()
                } else {
                    a.iter().zip(&b).map(|(x, y)| (*x, *y)).collect()
                };
                pairs.iter().take(limit).take_while(|(x, y)| x == y).count()
            };
            assert_eq!(mismatch(&a, &b, limit, false), naive(false));
            assert_eq!(mismatch(&a, &b, limit, true), naive(true));
        }
    }

    #[test]
    fn shared_ends_are_whole_lines_on_both_sides() {
        let c = common_ends(b"a\nb\nc\n", b"a\nB\nc\n");
        assert_eq!((c.prefix, c.prefix_bytes, c.suffix_bytes), (1, 2, 2));
        // The shared tail "b" is not a line of its own on the new side.
        let c = common_ends(b"a\nb", b"a\nxb");
        assert_eq!((c.prefix, c.suffix_bytes), (1, 0));
        // The suffix never overlaps the prefix.
        let c = common_ends(b"a\na\n", b"a\na\na\n");
        assert_eq!((c.prefix, c.prefix_bytes, c.suffix_bytes), (2, 4, 0));
        let c = common_ends(b"x\n", b"y\n");
        assert_eq!((c.prefix, c.suffix_bytes), (0, 0));
        let c = common_ends(b"same", b"same");
        assert_eq!((c.prefix, c.prefix_bytes, c.suffix_bytes), (0, 0, 4));
    }

    /// A change near either end of a big text: the patch equals the plain one, and the lines
    /// tokenized stay few (the search reads the change, the hunks their context).
    #[test]
    fn a_small_change_in_a_big_text() {
        let lines: Vec<String> = (0..20_000).map(|i| format!("line {}\n", i % 50)).collect();
        let a: String = lines.concat();
        for at in [3, 10_000, 19_998] {
            let mut changed = lines.clone();
            changed[at] = "changed\n".into();
            let b = changed.concat();
            assert_eq!(patch(&a, &b), plain_patch(&a, &b));
            let mut removed = lines.clone();
            removed.remove(at);
            let b = removed.concat();
            assert_eq!(patch(&a, &b), plain_patch(&a, &b));
        }
    }
}
