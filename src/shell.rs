//! Running one shell command so that it can never hang the caller, flood its memory, or
//! outlive the host process.
//!
//! - The command runs as `sh -c <command>` with stdin closed, in a process group of its own
//!   (the shell is the group leader), tagged with the environment variable [`MARK_VAR`] whose
//!   value names this host process and this call.
//! - Both pipes are drained together with `poll(2)` (non-blocking reads) until the shell has
//!   exited and both pipes are closed, or the deadline passes. A background child holding the
//!   pipes cannot hold the call: once the shell has exited, draining goes on for at most
//!   [`DRAIN_AFTER_EXIT`]; pipes still open then are handed to a thread that reads and
//!   discards whatever the background processes write later (so they do not die of `SIGPIPE`).
//! - At the deadline the whole group is killed with `SIGKILL`, and so is every process still
//!   carrying this call's mark (a daemon that left the group with `setsid`).
//! - A stream passing the capture ceiling gets the group killed the same way.
//! - Every group that may still have members is kept in a registry; [`kill_all`] (run when the
//!   host process exits) kills those groups and every process carrying this host's mark.
//! - A host that dies without running its exit handlers (`SIGKILL`, `SIGTERM`, Ctrl-C) is
//!   covered by a watchdog: a small `sh` started with the first command, in its own process
//!   group, told through a pipe of each group that outlives [`ANNOUNCE_AFTER`]. When the host
//!   dies the pipe closes and the watchdog kills those groups and every process carrying the
//!   host's mark (which also covers a group too young to have been told of).
//!
//! Unix only; elsewhere [`run`] returns an `Unsupported` I/O error.

use std::io;
use std::path::Path;
use std::time::Duration;

/// The environment variable every command runs with: `<host token>.<call number>`.
pub const MARK_VAR: &str = "AGENT_TOOLS_NATIVE_CALL";
/// How long output is still collected after the shell exits while a background process keeps
/// a pipe open.
pub const DRAIN_AFTER_EXIT: Duration = Duration::from_millis(100);

/// One command to run.
#[derive(Debug, Clone)]
pub struct Request<'a> {
    /// The shell, run as `<shell> -c <command>`: `sh` unless the caller chose another.
    pub shell: &'a str,
    pub command: &'a str,
    pub cwd: &'a Path,
    pub timeout: Duration,
    /// Bytes kept per stream; a stream producing more gets the command killed.
    pub ceiling: usize,
    /// Raised when the caller aborts: the group is killed as at the deadline.
    pub cancel: crate::call::Cancel,
    /// Where the latest output is shown to a watching host.
    pub progress: crate::call::Progress,
    /// The sandbox the command (and everything it starts) runs in; `None`: none.
    pub sandbox: Option<std::sync::Arc<crate::sandbox::Plan>>,
}

/// How the command ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    /// The shell exited on its own: its exit code, or the signal that killed it.
    Exited { code: i32, signal: Option<i32> },
    /// The deadline passed; the group was killed.
    TimedOut,
    /// One stream passed the ceiling; the group was killed.
    OverLimit { stream: Stream },
    /// The caller aborted the call; the group was killed.
    Aborted,
}

/// Which output stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stream {
    Stdout,
    Stderr,
}

impl Stream {
    pub fn name(self) -> &'static str {
        match self {
            Stream::Stdout => "stdout",
            Stream::Stderr => "stderr",
        }
    }
}

/// What a run produced: how it ended, the captured bytes (at most `ceiling` each), and the
/// processes of its group still running after the shell exited.
#[derive(Debug, Clone)]
pub struct Capture {
    pub end: End,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub background: Vec<u32>,
}

/// The name of signal `signo` (`SIGKILL`), or `SIG<n>` for one this platform does not name.
pub fn signal_name(signo: i32) -> String {
    #[cfg(unix)]
    if let Ok(sig) = nix::sys::signal::Signal::try_from(signo) {
        return sig.as_str().to_string();
    }
    format!("SIG{signo}")
}

/// Runs `req` to its end. Fails only when the shell cannot be started.
pub fn run(req: &Request<'_>) -> io::Result<Capture> {
    #[cfg(unix)]
    return unix::run(req);
    #[cfg(not(unix))]
    {
        let _ = req;
        Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "the bash tool needs a Unix system (sh, process groups)",
        ))
    }
}

/// Live (non-zombie) members of process group `pgid` (Linux `/proc`; empty elsewhere).
pub fn group_members(pgid: i32) -> Vec<u32> {
    #[cfg(unix)]
    return unix::members(pgid);
    #[cfg(not(unix))]
    {
        let _ = pgid;
        Vec::new()
    }
}

/// Kills every process group this host started that may still have members, and every
/// process carrying this host's mark. Called when the host process exits; safe to call at
/// any time and more than once.
pub fn kill_all() {
    #[cfg(unix)]
    unix::kill_all();
}

#[cfg(unix)]
mod unix {
    use std::collections::BTreeMap;
    use std::ffi::OsString;
    use std::fs;
    use std::io::{self, Read, Write};
    #[cfg(target_os = "linux")]
    use std::os::fd::FromRawFd;
    use std::os::fd::{AsFd, AsRawFd, OwnedFd};
    use std::os::unix::process::{CommandExt, ExitStatusExt};
    use std::path::{Path, PathBuf};
    use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::{LazyLock, Mutex};
    use std::time::{Duration, Instant};

    use nix::errno::Errno;
    use nix::fcntl::{fcntl, FcntlArg, OFlag};
    use nix::libc;
    use nix::poll::{poll, PollFd, PollFlags, PollTimeout};
    use nix::sys::signal::{kill, killpg, Signal};
    use nix::unistd::Pid;

    use super::{Capture, End, Request, Stream, DRAIN_AFTER_EXIT, MARK_VAR};

    /// Read size; grows the pipe to [`BIG_PIPE`] once a stream proves chatty.
    const CHUNK: usize = 64 * 1024;
    const BIG_PIPE: i32 = 1 << 20;
    /// Full reads taken per wake-up before the deadline is looked at again.
    const READS_PER_WAKE: usize = 16;
    /// Polling slice used only when the kernel offers no pidfd to wait on.
    const SLICE: Duration = Duration::from_millis(10);
    /// How often a cancellable call looks at its cancel flag while it waits.
    const CANCEL_SLICE: Duration = Duration::from_millis(20);

    /// `<pid>-<nanos>`: unique to this host process.
    static HOST: LazyLock<String> = LazyLock::new(|| {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        format!("{:x}-{nanos:x}", std::process::id())
    });
    static CALLS: AtomicU64 = AtomicU64::new(0);
    /// How long a group runs before the watchdog is told of it. A command that ends sooner
    /// (most do) costs the watchdog nothing; one that dies with the host before then is still
    /// found by its mark.
    const ANNOUNCE_AFTER: Duration = Duration::from_millis(10);
    /// Process groups that may still have members; those announced are mirrored to the
    /// watchdog.
    static REGISTRY: LazyLock<Mutex<Registry>> = LazyLock::new(|| Mutex::new(Registry::default()));

    fn registry() -> std::sync::MutexGuard<'static, Registry> {
        REGISTRY.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The watchdog's script. Reads `+<pgid>` / `-<pgid>` lines; `x` means the host cleaned up
    /// itself and the watchdog may leave. At end of input (the host died) it kills every group
    /// still listed and every process whose environment holds the host mark (`$1`).
    const WATCHDOG: &str = r#"trap '' INT HUP TERM QUIT PIPE
gs=
while IFS= read -r l; do
  case $l in
    x) exit 0 ;;
    +*) gs="$gs ${l#+}" ;;
    -*) n=; for g in $gs; do [ "$g" = "${l#-}" ] || n="$n $g"; done; gs=$n ;;
  esac
done
for g in $gs; do kill -9 -"$g" 2>/dev/null; done
for f in /proc/[0-9]*/environ; do
  if grep -qzF "$1" "$f" 2>/dev/null; then p=${f#/proc/}; kill -9 "${p%/environ}" 2>/dev/null; fi
done
"#;

    #[derive(Default)]
    struct Registry {
        /// Each group, and whether the watchdog has been told of it.
        groups: BTreeMap<i32, bool>,
        watchdog: Option<(Child, ChildStdin)>,
    }

    impl Registry {
        /// Registers a new group; the watchdog hears of it once it is [`announce`]d.
        fn add(&mut self, pgid: i32) {
            self.groups.insert(pgid, false);
            // The watchdog starts with the first command, with nothing to tell yet (it must
            // be there to find marked processes should the host die).
            if self.watchdog.is_none() {
                self.tell("");
            }
        }

        /// Tells the watchdog of a registered group (once).
        fn announce(&mut self, pgid: i32) {
            if let Some(told) = self.groups.get_mut(&pgid) {
                if !*told {
                    *told = true;
                    #[cfg(test)]
                    ANNOUNCED.lock().unwrap().push(pgid);
                    self.tell(&format!("+{pgid}\n"));
                }
            }
        }

        fn remove(&mut self, pgid: i32) {
            if self.groups.remove(&pgid) == Some(true) {
                self.tell(&format!("-{pgid}\n"));
            }
        }

        /// Forgets groups that have emptied.
        fn prune(&mut self) {
            let gone: Vec<i32> = self
                .groups
                .keys()
                .copied()
                .filter(|&g| !group_alive(g))
                .collect();
            for g in gone {
                self.remove(g);
            }
        }

        /// Sends one line to the watchdog, (re)starting it — and replaying every group — when
        /// there is none or it has died. Best effort: without a watchdog, only the host's exit
        /// hook cleans up.
        fn tell(&mut self, line: &str) {
            if let Some((_, stdin)) = &mut self.watchdog {
                match stdin.write_all(line.as_bytes()) {
                    // A watchdog that stopped reading (stopped by a signal, say) must not
                    // block every call: the write end is non-blocking and the line is dropped.
                    Ok(()) => return,
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => return,
                    Err(_) => {}
                }
                if let Some((mut child, stdin)) = self.watchdog.take() {
                    // Killed before its pipe closes: end of input would make it clean up.
                    let _ = child.kill();
                    let _ = child.wait();
                    drop(stdin);
                }
            }
            let Ok(mut child) = Command::new("sh")
                .arg("-c")
                .arg(WATCHDOG)
                .arg("agent-tools-native-watchdog")
                .arg(host_mark())
                .env_clear()
                .env(
                    "PATH",
                    std::env::var_os("PATH").unwrap_or_else(|| "/usr/bin:/bin".into()),
                )
                .current_dir("/")
                .stdin(Stdio::piped())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .process_group(0)
                .spawn()
            else {
                return;
            };
            let Some(mut stdin) = child.stdin.take() else {
                return;
            };
            let _ = fcntl(&stdin, FcntlArg::F_SETFL(OFlag::O_NONBLOCK));
            let replay: String = self
                .groups
                .iter()
                .filter(|(_, &told)| told)
                .map(|(g, _)| format!("+{g}\n"))
                .collect();
            if stdin.write_all(replay.as_bytes()).is_ok() {
                self.watchdog = Some((child, stdin));
            } else {
                let _ = child.kill();
                let _ = child.wait();
            }
        }
    }

    /// Every group announced to the watchdog, in order (tests look at it).
    #[cfg(test)]
    pub static ANNOUNCED: Mutex<Vec<i32>> = Mutex::new(Vec::new());

    fn group_alive(pgid: i32) -> bool {
        killpg(Pid::from_raw(pgid), None) != Err(Errno::ESRCH)
    }

    pub fn kill_all() {
        let mut reg = registry();
        for pgid in std::mem::take(&mut reg.groups).into_keys() {
            let _ = killpg(Pid::from_raw(pgid), Signal::SIGKILL);
        }
        // Marks are handed out only by `run` (one per call): a process that never ran a
        // command (a one-shot CLI `glob`) has none to look for, and skips reading the
        // environment of every process on the machine as it exits.
        if CALLS.load(Ordering::Relaxed) > 0 {
            kill_marked(&host_mark(), true);
        }
        // Everything is dead: the watchdog may leave without scanning.
        if let Some((mut child, mut stdin)) = reg.watchdog.take() {
            let _ = stdin.write_all(b"x\n");
            drop(stdin);
            let _ = child.try_wait();
        }
    }

    /// `AGENT_TOOLS_NATIVE_CALL=<host>.`: the start of every mark this host hands out.
    pub fn host_mark() -> String {
        format!("{MARK_VAR}={}.", *HOST)
    }

    /// Kills every process whose initial environment holds `entry` (as a whole entry, or as
    /// its prefix when `prefix`). Linux only (`/proc`); a no-op elsewhere.
    fn kill_marked(entry: &str, prefix: bool) {
        let Ok(procs) = fs::read_dir("/proc") else {
            return;
        };
        let me = std::process::id();
        for p in procs.flatten() {
            let Some(pid) = p.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else {
                continue;
            };
            if pid == me {
                continue;
            }
            let Ok(environ) = fs::read(p.path().join("environ")) else {
                continue;
            };
            let hit = environ.split(|&b| b == 0).any(|e| {
                if prefix {
                    e.starts_with(entry.as_bytes())
                } else {
                    e == entry.as_bytes()
                }
            });
            if hit {
                let _ = kill(Pid::from_raw(pid as i32), Signal::SIGKILL);
            }
        }
    }

    /// Live (non-zombie) members of process group `pgid`, read from `/proc`.
    pub(super) fn members(pgid: i32) -> Vec<u32> {
        let Ok(procs) = fs::read_dir("/proc") else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for p in procs.flatten() {
            let Some(pid) = p.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else {
                continue;
            };
            let Ok(stat) = fs::read_to_string(p.path().join("stat")) else {
                continue;
            };
            // `pid (comm) state ppid pgrp ...`; comm may hold spaces and parentheses.
            let Some(rest) = stat.rfind(')').map(|i| &stat[i + 1..]) else {
                continue;
            };
            let mut fields = rest.split_whitespace();
            let state = fields.next();
            let pgrp = fields.nth(1).and_then(|s| s.parse::<i32>().ok());
            if pgrp == Some(pgid) && state != Some("Z") && state != Some("X") {
                out.push(pid);
            }
        }
        out.sort_unstable();
        out
    }

    /// One output pipe being drained.
    struct Pipe {
        fd: Option<OwnedFd>,
        buf: Vec<u8>,
        grown: bool,
    }

    enum Got {
        /// Read what was there; the pipe is still open.
        Open,
        Eof,
        /// The stream passed the ceiling.
        Over,
    }

    impl Pipe {
        fn new(fd: OwnedFd) -> io::Result<Pipe> {
            let flags = OFlag::from_bits_truncate(fcntl(&fd, FcntlArg::F_GETFL)?);
            fcntl(&fd, FcntlArg::F_SETFL(flags | OFlag::O_NONBLOCK))?;
            Ok(Pipe {
                fd: Some(fd),
                buf: Vec::new(),
                grown: false,
            })
        }

        /// Reads everything available without blocking, keeping at most `ceiling` bytes.
        fn read_available(&mut self, ceiling: usize) -> Got {
            let Some(fd) = &self.fd else { return Got::Eof };
            let raw = fd.as_raw_fd();
            // A producer faster than us keeps every read full: come back to the caller now and
            // then so it can check the deadline.
            for _ in 0..READS_PER_WAKE {
                // One byte past the ceiling is enough to know it was passed.
                let room = (ceiling + 1).saturating_sub(self.buf.len());
                if room == 0 {
                    self.buf.truncate(ceiling);
                    return Got::Over;
                }
                let want = room.min(if self.grown { BIG_PIPE as usize } else { CHUNK });
                self.buf.reserve(want);
                let spare = self.buf.spare_capacity_mut();
                // SAFETY: `spare` is writable memory of at least `want` bytes owned by `buf`;
                // `read` initializes the first `n` of them, which are then committed.
                let n = unsafe { libc::read(raw, spare.as_mut_ptr().cast(), want) };
                if n > 0 {
                    let n = n as usize;
                    // SAFETY: the kernel wrote `n <= want` bytes into the spare capacity.
                    unsafe { self.buf.set_len(self.buf.len() + n) };
                    if n < want {
                        // The pipe is very likely empty now: skip the read that would say so.
                        return Got::Open;
                    }
                    if !self.grown {
                        // A chatty stream: a bigger pipe means fewer wake-ups.
                        self.grown = true;
                        let _ = grow_pipe(fd);
                    }
                    continue;
                }
                if n == 0 {
                    self.fd = None;
                    return Got::Eof;
                }
                match Errno::last() {
                    Errno::EINTR => continue,
                    Errno::EAGAIN => return Got::Open,
                    _ => {
                        self.fd = None;
                        return Got::Eof;
                    }
                }
            }
            Got::Open
        }
    }

    #[cfg(any(target_os = "linux", target_os = "android"))]
    fn grow_pipe(fd: &OwnedFd) -> nix::Result<i32> {
        fcntl(fd, FcntlArg::F_SETPIPE_SZ(BIG_PIPE))
    }

    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    fn grow_pipe(_fd: &OwnedFd) -> nix::Result<i32> {
        Ok(0)
    }

    /// A descriptor that becomes readable when the process exits (Linux ≥ 5.3).
    #[cfg(target_os = "linux")]
    fn pidfd(pid: u32) -> Option<OwnedFd> {
        // SAFETY: pidfd_open takes a pid and flags and returns a new descriptor or -1.
        let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid as libc::pid_t, 0) };
        // SAFETY: a non-negative result is a fresh descriptor that nothing else owns.
        (fd >= 0).then(|| unsafe { OwnedFd::from_raw_fd(fd as i32) })
    }

    #[cfg(not(target_os = "linux"))]
    fn pidfd(_pid: u32) -> Option<OwnedFd> {
        None
    }

    /// The shell's process: one the standard library started, or a sandboxed one started
    /// directly (see `sandbox::linux::Plan::spawn_shell`).
    enum Proc {
        Std(Child),
        #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
        Raw {
            pid: i32,
            status: Option<ExitStatus>,
        },
    }

    impl Proc {
        fn id(&self) -> u32 {
            match self {
                Proc::Std(c) => c.id(),
                Proc::Raw { pid, .. } => *pid as u32,
            }
        }

        fn kill(&mut self) -> io::Result<()> {
            match self {
                Proc::Std(c) => c.kill(),
                Proc::Raw { pid, status: None } => {
                    kill(Pid::from_raw(*pid), Signal::SIGKILL).map_err(io::Error::from)
                }
                Proc::Raw { .. } => Ok(()),
            }
        }

        fn wait_raw(pid: i32, status: &mut Option<ExitStatus>, flags: i32) -> io::Result<()> {
            if status.is_some() {
                return Ok(());
            }
            let mut raw = 0;
            loop {
                // SAFETY: waits for our own child; `raw` is a live out-parameter.
                let r = unsafe { libc::waitpid(pid, &mut raw, flags) };
                if r == pid {
                    *status = Some(ExitStatus::from_raw(raw));
                    return Ok(());
                }
                if r == 0 {
                    return Ok(());
                }
                let e = io::Error::last_os_error();
                if e.kind() != io::ErrorKind::Interrupted {
                    return Err(e);
                }
            }
        }

        fn try_wait(&mut self) -> io::Result<Option<ExitStatus>> {
            match self {
                Proc::Std(c) => c.try_wait(),
                Proc::Raw { pid, status } => {
                    Self::wait_raw(*pid, status, libc::WNOHANG)?;
                    Ok(*status)
                }
            }
        }

        fn wait(&mut self) -> io::Result<ExitStatus> {
            match self {
                Proc::Std(c) => c.wait(),
                Proc::Raw { pid, status } => {
                    Self::wait_raw(*pid, status, 0)?;
                    status.ok_or_else(|| io::Error::other("no exit status"))
                }
            }
        }
    }

    /// The file a bare program name (`sh`) runs, found on `PATH` as `execvp` finds it (the
    /// first executable regular file) and remembered for that `PATH` value: the child then
    /// execs it at once instead of failing through every directory before it (eight `execve`
    /// calls on this machine's `PATH`, 2 % of a `true` call). `None` for a name with a `/`, no
    /// `PATH`, a relative or empty entry before the match (those name the working directory,
    /// so exec searches itself), or no match.
    pub(super) fn located(program: &str) -> Option<PathBuf> {
        if program.contains('/') {
            return None;
        }
        let path = std::env::var_os("PATH")?;
        let mut found = LOCATED.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((p, name, file)) = &*found {
            if *p == path && name == program {
                return Some(file.clone());
            }
        }
        for dir in std::env::split_paths(&path) {
            if !dir.is_absolute() {
                return None;
            }
            let file = dir.join(program);
            let runnable = nix::unistd::access(&file, nix::unistd::AccessFlags::X_OK).is_ok()
                && file.is_file();
            if runnable {
                *found = Some((path, program.to_string(), file.clone()));
                return Some(file);
            }
        }
        None
    }

    /// The last program [`located`] found: `(PATH, name, file)`.
    static LOCATED: Mutex<Option<(OsString, String, PathBuf)>> = Mutex::new(None);

    /// Forgets the remembered file (it is gone: the next call searches again).
    fn forget_located() {
        *LOCATED.lock().unwrap_or_else(|p| p.into_inner()) = None;
    }

    /// Starts the shell: its process and the read ends of its stdout and stderr.
    fn spawn(
        req: &Request<'_>,
        mark: &str,
    ) -> io::Result<(Proc, Option<OwnedFd>, Option<OwnedFd>)> {
        #[cfg(target_os = "linux")]
        if let Some(plan) = &req.sandbox {
            let s = plan.spawn_shell(req.shell, req.command, req.cwd, &[(MARK_VAR, mark)])?;
            let proc = Proc::Raw {
                pid: s.pid,
                status: None,
            };
            return Ok((proc, Some(s.stdout), Some(s.stderr)));
        }
        let command = |program: &Path| {
            let mut cmd = Command::new(program);
            cmd.arg0(req.shell)
                .arg("-c")
                .arg(req.command)
                .current_dir(req.cwd)
                .env(MARK_VAR, mark)
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .process_group(0);
            cmd
        };
        // No `pre_exec` hook (such as `PR_SET_PDEATHSIG`): without one the standard library
        // spawns with posix_spawn (vfork-like) instead of fork, which saves about a millisecond
        // per call in a large host; host death is covered by the watchdog instead.
        let mut child = match located(req.shell) {
            Some(file) => match command(&file).spawn() {
                Ok(child) => child,
                Err(e) if e.kind() == io::ErrorKind::NotFound => {
                    forget_located();
                    command(Path::new(req.shell)).spawn()?
                }
                Err(e) => return Err(e),
            },
            None => command(Path::new(req.shell)).spawn()?,
        };
        let out = child.stdout.take().map(OwnedFd::from);
        let err = child.stderr.take().map(OwnedFd::from);
        Ok((Proc::Std(child), out, err))
    }

    pub fn run(req: &Request<'_>) -> io::Result<Capture> {
        let started = Instant::now();
        // A caller-built config may allow absurd timeouts; a year is forever enough and cannot
        // overflow the clock.
        let deadline = started + req.timeout.min(Duration::from_secs(365 * 24 * 3600));
        registry().prune();
        let mark = format!("{}.{}", *HOST, CALLS.fetch_add(1, Ordering::Relaxed));
        let (mut child, out, err) = spawn(req, &mark)?;
        let pgid = child.id() as i32;
        registry().add(pgid);
        let mut announce_at = Some(started + ANNOUNCE_AFTER);
        let kill_group = |child: &mut Proc| {
            let _ = killpg(Pid::from_raw(pgid), Signal::SIGKILL);
            let _ = child.kill();
        };
        let pipes = [out, err].map(|p| p.map(Pipe::new).transpose());
        let [out, err] = match pipes {
            [Ok(Some(out)), Ok(Some(err))] => [out, err],
            [a, b] => {
                kill_group(&mut child);
                let _ = child.wait();
                let e = a
                    .err()
                    .or(b.err())
                    .unwrap_or_else(|| io::Error::other("no pipes"));
                return Err(e);
            }
        };
        let mut pipes = [out, err];
        let exit_fd = pidfd(child.id());
        let mut status: Option<ExitStatus> = None;
        let mut drain_until: Option<Instant> = None;
        let mut end: Option<End> = None;

        // Whether the shell may have exited: always without a pidfd, else once it fires.
        let mut exit_signaled = exit_fd.is_none();
        while end.is_none() {
            if status.is_none() && exit_signaled {
                status = match child.try_wait() {
                    Ok(status) => status,
                    Err(e) => {
                        kill_group(&mut child);
                        let _ = child.wait();
                        return Err(e);
                    }
                };
                if status.is_some() {
                    drain_until = Some(Instant::now() + DRAIN_AFTER_EXIT);
                }
            }
            let open = pipes.iter().any(|p| p.fd.is_some());
            if status.is_some() && !open {
                break;
            }
            let now = Instant::now();
            // A shell that exited in time is not a timeout, even if a background child still
            // holds its pipes when the deadline comes during the drain.
            if drain_until.is_some_and(|t| now >= t) || (status.is_some() && now >= deadline) {
                break;
            }
            if now >= deadline {
                end = Some(End::TimedOut);
                break;
            }
            if req.cancel.is_cancelled() {
                end = Some(End::Aborted);
                break;
            }
            let mut wake = drain_until.map_or(deadline, |t| t.min(deadline));
            if let Some(at) = announce_at {
                if now >= at {
                    registry().announce(pgid);
                    announce_at = None;
                } else {
                    wake = wake.min(at);
                }
            }
            if req.cancel.is_cancellable() {
                wake = wake.min(now + CANCEL_SLICE);
            }
            let watch_exit = status.is_none() && exit_fd.is_some();
            if status.is_none() && exit_fd.is_none() {
                wake = wake.min(now + SLICE);
            }
            let mut fds: Vec<PollFd> = Vec::with_capacity(3);
            let mut which: Vec<Option<usize>> = Vec::with_capacity(3);
            for (i, p) in pipes.iter().enumerate() {
                if let Some(fd) = &p.fd {
                    fds.push(PollFd::new(fd.as_fd(), PollFlags::POLLIN));
                    which.push(Some(i));
                }
            }
            if let (true, Some(fd)) = (watch_exit, &exit_fd) {
                fds.push(PollFd::new(fd.as_fd(), PollFlags::POLLIN));
                which.push(None);
            }
            let timeout = poll_timeout(wake.saturating_duration_since(now));
            match poll(&mut fds, timeout) {
                Ok(_) | Err(Errno::EINTR) => {}
                Err(e) => {
                    kill_group(&mut child);
                    let _ = child.wait();
                    return Err(e.into());
                }
            }
            let fired: Vec<Option<usize>> = fds
                .iter()
                .zip(&which)
                .filter(|(fd, _)| fd.any().unwrap_or(false))
                .map(|(_, w)| *w)
                .collect();
            exit_signaled |= fired.contains(&None);
            let ready: Vec<usize> = fired.into_iter().flatten().collect();
            drop(fds);
            for i in ready {
                if let Got::Over = pipes[i].read_available(req.ceiling) {
                    let stream = if i == 0 {
                        Stream::Stdout
                    } else {
                        Stream::Stderr
                    };
                    end = Some(End::OverLimit { stream });
                }
                req.progress.set_tail(&pipes[i].buf);
            }
        }

        let background = match end {
            Some(_) => {
                // Timed out, over the ceiling or aborted: the group dies, and so does anything that
                // left it but still carries this call's mark.
                kill_group(&mut child);
                kill_marked(&format!("{MARK_VAR}={mark}"), false);
                status = Some(child.wait()?);
                if group_alive(pgid) {
                    registry().announce(pgid);
                } else {
                    registry().remove(pgid);
                }
                // What was written before the kill is still in the pipes: collect it briefly.
                finish_drain(&mut pipes, req.ceiling, Instant::now() + DRAIN_AFTER_EXIT);
                Vec::new()
            }
            None => {
                let bg = if group_alive(pgid) {
                    members(pgid)
                } else {
                    Vec::new()
                };
                if bg.is_empty() && !group_alive(pgid) {
                    registry().remove(pgid);
                } else {
                    // Background processes outlive the call: the watchdog must know them.
                    registry().announce(pgid);
                }
                bg
            }
        };
        let status = match status {
            Some(s) => s,
            None => child.wait()?,
        };
        let [mut out, mut err] = pipes;
        let leftovers: Vec<OwnedFd> = [out.fd.take(), err.fd.take()]
            .into_iter()
            .flatten()
            .collect();
        if !leftovers.is_empty() {
            discard_in_background(leftovers);
        }
        let end = end.unwrap_or(End::Exited {
            code: status
                .code()
                .unwrap_or_else(|| 128 + status.signal().unwrap_or(0)),
            signal: status.signal(),
        });
        Ok(Capture {
            end,
            stdout: out.buf,
            stderr: err.buf,
            background,
        })
    }

    /// Reads what is left in the pipes until they close or `until` passes.
    fn finish_drain(pipes: &mut [Pipe; 2], ceiling: usize, until: Instant) {
        loop {
            let now = Instant::now();
            let open: Vec<usize> = (0..2).filter(|&i| pipes[i].fd.is_some()).collect();
            if open.is_empty() || now >= until {
                return;
            }
            let mut fds: Vec<PollFd> = open
                .iter()
                .filter_map(|&i| pipes[i].fd.as_ref())
                .map(|fd| PollFd::new(fd.as_fd(), PollFlags::POLLIN))
                .collect();
            if poll(&mut fds, poll_timeout(until - now)).is_err() {
                return;
            }
            let ready: Vec<bool> = fds.iter().map(|f| f.any().unwrap_or(false)).collect();
            drop(fds);
            for (k, &i) in open.iter().enumerate() {
                if ready[k] {
                    if let Got::Over = pipes[i].read_available(ceiling) {
                        pipes[i].fd = None;
                    }
                }
            }
        }
    }

    /// Keeps reading (and discarding) pipes that background processes still hold, so their
    /// writes neither block nor kill them with `SIGPIPE`; ends when every writer is gone.
    fn discard_in_background(fds: Vec<OwnedFd>) {
        for fd in fds {
            let _ = fcntl(&fd, FcntlArg::F_SETFL(OFlag::empty()));
            let spawned = std::thread::Builder::new()
                .name("bash-discard".into())
                .stack_size(64 * 1024)
                .spawn(move || {
                    let mut file = fs::File::from(fd);
                    let mut sink = [0u8; 8192];
                    while matches!(file.read(&mut sink), Ok(n) if n > 0) {}
                });
            // Without a thread the pipe simply closes; the writer then gets EPIPE.
            drop(spawned);
        }
    }

    fn poll_timeout(d: Duration) -> PollTimeout {
        let ms = d.as_micros().div_ceil(1000);
        PollTimeout::try_from(ms).unwrap_or(PollTimeout::MAX)
    }
}

#[cfg(all(test, unix))]
pub(crate) mod tests {
    use super::*;
    use std::sync::Mutex;
    use std::time::Instant;

    /// `kill_all` kills every group of this process: tests that run commands take turns.
    static SERIAL: Mutex<()> = Mutex::new(());

    pub(crate) fn serial() -> std::sync::MutexGuard<'static, ()> {
        SERIAL.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn req(command: &str, timeout_ms: u64) -> Request<'_> {
        Request {
            shell: "sh",
            command,
            cwd: Path::new("/"),
            timeout: Duration::from_millis(timeout_ms),
            ceiling: 1 << 20,
            cancel: Default::default(),
            progress: Default::default(),
            sandbox: None,
        }
    }

    fn alive(pid: u32) -> bool {
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .map(|s| {
                let state = s[s.rfind(')').unwrap() + 1..].split_whitespace().next();
                state != Some("Z")
            })
            .unwrap_or(false)
    }

    #[test]
    fn captures_both_streams_and_exit_code() {
        let _turn = serial();
        let c = run(&req("echo out; echo err >&2; exit 3", 5000)).unwrap();
        assert_eq!(
            c.end,
            End::Exited {
                code: 3,
                signal: None
            }
        );
        assert_eq!(c.stdout, b"out\n");
        assert_eq!(c.stderr, b"err\n");
        assert!(c.background.is_empty());
    }

    #[test]
    fn signal_death_reports_128_plus_signo() {
        let _turn = serial();
        let c = run(&req("kill -9 $$", 5000)).unwrap();
        assert_eq!(
            c.end,
            End::Exited {
                code: 137,
                signal: Some(9)
            }
        );
        assert_eq!(signal_name(9), "SIGKILL");
    }

    #[test]
    fn timeout_kills_the_group() {
        let _turn = serial();
        let t = Instant::now();
        let c = run(&req("echo start; sleep 30 & echo $!; sleep 30", 300)).unwrap();
        assert_eq!(c.end, End::TimedOut);
        assert!(t.elapsed() < Duration::from_secs(5));
        let text = String::from_utf8(c.stdout).unwrap();
        let pid: u32 = text.lines().nth(1).unwrap().parse().unwrap();
        let until = Instant::now() + Duration::from_secs(3);
        while alive(pid) && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(!alive(pid), "background child {pid} survived the timeout");
    }

    #[test]
    fn background_child_does_not_hold_the_call() {
        let _turn = serial();
        let t = Instant::now();
        let c = run(&req("sleep 30 & echo $!", 10_000)).unwrap();
        assert!(t.elapsed() < Duration::from_secs(3));
        let pid: u32 = String::from_utf8(c.stdout).unwrap().trim().parse().unwrap();
        assert_eq!(c.background, vec![pid]);
        kill_all();
        // SIGKILL is delivered at once; a loaded machine may take a moment to reap.
        let until = Instant::now() + Duration::from_secs(3);
        while alive(pid) && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(!alive(pid));
    }

    #[test]
    fn ceiling_kills_the_command() {
        let _turn = serial();
        let mut r = req("yes", 10_000);
        r.ceiling = 100_000;
        let c = run(&r).unwrap();
        assert_eq!(
            c.end,
            End::OverLimit {
                stream: Stream::Stdout
            }
        );
        assert_eq!(c.stdout.len(), 100_000);
    }

    #[test]
    fn the_watchdog_hears_only_of_groups_that_outlive_a_short_grace() {
        let _turn = serial();
        let pgid =
            |c: Capture| -> i32 { String::from_utf8(c.stdout).unwrap().trim().parse().unwrap() };
        let announced = |g: i32| unix::ANNOUNCED.lock().unwrap().contains(&g);
        // The shell leads its group: `$$` is the group id.
        let quick = pgid(run(&req("echo $$", 5000)).unwrap());
        assert!(!announced(quick));
        let slow = pgid(run(&req("sleep 0.1; echo $$", 5000)).unwrap());
        assert!(announced(slow));
        // A group left running by the call is announced however short the call was.
        let c = run(&req("sleep 5 >/dev/null 2>&1 & echo $$", 5000)).unwrap();
        let left = pgid(c);
        assert!(announced(left));
        kill_all();
    }

    #[test]
    fn the_shell_is_found_on_path_once_and_keeps_its_bare_name() {
        let _turn = serial();
        let first = unix::located("sh").expect("sh is on PATH");
        assert!(first.is_absolute() && first.ends_with("sh"), "{first:?}");
        assert_eq!(unix::located("sh"), Some(first));
        assert_eq!(unix::located("/bin/sh"), None);
        assert_eq!(unix::located("no-such-program-atn"), None);
        // `$0` is what the command was started as, not the file found.
        assert_eq!(run(&req("echo $0", 5000)).unwrap().stdout, b"sh\n");
    }

    #[test]
    fn commands_carry_the_host_mark() {
        let _turn = serial();
        let c = run(&req("env", 5000)).unwrap();
        let text = String::from_utf8(c.stdout).unwrap();
        assert!(text.contains(&unix::host_mark()), "{text}");
    }

    #[test]
    fn an_enormous_timeout_is_fine() {
        let _turn = serial();
        let mut r = req("echo ok", 0);
        r.timeout = Duration::from_millis(u64::MAX);
        assert_eq!(run(&r).unwrap().stdout, b"ok\n");
    }

    #[test]
    fn missing_cwd_fails_to_start() {
        let _turn = serial();
        let mut r = req("true", 5000);
        r.cwd = Path::new("/definitely/not/here");
        assert!(run(&r).is_err());
    }
}
