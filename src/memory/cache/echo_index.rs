//! What `echo search` needs of the folded echoes, cached per pair of memory trees in
//! `<common-dir>/rune/cache/echo-index/` beside the echoes (`echoes`): the active entries'
//! BM25 token statistics (`rank::Index`), the few fields that score and sort a hit (uid, role,
//! layer, verified), each entry's stored record line (decoded only for the hits printed), and
//! the references the Echo Score counts. A search reads this one compact file and tokenizes
//! only the query, instead of decoding every echo and tokenizing all of them; its results are
//! those of a search over the whole fold (`echoes::search`), which tests check.
//!
//! The postings are a few hundred thousand small integers, which JSON took tens of
//! milliseconds to read back and postcard reads in one or two. A file that is missing, cut
//! short, damaged or of another version is made again from the echoes (cached, or folded).

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::key;
use crate::cache::Cache;
use crate::memory::{Snapshot, Tips};
use crate::model::kinds::{Echo, EchoRef};
use crate::model::{Body, Record, State};
use crate::rank;
use crate::store::{Store, Tip};
#[cfg(test)]
pub use testing::put;

/// As many kept as of the echoes they index.
const INDEXES: Cache<EchoIndex> = Cache::new("echo-index", 1, 4, Some("echo-index"));

/// One active entry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Doc {
    pub uid: String,
    pub role: String,
    pub layer: String,
    pub verified: String,
    /// The record's stored line (`model::decode_line` reads it back).
    pub line: String,
}

/// A reference (`echo-ref`) as the Echo Score counts it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Ref {
    pub uid: String,
    pub workflow: String,
    /// The record's time.
    pub ts: String,
}

/// The search index of one fold's echoes.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct EchoIndex {
    /// The active (not archived) entries, in the fold's order; document `i` of `text`.
    pub docs: Vec<Doc>,
    /// (role, uid) of every entry, archived or not, that a reference names.
    pub referenced: Vec<(String, String)>,
    pub refs: Vec<Ref>,
    /// BM25 statistics of [`document`] of each entry of `docs`.
    pub text: rank::Index,
}

/// The text an entry is found by: its title (twice: it weighs more), learning and evidence.
pub fn document(r: &Record) -> String {
    Echo::of(&r.body).map_or_else(String::new, |e| {
        let (title, text, evidence) = (&e.title, &e.text, &e.evidence);
        format!("{title}\n{title}\n{text}\n{evidence}")
    })
}

impl EchoIndex {
    /// [`EchoIndex::of`], taking the token statistics of the entries whose record line is
    /// the same from an index made before (a record line names its text exactly): a write
    /// tokenizes only the entries it changed.
    pub fn reusing(state: &State, previous: Option<&EchoIndex>) -> EchoIndex {
        let mut known: HashMap<&str, rank::Tokens> = previous
            .map(|p| {
                p.docs
                    .iter()
                    .map(|d| d.line.as_str())
                    .zip(p.text.tokens())
                    .collect()
            })
            .unwrap_or_default();
        let tokenizer = rank::DocTokenizer::default();
        let mut docs = Vec::new();
        let mut tokens = Vec::new();
        for r in &state.echoes {
            if let Some(e) = Echo::of(&r.body).filter(|e| !e.archived) {
                let line = r.to_line();
                tokens.push(
                    known
                        .remove(line.as_str())
                        .unwrap_or_else(|| tokenizer.tokens(&document(r))),
                );
                docs.push(Doc {
                    uid: e.uid.clone(),
                    role: e.role.clone(),
                    layer: e.layer.clone(),
                    verified: e.verified.clone(),
                    line,
                });
            }
        }
        let refs: Vec<Ref> = state
            .echo_refs
            .iter()
            .filter_map(|r| match &r.body {
                Body::EchoRef(EchoRef { uid, workflow }) => Some(Ref {
                    uid: uid.clone(),
                    workflow: workflow.clone(),
                    ts: r.meta.ts.clone(),
                }),
                _ => None,
            })
            .collect();
        let named: std::collections::HashSet<&str> = refs.iter().map(|r| r.uid.as_str()).collect();
        let referenced = state
            .echoes
            .iter()
            .filter_map(|r| Echo::of(&r.body).filter(|e| named.contains(e.uid.as_str())))
            .map(|e| (e.role.clone(), e.uid.clone()))
            .collect();
        EchoIndex {
            docs,
            referenced,
            refs,
            text: rank::Index::of_tokens(tokens),
        }
    }

    /// Whether the token statistics are whole and index every entry.
    fn whole(&self) -> bool {
        self.text.documents() == self.docs.len() && self.text.is_whole()
    }
}

/// The cached index of the two trees, if it was stored and reads back whole.
pub fn read(store: &Store, memory: Option<Tip>, branch: Option<Tip>) -> Option<EchoIndex> {
    INDEXES
        .get(store.common_dir(), &key(memory, branch))
        .filter(EchoIndex::whole)
}

/// Makes the index of `state` (the whole fold of the two trees, or its echoes) and stores
/// it. A cache that cannot be written only costs the next search the index.
pub fn store(store: &Store, memory: Option<Tip>, branch: Option<Tip>, state: &State) -> EchoIndex {
    let newest = INDEXES.newest(store.common_dir()).filter(EchoIndex::whole);
    let index = EchoIndex::reusing(state, newest.as_ref());
    INDEXES.put(store.common_dir(), &key(memory, branch), &index);
    index
}

/// Stores the echoes of trees `old`, and their search index, as those of trees `new`, which
/// differ from them only by records no echo's fold reads (plain records of other kinds: what
/// the view's append path admits), so a write that appended to the view leaves the next
/// `echo search` warm. Nothing when `old` has none cached.
pub fn carry(store: &Store, old: (Option<Tip>, Option<Tip>), new: (Option<Tip>, Option<Tip>)) {
    super::echoes::carry(store, old, new);
    if let Some(index) = read(store, old.0, old.1) {
        INDEXES.put(store.common_dir(), &key(new.0, new.1), &index);
    }
}

/// Stores the echoes of a snapshot just folded (`echoes`) and `echo search`'s index of
/// them, unless they are stored already.
pub fn remember(store: &Store, snap: &Snapshot) {
    super::echoes::remember(store, snap);
    if !INDEXES.has(store.common_dir(), &key(snap.memory_tip, snap.branch_tip)) {
        self::store(store, snap.memory_tip, snap.branch_tip, &snap.state);
    }
}

/// The index of memory now: cached, or made from the echoes (cached, or folded) and cached.
/// `fresh` makes it again whatever is cached (a line of the cached one did not decode).
pub fn current(store: &Store, fresh: bool) -> crate::store::Result<EchoIndex> {
    let t = Tips::now(store)?;
    if !fresh {
        if let Some(index) = read(store, t.memory, t.branch) {
            return Ok(index);
        }
    }
    let state = super::echoes::echoes(store, &t)?;
    Ok(self::store(store, t.memory, t.branch, &state))
}

#[cfg(test)]
mod testing {
    use super::*;

    impl EchoIndex {
        /// The index of a state's echoes and references, every entry tokenized.
        pub fn of(state: &State) -> EchoIndex {
            EchoIndex::reusing(state, None)
        }
    }

    /// Stores `index` as that of the two trees.
    pub fn put(store: &Store, memory: Option<Tip>, branch: Option<Tip>, index: &EchoIndex) {
        INDEXES.put(store.common_dir(), &key(memory, branch), index);
    }
}
