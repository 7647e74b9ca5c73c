//! `remove`: delete one regular file under its lock. Never a directory, never a symlink.

use schemars::JsonSchema;
use serde::Deserialize;

use super::r#move::{check_cancel, not_found, symlink_refused};
use super::Tool;
use crate::atomic;
use crate::call::Ctx;
use crate::config::Config;
use crate::error::{io_err, ErrorCode, ToolError, ToolResult};
use crate::output::Output;
use crate::{confine, paths};

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Args {
    /// The file to delete: relative to the workspace root, or absolute.
    pub path: String,
}

pub struct Remove;

impl Tool for Remove {
    const NAME: &'static str = "remove";
    const DESCRIPTION: &'static str = "Delete ONE file. Directories and symbolic links are refused (use bash for those). The deletion cannot be undone: make sure the path is right.";
    const MUTATING: bool = true;
    const TITLE: &'static str = "Delete a file";
    const SINCE_V05: bool = true;
    type Args = Args;

    fn run(args: Args, ctx: &Ctx) -> ToolResult<Output> {
        let config: &Config = ctx;
        let path = paths::resolve(config, &args.path)?;
        let _lock = atomic::lock(&[&path.abs]);
        let (dir, name) = match confine::open_parent(&path, None) {
            Ok(found) => found,
            Err(e) if e.kind() == std::io::ErrorKind::IsADirectory => {
                return Err(is_dir(&args.path));
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(not_found(&args.path))
            }
            Err(e) => return Err(io_err(e, &args.path)),
        };
        let meta = match dir.stat(&name) {
            Ok(m) => m,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(not_found(&args.path))
            }
            Err(e) => return Err(io_err(e, &args.path)),
        };
        match meta.kind {
            confine::Kind::Symlink => return Err(symlink_refused(&path.abs)),
            confine::Kind::Dir => return Err(is_dir(&args.path)),
            _ => {}
        }
        check_cancel(ctx, "Remove")?;
        dir.remove_file(&name).map_err(|e| io_err(e, &args.path))?;
        dir.sync();
        Ok(format!("Removed {}.", path.display).into())
    }
}

fn is_dir(input: &str) -> ToolError {
    ToolError::new(
        ErrorCode::NotAFile,
        format!("Path is a directory (files only): {input}"),
    )
    .with("path", input)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::config_at;
    use std::fs;
    use std::path::Path;

    fn run(root: &Path, p: &str) -> ToolResult<String> {
        crate::testutil::run_text::<Remove>(Args { path: p.into() }, &config_at(root))
    }

    #[test]
    fn removes_files_only() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::write(root.join("f"), "x").unwrap();
        fs::create_dir(root.join("d")).unwrap();
        std::os::unix::fs::symlink(root.join("d"), root.join("l")).unwrap();
        assert_eq!(run(root, "f").unwrap(), "Removed f.");
        assert!(!root.join("f").exists());
        assert_eq!(run(root, "f").unwrap_err().code, ErrorCode::NotFound);
        assert_eq!(
            run(root, "d").unwrap_err().message,
            "Path is a directory (files only): d"
        );
        assert_eq!(run(root, "l").unwrap_err().code, ErrorCode::InvalidInput);
        assert!(root.join("l").exists());
    }
}
