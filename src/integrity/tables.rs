//! The scanner's data files (`src/integrity/data/`), compiled into the binary: word lists,
//! phrase patterns and the cue vocabulary of each language. A process parses only the sets
//! (`@`) it reads at run time ([`sets`]); the vocabulary built from the rest is compiled ahead
//! into `data/vocab.bin` ([`super::vocab`]), and built from the files only when they changed
//! since.
//!
//! Data, not code: adding a language or a word is an edit of a text file, and the Rust
//! scanners only name the lists and classes they read. The files are part of the binary
//! (`include_str!`), so a build cannot run with tables other than the ones it was tested with;
//! `tables_parse` in the unit tests proves that every file parses and that every list,
//! set and class the code names is there.
//!
//! # Syntax
//!
//! One declaration a line; `#` starts a comment line, blank lines are ignored.
//!
//! * `@name: item item …` adds items to the set `name` (declared again, in this file or
//!   another, it grows: the phrase sets are the union of their languages). Items are
//!   separated by blanks; one that holds a blank is quoted (`"iwr "`). In the phrase sets `+`
//!   joins the words of a several-word alternative (`por+favor`).
//! * `%class: item item …` adds words to a cue class ([`super::vocab::CUES`]): `+` joins
//!   several words (`no+longer`), a trailing `*` takes every word that starts so (`instrukc*`
//!   is `instrukcje`, `instrukcji`, `instrukcjami` …; on the last of several words,
//!   `환경+변수*` is `환경 변수를`), a leading `*` every word that ends so (`*passwort` is
//!   `Datenbankpasswort`: compounds). A prefix stem adds its classes to those of the word
//!   itself; a suffix stem is tried only for a word that has none.
//! * `!order: final` in a language file: its verbs come at the end of their clause (Japanese,
//!   Korean, Turkish, Hindi, Bengali, Persian), so the cue scanner looks back from a verb
//!   for what it acts on, rather than ahead.
//! * `rule: element element …` (patterns.txt): a phrase pattern.
//!
//! Table words are normalised as texts are ([`super::norm`]): accents may be written or not
//! (`précédentes` and `precedentes` are one word), and a word of a script written without
//! spaces (Chinese, Japanese) is one entry that the word reader cuts out of the text.
//!
//! # Phrase patterns
//!
//! A pattern is a sequence of elements over words joined by soft gaps (whitespace, line
//! breaks, emphasis, quotes, dashes, commas; see [`super::words::Words`]). An element is a
//! choice of words, sets (`{name}`) and several-word alternatives separated by `|`; `{any}`
//! is any word. A trailing `?` makes it optional, `*` allows up to four (`*N` up to N), a
//! leading `!` means any one word not in the choice. `$` is the end of a clause, `:` a colon
//! right after the last word. A leading `^` on the first element means the phrase opens its
//! line, `<` that it opens its clause: the imperative position, so "ignora las instrucciones
//! anteriores" (an order) matches and "el modelo ignora las instrucciones anteriores" (a
//! description) does not. A repeated element (`*`) or `{any}` stops where the next element
//! can take over; others take what they can.

use std::collections::HashMap;
use std::sync::OnceLock;

/// A fingerprint of every data file the scanner reads (XXH3 over their names and bytes):
/// what a cache of verdicts is keyed on, so a change of any table recomputes them without
/// anyone remembering to bump a number. Every reader checks it when it opens the verdicts
/// kept: byte by byte (FNV) over the 400 KB of tables it cost 3M instructions, a third of
/// a `status`.
pub fn fingerprint() -> u64 {
    static F: OnceLock<u64> = OnceLock::new();
    *F.get_or_init(|| {
        let mut h = xxhash_rust::xxh3::Xxh3::new();
        for (name, text) in FILES {
            h.update(name.as_bytes());
            h.update(&[0]);
            h.update(text.as_bytes());
            h.update(&[0]);
        }
        h.digest()
    })
}

/// `(path, contents)` of each data file named, under `src/integrity/data/`.
macro_rules! data_files {
    ($($path:literal),* $(,)?) => { &[$(($path, include_str!(concat!("data/", $path)))),*] };
}

/// Every data file, by its path under `src/integrity/data/`.
const FILES: &[(&str, &str)] = data_files! {
    "lists.txt", "patterns.txt", "lang/en.txt", "lang/zh.txt", "lang/es.txt", "lang/pt.txt",
    "lang/ru.txt", "lang/ja.txt", "lang/de.txt", "lang/fr.txt", "lang/hi.txt", "lang/ar.txt",
    "lang/bn.txt", "lang/ko.txt", "lang/it.txt", "lang/tr.txt", "lang/pl.txt", "lang/nl.txt",
    "lang/vi.txt", "lang/id.txt", "lang/uk.txt", "lang/fa.txt", "lang/cs.txt", "lang/common.txt",
};

/// Whether two byte strings are equal, at compile time.
pub(super) const fn same(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut k = 0;
    while k < a.len() && a[k] == b[k] {
        k += 1;
    }
    k == a.len()
}

/// The items of set `name` as data file `file` declares it (`@name: …` lines, items separated
/// by spaces), read at compile time: the lists and classes the code gives bits to are kept in
/// the data files with the reasons for them. The first `N` items, and how many there are.
pub(super) const fn set_items<const N: usize>(
    file: &str,
    name: &str,
) -> ([&'static str; N], usize) {
    let mut f = 0;
    while !same(FILES[f].0.as_bytes(), file.as_bytes()) {
        f += 1;
    }
    let (text, name) = (FILES[f].1.as_bytes(), name.as_bytes());
    let (mut items, mut n, mut at) = ([""; N], 0, 0);
    while at < text.len() {
        let end = at_byte(text, at, b'\n');
        let line = text.split_at(end).0.split_at(at).1;
        let k = name.len() + 2;
        if line.len() >= k
            && line[0] == b'@'
            && line[k - 1] == b':'
            && same(line.split_at(k - 1).0.split_at(1).1, name)
        {
            let list = line.split_at(k).1;
            let mut k = 0;
            while k < list.len() {
                let item_end = at_byte(list, k, b' ');
                if item_end > k {
                    if n < N {
                        items[n] =
                            match std::str::from_utf8(list.split_at(item_end).0.split_at(k).1) {
                                Ok(item) => item,
                                Err(_) => panic!("a set item is not UTF-8"),
                            };
                    }
                    n += 1;
                }
                k = item_end + 1;
            }
        }
        at = end + 1;
    }
    (items, n)
}

/// Where the first `b` in `s` at or after `from` is (the end of `s` if none).
pub(super) const fn at_byte(s: &[u8], from: usize, b: u8) -> usize {
    let mut k = from;
    while k < s.len() && s[k] != b {
        k += 1;
    }
    k
}

/// The items of set `$name` in data file `$file`, as a constant `&[&str]` ([`set_items`]).
macro_rules! const_set {
    ($file:literal, $name:literal) => {{
        use $crate::integrity::tables::set_items;
        const ITEMS: [&str; set_items::<0>($file, $name).1] = set_items($file, $name).0;
        &ITEMS
    }};
}
pub(super) use const_set;

/// One entry of a cue class.
#[derive(Debug)]
pub(super) struct CueWord {
    pub(super) class: &'static str,
    /// The words, as written (`+` already split).
    pub(super) words: Vec<&'static str>,
    /// `word*`: any word starting with the (last) word.
    pub(super) stem: bool,
    /// `*word`: any word ending with the (single) word.
    pub(super) suffix: bool,
    /// From a language whose verbs come last (`!order: final`).
    pub(super) verb_final: bool,
}

/// Everything the data files declare.
#[derive(Debug, Default)]
pub(super) struct Tables {
    /// `@name: …`, in the order declared.
    sets: HashMap<&'static str, Vec<&'static str>>,
    /// `rule: pattern`, with where it was written.
    pub(super) patterns: Vec<(&'static str, &'static str, String)>,
    pub(super) cues: Vec<CueWord>,
}

impl Tables {
    /// The items of set `name` (a list the code names: present, or the tables test fails).
    pub(super) fn set(&self, name: &str) -> &[&'static str] {
        self.sets.get(name).map_or(&[], Vec::as_slice)
    }

    /// Whether set `name` is declared.
    pub(super) fn has_set(&self, name: &str) -> bool {
        self.sets.contains_key(name)
    }
}

/// The parsed tables, whole: what the vocabulary is built from ([`super::vocab`]), which a
/// build reads from its compiled form instead. Parsing is tested (`tables_parse`), so the
/// `expect` cannot fire in a build whose tests passed.
pub(super) fn tables() -> &'static Tables {
    static TABLES: OnceLock<Tables> = OnceLock::new();
    TABLES.get_or_init(|| parse(data_files(), false).expect("the integrity data files parse"))
}

/// The tables' sets only (`@name: …`), which the shape scanners read at run time: parsing
/// them skips the cue words and patterns, most of the files, which the vocabulary already
/// holds compiled.
pub(super) fn sets() -> &'static Tables {
    static SETS: OnceLock<Tables> = OnceLock::new();
    SETS.get_or_init(|| parse(data_files(), true).expect("the integrity data files parse"))
}

/// Whether some item of set `name` (as bytes) satisfies `f`.
pub(super) fn any_in(name: &str, mut f: impl FnMut(&[u8]) -> bool) -> bool {
    sets().set(name).iter().any(|s| f(s.as_bytes()))
}

/// Whether the data files are the compiled-in ones (in tests, `RUNE_INTEGRITY_DATA` may name
/// others), so that what was compiled from them may be used.
pub(super) fn compiled_in() -> bool {
    #[cfg(test)]
    if std::env::var_os("RUNE_INTEGRITY_DATA").is_some() {
        return false;
    }
    true
}

/// The data files the scanner parses: the compiled-in ones, or (in tests only) the files of
/// the directory named by `RUNE_INTEGRITY_DATA`, read at run time, so that a table edit can
/// be measured on the corpora without rebuilding the test binary.
fn data_files() -> &'static [(&'static str, &'static str)] {
    #[cfg(test)]
    if let Ok(dir) = std::env::var("RUNE_INTEGRITY_DATA") {
        let read = |name: &'static str| -> (&'static str, &'static str) {
            let path = std::path::Path::new(&dir).join(name);
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            (name, Box::leak(text.into_boxed_str()))
        };
        let files: Vec<_> = FILES.iter().map(|(name, _)| read(name)).collect();
        return Box::leak(files.into_boxed_slice());
    }
    FILES
}

/// The data files, for tests.
#[cfg(test)]
pub(super) fn files() -> &'static [(&'static str, &'static str)] {
    FILES
}

/// Parses data files (only their sets, when `sets_only`); an error names the file and line.
pub(super) fn parse(
    files: &[(&'static str, &'static str)],
    sets_only: bool,
) -> Result<Tables, String> {
    let mut t = Tables::default();
    for &(file, text) in files {
        let mut verb_final = false;
        for (n, line) in text.lines().enumerate() {
            let at = || format!("src/integrity/data/{file}:{}", n + 1);
            // The blank-separated items of a declaration; `"…"` quotes an item holding blanks.
            let items = |s: &'static str| {
                crate::text::split_quoted(s)
                    .ok_or_else(|| format!("{}: unclosed quote in {s:?}", at()))
            };
            if sets_only && !line.starts_with('@') {
                continue;
            }
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            if let Some(d) = line.strip_prefix('!') {
                match d.split_once(':').map(|(k, v)| (k.trim(), v.trim())) {
                    Some(("order", "final")) => verb_final = true,
                    Some(("order", "first")) => verb_final = false,
                    _ => return Err(format!("{}: unknown directive {line:?}", at())),
                }
                continue;
            }
            let (head, rest) = line
                .split_once(':')
                .ok_or_else(|| format!("{}: expected `name: …`, found {line:?}", at()))?;
            if let Some(name) = head.strip_prefix('@') {
                let items = items(rest)?;
                if items.is_empty() {
                    return Err(format!("{}: set {name} lists nothing", at()));
                }
                t.sets.entry(name.trim()).or_default().extend(items);
            } else if let Some(class) = head.strip_prefix('%') {
                for item in items(rest)? {
                    let (item, stem) = item.strip_suffix('*').map_or((item, false), |s| (s, true));
                    let (item, suffix) =
                        item.strip_prefix('*').map_or((item, false), |s| (s, true));
                    let words: Vec<&str> = item.split('+').collect();
                    let bad =
                        words.iter().any(|w| w.is_empty()) || (suffix && (stem || words.len() > 1));
                    if bad {
                        return Err(format!("{}: bad cue word {item:?}", at()));
                    }
                    t.cues.push(CueWord {
                        class: class.trim(),
                        words,
                        stem,
                        suffix,
                        verb_final,
                    });
                }
            } else if rest.starts_with(' ') && !head.contains(' ') {
                t.patterns.push((head, rest.trim(), at()));
            } else {
                return Err(format!(
                    "{}: expected `rule: pattern`, found {line:?}",
                    at()
                ));
            }
        }
    }
    Ok(t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::integrity::vocab::{Vocabulary, CUES, LISTS};

    /// The compiled-in tables, parsed whole, for building a vocabulary.
    fn t_static() -> &'static Tables {
        tables()
    }

    /// The tables the scanners name outside the vocabulary lists.
    const NAMED: &[&str] = &[
        "secret-files",
        "send-only-files",
        "sockets",
        "socket-shells",
        "network-apis",
        "secret-sources",
        "one-liner-flags",
        "falsy-keys",
        "truthy-keys",
        "private-names",
        "private-in-query",
        "substituted",
        "infinitive-to",
        "installers",
        "script-extensions",
        "package-source-cues",
        "sends-args",
        "install-hosts",
        "install-scripts",
        "popular-packages",
        "install-verbs",
        "writeup-words",
        "marker-joiners",
        "copulas",
        "controls",
        "weakens",
        "weak-alone",
        "weak-negations",
        "weak-consequences",
        "time-openers",
        "if-asked",
        "answer-cues",
        "requests",
        "reports",
        "omits",
        "public-reports",
        "without-before",
        "frame-edges",
        "frame-nouns",
        "frame-fillers",
        "cite-abbreviations",
    ];

    #[test]
    fn tables_parse() {
        let t = parse(files(), false).unwrap_or_else(|e| panic!("{e}"));
        for name in LISTS.iter().chain(NAMED) {
            assert!(!t.set(name).is_empty(), "no list {name} in data/lists.txt");
        }
        for class in CUES.iter().filter(|c| **c != "final") {
            assert!(
                t.cues.iter().any(|c| c.class == *class),
                "cue class {class} has no words"
            );
        }
        for c in &t.cues {
            assert!(CUES.contains(&c.class), "unknown cue class {:?}", c.class);
        }
        for set in ["quotable-rules", "command-rules", "declinable-rules"] {
            for rule in t.set(set) {
                let known = crate::integrity::RULES.iter().any(|r| r.0 == *rule);
                assert!(known, "{set}: {rule} is no rule");
            }
        }
        // Building the vocabulary compiles every pattern against its sets and interns every
        // word: a set a pattern names but no file declares, or a table word that is not one
        // word, panics here rather than in a scan.
        let v = Vocabulary::build(t_static());
        assert_eq!(v.patterns.len(), t.patterns.len());
        // The sets parsed alone are those of the whole parse.
        let sets = parse(files(), true).unwrap();
        for name in t.sets.keys() {
            assert_eq!(sets.set(name), t.set(name), "set {name}");
        }
        assert!(sets.cues.is_empty() && sets.patterns.is_empty());
    }

    #[test]
    fn parse_errors_name_the_file_and_line() {
        let bad: &[(&str, &str)] = &[("x.txt", "# ok\n@a: b\nwhat is this\n")];
        let e = parse(bad, false).unwrap_err();
        assert!(e.starts_with("src/integrity/data/x.txt:3:"), "{e}");
        let bad: &[(&str, &str)] = &[("y.txt", "@a: \"unclosed\n")];
        assert!(parse(bad, false)
            .unwrap_err()
            .contains("y.txt:1: unclosed quote"));
        let bad: &[(&str, &str)] = &[("z.txt", "!order: sideways\n")];
        assert!(parse(bad, false).unwrap_err().contains("unknown directive"));
        let ok: &[(&str, &str)] = &[(
            "w.txt",
            "@a: \"iwr \" b+c\n!order: final\n%final: x* y+z\nrule-name: a b\n",
        )];
        let t = parse(ok, false).unwrap();
        assert_eq!(t.set("a"), &["iwr ", "b+c"]);
        assert!(t.cues[0].stem && t.cues[0].verb_final && t.cues[1].words == ["y", "z"]);
        assert_eq!(t.patterns[0].0, "rule-name");
        let t = parse(&[("v.txt", "%final: *wort a+b*\n")], false).unwrap();
        assert!(t.cues[0].suffix && !t.cues[0].stem && t.cues[0].words == ["wort"]);
        assert!(t.cues[1].stem && t.cues[1].words == ["a", "b"]);
        assert!(parse(&[("v.txt", "%final: *a+b\n")], false).is_err());
    }
}
