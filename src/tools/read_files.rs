//! `read_files`: several text files in one call, each rendered like `read_file` under a
//! `==> <path> <==` header, sharing one output budget. A file that cannot be read becomes one
//! inline error line; the batch itself never fails. Files are read in parallel on the walk
//! pool (decoding and splitting lines is compute; the wait pool stays free for commits).

use schemars::JsonSchema;
use serde::Deserialize;

use super::read_file::{push_row, MAX_LINE_CHARS, ROW_LOOKS_AT};
use super::Tool;
use crate::bound::floor_char_boundary;
use crate::call::Ctx;
use crate::config::Config;
use crate::error::ToolResult;
use crate::output::Output;
use crate::paths;
use crate::text::{self, split_lines};

/// Most paths one call accepts.
pub const MAX_PATHS: usize = 64;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Args {
    /// The files to read (1 to 64), each relative to the workspace root or absolute.
    #[schemars(length(min = 1, max = 64))]
    pub paths: Vec<String>,
}

pub struct ReadFiles;

impl Tool for ReadFiles {
    const NAME: &'static str = "read_files";
    const DESCRIPTION: &'static str = "Read several text files at once (up to 64): each is shown like read_file (numbered lines) under a `==> path <==` header, sections separated by a blank line. A file that cannot be read gets a one-line error in its place instead of failing the call. All files share one output budget: a long file is cut with a note, and files that no longer fit are listed as not shown. Use read_file to page through one long file.";
    const MUTATING: bool = false;
    const TITLE: &'static str = "Read several files";
    const BOUNDED: bool = true;
    const SINCE_V05: bool = true;
    type Args = Args;

    fn run(args: Args, ctx: &Ctx) -> ToolResult<Output> {
        let config: &Config = ctx;
        if args.paths.len() > MAX_PATHS {
            // The schema says so too; this holds whatever validator runs first.
            return Err(crate::error::ToolError::invalid_input(format!(
                "data/paths must NOT have more than {MAX_PATHS} items"
            )));
        }
        let budget = config.max_output_bytes as usize;
        let loaded = load_all(config, &args.paths, budget);
        // Only ToolErrors are inlined at the root; a file that stats but cannot be opened is
        // not one there, so the whole batch is `internal` (CONTRACT-v0.5-wording §4).
        if config.contract_exact() {
            let internal = loaded.iter().find_map(|r| {
                r.as_ref()
                    .err()
                    .filter(|e| e.code == crate::error::ErrorCode::Internal)
            });
            if let Some(e) = internal {
                return Err(e.clone());
            }
        }
        Ok(render(&args.paths, loaded, budget as i64).into())
    }
}

/// One file's lines (only as many as could ever show in `budget` bytes, at least one, each
/// only as long as its row can use) and its line count.
#[derive(Debug)]
pub struct Rows {
    pub lines: Vec<String>,
    pub total: usize,
}

/// Reads every path, several at once on the walk pool; results come back in input order.
fn load_all(config: &Config, inputs: &[String], budget: usize) -> Vec<ToolResult<Rows>> {
    crate::walk::par_map(inputs.iter().collect(), |input| {
        load_one(config, input, budget)
    })
}

fn load_one(config: &Config, input: &str, budget: usize) -> ToolResult<Rows> {
    let (_, decoded) =
        paths::resolve_for_read(config, input, |path| text::read_text(path, config))?;
    let mut lines = Vec::new();
    let mut kept = 0usize;
    let mut total = 0usize;
    for (i, (line, _)) in split_lines(&decoded.text).enumerate() {
        total = i + 1;
        // A row that shows after the first is never cut to the budget, so it costs at least
        // its prefix, newline and min(bytes, 2000) (a longer line keeps 2000 characters):
        // once those lower bounds pass the budget, no later line can show. A row never looks
        // past its line's first `ROW_LOOKS_AT` bytes.
        if lines.is_empty() || kept <= budget {
            let line = &line[..floor_char_boundary(line, ROW_LOOKS_AT)];
            kept += line.len().min(MAX_LINE_CHARS) + 8;
            lines.push(line.to_string());
        }
    }
    Ok(Rows { lines, total })
}

/// Lays the sections out under the shared budget (see the contract's rules).
pub fn render(inputs: &[String], loaded: Vec<ToolResult<Rows>>, budget: i64) -> String {
    let mut sections: Vec<String> = Vec::new();
    let mut remaining = budget;
    let count = loaded.len();
    for (i, (input, item)) in inputs.iter().zip(loaded).enumerate() {
        if remaining <= 0 {
            sections.push(format!(
                "[... {} more file(s) not shown; call read_files with fewer paths ...]",
                count - i
            ));
            break;
        }
        let section = match item {
            Err(e) => format!(
                "==> {input} \u{2014} {}: {} <==",
                e.code.as_str(),
                e.message
            ),
            Ok(file) => {
                let header = format!("==> {input} <==");
                let mut s = header.clone();
                s.push('\n');
                if file.total == 0 {
                    s.push_str("(empty file)");
                } else {
                    // Rows as read_file renders them, under (remaining − header − 1): each
                    // costs its bytes + 1, the first always shows, and a line longer than the
                    // allowance is cut to it with the line-truncated marker.
                    let allowance =
                        usize::try_from(remaining - header.len() as i64 - 1).unwrap_or(0);
                    let mut rows = String::new();
                    let mut shown = 0usize;
                    let cut = Some(allowance);
                    for (i, line) in file.lines.iter().enumerate() {
                        if !push_row(&mut rows, i + 1, line.as_bytes(), 1, allowance, cut) {
                            break;
                        }
                        shown += 1;
                    }
                    s.push_str(&rows);
                    if shown < file.total {
                        s.push_str(&format!(
                            "\n[... {shown} of {} lines shown; use read_file for the rest ...]",
                            file.total
                        ));
                    }
                }
                s
            }
        };
        remaining -= section.len() as i64 + 2;
        sections.push(section);
    }
    sections.join("\n\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::config_at;
    use crate::tools::read_file::LINE_CUT_MARKER;
    use std::fs;
    use std::path::Path;

    fn run(root: &Path, paths: &[&str], max: u64) -> String {
        let c = Config {
            max_output_bytes: max,
            ..config_at(root)
        };
        crate::testutil::run_text::<ReadFiles>(
            Args {
                paths: paths.iter().map(|s| s.to_string()).collect(),
            },
            &c,
        )
        .unwrap()
    }

    #[test]
    fn sections_errors_and_empty() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::write(root.join("a.txt"), "one\ntwo\n").unwrap();
        fs::write(root.join("e.txt"), "").unwrap();
        fs::write(root.join("b.bin"), b"a\0b").unwrap();
        let out = run(
            root,
            &["./a.txt", "e.txt", "nope", "b.bin", "../x"],
            100_000,
        );
        let parts: Vec<&str> = out.split("\n\n").collect();
        assert_eq!(parts[0], "==> ./a.txt <==\n     1\tone\n     2\ttwo");
        assert_eq!(parts[1], "==> e.txt <==\n(empty file)");
        assert!(
            parts[2].starts_with("==> nope \u{2014} not_found: "),
            "{}",
            parts[2]
        );
        assert!(
            parts[3].starts_with("==> b.bin \u{2014} is_binary: "),
            "{}",
            parts[3]
        );
        assert!(
            parts[4].starts_with("==> ../x \u{2014} path_escape: "),
            "{}",
            parts[4]
        );
    }

    #[test]
    fn shared_budget_cuts_and_drops() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let body: String = (0..200).map(|i| format!("line {i}\n")).collect();
        for n in ["a", "b", "c"] {
            fs::write(root.join(n), &body).unwrap();
        }
        let out = run(root, &["a", "b", "c"], 1024);
        assert!(out.starts_with("==> a <==\n     1\tline 0\n"));
        assert!(
            out.contains("lines shown; use read_file for the rest ...]"),
            "{out}"
        );
        assert!(
            out.ends_with("more file(s) not shown; call read_files with fewer paths ...]"),
            "{out}"
        );
        // The first section's rows fit in (budget - header - 1).
        let first = out.split("\n[...").next().unwrap();
        assert!(first.len() <= 1024, "{}", first.len());
        // At least one row of a file is always shown.
        fs::write(root.join("long"), "x".repeat(3000)).unwrap();
        let out = run(root, &["long"], 1024);
        assert!(out.contains(LINE_CUT_MARKER));
    }

    /// CONTRACT-v0.5 §2 read_files: "rows rendered like read_file", in (remaining − header
    /// bytes − 1); wording §2: each row costs its bytes + 1, and a longer line is cut to the
    /// budget with the line-truncated marker.
    #[test]
    fn rows_cost_their_bytes_and_a_newline_and_long_lines_are_cut() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::write(root.join("a"), format!("{}\nab\nab\nab\n", "q".repeat(977))).unwrap();
        // Allowance 1024 − 9 − 1 = 1014: 985 + 10 + 10 fit, a fourth row (1015) does not.
        let out = run(root, &["a"], 1024);
        let q = "q".repeat(977);
        assert_eq!(
            out,
            format!("==> a <==\n     1\t{q}\n     2\tab\n     3\tab\n[... 3 of 4 lines shown; use read_file for the rest ...]")
        );
        // One line over the allowance (1024 − 12 − 1): cut to 1011 − 7 − 1 − 25 bytes, then
        // the marker.
        fs::write(root.join("long"), "y".repeat(1500)).unwrap();
        let out = run(root, &["long"], 1024);
        let y = "y".repeat(978);
        assert_eq!(out, format!("==> long <==\n     1\t{y}{LINE_CUT_MARKER}"));
    }

    /// Lines longer than 2000 characters show 2000 of them and the marker: the rows kept for
    /// rendering must be as many as can show, whatever the lines' full length.
    #[test]
    fn long_lines_fill_the_budget_as_their_cut_rows_do() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let line = "x".repeat(10_000);
        fs::write(root.join("a"), format!("{line}\n").repeat(30)).unwrap();
        // Allowance 50000 − 9 − 1 = 49990; each row is 7 + 2000 + 25 bytes and costs 2033.
        let out = run(root, &["a"], 50_000);
        assert!(
            out.ends_with("\n[... 24 of 30 lines shown; use read_file for the rest ...]"),
            "{}",
            &out[out.len() - 100..]
        );
    }

    #[test]
    fn many_files_keep_their_order() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let names: Vec<String> = (0..40).map(|i| format!("f{i}")).collect();
        for n in &names {
            fs::write(root.join(n), n).unwrap();
        }
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let out = run(root, &refs, 100_000);
        for (i, section) in out.split("\n\n").enumerate() {
            assert_eq!(section, format!("==> f{i} <==\n     1\tf{i}"));
        }
    }
}
