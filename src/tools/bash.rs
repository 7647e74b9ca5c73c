//! `bash`: runs `sh -c <command>` (see [`crate::shell`] for the process mechanics) and reports
//! `{"exit_code","stdout","stderr","signal","timed_out"}` — plus, with `extras`,
//! `background_pids` when processes the command started in the background are still running.
//!
//! Output display ([`shown_streams`]): each stream is decoded as UTF-8 (invalid bytes become
//! U+FFFD), and the two streams share a byte budget by their captured lengths: a stream under
//! half keeps all of it and the other gets the rest. A stream over its share is written whole
//! to a spill file under `.clarvis/` and shows part of itself with the contract's marker naming
//! that file: its head at `/v0.1` (budget `maxOutputBytes`), its tail at the root (budget
//! `maxBashOutputBytes`).

use std::borrow::Cow;
use std::time::Duration;

use schemars::JsonSchema;
use serde::Deserialize;

use super::Tool;
use crate::bound;
use crate::call::Ctx;
use crate::config::{Config, Profile};
use crate::error::{ErrorCode, ToolError, ToolResult};
use crate::json_text::push_str_literal;
use crate::output::Output;
use crate::paths;
use crate::shell::{self, Capture, End, Request};
use crate::spill;

/// The smallest per-stream capture ceiling; `maxOutputBytes` raises it.
pub const MIN_CAPTURE_BYTES: usize = 8 * 1024 * 1024;
/// The shell commands run with unless the `shell` option names another: the contract's.
pub const DEFAULT_SHELL: &str = "sh";

/// Whether a timeout or an output-limit failure reads as the contracts word it: at the root
/// without extras, and at `/v0.1` (whose texts CONTRACT-v0.5 §6 says are unchanged).
fn contract_texts(config: &Config) -> bool {
    config.contract_exact() || config.profile == crate::config::Profile::Seed
}

/// The error when `<shell> -c` cannot be started; a shell that is not installed is named as
/// such, with what to do about it. `sandbox`: the sandbox's one-line description, when there
/// is one.
fn not_started(shell: &str, sandbox: Option<&str>, e: &std::io::Error) -> ToolError {
    let message = if e.kind() == std::io::ErrorKind::NotFound {
        format!(
            "{shell} is not installed (not found on PATH), so the command did not run. Install it (Debian/Ubuntu: apt-get install {base}; Alpine: apk add {base}; macOS: brew install {base})."
            ,
            base = std::path::Path::new(shell)
                .file_name()
                .map_or(shell.into(), |n| n.to_string_lossy())
        )
    } else {
        let under = sandbox.map(|l| format!(" ({l})")).unwrap_or_default();
        format!("could not start `{shell} -c`{under}: {e}")
    };
    ToolError::new(ErrorCode::IoError, message).with("shell", shell)
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// The shell command, run with `sh -c`. Use `&&`, pipes and redirections as in any POSIX
    /// shell.
    pub command: String,
    /// Working directory (default: the workspace root); relative paths are against the root.
    pub cwd: Option<String>,
    /// Maximum run time in milliseconds (default 120000). Larger values are clamped to the
    /// configured maximum (600000 by default).
    #[schemars(range(min = 1))]
    pub timeout_ms: Option<u64>,
}

pub struct Bash;

impl Tool for Bash {
    const NAME: &'static str = "bash";
    const DESCRIPTION: &'static str = "Run a shell command with `sh -c` and get back JSON {exit_code, stdout, stderr, signal, timed_out}. Use it to build, run tests, use git, or run programs. stdin is closed, so interactive commands fail: pass flags like --yes or pipe input in. The call waits for the shell to exit; start a long-lived process (a server, a watcher) in the background with its output redirected, e.g. `npm start > /tmp/server.log 2>&1 &`. A non-zero exit code is a normal result. Output is shared between stdout and stderr within a size budget; when cut, the full output is saved under .clarvis/ and the cut text names the file (read it with read_file or grep). The command is killed with all its children when it passes timeout_ms (error `timeout`) or floods output past the capture limit (error `output_limit`). Do not use bash to read, search, list or edit files: read_file, grep, glob, list_dir, edit_file and write_file are faster and safer.";
    const MUTATING: bool = true;
    const TITLE: &'static str = "Run shell command";
    const OPEN_WORLD: bool = true;
    const BOUNDED: bool = true;
    const WAITS: bool = true;
    type Args = Args;

    fn output_schema() -> Option<serde_json::Value> {
        Some(serde_json::json!({
            "type": "object",
            "properties": {
                "exit_code": {"type": "integer", "description": "The shell's exit code (128 + the signal number when a signal killed it)."},
                "stdout": {"type": "string"},
                "stderr": {"type": "string"},
                "signal": {"type": ["string", "null"], "description": "The signal that killed the shell, e.g. SIGKILL."},
                "timed_out": {"type": "boolean"},
                "background_pids": {"type": "array", "items": {"type": "integer"}, "description": "Processes the command left running in the background."},
                "sandbox": {"type": "string", "description": "Present when the command ran in the sandbox: its mode, and what it refuses."}
            },
            "required": ["exit_code", "stdout", "stderr", "signal", "timed_out"]
        }))
    }

    fn run(args: Args, ctx: &Ctx) -> ToolResult<Output> {
        let config: &Config = ctx;
        // The contracts run an empty command (`sh -c ""` exits 0); the engine asks for one.
        if args.command.trim().is_empty() && !contract_texts(config) {
            return Err(ToolError::invalid_input(
                "command is empty: pass the shell command to run, e.g. \"ls -la\"",
            )
            .with("field", "command"));
        }
        let nul = args.command.contains('\0');
        if nul && config.profile == Profile::Seed {
            return Err(ToolError::invalid_input(
                "command contains a NUL byte, which a shell command cannot hold",
            )
            .with("field", "command"));
        }
        let cwd = paths::resolve_or_root(config, args.cwd.as_deref())?;
        // The cwd is opened beneath the root, and the child changes into that very directory
        // (`/proc/self/fd/N` names the open fd in the child, which inherits it until exec),
        // so a directory swapped for a symlink after this check cannot move the shell outside.
        let cwd_dir = crate::confine::open_dir(&cwd).map_err(|e| {
            let names_file = e.kind() == std::io::ErrorKind::NotADirectory
                && crate::confine::stat(&cwd).is_ok_and(|st| !st.is_dir());
            if names_file {
                ToolError::not_a_directory(&cwd.input)
            } else {
                crate::error::fs_error(config.contract_exact(), e, &cwd.input, "stat", &cwd.abs)
            }
        })?;
        if nul {
            // The newest contract: Node's spawn refuses it, after the cwd check
            // (CONTRACT-v0.5-wording §8).
            return Err(ToolError::new(
                ErrorCode::IoError,
                format!(
                    "Failed to spawn command: {}",
                    null_bytes_message(&args.command)
                ),
            ));
        }
        let cwd_path = cwd_dir.proc_path().unwrap_or_else(|| cwd.abs.clone());
        // `0` (allowed by the newest contract's schema) means the default.
        let requested = match args.timeout_ms {
            None | Some(0) => config.bash_timeout_ms,
            Some(ms) => ms,
        }
        .max(1);
        let timeout_ms = requested.min(config.bash_timeout_max_ms.max(1));
        let ceiling = (config.max_output_bytes as usize).max(MIN_CAPTURE_BYTES);
        let shell_name = config.shell.as_deref().unwrap_or(DEFAULT_SHELL);
        let sandbox = crate::sandbox::plan_or_refuse(config, &cwd.abs, "run")?;
        let line = sandbox.as_ref().map(|p| p.line().to_string());
        let capture = shell::run(&Request {
            shell: shell_name,
            command: &args.command,
            cwd: &cwd_path,
            timeout: Duration::from_millis(timeout_ms),
            ceiling,
            cancel: ctx.cancel.clone(),
            progress: ctx.progress.clone(),
            sandbox,
        })
        .map_err(|e| not_started(shell_name, line.as_deref(), &e))?;
        let view = View::of(ctx);
        let shown = shown_streams(&capture, view, &Spiller::new(config, view));
        match capture.end {
            End::Exited { code, signal } => {
                // The contracts' success JSON has five keys; which processes the command left
                // running in the background is the engine's extra.
                let background: &[u32] = if contract_texts(config) {
                    &[]
                } else {
                    &capture.background
                };
                let sandbox = line.as_deref();
                Ok(success(code, signal, &shown, sandbox, background).into())
            }
            End::TimedOut => {
                let clamp_note = if requested > timeout_ms {
                    format!(" (timeout_ms {requested} was clamped to the maximum {timeout_ms})")
                } else {
                    String::new()
                };
                // The contracts' text at the root and at /v0.1 (CONTRACT-v0.5 §6: `Command
                // exceeded <ms>ms`, "unchanged" from the seed); the engine's advice with extras.
                let message = if contract_texts(config) {
                    format!("Command exceeded {timeout_ms}ms")
                } else {
                    format!(
                    "Command exceeded {timeout_ms}ms{clamp_note} and was killed with all its child processes; the output it produced is in stdout and stderr. To run a long-lived process (a server, a watcher), start it in the background with its output redirected: `cmd > /tmp/cmd.log 2>&1 &`. Otherwise raise timeout_ms (at most {}).",
                    config.bash_timeout_max_ms
                )
                };
                let base =
                    ToolError::new(ErrorCode::Timeout, message).with("timeout_ms", timeout_ms);
                Err(failure(sandboxed(base, &line), shown))
            }
            End::OverLimit { .. } if contract_texts(config) => {
                // CONTRACT-v0.5 §6: `Command output exceeded <cap> bytes on a single stream
                // and was killed`, field `max_capture_bytes`.
                let message = format!(
                    "Command output exceeded {ceiling} bytes on a single stream and was killed"
                );
                let base = ToolError::new(ErrorCode::OutputLimit, message)
                    .with("max_capture_bytes", ceiling);
                Err(failure(sandboxed(base, &line), shown))
            }
            End::OverLimit { stream } => {
                let message = format!(
                    "Command output exceeded {ceiling} bytes on a single stream ({}) and was killed with all its child processes; what it printed is in stdout and stderr. Redirect large output to a file (`cmd > /tmp/out.log 2>&1`) and inspect it with grep or read_file, or filter it (`| tail -n 100`, `| grep error`).",
                    stream.name()
                );
                let base = ToolError::new(ErrorCode::OutputLimit, message)
                    .with("max_capture_bytes", ceiling)
                    .with("stream", stream.name());
                Err(failure(sandboxed(base, &line), shown))
            }
            End::Aborted => {
                let base = ToolError::new(ErrorCode::Aborted, "Command aborted (run cancelled)");
                Err(failure(sandboxed(base, &line), shown))
            }
        }
    }
}

/// How the streams are shown under the contract in force: the seed contract keeps each
/// stream's head within `maxOutputBytes`; the newest keeps the tail within
/// `maxBashOutputBytes`.
#[derive(Debug, Clone, Copy)]
struct View {
    budget: usize,
    keep_tail: bool,
}

impl View {
    fn of(config: &Config) -> View {
        match config.profile {
            Profile::Seed => View {
                budget: config.max_output_bytes as usize,
                keep_tail: false,
            },
            Profile::Current => View {
                budget: config.max_bash_output_bytes as usize,
                keep_tail: true,
            },
        }
    }
}

/// The success JSON, in the contract's key order, with `background_pids` after them when
/// processes of the command's group are still running.
fn report(
    exit_code: i32,
    stdout: &str,
    stderr: &str,
    signal: Option<&str>,
    background: &[u32],
) -> String {
    let mut out = String::with_capacity(stdout.len() + stderr.len() + 128);
    out.push_str("{\"exit_code\":");
    out.push_str(&exit_code.to_string());
    out.push_str(",\"stdout\":");
    push_str_literal(&mut out, stdout);
    out.push_str(",\"stderr\":");
    push_str_literal(&mut out, stderr);
    out.push_str(",\"signal\":");
    match signal {
        Some(name) => push_str_literal(&mut out, name),
        None => out.push_str("null"),
    }
    out.push_str(",\"timed_out\":false");
    if !background.is_empty() {
        let pids: Vec<String> = background.iter().map(u32::to_string).collect();
        out.push_str(",\"background_pids\":[");
        out.push_str(&pids.join(","));
        out.push(']');
    }
    out.push('}');
    out
}

fn success(
    code: i32,
    signal: Option<i32>,
    shown: &[String; 2],
    sandbox: Option<&str>,
    background: &[u32],
) -> String {
    let signal = signal.map(shell::signal_name);
    let mut out = report(code, &shown[0], &shown[1], signal.as_deref(), background);
    // The sandbox's one line, last: a model reading a refused write learns why.
    if let Some(line) = sandbox {
        out.pop();
        out.push_str(",\"sandbox\":");
        push_str_literal(&mut out, line);
        out.push('}');
    }
    out
}

/// `base` with the sandbox's line, when the command ran sandboxed.
fn sandboxed(base: ToolError, line: &Option<String>) -> ToolError {
    match line {
        Some(l) => base.with("sandbox", l.as_str()),
        None => base,
    }
}

/// `base` with the streams as shown, in the `stdout` / `stderr` fields.
fn failure(base: ToolError, shown: [String; 2]) -> ToolError {
    let [stdout, stderr] = shown;
    base.with("stdout", stdout).with("stderr", stderr)
}

/// Writes spill files on demand; all streams of one call share one token.
struct Spiller {
    root: std::path::PathBuf,
    token: String,
    view: View,
}

impl Spiller {
    fn new(config: &Config, view: View) -> Spiller {
        Spiller {
            root: config.workspace_root.clone(),
            token: spill::new_token(),
            view,
        }
    }

    /// The marker note for a cut stream: where its full output went, or why it could not go
    /// (the newest contract then drops the note).
    fn note(&self, stream: &str, bytes: &[u8]) -> Option<String> {
        match spill::write_spill(&self.root, &self.token, stream, bytes) {
            Ok(rel) => Some(format!("full output written to {rel}")),
            Err(_) if self.view.keep_tail => None,
            Err(e) => Some(format!(
                "full output could not be saved to {}/: {e}",
                spill::SPILL_DIR
            )),
        }
    }
}

/// `bytes` as text, invalid UTF-8 as U+FFFD. Strict validation has a fast path for ASCII that
/// the lossy decoder lacks (on 50 MB of output it was 6% of the call), so it goes first.
fn decode(bytes: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(text) => Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(bytes),
    }
}

/// The two streams as shown (CONTRACT.md "bash"; CONTRACT-v0.5-wording §8): the view's
/// budget is split between them by their captured byte lengths ([`split`]); a stream over its
/// share is written whole to a spill file and shows `share` bytes of itself with the marker,
/// moved to a character boundary so that the shown bytes never exceed the share. The seed
/// contract keeps the head, the marker after it; the newest keeps the tail, the marker before
/// it. The marker and the JSON around the streams are outside the budget.
fn shown_streams(capture: &Capture, view: View, spiller: &Spiller) -> [String; 2] {
    let raw = [&capture.stdout, &capture.stderr];
    let share = split([raw[0].len(), raw[1].len()], view.budget);
    let streams = ["stdout", "stderr"];
    [0, 1].map(|i| {
        let bytes = raw[i];
        if bytes.len() <= share[i] {
            return decode(bytes).into_owned();
        }
        let note = spiller.note(streams[i], bytes);
        if view.keep_tail {
            let start = char_start(bytes, bytes.len() - share[i], true);
            let mut out = bound::tail_marker(bytes.len() - start, bytes.len(), note.as_deref());
            out.push_str(&decode(&bytes[start..]));
            out
        } else {
            let end = char_start(bytes, share[i], false);
            let mut out = decode(&bytes[..end]).into_owned();
            out.push_str(&bound::marker(end, bytes.len(), note.as_deref()));
            out
        }
    })
}

/// `at` moved to the start of a character (UTF-8): forward to the next one, or back to the
/// one `at` falls in. A character has at most three continuation bytes, so the move is at
/// most three bytes; past that the bytes are not UTF-8 and `at` stands (a run of stray
/// continuation bytes still shows its share, as U+FFFD).
fn char_start(bytes: &[u8], at: usize, forward: bool) -> usize {
    let starts = |i: &usize| bytes.get(*i).is_none_or(|b| b & 0xC0 != 0x80);
    let found = if forward {
        (at..=at + 3).find(starts)
    } else {
        (at.saturating_sub(3)..=at).rev().find(starts)
    };
    found.unwrap_or(at)
}

/// Node's refusal of a `sh -c` script holding a NUL byte (`spawn('sh', ['-c', script])`).
pub(super) fn null_bytes_message(script: &str) -> String {
    format!(
        "The argument 'args[1]' must be a string without null bytes. Received {}",
        node_inspect_received(script)
    )
}

/// What Node's `ERR_INVALID_ARG_VALUE` shows after `Received ` for a string: its
/// `util.inspect` form (quoted with `'`, or `"` / a backtick when the text holds `'`; control
/// characters, the quote and `\` escaped; past 124 UTF-16 units (`breakLength` 128 less 4), split after each newline into
/// quoted pieces joined by ` +\n  `), cut to 128 UTF-16 units with `...` appended.
fn node_inspect_received(value: &str) -> String {
    const MAX_STRING: usize = 10_000;
    let units = value.encode_utf16().count();
    let (value, trailer) = if units > MAX_STRING {
        let cut = value
            .char_indices()
            .scan(0, |n, (i, c)| {
                *n += c.len_utf16();
                Some((i, *n))
            })
            .find(|&(_, n)| n > MAX_STRING)
            .map_or(value.len(), |(i, _)| i);
        let rest = units - MAX_STRING;
        (
            &value[..cut],
            format!(
                "... {rest} more character{}",
                if rest > 1 { "s" } else { "" }
            ),
        )
    } else {
        (value, String::new())
    };
    let len = value.encode_utf16().count();
    let mut inspected = if len > 124 {
        value
            .split_inclusive('\n')
            .map(node_str_escape)
            .collect::<Vec<_>>()
            .join(" +\n  ")
    } else {
        node_str_escape(value)
    };
    inspected.push_str(&trailer);
    if inspected.encode_utf16().count() > 128 {
        let mut n = 0;
        let end = inspected
            .char_indices()
            .find(|&(_, c)| {
                n += c.len_utf16();
                n > 128
            })
            .map_or(inspected.len(), |(i, _)| i);
        inspected.truncate(end);
        inspected.push_str("...");
    }
    inspected
}

/// Node's `strEscape`: one string quoted and escaped as `util.inspect` shows it.
fn node_str_escape(s: &str) -> String {
    let quote = if !s.contains('\'') {
        '\''
    } else if !s.contains('"') {
        '"'
    } else if !s.contains('`') && !s.contains("${") {
        '`'
    } else {
        '\''
    };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for c in s.chars() {
        match c {
            '\'' if quote == '\'' => out.push_str("\\'"),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\u{c}' => out.push_str("\\f"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 || (0x7f..0xa0).contains(&(c as u32)) => {
                out.push_str(&format!("\\x{:02X}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

/// Splits `avail` between two streams needing `need` (CONTRACT-v0.5-wording §8): both get all
/// they need when it fits; otherwise, with `half = avail / 2`, a stream needing at most half
/// keeps its need and the other gets the rest, and when both need more, `[avail - half, half]`.
fn split(need: [usize; 2], avail: usize) -> [usize; 2] {
    if need[0] + need[1] <= avail {
        return need;
    }
    let half = avail / 2;
    if need[0] <= half {
        [need[0], avail - need[0]]
    } else if need[1] <= half {
        [avail - need[1], need[1]]
    } else {
        [avail - half, half]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;
    use std::fs;

    /// The seed contract's view: the streams share `max_output` and keep their heads.
    fn config(root: &std::path::Path, max_output: u64) -> Config {
        Config {
            max_output_bytes: max_output,
            bash_timeout_ms: 10_000,
            profile: Profile::Seed,
            ..crate::testutil::config_at(root)
        }
    }

    fn args(command: &str) -> Args {
        Args {
            command: command.into(),
            cwd: None,
            timeout_ms: None,
        }
    }

    #[test]
    fn split_follows_the_contract() {
        assert_eq!(split([10, 20], 100), [10, 20]);
        assert_eq!(split([10, 500], 100), [10, 90]);
        assert_eq!(split([500, 10], 100), [90, 10]);
        assert_eq!(split([500, 600], 100), [50, 50]);
        assert_eq!(split([600, 700], 1025), [513, 512]);
    }

    #[test]
    fn report_matches_serde_in_key_order() {
        #[derive(serde::Serialize)]
        struct Report<'a> {
            exit_code: i32,
            stdout: &'a str,
            stderr: &'a str,
            signal: Option<&'a str>,
            timed_out: bool,
            #[serde(skip_serializing_if = "<[u32]>::is_empty")]
            background_pids: &'a [u32],
        }
        for (sig, bg) in [(None, &[][..]), (Some("SIGKILL"), &[12, 34][..])] {
            let want = serde_json::to_string(&Report {
                exit_code: -1,
                stdout: "a\"b\n\u{0}é",
                stderr: "",
                signal: sig,
                timed_out: false,
                background_pids: bg,
            })
            .unwrap();
            assert_eq!(report(-1, "a\"b\n\u{0}é", "", sig, bg), want);
        }
    }

    #[cfg(unix)]
    #[test]
    fn success_json_has_contract_keys_in_order() {
        let _turn = crate::shell::tests::serial();
        let dir = tempfile::tempdir().unwrap();
        let out = crate::testutil::run_text::<Bash>(
            args("echo hi; echo oops >&2; exit 2"),
            &config(dir.path(), 4096),
        );
        assert_eq!(
            out.unwrap(),
            r#"{"exit_code":2,"stdout":"hi\n","stderr":"oops\n","signal":null,"timed_out":false}"#
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_nul_byte_is_shown_as_node_inspects_it() {
        // CONTRACT-v0.5-wording §8: Node's util.inspect of the command, cut at 128 units.
        assert_eq!(node_inspect_received("echo a\0b"), "'echo a\\x00b'");
        assert_eq!(node_inspect_received("it's\0"), "\"it's\\x00\"");
        assert_eq!(
            node_inspect_received("a\\b\t\u{7f}\0"),
            "'a\\\\b\\t\\x7F\\x00'"
        );
        let long = format!("{}\0", "x".repeat(200));
        let got = node_inspect_received(&long);
        assert_eq!(got, format!("'{}...", "x".repeat(127)));
    }

    /// Runs `command` under the seed contract's view with `max_output` bytes, one test at a
    /// time; the success text.
    fn seed_run(root: &std::path::Path, max_output: u64, command: &str) -> String {
        let _turn = crate::shell::tests::serial();
        crate::testutil::run_text::<Bash>(args(command), &config(root, max_output)).unwrap()
    }

    /// The stdout and stderr texts of a seed-view success.
    fn streams(out: &str) -> (String, String) {
        let v: Value = serde_json::from_str(out).unwrap();
        let text = |k: &str| v[k].as_str().unwrap().to_string();
        (text("stdout"), text("stderr"))
    }

    #[test]
    fn budget_is_split_by_captured_bytes_and_overflow_spilled() {
        let dir = tempfile::tempdir().unwrap();
        let out = seed_run(
            dir.path(),
            2048,
            "head -c 10000 /dev/zero | tr '\\0' a; echo small >&2",
        );
        // CONTRACT.md "bash": stderr (6 bytes) is under half, so stdout gets 2048 - 6 bytes,
        // its head, and the marker after it names the spill file.
        let (stdout, stderr) = streams(&out);
        assert_eq!(stderr, "small\n");
        let (head, marker) = stdout.split_once('\n').unwrap();
        assert_eq!(head, "a".repeat(2042));
        let rel = marker
            .strip_prefix(
                "[... output truncated: 2042 of 10000 bytes shown; full output written to ",
            )
            .and_then(|m| m.strip_suffix(" ...]"))
            .unwrap_or_else(|| panic!("{marker}"));
        assert!(rel.starts_with(".clarvis/bash-") && rel.ends_with(".stdout.log"));
        let spilled = fs::read(dir.path().join(rel)).unwrap();
        assert_eq!(spilled.len(), 10000);
    }

    #[cfg(unix)]
    #[test]
    fn output_within_the_budget_is_shown_whole_whatever_its_escapes_or_lines() {
        let dir = tempfile::tempdir().unwrap();
        // "If a + b fits, nothing is cut": NUL bytes (six escaped bytes each), newlines, and a
        // split that fills the budget exactly.
        for (command, want_out, want_err) in [
            ("head -c 1024 /dev/zero", "\0".repeat(1024), String::new()),
            (
                "seq 1 200",
                (1..=200).map(|i| format!("{i}\n")).collect(),
                String::new(),
            ),
            (
                "head -c 600 /dev/zero | tr '\\0' a; head -c 424 /dev/zero | tr '\\0' b >&2",
                "a".repeat(600),
                "b".repeat(424),
            ),
        ] {
            let out = seed_run(dir.path(), 1024, command);
            assert_eq!(streams(&out), (want_out, want_err), "{command}");
        }
        // No line is cut: one line of 5000 characters under a budget that holds it.
        let out = seed_run(dir.path(), 8192, "head -c 5000 /dev/zero | tr '\\0' a");
        assert_eq!(streams(&out).0, "a".repeat(5000));
        assert!(!dir.path().join(".clarvis").exists(), "nothing was spilled");
    }

    #[cfg(unix)]
    #[test]
    fn a_cut_head_ends_on_a_character_boundary() {
        let dir = tempfile::tempdir().unwrap();
        // One ASCII byte then 600 two-byte characters: byte 1024 is inside a character.
        let out = seed_run(
            dir.path(),
            1024,
            "printf a; i=0; while [ $i -lt 600 ]; do printf '\\303\\251'; i=$((i+1)); done",
        );
        let stdout = streams(&out).0;
        let (head, marker) = stdout.split_once('\n').unwrap();
        assert_eq!(head, format!("a{}", "é".repeat(511)));
        assert!(
            marker.starts_with("[... output truncated: 1023 of 1201 bytes shown; "),
            "{marker}"
        );
    }

    #[cfg(unix)]
    #[test]
    fn the_newest_contract_keeps_the_tail_within_the_bash_budget() {
        let _turn = crate::shell::tests::serial();
        let dir = tempfile::tempdir().unwrap();
        let c = Config {
            max_bash_output_bytes: 1024,
            ..crate::testutil::config_at(dir.path())
        };
        let out = crate::testutil::run_text::<Bash>(args("seq 1 5000; echo the-end"), &c).unwrap();
        let v: Value = serde_json::from_str(&out).unwrap();
        let stdout = v["stdout"].as_str().unwrap();
        // CONTRACT-v0.5-wording §8: the budget is of captured bytes (stderr is empty, so stdout
        // keeps all 1024); the marker, before the tail, is outside it.
        let (marker, tail) = stdout.split_once(" ...]\n").unwrap();
        assert!(
            marker.starts_with("[... earlier output truncated: last 1024 of 23901 bytes shown; full output written to .clarvis/bash-"),
            "{stdout}"
        );
        assert_eq!(tail.len(), 1024);
        assert!(tail.ends_with("4999\n5000\nthe-end\n"), "{stdout}");
        // A budget of 64 bytes (a caller-built config has no floor) still shows the last line.
        let c = Config {
            max_bash_output_bytes: 64,
            ..c
        };
        let out = crate::testutil::run_text::<Bash>(args("seq 1 5000; echo the-end"), &c).unwrap();
        let v: Value = serde_json::from_str(&out).unwrap();
        let stdout = v["stdout"].as_str().unwrap();
        let tail = stdout.split_once(" ...]\n").unwrap().1;
        assert_eq!(tail.len(), 64);
        assert!(tail.ends_with("\n5000\nthe-end\n"), "{stdout}");
    }

    #[test]
    fn a_timeout_reads_as_the_contract_at_the_root_and_advises_with_extras() {
        // CONTRACT-v0.5 §6: "the `timeout` ... messages (`Command exceeded <ms>ms` ...)".
        let _turn = crate::shell::tests::serial();
        let dir = tempfile::tempdir().unwrap();
        let exact = crate::testutil::config_at(dir.path());
        let run = |c: &Config| {
            let mut a = args("echo hi; sleep 10");
            a.timeout_ms = Some(150);
            crate::testutil::run_text::<Bash>(a, c).unwrap_err()
        };
        // At /v0.1 too: §6 says the seed's message is unchanged.
        let seed = Config {
            profile: crate::config::Profile::Seed,
            ..exact.clone()
        };
        for c in [&exact, &seed] {
            let e = run(c);
            assert_eq!(e.message, "Command exceeded 150ms");
            let keys: Vec<&str> = e.fields.keys().map(String::as_str).collect();
            assert_eq!(keys, ["timeout_ms", "stdout", "stderr"]);
        }
        let extras = Config {
            extras: true,
            ..exact
        };
        assert!(run(&extras)
            .message
            .contains("and was killed with all its child processes"));
    }

    #[cfg(unix)]
    #[test]
    fn an_aborted_call_kills_the_command() {
        let _turn = crate::shell::tests::serial();
        let dir = tempfile::tempdir().unwrap();
        let c = crate::testutil::config_at(dir.path());
        let cancel = crate::call::Cancel::armed();
        let remote = cancel.clone();
        let started = std::time::Instant::now();
        let aborter = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(200));
            remote.cancel();
        });
        let err = Bash::run(
            args("echo started; sleep 30"),
            &crate::call::Ctx::new(&c, cancel),
        )
        .unwrap_err();
        aborter.join().unwrap();
        assert_eq!(err.code, ErrorCode::Aborted);
        assert_eq!(err.message, "Command aborted (run cancelled)");
        assert_eq!(err.fields["stdout"], "started\n");
        assert!(started.elapsed() < std::time::Duration::from_secs(20));
    }

    #[test]
    fn a_cut_moves_at_most_three_bytes_to_a_character() {
        let bytes = "aé€😀".as_bytes(); // 1, 2, 3 and 4 bytes: starts at 0, 1, 3, 6
        assert_eq!(char_start(bytes, 2, false), 1);
        assert_eq!(char_start(bytes, 2, true), 3);
        assert_eq!(char_start(bytes, 9, false), 6);
        assert_eq!(char_start(bytes, 7, true), 10);
        assert_eq!(char_start(bytes, 10, true), 10);
        // Stray continuation bytes are no character: the cut stands where it falls.
        let stray = [0x80u8; 100];
        assert_eq!(char_start(&stray, 50, false), 50);
        assert_eq!(char_start(&stray, 50, true), 50);
    }

    #[cfg(unix)]
    #[test]
    fn stray_continuation_bytes_still_show_their_share() {
        let dir = tempfile::tempdir().unwrap();
        let out = seed_run(
            dir.path(),
            1024,
            "head -c 3000 /dev/zero | tr '\\0' '\\200'",
        );
        let stdout = streams(&out).0;
        assert!(stdout.starts_with(&"\u{fffd}".repeat(1024)), "{stdout:.80}");
        assert!(stdout.contains("\n[... output truncated: 1024 of 3000 bytes shown; "));
    }

    #[test]
    fn a_nul_byte_is_invalid_input_at_the_seed_entry() {
        let dir = tempfile::tempdir().unwrap();
        let e =
            crate::testutil::run_text::<Bash>(args("a\0b"), &config(dir.path(), 4096)).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidInput);
    }

    #[cfg(unix)]
    #[test]
    fn an_empty_command_runs_under_the_contracts_and_is_refused_with_extras() {
        let _turn = crate::shell::tests::serial();
        let dir = tempfile::tempdir().unwrap();
        let empty = r#"{"exit_code":0,"stdout":"","stderr":"","signal":null,"timed_out":false}"#;
        let seed = config(dir.path(), 4096);
        let root = crate::testutil::config_at(dir.path());
        for c in [&seed, &root] {
            for cmd in ["", "  \n"] {
                let out = crate::testutil::run_text::<Bash>(args(cmd), c).unwrap();
                assert_eq!(out, empty, "{cmd:?} at {:?}", c.profile);
            }
        }
        let extras = Config {
            extras: true,
            ..root
        };
        let e = crate::testutil::run_text::<Bash>(args(""), &extras).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidInput);
    }

    #[cfg(unix)]
    #[test]
    fn background_pids_are_an_extra() {
        let _turn = crate::shell::tests::serial();
        let dir = tempfile::tempdir().unwrap();
        let command = "sleep 2 > /dev/null 2>&1 & echo started";
        let root = crate::testutil::config_at(dir.path());
        for c in [&config(dir.path(), 4096), &root] {
            let out = crate::testutil::run_text::<Bash>(args(command), c).unwrap();
            assert_eq!(
                out,
                r#"{"exit_code":0,"stdout":"started\n","stderr":"","signal":null,"timed_out":false}"#
            );
        }
        let extras = Config {
            extras: true,
            ..root
        };
        let out = crate::testutil::run_text::<Bash>(args(command), &extras).unwrap();
        let v: Value = serde_json::from_str(&out).unwrap();
        let pids = v["background_pids"].as_array().unwrap();
        assert_eq!(pids.len(), 1, "{out}");
        for pid in pids {
            let _ = nix::sys::signal::kill(
                nix::unistd::Pid::from_raw(pid.as_i64().unwrap() as i32),
                nix::sys::signal::Signal::SIGKILL,
            );
        }
    }
}
