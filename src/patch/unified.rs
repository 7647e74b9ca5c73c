//! Unified diffs, as `diff -u`, `git diff` and models write them.
//!
//! Grammar (one item per line):
//!
//! ```text
//! diff         := (junk | block)*
//! block        := [git-header ext-header*] [old-header new-header] hunk*
//! git-header   := "diff --git " old-path " " new-path
//! ext-header   := "old mode " m | "new mode " m | "new file mode " m | "deleted file mode " m
//!               | "similarity index " n | "dissimilarity index " n | "index " text
//!               | "rename from " path | "rename to " path | "copy from " path | "copy to " path
//!               | "Binary files " text | "GIT binary patch"
//! old-header   := "--- " (path | "/dev/null") ["\t" timestamp]
//! new-header   := "+++ " (path | "/dev/null") ["\t" timestamp]
//! hunk         := "@@ -" l ["," s] " +" l ["," s] " @@" [section] | "@@" [text]
//!                 hunk-line*
//! hunk-line    := " " text | "-" text | "+" text | "" | "\ No newline at end of file"
//! ```
//!
//! - Paths: an `a/` or `b/` prefix is stripped from each name, as is a tab-separated
//!   timestamp; git's quoted paths
//!   (`"a/sp ace\tx"`) are unquoted. `rename from` / `rename to` name the paths exactly. A
//!   timestamp at the Unix epoch (`diff -N`'s mark of a missing file) means `/dev/null`.
//! - `/dev/null` as the old path (or `new file mode`) is a create; as the new path (or
//!   `deleted file mode`) a delete, whose removed lines must be the whole file; differing
//!   old and new paths (or `rename from/to`) a rename, with or without hunks.
//! - Hunk bodies are read by the header's line counts, which models often get wrong: when the
//!   counts run out while hunk lines continue, the lines still belong to the hunk; when lines
//!   run out first, the hunk ends there. A bare `@@` has no counts and no position. An empty
//!   line inside a hunk is an empty context line. `-- ` after an exhausted hunk is git's
//!   format-patch signature, not a removed line.
//! - A block with only mode headers (`old mode` / `new mode`) changes nothing we apply and is
//!   skipped (a patch of nothing else is refused with a message saying so); a copy or a binary
//!   diff is refused — also `diff -r`'s `Binary files A and B differ` outside any git block.
//! - Lines before the first header (commit messages, `Index:` lines, `diff -u` commands) are
//!   ignored; a hunk with no file header before it is an error.

use super::{jsdiff, syntax_error, FileOp, FilePatch, Hunk, HunkHeader, HunkLine};
use crate::error::ToolResult;

const DEV_NULL: &str = "/dev/null";
const NO_EOL_MARKER: char = '\\';

/// The line `svn diff` puts between blocks; jsdiff ends a block at one.
const SEPARATOR: &str = "===================================================================";

/// Parses `@@ -l[,s] +l[,s] @@…`; `None` when the line does not have that shape.
pub fn parse_hunk_header(line: &str) -> Option<HunkHeader> {
    let rest = line.strip_prefix("@@")?.trim_start();
    let rest = rest.strip_prefix('-')?;
    let (old, rest) = rest.split_once(' ')?;
    let rest = rest.trim_start().strip_prefix('+')?;
    let (new, rest) = rest.split_once(' ').unwrap_or((rest, ""));
    if !rest.trim_start().starts_with("@@") {
        return None;
    }
    let range = |s: &str| -> Option<(usize, usize)> {
        match s.split_once(',') {
            Some((a, b)) => Some((a.parse().ok()?, b.parse().ok()?)),
            None => Some((s.parse().ok()?, 1)),
        }
    };
    let (old_start, old_count) = range(old)?;
    let (new_start, new_count) = range(new)?;
    Some(HunkHeader {
        old_start,
        old_count,
        new_start,
        new_count,
    })
}

/// A parsed unified diff.
#[derive(Debug, Default)]
pub struct Parsed {
    pub files: Vec<FilePatch>,
    /// The paths of the skipped blocks that only change a file's mode (`old mode` /
    /// `new mode` with no hunks).
    pub mode_only: Vec<String>,
    /// The parse stopped at a block with hunks but no valid file path (see [`parse_with`]):
    /// `files` are the blocks before it.
    pub no_path: bool,
}

/// The newest contract's messages for a malformed unified diff (CONTRACT-v0.5-wording §7):
/// jsdiff's own texts behind `Malformed patch: `, and two fixed ones. No fields.
pub mod contract {
    use crate::error::ToolError;

    pub const NO_HUNKS: &str = "Patch contains no applicable hunks";
    pub const NO_PATH: &str = "Patch is missing a valid file path";

    pub fn malformed(jsdiff: String) -> ToolError {
        ToolError::invalid_input(format!("Malformed patch: {jsdiff}"))
    }

    /// The name jsdiff quotes from a `---` / `+++` header: the text before any tab, trimmed,
    /// `a/` / `b/` kept.
    pub fn header_name(line: &str) -> &str {
        line[3..].split('\t').next().unwrap_or("").trim()
    }
}

/// Parses a unified diff. `first_line` is the 1-based patch line of `lines[0]`. With `newest`,
/// malformed input gets the newest contract's messages ([`contract`]), and a block with no
/// hunks (or `/dev/null` on both sides without hunks) is left out rather than refused.
pub fn parse(lines: &[&str], first_line: usize, newest: bool) -> ToolResult<Parsed> {
    parse_with(lines, first_line, newest, false)
}

/// [`parse`] for the root without extras (`exact`), after [`super::jsdiff`] has accepted the
/// patch: a `---` without `+++` (or a lone `+++`) is not refused here (jsdiff reads header
/// pairs its own way), and a block with no valid file path ends the parse in
/// [`Parsed::no_path`] instead of failing it, so that the blocks before it are checked first
/// (CONTRACT-v0.5-wording §7: "Blocks are handled in order, so an earlier block's error
/// wins").
pub fn parse_with(
    lines: &[&str],
    first_line: usize,
    newest: bool,
    exact: bool,
) -> ToolResult<Parsed> {
    let missing_headers = newest && !exact;
    let mut p = Parser {
        lines,
        first_line,
        i: 0,
        mode_only: Vec::new(),
        newest,
        exact,
        no_path: false,
    };
    let mut files = Vec::new();
    while let Some(line) = p.peek() {
        if p.no_path {
            break;
        }
        if missing_headers && line.starts_with("--- ") && !p.at_file_header() {
            return Err(contract::malformed(format!(
                "Missing \"+++ ...\" file header for {}",
                contract::header_name(line)
            )));
        }
        if missing_headers && line.starts_with("+++ ") && !p.at_reversed_header() {
            return Err(contract::malformed(format!(
                "Missing \"--- ...\" file header for {}",
                contract::header_name(line)
            )));
        }
        if line.starts_with("diff --git ") || p.at_file_header() || p.at_reversed_header() {
            if let Some(block) = p.block()? {
                files.push(block);
            }
        } else if line.starts_with("Binary files ") && line.trim_end().ends_with(" differ") {
            // `diff -r` / `diff -ru` say this of a binary file, outside any git block.
            return Err(binary_diff(p.lineno()));
        } else if exact && !jsdiff::is_hunk_header(line) {
            // Not a hunk header to jsdiff (`@@` with no space after it): prose.
            p.i += 1;
        } else if line.starts_with("@@") {
            if exact {
                p.no_path = true;
                break;
            }
            if newest {
                return Err(crate::error::ToolError::invalid_input(contract::NO_PATH));
            }
            return Err(syntax_error(
                p.lineno(),
                "this hunk has no file header: put '--- a/<path>' and '+++ b/<path>' lines \
                 before it",
            ));
        } else {
            p.i += 1;
        }
    }
    Ok(Parsed {
        files,
        mode_only: p.mode_only,
        no_path: p.no_path,
    })
}

fn binary_diff(line: usize) -> crate::error::ToolError {
    syntax_error(
        line,
        "binary diffs are not supported: apply_patch edits text files only (write a binary \
         file with bash instead)",
    )
}

/// What the headers of one block say.
#[derive(Default)]
struct Headers {
    git_old: Option<String>,
    git_new: Option<String>,
    old: Option<String>,
    new: Option<String>,
    rename_from: Option<String>,
    rename_to: Option<String>,
    new_file: bool,
    deleted_file: bool,
    has_dashes: bool,
    /// An `old mode` / `new mode` line was seen.
    mode: bool,
}

struct Parser<'a> {
    lines: &'a [&'a str],
    first_line: usize,
    i: usize,
    mode_only: Vec<String>,
    /// The newest contract's messages and hunk-less blocks (see [`parse`]).
    newest: bool,
    /// The root without extras (see [`parse_with`]).
    exact: bool,
    /// A block with no valid file path was met (with `exact`).
    no_path: bool,
}

impl<'a> Parser<'a> {
    fn peek(&self) -> Option<&'a str> {
        self.lines.get(self.i).copied()
    }

    fn at(&self, k: usize) -> Option<&'a str> {
        self.lines.get(self.i + k).copied()
    }

    fn lineno(&self) -> usize {
        self.first_line + self.i
    }

    /// A `--- ` line followed by a `+++ ` line.
    fn at_file_header(&self) -> bool {
        self.peek().is_some_and(|l| l.starts_with("--- "))
            && self.at(1).is_some_and(|l| l.starts_with("+++ "))
    }

    /// A `+++ ` line, then a `--- ` line, then a hunk header: the two file headers the other
    /// way round, which jsdiff's `parsePatch` reads as well (each names its side by its
    /// prefix). Only with a hunk after it: inside a hunk, `+++ x` then `--- y` is more likely
    /// the added line `++ x` and the removed line `-- y`.
    fn at_reversed_header(&self) -> bool {
        self.peek().is_some_and(|l| l.starts_with("+++ "))
            && self.at(1).is_some_and(|l| l.starts_with("--- "))
            && self.at(2).is_some_and(|l| l.starts_with("@@"))
    }

    /// A line that starts the next block or hunk, never a hunk line.
    fn at_boundary(&self) -> bool {
        match self.peek() {
            None => true,
            Some(l) => {
                l.starts_with("diff --git ")
                    || l.starts_with("@@")
                    || self.at_file_header()
                    || self.at_reversed_header()
            }
        }
    }

    /// Like [`Self::at_boundary`], but a `---` / `+++` pair counts only when a hunk header
    /// follows it: inside a hunk's counted lines, `--- x` is more likely the removed line
    /// `-- x`.
    fn at_strict_boundary(&self) -> bool {
        match self.peek() {
            None => true,
            Some(l) => {
                l.starts_with("diff --git ")
                    || l.starts_with("@@")
                    || self.at_file_header() && self.at(2).is_some_and(|n| n.starts_with("@@"))
            }
        }
    }

    /// One file block; `None` for a block that changes nothing we apply (mode only).
    fn block(&mut self) -> ToolResult<Option<FilePatch>> {
        let start = self.lineno();
        let mut h = Headers::default();
        if let Some(line) = self.peek().and_then(|l| l.strip_prefix("diff --git ")) {
            let (old, new) = split_git_paths(line);
            h.git_old = old;
            h.git_new = new;
            self.i += 1;
            self.extended_headers(&mut h)?;
        }
        if self.at_file_header() {
            h.has_dashes = true;
            h.old = Some(header_path(&self.lines[self.i][4..]));
            h.new = Some(header_path(&self.lines[self.i + 1][4..]));
            self.i += 2;
        } else if self.at_reversed_header() {
            h.has_dashes = true;
            h.new = Some(header_path(&self.lines[self.i][4..]));
            h.old = Some(header_path(&self.lines[self.i + 1][4..]));
            self.i += 2;
        }
        let mut hunks = Vec::new();
        while let Some(line) = self.peek() {
            if self.exact {
                // jsdiff's block: hunks (`@@` and a space) until a diff or file header or a
                // `===` line; anything else between them is skipped, as prose.
                if jsdiff::is_diff_header(line)
                    || jsdiff::is_file_header(line)
                    || line.starts_with(SEPARATOR)
                {
                    break;
                }
                if !jsdiff::is_hunk_header(line) {
                    self.i += 1;
                    continue;
                }
            } else if !line.starts_with("@@") {
                break;
            }
            hunks.push(self.hunk()?);
        }
        if self.exact {
            // jsdiff takes the end-of-file markers from a block's last hunk only.
            let last = hunks.len().saturating_sub(1);
            for hunk in &mut hunks[..last] {
                hunk.old_no_eol = false;
                hunk.new_no_eol = false;
            }
        }
        self.op(start, h, hunks)
            .map(|op| op.map(|op| FilePatch { line: start, op }))
    }

    fn extended_headers(&mut self, h: &mut Headers) -> ToolResult<()> {
        while let Some(line) = self.peek() {
            if let Some(p) = line.strip_prefix("rename from ") {
                h.rename_from = Some(unquote(p));
            } else if let Some(p) = line.strip_prefix("rename to ") {
                h.rename_to = Some(unquote(p));
            } else if line.starts_with("new file mode ") {
                h.new_file = true;
            } else if line.starts_with("deleted file mode ") {
                h.deleted_file = true;
            } else if line.starts_with("copy from ") || line.starts_with("copy to ") {
                return Err(syntax_error(
                    self.lineno(),
                    "copies are not supported: create the new file from /dev/null instead",
                ));
            } else if line.starts_with("Binary files ") || line == "GIT binary patch" {
                return Err(binary_diff(self.lineno()));
            } else if line.starts_with("old mode ") || line.starts_with("new mode ") {
                h.mode = true;
            } else if !["similarity index ", "dissimilarity index ", "index "]
                .iter()
                .any(|p| line.starts_with(p))
            {
                break;
            }
            self.i += 1;
        }
        Ok(())
    }

    /// One hunk: its header line and body.
    fn hunk(&mut self) -> ToolResult<Hunk> {
        let header_line = self.lineno();
        let header = self.peek().unwrap_or_default();
        if self.exact {
            return self.exact_hunk(header_line, header);
        }
        let numbers = parse_hunk_header(header);
        if numbers.is_none() && header.trim_start_matches('@').trim().starts_with('-') {
            return Err(syntax_error(
                header_line,
                format!(
                    "malformed hunk header '{header}': write it as '@@ -<old line>,<count> \
                     +<new line>,<count> @@' (or a bare '@@')"
                ),
            ));
        }
        self.i += 1;
        let mut hunk = Hunk {
            line: header_line,
            old_start: numbers.map(|n| n.old_start),
            ..Hunk::default()
        };
        let (mut old_left, mut new_left) = numbers.map_or((0, 0), |n| (n.old_count, n.new_count));
        let counted = numbers.is_some();
        while let Some(line) = self.peek() {
            if line.starts_with(NO_EOL_MARKER) {
                hunk.mark_no_eol();
                self.i += 1;
                continue;
            }
            let within_counts = counted && (old_left > 0 || new_left > 0);
            if !within_counts && !self.continues_hunk(counted) {
                self.check_no_stray_changes()?;
                break;
            }
            if within_counts && self.at_strict_boundary() {
                // Counts too large: the next block or hunk starts here.
                break;
            }
            let item = match line.chars().next() {
                None => HunkLine::Context(String::new()),
                Some(' ') => HunkLine::Context(line[1..].to_string()),
                Some('-') => HunkLine::Remove(line[1..].to_string()),
                Some('+') => HunkLine::Add(line[1..].to_string()),
                Some(_) => {
                    self.check_no_stray_changes()?;
                    break;
                }
            };
            match item {
                HunkLine::Context(_) => {
                    old_left = old_left.saturating_sub(1);
                    new_left = new_left.saturating_sub(1);
                }
                HunkLine::Remove(_) => old_left = old_left.saturating_sub(1),
                HunkLine::Add(_) => new_left = new_left.saturating_sub(1),
            }
            hunk.lines.push(item);
            self.i += 1;
        }
        if hunk.lines.is_empty() {
            return Err(syntax_error(
                header_line,
                "this hunk has no lines: give it ' ', '-' or '+' lines",
            ));
        }
        Ok(hunk)
    }

    /// jsdiff's `parseHunk`, for a patch [`super::jsdiff`] has accepted: the body is read
    /// while the header's counts are not met (a count it lacks is 1) or a `\` line follows.
    /// A header whose numbers jsdiff cannot read gives a hunk that never applies.
    fn exact_hunk(&mut self, header_line: usize, header: &str) -> ToolResult<Hunk> {
        self.i += 1;
        let numbers = jsdiff::hunk_numbers(header);
        let mut hunk = Hunk {
            line: header_line,
            old_start: numbers.map(|n| n.old_start),
            unplaceable: numbers.is_none(),
            ..Hunk::default()
        };
        let (mut old_left, mut new_left) = numbers.map_or((1, 1), |n| (n.old_count, n.new_count));
        while let Some(line) = self.peek() {
            let marker = line.starts_with(NO_EOL_MARKER);
            if old_left == 0 && new_left == 0 && !marker {
                break;
            }
            if marker {
                // jsdiff acts on the marker only after a `-` or `+` line (and only in a block's
                // last hunk, see `block`); after a context line the file keeps its own ending.
                if !matches!(hunk.lines.last(), Some(HunkLine::Context(_))) {
                    hunk.mark_no_eol();
                }
                self.i += 1;
                continue;
            }
            let (item, old, new) = match line.chars().next() {
                Some('-') => (HunkLine::Remove(line[1..].to_string()), 1, 0),
                Some('+') => (HunkLine::Add(line[1..].to_string()), 0, 1),
                Some(' ') => (HunkLine::Context(line[1..].to_string()), 1, 1),
                // jsdiff reads an empty line (not the text's last) as an empty context line.
                _ => (HunkLine::Context(String::new()), 1, 1),
            };
            old_left = old_left.saturating_sub(old);
            new_left = new_left.saturating_sub(new);
            hunk.lines.push(item);
            self.i += 1;
        }
        Ok(hunk)
    }

    /// A hunk ends at the current line, which is not a hunk line. When `-` / `+` lines follow
    /// it before the next header, it is a context line that lost its leading space, and ending
    /// the hunk here would silently drop those changes: that is an error.
    fn check_no_stray_changes(&self) -> ToolResult<()> {
        if self.at_boundary() {
            return Ok(());
        }
        let mut k = 0;
        while let Some(line) = self.at(k) {
            let next = |prefix: &str| self.at(k + 1).is_some_and(|n| n.starts_with(prefix));
            let header = line.starts_with("--- ") && next("+++ ")
                || line.starts_with("+++ ")
                    && next("--- ")
                    && self.at(k + 2).is_some_and(|n| n.starts_with("@@"));
            if header || line.starts_with("diff --git ") || line.starts_with("@@") {
                break;
            }
            let dashes = line.trim_end().chars().all(|c| c == '-');
            if (line.starts_with('-') || line.starts_with('+')) && !dashes {
                let stray = self.peek().unwrap_or_default();
                return Err(syntax_error(
                    self.lineno(),
                    format!(
                        "'{}' is between hunk lines but does not start with ' ', '-' or '+'; a context line needs a leading space (an empty line is an empty context line). If it is not part of the patch, remove it",
                        stray.chars().take(80).collect::<String>()
                    ),
                ));
            }
            k += 1;
        }
        Ok(())
    }

    /// Past the header's counts (or with none): whether the current line still belongs to
    /// the hunk. Hunk lines do, unless they start the next block; an empty line does when more
    /// hunk lines follow it; `-- ` after counted lines is a format-patch signature.
    fn continues_hunk(&self, counted: bool) -> bool {
        let Some(line) = self.peek() else {
            return false;
        };
        if self.at_boundary() {
            return false;
        }
        if counted && (line == "-- " || line == "--") {
            return false;
        }
        if line.is_empty() {
            let mut k = 1;
            while self.at(k) == Some("") {
                k += 1;
            }
            return self.at(k).is_some_and(|next| {
                matches!(next.chars().next(), Some(' ' | '-' | '+' | NO_EOL_MARKER))
                    && !next.starts_with("--- ")
                    && !(counted && (next == "-- " || next == "--"))
            });
        }
        matches!(line.chars().next(), Some(' ' | '-' | '+'))
    }

    /// A block with hunks but no valid file path: the end of the parse with `exact` (see
    /// [`parse_with`]), otherwise the contract's error right away.
    fn no_valid_path(&mut self) -> ToolResult<Option<FileOp>> {
        if self.exact {
            self.no_path = true;
            return Ok(None);
        }
        Err(crate::error::ToolError::invalid_input(contract::NO_PATH))
    }

    /// Turns a block's headers and hunks into an operation.
    fn op(&mut self, start: usize, h: Headers, hunks: Vec<Hunk>) -> ToolResult<Option<FileOp>> {
        let (old, new) = block_paths(&h);
        let old_null = old.as_deref() == Some(DEV_NULL);
        let new_null = new.as_deref() == Some(DEV_NULL);
        if old_null && new_null {
            if self.newest {
                if hunks.is_empty() {
                    return Ok(None);
                }
                return self.no_valid_path();
            }
            return Err(syntax_error(
                start,
                "both paths of this block are /dev/null",
            ));
        }
        let creates = old_null || h.new_file;
        let deletes = new_null || h.deleted_file;
        if creates && deletes {
            return Err(syntax_error(
                start,
                "this block both creates and deletes its file",
            ));
        }
        if creates {
            let Some(path) = new.filter(|p| p != DEV_NULL) else {
                return Err(syntax_error(
                    start,
                    "a created file needs a '+++ b/<path>' line",
                ));
            };
            let mut lines = Vec::new();
            let mut no_eol = false;
            for hunk in &hunks {
                for line in &hunk.lines {
                    match line {
                        HunkLine::Add(t) => lines.push(t.clone()),
                        // An unprefixed empty line in a new file is an empty added line.
                        HunkLine::Context(t) if t.is_empty() => lines.push(String::new()),
                        _ => {
                            return Err(syntax_error(
                                hunk.line,
                                format!(
                                    "{path} is created from /dev/null, so its hunk can only \
                                     add ('+') lines"
                                ),
                            ))
                        }
                    }
                }
                no_eol = hunk.new_no_eol;
            }
            return Ok(Some(FileOp::Add {
                path,
                lines,
                no_eol,
            }));
        }
        if deletes {
            let Some(path) = old.filter(|p| p != DEV_NULL) else {
                return Err(syntax_error(
                    start,
                    "a deleted file needs a '--- a/<path>' line",
                ));
            };
            let mut expect = Vec::new();
            for hunk in &hunks {
                for line in &hunk.lines {
                    match line {
                        HunkLine::Remove(t) | HunkLine::Context(t) => expect.push(t.clone()),
                        HunkLine::Add(_) => {
                            return Err(syntax_error(
                                hunk.line,
                                format!(
                                "{path} is deleted (+++ /dev/null), so its hunk cannot add lines"
                            ),
                            ))
                        }
                    }
                }
            }
            return Ok(Some(FileOp::Delete {
                path,
                expect: Some(expect),
            }));
        }
        let (Some(old), Some(new)) = (old, new) else {
            if hunks.is_empty() && !h.has_dashes {
                // A git block with only mode (or index) headers.
                return Ok(None);
            }
            if self.newest {
                return self.no_valid_path();
            }
            return Err(syntax_error(
                start,
                "this block has hunks but no file names: put '--- a/<path>' and '+++ b/<path>' \
                 lines before them",
            ));
        };
        let move_to = (old != new).then_some(new);
        if hunks.is_empty() && move_to.is_none() {
            if h.has_dashes && self.newest {
                // The newest contract processes it (the file is rewritten as it is) when the
                // patch has something else to apply; see `patch::parse`.
                return Ok(Some(FileOp::Update {
                    path: old,
                    move_to: None,
                    hunks,
                }));
            }
            if h.has_dashes {
                return Err(syntax_error(
                    start,
                    format!("the block for {old} has no hunks: add '@@' hunks with the change"),
                ));
            }
            if h.mode {
                self.mode_only.push(old);
            }
            return Ok(None);
        }
        Ok(Some(FileOp::Update {
            path: old,
            move_to,
            hunks,
        }))
    }
}

/// The old and new paths of a block: `rename from/to` first, then `---`/`+++`, then the
/// `diff --git` line, each with an `a/` or `b/` prefix stripped (CONTRACT.md: "`a/` and `b/`
/// prefixes … are stripped from header paths"; the guard reads the names the same way,
/// CONTRACT-v0.5 §5, so a call's guard paths are the files it changes).
fn block_paths(h: &Headers) -> (Option<String>, Option<String>) {
    let (old, new) = match (&h.old, &h.new) {
        (Some(o), Some(n)) => (Some(o.clone()), Some(n.clone())),
        _ => (h.git_old.clone(), h.git_new.clone()),
    };
    let strip = |p: String| match p.get(..2) {
        Some("a/" | "b/") => p[2..].to_string(),
        _ => p,
    };
    let (mut old, mut new) = (old.map(strip), new.map(strip));
    if let Some(from) = &h.rename_from {
        old = Some(from.clone());
    }
    if let Some(to) = &h.rename_to {
        new = Some(to.clone());
    }
    (old, new)
}

/// The path of a `---` / `+++` line: unquoted, without a tab-separated timestamp.
/// A timestamp of the Unix epoch — how `diff -N` marks a side where the file does not exist —
/// turns the path into `/dev/null`.
fn header_path(rest: &str) -> String {
    let rest = rest.trim_start();
    if rest.starts_with('"') {
        return unquote(rest);
    }
    let (path, stamp) = rest.split_once('\t').unwrap_or((rest, ""));
    if is_epoch(stamp) {
        return DEV_NULL.to_string();
    }
    path.trim_end().to_string()
}

/// `1970-01-01 00:00:00[.000000000] +0000`, or the same instant in another time zone
/// (`1969-12-31 19:00:00 -0500`, `1970-01-01 01:00:00 +0100`).
fn is_epoch(stamp: &str) -> bool {
    let mut parts = stamp.split_whitespace();
    let (Some(date), Some(time), zone) = (parts.next(), parts.next(), parts.next()) else {
        return false;
    };
    let hms: Vec<i64> = time
        .split('.')
        .next()
        .unwrap_or_default()
        .split(':')
        .filter_map(|p| p.parse().ok())
        .collect();
    let [h, m, sec] = hms[..] else {
        return false;
    };
    let day_seconds = match date {
        "1970-01-01" => 0,
        "1969-12-31" => -86_400,
        _ => return false,
    };
    let offset = match zone {
        None => 0,
        Some(z) => {
            let sign = match z.chars().next() {
                Some('+') => 1,
                Some('-') => -1,
                _ => return false,
            };
            let (Some(Ok(hh)), Some(Ok(mm))) = (
                z.get(1..3).map(str::parse::<i64>),
                z.get(3..5).map(str::parse::<i64>),
            ) else {
                return false;
            };
            sign * (hh * 3600 + mm * 60)
        }
    };
    let fractional_zero = time
        .split_once('.')
        .is_none_or(|(_, f)| f.chars().all(|c| c == '0'));
    fractional_zero && day_seconds + h * 3600 + m * 60 + sec - offset == 0
}

/// The two paths of `diff --git <old> <new>`, quoted or not. Unquoted paths with spaces are
/// split where the two halves name the same file (`a/x y b/x y`), else at ` b/`.
fn split_git_paths(rest: &str) -> (Option<String>, Option<String>) {
    let rest = rest.trim();
    if rest.starts_with('"') {
        let (first, tail) = take_quoted(rest);
        let tail = tail.trim_start();
        let second = if tail.starts_with('"') {
            take_quoted(tail).0
        } else {
            tail.to_string()
        };
        return (Some(first), Some(second));
    }
    if let Some((first, second)) = rest.split_once(" \"") {
        return (
            Some(first.to_string()),
            Some(unquote(&format!("\"{second}"))),
        );
    }
    let bytes = rest.as_bytes();
    // Same file on both sides: `a/<p> b/<p>`.
    if rest.len() % 2 == 1 {
        let half = rest.len() / 2;
        if bytes[half] == b' ' && rest[..half].get(2..) == rest[half + 1..].get(2..) {
            return (
                Some(rest[..half].to_string()),
                Some(rest[half + 1..].to_string()),
            );
        }
    }
    match rest.find(" b/") {
        Some(i) => (Some(rest[..i].to_string()), Some(rest[i + 1..].to_string())),
        None => match rest.split_once(' ') {
            Some((a, b)) => (Some(a.to_string()), Some(b.to_string())),
            None => (None, None),
        },
    }
}

/// A git C-style quoted path (`"a/tab\there"`), or the text itself when unquoted.
fn unquote(s: &str) -> String {
    let s = s.trim();
    if s.starts_with('"') {
        take_quoted(s).0
    } else {
        s.to_string()
    }
}

/// Reads one quoted string at the start of `s`; returns it unescaped and the rest after it.
fn take_quoted(s: &str) -> (String, &str) {
    let mut bytes = Vec::new();
    let raw = s.as_bytes();
    let mut i = 1;
    while i < raw.len() {
        match raw[i] {
            b'"' => return (String::from_utf8_lossy(&bytes).into_owned(), &s[i + 1..]),
            b'\\' if i + 1 < raw.len() => {
                i += 1;
                match raw[i] {
                    b'n' => bytes.push(b'\n'),
                    b't' => bytes.push(b'\t'),
                    b'r' => bytes.push(b'\r'),
                    b'a' => bytes.push(7),
                    b'b' => bytes.push(8),
                    b'f' => bytes.push(12),
                    b'v' => bytes.push(11),
                    d @ b'0'..=b'7' => {
                        // Up to three octal digits: one raw byte (git escapes UTF-8 this way).
                        let mut value = u32::from(d - b'0');
                        for _ in 0..2 {
                            match raw.get(i + 1) {
                                Some(&o @ b'0'..=b'7') => {
                                    value = value * 8 + u32::from(o - b'0');
                                    i += 1;
                                }
                                _ => break,
                            }
                        }
                        bytes.push(value as u8);
                    }
                    other => bytes.push(other),
                }
            }
            b => bytes.push(b),
        }
        i += 1;
    }
    (String::from_utf8_lossy(&bytes).into_owned(), "")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(s: &str) -> Vec<FilePatch> {
        let lines: Vec<&str> = s.lines().collect();
        parse(&lines, 1, false).unwrap().files
    }

    fn update(fp: &FilePatch) -> (&str, Option<&str>, &[Hunk]) {
        match &fp.op {
            FileOp::Update {
                path,
                move_to,
                hunks,
            } => (path, move_to.as_deref(), hunks),
            other => panic!("not an update: {other:?}"),
        }
    }

    #[test]
    fn hunk_headers() {
        assert_eq!(
            parse_hunk_header("@@ -1,3 +1,4 @@ fn main()"),
            Some(HunkHeader {
                old_start: 1,
                old_count: 3,
                new_start: 1,
                new_count: 4
            })
        );
        let h = parse_hunk_header("@@ -7 +7 @@").unwrap();
        assert_eq!((h.old_start, h.old_count, h.new_count), (7, 1, 1));
        assert_eq!(parse_hunk_header("@@ -0,0 +1 @@").unwrap().old_count, 0);
        assert_eq!(parse_hunk_header("@@"), None);
        assert_eq!(parse_hunk_header("@@ -x +1 @@"), None);
    }

    #[test]
    fn modify_with_prefixes_and_timestamps() {
        let files = ok("--- a/src/x.rs\t2024-01-01 10:00:00.000 +0000\n\
                        +++ b/src/x.rs\t2024-01-02 10:00:00.000 +0000\n\
                        @@ -1,2 +1,2 @@\n a\n-b\n+c\n");
        let (path, move_to, hunks) = update(&files[0]);
        assert_eq!((path, move_to), ("src/x.rs", None));
        assert_eq!(hunks[0].old_start, Some(1));
        assert_eq!(hunks[0].lines.len(), 3);
    }

    #[test]
    fn file_headers_the_other_way_round() {
        // `+++` before `---`, as jsdiff's parsePatch also reads it; in a second block too.
        let files = ok("+++ b/x\n--- a/x\n@@ -1 +1 @@\n-a\n+A\n\
                        +++ b/y\n--- a/y\n@@ -1,2 +1,2 @@\n k\n-b\n+B\n");
        assert_eq!(files.len(), 2);
        let (path, move_to, hunks) = update(&files[0]);
        assert_eq!((path, move_to, hunks.len()), ("x", None, 1));
        let (path, _, hunks) = update(&files[1]);
        assert_eq!((path, hunks[0].lines.len()), ("y", 3));
        // Inside a hunk, an added `++ x` then a removed `-- y` are lines, not headers.
        let files = ok("--- a/z\n+++ b/z\n@@ -1,2 +1,2 @@\n k\n+++ x\n--- y\n");
        assert_eq!(update(&files[0]).2[0].lines.len(), 3);
    }

    #[test]
    fn epoch_timestamps_of_diff_n_mean_no_file() {
        assert!(is_epoch("1970-01-01 00:00:00.000000000 +0000"));
        assert!(is_epoch("1969-12-31 19:00:00.000000000 -0500"));
        assert!(is_epoch("1970-01-01 01:00:00 +0100"));
        assert!(!is_epoch("1970-01-01 00:00:01 +0000"));
        assert!(!is_epoch("2024-01-01 00:00:00 +0000"));
        assert!(!is_epoch(""));
        assert!(!is_epoch("1970-01-01 00:00:00 +0é0"));
        let files = ok("--- a/n.txt\t1970-01-01 00:00:00.000000000 +0000\n+++ b/n.txt\t2024-05-01 10:00:00.000000000 +0000\n@@ -0,0 +1 @@\n+hi\n\
                        --- a/d.txt\t2024-05-01 10:00:00.000000000 +0000\n+++ b/d.txt\t1970-01-01 00:00:00.000000000 +0000\n@@ -1 +0,0 @@\n-bye\n");
        assert!(matches!(&files[0].op, FileOp::Add { path, .. } if path == "n.txt"));
        assert!(matches!(&files[1].op, FileOp::Delete { path, .. } if path == "d.txt"));
    }

    /// CONTRACT.md: "`a/` and `b/` prefixes … are stripped from header paths", each name on its
    /// own, as the guard reads them (CONTRACT-v0.5 §5).
    #[test]
    fn a_or_b_is_stripped_from_each_name() {
        for headers in [
            "--- a/x\n+++ a/x",
            "--- b/x\n+++ b/x",
            "--- a/x\n+++ x",
            "--- x\n+++ b/x",
        ] {
            let files = ok(&format!("{headers}\n@@ -1 +1 @@\n-b\n+c\n"));
            assert_eq!(update(&files[0]).0, "x", "{headers}");
        }
        let files = ok("--- a/b/x\n+++ b/b/x\n@@ -1 +1 @@\n-b\n+c\n");
        assert_eq!(update(&files[0]).0, "b/x");
    }

    #[test]
    fn create_delete_rename() {
        let files = ok("diff --git a/new.txt b/new.txt\nnew file mode 100644\nindex 0000000..e69de29\n\
             --- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,2 @@\n+one\n+two\n\\ No newline at end of file\n\
             diff --git a/old.txt b/old.txt\ndeleted file mode 100644\n--- a/old.txt\n+++ /dev/null\n\
             @@ -1 +0,0 @@\n-gone\n\
             diff --git a/from.txt b/to.txt\nsimilarity index 100%\nrename from from.txt\nrename to to.txt\n\
             diff --git a/m.txt b/n.txt\nsimilarity index 80%\nrename from m.txt\nrename to n.txt\n\
             --- a/m.txt\n+++ b/n.txt\n@@ -1 +1 @@\n-x\n+y\n");
        assert_eq!(files.len(), 4);
        assert_eq!(
            files[0].op,
            FileOp::Add {
                path: "new.txt".into(),
                lines: vec!["one".into(), "two".into()],
                no_eol: true
            }
        );
        assert_eq!(
            files[1].op,
            FileOp::Delete {
                path: "old.txt".into(),
                expect: Some(vec!["gone".into()])
            }
        );
        assert_eq!(update(&files[2]), ("from.txt", Some("to.txt"), &[][..]));
        let (p, m, h) = update(&files[3]);
        assert_eq!((p, m, h.len()), ("m.txt", Some("n.txt"), 1));
        assert_eq!(files[3].line, 20);
    }

    #[test]
    fn empty_new_and_deleted_files_from_git_headers_alone() {
        let files = ok(
            "diff --git a/e b/e\nnew file mode 100644\nindex 0000000..e69de29\n\
                        diff --git a/d b/d\ndeleted file mode 100644\nindex e69de29..0000000\n\
                        diff --git a/x b/x\nold mode 100644\nnew mode 100755\n",
        );
        assert_eq!(files.len(), 2, "the mode-only block is skipped");
        let lines: Vec<&str> = "diff --git a/x b/x\nold mode 100644\nnew mode 100755\n"
            .lines()
            .collect();
        let parsed = parse(&lines, 1, false).unwrap();
        assert!(parsed.files.is_empty());
        assert_eq!(parsed.mode_only, ["x"]);
        assert_eq!(
            files[0].op,
            FileOp::Add {
                path: "e".into(),
                lines: vec![],
                no_eol: false
            }
        );
        assert_eq!(
            files[1].op,
            FileOp::Delete {
                path: "d".into(),
                expect: Some(vec![])
            }
        );
    }

    #[test]
    fn no_newline_markers_apply_to_their_side() {
        let files = ok("--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+a\n");
        let h = &update(&files[0]).2[0];
        assert!(h.old_no_eol && !h.new_no_eol);
        let files =
            ok("--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n-a\n+b\n c\n\\ No newline at end of file\n");
        let h = &update(&files[0]).2[0];
        assert!(h.old_no_eol && h.new_no_eol);
    }

    #[test]
    fn wrong_counts_are_tolerated_both_ways() {
        // Counts too small: the remaining hunk lines still belong to the hunk.
        let files = ok("--- a/x\n+++ b/x\n@@ -1,1 +1,1 @@\n a\n-b\n+c\n d\n--- a/y\n+++ b/y\n@@ -1 +1 @@\n-p\n+q\n");
        assert_eq!(update(&files[0]).2[0].lines.len(), 4);
        assert_eq!(update(&files[1]).0, "y");
        // Counts too large: the hunk ends where the next block starts.
        let files = ok("--- a/x\n+++ b/x\n@@ -1,9 +1,9 @@\n-b\n+c\ndiff --git a/y b/y\n--- a/y\n+++ b/y\n@@ -1 +1 @@\n-p\n+q\n");
        assert_eq!(files.len(), 2);
        assert_eq!(update(&files[0]).2[0].lines.len(), 2);
    }

    #[test]
    fn counted_lines_win_over_header_lookalikes() {
        // "--- x" is a removed line "-- x" while the counts say lines remain.
        let files = ok("--- a/x\n+++ b/x\n@@ -1,2 +1,1 @@\n--- x\n+++ y\n");
        let h = &update(&files[0]).2[0];
        assert_eq!(
            h.lines,
            [
                HunkLine::Remove("-- x".into()),
                HunkLine::Add("++ y".into())
            ]
        );
    }

    #[test]
    fn blank_lines_and_signatures() {
        let files = ok("--- a/x\n+++ b/x\n@@\n a\n\n-b\n\n\nnot a hunk line\n");
        assert_eq!(
            update(&files[0]).2[0].lines,
            [
                HunkLine::Context("a".into()),
                HunkLine::Context("".into()),
                HunkLine::Remove("b".into())
            ]
        );
        let files = ok("From abc\nSubject: x\n---\n x | 2 +-\n\ndiff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n-- \n2.40.0\n");
        assert_eq!(update(&files[0]).2[0].lines.len(), 2);
    }

    #[test]
    fn a_context_line_without_its_space_is_an_error_not_a_silent_cut() {
        let lines: Vec<&str> = "--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n a\nfn b() {\n-c\n+d\n"
            .lines()
            .collect();
        let e = parse(&lines, 1, false).unwrap_err();
        assert_eq!(e.fields["line"], 5);
        assert!(e.message.contains("leading space"), "{}", e.message);
        // Prose after the last hunk, and a format-patch trailer, are fine.
        ok("--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\nThat is all.\n");
        ok("--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n-- \n2.40.0\n\nFrom x\n---\n x | 2 +-\n");
    }

    #[test]
    fn quoted_and_spaced_git_paths() {
        assert_eq!(
            split_git_paths("a/my file.txt b/my file.txt"),
            (Some("a/my file.txt".into()), Some("b/my file.txt".into()))
        );
        assert_eq!(
            split_git_paths("\"a/t\\tab\" \"b/caf\\303\\251\""),
            (Some("a/t\tab".into()), Some("b/café".into()))
        );
        let files = ok("diff --git \"a/sp ace\" \"b/sp ace\"\n--- \"a/sp ace\"\n+++ \"b/sp ace\"\n@@ -1 +1 @@\n-a\n+b\n");
        assert_eq!(update(&files[0]).0, "sp ace");
    }

    #[test]
    fn errors() {
        let lines: Vec<&str> = "@@ -1 +1 @@\n-a\n+b".lines().collect();
        let e = parse(&lines, 1, false).unwrap_err();
        assert_eq!(e.fields["line"], 1);
        let lines: Vec<&str> = "--- a/x\n+++ b/x\n@@ -1,a +1 @@\n-a".lines().collect();
        let e = parse(&lines, 1, false).unwrap_err();
        assert!(e.message.contains("malformed"), "{}", e.message);
        assert_eq!(e.fields["line"], 3);
        let lines: Vec<&str> = "diff --git a/x b/y\ncopy from x\ncopy to y"
            .lines()
            .collect();
        assert!(parse(&lines, 1, false)
            .unwrap_err()
            .message
            .contains("copies"));
        let lines: Vec<&str> = "diff --git a/x b/x\nBinary files a/x and b/x differ"
            .lines()
            .collect();
        assert!(parse(&lines, 1, false)
            .unwrap_err()
            .message
            .contains("binary"));
        // diff -r's note about a binary file, outside any git block, is refused too.
        let lines: Vec<&str> = "--- a/t.txt\n+++ b/t.txt\n@@ -1 +1 @@\n-a\n+b\nBinary files a/x.png and b/x.png differ\n"
            .lines()
            .collect();
        let e = parse(&lines, 1, false).unwrap_err();
        assert!(e.message.contains("binary"), "{}", e.message);
        assert_eq!(e.fields["line"], 6);
        let lines: Vec<&str> = "--- /dev/null\n+++ b/x\n@@ -0,0 +1 @@\n a\n"
            .lines()
            .collect();
        assert!(parse(&lines, 1, false)
            .unwrap_err()
            .message
            .contains("only add"));
        let lines: Vec<&str> = "--- a/x\n+++ b/x\n".lines().collect();
        assert!(parse(&lines, 1, false)
            .unwrap_err()
            .message
            .contains("no hunks"));
    }
}
