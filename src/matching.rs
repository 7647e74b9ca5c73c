//! Finding an `old_string` in a file: the exact match, the tolerant cascade, and the
//! diagnostics a failed search returns.
//!
//! Everything here works on text whose terminators are all `\n` (see
//! [`crate::text::NewlineView`]); offsets are byte offsets into that text. The search order:
//!
//! 1. **Exact**: every occurrence; it must be unique unless `replace_all` is set.
//! 2. The **whitespace-tolerant cascade**, strictest first, only for a single replacement:
//!    - *indentation-flexible*: the same lines shifted by a uniform indentation;
//!    - *per-line trimmed*: the same lines, ignoring leading and trailing whitespace on each;
//!    - *whitespace-collapsed*: the same text with every whitespace run seen as one space;
//!    - *trimmed substring*: `old_string` without its surrounding whitespace.
//!
//!    The matched region is replaced by `new_string` verbatim, never re-indented or trimmed:
//!    the line tiers match whole lines (leading indentation included); the substring tiers
//!    match from the first to the last non-whitespace character of `old_string`'s text.
//! 3. **Unicode punctuation**: typographic quotes, dashes and odd spaces seen as their ASCII
//!    forms ([`crate::punctuation::fold_punctuation`], shared with apply_patch); the file's own
//!    characters are kept wherever the edit does not change them.
//!
//! A tolerant candidate is discarded when it spans at least twice the lines of `old_string` or
//! 500+ characters more than it. A tier applies only when exactly one candidate remains; two or
//! more is `ambiguous_match` (never a guess); none passes to the next tier. When nothing
//! matches, [`find`] returns `no_match`: [`NO_MATCH`], then at most one diagnosis — read_file
//! line-number prefixes left in `old_string`, or the same text present with different
//! whitespace (with line numbers).

use std::borrow::Cow;

use memchr::memmem;

use crate::error::{ErrorCode, ToolError, ToolResult};
use crate::punctuation::fold_punctuation;

/// How a match was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tier {
    Exact,
    IndentationFlexible,
    LineTrimmed,
    WhitespaceCollapsed,
    TrimmedSubstring,
    UnicodePunctuation,
}

/// One region to replace: `start..end` in the searched text, and what goes there (`\n`s).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Region {
    pub start: usize,
    pub end: usize,
    pub replacement: String,
}

/// A successful search.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    pub tier: Tier,
    /// Ascending and disjoint.
    pub regions: Vec<Region>,
}

impl Found {
    /// Whether a tolerant tier (not the exact search) found the region.
    pub fn tolerant(&self) -> bool {
        self.tier != Tier::Exact
    }
}

/// The first sentence of every `no_match` message; a diagnosis may follow it.
pub const NO_MATCH: &str = "old_string not found. It must match the file byte-for-byte (whitespace, indentation, and line breaks included) and must NOT include the line-number prefixes shown by read_file. Re-read the exact region and copy the text verbatim.";

/// Finds `old` in `text` and says what replaces it. `text`, `old` and `new` use `\n` only;
/// `display` names the file in messages. Errors: `no_match` (with a diagnosis when one
/// applies) and `ambiguous_match` (with `count` and `lines` fields).
pub fn find(
    text: &str,
    old: &str,
    new: &str,
    replace_all: bool,
    display: &str,
) -> ToolResult<Found> {
    if old.is_empty() {
        return Err(ToolError::invalid_input(
            "old_string is empty: give the exact text to replace (use write_file to write a whole file)",
        )
        .with("field", "old_string"));
    }
    let exact = exact_matches(text, old);
    if exact.len() == 1 || (replace_all && !exact.is_empty()) {
        let regions = exact
            .into_iter()
            .map(|start| Region {
                start,
                end: start + old.len(),
                replacement: new.to_string(),
            })
            .collect();
        return Ok(Found {
            tier: Tier::Exact,
            regions,
        });
    }
    let lines = LineIndex::new(text);
    if exact.len() > 1 {
        let mut at: Vec<usize> = exact.iter().map(|&s| lines.line_of(s)).collect();
        at.dedup();
        return Err(ambiguous(
            format!(
                "old_string matches {} places in {display} ({} {}). Include more surrounding lines in old_string so it matches exactly one place, or set replace_all: true to replace every occurrence.",
                exact.len(),
                if at.len() == 1 { "all on line" } else { "lines" },
                list_lines(&at)
            ),
            display,
            &at,
        )
        .with("count", exact.len()));
    }
    // replace_all replaces exact occurrences only: no tolerant tier runs for it, but the
    // diagnosis still says where the text is with other whitespace.
    let outcome = if replace_all {
        Cascade::None {
            discarded: Vec::new(),
        }
    } else {
        cascade(text, &lines, old, new)
    };
    match outcome {
        Cascade::Found(tier, region) => Ok(Found {
            tier,
            regions: vec![region],
        }),
        Cascade::Ambiguous(regions) => {
            let firsts: Vec<usize> = regions.iter().map(|r| lines.line_of(r.start)).collect();
            Err(ambiguous(
                format!(
                    "old_string was not found exactly; after whitespace-tolerant matching it matched {} regions (at lines {}); it must be unique. Add surrounding lines, or correct the whitespace so it matches one region exactly.",
                    firsts.len(),
                    list_lines(&firsts)
                ),
                display,
                &firsts,
            ))
        }
        Cascade::None { discarded } => {
            Err(no_match(diagnose(text, &lines, old, &discarded), display))
        }
    }
}

/// How many line numbers a message lists before saying "and N more".
const MAX_LISTED: usize = 20;
/// How many line numbers the `lines` field of `ambiguous_match` carries (`count` has the total).
const MAX_LINES_FIELD: usize = 100;

fn no_match(message: String, display: &str) -> ToolError {
    ToolError::new(ErrorCode::NoMatch, message).with("path", display)
}

/// `ambiguous_match` with `count` and the first [`MAX_LINES_FIELD`] line numbers in `lines`.
fn ambiguous(message: String, display: &str, lines: &[usize]) -> ToolError {
    ToolError::new(ErrorCode::AmbiguousMatch, message)
        .with("path", display)
        .with("count", lines.len())
        .with("lines", lines[..lines.len().min(MAX_LINES_FIELD)].to_vec())
}

fn list_lines(lines: &[usize]) -> String {
    let shown: Vec<String> = lines
        .iter()
        .take(MAX_LISTED)
        .map(usize::to_string)
        .collect();
    let more = lines.len().saturating_sub(MAX_LISTED);
    if more > 0 {
        format!("{} and {more} more", shown.join(", "))
    } else {
        shown.join(", ")
    }
}

/// Start offsets of the non-overlapping exact occurrences of `old`.
pub fn exact_matches(text: &str, old: &str) -> Vec<usize> {
    if old.is_empty() {
        return Vec::new();
    }
    memmem::find_iter(text.as_bytes(), old.as_bytes()).collect()
}

// ---------------------------------------------------------------------------------------------
// Lines

/// Where each line of a text starts (a text ending in `\n` has no empty last line).
pub struct LineIndex<'a> {
    text: &'a str,
    starts: Vec<usize>,
}

impl<'a> LineIndex<'a> {
    pub fn new(text: &'a str) -> Self {
        let mut starts = vec![0];
        starts.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1));
        if starts.len() > 1 && starts.last() == Some(&text.len()) {
            starts.pop();
        }
        if text.is_empty() {
            starts.clear();
        }
        LineIndex { text, starts }
    }

    pub fn len(&self) -> usize {
        self.starts.len()
    }

    pub fn is_empty(&self) -> bool {
        self.starts.is_empty()
    }

    /// Line `i` (0-based) without its `\n`.
    pub fn line(&self, i: usize) -> &'a str {
        &self.text[self.starts[i]..self.end_of(i)]
    }

    /// The end of line `i`'s content.
    fn end_of(&self, i: usize) -> usize {
        match self.starts.get(i + 1) {
            Some(&next) => next - 1,
            None => {
                let end = self.text.len();
                end - usize::from(self.text.ends_with('\n'))
            }
        }
    }

    /// The start of the line after `i` (the text's end for the last line).
    fn after(&self, i: usize) -> usize {
        self.starts.get(i + 1).copied().unwrap_or(self.text.len())
    }

    /// The 1-based line holding offset `at`.
    pub fn line_of(&self, at: usize) -> usize {
        self.starts.partition_point(|&s| s <= at).max(1)
    }

    /// The 1-based first and last lines of `start..end` (a region ending just after a `\n`
    /// ends on that line).
    pub fn span(&self, start: usize, end: usize) -> (usize, usize) {
        let first = self.line_of(start);
        let last_byte = if end > start { end - 1 } else { start };
        (first, self.line_of(last_byte).max(first))
    }
}

/// The lines of `s` as a model writes them: a final `\n` ends the last line, it does not open
/// an empty one. Returns the lines and whether `s` ended with `\n`.
fn model_lines(s: &str) -> (Vec<&str>, bool) {
    let trailing = s.ends_with('\n');
    let body = if trailing { &s[..s.len() - 1] } else { s };
    (body.split('\n').collect(), trailing)
}

/// The number of lines a region or string spans (a final `\n` does not start another).
fn line_count(s: &str) -> usize {
    model_lines(s).0.len()
}

// ---------------------------------------------------------------------------------------------
// The cascade

enum Cascade {
    Found(Tier, Region),
    Ambiguous(Vec<Region>),
    /// Nothing usable; `discarded` holds the first lines of the disproportionate candidates.
    None {
        discarded: Vec<usize>,
    },
}

fn cascade(text: &str, lines: &LineIndex, old: &str, new: &str) -> Cascade {
    let mut discarded = Vec::new();
    let old_lines = line_count(old);
    let old_chars = old.chars().count();
    let keep = |regions: Vec<Region>, discarded: &mut Vec<usize>| -> Vec<Region> {
        regions
            .into_iter()
            .filter(|r| {
                let span = &text[r.start..r.end];
                let too_big =
                    line_count(span) >= 2 * old_lines || span.chars().count() >= old_chars + 500;
                if too_big {
                    discarded.push(lines.line_of(r.start));
                }
                !too_big
            })
            .collect()
    };
    let windows = trimmed_windows(lines, old);
    let tiers: [(Tier, &dyn Fn() -> Vec<Region>); 5] = [
        (Tier::IndentationFlexible, &|| {
            indentation_flexible(lines, old, new, &windows)
        }),
        (Tier::LineTrimmed, &|| {
            line_trimmed(lines, old, new, &windows)
        }),
        (Tier::WhitespaceCollapsed, &|| {
            whitespace_collapsed(text, old, new)
        }),
        (Tier::TrimmedSubstring, &|| {
            trimmed_substring(text, old, new)
        }),
        (Tier::UnicodePunctuation, &|| {
            unicode_punctuation(text, old, new)
        }),
    ];
    for (tier, run) in tiers {
        let mut found = keep(run(), &mut discarded);
        match found.len() {
            0 => continue,
            1 => {
                let region = found.remove(0);
                // A collapsed-whitespace hit that is old_string's trimmed text verbatim is
                // described as the stricter trimmed-substring match it is.
                let tier = if tier == Tier::WhitespaceCollapsed
                    && text[region.start..region.end] == *old.trim()
                {
                    Tier::TrimmedSubstring
                } else {
                    tier
                };
                return Cascade::Found(tier, region);
            }
            _ => return Cascade::Ambiguous(found),
        }
    }
    discarded.sort();
    discarded.dedup();
    Cascade::None { discarded }
}

/// The windows (first line index) whose lines equal `old`'s lines after trimming each: the
/// candidates of both line tiers (indentation-flexible ones are a subset).
fn trimmed_windows(lines: &LineIndex, old: &str) -> Vec<usize> {
    let (want, _) = model_lines(old);
    let n = want.len();
    if n > lines.len() {
        return Vec::new();
    }
    let first = want[0].trim();
    (0..=lines.len() - n)
        .filter(|&i| {
            lines.line(i).trim() == first
                && want
                    .iter()
                    .enumerate()
                    .skip(1)
                    .all(|(j, w)| lines.line(i + j).trim() == w.trim())
        })
        .collect()
}

/// The region a line window covers: whole lines, and the last line's `\n` when `old` ends in
/// one.
fn window_region(
    lines: &LineIndex,
    i: usize,
    n: usize,
    trailing: bool,
    replacement: String,
) -> Region {
    let last = i + n - 1;
    Region {
        start: lines.starts[i],
        end: if trailing {
            lines.after(last)
        } else {
            lines.end_of(last)
        },
        replacement,
    }
}

fn is_blank(s: &str) -> bool {
    s.trim().is_empty()
}

fn leading_ws(s: &str) -> &str {
    &s[..s.len() - s.trim_start().len()]
}

/// The longest leading-whitespace prefix shared by the non-blank lines.
fn common_indent<'s>(lines: impl Iterator<Item = &'s str>) -> &'s str {
    let mut common: Option<&str> = None;
    for line in lines.filter(|l| !is_blank(l)) {
        let ws = leading_ws(line);
        common = Some(match common {
            None => ws,
            Some(c) => {
                let shared = c
                    .char_indices()
                    .zip(ws.chars())
                    .find(|((_, a), b)| a != b)
                    .map_or(c.len().min(ws.len()), |((i, _), _)| i);
                &c[..shared]
            }
        });
    }
    common.unwrap_or("")
}

fn indentation_flexible(lines: &LineIndex, old: &str, new: &str, windows: &[usize]) -> Vec<Region> {
    let (want, trailing) = model_lines(old);
    let want_indent = common_indent(want.iter().copied());
    windows
        .iter()
        .filter_map(|&i| {
            let got: Vec<&str> = (i..i + want.len()).map(|k| lines.line(k)).collect();
            let got_indent = common_indent(got.iter().copied());
            let same_shape = want.iter().zip(&got).all(|(w, g)| {
                if is_blank(w) || is_blank(g) {
                    return is_blank(w) && is_blank(g);
                }
                w[want_indent.len()..] == g[got_indent.len()..]
            });
            // The whole lines, indentation included, become new_string as given.
            same_shape.then(|| window_region(lines, i, want.len(), trailing, new.to_string()))
        })
        .collect()
}

fn line_trimmed(lines: &LineIndex, old: &str, new: &str, windows: &[usize]) -> Vec<Region> {
    let (want, trailing) = model_lines(old);
    windows
        .iter()
        .map(|&i| window_region(lines, i, want.len(), trailing, new.to_string()))
        .collect()
}

/// A text with every whitespace run squeezed to one space, and the way back.
struct Squeezed {
    text: String,
    /// `(offset of the squeezed space, bytes removed up to and including that run)`.
    runs: Vec<(usize, usize)>,
}

impl Squeezed {
    fn new(original: &str) -> Self {
        let mut text = String::with_capacity(original.len());
        let mut runs = Vec::new();
        let mut removed = 0;
        let mut chars = original.char_indices().peekable();
        while let Some((_, c)) = chars.next() {
            if !c.is_whitespace() {
                text.push(c);
                continue;
            }
            let mut run = c.len_utf8();
            while let Some(&(_, d)) = chars.peek() {
                if !d.is_whitespace() {
                    break;
                }
                run += d.len_utf8();
                chars.next();
            }
            removed += run - 1;
            runs.push((text.len(), removed));
            text.push(' ');
        }
        Squeezed { text, runs }
    }

    fn to_original(&self, at: usize) -> usize {
        let i = self.runs.partition_point(|&(pos, _)| pos < at);
        at + if i == 0 { 0 } else { self.runs[i - 1].1 }
    }
}

fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn whitespace_collapsed(text: &str, old: &str, new: &str) -> Vec<Region> {
    let want = collapse(old);
    if want.is_empty() {
        return Vec::new();
    }
    // Collapsing never changes non-whitespace, so each of old_string's words must occur in
    // the text verbatim: a cheap test that spares squeezing a large file for nothing.
    if old
        .split_whitespace()
        .any(|w| memmem::find(text.as_bytes(), w.as_bytes()).is_none())
    {
        return Vec::new();
    }
    let squeezed = Squeezed::new(text);
    let replacement = new.to_string();
    memmem::find_iter(squeezed.text.as_bytes(), want.as_bytes())
        .map(|at| Region {
            start: squeezed.to_original(at),
            end: squeezed.to_original(at + want.len()),
            replacement: replacement.clone(),
        })
        .collect()
}

fn trimmed_substring(text: &str, old: &str, new: &str) -> Vec<Region> {
    let want = old.trim();
    if want.is_empty() || want.len() == old.len() {
        return Vec::new();
    }
    let replacement = new.to_string();
    exact_matches(text, want)
        .into_iter()
        .map(|start| Region {
            start,
            end: start + want.len(),
            replacement: replacement.clone(),
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Unicode punctuation

/// The replacement for a punctuation-normalized match: `new`, except that the characters it
/// shares with `old` at the start and end (the part of the region the edit leaves alone) are
/// taken from the file's `region`, so its own quotes and dashes survive there.
pub fn keep_file_chars(region: &str, old: &str, new: &str) -> String {
    let (r, o, n): (Vec<char>, Vec<char>, Vec<char>) = (
        region.chars().collect(),
        old.chars().collect(),
        new.chars().collect(),
    );
    if r.len() != o.len() {
        return new.to_string();
    }
    let p = o.iter().zip(&n).take_while(|(a, b)| a == b).count();
    let max_s = o.len().min(n.len()) - p;
    let s = o
        .iter()
        .rev()
        .zip(n.iter().rev())
        .take(max_s)
        .take_while(|(a, b)| a == b)
        .count();
    let mut out: String = r[..p].iter().collect();
    out.extend(&n[p..n.len() - s]);
    out.extend(&r[r.len() - s..]);
    out
}

fn unicode_punctuation(text: &str, old: &str, new: &str) -> Vec<Region> {
    let (norm_text, norm_old) = (fold_punctuation(text), fold_punctuation(old));
    if matches!(
        (&norm_text, &norm_old),
        (Cow::Borrowed(_), Cow::Borrowed(_))
    ) {
        return Vec::new();
    }
    let hits = exact_matches(&norm_text, &norm_old);
    if hits.is_empty() {
        return Vec::new();
    }
    // Walk both texts together (one character maps to one) to turn normalized offsets into
    // original ones; the hits ascend, so one pass serves them all.
    let mut pairs = norm_text
        .char_indices()
        .map(|(n, _)| n)
        .zip(text.char_indices().map(|(o, _)| o))
        .peekable();
    let mut to_original = |target: usize| -> usize {
        while let Some(&(n, o)) = pairs.peek() {
            if n >= target {
                return o;
            }
            pairs.next();
        }
        text.len()
    };
    let mut out = Vec::with_capacity(hits.len());
    for at in hits {
        let start = to_original(at);
        let end = to_original(at + norm_old.len());
        out.push((start, end));
    }
    out.into_iter()
        .map(|(start, end)| Region {
            start,
            end,
            replacement: keep_file_chars(&text[start..end], old, new),
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Diagnostics

/// The `no_match` message: [`NO_MATCH`], then at most one diagnosis. read_file line-number
/// prefixes left in `old_string` come first; otherwise the lines where the same text stands
/// with other whitespace (found ignoring all whitespace, or as a tolerant candidate discarded
/// for spanning far more than `old_string`).
fn diagnose(text: &str, lines: &LineIndex, old: &str, discarded: &[usize]) -> String {
    let mut message = NO_MATCH.to_string();
    if let Some(stripped) = strip_line_prefixes(old) {
        message.push_str(" It looks like old_string still contains read_file's line-number prefixes (the right-aligned number and tab at the start of each line); they are not part of the file, so remove them and keep only the text after each tab.");
        if let Some(&at) = exact_matches(text, &stripped).first() {
            message.push_str(&format!(
                " Without them it matches at line {}.",
                lines.line_of(at)
            ));
        }
        return message;
    }
    let mut at = whitespace_insensitive(text, lines, old);
    at.extend_from_slice(discarded);
    at.sort_unstable();
    at.dedup();
    if !at.is_empty() {
        message.push_str(&format!(
            " The text is present at {} {} but its leading/trailing whitespace differs from old_string. Re-read that region with read_file and copy the indentation verbatim.",
            if at.len() == 1 { "line" } else { "lines" },
            list_lines(&at)
        ));
    }
    message
}

/// `old` without read_file row prefixes (`<spaces><digits><tab>`), when most of its non-blank
/// lines carry one; `None` otherwise.
pub fn strip_line_prefixes(old: &str) -> Option<String> {
    let prefix_len = |line: &str| -> Option<usize> {
        let t = line.trim_start_matches(' ');
        let digits = t.len() - t.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        (digits > 0 && t[digits..].starts_with('\t')).then(|| line.len() - t.len() + digits + 1)
    };
    let lines: Vec<&str> = old.split('\n').collect();
    let nonblank = lines.iter().filter(|l| !is_blank(l)).count();
    let prefixed = lines.iter().filter(|l| prefix_len(l).is_some()).count();
    if prefixed == 0 || prefixed * 2 < nonblank.max(1) {
        return None;
    }
    Some(
        lines
            .iter()
            .map(|l| prefix_len(l).map_or(*l, |n| &l[n..]))
            .collect::<Vec<_>>()
            .join("\n"),
    )
}

/// The first lines of the places where `old` occurs once all whitespace is ignored on both
/// sides.
fn whitespace_insensitive(text: &str, lines: &LineIndex, old: &str) -> Vec<usize> {
    let want: String = old.chars().filter(|c| !c.is_whitespace()).collect();
    if want.is_empty() {
        return Vec::new();
    }
    let stripped = Stripped::new(text);
    memmem::find_iter(stripped.text.as_bytes(), want.as_bytes())
        .take(MAX_LINES_FIELD)
        .map(|at| lines.line_of(stripped.to_original(at)))
        .collect()
}

/// A text with all whitespace removed, and the way back.
struct Stripped {
    text: String,
    /// `(offset of the first character after a removed run, bytes removed up to there)`.
    runs: Vec<(usize, usize)>,
}

impl Stripped {
    fn new(original: &str) -> Self {
        let mut text = String::with_capacity(original.len());
        let mut runs = Vec::new();
        let mut removed = 0;
        let mut in_run = false;
        for c in original.chars() {
            if c.is_whitespace() {
                removed += c.len_utf8();
                in_run = true;
            } else {
                if in_run {
                    runs.push((text.len(), removed));
                    in_run = false;
                }
                text.push(c);
            }
        }
        Stripped { text, runs }
    }

    /// The original offset of byte `at` of the stripped text.
    fn to_original(&self, at: usize) -> usize {
        let i = self.runs.partition_point(|&(pos, _)| pos <= at);
        at + if i == 0 { 0 } else { self.runs[i - 1].1 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn apply(text: &str, found: &Found) -> String {
        let mut out = String::new();
        let mut done = 0;
        for r in &found.regions {
            out.push_str(&text[done..r.start]);
            out.push_str(&r.replacement);
            done = r.end;
        }
        out.push_str(&text[done..]);
        out
    }

    fn edit(text: &str, old: &str, new: &str) -> (String, Tier) {
        let f = find(text, old, new, false, "f").unwrap();
        (apply(text, &f), f.tier)
    }

    fn fails(text: &str, old: &str) -> ToolError {
        find(text, old, "X", false, "f").unwrap_err()
    }

    #[test]
    fn exact_unique_and_ambiguous() {
        assert_eq!(edit("a b c", "b", "B"), ("a B c".into(), Tier::Exact));
        let e = fails("x\ny\nx\n", "x");
        assert_eq!(e.code, ErrorCode::AmbiguousMatch);
        assert_eq!(e.fields["lines"], serde_json::json!([1, 3]));
        assert!(e.message.contains("lines 1, 3"), "{}", e.message);
        let e = fails("a = 1; a = 2\n", "a =");
        assert_eq!(e.fields["lines"], serde_json::json!([1]));
        assert_eq!(e.fields["count"], 2);
        assert!(
            e.message.contains("2 places in f (all on line 1)"),
            "{}",
            e.message
        );
        let f = find("x\ny\nx\n", "x", "z", true, "f").unwrap();
        assert_eq!(apply("x\ny\nx\n", &f), "z\ny\nz\n");
    }

    #[test]
    fn indentation_flexible_replaces_whole_lines_verbatim() {
        // The matched lines, indentation included, become new_string as given.
        let (out, tier) = edit("  a\n  b\n  c\n", "a\nb", "X");
        assert_eq!(tier, Tier::IndentationFlexible);
        assert_eq!(out, "X\n  c\n");
        let (out, _) = edit("  a\n  b\n  c\n", "a\nb\n", "X");
        assert_eq!(out, "X  c\n");
        let text = "fn a() {\n\tif x {\n\t\tgo();\n\t}\n}\n";
        let (out, tier) = edit(text, "if x {\n\tgo();\n}\n", "\tif x {\n\t\tstop();\n\t}\n");
        assert_eq!(tier, Tier::IndentationFlexible);
        assert_eq!(out, "fn a() {\n\tif x {\n\t\tstop();\n\t}\n}\n");
        let (out, _) = edit("  a\n    b\n", "a\n  b", "a\n  c");
        assert_eq!(out, "a\n  c\n");
    }

    #[test]
    fn line_trimmed_when_indentation_is_not_uniform() {
        let text = "x\n  a  \n b\ny\n";
        let (out, tier) = edit(text, "a\n    b", "A\n    B");
        assert_eq!(tier, Tier::LineTrimmed);
        assert_eq!(out, "x\nA\n    B\ny\n");
        // Indentation dropped and a trailing space left over: the line becomes new_string.
        let (out, tier) = edit("    x = 1\n", "x = 1 \n", "    x = 2\n");
        assert_eq!(tier, Tier::LineTrimmed);
        assert_eq!(out, "    x = 2\n");
    }

    #[test]
    fn whitespace_collapsed_inside_lines() {
        let (out, tier) = edit("let  x =   1;\n", "let x = 1;", "let x = 2;");
        assert_eq!(tier, Tier::WhitespaceCollapsed);
        assert_eq!(out, "let x = 2;\n");
    }

    #[test]
    fn trimmed_substring_inside_a_line() {
        let (out, tier) = edit("call(foo, bar)\n", "\n foo, bar\n", "\n baz\n");
        assert_eq!(tier, Tier::TrimmedSubstring);
        // new_string goes in verbatim, its surrounding whitespace included.
        assert_eq!(out, "call(\n baz\n)\n");
        let (out, _) = edit("call(foo, bar)\n", " foo, bar ", "baz");
        assert_eq!(out, "call(baz)\n");
    }

    #[test]
    fn unicode_punctuation_keeps_the_files_characters() {
        let text = "say(\u{201C}hi\u{201D}) \u{2014} done\n";
        let (out, tier) = edit(text, "say(\"hi\") - done", "say(\"hello\") - done");
        assert_eq!(tier, Tier::UnicodePunctuation);
        assert_eq!(out, "say(\u{201C}hello\u{201D}) \u{2014} done\n");
        // And the other way round: the model typed curly quotes, the file has ASCII.
        let (out, _) = edit("it's\n", "it\u{2019}s", "it is");
        assert_eq!(out, "it is\n");
    }

    #[test]
    fn tolerant_ambiguity_is_refused() {
        let e = fails("  a\nz\n\ta\n", "a\n");
        // Exact "a\n" occurs twice, so that is the exact-tier ambiguity.
        assert_eq!(e.code, ErrorCode::AmbiguousMatch);
        let text = "\tif a {\n\t\tgo()\n\t}\n    if a {\n    \tgo()\n    }\n";
        let e = fails(text, "if a {\n\tgo()\n}");
        assert_eq!(e.code, ErrorCode::AmbiguousMatch);
        assert_eq!(
            e.message,
            "old_string was not found exactly; after whitespace-tolerant matching it matched 2 regions (at lines 1, 4); it must be unique. Add surrounding lines, or correct the whitespace so it matches one region exactly."
        );
        assert_eq!(e.fields["lines"], serde_json::json!([1, 4]));
        assert_eq!(e.fields["count"], 2);
    }

    #[test]
    fn disproportionate_candidates_are_discarded_and_reported() {
        // One line of old_string against a two-line region: spans twice its lines.
        let text = "call(a,\n     b)\n";
        let e = fails(text, "call(a, b)");
        assert_eq!(e.code, ErrorCode::NoMatch);
        assert_eq!(e.message, format!("{NO_MATCH}{}", ws_hint("line 1")));
        // 500+ characters more.
        let text = format!("x\na{}b\n", " ".repeat(600));
        let e = fails(&text, "a b");
        assert_eq!(e.code, ErrorCode::NoMatch);
        assert_eq!(e.message, format!("{NO_MATCH}{}", ws_hint("line 2")));
    }

    fn ws_hint(at: &str) -> String {
        format!(" The text is present at {at} but its leading/trailing whitespace differs from old_string. Re-read that region with read_file and copy the indentation verbatim.")
    }

    #[test]
    fn the_bare_message_when_nothing_is_diagnosed() {
        assert_eq!(fails("alpha\n", "beta").message, NO_MATCH);
        assert_eq!(fails("", "beta").message, NO_MATCH);
        assert_eq!(fails("", "beta").fields["path"], "f");
    }

    #[test]
    fn diagnoses_line_number_prefixes() {
        let text = "alpha\nbeta\n";
        let e = fails(text, "     1\talpha\n     2\tbeta");
        assert!(
            e.message.starts_with(&format!(
                "{NO_MATCH} It looks like old_string still contains read_file's line-number prefixes"
            )),
            "{}",
            e.message
        );
        assert!(
            e.message.ends_with(" Without them it matches at line 1."),
            "{}",
            e.message
        );
        // The prefix diagnosis wins over the whitespace one: only one is given.
        assert!(!e.message.contains("is present at"), "{}", e.message);
        assert_eq!(
            strip_line_prefixes("12\tx\n  3\ty").as_deref(),
            Some("x\ny")
        );
        assert_eq!(strip_line_prefixes("x\ty"), None);
    }

    #[test]
    fn diagnoses_whitespace_differences_with_lines() {
        let e = fails("a\nfoo(x,y)\n", "foo(x, y)");
        assert_eq!(e.message, format!("{NO_MATCH}{}", ws_hint("line 2")));
        let e = fails("foo(x,y)\nb\nfoo( x,y )\n", "foo(x, y)");
        assert_eq!(e.message, format!("{NO_MATCH}{}", ws_hint("lines 1, 3")));
    }

    #[test]
    fn stripped_maps_back() {
        let s = Stripped::new("  ab \n c");
        assert_eq!(s.text, "abc");
        assert_eq!(s.to_original(0), 2);
        assert_eq!(s.to_original(1), 3);
        assert_eq!(s.to_original(2), 7);
        let e = fails("x\n  foo ( a,b )\n", "foo(a, b)");
        assert_eq!(e.message, format!("{NO_MATCH}{}", ws_hint("line 2")));
    }

    #[test]
    fn replace_all_is_exact_only_but_still_diagnoses_whitespace() {
        let e = find("  a  \n", "a \n", "b", true, "f").unwrap_err();
        assert_eq!(e.code, ErrorCode::NoMatch);
        assert_eq!(e.message, format!("{NO_MATCH}{}", ws_hint("line 1")));
    }

    /// Random texts over an alphabet of the tricky characters: `find` never panics, and every
    /// success yields regions inside the text, on character boundaries, ascending.
    #[test]
    fn random_inputs_never_panic() {
        let alphabet: Vec<char> = "ab \t\n\u{A0}\u{2019}'\"-\u{2014}\u{3000}é🎉1\t"
            .chars()
            .collect();
        let mut rng = crate::testutil::XorShift::new(0x9E37_79B9_7F4A_7C15);
        let mut next = move |n: usize| rng.below(n);
        for _ in 0..3000 {
            let (text_len, old_len, new_len) = (next(60), 1 + next(12), next(12));
            let mut gen = |len: usize| -> String {
                (0..len).map(|_| alphabet[next(alphabet.len())]).collect()
            };
            let (text, old, new) = (gen(text_len), gen(old_len), gen(new_len));
            let replace_all = next(2) == 0;
            if let Ok(found) = find(&text, &old, &new, replace_all, "f") {
                let mut last = 0;
                for r in &found.regions {
                    assert!(r.start >= last && r.start <= r.end && r.end <= text.len());
                    assert!(text.is_char_boundary(r.start) && text.is_char_boundary(r.end));
                    last = r.end;
                }
                if found.tier == Tier::Exact && !replace_all {
                    assert_eq!(apply(&text, &found), text.replacen(&old, &new, 1));
                }
            }
        }
    }

    #[test]
    fn line_index() {
        let l = LineIndex::new("a\nbb\nc");
        assert_eq!(l.len(), 3);
        assert_eq!(l.line(1), "bb");
        assert_eq!(l.line_of(2), 2);
        assert_eq!(l.span(2, 5), (2, 2));
        assert_eq!(LineIndex::new("a\n").len(), 1);
        assert_eq!(LineIndex::new("").len(), 0);
    }

    #[test]
    fn keeps_file_chars_only_where_unchanged() {
        assert_eq!(
            keep_file_chars("\u{2018}a\u{2019}", "'a'", "'b'"),
            "\u{2018}b\u{2019}"
        );
        assert_eq!(
            keep_file_chars("x\u{2013}y", "x-y", "x-y-z"),
            "x\u{2013}y-z"
        );
    }
}
