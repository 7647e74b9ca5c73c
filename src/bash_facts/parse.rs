//! The real-parser pass: parses the command with `brush-parser` (the parser of the brush
//! shell) and walks the syntax tree the way bash would run it, to find what the contract's
//! lexer cannot see: redirections glued to words, words inside substitutions, `cd` within the
//! command, assignments and their later use, and the commands that run other commands
//! (`bash -c`, `eval`, `xargs`, `find -exec`, `sudo`, `env`, ...).
//!
//! It is conservative: whatever it cannot resolve is recorded in `unknowns`, which makes the
//! command undecidable. It never panics on purpose, caps its own work (input size, nesting,
//! recursion, nodes visited), and [`super::analyze`] runs it on a thread with a large stack
//! behind `catch_unwind`.

use std::collections::HashMap;

use brush_parser::ast::{self, CommandPrefixOrSuffixItem as Item};
use brush_parser::word::{self, Parameter, ParameterExpr, SpecialParameter, TildeExpr, WordPiece};
use brush_parser::ParserOptions;

use super::lexer::{glob_prefix, looks_like_path};

/// Commands longer than this are not parsed (they are undecidable).
pub const MAX_PARSE_BYTES: usize = 64 * 1024;
/// Deeper nesting (parentheses, braces, compound keywords) than this is not parsed.
pub const MAX_NESTING: usize = 48;
/// Programs nested in programs (`bash -c`, `eval`, substitutions) deeper than this are not
/// followed.
const MAX_PROGRAM_DEPTH: usize = 12;
/// The most syntax nodes one analysis visits.
const MAX_NODES: usize = 200_000;
/// The most paths and commands one analysis records (more is undecidable).
const MAX_ACCESSES: usize = 1000;
const MAX_COMMANDS: usize = 1000;

/// A simple command the parser found, after unwrapping wrappers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandFact {
    /// The words as bash would pass them; `None` where the value is not known.
    pub argv: Vec<Option<String>>,
    /// The directory it runs in, relative to the starting one (`.`), `~`-based or absolute;
    /// `None` when unknown.
    pub cwd: Option<String>,
    /// How it is reached, outermost first: `sudo`, `bash -c`, `$(…)`, `find -exec`, ...
    pub via: Vec<String>,
}

/// A path the command uses, and how.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Access {
    /// The path as written (after quote removal and known expansions).
    pub path: String,
    /// Resolved against the directory the command runs in (lexically; `~` kept).
    pub resolved: String,
    /// `read`, `write`, `exec`, `cd` or `arg` (an operand of a command the analyzer has no
    /// table for).
    pub kind: &'static str,
    /// Resolved physically from the starting directory, as the kernel will (symlinks
    /// followed, `..` after a symlink taken from its target); only when the starting
    /// directory is given, and `None` when the directory the command runs in is unknown.
    pub physical: Option<String>,
}

/// One redirection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redirection {
    pub fd: Option<i32>,
    pub op: &'static str,
    /// The file (or fd, for duplications); `None` for here-documents and unknown targets.
    pub target: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ParserFacts {
    /// Whether the parser accepted the whole command.
    pub parsed: bool,
    pub commands: Vec<CommandFact>,
    pub accesses: Vec<Access>,
    pub redirections: Vec<Redirection>,
    /// Every simple command that can run, as the contract normalizes a segment (its words
    /// joined by spaces, leading assignments and the contract's wrappers removed; a word whose
    /// value is not known shows what is known of it and `…`). Wrappers that run another
    /// command (`sudo`, `env`, `command`, `bash -c`, `find -exec`, ...) give both lines.
    pub segments: Vec<String>,
    /// Why the command cannot be decided.
    pub unknowns: Vec<String>,
}

#[derive(Debug, Clone, Default)]
struct Scope {
    /// Known (`Some`) or unknown (`None`) values of variables assigned in the command.
    vars: HashMap<String, Option<String>>,
    /// The current directory (`.` at the start); `None` when unknown.
    cwd: Option<String>,
    /// Functions defined so far: a call runs the body.
    funcs: HashMap<String, std::rc::Rc<ast::FunctionBody>>,
}

/// One evaluated word.
#[derive(Debug, Clone, Default)]
struct Arg {
    /// The value, when every piece is known.
    value: Option<String>,
    /// The text known before the first unknown piece.
    prefix: String,
    /// Char index of the first unquoted glob character.
    first_glob: Option<usize>,
    /// A process substitution (`<(…)`): a `/dev/fd` path, never a workspace file.
    placeholder: bool,
    /// The name of the variable whose value is unknown, for messages.
    unknown_what: Option<String>,
    /// The value with every character that bash would not split, brace-expand or glob
    /// escaped by a backslash (quoted text, escapes): what brace expansion, word splitting
    /// and globbing see.
    pattern: String,
    /// Whether an unquoted expansion's value is part of the word (its empty fields vanish).
    split: bool,
}

impl Arg {
    fn known(s: &str) -> Arg {
        Arg {
            value: Some(s.to_string()),
            prefix: s.to_string(),
            pattern: escape_pattern(s),
            ..Arg::default()
        }
    }

    /// How a command line shows this word: its value, or what is known of it and `…`.
    fn shown(&self) -> String {
        match &self.value {
            Some(v) => v.clone(),
            None => format!("{}…", self.prefix),
        }
    }
}

/// Analyzes `command` with the parser. With `start` (the absolute directory the command
/// starts in), every path is also resolved physically, as the kernel will.
pub fn analyze(command: &str, start: Option<&std::path::Path>) -> ParserFacts {
    let mut w = Walker {
        start: start.map(|s| s.to_path_buf()),
        home: std::env::var_os("HOME").map(std::path::PathBuf::from),
        ..Walker::default()
    };
    if let Some(bad) = command.chars().find(|&c| c == '\0' || c == '\u{FFFD}') {
        w.unknown(format!(
            "the command holds {}, which bash cannot be given",
            if bad == '\0' {
                "a NUL byte"
            } else {
                "an invalid byte"
            }
        ));
    }
    if command.len() > MAX_PARSE_BYTES {
        w.unknown(format!(
            "command is {} bytes, more than the {MAX_PARSE_BYTES} the analyzer parses",
            command.len()
        ));
        return w.out;
    }
    let mut scope = Scope {
        vars: HashMap::new(),
        cwd: Some(".".to_string()),
        funcs: HashMap::new(),
    };
    w.out.parsed = w.program(command, &mut scope, &[]);
    w.out
}

/// A conservative nesting estimate: parentheses, braces and compound keywords.
pub fn nesting_depth(src: &str) -> usize {
    let mut depth = 0usize;
    let mut max = 0usize;
    for word in src.split(|c: char| c.is_whitespace() || c == ';') {
        for c in word.chars() {
            match c {
                '(' | '{' => {
                    depth += 1;
                    max = max.max(depth);
                }
                ')' | '}' => depth = depth.saturating_sub(1),
                _ => {}
            }
        }
        match word {
            "if" | "while" | "until" | "for" | "case" | "select" => {
                depth += 1;
                max = max.max(depth);
            }
            "fi" | "done" | "esac" => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max.max(src.matches('`').count() / 2)
}

#[derive(Default)]
struct Walker {
    out: ParserFacts,
    depth: usize,
    nodes: usize,
    /// The physical directory the command starts in, when known.
    start: Option<std::path::PathBuf>,
    home: Option<std::path::PathBuf>,
    /// The functions being called (a recursive call is not followed again).
    calling: Vec<String>,
}

fn is_write_command(name: &str) -> bool {
    matches!(
        name,
        "rm" | "rmdir"
            | "mv"
            | "touch"
            | "mkdir"
            | "tee"
            | "truncate"
            | "shred"
            | "unlink"
            | "chmod"
            | "chown"
            | "chgrp"
            | "ln"
            | "install"
            | "patch"
            | "mkfifo"
            | "mknod"
    )
}

fn is_read_command(name: &str) -> bool {
    matches!(
        name,
        "cat"
            | "less"
            | "more"
            | "head"
            | "tail"
            | "grep"
            | "egrep"
            | "fgrep"
            | "rg"
            | "wc"
            | "sort"
            | "uniq"
            | "diff"
            | "cmp"
            | "file"
            | "stat"
            | "ls"
            | "du"
            | "tac"
            | "nl"
            | "od"
            | "xxd"
            | "hexdump"
            | "strings"
            | "md5sum"
            | "sha1sum"
            | "sha256sum"
            | "awk"
            | "jq"
            | "bat"
            | "tree"
            | "realpath"
            | "readlink"
            | "cut"
            | "paste"
            | "base64"
    )
}

fn is_shell(name: &str) -> bool {
    matches!(
        name,
        "sh" | "bash" | "dash" | "zsh" | "ksh" | "ash" | "mksh" | "fish"
    )
}

fn basename(s: &str) -> &str {
    s.rsplit('/').next().unwrap_or(s)
}

/// Joins `rel` onto `base` and normalizes `.` and `..` lexically (leading `..` kept).
fn join(base: &str, rel: &str) -> String {
    let full = if rel.starts_with('/') || rel == "~" || rel.starts_with("~/") || base == "." {
        rel.to_string()
    } else {
        format!("{base}/{rel}")
    };
    normalize(&full)
}

fn normalize(p: &str) -> String {
    let absolute = p.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for part in p.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                if matches!(parts.last(), Some(&l) if l != ".." && l != "~") {
                    parts.pop();
                } else if !absolute {
                    parts.push("..");
                }
            }
            other => parts.push(other),
        }
    }
    let joined = parts.join("/");
    match (absolute, joined.is_empty()) {
        (true, _) => format!("/{joined}"),
        (false, true) => ".".to_string(),
        (false, false) => joined,
    }
}

/// Whether a resolved path may lie outside the starting directory.
pub fn may_escape(resolved: &str) -> bool {
    resolved.starts_with('/')
        || resolved == "~"
        || resolved.starts_with("~/")
        || resolved == ".."
        || resolved.starts_with("../")
}

fn decode_ansi_c(s: &str) -> Option<String> {
    let mut out = String::new();
    let mut it = s.chars().peekable();
    while let Some(c) = it.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let e = it.next()?;
        let simple = match e {
            'a' => Some('\x07'),
            'b' => Some('\x08'),
            'e' | 'E' => Some('\x1b'),
            'f' => Some('\x0c'),
            'n' => Some('\n'),
            'r' => Some('\r'),
            't' => Some('\t'),
            'v' => Some('\x0b'),
            '\\' => Some('\\'),
            '\'' => Some('\''),
            '"' => Some('"'),
            '?' => Some('?'),
            _ => None,
        };
        if let Some(ch) = simple {
            out.push(ch);
            continue;
        }
        let (radix, max, mut value) = match e {
            '0'..='7' => (8, 2, e.to_digit(8)?),
            'x' => (16, 2, 0),
            'u' => (16, 4, 0),
            'U' => (16, 8, 0),
            'c' => {
                let ch = it.next()?;
                out.push(char::from_u32((ch as u32) & 0x1f)?);
                continue;
            }
            _ => {
                out.push('\\');
                out.push(e);
                continue;
            }
        };
        let mut n = 0;
        while n < max {
            match it.peek().and_then(|d| d.to_digit(radix)) {
                Some(d) => {
                    value = value * radix + d;
                    it.next();
                    n += 1;
                }
                None => break,
            }
        }
        if radix == 16 && n == 0 {
            return None;
        }
        out.push(char::from_u32(value)?);
    }
    Some(out)
}

impl Walker {
    fn unknown(&mut self, why: String) {
        if !self.out.unknowns.contains(&why) && self.out.unknowns.len() < 64 {
            self.out.unknowns.push(why);
        }
    }

    fn tick(&mut self) -> bool {
        self.nodes += 1;
        if self.nodes == MAX_NODES {
            self.unknown("command is too large to analyze".to_string());
        }
        self.nodes < MAX_NODES
    }

    /// Parses and walks a program. Returns whether it parsed.
    fn program(&mut self, src: &str, scope: &mut Scope, via: &[String]) -> bool {
        if self.depth >= MAX_PROGRAM_DEPTH {
            self.unknown("commands nested too deeply to analyze".to_string());
            return false;
        }
        if nesting_depth(src) > MAX_NESTING {
            self.unknown("command nested too deeply to analyze".to_string());
            return false;
        }
        let options = ParserOptions::default();
        let mut parser = brush_parser::Parser::new(std::io::Cursor::new(src.as_bytes()), &options);
        let program = match parser.parse_program() {
            Ok(p) => p,
            Err(e) => {
                self.unknown(format!("bash cannot parse it ({e})"));
                return false;
            }
        };
        self.depth += 1;
        for cc in &program.complete_commands {
            self.compound_list(cc, scope, via);
        }
        self.depth -= 1;
        true
    }

    fn compound_list(&mut self, list: &ast::CompoundList, scope: &mut Scope, via: &[String]) {
        for ast::CompoundListItem(and_or, sep) in &list.0 {
            if matches!(sep, ast::SeparatorOperator::Async) {
                let mut sub = scope.clone();
                self.and_or(and_or, &mut sub, via);
            } else {
                self.and_or(and_or, scope, via);
            }
        }
    }

    fn and_or(&mut self, list: &ast::AndOrList, scope: &mut Scope, via: &[String]) {
        if list.additional.is_empty() {
            self.pipeline(&list.first, scope, via);
            return;
        }
        // `a && b` runs `b` after `a` (so `cd build && cmake ..` runs in `build`); `a || b`
        // runs `b` where `a` may or may not have had its effect. The list may stop anywhere:
        // afterwards, whatever differs between the places it may stop is unknown.
        let mut stops = vec![scope.clone()];
        self.pipeline(&list.first, scope, via);
        for next in &list.additional {
            stops.push(scope.clone());
            match next {
                ast::AndOr::And(p) => self.pipeline(p, scope, via),
                ast::AndOr::Or(p) => {
                    let before = stops[stops.len() - 2].clone();
                    merge(scope, &[before]);
                    self.pipeline(p, scope, via);
                }
            }
        }
        merge(scope, &stops);
    }

    fn pipeline(&mut self, p: &ast::Pipeline, scope: &mut Scope, via: &[String]) {
        if p.seq.len() == 1 {
            self.command(&p.seq[0], scope, via);
            return;
        }
        for cmd in &p.seq {
            let mut sub = scope.clone();
            self.command(cmd, &mut sub, via);
        }
    }

    fn command(&mut self, cmd: &ast::Command, scope: &mut Scope, via: &[String]) {
        if !self.tick() {
            return;
        }
        match cmd {
            ast::Command::Simple(s) => self.simple(s, scope, via),
            ast::Command::Compound(c, redirects) => {
                self.compound(c, scope, via);
                if let Some(r) = redirects {
                    for item in &r.0 {
                        self.redirect(item, scope, via);
                    }
                }
            }
            ast::Command::Function(f) => {
                // The body runs when the function is called: walk it now (as if called
                // here) and again at every call, where it runs in the caller's directory.
                let name = f.fname.value.clone();
                let body = std::rc::Rc::new(f.body.clone());
                scope.funcs.insert(name.clone(), body.clone());
                let mut sub = scope.clone();
                let mut inner_via = via.to_vec();
                inner_via.push(format!("function {name}"));
                self.function_body(&name, &body, &mut sub, &inner_via);
            }
            ast::Command::ExtendedTest(t, redirects) => {
                self.test_expr(&t.expr, scope, via);
                if let Some(r) = redirects {
                    for item in &r.0 {
                        self.redirect(item, scope, via);
                    }
                }
            }
        }
    }

    fn test_expr(&mut self, e: &ast::ExtendedTestExpr, scope: &mut Scope, via: &[String]) {
        if !self.tick() {
            return;
        }
        match e {
            ast::ExtendedTestExpr::And(a, b) | ast::ExtendedTestExpr::Or(a, b) => {
                self.test_expr(a, scope, via);
                self.test_expr(b, scope, via);
            }
            ast::ExtendedTestExpr::Not(a) | ast::ExtendedTestExpr::Parenthesized(a) => {
                self.test_expr(a, scope, via)
            }
            ast::ExtendedTestExpr::UnaryTest(pred, w) => {
                let arg = self.word(&w.value, scope, via);
                let file_test = !matches!(
                    pred,
                    ast::UnaryPredicate::StringHasZeroLength
                        | ast::UnaryPredicate::StringHasNonZeroLength
                        | ast::UnaryPredicate::ShellOptionEnabled
                        | ast::UnaryPredicate::ShellVariableIsSetAndAssigned
                        | ast::UnaryPredicate::ShellVariableIsSetAndNameRef
                        | ast::UnaryPredicate::FdIsOpenTerminal
                );
                if file_test {
                    self.operand(&arg, scope, "read", false);
                }
            }
            ast::ExtendedTestExpr::BinaryTest(_, a, b) => {
                self.word(&a.value, scope, via);
                self.word(&b.value, scope, via);
            }
        }
    }

    fn arithmetic(&mut self, expr: &str) {
        if expr.contains("$(") || expr.contains('`') {
            self.unknown("command substitution inside arithmetic".to_string());
        }
    }

    fn compound(&mut self, c: &ast::CompoundCommand, scope: &mut Scope, via: &[String]) {
        if !self.tick() {
            return;
        }
        match c {
            ast::CompoundCommand::Arithmetic(a) => self.arithmetic(&a.expr.value),
            ast::CompoundCommand::ArithmeticForClause(f) => {
                for e in [&f.initializer, &f.condition, &f.updater]
                    .into_iter()
                    .flatten()
                {
                    self.arithmetic(&e.value);
                }
                let mut body = scope.clone();
                self.compound_list(&f.body.list, &mut body, via);
                merge(scope, &[body]);
            }
            ast::CompoundCommand::BraceGroup(b) => self.compound_list(&b.list, scope, via),
            ast::CompoundCommand::Subshell(s) => {
                let mut sub = scope.clone();
                self.compound_list(&s.list, &mut sub, via);
            }
            ast::CompoundCommand::ForClause(f) => {
                for w in f.values.iter().flatten() {
                    for arg in self.words(&w.value, scope, via) {
                        self.operand(&arg, scope, "arg", true);
                    }
                }
                let mut body = scope.clone();
                body.vars.insert(f.variable_name.clone(), None);
                self.compound_list(&f.body.list, &mut body, via);
                merge(scope, &[body]);
                scope.vars.insert(f.variable_name.clone(), None);
            }
            ast::CompoundCommand::CaseClause(c) => {
                self.word(&c.value.value, scope, via);
                let mut branches = Vec::new();
                for item in &c.cases {
                    let mut b = scope.clone();
                    if let Some(list) = &item.cmd {
                        self.compound_list(list, &mut b, via);
                    }
                    branches.push(b);
                }
                merge(scope, &branches);
            }
            ast::CompoundCommand::IfClause(i) => {
                self.compound_list(&i.condition, scope, via);
                let mut then = scope.clone();
                self.compound_list(&i.then, &mut then, via);
                let mut branches = vec![then];
                for e in i.elses.iter().flatten() {
                    let mut b = scope.clone();
                    if let Some(cond) = &e.condition {
                        self.compound_list(cond, &mut b, via);
                    }
                    self.compound_list(&e.body, &mut b, via);
                    branches.push(b);
                }
                merge(scope, &branches);
            }
            ast::CompoundCommand::WhileClause(w) | ast::CompoundCommand::UntilClause(w) => {
                let mut body = scope.clone();
                self.compound_list(&w.0, &mut body, via);
                self.compound_list(&w.1.list, &mut body, via);
                merge(scope, &[body]);
            }
            ast::CompoundCommand::Coprocess(c) => {
                let mut sub = scope.clone();
                self.command(&c.body, &mut sub, via);
            }
        }
    }

    /// Evaluates one word as bash would expand it (without running anything), analyzing the
    /// programs inside substitutions. One word: no brace expansion or splitting (as in an
    /// assignment); see [`Walker::words`].
    fn word(&mut self, raw: &str, scope: &Scope, via: &[String]) -> Arg {
        match word::parse(raw, &ParserOptions::default()) {
            Ok(pieces) => {
                let mut arg = Arg {
                    value: Some(String::new()),
                    ..Arg::default()
                };
                self.pieces(&pieces, false, scope, via, &mut arg);
                if let Some(v) = &arg.value {
                    arg.first_glob = first_glob(&arg.pattern);
                    debug_assert_eq!(&unescape_pattern(&arg.pattern), v);
                }
                arg
            }
            Err(_) => {
                self.unknown(format!("cannot parse the word `{raw}`"));
                Arg::default()
            }
        }
    }

    /// A command word as bash expands it into words: brace expansion (every alternative),
    /// then the splitting of unquoted expansions.
    fn words(&mut self, raw: &str, scope: &Scope, via: &[String]) -> Vec<Arg> {
        let arg = self.word(raw, scope, via);
        self.expand(arg)
    }

    fn expand(&mut self, arg: Arg) -> Vec<Arg> {
        if arg.value.is_none() || arg.placeholder {
            return vec![arg];
        }
        let mut out = Vec::new();
        for field in split_pattern(&arg.pattern) {
            if field.is_empty() && arg.split {
                continue;
            }
            let mut alternatives = Vec::new();
            let mut budget = BRACE_BUDGET;
            if !brace_expand(&field, &mut alternatives, &mut budget) {
                self.unknown(format!(
                    "brace expansion gives more than {MAX_BRACE_WORDS} words, or is too long"
                ));
                return vec![Arg {
                    unknown_what: Some("a brace expansion".into()),
                    ..Arg::default()
                }];
            }
            for alt in alternatives {
                let value = unescape_pattern(&alt);
                out.push(Arg {
                    prefix: value.clone(),
                    value: Some(value),
                    first_glob: first_glob(&alt),
                    pattern: alt,
                    ..Arg::default()
                });
            }
        }
        out
    }

    fn pieces(
        &mut self,
        pieces: &[word::WordPieceWithSource],
        quoted: bool,
        scope: &Scope,
        via: &[String],
        arg: &mut Arg,
    ) {
        for p in pieces {
            if !self.tick() {
                arg.value = None;
                return;
            }
            // The text, and whether bash splits and globs it (an unquoted expansion).
            let (text, bare): (Option<String>, bool) = match &p.piece {
                WordPiece::Text(s) => {
                    if !quoted && arg.value.is_some() {
                        // Unquoted literal text: braces and globs are live.
                        arg.pattern.push_str(&s.replace('\\', "\\\\"));
                        push_value(arg, s);
                        continue;
                    }
                    (Some(s.clone()), false)
                }
                WordPiece::SingleQuotedText(s) => (Some(s.clone()), false),
                WordPiece::AnsiCQuotedText(s) => (decode_ansi_c(s), false),
                WordPiece::DoubleQuotedSequence(inner)
                | WordPiece::GettextDoubleQuotedSequence(inner) => {
                    self.pieces(inner, true, scope, via, arg);
                    continue;
                }
                WordPiece::TildeExpansion(t) => match t {
                    TildeExpr::Home => (Some("~".to_string()), false),
                    TildeExpr::WorkingDir => (scope.cwd.clone(), false),
                    TildeExpr::UserHome(u) => {
                        arg.unknown_what = Some(format!("~{u}"));
                        (None, false)
                    }
                    _ => (None, false),
                },
                WordPiece::ParameterExpansion(e) => {
                    let v = lookup(e, scope);
                    if v.is_none() {
                        arg.unknown_what
                            .get_or_insert_with(|| format!("${{{}}}", param_name(e)));
                    }
                    (v, !quoted)
                }
                WordPiece::CommandSubstitution(s) | WordPiece::BackquotedCommandSubstitution(s) => {
                    let mut sub = scope.clone();
                    let mut inner_via = via.to_vec();
                    inner_via.push("$(…)".to_string());
                    self.program(s, &mut sub, &inner_via);
                    arg.unknown_what.get_or_insert_with(|| "$(…)".to_string());
                    (None, false)
                }
                WordPiece::EscapeSequence(s) => (Some(s.chars().skip(1).collect()), false),
                WordPiece::ArithmeticExpression(e) => {
                    self.arithmetic(&e.value);
                    arg.unknown_what.get_or_insert_with(|| "$((…))".to_string());
                    (None, false)
                }
            };
            match text {
                Some(t) if arg.value.is_some() => {
                    if bare {
                        // Split on whitespace and globbed, but not brace-expanded.
                        arg.split = true;
                        for c in t.chars() {
                            if matches!(c, '{' | '}' | ',' | '\\') {
                                arg.pattern.push('\\');
                            }
                            arg.pattern.push(c);
                        }
                    } else {
                        arg.pattern.push_str(&escape_pattern(&t));
                    }
                    push_value(arg, &t);
                }
                Some(_) => {}
                None => arg.value = None,
            }
        }
    }

    /// Records a path operand (or an unknown one) of a command running in `scope.cwd`.
    fn operand(&mut self, arg: &Arg, scope: &Scope, kind: &'static str, shaped: bool) {
        if arg.placeholder {
            return;
        }
        let Some(value) = &arg.value else {
            let what = arg.unknown_what.clone().unwrap_or_else(|| "a word".into());
            self.unknown(format!("{what} has no known value"));
            // A known directory before the unknown part is still touched: `/etc/$X`.
            if let Some(slash) = arg.prefix.rfind('/') {
                let dir = if slash == 0 {
                    "/".to_string()
                } else {
                    arg.prefix[..slash].to_string()
                };
                if !dir.contains('$') {
                    self.path(&dir, scope, kind);
                }
            } else if arg.prefix.starts_with('~') && arg.prefix.len() > 1 {
                self.unknown(format!("`{}` names another user's home", arg.prefix));
            }
            return;
        };
        let mut candidate = value.as_str();
        if let Some(g) = arg.first_glob {
            // Every match lies under the literal directory before the glob (`../*`, `/tmp/*`
            // name `..` and `/tmp`), unless the pattern climbs back out after the glob.
            let prefix = glob_prefix(value, g);
            let after: String = value.chars().skip(g).collect();
            if after.split('/').any(|c| c == "..") {
                self.unknown(format!("glob `{value}` climbs with `..` after a wildcard"));
            }
            self.path(&prefix, scope, kind);
            return;
        }
        if candidate.starts_with('-') && !candidate.starts_with("--") {
            // `-I/usr/include`, `-t/var/x`: a short option glued to a path.
            if let Some(at) = candidate.find(['/', '~']) {
                self.path(&candidate[at..], scope, "arg");
            }
            return;
        }
        if candidate.starts_with('-') || (!candidate.starts_with('/') && candidate.contains('=')) {
            // `--out=/x`, `of=/x`: the value after `=` may be a path.
            match candidate.split_once('=') {
                Some((_, v)) => candidate = v,
                None => return,
            }
        }
        if candidate.starts_with('~') && !(candidate == "~" || candidate.starts_with("~/")) {
            self.unknown(format!("`{candidate}` names another user's home"));
            return;
        }
        if !shaped || looks_like_path(candidate) || candidate == "~" {
            self.path(candidate, scope, kind);
        }
    }

    fn path(&mut self, raw: &str, scope: &Scope, kind: &'static str) {
        if raw.is_empty() {
            return;
        }
        let resolved = match &scope.cwd {
            Some(cwd) => join(cwd, raw),
            None => {
                if !(raw.starts_with('/') || raw == "~" || raw.starts_with("~/")) {
                    self.unknown(format!(
                        "`{raw}` is relative to a directory that cannot be known (after a `cd`)"
                    ));
                }
                normalize(raw)
            }
        };
        // bash's `cd` is logical: it drops `name/..` from the text before it changes
        // directory; everything else is resolved by the kernel, physically.
        let physical = if kind == "cd" {
            self.physical(scope, &normalize(raw))
        } else {
            self.physical(scope, raw)
        };
        let access = Access {
            path: raw.to_string(),
            resolved,
            kind,
            physical,
        };
        if self.out.accesses.contains(&access) {
            return;
        }
        if self.out.accesses.len() >= MAX_ACCESSES {
            self.unknown(format!("more than {MAX_ACCESSES} paths to analyze"));
            // Undecidable now: walk no further.
            self.nodes = MAX_NODES;
            return;
        }
        self.out.accesses.push(access);
    }

    /// `raw` resolved physically from the starting directory through the current one.
    fn physical(&self, scope: &Scope, raw: &str) -> Option<String> {
        let start = self.start.as_ref()?;
        let mut links = 0;
        let home = |rest: &str, links: &mut usize| {
            let home = self.home.clone()?;
            Some(physical_walk(&home, rest, links))
        };
        let tilde_rest = |p: &str| -> Option<String> {
            if p == "~" {
                Some(String::new())
            } else {
                p.strip_prefix("~/").map(str::to_string)
            }
        };
        let resolved = if raw.starts_with('/') {
            physical_walk(start, raw, &mut links)
        } else if let Some(rest) = tilde_rest(raw) {
            home(&rest, &mut links)?
        } else {
            let cwd = scope.cwd.as_deref()?;
            let base = match tilde_rest(cwd) {
                Some(rest) => home(&rest, &mut links)?,
                None => physical_walk(start, cwd, &mut links),
            };
            physical_walk(&base, raw, &mut links)
        };
        Some(resolved.to_string_lossy().into_owned())
    }

    fn redirect(&mut self, r: &ast::IoRedirect, scope: &mut Scope, via: &[String]) {
        match r {
            ast::IoRedirect::File(fd, kind, target) => {
                use ast::IoFileRedirectKind as K;
                let (op, access) = match kind {
                    K::Read => ("<", "read"),
                    K::Write => (">", "write"),
                    K::Append => (">>", "write"),
                    K::ReadAndWrite => ("<>", "write"),
                    K::Clobber => (">|", "write"),
                    K::DuplicateInput => ("<&", "read"),
                    K::DuplicateOutput => (">&", "write"),
                };
                let target = match target {
                    ast::IoFileRedirectTarget::Filename(w) => {
                        let words = self.words(&w.value, scope, via);
                        for arg in &words {
                            self.operand(arg, scope, access, false);
                        }
                        match words.as_slice() {
                            [one] => one.value.clone(),
                            _ => None,
                        }
                    }
                    ast::IoFileRedirectTarget::Fd(n) => Some(n.to_string()),
                    ast::IoFileRedirectTarget::Duplicate(w) => {
                        let arg = self.word(&w.value, scope, via);
                        match &arg.value {
                            Some(v)
                                if v == "-"
                                    || v.trim_end_matches('-')
                                        .bytes()
                                        .all(|b| b.is_ascii_digit()) => {}
                            // `>&file` writes to a file, as `&>file` does.
                            _ => self.operand(&arg, scope, access, false),
                        }
                        arg.value
                    }
                    ast::IoFileRedirectTarget::ProcessSubstitution(_, sub) => {
                        let mut inner = scope.clone();
                        let mut inner_via = via.to_vec();
                        inner_via.push("<(…)".to_string());
                        self.compound_list(&sub.list, &mut inner, &inner_via);
                        None
                    }
                };
                self.out.redirections.push(Redirection {
                    fd: *fd,
                    op,
                    target,
                });
            }
            ast::IoRedirect::HereDocument(fd, doc) => {
                if doc.requires_expansion {
                    match word::parse_heredoc(&doc.doc.value, &ParserOptions::default()) {
                        Ok(pieces) => {
                            let mut arg = Arg::default();
                            self.pieces(&pieces, true, scope, via, &mut arg);
                        }
                        Err(_) => self.unknown("cannot parse a here-document".to_string()),
                    }
                }
                self.out.redirections.push(Redirection {
                    fd: *fd,
                    op: if doc.remove_tabs { "<<-" } else { "<<" },
                    target: None,
                });
            }
            ast::IoRedirect::HereString(fd, w) => {
                self.word(&w.value, scope, via);
                self.out.redirections.push(Redirection {
                    fd: *fd,
                    op: "<<<",
                    target: None,
                });
            }
            ast::IoRedirect::OutputAndError(w, append) => {
                let arg = self.word(&w.value, scope, via);
                self.operand(&arg, scope, "write", false);
                self.out.redirections.push(Redirection {
                    fd: None,
                    op: if *append { "&>>" } else { "&>" },
                    target: arg.value,
                });
            }
        }
    }

    fn assignment(
        &mut self,
        a: &ast::Assignment,
        scope: &Scope,
        via: &[String],
    ) -> (String, Option<String>) {
        let name = match &a.name {
            ast::AssignmentName::VariableName(n) => n.clone(),
            ast::AssignmentName::ArrayElementName(n, _) => n.clone(),
        };
        let value = match &a.value {
            ast::AssignmentValue::Scalar(w) => {
                let arg = self.word(&w.value, scope, via);
                if a.append {
                    None
                } else {
                    arg.value
                }
            }
            ast::AssignmentValue::Array(items) => {
                for (k, v) in items {
                    if let Some(k) = k {
                        self.word(&k.value, scope, via);
                    }
                    self.word(&v.value, scope, via);
                }
                None
            }
        };
        let value = if matches!(a.name, ast::AssignmentName::ArrayElementName(..)) {
            None
        } else {
            value
        };
        (name, value)
    }

    fn simple(&mut self, cmd: &ast::SimpleCommand, scope: &mut Scope, via: &[String]) {
        let items = cmd.prefix.as_ref().map_or(0, |p| p.0.len())
            + cmd.suffix.as_ref().map_or(0, |s| s.0.len());
        if items > MAX_ACCESSES {
            self.unknown(format!("a command with more than {MAX_ACCESSES} words"));
            self.nodes = MAX_NODES;
            return;
        }
        let mut assigns = Vec::new();
        let mut args: Vec<Arg> = Vec::new();
        let mut redirects = Vec::new();
        for item in cmd.prefix.iter().flat_map(|p| p.0.iter()) {
            match item {
                Item::IoRedirect(r) => redirects.push(r),
                Item::AssignmentWord(a, _) => assigns.push(self.assignment(a, scope, via)),
                Item::Word(w) => args.extend(self.words(&w.value, scope, via)),
                Item::ProcessSubstitution(_, sub) => {
                    self.process_substitution(sub, scope, via, &mut args)
                }
            }
        }
        if let Some(w) = &cmd.word_or_name {
            args.extend(self.words(&w.value, scope, via));
        }
        for item in cmd.suffix.iter().flat_map(|s| s.0.iter()) {
            match item {
                Item::IoRedirect(r) => redirects.push(r),
                Item::AssignmentWord(_, w) | Item::Word(w) => {
                    args.extend(self.words(&w.value, scope, via))
                }
                Item::ProcessSubstitution(_, sub) => {
                    self.process_substitution(sub, scope, via, &mut args)
                }
            }
        }
        if assigns.iter().any(|(name, _)| name == "IFS") {
            // Word splitting would follow other characters than the analyzer's.
            self.unknown("IFS is changed".into());
        }
        if args.is_empty() {
            for (name, value) in assigns {
                scope.vars.insert(name, value);
            }
        }
        for r in redirects {
            self.redirect(r, scope, via);
        }
        self.run(args, scope, via);
    }

    fn process_substitution(
        &mut self,
        sub: &ast::SubshellCommand,
        scope: &Scope,
        via: &[String],
        args: &mut Vec<Arg>,
    ) {
        let mut inner = scope.clone();
        let mut inner_via = via.to_vec();
        inner_via.push("<(…)".to_string());
        self.compound_list(&sub.list, &mut inner, &inner_via);
        args.push(Arg {
            value: Some("/dev/fd/63".to_string()),
            placeholder: true,
            ..Arg::default()
        });
    }

    /// Walks a function's body (once per call chain: recursion is not followed).
    fn function_body(
        &mut self,
        name: &str,
        body: &ast::FunctionBody,
        scope: &mut Scope,
        via: &[String],
    ) {
        if self.calling.iter().any(|c| c == name) || self.calling.len() >= MAX_PROGRAM_DEPTH {
            return;
        }
        self.calling.push(name.to_string());
        self.compound(&body.0, scope, via);
        if let Some(r) = &body.1 {
            for item in &r.0 {
                self.redirect(item, scope, via);
            }
        }
        self.calling.pop();
    }

    /// Runs a command line (already expanded): records it, follows wrappers and the commands
    /// that run other commands, tracks `cd`, and records path operands.
    fn run(&mut self, args: Vec<Arg>, scope: &mut Scope, via: &[String]) {
        if args.is_empty() || !self.tick() {
            return;
        }
        if self.out.commands.len() >= MAX_COMMANDS {
            self.unknown(format!("more than {MAX_COMMANDS} commands to analyze"));
            // Undecidable now: walk no further.
            self.nodes = MAX_NODES;
            return;
        }
        self.out.commands.push(CommandFact {
            argv: args.iter().map(|a| a.value.clone()).collect(),
            cwd: scope.cwd.clone(),
            via: via.to_vec(),
        });
        let stripped = args[0]
            .value
            .as_deref()
            .is_some_and(|n| matches!(n, "timeout" | "time" | "nice" | "nohup" | "stdbuf"));
        if !stripped {
            // The contract strips these wrappers from a segment; the command they run is
            // recorded when it is reached.
            let line: Vec<String> = args.iter().map(Arg::shown).collect();
            let line = line.join(" ");
            if !self.out.segments.contains(&line) {
                self.out.segments.push(line);
            }
        }
        if let Some(body) = args[0]
            .value
            .as_ref()
            .and_then(|n| scope.funcs.get(n))
            .cloned()
        {
            // A call of a function defined in the command: its body runs, here.
            let name = args[0].value.clone().unwrap_or_default();
            for a in &args[1..] {
                self.operand(a, scope, "arg", true);
            }
            let mut inner_via = via.to_vec();
            inner_via.push(format!("function {name}"));
            self.function_body(&name, &body, scope, &inner_via);
            return;
        }
        let Some(name0) = args[0].value.clone() else {
            self.unknown("the command name is computed".to_string());
            for a in &args[1..] {
                self.operand(a, scope, "arg", true);
            }
            return;
        };
        if name0.contains('/') {
            self.operand(&args[0], scope, "exec", false);
        }
        let name = basename(&name0).to_string();
        let rest = &args[1..];
        let mut sub_via = via.to_vec();
        let values: Vec<Option<&str>> = rest.iter().map(|a| a.value.as_deref()).collect();
        for ov in super::options::option_values(&name, &values) {
            let a = &rest[ov.arg];
            match (&a.value, ov.offset) {
                (Some(v), offset) if offset > 0 => self.path(&v[offset..], scope, ov.kind),
                (Some(v), _) => self.path(v, scope, ov.kind),
                (None, _) => self.operand(a, scope, ov.kind, false),
            }
        }
        match name.as_str() {
            "sudo" | "doas" | "nice" | "nohup" | "setsid" | "stdbuf" | "time" | "timeout"
            | "command" | "builtin" | "exec" | "ionice" | "chrt" | "unbuffer" | "env" | "xargs" => {
                sub_via.push(name.clone());
                let (start, chdir, note) = self.wrapper_options(&name, rest, scope, via);
                if let Some(dir) = chdir {
                    let mut inner = scope.clone();
                    self.cd(Some(&dir), &mut inner);
                    self.run(rest[start..].to_vec(), &mut inner, &sub_via);
                } else {
                    let inner_args = if start <= rest.len() {
                        rest[start..].to_vec()
                    } else {
                        Vec::new()
                    };
                    if name == "xargs" {
                        self.unknown(
                            "xargs runs a command with arguments read from its input".into(),
                        );
                        let mut inner = inner_args;
                        if inner.is_empty() {
                            inner.push(Arg::known("echo"));
                        }
                        let mut sub = scope.clone();
                        self.run(inner, &mut sub, &sub_via);
                    } else if name == "command"
                        && rest[..start.min(rest.len())]
                            .iter()
                            .any(|a| matches!(a.value.as_deref(), Some("-v" | "-V")))
                    {
                        // `command -v x` looks `x` up; it does not run it.
                    } else if name == "exec" || name == "command" || name == "builtin" {
                        // These run in the current shell: `exec cd` is not a thing, but
                        // `command cd /x` is.
                        self.run(inner_args, scope, &sub_via);
                    } else {
                        let mut sub = scope.clone();
                        self.run(inner_args, &mut sub, &sub_via);
                    }
                }
                if let Some(n) = note {
                    self.unknown(n);
                }
            }
            n if is_shell(n) => self.shell(&name, rest, scope, via),
            "eval" => {
                // Its string is analyzed for the facts, but a string run as code stays
                // undecidable (the issue's rule, and the contract's word list).
                self.unknown("eval runs a string as a command".into());
                let words: Option<Vec<String>> = rest.iter().map(|a| a.value.clone()).collect();
                match words {
                    Some(w) => {
                        sub_via.push("eval".into());
                        self.program(&w.join(" "), scope, &sub_via);
                    }
                    None => self.unknown("eval of a computed string".into()),
                }
            }
            "source" | "." => {
                if let Some(a) = rest.first() {
                    self.operand(a, scope, "exec", false);
                }
            }
            "cd" | "pushd" => {
                let target = rest.iter().find(|a| {
                    a.value
                        .as_deref()
                        .is_none_or(|v| !(v.starts_with('-') && v.len() > 1))
                });
                match target {
                    None => self.cd(Some("~"), scope),
                    Some(a) => {
                        if a.value.is_some() {
                            self.operand(a, scope, "cd", false);
                        } else {
                            self.unknown(format!(
                                "cd to {} whose value is not known",
                                a.unknown_what.clone().unwrap_or_default()
                            ));
                        }
                        let dir = a.value.clone();
                        if dir.as_deref() == Some("-") {
                            scope.cwd = None;
                        } else {
                            self.cd(dir.as_deref(), scope);
                        }
                    }
                }
            }
            "popd" => scope.cwd = None,
            // Commands that run a string as a shell command, now or later.
            "trap" | "watch" | "su" | "runuser" | "script" => {
                let watched;
                let string = match name.as_str() {
                    "trap" => rest.iter().find(|a| a.value.as_deref() != Some("--")),
                    "watch" => {
                        // Its options (`-n 1` takes a value), then the command's words.
                        let mut i = 0;
                        while let Some(v) = rest.get(i).and_then(|a| a.value.as_deref()) {
                            if !v.starts_with('-') {
                                break;
                            }
                            i += if matches!(v, "-n" | "--interval") {
                                2
                            } else {
                                1
                            };
                        }
                        let words: Option<Vec<String>> = rest
                            .get(i..)
                            .unwrap_or_default()
                            .iter()
                            .map(|a| a.value.clone())
                            .collect();
                        watched = match words {
                            Some(w) => Arg::known(&w.join(" ")),
                            None => Arg::default(),
                        };
                        (i < rest.len()).then_some(&watched)
                    }
                    _ => rest
                        .iter()
                        .position(|a| matches!(a.value.as_deref(), Some("-c" | "--command")))
                        .and_then(|i| rest.get(i + 1)),
                };
                if let Some(a) = string {
                    match &a.value {
                        Some(text) => {
                            sub_via.push(name.clone());
                            let mut sub = scope.clone();
                            self.program(text, &mut sub, &sub_via);
                        }
                        None => self.unknown(format!("{name} runs a computed string")),
                    }
                }
                if matches!(name.as_str(), "su" | "runuser") && string.is_none() {
                    self.unknown(format!("{name} starts an interactive shell"));
                }
            }
            // Commands that run the command after their options (and, for `flock`, a file).
            "strace" | "ltrace" | "taskset" | "flock" => {
                let mut i = rest
                    .iter()
                    .position(|a| a.value.as_deref().is_none_or(|v| !v.starts_with('-')))
                    .unwrap_or(rest.len());
                if name == "flock" {
                    // The lock file, created if missing.
                    if let Some(a) = rest.get(i) {
                        self.operand(a, scope, "write", false);
                    }
                }
                if name == "flock" || name == "taskset" {
                    i += 1;
                }
                sub_via.push(name.clone());
                let inner = rest.get(i..).map(<[Arg]>::to_vec).unwrap_or_default();
                if name == "flock" && inner.first().and_then(|a| a.value.as_deref()) == Some("-c") {
                    if let Some(text) = inner.get(1).and_then(|a| a.value.clone()) {
                        let mut sub = scope.clone();
                        self.program(&text, &mut sub, &sub_via);
                    }
                } else {
                    let mut sub = scope.clone();
                    self.run(inner, &mut sub, &sub_via);
                }
            }
            "alias" => {
                // Not expanded in a script unless enabled, but an alias's text is a command
                // that can run: its commands count.
                for a in rest {
                    match a.value.as_deref().and_then(|v| v.split_once('=')) {
                        Some((_, text)) => {
                            let mut sub = scope.clone();
                            sub_via.push("alias".into());
                            self.program(text, &mut sub, &sub_via);
                        }
                        None if a.value.is_none() => {
                            self.unknown("alias of a computed string".into())
                        }
                        None => {}
                    }
                }
            }
            "export" | "declare" | "typeset" | "local" | "readonly" => {
                for a in rest {
                    match &a.value {
                        Some(v) => {
                            if let Some((n, val)) = v.split_once('=') {
                                if n == "IFS" {
                                    self.unknown("IFS is changed".into());
                                }
                                scope.vars.insert(
                                    n.trim_end_matches('+').to_string(),
                                    Some(val.to_string()),
                                );
                            }
                        }
                        None => {
                            if let Some((n, _)) = a.prefix.split_once('=') {
                                scope.vars.insert(n.to_string(), None);
                            }
                        }
                    }
                }
            }
            "read" | "mapfile" | "readarray" | "unset" | "getopts" => {
                for a in rest {
                    if let Some(v) = &a.value {
                        if !v.starts_with('-') {
                            scope.vars.insert(v.clone(), None);
                        }
                    }
                }
            }
            "find" => self.find(rest, scope, via),
            // No file operands: an unknown word here is printed or compared, not opened.
            "echo" | "printf" | "true" | "false" | ":" | "exit" | "return" | "sleep" | "shift"
            | "let" | "expr" | "seq" | "test" | "[" => {
                if name == "printf" {
                    if let Some(i) = rest.iter().position(|a| a.value.as_deref() == Some("-v")) {
                        if let Some(Some(v)) = rest.get(i + 1).map(|a| a.value.clone()) {
                            scope.vars.insert(v, None);
                        }
                    }
                }
                // Known words of the path shape still count (`echo /etc/x` names it, and its
                // output may become another command's words through `$(…)`).
                let kind = if name == "test" || name == "[" {
                    "read"
                } else {
                    "arg"
                };
                for a in rest.iter().filter(|a| a.value.is_some()) {
                    self.operand(a, scope, kind, true);
                }
            }
            // Inline programs are opaque, but the absolute and home paths quoted in them are
            // still reported: `python3 -c "open('/etc/passwd')"`.
            "python" | "python3" | "node" | "perl" | "ruby" | "php" | "deno" | "bun" => {
                let mut code = false;
                for a in rest {
                    let Some(v) = a.value.as_deref() else {
                        self.operand(a, scope, "arg", true);
                        continue;
                    };
                    if code {
                        for p in quoted_paths(v) {
                            self.path(&p, scope, "arg");
                        }
                        code = false;
                    } else if matches!(v, "-c" | "-e" | "-p" | "-r" | "-E" | "--eval" | "--print") {
                        code = true;
                    } else {
                        self.operand(
                            a,
                            scope,
                            if v.starts_with('-') { "arg" } else { "exec" },
                            true,
                        );
                    }
                }
            }
            "cp" | "rsync" | "scp" => {
                let operands: Vec<&Arg> = rest
                    .iter()
                    .filter(|a| a.value.as_deref().is_none_or(|v| !v.starts_with('-')))
                    .collect();
                for (i, a) in operands.iter().enumerate() {
                    let kind = if i + 1 == operands.len() {
                        "write"
                    } else {
                        "read"
                    };
                    self.operand(a, scope, kind, false);
                }
                for a in rest
                    .iter()
                    .filter(|a| a.value.as_deref().is_some_and(|v| v.starts_with('-')))
                {
                    self.operand(a, scope, "arg", true);
                }
            }
            "dd" => {
                for a in rest {
                    let kind = match a.value.as_deref() {
                        Some(v) if v.starts_with("of=") => "write",
                        Some(v) if v.starts_with("if=") => "read",
                        _ => "arg",
                    };
                    if let Some(v) = &a.value {
                        if let Some((_, path)) = v.split_once('=') {
                            if kind != "arg" {
                                self.path(path, scope, kind);
                                continue;
                            }
                        }
                    }
                    self.operand(a, scope, kind, true);
                }
            }
            _ => {
                let in_place = matches!(name.as_str(), "sed" | "perl")
                    && rest.iter().any(|a| {
                        a.value
                            .as_deref()
                            .is_some_and(|v| v.starts_with("-i") || v == "--in-place")
                    });
                let kind = if is_write_command(&name) || in_place {
                    "write"
                } else if is_read_command(&name) {
                    "read"
                } else {
                    "arg"
                };
                let exact = kind != "arg" && name != "grep" && name != "rg" && name != "awk";
                for a in rest {
                    // Operands of the file commands are paths whatever their shape.
                    let shaped = !exact || a.value.as_deref().is_some_and(|v| v.starts_with('-'));
                    self.operand(a, scope, kind, shaped);
                }
            }
        }
    }

    /// Skips a wrapper's options. Returns where the wrapped command starts, a directory the
    /// wrapper changes to, and a reason the result is unknown.
    fn wrapper_options(
        &mut self,
        name: &str,
        rest: &[Arg],
        scope: &Scope,
        _via: &[String],
    ) -> (usize, Option<String>, Option<String>) {
        // Options that take a separate value, per wrapper.
        let takes_value: &[&str] = match name {
            "sudo" | "doas" => &[
                "-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-T", "-U", "--user", "--group",
                "--chdir",
            ],
            "nice" => &["-n", "--adjustment"],
            "ionice" => &["-c", "-n", "-p", "-P", "-u"],
            "chrt" => &["-p"],
            "stdbuf" => &["-i", "-o", "-e"],
            "time" => &["-f", "-o", "--format", "--output"],
            "timeout" => &["-s", "-k", "--signal", "--kill-after"],
            "exec" => &["-a"],
            "env" => &["-u", "-C", "-S", "--unset", "--chdir", "--split-string"],
            "xargs" => &[
                "-I",
                "-L",
                "-n",
                "-P",
                "-s",
                "-d",
                "-a",
                "-E",
                "--arg-file",
                "--delimiter",
                "--max-args",
                "--max-procs",
                "--max-lines",
                "--replace",
                "--eof",
                "--max-chars",
            ],
            _ => &[],
        };
        let mut i = 0;
        let mut chdir = None;
        let mut note = None;
        while i < rest.len() {
            let Some(v) = rest[i].value.clone() else {
                if name == "env" || rest[i].prefix.contains('=') {
                    i += 1;
                    continue;
                }
                break;
            };
            if v == "--" {
                i += 1;
                break;
            }
            if name == "env" && !v.starts_with('-') && v.contains('=') {
                i += 1;
                continue;
            }
            if !v.starts_with('-') || v == "-" {
                break;
            }
            if (name == "sudo" || name == "doas")
                && matches!(v.as_str(), "-i" | "-s" | "--login" | "--shell")
                && rest.len() == i + 1
            {
                note = Some(format!("{name} {v} starts an interactive shell"));
            }
            let (flag, glued) = match v.split_once('=') {
                Some((f, val)) if v.starts_with("--") => (f.to_string(), Some(val.to_string())),
                // `env -C/dir`, `env -S'cmd'`: a short option glued to its value.
                _ if name == "env"
                    && (v.starts_with("-C") || v.starts_with("-S"))
                    && v.len() > 2 =>
                {
                    (v[..2].to_string(), Some(v[2..].to_string()))
                }
                _ => (v.clone(), None),
            };
            let value = if takes_value.contains(&flag.as_str()) && glued.is_none() {
                i += 1;
                rest.get(i).and_then(|a| a.value.clone())
            } else {
                glued
            };
            match (name, flag.as_str()) {
                ("sudo" | "doas", "-D" | "--chdir") | ("env", "-C" | "--chdir") => {
                    chdir = Some(value.clone().unwrap_or_else(|| "\u{0}".into()));
                }
                ("env", "-S" | "--split-string") => {
                    // The string is split into the command's words: analyze it as a command.
                    match value.clone() {
                        Some(s) => {
                            let mut words = vec![s];
                            words.extend(
                                rest[i + 1..]
                                    .iter()
                                    .map(|a| a.value.clone().unwrap_or_default()),
                            );
                            let mut sub = scope.clone();
                            self.program(&words.join(" "), &mut sub, &["env -S".to_string()]);
                        }
                        None => note = Some("env -S with a computed string".into()),
                    }
                    return (rest.len(), None, note);
                }
                ("time", "-o" | "--output") | ("xargs", "-a" | "--arg-file") => {
                    if let Some(p) = &value {
                        let kind = if name == "time" { "write" } else { "read" };
                        self.path(p, scope, kind);
                    }
                }
                _ => {}
            }
            i += 1;
        }
        if name == "timeout" && i < rest.len() {
            i += 1; // the duration
        }
        if name == "nice" || name == "ionice" {
            // `nice -5 cmd`: a numeric option is consumed above as a flag.
        }
        if let Some(dir) = &chdir {
            if dir == "\u{0}" {
                return (
                    i.min(rest.len()),
                    None,
                    Some(format!("{name} changes to a directory that is not known")),
                );
            }
        }
        (i.min(rest.len()), chdir, note)
    }

    fn cd(&mut self, dir: Option<&str>, scope: &mut Scope) {
        scope.cwd = match (dir, &scope.cwd) {
            (Some(d), Some(cwd)) => Some(join(cwd, d)),
            (Some(d), None) if d.starts_with('/') || d == "~" || d.starts_with("~/") => {
                Some(normalize(d))
            }
            _ => None,
        };
    }

    fn shell(&mut self, name: &str, rest: &[Arg], scope: &mut Scope, via: &[String]) {
        let mut i = 0;
        let mut dash_c = false;
        let mut stdin = false;
        while i < rest.len() {
            let Some(v) = rest[i].value.as_deref() else {
                break;
            };
            if v == "--" || v == "-" {
                i += 1;
                break;
            }
            if !(v.starts_with('-') || v.starts_with('+')) || v.len() < 2 {
                break;
            }
            if v.starts_with("--") {
                if v == "--rcfile" || v == "--init-file" {
                    i += 1;
                }
            } else {
                if v.contains('c') && v.starts_with('-') {
                    dash_c = true;
                }
                if v.contains('s') && v.starts_with('-') {
                    stdin = true;
                }
                if v.ends_with('o') || v.ends_with('O') {
                    i += 1;
                }
            }
            i += 1;
        }
        let mut sub_via = via.to_vec();
        if dash_c {
            // A literal string is parsed as the program it is (to the depth limit): its
            // commands are the command's commands. A computed one is undecidable.
            sub_via.push(format!("{name} -c"));
            match rest.get(i) {
                Some(a) => match &a.value {
                    Some(script) => {
                        let mut sub = scope.clone();
                        self.program(script, &mut sub, &sub_via);
                    }
                    None => self.unknown(format!("{name} -c of a computed string")),
                },
                None => self.unknown(format!("{name} -c without a command")),
            }
        } else if stdin || i >= rest.len() {
            self.unknown(format!("{name} runs commands read from its input"));
        } else {
            self.operand(&rest[i], scope, "exec", false);
        }
    }

    fn find(&mut self, rest: &[Arg], scope: &mut Scope, via: &[String]) {
        let mut i = 0;
        let mut roots = Vec::new();
        while i < rest.len() {
            let v = rest[i].value.as_deref();
            if v.is_some_and(|v| v.starts_with('-') || v == "(" || v == "!" || v == ")") {
                break;
            }
            roots.push(i);
            i += 1;
        }
        let deletes = rest.iter().any(|a| a.value.as_deref() == Some("-delete"));
        for &r in &roots {
            self.operand(
                &rest[r],
                scope,
                if deletes { "write" } else { "read" },
                false,
            );
        }
        if roots.is_empty() {
            self.path(".", scope, if deletes { "write" } else { "read" });
        }
        while i < rest.len() {
            let v = rest[i].value.clone();
            match v.as_deref() {
                Some("-exec" | "-execdir" | "-ok" | "-okdir") => {
                    let flag = v.unwrap_or_default();
                    // The command runs once per found file (or batch): its `{}` are files
                    // under the roots, already counted; its other words are its own.
                    let mut j = i + 1;
                    let mut inner = Vec::new();
                    while j < rest.len() {
                        match rest[j].value.as_deref() {
                            Some(";") | Some("+") => break,
                            Some("{}") => inner.push(Arg {
                                value: Some("{}".into()),
                                placeholder: true,
                                ..Arg::default()
                            }),
                            _ => inner.push(rest[j].clone()),
                        }
                        j += 1;
                    }
                    let mut sub_via = via.to_vec();
                    sub_via.push(format!("find {flag}"));
                    let mut sub = scope.clone();
                    if flag.ends_with("dir") {
                        // Runs in each found file's directory: somewhere under the roots.
                        sub.cwd = None;
                    }
                    self.run(inner, &mut sub, &sub_via);
                    i = j + 1;
                }
                Some("-fprint" | "-fprint0" | "-fprintf" | "-fls") => {
                    if let Some(a) = rest.get(i + 1) {
                        self.operand(a, scope, "write", false);
                    }
                    i += 2;
                }
                _ => {
                    if rest[i].value.is_none() {
                        self.operand(&rest[i], scope, "arg", true);
                    }
                    i += 1;
                }
            }
        }
    }
}

/// The most words one brace expansion may give before the command is undecidable.
const MAX_BRACE_WORDS: usize = 1024;

/// Appends known text to an argument's value (and to its known prefix).
fn push_value(arg: &mut Arg, text: &str) {
    if let Some(v) = arg.value.as_mut() {
        v.push_str(text);
        arg.prefix.push_str(text);
    }
}

/// Escapes the characters brace expansion, splitting and globbing would act on.
fn escape_pattern(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if matches!(
            c,
            '*' | '?' | '[' | ']' | '{' | '}' | ',' | '\\' | ' ' | '\t' | '\n'
        ) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

fn unescape_pattern(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut it = s.chars();
    while let Some(c) = it.next() {
        match c {
            '\\' => out.extend(it.next()),
            c => out.push(c),
        }
    }
    out
}

/// The char index (in the unescaped value) of the first live glob character.
fn first_glob(pattern: &str) -> Option<usize> {
    let mut n = 0;
    let mut it = pattern.chars();
    while let Some(c) = it.next() {
        match c {
            '\\' => {
                it.next();
            }
            '*' | '?' | '[' => return Some(n),
            _ => {}
        }
        n += 1;
    }
    None
}

/// Splits a pattern on unescaped whitespace (the splitting of unquoted expansions).
fn split_pattern(pattern: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut it = pattern.chars();
    while let Some(c) = it.next() {
        match c {
            '\\' => {
                let last = out.last_mut().expect("never empty");
                last.push('\\');
                last.extend(it.next());
            }
            ' ' | '\t' | '\n' => {
                if !out.last().is_some_and(|l| l.is_empty()) {
                    out.push(String::new());
                }
            }
            c => out.last_mut().expect("never empty").push(c),
        }
    }
    if out.len() > 1 && out.last().is_some_and(|l| l.is_empty()) {
        out.pop();
    }
    out
}

/// The characters one brace expansion may go through (its work) before it gives up.
const BRACE_BUDGET: usize = 1 << 22;

/// Bash's brace expansion of a pattern (`a{b,c}d`, `{1..3}`, `{a..c}`), escapes kept. False
/// when it would give more than [`MAX_BRACE_WORDS`] words or take more than its budget.
fn brace_expand(pattern: &str, out: &mut Vec<String>, budget: &mut usize) -> bool {
    if pattern.len() > *budget {
        return false;
    }
    *budget -= pattern.len();
    let chars: Vec<char> = pattern.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '\\' => i += 2,
            '{' => {
                let (group, scanned) = brace_group(&chars, i);
                if scanned > *budget {
                    return false;
                }
                *budget -= scanned;
                if let Some((close, alternatives)) = group {
                    let prefix: String = chars[..i].iter().collect();
                    let suffix: String = chars[close + 1..].iter().collect();
                    for alt in alternatives {
                        if !brace_expand(&format!("{prefix}{alt}{suffix}"), out, budget) {
                            return false;
                        }
                    }
                    return true;
                }
                i += 1;
            }
            _ => i += 1,
        }
        if out.len() > MAX_BRACE_WORDS {
            return false;
        }
    }
    out.push(pattern.to_string());
    out.len() <= MAX_BRACE_WORDS
}

/// The brace group opening at `open`: where it closes and its alternatives (a comma list or a
/// sequence); `None` when it is not one (then the braces are literal). Also how many
/// characters it looked at.
type BraceGroup = Option<(usize, Vec<String>)>;

fn brace_group(chars: &[char], open: usize) -> (BraceGroup, usize) {
    let group = brace_group_at(chars, open);
    let scanned = group
        .as_ref()
        .map_or(chars.len() - open, |(close, _)| close - open);
    (group, scanned)
}

fn brace_group_at(chars: &[char], open: usize) -> BraceGroup {
    let mut depth = 0usize;
    let mut commas = Vec::new();
    let mut i = open;
    while i < chars.len() {
        match chars[i] {
            '\\' => {
                i += 2;
                continue;
            }
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    let inner: Vec<String> = {
                        let mut parts = Vec::new();
                        let mut from = open + 1;
                        for &c in &commas {
                            parts.push(chars[from..c].iter().collect());
                            from = c + 1;
                        }
                        parts.push(chars[from..i].iter().collect());
                        parts
                    };
                    if !commas.is_empty() {
                        return Some((i, inner));
                    }
                    return brace_sequence(&inner[0]).map(|seq| (i, seq));
                }
            }
            ',' if depth == 1 => commas.push(i),
            _ => {}
        }
        i += 1;
    }
    None
}

/// `1..5`, `5..1..2`, `a..e`: the words of a sequence expression (capped: more than the cap
/// gives one more word than the cap, so the caller sees the overflow).
fn brace_sequence(body: &str) -> Option<Vec<String>> {
    let parts: Vec<&str> = body.split("..").collect();
    if !(2..=3).contains(&parts.len()) {
        return None;
    }
    let step: i64 = match parts.get(2) {
        Some(s) => s.parse::<i64>().ok()?.abs().max(1),
        None => 1,
    };
    let limit = MAX_BRACE_WORDS + 1;
    if let (Ok(a), Ok(b)) = (parts[0].parse::<i64>(), parts[1].parse::<i64>()) {
        let mut out = Vec::new();
        let mut x = a;
        while out.len() < limit && ((a <= b && x <= b) || (a > b && x >= b)) {
            out.push(x.to_string());
            x = if a <= b { x + step } else { x - step };
        }
        return Some(out);
    }
    let one = |s: &str| {
        let mut it = s.chars();
        match (it.next(), it.next()) {
            (Some(c), None) if c.is_ascii_alphabetic() => Some(c as i64),
            _ => None,
        }
    };
    let (a, b) = (one(parts[0])?, one(parts[1])?);
    let mut out = Vec::new();
    let mut x = a;
    while out.len() < limit && ((a <= b && x <= b) || (a > b && x >= b)) {
        out.push(char::from_u32(x as u32)?.to_string());
        x = if a <= b { x + step } else { x - step };
    }
    Some(out)
}

/// Resolves `rel` from the physical directory `base` as the kernel does: each existing
/// symlink is replaced by its target, and `..` climbs from where the walk physically is.
fn physical_walk(base: &std::path::Path, rel: &str, links: &mut usize) -> std::path::PathBuf {
    let mut cur = if rel.starts_with('/') {
        std::path::PathBuf::from("/")
    } else {
        base.to_path_buf()
    };
    for part in rel.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                cur.pop();
            }
            name => {
                cur.push(name);
                let Ok(meta) = std::fs::symlink_metadata(&cur) else {
                    continue;
                };
                if !meta.file_type().is_symlink() || *links >= 40 {
                    continue;
                }
                *links += 1;
                if let Ok(target) = std::fs::read_link(&cur) {
                    cur.pop();
                    let parent = cur.clone();
                    cur = physical_walk(&parent, &target.to_string_lossy(), links);
                }
            }
        }
    }
    cur
}

/// String literals in program text that start with `/` or `~/` (as `'/etc/passwd'`).
fn quoted_paths(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(i) = rest.find(['\'', '"', '`']) {
        let q = rest.as_bytes()[i] as char;
        let body = &rest[i + 1..];
        let Some(end) = body.find(q) else { break };
        let lit = &body[..end];
        if lit.starts_with('/') || lit.starts_with("~/") || lit == "~" {
            out.push(lit.to_string());
        }
        rest = &body[end + 1..];
    }
    out
}

/// After branches that may or may not have run, whatever differs becomes unknown.
fn merge(scope: &mut Scope, branches: &[Scope]) {
    for b in branches {
        if b.cwd != scope.cwd {
            scope.cwd = None;
        }
        for (k, v) in &b.vars {
            if scope.vars.get(k) != Some(v) {
                scope.vars.insert(k.clone(), None);
            }
        }
        // A function defined in a branch that may have run may be called.
        for (k, v) in &b.funcs {
            scope.funcs.entry(k.clone()).or_insert_with(|| v.clone());
        }
    }
}

fn param_name(e: &ParameterExpr) -> String {
    let p = match e {
        ParameterExpr::Parameter { parameter, .. }
        | ParameterExpr::UseDefaultValues { parameter, .. }
        | ParameterExpr::AssignDefaultValues { parameter, .. }
        | ParameterExpr::IndicateErrorIfNullOrUnset { parameter, .. }
        | ParameterExpr::UseAlternativeValue { parameter, .. }
        | ParameterExpr::ParameterLength { parameter, .. }
        | ParameterExpr::RemoveSmallestSuffixPattern { parameter, .. }
        | ParameterExpr::RemoveLargestSuffixPattern { parameter, .. }
        | ParameterExpr::RemoveSmallestPrefixPattern { parameter, .. }
        | ParameterExpr::RemoveLargestPrefixPattern { parameter, .. } => parameter,
        _ => return "…".to_string(),
    };
    p.to_string()
}

/// The value of a plain `$NAME` / `${NAME}` when the command itself set it (or `$HOME`,
/// `$PWD`, which the analyzer models); `None` otherwise.
fn lookup(e: &ParameterExpr, scope: &Scope) -> Option<String> {
    let ParameterExpr::Parameter {
        parameter,
        indirect: false,
    } = e
    else {
        return None;
    };
    let name = match parameter {
        Parameter::Named(name) => name,
        // Numbers, never paths: `echo $?` is ordinary work.
        Parameter::Special(
            SpecialParameter::LastExitStatus
            | SpecialParameter::PositionalParameterCount
            | SpecialParameter::ProcessId
            | SpecialParameter::LastBackgroundProcessId,
        ) => return Some("0".to_string()),
        _ => return None,
    };
    match scope.vars.get(name) {
        Some(v) => v.clone(),
        None if name == "HOME" => Some("~".to_string()),
        None if name == "PWD" => scope.cwd.clone(),
        None => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn joins_and_normalizes_lexically() {
        assert_eq!(join(".", "a/./b/../c"), "a/c");
        assert_eq!(join("sub", "../../x"), "../x");
        assert_eq!(join("/etc", "passwd"), "/etc/passwd");
        assert_eq!(join("/etc", "../../.."), "/");
        assert_eq!(join("~", ".ssh"), "~/.ssh");
        assert_eq!(join("/x", "/abs"), "/abs");
        assert!(may_escape("../x") && may_escape("~/x") && may_escape("/x"));
        assert!(!may_escape("a/../b") && !may_escape("https:/e.com"));
    }

    #[test]
    fn finds_quoted_paths_in_inline_programs() {
        assert_eq!(
            quoted_paths(r#"open('/etc/passwd').read(); x = "a/b"; f(`~/.ssh/k`)"#),
            ["/etc/passwd", "~/.ssh/k"]
        );
        assert!(quoted_paths("print('unterminated").is_empty());
    }

    #[test]
    fn decodes_ansi_c_strings() {
        assert_eq!(decode_ansi_c(r"\x2fetc\057x\u00e9\n").unwrap(), "/etc/xé\n");
        assert_eq!(decode_ansi_c(r"a\'b\\").unwrap(), "a'b\\");
        assert!(decode_ansi_c(r"\x").is_none());
    }

    #[test]
    fn nesting_estimate_counts_parens_braces_keywords_and_backticks() {
        assert_eq!(nesting_depth("ls"), 0);
        assert_eq!(nesting_depth("( ( ls ) )"), 2);
        assert_eq!(nesting_depth("if a; then if b; then c; fi; fi"), 2);
        assert_eq!(nesting_depth("``````"), 3);
    }
}
