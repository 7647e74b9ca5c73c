//! The options whose value is a path, per command: the one table the analyzer reads them from.
//!
//! A value counts in every spelling bash passes it: separate (`-o out`, `--output out`), glued
//! to a short option or a cluster of them (`-oout`, `-cf/var/x.tar`), after `=` for a long one
//! (`--output=out`), and in tar's old bundled form (`tar cf x.tar`). `of=`/`if=` (dd) are in
//! the parse's own rules, and any short option glued to something with a `/` or `~` counts as
//! a path whatever the command (`-I/usr/include`).

/// `(commands, options)`: each option is `(spelling, kind)`, the kind being `write`, `read` or
/// `cd` (a directory the command works in, so it may write there).
type Entry = (
    &'static [&'static str],
    &'static [(&'static str, &'static str)],
);

pub const OPTION_PATHS: &[Entry] = &[
    (
        &["cp", "mv", "ln", "install"],
        &[
            ("-t", "write"),
            ("--target-directory", "write"),
            ("-S", "arg"),
        ],
    ),
    (
        &["tar", "bsdtar", "gtar"],
        &[
            ("-f", "write"),
            ("--file", "write"),
            ("-C", "cd"),
            ("--directory", "cd"),
            ("-T", "read"),
            ("--files-from", "read"),
            ("-X", "read"),
            ("--exclude-from", "read"),
            ("-g", "write"),
            ("--listed-incremental", "write"),
        ],
    ),
    (
        &["curl"],
        &[
            ("-o", "write"),
            ("--output", "write"),
            ("--output-dir", "write"),
            ("-D", "write"),
            ("--dump-header", "write"),
            ("-c", "write"),
            ("--cookie-jar", "write"),
            ("--trace", "write"),
            ("--trace-ascii", "write"),
            ("--stderr", "write"),
            ("-K", "read"),
            ("--config", "read"),
            ("-T", "read"),
            ("--upload-file", "read"),
        ],
    ),
    (
        &["wget"],
        &[
            ("-O", "write"),
            ("--output-document", "write"),
            ("-o", "write"),
            ("--output-file", "write"),
            ("-a", "write"),
            ("--append-output", "write"),
            ("-P", "write"),
            ("--directory-prefix", "write"),
            ("-i", "read"),
            ("--input-file", "read"),
        ],
    ),
    (
        &[
            "gcc", "g++", "cc", "c++", "clang", "clang++", "ld", "as", "rustc", "go", "nasm",
            "strace", "ltrace", "pandoc", "gpg", "zstd",
        ],
        &[("-o", "write"), ("--output", "write")],
    ),
    (
        &["javac"],
        &[("-d", "write"), ("-s", "write"), ("-h", "write")],
    ),
    (
        &["sort"],
        &[
            ("-o", "write"),
            ("--output", "write"),
            ("-T", "write"),
            ("--temporary-directory", "write"),
        ],
    ),
    (
        &["git"],
        &[
            ("-C", "cd"),
            ("--git-dir", "write"),
            ("--work-tree", "write"),
        ],
    ),
    (
        &["make", "gmake"],
        &[
            ("-C", "cd"),
            ("--directory", "cd"),
            ("-f", "read"),
            ("--file", "read"),
            ("--makefile", "read"),
        ],
    ),
    (&["unzip"], &[("-d", "write")]),
    (
        &["patch"],
        &[
            ("-o", "write"),
            ("--output", "write"),
            ("-i", "read"),
            ("--input", "read"),
            ("-d", "cd"),
            ("--directory", "cd"),
            ("-r", "write"),
            ("--reject-file", "write"),
        ],
    ),
    (&["ssh-keygen"], &[("-f", "write")]),
    (
        &["openssl"],
        &[("-out", "write"), ("-keyout", "write"), ("-in", "read")],
    ),
    (
        &["rsync"],
        &[
            ("--log-file", "write"),
            ("-T", "write"),
            ("--temp-dir", "write"),
            ("--backup-dir", "write"),
            ("--files-from", "read"),
            ("--exclude-from", "read"),
            ("--include-from", "read"),
            ("--password-file", "read"),
        ],
    ),
    (
        &["pip", "pip3"],
        &[
            ("-t", "write"),
            ("--target", "write"),
            ("--prefix", "write"),
            ("--root", "write"),
            ("--log", "write"),
            ("-r", "read"),
            ("--requirement", "read"),
        ],
    ),
    (
        &["npm", "pnpm", "yarn", "npx"],
        &[
            ("--prefix", "write"),
            ("-C", "cd"),
            ("--cache", "write"),
            ("--pack-destination", "write"),
        ],
    ),
    (
        &["cargo"],
        &[
            ("--target-dir", "write"),
            ("--artifact-dir", "write"),
            ("--manifest-path", "read"),
        ],
    ),
    (
        &["tsc"],
        &[
            ("--outDir", "write"),
            ("--outFile", "write"),
            ("--tsBuildInfoFile", "write"),
            ("-p", "read"),
            ("--project", "read"),
        ],
    ),
    (
        &["esbuild"],
        &[("--outfile", "write"), ("--outdir", "write")],
    ),
    (
        &["touch", "truncate", "chmod", "chown", "chgrp"],
        &[("-r", "read"), ("--reference", "read")],
    ),
    (&["mktemp"], &[("-p", "write"), ("--tmpdir", "write")]),
    (
        &["docker", "podman"],
        &[
            ("-f", "read"),
            ("--file", "read"),
            ("-o", "write"),
            ("--output", "write"),
            ("--iidfile", "write"),
            ("--cidfile", "write"),
        ],
    ),
    (
        &["sed", "awk", "gawk"],
        &[("-f", "read"), ("--file", "read")],
    ),
    (&["jq"], &[("-f", "read"), ("--from-file", "read")]),
    (
        &["split", "csplit"],
        &[
            ("--additional-suffix", "arg"),
            ("-f", "write"),
            ("--prefix", "write"),
        ],
    ),
];

/// A path given as an option's value: the word it is in (`arg`, an index into the command's
/// arguments after its name), where in the word it starts (a byte offset), and the kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OptionValue {
    pub arg: usize,
    pub offset: usize,
    pub kind: &'static str,
}

fn table(command: &str) -> &'static [(&'static str, &'static str)] {
    OPTION_PATHS
        .iter()
        .find(|(names, _)| names.contains(&command))
        .map(|(_, options)| *options)
        .unwrap_or(&[])
}

/// The option values of `command` that are paths. `args` are the words after the name
/// (`None` where a value is not known).
pub fn option_values(command: &str, args: &[Option<&str>]) -> Vec<OptionValue> {
    let spec = table(command);
    let mut out = Vec::new();
    if spec.is_empty() {
        return out;
    }
    let kind_of = |flag: &str| spec.iter().find(|(f, _)| *f == flag).map(|(_, k)| *k);
    let mut i = 0;
    // tar's old form: a first word of bundled letters without a dash, whose value-taking
    // letters take the following words in order (`tar cfC x.tar dir`).
    let mut pending: Vec<&'static str> = Vec::new();
    if matches!(command, "tar" | "bsdtar" | "gtar") {
        if let Some(Some(first)) = args.first() {
            if !first.starts_with('-') && first.chars().all(|c| c.is_ascii_alphabetic()) {
                pending = first
                    .chars()
                    .filter_map(|c| kind_of(&format!("-{c}")))
                    .collect();
                i = 1;
            }
        }
    }
    for kind in pending {
        if i < args.len() {
            out.push(OptionValue {
                arg: i,
                offset: 0,
                kind,
            });
            i += 1;
        }
    }
    while i < args.len() {
        let Some(v) = args[i] else {
            i += 1;
            continue;
        };
        if v == "--" {
            break;
        }
        if let Some(long) = v.strip_prefix("--") {
            let (flag, glued) = match long.split_once('=') {
                Some((f, _)) => (f, Some(2 + f.len() + 1)),
                None => (long, None),
            };
            if let Some(kind) = kind_of(&format!("--{flag}")) {
                match glued {
                    Some(offset) => out.push(OptionValue {
                        arg: i,
                        offset,
                        kind,
                    }),
                    None if i + 1 < args.len() => {
                        out.push(OptionValue {
                            arg: i + 1,
                            offset: 0,
                            kind,
                        });
                        i += 1;
                    }
                    None => {}
                }
            }
        } else if v.len() > 1 && v.starts_with('-') {
            if let Some(kind) = kind_of(v).filter(|_| v.len() > 2) {
                // A single-dash long option (`openssl -out x`).
                if i + 1 < args.len() {
                    out.push(OptionValue {
                        arg: i + 1,
                        offset: 0,
                        kind,
                    });
                    i += 1;
                }
            } else {
                // A cluster of short options: the first that takes a path takes the rest of
                // the word, or the next word.
                for (at, c) in v.char_indices().skip(1) {
                    let Some(kind) = kind_of(&format!("-{c}")) else {
                        continue;
                    };
                    let offset = at + c.len_utf8();
                    if offset < v.len() {
                        out.push(OptionValue {
                            arg: i,
                            offset,
                            kind,
                        });
                    } else if i + 1 < args.len() {
                        out.push(OptionValue {
                            arg: i + 1,
                            offset: 0,
                            kind,
                        });
                        i += 1;
                    }
                    break;
                }
            }
        }
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The values `option_values` finds, as text.
    fn values(command: &str, line: &str) -> Vec<(String, &'static str)> {
        let words: Vec<&str> = line.split(' ').filter(|w| !w.is_empty()).collect();
        let args: Vec<Option<&str>> = words.iter().map(|w| Some(*w)).collect();
        option_values(command, &args)
            .into_iter()
            .map(|v| (words[v.arg][v.offset..].to_string(), v.kind))
            .collect()
    }

    #[test]
    fn every_spelling_of_a_path_option() {
        let w = |s: &str| (s.to_string(), "write");
        assert_eq!(values("cp", "-t /var/x f"), [w("/var/x")]);
        assert_eq!(values("cp", "-t/var/x f"), [w("/var/x")]);
        assert_eq!(values("cp", "-rt/var/x f"), [w("/var/x")]);
        assert_eq!(values("cp", "--target-directory=/var/x f"), [w("/var/x")]);
        assert_eq!(values("cp", "--target-directory /var/x f"), [w("/var/x")]);
        assert_eq!(values("tar", "-cf/var/x.tar ."), [w("/var/x.tar")]);
        assert_eq!(values("tar", "-czf out.tgz ."), [w("out.tgz")]);
        assert_eq!(values("tar", "--file=/var/x.tar ."), [w("/var/x.tar")]);
        assert_eq!(
            values("tar", "cfC x.tar /tmp ."),
            [w("x.tar"), ("/tmp".to_string(), "cd")]
        );
        assert_eq!(values("curl", "-sSLo/tmp/i.sh https://e"), [w("/tmp/i.sh")]);
        assert_eq!(values("curl", "--output /tmp/x https://e"), [w("/tmp/x")]);
        assert_eq!(values("gcc", "-o out main.c"), [w("out")]);
        assert_eq!(values("sort", "-o/etc/x in"), [w("/etc/x")]);
        assert_eq!(values("openssl", "req -out /etc/k"), [w("/etc/k")]);
        assert_eq!(values("wget", "-O- https://e"), [w("-")]);
        assert_eq!(
            values("git", "-C /srv status"),
            [("/srv".to_string(), "cd")]
        );
    }

    #[test]
    fn other_options_and_commands_give_nothing() {
        assert!(values("cp", "-r a b").is_empty());
        assert!(values("ls", "-o /x").is_empty());
        assert!(values("cp", "-- -t x").is_empty());
        assert!(values("tar", "-x").is_empty());
    }

    #[test]
    fn the_table_names_each_command_once() {
        let mut seen = std::collections::HashSet::new();
        for (names, options) in OPTION_PATHS {
            for n in *names {
                assert!(seen.insert(*n), "{n} is in the table twice");
            }
            for (flag, kind) in *options {
                assert!(flag.starts_with('-'), "{flag}");
                assert!(matches!(*kind, "write" | "read" | "cd" | "arg"), "{kind}");
            }
        }
    }
}
