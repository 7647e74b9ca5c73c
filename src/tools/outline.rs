//! `outline`: the symbol skeleton of a source file (classes, functions, methods, ...), each
//! with its 1-based line range, from the grammar's outline query.

use schemars::JsonSchema;
use serde::Deserialize;

use super::Tool;
use crate::code::{self, outline, syntax, Purpose};
use crate::config::Config;
use crate::error::ToolResult;

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
    type Args = Args;

    fn run(args: Args, config: &Config) -> ToolResult<String> {
        let never = || false;
        let parsed = code::prepare(config, &args.path, Purpose::Outline, &never)?;
        let symbols = outline::symbols(parsed.grammar, &parsed.tree, &parsed.text);
        let (issues, truncated) = syntax::issues(&parsed.tree, &parsed.text);
        Ok(outline::render(
            &parsed.path.display,
            parsed.grammar.name,
            &parsed.text,
            &symbols,
            issues.len(),
            truncated,
        ))
    }
}
