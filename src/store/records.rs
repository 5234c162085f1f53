//! The tree layout of a memory commit: records as JSON lines, sharded by kind and id prefix.
//!
//! `<kind>/all.jsonl` (or, past [`SMALL_KIND`] records, `<kind>/<first two hex digits of
//! id>.jsonl`), lines sorted by id, one record a line, plus a `VERSION` blob. The tree is a pure function of the record set, so clones holding the same
//! records hold the same tree OID.

use std::collections::BTreeMap;

use gix::objs::tree::EntryKind;
use gix::ObjectId;

use super::partial::find_blob;
use super::{git_err, Result, StoreError};
use crate::model::Record;

/// Layout version written to the `VERSION` blob.
pub const LAYOUT_VERSION: &str = "git-rune records 1\n";

/// Up to this many records a kind is one blob (`<kind>/all.jsonl`); beyond it, shards by id
/// prefix, so a write rewrites a small blob and a small memory is read in a few objects.
pub const SMALL_KIND: usize = 1024;

/// The blob name of a record in a sharded kind.
fn shard_name(id: &str) -> String {
    format!("{}.jsonl", &id[..2.min(id.len())])
}

/// Parses the lines of one shard blob; `name` and `path` are for error messages.
fn parse_tree_records(name: &str, path: &str, data: &[u8], out: &mut Vec<Record>) -> Result<()> {
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

/// Reads every record in `tree`.
pub(crate) fn read_records(
    repo: &gix::Repository,
    name: &str,
    tree: ObjectId,
) -> Result<Vec<Record>> {
    let mut records = Vec::new();
    let root = repo
        .find_tree(tree)
        .map_err(git_err(format!("cannot read the tree of {name}")))?;
    for dir in root
        .decode()
        .map_err(git_err("cannot decode tree"))?
        .entries
        .iter()
    {
        if !dir.mode.is_tree() {
            continue;
        }
        let dir_name = dir.filename.to_string();
        let sub = repo
            .find_tree(dir.oid.to_owned())
            .map_err(git_err(format!("cannot read {name}:{dir_name}")))?;
        let sub = sub.decode().map_err(git_err("cannot decode tree"))?;
        let shards: Vec<_> = sub.entries.iter().filter(|e| e.mode.is_blob()).collect();
        // A partial clone fetches what it lacks in one go (a no-op in a full clone).
        let ids: Vec<ObjectId> = shards.iter().map(|e| e.oid.to_owned()).collect();
        super::partial::prefetch(repo, &ids)?;
        for shard in shards {
            let path = format!("{dir_name}/{}", shard.filename);
            let blob = find_blob(repo, shard.oid.to_owned(), &|| {
                format!("cannot read {name}:{path}")
            })?;
            parse_tree_records(name, &path, &blob.data, &mut records)?;
        }
    }
    Ok(records)
}

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
    let mut out = Vec::new();
    for kind in kinds {
        let new_blobs = kind_blobs(repo, name, new, kind)?;
        let old_blobs = match old {
            Some(old) => kind_blobs(repo, name, old, kind)?,
            None => Vec::new(),
        };
        if new_blobs == old_blobs {
            continue;
        }
        let old_oids: std::collections::HashSet<ObjectId> =
            old_blobs.iter().map(|(_, oid)| *oid).collect();
        let new_oids: std::collections::HashSet<ObjectId> =
            new_blobs.iter().map(|(_, oid)| *oid).collect();
        // Ids in old blobs that are gone from the new tree (rewritten or re-laid-out blobs).
        let mut known = std::collections::HashSet::new();
        for (path, oid) in old_blobs.iter().filter(|(_, o)| !new_oids.contains(o)) {
            let blob = find_blob(repo, *oid, &|| format!("cannot read {name}:{path}"))?;
            for line in String::from_utf8_lossy(&blob.data).lines() {
                if let Some(id) = crate::model::line_id(line) {
                    known.insert(id.to_owned());
                }
            }
        }
        for (path, oid) in new_blobs.iter().filter(|(_, o)| !old_oids.contains(o)) {
            let blob = find_blob(repo, *oid, &|| format!("cannot read {name}:{path}"))?;
            let mut records = Vec::new();
            parse_tree_records(name, path, &blob.data, &mut records)?;
            out.extend(records.into_iter().filter(|r| !known.contains(&r.id)));
        }
    }
    Ok(out)
}

/// The records of only the `kinds` directories of `tree`.
pub(crate) fn kind_records(
    repo: &gix::Repository,
    name: &str,
    tree: ObjectId,
    kinds: &[&str],
) -> Result<Vec<Record>> {
    let mut out = Vec::new();
    for kind in kinds {
        for (path, oid) in kind_blobs(repo, name, tree, kind)? {
            let blob = find_blob(repo, oid, &|| format!("cannot read {name}:{path}"))?;
            parse_tree_records(name, &path, &blob.data, &mut out)?;
        }
    }
    Ok(out)
}

/// The blobs of `<kind>/` in a memory tree: (path, blob id), in tree order.
fn kind_blobs(
    repo: &gix::Repository,
    name: &str,
    tree: ObjectId,
    kind: &str,
) -> Result<Vec<(String, ObjectId)>> {
    let root = repo
        .find_tree(tree)
        .map_err(git_err(format!("cannot read the tree of {name}")))?;
    let Some(entry) = root
        .find_entry(kind)
        .filter(|e| e.mode().is_tree())
        .map(|e| e.object_id())
    else {
        return Ok(Vec::new());
    };
    let sub = repo
        .find_tree(entry)
        .map_err(git_err(format!("cannot read {name}:{kind}")))?;
    let decoded = sub.decode().map_err(git_err("cannot decode tree"))?;
    Ok(decoded
        .entries
        .iter()
        .filter(|e| e.mode.is_blob())
        .map(|e| (format!("{kind}/{}", e.filename), e.oid.to_owned()))
        .collect())
}

/// Writes a tree holding the records of `base` (if any) plus `new`, rewriting only the blobs
/// that `new` touches. The layout is a function of the record set alone: a kind with at most
/// [`SMALL_KIND`] records is `<kind>/all.jsonl`, a larger one `<kind>/<xx>.jsonl` shards.
pub(crate) fn write_records(
    repo: &gix::Repository,
    base: Option<ObjectId>,
    new: &[Record],
) -> Result<ObjectId> {
    let base_tree = base.unwrap_or_else(|| ObjectId::empty_tree(repo.object_hash()));
    let mut by_kind: BTreeMap<&str, Vec<&Record>> = BTreeMap::new();
    for r in new {
        by_kind.entry(r.kind().as_str()).or_default().push(r);
    }
    let mut editor = repo
        .edit_tree(base_tree)
        .map_err(git_err("cannot edit the memory tree"))?;
    let base_tree_obj = repo
        .find_tree(base_tree)
        .map_err(git_err("cannot read the memory tree"))?;
    for (kind, records) in by_kind {
        let all_path = format!("{kind}/all.jsonl");
        let sharded = base_tree_obj
            .lookup_entry_by_path(kind)
            .map_err(git_err(format!("cannot look up {kind}")))?
            .is_some()
            && base_tree_obj
                .lookup_entry_by_path(&all_path)
                .map_err(git_err(format!("cannot look up {all_path}")))?
                .is_none();
        // Group the new lines by the blob they belong in, starting from that blob's lines.
        let mut blobs: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
        if sharded {
            for r in records {
                let path = format!("{kind}/{}", shard_name(&r.id));
                if !blobs.contains_key(&path) {
                    let lines = read_lines(repo, &base_tree_obj, &path)?;
                    blobs.insert(path.clone(), lines);
                }
                blobs
                    .entry(path)
                    .or_default()
                    .insert(r.id.clone(), r.to_line());
            }
        } else {
            let mut lines = read_lines(repo, &base_tree_obj, &all_path)?;
            for r in records {
                lines.insert(r.id.clone(), r.to_line());
            }
            if lines.len() <= SMALL_KIND {
                blobs.insert(all_path, lines);
            } else {
                // Crossing the threshold: the kind becomes shards, for good (sets only grow).
                editor
                    .remove(all_path.as_str())
                    .map_err(git_err(format!("cannot remove {all_path}")))?;
                for (id, line) in lines {
                    blobs
                        .entry(format!("{kind}/{}", shard_name(&id)))
                        .or_default()
                        .insert(id, line);
                }
            }
        }
        for (path, lines) in blobs {
            let mut data = String::with_capacity(lines.values().map(|l| l.len() + 1).sum());
            for line in lines.values() {
                data.push_str(line);
                data.push('\n');
            }
            let blob = repo
                .write_blob(data.as_bytes())
                .map_err(git_err("cannot write a record blob"))?;
            editor
                .upsert(path.as_str(), EntryKind::Blob, blob.detach())
                .map_err(git_err(format!("cannot place {path}")))?;
        }
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

/// The lines of one blob in `tree`, keyed by record id (empty when the blob is absent).
fn read_lines(
    repo: &gix::Repository,
    tree: &gix::Tree<'_>,
    path: &str,
) -> Result<BTreeMap<String, String>> {
    let mut out = BTreeMap::new();
    let Some(entry) = tree
        .lookup_entry_by_path(path)
        .map_err(git_err(format!("cannot look up {path}")))?
    else {
        return Ok(out);
    };
    let blob = find_blob(repo, entry.object_id(), &|| format!("cannot read {path}"))?;
    for line in String::from_utf8_lossy(&blob.data).lines() {
        if let Some(id) = crate::model::line_id(line) {
            out.insert(id.to_owned(), line.to_owned());
        }
    }
    Ok(out)
}
