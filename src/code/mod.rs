//! Code intelligence: tree-sitter grammars compiled into the addon, and what is built on them.
//!
//! - [`lang`]: which grammar a file is parsed with (extension, or `#!` line when extensionless);
//! - [`parse`]: parsing with a time budget and a cancel check, parsers cached per thread;
//! - [`outline`]: the query-driven symbol skeleton;
//! - [`syntax`]: ERROR / MISSING issues, check_syntax's JSON and the write-warning line;
//! - [`indent`]: the indentation-aware block read (exact where a grammar exists);
//! - [`tags`], [`nav`]: definitions and references (tags queries), the walk and reads of the
//!   navigation tools, and the tags cache; [`bodies`]: the C function bodies navigation parses
//!   around;
//! - [`structural`]: ast-grep patterns over these grammars.
//!
//! The tools (`tools/outline.rs`, `tools/check_syntax.rs`) and the write tools' warnings call
//! the functions here; nothing in this module formats a tool result beyond those texts.

pub mod bodies;
pub mod indent;
pub mod lang;
pub mod nav;
pub mod outline;
pub mod parse;
pub mod query;
pub mod structural;
pub mod syntax;
pub mod tags;

use std::io::Read;

use tree_sitter::Tree;

use crate::config::{Config, Profile};
use crate::confine::WorkPath;
use crate::error::{ErrorCode, ToolError, ToolResult};
use crate::paths;
use crate::text;
use lang::Grammar;
use parse::ParseFailure;

/// Which tool is asking: the two differ only in their unsupported-language messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    Outline,
    CheckSyntax,
}

/// A file read and parsed for outline or check_syntax.
pub struct Parsed {
    pub path: WorkPath,
    pub grammar: &'static Grammar,
    pub text: String,
    pub tree: Tree,
}

/// The shared steps of outline and check_syntax, in the contract's order: confinement, the
/// language check (before any read, except that an extensionless file is read for its `#!`
/// line), the read, the 2,000,000-byte parse limit, and the parse with its 2 s budget.
pub fn prepare(
    config: &Config,
    input: &str,
    purpose: Purpose,
    cancelled: &dyn Fn() -> bool,
) -> ToolResult<Parsed> {
    let path = paths::resolve(config, input)?;
    let ext = lang::extname(input);
    // The root without `extras` knows exactly the contract's languages (CONTRACT-v0.5 §4 and
    // -wording §6): no `#!` detection, no further grammars or outlines.
    let contract_only = config.contract_exact();
    let grammar = match lang::for_extension_in(&ext, contract_only) {
        Some(g) => Some(g),
        None if ext.is_empty() && !contract_only => shebang_grammar(&path),
        None => None,
    };
    let grammar = match grammar {
        None => return Err(unsupported(purpose, &ext, input, contract_only)),
        Some(g) if purpose == Purpose::Outline && !lang::has_outline(g, contract_only) => {
            return Err(ToolError::invalid_input(format!(
                "outline does not support {} files (supported: {}); check_syntax does support them.",
                g.name,
                lang::outline_languages(contract_only)
            ))
            .with("path", input));
        }
        Some(g) => g,
    };
    let decoded = text::read_text(&path, config)?;
    if decoded.text.len() > parse::PARSE_LIMIT {
        return Err(ToolError::new(
            ErrorCode::TooLarge,
            format!(
                "File exceeds the {}-byte parse limit: {input}",
                parse::PARSE_LIMIT
            ),
        )
        .with("path", input)
        .with("limit", parse::PARSE_LIMIT));
    }
    let tree = parse::parse(grammar, &decoded.text, parse::TOOL_BUDGET, cancelled)
        .map_err(|f| parse_error(f, input))?;
    if cancelled() {
        return Err(aborted(input));
    }
    Ok(Parsed {
        path,
        grammar,
        text: decoded.text,
        tree,
    })
}

/// The grammar an extensionless file's `#!` line names; `None` when it has none or cannot be
/// read (the caller then reports the contract's unsupported-language error, as for any
/// extensionless file).
fn shebang_grammar(path: &WorkPath) -> Option<&'static Grammar> {
    let mut head = [0u8; 256];
    let mut file = std::fs::File::open(&path.abs).ok()?;
    if !file.metadata().ok()?.is_file() {
        return None;
    }
    let n = file.read(&mut head).ok()?;
    let head = String::from_utf8_lossy(&head[..n]);
    lang::for_shebang(head.split('\n').next()?.trim_end_matches('\r'))
}

fn unsupported(purpose: Purpose, ext: &str, input: &str, contract_only: bool) -> ToolError {
    let what = lang::describe_extension(ext);
    let message = match purpose {
        Purpose::Outline => format!(
            "outline does not support {what} files (supported: {}).",
            lang::outline_languages(contract_only)
        ),
        Purpose::CheckSyntax => format!(
            "check_syntax does not support {what} files; supported extensions: {}",
            lang::supported_extensions(contract_only)
        ),
    };
    ToolError::invalid_input(message).with("path", input)
}

fn parse_error(failure: ParseFailure, input: &str) -> ToolError {
    match failure {
        ParseFailure::Timeout => {
            ToolError::new(ErrorCode::Timeout, format!("Parsing timed out: {input}"))
                .with("path", input)
        }
        ParseFailure::Aborted => aborted(input),
        ParseFailure::Runtime(msg) => {
            eprintln!("clarvis-agent-tools: tree-sitter parse failed: {msg}");
            ToolError::new(ErrorCode::Internal, "tree-sitter runtime failed to load")
        }
    }
}

fn aborted(input: &str) -> ToolError {
    ToolError::new(ErrorCode::Aborted, format!("Parsing aborted: {input}")).with("path", input)
}

/// Whether indentation reads use grammars: tree-sitter is available, and the newest contract
/// is served.
fn tree_sitter_on(config: &Config) -> bool {
    config.tree_sitter_available && config.profile == Profile::Current
}

/// Whether writes get syntax warnings: `treeSitterAvailable` was given as true (a caller-built
/// config without it gets none, as the contract says), and the newest contract is served (the
/// seed contract has no warnings).
fn warnings_on(config: &Config) -> bool {
    config.syntax_warnings && config.profile == Profile::Current
}

/// The indentation-mode block of a file's text (see [`indent::select`]): the grammar (by
/// extension or `#!` line) makes the block ends exact when the text parses within the 2 s
/// budget; otherwise indentation alone decides. `lines` is `text` split into lines.
pub fn indentation_block(
    config: &Config,
    display: &str,
    text: &str,
    lines: &[&str],
    opts: indent::Options,
) -> ToolResult<indent::Selection> {
    let tree = grammar_for_write(display, text, false)
        .filter(|_| tree_sitter_on(config) && text.len() <= parse::PARSE_LIMIT)
        .and_then(|g| parse::parse(g, text, parse::TOOL_BUDGET, &|| false).ok());
    indent::select(lines, text, tree.as_ref(), opts)
}

/// The grammar a written file is checked with: its extension's, or (extensionless, unless
/// `contract_only`) the one its new content's `#!` line names.
fn grammar_for_write(path: &str, text: &str, contract_only: bool) -> Option<&'static Grammar> {
    let ext = lang::extname(path);
    match lang::for_extension_in(&ext, contract_only) {
        Some(g) => Some(g),
        None if ext.is_empty() && !contract_only => {
            lang::for_shebang(text.split('\n').next()?.trim_end())
        }
        None => None,
    }
}

/// The grammar a write is checked with under `config`: none when writes get no warnings.
fn warned_grammar(config: &Config, path: &str, text: &str) -> Option<&'static Grammar> {
    warnings_on(config)
        .then(|| grammar_for_write(path, text, config.contract_exact()))
        .flatten()
}

/// A copy of a file's text before an edit, kept only when a warning could use it (warnings are
/// on, the file has a grammar and is small enough to be checked).
pub fn keep_before(config: &Config, display: &str, text: &str) -> Option<String> {
    (text.len() <= parse::WARNING_LIMIT && warned_grammar(config, display, text).is_some())
        .then(|| text.to_string())
}

/// The text of a file about to be overwritten, when a warning could use it (see
/// [`keep_before`]); `None` when it is missing, unreadable, too large or not UTF-8.
pub fn read_before(config: &Config, path: &WorkPath) -> Option<String> {
    let ext = lang::extname(&path.display);
    if !warnings_on(config)
        || (lang::for_extension_in(&ext, config.contract_exact()).is_none() && !ext.is_empty())
    {
        return None;
    }
    let meta = std::fs::symlink_metadata(&path.abs).ok()?;
    if !meta.is_file() || meta.len() > parse::WARNING_LIMIT as u64 {
        return None;
    }
    let bytes = std::fs::read(&path.abs).ok()?;
    keep_before(config, &path.display, utf8_text(&bytes)?)
}

/// The syntax warning for a write: `None` when the new text parses cleanly, has no grammar, is
/// over 1,000,000 bytes, takes over 1 s to parse, or anything fails (the write always stands).
/// Otherwise the contract's line for the first issue (without a leading newline). When `before`
/// is given and it already failed to parse, the line says the errors predate this write.
pub fn syntax_warning(
    config: &Config,
    display: &str,
    before: Option<&str>,
    after: &str,
) -> Option<String> {
    warning(config, display, before, || before.map(str::to_owned), after)
}

/// [`syntax_warning`] with the text before the write fetched only when the new text has an
/// issue (write_file reads the old file only then).
pub fn syntax_warning_with(
    config: &Config,
    display: &str,
    before: impl FnOnce() -> Option<String>,
    after: &str,
) -> Option<String> {
    warning(config, display, None, before, after)
}

/// [`syntax_warning_with`], the new text parsed incrementally when `edited_from` (the text an
/// edit made it from) still has its tree kept (see [`parse::parse_edited`]).
fn warning(
    config: &Config,
    display: &str,
    edited_from: Option<&str>,
    before: impl FnOnce() -> Option<String>,
    after: &str,
) -> Option<String> {
    if after.len() > parse::WARNING_LIMIT {
        return None;
    }
    let grammar = warned_grammar(config, display, after)?;
    let never = || false;
    let tree =
        parse::parse_edited(grammar, edited_from, after, parse::WARNING_BUDGET, &never).ok()?;
    let (issues, _) = syntax::issues(&tree, after);
    let first = issues.first()?;
    let mut line = syntax::warning_line(grammar.name, display, first);
    // The note on text already broken is the engine's, given with `extras`: the root's
    // warning is the contract's line exactly (CONTRACT-v0.5 §4), and parses nothing more.
    let broken_before = !config.contract_exact()
        && before().is_some_and(|b| {
            b.len() <= parse::WARNING_LIMIT
                && parse::parse(grammar, &b, parse::WARNING_BUDGET, &never)
                    .is_ok_and(|t| t.root_node().has_error())
        });
    if broken_before {
        line.push_str(" The file already had syntax errors before this write.");
    }
    Some(line)
}

/// The per-call warning budget of apply_patch and replace: at most five files that have a
/// grammar are checked; files without one do not count. Files are collected first and parsed
/// together by [`Warnings::lines`] (on several threads), so a caller can run the parses while
/// its writes wait for the disk.
#[derive(Debug, Default)]
pub struct Warnings {
    checked: usize,
    /// Each checked file: its name, its text before the write (if any) and after.
    pending: Vec<(String, Option<String>, String)>,
}

/// Files checked per apply_patch / replace call.
pub const MAX_WARNED_FILES: usize = 5;

impl Warnings {
    /// Takes one written file for checking if the budget allows (see [`syntax_warning`]);
    /// bytes that are not UTF-8 are skipped. A leading UTF-8 BOM is ignored.
    pub fn check(&mut self, config: &Config, display: &str, before: Option<&[u8]>, after: &[u8]) {
        // Without warnings (the seed entry) nothing is read: no UTF-8 check, no grammar lookup.
        if !warnings_on(config) {
            return;
        }
        let Some(after) = utf8_text(after) else {
            return;
        };
        if self.checked >= MAX_WARNED_FILES
            || grammar_for_write(display, after, config.contract_exact()).is_none()
        {
            return;
        }
        self.checked += 1;
        if after.len() <= parse::WARNING_LIMIT {
            self.pending.push((
                display.to_owned(),
                before.and_then(utf8_text).map(str::to_owned),
                after.to_owned(),
            ));
        }
    }

    /// Whether another file would still be checked.
    pub fn open(&self) -> bool {
        self.checked < MAX_WARNED_FILES
    }

    /// Whether any file waits to be parsed ([`Warnings::lines`] has work to do).
    pub fn pending(&self) -> bool {
        !self.pending.is_empty()
    }

    /// The warning lines, in the order the files were taken. The files are parsed several at
    /// once on the walk pool's threads (here, when there is one file or no pool). A check that
    /// fails gives no line: the write it describes has happened either way.
    pub fn lines(&self, config: &Config) -> Vec<String> {
        crate::walk::par_map(self.pending.iter().collect(), |(display, before, after)| {
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                syntax_warning(config, display, before.as_deref(), after)
            }))
            .ok()
            .flatten()
        })
        .into_iter()
        .flatten()
        .collect()
    }
}

/// Appends lines computed elsewhere (see [`Warnings::lines`]) to a tool's message.
pub fn append_lines(message: &mut String, lines: Vec<String>) {
    for line in lines {
        message.push('\n');
        message.push_str(&line);
    }
}

/// Appends a warning line (if any) to a tool's message.
pub fn append_warning(message: &mut String, warning: Option<String>) {
    if let Some(line) = warning {
        message.push('\n');
        message.push_str(&line);
    }
}

fn utf8_text(bytes: &[u8]) -> Option<&str> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    std::str::from_utf8(bytes).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::config_at as test_config;

    #[test]
    fn warning_for_broken_text_only() {
        let config = test_config(std::path::Path::new("/tmp"));
        assert_eq!(syntax_warning(&config, "a.py", None, "x = 1\n"), None);
        assert_eq!(syntax_warning(&config, "a.txt", None, "def (:"), None);
        let w = syntax_warning(&config, "a.py", None, "def f(:\n  pass\n").unwrap();
        assert!(
            w.starts_with("warning: python syntax error in a.py at line 1, column "),
            "{w}"
        );
        assert!(w.ends_with("); run check_syntax for details."), "{w}");
        let w = syntax_warning(&config, "a.py", Some("def (:"), "def f(:\n").unwrap();
        assert!(w.ends_with("); run check_syntax for details."), "{w}");
        let extras = Config {
            extras: true,
            ..config.clone()
        };
        let w = syntax_warning(&extras, "a.py", Some("def (:"), "def f(:\n").unwrap();
        assert!(w.ends_with(" The file already had syntax errors before this write."));
        // Extensionless: the new content's #! line picks the grammar, with `extras`; the
        // root without them knows only the contract's extensions, as check_syntax does.
        let broken_sh = "#!/bin/sh\nif then fi (\n";
        assert_eq!(syntax_warning(&config, "run", None, broken_sh), None);
        assert_eq!(syntax_warning(&config, "a.kt", None, "fun f( {\n"), None);
        let extras = Config {
            extras: true,
            ..config.clone()
        };
        assert!(syntax_warning(&extras, "run", None, broken_sh).is_some());
        assert!(syntax_warning(&extras, "a.kt", None, "fun f( {\n").is_some());
        let big = format!("let x = (;\n{}", " ".repeat(parse::WARNING_LIMIT));
        assert_eq!(syntax_warning(&config, "a.js", None, &big), None);
    }

    #[test]
    fn at_most_five_files_with_a_grammar() {
        let config = test_config(std::path::Path::new("/tmp"));
        let mut w = Warnings::default();
        for i in 0..3 {
            w.check(&config, "n.txt", None, b"((");
            w.check(&config, &format!("{i}.js"), None, b"let = ;");
        }
        for i in 3..8 {
            w.check(&config, &format!("{i}.js"), None, b"let = ;");
        }
        // In the order taken, from files parsed on threads of their own.
        let lines = w.lines(&config);
        assert_eq!(lines.len(), MAX_WARNED_FILES);
        for (line, i) in lines.iter().zip(0..) {
            assert!(line.contains(&format!("in {i}.js")), "{line}");
        }
    }
}
