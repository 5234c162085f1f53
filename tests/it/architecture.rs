//! The layering docs/architecture.md describes, checked on the source text: only `store/`
//! touches git, use cases neither parse arguments nor print, and no files import each other
//! in a circle.

use std::path::{Path, PathBuf};

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// `(path relative to src/, text without comment lines)` of every source file.
fn files() -> Vec<(String, String)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut paths = Vec::new();
    sources(&src, &mut paths);
    paths
        .into_iter()
        .map(|p| {
            let rel = p
                .strip_prefix(&src)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            let code: String = std::fs::read_to_string(&p)
                .unwrap()
                .lines()
                .filter(|l| !l.trim_start().starts_with("//"))
                .map(|l| format!("{l}\n"))
                .collect();
            (rel, code)
        })
        .collect()
}

#[track_caller]
fn forbid(allowed: &[&str], needles: &[&str], why: &str) {
    let mut offenders = Vec::new();
    for (rel, code) in files() {
        // Unit-test modules may print (corpus figures).
        if allowed.iter().any(|a| rel.starts_with(a)) || rel.ends_with("tests.rs") {
            continue;
        }
        for n in needles {
            if code.contains(n) {
                offenders.push(format!("{rel}: {n}"));
            }
        }
    }
    assert!(offenders.is_empty(), "{why}:\n{}", offenders.join("\n"));
}

#[test]
fn only_the_store_touches_git() {
    forbid(
        &["store/"],
        &["gix::", "use gix", "Command::new(\"git\")"],
        "gix and the git program belong to src/store/",
    );
}

#[test]
fn use_cases_do_not_parse_arguments_or_print() {
    let top = ["main.rs", "cli/", "lib.rs", "commands/", "output/"];
    forbid(
        &top,
        &["clap::", "use clap"],
        "only the command line knows clap",
    );
    forbid(
        &top,
        &[
            "println!",
            "eprintln!",
            "print!(",
            "std::io::stdout",
            "std::io::stderr",
            "output::",
        ],
        "use cases return what they did; commands print it",
    );
}

#[test]
fn commands_print_json_from_the_typed_shapes_only() {
    let offenders: Vec<String> = files()
        .into_iter()
        .filter(|(rel, code)| rel.starts_with("commands/") && code.contains("json!"))
        .map(|(rel, _)| rel)
        .collect();
    assert!(
        offenders.is_empty(),
        "--json output comes from the typed shapes in output/json (docs/json.md), not json!: {offenders:?}"
    );
}

/// A file's module path from its path under src/ (`a/mod.rs` is `a`, `lib.rs` the root).
fn module_of(rel: &str) -> Vec<String> {
    let stem = rel.trim_end_matches(".rs");
    let mut parts: Vec<String> = stem.split('/').map(str::to_owned).collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
        parts.pop();
    }
    parts
}

/// The text of a file without its `#[cfg(test)] mod … { … }` blocks.
fn without_test_modules(code: &str) -> String {
    let lines: Vec<&str> = code.lines().collect();
    let (mut out, mut i) = (String::new(), 0);
    while i < lines.len() {
        let opens_test_mod = lines[i].trim() == "#[cfg(test)]"
            && lines.get(i + 1).is_some_and(|l| {
                let l = l.trim_start();
                (l.starts_with("mod ") || l.starts_with("pub mod ")) && l.ends_with('{')
            });
        if opens_test_mod {
            let mut depth = 0i32;
            let mut j = i + 1;
            while j < lines.len() {
                depth +=
                    lines[j].matches('{').count() as i32 - lines[j].matches('}').count() as i32;
                j += 1;
                if depth <= 0 {
                    break;
                }
            }
            i = j;
            continue;
        }
        out.push_str(lines[i]);
        out.push('\n');
        i += 1;
    }
    out
}

/// The paths a file names (`crate::a::b`, `super::c`, `d::e` for a child module `d`), each
/// as segments from the crate root; a `{…}` group gives one path per item.
fn named_paths(module: &[String], is_mod_rs: bool, code: &str) -> Vec<Vec<String>> {
    let children: Vec<&str> = code
        .lines()
        .filter_map(|l| {
            let l = l
                .trim_start()
                .trim_start_matches("pub ")
                .trim_start_matches("pub(crate) ");
            l.strip_prefix("mod ")?.strip_suffix(';')
        })
        .collect();
    // The module `super` and `self` name from this file.
    let here: Vec<String> = if is_mod_rs || module.is_empty() {
        module.to_vec()
    } else {
        module[..module.len() - 1].to_vec()
    };
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let bytes = code.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < code.len() {
        let at_word = i == 0 || !ident(bytes[i - 1] as char) && bytes[i - 1] != b':';
        let rest = &code[i..];
        let first_len = rest.find(|c: char| !ident(c)).unwrap_or(rest.len());
        let first = &rest[..first_len];
        let start: Option<Vec<String>> =
            if !at_word || first.is_empty() || !rest[first_len..].starts_with("::") {
                None
            } else if first == "crate" {
                Some(Vec::new())
            } else if first == "self" {
                Some(module.to_vec())
            } else if first == "super" {
                Some(here.clone())
            } else if children.contains(&first) {
                let mut m = module.to_vec();
                m.push(first.to_owned());
                Some(m)
            } else {
                None
            };
        let Some(mut base) = start else {
            i += first_len.max(rest.chars().next().map_or(1, char::len_utf8));
            continue;
        };
        // Read `::segment` after `::segment`, `super` going up, up to a group or the end.
        let mut j = i + first_len;
        loop {
            let r = &code[j..];
            let Some(r2) = r.strip_prefix("::") else {
                break;
            };
            if r2.starts_with('{') {
                let close = r2.find('}').unwrap_or(r2.len());
                for item in r2[1..close].split(',') {
                    let item = item.trim().split(" as ").next().unwrap_or("");
                    let mut p = base.clone();
                    p.extend(
                        item.split("::")
                            .map(|s| s.trim().to_owned())
                            .filter(|s| !s.is_empty() && s != "self" && s != "*"),
                    );
                    out.push(p);
                }
                j += 2 + close;
                base.clear();
                break;
            }
            let n = r2.find(|c: char| !ident(c)).unwrap_or(r2.len());
            if n == 0 {
                break;
            }
            match &r2[..n] {
                "super" => {
                    base.pop();
                }
                seg => base.push(seg.to_owned()),
            }
            j += 2 + n;
        }
        if !base.is_empty() {
            out.push(base);
        }
        i = j.max(i + first_len);
    }
    out
}

/// No two files import each other, directly or around a circle: a file's own module and its
/// ancestors aside (a child module sees its parent's items), every path a file names is an
/// arrow to the deepest module file it reaches, and the arrows have no circle.
#[test]
fn no_files_import_each_other_in_a_circle() {
    let files: Vec<(String, String)> = files()
        .into_iter()
        .filter(|(rel, _)| {
            rel != "main.rs" && !rel.ends_with("tests.rs") && !rel.ends_with("testing.rs")
        })
        .collect();
    let modules: Vec<Vec<String>> = files.iter().map(|(rel, _)| module_of(rel)).collect();
    let mut arrows: Vec<Vec<usize>> = vec![Vec::new(); files.len()];
    for (f, (rel, code)) in files.iter().enumerate() {
        let code = without_test_modules(code);
        let me = &modules[f];
        for path in named_paths(me, rel.ends_with("mod.rs"), &code) {
            // The deepest module file the path reaches.
            let target = (0..=path.len())
                .rev()
                .find_map(|n| modules.iter().position(|m| m[..] == path[..n]));
            let Some(t) = target else { continue };
            let ancestor = modules[t].len() <= me.len() && me[..modules[t].len()] == modules[t][..];
            if t != f && !ancestor && !arrows[f].contains(&t) {
                arrows[f].push(t);
            }
        }
    }
    // Depth-first search; a grey node met again closes a circle.
    fn visit(
        n: usize,
        arrows: &[Vec<usize>],
        colour: &mut [u8],
        stack: &mut Vec<usize>,
        found: &mut Vec<Vec<usize>>,
    ) {
        colour[n] = 1;
        stack.push(n);
        for &m in &arrows[n] {
            if colour[m] == 1 {
                let at = stack.iter().position(|&s| s == m).unwrap();
                found.push(stack[at..].to_vec());
            } else if colour[m] == 0 {
                visit(m, arrows, colour, stack, found);
            }
        }
        stack.pop();
        colour[n] = 2;
    }
    let (mut colour, mut found) = (vec![0u8; files.len()], Vec::new());
    for n in 0..files.len() {
        if colour[n] == 0 {
            visit(n, &arrows, &mut colour, &mut Vec::new(), &mut found);
        }
    }
    let circles: Vec<String> = found
        .iter()
        .map(|c| {
            let names: Vec<&str> = c.iter().map(|&n| files[n].0.as_str()).collect();
            names.join(" -> ")
        })
        .collect();
    assert!(
        circles.is_empty(),
        "files that import each other in a circle (move what both use to a file below them):\n{}",
        circles.join("\n")
    );
    // The reader itself sees arrows: one known arrow is read.
    let idx = |rel: &str| files.iter().position(|(r, _)| r == rel).unwrap();
    assert!(arrows[idx("integrity/phrases.rs")].contains(&idx("integrity/words.rs")));
    assert!(arrows[idx("agent/route.rs")].contains(&idx("agent/codex.rs")));
}
