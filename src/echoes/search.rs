//! `echo search` from the cached index of the echoes (`memory::cache::echo_index`): the same ranking
//! as [`super::search`] over the whole fold (BM25 relevance weighted by the Echo Score, ties
//! newest `verified` first, then uid), reading one compact file and tokenizing only the
//! query; only the hits returned are decoded into records.

use anyhow::Result;
use chrono::NaiveDate;

use super::score::{Refs, Score, Scorer};
use crate::memory::cache::echo_index::{self, EchoIndex};
use crate::model::{decode_line, Record};
use crate::store::Store;

/// One search result, its record decoded.
#[derive(Debug)]
pub struct Hit {
    pub record: Record,
    /// BM25 relevance to the query.
    pub relevance: f32,
    pub score: Score,
}

/// A ranked entry of an index: (document, relevance, score, rank).
pub type Ranked = (usize, f32, Score, f64);

/// The active entries (of `role`, when given) of `index` matching `query`, best first, on
/// `today`.
pub fn ranked(index: &EchoIndex, query: &str, role: Option<&str>, today: NaiveDate) -> Vec<Ranked> {
    let docs = &index.docs;
    let hits = index
        .text
        .search(query, |i| role.is_none_or(|r| docs[i].role == r));
    if hits.is_empty() {
        return Vec::new();
    }
    let refs = Refs::of(
        index
            .refs
            .iter()
            .map(|r| (r.uid.as_str(), r.workflow.as_str(), r.ts.as_str())),
    );
    let entries = index
        .referenced
        .iter()
        .map(|(role, uid)| (role.as_str(), uid.as_str()));
    let scorer = Scorer::of(entries, refs, today);
    let mut found: Vec<Ranked> = hits
        .into_iter()
        .map(|(i, relevance)| {
            let d = &docs[i];
            let score = scorer.score_of(&d.role, &d.uid, &d.layer, &d.verified);
            (
                i,
                relevance,
                score,
                relevance as f64 * (0.5 + 0.5 * score.total),
            )
        })
        .collect();
    found.sort_by(|a, b| {
        let (x, y) = (&docs[a.0], &docs[b.0]);
        b.3.total_cmp(&a.3)
            .then_with(|| y.verified.cmp(&x.verified))
            .then_with(|| x.uid.cmp(&y.uid))
    });
    found
}

/// The `limit` best entries (of `role`, when given) of memory now matching `query`.
pub fn search(store: &Store, query: &str, role: Option<&str>, limit: usize) -> Result<Vec<Hit>> {
    let index = echo_index::current(store, false)?;
    if let Some(hits) = decoded(&index, query, role, limit) {
        return Ok(hits);
    }
    // A stored line that does not decode: the file is damaged. Make it again from the fold.
    let index = echo_index::current(store, true)?;
    decoded(&index, query, role, limit)
        .ok_or_else(|| anyhow::anyhow!("cannot read the echoes of memory back"))
}

fn decoded(index: &EchoIndex, query: &str, role: Option<&str>, limit: usize) -> Option<Vec<Hit>> {
    ranked(index, query, role, super::today())
        .into_iter()
        .take(limit)
        .map(|(i, relevance, score, _)| {
            Some(Hit {
                record: decode_line(&index.docs[i].line).ok()?,
                relevance,
                score,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::kinds::{Echo, EchoRef};
    use crate::model::testing::meta;
    use crate::model::{echo, Body, Meta, State};

    /// 300 entries of 3 roles and layers, some archived, with references in and out of the
    /// Relevance window, and equal ranks (duplicated texts) that only `verified` and the uid
    /// order.
    fn state() -> State {
        let mut state = State::default();
        let topics = [
            "query cache",
            "import retry",
            "index module",
            "cache misses",
        ];
        for i in 0..300u64 {
            let role = ["reviewer", "planner", "team"][i as usize % 3];
            let layer = [echo::ETCHED, echo::INSCRIBED, echo::TRACED][(i as usize / 3) % 3];
            let verified = format!("2026-0{}-{:02}", 4 + i % 3, 1 + i % 28);
            let title = format!("Pattern: {} finding {}", topics[i as usize % 4], i % 40);
            let evidence = format!("`src/{}/m{}.rs:{i}`", topics[i as usize % 4], i % 9);
            let body = Body::Echo(Echo {
                uid: echo::uid_for(role, &title, &evidence),
                role: role.into(),
                layer: layer.into(),
                date: verified.clone(),
                title,
                source: "manual".into(),
                confidence: 0.5,
                evidence,
                verified,
                supersedes_title: String::new(),
                text: format!(
                    "The {} layer of module {} needs care.",
                    topics[i as usize % 4],
                    i % 7
                ),
                archived: i % 11 == 0,
                members: vec![],
                extra: vec![],
            });
            let uid = match &body {
                Body::Echo(Echo { uid, .. }) => uid.clone(),
                _ => unreachable!(),
            };
            state
                .echoes
                .push(crate::model::Record::new(meta(i + 1, &[]), body));
            if i % 5 == 0 {
                let m = Meta {
                    ts: format!("2026-0{}-10T12:00:00Z", 1 + i % 6),
                    ..meta(1000 + i, &[])
                };
                state.echo_refs.push(crate::model::Record::new(
                    m,
                    Body::EchoRef(EchoRef {
                        uid,
                        workflow: format!("wf-{}", i % 4),
                    }),
                ));
            }
        }
        state
    }

    #[test]
    fn the_index_ranks_as_the_whole_fold_does() {
        let state = state();
        let index = EchoIndex::of(&state);
        let today = super::super::today();
        for role in [None, Some("reviewer"), Some("planner"), Some("nobody")] {
            for q in [
                "query cache",
                "module",
                "cache misses in module",
                "finding 7",
                "zzz",
                "",
            ] {
                let want = super::super::search(&state, q, role);
                let got = ranked(&index, q, role, today);
                assert_eq!(got.len(), want.len(), "{q:?} {role:?}");
                for (g, w) in got.iter().zip(&want) {
                    assert_eq!(index.docs[g.0].line, w.record.to_line(), "{q:?} {role:?}");
                    assert_eq!(g.1.to_bits(), w.relevance.to_bits());
                    assert_eq!(g.2, w.score);
                    assert_eq!(g.3.to_bits(), w.rank.to_bits());
                }
            }
        }
    }

    #[test]
    fn an_index_made_from_an_earlier_one_is_the_one_made_afresh() {
        let before = state();
        let mut after = state();
        after.echoes.truncate(250);
        after.echoes.remove(3);
        if let Body::Echo(Echo { text, archived, .. }) = &mut after.echoes[10].body {
            *text = "A new learning about retry storms.".into();
            *archived = false;
        }
        if let Body::Echo(Echo { archived, .. }) = &mut after.echoes[12].body {
            *archived = true;
        }
        after.echoes.push(crate::model::Record::new(
            meta(5000, &[]),
            crate::model::testing::echo_body("team", "Pattern: retry storms", "2026-06-01", 0.7),
        ));
        after.echo_refs.truncate(7);
        let fresh = EchoIndex::of(&after);
        assert_eq!(
            EchoIndex::reusing(&after, Some(&EchoIndex::of(&before))),
            fresh
        );
        assert_eq!(EchoIndex::reusing(&after, Some(&fresh)), fresh);
        assert_eq!(
            EchoIndex::reusing(&after, Some(&EchoIndex::default())),
            fresh
        );
    }

    #[test]
    fn the_index_is_cached_and_a_damaged_one_made_again() {
        let (_dir, store) = crate::store::scratch();
        let mut sealer = crate::memory::seal::Sealer::new(false);
        let body =
            crate::model::testing::echo_body("reviewer", "Pattern: cache it", "2026-01-01", 0.8);
        let sealed = sealer.seal_body(body, Vec::new()).unwrap();
        crate::memory::write::append(&store, crate::model::Scope::Memory, "echo", vec![sealed])
            .unwrap();
        let hits = search(&store, "cache", None, 10).unwrap();
        assert_eq!(hits.len(), 1);
        let snap = crate::memory::Snapshot::read(&store).unwrap();
        let tips = (snap.memory_tip, snap.branch_tip);
        let index = echo_index::read(&store, tips.0, tips.1).unwrap();
        assert_eq!(index.docs.len(), 1);
        // A line that does not decode: made again from the fold.
        let mut broken = index.clone();
        broken.docs[0].line = "oops".into();
        echo_index::put(&store, tips.0, tips.1, &broken);
        let again = search(&store, "cache", None, 10).unwrap();
        assert_eq!(again[0].record, hits[0].record);
        assert_eq!(echo_index::read(&store, tips.0, tips.1), Some(index));
    }
}
