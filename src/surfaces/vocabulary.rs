//! The engine's error messages in a surface's own words. The engine's hints name its own
//! tools (`read it with read_file`, `use write_file`); a model working through a vendor
//! surface has none of those, so a hint naming one would send it to a tool that does not exist.
//! Each surface maps the engine's names onto its own tools (or the nearest way to do the
//! same); anything the message echoes (a path, a pattern: the envelope's string fields) is
//! left as it is.

use super::Surface;
use crate::error::ToolError;

/// The editing tools Claude Code and cyberpaw share.
const CLAUDE_EDITING: &[(&str, &str)] = &[
    ("read_files", "Read"),
    ("read_file", "Read"),
    ("write_file", "Write"),
    ("edit_file", "Edit"),
    ("multi_edit", "MultiEdit"),
    ("apply_patch", "MultiEdit"),
    ("grep", "Grep"),
];

/// What the engine's tool names become on `surface`. `glob` stays on claude-code and cyberpaw,
/// where it is also Grep's argument (and their Glob differs from it only in case).
fn names(surface: Surface) -> [&'static [(&'static str, &'static str)]; 2] {
    match surface {
        Surface::Codex => [
            &[
                ("read_files", "read_file"),
                ("write_file", "apply_patch (*** Add File)"),
                ("edit_file", "apply_patch"),
                ("multi_edit", "apply_patch"),
                ("grep", "grep_files"),
                ("glob", "list_dir"),
                ("tree", "list_dir"),
                ("file_stat", "shell"),
                ("bash", "shell"),
            ],
            &[],
        ],
        Surface::ClaudeCode => [
            CLAUDE_EDITING,
            &[
                ("list_dir", "Bash (ls)"),
                ("tree", "Glob"),
                ("file_stat", "Bash"),
                ("bash", "Bash"),
            ],
        ],
        Surface::Cyberpaw => [
            CLAUDE_EDITING,
            &[
                ("list_dir", "ListDir"),
                ("tree", "ListDir"),
                ("file_stat", "ListDir"),
                ("bash", "a shell"),
            ],
        ],
        Surface::Anthropic => [
            &[
                ("read_files", "view"),
                ("read_file", "view"),
                ("write_file", "create"),
                ("edit_file", "str_replace"),
                ("multi_edit", "str_replace"),
                ("apply_patch", "str_replace"),
                ("list_dir", "view"),
                ("tree", "view"),
                ("glob", "bash"),
                ("grep", "bash"),
                ("file_stat", "bash"),
            ],
            &[],
        ],
        Surface::Openai => [
            &[
                ("read_files", "shell (cat)"),
                ("read_file", "shell (cat)"),
                ("write_file", "apply_patch create_file"),
                ("edit_file", "apply_patch update_file"),
                ("multi_edit", "apply_patch update_file"),
                ("list_dir", "shell"),
                ("tree", "shell"),
                ("glob", "shell"),
                ("grep", "shell"),
                ("file_stat", "shell"),
                ("bash", "shell"),
            ],
            &[],
        ],
    }
}

/// Whole phrases a surface words its own way, rewritten before the names: replacing a file
/// whole, which neither patch grammar does in one step, and the Codex patch grammar's hints,
/// which the openai surface (V4A operations) does not speak.
fn phrases(surface: Surface) -> &'static [(&'static str, &'static str)] {
    match surface {
        Surface::Codex => &[(
            "to replace it whole, use write_file",
            "to replace it whole, delete it (*** Delete File) and add it again (*** Add File)",
        )],
        Surface::Openai => &[
            (
                "to replace it whole, use write_file",
                "to replace it whole, delete it with a delete_file operation and create it again",
            ),
            (
                "use '*** Add File: ",
                "use an apply_patch create_file operation for '",
            ),
            (
                "an '*** Update File: <path>' block",
                "an apply_patch update_file operation",
            ),
            (
                "'*** Update File: ",
                "an apply_patch update_file operation for '",
            ),
            (
                "'*** Delete File: ",
                "an apply_patch delete_file operation for '",
            ),
        ],
        _ => &[],
    }
}

fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// `err`'s message with the engine's tool names in `surface`'s words.
pub fn message(surface: Surface, err: &ToolError) -> String {
    let echoed: Vec<&str> = err
        .fields
        .values()
        .filter_map(|v| v.as_str())
        .filter(|s| !s.is_empty())
        .collect();
    let mut phrased = err.message.clone();
    for (from, to) in phrases(surface) {
        phrased = phrased.replace(from, to);
    }
    let text = phrased.as_str();
    // Byte ranges the message echoes from its fields: never rewritten.
    let mut kept: Vec<(usize, usize)> = Vec::new();
    for e in &echoed {
        kept.extend(text.match_indices(e).map(|(i, m)| (i, i + m.len())));
    }
    let inside = |at: usize| kept.iter().any(|&(a, b)| a <= at && at < b);
    let bytes = text.as_bytes();
    let table = names(surface);
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < text.len() {
        let before = i.checked_sub(1).map(|j| bytes[j]);
        let starts_word = before.is_none_or(|b| !is_word(b) && b != b'/' && b != b'.' && b != b'-');
        let hit = starts_word && !inside(i);
        let found = hit
            .then(|| {
                table.iter().flat_map(|t| t.iter()).find(|(from, _)| {
                    text[i..].starts_with(from) && {
                        let end = i + from.len();
                        let after = bytes.get(end).copied();
                        // Not part of a longer word, a file name (`grep.txt`) or a path.
                        after.is_none_or(|b| !is_word(b) && b != b'/' && b != b'-')
                            && !(after == Some(b'.')
                                && bytes.get(end + 1).is_some_and(|b| is_word(*b)))
                    }
                })
            })
            .flatten();
        match found {
            Some((from, to)) => {
                out.push_str(to);
                i += from.len();
            }
            None => {
                let c = text[i..].chars().next().unwrap_or('\0');
                out.push(c);
                i += c.len_utf8().max(1);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;

    #[test]
    fn hints_name_the_surfaces_tools_and_echoes_stay() {
        let err = ToolError::new(
            ErrorCode::NoMatch,
            "old_string not found in grep.txt (read it with read_file; use grep or write_file).",
        )
        .with("path", "grep.txt");
        assert_eq!(
            message(Surface::ClaudeCode, &err),
            "old_string not found in grep.txt (read it with Read; use Grep or Write)."
        );
        assert_eq!(
            message(Surface::Codex, &err),
            "old_string not found in grep.txt (read it with read_file; use grep_files or apply_patch (*** Add File))."
        );
        // A path that is not a field still keeps its names: `src/grep.rs`, `read_file.md`.
        let err = ToolError::new(
            ErrorCode::NotFound,
            "No such file: src/grep.rs or read_file.md",
        );
        assert_eq!(
            message(Surface::Anthropic, &err),
            "No such file: src/grep.rs or read_file.md"
        );
        let err = ToolError::invalid_input(
            "Cannot create a.txt: it exists. To create it, use '*** Add File: a.txt'.",
        );
        assert_eq!(
            message(Surface::Openai, &err),
            "Cannot create a.txt: it exists. To create it, use an apply_patch create_file operation for 'a.txt'."
        );
    }
}
