//! The one error type every tool returns, and the one place its JSON envelope is made.
//!
//! A [`ToolError`] is an answer the model should see (a missing file, an ambiguous edit); its
//! envelope is `{"error": <code>, "message": <text>, ...fields}`. Bugs are not `ToolError`s: a
//! panic inside a tool is caught by the dispatcher and reported as [`ErrorCode::Internal`] with a
//! fixed message, its detail going to stderr only.

use std::fmt;
use std::io;
use std::path::Path;

use serde::Serialize;
use serde_json::{Map, Value};

/// The error payload of a resolution that would leave the workspace (the confinement layer
/// makes it; [`ToolError::from_io`] maps it to `path_escape`).
#[derive(Debug)]
struct Escape;

impl std::fmt::Display for Escape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("resolves outside the workspace")
    }
}

impl std::error::Error for Escape {}

pub fn escape() -> io::Error {
    io::Error::other(Escape)
}

/// True when `err` says a path (or a symlink on it) leads outside the workspace.
pub fn is_escape(err: &io::Error) -> bool {
    err.get_ref().is_some_and(|e| e.is::<Escape>())
}

/// The contract's error codes, serialized in snake_case (`invalid_input`, `not_found`, …).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    InvalidInput,
    NotFound,
    NotAFile,
    IsBinary,
    NotAnImage,
    NoMatch,
    AmbiguousMatch,
    PatchFailed,
    IoError,
    Timeout,
    Aborted,
    OutputLimit,
    TooLarge,
    PathEscape,
    Denied,
    MonitorNotFound,
    TooManyMonitors,
    Internal,
}

impl ErrorCode {
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidInput => "invalid_input",
            ErrorCode::NotFound => "not_found",
            ErrorCode::NotAFile => "not_a_file",
            ErrorCode::IsBinary => "is_binary",
            ErrorCode::NotAnImage => "not_an_image",
            ErrorCode::NoMatch => "no_match",
            ErrorCode::AmbiguousMatch => "ambiguous_match",
            ErrorCode::PatchFailed => "patch_failed",
            ErrorCode::IoError => "io_error",
            ErrorCode::Timeout => "timeout",
            ErrorCode::Aborted => "aborted",
            ErrorCode::OutputLimit => "output_limit",
            ErrorCode::TooLarge => "too_large",
            ErrorCode::PathEscape => "path_escape",
            ErrorCode::Denied => "denied",
            ErrorCode::MonitorNotFound => "monitor_not_found",
            ErrorCode::TooManyMonitors => "too_many_monitors",
            ErrorCode::Internal => "internal",
        }
    }
}

/// A failure the model should see: a code, a message that says what to do, and extra fields
/// merged into the envelope (`path`, `size`, `index`, …).
#[derive(Debug, Clone, PartialEq)]
pub struct ToolError {
    pub code: ErrorCode,
    pub message: String,
    pub fields: Map<String, Value>,
    /// An `internal` error's detail: never in the envelope; it goes to the warn sink when the
    /// error reaches the caller ([`ToolError::report_detail`]), so an error a tool catches and
    /// skips (or one after the first that counts) leaves no line.
    pub detail: Option<Box<str>>,
}

pub type ToolResult<T> = Result<T, ToolError>;

impl ToolError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        ToolError {
            code,
            message: message.into(),
            fields: Map::new(),
            detail: None,
        }
    }

    /// Adds a field to the envelope (builder style).
    pub fn with(mut self, key: &str, value: impl Into<Value>) -> Self {
        self.fields.insert(key.to_string(), value.into());
        self
    }

    pub fn invalid_input(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::InvalidInput, message)
    }

    /// `not_a_file` `Path is a directory: <p>`: a directory where a file was expected (the
    /// contract's `fsError` for `EISDIR`, and its directly thrown text; wording §4).
    pub fn is_a_directory(path: &str) -> Self {
        Self::new(ErrorCode::NotAFile, format!("Path is a directory: {path}")).with("path", path)
    }

    /// `not_a_file` `Not a directory: <p>`: a file where a directory was expected (the
    /// contract's `fsError` for `ENOTDIR`, and its directly thrown text for `list_dir`,
    /// `tree` and bash's `cwd`; wording §4).
    pub fn not_a_directory(path: &str) -> Self {
        Self::new(ErrorCode::NotAFile, format!("Not a directory: {path}")).with("path", path)
    }

    /// The fixed-message error a bug becomes; its detail goes to stderr, never to the caller.
    pub fn internal() -> Self {
        Self::new(ErrorCode::Internal, "internal error")
    }

    /// [`internal`](Self::internal) with its detail, reported when it reaches the caller.
    pub fn internal_because(detail: impl Into<String>) -> Self {
        ToolError {
            detail: Some(detail.into().into_boxed_str()),
            ..Self::internal()
        }
    }

    /// Writes the detail of an internal error to the warn sink (`internal error: <detail>`):
    /// called once, where the error becomes the caller's result.
    pub fn report_detail(&self) {
        if let Some(detail) = &self.detail {
            crate::warn::emit(format!("internal error: {detail}"));
        }
    }

    /// Maps an I/O error on `display_path` the way the contract's `fsError` does:
    /// `NotFound` → `not_found`, "is a directory" / "not a directory" → `not_a_file`,
    /// anything else → `io_error` (`<CODE>: <message>`). Every one carries a `path` field.
    /// An escape found while opening beneath the workspace root ([`is_escape`]) is
    /// `path_escape`.
    pub fn from_io(err: &io::Error, display_path: &str) -> Self {
        if is_escape(err) {
            return ToolError::new(
                ErrorCode::PathEscape,
                format!("Path escapes the workspace: {display_path} resolves outside the workspace through a symlink (or through a symlink loop). Use a path inside the workspace; to permit outside paths, start with confineToWorkspace: false (--allow-outside-workspace)."),
            )
            .with("path", display_path);
        }
        let (code, message) = match err.kind() {
            io::ErrorKind::NotFound => {
                (ErrorCode::NotFound, format!("No such file: {display_path}"))
            }
            io::ErrorKind::IsADirectory => return Self::is_a_directory(display_path),
            io::ErrorKind::NotADirectory => return Self::not_a_directory(display_path),
            _ => (
                ErrorCode::IoError,
                format!("{}: {}", errno_name(err), strip_os_suffix(err)),
            ),
        };
        ToolError::new(code, message).with("path", display_path)
    }

    /// The JSON envelope `{"error", "message", ...fields}`: the only place it is made.
    /// Echoed inputs are bounded: a string field (other than a command's `stdout` / `stderr`,
    /// which the tool fits to the output budget) over [`MAX_ECHO_BYTES`] is cut with
    /// [`ECHO_CUT_MARKER`], and the message keeps at most [`MAX_MESSAGE_BYTES`] (each cut
    /// input inside it shrinks to the same bound first), so a megabyte path cannot come back
    /// in full.
    pub fn envelope(&self) -> String {
        let mut obj = Map::with_capacity(self.fields.len() + 2);
        obj.insert("error".into(), Value::from(self.code.as_str()));
        let mut message = self.message.clone();
        for (k, v) in &self.fields {
            if let (false, Value::String(s)) = (is_output(k), v) {
                if s.len() > MAX_ECHO_BYTES && message.contains(s.as_str()) {
                    message = message.replace(s.as_str(), &cut_echo(s));
                }
            }
        }
        obj.insert(
            "message".into(),
            Value::from(cut_to(&message, MAX_MESSAGE_BYTES)),
        );
        for (k, v) in &self.fields {
            if k != "error" && k != "message" {
                let v = match v {
                    Value::String(s) if s.len() > MAX_ECHO_BYTES && !is_output(k) => {
                        Value::from(cut_echo(s))
                    }
                    other => other.clone(),
                };
                obj.insert(k.clone(), v);
            }
        }
        Value::Object(obj).to_string()
    }
}

/// The longest string field (a path, a pattern) an envelope echoes in full.
pub const MAX_ECHO_BYTES: usize = 4096;
/// The longest message an envelope carries.
pub const MAX_MESSAGE_BYTES: usize = 64 * 1024;

/// Fields that carry a command's output, not an echoed input: the tool fits those to the
/// output budget itself (bash's partial `stdout` / `stderr`), so they are never cut here.
fn is_output(key: &str) -> bool {
    key == "stdout" || key == "stderr"
}
/// What replaces the cut part of an echoed input.
pub const ECHO_CUT_MARKER: &str = "[... cut ...]";

/// `s` cut to [`MAX_ECHO_BYTES`] at a character boundary, with the marker and the full size.
fn cut_echo(s: &str) -> String {
    let keep = floor_char(s, MAX_ECHO_BYTES);
    format!("{}{ECHO_CUT_MARKER} ({} bytes in all)", &s[..keep], s.len())
}

fn cut_to(s: &str, max: usize) -> String {
    if s.len() <= max {
        return s.to_string();
    }
    format!("{}{ECHO_CUT_MARKER}", &s[..floor_char(s, max)])
}

fn floor_char(s: &str, max: usize) -> usize {
    let mut i = max.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code.as_str(), self.message)
    }
}

impl std::error::Error for ToolError {}

/// Shorthand for the path-carrying I/O mapping used all over the tools.
pub fn io_err(err: io::Error, display_path: &str) -> ToolError {
    ToolError::from_io(&err, display_path)
}

/// An fs failure of `path`: with `exact` (the contract-exact root) in fsError's words for the
/// reference's `syscall` on `abs` ([`node_fs_error`]), else as [`io_err`] words it.
pub fn fs_error(exact: bool, err: io::Error, path: &str, syscall: &str, abs: &Path) -> ToolError {
    if exact {
        node_fs_error(&err, path, syscall, abs)
    } else {
        io_err(err, path)
    }
}

/// An fs failure as the newest contract's `fsError` words it (CONTRACT-v0.5-wording §4):
/// `ENOENT`, `EISDIR` and `ENOTDIR` as [`ToolError::from_io`] words them, anything else
/// `io_error` `<code>: <Node's message>`, where Node's message is `<code>: <description>,
/// <syscall> '<abs>'` (so the code appears twice), field `path` = `input`.
pub fn node_fs_error(err: &io::Error, input: &str, syscall: &str, abs: &Path) -> ToolError {
    match err.kind() {
        io::ErrorKind::NotFound | io::ErrorKind::IsADirectory | io::ErrorKind::NotADirectory => {
            return ToolError::from_io(err, input)
        }
        _ => {}
    }
    let mut code = errno_name(err);
    if code == "EOPNOTSUPP" {
        code = "ENOTSUP".into();
    }
    let description = uv_description(&code)
        .map(str::to_string)
        .unwrap_or_else(|| strip_os_suffix(err).to_lowercase());
    let node = format!("{code}: {description}, {syscall} '{}'", abs.display());
    ToolError::new(ErrorCode::IoError, format!("{code}: {node}")).with("path", input)
}

/// libuv's description of an errno, as Node's fs errors quote it (`util.getSystemErrorMap()`).
fn uv_description(code: &str) -> Option<&'static str> {
    Some(match code {
        "E2BIG" => "argument list too long",
        "EACCES" => "permission denied",
        "EADDRINUSE" => "address already in use",
        "EADDRNOTAVAIL" => "address not available",
        "EAFNOSUPPORT" => "address family not supported",
        "EAGAIN" => "resource temporarily unavailable",
        "EALREADY" => "connection already in progress",
        "EBADF" => "bad file descriptor",
        "EBUSY" => "resource busy or locked",
        "ECANCELED" => "operation canceled",
        "ECONNABORTED" => "software caused connection abort",
        "ECONNREFUSED" => "connection refused",
        "ECONNRESET" => "connection reset by peer",
        "EDESTADDRREQ" => "destination address required",
        "EEXIST" => "file already exists",
        "EFAULT" => "bad address in system call argument",
        "EFBIG" => "file too large",
        "EHOSTUNREACH" => "host is unreachable",
        "EINTR" => "interrupted system call",
        "EINVAL" => "invalid argument",
        "EIO" => "i/o error",
        "EISCONN" => "socket is already connected",
        "EISDIR" => "illegal operation on a directory",
        "ELOOP" => "too many symbolic links encountered",
        "EMFILE" => "too many open files",
        "EMSGSIZE" => "message too long",
        "ENAMETOOLONG" => "name too long",
        "ENETDOWN" => "network is down",
        "ENETUNREACH" => "network is unreachable",
        "ENFILE" => "file table overflow",
        "ENOBUFS" => "no buffer space available",
        "ENODEV" => "no such device",
        "ENOENT" => "no such file or directory",
        "ENOMEM" => "not enough memory",
        "ENONET" => "machine is not on the network",
        "ENOPROTOOPT" => "protocol not available",
        "ENOSPC" => "no space left on device",
        "ENOSYS" => "function not implemented",
        "ENOTCONN" => "socket is not connected",
        "ENOTDIR" => "not a directory",
        "ENOTEMPTY" => "directory not empty",
        "ENOTSOCK" => "socket operation on non-socket",
        "ENOTSUP" => "operation not supported on socket",
        "EOVERFLOW" => "value too large for defined data type",
        "EPERM" => "operation not permitted",
        "EPIPE" => "broken pipe",
        "EPROTO" => "protocol error",
        "EPROTONOSUPPORT" => "protocol not supported",
        "EPROTOTYPE" => "protocol wrong type for socket",
        "ERANGE" => "result too large",
        "EROFS" => "read-only file system",
        "ESHUTDOWN" => "cannot send after transport endpoint shutdown",
        "ESPIPE" => "invalid seek",
        "ESRCH" => "no such process",
        "ETIMEDOUT" => "connection timed out",
        "ETXTBSY" => "text file is busy",
        "EXDEV" => "cross-device link not permitted",
        "ENXIO" => "no such device or address",
        "EMLINK" => "too many links",
        "EHOSTDOWN" => "host is down",
        "EREMOTEIO" => "remote I/O error",
        "ENOTTY" => "inappropriate ioctl for device",
        "EILSEQ" => "illegal byte sequence",
        "ESOCKTNOSUPPORT" => "socket type not supported",
        "ENODATA" => "no data available",
        "EUNATCH" => "protocol driver not attached",

        _ => return None,
    })
}

/// Converts a path to the string shown to the model.
pub fn show(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

/// The symbolic errno name (`EACCES`, …) of an OS error, or the error kind's name.
fn errno_name(err: &io::Error) -> String {
    #[cfg(unix)]
    if let Some(raw) = err.raw_os_error() {
        return format!("{:?}", nix::errno::Errno::from_raw(raw));
    }
    format!("{:?}", err.kind())
}

/// `io::Error`'s Display appends ` (os error N)`; the envelope already names the errno.
fn strip_os_suffix(err: &io::Error) -> String {
    let text = err.to_string();
    match text.rfind(" (os error ") {
        Some(i) => text[..i].to_string(),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn envelope_merges_fields_after_code_and_message() {
        let e = ToolError::new(ErrorCode::TooLarge, "big")
            .with("size", 10)
            .with("limit", 5);
        let v: Value = serde_json::from_str(&e.envelope()).unwrap();
        assert_eq!(v["error"], "too_large");
        assert_eq!(v["message"], "big");
        assert_eq!(v["size"], 10);
        assert_eq!(v["limit"], 5);
    }

    #[test]
    fn envelope_keys_are_error_message_then_fields_in_insertion_order() {
        // `serializeError`: `JSON.stringify({ error: code, message, ...fields })`.
        let e = ToolError::new(ErrorCode::TooLarge, "big")
            .with("path", "p")
            .with("size", 10)
            .with("limit", 5);
        assert_eq!(
            e.envelope(),
            r#"{"error":"too_large","message":"big","path":"p","size":10,"limit":5}"#
        );
    }

    #[test]
    fn fields_cannot_overwrite_code_or_message() {
        let e = ToolError::invalid_input("m").with("error", "x");
        let v: Value = serde_json::from_str(&e.envelope()).unwrap();
        assert_eq!(v["error"], "invalid_input");
    }

    #[test]
    fn echoed_inputs_are_bounded() {
        let long = "é".repeat(500_000);
        let e = ToolError::new(ErrorCode::NotFound, format!("No such file: {long}"))
            .with("path", long.as_str())
            .with("size", 3);
        let env = e.envelope();
        assert!(env.len() < 12 * 1024, "{}", env.len());
        let v: Value = serde_json::from_str(&env).unwrap();
        let path = v["path"].as_str().unwrap();
        assert!(path.ends_with(&format!("{ECHO_CUT_MARKER} (1000000 bytes in all)")));
        assert!(v["message"]
            .as_str()
            .unwrap()
            .starts_with("No such file: éé"));
        assert!(v["message"].as_str().unwrap().contains(ECHO_CUT_MARKER));
        assert_eq!(v["size"], 3);
        let out = "o".repeat(100_000);
        let v: Value = serde_json::from_str(
            &ToolError::new(ErrorCode::OutputLimit, "m")
                .with("stdout", out.as_str())
                .envelope(),
        )
        .unwrap();
        assert_eq!(
            v["stdout"].as_str().unwrap().len(),
            100_000,
            "outputs are not echoes"
        );
        let huge_message = ToolError::invalid_input("x".repeat(100_000)).envelope();
        assert!(huge_message.len() < MAX_MESSAGE_BYTES + 100);
        let short = ToolError::invalid_input("short").with("path", "a.txt");
        let v: Value = serde_json::from_str(&short.envelope()).unwrap();
        assert_eq!(v["path"], "a.txt");
        assert_eq!(v["message"], "short");
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn node_fs_error_quotes_node_message_with_the_code_twice() {
        // CONTRACT-v0.5-wording §4: `<err.code>: <err.message>`.
        let abs = Path::new("/abs/d");
        let e = node_fs_error(&io::Error::from_raw_os_error(13), "d", "scandir", abs);
        assert_eq!(e.code, ErrorCode::IoError);
        assert_eq!(
            e.message,
            "EACCES: EACCES: permission denied, scandir '/abs/d'"
        );
        assert_eq!(e.fields["path"], "d");
        let e = node_fs_error(&io::Error::from_raw_os_error(40), "x", "stat", abs);
        assert_eq!(
            e.message,
            "ELOOP: ELOOP: too many symbolic links encountered, stat '/abs/d'"
        );
        let nf = node_fs_error(&io::Error::from(io::ErrorKind::NotFound), "x", "stat", abs);
        assert_eq!(nf.message, "No such file: x");
    }

    #[test]
    fn io_mapping_follows_fs_error() {
        let nf = io::Error::from(io::ErrorKind::NotFound);
        let e = ToolError::from_io(&nf, "a.txt");
        assert_eq!(e.code, ErrorCode::NotFound);
        assert_eq!(e.message, "No such file: a.txt");
        assert_eq!(e.fields["path"], "a.txt");
        let acc = io::Error::from_raw_os_error(13);
        let e = ToolError::from_io(&acc, "b");
        assert_eq!(e.code, ErrorCode::IoError);
        assert!(e.message.starts_with("EACCES: "), "{}", e.message);
        assert!(!e.message.contains("os error"));
    }
}
