//! What a memory ref gained between two of its commits, without reading every record: how many
//! records were added (from the commits' `Rune-Records` trailers), and the first records added
//! in the order the tree stores them (reading record blobs only until there are enough). A
//! commit note after a bulk import lists a hundred records and counts the rest
//! (notes/compose.rs); this keeps its cost from growing with the import.

use gix::ObjectId;

use super::chain::WALK_MAX;
use super::partial::find_blob;
use super::records::{
    changed_blobs, ids_in, parse_tree_records, read_entries, root_tree, BlobList,
};
use super::{git_err, Result, Store, Tip};
use crate::model::{Kind, Record};

impl Store {
    /// How many records of `kinds` commit `new` of ref `name` holds that `old` (an ancestor on
    /// its first-parent chain, or none: all of them) lacks, without reading those records.
    ///
    /// Every writer of a memory commit states in its `Rune-Records` trailer how many records
    /// the commit adds to its first parent (a compacted root: how many it holds), and a
    /// memory ref's record set only grows, so the records added between the two commits are
    /// the sum of the trailers on the way; the records of the other kinds are subtracted by
    /// comparing their subtrees (ids only, no decoding). `None` when the history does not say
    /// exactly: a commit without the trailer (older versions), a sync that rebuilt on the
    /// remote's tip, or `old` not on the chain. The caller then reads the records.
    pub(crate) fn count_added(
        &self,
        name: &str,
        old: Option<Tip>,
        new: Tip,
        kinds: &[Kind],
    ) -> Result<Option<usize>> {
        let stop = old.map(|t| t.commit);
        let mut total: u64 = 0;
        let mut next = Some(new.commit);
        let mut walked = 0;
        loop {
            let Some(id) = next else {
                // Reached the root: exact only when everything was to be counted.
                if stop.is_some() {
                    return Ok(None);
                }
                break;
            };
            if Some(id) == stop {
                break;
            }
            if walked == WALK_MAX {
                // Far from the tip: the cached chain says it without the walk.
                match self.added_by_chain(name, new.commit, stop)? {
                    Some(n) => {
                        total = n;
                        break;
                    }
                    None => return Ok(None),
                }
            }
            let link = self.link(name, id)?;
            let Some(n) = link.added else {
                return Ok(None);
            };
            total = total.saturating_add(n);
            next = link.parent;
            walked += 1;
        }
        let kinds: Vec<&str> = kinds.iter().map(|k| k.as_str()).collect();
        let others = self.count_added_except(name, old.map(|t| t.tree), new.tree, &kinds)?;
        Ok(usize::try_from(total)
            .ok()
            .and_then(|t| t.checked_sub(others)))
    }

    /// What the commits of `name`'s chain after `stop` (or all of them) up to `tip` add, by
    /// their trailers: `None` when `stop` is not on the chain or a trailer does not say.
    fn added_by_chain(
        &self,
        name: &str,
        tip: ObjectId,
        stop: Option<ObjectId>,
    ) -> Result<Option<u64>> {
        let chain = self.chain(name, tip)?;
        let from = match stop {
            None => 0,
            Some(stop) => match chain.iter().rposition(|l| l.id == stop) {
                Some(at) => at + 1,
                None => return Ok(None),
            },
        };
        Ok(chain[from..]
            .iter()
            .try_fold(0u64, |sum, l| Some(sum.saturating_add(l.added?))))
    }

    /// The first `limit` records of `kinds` that commit `new` of ref `name` holds and `old`
    /// lacks: kind by kind in the order given, each kind's in the order its tree stores them
    /// (by id), which is the order [`Store::records_added`] returns them in. Reads the record
    /// blobs that differ only until it has `limit` records.
    pub(crate) fn first_added(
        &self,
        name: &str,
        old: Option<Tip>,
        new: Tip,
        kinds: &[Kind],
        limit: usize,
    ) -> Result<Vec<Record>> {
        let repo = &self.repo;
        let (old_root, new_root) = self.roots(name, old.map(|t| t.tree), new.tree)?;
        let mut out = Vec::new();
        for kind in kinds {
            if out.len() >= limit {
                break;
            }
            let kind = kind.as_str();
            if old_root.as_ref().and_then(|r| dir_of(r, kind)).is_none() {
                // All of the kind is new: read its tree in order only as far as needed.
                if let Some(dir) = dir_of(&new_root, kind) {
                    first_in(repo, name, kind, dir, limit, &mut out)?;
                }
                continue;
            }
            let (old_blobs, new_blobs) = self.kind_diff(name, &old_root, &new_root, kind)?;
            let known = ids_in(repo, &format!("{name}:"), &old_blobs)?;
            for (path, oid) in &new_blobs {
                let blob = find_blob(repo, *oid, &|| format!("cannot read {name}:{path}"))?;
                let mut records = Vec::new();
                parse_tree_records(name, path, &blob.data, &mut records)?;
                out.extend(records.into_iter().filter(|r| !known.contains(&r.id)));
                if out.len() >= limit {
                    break;
                }
            }
        }
        out.truncate(limit);
        Ok(out)
    }

    /// How many records of the kinds other than `except` tree `new` holds that `old` lacks,
    /// counting ids in the blobs that differ.
    fn count_added_except(
        &self,
        name: &str,
        old: Option<ObjectId>,
        new: ObjectId,
        except: &[&str],
    ) -> Result<usize> {
        let (old_root, new_root) = self.roots(name, old, new)?;
        let mut dirs: Vec<String> = Vec::new();
        for root in old_root.iter().chain(Some(&new_root)) {
            for e in &root.entries {
                let dir = e.filename.to_string();
                if e.mode.is_tree() && !except.contains(&dir.as_str()) && !dirs.contains(&dir) {
                    dirs.push(dir);
                }
            }
        }
        let mut count = 0;
        for dir in dirs {
            let (old_blobs, new_blobs) = self.kind_diff(name, &old_root, &new_root, &dir)?;
            let known = ids_in(&self.repo, &format!("{name}:"), &old_blobs)?;
            let added = ids_in(&self.repo, &format!("{name}:"), &new_blobs)?;
            count += added.difference(&known).count();
        }
        Ok(count)
    }

    /// The decoded root trees of `old` (if any) and `new`, their layouts checked.
    fn roots(
        &self,
        name: &str,
        old: Option<ObjectId>,
        new: ObjectId,
    ) -> Result<(Option<gix::objs::Tree>, gix::objs::Tree)> {
        let root = |id: ObjectId| -> Result<gix::objs::Tree> {
            root_tree(&self.repo, name, id)?
                .decode()
                .map(Into::into)
                .map_err(git_err("cannot decode tree"))
        };
        Ok((old.map(root).transpose()?, root(new)?))
    }

    /// The record blobs under directory `dir` that only one of two root trees holds: (only in
    /// old, only in new), as (path, blob id), in tree order.
    fn kind_diff(
        &self,
        name: &str,
        old_root: &Option<gix::objs::Tree>,
        new_root: &gix::objs::Tree,
        dir: &str,
    ) -> Result<(BlobList, BlobList)> {
        let old = old_root.as_ref().and_then(|r| dir_of(r, dir));
        changed_blobs(&self.repo, name, dir, old, dir_of(new_root, dir))
    }
}

/// The subtree `dir` of a decoded root tree.
fn dir_of(root: &gix::objs::Tree, dir: &str) -> Option<ObjectId> {
    root.entries
        .iter()
        .find(|e| e.mode.is_tree() && e.filename == dir)
        .map(|e| e.oid)
}

/// Appends the records under directory `dir` (tree `tree`) to `out` in the order a diff
/// against nothing lists them (entries by name, a directory's records where it sorts), until
/// `out` holds at least `limit`.
fn first_in(
    repo: &gix::Repository,
    name: &str,
    dir: &str,
    tree: ObjectId,
    limit: usize,
    out: &mut Vec<Record>,
) -> Result<()> {
    for (entry, (is_tree, oid)) in read_entries(repo, name, dir, tree)? {
        if out.len() >= limit {
            break;
        }
        let path = format!("{dir}/{entry}");
        if is_tree {
            first_in(repo, name, &path, oid, limit, out)?;
        } else {
            let blob = find_blob(repo, oid, &|| format!("cannot read {name}:{path}"))?;
            parse_tree_records(name, &path, &blob.data, out)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::testing::{decision, echo, learning};
    use crate::store::{commit_message, MEMORY_REF};

    const LISTED: [Kind; 3] = [Kind::Decision, Kind::Convention, Kind::Learning];

    /// Commits `records` on the memory ref on top of `parent` with `message`.
    fn land(store: &Store, parent: Option<Tip>, records: &[Record], message: &str) -> Tip {
        let tree = store
            .tree_with(MEMORY_REF, parent.map(|t| t.tree), records)
            .unwrap();
        let parents: Vec<ObjectId> = parent.map(|t| t.commit).into_iter().collect();
        let id = store
            .land_commit(
                MEMORY_REF,
                store.ref_id(MEMORY_REF).unwrap(),
                tree,
                &parents,
                message,
            )
            .unwrap();
        store.tip_of(MEMORY_REF, id).unwrap()
    }

    fn adds(store: &Store, parent: Option<Tip>, records: &[Record]) -> Tip {
        land(
            store,
            parent,
            records,
            &commit_message("add", records.len(), 0),
        )
    }

    #[test]
    fn counts_from_trailers_and_lists_what_records_added_lists_first() {
        let (_dir, store) = crate::store::scratch();
        let mut first: Vec<Record> = (0..300)
            .map(|i| learning(i, &format!("k{i}"), "v"))
            .collect();
        first.extend((300..305).map(|i| decision(i, &format!("d{i}"), &[])));
        first.extend((305..345).map(|i| echo(i, "team", &format!("e{i}"), "2026-01-01", 0.5)));
        let one = adds(&store, None, &first);
        let mut second: Vec<Record> = (400..450)
            .map(|i| learning(i, &format!("k{i}"), "v"))
            .collect();
        second.extend((450..453).map(|i| echo(i, "team", &format!("e{i}"), "2026-01-01", 0.5)));
        let two = adds(&store, Some(one), &second);

        assert_eq!(
            store.count_added(MEMORY_REF, None, two, &LISTED).unwrap(),
            Some(355)
        );
        assert_eq!(
            store
                .count_added(MEMORY_REF, Some(one), two, &LISTED)
                .unwrap(),
            Some(50)
        );
        assert_eq!(
            store
                .count_added(MEMORY_REF, Some(two), two, &LISTED)
                .unwrap(),
            Some(0)
        );
        let echoes = [Kind::Echo];
        assert_eq!(
            store
                .count_added(MEMORY_REF, Some(one), two, &echoes)
                .unwrap(),
            Some(3)
        );

        for (old, n) in [(None, 355), (Some(one), 50)] {
            let all = store.records_added(MEMORY_REF, old, two, &LISTED).unwrap();
            assert_eq!(all.len(), n);
            for limit in [0, 1, 5, 6, 40, 100, n, n + 10] {
                let first = store
                    .first_added(MEMORY_REF, old, two, &LISTED, limit)
                    .unwrap();
                assert_eq!(first, all[..limit.min(n)].to_vec(), "limit {limit}");
            }
        }
        // Decisions come first, then the learnings in tree (id) order.
        let first = store
            .first_added(MEMORY_REF, None, two, &LISTED, 7)
            .unwrap();
        assert!(first[..5].iter().all(|r| r.kind() == Kind::Decision));
        assert!(first[5].id < first[6].id);
    }

    #[test]
    fn a_history_that_does_not_say_is_not_counted() {
        let (_dir, store) = crate::store::scratch();
        let a: Vec<Record> = (0..3).map(|i| learning(i, &format!("a{i}"), "v")).collect();
        let b: Vec<Record> = (3..5).map(|i| learning(i, &format!("b{i}"), "v")).collect();
        let one = adds(&store, None, &a);
        // Written by a version without the trailer.
        let old = land(&store, Some(one), &b, "learn\n");
        assert_eq!(
            store
                .count_added(MEMORY_REF, Some(one), old, &LISTED)
                .unwrap(),
            None
        );
        assert_eq!(
            store.count_added(MEMORY_REF, None, old, &LISTED).unwrap(),
            None
        );
        // A sync that rebuilt on the remote's tip: its trailer counts what it admitted.
        let c = [learning(9, "c", "v")];
        let rebuilt = land(
            &store,
            Some(one),
            &c,
            &commit_message("merge memory from origin", 7, 9),
        );
        assert_eq!(
            store
                .count_added(MEMORY_REF, Some(one), rebuilt, &LISTED)
                .unwrap(),
            None
        );
        // A base that is not on the chain.
        let elsewhere = adds(&store, None, &b);
        assert_eq!(
            store
                .count_added(MEMORY_REF, Some(elsewhere), rebuilt, &LISTED)
                .unwrap(),
            None
        );
    }
}
