//! The phrase patterns of `data/patterns.txt` compiled over the vocabulary's word ids (the
//! syntax is described in [`super::tables`]); `phrases` matches them.

use super::tables::Tables;
use super::*;

/// One element of a compiled phrase pattern (the syntax is described in [`super::tables`]).
#[derive(Clone, serde::Serialize, serde::Deserialize)]
pub(super) struct Element {
    /// One-word alternatives, sorted.
    pub(super) words: Vec<u32>,
    /// Alternatives of several words, longest first.
    pub(super) seqs: Vec<Vec<u32>>,
    pub(super) any: bool,
    /// `$` (end of a clause) or `:` (a colon after the last word); 0 for words.
    pub(super) anchor: u8,
    pub(super) negated: bool,
    pub(super) min: usize,
    pub(super) max: usize,
}

#[derive(Clone, serde::Serialize, serde::Deserialize)]
pub(super) struct Pattern {
    /// Its rule, by index in [`RULES`].
    pub(super) rule: u8,
    pub(super) elements: Vec<Element>,
    /// `^`: the phrase's first word opens its line.
    pub(super) line_start: bool,
    /// `<`: the phrase's first word opens its clause (the imperative position).
    pub(super) clause_start: bool,
}

/// Compiles the phrase patterns of `t` over the word ids `intern` gives (the vocabulary's).
/// Their sets are interned on first use (a set no pattern names adds no words).
pub(super) fn compile(t: &'static Tables, mut intern: impl FnMut(&str) -> u32) -> Vec<Pattern> {
    let mut patterns = Vec::new();
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
                                .map(|alt| alt.split('+').map(&mut intern).collect())
                                .collect();
                            sets.insert(name, alts);
                        }
                        sets[name].clone()
                    }
                    None => vec![alt.split('+').map(&mut intern).collect()],
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
        patterns.push(Pattern {
            rule,
            elements,
            line_start,
            clause_start,
        });
    }
    patterns
}

/// For each word id below `ids`, the patterns whose first word it can be.
pub(super) fn by_first(patterns: &[Pattern], ids: u32) -> Vec<Vec<u16>> {
    let mut by_first = vec![Vec::new(); ids as usize + 1];
    for (p, pattern) in patterns.iter().enumerate() {
        for el in &pattern.elements {
            assert!(
                !el.any && el.anchor == 0 && !el.negated,
                "a pattern must open with words"
            );
            let firsts = el.words.iter().chain(el.seqs.iter().map(|s| &s[0]));
            for &id in firsts {
                if by_first[id as usize].last() != Some(&(p as u16)) {
                    by_first[id as usize].push(p as u16);
                }
            }
            if el.min > 0 {
                break;
            }
        }
    }
    by_first
}
