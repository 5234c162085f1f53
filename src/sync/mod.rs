//! Sharing memory through git remotes (`git rune sync`): fetch the remote's memory into a
//! tracking namespace, merge every ref by set union (records admitted by the seal's rules,
//! notes joined per commit), push the result never forced and atomic where the remote can,
//! and on a rejected push start over, a bounded number of times. No clap, no printing: the
//! command reports what [`sync`] returns.

pub mod gc;
pub mod merge;
pub mod notes;

use std::collections::BTreeMap;
use std::time::Duration;

use anyhow::Result;

use crate::error;
use crate::store::{PushOutcome, Store, TransferError, NOTES_REF};

use merge::{merge_ref, RefMerge};
use notes::{merge_notes, NotesMerge};

/// How many times a sync fetches, merges and pushes before it gives up on a remote that keeps
/// moving.
pub const MAX_ROUNDS: usize = 10;

/// What one sync with one remote did.
#[derive(Debug, Clone, Default)]
pub struct SyncReport {
    pub remote: String,
    /// Each memory ref that the remote has, as merged.
    pub refs: Vec<RefMerge>,
    pub notes: Option<NotesMerge>,
    /// Records that went out, by kind, and notes that went out.
    pub outgoing: BTreeMap<&'static str, usize>,
    pub notes_out: usize,
    /// The refs pushed (empty when the remote already had everything).
    pub pushed: Vec<String>,
    /// Fetch-merge-push rounds it took.
    pub rounds: usize,
    /// Set when the remote kept moving for [`MAX_ROUNDS`] rounds: what came in is merged, the
    /// push is left for a later sync.
    pub gave_up: Option<String>,
}

impl SyncReport {
    /// Records that came in, by kind, over every ref.
    pub fn incoming(&self) -> BTreeMap<&'static str, usize> {
        let mut out = BTreeMap::new();
        for r in &self.refs {
            for (k, n) in &r.incoming {
                *out.entry(*k).or_default() += n;
            }
        }
        out
    }

    /// Records from the remote that were refused, with why.
    pub fn refused(&self) -> Vec<&(String, String)> {
        self.refs.iter().flat_map(|r| &r.refused).collect()
    }

    /// The refs not pushed because the remote's history of them holds a secret.
    pub fn held(&self) -> Vec<&str> {
        self.refs
            .iter()
            .filter(|r| r.push_held())
            .map(|r| r.name.as_str())
            .collect()
    }

    /// What a command says about the records refused and the refs held back, one warning
    /// each (never the secret: a refusal names the rule and the record).
    pub fn warnings(&self) -> Vec<String> {
        let remote = &self.remote;
        let mut out: Vec<String> = self
            .refused()
            .iter()
            .map(|(id, why)| {
                format!(
                    "refused a record from {remote} ({}): {why}",
                    crate::text::short(id)
                )
            })
            .collect();
        for name in self.held() {
            out.push(format!(
                "{name} was not pushed to {remote}: its history there holds a secret, so only its other records were merged here and no ref of this clone keeps that history; `git rune gc {remote}` here replaces {remote}'s history with this clone's compacted one, which never held the secret"
            ));
        }
        out
    }
}

/// Options of one sync.
#[derive(Debug, Clone, Copy)]
pub struct SyncOptions {
    /// Fetch and merge only (init in a fresh clone).
    pub no_push: bool,
    /// Fetch-merge-push rounds before giving up on a remote that keeps moving.
    pub rounds: usize,
}

impl Default for SyncOptions {
    fn default() -> Self {
        SyncOptions {
            no_push: false,
            rounds: MAX_ROUNDS,
        }
    }
}

/// Syncs memory with `remote`; `slow(what)` is called when a transfer takes more than a
/// moment. Nothing local changes if the remote cannot be reached.
pub fn sync(
    store: &Store,
    remote: &str,
    opts: SyncOptions,
    slow: &dyn Fn(&str),
) -> Result<SyncReport> {
    let _lock = SyncLock::take(store)?;
    let mut report = SyncReport {
        remote: remote.to_owned(),
        ..SyncReport::default()
    };
    for round in 0..opts.rounds.max(1) {
        report.rounds = round + 1;
        store
            .fetch_memory(remote, &|| slow(&format!("fetching memory from {remote}…")))?
            .map_err(|e| unreachable(remote, e))?;
        merge_tracking(store, remote, &mut report)?;
        record_merged(store)?;
        if opts.no_push {
            return Ok(report);
        }
        let to_push = outgoing(store, remote, &mut report)?;
        if to_push.is_empty() {
            return Ok(report);
        }
        let with_leases: Vec<(String, Option<crate::store::ObjectId>)> = to_push
            .iter()
            .map(|name| {
                let lease = report
                    .refs
                    .iter()
                    .find(|m| m.name == *name)
                    .and_then(|m| m.lease);
                (name.clone(), lease)
            })
            .collect();
        match store.push_memory(remote, &with_leases, &|| {
            slow(&format!("pushing memory to {remote}…"))
        })? {
            PushOutcome::Pushed => {
                for name in &to_push {
                    if let Some(id) = store.ref_id(name)? {
                        store.set_tracking(remote, name, id)?;
                    }
                }
                record_merged(store)?;
                report.pushed = to_push;
                return Ok(report);
            }
            PushOutcome::Rejected {
                refs,
                remote: said,
                stderr,
            } => {
                let raced = refs.iter().all(|r| r.is_race() || r.is_collateral())
                    && (refs.iter().any(|r| r.is_race())
                        || is_race(&stderr)
                        || said.iter().any(|l| is_race(l)));
                if !raced {
                    return Err(push_refused(remote, &refs, &said, &stderr));
                }
                // Someone pushed in between: fetch, merge and try again.
                report.outgoing.clear();
                report.notes_out = 0;
                std::thread::sleep(backoff(round));
            }
        }
    }
    report.gave_up = Some(format!(
        "{remote} kept moving during {} rounds; what came in is merged here, and a later `git rune sync {remote}` will finish the push",
        opts.rounds.max(1)
    ));
    Ok(report)
}

/// Merges every tracking ref of `remote` into the local refs (what a plain `git fetch` with
/// git-rune's refspecs brought in, too). A tracking ref whose history holds a record refused
/// as a secret is deleted once its other records are merged.
pub fn merge_tracking(store: &Store, remote: &str, report: &mut SyncReport) -> Result<()> {
    report.refs.clear();
    report.notes = None;
    for (local, theirs) in store.tracking(remote)? {
        if local == NOTES_REF {
            report.notes = Some(merge_notes(store, theirs, remote)?);
        } else {
            let merged = merge_ref(store, &local, theirs, remote)?;
            // A history holding a secret is kept by no ref here, the tracking ref included.
            if merged.secret {
                store.drop_tracking(remote, &local, theirs)?;
            }
            report.refs.push(merged);
        }
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
            store.add_config(&key, &spec)?;
            added = true;
        }
    }
    Ok(added)
}

/// Where the tracking refs stood when they were last merged: `<ref> <id>` lines.
const MERGED: &str = "merged-tracking";

/// Merges what moved in the tracking namespace since the last merge (a plain `git fetch`
/// with git-rune's refspecs): one listing of `refs/rune-remotes/` compared with the ids last
/// merged, and nothing more when they match.
pub fn merge_fetched(store: &Store) -> Result<Vec<SyncReport>> {
    let now = store.refs_under(crate::store::TRACKING_PREFIX)?;
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
            name.strip_prefix(crate::store::TRACKING_PREFIX)
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

fn tracking_listing(refs: &[(String, crate::store::ObjectId)]) -> String {
    refs.iter().map(|(n, id)| format!("{n} {id}\n")).collect()
}

/// Remembers the tracking refs as merged now.
fn record_merged(store: &Store) -> Result<()> {
    let now = store.refs_under(crate::store::TRACKING_PREFIX)?;
    let dir = store.common_dir().join("rune");
    std::fs::create_dir_all(&dir)?;
    std::fs::write(dir.join(MERGED), tracking_listing(&now))?;
    Ok(())
}

/// The local refs the remote lacks something of, with what goes out counted; not those whose
/// remote history holds a secret ([`RefMerge::push_held`]).
fn outgoing(store: &Store, remote: &str, report: &mut SyncReport) -> Result<Vec<String>> {
    let mut out = Vec::new();
    let mut names = store.memory_refs()?;
    if store.ref_id(NOTES_REF)?.is_some() {
        names.push(NOTES_REF.to_owned());
    }
    for name in names {
        if report.refs.iter().any(|m| m.name == name && m.push_held()) {
            continue;
        }
        let Some(ours) = store.tip(&name)? else {
            continue;
        };
        let theirs = store.ref_id(&crate::store::tracking_ref(remote, &name))?;
        if theirs == Some(ours.commit) {
            continue;
        }
        let their_tree = match theirs {
            Some(t) => Some(store.tip_of(&name, t)?.tree),
            None => None,
        };
        if name == NOTES_REF {
            report.notes_out += store.notes_differing(their_tree, ours.tree)?.len();
        } else {
            let kinds = crate::model::Kind::ALL;
            for r in store.records_added_trees(&name, their_tree, ours.tree, kinds)? {
                *report.outgoing.entry(r.kind().as_str()).or_default() += 1;
            }
        }
        out.push(name);
    }
    Ok(out)
}

/// The error for a memory push `remote` did not take: the refs it refused and why, in the
/// remote's own words, or that it has memory this clone lacks (then a sync merges it).
pub fn push_refused(
    remote: &str,
    refs: &[crate::store::RefusedRef],
    said: &[String],
    stderr: &str,
) -> anyhow::Error {
    let behind: Vec<&str> = refs
        .iter()
        .filter(|r| r.is_behind())
        .map(|r| r.name.as_str())
        .collect();
    let refused: Vec<String> = refs
        .iter()
        .filter(|r| !r.is_behind() && !r.is_collateral())
        .map(|r| format!("{} ({})", r.name, r.reason))
        .collect();
    let mut why = Vec::new();
    if !refused.is_empty() {
        why.push(format!("{remote} refused {}", refused.join(", ")));
    }
    if !behind.is_empty() {
        why.push(format!(
            "rejected {} (the remote has memory this clone lacks)",
            behind.join(", ")
        ));
    }
    if why.is_empty() {
        why.push(stderr.to_owned());
    }
    let mut message = format!("memory was not pushed to {remote}: {}", why.join("; "));
    if !said.is_empty() {
        message.push_str(&format!("; the remote said: {}", said.join(" / ")));
    }
    let hint = if refused.is_empty() {
        "run `git rune sync` to merge the remote's memory and push again; memory is never force-pushed"
    } else {
        "the remote's own rules refused the memory refs: ask its administrator to allow refs/rune/* and refs/notes/rune"
    };
    error::conflict(message, hint)
}

/// How long to wait before round `round + 1`: random within a window that doubles each
/// round (30 ms, 60 ms, … up to 1 s), so syncs that keep colliding spread out.
fn backoff(round: usize) -> Duration {
    let window = (30u64 << round.min(5)).min(1000);
    let noise = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos() as u64)
        .unwrap_or(0)
        ^ u64::from(std::process::id()).wrapping_mul(0x9e37_79b9);
    Duration::from_millis(window / 2 + noise % (window / 2 + 1))
}

/// Whether a push failed because the remote moved (a race), not because it refused.
fn is_race(stderr: &str) -> bool {
    [
        "fetch first",
        "non-fast-forward",
        "cannot lock ref",
        "stale info",
        "failed to update ref",
    ]
    .iter()
    .any(|s| stderr.contains(s))
}

fn unreachable(remote: &str, e: TransferError) -> anyhow::Error {
    error::environment(
        format!("cannot fetch memory from {remote}: {}", e.message),
        format!(
            "check that {remote} is reachable (`git fetch {remote}` says the same); nothing here was changed, and a later `git rune sync` picks up where this one stopped"
        ),
    )
}

/// One sync at a time per repository: a second waits for the first (up to a minute).
struct SyncLock {
    _file: std::fs::File,
}

impl SyncLock {
    fn take(store: &Store) -> Result<SyncLock> {
        let dir = store.common_dir().join("rune");
        std::fs::create_dir_all(&dir)?;
        let path = dir.join("sync.lock");
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)?;
        let mut waited = Duration::ZERO;
        loop {
            match file.try_lock() {
                Ok(()) => return Ok(SyncLock { _file: file }),
                Err(std::fs::TryLockError::WouldBlock) if waited < Duration::from_secs(60) => {
                    std::thread::sleep(Duration::from_millis(20));
                    waited += Duration::from_millis(20);
                }
                Err(std::fs::TryLockError::WouldBlock) => {
                    return Err(error::conflict(
                        "another git rune sync has been running here for a minute",
                        format!(
                            "wait for it to finish; if none is running, remove {}",
                            path.display()
                        ),
                    ))
                }
                Err(std::fs::TryLockError::Error(e)) => return Err(e.into()),
            }
        }
    }
}
