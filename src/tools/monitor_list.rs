//! `monitor_list`: every monitor of the workspace, newest first (see [`crate::monitor`]).

use schemars::JsonSchema;
use serde::Deserialize;

use super::monitor_poll::to_json;
use super::Tool;
use crate::call::Ctx;
use crate::error::ToolResult;
use crate::monitor;
use crate::output::Output;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Args {}

pub struct MonitorList;

impl Tool for MonitorList {
    const NAME: &'static str = "monitor_list";
    const DESCRIPTION: &'static str = "List the background processes started with monitor_start in this workspace, newest first: JSON {monitors: [{id, command, running, started_at, cwd}]}. started_at is epoch milliseconds. Includes monitors left over from earlier sessions and ones that have exited (running false) until monitor_stop removes them.";
    // Not in the contract's read-only tool set: hidden under readOnly like every monitor tool.
    const MUTATING: bool = true;
    const BOUNDED: bool = true;
    const SINCE_V05: bool = true;
    const TITLE: &'static str = "List background processes";
    const DESTRUCTIVE: bool = false;
    const IDEMPOTENT: bool = true;
    type Args = Args;

    fn output_schema() -> Option<serde_json::Value> {
        Some(serde_json::json!({
            "type": "object",
            "properties": {
                "monitors": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "id": {"type": "string"},
                            "command": {"type": "string"},
                            "running": {"type": "boolean"},
                            "started_at": {"type": "integer", "description": "Epoch milliseconds."},
                            "cwd": {"type": "string"}
                        },
                        "required": ["id", "command", "running", "started_at", "cwd"]
                    }
                }
            },
            "required": ["monitors"]
        }))
    }

    fn run(_args: Args, ctx: &Ctx) -> ToolResult<Output> {
        #[derive(serde::Serialize)]
        struct Listing {
            monitors: Vec<monitor::Listed>,
        }
        let monitors = monitor::list(&ctx.workspace_root);
        Ok(Output::text(to_json(&Listing { monitors })))
    }
}
