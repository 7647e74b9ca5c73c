//! Structural search and rewrite with ast-grep's pattern language (`$X` matches one node,
//! `$$$ARGS` any number, `$_` one node without capturing), on `ast-grep-core` driving the
//! grammars compiled into the addon.
//!
//! Where a language's identifiers cannot start with `$` (Python, Rust, Go, C/C++, ...), the
//! pattern's metavariables are spelled with `µ` before it is parsed, as ast-grep's own
//! language definitions do; rewrite templates keep `$`.

use std::borrow::Cow;

use ast_grep_core::matcher::PatternBuilder;
use ast_grep_core::tree_sitter::{LanguageExt, StrDoc, TSLanguage};
use ast_grep_core::{AstGrep, Language, Pattern, PatternError};
use tree_sitter::Tree;

use super::lang::Grammar;

/// One of our grammars as an ast-grep language.
#[derive(Clone, Copy)]
pub struct SgLang(pub &'static Grammar);

/// The metavariable spelling a grammar parses: `$` where identifiers may start with it.
fn expando(grammar: &Grammar) -> char {
    match grammar.name {
        "typescript" | "tsx" | "javascript" | "java" | "scala" | "bash" | "powershell" | "json"
        | "yaml" | "toml" | "html" | "ini" => '$',
        "css" => '_',
        _ => 'µ',
    }
}

impl Language for SgLang {
    fn pre_process_pattern<'q>(&self, query: &'q str) -> Cow<'q, str> {
        let expando = self.expando_char();
        if expando == '$' {
            return Cow::Borrowed(query);
        }
        // `$A`, `$$A`, `$$$A`, `$_` and a bare `$$$` are metavariables; any other `$` stays.
        let mut out = String::with_capacity(query.len());
        let mut dollars = 0;
        for c in query.chars() {
            if c == '$' {
                dollars += 1;
                continue;
            }
            let meta = c.is_ascii_uppercase() || c == '_' || dollars == 3;
            for _ in 0..dollars {
                out.push(if meta { expando } else { '$' });
            }
            dollars = 0;
            out.push(c);
        }
        for _ in 0..dollars {
            out.push(if dollars == 3 { expando } else { '$' });
        }
        Cow::Owned(out)
    }

    fn expando_char(&self) -> char {
        expando(self.0)
    }

    fn kind_to_id(&self, kind: &str) -> u16 {
        self.0.language().id_for_node_kind(kind, true)
    }

    fn field_to_id(&self, field: &str) -> Option<u16> {
        self.0.language().field_id_for_name(field).map(|f| f.get())
    }

    fn build_pattern(&self, builder: &PatternBuilder) -> Result<Pattern, PatternError> {
        builder.build(|src| StrDoc::try_new(src, *self))
    }
}

impl LanguageExt for SgLang {
    fn get_ts_language(&self) -> TSLanguage {
        self.0.language()
    }
}

/// Compiles a pattern for a grammar; the error says what is wrong with it.
pub fn compile(pattern: &str, grammar: &'static Grammar) -> Result<Pattern, String> {
    let lang = SgLang(grammar);
    let compiled = Pattern::try_new(pattern, lang).map_err(|e| e.to_string())?;
    if compiled.has_error() {
        return Err(format!(
            "the pattern `{pattern}` is not valid {} code",
            grammar.name
        ));
    }
    Ok(compiled)
}

/// A file's text and tree as ast-grep searches them.
pub fn document(grammar: &'static Grammar, text: String, tree: Tree) -> AstGrep<StrDoc<SgLang>> {
    AstGrep::doc(StrDoc {
        src: text,
        lang: SgLang(grammar),
        tree,
    })
}

/// The byte ranges of every match of `pattern` (nested ones included), in document order.
pub fn matches(doc: &AstGrep<StrDoc<SgLang>>, pattern: &Pattern) -> Vec<(usize, usize)> {
    doc.root()
        .find_all(pattern)
        .map(|m| {
            let r = m.range();
            (r.start, r.end)
        })
        .collect()
}

/// The rewrite of every outermost match: sorted, non-overlapping `(start, end, replacement)`.
pub fn rewrites(
    doc: &AstGrep<StrDoc<SgLang>>,
    pattern: &Pattern,
    template: &str,
) -> Vec<(usize, usize, String)> {
    doc.root()
        .replace_all(pattern, template)
        .into_iter()
        .map(|e| {
            (
                e.position,
                e.position + e.deleted_length,
                String::from_utf8_lossy(&e.inserted_text).into_owned(),
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::code::lang::by_name;
    use crate::code::parse::{parse, TOOL_BUDGET};

    fn run(lang: &str, pattern: &str, text: &str, template: &str) -> (Vec<String>, String) {
        let g = by_name(lang).unwrap();
        let p = compile(pattern, g).unwrap();
        let tree = parse(g, text, TOOL_BUDGET, &|| false).unwrap();
        let doc = document(g, text.to_string(), tree);
        let found = matches(&doc, &p)
            .into_iter()
            .map(|(s, e)| text[s..e].to_string())
            .collect();
        let mut out = text.to_string();
        for (s, e, r) in rewrites(&doc, &p, template).into_iter().rev() {
            out.replace_range(s..e, &r);
        }
        (found, out)
    }

    #[test]
    fn metavariables_in_every_family() {
        let (found, out) = run(
            "rust",
            "$X.unwrap()",
            "fn f() { a.unwrap(); b(c).unwrap(); }\n",
            "$X.expect(\"x\")",
        );
        assert_eq!(found, ["a.unwrap()", "b(c).unwrap()"]);
        assert_eq!(out, "fn f() { a.expect(\"x\"); b(c).expect(\"x\"); }\n");
        let (found, out) = run(
            "python",
            "print($$$ARGS)",
            "print(1, 2)\nprint()\n",
            "log($$$ARGS)",
        );
        assert_eq!(found, ["print(1, 2)", "print()"]);
        assert_eq!(out, "log(1, 2)\nlog()\n");
        let (found, _) = run(
            "typescript",
            "console.log($A)",
            "console.log(x); console.log(1, 2);\n",
            "",
        );
        assert_eq!(found, ["console.log(x)"]);
        // `fmt.Println($A)` alone would parse as a Go type conversion: patterns must be
        // unambiguous code.
        let (found, _) = run(
            "go",
            "fmt.Println($A, $$$)",
            "package p\nfunc f() { fmt.Println(1); fmt.Println(1, 2) }\n",
            "",
        );
        assert_eq!(found, ["fmt.Println(1, 2)"]);
        let (found, _) = run("cpp", "free($P)", "void f(void) { free(p); }\n", "");
        assert_eq!(found, ["free(p)"]);
        let (found, _) = run(
            "java",
            "$A.size()",
            "class A { int f() { return l.size(); } }\n",
            "",
        );
        assert_eq!(found, ["l.size()"]);
    }

    #[test]
    fn bad_patterns_say_why() {
        let rust = by_name("rust").unwrap();
        let e = compile("", rust).unwrap_err();
        assert!(e.contains("No AST root"), "{e}");
        let e = compile("$$$A", rust).unwrap_err();
        assert!(e.contains("multi meta variable"), "{e}");
        let e = compile("a; b;", by_name("javascript").unwrap()).unwrap_err();
        assert!(e.contains("Multiple AST nodes"), "{e}");
    }
}
