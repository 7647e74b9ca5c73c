//! `edit_file`: replace one occurrence of a string in a file (or every exact one), atomically,
//! keeping every other byte of the file.

use schemars::JsonSchema;
use serde::Deserialize;

use super::Tool;
use crate::call::Ctx;
use crate::config::{Config, Profile};
use crate::error::ToolResult;
use crate::output::Output;
use crate::{atomic, code, editing, paths};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// File to edit: relative to the workspace root, or absolute.
    pub path: String,
    /// The exact text to replace, copied from the file (read_file output without its
    /// line-number prefixes). Include enough surrounding lines to make it unique.
    #[schemars(length(min = 1))]
    pub old_string: String,
    /// The text that replaces it; must differ from old_string. Empty deletes old_string.
    pub new_string: String,
    /// Replace every exact occurrence instead of requiring exactly one (default false).
    pub replace_all: Option<bool>,
}

pub struct EditFile;

impl Tool for EditFile {
    const NAME: &'static str = "edit_file";
    const DESCRIPTION: &'static str = "Replace text in an existing file: old_string must occur exactly once (include surrounding lines to make it unique) unless replace_all is true, which replaces every exact occurrence. Copy old_string from read_file output without the line-number prefixes. If there is no exact match, a whitespace-tolerant match (indentation, trailing spaces, whitespace runs, typographic quotes and dashes) is used only when it finds exactly one place, and the result says so; a failure explains what differs and where the closest text is. The rest of the file is kept byte for byte (line endings, BOM), and the write is atomic. Use multi_edit for several changes to one file, apply_patch for changes across files, write_file to create a file or replace all of it.";
    const MUTATING: bool = true;
    const TITLE: &'static str = "Edit file";
    type Args = Args;

    fn run(args: Args, ctx: &Ctx) -> ToolResult<Output> {
        let config: &Config = ctx;
        editing::check_pair(&args.old_string, &args.new_string)?;
        let path = paths::resolve(config, &args.path)?;
        let _lock = atomic::lock(&[&path.abs]);
        let mut file = editing::load(&path, config)?;
        editing::check_raw(&file, &args.old_string, &args.new_string, &path.display)?;
        // Only the newest contract returns `meta.diff` (the seed's results have no meta).
        let current = config.profile == Profile::Current;
        let original = current.then(|| file.text.clone());
        let before = code::keep_before(config, &path.display, &file.text);
        let dominant = editing::dominant_for(&file.text, [args.new_string.as_str()].into_iter());
        let applied = editing::apply(
            &mut file.text,
            &args.old_string,
            &args.new_string,
            args.replace_all.unwrap_or(false),
            dominant,
            &path.display,
        )?;
        let warning = code::syntax_warning(config, &path.display, before.as_deref(), &file.text);
        let diff = original
            .map(|original| crate::unified_diff::edit_patch(&path.display, &original, &file.text));
        atomic::write_atomic(&path, file.into_bytes())?;
        let mut message = message(&path.display, &applied);
        code::append_warning(&mut message, warning);
        Ok(Output::text(message).with_meta_opt("diff", diff))
    }
}

/// The success message. A tolerant match (always a single replacement) says so, in
/// CONTRACT-v0.5 §6's words at both entries ("All messages are unchanged, including …").
fn message(display: &str, applied: &editing::Applied) -> String {
    if applied.tolerant {
        format!("Replaced 1 occurrence in {display} (matched after a whitespace-tolerant search; the matched region \u{2014} including its leading indentation \u{2014} was replaced by new_string verbatim, so re-read the file to verify the indentation is correct).")
    } else if applied.count == 1 {
        format!("Replaced 1 occurrence in {display}.")
    } else {
        format!("Replaced {} occurrences in {display}.", applied.count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use editing::Applied;

    #[test]
    fn messages_of_both_contracts() {
        let exact = |count| Applied {
            count,
            tolerant: false,
        };
        let tolerant = Applied {
            count: 1,
            tolerant: true,
        };
        assert_eq!(message("a.rs", &exact(1)), "Replaced 1 occurrence in a.rs.");
        assert_eq!(
            message("a.rs", &exact(3)),
            "Replaced 3 occurrences in a.rs."
        );
        assert_eq!(
            message("a.rs", &tolerant),
            "Replaced 1 occurrence in a.rs (matched after a whitespace-tolerant search; the matched region \u{2014} including its leading indentation \u{2014} was replaced by new_string verbatim, so re-read the file to verify the indentation is correct)."
        );
    }

    /// `meta.diff` is the newest contract's (§1): the seed entry's results have no meta, so
    /// its edit tools neither compute the diff nor (write_file) read the file they replace.
    #[test]
    fn only_the_root_computes_meta_diff() {
        use crate::config::Profile;
        let dir = tempfile::tempdir().unwrap();
        let root = crate::testutil::config_at(dir.path());
        let seed = Config {
            profile: Profile::Seed,
            ..root.clone()
        };
        let calls = [
            (
                "edit_file",
                serde_json::json!({"path": "f.txt", "old_string": "a", "new_string": "b"}),
            ),
            (
                "multi_edit",
                serde_json::json!({"path": "f.txt", "edits": [{"old_string": "a", "new_string": "b"}]}),
            ),
            (
                "write_file",
                serde_json::json!({"path": "f.txt", "content": "b\n"}),
            ),
        ];
        for (name, args) in calls {
            for (config, want) in [(&seed, false), (&root, true)] {
                std::fs::write(dir.path().join("f.txt"), "a\n").unwrap();
                let tool = crate::tools::find(name, config).unwrap();
                let out = tool.call(args.clone(), &Ctx::plain(config)).unwrap();
                let diff = out.meta.as_ref().and_then(|m| m.get("diff"));
                assert_eq!(diff.is_some(), want, "{name} {:?}", config.profile);
                if want {
                    assert!(diff
                        .unwrap()
                        .as_str()
                        .unwrap()
                        .ends_with("@@ -1,1 +1,1 @@\n-a\n+b\n"));
                }
                assert_eq!(
                    std::fs::read_to_string(dir.path().join("f.txt")).unwrap(),
                    "b\n"
                );
            }
        }
    }
}
