//! `copy`: duplicate one file (never a directory), streamed into a staged temp file beside the
//! destination that takes the source's mode and is renamed into place: readers of the
//! destination see the old file or the complete copy, never a partial one. No size limit.

use std::io;

use schemars::JsonSchema;
use serde::Deserialize;

use super::r#move::{check_cancel, Transfer};
use super::Tool;
use crate::atomic;
use crate::call::Ctx;
use crate::config::Config;
use crate::confine::WorkPath;
use crate::error::{io_err, ToolResult};
use crate::output::Output;
use crate::paths;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Args {
    /// The file to copy: relative to the workspace root, or absolute.
    pub source: String,
    /// The new file's path (not a directory to put it in). Missing parent directories are
    /// created.
    pub destination: String,
    /// Replace an existing destination file (default false).
    pub overwrite: Option<bool>,
}

pub struct Copy;

impl Tool for Copy {
    const NAME: &'static str = "copy";
    const DESCRIPTION: &'static str = "Copy ONE file (not a directory) to a new file path. The copy keeps the source's permissions, appears atomically (complete or not at all), and has no size limit; missing parent directories are created. An existing destination is refused unless overwrite is true. Refuses symbolic links at either end. Use move to rename a file, write_file to create one with new content.";
    const MUTATING: bool = true;
    const TITLE: &'static str = "Copy a file";
    const SINCE_V05: bool = true;
    type Args = Args;

    fn run(args: Args, ctx: &Ctx) -> ToolResult<Output> {
        let config: &Config = ctx;
        let plan = Transfer::prepare(config, &args.source, &args.destination, args.overwrite)?;
        let _lock = atomic::lock(&[&plan.source.abs, &plan.destination.abs]);
        let overwritten = plan.check()?;
        check_cancel(ctx, "Copy")?;
        copy_file(&plan.source, &plan.destination)?;
        Ok(plan.done("Copied", overwritten).into())
    }
}

/// Streams `src` into `.clarvis-tmp-<token>` beside `dst` (the kernel's copy_file_range where
/// it can), gives it `src`'s mode, fsyncs it and renames it over `dst`.
pub fn copy_file(src: &WorkPath, dst: &WorkPath) -> ToolResult<()> {
    let (dir, name) = super::r#move::dest_parent(dst)?;
    copy_into(src, &dir, &name, &dst.display)
}

/// Streams `src` into a temp file staged in the destination's directory fd `dir`, gives it the
/// source's mode, fsyncs it, and renames it to `name` there (`renameat`): the destination holds
/// the old file or the whole copy, never a part, and nothing is written outside the workspace.
pub fn copy_into(
    src: &WorkPath,
    dir: &crate::confine::Dir,
    name: &std::ffi::OsStr,
    display: &str,
) -> ToolResult<()> {
    let mut input = crate::confine::open_read(src).map_err(|e| io_err(e, &src.input))?;
    let meta = input.metadata().map_err(|e| io_err(e, &src.input))?;
    let (temp_name, mut temp) = dir
        .create_temp(paths::temp_name, 0o600)
        .map_err(|e| io_err(e, display))?;
    let staged = io::copy(&mut input, &mut temp)
        .and_then(|_| temp.set_permissions(meta.permissions()))
        .and_then(|()| temp.sync_all())
        .and_then(|()| dir.rename(&temp_name, dir, name));
    if let Err(e) = staged {
        let _ = dir.remove_file(&temp_name);
        return Err(io_err(e, display));
    }
    dir.sync();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;
    use crate::testutil::config_at;
    use std::fs;
    use std::os::unix::fs::PermissionsExt;
    use std::path::Path;

    fn run(root: &Path, src: &str, dst: &str, overwrite: bool) -> ToolResult<String> {
        crate::testutil::run_text::<Copy>(
            Args {
                source: src.into(),
                destination: dst.into(),
                overwrite: Some(overwrite),
            },
            &config_at(root),
        )
    }

    #[test]
    fn copies_bytes_and_mode_leaving_no_temp() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let big: Vec<u8> = (0..300_000u32).map(|i| (i % 251) as u8).collect();
        fs::write(root.join("a.bin"), &big).unwrap();
        fs::set_permissions(root.join("a.bin"), fs::Permissions::from_mode(0o640)).unwrap();
        assert_eq!(
            run(root, "a.bin", "sub/b.bin", false).unwrap(),
            "Copied a.bin \u{2192} sub/b.bin."
        );
        assert_eq!(fs::read(root.join("sub/b.bin")).unwrap(), big);
        let m = fs::metadata(root.join("sub/b.bin")).unwrap();
        assert_eq!(m.permissions().mode() & 0o777, 0o640);
        assert_eq!(fs::read_dir(root.join("sub")).unwrap().count(), 1);
        assert_eq!(
            run(root, "a.bin", "sub/b.bin", false).unwrap_err().code,
            ErrorCode::InvalidInput
        );
        assert_eq!(
            run(root, "a.bin", "sub/b.bin", true).unwrap(),
            "Copied a.bin \u{2192} sub/b.bin (overwritten)."
        );
        assert!(root.join("a.bin").exists());
    }
}
