//! Text: loading a file under the size cap, binary detection, decoding (UTF-8 with or without
//! BOM, UTF-16 LE/BE with BOM), and line splitting that keeps each line's own terminator.

use std::borrow::Cow;
use std::fs;
use std::io::Read;

use crate::config::Config;
use crate::error::{io_err, ErrorCode, ToolError, ToolResult};
use crate::paths::WorkPath;

/// How many bytes at each end of a file are probed for a NUL byte.
pub const BINARY_PROBE_BYTES: usize = 8000;

const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";
const UTF16LE_BOM: &[u8] = b"\xFF\xFE";
const UTF16BE_BOM: &[u8] = b"\xFE\xFF";

/// The encoding a file was decoded from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    /// UTF-8; `bom` says whether the file starts with a byte-order mark.
    Utf8 {
        bom: bool,
    },
    Utf16Le,
    Utf16Be,
}

impl Encoding {
    /// Sniffs the byte-order mark.
    pub fn detect(bytes: &[u8]) -> Encoding {
        if bytes.starts_with(UTF16LE_BOM) {
            Encoding::Utf16Le
        } else if bytes.starts_with(UTF16BE_BOM) {
            Encoding::Utf16Be
        } else {
            Encoding::Utf8 {
                bom: bytes.starts_with(UTF8_BOM),
            }
        }
    }

    /// The name reported in the `encoding` field of errors.
    pub fn name(self) -> &'static str {
        match self {
            Encoding::Utf8 { bom: false } => "utf-8",
            Encoding::Utf8 { bom: true } => "utf-8-bom",
            Encoding::Utf16Le => "utf-16le",
            Encoding::Utf16Be => "utf-16be",
        }
    }

    pub fn is_utf16(self) -> bool {
        matches!(self, Encoding::Utf16Le | Encoding::Utf16Be)
    }
}

/// A NUL byte in the first or last 8000 bytes, unless the file starts with a UTF-16 BOM.
pub fn looks_binary(bytes: &[u8]) -> bool {
    if Encoding::detect(bytes).is_utf16() {
        return false;
    }
    let head = &bytes[..bytes.len().min(BINARY_PROBE_BYTES)];
    let tail = &bytes[bytes.len().saturating_sub(BINARY_PROBE_BYTES)..];
    head.contains(&0) || tail.contains(&0)
}

/// Decoded file text (BOM stripped, terminators untouched) and where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decoded {
    pub text: String,
    pub encoding: Encoding,
    /// Invalid UTF-8 was replaced with U+FFFD: fine to display, never to write back.
    pub lossy: bool,
}

/// Decodes bytes by their BOM; invalid UTF-8 is replaced (and flagged as `lossy`).
pub fn decode(bytes: &[u8]) -> Decoded {
    let encoding = Encoding::detect(bytes);
    let (text, lossy) = match encoding {
        Encoding::Utf8 { bom } => {
            let body = if bom { &bytes[UTF8_BOM.len()..] } else { bytes };
            match String::from_utf8_lossy(body) {
                Cow::Borrowed(s) => (s.to_string(), false),
                Cow::Owned(s) => (s, true),
            }
        }
        Encoding::Utf16Le | Encoding::Utf16Be => {
            let codec = if encoding == Encoding::Utf16Le {
                encoding_rs::UTF_16LE
            } else {
                encoding_rs::UTF_16BE
            };
            let (text, had_errors) = codec.decode_without_bom_handling(&bytes[2..]);
            (text.into_owned(), had_errors)
        }
    };
    Decoded {
        text,
        encoding,
        lossy,
    }
}

/// Reads a regular file under the `maxFileBytes` cap.
/// Errors: `not_found`, `not_a_file` (a directory), `too_large` (with `size` and `limit`).
pub fn read_capped(path: &WorkPath, config: &Config) -> ToolResult<Vec<u8>> {
    let meta = fs::metadata(&path.abs).map_err(|e| io_err(e, &path.display))?;
    if meta.is_dir() {
        return Err(ToolError::new(
            ErrorCode::NotAFile,
            format!(
                "Not a file: {} is a directory. Use list_dir to see its entries.",
                path.display
            ),
        )
        .with("path", path.display.as_str()));
    }
    if meta.len() > config.max_file_bytes {
        return Err(too_large(&path.display, meta.len(), config.max_file_bytes));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    let file = fs::File::open(&path.abs).map_err(|e| io_err(e, &path.display))?;
    // Read at most one byte past the cap: the file may have grown since the stat.
    file.take(config.max_file_bytes + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| io_err(e, &path.display))?;
    if bytes.len() as u64 > config.max_file_bytes {
        return Err(too_large(
            &path.display,
            bytes.len() as u64,
            config.max_file_bytes,
        ));
    }
    Ok(bytes)
}

/// The `too_large` error with its `size` and `limit` fields.
pub fn too_large(display: &str, size: u64, limit: u64) -> ToolError {
    ToolError::new(
        ErrorCode::TooLarge,
        format!(
            "File too large: {display} is {size} bytes, over the {limit}-byte limit (maxFileBytes). Search it with grep instead, or raise maxFileBytes."
        ),
    )
    .with("path", display)
    .with("size", size)
    .with("limit", limit)
}

/// The `is_binary` error for a file with NUL bytes.
pub fn binary_error(display: &str) -> ToolError {
    ToolError::new(
        ErrorCode::IsBinary,
        format!(
            "{display} looks like a binary file (it contains NUL bytes); it is not shown as text."
        ),
    )
    .with("path", display)
}

/// Reads and decodes a text file for display: the capped read, then binary refusal.
pub fn read_text(path: &WorkPath, config: &Config) -> ToolResult<Decoded> {
    let bytes = read_capped(path, config)?;
    if looks_binary(&bytes) {
        return Err(binary_error(&path.display));
    }
    Ok(decode(&bytes))
}

/// Splits text into `(line, terminator)` pairs; terminators are `\r\n`, `\n` or a lone `\r`,
/// and the last line's terminator may be empty. Text ending in a terminator has no empty
/// last line, and empty text has no lines.
pub fn split_lines(text: &str) -> Lines<'_> {
    Lines { rest: text }
}

pub struct Lines<'a> {
    rest: &'a str,
}

impl<'a> Iterator for Lines<'a> {
    type Item = (&'a str, &'a str);

    fn next(&mut self) -> Option<Self::Item> {
        if self.rest.is_empty() {
            return None;
        }
        let bytes = self.rest.as_bytes();
        let (line, term, used) = match memchr_eol(bytes) {
            Some(i) if bytes[i] == b'\r' && bytes.get(i + 1) == Some(&b'\n') => {
                (&self.rest[..i], &self.rest[i..i + 2], i + 2)
            }
            Some(i) => (&self.rest[..i], &self.rest[i..i + 1], i + 1),
            None => (self.rest, "", self.rest.len()),
        };
        self.rest = &self.rest[used..];
        Some((line, term))
    }
}

fn memchr_eol(bytes: &[u8]) -> Option<usize> {
    bytes.iter().position(|&b| b == b'\n' || b == b'\r')
}

/// Every terminator (`\r\n`, lone `\r`) turned into `\n`.
pub fn normalize_newlines(text: &str) -> Cow<'_, str> {
    if !text.contains('\r') {
        return Cow::Borrowed(text);
    }
    Cow::Owned(text.replace("\r\n", "\n").replace('\r', "\n"))
}

/// Cuts `line` to at most `max_chars` characters; returns the kept prefix and whether it cut.
pub fn cut_chars(line: &str, max_chars: usize) -> (&str, bool) {
    match line.char_indices().nth(max_chars) {
        Some((byte, _)) => (&line[..byte], true),
        None => (line, false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binary_detection_probes_both_ends_and_spares_utf16() {
        assert!(looks_binary(b"ab\0cd"));
        let mut big = vec![b'a'; 20_000];
        big[19_999] = 0;
        assert!(looks_binary(&big));
        big[19_999] = b'a';
        big[10_000] = 0;
        assert!(!looks_binary(&big), "a NUL in the middle is not probed");
        assert!(!looks_binary(b"\xFF\xFEa\0b\0"));
    }

    #[test]
    fn decodes_boms() {
        let d = decode(b"\xEF\xBB\xBFhi");
        assert_eq!(d.text, "hi");
        assert_eq!(d.encoding, Encoding::Utf8 { bom: true });
        let d = decode(b"\xFF\xFEh\0i\0");
        assert_eq!((d.text.as_str(), d.encoding), ("hi", Encoding::Utf16Le));
        let d = decode(b"\xFE\xFF\0h\0i");
        assert_eq!((d.text.as_str(), d.encoding), ("hi", Encoding::Utf16Be));
        let d = decode(b"caf\xE9");
        assert!(d.lossy);
        assert_eq!(d.text, "caf\u{FFFD}");
    }

    #[test]
    fn lines_keep_their_terminators() {
        let got: Vec<_> = split_lines("a\r\nb\rc\nd").collect();
        assert_eq!(got, [("a", "\r\n"), ("b", "\r"), ("c", "\n"), ("d", "")]);
        assert_eq!(split_lines("").count(), 0);
        assert_eq!(split_lines("\n").collect::<Vec<_>>(), [("", "\n")]);
        assert_eq!(split_lines("x\n").count(), 1);
    }

    #[test]
    fn normalizes_and_cuts() {
        assert_eq!(normalize_newlines("a\r\nb\rc"), "a\nb\nc");
        assert_eq!(cut_chars("héllo", 2), ("hé", true));
        assert_eq!(cut_chars("hé", 2), ("hé", false));
    }
}
