//! A reader's verdicts on memory's records (the gate's, as the readers' cache keeps them, and
//! `rune.trustedAuthors`): which it withholds and which it shows marked, and the marking
//! itself, for every reader that renders records into files (the views, the exports, `show`,
//! the MCP view readers).

use std::collections::{HashMap, HashSet};

use super::gate::{gate, marked_record, stored, unstored, Gate, StoredVerdict};
use crate::model::{Kind, Record};

/// Whether `author` (`Name <email>`) is outside `trusted` (`rune.trustedAuthors`: emails,
/// `*@domain` or `Name <email>`; emails compare without case); never when none are set.
pub fn untrusted(trusted: &[String], author: &str) -> bool {
    if trusted.is_empty() {
        return false;
    }
    let email = |s: &str| -> String {
        s.rsplit_once('<')
            .map(|(_, e)| e.trim_end_matches('>'))
            .unwrap_or(s)
            .trim()
            .to_ascii_lowercase()
    };
    let theirs = email(author);
    !trusted.iter().any(|t| {
        let t = email(t);
        match t.strip_prefix('*') {
            Some(domain) => theirs.ends_with(domain),
            None => t == theirs,
        }
    })
}

/// The gate's verdicts on the records of memory a reader shows, as the readers' cache keeps
/// them (`memory::cache::gate`): the ids it withholds, and the rules that marked each
/// SUSPICIOUS one; with `trusted` (`rune.trustedAuthors`) set, a record by anyone else is
/// marked `untrusted-author` too, as `load` marks it.
#[derive(Debug, Default, Clone)]
pub struct Verdicts {
    pub withheld: HashSet<String>,
    pub marked: HashMap<String, StoredVerdict>,
    pub trusted: Vec<String>,
}

impl Verdicts {
    /// Takes in the verdict on `r` (scanned, or known to this process).
    pub fn judge(&mut self, r: &Record) {
        match gate(r) {
            Gate::Withheld => {
                self.withheld.insert(r.id.clone());
            }
            Gate::Suspicious(rules) => {
                self.marked
                    .insert(r.id.clone(), stored(&Gate::Suspicious(rules)));
            }
            Gate::Clean => {}
        }
    }

    /// The verdicts on every record of `kinds` in `state`, scanned (or known to this
    /// process): for states no cache describes (a point in history).
    pub fn of(state: &crate::model::State, kinds: &[Kind]) -> Verdicts {
        let mut out = Verdicts::default();
        (kinds.iter()).for_each(|&k| state.of_kind(k).iter().for_each(|r| out.judge(r)));
        out
    }

    /// Marks the records of `kind` in `state` ([`Verdicts::mark`]); the ids of those it
    /// withholds.
    pub fn gate_kind(&self, state: &mut crate::model::State, kind: Kind) -> HashSet<String> {
        let records = state.of_kind_mut(kind).map_or(&mut [][..], |v| v);
        self.mark_records(records);
        (records.iter())
            .filter(|r| self.withholds(r))
            .map(|r| r.id.clone())
            .collect()
    }

    /// Whether any record may be shown marked.
    pub fn marks(&self) -> bool {
        !self.marked.is_empty() || !self.trusted.is_empty()
    }

    /// Whether the gate withholds `r`.
    pub fn withholds(&self, r: &Record) -> bool {
        self.withheld.contains(&r.id)
    }

    /// Replaces each SUSPICIOUS record in `state` with its marked copy ([`marked_record`],
    /// same id: the view and the withholding look records up by it), so whatever is rendered
    /// from it shows the mark where the record is. Documents too when `documents` (an export);
    /// the view writes a document's bytes as they are (its save compares them with memory).
    pub fn mark(&self, state: &mut crate::model::State, documents: bool) {
        if !self.marks() {
            return;
        }
        for &kind in Kind::ALL {
            if kind != Kind::Document || documents {
                self.mark_records(state.of_kind_mut(kind).map_or(&mut [], |v| v));
            }
        }
    }

    /// `records` as a reader shows them ([`Verdicts::mark`]): borrowed when none is marked.
    pub fn marked<'a>(&self, records: &'a [Record]) -> std::borrow::Cow<'a, [Record]> {
        if !records.iter().any(|r| self.rules(r).is_some()) {
            return std::borrow::Cow::Borrowed(records);
        }
        let mut out = records.to_vec();
        self.mark_records(&mut out);
        std::borrow::Cow::Owned(out)
    }

    /// The rules `r` is shown marked with (`None`: unmarked, or withheld).
    fn rules(&self, r: &Record) -> Option<Vec<&'static str>> {
        if self.withheld.contains(&r.id) {
            return None;
        }
        let mut rules = match self.marked.get(&r.id).copied().and_then(unstored) {
            Some(Gate::Suspicious(rules)) => rules,
            _ => Vec::new(),
        };
        if untrusted(&self.trusted, &r.meta.author) {
            rules.push("untrusted-author");
        }
        (!rules.is_empty()).then_some(rules)
    }

    fn mark_records(&self, records: &mut [Record]) {
        if !self.marks() {
            return;
        }
        for r in records {
            if let Some(rules) = self.rules(r) {
                let id = std::mem::take(&mut r.id);
                *r = marked_record(r, &rules);
                r.id = id;
            }
        }
    }
}
