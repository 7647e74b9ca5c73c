//! Text: loading a file under the size cap, binary detection, decoding (UTF-8 with or without
//! BOM, UTF-16 LE/BE with BOM), and line splitting that keeps each line's own terminator.

use std::borrow::Cow;
use std::fs;
use std::io::{self, Read};

use crate::config::Config;
use crate::confine::WorkPath;
use crate::error::{io_err, ErrorCode, ToolError, ToolResult};

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
    looks_binary_ends(bytes, bytes)
}

/// [`looks_binary`] of a file known by its start (`head`) and its end (`tail`): only the first
/// and last [`BINARY_PROBE_BYTES`] bytes are looked at.
pub fn looks_binary_ends(head: &[u8], tail: &[u8]) -> bool {
    !Encoding::detect(head).is_utf16() && has_nul_ends(head, tail)
}

/// A NUL byte in the first or last [`BINARY_PROBE_BYTES`] bytes, whatever the file starts
/// with: the NUL check with no UTF-16 exception (a UTF-16 file with ASCII text is binary by it).
pub fn has_nul_ends(head: &[u8], tail: &[u8]) -> bool {
    let head = &head[..head.len().min(BINARY_PROBE_BYTES)];
    let tail = &tail[tail.len().saturating_sub(BINARY_PROBE_BYTES)..];
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

/// What a failed open of a file to read is, as the shared reader reports it: a directory is
/// `not_a_file`; at the root, a failed stat is fsError's text and a file that stats but may not
/// be opened is `internal` (CONTRACT-v0.5-wording §4).
pub fn open_failure(config: &Config, path: &WorkPath, e: &io::Error) -> ToolError {
    let stat = crate::confine::stat(path);
    // Some platforms refuse to open a directory at all; it is still `not_a_file`.
    if stat.as_ref().is_ok_and(|m| m.is_dir()) {
        ToolError::is_a_directory(&path.input)
    } else if let (Err(st), true) = (&stat, config.contract_exact()) {
        // The reference stats the file first and words that failure as fsError does
        // (CONTRACT-v0.5-wording §4).
        crate::error::node_fs_error(st, &path.input, "stat", &path.abs)
    } else if config.contract_exact() && is_access_denied(e) {
        // A file that stats but may not be opened: the reference wraps only its stat in
        // fsError, so its open failure is not a ToolError: `internal`, the detail in the
        // warn sink once the error reaches the caller (wording §4).
        ToolError::internal_because(format!(
            "Error: {}",
            crate::error::node_fs_error(e, &path.input, "open", &path.abs)
                .message
                .split_once(": ")
                .map_or("", |(_, node)| node)
        ))
    } else {
        crate::error::ToolError::from_io(e, &path.input)
    }
}

/// An open refused for lack of permission by the system (`EACCES` / `EPERM`), not by the
/// workspace's own link policy.
fn is_access_denied(err: &io::Error) -> bool {
    err.kind() == io::ErrorKind::PermissionDenied && err.raw_os_error().is_some()
}

/// Reads a regular file under the `maxFileBytes` cap.
/// Errors: `not_found`, `not_a_file` (a directory), `too_large` (with `size` and `limit`).
pub fn read_capped(path: &WorkPath, config: &Config) -> ToolResult<Vec<u8>> {
    read_capped_with(path, config, &mut |_, _| {})
}

/// [`read_capped`] that shows `on_read` the bytes read so far after each piece of a large
/// file, and all of them at the end (`true`): a caller can scan each piece while it is still in
/// the cache ([`IndexBuilder`]). A small file is read at once, and shown once.
pub fn read_capped_with(
    path: &WorkPath,
    config: &Config,
    on_read: &mut dyn FnMut(&[u8], bool),
) -> ToolResult<Vec<u8>> {
    // Open first and judge the opened file: one stat, and no window in which the path could
    // be swapped for a FIFO or device between the check and the read.
    let file = crate::confine::open_read(path).map_err(|e| open_failure(config, path, &e))?;
    let meta = file.metadata().map_err(|e| io_err(e, &path.input))?;
    if meta.is_dir() {
        return Err(ToolError::is_a_directory(&path.input));
    }
    if !meta.is_file() {
        return Err(not_regular(&path.display));
    }
    if meta.len() > config.max_file_bytes {
        return Err(too_large(
            config,
            &path.input,
            meta.len(),
            config.max_file_bytes,
        ));
    }
    let bytes = read_sized(file, meta.len(), config.max_file_bytes, on_read)
        .map_err(|e| io_err(e, &path.input))?;
    if bytes.len() as u64 > config.max_file_bytes {
        return Err(too_large(
            config,
            &path.input,
            bytes.len() as u64,
            config.max_file_bytes,
        ));
    }
    Ok(bytes)
}

/// Files up to this size are read into a zeroed buffer of their size (plus one byte), which
/// usually takes one `read`; larger ones go through `read_to_end` (no memset of megabytes).
const SMALL_FILE: u64 = 1 << 20;

/// Reads a regular file whose `fstat` said `len` bytes, at most one byte past `max` (the file
/// may have grown since). A small file takes one `read` where `read_to_end` takes two: a read
/// that stops at the size the file had is its end, so no second read is made to see 0.
fn read_sized(
    mut file: fs::File,
    len: u64,
    max: u64,
    on_read: &mut dyn FnMut(&[u8], bool),
) -> io::Result<Vec<u8>> {
    let cap = max.saturating_add(1);
    if len >= SMALL_FILE {
        // One byte past the size: the read that finds the end takes no reallocation (nor a
        // copy of the whole file into a buffer twice its size).
        let mut bytes = Vec::with_capacity((len + 1).min(cap) as usize);
        crate::memory::huge_pages(&mut bytes);
        // In pieces, each shown to `on_read` while it is in the cache, up to the end or the cap.
        while (bytes.len() as u64) < cap {
            if bytes.len() == bytes.capacity() {
                // It grew since the stat.
                bytes.reserve(READ_PIECE as usize);
            }
            let room = (bytes.capacity() - bytes.len()) as u64;
            let want = READ_PIECE.min(room).min(cap - bytes.len() as u64) as usize;
            if read_more(&file, &mut bytes, want)? == 0 {
                break;
            }
            on_read(&bytes, false);
        }
        on_read(&bytes, true);
        return Ok(bytes);
    }
    // One byte more than the size: a read that fills it shows the file grew.
    let want = (len + 1).min(cap) as usize;
    let mut bytes = vec![0; want];
    let mut got = 0;
    loop {
        match file.read(&mut bytes[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
        if got == want {
            // It grew: the rest the usual way, still under the cap.
            (&mut file).take(cap - got as u64).read_to_end(&mut bytes)?;
            on_read(&bytes, true);
            return Ok(bytes);
        }
        if got as u64 >= len {
            break;
        }
    }
    bytes.truncate(got);
    on_read(&bytes, true);
    Ok(bytes)
}

/// Reads at most `want` more bytes onto the end of `bytes` (which has room for them), without
/// zeroing the room first: one `read`. How many it read; 0 at the end of the file.
#[cfg(unix)]
fn read_more(file: &fs::File, bytes: &mut Vec<u8>, want: usize) -> io::Result<usize> {
    let room = &mut bytes.spare_capacity_mut()[..want];
    let read = loop {
        match rustix::io::read(file, &mut *room) {
            Ok((filled, _)) => break filled.len(),
            Err(rustix::io::Errno::INTR) => continue,
            Err(e) => return Err(e.into()),
        }
    };
    // SAFETY: `read` returned `read` bytes of the spare capacity as initialized.
    unsafe { bytes.set_len(bytes.len() + read) };
    Ok(read)
}

/// [`read_more`] through std (`read_to_end` may take several reads).
#[cfg(not(unix))]
fn read_more(mut file: &fs::File, bytes: &mut Vec<u8>, want: usize) -> io::Result<usize> {
    file.take(want as u64).read_to_end(bytes)
}

/// The piece a large file is read in: small enough to be still in the cache when
/// [`read_capped_with`]'s caller scans it.
const READ_PIECE: u64 = 1 << 20;

/// Opens for reading without ever blocking: opening a FIFO with no writer would otherwise
/// hang the call (and hold any lock taken for it) forever. Regular files ignore the flag.
pub fn open_nonblocking(path: &std::path::Path) -> std::io::Result<fs::File> {
    let mut options = fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(nix::libc::O_NONBLOCK);
    }
    options.open(path)
}

fn not_regular(display: &str) -> ToolError {
    ToolError::new(
        ErrorCode::NotAFile,
        format!("Not a regular file: {display} is a FIFO, socket or device; the tools read and edit regular files only."),
    )
    .with("path", display)
}

/// The `too_large` error with its `size` and `limit` fields: at the root the newest
/// contract's text (CONTRACT-v0.5 §2), elsewhere the engine's, which suggests grep.
pub fn too_large(config: &Config, display: &str, size: u64, limit: u64) -> ToolError {
    let message = if config.contract_exact() {
        format!(
            "File is {size} bytes, exceeding the {limit}-byte limit (raise MAX_FILE_BYTES): {display}"
        )
    } else {
        format!(
            "File too large: {display} is {size} bytes, over the {limit}-byte limit (maxFileBytes). Search it with grep instead, or raise maxFileBytes."
        )
    };
    ToolError::new(ErrorCode::TooLarge, message)
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
    memchr::memchr2(b'\n', b'\r', bytes)
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

/// The UTF-8 text of a file's bytes without its byte-order mark, or `None` for a UTF-16 file
/// (which must be decoded whole).
pub fn utf8_body(bytes: &[u8]) -> Option<&[u8]> {
    match Encoding::detect(bytes) {
        Encoding::Utf8 { bom } => Some(if bom { &bytes[UTF8_BOM.len()..] } else { bytes }),
        Encoding::Utf16Le | Encoding::Utf16Be => None,
    }
}

/// How many line terminators `bytes` holds (`\r\n` counts once, a lone `\r` too), with SIMD
/// counts and no per-line work when the text has no `\r`.
pub fn count_terminators(bytes: &[u8]) -> usize {
    blocks(bytes)
        .map(|(_, block)| block_terminators(block))
        .sum()
}

/// [`count_terminators`] of one block small enough to stay in cache between its scans.
fn block_terminators(block: &[u8]) -> usize {
    let lf = memchr::memchr_iter(b'\n', block).count();
    if memchr::memchr(b'\r', block).is_none() {
        return lf;
    }
    let cr = memchr::memchr_iter(b'\r', block).count();
    lf + cr - memchr::memmem::find_iter(block, b"\r\n").count()
}

/// Bytes a counting pass takes at a time: small enough that the second scan of a block (for
/// `\r`) reads it from cache, not memory.
const BLOCK: usize = 64 * 1024;

/// `bytes` in [`BLOCK`]-sized pieces with their offsets; a piece never ends between the two
/// bytes of a `\r\n`.
fn blocks(bytes: &[u8]) -> impl Iterator<Item = (usize, &[u8])> {
    let mut pos = 0;
    std::iter::from_fn(move || {
        if pos >= bytes.len() {
            return None;
        }
        let mut end = (pos + BLOCK).min(bytes.len());
        if bytes[end - 1] == b'\r' && bytes.get(end) == Some(&b'\n') {
            end += 1;
        }
        let block = (pos, &bytes[pos..end]);
        pos = end;
        Some(block)
    })
}

/// How many lines [`split_byte_lines`] yields for `bytes`, without splitting them.
pub fn count_lines(bytes: &[u8]) -> usize {
    count_terminators(bytes) + usize::from(unterminated(bytes))
}

fn unterminated(bytes: &[u8]) -> bool {
    !matches!(bytes.last(), None | Some(b'\n' | b'\r'))
}

/// The lines of a text, counted in one pass that also remembers where each block starts, so
/// that any line's start is then found by walking at most one block.
pub struct LineIndex<'a> {
    bytes: &'a [u8],
    /// [`count_lines`] of `bytes`.
    pub total: usize,
    /// Each block's first byte and the terminators before it.
    marks: Vec<(usize, usize)>,
}

impl<'a> LineIndex<'a> {
    pub fn new(bytes: &'a [u8]) -> LineIndex<'a> {
        let mut builder = IndexBuilder::default();
        builder.feed(bytes, true);
        builder.finish(bytes)
    }

    /// Where 0-based line `n` starts; `bytes.len()` when `n >= total`.
    pub fn start(&self, n: usize) -> usize {
        if n == 0 || n >= self.total {
            return if n == 0 { 0 } else { self.bytes.len() };
        }
        // Line `n` starts after the `n`th terminator: in the last block with fewer before it.
        let i = self.marks.partition_point(|&(_, before)| before < n) - 1;
        let (mut pos, before) = self.marks[i];
        // Each item ends at one terminator (the first may start mid-line).
        for (line, term) in split_byte_lines(&self.bytes[pos..]).take(n - before) {
            pos += line.len() + term.len();
        }
        pos
    }
}

/// A [`LineIndex`] built block by block while its text arrives (a file read in pieces):
/// [`feed`](Self::feed) the text so far after each piece, then with `done`, and
/// [`finish`](Self::finish) with the whole text. The blocks are [`blocks`]' own.
#[derive(Debug, Default)]
pub struct IndexBuilder {
    /// Where the next block starts.
    pos: usize,
    terminators: usize,
    marks: Vec<(usize, usize)>,
}

impl IndexBuilder {
    /// Counts the blocks of `text` (all of the text so far) not counted yet: those whose end is
    /// known (a byte follows it, so a `\r\n` across it is seen), and every one once `done`.
    pub fn feed(&mut self, text: &[u8], done: bool) {
        while self.pos < text.len() {
            let mut end = self.pos + BLOCK;
            if end >= text.len() {
                if !done {
                    return;
                }
                end = text.len();
            } else if text[end - 1] == b'\r' && text[end] == b'\n' {
                end += 1;
            }
            self.marks.push((self.pos, self.terminators));
            self.terminators += block_terminators(&text[self.pos..end]);
            self.pos = end;
        }
    }

    /// The index of `text`, which was fed whole with `done`.
    pub fn finish<'t>(self, text: &'t [u8]) -> LineIndex<'t> {
        debug_assert_eq!(self.pos, text.len());
        LineIndex {
            bytes: text,
            total: self.terminators + usize::from(unterminated(text)),
            marks: self.marks,
        }
    }

    /// Whether every block of a text of `len` bytes was counted.
    pub fn covers(&self, len: usize) -> bool {
        self.pos == len
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

/// The text holds a `\r`. The memchr crate's search, not `str::contains(char)`: core's byte
/// search is word-at-a-time, several times slower on a whole file (multi_edit asks once per
/// edit, and it was half of a 50-edit call on a 400 KB file).
pub fn has_cr(text: &str) -> bool {
    memchr::memchr(b'\r', text.as_bytes()).is_some()
}

/// Every terminator (`\r\n`, lone `\r`) turned into `\n`.
pub fn normalize_newlines(text: &str) -> Cow<'_, str> {
    if !has_cr(text) {
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

/// JavaScript's white space and line terminators: what `\s` matches and what
/// `String.prototype.trim` removes (U+FEFF included, U+0085 not).
pub fn is_js_space(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{b}' | '\u{c}' | '\r' | ' ' | '\u{a0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200a}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202f}'
                | '\u{205f}'
                | '\u{3000}'
                | '\u{feff}'
    )
}

/// JavaScript's `s.trim()`.
pub fn js_trim(s: &str) -> &str {
    s.trim_matches(is_js_space)
}

/// Like [`cut_chars`], counting UTF-16 code units as JavaScript's `length` does: the line is cut
/// to `max_units`, or one unit less where a character outside the BMP would be split.
pub fn cut_utf16_units(line: &str, max_units: usize) -> (&str, bool) {
    let mut units = 0;
    for (byte, c) in line.char_indices() {
        units += c.len_utf16();
        if units > max_units {
            return (&line[..byte], true);
        }
    }
    (line, false)
}

// ---------------------------------------------------------------------------------------------
// Editing: the text the mutating tools rewrite, and how it goes back to bytes.

/// A file the editing tools may rewrite, as text: its BOM (if any) stripped and remembered,
/// every line terminator untouched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Editable {
    pub bom: bool,
    pub text: String,
    /// The file is not valid UTF-8 (Latin-1, Shift_JIS, …): each byte that does not decode is
    /// held in `text` as the character [`raw_byte_char`] and written back as that very byte.
    pub raw_bytes: bool,
}

/// The first of the 256 characters (U+10FF00 + byte, plane 16's private use area) that stand
/// for undecodable bytes in an [`Editable`].
const RAW_BYTE_BASE: u32 = 0x10_FF00;

/// The character that holds undecodable byte `b` in an [`Editable`]'s text.
pub fn raw_byte_char(b: u8) -> char {
    // U+10FF00..=U+10FFFF are all scalar values, so this never falls back.
    char::from_u32(RAW_BYTE_BASE + u32::from(b)).unwrap_or(char::REPLACEMENT_CHARACTER)
}

/// How an [`Editable`] character is shown to the model: an undecodable byte's stand-in as
/// U+FFFD (as `read_file` shows it), anything else as itself.
pub fn display_char(c: char) -> char {
    if raw_byte_of(c).is_some() {
        char::REPLACEMENT_CHARACTER
    } else {
        c
    }
}

fn raw_byte_of(c: char) -> Option<u8> {
    u8::try_from(u32::from(c).checked_sub(RAW_BYTE_BASE)?).ok()
}

impl Editable {
    /// The bytes to write back: the BOM again (if the file had one), then the text, with every
    /// undecodable byte restored.
    pub fn into_bytes(self) -> Vec<u8> {
        if !self.raw_bytes {
            return encode_utf8(self.bom, self.text);
        }
        let mut out = Vec::with_capacity(UTF8_BOM.len() + self.text.len());
        if self.bom {
            out.extend_from_slice(UTF8_BOM);
        }
        let mut buf = [0u8; 4];
        for c in self.text.chars() {
            match raw_byte_of(c) {
                Some(b) => out.push(b),
                None => out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes()),
            }
        }
        out
    }
}

/// UTF-8 bytes of `text`, preceded by a BOM when `bom` is set.
pub fn encode_utf8(bom: bool, text: String) -> Vec<u8> {
    if !bom {
        return text.into_bytes();
    }
    let mut out = Vec::with_capacity(UTF8_BOM.len() + text.len());
    out.extend_from_slice(UTF8_BOM);
    out.extend_from_slice(text.as_bytes());
    out
}

/// Decodes a file for editing so that it can be written back byte-exactly. Refuses binary and
/// UTF-16 files ([`check_editable`]). A file that is not valid UTF-8 is kept byte for byte:
/// each undecodable byte becomes [`raw_byte_char`] (`raw_bytes` is set); one whose text already
/// holds such characters is refused (`is_binary`, `encoding: "non-utf-8"`). Takes the bytes by
/// value so a valid UTF-8 file is not copied.
pub fn decode_editable(bytes: Vec<u8>, display: &str) -> ToolResult<Editable> {
    check_editable(&bytes, display)?;
    let bom = bytes.starts_with(UTF8_BOM);
    let mut bytes = bytes;
    if bom {
        bytes.drain(..UTF8_BOM.len());
    }
    let bytes = match String::from_utf8(bytes) {
        Ok(text) => {
            return Ok(Editable {
                bom,
                text,
                raw_bytes: false,
            })
        }
        Err(e) => e.into_bytes(),
    };
    let mut text = String::with_capacity(bytes.len() + bytes.len() / 4);
    for chunk in bytes.utf8_chunks() {
        if chunk.valid().chars().any(|c| raw_byte_of(c).is_some()) {
            return Err(ToolError::new(
                ErrorCode::IsBinary,
                format!(
                    "{display} is not valid UTF-8 and also holds characters U+10FF00-U+10FFFF, which the editing tools use to carry its undecodable bytes; it cannot be edited byte-exactly. Change it with bash."
                ),
            )
            .with("path", display)
            .with("encoding", "non-utf-8"));
        }
        text.push_str(chunk.valid());
        text.extend(chunk.invalid().iter().map(|&b| raw_byte_char(b)));
    }
    Ok(Editable {
        bom,
        text,
        raw_bytes: true,
    })
}

/// [`dominant_terminator`] over every terminator in `text`.
pub fn dominant_terminator_in(text: &str) -> &'static str {
    dominant_terminator(split_byte_lines(text.as_bytes()).map(|(_, t)| t))
}

/// A text with every terminator seen as `\n` (what matching works on), plus the way back to
/// offsets in the original text. Borrowed, with an identity mapping, when there is no `\r`.
pub struct NewlineView<'a> {
    original: &'a str,
    normalized: Cow<'a, str>,
    /// Normalized offsets of the `\n`s that stand for a `\r\n`, ascending.
    crlf_at: Vec<usize>,
}

impl<'a> NewlineView<'a> {
    pub fn new(original: &'a str) -> Self {
        if !has_cr(original) {
            return NewlineView {
                original,
                normalized: Cow::Borrowed(original),
                crlf_at: Vec::new(),
            };
        }
        let mut normalized = String::with_capacity(original.len());
        let mut crlf_at = Vec::new();
        let mut rest = original;
        while let Some(i) = memchr::memchr(b'\r', rest.as_bytes()) {
            normalized.push_str(&rest[..i]);
            if rest.as_bytes().get(i + 1) == Some(&b'\n') {
                crlf_at.push(normalized.len());
                rest = &rest[i + 2..];
            } else {
                rest = &rest[i + 1..];
            }
            normalized.push('\n');
        }
        normalized.push_str(rest);
        NewlineView {
            original,
            normalized: Cow::Owned(normalized),
            crlf_at,
        }
    }

    /// The text with every terminator as `\n`.
    pub fn text(&self) -> &str {
        &self.normalized
    }

    /// The original offset of normalized offset `n`. An offset just after a `\n` that stands
    /// for `\r\n` lands after the `\n` of the pair; one at it lands on the `\r`.
    pub fn to_original(&self, n: usize) -> usize {
        n + self.crlf_at.partition_point(|&p| p < n)
    }

    /// Replaces normalized ranges with new text (written with `\n`), keeping every byte outside
    /// them. Ranges must be ascending and disjoint. Within a replaced range, terminators are
    /// assigned by [`replacement_terminators`]: lines that correspond to replaced lines keep
    /// their own terminator, added lines get `dominant`.
    pub fn splice(&self, replacements: &[(usize, usize, &str)], dominant: &str) -> String {
        let mut out = self.original.to_string();
        apply_rendered(&mut out, self.render(replacements, dominant));
        out
    }

    /// The replacements of [`NewlineView::splice`] in original offsets, each with its text
    /// rendered with terminators, ready for [`apply_rendered`] once the view is dropped.
    pub fn render(&self, replacements: &[(usize, usize, &str)], dominant: &str) -> Vec<Rendered> {
        replacements
            .iter()
            .map(|&(start, end, new)| {
                let (ostart, oend) = (self.to_original(start), self.to_original(end));
                let mut text = String::with_capacity(new.len());
                push_with_terminators(
                    &mut text,
                    &self.original[ostart..oend],
                    new,
                    dominant,
                    self.original[..ostart].ends_with('\r'),
                    self.original[oend..].starts_with('\n'),
                );
                Rendered {
                    start: ostart,
                    end: oend,
                    text,
                }
            })
            .collect()
    }
}

/// One replacement in original offsets, its text already carrying the right terminators.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rendered {
    pub start: usize,
    pub end: usize,
    pub text: String,
}

/// Applies ascending, disjoint replacements to `text`. A single one is done in place, so an
/// edit near the end of a large file moves only the bytes after it.
pub fn apply_rendered(text: &mut String, rendered: Vec<Rendered>) {
    if let [one] = rendered.as_slice() {
        text.replace_range(one.start..one.end, &one.text);
        return;
    }
    let mut out = String::with_capacity(text.len() + 64);
    let mut done = 0;
    for r in &rendered {
        out.push_str(&text[done..r.start]);
        out.push_str(&r.text);
        done = r.end;
    }
    out.push_str(&text[done..]);
    *text = out;
}

/// Writes `new` (lines joined by `\n`) in place of `old` (the original text of the replaced
/// region, with its own terminators), choosing each new line's terminator. `after_cr` says the
/// text before the region ends in `\r`, `before_lf` that the text after it starts with `\n`:
/// a lone `\r` directly followed by `\n` would read as one CRLF and swallow a line, so such a
/// `\n` (or lone `\r`) terminator is written as `\r\n` instead.
fn push_with_terminators(
    out: &mut String,
    old: &str,
    new: &str,
    dominant: &str,
    after_cr: bool,
    before_lf: bool,
) {
    if !new.contains('\n') {
        out.push_str(new);
        return;
    }
    let old_segments: Vec<(&str, &str)> = segments(old);
    let new_segments: Vec<&str> = new.split('\n').collect();
    let old_lines: Vec<&str> = old_segments.iter().map(|(l, _)| *l).collect();
    let old_terms: Vec<&str> = old_segments
        .iter()
        .filter(|(_, t)| !t.is_empty())
        .map(|(_, t)| *t)
        .collect();
    let mut terms = replacement_terminators(&old_lines, &old_terms, &new_segments, dominant);
    let mut prev_cr = after_cr;
    for (i, term) in terms.iter_mut().enumerate() {
        if !new_segments[i].is_empty() {
            prev_cr = false;
        }
        if prev_cr && *term == "\n" {
            *term = "\r\n";
        }
        prev_cr = *term == "\r";
    }
    if let Some(last) = terms.last_mut() {
        let ends_region = new_segments.last().is_some_and(|s| s.is_empty());
        if ends_region && before_lf && *last == "\r" {
            *last = "\r\n";
        }
    }
    for (i, seg) in new_segments.iter().enumerate() {
        out.push_str(seg);
        if let Some(t) = terms.get(i) {
            out.push_str(t);
        }
    }
}

/// `text` cut at every terminator: `(segment, terminator)` pairs, the last one with an empty
/// terminator (so `k` terminators give `k + 1` segments, the last possibly empty).
fn segments(text: &str) -> Vec<(&str, &str)> {
    let mut out: Vec<(&str, &str)> = split_lines(text).collect();
    if out.last().is_none_or(|(_, t)| !t.is_empty()) {
        out.push(("", ""));
    }
    out
}

/// The terminator of each of the `new.len() - 1` line breaks in a replacement, given the
/// replaced region's segments (`old`, one more than `old_terms`). Breaks after a run of equal
/// leading segments keep the matching old terminator, as do breaks before a run of equal
/// trailing segments; the breaks in between keep the old terminator at the same position while
/// there is one, and the rest (lines added by the edit) get `dominant`. (Two regions that
/// merely both end in a line break do not count as a trailing run.)
pub fn replacement_terminators<'t>(
    old: &[&str],
    old_terms: &[&'t str],
    new: &[&str],
    dominant: &'t str,
) -> Vec<&'t str> {
    let k = old_terms.len();
    let m = new.len().saturating_sub(1);
    let both = k.min(m);
    let p = (0..both).take_while(|&i| old[i] == new[i]).count();
    let mut s = (0..both - p)
        .take_while(|&i| old[old.len() - 1 - i] == new[new.len() - 1 - i])
        .count();
    // Both ending in a line break says nothing about which lines correspond.
    if s == 1 && old[old.len() - 1].is_empty() {
        s = 0;
    }
    (0..m)
        .map(|j| {
            if j < p {
                old_terms[j]
            } else if j >= m - s {
                old_terms[k - (m - j)]
            } else if j < k - s {
                old_terms[j]
            } else {
                dominant
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn js_trim_is_string_prototype_trim() {
        assert_eq!(js_trim("\u{feff}\u{a0} a b\u{2028}\u{3000}"), "a b");
        // U+0085 (NEL) is no JavaScript white space.
        assert_eq!(js_trim("\u{85}a"), "\u{85}a");
    }

    #[test]
    fn too_large_reads_as_the_contract_at_the_root_and_suggests_grep_with_extras() {
        // CONTRACT-v0.5 §2: "`File is <size> bytes, exceeding the <max>-byte limit (raise
        // MAX_FILE_BYTES): <input>` with `path`, `size` and `limit`".
        let c = crate::testutil::config_at(std::path::Path::new("/tmp"));
        assert_eq!(
            too_large(&c, "big", 2000, 1024).envelope(),
            r#"{"error":"too_large","message":"File is 2000 bytes, exceeding the 1024-byte limit (raise MAX_FILE_BYTES): big","path":"big","size":2000,"limit":1024}"#
        );
        let extras = Config { extras: true, ..c };
        assert!(too_large(&extras, "big", 2000, 1024)
            .message
            .contains("Search it with grep instead"));
    }

    #[test]
    fn read_errors_quote_the_path_as_given() {
        // CONTRACT-v0.5: "`<input>` is the path string exactly as the caller passed it";
        // "Missing → `not_found` `No such file: <input>`", `Path is a directory: <input>`.
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("d")).unwrap();
        let c = crate::testutil::config_at(dir.path());
        for (raw, message) in [
            ("./gone", "No such file: ./gone"),
            ("d/../gone", "No such file: d/../gone"),
            ("./d/", "Path is a directory: ./d/"),
        ] {
            let path = crate::paths::resolve(&c, raw).unwrap();
            let e = read_capped(&path, &c).unwrap_err();
            assert_eq!(
                (e.message.as_str(), &e.fields["path"]),
                (message, &serde_json::json!(raw))
            );
        }
    }

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
    fn editable_round_trips_every_byte() {
        let e = decode_editable(b"\xEF\xBB\xBFhi\r\n".to_vec(), "a").unwrap();
        assert_eq!(
            (e.bom, e.text.as_str(), e.raw_bytes),
            (true, "hi\r\n", false)
        );
        assert_eq!(e.into_bytes(), b"\xEF\xBB\xBFhi\r\n");
        let e = decode_editable(b"\xFF\xFEh\0".to_vec(), "a").unwrap_err();
        assert_eq!(
            (e.code, &e.fields["encoding"]),
            (ErrorCode::IsBinary, &"utf-16le".into())
        );
        let latin1 = b"ok\ncaf\xE9 \x82\x80\n\xEF\xBB\xBF\xC3".to_vec();
        let e = decode_editable(latin1.clone(), "a").unwrap();
        assert!(e.raw_bytes);
        assert_eq!(
            e.text.chars().filter(|&c| raw_byte_of(c).is_some()).count(),
            4
        );
        assert!(e.text.starts_with("ok\ncaf"));
        assert_eq!(e.into_bytes(), latin1);
        let mut with_bom = b"\xEF\xBB\xBF".to_vec();
        with_bom.extend_from_slice(&latin1);
        assert_eq!(
            decode_editable(with_bom.clone(), "a").unwrap().into_bytes(),
            with_bom
        );
        let clash = "\u{10FF41}"
            .as_bytes()
            .iter()
            .chain(b"\xE9")
            .copied()
            .collect();
        let e = decode_editable(clash, "a").unwrap_err();
        assert_eq!(e.fields["encoding"], "non-utf-8");
        let e = decode_editable(b"a\0b".to_vec(), "a").unwrap_err();
        assert_eq!(e.code, ErrorCode::IsBinary);
    }

    #[test]
    fn dominant_terminators() {
        assert_eq!(dominant_terminator_in("a"), "\n");
        assert_eq!(dominant_terminator_in("a\r\nb\r\nc\n"), "\r\n");
        assert_eq!(dominant_terminator_in("a\r\nb\n"), "\n");
        assert_eq!(dominant_terminator_in("a\rb\rc\r\n"), "\r");
    }

    #[test]
    fn newline_view_maps_offsets_back() {
        let v = NewlineView::new("ab\r\ncd\ref\r\n");
        assert_eq!(v.text(), "ab\ncd\nef\n");
        assert_eq!(v.to_original(2), 2);
        assert_eq!(v.to_original(3), 4);
        assert_eq!(v.to_original(6), 7);
        assert_eq!(v.to_original(10), 12);
        let v = NewlineView::new("plain\n");
        assert!(matches!(v.normalized, Cow::Borrowed(_)));
    }

    #[test]
    fn splice_keeps_untouched_and_corresponding_terminators() {
        // Mixed file: the edited line keeps its own lone-CR terminator; the added one gets the
        // dominant CRLF; everything else is untouched.
        let orig = "a\r\nb\rc\r\nd\n";
        let v = NewlineView::new(orig);
        let start = v.text().find("b\n").unwrap();
        let out = v.splice(
            &[(start, start + 2, "B\nB2\n")],
            dominant_terminator_in(orig),
        );
        assert_eq!(out, "a\r\nB\rB2\r\nc\r\nd\n");
        // Inserting a line above keeps the following lines' terminators by alignment.
        let orig = "x\ny\r\nz";
        let v = NewlineView::new(orig);
        let out = v.splice(&[(0, 4, "new\nx\ny\n")], "\n");
        assert_eq!(out, "new\nx\ny\r\nz");
        // Deleting lines.
        let v = NewlineView::new("1\r2\r3\r");
        assert_eq!(v.splice(&[(2, 4, "")], "\r"), "1\r3\r");
    }

    #[test]
    fn a_lone_cr_never_meets_an_lf() {
        // The kept lone CR of "b" is followed by an added empty line: its LF becomes CRLF.
        let v = NewlineView::new("b\ra\n");
        assert_eq!(v.splice(&[(0, 2, "\n\n")], "\n"), "\r\r\na\n");
        // The text before the region ends in a lone CR.
        let v = NewlineView::new("x\ry");
        assert_eq!(v.splice(&[(2, 3, "\nz")], "\n"), "x\r\r\nz");
        // A CR-dominant replacement ending right before an untouched LF.
        let v = NewlineView::new("p\rq\n");
        assert_eq!(v.splice(&[(3, 3, "x\n")], "\r"), "p\rqx\r\n\n");
    }

    #[test]
    fn terminator_alignment() {
        let t = replacement_terminators(&["a", "b", ""], &["\r", "\n"], &["z", "a", "b", ""], "X");
        assert_eq!(t, ["X", "\r", "\n"]);
        let t = replacement_terminators(&["a", ""], &["\r"], &["q", "r", ""], "X");
        assert_eq!(t, ["\r", "X"]);
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

    /// Every line start by splitting, to check the counting walks against.
    fn starts_by_splitting(bytes: &[u8]) -> Vec<usize> {
        let mut pos = 0;
        split_byte_lines(bytes)
            .map(|(l, t)| {
                let at = pos;
                pos += l.len() + t.len();
                at
            })
            .collect()
    }

    #[test]
    fn line_counts_and_starts() {
        let mut rng = crate::testutil::XorShift::new(3);
        let pieces: [&[u8]; 6] = [b"a", b"\n", b"\r", b"\r\n", b"\xC3", b"xyz"];
        for _ in 0..500 {
            let bytes: Vec<u8> = (0..rng.below(30))
                .flat_map(|_| pieces[rng.below(pieces.len())].iter().copied())
                .collect();
            let starts = starts_by_splitting(&bytes);
            let index = LineIndex::new(&bytes);
            assert_eq!(count_lines(&bytes), starts.len(), "{bytes:?}");
            assert_eq!(index.total, starts.len(), "{bytes:?}");
            for (n, &at) in starts.iter().enumerate() {
                assert_eq!(index.start(n), at, "{bytes:?} {n}");
            }
            assert_eq!(index.start(index.total), bytes.len());
        }
    }

    /// Fed in pieces of any size, the builder counts the blocks [`blocks`] gives, and so
    /// indexes the text exactly as built at once; a `\r\n` across a block's end included.
    #[test]
    fn an_index_fed_in_pieces_is_the_index_of_the_whole() {
        let mut rng = crate::testutil::XorShift::new(24);
        for round in 0..40 {
            let len = BLOCK * (1 + round % 3) + rng.below(3000);
            let mut text: Vec<u8> = (0..len)
                .map(|_| match rng.below(40) {
                    0..=2 => b'\n',
                    3 => b'\r',
                    _ => b'x',
                })
                .collect();
            // A `\r\n` straddling each block boundary, in some rounds.
            if round % 2 == 0 {
                for k in 1..=len / BLOCK {
                    text[k * BLOCK - 1] = b'\r';
                    if k * BLOCK < len {
                        text[k * BLOCK] = b'\n';
                    }
                }
            }
            let whole: Vec<(usize, usize)> = {
                let mut terminators = 0;
                blocks(&text)
                    .map(|(pos, block)| {
                        let mark = (pos, terminators);
                        terminators += block_terminators(block);
                        mark
                    })
                    .collect()
            };
            let mut builder = IndexBuilder::default();
            let mut at = 0;
            while at < text.len() {
                at = (at + 1 + rng.below(BLOCK / 2)).min(text.len());
                builder.feed(&text[..at], false);
            }
            builder.feed(&text, true);
            assert!(builder.covers(text.len()));
            let index = builder.finish(&text);
            assert_eq!(index.marks, whole, "round {round}");
            assert_eq!(index.total, count_lines(&text), "round {round}");
            for n in [
                0,
                1,
                index.total / 2,
                index.total.saturating_sub(1),
                index.total,
            ] {
                assert_eq!(index.start(n), LineIndex::new(&text).start(n));
            }
        }
    }

    #[test]
    fn sized_reads_take_what_the_file_holds_even_if_its_size_moved() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f");
        let body: Vec<u8> = (0..100u8).collect();
        fs::write(&p, &body).unwrap();
        // Every read shows its bytes to `on_read` last, with `done`, and no bytes after that.
        let read = |len: u64, max: u64| {
            let mut shown: Vec<(usize, bool)> = Vec::new();
            let bytes = read_sized(fs::File::open(&p).unwrap(), len, max, &mut |b, done| {
                shown.push((b.len(), done))
            })
            .unwrap();
            assert_eq!(shown.last(), Some(&(bytes.len(), true)));
            assert!(shown[..shown.len() - 1]
                .iter()
                .all(|&(n, done)| !done && n <= bytes.len()));
            bytes
        };
        assert_eq!(read(100, 1000), body);
        // Grown since the stat, shrunk since the stat, and past the cap (one byte over it).
        assert_eq!(read(50, 1000), body);
        assert_eq!(read(0, 1000), body);
        assert_eq!(read(200, 1000), body);
        assert_eq!(read(50, 80), body[..81]);
        fs::write(&p, "").unwrap();
        assert_eq!(read(0, 1000), b"");
        // A big file goes the read_to_end way, with the same answers.
        let big = vec![7u8; SMALL_FILE as usize + 3];
        fs::write(&p, &big).unwrap();
        assert_eq!(read(SMALL_FILE + 3, SMALL_FILE * 2), big);
        assert_eq!(
            read(SMALL_FILE + 3, SMALL_FILE).len() as u64,
            SMALL_FILE + 1
        );
    }

    #[test]
    fn block_edges_never_split_a_crlf_pair() {
        // The first 64 KiB block ends between the `\r` and `\n` of a pair.
        let mut bytes = b"a\n".repeat(32 * 1024);
        bytes.truncate(64 * 1024 - 2);
        bytes.extend_from_slice(b"b\r\nc\r\rd\n");
        bytes.extend_from_slice(&b"e\r".repeat(40 * 1024));
        bytes.extend_from_slice(b"\n");
        let starts = starts_by_splitting(&bytes);
        let index = LineIndex::new(&bytes);
        assert_eq!(count_lines(&bytes), starts.len());
        assert_eq!(index.total, starts.len());
        let total = starts.len();
        for n in (0..total)
            .step_by(1009)
            .chain(32_760..32_780)
            .chain(total - 2000..total)
        {
            assert_eq!(index.start(n), starts[n], "line {n}");
        }
        assert_eq!(utf8_body(b"\xEF\xBB\xBFx"), Some(&b"x"[..]));
        assert_eq!(utf8_body(b"\xFF\xFEx\0"), None);
    }
}
