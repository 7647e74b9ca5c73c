//! `monitor_send`: writes to the stdin of a monitor started with `stdin: true` (see
//! [`crate::monitor`]). Not in the contract: this package's own addition.

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
    /// The monitor id from monitor_start (started with stdin: true).
    pub id: String,
    /// The text to write, exactly as given: end a line with "\n" to submit it.
    #[serde(default)]
    pub input: String,
    /// After writing, close stdin so the program sees end of file (like Ctrl-D). No input can
    /// be sent afterwards.
    pub eof: Option<bool>,
}

pub struct MonitorSend;

impl Tool for MonitorSend {
    const NAME: &'static str = "monitor_send";
    const DESCRIPTION: &'static str = "Write text to the stdin of a background process started with monitor_start {stdin: true} (a REPL, a prompt, a server reading commands). Returns JSON {id, written, eof}. The text is written exactly as given: end it with \"\\n\" to submit a line. Pass eof: true to close stdin afterwards. Read the answer with monitor_poll.";
    const MUTATING: bool = true;
    const OPEN_WORLD: bool = true;
    const BOUNDED: bool = true;
    const SINCE_V05: bool = true;
    const EXTRA: bool = true;
    // A full pipe is waited on (at most 5 s).
    const WAITS: bool = true;
    const TITLE: &'static str = "Send input to background process";
    // It types into a running process, which may be a shell.
    const DESTRUCTIVE: bool = true;
    type Args = Args;

    fn output_schema() -> Option<serde_json::Value> {
        Some(serde_json::json!({
            "type": "object",
            "properties": {
                "id": {"type": "string"},
                "written": {"type": "integer", "description": "Bytes written to stdin."},
                "eof": {"type": "boolean", "description": "Whether stdin was closed afterwards."}
            },
            "required": ["id", "written", "eof"]
        }))
    }

    fn run(args: Args, ctx: &Ctx) -> ToolResult<Output> {
        let eof = args.eof.unwrap_or(false);
        let written = monitor::send(
            &ctx.workspace_root,
            &args.id,
            args.input.as_bytes(),
            eof,
            ctx.sandbox_on(),
        )
        .map_err(mon_error)?;
        Ok(Output::text(format!(
            "{{\"id\":{},\"written\":{written},\"eof\":{eof}}}",
            serde_json::Value::from(args.id)
        )))
    }
}
