//! `apply_patch`: a unified diff or a `*** Begin Patch` block across any number of files,
//! applied all together or not at all.
//!
//! The call parses the patch ([`crate::patch`]), resolves and confines every path, refuses a
//! path named by two blocks or needed both as a file and as a directory, locks every path it
//! touches (process-wide, before reading anything), then — under the locks — reads each
//! file, checks it (exists or not as the block requires, not a symlink, not binary or UTF-16,
//! under the size cap) and computes its new bytes. Only when every block succeeded does one
//! [`Transaction`] commit them; any failure before or during the commit leaves every file as it
//! was.

use std::collections::HashMap;
use std::path::PathBuf;

use schemars::JsonSchema;
use serde::Deserialize;

use super::Tool;
use crate::atomic::{self, Transaction};
use crate::call::Ctx;
use crate::code;
use crate::config::Config;
use crate::confine::WorkPath;
use crate::error::{ToolError, ToolResult};
use crate::output::Output;
use crate::patch::apply::{apply_hunks, check_whole_content, render_new_file, Target};
use crate::patch::{self, FileOp, Format, Hunk};
use crate::paths::{self, identity};
use crate::text::{check_editable, read_capped};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// The patch: a unified diff (`--- a/path`, `+++ b/path`, `@@ -l,s +l,s @@` hunks, as
    /// `git diff` writes them) or a `*** Begin Patch` … `*** End Patch` block. Paths are
    /// relative to the workspace root, or absolute. A surrounding `apply_patch <<'EOF'` …
    /// `EOF` heredoc is accepted.
    pub patch: String,
}

pub struct ApplyPatch;

impl Tool for ApplyPatch {
    const NAME: &'static str = "apply_patch";
    const DESCRIPTION: &'static str = "Apply a patch that edits, creates, deletes or renames one or more files in one atomic step: every file changes or none does. Use it for changes across several files or several places of a file; for one replacement in one file edit_file is simpler, and write_file replaces a whole file.\n\nTwo formats are accepted (detected automatically):\n1. A unified diff, as `git diff` or `diff -u` writes it: `--- a/path` and `+++ b/path` lines, then `@@ -start,count +start,count @@` hunks of ' ' (context), '-' (removed) and '+' (added) lines. `--- /dev/null` creates a file, `+++ /dev/null` deletes it (list every line as '-'), different old and new paths rename it.\n2. The Begin-Patch format:\n*** Begin Patch\n*** Update File: src/app.py\n@@ def main():\n-    print(\"hi\")\n+    print(\"hello\")\n*** Add File: notes.txt\n+first line\n*** Delete File: old.txt\n*** End Patch\n(`*** Move to: <path>` after an Update File line renames; `@@ <line>` names a line above the change to find it by; `*** End of File` marks a change at the end.)\n\nCopy 2-3 unchanged context lines around each change exactly from the file (read it first with read_file, without its line-number prefixes). A hunk is found even a few lines away from its stated position, and whitespace or typographic-quote differences in context lines are tolerated. On failure the error names the file and hunk and shows the expected lines next to the file's actual ones; nothing is written. Creating an existing file, renaming onto an existing file, or naming a file in two blocks is refused.";
    const MUTATING: bool = true;
    const TITLE: &'static str = "Apply patch";
    type Args = Args;

    fn run(args: Args, ctx: &Ctx) -> ToolResult<Output> {
        let config: &Config = ctx;
        let newest = config.profile == crate::config::Profile::Current;
        let patch = if config.contract_exact() {
            patch::parse_exact(&args.patch)?
        } else {
            patch::parse(&args.patch, newest)?
        };
        let blocks = resolve_blocks(&patch, config)?;
        let mut lock_paths: Vec<&std::path::Path> = Vec::new();
        for b in &blocks {
            lock_paths.push(&b.path.abs);
            if let Some(to) = &b.to {
                lock_paths.push(&to.abs);
            }
        }
        let _locks = atomic::lock(&lock_paths);
        // Each block is read and patched on the walk pool, several at once (they are
        // independent: each reads its own file, and nothing is written before the commit);
        // the first failing block, in patch order, is the error.
        let planned = crate::walk::par_map(blocks.iter().collect(), |b| plan(b, config));
        let mut tx = Transaction::new();
        let mut rows = Vec::with_capacity(blocks.len());
        let mut warnings = code::Warnings::default();
        for (block, planned) in blocks.iter().zip(planned) {
            let Planned { row, bytes, before } = planned?;
            // A new file, or one its hunks changed (not a pure rename or a delete), is checked.
            let changed = matches!(block.op, FileOp::Add { .. }) || before.is_some();
            if let (Some(after), true) = (&bytes, changed) {
                let written = block.to.as_ref().unwrap_or(&block.path);
                warnings.check(config, &written.display, before.as_deref(), after);
            }
            match (bytes, &block.to) {
                (Some(bytes), Some(to)) => tx.rename(&block.path, to, bytes),
                (Some(bytes), None) => tx.write(&block.path, bytes),
                (None, _) => tx.delete(&block.path),
            }
            rows.push(row);
        }
        if patch.no_path {
            // The blocks before it had no error of their own (CONTRACT-v0.5-wording §7).
            return Err(ToolError::invalid_input(patch::unified::contract::NO_PATH));
        }
        // The syntax checks parse on the walk pool while the commit waits for the disk (never
        // at the seed entry, which has no files to parse).
        let (committed, lines) = if !warnings.pending() {
            (tx.commit(), Vec::new())
        } else {
            let (committed, lines) =
                crate::walk::alongside(|| tx.commit(), || warnings.lines(config));
            (committed, lines.unwrap_or_default())
        };
        committed?;
        for block in &blocks {
            if matches!(block.op, FileOp::Delete { .. }) || block.to.is_some() {
                prune_empty_dirs(&config.workspace_root, &block.path.abs);
            }
        }
        let mut message = format!("Applied patch:\n{}", rows.join("\n"));
        code::append_lines(&mut message, lines);
        Ok(message.into())
    }
}

/// One block with its paths resolved.
/// The newest contract's hunk failure (CONTRACT-v0.5-wording §7): `patch_failed`
/// `Hunk did not apply cleanly in <rel>`, field `file`, and `hunk` only when a hunk fails when
/// the block's hunks are applied one at a time, each to the previous result (the first that
/// does); when each applies alone although the whole block failed, there is no number. The
/// engine's own diagnosis (what the hunk expects beside the file's most similar lines) is kept
/// in `detail`.
fn contract_hunk_failure(
    err: ToolError,
    bytes: &[u8],
    hunks: &[Hunk],
    display: &str,
    exact: bool,
) -> ToolError {
    if err.code != crate::error::ErrorCode::PatchFailed {
        return err;
    }
    let mut current = bytes.to_vec();
    let mut failing = None;
    for (k, hunk) in hunks.iter().enumerate() {
        match apply_hunks(&current, std::slice::from_ref(hunk), display) {
            Ok(next) => current = next,
            Err(_) => {
                failing = Some(k + 1);
                break;
            }
        }
    }
    let mut out = ToolError::new(
        crate::error::ErrorCode::PatchFailed,
        format!("Hunk did not apply cleanly in {display}"),
    )
    .with("file", display);
    if let Some(k) = failing {
        out = out.with("hunk", k);
    }
    // The contract's fields are `file` and `hunk` only; with extras the diagnosis comes too.
    if exact {
        out
    } else {
        out.with("detail", err.message)
    }
}

/// Whether a block gets the newest contract's texts (CONTRACT-v0.5-wording §7): a unified
/// diff at the root without extras.
fn exact_texts(config: &Config, format: Format) -> bool {
    config.contract_exact() && format == Format::Unified
}

/// `is_binary` for a UTF-16 file, in the contract's words at the root: `Patching <encoding>
/// files is not supported (the file would be rewritten as UTF-8): <input>`.
fn check_patchable(bytes: &[u8], display: &str, exact: bool) -> ToolResult<()> {
    check_editable(bytes, display).map_err(|e| match e.fields.get("encoding") {
        Some(encoding) if exact => {
            let encoding = encoding.as_str().unwrap_or_default().to_string();
            ToolError::new(
                crate::error::ErrorCode::IsBinary,
                format!(
                    "Patching {encoding} files is not supported (the file would be rewritten as UTF-8): {display}"
                ),
            )
            .with("path", display)
            .with("encoding", encoding)
        }
        _ => e,
    })
}

struct Block<'p> {
    op: &'p FileOp,
    path: WorkPath,
    /// The rename destination, when it differs from `path`.
    to: Option<WorkPath>,
    format: Format,
}

/// Resolves and confines every path; refuses a path named by two blocks (a rename names two).
fn resolve_blocks<'p>(patch: &'p patch::Patch, config: &Config) -> ToolResult<Vec<Block<'p>>> {
    let mut seen: HashMap<PathBuf, String> = HashMap::new();
    let mut claim = |wp: &WorkPath| -> ToolResult<()> {
        let key = identity(&wp.abs);
        if let Some(first) = seen.insert(key, wp.display.clone()) {
            let message = if exact_texts(config, patch.format) {
                format!(
                    "Patch contains multiple blocks for {}; combine them into a single block.",
                    wp.display
                )
            } else {
                format!(
                    "{} is named by more than one block of the patch (also as {first}); give each file exactly one block, with all its hunks in it. Nothing was written.",
                    wp.display
                )
            };
            return Err(ToolError::invalid_input(message).with("path", wp.display.as_str()));
        }
        Ok(())
    };
    // `cd <dir> && apply_patch <<'EOF'`: relative paths are relative to <dir>.
    let resolve = |raw: &str| match &patch.base {
        Some(base) if !std::path::Path::new(raw).is_absolute() => {
            paths::resolve(config, &format!("{base}/{raw}"))
        }
        _ => paths::resolve(config, raw),
    };
    let mut blocks = Vec::with_capacity(patch.files.len());
    for fp in &patch.files {
        let path = resolve(fp.op.path())?;
        claim(&path)?;
        let mut to = None;
        if let FileOp::Update {
            move_to: Some(dest),
            hunks,
            ..
        } = &fp.op
        {
            let dest = resolve(dest)?;
            if dest.abs != path.abs {
                claim(&dest)?;
                to = Some(dest);
            } else if hunks.is_empty() {
                return Err(ToolError::invalid_input(format!(
                    "the block for {} moves it onto itself and has no hunks: nothing to apply",
                    path.display
                ))
                .with("path", path.display.as_str()));
            }
        }
        blocks.push(Block {
            op: &fp.op,
            path,
            to,
            format: patch.format,
        });
    }
    check_nesting(&blocks)?;
    Ok(blocks)
}

/// Refuses a patch that leaves a file at a path another block needs as a directory
/// (`Add File: x` with `Add File: x/y`): caught here with a clear message rather than half-way
/// through the commit.
fn check_nesting(blocks: &[Block]) -> ToolResult<()> {
    let mut files: HashMap<&std::path::Path, &str> = HashMap::new();
    for b in blocks {
        match (b.op, &b.to) {
            (FileOp::Delete { .. }, _) => {}
            (_, Some(to)) => {
                files.insert(&to.abs, &to.display);
            }
            (_, None) => {
                files.insert(&b.path.abs, &b.path.display);
            }
        }
    }
    for b in blocks {
        for p in std::iter::once(&b.path).chain(&b.to) {
            if let Some(file) = p.abs.ancestors().skip(1).find_map(|a| files.get(a)) {
                return Err(ToolError::invalid_input(format!(
                    "{file} is a file after this patch, but {} would be inside it; a path cannot be both a file and a directory. Nothing was written.",
                    p.display
                ))
                .with("path", p.display.as_str()));
            }
        }
    }
    Ok(())
}

/// Checks one block under the locks, stages its change in `tx`, and returns its result row.
/// What one block comes to, before anything is written.
struct Planned {
    /// The block's line in the result.
    row: String,
    /// The new content (written to the rename destination for a rename); `None` deletes.
    bytes: Option<Vec<u8>>,
    /// The content it replaces, when a syntax check should compare (an update with hunks).
    before: Option<Vec<u8>>,
}

/// Reads and patches one block's file (or checks its deletion) without writing anything.
fn plan(block: &Block, config: &Config) -> ToolResult<Planned> {
    let path = &block.path;
    let exact = exact_texts(config, block.format);
    match block.op {
        FileOp::Add { lines, no_eol, .. } => {
            if atomic::check_target(path)?.is_some() {
                let message = if exact {
                    format!(
                        "Cannot create {}: a file already exists there. Use a modify hunk with context, or delete it first.",
                        path.display
                    )
                } else {
                    format!(
                        "cannot create {0}: it already exists. To change it, use {1} block instead; to replace it whole, use write_file. Nothing was written.",
                        path.display,
                        update_hint(block.format)
                    )
                };
                return Err(ToolError::invalid_input(message).with("path", path.display.as_str()));
            }
            Ok(Planned {
                row: format!("  A {} (+{} -0)", path.display, lines.len()),
                bytes: Some(render_new_file(lines, *no_eol)),
                before: None,
            })
        }
        FileOp::Delete { expect, .. } => {
            let bytes = read_existing(path, config, block.format)?;
            check_patchable(&bytes, &path.display, exact)?;
            if let Some(expect) = expect {
                check_whole_content(&bytes, expect, &path.display).map_err(|e| {
                    if exact {
                        ToolError::invalid_input(format!(
                            "Delete patch for {} does not remove the entire file",
                            path.display
                        ))
                        .with("path", path.display.as_str())
                    } else {
                        e
                    }
                })?;
            }
            let removed = Target::new(&bytes).line_count();
            Ok(Planned {
                row: format!("  D {} (+0 -{removed})", path.display),
                bytes: None,
                before: None,
            })
        }
        FileOp::Update { hunks, .. } => {
            let bytes = read_existing(path, config, block.format)?;
            if let Some(to) = &block.to {
                if atomic::check_target(to)?.is_some() {
                    return Err(ToolError::invalid_input(format!(
                        "cannot rename {} to {}: the destination already exists. Choose another name, or remove that file first with a separate call. Nothing was written.",
                        path.display, to.display
                    ))
                    .with("path", to.display.as_str()));
                }
            }
            let (new_bytes, before) = if hunks.is_empty() {
                // A pure rename moves the exact bytes, whatever they are.
                (bytes, None)
            } else {
                check_patchable(&bytes, &path.display, exact)?;
                let new_bytes = apply_hunks(&bytes, hunks, &path.display).map_err(|e| {
                    if config.profile == crate::config::Profile::Current
                        && block.format == Format::Unified
                    {
                        contract_hunk_failure(e, &bytes, hunks, &path.display, exact)
                    } else {
                        e
                    }
                })?;
                (new_bytes, Some(bytes))
            };
            let counts = counts(hunks);
            let row = match &block.to {
                Some(to) if hunks.is_empty() => format!("  R {} -> {}", path.display, to.display),
                Some(to) => format!("  R {} -> {} {counts}", path.display, to.display),
                None => format!("  M {} {counts}", path.display),
            };
            Ok(Planned {
                row,
                bytes: Some(new_bytes),
                before,
            })
        }
    }
}

/// Reads a file a block changes: it must exist, be a regular file (not a symlink), and fit
/// under `maxFileBytes`.
fn read_existing(path: &WorkPath, config: &Config, format: Format) -> ToolResult<Vec<u8>> {
    if atomic::check_target(path)?.is_none() {
        let (message, shown) = if exact_texts(config, format) {
            (format!("No such file: {}", path.input), &path.input)
        } else {
            (
                format!(
                    "No such file: {0}. To create it, use {1}.",
                    path.display,
                    create_hint(format, &path.display)
                ),
                &path.display,
            )
        };
        return Err(
            ToolError::new(crate::error::ErrorCode::NotFound, message).with("path", shown.as_str())
        );
    }
    read_capped(path, config)
}

fn update_hint(format: Format) -> &'static str {
    match format {
        Format::Unified => "a '--- a/<path>' / '+++ b/<path>'",
        Format::BeginPatch => "an '*** Update File: <path>'",
    }
}

fn create_hint(format: Format, display: &str) -> String {
    match format {
        Format::Unified => format!("'--- /dev/null' and '+++ b/{display}'"),
        Format::BeginPatch => format!("'*** Add File: {display}'"),
    }
}

/// After a file left `abs` (deleted, or renamed away), removes the directories that this left
/// empty, innermost first, up to but not including the workspace root — as `git apply` does.
/// Best effort: it stops at the first directory that is not empty or cannot be removed, and
/// never touches a directory outside the workspace root.
fn prune_empty_dirs(root: &std::path::Path, abs: &std::path::Path) {
    let mut dir = abs.parent();
    while let Some(d) = dir {
        if d == root || !d.starts_with(root) || std::fs::remove_dir(d).is_err() {
            break;
        }
        dir = d.parent();
    }
}

/// `(+added -removed)` over a block's hunks.
fn counts(hunks: &[Hunk]) -> String {
    let added: usize = hunks.iter().map(Hunk::added).sum();
    let removed: usize = hunks.iter().map(Hunk::removed).sum();
    format!("(+{added} -{removed})")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;
    use std::fs;

    fn setup(files: &[(&str, &[u8])]) -> (tempfile::TempDir, Config) {
        let dir = tempfile::tempdir().unwrap();
        for (rel, content) in files {
            let p = dir.path().join(rel);
            fs::create_dir_all(p.parent().unwrap()).unwrap();
            fs::write(p, content).unwrap();
        }
        let config = crate::testutil::config_at(dir.path());
        (dir, config)
    }

    fn run(config: &Config, patch: &str) -> ToolResult<String> {
        crate::testutil::run_text::<ApplyPatch>(
            Args {
                patch: patch.into(),
            },
            config,
        )
    }

    #[test]
    fn the_root_words_unified_diff_failures_as_the_contract_and_extras_as_the_engine() {
        // CONTRACT-v0.5-wording §7, "Other texts"; v0.5 §2 "Missing → `No such file: <input>`".
        let utf16 = [0xFF, 0xFE, b'x', 0, b'\n', 0];
        let (_dir, c) = setup(&[("a.txt", b"a\nb\n"), ("u.txt", &utf16)]);
        let extras = Config {
            extras: true,
            ..c.clone()
        };
        let cases = [
            (
                "--- /dev/null\n+++ b/a.txt\n@@ -0,0 +1,1 @@\n+x\n",
                r#"{"error":"invalid_input","message":"Cannot create a.txt: a file already exists there. Use a modify hunk with context, or delete it first.","path":"a.txt"}"#,
            ),
            (
                "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+x\n--- a/a.txt\n+++ b/a.txt\n@@ -2 +2 @@\n-b\n+y\n",
                r#"{"error":"invalid_input","message":"Patch contains multiple blocks for a.txt; combine them into a single block.","path":"a.txt"}"#,
            ),
            (
                "--- a/a.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-a\n",
                r#"{"error":"invalid_input","message":"Delete patch for a.txt does not remove the entire file","path":"a.txt"}"#,
            ),
            (
                "--- a/u.txt\n+++ b/u.txt\n@@ -1 +1 @@\n-x\n+y\n",
                r#"{"error":"is_binary","message":"Patching utf-16le files is not supported (the file would be rewritten as UTF-8): u.txt","path":"u.txt","encoding":"utf-16le"}"#,
            ),
            (
                "--- a/no.txt\n+++ b/no.txt\n@@ -1 +1 @@\n-a\n+x\n",
                r#"{"error":"not_found","message":"No such file: no.txt","path":"no.txt"}"#,
            ),
            (
                "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-zzz\n+x\n",
                r#"{"error":"patch_failed","message":"Hunk did not apply cleanly in a.txt","file":"a.txt","hunk":1}"#,
            ),
        ];
        for (patch, envelope) in cases {
            assert_eq!(run(&c, patch).unwrap_err().envelope(), envelope, "{patch}");
            // With extras the engine's own texts (and the diagnosis) stay.
            assert_ne!(
                run(&extras, patch).unwrap_err().envelope(),
                envelope,
                "{patch}"
            );
        }
    }

    #[test]
    fn the_root_reads_hunk_headers_as_jsdiff_does() {
        // CONTRACT-v0.5-wording §7: parsing is jsdiff's. `@@` with no space after it is prose
        // (no hunks here); a header jsdiff cannot read the numbers of never applies, and is
        // the hunk the failure names when the ones before it apply.
        let (dir, c) = setup(&[("a.txt", b"a\nb\nc\n")]);
        let no_hunks = run(&c, "--- a/a.txt\n+++ b/a.txt\n@@\n-a\n+x\n").unwrap_err();
        assert_eq!(
            no_hunks.envelope(),
            r#"{"error":"invalid_input","message":"Patch contains no applicable hunks"}"#
        );
        let second = "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+x\n@@ -x +y @@\n-c\n+z\n";
        assert_eq!(
            run(&c, second).unwrap_err().envelope(),
            r#"{"error":"patch_failed","message":"Hunk did not apply cleanly in a.txt","file":"a.txt","hunk":2}"#
        );
        assert_eq!(
            std::fs::read(dir.path().join("a.txt")).unwrap(),
            b"a\nb\nc\n"
        );
    }

    #[test]
    fn every_operation_in_one_begin_patch() {
        let (dir, c) = setup(&[
            ("m.txt", b"a\nb\n"),
            ("d.txt", b"x\ny\n"),
            ("r.txt", b"r\n"),
        ]);
        let out = run(
            &c,
            "*** Begin Patch\n*** Update File: m.txt\n@@\n a\n-b\n+B\n*** Add File: n/new.txt\n+hi\n\
             *** Delete File: d.txt\n*** Update File: r.txt\n*** Move to: s.txt\n*** End Patch\n",
        )
        .unwrap();
        assert_eq!(
            out,
            "Applied patch:\n  M m.txt (+1 -1)\n  A n/new.txt (+1 -0)\n  D d.txt (+0 -2)\n  R r.txt -> s.txt"
        );
        let read = |p: &str| fs::read_to_string(dir.path().join(p)).unwrap();
        assert_eq!(read("m.txt"), "a\nB\n");
        assert_eq!(read("n/new.txt"), "hi\n");
        assert_eq!(read("s.txt"), "r\n");
        assert!(!dir.path().join("d.txt").exists());
        assert!(!dir.path().join("r.txt").exists());
    }

    #[test]
    fn a_cd_heredoc_makes_paths_relative_to_its_directory() {
        let (dir, c) = setup(&[("pkg/a.txt", b"1\n")]);
        let out = run(
            &c,
            "cd pkg && apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: a.txt\n-1\n+2\n*** Add File: b.txt\n+b\n*** End Patch\nEOF\n",
        )
        .unwrap();
        assert_eq!(
            out,
            "Applied patch:\n  M pkg/a.txt (+1 -1)\n  A pkg/b.txt (+1 -0)"
        );
        assert_eq!(fs::read(dir.path().join("pkg/a.txt")).unwrap(), b"2\n");
        let e = run(
            &c,
            "cd .. && apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: x\n+x\n*** End Patch\nEOF",
        )
        .unwrap_err();
        assert_eq!(e.code, ErrorCode::PathEscape);
    }

    #[test]
    fn deleting_a_last_sibling_removes_the_directories_left_empty() {
        let (dir, c) = setup(&[
            ("a/b/c/gone.txt", b"x\n"),
            ("a/keep.txt", b"k\n"),
            ("m/n/moved.txt", b"m\n"),
            ("top.txt", b"t\n"),
        ]);
        run(
            &c,
            "--- a/a/b/c/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n\
             diff --git a/m/n/moved.txt b/elsewhere/moved.txt\nsimilarity index 100%\n\
             rename from m/n/moved.txt\nrename to elsewhere/moved.txt\n",
        )
        .unwrap();
        let root = dir.path();
        assert!(!root.join("a/b").exists(), "a/b/c and a/b were left empty");
        assert!(root.join("a/keep.txt").exists(), "a still holds a file");
        assert!(!root.join("m").exists());
        assert!(root.join("elsewhere/moved.txt").exists());
        // The workspace root itself is never removed, even when the patch empties it.
        let (dir, c) = setup(&[("only.txt", b"o\n")]);
        run(
            &c,
            "*** Begin Patch\n*** Delete File: only.txt\n*** End Patch",
        )
        .unwrap();
        assert!(dir.path().is_dir());
        // A directory that another block fills is kept.
        let (dir, c) = setup(&[("d/old.txt", b"o\n")]);
        run(
            &c,
            "*** Begin Patch\n*** Delete File: d/old.txt\n*** Add File: d/new.txt\n+n\n*** End Patch",
        )
        .unwrap();
        assert!(dir.path().join("d/new.txt").exists());
    }

    #[test]
    fn a_failing_hunk_writes_nothing() {
        let (dir, c) = setup(&[("a.txt", b"1\n"), ("b.txt", b"2\n")]);
        let e = run(
            &c,
            "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-1\n+one\n--- a/b.txt\n+++ b/b.txt\n@@ -1 +1 @@\n-9\n+nine\n",
        )
        .unwrap_err();
        assert_eq!(e.code, ErrorCode::PatchFailed);
        assert_eq!(e.fields["file"], "b.txt");
        assert_eq!(e.fields["hunk"], 1);
        assert_eq!(fs::read(dir.path().join("a.txt")).unwrap(), b"1\n");
    }

    #[test]
    fn rules_create_rename_duplicates() {
        let (_dir, c) = setup(&[("a.txt", b"1\n"), ("b.txt", b"2\n")]);
        let e = run(
            &c,
            "*** Begin Patch\n*** Add File: a.txt\n+x\n*** End Patch",
        )
        .unwrap_err();
        assert!(e.message.contains("already exists"), "{}", e.message);
        let e = run(
            &c,
            "*** Begin Patch\n*** Update File: a.txt\n*** Move to: b.txt\n*** End Patch",
        )
        .unwrap_err();
        assert!(
            e.message.contains("destination already exists"),
            "{}",
            e.message
        );
        let e = run(
            &c,
            "*** Begin Patch\n*** Update File: a.txt\n*** Move to: c.txt\n*** Delete File: ./c.txt\n*** End Patch",
        )
        .unwrap_err();
        assert!(e.message.contains("more than one block"), "{}", e.message);
        let e = run(
            &c,
            "*** Begin Patch\n*** Add File: n\n+x\n*** Add File: n/m.txt\n+y\n*** End Patch",
        )
        .unwrap_err();
        assert!(
            e.message.contains("both a file and a directory"),
            "{}",
            e.message
        );
        assert_eq!(e.fields["path"], "n/m.txt");
        let e = run(
            &c,
            "*** Begin Patch\n*** Delete File: zz.txt\n*** End Patch",
        )
        .unwrap_err();
        assert_eq!(e.code, ErrorCode::NotFound);
        assert!(e.message.contains("Add File"), "{}", e.message);
    }
}
