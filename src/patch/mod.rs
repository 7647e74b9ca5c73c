//! Patches: the two accepted formats, parsed into one model, and their application to a file.
//!
//! - [`unified`]: unified diffs (`---` / `+++` / `@@`), including git's extended headers.
//! - [`codex`]: the `*** Begin Patch` … `*** End Patch` format.
//! - [`jsdiff`]: the errors jsdiff 9's `parsePatch` throws on a unified diff (the newest
//!   contract's `Malformed patch:` texts).
//!
//! [`parse`] detects the format: a line that is exactly `*** Begin Patch` before any unified
//! file header means the Begin-Patch format; otherwise a `--- ` / `diff --git ` / `@@` line
//! means a unified diff. Either may arrive wrapped in a shell heredoc
//! (`apply_patch <<'EOF'` … `EOF`, optionally after `cd <dir> && `, which makes relative paths
//! relative to `<dir>`) or a Markdown code fence; the wrapper is removed first.
//!
//! (Leading whitespace around the marker is tolerated.)
//!
//! Both parsers produce [`FilePatch`]es; [`apply`] locates hunks in a file ([`seek`]'s named
//! passes) and rebuilds its bytes, keeping every untouched byte.

pub mod apply;
pub mod codex;
pub mod jsdiff;
pub mod seek;
pub mod unified;

use crate::error::{ToolError, ToolResult};

/// Which syntax a patch was written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Unified,
    BeginPatch,
}

/// A parsed patch: its format and one block per file, in patch order.
#[derive(Debug, Clone, PartialEq)]
pub struct Patch {
    pub format: Format,
    pub files: Vec<FilePatch>,
    /// The directory of a `cd <dir> && apply_patch <<'EOF'` wrapper: relative paths in the
    /// patch are relative to it.
    pub base: Option<String>,
    /// After `files`, the patch has a block with hunks but no valid file path (only from
    /// [`parse_exact`]): once `files` are checked, the patch fails with
    /// `Patch is missing a valid file path`.
    pub no_path: bool,
}

/// One file's block.
#[derive(Debug, Clone, PartialEq)]
pub struct FilePatch {
    /// 1-based line of the patch text where the block starts.
    pub line: usize,
    pub op: FileOp,
}

/// What a block does to its file.
#[derive(Debug, Clone, PartialEq)]
pub enum FileOp {
    /// Create `path` with `lines`, each followed by `\n` — except the last when `no_eol`.
    Add {
        path: String,
        lines: Vec<String>,
        no_eol: bool,
    },
    /// Remove `path`. A unified diff carries the removed lines (`expect`), which must be the
    /// whole content; the Begin-Patch format carries none.
    Delete {
        path: String,
        expect: Option<Vec<String>>,
    },
    /// Apply `hunks` to `path`, and move it to `move_to` when given (a pure rename when there
    /// are no hunks).
    Update {
        path: String,
        move_to: Option<String>,
        hunks: Vec<Hunk>,
    },
}

impl FileOp {
    /// The path the block reads (or creates).
    pub fn path(&self) -> &str {
        match self {
            FileOp::Add { path, .. }
            | FileOp::Delete { path, .. }
            | FileOp::Update { path, .. } => path,
        }
    }
}

/// One hunk: context, removed and added lines, and where to look for them.
/// The numbers of a `@@ -l,s +l,s @@` header (a missing count is 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HunkHeader {
    pub old_start: usize,
    pub old_count: usize,
    pub new_start: usize,
    pub new_count: usize,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Hunk {
    /// 1-based line of the patch text where the hunk starts.
    pub line: usize,
    /// Begin-Patch `@@ <text>` anchors: lines to find, in order, before the hunk's own lines.
    pub anchors: Vec<String>,
    /// Unified diffs: the 1-based old-file line the header states (0 for an insertion at the
    /// very start). `None` when the header has no numbers.
    pub old_start: Option<usize>,
    pub lines: Vec<HunkLine>,
    /// Begin-Patch `*** End of File`: the hunk belongs at the end of the file.
    pub end_of_file: bool,
    /// Unified `\ No newline at end of file` after an old-side (context or removed) last line.
    pub old_no_eol: bool,
    /// Unified `\ No newline at end of file` after a new-side (context or added) last line.
    pub new_no_eol: bool,
    /// The newest contract's exact parse: the header has no numbers jsdiff can read, so its
    /// start is `NaN` and the hunk never applies (CONTRACT-v0.5-wording §7, `patch_failed`).
    pub unplaceable: bool,
}

/// One line of a hunk, without its prefix character.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HunkLine {
    Context(String),
    Remove(String),
    Add(String),
}

impl Hunk {
    /// A `\ No newline at end of file` line: the side(s) of the hunk's last line end without
    /// one.
    pub fn mark_no_eol(&mut self) {
        match self.lines.last() {
            Some(HunkLine::Context(_)) => {
                self.old_no_eol = true;
                self.new_no_eol = true;
            }
            Some(HunkLine::Remove(_)) => self.old_no_eol = true,
            Some(HunkLine::Add(_)) => self.new_no_eol = true,
            None => {}
        }
    }

    /// The lines the file must contain: context and removed lines, in order.
    pub fn old_lines(&self) -> Vec<&str> {
        self.lines
            .iter()
            .filter_map(|l| match l {
                HunkLine::Context(t) | HunkLine::Remove(t) => Some(line_text(t)),
                HunkLine::Add(_) => None,
            })
            .collect()
    }

    /// The lines the file will contain instead: context and added lines, in order.
    pub fn new_lines(&self) -> Vec<&str> {
        self.lines
            .iter()
            .filter_map(|l| match l {
                HunkLine::Context(t) | HunkLine::Add(t) => Some(line_text(t)),
                HunkLine::Remove(_) => None,
            })
            .collect()
    }

    pub fn added(&self) -> usize {
        self.lines
            .iter()
            .filter(|l| matches!(l, HunkLine::Add(_)))
            .count()
    }

    pub fn removed(&self) -> usize {
        self.lines
            .iter()
            .filter(|l| matches!(l, HunkLine::Remove(_)))
            .count()
    }
}

/// A parse error at a 1-based line of the patch text: `invalid_input` with a `line` field.
pub fn syntax_error(line: usize, message: impl AsRef<str>) -> ToolError {
    ToolError::invalid_input(format!(
        "patch line {line}: {}. Fix the patch and send it again; nothing was written.",
        message.as_ref()
    ))
    .with("line", line)
}

/// The patch text as lines, split on `\n`, with the wrapper (heredoc or code fence) removed.
/// Returns the lines and the 1-based patch line number of the first one.
///
/// When the first non-blank line ends in `\r`, the whole patch was written with CRLF endings
/// (pasted from a Windows editor) and one trailing `\r` is dropped from every line. Otherwise a
/// `\r` at the end of a hunk line is content: `git diff` of a CRLF file writes its lines that
/// way, and such a line is matched without it and written with a `\r\n` terminator (see
/// [`line_text`]).
pub fn patch_lines(input: &str) -> (Vec<&str>, usize) {
    let (lines, first, _) = patch_text(input);
    (lines, first)
}

/// [`patch_lines`], plus the directory of a `cd <dir> && apply_patch <<'EOF'` wrapper.
pub fn patch_text(input: &str) -> (Vec<&str>, usize, Option<&str>) {
    let mut lines: Vec<&str> = input.split('\n').collect();
    let crlf_patch = lines
        .iter()
        .find(|l| !l.trim().is_empty())
        .is_some_and(|l| l.ends_with('\r'));
    if crlf_patch {
        for line in &mut lines {
            *line = line.strip_suffix('\r').unwrap_or(line);
        }
    }
    if lines.last() == Some(&"") {
        lines.pop();
    }
    let (start, end, base) = unwrap_range(&lines);
    let offset = start + 1;
    (lines[start..end].to_vec(), offset, base)
}

/// A hunk line's text as matched against the file: without the `\r` of a CRLF line that a
/// diff of a CRLF file carries.
pub fn line_text(text: &str) -> &str {
    text.strip_suffix('\r').unwrap_or(text)
}

/// The range of `lines` inside a heredoc (`apply_patch <<'EOF'` … `EOF`) or a Markdown code
/// fence (```` ```diff ```` … ```` ``` ````), or all of them when there is no such wrapper.
fn unwrap_range<'a>(lines: &[&'a str]) -> (usize, usize, Option<&'a str>) {
    let all = (0, lines.len(), None);
    let Some(first) = lines.iter().position(|l| !l.trim().is_empty()) else {
        return all;
    };
    let Some(last) = lines.iter().rposition(|l| !l.trim().is_empty()) else {
        return all;
    };
    if first >= last {
        return all;
    }
    let head = lines[first].trim();
    let tail = lines[last].trim();
    if let Some((base, delimiter)) = heredoc(head) {
        if tail == delimiter {
            return (first + 1, last, base);
        }
    }
    if head.starts_with("```") && !head[3..].contains('`') && tail == "```" {
        return (first + 1, last, None);
    }
    all
}

/// The directory (of a `cd <dir> && ` prefix) and delimiter of `apply_patch <<'EOF'` (also
/// `applypatch`, `<<-`, `"EOF"`, bare `EOF`).
fn heredoc(line: &str) -> Option<(Option<&str>, &str)> {
    let (base, command) = match line.strip_prefix("cd ").and_then(|r| r.split_once("&&")) {
        Some((dir, command)) => (Some(unquote_word(dir.trim())?), command.trim_start()),
        None => (None, line),
    };
    let rest = command
        .strip_prefix("apply_patch")
        .or_else(|| command.strip_prefix("applypatch"))?;
    let rest = rest.trim_start().strip_prefix("<<")?;
    let rest = rest.strip_prefix('-').unwrap_or(rest).trim();
    let word = unquote_word(rest)?;
    let valid = word
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    valid.then_some((base, word))
}

/// A shell word without its quotes (`'x'`, `"x"` or `x`); `None` when empty or half-quoted.
fn unquote_word(word: &str) -> Option<&str> {
    let inner = word
        .strip_prefix('\'')
        .and_then(|r| r.strip_suffix('\''))
        .or_else(|| word.strip_prefix('"').and_then(|r| r.strip_suffix('"')))
        .unwrap_or(word);
    let bare = !inner.contains(['\'', '"']) && !inner.is_empty();
    bare.then_some(inner)
}

/// Which format the lines are in, or `None` when they hold no patch at all.
pub fn detect(lines: &[&str]) -> Option<Format> {
    for line in lines {
        if line.trim() == codex::BEGIN {
            return Some(Format::BeginPatch);
        }
        if line.starts_with("--- ") || line.starts_with("diff --git ") || line.starts_with("@@") {
            return Some(Format::Unified);
        }
    }
    None
}

/// Parses a patch in either format. With `newest`, a unified diff that is malformed or has
/// nothing to apply gets the newest contract's messages ([`unified::contract`]).
pub fn parse(input: &str, newest: bool) -> ToolResult<Patch> {
    let (lines, first_line, base) = patch_text(input);
    let format = detect(&lines);
    parse_lines(&lines, first_line, base, format, newest, false)
}

/// [`parse`] as the newest contract's exact texts need it (the root without extras): a
/// unified diff that jsdiff 9's `parsePatch` throws on is refused with its text
/// (CONTRACT-v0.5-wording §7: `Malformed patch: <jsdiff message>`, no fields) before our own,
/// more lenient parser reads it. A Begin-Patch block is not a unified diff.
pub fn parse_exact(input: &str) -> ToolResult<Patch> {
    let (lines, first_line, base) = patch_text(input);
    let format = detect(&lines);
    if format != Some(Format::BeginPatch) {
        if let Some(message) = jsdiff::parse_error(input) {
            return Err(unified::contract::malformed(message));
        }
    }
    parse_lines(&lines, first_line, base, format, true, true)
}

fn parse_lines(
    lines: &[&str],
    first_line: usize,
    base: Option<&str>,
    format: Option<Format>,
    newest: bool,
    exact: bool,
) -> ToolResult<Patch> {
    if newest && format.is_none() {
        return Err(ToolError::invalid_input(unified::contract::NO_HUNKS));
    }
    let format = format.ok_or_else(|| {
        ToolError::invalid_input(
            "no patch found: pass a unified diff (--- a/file, +++ b/file, @@ hunks) or a \
             '*** Begin Patch' … '*** End Patch' block",
        )
    })?;
    let mut no_path = false;
    let (files, mode_only) = match format {
        Format::Unified => {
            let parsed = unified::parse_with(lines, first_line, newest, exact)?;
            no_path = parsed.no_path;
            // Nothing to apply: no block has hunks, and none is a rename. A create or delete
            // block without hunks counts too (CONTRACT-v0.5-wording §7: a lone hunk-less
            // block is "no applicable hunks" whatever its names).
            let inert = |f: &FilePatch| match &f.op {
                FileOp::Update { hunks, move_to, .. } => hunks.is_empty() && move_to.is_none(),
                FileOp::Add { lines, .. } => lines.is_empty(),
                FileOp::Delete { expect, .. } => expect.as_ref().is_some_and(Vec::is_empty),
            };
            if newest && !no_path && parsed.files.iter().all(inert) {
                return Err(ToolError::invalid_input(unified::contract::NO_HUNKS));
            }
            (parsed.files, parsed.mode_only)
        }
        Format::BeginPatch => (codex::parse(lines, first_line)?, Vec::new()),
    };
    if no_path && files.is_empty() {
        return Err(ToolError::invalid_input(unified::contract::NO_PATH));
    }
    if files.is_empty() && !mode_only.is_empty() {
        return Err(ToolError::invalid_input(format!(
            "the patch only changes file modes ('old mode' / 'new mode' with no hunks, for {}); \
             apply_patch changes file contents, not modes, so there is nothing to apply. \
             Change a mode with bash instead (e.g. chmod +x {}).",
            mode_only.join(", "),
            mode_only[0]
        ))
        .with("path", mode_only[0].as_str()));
    }
    if files.is_empty() {
        return Err(ToolError::invalid_input(
            "the patch has no hunks and no rename: nothing to apply. Add at least one hunk, \
             file creation, deletion or move.",
        ));
    }
    Ok(Patch {
        format,
        files,
        base: base.map(str::to_string),
        no_path,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_seed(input: &str) -> ToolResult<Patch> {
        parse(input, false)
    }

    #[test]
    fn hunkless_blocks_alone_have_nothing_to_apply_at_the_newest_contract() {
        let message = |p: &str| parse(p, true).err().map(|e| e.message);
        let none = Some(unified::contract::NO_HUNKS.to_string());
        // A create, a delete, a modify and /dev/null -> /dev/null, each alone without hunks.
        assert_eq!(message("--- /dev/null\n+++ b/new.txt\n"), none);
        assert_eq!(message("--- a/old.txt\n+++ /dev/null\n"), none);
        assert_eq!(message("--- a/f\n+++ b/f\n"), none);
        assert_eq!(message("--- /dev/null\n+++ /dev/null\n"), none);
        // A rename without hunks is actionable; so is a hunk-less create beside a hunk.
        assert!(parse("--- a/f\n+++ b/g\n", true).is_ok());
        let both = "--- /dev/null\n+++ b/new.txt\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n";
        assert_eq!(parse(both, true).unwrap().files.len(), 2);
    }

    #[test]
    fn unwraps_heredocs_and_fences() {
        let (lines, first) =
            patch_lines("apply_patch <<'EOF'\n*** Begin Patch\n*** End Patch\nEOF\n");
        assert_eq!(lines, ["*** Begin Patch", "*** End Patch"]);
        assert_eq!(first, 2);
        let (lines, _) = patch_lines("applypatch <<-\"PATCH\"\r\nx\r\nPATCH");
        assert_eq!(lines, ["x"]);
        // CR that belongs to the content (a diff of a CRLF file) is kept.
        let (lines, _) = patch_lines("--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\r\n+b\r\n");
        assert_eq!(lines[3..], ["-a\r", "+b\r"]);
        assert_eq!(line_text("b\r"), "b");
        let (lines, _) = patch_lines("```diff\n--- a\n+++ b\n```\n");
        assert_eq!(lines, ["--- a", "+++ b"]);
        // A heredoc whose closing delimiter is missing is not unwrapped.
        let (lines, _) = patch_lines("apply_patch <<EOF\nx\n");
        assert_eq!(lines, ["apply_patch <<EOF", "x"]);
        // Only the apply_patch command is unwrapped.
        assert_eq!(heredoc("cat <<EOF"), None);
        assert_eq!(heredoc("apply_patch << 'END_P'"), Some((None, "END_P")));
        assert_eq!(
            heredoc("cd 'sub dir' && apply_patch <<\"EOF\""),
            Some((Some("sub dir"), "EOF"))
        );
        assert_eq!(heredoc("cd && apply_patch <<EOF"), None);
        let (lines, first, base) = patch_text("cd pkg && apply_patch <<'EOF'\nx\nEOF");
        assert_eq!((lines, first, base), (vec!["x"], 2, Some("pkg")));
    }

    #[test]
    fn detects_the_format() {
        assert_eq!(
            detect(&["*** Begin Patch", "--- x"]),
            Some(Format::BeginPatch)
        );
        assert_eq!(
            detect(&["diff --git a/x b/x", "*** Begin Patch"]),
            Some(Format::Unified)
        );
        assert_eq!(detect(&["junk", "--- a/x"]), Some(Format::Unified));
        assert_eq!(detect(&["  *** Begin Patch  "]), Some(Format::BeginPatch));
        assert_eq!(detect(&["hello"]), None);
    }

    #[test]
    fn no_patch_and_empty_patch_are_invalid_input() {
        let e = parse_seed("hello world").unwrap_err();
        assert!(e.message.contains("no patch found"), "{}", e.message);
        let e = parse_seed("diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n")
            .unwrap_err();
        assert_eq!(e.code, crate::error::ErrorCode::InvalidInput);
        assert!(
            e.message.contains("only changes file modes"),
            "{}",
            e.message
        );
        assert!(e.message.contains("chmod +x run.sh"), "{}", e.message);
        let e = parse_seed("*** Begin Patch\n*** End Patch\n").unwrap_err();
        assert!(
            e.message.contains("no hunks and no rename"),
            "{}",
            e.message
        );
    }
}

/// Random patch-like text through both parsers and the application: errors are fine, panics
/// are not.
#[cfg(test)]
mod fuzz {
    use super::*;

    const PIECES: &[&str] = &[
        "--- a/x",
        "+++ b/x",
        "--- /dev/null",
        "+++ /dev/null",
        "--- a/y\t1970-01-01 00:00:00 +0000",
        "@@ -1,2 +1,2 @@",
        "@@ -0,0 +1 @@",
        "@@ -3 +3,0 @@ fn",
        "@@ -1,a +1 @@",
        "@@",
        "@@ anchor",
        " a",
        " b\r",
        "-a",
        "-b",
        "+c",
        "+é“”",
        "\\ No newline at end of file",
        "*** Begin Patch",
        "*** End Patch",
        "*** Update File: x",
        "*** Add File: y",
        "*** Delete File: x",
        "*** Move to: z",
        "*** End of File",
        "diff --git a/x b/x",
        "diff --git \"a/q\\303\" \"b/q",
        "rename from x",
        "rename to z",
        "new file mode 100644",
        "deleted file mode 100644",
        "apply_patch <<'EOF'",
        "cd d && apply_patch <<EOF",
        "EOF",
        "```",
        "",
        "\r",
        "-- ",
        "junk",
    ];

    const HUNK_PIECES: &[&str] = &[
        " a",
        " b",
        " b\r",
        "-a",
        "-b",
        "-b ",
        "+c",
        "+é“”",
        "\\ No newline at end of file",
        "",
        "@@",
        "@@ a",
        "@@ -2 +2 @@",
    ];

    #[test]
    fn random_patches_never_panic() {
        let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n as u64) as usize
        };
        let files: [&[u8]; 5] = [
            b"",
            b"a\nb\n",
            b"a\r\nb",
            b"\xEF\xBB\xBFa\rb\r",
            b"x\xE9\na\n",
        ];
        let mut parsed = 0;
        for _ in 0..20_000 {
            let len = next(14);
            let frame = next(3);
            let vocabulary = if frame < 2 { HUNK_PIECES } else { PIECES };
            let mut text: Vec<&str> = (0..len)
                .map(|_| vocabulary[next(vocabulary.len())])
                .collect();
            // Most texts get a valid frame, so that the bodies reach the application.
            match frame {
                0 => {
                    text.insert(0, "@@");
                    text.insert(0, "+++ b/x");
                    text.insert(0, "--- a/x");
                }
                1 => {
                    text.insert(0, "*** Update File: x");
                    text.insert(0, "*** Begin Patch");
                    text.push("*** End Patch");
                }
                _ => {}
            }
            let Ok(patch) = parse(&text.join("\n"), false) else {
                continue;
            };
            parsed += 1;
            for fp in &patch.files {
                let file = files[next(files.len())];
                match &fp.op {
                    FileOp::Update { hunks, .. } => {
                        let _ = apply::apply_hunks(file, hunks, "x");
                    }
                    FileOp::Delete {
                        expect: Some(expect),
                        ..
                    } => {
                        let _ = apply::check_whole_content(file, expect, "x");
                    }
                    FileOp::Add { lines, no_eol, .. } => {
                        let _ = apply::render_new_file(lines, *no_eol);
                    }
                    FileOp::Delete { expect: None, .. } => {}
                }
            }
        }
        // Enough random texts are valid patches for the application to be exercised.
        assert!(parsed > 5_000, "only {parsed} random patches parsed");
    }
}
