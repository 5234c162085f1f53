//! The Echo Score and the seed's pruning rules, pure: everything here is a function of the
//! folded echoes, their references and the date it is computed for, so two clones (and two
//! runs on a pinned date) agree.
//!
//! Echo Score = 0.4·Importance + 0.3·Relevance + 0.3·Recency, where Importance is the layer's
//! weight (etched 1.0, inscribed 0.7, traced 0.3); Relevance the distinct workflows that
//! referenced the entry in the last 90 days over the distinct workflows that referenced any
//! entry of its role in that window (0 when none did); Recency 1 − days since `verified` /
//! the layer's max age (90 days inscribed, 30 traced), floored at 0. Etched entries score 1.0.

use std::collections::{HashMap, HashSet};

use chrono::NaiveDate;

use crate::model::echo::{self, ETCHED, INSCRIBED, OBSERVATIONS, TRACED};
use crate::model::kinds::{Echo, EchoRef};
use crate::model::{Body, Record};

/// The window Relevance counts workflows in, in days.
pub const RELEVANCE_DAYS: i64 = 90;
/// A role's MEMORY.md longer than this many lines is pruned.
pub const MAX_LINES: usize = 150;
/// Inscribed entries below this score, unreferenced for 90 days, are archived.
pub const INSCRIBED_FLOOR: f64 = 0.3;
/// Traced entries below this score, older than 30 days, are archived.
pub const TRACED_FLOOR: f64 = 0.2;

/// The references of every entry: workflow and day, per uid; and per role the workflows seen.
#[derive(Debug, Default)]
pub struct Refs {
    by_uid: HashMap<String, Vec<(String, NaiveDate)>>,
}

fn day(s: &str) -> Option<NaiveDate> {
    NaiveDate::parse_from_str(s.get(..10)?, "%Y-%m-%d").ok()
}

impl Refs {
    /// Indexes `echo-ref` records (their day is their time's).
    pub fn new(refs: &[Record]) -> Refs {
        Refs::of(refs.iter().filter_map(|r| match &r.body {
            Body::EchoRef(EchoRef { uid, workflow }) => {
                Some((uid.as_str(), workflow.as_str(), &*r.meta.ts))
            }
            _ => None,
        }))
    }

    /// Indexes references given as (uid, workflow, time).
    pub fn of<'r>(refs: impl IntoIterator<Item = (&'r str, &'r str, &'r str)>) -> Refs {
        let mut by_uid: HashMap<String, Vec<(String, NaiveDate)>> = HashMap::new();
        for (uid, workflow, ts) in refs {
            if let Some(d) = day(ts) {
                by_uid
                    .entry(uid.to_owned())
                    .or_default()
                    .push((workflow.to_owned(), d));
            }
        }
        Refs { by_uid }
    }

    /// Distinct workflows that referenced `uid` (ever).
    pub fn sessions(&self, uid: &str) -> usize {
        self.by_uid
            .get(uid)
            .map(|v| v.iter().map(|(w, _)| w).collect::<HashSet<_>>().len())
            .unwrap_or(0)
    }

    /// The day `uid` was last referenced.
    pub fn last(&self, uid: &str) -> Option<NaiveDate> {
        self.by_uid.get(uid)?.iter().map(|(_, d)| *d).max()
    }

    fn recent<'a>(&'a self, uid: &str, today: NaiveDate) -> HashSet<&'a str> {
        self.by_uid
            .get(uid)
            .map(|v| {
                v.iter()
                    .filter(|(_, d)| (today - *d).num_days() <= RELEVANCE_DAYS)
                    .map(|(w, _)| w.as_str())
                    .collect()
            })
            .unwrap_or_default()
    }
}

/// Scores entries of one set of echoes against a day.
pub struct Scorer<'a> {
    refs: Refs,
    /// Per role, the distinct workflows of the window.
    workflows: HashMap<&'a str, usize>,
    today: NaiveDate,
}

/// The parts of an entry's score.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub struct Score {
    pub importance: f64,
    pub relevance: f64,
    pub recency: f64,
    pub total: f64,
    /// Distinct workflows that ever referenced the entry.
    pub references: usize,
}

impl<'a> Scorer<'a> {
    /// A scorer for `echoes` (the fold's) with their `refs`, on `today` (`YYYY-MM-DD`).
    pub fn new(echoes: &'a [Record], refs: &[Record], today: NaiveDate) -> Scorer<'a> {
        let entries = echoes
            .iter()
            .filter_map(|r| Echo::of(&r.body).map(|e| (e.role.as_str(), e.uid.as_str())));
        Scorer::of(entries, Refs::new(refs), today)
    }

    /// A scorer for entries given as (role, uid) (those no reference names may be left out)
    /// with their references, on `today`.
    pub fn of<'u>(
        entries: impl IntoIterator<Item = (&'a str, &'u str)>,
        refs: Refs,
        today: NaiveDate,
    ) -> Scorer<'a> {
        let mut per_role: HashMap<&'a str, HashSet<String>> = HashMap::new();
        for (role, uid) in entries {
            let set = per_role.entry(role).or_default();
            set.extend(refs.recent(uid, today).into_iter().map(str::to_owned));
        }
        Scorer {
            refs,
            workflows: per_role.into_iter().map(|(k, v)| (k, v.len())).collect(),
            today,
        }
    }

    /// Days from `date` (`YYYY-MM-DD`) to today (0 for an unreadable or future date).
    pub fn days_since(&self, date: &str) -> i64 {
        day(date).map_or(0, |d| (self.today - d).num_days().max(0))
    }

    /// The Echo Score of one entry.
    pub fn score(&self, r: &Record) -> Score {
        Echo::of(&r.body).map_or_else(Score::default, |e| {
            self.score_of(&e.role, &e.uid, &e.layer, &e.verified)
        })
    }

    /// The Echo Score of the entry `uid` of `role`, of `layer`, verified on `verified`.
    pub fn score_of(&self, role: &str, uid: &str, layer: &str, verified: &str) -> Score {
        let importance = echo::importance(layer);
        let total_wf = self.workflows.get(role).copied().unwrap_or(0);
        let relevance = if total_wf == 0 {
            0.0
        } else {
            self.refs.recent(uid, self.today).len() as f64 / total_wf as f64
        };
        let recency = match echo::max_age_days(layer) {
            None => 1.0,
            Some(max) => (1.0 - self.days_since(verified) as f64 / max as f64).max(0.0),
        };
        let total = if layer == ETCHED {
            1.0
        } else {
            0.4 * importance + 0.3 * relevance + 0.3 * recency
        };
        Score {
            importance,
            relevance,
            recency,
            total,
            references: self.refs.sessions(uid),
        }
    }

    /// Whether the seed's rules archive this entry when its role is pruned: never etched;
    /// inscribed below 0.3 and unreferenced for more than 90 days (since its last reference,
    /// or since `verified` when it has none); traced below 0.2 and verified more than 30 days
    /// ago.
    pub fn prunable(&self, r: &Record) -> bool {
        let Some(e) = Echo::of(&r.body).filter(|e| !e.archived) else {
            return false;
        };
        if !e.members.is_empty() {
            return false;
        }
        let s = self.score(r).total;
        match e.layer.as_str() {
            INSCRIBED => {
                let since_ref = self
                    .refs
                    .last(&e.uid)
                    .map(|d| (self.today - d).num_days())
                    .unwrap_or_else(|| self.days_since(&e.verified));
                s < INSCRIBED_FLOOR && since_ref > 90 && self.days_since(&e.verified) > 90
            }
            TRACED => s < TRACED_FLOOR && self.days_since(&e.verified) > 30,
            // The plugin's rule: observations not accessed (referenced or confirmed) for 60
            // days go; notes are the user's and never go by themselves.
            OBSERVATIONS => {
                let since = self
                    .refs
                    .last(&e.uid)
                    .map(|d| (self.today - d).num_days())
                    .unwrap_or_else(|| self.days_since(&e.verified))
                    .min(self.days_since(&e.verified));
                since > 60
            }
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::testing::{echo, meta};
    use crate::model::{fold, Record};

    fn today() -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 6, 1).unwrap()
    }

    fn with_layer(mut r: Record, layer: &str) -> Record {
        if let Body::Echo(Echo { layer: l, .. }) = &mut r.body {
            *l = layer.into();
        }
        Record::new(r.meta, r.body)
    }

    fn reference(clock: u64, r: &Record, workflow: &str, ts: &str) -> Record {
        let Body::Echo(Echo { uid, .. }) = &r.body else {
            panic!()
        };
        let mut m = meta(clock, &[]);
        m.ts = ts.into();
        Record::new(
            m,
            Body::EchoRef(EchoRef {
                uid: uid.clone(),
                workflow: workflow.into(),
            }),
        )
    }

    #[test]
    fn the_seeds_formula() {
        let fresh = echo(1, "reviewer", "Pattern: A", "2026-06-01", 0.9);
        let old = echo(2, "reviewer", "Pattern: B", "2026-01-01", 0.9);
        let traced = with_layer(
            echo(3, "reviewer", "Observation: C", "2026-05-17", 0.5),
            "traced",
        );
        let etched = with_layer(
            echo(4, "reviewer", "Architecture: D", "2020-01-01", 1.0),
            "etched",
        );
        let refs = vec![
            reference(5, &fresh, "w1", "2026-05-30T00:00:00Z"),
            reference(6, &fresh, "w2", "2026-05-31T00:00:00Z"),
            reference(7, &old, "w2", "2026-05-31T00:00:00Z"),
            reference(8, &old, "w0", "2025-01-01T00:00:00Z"),
        ];
        let st = fold(&[fresh.clone(), old.clone(), traced.clone(), etched.clone()]);
        let sc = Scorer::new(&st.echoes, &refs, today());
        let s = sc.score(&fresh);
        assert_eq!((s.importance, s.relevance, s.recency), (0.7, 1.0, 1.0));
        assert!((s.total - (0.28 + 0.3 + 0.3)).abs() < 1e-9);
        let s = sc.score(&old);
        assert_eq!(s.relevance, 0.5);
        assert_eq!(s.recency, 0.0);
        let s = sc.score(&traced);
        assert!((s.recency - 0.5).abs() < 1e-9, "{s:?}");
        assert_eq!(sc.score(&etched).total, 1.0);
        assert!(!sc.prunable(&etched));
        assert_eq!(sc.score(&old).references, 2);
    }

    #[test]
    fn pruning_rules() {
        let stale = echo(1, "r", "Pattern: stale", "2026-01-01", 0.5);
        let recent_ref = echo(2, "r", "Pattern: used", "2026-01-01", 0.5);
        let young = echo(3, "r", "Pattern: young", "2026-05-01", 0.5);
        let traced_old = with_layer(
            echo(4, "r", "Observation: old", "2026-04-01", 0.5),
            "traced",
        );
        let traced_new = with_layer(
            echo(5, "r", "Observation: new", "2026-05-25", 0.5),
            "traced",
        );
        let refs = vec![reference(6, &recent_ref, "w", "2026-05-01T00:00:00Z")];
        let all = [
            stale.clone(),
            recent_ref.clone(),
            young.clone(),
            traced_old.clone(),
            traced_new.clone(),
        ];
        let st = fold(&all);
        let sc = Scorer::new(&st.echoes, &refs, today());
        assert!(sc.prunable(&stale));
        assert!(!sc.prunable(&recent_ref));
        assert!(!sc.prunable(&young));
        assert!(sc.prunable(&traced_old));
        assert!(!sc.prunable(&traced_new));
    }
}
