//! Resource caps on search patterns, shared by every tool that compiles one (grep, replace).
//!
//! A pattern is refused before it is compiled when it is longer than [`MAX_PATTERN_BYTES`]
//! ([`check_len`]); the compiled program is capped at [`SIZE_LIMIT`] bytes and the lazy DFA's
//! cache at [`DFA_SIZE_LIMIT`] ([`limit`]), so a short pattern with huge counted repetitions
//! (`(\w{1000}){1000}`) fails with a clear error too ([`compile_error`]) instead of taking
//! gigabytes. Every refusal is `invalid_input` naming the field.

use grep_regex::RegexMatcherBuilder;

use crate::error::{ToolError, ToolResult};

/// The longest pattern accepted, in bytes (UTF-8).
pub const MAX_PATTERN_BYTES: usize = 64 * 1024;
/// The most a compiled regex program may take (grep-regex's default is 100 MiB).
pub const SIZE_LIMIT: usize = 16 << 20;
/// The most the lazy DFA's cache may take per search thread (grep-regex's default: 1000 MiB).
pub const DFA_SIZE_LIMIT: usize = 32 << 20;

/// Refuses a pattern over [`MAX_PATTERN_BYTES`] (`invalid_input` naming `field`).
pub fn check_len(pattern: &str, field: &str) -> ToolResult<()> {
    if pattern.len() > MAX_PATTERN_BYTES {
        return Err(ToolError::invalid_input(format!(
            "{field} is {} bytes long, over the {MAX_PATTERN_BYTES}-byte limit for a pattern: search for a shorter, more specific pattern (or several in turn)",
            pattern.len()
        ))
        .with("field", field)
        .with("size", pattern.len())
        .with("limit", MAX_PATTERN_BYTES));
    }
    Ok(())
}

/// Applies the compiled-size caps to a grep-regex builder.
pub fn limit(builder: &mut RegexMatcherBuilder) -> &mut RegexMatcherBuilder {
    builder
        .size_limit(SIZE_LIMIT)
        .dfa_size_limit(DFA_SIZE_LIMIT)
}

/// The error for a pattern whose compiled form is over the cap, when `message` (a compile
/// error's text) says so; `None` for any other compile error.
pub fn compile_error(message: &str, field: &str) -> Option<ToolError> {
    message.contains("size limit").then(|| {
        ToolError::invalid_input(format!(
            "{field} is too complex: compiled, it exceeds the {SIZE_LIMIT}-byte limit. Simplify it: fewer alternatives, smaller repetition counts such as {{1000}}, or split the search"
        ))
        .with("field", field)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;

    #[test]
    fn long_patterns_are_refused_by_length() {
        assert!(check_len(&"a".repeat(MAX_PATTERN_BYTES), "pattern").is_ok());
        let e = check_len(&"a".repeat(MAX_PATTERN_BYTES + 1), "pattern").unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidInput);
        assert_eq!(e.fields["field"], "pattern");
    }

    #[test]
    fn huge_compiled_programs_are_refused() {
        let mut b = RegexMatcherBuilder::new();
        let e = limit(&mut b).build(r"(\w{1000}){1000}").unwrap_err();
        let e = compile_error(&e.to_string(), "pattern").expect("a size-limit error");
        assert_eq!(e.fields["field"], "pattern");
        assert!(limit(&mut RegexMatcherBuilder::new())
            .build("fn main")
            .is_ok());
        assert!(compile_error("unclosed group", "pattern").is_none());
    }
}
