//! The lifecycle use cases of echoes: the seed's pruning (archive what the Echo Score rules
//! pick in roles over 150 lines) and active context compression (knowledge blocks for roles
//! over 300 lines). Both write new versions; history keeps what they archive.

use anyhow::Result;
use chrono::NaiveDate;

use super::{compress as blocks, dir, score, seal_version, set_archived, today, uid_of, Scorer};
use crate::memory::seal::Sealer;
use crate::memory::write::{write_records, Written};
use crate::memory::Snapshot;
use crate::model::kinds::Echo;
use crate::model::{Record, Scope, State};
use crate::store::Store;

/// An entry pruning archives: uid, title, Echo Score.
pub type PruneEntry = (String, String, f64);

/// One role's pruning: the role, its MEMORY.md line count, the entries archived.
pub type RolePrune = (String, usize, Vec<PruneEntry>);

/// What `echo prune` did or would do.
#[derive(Debug, Default)]
pub struct Pruned {
    /// Per role: the MEMORY.md line count, and the entries archived (uid, title, score).
    pub roles: Vec<RolePrune>,
    pub written: Option<Written>,
}

/// The seed's pruning: for every role (or `role`) whose MEMORY.md is over 150 lines, archive
/// the entries the rules pick ([`Scorer::prunable`]). Etched entries are never pruned. The
/// seed's "backup before pruning" is memory's history: every archived entry's earlier version
/// stays in it, and `echo restore` brings it back.
pub fn prune(store: &Store, role: Option<&str>, dry_run: bool) -> Result<Pruned> {
    let snap = Snapshot::read(store)?;
    let plan = prune_plan(&snap.state, role, today());
    let mut out = Pruned {
        roles: plan,
        written: None,
    };
    let uids: std::collections::HashSet<String> = out
        .roles
        .iter()
        .flat_map(|(_, _, e)| e.iter().map(|(u, _, _)| u.clone()))
        .collect();
    if dry_run || uids.is_empty() {
        return Ok(out);
    }
    let (_, w) = set_archived(store, "echo: prune", true, false, &|_, r| {
        uids.contains(uid_of(r))
    })?;
    out.written = w;
    Ok(out)
}

/// The lines of `role`'s `MEMORY.md` as the view renders it.
fn memory_lines(state: &State, role: &str) -> usize {
    let file = crate::view::echoes::EchoFile::Memory;
    crate::view::echoes::render(role, file, &state.echoes, &|_| false)
        .lines()
        .count()
}

/// What pruning would archive, per role over the line limit: (role, lines, entries).
pub fn prune_plan(state: &State, role: Option<&str>, today: NaiveDate) -> Vec<RolePrune> {
    let scorer = Scorer::new(&state.echoes, &state.echo_refs, today);
    let mut out = Vec::new();
    for r in dir::roles_of(state) {
        if role.is_some_and(|x| x != r) {
            continue;
        }
        let lines = memory_lines(state, &r);
        if lines <= score::MAX_LINES {
            out.push((r, lines, Vec::new()));
            continue;
        }
        let picked = state
            .echoes
            .iter()
            .filter(|e| Echo::of(&e.body).is_some_and(|e| e.role == r))
            .filter(|e| scorer.prunable(e))
            .map(|e| {
                (
                    uid_of(e).to_owned(),
                    // Through the gate: the placeholder for an entry it withholds.
                    crate::integrity::gate::shown_title(e),
                    scorer.score(e).total,
                )
            })
            .collect();
        out.push((r, lines, picked));
    }
    out
}

/// What `echo compress` did or would do: per role, its MEMORY.md lines and the blocks.
#[derive(Debug, Default)]
pub struct Compressed {
    pub roles: Vec<(String, usize, Vec<blocks::Block>)>,
    pub written: Option<Written>,
}

/// The seed's active context compression: for every role (or `role`) whose MEMORY.md is over
/// 300 lines (any size with `force`), related entries become knowledge blocks in
/// `knowledge.md` and the entries they compress are archived, in one commit.
pub fn compress(
    store: &Store,
    role: Option<&str>,
    dry_run: bool,
    force: bool,
) -> Result<Compressed> {
    let day = today().format("%Y-%m-%d").to_string();
    let select = |state: &State| -> Vec<(String, usize, Vec<blocks::Block>)> {
        // An entry the integrity gate withholds is not compressed: its words would make the
        // block's title and its text the block's, a new record that lists and names it.
        let shown: Vec<Record> = state
            .echoes
            .iter()
            .filter(|r| !crate::integrity::gate::withheld(r))
            .cloned()
            .collect();
        dir::roles_of(state)
            .into_iter()
            .filter(|r| role.is_none_or(|x| x == r))
            .map(|r| {
                let lines = memory_lines(state, &r);
                let blocks = if force || lines > blocks::MAX_LINES {
                    blocks::plan(&shown, &r, &day)
                } else {
                    Vec::new()
                };
                (r, lines, blocks)
            })
            .collect()
    };
    let snap = Snapshot::read(store)?;
    let mut out = Compressed {
        roles: select(&snap.state),
        written: None,
    };
    if dry_run || out.roles.iter().all(|(_, _, b)| b.is_empty()) {
        return Ok(out);
    }
    let mut roles = Vec::new();
    out.written = write_records(store, Scope::Memory, "echo: compress", |state| {
        roles = select(state);
        let mut sealer = Sealer::new(false);
        let mut drafts = Vec::new();
        for (_, _, blocks) in &roles {
            for b in blocks {
                drafts.push(seal_version(
                    &mut sealer,
                    b.body.clone(),
                    None,
                    "the echo's",
                )?);
                for m in &b.members {
                    let body = super::with_archived(&m.body, true);
                    drafts.push(seal_version(&mut sealer, body, Some(m), "the echo's")?);
                }
            }
        }
        Ok::<_, anyhow::Error>(drafts)
    })?;
    out.roles = roles;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::kinds::EchoRef;
    use crate::model::testing::meta;
    use crate::model::{echo, fold, Body, Meta, Record};

    /// A generated history of 500 entries over one role, pinned dates: layers in turn, verified
    /// dates spread over 400 days before 2026-06-01, a reference for every seventh entry.
    fn history() -> Vec<Record> {
        let start = NaiveDate::from_ymd_opt(2025, 4, 27).unwrap();
        let mut out = Vec::new();
        for i in 0..500u64 {
            let layer = ["etched", "inscribed", "inscribed", "traced"][i as usize % 4];
            let verified = (start + chrono::Days::new(i * 4 / 5))
                .format("%Y-%m-%d")
                .to_string();
            let title = format!("Pattern: generated entry {i}");
            let evidence = format!("`src/m{}.rs:{i}`", i % 13);
            let body = Body::Echo(Echo {
                uid: echo::uid_for("reviewer", &title, &evidence),
                role: "reviewer".into(),
                layer: layer.into(),
                date: verified.clone(),
                title,
                source: "rune:review".into(),
                confidence: 0.5,
                evidence,
                verified: verified.clone(),
                supersedes_title: String::new(),
                text: format!("Learning number {i}."),
                archived: false,
                members: vec![],
                extra: vec![],
            });
            crate::model::validate(&body).unwrap();
            let uid = match &body {
                Body::Echo(Echo { uid, .. }) => uid.clone(),
                _ => unreachable!(),
            };
            out.push(Record::new(meta(i + 1, &[]), body));
            if i % 7 == 0 {
                let m = Meta {
                    ts: format!("{verified}T12:00:00Z"),
                    ..meta(1000 + i, &[])
                };
                out.push(Record::new(
                    m,
                    Body::EchoRef(EchoRef {
                        uid,
                        workflow: format!("wf-{}", i % 11),
                    }),
                ));
            }
        }
        out
    }

    #[test]
    fn scoring_and_pruning_a_500_entry_history() {
        let today = NaiveDate::from_ymd_opt(2026, 6, 1).unwrap();
        let records = history();
        let state = fold(&records);
        assert_eq!(state.echoes.len(), 500);
        let plan = prune_plan(&state, Some("reviewer"), today);
        assert_eq!(plan.len(), 1);
        let (_, lines, picked) = &plan[0];
        assert!(*lines > 150, "{lines}");
        let scorer = Scorer::new(&state.echoes, &state.echo_refs, today);
        let picked_uids: std::collections::HashSet<&str> =
            picked.iter().map(|(u, _, _)| u.as_str()).collect();
        for r in &state.echoes {
            let Body::Echo(Echo {
                uid,
                layer,
                verified,
                ..
            }) = &r.body
            else {
                unreachable!()
            };
            let s = scorer.score(r);
            let age = scorer.days_since(verified);
            let referenced_lately = state.echo_refs.iter().any(|x| {
                matches!(&x.body, Body::EchoRef(EchoRef { uid: u, .. }) if u == uid)
                    && scorer.days_since(&x.meta.ts[..10]) <= 90
            });
            let want = match layer.as_str() {
                "etched" => {
                    assert_eq!(s.total, 1.0);
                    false
                }
                "inscribed" => s.total < 0.3 && age > 90 && !referenced_lately,
                _ => s.total < 0.2 && age > 30,
            };
            assert_eq!(
                picked_uids.contains(uid.as_str()),
                want,
                "{uid} {layer} {age} {s:?}"
            );
            assert!((0.0..=1.0).contains(&s.total));
        }
        // Pinned: the same history on the same day prunes the same entries, in any order.
        assert_eq!(picked.len(), 309);
        let mut shuffled = records.clone();
        shuffled.reverse();
        let again = prune_plan(&fold(&shuffled), Some("reviewer"), today);
        assert_eq!(&again[0].2, picked);
        // Nothing etched and nothing recent goes.
        assert!(picked.iter().all(|(_, _, s)| *s < 0.3));
    }
}
