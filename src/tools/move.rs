//! `move`: rename one file (never a directory), atomically, keeping its bytes and mode. Also
//! holds the checks `move` and `copy` share.
//!
//! Across filesystems (`EXDEV`) a rename is impossible; instead of failing, the file is copied
//! to a staged temp file beside the destination, fsynced, renamed into place, and only then is
//! the source unlinked: at every instant at least one complete copy exists.

use std::path::Path;

use schemars::JsonSchema;
use serde::Deserialize;

use super::Tool;
use crate::atomic;
use crate::call::Ctx;
use crate::config::Config;
use crate::confine::{self, WorkPath};
use crate::error::{io_err, ErrorCode, ToolError, ToolResult};
use crate::output::Output;
use crate::paths;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Args {
    /// The file to move: relative to the workspace root, or absolute.
    pub source: String,
    /// Where it goes (the new file path, not a directory to put it in). Missing parent
    /// directories are created.
    pub destination: String,
    /// Replace an existing destination file (default false).
    pub overwrite: Option<bool>,
}

pub struct Move;

impl Tool for Move {
    const NAME: &'static str = "move";
    const DESCRIPTION: &'static str = "Move or rename ONE file (not a directory) to a new file path, atomically: the bytes and permissions are kept, missing parent directories of the destination are created. An existing destination is refused unless overwrite is true. Refuses symbolic links at either end. Use copy to duplicate a file instead, mkdir to create a directory, remove to delete a file.";
    const MUTATING: bool = true;
    const TITLE: &'static str = "Move a file";
    const SINCE_V05: bool = true;
    type Args = Args;

    fn run(args: Args, ctx: &Ctx) -> ToolResult<Output> {
        let config: &Config = ctx;
        let plan = Transfer::prepare(config, &args.source, &args.destination, args.overwrite)?;
        let _lock = atomic::lock(&[&plan.source.abs, &plan.destination.abs]);
        let overwritten = plan.check()?;
        check_cancel(ctx, "Move")?;
        move_file(&plan.source, &plan.destination)?;
        Ok(plan.done("Moved", overwritten).into())
    }
}

/// A checked `source` → `destination` pair for `move` and `copy`.
pub struct Transfer {
    pub source: WorkPath,
    pub destination: WorkPath,
    source_input: String,
    destination_input: String,
    overwrite: bool,
}

impl Transfer {
    /// Resolves both paths (confinement) and refuses identical ones.
    pub fn prepare(
        config: &Config,
        source: &str,
        destination: &str,
        overwrite: Option<bool>,
    ) -> ToolResult<Transfer> {
        let src = paths::resolve(config, source)?;
        let dst = paths::resolve(config, destination)?;
        // The contract compares the resolved (absolute, not realpath'd) paths, before its
        // symlink check (CONTRACT-v0.5 §2 "move / copy"); the engine also sees through links.
        // Either way one file reached by two spellings is harmless: rename leaves it be, and
        // copy stages the bytes it read.
        let same = if config.contract_exact() {
            src.abs == dst.abs
        } else {
            paths::identity(&src.abs) == paths::identity(&dst.abs)
        };
        if same {
            return Err(ToolError::invalid_input(format!(
                "Source and destination are the same: {source}"
            ))
            .with("path", source));
        }
        Ok(Transfer {
            source: src,
            destination: dst,
            source_input: source.to_string(),
            destination_input: destination.to_string(),
            overwrite: overwrite.unwrap_or(false),
        })
    }

    /// The checks made under the lock, in the contract's order. Returns whether the
    /// destination exists (and will be overwritten).
    pub fn check(&self) -> ToolResult<bool> {
        // lstat beneath the root: the final names are judged, never followed.
        let src = confine::lstat(&self.source);
        let dst = confine::lstat(&self.destination);
        for (meta, path) in [(&src, &self.source), (&dst, &self.destination)] {
            if meta
                .as_ref()
                .is_ok_and(|m| m.kind == confine::Kind::Symlink)
            {
                return Err(symlink_refused(&path.abs));
            }
        }
        let src = match src {
            Ok(m) => m,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(not_found(&self.source_input));
            }
            Err(e) => return Err(io_err(e, &self.source_input)),
        };
        if src.is_dir() {
            return Err(ToolError::new(
                ErrorCode::NotAFile,
                format!("Source is a directory (files only): {}", self.source_input),
            )
            .with("path", self.source_input.as_str()));
        }
        if !src.is_file() {
            return Err(ToolError::new(
                ErrorCode::NotAFile,
                format!(
                    "Source is not a regular file (a FIFO, socket or device): {}",
                    self.source_input
                ),
            )
            .with("path", self.source_input.as_str()));
        }
        let exists = match dst {
            Ok(m) if m.is_dir() => {
                return Err(ToolError::new(
                    ErrorCode::NotAFile,
                    format!("Destination is a directory: {}", self.destination_input),
                )
                .with("path", self.destination_input.as_str()))
            }
            Ok(_) => true,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => false,
            // A file as a parent component (ENOTDIR) and the like: the parent creation names it.
            Err(_) => false,
        };
        if exists && !self.overwrite {
            return Err(ToolError::invalid_input(format!(
                "Destination already exists: {} (pass overwrite: true to replace it)",
                self.destination_input
            ))
            .with("path", self.destination_input.as_str()));
        }
        Ok(exists)
    }

    /// `<verb> <rel src> → <rel dst>.`, with ` (overwritten)` before the period.
    pub fn done(&self, verb: &str, overwritten: bool) -> String {
        format!(
            "{verb} {} \u{2192} {}{}.",
            self.source.display,
            self.destination.display,
            if overwritten { " (overwritten)" } else { "" }
        )
    }
}

/// `invalid_input` `Refusing to write through a symlink: <abs>`, field `path`.
pub fn symlink_refused(abs: &Path) -> ToolError {
    let shown = abs.to_string_lossy();
    ToolError::invalid_input(format!("Refusing to write through a symlink: {shown}"))
        .with("path", shown.as_ref())
}

/// Refuses to start the change when the caller has aborted (checked before the commit point,
/// never inside it): `aborted` `<what> aborted (run cancelled); nothing was changed.`
pub fn check_cancel(ctx: &Ctx, what: &str) -> ToolResult<()> {
    if ctx.cancel.is_cancelled() {
        return Err(ToolError::new(
            ErrorCode::Aborted,
            format!("{what} aborted (run cancelled); nothing was changed."),
        ));
    }
    Ok(())
}

/// `not_found` `No such file: <input>`, field `path`.
pub fn not_found(input: &str) -> ToolError {
    ToolError::new(ErrorCode::NotFound, format!("No such file: {input}")).with("path", input)
}

/// Opens the destination's parent directory beneath the workspace, creating the missing ones
/// (each by `mkdirat` in its own parent, never through a symlink). A file in the way is
/// `not_a_file`.
pub fn dest_parent(dest: &WorkPath) -> ToolResult<(confine::Dir, std::ffi::OsString)> {
    let mut created = confine::Created::new();
    confine::open_parent(dest, Some(&mut created)).map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotADirectory
            || e.kind() == std::io::ErrorKind::AlreadyExists
        {
            ToolError::new(
                ErrorCode::NotAFile,
                format!("Not a directory: a parent of {} is a file", dest.display),
            )
            .with("path", dest.display.as_str())
        } else {
            io_err(e, &dest.input)
        }
    })
}

/// Renames `src` over `dst`, both held by their parent directory fds (`renameat`, so a
/// directory swapped for a symlink on the way cannot redirect it); across filesystems, copies
/// then unlinks (see the module docs).
/// The rename failed because source and destination are on different file systems.
fn cross_device(e: &std::io::Error) -> bool {
    #[cfg(unix)]
    let code = nix::libc::EXDEV;
    // ERROR_NOT_SAME_DEVICE: MoveFileExW across volumes.
    #[cfg(windows)]
    let code = 17;
    e.raw_os_error() == Some(code)
}

fn move_file(src: &WorkPath, dst: &WorkPath) -> ToolResult<()> {
    let (sdir, sname) = confine::open_parent(src, None).map_err(|e| io_err(e, &src.input))?;
    let (ddir, dname) = dest_parent(dst)?;
    match sdir.rename(&sname, &ddir, &dname) {
        Ok(()) => {
            ddir.sync();
            sdir.sync();
            Ok(())
        }
        Err(e) if cross_device(&e) => {
            super::copy::copy_into(src, &ddir, &dname, &dst.display)?;
            sdir.remove_file(&sname)
                .map_err(|e| io_err(e, &src.input))?;
            sdir.sync();
            Ok(())
        }
        Err(e) => Err(io_err(e, &dst.input)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::config_at;
    use std::fs;
    use std::os::unix::fs::PermissionsExt;

    fn run(root: &Path, src: &str, dst: &str, overwrite: bool) -> ToolResult<String> {
        crate::testutil::run_text::<Move>(
            Args {
                source: src.into(),
                destination: dst.into(),
                overwrite: Some(overwrite),
            },
            &config_at(root),
        )
    }

    #[test]
    fn moves_keeping_mode_and_creating_parents() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::write(root.join("a.sh"), "x").unwrap();
        fs::set_permissions(root.join("a.sh"), fs::Permissions::from_mode(0o751)).unwrap();
        assert_eq!(
            run(root, "a.sh", "d/e/b.sh", false).unwrap(),
            "Moved a.sh \u{2192} d/e/b.sh."
        );
        assert!(!root.join("a.sh").exists());
        let m = fs::metadata(root.join("d/e/b.sh")).unwrap();
        assert_eq!(m.permissions().mode() & 0o777, 0o751);
    }

    #[test]
    fn errors_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::write(root.join("a"), "A").unwrap();
        fs::write(root.join("b"), "B").unwrap();
        fs::create_dir(root.join("d")).unwrap();
        std::os::unix::fs::symlink(root.join("a"), root.join("l")).unwrap();
        let code = |r: ToolResult<String>| r.unwrap_err().code;
        assert_eq!(code(run(root, "a", "./a", false)), ErrorCode::InvalidInput);
        let e = run(root, "l", "z", false).unwrap_err();
        assert!(e
            .message
            .starts_with("Refusing to write through a symlink: /"));
        assert_eq!(code(run(root, "a", "l", true)), ErrorCode::InvalidInput);
        assert_eq!(code(run(root, "nope", "z", false)), ErrorCode::NotFound);
        assert_eq!(code(run(root, "d", "z", false)), ErrorCode::NotAFile);
        assert_eq!(
            run(root, "a", "d", false).unwrap_err().message,
            "Destination is a directory: d"
        );
        assert_eq!(
            run(root, "a", "b", false).unwrap_err().message,
            "Destination already exists: b (pass overwrite: true to replace it)"
        );
        assert_eq!(
            run(root, "a", "b", true).unwrap(),
            "Moved a \u{2192} b (overwritten)."
        );
        assert_eq!(fs::read_to_string(root.join("b")).unwrap(), "A");
        assert_eq!(code(run(root, "b", "../x", false)), ErrorCode::PathEscape);
    }

    /// Across filesystems (when /dev/shm is another one than the temp dir): copied, then the
    /// source unlinked, with the mode kept.
    #[test]
    fn moves_across_filesystems() {
        use std::os::unix::fs::MetadataExt;
        let dir = tempfile::tempdir().unwrap();
        let Ok(other) = tempfile::tempdir_in("/dev/shm") else {
            return;
        };
        let dev = |p: &Path| fs::metadata(p).unwrap().dev();
        if dev(dir.path()) == dev(other.path()) {
            return;
        }
        let root = dir.path();
        fs::write(root.join("a.sh"), "payload").unwrap();
        fs::set_permissions(root.join("a.sh"), fs::Permissions::from_mode(0o700)).unwrap();
        let c = Config {
            confine_to_workspace: false,
            ..config_at(root)
        };
        let dest = other.path().join("sub/b.sh");
        let out = crate::testutil::run_text::<Move>(
            Args {
                source: "a.sh".into(),
                destination: dest.to_string_lossy().into_owned(),
                overwrite: None,
            },
            &c,
        )
        .unwrap();
        assert!(out.starts_with("Moved a.sh \u{2192} /dev/shm/"), "{out}");
        assert!(!root.join("a.sh").exists());
        assert_eq!(fs::read_to_string(&dest).unwrap(), "payload");
        assert_eq!(
            fs::metadata(&dest).unwrap().permissions().mode() & 0o777,
            0o700
        );
        assert_eq!(fs::read_dir(other.path().join("sub")).unwrap().count(), 1);
    }
}
