//! `check_syntax`: parse a file and report its syntax errors (ERROR and MISSING nodes) with
//! line, column and an excerpt, as one JSON text.

use schemars::JsonSchema;
use serde::Deserialize;

use super::Tool;
use crate::call::Ctx;
use crate::code::{self, syntax, Purpose};
use crate::error::ToolResult;
use crate::output::Output;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Args {
    /// File to check: relative to the workspace root, or absolute.
    pub path: String,
}

pub struct CheckSyntax;

impl Tool for CheckSyntax {
    const NAME: &'static str = "check_syntax";
    const DESCRIPTION: &'static str = "Parse a source file and report whether its syntax is valid, as JSON: {path, language, ok, errors: [{kind, line, column, near}], error_count, truncated}. kind is \"error\" (unparsable text; near is its line) or \"missing\" (an expected token that is absent, such as a closing brace; near names it). Lines and columns are 1-based; at most 50 errors are listed. Use it after editing to confirm a file still parses, or to locate the cause of a write's syntax warning. It checks syntax only, not types or names. Languages are chosen by extension (TypeScript, JavaScript, Python, Go, Rust, Java, C#, C/C++, Ruby, PHP, Bash, CSS, INI, PowerShell, JSON, YAML, TOML, HTML, Lua, Kotlin, Swift, Scala, Zig), or by the #! line of an extensionless script.";
    const MUTATING: bool = false;
    const SINCE_V05: bool = true;
    const NEEDS_TREE_SITTER: bool = true;
    const TITLE: &'static str = "Check a file's syntax";
    fn output_schema() -> Option<serde_json::Value> {
        Some(serde_json::json!({
            "type": "object",
            "properties": {
                "path": {"type": "string"},
                "language": {"type": "string", "description": "The grammar the file was parsed with."},
                "ok": {"type": "boolean"},
                "errors": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "kind": {"type": "string", "enum": ["error", "missing"]},
                            "line": {"type": "integer", "description": "1-based."},
                            "column": {"type": "integer", "description": "1-based, in UTF-16 code units."},
                            "near": {"type": "string", "description": "The line of the error, or the missing token."}
                        },
                        "required": ["kind", "line", "column", "near"]
                    }
                },
                "error_count": {"type": "integer"},
                "truncated": {"type": "boolean", "description": "More than the 50 listed errors exist."}
            },
            "required": ["path", "language", "ok", "errors", "error_count", "truncated"]
        }))
    }
    type Args = Args;

    fn run(args: Args, ctx: &Ctx) -> ToolResult<Output> {
        let cancelled = || ctx.cancel.is_cancelled();
        let parsed = code::prepare(ctx, &args.path, Purpose::CheckSyntax, &cancelled)?;
        let (issues, truncated) = syntax::issues(&parsed.tree, &parsed.text);
        Ok(syntax::report_json(
            &parsed.path.display,
            parsed.grammar.name,
            &issues,
            truncated,
        )
        .into())
    }
}
