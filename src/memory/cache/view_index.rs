//! What a view refresh needs to know of the state the view was last rendered from to bring
//! it up to date without folding memory again: for the pair of trees the files show, the
//! last record of each list a file shows as "a header, then one entry per record"
//! ([`crate::view::appended`]), the learning groups (type + key) shown, and the ids records
//! name that no record in the trees has. Kept per work tree in
//! `<git-dir>/rune/cache/view-index/`, written by every render under the view's lock; made
//! again by the next full render when missing, damaged or of another version.
//!
//! With it, a write that only adds records (no edit, no tombstone, nothing an existing record
//! names) to the end of those lists, in groups no learning holds yet, changes the view by
//! appending their entries (a learning in a group shown already replacing that group's
//! line): [`ViewIndex::admit`] says whether it does, exactly.

use std::collections::{BTreeMap, HashSet};

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::cache::Cache;
use crate::model::kinds::{Delete, Learning, Resolve};
use crate::model::{Body, Kind, Record, State};
use crate::store::{ObjectId, Store};
use crate::view::ViewFile;

/// Bumped whenever what the index keeps changes. One file, per work tree.
const INDEX: Cache<ViewIndex> = Cache::new("view-index", 1, 1, Some("view-index"));
const KEY: &str = "view";

/// The order key of a list's last record: (ts, clock, id), as the fold sorts.
type Last = (String, u64, String);

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Head {
    /// The trees the index describes (memory, then session state); `None`: no such ref.
    memory: Option<String>,
    branch: Option<String>,
    /// Per appendable kind whose list holds records: its last record's order key.
    last: BTreeMap<String, Last>,
    /// Ids named by an edit, a tombstone or a resolution that no record in the trees has.
    dangling: Vec<String>,
}

/// The index of one pair of trees.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ViewIndex {
    head: Head,
    /// `group_hash` of every learning group the state holds, sorted.
    #[serde(serialize_with = "hashes_out", deserialize_with = "hashes_in")]
    groups: Vec<u64>,
}

/// The group hashes as one run of little-endian bytes: a varint each (serde's way for a list
/// of numbers) reads back three times slower at 100,000 learnings.
fn hashes_out<S: Serializer>(groups: &[u64], s: S) -> Result<S::Ok, S::Error> {
    let bytes: Vec<u8> = groups.iter().flat_map(|g| g.to_le_bytes()).collect();
    s.serialize_bytes(&bytes)
}

fn hashes_in<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u64>, D::Error> {
    let bytes = <&[u8]>::deserialize(d)?;
    let groups = bytes.chunks_exact(8);
    if !groups.remainder().is_empty() {
        return Err(serde::de::Error::custom("group hashes are 8 bytes each"));
    }
    Ok(groups
        .map(|c| u64::from_le_bytes(c.try_into().unwrap_or_default()))
        .collect())
}

/// What [`ViewIndex::admit`] found of a write it admits, by position in what was added.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Admitted {
    /// Learnings in groups the log shows already: each takes its group's line, or is not
    /// shown when that line's learning is newer.
    pub shown: Vec<usize>,
    /// Learnings sorting before the last learning the log shows.
    pub earlier: Vec<usize>,
}

impl Admitted {
    /// Whether the log only grows at its end, each learning in a new group.
    pub fn appends_only(&self) -> bool {
        self.shown.is_empty() && self.earlier.is_empty()
    }
}

/// The kinds of the files whose text grows by appending ([`crate::view::appended`]).
pub fn appendable(kind: Kind) -> bool {
    ViewFile::ALL
        .iter()
        .any(|&f| f.kind() == kind && crate::view::appended(f, true, &[], &|_| false).is_some())
}

fn group_hash(r: &Record) -> Option<u64> {
    match &r.body {
        Body::Learning(Learning { ltype, key, .. }) => {
            let mut data = ltype.as_str().as_bytes().to_vec();
            data.push(0);
            data.extend_from_slice(key.as_bytes());
            Some(xxhash_rust::xxh3::xxh3_64(&data))
        }
        _ => None,
    }
}

fn tree_hex(tree: Option<ObjectId>) -> Option<String> {
    tree.map(|t| t.to_string())
}

impl ViewIndex {
    /// The index of a whole fold: `state` folded from `records`, the records of the trees
    /// `memory` and `branch`.
    pub fn of<'a>(
        memory: Option<ObjectId>,
        branch: Option<ObjectId>,
        records: impl Iterator<Item = &'a Record> + Clone,
        state: &State,
    ) -> ViewIndex {
        let ids: HashSet<&str> = records.clone().map(|r| r.id.as_str()).collect();
        let mut dangling: Vec<String> = records
            .flat_map(named)
            .filter(|id| !ids.contains(id.as_str()))
            .cloned()
            .collect();
        dangling.sort();
        dangling.dedup();
        let last = Kind::ALL
            .iter()
            .copied()
            .filter(|&k| appendable(k))
            .filter_map(|k| {
                let r = state.of_kind(k).last()?;
                Some((k.as_str().to_owned(), order(r)))
            })
            .collect();
        let mut groups: Vec<u64> = state.learnings.iter().filter_map(group_hash).collect();
        groups.sort_unstable();
        groups.dedup();
        ViewIndex {
            head: Head {
                memory: tree_hex(memory),
                branch: tree_hex(branch),
                last,
                dangling,
            },
            groups,
        }
    }

    /// Whether this index describes the trees `memory` and `branch`.
    pub fn describes(&self, memory: Option<ObjectId>, branch: Option<ObjectId>) -> bool {
        self.head.memory == tree_hex(memory) && self.head.branch == tree_hex(branch)
    }

    /// Whether adding `added` (records of either tree pair's refs, none of them already
    /// there) to the state this index describes changes only the lists appendable files
    /// show, by records joining them: every record is plain (no edit, no tombstone, no
    /// resolution), not named by any record, of an appendable kind, and after the last record
    /// of its kind, except learnings, which the log takes where their time puts them
    /// ([`crate::view::log_merge`]); no two learnings share a group. `None` when the write is
    /// not admitted. `added` must be sorted by order key.
    pub fn admit(&self, added: &[Record]) -> Option<Admitted> {
        let mut new_groups = HashSet::new();
        let mut last = self.head.last.clone();
        let mut admitted = Admitted::default();
        for (i, r) in added.iter().enumerate() {
            let kind = r.kind();
            if !r.meta.supersedes.is_empty()
                || self.head.dangling.binary_search(&r.id).is_ok()
                // Echoes, shown by no `.rune/` file, are not admitted either: a write of one
                // must leave their own caches warm, which the full render stores.
                || !appendable(kind)
            {
                return None;
            }
            if let Some(g) = group_hash(r) {
                if !new_groups.insert(g) {
                    return None;
                }
                if self.groups.binary_search(&g).is_ok() {
                    admitted.shown.push(i);
                }
            }
            let after = last
                .get(kind.as_str())
                .is_none_or(|l| (l.0.as_str(), l.1, l.2.as_str()) < r.order_key());
            if after {
                last.insert(kind.as_str().to_owned(), order(r));
            } else if kind == Kind::Learning {
                admitted.earlier.push(i);
            } else {
                return None;
            }
        }
        Some(admitted)
    }

    /// Whether the list of `kind` held records in the state described.
    pub fn holds(&self, kind: Kind) -> bool {
        self.head.last.contains_key(kind.as_str())
    }

    /// This index with `added` (which it [admits](Self::admit)) joined, describing the
    /// trees `memory` and `branch`.
    pub fn appended(
        mut self,
        memory: Option<ObjectId>,
        branch: Option<ObjectId>,
        added: &[Record],
    ) -> ViewIndex {
        for r in added {
            let kind = r.kind().as_str();
            if appendable(r.kind())
                && self
                    .head
                    .last
                    .get(kind)
                    .is_none_or(|l| (l.0.as_str(), l.1, l.2.as_str()) < r.order_key())
            {
                self.head.last.insert(kind.to_owned(), order(r));
            }
        }
        // Joined and sorted once: inserting each in place moved the whole list per record.
        let before = self.groups.len();
        self.groups.extend(added.iter().filter_map(group_hash));
        if self.groups.len() > before {
            self.groups.sort_unstable();
            self.groups.dedup();
        }
        self.head.memory = tree_hex(memory);
        self.head.branch = tree_hex(branch);
        self
    }

    /// This index of memory beside one session state (`old`'s records), made to describe the
    /// same memory beside another (`branch`, whose records are `new`) after a switch that kept
    /// the memory files: neither state holds a record of a memory kind (what the switch
    /// checked), so the learning groups and the memory lists stand; the session lists are
    /// taken from `state`, the fold of the new session state with memory's records of its
    /// kinds. Every id the old state held, and every id the new one names, counts as named
    /// by no record: more than the exact set, which only sends more writes to the full
    /// render.
    pub fn switched(
        mut self,
        branch: Option<ObjectId>,
        state: &State,
        old: &[Record],
        new: &[Record],
    ) -> ViewIndex {
        for kind in Kind::ALL
            .iter()
            .copied()
            .filter(|&k| appendable(k) && k.scope() == Some(crate::model::Scope::Branch))
        {
            match state.of_kind(kind).last() {
                Some(r) => self.head.last.insert(kind.as_str().to_owned(), order(r)),
                None => self.head.last.remove(kind.as_str()),
            };
        }
        self.head.dangling.extend(
            old.iter()
                .map(|r| &r.id)
                .chain(new.iter().flat_map(named))
                .cloned(),
        );
        self.head.dangling.sort();
        self.head.dangling.dedup();
        self.head.branch = tree_hex(branch);
        self
    }

    /// The index stored for this work tree, if it reads back whole.
    pub fn read(store: &Store) -> Option<ViewIndex> {
        INDEX.get(store.git_dir(), KEY)
    }

    /// Stores the index (by the view lock's holder). One that cannot be written only costs
    /// the next write a full render.
    pub fn write(&self, store: &Store) {
        INDEX.put(store.git_dir(), KEY, self);
    }

    /// Forgets the stored index (a render that could not make one).
    pub fn remove(store: &Store) {
        INDEX.remove(store.git_dir(), KEY);
    }
}

/// The ids a record names: those it edits, and a tombstone's or a resolution's targets.
fn named(r: &Record) -> impl Iterator<Item = &String> {
    let targets: &[String] = match &r.body {
        Body::Delete(Delete { targets }) => targets,
        Body::Resolve(Resolve { target }) => std::slice::from_ref(target),
        _ => &[],
    };
    r.meta.supersedes.iter().chain(targets)
}

fn order(r: &Record) -> Last {
    let (ts, clock, id) = r.order_key();
    (ts.to_owned(), clock, id.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::fold;
    use crate::model::testing::{decision, learning, meta};

    fn index_of(records: &[Record]) -> ViewIndex {
        ViewIndex::of(None, None, records.iter(), &fold(records))
    }

    /// `admit` says yes exactly when the fold's lists grow only at their ends, a learning
    /// in a shown group taking its group's place, or (learnings only) by records the log
    /// takes where their time puts them; the kinds no appendable file shows stay as they are.
    #[test]
    fn admits_exactly_the_additions_that_append_to_the_lists() {
        let base = vec![
            decision(1, "d1", &[]),
            learning(2, "k1", "i"),
            learning(3, "k2", "i"),
        ];
        let delete = Record::new(
            meta(4, &[]),
            Body::Delete(Delete {
                targets: vec!["not-yet-here".into()],
            }),
        );
        let yes = |shown: Vec<usize>, earlier: Vec<usize>| Some(Admitted { shown, earlier });
        let cases: Vec<(Vec<Record>, Option<Admitted>)> = vec![
            (vec![learning(10, "k3", "new")], yes(vec![], vec![])),
            (
                vec![decision(10, "d2", &[]), learning(11, "k4", "x")],
                yes(vec![], vec![]),
            ),
            // Same group as a learning shown: it replaces that one's line.
            (vec![learning(10, "k1", "newer")], yes(vec![0], vec![])),
            (
                vec![learning(10, "k5", "a"), learning(11, "k2", "b")],
                yes(vec![1], vec![]),
            ),
            // Two new ones in one group: only one is shown.
            (vec![learning(10, "k5", "a"), learning(11, "k5", "b")], None),
            // Sorts before the last decision: no; before the last learning: placed by time.
            (vec![decision(0, "d0", &[])], None),
            (vec![learning(0, "k1", "older")], yes(vec![0], vec![0])),
            (
                vec![learning(0, "k7", "older"), learning(12, "k8", "newer")],
                yes(vec![], vec![0]),
            ),
            // An edit.
            (vec![decision(10, "d1b", &[&base[0].id])], None),
            (vec![delete.clone()], None),
        ];
        let index = index_of(&base);
        for (added, admitted) in cases {
            assert_eq!(index.admit(&added), admitted, "{added:?}");
            let Some(admitted) = admitted else { continue };
            let all: Vec<Record> = base.iter().chain(&added).cloned().collect();
            let grown = index_of(&base).appended(None, None, &added);
            assert_eq!(grown, index_of(&all));
            if !admitted.earlier.is_empty() {
                continue;
            }
            // The lists of base + added are the lists of base without the replaced
            // learnings, with added at their ends.
            let (before, after) = (fold(&base), fold(&all));
            let replaced: Vec<u64> = admitted
                .shown
                .iter()
                .filter_map(|&i| group_hash(&added[i]))
                .collect();
            for k in [Kind::Decision, Kind::Learning] {
                let mut expect: Vec<&Record> = before
                    .of_kind(k)
                    .iter()
                    .filter(|r| group_hash(r).is_none_or(|g| !replaced.contains(&g)))
                    .collect();
                expect.extend(added.iter().filter(|r| r.kind() == k));
                assert_eq!(after.of_kind(k).iter().collect::<Vec<_>>(), expect);
            }
        }
        // A record a tombstone already names is not plain news.
        let mut with_delete = base.clone();
        with_delete.push(delete);
        let mut named = learning(10, "k9", "x");
        named.id = "not-yet-here".into();
        assert_eq!(index_of(&with_delete).admit(&[named]), None);
    }

    #[test]
    fn an_index_reads_back_as_written() {
        let (_dir, store) = crate::store::scratch();
        let index = index_of(&[
            learning(1, "a", "b"),
            learning(2, "c", "d"),
            decision(3, "d", &[]),
        ]);
        assert_eq!(index.groups.len(), 2);
        index.write(&store);
        assert_eq!(ViewIndex::read(&store), Some(index));
        ViewIndex::remove(&store);
        assert_eq!(ViewIndex::read(&store), None);
    }
}
