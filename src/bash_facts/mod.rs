//! `analyzeBash`: structured facts about a shell command for an authorization guard
//! (CONTRACT-v0.5 §5).
//!
//! Two passes. [`lexer`] is the contract's conservative lexer and yields the contract's exact
//! fields (`segments`, `paths`, `undecidable`), nothing more. [`parse`] parses the command
//! with a real bash parser (brush-parser) and walks it as bash would run it; its facts are
//! reported in the additive fields, and they alone decide the verdicts (`parse`: every
//! simple command that can run, every path it may touch, resolved physically when the
//! workspace is given, which of them lie outside, and whether anything could not be decided).
//! Whatever the parse cannot resolve makes it undecidable, so a verdict drawn from it fails
//! closed where the lexer would have been fooled.
//!
//! It never panics out and never fails: anything it cannot resolve makes the command
//! undecidable.

pub mod lexer;
pub mod options;
pub mod parse;

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

pub use lexer::Segment;

/// The facts about one command: the contract's `BashFacts` plus additive detail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BashFacts {
    pub paths: Vec<String>,
    pub undecidable: bool,
    pub segments: Vec<Segment>,
    pub parser: parse::ParserFacts,
    /// Why the command is undecidable, to the lexer or to the parse (empty when neither).
    pub reasons: Vec<String>,
    /// What the parse decides: the verdicts' facts.
    pub parse: ParseFacts,
}

/// The parse's facts, which the verdicts (`commandsIn`, `touchesOutside`, `withinWorkspace`)
/// are drawn from.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ParseFacts {
    /// Every simple command that can run (see [`parse::ParserFacts::segments`]).
    pub segments: Vec<String>,
    /// Every path the command may touch: physical and absolute when the workspace is given,
    /// else resolved lexically from the starting directory.
    pub paths: Vec<String>,
    /// Those of `paths` that lie outside the workspace (without one: absolute, `~` or `..`
    /// paths). Device files that hold no data (`/dev/null`, ...) never count.
    pub outside: Vec<String>,
    /// Whether anything could not be decided.
    pub undecidable: bool,
    /// Why the parse is undecidable (empty when it is decidable).
    pub reasons: Vec<String>,
}

/// Where a command runs: the workspace root and the directory it starts in (absolute).
#[derive(Debug, Clone)]
pub struct Place {
    pub root: PathBuf,
    /// The starting directory, when it is not the root (the bash tool's `cwd`).
    pub start: Option<PathBuf>,
    /// The confinement check: whether an absolute path lies within a root (the caller's, so
    /// this module stays below the path layer).
    pub within: fn(&Path, &Path) -> bool,
}

/// Devices that hold no data: reading or writing them touches nothing.
const HARMLESS_DEVICES: [&str; 4] = ["/dev/null", "/dev/stdin", "/dev/stdout", "/dev/stderr"];

/// Stack for the parser thread: the parser is recursive descent, and the input caps
/// ([`parse::MAX_PARSE_BYTES`], [`parse::MAX_NESTING`]) keep its depth far below this.
const PARSER_STACK_BYTES: usize = 64 * 1024 * 1024;

/// Analyzes a shell command, paths resolved lexically. Never panics; always answers.
pub fn analyze(command: &str) -> BashFacts {
    analyze_in(command, None)
}

/// Analyzes a shell command; with a [`Place`], paths are resolved physically against it.
pub fn analyze_in(command: &str, place: Option<&Place>) -> BashFacts {
    if command.len() > parse::MAX_PARSE_BYTES {
        // Far past what any command line holds (one exec argument is at most 128 KiB): not
        // read at all, so the answer stays fast whatever the size. Undecidable.
        return refused(format!(
            "command is {} bytes, more than the {} the analyzer reads",
            command.len(),
            parse::MAX_PARSE_BYTES
        ));
    }
    let lex = lexer::lex(command);
    if lex.too_many {
        return refused(format!(
            "command has more than {} segments, more than the analyzer reads",
            lexer::MAX_SEGMENTS
        ));
    }
    let start = place.map(|p| p.start.clone().unwrap_or_else(|| p.root.clone()));
    let parser = parse_isolated(command, start.clone());
    let mut reasons = lex.reasons;
    reasons.extend(parser.unknowns.iter().cloned());
    let parse = verdict_facts(&parser, place, start.as_deref());
    BashFacts {
        paths: lex.paths,
        undecidable: lex.undecidable,
        segments: lex.segments,
        parser,
        reasons,
        parse,
    }
}

/// The facts of a command the analyzer does not read: undecidable, nothing else.
fn refused(reason: String) -> BashFacts {
    BashFacts {
        paths: Vec::new(),
        undecidable: true,
        segments: Vec::new(),
        parser: parse::ParserFacts::default(),
        reasons: vec![reason.clone()],
        parse: ParseFacts {
            undecidable: true,
            reasons: vec![reason],
            ..ParseFacts::default()
        },
    }
}

fn verdict_facts(
    parser: &parse::ParserFacts,
    place: Option<&Place>,
    start: Option<&Path>,
) -> ParseFacts {
    let mut out = ParseFacts {
        segments: parser.segments.clone(),
        undecidable: !parser.parsed || !parser.unknowns.is_empty(),
        reasons: parser.unknowns.clone(),
        ..ParseFacts::default()
    };
    let mut paths: Vec<(String, bool)> = Vec::new();
    let root_real =
        place.map(|p| std::fs::canonicalize(&p.root).unwrap_or_else(|_| p.root.clone()));
    let outside_of = |p: &str| -> bool {
        if HARMLESS_DEVICES.contains(&p) {
            return false;
        }
        match (place, &root_real) {
            (Some(place), Some(real)) => {
                let abs = Path::new(p);
                !((place.within)(&place.root, abs) || (place.within)(real, abs))
            }
            _ => parse::may_escape(p),
        }
    };
    if let (Some(place), Some(start)) = (place, start) {
        if place.start.is_some() {
            let s = start.to_string_lossy().into_owned();
            paths.push((s.clone(), outside_of(&s)));
        }
    }
    for a in &parser.accesses {
        let p = match (place, &a.physical) {
            (Some(_), Some(phys)) => phys.clone(),
            // The directory is unknown: the parse is undecidable already.
            (Some(_), None) => continue,
            (None, _) => a.resolved.clone(),
        };
        if !paths.iter().any(|(q, _)| *q == p) {
            let outside = outside_of(&p);
            paths.push((p, outside));
        }
    }
    for (p, outside) in paths {
        if outside {
            out.outside.push(p.clone());
        }
        out.paths.push(p);
    }
    out
}

/// Runs the parser pass on its own thread (a large stack) behind `catch_unwind`, so neither
/// deep input nor a parser bug can take the host down: either becomes "undecidable".
fn parse_isolated(command: &str, start: Option<PathBuf>) -> parse::ParserFacts {
    let failed = |why: &str| parse::ParserFacts {
        unknowns: vec![format!("the analyzer could not parse it ({why})")],
        ..Default::default()
    };
    let owned = command.to_string();
    let spawned = std::thread::Builder::new()
        .name("analyze-bash".into())
        .stack_size(PARSER_STACK_BYTES)
        .spawn(move || {
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                parse::analyze(&owned, start.as_deref())
            }))
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
            .map(|a| {
                json!({
                    "path": a.path,
                    "resolved": a.resolved,
                    "kind": a.kind,
                    "physical": a.physical,
                })
            })
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
            "parse": {
                "segments": self.parse.segments,
                "paths": self.parse.paths,
                "outside": self.parse.outside,
                "undecidable": self.parse.undecidable,
                "reasons": self.parse.reasons,
            },
        })
    }
}

#[cfg(test)]
mod tests;
