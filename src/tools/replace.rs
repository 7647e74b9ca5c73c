//! `replace`: project-wide regex find and replace with JavaScript `RegExp` and
//! `String.prototype.replace` semantics. A dry run (the default) shows counts and a diff; an
//! apply writes every changed file in one transaction (all or nothing) under per-file locks,
//! keeping each file's line endings, BOM and undecodable bytes.
//!
//! The pattern is compiled by [`js_regex`], which gives Rust's engines JavaScript's syntax and
//! meaning, look-around and backreferences included.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::Deserialize;

use super::Tool;
use crate::atomic::{self, Transaction};
use crate::call::Ctx;
use crate::config::Config;
use crate::confine::WorkPath;
use crate::error::{ErrorCode, ToolError, ToolResult};
use crate::js_regex::{self, Flags, Groups, JsRegex};
use crate::output::Output;
use crate::paths;
use crate::text::{self, Editable, NewlineView};
use crate::tools::r#move::symlink_refused;
use crate::walk::{self, FileEntry, FileGlob, Walk, WalkOptions};
use crate::{code, unified_diff};

/// Longest pattern accepted, in bytes.
pub const MAX_PATTERN_BYTES: usize = 10_000;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Args {
    /// JavaScript regular expression to find (no slashes, no flags: use ignore_case and
    /// multiline). It must not match the empty string.
    pub pattern: String,
    /// Replacement text with JavaScript replace syntax: `$1`..`$99` for groups, `$<name>` for a
    /// named group, `$&` for the whole match, `$$` for a literal `$`.
    pub replacement: String,
    /// A file or directory to work in (default: the workspace root). At least one of path and
    /// glob is required.
    pub path: Option<String>,
    /// Only files whose path matches this glob (`*.ts` at any depth, `src/**/*.rs` relative to
    /// path). Ignored when path is a file.
    pub glob: Option<String>,
    /// Case-insensitive matching (default false).
    pub ignore_case: Option<bool>,
    /// `^` and `$` match at every line and `.` matches newlines (default false: `^` and `$`
    /// match only at the start and end of the whole file).
    pub multiline: Option<bool>,
    /// Preview only (default TRUE): counts and a diff, nothing written. Pass false to apply.
    pub dry_run: Option<bool>,
}

pub struct Replace;

impl Tool for Replace {
    const NAME: &'static str = "replace";
    const DESCRIPTION: &'static str = "Find and replace a regular expression (JavaScript syntax) across files: in one file (path), or in every file under a directory (path, default the root) whose path matches glob. Respects .gitignore; binary and oversized files are skipped. By default it is a DRY RUN that shows the number of replacements and a diff without writing; call again with dry_run: false to apply. Applying writes all changed files atomically (all or none), keeping line endings and encoding. Matching works on the text with \\n line endings; without multiline, ^ and $ are the start and end of the whole file. Use edit_file or multi_edit for a single hand-written change.";
    const MUTATING: bool = true;
    const TITLE: &'static str = "Find and replace across files";
    const SINCE_V05: bool = true;
    type Args = Args;

    fn run(args: Args, ctx: &Ctx) -> ToolResult<Output> {
        let (text, diff) = run_replace(args, ctx, &|| ctx.cancel.is_cancelled())?;
        let out = Output::text(text);
        Ok(match diff {
            Some(diff) => out.with_meta("diff", diff),
            None => out,
        })
    }
}

/// One changed file: where it is, its match count, its patch and its new bytes.
pub(crate) struct Change {
    pub(crate) path: WorkPath,
    pub(crate) count: usize,
    pub(crate) patch: String,
    bytes: Vec<u8>,
    old_text: String,
    new_text: String,
}

/// The replace tool's work: the output text and, after an apply, `meta.diff`.
pub fn run_replace(
    args: Args,
    config: &Config,
    cancelled: &(dyn Fn() -> bool + Sync),
) -> ToolResult<(String, Option<String>)> {
    let path_arg = args.path.as_deref().filter(|p| !p.is_empty());
    let glob_arg = args.glob.as_deref().filter(|g| !g.is_empty());
    if path_arg.is_none() && glob_arg.is_none() {
        return Err(ToolError::invalid_input(
            "Provide `path` or `glob` to scope the replacement.",
        ));
    }
    let re = compile(
        &args.pattern,
        args.ignore_case.unwrap_or(false),
        args.multiline.unwrap_or(false),
    )
    .map_err(|mut e| {
        // Beyond the contract's exact text: say what to pass instead.
        match js_regex::inline_flags_hint(&args.pattern) {
            Some(hint) if !config.contract_exact() => {
                e.message +=
                    &format!(". {hint}; pass ignore_case: true (or multiline: true) instead.");
            }
            _ => {}
        }
        e
    })?;
    let template = Template::parse(&args.replacement, &re.groups());
    let raw = path_arg.unwrap_or(".");
    let base = paths::resolve(config, raw)?;
    // fsError's words, with `path ?? "."` (CONTRACT-v0.5-wording §4): `f.txt/x` is ENOTDIR.
    let meta = crate::confine::stat(&base)
        .map_err(|e| crate::error::fs_error(config.contract_exact(), e, raw, "stat", &base.abs))?;
    let files = if meta.is_dir() {
        let glob = glob_arg.map(|g| FileGlob::new(g, "glob")).transpose()?;
        scope_files(config, &base, glob.as_ref(), cancelled)?
    } else {
        vec![base.abs.clone()]
    };
    let mut scanned = 0usize;
    let mut changes = Vec::new();
    for abs in files {
        if cancelled() {
            return Err(ToolError::new(
                ErrorCode::Aborted,
                "Replacement aborted (run cancelled); nothing was written.",
            ));
        }
        let display = paths::display_of(&config.workspace_root, &abs);
        let wp = WorkPath {
            input: display.clone(),
            display,
            abs,
            within: base.within.clone(),
            root: base.root.clone(),
        };
        let Some(file) = load(&wp, config) else {
            continue;
        };
        scanned += 1;
        if let Some(change) = replace_in(&wp, file, &re, &template) {
            changes.push(change);
        }
    }
    if changes.is_empty() {
        return Ok(("(no matches)".to_string(), None));
    }
    let total: usize = changes.iter().map(|c| c.count).sum();
    let patches: Vec<&str> = changes.iter().map(|c| c.patch.as_str()).collect();
    let diff = patches.join("\n");
    if args.dry_run.unwrap_or(true) {
        return Ok((
            format!(
                "{total} replacement(s) across {} file(s); {scanned} scanned (dry run \u{2014} pass dry_run: false to apply)\n\n{diff}",
                changes.len()
            ),
            None,
        ));
    }
    commit(&changes, cancelled, |path| {
        load(path, config).and_then(|f| replace_in(path, f, &re, &template))
    })?;
    let head = format!(
        "Replaced {total} occurrence(s) in {} file(s):",
        changes.len()
    );
    Ok((applied(config, head, &changes, "replacement"), Some(diff)))
}

/// The text of an applied change set: `head`, a `  M <path> (<n> <noun>[s])` line per file, and
/// the syntax warnings of the files written (see [`syntax_warnings`]). Shared with ast_grep.
pub(crate) fn applied(config: &Config, head: String, changes: &[Change], noun: &str) -> String {
    let mut out = head;
    for c in changes {
        let _ = write!(
            out,
            "\n  M {} ({} {noun}{})",
            c.path.display,
            c.count,
            if c.count == 1 { "" } else { "s" }
        );
    }
    let written: Vec<(&WorkPath, &str, &str)> = changes
        .iter()
        .map(|c| (&c.path, c.old_text.as_str(), c.new_text.as_str()))
        .collect();
    for warning in syntax_warnings(config, &written) {
        out.push('\n');
        out.push_str(&warning);
    }
    out
}

/// Writes every change in one transaction, all or nothing: each file is locked, checked not
/// to be a symlink, and read again to make sure `redo` still gives the same bytes (the file
/// did not change since the change was prepared), then all are committed together. Shared by
/// `replace` and `ast_grep`.
pub(crate) fn commit(
    changes: &[Change],
    cancelled: &(dyn Fn() -> bool + Sync),
    redo: impl Fn(&WorkPath) -> Option<Change>,
) -> ToolResult<()> {
    let abs: Vec<&Path> = changes.iter().map(|c| c.path.abs.as_path()).collect();
    let _locks = atomic::lock(&abs);
    let mut tx = Transaction::new();
    for change in changes {
        if crate::confine::lstat(&change.path)
            .is_ok_and(|m| m.kind == crate::confine::Kind::Symlink)
        {
            return Err(symlink_refused(&change.path.abs));
        }
        let now = redo(&change.path);
        if now.as_ref().map(|c| &c.bytes) != Some(&change.bytes) {
            return Err(ToolError::new(
                ErrorCode::IoError,
                format!(
                    "Failed to apply replacement: {} changed while the replacement was prepared; nothing was written. Run it again.",
                    change.path.display
                ),
            )
            .with("path", change.path.display.as_str()));
        }
        tx.write(&change.path, change.bytes.clone());
    }
    if cancelled() {
        return Err(ToolError::new(
            ErrorCode::Aborted,
            "Replacement aborted (run cancelled); nothing was written.",
        ));
    }
    tx.commit().map_err(|e| {
        let file = e
            .fields
            .get("path")
            .and_then(|v| v.as_str())
            .unwrap_or("")
            .to_string();
        ToolError::new(
            ErrorCode::IoError,
            format!(
                "Failed to apply replacement: {file}: {}; nothing was changed.",
                e.message
            ),
        )
        .with("path", file)
    })
}

/// The syntax warnings of contract §4: one `warning: …` line per written file that no longer
/// parses, checking at most five files that have a grammar (the shared budget of
/// [`code::Warnings`]). `written` holds each file with its text before and after.
pub fn syntax_warnings(config: &Config, written: &[(&WorkPath, &str, &str)]) -> Vec<String> {
    let mut warnings = code::Warnings::default();
    for (path, before, after) in written {
        if !warnings.open() {
            break;
        }
        warnings.check(
            config,
            &path.display,
            Some(before.as_bytes()),
            after.as_bytes(),
        );
    }
    warnings.lines(config)
}

/// The files a directory scope covers: dotfiles included, the ignore stack always applied
/// (so `.git`, `.clarvis` and temp files are never touched), filtered by `glob`, in sorted
/// absolute-path order (CONTRACT-v0.5 §2), as JavaScript sorts strings. The only place
/// `replace` touches the walker, which lists directories by descriptor, so a directory
/// swapped mid-walk cannot lead it outside.
fn scope_files(
    config: &Config,
    base: &WorkPath,
    glob: Option<&FileGlob>,
    cancelled: &(dyn Fn() -> bool + Sync),
) -> ToolResult<Vec<PathBuf>> {
    let options = WalkOptions {
        respect_ignore: true,
        show_internal: false,
        // Links are yielded (followed inside the workspace only) so that one among the
        // changed files refuses the apply rather than being skipped silently.
        follow_links: true,
        prefix: glob
            .map(|g| g.literal_prefix().to_vec())
            .unwrap_or_default(),
        // The walk yields only the files the glob matches.
        files: glob.cloned(),
    };
    let dir = walk::open_base(config, base)?;
    let (walker, root) = Walk::new(config, &base.abs, dir, &options);
    let found = walk::collect_files(&walker, root, usize::MAX, cancelled, || {
        |entry: &mut FileEntry<'_>| Some(base.abs.join(entry.rel()))
    });
    if found.aborted {
        return Err(ToolError::new(
            ErrorCode::Aborted,
            "Replacement aborted (run cancelled); nothing was written.",
        ));
    }
    let mut files = found.items;
    // JavaScript's `sort()` of the paths: UTF-16 code units.
    files.sort_by(|a, b| {
        walk::cmp_utf16_bytes(
            a.as_os_str().as_encoded_bytes(),
            b.as_os_str().as_encoded_bytes(),
        )
    });
    Ok(files)
}

/// Reads a file for replacing; `None` (skipped silently) when it is missing, not a regular
/// file, over `maxFileBytes`, binary (a NUL byte, which also catches UTF-16), or otherwise
/// unreadable.
pub(crate) fn load(path: &WorkPath, config: &Config) -> Option<Editable> {
    // A skipped file leaves no trace (CONTRACT-v0.5-wording §4: "grep and replace skip the
    // file"): an internal error's detail is reported only where an error reaches the caller.
    let bytes = text::read_capped(path, config).ok()?;
    let probe = text::BINARY_PROBE_BYTES;
    let head = &bytes[..bytes.len().min(probe)];
    let tail = &bytes[bytes.len().saturating_sub(probe)..];
    if head.contains(&0) || tail.contains(&0) {
        return None;
    }
    text::decode_editable(bytes, &path.display).ok()
}

/// Runs the replacement on one file's LF-normalized text; `None` when nothing changes.
fn replace_in(
    path: &WorkPath,
    file: Editable,
    re: &JsRegex,
    template: &Template,
) -> Option<Change> {
    change_from(path, file, |haystack| {
        let mut pieces: Vec<(usize, usize, String)> = Vec::new();
        let complete = re.each_match(haystack, |spans| {
            let whole = spans[0].clone()?;
            let text = template.expand(spans, haystack);
            pieces.push((whole.start, whole.end, text));
            Some(())
        });
        if !complete {
            // A backtracking pattern ran past its step limit: the file is left as it is,
            // rather than half replaced.
            crate::warn::emit(format!(
                "replace: the pattern needed too many backtracking steps in {}; the file was left unchanged",
                path.display
            ));
            return None;
        }
        Some(pieces)
    })
}

/// The change to one file made by replacing the pieces `pieces_of` finds in its LF-normalized
/// text (sorted `(start, end, replacement)` byte ranges), keeping its line endings, BOM and
/// undecodable bytes; `None` when nothing changes.
pub(crate) fn change_from(
    path: &WorkPath,
    file: Editable,
    pieces_of: impl FnOnce(&str) -> Option<Vec<(usize, usize, String)>>,
) -> Option<Change> {
    let view = NewlineView::new(&file.text);
    let haystack = view.text();
    let pieces = pieces_of(haystack)?;
    if pieces.is_empty() {
        return None;
    }
    let mut new_norm = String::with_capacity(haystack.len());
    let mut done = 0;
    for (s, e, r) in &pieces {
        new_norm.push_str(&haystack[done..*s]);
        new_norm.push_str(r);
        done = *e;
    }
    new_norm.push_str(&haystack[done..]);
    if new_norm == haystack {
        return None;
    }
    let patch = unified_diff::edit_patch(&path.display, haystack, &new_norm);
    let dominant = if pieces.iter().any(|p| p.2.contains('\n')) {
        text::dominant_terminator_in(&file.text)
    } else {
        "\n"
    };
    let refs: Vec<(usize, usize, &str)> = pieces
        .iter()
        .map(|(s, e, r)| (*s, *e, r.as_str()))
        .collect();
    let rendered = view.render(&refs, dominant);
    drop(view);
    let mut file = file;
    let old_text = file.text.clone();
    text::apply_rendered(&mut file.text, rendered);
    let new_text = file.text.clone();
    Some(Change {
        path: path.clone(),
        count: pieces.len(),
        patch,
        bytes: file.into_bytes(),
        old_text,
        new_text,
    })
}

/// Compiles replace's pattern as the contract does: a JavaScript `RegExp` with flags `g`
/// (+`ms` with `multiline`, +`i` with `ignore_case`), then, after compiling, the refusal of a
/// pattern that matches the empty string, checked with no flags (`/p/.test("")`).
pub fn compile(pattern: &str, ignore_case: bool, multiline: bool) -> ToolResult<JsRegex> {
    let bad = |msg: String| {
        ToolError::invalid_input(format!("Invalid regex: {msg}")).with("pattern", pattern)
    };
    if pattern.len() > MAX_PATTERN_BYTES {
        return Err(bad(format!(
            "the pattern is {} bytes, over the {MAX_PATTERN_BYTES}-byte limit",
            pattern.len()
        )));
    }
    let flags = Flags {
        global: true,
        ignore_case,
        multiline,
    };
    let re = js_regex::compile(pattern, flags).map_err(bad)?;
    let plain = if ignore_case || multiline {
        &js_regex::compile(pattern, Flags::default()).map_err(bad)?
    } else {
        &re
    };
    if plain.matches_empty() {
        return Err(ToolError::invalid_input(
            "pattern matches the empty string; refusing to insert the replacement between every character.",
        )
        .with("pattern", pattern));
    }
    Ok(re)
}

// ---------------------------------------------------------------------------------------------
// JavaScript replacement templates

#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Literal(String),
    Group(usize),
    Whole,
    Before,
    After,
}

/// A replacement string parsed once with `String.prototype.replace`'s `$` rules (ES2023
/// GetSubstitution): `$$`, `$&`, `` $` ``, `$'`, `$n` / `$nn` (only groups that exist; `$10`
/// falls back to `$1` + `0` when there are fewer than ten), `$<name>` (only when the pattern
/// has named groups). Anything else, including `${name}`, is literal.
#[derive(Debug, Clone)]
pub struct Template {
    parts: Vec<Part>,
}

impl Template {
    pub fn parse(src: &str, groups_of: &Groups) -> Template {
        let groups = groups_of.count;
        let has_named = groups_of.names.iter().any(Option::is_some);
        let b = src.as_bytes();
        let mut parts = Vec::new();
        let mut lit = String::new();
        let mut i = 0;
        let flush = |lit: &mut String, parts: &mut Vec<Part>| {
            if !lit.is_empty() {
                parts.push(Part::Literal(std::mem::take(lit)));
            }
        };
        while i < b.len() {
            if b[i] != b'$' || i + 1 >= b.len() {
                let ch = src[i..].chars().next().unwrap_or('$');
                lit.push(ch);
                i += ch.len_utf8();
                continue;
            }
            let next = b[i + 1];
            let part = match next {
                b'$' => {
                    lit.push('$');
                    i += 2;
                    continue;
                }
                b'&' => Some((Part::Whole, 2)),
                b'`' => Some((Part::Before, 2)),
                b'\'' => Some((Part::After, 2)),
                b'0'..=b'9' => {
                    let d1 = usize::from(next - b'0');
                    let two = b
                        .get(i + 2)
                        .filter(|c| c.is_ascii_digit())
                        .map(|c| d1 * 10 + usize::from(c - b'0'));
                    match two {
                        Some(nn) if nn >= 1 && nn <= groups => Some((Part::Group(nn), 3)),
                        _ if d1 >= 1 && d1 <= groups => Some((Part::Group(d1), 2)),
                        _ => None,
                    }
                }
                // `$<name>` is that group, or nothing when no group has the name.
                b'<' if has_named => src[i + 2..].find('>').map(|end| {
                    let name = &src[i + 2..i + 2 + end];
                    let index = groups_of
                        .names
                        .iter()
                        .position(|n| n.as_deref() == Some(name));
                    let part = index.map_or(Part::Literal(String::new()), Part::Group);
                    (part, end + 3)
                }),
                _ => None,
            };
            match part {
                Some((p, used)) => {
                    flush(&mut lit, &mut parts);
                    parts.push(p);
                    i += used;
                }
                None => {
                    lit.push('$');
                    i += 1;
                }
            }
        }
        flush(&mut lit, &mut parts);
        Template { parts }
    }

    /// The replacement for one match of `haystack`, whose group spans are `spans`.
    pub fn expand(&self, spans: &[Option<std::ops::Range<usize>>], haystack: &str) -> String {
        let mut out = String::new();
        let span = |n: usize| spans.get(n).cloned().flatten();
        let text = |n: usize| span(n).map_or("", |r| &haystack[r]);
        let whole = span(0).unwrap_or(0..0);
        for p in &self.parts {
            match p {
                Part::Literal(s) => out.push_str(s),
                Part::Group(n) => out.push_str(text(*n)),
                Part::Whole => out.push_str(&haystack[whole.clone()]),
                Part::Before => out.push_str(&haystack[..whole.start]),
                Part::After => out.push_str(&haystack[whole.end..]),
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::config_at;
    use std::fs;

    fn js_replace_with(text: &str, re: &JsRegex, repl: &str) -> String {
        let groups = re.groups();
        let t = Template::parse(repl, &groups);
        let (mut out, mut done) = (String::new(), 0);
        assert!(re.each_match(text, |spans| {
            let whole = spans[0].clone()?;
            out.push_str(&text[done..whole.start]);
            out.push_str(&t.expand(spans, text));
            done = whole.end;
            Some(())
        }));
        out.push_str(&text[done..]);
        out
    }

    fn js_replace(text: &str, pattern: &str, repl: &str) -> String {
        js_replace_with(text, &compile(pattern, false, false).unwrap(), repl)
    }

    fn is_match(re: &JsRegex, text: &str) -> bool {
        let mut any = false;
        re.each_match(text, |_| {
            any = true;
            None
        });
        any
    }

    #[test]
    fn replacement_templates_follow_js() {
        assert_eq!(js_replace("ab", "(a)(b)", "$2$1"), "ba");
        assert_eq!(js_replace("ab", "(a)(b)", "$$1"), "$1");
        assert_eq!(js_replace("ab", "(a)(b)", "[$&]"), "[ab]");
        assert_eq!(js_replace("xaby", "ab", "$`|$'"), "xx|yy");
        assert_eq!(js_replace("ab", "(a)b", "$10"), "a0");
        assert_eq!(js_replace("ab", "(a)b", "$2"), "$2");
        assert_eq!(js_replace("ab", "(a)b", "$0"), "$0");
        assert_eq!(js_replace("ab", "(?<x>a)b", "<$<x>>"), "<a>");
        assert_eq!(js_replace("ab", "(?<x>a)b", "$<nope>!"), "!");
        assert_eq!(js_replace("ab", "(a)b", "$<x>"), "$<x>");
        assert_eq!(js_replace("ab", "(?<x>a)b", "${x}"), "${x}");
        assert_eq!(js_replace("ab", "a", "$"), "$b");
        // A global search resumes where the last match ended: an empty match right after a
        // non-empty one counts, as in `"aab".replace(/a*(?=b)/g, "X")`.
        assert_eq!(js_replace("aab", "a*(?=b)", "X"), "XXb");
        assert_eq!(js_replace("ab", r"\b|b", "$$"), "$a$$");
        assert_eq!(js_replace("ab", "(?=b)|b", "X"), "aXb");
        assert_eq!(js_replace("a b", r"\b", "|"), "|a| |b|");
        assert_eq!(
            js_replace("abcdefghij", "(a)(b)(c)(d)(e)(f)(g)(h)(i)(j)", "$10-$1"),
            "j-a"
        );
    }

    #[test]
    fn js_syntax_is_translated() {
        assert_eq!(js_replace("é1 a_b", r"\w+", "X"), "éX X");
        assert_eq!(js_replace("x٣1", r"\d", "D"), "x٣D");
        assert_eq!(js_replace("a\nb", "a[^]b", "X"), "X");
        assert_eq!(js_replace("a{b}", "a{b}", "X"), "X");
        assert_eq!(js_replace("aaa", "a{2}", "X"), "Xa");
        assert_eq!(js_replace("a[b&", r"[\[&]", "X"), "aXbX");
        assert_eq!(js_replace("a/b", r"a\/b", "X"), "X");
        assert_eq!(js_replace("x\u{1}y", r"\cA", "-"), "x-y");
        let e = compile("(", false, false).unwrap_err();
        assert!(e.message.starts_with("Invalid regex: "), "{}", e.message);
        assert_eq!(e.fields["pattern"], "(");
        // A look-ahead alone does not match "" (as `/(?=a)/.test("")` is false): it passes,
        // and matches before each `a`.
        assert_eq!(js_replace("ba", "(?=a)", "^"), "b^a");
        for empty in ["a*", "^", "$", "(?:)", "x?"] {
            let e = compile(empty, false, false).unwrap_err();
            assert!(
                e.message.starts_with("pattern matches the empty string"),
                "{empty}"
            );
        }
        assert!(compile(&"a".repeat(MAX_PATTERN_BYTES + 1), false, false).is_err());
    }

    #[test]
    fn anchors_are_whole_file_unless_multiline() {
        let re = compile("^b$", false, false).unwrap();
        assert!(!is_match(&re, "a\nb\nc"));
        let re = compile("^b$", false, true).unwrap();
        assert!(is_match(&re, "a\nb\nc"));
        let re = compile("a.b", false, true).unwrap();
        assert!(is_match(&re, "a\nb"));
        let re = compile("AB", true, false).unwrap();
        assert!(is_match(&re, "ab"));
    }

    #[test]
    fn look_around_and_backreferences_work_as_in_javascript() {
        // CONTRACT-v0.5 §2 replace: "Regex: JavaScript `RegExp`".
        assert_eq!(
            js_replace("foo bar foo baz", "foo(?= bar)", "X"),
            "X bar foo baz"
        );
        assert_eq!(
            js_replace("foo bar foo baz", "foo(?! bar)", "X"),
            "foo bar X baz"
        );
        assert_eq!(js_replace("$5 and 7", r"(?<=\$)\d", "N"), "$N and 7");
        assert_eq!(js_replace("a1 b2", r"(?<!a)\d", "#"), "a1 b#");
        assert_eq!(js_replace("aa ab bb", r"(\w)\1", "<$1>"), "<a> ab <b>");
        assert_eq!(js_replace("xx xy", r"(?<c>x)\k<c>", "[$<c>]"), "[x] xy");
        // The flags reach the backtracking engine too; \d stays ASCII there.
        let re = compile(r"^(\w)\1$", true, true).unwrap();
        assert_eq!(js_replace_with("aA\nbc\nBB", &re, "=$1"), "=a\nbc\n=B");
        assert_eq!(js_replace("٣٣ 33", r"(\d)\1", "D"), "٣٣ D");
        // A pattern that backtracks without end gives up: the file is left as it is.
        let re = compile(r"(a|aa)+\1c", false, false).unwrap();
        assert!(!re.each_match(&format!("{}!", "a".repeat(40)), |_| Some(())));
    }

    fn args(
        pattern: &str,
        replacement: &str,
        path: Option<&str>,
        glob: Option<&str>,
        dry: bool,
    ) -> Args {
        Args {
            pattern: pattern.into(),
            replacement: replacement.into(),
            path: path.map(Into::into),
            glob: glob.map(Into::into),
            ignore_case: None,
            multiline: None,
            dry_run: Some(dry),
        }
    }

    #[test]
    fn dry_run_then_apply_keeps_eols_bom_and_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let c = config_at(root);
        fs::write(root.join("crlf.txt"), "foo one\r\nbar\r\nfoo two\r\n").unwrap();
        fs::write(root.join("bom.txt"), "\u{FEFF}foo\n").unwrap();
        fs::write(root.join("latin1.txt"), b"caf\xE9 foo\n").unwrap();
        fs::write(root.join("bin.dat"), b"foo\0").unwrap();
        fs::write(root.join(".gitignore"), "ignored.txt\n").unwrap();
        fs::write(root.join("ignored.txt"), "foo\n").unwrap();
        fs::create_dir(root.join(".git")).unwrap();
        fs::write(root.join(".git/foo"), "foo\n").unwrap();
        let (out, meta) =
            run_replace(args("foo", "baz", Some("."), None, true), &c, &|| false).unwrap();
        assert!(meta.is_none());
        assert!(
            out.starts_with("4 replacement(s) across 3 file(s); 4 scanned (dry run \u{2014} pass dry_run: false to apply)\n\nIndex: bom.txt\n"),
            "{out}"
        );
        assert_eq!(fs::read(root.join("latin1.txt")).unwrap(), b"caf\xE9 foo\n");
        let (out, meta) =
            run_replace(args("foo", "baz", Some("."), None, false), &c, &|| false).unwrap();
        assert_eq!(
            out,
            "Replaced 4 occurrence(s) in 3 file(s):\n  M bom.txt (1 replacement)\n  M crlf.txt (2 replacements)\n  M latin1.txt (1 replacement)"
        );
        let diff = meta.unwrap();
        assert!(diff.contains("\n\nIndex: crlf.txt\n"), "{diff}");
        assert_eq!(
            fs::read_to_string(root.join("crlf.txt")).unwrap(),
            "baz one\r\nbar\r\nbaz two\r\n"
        );
        assert_eq!(
            fs::read_to_string(root.join("bom.txt")).unwrap(),
            "\u{FEFF}baz\n"
        );
        assert_eq!(fs::read(root.join("latin1.txt")).unwrap(), b"caf\xE9 baz\n");
        assert_eq!(fs::read(root.join("bin.dat")).unwrap(), b"foo\0");
        assert_eq!(
            fs::read_to_string(root.join("ignored.txt")).unwrap(),
            "foo\n"
        );
        assert_eq!(fs::read_to_string(root.join(".git/foo")).unwrap(), "foo\n");
    }

    #[test]
    fn scopes_and_errors() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let c = config_at(root);
        fs::create_dir_all(root.join("src/deep")).unwrap();
        fs::write(root.join("src/a.rs"), "x\n").unwrap();
        fs::write(root.join("src/deep/b.rs"), "x\n").unwrap();
        fs::write(root.join("src/c.md"), "x\n").unwrap();
        let run = |a: Args| run_replace(a, &c, &|| false);
        let (out, _) = run(args("x", "y", None, Some("*.rs"), true)).unwrap();
        assert!(
            out.starts_with("2 replacement(s) across 2 file(s); 2 scanned"),
            "{out}"
        );
        let (out, _) = run(args("x", "y", Some("src/c.md"), Some("*.rs"), true)).unwrap();
        assert!(
            out.starts_with("1 replacement(s) across 1 file(s); 1 scanned"),
            "{out}"
        );
        let (out, _) = run(args("x", "y", Some("src"), Some("deep/*.rs"), true)).unwrap();
        assert!(out.contains("Index: src/deep/b.rs"), "{out}");
        assert_eq!(
            run(args("zzz", "y", Some("src"), None, true)).unwrap().0,
            "(no matches)"
        );
        let e = run(args("x", "y", Some(""), Some(""), true)).unwrap_err();
        assert_eq!(
            e.message,
            "Provide `path` or `glob` to scope the replacement."
        );
        assert!(e.fields.is_empty());
        assert_eq!(
            run(args("x", "y", Some("nope"), None, true))
                .unwrap_err()
                .code,
            ErrorCode::NotFound
        );
        assert_eq!(
            run(args("x", "y", Some(".."), None, true))
                .unwrap_err()
                .code,
            ErrorCode::PathEscape
        );
        // Unchanged text (x -> x) is not counted.
        assert_eq!(
            run(args("x", "x", Some("src"), None, false)).unwrap().0,
            "(no matches)"
        );
        // An inline flag: the contract's text at the root, a way out with `extras`.
        let e = run(args("(?i)x", "y", Some("src"), None, true)).unwrap_err();
        assert_eq!(
            e.message,
            "Invalid regex: Invalid regular expression: /(?i)x/g: Invalid group"
        );
        let extras = Config {
            extras: true,
            ..c.clone()
        };
        let e = run_replace(
            args("(?i)x", "y", Some("src"), None, true),
            &extras,
            &|| false,
        )
        .unwrap_err();
        assert!(e
            .message
            .ends_with("pass ignore_case: true (or multiline: true) instead."));
        assert_eq!(e.fields["pattern"], "(?i)x");
    }

    #[cfg(unix)]
    #[test]
    fn apply_is_all_or_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let c = config_at(root);
        fs::write(root.join("a.txt"), "foo\n").unwrap();
        fs::write(root.join("real.txt"), "foo\n").unwrap();
        std::os::unix::fs::symlink(root.join("real.txt"), root.join("z-link.txt")).unwrap();
        let e = run_replace(args("foo", "bar", Some("."), None, false), &c, &|| false).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidInput);
        assert!(
            e.message
                .starts_with("Refusing to write through a symlink: /"),
            "{}",
            e.message
        );
        assert_eq!(fs::read_to_string(root.join("a.txt")).unwrap(), "foo\n");
        fs::remove_file(root.join("z-link.txt")).unwrap();
        // An injected failure on the last file leaves the first one untouched.
        fs::write(root.join("zz.txt"), "foo\n").unwrap();
        atomic::set_fail_on(Some("zz.txt".into()));
        let e = run_replace(args("foo", "bar", Some("."), None, false), &c, &|| false).unwrap_err();
        atomic::set_fail_on(None);
        assert_eq!(e.code, ErrorCode::IoError);
        assert!(
            e.message
                .starts_with("Failed to apply replacement: zz.txt: "),
            "{}",
            e.message
        );
        assert_eq!(fs::read_to_string(root.join("a.txt")).unwrap(), "foo\n");
        assert_eq!(fs::read_to_string(root.join("real.txt")).unwrap(), "foo\n");
    }

    #[test]
    fn an_aborted_call_writes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::write(root.join("a.txt"), "foo\n").unwrap();
        let c = config_at(root);
        let cancel = crate::call::Cancel::armed();
        cancel.cancel();
        let ctx = Ctx::new(&c, cancel);
        let e = Replace::run(args("foo", "bar", Some("."), None, false), &ctx).unwrap_err();
        assert_eq!(e.code, ErrorCode::Aborted);
        assert_eq!(fs::read_to_string(root.join("a.txt")).unwrap(), "foo\n");
    }
}
