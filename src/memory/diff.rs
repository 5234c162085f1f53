//! How memory changed between two points: per view file, the records added, edited and
//! removed, and a unified diff of the file as the view renders it (`similar`).
//!
//! A point is a memory commit (it stands for its own ref only), a code commit (memory as its
//! note names it, both refs), the memory as of the last save, or memory now.

use anyhow::Result;
use similar::TextDiff;

use super::Snapshot;
use crate::error::user_error;
use crate::model::{fold, Record, State};
use crate::notes::at::snapshot_at;
use crate::store::{branch_ref, Store, MEMORY_REF};
use crate::text::short;
use crate::view::{self, ViewFile};

/// One side of a diff.
pub struct Point {
    /// How the side is named in headers: `refs/rune/memory@1a2b3c4d`, `HEAD~2`, `last save`,
    /// `now`.
    pub label: String,
    state: State,
}

/// The changes to one view file.
#[derive(Debug, Default)]
pub struct FileDiff {
    pub file: Option<ViewFile>,
    pub added: Vec<String>,
    /// `(old id, new id)`: a record edited into another.
    pub changed: Vec<(String, String)>,
    pub removed: Vec<String>,
    /// The unified diff of the rendered file (empty when the text is the same).
    pub text: String,
}

/// A whole diff.
pub struct MemoryDiff {
    pub from: String,
    pub to: String,
    pub files: Vec<FileDiff>,
}

/// Resolves `range` (`<rev>`, `<rev>..<rev>`, or nothing: since the last save) and compares,
/// limited to `only` when given.
pub fn diff(store: &Store, range: Option<&str>, only: Option<ViewFile>) -> Result<MemoryDiff> {
    let (from, to) = match range {
        None => (last_save(store)?, now(store, None)?),
        Some(r) => match r.split_once("..") {
            Some((a, b)) => {
                let a = if a.is_empty() { "HEAD" } else { a };
                let b = if b.is_empty() { "HEAD" } else { b };
                (point(store, a)?.0, point(store, b)?.0)
            }
            None => {
                let (from, memory_ref) = point(store, r)?;
                (from, now(store, memory_ref.as_deref())?)
            }
        },
    };
    let files = ViewFile::ALL
        .into_iter()
        .filter(|f| only.is_none_or(|o| o == *f))
        .map(|f| compare(f, &from.state, &to.state))
        .filter(|d| !d.text.is_empty() || !d.added.is_empty() || !d.removed.is_empty())
        .collect();
    Ok(MemoryDiff {
        from: from.label,
        to: to.label,
        files,
    })
}

/// A revision as a point; for a memory commit, also the ref it belongs to.
fn point(store: &Store, rev: &str) -> Result<(Point, Option<String>)> {
    let id = store.resolve_commit(rev).ok_or_else(|| {
        user_error(
            format!("{rev:?} does not name a commit here"),
            "pass a memory commit (see `git rune log`), a code commit (HEAD~2, a branch, an id) or A..B",
        )
    })?;
    if store.is_memory_commit(id) {
        let name = store
            .memory_ref_of(id)?
            .unwrap_or_else(|| MEMORY_REF.to_owned());
        let records = store.records_at(&name, id)?;
        return Ok((
            Point {
                label: format!("{}@{}", name, short(&id.to_string())),
                state: fold(records.iter()),
            },
            Some(name),
        ));
    }
    let snap = snapshot_at(store, id)?;
    Ok((
        Point {
            label: rev.to_owned(),
            state: snap.state,
        },
        None,
    ))
}

/// Memory now: both refs, or only `memory_ref` when the other side is a memory commit.
fn now(store: &Store, memory_ref: Option<&str>) -> Result<Point> {
    let state = match memory_ref {
        Some(name) => fold(store.records(name)?.1.iter()),
        None => Snapshot::read(store)?.state,
    };
    Ok(Point {
        label: "now".into(),
        state,
    })
}

/// Memory as of the last save on this branch: each ref's newest commit no later than the
/// last session record (nothing before the first save).
fn last_save(store: &Store) -> Result<Point> {
    let snap = Snapshot::read(store)?;
    let Some(session) = snap.state.last_session() else {
        return Ok(Point {
            label: "no save yet".into(),
            state: State::default(),
        });
    };
    let at = chrono::DateTime::parse_from_rfc3339(&session.meta.ts)
        .map(|t| t.timestamp())
        .unwrap_or(i64::MAX);
    let branch = branch_ref(snap.head.branch.as_deref());
    let mut records: Vec<Record> = Vec::new();
    for name in [MEMORY_REF, branch.as_str()] {
        if let Some(tip) = store.tip_before(name, at)? {
            records.extend(store.tip_records(name, tip)?.iter().cloned());
        }
    }
    Ok(Point {
        label: "last save".into(),
        state: fold(records.iter()),
    })
}

/// Compares one view file's records and text between two states.
fn compare(file: ViewFile, old: &State, new: &State) -> FileDiff {
    let live = |s: &State| -> Vec<Record> {
        if file == ViewFile::Checkpoint {
            s.open_checkpoint().cloned().into_iter().collect()
        } else {
            s.of_kind(file.kind()).to_vec()
        }
    };
    let (old_live, new_live) = (live(old), live(new));
    let old_ids: std::collections::HashSet<&str> = old_live.iter().map(|r| r.id.as_str()).collect();
    let new_ids: std::collections::HashSet<&str> = new_live.iter().map(|r| r.id.as_str()).collect();
    let mut out = FileDiff {
        file: Some(file),
        ..FileDiff::default()
    };
    let mut edited = std::collections::HashSet::new();
    for r in new_live.iter().filter(|r| !old_ids.contains(r.id.as_str())) {
        match r
            .meta
            .supersedes
            .iter()
            .find(|s| old_ids.contains(s.as_str()))
        {
            Some(before) => {
                edited.insert(before.clone());
                out.changed.push((before.clone(), r.id.clone()));
            }
            None => out.added.push(r.id.clone()),
        }
    }
    out.removed = old_live
        .iter()
        .filter(|r| !new_ids.contains(r.id.as_str()) && !edited.contains(&r.id))
        .map(|r| r.id.clone())
        .collect();
    let (a, b) = (view::render(file, old), view::render(file, new));
    if a != b {
        let name = format!(".rune/{}", file.name());
        out.text = TextDiff::from_lines(&a, &b)
            .unified_diff()
            .context_radius(3)
            .header(&format!("a/{name}"), &format!("b/{name}"))
            .to_string();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::testing::decision;

    #[test]
    fn records_are_added_changed_or_removed() {
        let a = decision(1, "A", &[]);
        let b = decision(2, "B", &[]);
        let a2 = decision(3, "A2", &[&a.id]);
        let c = decision(4, "C", &[]);
        let old = fold([&a, &b]);
        let new = fold([&a, &b, &a2, &c]);
        let d = compare(ViewFile::Decisions, &old, &fold([&a2]));
        // From {A, B} to {A2} alone: A edited into A2, B removed.
        assert_eq!(d.changed, vec![(a.id.clone(), a2.id.clone())]);
        assert_eq!(d.removed, vec![b.id.clone()]);
        assert!(d.added.is_empty());
        let d = compare(ViewFile::Decisions, &old, &new);
        assert_eq!(d.added, vec![c.id.clone()]);
        assert!(d
            .text
            .starts_with("--- a/.rune/decisions.md\n+++ b/.rune/decisions.md\n"));
        let same = compare(ViewFile::Decisions, &new, &new);
        assert!(same.text.is_empty() && same.added.is_empty() && same.removed.is_empty());
    }
}
