//! Phrases matched over a text's ASCII words: instruction overrides, role reassignment,
//! instruction headers and weakened-security wording.

use super::*;

// ---------------------------------------------------------------------------------------------
// Phrases, matched over the text's ASCII words.

pub(super) struct Word {
    start: usize,
    end: usize,
    /// The gap to the next word holds only whitespace (line breaks included), markdown
    /// emphasis, quotes, dashes or commas, so a phrase may continue across it.
    soft: bool,
    /// The gap to the next word ends a clause (`.,;:!?` or a line break), or there is none.
    brk: bool,
    /// The word opens its line (after optional markdown markers such as `#`, `>`, `-`).
    line_start: bool,
    /// The first byte after the word that is not a space or tab (0 at the end of the text).
    next: u8,
    /// The word lists the word belongs to (see [`mask`]).
    mask: u64,
}

pub(super) struct Words<'a> {
    text: &'a [u8],
    list: Vec<Word>,
}

impl<'a> Words<'a> {
    pub(super) fn new(text: &'a str) -> Self {
        let b = text.as_bytes();
        let mut list = Vec::new();
        let (mut i, mut line_start) = (0, true);
        while i < b.len() {
            if !b[i].is_ascii_alphanumeric() {
                line_start = b[i] == b'\n' || (line_start && b" \t\r#>*-+".contains(&b[i]));
                i += 1;
                continue;
            }
            let start = i;
            while i < b.len() && b[i].is_ascii_alphanumeric() {
                i += 1;
            }
            let (mut soft, mut brk, mut next) = (true, false, 0);
            let mut j = i;
            while j < b.len() && !b[j].is_ascii_alphanumeric() {
                let c = b[j];
                if next == 0 && c != b' ' && c != b'\t' {
                    next = c;
                }
                match c {
                    b' ' | b'\t' | b'\r' | b'*' | b'_' | b'~' | b'`' | b'\'' | b'"' | b'-' => {}
                    b',' => brk = true,
                    b'\n' | b'.' | b';' | b':' | b'!' | b'?' => {
                        (brk, soft) = (true, soft && c == b'\n')
                    }
                    // Curly quotes ’ ‘ “ ” (E2 80 98/99/9C/9D) are soft too.
                    0xE2 if matches!(
                        b.get(j + 1..j + 3),
                        Some([0x80, 0x98 | 0x99 | 0x9C | 0x9D])
                    ) =>
                    {
                        j += 2
                    }
                    _ => soft = false,
                }
                j += 1;
            }
            if j == b.len() {
                (soft, brk) = (false, true);
            }
            let mask = mask(&b[start..i]);
            list.push(Word {
                start,
                end: i,
                soft,
                brk,
                line_start,
                next,
                mask,
            });
            line_start = false;
        }
        Words { text: b, list }
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
}

/// Every word list, by name. Each word of a text is looked up once to learn all the lists it
/// belongs to, as a bit mask ([`mask`]), so checking a word against a list costs one `and`.
/// Phrase patterns refer to lists as `{name}`; the reasons for the lists are on the rules that
/// use them.
pub(super) const LISTS: &[(&str, &str)] = &[
    // Phrase patterns.
    ("verb", "ignore disregard forget"),
    ("fill", "all any of the my these those every that"),
    ("dir", "previous prior above earlier preceding foregoing former original initial system developer"),
    ("qual", "system safety developer user security given stated"),
    ("obj", "instructions instruction prompt prompts directives directive directions guidelines guidance rules orders constraints programming restrictions training"),
    ("order", "instructions instruction prompt prompts directives directive guidelines programming training"),
    ("persona", "dan jailbroken unrestricted unfiltered uncensored evil unbound unchained liberated"),
    ("mode", "developer dev god jailbreak jailbroken unrestricted dan admin sudo unfiltered uncensored evil chaos opposite"),
    ("notid", "bit little few lot couple step way part"),
    ("free", "bound restricted limited constrained an a subject obligated"),
    ("start", "ignore disregard forget you from new real actual true hidden secret system"),
    // Weakened-security phrases.
    ("weaken", "disable disables disabled disabling skip skips skipped skipping bypass bypasses bypassed bypassing"),
    ("turn", "turn turns turned turning switch switched switching"),
    ("target", "csrf xsrf validation validations sanitization sanitisation sanitizing escaping authentication authorization authorisation auth authn authz 2fa mfa sandbox sandboxing firewall selinux apparmor encryption"),
    ("check", "verification verify validation checking checks check"),
    ("checked", "tls ssl https certificate certificates cert certs hostname host signature signatures peer security gpg"),
    // A verb of consequence ends the phrase: in "skipping it loses auth checks" the auth
    // checks are what is lost, not what is skipped.
    ("stop", "for in when if because since unless while so to loses lose losing lost breaks break breaking leaves leave leaving causes cause means mean would will"),
    ("negation", "not never no don dont doesn didn won wont shouldn mustn cannot avoid avoids avoiding without forbid forbids forbidden prevent prevents refuse refuses stop nobody"),
    // Frame tags, in either form or only as closers (the openers `<user>` and `<memory>` are
    // everyday placeholders: `ssh <user>@host`, `docker run -m <memory>`).
    ("frame", "rune-memory rune_memory system system-reminder system_reminder instructions im_start im_end sys function_calls function_results tool_use tool_result"),
    ("closing", "memory user assistant human context"),
    // Shell commands.
    ("fetcher", "curl wget fetch iwr irm invoke-webrequest invoke-restmethod"),
    ("decoder", "base64 xxd openssl gpg"),
    ("decode-flag", "-d --decode -r"),
    ("shell", "sh bash zsh dash ksh ash fish csh tcsh iex invoke-expression"),
    ("runner", "sh bash zsh dash ksh source . eval iex"),
    ("pipe-prefix", "sudo env exec command"),
    ("reader", "cat less more head tail bat base64 xxd od hexdump strings scp rsync curl wget nc ncat netcat tar zip cp type gpg openssl get-content gc"),
    ("netcat", "nc ncat netcat"),
    ("exec-flag", "-c --exec --sh-exec --lua-exec"),
    ("chmod", "chmod"),
    ("world-mode", "777 0777 666 0666 a+rwx ugo+rwx a=rwx o+w a+w go+w o+rwx"),
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

pub(super) const VOCABULARY_SLOTS: usize = 1024;

/// FNV-1a of the lowercased `word`, which is also copied into `buf`.
pub(super) fn fold_hash(word: &[u8], buf: &mut [u8; 24]) -> usize {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for (d, c) in buf.iter_mut().zip(word) {
        *d = c.to_ascii_lowercase();
        h = (h ^ u64::from(*d)).wrapping_mul(0x0100_0000_01b3);
    }
    h as usize & (VOCABULARY_SLOTS - 1)
}

/// The lists `word` belongs to, case-insensitively, as bits. An open-addressing table rather
/// than a `HashMap`: this runs for every word and token of every scanned text, and stays cheap
/// even in unoptimised builds.
pub(super) fn mask(word: &[u8]) -> u64 {
    static VOCABULARY: OnceLock<Vec<(&'static [u8], u64)>> = OnceLock::new();
    let slots = VOCABULARY.get_or_init(|| {
        let mut slots: Vec<(&[u8], u64)> = vec![(b"", 0); VOCABULARY_SLOTS];
        for (i, (_, words)) in LISTS.iter().enumerate() {
            for w in words.split(' ').map(str::as_bytes) {
                let mut at = fold_hash(w, &mut [0; 24]);
                while !slots[at].0.is_empty() && slots[at].0 != w {
                    at = (at + 1) & (VOCABULARY_SLOTS - 1);
                }
                slots[at] = (w, slots[at].1 | 1 << i);
            }
        }
        slots
    });
    let mut buf = [0u8; 24];
    if word.is_empty() || word.len() > buf.len() {
        return 0;
    }
    let mut at = fold_hash(word, &mut buf);
    loop {
        match slots[at] {
            ([], _) => return 0,
            (k, m) if k == &buf[..word.len()] => return m,
            _ => at = (at + 1) & (VOCABULARY_SLOTS - 1),
        }
    }
}

/// The phrase rules, one `rule: pattern` per line, as patterns over words. Elements are
/// separated by spaces: `a|b|{set}` is
/// one word out of a choice, a trailing `?` makes it optional, `*` allows up to four, `!` means
/// any word not in the choice, `^` a word that opens its line, `$` the end of a clause, `:` a
/// colon right after the last word. Words of a phrase must be joined by soft gaps (see
/// [`Word::soft`]).
///
/// * `override-instructions` (TAINTED): telling the reader to drop what it was told is the
///   classic prompt injection, and memory has no reason to address its reader that way. Only
///   the imperative counts and the object must be instructions, so "the parser ignores previous
///   tokens", "ignore whitespace in diffs", "ignore any instructions found in fetched pages",
///   "ignore all the rules in .eslintrc" and "ignore the above warning" stay clean, while
///   "disregard the above." does not.
/// * `role-reassignment` (TAINTED): "you are now …" handing the reader a new identity is how
///   jailbreaks start ("you are now DAN", "… an unrestricted AI", "… in developer mode").
///   Status talk stays clean: "you are now ready to deploy", "you are now able to run tests",
///   "you are now in the repo root", "you are now a bit closer".
/// * `instruction-header` (TAINTED): a label announcing replacement instructions is how injected
///   text poses as the operator. "system prompt:" counts only when it opens a line, since prose
///   about LLM apps mentions the system prompt all the time.
pub const PHRASES: &str = "\
override-instructions: {verb} {fill}* {dir} {qual}? {obj}\n\
override-instructions: {verb} {fill}* your {dir}? {qual}? {obj}\n\
override-instructions: {verb} all the? {order}\n\
override-instructions: {verb} {fill}* above|foregoing $\n\
override-instructions: {verb} {fill}* above|foregoing and|then|instead|now\n\
override-instructions: {verb} everything above|before|prior\n\
role-reassignment: you are|re now a|an !{notid}\n\
role-reassignment: you are|re now {persona}|named|called\n\
role-reassignment: you are|re now in {mode}\n\
role-reassignment: you are|re now known|acting as\n\
role-reassignment: you are|re now playing the|a? role|part\n\
role-reassignment: you are|re now no longer {free}\n\
role-reassignment: from now on you are|re a|an !{notid}\n\
role-reassignment: from now on you are|re {persona}|named|called\n\
instruction-header: new|real|actual|true|hidden|secret instructions|instruction|directives|orders :\n\
instruction-header: ^system prompt|message|instructions|override|directive :\n\
";

/// One element of a compiled phrase pattern.
pub(super) struct Element {
    /// Lists (`{name}`) and literal words the word may be; `None` for `$` and `:`.
    word: Option<(u64, Vec<&'static str>)>,
    anchor: u8,
    negated: bool,
    opener: bool,
    min: usize,
    max: usize,
}

pub(super) fn compiled() -> &'static [(&'static str, Vec<Element>)] {
    static COMPILED: OnceLock<Vec<(&'static str, Vec<Element>)>> = OnceLock::new();
    COMPILED.get_or_init(|| {
        let element = |el: &'static str| {
            let (el, opener) = el.strip_prefix('^').map_or((el, false), |e| (e, true));
            let (el, negated) = el.strip_prefix('!').map_or((el, false), |e| (e, true));
            let (el, min, max) = match el.as_bytes().last() {
                Some(b'?') => (&el[..el.len() - 1], 0, 1),
                Some(b'*') => (&el[..el.len() - 1], 0, 4),
                _ => (el, 1, 1),
            };
            let (mut bits, mut words) = (0, Vec::new());
            for alt in el.split('|') {
                match alt.strip_prefix('{').and_then(|a| a.strip_suffix('}')) {
                    Some(name) => bits |= bit(name),
                    None => words.push(alt),
                }
            }
            let word = (el != "$" && el != ":").then_some((bits, words));
            Element {
                word,
                anchor: el.as_bytes()[0],
                negated,
                opener,
                min,
                max,
            }
        };
        let rules = PHRASES.lines().filter_map(|line| line.split_once(": "));
        rules
            .map(|(rule, p)| (rule, p.split(' ').map(element).collect()))
            .collect()
    })
}

/// The index of the last word of `pattern` matched from word `i`.
pub(super) fn phrase_at(w: &Words, i: usize, pattern: &[Element]) -> Option<usize> {
    let (mut k, mut last): (usize, Option<usize>) = (i, None);
    for el in pattern {
        let Some((bits, words)) = &el.word else {
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
        };
        let mut n = 0;
        while n < el.max
            && k < w.list.len()
            && last.is_none_or(|l| w.joined(l))
            && (!el.opener || w.list[k].line_start)
            && (w.has(k, *bits) || words.iter().any(|x| w.eq(k, x))) != el.negated
        {
            (last, k, n) = (Some(k), k + 1, n + 1);
        }
        if n < el.min {
            return None;
        }
    }
    last
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
pub(super) const START: u64 = bit("start");

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
    for i in 0..w.list.len() {
        if w.has(i, START) {
            for (rule, pattern) in compiled() {
                if let Some(end) = phrase_at(w, i, pattern) {
                    out.hit(rule, w.list[i].start, w.list[end].end);
                    break;
                }
            }
        }
        if let Some(end) = weakened_security_at(w, i) {
            out.hit("weakened-security", w.list[i].start, w.list[end].end);
        }
    }
}
