//! `multi_edit`: several `edit_file`-style edits to one file, applied in order and written
//! atomically — all of them or none.

use schemars::JsonSchema;
use serde::Deserialize;

use super::Tool;
use crate::call::Ctx;
use crate::config::Config;
use crate::error::{ErrorCode, ToolError, ToolResult};
use crate::output::Output;
use crate::{atomic, editing, paths};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Edit {
    /// The exact text to replace, as it stands after the earlier edits of this call.
    #[schemars(length(min = 1))]
    pub old_string: String,
    /// The text that replaces it; must differ from old_string.
    pub new_string: String,
    /// Replace every exact occurrence instead of requiring exactly one (default false).
    pub replace_all: Option<bool>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// File to edit: relative to the workspace root, or absolute.
    pub path: String,
    /// The edits, applied in order, each to the result of the previous one.
    #[schemars(length(min = 1))]
    pub edits: Vec<Edit>,
}

pub struct MultiEdit;

impl Tool for MultiEdit {
    const NAME: &'static str = "multi_edit";
    const DESCRIPTION: &'static str = "Apply several edits to ONE existing file in a single atomic call. Each edit is {old_string, new_string, replace_all?} with edit_file's matching rules (exact and unique first, then a whitespace-tolerant match only when it finds exactly one place); edits run in order, each on the result of the previous one. If any edit fails, nothing is written and the error names the failing edit (edit[i], with an index field). The rest of the file is kept byte for byte (line endings, BOM). Use edit_file for a single change, apply_patch for changes across several files, write_file to replace the whole file.";
    const MUTATING: bool = true;
    const TITLE: &'static str = "Edit file (several edits)";
    type Args = Args;

    fn run(args: Args, ctx: &Ctx) -> ToolResult<Output> {
        let config: &Config = ctx;
        // The newest contract's schema has no minLength inside the array (grammar-constrained
        // decoders corrupt their output on it), so an empty old_string is refused here.
        if let Some(i) = args.edits.iter().position(|e| e.old_string.is_empty()) {
            return Err(at(
                i,
                ToolError::invalid_input("old_string must not be empty."),
            ));
        }
        for (i, edit) in args.edits.iter().enumerate() {
            editing::check_pair(&edit.old_string, &edit.new_string).map_err(|e| at(i, e))?;
        }
        let path = paths::resolve(config, &args.path)?;
        let _lock = atomic::lock(&[&path.abs]);
        let mut file = editing::load(&path, config)?;
        for (i, edit) in args.edits.iter().enumerate() {
            editing::check_raw(&file, &edit.old_string, &edit.new_string, &path.display)
                .map_err(|e| at(i, e))?;
        }
        let dominant =
            editing::dominant_for(&file.text, args.edits.iter().map(|e| e.new_string.as_str()));
        let mut notes = Vec::new();
        for (i, edit) in args.edits.iter().enumerate() {
            let applied = editing::apply(
                &mut file.text,
                &edit.old_string,
                &edit.new_string,
                edit.replace_all.unwrap_or(false),
                dominant,
                &path.display,
            )
            .map_err(|e| at(i, e))?;
            if let Some(note) = applied.note {
                notes.push(format!("edit[{i}]: {note}"));
            }
        }
        atomic::write_atomic(&path, file.into_bytes())?;
        let n = args.edits.len();
        let mut message = format!(
            "Applied {n} edit{} to {}.",
            if n == 1 { "" } else { "s" },
            path.display
        );
        for note in notes {
            message.push_str(" Note: ");
            message.push_str(&note);
        }
        Ok(message.into())
    }
}

/// Names the failing edit: the message starts with `edit[<i>]: ` and the envelope gets `index`.
/// Line numbers after the first edit refer to the text the earlier edits left.
fn at(i: usize, err: ToolError) -> ToolError {
    let mut message = format!("edit[{i}]: {}", err.message);
    if i > 0 && matches!(err.code, ErrorCode::NoMatch | ErrorCode::AmbiguousMatch) {
        let earlier = if i == 1 {
            "edit[0]".to_string()
        } else {
            format!("edits 0..{}", i - 1)
        };
        message.push_str(&format!(
            " (Line numbers refer to the file as {earlier} left it; nothing has been written.)"
        ));
    }
    ToolError { message, ..err }.with("index", i)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failing_edit_is_named() {
        let e = at(
            2,
            ToolError::new(ErrorCode::NoMatch, "old_string was not found in f."),
        );
        assert!(e.message.starts_with("edit[2]: old_string"));
        assert!(e.message.contains("edits 0..1"));
        assert_eq!(e.fields["index"], 2);
        let e = at(1, ToolError::new(ErrorCode::NoMatch, "m"));
        assert!(e.message.contains("as edit[0] left it"), "{}", e.message);
        let e = at(0, ToolError::invalid_input("x"));
        assert_eq!(e.message, "edit[0]: x");
    }
}
