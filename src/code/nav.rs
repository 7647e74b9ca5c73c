//! The file side of code navigation (`find_symbol`, `find_references`, `repo_map`, `ast_grep`):
//! which files are source files, how they are read, and the walk that visits them.
//!
//! Files are found with the shared walk policy ([`crate::walk`]: ignore rules, hidden files,
//! links inside the workspace) on its pool, and opened by the walk, never by path; each file
//! is then read and parsed on the pool on its own ([`crate::walk::par_map`]), so that a
//! directory of many files is shared by all the pool's threads. A file is a
//! source file when its extension has a grammar; it is skipped when it is over `maxFileBytes`
//! or the 2,000,000-byte parse limit, binary, or not UTF-8 (a UTF-8 BOM is ignored), as grep
//! skips what it cannot search.

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::bodies::is_word_byte;
use super::lang::{self, Grammar};
use super::parse::{self, ParseFailure};
use super::tags::{self, FileTags, Stamp};
use crate::config::Config;
use crate::confine::WorkPath;
use crate::error::{io_err, ErrorCode, ToolError, ToolResult};
use crate::paths;
use crate::text;
use crate::walk::{self, FileEntry, Walk, WalkOptions};

/// The call was cancelled while a file was being parsed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cancelled;

/// A source file the walk found, opened.
pub struct Candidate {
    /// As results show it: relative to the workspace root.
    pub display: String,
    /// Relative to the walk base (the file itself for a one-file scan).
    pub rel: PathBuf,
    /// The key of the tags cache.
    pub abs: PathBuf,
    pub grammar: &'static Grammar,
    pub stamp: Stamp,
    file: File,
    max: u64,
}

impl Candidate {
    /// The file's text; `None` when it is too large, binary or not UTF-8.
    pub fn read(&mut self) -> Option<String> {
        if self.stamp.size > self.max || self.stamp.size > parse::PARSE_LIMIT as u64 + 3 {
            return None;
        }
        let mut bytes = Vec::with_capacity(self.stamp.size as usize + 1);
        (&mut self.file)
            .take(self.max.min(parse::PARSE_LIMIT as u64 + 3) + 1)
            .read_to_end(&mut bytes)
            .ok()?;
        source_text(bytes, self.max)
    }

    /// The file's tags: from the cache when the file is unchanged, else read and parsed (and
    /// kept). `Err` only when the call was cancelled.
    pub fn tags(
        &mut self,
        cancelled: &dyn Fn() -> bool,
    ) -> Result<Option<Arc<FileTags>>, Cancelled> {
        if let Some(t) = tags::cached(&self.abs, &self.stamp) {
            return Ok(Some(t));
        }
        let Some(text) = self.read() else {
            return Ok(None);
        };
        self.tags_of(&text, cancelled)
    }

    /// The tags of the file whose text is `text` (see [`Candidate::tags`]).
    pub fn tags_of(
        &self,
        text: &str,
        cancelled: &dyn Fn() -> bool,
    ) -> Result<Option<Arc<FileTags>>, Cancelled> {
        if let Some(t) = tags::cached(&self.abs, &self.stamp) {
            return Ok(Some(t));
        }
        match tags::parse_tags(self.grammar, text, parse::TOOL_BUDGET, cancelled) {
            Ok(t) => {
                let t = Arc::new(t);
                tags::remember(&self.abs, self.stamp, t.clone());
                Ok(Some(t))
            }
            Err(ParseFailure::Aborted) => Err(Cancelled),
            Err(_) => Ok(None),
        }
    }
}

/// Bytes as navigation reads them: `None` when over `max` or the parse limit, binary, or not
/// UTF-8; a UTF-8 BOM is dropped.
pub fn source_text(mut bytes: Vec<u8>, max: u64) -> Option<String> {
    if bytes.len() as u64 > max || text::looks_binary(&bytes) {
        return None;
    }
    if bytes.starts_with(b"\xEF\xBB\xBF") {
        bytes.drain(..3);
    }
    if bytes.len() > parse::PARSE_LIMIT {
        return None;
    }
    String::from_utf8(bytes).ok()
}

/// The grammar of a file name, when `accept` takes it.
pub fn grammar_of(
    name: &Path,
    accept: &dyn Fn(&'static Grammar) -> bool,
) -> Option<&'static Grammar> {
    let name = name.file_name()?.to_str()?;
    lang::for_extension(&lang::extname(name)).filter(|g| accept(g))
}

/// What a scan found, and how to open its files again.
pub struct Scanned<T> {
    /// Sorted by path.
    pub items: Vec<(String, T)>,
    /// The walk stopped at `cap` items.
    pub stopped_early: bool,
    source: Reopen,
}

enum Reopen {
    Tree(Box<Walk>),
    File(File),
}

impl<T> Scanned<T> {
    /// Opens a scanned file again (through the walk, never by path).
    pub fn open(&self, rel: &Path) -> std::io::Result<File> {
        match &self.source {
            Reopen::Tree(walk) => walk.open_rel(rel),
            Reopen::File(file) => {
                use std::io::Seek;
                let mut f = file.try_clone()?;
                f.rewind()?;
                Ok(f)
            }
        }
    }
}

/// The error of a call cancelled while it parsed or walked.
pub fn aborted() -> ToolError {
    walk::aborted()
}

/// Visits every source file under `base` (a directory, walked; or one file) whose grammar
/// `accept` takes, on the walk pool, and keeps what `visit` returns (at most `cap` items),
/// sorted by path. `visit` returning [`Cancelled`] stops the call with `aborted`.
pub fn scan<T, V>(
    config: &Config,
    base: &WorkPath,
    accept: &(dyn Fn(&'static Grammar) -> bool + Sync),
    cap: usize,
    cancelled: &(dyn Fn() -> bool + Sync),
    visit: V,
) -> ToolResult<Scanned<T>>
where
    T: Send,
    V: Fn(&mut Candidate) -> Result<Option<T>, Cancelled> + Sync,
{
    let max = config.max_file_bytes;
    let internal = base
        .abs
        .strip_prefix(&config.workspace_root)
        .is_ok_and(paths::is_internal);
    let meta = crate::confine::stat(base).map_err(|e| io_err(e, &base.display))?;
    if meta.is_file() {
        let file = crate::confine::open_read(base).map_err(|e| io_err(e, &base.display))?;
        let mut items = Vec::new();
        if let Some(grammar) = grammar_of(&base.abs, accept).filter(|_| !internal) {
            let stamp = Stamp::of(&file.metadata().map_err(|e| io_err(e, &base.display))?);
            let mut c = Candidate {
                display: base.display.clone(),
                rel: base.abs.clone(),
                abs: base.abs.clone(),
                grammar,
                stamp,
                file: file.try_clone().map_err(|e| io_err(e, &base.display))?,
                max,
            };
            if let Some(item) = visit(&mut c).map_err(|Cancelled| aborted())? {
                items.push((c.display, item));
            }
        }
        return Ok(Scanned {
            items,
            stopped_early: false,
            source: Reopen::File(file),
        });
    }
    if !meta.is_dir() {
        return Err(ToolError::new(
            ErrorCode::NotAFile,
            format!("Not a regular file or directory: {}", base.display),
        )
        .with("path", base.display.as_str()));
    }
    let options = WalkOptions {
        respect_ignore: true,
        show_internal: false,
        follow_links: true,
        prefix: Vec::new(),
        files: None,
    };
    let dir = walk::open_base(config, base)?;
    let (walker, root) = Walk::new(config, &base.abs, dir, &options);
    let prefix = base.display_prefix();
    let stop = || cancelled();
    // First the source files' paths (a cheap walk), then their visits one file at a time on
    // the pool: parsing is the work, and a directory of many files must not fall to one thread.
    let mut found = if internal {
        walk::Collected {
            items: Vec::new(),
            stopped_early: false,
            aborted: false,
        }
    } else {
        walk::collect_files(&walker, root, usize::MAX, &stop, || {
            |entry: &mut FileEntry<'_>| -> Option<(String, PathBuf, &'static Grammar)> {
                let rel = entry.rel();
                let grammar = grammar_of(rel, accept)?;
                let display = format!("{prefix}{}", paths::slash_join(rel));
                Some((display, rel.to_path_buf(), grammar))
            }
        })
    };
    if found.aborted || cancelled() {
        return Err(aborted());
    }
    walk::par_sort_unstable_by(&mut found.items, |a, b| walk::cmp_paths(&a.0, &b.0));
    let visited = walk::par_map(found.items, |(display, rel, grammar)| {
        if cancelled() {
            return Some(Err(Cancelled));
        }
        let file = walker.open_rel(&rel).ok()?;
        let stamp = Stamp::of(&file.metadata().ok()?);
        let mut c = Candidate {
            abs: base.abs.join(&rel),
            display,
            rel,
            grammar,
            stamp,
            file,
            max,
        };
        match visit(&mut c) {
            Ok(Some(item)) => Some(Ok((c.display, item))),
            Ok(None) => None,
            Err(Cancelled) => Some(Err(Cancelled)),
        }
    });
    if cancelled() {
        return Err(aborted());
    }
    let mut items = Vec::new();
    let mut stopped_early = false;
    for item in visited.into_iter().flatten() {
        if items.len() == cap {
            stopped_early = true;
            break;
        }
        items.push(item.map_err(|Cancelled| aborted())?);
    }
    Ok(Scanned {
        items,
        stopped_early,
        source: Reopen::Tree(Box::new(walker)),
    })
}

/// The line (1-based) of each byte offset in `text`, for sorted offsets.
pub fn lines_of(text: &str, offsets: &[usize]) -> Vec<u32> {
    let bytes = text.as_bytes();
    let mut line = 1u32;
    let mut at = 0usize;
    offsets
        .iter()
        .map(|&o| {
            line += memchr::memchr_iter(b'\n', &bytes[at..o.min(bytes.len())]).count() as u32;
            at = o.min(bytes.len());
            line
        })
        .collect()
}

/// Checks that `name` is one identifier (what find_symbol and find_references look for).
pub fn check_name(name: &str) -> ToolResult<()> {
    let ok = !name.is_empty()
        && name.len() <= 1024
        && name.bytes().all(is_word_byte)
        && !name.as_bytes()[0].is_ascii_digit();
    if ok {
        return Ok(());
    }
    Err(ToolError::invalid_input(format!(
        "name must be one identifier (letters, digits, `_`; e.g. `parse_args` or `HttpClient`), got {name:?}: to search for other text use grep."
    ))
    .with("field", "name"))
}
