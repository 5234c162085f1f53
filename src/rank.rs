//! BM25 relevance ranking of short documents against a query (the `bm25` crate's engine,
//! English stemming and stop words): the one ranking behind MCP's `memory_search` and
//! `git rune echo search`. Pure.

use bm25::{Document, Language, SearchEngineBuilder};

/// The documents that match `query` at all, as (index into `docs`, score), best first; equal
/// scores keep the order of `docs`.
pub fn bm25(docs: Vec<String>, query: &str) -> Vec<(usize, f32)> {
    if docs.is_empty() || query.trim().is_empty() {
        return Vec::new();
    }
    let n = docs.len();
    let docs = docs
        .into_iter()
        .enumerate()
        .map(|(id, contents)| Document { id, contents });
    let engine = SearchEngineBuilder::<usize>::with_documents(Language::English, docs).build();
    let mut hits: Vec<(usize, f32)> = engine
        .search(query, n)
        .into_iter()
        .filter(|h| h.score > 0.0)
        .map(|h| (h.document.id, h.score))
        .collect();
    hits.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    hits
}

#[cfg(test)]
mod tests {
    #[test]
    fn stems_match_and_nothing_matches_nothing() {
        let docs = vec![
            "caching the parsed config".to_owned(),
            "tests bind port zero".to_owned(),
        ];
        let hits = super::bm25(docs.clone(), "caches");
        assert_eq!(hits.len(), 1);
        assert_eq!(hits[0].0, 0);
        assert!(super::bm25(docs.clone(), "kubernetes").is_empty());
        assert!(super::bm25(docs, "  ").is_empty());
        assert!(super::bm25(Vec::new(), "x").is_empty());
    }
}
