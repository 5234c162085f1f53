//! BM25 relevance ranking of short documents against a query (the `bm25` crate's engine,
//! English stemming and stop words): the one ranking behind MCP's `memory_search` and
//! `git rune echo search`. Pure.
//!
//! [`Index`] keeps what the ranking needs of a corpus (each document's length in tokens, each
//! token's documents and counts) so it can be stored and a search only tokenizes the query:
//! its scores are the crate engine's, bit for bit (the same tokenizer, token ids and `f32`
//! arithmetic in the same order; tests compare both).

use std::collections::{BTreeMap, HashMap};

use bm25::{DefaultTokenizer, Document, Language, SearchEngineBuilder, TokenEmbedder, Tokenizer};
use serde::{Deserialize, Serialize};

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

/// The connected groups of `0..n` under `linked` (union-find), each ascending, ordered by
/// their smallest member: what echo compression and task consolidation gather into one.
pub fn groups(n: usize, linked: impl Fn(usize, usize) -> bool) -> Vec<Vec<usize>> {
    let mut parent: Vec<usize> = (0..n).collect();
    fn root(p: &mut [usize], mut i: usize) -> usize {
        while p[i] != i {
            p[i] = p[p[i]];
            i = p[i];
        }
        i
    }
    for i in 0..n {
        for j in i + 1..n {
            if linked(i, j) {
                let (a, b) = (root(&mut parent, i), root(&mut parent, j));
                parent[a.max(b)] = a.min(b);
            }
        }
    }
    let mut groups: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for i in 0..n {
        let r = root(&mut parent, i);
        groups.entry(r).or_default().push(i);
    }
    groups.into_values().collect()
}

/// The crate's defaults (`EmbedderBuilder`): term saturation and length normalization.
const K1: f32 = 1.2;
const B: f32 = 0.75;
/// The crate's average document length when a corpus has no token at all.
const FALLBACK_AVGDL: f32 = 256.0;

/// The token statistics of a corpus, in a form that serializes.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Index {
    /// Each document's length in tokens.
    lens: Vec<u32>,
    /// Per token id (the crate's 32-bit one), ascending: (document, count), by document.
    terms: Vec<(u32, Vec<(u32, u32)>)>,
}

fn token_ids(tokenizer: &DefaultTokenizer, text: &str) -> Vec<u32> {
    tokenizer
        .tokenize(text)
        .iter()
        .map(|t| <u32 as TokenEmbedder>::embed(t))
        .collect()
}

/// One document's statistics: its length in tokens, and (token id, count) by id.
pub type Tokens = (u32, Vec<(u32, u32)>);

/// The crate's English tokenizer, made once for many documents.
pub struct DocTokenizer(DefaultTokenizer);

impl Default for DocTokenizer {
    fn default() -> Self {
        DocTokenizer(DefaultTokenizer::new(Language::English))
    }
}

impl DocTokenizer {
    /// The statistics of one document.
    pub fn tokens(&self, doc: &str) -> Tokens {
        let ids = token_ids(&self.0, doc);
        let mut counts: BTreeMap<u32, u32> = BTreeMap::new();
        for &id in &ids {
            *counts.entry(id).or_default() += 1;
        }
        (ids.len() as u32, counts.into_iter().collect())
    }
}

impl Index {
    /// Tokenizes `docs` (document `i` is the `i`th).
    #[cfg(test)]
    pub fn new<'a>(docs: impl IntoIterator<Item = &'a str>) -> Index {
        let tokenizer = DocTokenizer::default();
        Index::of_tokens(docs.into_iter().map(|d| tokenizer.tokens(d)))
    }

    /// The index of documents already tokenized (document `i` is the `i`th).
    pub fn of_tokens(docs: impl IntoIterator<Item = Tokens>) -> Index {
        let mut lens = Vec::new();
        let mut postings: HashMap<u32, Vec<(u32, u32)>> = HashMap::new();
        for (i, (len, counts)) in docs.into_iter().enumerate() {
            lens.push(len);
            for (id, n) in counts {
                postings.entry(id).or_default().push((i as u32, n));
            }
        }
        let mut terms: Vec<(u32, Vec<(u32, u32)>)> = postings.into_iter().collect();
        terms.sort_unstable_by_key(|t| t.0);
        Index { lens, terms }
    }

    /// Each document's statistics, in order (what [`Index::of_tokens`] takes).
    pub fn tokens(&self) -> Vec<Tokens> {
        let mut out: Vec<Tokens> = self.lens.iter().map(|&l| (l, Vec::new())).collect();
        for (id, docs) in &self.terms {
            for &(d, n) in docs {
                if let Some(doc) = out.get_mut(d as usize) {
                    doc.1.push((*id, n));
                }
            }
        }
        out
    }

    /// The number of documents.
    pub fn documents(&self) -> usize {
        self.lens.len()
    }

    /// Whether every posting names a document of the index, in order (a stored index that
    /// does not is damaged).
    pub fn is_whole(&self) -> bool {
        let n = self.lens.len() as u32;
        self.terms.windows(2).all(|w| w[0].0 < w[1].0)
            && self.terms.iter().all(|(_, p)| {
                p.iter().all(|&(d, c)| d < n && c > 0) && p.windows(2).all(|w| w[0].0 < w[1].0)
            })
    }

    fn postings(&self, id: u32) -> &[(u32, u32)] {
        self.terms
            .binary_search_by_key(&id, |t| t.0)
            .map_or(&[], |i| &self.terms[i].1)
    }

    /// What [`bm25`] gives for the documents `keep` keeps, ranked alone (their own count and
    /// average length), as (index in this corpus, score), best first; equal scores in
    /// document order.
    pub fn search(&self, query: &str, keep: impl Fn(usize) -> bool) -> Vec<(usize, f32)> {
        if query.trim().is_empty() {
            return Vec::new();
        }
        let kept: Vec<bool> = (0..self.lens.len()).map(keep).collect();
        let (n, total) = kept
            .iter()
            .zip(&self.lens)
            .filter(|(k, _)| **k)
            .fold((0usize, 0u64), |(n, t), (_, l)| (n + 1, t + *l as u64));
        if n == 0 {
            return Vec::new();
        }
        let avgdl = (total as f64 / n as f64) as f32;
        let avgdl = if avgdl <= 0.0 { FALLBACK_AVGDL } else { avgdl };
        let query = token_ids(&DefaultTokenizer::new(Language::English), query);
        // Per query token (repeats included, as the crate scores them): its idf and the kept
        // documents holding it.
        let tokens: Vec<(f32, Vec<(u32, u32)>)> = query
            .iter()
            .map(|&id| {
                let docs: Vec<(u32, u32)> = self
                    .postings(id)
                    .iter()
                    .copied()
                    .filter(|&(d, _)| kept[d as usize])
                    .collect();
                let df = docs.len() as f32;
                let numerator = n as f32 - df + 0.5;
                let denominator = df + 0.5;
                ((1f32 + (numerator / denominator)).ln(), docs)
            })
            .collect();
        let mut values: HashMap<u32, Vec<f32>> = HashMap::new();
        for (j, (_, docs)) in tokens.iter().enumerate() {
            for &(d, count) in docs {
                let tf = count as f32;
                let len = self.lens[d as usize] as f32;
                let value = tf * (K1 + 1.0) / (tf + K1 * (1.0 - B + B * (len / avgdl)));
                values.entry(d).or_insert_with(|| vec![0f32; tokens.len()])[j] = value;
            }
        }
        let mut hits: Vec<(usize, f32)> = values
            .into_iter()
            .map(|(d, values)| {
                let score = tokens.iter().zip(values).map(|((idf, _), v)| idf * v);
                (d as usize, score.sum())
            })
            .filter(|h| h.1 > 0.0)
            .collect();
        hits.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        hits
    }
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

#[cfg(test)]
mod index_tests {
    use super::{bm25, Index};

    /// Corpora of words drawn from a small vocabulary (stems, stop words, repeats, empty
    /// documents), by a fixed generator.
    fn corpus(seed: u64, n: usize) -> Vec<String> {
        const WORDS: [&str; 16] = [
            "cache",
            "caching",
            "caches",
            "query",
            "the",
            "of",
            "module",
            "import",
            "index",
            "retry",
            "misses",
            "in",
            "Pattern:",
            "src/cache/m1.rs:4",
            "—",
            "Query",
        ];
        let mut x = seed;
        let mut next = move || {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (x >> 33) as usize
        };
        (0..n)
            .map(|_| {
                let len = next() % 12;
                (0..len)
                    .map(|_| WORDS[next() % WORDS.len()])
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect()
    }

    #[test]
    fn scores_are_the_crate_engines_for_every_subset() {
        let queries = [
            "cache",
            "query cache misses in module",
            "caching caching index",
            "the of",
            "kubernetes",
            "  ",
            "Pattern: retry",
        ];
        for seed in 0..40u64 {
            let docs = corpus(seed, 1 + (seed as usize * 7) % 60);
            let index = Index::new(docs.iter().map(String::as_str));
            assert!(index.is_whole());
            assert_eq!(Index::of_tokens(index.tokens()), index);
            assert_eq!(index.documents(), docs.len());
            for modulo in 1..4usize {
                let keep = |i: usize| (i + seed as usize) % modulo != 1;
                let kept: Vec<usize> = (0..docs.len()).filter(|&i| keep(i)).collect();
                for q in queries {
                    let want: Vec<(usize, f32)> =
                        bm25(kept.iter().map(|&i| docs[i].clone()).collect(), q)
                            .into_iter()
                            .map(|(i, s)| (kept[i], s))
                            .collect();
                    let got = index.search(q, keep);
                    assert_eq!(got.len(), want.len(), "seed {seed} keep %{modulo} {q:?}");
                    for (g, w) in got.iter().zip(&want) {
                        assert_eq!(g.0, w.0, "seed {seed} {q:?}");
                        assert_eq!(g.1.to_bits(), w.1.to_bits(), "seed {seed} {q:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn damaged_postings_are_not_whole() {
        let mut index = Index::new(["cache query", "query"]);
        assert!(index.is_whole());
        index.terms[0].1.push((7, 1));
        assert!(!index.is_whole());
    }
}
