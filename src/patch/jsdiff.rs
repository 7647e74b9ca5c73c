//! The errors jsdiff 9's `parsePatch` throws, found the way it finds them.
//!
//! The newest contract parses a unified diff with jsdiff 9 and answers any parse error with
//! `invalid_input` `Malformed patch: <jsdiff message>` (CONTRACT-v0.5-wording §7). Our own
//! parser ([`super::unified`]) is lenient where models go wrong (hunk counts, stray blank
//! lines), so at the root without `extras` the patch is first walked as `parsePatch` walks it:
//! the same line classes, the same two `---` / `+++` reads per block, the same counted hunk
//! bodies. Only whether it throws, and with which text, is kept; the patch is then parsed and
//! applied as before.
//!
//! JavaScript details kept: lines split on `\n` only (a `\r` stays on its line), `\s` and
//! `trim()` are JavaScript's whitespace, `\d` / `\w` are ASCII, and a header count is a
//! JavaScript number (written back as `String(number)` writes it).

use std::sync::LazyLock;

use crate::text::{is_js_space, js_trim};

/// jsdiff's message for the first problem `parsePatch` throws on, or `None` when it parses.
pub fn parse_error(patch: &str) -> Option<String> {
    let lines: Vec<&str> = patch.split('\n').collect();
    let mut p = Parser { d: &lines, i: 0 };
    while p.i < lines.len() {
        if let Err(message) = p.index() {
            return Some(message);
        }
    }
    None
}

/// The separator line of `svn diff` that ends a block's hunks.
const SEPARATOR: &str = "===================================================================";

/// `s` starts with `prefix` followed by a JavaScript space.
fn prefix_then_space(s: &str, prefix: &str) -> bool {
    s.strip_prefix(prefix)
        .and_then(|rest| rest.chars().next())
        .is_some_and(is_js_space)
}

/// `/^(---|\+\+\+)\s/`
pub(super) fn is_file_header(line: &str) -> bool {
    prefix_then_space(line, "---") || prefix_then_space(line, "+++")
}

/// `/^@@\s/`
pub(super) fn is_hunk_header(line: &str) -> bool {
    prefix_then_space(line, "@@")
}

/// `/^diff --git /`
fn is_git_diff_header(line: &str) -> bool {
    line.starts_with("diff --git ")
}

/// `/^diff --git /`, `/^Index:\s/` or `/^diff(?: -r \w+)+\s/`.
pub(super) fn is_diff_header(line: &str) -> bool {
    if is_git_diff_header(line) || prefix_then_space(line, "Index:") {
        return true;
    }
    // `\w+` is greedy and a word character is no space, so the run must end at a space (a
    // further ` -r ` starts with one).
    let Some(rest) = line.strip_prefix("diff -r ") else {
        return false;
    };
    let word = rest
        .bytes()
        .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_')
        .count();
    word > 0 && rest[word..].chars().next().is_some_and(is_js_space)
}

/// `@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@`, matched anywhere in the line as
/// `String.prototype.split` does.
static HUNK_RANGES: LazyLock<regex::Regex> = LazyLock::new(|| {
    regex::Regex::new(r"@@ -([0-9]+)(?:,([0-9]+))? \+([0-9]+)(?:,([0-9]+))? @@")
        .expect("the hunk header pattern compiles")
});

/// jsdiff's `parseQuotedFileName`: a C-style quoted name and the bytes it took, `None` when
/// the quote is unterminated or an escape is not one git writes.
fn parse_quoted(s: &str) -> Option<(String, usize)> {
    let b = s.as_bytes();
    if b.first() != Some(&b'"') {
        return None;
    }
    let mut out = String::new();
    let mut j = 1;
    while j < b.len() {
        if b[j] == b'"' {
            return Some((out, j + 1));
        }
        if b[j] == b'\\' && j + 1 < b.len() {
            j += 1;
            let c = match b[j] {
                b'a' => '\u{7}',
                b'b' => '\u{8}',
                b'f' => '\u{c}',
                b'n' => '\n',
                b'r' => '\r',
                b't' => '\t',
                b'v' => '\u{b}',
                b'\\' => '\\',
                b'"' => '"',
                b'0'..=b'7' => {
                    let octal = |k: usize| b.get(k).is_some_and(|c| (b'0'..=b'7').contains(c));
                    if !(octal(j + 1) && octal(j + 2)) {
                        return None;
                    }
                    // `parseInt(…, 8)` into a `Uint8Array`: `\777` (511) wraps to 255.
                    let value = |k: usize| {
                        let digit = |k: usize| u32::from(b[k] - b'0');
                        (digit(k) * 64 + digit(k + 1) * 8 + digit(k + 2)) as u8
                    };
                    let mut bytes = vec![value(j)];
                    j += 3;
                    while b.get(j) == Some(&b'\\') && octal(j + 1) {
                        if !(octal(j + 2) && octal(j + 3)) {
                            return None;
                        }
                        bytes.push(value(j + 1));
                        j += 4;
                    }
                    out.push_str(&String::from_utf8_lossy(&bytes));
                    continue;
                }
                _ => return None,
            };
            out.push(c);
            j += 1;
            continue;
        }
        // One whole character (the quote and backslash are ASCII, so `j` is a boundary).
        let c = s[j..].chars().next().unwrap_or_default();
        out.push(c);
        j += c.len_utf8();
    }
    None
}

/// jsdiff's `unquoteIfQuoted`.
fn unquote_if_quoted(s: &str) -> String {
    match parse_quoted(s) {
        Some((name, _)) if s.starts_with('"') => name,
        _ => s.to_string(),
    }
}

/// Whether jsdiff's `parseGitDiffHeader` finds both names (it finds both or none).
fn git_header_names(line: &str) -> bool {
    let rest = &line["diff --git ".len()..];
    if rest.starts_with('"') {
        let Some((_, taken)) = parse_quoted(rest) else {
            return false;
        };
        // `substring(rawLength + 1)`: past the quote and the one character after it.
        let mut after = rest[taken..].chars();
        after.next();
        let after = after.as_str();
        return !after.starts_with('"') || parse_quoted(after).is_some();
    }
    if let Some(q) = rest.find('"').filter(|&q| q > 0) {
        return parse_quoted(&rest[q..]).is_some();
    }
    rest.starts_with("a/") && rest.get(1..).is_some_and(|r| r.contains(" b/"))
}

/// The numbers of a hunk header as jsdiff reads them (the ranges pattern found anywhere in the
/// line); `None` when jsdiff's would be `NaN` (no match) or its old start is too large for a
/// line number. Such a hunk is parsed, but it can never be placed.
pub(super) fn hunk_numbers(header: &str) -> Option<super::HunkHeader> {
    let c = HUNK_RANGES.captures(header)?;
    let number = |i: usize| c.get(i).map(|m| m.as_str().parse::<usize>().ok());
    let count = |i: usize| number(i).unwrap_or(Some(1));
    Some(super::HunkHeader {
        old_start: number(1)??,
        old_count: count(2)?,
        // jsdiff places a hunk by its old start only; a new start past any line count is fine.
        new_start: number(3)?.unwrap_or(usize::MAX),
        new_count: count(4)?,
    })
}

/// A hunk count as JavaScript's `+"<digits>"` holds it.
fn count(digits: Option<regex::Match>) -> f64 {
    digits.map_or(1.0, |m| m.as_str().parse().unwrap_or(f64::INFINITY))
}

struct Parser<'a> {
    d: &'a [&'a str],
    i: usize,
}

impl Parser<'_> {
    fn line(&self) -> Option<&str> {
        self.d.get(self.i).copied()
    }

    /// jsdiff's `parseIndex`: one block's metadata, its `---` / `+++` lines and its hunks.
    fn index(&mut self) -> Result<(), String> {
        let mut old: Option<String> = None;
        let mut new: Option<String> = None;
        let mut seen_diff_header = false;
        while let Some(line) = self.line() {
            if is_file_header(line) || is_hunk_header(line) {
                break;
            }
            if is_git_diff_header(line) {
                if seen_diff_header {
                    return Ok(());
                }
                seen_diff_header = true;
                if git_header_names(line) {
                    // The names themselves never reach a message: with both set, no header
                    // is missing.
                    old = Some(String::new());
                    new = Some(String::new());
                }
                self.i += 1;
                while let Some(ext) = self.line() {
                    if is_file_header(ext) || is_hunk_header(ext) || is_diff_header(ext) {
                        break;
                    }
                    for (prefix, old_side) in [
                        ("rename from ", true),
                        ("rename to ", false),
                        ("copy from ", true),
                        ("copy to ", false),
                    ] {
                        if let Some(name) = ext.strip_prefix(prefix) {
                            // `(.*)`: JavaScript's `.` stops at a line terminator.
                            let end = name
                                .find(['\r', '\u{2028}', '\u{2029}'])
                                .unwrap_or(name.len());
                            let name = unquote_if_quoted(&name[..end]);
                            if old_side {
                                old = Some(format!("a/{name}"));
                            } else {
                                new = Some(format!("b/{name}"));
                            }
                        }
                    }
                    self.i += 1;
                }
                continue;
            } else if is_diff_header(line) {
                if seen_diff_header {
                    return Ok(());
                }
                seen_diff_header = true;
            }
            self.i += 1;
        }
        for _ in 0..2 {
            self.file_header(&mut old, &mut new);
        }
        match (&old, &new) {
            (Some(name), None) => {
                return Err(format!("Missing \"+++ ...\" file header for {name}"));
            }
            (None, Some(name)) => {
                return Err(format!("Missing \"--- ...\" file header for {name}"));
            }
            _ => {}
        }
        while let Some(line) = self.line() {
            if is_diff_header(line) || is_file_header(line) || line.starts_with(SEPARATOR) {
                break;
            }
            if is_hunk_header(line) {
                self.hunk()?;
            } else {
                self.i += 1;
            }
        }
        Ok(())
    }

    /// jsdiff's `parseFileHeader`: a `---` or `+++` line names that side; nothing else is read.
    fn file_header(&mut self, old: &mut Option<String>, new: &mut Option<String>) {
        let Some(line) = self.line().filter(|l| is_file_header(l)) else {
            return;
        };
        let data = js_trim(&line[3..]);
        let name = data.split('\t').next().unwrap_or("");
        let name = if name.starts_with('"') {
            unquote_if_quoted(name)
        } else {
            name.replace("\\\\", "\\")
        };
        if line.starts_with("---") {
            *old = Some(name);
        } else {
            *new = Some(name);
        }
        self.i += 1;
    }

    /// jsdiff's `parseHunk`: the body is read while the header's counts are not met (or a
    /// `\` line follows), then the counts are checked.
    fn hunk(&mut self) -> Result<(), String> {
        let at = self.i + 1;
        let header = self.d[self.i];
        self.i += 1;
        // Without a match (or without a count) the count is `undefined`, so 1.
        let ranges = HUNK_RANGES.captures(header);
        let mut old_lines = count(ranges.as_ref().and_then(|c| c.get(2)));
        let mut new_lines = count(ranges.as_ref().and_then(|c| c.get(4)));
        let (mut added, mut removed) = (0.0, 0.0);
        while let Some(line) = self.line() {
            if !(removed < old_lines || added < new_lines || line.starts_with('\\')) {
                break;
            }
            let op = if line.is_empty() && self.i != self.d.len() - 1 {
                Some(b' ')
            } else {
                line.bytes().next()
            };
            match op {
                Some(b'+') => added += 1.0,
                Some(b'-') => removed += 1.0,
                Some(b' ') => {
                    added += 1.0;
                    removed += 1.0;
                }
                Some(b'\\') => {}
                _ => return Err(format!("Hunk at line {at} contained invalid line {line}")),
            }
            self.i += 1;
        }
        if added == 0.0 && new_lines == 1.0 {
            new_lines = 0.0;
        }
        if removed == 0.0 && old_lines == 1.0 {
            old_lines = 0.0;
        }
        if added != new_lines {
            return Err(format!(
                "Added line count did not match for hunk at line {at}"
            ));
        }
        if removed != old_lines {
            return Err(format!(
                "Removed line count did not match for hunk at line {at}"
            ));
        }
        if let Some(next) = self.line() {
            if matches!(next.bytes().next(), Some(b'+' | b' ' | b'-')) && !is_file_header(next) {
                return Err(format!(
                    "Hunk at line {at} has more lines than expected (expected {} old lines and {} new lines)",
                    crate::config::js_number(old_lines),
                    crate::config::js_number(new_lines)
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_what_jsdiff_parses() {
        for ok in [
            "",
            "prose\n",
            "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n",
            "--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n\\ No newline at end of file\n",
            "diff --git a/x b/y\nrename from x\nrename to y\n",
            "+++ b/x\n--- a/x\n",
            "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n--- a/y\n+++ b/y\n",
            "@@ -1,2 +1,2 @@\n a\n\n",
            "@@ -1 +1 @@\n+a",
        ] {
            assert_eq!(parse_error(ok), None, "{ok:?}");
        }
    }

    #[test]
    fn throws_what_jsdiff_throws() {
        // Each text checked against jsdiff 9.0.0's own `parsePatch`.
        for (patch, message) in [
            ("--- a/x.ts\n@@ -1 +1 @@\n-a\n+A\n", "Missing \"+++ ...\" file header for a/x.ts"),
            ("--- \ta/x.ts\n", "Missing \"+++ ...\" file header for a/x.ts"),
            ("--- \"a/x.ts\"\n", "Missing \"+++ ...\" file header for a/x.ts"),
            ("+++ b/x.ts", "Missing \"--- ...\" file header for b/x.ts"),
            ("+++ \"b/x\\tq.ts\"", "Missing \"--- ...\" file header for b/x\tq.ts"),
            ("--- a/x\n--- a/y\n", "Missing \"+++ ...\" file header for a/y"),
            ("diff --git x y\nrename from p\n", "Missing \"+++ ...\" file header for a/p"),
            ("@@ -1,3 +1,3 @@", "Added line count did not match for hunk at line 1"),
            ("@@ -1,2 +1,2 @@\n", "Hunk at line 1 contained invalid line "),
            ("x\n@@ -1 +0,0 @@\n*x", "Hunk at line 2 contained invalid line *x"),
            ("@@ -1 +1 @@\n+a\n", "Hunk at line 1 contained invalid line "),
            ("@@ -1,2 +1 @@\n+a\n-b", "Removed line count did not match for hunk at line 1"),
            ("@@ bogus @@\n-a\n+b\n c\n", "Hunk at line 1 has more lines than expected (expected 1 old lines and 1 new lines)"),
            ("@@ -1 +1 @@\n-a\n+b\n+c\n", "Hunk at line 1 has more lines than expected (expected 1 old lines and 1 new lines)"),
        ] {
            assert_eq!(parse_error(patch).as_deref(), Some(message), "{patch:?}");
        }
    }

    #[test]
    fn quoted_names_unescape_as_git_writes_them() {
        assert_eq!(
            parse_quoted(r#""a\303\251b" x"#),
            Some(("aéb".to_string(), 12))
        );
        assert_eq!(parse_quoted(r#""a\q""#), None);
        assert_eq!(parse_quoted(r#""open"#), None);
        assert_eq!(unquote_if_quoted(r#""bad\q""#), r#""bad\q""#);
    }
}
