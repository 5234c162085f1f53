//! memory_search's ranking, pure: BM25 (`crate::rank`, shared with `git rune echo search`)
//! over the text of every live record of the searched kinds, ties broken newest first.

use crate::model::kinds::Echo;
use crate::model::{Body, Kind, Record, State};

/// The kinds a search covers unless the caller names some; a kind's document is its
/// record's text fields. Archived echoes are left out (they are never loaded).
pub const SEARCHED: [Kind; 5] = [
    Kind::Decision,
    Kind::Learning,
    Kind::Convention,
    Kind::Task,
    Kind::Echo,
];

/// One ranked record.
#[derive(Debug)]
pub struct Hit<'a> {
    pub record: &'a Record,
    pub score: f32,
}

/// A record as searchable text: its title (twice: a match there counts more) and every text
/// field.
pub fn document(r: &Record) -> String {
    let mut out = format!("{0}\n{0}\n", r.body.title());
    for (_, text) in r.body.texts() {
        out.push_str(&text);
        out.push('\n');
    }
    out
}

/// The live records of `kinds` that match `query`, best first (equal scores: newest first).
/// Every match is returned; the caller gates and cuts.
pub fn rank<'a>(state: &'a State, kinds: &[Kind], query: &str) -> Vec<Hit<'a>> {
    let records: Vec<&Record> = kinds
        .iter()
        .flat_map(|k| state.of_kind(*k).iter())
        .filter(|r| !matches!(r.body, Body::Echo(Echo { archived: true, .. })))
        .collect();
    let docs = records.iter().map(|r| document(r)).collect();
    let mut hits: Vec<Hit<'a>> = crate::rank::bm25(docs, query)
        .into_iter()
        .map(|(i, score)| Hit {
            record: records[i],
            score,
        })
        .collect();
    hits.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then_with(|| b.record.order_key().cmp(&a.record.order_key()))
    });
    hits
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::fold::fold;
    use crate::model::testing::{decision, learning};

    fn state() -> State {
        fold(&[
            learning(
                1,
                "cache-keys",
                "Caching the parsed config cut start-up by half",
            ),
            learning(
                2,
                "flaky-ci",
                "The CI runner times out when tests share a port",
            ),
            decision(3, "Use SQLite for the local cache", &[]),
            learning(
                4,
                "port",
                "Tests bind port 0 so that parallel runs never collide",
            ),
        ])
    }

    #[test]
    fn the_best_match_comes_first_and_stems_match() {
        let st = state();
        let hits = rank(&st, &SEARCHED, "caches");
        let titles: Vec<&str> = hits.iter().map(|h| h.record.body.title()).collect();
        assert_eq!(hits.len(), 2, "{titles:?}");
        assert!(
            titles.contains(&"Use SQLite for the local cache"),
            "{titles:?}"
        );
        assert!(titles.contains(&"cache-keys"), "{titles:?}");
        let ports = rank(&st, &SEARCHED, "port collisions in tests");
        assert_eq!(ports[0].record.body.title(), "port", "{ports:?}");
        assert!(ports.iter().any(|h| h.record.body.title() == "flaky-ci"));
    }

    #[test]
    fn kinds_limit_the_search_and_nothing_matches_nothing() {
        let st = state();
        let hits = rank(&st, &[Kind::Decision], "cache");
        assert_eq!(hits.len(), 1);
        assert_eq!(hits[0].record.kind(), Kind::Decision);
        assert!(rank(&st, &SEARCHED, "kubernetes").is_empty());
        assert!(rank(&st, &SEARCHED, "   ").is_empty());
        assert!(rank(&State::default(), &SEARCHED, "cache").is_empty());
    }

    #[test]
    fn equal_scores_rank_newest_first() {
        let st = fold(&[
            learning(1, "kappa", "retry the upload"),
            learning(2, "sigma", "retry the upload"),
        ]);
        let hits = rank(&st, &SEARCHED, "upload");
        assert_eq!(hits[0].score, hits[1].score);
        assert_eq!(hits[0].record.body.title(), "sigma");
    }
}
