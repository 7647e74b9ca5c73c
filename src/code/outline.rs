//! The outline: a symbol skeleton driven by each grammar's `queries/<grammar>/outline.scm`.
//!
//! The query gives nodes roles through its capture names; one generic walk over named children
//! turns the roles into the contract's capture / pass-through semantics:
//!
//! - `@symbol`: shown, its named children walked one level deeper;
//! - `@symbol.leaf`: shown, not descended into;
//! - `@symbol.top`: shown only at depth 0, not descended into;
//! - `@pass`: not shown, its named children walked at the same depth;
//! - anything else: skipped together with its whole subtree.

use std::collections::HashMap;
use std::sync::OnceLock;

use streaming_iterator::StreamingIterator;
use tree_sitter::{Node, Query, QueryCursor, Tree};

use super::lang::{Grammar, GRAMMARS};
use super::query;

/// Symbols listed before the rest are summarized.
pub const MAX_SYMBOLS: usize = 2000;
/// Header characters kept; longer ones are cut and get `...`.
const MAX_HEADER_CHARS: usize = 150;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    Symbol,
    Leaf,
    Top,
    Pass,
}

/// A compiled outline query and what each of its captures means.
struct OutlineQuery {
    query: Query,
    roles: Vec<Option<Role>>,
    /// By node kind id: whether some pattern starts at a node of that kind (see
    /// [`query::root_table`]); `None` when that could not be told, and every node is matched.
    roots: Option<Vec<bool>>,
}

/// One outline entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Symbol {
    pub depth: usize,
    pub header: String,
    /// 1-based, inclusive.
    pub start_line: usize,
    pub end_line: usize,
}

fn compile(grammar: &Grammar) -> Option<OutlineQuery> {
    let source = grammar.outline_query?;
    // The queries are compiled into the addon and tested; a failure here is a build defect,
    // reported to the caller as an unavailable outline rather than a panic.
    let query = Query::new(&grammar.language(), source).ok()?;
    let roles = query
        .capture_names()
        .iter()
        .map(|name| match *name {
            "symbol" => Some(Role::Symbol),
            "symbol.leaf" => Some(Role::Leaf),
            "symbol.top" => Some(Role::Top),
            "pass" => Some(Role::Pass),
            _ => None,
        })
        .collect();
    let roots = query::root_table(&grammar.language(), source);
    Some(OutlineQuery {
        query,
        roles,
        roots,
    })
}

/// The compiled query of a grammar, built once per process.
fn query_for(grammar: &'static Grammar) -> Option<&'static OutlineQuery> {
    static CACHE: OnceLock<Vec<OnceLock<Option<OutlineQuery>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(|| GRAMMARS.iter().map(|_| OnceLock::new()).collect());
    let index = GRAMMARS.iter().position(|g| std::ptr::eq(g, grammar))?;
    cache[index].get_or_init(|| compile(grammar)).as_ref()
}

/// Records that query capture gave node `id` the role `role`: a node captured as a symbol
/// stays a symbol whatever else matched it.
fn note_role(roles: &mut HashMap<usize, Role>, id: usize, role: Role) {
    roles
        .entry(id)
        .and_modify(|r| {
            if *r == Role::Pass {
                *r = role
            }
        })
        .or_insert(role);
}

/// The symbols of a parsed file in document order (all of them; rendering caps the list).
///
/// The query is not run over the whole tree: a node can only get a role from a pattern that
/// starts at it or at one of its ancestors, and the walk reaches a node only through its
/// ancestors, so each node the walk reaches runs the patterns that start at it (a cursor held
/// to start depth 0) before its own role is read. Function bodies' expressions, which the walk
/// never enters, are never matched: the cost follows the outline, not the file.
pub fn symbols(grammar: &'static Grammar, tree: &Tree, text: &str) -> Vec<Symbol> {
    let Some(q) = query_for(grammar) else {
        return Vec::new();
    };
    let mut roles: HashMap<usize, Role> = HashMap::new();
    let mut cursor = QueryCursor::new();
    cursor.set_max_start_depth(Some(0));
    let mut match_at = |node: Node, roles: &mut HashMap<usize, Role>| {
        let mut matches = cursor.matches(&q.query, node, text.as_bytes());
        while let Some(m) = matches.next() {
            for c in m.captures() {
                if let Some(role) = q.roles[c.index as usize] {
                    note_role(roles, c.node.id(), role);
                }
            }
        }
    };
    let mut out = Vec::new();
    // Explicit stack (node, depth), so deep nesting cannot overflow the thread's stack.
    let mut stack: Vec<(Node, usize)> = vec![(tree.root_node(), 0)];
    let mut walker = tree.walk();
    while let Some((node, depth)) = stack.pop() {
        let may_start = q.roots.as_ref().is_none_or(|roots| {
            roots
                .get(usize::from(node.kind_id()))
                .copied()
                .unwrap_or(true)
        });
        if may_start {
            match_at(node, &mut roles);
        }
        // The root is walked like a child of an imaginary parent at depth 0.
        let descend_at = visit(roles.get(&node.id()).copied(), node, depth, text, &mut out);
        if let Some(child_depth) = descend_at {
            let at = stack.len();
            stack.extend(node.named_children(&mut walker).map(|c| (c, child_depth)));
            stack[at..].reverse();
        }
    }
    out
}

/// What a node of `role` at `depth` adds to the outline, and the depth its named children are
/// walked at (`None`: they are not walked).
fn visit(
    role: Option<Role>,
    node: Node,
    depth: usize,
    text: &str,
    out: &mut Vec<Symbol>,
) -> Option<usize> {
    match role {
        Some(Role::Symbol) => {
            out.push(symbol(node, depth, text));
            Some(depth + 1)
        }
        Some(Role::Leaf) => {
            out.push(symbol(node, depth, text));
            None
        }
        Some(Role::Top) => {
            if depth == 0 {
                out.push(symbol(node, depth, text));
            }
            None
        }
        Some(Role::Pass) => Some(depth),
        None => None,
    }
}

/// The whole-tree query the walk replaced, kept as the oracle of the tests.
#[cfg(test)]
fn symbols_whole_tree(grammar: &'static Grammar, tree: &Tree, text: &str) -> Vec<Symbol> {
    let Some(q) = query_for(grammar) else {
        return Vec::new();
    };
    let root = tree.root_node();
    let mut roles: HashMap<usize, Role> = HashMap::new();
    let mut cursor = QueryCursor::new();
    let mut matches = cursor.matches(&q.query, root, text.as_bytes());
    while let Some(m) = matches.next() {
        for c in m.captures() {
            if let Some(role) = q.roles[c.index as usize] {
                note_role(&mut roles, c.node.id(), role);
            }
        }
    }
    let mut out = Vec::new();
    let mut stack: Vec<(Node, usize)> = vec![(root, 0)];
    while let Some((node, depth)) = stack.pop() {
        let descend_at = visit(roles.get(&node.id()).copied(), node, depth, text, &mut out);
        if let Some(child_depth) = descend_at {
            let mut walker = node.walk();
            let children: Vec<Node> = node.named_children(&mut walker).collect();
            for child in children.into_iter().rev() {
                stack.push((child, child_depth));
            }
        }
    }
    out
}

fn symbol(node: Node, depth: usize, text: &str) -> Symbol {
    // The node's own text (CONTRACT-v0.5-wording §6): a member's `;` lies outside it.
    let rest = text.get(node.start_byte()..node.end_byte()).unwrap_or("");
    let first_line = rest.split('\n').next().unwrap_or("");
    Symbol {
        depth,
        header: header(first_line),
        start_line: node.start_position().row + 1,
        end_line: node.end_position().row + 1,
    }
}

/// The node's first line, trimmed, without one trailing `{` or `:` (nor the whitespace before
/// it), cut at 150 characters as JavaScript counts them (UTF-16 units, CONTRACT-v0.5-wording
/// §6: "over 150 characters → first 150 + `...`"; a pair the cut would split stays out whole).
fn header(first_line: &str) -> String {
    let trimmed = crate::text::js_trim(first_line);
    let stripped = trimmed
        .strip_suffix('{')
        .or_else(|| trimmed.strip_suffix(':'))
        .map_or(trimmed, |s| s.trim_end_matches(crate::text::is_js_space));
    match crate::text::cut_utf16_units(stripped, MAX_HEADER_CHARS) {
        (kept, true) => format!("{kept}..."),
        (_, false) => stripped.to_string(),
    }
}

/// The outline text: the header line, one line per symbol (at most [`MAX_SYMBOLS`]), and the
/// syntax-error note when the file has issues (`issue_count` capped at 50, `truncated` adds `+`).
pub fn render(
    rel: &str,
    grammar: &str,
    text: &str,
    symbols: &[Symbol],
    issue_count: usize,
    truncated: bool,
) -> String {
    let lines = memchr::memchr_iter(b'\n', text.as_bytes()).count() + 1;
    let mut out = format!("{rel} — {grammar}, {lines} lines");
    if symbols.is_empty() {
        out.push_str("\n  (no symbols found)");
    }
    for s in symbols.iter().take(MAX_SYMBOLS) {
        out.push('\n');
        for _ in 0..=s.depth {
            out.push_str("  ");
        }
        out.push_str(&format!("{} ({}-{})", s.header, s.start_line, s.end_line));
    }
    if symbols.len() > MAX_SYMBOLS {
        out.push_str(&format!(
            "\n  [... {} more symbols omitted ...]",
            symbols.len() - MAX_SYMBOLS
        ));
    }
    if issue_count > 0 {
        out.push_str(&format!(
            "\nnote: file has syntax errors ({issue_count}{}); outline may be incomplete — run check_syntax.",
            if truncated { "+" } else { "" }
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::code::lang::by_name;
    use crate::code::parse::{parse, TOOL_BUDGET};

    fn outline(lang: &str, text: &str) -> Vec<String> {
        let g = by_name(lang).unwrap();
        let tree = parse(g, text, TOOL_BUDGET, &|| false).unwrap();
        symbols(g, &tree, text)
            .into_iter()
            .map(|s| {
                format!(
                    "{}{} ({}-{})",
                    "  ".repeat(s.depth),
                    s.header,
                    s.start_line,
                    s.end_line
                )
            })
            .collect()
    }

    #[test]
    fn typescript_capture_and_pass_through() {
        let src = "export class A {\n  x: number = 1;\n  m(): void {\n    function inner() {}\n  }\n}\nconst f = () => {\n  const g = () => 1;\n};\nif (x) {\n  function hidden() {}\n}\n{\n  function inBlock() {}\n}\ninterface I {\n  p(): void;\n}\n";
        assert_eq!(
            outline("typescript", src),
            [
                "class A (1-6)",
                "  x: number = 1 (2-2)",
                "  m(): void (3-5)",
                // statement_block passes through, so a function inside a method shows.
                "    function inner() {} (4-4)",
                "const f = () => (7-9)",
                "function inBlock() {} (14-14)",
                "interface I (16-18)",
                "  p(): void (17-17)",
            ]
        );
    }

    #[test]
    fn python_decorated_and_nested() {
        let src = "@dec\nclass A:\n    def m(self):\n        def inner():\n            pass\n        return 1\nif True:\n    def hidden(): pass\n";
        assert_eq!(
            outline("python", src),
            [
                "class A (2-6)",
                "  def m(self) (3-6)",
                "    def inner() (4-5)",
            ]
        );
    }

    #[test]
    fn rust_go_java_csharp() {
        assert_eq!(
            outline("rust", "mod m {\n    pub struct S;\n    impl S {\n        fn f(&self) {}\n    }\n}\nconst C: u8 = 1;\n"),
            ["mod m (1-6)", "  pub struct S; (2-2)", "  impl S (3-5)", "    fn f(&self) {} (4-4)"]
        );
        assert_eq!(
            outline(
                "go",
                "package p\ntype (\n\tA struct{}\n\tB int\n)\nfunc (a A) M() {}\nvar v = 1\n"
            ),
            ["A struct{} (3-3)", "B int (4-4)", "func (a A) M() {} (6-6)"]
        );
        assert_eq!(
            outline(
                "java",
                "class A {\n  A() {}\n  void m() {}\n  enum E { X; void f() {} }\n}\n"
            ),
            [
                "class A (1-5)",
                "  A() {} (2-2)",
                "  void m() {} (3-3)",
                "  enum E { X; void f() {} } (4-4)"
            ]
        );
        assert_eq!(
            outline(
                "c-sharp",
                "namespace N;\nclass A {\n  int P { get; set; }\n  void M() {}\n}\n"
            ),
            // This grammar keeps a file-scoped namespace's members beside it, not inside it.
            [
                "namespace N; (1-1)",
                "class A (2-5)",
                "  int P { get; set; } (3-3)",
                "  void M() {} (4-4)"
            ]
        );
    }

    #[test]
    fn extra_languages_have_symbols() {
        let cases = [
            (
                "cpp",
                "namespace n {\nstruct S {\n  int f();\n};\nint g() { return 0; }\n}\n",
                4,
            ),
            (
                "ruby",
                "module M\n  class C\n    def m; end\n  end\nend\n",
                3,
            ),
            (
                "php",
                "<?php\nnamespace N;\nclass C {\n  function m() {}\n}\nfunction f() {}\n",
                4,
            ),
            ("kotlin", "class C {\n  fun m() {}\n}\nfun f() {}\n", 3),
            ("swift", "struct S {\n  func m() {}\n}\nfunc f() {}\n", 3),
            ("scala", "object O {\n  def m = 1\n}\nclass C\n", 3),
            (
                "lua",
                "function f()\nend\nlocal g = function() end\nlocal x = 1\n",
                2,
            ),
        ];
        for (lang, src, n) in cases {
            let got = outline(lang, src);
            assert_eq!(got.len(), n, "{lang}: {got:#?}");
        }
    }

    /// The walk that matches only where it goes gives the whole-tree query's outline: the
    /// fixtures of every language with an outline, clean and broken, and this crate's sources.
    #[test]
    fn walk_matches_the_whole_tree_query() {
        let fixtures = concat!(env!("CARGO_MANIFEST_DIR"), "/__test__/fixtures/code");
        let mut files: Vec<std::path::PathBuf> = std::fs::read_dir(fixtures)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.push(concat!(env!("CARGO_MANIFEST_DIR"), "/src/code/outline.rs").into());
        files.push(concat!(env!("CARGO_MANIFEST_DIR"), "/api.js").into());
        let mut checked = 0;
        for file in files {
            let ext = file.extension().unwrap().to_string_lossy().into_owned();
            let Some(g) = crate::code::lang::for_extension(&format!(".{ext}")) else {
                continue;
            };
            if g.outline_query.is_none() {
                continue;
            }
            let text = std::fs::read_to_string(&file).unwrap();
            let tree = parse(g, &text, TOOL_BUDGET, &|| false).unwrap();
            let got = symbols(g, &tree, &text);
            assert_eq!(
                got,
                symbols_whole_tree(g, &tree, &text),
                "{}",
                file.display()
            );
            checked += usize::from(!got.is_empty());
        }
        assert!(checked >= 25, "{checked} files with symbols");
        // The shapes of the code benchmark: many small classes, nested arrow functions.
        let ts = "export interface Shape { area(): number; }\nexport class Circle implements Shape {\n  private r: number = 1;\n  constructor(r: number) { this.r = r; }\n  area(): number {\n    const k = (x: number): number => x * Math.PI;\n    function inner() { return () => 1; }\n    return k(this.r ** 2);\n  }\n}\nexport const double = (x: number): number => x * 2;\nfunction helper(a: string): string {\n  if (a) { function hidden() {} }\n  return a;\n}\n".repeat(20);
        let g = by_name("typescript").unwrap();
        let tree = parse(g, &ts, TOOL_BUDGET, &|| false).unwrap();
        let got = symbols(g, &tree, &ts);
        assert_eq!(got.len(), 20 * 9, "{got:#?}");
        assert_eq!(got, symbols_whole_tree(g, &tree, &ts));
    }

    /// Every outline query's pattern roots are read, and each names a node kind its grammar
    /// has.
    #[test]
    fn pattern_roots_of_every_outline_query() {
        for g in GRAMMARS.iter() {
            let Some(source) = g.outline_query else {
                continue;
            };
            let roots = query::pattern_roots(source).unwrap_or_else(|| panic!("{}", g.name));
            let language = g.language();
            for name in &roots {
                assert_ne!(
                    language.id_for_node_kind(name, true),
                    0,
                    "{}: {name}",
                    g.name
                );
            }
            let q = query_for(g).unwrap();
            assert!(q.roots.as_ref().unwrap().iter().any(|&r| r), "{}", g.name);
        }
    }

    #[test]
    fn header_rules() {
        assert_eq!(header("  function f() {  "), "function f()");
        assert_eq!(header("def f():"), "def f()");
        assert_eq!(header("x = {a:"), "x = {a");
        assert_eq!(header("a {{"), "a {");
        let long = "x".repeat(200);
        assert_eq!(header(&long), format!("{}...", "x".repeat(150)));
        assert_eq!(header(&"x".repeat(150)), "x".repeat(150));
        // An astral character is two units, as JavaScript's `length` counts.
        let emoji = "\u{1F600}".repeat(80);
        assert_eq!(header(&emoji), format!("{}...", "\u{1F600}".repeat(75)));
        let odd = format!("x{emoji}");
        assert_eq!(header(&odd), format!("x{}...", "\u{1F600}".repeat(74)));
    }

    #[test]
    fn render_caps_and_notes() {
        let syms: Vec<Symbol> = (0..2003)
            .map(|i| Symbol {
                depth: 0,
                header: format!("f{i}"),
                start_line: i + 1,
                end_line: i + 1,
            })
            .collect();
        let out = render("a.ts", "typescript", "x\n", &syms, 50, true);
        assert!(out.starts_with("a.ts — typescript, 2 lines\n  f0 (1-1)\n"));
        assert!(out.contains("\n  f1999 (2000-2000)\n  [... 3 more symbols omitted ...]\n"));
        assert!(out.ends_with(
            "\nnote: file has syntax errors (50+); outline may be incomplete — run check_syntax."
        ));
        assert_eq!(
            render("b.py", "python", "", &[], 0, false),
            "b.py — python, 1 lines\n  (no symbols found)"
        );
    }
}
