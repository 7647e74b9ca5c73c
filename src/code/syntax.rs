//! Syntax issues: the ERROR and MISSING nodes of a tree, located by line and column, and the two
//! ways they are reported (check_syntax's JSON, the one-line warning after a write).

use serde::Serialize;
use tree_sitter::{Node, Tree};

/// Most issues collected; finding one more sets `truncated`.
pub const MAX_ISSUES: usize = 50;
/// `near` excerpts longer than this (in characters) are cut and get `...`.
const NEAR_CHARS: usize = 80;

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Issue {
    /// `error` for an ERROR node, `missing` for a MISSING one.
    pub kind: &'static str,
    /// 1-based.
    pub line: usize,
    /// 1-based, counted in UTF-16 code units as the reference's WASM runtime counts them.
    pub column: usize,
    /// The ERROR node's trimmed start line (cut at 80 characters), or the missing token.
    pub near: String,
}

/// The issues of a tree in depth-first pre-order, visiting only subtrees that contain an
/// error; at most [`MAX_ISSUES`], and whether a further one exists.
pub fn issues(tree: &Tree, text: &str) -> (Vec<Issue>, bool) {
    let mut out = Vec::new();
    let root = tree.root_node();
    if !root.has_error() {
        return (out, false);
    }
    let truncated = collect(root, text, &mut out);
    (out, truncated)
}

/// Returns true when a 51st issue was found (the walk stops there).
fn collect(node: Node, text: &str, out: &mut Vec<Issue>) -> bool {
    if node.is_error() || node.is_missing() {
        if out.len() == MAX_ISSUES {
            return true;
        }
        out.push(issue(node, text));
        if node.is_error() {
            return false;
        }
    }
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        if child.has_error() && collect(child, text, out) {
            return true;
        }
    }
    false
}

fn issue(node: Node, text: &str) -> Issue {
    let start = node.start_position();
    let line_start = node.start_byte() - start.column;
    let column = text
        .get(line_start..node.start_byte())
        .map_or(start.column, |prefix| prefix.encode_utf16().count())
        + 1;
    let near = if node.is_missing() {
        node.kind().to_string()
    } else {
        let rest = &text[line_start.min(text.len())..];
        let line = rest.split('\n').next().unwrap_or("");
        excerpt(crate::text::js_trim(line))
    };
    Issue {
        kind: if node.is_missing() {
            "missing"
        } else {
            "error"
        },
        line: start.row + 1,
        column,
        near,
    }
}

/// Trimmed text cut at 80 characters as JavaScript counts them (UTF-16 units; a pair the cut
/// would split stays out whole), with `...` appended when cut.
fn excerpt(line: &str) -> String {
    match crate::text::cut_utf16_units(line, NEAR_CHARS) {
        (kept, true) => format!("{kept}..."),
        (_, false) => line.to_string(),
    }
}

/// check_syntax's one compact JSON text.
pub fn report_json(rel: &str, language: &str, issues: &[Issue], truncated: bool) -> String {
    #[derive(Serialize)]
    struct Report<'a> {
        path: &'a str,
        language: &'a str,
        ok: bool,
        errors: &'a [Issue],
        error_count: usize,
        truncated: bool,
    }
    serde_json::to_string(&Report {
        path: rel,
        language,
        ok: issues.is_empty(),
        errors: issues,
        error_count: issues.len(),
        truncated,
    })
    .expect("a report always serializes")
}

/// The warning line appended after a write (without its leading newline).
pub fn warning_line(language: &str, rel: &str, first: &Issue) -> String {
    let what = if first.kind == "missing" {
        format!("missing `{}`", first.near)
    } else {
        format!("near `{}`", first.near)
    };
    format!(
        "warning: {language} syntax error in {rel} at line {}, column {} ({what}); run check_syntax for details.",
        first.line, first.column
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::code::lang::by_name;
    use crate::code::parse::{parse, TOOL_BUDGET};

    fn check(lang: &str, text: &str) -> (Vec<Issue>, bool) {
        let tree = parse(by_name(lang).unwrap(), text, TOOL_BUDGET, &|| false).unwrap();
        issues(&tree, text)
    }

    #[test]
    fn clean_file_has_no_issues() {
        assert_eq!(check("python", "def f():\n    return 1\n"), (vec![], false));
    }

    #[test]
    fn error_node_located_with_excerpt() {
        let (found, truncated) = check("python", "x = 1\ndef f(:\n    pass\n");
        assert!(!truncated);
        assert!(!found.is_empty());
        assert_eq!(found[0].line, 2, "{found:?}");
        let (found, _) = check("javascript", "let a = 1;\n  x = = 2;\n");
        assert_eq!(found[0].kind, "error", "{found:?}");
        assert_eq!(found[0].line, 2);
        assert_eq!(found[0].near, "x = = 2;");
    }

    #[test]
    fn missing_node_names_the_token() {
        let (found, _) = check("javascript", "function f() {\n  return 1;\n");
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].kind, "missing");
        assert_eq!(found[0].near, "}");
    }

    #[test]
    fn column_counts_utf16_units() {
        // "é" is 2 UTF-8 bytes but one UTF-16 unit; "𝄞" is 4 bytes and two units.
        let (found, _) = check("javascript", "x('𝄞é'));\n");
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].column, "x('𝄞é')".encode_utf16().count() + 1);
    }

    #[test]
    fn fifty_issues_then_truncated() {
        let text = "fn f( {}\n".repeat(80);
        let (found, truncated) = check("rust", &text);
        assert_eq!(found.len(), MAX_ISSUES);
        assert!(truncated);
    }

    #[test]
    fn excerpt_cuts_at_80_chars() {
        let long = "é".repeat(100);
        let cut = excerpt(&long);
        assert_eq!(cut.chars().count(), 83);
        assert!(cut.ends_with("..."));
        assert_eq!(excerpt("short"), "short");
        // As JavaScript counts: UTF-16 units, so an emoji is two of the 80.
        let emoji = format!("{}{}", "x".repeat(70), "😀".repeat(10));
        assert_eq!(
            excerpt(&emoji),
            format!("{}{}...", "x".repeat(70), "😀".repeat(5))
        );
    }

    #[test]
    fn json_and_warning_shapes() {
        let issue = Issue {
            kind: "missing",
            line: 3,
            column: 7,
            near: "}".into(),
        };
        assert_eq!(
            report_json("a.js", "javascript", std::slice::from_ref(&issue), false),
            r#"{"path":"a.js","language":"javascript","ok":false,"errors":[{"kind":"missing","line":3,"column":7,"near":"}"}],"error_count":1,"truncated":false}"#
        );
        assert_eq!(
            warning_line("javascript", "a.js", &issue),
            "warning: javascript syntax error in a.js at line 3, column 7 (missing `}`); run check_syntax for details."
        );
    }
}
