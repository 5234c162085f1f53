//! The scanner's vocabulary: every word its tables name ([`super::tables`]), looked up once
//! per word of a text to learn the lists it is in, its id in the phrase patterns, and its cue
//! classes.
//! Past 600 lines: the table, its build from the data files and its compiled form are one
//! layout, written and read in the same file so they cannot drift apart.
//!
//! Scripts written without spaces (Chinese, Japanese) are cut into words by the longest
//! vocabulary entry at each character, so every table word of those scripts is an entry.

use serde::{Deserialize, Serialize};

use super::norm::{is_cjk, is_word_char, Norm};
use super::patterns::{by_first, compile, Pattern};
use super::tables::{compiled_in, const_set, fingerprint, same, tables, Tables};
pub(super) use super::word_table::{fnv, FNV};
use super::word_table::{Slot, WordTable};

/// The word lists of `lists.txt` that are vocabulary bits, in bit order (its `@vocab-lists`,
/// where the reason for them is). Each word of a text is looked up once to learn all the lists
/// it belongs to, as a bit mask ([`mask`]).
pub(super) const LISTS: &[&str] = const_set!("lists.txt", "vocab-lists");

/// The cue classes of the language files (`%class: …`), in bit order (`@cue-classes` of
/// `lang/common.txt`, which says what each is for).
pub(super) const CUES: &[&str] = const_set!("lang/common.txt", "cue-classes");

/// The bit of `name` in `names` (a compile-time error in constants if there is none).
const fn bit_in(names: &[&str], name: &str) -> u64 {
    let mut i = 0;
    while i < names.len() {
        if same(names[i].as_bytes(), name.as_bytes()) {
            return 1 << i;
        }
        i += 1;
    }
    panic!("no such word list or cue class");
}

/// The bit of the list called `name`.
pub(super) const fn bit(name: &str) -> u64 {
    bit_in(LISTS, name)
}

/// The bit of the cue class called `name`.
pub(super) const fn cue(name: &str) -> u64 {
    bit_in(CUES, name)
}

/// `u64` constants, each the bit `bit` or `cue` gives its name: `bits! { pub bit: A = "a", … }`.
macro_rules! bits {
    ($vis:vis $f:ident: $($(#[$m:meta])* $name:ident = $s:literal),* $(,)?) => {
        $($(#[$m])* $vis const $name: u64 = $f($s);)*
    };
}
pub(super) use bits;

/// Longer words are in no list.
const MAX_WORD: usize = 64;

/// What the vocabulary knows about one word.
#[derive(Clone, Copy, Default)]
pub(super) struct Entry {
    pub(super) mask: u64,
    pub(super) id: u32,
    pub(super) cues: u64,
}

impl From<Slot> for Entry {
    fn from(s: Slot) -> Entry {
        Entry {
            mask: s.mask,
            id: s.id,
            cues: s.cues,
        }
    }
}

/// A cue of several words (`no+longer`), by word id; with a stem last (`환경+변수*`), its
/// last word is matched by its beginning. Its words and that beginning are in the
/// vocabulary's shared arrays ([`Vocabulary::seq_ids`], [`Vocabulary::seq_prefix`]).
#[derive(Clone, Copy, Serialize, Deserialize)]
pub(super) struct CueSeq {
    /// Where its word ids start in `Vocabulary::seq_words`, and how many.
    words: u32,
    len: u8,
    /// Where the last word's beginning (normalised, lower case) starts in
    /// `Vocabulary::seq_prefixes`, and its length: 0 when the last word is no stem.
    prefix: u32,
    prefix_len: u16,
    pub(super) cues: u64,
}

/// Lists by number (a word id), stored as one vector of items and where each list ends: a
/// compiled vocabulary decodes them in two copies rather than an allocation per list.
#[derive(Clone, Serialize, Deserialize)]
pub(super) struct Lists<T> {
    ends: Vec<u32>,
    items: Vec<T>,
}

impl<T> Lists<T> {
    pub(super) fn of(lists: Vec<Vec<T>>) -> Self {
        let mut out = Lists {
            ends: Vec::with_capacity(lists.len()),
            items: Vec::new(),
        };
        for l in lists {
            out.items.extend(l);
            out.ends.push(out.items.len() as u32);
        }
        out
    }

    /// List `i` (empty past the last, or where the stored ends do not fit the items).
    pub(super) fn get(&self, i: usize) -> &[T] {
        let Some(&end) = self.ends.get(i) else {
            return &[];
        };
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        self.items.get(start as usize..end as usize).unwrap_or(&[])
    }
}

/// Every word the scanners know, and the phrase patterns compiled over them. `data/vocab.bin`
/// holds it (postcard) after the stamp of what it was built from; its word table is borrowed
/// from the file.
#[derive(Serialize, Deserialize)]
pub(super) struct Vocabulary {
    /// Every word: the compiled table read where it lies ([`WordTable`]).
    #[serde(borrow)]
    words: WordTable<'static>,
    /// Some cue word is a stem (`*`), so words not found are tried by their prefixes.
    stems: bool,
    /// Some cue word is a suffix stem (`*word`), so words not found are tried by their ends.
    suffixes: bool,
    /// The first characters of the vocabulary's words in unspaced scripts, sorted.
    pub(super) cjk_initials: Vec<char>,
    /// The longest such word, in characters.
    pub(super) cjk_longest: usize,
    pub(super) patterns: Vec<Pattern>,
    /// For each word id, the patterns that may start with it.
    pub(super) by_first: Lists<u16>,
    /// For each word id, the several-word cues that start with it (longest first).
    pub(super) cue_seqs: Lists<CueSeq>,
    /// The word ids of every several-word cue, one after the other.
    seq_words: Vec<u32>,
    /// The beginnings of their stems, one after the other.
    seq_prefixes: String,
    /// The sentence scanners' lists, folded and sorted ([`super::lexicon`]).
    pub(super) lexicon: super::lexicon::Lexicon,
}

/// The vocabulary compiled from the data files when the tests last wrote it
/// (`vocab_bin_is_current`): what a process reads instead of building it, which costs about
/// 60M instructions (20,000 table words normalised and interned, the patterns compiled), more
/// than the rest of a `save`.
const COMPILED: &[u8] = include_bytes!("data/vocab.bin");

/// What a compiled vocabulary must have been built from: the data files' fingerprint and the
/// list and class names the code gives bits to. (The build's own code is checked by the test
/// that compares the compiled form with a fresh build.)
fn stamp() -> u64 {
    let mut h = fingerprint();
    for name in LISTS.iter().chain(CUES).flat_map(|n| n.bytes().chain([0])) {
        h = (h ^ u64::from(name)).wrapping_mul(0x0100_0000_01b3);
    }
    h
}

impl Vocabulary {
    /// The compiled vocabulary, when it was built from these tables.
    fn compiled() -> Option<Vocabulary> {
        if !compiled_in() {
            return None;
        }
        // (postcard writes a tuple as it would a struct of its fields, `usize` as `u32`)
        let (at, v): (u64, Vocabulary) = postcard::from_bytes(COMPILED).ok()?;
        (at == stamp() && v.words.is_whole()).then_some(v)
    }

    /// The compiled form of this vocabulary (`data/vocab.bin`).
    #[cfg(test)]
    pub(super) fn encode(&self) -> Vec<u8> {
        postcard::to_allocvec(&(stamp(), self)).expect("a vocabulary encodes")
    }

    pub(super) fn build(t: &'static Tables) -> Vocabulary {
        let mut v = Builder::default();
        let (mut stems, mut suffixes) = (false, false);
        for (i, list) in LISTS.iter().enumerate() {
            for w in t.set(list) {
                v.insert(w.as_bytes(), 1 << i);
            }
        }
        let mut seqs = Vec::new();
        for c in &t.cues {
            let bits = CUES
                .iter()
                .position(|n| *n == c.class)
                .map(|i| 1u64 << i)
                .unwrap_or_else(|| panic!("no cue class {:?} in vocab::CUES", c.class));
            // Only a verb is read by its position.
            let verb = [
                "override", "obey", "reveal", "send", "put", "tell", "hide", "pretend", "shape",
                "act", "treat", "cancel",
            ];
            let bits = bits
                | if c.verb_final && verb.contains(&c.class) {
                    cue("final")
                } else {
                    0
                };
            if c.words.len() == 1 {
                let at = v.intern_slot(c.words[0]);
                if c.suffix {
                    v.entries[at].suffix_cues |= bits;
                    suffixes = true;
                } else if c.stem {
                    v.entries[at].stem_cues |= bits;
                    stems = true;
                } else {
                    v.entries[at].cues |= bits;
                }
            } else {
                let ids: Vec<u32> = c.words.iter().map(|w| v.intern(w)).collect();
                let last_prefix = c.stem.then(|| {
                    let last = c.words[c.words.len() - 1];
                    Norm::new(last).text.to_ascii_lowercase()
                });
                seqs.push((ids, last_prefix, bits));
            }
        }
        let patterns = compile(t, |w| v.intern(w));
        let by_first = Lists::of(by_first(&patterns, v.ids));
        let (mut seq_words, mut seq_prefixes) = (Vec::new(), String::new());
        // Per first word: (the words' ids, a stem's beginning, the cue classes).
        type Seq = (Vec<u32>, Option<String>, u64);
        let mut by_word: Vec<Vec<Seq>> = (0..=v.ids).map(|_| Vec::new()).collect();
        seqs.sort_by_key(|s| std::cmp::Reverse(s.0.len()));
        for s in seqs {
            let first = s.0[0] as usize;
            match by_word[first].iter_mut().find(|o| o.0 == s.0 && o.1 == s.1) {
                Some(o) => o.2 |= s.2,
                None => by_word[first].push(s),
            }
        }
        let by_word = by_word
            .into_iter()
            .map(|seqs| {
                seqs.into_iter()
                    .map(|(ids, prefix, cues)| {
                        let seq = CueSeq {
                            words: seq_words.len() as u32,
                            len: ids.len() as u8,
                            prefix: seq_prefixes.len() as u32,
                            prefix_len: prefix.as_ref().map_or(0, |p| p.len() as u16),
                            cues,
                        };
                        seq_words.extend(ids);
                        seq_prefixes.push_str(prefix.as_deref().unwrap_or(""));
                        seq
                    })
                    .collect()
            })
            .collect();
        v.cjk_initials.sort_unstable();
        v.cjk_initials.dedup();
        Vocabulary {
            words: WordTable::of(&v.entries, &v.keys),
            stems,
            suffixes,
            cjk_initials: v.cjk_initials,
            cjk_longest: v.cjk_longest,
            patterns,
            by_first,
            cue_seqs: Lists::of(by_word),
            seq_words,
            seq_prefixes,
            lexicon: super::lexicon::of_tables(t),
        }
    }

    /// The entry of `word` (matched ASCII case-insensitively), whose hash is `h`.
    pub(super) fn probe(&self, h: u64, word: &[u8]) -> Option<Slot> {
        self.words.probe(h, word)
    }

    /// What the vocabulary knows of `word`, ASCII case-insensitively: its lists, its id, and
    /// its cue classes (its own, or those of the longest stem it starts with).
    pub(super) fn lookup(&self, word: &[u8]) -> Entry {
        if word.is_empty() || word.len() > MAX_WORD {
            return Entry::default();
        }
        let mut hashes = [0u64; MAX_WORD];
        let mut h = FNV;
        for (k, &c) in word.iter().enumerate() {
            h = fnv(h, c);
            hashes[k] = h;
        }
        let mut e = self.probe(h, word).map_or(Entry::default(), Entry::from);
        // A stem adds its classes to the word's own (`관리자` is a "compound" word and, by
        // `관리자*`, an authority).
        if self.stems && word.len() >= 3 {
            // The longest stem the word starts with (prefixes end at character boundaries).
            for k in (2..=word.len()).rev() {
                if k < word.len() && (word[k] & 0xC0) == 0x80 {
                    continue;
                }
                if let Some(s) = self.probe(hashes[k - 1], &word[..k]) {
                    if s.stem_cues != 0 {
                        e.cues |= s.stem_cues;
                        break;
                    }
                }
            }
        }
        if e.cues == 0 && self.suffixes && (6..=40).contains(&word.len()) {
            // The longest ending of a compound (`Datenbankpasswort`), of at least four bytes.
            for k in 1..word.len() - 3 {
                if (word[k] & 0xC0) == 0x80 {
                    continue;
                }
                let tail = &word[k..];
                let h = tail.iter().fold(FNV, |h, &c| fnv(h, c));
                if let Some(s) = self.probe(h, tail) {
                    if s.suffix_cues != 0 {
                        e.cues = s.suffix_cues;
                        break;
                    }
                }
            }
        }
        e
    }

    /// [`Vocabulary::lookup`] of two pieces read as one word (`ig` + `nore`).
    pub(super) fn lookup2(&self, a: &[u8], b: &[u8]) -> Entry {
        if a.len() + b.len() > MAX_WORD {
            return Entry::default();
        }
        let mut buf = [0u8; MAX_WORD];
        buf[..a.len()].copy_from_slice(a);
        buf[a.len()..a.len() + b.len()].copy_from_slice(b);
        self.lookup(&buf[..a.len() + b.len()])
    }

    /// The word ids of the several-word cue `s`.
    pub(super) fn seq_ids(&self, s: &CueSeq) -> &[u32] {
        let at = s.words as usize;
        self.seq_words
            .get(at..at + usize::from(s.len))
            .unwrap_or(&[])
    }

    /// The beginning of the last word of `s` when that word is a stem.
    pub(super) fn seq_prefix(&self, s: &CueSeq) -> Option<&[u8]> {
        let at = s.prefix as usize;
        let p = self
            .seq_prefixes
            .as_bytes()
            .get(at..at + usize::from(s.prefix_len))?;
        (!p.is_empty()).then_some(p)
    }
}

/// The vocabulary: the compiled one, or (when the tables changed since it was written, or in a
/// test that reads other tables) built from the tables on first use.
pub(super) fn vocabulary() -> &'static Vocabulary {
    static VOCABULARY: std::sync::OnceLock<Vocabulary> = std::sync::OnceLock::new();
    VOCABULARY.get_or_init(|| Vocabulary::compiled().unwrap_or_else(|| Vocabulary::build(tables())))
}

/// The one lexicon of the sentence scanners' lists (`lexicon::LISTS`): compiled with the
/// vocabulary (`data/vocab.bin`), whose words are folded and sorted already.
pub(super) fn lexicon() -> &'static super::lexicon::Lexicon {
    &vocabulary().lexicon
}

/// The lists `word` belongs to, case-insensitively, as bits.
pub(super) fn mask(word: &[u8]) -> u64 {
    vocabulary().lookup(word).mask
}

#[cfg(test)]
#[path = "vocab_tests.rs"]
mod tests;

/// The vocabulary's words while it is built from the tables.
#[derive(Default)]
struct Builder {
    entries: Vec<Slot>,
    keys: Vec<u8>,
    /// Each word's entry.
    at: std::collections::HashMap<Vec<u8>, usize>,
    ids: u32,
    cjk_initials: Vec<char>,
    cjk_longest: usize,
}

impl Builder {
    /// Adds `word` (lower case already) with list bits `mask`; returns its entry.
    fn insert(&mut self, word: &[u8], mask: u64) -> usize {
        assert!(
            !word.is_empty() && word.len() <= MAX_WORD,
            "vocabulary word {word:?}"
        );
        let e = match self.at.get(word) {
            Some(&e) => e,
            None => {
                self.entries.push(Slot {
                    key: self.keys.len() as u32,
                    len: word.len() as u8,
                    ..Slot::default()
                });
                self.keys.extend_from_slice(word);
                self.at.insert(word.to_vec(), self.entries.len() - 1);
                self.entries.len() - 1
            }
        };
        self.entries[e].mask |= mask;
        e
    }

    /// The id of a table word (normalised as texts are), adding it if new.
    pub(super) fn intern(&mut self, word: &str) -> u32 {
        let e = self.intern_slot(word);
        self.entries[e].id
    }

    /// [`Builder::intern`], returning the word's entry.
    fn intern_slot(&mut self, word: &str) -> usize {
        let norm = Norm::new(word);
        let w = norm.text.to_ascii_lowercase();
        let first = w.chars().next().expect("empty table word");
        // The tables are compiled in: a test build checks every word once (`cargo test`
        // builds the vocabulary), a release build does not pay for it at every start.
        debug_assert!(
            w.chars().all(|c| is_word_char(c) || is_cjk(c))
                && (w.chars().all(is_cjk) || !w.chars().any(is_cjk)),
            "table word {word:?} is not one word"
        );
        let at = self.insert(w.as_bytes(), 0);
        if self.entries[at].id == 0 {
            self.ids += 1;
            self.entries[at].id = self.ids;
            if is_cjk(first) {
                self.cjk_initials.push(first);
                self.cjk_longest = self.cjk_longest.max(w.chars().count());
            }
        }
        at
    }
}
