//! The kernel-enforced sandbox of `bash` and the monitors: what a command (and every process
//! it starts) may write, and whether it may use the network.
//!
//! The policy travels as a value ([`Policy`]), read from the config's `sandbox*` settings.
//! [`linux`] turns it into what the kernel enforces, prepared once per policy in the host
//! (the Landlock ruleset fd, the seccomp BPF program, the mount plan) and applied in the child
//! between fork and exec with async-signal-safe system calls only:
//!
//! - **namespaces** (preferred): a private mount namespace inside a new user namespace (also
//!   when the host is root, so a sandboxed root cannot undo the mounts), with every mount made
//!   read-only and the writable roots bound read-write over it; `.git/hooks` and `.git/config`
//!   of the workspace are bound read-only again. Landlock and seccomp are added inside.
//! - **landlock**: Landlock and seccomp alone, where the kernel refuses the namespaces. They
//!   cannot refuse metadata changes outside the writable roots (`touch`, `chmod`, `chown`,
//!   xattrs), nor keep `.git/hooks` read-only inside the workspace: the result says so.
//!
//! Both set `no_new_privs`, so the restriction is inherited by every descendant and cannot be
//! dropped. Other platforms: a sandbox that is asked for is a startup error.

use std::path::{Path, PathBuf};

use crate::config::{Config, StartupError};

#[cfg(target_os = "linux")]
pub mod linux;

/// The one descriptor above 2 a sandboxed command is handed on purpose (a monitor's `.clarvis`
/// directory, for its exit trap). Every other descriptor the host inherited is closed at exec:
/// a file the host's parent left open outside the workspace is no way out.
pub const PASSED_FD: i32 = 87;

pub use crate::config::{
    SandboxMechanism as Mechanism, SandboxMode as Mode, SANDBOX_MECHANISMS as MECHANISM_NAMES,
    SANDBOX_MODES as MODE_NAMES,
};

/// What the sandboxed commands may do: the value every run is prepared from.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Policy {
    pub mode: Mode,
    /// Whether TCP/UDP (inet, inet6) sockets may be used.
    pub network: bool,
    /// The workspace root (its `.git/hooks` and `.git/config` stay read-only).
    pub workspace: PathBuf,
    /// Every directory writes are allowed beneath (empty in `read-only`).
    pub writable: Vec<PathBuf>,
    pub mechanism: Mechanism,
}

/// The environment a sandboxed `workspace-write` command gets: package-manager caches in the
/// temp directory, so `npm install` and `pip install` work without writing to `$HOME`. A
/// cache the host already points beneath a writable root is kept.
pub fn cache_env(writable: &[PathBuf]) -> Vec<(&'static str, PathBuf)> {
    let base = std::env::temp_dir().join("agent-tools-cache");
    [
        ("npm_config_cache", base.join("npm")),
        ("XDG_CACHE_HOME", base.join("xdg")),
    ]
    .into_iter()
    .filter(|(key, _)| {
        std::env::var_os(key)
            .is_none_or(|v| !writable.iter().any(|root| Path::new(&v).starts_with(root)))
    })
    .collect()
}

impl Policy {
    /// The policy of `config`; `None` when the sandbox is off.
    pub fn of(config: &Config) -> Option<Policy> {
        let mode = config.sandbox.filter(|m| *m != Mode::Off)?;
        let mut writable = Vec::new();
        if mode == Mode::WorkspaceWrite {
            writable.push(config.workspace_root.clone());
            writable.push(std::env::temp_dir());
            writable.extend(config.sandbox_writable_roots.iter().flatten().cloned());
            // Cargo has no variable for its caches alone (`CARGO_HOME` also holds its config
            // and installed binaries): its registry and git checkouts are writable roots.
            let cargo_home = std::env::var_os("CARGO_HOME")
                .map(PathBuf::from)
                .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cargo")));
            if let Some(home) = cargo_home {
                writable.extend(
                    ["registry", "git"]
                        .iter()
                        .map(|d| home.join(d))
                        .filter(|d| d.is_dir()),
                );
            }
        }
        Some(Policy {
            mode,
            network: config.sandbox_network.unwrap_or(false),
            workspace: config.workspace_root.clone(),
            writable,
            mechanism: config.sandbox_mechanism.unwrap_or(Mechanism::Auto),
        })
    }
}

/// Checks that the kernel can enforce `config`'s sandbox and fixes `auto` to the mechanism
/// that will be used (`resolveConfig`). Refused when nothing can confine the file system, or
/// the network rule cannot be enforced.
pub fn resolve(config: &mut Config) -> Result<(), StartupError> {
    let Some(policy) = Policy::of(config) else {
        return Ok(());
    };
    #[cfg(target_os = "linux")]
    {
        let used = linux::prepare(&policy).map_err(StartupError)?.mechanism;
        config.sandbox_network = Some(policy.network);
        config.sandbox_mechanism = Some(used);
        Ok(())
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = policy;
        Err(StartupError(format!(
            "sandbox {:?} is not available on {}: the sandbox needs Linux (Landlock or user namespaces). Turn it off with sandbox: \"off\" (--sandbox off, SANDBOX=off)",
            policy.mode.name(),
            std::env::consts::OS
        )))
    }
}

/// What one sandboxed process needs in the child: the prepared policy and the call's own
/// paths. `None` when the sandbox is off.
#[cfg(target_os = "linux")]
pub type Plan = linux::Plan;

/// A stand-in where there is no sandbox: never built.
#[cfg(not(target_os = "linux"))]
#[derive(Debug)]
pub enum Plan {}

#[cfg(not(target_os = "linux"))]
impl Plan {
    pub fn line(&self) -> &str {
        match *self {}
    }
}

/// [`plan`] for a tool about to start a command: a sandbox that cannot be set up refuses the
/// command (`io_error`) rather than letting it run unconfined. `not_done` says what did not
/// happen ("run", "started").
pub fn plan_or_refuse(
    config: &Config,
    cwd: &Path,
    not_done: &str,
) -> crate::error::ToolResult<Option<std::sync::Arc<Plan>>> {
    plan(config, cwd).map_err(|e| {
        crate::error::ToolError::new(
            crate::error::ErrorCode::IoError,
            format!("the sandbox cannot be set up, so the command was not {not_done}: {e}"),
        )
    })
}

/// The plan for one command of `config` started in `cwd`; `Ok(None)` when the sandbox is off.
pub fn plan(config: &Config, cwd: &Path) -> Result<Option<std::sync::Arc<Plan>>, String> {
    let Some(policy) = Policy::of(config) else {
        return Ok(None);
    };
    #[cfg(target_os = "linux")]
    {
        let prepared = linux::prepare(&policy)?;
        linux::Plan::new(prepared, cwd).map(Some)
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (policy, cwd);
        Err(format!(
            "the sandbox needs Linux; it is not available on {}",
            std::env::consts::OS
        ))
    }
}
