//! JavaScript regular expressions (`new RegExp(source, flags)`) on Rust's engines, for the
//! tools whose contract says "JavaScript `RegExp`": replace's pattern, and monitor_start's
//! `ready_when` and monitor_poll's `match`.
//!
//! A pattern is first translated where the two syntaxes differ ([`js_to_rust`]: `\d`, `\w`,
//! `\b` keep their ASCII meaning, `[^]` matches anything, a `{` that is not a quantifier is
//! literal, …), then compiled on the `regex` crate (linear time). What that crate leaves out by
//! design, look-around and backreferences, runs on `fancy-regex` (backtracking, on top of the
//! `regex` crate) with a step limit: a search that passes it gives up (`None` / `false` from
//! the search methods) rather than run without end.

use std::fmt::Write as _;

use regex::{Regex, RegexBuilder};

/// Compiled-program size limit for one pattern.
const REGEX_SIZE_LIMIT: usize = 16 << 20;

/// Backtracking steps one match of a look-around or backreference pattern may take.
const BACKTRACK_LIMIT: usize = 1_000_000;

/// A `RegExp`'s flags beyond `g`, which every search here has.
#[derive(Debug, Clone, Copy, Default)]
pub struct Flags {
    /// `i`.
    pub ignore_case: bool,
    /// `m` and `s` together: `^`/`$` at line ends, and `.` matches a newline.
    pub multiline: bool,
}

/// Compiles a JavaScript pattern with `flags`; a pattern neither engine takes is `Err` with
/// the engine's one-line reason (`unclosed group`).
pub fn compile(pattern: &str, flags: Flags) -> Result<JsRegex, String> {
    let translated = js_to_rust(pattern);
    let (i, m) = (flags.ignore_case, flags.multiline);
    let plain = RegexBuilder::new(&translated)
        .case_insensitive(i)
        .multi_line(m)
        .dot_matches_new_line(m)
        .size_limit(REGEX_SIZE_LIMIT)
        .build();
    let e = match plain {
        Ok(re) => return Ok(JsRegex::Plain(re)),
        Err(e) => engine_message(&e),
    };
    if !needs_backtracking(&e, &translated) {
        return Err(e);
    }
    let inline = match (i, m) {
        (false, false) => "",
        (true, false) => "(?i)",
        (false, true) => "(?ms)",
        (true, true) => "(?ims)",
    };
    fancy_regex::RegexBuilder::new(&format!("{inline}{translated}"))
        .backtrack_limit(BACKTRACK_LIMIT)
        .delegate_size_limit(REGEX_SIZE_LIMIT)
        .build()
        .map(JsRegex::Fancy)
        .map_err(|e| e.to_string())
}

/// A compiled JavaScript pattern: on the `regex` crate (linear time) when it can express it,
/// else, for look-around and backreferences, on `fancy-regex` (backtracking, with a step
/// limit), which the `regex` crate leaves out by design.
#[derive(Debug)]
pub enum JsRegex {
    Plain(Regex),
    Fancy(fancy_regex::Regex),
}

/// The groups of a pattern: how many, and their names (index 0 is the whole match).
pub struct Groups {
    pub count: usize,
    pub names: Vec<Option<String>>,
}

impl JsRegex {
    pub fn groups(&self) -> Groups {
        let names: Vec<Option<String>> = match self {
            JsRegex::Plain(re) => re.capture_names().map(|n| n.map(str::to_string)).collect(),
            JsRegex::Fancy(re) => re.capture_names().map(|n| n.map(str::to_string)).collect(),
        };
        Groups {
            count: names.len().saturating_sub(1),
            names,
        }
    }

    /// Calls `found` with each match's group spans (`spans[0]` the whole match) until it
    /// returns `None`. False when a backtracking pattern gave up (its step limit).
    pub fn each_match(
        &self,
        haystack: &str,
        mut found: impl FnMut(&[Option<std::ops::Range<usize>>]) -> Option<()>,
    ) -> bool {
        type Spans = Vec<Option<std::ops::Range<usize>>>;
        let matches: Box<dyn Iterator<Item = Option<Spans>>> = match self {
            JsRegex::Plain(re) => Box::new(
                re.captures_iter(haystack)
                    .map(|c| Some(c.iter().map(|m| m.map(|m| m.range())).collect())),
            ),
            JsRegex::Fancy(re) => Box::new(re.captures_iter(haystack).map(|c| {
                c.ok()
                    .map(|c| c.iter().map(|m| m.map(|m| m.range())).collect())
            })),
        };
        for spans in matches {
            // `None`: the backtracking engine gave up.
            let Some(spans) = spans else {
                return false;
            };
            if found(&spans).is_none() {
                break;
            }
        }
        true
    }

    /// `RegExp.prototype.test`: whether the pattern matches somewhere in `haystack`; `None`
    /// when a backtracking pattern gave up (its step limit).
    pub fn is_match(&self, haystack: &str) -> Option<bool> {
        match self {
            JsRegex::Plain(re) => Some(re.is_match(haystack)),
            JsRegex::Fancy(re) => re.is_match(haystack).ok(),
        }
    }

    /// Whether the pattern matches the empty string (a pattern that gives up counts as one).
    pub fn matches_empty(&self) -> bool {
        self.is_match("").unwrap_or(true)
    }
}

/// Whether the `regex` crate refused a pattern for what it leaves out by design: look-around
/// and backreferences (`\1`, or `\k<name>`, which it reads as an unknown escape).
fn needs_backtracking(message: &str, pattern: &str) -> bool {
    message.contains("look-around")
        || message.contains("backreferences")
        || pattern.contains("\\k<")
}

/// The useful last line of the `regex` crate's error (`error: unclosed group`).
fn engine_message(e: &regex::Error) -> String {
    let text = e.to_string();
    let last = text
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or(&text);
    last.trim().trim_start_matches("error: ").to_string()
}

/// Rewrites JavaScript regex syntax into the `regex` crate's with the same meaning where the
/// two differ: ASCII `\d \w \b` (and their negations), `[^]` / `[]`, `\cX`, `\0`, a literal `{`
/// that is not a quantifier, and `[`, `&`, `~` inside a class (set operators there).
fn js_to_rust(src: &str) -> String {
    let chars: Vec<char> = src.chars().collect();
    let mut out = String::with_capacity(src.len() + 8);
    let mut in_class = false;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '\\' if i + 1 < chars.len() => {
                let n = chars[i + 1];
                i += 2;
                match (n, in_class) {
                    ('d', false) => out.push_str("[0-9]"),
                    ('d', true) => out.push_str("0-9"),
                    ('D', _) => out.push_str("[^0-9]"),
                    ('w', false) => out.push_str("[0-9A-Za-z_]"),
                    ('w', true) => out.push_str("0-9A-Za-z_"),
                    ('W', _) => out.push_str("[^0-9A-Za-z_]"),
                    ('b', false) => out.push_str(r"(?-u:\b)"),
                    ('B', false) => out.push_str(r"(?-u:\B)"),
                    ('b', true) => out.push_str(r"\x08"),
                    ('c', _) if i < chars.len() && chars[i].is_ascii_alphabetic() => {
                        let _ = write!(out, r"\x{:02X}", chars[i] as u32 % 32);
                        i += 1;
                    }
                    ('0', _) if !chars.get(i).is_some_and(char::is_ascii_digit) => {
                        out.push_str(r"\x00")
                    }
                    ('/', _) => out.push('/'),
                    _ => {
                        out.push('\\');
                        out.push(n);
                    }
                }
                continue;
            }
            '[' if !in_class => {
                if chars.get(i + 1) == Some(&'^') && chars.get(i + 2) == Some(&']') {
                    out.push_str(r"[\s\S]");
                    i += 3;
                    continue;
                }
                if chars.get(i + 1) == Some(&']') {
                    out.push_str(r"[^\s\S]");
                    i += 2;
                    continue;
                }
                in_class = true;
                out.push('[');
                if chars.get(i + 1) == Some(&'^') {
                    out.push('^');
                    i += 1;
                }
                // A `]` first in a JS class closes it (the empty class, handled above); in
                // the regex crate it would be a literal, so nothing to do here.
            }
            ']' if in_class => {
                in_class = false;
                out.push(']');
            }
            '[' | '&' | '~' if in_class => {
                out.push('\\');
                out.push(c);
            }
            '-' if in_class && chars.get(i + 1) == Some(&'-') => out.push_str(r"\-"),
            '{' if !in_class && !is_quantifier(&chars[i..]) => out.push_str(r"\{"),
            '}' if !in_class => out.push_str(r"\}"),
            _ => out.push(c),
        }
        if c == '{' && !in_class && is_quantifier(&chars[i..]) {
            // Copy the whole quantifier so its `}` is not escaped.
            while i + 1 < chars.len() && chars[i + 1] != '}' {
                i += 1;
                out.push(chars[i]);
            }
            i += 1;
            out.push('}');
        }
        i += 1;
    }
    out
}

/// Whether `s` (starting at a `{`) is a quantifier: `{n}`, `{n,}` or `{n,m}`.
fn is_quantifier(s: &[char]) -> bool {
    let mut i = 1;
    let digits = |i: &mut usize| {
        let start = *i;
        while s.get(*i).is_some_and(char::is_ascii_digit) {
            *i += 1;
        }
        *i > start
    };
    if !digits(&mut i) {
        return false;
    }
    if s.get(i) == Some(&',') {
        i += 1;
        digits(&mut i);
    }
    s.get(i) == Some(&'}')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn test(pattern: &str, text: &str) -> Option<bool> {
        compile(pattern, Flags::default()).unwrap().is_match(text)
    }

    #[test]
    fn test_follows_javascript_syntax_and_meaning() {
        // `\d` and `\w` are ASCII in JavaScript.
        assert_eq!(test(r"^\d+$", "٣"), Some(false));
        assert_eq!(test(r"^\w$", "é"), Some(false));
        // A `{` that is not a quantifier is literal, as in a JSON log line.
        assert_eq!(
            test(r#"{"status":"ready"}"#, r#"{"status":"ready"}"#),
            Some(true)
        );
        assert_eq!(
            test(
                r"listening on http:\/\/localhost:\d+",
                "listening on http://localhost:5173"
            ),
            Some(true)
        );
        // Look-around and backreferences run on the backtracking engine.
        assert_eq!(test(r"ready(?! in)", "ready in 3s"), Some(false));
        assert_eq!(test(r"ready(?! in)", "ready!"), Some(true));
        assert_eq!(test(r"(\w)\1", "abba"), Some(true));
        // No flags: `^` is the start of the text only, and case matters.
        assert_eq!(test("^b", "a\nb"), Some(false));
        assert_eq!(test("READY", "ready"), Some(false));
    }

    #[test]
    fn flags_and_errors() {
        let m = Flags {
            ignore_case: true,
            multiline: true,
        };
        let re = compile("^b.c$", m).unwrap();
        assert_eq!(re.is_match("a\nB\nc"), Some(true));
        assert_eq!(
            compile("(", Flags::default()).unwrap_err(),
            "unclosed group"
        );
        assert!(compile("(?<=a", Flags::default()).is_err());
    }

    #[test]
    fn a_pattern_that_backtracks_without_end_gives_up() {
        let re = compile(r"(a|aa)+\1c", Flags::default()).unwrap();
        assert_eq!(re.is_match(&format!("{}!", "a".repeat(40))), None);
        assert!(!re.matches_empty());
    }
}
