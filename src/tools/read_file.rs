//! `read_file`: a text file with line numbers, paged by `offset` / `limit`, with tail reads.

use schemars::JsonSchema;
use serde::Deserialize;

use super::Tool;
use crate::call::Ctx;
use crate::code::{self, indent};
use crate::config::Config;
use crate::error::{ToolError, ToolResult};
use crate::output::Output;
use crate::paths;
use crate::text::{self, cut_chars, split_byte_lines, split_lines};

/// Lines returned when `limit` is not given.
pub const DEFAULT_LIMIT: usize = 2000;
/// Characters kept of one line; the rest is cut with [`LINE_CUT_MARKER`].
pub const MAX_LINE_CHARS: usize = 2000;

/// A row never looks past this many bytes of its line ([`push_row`]): the characters it may
/// keep, and one more.
pub(crate) const ROW_LOOKS_AT: usize = MAX_LINE_CHARS * 4 + 4;
pub const LINE_CUT_MARKER: &str = " [... line truncated ...]";

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// File to read: relative to the workspace root, or absolute.
    pub path: String,
    /// 1-based line to start at. A negative value counts from the end (-20 reads the last 20
    /// lines). 0 is invalid.
    pub offset: Option<i64>,
    /// Maximum number of lines to return (default 2000).
    #[schemars(range(min = 1))]
    pub limit: Option<i64>,
    /// "slice" (default): lines from offset. "indentation": the code block around anchor_line,
    /// found by indentation (exact for languages with a grammar).
    pub mode: Option<Mode>,
    /// Indentation mode: the line to build the block around (default: offset, else 1).
    #[schemars(range(min = 1))]
    pub anchor_line: Option<i64>,
    /// Indentation mode: enclosing levels to add (their header and closing lines): 0 (default)
    /// = only the anchor's block, 1 = also its parent class or function, and so on.
    #[schemars(range(min = 0))]
    pub max_levels: Option<i64>,
    /// Indentation mode: also include the sibling blocks beside the outermost selected block
    /// (default false).
    pub include_siblings: Option<bool>,
    /// Indentation mode: include the comments, doc comments, decorators and attributes directly
    /// above each block (default true).
    pub include_header: Option<bool>,
    /// Indentation mode: most lines to return, those nearest the anchor kept (default: limit).
    #[schemars(range(min = 1))]
    pub max_lines: Option<i64>,
}

/// How read_file selects lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    Slice,
    Indentation,
}

/// The indentation mode's arguments: the engine's, beyond both contracts (the codex surface's
/// `read_file` modes use them), so offered only with `extras`.
pub const INDENTATION_ARGS: &[&str] = &[
    "mode",
    "anchor_line",
    "max_levels",
    "include_siblings",
    "include_header",
    "max_lines",
];

pub struct ReadFile;

impl Tool for ReadFile {
    const NAME: &'static str = "read_file";
    const DESCRIPTION: &'static str = "Read a text file (UTF-8, or UTF-16 with a byte-order mark) and return its lines, each prefixed with its line number and a tab. Use this to look at a file before editing it; page through a long file with offset and limit (a footer says where to continue), or read the end with a negative offset (-50 = the last 50 lines). Lines longer than 2000 characters are cut. The line-number prefixes are not part of the file: never copy them into edit_file's old_string. To find which file holds something, use grep or glob instead; to see a directory, use list_dir.";
    const MUTATING: bool = false;
    const TITLE: &'static str = "Read file";
    const BOUNDED: bool = true;
    const SEED_HIDDEN_ARGS: &'static [&'static str] = INDENTATION_ARGS;
    const EXTRA_ARGS: &'static [&'static str] = INDENTATION_ARGS;
    type Args = Args;

    fn run(args: Args, ctx: &Ctx) -> ToolResult<Output> {
        let config: &Config = ctx;
        // A large UTF-8 file's lines are counted piece by piece as it is read, while each piece
        // is in the cache, rather than in a second pass over all of it.
        let mut lines = ReadIndex::default();
        let (path, bytes) = paths::resolve_for_read(config, &args.path, |path| {
            text::read_capped_with(path, config, &mut |so_far, done| lines.read(so_far, done))
        })?;
        if text::looks_binary(&bytes) {
            return Err(text::binary_error(&path.display));
        }
        // `0` (allowed by the newest contract's schema) means the default.
        let limit = match args.limit {
            None | Some(0) => DEFAULT_LIMIT,
            Some(l) => l as usize,
        };
        if args.mode == Some(Mode::Indentation) {
            return indentation(&args, &path.display, config, &bytes, limit);
        }
        let rows = RowRules::of(config);
        page(&bytes, args.offset, limit, rows, lines.lines).map(Output::text)
    }
}

/// The line index of a file's UTF-8 body, built from the bytes read so far as they arrive.
#[derive(Default)]
struct ReadIndex {
    lines: text::IndexBuilder,
    /// Where the body starts (after a BOM), once known; `Some(None)`: the file is UTF-16.
    body_at: Option<Option<usize>>,
}

impl ReadIndex {
    fn read(&mut self, so_far: &[u8], done: bool) {
        // Three bytes tell the encoding (its BOM) for good.
        if self.body_at.is_none() && (so_far.len() >= 3 || done) {
            self.body_at = Some(text::utf8_body(so_far).map(|body| so_far.len() - body.len()));
        }
        if let Some(Some(at)) = self.body_at {
            self.lines.feed(&so_far[at..], done);
        }
    }
}

/// Indentation mode: the code block around the anchor line (the file decoded whole).
fn indentation(
    args: &Args,
    display: &str,
    config: &Config,
    bytes: &[u8],
    limit: usize,
) -> ToolResult<Output> {
    let decoded = text::decode(bytes);
    let lines: Vec<&str> = split_lines(&decoded.text).map(|(line, _)| line).collect();
    if lines.is_empty() {
        return Ok(Output::text("(empty file)"));
    }
    let anchor_line = match (args.anchor_line, args.offset) {
        (Some(a), _) => a,
        (None, Some(o)) if o > 0 => o,
        _ => 1,
    };
    let opts = indent::Options {
        anchor_line: anchor_line.max(0) as usize,
        max_levels: args.max_levels.unwrap_or(0).max(0) as usize,
        include_siblings: args.include_siblings.unwrap_or(false),
        include_header: args.include_header.unwrap_or(true),
        max_lines: match args.max_lines {
            None | Some(0) => limit,
            Some(m) => m.max(1) as usize,
        },
    };
    let selection = code::indentation_block(config, display, &decoded.text, &lines, opts)?;
    Ok(render_block(&lines, &selection, RowRules::of(config)).into())
}

/// How rows are fitted to `maxOutputBytes`.
#[derive(Debug, Clone, Copy)]
struct RowRules {
    max_bytes: usize,
    /// The newest contract (CONTRACT-v0.5-wording §2): a line longer than the budget is cut
    /// to it with the line-truncated marker, and a row costs its bytes plus its newline.
    newest: bool,
}

impl RowRules {
    fn of(config: &Config) -> RowRules {
        RowRules {
            max_bytes: config.max_output_bytes as usize,
            newest: config.profile == crate::config::Profile::Current,
        }
    }

    /// The room a row must leave for what follows it (a footer), and the byte cap a single
    /// line is cut to.
    fn room_and_cut(&self, footer_room: usize) -> (usize, Option<usize>) {
        if self.newest {
            (1, Some(self.max_bytes))
        } else {
            (footer_room, None)
        }
    }
}

/// The page of a file's `bytes` (already refused when binary) that `offset` and `limit` select.
/// `lines` is the UTF-8 body's index if it was built while reading (else it is built here).
fn page(
    bytes: &[u8],
    offset: Option<i64>,
    limit: usize,
    rules: RowRules,
    lines: text::IndexBuilder,
) -> ToolResult<String> {
    let Some(body) = text::utf8_body(bytes) else {
        // UTF-16 is decoded whole, then paged like UTF-8.
        let decoded = text::decode(bytes);
        let lines: Vec<&str> = split_lines(&decoded.text).map(|(line, _)| line).collect();
        if lines.is_empty() {
            return Ok("(empty file)".into());
        }
        let start = first_line(offset, lines.len())?;
        let rows = lines[start..].iter().map(|line| line.as_bytes());
        return Ok(render(rows, start, lines.len(), limit, rules));
    };
    // UTF-8: count the lines and find the page's first byte without splitting or decoding the
    // file; only the page's lines are decoded.
    let lines = if lines.covers(body.len()) {
        lines.finish(body)
    } else {
        text::LineIndex::new(body)
    };
    if lines.total == 0 {
        return Ok("(empty file)".into());
    }
    let start = first_line(offset, lines.total)?;
    let rows = split_byte_lines(&body[lines.start(start)..]).map(|(line, _)| line);
    Ok(render(rows, start, lines.total, limit, rules))
}

/// The 0-based index of the first line to show.
fn first_line(offset: Option<i64>, total: usize) -> ToolResult<usize> {
    match offset.unwrap_or(1) {
        0 => Err(ToolError::invalid_input(
            "offset must be non-zero: use a positive 1-indexed line, or a negative tail offset.",
        )),
        n if n > 0 => {
            let n = n as u64;
            if n > total as u64 {
                return Err(ToolError::invalid_input(format!(
                    "offset {n} exceeds file line count {total}; read from offset 1..{total}"
                ))
                .with("line_count", total));
            }
            Ok(n as usize - 1)
        }
        n => Ok(total.saturating_sub(n.unsigned_abs().min(total as u64) as usize)),
    }
}

/// Appends one numbered row, as both modes print it — the line number right-aligned in 6
/// columns, a tab, the line's bytes (invalid UTF-8 shown as U+FFFD) cut to [`MAX_LINE_CHARS`]
/// characters — after a `\n` unless it is the first. A row that would leave less than `room`
/// of `max_bytes` is taken back (`false`), unless it is the first: one row is always shown.
/// With `cut_to`, a line whose row would pass that many bytes is cut to fit it (on a
/// character boundary) and marked, as the newest contract does: no row exceeds the cap.
pub(crate) fn push_row(
    out: &mut String,
    number: usize,
    line: &[u8],
    room: usize,
    max_bytes: usize,
    cut_to: Option<usize>,
) -> bool {
    let mark = out.len();
    if mark > 0 {
        out.push('\n');
    }
    let mut digits = [b' '; 20];
    let (mut at, mut n) = (digits.len(), number);
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    let digits = &digits[at.min(digits.len() - 6)..];
    out.push_str(std::str::from_utf8(digits).unwrap_or_default());
    out.push('\t');
    // The kept characters take at most 4 bytes each, and whether a character decodes (and
    // how) depends on at most its 4 bytes: decoding a few bytes past them gives exactly the
    // kept text of the whole line, and at least one character more when the line is cut.
    let prefix = &line[..line.len().min(ROW_LOOKS_AT)];
    let decoded = String::from_utf8_lossy(prefix);
    let (kept, cut) = if decoded.len() <= MAX_LINE_CHARS {
        (&*decoded, false)
    } else if cut_to.is_some() {
        // The newest contract counts UTF-16 code units (wording §2, "Character cut").
        crate::text::cut_utf16_units(&decoded, MAX_LINE_CHARS)
    } else {
        cut_chars(&decoded, MAX_LINE_CHARS)
    };
    let row_start = out.len();
    out.push_str(kept);
    if cut {
        out.push_str(LINE_CUT_MARKER);
    }
    if let Some(cap) = cut_to {
        // The content may use the cap less the prefix and the newline; past that it keeps
        // `budget - 25` bytes (the marker's length), backed off to a character boundary.
        let prefix_bytes = row_start - mark - usize::from(mark > 0);
        let budget = cap.saturating_sub(prefix_bytes + 1);
        if out.len() - row_start > budget {
            let keep = crate::bound::floor_char_boundary(
                &out[row_start..],
                budget.saturating_sub(LINE_CUT_MARKER.len()),
            );
            out.truncate(row_start + keep);
            out.push_str(LINE_CUT_MARKER);
        }
    }
    if mark > 0 && out.len() + room > max_bytes {
        out.truncate(mark);
        return false;
    }
    true
}

/// Indentation mode's rows: the selected lines, numbered, stopping before `max_bytes` (at least
/// one row), with a footer when the block was cut by max_lines or by the byte budget.
fn render_block(lines: &[&str], selection: &indent::Selection, rules: RowRules) -> String {
    let (room, cut_to) = rules.room_and_cut(128);
    let mut out = String::new();
    let mut shown = 0;
    for &i in &selection.lines {
        if !push_row(
            &mut out,
            i + 1,
            lines[i].as_bytes(),
            room,
            rules.max_bytes,
            cut_to,
        ) {
            break;
        }
        shown += 1;
    }
    if shown < selection.total {
        out.push_str(&format!(
            "\n[... {shown} of {} block lines shown; raise max_lines, or read a range with offset and limit ...]",
            selection.total
        ));
    }
    out
}

/// Numbered rows for `page` (the file's lines from `start` on, of `total`), at most `limit`,
/// stopping before `max_bytes` (but always at least one row), with a continuation footer when
/// lines remain.
fn render<'a>(
    page: impl Iterator<Item = &'a [u8]>,
    start: usize,
    total: usize,
    limit: usize,
    rules: RowRules,
) -> String {
    // The seed keeps room for the footer, so the page plus footer fits in the budget; the
    // newest contract counts only the rows (its footer is outside the budget).
    let (room, cut_to) = rules.room_and_cut(96);
    let mut out = String::new();
    let mut shown = 0;
    for (i, line) in (start..).zip(page.take(limit)) {
        if !push_row(&mut out, i + 1, line, room, rules.max_bytes, cut_to) {
            break;
        }
        shown += 1;
    }
    let next = start + shown;
    if next < total {
        out.push_str(&format!(
            "\n[... {shown} of {total} lines shown; continue with offset={} ...]",
            next + 1
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets() {
        assert_eq!(first_line(None, 5).unwrap(), 0);
        assert_eq!(first_line(Some(5), 5).unwrap(), 4);
        assert_eq!(first_line(Some(-2), 5).unwrap(), 3);
        assert_eq!(first_line(Some(-99), 5).unwrap(), 0);
        let e = first_line(Some(6), 5).unwrap_err();
        assert_eq!(e.fields["line_count"], 5);
        assert!(first_line(Some(0), 5).is_err());
    }

    /// `render` over string lines, from `start`.
    fn render_str(lines: &[&str], start: usize, limit: usize, max_bytes: usize) -> String {
        let rows = lines[start..].iter().map(|l| l.as_bytes());
        let rules = RowRules {
            max_bytes,
            newest: false,
        };
        render(rows, start, lines.len(), limit, rules)
    }

    #[test]
    fn newest_contract_cuts_a_long_line_to_the_cap_on_a_char_boundary() {
        // CONTRACT-v0.5-wording §2: content may use cap - prefix - 1 bytes; past that it keeps
        // (that - 25) bytes, backed off to a character boundary, then the marker.
        for cap in [100usize, 101, 102, 103, 1024] {
            for ch in ["x", "é", "€", "😀"] {
                let line = ch.repeat(3000);
                let rules = RowRules {
                    max_bytes: cap,
                    newest: true,
                };
                let out = render(std::iter::once(line.as_bytes()), 0, 1, 10, rules);
                assert!(out.len() < cap, "{cap} {ch}: {}", out.len());
                let content = out.strip_prefix("     1\t").unwrap();
                let kept = content.strip_suffix(LINE_CUT_MARKER).unwrap();
                let want = (cap - 8 - 25) / ch.len() * ch.len();
                assert_eq!(kept, &line[..want], "{cap} {ch}");
            }
        }
        // The character cut counts UTF-16 units: 2000, or 1999 not to split a pair.
        let rules = RowRules {
            max_bytes: 1 << 20,
            newest: true,
        };
        for (line, kept) in [
            ("😀".repeat(3000), 1000),
            (format!("a{}", "😀".repeat(3000)), 999),
        ] {
            let out = render(std::iter::once(line.as_bytes()), 0, 1, 10, rules);
            let content = out.strip_prefix("     1\t").unwrap();
            let body = content.strip_suffix(LINE_CUT_MARKER).unwrap();
            assert_eq!(body.chars().filter(|&c| c == '😀').count(), kept);
        }
        // A line that fits is left alone, and a row is kept while the rows fit the cap.
        let rules = RowRules {
            max_bytes: 20,
            newest: true,
        };
        let out = render(
            ["abc".as_bytes(), "def".as_bytes(), "ghi".as_bytes()].into_iter(),
            0,
            3,
            10,
            rules,
        );
        assert_eq!(
            out,
            "     1\tabc\n[... 1 of 3 lines shown; continue with offset=2 ...]"
        );
    }

    #[test]
    fn rows_and_footer() {
        let lines = ["a", "b", "c"];
        assert_eq!(
            render_str(&lines, 0, 10, 10_000),
            "     1\ta\n     2\tb\n     3\tc"
        );
        assert_eq!(
            render_str(&lines, 0, 2, 10_000),
            "     1\ta\n     2\tb\n[... 2 of 3 lines shown; continue with offset=3 ...]"
        );
    }

    #[test]
    fn byte_cap_stops_rows_but_shows_one() {
        let long = "x".repeat(600);
        let lines = [long.as_str(), long.as_str(), long.as_str()];
        let out = render_str(&lines, 0, 10, 1024);
        assert!(out.len() <= 1024);
        assert!(out.ends_with("[... 1 of 3 lines shown; continue with offset=2 ...]"));
        let huge = "y".repeat(5000);
        let out = render_str(&[huge.as_str()], 0, 10, 1024);
        assert!(out.contains(LINE_CUT_MARKER));
    }

    /// The implementation before paging by bytes: decode the whole file, split every line,
    /// render the page. The fast path must answer exactly what it answered.
    fn oracle(bytes: &[u8], offset: Option<i64>, limit: usize, max_bytes: usize) -> String {
        let decoded = text::decode(bytes);
        let lines: Vec<&str> = split_lines(&decoded.text).map(|(line, _)| line).collect();
        if lines.is_empty() {
            return "(empty file)".into();
        }
        let total = lines.len();
        let start = match first_line(offset, total) {
            Ok(start) => start,
            Err(e) => return e.envelope(),
        };
        let footer_room = 96;
        let mut out = String::new();
        let mut shown = 0;
        for (i, line) in lines.iter().enumerate().skip(start).take(limit) {
            let (kept, cut) = cut_chars(line, MAX_LINE_CHARS);
            let row = format!(
                "{:>6}\t{}{}",
                i + 1,
                kept,
                if cut { LINE_CUT_MARKER } else { "" }
            );
            let needed = out.len() + usize::from(shown > 0) + row.len() + footer_room;
            if shown > 0 && needed > max_bytes {
                break;
            }
            if shown > 0 {
                out.push('\n');
            }
            out.push_str(&row);
            shown += 1;
        }
        let next = start + shown;
        if next < total {
            out.push_str(&format!(
                "\n[... {shown} of {total} lines shown; continue with offset={} ...]",
                next + 1
            ));
        }
        out
    }

    fn paged(bytes: &[u8], offset: Option<i64>, limit: usize, max_bytes: usize) -> String {
        let rules = RowRules {
            max_bytes,
            newest: false,
        };
        let plain = page(bytes, offset, limit, rules, text::IndexBuilder::default());
        // The index built while reading, from pieces of every size up to 5 bytes.
        let mut read = ReadIndex::default();
        let mut at = 0;
        while at < bytes.len() {
            at = (at + 1 + at % 5).min(bytes.len());
            read.read(&bytes[..at], false);
        }
        read.read(bytes, true);
        let fed = page(bytes, offset, limit, rules, read.lines);
        assert_eq!(
            fed.as_ref().map_err(|e| e.envelope()),
            plain.as_ref().map_err(|e| e.envelope())
        );
        plain.unwrap_or_else(|e| e.envelope())
    }

    /// Every offset from -(n+2) to n+2 and a few limits, compared with the oracle.
    fn check_all_pages(bytes: &[u8]) {
        let n = text::decode(bytes).text.lines().count() as i64 + 2;
        for offset in (-n - 2..=n + 2).map(Some).chain([None]) {
            for limit in [1, 2, 3, 7, DEFAULT_LIMIT] {
                for max_bytes in [200, 100_000] {
                    assert_eq!(
                        paged(bytes, offset, limit, max_bytes),
                        oracle(bytes, offset, limit, max_bytes),
                        "bytes {bytes:?} offset {offset:?} limit {limit} max {max_bytes}"
                    );
                }
            }
        }
    }

    #[test]
    fn pages_crlf_lone_cr_bom_and_an_unterminated_last_line() {
        for case in [
            &b""[..],
            b"\xEF\xBB\xBF",
            b"\n",
            b"\r",
            b"\r\n",
            b"\n\r",
            b"\r\r\n\n",
            b"a",
            b"a\n",
            b"a\r\nb\rc\n",
            b"\xEF\xBB\xBFa\r\nb\rc\nd",
            b"one\r\n\r\ntwo\r\n",
            b"x\ry\rz",
            b"caf\xE9\n\xC3\n\xE2\x82\nend",
            "h\u{e9}llo\r\nw\u{f6}rld\u{1F600}\n".as_bytes(),
        ] {
            check_all_pages(case);
        }
        assert_eq!(paged(b"\xEF\xBB\xBF", None, 10, 1000), "(empty file)");
        assert_eq!(
            paged(b"\xEF\xBB\xBFa\r\nb\rc", Some(-2), 10, 1000),
            "     2\tb\n     3\tc"
        );
        assert_eq!(
            paged(b"a\r\nb\r\nc\r\n", Some(2), 1, 1000),
            "     2\tb\n[... 1 of 3 lines shown; continue with offset=3 ...]"
        );
    }

    #[test]
    fn long_lines_are_cut_as_before_whatever_their_bytes() {
        let mut rng = crate::testutil::XorShift::new(0x5eed);
        let pieces: [&[u8]; 6] = [
            b"x",
            "\u{e9}".as_bytes(),
            "\u{1F600}".as_bytes(),
            b"\xF0\x9F",
            b"\xFF",
            b"\xE2\x82",
        ];
        for len in [1999, 2000, 2001, 2100, 4000, 9000] {
            for _ in 0..8 {
                let mut line = Vec::new();
                while line.len() < len {
                    line.extend_from_slice(pieces[rng.below(pieces.len())]);
                }
                line.extend_from_slice(b"\nshort\n");
                for offset in [None, Some(-1), Some(-2)] {
                    assert_eq!(
                        paged(&line, offset, 10, 100_000),
                        oracle(&line, offset, 10, 100_000)
                    );
                }
            }
        }
    }

    #[test]
    fn random_files_page_exactly_as_before() {
        let mut rng = crate::testutil::XorShift::new(42);
        let pieces: [&[u8]; 10] = [
            b"a",
            b"bc",
            b"\n",
            b"\r",
            b"\r\n",
            b"\t",
            "\u{e9}".as_bytes(),
            b"\xFF",
            b"\xC3",
            b"  ",
        ];
        for _ in 0..300 {
            let mut bytes = Vec::new();
            if rng.below(4) == 0 {
                bytes.extend_from_slice(b"\xEF\xBB\xBF");
            }
            for _ in 0..rng.below(40) {
                bytes.extend_from_slice(pieces[rng.below(pieces.len())]);
            }
            check_all_pages(&bytes);
        }
    }

    #[test]
    fn big_files_find_the_page_from_the_block_index() {
        // More than one 64 KiB block, with CRLF pairs, lone CRs and a pair across every block
        // boundary the forward count may pick.
        let mut rng = crate::testutil::XorShift::new(7);
        let terms: [&[u8]; 3] = [b"\n", b"\r\n", b"\r"];
        let mut bytes = Vec::new();
        let mut n = 0;
        while bytes.len() < 300_000 {
            n += 1;
            bytes.extend_from_slice(format!("line {n}").as_bytes());
            bytes.extend_from_slice(&b"y".repeat(rng.below(60)));
            bytes.extend_from_slice(terms[rng.below(3)]);
        }
        let lines = text::LineIndex::new(&bytes);
        let total = lines.total;
        assert_eq!(total, n);
        for start in (0..total)
            .step_by(997)
            .chain([total - 1, total / 2, total / 2 + 1])
        {
            let at = lines.start(start);
            let want: usize = text::split_byte_lines(&bytes)
                .take(start)
                .map(|(l, t)| l.len() + t.len())
                .sum();
            assert_eq!(at, want, "line {start}");
        }
        for offset in [
            1,
            2,
            1000,
            total as i64 / 2,
            total as i64 - 3,
            -1,
            -50,
            -(total as i64) / 3,
        ] {
            assert_eq!(
                paged(&bytes, Some(offset), 20, 100_000),
                oracle(&bytes, Some(offset), 20, 100_000),
                "offset {offset}"
            );
        }
        // A CRLF pair split by the 64 KiB block edge counts once.
        let mut edge = b"a\n".repeat(32 * 1024);
        edge.truncate(64 * 1024 - 2);
        edge.extend_from_slice(b"b\r\nc\rd\n");
        let edge_lines = text::LineIndex::new(&edge);
        let total = edge_lines.total;
        assert_eq!(
            paged(&edge, Some(total as i64 - 2), 10, 1000),
            oracle(&edge, Some(total as i64 - 2), 10, 1000)
        );
        assert_eq!(edge_lines.start(total - 3), 64 * 1024 - 2);
    }

    #[test]
    fn utf16_pages_as_before() {
        let mut le = vec![0xFF, 0xFE];
        for unit in "h\u{e9}\r\nyo\rz\n".encode_utf16() {
            le.extend_from_slice(&unit.to_le_bytes());
        }
        check_all_pages(&le);
        assert_eq!(
            paged(&le, None, 10, 1000),
            "     1\th\u{e9}\n     2\tyo\n     3\tz"
        );
    }
}
