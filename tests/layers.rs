//! One direction of dependencies: every module of `src/` imports only from its own layer or the
//! layers below, as SPEC.md's "Architecture" section lists them, and no modules import each
//! other in a circle. Test code is exempt (`#[cfg(test)]` items, the test-only modules).

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// Modules compiled only for tests: they may use any layer.
const TEST_ONLY: &[&str] = &["testutil", "race"];

/// The layers as SPEC.md lists them, bottom first: `N. **Name** `a` `b`: what it is.`, the item
/// going on over indented lines.
fn layers(spec: &str) -> Vec<(String, Vec<String>)> {
    let section = spec
        .split("\n## Architecture\n")
        .nth(1)
        .expect("SPEC.md has an Architecture section");
    let section = section.split("\n## ").next().unwrap_or(section);
    let mut items: Vec<String> = Vec::new();
    for line in section.lines() {
        let starts = line
            .split_once(". **")
            .is_some_and(|(n, _)| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()));
        if starts {
            items.push(line.to_string());
        } else if let Some(item) = items
            .last_mut()
            .filter(|i| !i.is_empty() && line.starts_with("   "))
        {
            item.push(' ');
            item.push_str(line.trim());
        } else if !line.trim().is_empty() {
            items.push(String::new());
        }
    }
    let mut layers = Vec::new();
    for item in items.iter().filter(|i| !i.is_empty()) {
        let rest = item.split_once(". **").unwrap().1;
        let (name, rest) = rest.split_once("**").expect("a layer's name in bold");
        let modules = rest
            .split_once(':')
            .expect("`modules`: then a description")
            .0;
        let modules = modules
            .split('`')
            .skip(1)
            .step_by(2)
            .map(str::to_string)
            .collect();
        layers.push((name.to_string(), modules));
    }
    layers
}

/// The source files of `dir`, recursively.
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// `src` without its `#[cfg(test)]` items (attribute to the end of the item's braces or `;`).
fn without_tests(src: &str) -> String {
    let mut out = String::new();
    let mut rest = src;
    while let Some(at) = rest.find("#[cfg(") {
        let attr_end = rest[at..].find(']').map_or(rest.len(), |e| at + e + 1);
        let attr = &rest[at..attr_end];
        let is_test = attr.contains("(test") && !attr.contains("not(test");
        if !is_test {
            out.push_str(&rest[..attr_end]);
            rest = &rest[attr_end..];
            continue;
        }
        out.push_str(&rest[..at]);
        let body = &rest[attr_end..];
        let stop = body.find(['{', ';']).unwrap_or(body.len());
        if body[stop..].starts_with(';') {
            rest = &body[stop + 1..];
            continue;
        }
        let mut depth = 0usize;
        let mut end = body.len();
        for (i, c) in body.char_indices().skip(stop) {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = i + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        rest = &body[end..];
    }
    out.push_str(rest);
    out
}

/// The top-level modules `src` names through `crate::`, as `use crate::x`, `crate::x::y` or
/// inside `use crate::{x, y::z}`.
fn crate_refs(src: &str) -> BTreeSet<String> {
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    let mut refs = BTreeSet::new();
    for (at, _) in src.match_indices("crate::") {
        let after = &src[at + "crate::".len()..];
        if let Some(group) = after.strip_prefix('{') {
            let mut depth = 0;
            let mut item = String::new();
            for c in group.chars() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        refs.insert(ident(item.trim_start()));
                        item.clear();
                        continue;
                    }
                    _ => {}
                }
                item.push(c);
            }
            refs.insert(ident(item.trim_start()));
        } else {
            refs.insert(ident(after));
        }
    }
    refs.remove("");
    refs
}

#[test]
fn no_module_imports_from_a_higher_layer_or_in_a_circle() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let spec = fs::read_to_string(root.join("SPEC.md")).unwrap();
    let layers = layers(&spec);
    assert!(layers.len() >= 2, "SPEC.md's Architecture lists the layers");
    let mut layer_of: BTreeMap<String, usize> = BTreeMap::new();
    for (i, (_, modules)) in layers.iter().enumerate() {
        for m in modules {
            assert!(
                layer_of.insert(m.clone(), i).is_none(),
                "`{m}` is on two layers"
            );
        }
    }

    let src = root.join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    files.sort();
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut problems = Vec::new();
    for file in &files {
        let rel = file.strip_prefix(&src).unwrap();
        let module = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy()
            .trim_end_matches(".rs")
            .to_string();
        let name = rel.file_name().unwrap().to_string_lossy();
        if module == "lib"
            || TEST_ONLY.contains(&module.as_str())
            || name == "tests.rs"
            || name.ends_with("_tests.rs")
        {
            continue;
        }
        let Some(&mine) = layer_of.get(&module) else {
            problems.push(format!(
                "src/{}: module `{module}` is on no layer of SPEC.md's Architecture",
                rel.display()
            ));
            continue;
        };
        let text = without_tests(&fs::read_to_string(file).unwrap());
        for used in crate_refs(&text) {
            if used == module {
                continue;
            }
            let Some(&theirs) = layer_of.get(&used) else {
                continue;
            };
            if theirs > mine {
                problems.push(format!(
                    "src/{}: `{module}` ({}) uses `crate::{used}` from a higher layer ({})",
                    rel.display(),
                    layers[mine].0,
                    layers[theirs].0
                ));
            }
            edges.entry(module.clone()).or_default().insert(used);
        }
    }

    // A circle inside one layer: a depth-first search over the module graph.
    fn visit(
        m: &str,
        edges: &BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<String, u8>,
        path: &mut Vec<String>,
        circles: &mut Vec<String>,
    ) {
        match state.get(m) {
            Some(2) => return,
            Some(1) => {
                let start = path.iter().position(|p| p == m).unwrap_or(0);
                circles.push(format!("{} -> {m}", path[start..].join(" -> ")));
                return;
            }
            _ => {}
        }
        state.insert(m.to_string(), 1);
        path.push(m.to_string());
        for next in edges.get(m).into_iter().flatten() {
            visit(next, edges, state, path, circles);
        }
        path.pop();
        state.insert(m.to_string(), 2);
    }
    let mut state = BTreeMap::new();
    let mut circles = Vec::new();
    for m in edges.keys() {
        visit(m, &edges, &mut state, &mut Vec::new(), &mut circles);
    }
    problems.extend(circles.into_iter().map(|c| format!("circle: {c}")));
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_checks_see_what_they_look_for() {
    let src = "use crate::{a, b::{c, d}, e::f};\nfn g() { crate::h::i(); }\n\
               #[cfg(test)]\nmod tests { use crate::z; }\n#[cfg(not(test))]\nuse crate::y;\n";
    let refs = crate_refs(&without_tests(src));
    let want: BTreeSet<String> = ["a", "b", "e", "h", "y"].map(String::from).into();
    assert_eq!(refs, want);
    let spec = "x\n## Architecture\ntext\n\n1. **Low** `a`\n   `b`: is `c`,\n   `f`.\n\
                2. **High** `d`: it.\n## Next\n3. **No** `e`: x.\n";
    let got = layers(spec);
    assert_eq!(got.len(), 2);
    assert_eq!(got[0].1, ["a", "b"]);
    assert_eq!(got[1], ("High".to_string(), vec!["d".to_string()]));
}
