//! Helpers shared by the unit tests of every module.

use std::path::Path;

use crate::config::{with_defaults, Config, Options};

/// A config rooted at `root` with every other setting at its default; tests change a field
/// with struct update syntax (`Config { read_only: true, ..config_at(root) }`).
pub fn config_at(root: &Path) -> Config {
    with_defaults(Options {
        workspace_root: Some(root.to_string_lossy().into_owned()),
        tree_sitter_available: Some(true),
        ..Options::default()
    })
    .expect("a root is all with_defaults needs")
}

/// A small deterministic xorshift generator for randomized tests.
pub struct XorShift(u64);

impl XorShift {
    pub fn new(seed: u64) -> Self {
        XorShift(seed.max(1))
    }

    /// A number in `0..n`.
    pub fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

/// Runs tool `T` on `args` under `config` (never cancelled) and returns its text parts joined.
pub fn run_text<T: crate::tools::Tool>(
    args: T::Args,
    config: &Config,
) -> crate::error::ToolResult<String> {
    T::run(args, &crate::call::Ctx::plain(config)).map(|o| o.joined_text())
}

/// Validates `args` and runs the registered tool `name` under `config`, as text.
pub fn call_text(
    name: &str,
    args: serde_json::Value,
    config: &Config,
) -> crate::error::ToolResult<String> {
    let tool = crate::tools::find(name, config).expect("tool is registered");
    tool.call(args, &crate::call::Ctx::plain(config))
        .map(|o| o.joined_text())
}
