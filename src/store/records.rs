//! The tree layout of a memory commit: records as JSON lines, sharded by kind and id prefix.
//!
//! `<kind>/<first two hex digits of id>.jsonl`, lines sorted by id, one record a line, plus a
//! `VERSION` blob. The tree is a pure function of the record set, so clones holding the same
//! records hold the same tree OID.

use std::collections::BTreeMap;

use gix::objs::tree::EntryKind;
use gix::ObjectId;

use super::{git_err, Result, StoreError};
use crate::model::Record;

/// Layout version written to the `VERSION` blob.
pub const LAYOUT_VERSION: &str = "git-rune records 1\n";

/// The records of one memory commit, with where each came from.
pub struct RecordTree {
    pub records: Vec<Record>,
}

/// The shard path a record is stored at.
pub fn shard_path(record: &Record) -> String {
    format!(
        "{}/{}.jsonl",
        record.kind().as_str(),
        &record.id[..2.min(record.id.len())]
    )
}

/// Parses the lines of one shard blob; `name` and `path` are for error messages.
pub fn parse_tree_records(
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
    for (i, line) in text.lines().enumerate() {
        if line.is_empty() {
            continue;
        }
        let r = Record::from_line(line).map_err(|e| StoreError::BadRecord {
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
pub fn read_records(repo: &gix::Repository, name: &str, tree: ObjectId) -> Result<RecordTree> {
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
        for shard in sub.entries.iter() {
            if !shard.mode.is_blob() {
                continue;
            }
            let path = format!("{dir_name}/{}", shard.filename);
            let blob = repo
                .find_blob(shard.oid.to_owned())
                .map_err(git_err(format!("cannot read {name}:{path}")))?;
            parse_tree_records(name, &path, &blob.data, &mut records)?;
        }
    }
    Ok(RecordTree { records })
}

/// Writes a tree holding the records of `base` (if any) plus `new`, rewriting only the shards
/// that `new` touches. Returns the new tree id.
pub fn write_records(
    repo: &gix::Repository,
    base: Option<ObjectId>,
    new: &[Record],
) -> Result<ObjectId> {
    let base_tree = base.unwrap_or_else(|| ObjectId::empty_tree(repo.object_hash()));
    let mut by_shard: BTreeMap<String, BTreeMap<&str, String>> = BTreeMap::new();
    for r in new {
        by_shard
            .entry(shard_path(r))
            .or_default()
            .insert(r.id.as_str(), r.to_line());
    }
    let mut editor = repo
        .edit_tree(base_tree)
        .map_err(git_err("cannot edit the memory tree"))?;
    let base_tree_obj = repo
        .find_tree(base_tree)
        .map_err(git_err("cannot read the memory tree"))?;
    for (path, mut lines) in by_shard {
        let existing = base_tree_obj
            .lookup_entry_by_path(&path)
            .map_err(git_err(format!("cannot look up {path}")))?;
        let mut merged: BTreeMap<String, String> = BTreeMap::new();
        if let Some(entry) = existing {
            let blob = repo
                .find_blob(entry.object_id())
                .map_err(git_err(format!("cannot read {path}")))?;
            for line in String::from_utf8_lossy(&blob.data).lines() {
                if let Some(id) = line_id(line) {
                    merged.insert(id.to_owned(), line.to_owned());
                }
            }
        }
        for (id, line) in std::mem::take(&mut lines) {
            merged.insert(id.to_owned(), line);
        }
        let mut data = String::with_capacity(merged.values().map(|l| l.len() + 1).sum());
        for line in merged.values() {
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

/// The id of a stored line without parsing the whole record: lines start `{"id":"<hex>"`.
fn line_id(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("{\"id\":\"")?;
    let end = rest.find('"')?;
    Some(&rest[..end])
}
