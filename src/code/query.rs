//! Where a tree-sitter query's patterns can start, read from its source, so that outline and
//! tags run a query only at nodes of those kinds (a cursor held to start depth 0) instead of
//! letting the query cursor visit every node of the tree.

use tree_sitter::Language;

/// By node kind id: whether some pattern of `source` starts at a named node of that kind.
/// `None` when that cannot be told from the source (see [`pattern_roots`]): then every node
/// must be matched.
pub fn root_table(language: &Language, source: &str) -> Option<Vec<bool>> {
    let names = pattern_roots(source)?;
    Some(
        (0..language.node_kind_count() as u16)
            .map(|id| {
                language.node_kind_is_named(id)
                    && language
                        .node_kind_for_id(id)
                        .is_some_and(|kind| names.iter().any(|n| n == kind))
            })
            .collect(),
    )
}

/// The node kinds the patterns of a query start at, read from its source: the kind of every
/// pattern at the top level, of each alternative of a top-level `[ … ]`, and inside a grouping
/// `( … )` of patterns (predicates such as `(#eq? …)` skipped). `None` when a pattern starts
/// at something else (a wildcard `_`, an anonymous `"…"` node) or the source is not understood:
/// then every node must be matched. The walk matches only nodes of these kinds; a node of any
/// other kind can start no pattern, so matching it finds nothing.
pub fn pattern_roots(source: &str) -> Option<Vec<String>> {
    /// An open bracket: a node `(kind …)` (its insides are no roots), or a `[ … ]` or a
    /// grouping `( … )` (whose direct patterns are).
    #[derive(PartialEq)]
    enum Open {
        Node,
        Group,
    }
    let mut roots = Vec::new();
    let mut open: Vec<Open> = Vec::new();
    let mut chars = source.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        let at_root = open.iter().all(|o| *o == Open::Group);
        match c {
            ';' => while chars.next_if(|&(_, c)| c != '\n').is_some() {},
            '"' => {
                if at_root {
                    return None;
                }
                let mut escaped = false;
                for (_, c) in chars.by_ref() {
                    match c {
                        '\\' if !escaped => escaped = true,
                        '"' if !escaped => break,
                        _ => escaped = false,
                    }
                }
            }
            '[' => open.push(if at_root { Open::Group } else { Open::Node }),
            '(' => {
                if !at_root {
                    open.push(Open::Node);
                    continue;
                }
                let rest = source[at + 1..].trim_start();
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '.')
                    .collect();
                if rest.starts_with(['(', '[']) {
                    open.push(Open::Group);
                } else if rest.starts_with('#') {
                    open.push(Open::Node);
                } else if name.is_empty() || name == "_" {
                    return None;
                } else {
                    roots.push(name);
                    open.push(Open::Node);
                }
            }
            ')' | ']' => {
                open.pop()?;
            }
            _ => {}
        }
    }
    (open.is_empty() && !roots.is_empty()).then_some(roots)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roots_are_the_top_level_kinds_alternatives_and_groupings() {
        let ts = pattern_roots(
            "; c\n[(a) (b)] @s\n((c (d)) @t (#eq? @t \"x\"))\n(e\n  x: [(f) (g)]) @p",
        )
        .unwrap();
        assert_eq!(ts, ["a", "b", "c", "e"]);
        assert_eq!(
            pattern_roots("; c\n(a (b) @x) @y\n(c name: \"(\" ) @z").unwrap(),
            ["a", "c"]
        );
    }

    #[test]
    fn gives_up_on_what_it_does_not_understand() {
        assert_eq!(pattern_roots("(_) @x"), None);
        assert_eq!(pattern_roots("(_ (a)) @x"), None);
        assert_eq!(pattern_roots("\"fn\" @k"), None);
        assert_eq!(pattern_roots("((a) @x"), None);
    }
}
