//! `find_references`: every line where a name is used as an identifier — not in a comment or a
//! string, not as a longer name that contains it, not where it is defined. Files are searched
//! for the name as a whole word first (as `rg -w` does); only the files that have it are
//! parsed, or their tags taken from the cache (by file identity), and each occurrence is kept
//! when it starts a reference identifier of the syntax tree.
//!
//! Paged and bounded as grep is: pass 1 keeps only line numbers per file, the page's rows are
//! read again from the files it touches.

use schemars::JsonSchema;
use serde::Deserialize;

use super::Tool;
use crate::bound::bound;
use crate::call::Ctx;
use crate::code::{nav, tags};
use crate::error::ToolResult;
use crate::output::Output;
use crate::paging::{cut_line, render_page};
use crate::paths;

/// Files with references a search keeps before it reports an incomplete result.
const MAX_FILES: usize = 1_000_000;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// The name used (case-sensitive), one identifier: `parse_args`, `HttpClient`.
    pub name: String,
    /// File or directory to search (default: the workspace root).
    pub path: Option<String>,
    /// Return at most this many lines (default: as many as fit the output limit).
    #[schemars(range(min = 1))]
    pub head_limit: Option<u64>,
    /// Lines to skip (0-based), for paging: use the offset a footer gives you.
    pub offset: Option<u64>,
}

pub struct FindReferences;

impl Tool for FindReferences {
    const NAME: &'static str = "find_references";
    const DESCRIPTION: &'static str = "Find where a name is used: every line where the identifier `name` (exact, case-sensitive) appears in code as a reference — calls, uses, types, imports — across the workspace (respecting .gitignore) or under `path`. Parsed with tree-sitter, so mentions in comments and strings, longer names that contain it (`name_all`), and its own definitions are left out. One line per line that uses it: `path:line: <the line>`, sorted by path and line; when a footer says more exist, call again with the offset it gives. Languages: TypeScript, TSX, JavaScript, Python, Go, Rust, Java, C and C++. Use it before renaming or changing a function's signature; use find_symbol for the definition, and grep for text that is not an identifier or for other languages.";
    const MUTATING: bool = false;
    const BOUNDED: bool = true;
    const SINCE_V05: bool = true;
    const NEEDS_TREE_SITTER: bool = true;
    const EXTRA: bool = true;
    const TITLE: &'static str = "Find references to a name";
    type Args = Args;

    fn run(args: Args, ctx: &Ctx) -> ToolResult<Output> {
        nav::check_name(&args.name)?;
        let base = paths::resolve_or_root(ctx, args.path.as_deref())?;
        let cancelled = || ctx.cancel.is_cancelled();
        let name = args.name.as_str();
        let scanned = nav::scan(ctx, &base, &tags::supports, MAX_FILES, &cancelled, |c| {
            let Some(text) = c.read() else {
                return Ok(None);
            };
            let at = tags::word_occurrences(&text, name);
            if at.is_empty() {
                return Ok(None);
            }
            // The file's tags, cached by its identity, say where its references start.
            let Some(tags) = c.tags_of(&text, &cancelled)? else {
                return Ok(None);
            };
            let refs = tags.references(&at);
            let mut lines = nav::lines_of(&text, &refs);
            lines.dedup();
            Ok((!lines.is_empty()).then(|| (c.rel.clone(), lines)))
        })?;
        let total: u64 = scanned.items.iter().map(|(_, (_, l))| l.len() as u64).sum();
        // Row i is the i-th line of the files in path order; the page's files are read again.
        let mut file_index = 0usize;
        let mut first_of_file = 0u64;
        let mut current: Option<(usize, Vec<String>)> = None;
        let budget = ctx.max_output_bytes as usize;
        let text = render_page(
            total,
            args.offset.unwrap_or(0),
            args.head_limit,
            budget,
            scanned.stopped_early,
            |i| {
                while let Some((_, (_, lines))) = scanned.items.get(file_index) {
                    if i < first_of_file + lines.len() as u64 {
                        break;
                    }
                    first_of_file += lines.len() as u64;
                    file_index += 1;
                }
                let (display, (rel, lines)) = &scanned.items[file_index];
                if current.as_ref().is_none_or(|(f, _)| *f != file_index) {
                    let text = scanned
                        .open(rel)
                        .ok()
                        .and_then(|f| read_all(f, ctx.max_file_bytes))
                        .unwrap_or_default();
                    let split = text.split('\n').map(str::to_string).collect();
                    current = Some((file_index, split));
                }
                let line = lines[(i - first_of_file) as usize];
                let shown = current
                    .as_ref()
                    .and_then(|(_, l)| l.get(line as usize - 1))
                    .map_or(String::new(), |l| {
                        cut_line(l.as_bytes(), word_at(l, name), line.into())
                    });
                format!("{display}:{line}: {shown}")
            },
        );
        Ok(bound(text, budget).into())
    }
}

/// Where `name` first occurs in `line` as a whole word: the window a long line is cut to
/// starts there, as grep's does at its match, so the reference itself shows.
fn word_at(line: &str, name: &str) -> Option<usize> {
    let ident = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    line.match_indices(name).map(|(i, _)| i).find(|&i| {
        let before = line[..i].chars().next_back();
        let after = line[i + name.len()..].chars().next();
        !before.is_some_and(ident) && !after.is_some_and(ident)
    })
}

fn read_all(file: std::fs::File, max: u64) -> Option<String> {
    use std::io::Read;
    let mut bytes = Vec::new();
    file.take(max.saturating_add(1))
        .read_to_end(&mut bytes)
        .ok()?;
    nav::source_text(bytes, max)
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use serde_json::json;

    use crate::tools::find_symbol::tests::config;
    use crate::tools::find_symbol::tests::tree;

    fn call(root: &Path, args: serde_json::Value) -> crate::error::ToolResult<String> {
        crate::testutil::call_text("find_references", args, &config(root))
    }

    #[test]
    fn references_per_family_skip_comments_strings_longer_names_and_definitions() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        tree(
            root,
            &[
                ("a.rs", "/// load the config\npub fn load() -> u8 { 1 }\nfn main() {\n    let s = \"load\";\n    load(); load();\n    load_all();\n}\n"),
                ("b.ts", "// load it\nexport function load() {}\nconst x = `load ${load()}`;\nimport { load as l } from './c';\nloader();\n"),
                ("c.py", "# load\ndef load():\n    pass\nload()\nprint('load', load_more)\n"),
                ("d.go", "package d\n\n// load\nfunc load() {}\n\nfunc main() { load(); _ = \"load\" }\n"),
                ("e.c", "/* load */\nint load(void) { return 0; }\nint main(void) { return load(); }\n#define L load()\n"),
                ("F.java", "class F {\n  void load() {}\n  void m() { load(); String s = \"load\"; }\n}\n"),
            ],
        );
        assert_eq!(
            call(root, json!({"name": "load"})).unwrap(),
            [
                "F.java:3:   void m() { load(); String s = \"load\"; }",
                "a.rs:5:     load(); load();",
                "b.ts:3: const x = `load ${load()}`;",
                "b.ts:4: import { load as l } from './c';",
                "c.py:4: load()",
                "d.go:6: func main() { load(); _ = \"load\" }",
                "e.c:3: int main(void) { return load(); }",
                "e.c:4: #define L load()",
            ]
            .join("\n")
        );
        assert_eq!(
            call(root, json!({"name": "load", "head_limit": 3, "offset": 2})).unwrap(),
            "b.ts:3: const x = `load ${load()}`;\nb.ts:4: import { load as l } from './c';\nc.py:4: load()\n[... showing 2..5 of 8; call again with offset=5 for more ...]"
        );
        assert_eq!(
            call(root, json!({"name": "load", "path": "c.py"})).unwrap(),
            "c.py:4: load()"
        );
        assert_eq!(call(root, json!({"name": "lo"})).unwrap(), "(no matches)");
    }

    /// A long line is cut around the reference, as grep cuts around its match.
    #[test]
    fn a_long_line_shows_the_reference() {
        let dir = tempfile::tempdir().unwrap();
        let line = format!("{}longfn()\n", "x = 1; ".repeat(600));
        tree(
            dir.path(),
            &[("l.py", "def longfn():\n    pass\n"), ("m.py", &line)],
        );
        let out = call(dir.path(), json!({"name": "longfn"})).unwrap();
        assert!(out.starts_with("m.py:1: [... "), "{out}");
        assert!(out.contains("longfn()"), "{out}");
    }

    #[test]
    fn a_changed_file_is_parsed_again() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        tree(root, &[("a.py", "def f():\n    pass\nf()\n")]);
        assert_eq!(call(root, json!({"name": "f"})).unwrap(), "a.py:3: f()");
        // Same file (inode), new size and contents: the cached tags are not used.
        std::fs::write(root.join("a.py"), "# f()\nx = 'f()'\n\n\nf()\n").unwrap();
        assert_eq!(call(root, json!({"name": "f"})).unwrap(), "a.py:5: f()");
    }

    #[test]
    fn bounded_by_max_output_bytes_and_cancellable() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let body: String = (0..500)
            .map(|i| format!("fn f{i}() {{ target(); }}\n"))
            .collect();
        tree(
            root,
            &[("a.rs", &body), ("b/c.rs", "fn g() { target(); }\n")],
        );
        let mut c = config(root);
        c.max_output_bytes = 2048;
        let out =
            crate::testutil::call_text("find_references", json!({"name": "target"}), &c).unwrap();
        assert!(out.len() <= 2048, "{}", out.len());
        let shown = out.lines().filter(|l| l.starts_with("a.rs:")).count();
        assert!(out.ends_with(&format!("[... showing 0..{shown} of 501; the output limit cut this page short: call again with offset={shown} and a lower head_limit ...]")), "{out}");
        let cancel = crate::call::Cancel::armed();
        cancel.cancel();
        let ctx = crate::call::Ctx::new(&c, cancel);
        for tool in ["find_references", "find_symbol", "repo_map", "ast_grep"] {
            let spec = crate::tools::REGISTRY
                .iter()
                .find(|t| t.name == tool)
                .unwrap();
            let args = match tool {
                "repo_map" => json!({}),
                "ast_grep" => json!({"pattern": "target()", "language": "rust"}),
                _ => json!({"name": "target"}),
            };
            let e = spec.call(args, &ctx).unwrap_err();
            assert_eq!(e.code, crate::error::ErrorCode::Aborted, "{tool}");
        }
    }
}
