//! The napi edge: converts JavaScript values (JSON strings) and calls plain Rust.
//! Blocking work runs on tokio's blocking pool, off the JS thread.

use napi::bindgen_prelude::*;
use napi_derive::napi;
use serde_json::Value;

use crate::config::{self, Options};
use crate::dispatch::{self, Outcome, WireArgs};
use crate::{bash_facts, paths, shell, spill, tools};

#[napi]
pub const DEFAULT_MAX_OUTPUT_BYTES: u32 = config::DEFAULT_MAX_OUTPUT_BYTES as u32;
#[napi]
pub const DEFAULT_MAX_FILE_BYTES: u32 = config::DEFAULT_MAX_FILE_BYTES as u32;
#[napi]
pub const DEFAULT_BASH_TIMEOUT_MS: u32 = config::DEFAULT_BASH_TIMEOUT_MS as u32;
#[napi]
pub const DEFAULT_BASH_TIMEOUT_MAX_MS: u32 = config::DEFAULT_BASH_TIMEOUT_MAX_MS as u32;

/// A call's result: the text, and whether it is an error envelope.
#[napi(object, object_from_js = false)]
pub struct NativeOutcome {
    pub is_error: bool,
    #[napi(ts_type = "string")]
    pub text: Text,
}

impl From<Outcome> for NativeOutcome {
    fn from(o: Outcome) -> Self {
        NativeOutcome {
            is_error: o.is_error,
            text: Text(o.text),
        }
    }
}

/// A result text on its way to JavaScript. A big pure-ASCII text (a command's output, say)
/// becomes an external Latin-1 string: V8 reads it where Rust put it, with no copy, and frees
/// it through a finalizer. Anything else is copied as usual.
pub struct Text(pub String);

/// Texts shorter than this are simply copied.
const EXTERNAL_MIN_BYTES: usize = 1 << 20;

impl TypeName for Text {
    fn type_name() -> &'static str {
        "String"
    }

    fn value_type() -> ValueType {
        ValueType::String
    }
}

impl ToNapiValue for Text {
    unsafe fn to_napi_value(env: sys::napi_env, val: Self) -> Result<sys::napi_value> {
        let text = val.0;
        if text.len() < EXTERNAL_MIN_BYTES || !text.is_ascii() {
            // SAFETY: `env` is forwarded unchanged from our caller.
            return unsafe { String::to_napi_value(env, text) };
        }
        // SAFETY: as above; `external` takes ownership of `text` or hands it back.
        match unsafe { external::latin1(env, text) } {
            Ok(value) => Ok(value),
            // SAFETY: as above.
            Err(text) => unsafe { String::to_napi_value(env, text) },
        }
    }
}

/// `node_api_create_external_string_latin1`, looked up at run time: Node exports it since
/// 20.4 but napi-rs only binds it for Node-API 10, which Node 20 does not declare.
mod external {
    use std::ffi::c_void;
    use std::sync::LazyLock;

    use napi::sys;

    type CreateLatin1 = unsafe extern "C" fn(
        env: sys::napi_env,
        str_: *mut std::ffi::c_char,
        length: usize,
        finalize: sys::napi_finalize,
        hint: *mut c_void,
        result: *mut sys::napi_value,
        copied: *mut bool,
    ) -> sys::napi_status;

    static CREATE: LazyLock<Option<CreateLatin1>> = LazyLock::new(|| {
        #[cfg(unix)]
        {
            // SAFETY: dlsym with RTLD_DEFAULT and a NUL-terminated name only looks a symbol up.
            let sym = unsafe {
                nix::libc::dlsym(
                    nix::libc::RTLD_DEFAULT,
                    c"node_api_create_external_string_latin1".as_ptr(),
                )
            };
            // SAFETY: when present, the symbol is the Node-API function with this signature.
            (!sym.is_null())
                .then(|| unsafe { std::mem::transmute::<*mut c_void, CreateLatin1>(sym) })
        }
        #[cfg(not(unix))]
        {
            None
        }
    });

    /// Frees the text once V8 no longer needs it; `hint` is the boxed `(len, capacity,
    /// counted)`, `counted` saying whether the length was reported as external memory.
    unsafe extern "C" fn finalize(env: sys::napi_env, data: *mut c_void, hint: *mut c_void) {
        // SAFETY: `hint` was made by `Box::into_raw` in `latin1` and is used once, here.
        let (len, cap, counted) = *unsafe { Box::from_raw(hint.cast::<(usize, usize, bool)>()) };
        if counted {
            let mut total = 0;
            // SAFETY: `env` is the environment V8 runs this finalizer in.
            unsafe { sys::napi_adjust_external_memory(env, -(len as i64), &mut total) };
        }
        // SAFETY: `data`, `len` and `cap` are the parts of the String given up in `latin1`.
        drop(unsafe { String::from_raw_parts(data.cast::<u8>(), len, cap) });
    }

    /// An external Latin-1 JS string over `text` (which must be ASCII), or `text` back when
    /// this Node cannot make one.
    ///
    /// # Safety
    /// `env` must be the live environment of the current call.
    pub unsafe fn latin1(env: sys::napi_env, text: String) -> Result<sys::napi_value, String> {
        let Some(create) = *CREATE else {
            return Err(text);
        };
        let mut text = std::mem::ManuallyDrop::new(text);
        let (ptr, len, cap) = (text.as_mut_ptr(), text.len(), text.capacity());
        let hint = Box::into_raw(Box::new((len, cap, false)));
        let mut value = std::ptr::null_mut();
        let mut copied = false;
        // SAFETY: the buffer stays valid until `finalize` runs, which V8 calls exactly once —
        // at once if it copied, else when the string is collected.
        let status = unsafe {
            create(
                env,
                ptr.cast(),
                len,
                Some(finalize),
                hint.cast(),
                &mut value,
                &mut copied,
            )
        };
        if status == sys::Status::napi_ok {
            if !copied {
                // V8 does not count an external string's buffer towards collecting garbage:
                // tell it, so big results are freed as promptly as ordinary strings.
                let mut total = 0;
                // SAFETY: `env` is live; `hint` stays valid until `finalize`, which V8 calls
                // on the JS thread, never while this function runs.
                unsafe {
                    if sys::napi_adjust_external_memory(env, len as i64, &mut total)
                        == sys::Status::napi_ok
                    {
                        (*hint).2 = true;
                    }
                }
            }
            return Ok(value);
        }
        // On failure the finalizer is not called: take both back.
        // SAFETY: the parts are unchanged and nothing else owns them.
        drop(unsafe { Box::from_raw(hint) });
        Err(unsafe { String::from_raw_parts(ptr, len, cap) })
    }
}

/// Runs `f` on the blocking pool; a panic that escapes it becomes an `internal` outcome.
async fn off_thread<F: FnOnce() -> Outcome + Send + 'static>(f: F) -> NativeOutcome {
    match tokio::task::spawn_blocking(f).await {
        Ok(outcome) => outcome.into(),
        Err(_) => NativeOutcome {
            is_error: true,
            text: Text(crate::error::ToolError::internal().envelope()),
        },
    }
}

/// A call's arguments: JSON, plus the large top-level strings of the object passed beside it
/// (`largeKeys[i]` → `largeValues[i]`) so they are never JSON-escaped and re-parsed.
#[napi(object)]
pub struct NativeArgs {
    pub json: String,
    pub large_keys: Vec<String>,
    pub large_values: Vec<String>,
}

impl From<NativeArgs> for WireArgs {
    fn from(a: NativeArgs) -> Self {
        WireArgs {
            json: a.json,
            large_keys: a.large_keys,
            large_values: a.large_values,
        }
    }
}

/// Validates, runs and bounds one tool call. Never rejects.
#[napi]
pub async fn dispatch_native(name: String, args: NativeArgs, config_json: String) -> NativeOutcome {
    off_thread(move || dispatch::dispatch_wire(&name, args.into(), &config_json)).await
}

/// Looks the tool up and validates the arguments (the steps before a guard runs); on success
/// the text is the coerced arguments as JSON. Never rejects.
#[napi]
pub async fn validate_native(name: String, args: NativeArgs, config_json: String) -> NativeOutcome {
    off_thread(move || dispatch::validate_wire(&name, args.into(), &config_json)).await
}

/// Runs one tool call without bounding its output (`ToolDef.handler`).
#[napi]
pub async fn handler_native(name: String, args: NativeArgs, config_json: String) -> NativeOutcome {
    off_thread(move || dispatch::handler_wire(&name, args.into(), &config_json)).await
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

/// Test-only: while `name` is set, a commit fails with `io_error` when it is about to install
/// a file of that name, so tests can prove multi-file rollback. `null` clears it.
#[napi]
pub fn test_only_fail_commit_on(name: Option<String>) {
    crate::atomic::set_fail_on(name);
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

/// `analyzeBash`: the facts about a shell command as JSON. Never throws.
#[napi]
pub fn analyze_bash_json(command: String) -> String {
    bash_facts::analyze(&command).to_json().to_string()
}

/// Whether `path` (absolute) passes the workspace confinement check for `root` (absolute):
/// `PathFact.withinWorkspace`. Both are normalized lexically first.
#[napi]
pub fn path_within_workspace(root: String, path: String) -> bool {
    let cwd = std::path::Path::new("/");
    let root = config::lexical_absolute(std::path::Path::new(&root), cwd);
    let abs = config::lexical_absolute(std::path::Path::new(&path), &root);
    paths::is_within(&root, &abs)
}
