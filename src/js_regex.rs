//! JavaScript regular expressions (`new RegExp(source, flags)`) on Rust's engines, for the
//! tools whose contract says "JavaScript `RegExp`": replace's pattern, and monitor_start's
//! `ready_when` and monitor_poll's `match`.
//!
//! A pattern is first parsed as V8 parses one without the `u` flag (`translate`), which
//! refuses what V8 refuses with V8's message and rewrites the rest in the `regex` crate's
//! syntax with JavaScript's meaning (`\d`, `\w`, `\b` stay ASCII, `\p{L}` is `p{L}`, a `{`
//! that is not a quantifier is literal, …); that is compiled on the `regex` crate (linear
//! time). What that crate leaves out by
//! design, look-around and backreferences, runs on `fancy-regex` (backtracking, on top of the
//! `regex` crate) with a step limit: a search that passes it gives up (`None` / `false` from
//! the search methods) rather than run without end.

use std::fmt::Write as _;

use regex::{Regex, RegexBuilder};

/// Compiled-program size limit for one pattern.
const REGEX_SIZE_LIMIT: usize = 16 << 20;

/// Backtracking steps one match of a look-around or backreference pattern may take.
const BACKTRACK_LIMIT: usize = 1_000_000;

/// A `RegExp`'s flags.
#[derive(Debug, Clone, Copy, Default)]
pub struct Flags {
    /// `g`: it names the pattern in an error message only (the caller decides how often to
    /// search).
    pub global: bool,
    /// `i`.
    pub ignore_case: bool,
    /// `m` and `s` together: `^`/`$` at line ends, and `.` matches a newline.
    pub multiline: bool,
}

impl Flags {
    /// The flags as `RegExp.prototype.flags` spells them (`gims` order).
    fn source(self) -> String {
        let mut s = String::new();
        for (on, f) in [
            (self.global, "g"),
            (self.ignore_case, "i"),
            (self.multiline, "ms"),
        ] {
            if on {
                s.push_str(f);
            }
        }
        s
    }
}

/// Compiles a JavaScript pattern with `flags`. A pattern that JavaScript refuses is `Err` with
/// V8's message (`Invalid regular expression: /(/g: Unterminated group`); one that only the
/// engine here cannot take (a program over its size limit) gets the engine's reason in the
/// same frame.
pub fn compile(pattern: &str, flags: Flags) -> Result<JsRegex, String> {
    let refused = |reason: &str| refusal(pattern, flags, reason);
    let t = translate(pattern, flags.multiline, false).map_err(refused)?;
    let (i, m) = (flags.ignore_case, flags.multiline);
    if !t.backtracking {
        return RegexBuilder::new(&t.pattern)
            .case_insensitive(i)
            .multi_line(m)
            .size_limit(REGEX_SIZE_LIMIT)
            .build()
            .map(JsRegex::Plain)
            .map_err(|e| refused(&engine_message(&e)));
    }
    let inline = match (i, m) {
        (false, false) => "",
        (true, false) => "(?i)",
        (false, true) => "(?m)",
        (true, true) => "(?im)",
    };
    let t = translate(pattern, flags.multiline, true).map_err(refused)?;
    fancy_regex::RegexBuilder::new(&format!("{inline}{}", t.pattern))
        .backtrack_limit(BACKTRACK_LIMIT)
        .delegate_size_limit(REGEX_SIZE_LIMIT)
        .build()
        .map(JsRegex::Fancy)
        .map_err(|e| refused(&e.to_string()))
}

/// For a pattern that starts with an inline flag group (`(?i)`, `(?ms:`), which other regex
/// dialects have and JavaScript does not: a word saying so, to add to the refusal where the
/// contract's exact text is not required.
pub fn inline_flags_hint(pattern: &str) -> Option<&'static str> {
    let rest = pattern.strip_prefix("(?")?;
    let flags = rest.len()
        - rest
            .trim_start_matches(['i', 'm', 's', 'x', 'u', '-'])
            .len();
    let after = rest[flags..].chars().next();
    (flags > 0 && matches!(after, Some(')' | ':')))
        .then_some("JavaScript regular expressions have no inline flags such as (?i)")
}

/// V8's message for a pattern it refuses.
fn refusal(pattern: &str, flags: Flags, reason: &str) -> String {
    format!(
        "Invalid regular expression: /{pattern}/{}: {reason}",
        flags.source()
    )
}

/// A JavaScript pattern in the `regex` crate's syntax with its JavaScript meaning, for an
/// engine built on that syntax (grep's), which sets the flags itself; V8's message when V8
/// refuses it. `Ok(None)`: the pattern needs look-around or a backreference, which that
/// syntax cannot express.
pub fn rust_syntax(pattern: &str, flags: Flags) -> Result<Option<String>, String> {
    let t = translate(pattern, flags.multiline, false)
        .map_err(|reason| refusal(pattern, flags, reason))?;
    Ok((!t.backtracking).then_some(t.pattern))
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
        // `String.prototype.replace` with `g`: each search starts where the last match ended
        // (an empty match right after a non-empty one counts, which the engines' own iterators
        // skip), one character further after an empty match.
        let mut at = 0;
        while at <= haystack.len() {
            let spans: Vec<Option<std::ops::Range<usize>>> = match self {
                JsRegex::Plain(re) => match re.captures_at(haystack, at) {
                    Some(c) => c.iter().map(|m| m.map(|m| m.range())).collect(),
                    None => break,
                },
                JsRegex::Fancy(re) => match re.captures_from_pos(haystack, at) {
                    Ok(Some(c)) => c.iter().map(|m| m.map(|m| m.range())).collect(),
                    Ok(None) => break,
                    // The backtracking engine gave up.
                    Err(_) => return false,
                },
            };
            let Some(whole) = spans[0].clone() else {
                break;
            };
            if found(&spans).is_none() {
                break;
            }
            at = if whole.is_empty() {
                haystack[whole.end..]
                    .chars()
                    .next()
                    .map_or(haystack.len() + 1, |c| whole.end + c.len_utf8())
            } else {
                whole.end
            };
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

/// A pattern rewritten in the `regex` crate's syntax.
#[derive(Debug, PartialEq, Eq)]
struct Translated {
    pattern: String,
    /// It holds look-around or a backreference: only the backtracking engine runs it.
    backtracking: bool,
}

/// JavaScript's `\s`: WhiteSpace and LineTerminator, as class members.
const JS_SPACE: &str =
    r"\t\n\x0B\f\r \xA0\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}\x{FEFF}";
/// JavaScript's `\w` and `\d` (ASCII), as class members.
const JS_WORD: &str = "0-9A-Za-z_";
const JS_DIGIT: &str = "0-9";
/// V8's largest quantifier bound, which stands for infinity.
const V8_INFINITY: u64 = (1 << 31) - 1;

/// A class that matches nothing (JavaScript's `[]`, or a lone surrogate, which no text
/// decoded from UTF-8 holds).
const NOTHING: &str = r"[^\s\S]";

/// Rewrites a JavaScript pattern (no `u` or `v` flag: the Annex B grammar, as V8 parses it)
/// into the `regex` crate's syntax with the same meaning: ASCII `\d \w \b`, JavaScript's `\s`
/// and `.`, `[^]` and `[]`, identity escapes (`\a` is `a`, `\p{L}` is `p{L}`), legacy octal
/// escapes, `\cX`, `\xHH`, `\uHHHH`, a `{` that is not a quantifier as a literal, and `\k` as a
/// literal `k` in a pattern without named groups. A pattern V8 refuses is `Err` with V8's
/// reason, the first one its parser meets (`Unterminated group`).
///
/// `for_backtracking` writes `\b` and `\B` as look-around, for `fancy-regex`, which cannot
/// switch Unicode off inline as `(?-u:\b)` does.
fn translate(src: &str, dot_all: bool, for_backtracking: bool) -> Result<Translated, &'static str> {
    let chars: Vec<char> = src.chars().collect();
    let (captures, numbered) = scan_captures(&chars);
    let mut p = Parser {
        chars,
        at: 0,
        out: String::with_capacity(src.len() + 16),
        dot_all,
        for_backtracking,
        captures,
        numbered,
        names: Vec::new(),
        references: Vec::new(),
        backtracking: false,
    };
    p.disjunction()?;
    if p.references.iter().any(|r| !p.names.contains(r)) {
        return Err("Invalid named capture referenced");
    }
    Ok(Translated {
        pattern: p.out,
        backtracking: p.backtracking,
    })
}

/// How many capturing groups the whole pattern has, and the names of the named ones with their
/// numbers: V8's pre-scan, which decides what `\1` and `\k` mean wherever they stand.
fn scan_captures(chars: &[char]) -> (usize, Vec<(String, usize)>) {
    let (mut count, mut names) = (0, Vec::new());
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '\\' => i += 1,
            '[' => {
                i += 1;
                while i < chars.len() && chars[i] != ']' {
                    if chars[i] == '\\' {
                        i += 1;
                    }
                    i += 1;
                }
            }
            '(' if chars.get(i + 1) != Some(&'?') => count += 1,
            '(' if chars.get(i + 2) == Some(&'<')
                && !matches!(chars.get(i + 3), Some('=' | '!')) =>
            {
                count += 1;
                let name = chars[i + 3..].iter().take_while(|&&c| c != '>').collect();
                names.push((name, count));
            }
            _ => {}
        }
        i += 1;
    }
    (count, names)
}

/// What an atom was, for the quantifier that may follow it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Atom {
    /// Characters, classes, groups and look-aheads: a quantifier may follow.
    Quantifiable,
    /// `^ $ \b \B`: a quantifier after one is "Nothing to repeat".
    Assertion,
    /// A look-behind: a quantifier after one is "Invalid quantifier".
    LookBehind,
    /// A look-ahead, its text starting at this index of the output: JavaScript lets a
    /// quantifier follow one (Annex B); the engines here do not.
    LookAhead(usize),
}

#[derive(Clone, PartialEq, Eq)]
enum Group {
    Plain,
    /// A named capture: V8 checks its name against the others' when the group closes.
    Named(String),
    LookAhead(usize),
    LookBehind,
}

struct Parser {
    chars: Vec<char>,
    at: usize,
    out: String,
    dot_all: bool,
    for_backtracking: bool,
    captures: usize,
    /// Each named group's name and number, from the pre-scan.
    numbered: Vec<(String, usize)>,
    /// Group names defined so far, and names `\k<…>` referred to.
    names: Vec<String>,
    references: Vec<String>,
    backtracking: bool,
}

impl Parser {
    fn peek(&self, ahead: usize) -> Option<char> {
        self.chars.get(self.at + ahead).copied()
    }

    /// Whether the pattern has named groups, which makes `\k` a reference.
    fn named(&self) -> bool {
        !self.numbered.is_empty()
    }

    /// The whole pattern: alternatives of terms, each term an atom and its quantifier.
    fn disjunction(&mut self) -> Result<(), &'static str> {
        let mut groups: Vec<Group> = Vec::new();
        while let Some(c) = self.peek(0) {
            self.at += 1;
            let atom = match c {
                '|' => {
                    self.out.push('|');
                    continue;
                }
                ')' => {
                    let group = groups.pop().ok_or("Unmatched ')'")?;
                    self.out.push(')');
                    match group {
                        Group::Named(name) if self.names.contains(&name) => {
                            return Err("Duplicate capture group name")
                        }
                        Group::Named(name) => {
                            self.names.push(name);
                            Atom::Quantifiable
                        }
                        Group::Plain => Atom::Quantifiable,
                        Group::LookAhead(start) => Atom::LookAhead(start),
                        Group::LookBehind => Atom::LookBehind,
                    }
                }
                '(' => {
                    groups.push(self.open_group()?);
                    continue;
                }
                '*' | '+' | '?' => return Err("Nothing to repeat"),
                '{' => {
                    if self.quantifier_braces(self.at - 1).is_some() {
                        return Err("Nothing to repeat");
                    }
                    self.out.push_str(r"\{");
                    Atom::Quantifiable
                }
                '^' | '$' => {
                    self.out.push(c);
                    Atom::Assertion
                }
                '.' => {
                    self.out.push_str(if self.dot_all {
                        r"[\s\S]"
                    } else {
                        r"[^\n\r\x{2028}\x{2029}]"
                    });
                    Atom::Quantifiable
                }
                '[' => {
                    self.class()?;
                    Atom::Quantifiable
                }
                '\\' => self.atom_escape()?,
                c => {
                    push_literal(&mut self.out, c);
                    Atom::Quantifiable
                }
            };
            self.quantifier(atom)?;
        }
        if groups.is_empty() {
            Ok(())
        } else {
            Err("Unterminated group")
        }
    }

    /// After `(`: the group's kind, its opening written out.
    fn open_group(&mut self) -> Result<Group, &'static str> {
        if self.peek(0) != Some('?') {
            self.out.push('(');
            return Ok(Group::Plain);
        }
        let (opening, group, skip) = match (self.peek(1), self.peek(2)) {
            (Some(':'), _) => ("(?:", Group::Plain, 2),
            (Some('='), _) => ("(?=", Group::LookAhead(self.out.len()), 2),
            (Some('!'), _) => ("(?!", Group::LookAhead(self.out.len()), 2),
            (Some('<'), Some('=')) => ("(?<=", Group::LookBehind, 3),
            (Some('<'), Some('!')) => ("(?<!", Group::LookBehind, 3),
            (Some('<'), _) => {
                self.at += 2;
                let name = self.group_name()?;
                let _ = write!(self.out, "(?P<{name}>");
                return Ok(Group::Named(name));
            }
            _ => return Err("Invalid group"),
        };
        // Look-around needs the backtracking engine.
        self.backtracking |= group != Group::Plain;
        self.at += skip;
        self.out.push_str(opening);
        Ok(group)
    }

    /// A group name up to its `>` (consumed): an identifier, as JavaScript's.
    fn group_name(&mut self) -> Result<String, &'static str> {
        let mut name = String::new();
        loop {
            let c = self.peek(0).ok_or("Invalid capture group name")?;
            self.at += 1;
            if c == '>' && !name.is_empty() {
                return Ok(name);
            }
            let ok = if name.is_empty() {
                c == '$' || c == '_' || unicode_ident::is_xid_start(c)
            } else {
                c == '$' || c == '\u{200C}' || c == '\u{200D}' || unicode_ident::is_xid_continue(c)
            };
            if !ok {
                return Err("Invalid capture group name");
            }
            name.push(c);
        }
    }

    /// `{n}`, `{n,}` or `{n,m}` starting at `from` (a `{`): the bounds and the index past the
    /// `}`; `None` when the text there is not a quantifier (then it is literal).
    fn quantifier_braces(&self, from: usize) -> Option<(u64, Option<u64>, usize)> {
        let mut i = from + 1;
        let number = |i: &mut usize| -> Option<u64> {
            let start = *i;
            let mut n: u64 = 0;
            while let Some(d) = self.chars.get(*i).and_then(|c| c.to_digit(10)) {
                n = n.saturating_mul(10).saturating_add(u64::from(d));
                *i += 1;
            }
            // V8 clamps a bound to its infinity (2³¹ − 1).
            (*i > start).then_some(n.min(V8_INFINITY))
        };
        let min = number(&mut i)?;
        let max = if self.chars.get(i) == Some(&',') {
            i += 1;
            if self.chars.get(i) == Some(&'}') {
                None
            } else {
                Some(number(&mut i)?)
            }
        } else {
            Some(min)
        };
        (self.chars.get(i) == Some(&'}')).then_some((min, max, i + 1))
    }

    /// The quantifier after an atom, if any, with its lazy `?`.
    fn quantifier(&mut self, atom: Atom) -> Result<(), &'static str> {
        let (min, max, end) = match self.peek(0) {
            Some('*') => (0, None, self.at + 1),
            Some('+') => (1, None, self.at + 1),
            Some('?') => (0, Some(1), self.at + 1),
            Some('{') => match self.quantifier_braces(self.at) {
                Some(q) => q,
                None => return Ok(()),
            },
            _ => return Ok(()),
        };
        // V8 refuses a quantifier after `^ $ \b \B` first, then one out of order, then one
        // after a look-behind.
        if atom == Atom::Assertion {
            return Err("Nothing to repeat");
        }
        if max.is_some_and(|max| max < min) {
            return Err("numbers out of order in {} quantifier");
        }
        if atom == Atom::LookBehind {
            return Err("Invalid quantifier");
        }
        self.at = end;
        let lazy = self.peek(0) == Some('?');
        if lazy {
            self.at += 1;
        }
        if let Atom::LookAhead(start) = atom {
            // Repeating an assertion is the assertion once, or, when zero times may do, the
            // assertion or nothing (the engines here cannot repeat one).
            if min == 0 {
                self.out.insert_str(start, "(?:");
                self.out.push_str("|)");
            }
            return Ok(());
        }
        // An infinite bound: at least 2³¹ − 1 repetitions never fit in a text here, at most
        // that many is no bound at all.
        if min >= V8_INFINITY {
            self.out.push_str("{0}");
            self.out.push_str(NOTHING);
            return Ok(());
        }
        let _ = match max.filter(|&max| max < V8_INFINITY) {
            Some(max) if max == min => write!(self.out, "{{{min}}}"),
            Some(max) => write!(self.out, "{{{min},{max}}}"),
            None => write!(self.out, "{{{min},}}"),
        };
        if lazy {
            self.out.push('?');
        }
        Ok(())
    }

    /// After a `\` outside a class.
    fn atom_escape(&mut self) -> Result<Atom, &'static str> {
        let c = self.peek(0).ok_or("\\ at end of pattern")?;
        self.at += 1;
        match c {
            'b' | 'B' if self.for_backtracking => {
                // A word character on exactly one side (`\b`), or on neither or both (`\B`).
                let (w, n) = ("(?<=[0-9A-Za-z_])", "(?<![0-9A-Za-z_])");
                let (ahead_w, ahead_n) = ("(?=[0-9A-Za-z_])", "(?![0-9A-Za-z_])");
                let _ = if c == 'b' {
                    write!(self.out, "(?:{w}{ahead_n}|{n}{ahead_w})")
                } else {
                    write!(self.out, "(?:{w}{ahead_w}|{n}{ahead_n})")
                };
            }
            'b' => self.out.push_str(r"(?-u:\b)"),
            'B' => self.out.push_str(r"(?-u:\B)"),
            '1'..='9' => {
                let start = self.at - 1;
                let mut n: usize = 0;
                let mut i = start;
                while let Some(d) = self.chars.get(i).and_then(|c| c.to_digit(10)) {
                    n = n.saturating_mul(10).saturating_add(d as usize);
                    i += 1;
                }
                if n <= self.captures {
                    self.at = i;
                    self.backtracking = true;
                    // An unset group matches empty in JavaScript; fancy-regex fails there.
                    let _ = write!(self.out, r"(?({n})\{n}|)");
                } else if c >= '8' {
                    push_literal(&mut self.out, c);
                } else {
                    self.at = start;
                    let value = self.octal();
                    push_literal(&mut self.out, value);
                }
                return Ok(Atom::Quantifiable);
            }
            'k' if self.named() => {
                if self.peek(0) != Some('<') {
                    return Err("Invalid named reference");
                }
                self.at += 1;
                let name = self.group_name()?;
                // By number (the group may come later, which fancy-regex cannot name), and
                // empty while the group is unset, as in JavaScript.
                let n = self
                    .numbered
                    .iter()
                    .find(|(n, _)| *n == name)
                    .map_or(0, |(_, i)| *i);
                let _ = write!(self.out, r"(?({n})\{n}|)");
                self.references.push(name);
                self.backtracking = true;
                return Ok(Atom::Quantifiable);
            }
            _ => {
                self.at -= 1;
                self.character_escape(false).push_to(&mut self.out);
                return Ok(Atom::Quantifiable);
            }
        }
        Ok(Atom::Assertion)
    }

    /// An escape that stands for characters (`at` on the character after the `\`): one
    /// character, or the text of a class (a class's members `in_class`).
    fn character_escape(&mut self, in_class: bool) -> Escaped {
        let Some(c) = self.peek(0) else {
            return Escaped::Text(String::new());
        };
        self.at += 1;
        let members = |negated: bool, set: &str| {
            Escaped::Text(match (negated, in_class) {
                (false, true) => set.to_string(),
                (false, false) => format!("[{set}]"),
                (true, _) => format!("[^{set}]"),
            })
        };
        let char_of = |v: u32| Escaped::Char(char::from_u32(v).unwrap_or('\u{FFFD}'));
        match c {
            'd' | 'D' => members(c == 'D', JS_DIGIT),
            'w' | 'W' => members(c == 'W', JS_WORD),
            's' | 'S' => members(c == 'S', JS_SPACE),
            'f' => Escaped::Char('\u{C}'),
            'n' => Escaped::Char('\n'),
            'r' => Escaped::Char('\r'),
            't' => Escaped::Char('\t'),
            'v' => Escaped::Char('\u{B}'),
            'b' if in_class => Escaped::Char('\u{8}'),
            '0'..='7' if in_class || c == '0' => {
                self.at -= 1;
                Escaped::Char(self.octal())
            }
            'c' => match self.peek(0) {
                Some(l)
                    if l.is_ascii_alphabetic()
                        || (in_class && (l.is_ascii_digit() || l == '_')) =>
                {
                    self.at += 1;
                    char_of(u32::from(l) % 32)
                }
                // Not a control escape: the backslash itself is the atom, and the `c` is read
                // next (so `[\c-z]` is `\`, then the range `c-z`).
                _ => {
                    self.at -= 1;
                    Escaped::Char('\\')
                }
            },
            'x' => self.hex(2).map_or(Escaped::Char('x'), char_of),
            'u' => match self.hex(4) {
                Some(high @ 0xD800..=0xDBFF) => {
                    let before = self.at;
                    let pair = (self.peek(0) == Some('\\') && self.peek(1) == Some('u'))
                        .then(|| {
                            self.at += 2;
                            self.hex(4).filter(|low| (0xDC00..=0xDFFF).contains(low))
                        })
                        .flatten();
                    match pair {
                        Some(low) => char_of(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)),
                        None => {
                            // Not a pair: the next escape is read on its own.
                            self.at = before;
                            Escaped::Text(NOTHING.to_string())
                        }
                    }
                }
                // A lone surrogate never matches text decoded from UTF-8 (in a class: a member
                // that adds nothing).
                Some(0xDC00..=0xDFFF) => Escaped::Text(NOTHING.to_string()),
                Some(v) => char_of(v),
                None => Escaped::Char('u'),
            },
            // Everything else is the character itself (identity escapes: `\/`, `\-`, `\a`).
            c => Escaped::Char(c),
        }
    }

    /// A legacy octal escape from `at` (on its first digit): at most three digits, at most
    /// `\377`.
    fn octal(&mut self) -> char {
        let mut value = 0u32;
        for _ in 0..3 {
            match self.peek(0).and_then(|c| c.to_digit(8)) {
                Some(d) if value * 8 + d <= 0o377 => {
                    value = value * 8 + d;
                    self.at += 1;
                }
                _ => break,
            }
        }
        char::from_u32(value).unwrap_or('\0')
    }

    /// `digits` hex digits from `at` (consumed), or `None` (nothing consumed).
    fn hex(&mut self, digits: usize) -> Option<u32> {
        let mut value = 0;
        for k in 0..digits {
            value = value * 16 + self.peek(k)?.to_digit(16)?;
        }
        self.at += digits;
        Some(value)
    }

    /// After `[`: the class up to its `]`.
    fn class(&mut self) -> Result<(), &'static str> {
        let negated = self.peek(0) == Some('^');
        if negated {
            self.at += 1;
        }
        if self.peek(0) == Some(']') {
            // `[]` matches nothing, `[^]` anything.
            self.at += 1;
            self.out.push_str(if negated { r"[\s\S]" } else { NOTHING });
            return Ok(());
        }
        let mut body = String::new();
        loop {
            let first = self.class_atom()?;
            if self.peek(0) == Some('-') && self.peek(1).is_some_and(|c| c != ']') {
                self.at += 1;
                let second = self.class_atom()?;
                let dash = match (&first, &second) {
                    (Escaped::Char(a), Escaped::Char(b)) if a > b => {
                        return Err("Range out of order in character class")
                    }
                    (Escaped::Char(_), Escaped::Char(_)) => "-",
                    // A class escape (`\d`) at either end: the `-` is literal (Annex B).
                    _ => r"\-",
                };
                first.push_to(&mut body);
                body.push_str(dash);
                second.push_to(&mut body);
            } else {
                first.push_to(&mut body);
            }
            if self.peek(0) == Some(']') {
                self.at += 1;
                break;
            }
        }
        let _ = write!(self.out, "[{}{body}]", if negated { "^" } else { "" });
        Ok(())
    }

    /// One class member.
    fn class_atom(&mut self) -> Result<Escaped, &'static str> {
        let c = self.peek(0).ok_or("Unterminated character class")?;
        self.at += 1;
        if c != '\\' {
            return Ok(Escaped::Char(c));
        }
        match self.peek(0) {
            None => Err("\\ at end of pattern"),
            // With named groups `\k` is a reference, which a class cannot hold.
            Some('k') if self.named() => Err("Invalid escape"),
            _ => Ok(self.character_escape(true)),
        }
    }
}

/// What a character escape stands for.
enum Escaped {
    /// One character.
    Char(char),
    /// Pattern text: a class or a class's members.
    Text(String),
}

impl Escaped {
    fn push_to(&self, out: &mut String) {
        match self {
            Escaped::Char(c) => push_literal(out, *c),
            Escaped::Text(text) => out.push_str(text),
        }
    }
}

/// Appends `c` as a literal of the `regex` crate: escaped where it is a meta character, by
/// its code where it is a control character.
fn push_literal(out: &mut String, c: char) {
    if c.is_control() {
        let _ = write!(out, r"\x{{{:X}}}", u32::from(c));
        return;
    }
    if regex_syntax::is_meta_character(c) {
        out.push('\\');
    }
    out.push(c);
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
            ..Flags::default()
        };
        let re = compile("^b.c$", m).unwrap();
        assert_eq!(re.is_match("a\nB\nc"), Some(true));
        let g = Flags { global: true, ..m };
        assert_eq!(
            compile("(", g).unwrap_err(),
            "Invalid regular expression: /(/gims: Unterminated group"
        );
        assert_eq!(
            compile("(", Flags::default()).unwrap_err(),
            "Invalid regular expression: /(/: Unterminated group"
        );
    }

    #[test]
    fn refusals_are_v8s_first_error() {
        // Each reason is what Node 20's `new RegExp(p)` throws (V8's regexp-error.h texts).
        for (pattern, reason) in [
            ("(", "Unterminated group"),
            ("((a)", "Unterminated group"),
            ("(?:", "Unterminated group"),
            ("(?<a>", "Unterminated group"),
            ("(?<=a", "Unterminated group"),
            (")", "Unmatched ')'"),
            ("(a))", "Unmatched ')'"),
            ("a)(", "Unmatched ')'"),
            ("[", "Unterminated character class"),
            ("[a-", "Unterminated character class"),
            ("*", "Nothing to repeat"),
            ("+a", "Nothing to repeat"),
            ("a**", "Nothing to repeat"),
            ("a+?+", "Nothing to repeat"),
            ("a|*", "Nothing to repeat"),
            ("(*)", "Nothing to repeat"),
            ("^*", "Nothing to repeat"),
            ("$+", "Nothing to repeat"),
            (r"\b*", "Nothing to repeat"),
            ("{2}", "Nothing to repeat"),
            ("a{1}{2}", "Nothing to repeat"),
            ("(?<=a)*", "Invalid quantifier"),
            ("(?<!a)?", "Invalid quantifier"),
            ("\\", "\\ at end of pattern"),
            ("(?<a", "Invalid capture group name"),
            ("(?<1a>x)", "Invalid capture group name"),
            ("(?<a-b>x)", "Invalid capture group name"),
            (r"(?<a>x)\k<a", "Invalid capture group name"),
            ("[z-a]", "Range out of order in character class"),
            ("[b-a", "Range out of order in character class"),
            ("[a--b]", "Range out of order in character class"),
            (r"[\c-.", "Range out of order in character class"),
            ("a{2,1}", "numbers out of order in {} quantifier"),
            ("a{2,1}b{", "numbers out of order in {} quantifier"),
            ("(?=b){2,1}b", "numbers out of order in {} quantifier"),
            ("(?<=a){2,1}b", "numbers out of order in {} quantifier"),
            (r"\b{2,1}", "Nothing to repeat"),
            ("(?<a>x)(?<a>y)", "Duplicate capture group name"),
            ("(?<a>x)(?<a>y", "Unterminated group"),
            ("(?<a>x)(?<a>y)*?*", "Duplicate capture group name"),
            ("(?<a>(?<a>x))", "Duplicate capture group name"),
            (r"(?<a>x)[\k]", "Invalid escape"),
            ("(?<a>x)|(?<a>y)", "Duplicate capture group name"),
            ("(?", "Invalid group"),
            ("(?i)a", "Invalid group"),
            ("(?P<a>x)", "Invalid group"),
            (r"(?<a>x)\k", "Invalid named reference"),
            (r"(?<a>x)\k<b>", "Invalid named capture referenced"),
            (r"\k<a>(?<b>x)", "Invalid named capture referenced"),
        ] {
            assert_eq!(translate(pattern, false, false), Err(reason), "{pattern}");
        }
    }

    #[test]
    fn annex_b_patterns_mean_what_they_mean_in_javascript() {
        // (pattern, text, JavaScript's `new RegExp(pattern).test(text)`).
        for (pattern, text, js) in [
            ("x{", "x{", true),
            ("a{,2}", "a{,2}", true),
            ("a{,2}", "aa", false),
            ("x{2,1", "x{2,1", true),
            ("a]}", "a]}", true),
            (r"\k", "k", true),
            (r"\k<a>", "k<a>", true),
            (r"\p{L}", "p{L}", true),
            (r"\p{L}", "é", false),
            (r"\A\z\e", "Aze", true),
            (r"\u{41}", "uuu", false),
            (r"^\u{3}$", "uuu", true),
            (r"\u0041\x41", "AA", true),
            (r"\x4", "x4", true),
            (r"\uD83D\uDE00", "😀", true),
            (r"\uD83D", "😀", false),
            (r"a\1", "a\u{1}", true),
            (r"\8", "8", true),
            (r"\101", "A", true),
            (r"\0", "\0", true),
            (r"(a)\1", "aa", true),
            (r"^(?:(a)|b)\1c$", "bc", true),
            (r"^\1(a)$", "a", true),
            (r"^(a\1)$", "a", true),
            (r"^(a)|\1b$", "b", true),
            (r"^\k<n>(?<n>a)$", "a", true),
            (r"^(?<n>a)\k<n>$", "aa", true),
            (r"^(?<n>a)\k<n>$", "a", false),
            (r"^(?<m>b)?(?<n>a)\k<n>\k<m>$", "aa", true),
            (r"(a)\10", "a\u{8}", true),
            (r"\c", "\\c", true),
            (r"\cJ", "\n", true),
            (r"[\c1]", "\u{11}", true),
            (r"[\c-z]", "d", true),
            (r"^\c*$", "\\ccc", true),
            ("a.b", "a\rb", false),
            ("a.b", "a\u{2028}b", false),
            ("a.b", "a\u{85}b", true),
            (r"\s", "\u{feff}", true),
            (r"\s", "\u{85}", false),
            (r"[\d-z]", "-", true),
            (r"[\w-]", "-", true),
            (r"[a-]", "-", true),
            (r"[\b]", "\u{8}", true),
            (r"[\B]", "B", true),
            ("[]a]", "a]", false),
            ("[^]", "\n", true),
            ("[[]]", "[]", true),
            ("[a&&b]", "&", true),
            ("[a-b-c]", "-", true),
            ("[--a]", "-", true),
            ("(?=a)*b", "b", true),
            ("(?=a)+b", "b", false),
            ("(?=a){0,2}b", "b", true),
            ("(?!a){1}b", "b", true),
            ("(?<é>x)", "x", true),
            ("a#b", "a#b", true),
            (r"[\uD83D\u0041]", "A", true),
            (r"[\uD83D\u0041]", "4", false),
            (r"\uD83D\u0041", "A", false),
            ("^a{99999999999999999999}", "aaa", false),
            ("^a{0,99999999999999999999}$", "aaa", true),
            ("^a{2147483648,2147483647}", "aaa", false),
            // `\b` stays ASCII on the backtracking engine too.
            (r"\bé(?=x)", "éx", false),
            (r"\bab(?=c)\b", "abc", false),
            (r"\bab(?=c)", "abc", true),
            (r"(a)\B\1", "aa", true),
        ] {
            let re =
                compile(pattern, Flags::default()).unwrap_or_else(|e| panic!("{pattern}: {e}"));
            assert_eq!(re.is_match(text), Some(js), "{pattern} on {text:?}");
        }
    }

    #[test]
    fn inline_flags_get_a_hint() {
        for p in ["(?i)ready", "(?ms:a.b)", "(?-i)x"] {
            assert!(inline_flags_hint(p).is_some(), "{p}");
        }
        for p in ["(?:a)", "(?=a)", "(?<n>a)", "ready", "(?)"] {
            assert!(inline_flags_hint(p).is_none(), "{p}");
        }
    }

    #[test]
    fn a_pattern_that_backtracks_without_end_gives_up() {
        let re = compile(r"(a|aa)+\1c", Flags::default()).unwrap();
        assert_eq!(re.is_match(&format!("{}!", "a".repeat(40))), None);
        assert!(!re.matches_empty());
    }
}
