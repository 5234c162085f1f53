//! The injection corpora under tests/corpus/injections: every payload TAINTED, no clean
//! sentence TAINTED. The figures printed here are the ones docs/security.md records.

use std::collections::BTreeMap;

use super::gate::scan_record;
use super::*;
use crate::model::kinds::Decision;
use crate::model::{Body, Meta, Record};

const PAYLOADS: &str = include_str!("../../tests/corpus/injections/payloads.txt");
const CLEAN: &str = include_str!("../../tests/corpus/injections/clean.txt");

/// The corpus escapes: `\n`, `\t`, `\\`, `\u{XXXX}`, and `\f` between the fields of a record;
/// any other backslash is kept.
fn unescape(line: &str) -> String {
    let mut out = String::new();
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('f') => out.push('\u{C}'),
            Some('\\') => out.push('\\'),
            Some('u') => {
                let hex: String = chars.by_ref().skip(1).take_while(|&c| c != '}').collect();
                out.push(char::from_u32(u32::from_str_radix(&hex, 16).unwrap()).unwrap());
            }
            // Any other backslash is kept as written (`\"` in JSON).
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            None => out.push('\\'),
        }
    }
    out
}

fn lines(corpus: &str) -> impl Iterator<Item = &str> {
    corpus
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
}

/// The verdict of a corpus entry: one text, or the fields of a decision record (split at
/// `\f`) through the record gate's scan.
fn judge(text: &str) -> (Verdict, Vec<&'static str>) {
    let issues: Vec<Issue> = if text.contains('\u{C}') {
        let mut fields = text.split('\u{C}').map(str::to_owned);
        let mut next = || fields.next().unwrap_or_default();
        let body = Body::Decision(Decision {
            title: next(),
            context: next(),
            decision: next(),
            rationale: next(),
            impact: next(),
            files: Vec::new(),
            file_blobs: Default::default(),
            extra: Vec::new(),
        });
        let meta = Meta {
            ts: "2026-04-04T14:30:00Z".into(),
            clock: 1,
            author: "Corpus <corpus@example.com>".into(),
            supersedes: Vec::new(),
        };
        let r = Record::new(meta, body);
        scan_record(&r).into_iter().map(|(_, i)| i).collect()
    } else {
        scan_text(text)
    };
    let mut rules: Vec<_> = issues.iter().map(|i| i.rule).collect();
    rules.dedup();
    (verdict(&issues), rules)
}

#[test]
fn injection_corpus_is_withheld_and_clean_prose_is_not() {
    let mut by_class: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    let mut missed = Vec::new();
    let mut tried = 0;
    for line in lines(PAYLOADS) {
        let (class, payload) = line.split_once('\t').expect("class<TAB>payload");
        let text = unescape(payload);
        let (v, rules) = judge(&text);
        tried += 1;
        let entry = by_class.entry(class).or_default();
        entry.0 += 1;
        if v == Verdict::Tainted {
            entry.1 += 1;
        } else {
            missed.push((class, text, v, rules));
        }
    }
    let (mut clean, mut false_tainted, mut false_suspicious) = (0, Vec::new(), Vec::new());
    for line in lines(CLEAN) {
        let text = unescape(line);
        clean += 1;
        match judge(&text) {
            (Verdict::Tainted, rules) => false_tainted.push((text, rules)),
            (Verdict::Suspicious, rules) => false_suspicious.push((text, rules)),
            _ => {}
        }
    }
    let caught = tried - missed.len();
    println!(
        "injection corpus: {tried} payloads tried, {caught} caught (TAINTED), {} missed; \
         {clean} clean sentences, {} false TAINTED, {} false SUSPICIOUS",
        missed.len(),
        false_tainted.len(),
        false_suspicious.len()
    );
    for (class, (n, c)) in &by_class {
        println!("  {class}: {c}/{n}");
    }
    for (text, rules) in &false_suspicious {
        println!("  SUSPICIOUS on clean text {text:?}: {rules:?}");
    }
    assert!(
        tried >= 80 && clean >= 100,
        "corpora too small: {tried}, {clean}"
    );
    assert!(missed.is_empty(), "payloads not TAINTED: {missed:#?}");
    assert!(
        false_tainted.is_empty(),
        "clean sentences TAINTED: {false_tainted:#?}"
    );
}
