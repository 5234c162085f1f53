//! What the secret filter costs a process, printed for docs/performance.md (never asserted:
//! speed is measured, not tested). Run it optimised:
//! `cargo test --release --lib secrets::cost_tests -- --ignored --nocapture`.
//!
//! The data files are parsed the first time a scan needs them, so the first scan of a process
//! pays for the parse, the keyword index and the regexes of the provider rules its text
//! wakes; later scans pay for the scan alone.

use std::time::{Duration, Instant};

use super::*;

/// The median of `runs` timings of `f`.
fn median(runs: usize, mut f: impl FnMut()) -> Duration {
    let mut t: Vec<Duration> = (0..runs)
        .map(|_| {
            let s = Instant::now();
            f();
            s.elapsed()
        })
        .collect();
    t.sort();
    t[runs / 2]
}

#[test]
#[ignore]
fn first_scan_cost() {
    const CLEAN: &str = "Decision: store memory under refs/rune/ so it travels with git push and fetch; the password policy is NIST 800-63B.";
    const KEYWORDS: &str = "the docker config has \"auth\": \"\" and npm's _authToken comes from ${NPM_TOKEN}; slack and stripe keys live in vault";
    // What the first scan in a process builds, one piece at a time, then the scan itself.
    let time = |f: &dyn Fn()| {
        let s = Instant::now();
        f();
        s.elapsed()
    };
    let words = time(&|| {
        let _ = data::words();
    });
    let lexicon = time(&|| {
        let _ = lexicon::lexicon();
    });
    let commands = time(&|| {
        let _ = data::commands();
    });
    let providers = time(&|| {
        let _ = data::providers();
    });
    let keywords = time(&|| {
        let _ = table::windows(b"nothing here");
    });
    println!(
        "first use: words.txt {words:?}, prose.txt {lexicon:?}, commands.txt {commands:?}, providers.txt {providers:?}, the keyword filter {keywords:?}"
    );
    let s = Instant::now();
    let _ = scan(CLEAN);
    let first = s.elapsed();
    let s = Instant::now();
    let _ = scan(KEYWORDS);
    let first_keywords = s.elapsed();
    println!("then the first scan of a clean line: {first:?}");
    println!("first scan of a line that wakes provider rules (compiles their regexes): {first_keywords:?}");
    let providers = median(51, || {
        let _ = data::parse_providers(include_str!("data/providers.txt"));
    });
    let words = median(51, || {
        let _ = data::parse_words(include_str!("data/words.txt"));
    });
    let prose = median(51, || {
        let _ = lexicon::parse_lexicon(include_str!("data/prose.txt"));
    });
    let commands = median(51, || {
        let _ = data::parse_commands(include_str!("data/commands.txt"));
    });
    println!("parse providers.txt: {providers:?}, words.txt: {words:?}, prose.txt: {prose:?}, commands.txt: {commands:?}");
    println!(
        "scan of a clean line, warm: {:?}; of a line with keywords: {:?}",
        median(1001, || {
            let _ = scan(CLEAN);
        }),
        median(1001, || {
            let _ = scan(KEYWORDS);
        })
    );
    let text = CLEAN.repeat(8_000);
    println!(
        "scan of 1 MB of clean prose: {:?}",
        median(5, || {
            let _ = scan(&text);
        })
    );
    let b = text.as_bytes();
    let pass = |f: &dyn Fn(&mut Vec<Cand>)| {
        median(5, || {
            let mut c = Vec::new();
            f(&mut c);
        })
    };
    println!(
        "  of which: tokens {:?}, words (assignments, commands, auth) {:?}, prose {:?}, providers {:?}, URLs {:?}, entropy {:?}",
        pass(&|c| scan_tokens(b, c)),
        pass(&|c| scan_words(b, c)),
        pass(&|c| prose::scan_prose(&text, c)),
        pass(&|c| table::scan_providers(b, c)),
        pass(&|c| scan_url_credentials(&text, c)),
        pass(&|c| scan_high_entropy(b, &[], c)),
    );
}
