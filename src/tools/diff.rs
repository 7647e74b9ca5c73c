//! `diff`: a unified diff of two workspace text files ([`crate::unified_diff`]), on their
//! LF-normalized, BOM-stripped text.

use schemars::JsonSchema;
use serde::Deserialize;

use super::Tool;
use crate::call::Ctx;
use crate::config::Config;
use crate::error::ToolResult;
use crate::output::Output;
use crate::text::{self, normalize_newlines};
use crate::{paths, unified_diff};

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Args {
    /// The old file: relative to the workspace root, or absolute.
    pub from: String,
    /// The new file: relative to the workspace root, or absolute.
    pub to: String,
}

pub struct Diff;

impl Tool for Diff {
    const NAME: &'static str = "diff";
    const DESCRIPTION: &'static str = "Compare two text files and show a unified diff (3 lines of context, as `diff -u` / git diff), or `(no differences)`. Line-ending style and a byte-order mark are ignored. Use it to compare a file with a backup or a variant; it does not compare directories.";
    const MUTATING: bool = false;
    const TITLE: &'static str = "Compare two files";
    const SINCE_V05: bool = true;
    type Args = Args;

    fn run(args: Args, ctx: &Ctx) -> ToolResult<Output> {
        let config: &Config = ctx;
        let from = paths::resolve(config, &args.from)?;
        let a = text::read_text(&from, config)?;
        let to = paths::resolve(config, &args.to)?;
        let b = text::read_text(&to, config)?;
        let (a, b) = (normalize_newlines(&a.text), normalize_newlines(&b.text));
        if a == b {
            return Ok("(no differences)".into());
        }
        Ok(unified_diff::two_files_patch(&from.display, &to.display, &a, &b, 3).into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;
    use crate::testutil::config_at;
    use std::fs;

    #[test]
    fn diffs_normalized_text() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::write(root.join("a"), "x\r\ny\r\n").unwrap();
        fs::write(root.join("b"), "\u{FEFF}x\ny\n").unwrap();
        fs::write(root.join("c"), "x\nz\n").unwrap();
        let c = config_at(root);
        let run = |f: &str, t: &str| {
            crate::testutil::run_text::<Diff>(
                Args {
                    from: f.into(),
                    to: t.into(),
                },
                &c,
            )
        };
        assert_eq!(run("a", "b").unwrap(), "(no differences)");
        assert_eq!(
            run("a", "c").unwrap(),
            "===================================================================\n--- a\n+++ c\n@@ -1,2 +1,2 @@\n x\n-y\n+z\n"
        );
        assert_eq!(run("nope", "../x").unwrap_err().code, ErrorCode::NotFound);
        assert_eq!(run("a", "../x").unwrap_err().code, ErrorCode::PathEscape);
    }
}
