//! agent-tools-native: file-and-shell tools for LLM coding agents.
//!
//! Everything but [`binding`] is plain Rust: each tool is a pure function of (arguments,
//! config) in `tools/`, built on shared mechanics that live in one module each.

pub mod atomic;
pub mod bash_facts;
pub mod bound;
pub mod call;
pub mod code;
pub mod config;
pub mod confine;
pub mod dispatch;
pub mod editing;
pub mod error;
pub mod ignore_rules;
pub mod js_regex;
pub mod json_text;
pub mod matching;
pub mod memory;
pub mod monitor;
pub mod output;
pub mod paging;
pub mod patch;
pub mod paths;
pub mod pattern;
pub mod pool;
pub mod punctuation;
#[cfg(all(test, target_os = "linux"))]
mod race;
pub mod sandbox;
pub mod schema;
pub mod shell;
pub mod spill;
pub mod suggest;
pub mod surfaces;
#[cfg(test)]
mod testutil;
pub mod text;
pub mod tools;
pub mod unified_diff;
pub mod walk;
pub mod warn;

// napi-derive compiles its registrations out of test builds, which leaves the binding layer
// unused there; it is exercised by the vitest suite instead.
#[cfg(not(test))]
mod binding;
