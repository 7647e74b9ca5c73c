//! Background process monitors: long-lived commands (dev servers, watchers) that run beside the
//! agent, whose output is read back by byte offset.
//!
//! **No in-process state.** Everything lives in `<root>/.clarvis/`, and every call re-derives
//! the truth from those files and the live processes, so any process (a second host, a
//! restarted one) can poll, list and stop a monitor it did not start. The files of monitor
//! `<id>` (`mon_` + 8 lowercase hex) are:
//!
//! - `monitor-<id>.json`: [`Meta`], written atomically (temp file + rename). Beyond the
//!   contract's keys it records the start time of each process it names (`pidStart`, Linux
//!   `/proc/<pid>/stat` field 22), so a recycled pid is never signalled nor reported running.
//! - `monitor-<id>.log`: stdout and stderr together.
//! - `monitor-<id>.exit`: the exit status, written by the wrapper shell's `EXIT` trap.
//! - `monitor-<id>.in`: only with `stdin: true`, a FIFO that is the command's stdin.
//!
//! **Confinement.** `.clarvis` is opened once per call as a directory fd, no-follow, in the
//! workspace root's fd ([`spill::open_dir`]); a `.clarvis` that is a symlink is refused. Every
//! file above is then read, created, renamed, listed and removed with `*at` calls in that fd,
//! never following a symlink ([`Store`]). The processes get their files as descriptors, not
//! paths: the relay's stdout is the log opened in the fd, the FIFO ends are opened in the fd,
//! and the wrapper's exit trap writes through the inherited directory fd
//! (`$MON_EXIT` = `/proc/self/fd/87/monitor-<id>.exit`), so a `.clarvis` swapped for a symlink
//! after the start redirects nothing.
//!
//! **Processes.** The command runs as the contract's wrapper with the status saved before
//! `noclobber`,
//! `sh -c "trap 'mon_status=$?; set -C; printf \"%s\" \"$mon_status\" > \"$MON_EXIT\"' EXIT\n<command>\n"`,
//! in a process group of its own (with `pty: true`, a session of its own whose controlling
//! terminal is a new pty). Its pid is the monitor's pid. It does not carry the `bash` tool's host mark
//! ([`crate::shell::MARK_VAR`]) and is not in the bash registry, so the bash cleanup (exit
//! hook, watchdog) leaves it alone: monitors outlive the host by design.
//!
//! **The log writer** is a relay process, not the host: the command writes into a pipe (or the
//! pty), and a small `sh` in its own process group copies it to the log with `head -c <cap>`.
//! Past [`LOG_CAP`] bytes it appends [`cap_marker`] and discards the rest, so a chatty server
//! cannot fill the disk, and the log keeps growing after the host is gone. The relay ends when
//! every writer of the pipe has closed it (the command and all its children). Its pid is in the
//! metadata (`relayPid`), so a reader that sees the command exit waits briefly for the relay to
//! finish the log.
//!
//! **stdin.** By default stdin is `/dev/null` (the contract's "stdin ignored": a program that
//! reads stdin sees end of file at once). With `stdin: true` stdin is the FIFO, kept open for
//! writing by a small holder process (`holderPid`) that lives while the command's shell does,
//! so the program waits for input instead of seeing end of file; [`send`] writes to the FIFO,
//! and `send` with `eof` ends the holder, so the program sees end of file once nothing else
//! writes. End of file on demand is why the FIFO is opt-in rather than always there.
//!
//! Reaping: the host waits for the processes it spawned on a small thread, so none lingers as
//! a zombie while the host lives.

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::confine::Dir;
use crate::js_regex::JsRegex;
use crate::{paths, spill};

/// How often `monitor_start` looks for `ready_when` in the log.
pub const READY_POLL: Duration = Duration::from_millis(75);
/// How long `monitor_stop` waits after `SIGTERM` before `SIGKILL`.
pub const STOP_GRACE: Duration = Duration::from_millis(400);
/// Bytes of output kept in one monitor's log; the rest is discarded after [`cap_marker`].
pub const LOG_CAP: u64 = 64 * 1024 * 1024;
/// How long a reader waits for the relay to finish the log after the command exited: up to
/// [`RELAY_SETTLE`] while the exit is recent (a loaded machine may take a while to schedule
/// the relay), and [`RELAY_SETTLE_LATE`] afterwards or when the shell was killed (then the
/// relay is most likely held open by a process the command left behind).
const RELAY_SETTLE: Duration = Duration::from_secs(2);
const RELAY_SETTLE_LATE: Duration = Duration::from_millis(100);
/// How long an exit counts as recent for [`RELAY_SETTLE`].
/// The environment variable naming the monitor a process was started for.
const MONITOR_MARK: &str = "AGENT_TOOLS_NATIVE_MONITOR";

/// How long an empty exit file may wait for the exit trap that created it to write the status.
const EXIT_WRITE_GRACE: Duration = Duration::from_millis(25);
const RECENT_EXIT: Duration = Duration::from_secs(10);
/// How long [`send`] waits for room in a full stdin pipe.
const SEND_WAIT: Duration = Duration::from_secs(5);

/// The line the relay appends when the log reaches its cap.
pub fn cap_marker(cap: u64) -> String {
    format!("\n[... log capped at {cap} bytes; later output discarded ...]\n")
}

/// A monitor's metadata file. Unknown keys are ignored and the additive keys default, so files
/// written by the reference implementation read back too.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Meta {
    pub id: String,
    pub command: String,
    pub cwd: String,
    pub pid: i64,
    pub started_at: u64,
    pub ready_when: Option<String>,
    /// The start time of `pid` when known (Linux: `/proc/<pid>/stat` field 22; macOS:
    /// `proc_pidinfo`, in µs).
    #[serde(default)]
    pub pid_start: Option<u64>,
    /// The relay writing the log, and its start time.
    #[serde(default)]
    pub relay_pid: Option<i64>,
    #[serde(default)]
    pub relay_start: Option<u64>,
    /// The stdin FIFO holder (only with `stdin: true`), and its start time.
    #[serde(default)]
    pub holder_pid: Option<i64>,
    #[serde(default)]
    pub holder_start: Option<u64>,
    #[serde(default)]
    pub stdin: bool,
    #[serde(default)]
    pub pty: bool,
}

/// What went wrong, for the tool layer to put in an envelope.
#[derive(Debug)]
pub enum MonError {
    /// No such monitor (unknown id, unreadable or invalid metadata).
    NotFound(String),
    TooMany {
        live: usize,
        max: usize,
    },
    Spawn(io::Error),
    /// The monitor was started without `stdin: true`.
    NoStdin(String),
    /// stdin was closed (with `eof`), or the program closed it, or the monitor is not running.
    StdinClosed {
        id: String,
        why: String,
    },
    Io(io::Error),
}

pub type MonResult<T> = Result<T, MonError>;

/// What to start.
pub struct StartRequest<'a> {
    pub root: &'a Path,
    pub command: &'a str,
    /// Absolute working directory (already checked).
    pub cwd: &'a Path,
    /// The source as given, and the JavaScript pattern compiled from it.
    pub ready_when: Option<(&'a str, JsRegex)>,
    pub ready_timeout: Duration,
    pub max_output: usize,
    pub max_monitors: usize,
    pub stdin: bool,
    pub pty: bool,
    pub log_cap: u64,
    /// A command that exits before `ready_when` matches answers with the end of its log (with a
    /// note of what is left out), where its failure shows; otherwise with the same first
    /// `max_output` bytes as a timeout (the newest contract's answer, CONTRACT-v0.5 §3).
    pub tail_on_exit: bool,
    /// The sandbox the command runs in (the same as `bash`'s); `None`: none.
    pub sandbox: Option<std::sync::Arc<crate::sandbox::Plan>>,
}

/// The answer of [`start`], in the contract's key order (`exit_code` is additive: present
/// when the command exited while `ready_when` was awaited).
#[derive(Debug, Serialize, PartialEq)]
pub struct Started {
    pub id: String,
    pub running: bool,
    pub ready: Option<bool>,
    pub output: String,
    pub next_offset: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<Option<i32>>,
    /// The sandbox's one line, when the command runs sandboxed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<String>,
}

/// The answer of [`poll`].
#[derive(Debug, Serialize, PartialEq)]
pub struct Polled {
    pub running: bool,
    pub output: String,
    pub next_offset: u64,
    pub exit_code: Option<i32>,
}

/// One row of [`list`].
#[derive(Debug, Serialize, PartialEq)]
pub struct Listed {
    pub id: String,
    pub command: String,
    pub running: bool,
    pub started_at: u64,
    pub cwd: String,
}

/// A monitor's state as observed now.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Status {
    pub running: bool,
    /// `None` while running, or when the exit file is missing or not an integer.
    pub exit_code: Option<i32>,
}

// ---------------------------------------------------------------------------------------------
// The files in .clarvis: every access to them goes through `Store`.

/// The monitor files under one workspace, reached only through the `.clarvis` directory fd
/// ([`spill::open_dir`]: opened no-follow in the workspace root's fd, so a `.clarvis` that is a
/// symlink or a file is refused). Every name is opened, created, renamed, listed and removed
/// with `*at` calls in that fd and never followed, so a `.clarvis` swapped for a symlink after
/// the store was opened cannot redirect anything outside.
pub struct Store {
    dir: Dir,
    /// `<root>/.clarvis` as a path, only for what a child process cannot do through the fd
    /// (the exit trap where `/proc` is missing, see `os::exit_target`).
    #[cfg_attr(not(unix), allow(dead_code))]
    path: PathBuf,
}

impl Store {
    /// The store of `root`, creating `.clarvis` (with its `.gitignore`) when missing.
    pub fn create(root: &Path) -> io::Result<Store> {
        Ok(Store {
            dir: spill::open_dir(root, true)?,
            path: root.join(spill::SPILL_DIR),
        })
    }

    /// The store of `root` for reading; `None` when there is no `.clarvis` directory (or it is
    /// not a real one).
    pub fn existing(root: &Path) -> Option<Store> {
        Some(Store {
            dir: spill::open_dir(root, false).ok()?,
            path: root.join(spill::SPILL_DIR),
        })
    }

    fn name(id: &str, ext: &str) -> OsString {
        OsString::from(format!("monitor-{id}.{ext}"))
    }

    /// Opens a regular file for reading (non-blocking, never following a symlink).
    fn open_read(&self, name: &OsStr) -> io::Result<File> {
        let file = self.dir.open_file(name)?;
        if !file.metadata()?.is_file() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "not a regular file",
            ));
        }
        Ok(file)
    }

    /// The metadata of `id`; `None` when the id is malformed, the file is missing, unreadable
    /// or not valid metadata.
    pub fn read_meta(&self, id: &str) -> Option<Meta> {
        if !valid_id(id) {
            return None;
        }
        let mut text = String::new();
        self.open_read(&Self::name(id, "json"))
            .ok()?
            .take(1 << 20)
            .read_to_string(&mut text)
            .ok()?;
        let meta: Meta = serde_json::from_str(&text).ok()?;
        (meta.id == id).then_some(meta)
    }

    /// Writes the metadata atomically: a temp file in the directory fd, renamed over the name.
    fn write_meta(&self, meta: &Meta) -> io::Result<()> {
        let body = serde_json::to_vec(meta).map_err(io::Error::other)?;
        let (tmp, mut file) = self.dir.create_temp(paths::temp_name, 0o666)?;
        let result = (|| {
            file.write_all(&body)?;
            file.sync_all()?;
            self.dir
                .rename(&tmp, &self.dir, &Self::name(&meta.id, "json"))
        })();
        if result.is_err() {
            let _ = self.dir.remove_file(&tmp);
        }
        result
    }

    /// Creates the log of a new monitor (never over anything already there), opened for
    /// appending: the relay writes to this very file, whatever becomes of the path.
    #[cfg_attr(not(unix), allow(dead_code))]
    fn create_log(&self, id: &str) -> io::Result<File> {
        let file = spill::create_file(&self.dir, &Self::name(id, "log"))?;
        #[cfg(unix)]
        {
            use nix::fcntl::{fcntl, FcntlArg, OFlag};
            let flags = OFlag::from_bits_truncate(fcntl(&file, FcntlArg::F_GETFL)?);
            fcntl(&file, FcntlArg::F_SETFL(flags | OFlag::O_APPEND))?;
        }
        Ok(file)
    }

    /// Whether any file of `id` exists (a fresh id must not collide).
    fn taken(&self, id: &str) -> bool {
        ["json", "log", "exit", "in"]
            .iter()
            .any(|ext| self.dir.stat(&Self::name(id, ext)).is_ok())
    }

    /// `None` when there is no exit file; `Some(code)` otherwise (`code` is `None` when the
    /// file does not hold an integer).
    fn read_exit(&self, id: &str) -> Option<ExitFile> {
        let mut text = String::new();
        match self.open_read(&Self::name(id, "exit")) {
            Ok(file) => {
                let _ = file.take(64).read_to_string(&mut text);
                Some(match text.trim() {
                    "" => ExitFile::Empty,
                    status => ExitFile::Status(status.parse::<i32>().ok()),
                })
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => None,
            // Something is there but unreadable: the trap ran (or someone wrote it).
            Err(_) => Some(ExitFile::Status(None)),
        }
    }

    /// How long ago the exit file was written; `None` without one.
    fn exit_age(&self, id: &str) -> Option<Duration> {
        let modified = self.dir.stat(&Self::name(id, "exit")).ok()?.mtime;
        Some(
            SystemTime::now()
                .duration_since(modified)
                .unwrap_or_default(),
        )
    }

    /// The log's current size (0 when missing).
    fn log_len(&self, id: &str) -> u64 {
        self.open_read(&Self::name(id, "log"))
            .and_then(|f| f.metadata())
            .map_or(0, |m| m.len())
    }

    /// Up to `max` bytes of the log from `offset`, and the log size seen. A missing log reads
    /// as empty.
    fn read_log(&self, id: &str, offset: u64, max: usize) -> (Vec<u8>, u64) {
        let Ok(mut file) = self.open_read(&Self::name(id, "log")) else {
            return (Vec::new(), 0);
        };
        let size = file.metadata().map_or(0, |m| m.len());
        let start = offset.min(size);
        let want = (size - start).min(max as u64) as usize;
        let mut buf = vec![0u8; want];
        let mut got = 0;
        if file.seek(SeekFrom::Start(start)).is_ok() {
            while got < want {
                match file.read(&mut buf[got..]) {
                    Ok(0) => break,
                    Ok(n) => got += n,
                    // The file is opened non-blocking; a regular file never says WouldBlock.
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(_) => break,
                }
            }
        }
        buf.truncate(got);
        (buf, size)
    }

    /// Deletes every file of `id` (names only: a symlink is removed, never followed).
    fn remove_all(&self, id: &str) {
        for ext in ["json", "log", "exit", "in"] {
            let _ = self.dir.remove_file(&Self::name(id, ext));
        }
    }

    /// The ids with a metadata file.
    fn ids(&self) -> Vec<String> {
        let Ok(names) = self.dir.entries() else {
            return Vec::new();
        };
        names
            .into_iter()
            .filter_map(|name| {
                let name = name.into_string().ok()?;
                let id = name.strip_prefix("monitor-")?.strip_suffix(".json")?;
                valid_id(id).then(|| id.to_string())
            })
            .collect()
    }
}

/// `mon_` followed by exactly 8 lowercase hex digits.
pub fn valid_id(id: &str) -> bool {
    id.strip_prefix("mon_").is_some_and(|hex| {
        hex.len() == 8
            && hex
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    })
}

fn new_id() -> String {
    use std::hash::BuildHasher;
    let seed = (spill::new_token(), SystemTime::now());
    let hash = std::collections::hash_map::RandomState::new().hash_one(seed);
    format!("mon_{:08x}", hash as u32)
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

// ---------------------------------------------------------------------------------------------
// Status

/// The monitor is running when its exit file is absent and its shell is alive (and is still
/// the process that was started, when its start time is known).
pub fn status(store: &Store, meta: &Meta) -> Status {
    let alive = || os::same_process(meta.pid, meta.pid_start) == Liveness::Alive;
    let mut exit = store.read_exit(&meta.id);
    // The exit trap creates the file, then writes the status into it: an empty file while the
    // shell still lives may be one being written. The trap takes microseconds, so it is given
    // a moment to finish; an empty file that stays empty is what v0.5 §3 says of any empty or
    // non-integer one: exited with `null`.
    let deadline = Instant::now() + EXIT_WRITE_GRACE;
    while matches!(exit, Some(ExitFile::Empty)) && alive() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(1));
        exit = store.read_exit(&meta.id);
    }
    if matches!(exit, Some(ExitFile::Empty)) {
        // The shell may have written the status and exited since the last read.
        exit = store.read_exit(&meta.id);
    }
    match exit {
        Some(ExitFile::Empty) => Status {
            running: false,
            exit_code: None,
        },
        Some(ExitFile::Status(code)) => Status {
            running: false,
            exit_code: code,
        },
        None => Status {
            running: alive(),
            exit_code: None,
        },
    }
}

/// What a monitor's exit file holds.
enum ExitFile {
    /// Nothing yet.
    Empty,
    /// An exit status, or `None` for text that is not one (or a file that cannot be read).
    Status(Option<i32>),
}

/// What became of a recorded process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Liveness {
    Alive,
    /// Exited but not yet reaped by its parent.
    Zombie,
    Gone,
    /// The pid now names another process (its start time differs).
    Reused,
}

/// After the command exited, gives the relay a moment to finish copying its last output.
fn settle_log(store: &Store, meta: &Meta) {
    let Some(pid) = meta.relay_pid else { return };
    let recent = store
        .exit_age(&meta.id)
        .is_some_and(|age| age < RECENT_EXIT);
    let until = Instant::now()
        + if recent {
            RELAY_SETTLE
        } else {
            RELAY_SETTLE_LATE
        };
    while os::same_process(pid, meta.relay_start) == Liveness::Alive && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(5));
    }
}

// ---------------------------------------------------------------------------------------------
// The operations

/// Counts the running monitors.
pub fn live_count(root: &Path) -> usize {
    let Some(store) = Store::existing(root) else {
        return 0;
    };
    store
        .ids()
        .iter()
        .filter_map(|id| store.read_meta(id))
        .filter(|m| status(&store, m).running)
        .count()
}

/// Starts a monitor and, with `ready_when`, waits until its log matches, it exits, the ready
/// timeout passes, or `cancelled()` says the caller gave up.
pub fn start(req: StartRequest<'_>, cancelled: &dyn Fn() -> bool) -> MonResult<Started> {
    let live = live_count(req.root);
    if live >= req.max_monitors {
        return Err(MonError::TooMany {
            live,
            max: req.max_monitors,
        });
    }
    let store = Store::create(req.root).map_err(MonError::Spawn)?;
    let id = loop {
        let id = new_id();
        if !store.taken(&id) {
            break id;
        }
    };
    let spawned = match os::spawn(&store, &id, &req) {
        Ok(s) => s,
        Err(e) => {
            store.remove_all(&id);
            return Err(MonError::Spawn(e));
        }
    };
    let meta = Meta {
        id: id.clone(),
        command: req.command.to_string(),
        cwd: req.cwd.to_string_lossy().into_owned(),
        pid: spawned.pid,
        started_at: now_ms(),
        ready_when: req.ready_when.as_ref().map(|(src, _)| src.to_string()),
        pid_start: spawned.pid_start,
        relay_pid: Some(spawned.relay_pid),
        relay_start: spawned.relay_start,
        holder_pid: spawned.holder_pid,
        holder_start: spawned.holder_start,
        stdin: req.stdin,
        pty: req.pty,
    };
    if let Err(e) = store.write_meta(&meta) {
        // Without metadata nobody could find it again: it must not run on.
        os::terminate(&meta, Duration::ZERO, false);
        store.remove_all(&id);
        return Err(MonError::Spawn(e));
    }
    let Some((_, re)) = &req.ready_when else {
        return Ok(Started {
            id,
            running: true,
            ready: None,
            output: String::new(),
            next_offset: 0,
            exit_code: None,
            sandbox: None,
        });
    };
    let deadline = Instant::now() + req.ready_timeout;
    loop {
        let st = status(&store, &meta);
        if !st.running {
            settle_log(&store, &meta);
        }
        let (head, _) = store.read_log(&id, 0, req.max_output);
        // Matched as the contract's `RegExp.test` on the decoded text; a pattern that gives up
        // (its backtracking limit) has not matched yet.
        if re.is_match(&String::from_utf8_lossy(&head)) == Some(true) {
            let head = cut_to_char(&head, true);
            return Ok(Started {
                id,
                running: st.running,
                ready: Some(true),
                output: String::from_utf8_lossy(head).into_owned(),
                next_offset: head.len() as u64,
                exit_code: (!st.running).then_some(st.exit_code),
                sandbox: None,
            });
        }
        if !st.running {
            let (output, next_offset) = if req.tail_on_exit {
                tail(&store, &id, req.max_output)
            } else {
                let head = cut_to_char(&head, true);
                (
                    String::from_utf8_lossy(head).into_owned(),
                    head.len() as u64,
                )
            };
            return Ok(Started {
                id,
                running: false,
                ready: Some(false),
                output,
                next_offset,
                exit_code: Some(st.exit_code),
                sandbox: None,
            });
        }
        let now = Instant::now();
        if cancelled() || now >= deadline {
            let head = cut_to_char(&head, true);
            return Ok(Started {
                id,
                running: true,
                ready: Some(false),
                output: String::from_utf8_lossy(head).into_owned(),
                next_offset: head.len() as u64,
                exit_code: None,
                sandbox: None,
            });
        }
        std::thread::sleep(READY_POLL.min(deadline - now));
    }
}

/// The last `max` bytes of the log (starting at a character boundary), with a leading note
/// when earlier output is left out, and the log's end offset.
fn tail(store: &Store, id: &str, max: usize) -> (String, u64) {
    let size = store.log_len(id);
    let from = size.saturating_sub(max as u64);
    let (bytes, size) = store.read_log(id, from, max);
    if from == 0 {
        return (String::from_utf8_lossy(&bytes).into_owned(), size);
    }
    // Skip continuation bytes of a character cut at the start.
    let skip = bytes
        .iter()
        .take(3)
        .take_while(|&&b| b & 0xC0 == 0x80)
        .count();
    let from = from + skip as u64;
    let text = String::from_utf8_lossy(&bytes[skip..]);
    (
        format!("[... {from} earlier bytes not shown; read them with monitor_poll offset=0 ...]\n{text}"),
        size,
    )
}

/// `bytes` without a UTF-8 character cut at its end (only when `cut` says the slice stops
/// before the end of the data).
fn cut_to_char(bytes: &[u8], cut: bool) -> &[u8] {
    if !cut {
        return bytes;
    }
    // Look back at most 3 bytes for the lead byte of an incomplete sequence.
    for back in 1..=bytes.len().min(4) {
        let b = bytes[bytes.len() - back];
        if b & 0xC0 == 0x80 {
            continue;
        }
        let need = match b {
            0x00..=0x7F => 1,
            0xC0..=0xDF => 2,
            0xE0..=0xEF => 3,
            0xF0..=0xF7 => 4,
            _ => return bytes,
        };
        return if need > back {
            &bytes[..bytes.len() - back]
        } else {
            bytes
        };
    }
    bytes
}

/// Reads the log from `offset`: at most `max` bytes, a partial last line held back while the
/// monitor runs, filtered to the lines matching `filter`.
pub fn poll(
    root: &Path,
    id: &str,
    offset: u64,
    max: usize,
    filter: Option<&JsRegex>,
) -> MonResult<Polled> {
    let (store, meta) = find(root, id)?;
    let st = status(&store, &meta);
    if !st.running {
        settle_log(&store, &meta);
    }
    let (bytes, size) = store.read_log(id, offset, max);
    let start = offset.min(size);
    let reached_end = start + bytes.len() as u64 >= size;
    let mut slice = cut_to_char(&bytes, !reached_end);
    if reached_end && st.running && !slice.ends_with(b"\n") {
        if let Some(nl) = memchr::memrchr(b'\n', slice) {
            slice = &slice[..=nl];
        }
    }
    let next_offset = start + slice.len() as u64;
    let mut output = match filter {
        None => String::from_utf8_lossy(slice).into_owned(),
        Some(re) => {
            let body = slice.strip_suffix(b"\n").unwrap_or(slice);
            let lines: Vec<String> = if slice.is_empty() {
                Vec::new()
            } else {
                body.split(|&b| b == b'\n')
                    .map(String::from_utf8_lossy)
                    .filter(|line| re.is_match(line) == Some(true))
                    .map(std::borrow::Cow::into_owned)
                    .collect()
            };
            lines.join("\n")
        }
    };
    if !reached_end {
        output.push_str(&format!(
            "\n[... more output buffered; continue with offset={next_offset} ...]"
        ));
    }
    Ok(Polled {
        running: st.running,
        output,
        next_offset,
        exit_code: st.exit_code,
    })
}

/// Stops the monitor (SIGTERM to its group, [`STOP_GRACE`], then SIGKILL) and deletes its
/// files.
pub fn stop(root: &Path, id: &str, marked_only: bool) -> MonResult<()> {
    let (store, meta) = find(root, id)?;
    os::terminate(&meta, STOP_GRACE, marked_only);
    store.remove_all(id);
    Ok(())
}

/// Every monitor with readable metadata, newest first.
pub fn list(root: &Path) -> Vec<Listed> {
    let Some(store) = Store::existing(root) else {
        return Vec::new();
    };
    let mut rows: Vec<Listed> = store
        .ids()
        .iter()
        .filter_map(|id| store.read_meta(id))
        .map(|m| Listed {
            running: status(&store, &m).running,
            id: m.id,
            command: m.command,
            started_at: m.started_at,
            cwd: m.cwd,
        })
        .collect();
    rows.sort_by(|a, b| b.started_at.cmp(&a.started_at).then(b.id.cmp(&a.id)));
    rows
}

/// Deletes the files of every monitor that is not running; leaves running ones alone.
pub fn sweep(root: &Path) {
    let Some(store) = Store::existing(root) else {
        return;
    };
    for id in store.ids() {
        match store.read_meta(&id) {
            Some(meta) if status(&store, &meta).running => {}
            // Only the files go: a process the command left behind is not touched (stop does
            // that), as the contract has it.
            Some(_) => store.remove_all(&id),
            None => {}
        }
    }
}

/// Writes `input` to the monitor's stdin; with `eof`, then closes it (the program sees end of
/// file once nothing else writes). Returns the bytes written.
pub fn send(root: &Path, id: &str, input: &[u8], eof: bool, marked_only: bool) -> MonResult<usize> {
    let (store, meta) = find(root, id)?;
    if !meta.stdin {
        return Err(MonError::NoStdin(id.to_string()));
    }
    let closed = |why: &str| MonError::StdinClosed {
        id: id.to_string(),
        why: why.to_string(),
    };
    if !status(&store, &meta).running {
        return Err(closed("the monitor is not running"));
    }
    let holder = meta
        .holder_pid
        .map(|pid| os::same_process(pid, meta.holder_start));
    if holder != Some(Liveness::Alive) {
        return Err(closed("its stdin was closed (by an earlier eof)"));
    }
    let written = if input.is_empty() {
        0
    } else {
        os::write_fifo(&store, id, input, SEND_WAIT).map_err(|e| match e.kind() {
            io::ErrorKind::BrokenPipe => closed("the program closed its stdin"),
            _ => MonError::Io(e),
        })?
    };
    if eof {
        if let Some(pid) = meta.holder_pid {
            if !marked_only || os::carries_mark(pid, id) {
                os::kill_process(pid, meta.holder_start);
            }
        }
    }
    Ok(written)
}

fn find(root: &Path, id: &str) -> MonResult<(Store, Meta)> {
    let store = Store::existing(root).ok_or_else(|| MonError::NotFound(id.to_string()))?;
    let meta = store
        .read_meta(id)
        .ok_or_else(|| MonError::NotFound(id.to_string()))?;
    Ok((store, meta))
}

/// What [`os::spawn`] started.
struct Spawned {
    pid: i64,
    pid_start: Option<u64>,
    relay_pid: i64,
    relay_start: Option<u64>,
    holder_pid: Option<i64>,
    holder_start: Option<u64>,
}

// ---------------------------------------------------------------------------------------------
// Processes

#[cfg(unix)]
mod os {
    use std::ffi::OsString;
    use std::fs::File;
    use std::io::{self, Write};
    use std::os::fd::{AsFd, AsRawFd, OwnedFd};
    use std::os::unix::process::CommandExt;

    use std::path::Path;
    use std::process::{Child, Command, Stdio};
    use std::time::{Duration, Instant};

    use nix::errno::Errno;
    use nix::fcntl::{fcntl, FcntlArg, FdFlag, OFlag};
    use nix::libc;
    use nix::poll::{poll, PollFd, PollFlags, PollTimeout};
    use nix::sys::signal::{kill, killpg, Signal};
    use nix::sys::stat::Mode;
    use nix::unistd::Pid;

    use super::{cap_marker, Liveness, Meta, Spawned, StartRequest, Store, MONITOR_MARK};
    use crate::shell::{self, MARK_VAR};

    /// Copies stdin to the log: `$1` bytes, then (if more comes) the marker `$2` and nothing
    /// more. `head -c` never reads past its count, so the one byte `dd` takes tells whether
    /// the output went on. GNU `head` buffers its output (a log line would show up only after
    /// 4 KiB), so it runs under `stdbuf -o0`; BusyBox `head` writes as it reads. Where neither
    /// is available (BSD, macOS) the log is copied with `cat`, uncapped, so it still streams.
    const RELAY: &str = r#"if stdbuf -o0 true 2>/dev/null; then stdbuf -o0 head -c "$1"
elif head --help 2>&1 | grep -q BusyBox; then head -c "$1"
else exec cat
fi
n=$(dd bs=1 count=1 2>/dev/null | wc -c)
if [ $n -gt 0 ]; then printf '%s' "$2"; exec cat >/dev/null; fi
"#;

    /// Keeps the stdin FIFO (its stdout, moved to fd 3) open for writing while the monitor's
    /// shell (`$1`) lives. Its `sleep` does not get the FIFO, so killing the holder closes it.
    const HOLDER: &str = r#"exec 3>&1 >/dev/null
while kill -0 "$1" 2>/dev/null; do sleep 1 3>&-; done"#;

    /// The contract's wrapper, made safe: the exit status goes to `$MON_EXIT` when the shell
    /// exits, created with `noclobber` (`O_EXCL`), so a symlink planted under the exit file's
    /// name is not followed. The status is saved first (`set -C` resets `$?`).
    pub(super) fn wrapper(command: &str) -> String {
        format!(
            "trap 'mon_status=$?; set -C; printf \"%s\" \"$mon_status\" > \"$MON_EXIT\"' EXIT\n{command}\n"
        )
    }

    /// The descriptor, in the command's shell, of the `.clarvis` directory its exit trap
    /// writes into. Above 9, so no `exec 9>lock` of the command (a single-digit redirection
    /// is all `dash` accepts) can replace it.
    pub(super) const EXIT_DIR_FD: i32 = crate::sandbox::PASSED_FD;

    /// `$MON_EXIT`: where `/proc` is mounted, `/proc/self/fd/87/monitor-<id>.exit`, a path
    /// through the inherited directory fd ([`EXIT_DIR_FD`]) that names the exit file in the very
    /// `.clarvis` this store opened, whatever is at `<root>/.clarvis` by then; `true` says the
    /// fd must be handed down. Elsewhere the plain path (a `.clarvis` swapped for a symlink
    /// while the command runs could redirect that one write; see SPEC.md).
    fn exit_target(store: &Store, id: &str) -> (OsString, bool) {
        let name = Store::name(id, "exit");
        if cfg!(target_os = "linux") && Path::new("/proc/self/fd").is_dir() {
            let mut path = OsString::from(format!("/proc/self/fd/{EXIT_DIR_FD}/"));
            path.push(&name);
            (path, true)
        } else {
            (store.path.join(name).into_os_string(), false)
        }
    }

    fn base(script: &str) -> Command {
        let mut cmd = Command::new("sh");
        cmd.arg("-c").arg(script).env_remove(MARK_VAR);
        cmd
    }

    fn cloexec(fd: &OwnedFd) -> io::Result<()> {
        fcntl(fd, FcntlArg::F_SETFD(FdFlag::FD_CLOEXEC))?;
        Ok(())
    }

    /// A pipe whose ends are not inherited by processes spawned meanwhile.
    #[cfg(any(target_os = "linux", target_os = "android", target_os = "freebsd"))]
    fn cloexec_pipe() -> io::Result<(OwnedFd, OwnedFd)> {
        Ok(nix::unistd::pipe2(OFlag::O_CLOEXEC)?)
    }

    /// macOS has no `pipe2`: the flag is set right after (a spawn racing it may inherit).
    #[cfg(not(any(target_os = "linux", target_os = "android", target_os = "freebsd")))]
    fn cloexec_pipe() -> io::Result<(OwnedFd, OwnedFd)> {
        let (r, w) = nix::unistd::pipe()?;
        cloexec(&r)?;
        cloexec(&w)?;
        Ok((r, w))
    }

    fn blocking(fd: &impl AsFd) -> io::Result<()> {
        let flags = OFlag::from_bits_truncate(fcntl(fd, FcntlArg::F_GETFL)?);
        fcntl(fd, FcntlArg::F_SETFL(flags - OFlag::O_NONBLOCK))?;
        Ok(())
    }

    /// Creates the stdin FIFO `monitor-<id>.in` in the store's directory fd.
    fn make_fifo(store: &Store, id: &str) -> io::Result<()> {
        let name = Store::name(id, "in");
        let mode = Mode::from_bits_truncate(0o600);
        #[cfg(not(any(target_os = "macos", target_os = "ios")))]
        nix::unistd::mkfifoat(store.dir.as_fd(), name.as_os_str(), mode)?;
        // No mkfifoat in nix for Apple systems: by path (the open below is still no-follow
        // in the directory fd and checks that it opened a FIFO).
        #[cfg(any(target_os = "macos", target_os = "ios"))]
        nix::unistd::mkfifo(&store.path.join(&name), mode)?;
        Ok(())
    }

    /// Opens the stdin FIFO of `id` in the store's directory fd, never following a symlink.
    fn open_fifo(store: &Store, id: &str, write: bool) -> io::Result<File> {
        let access = if write {
            OFlag::O_WRONLY
        } else {
            OFlag::O_RDONLY
        };
        // Non-blocking so the open does not wait for the other end.
        let fd = nix::fcntl::openat(
            store.dir.as_fd(),
            Store::name(id, "in").as_os_str(),
            access | OFlag::O_NOFOLLOW | OFlag::O_NONBLOCK | OFlag::O_CLOEXEC,
            Mode::empty(),
        )?;
        let file = File::from(fd);
        use std::os::unix::fs::FileTypeExt;
        if !file.metadata()?.file_type().is_fifo() {
            return Err(io::Error::new(io::ErrorKind::InvalidData, "not a FIFO"));
        }
        Ok(file)
    }

    pub(super) fn spawn(store: &Store, id: &str, req: &StartRequest<'_>) -> io::Result<Spawned> {
        let log = store.create_log(id)?;
        let mut children: Vec<Child> = Vec::new();
        let result = spawn_all(store, id, req, log, &mut children);
        if result.is_err() {
            for mut c in children {
                let _ = c.kill();
                let _ = c.wait();
            }
            return result;
        }
        reap(children);
        result
    }

    fn spawn_all(
        store: &Store,
        id: &str,
        req: &StartRequest<'_>,
        log: File,
        children: &mut Vec<Child>,
    ) -> io::Result<Spawned> {
        // The channel the command writes into, and the end the relay reads.
        let (relay_in, out, pty_master) = if req.pty {
            let pty = nix::pty::openpty(
                Some(&nix::pty::Winsize {
                    ws_row: 24,
                    ws_col: 80,
                    ws_xpixel: 0,
                    ws_ypixel: 0,
                }),
                None,
            )?;
            cloexec(&pty.master)?;
            cloexec(&pty.slave)?;
            // Plain `\n` line ends and no echo of sent input, so the log reads like a pipe's.
            let mut tio = nix::sys::termios::tcgetattr(&pty.slave)?;
            tio.output_flags
                .remove(nix::sys::termios::OutputFlags::ONLCR);
            tio.local_flags.remove(nix::sys::termios::LocalFlags::ECHO);
            nix::sys::termios::tcsetattr(&pty.slave, nix::sys::termios::SetArg::TCSANOW, &tio)?;
            let master_copy = pty.master.try_clone()?;
            (pty.master, pty.slave, Some(master_copy))
        } else {
            let (r, w) = cloexec_pipe()?;
            (r, w, None)
        };
        let marker = cap_marker(req.log_cap);
        let relay = base(RELAY)
            .arg("agent-tools-monitor-log")
            .arg(req.log_cap.to_string())
            .arg(&marker)
            .current_dir("/")
            .stdin(Stdio::from(relay_in))
            .stdout(Stdio::from(log))
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()?;
        let relay_pid = relay.id() as i64;
        children.push(relay);

        // stdin: /dev/null, or the FIFO (through the pty when there is one).
        let fifo_reader = if req.stdin {
            make_fifo(store, id)?;
            let reader = open_fifo(store, id, false)?;
            blocking(&reader)?;
            // A writer before the command starts, or its first read would see end of file.
            let writer = open_fifo(store, id, true)?;
            blocking(&writer)?;
            Some((reader, writer))
        } else {
            None
        };

        let mut cmd = base(&wrapper(req.command));
        cmd.env(MONITOR_MARK, id);
        let (exit_target, pass_dir) = exit_target(store, id);
        cmd.env("MON_EXIT", exit_target).current_dir(req.cwd);
        if pass_dir {
            // The store's directory fd (close-on-exec) becomes the shell's EXIT_DIR_FD; it
            // stays open in this process until the spawn returned.
            let raw = store.dir.as_fd().as_raw_fd();
            // SAFETY: only async-signal-safe calls (dup2, fcntl) run between fork and exec.
            unsafe {
                cmd.pre_exec(move || {
                    let ok = if raw == EXIT_DIR_FD {
                        libc::fcntl(raw, libc::F_SETFD, 0) >= 0
                    } else {
                        libc::dup2(raw, EXIT_DIR_FD) >= 0
                    };
                    if ok {
                        Ok(())
                    } else {
                        Err(io::Error::last_os_error())
                    }
                });
            }
        }
        if req.pty {
            let slave_in = out.try_clone()?;
            let slave_err = out.try_clone()?;
            cmd.stdin(Stdio::from(slave_in))
                .stdout(Stdio::from(out))
                .stderr(Stdio::from(slave_err));
            // SAFETY: only async-signal-safe calls (setsid, ioctl) run between fork and exec.
            unsafe {
                cmd.pre_exec(|| {
                    if libc::setsid() < 0 {
                        return Err(io::Error::last_os_error());
                    }
                    if libc::ioctl(0, libc::TIOCSCTTY as _, 0) < 0 {
                        return Err(io::Error::last_os_error());
                    }
                    Ok(())
                });
            }
        } else {
            let err = out.try_clone()?;
            let stdin = match &fifo_reader {
                Some((r, _)) => Stdio::from(r.try_clone()?),
                None => Stdio::null(),
            };
            cmd.stdin(stdin)
                .stdout(Stdio::from(out))
                .stderr(Stdio::from(err))
                .process_group(0);
        }
        // The sandbox last, after the hooks above. Its mount namespace would leave the
        // inherited store fd on the host's mounts: the child reopens the store by path.
        #[cfg(target_os = "linux")]
        if let Some(plan) = &req.sandbox {
            let plan = if pass_dir {
                plan.with_reopened(&store.path, EXIT_DIR_FD)
                    .map_err(io::Error::other)?
            } else {
                plan.clone()
            };
            plan.install(&mut cmd);
        }
        let wrapper = cmd.spawn()?;
        let pid = wrapper.id() as i64;
        children.push(wrapper);
        let pid_start = start_time(pid);

        let (mut holder_pid, mut holder_start) = (None, None);
        if let Some((reader, writer)) = fifo_reader {
            if let Some(master) = pty_master {
                // Sent input reaches the terminal through a copier.
                let copier = Command::new("cat")
                    .env_remove(MARK_VAR)
                    .current_dir("/")
                    .stdin(Stdio::from(reader))
                    .stdout(Stdio::from(master))
                    .stderr(Stdio::null())
                    .process_group(0)
                    .spawn()?;
                children.push(copier);
            } else {
                drop(reader);
            }
            let holder = base(HOLDER)
                .env(MONITOR_MARK, id)
                .arg("agent-tools-monitor-stdin")
                .arg(pid.to_string())
                .current_dir("/")
                .stdin(Stdio::null())
                .stdout(Stdio::from(writer))
                .stderr(Stdio::null())
                .process_group(0)
                .spawn()?;
            holder_pid = Some(holder.id() as i64);
            holder_start = start_time(holder.id() as i64);
            children.push(holder);
        }
        Ok(Spawned {
            pid,
            pid_start,
            relay_pid,
            relay_start: start_time(relay_pid),
            holder_pid,
            holder_start,
        })
    }

    /// Waits for the spawned processes on a thread so none stays a zombie in this host.
    fn reap(children: Vec<Child>) {
        let spawned = std::thread::Builder::new()
            .name("monitor-reaper".into())
            .stack_size(64 * 1024)
            .spawn(move || {
                for mut c in children {
                    let _ = c.wait();
                }
            });
        drop(spawned);
    }

    /// The process's start time (Linux `/proc/<pid>/stat` field 22; macOS `proc_pidinfo`).
    pub(super) fn start_time(pid: i64) -> Option<u64> {
        let (_, start) = proc_stat(pid)?;
        Some(start)
    }

    /// (state, start time) from `/proc/<pid>/stat`.
    #[cfg(not(target_os = "macos"))]
    fn proc_stat(pid: i64) -> Option<(char, u64)> {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        // `pid (comm) state ...`: comm may hold spaces and parentheses.
        let rest = &stat[stat.rfind(')')? + 1..];
        let fields: Vec<&str> = rest.split_whitespace().collect();
        // `rest` starts at field 3 (state); field 22 is at index 19.
        let state = fields.first()?.chars().next()?;
        let start = fields.get(19)?.parse().ok()?;
        Some((state, start))
    }

    /// (state, start time in µs since the epoch) from `proc_pidinfo`; state `Z` for a zombie.
    #[cfg(target_os = "macos")]
    fn proc_stat(pid: i64) -> Option<(char, u64)> {
        let pid = i32::try_from(pid).ok()?;
        // SAFETY: proc_bsdinfo is plain data, valid when zeroed.
        let mut info: libc::proc_bsdinfo = unsafe { std::mem::zeroed() };
        let size = std::mem::size_of::<libc::proc_bsdinfo>() as libc::c_int;
        // SAFETY: the buffer is `size` writable bytes owned by `info`.
        let n = unsafe {
            libc::proc_pidinfo(
                pid,
                libc::PROC_PIDTBSDINFO,
                0,
                (&mut info as *mut libc::proc_bsdinfo).cast(),
                size,
            )
        };
        if n != size {
            return None;
        }
        // SZOMB in <sys/proc.h>.
        let state = if info.pbi_status == 5 { 'Z' } else { 'R' };
        Some((
            state,
            info.pbi_start_tvsec * 1_000_000 + info.pbi_start_tvusec,
        ))
    }

    /// Whether `pid` is still the process started at `start` (when known).
    pub(super) fn same_process(pid: i64, start: Option<u64>) -> Liveness {
        let Ok(raw) = i32::try_from(pid) else {
            return Liveness::Gone;
        };
        if raw <= 0 {
            return Liveness::Gone;
        }
        match kill(Pid::from_raw(raw), None) {
            Ok(()) | Err(Errno::EPERM) => {}
            Err(_) => return Liveness::Gone,
        }
        match proc_stat(pid) {
            Some((_, now)) if start.is_some_and(|s| s != now) => Liveness::Reused,
            Some(('Z' | 'X', _)) => Liveness::Zombie,
            Some(_) => Liveness::Alive,
            // It vanished meanwhile, or this system offers no process table we read (neither
            // Linux `/proc` nor macOS `proc_pidinfo`): trust kill(2).
            None if proc_stat(i64::from(std::process::id())).is_some() => Liveness::Gone,
            None => Liveness::Alive,
        }
    }

    /// Whether process group `pgid` still has a live member.
    fn group_alive(pgid: i32) -> bool {
        if std::path::Path::new("/proc/self/stat").exists() {
            !shell::group_members(pgid).is_empty()
        } else {
            killpg(Pid::from_raw(pgid), None) != Err(Errno::ESRCH)
        }
    }

    /// SIGTERM to the monitor's group, up to `grace` for it to go, then SIGKILL. A group is
    /// signalled only while it is certainly the monitor's: its leader is the recorded process
    /// (alive or a zombie), or the leader is gone and members remain (a pid that leads a live
    /// group is never recycled). The stdin holder is ended too.
    /// Whether process `pid` carries monitor `id`'s mark in its environment (read from
    /// `/proc`; `false` where it cannot be read). The metadata naming a monitor's processes
    /// lies in `.clarvis`, which a sandboxed command may write: with the sandbox on, only a
    /// process this host started for the monitor (or the sandboxed command itself started) is
    /// signalled, never another one a forged file names.
    pub(super) fn carries_mark(pid: i64, id: &str) -> bool {
        let want = format!("{MONITOR_MARK}={id}");
        std::fs::read(format!("/proc/{pid}/environ"))
            .is_ok_and(|env| env.split(|&b| b == 0).any(|v| v == want.as_bytes()))
    }

    pub(super) fn terminate(meta: &Meta, grace: Duration, marked_only: bool) {
        if marked_only && !carries_mark(meta.pid, &meta.id) {
            return;
        }
        if let Some(pid) = meta.holder_pid {
            if !marked_only || carries_mark(pid, &meta.id) {
                kill_process(pid, meta.holder_start);
            }
        }
        let Ok(pgid) = i32::try_from(meta.pid) else {
            return;
        };
        if pgid <= 0 {
            return;
        }
        let ours = match same_process(meta.pid, meta.pid_start) {
            Liveness::Alive | Liveness::Zombie => true,
            Liveness::Gone => group_alive(pgid),
            Liveness::Reused => false,
        };
        if !ours {
            return;
        }
        if killpg(Pid::from_raw(pgid), Signal::SIGTERM).is_err() {
            let _ = kill(Pid::from_raw(pgid), Signal::SIGTERM);
        }
        let until = Instant::now() + grace;
        while Instant::now() < until {
            if !group_alive(pgid) {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        if killpg(Pid::from_raw(pgid), Signal::SIGKILL).is_err()
            && same_process(meta.pid, meta.pid_start) == Liveness::Alive
        {
            let _ = kill(Pid::from_raw(pgid), Signal::SIGKILL);
        }
    }

    /// SIGKILL to `pid` (which leads its own group) and its group, if it is still the process
    /// started at `start`.
    pub(super) fn kill_process(pid: i64, start: Option<u64>) {
        if same_process(pid, start) == Liveness::Alive {
            if let Ok(raw) = i32::try_from(pid) {
                let _ = kill(Pid::from_raw(raw), Signal::SIGKILL);
                let _ = killpg(Pid::from_raw(raw), Signal::SIGKILL);
            }
        }
    }

    /// Writes all of `input` to the stdin FIFO of `id`, waiting at most `wait` for room.
    pub(super) fn write_fifo(
        store: &Store,
        id: &str,
        input: &[u8],
        wait: Duration,
    ) -> io::Result<usize> {
        let mut file = match open_fifo(store, id, true) {
            Err(e) if e.raw_os_error() == Some(libc::ENXIO) => {
                return Err(io::ErrorKind::BrokenPipe.into())
            }
            other => other?,
        };
        let until = Instant::now() + wait;
        let mut done = 0;
        while done < input.len() {
            match file.write(&input[done..]) {
                Ok(n) => done += n,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    let left = until.saturating_duration_since(Instant::now());
                    if left.is_zero() {
                        return Err(io::Error::new(
                            io::ErrorKind::TimedOut,
                            format!(
                                "the program read no input for {} s; {done} of {} bytes were written",
                                wait.as_secs(),
                                input.len()
                            ),
                        ));
                    }
                    let mut fds = [PollFd::new(file.as_fd(), PollFlags::POLLOUT)];
                    let ms = PollTimeout::try_from(left.as_millis().min(1000) as u64 + 1)
                        .unwrap_or(PollTimeout::MAX);
                    let _ = poll(&mut fds, ms);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        file.flush()?;
        Ok(done)
    }
}

#[cfg(not(unix))]
mod os {
    use std::io;
    use std::time::Duration;

    use super::{Liveness, Meta, Spawned, StartRequest, Store};

    fn unsupported() -> io::Error {
        io::Error::new(
            io::ErrorKind::Unsupported,
            "monitors need a Unix system (sh, process groups)",
        )
    }

    pub(super) fn spawn(_: &Store, _: &str, _: &StartRequest<'_>) -> io::Result<Spawned> {
        Err(unsupported())
    }
    pub(super) fn same_process(_: i64, _: Option<u64>) -> Liveness {
        Liveness::Gone
    }
    pub(super) fn terminate(_: &Meta, _: Duration, _: bool) {}
    pub(super) fn carries_mark(_: i64, _: &str) -> bool {
        false
    }
    pub(super) fn kill_process(_: i64, _: Option<u64>) {}
    pub(super) fn write_fifo(_: &Store, _: &str, _: &[u8], _: Duration) -> io::Result<usize> {
        Err(unsupported())
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use std::fs;

    fn req<'a>(root: &'a Path, command: &'a str) -> StartRequest<'a> {
        StartRequest {
            root,
            command,
            cwd: root,
            ready_when: None,
            ready_timeout: Duration::from_secs(10),
            max_output: 131_072,
            max_monitors: 32,
            stdin: false,
            pty: false,
            log_cap: LOG_CAP,
            tail_on_exit: true,
            sandbox: None,
        }
    }

    fn js(pattern: &str) -> JsRegex {
        crate::js_regex::compile(pattern, Default::default()).unwrap()
    }

    fn ready<'a>(mut r: StartRequest<'a>, pattern: &'a str) -> StartRequest<'a> {
        r.ready_when = Some((pattern, js(pattern)));
        r
    }

    fn never() -> bool {
        false
    }

    /// Polls until the monitor exits (bounded), returning the last poll.
    fn wait_exit(root: &Path, id: &str) -> Polled {
        for _ in 0..400 {
            let p = poll(root, id, 0, 1 << 20, None).unwrap();
            if !p.running {
                return p;
            }
            std::thread::sleep(Duration::from_millis(25));
        }
        panic!("monitor {id} did not exit");
    }

    /// With the sandbox on, metadata a command could forge names no process to signal: only
    /// one carrying the monitor's mark is stopped.
    #[cfg(target_os = "linux")]
    #[test]
    fn with_the_sandbox_on_only_a_marked_process_is_signalled() {
        let dir = tempfile::tempdir().unwrap();
        let mut victim = std::process::Command::new("sleep")
            .arg("30")
            .process_group(0)
            .spawn()
            .unwrap();
        let store = Store::create(dir.path()).unwrap();
        let forged = Meta {
            id: "mon_deadbeef".into(),
            command: "x".into(),
            cwd: "/".into(),
            pid: i64::from(victim.id()),
            started_at: 1,
            ready_when: None,
            pid_start: None,
            relay_pid: None,
            relay_start: None,
            holder_pid: Some(i64::from(victim.id())),
            holder_start: None,
            stdin: false,
            pty: false,
        };
        store.write_meta(&forged).unwrap();
        stop(dir.path(), "mon_deadbeef", true).unwrap();
        assert!(
            victim.try_wait().unwrap().is_none(),
            "the forged file's pid was signalled"
        );
        victim.kill().unwrap();
        victim.wait().unwrap();
        // The monitor's own processes carry the mark, and are stopped.
        let s = start(req(dir.path(), "sleep 30"), &never).unwrap();
        let pid = store.read_meta(&s.id).unwrap().pid;
        assert!(os::carries_mark(pid, &s.id));
        stop(dir.path(), &s.id, true).unwrap();
        // Gone, or a zombie this test process has not reaped.
        assert!(matches!(
            os::same_process(pid, None),
            Liveness::Gone | Liveness::Zombie
        ));
    }

    /// An exit file the trap has created is given a moment to be written (the start once
    /// answered `running: false, exit_code: null` in that window); one that stays empty is an
    /// exit with `null`, as v0.5 §3 says.
    #[cfg(unix)]
    #[test]
    fn an_exit_file_being_written_gets_a_moment() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::create(dir.path()).unwrap();
        let id = new_id();
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .unwrap();
        let meta = Meta {
            id: id.clone(),
            command: "sleep 30".into(),
            cwd: dir.path().display().to_string(),
            pid: i64::from(child.id()),
            started_at: now_ms(),
            ready_when: None,
            pid_start: None,
            relay_pid: None,
            relay_start: None,
            holder_pid: None,
            holder_start: None,
            stdin: false,
            pty: false,
        };
        let exit = store.path.join(Store::name(&id, "exit"));
        std::fs::write(&exit, "").unwrap();
        let writer = {
            let exit = exit.clone();
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(5));
                std::fs::write(&exit, "4").unwrap();
            })
        };
        let st = status(&store, &meta);
        writer.join().unwrap();
        assert_eq!((st.running, st.exit_code), (false, Some(4)));
        std::fs::write(&exit, "").unwrap();
        let st = status(&store, &meta);
        assert_eq!((st.running, st.exit_code), (false, None));
        std::fs::write(&exit, "4").unwrap();
        let st = status(&store, &meta);
        assert_eq!((st.running, st.exit_code), (false, Some(4)));
        // Killed between creating and writing it: the shell is gone, the answer final.
        std::fs::write(&exit, "").unwrap();
        child.kill().unwrap();
        child.wait().unwrap();
        let st = status(&store, &meta);
        assert_eq!((st.running, st.exit_code), (false, None));
    }

    #[test]
    fn ids_are_well_formed() {
        let id = new_id();
        assert!(valid_id(&id), "{id}");
        assert!(!valid_id("mon_ABCDEF12"));
        assert!(!valid_id("mon_../../x"));
        assert!(!valid_id("mon_1234567"));
    }

    #[test]
    fn cut_to_char_keeps_whole_characters() {
        let s = "aé€😀".as_bytes();
        for n in 0..=s.len() {
            let cut = cut_to_char(&s[..n], true);
            assert!(std::str::from_utf8(cut).is_ok(), "{n}");
            assert!(n - cut.len() < 4);
        }
        assert_eq!(cut_to_char(&s[..2], false), &s[..2]);
    }

    #[test]
    fn start_without_ready_and_poll_until_exit() {
        let dir = tempfile::tempdir().unwrap();
        let started = start(req(dir.path(), "echo one; echo two >&2; exit 3"), &never).unwrap();
        assert!(started.running);
        assert_eq!(started.ready, None);
        let p = wait_exit(dir.path(), &started.id);
        assert_eq!(p.exit_code, Some(3));
        assert_eq!(p.output, "one\ntwo\n");
        assert_eq!(p.next_offset, 8);
        let meta = Store::existing(dir.path())
            .unwrap()
            .read_meta(&started.id)
            .unwrap();
        assert!(meta.pid_start.is_some());
        assert_eq!(
            fs::read_to_string(dir.path().join(".clarvis/.gitignore")).unwrap(),
            "*\n"
        );
        stop(dir.path(), &started.id, false).unwrap();
        assert!(matches!(
            poll(dir.path(), &started.id, 0, 100, None),
            Err(MonError::NotFound(_))
        ));
    }

    #[test]
    fn ready_when_matches_and_exit_before_ready_reports_the_code() {
        let dir = tempfile::tempdir().unwrap();
        let r = ready(
            req(
                dir.path(),
                "echo booting; sleep 0.2; echo 'ready on 42'; sleep 30",
            ),
            r"ready on \d+",
        );
        let s = start(r, &never).unwrap();
        assert_eq!((s.ready, s.running), (Some(true), true));
        assert!(s.output.contains("ready on 42"), "{}", s.output);
        assert_eq!(s.next_offset, s.output.len() as u64);
        stop(dir.path(), &s.id, false).unwrap();

        let r = ready(req(dir.path(), "echo fatal: no config; exit 7"), "never");
        let s = start(r, &never).unwrap();
        assert_eq!((s.ready, s.running), (Some(false), false));
        assert_eq!(s.exit_code, Some(Some(7)));
        assert_eq!(s.output, "fatal: no config\n");
        stop(dir.path(), &s.id, false).unwrap();
    }

    #[test]
    fn exit_before_ready_shows_the_tail_of_a_long_log() {
        let dir = tempfile::tempdir().unwrap();
        let dying = |tail_on_exit| {
            let mut r = ready(
                req(
                    dir.path(),
                    "yes x | head -c 5000; echo 'fatal: port in use'; exit 1",
                ),
                "listening",
            );
            r.max_output = 1000;
            r.tail_on_exit = tail_on_exit;
            start(r, &never).unwrap()
        };
        let s = dying(true);
        assert_eq!(
            (s.ready, s.running, s.exit_code),
            (Some(false), false, Some(Some(1)))
        );
        assert_eq!(s.next_offset, 5019);
        let (note, tail) = s.output.split_once('\n').unwrap();
        assert_eq!(
            note,
            "[... 4019 earlier bytes not shown; read them with monitor_poll offset=0 ...]"
        );
        assert_eq!(tail.len(), 1000);
        assert!(tail.ends_with("x\nfatal: port in use\n"));
        stop(dir.path(), &s.id, false).unwrap();
        // The newest contract's answer (CONTRACT-v0.5 §3: "matched against the first
        // maxOutputBytes of the log … output is that slice"): the head, as on a timeout.
        let s = dying(false);
        assert_eq!((s.ready, s.running), (Some(false), false));
        assert_eq!(s.output, "x\n".repeat(500));
        assert_eq!(s.next_offset, 1000);
        stop(dir.path(), &s.id, false).unwrap();
    }

    /// CONTRACT-v0.5 §3: "A non-integer or empty exit file means exited with `null`", also
    /// while the shell lives.
    #[test]
    fn an_exit_file_without_a_status_means_exited() {
        let dir = tempfile::tempdir().unwrap();
        let s = start(req(dir.path(), "sleep 30"), &never).unwrap();
        let store = Store::existing(dir.path()).unwrap();
        let meta = store.read_meta(&s.id).unwrap();
        let exit = dir
            .path()
            .join(".clarvis")
            .join(format!("monitor-{}.exit", s.id));
        for (text, running) in [("", false), ("abc", false), ("7.5", false), ("3", false)] {
            fs::write(&exit, text).unwrap();
            let st = status(&store, &meta);
            let code = (text == "3").then_some(3);
            assert_eq!((st.running, st.exit_code), (running, code), "{text:?}");
        }
        stop(dir.path(), &s.id, false).unwrap();
    }

    #[test]
    fn ready_wait_ends_on_timeout_and_on_cancel() {
        let dir = tempfile::tempdir().unwrap();
        let mut r = ready(req(dir.path(), "echo waiting; sleep 30"), "never");
        r.ready_timeout = Duration::from_millis(200);
        let s = start(r, &never).unwrap();
        assert_eq!((s.ready, s.running), (Some(false), true));
        stop(dir.path(), &s.id, false).unwrap();
        let r = ready(req(dir.path(), "sleep 30"), "never");
        let s = start(r, &|| true).unwrap();
        assert_eq!((s.ready, s.running), (Some(false), true));
        stop(dir.path(), &s.id, false).unwrap();
    }

    #[test]
    fn poll_holds_back_a_partial_line_and_filters() {
        let dir = tempfile::tempdir().unwrap();
        let s = start(
            req(dir.path(), "printf 'a1\\nb2\\na3\\npart'; sleep 30"),
            &never,
        )
        .unwrap();
        let mut p = poll(dir.path(), &s.id, 0, 1000, None).unwrap();
        for _ in 0..200 {
            if p.next_offset == 9 {
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
            p = poll(dir.path(), &s.id, 0, 1000, None).unwrap();
        }
        assert_eq!(p.output, "a1\nb2\na3\n");
        assert!(p.running);
        let re = js("^a");
        let f = poll(dir.path(), &s.id, 0, 1000, Some(&re)).unwrap();
        assert_eq!(f.output, "a1\na3");
        let more = poll(dir.path(), &s.id, 0, 4, None).unwrap();
        assert_eq!(
            more.output,
            "a1\nb\n[... more output buffered; continue with offset=4 ...]"
        );
        let past = poll(dir.path(), &s.id, 999, 100, None).unwrap();
        assert_eq!(past.next_offset, 13);
        // Only a partial line: returned whole.
        let partial = poll(dir.path(), &s.id, 9, 100, None).unwrap();
        assert_eq!(partial.output, "part");
        stop(dir.path(), &s.id, false).unwrap();
    }

    #[test]
    fn stop_kills_the_group_with_grandchildren() {
        let dir = tempfile::tempdir().unwrap();
        let s = start(
            req(
                dir.path(),
                "trap '' TERM; sh -c 'trap \"\" TERM; echo $$; sleep 60' & wait",
            ),
            &never,
        )
        .unwrap();
        let mut pid = None;
        for _ in 0..200 {
            let p = poll(dir.path(), &s.id, 0, 100, None).unwrap();
            if let Ok(n) = p.output.trim().parse::<i64>() {
                pid = Some(n);
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let pid = pid.expect("grandchild pid");
        assert_eq!(os::same_process(pid, None), Liveness::Alive);
        stop(dir.path(), &s.id, false).unwrap();
        for _ in 0..100 {
            if os::same_process(pid, None) != Liveness::Alive {
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        assert_ne!(os::same_process(pid, None), Liveness::Alive);
        assert_eq!(
            fs::read_dir(dir.path().join(".clarvis")).unwrap().count(),
            1
        );
    }

    #[test]
    fn a_recycled_pid_is_not_running_and_not_signalled() {
        let dir = tempfile::tempdir().unwrap();
        let s = start(req(dir.path(), "sleep 30"), &never).unwrap();
        let store = Store::existing(dir.path()).unwrap();
        let real = store.read_meta(&s.id).unwrap();
        let mut bystander = std::process::Command::new("sleep")
            .arg("30")
            .process_group(0)
            .spawn()
            .unwrap();
        let mut fake = real.clone();
        fake.pid = bystander.id() as i64;
        fake.pid_start = Some(real.pid_start.unwrap() + 12345);
        store.write_meta(&fake).unwrap();
        assert!(!status(&store, &fake).running);
        assert!(!list(dir.path())[0].running);
        stop(dir.path(), &s.id, false).unwrap();
        assert_eq!(
            bystander.try_wait().unwrap(),
            None,
            "bystander was signalled"
        );
        let _ = bystander.kill();
        let _ = bystander.wait();
        os::terminate(&real, Duration::ZERO, false);
    }

    use std::os::unix::process::CommandExt;

    #[test]
    fn metadata_written_by_the_reference_reads_back() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::create(dir.path()).unwrap();
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .process_group(0)
            .spawn()
            .unwrap();
        let json = format!(
            r#"{{"id":"mon_0123abcd","command":"sleep 30","cwd":"/","pid":{},"startedAt":5,"readyWhen":null}}"#,
            child.id()
        );
        fs::write(dir.path().join(".clarvis/monitor-mon_0123abcd.json"), json).unwrap();
        let meta = store.read_meta("mon_0123abcd").unwrap();
        assert_eq!(
            (meta.pid_start, meta.stdin, meta.relay_pid),
            (None, false, None)
        );
        let p = poll(dir.path(), "mon_0123abcd", 0, 100, None).unwrap();
        assert_eq!(
            (p.running, p.output.as_str(), p.exit_code),
            (true, "", None)
        );
        stop(dir.path(), "mon_0123abcd", false).unwrap();
        let status = child.wait().unwrap();
        assert_eq!(
            std::os::unix::process::ExitStatusExt::signal(&status),
            Some(15)
        );
        assert!(store.read_meta("mon_0123abcd").is_none());
    }

    #[test]
    fn limit_list_and_sweep() {
        let dir = tempfile::tempdir().unwrap();
        let mut r = req(dir.path(), "sleep 30");
        r.max_monitors = 1;
        let a = start(r, &never).unwrap();
        let mut r = req(dir.path(), "sleep 30");
        r.max_monitors = 1;
        assert!(matches!(
            start(r, &never),
            Err(MonError::TooMany { live: 1, max: 1 })
        ));
        std::thread::sleep(Duration::from_millis(5));
        let b = start(req(dir.path(), "true"), &never).unwrap();
        wait_exit(dir.path(), &b.id);
        let rows = list(dir.path());
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].id, b.id);
        assert!(!rows[0].running && rows[1].running);
        sweep(dir.path());
        let rows = list(dir.path());
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].id, a.id);
        stop(dir.path(), &a.id, false).unwrap();
    }

    #[test]
    fn the_log_is_capped_with_a_marker() {
        let dir = tempfile::tempdir().unwrap();
        let mut r = req(dir.path(), "yes | head -c 100000; echo done");
        r.log_cap = 1000;
        let s = start(r, &never).unwrap();
        let p = wait_exit(dir.path(), &s.id);
        assert_eq!(
            p.output,
            format!("{}{}", "y\n".repeat(500), cap_marker(1000))
        );
        stop(dir.path(), &s.id, false).unwrap();
    }

    #[test]
    fn stdin_send_and_eof() {
        let dir = tempfile::tempdir().unwrap();
        let mut r = req(
            dir.path(),
            "while read -r l; do echo \"got $l\"; done; echo eof",
        );
        r.stdin = true;
        let s = start(r, &never).unwrap();
        assert_eq!(
            send(dir.path(), &s.id, b"hello\n", false, false).unwrap(),
            6
        );
        assert_eq!(send(dir.path(), &s.id, b"bye\n", true, false).unwrap(), 4);
        let p = wait_exit(dir.path(), &s.id);
        assert_eq!(p.output, "got hello\ngot bye\neof\n");
        assert_eq!(p.exit_code, Some(0));
        assert!(matches!(
            send(dir.path(), &s.id, b"x", false, false),
            Err(MonError::StdinClosed { .. })
        ));
        stop(dir.path(), &s.id, false).unwrap();
        // Without stdin: true, stdin is /dev/null and send is refused.
        let s = start(req(dir.path(), "cat; echo after"), &never).unwrap();
        let p = wait_exit(dir.path(), &s.id);
        assert_eq!(p.output, "after\n");
        assert!(matches!(
            send(dir.path(), &s.id, b"x", false, false),
            Err(MonError::NoStdin(_))
        ));
        stop(dir.path(), &s.id, false).unwrap();
    }

    #[test]
    fn pty_gives_a_terminal() {
        let dir = tempfile::tempdir().unwrap();
        let mut r = req(
            dir.path(),
            "if [ -t 1 ]; then echo tty; else echo notty; fi; read -r l; echo \"got $l\"",
        );
        r.pty = true;
        r.stdin = true;
        let s = start(r, &never).unwrap();
        send(dir.path(), &s.id, b"x\n", false, false).unwrap();
        let p = wait_exit(dir.path(), &s.id);
        assert_eq!(p.output, "tty\ngot x\n");
        stop(dir.path(), &s.id, false).unwrap();
    }

    /// Every file of the directory, with its content (a symlink as `-> target`).
    fn snapshot(dir: &Path) -> Vec<(String, String)> {
        let mut files: Vec<(String, String)> = fs::read_dir(dir)
            .unwrap()
            .map(|e| {
                let e = e.unwrap();
                let body = match fs::read_link(e.path()) {
                    Ok(target) => format!("-> {}", target.display()),
                    Err(_) => fs::read_to_string(e.path()).unwrap(),
                };
                (e.file_name().into_string().unwrap(), body)
            })
            .collect();
        files.sort();
        files
    }

    /// `.clarvis` swapped for a symlink to an outside directory after the monitors started:
    /// no call reads, writes or deletes anything there, and the running processes (relay,
    /// exit trap) keep writing into the real directory.
    #[test]
    fn a_clarvis_swapped_for_a_symlink_is_never_followed() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let outside = tempfile::tempdir().unwrap();
        // A chatty monitor, one that exits when told, and one with a stdin FIFO.
        let chatty = start(req(root, "while :; do echo tick; sleep 0.02; done"), &never).unwrap();
        let waiter = start(
            req(
                root,
                "while [ ! -e go ]; do sleep 0.02; done; echo bye; exit 4",
            ),
            &never,
        )
        .unwrap();
        let mut r = req(root, "cat");
        r.stdin = true;
        let reader = start(r, &never).unwrap();
        let real = root.join(".clarvis");
        let waiter_meta = Store::existing(root)
            .unwrap()
            .read_meta(&waiter.id)
            .unwrap();
        // The outside directory looks like a store: a canary, and forged files of every
        // monitor (metadata naming a dead process, so a followed sweep would delete them).
        fs::write(outside.path().join("canary"), "canary").unwrap();
        for id in [&chatty.id, &waiter.id, &reader.id] {
            let json = format!(
                r#"{{"id":"{id}","command":"forged","cwd":"/","pid":999999999,"startedAt":1,"readyWhen":null}}"#
            );
            fs::write(outside.path().join(format!("monitor-{id}.json")), json).unwrap();
            fs::write(
                outside.path().join(format!("monitor-{id}.log")),
                "OUTSIDE\n",
            )
            .unwrap();
        }
        let before = snapshot(outside.path());

        // The swap: the real directory moves aside, `.clarvis` becomes a symlink.
        let aside = root.join("aside");
        fs::rename(&real, &aside).unwrap();
        std::os::unix::fs::symlink(outside.path(), &real).unwrap();
        // A symlink planted under the waiter's exit-file name must not be followed either.
        std::os::unix::fs::symlink(
            outside.path().join("trap-target"),
            aside.join(format!("monitor-{}.exit", waiter.id)),
        )
        .unwrap();

        for id in [&chatty.id, &waiter.id, &reader.id] {
            assert!(matches!(
                poll(root, id, 0, 1000, None),
                Err(MonError::NotFound(_))
            ));
            assert!(matches!(stop(root, id, false), Err(MonError::NotFound(_))));
        }
        assert!(matches!(
            send(root, &reader.id, b"x\n", false, false),
            Err(MonError::NotFound(_))
        ));
        assert!(list(root).is_empty());
        assert_eq!(live_count(root), 0);
        sweep(root);
        spill::sweep(root);
        assert!(matches!(
            start(req(root, "echo new"), &never),
            Err(MonError::Spawn(_))
        ));
        // The waiter exits while the symlink is in place; the chatty one writes on.
        fs::write(root.join("go"), "").unwrap();
        let log_name = aside.join(format!("monitor-{}.log", waiter.id));
        for _ in 0..400 {
            if fs::read_to_string(&log_name).unwrap().contains("bye")
                && os::same_process(waiter_meta.pid, waiter_meta.pid_start) != Liveness::Alive
            {
                break;
            }
            std::thread::sleep(Duration::from_millis(25));
        }
        let chatty_log = aside.join(format!("monitor-{}.log", chatty.id));
        let ticks = fs::read_to_string(&chatty_log).unwrap().len();
        std::thread::sleep(Duration::from_millis(200));
        assert!(fs::read_to_string(&chatty_log).unwrap().len() > ticks);
        assert_eq!(
            snapshot(outside.path()),
            before,
            "the outside directory changed"
        );

        // Put the real directory back: the monitors are all there, and nothing leaked out.
        fs::remove_file(&real).unwrap();
        fs::rename(&aside, &real).unwrap();
        let p = wait_exit(root, &waiter.id);
        // The trap refused the planted symlink (noclobber; the shell says so in the log):
        // exited, code unknown.
        assert!(p.output.starts_with("bye\n"), "{}", p.output);
        assert!(p.output.contains("File exists"), "{}", p.output);
        assert_eq!(p.exit_code, None);
        assert!(
            fs::symlink_metadata(real.join(format!("monitor-{}.exit", waiter.id)))
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert!(poll(root, &chatty.id, 0, 1 << 20, None)
            .unwrap()
            .output
            .starts_with("tick\n"));
        for id in [&chatty.id, &waiter.id, &reader.id] {
            stop(root, id, false).unwrap();
        }
        assert_eq!(
            snapshot(outside.path()),
            before,
            "the outside directory changed"
        );
    }

    /// The exit trap writes through the inherited directory fd: with `.clarvis` swapped for a
    /// symlink while the command runs, the exit file still lands in the real directory.
    #[test]
    fn the_exit_file_lands_in_the_real_directory() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let outside = tempfile::tempdir().unwrap();
        let s = start(
            req(root, "while [ ! -e go ]; do sleep 0.02; done; exit 6"),
            &never,
        )
        .unwrap();
        let real = root.join(".clarvis");
        let aside = root.join("aside");
        fs::rename(&real, &aside).unwrap();
        std::os::unix::fs::symlink(outside.path(), &real).unwrap();
        fs::write(root.join("go"), "").unwrap();
        let exit = aside.join(format!("monitor-{}.exit", s.id));
        for _ in 0..400 {
            if exit.exists() {
                break;
            }
            std::thread::sleep(Duration::from_millis(25));
        }
        assert_eq!(fs::read_to_string(&exit).unwrap(), "6");
        assert_eq!(fs::read_dir(outside.path()).unwrap().count(), 0);
        fs::remove_file(&real).unwrap();
        fs::rename(&aside, &real).unwrap();
        assert_eq!(wait_exit(root, &s.id).exit_code, Some(6));
        stop(root, &s.id, false).unwrap();
    }
}
