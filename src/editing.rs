//! The editing mechanics `edit_file` and `multi_edit` share: loading a file the way the editing
//! tools may rewrite it, and applying one `old_string` → `new_string` edit to its text.
//!
//! An edit works on the file's text with every terminator seen as `\n` (so a model's `\n`
//! matches a CRLF file), finds the region with [`crate::matching::find`], and splices the
//! replacement into the original text: every byte outside the replaced regions is kept, lines
//! of the replacement that stand for replaced lines keep their own terminators, and added lines
//! get the file's dominant one ([`crate::text::NewlineView::splice`]).

use crate::atomic;
use crate::config::Config;
use crate::confine::WorkPath;
use crate::error::{ErrorCode, ToolError, ToolResult};
use crate::matching;
use crate::text::{self, normalize_newlines, Editable, NewlineView};

/// Loads an existing file for editing: refuses a symlink (`invalid_input`), a directory
/// (`not_a_file`), a missing file (`not_found`), an oversized one (`too_large`), and what
/// cannot be written back byte-exactly (`is_binary`: binary, UTF-16, not UTF-8).
/// Call it under the path's lock.
pub fn load(path: &WorkPath, config: &Config) -> ToolResult<Editable> {
    let target = if config.contract_exact() {
        // The reference's shared reader stats the file and words a failure as fsError does
        // (CONTRACT-v0.5-wording §4).
        atomic::check_target_with(path, |e| {
            crate::error::node_fs_error(&e, &path.input, "stat", &path.abs)
        })?
    } else {
        atomic::check_target(path)?
    };
    if target.is_none() {
        // The root says exactly `No such file: <input>` (CONTRACT-v0.5 §2); elsewhere the
        // engine adds what to do.
        let (message, shown) = if config.contract_exact() {
            (format!("No such file: {}", path.input), &path.input)
        } else {
            (
                format!(
                    "No such file: {}. Check the path with glob or list_dir; to create a file, use write_file.",
                    path.display
                ),
                &path.display,
            )
        };
        return Err(ToolError::new(ErrorCode::NotFound, message).with("path", shown.as_str()));
    }
    let bytes = text::read_capped(path, config)?;
    text::decode_editable(bytes, &path.display)
}

/// Refuses an edit that could change nothing: `new_string` equal to `old_string` (also when
/// they differ only in line-ending style).
pub fn check_pair(old: &str, new: &str) -> ToolResult<()> {
    if old == new || normalize_newlines(old) == normalize_newlines(new) {
        return Err(ToolError::invalid_input(
            "new_string is identical to old_string, so the edit would change nothing: give the replacement text in new_string",
        )
        .with("field", "new_string"));
    }
    Ok(())
}

/// For a file that is not valid UTF-8 ([`Editable::raw_bytes`]), refuses what could not be
/// edited byte-exactly, as apply_patch does for added lines: U+FFFD in `old_string` (read_file's
/// stand-in for bytes it cannot decode, which never matches those bytes) and non-ASCII text in
/// `new_string` (it would be written as UTF-8 into a file in another encoding). ASCII is the
/// same bytes in every such encoding.
pub fn check_raw(file: &Editable, old: &str, new: &str, display: &str) -> ToolResult<()> {
    if !file.raw_bytes {
        return Ok(());
    }
    let why = if old.contains('\u{FFFD}') {
        "old_string contains U+FFFD (\u{FFFD}), the stand-in read_file shows for the bytes it cannot decode; it cannot match those bytes. Choose an old_string next to them rather than across them"
    } else if !new.is_ascii() {
        "new_string contains non-ASCII text, which would be written as UTF-8 into a file in another encoding (Latin-1, Shift_JIS, …). Keep new_string ASCII, or convert the file to UTF-8 first (e.g. iconv through bash)"
    } else {
        return Ok(());
    };
    Err(ToolError::invalid_input(format!(
        "{display} is not valid UTF-8 (its undecodable bytes are kept exactly as they are), and {why}. Nothing was written."
    ))
    .with("path", display))
}

/// The terminator added lines get: the file's dominant one ([`text::dominant_terminator_in`]).
/// Only a replacement with a line break can add a line, so the scan of the whole file is
/// skipped when no `new_string` has one.
pub fn dominant_for<'s>(
    text: &str,
    mut new_strings: impl Iterator<Item = &'s str>,
) -> &'static str {
    if new_strings.any(|n| n.contains(['\n', '\r'])) {
        text::dominant_terminator_in(text)
    } else {
        "\n"
    }
}

/// What one edit did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Applied {
    /// How many occurrences were replaced.
    pub count: usize,
    /// A whitespace-tolerant tier (not the exact search) found the region: the tool's message
    /// says so and asks to verify the result.
    pub tolerant: bool,
}

/// Replaces `old` with `new` in `text` (exact and unique, every exact occurrence with
/// `replace_all`, or one tolerant match). Added lines get `dominant`, the terminator of the
/// file as it was loaded ([`dominant_for`], computed once per call). `display` names the file
/// in messages.
pub fn apply(
    text: &mut String,
    old: &str,
    new: &str,
    replace_all: bool,
    dominant: &str,
    display: &str,
) -> ToolResult<Applied> {
    let (old, new) = (normalize_newlines(old), normalize_newlines(new));
    let view = NewlineView::new(text);
    let found = matching::find(view.text(), &old, &new, replace_all, display)?;
    let replacements: Vec<(usize, usize, &str)> = found
        .regions
        .iter()
        .map(|r| (r.start, r.end, r.replacement.as_str()))
        .collect();
    let rendered = view.render(&replacements, dominant);
    drop(view);
    text::apply_rendered(text, rendered);
    Ok(Applied {
        count: found.regions.len(),
        tolerant: found.tolerant(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(text: &str, old: &str, new: &str) -> ToolResult<(String, Applied)> {
        let mut t = text.to_string();
        let dominant = text::dominant_terminator_in(text);
        let a = apply(&mut t, old, new, false, dominant, "f")?;
        Ok((t, a))
    }

    #[test]
    fn crlf_file_edited_with_lf_strings() {
        let (out, a) = run("a\r\nb\r\nc\r\n", "b\nc", "B\nC\nD").unwrap();
        assert_eq!(out, "a\r\nB\r\nC\r\nD\r\n");
        assert_eq!(
            a,
            Applied {
                count: 1,
                tolerant: false
            }
        );
    }

    #[test]
    fn lone_cr_and_mixed_files_keep_every_untouched_terminator() {
        let (out, _) = run("x\ry\rz\r", "y", "Y\nY2").unwrap();
        assert_eq!(out, "x\rY\rY2\rz\r");
        let (out, _) = run("1\r\n2\n3\r4\r\n", "2\n3", "two\nthree").unwrap();
        assert_eq!(out, "1\r\ntwo\nthree\r4\r\n");
    }

    #[test]
    fn tolerant_matches_are_flagged() {
        let (out, a) = run("    x = 1\n", "x = 1 \n", "    x = 2\n").unwrap();
        assert_eq!(out, "    x = 2\n");
        assert!(a.tolerant);
        // A CRLF file: the matched whole line (indentation included) becomes new_string.
        let (out, a) = run("a\r\n    x = 1\r\nb\r\n", "x = 1 \n", "y = 2\n").unwrap();
        assert_eq!(out, "a\r\ny = 2\r\nb\r\n");
        assert!(a.tolerant);
    }

    #[test]
    fn replace_all_in_a_crlf_file() {
        let mut t = "a\r\nx\r\na\r\n".to_string();
        let d = dominant_for(&t, ["b\nc"].into_iter());
        assert_eq!(d, "\r\n");
        let a = apply(&mut t, "a", "b\nc", true, d, "f").unwrap();
        assert_eq!(a.count, 2);
        assert_eq!(t, "b\r\nc\r\nx\r\nb\r\nc\r\n");
        assert_eq!(dominant_for("a\r\n", ["no break"].into_iter()), "\n");
    }

    /// Random mixed-ending texts: an edit never panics, and the bytes before and after the
    /// replaced region are the original ones.
    #[test]
    fn random_mixed_endings_keep_untouched_bytes() {
        let pieces = ["a", "b", " ", "\r\n", "\n", "\r", "é", "\t"];
        let mut rng = crate::testutil::XorShift::new(0x2545_F491_4F6C_DD1D);
        let mut next = move |n: usize| rng.below(n);
        for _ in 0..3000 {
            let (tl, ol, nl) = (next(40), 1 + next(6), next(6));
            let mut gen =
                |len: usize| -> String { (0..len).map(|_| pieces[next(pieces.len())]).collect() };
            let (text, old, new) = (gen(tl), gen(ol), gen(nl));
            if check_pair(&old, &new).is_err() {
                continue;
            }
            let mut edited = text.clone();
            let dominant = dominant_for(&text, [new.as_str()].into_iter());
            let Ok(a) = apply(&mut edited, &old, &new, false, dominant, "f") else {
                continue;
            };
            if a.tolerant {
                continue;
            }
            // An exact match: everything outside the region is untouched.
            let view = NewlineView::new(&text);
            let norm_old = normalize_newlines(&old);
            let at = view.text().find(norm_old.as_ref()).unwrap();
            let (start, end) = (view.to_original(at), view.to_original(at + norm_old.len()));
            assert!(
                edited.starts_with(&text[..start]),
                "{text:?} {old:?} {new:?} -> {edited:?}"
            );
            assert!(
                edited.ends_with(&text[end..]),
                "{text:?} {old:?} {new:?} -> {edited:?}"
            );
            // And the lines are the old ones around the new ones: no line break merged with
            // another (a lone CR meeting an LF), except where the edit deletes everything
            // between an untouched lone CR and an untouched LF.
            if new.is_empty() && text[..start].ends_with('\r') && text[end..].starts_with('\n') {
                continue;
            }
            let want = format!(
                "{}{}{}",
                normalize_newlines(&text[..start]),
                normalize_newlines(&new),
                normalize_newlines(&text[end..])
            );
            assert_eq!(
                normalize_newlines(&edited),
                want,
                "{text:?} {old:?} {new:?} -> {edited:?}"
            );
        }
    }

    #[test]
    fn non_utf8_files_are_edited_byte_exactly() {
        let bytes = b"caf\xE9\r\nold\r\n\x82\n".to_vec();
        let mut file = text::decode_editable(bytes, "f").unwrap();
        assert!(check_raw(&file, "old", "new\nline", "f").is_ok());
        let d = dominant_for(&file.text, ["new\nline"].into_iter());
        apply(&mut file.text, "old", "new\nline", false, d, "f").unwrap();
        assert_eq!(file.into_bytes(), b"caf\xE9\r\nnew\r\nline\r\n\x82\n");
        let file = text::decode_editable(b"caf\xE9\n".to_vec(), "f").unwrap();
        let e = check_raw(&file, "caf\u{FFFD}", "x", "f").unwrap_err();
        assert!(e.message.contains("U+FFFD"), "{}", e.message);
        let e = check_raw(&file, "caf", "café", "f").unwrap_err();
        assert!(e.message.contains("non-ASCII"), "{}", e.message);
        let utf8 = text::decode_editable("café\n".as_bytes().to_vec(), "f").unwrap();
        assert!(check_raw(&utf8, "caf\u{FFFD}", "café", "f").is_ok());
    }

    #[test]
    fn identical_pairs_are_refused() {
        assert!(check_pair("a", "a").is_err());
        assert!(check_pair("a\r\nb", "a\nb").is_err());
        assert!(check_pair("a", "b").is_ok());
    }
}
