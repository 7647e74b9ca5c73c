//! Dispatch: find the tool in the active surface, validate, run with panics caught, bound the
//! text, and turn every failure into an envelope. It never fails itself.

use rustc_hash::FxHashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{LazyLock, Mutex, PoisonError};

use serde_json::Value;

use crate::bound::bound;
use crate::call::{Cancel, Ctx};
use crate::config::{with_defaults, Config, Options, Profile};
use crate::error::{ErrorCode, ToolError, ToolResult};
use crate::output::Output;
use crate::tools::{self, ToolSpec};

/// A call's result as `DispatchResult` carries it: the content, and whether it is an error
/// (then its one text part is the JSON envelope).
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    pub is_error: bool,
    pub output: Output,
}

impl Outcome {
    pub fn from_result(result: ToolResult<Output>) -> Outcome {
        match result {
            Ok(output) => Outcome {
                is_error: false,
                output,
            },
            Err(err) => Outcome::error(&err),
        }
    }

    pub fn error(err: &ToolError) -> Outcome {
        err.report_detail();
        Outcome {
            is_error: true,
            output: Output::text(err.envelope()),
        }
    }

    /// The text parts joined: the seed contract's `text`.
    pub fn text(&self) -> String {
        self.output.joined_text()
    }
}

/// Runs `name` with `args`: the contract's `dispatch` (find, validate, run, bound).
pub fn dispatch(name: &str, args: Value, ctx: &Ctx) -> Outcome {
    Outcome::from_result(
        find(name, ctx).and_then(|tool| run_bounded(tool, tool.check(args, ctx)?, ctx)),
    )
}

/// Runs a tool on arguments that already passed [`validate`] (after a guard allowed them).
pub fn dispatch_checked(name: &str, args: Value, ctx: &Ctx) -> Outcome {
    Outcome::from_result(find(name, ctx).and_then(|tool| run_bounded(tool, args, ctx)))
}

/// Looks the tool up and validates `args`: the steps before the guard. Returns the coerced
/// arguments the guard sees and the tool then runs with.
pub fn validate(name: &str, args: Value, config: &Config) -> ToolResult<Value> {
    find(name, config)?.check(args, config)
}

fn run_bounded(tool: &ToolSpec, args: Value, ctx: &Ctx) -> ToolResult<Output> {
    let ctx = &signal_for(tool, ctx);
    let output = guarded(tool.name, || tool.run_checked(args, ctx))?;
    Ok(if tool.bounded {
        output
    } else {
        let max = ctx.max_output_bytes as usize;
        output.map_text(|text| bound(text, max))
    })
}

/// Runs a tool without bounding its output (a `ToolDef.handler` called directly).
pub fn handler(name: &str, args: Value, ctx: &Ctx) -> ToolResult<Output> {
    let tool = find(name, ctx)?;
    let ctx = &signal_for(tool, ctx);
    guarded(name, || tool.call(args, ctx))
}

/// The tools an AbortSignal stops at the contract root (CONTRACT-v0.5 §1 "Cancellation");
/// "the guard and the other tools ignore the signal".
const CONTRACT_CANCELLABLE: [&str; 4] = ["bash", "outline", "check_syntax", "monitor_start"];

/// `ctx` as `tool` sees it: at the contract root, a tool the contract does not let a signal
/// stop never sees it raised; with extras every tool that can stop early (a walk, a scan)
/// does.
fn signal_for<'c>(tool: &ToolSpec, ctx: &Ctx<'c>) -> Ctx<'c> {
    let ignores = ctx.contract_exact() && !CONTRACT_CANCELLABLE.contains(&tool.name);
    Ctx {
        config: ctx.config,
        cancel: if ignores {
            Cancel::default()
        } else {
            ctx.cancel.clone()
        },
        progress: ctx.progress.clone(),
    }
}

/// The tool in the surface `config` offers, or `not_found`.
fn find(name: &str, config: &Config) -> ToolResult<&'static ToolSpec> {
    tools::find(name, config).ok_or_else(|| unknown_tool_in(name, config))
}

/// The contract's `not_found` `Unknown tool: <name>`, and at the root the help beside it:
/// which setting hides a tool that exists (`hidden_by`, with a `hint` on turning it on), or
/// else the closest offered name (`closest`) and every offered name (`available`). The
/// message stays the contract's exactly; the help rides in extra fields, as issue 28 decided
/// (CONTRACT-v0.5-wording §11 shows the envelope without them). The seed contract's envelope
/// stays bare.
fn unknown_tool_in(name: &str, config: &Config) -> ToolError {
    let err = unknown_tool(name);
    if config.profile == Profile::Seed {
        return err;
    }
    if let Some(tool) = tools::REGISTRY.iter().find(|t| t.name == name) {
        let hidden = if config.read_only && tool.mutating {
            Some((
                "readOnly",
                format!(
                    "{name} changes the workspace, and read-only mode offers only the read tools \
                     (readOnly: true, --read-only or READ_ONLY)"
                ),
            ))
        } else if tool.extra && !config.extras {
            Some((
                "extras",
                format!(
                    "{name} is beyond the contract's tool list: it is offered with extras: true \
                     (the CLI and the MCP server offer it unless --no-extras)"
                ),
            ))
        } else if tool.needs_tree_sitter && !config.tree_sitter_available {
            Some((
                "treeSitterAvailable",
                format!("{name} needs tree-sitter, which probeTreeSitter reported unavailable"),
            ))
        } else {
            None
        };
        if let Some((setting, hint)) = hidden {
            return err.with("hidden_by", setting).with("hint", hint);
        }
    }
    let offered: Vec<&str> = tools::surface(config).map(|t| t.name).collect();
    let err = match crate::suggest::closest(name, offered.iter().copied()) {
        Some(near) => err.with("closest", near),
        None => err,
    };
    err.with("available", offered)
}

/// Arguments as the binding layer receives them: JSON, plus the large top-level strings of
/// the object passed beside it (so they are never JSON-escaped and re-parsed).
#[derive(Debug, Default)]
pub struct WireArgs {
    pub json: String,
    pub large_keys: Vec<String>,
    pub large_values: Vec<String>,
}

/// Decodes what the binding layer passes in: the arguments and the config (read as a plain
/// `ServerConfig`, missing fields defaulted), served under `profile`.
pub fn decode_call(
    wire: WireArgs,
    config_json: &str,
    profile: Profile,
) -> ToolResult<(Value, Config)> {
    let mut args: Value = serde_json::from_str(&wire.json)
        .map_err(|e| ToolError::invalid_input(format!("arguments are not valid JSON: {e}")))?;
    if let Value::Object(obj) = &mut args {
        for (key, value) in wire.large_keys.into_iter().zip(wire.large_values) {
            obj.insert(key, Value::String(value));
        }
    }
    let mut config = parse_config(config_json)?;
    config.profile = profile;
    Ok((args, config))
}

/// A config from the JSON the binding receives. A session sends the same few configs with
/// every call, so the parsed ones are kept (keyed by their JSON, which is the whole input).
fn parse_config(json: &str) -> ToolResult<Config> {
    /// Distinct configs kept; past that the cache starts over.
    const KEPT: usize = 32;
    // FxHash: the key is a kilobyte of JSON hashed on every call; SipHash's flood resistance
    // buys nothing for the host's own configs.
    static PARSED: LazyLock<Mutex<FxHashMap<Box<str>, Config>>> = LazyLock::new(Default::default);
    let cache = || PARSED.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(config) = cache().get(json) {
        return Ok(config.clone());
    }
    let config = serde_json::from_str::<Value>(json)
        .map_err(|e| e.to_string())
        .and_then(|v| {
            Options::from_json(&v)
                .and_then(with_defaults)
                .map_err(|e| e.0)
        })
        .map_err(|e| ToolError::invalid_input(format!("invalid config: {e}")))?;
    let mut parsed = cache();
    if parsed.len() >= KEPT {
        parsed.clear();
    }
    parsed.insert(json.into(), config.clone());
    Ok(config)
}

pub fn unknown_tool(name: &str) -> ToolError {
    ToolError::new(ErrorCode::NotFound, format!("Unknown tool: {name}"))
}

/// Runs `f`, turning a panic into an `internal` error whose detail goes to the warn sink only.
pub fn guarded<T, F: FnOnce() -> ToolResult<T>>(name: &str, f: F) -> ToolResult<T> {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|payload| {
        let detail = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "non-string panic payload".into());
        crate::warn::emit(format!("internal error: tool `{name}` panicked: {detail}"));
        Err(ToolError::internal())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn config(root: &std::path::Path, read_only: bool) -> Config {
        Config {
            read_only,
            ..crate::testutil::config_at(root)
        }
    }

    fn run(name: &str, args: Value, config: &Config) -> Outcome {
        dispatch(name, args, &Ctx::plain(config))
    }

    #[test]
    fn unknown_tool_is_not_found() {
        let c = config(std::path::Path::new("/tmp"), false);
        let out = run("nope", json!({}), &c);
        assert!(out.is_error);
        assert!(out.text().contains(r#""message":"Unknown tool: nope""#));
    }

    #[test]
    fn unknown_tool_says_what_exists_or_what_hides_it_at_the_root_only() {
        let dir = tempfile::tempdir().unwrap();
        let envelope = |name: &str, c: &Config| -> Value {
            serde_json::from_str(&run(name, json!({}), c).text()).unwrap()
        };
        let c = config(dir.path(), false);
        let e = envelope("read_fil", &c);
        assert_eq!(e["message"], "Unknown tool: read_fil");
        assert_eq!(e["closest"], "read_file");
        assert_eq!(e["available"].as_array().unwrap().len(), 25);
        assert!(envelope("launch_rocket", &c).get("closest").is_none());

        let ro = config(dir.path(), true);
        let e = envelope("write_file", &ro);
        assert_eq!(e["message"], "Unknown tool: write_file");
        assert_eq!(e["hidden_by"], "readOnly");
        assert!(e["hint"].as_str().unwrap().contains("--read-only"));
        assert_eq!(envelope("monitor_send", &c)["hidden_by"], "extras");

        let seed = Config {
            profile: Profile::Seed,
            ..config(dir.path(), true)
        };
        let e = envelope("write_fil", &seed);
        assert_eq!(
            e,
            json!({"error": "not_found", "message": "Unknown tool: write_fil"})
        );
    }

    #[test]
    fn read_only_and_profile_hide_tools() {
        let dir = tempfile::tempdir().unwrap();
        let c = config(dir.path(), true);
        assert!(run("write_file", json!({"path": "a", "content": ""}), &c).is_error);
        let seed = Config {
            profile: Profile::Seed,
            ..config(dir.path(), false)
        };
        let out = run("read_file", json!({"path": "a", "bogus": 1}), &seed);
        assert!(out.text().contains("unknown field"), "{}", out.text());
        let current = config(dir.path(), false);
        std::fs::write(dir.path().join("a"), "x\n").unwrap();
        let out = run(
            "read_file",
            json!({"path": "a", "bogus": 1, "limit": "0"}),
            &current,
        );
        assert!(!out.is_error, "{}", out.text());
    }

    #[test]
    fn panics_become_internal() {
        let r: ToolResult<()> = guarded("t", || panic!("boom"));
        assert_eq!(r.unwrap_err().code, ErrorCode::Internal);
    }

    fn wire(json: &str) -> WireArgs {
        WireArgs {
            json: json.into(),
            ..WireArgs::default()
        }
    }

    #[test]
    fn bad_json_is_invalid_input() {
        let err = decode_call(wire("{"), r#"{"workspaceRoot":"/tmp"}"#, Profile::Seed).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidInput);
        let err = decode_call(wire("{}"), "{}", Profile::Seed).unwrap_err();
        assert!(err.message.contains("workspaceRoot"));
    }

    #[test]
    fn large_strings_join_the_arguments() {
        let dir = tempfile::tempdir().unwrap();
        let config = format!(r#"{{"workspaceRoot":{:?}}}"#, dir.path());
        let args = WireArgs {
            json: r#"{"path":"big.txt"}"#.into(),
            large_keys: vec!["content".into()],
            large_values: vec!["z".repeat(100_000)],
        };
        let (args, config) = decode_call(args, &config, Profile::Current).unwrap();
        let out = run("write_file", args, &config);
        assert_eq!(out.text(), "Wrote 100000 bytes to big.txt (created).");
    }
}
