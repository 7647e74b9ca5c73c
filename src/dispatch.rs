//! Dispatch: find the tool in the active surface, validate, run with panics caught, bound the
//! text, and turn every failure into an envelope. It never fails itself.

use std::panic::{catch_unwind, AssertUnwindSafe};

use serde_json::Value;

use crate::bound::bound;
use crate::config::{with_defaults, Config, Options};
use crate::error::{ErrorCode, ToolError, ToolResult};
use crate::tools::{self, ToolSpec};

/// A call's result as `DispatchResult` carries it: the text, and whether it is an envelope.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    pub is_error: bool,
    pub text: String,
}

impl Outcome {
    fn from_result(result: ToolResult<String>) -> Outcome {
        match result {
            Ok(text) => Outcome {
                is_error: false,
                text,
            },
            Err(err) => Outcome {
                is_error: true,
                text: err.envelope(),
            },
        }
    }
}

/// Runs `name` with `args` under `config`: the contract's `dispatch`.
pub fn dispatch(name: &str, args: Value, config: &Config) -> Outcome {
    let result = find(name, config).and_then(|tool| {
        let text = guarded(name, || tool.call(args, config))?;
        Ok(if tool.bounded {
            text
        } else {
            bound(text, config.max_output_bytes as usize)
        })
    });
    Outcome::from_result(result)
}

/// Runs a tool without bounding its output (a `ToolDef.handler` called directly).
pub fn handler(name: &str, args: Value, config: &Config) -> ToolResult<String> {
    let tool = find(name, config)?;
    guarded(name, || tool.call(args, config))
}

/// The tool in the surface `config` allows, or `not_found`.
fn find(name: &str, config: &Config) -> ToolResult<&'static ToolSpec> {
    tools::find(name, config.read_only).ok_or_else(|| unknown_tool(name))
}

/// Arguments as the binding layer receives them: JSON, plus the large top-level strings of
/// the object passed beside it (so they are never JSON-escaped and re-parsed).
#[derive(Debug, Default)]
pub struct WireArgs {
    pub json: String,
    pub large_keys: Vec<String>,
    pub large_values: Vec<String>,
}

/// [`dispatch`] from what the binding layer passes in.
pub fn dispatch_wire(name: &str, args: WireArgs, config_json: &str) -> Outcome {
    match decode_call(args, config_json) {
        Ok((args, config)) => dispatch(name, args, &config),
        Err(err) => Outcome::from_result(Err(err)),
    }
}

/// The first two steps of dispatch, for a configured guard: find the tool in the surface
/// (`not_found`) and validate the arguments against its schema (`invalid_input`). On success
/// the text is the arguments as the tool will see them (coerced), as JSON.
pub fn validate_wire(name: &str, args: WireArgs, config_json: &str) -> Outcome {
    Outcome::from_result(decode_call(args, config_json).and_then(|(args, config)| {
        let tool = find(name, &config)?;
        Ok(crate::schema::validate(&tool.schema, args, "")?.to_string())
    }))
}

/// [`handler`] from what the binding layer passes in.
pub fn handler_wire(name: &str, args: WireArgs, config_json: &str) -> Outcome {
    Outcome::from_result(
        decode_call(args, config_json).and_then(|(args, config)| handler(name, args, &config)),
    )
}

fn decode_call(wire: WireArgs, config_json: &str) -> ToolResult<(Value, Config)> {
    let mut args: Value = serde_json::from_str(&wire.json)
        .map_err(|e| ToolError::invalid_input(format!("arguments are not valid JSON: {e}")))?;
    if let Value::Object(obj) = &mut args {
        for (key, value) in wire.large_keys.into_iter().zip(wire.large_values) {
            obj.insert(key, Value::String(value));
        }
    }
    let config = serde_json::from_str::<Value>(config_json)
        .map_err(|e| e.to_string())
        .and_then(|v| {
            Options::from_json(&v)
                .and_then(with_defaults)
                .map_err(|e| e.0)
        })
        .map_err(|e| ToolError::invalid_input(format!("invalid config: {e}")))?;
    Ok((args, config))
}

pub fn unknown_tool(name: &str) -> ToolError {
    ToolError::new(ErrorCode::NotFound, format!("Unknown tool: {name}"))
}

/// Runs `f`, turning a panic into an `internal` error whose detail goes to stderr only.
pub fn guarded<F: FnOnce() -> ToolResult<String>>(name: &str, f: F) -> ToolResult<String> {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|payload| {
        let detail = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "non-string panic payload".into());
        eprintln!("agent-tools-native: tool `{name}` panicked: {detail}");
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

    #[test]
    fn unknown_tool_is_not_found() {
        let c = config(std::path::Path::new("/tmp"), false);
        let out = dispatch("nope", json!({}), &c);
        assert!(out.is_error);
        assert!(out.text.contains(r#""message":"Unknown tool: nope""#));
    }

    #[test]
    fn panics_become_internal() {
        let r = guarded("t", || panic!("boom"));
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
        let out = dispatch_wire("read_file", wire("{"), r#"{"workspaceRoot":"/tmp"}"#);
        assert!(out.text.contains("invalid_input"));
        let out = dispatch_wire("read_file", wire("{}"), "{}");
        assert!(out.text.contains("workspaceRoot"));
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
        let out = dispatch_wire("write_file", args, &config);
        assert_eq!(out.text, "Wrote 100000 bytes to big.txt (created).");
    }
}
