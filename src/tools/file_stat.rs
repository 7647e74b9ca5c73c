//! `file_stat`: what is at a path, from `lstat` (symlinks are described, not followed), as one
//! compact JSON object. Reads at most the first 8192 bytes of a regular file, so it works on
//! files of any size.

use std::fmt::Write as _;
use std::io::Read;
use std::time::{SystemTime, UNIX_EPOCH};

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use super::Tool;
use crate::call::Ctx;
use crate::config::Config;
use crate::error::{io_err, ToolResult};
use crate::output::Output;
use crate::tools::r#move::not_found;
use crate::{confine, paths};

/// How much of a file's head is read for the binary and image checks.
pub const HEAD_BYTES: usize = 8192;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Args {
    /// The file, directory or symlink to describe: relative to the workspace root, or absolute.
    pub path: String,
}

pub struct FileStat;

impl Tool for FileStat {
    const NAME: &'static str = "file_stat";
    const DESCRIPTION: &'static str = "Describe one path without reading it whole: its type (file, directory, symlink, other), size in bytes, modification time (ISO 8601, UTC), permission bits, and for a file whether it looks binary and its image type; for a symlink its raw target (not followed). Works on files of any size. Use read_file to read a text file, list_dir or tree to see a directory's contents.";
    const MUTATING: bool = false;
    const SINCE_V05: bool = true;
    const TITLE: &'static str = "Describe a path";
    type Args = Args;

    fn output_schema() -> Option<serde_json::Value> {
        Some(serde_json::json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "The path relative to the workspace root."},
                "type": {"type": "string", "enum": ["file", "directory", "symlink", "other"]},
                "size": {"type": "integer", "description": "Bytes (of the link itself for a symlink)."},
                "mtime": {"type": "string", "description": "Modification time, ISO 8601 UTC with milliseconds."},
                "mode": {"type": "string", "description": "Permission bits in octal, e.g. 0644."},
                "binary": {"type": "boolean", "description": "A NUL byte in the first 8192 bytes (files only)."},
                "mime": {"type": ["string", "null"], "description": "The image type sniffed from the head (files only)."},
                "symlink_target": {"type": ["string", "null"], "description": "The raw link text (symlinks only)."}
            },
            "required": ["path", "type", "size", "mtime", "mode"]
        }))
    }

    fn run(args: Args, ctx: &Ctx) -> ToolResult<Output> {
        let config: &Config = ctx;
        let path = paths::resolve(config, &args.path)?;
        let meta = confine::lstat(&path).map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                not_found(&args.path)
            } else {
                // fsError of the reference's lstat (CONTRACT-v0.5-wording §4).
                let exact = config.contract_exact();
                crate::error::fs_error(exact, e, &args.path, "lstat", &path.abs)
            }
        })?;
        let kind = match meta.kind {
            confine::Kind::Symlink => "symlink",
            confine::Kind::Dir => "directory",
            confine::Kind::File => "file",
            confine::Kind::Other => "other",
        };
        let mode = meta.mode & 0o777;
        let mut out = String::from("{");
        let _ = write!(
            out,
            "\"path\":{},\"type\":\"{kind}\",\"size\":{},\"mtime\":\"{}\",\"mode\":\"0{mode:03o}\"",
            Value::from(path.display.as_str()),
            meta.len,
            iso_millis(meta.mtime),
        );
        if kind == "file" {
            let head = read_head(&path).map_err(|e| io_err(e, &args.path))?;
            let mime = crate::tools::read_image::sniff(&head);
            let _ = write!(
                out,
                ",\"binary\":{},\"mime\":{}",
                head.contains(&0),
                mime.map_or(Value::Null, Value::from)
            );
        } else if kind == "symlink" {
            let target = confine::open_parent(&path, None)
                .and_then(|(dir, name)| dir.read_link(&name))
                .ok()
                .map(|t| Value::from(t.to_string_lossy().into_owned()))
                .unwrap_or(Value::Null);
            let _ = write!(out, ",\"symlink_target\":{target}");
        }
        out.push('}');
        Ok(out.into())
    }
}

/// Up to [`HEAD_BYTES`] from the start of a file (never blocking on a FIFO).
pub fn read_head(path: &crate::confine::WorkPath) -> std::io::Result<Vec<u8>> {
    let file = confine::open_read(path)?;
    let mut head = Vec::with_capacity(HEAD_BYTES);
    file.take(HEAD_BYTES as u64).read_to_end(&mut head)?;
    Ok(head)
}

/// `Date.prototype.toISOString()` of the `Date` Node's `fs.Stats` gives for `t`:
/// `YYYY-MM-DDTHH:MM:SS.mmmZ` in UTC. Node makes it `new Date(Math.round(ms))` from
/// `ms = sec * 1e3 + nsec / 1e6` (a double), so a time is rounded to the nearest millisecond
/// (half up), not cut.
pub fn iso_millis(t: SystemTime) -> String {
    // The time as a timespec: whole seconds (floored) and the nanoseconds past them.
    let (sec, nsec): (i64, u32) = match t.duration_since(UNIX_EPOCH) {
        Ok(d) => (d.as_secs() as i64, d.subsec_nanos()),
        Err(e) => {
            let d = e.duration();
            match d.subsec_nanos() {
                0 => (-(d.as_secs() as i64), 0),
                n => (-(d.as_secs() as i64) - 1, 1_000_000_000 - n),
            }
        }
    };
    let exact = sec as f64 * 1e3 + f64::from(nsec) / 1e6;
    // `Math.round`: the nearest integer, halves toward +∞.
    let floor = exact.floor();
    let ms = if exact - floor >= 0.5 {
        floor + 1.0
    } else {
        floor
    } as i64;
    let days = ms.div_euclid(86_400_000);
    let rem = ms.rem_euclid(86_400_000);
    let (y, m, d) = civil_from_days(days);
    let (h, mi, s, milli) = (
        rem / 3_600_000,
        rem / 60_000 % 60,
        rem / 1000 % 60,
        rem % 1000,
    );
    format!("{y:04}-{m:02}-{d:02}T{h:02}:{mi:02}:{s:02}.{milli:03}Z")
}

/// Days since 1970-01-01 → (year, month, day), proleptic Gregorian (H. Hinnant's algorithm).
fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (if m <= 2 { y + 1 } else { y }, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;
    use crate::testutil::config_at;
    use std::fs;
    use std::os::unix::fs::PermissionsExt;
    use std::path::Path;
    use std::time::Duration;

    fn run(root: &Path, p: &str) -> ToolResult<serde_json::Value> {
        crate::testutil::run_text::<FileStat>(Args { path: p.into() }, &config_at(root))
            .map(|s| serde_json::from_str(&s).unwrap())
    }

    #[test]
    fn iso_dates() {
        assert_eq!(iso_millis(UNIX_EPOCH), "1970-01-01T00:00:00.000Z");
        let t = UNIX_EPOCH + Duration::from_millis(1_709_210_096_789);
        assert_eq!(iso_millis(t), "2024-02-29T12:34:56.789Z");
        let t = UNIX_EPOCH - Duration::from_millis(1);
        assert_eq!(iso_millis(t), "1969-12-31T23:59:59.999Z");
        // Rounded as Node's `Math.round(sec * 1e3 + nsec / 1e6)`: half a millisecond up, less
        // down, before 1970 too (`-0.5` ms rounds to 0, `-1.5` to -1).
        let at = |ns: u64| UNIX_EPOCH + Duration::from_nanos(1_764_141_452_000_000_000 + ns);
        assert_eq!(iso_millis(at(916_797_345)), "2025-11-26T07:17:32.917Z");
        assert_eq!(iso_millis(at(916_400_000)), "2025-11-26T07:17:32.916Z");
        // As Node computes it in a double, 916.499999 ms is 916.5: up.
        assert_eq!(iso_millis(at(916_499_999)), "2025-11-26T07:17:32.917Z");
        assert_eq!(iso_millis(at(999_500_000)), "2025-11-26T07:17:33.000Z");
        let before = |ns: u64| UNIX_EPOCH - Duration::from_nanos(ns);
        assert_eq!(iso_millis(before(500_000)), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso_millis(before(1_500_000)), "1969-12-31T23:59:59.999Z");
        assert_eq!(iso_millis(before(500_000_000)), "1969-12-31T23:59:59.500Z");
        assert_eq!(iso_millis(before(1_700_000)), "1969-12-31T23:59:59.998Z");
    }

    #[test]
    fn kinds_and_key_order() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::write(root.join("a.png"), b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR").unwrap();
        fs::set_permissions(root.join("a.png"), fs::Permissions::from_mode(0o600)).unwrap();
        fs::write(root.join("t.txt"), "hello").unwrap();
        fs::create_dir(root.join("d")).unwrap();
        std::os::unix::fs::symlink("t.txt", root.join("l")).unwrap();
        let raw = crate::testutil::run_text::<FileStat>(
            Args {
                path: "t.txt".into(),
            },
            &config_at(root),
        )
        .unwrap();
        assert!(
            raw.starts_with(r#"{"path":"t.txt","type":"file","size":5,"mtime":""#),
            "{raw}"
        );
        assert!(
            raw.ends_with(r#","mode":"0644","binary":false,"mime":null}"#)
                || raw.contains(r#""binary":false,"mime":null}"#),
            "{raw}"
        );
        let png = run(root, "a.png").unwrap();
        assert_eq!(png["mode"], "0600");
        assert_eq!(png["binary"], true);
        assert_eq!(png["mime"], "image/png");
        let d = run(root, "d").unwrap();
        assert_eq!(d["type"], "directory");
        assert_eq!(d.as_object().unwrap().len(), 5);
        let l = run(root, "l").unwrap();
        assert_eq!(l["type"], "symlink");
        assert_eq!(l["symlink_target"], "t.txt");
        assert_eq!(run(root, "nope").unwrap_err().code, ErrorCode::NotFound);
        assert_eq!(run(root, "../x").unwrap_err().code, ErrorCode::PathEscape);
    }
}
