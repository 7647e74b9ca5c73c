//! `monitor_stop`: stops a monitor's whole process group and deletes its files (see
//! [`crate::monitor`]).

use schemars::JsonSchema;
use serde::Deserialize;

use super::monitor_poll::mon_error;
use super::Tool;
use crate::call::Ctx;
use crate::error::ToolResult;
use crate::monitor;
use crate::output::Output;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Args {
    /// The monitor id from monitor_start or monitor_list.
    pub id: String,
}

pub struct MonitorStop;

impl Tool for MonitorStop {
    const NAME: &'static str = "monitor_stop";
    const DESCRIPTION: &'static str = "Stop a background process started with monitor_start, with every process it started (SIGTERM, then SIGKILL after 400 ms), and delete its log. Returns JSON {stopped: true, id}. Read what you still need from the log with monitor_poll first. Works on monitors that already exited too (it cleans up their files).";
    const MUTATING: bool = true;
    const BOUNDED: bool = true;
    const SINCE_V05: bool = true;
    const WAITS: bool = true;
    const TITLE: &'static str = "Stop background process";
    const IDEMPOTENT: bool = true;
    type Args = Args;

    fn output_schema() -> Option<serde_json::Value> {
        Some(serde_json::json!({
            "type": "object",
            "properties": {"stopped": {"type": "boolean"}, "id": {"type": "string"}},
            "required": ["stopped", "id"]
        }))
    }

    fn run(args: Args, ctx: &Ctx) -> ToolResult<Output> {
        monitor::stop(&ctx.workspace_root, &args.id, ctx.sandbox_on()).map_err(mon_error)?;
        Ok(Output::text(format!(
            "{{\"stopped\":true,\"id\":{}}}",
            serde_json::Value::from(args.id)
        )))
    }
}
