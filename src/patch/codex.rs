//! The `*** Begin Patch` format.
//!
//! Grammar (one item per line; markers may carry trailing whitespace, and `*** Begin Patch`,
//! `*** End Patch` and file headers leading whitespace too):
//!
//! ```text
//! patch        := blank* "*** Begin Patch" block* "*** End Patch" blank*
//! block        := add | delete | update | blank
//! add          := "*** Add File: " path  ("+" text | "")*
//! delete       := "*** Delete File: " path
//! update       := "*** Update File: " path  ["*** Move to: " path]  chunk*
//! chunk        := anchor* line+ ["*** End of File"]
//! anchor       := "@@" [" " text]             -- a line to find before the chunk's lines
//! line         := " " text | "-" text | "+" text | ""
//! ```
//!
//! - The first chunk of an update may omit its `@@` line.
//! - A bare `@@` starts a chunk without an anchor; several `@@ text` lines in a row are
//!   nested anchors, found in order (`@@ class A` then `@@ def f`). An `@@ -12,7 +12,8 @@`
//!   header (unified-diff style) is taken as a position hint instead of an anchor.
//! - An empty line inside a chunk is an empty context line; empty lines at the end of a chunk
//!   (before the next header) are dropped. Inside an added file, an empty line is an empty
//!   added line.
//! - `*** End of File` says the chunk's lines end the file.
//! - An update with neither chunks nor `*** Move to` is refused: it would change nothing.

use super::{syntax_error, unified, FileOp, FilePatch, Hunk, HunkLine};
use crate::error::ToolResult;

pub const BEGIN: &str = "*** Begin Patch";
pub const END: &str = "*** End Patch";
const ADD: &str = "*** Add File:";
const DELETE: &str = "*** Delete File:";
const UPDATE: &str = "*** Update File:";
const MOVE: &str = "*** Move to:";
const END_OF_FILE: &str = "*** End of File";

/// Whether `line` is a file-level marker of the grammar (`*** Add File:`, `*** End Patch`, …;
/// not a chunk's `*** End of File`): what ends a block and starts the next. Only trailing
/// whitespace is ignored.
pub fn is_file_marker(line: &str) -> bool {
    let t = line.trim_end();
    t.starts_with("*** ") && t != END_OF_FILE
}

/// Parses the Begin-Patch format. `first_line` is the 1-based patch line of `lines[0]`.
pub fn parse(lines: &[&str], first_line: usize) -> ToolResult<Vec<FilePatch>> {
    let mut p = Parser {
        lines,
        first_line,
        i: 0,
        last: lines.iter().rposition(|l| !l.trim().is_empty()),
    };
    p.skip_blank();
    match p.peek() {
        Some(l) if l.trim() == BEGIN => p.i += 1,
        Some(l) => {
            return Err(syntax_error(
                p.lineno(),
                format!("expected '{BEGIN}' as the first line, found '{}'", clip(l)),
            ))
        }
        None => return Err(syntax_error(first_line, format!("expected '{BEGIN}'"))),
    }
    let mut files = Vec::new();
    loop {
        p.skip_blank();
        let Some(line) = p.peek() else {
            return Err(syntax_error(
                p.lineno(),
                format!("the patch ends without '{END}' (was it cut off?); end it with '{END}'"),
            ));
        };
        let trimmed = line.trim();
        let start = p.lineno();
        if trimmed == END {
            p.i += 1;
            p.skip_blank();
            if let Some(extra) = p.peek() {
                return Err(syntax_error(
                    p.lineno(),
                    format!("unexpected text after '{END}': '{}'", clip(extra)),
                ));
            }
            return Ok(files);
        }
        if let Some(path) = header_path(trimmed, ADD) {
            let path = p.path(path, ADD)?;
            p.i += 1;
            let lines = p.added_lines()?;
            files.push(FilePatch {
                line: start,
                op: FileOp::Add {
                    path,
                    lines,
                    no_eol: false,
                },
            });
        } else if let Some(path) = header_path(trimmed, DELETE) {
            let path = p.path(path, DELETE)?;
            p.i += 1;
            files.push(FilePatch {
                line: start,
                op: FileOp::Delete { path, expect: None },
            });
        } else if let Some(path) = header_path(trimmed, UPDATE) {
            let path = p.path(path, UPDATE)?;
            p.i += 1;
            let mut move_to = None;
            if let Some(to) = p.peek().and_then(|l| header_path(l.trim(), MOVE)) {
                move_to = Some(p.path(to, MOVE)?);
                p.i += 1;
            }
            let hunks = p.chunks()?;
            if hunks.is_empty() && move_to.is_none() {
                return Err(syntax_error(
                    start,
                    format!(
                        "'{UPDATE} {path}' has no hunks and no '{MOVE}': add the change as @@ \
                         hunks of ' ', '-' and '+' lines"
                    ),
                ));
            }
            files.push(FilePatch {
                line: start,
                op: FileOp::Update {
                    path,
                    move_to,
                    hunks,
                },
            });
        } else {
            return Err(syntax_error(
                start,
                format!(
                    "expected '{ADD} <path>', '{DELETE} <path>', '{UPDATE} <path>' or '{END}', \
                     found '{}'",
                    clip(line)
                ),
            ));
        }
    }
}

/// The path after a `*** X File:` marker, or `None` when the line is not that marker.
fn header_path<'a>(line: &'a str, marker: &str) -> Option<&'a str> {
    line.strip_prefix(marker).map(str::trim)
}

/// A line cut for an error message.
fn clip(line: &str) -> String {
    let mut s: String = line.chars().take(80).collect();
    if s.len() < line.len() {
        s.push('…');
    }
    s
}

struct Parser<'a> {
    lines: &'a [&'a str],
    first_line: usize,
    i: usize,
    /// The index of the last non-blank line.
    last: Option<usize>,
}

impl<'a> Parser<'a> {
    fn peek(&self) -> Option<&'a str> {
        self.lines.get(self.i).copied()
    }

    fn lineno(&self) -> usize {
        self.first_line + self.i
    }

    /// Whether `line`, the current one, is a file-level marker (`*** Add File:`, `*** End
    /// Patch`, …), which ends the current block. Only trailing whitespace is ignored — a line
    /// starting with a space is a context line — except that an indented `*** End Patch` as the
    /// patch's last line ends it (a context line `*** End Patch` elsewhere stays one).
    fn at_block_marker(&self, line: &str) -> bool {
        is_file_marker(line) || (line.trim() == END && self.last == Some(self.i))
    }

    fn skip_blank(&mut self) {
        while self.peek().is_some_and(|l| l.trim().is_empty()) {
            self.i += 1;
        }
    }

    fn path(&self, path: &str, marker: &str) -> ToolResult<String> {
        if path.is_empty() {
            return Err(syntax_error(
                self.lineno(),
                format!("'{marker}' needs a path after it"),
            ));
        }
        Ok(path.to_string())
    }

    /// The `+` lines of an added file (empty lines count as empty added lines, except at the
    /// end of the block).
    fn added_lines(&mut self) -> ToolResult<Vec<String>> {
        let mut out = Vec::new();
        let mut blanks = 0;
        while let Some(line) = self.peek() {
            if self.at_block_marker(line) {
                break;
            }
            if let Some(text) = line.strip_prefix('+') {
                out.extend(std::iter::repeat_n(String::new(), blanks));
                blanks = 0;
                out.push(text.to_string());
            } else if line.trim().is_empty() {
                blanks += 1;
            } else {
                return Err(syntax_error(
                    self.lineno(),
                    format!(
                        "every line of an added file starts with '+', found '{}'",
                        clip(line)
                    ),
                ));
            }
            self.i += 1;
        }
        Ok(out)
    }

    /// The chunks of an update block, up to the next block marker.
    fn chunks(&mut self) -> ToolResult<Vec<Hunk>> {
        let mut hunks: Vec<Hunk> = Vec::new();
        let mut current: Option<Hunk> = None;
        let mut blanks = 0usize;
        while let Some(line) = self.peek() {
            if self.at_block_marker(line) {
                break;
            }
            let lineno = self.lineno();
            self.i += 1;
            if line.trim_end() == END_OF_FILE {
                match current.as_mut() {
                    Some(h) if !h.lines.is_empty() => h.end_of_file = true,
                    _ => {
                        return Err(syntax_error(
                            lineno,
                            format!("'{END_OF_FILE}' must follow the lines of a hunk"),
                        ))
                    }
                }
                blanks = 0;
                hunks.extend(current.take());
                continue;
            }
            if let Some(rest) = line.strip_prefix("@@") {
                blanks = 0;
                let h = match current.take() {
                    // Consecutive anchors nest inside one chunk.
                    Some(h) if h.lines.is_empty() => h,
                    done => {
                        hunks.extend(done);
                        Hunk {
                            line: lineno,
                            ..Hunk::default()
                        }
                    }
                };
                current = Some(anchor(h, rest));
                continue;
            }
            let h = current.get_or_insert_with(|| Hunk {
                line: lineno,
                ..Hunk::default()
            });
            let item = if let Some(t) = line.strip_prefix(' ') {
                HunkLine::Context(t.to_string())
            } else if let Some(t) = line.strip_prefix('-') {
                HunkLine::Remove(t.to_string())
            } else if let Some(t) = line.strip_prefix('+') {
                HunkLine::Add(t.to_string())
            } else if line.trim().is_empty() {
                blanks += 1;
                continue;
            } else {
                return Err(syntax_error(
                    lineno,
                    format!(
                        "unexpected line in an update hunk: '{}'. Every hunk line starts with ' ' \
                         (context), '-' (removed) or '+' (added); a new hunk starts with '@@'",
                        clip(line)
                    ),
                ));
            };
            h.lines.extend(std::iter::repeat_n(
                HunkLine::Context(String::new()),
                blanks,
            ));
            blanks = 0;
            h.lines.push(item);
        }
        hunks.extend(current);
        if let Some(h) = hunks.iter().find(|h| h.lines.is_empty()) {
            return Err(syntax_error(
                h.line,
                "this '@@' hunk has no lines: give it ' ', '-' or '+' lines",
            ));
        }
        Ok(hunks)
    }
}

/// Adds an `@@` line's text to a chunk: a unified-style `-l,s +l,s @@` header becomes a
/// position hint, any other text an anchor.
fn anchor(mut h: Hunk, rest: &str) -> Hunk {
    let text = rest.trim();
    if let Some(header) = unified::parse_hunk_header(&format!("@@{rest}")) {
        h.old_start = Some(header.old_start);
    } else if !text.is_empty() {
        // `@@ @@` and similar empty decorations are not anchors.
        let text = text.trim_end_matches('@').trim();
        if !text.is_empty() {
            h.anchors
                .push(rest.strip_prefix(' ').unwrap_or(rest).to_string());
        }
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(s: &str) -> Vec<&str> {
        s.lines().collect()
    }

    fn ok(s: &str) -> Vec<FilePatch> {
        parse(&lines(s), 1).unwrap()
    }

    fn fail(s: &str) -> (usize, String) {
        let e = parse(&lines(s), 1).unwrap_err();
        (e.fields["line"].as_u64().unwrap() as usize, e.message)
    }

    #[test]
    fn add_delete_update_move() {
        let files = ok("*** Begin Patch\n\
             *** Add File: a.txt\n+one\n\n+three\n\n\
             *** Delete File: b.txt\n\
             *** Update File: c.txt\n*** Move to: d.txt\n@@ fn main\n ctx\n-old\n+new\n\
             *** End Patch\n");
        assert_eq!(files.len(), 3);
        assert_eq!(
            files[0].op,
            FileOp::Add {
                path: "a.txt".into(),
                lines: vec!["one".into(), "".into(), "three".into()],
                no_eol: false
            }
        );
        assert_eq!(files[1].line, 7);
        assert_eq!(
            files[1].op,
            FileOp::Delete {
                path: "b.txt".into(),
                expect: None
            }
        );
        let FileOp::Update {
            path,
            move_to,
            hunks,
        } = &files[2].op
        else {
            panic!("not an update")
        };
        assert_eq!(
            (path.as_str(), move_to.as_deref()),
            ("c.txt", Some("d.txt"))
        );
        assert_eq!(hunks[0].anchors, ["fn main"]);
        assert_eq!(
            hunks[0].lines,
            [
                HunkLine::Context("ctx".into()),
                HunkLine::Remove("old".into()),
                HunkLine::Add("new".into())
            ]
        );
        assert_eq!(hunks[0].line, 10);
    }

    #[test]
    fn first_chunk_may_omit_its_header_and_anchors_nest() {
        let files = ok("*** Begin Patch\n*** Update File: x\n-a\n+b\n@@ class A\n@@ def f\n-c\n+d\n@@\n-e\n*** End Patch");
        let FileOp::Update { hunks, .. } = &files[0].op else {
            panic!()
        };
        assert_eq!(hunks.len(), 3);
        assert!(hunks[0].anchors.is_empty());
        assert_eq!(hunks[1].anchors, ["class A", "def f"]);
        assert!(hunks[2].anchors.is_empty());
    }

    #[test]
    fn blank_lines_inside_are_context_and_trailing_ones_dropped() {
        let files = ok("*** Begin Patch\n*** Update File: x\n@@\n a\n\n-b\n\n\n*** End Patch\n\n");
        let FileOp::Update { hunks, .. } = &files[0].op else {
            panic!()
        };
        assert_eq!(
            hunks[0].lines,
            [
                HunkLine::Context("a".into()),
                HunkLine::Context("".into()),
                HunkLine::Remove("b".into())
            ]
        );
    }

    #[test]
    fn end_of_file_and_unified_style_header() {
        let files =
            ok("*** Begin Patch\n*** Update File: x\n@@ -12,3 +12,4 @@\n a\n+b\n*** End of File\n*** End Patch");
        let FileOp::Update { hunks, .. } = &files[0].op else {
            panic!()
        };
        assert!(hunks[0].end_of_file);
        assert_eq!(hunks[0].old_start, Some(12));
        assert!(hunks[0].anchors.is_empty());
    }

    #[test]
    fn end_patch_may_be_indented() {
        for end in [" *** End Patch", "\t*** End Patch  ", "   *** End Patch"] {
            let files = ok(&format!(
                "*** Begin Patch\n*** Update File: x\n@@\n a\n-b\n+c\n{end}\n"
            ));
            assert_eq!(files.len(), 1);
            let FileOp::Update { hunks, .. } = &files[0].op else {
                panic!("not an update")
            };
            assert_eq!(hunks[0].lines.len(), 3, "{end:?}");
            let files = ok(&format!("*** Begin Patch\n*** Add File: y\n+n\n{end}"));
            assert_eq!(
                files[0].op,
                FileOp::Add {
                    path: "y".into(),
                    lines: vec!["n".into()],
                    no_eol: false
                }
            );
        }
        // Before the last line, an indented marker is a context line of a file that holds it.
        let files = ok(
            "*** Begin Patch\n*** Update File: doc.md\n *** End Patch\n-old\n+new\n *** End Patch\n",
        );
        let FileOp::Update { hunks, .. } = &files[0].op else {
            panic!("not an update")
        };
        assert_eq!(
            hunks[0].lines,
            [
                HunkLine::Context("*** End Patch".into()),
                HunkLine::Remove("old".into()),
                HunkLine::Add("new".into())
            ]
        );
    }

    #[test]
    fn errors_carry_line_numbers() {
        let (line, msg) = fail("*** Begin Patch\n*** Update File: x\n@@\n a\nbogus\n*** End Patch");
        assert_eq!(line, 5);
        assert!(msg.contains("unexpected line"), "{msg}");
        let (line, msg) = fail("*** Begin Patch\n*** Add File: x\n+a\n");
        assert_eq!(line, 4);
        assert!(msg.contains("cut off"), "{msg}");
        let (line, msg) = fail("*** Begin Patch\n*** Update File: x\n*** End Patch");
        assert_eq!(line, 2);
        assert!(msg.contains("no hunks"), "{msg}");
        let (line, _) = fail("*** Begin Patch\n*** Frobnicate: x\n*** End Patch");
        assert_eq!(line, 2);
        let (line, _) = fail("*** Begin Patch\n*** Add File: x\n-a\n*** End Patch");
        assert_eq!(line, 3);
        let (line, _) = fail("*** Begin Patch\n*** Add File:\n*** End Patch");
        assert_eq!(line, 2);
        let (line, _) = fail("*** Begin Patch\n*** Update File: x\n@@ a\n*** End Patch");
        assert_eq!(line, 3);
        let (line, msg) = fail("*** Begin Patch\n*** End Patch\ntrailing");
        assert_eq!(line, 3);
        assert!(msg.contains("after"), "{msg}");
        let (line, _) = fail("junk\n*** Begin Patch\n*** End Patch");
        assert_eq!(line, 1);
    }
}
