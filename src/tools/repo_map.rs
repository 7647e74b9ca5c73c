//! `repo_map`: a ranked overview of a code base — its most important files, each with its most
//! important definitions as signature lines — within a character budget.
//!
//! Importance comes from a reference graph, as aider's repo map does: file A links to file B for
//! each name A uses that B defines (weighted by the square root of A's uses, divided among the
//! files that define the name, ×10 for a long compound name as aider weighs them; names defined in more than [`MAX_DEFINERS`] files are too common
//! to say anything). Files are ranked with PageRank, personalized toward `focus` (files,
//! directories or symbol names) when given; each file's rank flows along its links to the
//! definitions it uses, which ranks the definitions. The most important definitions that fit
//! the budget are shown (a focus file's own definitions also share its rank), grouped by file, files in rank order, definitions in line order.
//! Ties are broken by path and line, so the same tree always gives the same map.

use rustc_hash::FxHashMap;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::Deserialize;

use super::Tool;
use crate::call::Ctx;
use crate::code::nav;
use crate::code::tags::{self, FileTags};
use crate::error::ToolResult;
use crate::output::Output;
use crate::paths;

/// A name defined in more files than this links nothing.
const MAX_DEFINERS: usize = 32;
/// PageRank's damping factor and iterations.
const DAMPING: f64 = 0.85;
const ITERATIONS: usize = 40;
/// The default budget, in tokens (about 4 characters each).
const DEFAULT_TOKENS: u64 = 1024;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// Directory (or file) to map (default: the workspace root).
    pub path: Option<String>,
    /// Size of the map in tokens, about 4 characters each (default 1024).
    #[schemars(range(min = 1))]
    pub max_tokens: Option<u64>,
    /// Files, directories or symbol names to center the map on: they and what they use rank
    /// higher (`["src/server.ts", "handleRequest"]`).
    pub focus: Option<Vec<String>>,
}

pub struct RepoMap;

impl Tool for RepoMap {
    const NAME: &'static str = "repo_map";
    const DESCRIPTION: &'static str = "Get a ranked map of a code base: its most important files, each with its most important definitions (functions, classes, types, ...) as `line: signature` lines, never bodies, within about max_tokens tokens (default 1024). Importance comes from which definitions are used by many other files (PageRank over the references between files); focus (file paths, directories or symbol names) centers the map on what you are working on. Call it first in an unfamiliar repository, or with focus before changing a module, then read_file the lines you need. Languages: TypeScript, TSX, JavaScript, Python, Go, Rust, Java, C and C++. Use find_symbol / find_references for one name, tree or glob for the file layout, grep for text.";
    const MUTATING: bool = false;
    const BOUNDED: bool = true;
    const SINCE_V05: bool = true;
    const NEEDS_TREE_SITTER: bool = true;
    const EXTRA: bool = true;
    const TITLE: &'static str = "Map a repository";
    type Args = Args;

    fn run(args: Args, ctx: &Ctx) -> ToolResult<Output> {
        let base = paths::resolve_or_root(ctx, args.path.as_deref())?;
        let cancelled = || ctx.cancel.is_cancelled();
        let scanned = nav::scan(ctx, &base, &tags::supports, usize::MAX, &cancelled, |c| {
            c.tags(&cancelled)
        })?;
        let budget = usize::try_from(args.max_tokens.unwrap_or(DEFAULT_TOKENS))
            .unwrap_or(usize::MAX)
            .saturating_mul(4)
            .min(ctx.max_output_bytes as usize);
        let focus = args.focus.unwrap_or_default();
        Ok(map(&scanned.items, &focus, budget).into())
    }
}

/// One definition's place: file index and index in that file's `defs`.
type DefRef = (u32, u32);

/// The map of `files` (sorted by path) within `budget` bytes.
pub fn map(files: &[(String, Arc<FileTags>)], focus: &[String], budget: usize) -> String {
    let n = files.len();
    // Which files define each name.
    let mut definers: FxHashMap<&str, Vec<u32>> = FxHashMap::default();
    for (i, (_, t)) in files.iter().enumerate() {
        for d in &t.defs {
            let list = definers.entry(&d.name).or_default();
            if list.last() != Some(&(i as u32)) {
                list.push(i as u32);
            }
        }
    }
    let is_focus_file = |path: &str| {
        focus.iter().any(|f| {
            let f = f.trim_end_matches('/');
            let f = f.strip_prefix("./").unwrap_or(f);
            path == f || (path.starts_with(f) && path.as_bytes().get(f.len()) == Some(&b'/'))
        })
    };
    let is_focus_name = |name: &str| focus.iter().any(|f| f == name);
    // Links: (from, to, name, weight).
    let mut links: Vec<(u32, u32, &str, f64)> = Vec::new();
    for (i, (_, t)) in files.iter().enumerate() {
        for (name, count) in &t.names {
            let Some(to) = definers.get(&**name) else {
                continue;
            };
            if to.len() > MAX_DEFINERS {
                continue;
            }
            let mut w = (*count as f64).sqrt() / to.len() as f64;
            if is_focus_name(name) {
                w *= 10.0;
            }
            // As aider weighs them: a long, specific name says more than `count` or `flags`.
            if is_specific(name) {
                w *= 10.0;
            }
            if name.starts_with('_') {
                w *= 0.1;
            }
            for &j in to {
                if j as usize != i {
                    links.push((i as u32, j, &**name, w));
                }
            }
        }
    }
    // Personalization, as aider's: toward the focus files and the definers of focus names only
    // (every file alike when there is no focus, or it matches nothing).
    let focused: Vec<bool> = files
        .iter()
        .map(|(path, t)| is_focus_file(path) || t.defs.iter().any(|d| is_focus_name(&d.name)))
        .collect();
    let any_focus = focused.iter().any(|&f| f);
    let mut person: Vec<f64> = focused
        .iter()
        .map(|&f| if f || !any_focus { 1.0 } else { 0.0 })
        .collect();
    let sum: f64 = person.iter().sum();
    person
        .iter_mut()
        .for_each(|p| *p /= sum.max(f64::MIN_POSITIVE));
    let mut out_weight = vec![0.0f64; n];
    for &(from, _, _, w) in &links {
        out_weight[from as usize] += w;
    }
    let mut rank = person.clone();
    for _ in 0..ITERATIONS {
        let dangling: f64 = (0..n)
            .filter(|&i| out_weight[i] == 0.0)
            .map(|i| rank[i])
            .sum();
        let mut next: Vec<f64> = person
            .iter()
            .map(|p| (1.0 - DAMPING) * p + DAMPING * dangling * p)
            .collect();
        for &(from, to, _, w) in &links {
            next[to as usize] += DAMPING * rank[from as usize] * w / out_weight[from as usize];
        }
        rank = next;
    }
    // Each file's rank flows along its links to the definitions of the linked names.
    let mut flow: FxHashMap<(u32, &str), f64> = FxHashMap::default();
    for &(from, to, name, w) in &links {
        *flow.entry((to, name)).or_default() += rank[from as usize] * w / out_weight[from as usize];
    }
    let mut defs: Vec<(f64, DefRef)> = Vec::new();
    for (i, (_, t)) in files.iter().enumerate() {
        // A focus file's own definitions share its rank; any other's get a token of it.
        let share = if focused[i] { 1.0 } else { 1e-3 };
        let own = rank[i] * share / t.defs.len().max(1) as f64;
        for (k, d) in t.defs.iter().enumerate() {
            let score = flow.get(&(i as u32, &*d.name)).copied().unwrap_or(0.0) + own;
            defs.push((score, (i as u32, k as u32)));
        }
    }
    defs.sort_by(|a, b| {
        b.0.total_cmp(&a.0)
            .then_with(|| rank[b.1 .0 as usize].total_cmp(&rank[a.1 .0 as usize]))
            .then(a.1.cmp(&b.1))
    });
    if defs.is_empty() {
        return "(no definitions found)".to_string();
    }
    // The most definitions whose map fits the budget (the map grows with every one added),
    // with the footer saying what is left out; the footer is left out only when it alone would
    // not fit, so a map is never cut without saying so when it could.
    for footer in [true, false] {
        let render = |k: usize| render(files, &rank, &defs[..k], defs.len() - k, footer);
        let (mut lo, mut hi) = (0usize, defs.len());
        while lo < hi {
            let mid = (lo + hi).div_ceil(2);
            if render(mid).len() <= budget {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        if lo > 0 || (footer && render(0).len() <= budget) {
            return render(lo);
        }
    }
    {
        // Not even one definition fits: the top file's path, as much as fits.
        let first = &files[defs[0].1 .0 as usize].0;
        first[..crate::bound::floor_char_boundary(first, budget)].to_string()
    }
}

/// Whether a name is long and compound (`inode_permission`, `parseArgs`), as aider counts it.
fn is_specific(name: &str) -> bool {
    name.len() >= 8 && (name.contains('_') || name.chars().skip(1).any(|c| c.is_ascii_uppercase()))
}

/// The map text of the chosen definitions: files by rank, definitions by line.
fn render(
    files: &[(String, Arc<FileTags>)],
    rank: &[f64],
    chosen: &[(f64, DefRef)],
    left: usize,
    footer: bool,
) -> String {
    let mut by_file: Vec<DefRef> = chosen.iter().map(|c| c.1).collect();
    by_file.sort_by(|a, b| {
        rank[b.0 as usize]
            .total_cmp(&rank[a.0 as usize])
            .then(a.0.cmp(&b.0))
            .then(a.1.cmp(&b.1))
    });
    let mut out = String::new();
    let mut last = u32::MAX;
    let mut lines = Vec::new();
    for (f, k) in by_file {
        let (path, t) = &files[f as usize];
        let d = &t.defs[k as usize];
        if f != last {
            lines.push(format!("{path}:"));
            last = f;
        }
        lines.push(format!("  {}: {}", d.line, d.signature()));
    }
    // Two definitions on one line (a one-line struct and its field) show once.
    lines.dedup();
    for l in lines {
        out.push_str(&l);
        out.push('\n');
    }
    if left > 0 && footer {
        out.push_str(&format!(
            "[... {left} more definitions: raise max_tokens, narrow path or set focus ...]"
        ));
    } else {
        out.pop();
    }
    out
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use serde_json::json;

    use crate::tools::find_symbol::tests::config;
    use crate::tools::find_symbol::tests::tree;

    fn call(root: &Path, args: serde_json::Value) -> String {
        crate::testutil::call_text("repo_map", args, &config(root)).unwrap()
    }

    /// A small Python project: `core.py` is used by every other file.
    fn project(root: &Path) {
        tree(
            root,
            &[
                ("app/core.py", "class Store:\n    def get(self, key):\n        return key\n\ndef connect(url):\n    return Store()\n"),
                ("app/api.py", "from app.core import Store, connect\n\ndef handler(req):\n    return connect(req).get(1)\n"),
                ("app/cli.py", "from app.core import connect\n\ndef main():\n    connect('x')\n"),
                ("app/jobs.py", "from app.core import Store\n\ndef run_jobs():\n    Store()\n\ndef helper():\n    pass\n"),
                ("tools/report.py", "def report():\n    pass\n\ndef format_row(r):\n    return report()\n"),
            ],
        );
    }

    #[test]
    fn central_file_first_within_budget_and_deterministic() {
        let dir = tempfile::tempdir().unwrap();
        project(dir.path());
        let out = call(dir.path(), json!({}));
        assert!(out.starts_with("app/core.py:\n  1: class Store\n"), "{out}");
        assert!(out.contains("  5: def connect(url)"), "{out}");
        assert!(!out.contains("return"), "bodies are never shown: {out}");
        assert_eq!(out, call(dir.path(), json!({})));
        // A small budget keeps the most important definitions.
        let small = call(dir.path(), json!({"max_tokens": 12}));
        assert!(small.len() <= 48, "{small}");
        assert!(small.starts_with("app/core.py:\n"), "{small}");
        let tiny = call(dir.path(), json!({"max_tokens": 1}));
        assert!(tiny.len() <= 4, "{tiny:?}");
        // Where the footer alone fits, a cut map says so, with fewer definitions if need be.
        for tokens in [19, 20, 24, 30, 40] {
            let cut = call(dir.path(), json!({"max_tokens": tokens}));
            assert!(cut.len() <= tokens * 4, "{cut}");
            assert!(
                cut.ends_with("narrow path or set focus ...]"),
                "{tokens}: {cut}"
            );
        }
    }

    #[test]
    fn focus_moves_the_map() {
        let dir = tempfile::tempdir().unwrap();
        project(dir.path());
        let out = call(dir.path(), json!({"focus": ["tools/report.py"]}));
        assert!(out.starts_with("tools/report.py:\n"), "{out}");
        // Even in a small map, a focus file's definitions come first.
        let small = call(dir.path(), json!({"focus": ["tools/"], "max_tokens": 12}));
        assert!(
            small.starts_with("tools/report.py:\n  1: def report()"),
            "{small}"
        );
        let out = call(dir.path(), json!({"focus": ["run_jobs"]}));
        assert!(out.starts_with("app/jobs.py:\n"), "{out}");
        let out = call(dir.path(), json!({"path": "tools"}));
        assert_eq!(
            out,
            "tools/report.py:\n  1: def report()\n  4: def format_row(r)"
        );
    }
}
