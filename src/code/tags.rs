//! Tags: the definitions of a parsed file and the identifiers it uses, from each grammar's
//! `queries/<grammar>/tags.scm` (in the style of the grammars' own tags queries: `@name` is the
//! defined identifier, `@definition.<kind>` the whole definition).
//!
//! What `find_symbol`, `find_references` and `repo_map` are built on:
//! - [`parse_tags`], [`file_tags`]: every definition (name, kind, line, its first line and
//!   signature) and every identifier used (name and count), for one file; a C or C++ file is
//!   parsed around its function bodies ([`super::bodies`]) and its names are read from its text;
//! - [`references`]: which occurrences of a name in a file are identifiers used as references
//!   (not in a comment or string, not a definition's own name);
//! - [`cached`]: the tags of a file kept in memory by (device, inode, size, mtime), bounded.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock, Mutex, OnceLock};

use rustc_hash::FxHashMap;
use streaming_iterator::StreamingIterator;
use tree_sitter::{Node, Query, QueryCursor, Tree};

use super::bodies::{self, is_word_byte, Body, Holds};
use super::lang::{Grammar, GRAMMARS};
use super::parse::{self, ParseFailure};
use super::query;

/// What a definition is; `find_symbol`'s `kind` filter takes these names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    Function,
    Method,
    Class,
    Struct,
    Interface,
    Type,
    Trait,
    Enum,
    Const,
    Macro,
    Module,
}

impl Kind {
    pub const ALL: [Kind; 11] = [
        Kind::Function,
        Kind::Method,
        Kind::Class,
        Kind::Struct,
        Kind::Interface,
        Kind::Type,
        Kind::Trait,
        Kind::Enum,
        Kind::Const,
        Kind::Macro,
        Kind::Module,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Kind::Function => "function",
            Kind::Method => "method",
            Kind::Class => "class",
            Kind::Struct => "struct",
            Kind::Interface => "interface",
            Kind::Type => "type",
            Kind::Trait => "trait",
            Kind::Enum => "enum",
            Kind::Const => "const",
            Kind::Macro => "macro",
            Kind::Module => "module",
        }
    }

    fn from_capture(capture: &str) -> Option<Kind> {
        let kind = capture.strip_prefix("definition.")?;
        Kind::ALL.into_iter().find(|k| k.name() == kind)
    }
}

/// Characters of a definition's line kept; the rest is cut with `...`.
pub const MAX_LINE_CHARS: usize = 200;

/// One definition.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Def {
    pub name: Box<str>,
    pub kind: Kind,
    /// 1-based line where the definition starts.
    pub line: u32,
    /// That line, trimmed and cut to [`MAX_LINE_CHARS`].
    pub text: Box<str>,
    /// Where in `text` the signature starts: the definition's own start (a line may begin
    /// with another statement, or with the class a method is written inside).
    pub sig_start: u32,
    /// Bytes of `text` from `sig_start` that are the signature: up to the body when the body
    /// starts on the line, without a trailing `{` or `:`.
    pub sig_len: u32,
}

impl Def {
    /// The definition's signature line (never its body).
    pub fn signature(&self) -> &str {
        let start = self.sig_start as usize;
        &self.text[start..start + self.sig_len as usize]
    }
}

/// The tags of one file.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct FileTags {
    /// In document order.
    pub defs: Vec<Def>,
    /// Every identifier used as a reference, with its number of uses, sorted by name.
    pub names: Vec<(Box<str>, u32)>,
    /// Where those references start (byte offsets, ascending): what find_references checks an
    /// occurrence of a name against, without parsing the file again.
    pub refs: Vec<u32>,
    /// Raw code text (C macro bodies) as byte ranges: every word in it counts as a reference.
    pub code: Vec<(u32, u32)>,
}

impl FileTags {
    /// Rough heap size, for the cache's bound.
    fn weight(&self) -> usize {
        let defs: usize = self
            .defs
            .iter()
            .map(|d| d.name.len() + d.text.len() + 48)
            .sum();
        let names: usize = self.names.iter().map(|(n, _)| n.len() + 24).sum();
        defs + names + self.refs.len() * 4 + self.code.len() * 8 + 96
    }
}

/// A compiled tags query and what its captures mean.
struct TagsQuery {
    query: Query,
    name: u32,
    kinds: Vec<Option<Kind>>,
    /// By node kind id: whether a pattern starts at such a node (`None`: not known).
    roots: Option<Vec<bool>>,
    /// By node kind id: 1 = an identifier, 2 = raw code text (a C macro body).
    token: Vec<u8>,
}

macro_rules! tags {
    ($dir:literal) => {
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/queries/",
            $dir,
            "/tags.scm"
        ))
    };
}

/// The tags query source of a grammar, for those navigation supports.
pub fn source(grammar: &Grammar) -> Option<&'static str> {
    Some(match grammar.name {
        "rust" => tags!("rust"),
        "typescript" | "tsx" => tags!("typescript"),
        "javascript" => tags!("javascript"),
        "python" => tags!("python"),
        "go" => tags!("go"),
        "java" => tags!("java"),
        "cpp" => tags!("cpp"),
        _ => return None,
    })
}

/// The grammars with a tags query, as messages list them.
pub fn languages() -> String {
    GRAMMARS
        .iter()
        .filter(|g| source(g).is_some())
        .map(|g| g.name)
        .collect::<Vec<_>>()
        .join(", ")
}

fn compile(grammar: &Grammar) -> Option<TagsQuery> {
    let language = grammar.language();
    // Compiled into the addon and tested: a failure is a build defect, reported as no tags.
    let query = Query::new(&language, source(grammar)?).ok()?;
    let mut name = u32::MAX;
    let kinds = query
        .capture_names()
        .iter()
        .enumerate()
        .map(|(i, c)| {
            if *c == "name" {
                name = i as u32;
            }
            Kind::from_capture(c)
        })
        .collect();
    let token = (0..language.node_kind_count() as u16)
        .map(|id| {
            let kind = language.node_kind_for_id(id).unwrap_or("");
            if !language.node_kind_is_named(id) {
                0
            } else if kind.ends_with("identifier") {
                1
            } else if kind == "preproc_arg" {
                2
            } else {
                0
            }
        })
        .collect();
    let roots = query::root_table(&language, source(grammar)?);
    Some(TagsQuery {
        query,
        name,
        kinds,
        roots,
        token,
    })
}

fn query_for(grammar: &'static Grammar) -> Option<&'static TagsQuery> {
    static CACHE: OnceLock<Vec<OnceLock<Option<TagsQuery>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(|| GRAMMARS.iter().map(|_| OnceLock::new()).collect());
    let index = GRAMMARS.iter().position(|g| std::ptr::eq(g, grammar))?;
    cache[index].get_or_init(|| compile(grammar)).as_ref()
}

/// Whether navigation supports a grammar.
pub fn supports(grammar: &'static Grammar) -> bool {
    source(grammar).is_some()
}

/// A definition node and its name node, as the query matched them.
struct Found<'t> {
    node: Node<'t>,
    name: Node<'t>,
    kind: Kind,
    pattern: usize,
}

/// The definitions the query finds, one per definition node (the first pattern wins), in
/// document order.
fn definitions<'t>(q: &TagsQuery, tree: &'t Tree, text: &str) -> Vec<Found<'t>> {
    let mut by_node: HashMap<usize, Found<'t>> = HashMap::new();
    let mut cursor = QueryCursor::new();
    let mut keep = |m: &tree_sitter::QueryMatch<'_, 't>| {
        let mut name = None;
        let mut def = None;
        for c in m.captures() {
            if c.index == q.name {
                name = Some(c.node);
            } else if let Some(kind) = q.kinds.get(c.index as usize).copied().flatten() {
                def = Some((c.node, kind));
            }
        }
        let (Some(name), Some((node, kind))) = (name, def) else {
            return;
        };
        let found = Found {
            node,
            name,
            kind,
            pattern: m.pattern_index,
        };
        by_node
            .entry(node.id())
            .and_modify(|f| {
                if found.pattern < f.pattern {
                    *f = Found { ..found };
                }
            })
            .or_insert(found);
    };
    match &q.roots {
        // The query at each node a pattern can start at, matching only there: the same
        // matches as over the whole tree, without the query cursor's walk of every node.
        Some(roots) => {
            cursor.set_max_start_depth(Some(0));
            let mut walk = tree.walk();
            'tree: loop {
                let node = walk.node();
                if roots.get(node.kind_id() as usize) == Some(&true) {
                    let mut matches = cursor.matches(&q.query, node, text.as_bytes());
                    while let Some(m) = matches.next() {
                        keep(m);
                    }
                }
                if walk.goto_first_child() {
                    continue;
                }
                while !walk.goto_next_sibling() {
                    if !walk.goto_parent() {
                        break 'tree;
                    }
                }
            }
        }
        None => {
            let mut matches = cursor.matches(&q.query, tree.root_node(), text.as_bytes());
            while let Some(m) = matches.next() {
                keep(m);
            }
        }
    }
    let mut defs: Vec<Found> = by_node.into_values().collect();
    defs.sort_by_key(|f| (f.node.start_byte(), f.pattern));
    defs
}

/// The tags of `text`, parsed here within `budget` (and not kept in the tree cache). A C or
/// C++ file is parsed around the function bodies and initializers that define nothing
/// ([`bodies`]); when a left-out `{` is not, on the tree, what it was taken for, the file is
/// parsed whole.
pub fn parse_tags(
    grammar: &'static Grammar,
    text: &str,
    budget: std::time::Duration,
    cancelled: &dyn Fn() -> bool,
) -> Result<FileTags, ParseFailure> {
    if grammar.name == "cpp" {
        if let Some(found) = bodies::find(text).filter(|b| !b.is_empty()) {
            let ranges = included_ranges(text, &found);
            match parse::parse_ranges(grammar, text, &ranges, budget, cancelled) {
                Ok(tree) if found.iter().all(|b| holds_what_it_was_taken_for(&tree, b)) => {
                    return Ok(file_tags(grammar, &tree, text));
                }
                // Ranges tree-sitter refuses (a defect here) fall back to the whole parse.
                Ok(_) | Err(ParseFailure::Runtime(_)) => {}
                Err(stop) => return Err(stop),
            }
        }
    }
    let tree = parse::parse_ranges(grammar, text, &[], budget, cancelled)?;
    Ok(file_tags(grammar, &tree, text))
}

/// The parts of `text` parsed when `bodies` are left out: everything but their gaps.
fn included_ranges(text: &str, bodies: &[Body]) -> Vec<tree_sitter::Range> {
    let bytes = text.as_bytes();
    let (mut row, mut line_at, mut seen) = (0usize, 0usize, 0usize);
    let mut point = |at: usize| {
        for nl in memchr::memchr_iter(b'\n', &bytes[seen..at]) {
            row += 1;
            line_at = seen + nl + 1;
        }
        seen = at;
        tree_sitter::Point::new(row, at - line_at)
    };
    let mut ranges = Vec::new();
    let (mut from, mut from_point) = (0usize, point(0));
    for gap in bodies.iter().flat_map(Body::gaps) {
        let end_point = point(gap.start);
        ranges.push(tree_sitter::Range {
            start_byte: from,
            end_byte: gap.start,
            start_point: from_point,
            end_point,
        });
        from = gap.end;
        from_point = point(gap.end);
    }
    ranges.push(tree_sitter::Range {
        start_byte: from,
        end_byte: text.len(),
        start_point: from_point,
        end_point: point(text.len()),
    });
    ranges
}

/// Whether the `{` of `body` opens, in `tree`, what it was taken for, error-free and ending at
/// the body's `}`: the body of a function (or lambda), or a variable's initializer list.
fn holds_what_it_was_taken_for(tree: &Tree, body: &Body) -> bool {
    let Some(brace) = tree
        .root_node()
        .descendant_for_byte_range(body.open, body.open + 1)
    else {
        return false;
    };
    let Some(block) = brace.parent() else {
        return false;
    };
    let kind = match body.holds {
        Holds::Statements => "compound_statement",
        Holds::Values => "initializer_list",
    };
    brace.kind() == "{"
        && block.kind() == kind
        && block.start_byte() == body.open
        && block.end_byte() == body.close + 1
        && !block.has_error()
        && block.parent().is_some_and(|p| !p.is_error())
}

/// The tags of a parsed file (empty for a grammar without a tags query). The names a C or C++
/// file uses are read from its text ([`bodies::words`]), the others' from the tree.
pub fn file_tags(grammar: &'static Grammar, tree: &Tree, text: &str) -> FileTags {
    let Some(q) = query_for(grammar) else {
        return FileTags::default();
    };
    let found = definitions(q, tree, text);
    let mut def_names: Vec<usize> = found.iter().map(|f| f.name.start_byte()).collect();
    def_names.sort_unstable();
    let defs = found.iter().map(|f| def(f, text)).collect();
    let mut counts: FxHashMap<&str, u32> = FxHashMap::default();
    let mut refs = Vec::new();
    let mut code_ranges = Vec::new();
    if grammar.name == "cpp" {
        // Words come in text order: the next definition's name is the only one to skip.
        let mut next_def = def_names.iter().peekable();
        bodies::words(text, 0..text.len(), |at, word| {
            while next_def.next_if(|&&d| d < at).is_some() {}
            if next_def.peek() != Some(&&at) {
                refs.push(at as u32);
                *counts.entry(word).or_default() += 1;
            }
        });
    } else {
        each_token(q, tree, |node, code| {
            let Some(t) = text.get(node.byte_range()) else {
                return;
            };
            if code {
                code_ranges.push((node.start_byte() as u32, node.end_byte() as u32));
                for word in words(t) {
                    *counts.entry(word).or_default() += 1;
                }
            } else if def_names.binary_search(&node.start_byte()).is_err() {
                refs.push(node.start_byte() as u32);
                *counts.entry(t).or_default() += 1;
            }
        });
    }
    let mut names: Vec<(Box<str>, u32)> = counts.into_iter().map(|(n, c)| (n.into(), c)).collect();
    names.sort_unstable();
    refs.sort_unstable();
    FileTags {
        defs,
        names,
        refs,
        code: code_ranges,
    }
}

impl FileTags {
    /// Of the whole-word occurrences of a name at `offsets` (see [`word_occurrences`]), the
    /// ones that are references: where an identifier leaf that is not a definition's own name
    /// starts (so not in a comment or string, and the whole identifier, since the occurrence
    /// is a whole word), or inside raw code text.
    pub fn references(&self, offsets: &[usize]) -> Vec<usize> {
        offsets
            .iter()
            .copied()
            .filter(|&at| {
                let at32 = at as u32;
                self.refs.binary_search(&at32).is_ok()
                    || self.code.iter().any(|&(s, e)| s <= at32 && at32 < e)
            })
            .collect()
    }
}

/// Calls `f` on every identifier leaf (`false`) and every raw code node (`true`) of the tree.
fn each_token(q: &TagsQuery, tree: &Tree, mut f: impl FnMut(Node, bool)) {
    let mut cursor = tree.walk();
    loop {
        let node = cursor.node();
        let flag = q.token.get(node.kind_id() as usize).copied().unwrap_or(0);
        if flag == 2 {
            f(node, true);
        } else if flag == 1 && node.child_count() == 0 {
            f(node, false);
        }
        if flag != 2 && cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return;
            }
        }
    }
}

/// The identifier-like words of raw code text.
fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| w.chars().next().is_some_and(|c| !c.is_ascii_digit()))
}

fn def(f: &Found, text: &str) -> Def {
    let start = f.node.start_byte();
    let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[start..].find('\n').map_or(text.len(), |i| start + i);
    // The signature stops at the body, or where a body-less definition ends on its line (a
    // trait's `fn f();` inside `{ … }`).
    let end = f.node.end_byte();
    let body = body_start(f.node).or((end < line_end).then_some(end));
    let (first, first_sig) = line_and_signature(text, line_start, line_end, body);
    // It starts where the definition does when another statement, or the body of the class or
    // trait it is written in, precedes it on the line (`…; function f`, `class C { m()`); a
    // keyword before it (Go's `type` before `S struct`) stays.
    let before = &text[line_start..start];
    let sig_start = if before.trim_end().ends_with([';', '{', '}']) {
        // The definition's offset in `first`, the line without its indentation.
        before.trim_start().len().min(first_sig.len())
    } else {
        0
    };
    let first_sig = &first_sig[sig_start..];
    // A definition whose first line does not name it (C's `static int` above `name(...)`)
    // shows that line joined with the line that does.
    let name_at = f.name.start_byte();
    let (line, sig) = if name_at >= line_end {
        let name_start = text[..name_at].rfind('\n').map_or(0, |i| i + 1);
        let name_end = text[name_at..]
            .find('\n')
            .map_or(text.len(), |i| name_at + i);
        let (second, second_sig) = line_and_signature(text, name_start, name_end, body);
        (format!("{first} {second}"), format!("{first} {second_sig}"))
    } else {
        (first.to_string(), first_sig.to_string())
    };
    let mut shown = match line.char_indices().nth(MAX_LINE_CHARS) {
        Some((i, _)) => format!("{}...", &line[..i]),
        None => line,
    };
    let sig_start = if name_at >= line_end { 0 } else { sig_start };
    let sig_len = if shown
        .get(sig_start..)
        .is_some_and(|rest| sig.len() <= rest.len() && rest.starts_with(&sig))
    {
        sig.len()
    } else {
        shown.len().saturating_sub(sig_start)
    };
    let sig_start = sig_start.min(shown.len());
    shown.shrink_to_fit();
    Def {
        name: text[f.name.byte_range()].into(),
        kind: f.kind,
        line: f.node.start_position().row as u32 + 1,
        sig_start: sig_start as u32,
        sig_len: sig_len as u32,
        text: shown.into(),
    }
}

/// The line `text[start..end]` trimmed, and its signature part: up to the body when the body
/// starts on it, without a trailing `{` or `:`.
fn line_and_signature(text: &str, start: usize, end: usize, body: Option<usize>) -> (&str, &str) {
    let raw = &text[start..end];
    let lead = raw.len() - raw.trim_start().len();
    let line = raw.trim();
    let sig_end = body
        .filter(|&b| b >= start + lead && b < end)
        .map_or(line.len(), |b| (b - start - lead).min(line.len()));
    let sig = line[..sig_end].trim_end();
    let sig = sig
        .strip_suffix('{')
        .or_else(|| sig.strip_suffix(':'))
        .map_or(sig, str::trim_end);
    (line, sig)
}

/// Where a definition's body starts: its `body` field, or else the first `{` of the node or of
/// its `type` (a Go `type S struct {`).
fn body_start(node: Node) -> Option<usize> {
    if let Some(body) = node.child_by_field_name("body") {
        return Some(body.start_byte());
    }
    let brace = |n: Node| {
        let mut cursor = n.walk();
        let found = n.children(&mut cursor).find(|c| c.kind() == "{");
        found.map(|c| c.start_byte())
    };
    brace(node).or_else(|| {
        let ty = node.child_by_field_name("type")?;
        brace(ty).or_else(|| {
            let mut cursor = ty.walk();
            let list = ty
                .named_children(&mut cursor)
                .find(|c| c.kind().ends_with("_list"));
            list.and_then(brace)
        })
    })
}

/// The byte offsets where `name` occurs in `text` as a whole word.
pub fn word_occurrences(text: &str, name: &str) -> Vec<usize> {
    let bytes = text.as_bytes();
    memchr::memmem::find_iter(bytes, name.as_bytes())
        .filter(|&at| {
            let before = at.checked_sub(1).map(|i| bytes[i]);
            let after = bytes.get(at + name.len()).copied();
            !before.is_some_and(is_word_byte) && !after.is_some_and(is_word_byte)
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// The cache

/// What identifies a file's contents without reading it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Stamp {
    pub dev: u64,
    pub ino: u64,
    pub size: u64,
    pub mtime_ns: i128,
}

impl Stamp {
    #[cfg(unix)]
    pub fn of(meta: &std::fs::Metadata) -> Stamp {
        use std::os::unix::fs::MetadataExt;
        Stamp {
            dev: meta.dev(),
            ino: meta.ino(),
            size: meta.size(),
            mtime_ns: meta.mtime() as i128 * 1_000_000_000 + meta.mtime_nsec() as i128,
        }
    }

    #[cfg(not(unix))]
    pub fn of(meta: &std::fs::Metadata) -> Stamp {
        let mtime_ns = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos() as i128);
        Stamp {
            dev: 0,
            ino: 0,
            size: meta.len(),
            mtime_ns,
        }
    }
}

/// Heap the tags cache may hold, roughly.
pub const CACHE_BYTES: usize = 96 << 20;

struct Entry {
    stamp: Stamp,
    tags: Arc<FileTags>,
    weight: usize,
    used: u64,
}

#[derive(Default)]
struct Cache {
    entries: HashMap<PathBuf, Entry>,
    weight: usize,
    clock: u64,
}

static CACHE: LazyLock<Mutex<Cache>> = LazyLock::new(Mutex::default);

/// The cached tags of the file at `abs`, if its stamp is still `stamp`.
pub fn cached(abs: &Path, stamp: &Stamp) -> Option<Arc<FileTags>> {
    let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
    cache.clock += 1;
    let clock = cache.clock;
    let entry = cache.entries.get_mut(abs)?;
    if entry.stamp != *stamp {
        return None;
    }
    entry.used = clock;
    Some(entry.tags.clone())
}

/// Keeps the tags of the file at `abs`; the least recently used entries go when the cache is
/// over [`CACHE_BYTES`].
pub fn remember(abs: &Path, stamp: Stamp, tags: Arc<FileTags>) {
    let weight = tags.weight() + abs.as_os_str().len();
    if weight > CACHE_BYTES / 8 {
        return;
    }
    let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
    cache.clock += 1;
    let entry = Entry {
        stamp,
        tags,
        weight,
        used: cache.clock,
    };
    if let Some(old) = cache.entries.insert(abs.to_path_buf(), entry) {
        cache.weight -= old.weight;
    }
    cache.weight += weight;
    if cache.weight > CACHE_BYTES {
        let mut ages: Vec<(u64, PathBuf)> = cache
            .entries
            .iter()
            .map(|(p, e)| (e.used, p.clone()))
            .collect();
        ages.sort_unstable();
        for (_, path) in ages {
            if cache.weight <= CACHE_BYTES * 3 / 4 {
                break;
            }
            if let Some(old) = cache.entries.remove(&path) {
                cache.weight -= old.weight;
            }
        }
    }
}

#[cfg(test)]
pub fn cache_len() -> usize {
    CACHE.lock().map(|c| c.entries.len()).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::code::lang::{by_name, GRAMMARS};
    use crate::code::parse::{parse, TOOL_BUDGET};

    fn tags(lang: &str, text: &str) -> FileTags {
        let g = by_name(lang).unwrap();
        let tree = parse(g, text, TOOL_BUDGET, &|| false).unwrap();
        file_tags(g, &tree, text)
    }

    fn defs(lang: &str, text: &str) -> Vec<String> {
        tags(lang, text)
            .defs
            .iter()
            .map(|d| {
                format!(
                    "{}:{} {} | {}",
                    d.line,
                    d.kind.name(),
                    d.name,
                    d.signature()
                )
            })
            .collect()
    }

    #[test]
    fn every_tags_query_compiles() {
        for g in GRAMMARS.iter().filter(|g| source(g).is_some()) {
            Query::new(&g.language(), source(g).unwrap())
                .unwrap_or_else(|e| panic!("{} tags query: {e}", g.name));
            assert!(query_for(g).is_some(), "{}", g.name);
        }
        assert_eq!(
            languages(),
            "typescript, tsx, javascript, python, go, rust, java, cpp"
        );
    }

    #[test]
    fn rust_definitions_and_signatures() {
        let src = "mod m {\n    pub struct S { x: u8 }\n    impl S {\n        pub fn get(&self) -> u8 { self.x }\n    }\n}\npub trait T {\n    fn t(&self);\n}\nenum E { A }\ntype Alias = u8;\nconst C: u8 = 1;\nmacro_rules! mac { () => {} }\nfn free(a: u8,\n        b: u8) {}\n";
        assert_eq!(
            defs("rust", src),
            [
                "1:module m | mod m",
                "2:struct S | pub struct S",
                "4:method get | pub fn get(&self) -> u8",
                "7:trait T | pub trait T",
                "8:method t | fn t(&self);",
                "10:enum E | enum E",
                "11:type Alias | type Alias = u8;",
                "12:const C | const C: u8 = 1;",
                "13:macro mac | macro_rules! mac",
                "14:function free | fn free(a: u8,",
            ]
        );
        // A function in a `mod { }` or `extern { }` body is a function, not a method.
        let src = "mod tests {\n    fn it_works() {}\n}\nextern \"C\" {\n    fn ext(x: i32);\n}\n";
        assert_eq!(
            defs("rust", src),
            [
                "1:module tests | mod tests",
                "2:function it_works | fn it_works()",
                "5:function ext | fn ext(x: i32);",
            ]
        );
    }

    /// A signature starts where its definition does: not at a statement before it on the line,
    /// nor at the class or trait a member is written inside; and it stops at the body.
    #[test]
    fn signatures_start_at_the_definition() {
        let sig = |lang: &str, src: &str, name: &str| {
            let t = tags(lang, src);
            let d = t.defs.iter().find(|d| &*d.name == name).unwrap();
            d.signature().to_string()
        };
        assert_eq!(
            sig(
                "rust",
                "pub trait Render { fn render(&self) -> String; }\n",
                "render"
            ),
            "fn render(&self) -> String;"
        );
        assert_eq!(
            sig(
                "rust",
                "pub trait Render { fn render(&self) -> String; }\n",
                "Render"
            ),
            "pub trait Render"
        );
        assert_eq!(
            sig(
                "javascript",
                "class Widget { render() { return 1 } }\n",
                "render"
            ),
            "render()"
        );
        assert_eq!(
            sig(
                "javascript",
                "console.log(1); function f(a) { return a }\n",
                "f"
            ),
            "function f(a)"
        );
    }

    #[test]
    fn other_families() {
        assert_eq!(
            defs("python", "X = 1\nclass A:\n    @staticmethod\n    def m(): pass\ndef f(a: int) -> int:\n    return a\n"),
            ["1:const X | X = 1", "2:class A | class A", "4:method m | def m()", "5:function f | def f(a: int) -> int"]
        );
        assert_eq!(
            defs("go", "package p\ntype S struct{ x int }\ntype I interface{ M() }\ntype N int\nfunc (s S) M() {}\nfunc F() {}\nconst K = 1\n"),
            ["2:struct S | type S struct", "3:interface I | type I interface", "3:method M | M()", "4:type N | type N int", "5:method M | func (s S) M()", "6:function F | func F()", "7:const K | const K = 1"]
        );
        assert_eq!(
            defs("typescript", "export interface I { m(): void }\nexport class C {\n  run() {}\n}\nexport const f = (a: number) => a;\nconst K = 3;\ntype T = string;\nenum E { A }\nfunction g() {}\n"),
            ["1:interface I | export interface I", "1:method m | m(): void", "2:class C | export class C", "3:method run | run()", "5:function f | export const f = (a: number) => a", "6:const K | const K = 3", "7:type T | type T = string;", "8:enum E | enum E", "9:function g | function g()"]
        );
        assert_eq!(
            defs(
                "java",
                "class A {\n  A() {}\n  void m() {}\n}\ninterface I {}\nenum E { X }\n"
            ),
            [
                "1:class A | class A",
                "2:method A | A()",
                "3:method m | void m()",
                "5:interface I | interface I",
                "6:enum E | enum E",
                "6:const X | X"
            ]
        );
        assert_eq!(
            defs("cpp", "static int\nsplit(int a)\n{\n  return a;\n}\n"),
            ["1:function split | static int split(int a)"]
        );
        assert_eq!(
            defs("cpp", "#define MAX 3\nstruct s { int a; };\nint f(int);\nstatic int *g(void)\n{\n  return 0;\n}\nclass K { void m(); };\nvoid K::m() {}\ntypedef int t;\n"),
            ["1:macro MAX | #define MAX 3", "2:struct s | struct s", "4:function g | static int *g(void)", "8:class K | class K", "8:method m | void m();", "9:method m | void K::m()", "10:type t | typedef int t;"]
        );
    }

    /// The definitions found at the patterns' root nodes, and with the query over the whole
    /// tree: as (line, name, kind, pattern) rows.
    fn definitions_both_ways(lang: &str, text: &str) -> (Vec<String>, Vec<String>) {
        let g = by_name(lang).unwrap();
        let tree = parse(g, text, TOOL_BUDGET, &|| false).unwrap();
        let mut q = compile(g).unwrap();
        assert!(q.roots.is_some(), "{lang}");
        let rows = |q: &TagsQuery| {
            definitions(q, &tree, text)
                .iter()
                .map(|f| {
                    format!(
                        "{} {} {} {}",
                        f.node.start_position().row,
                        &text[f.name.byte_range()],
                        f.kind.name(),
                        f.pattern
                    )
                })
                .collect::<Vec<_>>()
        };
        let at_roots = rows(&q);
        q.roots = None;
        (at_roots, rows(&q))
    }

    #[test]
    fn definitions_at_root_nodes_are_the_whole_tree_query_s() {
        let samples = [
            ("rust", "mod m { pub struct S; impl S { fn f(&self) { fn inner() {} } } }\nmacro_rules! m { () => {} }\nenum E { A }\n"),
            ("python", "class A:\n    def m(self):\n        def inner(): pass\nX = 1\n"),
            ("go", "package p\ntype S struct{}\nfunc (s S) M() { f := func() {}; _ = f }\nconst K = 1\n"),
            ("typescript", "export class C { m() { class D {} } }\nexport const f = () => 1;\ninterface I { x(): void }\n"),
            ("javascript", "class C { m() {} }\nfunction f() { function g() {} }\nconst h = () => {};\n"),
            ("java", "class A { void m() { class L {} } enum E { X } }\n"),
            ("cpp", "#define M 1\nstruct s { struct t { int a; } b; enum { X } e; };\nnamespace n { class K { void m(); }; }\nint f(void) { struct l { int a; }; return 0; }\ntypedef int t;\n"),
        ];
        for (lang, text) in samples {
            let (at_roots, whole) = definitions_both_ways(lang, text);
            assert!(!whole.is_empty(), "{lang}");
            assert_eq!(at_roots, whole, "{lang}");
        }
    }

    #[test]
    fn references_skip_comments_strings_longer_names_and_definitions() {
        let text = "// run here\nfn run() {}\nfn main() {\n    run();\n    let s = \"run\";\n    run_all();\n    x.run();\n}\n";
        let at = word_occurrences(text, "run");
        assert_eq!(at.len(), 5, "{at:?}");
        let refs = tags("rust", text).references(&at);
        let lines: Vec<usize> = refs
            .iter()
            .map(|&b| text[..b].matches('\n').count() + 1)
            .collect();
        assert_eq!(lines, [4, 7]);
        // The names a file uses: not its definitions' own names, not comments or strings.
        let t = tags("rust", text);
        let names: Vec<(&str, u32)> = t.names.iter().map(|(n, c)| (&**n, *c)).collect();
        assert_eq!(names, [("run", 2), ("run_all", 1), ("s", 1), ("x", 1)]);
        // A C macro body is code.
        let text = "#define CALL(x) run(x)\nint run(int a) { return a; }\n";
        let refs = tags("cpp", text).references(&word_occurrences(text, "run"));
        assert_eq!(refs, [16]);
    }

    /// The tags of a C text parsed around its bodies, and parsed whole.
    fn both_ways(text: &str) -> (FileTags, FileTags) {
        let g = by_name("cpp").unwrap();
        let around = parse_tags(g, text, TOOL_BUDGET, &|| false).unwrap();
        (around, tags("cpp", text))
    }

    #[test]
    fn c_parsed_around_bodies_gives_the_whole_parse_tags() {
        let text = r#"// SPDX-License-Identifier: GPL-2.0
#include <linux/fs.h>
#include "internal.h"

#define MAX_DEPTH 8

struct walker {
	struct inode *inode;
	int (*visit)(struct walker *w, u32 flags);
};

static int walk_one(struct walker *w, u32 flags)
{
	struct inode *inode = w->inode;	/* the inode { */
	const char *msg = "done } here";
	char c = '}';
#define LOCAL_LIMIT (MAX_DEPTH * 2)
	int i;

	if (!inode || flags > LOCAL_LIMIT)
		return -EINVAL;
#ifdef CONFIG_WALK_DEBUG
	pr_debug("%s %c\n", msg, c);
#endif
	for (i = 0; i < MAX_DEPTH; i++) {
		if (w->visit(w, flags) < 0)
			goto out;
	}
out:
	return sizeof(*inode) + NULL;
}

static void local_type(void)
{
	struct point { int x, y; } p = { 1, 2 };
	use_point(&p);
}

int __init walker_init(void)
{
	return walk_one(NULL, 0);
}
"#;
        let bodies = bodies::find(text).unwrap();
        assert_eq!(bodies.len(), 2, "local_type's body defines a struct");
        let (around, whole) = both_ways(text);
        assert_eq!(around, whole);
        assert!(around.defs.iter().any(|d| &*d.name == "LOCAL_LIMIT"));
        assert!(around.defs.iter().any(|d| &*d.name == "point"));
        // C++: methods in a class body, a namespace, a lambda, an initializer.
        let text = "namespace ns {\nclass Box {\n public:\n  int get() const { return v_; }\n  void put(int v) { v_ = v; }\n private:\n  int v_;\n};\nint Box::twice() { auto f = [](int x) { return x * 2; }; return f(get()); }\nstatic const int table[] = { 1, 2, 3 };\n}\n";
        // (`get() const {` is parsed whole: only `) {` and `= {` open what is left out.)
        assert_eq!(bodies::find(text).unwrap().len(), 3);
        let (around, whole) = both_ways(text);
        assert_eq!(around, whole);
        assert_eq!(around.defs.len(), 5, "{:?}", around.defs);
        // A `{` after `)` that is not a function's body: the file is parsed whole.
        let text = "struct s __attribute__((packed)) { int a; };\nint f(void) { return g(); }\n";
        let (around, whole) = both_ways(text);
        assert_eq!(around, whole);
    }

    /// `parse_tags` against the whole parse on every C file under `$ATN_NAV_CORPUS` (a kernel
    /// tree: `ATN_NAV_CORPUS=.../linux-6.1/fs cargo test corpus -- --ignored --nocapture`),
    /// printing each definition one finds and the other does not. Every one only the whole
    /// parse finds must be error recovery's reading of a statement inside a body as a function
    /// (`list_for_each_entry(pos, head, member) {`, `} else if (x) {`, `per_cpu(v, cpu) = 0;`):
    /// a line that starts with a call or a statement word, not a declaration's type. (On
    /// Linux 6.1: `fs/` 369 such, and 53 functions that error recovery hid found; `kernel/`
    /// 679 and 106; `mm/` 258 and 32.)
    #[test]
    #[ignore = "needs a C corpus in ATN_NAV_CORPUS"]
    fn corpus_parsed_around_bodies_matches_the_whole_parse() {
        use std::collections::HashSet;
        let root = std::env::var("ATN_NAV_CORPUS").expect("ATN_NAV_CORPUS");
        let (mut files, mut around_files, mut defs, mut lost, mut new) = (0, 0, 0, 0, 0);
        for entry in ignore::WalkBuilder::new(&root).build().flatten() {
            let path = entry.path();
            if !matches!(path.extension().and_then(|e| e.to_str()), Some("c" | "h")) {
                continue;
            }
            let Ok(text) = std::fs::read_to_string(path) else {
                continue;
            };
            files += 1;
            if bodies::find(&text).is_some_and(|b| !b.is_empty()) {
                around_files += 1;
            }
            let (at_roots, whole_query) = definitions_both_ways("cpp", &text);
            assert_eq!(at_roots, whole_query, "{}", path.display());
            let (around, whole) = both_ways(&text);
            defs += whole.defs.len();
            let a: HashSet<_> = around.defs.iter().collect();
            let w: HashSet<_> = whole.defs.iter().collect();
            for d in w.difference(&a) {
                lost += 1;
                eprintln!("{}: whole only {}: {}", path.display(), d.line, d.text);
                assert!(
                    reads_as_a_statement(&d.text),
                    "{}:{}: a definition lost: {}",
                    path.display(),
                    d.line,
                    d.text
                );
            }
            for d in a.difference(&w) {
                new += 1;
                eprintln!("{}: around only {}: {}", path.display(), d.line, d.text);
            }
        }
        eprintln!("{files} files ({around_files} with bodies to leave out), {defs} definitions: {lost} found by the whole parse only, {new} parsing around bodies only");
        assert!(files > 0);
    }

    /// Whether a line starts as a statement does (`} else`, `if`, or a call: `name(`, after an
    /// optional `static`), not as a declaration (`int name(`).
    fn reads_as_a_statement(line: &str) -> bool {
        let line = line.trim_start_matches('}').trim_start();
        let line = line.strip_prefix("static ").unwrap_or(line);
        let word = line
            .split(|c: char| !is_word_byte(c as u8))
            .next()
            .unwrap_or("");
        matches!(word, "if" | "else" | "while" | "for" | "switch" | "return")
            || line[word.len()..].trim_start().starts_with('(')
    }

    #[test]
    fn the_cache_checks_the_stamp_and_stays_bounded() {
        let stamp = Stamp {
            dev: 1,
            ino: 2,
            size: 3,
            mtime_ns: 4,
        };
        let path = Path::new("/nonexistent/tags-cache-test.rs");
        let tags = Arc::new(tags("rust", "fn a() {}\n"));
        remember(path, stamp, tags.clone());
        assert_eq!(cached(path, &stamp).as_deref(), Some(&*tags));
        let newer = Stamp { size: 4, ..stamp };
        assert!(cached(path, &newer).is_none());
        assert!(cache_len() >= 1);
    }
}
