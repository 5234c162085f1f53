//! The layering docs/architecture.md describes, checked on the source text: only `store/`
//! touches git, use cases neither parse arguments nor print.

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
