//! The tracking namespace (`refs/rune-remotes/<remote>/…`): merging what a fetch brought into
//! the local refs (the shared refs first, then every clone's published ref that moved since it
//! was last merged), remembering what was merged (`<common-dir>/rune/merged-tracking`), and the
//! fetch refspecs that let a plain `git fetch` bring memory.

use std::collections::{BTreeMap, HashMap};

use anyhow::Result;

use crate::store::{ObjectId, Source, Store, NOTES_REF, TRACKING_PREFIX};

use super::merge::{absorb, merge_ref, RefMerge};
use super::notes::{absorb_notes, merge_notes, NotesMerge};
use super::SyncReport;

/// Merges every tracking ref of `remote` into the local refs (what a plain `git fetch` with
/// git-rune's refspecs brought in, too): per local ref, the shared ref older versions write
/// first, then every clone's published ref that moved since it was last merged, in one
/// commit. A remote ref that cannot be read, or that holds refused records, is quarantined:
/// reported, merged without what was refused, and its tracking ref dropped, so nothing here
/// keeps its objects reachable.
pub fn merge_tracking(store: &Store, remote: &str, report: &mut SyncReport) -> Result<()> {
    report.refs.clear();
    report.notes = None;
    report.skipped.clear();
    report.quarantined.clear();
    let before = merged_before(store);
    let mut groups: BTreeMap<String, Vec<Source>> = BTreeMap::new();
    for src in store.tracking(remote)? {
        groups.entry(src.local.clone()).or_default().push(src);
    }
    let mut dropped = Vec::new();
    for (local, sources) in groups {
        let (shared, clones): (Vec<Source>, Vec<Source>) =
            sources.into_iter().partition(|s| s.clone.is_none());
        let moved: Vec<Source> = clones
            .into_iter()
            .filter(|s| before.get(&s.tracking) != Some(&s.id))
            .collect();
        if local == NOTES_REF {
            let mut m = NotesMerge::default();
            for src in &shared {
                merge_notes(store, src, remote, &mut m, report)?;
            }
            absorb_notes(store, &moved, remote, &mut m, report)?;
            report.notes = Some(m);
        } else {
            let mut m = RefMerge::new(&local);
            for src in &shared {
                merge_ref(store, src, remote, &mut m, report)?;
            }
            absorb(store, &local, &moved, remote, &mut m, report)?;
            report.refs.push(m);
        }
        for src in shared.iter().chain(&moved) {
            if report.is_quarantined(&src.remote_ref) {
                dropped.push(src.tracking.clone());
            }
        }
    }
    for name in dropped {
        store.drop_tracking(&name)?;
    }
    Ok(())
}

/// Adds git-rune's fetch refspecs to `remote` (unless it has them), so a plain `git fetch`
/// or `git pull` brings its memory into the tracking namespace. Push refspecs are never added:
/// they would change what a plain `git push` does. Returns whether it added anything.
pub fn track_remote(store: &Store, remote: &str) -> Result<bool> {
    let key = format!("remote.{remote}.fetch");
    let mut added = false;
    for spec in crate::store::fetch_refspecs(remote) {
        if !store.config_has(&key, &spec) {
            store.ensure_config(&key, &spec)?;
            added = true;
        }
    }
    Ok(added)
}

/// Where the tracking refs stood when they were last merged: `<ref> <id>` lines.
const MERGED: &str = "merged-tracking";

fn merged_before(store: &Store) -> HashMap<String, ObjectId> {
    let path = store.common_dir().join("rune").join(MERGED);
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| {
            let (name, id) = l.rsplit_once(' ')?;
            Some((name.to_owned(), ObjectId::from_hex(id.as_bytes()).ok()?))
        })
        .collect()
}

/// Merges what moved in the tracking namespace since the last merge (a plain `git fetch`
/// with git-rune's refspecs): one listing of `refs/rune-remotes/` compared with the ids last
/// merged, and nothing more when they match.
pub fn merge_fetched(store: &Store) -> Result<Vec<SyncReport>> {
    let now = store.refs_under(TRACKING_PREFIX)?;
    if now.is_empty() {
        return Ok(Vec::new());
    }
    let path = store.common_dir().join("rune").join(MERGED);
    let before = std::fs::read_to_string(&path).unwrap_or_default();
    let listed = tracking_listing(&now);
    if before == listed {
        return Ok(Vec::new());
    }
    let remotes: std::collections::BTreeSet<&str> = now
        .iter()
        .filter(|(name, id)| !before.contains(&format!("{name} {id}\n")))
        .filter_map(|(name, _)| {
            name.strip_prefix(TRACKING_PREFIX)
                .and_then(|r| r.split('/').next())
        })
        .collect();
    let mut reports = Vec::new();
    for remote in remotes {
        let mut report = SyncReport {
            remote: remote.to_owned(),
            ..SyncReport::default()
        };
        merge_tracking(store, remote, &mut report)?;
        reports.push(report);
    }
    record_merged(store)?;
    Ok(reports)
}

fn tracking_listing(refs: &[(String, ObjectId)]) -> String {
    refs.iter().map(|(n, id)| format!("{n} {id}\n")).collect()
}

/// Remembers the tracking refs as merged now.
pub(super) fn record_merged(store: &Store) -> Result<()> {
    let now = store.refs_under(TRACKING_PREFIX)?;
    let dir = store.common_dir().join("rune");
    std::fs::create_dir_all(&dir)?;
    crate::files::write_atomic(&dir.join(MERGED), tracking_listing(&now).as_bytes())?;
    Ok(())
}
