//! `ast_grep`: structural search and rewrite with ast-grep's pattern language, over the
//! grammars compiled into the addon ([`crate::code::structural`]). A search lists one match
//! per row, `path:line: <first line of the match>`, paged as grep pages. A rewrite is a dry run
//! by default (counts and a diff); applied, it writes every changed file in one transaction,
//! all or nothing, through `replace`'s commit path.

use ast_grep_core::Pattern;
use schemars::JsonSchema;
use serde::Deserialize;

use super::replace;
use super::Tool;
use crate::bound::bound;
use crate::call::Ctx;
use crate::code::lang::{self, Grammar, GRAMMARS};
use crate::code::{nav, parse, structural};
use crate::confine::WorkPath;
use crate::error::{ToolError, ToolResult};
use crate::output::Output;
use crate::paging::{cut_line, render_page};
use crate::paths;

/// Matches a search keeps before it reports an incomplete result.
const MAX_FILES: usize = 1_000_000;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// A code pattern in ast-grep syntax: code of the language with metavariables. `$X` matches
    /// any one node (an expression, a name, ...), `$$$ARGS` any number of nodes, `$_` one node
    /// without capturing: `$X.unwrap()`, `console.log($$$ARGS)`, `if err != nil { return $E }`.
    pub pattern: String,
    /// The language of the pattern and of the files searched: typescript, tsx, javascript,
    /// python, go, rust, java, c-sharp, cpp (also for C), ruby, php, kotlin, swift, scala, lua,
    /// bash, css, html, json, yaml, toml, ... (default: each file's own language, by extension,
    /// for the programming languages).
    pub language: Option<String>,
    /// File or directory to search (default: the workspace root).
    pub path: Option<String>,
    /// Replace each match with this template; metavariables of the pattern are substituted
    /// (`$X.expect("reason")`). A dry run unless dry_run is false.
    pub rewrite: Option<String>,
    /// With rewrite: preview only (default TRUE): counts and a diff, nothing written. Pass false
    /// to write every changed file (all or none).
    pub dry_run: Option<bool>,
    /// Return at most this many matches (default: as many as fit the output limit).
    #[schemars(range(min = 1))]
    pub head_limit: Option<u64>,
    /// Matches to skip (0-based), for paging: use the offset a footer gives you.
    pub offset: Option<u64>,
}

pub struct AstGrep;

impl Tool for AstGrep {
    const NAME: &'static str = "ast_grep";
    const DESCRIPTION: &'static str = "Search (and optionally rewrite) code by its syntax tree with ast-grep patterns: write code of the language with metavariables — `$X` is any one node, `$$$ARGS` any number of nodes — e.g. `$X.unwrap()`, `console.log($$$ARGS)`, `def $F(self, $$$P): $$$B`. Matches follow the syntax tree, not the text: formatting and line breaks do not matter, and words in comments or strings do not match code. One line per match: `path:line: <first line of the match>`. With rewrite (a template using the same metavariables, e.g. `$X.expect(\"msg\")`), it is a DRY RUN by default showing a diff; pass dry_run: false to write every changed file atomically (all or none). language is the grammar (typescript, python, rust, go, cpp, java, ...; default: each file's own by extension). Use grep for plain text or regex searches, find_symbol / find_references for a name, edit_file for a single hand-written change.";
    const MUTATING: bool = true;
    const BOUNDED: bool = true;
    const SINCE_V05: bool = true;
    const NEEDS_TREE_SITTER: bool = true;
    const EXTRA: bool = true;
    const TITLE: &'static str = "Structural search and rewrite (ast-grep)";
    type Args = Args;

    fn run(args: Args, ctx: &Ctx) -> ToolResult<Output> {
        crate::pattern::check_len(&args.pattern, "pattern")?;
        let patterns = compile_all(&args.pattern, args.language.as_deref())?;
        let base = paths::resolve_or_root(ctx, args.path.as_deref())?;
        let cancelled = || ctx.cancel.is_cancelled();
        let accept = |g: &'static Grammar| pattern_for(&patterns, g).is_some();
        let scanned = nav::scan(ctx, &base, &accept, MAX_FILES, &cancelled, |c| {
            let Some(pattern) = pattern_for(&patterns, c.grammar) else {
                return Ok(None);
            };
            let Some(text) = c.read() else {
                return Ok(None);
            };
            let found = search(c.grammar, pattern, text, &cancelled)?;
            Ok((!found.is_empty()).then(|| (c.abs.clone(), c.grammar, found)))
        })?;
        let budget = ctx.max_output_bytes as usize;
        let Some(template) = args.rewrite.as_deref() else {
            let rows: Vec<String> = scanned
                .items
                .iter()
                .flat_map(|(display, (_, _, found))| {
                    found
                        .iter()
                        .map(move |(line, first)| format!("{display}:{line}: {first}"))
                })
                .collect();
            let text = render_page(
                rows.len() as u64,
                args.offset.unwrap_or(0),
                args.head_limit,
                budget,
                scanned.stopped_early,
                |i| rows[i as usize].clone(),
            );
            return Ok(bound(text, budget).into());
        };
        // Rewrite: each file with matches, loaded and changed as replace changes it.
        let mut changes = Vec::new();
        for (display, (abs, grammar, _)) in &scanned.items {
            if cancelled() {
                return Err(nav::aborted());
            }
            let path = WorkPath {
                abs: abs.clone(),
                display: display.clone(),
                input: display.clone(),
                within: base.within.clone(),
                root: base.root.clone(),
            };
            let pattern = pattern_for(&patterns, grammar).expect("scanned with a pattern");
            let redo = |p: &WorkPath| rewrite_file(ctx, p, grammar, pattern, template);
            if let Some(change) = redo(&path) {
                changes.push(change);
            }
        }
        if changes.is_empty() {
            return Ok("(no matches)".into());
        }
        let total: usize = changes.iter().map(|c| c.count).sum();
        let diff = changes
            .iter()
            .map(|c| c.patch.as_str())
            .collect::<Vec<_>>()
            .join("\n");
        if args.dry_run.unwrap_or(true) {
            let text = format!(
                "{total} rewrite(s) across {} file(s) (dry run \u{2014} pass dry_run: false to apply)\n\n{diff}",
                changes.len()
            );
            return Ok(bound(text, budget).into());
        }
        let grammar_of = |p: &WorkPath| {
            scanned
                .items
                .iter()
                .find(|(_, (abs, _, _))| *abs == p.abs)
                .map(|(_, (_, g, _))| *g)
        };
        replace::commit(&changes, &cancelled, |p| {
            let g = grammar_of(p)?;
            rewrite_file(ctx, p, g, pattern_for(&patterns, g)?, template)
        })?;
        let head = format!("Rewrote {total} match(es) in {} file(s):", changes.len());
        let out = replace::applied(ctx, head, &changes, "rewrite");
        Ok(Output::text(bound(out, budget)).with_meta("diff", diff))
    }
}

/// The pattern compiled for each grammar it applies to (by index in [`GRAMMARS`]).
type Patterns = Vec<Option<Pattern>>;

fn pattern_for<'p>(patterns: &'p Patterns, grammar: &Grammar) -> Option<&'p Pattern> {
    let i = GRAMMARS.iter().position(|g| std::ptr::eq(g, grammar))?;
    patterns.get(i)?.as_ref()
}

/// A language name as the caller may spell it.
fn language(name: &str) -> Option<&'static Grammar> {
    let lower = name.trim().to_ascii_lowercase();
    let canonical = match lower.as_str() {
        "ts" => "typescript",
        "js" | "jsx" | "node" => "javascript",
        "py" | "python3" => "python",
        "rs" => "rust",
        "golang" => "go",
        "c" | "c++" | "cc" | "cxx" | "h" | "hpp" => "cpp",
        "cs" | "csharp" | "c#" => "c-sharp",
        "rb" => "ruby",
        "kt" => "kotlin",
        "sh" | "shell" => "bash",
        "yml" => "yaml",
        other => other,
    };
    lang::by_name(canonical)
}

/// Compiles the pattern for the named language, or (none named) for every programming
/// language it is valid code in. `invalid_input` says what is wrong.
fn compile_all(pattern: &str, language_arg: Option<&str>) -> ToolResult<Patterns> {
    let bad = |message: String| ToolError::invalid_input(message).with("field", "pattern");
    if let Some(name) = language_arg {
        let Some(grammar) = language(name) else {
            let names: Vec<&str> = GRAMMARS.iter().map(|g| g.name).collect();
            return Err(ToolError::invalid_input(format!(
                "unknown language {name:?}: use one of {} (cpp also covers C)",
                names.join(", ")
            ))
            .with("field", "language"));
        };
        let compiled = structural::compile(pattern, grammar).map_err(|e| {
            bad(format!(
                "invalid ast-grep pattern for {}: {e}",
                grammar.name
            ))
        })?;
        return Ok(GRAMMARS
            .iter()
            .map(|g| std::ptr::eq(g, grammar).then(|| compiled.clone()))
            .collect());
    }
    let mut first_error = None;
    let patterns: Patterns = GRAMMARS
        .iter()
        .map(|g| {
            g.outline_query?;
            match structural::compile(pattern, g) {
                Ok(p) => Some(p),
                Err(e) => {
                    first_error.get_or_insert(e);
                    None
                }
            }
        })
        .collect();
    if patterns.iter().all(Option::is_none) {
        return Err(bad(format!(
            "invalid ast-grep pattern: it is not valid code in any language ({}); set language to get that language's error",
            first_error.unwrap_or_default()
        )));
    }
    Ok(patterns)
}

/// The matches in one file: (line, first line of the match). `Err` when cancelled.
fn search(
    grammar: &'static Grammar,
    pattern: &Pattern,
    text: String,
    cancelled: &dyn Fn() -> bool,
) -> Result<Vec<(u32, String)>, nav::Cancelled> {
    let tree = match parse::parse(grammar, &text, parse::TOOL_BUDGET, cancelled) {
        Ok(t) => t,
        Err(parse::ParseFailure::Aborted) => return Err(nav::Cancelled),
        Err(_) => return Ok(Vec::new()),
    };
    let doc = structural::document(grammar, text, tree);
    let found = structural::matches(&doc, pattern);
    let text = doc.get_text();
    let starts: Vec<usize> = found.iter().map(|m| m.0).collect();
    let lines = nav::lines_of(text, &starts);
    Ok(found
        .iter()
        .zip(lines)
        .map(|(&(s, e), line)| {
            let first = text[s..e].split('\n').next().unwrap_or("");
            (line, cut_line(first.as_bytes(), None, line.into()))
        })
        .collect())
}

/// The rewrite of one file, loaded (and written back) as replace does.
fn rewrite_file(
    ctx: &Ctx,
    path: &WorkPath,
    grammar: &'static Grammar,
    pattern: &Pattern,
    template: &str,
) -> Option<replace::Change> {
    let file = replace::load(path, ctx)?;
    replace::change_from(path, file, |text| {
        let tree = parse::parse(grammar, text, parse::TOOL_BUDGET, &|| false).ok()?;
        let doc = structural::document(grammar, text.to_string(), tree);
        Some(structural::rewrites(&doc, pattern, template))
    })
}

#[cfg(test)]
mod tests {
    use std::fs;
    use std::path::Path;

    use serde_json::json;

    use crate::error::ErrorCode;
    use crate::tools::find_symbol::tests::config;
    use crate::tools::find_symbol::tests::tree;

    fn call(root: &Path, args: serde_json::Value) -> crate::error::ToolResult<String> {
        crate::testutil::call_text("ast_grep", args, &config(root))
    }

    #[test]
    fn search_rows_per_file_language() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        tree(
            root,
            &[
                ("a.rs", "fn f() {\n    // x.unwrap() in a comment\n    let s = \"y.unwrap()\";\n    a.unwrap();\n    b(c)\n        .unwrap();\n}\n"),
                ("b.py", "x.unwrap()\n"),
                ("c.ts", "console.log(a, b);\nconsole.log();\n"),
            ],
        );
        assert_eq!(
            call(root, json!({"pattern": "$X.unwrap()", "language": "rust"})).unwrap(),
            "a.rs:4: a.unwrap()\na.rs:5: b(c)"
        );
        // Without a language, each file is searched in its own.
        assert_eq!(
            call(root, json!({"pattern": "$X.unwrap()"})).unwrap(),
            "a.rs:4: a.unwrap()\na.rs:5: b(c)\nb.py:1: x.unwrap()"
        );
        assert_eq!(
            call(
                root,
                json!({"pattern": "console.log($$$A)", "path": "c.ts"})
            )
            .unwrap(),
            "c.ts:1: console.log(a, b)\nc.ts:2: console.log()"
        );
        assert_eq!(
            call(root, json!({"pattern": "nothing_here($A)"})).unwrap(),
            "(no matches)"
        );
        let e = call(root, json!({"pattern": "$$$A", "language": "rust"})).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidInput);
        assert!(
            e.message.starts_with("invalid ast-grep pattern for rust: "),
            "{}",
            e.message
        );
        let e = call(root, json!({"pattern": "x", "language": "cobol"})).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidInput);
        assert!(
            e.message
                .starts_with("unknown language \"cobol\": use one of typescript, tsx"),
            "{}",
            e.message
        );
    }

    #[test]
    fn rewrite_dry_run_apply_and_all_or_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let a = "fn f() {\r\n    a.unwrap();\r\n}\r\n";
        let b = "fn g() { b.unwrap() }\n";
        tree(root, &[("a.rs", a), ("zz_sg_fail.rs", b)]);
        let args =
            json!({"pattern": "$X.unwrap()", "rewrite": "$X.expect(\"ok\")", "language": "rust"});
        let out = call(root, args.clone()).unwrap();
        assert!(
            out.starts_with("2 rewrite(s) across 2 file(s) (dry run"),
            "{out}"
        );
        assert!(out.contains("+    a.expect(\"ok\");"), "{out}");
        assert_eq!(fs::read_to_string(root.join("a.rs")).unwrap(), a);
        // Applied: both files, line endings kept, and meta.diff.
        let mut apply = args.clone();
        apply["dry_run"] = json!(false);
        let c = config(root);
        let spec = crate::tools::REGISTRY
            .iter()
            .find(|t| t.name == "ast_grep")
            .unwrap();
        let ctx = crate::call::Ctx::new(&c, crate::call::Cancel::default());
        let result = spec.call(apply.clone(), &ctx).unwrap();
        assert_eq!(
            result.joined_text(),
            "Rewrote 2 match(es) in 2 file(s):\n  M a.rs (1 rewrite)\n  M zz_sg_fail.rs (1 rewrite)"
        );
        assert!(result.meta.unwrap()["diff"]
            .as_str()
            .unwrap()
            .contains("-fn g() { b.unwrap() }"));
        assert_eq!(
            fs::read_to_string(root.join("a.rs")).unwrap(),
            "fn f() {\r\n    a.expect(\"ok\");\r\n}\r\n"
        );
        assert_eq!(
            fs::read_to_string(root.join("zz_sg_fail.rs")).unwrap(),
            "fn g() { b.expect(\"ok\") }\n"
        );
        // All or nothing: a failure writing the second file leaves the first untouched.
        tree(root, &[("a.rs", a), ("zz_sg_fail.rs", b)]);
        crate::atomic::set_fail_on(Some("zz_sg_fail.rs".into()));
        let e = spec.call(apply, &ctx).unwrap_err();
        crate::atomic::set_fail_on(None);
        assert_eq!(e.code, ErrorCode::IoError, "{}", e.message);
        assert_eq!(fs::read_to_string(root.join("a.rs")).unwrap(), a);
        assert_eq!(fs::read_to_string(root.join("zz_sg_fail.rs")).unwrap(), b);
    }
}
