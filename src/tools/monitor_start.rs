//! `monitor_start`: starts a long-lived command in the background (see [`crate::monitor`]) and,
//! with `ready_when`, waits until its output shows it is ready.

use std::fs;
use std::time::Duration;

use schemars::JsonSchema;
use serde::Deserialize;

use super::monitor_poll::{compile, mon_error, to_json};
use super::Tool;
use crate::call::Ctx;
use crate::error::{io_err, ToolError, ToolResult};
use crate::monitor::{self, StartRequest, LOG_CAP};
use crate::output::Output;
use crate::paths;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Args {
    /// The shell command to run in the background with `sh -c`, e.g. `npm run dev`.
    pub command: String,
    /// Working directory (default: the workspace root); relative paths are against the root.
    pub cwd: Option<String>,
    /// A JavaScript regular expression (no slashes, no flags) that marks the process as ready
    /// when it appears in its output, e.g. `listening on|ready in`. With it the call waits for the
    /// match, for the process to exit, or for ready_timeout_ms; without it the call returns
    /// at once.
    pub ready_when: Option<String>,
    /// How long to wait for ready_when, in milliseconds (default 30000; 0 means the default).
    #[schemars(range(min = 0))]
    pub ready_timeout_ms: Option<u64>,
    /// Give the process a stdin that monitor_send writes to. By default stdin is empty: a
    /// program reading it sees end of file at once.
    pub stdin: Option<bool>,
    /// Run the process in a pseudo-terminal, for programs that need one (they may then print
    /// colors and progress bars). Lines still end in plain "\n", and sent input is not echoed.
    pub pty: Option<bool>,
}

pub struct MonitorStart;

impl Tool for MonitorStart {
    const NAME: &'static str = "monitor_start";
    const DESCRIPTION: &'static str = "Start a long-running command in the background (a dev server, a watcher, a build in watch mode) and get back its monitor id: JSON {id, running, ready, output, next_offset}. The process keeps running after this call returns, and after this session too, until monitor_stop. Its stdout and stderr go to a log you read with monitor_poll. Pass ready_when (a regex matched against the output) to wait until the process is ready, e.g. ready_when \"listening on\": the call returns when it matches (ready true), when the process exits first (ready false, running false, exit_code and the end of its output), or after ready_timeout_ms (ready false, running true). Use bash for commands that finish on their own; use monitor_start for anything that keeps running, and do not add `&` (the command itself is what runs in the background). Pass stdin: true to send it input later with monitor_send. Stop monitors you no longer need with monitor_stop; monitor_list shows them all.";
    const MUTATING: bool = true;
    const BOUNDED: bool = true;
    const SINCE_V05: bool = true;
    /// Input for monitor_send, itself an extra.
    const EXTRA_ARGS: &'static [&'static str] = &["stdin", "pty"];
    const WAITS: bool = true;
    const TITLE: &'static str = "Start background process";
    // It runs any shell command, as bash does (MCP `destructiveHint`).
    const DESTRUCTIVE: bool = true;
    const OPEN_WORLD: bool = true;
    type Args = Args;

    fn output_schema() -> Option<serde_json::Value> {
        Some(serde_json::json!({
            "type": "object",
            "properties": {
                "id": {"type": "string", "description": "The monitor id for monitor_poll, monitor_send and monitor_stop."},
                "running": {"type": "boolean"},
                "ready": {"type": ["boolean", "null"], "description": "Whether ready_when matched; null without ready_when."},
                "output": {"type": "string", "description": "The output so far (with ready_when)."},
                "next_offset": {"type": "integer", "description": "The offset for the next monitor_poll."},
                "exit_code": {"type": ["integer", "null"], "description": "Present when the process exited while ready_when was awaited."}
            },
            "required": ["id", "running", "ready", "output", "next_offset"]
        }))
    }

    fn run(args: Args, ctx: &Ctx) -> ToolResult<Output> {
        let nul = args.command.contains('\0');
        if nul && !ctx.contract_exact() {
            return Err(ToolError::invalid_input(
                "command contains a NUL byte, which a shell command cannot hold",
            )
            .with("field", "command"));
        }
        let cwd = paths::resolve_or_root(ctx, args.cwd.as_deref())?;
        let meta = fs::metadata(&cwd.abs).map_err(|e| io_err(e, &cwd.input))?;
        if !meta.is_dir() {
            return Err(ToolError::not_a_directory(&cwd.input));
        }
        let ready_when = match &args.ready_when {
            Some(src) => Some((
                src.as_str(),
                compile(src, "ready_when", ctx.contract_exact())?,
            )),
            None => None,
        };
        if nul {
            // The root answers as the contract's spawn does (CONTRACT-v0.5 §3, "A spawn failure
            // → `io_error` `Failed to spawn monitor: <msg>`", after the cwd and regex checks):
            // Node refuses the `sh -c` script holding the NUL, as it does bash's (wording §8).
            let script = format!(
                "trap 'printf \"%s\" \"$?\" > \"$MON_EXIT\"' EXIT\n{}\n",
                args.command
            );
            return Err(ToolError::new(
                crate::error::ErrorCode::IoError,
                format!(
                    "Failed to spawn monitor: {}",
                    super::bash::null_bytes_message(&script)
                ),
            ));
        }
        let timeout_ms = match args.ready_timeout_ms {
            None | Some(0) => ctx.monitor_ready_timeout_ms,
            Some(ms) => ms,
        };
        let sandbox = crate::sandbox::plan_or_refuse(ctx, &cwd.abs, "started")?;
        let line = sandbox.as_ref().map(|p| p.line().to_string());
        let mut started = monitor::start(
            StartRequest {
                root: &ctx.workspace_root,
                command: &args.command,
                cwd: &cwd.abs,
                ready_when,
                // A caller-built config may allow absurd waits; a year cannot overflow.
                ready_timeout: Duration::from_millis(timeout_ms.min(365 * 24 * 3600 * 1000)),
                max_output: ctx.max_output_bytes as usize,
                max_monitors: usize::try_from(ctx.max_monitors).unwrap_or(usize::MAX),
                stdin: args.stdin.unwrap_or(false),
                pty: args.pty.unwrap_or(false),
                log_cap: LOG_CAP,
                tail_on_exit: !ctx.contract_exact(),
                sandbox,
            },
            &|| ctx.cancel.is_cancelled(),
        )
        .map_err(mon_error)?;
        started.sandbox = line;
        if ctx.contract_exact() {
            // The contract's answer is exactly {id, running, ready, output, next_offset}
            // (CONTRACT-v0.5 §3); the exit code of a command that exited early is the
            // engine's addition.
            started.exit_code = None;
        }
        Ok(Output::text(to_json(&started)))
    }
}

#[cfg(test)]
mod tests {
    use crate::config::Config;
    use serde_json::json;

    #[test]
    fn a_nul_byte_is_node_refusing_the_sh_c_script_at_the_root() {
        // CONTRACT-v0.5 §3: "A spawn failure → `io_error` `Failed to spawn monitor: <msg>`",
        // after the cwd check; `<msg>` as Node 22 words it for `spawn('sh', ['-c', script])`.
        let dir = tempfile::tempdir().unwrap();
        let c = crate::testutil::config_at(dir.path());
        let e = crate::testutil::call_text("monitor_start", json!({"command": "echo a\0b"}), &c)
            .unwrap_err();
        assert_eq!(
            e.envelope(),
            json!({
                "error": "io_error",
                "message": "Failed to spawn monitor: The argument 'args[1]' must be a string without null bytes. Received `trap 'printf \"%s\" \"$?\" > \"$MON_EXIT\"' EXIT\\necho a\\x00b\\n`"
            })
            .to_string()
        );
        let e = crate::testutil::call_text(
            "monitor_start",
            json!({"command": "a\0", "cwd": "gone"}),
            &c,
        )
        .unwrap_err();
        assert_eq!(e.message, "No such file: gone");
        let extras = Config { extras: true, ..c };
        let e = crate::testutil::call_text("monitor_start", json!({"command": "a\0"}), &extras)
            .unwrap_err();
        assert_eq!(e.fields["field"], "command");
    }
}
