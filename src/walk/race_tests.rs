//! Race test for walks (issue 15): while a swapper thread keeps flipping directories (and a
//! file) of the workspace between their real selves and symlinks to an outside directory
//! holding a canary, many grep, glob and list_dir calls run. No result may ever mention the
//! canary. No timing is asserted: the test only checks what the calls return.

use std::fs;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;

use crate::config::{with_defaults, Options};
use crate::testutil::call_text;
use serde_json::json;

const CANARY: &str = "canary_7f3e2b9d1c";

fn write(path: &Path, body: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, body).unwrap();
}

/// Flips `at` between the real directory (parked at `at.real` meanwhile) and a symlink to
/// `outside`, until `stop`.
fn swap_dir(at: &Path, outside: &Path, stop: &AtomicBool) {
    let parked = at.with_extension("real");
    while !stop.load(Ordering::Relaxed) {
        if fs::rename(at, &parked).is_ok() {
            let _ = std::os::unix::fs::symlink(outside, at);
            thread::yield_now();
            let _ = fs::remove_file(at);
            let _ = fs::rename(&parked, at);
        }
        thread::yield_now();
    }
}

/// Flips the file `at` between itself and a symlink to the outside canary file.
fn swap_file(at: &Path, canary: &Path, stop: &AtomicBool) {
    let parked = at.with_extension("real");
    while !stop.load(Ordering::Relaxed) {
        if fs::rename(at, &parked).is_ok() {
            let _ = std::os::unix::fs::symlink(canary, at);
            thread::yield_now();
            let _ = fs::remove_file(at);
            let _ = fs::rename(&parked, at);
        }
        thread::yield_now();
    }
}

#[test]
fn swapped_directories_never_lead_a_walk_outside() {
    let ws = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    let root = ws.path();
    // The outside tree: a canary whose name and content are unique, also nested.
    let canary = out.path().join(format!("{CANARY}.txt"));
    write(&canary, &format!("needle {CANARY}\n"));
    write(
        &out.path().join(format!("deep/{CANARY}_2.txt")),
        &format!("needle {CANARY}\n"),
    );
    // The workspace: directories at several depths, and enough files that walks take a while.
    for i in 0..40 {
        write(&root.join(format!("a/f{i}.txt")), "needle inside\n");
        write(&root.join(format!("a/b/sub/g{i}.txt")), "needle inside\n");
        write(&root.join(format!("top/h{i}.txt")), "needle inside\n");
    }
    write(&root.join("file.txt"), "needle inside\n");
    let config = with_defaults(Options {
        workspace_root: Some(root.to_string_lossy().into_owned()),
        ..Options::default()
    })
    .unwrap();

    let stop = Arc::new(AtomicBool::new(false));
    let swappers: Vec<_> = [root.join("top"), root.join("a/b/sub"), root.join("a/b")]
        .into_iter()
        .map(|at| {
            let (stop, outside) = (stop.clone(), out.path().to_path_buf());
            thread::spawn(move || swap_dir(&at, &outside, &stop))
        })
        .chain(std::iter::once({
            let (stop, at, canary) = (stop.clone(), root.join("file.txt"), canary.clone());
            thread::spawn(move || swap_file(&at, &canary, &stop))
        }))
        .collect();

    let calls: Vec<(&str, serde_json::Value)> = vec![
        ("grep", json!({"pattern": "needle"})),
        (
            "grep",
            json!({"pattern": "needle", "output_mode": "content"}),
        ),
        ("grep", json!({"pattern": "needle", "path": "a"})),
        (
            "grep",
            json!({"pattern": "needle", "path": "top", "output_mode": "count"}),
        ),
        ("glob", json!({"pattern": "**/*"})),
        ("glob", json!({"pattern": "**/*.txt", "path": "a"})),
        ("glob", json!({"pattern": "*", "path": "top"})),
        ("list_dir", json!({"path": "top"})),
        ("list_dir", json!({"path": "a/b/sub"})),
        ("list_dir", json!({})),
    ];
    let mut answered = 0;
    let mut leaks = Vec::new();
    for round in 0..150 {
        for (tool, args) in &calls {
            let text = match call_text(tool, args.clone(), &config) {
                Ok(text) => {
                    answered += 1;
                    text
                }
                Err(e) => e.envelope(),
            };
            if text.contains(CANARY) {
                leaks.push(format!("round {round}, {tool} {args}: {text}"));
            }
        }
    }
    stop.store(true, Ordering::Relaxed);
    for s in swappers {
        s.join().unwrap();
    }
    assert!(
        leaks.is_empty(),
        "{} leaks, first: {}",
        leaks.len(),
        leaks[0]
    );
    // The calls did run (most answer; some meet a swapped path and say so).
    assert!(answered > 0);
}
