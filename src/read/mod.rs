//! The read path: memory now, or as it was when a code commit was made (the memory commits
//! its note names, or else the newest commit of each memory ref committed no later than it),
//! folded, with its drift from the code, and the `load` briefing of it. Every reader uses it
//! (`git rune load`, `show`, `diff`, the SessionStart hook, the MCP server), and it writes
//! nothing: the writes a session start makes are `upkeep`'s, which callers run first.

use anyhow::Result;

use crate::error;
use crate::memory::cache;
use crate::memory::diff::Point;
use crate::memory::load::digest::Digest;
use crate::memory::load::{brief, Briefing, LoadPolicy, RoleEchoes, Totals};
use crate::memory::{Snapshot, Tips};
use crate::model::State;
use crate::notes::carriers::drift_for;
use crate::notes::CommitNote;
use crate::store::{self, branch_ref, HeadInfo, ObjectId, Store, Tip, MEMORY_REF};

/// The `load` briefing of memory now, or as of `at`, within `budget` tokens (every reader of
/// it: `git rune load`, the SessionStart hook, the MCP server), handed to `f` with the folded
/// state it was made from (the briefing borrows it): the digest of the memory trees
/// (`memory::load::digest`, cached per tree pair), or the whole fold when the briefing needs
/// more than the digest holds; the briefing is the same either way. Nothing is written: a
/// session start runs `upkeep::session_start` before reading.
pub fn with_briefing<R>(
    store: &Store,
    at: Option<&str>,
    budget: usize,
    authors: bool,
    f: impl FnOnce(&Briefing<'_>, &State) -> R,
) -> Result<R> {
    with_role_briefing(store, at, budget, authors, None, f)
}

/// [`with_briefing`] with a role's echoes (`load --role`): `echoes` picks them from the state
/// the briefing is made of. Echoes are not in the digest: they are read from the echoes
/// cached per tree pair (`memory::cache::echoes`), the rest from the digest as without a role.
pub fn with_role_briefing<R>(
    store: &Store,
    at: Option<&str>,
    budget: usize,
    authors: bool,
    echoes: Option<&dyn Fn(&State) -> RoleEchoes>,
    f: impl FnOnce(&Briefing<'_>, &State) -> R,
) -> Result<R> {
    let tips = tips(store, at)?;
    // Verdicts earlier briefings scanned: memory that has not changed is not scanned again.
    cache::verdicts::recall(store);
    let out = role_briefing(store, at, budget, authors, echoes, f, &tips);
    cache::verdicts::keep(store);
    out
}

fn role_briefing<R>(
    store: &Store,
    at: Option<&str>,
    budget: usize,
    authors: bool,
    echoes: Option<&dyn Fn(&State) -> RoleEchoes>,
    f: impl FnOnce(&Briefing<'_>, &State) -> R,
    tips: &Tips,
) -> Result<R> {
    let mut digest = digested(store, tips)?;
    // The user-level memory is today's, never as of a commit; it is not in the digest.
    let globals = if at.is_none() {
        crate::memory::user::global_instincts()
    } else {
        Vec::new()
    };
    digest.state.global_instincts = globals.clone();
    let drift = drift_for(store, &tips.head, &digest, &tips.branch_ref, at.is_some())?;
    let mut policy = LoadPolicy {
        trusted: store.config_list("rune.trustedAuthors"),
        authors,
        echoes: None,
        // No checkpoint open here: the one open on the branch HEAD came from is offered.
        other_checkpoint: if at.is_none() && digest.state.open_checkpoint().is_none() {
            came_from_checkpoint(store, &tips.head)
        } else {
            None
        },
    };
    let now = store.now();
    if let Some(pick) = echoes {
        // Echoes are not in the digest: the role's come from the echoes cached for the trees.
        let folded = cache::echoes::echoes(store, tips)?;
        digest.state.echoes = folded.echoes;
        digest.state.echo_refs = folded.echo_refs;
        policy.echoes = Some(pick(&digest.state));
    }
    let notices = if at.is_none() {
        notices(store)
    } else {
        Vec::new()
    };
    let mut briefing = brief(
        &tips.head,
        &digest.state,
        &digest.totals,
        &drift,
        &now,
        budget,
        &policy,
    );
    briefing.notices = notices.clone();
    if briefing.complete() {
        return Ok(f(&briefing, &digest.state));
    }
    drop(briefing);
    // A budget larger than the digest was made for: the whole fold, and a digest for it.
    let mut snap = Snapshot::at_tips(store, tips.clone())?;
    snap.state.global_instincts = globals;
    cache::digest::store(
        store,
        tips.memory,
        tips.branch,
        &snap.state,
        budget.saturating_mul(8),
    );
    if echoes.is_some() {
        cache::echoes::store(store, tips.memory, tips.branch, &snap.state);
    }
    policy.echoes = echoes.map(|pick| pick(&snap.state));
    let totals = Totals::of(&snap.state);
    let mut briefing = brief(
        &tips.head,
        &snap.state,
        &totals,
        &drift,
        &now,
        budget,
        &policy,
    );
    briefing.notices = notices;
    Ok(f(&briefing, &snap.state))
}

/// Memory now as the briefing reads it: the digest's state (every list the briefing and the
/// session start's upkeep need), cached per pair of memory trees.
pub fn state_now(store: &Store) -> Result<State> {
    let tips = tips(store, None)?;
    Ok(digested(store, &tips)?.state)
}

/// The checkpoint open on the branch HEAD was on before (the HEAD log's last switch to this
/// branch), if there is one: (that branch, the checkpoint).
fn came_from_checkpoint(store: &Store, head: &HeadInfo) -> Option<(String, crate::model::Record)> {
    let here = head.branch.as_deref()?;
    let from = store.previous_branch(here)?;
    let (_, records) = store.records(&branch_ref(Some(&from))).ok()?;
    let state = crate::model::fold(records.iter());
    let open = state.open_checkpoint()?.clone();
    Some((from, open))
}

/// What a briefing of memory now says before the memory: that the last save failed (with
/// where and what to do), until a save succeeds.
pub fn notices(store: &Store) -> Vec<String> {
    let saves = crate::memory::save_failure::read(store.git_dir()).map(|f| f.line());
    let hooks = crate::memory::hook_failure::read(store.git_dir());
    saves
        .into_iter()
        .chain(hooks.iter().map(|f| f.line()))
        .collect()
}

/// The memory commits of now, or of the code commit `at` names.
fn tips(store: &Store, at: Option<&str>) -> Result<Tips> {
    let Some(rev) = at else {
        return Ok(Tips::now(store)?);
    };
    Ok(tips_at(store, resolve(store, rev)?)?)
}

/// The digest of the trees `tips` names (see `memory::cache::digest`).
fn digested(store: &Store, tips: &Tips) -> Result<Digest> {
    Ok(cache::digest::digest(store, tips)?)
}

/// Memory now, or as of the code commit `at` names (any revision).
pub fn snapshot(store: &Store, at: Option<&str>) -> Result<Snapshot> {
    let Some(rev) = at else {
        return Ok(Snapshot::read(store)?);
    };
    Ok(snapshot_at(store, resolve(store, rev)?)?)
}

/// The commit a revision names, or an error saying what to pass.
fn resolve(store: &Store, rev: &str) -> Result<ObjectId> {
    store.resolve_commit(rev).ok_or_else(|| {
        error::input(
            format!(
                "{rev:?} does not name a commit here{}",
                store.why_no_commit().unwrap_or_default()
            ),
            "pass a revision such as HEAD~3, a branch, a tag or a commit id",
        )
    })
}

/// The two points a `diff` range names: nothing (the last save and now), `<rev>` (then and
/// now) or `<rev>..<rev>` (an empty side is HEAD). A memory commit stands for its own ref;
/// a code commit for the memory its note names.
pub fn diff_points(store: &Store, range: Option<&str>) -> Result<(Point, Point)> {
    let Some(range) = range else {
        return Ok((Point::last_save(store)?, Point::now(store, None)?));
    };
    match range.split_once("..") {
        Some((a, b)) => {
            let side = |r: &str| point(store, if r.is_empty() { "HEAD" } else { r });
            Ok((side(a)?.0, side(b)?.0))
        }
        None => {
            let (from, memory_ref) = point(store, range)?;
            Ok((from, Point::now(store, memory_ref.as_deref())?))
        }
    }
}

/// A revision as a diff point; for a memory commit, also the ref it is on.
fn point(store: &Store, rev: &str) -> Result<(Point, Option<String>)> {
    let id = store.resolve_commit(rev).ok_or_else(|| {
        error::input(
            format!(
                "{rev:?} does not name a commit here{}",
                store.why_no_commit().unwrap_or_default()
            ),
            "pass a memory commit (see `git rune log`), a code commit (HEAD~2, a branch, an id) or A..B",
        )
    })?;
    if Point::is_memory_commit(store, id) {
        let (p, name) = Point::memory_commit(store, id)?;
        return Ok((p, Some(name)));
    }
    Ok((Point::new(rev, snapshot_at(store, id)?.state), None))
}

/// Memory as of the code commit `at`: the memory commits its note names, or else the newest
/// commit of each memory ref (first-parent chain) no later than `at`, on the branch its note
/// names (the current branch without one).
pub fn snapshot_at(store: &Store, at: ObjectId) -> store::Result<Snapshot> {
    Snapshot::at_tips(store, tips_at(store, at)?)
}

/// The memory commits of [`snapshot_at`].
fn tips_at(store: &Store, at: ObjectId) -> store::Result<Tips> {
    let now = store.head_info()?;
    let time = store.commit_info(at)?.time;
    let note = store.note(at)?.map(|t| CommitNote::parse(&t));
    let named = |id: Option<&String>, name: &str| -> store::Result<Option<Tip>> {
        match id.and_then(|h| ObjectId::from_hex(h.as_bytes()).ok()) {
            Some(c) if store.has_object(c) => store.tip_of(name, c).map(Some),
            _ => store.tip_before(name, time),
        }
    };
    let branch_ref = branch_ref(
        note.as_ref()
            .and_then(|n| n.branch.as_deref())
            .or(now.branch.as_deref()),
    );
    let memory_tip = named(note.as_ref().and_then(|n| n.memory.as_ref()), MEMORY_REF)?;
    let branch_tip = named(note.as_ref().and_then(|n| n.session.as_ref()), &branch_ref)?;
    let head = HeadInfo {
        branch: now.branch,
        head: Some(at),
        upstream: None,
    };
    Ok(Tips {
        head,
        branch_ref,
        memory: memory_tip,
        branch: branch_tip,
    })
}
