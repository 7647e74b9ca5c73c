//! The tool registry: every tool in the contract's order, each described by one [`Tool`] impl
//! in a file named after it. A tool is a pure function of (arguments, config); the input struct
//! is both its validator and the source of its advertised schema.

use std::sync::LazyLock;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::call::Ctx;
use crate::config::{Config, Profile};
use crate::error::ToolResult;
use crate::output::Output;
use crate::schema::{check_args, deserialize, relaxed, schema_for};

pub mod apply_patch;
pub mod ast_grep;
pub mod bash;
pub mod check_syntax;
pub mod copy;
pub mod diff;
pub mod edit_file;
pub mod file_stat;
pub mod find_references;
pub mod find_symbol;
pub mod glob;
pub mod grep;
pub mod list_dir;
pub mod mkdir;
pub mod monitor_list;
pub mod monitor_poll;
pub mod monitor_send;
pub mod monitor_start;
pub mod monitor_stop;
pub mod r#move;
pub mod multi_edit;
pub mod outline;
pub mod read_file;
pub mod read_files;
pub mod read_image;
pub mod remove;
pub mod replace;
pub mod repo_map;
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
    /// The seed contract lacks this tool: it is hidden at the `/v0.1` entry.
    const SINCE_V05: bool = false;
    /// Beyond the newest contract too: offered only when `config.extras` is on (the library's
    /// `extras: true`; on by default in the CLI and the MCP server), never at `/v0.1`.
    const EXTRA: bool = false;
    /// A code-intelligence tool: hidden when `treeSitterAvailable` is false.
    const NEEDS_TREE_SITTER: bool = false;
    /// Arguments the seed contract's version of this tool lacks: left out of its seed schema.
    const SEED_HIDDEN_ARGS: &'static [&'static str] = &[];
    /// Arguments beyond the newest contract too: advertised and honoured only with `extras`.
    /// At the contract root they are unknown keys, which the contract ignores.
    const EXTRA_ARGS: &'static [&'static str] = &[];
    /// The tool mostly waits on another process (a command, a server getting ready): it runs
    /// off the bounded worker pool so it never holds a worker while it sleeps.
    const WAITS: bool = false;
    /// A short human-readable title (the MCP `title` annotation).
    const TITLE: &'static str = "";
    /// It may overwrite or delete what is already there (MCP `destructiveHint`).
    const DESTRUCTIVE: bool = Self::MUTATING;
    /// Calling it twice with the same arguments does nothing more (MCP `idempotentHint`).
    const IDEMPOTENT: bool = !Self::MUTATING;
    /// It reaches beyond the workspace, as a shell command can (MCP `openWorldHint`).
    const OPEN_WORLD: bool = false;
    /// The JSON Schema of the result text, for a tool whose result is one JSON object (the MCP
    /// `outputSchema`; hosts then get it as structured content).
    fn output_schema() -> Option<Value> {
        None
    }
    type Args: DeserializeOwned + JsonSchema;
    fn run(args: Self::Args, ctx: &Ctx) -> ToolResult<Output>;
}

/// A registered tool, type-erased.
pub struct ToolSpec {
    pub name: &'static str,
    pub description: &'static str,
    pub mutating: bool,
    pub bounded: bool,
    pub since_v05: bool,
    pub extra: bool,
    pub needs_tree_sitter: bool,
    pub waits: bool,
    /// The MCP annotations: title, readOnly, destructive, idempotent and openWorld hints.
    pub annotations: Value,
    pub output_schema: Option<Value>,
    /// The seed contract's schema: closed objects, strict minimums.
    pub seed_schema: Value,
    /// The newest contract's schema with the engine's extra arguments (see
    /// [`crate::schema::relaxed`]): what `extras` and the surfaces see.
    pub schema: Value,
    /// [`ToolSpec::schema`] without [`Tool::EXTRA_ARGS`]: the contract root's.
    pub contract_schema: Value,
    run: fn(Value, &Ctx) -> ToolResult<Output>,
}

impl ToolSpec {
    fn of<T: Tool>() -> ToolSpec {
        let full = schema_for::<T::Args>();
        let without = |schema: &Value, names: &[&str]| {
            let mut schema = schema.clone();
            if let Some(props) = schema.get_mut("properties").and_then(Value::as_object_mut) {
                names.iter().for_each(|name| {
                    props.shift_remove(*name);
                });
            }
            schema
        };
        let seed_schema = without(&full, T::SEED_HIDDEN_ARGS);
        let schema = relaxed(&full);
        ToolSpec {
            name: T::NAME,
            description: T::DESCRIPTION,
            mutating: T::MUTATING,
            bounded: T::BOUNDED,
            since_v05: T::SINCE_V05,
            extra: T::EXTRA,
            needs_tree_sitter: T::NEEDS_TREE_SITTER,
            waits: T::WAITS,
            annotations: serde_json::json!({
                "title": T::TITLE,
                "readOnlyHint": !T::MUTATING,
                "destructiveHint": T::DESTRUCTIVE,
                "idempotentHint": T::IDEMPOTENT,
                "openWorldHint": T::OPEN_WORLD,
            }),
            output_schema: T::output_schema(),
            contract_schema: without(&schema, T::EXTRA_ARGS),
            schema,
            seed_schema,
            run: |args, ctx| T::run(deserialize(args)?, ctx),
        }
    }

    /// The schema an entry advertises (and enforces) under `config`: the seed contract's at
    /// `/v0.1`, the newest contract's at the root, with the engine's extra arguments when
    /// `extras` is on.
    pub fn schema_for(&self, config: &Config) -> &Value {
        if config.contract_exact() {
            &self.contract_schema
        } else {
            self.engine_schema(config.profile)
        }
    }

    /// The schema with every argument the engine has, under `profile`.
    fn engine_schema(&self, profile: Profile) -> &Value {
        match profile {
            Profile::Seed => &self.seed_schema,
            Profile::Current => &self.schema,
        }
    }

    /// Validates `args` as the entry `config` serves does ([`ToolSpec::schema_for`]); returns
    /// them coerced, keys the schema lacks dropped.
    pub fn check(&self, args: Value, config: &Config) -> ToolResult<Value> {
        check_args(self.schema_for(config), args, config.profile)
    }

    /// Runs the tool on arguments [`ToolSpec::check`] accepted (no output bounding).
    pub fn run_checked(&self, args: Value, ctx: &Ctx) -> ToolResult<Output> {
        (self.run)(args, ctx)
    }

    /// Validates `args` and runs the tool (no output bounding).
    pub fn call(&self, args: Value, ctx: &Ctx) -> ToolResult<Output> {
        let args = self.check(args, ctx)?;
        self.run_checked(args, ctx)
    }

    /// [`ToolSpec::call`] with every argument the engine has (the surfaces' way in: a vendor
    /// tool may need an engine argument beyond the contract, such as read_file's indentation
    /// mode).
    pub fn call_engine(&self, args: Value, ctx: &Ctx) -> ToolResult<Output> {
        let args = check_args(self.engine_schema(ctx.profile), args, ctx.profile)?;
        self.run_checked(args, ctx)
    }

    /// Whether a configuration offers this tool.
    pub fn offered(&self, config: &Config) -> bool {
        let seed = config.profile == Profile::Seed;
        let hidden = (config.read_only && self.mutating)
            || (seed && (self.since_v05 || self.extra))
            || (self.extra && !config.extras)
            || (self.needs_tree_sitter && !config.tree_sitter_available);
        !hidden
    }
}

/// Every built tool, in the newest contract's registry order (the seed contract's nine keep
/// their relative order).
pub static REGISTRY: LazyLock<Vec<ToolSpec>> = LazyLock::new(|| {
    vec![
        ToolSpec::of::<read_file::ReadFile>(),
        ToolSpec::of::<read_image::ReadImage>(),
        ToolSpec::of::<read_files::ReadFiles>(),
        ToolSpec::of::<write_file::WriteFile>(),
        ToolSpec::of::<edit_file::EditFile>(),
        ToolSpec::of::<multi_edit::MultiEdit>(),
        ToolSpec::of::<apply_patch::ApplyPatch>(),
        ToolSpec::of::<replace::Replace>(),
        ToolSpec::of::<list_dir::ListDir>(),
        ToolSpec::of::<glob::Glob>(),
        ToolSpec::of::<grep::Grep>(),
        ToolSpec::of::<diff::Diff>(),
        ToolSpec::of::<bash::Bash>(),
        ToolSpec::of::<monitor_start::MonitorStart>(),
        ToolSpec::of::<monitor_poll::MonitorPoll>(),
        ToolSpec::of::<monitor_stop::MonitorStop>(),
        ToolSpec::of::<monitor_list::MonitorList>(),
        ToolSpec::of::<monitor_send::MonitorSend>(),
        ToolSpec::of::<r#move::Move>(),
        ToolSpec::of::<copy::Copy>(),
        ToolSpec::of::<mkdir::Mkdir>(),
        ToolSpec::of::<remove::Remove>(),
        ToolSpec::of::<file_stat::FileStat>(),
        ToolSpec::of::<tree::Tree>(),
        ToolSpec::of::<outline::Outline>(),
        ToolSpec::of::<check_syntax::CheckSyntax>(),
        ToolSpec::of::<find_symbol::FindSymbol>(),
        ToolSpec::of::<find_references::FindReferences>(),
        ToolSpec::of::<repo_map::RepoMap>(),
        ToolSpec::of::<ast_grep::AstGrep>(),
    ]
});

/// The tools a configuration offers, in registry order.
pub fn surface(config: &Config) -> impl Iterator<Item = &'static ToolSpec> + '_ {
    REGISTRY.iter().filter(move |t| t.offered(config))
}

/// Whether the registered tool `name` mostly waits on another process (see [`Tool::WAITS`]).
pub fn waits(name: &str) -> bool {
    REGISTRY.iter().any(|t| t.name == name && t.waits)
}

/// Finds a tool by name among those a configuration offers.
pub fn find(name: &str, config: &Config) -> Option<&'static ToolSpec> {
    surface(config).find(|t| t.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::config_at;

    fn names(config: &Config) -> Vec<&'static str> {
        surface(config).map(|t| t.name).collect()
    }

    #[test]
    fn extras_are_offered_only_when_asked_and_never_at_the_seed_entry() {
        let base = config_at(std::path::Path::new("/"));
        let contract = names(&base);
        assert_eq!(contract.len(), 25, "the newest contract lists 25 tools");
        assert!(!contract.contains(&"monitor_send"));
        assert!(find("monitor_send", &base).is_none());

        let with = Config {
            extras: true,
            ..base.clone()
        };
        assert!(names(&with).contains(&"monitor_send"));
        assert!(find("monitor_send", &with).is_some());

        let seed = Config {
            extras: true,
            profile: Profile::Seed,
            ..base
        };
        assert_eq!(names(&seed).len(), 9);
        assert!(find("monitor_send", &seed).is_none());
    }
}
