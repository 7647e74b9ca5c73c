//! `multi_edit`: several `edit_file`-style edits to one file, applied in order and written
//! atomically — all of them or none.

use schemars::JsonSchema;
use serde::Deserialize;

use super::Tool;
use crate::call::Ctx;
use crate::config::{Config, Profile};
use crate::error::{ErrorCode, ToolError, ToolResult};
use crate::output::Output;
use crate::{atomic, code, editing, paths};

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

/// The most edits one call may carry. Each edit searches the whole text as the earlier edits
/// left it, so the cost grows with edits × file size; past this many, split the work (or
/// rewrite the file with write_file).
pub const MAX_EDITS: usize = 1000;

/// Refuses more than [`MAX_EDITS`] edits, before anything is read.
fn check_count(n: usize) -> ToolResult<()> {
    if n > MAX_EDITS {
        return Err(ToolError::invalid_input(format!(
            "edits has {n} entries, over the limit of {MAX_EDITS} per call: split them over several multi_edit calls, or rewrite the file with write_file. Nothing was written."
        ))
        .with("field", "edits")
        .with("limit", MAX_EDITS));
    }
    Ok(())
}

impl Tool for MultiEdit {
    const NAME: &'static str = "multi_edit";
    const DESCRIPTION: &'static str = "Apply several edits to ONE existing file in a single atomic call. Each edit is {old_string, new_string, replace_all?} with edit_file's matching rules (exact and unique first, then a whitespace-tolerant match only when it finds exactly one place); edits run in order, each on the result of the previous one. If any edit fails, nothing is written and the error names the failing edit (edit[i], with an index field). The rest of the file is kept byte for byte (line endings, BOM). Use edit_file for a single change, apply_patch for changes across several files, write_file to replace the whole file.";
    const MUTATING: bool = true;
    const TITLE: &'static str = "Edit file (several edits)";
    type Args = Args;

    fn run(args: Args, ctx: &Ctx) -> ToolResult<Output> {
        let config: &Config = ctx;
        check_count(args.edits.len())?;
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
        // Only the newest contract returns `meta.diff` (the seed's results have no meta).
        let current = config.profile == Profile::Current;
        let original = current.then(|| file.text.clone());
        let before = code::keep_before(config, &path.display, &file.text);
        let dominant =
            editing::dominant_for(&file.text, args.edits.iter().map(|e| e.new_string.as_str()));
        let mut tolerant = 0;
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
            tolerant += usize::from(applied.tolerant);
        }
        let warning = code::syntax_warning(config, &path.display, before.as_deref(), &file.text);
        let diff = original
            .map(|original| crate::unified_diff::edit_patch(&path.display, &original, &file.text));
        atomic::write_atomic(&path, file.into_bytes())?;
        let mut message = message(&path.display, args.edits.len(), tolerant);
        code::append_warning(&mut message, warning);
        Ok(Output::text(message).with_meta_opt("diff", diff))
    }
}

/// The success message: `n` edits, `tolerant` of them found by a whitespace-tolerant tier
/// (CONTRACT-v0.5 §6's note, at both entries: the seed's tolerant messages are the same).
fn message(display: &str, n: usize, tolerant: usize) -> String {
    let mut message = format!(
        "Applied {n} edit{} to {display}.",
        if n == 1 { "" } else { "s" }
    );
    if tolerant > 0 {
        message.push_str(&format!(" ({tolerant} matched after a whitespace-tolerant search; each such region \u{2014} including its leading indentation \u{2014} was replaced verbatim, so re-read to verify.)"));
    }
    message
}

/// Names the failing edit: the message starts with `edit[<i>]: ` and the envelope gets `index`.
/// When a later edit's message gives line numbers, it adds that they refer to the text the
/// earlier edits left; a message without any is exactly the single edit's.
fn at(i: usize, err: ToolError) -> ToolError {
    let mut message = format!("edit[{i}]: {}", err.message);
    let gives_lines = err.code == ErrorCode::AmbiguousMatch
        || (err.code == ErrorCode::NoMatch && err.message.contains(" at line"));
    if i > 0 && gives_lines {
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
    fn too_many_edits_are_refused_by_count() {
        assert!(check_count(MAX_EDITS).is_ok());
        let e = check_count(MAX_EDITS + 1).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidInput);
        assert_eq!(e.fields["field"], "edits");
    }

    #[test]
    fn failing_edit_is_named() {
        let e = at(
            2,
            ToolError::new(
                ErrorCode::NoMatch,
                "not found. The text is present at line 3.",
            ),
        );
        assert!(e.message.starts_with("edit[2]: not found."));
        assert!(e.message.contains("edits 0..1"));
        assert_eq!(e.fields["index"], 2);
        let e = at(1, ToolError::new(ErrorCode::AmbiguousMatch, "m"));
        assert!(e.message.contains("as edit[0] left it"), "{}", e.message);
        // Without line numbers the message is exactly the single edit's.
        let e = at(
            1,
            ToolError::new(ErrorCode::NoMatch, crate::matching::NO_MATCH),
        );
        assert_eq!(e.message, format!("edit[1]: {}", crate::matching::NO_MATCH));
        let e = at(0, ToolError::invalid_input("x"));
        assert_eq!(e.message, "edit[0]: x");
    }

    #[test]
    fn messages_of_both_contracts() {
        assert_eq!(message("a.py", 1, 0), "Applied 1 edit to a.py.");
        assert_eq!(message("a.py", 3, 0), "Applied 3 edits to a.py.");
        assert_eq!(
            message("a.py", 2, 1),
            "Applied 2 edits to a.py. (1 matched after a whitespace-tolerant search; each such region \u{2014} including its leading indentation \u{2014} was replaced verbatim, so re-read to verify.)"
        );
    }
}
