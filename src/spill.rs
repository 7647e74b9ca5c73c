//! The `.clarvis/` spill directory where `bash` writes output too large to show.

use std::fs;
use std::path::Path;
use std::time::{Duration, SystemTime};

/// The workspace-relative directory holding spill files.
pub const SPILL_DIR: &str = ".clarvis";
/// Spill files older than this are removed by [`sweep`].
pub const SPILL_MAX_AGE: Duration = Duration::from_secs(24 * 60 * 60);

/// Removes `.clarvis/bash-*` files older than 24 hours under `root`. Never fails: a missing
/// directory or an unremovable file is skipped.
pub fn sweep(root: &Path) {
    sweep_older_than(root, SPILL_MAX_AGE, SystemTime::now());
}

fn sweep_older_than(root: &Path, max_age: Duration, now: SystemTime) {
    let Ok(entries) = fs::read_dir(root.join(SPILL_DIR)) else {
        return;
    };
    for entry in entries.flatten() {
        if !entry.file_name().to_string_lossy().starts_with("bash-") {
            continue;
        }
        let Ok(meta) = entry.metadata() else { continue };
        let old = meta
            .modified()
            .ok()
            .and_then(|m| now.duration_since(m).ok())
            .is_some_and(|age| age > max_age);
        if meta.is_file() && old {
            let _ = fs::remove_file(entry.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn removes_only_old_bash_files() {
        let dir = tempfile::tempdir().unwrap();
        let spill = dir.path().join(SPILL_DIR);
        fs::create_dir(&spill).unwrap();
        for name in ["bash-a.stdout.log", "keep.txt"] {
            fs::write(spill.join(name), "x").unwrap();
        }
        let later = SystemTime::now() + Duration::from_secs(2 * 24 * 3600);
        sweep_older_than(dir.path(), SPILL_MAX_AGE, later);
        assert!(!spill.join("bash-a.stdout.log").exists());
        assert!(spill.join("keep.txt").exists());
        sweep(Path::new("/definitely/not/here"));
    }
}
