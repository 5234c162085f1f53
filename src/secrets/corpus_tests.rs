//! The corpora under `tests/corpus/secrets/`: realistic secrets that must all be found under
//! the rule each line names, and clean lines that must never be flagged. The figures (tried,
//! caught, false alarms, per file) are printed (`cargo test corpus_figures -- --nocapture`) and
//! recorded in docs/security.md.

use super::tests::{mixed, noise, ALNUM_CHARS, BASE64, HEX_CHARS, UPPER_DIGITS, URLSAFE};
use super::*;

const POSITIVES: &str = include_str!("../../tests/corpus/secrets/positives.txt");
const NEGATIVES: &str = include_str!("../../tests/corpus/secrets/negatives.txt");

/// The corpus lines, without comments and blank lines, with `\n` turned into line breaks.
fn lines(file: &str) -> impl Iterator<Item = (usize, String)> + '_ {
    file.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|(n, l)| (n + 1, l.replace("\\n", "\n")))
}

/// Fills the templates of a positive line (see the file's header) with deterministic noise.
fn expand(line: &str, seed: u64) -> String {
    let mut out = String::new();
    let mut rest = line;
    let mut k = 0;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}').map(|c| open + c) else {
            break;
        };
        out.push_str(&rest[..open]);
        let spec = &rest[open + 1..close];
        let (kind, n) = spec.split_once(':').unwrap_or((spec, "0"));
        let n: usize = n.parse().unwrap_or(0);
        k += 1;
        let s = seed * 100 + k;
        let value = match kind {
            "hex" => noise(s, n, HEX_CHARS),
            "alnum" => mixed(s, n, ALNUM_CHARS),
            "upper" => format!("Q7{}", noise(s, n - 2, UPPER_DIGITS)),
            "lower" => format!(
                "q7{}",
                noise(s, n - 2, "abcdefghijklmnopqrstuvwxyz0123456789")
            ),
            "letters" => format!(
                "Qq{}",
                noise(
                    s,
                    n - 2,
                    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                )
            ),
            "digits" => format!("1{}", noise(s, n - 1, "0123456789")),
            "url" => mixed(s, n, URLSAFE),
            "b64" => mixed(s, n, BASE64),
            "bech32" => noise(s, n, "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"),
            "uuid" => {
                let h = noise(s, 32, HEX_CHARS);
                format!(
                    "{}-{}-{}-{}-{}",
                    &h[..8],
                    &h[8..12],
                    &h[12..16],
                    &h[16..20],
                    &h[20..]
                )
            }
            _ => {
                // Not a template: braces in the text itself.
                out.push_str(&rest[open..=close]);
                rest = &rest[close + 1..];
                continue;
            }
        };
        out.push_str(&value);
        rest = &rest[close + 1..];
    }
    out.push_str(rest);
    out
}

struct Figures {
    tried: usize,
    caught: usize,
    other_rule: Vec<String>,
    missed: Vec<String>,
    false_alarms: Vec<String>,
}

fn positives() -> Figures {
    let mut f = Figures {
        tried: 0,
        caught: 0,
        other_rule: Vec::new(),
        missed: Vec::new(),
        false_alarms: Vec::new(),
    };
    for (n, line) in lines(POSITIVES) {
        let (rule, text) = line
            .split_once('\t')
            .unwrap_or_else(|| panic!("positives.txt:{n}: no tab after the rule id"));
        assert!(
            tests::all_rules().contains(&rule),
            "positives.txt:{n}: unknown rule {rule}"
        );
        let text = expand(text, n as u64);
        f.tried += 1;
        let found = scan(&text);
        if found.iter().any(|x| x.rule == rule) {
            f.caught += 1;
        } else if found.is_empty() {
            f.missed.push(format!("positives.txt:{n}: {rule}: {text}"));
        } else {
            let rules: Vec<_> = found.iter().map(|x| x.rule).collect();
            f.other_rule.push(format!(
                "positives.txt:{n}: {rule} found as {rules:?}: {text}"
            ));
        }
        let red = redact(&text);
        assert!(red.contains(REDACTED), "positives.txt:{n}: {red}");
        assert!(scan(&red).is_empty(), "positives.txt:{n}: rescan of {red}");
    }
    f
}

fn negatives() -> Figures {
    let mut f = Figures {
        tried: 0,
        caught: 0,
        other_rule: Vec::new(),
        missed: Vec::new(),
        false_alarms: Vec::new(),
    };
    for (n, line) in lines(NEGATIVES) {
        f.tried += 1;
        let found = scan(&line);
        if !found.is_empty() {
            let what: Vec<_> = found
                .iter()
                .map(|x| (x.rule, &line[x.start..x.end]))
                .collect();
            f.false_alarms
                .push(format!("negatives.txt:{n}: {what:?} in {line}"));
        }
    }
    f
}

#[test]
fn corpus_figures() {
    let p = positives();
    let n = negatives();
    println!(
        "tests/corpus/secrets/positives.txt: tried {}, caught {} ({} under another rule), missed {}",
        p.tried,
        p.caught + p.other_rule.len(),
        p.other_rule.len(),
        p.missed.len()
    );
    println!(
        "tests/corpus/secrets/negatives.txt: tried {}, false alarms {}",
        n.tried,
        n.false_alarms.len()
    );
    assert!(p.tried >= 60 && n.tried >= 100);
    assert!(p.missed.is_empty(), "missed: {:#?}", p.missed);
    assert!(p.other_rule.is_empty(), "wrong rule: {:#?}", p.other_rule);
    assert!(
        n.false_alarms.is_empty(),
        "false alarms: {:#?}",
        n.false_alarms
    );
    assert_eq!(p.caught, p.tried);
}

#[test]
fn templates_expand_to_the_asked_shape() {
    let t = expand("a {hex:4} b {alnum:6} {uuid} {x} end", 1);
    let words: Vec<&str> = t.split(' ').collect();
    assert_eq!(words[0], "a");
    assert_eq!(words[1].len(), 4);
    assert!(words[1].bytes().all(|b| b.is_ascii_hexdigit()));
    assert_eq!(words[3].len(), 6);
    assert_eq!(words[4].len(), 36);
    assert_eq!(words[5], "{x}");
    assert_eq!(expand("no templates", 2), "no templates");
}

/// Scratch: prints what the scanner finds in each line of $PROBE.
#[test]
#[ignore]
fn probe() {
    let Ok(path) = std::env::var("PROBE") else { return };
    let text = std::fs::read_to_string(path).unwrap();
    for line in text.lines() {
        let line = line.replace("\\n", "\n");
        let f = scan(&line);
        let what: Vec<_> = f.iter().map(|x| format!("{}[{}]", x.rule, &line[x.start..x.end])).collect();
        println!("{} | {}", if f.is_empty() { "MISS" } else { "HIT " }, if f.is_empty() { line.clone() } else { format!("{line}  => {what:?}") });
    }
}

#[test]
#[ignore]
fn probe_timing() {
    use super::tests::cat;
    let inputs = [
        "AKIA".repeat(250_000),
        "password=".repeat(111_000),
        "password: x ".repeat(80_000),
        "token=\"".repeat(140_000),
        "Bearer ".repeat(150_000),
        noise(75, 1_000_000, BASE64),
        "é€😀".repeat(110_000),
        "the quick brown fox jumps over the lazy dog ".repeat(25_000),
        cat(&["-----BEGIN ", "RSA PRIVATE", " KEY-----\n"]).repeat(32_000),
    ];
    for (k, text) in inputs.iter().enumerate() {
        let t = std::time::Instant::now();
        let _ = scan(text);
        let total = t.elapsed();
        let t = std::time::Instant::now();
        let mut c = Vec::new();
        prose::scan_prose(text, &mut c);
        let p = t.elapsed();
        let t = std::time::Instant::now();
        let mut c = Vec::new();
        scan_words(text.as_bytes(), &mut c);
        let w = t.elapsed();
        println!("{k}: total {total:?} prose {p:?} words {w:?}");
    }
}

#[test]
#[ignore]
fn probe_timing2() {
    let text = "AKIA".repeat(250_000);
    let lex = data::lexicon();
    let b = text.as_bytes();
    let t = std::time::Instant::now();
    let mut n = 0;
    for i in 0..b.len() {
        let ascii_miss = b[i].is_ascii() && !lex.may_start(b[i], b.get(i + 1).copied().unwrap_or(0));
        if !lex.first_bytes[b[i] as usize] || ascii_miss {
            n += 1;
        }
    }
    println!("filter {n} in {:?}", t.elapsed());
    let t = std::time::Instant::now();
    let mut c = Vec::new();
    prose::scan_prose(&text, &mut c);
    println!("prose {:?} {}", t.elapsed(), c.len());
    let t = std::time::Instant::now();
    let mut c = Vec::new();
    prose::scan_prose(&text, &mut c);
    println!("prose again {:?} {}", t.elapsed(), c.len());
}
