//! The napi edge: converts JavaScript values (JSON strings) and calls plain Rust.
//! Blocking work runs on tokio's blocking pool, off the JS thread.

use napi::bindgen_prelude::*;
use napi_derive::napi;
use serde_json::Value;

use crate::config::{self, Options};
use crate::dispatch::{self, Outcome};
use crate::{shell, spill, tools};

#[napi]
pub const DEFAULT_MAX_OUTPUT_BYTES: u32 = config::DEFAULT_MAX_OUTPUT_BYTES as u32;
#[napi]
pub const DEFAULT_MAX_FILE_BYTES: u32 = config::DEFAULT_MAX_FILE_BYTES as u32;
#[napi]
pub const DEFAULT_BASH_TIMEOUT_MS: u32 = config::DEFAULT_BASH_TIMEOUT_MS as u32;
#[napi]
pub const DEFAULT_BASH_TIMEOUT_MAX_MS: u32 = config::DEFAULT_BASH_TIMEOUT_MAX_MS as u32;

/// A call's result: the text, and whether it is an error envelope.
#[napi(object)]
pub struct NativeOutcome {
    pub is_error: bool,
    pub text: String,
}

impl From<Outcome> for NativeOutcome {
    fn from(o: Outcome) -> Self {
        NativeOutcome {
            is_error: o.is_error,
            text: o.text,
        }
    }
}

/// Runs `f` on the blocking pool; a panic that escapes it becomes an `internal` outcome.
async fn off_thread<F: FnOnce() -> Outcome + Send + 'static>(f: F) -> NativeOutcome {
    match tokio::task::spawn_blocking(f).await {
        Ok(outcome) => outcome.into(),
        Err(_) => NativeOutcome {
            is_error: true,
            text: crate::error::ToolError::internal().envelope(),
        },
    }
}

/// Validates, runs and bounds one tool call. Never rejects.
#[napi]
pub async fn dispatch_native(
    name: String,
    args_json: String,
    config_json: String,
) -> NativeOutcome {
    off_thread(move || dispatch::dispatch_json(&name, &args_json, &config_json)).await
}

/// Runs one tool call without bounding its output (`ToolDef.handler`).
#[napi]
pub async fn handler_native(name: String, args_json: String, config_json: String) -> NativeOutcome {
    off_thread(move || dispatch::handler_json(&name, &args_json, &config_json)).await
}

/// Test-only: a tool that panics, run through the same guard as every tool.
#[napi]
pub async fn test_only_panic() -> NativeOutcome {
    off_thread(|| {
        let result = dispatch::guarded("test_only_panic", || panic!("injected test panic"));
        Outcome {
            is_error: result.is_err(),
            text: result.unwrap_or_else(|e| e.envelope()),
        }
    })
    .await
}

/// Every built tool as JSON: `[{name, description, inputSchema, mutating, bounded}]`.
#[napi]
pub fn tool_defs_json() -> String {
    let defs: Vec<Value> = tools::REGISTRY
        .iter()
        .map(|t| {
            serde_json::json!({
                "name": t.name,
                "description": t.description,
                "inputSchema": t.schema,
                "mutating": t.mutating,
                "bounded": t.bounded,
            })
        })
        .collect();
    Value::Array(defs).to_string()
}

fn startup_error(message: String) -> Error {
    Error::new(Status::InvalidArg, message)
}

fn cwd() -> Result<std::path::PathBuf> {
    std::env::current_dir()
        .map_err(|e| startup_error(format!("cannot read the current directory: {e}")))
}

/// `resolveConfig` from the options as JSON; throws with a message naming the setting.
#[napi]
pub fn resolve_config_json(options_json: String) -> Result<String> {
    let value: Value = serde_json::from_str(&options_json)
        .map_err(|e| startup_error(format!("options are not serializable: {e}")))?;
    let options = Options::from_json(&value).map_err(|e| startup_error(e.0))?;
    let resolved = config::resolve(options, &cwd()?).map_err(|e| startup_error(e.0))?;
    Ok(serde_json::to_string(&resolved).expect("config serializes"))
}

/// `buildConfig` from argv and the environment (as JSON); the workspace defaults to the
/// current directory.
#[napi]
pub fn build_config_json(
    argv: Vec<String>,
    env_json: String,
    ripgrep_available: bool,
) -> Result<String> {
    let env: Value = serde_json::from_str(&env_json)
        .map_err(|e| startup_error(format!("env is not serializable: {e}")))?;
    let empty = serde_json::Map::new();
    let mut options = config::options_from_argv_env(&argv, env.as_object().unwrap_or(&empty))
        .map_err(|e| startup_error(e.0))?;
    options
        .workspace_root
        .get_or_insert_with(|| ".".to_string());
    options.ripgrep_available = Some(ripgrep_available);
    let resolved = config::resolve(options, &cwd()?).map_err(|e| startup_error(e.0))?;
    Ok(serde_json::to_string(&resolved).expect("config serializes"))
}

/// Whether an `rg` executable is on PATH (the default `probeRipgrep`).
#[napi]
pub fn ripgrep_on_path() -> bool {
    config::ripgrep_on_path()
}

/// Removes `.clarvis/bash-*` spill files older than 24 hours. Never rejects.
#[napi]
pub async fn sweep_spill_dir_native(root: String) {
    let _ = tokio::task::spawn_blocking(move || spill::sweep(std::path::Path::new(&root))).await;
}

/// Kills every process group `bash` started that may still be running (background processes),
/// and every process still carrying this host's mark. Run on the host process's `exit`.
#[napi]
pub fn kill_all_bash_processes() {
    shell::kill_all();
}
