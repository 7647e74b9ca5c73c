//! Which grammar a file is parsed with: by extension (lowercased), and by the `#!` line for
//! extensionless scripts. The grammars are compiled into the addon; each one that has an outline
//! carries its query file (`queries/<grammar>/outline.scm`).

use std::path::Path;

use tree_sitter::Language;
use tree_sitter_language::LanguageFn;

/// One compiled-in grammar.
pub struct Grammar {
    /// The name reported to the caller (`language` in check_syntax, the outline header, warnings).
    pub name: &'static str,
    language: LanguageFn,
    /// The outline query, for the grammars outline supports.
    pub outline_query: Option<&'static str>,
}

impl Grammar {
    pub fn language(&self) -> Language {
        Language::new(self.language)
    }
}

impl std::fmt::Debug for Grammar {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

macro_rules! outline {
    ($dir:literal) => {
        Some(include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/queries/",
            $dir,
            "/outline.scm"
        )))
    };
}

const fn g(
    name: &'static str,
    language: LanguageFn,
    outline_query: Option<&'static str>,
) -> Grammar {
    Grammar {
        name,
        language,
        outline_query,
    }
}

/// Every compiled-in grammar. The first eight are the reference contract's outline languages,
/// in the order its messages list them.
pub static GRAMMARS: [Grammar; 24] = [
    g(
        "typescript",
        tree_sitter_typescript::LANGUAGE_TYPESCRIPT,
        outline!("typescript"),
    ),
    g("tsx", tree_sitter_typescript::LANGUAGE_TSX, outline!("tsx")),
    g(
        "javascript",
        tree_sitter_javascript::LANGUAGE,
        outline!("javascript"),
    ),
    g("python", tree_sitter_python::LANGUAGE, outline!("python")),
    g("go", tree_sitter_go::LANGUAGE, outline!("go")),
    g("rust", tree_sitter_rust::LANGUAGE, outline!("rust")),
    g("java", tree_sitter_java::LANGUAGE, outline!("java")),
    g(
        "c-sharp",
        tree_sitter_c_sharp::LANGUAGE,
        outline!("c-sharp"),
    ),
    g("cpp", tree_sitter_cpp::LANGUAGE, outline!("cpp")),
    g("ruby", tree_sitter_ruby::LANGUAGE, outline!("ruby")),
    g("php", tree_sitter_php::LANGUAGE_PHP, outline!("php")),
    g(
        "kotlin",
        tree_sitter_kotlin_ng::LANGUAGE,
        outline!("kotlin"),
    ),
    g("swift", tree_sitter_swift::LANGUAGE, outline!("swift")),
    g("scala", tree_sitter_scala::LANGUAGE, outline!("scala")),
    g("lua", tree_sitter_lua::LANGUAGE, outline!("lua")),
    g("bash", tree_sitter_bash::LANGUAGE, None),
    g("css", tree_sitter_css::LANGUAGE, None),
    g("ini", tree_sitter_ini::LANGUAGE, None),
    g("powershell", tree_sitter_powershell::LANGUAGE, None),
    g("json", tree_sitter_json::LANGUAGE, None),
    g("yaml", tree_sitter_yaml::LANGUAGE, None),
    g("toml", tree_sitter_toml_ng::LANGUAGE, None),
    g("html", tree_sitter_html::LANGUAGE, None),
    g("zig", tree_sitter_zig::LANGUAGE, None),
];

/// Extension (lowercased, with its dot) → grammar name. The first block is the reference
/// contract's table (`.c`/`.h` parse with the C++ grammar and report `cpp`); the second is what
/// this package adds.
const EXTENSIONS: &[(&str, &str)] = &[
    (".ts", "typescript"),
    (".mts", "typescript"),
    (".cts", "typescript"),
    (".tsx", "tsx"),
    (".js", "javascript"),
    (".mjs", "javascript"),
    (".cjs", "javascript"),
    (".jsx", "javascript"),
    (".py", "python"),
    (".pyi", "python"),
    (".go", "go"),
    (".rs", "rust"),
    (".java", "java"),
    (".cs", "c-sharp"),
    (".cpp", "cpp"),
    (".cc", "cpp"),
    (".cxx", "cpp"),
    (".hpp", "cpp"),
    (".hh", "cpp"),
    (".c", "cpp"),
    (".h", "cpp"),
    (".rb", "ruby"),
    (".php", "php"),
    (".sh", "bash"),
    (".bash", "bash"),
    (".css", "css"),
    (".ini", "ini"),
    (".ps1", "powershell"),
    (".psm1", "powershell"),
    (".psd1", "powershell"),
    // Beyond the reference.
    (".json", "json"),
    (".jsonc", "json"),
    (".yaml", "yaml"),
    (".yml", "yaml"),
    (".toml", "toml"),
    (".html", "html"),
    (".htm", "html"),
    (".lua", "lua"),
    (".kt", "kotlin"),
    (".kts", "kotlin"),
    (".swift", "swift"),
    (".scala", "scala"),
    (".sc", "scala"),
    (".zig", "zig"),
];

/// A grammar by its reported name.
pub fn by_name(name: &str) -> Option<&'static Grammar> {
    GRAMMARS.iter().find(|g| g.name == name)
}

/// Node's `path.extname`, lowercased: the last `.`-suffix of the final component, or `""` when
/// there is none (a leading dot, as in `.bashrc`, does not start an extension).
pub fn extname(path: &str) -> String {
    let base = path.rsplit(['/', '\\']).next().unwrap_or(path);
    if base == ".." {
        return String::new();
    }
    match base.rfind('.') {
        Some(i) if i > 0 => base[i..].to_lowercase(),
        _ => String::new(),
    }
}

/// The grammar for an extension as [`extname`] gives it.
pub fn for_extension(ext: &str) -> Option<&'static Grammar> {
    for_extension_in(ext, false)
}

/// The grammar named by a `#!` first line (`#!/bin/sh`, `#!/usr/bin/env -S python3 -u`, ...).
pub fn for_shebang(first_line: &str) -> Option<&'static Grammar> {
    let rest = first_line.strip_prefix("#!")?.trim();
    let mut words = rest.split_whitespace();
    let mut program = words.next()?;
    if Path::new(program).file_name().and_then(|n| n.to_str()) == Some("env") {
        program = words.find(|w| !w.starts_with('-') && !w.contains('='))?;
    }
    let base = program.rsplit('/').next().unwrap_or(program);
    // python3.12 → python, node18 → node, lua5.4 → lua.
    let stem = base.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    let name = match stem {
        "sh" | "bash" | "dash" | "ash" | "ksh" | "mksh" | "zsh" => "bash",
        "python" | "pypy" => "python",
        "node" | "nodejs" | "bun" => "javascript",
        "deno" | "ts-node" | "tsx" => "typescript",
        "ruby" => "ruby",
        "php" => "php",
        "pwsh" | "powershell" => "powershell",
        "lua" | "luajit" => "lua",
        "kotlin" => "kotlin",
        "scala" => "scala",
        "swift" => "swift",
        _ => return None,
    };
    by_name(name)
}

/// How many of [`EXTENSIONS`] (the first ones) are the newest contract's own (CONTRACT-v0.5 §4's
/// table); the rest are this engine's additions, offered with `extras: true`.
const CONTRACT_EXTENSIONS: usize = 30;
/// How many of [`GRAMMARS`] (the first ones) have an outline under the newest contract
/// (typescript … c-sharp); the other outlines are additions, offered with `extras: true`.
const CONTRACT_OUTLINES: usize = 8;

/// The grammar of a (lowercased) extension; with `contract_only`, only the contract's table.
pub fn for_extension_in(ext: &str, contract_only: bool) -> Option<&'static Grammar> {
    let table = if contract_only {
        &EXTENSIONS[..CONTRACT_EXTENSIONS]
    } else {
        EXTENSIONS
    };
    let name = table.iter().find(|(e, _)| *e == ext)?.1;
    by_name(name)
}

/// Whether `grammar` has an outline; with `contract_only`, one of the contract's eight.
pub fn has_outline(grammar: &Grammar, contract_only: bool) -> bool {
    grammar.outline_query.is_some()
        && (!contract_only
            || GRAMMARS[..CONTRACT_OUTLINES]
                .iter()
                .any(|g| g.name == grammar.name))
}

/// Every supported extension, sorted, as the check_syntax message lists them.
pub fn supported_extensions(contract_only: bool) -> String {
    let table = if contract_only {
        &EXTENSIONS[..CONTRACT_EXTENSIONS]
    } else {
        EXTENSIONS
    };
    let mut exts: Vec<&str> = table.iter().map(|(e, _)| *e).collect();
    exts.sort_unstable();
    exts.join(", ")
}

/// The grammars with an outline, in message order.
pub fn outline_languages(contract_only: bool) -> String {
    GRAMMARS
        .iter()
        .filter(|g| has_outline(g, contract_only))
        .map(|g| g.name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// How a path is described in an unsupported-language message: `'<ext>'` or `extensionless`.
pub fn describe_extension(ext: &str) -> String {
    if ext.is_empty() {
        "extensionless".to_string()
    } else {
        format!("'{ext}'")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_contract_tables_are_the_contracts() {
        // CONTRACT-v0.5 §4 (extensions and grammars; outline and check_syntax messages).
        assert_eq!(
            outline_languages(true),
            "typescript, tsx, javascript, python, go, rust, java, c-sharp"
        );
        assert_eq!(
            supported_extensions(true),
            ".bash, .c, .cc, .cjs, .cpp, .cs, .css, .cts, .cxx, .go, .h, .hh, .hpp, .ini, .java, .js, .jsx, .mjs, .mts, .php, .ps1, .psd1, .psm1, .py, .pyi, .rb, .rs, .sh, .ts, .tsx"
        );
        assert!(for_extension_in(".kt", true).is_none());
        assert_eq!(
            for_extension_in(".kt", false).map(|g| g.name),
            Some("kotlin")
        );
        let cpp = for_extension_in(".h", true).unwrap();
        assert!(!has_outline(cpp, true) && has_outline(cpp, false));
    }

    #[test]
    fn extname_follows_node() {
        assert_eq!(extname("a/b/c.TS"), ".ts");
        assert_eq!(extname(".bashrc"), "");
        assert_eq!(extname("dir.d/Makefile"), "");
        assert_eq!(extname("x.tar.gz"), ".gz");
        assert_eq!(extname("a."), ".");
        assert_eq!(extname(".."), "");
    }

    #[test]
    fn contract_table() {
        assert_eq!(for_extension(".c").unwrap().name, "cpp");
        assert_eq!(for_extension(".h").unwrap().name, "cpp");
        assert_eq!(for_extension(".cs").unwrap().name, "c-sharp");
        assert_eq!(for_extension(".psd1").unwrap().name, "powershell");
        assert_eq!(for_extension(".zig").unwrap().name, "zig");
        assert!(for_extension(".xyz").is_none());
        assert!(for_extension("").is_none());
    }

    #[test]
    fn shebangs() {
        let name = |l: &str| for_shebang(l).map(|g| g.name);
        assert_eq!(name("#!/bin/sh"), Some("bash"));
        assert_eq!(name("#!/usr/bin/env python3.12"), Some("python"));
        assert_eq!(
            name("#!/usr/bin/env -S node --no-warnings"),
            Some("javascript")
        );
        assert_eq!(name("#! /usr/bin/ruby -w"), Some("ruby"));
        assert_eq!(name("#!/usr/bin/env FOO=1 pwsh"), Some("powershell"));
        assert_eq!(name("#!/usr/bin/perl"), None);
        assert_eq!(name("echo hi"), None);
    }

    #[test]
    fn every_grammar_loads_and_every_query_compiles() {
        for g in GRAMMARS.iter() {
            let mut parser = tree_sitter::Parser::new();
            parser
                .set_language(&g.language())
                .unwrap_or_else(|e| panic!("{}: {e}", g.name));
            if let Some(q) = g.outline_query {
                tree_sitter::Query::new(&g.language(), q)
                    .unwrap_or_else(|e| panic!("{} outline query: {e}", g.name));
            }
        }
        assert!(EXTENSIONS.iter().all(|(_, n)| by_name(n).is_some()));
    }

    #[test]
    fn messages_list() {
        let exts = supported_extensions(false);
        assert!(exts.starts_with(".bash, .c, .cc, .cjs, .cpp, .cs, .css, .cts, .cxx, .go"));
        assert_eq!(
            outline_languages(false),
            "typescript, tsx, javascript, python, go, rust, java, c-sharp, cpp, ruby, php, kotlin, swift, scala, lua"
        );
    }
}
