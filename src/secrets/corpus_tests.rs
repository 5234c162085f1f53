//! The corpora under `tests/corpus/secrets/`: realistic secrets that must all be found under
//! the rule each line names, and clean lines that must never be flagged. The figures (tried,
//! caught, false alarms, per file) are printed (`cargo test corpus_figures -- --nocapture`) and
//! recorded in docs/security.md.

use super::tests::{mixed, noise, ALNUM_CHARS, BASE64, HEX_CHARS, UPPER_DIGITS, URLSAFE};
use super::*;

const POSITIVES: &str = include_str!("../../tests/corpus/secrets/positives.txt");
const NEGATIVES: &str = include_str!("../../tests/corpus/secrets/negatives.txt");
const CLEAN: &str = include_str!("../../tests/corpus/secrets/clean.txt");
const SHAPES_TUNING: &str = include_str!("../../tests/corpus/secrets/shapes-tuning.txt");
const SHAPES_TEST: &str = include_str!("../../tests/corpus/secrets/shapes-test.txt");

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
        let spec = &rest[open + 1..close];
        if spec.contains('{') {
            // A brace of the text (JSON); a template may follow inside.
            out.push_str(&rest[..=open]);
            rest = &rest[open + 1..];
            continue;
        }
        out.push_str(&rest[..open]);
        let (kind, n) = spec.split_once(':').unwrap_or((spec, "0"));
        let n: usize = n.parse().unwrap_or(0);
        let known = [
            "hex", "alnum", "upper", "lower", "letters", "digits", "url", "b64", "bech32", "b32",
            "basic", "uuid",
        ];
        if !known.contains(&kind) || (kind != "uuid" && kind != "basic" && n == 0) {
            // Not a template: braces in the text itself.
            out.push_str(&rest[open..=close]);
            rest = &rest[close + 1..];
            continue;
        }
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
            "b32" => noise(s, n, "abcdefghijklmnopqrstuvwxyz234567"),
            // The base64 of `<user>:<password>`, as HTTP Basic and registry auths carry it.
            "basic" => base64(
                format!(
                    "{}:{}",
                    spec.split_once(':').map_or("", |x| x.1),
                    mixed(s, 14, ALNUM_CHARS)
                )
                .as_bytes(),
            ),
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

/// Standard base64 with padding, for the `{basic:USER}` template.
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
        for k in 0..4 {
            if k <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * k) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// The entries of a corpus whose entries are separated by lines holding only `%%`; the first
/// (the file's header) is left out.
fn entries(file: &str) -> impl Iterator<Item = (usize, &str)> + '_ {
    let mut line = 1;
    file.split("\n%%\n").enumerate().filter_map(move |(k, e)| {
        let at = line;
        line += e.lines().count() + 1;
        (k > 0 && !e.trim().is_empty()).then_some((at, e.trim_end_matches('\n')))
    })
}

/// Issue 29: prose, configs, code and command lines about credentials that hold none. Every
/// one must scan clean: a false refusal blocks a writer for nothing.
#[test]
fn clean_corpus_is_never_refused() {
    let mut tried = 0;
    let mut refused = Vec::new();
    for (line, text) in entries(CLEAN) {
        tried += 1;
        let found = scan(text);
        if !found.is_empty() {
            let what: Vec<_> = found
                .iter()
                .map(|f| (f.rule, &text[f.start..f.end]))
                .collect();
            refused.push(format!("clean.txt:{line}: {what:?} in {text:?}"));
        }
    }
    println!(
        "tests/corpus/secrets/clean.txt: {tried} texts, {} refused",
        refused.len()
    );
    assert!(tried >= 500, "{tried}");
    assert!(refused.is_empty(), "false refusals: {refused:#?}");
}

/// Scans one shape corpus: (entries per family, misses).
fn shapes(
    name: &str,
    file: &str,
) -> (
    std::collections::BTreeMap<String, (usize, usize)>,
    Vec<String>,
) {
    let mut families = std::collections::BTreeMap::<String, (usize, usize)>::new();
    let mut missed = Vec::new();
    for (line, entry) in entries(file) {
        let (tag, text) = entry.split_once('\n').unwrap_or((entry, ""));
        let family = tag
            .strip_prefix('@')
            .unwrap_or_else(|| panic!("{name}:{line}: an entry starts with @<family>"));
        let text = expand(text, line as u64);
        let found = scan(&text);
        let f = families.entry(family.to_owned()).or_default();
        f.0 += 1;
        if found.is_empty() {
            missed.push(format!("{name}:{line}: {family}: {text}"));
        } else {
            f.1 += 1;
            let red = redact(&text);
            assert!(scan(&red).is_empty(), "{name}:{line}: rescan of {red}");
        }
    }
    (families, missed)
}

/// Issue 29: the nine shapes that passed every write path, and their families, are all
/// refused — the tuning half and the half written apart from the rules.
#[test]
fn shape_corpora_are_all_refused() {
    for (name, file) in [
        ("shapes-tuning.txt", SHAPES_TUNING),
        ("shapes-test.txt", SHAPES_TEST),
    ] {
        let (families, missed) = shapes(name, file);
        let tried: usize = families.values().map(|f| f.0).sum();
        println!(
            "tests/corpus/secrets/{name}: {tried} secrets in {} families, {} refused",
            families.len(),
            tried - missed.len()
        );
        for (family, (n, caught)) in &families {
            println!("  {family}: {caught}/{n}");
        }
        assert!(tried >= 100, "{name}: {tried}");
        for family in [
            "basic-auth",
            "registry-auth",
            "sshpass",
            "mysql",
            "cli-password-flags",
            "login-prose",
            "passphrase-prose",
            "payment-tokens",
            "credential-prose-en",
            "credential-prose-de",
            "credential-prose-es",
            "credential-prose-fr",
            "credential-prose-pt",
            "credential-prose-it",
            "credential-prose-nl",
            "credential-prose-pl",
            "credential-prose-ru",
            "credential-prose-zh",
            "credential-prose-ja",
            "credential-prose-ko",
            "credential-prose-tr",
        ] {
            assert!(families.contains_key(family), "{name} has no {family}");
        }
        assert!(missed.is_empty(), "{name}: not refused: {missed:#?}");
    }
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
