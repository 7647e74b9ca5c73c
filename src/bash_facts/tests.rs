use super::*;

/// The parse's paths (resolved from the starting directory, lexically).
fn paths(c: &str) -> Vec<String> {
    analyze(c).parse.paths
}

fn segments(c: &str) -> Vec<String> {
    analyze(c).parse.segments
}

#[test]
fn the_lexer_alone_decides_ordinary_commands() {
    let f = analyze("npm test && cat src/a.ts 2>&1 | tee out.log");
    assert_eq!(f.paths, ["src/a.ts", "out.log"]);
    assert!(!f.undecidable);
    let norm: Vec<_> = f.segments.iter().map(|s| s.normalized.as_str()).collect();
    assert_eq!(norm, ["npm test", "cat src/a.ts 2>&1", "tee out.log"]);
    assert!(f.parser.parsed);
    assert!(f.reasons.is_empty());
}

#[test]
fn the_parse_finds_what_the_lexer_misses_and_the_contract_fields_stay_the_lexers() {
    let f = analyze("echo hi>/etc/x");
    assert!(f.paths.is_empty());
    assert_eq!(f.parse.paths, ["/etc/x"]);
    assert_eq!(f.parse.outside, ["/etc/x"]);
    assert_eq!(paths("cd /etc && cat passwd"), ["/etc", "/etc/passwd"]);
    assert_eq!(paths("cd; rm -rf *"), ["~"]);
    assert_eq!(paths("cat $'\\x2fetc/passwd'"), ["/etc/passwd"]);
    assert_eq!(paths("D=/etc; cat $D/passwd"), ["/etc/passwd"]);
    assert_eq!(paths("sh -c 'rm -rf ~'"), ["~"]);
    assert!(analyze("curl x | sh").parse.undecidable);
    let f = analyze("cd - && rm a.txt");
    assert!(!f.undecidable && f.parse.undecidable);
    let f = analyze("bash -c ls");
    assert!(f.undecidable && !f.parse.undecidable);
    assert!(!analyze("bash -xc ls").parse.undecidable);
    assert!(!analyze("echo $1").parse.undecidable);
}

#[test]
fn segments_are_every_simple_command_that_can_run() {
    assert_eq!(segments("(pwd; rm -rf dist)"), ["pwd", "rm -rf dist"]);
    assert_eq!(segments("{ ls; pwd; }"), ["ls", "pwd"]);
    assert_eq!(segments("ls() { rm x; }; ls"), ["rm x", "ls"]);
    assert_eq!(segments("command rm x"), ["command rm x", "rm x"]);
    assert_eq!(segments("command -v rm"), ["command -v rm"]);
    assert_eq!(segments("timeout 5s nice -n 3 make"), ["make"]);
    assert_eq!(segments("FOO=1 npm test"), ["npm test"]);
    assert_eq!(
        segments("find . -exec grep -l x {} +"),
        ["find . -exec grep -l x {} +", "grep -l x {}"]
    );
    assert_eq!(segments("sh -c 'ls; id'"), ["sh -c ls; id", "ls", "id"]);
    assert_eq!(segments("echo $(rm x)"), ["rm x", "echo …"]);
    assert_eq!(segments("alias l='rm x'"), ["alias l=rm x", "rm x"]);
    assert_eq!(segments("trap 'rm x' EXIT"), ["trap rm x EXIT", "rm x"]);
    assert_eq!(segments("watch -n 1 'rm x'"), ["watch -n 1 rm x", "rm x"]);
    assert_eq!(segments("su -c 'rm x'"), ["su -c rm x", "rm x"]);
    assert_eq!(segments("flock /tmp/l rm x"), ["flock /tmp/l rm x", "rm x"]);
    assert_eq!(segments("strace -f rm x"), ["strace -f rm x", "rm x"]);
    assert!(analyze("IFS=,; X=rm,-rf,/; $X").parse.undecidable);
    // A recursive function is followed once.
    assert_eq!(segments("f() { f; }; f"), ["f"]);
    assert!(analyze("eval ls").parse.undecidable);
    assert!(!analyze("find . -exec rm {} \\;").parse.undecidable);
}

#[test]
fn expansions_as_bash_does_them() {
    assert_eq!(paths("cp a {/var,.}/y"), ["a", "/var/y", "y"]);
    assert_eq!(paths("touch f{1..3}.txt"), ["f1.txt", "f2.txt", "f3.txt"]);
    assert_eq!(paths("touch {c..a}.txt"), ["c.txt", "b.txt", "a.txt"]);
    assert_eq!(paths("touch '{a,b}'.txt"), ["{a,b}.txt"]);
    assert_eq!(paths("touch {a}.txt"), ["{a}.txt"]);
    assert_eq!(paths("X='a b'; rm $X"), ["a", "b"]);
    assert_eq!(paths("X='a b'; rm \"$X\""), ["a b"]);
    assert_eq!(paths("X='{a,b}'; rm $X"), ["{a,b}"]);
    assert_eq!(paths("ls ../*"), [".."]);
    assert_eq!(paths("rm /tmp/*.log"), ["/tmp"]);
    assert!(analyze("ls */../../x*").parse.undecidable);
    assert!(analyze("echo {1..5000}").parse.undecidable);
    assert!(!analyze("echo \"\\$(x)\"").parse.undecidable);
}

#[test]
fn and_lists_run_in_order_and_may_stop_anywhere() {
    assert_eq!(paths("cd build && cmake .."), ["build", "."]);
    assert_eq!(paths("cd /etc && cat passwd"), ["/etc", "/etc/passwd"]);
    // `||` runs where the `cd` may or may not have happened.
    assert!(analyze("cd x || cat a.txt").parse.undecidable);
    // After the list, the directory depends on where it stopped.
    assert!(analyze("cd build && make; cat x.txt").parse.undecidable);
    assert!(!analyze("make && make test; cat x.txt").parse.undecidable);
}

#[test]
fn option_values_are_paths() {
    assert_eq!(paths("tar -cf/var/x.tar ."), ["/var/x.tar", "."]);
    assert_eq!(paths("cp -t/var/x f"), ["/var/x", "f"]);
    assert_eq!(paths("gcc -o out main.c"), ["out", "main.c"]);
    assert_eq!(paths("cc -I/usr/include x.c"), ["/usr/include", "x.c"]);
}

#[test]
fn comments_and_quoted_here_docs_are_data() {
    let f = analyze("ls # rm -rf /etc");
    assert_eq!(f.paths, ["/etc"]);
    assert!(f.parse.paths.is_empty());
    assert_eq!(f.parse.segments, ["ls"]);
    let f = analyze("cat <<'EOF'\n$(rm -rf /)\nEOF");
    assert_eq!(f.parse.segments, ["cat"]);
    let f = analyze("cat <<EOF\n$(rm -rf /)\nEOF");
    assert_eq!(f.parse.segments, ["rm -rf /", "cat"]);
}

#[test]
fn nul_and_invalid_bytes_are_undecidable() {
    assert!(analyze("ls\0rm -rf /").parse.undecidable);
    assert!(analyze("ls \u{FFFD}").parse.undecidable);
}

#[cfg(unix)]
#[test]
fn paths_resolve_physically_against_the_workspace() {
    let dir = tempfile::tempdir().unwrap();
    let away = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let away = away.path().canonicalize().unwrap();
    std::fs::create_dir(root.join("build")).unwrap();
    std::os::unix::fs::symlink(&away, root.join("out")).unwrap();
    let place = Place {
        root: root.clone(),
        start: None,
        within: crate::paths::is_within,
    };
    let at = |c: &str| analyze_in(c, Some(&place)).parse;
    let p = at("cd build && cmake ..");
    assert!(p.outside.is_empty(), "{p:?}");
    assert_eq!(
        p.paths,
        [root.join("build"), root.clone()].map(|p| p.display().to_string())
    );
    let p = at("cd out && rm x");
    assert_eq!(
        p.outside,
        [
            away.display().to_string(),
            away.join("x").display().to_string()
        ]
    );
    let p = at("cat out/../secret");
    let parent = away.parent().unwrap().join("secret");
    assert_eq!(p.outside, [parent.display().to_string()]);
    // bash's cd is logical: `out/..` is the workspace again.
    assert!(at("cd out/.. && rm x").outside.is_empty());
    assert!(at("echo hi >/dev/null").outside.is_empty());
}

#[test]
fn commands_are_reported_with_their_directory_and_wrappers() {
    let f = analyze("cd /srv && sudo -u x env A=1 nice -n 5 rm -rf cache");
    let last = f.parser.commands.last().unwrap();
    assert_eq!(
        last.argv,
        [Some("rm".into()), Some("-rf".into()), Some("cache".into())]
    );
    assert_eq!(last.cwd.as_deref(), Some("/srv"));
    assert_eq!(last.via, ["sudo", "env", "nice"]);
    let access = f.parser.accesses.last().unwrap();
    assert_eq!(
        (access.resolved.as_str(), access.kind),
        ("/srv/cache", "write")
    );
}

#[test]
fn limits_make_it_undecidable_without_overflowing() {
    let deep = format!("echo {}x{}", "$(".repeat(10_000), ")".repeat(10_000));
    assert!(analyze(&deep).parse.undecidable);
    let braces = format!("{}ls{}", "{ ".repeat(10_000), "; }".repeat(10_000));
    assert!(analyze(&braces).parse.undecidable);
    let big = format!("echo {}", "a".repeat(1 << 20));
    let f = analyze(&big);
    assert!(f.parse.undecidable);
    assert!(!f.parser.parsed);
    // Programs nested in programs past the cap: parsed, but not followed all the way down.
    let nested = format!("echo {}cat /etc/x{}", "$(".repeat(20), ")".repeat(20));
    let f = analyze(&nested);
    assert!(f.parser.parsed);
    assert!(f
        .reasons
        .contains(&"commands nested too deeply to analyze".to_string()));
}

#[test]
fn json_has_the_contract_keys_and_the_additive_ones() {
    let v = analyze("cat a.txt > /tmp/b").to_json();
    for key in [
        "paths",
        "undecidable",
        "segments",
        "commands",
        "accesses",
        "redirections",
        "reasons",
        "parsed",
    ] {
        assert!(v.get(key).is_some(), "{key}");
    }
    assert_eq!(v["redirections"][0]["op"], ">");
}

/// Not a test: prints how long adversarial inputs take (run with `--release --ignored
/// --nocapture`). The suite itself asserts no timings.
#[test]
#[ignore]
fn timing_report() {
    let cases = [
        ("1 MB word", format!("echo {}", "a".repeat(1 << 20))),
        (
            "1 MB of paths",
            (0..100_000)
                .map(|i| format!("a/{i}"))
                .collect::<Vec<_>>()
                .join(" "),
        ),
        (
            "10k nested $(",
            format!("echo {}x{}", "$(".repeat(10_000), ")".repeat(10_000)),
        ),
        (
            "60 KB script",
            "cat a.txt | grep x && cd /tmp; rm -rf b; echo \"$(ls)\" > out\n".repeat(1000),
        ),
        (
            "64 KB here-doc",
            format!("cat <<EOF > f.txt\n{}EOF", "line of text $x\n".repeat(4000)),
        ),
    ];
    for (name, cmd) in cases {
        let t = std::time::Instant::now();
        let lexed = lexer::lex(&cmd);
        let lex_ms = t.elapsed().as_secs_f64() * 1e3;
        let t = std::time::Instant::now();
        let f = analyze(&cmd);
        let analyze_ms = t.elapsed().as_secs_f64() * 1e3;
        let t = std::time::Instant::now();
        let json = f.to_json().to_string();
        println!(
            "{name:>16} {:>8} B  lex {lex_ms:>7.1} ms  analyze {analyze_ms:>7.1} ms  json {:>6.1} ms ({} B, {} paths)",
            cmd.len(),
            t.elapsed().as_secs_f64() * 1e3,
            json.len(),
            lexed.paths.len()
        );
    }
}
