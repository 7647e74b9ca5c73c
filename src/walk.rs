//! The one file-walking policy behind `glob`, `grep` (and any tool that walks a tree), and the
//! glob patterns they accept.
//!
//! What a walk yields:
//! - hidden files and directories (dotfiles) are included;
//! - `.git`, `.clarvis` and `.clarvis-tmp-*` are never yielded ([`paths::is_internal_name`]);
//! - with ignore files respected, the git ignore stack ([`crate::ignore_rules`]): `.gitignore`
//!   files from the walk base down, the `.gitignore` files of parent directories up to the
//!   repository root, `.git/info/exclude`, the global excludes file (`core.excludesFile`, by
//!   default `~/.config/git/ignore`), plus ripgrep's `.ignore` and `.rgignore` files. They apply
//!   whether or not the workspace is a git repository: inside one, the stack stops at the
//!   repository root as git's does; outside any repository, every parent directory's ignore
//!   files apply (ripgrep's `--no-require-git`);
//! - with `follow_links`, symlinks are followed (loops are detected and skipped); with
//!   confinement on, a link whose target lies outside the workspace is skipped, as a direct
//!   path to it would be refused.
//!
//! **Race-free.** The walk holds every directory it lists open ([`crate::confine::Dir`]): names come
//! from the open directory, subdirectories are opened relative to it without following
//! symlinks, and files are opened relative to it without following symlinks. A symlink is
//! followed only deliberately ([`crate::confine::LinkPolicy`]), and what it led to is checked on
//! the opened object itself, so swapping a directory for a symlink mid-walk can never lead the
//! walk out of the workspace.
//!
//! **Scheduling.** A walk starts on the calling thread; once it has seen more than a small
//! tree, the directories still pending go to one persistent pool of worker threads (one per
//! core, shared by every walk; no thread is spawned per call). Each thread collects on its own
//! and the results are merged once at the end, unordered: callers sort what they collect.

use std::cmp::Ordering;
use std::ffi::{OsStr, OsString};
use std::fs::{self, File};
use std::io;
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering as Atomic};
use std::sync::{Arc, LazyLock, Mutex};

use globset::{GlobBuilder, GlobMatcher};

use crate::config::Config;
use crate::confine::{Dir, Followed, Kind, LinkPolicy, RawEntry, Stat};
use crate::error::{ToolError, ToolResult};
use crate::ignore_rules::{Found, Layer, Rules};
use crate::paths;

/// How one walk is set up.
#[derive(Debug, Clone, Default)]
pub struct WalkOptions {
    /// Apply the git ignore stack (and `.ignore` / `.rgignore` files).
    pub respect_ignore: bool,
    /// Follow symlinks to files and directories (confined to the workspace when confinement is
    /// on). Without it a symlink is yielded as [`Kind::Symlink`] and never descended.
    pub follow_links: bool,
    /// Also yield the internal names (`.git`, `.clarvis`, temp files) that walks hide: for a
    /// listing that hides nothing (`tree` without the ignore stack).
    pub show_internal: bool,
    /// Directories every wanted file lies under, relative to the base (from
    /// [`FileGlob::literal_prefix`]): other branches are pruned at the top, while ignore files
    /// are still read from the base down, exactly as in a full walk.
    pub prefix: Vec<OsString>,
    /// Yield only the regular files this glob matches (directories and other entries are not
    /// filtered). The glob is tested before the ignore rules, which are dearer: the entries
    /// yielded are the same as when the caller filters what the walk yields, but a file the
    /// glob rejects costs no ignore matching (as an `rg -g` glob decides first).
    pub files: Option<FileGlob>,
}

/// The root of the git repository holding `dir` (the nearest ancestor, itself included, with a
/// `.git` directory or file), if any.
pub fn repo_root(dir: &Path) -> Option<PathBuf> {
    repo_root_of(&fs::canonicalize(dir).ok()?)
}

fn repo_root_of(canon: &Path) -> Option<PathBuf> {
    canon
        .ancestors()
        .find(|a| fs::symlink_metadata(a.join(".git")).is_ok())
        .map(Path::to_path_buf)
}

/// One walk: its base, its symlink policy and its ignore stack. Cheap to share between threads.
#[derive(Debug)]
pub struct Walk {
    base: Arc<Dir>,
    links: LinkPolicy,
    follow: bool,
    show_internal: bool,
    rules: Option<Rules>,
    prefix: Vec<OsString>,
    files: Option<FileGlob>,
}

/// Device and inode of the directories from the base down to one directory (loop detection).
#[derive(Debug)]
struct Ids {
    id: (u64, u64),
    parent: Option<Arc<Ids>>,
}

/// A directory still to be listed.
#[derive(Debug)]
pub struct Node {
    dir: NodeDir,
    rel: OsString,
    depth: usize,
    layer: Option<Arc<Layer>>,
    ids: Option<Arc<Ids>>,
}

#[derive(Debug)]
enum NodeDir {
    Open(Arc<Dir>),
    /// Opened when listed (so pending directories hold no descriptor of their own).
    Child {
        parent: Arc<Dir>,
        name: OsString,
    },
}

impl Node {
    /// The directory's path relative to the walk base (`""` for the base), `/`-separated.
    pub fn rel(&self) -> &Path {
        Path::new(&self.rel)
    }
    /// 0 for the base, 1 for its subdirectories, …
    pub fn depth(&self) -> usize {
        self.depth
    }
}

/// One entry of a listed directory that passed the walk's filters.
#[derive(Debug)]
pub struct Child {
    name: OsString,
    rel: OsString,
    /// What the entry is (what its target is, for a followed symlink).
    pub kind: Kind,
    /// The entry is a symlink (followed when `kind` is not [`Kind::Symlink`]).
    pub is_link: bool,
    followed: Option<Followed>,
}

impl Child {
    pub fn name(&self) -> &OsStr {
        &self.name
    }
    /// The entry's path relative to the walk base, `/`-separated.
    pub fn rel(&self) -> &Path {
        Path::new(&self.rel)
    }
}

/// A listed directory: the entries that passed the filters, in directory order.
#[derive(Debug)]
pub struct Listing {
    dir: Arc<Dir>,
    rel: OsString,
    depth: usize,
    layer: Option<Arc<Layer>>,
    ids: Option<Arc<Ids>>,
    pub children: Vec<Child>,
}

impl Listing {
    /// The directory's path relative to the walk base (`""` for the base), `/`-separated.
    pub fn rel(&self) -> &Path {
        Path::new(&self.rel)
    }
    /// 0 for the base, 1 for its subdirectories, …
    pub fn depth(&self) -> usize {
        self.depth
    }

    /// Metadata of a child (of the followed target for a followed link), never by path.
    pub fn meta(&self, child: &Child) -> io::Result<Stat> {
        match &child.followed {
            Some(f) => Ok(f.meta),
            None => self.dir.stat(&child.name),
        }
    }
}

impl Walk {
    /// Sets up a walk of the open directory `dir`, which is `base` (resolved and confined by
    /// the caller, e.g. with [`open_base`]), and returns it with the base's node.
    pub fn new(config: &Config, base: &Path, dir: Dir, options: &WalkOptions) -> (Walk, Node) {
        let dir = Arc::new(dir);
        let rules = options.respect_ignore.then(|| {
            let canon = dir.real_path().or_else(|| fs::canonicalize(base).ok());
            let repo = canon.as_deref().and_then(repo_root_of);
            // Inside a repository the stack stops at its root, as git's does; outside any,
            // ignore files still apply.
            let cwd = repo
                .clone()
                .unwrap_or_else(|| config.workspace_root.clone());
            Rules::new(base, canon, repo.is_some(), &cwd)
        });
        let layer = rules.as_ref().and_then(Rules::top);
        let walk = Walk {
            base: dir.clone(),
            links: LinkPolicy::new(config),
            follow: options.follow_links,
            show_internal: options.show_internal,
            rules,
            prefix: options.prefix.clone(),
            files: options.files.clone(),
        };
        let node = Node {
            dir: NodeDir::Open(dir),
            rel: OsString::new(),
            depth: 0,
            layer,
            ids: None,
        };
        (walk, node)
    }

    /// Lists a directory and keeps the entries the policy lets through (internal names,
    /// ignore rules, the prefix, symlinks per the link policy).
    pub fn list(&self, node: Node) -> io::Result<Listing> {
        let dir = match node.dir {
            NodeDir::Open(d) => d,
            NodeDir::Child { parent, name } => Arc::new(parent.open_dir(&name)?),
        };
        let ids = if self.follow {
            Some(Arc::new(Ids {
                id: dir.stat_self()?.id(),
                parent: node.ids,
            }))
        } else {
            None
        };
        let mut raw: Vec<RawEntry> = Vec::new();
        dir.list(&mut raw)?;
        let layer = match &self.rules {
            Some(rules) => {
                let mut found = Found::default();
                raw.iter().for_each(|e| found.note(e));
                rules.layer(node.layer, &dir, Path::new(&node.rel), &found, &self.links)
            }
            None => None,
        };
        let depth = node.depth + 1;
        let mut children = Vec::with_capacity(raw.len());
        // The entries' relative paths are built here, and copied only for the entries kept.
        let mut rel = OsString::with_capacity(node.rel.len() + 64);
        for entry in raw {
            if !self.show_internal && paths::is_internal_name(&entry.name) {
                continue;
            }
            let kind = match entry.kind {
                Some(k) => k,
                None => match dir.stat(&entry.name) {
                    Ok(m) => m.kind,
                    Err(_) => continue,
                },
            };
            let is_link = kind == Kind::Symlink;
            let (kind, followed) = if is_link && self.follow {
                let Ok(f) = self.links.follow(&dir, &entry.name) else {
                    continue;
                };
                if f.meta.kind == Kind::Dir && is_ancestor(ids.as_deref(), f.meta.id()) {
                    continue;
                }
                (f.meta.kind, Some(f))
            } else {
                (kind, None)
            };
            if depth <= self.prefix.len()
                && (kind != Kind::Dir || entry.name != self.prefix[depth - 1])
            {
                continue;
            }
            rel.clear();
            if !node.rel.is_empty() {
                rel.push(&node.rel);
                rel.push("/");
            }
            rel.push(&entry.name);
            if kind == Kind::File {
                if let Some(glob) = &self.files {
                    if !glob.is_match_at(&entry.name, Path::new(&rel)) {
                        continue;
                    }
                }
            }
            if let Some(rules) = &self.rules {
                if rules.is_ignored(layer.as_ref(), Path::new(&rel), kind == Kind::Dir) {
                    continue;
                }
            }
            children.push(Child {
                name: entry.name,
                rel: rel.as_os_str().to_owned(),
                kind,
                is_link,
                followed,
            });
        }
        Ok(Listing {
            dir,
            rel: node.rel,
            depth: node.depth,
            layer,
            ids,
            children,
        })
    }

    /// The node of a directory child of `listing`.
    pub fn descend(&self, listing: &Listing, child: Child) -> Node {
        let dir = match child.followed {
            Some(f) => NodeDir::Open(Arc::new(f.into_dir())),
            None => NodeDir::Child {
                parent: listing.dir.clone(),
                name: child.name,
            },
        };
        Node {
            dir,
            rel: child.rel,
            depth: listing.depth + 1,
            layer: listing.layer.clone(),
            ids: listing.ids.clone(),
        }
    }

    /// Opens the file at `rel` (relative to the base, as a walk yielded it) again, component
    /// by component from the base under the same symlink policy: never by path.
    pub fn open_rel(&self, rel: &Path) -> io::Result<File> {
        let mut names = Vec::new();
        for c in rel.components() {
            match c {
                Component::Normal(n) => names.push(n),
                _ => return Err(io::Error::from(io::ErrorKind::InvalidInput)),
            }
        }
        let Some((last, dirs)) = names.split_last() else {
            return Err(io::Error::from(io::ErrorKind::InvalidInput));
        };
        let mut held: Option<Dir> = None;
        for name in dirs {
            let at = held.as_ref().unwrap_or(&self.base);
            let next = if self.follow {
                self.links.open_dir(at, name)?
            } else {
                at.open_dir(name)?
            };
            held = Some(next);
        }
        let at = held.as_ref().unwrap_or(&self.base);
        if self.follow {
            self.links.open_file(at, last)
        } else {
            at.open_file(last)
        }
    }
}

/// Opens the directory a walk starts from, beneath the workspace root through the fd layer
/// ([`crate::confine::open_dir`]: `openat2(root_fd, rel, RESOLVE_BENEATH)` or its
/// component-by-component fallback), so the base itself cannot be swapped for an outside link
/// between the check and the open. An escape is `path_escape`.
#[cfg(unix)]
pub fn open_base(_config: &Config, base: &crate::confine::WorkPath) -> ToolResult<Dir> {
    let err = |e: io::Error| crate::error::io_err(e, &base.display);
    crate::confine::open_dir(base).map_err(err)
}

/// Opens the directory a walk starts from (by its resolved path: no `openat` here).
#[cfg(not(unix))]
pub fn open_base(_config: &Config, base: &crate::confine::WorkPath) -> ToolResult<Dir> {
    Dir::open_path(&base.abs).map_err(|e| crate::error::io_err(e, &base.display))
}

/// The error of a walk stopped because the caller cancelled the call.
pub fn aborted() -> ToolError {
    ToolError::new(
        crate::error::ErrorCode::Aborted,
        "Search aborted (run cancelled)",
    )
}

fn is_ancestor(ids: Option<&Ids>, id: (u64, u64)) -> bool {
    std::iter::successors(ids, |i| i.parent.as_deref()).any(|i| i.id == id)
}

/// A file the walk yields to a visitor.
pub struct FileEntry<'a> {
    dir: &'a Dir,
    child: &'a mut Child,
}

impl FileEntry<'_> {
    /// The file's path relative to the walk base, `/`-separated.
    pub fn rel(&self) -> &Path {
        self.child.rel()
    }
    /// The file's relative path as [`rel`](Self::rel) gives it, moved out without a copy
    /// (`rel` is empty afterwards): for a visitor that keeps the path.
    pub fn take_rel(&mut self) -> OsString {
        std::mem::take(&mut self.child.rel)
    }
    /// Opens the file for reading, relative to its directory and without following a symlink
    /// (a followed link's target was opened and checked when it was listed).
    pub fn open(&mut self) -> io::Result<File> {
        match self.child.followed.take() {
            Some(f) => f.into_file(),
            None => self.dir.open_file(&self.child.name),
        }
    }
    /// The file's metadata (the target's, for a followed link).
    pub fn meta(&self) -> io::Result<Stat> {
        match &self.child.followed {
            Some(f) => Ok(f.meta),
            None => self.dir.stat(&self.child.name),
        }
    }
}

/// What a walk collected.
#[derive(Debug)]
pub struct Collected<T> {
    /// Every item, in no particular order.
    pub items: Vec<T>,
    /// The walk stopped at the item cap: `items` is not everything.
    pub stopped_early: bool,
    /// The walk stopped because `stop` said so (the call was cancelled).
    pub aborted: bool,
}

/// Directories a walk lists on the calling thread before it hands the rest to the pool.
const SERIAL_DIRS: usize = 48;
/// Files a walk visits on the calling thread before it hands the rest to the pool.
const SERIAL_FILES: usize = 1500;

/// The walk pool: one thread per core, created once, shared by every walk.
static POOL: LazyLock<Option<rayon::ThreadPool>> = LazyLock::new(|| {
    let n = std::thread::available_parallelism().map_or(1, |n| n.get());
    if n < 2 {
        return None;
    }
    rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .thread_name(|i| format!("atn-walk-{i}"))
        .build()
        .ok()
});

/// Sorts `items` on the walk pool's threads (idle once a walk is over), or here when there
/// is no pool or too little to share. Unstable: equal items may land in any order.
pub fn par_sort_unstable_by<T, F>(items: &mut [T], compare: F)
where
    T: Send,
    F: Fn(&T, &T) -> Ordering + Sync + Send,
{
    use rayon::slice::ParallelSliceMut;
    match POOL.as_ref() {
        Some(pool) if items.len() >= 4096 => pool.install(|| items.par_sort_unstable_by(compare)),
        _ => items.sort_unstable_by(compare),
    }
}

/// `f` of each of `items`, in their order, computed on the walk pool's threads one item at a
/// time (for work that is heavy per item, such as parsing a file; a thread that finishes early
/// takes the next item), or here when there is no pool.
pub fn par_map<T, R, F>(items: Vec<T>, f: F) -> Vec<R>
where
    T: Send,
    R: Send,
    F: Fn(T) -> R + Sync + Send,
{
    crate::pool::map_each_on(POOL.as_ref(), items, f)
}

/// `here()` on this thread while `there()` runs on the walk pool (for compute, such as
/// parsing, beside a step that waits, such as a commit); both results. `there` gives `None`
/// when it panicked, and runs here after `here` when there is no pool.
pub fn alongside<A, B>(here: impl FnOnce() -> A, there: impl FnOnce() -> B + Send) -> (A, Option<B>)
where
    B: Send,
{
    let there = || std::panic::catch_unwind(std::panic::AssertUnwindSafe(there)).ok();
    match POOL.as_ref() {
        Some(pool) => {
            let mut b = None;
            let a = pool.in_place_scope(|scope| {
                scope.spawn(|_| b = there());
                here()
            });
            (a, b)
        }
        None => {
            let a = here();
            (a, there())
        }
    }
}

/// One thread's visitor and what it kept.
struct Slot<T, V> {
    visitor: Option<V>,
    items: Vec<T>,
}

struct Shared<'a, T, V, M> {
    walk: &'a Walk,
    cap: usize,
    stop: &'a (dyn Fn() -> bool + Sync),
    make_visitor: &'a M,
    kept: AtomicUsize,
    quit: AtomicBool,
    stopped_early: AtomicBool,
    aborted: AtomicBool,
    slots: Vec<Mutex<Slot<T, V>>>,
    /// Diagnostic lines emitted on the pool's threads, handed to the caller's thread (and so
    /// to its call's warn sink) when the walk ends.
    lines: Mutex<Vec<String>>,
}

impl<T, V, M> Shared<'_, T, V, M>
where
    V: FnMut(&mut FileEntry<'_>) -> Option<T>,
    M: Fn() -> V,
{
    fn halted(&self) -> bool {
        if self.quit.load(Atomic::Relaxed) {
            return true;
        }
        if (self.stop)() {
            self.aborted.store(true, Atomic::Relaxed);
            self.quit.store(true, Atomic::Relaxed);
            return true;
        }
        false
    }

    /// Lists one directory, visits its files and queues its subdirectories; returns the
    /// number of files visited.
    fn process(&self, slot: &mut Slot<T, V>, node: Node, pending: &mut Vec<Node>) -> usize {
        if self.halted() {
            return 0;
        }
        // Unreadable directories are skipped, as ripgrep does.
        let Ok(mut listing) = self.walk.list(node) else {
            return 0;
        };
        let visitor = slot.visitor.get_or_insert_with(self.make_visitor);
        let mut files = 0;
        for mut child in std::mem::take(&mut listing.children) {
            match child.kind {
                Kind::Dir => pending.push(self.walk.descend(&listing, child)),
                Kind::File => {
                    if self.halted() {
                        return files;
                    }
                    files += 1;
                    let mut entry = FileEntry {
                        dir: &listing.dir,
                        child: &mut child,
                    };
                    if let Some(item) = visitor(&mut entry) {
                        if self.kept.fetch_add(1, Atomic::Relaxed) >= self.cap {
                            self.stopped_early.store(true, Atomic::Relaxed);
                            self.quit.store(true, Atomic::Relaxed);
                            return files;
                        }
                        slot.items.push(item);
                    }
                }
                _ => {}
            }
        }
        files
    }
}

fn spawn<'s, T, V, M>(scope: &rayon::Scope<'s>, shared: &'s Shared<'s, T, V, M>, node: Node)
where
    T: Send,
    V: FnMut(&mut FileEntry<'_>) -> Option<T> + Send,
    M: Fn() -> V + Sync,
{
    scope.spawn(move |scope| {
        let index = POOL
            .as_ref()
            .and_then(|p| p.current_thread_index())
            .map_or(0, |i| i + 1);
        let mut pending = Vec::new();
        let ((), lines) = crate::warn::collect(|| {
            let mut slot = shared.slots[index]
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            shared.process(&mut slot, node, &mut pending);
        });
        if !lines.is_empty() {
            let mut kept = shared.lines.lock().unwrap_or_else(|e| e.into_inner());
            kept.extend(lines);
        }
        for node in pending {
            spawn(scope, shared, node);
        }
    });
}

/// Walks every regular file under `root` and keeps what `visit` returns. `make_visitor` is
/// called once per thread that takes part (so each can own a buffer and a searcher). At most
/// `cap` items are kept; reaching it stops the walk. `stop` is asked between files and
/// directories; when it says yes the walk ends at once and `aborted` is set. Entries that
/// cannot be read (permissions, dangling links, loops) are skipped, as ripgrep does.
pub fn collect_files<T, V, M>(
    walk: &Walk,
    root: Node,
    cap: usize,
    stop: &(dyn Fn() -> bool + Sync),
    make_visitor: M,
) -> Collected<T>
where
    T: Send,
    V: FnMut(&mut FileEntry<'_>) -> Option<T> + Send,
    M: Fn() -> V + Sync,
{
    let pool = POOL.as_ref();
    let threads = pool.map_or(0, |p| p.current_num_threads());
    let shared = Shared {
        walk,
        cap,
        stop,
        make_visitor: &make_visitor,
        kept: AtomicUsize::new(0),
        quit: AtomicBool::new(false),
        stopped_early: AtomicBool::new(false),
        aborted: AtomicBool::new(false),
        slots: (0..=threads)
            .map(|_| {
                Mutex::new(Slot {
                    visitor: None,
                    items: Vec::new(),
                })
            })
            .collect(),
        lines: Mutex::new(Vec::new()),
    };
    // Small trees are walked right here; a big one goes to the pool once it shows its size.
    let mut stack = vec![root];
    {
        let mut slot = shared.slots[0].lock().unwrap_or_else(|e| e.into_inner());
        let (mut dirs, mut files) = (0, 0);
        while let Some(node) = stack.pop() {
            files += shared.process(&mut slot, node, &mut stack);
            dirs += 1;
            if pool.is_some() && (dirs >= SERIAL_DIRS || files >= SERIAL_FILES) {
                break;
            }
        }
    }
    if let Some(pool) = pool.filter(|_| !stack.is_empty()) {
        let shared = &shared;
        pool.scope(move |scope| {
            for node in stack {
                spawn(scope, shared, node);
            }
        });
    }
    for line in shared.lines.into_inner().unwrap_or_else(|e| e.into_inner()) {
        crate::warn::emit(line);
    }
    let mut items = Vec::new();
    for slot in shared.slots {
        let mut slot = slot.into_inner().unwrap_or_else(|e| e.into_inner());
        if items.is_empty() {
            items = std::mem::take(&mut slot.items);
        } else {
            items.append(&mut slot.items);
        }
    }
    Collected {
        items,
        stopped_early: shared.stopped_early.into_inner(),
        aborted: shared.aborted.into_inner(),
    }
}

/// The order results are listed in: by path, component by component (so a directory's entries
/// stay together and `a/b` sorts before `a-b/c`), bytewise within a component. Comparing the
/// bytes with `/` ranked below every other byte gives exactly that order (for the clean paths
/// results show) without splitting either path into components.
pub fn cmp_paths(a: &str, b: &str) -> Ordering {
    cmp_path_bytes(a.as_bytes(), b.as_bytes())
}

/// JavaScript's default string order: by UTF-16 code units. It is byte order except where a
/// character at or past U+E000 meets one past U+FFFF (a surrogate pair sorts before U+E000).
pub fn cmp_utf16(a: &str, b: &str) -> Ordering {
    cmp_utf16_bytes(a.as_bytes(), b.as_bytes())
}

/// [`cmp_utf16`] on the bytes of two strings (UTF-8; a byte that is not is compared as
/// U+FFFD would be, in the one case where the byte order is not the answer).
pub fn cmp_utf16_bytes(a: &[u8], b: &[u8]) -> Ordering {
    let mut at = common_prefix(a, b);
    match (a.get(at), b.get(at)) {
        // Byte order is code point order, and the two orders differ only between a character
        // led by 0xEE/0xEF (U+E000–U+FFFF) and one led by 0xF0–0xF4 (past U+FFFF). Bytes that
        // differ below 0xEE are a continuation byte (same lead, same length) or a lead outside
        // that pair.
        (Some(&x), Some(&y)) if x < 0xEE || y < 0xEE => return x.cmp(&y),
        (Some(_), Some(_)) => {}
        _ => return a.len().cmp(&b.len()),
    }
    // Back to the start of the character that differs (its continuation bytes are shared).
    while at > 0 && a[at] & 0xC0 == 0x80 {
        at -= 1;
    }
    let (a, b) = (
        String::from_utf8_lossy(&a[at..]),
        String::from_utf8_lossy(&b[at..]),
    );
    a.encode_utf16().cmp(b.encode_utf16())
}

/// [`cmp_paths`] on the paths' bytes.
pub fn cmp_path_bytes(a: &[u8], b: &[u8]) -> Ordering {
    // Equal bytes rank equally: only the first difference needs ranking (paths share long
    // prefixes, and sorting thousands of them is mostly this comparison).
    let at = common_prefix(a, b);
    match (a.get(at), b.get(at)) {
        (Some(&x), Some(&y)) => match path_rank(x).cmp(&path_rank(y)) {
            // `/` and NUL rank alike (a NUL is in no path, but order them as the rank says).
            Ordering::Equal => cmp_ranked(&a[at..], &b[at..]),
            order => order,
        },
        _ => a.len().cmp(&b.len()),
    }
}

fn path_rank(c: u8) -> u8 {
    if c == b'/' {
        0
    } else {
        c
    }
}

fn cmp_ranked(a: &[u8], b: &[u8]) -> Ordering {
    a.iter()
        .map(|&c| path_rank(c))
        .cmp(b.iter().map(|&c| path_rank(c)))
}

/// How many leading bytes `a` and `b` share, compared eight at a time.
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    let mut i = 0;
    while i + 8 <= n {
        let x = u64::from_le_bytes(a[i..i + 8].try_into().unwrap_or_default());
        let y = u64::from_le_bytes(b[i..i + 8].try_into().unwrap_or_default());
        if x != y {
            return i + ((x ^ y).trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while i < n && a[i] == b[i] {
        i += 1;
    }
    i
}

/// A glob pattern as `glob` and `grep`'s `glob` filter read it (ripgrep's `--glob` rules):
/// a pattern without `/` matches file names at any depth (`*.rs`); one with `/` matches the
/// path relative to the search base (`src/**/*.rs`; a leading `/` or `./` only anchors it).
/// `*` and `?` never cross `/`, `**` spans directories, `{a,b}` and `[a-z]` work as usual.
#[derive(Debug, Clone)]
pub struct FileGlob {
    matcher: GlobMatcher,
    whole_path: bool,
    prefix: Vec<OsString>,
    shape: Shape,
}

/// What a pattern asks of a file's name, where that decides the match without the compiled
/// glob (the common `*.ext`, `**/*.ext`, `name`, `**/name`), or what every match ends with.
#[derive(Debug, Clone)]
enum Shape {
    /// `*LIT` or `**/*LIT` (no glob syntax in `LIT`): the name ends with `LIT`.
    NameEndsWith(Vec<u8>),
    /// `LIT` or `**/LIT`: the name is `LIT`.
    NameIs(Vec<u8>),
    /// Anything else: the compiled glob decides; the name must end with this literal (the
    /// end of the pattern's last segment after its last glob syntax) to be worth asking.
    Glob { name_suffix: Vec<u8> },
}

/// Bytes that are glob syntax somewhere in a segment (`,` is literal outside `{…}`, and the
/// suffix below never reaches into one).
const GLOB_SYNTAX: [char; 7] = ['*', '?', '[', ']', '{', '}', '\\'];

impl Shape {
    /// The shape of `pat` (leading `./` and `/` already gone); `whole_path`: it has a `/`.
    fn of(pat: &str, whole_path: bool) -> Shape {
        let name_pat = if whole_path {
            pat.strip_prefix("**/")
                .filter(|rest| !rest.is_empty() && !rest.contains('/'))
        } else {
            Some(pat)
        };
        if let Some(name_pat) = name_pat {
            if let Some(lit) = name_pat.strip_prefix('*') {
                if !lit.contains(GLOB_SYNTAX) {
                    return Shape::NameEndsWith(lit.as_bytes().to_vec());
                }
            }
            if !name_pat.contains(GLOB_SYNTAX) {
                return Shape::NameIs(name_pat.as_bytes().to_vec());
            }
        }
        let last = pat.rsplit('/').next().unwrap_or(pat);
        let start = last.rfind(GLOB_SYNTAX).map_or(0, |i| i + 1);
        Shape::Glob {
            name_suffix: last.as_bytes()[start..].to_vec(),
        }
    }
}

impl FileGlob {
    /// Compiles `pattern`; a bad one is `invalid_input` naming `field` and the parser's reason.
    pub fn new(pattern: &str, field: &str) -> ToolResult<FileGlob> {
        let mut pat = pattern;
        loop {
            if let Some(rest) = pat.strip_prefix("./") {
                pat = rest;
            } else if let Some(rest) = pat.strip_prefix('/') {
                pat = rest;
            } else {
                break;
            }
        }
        if pat.is_empty() {
            return Err(ToolError::invalid_input(format!(
                "{field} is empty: pass a glob such as **/*.ts or *.rs"
            ))
            .with("field", field));
        }
        check_glob_size(pat, field)?;
        let glob = GlobBuilder::new(pat)
            .literal_separator(true)
            .backslash_escape(true)
            .build()
            .map_err(|e| {
                ToolError::invalid_input(format!("invalid glob in {field}: {e}"))
                    .with("field", field)
            })?;
        let whole_path = pat.contains('/');
        let prefix = if whole_path {
            literal_dirs(pat)
        } else {
            Vec::new()
        };
        Ok(FileGlob {
            matcher: glob.compile_matcher(),
            whole_path,
            prefix,
            shape: Shape::of(pat, whole_path),
        })
    }

    /// Whether a file at `rel` (relative to the search base) matches.
    pub fn is_match(&self, rel: &Path) -> bool {
        match rel.file_name() {
            Some(name) => self.is_match_at(name, rel),
            None => self.whole_path && self.matcher.is_match(rel),
        }
    }

    /// [`is_match`](Self::is_match) for a file named `name` at `rel` (whose last component
    /// `name` is): common patterns are decided on the name's bytes alone.
    pub fn is_match_at(&self, name: &OsStr, rel: &Path) -> bool {
        let bytes = name.as_encoded_bytes();
        match &self.shape {
            Shape::NameEndsWith(lit) => bytes.ends_with(lit),
            Shape::NameIs(lit) => bytes == lit.as_slice(),
            Shape::Glob { name_suffix } => {
                bytes.ends_with(name_suffix)
                    && if self.whole_path {
                        self.matcher.is_match(rel)
                    } else {
                        self.matcher.is_match(name)
                    }
            }
        }
    }

    /// What the compiled glob alone says (the reference the shortcuts are tested against).
    #[cfg(test)]
    fn is_match_slow(&self, rel: &Path) -> bool {
        if self.whole_path {
            self.matcher.is_match(rel)
        } else {
            rel.file_name()
                .is_some_and(|name| self.matcher.is_match(name))
        }
    }

    /// The literal leading directories of an anchored pattern (`drivers` for
    /// `drivers/**/Kconfig`): every match lies under them, so the walk can skip the rest.
    pub fn literal_prefix(&self) -> &[OsString] {
        &self.prefix
    }
}

/// The leading components of `pattern` with no glob syntax, excluding the last (file) one.
/// Anything that could make the pruned walk differ from the full one (`.`, `..`, an internal
/// name) ends the prefix.
fn literal_dirs(pattern: &str) -> Vec<OsString> {
    let parts: Vec<&str> = pattern.split('/').collect();
    let mut out = Vec::new();
    for part in &parts[..parts.len().saturating_sub(1)] {
        let plain = !part.is_empty()
            && !part.contains(['*', '?', '[', ']', '{', '}', '\\'])
            && matches!(
                Path::new(part).components().next(),
                Some(Component::Normal(_))
            )
            && !paths::is_internal_name(part.as_ref());
        if !plain {
            break;
        }
        out.push(OsString::from(part));
    }
    out
}

/// Longest glob accepted, in bytes.
const MAX_GLOB_BYTES: usize = 4096;
/// Deepest `{…}` nesting accepted: globset recurses per level, and a deep enough pattern
/// overflows the stack, which no panic guard can catch.
const MAX_GLOB_NESTING: usize = 32;

fn check_glob_size(pat: &str, field: &str) -> ToolResult<()> {
    let mut depth = 0usize;
    let mut deepest = 0usize;
    for b in pat.bytes() {
        match b {
            b'{' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    if pat.len() > MAX_GLOB_BYTES || deepest > MAX_GLOB_NESTING {
        return Err(ToolError::invalid_input(format!(
            "{field} is too complex: at most {MAX_GLOB_BYTES} bytes and {MAX_GLOB_NESTING} nested {{…}} groups"
        ))
        .with("field", field));
    }
    Ok(())
}

#[cfg(all(test, unix))]
mod race_tests;

#[cfg(test)]
mod tests {
    #[test]
    fn over_deep_or_long_globs_are_refused_before_compiling() {
        let deep = format!("{}a{}", "{".repeat(30_000), "}".repeat(30_000));
        let err = super::check_glob_size(&deep, "pattern").unwrap_err();
        assert!(err.message.contains("too complex"), "{}", err.message);
        assert!(super::check_glob_size(&"a".repeat(5000), "glob").is_err());
        assert!(super::check_glob_size("{a,{b,c}}/**/*.rs", "glob").is_ok());
    }

    use super::*;
    use std::fs;

    #[test]
    fn cmp_utf16_is_javascripts_string_order() {
        // Characters from every range whose order could differ: ASCII, two- and three-byte
        // ones below U+E000, U+E000–U+FFFF, and past U+FFFF.
        let alphabet = [
            'a', 'b', '/', 'é', 'ÿ', '中', '\u{D7FF}', '\u{E000}', '\u{FFFD}', '\u{FFFF}',
        ];
        let astral = ['\u{10000}', '😀', '\u{10FFFF}'];
        let chars: Vec<char> = alphabet.iter().chain(&astral).copied().collect();
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut word = |n: u64| -> String {
            (0..n)
                .map(|_| chars[(next() % chars.len() as u64) as usize])
                .collect()
        };
        for _ in 0..20_000 {
            let shared = word(3);
            let (a, b) = (shared.clone() + &word(2), shared + &word(2));
            let want = a.encode_utf16().cmp(b.encode_utf16());
            assert_eq!(cmp_utf16(&a, &b), want, "{a:?} vs {b:?}");
            assert_eq!(cmp_utf16(&b, &a), want.reverse(), "{b:?} vs {a:?}");
        }
        assert_eq!(cmp_utf16("\u{FFFF}", "😀"), Ordering::Greater);
        assert_eq!(cmp_utf16("ab", "abc"), Ordering::Less);
        assert_eq!(cmp_utf16("abc", "abc"), Ordering::Equal);
    }

    #[test]
    fn par_map_keeps_the_order_and_maps_every_item() {
        let items: Vec<u64> = (0..1000).collect();
        let threads = std::sync::Mutex::new(std::collections::HashSet::new());
        let out = par_map(items, |i| {
            threads.lock().unwrap().insert(std::thread::current().id());
            i * 2
        });
        assert_eq!(out, (0..1000).map(|i| i * 2).collect::<Vec<_>>());
        assert!(!threads.lock().unwrap().is_empty());
        assert_eq!(par_map(vec![7u8], |i| i + 1), [8]);
        assert!(par_map(Vec::<u8>::new(), |i| i).is_empty());
    }

    #[test]
    fn alongside_runs_both_and_survives_a_panic_over_there() {
        let here = std::thread::current().id();
        // Both run at once: `there` waits for `here` to have started, and the other way round.
        let (started, ready) = std::sync::mpsc::channel();
        let (a, b) = alongside(
            || {
                started.send(()).unwrap();
                std::thread::current().id()
            },
            move || {
                ready.recv().unwrap();
                let name = std::thread::current().name().map(str::to_owned);
                (std::thread::current().id(), name)
            },
        );
        assert_eq!(a, here);
        let (there, name) = b.unwrap();
        if POOL.is_some() {
            assert_ne!(there, here);
            assert!(name.unwrap().starts_with("atn-walk-"));
        }
        let (a, b) = alongside(|| 1, || -> u8 { panic!("boom") });
        assert_eq!((a, b), (1, None));
    }

    use crate::testutil::config_at as config;

    fn tree(root: &Path, files: &[&str]) {
        for f in files {
            let p = root.join(f);
            fs::create_dir_all(p.parent().unwrap()).unwrap();
            fs::write(p, "x").unwrap();
        }
    }

    fn walk(config: &Config, base: &Path, options: &WalkOptions) -> Vec<String> {
        let options = WalkOptions {
            follow_links: true,
            ..options.clone()
        };
        let (w, root) = Walk::new(config, base, Dir::open_path(base).unwrap(), &options);
        let mut got: Vec<String> = collect_files(&w, root, usize::MAX, &|| false, || {
            |e: &mut FileEntry<'_>| Some(e.rel().to_string_lossy().into_owned())
        })
        .items;
        got.sort_by(|a, b| cmp_paths(a, b));
        got
    }

    #[test]
    fn hidden_included_internal_never() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        tree(
            root,
            &[
                ".env",
                "a/.hidden",
                ".git/config",
                ".clarvis/x",
                "b/.clarvis-tmp-1",
                "b/c",
            ],
        );
        let c = config(root);
        for respect in [true, false] {
            let opts = WalkOptions {
                respect_ignore: respect,
                ..WalkOptions::default()
            };
            assert_eq!(walk(&c, root, &opts), [".env", "a/.hidden", "b/c"]);
        }
    }

    #[test]
    fn ignore_stack_without_a_repository() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        tree(
            root,
            &[
                "a.log",
                "keep.log",
                "sub/b.log",
                "sub/c.txt",
                "sub/d.tmp",
                "e.txt",
            ],
        );
        fs::write(root.join(".gitignore"), "*.log\n!keep.log\n").unwrap();
        fs::write(root.join("sub/.gitignore"), "*.tmp\n").unwrap();
        let c = config(root);
        let on = WalkOptions {
            respect_ignore: true,
            ..WalkOptions::default()
        };
        assert_eq!(
            walk(&c, root, &on),
            [
                ".gitignore",
                "e.txt",
                "keep.log",
                "sub/.gitignore",
                "sub/c.txt"
            ]
        );
        // A base below the root still sees the root's rules.
        assert_eq!(walk(&c, &root.join("sub"), &on), [".gitignore", "c.txt"]);
        assert_eq!(walk(&c, root, &WalkOptions::default()).len(), 8);
    }

    #[test]
    fn parent_rules_stop_at_the_repository_root() {
        let dir = tempfile::tempdir().unwrap();
        let top = dir.path();
        tree(top, &["repo/ws/a.txt", "repo/ws/b.md", "repo/ws/c.rs"]);
        fs::write(top.join(".gitignore"), "*.txt\n").unwrap();
        fs::create_dir_all(top.join("repo/.git/info")).unwrap();
        fs::write(top.join("repo/.gitignore"), "*.md\n").unwrap();
        fs::write(top.join("repo/.git/info/exclude"), "*.rs\n").unwrap();
        let ws = top.join("repo/ws");
        let c = config(&ws);
        let on = WalkOptions {
            respect_ignore: true,
            ..WalkOptions::default()
        };
        // *.md (repo) and *.rs (info/exclude) apply; *.txt above the repository does not.
        assert_eq!(walk(&c, &ws, &on), ["a.txt"]);
        assert_eq!(
            repo_root(&ws),
            Some(fs::canonicalize(top.join("repo")).unwrap())
        );
    }

    #[cfg(unix)]
    #[test]
    fn links_followed_inside_skipped_outside_when_confined() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let root = dir.path();
        tree(root, &["real/f.txt"]);
        tree(outside.path(), &["o.txt"]);
        std::os::unix::fs::symlink(root.join("real"), root.join("linkdir")).unwrap();
        std::os::unix::fs::symlink(root.join("real/f.txt"), root.join("link.txt")).unwrap();
        std::os::unix::fs::symlink(outside.path(), root.join("outdir")).unwrap();
        std::os::unix::fs::symlink(outside.path().join("o.txt"), root.join("out.txt")).unwrap();
        std::os::unix::fs::symlink(root, root.join("real/loop")).unwrap();
        let mut c = config(root);
        let opts = WalkOptions::default();
        assert_eq!(
            walk(&c, root, &opts),
            ["link.txt", "linkdir/f.txt", "real/f.txt"]
        );
        c.confine_to_workspace = false;
        assert_eq!(
            walk(&c, root, &opts),
            [
                "link.txt",
                "linkdir/f.txt",
                "out.txt",
                "outdir/o.txt",
                "real/f.txt"
            ]
        );
    }

    #[test]
    fn prefix_prunes_without_changing_results() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        tree(
            root,
            &[
                "drivers/a/Kconfig",
                "drivers/Kconfig",
                "other/Kconfig",
                "x/drivers",
            ],
        );
        let c = config(root);
        let g = FileGlob::new("drivers/**/Kconfig", "pattern").unwrap();
        assert_eq!(g.literal_prefix(), [OsString::from("drivers")]);
        let opts = WalkOptions {
            respect_ignore: true,
            prefix: g.literal_prefix().to_vec(),
            ..WalkOptions::default()
        };
        assert_eq!(
            walk(&c, root, &opts),
            ["drivers/Kconfig", "drivers/a/Kconfig"]
        );
    }

    #[test]
    fn globs_follow_ripgrep_rules() {
        let g = FileGlob::new("*.rs", "pattern").unwrap();
        assert!(g.is_match(Path::new("a/b/c.rs")));
        assert!(g.is_match(Path::new("c.rs")));
        let g = FileGlob::new("src/*.rs", "pattern").unwrap();
        assert!(g.is_match(Path::new("src/c.rs")));
        assert!(!g.is_match(Path::new("src/x/c.rs")));
        assert!(!g.is_match(Path::new("lib/src/c.rs")));
        let g = FileGlob::new("./**/*.{c,h}", "pattern").unwrap();
        assert!(g.is_match(Path::new("x.h")) && g.is_match(Path::new("a/b/x.c")));
        assert!(FileGlob::new("/src/*.rs", "pattern")
            .unwrap()
            .is_match(Path::new("src/a.rs")));
        let e = FileGlob::new("a/[b", "glob").unwrap_err();
        assert!(e.message.contains("unclosed"), "{}", e.message);
        assert_eq!(e.fields["field"], "glob");
        assert!(FileGlob::new("./", "pattern").is_err());
        assert_eq!(literal_dirs("a/../b/*.c"), [OsString::from("a")]);
        assert!(literal_dirs(".git/x/*.c").is_empty());
        assert!(literal_dirs("**/x/*.c").is_empty());
    }

    #[test]
    fn name_shortcuts_match_exactly_as_the_compiled_glob() {
        let pieces = [
            "*", "**", "?", ".c", "c", "a", "/", "**/", "[ch]", "[!a]", "{a,b}", "{c,.h}", "x",
            ".", "\\*", ",", "é", "Kconfig",
        ];
        let names = [
            "a", "b.c", ".c", "c", "x.h", "ac", "a,b", "*", "é.c", "Kconfig", "xKconfig", "a.c.c",
            "b", ".h", "x",
        ];
        let mut rng = crate::testutil::XorShift::new(11);
        let mut patterns: Vec<String> = [
            "*.c",
            "**/*.c",
            "Kconfig",
            "**/Kconfig",
            "drivers/**/Kconfig",
            "*",
            "**/*",
            "**/",
            "**",
            "*.{c,h}",
            "a/**/b",
            "**/b",
            "a/*.c",
            "*/b.c",
            "**/**/*.c",
            "*c",
            "\\*",
        ]
        .iter()
        .map(|p| p.to_string())
        .collect();
        for _ in 0..3000 {
            let n = 1 + rng.below(5);
            patterns.push((0..n).map(|_| pieces[rng.below(pieces.len())]).collect());
        }
        let mut paths: Vec<String> = Vec::new();
        for _ in 0..300 {
            let depth = 1 + rng.below(3);
            let parts: Vec<&str> = (0..depth).map(|_| names[rng.below(names.len())]).collect();
            paths.push(parts.join("/"));
        }
        let mut checked = 0;
        for pattern in &patterns {
            let Ok(glob) = FileGlob::new(pattern, "pattern") else {
                continue;
            };
            for path in &paths {
                let rel = Path::new(path);
                assert_eq!(
                    glob.is_match(rel),
                    glob.is_match_slow(rel),
                    "pattern {pattern:?} path {path:?} shape {:?}",
                    glob.shape
                );
                checked += 1;
            }
        }
        assert!(checked > 100_000, "{checked}");
        let shape = |p: &str| format!("{:?}", FileGlob::new(p, "pattern").unwrap().shape);
        assert_eq!(shape("**/*.c"), "NameEndsWith([46, 99])");
        assert_eq!(shape("*.c"), "NameEndsWith([46, 99])");
        assert_eq!(shape("./**/Kconfig"), shape("Kconfig"));
        assert!(shape("drivers/**/Kconfig").starts_with("Glob"));
    }

    #[test]
    fn a_files_glob_yields_what_filtering_the_walk_yields() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        tree(
            root,
            &[
                "a.c",
                "b.h",
                "keep.c",
                "gen.c",
                "sub/x.c",
                "sub/y.c",
                "sub/z.txt",
                "sub/d/w.c",
                "out/o.c",
                "c",
            ],
        );
        fs::write(
            root.join(".gitignore"),
            "gen.c\nout/\n*.c\n!keep.c\n!sub/**\n",
        )
        .unwrap();
        fs::write(root.join("sub/.gitignore"), "y.c\n").unwrap();
        let c = config(root);
        for pattern in ["*.c", "**/*.c", "sub/**/*.c", "c", "*", "sub/*.[ct]*"] {
            for respect_ignore in [true, false] {
                let glob = FileGlob::new(pattern, "pattern").unwrap();
                let plain = WalkOptions {
                    respect_ignore,
                    prefix: glob.literal_prefix().to_vec(),
                    ..WalkOptions::default()
                };
                let mut want = walk(&c, root, &plain);
                want.retain(|p| glob.is_match_slow(Path::new(p)));
                let filtered = WalkOptions {
                    files: Some(glob),
                    ..plain
                };
                assert_eq!(
                    walk(&c, root, &filtered),
                    want,
                    "{pattern} {respect_ignore}"
                );
            }
        }
    }

    #[test]
    fn path_order_is_component_wise() {
        let mut paths = vec![
            "a-b/c", "a/b", "a.txt", "a", "a/b/c", "a/b-c", "a/bc", "b", ".x", "A", "a/.h", "é/x",
            "/abs/z", "/abs/y/z",
        ];
        let mut by_components = paths.clone();
        by_components.sort_by(|x, y| Path::new(x).cmp(Path::new(y)));
        paths.sort_by(|x, y| cmp_paths(x, y));
        assert_eq!(paths, by_components);
        assert_eq!(&paths[..4], ["/abs/y/z", "/abs/z", ".x", "A"]);
    }

    #[test]
    fn path_order_matches_ranking_every_byte() {
        let slow = |a: &str, b: &str| cmp_ranked(a.as_bytes(), b.as_bytes());
        let alphabet = ["a", "b", "/", "-", ".", "\0", "é", "z", "A", "0"];
        let mut rng = crate::testutil::XorShift::new(5);
        let words: Vec<String> = (0..400)
            .map(|_| {
                let n = rng.below(24);
                (0..n)
                    .map(|_| alphabet[rng.below(alphabet.len())])
                    .collect()
            })
            .collect();
        for a in &words {
            for b in words.iter().take(120) {
                assert_eq!(cmp_paths(a, b), slow(a, b), "{a:?} {b:?}");
                // A long shared prefix takes the eight-byte steps first.
                let (la, lb) = (
                    format!("drivers/gpu/drm/{a}"),
                    format!("drivers/gpu/drm/{b}"),
                );
                assert_eq!(cmp_paths(&la, &lb), slow(&la, &lb), "{la:?} {lb:?}");
            }
        }
        assert_eq!(common_prefix(b"abcdefghij", b"abcdefghiX"), 9);
        assert_eq!(common_prefix(b"abcdefgh", b"abcdefgh"), 8);
        assert_eq!(common_prefix(b"abcXefghij", b"abcdefghij"), 3);
    }

    #[test]
    fn sorting_on_the_pool_sorts_as_here() {
        let mut rng = crate::testutil::XorShift::new(17);
        for n in [10usize, 5000, 40_000] {
            let items: Vec<(usize, String)> = (0..n)
                .map(|i| (rng.below(50), format!("{}/{i}", rng.below(1000))))
                .collect();
            let mut want = items.clone();
            want.sort();
            let mut got = items;
            par_sort_unstable_by(&mut got, |a, b| a.cmp(b));
            assert_eq!(got, want, "{n}");
        }
    }

    #[test]
    fn cap_stops_the_walk() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        tree(root, &["a", "b", "c", "d"]);
        let c = config(root);
        let run = |cap: usize| {
            let (w, node) = Walk::new(
                &c,
                root,
                Dir::open_path(root).unwrap(),
                &WalkOptions::default(),
            );
            collect_files(
                &w,
                node,
                cap,
                &|| false,
                || |_: &mut FileEntry<'_>| Some(()),
            )
        };
        let got = run(2);
        assert_eq!(got.items.len(), 2);
        assert!(got.stopped_early);
        assert!(!run(4).stopped_early);
    }

    #[test]
    fn stop_aborts_the_walk() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let files: Vec<String> = (0..3000).map(|i| format!("d{}/f{i}", i % 100)).collect();
        let names: Vec<&str> = files.iter().map(String::as_str).collect();
        tree(root, &names);
        let c = config(root);
        let (w, node) = Walk::new(
            &c,
            root,
            Dir::open_path(root).unwrap(),
            &WalkOptions::default(),
        );
        let seen = AtomicUsize::new(0);
        let got = collect_files(
            &w,
            node,
            usize::MAX,
            &|| seen.load(Atomic::Relaxed) >= 10,
            || {
                |_: &mut FileEntry<'_>| {
                    seen.fetch_add(1, Atomic::Relaxed);
                    Some(())
                }
            },
        );
        assert!(got.aborted);
        assert!(got.items.len() < 3000, "{}", got.items.len());
    }

    #[test]
    fn big_trees_give_the_same_files_as_small_ones() {
        // Past the serial thresholds the pool takes over: every file still comes exactly once.
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let files: Vec<String> = (0..4000)
            .map(|i| format!("d{}/e{}/f{i}.txt", i % 37, i % 11))
            .collect();
        let names: Vec<&str> = files.iter().map(String::as_str).collect();
        tree(root, &names);
        fs::write(root.join("d3/.gitignore"), "*.txt\n").unwrap();
        let c = config(root);
        let on = WalkOptions {
            respect_ignore: true,
            ..WalkOptions::default()
        };
        let got = walk(&c, root, &on);
        let mut want: Vec<String> = files
            .iter()
            .filter(|f| !f.starts_with("d3/"))
            .cloned()
            .chain(["d3/.gitignore".to_string()])
            .collect();
        want.sort_by(|a, b| cmp_paths(a, b));
        assert_eq!(got, want);
    }

    /// A diagnostic line emitted while the pool lists a directory (here: a `.gitignore` that
    /// cannot be read, a link to itself) reaches the caller's collector, as one emitted on
    /// the caller's own thread does.
    #[cfg(unix)]
    #[test]
    fn lines_emitted_on_the_pool_reach_the_caller() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let files: Vec<String> = (0..2000).map(|i| format!("d{}/f{i}.txt", i % 97)).collect();
        let names: Vec<&str> = files.iter().map(String::as_str).collect();
        tree(root, &names);
        for d in ["d0", "d96"] {
            std::os::unix::fs::symlink(".gitignore", root.join(d).join(".gitignore")).unwrap();
        }
        let on = WalkOptions {
            respect_ignore: true,
            ..WalkOptions::default()
        };
        let (got, mut lines) = crate::warn::collect(|| walk(&config(root), root, &on));
        assert_eq!(got.len(), 2000);
        lines.sort();
        let want: Vec<String> = ["d0", "d96"]
            .iter()
            .map(|d| {
                format!(
                    "warning: cannot read {}",
                    root.join(d).join(".gitignore").display()
                )
            })
            .collect();
        assert_eq!(lines, want);
    }

    #[cfg(unix)]
    #[test]
    fn open_rel_follows_the_same_policy() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let root = dir.path();
        tree(root, &["real/f.txt"]);
        tree(outside.path(), &["o.txt"]);
        std::os::unix::fs::symlink(root.join("real"), root.join("linkdir")).unwrap();
        std::os::unix::fs::symlink(outside.path(), root.join("outdir")).unwrap();
        let c = config(root);
        let opts = WalkOptions {
            follow_links: true,
            ..WalkOptions::default()
        };
        let (w, _) = Walk::new(&c, root, Dir::open_path(root).unwrap(), &opts);
        assert!(w.open_rel(Path::new("linkdir/f.txt")).is_ok());
        assert!(w.open_rel(Path::new("outdir/o.txt")).is_err());
        assert!(w.open_rel(Path::new("../x")).is_err());
    }

    #[cfg(unix)]
    #[test]
    fn without_following_links_are_listed_not_descended() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        tree(root, &["real/f.txt"]);
        std::os::unix::fs::symlink(root.join("real"), root.join("linkdir")).unwrap();
        let c = config(root);
        let (w, node) = Walk::new(
            &c,
            root,
            Dir::open_path(root).unwrap(),
            &WalkOptions::default(),
        );
        let listing = w.list(node).unwrap();
        let mut kinds: Vec<(String, Kind)> = listing
            .children
            .iter()
            .map(|ch| (ch.rel().to_string_lossy().into_owned(), ch.kind))
            .collect();
        kinds.sort_by(|a, b| a.0.cmp(&b.0));
        assert_eq!(
            kinds,
            [
                ("linkdir".to_string(), Kind::Symlink),
                ("real".to_string(), Kind::Dir)
            ]
        );
    }
}
