//! The indentation-aware block read (Codex's `read_file` `mode: "indentation"`): which lines
//! of a file make up the block around an anchor line, with parent levels, sibling blocks and the
//! comments / attributes directly above. It works on indentation alone in every language; where
//! a grammar exists, the syntax tree makes the block ends exact (a Python body holding a
//! less-indented multi-line string, a closing brace at an odd indentation, a signature spread
//! over several lines).
//!
//! This module only selects lines; each surface formats them itself.

use tree_sitter::{Node, Tree};

use crate::error::{ToolError, ToolResult};

/// Columns a tab counts for when measuring indentation.
pub const TAB_WIDTH: usize = 4;

/// What to select (the read_file arguments of indentation mode, resolved).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    /// 1-based line the block is built around.
    pub anchor_line: usize,
    /// Parent blocks to add: 0 = the anchor's block only, 1 = also its parent's header and
    /// closing line, and so on.
    pub max_levels: usize,
    /// Add the other blocks sharing the outermost selected block's parent.
    pub include_siblings: bool,
    /// Add the comments, doc comments, decorators and attributes directly above each block.
    pub include_header: bool,
    /// Most lines returned (the ones nearest the anchor are kept).
    pub max_lines: usize,
}

/// The selected lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selection {
    /// 0-based line indices, ascending.
    pub lines: Vec<usize>,
    /// 0-based anchor line.
    pub anchor: usize,
    /// Lines the block had before `max_lines` cut it.
    pub total: usize,
}

struct Doc<'a> {
    lines: &'a [&'a str],
    /// Byte offset of each line's start in the text the tree was parsed from.
    starts: Vec<usize>,
    tree: Option<&'a Tree>,
}

impl Doc<'_> {
    fn blank(&self, i: usize) -> bool {
        self.lines[i].trim().is_empty()
    }

    fn indent(&self, i: usize) -> usize {
        self.lines[i]
            .chars()
            .take_while(|c| *c == ' ' || *c == '\t')
            .map(|c| if c == '\t' { TAB_WIDTH } else { 1 })
            .sum()
    }

    fn next_nonblank(&self, from: usize) -> Option<usize> {
        (from..self.lines.len()).find(|&i| !self.blank(i))
    }

    /// Whether line `i` opens a block: the next non-blank line is indented deeper.
    fn opens(&self, i: usize) -> bool {
        self.next_nonblank(i + 1)
            .is_some_and(|j| self.indent(j) > self.indent(i))
    }

    /// The nearest line above `i` indented less than it.
    fn enclosing(&self, i: usize) -> Option<usize> {
        let indent = self.indent(i);
        (0..i)
            .rev()
            .find(|&k| !self.blank(k) && self.indent(k) < indent)
    }

    fn trimmed(&self, i: usize) -> &str {
        self.lines[i].trim()
    }

    /// A line that continues a construct begun above at the same indentation (`} else {`,
    /// `) -> T {`, `except E:`).
    fn continues(&self, i: usize) -> bool {
        let t = self.trimmed(i);
        t.starts_with([')', ']', '}'])
            || [
                "else", "elif", "elsif", "except", "finally", "catch", "rescue", "ensure",
            ]
            .iter()
            .any(|kw| {
                t.strip_prefix(kw).is_some_and(|rest| {
                    !rest.starts_with(|c: char| c.is_alphanumeric() || c == '_')
                })
            })
    }

    /// The outermost node beginning at the first non-blank byte of line `i` (not the root).
    fn node_at(&self, i: usize) -> Option<Node<'_>> {
        let tree = self.tree?;
        let offset = self.starts[i] + (self.lines[i].len() - self.lines[i].trim_start().len());
        let mut node = tree.root_node().descendant_for_byte_range(offset, offset)?;
        while let Some(parent) = node.parent() {
            if parent.parent().is_none() || parent.start_byte() != node.start_byte() {
                break;
            }
            node = parent;
        }
        (node.parent().is_some()).then_some(node)
    }

    /// The last line of a node (a node ending at column 0 ends on the line before).
    fn end_line(node: Node) -> usize {
        let end = node.end_position();
        if end.column == 0 && end.row > node.start_position().row {
            end.row - 1
        } else {
            end.row
        }
    }

    /// Moves a continuation line (`} else {`) up to the line that began its construct.
    fn block_start(&self, h: usize) -> usize {
        if !self.continues(h) {
            return h;
        }
        let indent = self.indent(h);
        if self.tree.is_some() {
            // The outermost ancestor of the line's first node that starts above it, at the same
            // indentation.
            if let Some(mut node) = self.node_at(h) {
                let mut best = h;
                while let Some(parent) = node.parent() {
                    if parent.parent().is_none() {
                        break;
                    }
                    let row = parent.start_position().row;
                    if row < h && self.indent(row) == indent {
                        best = best.min(row);
                    }
                    node = parent;
                }
                if best < h {
                    return best;
                }
            }
        }
        (0..h)
            .rev()
            .find(|&k| !self.blank(k) && self.indent(k) <= indent && !self.continues(k))
            .filter(|&k| self.indent(k) == indent)
            .unwrap_or(h)
    }

    /// The last line of the block whose header is line `h`.
    fn block_end(&self, h: usize) -> usize {
        let indent = self.indent(h);
        let mut end = h;
        let mut j = h + 1;
        while j < self.lines.len() {
            if !self.blank(j) {
                if self.indent(j) > indent {
                    end = j;
                } else {
                    // A closing line (`}`, `end`, `</div>`, `fi`) at the header's indentation
                    // belongs to the block.
                    if self.indent(j) == indent && j > h + 1 && self.closes(j) {
                        end = j;
                    }
                    break;
                }
            }
            j += 1;
        }
        if let Some(node) = self.node_at(h) {
            end = end.max(Self::end_line(node));
        }
        end.min(self.lines.len() - 1)
    }

    fn closes(&self, i: usize) -> bool {
        let t = self.trimmed(i);
        t.starts_with(['}', ')', ']'])
            || t.starts_with("</")
            || [
                "end", "fi", "done", "esac", "endif", "endfor", "endwhile", "until",
            ]
            .iter()
            .any(|kw| {
                t.strip_prefix(kw).is_some_and(|rest| {
                    !rest.starts_with(|c: char| c.is_alphanumeric() || c == '_')
                })
            })
    }

    /// Whether a line is a comment, doc comment, decorator or attribute.
    fn is_header_line(&self, i: usize) -> bool {
        let t = self.trimmed(i);
        ["#", "//", "--", "/*", "*", "'''", "\"\"\"", "@", ";"]
            .iter()
            .any(|p| t.starts_with(p))
            || (t.starts_with('[') && t.ends_with(']'))
    }

    /// The comment / attribute lines directly above line `s` (no blank line between).
    fn header_above(&self, s: usize) -> usize {
        let mut first = s;
        while first > 0 && !self.blank(first - 1) && self.is_header_line(first - 1) {
            first -= 1;
        }
        first
    }
}

/// Selects the block around `opts.anchor_line` in `lines` (the file split into lines without
/// terminators; `text` is what `tree` was parsed from, when there is a tree).
pub fn select(
    lines: &[&str],
    text: &str,
    tree: Option<&Tree>,
    opts: Options,
) -> ToolResult<Selection> {
    let total_lines = lines.len();
    if opts.anchor_line == 0 {
        return Err(ToolError::invalid_input(
            "anchor_line must be a 1-based line number (1 or more)",
        )
        .with("field", "anchor_line"));
    }
    if opts.anchor_line > total_lines {
        return Err(ToolError::invalid_input(format!(
            "anchor_line {} is past the end of the file, which has {total_lines} line(s)",
            opts.anchor_line
        ))
        .with("field", "anchor_line")
        .with("line_count", total_lines));
    }
    // Where each line starts in `text` (the lines are `text` split at \r\n, \n or \r). If they
    // turn out not to be, the tree is not used.
    let mut starts = Vec::with_capacity(total_lines);
    let mut offset = 0;
    let mut aligned = true;
    for line in lines {
        starts.push(offset);
        aligned &= text
            .get(offset..)
            .is_some_and(|rest| rest.starts_with(line));
        offset += line.len();
        let rest = text.get(offset..).unwrap_or("");
        offset += if rest.starts_with("\r\n") {
            2
        } else {
            usize::from(rest.starts_with(['\n', '\r']))
        };
    }
    let tree = tree.filter(|_| aligned);
    let doc = Doc {
        lines,
        starts,
        tree,
    };
    let anchor = opts.anchor_line - 1;
    // A blank anchor stands for the next non-blank line (or the last one above).
    let at = doc
        .next_nonblank(anchor)
        .or_else(|| (0..anchor).rev().find(|&i| !doc.blank(i)));
    let Some(at) = at else {
        return Ok(Selection {
            lines: vec![anchor],
            anchor,
            total: 1,
        });
    };

    // Level 0: the block the anchor opens, or else the block enclosing it.
    let header0 = if doc.opens(at) {
        Some(at)
    } else {
        doc.enclosing(at)
    };
    let mut selected = vec![false; total_lines];
    let mark = |from: usize, to: usize, selected: &mut Vec<bool>| {
        for s in selected.iter_mut().take(to + 1).skip(from) {
            *s = true;
        }
    };
    let (mut start, end) = match header0 {
        Some(h) => {
            let s = doc.block_start(h);
            (s, doc.block_end(h))
        }
        None => (at, doc.node_at(at).map_or(at, |n| Doc::end_line(n).max(at))),
    };
    mark(start, end, &mut selected);
    if opts.include_header {
        mark(doc.header_above(start), start, &mut selected);
    }

    // Parent levels: each adds its header lines and its closing line.
    let mut levels = 0;
    while levels < opts.max_levels {
        let Some(h) = doc.enclosing(start) else {
            break;
        };
        let s = doc.block_start(h);
        let e = doc.block_end(h);
        mark(s, h, &mut selected);
        if e > h && doc.indent(e) == doc.indent(h) && doc.closes(e) {
            mark(e, e, &mut selected);
        }
        if opts.include_header {
            mark(doc.header_above(s), s, &mut selected);
        }
        start = s;
        levels += 1;
    }

    // Siblings: the whole body of the outermost selected block's parent (the file at the top).
    if opts.include_siblings {
        let (from, to) = match doc.enclosing(start) {
            Some(h) => {
                let e = doc.block_end(h);
                let closer = e > h && doc.indent(e) == doc.indent(h) && doc.closes(e);
                (h + 1, if closer { e - 1 } else { e })
            }
            None => (0, total_lines - 1),
        };
        if from <= to {
            mark(from, to, &mut selected);
        }
    }

    let mut chosen: Vec<usize> = (0..total_lines).filter(|&i| selected[i]).collect();
    // Blank lines at either end carry nothing.
    while chosen.len() > 1 && doc.blank(*chosen.last().unwrap()) {
        chosen.pop();
    }
    while chosen.len() > 1 && doc.blank(chosen[0]) {
        chosen.remove(0);
    }
    let total = chosen.len();
    let max = opts.max_lines.max(1);
    if chosen.len() > max {
        // Keep the window of `max` selected lines centred on the anchor.
        let pos = chosen.partition_point(|&i| i < anchor);
        let from = pos.saturating_sub(max / 2).min(chosen.len() - max);
        chosen = chosen[from..from + max].to_vec();
    }
    Ok(Selection {
        lines: chosen,
        anchor,
        total,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::code::lang::by_name;
    use crate::code::parse::{parse, TOOL_BUDGET};

    fn opts(anchor_line: usize) -> Options {
        Options {
            anchor_line,
            max_levels: 0,
            include_siblings: false,
            include_header: true,
            max_lines: 2000,
        }
    }

    /// 1-based selected line numbers, with and without the grammar.
    fn pick(lang: Option<&str>, text: &str, o: Options) -> Vec<usize> {
        let lines: Vec<&str> = text
            .strip_suffix('\n')
            .unwrap_or(text)
            .split('\n')
            .collect();
        let tree = lang.map(|l| parse(by_name(l).unwrap(), text, TOOL_BUDGET, &|| false).unwrap());
        select(&lines, text, tree.as_ref(), o)
            .unwrap()
            .lines
            .into_iter()
            .map(|i| i + 1)
            .collect()
    }

    const PY: &str = "import os\n\nclass A:\n    \"\"\"Doc.\"\"\"\n\n    # helper\n    @staticmethod\n    def f():\n        x = 1\n        if x:\n            return '''\ntext\n'''\n        return x\n\n    def g(self):\n        pass\n";

    #[test]
    fn anchor_block_with_header_comments() {
        // Anchor inside f's body: f with its decorator and comment. Indentation alone stops at
        // the unindented string lines; the tree carries the block to its end.
        assert_eq!(pick(None, PY, opts(9)), (6..=11).collect::<Vec<_>>());
        assert_eq!(
            pick(Some("python"), PY, opts(9)),
            (6..=14).collect::<Vec<_>>()
        );
        // Without header lines.
        let o = Options {
            include_header: false,
            ..opts(9)
        };
        assert_eq!(pick(Some("python"), PY, o), (8..=14).collect::<Vec<_>>());
    }

    #[test]
    fn grammar_makes_the_end_exact() {
        // Anchor on the `if`: indentation alone stops before the unindented string lines; the
        // tree knows the if statement ends on line 13.
        assert_eq!(pick(None, PY, opts(10)), vec![10, 11]);
        assert_eq!(pick(Some("python"), PY, opts(10)), vec![10, 11, 12, 13]);
    }

    #[test]
    fn parent_levels_add_header_and_closer() {
        let o = Options {
            max_levels: 1,
            ..opts(9)
        };
        let mut want = vec![3];
        want.extend(6..=14);
        assert_eq!(pick(Some("python"), PY, o), want);
        let rs = "impl A {\n    fn f(\n        a: u8,\n    ) -> u8 {\n        a\n    }\n\n    fn g() {}\n}\n";
        // Anchor in f's body: the multi-line signature is found, the impl adds its two ends.
        let o = Options {
            max_levels: 1,
            ..opts(5)
        };
        assert_eq!(pick(Some("rust"), rs, o), vec![1, 2, 3, 4, 5, 6, 9]);
        assert_eq!(pick(None, rs, o), vec![1, 2, 3, 4, 5, 6, 9]);
    }

    #[test]
    fn siblings_and_cap() {
        let o = Options {
            include_siblings: true,
            ..opts(9)
        };
        assert_eq!(pick(Some("python"), PY, o), (4..=17).collect::<Vec<_>>());
        let o = Options {
            max_lines: 3,
            ..opts(9)
        };
        let lines: Vec<&str> = PY.split('\n').collect();
        let s = select(&lines, PY, None, o).unwrap();
        assert_eq!(s.total, 6);
        assert_eq!(s.lines, vec![7, 8, 9]);
    }

    #[test]
    fn anchor_checks() {
        let lines = ["a", "b"];
        assert!(select(&lines, "a\nb", None, opts(0)).is_err());
        let e = select(&lines, "a\nb", None, opts(3)).unwrap_err();
        assert_eq!(e.fields["line_count"], 2);
        assert_eq!(pick(None, "a\nb\n", opts(2)), vec![2]);
    }
}
