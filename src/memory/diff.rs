//! How memory changed between two points: per view file, the records added, edited and
//! removed, and a unified diff of the file as the view renders it (`similar`).
//!
//! A point is a memory commit (it stands for its own ref only), memory now, as of the last
//! save, or any folded state (`read` makes one for a code commit, through its note).

use std::collections::HashSet;

use anyhow::Result;
use similar::TextDiff;

use super::Snapshot;
use crate::integrity::verdicts::Verdicts;
use crate::model::{fold, Kind, Record, State};
use crate::store::{branch_ref, ObjectId, Store, MEMORY_REF};
use crate::text::short;
use crate::view::{self, ViewFile};

/// One side of a diff: a folded memory state and how to name it.
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

impl Point {
    /// A folded state under a name (memory as of a code commit, say).
    pub fn new(label: impl Into<String>, state: State) -> Point {
        Point {
            label: label.into(),
            state,
        }
    }

    /// Whether `id` is a memory commit (and so stands for its own ref only).
    pub fn is_memory_commit(store: &Store, id: ObjectId) -> bool {
        store.is_memory_commit(id)
    }

    /// A memory commit: the records of that commit alone; also returns the ref it is on.
    pub fn memory_commit(store: &Store, id: ObjectId) -> Result<(Point, String)> {
        let name = store
            .memory_ref_of(id)?
            .unwrap_or_else(|| MEMORY_REF.to_owned());
        let records = store.records_at(&name, id)?;
        let label = format!("{}@{}", name, short(&id.to_string()));
        Ok((Point::new(label, fold(records.iter())), name))
    }

    /// Memory now: both refs of the current branch, or only `memory_ref` (to compare with a
    /// memory commit of that ref).
    pub fn now(store: &Store, memory_ref: Option<&str>) -> Result<Point> {
        let state = match memory_ref {
            Some(name) => fold(store.records(name)?.1.iter()),
            None => Snapshot::read(store)?.state,
        };
        Ok(Point::new("now", state))
    }

    /// Memory as of the last save on this branch: each ref's newest commit no later than the
    /// last session record (nothing before the first save).
    pub fn last_save(store: &Store) -> Result<Point> {
        let snap = Snapshot::read(store)?;
        let Some(session) = snap.state.last_session() else {
            return Ok(Point::new("no save yet", State::default()));
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
        Ok(Point::new("last save", fold(records.iter())))
    }
}

/// Compares two points per view file (only `only` when given); files without a change are
/// left out.
pub fn diff(from: &Point, to: &Point, only: Option<ViewFile>) -> MemoryDiff {
    // As every reader shows records: SUSPICIOUS ones marked (a marked copy keeps its id), and
    // withheld ones as their placeholders.
    let (mut old, mut new) = (from.state.clone(), to.state.clone());
    let (was, is) = (Verdicts::of(&old, Kind::ALL), Verdicts::of(&new, Kind::ALL));
    was.mark(&mut old, true);
    is.mark(&mut new, true);
    let mut hidden = was.withheld;
    hidden.extend(is.withheld);
    let files = ViewFile::ALL
        .into_iter()
        .filter(|f| only.is_none_or(|o| o == *f))
        .map(|f| compare(f, &old, &new, &hidden))
        .filter(|d| !d.text.is_empty() || !d.added.is_empty() || !d.removed.is_empty())
        .collect();
    MemoryDiff {
        from: from.label.clone(),
        to: to.label.clone(),
        files,
    }
}

/// Compares one view file's records and text between two states.
fn compare(file: ViewFile, old: &State, new: &State, hidden: &HashSet<String>) -> FileDiff {
    let withheld = |r: &Record| hidden.contains(&r.id);
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
    let (a, b) = (
        view::render(file, old, &withheld),
        view::render(file, new, &withheld),
    );
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
        let none = HashSet::new();
        let d = compare(ViewFile::Decisions, &old, &fold([&a2]), &none);
        // From {A, B} to {A2} alone: A edited into A2, B removed.
        assert_eq!(d.changed, vec![(a.id.clone(), a2.id.clone())]);
        assert_eq!(d.removed, vec![b.id.clone()]);
        assert!(d.added.is_empty());
        let d = compare(ViewFile::Decisions, &old, &new, &none);
        assert_eq!(d.added, vec![c.id.clone()]);
        assert!(d
            .text
            .starts_with("--- a/.rune/decisions.md\n+++ b/.rune/decisions.md\n"));
        let same = compare(ViewFile::Decisions, &new, &new, &none);
        assert!(same.text.is_empty() && same.added.is_empty() && same.removed.is_empty());
    }
}
