//! Results paged as grep pages them, shared by `grep` and the navigation tools (`find_symbol`,
//! `find_references`, `ast_grep`): rows within a byte budget, the footer that says where the
//! next page starts (or that the scan stopped early), and long lines cut around their match.

use crate::bound::floor_char_boundary;

/// Characters of one line shown in a content row; the rest is cut with a marker.
pub const MAX_ROW_CHARS: usize = 500;
/// Characters kept before the match when a long line is shown around its match.
const LEAD_CHARS: usize = 100;
/// Bytes kept free for the footer while rows are added.
const FOOTER_ROOM: usize = 256;

/// The footer of a scan cut by its budget (grep's byte budget, or its cap on matching
/// files); it offers no paging (CONTRACT-v0.5-wording §1 (a), at both entries).
pub const INCOMPLETE: &str = "[... search incomplete: the scan hit its output cap; some matching files were not scanned. Narrow the pattern, path, or glob for complete results. ...]";

/// The requested page of `total` results as grep pages them: rows `offset..offset+limit` from
/// `row(i)` while they fit `budget` bytes, then grep's footer. `(no matches)` when there are
/// none.
pub(crate) fn render_page(
    total: u64,
    offset: u64,
    limit: Option<u64>,
    budget: usize,
    stopped_early: bool,
    mut row: impl FnMut(u64) -> String,
) -> String {
    if total == 0 {
        return "(no matches)".to_string();
    }
    if offset >= total {
        return past_the_end(offset, total, stopped_early);
    }
    let end = offset
        .saturating_add(limit.filter(|&l| l > 0).unwrap_or(u64::MAX))
        .min(total);
    let mut page = Page::new(budget);
    for i in offset..end {
        if !page.push_result(Vec::new(), row(i)) {
            break;
        }
    }
    page.finish(offset, total, stopped_early)
}

/// The answer to an `offset` at or past the `total` results: `(no results at offset O; N
/// total)`, unless the scan stopped early, whose total counts only the files it reached: then
/// the empty page and the search-incomplete warning, as the newest contract composes it
/// (CONTRACT-v0.5-wording §1 (a)).
pub(crate) fn past_the_end(offset: u64, total: u64, stopped_early: bool) -> String {
    if stopped_early {
        return format!("\n{INCOMPLETE}");
    }
    format!("(no results at offset {offset}; {total} total)")
}

/// The output being built: rows within a byte budget, and how many results it shows. Shared
/// by the tools that page results as grep does (the navigation tools).
pub(crate) struct Page {
    pub(crate) text: String,
    budget: usize,
    /// Results (files, file counts, or matches) shown.
    pub(crate) shown: u64,
    /// A row did not fit: the page was cut by the byte budget.
    pub(crate) full: bool,
    /// Rows are not adjacent to what was shown last: the next row is preceded by `--`.
    pub(crate) gap: bool,
}

impl Page {
    /// The page text with its footer: `A..B` where A is the offset and B = A + the results
    /// shown (the offset to ask for next); [`INCOMPLETE`] when the scan stopped at its cap.
    pub(crate) fn finish(self, offset: u64, total: u64, stopped_early: bool) -> String {
        let (from, to) = (offset, offset + self.shown);
        let footer = if stopped_early {
            Some(INCOMPLETE.to_string())
        } else if self.full {
            Some(format!(
                "[... showing {from}..{to} of {total}; the output limit cut this page short: call again with offset={to} and a lower head_limit ...]"
            ))
        } else if to < total {
            Some(format!(
                "[... showing {from}..{to} of {total}; call again with offset={to} for more ...]"
            ))
        } else {
            None
        };
        let mut text = self.text;
        if let Some(footer) = footer {
            text.push('\n');
            text.push_str(&footer);
        }
        text
    }

    pub(crate) fn new(budget: usize) -> Page {
        Page {
            text: String::new(),
            budget,
            shown: 0,
            full: false,
            gap: false,
        }
    }

    /// Adds rows unless they would overflow the budget; `false` (and `full`) when they do not fit.
    pub(crate) fn push_rows(&mut self, rows: &[String]) -> bool {
        let sep = usize::from(self.gap && !self.text.is_empty()) * 3;
        let needed: usize = rows.iter().map(|r| r.len() + 1).sum::<usize>() + sep;
        if self.text.len() + needed + FOOTER_ROOM > self.budget {
            self.full = true;
            return false;
        }
        if sep > 0 {
            self.push_line("--");
        }
        self.gap = false;
        for row in rows {
            self.push_line(row);
        }
        true
    }

    /// Adds one result with the context rows leading to it. The first result is always shown:
    /// if it does not fit, it goes alone, cut to the budget.
    pub(crate) fn push_result(&mut self, mut lead: Vec<String>, row: String) -> bool {
        lead.push(row);
        if self.push_rows(&lead) {
            self.shown += 1;
            return true;
        }
        if self.shown > 0 {
            return false;
        }
        self.full = false;
        let row = lead.pop().unwrap_or_default();
        let room = self.budget.saturating_sub(FOOTER_ROOM + 64);
        if row.len() <= room {
            self.push_line(&row);
        } else {
            let cut = floor_char_boundary(&row, room);
            self.push_line(&format!(
                "{} [... {} more bytes of this result cut at the output limit ...]",
                &row[..cut],
                row.len() - cut
            ));
        }
        self.gap = false;
        self.shown = 1;
        true
    }

    fn push_line(&mut self, row: &str) {
        if !self.text.is_empty() {
            self.text.push('\n');
        }
        self.text.push_str(row);
    }
}

/// A line's text without its terminator, cut to [`MAX_ROW_CHARS`] characters. When the cut
/// would hide the match (`focus`, a byte offset), the shown window starts a little before it.
/// Every cut is marked with the number of characters it removed.
pub(crate) fn cut_line(bytes: &[u8], focus: Option<usize>, line: u64) -> String {
    let bytes = strip_eol(bytes);
    let text = String::from_utf8_lossy(bytes);
    if text.len() <= MAX_ROW_CHARS {
        return text.into_owned();
    }
    let total = text.chars().count();
    if total <= MAX_ROW_CHARS {
        return text.into_owned();
    }
    let focus_char = focus
        .map(|b| {
            String::from_utf8_lossy(&bytes[..floor_byte(bytes, b)])
                .chars()
                .count()
        })
        .unwrap_or(0);
    let start = if focus_char + 50 > MAX_ROW_CHARS {
        focus_char
            .saturating_sub(LEAD_CHARS)
            .min(total - MAX_ROW_CHARS)
    } else {
        0
    };
    let kept: String = text.chars().skip(start).take(MAX_ROW_CHARS).collect();
    let after = total - start - MAX_ROW_CHARS;
    let mut out = String::with_capacity(kept.len() + 128);
    if start > 0 {
        out.push_str(&format!("[... {start} characters cut ...] "));
    }
    out.push_str(&kept);
    if after > 0 {
        out.push_str(&format!(" [... {after} characters cut"));
    } else {
        out.push_str(" [...");
    }
    out.push_str(&format!(
        "; line {line} is {total} characters: read_file with offset={line} shows it ...]"
    ));
    out
}

/// `index` clamped to `bytes` (a match offset is always inside, but never trust it blindly).
fn floor_byte(bytes: &[u8], index: usize) -> usize {
    index.min(bytes.len())
}

pub(crate) fn strip_eol(bytes: &[u8]) -> &[u8] {
    let bytes = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    bytes.strip_suffix(b"\r").unwrap_or(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cut_line_strips_the_terminator_and_cuts_long_lines_around_the_match() {
        assert_eq!(cut_line(b"short\r\n", None, 3), "short");
        let head = cut_line("é".repeat(600).as_bytes(), None, 2);
        assert!(head.starts_with(&"é".repeat(500)));
        assert!(head.ends_with(
            " [... 100 characters cut; line 2 is 600 characters: read_file with offset=2 shows it ...]"
        ), "{head}");
        let line = format!("{}NEEDLE{}", "a".repeat(900), "b".repeat(900));
        let around = cut_line(line.as_bytes(), Some(900), 7);
        assert!(
            around.starts_with("[... 800 characters cut ...] "),
            "{around}"
        );
        assert!(around.contains("NEEDLE"));
    }

    #[test]
    fn pages_rows_with_grep_footers() {
        let row = |i: u64| format!("row {i}");
        assert_eq!(render_page(0, 0, None, 1000, false, row), "(no matches)");
        assert_eq!(
            render_page(3, 5, None, 1000, false, row),
            "(no results at offset 5; 3 total)"
        );
        // Past the end of a scan that stopped early: no total, the warning.
        assert_eq!(
            render_page(3, 5, None, 1000, true, row),
            format!("\n{INCOMPLETE}")
        );
        assert_eq!(
            render_page(3, 0, None, 1000, false, row),
            "row 0\nrow 1\nrow 2"
        );
        assert_eq!(
            render_page(5, 1, Some(2), 1000, false, row),
            "row 1\nrow 2\n[... showing 1..3 of 5; call again with offset=3 for more ...]"
        );
        assert_eq!(
            render_page(2, 0, None, 1000, true, row),
            format!("row 0\nrow 1\n{INCOMPLETE}")
        );
    }

    #[test]
    fn the_budget_cuts_the_page_but_shows_one_row() {
        let wide = |i: u64| format!("{i}{}", "x".repeat(200));
        let page = render_page(10, 0, None, FOOTER_ROOM + 450, false, wide);
        assert!(page.ends_with(
            "[... showing 0..2 of 10; the output limit cut this page short: call again with offset=2 and a lower head_limit ...]"
        ), "{page}");
        let huge = |_| "y".repeat(5000);
        let one = render_page(1, 0, None, 1000, false, huge);
        assert!(
            one.ends_with("more bytes of this result cut at the output limit ...]"),
            "{one}"
        );
        assert!(one.len() <= 1000, "{}", one.len());
    }
}
