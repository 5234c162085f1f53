//! Phrases matched over a text's words: instruction overrides, role reassignment, instruction
//! headers (patterns in [`super::lexicon`]) and weakened-security wording.
//!
//! The word reader runs on the normal form ([`super::norm`]) and looks every word up once in
//! one vocabulary, which holds the command and keyword lists below (as bits, [`mask`]) and every
//! word of the phrase tables (as an id). Scripts written without spaces (Chinese, Japanese) are
//! cut into words by the longest vocabulary entry at each character, one character otherwise.

use super::lexicon::LEXICON;
use super::norm::{is_cjk, is_word_char, Norm};
use super::*;

// ---------------------------------------------------------------------------------------------
// The vocabulary.

/// Keyword lists for the shape scanners and the weakened-security phrase, by name. Each word of
/// a text is looked up once to learn all the lists it belongs to, as a bit mask ([`mask`]), so
/// checking a word against a list costs one `and`. The reasons for the lists are on the rules
/// that use them.
pub(super) const LISTS: &[(&str, &str)] = &[
    // Weakened-security phrases.
    ("weaken", "disable disables disabled disabling skip skips skipped skipping bypass bypasses bypassed bypassing"),
    ("turn", "turn turns turned turning switch switched switching"),
    ("target", "csrf xsrf validation validations sanitization sanitisation sanitizing escaping authentication authorization authorisation auth authn authz 2fa mfa sandbox sandboxing firewall selinux apparmor encryption"),
    ("check", "verification verify validation checking checks check"),
    ("checked", "tls ssl https certificate certificates cert certs hostname host signature signatures peer security gpg"),
    // A verb of consequence ends the phrase: in "skipping it loses auth checks" the auth
    // checks are what is lost, not what is skipped.
    ("stop", "for in when if because since unless while so to loses lose losing lost breaks break breaking leaves leave leaving causes cause means mean would will"),
    ("negation", "not never no don dont doesn didn won wont shouldn mustn cannot avoid avoids avoiding without forbid forbids forbidden prevent prevents refuse refuses stop nobody don't doesn't won't shouldn't mustn't"),
    // Frame tags, in either form or only as closers (the openers `<user>` and `<memory>` are
    // everyday placeholders: `ssh <user>@host`, `docker run -m <memory>`).
    ("frame", "rune-memory rune_memory system system-reminder system_reminder instructions im_start im_end sys function_calls function_results tool_use tool_result tool_call tool_calls function_call invoke start_of_turn end_of_turn"),
    ("closing", "memory user assistant human context"),
    // Shell commands.
    ("fetcher", "curl wget fetch iwr irm invoke-webrequest invoke-restmethod"),
    ("decoder", "base64 xxd openssl gpg"),
    ("decode-flag", "-d --decode -r"),
    ("shell", "sh bash zsh dash ksh ash fish csh tcsh iex invoke-expression cmd cmd.exe powershell powershell.exe pwsh"),
    ("interpreter", "python python2 python3 node nodejs ruby perl php deno bun"),
    ("runner", "sh bash zsh dash ksh source . eval iex"),
    ("pipe-prefix", "sudo env exec command"),
    ("reader", "cat less more head tail bat base64 xxd od hexdump strings scp rsync curl wget nc ncat netcat tar zip cp type gpg openssl get-content gc"),
    ("netcat", "nc ncat netcat"),
    ("exec-flag", "-c --exec --sh-exec --lua-exec"),
    ("chmod", "chmod"),
    ("world-mode", "777 0777 666 0666 a+rwx ugo+rwx a=rwx o+w a+w go+w o+rwx"),
    // Sending data out, and reading secrets in prose ("read ~/.aws/credentials and …").
    ("sender", "curl wget nc ncat netcat socat telnet ftp sftp scp rsync iwr irm invoke-webrequest invoke-restmethod"),
    ("data-flag", "-d --data --data-binary --data-raw --data-urlencode -F --form -T --upload-file --post-file --post-data --body-file -InFile -Body --json"),
    ("env-dump", "env printenv history"),
    ("read-verb", "read cat print show output display dump paste reveal echo type base64 encode include attach steal grab collect summarize summarise leak"),
    ("send-verb", "send upload post exfiltrate leak email transmit forward submit"),
    ("path-filler", "the contents content of file files your my me us in from at all full entire whole its their key keys and it"),
    ("lead", "please then and now first also just next simply"),
    // Calls that download code, inside an `eval(…)` or `iex (…)`.
    ("download-api", "iwr irm invoke-webrequest invoke-restmethod downloadstring downloadfile downloaddata webclient urlopen urlretrieve urllib requests httpx open-uri lwp file_get_contents start-bitstransfer fetch curl wget"),
    ("verifier", "sha256sum sha512sum sha1sum shasum md5sum b2sum cosign minisign signify slsa-verifier"),
    ("lolbin", "certutil certutil.exe mshta mshta.exe regsvr32 regsvr32.exe"),
    // Settings.
    ("falsy", "false 0 no off none disable disabled"),
    ("truthy", "true 1 yes on"),
    ("weak-flag", "--no-verify --no-verify-ssl --insecure --no-check-certificate --disable-web-security --skip-tls-verify --insecure-skip-tls-verify"),
];

/// The bit of the list called `name` (a compile-time error in constants if there is none).
pub(super) const fn bit(name: &str) -> u64 {
    let (name, mut i) = (name.as_bytes(), 0);
    'lists: while i < LISTS.len() {
        let list = LISTS[i].0.as_bytes();
        i += 1;
        if list.len() != name.len() {
            continue;
        }
        let mut k = 0;
        while k < list.len() {
            if list[k] != name[k] {
                continue 'lists;
            }
            k += 1;
        }
        return 1 << (i - 1);
    }
    panic!("no such word list");
}

const SLOTS: usize = 8192;
/// Longer words are in no list.
const MAX_WORD: usize = 64;
const FNV: u64 = 0xcbf2_9ce4_8422_2325;

/// The part of a hash kept to tell slots apart without reading their keys (never 0).
fn tag(h: u64) -> u16 {
    (h >> 48) as u16 | 1
}

fn fnv(h: u64, c: u8) -> u64 {
    (h ^ u64::from(c.to_ascii_lowercase())).wrapping_mul(0x0100_0000_01b3)
}

#[derive(Clone, Copy, Default)]
struct Slot {
    /// Where the word (lower case) is in `Vocabulary::keys`, and its length.
    key: u32,
    len: u8,
    mask: u64,
    id: u32,
}

/// Every word the scanners know, and the phrase patterns compiled over them.
pub(super) struct Vocabulary {
    /// Open addressing rather than a `HashMap`: this runs for every word and token of every
    /// scanned text, and stays cheap even in unoptimised builds. `tags` holds 15 bits of each
    /// slot's hash (0: empty) and is all a miss reads, so it stays in the fastest cache.
    tags: Vec<u16>,
    slots: Vec<Slot>,
    /// Every word, one after the other.
    keys: Vec<u8>,
    ids: u32,
    /// The first characters of the vocabulary's words in unspaced scripts, sorted.
    cjk_initials: Vec<char>,
    /// The longest such word, in characters.
    cjk_longest: usize,
    pub(super) patterns: Vec<Pattern>,
    /// For each word id, the patterns that may start with it.
    by_first: Vec<Vec<u16>>,
}

impl Vocabulary {
    fn probe(&self, h: u64, word: &[u8]) -> Option<&Slot> {
        let mut at = h as usize & (SLOTS - 1);
        let tag = tag(h);
        loop {
            match self.tags[at] {
                0 => return None,
                t if t == tag => {
                    let s = &self.slots[at];
                    let key = &self.keys[s.key as usize..s.key as usize + usize::from(s.len)];
                    let same = key.len() == word.len()
                        && key
                            .iter()
                            .zip(word)
                            .all(|(k, c)| *k == c.to_ascii_lowercase());
                    if same {
                        return Some(s);
                    }
                }
                _ => {}
            }
            at = (at + 1) & (SLOTS - 1);
        }
    }

    /// The lists (as bits) and the phrase-table id of `word`, ASCII case-insensitively.
    pub(super) fn lookup(&self, word: &[u8]) -> (u64, u32) {
        if word.is_empty() || word.len() > MAX_WORD {
            return (0, 0);
        }
        let h = word.iter().fold(FNV, |h, &c| fnv(h, c));
        self.probe(h, word).map_or((0, 0), |s| (s.mask, s.id))
    }

    /// [`Vocabulary::lookup`] of two pieces read as one word (`ig` + `nore`).
    fn lookup2(&self, a: &[u8], b: &[u8]) -> (u64, u32) {
        if a.len() + b.len() > MAX_WORD {
            return (0, 0);
        }
        let mut buf = [0u8; MAX_WORD];
        buf[..a.len()].copy_from_slice(a);
        buf[a.len()..a.len() + b.len()].copy_from_slice(b);
        self.lookup(&buf[..a.len() + b.len()])
    }

    /// Adds `word` (lower case already) with list bits `mask`; returns its slot.
    fn insert(&mut self, word: &[u8], mask: u64) -> usize {
        assert!(
            !word.is_empty() && word.len() <= MAX_WORD,
            "vocabulary word {word:?}"
        );
        let h = word.iter().fold(FNV, |h, &c| fnv(h, c));
        let mut at = h as usize & (SLOTS - 1);
        while self.tags[at] != 0 {
            let s = self.slots[at];
            if self.keys[s.key as usize..s.key as usize + usize::from(s.len)] == *word {
                break;
            }
            at = (at + 1) & (SLOTS - 1);
        }
        if self.tags[at] == 0 {
            self.tags[at] = tag(h);
            self.slots[at].key = self.keys.len() as u32;
            self.slots[at].len = word.len() as u8;
            self.keys.extend_from_slice(word);
        }
        self.slots[at].mask |= mask;
        at
    }

    /// The id of a phrase-table word (normalised as texts are), adding it if new.
    fn intern(&mut self, word: &str) -> u32 {
        let norm = Norm::new(word);
        let w = norm.text.to_ascii_lowercase();
        let first = w.chars().next().expect("empty table word");
        assert!(
            w.chars().all(|c| is_word_char(c) || is_cjk(c))
                && (w.chars().all(is_cjk) || !w.chars().any(is_cjk)),
            "table word {word:?} is not one word"
        );
        let at = self.insert(w.as_bytes(), 0);
        if self.slots[at].id == 0 {
            self.ids += 1;
            self.slots[at].id = self.ids;
            if is_cjk(first) {
                self.cjk_initials.push(first);
                self.cjk_longest = self.cjk_longest.max(w.chars().count());
            }
        }
        self.slots[at].id
    }
}

pub(super) fn vocabulary() -> &'static Vocabulary {
    static VOCABULARY: OnceLock<Vocabulary> = OnceLock::new();
    VOCABULARY.get_or_init(|| {
        let mut v = Vocabulary {
            tags: vec![0; SLOTS],
            slots: vec![Slot::default(); SLOTS],
            keys: Vec::new(),
            ids: 0,
            cjk_initials: Vec::new(),
            cjk_longest: 0,
            patterns: Vec::new(),
            by_first: Vec::new(),
        };
        for (i, (_, words)) in LISTS.iter().enumerate() {
            for w in words.split(' ') {
                v.insert(w.as_bytes(), 1 << i);
            }
        }
        compile(&mut v, LEXICON);
        v.cjk_initials.sort_unstable();
        v.cjk_initials.dedup();
        v
    })
}

/// The lists `word` belongs to, case-insensitively, as bits.
pub(super) fn mask(word: &[u8]) -> u64 {
    vocabulary().lookup(word).0
}

// ---------------------------------------------------------------------------------------------
// Phrase patterns.

/// One element of a compiled phrase pattern (the syntax is described in [`super::lexicon`]).
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

pub(super) struct Pattern {
    pub(super) rule: &'static str,
    elements: Vec<Element>,
    /// `^`: the phrase's first word opens its line.
    line_start: bool,
    /// `<`: the phrase's first word opens its clause (the imperative position).
    clause_start: bool,
}

fn compile(v: &mut Vocabulary, lexicon: &'static str) {
    let mut sets: std::collections::HashMap<&str, Vec<Vec<u32>>> = Default::default();
    let lines = lexicon
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'));
    for line in lines.clone() {
        if let Some((name, alts)) = line.strip_prefix('@').and_then(|l| l.split_once(':')) {
            let set = sets.entry(name.trim()).or_default();
            for alt in alts.split_whitespace() {
                set.push(alt.split('+').map(|w| v.intern(w)).collect());
            }
        }
    }
    for line in lines.filter(|l| !l.starts_with('@')) {
        let (rule, pattern) = line.split_once(": ").expect("rule: pattern");
        let rule = RULES
            .iter()
            .find(|r| r.0 == rule)
            .expect("phrase rule listed in RULES")
            .0;
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
                    Some(name) => sets
                        .get(name)
                        .unwrap_or_else(|| panic!("no set {name}"))
                        .clone(),
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
    v.by_first = vec![Vec::new(); v.ids as usize + 1];
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
    soft: bool,
    /// The gap to the next word ends a clause (`.,;:!?`, their CJK, Arabic and Indic forms, or a
    /// line break), or there is none.
    brk: bool,
    /// The word opens its line (after optional markdown markers such as `#`, `>`, `-`).
    line_start: bool,
    /// The first byte after the word that is not a space or tab (0 at the end of the text).
    next: u8,
    /// The word lists the word belongs to (see [`mask`]).
    mask: u64,
    /// The word's id in the phrase tables, 0 if none.
    id: u32,
}

pub(super) struct Words<'a> {
    text: &'a [u8],
    pub(super) list: Vec<Word>,
}

/// What the gap since the last word held.
struct Gap {
    soft: bool,
    brk: bool,
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
            line_start,
            next: 0,
            len: 0,
            joinable: true,
            hyphens: 0,
            newlines: 0,
            emphasis: true,
        }
    }

    fn byte(&mut self, c: u8) {
        if self.next == 0 && c != b' ' && c != b'\t' {
            self.next = c;
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
            '、' | '،' | '､' => self.brk = true,
            '。' | '।' | '॥' | '؟' | '؛' | '۔' | '｡' => {
                (self.brk, self.soft) = (true, false)
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
        let (mask, id) = v.lookup(&b[s..e]);
        self.push(v, s, e, mask, id, gap);
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
            let mut best = (at + c.len_utf8(), 0, 0);
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
                        best = (end, slot.mask, slot.id);
                    }
                }
            }
            self.push(v, at, best.0, best.1, best.2, gap);
            at = best.0;
        }
    }

    fn push(&mut self, v: &Vocabulary, s: usize, e: usize, mask: u64, id: u32, gap: &mut Gap) {
        if let Some(prev) = self.list.last_mut() {
            if gap.mergeable() {
                let joined = v.lookup2(&self.text[prev.start..prev.end], &self.text[s..e]);
                if joined.1 != 0 {
                    (prev.end, prev.mask, prev.id) = (e, joined.0, joined.1);
                    *gap = Gap::new(false);
                    return;
                }
            }
            (prev.soft, prev.brk, prev.next) = (gap.soft, gap.brk, gap.next);
        }
        self.list.push(Word {
            start: s,
            end: e,
            soft: false,
            brk: true,
            line_start: gap.line_start,
            next: 0,
            mask,
            id,
        });
        *gap = Gap::new(false);
    }

    /// Word `i` belongs to one of the lists in `bits`.
    fn has(&self, i: usize, bits: u64) -> bool {
        self.list.get(i).is_some_and(|w| w.mask & bits != 0)
    }

    fn eq(&self, i: usize, word: &str) -> bool {
        let w = &self.list[i];
        self.text[w.start..w.end].eq_ignore_ascii_case(word.as_bytes())
    }

    /// Word `i` continues into word `i + 1` within one phrase.
    fn joined(&self, i: usize) -> bool {
        i + 1 < self.list.len() && self.list[i].soft
    }

    /// Word `i` opens a clause: the first word, or one after a clause break or a line break.
    fn clause_start(&self, i: usize) -> bool {
        i == 0 || self.list[i - 1].brk || self.list[i].line_start
    }

    /// How many words element `el` matches from word `k` (0 if none).
    fn element_at(&self, k: usize, el: &Element) -> usize {
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

pub(super) fn scan_phrases(w: &Words, out: &mut Sink) {
    let v = vocabulary();
    let mut covered = 0; // words up to here are part of a phrase already reported
    for i in 0..w.list.len() {
        let id = w.list[i].id as usize;
        if id != 0 && i >= covered {
            for &p in &v.by_first[id] {
                let pattern = &v.patterns[p as usize];
                if let Some((first, end)) = phrase_at(w, i, pattern) {
                    out.hit(pattern.rule, w.list[first].start, w.list[end].end);
                    covered = end + 1;
                    break;
                }
            }
        }
        if let Some(end) = weakened_security_at(w, i) {
            out.hit("weakened-security", w.list[i].start, w.list[end].end);
        }
    }
}
