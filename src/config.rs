//! The resolved server configuration and the two ways to build it: from options
//! (`resolveConfig`) and from argv + environment (`buildConfig`).
//!
//! Every failure here is a startup error whose message names the offending setting.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

pub const DEFAULT_MAX_OUTPUT_BYTES: u64 = 131_072;
pub const DEFAULT_MAX_FILE_BYTES: u64 = 20_000_000;
pub const DEFAULT_BASH_TIMEOUT_MS: u64 = 120_000;
pub const DEFAULT_BASH_TIMEOUT_MAX_MS: u64 = 600_000;
pub const DEFAULT_MAX_BASH_OUTPUT_BYTES: u64 = 16_384;
pub const DEFAULT_MAX_IMAGE_BYTES: u64 = 5_000_000;
pub const DEFAULT_MONITOR_READY_TIMEOUT_MS: u64 = 30_000;
pub const DEFAULT_MAX_MONITORS: u64 = 32;
/// The smallest byte limit accepted for `maxOutputBytes` and `maxFileBytes`.
pub const MIN_BYTE_LIMIT: u64 = 1024;

/// Which contract a call is served under: the seed contract (`agent-tools-native/v0.1`) or the
/// newest one (the package root). Read only where the two really differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Profile {
    /// The seed contract (`CONTRACT.md`): nine tools, strict validation, `{isError, text}`.
    Seed,
    /// The newest contract (`CONTRACT-v0.5.md`): content parts, lenient validation, …
    #[default]
    Current,
}

/// The resolved configuration every tool call runs under (the contract's `ServerConfig`).
/// Serialized in the v0.5 field order; the seed entry shows only its eight fields.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Config {
    /// Absolute, lexically resolved (not realpath'd) workspace directory.
    pub workspace_root: PathBuf,
    /// Cap on the text of one successful result, in bytes.
    pub max_output_bytes: u64,
    /// The inline budget of `bash`'s two streams together (the newest contract only).
    pub max_bash_output_bytes: u64,
    /// Largest file the tools read or edit, in bytes.
    pub max_file_bytes: u64,
    /// Largest image `read_image` returns, in bytes.
    pub max_image_bytes: u64,
    /// Default `bash` timeout.
    pub bash_timeout_ms: u64,
    /// Largest `bash` timeout a call may ask for; larger requests are clamped.
    pub bash_timeout_max_ms: u64,
    /// How long `monitor_start` waits for `ready_when` by default.
    pub monitor_ready_timeout_ms: u64,
    /// How many monitors may be live at once.
    pub max_monitors: u64,
    /// Whether an `rg` binary was found; reported only, the search engine is always native.
    pub ripgrep_available: bool,
    /// Whether the code-intelligence tools are offered and writes get syntax warnings.
    pub tree_sitter_available: bool,
    /// Whether writes get syntax warnings: only when `treeSitterAvailable` was given as true.
    /// A caller-built config that lacks the field still offers the tools (the contract) but
    /// gets no warnings.
    #[serde(skip)]
    pub syntax_warnings: bool,
    /// Only the read tools are registered.
    pub read_only: bool,
    /// Paths outside the workspace are refused with `path_escape`.
    pub confine_to_workspace: bool,
    /// The vendor tool surface offered instead of the engine's own tool names (absent: none):
    /// its name, which the surfaces read (config does not know the surfaces).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub surface: Option<String>,
    /// The `anthropic` surface's `max_characters`: `view` output is cut past this many
    /// characters (absent: not cut beyond `maxOutputBytes`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_characters: Option<u64>,
    /// `sandbox`: what `bash` and the monitors may write (absent: off).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<SandboxMode>,
    /// `sandboxNetwork`: whether sandboxed commands may use TCP/UDP (absent: no, once on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox_network: Option<bool>,
    /// `sandboxWritableRoots`: more directories sandboxed commands may write beneath.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox_writable_roots: Option<Vec<PathBuf>>,
    /// `sandboxMechanism`: how the sandbox is enforced; `resolveConfig` names the one in use.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox_mechanism: Option<SandboxMechanism>,
    /// The tools beyond the contract are offered (`extras: true`); shown only when on, so a
    /// default config has exactly the contract's fields.
    #[serde(default, skip_serializing_if = "is_false")]
    pub extras: bool,
    /// The shell the contract's `bash` tool runs its command with (`<shell> -c <command>`);
    /// absent: `sh`, as the contract says. The vendor surfaces choose their own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shell: Option<String>,
    /// The contract served; set by the entry point, never read from a caller's object.
    #[serde(skip)]
    pub profile: Profile,
}

impl Config {
    /// Whether commands run in the kernel sandbox (`sandbox` set and not `off`).
    pub fn sandbox_on(&self) -> bool {
        self.sandbox.is_some_and(|m| m != SandboxMode::Off)
    }

    /// Whether the newest contract's exact texts are served: the package root without
    /// `extras`. With `extras` (the CLI, the MCP server) the engine's more helpful wording and
    /// fields beyond the contract are given instead; `/v0.1` keeps its own.
    pub fn contract_exact(&self) -> bool {
        self.profile == Profile::Current && !self.extras
    }
}

/// `sandbox`: what the commands may write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SandboxMode {
    Off,
    ReadOnly,
    WorkspaceWrite,
}

pub const SANDBOX_MODES: &str = "\"off\", \"read-only\" or \"workspace-write\"";
pub const SANDBOX_MECHANISMS: &str = "\"auto\", \"namespaces\" or \"landlock\"";

impl SandboxMode {
    /// `setting` is the name the user knows (`sandbox`, `SANDBOX`, `--sandbox`).
    pub fn parse(setting: &str, raw: &str) -> Result<SandboxMode, StartupError> {
        match raw {
            "off" => Ok(SandboxMode::Off),
            "read-only" => Ok(SandboxMode::ReadOnly),
            "workspace-write" => Ok(SandboxMode::WorkspaceWrite),
            other => Err(StartupError(format!(
                "{setting} must be {SANDBOX_MODES}, got {other:?}"
            ))),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            SandboxMode::Off => "off",
            SandboxMode::ReadOnly => "read-only",
            SandboxMode::WorkspaceWrite => "workspace-write",
        }
    }
}

/// `sandboxMechanism`: how the sandbox is enforced (`auto` picks the strongest available).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SandboxMechanism {
    Auto,
    Namespaces,
    Landlock,
}

impl SandboxMechanism {
    pub fn parse(setting: &str, raw: &str) -> Result<SandboxMechanism, StartupError> {
        match raw {
            "auto" => Ok(SandboxMechanism::Auto),
            "namespaces" => Ok(SandboxMechanism::Namespaces),
            "landlock" => Ok(SandboxMechanism::Landlock),
            other => Err(StartupError(format!(
                "{setting} must be {SANDBOX_MECHANISMS}, got {other:?}"
            ))),
        }
    }
}

/// A configuration error, reported to JavaScript as `StartupError`.
#[derive(Debug, Clone, PartialEq)]
pub struct StartupError(pub String);

impl std::fmt::Display for StartupError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

type Startup<T> = Result<T, StartupError>;

fn is_false(b: &bool) -> bool {
    !b
}

fn fail<T>(message: String) -> Startup<T> {
    Err(StartupError(message))
}

/// `AgentToolsOptions` as it arrives from JavaScript (already JSON).
#[derive(Debug, Default, Clone)]
pub struct Options {
    pub workspace_root: Option<String>,
    pub read_only: Option<bool>,
    pub confine_to_workspace: Option<bool>,
    pub max_output_bytes: Option<u64>,
    pub max_file_bytes: Option<u64>,
    pub bash_timeout_ms: Option<u64>,
    pub bash_timeout_max_ms: Option<u64>,
    pub max_bash_output_bytes: Option<u64>,
    pub max_image_bytes: Option<u64>,
    pub monitor_ready_timeout_ms: Option<u64>,
    pub max_monitors: Option<u64>,
    pub ripgrep_available: Option<bool>,
    pub tree_sitter_available: Option<bool>,
    /// A surface name, checked where the surfaces live.
    pub surface: Option<String>,
    pub max_characters: Option<u64>,
    pub sandbox: Option<SandboxMode>,
    pub sandbox_network: Option<bool>,
    pub sandbox_writable_roots: Option<Vec<PathBuf>>,
    pub sandbox_mechanism: Option<SandboxMechanism>,
    pub extras: Option<bool>,
    /// The `bash` tool's shell (a program name or path).
    pub shell: Option<String>,
}

/// An options object that remembers which keys were read, so the keys nobody read are known.
struct ReadKeys<'a> {
    obj: &'a serde_json::Map<String, Value>,
    read: std::cell::RefCell<Vec<&'static str>>,
}

impl ReadKeys<'_> {
    fn get(&self, key: &'static str) -> Option<&Value> {
        self.read.borrow_mut().push(key);
        self.obj.get(key)
    }

    /// The keys present that were never read.
    fn unread(&self) -> Vec<&str> {
        let read = self.read.borrow();
        self.obj
            .keys()
            .map(String::as_str)
            .filter(|k| !read.contains(k))
            .collect()
    }
}

impl Options {
    /// Reads `AgentToolsOptions` from a JSON object, checking each known field's type.
    /// Unknown keys are ignored, as a JavaScript options bag would.
    pub fn from_json(value: &Value) -> Startup<Options> {
        Self::read_json(value).map(|(options, _)| options)
    }

    /// [`Options::from_json`], plus one diagnostic line per unknown key, naming the closest real
    /// option (`readonly` is most likely `readOnly`). The contract ignores unknown keys, so this
    /// is a warning for the host's warn sink, never an error.
    pub fn from_json_noting_unknown(value: &Value) -> Startup<(Options, Vec<String>)> {
        let (options, read) = Self::read_json(value)?;
        let notes = read
            .unread()
            .into_iter()
            .map(|key| {
                let near = crate::suggest::closest(key, read.read.borrow().iter().copied());
                match near {
                    Some(near) => {
                        format!("unknown option {key:?} is ignored; did you mean {near:?}?")
                    }
                    None => format!("unknown option {key:?} is ignored"),
                }
            })
            .collect();
        Ok((options, notes))
    }

    fn read_json(value: &Value) -> Startup<(Options, ReadKeys<'_>)> {
        let Some(obj) = value.as_object() else {
            return fail("options must be an object with at least workspaceRoot".into());
        };
        let obj = ReadKeys {
            obj,
            read: Default::default(),
        };
        let options = Self::read_keys(&obj)?;
        Ok((options, obj))
    }

    fn read_keys(obj: &ReadKeys) -> Startup<Options> {
        let get_bool = |key: &'static str| -> Startup<Option<bool>> {
            match obj.get(key) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::Bool(b)) => Ok(Some(*b)),
                Some(other) => fail(format!("{key} must be a boolean, got {other}")),
            }
        };
        let get_int = |key: &'static str| -> Startup<Option<u64>> {
            match obj.get(key) {
                None | Some(Value::Null) => Ok(None),
                Some(v) => match v.as_u64() {
                    Some(n) => Ok(Some(n)),
                    None => fail(format!("{key} must be a non-negative integer, got {v}")),
                },
            }
        };
        let workspace_root = match obj.get("workspaceRoot") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(other) => return fail(format!("workspaceRoot must be a string, got {other}")),
        };
        Ok(Options {
            workspace_root,
            read_only: get_bool("readOnly")?,
            confine_to_workspace: get_bool("confineToWorkspace")?,
            max_output_bytes: get_int("maxOutputBytes")?,
            max_file_bytes: get_int("maxFileBytes")?,
            bash_timeout_ms: get_int("bashTimeoutMs")?,
            bash_timeout_max_ms: get_int("bashTimeoutMaxMs")?,
            max_bash_output_bytes: get_int("maxBashOutputBytes")?,
            max_image_bytes: get_int("maxImageBytes")?,
            monitor_ready_timeout_ms: get_int("monitorReadyTimeoutMs")?,
            max_monitors: get_int("maxMonitors")?,
            ripgrep_available: get_bool("ripgrepAvailable")?,
            tree_sitter_available: get_bool("treeSitterAvailable")?,
            surface: match obj.get("surface") {
                None | Some(Value::Null) => None,
                Some(Value::String(s)) => Some(s.clone()),
                Some(other) => return fail(format!("surface must be a string, got {other}")),
            },
            max_characters: match get_int("maxCharacters")? {
                Some(0) => return fail("maxCharacters must be an integer >= 1, got: 0".into()),
                n => n,
            },
            sandbox: match obj.get("sandbox") {
                None | Some(Value::Null) => None,
                Some(Value::String(s)) => Some(SandboxMode::parse("sandbox", s)?),
                Some(other) => {
                    return fail(format!(
                        "sandbox must be {}, got {other}",
                        SANDBOX_MODES
                    ))
                }
            },
            sandbox_network: get_bool("sandboxNetwork")?,
            sandbox_writable_roots: match obj.get("sandboxWritableRoots") {
                None | Some(Value::Null) => None,
                Some(Value::Array(items)) => Some(
                    items
                        .iter()
                        .map(|v| match v {
                            Value::String(s) if !s.is_empty() => Ok(PathBuf::from(s)),
                            other => fail(format!(
                                "sandboxWritableRoots must be an array of absolute directory paths, got an item {other}"
                            )),
                        })
                        .collect::<Startup<Vec<_>>>()?,
                ),
                Some(other) => {
                    return fail(format!(
                        "sandboxWritableRoots must be an array of absolute directory paths, got {other}"
                    ))
                }
            },
            sandbox_mechanism: match obj.get("sandboxMechanism") {
                None | Some(Value::Null) => None,
                Some(Value::String(s)) => {
                    Some(SandboxMechanism::parse("sandboxMechanism", s)?)
                }
                Some(other) => {
                    return fail(format!(
                        "sandboxMechanism must be {}, got {other}",
                        SANDBOX_MECHANISMS
                    ))
                }
            },
            extras: get_bool("extras")?,
            shell: match obj.get("shell") {
                None | Some(Value::Null) => None,
                Some(Value::String(s)) => Some(check_shell("shell", s)?),
                Some(other) => return fail(format!("shell must be a string, got {other}")),
            },
        })
    }
}

/// The numeric options in the order the newest contract's `resolveConfig` checks them, with
/// their floors (`bashTimeoutMaxMs` is also checked against `bashTimeoutMs` after it).
const NEWEST_NUMBERS: [(&str, u64); 8] = [
    ("bashTimeoutMs", 1),
    ("bashTimeoutMaxMs", 1),
    ("maxOutputBytes", MIN_BYTE_LIMIT),
    ("maxBashOutputBytes", MIN_BYTE_LIMIT),
    ("maxFileBytes", MIN_BYTE_LIMIT),
    ("maxImageBytes", MIN_BYTE_LIMIT),
    ("monitorReadyTimeoutMs", 1),
    ("maxMonitors", 1),
];

/// `resolveConfig` under `profile`: the newest contract's wording and order of checks
/// (CONTRACT-v0.5-wording §3), or the seed's. `raw` is the options object as given, read for
/// the values that are not integers (the newest contract reports them against their floor).
pub fn resolve_for(raw: &Value, cwd: &Path, profile: Profile) -> Startup<Config> {
    if profile == Profile::Current {
        check_newest(raw, cwd)?;
    }
    resolve(Options::from_json(raw)?, cwd)
}

/// The newest contract's checks of `resolveConfig`, in its order and words (see
/// [`resolve_for`]): the root, then each number against its floor, then the timeouts' order.
pub fn check_newest(raw: &Value, cwd: &Path) -> Startup<()> {
    let obj = raw.as_object();
    let get = |key: &str| obj.and_then(|o| o.get(key)).filter(|v| !v.is_null());
    // A falsy workspaceRoot (missing, "", null, false, 0) is absent.
    let root = match get("workspaceRoot") {
        None | Some(Value::Bool(false)) => None,
        Some(Value::String(s)) if s.is_empty() => None,
        Some(Value::Number(n)) if n.as_f64() == Some(0.0) => None,
        Some(v) => Some(v),
    };
    let Some(root) = root else {
        return fail("No workspace root: options.workspaceRoot is required.".into());
    };
    let Value::String(root) = root else {
        return fail(format!("workspaceRoot must be a string, got {root}"));
    };
    let abs = lexical_absolute(Path::new(root), cwd);
    match std::fs::metadata(&abs) {
        Ok(meta) if meta.is_dir() => {}
        Ok(_) => {
            return fail(format!(
                "Workspace root is not a directory: {}",
                abs.display()
            ))
        }
        Err(_) => return fail(format!("Workspace root does not exist: {}", abs.display())),
    }
    // The numbers: each a safe integer at or over its floor, in the contract's order.
    for (i, (name, min)) in NEWEST_NUMBERS.iter().enumerate() {
        if let Some(v) = get(name) {
            let ok = v.as_u64().is_some_and(|n| n >= *min && n < (1 << 53));
            if !ok {
                return fail(format!(
                    "{name} must be an integer >= {min}, got: {}",
                    js_string(v)
                ));
            }
        }
        if i == 1 {
            let of = |key: &str, default: u64| get(key).and_then(Value::as_u64).unwrap_or(default);
            let (min, max) = (
                of("bashTimeoutMs", DEFAULT_BASH_TIMEOUT_MS),
                of("bashTimeoutMaxMs", DEFAULT_BASH_TIMEOUT_MAX_MS),
            );
            if max < min {
                return fail(format!(
                    "bashTimeoutMaxMs ({max}) must be >= bashTimeoutMs ({min})."
                ));
            }
        }
    }
    Ok(())
}

/// A JSON value as JavaScript's `String(value)` shows it (for the messages that quote one).
fn js_string(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(items) => items.iter().map(js_string).collect::<Vec<_>>().join(","),
        Value::Object(_) => "[object Object]".into(),
        Value::Number(n) => match (n.as_u64(), n.as_i64(), n.as_f64()) {
            (Some(u), _, _) => u.to_string(),
            (_, Some(i), _) => i.to_string(),
            (_, _, Some(f)) => js_number(f),
            _ => n.to_string(),
        },
        other => other.to_string(),
    }
}

/// A finite number as JavaScript's `String(number)` writes it: integers below 1e21 in full
/// (`100000000000000000000`), exponents with a sign (`1e+21`, `1e-7`), the shortest digits.
pub(crate) fn js_number(f: f64) -> String {
    let abs = f.abs();
    if f == 0.0 {
        return "0".into();
    }
    if f.fract() == 0.0 && abs < 9_007_199_254_740_992.0 {
        return format!("{f:.0}");
    }
    if !(1e-6..1e21).contains(&abs) {
        // Rust's `{:e}` is the shortest round-trip mantissa: `1e21`, `1.5e-7`.
        let e = format!("{f:e}");
        return match e.split_once('e') {
            Some((m, exp)) if !exp.starts_with('-') => format!("{m}e+{exp}"),
            _ => e,
        };
    }
    if f.fract() == 0.0 {
        return format!("{f:.0}");
    }
    f.to_string()
}

/// Applies defaults and floors and checks the workspace: the contract's `resolveConfig`.
/// `cwd` resolves a relative `workspaceRoot`.
pub fn resolve(options: Options, cwd: &Path) -> Startup<Config> {
    let mut config = with_defaults(options)?;
    config.workspace_root = lexical_absolute(&config.workspace_root, cwd);
    let root = &config.workspace_root;
    match std::fs::metadata(root) {
        Ok(meta) if meta.is_dir() => {}
        Ok(_) => {
            return fail(format!(
                "workspaceRoot is not a directory: {}",
                root.display()
            ))
        }
        Err(err) => {
            return fail(format!(
                "workspaceRoot does not exist or cannot be read: {} ({err})",
                root.display()
            ))
        }
    }
    for (name, value, min) in [
        ("maxOutputBytes", config.max_output_bytes, MIN_BYTE_LIMIT),
        (
            "maxBashOutputBytes",
            config.max_bash_output_bytes,
            MIN_BYTE_LIMIT,
        ),
        ("maxFileBytes", config.max_file_bytes, MIN_BYTE_LIMIT),
        ("maxImageBytes", config.max_image_bytes, MIN_BYTE_LIMIT),
        ("bashTimeoutMs", config.bash_timeout_ms, 1),
        (
            "bashTimeoutMaxMs",
            config.bash_timeout_max_ms,
            config.bash_timeout_ms,
        ),
        ("monitorReadyTimeoutMs", config.monitor_ready_timeout_ms, 1),
        ("maxMonitors", config.max_monitors, 1),
    ] {
        if value < min {
            return fail(format!("{name} must be an integer >= {min}, got: {value}"));
        }
    }
    if let Some(shell) = &config.shell {
        let found = if shell.contains('/') {
            Path::new(shell).is_file()
        } else {
            on_path(shell)
        };
        if !found {
            return fail(format!(
                "shell {shell:?} is not installed (not found on PATH): install it, or name another, e.g. bash or /bin/bash"
            ));
        }
    }
    for root in config.sandbox_writable_roots.iter().flatten() {
        if !root.is_absolute() {
            return fail(format!(
                "sandboxWritableRoots must hold absolute directories, got {:?}",
                root.display().to_string()
            ));
        }
        if !root.is_dir() {
            return fail(format!(
                "sandboxWritableRoots: {} is not an existing directory",
                root.display()
            ));
        }
    }
    Ok(config)
}

/// Fills every unset option with its default; checks nothing but the presence of the root.
/// This is how a plain `ServerConfig` object built by a caller is read.
pub fn with_defaults(options: Options) -> Startup<Config> {
    let Some(root) = options.workspace_root.filter(|s| !s.is_empty()) else {
        return fail("workspaceRoot is required: pass the directory the tools may work in".into());
    };
    Ok(Config {
        workspace_root: PathBuf::from(root),
        max_output_bytes: options.max_output_bytes.unwrap_or(DEFAULT_MAX_OUTPUT_BYTES),
        max_file_bytes: options.max_file_bytes.unwrap_or(DEFAULT_MAX_FILE_BYTES),
        bash_timeout_ms: options.bash_timeout_ms.unwrap_or(DEFAULT_BASH_TIMEOUT_MS),
        bash_timeout_max_ms: options
            .bash_timeout_max_ms
            .unwrap_or(DEFAULT_BASH_TIMEOUT_MAX_MS),
        max_bash_output_bytes: options
            .max_bash_output_bytes
            .unwrap_or(DEFAULT_MAX_BASH_OUTPUT_BYTES),
        max_image_bytes: options.max_image_bytes.unwrap_or(DEFAULT_MAX_IMAGE_BYTES),
        monitor_ready_timeout_ms: options
            .monitor_ready_timeout_ms
            .unwrap_or(DEFAULT_MONITOR_READY_TIMEOUT_MS),
        max_monitors: options.max_monitors.unwrap_or(DEFAULT_MAX_MONITORS),
        ripgrep_available: options.ripgrep_available.unwrap_or(false),
        // A caller-built config without the field still offers the code-intelligence tools
        // (the contract); only an explicit `false` hides them.
        tree_sitter_available: options.tree_sitter_available.unwrap_or(true),
        syntax_warnings: options.tree_sitter_available == Some(true),
        read_only: options.read_only.unwrap_or(false),
        confine_to_workspace: options.confine_to_workspace.unwrap_or(true),
        surface: options.surface,
        max_characters: options.max_characters,
        sandbox: options.sandbox,
        sandbox_network: options.sandbox_network,
        sandbox_writable_roots: options.sandbox_writable_roots,
        sandbox_mechanism: options.sandbox_mechanism,
        extras: options.extras.unwrap_or(false),
        shell: options.shell,
        profile: Profile::default(),
    })
}

/// Builds options from command-line flags and environment variables (`buildConfig`).
/// Flags beat environment variables; arguments that are not ours are left alone.
pub fn options_from_argv_env(
    argv: &[String],
    env: &serde_json::Map<String, Value>,
    profile: Profile,
) -> Startup<Options> {
    options_from(argv, &|key| env.get(key).and_then(Value::as_str), profile)
}

/// The environment variables [`options_from_argv_env`] reads under `profile`, found by
/// running it on an environment that records every name asked for: `--help` and the docs are
/// checked against this list, so a new variable cannot go undocumented.
pub fn env_vars_read(profile: Profile) -> Vec<String> {
    let asked = std::cell::RefCell::new(Vec::<String>::new());
    let _ = options_from(
        &[],
        &|key| {
            asked.borrow_mut().push(key.to_string());
            None
        },
        profile,
    );
    let mut names = asked.into_inner();
    names.dedup();
    names
}

fn options_from<'e>(
    argv: &[String],
    env_str: &dyn Fn(&str) -> Option<&'e str>,
    profile: Profile,
) -> Startup<Options> {
    let mut options = Options {
        workspace_root: env_str("WORKSPACE_ROOT").map(str::to_string),
        read_only: env_str("READ_ONLY")
            .map(|v| parse_bool("READ_ONLY", v))
            .transpose()?,
        confine_to_workspace: env_str("ALLOW_OUTSIDE_WORKSPACE")
            .map(|v| parse_bool("ALLOW_OUTSIDE_WORKSPACE", v).map(|allow| !allow))
            .transpose()?,
        ..Options::default()
    };
    // The seed contract reads only its own four numeric variables.
    let newer = profile == Profile::Current;
    for (key, slot, wanted) in [
        ("MAX_OUTPUT_BYTES", &mut options.max_output_bytes, true),
        ("MAX_FILE_BYTES", &mut options.max_file_bytes, true),
        ("BASH_TIMEOUT_MS", &mut options.bash_timeout_ms, true),
        (
            "BASH_TIMEOUT_MAX_MS",
            &mut options.bash_timeout_max_ms,
            true,
        ),
        (
            "MAX_BASH_OUTPUT_BYTES",
            &mut options.max_bash_output_bytes,
            newer,
        ),
        ("MAX_IMAGE_BYTES", &mut options.max_image_bytes, newer),
        (
            "MONITOR_READY_TIMEOUT_MS",
            &mut options.monitor_ready_timeout_ms,
            newer,
        ),
        ("MAX_MONITORS", &mut options.max_monitors, newer),
    ] {
        if !wanted {
            continue;
        }
        if let Some(v) = env_str(key) {
            *slot = Some(parse_int(key, v)?);
        }
    }
    if newer {
        if let Some(v) = env_str("BASH_SHELL") {
            options.shell = Some(check_shell("BASH_SHELL", v)?);
        }
        if let Some(v) = env_str("SANDBOX") {
            options.sandbox = Some(SandboxMode::parse("SANDBOX", v.trim())?);
        }
        if let Some(v) = env_str("SANDBOX_NETWORK") {
            options.sandbox_network = Some(parse_bool("SANDBOX_NETWORK", v)?);
        }
        if let Some(v) = env_str("SANDBOX_WRITABLE_ROOTS").filter(|v| !v.is_empty()) {
            options.sandbox_writable_roots = Some(
                std::env::split_paths(v)
                    .filter(|p| !p.as_os_str().is_empty())
                    .collect(),
            );
        }
        if let Some(v) = env_str("SANDBOX_MECHANISM") {
            options.sandbox_mechanism =
                Some(SandboxMechanism::parse("SANDBOX_MECHANISM", v.trim())?);
        }
    }
    let mut roots_from_flags = false;
    let mut args = argv.iter();
    while let Some(arg) = args.next() {
        // `--flag value` and `--flag=value` alike, for the valued sandbox flags.
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--sandbox") => (f, Some(v.to_string())),
            _ => (arg.as_str(), None),
        };
        if newer
            && matches!(
                flag,
                "--sandbox" | "--sandbox-writable-root" | "--sandbox-mechanism"
            )
        {
            let value = match inline {
                Some(v) if !v.is_empty() => v,
                Some(_) => return fail(format!("{flag} needs a value: {flag}=<value>")),
                None => match args.next() {
                    Some(v) if !v.starts_with("--") => v.clone(),
                    _ => return fail(format!("{flag} needs a value: {flag} <value>")),
                },
            };
            match flag {
                "--sandbox" => options.sandbox = Some(SandboxMode::parse(flag, &value)?),
                "--sandbox-mechanism" => {
                    options.sandbox_mechanism = Some(SandboxMechanism::parse(flag, &value)?)
                }
                _ => {
                    // The first flag replaces SANDBOX_WRITABLE_ROOTS; more flags add to it.
                    if !std::mem::replace(&mut roots_from_flags, true) {
                        options.sandbox_writable_roots = Some(Vec::new());
                    }
                    options
                        .sandbox_writable_roots
                        .get_or_insert_with(Vec::new)
                        .push(PathBuf::from(value));
                }
            }
            continue;
        }
        match arg.as_str() {
            "--sandbox-network" if newer => options.sandbox_network = Some(true),
            "--no-sandbox-network" if newer => options.sandbox_network = Some(false),
            "--workspace" => match args.next() {
                Some(v) if !v.starts_with("--") => options.workspace_root = Some(v.clone()),
                _ => return fail("--workspace needs a value: --workspace <dir>".into()),
            },
            "--read-only" => options.read_only = Some(true),
            "--surface" => match args.next() {
                Some(v) if !v.starts_with("--") => options.surface = Some(v.clone()),
                _ => return fail("--surface needs a value: --surface <name>".into()),
            },
            "--allow-outside-workspace" => options.confine_to_workspace = Some(false),
            "--shell" => match args.next() {
                Some(v) if !v.starts_with("--") => options.shell = Some(check_shell("--shell", v)?),
                _ => {
                    return fail(
                        "--shell needs a value: --shell <program>, e.g. --shell bash".into(),
                    )
                }
            },
            // Not the contract's: the CLI passes `--extras` unless its user said `--no-extras`.
            "--extras" => options.extras = Some(true),
            "--no-extras" => options.extras = Some(false),
            other => {
                if let Some(v) = other.strip_prefix("--workspace=") {
                    if v.is_empty() {
                        return fail("--workspace needs a value: --workspace=<dir>".into());
                    }
                    options.workspace_root = Some(v.to_string());
                } else if let Some(v) = other.strip_prefix("--surface=") {
                    options.surface = Some(v.to_string());
                } else if let Some(v) = other.strip_prefix("--shell=") {
                    options.shell = Some(check_shell("--shell", v)?);
                }
            }
        }
    }
    Ok(options)
}

/// A shell setting: a program name (looked up on `PATH`) or a path, neither empty nor holding
/// a NUL byte. Whether it exists is found out when a command runs, and the result says so.
fn check_shell(name: &str, raw: &str) -> Startup<String> {
    if raw.trim().is_empty() || raw.contains('\0') {
        return fail(format!(
            "{name} must name a shell program, e.g. bash or /bin/bash, got {raw:?}"
        ));
    }
    Ok(raw.to_string())
}

/// `buildConfig`'s reading of argv and the environment under the newest contract
/// (CONTRACT-v0.5-wording §3): the workspace from the first `--workspace` / `--workspace=`
/// (`undefined` elements skipped, a missing value refused), else a non-empty `WORKSPACE_ROOT`,
/// else an error with guidance; then the numbers, their order, and the booleans, each with the
/// contract's message. The result goes on to [`resolve_for`] as an options object.
pub fn newest_options_from_argv_env(
    argv: &[Option<String>],
    env: &serde_json::Map<String, Value>,
) -> Startup<serde_json::Map<String, Value>> {
    const NEEDS_PATH: &str = "--workspace requires a path argument";
    let mut out = serde_json::Map::new();
    let mut root: Option<String> = None;
    let mut i = 0;
    while i < argv.len() {
        let Some(arg) = argv[i].as_deref() else {
            i += 1;
            continue;
        };
        // The first `--workspace` / `--workspace=` wins: later ones are not read at all.
        if arg == "--workspace" && root.is_none() {
            match argv.get(i + 1).and_then(Option::as_deref) {
                Some(v) if !v.starts_with("--") => {
                    root = Some(v.to_string());
                    i += 1;
                }
                _ => return fail(NEEDS_PATH.into()),
            }
        } else if let Some(v) = arg.strip_prefix("--workspace=").filter(|_| root.is_none()) {
            if v.is_empty() {
                return fail(NEEDS_PATH.into());
            }
            root = Some(v.to_string());
        } else if arg == "--read-only" {
            out.insert("readOnly".into(), Value::Bool(true));
        } else if arg == "--allow-outside-workspace" {
            out.insert("confineToWorkspace".into(), Value::Bool(false));
        } else if arg == "--extras" || arg == "--no-extras" {
            // Not the contract's: the CLI passes `--extras` unless its user said `--no-extras`.
            out.insert("extras".into(), Value::Bool(arg == "--extras"));
        } else if arg == "--surface" {
            match argv.get(i + 1).and_then(Option::as_deref) {
                Some(v) if !v.starts_with("--") => {
                    out.insert("surface".into(), Value::from(v));
                    i += 1;
                }
                _ => return fail("--surface needs a value: --surface <name>".into()),
            }
        } else if let Some(v) = arg.strip_prefix("--surface=") {
            out.insert("surface".into(), Value::from(v));
        }
        i += 1;
    }
    let env_str = |key: &str| env.get(key).and_then(Value::as_str);
    let root = root.or_else(|| {
        env_str("WORKSPACE_ROOT")
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    });
    // An empty path from argv (`--workspace ""`) is no root either.
    let Some(root) = root.filter(|r| !r.is_empty()) else {
        return fail("No workspace root: pass --workspace <path> or set WORKSPACE_ROOT.".into());
    };
    out.insert("workspaceRoot".into(), Value::from(root));
    // Digits are a number, as `Number(raw)` reads them: past u64 an f64, which the floor check
    // then refuses as not a safe integer, quoting it as JavaScript writes it.
    let int = |key: &str| -> Startup<Option<Value>> {
        match env_str(key) {
            None | Some("") => Ok(None),
            Some(raw) if raw.bytes().all(|b| b.is_ascii_digit()) => match raw.parse::<u64>() {
                Ok(n) => Ok(Some(Value::from(n))),
                Err(_) => Ok(raw.parse::<f64>().ok().map(Value::from)),
            },
            Some(raw) => fail(format!("{key} must be a positive integer, got: {raw}")),
        }
    };
    let timeout = int("BASH_TIMEOUT_MS")?;
    let timeout_max = int("BASH_TIMEOUT_MAX_MS")?;
    let number = |v: &Option<Value>, default: u64| {
        v.as_ref().and_then(Value::as_f64).unwrap_or(default as f64)
    };
    let (min, max) = (
        number(&timeout, DEFAULT_BASH_TIMEOUT_MS),
        number(&timeout_max, DEFAULT_BASH_TIMEOUT_MAX_MS),
    );
    if max < min {
        return fail(format!(
            "BASH_TIMEOUT_MAX_MS ({}) must be >= BASH_TIMEOUT_MS ({}).",
            js_number(max),
            js_number(min)
        ));
    }
    // Read in the contract's order (the array is built left to right), so the first bad one
    // is the one reported.
    for (option, value) in [
        ("bashTimeoutMs", timeout),
        ("bashTimeoutMaxMs", timeout_max),
        ("monitorReadyTimeoutMs", int("MONITOR_READY_TIMEOUT_MS")?),
        ("maxMonitors", int("MAX_MONITORS")?),
        ("maxOutputBytes", int("MAX_OUTPUT_BYTES")?),
        ("maxBashOutputBytes", int("MAX_BASH_OUTPUT_BYTES")?),
        ("maxFileBytes", int("MAX_FILE_BYTES")?),
        ("maxImageBytes", int("MAX_IMAGE_BYTES")?),
    ] {
        if let Some(n) = value {
            out.insert(option.into(), n);
        }
    }
    for (key, option, invert) in [
        ("READ_ONLY", "readOnly", false),
        ("ALLOW_OUTSIDE_WORKSPACE", "confineToWorkspace", true),
    ] {
        let Some(raw) = env_str(key) else { continue };
        let value = match raw.trim().to_ascii_lowercase().as_str() {
            "1" | "true" | "yes" | "on" => true,
            "0" | "false" | "no" | "off" | "" => false,
            _ => {
                return fail(format!(
                    "{key} must be one of 1/true/yes/on or 0/false/no/off, got: {raw}"
                ))
            }
        };
        // A flag beats the variable.
        out.entry(option).or_insert(Value::Bool(value != invert));
    }
    Ok(out)
}

/// `1/true/yes/on` and `0/false/no/off/""`, case-insensitively.
pub fn parse_bool(name: &str, raw: &str) -> Startup<bool> {
    match raw.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "on" => Ok(true),
        "0" | "false" | "no" | "off" | "" => Ok(false),
        _ => fail(format!(
            "{name} must be a boolean (1/true/yes/on or 0/false/no/off), got {raw:?}"
        )),
    }
}

/// Plain decimal digits only.
pub fn parse_int(name: &str, raw: &str) -> Startup<u64> {
    // Plain digits only (CONTRACT.md, buildConfig): no sign, no space around them.
    if raw.is_empty() || !raw.bytes().all(|b| b.is_ascii_digit()) {
        return fail(format!("{name} must be a positive integer, got: {raw}"));
    }
    raw.parse()
        .or_else(|_| fail(format!("{name} is too large: {raw:?}")))
}

/// Like Node's `path.resolve`: absolute, `.` and `..` folded, symlinks not followed.
pub fn lexical_absolute(path: &Path, cwd: &Path) -> PathBuf {
    use std::path::Component;
    let joined = if path.is_absolute() {
        path.to_path_buf()
    } else {
        cwd.join(path)
    };
    let mut out = PathBuf::new();
    for comp in joined.components() {
        match comp {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// Whether an executable named `rg` is on `PATH` (the default `probeRipgrep`).
pub fn ripgrep_on_path() -> bool {
    on_path(if cfg!(windows) { "rg.exe" } else { "rg" })
}

/// Whether a file named `name` is in a directory of `PATH`.
fn on_path(name: &str) -> bool {
    let Some(path) = std::env::var_os("PATH") else {
        return false;
    };
    std::env::split_paths(&path).any(|dir| dir.join(name).is_file())
}

#[cfg(test)]
mod tests {

    #[test]
    fn numbers_in_messages_read_as_javascript_writes_them() {
        // `<name> must be an integer >= <min>, got: <value>` quotes `String(value)`.
        for (f, js) in [
            (1e20, "100000000000000000000"),
            (1e21, "1e+21"),
            (1.5, "1.5"),
            (1e-7, "1e-7"),
            (-2.5e22, "-2.5e+22"),
            (0.000001, "0.000001"),
        ] {
            assert_eq!(js_number(f), js, "{f}");
        }
    }
    use super::*;
    use serde_json::json;

    fn opts(v: Value) -> Options {
        Options::from_json(&v).unwrap()
    }

    #[test]
    fn defaults_apply() {
        let dir = tempfile::tempdir().unwrap();
        let c = resolve(opts(json!({"workspaceRoot": dir.path()})), Path::new("/")).unwrap();
        assert_eq!(c.max_output_bytes, DEFAULT_MAX_OUTPUT_BYTES);
        assert_eq!(c.max_file_bytes, DEFAULT_MAX_FILE_BYTES);
        assert!(c.confine_to_workspace);
        assert!(!c.read_only);
    }

    #[test]
    fn floors_name_the_setting() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_str().unwrap();
        for (key, val) in [
            ("maxOutputBytes", 1023),
            ("maxFileBytes", 10),
            ("bashTimeoutMs", 0),
        ] {
            let err = resolve(
                opts(json!({"workspaceRoot": root, key: val})),
                Path::new("/"),
            )
            .unwrap_err();
            assert!(err.0.contains(key), "{err}");
        }
        let err = resolve(
            opts(json!({"workspaceRoot": root, "bashTimeoutMs": 10, "bashTimeoutMaxMs": 5})),
            Path::new("/"),
        )
        .unwrap_err();
        assert!(err.0.contains("bashTimeoutMaxMs"));
    }

    #[test]
    fn relative_root_is_resolved_lexically() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("a")).unwrap();
        let c = resolve(opts(json!({"workspaceRoot": "./x/../a"})), dir.path()).unwrap();
        assert_eq!(c.workspace_root, dir.path().join("a"));
    }

    #[test]
    fn unknown_keys_are_noted_with_the_closest_option() {
        let (options, notes) = Options::from_json_noting_unknown(&json!({
            "workspaceRoot": "/w",
            "readonly": true,
            "maxOutputBytes": 2048,
            "frobnicate": 1,
        }))
        .unwrap();
        assert_eq!(options.read_only, None, "a typo changes nothing");
        assert_eq!(options.max_output_bytes, Some(2048));
        assert_eq!(
            notes,
            vec![
                r#"unknown option "readonly" is ignored; did you mean "readOnly"?"#.to_string(),
                r#"unknown option "frobnicate" is ignored"#.to_string(),
            ]
        );
        let every_known = json!({
            "workspaceRoot": "/w", "readOnly": false, "confineToWorkspace": true,
            "maxOutputBytes": null, "maxFileBytes": null, "bashTimeoutMs": null,
            "bashTimeoutMaxMs": null, "maxBashOutputBytes": null, "maxImageBytes": null,
            "monitorReadyTimeoutMs": null, "maxMonitors": null, "ripgrepAvailable": true,
            "treeSitterAvailable": true, "surface": null, "maxCharacters": null, "extras": true,
            "shell": null,
        });
        let (_, notes) = Options::from_json_noting_unknown(&every_known).unwrap();
        assert!(notes.is_empty(), "{notes:?}");
    }

    #[test]
    fn argv_beats_env() {
        let env = json!({"WORKSPACE_ROOT": "/env", "READ_ONLY": "no", "MAX_FILE_BYTES": "2048"});
        let argv: Vec<String> = ["--workspace=/flag", "--read-only"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let o = options_from_argv_env(&argv, env.as_object().unwrap(), Profile::Current).unwrap();
        assert_eq!(o.workspace_root.as_deref(), Some("/flag"));
        assert_eq!(o.read_only, Some(true));
        assert_eq!(o.max_file_bytes, Some(2048));
    }

    #[test]
    fn a_shell_that_is_not_installed_is_refused_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_str().unwrap();
        for shell in ["no-such-shell-atn", "/no/such/shell"] {
            let err = resolve(
                opts(json!({"workspaceRoot": root, "shell": shell})),
                Path::new("/"),
            )
            .unwrap_err();
            assert!(
                err.0
                    .starts_with(&format!("shell {shell:?} is not installed")),
                "{err}"
            );
        }
        let c = resolve(
            opts(json!({"workspaceRoot": root, "shell": "sh"})),
            Path::new("/"),
        )
        .unwrap();
        assert_eq!(c.shell.as_deref(), Some("sh"));
    }

    #[test]
    fn the_env_vars_read_are_listed() {
        let current = env_vars_read(Profile::Current);
        for name in [
            "WORKSPACE_ROOT",
            "MAX_IMAGE_BYTES",
            "MAX_MONITORS",
            "BASH_SHELL",
        ] {
            assert!(current.iter().any(|n| n == name), "{name} in {current:?}");
        }
        let seed = env_vars_read(Profile::Seed);
        assert!(!seed.iter().any(|n| n == "MAX_IMAGE_BYTES"), "{seed:?}");
        let env = json!({"BASH_SHELL": "bash"});
        let o = options_from_argv_env(&[], env.as_object().unwrap(), Profile::Current).unwrap();
        assert_eq!(o.shell.as_deref(), Some("bash"));
        let argv = vec!["--shell=zsh".to_string()];
        let o = options_from_argv_env(&argv, env.as_object().unwrap(), Profile::Current).unwrap();
        assert_eq!(o.shell.as_deref(), Some("zsh"), "the flag wins");
        let empty = json!({"BASH_SHELL": " "});
        let err = options_from_argv_env(&[], empty.as_object().unwrap(), Profile::Current);
        assert!(err.unwrap_err().0.contains("BASH_SHELL"));
    }

    #[test]
    fn env_values_are_strict() {
        let bad_bool = json!({"READ_ONLY": "maybe"});
        assert!(
            options_from_argv_env(&[], bad_bool.as_object().unwrap(), Profile::Current)
                .unwrap_err()
                .0
                .contains("READ_ONLY")
        );
        let bad_int = json!({"MAX_OUTPUT_BYTES": "1e6"});
        assert!(
            options_from_argv_env(&[], bad_int.as_object().unwrap(), Profile::Current)
                .unwrap_err()
                .0
                .contains("MAX_OUTPUT_BYTES")
        );
        let missing = vec!["--workspace".to_string()];
        assert!(
            options_from_argv_env(&missing, &serde_json::Map::new(), Profile::Current).is_err()
        );
        assert_eq!(parse_bool("X", "ON"), Ok(true));
        assert_eq!(parse_bool("X", ""), Ok(false));
    }

    #[test]
    fn sandbox_settings_from_env_and_flags() {
        use super::{SandboxMechanism as Mechanism, SandboxMode as Mode};
        let env = json!({"SANDBOX": "read-only", "SANDBOX_NETWORK": "yes",
            "SANDBOX_WRITABLE_ROOTS": "/a:/b", "SANDBOX_MECHANISM": "landlock"});
        let o = options_from_argv_env(&[], env.as_object().unwrap(), Profile::Current).unwrap();
        assert_eq!(o.sandbox, Some(Mode::ReadOnly));
        assert_eq!(o.sandbox_network, Some(true));
        assert_eq!(
            o.sandbox_writable_roots,
            Some(vec![PathBuf::from("/a"), PathBuf::from("/b")])
        );
        assert_eq!(o.sandbox_mechanism, Some(Mechanism::Landlock));
        let argv: Vec<String> = [
            "--sandbox=workspace-write",
            "--no-sandbox-network",
            "--sandbox-writable-root",
            "/c",
            "--sandbox-writable-root=/d",
            "--sandbox-mechanism",
            "auto",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let o = options_from_argv_env(&argv, env.as_object().unwrap(), Profile::Current).unwrap();
        assert_eq!(o.sandbox, Some(Mode::WorkspaceWrite));
        assert_eq!(o.sandbox_network, Some(false));
        // The flags replace the variable's roots.
        assert_eq!(
            o.sandbox_writable_roots,
            Some(vec![PathBuf::from("/c"), PathBuf::from("/d")])
        );
        assert_eq!(o.sandbox_mechanism, Some(Mechanism::Auto));
        // The seed contract has no sandbox.
        let o = options_from_argv_env(&[], env.as_object().unwrap(), Profile::Seed).unwrap();
        assert_eq!(o.sandbox, None);
    }

    #[test]
    fn bad_sandbox_values_name_the_setting() {
        let empty = serde_json::Map::new();
        for (argv, env, name) in [
            (vec!["--sandbox", "on"], json!({}), "--sandbox must be"),
            (vec!["--sandbox"], json!({}), "--sandbox needs a value"),
            (
                vec!["--sandbox-mechanism=bwrap"],
                json!({}),
                "--sandbox-mechanism must be",
            ),
            (vec![], json!({"SANDBOX": "yes"}), "SANDBOX must be"),
            (
                vec![],
                json!({"SANDBOX_NETWORK": "maybe"}),
                "SANDBOX_NETWORK must be",
            ),
            (
                vec![],
                json!({"SANDBOX_MECHANISM": "x"}),
                "SANDBOX_MECHANISM must be",
            ),
        ] {
            let argv: Vec<String> = argv.iter().map(|s| s.to_string()).collect();
            let env = env.as_object().unwrap_or(&empty).clone();
            let err = options_from_argv_env(&argv, &env, Profile::Current).unwrap_err();
            assert!(err.0.starts_with(name), "{err}");
        }
        for (value, name) in [
            (json!({"sandbox": "full"}), "sandbox must be"),
            (json!({"sandbox": 1}), "sandbox must be"),
            (
                json!({"sandboxNetwork": "no"}),
                "sandboxNetwork must be a boolean",
            ),
            (
                json!({"sandboxWritableRoots": "/tmp"}),
                "sandboxWritableRoots must be an array",
            ),
            (
                json!({"sandboxWritableRoots": [1]}),
                "sandboxWritableRoots must be an array",
            ),
            (
                json!({"sandboxMechanism": "seatbelt"}),
                "sandboxMechanism must be",
            ),
        ] {
            let err = Options::from_json(&value).unwrap_err();
            assert!(err.0.starts_with(name), "{err}");
        }
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_str().unwrap();
        for (roots, name) in [
            (json!(["rel"]), "sandboxWritableRoots must hold absolute"),
            (
                json!(["/no/such/dir"]),
                "sandboxWritableRoots: /no/such/dir is not",
            ),
        ] {
            let o = opts(json!({"workspaceRoot": root, "sandboxWritableRoots": roots}));
            let err = resolve(o, Path::new("/")).unwrap_err();
            assert!(err.0.starts_with(name), "{err}");
        }
    }

    #[test]
    fn sandbox_keys_serialize_only_when_set() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_str().unwrap();
        let plain = resolve(opts(json!({"workspaceRoot": root})), Path::new("/")).unwrap();
        let text = serde_json::to_string(&plain).unwrap();
        assert!(!text.contains("sandbox"), "{text}");
        let off = resolve(
            opts(json!({"workspaceRoot": root, "sandbox": "off"})),
            Path::new("/"),
        )
        .unwrap();
        let text = serde_json::to_string(&off).unwrap();
        assert!(text.ends_with(r#""sandbox":"off"}"#), "{text}");
    }
}
