//! The confinement race test: a swapper thread flips a directory inside the workspace with a
//! symlink to an outside directory holding a canary (an atomic `RENAME_EXCHANGE`, thousands
//! of times a second) while 1,000 tool calls work under that directory. Nothing may be read
//! from, listed in, or created or changed outside. Half the workers resolve with openat2, half
//! with the openat walk (the fallback).

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

use serde_json::{json, Value};

use crate::config::Config;
use crate::dispatch::dispatch;

const CANARY: &str = "CANARY-8d1f";
const CALLS: usize = 1000;
const WORKERS: usize = 4;
/// Flips of the directory the calls must straddle.
const MIN_FLIPS: usize = 20;

fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            let p = e.path();
            let ft = e.file_type().unwrap();
            let rel = p.strip_prefix(dir).unwrap().to_string_lossy().into_owned();
            if ft.is_dir() {
                todo.push(p);
                out.push((rel + "/", Vec::new()));
            } else {
                out.push((rel, fs::read(&p).unwrap_or_default()));
            }
        }
    }
    out.sort();
    out
}

/// One call of the mix, by number.
fn call(i: usize, worker: usize, config: &Config) -> (String, Value) {
    let own = format!("d/w{worker}.txt");
    match i % 10 {
        0 | 1 => (
            "write_file".into(),
            json!({"path": format!("d/new{worker}-{i}.txt"), "content": "written\n"}),
        ),
        2 => (
            "write_file".into(),
            json!({"path": format!("d/sub/deep{worker}-{i}.txt"), "content": "x"}),
        ),
        3 => {
            let (a, b) = if (i / 10).is_multiple_of(2) {
                ("one", "two")
            } else {
                ("two", "one")
            };
            (
                "edit_file".into(),
                json!({"path": own, "old_string": a, "new_string": b}),
            )
        }
        4 => {
            let (a, b) = if (i / 10).is_multiple_of(2) {
                ("two", "one")
            } else {
                ("one", "two")
            };
            (
                "apply_patch".into(),
                json!({"patch": format!("*** Begin Patch\n*** Update File: {own}\n@@\n-{a}\n+{b}\n*** End Patch\n")}),
            )
        }
        5 => ("read_file".into(), json!({"path": "d/f.txt"})),
        6 => (
            "grep".into(),
            json!({"pattern": "CANARY|inside", "path": "d/f.txt"}),
        ),
        7 => ("list_dir".into(), json!({"path": "d"})),
        8 if i % 20 == 8 => (
            "bash".into(),
            json!({"command": format!("cat f.txt; echo made > bash{worker}-{i}.txt"), "cwd": "d"}),
        ),
        8 => (
            "apply_patch".into(),
            json!({"patch": format!("*** Begin Patch\n*** Add File: d/p{worker}-{i}.txt\n+added\n*** End Patch\n")}),
        ),
        _ => {
            let _ = config;
            ("read_file".into(), json!({"path": "d/sub/s.txt"}))
        }
    }
}

#[test]
fn no_call_escapes_while_a_directory_flips_to_an_outside_symlink() {
    use nix::fcntl::{renameat2, RenameFlags, AT_FDCWD};

    let ws = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    let root: PathBuf = fs::canonicalize(ws.path()).unwrap();
    let outside: PathBuf = fs::canonicalize(out.path()).unwrap();
    // The outside dir mirrors the inside names, so a redirected call would hit real files.
    for base in [root.join("d"), outside.clone()] {
        fs::create_dir_all(base.join("sub")).unwrap();
    }
    fs::write(root.join("d/f.txt"), "inside\n").unwrap();
    fs::write(root.join("d/sub/s.txt"), "inside\n").unwrap();
    for w in 0..WORKERS {
        fs::write(root.join(format!("d/w{w}.txt")), "one\n").unwrap();
        fs::write(outside.join(format!("w{w}.txt")), format!("one {CANARY}\n")).unwrap();
    }
    fs::write(outside.join("f.txt"), format!("{CANARY}\n")).unwrap();
    fs::write(outside.join("sub/s.txt"), format!("{CANARY}\n")).unwrap();
    fs::write(outside.join("canary.txt"), CANARY).unwrap();
    std::os::unix::fs::symlink(&outside, root.join("flip")).unwrap();
    let before = snapshot(&outside);

    let config = Arc::new(crate::testutil::config_at(&root));
    let stop = Arc::new(AtomicBool::new(false));
    let flips = Arc::new(AtomicUsize::new(0));
    let swapper = {
        let (root, stop, flips) = (root.clone(), stop.clone(), flips.clone());
        std::thread::spawn(move || {
            let (d, flip) = (root.join("d"), root.join("flip"));
            while !stop.load(Ordering::Relaxed) {
                renameat2(AT_FDCWD, &d, AT_FDCWD, &flip, RenameFlags::RENAME_EXCHANGE).unwrap();
                flips.fetch_add(1, Ordering::Relaxed);
                // Long enough for whole calls to fit between flips, short enough that many
                // calls straddle one.
                std::thread::sleep(std::time::Duration::from_micros(200));
            }
            // Leave the real directory at `d`.
            if fs::symlink_metadata(&d).unwrap().file_type().is_symlink() {
                renameat2(AT_FDCWD, &d, AT_FDCWD, &flip, RenameFlags::RENAME_EXCHANGE).unwrap();
            }
        })
    };
    let next = Arc::new(AtomicUsize::new(0));
    let workers: Vec<_> = (0..WORKERS)
        .map(|w| {
            let (config, next, flips) = (config.clone(), next.clone(), flips.clone());
            std::thread::spawn(move || {
                crate::confine::force_walk(w % 2 == 1);
                let mut seen = Vec::new();
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    // At least CALLS calls, and on until the swapper has flipped often: calls
                    // that fail fast (the link is there) can otherwise finish them all while
                    // four busy workers keep the swapper off the cores (with a bound).
                    let flipped = flips.load(Ordering::Relaxed) > MIN_FLIPS;
                    if i >= CALLS && (flipped || i >= 50 * CALLS) {
                        break;
                    }
                    let (tool, args) = call(i, w, &config);
                    let ctx = crate::call::Ctx::plain(&config);
                    let outcome = dispatch(&tool, args.clone(), &ctx);
                    let (is_error, text) = (outcome.is_error, outcome.text());
                    seen.push((tool, args, is_error, text));
                }
                seen
            })
        })
        .collect();
    let results: Vec<_> = workers
        .into_iter()
        .flat_map(|w| w.join().unwrap())
        .collect();
    stop.store(true, Ordering::Relaxed);
    swapper.join().unwrap();

    assert!(results.len() >= CALLS);
    let mut ok = 0;
    let mut kinds = std::collections::BTreeMap::<String, usize>::new();
    for (tool, args, is_error, text) in &results {
        let code = serde_json::from_str::<Value>(text)
            .ok()
            .and_then(|v| v["error"].as_str().map(str::to_string));
        if *is_error {
            *kinds
                .entry(format!("{tool}:{}", code.unwrap_or_default()))
                .or_default() += 1;
        }
        assert!(!text.contains("\"internal\""), "{tool} {args}: {}", text);
        assert!(
            !text.contains(CANARY) && !text.contains("canary.txt"),
            "{tool} {args} read from outside: {}",
            text
        );
        if !*is_error {
            ok += 1;
        }
    }
    assert_eq!(
        snapshot(&outside),
        before,
        "nothing outside was created or changed"
    );
    assert!(flips.load(Ordering::Relaxed) > MIN_FLIPS, "the swapper ran");
    // The calls did real work between flips (a call that met the link fails cleanly).
    assert!(ok > 0, "some calls succeeded");
    eprintln!(
        "race: {CALLS} calls, {ok} succeeded, {} flips, errors: {kinds:?}",
        flips.load(Ordering::Relaxed)
    );
}
