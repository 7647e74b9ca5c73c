//! Race-free confinement: every file-system access beneath the workspace goes through
//! directory file descriptors, so a directory or symlink swapped between a check and the I/O
//! cannot redirect the I/O outside.
//!
//! # How a path is opened
//!
//! The workspace root is opened once as a directory fd ([`Root::get`], cached per root path
//! and re-opened when the root itself is replaced). A [`WorkPath`] is opened *beneath* it:
//!
//! - **Linux**: `openat2(root_fd, rel, RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS)`. The kernel
//!   refuses any step outside the root, atomically with the open.
//! - **Fallback** (openat2 missing: kernels before 5.6, seccomp answering `ENOSYS`/`EPERM`;
//!   every non-Linux Unix; and whenever openat2 answers `EXDEV` or `ELOOP`): a
//!   component-by-component walk with `openat(dir_fd, name, O_NOFOLLOW)`. Each symlink met is
//!   read with `readlinkat` and spliced into the rest of the path; `..` steps back to the fd
//!   the walk came from and may never climb above the root; at most 40 links are followed.
//!   The walk is what lets an **absolute** symlink that points inside the workspace work (the
//!   contract allows it, `RESOLVE_BENEATH` refuses it with `EXDEV`): its target is stripped of
//!   the root's path (as configured or canonical) and the walk restarts at the root fd.
//!
//! Symlinks inside the tree are followed when they stay inside; one that leads outside fails
//! with an error [`crate::error::is_escape`] recognizes (and
//! [`crate::error::ToolError::from_io`] maps to
//! `path_escape`). Where the contract refuses symlinks (a mutation target), the final
//! component is never followed: it is judged with `fstatat(parent_fd, name,
//! AT_SYMLINK_NOFOLLOW)` ([`Dir::stat`]).
//!
//! With confinement off, paths are opened beneath `/` with symlinks followed everywhere (the
//! same code, nothing refused).
//!
//! # API (for every tool)
//!
//! - [`open_read`]`(&WorkPath)` → `File`: a file for reading (`O_NONBLOCK`, so a FIFO never
//!   hangs the call). Judge what you opened with `file.metadata()`.
//! - [`open_dir`]`(&WorkPath)` → [`Dir`]: a directory (following links that stay inside).
//! - [`stat`]`(&WorkPath)` → [`Stat`]: what the path names, following links that stay inside.
//! - [`lstat`]`(&WorkPath)` → [`Stat`]: the final name itself (a symlink is reported as one);
//!   read its target with `dir.read_link(name)` after [`open_parent`].
//! - [`open_parent`]`(&WorkPath, create)` → `(Dir, name)`: the parent directory fd and the
//!   final name, for operations on the name itself (create, rename, unlink, lstat). With
//!   `create`, missing parent directories are made with `mkdirat` and listed in
//!   [`Created`] so a failed transaction can remove them again.
//! - [`Dir`]: `*at` operations on one directory fd, each on a single name that is never
//!   followed: `stat`, `stat_follow`, `open_file`, `open_dir`, `create_new`, `create_temp`,
//!   `rename`, `hard_link`, `remove_file`, `remove_dir`, `mkdir`, `read_link`, `entries`,
//!   `sync`, `try_clone`. Descend a tree with `dir.open_dir(name)` (never follows a link).
//!   `create_temp` is handed the caller's temp-name policy.
//! - Walking (the walker lists and descends through the same [`Dir`]): `dir.list(out)`
//!   gives every name with the type the listing gave, from batched `getdents64` on Linux;
//!   `dir.open_follow(name)` opens through a symlink on purpose and returns a [`Followed`]
//!   whose `real_path` (read from the descriptor) the caller judges; [`LinkPolicy`] is that
//!   judgement for a workspace (inside links only, when confined).
//! - [`Root::get`]`(root_path)` → the cached root; `root.dir()` is its directory fd.
//!
//! Names passed to [`Dir`] methods must be single components (no `/`); they are refused with
//! `InvalidInput` otherwise.
//!
//! # Platforms
//!
//! Linux uses openat2 with the walk as fallback; other Unixes use the walk only (same
//! guarantees, more syscalls). Elsewhere (Windows) [`Dir`] holds a path and every operation is
//! path-based after the lexical and canonical check of path resolution: there is no
//! race freedom there (see SPEC.md "Confinement").

use std::collections::HashMap;
use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock, Mutex, OnceLock, PoisonError};
use std::time::SystemTime;

use crate::config::Config;
use crate::error::escape;

/// A path the model named, resolved against the workspace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkPath {
    /// Absolute and lexically normalized; symlinks are not resolved.
    pub abs: PathBuf,
    /// What results show: relative to the root (`.` for the root), absolute when outside.
    pub display: String,
    /// The path exactly as the caller wrote it: what the contract's messages quote (`<input>`,
    /// e.g. `No such file: ./a.txt`); the display path for a path the engine made itself.
    pub input: String,
    /// The root every I/O on this path is confined beneath (this module): the
    /// workspace root when confinement is on, `None` (resolved from `/`, nothing refused)
    /// when it is off.
    pub within: Option<PathBuf>,
    /// The root's opened directory once the path's first I/O fetched it.
    pub root: RootSlot,
}

/// A resolved path's opened root, kept for the rest of its I/O: the check that the configured
/// root still names the directory the cached fd holds ([`Root::get`], a
/// `statx`) is made once per resolved path, not once per operation on it. A cache, not part of
/// the path: every slot compares equal.
#[derive(Clone, Default)]
pub struct RootSlot(pub(crate) OnceLock<Arc<Root>>);

impl PartialEq for RootSlot {
    fn eq(&self, _: &RootSlot) -> bool {
        true
    }
}

impl Eq for RootSlot {}

impl std::fmt::Debug for RootSlot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.get().is_some() {
            "RootSlot(open)"
        } else {
            "RootSlot"
        })
    }
}

impl WorkPath {
    /// What a result row puts before a name found beneath this directory: `""` for the root,
    /// else its display path and a `/`.
    pub fn display_prefix(&self) -> String {
        if self.display == "." {
            String::new()
        } else {
            format!("{}/", self.display)
        }
    }

    /// A path confined beneath `root` (`abs` must lie under it).
    pub fn beneath(root: &Path, abs: PathBuf, display: String) -> WorkPath {
        WorkPath {
            abs,
            input: display.clone(),
            display,
            within: Some(root.to_path_buf()),
            root: RootSlot::default(),
        }
    }
}

/// How many symlinks one resolution may follow (as the kernel's `ELOOP` limit).
pub const MAX_LINK_FOLLOWS: usize = 40;

/// What a name is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    File,
    Dir,
    Symlink,
    /// A FIFO, socket or device.
    Other,
}

impl Kind {
    /// The kind of a standard library file type (the path-based fallbacks' answer).
    pub fn of(ft: std::fs::FileType) -> Kind {
        if ft.is_symlink() {
            Kind::Symlink
        } else if ft.is_dir() {
            Kind::Dir
        } else if ft.is_file() {
            Kind::File
        } else {
            Kind::Other
        }
    }
}

/// The metadata the tools need, from `fstat` / `fstatat`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stat {
    pub kind: Kind,
    pub len: u64,
    /// Permission bits (`st_mode & 0o7777`).
    pub mode: u32,
    pub uid: u32,
    pub gid: u32,
    pub mtime: SystemTime,
    pub dev: u64,
    pub ino: u64,
}

impl Stat {
    pub fn is_file(&self) -> bool {
        self.kind == Kind::File
    }
    pub fn is_dir(&self) -> bool {
        self.kind == Kind::Dir
    }
}

/// Directories a resolution created (parent fd, name), outermost first: remove them in
/// reverse order to undo.
pub type Created = Vec<(Dir, OsString)>;

/// The workspace root (or `/` for unconfined paths), opened once.
pub struct Root {
    /// The path as configured.
    pub path: PathBuf,
    /// Its canonical form (absolute symlinks may name the root either way).
    canon: PathBuf,
    /// False for the unconfined root `/`: nothing is refused beneath it.
    confined: bool,
    dir: Dir,
    id: (u64, u64),
}

/// Open roots by (path, confined).
type RootCache = HashMap<(PathBuf, bool), Arc<Root>>;

static ROOTS: LazyLock<Mutex<RootCache>> = LazyLock::new(|| Mutex::new(HashMap::new()));
/// How many root fds the cache keeps open at most.
const MAX_CACHED_ROOTS: usize = 64;

impl Root {
    /// The root directory `path` opened as an fd, cached per path. The cache entry is
    /// re-opened when `path` no longer names the directory it holds (the root was replaced).
    /// `confined: false` gives a root beneath which nothing is refused (used for `/`).
    pub fn get(path: &Path, confined: bool) -> io::Result<Arc<Root>> {
        let key = (path.to_path_buf(), confined);
        let now = imp::path_id(path)?;
        let root = {
            let mut roots = ROOTS.lock().unwrap_or_else(PoisonError::into_inner);
            match roots.get(&key) {
                Some(root) if root.id == now => root.clone(),
                _ => {
                    if roots.len() >= MAX_CACHED_ROOTS {
                        // Drop roots that are gone or replaced; if that frees nothing, start
                        // over (calls in flight keep their own `Arc`).
                        roots.retain(|(p, _), r| imp::path_id(p).is_ok_and(|id| id == r.id));
                        if roots.len() >= MAX_CACHED_ROOTS {
                            roots.clear();
                        }
                    }
                    let dir = imp::open_root(path)?;
                    let id = dir.stat_self()?.id();
                    let root = Arc::new(Root {
                        path: path.to_path_buf(),
                        canon: std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf()),
                        confined,
                        dir,
                        id,
                    });
                    roots.insert(key, root.clone());
                    root
                }
            }
        };
        Ok(root)
    }

    /// The root's directory fd.
    pub fn dir(&self) -> &Dir {
        &self.dir
    }

    /// Whether paths beneath this root are confined to it.
    pub fn confined(&self) -> bool {
        self.confined
    }
}

impl Stat {
    /// Device and inode: the object's identity (loop detection).
    pub fn id(&self) -> (u64, u64) {
        (self.dev, self.ino)
    }
}

/// The root a `WorkPath` is opened beneath, and the path relative to it.
fn beneath(path: &WorkPath) -> io::Result<(Arc<Root>, PathBuf)> {
    let slash = Path::new("/");
    let (root, rel) = match &path.within {
        Some(root) => (
            root.as_path(),
            path.abs.strip_prefix(root).map_err(|_| escape())?,
        ),
        None => (slash, path.abs.strip_prefix(slash).unwrap_or(&path.abs)),
    };
    let open = match path.root.0.get() {
        Some(open) => open.clone(),
        None => {
            let open = Root::get(root, path.within.is_some())?;
            let _ = path.root.0.set(open.clone());
            open
        }
    };
    Ok((open, rel.to_path_buf()))
}

/// Opens a file for reading beneath the workspace (non-blocking, so a FIFO cannot hang).
pub fn open_read(path: &WorkPath) -> io::Result<File> {
    let (root, rel) = beneath(path)?;
    imp::open_read(&root, &rel)
}

/// Opens a directory beneath the workspace, following links that stay inside.
pub fn open_dir(path: &WorkPath) -> io::Result<Dir> {
    let (root, rel) = beneath(path)?;
    imp::open_dir(&root, &rel)
}

/// What `path` names, following links that stay inside.
pub fn stat(path: &WorkPath) -> io::Result<Stat> {
    let (root, rel) = beneath(path)?;
    imp::stat(&root, &rel)
}

/// What `path` itself is, without following a final symlink (`lstat`), the directories on
/// the way resolved beneath the root. The root itself is stat'ed as the directory it is.
pub fn lstat(path: &WorkPath) -> io::Result<Stat> {
    match open_parent(path, None) {
        Ok((dir, name)) => dir.stat(&name),
        Err(e) if e.kind() == io::ErrorKind::IsADirectory => stat(path),
        Err(e) => Err(e),
    }
}

/// The parent directory of `path` and its final name. With `created`, missing parent
/// directories are created (and recorded); without it a missing parent is `NotFound`.
/// The root itself has no parent here: `IsADirectory`.
pub fn open_parent(path: &WorkPath, created: Option<&mut Created>) -> io::Result<(Dir, OsString)> {
    let (root, rel) = beneath(path)?;
    let Some(name) = rel.file_name().map(OsStr::to_os_string) else {
        return Err(io::Error::from(io::ErrorKind::IsADirectory));
    };
    let parent = rel.parent().unwrap_or(Path::new(""));
    let dir = imp::open_parent_dir(&root, parent, created)?;
    Ok((dir, name))
}

/// Checks, without opening anything for I/O, that `rel` stays beneath `root` as far as it
/// exists: each existing symlink on the way must stay inside (a dangling one is followed
/// lexically), and `..` may not climb above the root. Missing components are fine (they are
/// about to be created). `Err` with [`crate::error::is_escape`] for an escape or a link loop.
pub fn check(path: &WorkPath) -> io::Result<()> {
    let (root, rel) = beneath(path)?;
    imp::check(&root, &rel)
}

fn single(name: &OsStr) -> io::Result<()> {
    let bytes = name.as_encoded_bytes();
    if bytes.is_empty() || bytes.contains(&b'/') || name == ".." || name == "." {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a single path component",
        ));
    }
    Ok(())
}

/// One name listed in a directory, with the type the listing gave (no `stat`).
#[derive(Debug, Clone)]
pub struct RawEntry {
    pub name: OsString,
    /// `None` when the file system did not say (`DT_UNKNOWN`): ask [`Dir::stat`].
    pub kind: Option<Kind>,
}

/// Where symlinks may lead: followed on purpose only, and (when confined) only to objects that
/// really lie inside the workspace, judged on the opened object.
#[derive(Debug, Clone)]
pub struct LinkPolicy {
    /// The canonical workspace root when confinement is on.
    confine_root: Option<PathBuf>,
}

impl LinkPolicy {
    pub fn new(config: &Config) -> LinkPolicy {
        LinkPolicy {
            confine_root: config
                .confine_to_workspace
                .then(|| canonical_root(&config.workspace_root)),
        }
    }

    /// Opens what the symlink `name` in `dir` points to. Dangling links, loops and (when
    /// confined) targets outside the workspace are errors.
    pub fn follow(&self, dir: &Dir, name: &OsStr) -> io::Result<Followed> {
        let followed = dir.open_follow(name)?;
        if let Some(root) = &self.confine_root {
            if !followed.real_path().is_some_and(|p| p.starts_with(root)) {
                return Err(io::Error::new(
                    io::ErrorKind::PermissionDenied,
                    "the link leads outside the workspace",
                ));
            }
        }
        Ok(followed)
    }

    /// Opens the file `name` in `dir`: directly, or through the symlink it is under the policy.
    pub fn open_file(&self, dir: &Dir, name: &OsStr) -> io::Result<File> {
        dir.open_file(name).or_else(|e| {
            self.follow_to(dir, name, e, Kind::File, "not a regular file")?
                .into_file()
        })
    }

    /// Opens the directory `name` in `dir`: directly, or through the symlink it is under the
    /// policy.
    pub fn open_dir(&self, dir: &Dir, name: &OsStr) -> io::Result<Dir> {
        dir.open_dir(name).or_else(|e| {
            Ok(self
                .follow_to(dir, name, e, Kind::Dir, "not a directory")?
                .into_dir())
        })
    }

    /// After a direct open of `name` failed with `err`: what its symlink leads to under the
    /// policy, when it is a `kind`. Not a link: `err`; a link to anything else: `wrong`.
    fn follow_to(
        &self,
        dir: &Dir,
        name: &OsStr,
        err: io::Error,
        kind: Kind,
        wrong: &'static str,
    ) -> io::Result<Followed> {
        if !is_link(dir, name) {
            return Err(err);
        }
        let followed = self.follow(dir, name)?;
        if followed.meta.kind != kind {
            return Err(io::Error::other(wrong));
        }
        Ok(followed)
    }
}

fn is_link(dir: &Dir, name: &OsStr) -> bool {
    dir.stat(name).is_ok_and(|m| m.kind == Kind::Symlink)
}

/// The canonical form of the workspace root, cached per root and checked against the root's
/// identity (device and inode) on every use.
pub(crate) fn canonical_root(root: &Path) -> PathBuf {
    type Entry = (PathBuf, (u64, u64), PathBuf);
    static CACHE: Mutex<Vec<Entry>> = Mutex::new(Vec::new());
    let id = Dir::open_path(root)
        .and_then(|d| d.stat_self())
        .map(|m| m.id())
        .ok();
    let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(id) = id {
        if let Some((_, _, canon)) = cache.iter().find(|(r, i, _)| r == root && *i == id) {
            return canon.clone();
        }
    }
    let canon = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    cache.retain(|(r, _, _)| r != root);
    if cache.len() >= 16 {
        cache.remove(0);
    }
    if let Some(id) = id {
        cache.push((root.to_path_buf(), id, canon.clone()));
    }
    canon
}

pub use imp::{Dir, Followed, Held};

#[cfg(test)]
thread_local! {
    static FORCE_WALK: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Test-only: makes this thread resolve with the `openat` walk instead of openat2.
#[cfg(test)]
pub fn force_walk(on: bool) {
    FORCE_WALK.with(|f| f.set(on));
}

#[cfg(test)]
fn walk_forced() -> bool {
    FORCE_WALK.with(|f| f.get())
}

#[cfg(all(not(test), target_os = "linux"))]
fn walk_forced() -> bool {
    false
}

#[cfg(unix)]
mod imp {
    use std::collections::VecDeque;
    use std::ffi::{OsStr, OsString};
    use std::fs::File;
    use std::io;
    use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
    use std::os::unix::ffi::OsStrExt;
    use std::path::{Component, Path, PathBuf};
    use std::sync::atomic::{AtomicBool, Ordering as AtomicOrdering};
    use std::time::{Duration, SystemTime};

    use nix::errno::Errno;
    use nix::fcntl::{openat, readlinkat, renameat, AtFlags, OFlag};
    use nix::sys::stat::{fstat, fstatat, mkdirat, FileStat, Mode, SFlag};
    use nix::unistd::{linkat, unlinkat, UnlinkatFlags};
    use rustix::fs::FileType;

    use super::{escape, single, Created, Kind, RawEntry, Root, Stat, MAX_LINK_FOLLOWS};

    /// A file kept alive past the removal of its last name ([`Dir::stat_held`]).
    #[derive(Debug)]
    pub struct Held(#[allow(dead_code)] OwnedFd);

    /// A directory file descriptor. Every method acts on one name inside it and never
    /// follows a final symlink (except [`Dir::stat_follow`] and [`Dir::open_follow`]).
    #[derive(Debug)]
    pub struct Dir {
        fd: OwnedFd,
        /// The descriptor's offset may not be at the start (it was listed, or came from
        /// elsewhere, maybe sharing its offset with a duplicate): rewind before listing.
        rewind: AtomicBool,
    }

    /// How intermediate directories are opened by the walk: `O_PATH` where it exists (no read
    /// permission needed, as in path resolution), else read-only.
    #[cfg(target_os = "linux")]
    const WALK_DIR: OFlag = OFlag::O_PATH.union(OFlag::O_DIRECTORY);
    #[cfg(not(target_os = "linux"))]
    const WALK_DIR: OFlag = OFlag::O_RDONLY.union(OFlag::O_DIRECTORY);

    const DIR_FLAGS: OFlag = OFlag::O_RDONLY.union(OFlag::O_DIRECTORY);
    /// Reading never blocks (a FIFO cannot hang a call) and never takes a controlling terminal.
    const READ_FLAGS: OFlag = OFlag::O_RDONLY
        .union(OFlag::O_NONBLOCK)
        .union(OFlag::O_NOCTTY);

    // The casts are no-ops on Linux but not elsewhere (`st_mode` is u16 on macOS, `st_dev`
    // is signed on some BSDs).
    #[allow(clippy::unnecessary_cast)]
    fn to_stat(st: &FileStat) -> Stat {
        let fmt = SFlag::from_bits_truncate(st.st_mode as nix::libc::mode_t & SFlag::S_IFMT.bits());
        let kind = if fmt == SFlag::S_IFREG {
            Kind::File
        } else if fmt == SFlag::S_IFDIR {
            Kind::Dir
        } else if fmt == SFlag::S_IFLNK {
            Kind::Symlink
        } else {
            Kind::Other
        };
        let secs = st.st_mtime;
        let nanos = st.st_mtime_nsec;
        let mtime = if secs >= 0 {
            SystemTime::UNIX_EPOCH + Duration::new(secs as u64, nanos as u32)
        } else {
            // A timespec before 1970: whole seconds (negative) plus the nanoseconds after them.
            SystemTime::UNIX_EPOCH - Duration::from_secs(secs.unsigned_abs())
                + Duration::from_nanos(nanos as u64)
        };
        Stat {
            kind,
            len: st.st_size as u64,
            mode: (st.st_mode as u32) & 0o7777,
            uid: st.st_uid,
            gid: st.st_gid,
            mtime,
            dev: st.st_dev as u64,
            ino: st.st_ino as u64,
        }
    }

    impl Dir {
        /// A directory this layer just opened: its offset is at the start.
        fn new(fd: OwnedFd) -> Dir {
            Dir {
                fd,
                rewind: AtomicBool::new(false),
            }
        }

        /// Opens the directory at `path`, following symlinks in it (the root, and tests).
        pub fn open_path(path: &Path) -> io::Result<Dir> {
            let fd = nix::fcntl::open(path, DIR_FLAGS | OFlag::O_CLOEXEC, Mode::empty())?;
            Ok(Dir::new(fd))
        }

        /// Wraps an already open directory descriptor.
        pub fn from_fd(fd: OwnedFd) -> Dir {
            Dir {
                fd,
                rewind: AtomicBool::new(true),
            }
        }

        /// Every name in the directory but `.` and `..`, appended to `out`, with the type
        /// the listing gave (batched `getdents64` on Linux).
        pub fn list(&self, out: &mut Vec<RawEntry>) -> io::Result<()> {
            // getdents64 continues from the descriptor's offset: start at the beginning
            // (a freshly opened directory is there already).
            if self.rewind.swap(true, AtomicOrdering::Relaxed) {
                rustix::fs::seek(&self.fd, rustix::fs::SeekFrom::Start(0))?;
            }
            list_fd(&self.fd, out)
        }

        /// The canonical path of this directory, from the descriptor.
        pub fn real_path(&self) -> Option<PathBuf> {
            real_path(&self.fd)
        }

        /// Opens `name` following symlinks, for reading (a directory or a file), and says
        /// what was opened. The caller checks [`Followed::real_path`] of the object it now
        /// holds.
        pub fn open_follow(&self, name: &OsStr) -> io::Result<Followed> {
            single(name)?;
            let fd = openat(&self.fd, name, READ_FLAGS | OFlag::O_CLOEXEC, Mode::empty())?;
            let meta = to_stat(&fstat(&fd)?);
            Ok(Followed { fd, meta })
        }

        /// The directory fd.
        pub fn as_fd(&self) -> BorrowedFd<'_> {
            self.fd.as_fd()
        }

        /// A second handle on the same directory (sharing its offset).
        pub fn try_clone(&self) -> io::Result<Dir> {
            Ok(Dir::from_fd(self.fd.try_clone()?))
        }

        /// The directory itself.
        pub fn stat_self(&self) -> io::Result<Stat> {
            Ok(to_stat(&fstat(&self.fd)?))
        }

        /// `name` itself (a symlink is reported as one).
        pub fn stat(&self, name: &OsStr) -> io::Result<Stat> {
            single(name)?;
            Ok(to_stat(&fstatat(
                &self.fd,
                name,
                AtFlags::AT_SYMLINK_NOFOLLOW,
            )?))
        }

        /// [`Dir::stat`] of `name`, with a handle that keeps what was statted alive: when a
        /// rename or unlink then drops the last name of that file, its blocks are freed only
        /// when the handle is dropped (on Linux an `O_PATH` descriptor, which needs no
        /// permission on the file; elsewhere no handle, and the name's removal frees them).
        pub fn stat_held(&self, name: &OsStr) -> io::Result<(Stat, Option<Held>)> {
            #[cfg(target_os = "linux")]
            {
                single(name)?;
                let fd = openat(
                    &self.fd,
                    name,
                    OFlag::O_PATH | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC,
                    Mode::empty(),
                )?;
                let st = to_stat(&fstat(&fd)?);
                Ok((st, Some(Held(fd))))
            }
            #[cfg(not(target_os = "linux"))]
            {
                Ok((self.stat(name)?, None))
            }
        }

        /// `name`, following a final symlink wherever it points (metadata only; list_dir
        /// shows a link's target type and size).
        pub fn stat_follow(&self, name: &OsStr) -> io::Result<Stat> {
            single(name)?;
            Ok(to_stat(&fstatat(&self.fd, name, AtFlags::empty())?))
        }

        /// Opens `name` for reading (non-blocking); a symlink is refused (`ELOOP`).
        pub fn open_file(&self, name: &OsStr) -> io::Result<File> {
            single(name)?;
            let fd = openat(
                &self.fd,
                name,
                READ_FLAGS | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC,
                Mode::empty(),
            )?;
            Ok(File::from(fd))
        }

        /// Opens the subdirectory `name`; a symlink is refused.
        pub fn open_dir(&self, name: &OsStr) -> io::Result<Dir> {
            single(name)?;
            let fd = openat(
                &self.fd,
                name,
                DIR_FLAGS | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC,
                Mode::empty(),
            )?;
            Ok(Dir::new(fd))
        }

        /// Creates the file `name` for writing; fails if anything exists under that name.
        pub fn create_new(&self, name: &OsStr, mode: u32) -> io::Result<File> {
            single(name)?;
            let fd = openat(
                &self.fd,
                name,
                OFlag::O_WRONLY
                    | OFlag::O_CREAT
                    | OFlag::O_EXCL
                    | OFlag::O_NOFOLLOW
                    | OFlag::O_CLOEXEC,
                Mode::from_bits_truncate(mode as nix::libc::mode_t),
            )?;
            Ok(File::from(fd))
        }

        /// Creates a new file in this directory under a fresh name from `name` (the caller's
        /// temp-name policy), retrying when the name is taken.
        pub fn create_temp(
            &self,
            name: impl Fn() -> OsString,
            mode: u32,
        ) -> io::Result<(OsString, File)> {
            let mut tries = 0;
            loop {
                let name = name();
                match self.create_new(&name, mode) {
                    Ok(f) => return Ok((name, f)),
                    Err(e) if e.kind() == io::ErrorKind::AlreadyExists && tries < 16 => tries += 1,
                    Err(e) => return Err(e),
                }
            }
        }

        /// Renames `from` in this directory to `to` in `to_dir` (replacing a file there).
        pub fn rename(&self, from: &OsStr, to_dir: &Dir, to: &OsStr) -> io::Result<()> {
            single(from)?;
            single(to)?;
            Ok(renameat(&self.fd, from, &to_dir.fd, to)?)
        }

        /// Hard-links `from` in this directory as `to` in `to_dir` (never following `from`).
        pub fn hard_link(&self, from: &OsStr, to_dir: &Dir, to: &OsStr) -> io::Result<()> {
            single(from)?;
            single(to)?;
            Ok(linkat(&self.fd, from, &to_dir.fd, to, AtFlags::empty())?)
        }

        pub fn remove_file(&self, name: &OsStr) -> io::Result<()> {
            single(name)?;
            Ok(unlinkat(&self.fd, name, UnlinkatFlags::NoRemoveDir)?)
        }

        /// Removes the empty directory `name`.
        pub fn remove_dir(&self, name: &OsStr) -> io::Result<()> {
            single(name)?;
            Ok(unlinkat(&self.fd, name, UnlinkatFlags::RemoveDir)?)
        }

        pub fn mkdir(&self, name: &OsStr, mode: u32) -> io::Result<()> {
            single(name)?;
            Ok(mkdirat(
                &self.fd,
                name,
                Mode::from_bits_truncate(mode as nix::libc::mode_t),
            )?)
        }

        pub fn read_link(&self, name: &OsStr) -> io::Result<PathBuf> {
            single(name)?;
            Ok(readlinkat(&self.fd, name)?.into())
        }

        /// The names in this directory (without `.` and `..`), in directory order, listed
        /// through a descriptor of its own (so this one's offset is left alone).
        pub fn entries(&self) -> io::Result<Vec<OsString>> {
            let fd = openat(&self.fd, ".", DIR_FLAGS | OFlag::O_CLOEXEC, Mode::empty())?;
            let mut entries = Vec::new();
            list_fd(&fd, &mut entries)?;
            Ok(entries.into_iter().map(|e| e.name).collect())
        }

        /// fsync of the directory (best effort: some file systems refuse it).
        pub fn sync(&self) {
            let _ = nix::unistd::fsync(&self.fd);
        }

        /// A path that names this very directory for a child process's `chdir`
        /// (`/proc/self/fd/N`), when `/proc` is mounted. The fd must stay open until the
        /// child has changed directory.
        pub fn proc_path(&self) -> Option<PathBuf> {
            #[cfg(target_os = "linux")]
            {
                use std::os::fd::AsRawFd;
                // Looked at once: a process's `/proc` does not come and go.
                static PROC_FD: std::sync::LazyLock<bool> =
                    std::sync::LazyLock::new(|| Path::new("/proc/self/fd").is_dir());
                if *PROC_FD {
                    return Some(format!("/proc/self/fd/{}", self.fd.as_raw_fd()).into());
                }
            }
            None
        }
    }

    pub fn path_id(path: &Path) -> io::Result<(u64, u64)> {
        use std::os::unix::fs::MetadataExt;
        let m = std::fs::metadata(path)?;
        Ok((m.dev(), m.ino()))
    }

    pub fn open_root(path: &Path) -> io::Result<Dir> {
        Dir::open_path(path)
    }

    /// An object opened through a symlink.
    #[derive(Debug)]
    pub struct Followed {
        fd: OwnedFd,
        pub meta: Stat,
    }

    impl Followed {
        /// Where the opened object really is (its canonical path), from the descriptor itself.
        pub fn real_path(&self) -> Option<PathBuf> {
            real_path(&self.fd)
        }
        pub fn into_dir(self) -> Dir {
            Dir::new(self.fd)
        }
        pub fn into_file(self) -> io::Result<File> {
            Ok(File::from(self.fd))
        }
    }

    fn kind_of(ft: FileType) -> Kind {
        match ft {
            FileType::RegularFile => Kind::File,
            FileType::Directory => Kind::Dir,
            FileType::Symlink => Kind::Symlink,
            _ => Kind::Other,
        }
    }

    /// The canonical path of what `fd` refers to, if the platform can tell.
    #[cfg(any(target_os = "linux", target_os = "android"))]
    fn real_path(fd: &OwnedFd) -> Option<PathBuf> {
        use std::os::fd::AsRawFd;
        let link = std::fs::read_link(format!("/proc/self/fd/{}", fd.as_raw_fd())).ok()?;
        // A deleted object reads back as "<path> (deleted)": not a place to trust.
        (link.is_absolute() && !link.as_os_str().as_bytes().ends_with(b" (deleted)"))
            .then_some(link)
    }

    #[cfg(any(target_os = "macos", target_os = "ios"))]
    fn real_path(fd: &OwnedFd) -> Option<PathBuf> {
        rustix::fs::getpath(fd)
            .ok()
            .map(|c| PathBuf::from(OsStr::from_bytes(c.as_bytes())))
    }

    #[cfg(not(any(
        target_os = "linux",
        target_os = "android",
        target_os = "macos",
        target_os = "ios"
    )))]
    fn real_path(_fd: &OwnedFd) -> Option<PathBuf> {
        None
    }

    #[cfg(any(target_os = "linux", target_os = "android"))]
    fn list_fd(fd: &OwnedFd, out: &mut Vec<RawEntry>) -> io::Result<()> {
        use std::mem::MaybeUninit;
        thread_local! {
            static BUF: std::cell::RefCell<Vec<MaybeUninit<u8>>> =
                std::cell::RefCell::new(vec![MaybeUninit::uninit(); 32 * 1024]);
        }
        BUF.with(|buf| {
            let mut buf = buf.borrow_mut();
            let mut iter = rustix::fs::RawDir::new(fd.as_fd(), &mut buf[..]);
            while let Some(entry) = iter.next() {
                let entry = entry?;
                push_entry(out, entry.file_name().to_bytes(), entry.file_type());
            }
            Ok(())
        })
    }

    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    fn list_fd(fd: &OwnedFd, out: &mut Vec<RawEntry>) -> io::Result<()> {
        let mut dir = rustix::fs::Dir::read_from(fd)?;
        while let Some(entry) = dir.read() {
            let entry = entry?;
            push_entry(out, entry.file_name().to_bytes(), entry.file_type());
        }
        Ok(())
    }

    /// Appends one listed name (but `.` and `..`) with the type the listing gave.
    fn push_entry(out: &mut Vec<RawEntry>, name: &[u8], ft: FileType) {
        if name == b"." || name == b".." {
            return;
        }
        let kind = match ft {
            FileType::Unknown => None,
            ft => Some(kind_of(ft)),
        };
        out.push(RawEntry {
            name: OsStr::from_bytes(name).to_os_string(),
            kind,
        });
    }

    /// What to do with the last component.
    #[derive(Clone, Copy)]
    enum Goal {
        /// Open it with these flags, following a final link (inside) when `follow`.
        Open { flags: OFlag, follow: bool },
        /// Only decide whether the path stays inside.
        Check,
    }

    // -----------------------------------------------------------------------------------
    // openat2 (Linux)

    #[cfg(target_os = "linux")]
    mod fast {
        use std::os::fd::{AsFd, OwnedFd};
        use std::path::Path;
        use std::sync::atomic::{AtomicU8, Ordering};

        use nix::errno::Errno;
        use nix::fcntl::{openat2, OFlag, OpenHow, ResolveFlag};

        /// 0 = not probed, 1 = works, 2 = unavailable.
        static STATE: AtomicU8 = AtomicU8::new(0);

        fn available(root: impl AsFd) -> bool {
            match STATE.load(Ordering::Relaxed) {
                1 => true,
                2 => false,
                _ => {
                    let how = OpenHow::new()
                        .flags(OFlag::O_PATH | OFlag::O_CLOEXEC)
                        .resolve(ResolveFlag::RESOLVE_BENEATH);
                    let ok = !matches!(
                        openat2(root.as_fd(), ".", how),
                        Err(Errno::ENOSYS | Errno::EPERM | Errno::EINVAL | Errno::E2BIG)
                    );
                    STATE.store(if ok { 1 } else { 2 }, Ordering::Relaxed);
                    ok
                }
            }
        }

        /// `None`: use the walk (openat2 missing, or an answer only the walk can refine).
        pub fn open(
            root: impl AsFd + Copy,
            confined: bool,
            rel: &Path,
            flags: OFlag,
        ) -> Option<nix::Result<OwnedFd>> {
            if super::super::walk_forced() || !available(root) {
                return None;
            }
            let path = if rel.as_os_str().is_empty() {
                Path::new(".")
            } else {
                rel
            };
            let resolve = if confined {
                ResolveFlag::RESOLVE_BENEATH | ResolveFlag::RESOLVE_NO_MAGICLINKS
            } else {
                ResolveFlag::RESOLVE_NO_MAGICLINKS
            };
            let how = OpenHow::new()
                .flags(flags | OFlag::O_CLOEXEC)
                .resolve(resolve);
            for _ in 0..4 {
                match openat2(root.as_fd(), path, how) {
                    Err(Errno::EAGAIN) => continue,
                    // EXDEV: a step outside, or an absolute link the walk may allow.
                    // ELOOP: a loop, or a final link under O_NOFOLLOW: the walk decides.
                    Err(Errno::EXDEV | Errno::ELOOP) => return None,
                    other => return Some(other),
                }
            }
            None
        }
    }

    #[cfg(not(target_os = "linux"))]
    mod fast {
        use std::os::fd::{AsFd, OwnedFd};
        use std::path::Path;

        use nix::fcntl::OFlag;

        pub fn open(
            _root: impl AsFd + Copy,
            _confined: bool,
            _rel: &Path,
            _flags: OFlag,
        ) -> Option<nix::Result<OwnedFd>> {
            None
        }
    }

    // -----------------------------------------------------------------------------------
    // The walk

    struct Walk<'r> {
        root: &'r Root,
        stack: Vec<OwnedFd>,
        todo: VecDeque<OsString>,
        follows: usize,
    }

    fn push_front(todo: &mut VecDeque<OsString>, path: &Path) {
        let parts: Vec<OsString> = path
            .components()
            .filter_map(|c| match c {
                Component::Normal(n) => Some(n.to_os_string()),
                Component::ParentDir => Some(OsString::from("..")),
                _ => None,
            })
            .collect();
        for p in parts.into_iter().rev() {
            todo.push_front(p);
        }
    }

    impl<'r> Walk<'r> {
        fn new(root: &'r Root, rel: &Path) -> Walk<'r> {
            let mut todo = VecDeque::new();
            push_front(&mut todo, rel);
            Walk {
                root,
                stack: Vec::new(),
                todo,
                follows: 0,
            }
        }

        fn cur(&self) -> BorrowedFd<'_> {
            self.stack
                .last()
                .map_or(self.root.dir.fd.as_fd(), |f| f.as_fd())
        }

        /// Steps up one directory; above the root is an escape (when confined).
        fn up(&mut self) -> io::Result<()> {
            if self.stack.pop().is_none() && self.root.confined {
                return Err(escape());
            }
            Ok(())
        }

        /// Continues the walk through the link target `target` (met in the current dir).
        fn splice(&mut self, target: &Path) -> io::Result<()> {
            self.follows += 1;
            if self.follows > MAX_LINK_FOLLOWS {
                return Err(io::Error::from(Errno::ELOOP));
            }
            if target.is_absolute() {
                let rest = if self.root.confined {
                    target
                        .strip_prefix(&self.root.canon)
                        .or_else(|_| target.strip_prefix(&self.root.path))
                        .map_err(|_| escape())?
                } else {
                    target.strip_prefix("/").unwrap_or(target)
                };
                self.stack.clear();
                push_front(&mut self.todo, rest);
            } else {
                push_front(&mut self.todo, target);
            }
            Ok(())
        }

        /// The link target of `name` in the current directory, if it is a symlink.
        fn link(&self, name: &OsStr) -> Option<std::path::PathBuf> {
            readlinkat(self.cur(), name).ok().map(Into::into)
        }

        fn run(
            mut self,
            goal: Goal,
            mut created: Option<&mut Created>,
        ) -> io::Result<Option<OwnedFd>> {
            if self.todo.is_empty() {
                return match goal {
                    Goal::Check => Ok(None),
                    Goal::Open { flags, .. } => Ok(Some(openat(
                        self.cur(),
                        ".",
                        flags | OFlag::O_CLOEXEC,
                        Mode::empty(),
                    )?)),
                };
            }
            while let Some(name) = self.todo.pop_front() {
                if name == ".." {
                    self.up()?;
                    if self.todo.is_empty() {
                        self.todo.push_back(".".into());
                    }
                    continue;
                }
                let last = self.todo.is_empty();
                if last {
                    match goal {
                        Goal::Check => {
                            if name == "." {
                                return Ok(None);
                            }
                            match self.link(&name) {
                                Some(target) => {
                                    self.splice(&target)?;
                                    continue;
                                }
                                None => return Ok(None),
                            }
                        }
                        Goal::Open { flags, follow } => {
                            let opened = openat(
                                self.cur(),
                                name.as_os_str(),
                                flags | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC,
                                Mode::empty(),
                            );
                            match opened {
                                // O_PATH | O_NOFOLLOW opens a final link itself: follow it.
                                Ok(fd) if follow && o_path_link(flags, &fd) => {
                                    if let Some(target) = self.link(&name) {
                                        self.splice(&target)?;
                                        continue;
                                    }
                                    return Ok(Some(fd));
                                }
                                Ok(fd) => return Ok(Some(fd)),
                                Err(e) => {
                                    if follow && name != "." {
                                        if let Some(target) = self.link(&name) {
                                            self.splice(&target)?;
                                            continue;
                                        }
                                    }
                                    if e == Errno::ENOENT && name != "." {
                                        if let Some(created) = created.as_deref_mut() {
                                            self.make_dir(&name, created)?;
                                            self.todo.push_front(name);
                                            continue;
                                        }
                                    }
                                    return Err(e.into());
                                }
                            }
                        }
                    }
                }
                if name == "." {
                    continue;
                }
                match openat(
                    self.cur(),
                    name.as_os_str(),
                    WALK_DIR | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC,
                    Mode::empty(),
                ) {
                    Ok(fd) => self.stack.push(fd),
                    Err(e) => {
                        if let Some(target) = self.link(&name) {
                            self.splice(&target)?;
                            continue;
                        }
                        if let Goal::Check = goal {
                            // Nothing (or no directory) here: what remains is plain names,
                            // judged lexically.
                            return self.lexical_rest();
                        }
                        if e == Errno::ENOENT {
                            if let Some(created) = created.as_deref_mut() {
                                self.make_dir(&name, created)?;
                                self.todo.push_front(name);
                                continue;
                            }
                        }
                        return Err(e.into());
                    }
                }
            }
            Ok(None)
        }

        /// The rest of a checked path after a component that does not exist.
        fn lexical_rest(mut self) -> io::Result<Option<OwnedFd>> {
            let mut extra = 1usize;
            while let Some(name) = self.todo.pop_front() {
                if name == ".." {
                    if extra > 0 {
                        extra -= 1;
                    } else {
                        self.up()?;
                    }
                } else if name != "." {
                    extra += 1;
                }
            }
            Ok(None)
        }

        fn make_dir(&mut self, name: &OsStr, created: &mut Created) -> io::Result<()> {
            match mkdirat(self.cur(), name, Mode::from_bits_truncate(0o777)) {
                Ok(()) => {
                    let parent = Dir::new(self.cur().try_clone_to_owned()?);
                    created.push((parent, name.to_os_string()));
                    Ok(())
                }
                Err(Errno::EEXIST) => Ok(()),
                Err(e) => Err(e.into()),
            }
        }
    }

    #[cfg(target_os = "linux")]
    fn o_path_link(flags: OFlag, fd: &OwnedFd) -> bool {
        flags.contains(OFlag::O_PATH)
            && fstat(fd).is_ok_and(|st| to_stat(&st).kind == Kind::Symlink)
    }

    #[cfg(not(target_os = "linux"))]
    fn o_path_link(_flags: OFlag, _fd: &OwnedFd) -> bool {
        false
    }

    fn open_beneath(
        root: &Root,
        rel: &Path,
        flags: OFlag,
        follow: bool,
        created: Option<&mut Created>,
    ) -> io::Result<OwnedFd> {
        let fast_flags = if follow {
            flags
        } else {
            flags | OFlag::O_NOFOLLOW
        };
        match fast::open(root.dir.fd.as_fd(), root.confined, rel, fast_flags) {
            Some(Ok(fd)) => return Ok(fd),
            Some(Err(Errno::ENOENT)) if created.is_some() => {}
            Some(Err(e)) => return Err(e.into()),
            None => {}
        }
        Walk::new(root, rel)
            .run(Goal::Open { flags, follow }, created)?
            .ok_or_else(|| io::Error::from(io::ErrorKind::NotFound))
    }

    pub fn open_read(root: &Root, rel: &Path) -> io::Result<File> {
        Ok(File::from(open_beneath(root, rel, READ_FLAGS, true, None)?))
    }

    pub fn open_dir(root: &Root, rel: &Path) -> io::Result<Dir> {
        Ok(Dir::new(open_beneath(root, rel, DIR_FLAGS, true, None)?))
    }

    pub fn open_parent_dir(
        root: &Root,
        rel: &Path,
        created: Option<&mut Created>,
    ) -> io::Result<Dir> {
        Ok(Dir::new(open_beneath(root, rel, DIR_FLAGS, true, created)?))
    }

    pub fn stat(root: &Root, rel: &Path) -> io::Result<Stat> {
        #[cfg(target_os = "linux")]
        let flags = OFlag::O_PATH;
        #[cfg(not(target_os = "linux"))]
        let flags = READ_FLAGS;
        let fd = open_beneath(root, rel, flags, true, None)?;
        Ok(to_stat(&fstat(&fd)?))
    }

    pub fn check(root: &Root, rel: &Path) -> io::Result<()> {
        #[cfg(target_os = "linux")]
        {
            // The common case in one syscall: the path exists and is no link (a final link
            // may dangle, so it goes to the walk).
            let flags = OFlag::O_PATH | OFlag::O_NOFOLLOW;
            if let Some(Ok(fd)) = fast::open(root.dir.fd.as_fd(), root.confined, rel, flags) {
                if fstat(&fd).is_ok_and(|st| to_stat(&st).kind != Kind::Symlink) {
                    return Ok(());
                }
            }
        }
        // A symlink loop is `ELOOP`: the caller decides whether that is an escape.
        Walk::new(root, rel).run(Goal::Check, None).map(|_| ())
    }
}

#[cfg(not(unix))]
mod imp {
    //! Path-based fallback: a `Dir` is a path, and every operation joins a name to it. The
    //! confinement check is the lexical and canonical one in `paths::resolve`; nothing here
    //! closes the race between that check and the I/O.

    /// Never made here ([`Dir::stat_held`]).
    #[derive(Debug)]
    pub enum Held {}

    use std::ffi::{OsStr, OsString};
    use std::fs::{self, File};
    use std::io;
    use std::path::{Path, PathBuf};

    use super::{single, Created, Kind, RawEntry, Root, Stat};

    #[derive(Debug)]
    pub struct Dir {
        path: PathBuf,
    }

    /// An object opened through a symlink (here: its path).
    #[derive(Debug)]
    pub struct Followed {
        path: PathBuf,
        pub meta: Stat,
    }

    impl Followed {
        pub fn real_path(&self) -> Option<PathBuf> {
            fs::canonicalize(&self.path).ok()
        }
        pub fn into_dir(self) -> Dir {
            Dir { path: self.path }
        }
        pub fn into_file(self) -> io::Result<File> {
            File::open(&self.path)
        }
    }

    fn to_stat(m: &fs::Metadata) -> Stat {
        Stat {
            kind: Kind::of(m.file_type()),
            len: m.len(),
            mode: if m.permissions().readonly() {
                0o444
            } else {
                0o666
            },
            uid: 0,
            gid: 0,
            mtime: m.modified().unwrap_or(std::time::SystemTime::UNIX_EPOCH),
            dev: 0,
            ino: 0,
        }
    }

    impl Dir {
        fn at(&self, name: &OsStr) -> io::Result<PathBuf> {
            single(name)?;
            Ok(self.path.join(name))
        }
        pub fn try_clone(&self) -> io::Result<Dir> {
            Ok(Dir {
                path: self.path.clone(),
            })
        }
        pub fn open_path(path: &Path) -> io::Result<Dir> {
            if !fs::metadata(path)?.is_dir() {
                return Err(io::Error::from(io::ErrorKind::NotADirectory));
            }
            Ok(Dir {
                path: path.to_path_buf(),
            })
        }
        pub fn list(&self, out: &mut Vec<RawEntry>) -> io::Result<()> {
            for entry in fs::read_dir(&self.path)? {
                let entry = entry?;
                let kind = entry.file_type().ok().map(Kind::of);
                out.push(RawEntry {
                    name: entry.file_name(),
                    kind,
                });
            }
            Ok(())
        }
        pub fn real_path(&self) -> Option<PathBuf> {
            fs::canonicalize(&self.path).ok()
        }
        pub fn open_follow(&self, name: &OsStr) -> io::Result<Followed> {
            let path = self.at(name)?;
            let meta = to_stat(&fs::metadata(&path)?);
            Ok(Followed { path, meta })
        }
        pub fn stat_self(&self) -> io::Result<Stat> {
            Ok(to_stat(&fs::metadata(&self.path)?))
        }
        pub fn stat(&self, name: &OsStr) -> io::Result<Stat> {
            Ok(to_stat(&fs::symlink_metadata(self.at(name)?)?))
        }
        /// No handle here: an open file would block its own replacement on Windows.
        pub fn stat_held(&self, name: &OsStr) -> io::Result<(Stat, Option<Held>)> {
            Ok((self.stat(name)?, None))
        }
        pub fn stat_follow(&self, name: &OsStr) -> io::Result<Stat> {
            Ok(to_stat(&fs::metadata(self.at(name)?)?))
        }
        pub fn open_file(&self, name: &OsStr) -> io::Result<File> {
            File::open(self.at(name)?)
        }
        pub fn open_dir(&self, name: &OsStr) -> io::Result<Dir> {
            let path = self.at(name)?;
            if fs::symlink_metadata(&path)?.is_dir() {
                Ok(Dir { path })
            } else {
                Err(io::Error::from(io::ErrorKind::NotADirectory))
            }
        }
        pub fn create_new(&self, name: &OsStr, _mode: u32) -> io::Result<File> {
            fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(self.at(name)?)
        }
        pub fn create_temp(
            &self,
            name: impl Fn() -> OsString,
            mode: u32,
        ) -> io::Result<(OsString, File)> {
            let name = name();
            let f = self.create_new(&name, mode)?;
            Ok((name, f))
        }
        pub fn rename(&self, from: &OsStr, to_dir: &Dir, to: &OsStr) -> io::Result<()> {
            fs::rename(self.at(from)?, to_dir.at(to)?)
        }
        pub fn hard_link(&self, from: &OsStr, to_dir: &Dir, to: &OsStr) -> io::Result<()> {
            fs::hard_link(self.at(from)?, to_dir.at(to)?)
        }
        pub fn remove_file(&self, name: &OsStr) -> io::Result<()> {
            fs::remove_file(self.at(name)?)
        }
        pub fn remove_dir(&self, name: &OsStr) -> io::Result<()> {
            fs::remove_dir(self.at(name)?)
        }
        pub fn mkdir(&self, name: &OsStr, _mode: u32) -> io::Result<()> {
            fs::create_dir(self.at(name)?)
        }
        pub fn read_link(&self, name: &OsStr) -> io::Result<PathBuf> {
            fs::read_link(self.at(name)?)
        }
        pub fn entries(&self) -> io::Result<Vec<OsString>> {
            fs::read_dir(&self.path)?
                .map(|e| e.map(|e| e.file_name()))
                .collect()
        }
        pub fn sync(&self) {}
        pub fn proc_path(&self) -> Option<PathBuf> {
            Some(self.path.clone())
        }
    }

    pub fn path_id(path: &Path) -> io::Result<(u64, u64)> {
        fs::metadata(path).map(|_| (0, 0))
    }

    pub fn open_root(path: &Path) -> io::Result<Dir> {
        Ok(Dir {
            path: path.to_path_buf(),
        })
    }

    fn join(root: &Root, rel: &Path) -> PathBuf {
        if rel.as_os_str().is_empty() {
            root.path.clone()
        } else {
            root.path.join(rel)
        }
    }

    pub fn open_read(root: &Root, rel: &Path) -> io::Result<File> {
        File::open(join(root, rel))
    }

    pub fn open_dir(root: &Root, rel: &Path) -> io::Result<Dir> {
        let path = join(root, rel);
        if fs::metadata(&path)?.is_dir() {
            Ok(Dir { path })
        } else {
            Err(io::Error::from(io::ErrorKind::NotADirectory))
        }
    }

    pub fn open_parent_dir(
        root: &Root,
        rel: &Path,
        created: Option<&mut Created>,
    ) -> io::Result<Dir> {
        let path = join(root, rel);
        if let Some(created) = created {
            let mut missing = Vec::new();
            let mut cur = Some(path.as_path());
            while let Some(d) = cur {
                if fs::symlink_metadata(d).is_ok() {
                    break;
                }
                missing.push(d.to_path_buf());
                cur = d.parent();
            }
            for d in missing.into_iter().rev() {
                match fs::create_dir(&d) {
                    Ok(()) => {
                        let parent = d.parent().unwrap_or(Path::new("/")).to_path_buf();
                        let name = d.file_name().unwrap_or_default().to_os_string();
                        created.push((Dir { path: parent }, name));
                    }
                    Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
                    Err(e) => return Err(e),
                }
            }
        }
        open_dir(root, rel)
    }

    pub fn stat(root: &Root, rel: &Path) -> io::Result<Stat> {
        Ok(to_stat(&fs::metadata(join(root, rel))?))
    }

    pub fn check(_root: &Root, _rel: &Path) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use crate::error::is_escape;
    use std::fs;
    use std::os::unix::fs::symlink;

    fn wp(root: &Path, rel: &str) -> WorkPath {
        WorkPath::beneath(root, root.join(rel), rel.to_string())
    }

    /// Runs `f` once with openat2 (where the kernel has it) and once with the openat walk.
    fn both(f: impl Fn()) {
        for walk in [false, true] {
            force_walk(walk);
            f();
        }
        force_walk(false);
    }

    fn read(path: &WorkPath) -> io::Result<String> {
        use std::io::Read;
        let mut s = String::new();
        open_read(path)?.read_to_string(&mut s)?;
        Ok(s)
    }

    #[test]
    fn inside_links_are_followed_outside_ones_escape() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let root = &fs::canonicalize(dir.path()).unwrap();
        fs::write(outside.path().join("canary"), "secret").unwrap();
        fs::create_dir(root.join("d")).unwrap();
        fs::write(root.join("d/f.txt"), "inside").unwrap();
        symlink("d", root.join("rel")).unwrap();
        symlink(root.join("d"), root.join("abs")).unwrap();
        symlink("../d/f.txt", root.join("d/up")).unwrap();
        symlink(outside.path(), root.join("out")).unwrap();
        symlink("../../../../../../../../etc/passwd", root.join("climb")).unwrap();
        symlink("loop2", root.join("loop1")).unwrap();
        symlink("loop1", root.join("loop2")).unwrap();
        both(|| {
            assert_eq!(read(&wp(root, "d/f.txt")).unwrap(), "inside");
            assert_eq!(read(&wp(root, "rel/f.txt")).unwrap(), "inside");
            assert_eq!(
                read(&wp(root, "abs/f.txt")).unwrap(),
                "inside",
                "absolute link inside"
            );
            assert_eq!(read(&wp(root, "d/up")).unwrap(), "inside");
            for bad in ["out/canary", "climb"] {
                let e = read(&wp(root, bad)).unwrap_err();
                assert!(is_escape(&e), "{bad}: {e:?}");
            }
            assert!(read(&wp(root, "loop1")).is_err());
            assert!(open_dir(&wp(root, "abs")).is_ok());
            assert!(is_escape(&open_dir(&wp(root, "out")).unwrap_err()));
            let e = open_parent(&wp(root, "out/new.txt"), None).unwrap_err();
            assert!(is_escape(&e), "{e:?}");
            assert!(stat(&wp(root, "abs")).unwrap().is_dir());
            assert_eq!(lstat(&wp(root, "abs")).unwrap().kind, Kind::Symlink);
            assert_eq!(lstat(&wp(root, "rel/f.txt")).unwrap().len, 6);
            assert!(lstat(&wp(root, "")).unwrap().is_dir());
            // The check walks what exists and judges the rest lexically.
            assert!(check(&wp(root, "abs/new/deeper.txt")).is_ok());
            assert!(check(&wp(root, "missing/x")).is_ok());
            for bad in ["out/new.txt", "out", "climb"] {
                assert!(is_escape(&check(&wp(root, bad)).unwrap_err()), "{bad}");
            }
            // A loop is ELOOP, which the caller judges (paths::check_links).
            let e = check(&wp(root, "loop1/x")).unwrap_err();
            assert_eq!(
                e.raw_os_error(),
                Some(nix::errno::Errno::ELOOP as i32),
                "{e:?}"
            );
        });
    }

    #[test]
    fn parents_are_created_and_recorded() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        both(|| {
            let mut created = Created::new();
            let (d, name) = open_parent(&wp(root, "a/b/c.txt"), Some(&mut created)).unwrap();
            assert_eq!(name, "c.txt");
            d.create_new(OsStr::new("c.txt"), 0o644).unwrap();
            assert!(root.join("a/b/c.txt").is_file());
            let names: Vec<_> = created.iter().map(|(_, n)| n.clone()).collect();
            assert_eq!(names, ["a", "b"]);
            fs::remove_dir_all(root.join("a")).unwrap();
        });
        assert_eq!(
            open_parent(&wp(root, "nope/x"), None).unwrap_err().kind(),
            io::ErrorKind::NotFound
        );
        assert_eq!(
            open_parent(&wp(root, ""), None).unwrap_err().kind(),
            io::ErrorKind::IsADirectory
        );
    }

    #[test]
    fn dir_methods_never_follow_a_final_link() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        fs::write(outside.path().join("canary"), "secret").unwrap();
        symlink(outside.path().join("canary"), dir.path().join("l")).unwrap();
        symlink(outside.path(), dir.path().join("ld")).unwrap();
        let root = Root::get(dir.path(), true).unwrap();
        let d = root.dir();
        assert_eq!(d.stat(OsStr::new("l")).unwrap().kind, Kind::Symlink);
        assert!(d.open_file(OsStr::new("l")).is_err());
        assert!(d.open_dir(OsStr::new("ld")).is_err());
        assert!(d.stat(OsStr::new("a/b")).is_err(), "one component only");
        assert!(d.create_new(OsStr::new("l"), 0o644).is_err());
        assert_eq!(
            fs::read_to_string(outside.path().join("canary")).unwrap(),
            "secret"
        );
        let (name, _) = d
            .create_temp(|| OsString::from("made-by-caller"), 0o600)
            .unwrap();
        assert_eq!(name, "made-by-caller");
        let taken = d.create_temp(|| OsString::from("made-by-caller"), 0o600);
        assert_eq!(taken.unwrap_err().kind(), io::ErrorKind::AlreadyExists);
        let mut names = d.entries().unwrap();
        names.sort();
        assert_eq!(names.len(), 3);
    }

    #[test]
    fn a_replaced_root_is_reopened() {
        let parent = tempfile::tempdir().unwrap();
        let root = parent.path().join("ws");
        fs::create_dir(&root).unwrap();
        fs::write(root.join("f"), "one").unwrap();
        assert_eq!(read(&wp(&root, "f")).unwrap(), "one");
        fs::rename(&root, parent.path().join("old")).unwrap();
        fs::create_dir(&root).unwrap();
        fs::write(root.join("f"), "two").unwrap();
        assert_eq!(read(&wp(&root, "f")).unwrap(), "two");
    }

    #[test]
    fn unconfined_paths_follow_everything() {
        let outside = tempfile::tempdir().unwrap();
        let dir = tempfile::tempdir().unwrap();
        fs::write(outside.path().join("canary"), "secret").unwrap();
        symlink(outside.path(), dir.path().join("out")).unwrap();
        let p = WorkPath {
            abs: dir.path().join("out/canary"),
            display: "out/canary".into(),
            input: "out/canary".into(),
            within: None,
            root: Default::default(),
        };
        both(|| assert_eq!(read(&p).unwrap(), "secret"));
    }

    #[test]
    fn lists_opens_and_refuses_links() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir(root.join("sub")).unwrap();
        std::fs::write(root.join("f.txt"), "hello").unwrap();
        std::os::unix::fs::symlink(root.join("sub"), root.join("link")).unwrap();
        std::os::unix::fs::symlink(root.join("f.txt"), root.join("flink")).unwrap();
        let d = Dir::open_path(root).unwrap();
        let mut names = Vec::new();
        d.list(&mut names).unwrap();
        let mut got: Vec<(String, Option<Kind>)> = names
            .into_iter()
            .map(|e| (e.name.to_string_lossy().into_owned(), e.kind))
            .collect();
        got.sort_by(|a, b| a.0.cmp(&b.0));
        assert_eq!(
            got,
            [
                ("f.txt".to_string(), Some(Kind::File)),
                ("flink".to_string(), Some(Kind::Symlink)),
                ("link".to_string(), Some(Kind::Symlink)),
                ("sub".to_string(), Some(Kind::Dir)),
            ]
        );
        assert!(d.open_dir(OsStr::new("sub")).is_ok());
        assert!(d.open_dir(OsStr::new("link")).is_err());
        assert!(d.open_file(OsStr::new("flink")).is_err());
        assert_eq!(d.stat(OsStr::new("f.txt")).unwrap().len, 5);
        let f = d.open_follow(OsStr::new("link")).unwrap();
        assert_eq!(f.meta.kind, Kind::Dir);
        assert_eq!(
            f.real_path().unwrap(),
            std::fs::canonicalize(root.join("sub")).unwrap()
        );
        // Listing twice gives the same names (the offset is rewound).
        let mut again = Vec::new();
        d.list(&mut again).unwrap();
        d.list(&mut again).unwrap();
        assert_eq!(again.len(), 8);
    }
}
