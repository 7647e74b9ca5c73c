//! `monitor_poll`: reads a monitor's output from a byte offset (see [`crate::monitor`]).
//! Also home of what the monitor tools share: regex compilation and the error mapping.

use schemars::JsonSchema;
use serde::Deserialize;

use super::Tool;
use crate::call::Ctx;
use crate::error::{ErrorCode, ToolError, ToolResult};
use crate::js_regex::{self, Flags, JsRegex};
use crate::monitor::{self, MonError};
use crate::output::Output;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Args {
    /// The monitor id from monitor_start (`mon_` and 8 hex digits).
    pub id: String,
    /// Byte offset to read from (default 0): pass the next_offset of the previous poll to get
    /// only new output.
    #[schemars(range(min = 0))]
    pub offset: Option<u64>,
    /// A JavaScript regular expression (no slashes, no flags): only the output lines matching
    /// it are returned, e.g. `error|warn`.
    #[serde(rename = "match")]
    pub match_: Option<String>,
}

pub struct MonitorPoll;

impl Tool for MonitorPoll {
    const NAME: &'static str = "monitor_poll";
    const DESCRIPTION: &'static str = "Read the output of a background process started with monitor_start: JSON {running, output, next_offset, exit_code}. Pass offset = the next_offset of your previous poll to get only what is new (offset 0 reads from the start). Pass match (a regex) to keep only matching lines, e.g. \"error|failed\". running tells whether the process is still alive; exit_code is its exit status once it has exited (null while running, or when it was killed). A line still being written is held back until it is complete. When the output is longer than one result, it ends with a note giving the offset to continue from.";
    // Not in the contract's read-only tool set: hidden under readOnly like every monitor tool.
    const MUTATING: bool = true;
    const BOUNDED: bool = true;
    const SINCE_V05: bool = true;
    // Waits briefly for the log writer when the process just exited.
    const WAITS: bool = true;
    const TITLE: &'static str = "Read background process output";
    const DESTRUCTIVE: bool = false;
    const IDEMPOTENT: bool = true;
    type Args = Args;

    fn output_schema() -> Option<serde_json::Value> {
        Some(serde_json::json!({
            "type": "object",
            "properties": {
                "running": {"type": "boolean"},
                "output": {"type": "string"},
                "next_offset": {"type": "integer", "description": "Pass it as offset to the next poll."},
                "exit_code": {"type": ["integer", "null"], "description": "The exit status once exited; null while running or when killed."}
            },
            "required": ["running", "output", "next_offset", "exit_code"]
        }))
    }

    fn run(args: Args, ctx: &Ctx) -> ToolResult<Output> {
        let filter = match &args.match_ {
            Some(src) => Some(compile(src, "match", ctx.contract_exact())?),
            None => None,
        };
        let polled = monitor::poll(
            &ctx.workspace_root,
            &args.id,
            args.offset.unwrap_or(0),
            ctx.max_output_bytes as usize,
            filter.as_ref(),
        )
        .map_err(mon_error)?;
        Ok(Output::text(to_json(&polled)))
    }
}

/// Compiles a monitor regex (`match`, `ready_when`): a JavaScript `RegExp` with no flags, as
/// the contract's (CONTRACT-v0.5 §3). A bad one is `invalid_input` `Invalid <field> regex:
/// <msg>` with the engine's one-line reason as `<msg>`; at the root (`exact`) its field is the
/// contract's, named after the argument and holding it (`{"match": "("}`), with `extras` it is
/// `field` naming the argument.
pub(super) fn compile(src: &str, field: &str, exact: bool) -> ToolResult<JsRegex> {
    js_regex::compile(src, Flags::default()).map_err(|reason| {
        let mut e = ToolError::invalid_input(format!("Invalid {field} regex: {reason}"));
        if exact {
            return e.with(field, src);
        }
        if let Some(hint) = js_regex::inline_flags_hint(src) {
            e.message +=
                &format!(". {hint}; match both cases with a class instead, e.g. [Rr]eady.");
        }
        e.with("field", field)
    })
}

/// The envelope of a monitor failure.
pub(super) fn mon_error(e: MonError) -> ToolError {
    match e {
        MonError::NotFound(id) => {
            ToolError::new(ErrorCode::MonitorNotFound, format!("No such monitor: {id}"))
                .with("id", id)
        }
        MonError::TooMany { live, max } => ToolError::new(
            ErrorCode::TooManyMonitors,
            format!("Too many live monitors ({live}/{max}); stop some with monitor_stop first"),
        )
        .with("limit", max),
        MonError::Spawn(e) => {
            ToolError::new(ErrorCode::IoError, format!("Failed to spawn monitor: {e}"))
        }
        MonError::NoStdin(id) => ToolError::invalid_input(format!(
            "Monitor {id} was started without stdin: true, so it has no input to write to. Start it again with monitor_start {{stdin: true}}."
        ))
        .with("id", id),
        MonError::StdinClosed { id, why } => ToolError::new(
            ErrorCode::IoError,
            format!("Cannot write to the stdin of monitor {id}: {why}."),
        )
        .with("id", id),
        MonError::Io(e) => ToolError::new(ErrorCode::IoError, format!("Monitor I/O failed: {e}")),
    }
}

pub(super) fn to_json(value: &impl serde::Serialize) -> String {
    serde_json::to_string(value).unwrap_or_else(|_| "{}".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bad_regex_names_its_argument_as_the_field_at_the_root() {
        // CONTRACT-v0.5 §3: "`Invalid match regex: <msg>`, field `match`".
        let e = compile("(", "match", true).unwrap_err();
        assert_eq!(
            e.envelope(),
            r#"{"error":"invalid_input","message":"Invalid match regex: Invalid regular expression: /(/: Unterminated group","match":"("}"#
        );
        let e = compile("(", "ready_when", false).unwrap_err();
        assert_eq!(e.fields["field"], "ready_when");
        assert_eq!(
            e.message,
            "Invalid ready_when regex: Invalid regular expression: /(/: Unterminated group"
        );
        // An inline flag: V8's text alone at the root, with a way out beyond it.
        let e = compile("(?i)ready", "ready_when", true).unwrap_err();
        assert_eq!(
            e.message,
            "Invalid ready_when regex: Invalid regular expression: /(?i)ready/: Invalid group"
        );
        let e = compile("(?i)ready", "ready_when", false).unwrap_err();
        assert!(e.message.ends_with("Invalid group. JavaScript regular expressions have no inline flags such as (?i); match both cases with a class instead, e.g. [Rr]eady."), "{}", e.message);
    }
}
