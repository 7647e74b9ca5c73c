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

/// Refuses what the editing tools must not rewrite: a binary file (`is_binary`) and a UTF-16
/// file (`is_binary` with an `encoding` field). UTF-8 — and any other byte-oriented
/// encoding, which is edited byte-exactly — passes.
pub fn check_editable(bytes: &[u8], display: &str) -> ToolResult<()> {
    if looks_binary(bytes) {
        return Err(binary_error(display));
    }
    let encoding = Encoding::detect(bytes);
    if encoding.is_utf16() {
        return Err(ToolError::new(
            ErrorCode::IsBinary,
            format!(
                "{display} is {} text; the editing tools only rewrite UTF-8 files. Convert it to UTF-8 first (e.g. with iconv in bash), or edit it there.",
                encoding.name()
            ),
        )
        .with("path", display)
        .with("encoding", encoding.name()));
    }
    Ok(())
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

/// [`split_lines`] over raw bytes, for files that may not be valid UTF-8: `(line, terminator)`
/// pairs with terminators `\r\n`, `\n` or a lone `\r` (the last one possibly empty). Editing
/// through these slices keeps every untouched byte, whatever the encoding.
pub fn split_byte_lines(bytes: &[u8]) -> ByteLines<'_> {
    ByteLines { rest: bytes }
}

pub struct ByteLines<'a> {
    rest: &'a [u8],
}

impl<'a> Iterator for ByteLines<'a> {
    type Item = (&'a [u8], &'a [u8]);

    fn next(&mut self) -> Option<Self::Item> {
        if self.rest.is_empty() {
            return None;
        }
        let bytes = self.rest;
        let (line, term, used) = match memchr_eol(bytes) {
            Some(i) if bytes[i] == b'\r' && bytes.get(i + 1) == Some(&b'\n') => {
                (&bytes[..i], &bytes[i..i + 2], i + 2)
            }
            Some(i) => (&bytes[..i], &bytes[i..i + 1], i + 1),
            None => (bytes, &bytes[..0], bytes.len()),
        };
        self.rest = &bytes[used..];
        Some((line, term))
    }
}

/// The terminator new lines of a file take: the most frequent of `\n`, `\r\n` and lone `\r`
/// among `terminators` (ties prefer `\n`, then `\r\n`); `\n` when there is none.
pub fn dominant_terminator<'a, I: IntoIterator<Item = &'a [u8]>>(terminators: I) -> &'static str {
    let (mut lf, mut crlf, mut cr) = (0usize, 0usize, 0usize);
    for term in terminators {
        match term {
            b"\n" => lf += 1,
            b"\r\n" => crlf += 1,
            b"\r" => cr += 1,
            _ => {}
        }
    }
    if lf >= crlf && lf >= cr {
        "\n"
    } else if crlf >= cr {
        "\r\n"
    } else {
        "\r"
    }
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
    fn byte_lines_keep_terminators_and_invalid_bytes() {
        let got: Vec<_> = split_byte_lines(b"a\xE9\r\nb\rc\nd").collect();
        let want: [(&[u8], &[u8]); 4] = [
            (b"a\xE9", b"\r\n"),
            (b"b", b"\r"),
            (b"c", b"\n"),
            (b"d", b""),
        ];
        assert_eq!(got, want);
        assert_eq!(split_byte_lines(b"").count(), 0);
        assert_eq!(split_byte_lines(b"x\n").count(), 1);
    }

    #[test]
    fn dominant_terminator_counts_and_breaks_ties() {
        let t = |v: &[&'static [u8]]| dominant_terminator(v.iter().copied());
        assert_eq!(t(&[]), "\n");
        assert_eq!(t(&[b""]), "\n");
        assert_eq!(t(&[b"\r\n", b"\r\n", b"\n"]), "\r\n");
        assert_eq!(t(&[b"\r\n", b"\n"]), "\n");
        assert_eq!(t(&[b"\r", b"\r", b"\r\n"]), "\r");
    }

    #[test]
    fn editable_refuses_binary_and_utf16() {
        assert!(check_editable(b"plain\n", "a").is_ok());
        assert!(check_editable(b"caf\xE9\n", "a").is_ok());
        assert_eq!(
            check_editable(b"a\0b", "a").unwrap_err().code,
            ErrorCode::IsBinary
        );
        let e = check_editable(b"\xFF\xFEa\0", "u").unwrap_err();
        assert_eq!(e.code, ErrorCode::IsBinary);
        assert_eq!(e.fields["encoding"], "utf-16le");
        assert_eq!(e.fields["path"], "u");
    }

    #[test]
    fn normalizes_and_cuts() {
        assert_eq!(normalize_newlines("a\r\nb\rc"), "a\nb\nc");
        assert_eq!(cut_chars("héllo", 2), ("hé", true));
        assert_eq!(cut_chars("hé", 2), ("hé", false));
    }
}
