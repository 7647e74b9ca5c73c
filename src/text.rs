//! Text: loading a file under the size cap, binary detection, decoding (UTF-8 with or without
//! BOM, UTF-16 LE/BE with BOM), and line splitting that keeps each line's own terminator.

use std::borrow::Cow;
use std::fs;
use std::io::Read;

use crate::config::Config;
use crate::error::{io_err, ErrorCode, ToolError, ToolResult};
use crate::paths::WorkPath;

/// How many bytes at each end of a file are probed for a NUL byte.
pub const BINARY_PROBE_BYTES: usize = 8000;

const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";
const UTF16LE_BOM: &[u8] = b"\xFF\xFE";
const UTF16BE_BOM: &[u8] = b"\xFE\xFF";

/// The encoding a file was decoded from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    /// UTF-8; `bom` says whether the file starts with a byte-order mark.
    Utf8 {
        bom: bool,
    },
    Utf16Le,
    Utf16Be,
}

impl Encoding {
    /// Sniffs the byte-order mark.
    pub fn detect(bytes: &[u8]) -> Encoding {
        if bytes.starts_with(UTF16LE_BOM) {
            Encoding::Utf16Le
        } else if bytes.starts_with(UTF16BE_BOM) {
            Encoding::Utf16Be
        } else {
            Encoding::Utf8 {
                bom: bytes.starts_with(UTF8_BOM),
            }
        }
    }

    /// The name reported in the `encoding` field of errors.
    pub fn name(self) -> &'static str {
        match self {
            Encoding::Utf8 { bom: false } => "utf-8",
            Encoding::Utf8 { bom: true } => "utf-8-bom",
            Encoding::Utf16Le => "utf-16le",
            Encoding::Utf16Be => "utf-16be",
        }
    }

    pub fn is_utf16(self) -> bool {
        matches!(self, Encoding::Utf16Le | Encoding::Utf16Be)
    }
}

/// A NUL byte in the first or last 8000 bytes, unless the file starts with a UTF-16 BOM.
pub fn looks_binary(bytes: &[u8]) -> bool {
    if Encoding::detect(bytes).is_utf16() {
        return false;
    }
    let head = &bytes[..bytes.len().min(BINARY_PROBE_BYTES)];
    let tail = &bytes[bytes.len().saturating_sub(BINARY_PROBE_BYTES)..];
    head.contains(&0) || tail.contains(&0)
}

/// Decoded file text (BOM stripped, terminators untouched) and where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decoded {
    pub text: String,
    pub encoding: Encoding,
    /// Invalid UTF-8 was replaced with U+FFFD: fine to display, never to write back.
    pub lossy: bool,
}

/// Decodes bytes by their BOM; invalid UTF-8 is replaced (and flagged as `lossy`).
pub fn decode(bytes: &[u8]) -> Decoded {
    let encoding = Encoding::detect(bytes);
    let (text, lossy) = match encoding {
        Encoding::Utf8 { bom } => {
            let body = if bom { &bytes[UTF8_BOM.len()..] } else { bytes };
            match String::from_utf8_lossy(body) {
                Cow::Borrowed(s) => (s.to_string(), false),
                Cow::Owned(s) => (s, true),
            }
        }
        Encoding::Utf16Le | Encoding::Utf16Be => {
            let codec = if encoding == Encoding::Utf16Le {
                encoding_rs::UTF_16LE
            } else {
                encoding_rs::UTF_16BE
            };
            let (text, had_errors) = codec.decode_without_bom_handling(&bytes[2..]);
            (text.into_owned(), had_errors)
        }
    };
    Decoded {
        text,
        encoding,
        lossy,
    }
}

/// Reads a regular file under the `maxFileBytes` cap.
/// Errors: `not_found`, `not_a_file` (a directory), `too_large` (with `size` and `limit`).
pub fn read_capped(path: &WorkPath, config: &Config) -> ToolResult<Vec<u8>> {
    let meta = fs::metadata(&path.abs).map_err(|e| io_err(e, &path.display))?;
    if meta.is_dir() {
        return Err(ToolError::new(
            ErrorCode::NotAFile,
            format!(
                "Not a file: {} is a directory. Use list_dir to see its entries.",
                path.display
            ),
        )
        .with("path", path.display.as_str()));
    }
    if meta.len() > config.max_file_bytes {
        return Err(too_large(&path.display, meta.len(), config.max_file_bytes));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    let file = fs::File::open(&path.abs).map_err(|e| io_err(e, &path.display))?;
    // Read at most one byte past the cap: the file may have grown since the stat.
    file.take(config.max_file_bytes + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| io_err(e, &path.display))?;
    if bytes.len() as u64 > config.max_file_bytes {
        return Err(too_large(
            &path.display,
            bytes.len() as u64,
            config.max_file_bytes,
        ));
    }
    Ok(bytes)
}

/// The `too_large` error with its `size` and `limit` fields.
pub fn too_large(display: &str, size: u64, limit: u64) -> ToolError {
    ToolError::new(
        ErrorCode::TooLarge,
        format!(
            "File too large: {display} is {size} bytes, over the {limit}-byte limit (maxFileBytes). Search it with grep instead, or raise maxFileBytes."
        ),
    )
    .with("path", display)
    .with("size", size)
    .with("limit", limit)
}

/// The `is_binary` error for a file with NUL bytes.
pub fn binary_error(display: &str) -> ToolError {
    ToolError::new(
        ErrorCode::IsBinary,
        format!(
            "{display} looks like a binary file (it contains NUL bytes); it is not shown as text."
        ),
    )
    .with("path", display)
}

/// Reads and decodes a text file for display: the capped read, then binary refusal.
pub fn read_text(path: &WorkPath, config: &Config) -> ToolResult<Decoded> {
    let bytes = read_capped(path, config)?;
    if looks_binary(&bytes) {
        return Err(binary_error(&path.display));
    }
    Ok(decode(&bytes))
}

/// Splits text into `(line, terminator)` pairs; terminators are `\r\n`, `\n` or a lone `\r`,
/// and the last line's terminator may be empty. Text ending in a terminator has no empty
/// last line, and empty text has no lines.
pub fn split_lines(text: &str) -> Lines<'_> {
    Lines { rest: text }
}

pub struct Lines<'a> {
    rest: &'a str,
}

impl<'a> Iterator for Lines<'a> {
    type Item = (&'a str, &'a str);

    fn next(&mut self) -> Option<Self::Item> {
        if self.rest.is_empty() {
            return None;
        }
        let bytes = self.rest.as_bytes();
        let (line, term, used) = match memchr_eol(bytes) {
            Some(i) if bytes[i] == b'\r' && bytes.get(i + 1) == Some(&b'\n') => {
                (&self.rest[..i], &self.rest[i..i + 2], i + 2)
            }
            Some(i) => (&self.rest[..i], &self.rest[i..i + 1], i + 1),
            None => (self.rest, "", self.rest.len()),
        };
        self.rest = &self.rest[used..];
        Some((line, term))
    }
}

fn memchr_eol(bytes: &[u8]) -> Option<usize> {
    memchr::memchr2(b'\n', b'\r', bytes)
}

/// Every terminator (`\r\n`, lone `\r`) turned into `\n`.
pub fn normalize_newlines(text: &str) -> Cow<'_, str> {
    if !text.contains('\r') {
        return Cow::Borrowed(text);
    }
    Cow::Owned(text.replace("\r\n", "\n").replace('\r', "\n"))
}

/// Cuts `line` to at most `max_chars` characters; returns the kept prefix and whether it cut.
pub fn cut_chars(line: &str, max_chars: usize) -> (&str, bool) {
    match line.char_indices().nth(max_chars) {
        Some((byte, _)) => (&line[..byte], true),
        None => (line, false),
    }
}

// ---------------------------------------------------------------------------------------------
// Editing: the text the mutating tools rewrite, and how it goes back to bytes.

/// A file the editing tools may rewrite: valid UTF-8, its BOM (if any) stripped and remembered,
/// every line terminator untouched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Editable {
    pub bom: bool,
    pub text: String,
}

impl Editable {
    /// The bytes to write back: the BOM again (if the file had one), then the text.
    pub fn into_bytes(self) -> Vec<u8> {
        encode_utf8(self.bom, self.text)
    }
}

/// UTF-8 bytes of `text`, preceded by a BOM when `bom` is set.
pub fn encode_utf8(bom: bool, text: String) -> Vec<u8> {
    if !bom {
        return text.into_bytes();
    }
    let mut out = Vec::with_capacity(UTF8_BOM.len() + text.len());
    out.extend_from_slice(UTF8_BOM);
    out.extend_from_slice(text.as_bytes());
    out
}

/// Decodes a file for editing, refusing what could not be written back byte-exactly:
/// binary files (`is_binary`), UTF-16 (`is_binary` with `encoding`), and bytes that are not
/// valid UTF-8 (`is_binary` with `encoding: "non-utf-8"` and the offending line): editing
/// those through a UTF-8 view would replace them with U+FFFD. Takes the bytes by value so a
/// valid UTF-8 file is not copied.
pub fn decode_editable(bytes: Vec<u8>, display: &str) -> ToolResult<Editable> {
    if looks_binary(&bytes) {
        return Err(binary_error(display));
    }
    let encoding = Encoding::detect(&bytes);
    if encoding.is_utf16() {
        return Err(ToolError::new(
            ErrorCode::IsBinary,
            format!(
                "{display} is {} text; the editing tools only rewrite UTF-8 files (read_file can show it). Convert it to UTF-8 first (e.g. with iconv through bash), or change it with bash.",
                if encoding == Encoding::Utf16Le { "UTF-16LE" } else { "UTF-16BE" }
            ),
        )
        .with("path", display)
        .with("encoding", encoding.name()));
    }
    let bom = bytes.starts_with(UTF8_BOM);
    let mut bytes = bytes;
    if bom {
        bytes.drain(..UTF8_BOM.len());
    }
    match String::from_utf8(bytes) {
        Ok(text) => Ok(Editable { bom, text }),
        Err(e) => {
            let at = e.utf8_error().valid_up_to();
            let body = e.as_bytes();
            let line = 1 + body[..at].iter().filter(|&&b| b == b'\n').count();
            Err(ToolError::new(
                ErrorCode::IsBinary,
                format!(
                    "{display} is not valid UTF-8 (byte 0x{:02X} on line {line}; probably Latin-1, Windows-1252 or Shift_JIS). The editing tools refuse to rewrite it, because those bytes would be replaced with U+FFFD. Convert it to UTF-8 first (e.g. iconv -f latin1 -t utf-8 through bash), or change it with bash.",
                    body[at]
                ),
            )
            .with("path", display)
            .with("encoding", "non-utf-8")
            .with("line", line))
        }
    }
}

/// The terminator new lines get: the most frequent of `\n`, `\r\n` and lone `\r` in `text`
/// (ties go to `\n`, then `\r\n`); `\n` when the text has none.
pub fn dominant_terminator(text: &str) -> &'static str {
    let (mut lf, mut crlf, mut cr) = (0usize, 0usize, 0usize);
    let bytes = text.as_bytes();
    let mut i = 0;
    while let Some(off) = memchr_eol(&bytes[i..]) {
        let at = i + off;
        if bytes[at] == b'\n' {
            lf += 1;
            i = at + 1;
        } else if bytes.get(at + 1) == Some(&b'\n') {
            crlf += 1;
            i = at + 2;
        } else {
            cr += 1;
            i = at + 1;
        }
    }
    if crlf > lf && crlf >= cr {
        "\r\n"
    } else if cr > lf && cr > crlf {
        "\r"
    } else {
        "\n"
    }
}

/// A text with every terminator seen as `\n` (what matching works on), plus the way back to
/// offsets in the original text. Borrowed, with an identity mapping, when there is no `\r`.
pub struct NewlineView<'a> {
    original: &'a str,
    normalized: Cow<'a, str>,
    /// Normalized offsets of the `\n`s that stand for a `\r\n`, ascending.
    crlf_at: Vec<usize>,
}

impl<'a> NewlineView<'a> {
    pub fn new(original: &'a str) -> Self {
        if !original.contains('\r') {
            return NewlineView {
                original,
                normalized: Cow::Borrowed(original),
                crlf_at: Vec::new(),
            };
        }
        let mut normalized = String::with_capacity(original.len());
        let mut crlf_at = Vec::new();
        let mut rest = original;
        while let Some(i) = rest.find('\r') {
            normalized.push_str(&rest[..i]);
            if rest.as_bytes().get(i + 1) == Some(&b'\n') {
                crlf_at.push(normalized.len());
                rest = &rest[i + 2..];
            } else {
                rest = &rest[i + 1..];
            }
            normalized.push('\n');
        }
        normalized.push_str(rest);
        NewlineView {
            original,
            normalized: Cow::Owned(normalized),
            crlf_at,
        }
    }

    /// The text with every terminator as `\n`.
    pub fn text(&self) -> &str {
        &self.normalized
    }

    /// The original offset of normalized offset `n`. An offset just after a `\n` that stands
    /// for `\r\n` lands after the `\n` of the pair; one at it lands on the `\r`.
    pub fn to_original(&self, n: usize) -> usize {
        n + self.crlf_at.partition_point(|&p| p < n)
    }

    /// Replaces normalized ranges with new text (written with `\n`), keeping every byte outside
    /// them. Ranges must be ascending and disjoint. Within a replaced range, terminators are
    /// assigned by [`replacement_terminators`]: lines that correspond to replaced lines keep
    /// their own terminator, added lines get `dominant`.
    pub fn splice(&self, replacements: &[(usize, usize, &str)], dominant: &str) -> String {
        let mut out = self.original.to_string();
        apply_rendered(&mut out, self.render(replacements, dominant));
        out
    }

    /// The replacements of [`NewlineView::splice`] in original offsets, each with its text
    /// rendered with terminators, ready for [`apply_rendered`] once the view is dropped.
    pub fn render(&self, replacements: &[(usize, usize, &str)], dominant: &str) -> Vec<Rendered> {
        replacements
            .iter()
            .map(|&(start, end, new)| {
                let (ostart, oend) = (self.to_original(start), self.to_original(end));
                let mut text = String::with_capacity(new.len());
                push_with_terminators(
                    &mut text,
                    &self.original[ostart..oend],
                    new,
                    dominant,
                    self.original[..ostart].ends_with('\r'),
                    self.original[oend..].starts_with('\n'),
                );
                Rendered {
                    start: ostart,
                    end: oend,
                    text,
                }
            })
            .collect()
    }
}

/// One replacement in original offsets, its text already carrying the right terminators.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rendered {
    pub start: usize,
    pub end: usize,
    pub text: String,
}

/// Applies ascending, disjoint replacements to `text`. A single one is done in place, so an
/// edit near the end of a large file moves only the bytes after it.
pub fn apply_rendered(text: &mut String, rendered: Vec<Rendered>) {
    if let [one] = rendered.as_slice() {
        text.replace_range(one.start..one.end, &one.text);
        return;
    }
    let mut out = String::with_capacity(text.len() + 64);
    let mut done = 0;
    for r in &rendered {
        out.push_str(&text[done..r.start]);
        out.push_str(&r.text);
        done = r.end;
    }
    out.push_str(&text[done..]);
    *text = out;
}

/// Writes `new` (lines joined by `\n`) in place of `old` (the original text of the replaced
/// region, with its own terminators), choosing each new line's terminator. `after_cr` says the
/// text before the region ends in `\r`, `before_lf` that the text after it starts with `\n`:
/// a lone `\r` directly followed by `\n` would read as one CRLF and swallow a line, so such a
/// `\n` (or lone `\r`) terminator is written as `\r\n` instead.
fn push_with_terminators(
    out: &mut String,
    old: &str,
    new: &str,
    dominant: &str,
    after_cr: bool,
    before_lf: bool,
) {
    if !new.contains('\n') {
        out.push_str(new);
        return;
    }
    let old_segments: Vec<(&str, &str)> = segments(old);
    let new_segments: Vec<&str> = new.split('\n').collect();
    let old_lines: Vec<&str> = old_segments.iter().map(|(l, _)| *l).collect();
    let old_terms: Vec<&str> = old_segments
        .iter()
        .filter(|(_, t)| !t.is_empty())
        .map(|(_, t)| *t)
        .collect();
    let mut terms = replacement_terminators(&old_lines, &old_terms, &new_segments, dominant);
    let mut prev_cr = after_cr;
    for (i, term) in terms.iter_mut().enumerate() {
        if !new_segments[i].is_empty() {
            prev_cr = false;
        }
        if prev_cr && *term == "\n" {
            *term = "\r\n";
        }
        prev_cr = *term == "\r";
    }
    if let Some(last) = terms.last_mut() {
        let ends_region = new_segments.last().is_some_and(|s| s.is_empty());
        if ends_region && before_lf && *last == "\r" {
            *last = "\r\n";
        }
    }
    for (i, seg) in new_segments.iter().enumerate() {
        out.push_str(seg);
        if let Some(t) = terms.get(i) {
            out.push_str(t);
        }
    }
}

/// `text` cut at every terminator: `(segment, terminator)` pairs, the last one with an empty
/// terminator (so `k` terminators give `k + 1` segments, the last possibly empty).
fn segments(text: &str) -> Vec<(&str, &str)> {
    let mut out: Vec<(&str, &str)> = split_lines(text).collect();
    if out.last().is_none_or(|(_, t)| !t.is_empty()) {
        out.push(("", ""));
    }
    out
}

/// The terminator of each of the `new.len() - 1` line breaks in a replacement, given the
/// replaced region's segments (`old`, one more than `old_terms`). Breaks after a run of equal
/// leading segments keep the matching old terminator, as do breaks before a run of equal
/// trailing segments; the breaks in between keep the old terminator at the same position while
/// there is one, and the rest (lines added by the edit) get `dominant`. (Two regions that
/// merely both end in a line break do not count as a trailing run.)
pub fn replacement_terminators<'t>(
    old: &[&str],
    old_terms: &[&'t str],
    new: &[&str],
    dominant: &'t str,
) -> Vec<&'t str> {
    let k = old_terms.len();
    let m = new.len().saturating_sub(1);
    let both = k.min(m);
    let p = (0..both).take_while(|&i| old[i] == new[i]).count();
    let mut s = (0..both - p)
        .take_while(|&i| old[old.len() - 1 - i] == new[new.len() - 1 - i])
        .count();
    // Both ending in a line break says nothing about which lines correspond.
    if s == 1 && old[old.len() - 1].is_empty() {
        s = 0;
    }
    (0..m)
        .map(|j| {
            if j < p {
                old_terms[j]
            } else if j >= m - s {
                old_terms[k - (m - j)]
            } else if j < k - s {
                old_terms[j]
            } else {
                dominant
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binary_detection_probes_both_ends_and_spares_utf16() {
        assert!(looks_binary(b"ab\0cd"));
        let mut big = vec![b'a'; 20_000];
        big[19_999] = 0;
        assert!(looks_binary(&big));
        big[19_999] = b'a';
        big[10_000] = 0;
        assert!(!looks_binary(&big), "a NUL in the middle is not probed");
        assert!(!looks_binary(b"\xFF\xFEa\0b\0"));
    }

    #[test]
    fn decodes_boms() {
        let d = decode(b"\xEF\xBB\xBFhi");
        assert_eq!(d.text, "hi");
        assert_eq!(d.encoding, Encoding::Utf8 { bom: true });
        let d = decode(b"\xFF\xFEh\0i\0");
        assert_eq!((d.text.as_str(), d.encoding), ("hi", Encoding::Utf16Le));
        let d = decode(b"\xFE\xFF\0h\0i");
        assert_eq!((d.text.as_str(), d.encoding), ("hi", Encoding::Utf16Be));
        let d = decode(b"caf\xE9");
        assert!(d.lossy);
        assert_eq!(d.text, "caf\u{FFFD}");
    }

    #[test]
    fn lines_keep_their_terminators() {
        let got: Vec<_> = split_lines("a\r\nb\rc\nd").collect();
        assert_eq!(got, [("a", "\r\n"), ("b", "\r"), ("c", "\n"), ("d", "")]);
        assert_eq!(split_lines("").count(), 0);
        assert_eq!(split_lines("\n").collect::<Vec<_>>(), [("", "\n")]);
        assert_eq!(split_lines("x\n").count(), 1);
    }

    #[test]
    fn editable_refuses_what_it_cannot_write_back() {
        let e = decode_editable(b"\xEF\xBB\xBFhi\r\n".to_vec(), "a").unwrap();
        assert_eq!((e.bom, e.text.as_str()), (true, "hi\r\n"));
        assert_eq!(e.into_bytes(), b"\xEF\xBB\xBFhi\r\n");
        let e = decode_editable(b"\xFF\xFEh\0".to_vec(), "a").unwrap_err();
        assert_eq!(
            (e.code, &e.fields["encoding"]),
            (ErrorCode::IsBinary, &"utf-16le".into())
        );
        let e = decode_editable(b"ok\ncaf\xE9\n".to_vec(), "a").unwrap_err();
        assert_eq!(e.fields["encoding"], "non-utf-8");
        assert_eq!(e.fields["line"], 2);
        assert!(e.message.contains("0xE9"), "{}", e.message);
        let e = decode_editable(b"a\0b".to_vec(), "a").unwrap_err();
        assert_eq!(e.code, ErrorCode::IsBinary);
    }

    #[test]
    fn dominant_terminators() {
        assert_eq!(dominant_terminator("a"), "\n");
        assert_eq!(dominant_terminator("a\r\nb\r\nc\n"), "\r\n");
        assert_eq!(dominant_terminator("a\r\nb\n"), "\n");
        assert_eq!(dominant_terminator("a\rb\rc\r\n"), "\r");
    }

    #[test]
    fn newline_view_maps_offsets_back() {
        let v = NewlineView::new("ab\r\ncd\ref\r\n");
        assert_eq!(v.text(), "ab\ncd\nef\n");
        assert_eq!(v.to_original(2), 2);
        assert_eq!(v.to_original(3), 4);
        assert_eq!(v.to_original(6), 7);
        assert_eq!(v.to_original(10), 12);
        let v = NewlineView::new("plain\n");
        assert!(matches!(v.normalized, Cow::Borrowed(_)));
    }

    #[test]
    fn splice_keeps_untouched_and_corresponding_terminators() {
        // Mixed file: the edited line keeps its own lone-CR terminator; the added one gets the
        // dominant CRLF; everything else is untouched.
        let orig = "a\r\nb\rc\r\nd\n";
        let v = NewlineView::new(orig);
        let start = v.text().find("b\n").unwrap();
        let out = v.splice(&[(start, start + 2, "B\nB2\n")], dominant_terminator(orig));
        assert_eq!(out, "a\r\nB\rB2\r\nc\r\nd\n");
        // Inserting a line above keeps the following lines' terminators by alignment.
        let orig = "x\ny\r\nz";
        let v = NewlineView::new(orig);
        let out = v.splice(&[(0, 4, "new\nx\ny\n")], "\n");
        assert_eq!(out, "new\nx\ny\r\nz");
        // Deleting lines.
        let v = NewlineView::new("1\r2\r3\r");
        assert_eq!(v.splice(&[(2, 4, "")], "\r"), "1\r3\r");
    }

    #[test]
    fn a_lone_cr_never_meets_an_lf() {
        // The kept lone CR of "b" is followed by an added empty line: its LF becomes CRLF.
        let v = NewlineView::new("b\ra\n");
        assert_eq!(v.splice(&[(0, 2, "\n\n")], "\n"), "\r\r\na\n");
        // The text before the region ends in a lone CR.
        let v = NewlineView::new("x\ry");
        assert_eq!(v.splice(&[(2, 3, "\nz")], "\n"), "x\r\r\nz");
        // A CR-dominant replacement ending right before an untouched LF.
        let v = NewlineView::new("p\rq\n");
        assert_eq!(v.splice(&[(3, 3, "x\n")], "\r"), "p\rqx\r\n\n");
    }

    #[test]
    fn terminator_alignment() {
        let t = replacement_terminators(&["a", "b", ""], &["\r", "\n"], &["z", "a", "b", ""], "X");
        assert_eq!(t, ["X", "\r", "\n"]);
        let t = replacement_terminators(&["a", ""], &["\r"], &["q", "r", ""], "X");
        assert_eq!(t, ["\r", "X"]);
    }

    #[test]
    fn normalizes_and_cuts() {
        assert_eq!(normalize_newlines("a\r\nb\rc"), "a\nb\nc");
        assert_eq!(cut_chars("héllo", 2), ("hé", true));
        assert_eq!(cut_chars("hé", 2), ("hé", false));
    }
}
