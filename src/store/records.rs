//! The tree layout of a memory commit: records as JSON lines, by kind, in small blobs split by
//! id prefix, plus a `VERSION` blob. The tree is a pure function of the record set, so clones
//! holding the same records hold the same tree OID.
//!
//! Past 600 lines: the writer and the reader of one format, which the tests prove inverse;
//! split, each half would restate the layout.
//!
//! Layout 2 (written): a kind of at most [`LEAF`] records is `<kind>/all.jsonl`; a larger one is
//! split by the id's first hex digit, each group of at most [`LEAF`] records a blob
//! `<kind>/<h>.jsonl`, a larger group a directory `<kind>/<h>/` split by the next digit, and so
//! on. A write rewrites one small blob and the trees above it, whatever the memory's size.
//! Layout 1 (read, and migrated by the next write of a ref): `<kind>/all.jsonl` up to 1,024
//! records, `<kind>/<two hex digits>.jsonl` beyond.

use std::collections::{BTreeMap, HashSet};

use gix::objs::tree::EntryKind;
use gix::ObjectId;

use super::objects::ReadObjects as _;
use super::partial::find_blob;
use super::{git_err, Result, StoreError};
use crate::model::Record;

/// Layout version written to the `VERSION` blob.
pub const LAYOUT_VERSION: &str = "git-rune records 2\n";

/// What every layout's `VERSION` blob starts with, followed by the layout number.
const VERSION_PREFIX: &str = "git-rune records ";

/// The newest layout this build reads (and the one it writes).
pub(crate) const LAYOUT: u32 = 2;

/// At most this many records share a blob; a group with more is split by the next id digit.
/// 1,000 single writes then add about 4 MB to `.git` before any gc (docs/performance.md).
pub const LEAF: usize = 32;

/// The layout number a `VERSION` blob names (`None` for something else).
pub(crate) fn layout_of(version: &[u8]) -> Option<u32> {
    std::str::from_utf8(version)
        .ok()?
        .strip_prefix(VERSION_PREFIX)?
        .trim_end()
        .parse()
        .ok()
}

/// The layout of memory tree `tree` of ref `name`: from its `VERSION` blob. A newer layout
/// than this build knows is refused (its records could be missed), and so is a tree without
/// one: every memory commit git-rune ever wrote holds it (layout 1 too), so `name` points at
/// something else, a code commit perhaps, whose files must not be read as memory. One entry
/// lookup in a tree already read.
pub(super) fn tree_layout(repo: &gix::Repository, name: &str, tree: &gix::Tree<'_>) -> Result<u32> {
    let Some(entry) = tree.find_entry("VERSION") else {
        return Err(StoreError::BadRef {
            name: name.into(),
            why: "it points at a commit that is not memory (its tree holds no VERSION)".into(),
        });
    };
    let blob = find_blob(repo, entry.object_id(), &|| "cannot read VERSION".into())?;
    match layout_of(&blob.data) {
        Some(n) if n <= LAYOUT => Ok(n),
        _ => Err(StoreError::Unsupported {
            what: format!(
                "memory was written in a newer layout ({:?}) than this git-rune reads (layout {LAYOUT}); nothing was read or written",
                String::from_utf8_lossy(&blob.data).trim_end()
            ),
            hint: "upgrade git-rune on this machine".into(),
        }),
    }
}

/// Root tree `tree` of `name`, its layout checked ([`tree_layout`]).
pub(super) fn root_tree<'r>(
    repo: &'r gix::Repository,
    name: &str,
    tree: ObjectId,
) -> Result<gix::Tree<'r>> {
    let root = repo
        .read_tree(tree)
        .map_err(git_err(format!("cannot read the tree of {name}")))?;
    tree_layout(repo, name, &root)?;
    Ok(root)
}

/// Parses the lines of one shard blob; `name` and `path` are for error messages.
pub(super) fn parse_tree_records(
    name: &str,
    path: &str,
    data: &[u8],
    out: &mut Vec<Record>,
) -> Result<()> {
    let text = std::str::from_utf8(data).map_err(|_| StoreError::BadRecord {
        name: name.into(),
        path: path.into(),
        line: 0,
        message: "not valid UTF-8".into(),
    })?;
    out.reserve(data.iter().filter(|&&b| b == b'\n').count());
    for (i, line) in text.lines().enumerate() {
        if line.is_empty() {
            continue;
        }
        let r = crate::model::decode_line(line).map_err(|e| StoreError::BadRecord {
            name: name.into(),
            path: path.into(),
            line: i + 1,
            message: e.to_string(),
        })?;
        out.push(r);
    }
    Ok(())
}

/// Reads every record in `tree` (either layout).
pub(crate) fn read_records(
    repo: &gix::Repository,
    name: &str,
    tree: ObjectId,
) -> Result<Vec<Record>> {
    read_blobs(repo, name, &record_blobs(repo, name, tree)?)
}

/// One stored line as `verify` reads it: the blob it is in, its line number, and the record
/// or why it does not decode.
pub(crate) type ReadLine = (String, usize, std::result::Result<Record, String>);

/// Every line of every record blob in `tree`, each with its path, decoded one at a time: a
/// line that does not decode is reported, not fatal. One pass over the blobs, so it is linear
/// in the records however they are laid out.
pub(crate) fn read_lines(
    repo: &gix::Repository,
    name: &str,
    tree: ObjectId,
) -> Result<Vec<ReadLine>> {
    let blobs = record_blobs(repo, name, tree)?;
    let ids: Vec<ObjectId> = blobs.iter().map(|(_, oid)| *oid).collect();
    super::partial::prefetch(repo, &ids)?;
    let mut out = Vec::new();
    for (path, oid) in &blobs {
        let blob = find_blob(repo, *oid, &|| format!("cannot read {name}:{path}"))?;
        for (i, line) in blob.data.split(|&b| b == b'\n').enumerate() {
            if line.is_empty() {
                continue;
            }
            let r = match std::str::from_utf8(line) {
                Ok(text) => crate::model::decode_line(text).map_err(|e| e.to_string()),
                Err(_) => Err("not valid UTF-8".to_owned()),
            };
            out.push((path.clone(), i + 1, r));
        }
    }
    Ok(out)
}

/// The record blobs of `tree` as (path, id) pairs, in tree order (either layout).
fn record_blobs(
    repo: &gix::Repository,
    name: &str,
    tree: ObjectId,
) -> Result<Vec<(String, ObjectId)>> {
    let root = root_tree(repo, name, tree)?;
    let mut blobs = Vec::new();
    for dir in root
        .decode()
        .map_err(git_err("cannot decode tree"))?
        .entries
        .iter()
    {
        if dir.mode.is_tree() {
            let dir_name = dir.filename.to_string();
            collect_blobs(repo, name, dir.oid.to_owned(), &dir_name, &mut blobs)?;
        }
    }
    Ok(blobs)
}

/// Parses the record blobs `blobs` ((path, id) pairs), fetching those a partial clone lacks
/// in one go first (a no-op in a full clone).
fn read_blobs(
    repo: &gix::Repository,
    name: &str,
    blobs: &[(String, ObjectId)],
) -> Result<Vec<Record>> {
    let ids: Vec<ObjectId> = blobs.iter().map(|(_, oid)| *oid).collect();
    super::partial::prefetch(repo, &ids)?;
    let mut records = Vec::new();
    for (path, oid) in blobs {
        let blob = find_blob(repo, *oid, &|| format!("cannot read {name}:{path}"))?;
        parse_tree_records(name, path, &blob.data, &mut records)?;
    }
    Ok(records)
}

/// The record blobs under directory `dir` (tree `tree`), at any depth: (path, blob id), in
/// tree order.
fn collect_blobs(
    repo: &gix::Repository,
    name: &str,
    tree: ObjectId,
    dir: &str,
    out: &mut Vec<(String, ObjectId)>,
) -> Result<()> {
    let sub = repo
        .read_tree(tree)
        .map_err(git_err(format!("cannot read {name}:{dir}")))?;
    let decoded = sub.decode().map_err(git_err("cannot decode tree"))?;
    for e in &decoded.entries {
        let path = format!("{dir}/{}", e.filename);
        if e.mode.is_blob() {
            out.push((path, e.oid.to_owned()));
        } else if e.mode.is_tree() {
            collect_blobs(repo, name, e.oid.to_owned(), &path, out)?;
        }
    }
    Ok(())
}

/// The record blobs of directory `dir` that only one of its versions `old` and `new` (either
/// may be absent) holds: (only in old, only in new), as (path, blob id), in tree order. A blob
/// both hold, wherever it moved, holds the same records.
pub(super) fn changed_blobs(
    repo: &gix::Repository,
    name: &str,
    dir: &str,
    old: Option<ObjectId>,
    new: Option<ObjectId>,
) -> Result<(BlobList, BlobList)> {
    let mut diff = (Vec::new(), Vec::new());
    diff_blobs(repo, name, dir, old, new, &mut diff)?;
    let (old_blobs, new_blobs) = diff;
    let in_old: HashSet<ObjectId> = old_blobs.iter().map(|(_, o)| *o).collect();
    let in_new: HashSet<ObjectId> = new_blobs.iter().map(|(_, o)| *o).collect();
    Ok((
        old_blobs
            .into_iter()
            .filter(|(_, o)| !in_new.contains(o))
            .collect(),
        new_blobs
            .into_iter()
            .filter(|(_, o)| !in_old.contains(o))
            .collect(),
    ))
}

/// The record ids in `blobs` (the start of each line; nothing is decoded); `at` names where
/// the blobs are in an error (`refs/rune/memory:`).
pub(super) fn ids_in<'a>(
    repo: &gix::Repository,
    at: &str,
    blobs: impl IntoIterator<Item = &'a (String, ObjectId)>,
) -> Result<HashSet<String>> {
    let mut out = HashSet::new();
    for (path, oid) in blobs {
        let blob = find_blob(repo, *oid, &|| format!("cannot read {at}{path}"))?;
        for line in String::from_utf8_lossy(&blob.data).lines() {
            if let Some(id) = crate::model::line_id(line) {
                out.insert(id.to_owned());
            }
        }
    }
    Ok(out)
}

/// The record blobs that differ between directories `old` and `new` (either may be absent),
/// skipping subtrees both hold: (only in old, only in new), as (path, blob id).
pub(super) type BlobList = Vec<(String, ObjectId)>;
fn diff_blobs(
    repo: &gix::Repository,
    name: &str,
    dir: &str,
    old: Option<ObjectId>,
    new: Option<ObjectId>,
    out: &mut (BlobList, BlobList),
) -> Result<()> {
    if old == new {
        return Ok(());
    }
    let entries = |tree: Option<ObjectId>| -> Result<Entries> {
        tree.map_or(Ok(BTreeMap::new()), |t| read_entries(repo, name, dir, t))
    };
    for (entry, (old_blob, old_tree), (new_blob, new_tree)) in
        differing(&entries(old)?, &entries(new)?)
    {
        let path = format!("{dir}/{entry}");
        out.0.extend(old_blob.map(|blob| (path.clone(), blob)));
        out.1.extend(new_blob.map(|blob| (path.clone(), blob)));
        if old_tree.is_some() || new_tree.is_some() {
            diff_blobs(repo, name, &path, old_tree, new_tree, out)?;
        }
    }
    Ok(())
}

/// A tree's entries by name: (whether it is a tree, its id).
pub(super) type Entries = BTreeMap<String, (bool, ObjectId)>;

/// The blob and tree entries of directory `dir` (tree `tree`) of `name`.
pub(super) fn read_entries(
    repo: &gix::Repository,
    name: &str,
    dir: &str,
    tree: ObjectId,
) -> Result<Entries> {
    let t = repo
        .read_tree(tree)
        .map_err(git_err(format!("cannot read {name}:{dir}")))?;
    Ok(entries_of(
        &t.decode().map_err(git_err("cannot decode tree"))?,
    ))
}

/// The blob and tree entries of a decoded tree.
pub(super) fn entries_of(tree: &gix::objs::TreeRef<'_>) -> Entries {
    let entries = tree.entries.iter();
    let entries = entries.filter(|e| e.mode.is_blob() || e.mode.is_tree());
    entries
        .map(|e| (e.filename.to_string(), (e.mode.is_tree(), e.oid.to_owned())))
        .collect()
}

/// The names `old` and `new` disagree on, in order, each with either side's (blob, subtree).
pub(super) fn differing<'a>(
    old: &'a Entries,
    new: &'a Entries,
) -> Vec<(&'a String, EntrySide, EntrySide)> {
    let mut names: Vec<&String> = old.keys().chain(new.keys()).collect();
    names.sort();
    names.dedup();
    names.retain(|n| old.get(*n) != new.get(*n));
    let side = |e: Option<&(bool, ObjectId)>| {
        let id = |tree: bool| e.filter(|e| e.0 == tree).map(|e| e.1);
        (id(false), id(true))
    };
    let sides = |n: &'a String| (n, side(old.get(n)), side(new.get(n)));
    names.into_iter().map(sides).collect()
}

/// One side of an entry [`differing`] reports: its blob, or its subtree.
pub(super) type EntrySide = (Option<ObjectId>, Option<ObjectId>);

/// The records of the `kinds` directories in tree `new` that tree `old` lacks, reading only
/// the blobs that differ: a blob both trees hold has the same records on both sides, so a
/// commit that added one decision costs one blob however large memory is.
pub(crate) fn added_records(
    repo: &gix::Repository,
    name: &str,
    old: Option<ObjectId>,
    new: ObjectId,
    kinds: &[&str],
) -> Result<Vec<Record>> {
    Ok(changes(repo, name, old, new, Some(kinds))?.0)
}

/// What tree `new` holds that tree `old` lacks, over every kind, and whether `old` holds a
/// record `new` does not (a history rewrite, never a write or a merge: those only add).
/// Reads only the blobs that differ, as [`added_records`].
pub(crate) fn tree_changes(
    repo: &gix::Repository,
    name: &str,
    old: Option<ObjectId>,
    new: ObjectId,
) -> Result<(Vec<Record>, bool)> {
    changes(repo, name, old, new, None)
}

fn changes(
    repo: &gix::Repository,
    name: &str,
    old: Option<ObjectId>,
    new: ObjectId,
    kinds: Option<&[&str]>,
) -> Result<(Vec<Record>, bool)> {
    let mut out = Vec::new();
    let mut removed = false;
    let new_root = root_tree(repo, name, new)?;
    let old_root = old.map(|old| root_tree(repo, name, old)).transpose()?;
    let dir_of = |root: &gix::Tree<'_>, kind: &str| {
        root.find_entry(kind)
            .filter(|e| e.mode().is_tree())
            .map(|e| e.object_id())
    };
    let all_kinds;
    let kinds = match kinds {
        Some(k) => k,
        None => {
            let mut names = std::collections::BTreeSet::new();
            for root in std::iter::once(&new_root).chain(old_root.as_ref()) {
                for e in &root
                    .decode()
                    .map_err(git_err("cannot decode tree"))?
                    .entries
                {
                    if e.mode.is_tree() {
                        names.insert(e.filename.to_string());
                    }
                }
            }
            all_kinds = names;
            &all_kinds.iter().map(String::as_str).collect::<Vec<_>>()[..]
        }
    };
    for kind in kinds {
        let old_dir = old_root.as_ref().and_then(|t| dir_of(t, kind));
        let new_dir = dir_of(&new_root, kind);
        let (old_blobs, new_blobs) = changed_blobs(repo, name, kind, old_dir, new_dir)?;
        // Ids in old blobs that are gone from the new tree (rewritten or re-laid-out blobs).
        let known = ids_in(repo, &format!("{name}:"), &old_blobs)?;
        let mut seen = 0;
        for (path, oid) in &new_blobs {
            let blob = find_blob(repo, *oid, &|| format!("cannot read {name}:{path}"))?;
            let mut records = Vec::new();
            parse_tree_records(name, path, &blob.data, &mut records)?;
            for r in records {
                if known.contains(&r.id) {
                    seen += 1;
                } else {
                    out.push(r);
                }
            }
        }
        // Every id the old blobs held shows up again in the new ones, or one was removed
        // (ids are unique in a tree, so counting suffices).
        removed |= seen != known.len();
    }
    Ok((out, removed))
}

/// The records of only the `kinds` directories of `tree`.
pub(crate) fn kind_records(
    repo: &gix::Repository,
    name: &str,
    tree: ObjectId,
    kinds: &[&str],
) -> Result<Vec<Record>> {
    let root = root_tree(repo, name, tree)?;
    let mut blobs = Vec::new();
    for kind in kinds {
        if let Some(dir) = root.find_entry(*kind).filter(|e| e.mode().is_tree()) {
            collect_blobs(repo, name, dir.object_id(), kind, &mut blobs)?;
        }
    }
    read_blobs(repo, name, &blobs)
}

/// Writes a tree holding the records of `base` (if any) plus `new`, rewriting only the blobs
/// that `new` touches and the trees above them. The layout is a function of the record set
/// alone (module docs). A base in layout 1 is laid out afresh with all its records: the
/// migration, after which the ref's trees are in layout 2. `name` is the ref the tree is for
/// (a base that is no memory tree is its damage).
pub(crate) fn write_records(
    repo: &gix::Repository,
    name: &str,
    base: Option<ObjectId>,
    new: &[Record],
) -> Result<ObjectId> {
    let empty = ObjectId::empty_tree(repo.object_hash());
    let mut base_tree = base.unwrap_or(empty);
    let migrated;
    let mut new = new;
    if base_tree != empty {
        let tree = repo
            .read_tree(base_tree)
            .map_err(git_err("cannot read the memory tree"))?;
        if tree_layout(repo, name, &tree)? < LAYOUT {
            let mut all = read_records(repo, name, base_tree)?;
            all.extend(new.iter().cloned());
            migrated = all;
            new = &migrated;
            base_tree = empty;
        }
    }
    let mut by_kind: BTreeMap<&str, BTreeMap<String, String>> = BTreeMap::new();
    for r in new {
        by_kind
            .entry(r.tag())
            .or_default()
            .insert(r.id.clone(), r.to_line());
    }
    let base_tree_obj = repo
        .read_tree(base_tree)
        .map_err(git_err("cannot read the memory tree"))?;
    let mut placer = Placer {
        repo,
        edits: Vec::new(),
    };
    for (kind, lines) in by_kind {
        let node = match base_tree_obj
            .find_entry(kind)
            .filter(|e| e.mode().is_tree())
        {
            Some(dir) => {
                let dir = repo
                    .read_tree(dir.object_id())
                    .map_err(git_err(format!("cannot read {kind}")))?;
                match dir.find_entry("all.jsonl") {
                    Some(all) => Node::Leaf(all.object_id()),
                    None => Node::Dir(dir.id),
                }
            }
            None => Node::Absent,
        };
        placer.insert(kind, &format!("{kind}/all.jsonl"), 0, node, lines)?;
    }
    let mut editor = repo
        .edit_tree(base_tree)
        .map_err(git_err("cannot edit the memory tree"))?;
    for edit in placer.edits {
        match edit {
            Edit::Remove(path) => editor
                .remove(path.as_str())
                .map_err(git_err(format!("cannot remove {path}")))?,
            Edit::Put(path, blob) => editor
                .upsert(path.as_str(), EntryKind::Blob, blob)
                .map_err(git_err(format!("cannot place {path}")))?,
        };
    }
    let version = repo
        .write_blob(LAYOUT_VERSION.as_bytes())
        .map_err(git_err("cannot write the VERSION blob"))?;
    editor
        .upsert("VERSION", EntryKind::Blob, version.detach())
        .map_err(git_err("cannot place VERSION"))?;
    let id = editor
        .write()
        .map_err(git_err("cannot write the memory tree"))?;
    Ok(id.detach())
}

/// What a place in the layout holds before a write.
enum Node {
    Absent,
    /// A blob of at most [`LEAF`] records.
    Leaf(ObjectId),
    /// A directory split by the next id digit (the tree's id).
    Dir(ObjectId),
}

enum Edit {
    Remove(String),
    Put(String, ObjectId),
}

/// Places new record lines in the layout, collecting the tree edits that do it.
struct Placer<'r> {
    repo: &'r gix::Repository,
    edits: Vec<Edit>,
}

impl Placer<'_> {
    /// Adds `new` (id → line) to `node`, the place at directory `dir` (or, as one blob, at
    /// `leaf`) whose records share the first `depth` digits of their ids.
    fn insert(
        &mut self,
        dir: &str,
        leaf: &str,
        depth: usize,
        node: Node,
        new: BTreeMap<String, String>,
    ) -> Result<()> {
        match node {
            Node::Dir(tree) => {
                let tree = self
                    .repo
                    .read_tree(tree)
                    .map_err(git_err(format!("cannot read {dir}")))?;
                for (digit, group) in split(depth, new) {
                    let blob_name = format!("{digit}.jsonl");
                    let child = if let Some(e) = tree.find_entry(blob_name.as_str()) {
                        Node::Leaf(e.object_id())
                    } else if let Some(e) = tree
                        .find_entry(digit.as_str())
                        .filter(|e| e.mode().is_tree())
                    {
                        Node::Dir(e.object_id())
                    } else {
                        Node::Absent
                    };
                    let child_dir = format!("{dir}/{digit}");
                    let child_leaf = format!("{dir}/{blob_name}");
                    self.insert(&child_dir, &child_leaf, depth + 1, child, group)?;
                }
                Ok(())
            }
            Node::Leaf(blob) => {
                let mut lines = read_blob_lines(self.repo, blob, leaf)?;
                lines.extend(new);
                if lines.len() > LEAF {
                    // Sets only grow: the blob becomes a directory for good.
                    self.edits.push(Edit::Remove(leaf.to_owned()));
                }
                self.lay_out(dir, leaf, depth, lines)
            }
            Node::Absent => self.lay_out(dir, leaf, depth, new),
        }
    }

    /// Writes `lines` as the place at `dir`: one blob at `leaf` when they are few enough, else
    /// split by the id digit at `depth`.
    fn lay_out(
        &mut self,
        dir: &str,
        leaf: &str,
        depth: usize,
        lines: BTreeMap<String, String>,
    ) -> Result<()> {
        if lines.len() <= LEAF || depth >= 64 {
            let mut data = String::with_capacity(lines.values().map(|l| l.len() + 1).sum());
            for line in lines.values() {
                data.push_str(line);
                data.push('\n');
            }
            let blob = self
                .repo
                .write_blob(data.as_bytes())
                .map_err(git_err("cannot write a record blob"))?;
            self.edits.push(Edit::Put(leaf.to_owned(), blob.detach()));
            return Ok(());
        }
        for (digit, group) in split(depth, lines) {
            let child_dir = format!("{dir}/{digit}");
            let child_leaf = format!("{dir}/{digit}.jsonl");
            self.lay_out(&child_dir, &child_leaf, depth + 1, group)?;
        }
        Ok(())
    }
}

/// Groups lines by the id's digit at `depth` (ids are lower-case hex; anything else groups
/// under `_`, so a damaged id cannot make a path).
fn split(
    depth: usize,
    lines: BTreeMap<String, String>,
) -> BTreeMap<String, BTreeMap<String, String>> {
    let mut out: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for (id, line) in lines {
        let digit = match id.as_bytes().get(depth) {
            Some(&c) if c.is_ascii_digit() || (b'a'..=b'f').contains(&c) => char::from(c),
            _ => '_',
        };
        out.entry(digit.to_string()).or_default().insert(id, line);
    }
    out
}

/// The lines of blob `blob`, keyed by record id; `path` for error messages.
fn read_blob_lines(
    repo: &gix::Repository,
    blob: ObjectId,
    path: &str,
) -> Result<BTreeMap<String, String>> {
    let blob = find_blob(repo, blob, &|| format!("cannot read {path}"))?;
    let mut out = BTreeMap::new();
    for line in String::from_utf8_lossy(&blob.data).lines() {
        if let Some(id) = crate::model::line_id(line) {
            out.insert(id.to_owned(), line.to_owned());
        }
    }
    Ok(out)
}

#[cfg(test)]
#[path = "records_tests.rs"]
mod tests;
