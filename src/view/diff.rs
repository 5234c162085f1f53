//! The save diff: turns an edited view file into the drafts that make the refs say what the
//! file says, touching only the entries that changed.

use std::collections::HashMap;

use super::{normal, visible, Entry, Parsed, ViewFile};
use crate::model::kinds::{
    Checkpoint, ContextBlock, Convention, Decision, Delete, Instinct, Invariant, Learning, Resolve,
    Task,
};
use crate::model::{Body, Draft, Kind, Record};

/// What makes an entry "the same entry, edited" rather than a removal plus an addition.
/// Notes, progress and sessions have no identity: a changed one is removed and added.
fn identity(body: &Body) -> Option<(String, &str)> {
    match body {
        Body::Decision(Decision { title, .. }) | Body::Convention(Convention { title, .. }) => {
            Some((title.clone(), ""))
        }
        Body::Learning(Learning { ltype, key, .. }) => Some((ltype.as_str().to_owned(), key)),
        Body::Instinct(Instinct { name, .. }) => Some((name.clone(), "")),
        Body::Invariant(Invariant { section, title, .. }) => Some((section.clone(), title)),
        Body::Checkpoint(Checkpoint { .. }) => Some((String::new(), "")),
        // A task is its number (`TASK_007`); a line without one is a new task.
        Body::Task(Task { num, .. }) if *num > 0 => Some((num.to_string(), "task")),
        Body::ContextBlock(ContextBlock { title, .. }) => Some((title.clone(), "block")),
        _ => None,
    }
}

/// Whether a changed entry is an edit of the base record it pairs with, rather than a new
/// record beside it: a checkpoint whose "What I Was Doing" changed is a new checkpoint (the
/// old one is resolved and stays in history).
fn is_edit(new: &Body, old: &Body) -> bool {
    match (new, old) {
        (
            Body::Checkpoint(Checkpoint { doing: a, .. }),
            Body::Checkpoint(Checkpoint { doing: b, .. }),
        ) => a == b,
        _ => true,
    }
}

/// The diff of one view file: the drafts that make the refs say what the file says.
///
/// `parsed` is the edited file, `base` the records it was rendered from (the file kind's live
/// records, or for `checkpoint.md` only the open checkpoint).
///
/// 1. A placeholder keeps the withheld record it names. An entry whose [`visible`] content and
///    shown time equal a base record's is unchanged (paired one to one, so duplicates count;
///    an entry without a time matches any).
/// 2. Other entries pair with a leftover base record of the same identity (decision,
///    convention and context block title, learning type+key, instinct name, invariant section+title, the
///    checkpoint) and become edits superseding it, keeping its time unless the entry shows
///    another.
/// 3. The rest are additions, at the time they give (or the commit's).
/// 4. Base records left over are removed: one `Delete` naming them all, or for `checkpoint.md`
///    a `Resolve`.
///
/// Edits and additions come in file order, then the removal. Bodies are compared in normal
/// form, so records written before a normalisation rule changed do not show up as edits.
pub fn diff(file: ViewFile, base: &[Record], parsed: Vec<Parsed>) -> Vec<Draft> {
    let base_normal: Vec<Body> = base.iter().map(|r| normal(&r.body)).collect();
    let base_shown: Vec<Body> = base_normal.iter().map(visible).collect();
    let base_time: Vec<String> = base.iter().map(|r| file.shown_time(&r.meta.ts)).collect();
    let mut used = vec![false; base.len()];
    // Base records by kind and title (equal bodies have equal ones), each list in base order:
    // an entry is compared with the few records that can equal it, not with all of them,
    // and still pairs with the first unused one, as a scan of the whole base would.
    let mut by_title: HashMap<(Kind, &str), Vec<usize>> = HashMap::new();
    for (j, b) in base_shown.iter().enumerate() {
        by_title.entry((b.kind(), b.title())).or_default().push(j);
    }

    let mut changed: Vec<Entry> = Vec::new();
    for p in parsed {
        match p {
            Parsed::Withheld(id) => {
                if let Some(j) = (0..base.len()).find(|&j| !used[j] && base[j].id.starts_with(&id))
                {
                    used[j] = true;
                }
            }
            Parsed::Entry(e) => {
                let mut body = normal(&e.body);
                // The git state lines the view showed for the checkpoint are git-rune's own.
                if file == ViewFile::Checkpoint {
                    let captured = base.first().and_then(|r| match &r.body {
                        Body::Checkpoint(Checkpoint { git, .. }) => git.as_ref(),
                        _ => None,
                    });
                    super::checkpoint::without_rendered_git(&mut body, captured);
                }
                let shown = visible(&body);
                let time = e.at.as_deref().map(|at| file.shown_time(at));
                let same = |j: usize| {
                    base_shown[j] == shown && time.as_ref().is_none_or(|t| *t == base_time[j])
                };
                let candidates = by_title
                    .get(&(shown.kind(), shown.title()))
                    .map(Vec::as_slice)
                    .unwrap_or_default();
                match candidates.iter().copied().find(|&j| !used[j] && same(j)) {
                    Some(j) => used[j] = true,
                    None => changed.push(Entry { body, at: e.at }),
                }
            }
        }
    }

    // Base records by identity, in base order (made only when some entry changed).
    let mut by_identity: HashMap<(String, &str), Vec<usize>> = HashMap::new();
    if !changed.is_empty() {
        for (j, b) in base_normal.iter().enumerate() {
            if let Some(id) = identity(b) {
                by_identity.entry(id).or_default().push(j);
            }
        }
    }
    let mut drafts = Vec::new();
    for Entry { mut body, at } in changed {
        let pair = identity(&body)
            .and_then(|id| by_identity.get(&id))
            .and_then(|js| {
                js.iter()
                    .copied()
                    .find(|&j| !used[j] && is_edit(&body, &base_normal[j]))
            });
        let (supersedes, at) = match pair {
            Some(j) => {
                used[j] = true;
                super::inherit(&mut body, &base[j].body);
                let keep_time = at
                    .as_deref()
                    .is_none_or(|a| file.shown_time(a) == base_time[j]);
                let at = keep_time.then(|| base[j].meta.ts.clone()).or(at);
                (vec![base[j].id.clone()], at)
            }
            None => (Vec::new(), at),
        };
        drafts.push(Draft {
            body,
            supersedes,
            at,
        });
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
                .map(|target| Draft::new(Body::Resolve(Resolve { target }))),
        );
    } else if !removed.is_empty() {
        drafts.push(Draft::new(Body::Delete(Delete { targets: removed })));
    }
    drafts
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::kinds::CumulativeNote;
    use crate::model::{fold, GitState, State};
    use crate::view::{parse, render_all as render};

    fn decision(title: &str, decision: &str) -> Body {
        Body::Decision(Decision {
            title: title.into(),
            context: "c".into(),
            decision: decision.into(),
            rationale: "r".into(),
            impact: "i".into(),
            files: vec!["src/a.rs".into()],
            file_blobs: [("src/a.rs".to_owned(), "abc".to_owned())]
                .into_iter()
                .collect(),
            extra: Vec::new(),
        })
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

    /// Pins the pairing the per-title index keeps: of two base records that look the same,
    /// an entry pairs with the first, and the other is the one removed.
    #[test]
    fn of_two_equal_base_records_the_first_is_kept() {
        let plain = |title: &str, d: &str| match decision(title, d) {
            Body::Decision(Decision {
                title,
                context,
                decision,
                rationale,
                impact,
                extra,
                ..
            }) => Body::Decision(Decision {
                title,
                context,
                decision,
                rationale,
                impact,
                files: Vec::new(),
                file_blobs: Default::default(),
                extra,
            }),
            other => other,
        };
        let records = stamped(vec![plain("A", "a"), plain("B", "b"), plain("A", "a")]);
        let state = fold(&records);
        let base: Vec<Record> = state.of_kind(ViewFile::Decisions.kind()).to_vec();
        let text = "# Decisions\n\n## [2026-04-04 14:30] Decision: A\n**Context:** c\n**Decision:** a\n**Rationale:** r\n**Impact:** i\n";
        let drafts = diff(
            ViewFile::Decisions,
            &base,
            parse(ViewFile::Decisions, text).unwrap(),
        );
        let first_a = base.iter().position(|r| r.body.title() == "A").unwrap();
        let removed: Vec<&String> = base
            .iter()
            .enumerate()
            .filter(|(j, _)| *j != first_a)
            .map(|(_, r)| &r.id)
            .collect();
        match &drafts[..] {
            [Draft {
                body: Body::Delete(Delete { targets }),
                ..
            }] => assert_eq!(targets.iter().collect::<Vec<_>>(), removed),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn appended_entry_is_one_addition() {
        let state = fold(&stamped(vec![decision("A", "a")]));
        let text = render(ViewFile::Decisions, &state)
            + "\n## [2026-04-05 10:00] Decision: New\n**Context:** c\n**Decision:** n\n";
        let drafts = save(ViewFile::Decisions, &state, &text);
        assert_eq!(drafts.len(), 1);
        assert!(drafts[0].supersedes.is_empty());
        assert!(
            matches!(&drafts[0].body, Body::Decision(Decision { title, .. }) if title == "New")
        );
    }

    #[test]
    fn an_edit_supersedes_and_keeps_the_time_but_not_the_file_baseline() {
        let records = stamped(vec![decision("A", "a"), decision("B", "b")]);
        let state = fold(&records);
        let text =
            render(ViewFile::Decisions, &state).replace("**Decision:** b", "**Decision:** b2");
        let drafts = save(ViewFile::Decisions, &state, &text);
        assert_eq!(drafts.len(), 1);
        assert_eq!(drafts[0].supersedes, vec![records[1].id.clone()]);
        match &drafts[0].body {
            Body::Decision(Decision {
                decision,
                file_blobs,
                ..
            }) => {
                assert_eq!(decision, "b2");
                // Save takes the files' blob ids afresh: an edit renews the baseline.
                assert!(file_blobs.is_empty());
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(drafts[0].at.as_deref(), Some(records[1].meta.ts.as_str()));
        // A date changed in the heading is the edit's time.
        let text = render(ViewFile::Decisions, &state).replacen(
            "## [2026-04-04 14:30] Decision: B",
            "## [2026-05-01 09:00] Decision: B",
            1,
        );
        let drafts = save(ViewFile::Decisions, &state, &text);
        assert_eq!(drafts.len(), 1, "{drafts:?}");
        assert_eq!(drafts[0].at.as_deref(), Some("2026-05-01T09:00:00Z"));
        let text = render(ViewFile::Decisions, &state).replacen(
            "**Files:** src/a.rs",
            "**Files:** src/b.rs",
            1,
        );
        let drafts = save(ViewFile::Decisions, &state, &text);
        assert_eq!(drafts[0].supersedes, vec![records[0].id.clone()]);
        assert!(
            matches!(&drafts[0].body, Body::Decision(Decision { file_blobs, .. }) if file_blobs.is_empty())
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
            vec![Draft::new(Body::Delete(Delete {
                targets: records.iter().map(|r| r.id.clone()).collect()
            }))]
        );
    }

    #[test]
    fn notes_have_no_identity() {
        let note = |t: &str| {
            Body::CumulativeNote(CumulativeNote {
                section: "Active Topics".into(),
                text: t.into(),
            })
        };
        let records = stamped(vec![note("one"), note("two")]);
        let state = fold(&records);
        let text = render(ViewFile::CumulativeNotes, &state).replace("- two", "- two!");
        let drafts = save(ViewFile::CumulativeNotes, &state, &text);
        assert_eq!(
            drafts,
            vec![
                Draft::new(note("two!")),
                Draft::new(Body::Delete(Delete {
                    targets: vec![records[1].id.clone()]
                }))
            ]
        );
    }

    #[test]
    fn a_checkpoint_with_new_doing_is_a_new_one_and_removal_resolves() {
        let git = GitState {
            branch: Some("main".into()),
            ..GitState::default()
        };
        let records = stamped(vec![Body::Checkpoint(Checkpoint {
            doing: "x".into(),
            left: vec!["a".into()],
            context: vec![],
            resume: "go".into(),
            git: Some(git.clone()),
            extra: Vec::new(),
        })]);
        let state = fold(&records);
        let text = render(ViewFile::Checkpoint, &state);
        assert_eq!(save(ViewFile::Checkpoint, &state, &text), vec![]);
        let drafts = save(ViewFile::Checkpoint, &state, &text.replace("1. a", "1. b"));
        assert_eq!(drafts.len(), 1);
        assert_eq!(drafts[0].supersedes, vec![records[0].id.clone()]);
        // The view does not carry the git state: save captures it afresh.
        assert!(matches!(
            &drafts[0].body,
            Body::Checkpoint(Checkpoint { git: None, .. })
        ));
        let _ = git;
        // Overwriting the checkpoint with another task is a new checkpoint; the old one is
        // resolved, not edited.
        let drafts = save(
            ViewFile::Checkpoint,
            &state,
            &text.replace("## What I Was Doing\nx", "## What I Was Doing\ny"),
        );
        assert_eq!(drafts.len(), 2, "{drafts:?}");
        assert!(drafts[0].supersedes.is_empty());
        assert_eq!(
            drafts[1],
            Draft::new(Body::Resolve(Resolve {
                target: records[0].id.clone()
            }))
        );
        assert_eq!(
            save(ViewFile::Checkpoint, &state, ""),
            vec![Draft::new(Body::Resolve(Resolve {
                target: records[0].id.clone()
            }))]
        );
    }
}
