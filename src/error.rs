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
}

pub type ToolResult<T> = Result<T, ToolError>;

impl ToolError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        ToolError {
            code,
            message: message.into(),
            fields: Map::new(),
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

    /// The fixed-message error a bug becomes; its detail goes to stderr, never to the caller.
    pub fn internal() -> Self {
        Self::new(ErrorCode::Internal, "internal error")
    }

    /// Maps an I/O error on `display_path` the way the contract's `fsError` does:
    /// `NotFound` → `not_found`, "is a directory" / "not a directory" → `not_a_file`,
    /// anything else → `io_error` (`<CODE>: <message>`). Every one carries a `path` field.
    pub fn from_io(err: &io::Error, display_path: &str) -> Self {
        let (code, message) = match err.kind() {
            io::ErrorKind::NotFound => {
                (ErrorCode::NotFound, format!("No such file: {display_path}"))
            }
            io::ErrorKind::IsADirectory => (
                ErrorCode::NotAFile,
                format!("Not a file: {display_path} is a directory"),
            ),
            io::ErrorKind::NotADirectory => (
                ErrorCode::NotAFile,
                format!("Not a file: a component of {display_path} is not a directory"),
            ),
            _ => (
                ErrorCode::IoError,
                format!("{}: {}", errno_name(err), strip_os_suffix(err)),
            ),
        };
        ToolError::new(code, message).with("path", display_path)
    }

    /// The JSON envelope `{"error", "message", ...fields}`: the only place it is made.
    pub fn envelope(&self) -> String {
        let mut obj = Map::with_capacity(self.fields.len() + 2);
        obj.insert("error".into(), Value::from(self.code.as_str()));
        obj.insert("message".into(), Value::from(self.message.clone()));
        for (k, v) in &self.fields {
            if k != "error" && k != "message" {
                obj.insert(k.clone(), v.clone());
            }
        }
        Value::Object(obj).to_string()
    }
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
    fn fields_cannot_overwrite_code_or_message() {
        let e = ToolError::invalid_input("m").with("error", "x");
        let v: Value = serde_json::from_str(&e.envelope()).unwrap();
        assert_eq!(v["error"], "invalid_input");
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
