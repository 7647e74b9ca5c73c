//! `find_symbol`: where a name is defined, from the tags queries of the compiled-in grammars,
//! across the workspace on the shared walk. One row per definition:
//! `path:line: <kind> <first line of the definition>`.

use schemars::JsonSchema;
use serde::Deserialize;

use super::Tool;
use crate::bound::bound;
use crate::call::Ctx;
use crate::code::nav;
use crate::code::tags::{self, Kind};
use crate::error::{ToolError, ToolResult};
use crate::output::Output;
use crate::paths;

/// Definitions a search keeps before it reports an incomplete result.
const MAX_DEFS: usize = 100_000;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// The exact name defined (case-sensitive), one identifier: `parse_args`, `HttpClient`.
    pub name: String,
    /// File or directory to search (default: the workspace root).
    pub path: Option<String>,
    /// Only definitions of this kind: function, method, class, struct, interface, type, trait,
    /// enum, const, macro or module.
    pub kind: Option<String>,
    /// Return at most this many definitions (default: as many as fit the output limit).
    #[schemars(range(min = 1))]
    pub head_limit: Option<u64>,
    /// Definitions to skip (0-based), for paging: use the offset a footer gives you.
    pub offset: Option<u64>,
}

pub struct FindSymbol;

impl Tool for FindSymbol {
    const NAME: &'static str = "find_symbol";
    const DESCRIPTION: &'static str = "Find where a name is defined: the functions, methods, classes, structs, interfaces, types, traits, enums, constants, macros and modules whose name is exactly `name` (case-sensitive), across the workspace (respecting .gitignore) or under `path`, parsed with tree-sitter so comments, strings and mere uses do not match. One line per definition: `path:line: <kind> <first line of the definition>`; `kind` narrows it (e.g. `class`). Languages: TypeScript, TSX, JavaScript, Python, Go, Rust, Java, C and C++. Use it instead of grep to jump to a definition; use find_references for the places a name is used, repo_map for an overview, and grep for text that is not a name or for other languages.";
    const MUTATING: bool = false;
    const BOUNDED: bool = true;
    const SINCE_V05: bool = true;
    const NEEDS_TREE_SITTER: bool = true;
    const EXTRA: bool = true;
    const TITLE: &'static str = "Find a symbol's definitions";
    type Args = Args;

    fn run(args: Args, ctx: &Ctx) -> ToolResult<Output> {
        nav::check_name(&args.name)?;
        let kind = args.kind.as_deref().map(parse_kind).transpose()?;
        let base = paths::resolve_or_root(ctx, args.path.as_deref())?;
        let cancelled = || ctx.cancel.is_cancelled();
        let name = args.name.as_str();
        let scanned = nav::scan(ctx, &base, &tags::supports, MAX_DEFS, &cancelled, |c| {
            let tags = match tags::cached(&c.abs, &c.stamp) {
                Some(t) => t,
                None => {
                    let Some(text) = c.read() else {
                        return Ok(None);
                    };
                    if nav_absent(&text, name) {
                        return Ok(None);
                    }
                    match c.tags_of(&text, &cancelled)? {
                        Some(t) => t,
                        None => return Ok(None),
                    }
                }
            };
            let rows: Vec<(u32, String)> = tags
                .defs
                .iter()
                .filter(|d| &*d.name == name && kind.is_none_or(|k| d.kind == k))
                .map(|d| (d.line, format!("{} {}", d.kind.name(), d.text)))
                .collect();
            Ok((!rows.is_empty()).then_some(rows))
        })?;
        let rows: Vec<String> = scanned
            .items
            .iter()
            .flat_map(|(display, defs)| {
                defs.iter()
                    .map(move |(line, text)| format!("{display}:{line}: {text}"))
            })
            .collect();
        let budget = ctx.max_output_bytes as usize;
        let text = crate::paging::render_page(
            rows.len() as u64,
            args.offset.unwrap_or(0),
            args.head_limit,
            budget,
            scanned.stopped_early,
            |i| rows[i as usize].clone(),
        );
        Ok(bound(text, budget).into())
    }
}

/// Whether `name` is nowhere in `text` as a whole word (then the file defines no such name).
fn nav_absent(text: &str, name: &str) -> bool {
    tags::word_occurrences(text, name).is_empty()
}

fn parse_kind(kind: &str) -> ToolResult<Kind> {
    Kind::ALL
        .into_iter()
        .find(|k| k.name() == kind)
        .ok_or_else(|| {
            let names: Vec<&str> = Kind::ALL.iter().map(|k| k.name()).collect();
            ToolError::invalid_input(format!(
                "unknown kind {kind:?}: use one of {}",
                names.join(", ")
            ))
            .with("field", "kind")
        })
}

#[cfg(test)]
pub(crate) mod tests {
    use std::fs;
    use std::path::Path;

    use serde_json::json;

    use crate::config::Config;
    use crate::error::ErrorCode;

    /// A test config with the tools beyond the contract offered.
    pub fn config(root: &Path) -> Config {
        Config {
            extras: true,
            ..crate::testutil::config_at(root)
        }
    }

    pub fn tree(root: &Path, files: &[(&str, &str)]) {
        for (f, body) in files {
            let p = root.join(f);
            fs::create_dir_all(p.parent().unwrap()).unwrap();
            fs::write(p, body).unwrap();
        }
    }

    fn call(root: &Path, args: serde_json::Value) -> crate::error::ToolResult<String> {
        crate::testutil::call_text("find_symbol", args, &config(root))
    }

    #[test]
    fn definitions_across_languages_with_lines_and_kinds() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        tree(
            root,
            &[
                ("src/lib.rs", "// Parser is great\npub struct Parser {\n    x: u8,\n}\nimpl Parser {\n    pub fn parse(&self) {}\n}\n"),
                ("web/app.ts", "const s = 'Parser';\nexport class Parser {\n  parse(): void {}\n}\n"),
                ("py/p.py", "class Parser:\n    def parse(self):\n        pass\n"),
                ("go/p.go", "package p\n\ntype Parser struct{}\n\nfunc (p *Parser) parse() {}\n"),
                ("c/p.h", "struct Parser { int a; };\nint parse(void);\n"),
                ("c/p.c", "#include \"p.h\"\nint parse(void)\n{\n  return 0;\n}\n"),
                ("java/P.java", "class Parser {\n  void parse() {}\n}\n"),
                ("notes.md", "Parser parse\n"),
                ("ignored/x.rs", "struct Parser;\n"),
                (".gitignore", "ignored/\n"),
            ],
        );
        assert_eq!(
            call(root, json!({"name": "Parser"})).unwrap(),
            [
                "c/p.h:1: struct struct Parser { int a; };",
                "go/p.go:3: struct type Parser struct{}",
                "java/P.java:1: class class Parser {",
                "py/p.py:1: class class Parser:",
                "src/lib.rs:2: struct pub struct Parser {",
                "web/app.ts:2: class export class Parser {",
            ]
            .join("\n")
        );
        assert_eq!(
            call(root, json!({"name": "parse", "kind": "function"})).unwrap(),
            "c/p.c:2: function int parse(void)"
        );
        assert_eq!(
            call(root, json!({"name": "parse", "path": "src"})).unwrap(),
            "src/lib.rs:6: method pub fn parse(&self) {}"
        );
        assert_eq!(
            call(root, json!({"name": "parse", "path": "py/p.py"})).unwrap(),
            "py/p.py:2: method def parse(self):"
        );
        assert_eq!(call(root, json!({"name": "Pars"})).unwrap(), "(no matches)");
        let e = call(root, json!({"name": "Parser", "kind": "klass"})).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidInput);
        assert!(
            e.message.contains("function, method, class"),
            "{}",
            e.message
        );
        let e = call(root, json!({"name": "a b"})).unwrap_err();
        assert!(e.message.contains("use grep"), "{}", e.message);
        // Paging.
        assert_eq!(
            call(root, json!({"name": "Parser", "head_limit": 2, "offset": 1})).unwrap(),
            "go/p.go:3: struct type Parser struct{}\njava/P.java:1: class class Parser {\n[... showing 1..3 of 6; call again with offset=3 for more ...]"
        );
    }
}
