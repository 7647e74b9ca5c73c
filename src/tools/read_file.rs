//! `read_file`: a text file with line numbers, paged by `offset` / `limit`, with tail reads.

use schemars::JsonSchema;
use serde::Deserialize;

use super::Tool;
use crate::call::Ctx;
use crate::code::{self, indent};
use crate::config::Config;
use crate::error::{ToolError, ToolResult};
use crate::output::Output;
use crate::paths;
use crate::text::{self, cut_chars, split_lines};

/// Lines returned when `limit` is not given.
pub const DEFAULT_LIMIT: usize = 2000;
/// Characters kept of one line; the rest is cut with [`LINE_CUT_MARKER`].
pub const MAX_LINE_CHARS: usize = 2000;
pub const LINE_CUT_MARKER: &str = " [... line truncated ...]";

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// File to read: relative to the workspace root, or absolute.
    pub path: String,
    /// 1-based line to start at. A negative value counts from the end (-20 reads the last 20
    /// lines). 0 is invalid.
    pub offset: Option<i64>,
    /// Maximum number of lines to return (default 2000).
    #[schemars(range(min = 1))]
    pub limit: Option<i64>,
    /// "slice" (default): lines from offset. "indentation": the code block around anchor_line,
    /// found by indentation (exact for languages with a grammar).
    pub mode: Option<Mode>,
    /// Indentation mode: the line to build the block around (default: offset, else 1).
    #[schemars(range(min = 1))]
    pub anchor_line: Option<i64>,
    /// Indentation mode: enclosing levels to add (their header and closing lines): 0 (default)
    /// = only the anchor's block, 1 = also its parent class or function, and so on.
    #[schemars(range(min = 0))]
    pub max_levels: Option<i64>,
    /// Indentation mode: also include the sibling blocks beside the outermost selected block
    /// (default false).
    pub include_siblings: Option<bool>,
    /// Indentation mode: include the comments, doc comments, decorators and attributes directly
    /// above each block (default true).
    pub include_header: Option<bool>,
    /// Indentation mode: most lines to return, those nearest the anchor kept (default: limit).
    #[schemars(range(min = 1))]
    pub max_lines: Option<i64>,
}

/// How read_file selects lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    Slice,
    Indentation,
}

/// The arguments only the newest contract's read_file has (hidden from the seed schema).
pub const INDENTATION_ARGS: &[&str] = &[
    "mode",
    "anchor_line",
    "max_levels",
    "include_siblings",
    "include_header",
    "max_lines",
];

pub struct ReadFile;

impl Tool for ReadFile {
    const NAME: &'static str = "read_file";
    const DESCRIPTION: &'static str = "Read a text file (UTF-8, or UTF-16 with a byte-order mark) and return its lines, each prefixed with its line number and a tab. Use this to look at a file before editing it; page through a long file with offset and limit (a footer says where to continue), or read the end with a negative offset (-50 = the last 50 lines). Lines longer than 2000 characters are cut. The line-number prefixes are not part of the file: never copy them into edit_file's old_string. To find which file holds something, use grep or glob instead; to see a directory, use list_dir.";
    const MUTATING: bool = false;
    const TITLE: &'static str = "Read file";
    const BOUNDED: bool = true;
    const SEED_HIDDEN_ARGS: &'static [&'static str] = INDENTATION_ARGS;
    type Args = Args;

    fn run(args: Args, ctx: &Ctx) -> ToolResult<Output> {
        let config: &Config = ctx;
        let path = paths::resolve(config, &args.path)?;
        let decoded = text::read_text(&path, config)?;
        let lines: Vec<&str> = split_lines(&decoded.text).map(|(line, _)| line).collect();
        if lines.is_empty() {
            return Ok(Output::text("(empty file)"));
        }
        let total = lines.len();
        // `0` (allowed by the newest contract's schema) means the default.
        let limit = match args.limit {
            None | Some(0) => DEFAULT_LIMIT,
            Some(l) => l as usize,
        };
        if args.mode == Some(Mode::Indentation) {
            let anchor_line = match (args.anchor_line, args.offset) {
                (Some(a), _) => a,
                (None, Some(o)) if o > 0 => o,
                _ => 1,
            };
            let opts = indent::Options {
                anchor_line: anchor_line.max(0) as usize,
                max_levels: args.max_levels.unwrap_or(0).max(0) as usize,
                include_siblings: args.include_siblings.unwrap_or(false),
                include_header: args.include_header.unwrap_or(true),
                max_lines: match args.max_lines {
                    None | Some(0) => limit,
                    Some(m) => m.max(1) as usize,
                },
            };
            let selection =
                code::indentation_block(config, &path.display, &decoded.text, &lines, opts)?;
            return Ok(render_block(&lines, &selection, config.max_output_bytes as usize).into());
        }
        let start = first_line(args.offset, total)?;
        Ok(render(&lines, start, limit, config.max_output_bytes as usize).into())
    }
}

/// The 0-based index of the first line to show.
fn first_line(offset: Option<i64>, total: usize) -> ToolResult<usize> {
    match offset.unwrap_or(1) {
        0 => Err(ToolError::invalid_input(
            "offset 0 is invalid: lines are numbered from 1 (use a negative offset to read from the end)",
        )
        .with("field", "offset")),
        n if n > 0 => {
            let n = n as u64;
            if n > total as u64 {
                return Err(ToolError::invalid_input(format!(
                    "offset {n} is past the end of the file, which has {total} line(s); use an offset from 1 to {total}, or a negative one to read the end"
                ))
                .with("field", "offset")
                .with("line_count", total));
            }
            Ok(n as usize - 1)
        }
        n => Ok(total.saturating_sub(n.unsigned_abs().min(total as u64) as usize)),
    }
}

/// One numbered row, as both modes print it.
fn row(number: usize, line: &str) -> String {
    let (kept, cut) = cut_chars(line, MAX_LINE_CHARS);
    format!(
        "{number:>6}\t{kept}{}",
        if cut { LINE_CUT_MARKER } else { "" }
    )
}

/// Indentation mode's rows: the selected lines, numbered, stopping before `max_bytes` (at least
/// one row), with a footer when the block was cut by max_lines or by the byte budget.
fn render_block(lines: &[&str], selection: &indent::Selection, max_bytes: usize) -> String {
    let footer_room = 128;
    let mut out = String::new();
    let mut shown = 0;
    for &i in &selection.lines {
        let row = row(i + 1, lines[i]);
        if shown > 0 && out.len() + 1 + row.len() + footer_room > max_bytes {
            break;
        }
        if shown > 0 {
            out.push('\n');
        }
        out.push_str(&row);
        shown += 1;
    }
    if shown < selection.total {
        out.push_str(&format!(
            "\n[... {shown} of {} block lines shown; raise max_lines, or read a range with offset and limit ...]",
            selection.total
        ));
    }
    out
}

/// Numbered rows from `start`, at most `limit`, stopping before `max_bytes` (but always at
/// least one row), with a continuation footer when lines remain.
fn render(lines: &[&str], start: usize, limit: usize, max_bytes: usize) -> String {
    let total = lines.len();
    // Room kept for the footer, so the page plus footer fits in the budget.
    let footer_room = 96;
    let mut out = String::new();
    let mut shown = 0;
    for (i, line) in lines.iter().enumerate().skip(start).take(limit) {
        let row = row(i + 1, line);
        let needed = out.len() + usize::from(shown > 0) + row.len() + footer_room;
        if shown > 0 && needed > max_bytes {
            break;
        }
        if shown > 0 {
            out.push('\n');
        }
        out.push_str(&row);
        shown += 1;
    }
    let next = start + shown;
    if next < total {
        out.push_str(&format!(
            "\n[... {shown} of {total} lines shown; continue with offset={} ...]",
            next + 1
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets() {
        assert_eq!(first_line(None, 5).unwrap(), 0);
        assert_eq!(first_line(Some(5), 5).unwrap(), 4);
        assert_eq!(first_line(Some(-2), 5).unwrap(), 3);
        assert_eq!(first_line(Some(-99), 5).unwrap(), 0);
        let e = first_line(Some(6), 5).unwrap_err();
        assert_eq!(e.fields["line_count"], 5);
        assert!(first_line(Some(0), 5).is_err());
    }

    #[test]
    fn rows_and_footer() {
        let lines = ["a", "b", "c"];
        assert_eq!(
            render(&lines, 0, 10, 10_000),
            "     1\ta\n     2\tb\n     3\tc"
        );
        assert_eq!(
            render(&lines, 0, 2, 10_000),
            "     1\ta\n     2\tb\n[... 2 of 3 lines shown; continue with offset=3 ...]"
        );
    }

    #[test]
    fn byte_cap_stops_rows_but_shows_one() {
        let long = "x".repeat(600);
        let lines = [long.as_str(), long.as_str(), long.as_str()];
        let out = render(&lines, 0, 10, 1024);
        assert!(out.len() <= 1024);
        assert!(out.ends_with("[... 1 of 3 lines shown; continue with offset=2 ...]"));
        let huge = "y".repeat(5000);
        let out = render(&[huge.as_str()], 0, 10, 1024);
        assert!(out.contains(LINE_CUT_MARKER));
    }
}
