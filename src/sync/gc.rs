//! Keeping memory history bounded (`git rune gc`): a memory ref's history is replaced by one
//! root commit holding what its fold still uses (`model::fold::kept`: every live record and
//! every tombstone), marked `Rune-Compacted: <the tip it replaces>`. A sync then publishes it
//! with a lease on the remote's value, and other clones move their unsynced records onto it
//! (sync/merge.rs); the old history is never pushed back. Notes of commits no branch reaches
//! expire here too (`expire_notes`).

use crate::model::fold::kept;
use crate::store::{commit_message, ObjectId, Store, Tip};

/// The trailer of a compacted root: the tip whose history it replaces.
pub const COMPACTED: &str = "Rune-Compacted";

/// What compacting one ref did.
#[derive(Debug, Clone)]
pub struct Compaction {
    pub name: String,
    pub records_before: usize,
    pub records_after: usize,
    pub commits_before: usize,
    /// The tip the compacted commit replaced.
    pub replaced: ObjectId,
}

/// Compacts the history of memory ref `name`; `None` when there is nothing to compact (no
/// ref, or one root commit that already holds only what it must).
pub fn compact(store: &Store, name: &str) -> anyhow::Result<Option<Compaction>> {
    // Written to meanwhile: compact what is there now.
    super::while_moved(|| {
        let Some(tip) = store.tip(name)? else {
            return Ok(None);
        };
        let all = store.tip_records(name, tip)?;
        let keep = kept(&all);
        let commits_before = store.commits_reachable(tip.commit)?;
        if commits_before == 1 && keep.len() == all.len() {
            return Ok(None);
        }
        let tree = store.tree_with(name, None, &keep)?;
        let clock = store.clock_at(name, tip)?;
        let mut message = commit_message("compact memory history", keep.len(), clock);
        message.push_str(&format!("{COMPACTED}: {}\n", tip.commit));
        store.land_commit(name, Some(tip.commit), tree, &[], &message)?;
        Ok(Some(Compaction {
            name: name.to_owned(),
            records_before: all.len(),
            records_after: keep.len(),
            commits_before,
            replaced: tip.commit,
        }))
    })
}

/// The tip a compacted history replaced, if the history of `tip` starts at a compacted root
/// (following first parents, which a merge keeps on the local side).
pub fn compacted_from(store: &Store, tip: Tip) -> anyhow::Result<Option<ObjectId>> {
    let mut root = store.commit_info(tip.commit)?;
    while let Some(parent) = root.first_parent {
        root = store.commit_info(parent)?;
    }
    Ok((root.message.lines())
        .find_map(|l| l.strip_prefix(COMPACTED)?.strip_prefix(": "))
        .and_then(|v| ObjectId::from_hex(v.trim().as_bytes()).ok()))
}

/// Where `gc` lists the commits whose notes expired, one id a line: a sync does not take
/// those notes back from other clones (`sync::notes`).
const EXPIRED: &str = "expired-notes";

/// The commits whose notes expired here (`gc`).
pub fn expired_notes(store: &Store) -> std::collections::HashSet<ObjectId> {
    std::fs::read_to_string(store.common_dir().join("rune").join(EXPIRED))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| ObjectId::from_hex(l.trim().as_bytes()).ok())
        .collect()
}

/// Expires the notes of commits on no branch, tag or remote-tracking branch of this clone
/// (rebased or amended away, and never pushed, or dropped from the remote since): they go
/// from refs/notes/rune, and their commits are listed so no sync takes them back. A commit
/// that is reachable again (fetched later) leaves the list at the next `gc`. Returns how many
/// notes expired.
pub fn expire_notes(store: &Store) -> anyhow::Result<usize> {
    let reachable = store.code_history()?;
    let mut expired: Vec<ObjectId> = store
        .note_commits()?
        .into_iter()
        .filter(|c| !reachable.contains(c))
        .collect();
    let dropped = store.drop_notes(&expired, "expire notes of commits no branch reaches")?;
    // The list keeps what expired before and is still unreachable, plus what expired now.
    let mut list: std::collections::BTreeSet<ObjectId> = expired_notes(store)
        .into_iter()
        .filter(|c| !reachable.contains(c))
        .collect();
    list.extend(expired.drain(..));
    let dir = store.common_dir().join("rune");
    std::fs::create_dir_all(&dir)?;
    let text: String = list.iter().map(|c| format!("{c}\n")).collect();
    crate::files::write_atomic(&dir.join(EXPIRED), text.as_bytes())?;
    Ok(dropped)
}
