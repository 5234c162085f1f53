//! The word reader every phrase and cue scanner reads: the words of a normal form
//! ([`super::norm`]), each looked up once in the vocabulary ([`super::vocab`]), with what the
//! gap after it holds (a clause or sentence break, a blank line, only soft marks).

use super::norm::{is_cjk, is_word_char};
use super::vocab::{fnv, vocabulary, Entry, Vocabulary, FNV};

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
                        best = (end, Entry::from(slot));
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
}
