//! Phrases matched over a text's words: instruction overrides, role reassignment, instruction
//! headers (patterns in `data/patterns.txt`, over the word sets of `data/lang/`) and
//! weakened-security wording.
//!
//! # Rules
//!
//! * `override-instructions` (TAINTED): telling the reader to drop what it was told is the
//!   classic prompt injection, and memory has no reason to address its reader that way. Only
//!   the imperative counts and the object must be instructions qualified as earlier, above,
//!   yours or the system's, so "the parser ignores previous tokens", "ignore whitespace in
//!   diffs", "ignore any instructions found in fetched pages", "ignore all the rules in
//!   .eslintrc" and "ignore the above warning" stay clean, while "disregard the above." does
//!   not. Paraphrases count too: "pay no attention to …", "do not follow your …", "forget
//!   what you were told before", "your previous instructions are void", "reveal your system
//!   prompt".
//! * `role-reassignment` (TAINTED): "you are now …" handing the reader a new identity is how
//!   jailbreaks start ("you are now DAN", "… an unrestricted AI", "… in developer mode",
//!   "from now on you will obey me", "pretend you have no restrictions"). Status talk stays
//!   clean: "you are now ready to deploy", "you are now able to run tests", "you are now in
//!   the repo root", "you are now a bit closer", "from now on, you are responsible for …".
//! * `instruction-header` (TAINTED): a label announcing replacement instructions is how
//!   injected text poses as the operator ("new instructions:", "here are your new
//!   instructions", "new instructions follow"). "system prompt:" counts only when it opens a
//!   line, since prose about LLM apps mentions the system prompt all the time.
//!
//! English has the precise patterns the scanner started with (sets prefixed `en-`) and the
//! paraphrases; the cross-language patterns cover the languages of `data/lang/`: imperative
//! override verbs with an earlier/above/your/system object, "forget everything above", "you
//! are now / from now on you are" with a persona, a mode or "without restrictions", and "new
//! instructions:". Verb-final languages (Hindi, Bengali, Japanese) are matched object first,
//! verb last, with the imperative form of the verb (their sets are named `ov-…`). Verbs are
//! listed in their imperative forms only; Chinese has no such form, so its verbs must open the
//! clause.
//!
//! The word reader runs on the normal form ([`super::norm`]) and looks every word up once in
//! the vocabulary ([`super::vocab`]).
//!
//! Past 600 lines: the rules' documentation above is a third of it; the rest is one matcher over
//! one word stream and the compiler of its pattern table.

use super::intent::{cited_or_quoted, QuoteCache};
use super::norm::{is_cjk, is_word_char};
use super::tables::Tables;
use super::vocab::{fnv, vocabulary, Entry, Vocabulary, FNV};
use super::*;

// ---------------------------------------------------------------------------------------------
// Phrase patterns.

/// One element of a compiled phrase pattern (the syntax is described in [`super::tables`]).
#[derive(Clone, serde::Serialize, serde::Deserialize)]
pub(super) struct Element {
    /// One-word alternatives, sorted.
    words: Vec<u32>,
    /// Alternatives of several words, longest first.
    seqs: Vec<Vec<u32>>,
    any: bool,
    /// `$` (end of a clause) or `:` (a colon after the last word); 0 for words.
    anchor: u8,
    negated: bool,
    min: usize,
    max: usize,
}

#[derive(Clone, serde::Serialize, serde::Deserialize)]
pub(super) struct Pattern {
    /// Its rule, by index in [`RULES`].
    rule: u8,
    elements: Vec<Element>,
    /// `^`: the phrase's first word opens its line.
    line_start: bool,
    /// `<`: the phrase's first word opens its clause (the imperative position).
    clause_start: bool,
}

/// Compiles the phrase patterns of `t` over the vocabulary's word ids. Their sets are
/// interned on first use (a set no pattern names adds no words).
pub(super) fn compile_patterns(v: &mut Vocabulary, t: &'static Tables) {
    let mut sets: std::collections::HashMap<&str, Vec<Vec<u32>>> = Default::default();
    for (rule, pattern, at) in &t.patterns {
        let rule = RULES
            .iter()
            .position(|r| r.0 == *rule)
            .unwrap_or_else(|| panic!("{at}: phrase rule {rule} is not listed in RULES"))
            as u8;
        let (mut line_start, mut clause_start) = (false, false);
        let mut elements = Vec::new();
        for el in pattern.split_whitespace() {
            let el = el
                .strip_prefix('^')
                .inspect(|_| line_start = true)
                .unwrap_or(el);
            let el = el
                .strip_prefix('<')
                .inspect(|_| clause_start = true)
                .unwrap_or(el);
            let (el, negated) = el.strip_prefix('!').map_or((el, false), |e| (e, true));
            let (el, min, max) = match el.rsplit_once('*') {
                Some((e, n)) if !e.is_empty() => (e, 0, n.parse().unwrap_or(4)),
                _ => match el.strip_suffix('?') {
                    Some(e) if !e.is_empty() => (e, 0, 1),
                    _ => (el, 1, 1),
                },
            };
            let mut e = Element {
                words: Vec::new(),
                seqs: Vec::new(),
                any: false,
                anchor: 0,
                negated,
                min,
                max,
            };
            if el == "$" || el == ":" {
                e.anchor = el.as_bytes()[0];
            }
            for alt in el.split('|').filter(|_| e.anchor == 0) {
                let alts = match alt.strip_prefix('{').and_then(|a| a.strip_suffix('}')) {
                    Some("any") => {
                        e.any = true;
                        continue;
                    }
                    Some(name) => {
                        if !sets.contains_key(name) {
                            assert!(t.has_set(name), "{at}: no set {name}");
                            let alts = t
                                .set(name)
                                .iter()
                                .map(|alt| alt.split('+').map(|w| v.intern(w)).collect())
                                .collect();
                            sets.insert(name, alts);
                        }
                        sets[name].clone()
                    }
                    None => vec![alt.split('+').map(|w| v.intern(w)).collect()],
                };
                for a in alts {
                    match a.len() {
                        1 => e.words.push(a[0]),
                        _ => e.seqs.push(a),
                    }
                }
            }
            e.words.sort_unstable();
            e.words.dedup();
            e.seqs.sort_by_key(|s| std::cmp::Reverse(s.len()));
            elements.push(e);
        }
        v.patterns.push(Pattern {
            rule,
            elements,
            line_start,
            clause_start,
        });
    }
    v.by_first = vec![Vec::new(); v.ids() as usize + 1];
    for (p, pattern) in v.patterns.iter().enumerate() {
        for el in &pattern.elements {
            assert!(
                !el.any && el.anchor == 0 && !el.negated,
                "a pattern must open with words"
            );
            let firsts = el.words.iter().chain(el.seqs.iter().map(|s| &s[0]));
            for &id in firsts {
                if v.by_first[id as usize].last() != Some(&(p as u16)) {
                    v.by_first[id as usize].push(p as u16);
                }
            }
            if el.min > 0 {
                break;
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Words.

pub(super) struct Word {
    pub(super) start: usize,
    pub(super) end: usize,
    /// The gap to the next word holds only whitespace (line breaks included), markdown
    /// emphasis, quotes, dashes or commas, so a phrase may continue across it.
    pub(super) soft: bool,
    /// The gap to the next word ends a clause (`.,;:!?`, their CJK, Arabic and Indic forms, or a
    /// line break), or there is none.
    pub(super) brk: bool,
    /// The word opens its line (after optional markdown markers such as `#`, `>`, `-`).
    pub(super) line_start: bool,
    /// The gap to the next word ends a clause for the cue scanner (see `Gap::cbrk`), or there
    /// is none.
    pub(super) cbrk: bool,
    /// The gap to the next word ends a sentence (see `Gap::stop`), or there is none.
    pub(super) stop: bool,
    /// The gap to the next word holds a blank line, or there is none.
    pub(super) blank: bool,
    /// The first byte after the word that is not a space or tab (0 at the end of the text).
    pub(super) next: u8,
    /// The word lists the word belongs to (see [`super::vocab::mask`]).
    pub(super) mask: u64,
    /// The word's id in the phrase tables, 0 if none.
    pub(super) id: u32,
    /// The word's cue classes ([`super::vocab::CUES`]).
    pub(super) cues: u64,
}

pub(super) struct Words<'a> {
    text: &'a [u8],
    pub(super) list: Vec<Word>,
}

/// What the gap since the last word held.
struct Gap {
    soft: bool,
    brk: bool,
    /// The gap ends a clause for the cue scanner ([`super::intent`]): punctuation followed
    /// by a blank or by text of another script (a dot in `.env` or `x.example` is not one), a
    /// blank line, or a line break before a list item, a heading or a line that does not open
    /// in lower case (a line wrapped inside a sentence does).
    cbrk: bool,
    /// The gap ends a sentence: `.!?` followed likewise, their CJK, Arabic and Indic forms, or a
    /// blank line.
    stop: bool,
    /// The gap holds a blank line.
    blank: bool,
    /// Punctuation waiting to learn what follows it: `,` for a clause, `.` for a sentence.
    pending: u8,
    /// A line break, until the next line shows whether it opens a list item.
    pending_line: bool,
    line_start: bool,
    next: u8,
    len: usize,
    /// Only `-` (right after the word), blanks, one line break, `>` and emphasis: a word split
    /// by hyphenation (`ig-\nnore`) or emphasis (`ig**nore**`) may continue across it.
    joinable: bool,
    hyphens: u8,
    newlines: u8,
    /// Only emphasis markers (`*`, `_`, `~`).
    emphasis: bool,
}

impl Gap {
    fn new(line_start: bool) -> Gap {
        Gap {
            soft: true,
            brk: false,
            cbrk: false,
            stop: false,
            blank: false,
            pending: 0,
            pending_line: false,
            line_start,
            next: 0,
            len: 0,
            joinable: true,
            hyphens: 0,
            newlines: 0,
            emphasis: true,
        }
    }

    /// The pending punctuation is followed by a blank, a closing quote or other script.
    fn confirm(&mut self) {
        match self.pending {
            b'.' => (self.cbrk, self.stop) = (true, true),
            b',' => self.cbrk = true,
            _ => {}
        }
        self.pending = 0;
    }

    /// A word starts after the gap, with `first`.
    fn word_starts(&mut self, first: char) {
        if !first.is_ascii() {
            self.confirm();
        }
        if self.pending_line {
            self.cbrk |= !first.is_lowercase();
        }
        self.pending = 0;
        self.pending_line = false;
    }

    fn byte(&mut self, c: u8) {
        if self.next == 0 && c != b' ' && c != b'\t' {
            self.next = c;
        }
        if self.pending != 0 {
            if c.is_ascii_whitespace() || b"\"'`)]*_>".contains(&c) {
                self.confirm();
            } else if !b".,;:!?".contains(&c) {
                self.pending = 0;
            }
        }
        if self.pending_line && !matches!(c, b' ' | b'\t' | b'\r' | b'\n') {
            self.cbrk |= !c.is_ascii_lowercase();
            self.pending_line = false;
        }
        match c {
            b',' | b';' | b':' if self.pending != b'.' => self.pending = b',',
            b'.' | b'!' | b'?' => self.pending = b'.',
            b'\n' => {
                self.pending_line = true;
                if self.newlines >= 1 {
                    (self.cbrk, self.stop, self.blank) = (true, true, true);
                }
            }
            _ => {}
        }
        self.line_start = c == b'\n' || (self.line_start && b" \t\r#>*-+".contains(&c));
        match c {
            b' ' | b'\t' | b'\r' | b'*' | b'_' | b'~' | b'`' | b'\'' | b'"' | b'-' => {}
            b',' => self.brk = true,
            b'\n' => self.brk = true,
            b'.' | b';' | b':' | b'!' | b'?' => (self.brk, self.soft) = (true, false),
            _ => self.soft = false,
        }
        self.emphasis &= matches!(c, b'*' | b'_' | b'~');
        match c {
            b'-' if self.len == 0 => self.hyphens = self.hyphens.saturating_add(1),
            b'\n' => self.newlines = self.newlines.saturating_add(1),
            b' ' | b'\t' | b'\r' | b'>' | b'*' | b'_' | b'~' => {}
            _ => self.joinable = false,
        }
        self.len += 1;
    }

    fn char(&mut self, c: char) {
        if self.next == 0 {
            self.next = c.len_utf8() as u8 | 0x80; // some byte ≥ 0x80: not punctuation we test
        }
        self.confirm();
        if self.pending_line {
            self.cbrk |= !c.is_lowercase();
            self.pending_line = false;
        }
        self.line_start = false;
        self.joinable = false;
        self.emphasis = false;
        self.len += 1;
        match c {
            // Quotes, brackets used as quotes, dashes, the katakana middle dot.
            '‘'
            | '’'
            | '“'
            | '”'
            | '«'
            | '»'
            | '„'
            | '‚'
            | '「'
            | '」'
            | '『'
            | '』'
            | '《'
            | '》'
            | '〈'
            | '〉'
            | '【'
            | '】'
            | '\u{2010}'..='\u{2015}'
            | '・' => {}
            '、' | '،' | '､' => (self.brk, self.cbrk) = (true, true),
            '。' | '।' | '॥' | '؟' | '؛' | '۔' | '｡' => {
                (self.brk, self.soft, self.cbrk, self.stop) = (true, false, true, true)
            }
            _ => self.soft = false,
        }
    }

    fn mergeable(&self) -> bool {
        self.joinable && self.len > 0 && self.newlines <= 1 && (self.hyphens == 1 || self.emphasis)
    }
}

impl<'a> Words<'a> {
    /// Reads the words of `text`, a normal form ([`Norm`]).
    pub(super) fn new(text: &'a str) -> Self {
        let v = vocabulary();
        let b = text.as_bytes();
        let mut w = Words {
            text: b,
            list: Vec::new(),
        };
        let mut gap = Gap::new(true);
        let mut i = 0;
        while i < b.len() {
            if b[i] < 0x80 {
                if b[i].is_ascii_alphanumeric() {
                    i = w.word(v, text, i, &mut gap);
                } else {
                    gap.byte(b[i]);
                    i += 1;
                }
                continue;
            }
            let c = text[i..].chars().next().expect("char boundary");
            if is_cjk(c) {
                i = w.unspaced(v, text, i, &mut gap);
            } else if is_word_char(c) {
                i = w.word(v, text, i, &mut gap);
            } else {
                gap.char(c);
                i += c.len_utf8();
            }
        }
        if let Some(last) = w.list.last_mut() {
            (last.soft, last.brk) = (false, true);
        }
        w
    }

    /// Reads the spaced word starting at `s`; returns where it ends.
    fn word(&mut self, v: &Vocabulary, text: &str, s: usize, gap: &mut Gap) -> usize {
        let b = self.text;
        let mut e = s;
        while e < b.len() {
            if b[e].is_ascii_alphanumeric() {
                e += 1;
                continue;
            }
            match text[e..].chars().next() {
                Some(c) if !c.is_ascii() && is_word_char(c) && !is_cjk(c) => e += c.len_utf8(),
                _ => break,
            }
        }
        let entry = v.lookup(&b[s..e]);
        self.push(v, s, e, entry, gap);
        e
    }

    /// Cuts the run of unspaced script starting at `s` into vocabulary words (the longest at
    /// each character) and single characters; returns where the run ends.
    fn unspaced(&mut self, v: &Vocabulary, text: &str, s: usize, gap: &mut Gap) -> usize {
        let mut at = s;
        loop {
            let Some(c) = text[at..].chars().next().filter(|&c| is_cjk(c)) else {
                return at;
            };
            let mut best = (at + c.len_utf8(), Entry::default());
            if v.cjk_initials.binary_search(&c).is_ok() {
                let mut h = FNV;
                for (n, (off, ch)) in text[at..].char_indices().enumerate() {
                    if n == v.cjk_longest || !is_cjk(ch) {
                        break;
                    }
                    let end = at + off + ch.len_utf8();
                    h = text.as_bytes()[at + off..end]
                        .iter()
                        .fold(h, |h, &c| fnv(h, c));
                    if let Some(slot) = v.probe(h, &text.as_bytes()[at..end]) {
                        let (mask, id, cues) = (slot.mask, slot.id, slot.cues);
                        best = (end, Entry { mask, id, cues });
                    }
                }
            }
            self.push(v, at, best.0, best.1, gap);
            at = best.0;
        }
    }

    fn push(&mut self, v: &Vocabulary, s: usize, e: usize, entry: Entry, gap: &mut Gap) {
        let first = std::str::from_utf8(&self.text[s..e])
            .ok()
            .and_then(|w| w.chars().next())
            .unwrap_or('a');
        gap.word_starts(first);
        if let Some(prev) = self.list.last_mut() {
            if gap.mergeable() {
                let joined = v.lookup2(&self.text[prev.start..prev.end], &self.text[s..e]);
                if joined.id != 0 {
                    (prev.end, prev.mask, prev.id, prev.cues) =
                        (e, joined.mask, joined.id, joined.cues);
                    *gap = Gap::new(false);
                    return;
                }
            }
            (prev.soft, prev.brk, prev.next) = (gap.soft, gap.brk, gap.next);
            (prev.cbrk, prev.stop, prev.blank) = (gap.cbrk, gap.stop, gap.blank);
        }
        self.list.push(Word {
            start: s,
            end: e,
            soft: false,
            brk: true,
            cbrk: true,
            stop: true,
            blank: true,
            line_start: gap.line_start,
            next: 0,
            mask: entry.mask,
            id: entry.id,
            cues: entry.cues,
        });
        *gap = Gap::new(false);
    }

    /// The normal form the words were read from.
    pub(super) fn text(&self) -> &[u8] {
        self.text
    }

    /// Whether word `i` is the value of a request header in a command (`-H "X-Deploy-Token:
    /// $TOKEN"`): see [`super::shapes::in_header`].
    pub(super) fn in_header(&self, i: usize) -> bool {
        self.list
            .get(i)
            .is_some_and(|w| super::shapes::in_header(self.text, w.start))
    }

    /// The bytes of word `i`.
    pub(super) fn text_of(&self, i: usize) -> &[u8] {
        self.list
            .get(i)
            .map_or(&[][..], |w| &self.text[w.start..w.end])
    }

    /// The gap before word `i` ends with an opening bracket (`[`, `【`).
    pub(super) fn bracket_before(&self, i: usize) -> bool {
        let before = &self.text[..self.list[i].start];
        let t = before.trim_ascii_end();
        t.ends_with(b"[") || t.ends_with("【".as_bytes())
    }

    /// The gap after word `i` opens with a closing bracket (`]`, `】`, `)`).
    pub(super) fn bracket_after(&self, i: usize) -> bool {
        let after = &self.text[self.list[i].end..];
        let t = after.trim_ascii_start();
        t.starts_with(b"]") || t.starts_with("】".as_bytes()) || t.starts_with(b")")
    }

    /// Word `i` belongs to one of the lists in `bits`.
    pub(super) fn has(&self, i: usize, bits: u64) -> bool {
        self.list.get(i).is_some_and(|w| w.mask & bits != 0)
    }

    pub(super) fn eq(&self, i: usize, word: &str) -> bool {
        let w = &self.list[i];
        self.text[w.start..w.end].eq_ignore_ascii_case(word.as_bytes())
    }

    /// Word `i` continues into word `i + 1` within one phrase.
    pub(super) fn joined(&self, i: usize) -> bool {
        i + 1 < self.list.len() && self.list[i].soft
    }

    /// Word `i` opens a clause: the first word, or one after a clause break or a line break.
    pub(super) fn clause_start(&self, i: usize) -> bool {
        i == 0 || self.list[i - 1].brk || self.list[i].line_start
    }

    /// How many words element `el` matches from word `k` (0 if none).
    pub(super) fn element_at(&self, k: usize, el: &Element) -> usize {
        let id = self.list[k].id;
        if el.any {
            return 1;
        }
        let found = if el.words.binary_search(&id).is_ok() {
            1
        } else {
            el.seqs
                .iter()
                .find(|s| {
                    s.iter().enumerate().all(|(n, &x)| {
                        self.list.get(k + n).is_some_and(|w| w.id == x)
                            && (n == 0 || self.joined(k + n - 1))
                    })
                })
                .map_or(0, Vec::len)
        };
        match (el.negated, found) {
            (true, 0) => 1,
            (true, _) => 0,
            (false, n) => n,
        }
    }
}

/// The first and last words of `pattern` matched from word `i`.
pub(super) fn phrase_at(w: &Words, i: usize, pattern: &Pattern) -> Option<(usize, usize)> {
    let (mut k, mut first, mut last): (usize, Option<usize>, Option<usize>) = (i, None, None);
    let els = &pattern.elements;
    for (e, el) in els.iter().enumerate() {
        if el.anchor != 0 {
            let l = last?;
            let ok = if el.anchor == b'$' {
                w.list[l].brk || !w.joined(l)
            } else {
                w.list[l].next == b':'
            };
            if !ok {
                return None;
            }
            continue;
        }
        let mut n = 0;
        while n < el.max && k < w.list.len() && last.is_none_or(|l| w.joined(l)) {
            // A repeated element or a wildcard stops where the next element can take over.
            if n >= el.min && (el.max > 1 || el.any) && next_matches(w, k, &els[e + 1..]) {
                break;
            }
            let took = w.element_at(k, el);
            if took == 0 {
                break;
            }
            first = first.or(Some(k));
            (last, k, n) = (Some(k + took - 1), k + took, n + 1);
        }
        if n < el.min {
            return None;
        }
    }
    let first = first?;
    if (pattern.line_start && !w.list[first].line_start)
        || (pattern.clause_start && !w.clause_start(first))
    {
        return None;
    }
    Some((first, last?))
}

fn next_matches(w: &Words, k: usize, rest: &[Element]) -> bool {
    for el in rest.iter().filter(|e| e.anchor == 0) {
        if !el.any && !el.negated && w.element_at(k, el) > 0 {
            return true;
        }
        if el.min > 0 {
            return false;
        }
    }
    false
}

/// `weakened-security` (SUSPICIOUS), phrase form: a convention that turns a protection off
/// ("disable CSRF", "skip input validation", "turn off TLS verification", "bypass auth") is what
/// a poisoned memory would plant to make an agent write vulnerable code. Not withheld, because
/// projects do record such decisions (for a test harness, a webhook); flagged so a person
/// confirms them. Negated advice ("never disable CSRF", "don't skip validation", "without
/// turning off TLS verification") stays clean, and the target must follow within four words
/// without a "for / in / when / if …" in between ("skip the slow test for validation" is clean).
pub(super) const WEAKEN: u64 = bit("weaken");
pub(super) const TURN: u64 = bit("turn");
pub(super) const TARGET: u64 = bit("target");
pub(super) const CHECK: u64 = bit("check");
pub(super) const CHECKED: u64 = bit("checked");
pub(super) const STOP: u64 = bit("stop");
pub(super) const NEGATION: u64 = bit("negation");

pub(super) fn weakened_security_at(w: &Words, i: usize) -> Option<usize> {
    let verb_end = if w.has(i, TURN) && w.joined(i) && w.eq(i + 1, "off") {
        i + 1
    } else if w.has(i, WEAKEN) {
        i
    } else {
        return None;
    };
    let negated = (1..=3.min(i))
        .take_while(|&d| !w.list[i - d].brk)
        .any(|d| w.has(i - d, NEGATION));
    if negated {
        return None;
    }
    let mut checked = false;
    for k in verb_end + 1..=verb_end + 4 {
        if !w.joined(k - 1) || w.has(k, STOP) {
            return None;
        }
        checked |= w.has(k, CHECKED);
        if w.has(k, TARGET) || (checked && w.has(k, CHECK)) {
            return Some(k);
        }
    }
    None
}

/// Reports the phrase rules' matches, and returns them (first and last word). A match quoted
/// inside prose or cited ("told the model to …") is `quoted-instruction` instead
/// ([`super::intent::cited_or_quoted`]).
pub(super) fn scan_phrases(w: &Words, out: &mut Sink) -> Vec<(usize, usize)> {
    let v = vocabulary();
    let mut hits = Vec::new();
    let mut cues: Option<Vec<u64>> = None;
    let mut quotes = QuoteCache::default();
    let mut covered = 0; // words up to here are part of a phrase already reported
    for i in 0..w.list.len() {
        let id = w.list[i].id as usize;
        if id != 0 && i >= covered {
            for &p in &v.by_first[id] {
                let pattern = &v.patterns[p as usize];
                if let Some((first, end)) = phrase_at(w, i, pattern) {
                    let cues = cues.get_or_insert_with(|| w.list.iter().map(|x| x.cues).collect());
                    let rule = if cited_or_quoted(w, cues, first, end, &mut quotes) {
                        "quoted-instruction"
                    } else {
                        RULES[usize::from(pattern.rule)].0
                    };
                    out.hit(rule, w.list[first].start, w.list[end].end);
                    hits.push((first, end));
                    covered = end + 1;
                    break;
                }
            }
        }
        if let Some(end) = weakened_security_at(w, i) {
            out.hit("weakened-security", w.list[i].start, w.list[end].end);
        }
    }
    hits
}
