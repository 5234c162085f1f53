//! The note `post-commit` attaches to a new code commit: which memory produced it, the
//! decisions, learnings and conventions recorded since the previous commit, and the open
//! checkpoint. A commit with nothing new still gets a short note, so every commit maps to the
//! memory of its time.

use super::format::MAX_LISTED;
use super::CommitNote;
use crate::model::kinds::Checkpoint;
use crate::model::{fold, Body, Kind, Record};
use crate::store::{self, branch_ref, ObjectId, Store, MEMORY_REF, NOTES_REF};

/// Commits whose note a hook could not write (another process held refs/notes/rune), one
/// `<commit> <branch>` line each (`-` when detached), in `<git-dir>/rune/`: the next
/// post-commit writes them.
const PENDING: &str = "pending-notes";

/// Writes the note of the commit HEAD points at (nothing on an unborn branch), and the notes
/// a previous run could not write. When the notes ref cannot be moved, HEAD is remembered as
/// pending and the error returned.
pub fn note_head(store: &Store) -> store::Result<()> {
    // During a rebase, the branch it rebases (`Store::head_info`).
    let head = store.head_info()?;
    let Some(commit) = head.head else {
        return Ok(());
    };
    let pending_path = store.git_dir().join("rune").join(PENDING);
    let pending = read_pending(&pending_path, commit);
    let memory = store.ref_id(MEMORY_REF)?;
    let first_note = store.ref_id(NOTES_REF)?.is_none();
    // One read of the notes tree serves the parents' notes and the write.
    let written = store.edit_notes("post-commit", |notes| {
        let mut out = Vec::new();
        for (c, branch) in &pending {
            // Only commits still there and still without a note (a later run may have
            // written it, or the commit was rewritten and has another).
            if store.has_object(*c) && notes.get(*c)?.is_none() {
                out.push((*c, compose(store, notes, *c, branch.as_deref(), memory)?));
            }
        }
        let mut note = compose(store, notes, commit, head.branch.as_deref(), memory)?;
        // A cherry-picked commit carries the memory of the commit it was picked from, as
        // an amended one does (git copies notes only on amend and rebase).
        if let Some(picked) = cherry_picked(store).filter(|p| *p != commit) {
            if let Some(text) = notes.get(picked)? {
                let olds = CommitNote::parse_blocks(&text);
                note = super::rewrite::combined("amend", vec![note], olds);
            }
        }
        out.push((commit, note));
        Ok(out.into_iter().map(|(c, n)| (c, n.render())).collect())
    });
    if let Err(e) = written {
        // Remembered for the next post-commit.
        let line = format!("{commit} {}", head.branch.as_deref().unwrap_or("-"));
        crate::files::append_line(&pending_path, &line);
        return Err(e);
    }
    if !pending.is_empty() {
        let _ = std::fs::remove_file(&pending_path);
    }
    // With the first note the notes ref exists: now git can copy notes on amend and rebase.
    let (key, value) = crate::memory::init::REWRITE_REF;
    if first_note && !store.config_has(key, value) {
        store.add_config(key, value)?;
    }
    Ok(())
}

/// The note of `commit` on `branch`: what memory holds now that its parent's memory did not,
/// and the branch's open checkpoint.
fn compose(
    store: &Store,
    notes: &mut store::Notes<'_>,
    commit: ObjectId,
    branch: Option<&str>,
    memory: Option<ObjectId>,
) -> store::Result<CommitNote> {
    let session_ref = branch_ref(branch);
    let session = store.ref_id(&session_ref)?;
    let parent = store.commit_info(commit)?.first_parent;
    let previous = match parent {
        Some(p) => notes.get(p)?.map(|t| CommitNote::parse(&t)),
        None => None,
    };
    let (records, unlisted) = new_records(store, parent, previous.as_ref(), memory)?;
    let (records, unlisted) = credited(store, branch, parent, records, unlisted);
    // The parent's note already names the open checkpoint of an unchanged session.
    let checkpoint = match (&previous, session) {
        (Some(prev), Some(s)) if prev.session.as_deref() == Some(s.to_string().as_str()) => {
            prev.checkpoint.clone()
        }
        (_, Some(s)) => open_checkpoint(store, &session_ref, s)?,
        (_, None) => None,
    };
    let mut note = CommitNote {
        branch: branch.map(str::to_owned),
        memory: memory.map(|m| m.to_string()),
        session: session.map(|s| s.to_string()),
        checkpoint,
        ..CommitNote::default()
    };
    note.list_records(&records);
    note.omitted += unlisted;
    Ok(note)
}

/// The pending commits other than `head`, oldest first.
fn read_pending(path: &std::path::Path, head: ObjectId) -> Vec<(ObjectId, Option<String>)> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let mut out: Vec<(ObjectId, Option<String>)> = Vec::new();
    for line in text.lines() {
        let (id, branch) = line.split_once(' ').unwrap_or((line, "-"));
        let Ok(id) = ObjectId::from_hex(id.trim().as_bytes()) else {
            continue;
        };
        if id != head && !out.iter().any(|(c, _)| *c == id) {
            out.push((id, (branch != "-").then(|| branch.to_owned())));
        }
    }
    out
}

/// The decisions, learnings and conventions in `memory` that the parent commit's memory (its
/// note's, or memory as of its time) did not hold, and how many more there are: past
/// [`MAX_LISTED`] of them, only the ones the note lists are read (the first in the tree's
/// order, [`CommitNote::list_records`]) and the rest are counted from the memory commits'
/// `Rune-Records` trailers, when those say exactly; otherwise all of them are read.
fn new_records(
    store: &Store,
    parent: Option<ObjectId>,
    previous: Option<&CommitNote>,
    memory: Option<ObjectId>,
) -> store::Result<(Vec<Record>, usize)> {
    let Some(memory) = memory else {
        return Ok((Vec::new(), 0));
    };
    let noted = previous
        .and_then(|n| n.memory.as_deref())
        .and_then(|m| ObjectId::from_hex(m.as_bytes()).ok());
    if noted == Some(memory) {
        return Ok((Vec::new(), 0));
    }
    let base = match (noted, parent) {
        (Some(m), _) if store.has_object(m) => Some(store.tip_of(MEMORY_REF, m)?),
        (Some(_), _) | (None, None) => None,
        (None, Some(_)) if previous.is_some() => None,
        (None, Some(p)) => {
            let time = store.commit_info(p).map(|c| c.time).unwrap_or(0);
            // Memory written in the parent's own second counts as new: listing a record twice
            // is better than never listing it.
            store.tip_before(MEMORY_REF, time - 1)?
        }
    };
    let tip = store.tip_of(MEMORY_REF, memory)?;
    if let Some(n) = store.count_added(MEMORY_REF, base, tip, &LISTED_KINDS)? {
        if n > MAX_LISTED {
            let first = store.first_added(MEMORY_REF, base, tip, &LISTED_KINDS, MAX_LISTED)?;
            // Fewer than asked for would mean the trailers overcount: read everything then.
            if first.len() == MAX_LISTED {
                return Ok((first, n - MAX_LISTED));
            }
        }
    }
    let all = store.records_added(MEMORY_REF, base, tip, &LISTED_KINDS)?;
    Ok((all, 0))
}

/// The records recorded on this commit's own line of history in this clone: written here
/// (by this clone's identity) while HEAD was on `branch`, or on a branch whose tip the new
/// commit descends from, as HEAD's reflog tells. A learning recorded on a feature branch is
/// not credited to the next commit on master, and records another clone wrote (merged or
/// fetched) to no commit here. Without a reflog the branch cannot be told and only the writer
/// is checked. The unlisted count is dropped when records are filtered out (it would count
/// the others' too).
fn credited(
    store: &Store,
    branch: Option<&str>,
    parent: Option<ObjectId>,
    records: Vec<Record>,
    unlisted: usize,
) -> (Vec<Record>, usize) {
    if records.is_empty() {
        return (records, unlisted);
    }
    let me = (!store.author.fallback).then(|| store.author.display());
    let timeline = Timeline::read(store);
    let before = records.len();
    let kept: Vec<Record> = records
        .into_iter()
        .filter(|r| {
            let mine = me
                .as_ref()
                .is_none_or(|me| r.meta.author.is_empty() || r.meta.author == *me);
            mine && timeline.on(store, branch, parent, &r.meta.ts)
        })
        .collect();
    let unlisted = if kept.len() == before { unlisted } else { 0 };
    (kept, unlisted)
}

/// Which branch HEAD was on when, in this clone, from HEAD's reflog.
struct Timeline {
    /// When this clone was cloned (its reflog's first entry, when that is the clone).
    cloned: Option<i64>,
    /// Whether git keeps a reflog of HEAD here.
    logged: bool,
    /// `(time, branch HEAD moved to)` for each checkout, oldest first (`None`: detached).
    moves: Vec<(i64, Option<String>)>,
    /// The branch HEAD was on before the first checkout.
    first: Option<String>,
}

impl Timeline {
    fn read(store: &Store) -> Timeline {
        let log = store.head_reflog();
        let mut moves = Vec::new();
        let mut first = None;
        for (time, message) in &log {
            let Some(rest) = message.strip_prefix("checkout: moving from ") else {
                continue;
            };
            let Some((from, to)) = rest.rsplit_once(" to ") else {
                continue;
            };
            let branch = |name: &str| {
                (!(name.len() >= 40 && name.bytes().all(|b| b.is_ascii_hexdigit())))
                    .then(|| name.to_owned())
            };
            if moves.is_empty() {
                first = branch(from);
            }
            moves.push((*time, branch(to)));
        }
        Timeline {
            cloned: log
                .first()
                .filter(|(_, m)| m.starts_with("clone: "))
                .map(|(t, _)| *t),
            logged: !log.is_empty(),
            moves,
            first,
        }
    }

    /// Whether a record written at `ts` (RFC 3339) belongs to a commit on `branch` whose
    /// parent is `parent`: written while HEAD was on `branch`, or on a branch whose tip is
    /// `parent` or one of its ancestors (a branch made from where the record was written).
    /// Without a reflog, or with a time that does not read, it counts.
    fn on(&self, store: &Store, branch: Option<&str>, parent: Option<ObjectId>, ts: &str) -> bool {
        if !self.logged {
            return true;
        }
        let Ok(t) = chrono::DateTime::parse_from_rfc3339(ts) else {
            return true;
        };
        let t = t.timestamp();
        if self.cloned.is_some_and(|c| t < c) {
            // Older than the clone: written in another clone, and brought in with it.
            return false;
        }
        if self.moves.is_empty() {
            return true;
        }
        let at = self
            .moves
            .iter()
            .rev()
            .find(|(when, _)| *when <= t)
            .map_or(self.first.as_deref(), |(_, b)| b.as_deref());
        if at == branch {
            return true;
        }
        // Written on another branch: it belongs here only when that branch has not moved on
        // past where this commit starts (its tip is the parent or behind it).
        let (Some(other), Some(parent)) = (at, parent) else {
            return false;
        };
        let Some(tip) = store.resolve_commit(&format!("refs/heads/{other}")) else {
            return false;
        };
        tip == parent || store.ahead_behind(parent, tip).is_ok_and(|c| c.ahead == 0)
    }
}

/// The kinds a note lists, in the order it lists them.
const LISTED_KINDS: [Kind; 3] = [Kind::Decision, Kind::Convention, Kind::Learning];

/// The open checkpoint's resume line (or what it was doing) on a branch's session state,
/// through the integrity gate with its record: the placeholder when the gate withholds the
/// checkpoint (any of its fields may be what makes it TAINTED), marked when SUSPICIOUS.
fn open_checkpoint(
    store: &Store,
    session_ref: &str,
    session: ObjectId,
) -> store::Result<Option<String>> {
    let tip = store.tip_of(session_ref, session)?;
    let records = store.records_of(
        session_ref,
        tip,
        &[Kind::Checkpoint, Kind::Resolve, Kind::Delete],
    )?;
    use crate::integrity::gate::{mark, placeholder, text_gate, Gate};
    Ok(fold(records.iter())
        .open_checkpoint()
        .and_then(|c| match &c.body {
            Body::Checkpoint(Checkpoint { resume, doing, .. }) => {
                let line = if resume.is_empty() { doing } else { resume };
                Some(match text_gate(c) {
                    Gate::Withheld => placeholder(c),
                    Gate::Suspicious(rules) => format!("{}{line}", mark(&rules)),
                    Gate::Clean => line.clone(),
                })
            }
            _ => None,
        }))
}

/// The commit a cherry-pick in progress is picking (`CHERRY_PICK_HEAD`, which git keeps
/// until the picked commit is made, post-commit hook included).
fn cherry_picked(store: &Store) -> Option<ObjectId> {
    let text = std::fs::read_to_string(store.git_dir().join("CHERRY_PICK_HEAD")).ok()?;
    ObjectId::from_hex(text.trim().as_bytes()).ok()
}
