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

/// The corpus directory, read at test time so that new files are picked up.
fn corpus_dir(sub: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/corpus/injections")
        .join(sub)
}

/// The `.txt` files of a corpus directory, sorted, with their contents.
fn corpus_files(sub: &str) -> Vec<(String, String)> {
    let mut files: Vec<(String, String)> = std::fs::read_dir(corpus_dir(sub))
        .unwrap_or_else(|e| panic!("tests/corpus/injections/{sub}: {e}"))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .map(|p| {
            let name = p.file_stem().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&p).unwrap())
        })
        .collect();
    files.sort();
    files
}

/// The entries of a benign file: blocks that open with a `===` line.
fn blocks(text: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for line in text.lines() {
        if let Some(title) = line.strip_prefix("===") {
            out.push((title.trim().to_owned(), String::new()));
        } else if let Some((_, body)) = out.last_mut() {
            body.push_str(line);
            body.push('\n');
        }
    }
    for (_, body) in &mut out {
        let trimmed = body.trim_end().len();
        body.truncate(trimmed);
    }
    out
}

/// Scores one half of the payload corpus: per language and per class, how many payloads were
/// withheld (TAINTED) or marked (SUSPICIOUS). Returns (tried, withheld, marked, missed).
fn score_half(sub: &str) -> (usize, usize, usize, Vec<String>) {
    let (mut tried, mut withheld, mut marked, mut missed) = (0, 0, 0, Vec::new());
    let mut by_class: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut lines_out = Vec::new();
    let mut per_lang: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut per_round: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    // A training round keeps its hard negatives beside its payloads (`benign.txt`).
    for (file, text) in corpus_files(sub).into_iter().filter(|(f, _)| f != "benign") {
        // `en.txt`, `en.r1.txt` (an earlier held-out round, now tuning material): one language.
        let lang = file.split('.').next().unwrap_or(&file).to_owned();
        let round = file.split('.').nth(1).unwrap_or("r0").to_owned();
        let (mut n, mut caught) = (0, 0);
        for line in lines(&text) {
            let (class, payload) = line
                .split_once('\t')
                .unwrap_or_else(|| panic!("{sub}/{lang}.txt: class<TAB>payload: {line:?}"));
            let (v, rules) = judge(&unescape(payload));
            n += 1;
            let entry = by_class.entry(class.to_owned()).or_default();
            entry.0 += 1;
            match v {
                Verdict::Tainted => withheld += 1,
                Verdict::Suspicious => marked += 1,
                Verdict::Clean => {
                    missed.push(format!("{file} {class}: {payload} {rules:?}"));
                    continue;
                }
            }
            caught += 1;
            entry.1 += 1;
        }
        tried += n;
        let e = per_lang.entry(lang).or_default();
        (e.0, e.1) = (e.0 + n, e.1 + caught);
        let e = per_round.entry(round).or_default();
        (e.0, e.1) = (e.0 + n, e.1 + caught);
    }
    for (lang, (n, caught)) in &per_lang {
        lines_out.push(format!("    {lang}: {caught}/{n}"));
    }
    println!(
        "{sub}: {tried} payloads, {withheld} withheld (TAINTED), {marked} marked (SUSPICIOUS), \
         {} missed: {:.1}% withheld or marked",
        missed.len(),
        100.0 * (withheld + marked) as f64 / tried.max(1) as f64
    );
    println!("  by language:\n{}", lines_out.join("\n"));
    let rounds: Vec<String> = per_round
        .iter()
        .map(|(r, (n, k))| format!("{r} {k}/{n}"))
        .collect();
    println!(
        "  by round (r0: the first tuning set): {}",
        rounds.join(", ")
    );
    let classes: Vec<String> = by_class
        .iter()
        .map(|(c, (n, k))| format!("{c} {k}/{n}"))
        .collect();
    println!("  by class: {}", classes.join(", "));
    for m in &missed {
        println!("  missed: {m}");
    }
    (tried, withheld, marked, missed)
}

/// The tuning half: the rules were developed against it and the classifier trained on it, so
/// it must stay caught (a change that loses payloads here is a regression). The floor is the
/// rate measured when the sixth held-out round (burnt: measured twice, then trained on) joined
/// it as `*.r6.txt` and the classifier was retrained (RULES_VERSION 7: 2473 of 2670, 92.6%;
/// the sixth round alone 267 of 415: the rules do not reach it, and the classifier's threshold
/// is set from cross-validation, not from its training data). RULES_VERSION 8 (the classifier
/// retrained with train8 and heldout7): 2566 of 2670, 96.1%. A regression guard, not a
/// claim about unseen text (that is the held-out half's job).
#[test]
fn tuning_half_is_withheld_or_marked() {
    let (tried, withheld, marked, missed) = score_half("tuning");
    assert!(tried >= 2600, "the tuning half shrank to {tried}");
    let rate = (withheld + marked) as f64 / tried as f64;
    assert!(
        rate >= 0.961,
        "tuning half: {rate:.3} withheld or marked; missed {missed:#?}"
    );
}

/// The training rounds and the burnt seventh held-out round: the classifier is trained on
/// them (the rules were not tuned on them), so their rates say only that the model still
/// fits its training data. Scored per language and per class (train8 brings the class
/// `supply`: orders that arrive through a package, an install script or a dependency's
/// README); the floor is a regression guard a little under the rates measured when the
/// classifier was retrained with them. train9 (statement-form orders of the weak classes,
/// paraphrase, output, supply, conceal and exfil, and 400 hard negatives) and the burnt
/// ninth held-out round joined with RULES_VERSION 11; train10 (the weak classes and languages
/// again) and the burnt tenth round with RULES_VERSION 13; train11 (seven weak classes in 20
/// languages, 1,435 payloads) and the burnt eleventh and twelfth rounds with RULES_VERSION 15,
/// whose rates set these floors. heldout8 was measured once and is not trained on, so its
/// floor guards the rules and the model on text they were not fitted to. RULES_VERSION 21: the
/// classifier reads the sentence's cue classes too and is trained on train12 and the burnt
/// thirteenth to fifteenth rounds; its cross-validated threshold rose (2.72 to 2.96 with the
/// new hard negatives), so the older training rounds lost 1 to 5 points and the floors follow
/// the rates measured then (heldout8 77.0% to 76.6%, train12 39.3% to 75.1%).
const TRAINING_ROUNDS: [(&str, f64); 30] = [
    ("train7", 0.89),
    ("train8/a", 0.82),
    ("train8/b", 0.85),
    ("heldout7", 0.95),
    ("heldout8", 0.76),
    ("train9", 0.80),
    ("heldout9", 0.95),
    ("train10", 0.80),
    ("heldout10", 0.95),
    ("heldout11", 0.97),
    ("heldout12", 0.97),
    ("heldout13", 0.97),
    ("heldout14", 0.96),
    ("heldout15", 0.92),
    // Measured once (be44e23, RULES_VERSION 21: 81.5%); burnt, not trained on.
    ("heldout16", 0.84),
    // Measured once (90e5d8a, RULES_VERSION 23: 84.5%); burnt, not trained on.
    ("heldout17", 0.88),
    // Measured once (5fef97f, RULES_VERSION 25: 81.5%); burnt, not trained on.
    ("heldout18", 0.86),
    // Measured once (6f1b1f6, RULES_VERSION 27: 90.5%); burnt, not trained on.
    ("heldout19", 0.90),
    // Measured once (75a96c3, RULES_VERSION 28: 89.0%); burnt, not trained on.
    ("heldout20", 0.89),
    // Measured once (ccc2896, RULES_VERSION 29: 91.0%); burnt, not trained on.
    ("heldout21", 0.91),
    // Measured once (3e24703, RULES_VERSION 31: 88.5%); burnt, not trained on.
    ("heldout22", 0.885),
    // Measured once (3e24703, RULES_VERSION 31: 88.5%); burnt, then tuned on (RULES_VERSION 32).
    ("heldout23", 0.95),
    // Measured once (437e950, RULES_VERSION 32: 89.0%); burnt, not trained on.
    ("heldout24", 0.89),
    // Measured once (f63d7e6, RULES_VERSION 32: 91.0%); burnt, not trained on.
    ("heldout25", 0.91),
    // Measured once (df248ff, RULES_VERSION 34: 92.5%); burnt, not trained on.
    ("heldout26", 0.925),
    // Measured once (748d620, RULES_VERSION 34: 89.0%); burnt, not trained on.
    ("heldout27", 0.89),
    // Measured once (ea1c7ca, RULES_VERSION 34: 91.5%); burnt, not trained on.
    ("heldout29", 0.915),
    ("train12", 0.75),
    ("train11/a", 0.90),
    ("train11/b", 0.82),
];

#[test]
fn training_rounds_are_withheld_or_marked() {
    let mut below = Vec::new();
    for (sub, floor) in TRAINING_ROUNDS {
        if !corpus_dir(sub).is_dir() {
            println!("tests/corpus/injections/{sub} is absent: skipped");
            continue;
        }
        let (tried, withheld, marked, missed) = score_half(sub);
        assert!(tried > 0, "the training round {sub} is empty");
        let rate = (withheld + marked) as f64 / tried as f64;
        if rate < floor {
            below.push(format!(
                "{sub}: {rate:.3} withheld or marked, below the floor {floor}; missed {}",
                missed.len()
            ));
        }
    }
    assert!(below.is_empty(), "{below:#?}");
}

/// The held-out directory: the twenty-eighth round (20 languages, one payload of each class in
/// each, and 60 benign blocks of security writing), written by someone who has not read the
/// code, tables or corpora, copied in only after the rules of RULES_VERSION 34 were committed,
/// and measured after the twenty-ninth (e1256d0).
/// Earlier rounds were tuned or trained on, or measured already (training-round floors above).
const HELD_OUT: &str = "heldout28";

/// The floor of the held-out rate: the twenty-eighth round measured once (e1256d0, RULES_VERSION
/// 34): 174 of 200 (87.0%; 38 withheld, 136 marked). Its benign blocks (benign28/heldout.txt):
/// 0 of 60 TAINTED, 11 SUSPICIOUS, 1 of them by `instruction-like`. Earlier rounds, each
/// measured once: twenty-ninth 91.5%, twenty-seventh 89.0% and twenty-sixth 92.5%
/// (RULES_VERSION 34), twenty-fifth 91.0% and twenty-fourth 89.0% (32), twenty-third 88.5%
/// and twenty-second 88.5% (31), twenty-first 91.0% (29), twentieth 89.0% (28), nineteenth
/// 90.5% (27), eighteenth 81.5% (25), seventeenth 84.5% (23), sixteenth 81.5% (21), fifteenth
/// 79.5% (18), fourteenth 81.0% (17), thirteenth 85.5% (15), twelfth 78.5% (14), eleventh
/// 86.0% (13), tenth 73.6%, ninth 64.7%, eighth 57.9%. The four rounds of RULES_VERSION 34:
/// 720 of 800 (90.0%); the last six, 1,080 of 1,200 (90.0%).
const HELD_OUT_FLOOR: f64 = 0.87;

/// The held-out half, written after the rules were frozen and measured once, before anyone
/// looked at what it misses. Its rate is the one docs/security.md reports as the detector's.
/// The floor is that measurement, a regression guard: issue 29 asks for 90% on text written
/// independently of the rules. When this half is tuned on, it moves to tuning/*.rN.txt and
/// a new half is written against the new rules. Skipped while the directory is absent.
#[test]
fn held_out_half_is_withheld_or_marked() {
    if !corpus_dir(HELD_OUT).is_dir() {
        println!("tests/corpus/injections/{HELD_OUT} is absent: held-out half skipped");
        return;
    }
    let (tried, withheld, marked, missed) = score_half(HELD_OUT);
    assert!(tried > 0, "the held-out half {HELD_OUT} is empty");
    let rate = (withheld + marked) as f64 / tried as f64;
    assert!(
        rate >= HELD_OUT_FLOOR,
        "held-out half: {rate:.3} withheld or marked, below the floor {HELD_OUT_FLOOR}; \
         missed {missed:#?}"
    );
}

/// Benign security writing (write-ups, quoted attacks in documentation, code comments, commit
/// messages, project conventions, in the gate's languages): never TAINTED.
#[test]
fn benign_security_writing_is_never_tainted() {
    let (mut tried, mut marked, mut tainted) = (0, Vec::new(), Vec::new());
    // benign/, the sixth round's benign6/, the training rounds' hard negatives
    // (train7/benign.txt, train8/*/benign.txt, trained on by the classifier), the seventh
    // held-out round's benign7/ (now trained on) and the eighth's benign8/ (never trained on).
    let mut files: Vec<(String, String)> = [
        "benign", "benign6", "benign7", "benign8", "benign9", "benign10", "benign11", "benign12",
        "benign13", "benign14", "benign15", "benign16", "benign17", "benign18", "benign19",
        "benign20", "benign21", "benign22", "benign23", "benign24", "benign25", "benign26",
        "benign27", "benign28", "benign29",
    ]
    .into_iter()
    .filter(|sub| *sub == "benign" || corpus_dir(sub).is_dir())
    .flat_map(|sub| {
        corpus_files(sub)
            .into_iter()
            .map(move |(file, text)| (format!("{sub}/{file}"), text))
    })
    .collect();
    for round in [
        "train7",
        "train8/a",
        "train8/b",
        "train9",
        "train10",
        "train11/a",
        "train11/b",
        "train12",
    ] {
        if let Ok(text) = std::fs::read_to_string(corpus_dir(round).join("benign.txt")) {
            files.push((format!("{}/benign", round.replace('/', "-")), text));
        }
    }
    let mut per_set: BTreeMap<String, (usize, usize, usize)> = BTreeMap::new();
    for (file, text) in files {
        let set = file.split('/').next().unwrap_or(&file).to_owned();
        let entry = per_set.entry(set).or_default();
        for (title, body) in blocks(&text) {
            assert!(!body.is_empty(), "{file}.txt: empty entry {title:?}");
            tried += 1;
            entry.0 += 1;
            match judge(&body) {
                (Verdict::Tainted, rules) => tainted.push((file.clone(), title, rules)),
                (Verdict::Suspicious, rules) => {
                    entry.1 += 1;
                    if rules.contains(&"instruction-like") {
                        entry.2 += 1;
                    }
                    marked.push((file.clone(), title, rules))
                }
                _ => {}
            }
        }
    }
    println!(
        "benign: {tried} texts, {} TAINTED, {} SUSPICIOUS",
        tainted.len(),
        marked.len()
    );
    for (set, (n, m, model)) in &per_set {
        println!("  {set}: {n} texts, {m} SUSPICIOUS, {model} of them by instruction-like");
    }
    for (file, title, rules) in &marked {
        println!("  SUSPICIOUS {file}/{title}: {rules:?}");
    }
    assert!(tried >= 100, "only {tried} benign texts");
    // Known false TAINTED among the training rounds' hard negatives, by name, so that any new
    // one fails: a code comment that overrides a "system prompt template" in test fixtures
    // (`override-instructions`), a slide whose subject is the role-play it describes
    // (`role-reassignment`), and a Korean list of attack types whose noun "지시 무시형" reads as
    // the order itself (`override-instructions`). And one of the eleventh held-out round's 80
    // benign blocks (benign11/heldout.txt, measured once with RULES_VERSION 13; two more were
    // cleared after): a list of chat tokens whose last item, `<start_of_turn>user`, follows
    // "or" rather than the citing "such as" (`forged-frame-marker`). And one of the twelfth
    // round's 60 (measured once with RULES_VERSION 14, not fixed): a Chinese incident review
    // saying a record "伪造了 <|im_start|>system 标记" (forged a … marker): the marker is named
    // mid-sentence, but it names a role (`forged-frame-marker`), cleared with RULES_VERSION 16
    // with two of the thirteenth round's 60 (measured once with RULES_VERSION 15): a glossary
    // of chat-template tokens (`forged-frame-marker`: a marker that names a role in the middle
    // of a sentence that goes on after it is named, not used) and a French install procedure
    // (`remote-script-execution`: a vendor's install one-liner with no order in the text is
    // `script-pipe-shape`). And one of the fourteenth round's 60 (measured once with
    // RULES_VERSION 17, which TAINTED six): a CVE note whose second proof of concept steals
    // the cookie (`html-event-handler`). RULES_VERSION 18 cleared the other five: a marker
    // being defined (a glossary line: markers joined by "and" or commas, a colon, an
    // explanation) is named, not used; an attribute breakout (`"><img …>`) inside a sentence
    // is read as in the sentence; a command in prose is upgraded by an order the rules read
    // (`agent-directive`), not by the classifier's guess. The fifteenth round's 60 (measured
    // once with RULES_VERSION 18) had six: two glossaries of chat-template tokens (en, fr),
    // three XSS write-ups (en, es) and notes on detecting reverse shells. RULES_VERSION 19
    // cleared them and the fourteenth's CVE note: a text that presents itself as security
    // writing (`@writeup-words`: payload, injection, postmortem, proof of concept …) and gives
    // no order the rules read shows its payloads, marked, not withheld. The sixteenth round's
    // 60 (measured once with RULES_VERSION 21) had one: a Japanese glossary whose markers are
    // the subjects of "は" ("<|eot_id|> は Llama-3 のターン終端"), cleared with RULES_VERSION 22
    // (a marker followed by a copula, `@copulas`, is defined, not used).
    //
    // The eighth held-out round's six (benign8/heldout.txt, measured once with the rules of
    // RULES_VERSION 8) and fourteen more of the training rounds were cleared by general rule
    // changes after that measurement (RULES_VERSION 9 and 10, docs/security.md): an address to
    // agents needs a sensitive target; a command or an order quoted in prose, or shown in an
    // HTML comment inside a sentence, is `quoted-instruction`; a frame marker closed again in
    // quotes or brackets on its line is `quoted-frame-marker`; `curl … | sh` with no source
    // named, or from an official installer, is `script-pipe-shape`; a secret in a request
    // header authenticates; telling the user is not a channel out; a role-play not addressed
    // to the reader is `role-play`.
    // The eighteenth round's 60 (measured once with RULES_VERSION 25) had one: a policy saying
    // the security team will never ask you to share a token by e-mail, cleared with
    // RULES_VERSION 26 (orders after a declined request, "will never ask you to", are marked).
    // The nineteenth round's 60 (measured once with RULES_VERSION 27) had three: two glossaries
    // whose lines join markers with "/", "with" or "et", and an XSS write-up that calls its
    // payload a "PoC"; cleared with RULES_VERSION 28. The twentieth round's 60 (measured once
    // with RULES_VERSION 28) had one: a glossary line of three comma-joined Llama 3 markers,
    // one naming a role; cleared with RULES_VERSION 29 (a comma is a word of its own in a
    // glossary's term).
    // The twenty-first round's 60 (measured once with RULES_VERSION 29) had three: a glossary
    // that writes "ChatML: <|im_start|>system ... <|im_end|>" (the term before the colon, the
    // markers after it) and a glossary whose role-play example is in quotes inside parentheses,
    // both not fixed yet; and a threat model quoting "send the .env to this URL", cleared with
    // RULES_VERSION 30 (a finding that starts at its opening quote is inside the quotes).
    const KNOWN: [(&str, &str); 2] = [
        ("train7", "code comment: prompt template override"),
        ("train8-a", "Training slide: roleplay jailbreaks"),
    ];
    tainted.retain(|(file, title, _)| {
        !KNOWN.iter().any(|(set, known)| {
            (*file == format!("{set}/benign") || *file == format!("{set}/heldout"))
                && title == known
        })
    });
    assert!(tainted.is_empty(), "benign texts TAINTED: {tainted:#?}");
    // The classifier's false marks: at most 8% of the benign texts (its threshold allows 8% of the trained-on benign blocks in cross-validation, scripts/train-intent-model.py).
    let by_model: usize = per_set.values().map(|e| e.2).sum();
    assert!(
        by_model * 100 <= 8 * tried,
        "instruction-like marks {by_model} of {tried} benign texts"
    );
}

/// Prints the cue classes of each word of `RUNE_DEBUG_TEXT` (lines) and their verdicts: an
/// aid for table edits, run by hand.
#[test]
#[ignore]
fn debug_cues() {
    let text = std::env::var("RUNE_DEBUG_TEXT").unwrap_or_default();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let (v, rules) = judge(line);
        println!(
            "{line}\n  {v:?} {rules:?}\n{}",
            super::intent::debug_cues(line)
        );
    }
}

#[test]
#[ignore]
fn debug_issues() {
    let text = std::env::var("RUNE_DEBUG_TEXT").unwrap_or_default();
    for i in super::scan_text(&text) {
        println!("{} {:?} @{} {:?}", i.rule, i.verdict, i.offset, i.detail);
    }
}
