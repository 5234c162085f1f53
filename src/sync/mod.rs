//! Sharing memory through git remotes (`git rune sync`): fetch the remote's memory into a
//! tracking namespace, merge every ref by set union (records admitted by the seal's rules,
//! notes joined per commit), push the result never forced, and on a rejected push start over,
//! a bounded number of times. Each clone publishes its own refs (`refs/rune-clones/<clone>/…`),
//! so concurrent writers never contend on one ref; the shared refs older versions read
//! (`refs/rune/…`, `refs/notes/rune`) are brought up to date in the same push when nobody
//! raced it. Memory goes only to remotes that opted in (`share`), and a remote ref that cannot
//! be read is skipped while the rest syncs (docs/storage.md, "Sharing memory"). No clap, no
//! printing: the command reports what [`sync`] returns. About 600 lines with its tests: the
//! rounds of one sync read top to bottom; a push the remote did not take is `refused.rs`.

pub mod gc;
pub mod merge;
pub mod notes;
mod publish;
mod refused;
pub mod repair;
pub mod share;
mod tracking;

use std::collections::BTreeMap;
use std::time::Duration;

use anyhow::Result;

use crate::error;
use crate::store::{
    published_ref, tracking_ref, ObjectId, PushOutcome, Source, Store, StoreError, Tip,
    TransferError, Unreadable, MEMORY_REF, NOTES_REF, TRACKING_PREFIX,
};

use merge::RefMerge;
use notes::NotesMerge;
pub use refused::push_refused;
use refused::{is_race, join_refused_replacements};
use share::Sharing;
use tracking::record_merged;
pub use tracking::{merge_fetched, merge_tracking, track_remote};

/// How many times a sync fetches, merges and pushes before it gives up on a remote that keeps
/// moving.
pub const MAX_ROUNDS: usize = 10;

/// A remote ref that was not merged at all, and what to do about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    /// Its name on the remote.
    pub remote_ref: String,
    pub why: String,
    pub hint: String,
}

/// What one sync with one remote did.
#[derive(Debug, Clone, Default)]
pub struct SyncReport {
    pub remote: String,
    /// Each local memory ref the remote has something for, as merged.
    pub refs: Vec<RefMerge>,
    pub notes: Option<NotesMerge>,
    /// Records that went out, by kind, and notes that went out.
    pub outgoing: BTreeMap<&'static str, usize>,
    pub notes_out: usize,
    /// The remote refs pushed (empty when the remote already had everything).
    pub pushed: Vec<String>,
    /// Fetch-merge-push rounds it took.
    pub rounds: usize,
    /// Set when the remote kept moving for [`MAX_ROUNDS`] rounds: what came in is merged, the
    /// push is left for a later sync.
    pub gave_up: Option<String>,
    /// Remote refs that were not read (not a commit, a newer layout, past the limits).
    pub skipped: Vec<Skipped>,
    /// Remote refs holding refused records or notes, or unreadable: merged without what was
    /// refused, never pushed to plainly (`git rune repair` replaces them).
    pub quarantined: Vec<Source>,
    /// Why nothing was pushed: the remote is not one memory goes to.
    pub not_shared: Option<Sharing>,
    /// This sync opted the remote in (`SyncOptions::opt_in`).
    pub opted_in: bool,
    /// Shared refs (those older versions read) another clone moved first (or the remote's
    /// rules refused: then with the reason): this clone's own refs carry its memory; a later
    /// sync brings these up to date.
    pub shared_behind: Vec<String>,
    /// Set when the remote's rules would not let a compacted history replace the history of
    /// its refs: the local history was joined onto the remote's instead, so both keep the old
    /// commits and nothing is dropped.
    pub kept_history: Option<KeptHistory>,
}

/// Remote refs whose history the remote would not let be replaced, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeptHistory {
    pub refs: Vec<String>,
    /// git's reason for each ref, and the remote's own words.
    pub why: String,
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

    /// Records (and notes) from the remote that were refused, with why.
    pub fn refused(&self) -> Vec<&(String, String)> {
        self.refs
            .iter()
            .flat_map(|r| &r.refused)
            .chain(self.notes.iter().flat_map(|n| &n.refused))
            .collect()
    }

    /// What a command says about the records refused, the remote refs skipped and the shared
    /// refs refused, one warning each (never a secret: a refusal names the rule and the
    /// record). `sync`, `init`, every command's merge of fetched memory and the session start
    /// all say these.
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
        for s in &self.skipped {
            out.push(format!(
                "skipped {remote}'s {}: {}; {}",
                s.remote_ref, s.why, s.hint
            ));
        }
        if let Some(k) = &self.kept_history {
            out.push(format!(
                "{remote} does not let the history of {} be replaced ({}): this clone's compacted history was joined onto it instead, so both keep their old commits and nothing was lost; compacting it there needs non-fast-forward pushes to refs/rune/* and refs/rune-clones/* allowed",
                k.refs.join(", "),
                k.why
            ));
        }
        for name in self.shared_behind.iter().filter(|n| n.contains(" (")) {
            out.push(format!(
                "{remote} refused {name}: this clone's memory went to its own refs there, but clones of older git-rune versions read only that one"
            ));
        }
        out
    }

    /// `src`'s tip as [`Store::check_remote_tip`] checks it; `None`, noted as skipped, when it
    /// cannot be read.
    fn readable(&mut self, store: &Store, src: &Source, notes: bool) -> Result<Option<Tip>> {
        let tip = store.check_remote_tip(src.id, notes)?;
        Ok(tip.map_err(|why| self.skip(src, &why)).ok())
    }

    fn skip(&mut self, src: &Source, why: &Unreadable) {
        let hint = if why.repairable() {
            format!(
                "the other refs synced; `git rune repair {}` replaces it with a clean tip",
                self.remote
            )
        } else {
            "the other refs synced; upgrade git-rune here to read it".to_owned()
        };
        self.skipped.push(Skipped {
            remote_ref: src.remote_ref.clone(),
            why: why.why(),
            hint,
        });
        if why.repairable() {
            self.quarantine(src);
        }
    }

    fn quarantine(&mut self, src: &Source) {
        if !self.is_quarantined(&src.remote_ref) {
            self.quarantined.push(src.clone());
        }
    }

    /// Whether remote ref `name` was quarantined by this sync.
    pub fn is_quarantined(&self, name: &str) -> bool {
        self.quarantined.iter().any(|s| s.remote_ref == name)
    }
}

/// The sources worth reading into the local ref whose tip is `start`: moved past it, with a
/// tip this build reads (`notes`: as a notes ref; the others are skipped and reported) and a
/// tree other than `start`'s.
fn moved_tips<'a>(
    store: &Store,
    start: Option<Tip>,
    sources: &'a [Source],
    notes: bool,
    report: &mut SyncReport,
) -> anyhow::Result<Vec<(&'a Source, Tip)>> {
    let mut out = Vec::new();
    for src in sources {
        if start.map(|t| t.commit) == Some(src.id) {
            continue;
        }
        match store.check_remote_tip(src.id, notes)? {
            Ok(tip) if start.map(|t| t.tree) == Some(tip.tree) => {}
            Ok(tip) => out.push((src, tip)),
            Err(why) => report.skip(src, &why),
        }
    }
    Ok(out)
}

/// Options of one sync.
#[derive(Debug, Clone)]
pub struct SyncOptions {
    /// Fetch and merge only (init in a fresh clone).
    pub no_push: bool,
    /// Fetch-merge-push rounds before giving up on a remote that keeps moving.
    pub rounds: usize,
    /// Branches being pushed to the remote now (the pre-push hook): their session state may
    /// go along, beside that of branches the remote already has.
    pub pushing: Vec<String>,
    /// Commits the push being made sends (the pre-push list's local ids, whatever the local
    /// ref was called: `git push origin HEAD:refs/heads/x` too): their notes may go along.
    pub sending: Vec<ObjectId>,
    /// Opt the remote in if nobody decided about it yet (`git rune sync <remote>` asked by
    /// name: that is the decision; never a fork's upstream, never a remote opted out).
    pub opt_in: bool,
}

impl Default for SyncOptions {
    fn default() -> Self {
        SyncOptions {
            no_push: false,
            rounds: MAX_ROUNDS,
            pushing: Vec::new(),
            sending: Vec::new(),
            opt_in: false,
        }
    }
}

/// Syncs memory with `remote`; `slow(what)` is called when a transfer takes more than a
/// moment. Nothing local changes if the remote cannot be reached. Memory is pushed only to a
/// remote that opted in (`share::sharing`); for any other, the sync only merges.
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
    let mut sharing = share::sharing(store, remote);
    if opts.opt_in && !opts.no_push && sharing == Sharing::NotOptedIn {
        share::opt_in(store, remote)?;
        sharing = Sharing::OptedIn;
        report.opted_in = true;
    }
    let push = !opts.no_push && sharing.pushes();
    if !opts.no_push && !sharing.pushes() {
        report.not_shared = Some(sharing);
    }
    let me = share::clone_id(store)?;
    let mut joined = Vec::new();
    match rounds(
        store,
        remote,
        &opts,
        push,
        &me,
        &mut report,
        &mut joined,
        slow,
    ) {
        Ok(()) => Ok(report),
        Err(e) => {
            // A failed sync leaves the local refs as they were: histories it joined for a
            // push that did not happen are taken back (each only while nothing moved it).
            for (name, before, join) in joined.iter().rev() {
                let _ = store.fast_forward(name, Some(*join), *before, "undo a join not pushed");
            }
            Err(e)
        }
    }
}

/// The fetch-merge-push rounds of [`sync`]; `joined` collects the local refs it joined onto
/// a remote's history (ref, its commit before, the join) for `sync` to take back on failure.
#[allow(clippy::too_many_arguments)]
fn rounds(
    store: &Store,
    remote: &str,
    opts: &SyncOptions,
    push: bool,
    me: &str,
    report: &mut SyncReport,
    joined: &mut Vec<(String, ObjectId, ObjectId)>,
    slow: &dyn Fn(&str),
) -> Result<()> {
    for round in 0..opts.rounds.max(1) {
        report.rounds = round + 1;
        store
            .fetch_memory(remote, &|| slow(&format!("fetching memory from {remote}…")))?
            .map_err(|e| unreachable(remote, e))?;
        merge_tracking(store, remote, report)?;
        record_merged(store)?;
        if !push {
            return Ok(());
        }
        let plan = outgoing(store, remote, me, opts, report)?;
        if plan.refs.is_empty() {
            return Ok(());
        }
        let outcome = store.push_refs(remote, &plan.refs, &|| {
            slow(&format!("pushing memory to {remote}…"))
        })?;
        let rejected = match outcome {
            PushOutcome::Pushed => Vec::new(),
            PushOutcome::Rejected {
                refs,
                remote: said,
                stderr,
            } => {
                if refs.is_empty() {
                    // The push as a whole failed (git said why): nothing landed.
                    if is_race(&stderr) {
                        report.outgoing.clear();
                        report.notes_out = 0;
                        std::thread::sleep(backoff(round));
                        continue;
                    }
                    return Err(push_refused(remote, &refs, &said, &stderr));
                }
                if joined.is_empty() {
                    // A remote whose rules take only fast-forwards never takes a compacted
                    // history: join it onto the remote's instead, once, and push again.
                    let joins = join_refused_replacements(store, remote, &plan, &refs)?;
                    if !joins.is_empty() {
                        let mut kept = KeptHistory {
                            refs: Vec::new(),
                            why: String::new(),
                        };
                        let mut reasons = Vec::new();
                        for (name, before, join, refused) in joins {
                            joined.push((name, before, join));
                            for (r, why) in refused {
                                if !reasons.contains(&why) {
                                    reasons.push(why);
                                }
                                kept.refs.push(r);
                            }
                        }
                        kept.why = reasons.join(", ");
                        if !said.is_empty() {
                            kept.why
                                .push_str(&format!("; the remote said: {}", said.join(" / ")));
                        }
                        report.kept_history = Some(kept);
                        report.outgoing.clear();
                        report.notes_out = 0;
                        continue;
                    }
                }
                let own_refused = refs.iter().any(|r| plan.is_own(&r.name) && !r.is_race());
                if own_refused {
                    // The remote's rules: every ref it refused, the shared ones first.
                    let mut all = refs.clone();
                    all.sort_by_key(|r| r.name.starts_with(crate::store::CLONES_PREFIX));
                    return Err(push_refused(remote, &all, &said, &stderr));
                }
                refs
            }
        };
        // What landed is on the remote now: its tracking refs follow.
        let mut landed = Vec::new();
        for ((_, to, _), id) in plan.refs.iter().zip(&plan.ids) {
            if rejected.iter().any(|r| r.name == *to) {
                continue;
            }
            store.set_tracking_ref(&remote_tracking(remote, to), *id, remote)?;
            landed.push(to.clone());
        }
        record_merged(store)?;
        report.pushed = landed;
        report.shared_behind = rejected
            .iter()
            .filter(|r| !plan.is_own(&r.name))
            .map(|r| {
                if r.is_race() {
                    r.name.clone()
                } else {
                    format!("{} ({})", r.name, r.reason)
                }
            })
            .collect();
        if rejected.iter().any(|r| plan.is_own(&r.name)) {
            // Another process published under this clone's name (a copy of this
            // repository): fetch, merge and try again.
            report.outgoing.clear();
            report.notes_out = 0;
            std::thread::sleep(backoff(round));
            continue;
        }
        return Ok(());
    }
    report.gave_up = Some(format!(
        "{remote} kept moving during {} rounds; what came in is merged here, and a later `git rune sync {remote}` will finish the push",
        opts.rounds.max(1)
    ));
    Ok(())
}

/// The tracking ref of remote ref `remote_ref` (a shared ref or a clone's published one).
fn remote_tracking(remote: &str, remote_ref: &str) -> String {
    match remote_ref.strip_prefix(crate::store::CLONES_PREFIX) {
        Some(rest) => format!("{TRACKING_PREFIX}{remote}/clones/{rest}"),
        None => tracking_ref(remote, remote_ref),
    }
}

/// What a sync pushes: (what: a local ref or a commit, remote ref, lease), the commit each
/// one sends, and which remote refs are this clone's own.
#[derive(Default)]
struct Plan {
    refs: Vec<(String, String, Option<ObjectId>)>,
    ids: Vec<ObjectId>,
    /// The local ref each entry publishes.
    locals: Vec<String>,
    own: Vec<String>,
}

impl Plan {
    fn is_own(&self, remote_ref: &str) -> bool {
        self.own.iter().any(|o| o == remote_ref)
    }
}

/// The refs the remote lacks something of, with what goes out counted: this clone's own
/// published refs (memory, the branches the remote has or is being sent, notes), each with a
/// lease on what this clone last saw there (only it writes them), and the shared refs older
/// versions read, pushed plainly (never over another clone's push) unless quarantined.
fn outgoing(
    store: &Store,
    remote: &str,
    me: &str,
    opts: &SyncOptions,
    report: &mut SyncReport,
) -> Result<Plan> {
    let pushing = &opts.pushing;
    let mut plan = Plan::default();
    let mut names = vec![MEMORY_REF.to_owned()];
    names.extend(share::shared_branches(store, remote, pushing)?);
    names.push(NOTES_REF.to_owned());
    for name in names {
        // A ref this clone does not have sends nothing.
        let Some(ours) = store.tip(&name)? else {
            continue;
        };
        let shared_tracking = tracking_ref(remote, &name);
        let shared = store.ref_id(&shared_tracking)?;
        let own_ref = published_ref(me, &name).expect("memory, branch and notes refs publish");
        let own = store.ref_id(&remote_tracking(remote, &own_ref))?;
        if own == Some(ours.commit) && shared == Some(ours.commit) {
            continue;
        }
        // What goes out: what this clone has that the remote's copy lacks. Notes travel with
        // their commits: those of commits that never left this clone stay here.
        let mut send = (name.clone(), ours.commit);
        if name == NOTES_REF {
            let base = publish::remote_notes(store, remote, own);
            let (publish, going) =
                publish::notes_to_publish(store, remote, ours, base, own, pushing, &opts.sending)?;
            report.notes_out += going;
            if let Some(id) = publish {
                if going == 0 || Some(id) == own {
                    continue;
                }
                send = (id.to_string(), id);
            }
        } else {
            for r in going_out(store, &name, ours, [shared, own])? {
                *report.outgoing.entry(r.kind().as_str()).or_default() += 1;
            }
        }
        if own != Some(send.1) {
            let lease = Some(own.unwrap_or_else(|| ObjectId::null(store.hash_kind())));
            plan.refs.push((send.0.clone(), own_ref.clone(), lease));
            plan.ids.push(send.1);
            plan.locals.push(name.clone());
            plan.own.push(own_ref);
        }
        if shared != Some(send.1) && !report.is_quarantined(&name) {
            let lease = report
                .refs
                .iter()
                .find(|m| m.name == name)
                .and_then(|m| m.lease);
            plan.refs.push((send.0.clone(), name.clone(), lease));
            plan.ids.push(send.1);
            plan.locals.push(name.clone());
        }
    }
    Ok(plan)
}

/// The records of local ref `name` (at `ours`) that the remote's copy lacks: measured against
/// the first of `remote` (its shared ref, then this clone's own published ref, as last
/// fetched) whose records this build reads. A shared ref skipped for a newer layout, or one
/// holding a damaged line, is no measure of what the remote lacks; with neither readable,
/// every record goes out (to this clone's own ref, which the remote does not have yet).
fn going_out(
    store: &Store,
    name: &str,
    ours: Tip,
    remote: [Option<ObjectId>; 2],
) -> Result<Vec<crate::model::Record>> {
    for id in remote.into_iter().flatten() {
        let Ok(Ok(base)) = store.check_remote_tip(id, false) else {
            continue;
        };
        if let Ok((added, _)) = store.tree_changes(name, Some(base.tree), ours.tree) {
            return Ok(added);
        }
    }
    Ok(store.tree_changes(name, None, ours.tree)?.0)
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

/// Runs `once` again while it fails because a local write moved the ref meanwhile.
fn while_moved<T>(mut once: impl FnMut() -> anyhow::Result<T>) -> anyhow::Result<T> {
    loop {
        match once() {
            Err(e)
                if matches!(
                    e.downcast_ref::<StoreError>(),
                    Some(StoreError::Contended { attempts: 1, .. })
                ) => {}
            other => return other,
        }
    }
}
