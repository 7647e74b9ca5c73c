//! Tags: the definitions of a parsed file and the identifiers it uses, from each grammar's
//! `queries/<grammar>/tags.scm` (in the style of the grammars' own tags queries: `@name` is the
//! defined identifier, `@definition.<kind>` the whole definition).
//!
//! What `find_symbol`, `find_references` and `repo_map` are built on:
//! - [`file_tags`]: every definition (name, kind, line, its first line and signature) and every
//!   identifier used (name and count), for one parsed file;
//! - [`references`]: which occurrences of a name in a file are identifiers used as references
//!   (not in a comment or string, not a definition's own name);
//! - [`cached`]: the tags of a file kept in memory by (device, inode, size, mtime), bounded.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock, Mutex, OnceLock};

use streaming_iterator::StreamingIterator;
use tree_sitter::{Node, Query, QueryCursor, Tree};

use super::lang::{Grammar, GRAMMARS};

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
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Def {
    pub name: Box<str>,
    pub kind: Kind,
    /// 1-based line where the definition starts.
    pub line: u32,
    /// That line, trimmed and cut to [`MAX_LINE_CHARS`].
    pub text: Box<str>,
    /// Bytes of `text` that are the signature: the line up to the body when the body starts on
    /// it, without a trailing `{` or `:`.
    pub sig_len: u32,
}

impl Def {
    /// The definition's signature line (never its body).
    pub fn signature(&self) -> &str {
        &self.text[..self.sig_len as usize]
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
    Some(TagsQuery {
        query,
        name,
        kinds,
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
    let mut matches = cursor.matches(&q.query, tree.root_node(), text.as_bytes());
    while let Some(m) = matches.next() {
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
            continue;
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
    }
    let mut defs: Vec<Found> = by_node.into_values().collect();
    defs.sort_by_key(|f| (f.node.start_byte(), f.pattern));
    defs
}

/// The tags of a parsed file (empty for a grammar without a tags query).
pub fn file_tags(grammar: &'static Grammar, tree: &Tree, text: &str) -> FileTags {
    let Some(q) = query_for(grammar) else {
        return FileTags::default();
    };
    let found = definitions(q, tree, text);
    let def_names: HashSet<usize> = found.iter().map(|f| f.name.start_byte()).collect();
    let defs = found.iter().map(|f| def(f, text)).collect();
    let mut counts: HashMap<&str, u32> = HashMap::new();
    let mut refs = Vec::new();
    let mut code_ranges = Vec::new();
    each_token(q, tree, |node, code| {
        let Some(t) = text.get(node.byte_range()) else {
            return;
        };
        if code {
            code_ranges.push((node.start_byte() as u32, node.end_byte() as u32));
            for word in words(t) {
                *counts.entry(word).or_default() += 1;
            }
        } else if !def_names.contains(&node.start_byte()) {
            refs.push(node.start_byte() as u32);
            *counts.entry(t).or_default() += 1;
        }
    });
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
    let body = body_start(f.node);
    let (first, first_sig) = line_and_signature(text, line_start, line_end, body);
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
    let sig_len = if sig.len() <= shown.len() && shown.starts_with(&sig) {
        sig.len()
    } else {
        shown.len()
    };
    shown.shrink_to_fit();
    Def {
        name: text[f.name.byte_range()].into(),
        kind: f.kind,
        line: f.node.start_position().row as u32 + 1,
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

/// Whether `b` can be part of an identifier (bytes of non-ASCII characters count).
pub fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b >= 0x80
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
    }

    #[test]
    fn other_families() {
        assert_eq!(
            defs("python", "X = 1\nclass A:\n    @staticmethod\n    def m(): pass\ndef f(a: int) -> int:\n    return a\n"),
            ["1:const X | X = 1", "2:class A | class A", "4:method m | def m()", "5:function f | def f(a: int) -> int"]
        );
        assert_eq!(
            defs("go", "package p\ntype S struct{ x int }\ntype I interface{ M() }\ntype N int\nfunc (s S) M() {}\nfunc F() {}\nconst K = 1\n"),
            ["2:struct S | type S struct", "3:interface I | type I interface", "3:method M | type I interface{ M() }", "4:type N | type N int", "5:method M | func (s S) M()", "6:function F | func F()", "7:const K | const K = 1"]
        );
        assert_eq!(
            defs("typescript", "export interface I { m(): void }\nexport class C {\n  run() {}\n}\nexport const f = (a: number) => a;\nconst K = 3;\ntype T = string;\nenum E { A }\nfunction g() {}\n"),
            ["1:interface I | export interface I", "1:method m | export interface I { m(): void }", "2:class C | export class C", "3:method run | run()", "5:function f | export const f = (a: number) => a;", "6:const K | const K = 3;", "7:type T | type T = string;", "8:enum E | enum E", "9:function g | function g()"]
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
                "6:const X | enum E { X }"
            ]
        );
        assert_eq!(
            defs("cpp", "static int\nsplit(int a)\n{\n  return a;\n}\n"),
            ["1:function split | static int split(int a)"]
        );
        assert_eq!(
            defs("cpp", "#define MAX 3\nstruct s { int a; };\nint f(int);\nstatic int *g(void)\n{\n  return 0;\n}\nclass K { void m(); };\nvoid K::m() {}\ntypedef int t;\n"),
            ["1:macro MAX | #define MAX 3", "2:struct s | struct s", "4:function g | static int *g(void)", "8:class K | class K", "8:method m | class K { void m(); };", "9:method m | void K::m()", "10:type t | typedef int t;"]
        );
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
