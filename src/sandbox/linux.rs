//! The sandbox on Linux: a [`Policy`] prepared once ([`prepare`]: the Landlock ruleset fd, the
//! seccomp BPF program, the mount plan), then applied in each child between fork and exec
//! ([`Plan::install`]) with raw, async-signal-safe system calls only: nothing in the child
//! allocates or takes a lock.

use std::collections::HashMap;
use std::ffi::CString;
use std::io::{self, Read};
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, LazyLock, Mutex, PoisonError};

use landlock::{
    Access, AccessFs, AccessNet, PathBeneath, PathFd, Ruleset, RulesetAttr, RulesetCreatedAttr,
    Scope, ABI,
};
use nix::libc;
use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule,
};

use super::{cache_env, Mechanism, Mode, Policy};

/// How to turn the sandbox off, for every message that refuses it.
const TURN_OFF: &str =
    "Turn the sandbox off with sandbox: \"off\" (CLI and MCP server: --sandbox off or SANDBOX=off)";

/// A policy made ready for the kernel: built once, shared by every command that runs under it.
pub struct Prepared {
    pub mechanism: Mechanism,
    mode: Mode,
    landlock: Option<OwnedFd>,
    bpf: BpfProgram,
    uid_map: Vec<u8>,
    gid_map: Vec<u8>,
    /// Writable roots, outer ones first (a root inside another is bound after it).
    roots: Vec<CString>,
    workspace: PathBuf,
    env: Vec<(&'static str, PathBuf)>,
    line: String,
    /// The namespaces already set up, by the `.git` paths they protect: a command joins them
    /// (`setns`) instead of building its own.
    namespaces: Mutex<HashMap<Vec<CString>, Arc<Namespaces>>>,
}

/// A user namespace and the mount namespace set up inside it, kept alive by these fds.
struct Namespaces {
    user: OwnedFd,
    mount: OwnedFd,
}

static PREPARED: LazyLock<Mutex<HashMap<Policy, Arc<Prepared>>>> = LazyLock::new(Default::default);

/// The prepared form of `policy`, built (and its mechanism probed) on first use.
pub fn prepare(policy: &Policy) -> Result<Arc<Prepared>, String> {
    let cache = || PREPARED.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(p) = cache().get(policy) {
        return Ok(p.clone());
    }
    let prepared = Arc::new(build(policy)?);
    let mut kept = cache();
    kept.insert(policy.clone(), prepared.clone());
    // The resolved config names the mechanism in use: the same preparation serves it.
    let resolved = Policy {
        mechanism: prepared.mechanism,
        ..policy.clone()
    };
    kept.insert(resolved, prepared.clone());
    Ok(prepared)
}

/// The Landlock ABI version of the running kernel (0: none).
pub fn landlock_abi() -> i32 {
    // SAFETY: LANDLOCK_CREATE_RULESET_VERSION with a null attribute only returns a number.
    let v = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<u8>(),
            0usize,
            1u32,
        )
    };
    v.max(0) as i32
}

fn build(policy: &Policy) -> Result<Prepared, String> {
    // SAFETY: PR_GET_SECCOMP takes no pointer; it fails with EINVAL without seccomp.
    if unsafe { libc::prctl(libc::PR_GET_SECCOMP) } < 0 {
        return Err(format!(
            "sandbox {:?} needs seccomp filters (CONFIG_SECCOMP_FILTER), which this kernel does not offer: without them io_uring and the network cannot be refused. {TURN_OFF}",
            policy.mode.name()
        ));
    }
    let abi = landlock_abi();
    let landlock = if abi >= 1 {
        Some(ruleset(policy, ABI::from(abi)).map_err(|e| format!("Landlock ruleset: {e}"))?)
    } else {
        None
    };
    let bpf =
        program(policy.network, landlock.is_some()).map_err(|e| format!("seccomp program: {e}"))?;
    // SAFETY: geteuid / getegid cannot fail.
    let (uid, gid) = unsafe { (libc::geteuid(), libc::getegid()) };
    let mut writable = policy.writable.clone();
    writable.sort_by_key(|p| p.components().count());
    writable.dedup();
    let roots = writable
        .iter()
        .map(|p| c_path(p))
        .collect::<Result<Vec<_>, _>>()?;
    let mut prepared = Prepared {
        mechanism: policy.mechanism,
        mode: policy.mode,
        landlock,
        bpf,
        uid_map: format!("{uid} {uid} 1\n").into_bytes(),
        gid_map: format!("{gid} {gid} 1\n").into_bytes(),
        roots,
        workspace: policy.workspace.clone(),
        env: if policy.mode == Mode::WorkspaceWrite {
            cache_env(&policy.writable)
        } else {
            Vec::new()
        },
        line: String::new(),
        namespaces: Mutex::default(),
    };
    let no_landlock = "Landlock is not available in this kernel (it needs CONFIG_SECURITY_LANDLOCK and `landlock` in the lsm= boot list)";
    let fallback_reason = match policy.mechanism {
        Mechanism::Landlock => {
            if prepared.landlock.is_none() {
                return Err(format!(
                    "sandboxMechanism \"landlock\": {no_landlock}. {TURN_OFF}"
                ));
            }
            probe(&mut prepared, Mechanism::Landlock)?;
            Some("forced by sandboxMechanism".to_string())
        }
        Mechanism::Namespaces => {
            probe(&mut prepared, Mechanism::Namespaces).map_err(|e| {
                format!("sandboxMechanism \"namespaces\": the kernel refused the namespaces ({e}). Use sandboxMechanism \"auto\" to fall back to Landlock. {TURN_OFF}")
            })?;
            None
        }
        Mechanism::Auto => match probe(&mut prepared, Mechanism::Namespaces) {
            Ok(()) => None,
            Err(why) => {
                if prepared.landlock.is_none() {
                    return Err(format!(
                        "sandbox {:?} cannot be enforced: the kernel refused user and mount namespaces ({why}) and {no_landlock}. {TURN_OFF}",
                        policy.mode.name()
                    ));
                }
                probe(&mut prepared, Mechanism::Landlock)?;
                Some(format!("namespaces refused: {why}"))
            }
        },
    };
    prepared.line = describe(policy, &prepared, fallback_reason.as_deref());
    Ok(prepared)
}

/// The one line every sandboxed result carries.
fn describe(policy: &Policy, p: &Prepared, fallback: Option<&str>) -> String {
    let net = if policy.network {
        "network on"
    } else {
        "network off"
    };
    let walls = match (p.mechanism, p.landlock.is_some()) {
        (Mechanism::Namespaces, true) => "mount namespace + Landlock + seccomp".to_string(),
        (Mechanism::Namespaces, false) => {
            "mount namespace + seccomp; no Landlock in this kernel".to_string()
        }
        _ => format!("Landlock + seccomp only, {}", fallback.unwrap_or("")),
    };
    let scope = match policy.mode {
        Mode::WorkspaceWrite => {
            "writes only beneath the workspace, the temp dir and the writable roots"
        }
        _ => "no writes",
    };
    let mut line = format!(
        "sandbox on: {} ({walls}), {net}; {scope}",
        policy.mode.name()
    );
    if p.mechanism == Mechanism::Landlock {
        line.push_str(match policy.mode {
            Mode::WorkspaceWrite => "; NOT protected: metadata changes outside (touch, chmod, chown, xattrs), .git/hooks and .git/config",
            _ => "; NOT protected: metadata changes (touch, chmod, chown, xattrs)",
        });
    }
    line
}

fn c_path(p: &Path) -> Result<CString, String> {
    CString::new(p.as_os_str().as_bytes()).map_err(|_| format!("{} holds a NUL byte", p.display()))
}

/// The Landlock ruleset: writes handled everywhere and granted beneath the writable roots,
/// `/dev/null` and (in `workspace-write`) the terminals; TCP refused when the network is off;
/// signals scoped to the sandbox.
fn ruleset(policy: &Policy, abi: ABI) -> Result<OwnedFd, String> {
    ruleset_fd(policy, abi)
        .map_err(|e| e.to_string())?
        .ok_or_else(|| "the kernel returned no ruleset".to_string())
}

fn ruleset_fd(policy: &Policy, abi: ABI) -> Result<Option<OwnedFd>, Box<dyn std::error::Error>> {
    let write = AccessFs::from_write(abi);
    // Device nodes are never created, not even in the workspace.
    let in_roots = write & !(AccessFs::MakeChar | AccessFs::MakeBlock);
    let device = (AccessFs::WriteFile | AccessFs::Truncate | AccessFs::IoctlDev) & write;
    let mut rules = Ruleset::default().handle_access(write)?;
    if !policy.network && abi >= ABI::V4 {
        rules = rules.handle_access(AccessNet::from_all(abi))?;
    }
    if abi >= ABI::V6 {
        rules = rules.scope(Scope::Signal)?;
    }
    let mut created = rules.create()?;
    for root in &policy.writable {
        let fd = PathFd::new(root)?;
        created = created.add_rule(PathBeneath::new(fd, in_roots))?;
    }
    let mut devices = vec!["/dev/null"];
    if policy.mode == Mode::WorkspaceWrite {
        devices.extend(["/dev/tty", "/dev/pts", "/dev/ptmx"]);
    }
    for dev in devices {
        if let Ok(fd) = PathFd::new(dev) {
            let access = if Path::new(dev).is_dir() {
                device
            } else {
                device & AccessFs::from_file(abi)
            };
            created = created.add_rule(PathBeneath::new(fd, access))?;
        }
    }
    Ok(created.into())
}

/// The seccomp program: io_uring, the mount calls, kernel-module / kexec / reboot calls, and
/// (as Docker's default profile does) `bpf`, `perf_event_open`, `userfaultfd`, the kernel
/// keyring calls and the calls that change the machine (host name, kernel log, clock,
/// accounting, quotas, I/O ports) are refused (`EPERM`) in every mode: the keyrings a command
/// inherits are the host's, outside any directory rule; so are changes to another process's
/// limits, priority, CPUs, scheduling and memory placement, and `TIOCSTI` / `TIOCLINUX` (typing
/// into the host's terminal); with the network off, sockets other than Unix-domain ones;
/// without Landlock (which scopes them), `ptrace` and `process_vm_*`.
// `c_long` is `i64` here but `i32` on 32-bit targets, and an ioctl request is `c_ulong` on
// glibc but `c_int` on musl: the conversions and casts are kept.
#[allow(clippy::useless_conversion, clippy::unnecessary_cast)]
fn program(network: bool, landlock: bool) -> Result<BpfProgram, seccompiler::BackendError> {
    let mut refused: Vec<libc::c_long> = vec![
        libc::SYS_io_uring_setup,
        libc::SYS_io_uring_enter,
        libc::SYS_io_uring_register,
        libc::SYS_mount,
        libc::SYS_umount2,
        libc::SYS_mount_setattr,
        libc::SYS_move_mount,
        libc::SYS_open_tree,
        libc::SYS_fsopen,
        libc::SYS_fsconfig,
        libc::SYS_fsmount,
        libc::SYS_fspick,
        libc::SYS_pivot_root,
        libc::SYS_init_module,
        libc::SYS_finit_module,
        libc::SYS_delete_module,
        libc::SYS_kexec_load,
        libc::SYS_reboot,
        libc::SYS_swapon,
        libc::SYS_swapoff,
        libc::SYS_bpf,
        libc::SYS_perf_event_open,
        libc::SYS_userfaultfd,
        libc::SYS_add_key,
        libc::SYS_request_key,
        libc::SYS_keyctl,
        // What root may do to the whole machine (Docker's default profile refuses these too):
        // under Landlock alone a command run as root keeps its capabilities.
        libc::SYS_sethostname,
        libc::SYS_setdomainname,
        libc::SYS_syslog,
        libc::SYS_settimeofday,
        libc::SYS_clock_settime,
        libc::SYS_clock_adjtime,
        libc::SYS_adjtimex,
        libc::SYS_acct,
        libc::SYS_vhangup,
        libc::SYS_quotactl,
        libc::SYS_process_madvise,
        #[cfg(target_arch = "x86_64")]
        libc::SYS_iopl,
        #[cfg(target_arch = "x86_64")]
        libc::SYS_ioperm,
    ];
    if !landlock {
        refused.extend([
            libc::SYS_ptrace,
            libc::SYS_process_vm_writev,
            libc::SYS_process_vm_readv,
        ]);
    }
    let mut rules: std::collections::BTreeMap<i64, Vec<SeccompRule>> = refused
        .into_iter()
        .map(|nr| (i64::from(nr), Vec::new()))
        .collect();
    if !network {
        for nr in [libc::SYS_socket, libc::SYS_socketpair] {
            let not_unix = SeccompCondition::new(
                0,
                SeccompCmpArgLen::Dword,
                SeccompCmpOp::Ne,
                libc::AF_UNIX as u64,
            )?;
            rules.insert(i64::from(nr), vec![SeccompRule::new(vec![not_unix])?]);
        }
    }
    // Another process's limits, priority, CPUs, scheduling, I/O class and memory placement:
    // the kernel lets a process change them for any process of its user, and neither Landlock
    // nor the namespaces scope them (a `prlimit --cpu=1` kills). The calling process itself
    // (pid 0) stays free to change its own.
    let ne = |arg: u8, value: u64| {
        SeccompCondition::new(arg, SeccompCmpArgLen::Qword, SeccompCmpOp::Ne, value)
    };
    for nr in [
        libc::SYS_prlimit64,
        libc::SYS_sched_setaffinity,
        libc::SYS_sched_setscheduler,
        libc::SYS_sched_setparam,
        libc::SYS_sched_setattr,
        libc::SYS_migrate_pages,
        libc::SYS_move_pages,
    ] {
        rules.insert(i64::from(nr), vec![SeccompRule::new(vec![ne(0, 0)?])?]);
    }
    // setpriority(which, who, …) and ioprio_set(which, who, …): only the process itself
    // (PRIO_PROCESS / IOPRIO_WHO_PROCESS with who 0).
    const IOPRIO_WHO_PROCESS: u64 = 1;
    for (nr, own) in [
        (libc::SYS_setpriority, libc::PRIO_PROCESS as u64),
        (libc::SYS_ioprio_set, IOPRIO_WHO_PROCESS),
    ] {
        let rules_for = vec![
            SeccompRule::new(vec![SeccompCondition::new(
                0,
                SeccompCmpArgLen::Dword,
                SeccompCmpOp::Ne,
                own,
            )?])?,
            SeccompRule::new(vec![ne(1, 0)?])?,
        ];
        rules.insert(i64::from(nr), rules_for);
    }
    // Typing into the terminal the command shares with its host (TIOCSTI), or into a Linux
    // console (TIOCLINUX), would run text outside the sandbox once the host's shell reads it.
    let ioctl = [libc::TIOCSTI, libc::TIOCLINUX]
        .into_iter()
        .map(|request| {
            SeccompRule::new(vec![SeccompCondition::new(
                1,
                SeccompCmpArgLen::Dword,
                SeccompCmpOp::Eq,
                request as u64,
            )?])
        })
        .collect::<Result<Vec<_>, _>>()?;
    rules.insert(i64::from(libc::SYS_ioctl), ioctl);
    // x32 system calls carry the same numbers with bit 30 set: refuse those as well.
    #[cfg(target_arch = "x86_64")]
    {
        let x32: Vec<(i64, Vec<SeccompRule>)> = rules
            .iter()
            .map(|(nr, r)| (nr | 0x4000_0000, r.clone()))
            .collect();
        rules.extend(x32);
    }
    let arch = std::env::consts::ARCH
        .try_into()
        .map_err(|_| seccompiler::BackendError::InvalidTargetArch(std::env::consts::ARCH.into()))?;
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EPERM as u32),
        arch,
    )?;
    filter.try_into()
}

/// Tries `mechanism` on a child running `sh -c :`; on failure, names the step and the errno.
fn probe(prepared: &mut Prepared, mechanism: Mechanism) -> Result<(), String> {
    prepared.mechanism = mechanism;
    let plan = Plan {
        prepared: Arc::new(snapshot(prepared)),
        protected: Vec::new(),
        cwd: c_path(&prepared.workspace)?,
        extra: None,
        joined: None,
    };
    let (read, write) =
        nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC).map_err(|e| format!("pipe: {e}"))?;
    let raw_write = write.as_raw_fd();
    let mut cmd = Command::new("/bin/sh");
    cmd.arg("-c")
        .arg(":")
        .current_dir(&prepared.workspace)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    let mut fds = vec![-1; plan.prepared.roots.len()];
    // SAFETY: the hook makes only async-signal-safe system calls (see `Plan::apply`), then
    // write and _exit.
    unsafe {
        cmd.pre_exec(move || {
            if let Err((step, errno)) = plan.apply(&mut fds) {
                let report = [step as i32, errno];
                libc::write(
                    raw_write,
                    report.as_ptr().cast(),
                    std::mem::size_of_val(&report),
                );
                libc::_exit(127);
            }
            Ok(())
        });
    }
    let status = cmd.status();
    drop(write);
    drop(cmd);
    let status = status.map_err(|e| format!("could not start /bin/sh: {e}"))?;
    let mut report = [0u8; 8];
    let mut file = std::fs::File::from(read);
    if file.read_exact(&mut report).is_ok() {
        let step = i32::from_ne_bytes(report[..4].try_into().unwrap_or_default());
        let errno = i32::from_ne_bytes(report[4..].try_into().unwrap_or_default());
        return Err(format!(
            "{} failed: {}",
            Step::name(step),
            io::Error::from_raw_os_error(errno)
        ));
    }
    if status.success() {
        Ok(())
    } else {
        Err(format!(
            "a probe command under the sandbox failed ({status})"
        ))
    }
}

/// A copy of a `Prepared` still being built, for a probe.
fn snapshot(p: &Prepared) -> Prepared {
    Prepared {
        mechanism: p.mechanism,
        mode: p.mode,
        landlock: p.landlock.as_ref().and_then(|fd| fd.try_clone().ok()),
        bpf: p.bpf.clone(),
        uid_map: p.uid_map.clone(),
        gid_map: p.gid_map.clone(),
        roots: p.roots.clone(),
        workspace: p.workspace.clone(),
        env: Vec::new(),
        line: String::new(),
        namespaces: Mutex::default(),
    }
}

/// The steps of [`Plan::apply`], named when one fails.
#[derive(Clone, Copy)]
#[repr(i32)]
enum Step {
    Unshare = 1,
    Setgroups,
    UidMap,
    GidMap,
    Private,
    Clone,
    ReadOnly,
    Bind,
    Protect,
    Chdir,
    NoNewPrivs,
    Landlock,
    Seccomp,
    Extra,
}

impl Step {
    fn name(n: i32) -> &'static str {
        match n {
            1 => "unshare(CLONE_NEWUSER | CLONE_NEWNS)",
            2 => "writing /proc/self/setgroups",
            3 => "writing /proc/self/uid_map",
            4 => "writing /proc/self/gid_map",
            5 => "making the mounts private",
            6 => "open_tree of a writable root",
            7 => "mount_setattr(MOUNT_ATTR_RDONLY)",
            8 => "binding a writable root",
            9 => "binding .git/hooks or .git/config read-only",
            10 => "chdir",
            11 => "prctl(PR_SET_NO_NEW_PRIVS)",
            12 => "landlock_restrict_self",
            13 => "installing the seccomp filter",
            _ => "sandbox setup",
        }
    }
}

impl std::fmt::Debug for Plan {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.prepared.line)
    }
}

/// One command's sandbox: the prepared policy plus the call's own paths.
pub struct Plan {
    prepared: Arc<Prepared>,
    /// `.git/hooks` and `.git/config` of the workspace, when they exist (namespaces only),
    /// after `.git` itself: bound onto itself (writable), it cannot be renamed away and
    /// replaced by a copy with writable hooks.
    protected: Vec<CString>,
    /// The command's working directory, entered again once the mounts are in place.
    cwd: CString,
    /// A directory to reopen onto a descriptor once the mounts are in place (a monitor's
    /// store, whose inherited fd would otherwise reach the host's mounts).
    extra: Option<(CString, i32)>,
    /// Namespaces to join instead of building them (`None`: build them in the child).
    joined: Option<Arc<Namespaces>>,
}

const OPEN_TREE_CLONE: libc::c_uint = 1;
const AT_RECURSIVE: libc::c_uint = 0x8000;
const MOUNT_ATTR_RDONLY: u64 = 1;
const MOVE_MOUNT_F_EMPTY_PATH: libc::c_uint = 4;

#[repr(C)]
struct MountAttr {
    attr_set: u64,
    attr_clr: u64,
    propagation: u64,
    userns_fd: u64,
}

const READ_ONLY: MountAttr = MountAttr {
    attr_set: MOUNT_ATTR_RDONLY,
    attr_clr: 0,
    propagation: 0,
    userns_fd: 0,
};

impl Plan {
    pub fn new(prepared: Arc<Prepared>, cwd: &Path) -> Result<Arc<Plan>, String> {
        let mut protected = Vec::new();
        if prepared.mechanism == Mechanism::Namespaces && prepared.mode == Mode::WorkspaceWrite {
            for rel in [".git", ".git/hooks", ".git/config"] {
                let path = prepared.workspace.join(rel);
                if path.symlink_metadata().is_ok() {
                    protected.push(c_path(&path)?);
                }
            }
        }
        let joined = if prepared.mechanism == Mechanism::Namespaces {
            Some(namespaces(&prepared, &protected)?)
        } else {
            None
        };
        Ok(Arc::new(Plan {
            protected,
            cwd: c_path(cwd)?,
            prepared,
            extra: None,
            joined,
        }))
    }

    /// The same plan, also reopening directory `dir` onto descriptor `fd` in the child.
    pub fn with_reopened(&self, dir: &Path, fd: i32) -> Result<Arc<Plan>, String> {
        Ok(Arc::new(Plan {
            prepared: self.prepared.clone(),
            protected: self.protected.clone(),
            cwd: self.cwd.clone(),
            extra: Some((c_path(dir)?, fd)),
            joined: self.joined.clone(),
        }))
    }

    /// The line the result carries.
    pub fn line(&self) -> &str {
        &self.prepared.line
    }

    /// Sets `cmd` up to run sandboxed: the cache variables, and the hook that applies the
    /// sandbox in the child just before exec (after every hook added before this one).
    pub fn install(self: &Arc<Self>, cmd: &mut Command) {
        for (key, value) in &self.prepared.env {
            cmd.env(key, value);
        }
        let plan = self.clone();
        let mut fds = vec![-1; plan.prepared.roots.len()];
        // SAFETY: `apply` makes only async-signal-safe system calls on memory prepared here.
        unsafe {
            cmd.pre_exec(move || {
                plan.apply(&mut fds).map_err(|(step, errno)| {
                    let _ = step;
                    io::Error::from_raw_os_error(errno)
                })
            });
        }
    }

    /// Applies the sandbox to the calling (just forked) process. Async-signal-safe: raw system
    /// calls on prepared memory; `fds` has one slot per writable root.
    fn apply(&self, fds: &mut [libc::c_int]) -> Result<(), (Step, i32)> {
        let p = &*self.prepared;
        let fail = |step: Step| (step, io::Error::last_os_error().raw_os_error().unwrap_or(0));
        // SAFETY: each call gets valid NUL-terminated paths and live buffers; none allocates.
        unsafe {
            if let Some(ns) = &self.joined {
                if libc::setns(ns.user.as_raw_fd(), libc::CLONE_NEWUSER) != 0
                    || libc::setns(ns.mount.as_raw_fd(), libc::CLONE_NEWNS) != 0
                {
                    return Err(fail(Step::Unshare));
                }
            } else if p.mechanism == Mechanism::Namespaces {
                if libc::unshare(libc::CLONE_NEWUSER | libc::CLONE_NEWNS) != 0 {
                    return Err(fail(Step::Unshare));
                }
                write_file(c"/proc/self/setgroups", b"deny").map_err(|_| fail(Step::Setgroups))?;
                write_file(c"/proc/self/uid_map", &p.uid_map).map_err(|_| fail(Step::UidMap))?;
                write_file(c"/proc/self/gid_map", &p.gid_map).map_err(|_| fail(Step::GidMap))?;
                if libc::mount(
                    std::ptr::null(),
                    c"/".as_ptr(),
                    std::ptr::null(),
                    libc::MS_REC | libc::MS_PRIVATE,
                    std::ptr::null(),
                ) != 0
                {
                    return Err(fail(Step::Private));
                }
                // Copies of the writable roots, taken while they are still writable.
                for (slot, root) in fds.iter_mut().zip(&p.roots) {
                    let fd = libc::syscall(
                        libc::SYS_open_tree,
                        libc::AT_FDCWD,
                        root.as_ptr(),
                        OPEN_TREE_CLONE | AT_RECURSIVE | libc::O_CLOEXEC as libc::c_uint,
                    );
                    if fd < 0 {
                        return Err(fail(Step::Clone));
                    }
                    *slot = fd as libc::c_int;
                }
                if libc::syscall(
                    libc::SYS_mount_setattr,
                    libc::AT_FDCWD,
                    c"/".as_ptr(),
                    AT_RECURSIVE,
                    &READ_ONLY as *const MountAttr,
                    std::mem::size_of::<MountAttr>(),
                ) != 0
                {
                    return Err(fail(Step::ReadOnly));
                }
                for (fd, root) in fds.iter().zip(&p.roots) {
                    let moved = libc::syscall(
                        libc::SYS_move_mount,
                        *fd,
                        c"".as_ptr(),
                        libc::AT_FDCWD,
                        root.as_ptr(),
                        MOVE_MOUNT_F_EMPTY_PATH,
                    );
                    libc::close(*fd);
                    if moved != 0 {
                        return Err(fail(Step::Bind));
                    }
                }
                for (i, path) in self.protected.iter().enumerate() {
                    // `.git` (first) stays writable; what is beneath it is made read-only.
                    let git_dir = i == 0 && path.as_bytes().ends_with(b"/.git");
                    let fd = libc::syscall(
                        libc::SYS_open_tree,
                        libc::AT_FDCWD,
                        path.as_ptr(),
                        OPEN_TREE_CLONE | libc::O_CLOEXEC as libc::c_uint,
                    );
                    if fd < 0 {
                        return Err(fail(Step::Protect));
                    }
                    let fd = fd as libc::c_int;
                    let ok = (git_dir
                        || libc::syscall(
                            libc::SYS_mount_setattr,
                            fd,
                            c"".as_ptr(),
                            libc::AT_EMPTY_PATH,
                            &READ_ONLY as *const MountAttr,
                            std::mem::size_of::<MountAttr>(),
                        ) == 0)
                        && libc::syscall(
                            libc::SYS_move_mount,
                            fd,
                            c"".as_ptr(),
                            libc::AT_FDCWD,
                            path.as_ptr(),
                            MOVE_MOUNT_F_EMPTY_PATH,
                        ) == 0;
                    let err = fail(Step::Protect);
                    libc::close(fd);
                    if !ok {
                        return Err(err);
                    }
                }
            }
            if p.mechanism == Mechanism::Namespaces {
                // The working directory still points into the mounts as they were.
                if libc::chdir(self.cwd.as_ptr()) != 0 {
                    return Err(fail(Step::Chdir));
                }
                if let Some((dir, target)) = &self.extra {
                    let fd = libc::open(
                        dir.as_ptr(),
                        libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC,
                    );
                    if fd < 0 || libc::dup2(fd, *target) < 0 {
                        return Err(fail(Step::Extra));
                    }
                    libc::close(fd);
                }
            }
            // Descriptors the host inherited without close-on-exec (its parent's, numbered
            // above Node's own) would reach files outside: all but the one handed on purpose
            // are closed at exec.
            cloexec_above_stdio(super::PASSED_FD);
            if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
                return Err(fail(Step::NoNewPrivs));
            }
            if let Some(fd) = &p.landlock {
                if libc::syscall(libc::SYS_landlock_restrict_self, fd.as_raw_fd(), 0u32) != 0 {
                    return Err(fail(Step::Landlock));
                }
            }
            if seccompiler::apply_filter(&p.bpf).is_err() {
                return Err(fail(Step::Seccomp));
            }
        }
        Ok(())
    }
}

/// Marks every descriptor above 2 but `keep` close-on-exec. Async-signal-safe:
/// `close_range(CLOSE_RANGE_CLOEXEC)` (Linux 5.11), else `fcntl` up to the descriptor limit.
unsafe fn cloexec_above_stdio(keep: libc::c_int) {
    const CLOSE_RANGE_CLOEXEC: libc::c_uint = 1 << 2;
    let ranges = [
        (3, keep as libc::c_uint - 1),
        (keep as libc::c_uint + 1, libc::c_uint::MAX),
    ];
    let ok = ranges.iter().all(|&(first, last)| {
        libc::syscall(libc::SYS_close_range, first, last, CLOSE_RANGE_CLOEXEC) == 0
    });
    if ok {
        return;
    }
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    let top = if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) == 0 {
        limit.rlim_cur.min(1 << 20) as libc::c_int
    } else {
        1024
    };
    for fd in 3..top {
        if fd != keep {
            let flags = libc::fcntl(fd, libc::F_GETFD);
            if flags >= 0 && flags & libc::FD_CLOEXEC == 0 {
                libc::fcntl(fd, libc::F_SETFD, flags | libc::FD_CLOEXEC);
            }
        }
    }
}

/// The namespaces of `prepared` protecting `protected`, set up once: a holder process builds
/// them (the same steps a command would), their fds are opened through `/proc`, and the
/// holder leaves; the fds keep them alive for every later command.
fn namespaces(prepared: &Arc<Prepared>, protected: &[CString]) -> Result<Arc<Namespaces>, String> {
    let mut kept = prepared
        .namespaces
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    if let Some(ns) = kept.get(protected) {
        return Ok(ns.clone());
    }
    let builder = Arc::new(Plan {
        prepared: prepared.clone(),
        protected: protected.to_vec(),
        cwd: c_path(&prepared.workspace)?,
        extra: None,
        joined: None,
    });
    let mut cmd = Command::new(shell_path().to_str().unwrap_or("/bin/sh"));
    cmd.arg("-c")
        .arg("read x")
        .current_dir("/")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    builder.install(&mut cmd);
    let mut holder = cmd
        .spawn()
        .map_err(|e| format!("setting up the sandbox's namespaces: {e}"))?;
    let open = |kind: &str| {
        std::fs::File::open(format!("/proc/{}/ns/{kind}", holder.id())).map(OwnedFd::from)
    };
    let opened = open("user").and_then(|user| Ok((user, open("mnt")?)));
    drop(holder.stdin.take());
    let _ = holder.wait();
    let (user, mount) = opened.map_err(|e| format!("opening the sandbox's namespaces: {e}"))?;
    let ns = Arc::new(Namespaces { user, mount });
    kept.insert(protected.to_vec(), ns.clone());
    Ok(ns)
}

/// A sandboxed `sh -c` started by [`Plan::spawn_shell`]: its pid and the read ends of its
/// stdout and stderr pipes.
pub struct Spawned {
    pub pid: i32,
    pub stdout: OwnedFd,
    pub stderr: OwnedFd,
}

/// What the child of [`Plan::spawn_shell`] reads: everything prepared in the parent.
struct ChildArgs<'a> {
    plan: &'a Plan,
    fds: *mut libc::c_int,
    fds_len: usize,
    program: &'a std::ffi::CStr,
    argv: *const *const libc::c_char,
    envp: *const *const libc::c_char,
    cwd: &'a std::ffi::CStr,
    stdio: [libc::c_int; 3],
    report: libc::c_int,
}

/// `sh` on the host's `PATH`, found once (the child cannot search: it may not allocate).
fn shell_path() -> &'static CString {
    static SH: LazyLock<CString> = LazyLock::new(|| {
        std::env::var_os("PATH")
            .and_then(|path| {
                std::env::split_paths(&path)
                    .map(|d| d.join("sh"))
                    .find(|p| p.is_file())
            })
            .and_then(|p| CString::new(p.as_os_str().as_bytes()).ok())
            .unwrap_or_else(|| c"/bin/sh".to_owned())
    });
    &SH
}

/// The file `shell` names (`sh` as [`shell_path`] finds it; a name on `PATH`; a path); not
/// found is `NotFound`, which the bash tool reports as a shell that is not installed.
fn program_path(shell: &str) -> io::Result<CString> {
    if shell == "sh" {
        return Ok(shell_path().clone());
    }
    let found = if shell.contains('/') {
        Some(std::path::PathBuf::from(shell)).filter(|p| p.is_file())
    } else {
        std::env::var_os("PATH").and_then(|path| {
            std::env::split_paths(&path)
                .map(|d| d.join(shell))
                .find(|p| p.is_file())
        })
    };
    let path = found.ok_or_else(|| io::Error::from(io::ErrorKind::NotFound))?;
    CString::new(path.as_os_str().as_bytes())
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))
}

impl Plan {
    /// Starts `<shell> -c <command>` in `cwd`, sandboxed, as the leader of a new process group,
    /// with stdin on `/dev/null`, `env` added to the host's environment and both output
    /// streams piped.
    ///
    /// The child is made with `clone(CLONE_VM | CLONE_VFORK)`, as `posix_spawn` does, not
    /// with `fork`: copying the page tables of a large host (Node) costs more than the whole
    /// rest of a short command. The child runs on its own stack with every signal blocked
    /// until its handlers are reset, touches only memory prepared here, and makes only raw
    /// system calls before `execve`.
    pub fn spawn_shell(
        &self,
        shell: &str,
        command: &str,
        cwd: &Path,
        env: &[(&str, &str)],
    ) -> io::Result<Spawned> {
        let nul = |e: std::ffi::NulError| io::Error::new(io::ErrorKind::InvalidInput, e);
        let program = program_path(shell)?;
        let argv_c = [
            CString::new(shell).map_err(nul)?,
            c"-c".to_owned(),
            CString::new(command).map_err(nul)?,
        ];
        let mut overridden: Vec<&str> = env.iter().map(|(k, _)| *k).collect();
        overridden.extend(self.prepared.env.iter().map(|(k, _)| *k));
        let mut env_c: Vec<CString> = Vec::new();
        for (key, value) in std::env::vars_os() {
            if overridden.iter().any(|k| key == **k) {
                continue;
            }
            let mut entry = key.as_bytes().to_vec();
            entry.push(b'=');
            entry.extend_from_slice(value.as_bytes());
            if let Ok(c) = CString::new(entry) {
                env_c.push(c);
            }
        }
        for (key, value) in env {
            env_c.push(CString::new(format!("{key}={value}")).map_err(nul)?);
        }
        for (key, value) in &self.prepared.env {
            let mut entry = format!("{key}=").into_bytes();
            entry.extend_from_slice(value.as_os_str().as_bytes());
            env_c.push(CString::new(entry).map_err(nul)?);
        }
        let argv: Vec<*const libc::c_char> = argv_c
            .iter()
            .map(|c| c.as_ptr())
            .chain(std::iter::once(std::ptr::null()))
            .collect();
        let envp: Vec<*const libc::c_char> = env_c
            .iter()
            .map(|c| c.as_ptr())
            .chain(std::iter::once(std::ptr::null()))
            .collect();
        let cwd = c_path(cwd).map_err(io::Error::other)?;
        let null = std::fs::File::open("/dev/null")?;
        let cloexec = nix::fcntl::OFlag::O_CLOEXEC;
        let (out_r, out_w) = nix::unistd::pipe2(cloexec)?;
        let (err_r, err_w) = nix::unistd::pipe2(cloexec)?;
        let (report_r, report_w) = nix::unistd::pipe2(cloexec)?;
        let mut fds = vec![-1; self.prepared.roots.len()];
        let args = ChildArgs {
            plan: self,
            fds: fds.as_mut_ptr(),
            fds_len: fds.len(),
            program: &program,
            argv: argv.as_ptr(),
            envp: envp.as_ptr(),
            cwd: &cwd,
            stdio: [null.as_raw_fd(), out_w.as_raw_fd(), err_w.as_raw_fd()],
            report: report_w.as_raw_fd(),
        };
        const STACK: usize = 256 * 1024;
        let mut stack = vec![0u8; STACK];
        // SAFETY: the top of a live buffer, 16-aligned; the stack grows down.
        let top = unsafe { stack.as_mut_ptr().add(STACK) };
        let top = (top as usize & !15) as *mut libc::c_void;
        // SAFETY: every signal is blocked around the clone, so no handler of the host runs on
        // the child's stack; the child resets the handlers before unblocking. CLONE_VFORK
        // keeps this thread (and so `args`, `stack` and every buffer they point to) waiting
        // until the child has exec'd or exited.
        let pid = unsafe {
            let mut all: libc::sigset_t = std::mem::zeroed();
            let mut old: libc::sigset_t = std::mem::zeroed();
            libc::sigfillset(&mut all);
            libc::pthread_sigmask(libc::SIG_SETMASK, &all, &mut old);
            let pid = libc::clone(
                child_main,
                top,
                libc::CLONE_VM | libc::CLONE_VFORK | libc::SIGCHLD,
                &args as *const ChildArgs as *mut libc::c_void,
            );
            let err = io::Error::last_os_error();
            libc::pthread_sigmask(libc::SIG_SETMASK, &old, std::ptr::null_mut());
            if pid < 0 {
                return Err(err);
            }
            pid
        };
        drop((out_w, err_w, report_w, null));
        let mut report = [0u8; 8];
        let mut file = std::fs::File::from(report_r);
        if file.read_exact(&mut report).is_ok() {
            // SAFETY: reaping the child that failed before exec.
            unsafe { libc::waitpid(pid, std::ptr::null_mut(), 0) };
            let step = i32::from_ne_bytes([report[0], report[1], report[2], report[3]]);
            let errno = i32::from_ne_bytes([report[4], report[5], report[6], report[7]]);
            let e = io::Error::from_raw_os_error(errno);
            return Err(io::Error::new(
                e.kind(),
                format!("{} failed: {e}", Step::name(step)),
            ));
        }
        drop((stack, fds, argv, envp, argv_c, env_c));
        Ok(Spawned {
            pid,
            stdout: out_r,
            stderr: err_r,
        })
    }
}

/// The child of [`Plan::spawn_shell`]: signal handlers reset, stdio, process group, working
/// directory, the sandbox, `execve`. Reports `[step, errno]` on the report pipe on failure.
extern "C" fn child_main(arg: *mut libc::c_void) -> libc::c_int {
    // SAFETY: `arg` is the parent's `ChildArgs`, alive while the parent waits (CLONE_VFORK).
    unsafe {
        let a = &*(arg as *const ChildArgs);
        let fail = |step: i32| -> libc::c_int {
            let report = [step, *libc::__errno_location()];
            libc::write(a.report, report.as_ptr().cast(), 8);
            libc::_exit(127)
        };
        // The host's handlers must not run here (they would run on shared memory), and its
        // ignored SIGPIPE must not reach the command.
        let mut act: libc::sigaction = std::mem::zeroed();
        for sig in 1..libc::SIGRTMAX() {
            if libc::sigaction(sig, std::ptr::null(), &mut act) == 0
                && (act.sa_sigaction != libc::SIG_IGN || sig == libc::SIGPIPE)
                && act.sa_sigaction != libc::SIG_DFL
            {
                act.sa_sigaction = libc::SIG_DFL;
                libc::sigaction(sig, &act, std::ptr::null_mut());
            }
        }
        let mut none: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut none);
        libc::sigprocmask(libc::SIG_SETMASK, &none, std::ptr::null_mut());
        for (target, fd) in a.stdio.iter().enumerate() {
            if libc::dup2(*fd, target as libc::c_int) < 0 {
                return fail(0);
            }
        }
        if libc::setpgid(0, 0) != 0 || libc::chdir(a.cwd.as_ptr()) != 0 {
            return fail(Step::Chdir as i32);
        }
        let fds = std::slice::from_raw_parts_mut(a.fds, a.fds_len);
        if let Err((step, errno)) = a.plan.apply(fds) {
            *libc::__errno_location() = errno;
            return fail(step as i32);
        }
        libc::execve(a.program.as_ptr(), a.argv, a.envp);
        fail(0)
    }
}

/// `open` + `write` + `close`: async-signal-safe.
unsafe fn write_file(path: &std::ffi::CStr, bytes: &[u8]) -> Result<(), ()> {
    let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
    if fd < 0 {
        return Err(());
    }
    let n = libc::write(fd, bytes.as_ptr().cast(), bytes.len());
    libc::close(fd);
    if n == bytes.len() as isize {
        Ok(())
    } else {
        Err(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{with_defaults, Config, Options};
    use crate::shell::{self, Request};
    use std::time::Duration;

    /// A workspace and an outside directory, both outside the temp dir (which is writable).
    fn dirs() -> (tempfile::TempDir, tempfile::TempDir) {
        let base = Path::new("/var/tmp");
        (
            tempfile::Builder::new()
                .prefix("sbx-ws")
                .tempdir_in(base)
                .unwrap(),
            tempfile::Builder::new()
                .prefix("sbx-out")
                .tempdir_in(base)
                .unwrap(),
        )
    }

    fn config(ws: &Path, mode: Mode, mechanism: Mechanism, network: bool) -> Config {
        let mut c = with_defaults(Options {
            workspace_root: Some(ws.to_str().unwrap().into()),
            sandbox: Some(mode),
            sandbox_network: Some(network),
            sandbox_mechanism: Some(mechanism),
            ..Options::default()
        })
        .unwrap();
        super::super::resolve(&mut c).unwrap();
        c
    }

    fn sh(c: &Config, command: &str) -> (i32, String) {
        let plan = super::super::plan(c, &c.workspace_root).unwrap();
        let cap = shell::run(&Request {
            shell: "sh",
            command,
            cwd: &c.workspace_root,
            timeout: Duration::from_secs(20),
            ceiling: 1 << 20,
            cancel: Default::default(),
            progress: Default::default(),
            sandbox: plan,
        })
        .unwrap();
        let code = match cap.end {
            shell::End::Exited { code, .. } => code,
            other => panic!("{other:?}"),
        };
        let text = String::from_utf8_lossy(&cap.stdout).to_string()
            + &String::from_utf8_lossy(&cap.stderr);
        (code, text)
    }

    #[test]
    fn workspace_write_confines_writes_in_both_mechanisms() {
        let _turn = shell::tests::serial();
        for mechanism in [Mechanism::Namespaces, Mechanism::Landlock] {
            let (ws, out) = dirs();
            std::fs::create_dir_all(ws.path().join(".git/hooks")).unwrap();
            std::fs::write(out.path().join("f"), "keep").unwrap();
            let c = config(ws.path(), Mode::WorkspaceWrite, mechanism, false);
            assert_eq!(c.sandbox_mechanism, Some(mechanism));
            let o = out.path().display();
            let (code, text) = sh(
                &c,
                "echo hi > in.txt && echo t > $(dirname $(mktemp))/sbx-tmp-probe && cat in.txt",
            );
            assert_eq!((code, text.as_str()), (0, "hi\n"), "{mechanism:?}");
            let (code, text) = sh(&c, &format!("echo x > {o}/f"));
            assert_ne!(code, 0, "{mechanism:?} {text}");
            let (code, _) = sh(&c, &format!("touch {o}/new; rm -f {o}/f; ln in.txt {o}/hard; ln -s /etc/passwd {o}/sym; mkdir {o}/d; cp in.txt {o}/; true"));
            assert_eq!(code, 0);
            let mut names: Vec<_> = std::fs::read_dir(out.path())
                .unwrap()
                .map(|e| e.unwrap().file_name())
                .collect();
            names.sort();
            assert_eq!(names, vec![std::ffi::OsString::from("f")], "{mechanism:?}");
            assert_eq!(std::fs::read(out.path().join("f")).unwrap(), b"keep");
            let (code, _) = sh(&c, &format!("chmod 600 {o}/f"));
            let mode = std::os::unix::fs::PermissionsExt::mode(
                &std::fs::metadata(out.path().join("f"))
                    .unwrap()
                    .permissions(),
            ) & 0o777;
            let hooks = sh(&c, "echo x > .git/hooks/pre-commit").0;
            if mechanism == Mechanism::Namespaces {
                assert_ne!(code, 0);
                assert_ne!(mode, 0o600);
                assert_ne!(hooks, 0);
                assert!(!ws.path().join(".git/hooks/pre-commit").exists());
            } else {
                // Landlock cannot refuse metadata changes nor keep .git/hooks read-only: the
                // line says so.
                assert!(prepare(&Policy::of(&c).unwrap())
                    .unwrap()
                    .line
                    .contains("NOT protected"));
            }
            let (code, text) = sh(&c, "python3 -c 'import socket; socket.socket()' 2>&1");
            assert_ne!(code, 0, "{text}");
        }
    }
}
