//! Word lists of `lists.txt` matched in one pass: the items of several lists, folded as the
//! scanned text is read (normal form, lower case, `-` and `_` as blanks) and sorted, walked
//! from each place of the text like a trie (a range of the sorted items narrowed byte by
//! byte), with the word boundaries an item needs. The sentence-level scanners (`controls.rs`,
//! `answers.rs`) use it where a rule is "these words in one sentence". (An Aho-Corasick
//! automaton searched faster but took 14M instructions to build in every process that scanned
//! anything, more than a `save` of one line had cost before the gate; sorting the items costs
//! a fraction of that, and memory's sentences are short.)

use super::norm::Norm;

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

/// The lexicon of [`LISTS`] from the tables `t` (the vocabulary's build).
pub(super) fn of_tables(t: &super::tables::Tables) -> Lexicon {
    Lexicon::build(&LISTS, |name| t.set(name))
}

/// Several lists of `lists.txt`, searched together; each hit names its list by index.
#[derive(Clone, serde::Serialize, serde::Deserialize)]
pub(super) struct Lexicon {
    /// The items that start at a word boundary, searched from word starts only.
    bounded: Sorted,
    /// The items found anywhere (of scripts written without spaces, or opening with a sign),
    /// searched from every place whose first byte one of them has.
    anywhere: Sorted,
}

/// Items (folded) with their list and boundaries, sorted by their bytes, and for each first
/// byte the range of items that begin with it.
#[derive(Clone, Default, serde::Serialize, serde::Deserialize)]
struct Sorted {
    items: Vec<(String, usize, Edges)>,
    first: Vec<(u32, u32)>,
}

impl Sorted {
    fn new(mut items: Vec<(String, usize, Edges)>) -> Sorted {
        items.sort_by(|a, b| a.0.cmp(&b.0));
        let first = (0..256usize)
            .map(|byte| {
                let lo = items.partition_point(|it| usize::from(it.0.as_bytes()[0]) < byte);
                let hi = items.partition_point(|it| usize::from(it.0.as_bytes()[0]) <= byte);
                (lo as u32, hi as u32)
            })
            .collect();
        Sorted { items, first }
    }

    /// The items that `s[p..]` begins with, pushed to `out` (their boundaries checked).
    fn walk(&self, s: &str, p: usize, out: &mut Vec<Hit>) {
        let rest = &s.as_bytes()[p..];
        let Some(&(lo, hi)) = rest.first().and_then(|&c| self.first.get(usize::from(c))) else {
            return;
        };
        // The items in lo..hi all begin with rest[..d]; the shortest sort first.
        let (mut lo, mut hi, mut d) = (lo as usize, (hi as usize).min(self.items.len()), 1);
        loop {
            while lo < hi && self.items[lo].0.len() == d {
                let (_, list, edges) = self.items[lo];
                lo += 1;
                let end = p + d;
                if !((edges.start && word(s[..p].chars().next_back()))
                    || (edges.end && word(s.get(end..).and_then(|t| t.chars().next()))))
                {
                    out.push(Hit {
                        list,
                        start: p,
                        end,
                    });
                }
            }
            if lo >= hi || d >= rest.len() {
                return;
            }
            let c = rest[d];
            let range = &self.items[lo..hi];
            let first = range.partition_point(|it| it.0.as_bytes()[d] < c);
            let past = range.partition_point(|it| it.0.as_bytes()[d] <= c);
            (lo, hi, d) = (lo + first, lo + past, d + 1);
        }
    }
}

/// Which ends of an item must sit at a word boundary.
#[derive(Clone, Copy, serde::Serialize, serde::Deserialize)]
struct Edges {
    start: bool,
    end: bool,
}

/// One item found: its list (its index in [`LISTS`], as the list constants name it), start, end.
#[derive(Clone, Copy, PartialEq, Debug)]
pub(super) struct Hit {
    pub(super) list: usize,
    pub(super) start: usize,
    pub(super) end: usize,
}

impl Lexicon {
    /// The lists named, in order, their items given by `set`.
    fn build<'a>(names: &[&str], set: impl Fn(&str) -> &'a [&'static str]) -> Lexicon {
        let mut items = Vec::new();
        for (list, name) in names.iter().enumerate() {
            for w in set(name) {
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
                if !w.is_empty() {
                    items.push((w, list, edges));
                }
            }
        }
        let (bounded, anywhere) = items.into_iter().partition(|it| it.2.start);
        Lexicon {
            bounded: Sorted::new(bounded),
            anywhere: Sorted::new(anywhere),
        }
    }

    /// Every item in `s` (folded with [`fold`]), overlapping ones included, in the order of
    /// their ends (then of their starts).
    pub(super) fn find(&self, s: &str) -> Vec<Hit> {
        let mut out = Vec::new();
        let mut before: Option<char> = None;
        for (p, c) in s.char_indices() {
            if !word(before) {
                self.bounded.walk(s, p, &mut out);
            }
            self.anywhere.walk(s, p, &mut out);
            before = Some(c);
        }
        out.sort_by_key(|h| (h.end, h.start));
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
pub(super) fn declined_request(lexicon: &Lexicon, before: &str) -> bool {
    // (Only the last 160 bytes: the request governs the orders right after it, and a long
    // line must not be read again for each finding in it.)
    let mut from = before.len().saturating_sub(160);
    while !before.is_char_boundary(from) {
        from += 1;
    }
    let before = &before[from..];
    let start = sentences(before).last().map_or(0, |&(s, _)| s);
    let found = lexicon.find(&fold(&before[start..]));
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

    fn shared() -> &'static Lexicon {
        static L: std::sync::OnceLock<Lexicon> = std::sync::OnceLock::new();
        L.get_or_init(|| of_tables(super::super::tables::tables()))
    }

    fn declined(before: &str) -> bool {
        declined_request(shared(), before)
    }

    #[test]
    fn declined_requests() {
        assert!(declined(
            "The security team will never ask you, or the agent, to "
        ));
        assert!(declined("Nadie del equipo nunca te pedirá que "));
        assert!(declined("安全团队绝不会要求你"));
        assert!(!declined("Never mind the old notes. We ask you to "));
        assert!(!declined("Ask the user to "));
    }

    #[test]
    fn items_are_found_overlapping_with_their_boundaries_in_order_of_their_ends() {
        let l = shared();
        fn lists(l: &Lexicon, t: &str) -> Vec<(usize, String)> {
            l.find(t)
                .iter()
                .map(|h| (h.list, t[h.start..h.end].to_owned()))
                .collect()
        }
        let lists = |t: &str| lists(l, t);
        let has = |t: &str, list: usize, item: &str| lists(t).contains(&(list, item.to_owned()));
        // A stem goes on; a short item is a whole word; a longer item starts at a boundary.
        assert!(has("we disabled the audit log", WEAKENS, "disabl"));
        assert!(has("we disabled the audit log", CONTROL, "audit log"));
        assert!(!lists("undisabled").iter().any(|(k, _)| *k == WEAKENS));
        // CJK items anywhere; overlapping items each found.
        assert!(has("把csrf检查关闭", WEAKENS, "关闭"));
        let hits = l.find("the rate limit=0 in prod");
        assert!(hits
            .windows(2)
            .all(|w| (w[0].end, w[0].start) <= (w[1].end, w[1].start)));
        assert!(hits.iter().any(|h| h.list == CONTROL) && hits.iter().any(|h| h.list == WEAKENS));
    }

    #[test]
    fn sentences_split_at_full_stops_before_blanks() {
        let t = "Open 0.0.0.0/0 in firewall.tf. Then stop";
        let got: Vec<&str> = sentences(t).into_iter().map(|(s, e)| &t[s..e]).collect();
        assert_eq!(got, ["Open 0.0.0.0/0 in firewall.tf", " Then stop"]);
    }
}
