//! `analyzeBash`: structured facts about a shell command for an authorization guard
//! (CONTRACT-v0.5 §5).
//!
//! Two passes. [`lexer`] is the contract's conservative lexer and yields the contract's exact
//! facts (`segments`, `paths`, `undecidable`). [`parse`] parses the command with a real bash
//! parser and walks it as bash would run it; it only adds: paths the lexer cannot see (glued
//! redirections, words inside substitutions and `bash -c` strings, paths after a `cd`,
//! variables assigned earlier in the command) and reasons to be undecidable (a `cd` to an
//! unknown place, `eval` of a computed string, a shell reading its input, input too large or
//! too deeply nested to analyze). Its detail is reported in additive fields.
//!
//! It never panics out and never fails: anything it cannot resolve makes the command
//! undecidable.

pub mod lexer;
pub mod parse;

use serde_json::{json, Value};

pub use lexer::Segment;

/// The facts about one command: the contract's `BashFacts` plus additive detail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BashFacts {
    pub paths: Vec<String>,
    pub undecidable: bool,
    pub segments: Vec<Segment>,
    pub parser: parse::ParserFacts,
    /// Why the command is undecidable (empty when it is decidable).
    pub reasons: Vec<String>,
}

/// Stack for the parser thread: the parser is recursive descent, and the input caps
/// ([`parse::MAX_PARSE_BYTES`], [`parse::MAX_NESTING`]) keep its depth far below this.
const PARSER_STACK_BYTES: usize = 64 * 1024 * 1024;

/// Analyzes a shell command. Never panics; always answers.
pub fn analyze(command: &str) -> BashFacts {
    let lex = lexer::lex(command);
    let parser = parse_isolated(command);
    let mut paths = lex.paths;
    for p in &parser.extra_paths {
        if !paths.contains(p) {
            paths.push(p.clone());
        }
    }
    let mut reasons = lex.reasons;
    reasons.extend(parser.unknowns.iter().cloned());
    BashFacts {
        paths,
        undecidable: lex.undecidable || !parser.unknowns.is_empty(),
        segments: lex.segments,
        parser,
        reasons,
    }
}

/// Runs the parser pass on its own thread (a large stack) behind `catch_unwind`, so neither
/// deep input nor a parser bug can take the host down: either becomes "undecidable".
fn parse_isolated(command: &str) -> parse::ParserFacts {
    let failed = |why: &str| parse::ParserFacts {
        unknowns: vec![format!("the analyzer could not parse it ({why})")],
        ..Default::default()
    };
    let owned = command.to_string();
    let spawned = std::thread::Builder::new()
        .name("analyze-bash".into())
        .stack_size(PARSER_STACK_BYTES)
        .spawn(move || {
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| parse::analyze(&owned)))
        });
    match spawned {
        Ok(handle) => match handle.join() {
            Ok(Ok(facts)) => facts,
            _ => failed("parser failure"),
        },
        Err(_) => failed("no thread"),
    }
}

impl BashFacts {
    /// The facts as JavaScript sees them: the contract's keys first, then the additive ones.
    pub fn to_json(&self) -> Value {
        let segments: Vec<Value> = self
            .segments
            .iter()
            .map(|s| {
                json!({
                    "command": s.command,
                    "argv": s.argv,
                    "normalized": s.normalized,
                    "decidable": s.decidable,
                })
            })
            .collect();
        let commands: Vec<Value> = self
            .parser
            .commands
            .iter()
            .map(|c| json!({ "argv": c.argv, "cwd": c.cwd, "via": c.via }))
            .collect();
        let accesses: Vec<Value> = self
            .parser
            .accesses
            .iter()
            .map(|a| json!({ "path": a.path, "resolved": a.resolved, "kind": a.kind }))
            .collect();
        let redirections: Vec<Value> = self
            .parser
            .redirections
            .iter()
            .map(|r| json!({ "fd": r.fd, "op": r.op, "target": r.target }))
            .collect();
        json!({
            "paths": self.paths,
            "undecidable": self.undecidable,
            "segments": segments,
            "commands": commands,
            "accesses": accesses,
            "redirections": redirections,
            "reasons": self.reasons,
            "parsed": self.parser.parsed,
        })
    }
}

/// Whether a glob character (as the lexer counts them).
fn lexer_is_glob(c: char) -> bool {
    matches!(c, '*' | '?' | '[' | ']' | '{' | '}')
}

#[cfg(test)]
mod tests;
