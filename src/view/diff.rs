//! The save diff: turns an edited view file into the drafts that make the refs say what the
//! file says, touching only the entries that changed.

use super::{normal, visible, ViewFile};
use crate::model::{Body, Draft, Record};

/// What makes an entry "the same entry, edited" rather than a removal plus an addition.
/// Notes, progress and sessions have no identity: a changed one is removed and added.
fn identity(body: &Body) -> Option<(&str, &str)> {
    match body {
        Body::Decision { title, .. } | Body::Convention { title, .. } => Some((title, "")),
        Body::Learning { ltype, key, .. } => Some((ltype.as_str(), key)),
        Body::Instinct { name, .. } => Some((name, "")),
        Body::Invariant { section, title, .. } => Some((section, title)),
        Body::Checkpoint { .. } => Some(("", "")),
        _ => None,
    }
}

/// Keeps what the view cannot show but is still true of the edited entry: blob ids while the
/// file list is unchanged, and the git state the checkpoint was taken at.
fn carry_over(mut new: Body, old: &Body) -> Body {
    match (&mut new, old) {
        (
            Body::Decision {
                files, file_blobs, ..
            },
            Body::Decision {
                files: old_files,
                file_blobs: old_blobs,
                ..
            },
        )
        | (
            Body::Learning {
                files, file_blobs, ..
            },
            Body::Learning {
                files: old_files,
                file_blobs: old_blobs,
                ..
            },
        ) if files == old_files && file_blobs.is_empty() => *file_blobs = old_blobs.clone(),
        (Body::Checkpoint { git, .. }, Body::Checkpoint { git: old_git, .. }) if git.is_none() => {
            *git = old_git.clone()
        }
        _ => {}
    }
    new
}

/// The drafts that save `parsed` (the edited file) over `base` (the records it was rendered
/// from: the file kind's live records, or for `checkpoint.md` only the open checkpoint).
///
/// 1. A parsed entry whose [`visible`] content equals a base record's is unchanged (paired one
///    to one, so duplicates count).
/// 2. Other parsed entries pair with a leftover base record of the same identity (decision and
///    convention title, learning type+key, instinct name, invariant section+title, the
///    checkpoint) and become edits superseding it.
/// 3. The rest are additions.
/// 4. Base records left over are removed: one `Delete` naming them all, or for `checkpoint.md`
///    a `Resolve`.
///
/// Edits and additions come in file order, then the removal. Bodies are compared in normal
/// form, so records written before a normalisation rule changed do not show up as edits.
pub fn diff(file: ViewFile, base: &[Record], parsed: Vec<Body>) -> Vec<Draft> {
    let base_normal: Vec<Body> = base.iter().map(|r| normal(&r.body)).collect();
    let base_shown: Vec<Body> = base_normal.iter().map(visible).collect();
    let mut used = vec![false; base.len()];

    let mut changed: Vec<Body> = Vec::new();
    for body in parsed {
        let body = normal(&body);
        let shown = visible(&body);
        match (0..base.len()).find(|&j| !used[j] && base_shown[j] == shown) {
            Some(j) => used[j] = true,
            None => changed.push(body),
        }
    }

    let mut drafts = Vec::new();
    for body in changed {
        let id = identity(&body);
        let pair = id.and_then(|id| {
            (0..base.len()).find(|&j| !used[j] && identity(&base_normal[j]) == Some(id))
        });
        match pair {
            Some(j) => {
                used[j] = true;
                drafts.push(Draft {
                    body: carry_over(body, &base[j].body),
                    supersedes: vec![base[j].id.clone()],
                });
            }
            None => drafts.push(Draft::new(body)),
        }
    }

    let removed: Vec<String> = base
        .iter()
        .zip(&used)
        .filter(|(_, used)| !**used)
        .map(|(r, _)| r.id.clone())
        .collect();
    if file == ViewFile::Checkpoint {
        drafts.extend(
            removed
                .into_iter()
                .map(|target| Draft::new(Body::Resolve { target })),
        );
    } else if !removed.is_empty() {
        drafts.push(Draft::new(Body::Delete { targets: removed }));
    }
    drafts
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{fold, GitState, State};
    use crate::view::{parse, render};

    fn decision(title: &str, decision: &str) -> Body {
        Body::Decision {
            title: title.into(),
            context: "c".into(),
            decision: decision.into(),
            rationale: "r".into(),
            impact: "i".into(),
            files: vec!["src/a.rs".into()],
            file_blobs: [("src/a.rs".to_owned(), "abc".to_owned())]
                .into_iter()
                .collect(),
        }
    }

    fn stamped(bodies: Vec<Body>) -> Vec<Record> {
        bodies
            .into_iter()
            .enumerate()
            .map(|(i, b)| Draft::new(b).stamp("2026-04-04T14:30:00Z", i as u64 + 1, "a"))
            .collect()
    }

    fn save(file: ViewFile, state: &State, text: &str) -> Vec<Draft> {
        let base: Vec<Record> = if file == ViewFile::Checkpoint {
            state.open_checkpoint().cloned().into_iter().collect()
        } else {
            state.of_kind(file.kind()).to_vec()
        };
        diff(file, &base, parse(file, text).unwrap())
    }

    #[test]
    fn unchanged_file_gives_nothing() {
        let records = stamped(vec![
            decision("A", "a"),
            decision("A", "a"),
            decision("B", "b"),
        ]);
        let state = fold(&records);
        let text = render(ViewFile::Decisions, &state);
        assert_eq!(save(ViewFile::Decisions, &state, &text), vec![]);
    }

    #[test]
    fn appended_entry_is_one_addition() {
        let state = fold(&stamped(vec![decision("A", "a")]));
        let text = render(ViewFile::Decisions, &state)
            + "\n## [2026-04-05 10:00] Decision: New\n**Context:** c\n**Decision:** n\n";
        let drafts = save(ViewFile::Decisions, &state, &text);
        assert_eq!(drafts.len(), 1);
        assert!(drafts[0].supersedes.is_empty());
        assert!(matches!(&drafts[0].body, Body::Decision { title, .. } if title == "New"));
    }

    #[test]
    fn edited_field_is_one_edit_keeping_blobs() {
        let records = stamped(vec![decision("A", "a"), decision("B", "b")]);
        let state = fold(&records);
        let text =
            render(ViewFile::Decisions, &state).replace("**Decision:** b", "**Decision:** b2");
        let drafts = save(ViewFile::Decisions, &state, &text);
        assert_eq!(drafts.len(), 1);
        assert_eq!(drafts[0].supersedes, vec![records[1].id.clone()]);
        match &drafts[0].body {
            Body::Decision {
                decision,
                file_blobs,
                ..
            } => {
                assert_eq!(decision, "b2");
                assert_eq!(file_blobs.get("src/a.rs").map(String::as_str), Some("abc"));
            }
            other => panic!("{other:?}"),
        }
        let text = render(ViewFile::Decisions, &state).replacen(
            "**Files:** src/a.rs",
            "**Files:** src/b.rs",
            1,
        );
        let drafts = save(ViewFile::Decisions, &state, &text);
        assert_eq!(drafts[0].supersedes, vec![records[0].id.clone()]);
        assert!(
            matches!(&drafts[0].body, Body::Decision { file_blobs, .. } if file_blobs.is_empty())
        );
    }

    #[test]
    fn removed_entries_are_one_delete() {
        let records = stamped(vec![
            decision("A", "a"),
            decision("B", "b"),
            decision("C", "c"),
        ]);
        let state = fold(&records);
        let drafts = save(ViewFile::Decisions, &state, "# Decisions Log\n");
        assert_eq!(
            drafts,
            vec![Draft::new(Body::Delete {
                targets: records.iter().map(|r| r.id.clone()).collect()
            })]
        );
    }

    #[test]
    fn notes_have_no_identity() {
        let note = |t: &str| Body::CumulativeNote {
            section: "Active Topics".into(),
            text: t.into(),
        };
        let records = stamped(vec![note("one"), note("two")]);
        let state = fold(&records);
        let text = render(ViewFile::CumulativeNotes, &state).replace("- two", "- two!");
        let drafts = save(ViewFile::CumulativeNotes, &state, &text);
        assert_eq!(
            drafts,
            vec![
                Draft::new(note("two!")),
                Draft::new(Body::Delete {
                    targets: vec![records[1].id.clone()]
                })
            ]
        );
    }

    #[test]
    fn checkpoint_edit_keeps_git_and_removal_resolves() {
        let git = GitState {
            branch: Some("main".into()),
            ..GitState::default()
        };
        let records = stamped(vec![Body::Checkpoint {
            doing: "x".into(),
            left: vec!["a".into()],
            context: vec![],
            resume: "go".into(),
            git: Some(git.clone()),
        }]);
        let state = fold(&records);
        let text = render(ViewFile::Checkpoint, &state);
        assert_eq!(save(ViewFile::Checkpoint, &state, &text), vec![]);
        let drafts = save(ViewFile::Checkpoint, &state, &text.replace("1. a", "1. b"));
        assert_eq!(drafts.len(), 1);
        assert_eq!(drafts[0].supersedes, vec![records[0].id.clone()]);
        assert!(matches!(&drafts[0].body, Body::Checkpoint { git: Some(g), .. } if *g == git));
        assert_eq!(
            save(ViewFile::Checkpoint, &state, ""),
            vec![Draft::new(Body::Resolve {
                target: records[0].id.clone()
            })]
        );
    }
}
