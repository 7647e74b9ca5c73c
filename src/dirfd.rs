//! Directories held open by handle, so that a walk lists, descends and opens files relative to
//! what it already holds: a directory swapped for a symlink mid-walk can never redirect it.
//!
//! On Unix a [`Dir`] is an open directory descriptor. Names are listed from the descriptor
//! (`getdents64` on Linux), subdirectories are opened with
//! `openat(dir, name, O_DIRECTORY | O_NOFOLLOW)` and files with `openat(dir, name, O_NOFOLLOW |
//! O_NONBLOCK)`. A symlink is only ever followed on purpose, through [`Dir::open_follow`], which
//! reports where the object it opened really lives ([`real_path`]) so that the caller can check
//! the object it holds, not a path that may change under it.
//!
//! Elsewhere (Windows) the same interface is kept over paths, without the race-freedom.

use std::ffi::{OsStr, OsString};
use std::fs::{self, File};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, SystemTime};

use crate::config::Config;

/// What a directory entry is (the confinement layer's kinds; `Other` is never searched).
pub use crate::confine::Kind;

/// The few stat fields the tools use.
#[derive(Debug, Clone, Copy)]
pub struct Meta {
    pub kind: Kind,
    pub len: u64,
    pub mtime: SystemTime,
    /// Device and inode: the object's identity (loop detection).
    pub id: (u64, u64),
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
    dir.stat(name, false).is_ok_and(|m| m.kind == Kind::Symlink)
}

/// The canonical form of the workspace root, cached per root and checked against the root's
/// identity (device and inode) on every use.
fn canonical_root(root: &Path) -> PathBuf {
    type Entry = (PathBuf, (u64, u64), PathBuf);
    static CACHE: Mutex<Vec<Entry>> = Mutex::new(Vec::new());
    let id = Dir::open_path(root)
        .and_then(|d| d.meta())
        .map(|m| m.id)
        .ok();
    let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(id) = id {
        if let Some((_, _, canon)) = cache.iter().find(|(r, i, _)| r == root && *i == id) {
            return canon.clone();
        }
    }
    let canon = fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    cache.retain(|(r, _, _)| r != root);
    if cache.len() >= 16 {
        cache.remove(0);
    }
    if let Some(id) = id {
        cache.push((root.to_path_buf(), id, canon.clone()));
    }
    canon
}

#[cfg(unix)]
pub use unix::*;

#[cfg(unix)]
mod unix {
    use super::*;
    use std::os::fd::{AsFd, OwnedFd};
    use std::os::unix::ffi::OsStrExt;
    use std::sync::atomic::{AtomicBool, Ordering as AtomicOrdering};

    use rustix::fs::{self as rfs, AtFlags, FileType, Mode, OFlags};

    /// An open directory.
    #[derive(Debug)]
    pub struct Dir {
        fd: OwnedFd,
        /// The descriptor's offset may not be at the start (it was listed, or came from
        /// elsewhere, maybe sharing its offset with a duplicate): rewind before listing.
        rewind: AtomicBool,
    }

    impl Dir {
        /// A directory this layer just opened: its offset is at the start.
        fn fresh(fd: OwnedFd) -> Dir {
            Dir {
                fd,
                rewind: AtomicBool::new(false),
            }
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

    // The stat field types differ between platforms (`st_dev` is `i32` on macOS): the casts are
    // no-ops only on some of them.
    #[allow(clippy::unnecessary_cast)]
    fn meta_of(st: &rfs::Stat) -> Meta {
        let secs = st.st_mtime as i64;
        let nanos = (st.st_mtime_nsec as i64).clamp(0, 999_999_999) as u32;
        let mtime = if secs >= 0 {
            SystemTime::UNIX_EPOCH + Duration::new(secs as u64, nanos)
        } else {
            SystemTime::UNIX_EPOCH - Duration::from_secs(secs.unsigned_abs())
                + Duration::from_nanos(u64::from(nanos))
        };
        Meta {
            kind: kind_of(FileType::from_raw_mode(st.st_mode as _)),
            len: st.st_size as u64,
            mtime,
            id: (st.st_dev as u64, st.st_ino as u64),
        }
    }

    const DIR_FLAGS: OFlags = OFlags::RDONLY
        .union(OFlags::DIRECTORY)
        .union(OFlags::CLOEXEC)
        .union(OFlags::NOCTTY);
    /// Reading never blocks: a FIFO swapped in for a file cannot hang the walk.
    const FILE_FLAGS: OFlags = OFlags::RDONLY
        .union(OFlags::CLOEXEC)
        .union(OFlags::NONBLOCK)
        .union(OFlags::NOCTTY);

    impl Dir {
        /// Opens the directory at `path`, following symlinks in it (tests, and canonicalizing
        /// the root; walks start from the root's confined descriptor).
        pub fn open_path(path: &Path) -> io::Result<Dir> {
            let fd = rfs::open(path, DIR_FLAGS, Mode::empty())?;
            Ok(Dir::fresh(fd))
        }

        /// Wraps an already open directory descriptor.
        pub fn from_fd(fd: OwnedFd) -> Dir {
            Dir {
                fd,
                rewind: AtomicBool::new(true),
            }
        }

        /// Every name in the directory but `.` and `..`, appended to `out`.
        pub fn list(&self, out: &mut Vec<RawEntry>) -> io::Result<()> {
            // getdents64 continues from the descriptor's offset: start at the beginning
            // (a freshly opened directory is there already).
            if self.rewind.swap(true, AtomicOrdering::Relaxed) {
                rfs::seek(&self.fd, rfs::SeekFrom::Start(0))?;
            }
            list_fd(&self.fd, out)
        }

        /// Opens the subdirectory `name`; a symlink there (even one to a directory) is refused
        /// (`ELOOP` / `ENOTDIR`), never followed.
        pub fn open_dir(&self, name: &OsStr) -> io::Result<Dir> {
            let fd = rfs::openat(&self.fd, name, DIR_FLAGS | OFlags::NOFOLLOW, Mode::empty())?;
            Ok(Dir::fresh(fd))
        }

        /// Opens the file `name` for reading; a symlink there is refused (`ELOOP`), never
        /// followed. The open never blocks (FIFOs).
        pub fn open_file(&self, name: &OsStr) -> io::Result<File> {
            let fd = rfs::openat(&self.fd, name, FILE_FLAGS | OFlags::NOFOLLOW, Mode::empty())?;
            Ok(File::from(fd))
        }

        /// `stat` of `name` in this directory, of the link itself unless `follow`.
        pub fn stat(&self, name: &OsStr, follow: bool) -> io::Result<Meta> {
            let flags = if follow {
                AtFlags::empty()
            } else {
                AtFlags::SYMLINK_NOFOLLOW
            };
            Ok(meta_of(&rfs::statat(&self.fd, name, flags)?))
        }

        /// `stat` of this directory.
        pub fn meta(&self) -> io::Result<Meta> {
            Ok(meta_of(&rfs::fstat(&self.fd)?))
        }

        /// The canonical path of this directory, from the descriptor.
        pub fn real_path(&self) -> Option<PathBuf> {
            real_path(&self.fd)
        }

        /// Opens `name` following symlinks, for reading (a directory or a file), and says what
        /// was opened. The caller checks [`Followed::real_path`] of the object it now holds.
        pub fn open_follow(&self, name: &OsStr) -> io::Result<Followed> {
            let fd = rfs::openat(&self.fd, name, FILE_FLAGS, Mode::empty())?;
            let meta = meta_of(&rfs::fstat(&fd)?);
            Ok(Followed { fd, meta })
        }
    }

    /// An object opened through a symlink.
    #[derive(Debug)]
    pub struct Followed {
        fd: OwnedFd,
        pub meta: Meta,
    }

    impl Followed {
        /// Where the opened object really is (its canonical path), from the descriptor itself.
        pub fn real_path(&self) -> Option<PathBuf> {
            real_path(&self.fd)
        }
        pub fn into_dir(self) -> Dir {
            Dir::fresh(self.fd)
        }
        pub fn into_file(self) -> io::Result<File> {
            Ok(File::from(self.fd))
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
        rfs::getpath(fd)
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
            let mut iter = rfs::RawDir::new(fd.as_fd(), &mut buf[..]);
            while let Some(entry) = iter.next() {
                let entry = entry?;
                let name = entry.file_name().to_bytes();
                if name == b"." || name == b".." {
                    continue;
                }
                let kind = match entry.file_type() {
                    FileType::Unknown => None,
                    ft => Some(kind_of(ft)),
                };
                out.push(RawEntry {
                    name: OsStr::from_bytes(name).to_os_string(),
                    kind,
                });
            }
            Ok(())
        })
    }

    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    fn list_fd(fd: &OwnedFd, out: &mut Vec<RawEntry>) -> io::Result<()> {
        let mut dir = rfs::Dir::read_from(fd)?;
        while let Some(entry) = dir.read() {
            let entry = entry?;
            let name = entry.file_name().to_bytes();
            if name == b"." || name == b".." {
                continue;
            }
            let kind = match entry.file_type() {
                FileType::Unknown => None,
                ft => Some(kind_of(ft)),
            };
            out.push(RawEntry {
                name: OsStr::from_bytes(name).to_os_string(),
                kind,
            });
        }
        Ok(())
    }
}

#[cfg(not(unix))]
pub use portable::*;

/// Path-based stand-in for platforms without `openat`: the same interface, not race-free.
#[cfg(not(unix))]
mod portable {
    use super::*;
    use std::fs;

    #[derive(Debug)]
    pub struct Dir {
        path: PathBuf,
    }

    fn meta_of(m: &fs::Metadata) -> Meta {
        Meta {
            kind: Kind::of(m.file_type()),
            len: m.len(),
            mtime: m.modified().unwrap_or(SystemTime::UNIX_EPOCH),
            id: (0, 0),
        }
    }

    impl Dir {
        pub fn open_path(path: &Path) -> io::Result<Dir> {
            if !fs::metadata(path)?.is_dir() {
                return Err(io::Error::new(io::ErrorKind::Other, "not a directory"));
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
        pub fn open_dir(&self, name: &OsStr) -> io::Result<Dir> {
            let path = self.path.join(name);
            if !fs::symlink_metadata(&path)?.is_dir() {
                return Err(io::Error::new(io::ErrorKind::Other, "not a directory"));
            }
            Ok(Dir { path })
        }
        pub fn open_file(&self, name: &OsStr) -> io::Result<File> {
            let path = self.path.join(name);
            if fs::symlink_metadata(&path)?.file_type().is_symlink() {
                return Err(io::Error::new(io::ErrorKind::Other, "a symlink"));
            }
            File::open(path)
        }
        pub fn stat(&self, name: &OsStr, follow: bool) -> io::Result<Meta> {
            let path = self.path.join(name);
            let m = if follow {
                fs::metadata(path)?
            } else {
                fs::symlink_metadata(path)?
            };
            Ok(meta_of(&m))
        }
        pub fn meta(&self) -> io::Result<Meta> {
            Ok(meta_of(&fs::metadata(&self.path)?))
        }
        pub fn real_path(&self) -> Option<PathBuf> {
            fs::canonicalize(&self.path).ok()
        }
        pub fn open_follow(&self, name: &OsStr) -> io::Result<Followed> {
            let path = self.path.join(name);
            let meta = meta_of(&fs::metadata(&path)?);
            Ok(Followed { path, meta })
        }
    }

    #[derive(Debug)]
    pub struct Followed {
        path: PathBuf,
        pub meta: Meta,
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
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

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
        assert_eq!(d.stat(OsStr::new("f.txt"), false).unwrap().len, 5);
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
