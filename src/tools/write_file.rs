//! `write_file`: create or overwrite a file with exactly the given content, atomically.

use schemars::JsonSchema;
use serde::Deserialize;

use super::Tool;
use crate::atomic;
use crate::call::Ctx;
use crate::code;
use crate::config::{Config, Profile};
use crate::confine::WorkPath;
use crate::error::ToolResult;
use crate::output::Output;
use crate::paths;
use crate::{text, unified_diff};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// File to create or overwrite: relative to the workspace root, or absolute. Missing parent
    /// directories are created.
    pub path: String,
    /// The complete new content of the file, written exactly as given (UTF-8).
    pub content: String,
}

pub struct WriteFile;

impl Tool for WriteFile {
    const NAME: &'static str = "write_file";
    const DESCRIPTION: &'static str = "Create a new file, or replace the whole content of an existing one, with exactly the given text. Missing parent directories are created; an existing file keeps its permissions. The write is atomic: the file holds either its old or its new content, never a mix. Use this for new files and complete rewrites. To change part of an existing file, use edit_file (one change) or multi_edit (several changes) instead: they keep the rest of the file byte for byte and do not need the whole content resent. Refuses to write through a symbolic link.";
    const MUTATING: bool = true;
    const TITLE: &'static str = "Write file";
    const IDEMPOTENT: bool = true;
    type Args = Args;

    fn run(args: Args, ctx: &Ctx) -> ToolResult<Output> {
        let config: &Config = ctx;
        let path = paths::resolve(config, &args.path)?;
        let _lock = atomic::lock(&[&path.abs]);
        let existed = atomic::check_target(&path)?.is_some();
        // Only the newest contract returns `meta.diff` (the seed's results have no meta), so
        // only it reads the file being overwritten.
        let prior = if existed && config.profile == Profile::Current {
            prior_text(&path, config)
        } else {
            None
        };
        let diff = prior.filter(|b| *b != args.content).map(|b| {
            unified_diff::two_files_patch(&path.display, &path.display, &b, &args.content, 3)
        });
        let before = || existed.then(|| code::read_before(config, &path)).flatten();
        let warning = code::syntax_warning_with(config, &path.display, before, &args.content);
        let bytes = args.content.into_bytes();
        let len = bytes.len();
        atomic::write_atomic(&path, bytes)?;
        let mut message = format!(
            "Wrote {len} bytes to {} ({}).",
            path.display,
            if existed { "overwritten" } else { "created" }
        );
        code::append_warning(&mut message, warning);
        Ok(Output::text(message).with_meta_opt("diff", diff))
    }
}

/// The overwritten file's decoded text for `meta.diff`: LF-normalized with the BOM stripped,
/// as the edit tools diff it (CONTRACT-v0.5 §1, "`write_file` compares the prior decoded text
/// with the new content exactly as given"); `None` when it is not UTF-8 text: UTF-16, binary,
/// over `maxFileBytes`, unreadable.
fn prior_text(path: &WorkPath, config: &Config) -> Option<String> {
    let bytes = text::read_capped(path, config).ok()?;
    if text::looks_binary(&bytes) || text::Encoding::detect(&bytes).is_utf16() {
        return None;
    }
    let body = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&bytes);
    let decoded = String::from_utf8(body.to_vec()).ok()?;
    Some(match text::normalize_newlines(&decoded) {
        std::borrow::Cow::Borrowed(_) => decoded,
        std::borrow::Cow::Owned(lf) => lf,
    })
}
