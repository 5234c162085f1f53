//! Rewrite survival: after `git commit --amend` or `git rebase` (git's post-rewrite hook), each
//! rewritten commit's note and the saved session heads and checkpoints that named an old commit
//! follow to the new one, so `why`, `load --at` and drift keep meaning something.

use std::collections::HashMap;

use super::CommitNote;
use crate::memory::seal::Sealer;
use crate::model::kinds::{Checkpoint, Session};
use crate::model::{fold, Body, Draft, GitState, Record};
use crate::store::{ObjectId, Result, Store, BRANCHES_PREFIX, DETACHED_REF};

/// Follows a rewrite (`command` is `amend` or `rebase`; `list` is what git passed
/// post-rewrite on stdin): notes are carried to the new commits (unless the user turned
/// `notes.rewrite.<command>` off), saved heads and open checkpoints are moved, and the view is
/// refreshed when they were.
pub fn follow(store: &Store, command: &str, list: &str) -> anyhow::Result<Followed> {
    let pairs = parse_list(list);
    if pairs.is_empty() {
        return Ok(Followed::default());
    }
    let copy = store
        .config_bool(&format!("notes.rewrite.{command}"))
        .unwrap_or(true);
    carry_notes(store, command, &pairs, copy)?;
    let moved = remap_heads(store, &pairs)?;
    let view = if moved.is_empty() {
        None
    } else {
        crate::memory::write::refresh_view(store)?
    };
    Ok(Followed { moved, view })
}

/// What following a rewrite moved.
#[derive(Debug, Default)]
pub struct Followed {
    /// Session-state refs written, with how many saved heads each moved.
    pub moved: Vec<(String, usize)>,
    /// The view refresh, when something moved.
    pub view: Option<crate::memory::view_dir::Refresh>,
}

/// What git passes post-rewrite on stdin: `<old> <new> [extra]` lines. Lines that are not two
/// object ids are skipped.
pub fn parse_list(input: &str) -> Vec<(ObjectId, ObjectId)> {
    input
        .lines()
        .filter_map(|line| {
            let mut words = line.split_whitespace();
            let old = ObjectId::from_hex(words.next()?.as_bytes()).ok()?;
            let new = ObjectId::from_hex(words.next()?.as_bytes()).ok()?;
            Some((old, new))
        })
        .collect()
}

/// Each new commit with the old commits rewritten into it (several when commits were
/// squashed), in the order git listed them.
fn by_new(pairs: &[(ObjectId, ObjectId)]) -> Vec<(ObjectId, Vec<ObjectId>)> {
    let mut out: Vec<(ObjectId, Vec<ObjectId>)> = Vec::new();
    for &(old, new) in pairs {
        match out.iter_mut().find(|(n, _)| *n == new) {
            Some((_, olds)) => olds.push(old),
            None => out.push((new, vec![old])),
        }
    }
    out
}

/// How a rewritten commit's note comes to be. `fresh` is what the new commit's note holds that
/// no old commit's note does (what post-commit wrote for it); `olds` are the old commits' notes.
///
/// An amend is a new commit made now, so its own note speaks last (its memory commits win) and
/// the amended commit's records are kept beside its own. A rebase replays old work: the old
/// notes alone say what produced it (the note post-commit wrote during the replay would claim
/// memory recorded on the new base), unless the old commits had none. Squashed commits keep
/// every record their notes named.
pub fn combined(command: &str, fresh: Vec<CommitNote>, olds: Vec<CommitNote>) -> CommitNote {
    if command == "amend" {
        CommitNote::combine(olds.into_iter().chain(fresh))
    } else if olds.is_empty() {
        CommitNote::combine(fresh)
    } else {
        CommitNote::combine(olds)
    }
}

/// Gives every new commit one note combining its own and its old commits' notes (git may
/// already have concatenated them, with `notes.rewriteRef`; without it this copies them).
/// `copy` is false when the user turned `notes.rewrite.<command>` off: then only what is on the
/// new commit is tidied. Returns how many notes changed.
pub fn carry_notes(
    store: &Store,
    command: &str,
    pairs: &[(ObjectId, ObjectId)],
    copy: bool,
) -> Result<usize> {
    let groups = by_new(pairs);
    let mut changed = 0;
    store.edit_notes(&format!("carry notes across {command}"), |notes| {
        let mut out = Vec::new();
        for (new, olds) in &groups {
            let current = notes.get(*new)?;
            let mut old_blocks = Vec::new();
            for old in olds.iter().filter(|_| copy) {
                if let Some(text) = notes.get(*old)? {
                    for b in CommitNote::parse_blocks(&text) {
                        if !old_blocks.contains(&b) {
                            old_blocks.push(b);
                        }
                    }
                }
            }
            let fresh: Vec<CommitNote> = current
                .as_deref()
                .map(CommitNote::parse_blocks)
                .unwrap_or_default()
                .into_iter()
                .filter(|b| !old_blocks.contains(b))
                .collect();
            if fresh.is_empty() && old_blocks.is_empty() {
                continue;
            }
            let text = combined(command, fresh, old_blocks).render();
            if current.as_deref() != Some(text.as_str()) {
                out.push((*new, text));
            }
        }
        changed = out.len();
        Ok(out)
    })?;
    Ok(changed)
}

/// Points the last saved session and the open checkpoint of every branch's session state that
/// named a rewritten commit at its new commit, with superseding records (the old ones stay in
/// history). Returns the refs written and how many records each got.
pub fn remap_heads(
    store: &Store,
    pairs: &[(ObjectId, ObjectId)],
) -> anyhow::Result<Vec<(String, usize)>> {
    let map: HashMap<String, String> = pairs
        .iter()
        .map(|(o, n)| (o.to_string(), n.to_string()))
        .collect();
    let mut written = Vec::new();
    for name in store.memory_refs()? {
        if !(name.starts_with(BRANCHES_PREFIX) || name == DETACHED_REF) {
            continue;
        }
        let mut sealer = Sealer::default();
        let commit = store.commit(&name, "follow rewritten commits", |current: &[Record]| {
            let state = fold(current);
            let candidates = state
                .last_session()
                .into_iter()
                .chain(state.open_checkpoint());
            candidates
                .filter_map(|r| remapped(r, &map))
                .map(|d| Ok(sealer.seal_body(d.body, d.supersedes)?))
                .collect::<anyhow::Result<Vec<_>>>()
        })?;
        if let Some(c) = commit {
            written.push((name, c.records.len()));
        }
    }
    Ok(written)
}

/// A draft superseding `r` with its saved head moved to the rewritten commit, if it moved.
fn remapped(r: &Record, map: &HashMap<String, String>) -> Option<Draft> {
    let mut body = r.body.clone();
    let git: &mut GitState = match &mut body {
        Body::Session(Session { git: Some(g), .. })
        | Body::Checkpoint(Checkpoint { git: Some(g), .. }) => g,
        _ => return None,
    };
    let new = map.get(git.head.as_deref()?)?;
    git.head = Some(new.clone());
    Some(Draft::superseding(body, vec![r.id.clone()]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn oid(c: char) -> ObjectId {
        ObjectId::from_hex(c.to_string().repeat(40).as_bytes()).unwrap()
    }

    #[test]
    fn the_rewrite_list_groups_squashed_commits() {
        let input = format!(
            "{} {}\n{} {} extra\nnot a line\n{} {}\n",
            oid('a'),
            oid('c'),
            oid('b'),
            oid('c'),
            oid('d'),
            oid('e')
        );
        let pairs = parse_list(&input);
        assert_eq!(pairs.len(), 3);
        assert_eq!(
            by_new(&pairs),
            vec![
                (oid('c'), vec![oid('a'), oid('b')]),
                (oid('e'), vec![oid('d')])
            ]
        );
    }

    #[test]
    fn amend_keeps_the_new_memory_and_rebase_only_the_old_notes() {
        let note = |memory: &str, id: &str| CommitNote {
            memory: Some(memory.into()),
            records: vec![("decision".into(), id.into(), String::new())],
            ..CommitNote::default()
        };
        let amend = combined("amend", vec![note("new", "2")], vec![note("old", "1")]);
        assert_eq!(amend.memory.as_deref(), Some("new"));
        assert_eq!(amend.records.len(), 2);
        let rebase = combined("rebase", vec![note("new", "2")], vec![note("old", "1")]);
        assert_eq!(rebase.memory.as_deref(), Some("old"));
        assert_eq!(rebase.records.len(), 1);
        let squash = combined("rebase", vec![], vec![note("a", "1"), note("b", "2")]);
        assert_eq!(squash.memory.as_deref(), Some("b"));
        assert_eq!(squash.records.len(), 2);
        let unnoted = combined("rebase", vec![note("new", "2")], vec![]);
        assert_eq!(unnoted.memory.as_deref(), Some("new"));
    }
}
