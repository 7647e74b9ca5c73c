//! C and C++ function bodies, found lexically, so that navigation can parse around them.
//!
//! Navigation needs a C file's definitions and the names it uses. Nearly all definitions sit
//! outside function bodies, and bodies are most of the text, so [`find`] marks the bodies that
//! hold no definition and the tags parse leaves their insides out (tree-sitter's included
//! ranges: the parser sees `int f(void) {}`, every node keeps its place in the whole text);
//! the names a skipped body uses are counted by [`words`], a lexer that knows C's comments,
//! strings, character literals and preprocessor lines. A `#define` inside a body is parsed
//! (it is a definition); a body that defines a type (`struct s {`, `enum {`, `typedef`,
//! `using`) is not skipped; a file whose braces or `#if`s do not pair up around its bodies is
//! parsed whole ([`find`] answers `None`). The caller checks on the tree that every skipped
//! `{` opened a function's body, and parses the file whole when one did not.

use std::ops::Range;

/// Whether `b` can be part of an identifier (bytes of non-ASCII characters count).
pub fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b >= 0x80
}

/// What a skipped pair of braces holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Holds {
    /// A function's body: `) {`.
    Statements,
    /// A variable's initializer: `= {`.
    Values,
}

/// A function body (or an initializer) whose inside the parse leaves out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Body {
    pub holds: Holds,
    /// Offset of the body's `{`.
    pub open: usize,
    /// Offset of its `}`.
    pub close: usize,
    /// The parts of the inside that are parsed, in order: its `#define` lines (from `#` to just
    /// past the line's end), which are definitions, and in a function's body one `;`, so that
    /// the parser sees `f(...) {;}`, a function's body and not an empty initializer.
    pub kept: Vec<Range<usize>>,
}

impl Body {
    /// The parts of the inside that are left out: between the braces, around what is kept.
    pub fn gaps(&self) -> impl Iterator<Item = Range<usize>> + '_ {
        let starts = std::iter::once(self.open + 1).chain(self.kept.iter().map(|d| d.end));
        let ends = self
            .kept
            .iter()
            .map(|d| d.start)
            .chain(std::iter::once(self.close));
        starts
            .zip(ends)
            .map(|(s, e)| s..e)
            .filter(|r| r.start < r.end)
    }
}

/// What the token before the current one was.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Last {
    Nothing,
    CloseParen,
    /// An `=` (not `==`).
    Assign,
    /// A word that can precede a statement's `{` (`else`, `do`, `try`).
    BlockWord,
    /// Any other word: a `{` after it opens a type's body (`struct s {`, `enum {`).
    Word,
    Other,
}

/// The body being read.
struct Open {
    holds: Holds,
    open: usize,
    /// Brace depth inside it.
    depth: usize,
    /// The `#if` depth at its `{`.
    cond: usize,
    /// Whether it can be left out so far.
    ok: bool,
    defines: Vec<Range<usize>>,
    /// Its last `;` in code.
    semi: Option<usize>,
}

impl Open {
    /// The body, closed at `close`, if it can be left out.
    fn close(self, close: usize, cond: usize) -> Option<Body> {
        if !self.ok || cond != self.cond {
            return None;
        }
        let mut kept = self.defines;
        match (self.holds, self.semi) {
            (Holds::Statements, Some(semi)) => {
                let at = kept.partition_point(|d| d.start < semi);
                kept.insert(at, semi..semi + 1);
            }
            // An empty body is kept as it is.
            (Holds::Statements, None) => return None,
            (Holds::Values, _) => {}
        }
        Some(Body {
            holds: self.holds,
            open: self.open,
            close,
            kept,
        })
    }
}

/// The bodies of `text` (C or C++) that can be left out of its parse, in text order; `None`
/// when its braces or `#if`s do not pair up around them (the file is then parsed whole).
pub fn find(text: &str) -> Option<Vec<Body>> {
    let b = text.as_bytes();
    let mut bodies = Vec::new();
    let mut i = 0;
    let mut last = Last::Nothing;
    let mut line_start = true;
    // Braces outside bodies (`extern "C" {`, namespaces, classes, initializers).
    let mut outer = 0usize;
    let mut cond = 0usize;
    let mut body: Option<Open> = None;
    while i < b.len() {
        let c = b[i];
        match c {
            b'\n' => {
                line_start = true;
                i += 1;
                continue;
            }
            b' ' | b'\t' | b'\r' | b'\x0c' | b'\x0b' => {
                i += 1;
                continue;
            }
            b'\\' if b.get(i + 1) == Some(&b'\n') => {
                i += 2;
                continue;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i = block_comment_end(b, i);
                continue;
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                i = line_end(b, i);
                continue;
            }
            b'#' if line_start => {
                let end = directive_end(b, i);
                let (name, _) = directive_name(b, i);
                match name {
                    b"if" | b"ifdef" | b"ifndef" => cond += 1,
                    b"endif" | b"else" | b"elif" | b"elifdef" | b"elifndef" => {
                        if let Some(body) = body.as_mut() {
                            if cond <= body.cond {
                                // A branch or an end whose `#if` is outside the body.
                                body.ok = false;
                            }
                        }
                        if name == b"endif" {
                            cond = cond.checked_sub(1)?;
                        }
                    }
                    b"define" => {
                        if let Some(body) = body.as_mut() {
                            body.defines.push(i..(end + 1).min(b.len()));
                        }
                    }
                    _ => {}
                }
                last = Last::Other;
                i = end;
                continue;
            }
            _ => {}
        }
        line_start = false;
        match c {
            b'"' | b'\'' => {
                i = quoted_end(b, i, false);
                last = Last::Other;
            }
            b')' => {
                i += 1;
                last = Last::CloseParen;
            }
            b';' => {
                if let Some(body) = body.as_mut() {
                    body.semi = Some(i);
                }
                i += 1;
                last = Last::Other;
            }
            b'{' => {
                let holds = match last {
                    Last::CloseParen => Some(Holds::Statements),
                    Last::Assign => Some(Holds::Values),
                    _ => None,
                };
                match (body.as_mut(), holds) {
                    (Some(body), _) => {
                        if last == Last::Word {
                            body.ok = false;
                        }
                        body.depth += 1;
                    }
                    (None, Some(holds)) => {
                        body = Some(Open {
                            holds,
                            open: i,
                            depth: 1,
                            cond,
                            ok: true,
                            defines: Vec::new(),
                            semi: None,
                        });
                    }
                    (None, None) => outer += 1,
                }
                i += 1;
                last = Last::Other;
            }
            b'}' => {
                match body.as_mut() {
                    Some(open) => {
                        open.depth -= 1;
                        if open.depth == 0 {
                            bodies.extend(body.take()?.close(i, cond));
                        }
                    }
                    None => outer = outer.checked_sub(1)?,
                }
                i += 1;
                last = Last::Other;
            }
            _ if is_word_byte(c) => {
                let start = i;
                i = word_end(b, i);
                // A string's prefix (`L"..."`, `u8R"(...)"`) belongs to the string.
                if matches!(b.get(i), Some(b'"' | b'\'')) && is_string_prefix(&b[start..i]) {
                    i = quoted_end(b, i, b[i - 1] == b'R');
                    last = Last::Other;
                    continue;
                }
                let word = &b[start..i];
                if c.is_ascii_digit() {
                    last = Last::Other;
                } else if matches!(word, b"else" | b"do" | b"try") {
                    last = Last::BlockWord;
                } else {
                    if matches!(word, b"typedef" | b"using") {
                        if let Some(body) = body.as_mut() {
                            body.ok = false;
                        }
                    }
                    last = Last::Word;
                }
            }
            b'=' if b.get(i + 1) == Some(&b'=') => {
                i += 2;
                last = Last::Other;
            }
            b'=' => {
                i += 1;
                last = Last::Assign;
            }
            _ => {
                i += 1;
                last = Last::Other;
            }
        }
    }
    (body.is_none() && outer == 0 && cond == 0).then_some(bodies)
}

/// Calls `f` with the offset and text of every name used in `text[range]` (code inside a
/// function body): identifiers outside comments, strings, character literals and numbers, that
/// are not C keywords; a preprocessor line's directive and an `#include`'s file are not names.
/// `range` starts outside any comment, string or literal.
pub fn words<'t>(text: &'t str, range: Range<usize>, mut f: impl FnMut(usize, &'t str)) {
    let b = &text.as_bytes()[..range.end];
    let mut i = range.start;
    let mut line_start = i == 0 || b[i - 1] == b'\n';
    while i < b.len() {
        let c = b[i];
        match c {
            b'\n' => {
                line_start = true;
                i += 1;
            }
            b' ' | b'\t' | b'\r' | b'\x0c' | b'\x0b' => i += 1,
            b'/' if b.get(i + 1) == Some(&b'*') => i = block_comment_end(b, i),
            b'/' if b.get(i + 1) == Some(&b'/') => i = line_end(b, i),
            b'#' if line_start => {
                let (name, after) = directive_name(b, i);
                i = if name == b"include" {
                    directive_end(b, i)
                } else {
                    after
                };
                line_start = false;
            }
            b'"' | b'\'' => {
                i = quoted_end(b, i, false);
                line_start = false;
            }
            _ if is_word_byte(c) => {
                let start = i;
                i = word_end(b, i);
                if matches!(b.get(i), Some(b'"' | b'\'')) && is_string_prefix(&b[start..i]) {
                    i = quoted_end(b, i, b[i - 1] == b'R');
                } else if !c.is_ascii_digit() && !is_keyword(&b[start..i]) {
                    // Word bytes are ASCII or whole UTF-8 sequences, so these are boundaries.
                    f(start, &text[start..i]);
                }
                line_start = false;
            }
            _ => {
                i += 1;
                line_start = false;
            }
        }
    }
}

/// C's keywords (with GNU's spellings) and the grammar's primitive types: words that are never
/// an identifier in C.
fn is_keyword(word: &[u8]) -> bool {
    matches!(
        word,
        b"auto"
            | b"break"
            | b"case"
            | b"char"
            | b"const"
            | b"continue"
            | b"default"
            | b"do"
            | b"double"
            | b"else"
            | b"enum"
            | b"extern"
            | b"float"
            | b"for"
            | b"goto"
            | b"if"
            | b"inline"
            | b"int"
            | b"long"
            | b"register"
            | b"restrict"
            | b"return"
            | b"short"
            | b"signed"
            | b"sizeof"
            | b"static"
            | b"struct"
            | b"switch"
            | b"typedef"
            | b"union"
            | b"unsigned"
            | b"void"
            | b"volatile"
            | b"while"
            | b"bool"
            | b"true"
            | b"false"
            | b"NULL"
            | b"nullptr"
            | b"defined"
            | b"_Alignas"
            | b"_Alignof"
            | b"_Atomic"
            | b"_Generic"
            | b"_Noreturn"
            | b"_Static_assert"
            | b"static_assert"
            | b"alignof"
            | b"offsetof"
            | b"asm"
            | b"__asm__"
            | b"__asm"
            | b"__attribute__"
            | b"__attribute"
            | b"__extension__"
            | b"__inline"
            | b"__inline__"
            | b"__restrict"
            | b"__restrict__"
            | b"__volatile__"
            | b"__alignof__"
            | b"__thread"
            | b"thread_local"
            | b"size_t"
            | b"ssize_t"
            | b"ptrdiff_t"
            | b"intptr_t"
            | b"uintptr_t"
            | b"charptr_t"
            | b"nullptr_t"
            | b"max_align_t"
            | b"int8_t"
            | b"int16_t"
            | b"int32_t"
            | b"int64_t"
            | b"uint8_t"
            | b"uint16_t"
            | b"uint32_t"
            | b"uint64_t"
            | b"char8_t"
            | b"char16_t"
            | b"char32_t"
    )
}

fn word_end(b: &[u8], mut i: usize) -> usize {
    let number = b[i].is_ascii_digit();
    while i < b.len() && (is_word_byte(b[i]) || (number && matches!(b[i], b'.' | b'\''))) {
        i += 1;
    }
    i
}

fn is_string_prefix(word: &[u8]) -> bool {
    matches!(
        word,
        b"L" | b"u" | b"U" | b"u8" | b"R" | b"LR" | b"uR" | b"UR" | b"u8R"
    )
}

/// Past the `*/` of the comment at `i`.
fn block_comment_end(b: &[u8], i: usize) -> usize {
    memchr::memmem::find(&b[i + 2..], b"*/").map_or(b.len(), |e| i + 2 + e + 2)
}

/// The end (the newline) of the line comment at `i`, a `\` at a line's end continuing it.
fn line_end(b: &[u8], mut i: usize) -> usize {
    loop {
        match memchr::memchr(b'\n', &b[i..]) {
            None => return b.len(),
            Some(n) => {
                let at = i + n;
                let escaped = at > 0 && b[at - 1] == b'\\'
                    || at > 1 && b[at - 1] == b'\r' && b[at - 2] == b'\\';
                if !escaped {
                    return at;
                }
                i = at + 1;
            }
        }
    }
}

/// The directive word of the preprocessor line at `i` (its `#`), and where it ends.
fn directive_name(b: &[u8], i: usize) -> (&[u8], usize) {
    let mut s = i + 1;
    while s < b.len() && matches!(b[s], b' ' | b'\t') {
        s += 1;
    }
    let mut e = s;
    while e < b.len() && b[e].is_ascii_alphanumeric() {
        e += 1;
    }
    (&b[s..e], e)
}

/// The end (the newline) of the preprocessor line at `i`: `\` continues it, and a comment
/// that starts on it may run over lines.
fn directive_end(b: &[u8], mut i: usize) -> usize {
    while i < b.len() {
        match b[i] {
            b'\n' => return i,
            b'\\' if b.get(i + 1) == Some(&b'\n') => i += 2,
            b'\\' if b.get(i + 1) == Some(&b'\r') && b.get(i + 2) == Some(&b'\n') => i += 3,
            b'/' if b.get(i + 1) == Some(&b'*') => i = block_comment_end(b, i),
            b'/' if b.get(i + 1) == Some(&b'/') => return line_end(b, i),
            b'"' | b'\'' => i = quoted_end(b, i, false),
            _ => i += 1,
        }
    }
    b.len()
}

/// Past the string or character literal whose quote is at `i` (a raw string's, `R"x(...)x"`,
/// when `raw`: its prefix ends in `R`). An unclosed one ends at its line's end.
fn quoted_end(b: &[u8], i: usize, raw: bool) -> usize {
    let q = b[i];
    if q == b'"' && raw {
        if let Some(open) = memchr::memchr(b'(', &b[i + 1..]).map(|o| i + 1 + o) {
            let delim = &b[i + 1..open];
            if delim.len() <= 16 && !delim.contains(&b'\n') {
                let mut close = Vec::with_capacity(delim.len() + 2);
                close.push(b')');
                close.extend_from_slice(delim);
                close.push(b'"');
                return memchr::memmem::find(&b[open..], &close)
                    .map_or(b.len(), |e| open + e + close.len());
            }
        }
    }
    let mut j = i + 1;
    while j < b.len() {
        match b[j] {
            b'\\' => j += 2,
            b'\n' => return j,
            c if c == q => return j + 1,
            _ => j += 1,
        }
    }
    b.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn skipped(text: &str) -> Option<Vec<(&str, Vec<&str>)>> {
        let bodies = find(text)?;
        Some(
            bodies
                .iter()
                .map(|b| {
                    (
                        &text[b.open..=b.close],
                        b.kept.iter().map(|d| &text[d.clone()]).collect(),
                    )
                })
                .collect(),
        )
    }

    #[test]
    fn function_bodies_are_found_and_type_bodies_are_not() {
        let text = "struct s { int a; };\nstatic int f(int a)\n{\n\tif (a) { a++; }\n\treturn a; /* } */\n}\nenum e { A, B };\nint x[] = { 1, 2 };\nextern \"C\" {\nvoid g(void) { h(\"}\", '}'); }\n}\n";
        assert_eq!(
            skipped(text).unwrap(),
            [
                ("{\n\tif (a) { a++; }\n\treturn a; /* } */\n}", vec![";"]),
                ("{ 1, 2 }", vec![]),
                ("{ h(\"}\", '}'); }", vec![";"]),
            ]
        );
        let holds: Vec<Holds> = find(text).unwrap().iter().map(|b| b.holds).collect();
        assert_eq!(holds, [Holds::Statements, Holds::Values, Holds::Statements]);
    }

    #[test]
    fn bodies_that_define_something_keep_their_defines_or_stay() {
        // A #define inside is parsed; a local struct, enum or typedef keeps the body whole.
        let text = "void f(void) {\n#define X 1\n  g(X);\n}\nvoid h(void) { struct t { int a; } v; }\nvoid k(void) { enum { A } e; }\nvoid m(void) { typedef int i; }\nvoid n(void) { if (a) { } else { } do { } while (0); }\n";
        assert_eq!(
            skipped(text).unwrap(),
            [
                ("{\n#define X 1\n  g(X);\n}", vec!["#define X 1\n", ";"]),
                ("{ if (a) { } else { } do { } while (0); }", vec![";"]),
            ]
        );
        let b = &find(text).unwrap()[0];
        let gaps: Vec<&str> = b.gaps().map(|r| &text[r]).collect();
        assert_eq!(gaps, ["\n", "  g(X)", "\n"]);
        // An empty body stays (`f(void) {}` could be read as a declaration), and so does one
        // whose only `;` is in a comment.
        assert_eq!(
            skipped(
                "void f(void) {}
void g(void) { /* ; */ }
"
            ),
            Some(vec![])
        );
    }

    #[test]
    fn unpaired_braces_or_conditionals_parse_the_file_whole() {
        // Two headers in #if branches share one body: the braces do not pair up.
        assert!(find(
            "#ifdef A\nint f(int a) {\n#else\nint f(int a, int b) {\n#endif\n  return 0;\n}\n"
        )
        .is_none());
        assert!(find("int f(void) { }\n}\n").is_none());
        assert!(find("int f(void) {\n").is_none());
        // A body that an #if branch cuts in two is not skipped.
        let text = "#if A\nint f(void) {\n  x();\n#else\n  y();\n#endif\n}\n";
        assert_eq!(skipped(text), Some(vec![]));
        // An #if wholly inside a body is fine.
        let text = "int f(void) {\n#if A\n  x();\n#endif\n}\n";
        assert_eq!(skipped(text).unwrap().len(), 1);
    }

    #[test]
    fn words_skip_comments_strings_keywords_and_directives() {
        let text = "{ /* foo */ int bar = baz(\"qux\", 'q', L\"w\", R\"x(a \" b)x\"); // zap\n#ifdef CONFIG_X\n#include <linux/fs.h>\n return 0x1fUL + 1'000 + s->field + NULL; }";
        let mut found = Vec::new();
        words(text, 1..text.len() - 1, |at, w| {
            assert_eq!(&text[at..at + w.len()], w);
            found.push(w);
        });
        assert_eq!(found, ["bar", "baz", "CONFIG_X", "s", "field"]);
        // A macro before a string is not a raw string's `R` prefix.
        let text = "{ printk(KERN_ERR\"x(%d)\\n\", n); done(); }";
        let mut found = Vec::new();
        words(text, 1..text.len() - 1, |_, w| found.push(w));
        assert_eq!(found, ["printk", "KERN_ERR", "n", "done"]);
    }
}
