//! The tool registry: every tool in the contract's order, each described by one [`Tool`] impl
//! in a file named after it. A tool is a pure function of (arguments, config); the input struct
//! is both its validator and the source of its advertised schema.

use std::sync::LazyLock;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::config::Config;
use crate::error::ToolResult;
use crate::schema::{parse_args, schema_for};

pub mod apply_patch;
pub mod bash;
pub mod copy;
pub mod diff;
pub mod edit_file;
pub mod file_stat;
pub mod glob;
pub mod grep;
pub mod list_dir;
pub mod mkdir;
pub mod r#move;
pub mod multi_edit;
pub mod read_file;
pub mod read_files;
pub mod read_image;
pub mod remove;
pub mod replace;
pub mod tree;
pub mod write_file;

/// One tool: its advertised name and description, its input, and what it does.
pub trait Tool {
    const NAME: &'static str;
    /// Written for a model: when to use this tool, and when to use another instead.
    const DESCRIPTION: &'static str;
    /// Mutating tools are hidden (and refused) under `readOnly`.
    const MUTATING: bool;
    /// The tool bounds its own output to `maxOutputBytes`; dispatch does not cut it again.
    const BOUNDED: bool = false;
    type Args: DeserializeOwned + JsonSchema;
    fn run(args: Self::Args, config: &Config) -> ToolResult<String>;
}

/// A registered tool, type-erased.
pub struct ToolSpec {
    pub name: &'static str,
    pub description: &'static str,
    pub mutating: bool,
    pub bounded: bool,
    pub schema: Value,
    run: fn(&Value, Value, &Config) -> ToolResult<String>,
}

impl ToolSpec {
    fn of<T: Tool>() -> ToolSpec {
        ToolSpec {
            name: T::NAME,
            description: T::DESCRIPTION,
            mutating: T::MUTATING,
            bounded: T::BOUNDED,
            schema: schema_for::<T::Args>(),
            run: |schema, args, config| T::run(parse_args(schema, args)?, config),
        }
    }

    /// Validates `args` against the schema and runs the tool (no output bounding).
    pub fn call(&self, args: Value, config: &Config) -> ToolResult<String> {
        (self.run)(&self.schema, args, config)
    }
}

/// Every built tool, in the contract's registry order: read_file, write_file, edit_file,
/// multi_edit, apply_patch, list_dir, glob, grep, bash.
pub static REGISTRY: LazyLock<Vec<ToolSpec>> = LazyLock::new(|| {
    vec![
        ToolSpec::of::<read_file::ReadFile>(),
        ToolSpec::of::<write_file::WriteFile>(),
        ToolSpec::of::<edit_file::EditFile>(),
        ToolSpec::of::<multi_edit::MultiEdit>(),
        ToolSpec::of::<apply_patch::ApplyPatch>(),
        ToolSpec::of::<list_dir::ListDir>(),
        ToolSpec::of::<glob::Glob>(),
        ToolSpec::of::<grep::Grep>(),
        ToolSpec::of::<bash::Bash>(),
        ToolSpec::of::<read_files::ReadFiles>(),
        ToolSpec::of::<diff::Diff>(),
        ToolSpec::of::<replace::Replace>(),
        ToolSpec::of::<r#move::Move>(),
        ToolSpec::of::<copy::Copy>(),
        ToolSpec::of::<mkdir::Mkdir>(),
        ToolSpec::of::<remove::Remove>(),
        ToolSpec::of::<file_stat::FileStat>(),
        ToolSpec::of::<tree::Tree>(),
    ]
});

/// The tools active for a configuration: all of them, or only the read tools.
pub fn surface(read_only: bool) -> impl Iterator<Item = &'static ToolSpec> {
    REGISTRY.iter().filter(move |t| !(read_only && t.mutating))
}

/// Finds a tool by name within the active surface.
pub fn find(name: &str, read_only: bool) -> Option<&'static ToolSpec> {
    surface(read_only).find(|t| t.name == name)
}
