//! `grep`: search file contents with ripgrep's own engines (`grep-regex` + `grep-searcher`) on
//! the shared walk policy ([`crate::walk`]), in process. The engine is always this one, whether
//! or not an `rg` binary is installed; at the exact root without `rg` (`ripgrepAvailable`
//! false, the reference's in-process path) the pattern is read as a JavaScript `RegExp` first
//! ([`crate::js_regex::rust_syntax`]).
//!
//! Exact answers in bounded memory, in two passes:
//! 1. The parallel walk counts matches in every file and keeps only `(path, count)` for files
//!    that match — never the matched text — so totals are exact whatever the number of matches.
//! 2. The results are sorted by path; the requested page (`offset`, `head_limit`) is located from
//!    the counts, and only the files it touches are searched again to render their rows, stopping
//!    at the page's end or the output byte budget.
//!
//! A file that fits one 256 KiB read (most source files) is searched as a slice; a larger one is
//! streamed through the searcher's own buffers, so memory stays flat whatever the files' sizes.
//! Files over `maxFileBytes` and binary files (a NUL byte in the first or last 8000 bytes,
//! [`text::looks_binary`]) are skipped; on the newest contract's ripgrep path a walked file is
//! binary as `rg` judges it instead ([`FileRules::rg_binary`]). UTF-16
//! files with a BOM are searched as text and a UTF-8 BOM is ignored; `\r\n` counts as a line
//! end, so `$` matches before it and no row shows the `\r`.

use std::collections::VecDeque;
use std::fs;
use std::io::{self, Read, Seek};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};

use grep_matcher::{LineTerminator, Matcher};
use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{
    BinaryDetection, MmapChoice, Searcher, SearcherBuilder, Sink, SinkContext, SinkMatch,
};
use schemars::JsonSchema;
use serde::Deserialize;

use super::Tool;
use crate::bound::bound;
use crate::call::Ctx;
use crate::config::{Config, Profile};
use crate::error::{io_err, ErrorCode, ToolError, ToolResult};
use crate::js_regex;
use crate::output::Output;
use crate::paging::{cut_line, past_the_end, strip_eol, Page, INCOMPLETE, MAX_ROW_CHARS};
use crate::paths;
use crate::text;
use crate::walk::{self, FileEntry, FileGlob, Walk, WalkOptions};

/// Bytes read from a file before its size is asked for: most source files fit, and a file that
/// does not is streamed.
const FIRST_READ: usize = 256 * 1024;
/// Matching files a scan keeps before it stops and reports an incomplete result.
pub const MAX_MATCHING_FILES: usize = 2_000_000;

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum OutputMode {
    #[default]
    FilesWithMatches,
    Content,
    Count,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// Regular expression to search for, in Rust regex syntax (as ripgrep): `fn \w+\(`,
    /// `TODO|FIXME`, `(?i)error`. Escape metacharacters to find literal text (`foo\.bar\(`).
    pub pattern: String,
    /// File or directory to search (default: the workspace root). A file is searched even when
    /// an ignore file would skip it.
    pub path: Option<String>,
    /// Only search files matching this glob. Without `/` it matches file names at any depth
    /// (`*.ts`, `*.{c,h}`); with `/` it matches paths relative to `path` (`src/**/*.rs`).
    pub glob: Option<String>,
    /// `files_with_matches` (default): the paths of matching files. `content`: matching lines as
    /// `path:line:text`. `count`: `path:N` per matching file.
    #[serde(default)]
    pub output_mode: OutputMode,
    /// Match case-insensitively (default false).
    pub ignore_case: Option<bool>,
    /// Let matches span lines (default false): `.` also matches a newline and `^` / `$` match at
    /// line starts and ends. A match prints all its lines under its first line's prefix and
    /// counts as one result.
    pub multiline: Option<bool>,
    /// Lines of context shown before and after each match (content mode only; default 0).
    pub context: Option<u64>,
    /// Lines of context before each match (content mode); overrides `context` for that side.
    pub before_context: Option<u64>,
    /// Lines of context after each match (content mode); overrides `context` for that side.
    pub after_context: Option<u64>,
    /// Return at most this many results: files, or matches in content mode. Omit for as many as
    /// fit the output limit.
    #[schemars(range(min = 1))]
    pub head_limit: Option<u64>,
    /// Number of results to skip (0-based; default 0), for paging: use the offset a footer
    /// gives you. A result offset, not a line number.
    pub offset: Option<u64>,
}

pub struct Grep;

impl Tool for Grep {
    const NAME: &'static str = "grep";
    const DESCRIPTION: &'static str = "Search file contents with a regular expression (Rust regex syntax, as in ripgrep) across a directory tree or in one file. output_mode files_with_matches (default) lists the matching files; content shows matching lines as `path:line:text` (context lines as `path-line-text`, `--` between separate groups); count gives `path:N` per file. Hidden files are searched; files ignored by .gitignore (and the rest of the git ignore stack), the .git directory, binary files and files over the size limit are skipped. Results are sorted by path, then line; when a footer says more results exist, call again with the offset it gives (head_limit sets the page size). Narrow a search with path and glob. To find files by name use glob; to read a file you found use read_file (the line numbers shown here are read_file offsets).";
    const MUTATING: bool = false;
    const TITLE: &'static str = "Search file contents";
    const BOUNDED: bool = true;
    type Args = Args;

    fn run(args: Args, ctx: &Ctx) -> ToolResult<Output> {
        let config: &Config = ctx;
        let base = paths::resolve_or_root(config, args.path.as_deref())?;
        // The search root is stat'ed first, before the pattern is compiled (CONTRACT-v0.5-
        // wording §1, "Search root"); at the root a missing one is named by its absolute path,
        // in the message and the `path` field ("grep alone reports the absolute path").
        let meta = crate::confine::stat(&base).map_err(|e| {
            if config.contract_exact() && e.kind() == std::io::ErrorKind::NotFound {
                let abs = base.abs.to_string_lossy();
                ToolError::new(ErrorCode::NotFound, format!("No such file: {abs}"))
                    .with("path", abs.as_ref())
            } else if config.contract_exact() {
                // fsError of the absolute search root (wording §4).
                crate::error::node_fs_error(&e, &base.abs.to_string_lossy(), "stat", &base.abs)
            } else {
                io_err(e, &base.display)
            }
        })?;
        let query = Query::new(&args, config)?;
        let glob = args
            .glob
            .as_deref()
            .map(|g| crate::pattern::check_len(g, "glob").and_then(|()| FileGlob::new(g, "glob")))
            .transpose()?;
        let scan = if is_internal(config, &base.abs) {
            Scan::default()
        } else if meta.is_dir() {
            let stop = || ctx.cancel.is_cancelled();
            query.scan_tree(
                config,
                &base,
                glob.as_ref(),
                MAX_MATCHING_FILES,
                &stop,
                &ctx.progress,
            )?
        } else if meta.is_file() {
            query.scan_file(config, &base)?
        } else {
            return Err(ToolError::new(
                ErrorCode::NotAFile,
                format!("Not a regular file or directory: {}", base.display),
            )
            .with("path", base.display.as_str()));
        };
        let page = PageSpec {
            offset: args.offset.unwrap_or(0),
            // `0` (allowed by the newest contract's schema) means unlimited.
            limit: args.head_limit.filter(|&l| l > 0).unwrap_or(u64::MAX),
            budget: config.max_output_bytes as usize,
        };
        if config.profile == Profile::Current {
            return Ok(query.compose(config, &scan, &page).into());
        }
        let text = query.render(&scan, &page);
        Ok(bound(text, config.max_output_bytes as usize).into())
    }
}

/// Whether `abs` lies inside the workspace under a `.git` / `.clarvis` / temp name, which
/// searches never show.
fn is_internal(config: &Config, abs: &Path) -> bool {
    abs.strip_prefix(&config.workspace_root)
        .is_ok_and(paths::is_internal)
}

/// One matching file found by the first pass.
#[derive(Debug, Clone)]
struct Hit {
    /// Relative to the walk base (a tree scan), or absolute (a single-file scan).
    path: PathBuf,
    display: String,
    /// Matches (lines, or multiline matches) in the file; 1 in files_with_matches mode.
    count: u64,
}

/// The first pass's answer: every matching file, sorted by path.
#[derive(Debug, Default)]
struct Scan {
    hits: Vec<Hit>,
    stopped_early: bool,
    /// Where pass 2 reads the hits again: never by path, which could be swapped meanwhile.
    source: Option<Source>,
}

#[derive(Debug)]
enum Source {
    /// The walk a tree scan ran on: its files are opened again through it.
    Tree(Box<Walk>),
    /// The one file the base path named, still open.
    File(fs::File),
}

/// The page the caller asked for.
struct PageSpec {
    offset: u64,
    limit: u64,
    budget: usize,
}

/// How a file fared when searched.
#[derive(Debug, PartialEq, Eq)]
enum Searched {
    Text,
    Binary,
    TooLarge,
}

/// Reads at `at` without moving the file's cursor (`pread`).
#[cfg(unix)]
fn read_at(file: &fs::File, buf: &mut [u8], at: u64) -> io::Result<usize> {
    std::os::unix::fs::FileExt::read_at(file, buf, at)
}

/// Reads at `at`; Windows' positional read moves the cursor, so it is put back.
#[cfg(windows)]
fn read_at(mut file: &fs::File, buf: &mut [u8], at: u64) -> io::Result<usize> {
    let pos = file.stream_position()?;
    let read = std::os::windows::fs::FileExt::seek_read(file, buf, at);
    file.seek(io::SeekFrom::Start(pos))?;
    read
}

/// How a file is judged and read before it is searched.
#[derive(Debug, Clone, Copy)]
struct FileRules {
    /// Files over this many bytes are skipped.
    max: u64,
    /// The NUL check has no UTF-16 exception (the newest contract's in-process path, and any
    /// single-file target there): a UTF-16 file is binary by it.
    strict_nul: bool,
    /// A lone `\r` ends a line, as the newest contract's in-process path decodes CR to LF.
    lone_cr: bool,
    /// Binary as `rg` judges a file its walk finds (the newest contract's ripgrep path:
    /// "rg's own semantics"): the file is read in the searcher's buffers, and the search
    /// quits at the first buffer holding a NUL, keeping the matches of the buffers before it
    /// (a UTF-16 file with a BOM is transcoded first, as rg does).
    rg_binary: bool,
}

impl FileRules {
    #[cfg(test)]
    fn plain(max: u64) -> FileRules {
        FileRules {
            max,
            strict_nul: false,
            lone_cr: false,
            rg_binary: false,
        }
    }

    fn binary(&self, head: &[u8], tail: &[u8]) -> bool {
        if self.strict_nul {
            text::has_nul_ends(head, tail)
        } else {
            text::looks_binary_ends(head, tail)
        }
    }
}

/// Every lone `\r` (one not followed by `\n`) of `buf` made a `\n`, in place; a `\r` at its
/// end is lone when `last` (nothing follows it).
fn lone_cr_to_lf(buf: &mut [u8], last: bool) {
    let mut at = 0;
    while let Some(i) = memchr::memchr(b'\r', &buf[at..]).map(|i| at + i) {
        if buf.get(i + 1).map_or(last, |&next| next != b'\n') {
            buf[i] = b'\n';
        }
        at = i + 1;
    }
}

/// A reader whose lone `\r` bytes read as `\n` (a `\r` at the end of a read is held back
/// until the byte after it is known).
struct LoneCr<R> {
    inner: R,
    held: Option<u8>,
}

impl<R: Read> Read for LoneCr<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if out.is_empty() {
            return Ok(0);
        }
        let mut n = 0;
        if let Some(b) = self.held.take() {
            out[0] = b;
            n = 1;
        }
        if n < out.len() {
            n += self.inner.read(&mut out[n..])?;
        }
        if n > 0 && out[n - 1] == b'\r' {
            let mut one = [0u8];
            let more = loop {
                match self.inner.read(&mut one) {
                    Ok(k) => break k,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Err(e) => return Err(e),
                }
            };
            if more == 1 {
                self.held = Some(one[0]);
                if one[0] != b'\n' {
                    out[n - 1] = b'\n';
                }
            } else {
                out[n - 1] = b'\n';
            }
            lone_cr_to_lf(&mut out[..n - 1], false);
        } else {
            lone_cr_to_lf(&mut out[..n], false);
        }
        Ok(n)
    }
}

/// Searches an opened file with `sink`, unless it is binary or over `rules.max` bytes. A file
/// that fits one read into `buf` is searched as a slice; a larger one is sized, judged by its
/// two ends, and streamed through the searcher's own buffers, so memory stays flat whatever
/// the file's size.
fn search_file<S: Sink<Error = io::Error>>(
    searcher: &mut Searcher,
    matcher: &RegexMatcher,
    mut file: fs::File,
    rules: FileRules,
    buf: &mut Vec<u8>,
    sink: S,
) -> io::Result<Searched> {
    let max = rules.max;
    buf.clear();
    let first = (FIRST_READ as u64).min(max.saturating_add(1));
    buf.reserve_exact((first as usize).saturating_sub(buf.capacity()));
    (&mut file).take(first).read_to_end(buf)?;
    if buf.len() as u64 > max {
        return Ok(Searched::TooLarge);
    }
    searcher.set_binary_detection(if rules.rg_binary {
        BinaryDetection::quit(b'\x00')
    } else {
        BinaryDetection::none()
    });
    if rules.rg_binary {
        // rg reads a walked file through its buffers and judges each as it comes: so do we.
        if (buf.len() as u64) == first && file.metadata()?.len() > max {
            return Ok(Searched::TooLarge);
        }
        let rest = file.take(max - buf.len() as u64);
        searcher.search_reader(matcher, io::Cursor::new(&buf[..]).chain(rest), sink)?;
        return Ok(Searched::Text);
    }
    if (buf.len() as u64) < first {
        if rules.binary(buf, buf) {
            return Ok(Searched::Binary);
        }
        if rules.lone_cr {
            lone_cr_to_lf(buf, true);
        }
        searcher.search_slice(matcher, buf, sink)?;
        return Ok(Searched::Text);
    }
    let len = file.metadata()?.len();
    if len > max {
        return Ok(Searched::TooLarge);
    }
    let mut tail = vec![0; text::BINARY_PROBE_BYTES];
    let mut got = 0;
    let tail_at = len.saturating_sub(tail.len() as u64);
    while got < tail.len() {
        match read_at(&file, &mut tail[got..], tail_at + got as u64)? {
            0 => break,
            n => got += n,
        }
    }
    if rules.binary(buf, &tail[..got]) {
        return Ok(Searched::Binary);
    }
    // The rest, up to the cap: a file growing meanwhile is searched as far as the cap.
    let rest = file.take(max - buf.len() as u64);
    let reader = io::Cursor::new(&buf[..]).chain(rest);
    if rules.lone_cr {
        let reader = LoneCr {
            inner: reader,
            held: None,
        };
        searcher.search_reader(matcher, reader, sink)?;
    } else {
        searcher.search_reader(matcher, reader, sink)?;
    }
    Ok(Searched::Text)
}

/// The compiled search: pattern, mode and context.
struct Query {
    matcher: Arc<RegexMatcher>,
    mode: OutputMode,
    multiline: bool,
    before: usize,
    after: usize,
    /// What the scan may gather before it stops as incomplete.
    budget: ScanBudget,
    /// Rows follow the newest contract's ripgrep path: a line that is not valid UTF-8 shows
    /// as empty text, a path that is not valid UTF-8 is left out.
    rg_rows: bool,
    /// The newest contract's in-process path: a zero-width multiline match is no match.
    skip_empty: bool,
    /// Names that are not valid UTF-8 are skipped (the newest contract, either path).
    utf8_names: bool,
    /// The newest contract to the letter (the root without `extras`, CONTRACT-v0.5-wording
    /// §1): rows show whole lines, paths sort by UTF-16 code units, a page's rows are chosen
    /// by the reference's rules, and the in-process path splits a run of single-line
    /// multiline matches into one row per line.
    exact: bool,
    /// Rows show whole lines, as both contracts' `path:LINE:text` does; with `extras` a line
    /// too long to read is cut around the match.
    whole_lines: bool,
    /// How the files of a tree scan are judged and read.
    tree_rules: FileRules,
}

/// The scan budget of the contract's two search paths (CONTRACT-v0.5-wording §1, "Scan
/// budget"): with `rg` available (`ripgrepAvailable`) the reference stops reading rg's JSON
/// stream once it is longer than `maxOutputBytes * 8`; without it, once the UTF-8 bytes of
/// the rows gathered exceed `maxOutputBytes`, checked after each whole file. The engine here is
/// always the in-process one; it spends the budget the way the path the reference would take
/// spends it, pricing a row as the JSON event rg would send for it when `rg` is the path.
#[derive(Debug, Clone, Copy)]
struct ScanBudget {
    limit: u64,
    rg_json: bool,
}

/// The fixed part of an rg `--json` match event, its newline included:
/// `{"type":"match","data":{"path":{"text":…},"lines":{"text":…},"line_number":…,`
/// `"absolute_offset":…,"submatches":[…]}}`. A context event says `context` and lists no
/// submatches.
const RG_MATCH_BYTES: u64 = 115;
const RG_CONTEXT_BYTES: u64 = 117;
/// One submatch without its text and offsets: `{"match":{"text":…},"start":…,"end":…}`.
const RG_SUBMATCH_BYTES: u64 = 37;
/// rg's `begin` and `end` events of a file with matches (the `end` one carries its stats).
const RG_FILE_BYTES: u64 = 330;

impl ScanBudget {
    fn of(config: &Config) -> ScanBudget {
        ScanBudget {
            limit: if config.ripgrep_available {
                config.max_output_bytes.saturating_mul(8)
            } else {
                config.max_output_bytes
            },
            rg_json: config.ripgrep_available,
        }
    }

    /// What one match row (a line or block, with its line end, at byte `offset` of its file)
    /// costs. On the ripgrep path `submatches` prices the event's submatches
    /// ([`Query::submatches_json`]); it is not called otherwise.
    fn matched(
        &self,
        bytes: &[u8],
        path_len: u64,
        offset: u64,
        submatches: impl FnOnce() -> u64,
    ) -> u64 {
        if self.rg_json {
            RG_MATCH_BYTES
                + path_len
                + json_data_len(bytes)
                + position_digits(offset)
                + submatches()
        } else {
            strip_eol(bytes).len() as u64
        }
    }

    /// What one context row costs.
    fn context(&self, bytes: &[u8], path_len: u64, offset: u64) -> u64 {
        if self.rg_json {
            RG_CONTEXT_BYTES + path_len + json_data_len(bytes) + position_digits(offset)
        } else {
            strip_eol(bytes).len() as u64
        }
    }

    /// What a file with matches costs beyond its rows.
    fn file(&self, path_len: u64) -> u64 {
        if self.rg_json {
            RG_FILE_BYTES + 2 * path_len
        } else {
            0
        }
    }
}

/// The length the reference counts for `bytes` inside rg's JSON: a JavaScript string's, in
/// UTF-16 code units, of the text as serde_json escapes it (`\"`, `\\`, `\n`, `\r`, `\t`, `\b`,
/// `\f` two units, other control characters six).
fn json_len(bytes: &[u8]) -> u64 {
    bytes
        .iter()
        .map(|&b| match b {
            b'"' | b'\\' | b'\n' | b'\r' | b'\t' | 0x08 | 0x0c => 2,
            0..=0x1f => 6,
            0x80..=0xbf => 0,
            0xf0..=0xff => 2,
            _ => 1,
        })
        .sum()
}

/// What rg's JSON spends on `bytes` as one of its data objects beyond `{"text":""}`: the
/// escaped text, or, for bytes that are not UTF-8, `{"bytes":…}` in base64 (one more
/// character for the key).
fn json_data_len(bytes: &[u8]) -> u64 {
    if std::str::from_utf8(bytes).is_ok() {
        json_len(bytes)
    } else {
        json_base64_len(bytes.len())
    }
}

/// `{"bytes":…}` for `n` bytes beyond `{"text":""}`: the base64 and the longer key.
fn json_base64_len(n: usize) -> u64 {
    1 + (n as u64).div_ceil(3) * 4
}

/// The digits of an event's `line_number` and `absolute_offset`. The first pass does not
/// count lines (that would cost every search a pass over every byte), so the line number's
/// digits are those of the offset over a typical line of 40 bytes.
fn position_digits(offset: u64) -> u64 {
    digits(offset) + digits(offset / 40 + 1)
}

fn digits(n: u64) -> u64 {
    u64::from(n.checked_ilog10().unwrap_or(0)) + 1
}

/// A bad pattern in the newest contract's words (CONTRACT-v0.5-wording §1, "Errors"), field
/// `pattern`: the ripgrep path's `ripgrep error: <stderr trimmed>` when `rg` is available (its
/// stderr is this same regex engine's report), else `Invalid regex: <engine message>`.
fn contract_regex_error(
    config: &Config,
    pattern: &str,
    report: &dyn std::fmt::Display,
    kind: &dyn std::fmt::Display,
) -> ToolError {
    let message = if config.ripgrep_available {
        format!("ripgrep error: {}", report.to_string().trim())
    } else {
        format!("Invalid regex: {kind}")
    };
    ToolError::invalid_input(message).with("pattern", pattern)
}

impl Query {
    fn new(args: &Args, config: &Config) -> ToolResult<Query> {
        let multiline = args.multiline.unwrap_or(false);
        crate::pattern::check_len(&args.pattern, "pattern")?;
        let ignore_case = args.ignore_case.unwrap_or(false);
        let mut builder = RegexMatcherBuilder::new();
        crate::pattern::limit(&mut builder)
            .case_insensitive(ignore_case)
            .multi_line(true)
            .crlf(true);
        if multiline {
            builder.dot_matches_new_line(true).line_terminator(None);
        }
        let exact = config.contract_exact();
        // The reference's in-process path (no `rg`). It compiles a JavaScript `RegExp`, flags
        // `i` or none, `gms`/`gmsi` when multiline, so the pattern is read as JavaScript reads
        // it and refused with V8's message; its NUL check spares no UTF-16 file, and it decodes
        // CR to LF (CONTRACT-v0.5-wording §1).
        let in_process = exact && !config.ripgrep_available;
        let pattern = if in_process {
            let flags = js_regex::Flags {
                global: multiline,
                ignore_case,
                multiline,
            };
            let bad = |message: String| {
                ToolError::invalid_input(format!("Invalid regex: {message}"))
                    .with("pattern", args.pattern.as_str())
            };
            js_regex::rust_syntax(&args.pattern, flags)
                .map_err(bad)?
                .ok_or_else(|| {
                    bad(format!(
                        "{}: look-around and backreferences are not supported by grep's engine; rewrite the pattern without them",
                        args.pattern
                    ))
                })?
        } else {
            args.pattern.clone()
        };
        // The syntax check first: its message quotes the pattern exactly as given (grep-regex
        // reports errors on its own wrapped form of it).
        if let Err(e) = regex_syntax::ast::parse::Parser::new().parse(&pattern) {
            if exact {
                return Err(contract_regex_error(config, &args.pattern, &e, e.kind()));
            }
            return Err(
                ToolError::invalid_input(format!("invalid regex in pattern: {e}"))
                    .with("field", "pattern"),
            );
        }
        let key = (pattern.clone(), ignore_case, multiline);
        let matcher = cached_matcher(key, || builder.build(&pattern)).map_err(|e| {
            if let Some(err) = crate::pattern::compile_error(&e.to_string(), "pattern") {
                return err;
            }
            if exact {
                let mut text = e.to_string();
                let kind = text.rsplit("error: ").next().unwrap_or(&text).trim().to_string();
                if text.contains("is not allowed in a regex") {
                    // What rg adds after this engine's report.
                    text.push_str("\n\nConsider enabling multiline mode with the --multiline flag (or -U for short).\nWhen multiline mode is enabled, new line characters can be matched.");
                }
                return contract_regex_error(config, &args.pattern, &text, &kind);
            }
            let mut message = format!("invalid regex in pattern: {e}");
            if !multiline && e.to_string().contains("is not allowed in a regex") {
                message.push_str(
                    "\nTo match across lines set multiline: true; to find a literal backslash-n, escape it as \\\\n.",
                );
            }
            ToolError::invalid_input(message).with("field", "pattern")
        })?;
        let context = |side: Option<u64>| {
            if args.output_mode != OutputMode::Content {
                return 0;
            }
            usize::try_from(side.or(args.context).unwrap_or(0)).unwrap_or(usize::MAX)
        };
        let newest = config.profile == Profile::Current;
        Ok(Query {
            matcher,
            mode: args.output_mode,
            multiline,
            before: context(args.before_context),
            after: context(args.after_context),
            budget: ScanBudget::of(config),
            rg_rows: newest && config.ripgrep_available,
            skip_empty: newest && multiline && !config.ripgrep_available,
            utf8_names: newest,
            exact,
            whole_lines: exact || config.profile == Profile::Seed,
            tree_rules: FileRules {
                max: config.max_file_bytes,
                strict_nul: in_process,
                lone_cr: in_process,
                rg_binary: exact && config.ripgrep_available,
            },
        })
    }

    fn searcher(&self, line_numbers: bool, with_context: bool) -> Searcher {
        let (before, after) = if with_context {
            (self.before, self.after)
        } else {
            (0, 0)
        };
        SearcherBuilder::new()
            .line_terminator(LineTerminator::crlf())
            .multi_line(self.multiline)
            .line_number(line_numbers)
            .before_context(before)
            .after_context(after)
            .binary_detection(BinaryDetection::none())
            .bom_sniffing(true)
            .memory_map(MmapChoice::never())
            .build()
    }

    /// Matches in an opened file, and what its rows cost the scan budget (`path_len`: the
    /// length of the path the rows name).
    fn count(
        &self,
        searcher: &mut Searcher,
        file: fs::File,
        buf: &mut Vec<u8>,
        path_len: u64,
        rules: FileRules,
    ) -> io::Result<(Searched, u64, u64)> {
        let mut sink = Counter {
            n: 0,
            cost: 0,
            query: self,
            path_len,
        };
        let searched = search_file(searcher, &self.matcher, file, rules, buf, &mut sink)?;
        let cost = if sink.n > 0 {
            sink.cost + self.budget.file(path_len)
        } else {
            0
        };
        Ok((searched, sink.n, cost))
    }

    /// How the one file a search names is judged: under the newest contract exactly, binary by
    /// the NUL check with no UTF-16 exception on either path (CONTRACT-v0.5-wording §1,
    /// "Search root").
    fn file_rules(&self) -> FileRules {
        FileRules {
            strict_nul: self.exact,
            rg_binary: false,
            ..self.tree_rules
        }
    }

    /// The pass-1 searcher: with the context the rows will show, since it costs budget too.
    fn counting_searcher(&self) -> Searcher {
        self.searcher(false, self.before > 0 || self.after > 0)
    }

    /// Whether a match block holds a match of at least one character (a zero-width multiline
    /// match is no match on the newest contract's in-process path).
    fn real_match(&self, bytes: &[u8]) -> bool {
        if !self.skip_empty {
            return true;
        }
        let mut found = false;
        let _ = self.matcher.find_iter(bytes, |m| {
            found = !m.is_empty();
            !found
        });
        found
    }

    /// The length of the `submatches` list rg's JSON gives for `row`: one object per match,
    /// with its text and byte offsets, comma-separated. Found as rg's printer finds them: a
    /// single-line search looks within the line less its `\n`, and an empty match at the very
    /// end of the row is dropped.
    fn submatches_json(&self, row: &[u8]) -> u64 {
        let hay = if self.multiline {
            row
        } else {
            row.strip_suffix(b"\n").unwrap_or(row)
        };
        let (mut len, mut n, mut last) = (0u64, 0u64, 0u64);
        let mut dropped = false;
        let _ = self.matcher.find_iter(hay, |m| {
            last = RG_SUBMATCH_BYTES
                + json_data_len(&hay[m])
                + digits(m.start() as u64)
                + digits(m.end() as u64);
            n += 1;
            len += last;
            dropped = m.is_empty() && m.start() >= row.len();
            true
        });
        if dropped {
            n -= 1;
            len -= last;
        }
        len + n.saturating_sub(1)
    }

    /// Pass 1 over a directory: count matches in every file the walk yields.
    fn scan_tree(
        &self,
        config: &Config,
        base: &crate::confine::WorkPath,
        glob: Option<&FileGlob>,
        cap: usize,
        stop: &(dyn Fn() -> bool + Sync),
        progress: &crate::call::Progress,
    ) -> ToolResult<Scan> {
        let options = WalkOptions {
            respect_ignore: true,
            show_internal: false,
            follow_links: true,
            prefix: glob
                .map(|g| g.literal_prefix().to_vec())
                .unwrap_or_default(),
            // The walk yields only the files the glob matches.
            files: glob.cloned(),
        };
        let dir = walk::open_base(config, base)?;
        let (walker, root) = Walk::new(config, &base.abs, dir, &options);
        let prefix = base.display_prefix();
        let prefix_json = json_len(prefix.as_bytes());
        // The budget spent so far; once over, no further file is scanned.
        let used = AtomicU64::new(0);
        let spent = AtomicBool::new(false);
        let halt = || spent.load(Relaxed) || stop();
        let collected = walk::collect_files(&walker, root, cap, &halt, || {
            let mut searcher = self.counting_searcher();
            let mut buf = Vec::new();
            let (used, spent, prefix) = (&used, &spent, &prefix);
            move |entry: &mut FileEntry<'_>| {
                let named = !self.utf8_names || entry.rel().to_str().is_some();
                if !named && !self.budget.rg_json {
                    return None;
                }
                // The path as rg's JSON names it (only the ripgrep path prices paths). A file
                // whose name is not UTF-8 is named in base64 (`{"bytes":…}`): the reference
                // drops its events, but they still fill the stream it reads
                // (CONTRACT-v0.5-wording §1, "Scan budget").
                let rel = entry.rel().as_os_str().as_encoded_bytes();
                let path_len = match (self.budget.rg_json, named) {
                    (false, _) => 0,
                    (true, true) => prefix_json + json_len(rel),
                    (true, false) => json_base64_len(prefix.len() + rel.len()),
                };
                let file = entry.open().ok()?;
                if progress.is_watched() {
                    // Files walked and bytes scanned, for a host that shows progress: one
                    // `fstat` more per file, paid only when someone watches.
                    let len = file.metadata().map_or(0, |m| m.len());
                    progress.add_file(len.min(self.tree_rules.max));
                }
                let (_, count, cost) = self
                    .count(&mut searcher, file, &mut buf, path_len, self.tree_rules)
                    .ok()?;
                if cost > 0
                    && used.fetch_add(cost, Relaxed).saturating_add(cost) > self.budget.limit
                {
                    spent.store(true, Relaxed);
                }
                (named && count > 0).then(|| Hit {
                    path: entry.rel().to_path_buf(),
                    display: String::new(),
                    count,
                })
            }
        });
        let spent = spent.into_inner();
        if collected.aborted && !spent {
            return Err(walk::aborted());
        }
        let mut hits = collected.items;
        for hit in &mut hits {
            hit.display = format!("{prefix}{}", rel_string(&hit.path));
        }
        if self.exact {
            // "code-unit sorted" (CONTRACT-v0.5-wording §1, "Units and rows"): JavaScript's
            // default sort of the display paths.
            hits.sort_unstable_by(|a, b| walk::cmp_utf16(&a.display, &b.display));
        } else {
            hits.sort_unstable_by(|a, b| walk::cmp_paths(&a.display, &b.display));
        }
        Ok(Scan {
            hits,
            stopped_early: collected.stopped_early || spent,
            source: Some(Source::Tree(Box::new(walker))),
        })
    }

    /// Pass 1 over one named file. One over `maxFileBytes` is skipped as in a walk (as
    /// `rg --max-filesize` skips a named file), so it has no matches; so is a binary one under
    /// the newest contract (CONTRACT-v0.5-wording §1, "Search root"), while the seed entry
    /// names it with `is_binary`.
    fn scan_file(&self, config: &Config, path: &crate::confine::WorkPath) -> ToolResult<Scan> {
        let (abs, display) = (&path.abs, path.display.as_str());
        let file = match crate::confine::open_read(path) {
            Ok(file) => file,
            // The in-process path skips a file it cannot read (CONTRACT-v0.5-wording §1, §4).
            Err(e)
                if self.tree_rules.lone_cr
                    && e.kind() == io::ErrorKind::PermissionDenied
                    && e.raw_os_error().is_some() =>
            {
                return Ok(Scan::default())
            }
            Err(e) => return Err(io_err(e, display)),
        };
        let searched = file.try_clone().and_then(|f| {
            let path_len = json_len(display.as_bytes());
            let rules = self.file_rules();
            self.count(
                &mut self.counting_searcher(),
                f,
                &mut Vec::new(),
                path_len,
                rules,
            )
        });
        let (searched, count, cost) = searched.map_err(|e| io_err(e, display))?;
        if searched == Searched::Binary {
            if config.profile == Profile::Current {
                return Ok(Scan::default());
            }
            return Err(text::binary_error(display));
        }
        let hits = if count > 0 {
            vec![Hit {
                path: abs.to_path_buf(),
                display: display.to_string(),
                count,
            }]
        } else {
            Vec::new()
        };
        Ok(Scan {
            hits,
            stopped_early: cost > self.budget.limit,
            source: Some(Source::File(file)),
        })
    }

    /// The result text for the requested page, with its footer.
    fn render(&self, scan: &Scan, spec: &PageSpec) -> String {
        let total: u64 = match self.mode {
            OutputMode::Content => scan.hits.iter().map(|h| h.count).sum(),
            _ => scan.hits.len() as u64,
        };
        if total == 0 {
            return "(no matches)".to_string();
        }
        if spec.offset >= total {
            return past_the_end(spec.offset, total, scan.stopped_early);
        }
        let end = spec.offset.saturating_add(spec.limit).min(total);
        let mut page = Page::new(spec.budget);
        match self.mode {
            OutputMode::Content => self.render_content(scan, spec.offset, end, &mut page),
            _ => {
                for hit in &scan.hits[spec.offset as usize..end as usize] {
                    let row = match self.mode {
                        OutputMode::Count => format!("{}:{}", hit.display, hit.count),
                        _ => hit.display.clone(),
                    };
                    if !page.push_result(Vec::new(), row) {
                        break;
                    }
                }
            }
        }
        page.finish(spec.offset, total, scan.stopped_early)
    }

    /// The newest contract's result (CONTRACT-v0.5-wording §1, "Composition"): the whole page
    /// rendered and bounded with the `output truncated` marker, then one of: the
    /// search-incomplete warning (the scan budget was spent), `(no matches)`, the offset
    /// message, the page-exceeded marker (the page alone was over `maxOutputBytes`), or the
    /// paging footer.
    fn compose(&self, config: &Config, scan: &Scan, spec: &PageSpec) -> String {
        let total: u64 = match self.mode {
            OutputMode::Content => scan.hits.iter().map(|h| h.count).sum(),
            _ => scan.hits.len() as u64,
        };
        let cap = config.max_output_bytes as usize;
        let end = spec.offset.saturating_add(spec.limit).min(total);
        let mut page = Page::new(usize::MAX);
        if spec.offset < total {
            match self.mode {
                OutputMode::Content => self.render_content(scan, spec.offset, end, &mut page),
                _ => {
                    for hit in &scan.hits[spec.offset as usize..end as usize] {
                        let row = match self.mode {
                            OutputMode::Count => format!("{}:{}", hit.display, hit.count),
                            _ => hit.display.clone(),
                        };
                        page.push_result(Vec::new(), row);
                    }
                }
            }
        }
        let over = page.text.len() > cap;
        let bounded = bound(page.text, cap);
        if scan.stopped_early {
            if total == 0 {
                return INCOMPLETE.to_string();
            }
            return format!("{bounded}\n{INCOMPLETE}");
        }
        if total == 0 {
            return "(no matches)".to_string();
        }
        if spec.offset >= total {
            return past_the_end(spec.offset, total, false);
        }
        if over {
            return format!("{bounded}\n[... page exceeded {cap} bytes and was cut; set or reduce head_limit to page in smaller chunks ...]");
        }
        let next = spec.offset + page.shown;
        if next < total {
            return format!(
                "{bounded}\n[... showing {}..{next} of {total}; call again with offset={next} for more ...]",
                spec.offset
            );
        }
        bounded
    }

    /// Pass 2: search again only the files holding results `start..end` and render them.
    fn render_content(&self, scan: &Scan, start: u64, end: u64, page: &mut Page) {
        let mut searcher = self.searcher(true, true);
        let mut buf = Vec::new();
        let context = self.before > 0 || self.after > 0;
        let mut first = 0u64;
        for hit in &scan.hits {
            let last = first + hit.count;
            let (from, to) = (first.max(start), last.min(end));
            first = last;
            if from >= to {
                if last >= end {
                    break;
                }
                continue;
            }
            let file = match &scan.source {
                Some(Source::Tree(walk)) => walk.open_rel(&hit.path),
                Some(Source::File(file)) => {
                    file.try_clone().and_then(|mut f| f.rewind().map(|()| f))
                }
                None => continue,
            };
            let Ok(file) = file else { continue };
            if context {
                page.gap = true;
            }
            let rules = match &scan.source {
                Some(Source::File(_)) => self.file_rules(),
                _ => self.tree_rules,
            };
            let skip = from - (last - hit.count);
            if self.exact {
                let mut sink = Collect {
                    query: self,
                    items: Vec::new(),
                };
                let _ = search_file(
                    &mut searcher,
                    &self.matcher,
                    file,
                    rules,
                    &mut buf,
                    &mut sink,
                );
                self.emit_exact(page, &hit.display, &sink.items, skip, to - from);
                continue;
            }
            let sink = Rows {
                query: self,
                page,
                display: &hit.display,
                skip,
                take: to - from,
                seen: 0,
                taken: 0,
                pending: VecDeque::new(),
                after_until: None,
            };
            // A file changed since the first pass into one that is skipped shows nothing now.
            let _ = search_file(&mut searcher, &self.matcher, file, rules, &mut buf, sink);
            if page.full {
                break;
            }
        }
    }
}

/// A relative path as results show it: `/`-separated, invalid UTF-8 replaced.
fn rel_string(rel: &Path) -> String {
    if cfg!(unix) {
        rel.to_string_lossy().into_owned()
    } else {
        paths::slash_join(rel)
    }
}

/// Compiled matchers kept for reuse: (pattern, ignore_case, multiline).
type MatcherKey = (String, bool, bool);
/// How many compiled patterns are kept (most recently used first).
const MATCHER_CACHE: usize = 16;

/// The compiled matcher for `key`, from a small most-recently-used cache: compiling a pattern
/// (its DFA included) costs more than searching a small tree, and agents repeat searches.
fn cached_matcher(
    key: MatcherKey,
    build: impl FnOnce() -> Result<RegexMatcher, grep_regex::Error>,
) -> Result<Arc<RegexMatcher>, grep_regex::Error> {
    static CACHE: Mutex<Vec<(MatcherKey, Arc<RegexMatcher>)>> = Mutex::new(Vec::new());
    {
        let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(i) = cache.iter().position(|(k, _)| *k == key) {
            let hit = cache.remove(i);
            let matcher = hit.1.clone();
            cache.insert(0, hit);
            return Ok(matcher);
        }
    }
    let matcher = Arc::new(build()?);
    let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
    cache.retain(|(k, _)| *k != key);
    cache.insert(0, (key, matcher.clone()));
    cache.truncate(MATCHER_CACHE);
    Ok(matcher)
}

/// Pass-1 sink: counts matches and prices their rows (and context rows) for the scan budget.
struct Counter<'a> {
    n: u64,
    cost: u64,
    query: &'a Query,
    path_len: u64,
}

impl Sink for Counter<'_> {
    type Error = io::Error;

    fn matched(&mut self, _: &Searcher, m: &SinkMatch<'_>) -> Result<bool, io::Error> {
        let (q, offset, path_len) = (self.query, m.absolute_byte_offset(), self.path_len);
        // Once this file alone is over the budget the scan stops after it whatever the rest
        // costs: its submatches are not looked for again.
        let priced = self.cost <= q.budget.limit;
        let cost = |row: &[u8], at: u64| {
            let submatches = || if priced { q.submatches_json(row) } else { 0 };
            q.budget.matched(row, path_len, at, submatches)
        };
        if q.split_runs() {
            for (_, range) in q.runs(m.bytes()) {
                self.n += 1;
                self.cost += cost(&m.bytes()[range.clone()], offset + range.start as u64);
            }
        } else if q.real_match(m.bytes()) {
            self.n += 1;
            self.cost += cost(m.bytes(), offset);
        }
        Ok(true)
    }

    fn context(&mut self, _: &Searcher, c: &SinkContext<'_>) -> Result<bool, io::Error> {
        let offset = c.absolute_byte_offset();
        self.cost += self.query.budget.context(c.bytes(), self.path_len, offset);
        Ok(true)
    }
}

/// A row of one file as the newest contract's search reports it: a match row (a unit of
/// paging) spanning lines `first..=last`, or a context line (`first == last`).
struct Item {
    first: u64,
    last: u64,
    is_match: bool,
    bytes: Vec<u8>,
}

/// Pass-2 sink under the newest contract exactly: every match and context row of a file,
/// chosen for the page afterwards ([`Query::emit_exact`]).
struct Collect<'a> {
    query: &'a Query,
    items: Vec<Item>,
}

impl Sink for Collect<'_> {
    type Error = io::Error;

    fn matched(&mut self, _: &Searcher, m: &SinkMatch<'_>) -> Result<bool, io::Error> {
        let first = m.line_number().unwrap_or(0);
        let mut push = |first: u64, bytes: &[u8]| {
            let lines = grep_searcher::LineIter::new(b'\n', bytes).count().max(1) as u64;
            self.items.push(Item {
                first,
                last: first + lines - 1,
                is_match: true,
                bytes: bytes.to_vec(),
            });
        };
        if self.query.split_runs() {
            for (line, range) in self.query.runs(m.bytes()) {
                push(first + line as u64, &m.bytes()[range]);
            }
        } else if self.query.real_match(m.bytes()) {
            push(first, m.bytes());
        }
        Ok(true)
    }

    fn context(&mut self, _: &Searcher, c: &SinkContext<'_>) -> Result<bool, io::Error> {
        let line = c.line_number().unwrap_or(0);
        self.items.push(Item {
            first: line,
            last: line,
            is_match: false,
            bytes: c.bytes().to_vec(),
        });
        Ok(true)
    }
}

impl Query {
    /// Whether a multiline block is split into the reference in-process path's rows: adjacent
    /// matched lines merge into runs; a run holding a multi-line match is one row, a run of
    /// single-line matches one row per line (CONTRACT-v0.5-wording §1, "Zero-width matches").
    fn split_runs(&self) -> bool {
        self.exact && self.skip_empty
    }

    /// The rows of a matched block under [`Query::split_runs`]: each row's first line (0-based
    /// in the block) and byte range. Zero-length matches are skipped; a match's last line is
    /// the one holding its last character.
    fn runs(&self, bytes: &[u8]) -> Vec<(usize, std::ops::Range<usize>)> {
        let mut starts = vec![0];
        starts.extend(
            memchr::memchr_iter(b'\n', bytes)
                .map(|i| i + 1)
                .filter(|&s| s < bytes.len()),
        );
        let line_of = |pos: usize| starts.partition_point(|&s| s <= pos) - 1;
        let mut spans: Vec<(usize, usize)> = Vec::new();
        let _ = self.matcher.find_iter(bytes, |m| {
            if !m.is_empty() {
                spans.push((line_of(m.start()), line_of(m.end() - 1)));
            }
            true
        });
        let end_of = |line: usize| starts.get(line + 1).copied().unwrap_or(bytes.len());
        let mut rows = Vec::new();
        let mut i = 0;
        while i < spans.len() {
            let (start, mut end) = spans[i];
            let mut multi = start != end;
            i += 1;
            while i < spans.len() && spans[i].0 <= end + 1 {
                end = end.max(spans[i].1);
                multi |= spans[i].0 != spans[i].1;
                i += 1;
            }
            if multi {
                rows.push((start, starts[start]..end_of(end)));
            } else {
                rows.extend((start..=end).map(|l| (l, starts[l]..end_of(l))));
            }
        }
        rows
    }

    /// Adds one file's share of the page as the reference chooses it (CONTRACT-v0.5-wording
    /// §1, "Units and rows"): the match rows `skip..skip+take` of the file, a context row only
    /// when within before/after of one of those (after-context counting from a multi-line
    /// row's last line), and `--` between rows whose lines are not adjacent.
    fn emit_exact(&self, page: &mut Page, display: &str, items: &[Item], skip: u64, take: u64) {
        let context = self.before > 0 || self.after > 0;
        let anchors: Vec<(u64, u64)> = items
            .iter()
            .filter(|i| i.is_match)
            .skip(usize::try_from(skip).unwrap_or(usize::MAX))
            .take(usize::try_from(take).unwrap_or(usize::MAX))
            .map(|i| (i.first, i.last))
            .collect();
        let (before, after) = (self.before as u64, self.after as u64);
        let near = |line: u64| {
            let i = anchors.partition_point(|&(_, last)| last.saturating_add(after) < line);
            anchors
                .get(i)
                .is_some_and(|&(first, _)| first.saturating_sub(before) <= line)
        };
        let mut unit = 0u64;
        let mut previous: Option<u64> = None;
        for item in items {
            let show = if item.is_match {
                unit += 1;
                unit > skip && unit <= skip + take
            } else {
                context && near(item.first)
            };
            if !show {
                continue;
            }
            if context && previous.is_some_and(|last| item.first != last + 1) {
                page.gap = true;
            }
            previous = Some(item.last);
            if item.is_match {
                page.push_result(Vec::new(), self.match_row(display, item.first, &item.bytes));
            } else {
                page.push_rows(&[self.row(display, item.first, '-', &item.bytes, None)]);
            }
        }
    }
}

/// Pass-2 sink: renders the rows of one file's share of the page.
struct Rows<'a> {
    query: &'a Query,
    page: &'a mut Page,
    display: &'a str,
    /// Matches of this file that belong to earlier pages.
    skip: u64,
    /// Matches of this file on this page.
    take: u64,
    seen: u64,
    taken: u64,
    /// Context rows that may lead the next shown match (at most `before` of them).
    pending: VecDeque<String>,
    /// The last line that is after-context of a shown match.
    after_until: Option<u64>,
}

impl Rows<'_> {
    /// Keeps a context row (line `line`, text `bytes`) that may lead the next shown match;
    /// without before-context nothing is kept, or even formatted.
    fn stage(&mut self, line: u64, bytes: &[u8]) {
        if self.query.before == 0 {
            return;
        }
        if self.pending.len() == self.query.before {
            self.pending.pop_front();
        }
        let row = self.query.row(self.display, line, '-', bytes, None);
        self.pending.push_back(row);
    }
}

impl Sink for Rows<'_> {
    type Error = io::Error;

    fn matched(&mut self, _: &Searcher, m: &SinkMatch<'_>) -> Result<bool, io::Error> {
        if !self.query.real_match(m.bytes()) {
            return Ok(true);
        }
        let first = m.line_number().unwrap_or(0);
        let index = self.seen;
        self.seen += 1;
        if index < self.skip {
            // An earlier page's match can still be context for this page's first one.
            self.after_until = None;
            for (i, line) in m.lines().enumerate() {
                self.stage(first + i as u64, line);
            }
            return Ok(true);
        }
        if self.taken >= self.take {
            return Ok(false);
        }
        let row = self.query.match_row(self.display, first, m.bytes());
        let lead: Vec<String> = self.pending.drain(..).collect();
        if !self.page.push_result(lead, row) {
            return Ok(false);
        }
        self.taken += 1;
        let lines = m.lines().count().max(1) as u64;
        let after = self.query.after as u64;
        self.after_until = Some(first + lines - 1 + after);
        Ok(self.taken < self.take || after > 0)
    }

    fn context(&mut self, _: &Searcher, c: &SinkContext<'_>) -> Result<bool, io::Error> {
        let line = c.line_number().unwrap_or(0);
        if let Some(until) = self.after_until.filter(|&u| line <= u) {
            let row = self.query.row(self.display, line, '-', c.bytes(), None);
            if !self.page.push_rows(&[row]) {
                return Ok(false);
            }
            return Ok(self.taken < self.take || line < until);
        }
        if self.taken >= self.take {
            return Ok(false);
        }
        self.stage(line, c.bytes());
        Ok(true)
    }

    fn context_break(&mut self, _: &Searcher) -> Result<bool, io::Error> {
        self.pending.clear();
        self.after_until = None;
        self.page.gap = true;
        Ok(self.taken < self.take)
    }
}

impl Query {
    /// A match row: `path:LINE:text`; a multiline match continues with its further lines.
    fn match_row(&self, display: &str, first: u64, bytes: &[u8]) -> String {
        if self.rg_rows && std::str::from_utf8(bytes).is_err() {
            // rg sends such lines as `{"bytes":…}`; the reference reads only `text`.
            return format!("{display}:{first}:");
        }
        if self.whole_lines {
            // The whole text, uncut: rg's `lines.text` less its final `\r?\n`, or the
            // in-process path's decoded lines joined by `\n`.
            if self.rg_rows {
                return format!(
                    "{display}:{first}:{}",
                    String::from_utf8_lossy(strip_eol(bytes))
                );
            }
            let lines: Vec<_> = grep_searcher::LineIter::new(b'\n', bytes)
                .map(|l| String::from_utf8_lossy(strip_eol(l)))
                .collect();
            return format!("{display}:{first}:{}", lines.join("\n"));
        }
        let mut lines = grep_searcher::LineIter::new(b'\n', bytes);
        let head = lines.next().unwrap_or(b"");
        // A line too long to show whole is shown around the match.
        let focus = if head.len() > MAX_ROW_CHARS {
            self.matcher
                .find(bytes)
                .ok()
                .flatten()
                .map(|m| m.start())
                .filter(|&s| s < head.len())
        } else {
            None
        };
        let mut row = self.row(display, first, ':', head, focus);
        for (i, line) in lines.enumerate() {
            row.push('\n');
            row.push_str(&cut_line(line, None, first + 1 + i as u64));
        }
        row
    }

    /// One line as a row: `path<sep>LINE<sep>text`, cut to [`MAX_ROW_CHARS`].
    fn row(
        &self,
        display: &str,
        line: u64,
        sep: char,
        bytes: &[u8],
        focus: Option<usize>,
    ) -> String {
        if self.rg_rows && std::str::from_utf8(bytes).is_err() {
            return format!("{display}{sep}{line}{sep}");
        }
        if self.whole_lines {
            let text = String::from_utf8_lossy(strip_eol(bytes));
            return format!("{display}{sep}{line}{sep}{text}");
        }
        format!("{display}{sep}{line}{sep}{}", cut_line(bytes, focus, line))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    use crate::testutil::config_at as config;

    fn grep(root: &Path, args: serde_json::Value) -> ToolResult<String> {
        let c = config(root);
        crate::testutil::call_text("grep", args, &c)
    }

    /// The engine's own rows (long lines cut, earlier matches as context, UTF-16 searched):
    /// with `extras`, where the contract's exact rules do not apply.
    fn grep_extras(root: &Path, args: serde_json::Value) -> ToolResult<String> {
        let c = Config {
            extras: true,
            ..config(root)
        };
        crate::testutil::call_text("grep", args, &c)
    }

    fn tree(root: &Path, files: &[(&str, &str)]) {
        for (f, body) in files {
            let p = root.join(f);
            fs::create_dir_all(p.parent().unwrap()).unwrap();
            fs::write(p, body).unwrap();
        }
    }

    #[test]
    fn the_root_names_a_missing_root_absolutely_and_a_bad_pattern_as_the_contract() {
        // CONTRACT-v0.5-wording §1: "a missing root ... → `not_found` `No such file: <absolute
        // resolved path>`, field `path` also absolute", stat'ed before the pattern compiles;
        // "rg exit 2 → `ripgrep error: <stderr trimmed>`" / "`Invalid regex: <engine
        // message>`", field `pattern`.
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let abs = root.join("no/pe").to_string_lossy().into_owned();
        for pattern in ["x", "("] {
            let e = grep(root, json!({"pattern": pattern, "path": "no/pe"})).unwrap_err();
            assert_eq!(
                e.envelope(),
                json!({"error": "not_found", "message": format!("No such file: {abs}"), "path": abs})
                    .to_string()
            );
        }
        let with_rg = Config {
            ripgrep_available: true,
            ..config(root)
        };
        let without = Config {
            ripgrep_available: false,
            ..config(root)
        };
        let e = crate::testutil::call_text("grep", json!({"pattern": "("}), &with_rg).unwrap_err();
        assert_eq!(
            e.message,
            "ripgrep error: regex parse error:\n    (\n    ^\nerror: unclosed group"
        );
        assert_eq!(e.fields["pattern"], "(");
        // The in-process path's engine is V8: `new RegExp("(", "")` / `("(", "gmsi")`.
        let e = crate::testutil::call_text("grep", json!({"pattern": "("}), &without).unwrap_err();
        assert_eq!(
            e.message,
            "Invalid regex: Invalid regular expression: /(/: Unterminated group"
        );
        let args = json!({"pattern": "a{2,1}", "multiline": true, "ignore_case": true});
        let e = crate::testutil::call_text("grep", args, &without).unwrap_err();
        assert_eq!(
            e.message,
            "Invalid regex: Invalid regular expression: /a{2,1}/gims: numbers out of order in {} quantifier"
        );
        let extras = Config {
            extras: true,
            ..config(root)
        };
        let e = crate::testutil::call_text("grep", json!({"pattern": "("}), &extras).unwrap_err();
        assert_eq!(e.fields["field"], "pattern");
    }

    #[test]
    fn without_rg_the_root_reads_the_pattern_as_javascript() {
        // CONTRACT-v0.5-wording §1: the in-process path runs a JavaScript `RegExp`; the
        // ripgrep path, rg's own syntax.
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        tree(root, &[("a.txt", "x{\n٣\np{L}\n7\n")]);
        let run = |pattern: &str, rg: bool| {
            let c = Config {
                ripgrep_available: rg,
                ..config(root)
            };
            let args = json!({"pattern": pattern, "output_mode": "content"});
            crate::testutil::call_text("grep", args, &c).map_err(|e| e.message)
        };
        assert_eq!(run("x{", false).unwrap(), "a.txt:1:x{");
        assert_eq!(run(r"^\d$", false).unwrap(), "a.txt:4:7");
        assert_eq!(run(r"\p{L}", false).unwrap(), "a.txt:3:p{L}");
        assert_eq!(run(r"^\d$", true).unwrap(), "a.txt:2:٣\na.txt:4:7");
        assert!(run("x{", true).unwrap_err().starts_with("ripgrep error: "));
        assert!(run("x(?=y)", false)
            .unwrap_err()
            .contains("look-around and backreferences are not supported"));
    }

    #[test]
    fn modes_and_sorting() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        tree(
            root,
            &[
                ("b.txt", "x\nfoo\nfoo\n"),
                ("a/z.txt", "foo\n"),
                ("a-b.txt", "no\n"),
            ],
        );
        assert_eq!(
            grep(root, json!({"pattern": "foo"})).unwrap(),
            "a/z.txt\nb.txt"
        );
        assert_eq!(
            grep(root, json!({"pattern": "foo", "output_mode": "count"})).unwrap(),
            "a/z.txt:1\nb.txt:2"
        );
        assert_eq!(
            grep(root, json!({"pattern": "foo", "output_mode": "content"})).unwrap(),
            "a/z.txt:1:foo\nb.txt:2:foo\nb.txt:3:foo"
        );
        assert_eq!(
            grep(root, json!({"pattern": "nope"})).unwrap(),
            "(no matches)"
        );
    }

    #[test]
    fn paging_is_exact_across_files() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        tree(root, &[("a", "m1\nm2\nm3\n"), ("b", "m4\nm5\n")]);
        let page = |offset: u64, limit: u64| {
            grep(
                root,
                json!({"pattern": "m", "output_mode": "content", "offset": offset, "head_limit": limit}),
            )
            .unwrap()
        };
        assert_eq!(
            page(2, 2),
            "a:3:m3\nb:1:m4\n[... showing 2..4 of 5; call again with offset=4 for more ...]"
        );
        assert_eq!(
            page(0, 3),
            "a:1:m1\na:2:m2\na:3:m3\n[... showing 0..3 of 5; call again with offset=3 for more ...]"
        );
        assert_eq!(page(4, 2), "b:2:m5");
        assert_eq!(page(5, 2), "(no results at offset 5; 5 total)");
    }

    #[test]
    fn context_groups_and_skipped_matches_as_context() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let body = "a\nhit1\nb\nc\nd\ne\nhit2\nf\n";
        tree(root, &[("f.txt", body), ("g.txt", "hit3\n")]);
        let out = grep(
            root,
            json!({"pattern": "hit", "output_mode": "content", "context": 1}),
        )
        .unwrap();
        assert_eq!(
            out,
            "f.txt-1-a\nf.txt:2:hit1\nf.txt-3-b\n--\nf.txt-6-e\nf.txt:7:hit2\nf.txt-8-f\n--\ng.txt:1:hit3"
        );
        let out = grep_extras(
            root,
            json!({"pattern": "hit", "output_mode": "content", "before_context": 5, "after_context": 0, "offset": 1, "head_limit": 1}),
        )
        .unwrap();
        assert_eq!(
            out,
            "f.txt-2-hit1\nf.txt-3-b\nf.txt-4-c\nf.txt-5-d\nf.txt-6-e\nf.txt:7:hit2\n[... showing 1..2 of 3; call again with offset=2 for more ...]"
        );
    }

    #[test]
    fn multiline_match_counts_once_under_first_prefix() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        tree(root, &[("m.rs", "fn a(\n  x,\n) {}\n\nfn b() {}\n")]);
        let out = grep(
            root,
            json!({"pattern": r"fn a\(.*?\)", "multiline": true, "output_mode": "content"}),
        )
        .unwrap();
        assert_eq!(out, "m.rs:1:fn a(\n  x,\n) {}");
        let count = grep(
            root,
            json!({"pattern": r"^fn \w+\(.*?\)", "multiline": true, "output_mode": "count"}),
        )
        .unwrap();
        assert_eq!(count, "m.rs:2");
        // Matches on touching lines merge into one result, as in ripgrep.
        tree(root, &[("t.rs", "fn a(\n) {}\nfn b() {}\n")]);
        let count = grep(
            root,
            json!({"pattern": r"^fn \w+\(.*?\)", "multiline": true, "output_mode": "count", "path": "t.rs"}),
        )
        .unwrap();
        assert_eq!(count, "t.rs:1");
        // With extras the engine's advice; the root words it as the contract (ripgrep's or
        // the regex engine's own report).
        let extras = Config {
            extras: true,
            ..config(root)
        };
        let e =
            crate::testutil::call_text("grep", json!({"pattern": r"a\nb"}), &extras).unwrap_err();
        assert!(e.message.contains("multiline: true"), "{}", e.message);
        let rg = Config {
            ripgrep_available: true,
            ..config(root)
        };
        let e = crate::testutil::call_text("grep", json!({"pattern": r"a\nb"}), &rg).unwrap_err();
        assert!(
            e.message.starts_with("ripgrep error: ")
                && e.message.ends_with(
                    "When multiline mode is enabled, new line characters can be matched."
                ),
            "{}",
            e.message
        );
    }

    #[test]
    fn byte_cap_cuts_the_page_with_a_lower_head_limit_footer() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        // 100 rows of 57 bytes: the scan finishes within rg's budget (8 × the cap of JSON),
        // the page does not fit the cap.
        let body: String = (0..100)
            .map(|i| format!("match line {i:04} {}\n", "y".repeat(40)))
            .collect();
        tree(root, &[("big.txt", &body)]);
        let mut c = config(root);
        c.profile = Profile::Seed;
        c.ripgrep_available = true;
        c.max_output_bytes = 4096;
        let args = json!({"pattern": "match", "output_mode": "content"});
        let out = crate::testutil::call_text("grep", args.clone(), &c).unwrap();
        assert!(out.len() <= 4096);
        let shown = out.lines().filter(|l| l.starts_with("big.txt:")).count();
        assert!(out.ends_with(&format!(
            "[... showing 0..{shown} of 100; the output limit cut this page short: call again with offset={shown} and a lower head_limit ...]"
        )), "{out}");
        // The newest contract: the whole page bounded, then the page-exceeded marker.
        c.profile = Profile::Current;
        let out = crate::testutil::call_text("grep", args, &c).unwrap();
        assert!(out.starts_with("big.txt:1:match line 0000"), "{out}");
        assert!(out.ends_with(" bytes shown ...]\n[... page exceeded 4096 bytes and was cut; set or reduce head_limit to page in smaller chunks ...]"), "{out}");
        // Without rg the budget is the rows' own bytes: these 5,700 are over it.
        c.ripgrep_available = false;
        let out = crate::testutil::call_text("grep", json!({"pattern": "match"}), &c).unwrap();
        assert_eq!(out, format!("big.txt\n{INCOMPLETE}"));
    }

    #[test]
    fn a_first_result_larger_than_the_cap_is_still_shown_cut() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let body: String = (0..3000).map(|i| format!("row {i}\n")).collect();
        tree(
            root,
            &[
                ("a.txt", &format!("start\n{body}end\n")),
                ("b.txt", "start\nend\n"),
            ],
        );
        let mut c = config(root);
        c.profile = Profile::Seed;
        c.max_output_bytes = 1024;
        let out = crate::testutil::call_text(
            "grep",
            json!({"pattern": "start.*?end", "multiline": true, "output_mode": "content"}),
            &c,
        )
        .unwrap();
        assert!(out.len() <= 1024, "{}", out.len());
        assert!(out.starts_with("a.txt:1:start\nrow 0\n"), "{out}");
        assert!(out.contains("more bytes of this result cut at the output limit ...]"));
        // The one block alone is over the scan budget: the scan says it is incomplete.
        assert!(out.ends_with(&format!("\n{INCOMPLETE}")), "{out}");
    }

    #[test]
    fn the_contracts_show_long_lines_whole() {
        // CONTRACT.md "grep": `content` → `path:LINE:text`; no contract cuts a row's text.
        let line = format!("{}NEEDLE{}", "a".repeat(3000), "b".repeat(2000));
        let dir = tempfile::tempdir().unwrap();
        tree(dir.path(), &[("min.js", &line)]);
        for profile in [Profile::Seed, Profile::Current] {
            let mut c = config(dir.path());
            c.profile = profile;
            let args = json!({"pattern": "NEEDLE", "output_mode": "content"});
            let out = crate::testutil::call_text("grep", args, &c).unwrap();
            assert_eq!(out, format!("min.js:1:{line}"), "{profile:?}");
        }
    }

    #[test]
    fn long_lines_are_cut_around_the_match() {
        let line = format!("{}NEEDLE{}", "a".repeat(3000), "b".repeat(2000));
        let dir = tempfile::tempdir().unwrap();
        tree(dir.path(), &[("min.js", &line)]);
        let out = grep_extras(
            dir.path(),
            json!({"pattern": "NEEDLE", "output_mode": "content"}),
        )
        .unwrap();
        assert!(
            out.starts_with("min.js:1:[... 2900 characters cut ...] aaa"),
            "{out}"
        );
        assert!(out.contains("NEEDLE"));
        assert!(out.ends_with(
            " [... 1606 characters cut; line 1 is 5006 characters: read_file with offset=1 shows it ...]"
        ), "{out}");
    }

    #[test]
    fn skips_binary_and_oversized_files_and_names_a_binary_one_asked_for() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        tree(
            root,
            &[
                ("bin.dat", "foo\0bar"),
                ("big.txt", &"foo\n".repeat(400)),
                ("ok.txt", "foo"),
            ],
        );
        let mut c = config(root);
        c.max_file_bytes = 1024;
        assert_eq!(
            crate::testutil::call_text("grep", json!({"pattern": "foo"}), &c).unwrap(),
            "ok.txt"
        );
        // The newest contract: a binary file named as the target has no matches.
        assert_eq!(
            crate::testutil::call_text("grep", json!({"pattern": "foo", "path": "bin.dat"}), &c)
                .unwrap(),
            "(no matches)"
        );
        c.profile = Profile::Seed;
        let e =
            crate::testutil::call_text("grep", json!({"pattern": "foo", "path": "bin.dat"}), &c)
                .unwrap_err();
        assert_eq!(e.code, ErrorCode::IsBinary);
        // An oversized file named directly is skipped as rg skips it: no matches.
        assert_eq!(
            crate::testutil::call_text("grep", json!({"pattern": "foo", "path": "big.txt"}), &c)
                .unwrap(),
            "(no matches)"
        );
    }

    #[test]
    fn big_files_are_streamed_with_the_same_counts_and_checks() {
        let dir = tempfile::tempdir().unwrap();
        let c = config(dir.path());
        let args: Args =
            serde_json::from_value(json!({"pattern": "^x", "output_mode": "count"})).unwrap();
        let q = Query::new(&args, &c).unwrap();
        let mut buf = Vec::new();
        let mut count = |name: &str, bytes: &[u8], max: u64| {
            let p = dir.path().join(name);
            fs::write(&p, bytes).unwrap();
            let mut sink = Counter {
                n: 0,
                cost: 0,
                query: &q,
                path_len: 1,
            };
            let file = fs::File::open(&p).unwrap();
            let searched = search_file(
                &mut q.searcher(false, false),
                &q.matcher,
                file,
                FileRules::plain(max),
                &mut buf,
                &mut sink,
            )
            .unwrap();
            // The buffer never grows past the first read, whatever the file.
            assert!(buf.capacity() <= 2 * FIRST_READ, "{}", buf.capacity());
            (searched, sink.n)
        };
        // Lines of 8 bytes ("x" + 6 + "\n"): whole lines up to, across and past the first read.
        for lines in [
            0,
            1,
            FIRST_READ / 8 - 1,
            FIRST_READ / 8,
            FIRST_READ / 8 + 1,
            3 * FIRST_READ / 8 + 5,
        ] {
            let body = "x234567\n".repeat(lines);
            assert_eq!(
                count("f", body.as_bytes(), 20_000_000),
                (Searched::Text, lines as u64),
                "{lines}"
            );
            // With CRLF ends and a line cut at the first read's edge.
            let crlf = format!("y{}", "x23456\r\n".repeat(lines));
            assert_eq!(
                count("g", crlf.as_bytes(), 20_000_000),
                (Searched::Text, lines.saturating_sub(1) as u64),
                "{lines}"
            );
        }
        // The cap, at and around the first read.
        assert_eq!(count("h", &[b'x'; 1000], 1000).0, Searched::Text);
        assert_eq!(count("h", &[b'x'; 1001], 1000).0, Searched::TooLarge);
        let big = vec![b'x'; FIRST_READ + 5];
        assert_eq!(count("i", &big, FIRST_READ as u64).0, Searched::TooLarge);
        assert_eq!(count("i", &big, FIRST_READ as u64 + 5).0, Searched::Text);
        // A NUL near the end of a streamed file makes it binary, as it does a small one.
        let mut tail_nul = "x\n".repeat(FIRST_READ);
        tail_nul.push('\0');
        assert_eq!(
            count("j", tail_nul.as_bytes(), 20_000_000).0,
            Searched::Binary
        );
        // A UTF-16 file with a BOM is text, streamed or not.
        let mut u16 = vec![0xFF, 0xFE];
        for u in "x\n".repeat(FIRST_READ).encode_utf16() {
            u16.extend(u.to_le_bytes());
        }
        assert_eq!(
            count("k", &u16, 20_000_000),
            (Searched::Text, FIRST_READ as u64)
        );
    }

    #[test]
    fn crlf_and_boms() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        tree(
            root,
            &[("w.txt", "one\r\ntwo\r\n"), ("bom.txt", "\u{FEFF}two\n")],
        );
        let mut le = vec![0xFF, 0xFE];
        for u in "x\ntwo\n".encode_utf16() {
            le.extend(u.to_le_bytes());
        }
        fs::write(root.join("u16.txt"), le).unwrap();
        assert_eq!(
            grep_extras(root, json!({"pattern": "^two$", "output_mode": "content"})).unwrap(),
            "bom.txt:1:two\nu16.txt:2:two\nw.txt:2:two"
        );
        // The contract's in-process path (no rg) skips UTF-16 by its NUL check.
        assert_eq!(
            grep(root, json!({"pattern": "^two$", "output_mode": "content"})).unwrap(),
            "bom.txt:1:two\nw.txt:2:two"
        );
    }

    #[test]
    fn lone_cr_reads_as_a_line_end_across_reads() {
        // A `\r` at the end of one read is judged by the byte after it.
        for chunk in 1..6 {
            let src = b"a\rb\r\nc\r".to_vec();
            let mut reader = LoneCr {
                inner: io::Cursor::new(src),
                held: None,
            };
            let mut out = Vec::new();
            let mut buf = vec![0; chunk];
            loop {
                let n = reader.read(&mut buf).unwrap();
                if n == 0 {
                    break;
                }
                out.extend_from_slice(&buf[..n]);
            }
            assert_eq!(out, b"a\nb\r\nc\n", "{chunk}");
        }
        let mut slice = b"a\rb\r\nc\r".to_vec();
        lone_cr_to_lf(&mut slice, true);
        assert_eq!(slice, b"a\nb\r\nc\n");
    }

    #[test]
    fn a_cancelled_call_stops_the_walk_with_aborted() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        tree(root, &[("a/x.txt", "needle\n"), ("b/y.txt", "needle\n")]);
        let c = config(root);
        let cancel = crate::call::Cancel::armed();
        cancel.cancel();
        let ctx = crate::call::Ctx::new(&c, cancel);
        for tool in ["grep", "glob"] {
            let spec = crate::tools::find(tool, &c).unwrap();
            let e = spec.call(json!({"pattern": "needle"}), &ctx).unwrap_err();
            assert_eq!(e.code, ErrorCode::Aborted, "{tool}");
            assert_eq!(e.message, "Search aborted (run cancelled)");
        }
    }

    /// On the ripgrep path a file's rows cost what rg's `--json` events for them measure as a
    /// JavaScript string (CONTRACT-v0.5-wording §1, "Scan budget"): checked against rg itself,
    /// on lines with several submatches, escapes, multibyte text and context rows. Lines and
    /// offsets are kept small, where the estimated line-number digits are exact.
    #[test]
    fn ripgrep_path_rows_cost_what_rgs_json_measures() {
        if std::process::Command::new("rg")
            .arg("--version")
            .output()
            .is_err()
        {
            eprintln!("rg is not installed: skipped");
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let text = "ab ab ab\nnone\n\"ab\"\tx\\ab\nh\u{e9} ab \u{1f600}ab\nplain\nab\r\n\u{1}ab\n";
        // And a line that is not UTF-8, which rg gives as `{"bytes":…}`, and a last line with
        // no line end (where rg drops an empty match at the very end).
        let text = [text.as_bytes(), b"ab \xff\nzz"].concat();
        fs::write(dir.path().join("a.txt"), text).unwrap();
        let mut c = config(dir.path());
        c.ripgrep_available = true;
        // Each pattern with its context and how many rows match; `b*` matches empty strings.
        for (pattern, context, rows) in [("ab", 0u64, 6u64), ("ab", 1, 6), ("b*", 0, 9)] {
            let args: Args = serde_json::from_value(
                json!({"pattern": pattern, "output_mode": "content", "context": context}),
            )
            .unwrap();
            let q = Query::new(&args, &c).unwrap();
            let mut sink = Counter {
                n: 0,
                cost: 0,
                query: &q,
                path_len: "a.txt".len() as u64,
            };
            let file = fs::File::open(dir.path().join("a.txt")).unwrap();
            search_file(
                &mut q.searcher(false, context > 0),
                &q.matcher,
                file,
                FileRules::plain(u64::MAX),
                &mut Vec::new(),
                &mut sink,
            )
            .unwrap();
            let out = std::process::Command::new("rg")
                .args(["--no-config", "--json", "-C", &context.to_string()])
                .args(["-e", pattern, "a.txt"])
                .current_dir(dir.path())
                .output()
                .unwrap();
            let json: u64 = String::from_utf8(out.stdout)
                .unwrap()
                .lines()
                .filter(|l| {
                    l.starts_with(r#"{"type":"match""#) || l.starts_with(r#"{"type":"context""#)
                })
                .map(|l| l.encode_utf16().count() as u64 + 1)
                .sum();
            assert_eq!(sink.n, rows, "{pattern}");
            assert_eq!(sink.cost, json, "{pattern}, context {context}");
        }
    }

    /// A watched call counts the files its walk searched and their bytes (the MCP server's
    /// progress messages say them); an unwatched one keeps nothing.
    /// Pass 1 of `x` over a tree of `files`, keeping at most `cap` matching files.
    fn scan_x(
        files: &[(&str, &str)],
        cap: usize,
        progress: &crate::call::Progress,
    ) -> (Query, Scan) {
        let dir = tempfile::tempdir().unwrap();
        tree(dir.path(), files);
        let c = config(dir.path());
        let args: Args = serde_json::from_value(json!({"pattern": "x"})).unwrap();
        let q = Query::new(&args, &c).unwrap();
        let base = paths::resolve(&c, "").unwrap();
        let scan = q
            .scan_tree(&c, &base, None, cap, &|| false, progress)
            .unwrap();
        (q, scan)
    }

    #[test]
    fn a_watched_scan_counts_files_and_bytes() {
        let progress = crate::call::Progress::watched();
        let files = [("a", "x\n"), ("b", "yy\n"), ("c/d", "zzz\n")];
        let (_, scan) = scan_x(&files, 100, &progress);
        assert_eq!(scan.hits.len(), 1);
        let report = progress.report().unwrap();
        assert_eq!((report.files, report.bytes), (3, 2 + 3 + 4));
        assert!(crate::call::Progress::default().report().is_none());
    }

    #[test]
    fn incomplete_scan_is_reported_without_paging() {
        let files = [("a", "x"), ("b", "x"), ("c", "x")];
        let (q, scan) = scan_x(&files, 2, &Default::default());
        assert!(scan.stopped_early);
        let out = q.render(
            &scan,
            &PageSpec {
                offset: 0,
                limit: 1,
                budget: 10_000,
            },
        );
        // Which two files the parallel walk kept varies; the footer does not.
        let (first, footer) = out.split_once('\n').unwrap();
        assert!(["a", "b", "c"].contains(&first), "{out}");
        assert_eq!(
            footer,
            "[... search incomplete: the scan hit its output cap; some matching files were not scanned. Narrow the pattern, path, or glob for complete results. ...]"
        );
        assert!(!out.contains("offset="));
    }
}
