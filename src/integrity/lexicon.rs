//! Word lists of `lists.txt` matched in one pass: an Aho-Corasick automaton over several
//! lists, each item folded as the scanned text is read (normal form, lower case, `-` and `_`
//! as blanks), with the word boundaries an item needs. The sentence-level scanners
//! (`controls.rs`, `answers.rs`) use it where a rule is "these words in one sentence".

use super::norm::Norm;
use super::tables::sets;
use aho_corasick::AhoCorasick;

/// The lists every sentence scanner reads, in the order of the list constants below: one
/// automaton for all of them, built once per process (its build is most of what the first
/// scan of a process costs).
const LISTS: [&str; 11] = [
    "controls",
    "weakens",
    "weak-alone",
    "weak-negations",
    "weak-consequences",
    "if-asked",
    "answer-cues",
    "reports",
    "omits",
    "public-reports",
    "requests",
];
pub(super) const CONTROL: usize = 0;
pub(super) const WEAKENS: usize = 1;
pub(super) const ALONE: usize = 2;
pub(super) const NEGATION: usize = 3;
pub(super) const CONSEQUENCE: usize = 4;
pub(super) const IF_ASKED: usize = 5;
pub(super) const ANSWER: usize = 6;
pub(super) const REPORT: usize = 7;
pub(super) const OMIT: usize = 8;
pub(super) const PUBLIC: usize = 9;
pub(super) const REQUEST: usize = 10;

/// The one lexicon of [`LISTS`].
pub(super) fn shared() -> &'static Lexicon {
    static LEXICON: std::sync::OnceLock<Lexicon> = std::sync::OnceLock::new();
    LEXICON.get_or_init(|| Lexicon::new(&LISTS))
}

/// Several lists of `lists.txt` in one automaton; each hit names its list by index.
pub(super) struct Lexicon {
    ac: AhoCorasick,
    /// Each pattern's list, byte length and boundaries.
    items: Vec<(usize, usize, Edges)>,
}

/// Which ends of an item must sit at a word boundary.
#[derive(Clone, Copy)]
struct Edges {
    start: bool,
    end: bool,
}

/// One item found: its list (the index in the names given to [`Lexicon::new`]), start, end.
#[derive(Clone, Copy, PartialEq, Debug)]
pub(super) struct Hit {
    pub(super) list: usize,
    pub(super) start: usize,
    pub(super) end: usize,
}

impl Lexicon {
    /// The lists named, in order.
    pub(super) fn new(names: &[&str]) -> Lexicon {
        let mut patterns = Vec::new();
        let mut items = Vec::new();
        for (list, name) in names.iter().enumerate() {
            for w in sets().set(name) {
                let w = fold(&Norm::new(w).text);
                // A stem goes on ("disabl" finds "disabled"); an item under four bytes is a
                // whole word ("off", "2fa"); an item that starts or ends with a sign ("=0",
                // "0.0.0.0/0") needs no boundary there; an item of a script written without
                // spaces (CJK, kana, hangul) is found anywhere.
                let unspaced = w.chars().all(|c| c as u32 >= 0x3000);
                let edges = Edges {
                    start: !unspaced && word(w.chars().next()),
                    end: !unspaced && w.len() < 4 && word(w.chars().next_back()),
                };
                items.push((list, w.len(), edges));
                patterns.push(w);
            }
        }
        // The noncontiguous NFA: built once per process for a few sentences, its build is
        // what costs (a contiguous NFA or a DFA is converted from it, for faster searches of
        // long texts than memory holds).
        let ac = AhoCorasick::builder()
            .kind(Some(aho_corasick::AhoCorasickKind::NoncontiguousNFA))
            .prefilter(false)
            .build(&patterns)
            .expect("the integrity lists build an automaton");
        Lexicon { ac, items }
    }

    /// Every item in `s` (folded with [`fold`]), overlapping ones included, in order.
    pub(super) fn find(&self, s: &str) -> Vec<Hit> {
        let mut out = Vec::new();
        for m in self.ac.find_overlapping_iter(s) {
            let (list, len, edges) = self.items[m.pattern().as_usize()];
            let start = m.start();
            if (edges.start && word(s[..start].chars().next_back()))
                || (edges.end && word(s[start + len..].chars().next()))
            {
                continue;
            }
            out.push(Hit {
                list,
                start,
                end: start + len,
            });
        }
        out
    }
}

fn word(c: Option<char>) -> bool {
    c.is_some_and(char::is_alphanumeric)
}

/// Whether the sentence that `before` ends in (the text up to a finding) has declined to ask
/// for what follows: a negation (`@weak-negations`) followed within 24 bytes by a request
/// verb (`@requests`), in the last 160 bytes: "we will never ask you to …", "nunca te pedirá
/// que …", "绝不会要求你 …".
/// A policy that lists what no one will ask for describes those orders; it does not give them.
pub(super) fn declined_request(before: &str) -> bool {
    // (Only the last 160 bytes: the request governs the orders right after it, and a long
    // line must not be read again for each finding in it.)
    let mut from = before.len().saturating_sub(160);
    while !before.is_char_boundary(from) {
        from += 1;
    }
    let before = &before[from..];
    let start = sentences(before).last().map_or(0, |&(s, _)| s);
    let found = shared().find(&fold(&before[start..]));
    found.iter().any(|n| {
        n.list == NEGATION
            && found
                .iter()
                .any(|r| r.list == REQUEST && r.start >= n.end && r.start <= n.end + 24)
    })
}

/// Lower case, with `-` and `_` read as blanks ("audit_log", "rate-limit").
pub(super) fn fold(s: &str) -> String {
    s.to_lowercase().replace(['_', '-'], " ")
}

/// The sentences of `text` (start, end): split at line breaks, `! ? 。 ！ ？`, and a full stop
/// before a blank or the end (not the dots of `firewall.tf` or `0.0.0.0/0`).
pub(super) fn sentences(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let ends = match c {
            '\n' | '!' | '?' | '\u{3002}' | '\u{FF01}' | '\u{FF1F}' => true,
            '.' => chars.peek().is_none_or(|&(_, n)| n.is_whitespace()),
            _ => false,
        };
        if ends {
            if i > start {
                out.push((start, i));
            }
            start = i + c.len_utf8();
        }
    }
    if text.len() > start {
        out.push((start, text.len()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declined_requests() {
        assert!(declined_request(
            "The security team will never ask you, or the agent, to "
        ));
        assert!(declined_request("Nadie del equipo nunca te pedirá que "));
        assert!(declined_request("安全团队绝不会要求你"));
        assert!(!declined_request(
            "Never mind the old notes. We ask you to "
        ));
        assert!(!declined_request("Ask the user to "));
    }

    #[test]
    fn sentences_split_at_full_stops_before_blanks() {
        let t = "Open 0.0.0.0/0 in firewall.tf. Then stop";
        let got: Vec<&str> = sentences(t).into_iter().map(|(s, e)| &t[s..e]).collect();
        assert_eq!(got, ["Open 0.0.0.0/0 in firewall.tf", " Then stop"]);
    }
}
