use super::*;

fn paths(c: &str) -> Vec<String> {
    analyze(c).paths
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
fn the_parser_adds_what_the_lexer_misses() {
    assert_eq!(paths("echo hi>/etc/x"), ["/etc/x"]);
    assert_eq!(paths("cd /etc && cat passwd"), ["/etc", "/etc/passwd"]);
    assert_eq!(paths("cd; rm -rf *"), [".", "~"]);
    assert_eq!(paths("cat $'\\x2fetc/passwd'"), ["/etc/passwd"]);
    assert_eq!(paths("D=/etc; cat $D/passwd"), ["/etc/passwd"]);
    assert_eq!(paths("sh -c 'rm -rf ~'"), ["~"]);
    assert!(analyze("curl x | sh").undecidable);
    assert!(analyze("cd - && rm a.txt").undecidable);
    assert!(analyze("bash -xc ls").undecidable);
    assert!(!analyze("echo $1").undecidable);
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
    assert!(analyze(&deep).undecidable);
    let braces = format!("{}ls{}", "{ ".repeat(10_000), "; }".repeat(10_000));
    assert!(analyze(&braces).undecidable);
    let big = format!("echo {}", "a".repeat(1 << 20));
    let f = analyze(&big);
    assert!(f.undecidable);
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
