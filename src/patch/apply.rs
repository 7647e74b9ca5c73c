//! Applying hunks to one file's bytes.
//!
//! The file is split into lines that keep their own terminators, as raw bytes, so every
//! untouched byte comes back identical — the BOM, each line's `\r\n` / `\n`, and bytes that
//! are not valid UTF-8 (matching compares a lossy decoding; writing uses the bytes).
//!
//! Lines end at `\n` (a `\r` just before it makes the terminator `\r\n`): a lone `\r` is
//! content, as `git diff` and `git apply` see it, so a diff's line numbers and lines match the
//! file's. Only when the hunks cannot be applied that way and the file has a lone `\r` are they
//! tried once more with lone `\r` as a line break too — how read_file shows such a file (a
//! classic-Mac `\r`-only file, say), so a patch written from that view still applies. Context lines keep the file's text even when a tolerant pass matched them; added
//! lines take the file's dominant terminator. The end of the file keeps its state (with or
//! without a final newline) unless a unified `\ No newline at end of file` marker changes it.
//!
//! Hunks are located in order against the original lines, each at or after the end of the
//! previous one; the result is assembled once at the end.

use std::borrow::Cow;

use super::seek::{self, Order, Pass, Search};
use super::{line_text, Hunk, HunkLine};
use crate::error::{ErrorCode, ToolError, ToolResult};
use crate::text::{dominant_terminator, split_byte_lines};

const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";
/// Lines of a listing shown in a `patch_failed` message before it is cut.
const MAX_SHOWN_LINES: usize = 24;
/// Characters of one shown line.
const MAX_SHOWN_CHARS: usize = 240;

/// A file's content as lines: raw bytes and terminators, plus the decoded text matched on.
pub struct Target<'a> {
    bom: bool,
    lines: Vec<&'a [u8]>,
    terms: Vec<&'a [u8]>,
    text: Vec<Cow<'a, str>>,
    /// Some line is not valid UTF-8 (its text holds U+FFFD stand-ins).
    lossy: bool,
}

/// Which bytes end a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Breaks {
    /// `\n` (or `\r\n`) only: a lone `\r` is content. How diffs see a file.
    Lf,
    /// `\n`, `\r\n` and a lone `\r`: how read_file shows a file.
    All,
}

impl<'a> Target<'a> {
    /// The file as diffs see it ([`Breaks::Lf`]).
    pub fn new(bytes: &'a [u8]) -> Target<'a> {
        Target::with_breaks(bytes, Breaks::Lf)
    }

    pub fn with_breaks(bytes: &'a [u8], breaks: Breaks) -> Target<'a> {
        let bom = bytes.starts_with(UTF8_BOM);
        let body = if bom { &bytes[UTF8_BOM.len()..] } else { bytes };
        let count = memchr::memchr_iter(b'\n', body).count() + 1;
        let mut t = Target {
            bom,
            lines: Vec::with_capacity(count),
            terms: Vec::with_capacity(count),
            text: Vec::with_capacity(count),
            lossy: false,
        };
        // One UTF-8 check of the whole file (a line boundary is an ASCII byte, so each line
        // of valid text is valid text); only a file that fails it is checked line by line.
        let whole = std::str::from_utf8(body).ok();
        match breaks {
            Breaks::Lf => split_lf_lines(body).for_each(|(l, term)| t.push(l, term, whole)),
            Breaks::All => split_byte_lines(body).for_each(|(l, term)| t.push(l, term, whole)),
        }
        t
    }

    /// Adds `line` (a slice of the file body, which is `whole` when it is valid UTF-8).
    fn push(&mut self, line: &'a [u8], term: &'a [u8], whole: Option<&'a str>) {
        let valid = whole.and_then(|w| {
            let start = line.as_ptr() as usize - w.as_ptr() as usize;
            w.get(start..start + line.len())
        });
        let text = match valid {
            Some(text) => Cow::Borrowed(text),
            None => String::from_utf8_lossy(line),
        };
        self.lossy |= matches!(text, Cow::Owned(_));
        self.lines.push(line);
        self.terms.push(term);
        self.text.push(text);
    }

    pub fn line_count(&self) -> usize {
        self.lines.len()
    }

    fn dominant(&self) -> &'static str {
        dominant_terminator(self.terms.iter().copied())
    }

    fn ends_without_newline(&self) -> bool {
        self.terms.last().is_some_and(|t| t.is_empty())
    }
}

/// One output line: an original line (kept byte for byte) or a line from the patch.
#[derive(Debug, Clone, Copy)]
enum Piece<'p> {
    Keep(usize),
    Add(&'p str),
}

/// What one hunk does: replace `old_len` original lines at `start` with `pieces`.
struct Replacement<'p> {
    start: usize,
    old_len: usize,
    pieces: Vec<Piece<'p>>,
    old_no_eol: bool,
    new_no_eol: bool,
}

/// `(line, terminator)` pairs split at `\n` only; the terminator is `\r\n` or `\n`, and empty
/// for a last line without one.
fn split_lf_lines(bytes: &[u8]) -> impl Iterator<Item = (&[u8], &[u8])> {
    let mut rest = bytes;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let bytes = rest;
        let (line, term, used) = match memchr::memchr(b'\n', bytes) {
            Some(i) if i > 0 && bytes[i - 1] == b'\r' => {
                (&bytes[..i - 1], &bytes[i - 1..=i], i + 1)
            }
            Some(i) => (&bytes[..i], &bytes[i..=i], i + 1),
            None => (bytes, &bytes[..0], bytes.len()),
        };
        rest = &bytes[used..];
        Some((line, term))
    })
}

/// Whether `bytes` hold a `\r` that is not followed by `\n`.
fn has_lone_cr(bytes: &[u8]) -> bool {
    memchr::memchr_iter(b'\r', bytes).any(|i| bytes.get(i + 1) != Some(&b'\n'))
}

/// Applies `hunks` to `bytes` (a file shown as `display`) and returns the new bytes.
/// A hunk that cannot be located → `patch_failed` with `file` and the 1-based `hunk`.
/// Lines end at `\n`; a file with a lone `\r` whose hunks do not apply that way is tried once
/// more with lone `\r` as a break too, and the first failure is reported if that fails as well.
pub fn apply_hunks(bytes: &[u8], hunks: &[Hunk], display: &str) -> ToolResult<Vec<u8>> {
    match apply_to(&Target::new(bytes), hunks, display) {
        Err(e) if e.code == ErrorCode::PatchFailed && has_lone_cr(bytes) => {
            apply_to(&Target::with_breaks(bytes, Breaks::All), hunks, display).map_err(|_| e)
        }
        done => done,
    }
}

fn apply_to(target: &Target, hunks: &[Hunk], display: &str) -> ToolResult<Vec<u8>> {
    let mut cursor = 0;
    let mut reps = Vec::with_capacity(hunks.len());
    for (k, hunk) in hunks.iter().enumerate() {
        let rep = locate(target, hunk, cursor)
            .map_err(|why| failure(target, hunk, k + 1, cursor, display, why))?;
        cursor = rep.start + rep.old_len;
        reps.push(rep);
    }
    if target.lossy {
        refuse_foreign_text(&reps, display)?;
    }
    // A hunk line carrying its `\r` shows the patch holds the file's exact line ends (`git diff`
    // of a CRLF file): then an added line without one ends in `\n`, as `git apply` writes it.
    let exact_ends = hunks.iter().any(|h| {
        h.lines.iter().any(|l| match l {
            HunkLine::Context(t) | HunkLine::Remove(t) | HunkLine::Add(t) => t.ends_with('\r'),
        })
    });
    Ok(assemble(target, &reps, exact_ends))
}

/// Why a hunk was not found.
enum Miss {
    /// Its `@@` anchor (index into `anchors`) is not in the file.
    Anchor(usize),
    /// Its context and removed lines are not in the file.
    Lines,
}

/// Finds where `hunk` goes, at or after `cursor`.
fn locate<'p>(target: &Target, hunk: &'p Hunk, cursor: usize) -> Result<Replacement<'p>, Miss> {
    if hunk.unplaceable {
        return Err(Miss::Lines);
    }
    let n = target.line_count();
    let mut from = cursor;
    let mut anchor_at = None;
    let mut anchor_missing = None;
    for (i, anchor) in hunk.anchors.iter().enumerate() {
        let search = Search {
            from: anchor_at.map_or(cursor, |a: usize| a + 1),
            order: Order::Forward,
            prefer_end: false,
        };
        match seek::find(&target.text, &[line_text(anchor)], search) {
            Some((at, _)) => {
                anchor_at = Some(at);
                // The hunk's own lines may start on the anchor line itself.
                from = at;
            }
            None => {
                anchor_missing = Some(i);
                anchor_at = None;
                from = cursor;
                break;
            }
        }
    }
    let miss = || anchor_missing.map_or(Miss::Lines, Miss::Anchor);
    let mut lines: &[HunkLine] = &hunk.lines;
    if old_side(lines).is_empty() {
        if anchor_missing.is_some() {
            return Err(miss());
        }
        // A pure insertion: after the anchor, at the stated position, or at the end.
        let at = match (anchor_at, hunk.old_start) {
            (Some(a), _) => a + 1,
            (None, Some(s)) if !hunk.end_of_file => s.min(n),
            _ => n,
        };
        return Ok(replacement(at.max(cursor), lines, hunk));
    }
    // Trailing empty context lines are often an artifact of how the patch was written: the
    // hunk is retried without them.
    let mut variants = vec![lines];
    while let Some((HunkLine::Context(t), rest)) = lines.split_last() {
        if !t.trim().is_empty() || old_side(rest).is_empty() {
            break;
        }
        lines = rest;
        variants.push(lines);
    }
    // After the anchors first. When the lines are not there (the anchor named a line below the
    // change, say) or an anchor is missing, the search starts again where the previous hunk
    // ended — but then only a match that is the only one there counts, since the anchor that
    // should have told occurrences apart is no help.
    let guided = anchor_missing.is_none();
    let mut starts = vec![(from, guided)];
    if !hunk.anchors.is_empty() && guided {
        starts.push((cursor, false));
    }
    for (from, guided) in starts {
        let search = Search {
            from,
            order: match hunk.old_start {
                Some(s) => Order::Nearest(s.saturating_sub(1)),
                None => Order::Forward,
            },
            prefer_end: hunk.end_of_file || hunk.old_no_eol,
        };
        for lines in &variants {
            let old = old_side(lines);
            let found = if guided {
                seek::find(&target.text, &old, search)
            } else {
                seek::find_unique(&target.text, &old, search)
            };
            if let Some((start, _)) = found {
                return Ok(replacement(start, lines, hunk));
            }
        }
    }
    Err(miss())
}

fn old_side(lines: &[HunkLine]) -> Vec<&str> {
    lines
        .iter()
        .filter_map(|l| match l {
            HunkLine::Context(t) | HunkLine::Remove(t) => Some(line_text(t)),
            HunkLine::Add(_) => None,
        })
        .collect()
}

fn replacement<'p>(start: usize, lines: &'p [HunkLine], hunk: &Hunk) -> Replacement<'p> {
    let mut pos = start;
    let mut pieces = Vec::with_capacity(lines.len());
    for line in lines {
        match line {
            HunkLine::Context(_) => {
                pieces.push(Piece::Keep(pos));
                pos += 1;
            }
            HunkLine::Remove(_) => pos += 1,
            HunkLine::Add(t) => pieces.push(Piece::Add(t)),
        }
    }
    Replacement {
        start,
        old_len: pos - start,
        pieces,
        old_no_eol: hunk.old_no_eol,
        new_no_eol: hunk.new_no_eol,
    }
}

/// The new bytes: original lines between replacements kept, each replacement's pieces in
/// place of its lines.
fn assemble(target: &Target, reps: &[Replacement], exact_ends: bool) -> Vec<u8> {
    let n = target.line_count();
    let mut pieces: Vec<Piece> = Vec::with_capacity(n + 16);
    let mut pos = 0;
    for rep in reps {
        pieces.extend((pos..rep.start).map(Piece::Keep));
        pieces.extend_from_slice(&rep.pieces);
        pos = rep.start + rep.old_len;
    }
    pieces.extend((pos..n).map(Piece::Keep));

    let dominant = target.dominant().as_bytes();
    let at_end = reps.last().filter(|r| r.start + r.old_len == n);
    // The final line's terminator: a marker decides; otherwise the file keeps its state.
    let final_term: Option<&[u8]> = match at_end {
        Some(r) if r.new_no_eol => Some(b""),
        Some(r) if r.old_no_eol => Some(dominant),
        _ if target.ends_without_newline() => Some(b""),
        _ => None,
    };
    let mut out = Vec::with_capacity(
        target.lines.iter().map(|l| l.len() + 2).sum::<usize>() + 3 + reps.len() * 64,
    );
    if target.bom {
        out.extend_from_slice(UTF8_BOM);
    }
    let last = pieces.len().wrapping_sub(1);
    for (k, piece) in pieces.iter().enumerate() {
        let (content, term): (&[u8], &[u8]) = match *piece {
            Piece::Keep(i) if target.terms[i].is_empty() => (target.lines[i], dominant),
            Piece::Keep(i) => (target.lines[i], target.terms[i]),
            // A line that carried its CR in the patch (a diff of a CRLF file) ends in CRLF.
            Piece::Add(t) => match t.strip_suffix('\r') {
                Some(t) => (t.as_bytes(), b"\r\n"),
                None if exact_ends => (t.as_bytes(), b"\n"),
                None => (t.as_bytes(), dominant),
            },
        };
        out.extend_from_slice(content);
        match final_term {
            Some(t) if k == last => out.extend_from_slice(t),
            _ => out.extend_from_slice(term),
        }
    }
    out
}

/// Added text for a file that is not valid UTF-8 (Latin-1, Shift_JIS, …), whose untouched bytes
/// are kept as they are. Two kinds of added line are refused: one carrying U+FFFD — the
/// stand-in read_file shows for bytes it cannot decode, so writing it would replace the file's
/// real bytes — and one with other non-ASCII text, which would be written as UTF-8 into a file
/// in another encoding. ASCII lines are the same bytes in every such encoding and are allowed.
fn refuse_foreign_text(reps: &[Replacement], display: &str) -> ToolResult<()> {
    for (k, rep) in reps.iter().enumerate() {
        let added = rep.pieces.iter().filter_map(|p| match p {
            Piece::Add(t) => Some(*t),
            Piece::Keep(_) => None,
        });
        let why = added.fold(None, |why, t| {
            if t.contains('\u{FFFD}') {
                Some("adds lines containing U+FFFD (\u{FFFD}), the stand-in read_file shows for bytes it cannot decode; writing them would destroy the original bytes. Keep those lines unchanged as context")
            } else if why.is_none() && !t.is_ascii() {
                Some("adds non-ASCII text, which would be written as UTF-8 into a file in another encoding (Latin-1, Shift_JIS, …). Keep added lines ASCII, or convert the file to UTF-8 first (e.g. iconv in bash)")
            } else {
                why
            }
        });
        if let Some(why) = why {
            return Err(ToolError::invalid_input(format!(
                "{display} is not valid UTF-8, and hunk {} {why}. Nothing was written.",
                k + 1
            ))
            .with("path", display)
            .with("file", display)
            .with("hunk", k + 1));
        }
    }
    Ok(())
}

/// Creates the content of a new file: each line followed by `\n`, except the last when
/// `no_eol`.
pub fn render_new_file(lines: &[String], no_eol: bool) -> Vec<u8> {
    let mut out = Vec::with_capacity(lines.iter().map(|l| l.len() + 1).sum());
    for (k, line) in lines.iter().enumerate() {
        out.extend_from_slice(line.as_bytes());
        if !(no_eol && k + 1 == lines.len()) {
            out.push(b'\n');
        }
    }
    out
}

/// A unified-diff delete must remove the whole file: `expect` (its removed lines) must be
/// every line of `bytes`, equal under one matching pass; otherwise `invalid_input` with `path`.
pub fn check_whole_content(bytes: &[u8], expect: &[String], display: &str) -> ToolResult<()> {
    let equal = |target: &Target| {
        target.line_count() == expect.len()
            && Pass::ALL.iter().any(|pass| {
                target
                    .text
                    .iter()
                    .zip(expect)
                    .all(|(f, e)| pass.same(f, line_text(e)))
            })
    };
    let target = Target::new(bytes);
    if equal(&target) || has_lone_cr(bytes) && equal(&Target::with_breaks(bytes, Breaks::All)) {
        return Ok(());
    }
    let n = target.line_count();
    let mut message =
        format!("Deleting {display} failed: a deletion must remove the whole content, but ");
    if n != expect.len() {
        message.push_str(&format!(
            "the hunk removes {} line(s) and the file has {n}.",
            expect.len()
        ));
    } else {
        let k = target
            .text
            .iter()
            .zip(expect)
            .position(|(f, e)| !Pass::Punctuation.same(f, line_text(e)))
            .unwrap_or(0);
        message.push_str(&format!(
            "line {} differs: the hunk removes {:?}, the file has {:?}.",
            k + 1,
            clip(&expect[k]),
            clip(&target.text[k])
        ));
    }
    message.push_str(
        " List every line of the file as a '-' line (read it with read_file), then send the whole patch again. Nothing was written.",
    );
    Err(ToolError::invalid_input(message).with("path", display))
}

/// The `patch_failed` error for hunk `k` (1-based): what the hunk expects next to the file's
/// actual lines where it most nearly matches.
fn failure(
    target: &Target,
    hunk: &Hunk,
    k: usize,
    cursor: usize,
    display: &str,
    why: Miss,
) -> ToolError {
    let passes = Pass::ALL
        .iter()
        .map(|p| p.describe())
        .collect::<Vec<_>>()
        .join(", then ");
    let after = if cursor > 0 {
        format!(" after line {cursor}, where hunk {} ended", k - 1)
    } else {
        String::new()
    };
    let mut msg = String::new();
    let mut line_field = None;
    match why {
        Miss::Anchor(i) => {
            let anchor = &hunk.anchors[i];
            msg.push_str(&format!(
                "Hunk {k} of {display} does not apply: its context line '@@ {}' was not found in the file{after} (compared {passes}).",
                clip(anchor)
            ));
            let containing: Vec<usize> = target
                .text
                .iter()
                .enumerate()
                .filter(|(_, t)| {
                    let a = anchor.trim();
                    !a.is_empty() && t.contains(a)
                })
                .map(|(i, _)| i + 1)
                .take(10)
                .collect();
            if !containing.is_empty() {
                msg.push_str(&format!(
                    " Lines containing that text: {}.",
                    containing
                        .iter()
                        .map(|n| n.to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
            msg.push_str(
                " Put a line copied exactly from the file after '@@ ' (or use a bare '@@')",
            );
        }
        Miss::Lines => {
            let old = hunk.old_lines();
            let stated = hunk
                .old_start
                .map(|s| format!(" (stated at line {s})"))
                .unwrap_or_default();
            msg.push_str(&format!(
                "Hunk {k} of {display} does not apply: its {} context/removed line(s){stated} were not found in the file{after} (compared {passes}).\nThe hunk expects:\n",
                old.len()
            ));
            listing(
                &mut msg,
                old.iter().map(|l| format!("  {}", clip(l))),
                old.len(),
            );
            let near = hunk.old_start.map_or(cursor, |s| s.saturating_sub(1));
            match seek::closest(&target.text, &old, 0, near) {
                Some((start, equal)) => {
                    let shown = old.len().min(target.line_count() - start);
                    line_field = Some(start + 1);
                    let overlap = if start < cursor {
                        "; it overlaps lines an earlier hunk already matched: hunks must not overlap, so merge them into one"
                    } else {
                        ""
                    };
                    msg.push_str(&format!(
                        "\nThe most similar part of the file is lines {}-{} ({equal} of {} lines equal ignoring whitespace; '!' marks a line that differs{overlap}):\n",
                        start + 1,
                        start + shown,
                        old.len()
                    ));
                    let rows = (0..shown).map(|j| {
                        let text = &target.text[start + j];
                        let mark = if Pass::Trim.same(text, old[j]) {
                            ' '
                        } else {
                            '!'
                        };
                        format!("{:>6}{mark}\t{}", start + j + 1, clip(text))
                    });
                    listing(&mut msg, rows, shown);
                }
                None => {
                    msg.push_str(&format!(
                        "\nNo line of the file equals any of them, even ignoring whitespace (the file has {} lines).",
                        target.line_count()
                    ));
                }
            }
            let new = hunk.new_lines();
            if hunk.added() > 0 && new != old {
                let search = Search {
                    from: 0,
                    order: Order::Forward,
                    prefer_end: false,
                };
                if let Some((at, _)) = seek::find(&target.text, &new, search) {
                    msg.push_str(&format!(
                        "\nThe hunk's resulting lines are already in the file at lines {}-{}: this change looks already applied.",
                        at + 1,
                        at + new.len()
                    ));
                }
            }
            msg.push_str(
                "\nMake the hunk's ' ' and '-' lines match the file exactly (read it with read_file; do not copy its line-number prefixes)",
            );
        }
    }
    msg.push_str(", then send the whole patch again. Nothing was written.");
    let mut err = ToolError::new(ErrorCode::PatchFailed, msg)
        .with("file", display)
        .with("hunk", k);
    if let Some(line) = line_field {
        err = err.with("line", line);
    }
    err
}

/// Appends up to [`MAX_SHOWN_LINES`] rows, then a count of the rest.
fn listing(out: &mut String, rows: impl Iterator<Item = String>, total: usize) {
    for row in rows.take(MAX_SHOWN_LINES) {
        out.push_str(&row);
        out.push('\n');
    }
    if total > MAX_SHOWN_LINES {
        out.push_str(&format!(
            "  [... {} more lines ...]\n",
            total - MAX_SHOWN_LINES
        ));
    }
    if out.ends_with('\n') {
        out.pop();
    }
}

fn clip(line: &str) -> Cow<'_, str> {
    match line.char_indices().nth(MAX_SHOWN_CHARS) {
        Some((i, _)) => Cow::Owned(format!("{} [...]", &line[..i])),
        None => Cow::Borrowed(line),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx(t: &str) -> HunkLine {
        HunkLine::Context(t.into())
    }
    fn rem(t: &str) -> HunkLine {
        HunkLine::Remove(t.into())
    }
    fn add(t: &str) -> HunkLine {
        HunkLine::Add(t.into())
    }
    fn hunk(lines: Vec<HunkLine>) -> Hunk {
        Hunk {
            lines,
            ..Hunk::default()
        }
    }
    fn apply(bytes: &[u8], hunks: &[Hunk]) -> Vec<u8> {
        apply_hunks(bytes, hunks, "f").unwrap()
    }

    #[test]
    fn replaces_and_keeps_every_other_byte() {
        let file = b"\xEF\xBB\xBFa\r\nb\nc\r\nd";
        let out = apply(
            file,
            &[hunk(vec![ctx("b"), rem("c"), add("C1"), add("C2")])],
        );
        // b keeps "\n"; new lines take the dominant terminator ("\r\n", two to one); the
        // final line keeps having no newline.
        assert_eq!(out, b"\xEF\xBB\xBFa\r\nb\nC1\r\nC2\r\nd");
        let crlf = b"x\r\ny\r\nz\r\n";
        assert_eq!(
            apply(crlf, &[hunk(vec![rem("y"), add("Y")])]),
            b"x\r\nY\r\nz\r\n"
        );
    }

    #[test]
    fn a_lone_cr_is_content_as_git_sees_it() {
        // git's line 3 is "x\ry"; counting the lone CR as a break would make it line 4, and
        // a -U0 hunk for the second "y" would land on the first.
        let file = b"one\ny\nx\ry\ny\n";
        let mut h = hunk(vec![rem("y"), add("Y")]);
        h.old_start = Some(4);
        assert_eq!(apply(file, &[h]), b"one\ny\nx\ry\nY\n");
        // A hunk line holding a CR inside matches that line.
        let h = hunk(vec![ctx("one"), rem("x\ry"), add("x\rY")]);
        assert_eq!(apply(b"one\nx\ry\n", &[h]), b"one\nx\rY\n");
        assert_eq!(
            split_lf_lines(b"a\rb\r\nc\nd\r").collect::<Vec<_>>(),
            [(&b"a\rb"[..], &b"\r\n"[..]), (b"c", b"\n"), (b"d\r", b"")]
        );
        assert!(check_whole_content(b"a\rb\n", &["a\rb".into()], "f").is_ok());
    }

    #[test]
    fn a_patch_written_from_the_read_file_view_of_lone_cr_lines_still_applies() {
        // read_file shows "a\rb\rc\r" as three lines.
        assert_eq!(
            apply(b"a\rb\rc\r", &[hunk(vec![rem("b"), add("B")])]),
            b"a\rB\rc\r"
        );
        assert_eq!(
            apply(b"p\nq\rr\n", &[hunk(vec![rem("r"), add("R")])]),
            b"p\nq\rR\n"
        );
        assert!(check_whole_content(b"a\rb\r", &["a".into(), "b".into()], "f").is_ok());
        // When neither view applies, the failure is described in the diff view.
        let e = apply_hunks(b"a\rb\n", &[hunk(vec![rem("zz")])], "f").unwrap_err();
        assert!(e.message.contains("the file has 1 lines"), "{}", e.message);
    }

    #[test]
    fn lines_carrying_their_cr_match_without_it_and_end_in_crlf() {
        // As `git diff` writes a CRLF file's lines into an LF patch.
        let out = apply(b"a\nb\n", &[hunk(vec![ctx("a\r"), rem("b\r"), add("c\r")])]);
        assert_eq!(out, b"a\nc\r\n");
        assert_eq!(render_new_file(&["x\r".into()], false), b"x\r\n");
        assert!(check_whole_content(b"p\r\n", &["p\r".into()], "f").is_ok());
    }

    #[test]
    fn tolerant_matches_keep_the_files_context_text() {
        let file = "\tif (a) {\n\t\tsay(“hi”);\n\t}\n".as_bytes();
        let out = apply(
            file,
            &[hunk(vec![
                ctx("if (a) {"),
                rem("say(\"hi\");"),
                add("\t\tsay(\"bye\");"),
                ctx("}"),
            ])],
        );
        assert_eq!(out, b"\tif (a) {\n\t\tsay(\"bye\");\n\t}\n");
    }

    #[test]
    fn non_utf8_bytes_survive_and_replacement_chars_are_refused() {
        let file = b"caf\xE9\nold\nna\xEFve\n";
        assert_eq!(
            apply(
                file,
                &[hunk(vec![ctx("caf\u{FFFD}"), rem("old"), add("new")])]
            ),
            b"caf\xE9\nnew\nna\xEFve\n"
        );
        let e = apply_hunks(
            file,
            &[hunk(vec![rem("caf\u{FFFD}"), add("caf\u{FFFD}!")])],
            "f",
        )
        .unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidInput);
        assert!(e.message.contains("not valid UTF-8"), "{}", e.message);
        assert!(e.message.contains("U+FFFD"), "{}", e.message);
        let e = apply_hunks(file, &[hunk(vec![rem("old"), add("neu café")])], "f").unwrap_err();
        assert!(e.message.contains("non-ASCII"), "{}", e.message);
    }

    #[test]
    fn appending_after_a_last_line_without_newline() {
        assert_eq!(
            apply(b"a\nb", &[hunk(vec![ctx("b"), add("c")])]),
            b"a\nb\nc"
        );
        // A unified marker on the old side gives the new last line a newline.
        let mut h = hunk(vec![rem("b"), add("b"), add("c")]);
        h.old_no_eol = true;
        assert_eq!(apply(b"a\nb", &[h]), b"a\nb\nc\n");
        // A marker on the new side removes it.
        let mut h = hunk(vec![rem("b"), add("c")]);
        h.new_no_eol = true;
        assert_eq!(apply(b"a\nb\n", &[h]), b"a\nc");
    }

    #[test]
    fn pure_insertions_go_after_the_anchor_at_the_position_or_at_the_end() {
        let file = b"fn a\nx\nfn b\ny\n";
        let mut h = hunk(vec![add("new")]);
        h.anchors = vec!["fn b".into()];
        assert_eq!(apply(file, &[h]), b"fn a\nx\nfn b\nnew\ny\n");
        let mut h = hunk(vec![add("top")]);
        h.old_start = Some(0);
        assert_eq!(apply(file, &[h]), b"top\nfn a\nx\nfn b\ny\n");
        assert_eq!(
            apply(file, &[hunk(vec![add("end")])]),
            b"fn a\nx\nfn b\ny\nend\n"
        );
    }

    #[test]
    fn anchors_and_cursor_disambiguate_repeated_lines() {
        let file = b"fn a\n  x\nfn b\n  x\n";
        let mut h = hunk(vec![rem("  x"), add("  y")]);
        h.anchors = vec!["fn b".into()];
        assert_eq!(apply(file, &[h]), b"fn a\n  x\nfn b\n  y\n");
        // Two hunks with the same lines take successive occurrences.
        let h = hunk(vec![rem("  x"), add("  z")]);
        assert_eq!(apply(file, &[h.clone(), h]), b"fn a\n  z\nfn b\n  z\n");
    }

    #[test]
    fn a_misleading_anchor_falls_back_to_the_previous_hunks_end() {
        // The anchor names a line below the change.
        let file = b"fn a\n  x\nfn b\n";
        let mut h = hunk(vec![rem("  x"), add("  y")]);
        h.anchors = vec!["fn b".into()];
        assert_eq!(apply(file, &[h]), b"fn a\n  y\nfn b\n");
    }

    #[test]
    fn a_missing_anchor_is_tolerated_only_for_unique_lines() {
        let mut h = hunk(vec![rem("  x"), add("  y")]);
        h.anchors = vec!["fn typo".into()];
        assert_eq!(apply(b"fn a\n  x\n", &[h.clone()]), b"fn a\n  y\n");
        let e = apply_hunks(b"fn a\n  x\nfn b\n  x\n", &[h], "f").unwrap_err();
        assert!(
            e.message.contains("'@@ fn typo' was not found"),
            "{}",
            e.message
        );
        let mut ins = hunk(vec![add("new")]);
        ins.anchors = vec!["fn typo".into()];
        assert!(apply_hunks(b"fn a\n", &[ins], "f").is_err());
    }

    #[test]
    fn stated_positions_pick_the_nearest_occurrence() {
        let file = b"x\n1\n2\n3\nx\n";
        let mut h = hunk(vec![rem("x"), add("y")]);
        h.old_start = Some(4);
        assert_eq!(apply(file, &[h]), b"x\n1\n2\n3\ny\n");
    }

    #[test]
    fn end_of_file_prefers_the_tail() {
        let file = b"}\nmid\n}\n";
        let mut h = hunk(vec![ctx("}"), add("tail")]);
        h.end_of_file = true;
        assert_eq!(apply(file, &[h]), b"}\nmid\n}\ntail\n");
    }

    #[test]
    fn trailing_blank_context_is_dropped_when_it_does_not_match() {
        assert_eq!(
            apply(
                b"a\nb",
                &[hunk(vec![rem("a"), add("A"), ctx("b"), ctx("")])]
            ),
            b"A\nb"
        );
    }

    #[test]
    fn failures_show_the_expected_lines_and_the_closest_region() {
        let file = b"one\ntwo\nthree\nfour\n";
        let mut h = hunk(vec![ctx("two"), rem("THREE"), add("3")]);
        h.old_start = Some(2);
        let e = apply_hunks(file, &[hunk(vec![rem("one"), add("1")]), h], "f.txt").unwrap_err();
        assert_eq!(e.code, ErrorCode::PatchFailed);
        assert_eq!(e.fields["file"], "f.txt");
        assert_eq!(e.fields["hunk"], 2);
        assert_eq!(e.fields["line"], 2);
        assert!(
            e.message.contains("The hunk expects:\n  two\n  THREE"),
            "{}",
            e.message
        );
        assert!(
            e.message.contains("     2 \ttwo\n     3!\tthree"),
            "{}",
            e.message
        );
        assert!(e.message.contains("Nothing was written"));
    }

    #[test]
    fn failures_notice_an_already_applied_change() {
        let e =
            apply_hunks(b"a\nB\n", &[hunk(vec![ctx("a"), rem("b"), add("B")])], "f").unwrap_err();
        assert!(e.message.contains("already applied"), "{}", e.message);
    }

    #[test]
    fn anchor_failures_name_the_anchor() {
        let mut h = hunk(vec![rem("x")]);
        h.anchors = vec!["fn nope".into()];
        let e = apply_hunks(b"x\nx\n", &[h], "f").unwrap_err();
        assert!(
            e.message.contains("'@@ fn nope' was not found"),
            "{}",
            e.message
        );
        assert_eq!(e.fields["hunk"], 1);
    }

    #[test]
    fn new_files_and_whole_content_checks() {
        assert_eq!(render_new_file(&["a".into(), "b".into()], false), b"a\nb\n");
        assert_eq!(render_new_file(&["a".into()], true), b"a");
        assert_eq!(render_new_file(&[], false), b"");
        assert!(check_whole_content(b"a\r\nb", &["a".into(), "b".into()], "f").is_ok());
        let e = check_whole_content(b"a\nb\n", &["a".into()], "f").unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidInput);
        assert_eq!(e.fields["path"], "f");
        assert!(e.message.contains("whole content"), "{}", e.message);
        let e = check_whole_content(b"a\nb\n", &["a".into(), "c".into()], "f").unwrap_err();
        assert!(e.message.contains("line 2 differs"), "{}", e.message);
        assert!(check_whole_content(b"", &[], "f").is_ok());
    }
}
