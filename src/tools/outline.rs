//! `outline`: the symbol skeleton of a source file (classes, functions, methods, ...), each
//! with its 1-based line range, from the grammar's outline query.

use schemars::JsonSchema;
use serde::Deserialize;

use super::Tool;
use crate::call::Ctx;
use crate::code::{self, outline, syntax, Purpose};
use crate::error::ToolResult;
use crate::output::Output;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Args {
    /// Source file to outline: relative to the workspace root, or absolute.
    pub path: String,
}

pub struct Outline;

impl Tool for Outline {
    const NAME: &'static str = "outline";
    const DESCRIPTION: &'static str = "Show the symbol skeleton of a source file: its classes, interfaces, functions, methods and similar declarations, nested by scope, each with its line range (start-end). Use it to find your way around a large file before reading it: then read_file just the lines you need (offset/limit), or use read_file's indentation mode on a line. Supports TypeScript, TSX, JavaScript, Python, Go, Rust, Java, C#, C/C++, Ruby, PHP, Kotlin, Swift, Scala and Lua. If the file has syntax errors the outline may be incomplete and says so; check_syntax lists them.";
    const MUTATING: bool = false;
    const SINCE_V05: bool = true;
    const NEEDS_TREE_SITTER: bool = true;
    const TITLE: &'static str = "Outline a source file";
    type Args = Args;

    fn run(args: Args, ctx: &Ctx) -> ToolResult<Output> {
        let cancelled = || ctx.cancel.is_cancelled();
        let parsed = code::prepare(ctx, &args.path, Purpose::Outline, &cancelled)?;
        let symbols = outline::symbols(parsed.grammar, &parsed.tree, &parsed.text);
        let (issues, truncated) = syntax::issues(&parsed.tree, &parsed.text);
        Ok(outline::render(
            &parsed.path.display,
            parsed.grammar.name,
            &parsed.text,
            &symbols,
            issues.len(),
            truncated,
        )
        .into())
    }
}
