//! Memory refs: where they live, reading their tips, and committing records with
//! compare-and-swap so concurrent writers never lose each other's records.

use crate::text::first_line;
use std::rc::Rc;

use gix::ObjectId;

use super::records::{added_records, kind_records, read_records, write_records};
use super::update::{Retry, Update};
use super::{git_err, Result, Store, StoreError};
use crate::model::{Kind, Record};

/// Project-wide knowledge.
pub const MEMORY_REF: &str = "refs/rune/memory";
/// Per-branch session state lives below this prefix, named after the branch.
pub const BRANCHES_PREFIX: &str = "refs/rune/branches/";
/// Session state recorded while HEAD is detached.
pub const DETACHED_REF: &str = "refs/rune/detached";

/// The ref holding session state for `branch` (short name), or the detached ref.
pub fn branch_ref(branch: Option<&str>) -> String {
    match branch {
        Some(b) => format!("{BRANCHES_PREFIX}{b}"),
        None => DETACHED_REF.to_owned(),
    }
}

/// What [`Store::commit`] writes: content that becomes a record once the store stamps it with
/// the time, the Lamport clock and the author at commit time. Only `memory::seal::Sealed`
/// implements it, so nothing reaches a memory ref without passing the one seal.
pub trait Stamp {
    fn stamp(self, ts: &str, clock: u64, author: &str) -> Record;
}

/// The highest Lamport clock among a ref's records (0 for none).
fn base_clock(current: &[Record]) -> u64 {
    current.iter().map(|r| r.meta.clock).max().unwrap_or(0)
}

/// The clock of the `i`th draft of a commit whose base clock is `clock`.
fn clock_of(clock: u64, i: usize) -> u64 {
    clock + 1 + i as u64
}

impl Store {
    /// The record the `i`th draft returned by [`Store::commit_all`]'s `make` becomes, given
    /// the `current` records `make` saw, when the draft carries its own time (its id does not
    /// depend on when the commit is written). Lets a batch name a record it adds, as a
    /// `resolve` of an imported, already resolved checkpoint does.
    pub(crate) fn stamped_in_commit<S: Stamp>(
        &self,
        current: &[Record],
        i: usize,
        draft: S,
    ) -> Record {
        draft.stamp(
            &self.now(),
            clock_of(base_clock(current), i),
            &self.author.display(),
        )
    }
}

/// A memory ref's current commit and its tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tip {
    pub commit: ObjectId,
    pub tree: ObjectId,
}

/// A commit written but not yet reachable, and the ref it is to move.
struct Staged<'a> {
    name: &'a str,
    log: String,
    commit: Commit,
}

/// What a successful commit wrote.
#[derive(Debug, Clone)]
pub struct Commit {
    pub id: ObjectId,
    pub parent: Option<ObjectId>,
    pub records: Vec<Record>,
}

impl Store {
    /// The commit a memory ref points at, or `None` before the first write.
    pub fn tip(&self, name: &str) -> Result<Option<Tip>> {
        match self.ref_id(name)? {
            None => Ok(None),
            Some(id) => self.tip_of(name, id).map(Some),
        }
    }

    /// The object id a ref names, without reading the object (memory refs are direct refs to
    /// commits; a symbolic one is followed, except under `refs/rune/`, where git-rune's
    /// compare-and-swap could never update it). `None` when the ref does not exist.
    pub(crate) fn ref_id(&self, name: &str) -> Result<Option<ObjectId>> {
        let Some(mut r) = self
            .repo
            .try_find_reference(name)
            .map_err(|e| unreadable_ref(name, e))?
        else {
            return Ok(None);
        };
        if let Some(id) = r.target().try_id() {
            return Ok(Some(id.to_owned()));
        }
        let target = r
            .target()
            .try_name()
            .map(|t| t.as_bstr().to_string())
            .unwrap_or_default();
        if name.starts_with("refs/rune/") {
            return Err(StoreError::BadRef {
                name: name.into(),
                why: format!("it is a symbolic ref to {target}, where memory refs name a commit"),
            });
        }
        let id = r
            .peel_to_id()
            .map_err(|_| StoreError::BadRef {
                name: name.into(),
                why: format!("it is a symbolic ref to {target}, which names no object"),
            })?
            .detach();
        Ok(Some(id))
    }

    /// Checks that `id` is a commit and returns it with its tree.
    pub(crate) fn tip_of(&self, name: &str, id: ObjectId) -> Result<Tip> {
        let object = super::objects::find(&self.repo, id)
            .map_err(git_err(format!("cannot read {name}")))?
            .ok_or_else(|| StoreError::MissingObject {
                name: name.into(),
                id: id.to_string(),
            })?;
        if object.kind != gix::objs::Kind::Commit {
            return Err(StoreError::NotACommit {
                name: name.into(),
                kind: object.kind.to_string(),
            });
        }
        let tree = object
            .into_commit()
            .tree_id()
            .map_err(git_err(format!("cannot read the tree of {name}")))?
            .detach();
        Ok(Tip { commit: id, tree })
    }

    /// Every record under a ref (none before its first write).
    pub fn records(&self, name: &str) -> Result<(Option<Tip>, Rc<Vec<Record>>)> {
        match self.tip(name)? {
            None => Ok((None, Rc::default())),
            Some(tip) => Ok((Some(tip), self.tree_records(name, tip.tree)?)),
        }
    }

    /// Checks that memory ref `name`, if it exists, can be read: a commit whose tree holds a
    /// layout this build reads (the root tree and its `VERSION`; no records are read).
    pub(crate) fn check_readable(&self, name: &str) -> Result<()> {
        if let Some(tip) = self.tip(name)? {
            super::records::root_tree(&self.repo, name, tip.tree)?;
        }
        Ok(())
    }

    /// The records of a memory commit already read (a [`Tip`]).
    pub(crate) fn tip_records(&self, name: &str, tip: Tip) -> Result<Rc<Vec<Record>>> {
        self.tree_records(name, tip.tree)
    }

    /// The records of a specific memory commit (for a view's base, `load --at`, history).
    pub(crate) fn records_at(&self, name: &str, commit: ObjectId) -> Result<Rc<Vec<Record>>> {
        let tip = self.tip_of(name, commit)?;
        self.tree_records(name, tip.tree)
    }

    /// The records of `kinds` on `name` at commit `new` that commit `old` (if any) lacks,
    /// reading only the record blobs that differ between the two.
    pub(crate) fn records_added(
        &self,
        name: &str,
        old: Option<Tip>,
        new: Tip,
        kinds: &[Kind],
    ) -> Result<Vec<Record>> {
        self.records_added_trees(name, old.map(|t| t.tree), new.tree, kinds)
    }

    /// The records of `kinds` in tree `new` that tree `old` (if any) lacks, reading only the
    /// record blobs that differ.
    pub(crate) fn records_added_trees(
        &self,
        name: &str,
        old: Option<ObjectId>,
        new: ObjectId,
        kinds: &[Kind],
    ) -> Result<Vec<Record>> {
        let kinds: Vec<&str> = kinds.iter().map(|k| k.as_str()).collect();
        added_records(&self.repo, name, old, new, &kinds)
    }

    /// What tree `new` of ref `name` adds to tree `old` (all kinds), and whether it also
    /// lacks a record `old` holds; reads only the blobs that differ.
    pub(crate) fn tree_changes(
        &self,
        name: &str,
        old: Option<ObjectId>,
        new: ObjectId,
    ) -> Result<(Vec<Record>, bool)> {
        super::records::tree_changes(&self.repo, name, old, new)
    }

    /// The records of only some kinds at `tip` (a hook that needs the open checkpoint reads
    /// checkpoints, resolves and deletes, not the whole session state).
    pub(crate) fn records_of(&self, name: &str, tip: Tip, kinds: &[Kind]) -> Result<Vec<Record>> {
        let kinds: Vec<&str> = kinds.iter().map(|k| k.as_str()).collect();
        kind_records(&self.repo, name, tip.tree, &kinds)
    }

    fn tree_records(&self, name: &str, tree: ObjectId) -> Result<Rc<Vec<Record>>> {
        if let Some(hit) = self.cache.borrow().get(&tree) {
            return Ok(hit.clone());
        }
        let records = Rc::new(read_records(&self.repo, name, tree)?);
        self.cache.borrow_mut().insert(tree, records.clone());
        Ok(records)
    }

    /// The newest commit on `name`'s first-parent chain committed at or before `seconds`.
    pub(crate) fn tip_before(&self, name: &str, seconds: i64) -> Result<Option<Tip>> {
        let Some(tip) = self.tip(name)? else {
            return Ok(None);
        };
        let mut next = Some(tip.commit);
        let mut walked = 0;
        while let Some(id) = next {
            if walked == super::chain::WALK_MAX {
                // Far from the tip: the cached chain, newest first, says it without the walk.
                let chain = self.chain(name, tip.commit)?;
                return match chain.iter().rev().find(|l| l.time <= seconds) {
                    Some(l) => self.tip_of(name, l.id).map(Some),
                    None => Ok(None),
                };
            }
            let link = self.link(name, id)?;
            if link.time <= seconds {
                return self.tip_of(name, id).map(Some);
            }
            next = link.parent;
            walked += 1;
        }
        Ok(None)
    }

    /// Every stored line of ref `name` at `tip`, each with the blob it is in, decoded one at a
    /// time (`verify`): a line that does not decode is reported, not fatal.
    pub(crate) fn record_lines(
        &self,
        name: &str,
        tip: Tip,
    ) -> Result<Vec<super::records::ReadLine>> {
        super::records::read_lines(&self.repo, name, tip.tree)
    }

    /// The tree of `base` (a memory tree of ref `name`, or none) with `records` added: the
    /// same tree every clone holding the same records has (the layout is a function of the
    /// record set).
    pub(crate) fn tree_with(
        &self,
        name: &str,
        base: Option<ObjectId>,
        records: &[Record],
    ) -> Result<ObjectId> {
        write_records(&self.repo, name, base, records)
    }

    /// Names of all memory refs (`refs/rune/…`), sorted; a ref whose file holds no object id
    /// is the error.
    pub fn memory_refs(&self) -> Result<Vec<String>> {
        let (names, mut damaged) = self.memory_refs_and_damaged()?;
        match damaged.is_empty() {
            true => Ok(names),
            false => Err(damaged.swap_remove(0)),
        }
    }

    /// Names of the memory refs that can be read, sorted, and the errors of those that
    /// cannot (for `verify`, which reports each and checks the rest).
    pub fn memory_refs_and_damaged(&self) -> Result<(Vec<String>, Vec<StoreError>)> {
        let platform = self
            .repo
            .references()
            .map_err(git_err("cannot list references"))?;
        let iter = platform
            .prefixed("refs/rune/")
            .map_err(git_err("cannot list references"))?;
        let (mut out, mut damaged) = (Vec::new(), Vec::new());
        for r in iter {
            match r {
                Ok(r) => out.push(r.name().as_bstr().to_string()),
                Err(e) => damaged.push(unreadable_ref("a ref under refs/rune/", e)),
            }
        }
        out.sort();
        Ok((out, damaged))
    }

    /// Appends the sealed drafts `make` returns to the ref `name` in one commit,
    /// compare-and-swap.
    ///
    /// `make` sees the records currently on the ref and may be called again after a lost race
    /// (another process moved the ref): it re-reads, re-applies and retries, never
    /// overwriting. Returns `None` when `make` has nothing to write.
    pub(crate) fn commit<S, E>(
        &self,
        name: &str,
        summary: &str,
        mut make: impl FnMut(&[Record]) -> std::result::Result<Vec<S>, E>,
    ) -> std::result::Result<Option<Commit>, E>
    where
        S: Stamp,
        E: From<StoreError>,
    {
        let mut out = self.commit_all(&[(name, summary)], |_, current| make(current))?;
        Ok(out.pop().flatten())
    }

    /// Like [`Store::commit`] for several refs at once, moved in one ref transaction: all of
    /// them or none. `make(i, records)` gives the drafts for `refs[i]` (its name and commit
    /// summary) from the records it holds now; a ref with none is left alone. Returns each
    /// ref's commit, `None` where nothing was written.
    pub(crate) fn commit_all<S, E>(
        &self,
        refs: &[(&str, &str)],
        mut make: impl FnMut(usize, &[Record]) -> std::result::Result<Vec<S>, E>,
    ) -> std::result::Result<Vec<Option<Commit>>, E>
    where
        S: Stamp,
        E: From<StoreError>,
    {
        let names: Vec<&str> = refs.iter().map(|(n, _)| *n).collect();
        let mut retry = Retry::new();
        loop {
            let mut staged = Vec::with_capacity(refs.len());
            for (i, (name, summary)) in refs.iter().enumerate() {
                let (tip, current) = self.records(name)?;
                let drafts = make(i, &current)?;
                if drafts.is_empty() {
                    staged.push(None);
                    continue;
                }
                let clock = base_clock(&current);
                staged.push(Some(self.stage(
                    name,
                    summary,
                    tip,
                    clock,
                    drafts,
                    Some(&current),
                )?));
            }
            match self.land(&staged) {
                Ok(()) => return Ok(staged.into_iter().map(|s| s.map(|s| s.commit)).collect()),
                // Lost the race (or met a lock): re-read, re-apply, try again.
                Err(e) => self.again(&mut retry, &names, e)?,
            }
        }
    }

    /// Appends `drafts`, which do not depend on what the ref holds, in one commit,
    /// compare-and-swap. Like [`Store::commit`], but a lost race costs no read of the ref's
    /// records: the Lamport clock comes from the tip's `Rune-Clock` trailer, and the tree
    /// edit reads only the blobs the new records go into.
    pub(crate) fn append<S: Stamp + Clone>(
        &self,
        name: &str,
        summary: &str,
        drafts: Vec<S>,
    ) -> Result<Option<Commit>> {
        if drafts.is_empty() {
            return Ok(None);
        }
        let mut retry = Retry::new();
        loop {
            let tip = self.tip(name)?;
            let clock = match tip {
                Some(t) => self.clock_at(name, t)?,
                None => 0,
            };
            let known = tip.and_then(|t| self.cache.borrow().get(&t.tree).cloned());
            let staged = Some(self.stage(
                name,
                summary,
                tip,
                clock,
                drafts.clone(),
                known.as_deref().map(Vec::as_slice),
            )?);
            match self.land(std::slice::from_ref(&staged)) {
                Ok(()) => return Ok(staged.map(|s| s.commit)),
                Err(e) => self.again(&mut retry, &[name], e)?,
            }
        }
    }

    /// Appends drafts that do not depend on what the refs hold to several refs in one
    /// transaction, each ref expected at the tip the caller read (`refs`: name, commit
    /// summary, tip, drafts). `None`, with no ref moved, when one of them is no longer at
    /// that tip: the caller's reading is out of date. Reads no records: the clock comes from
    /// each tip's trailer and the tree edit reads only the blobs the new records go into.
    pub(crate) fn append_at<S: Stamp + Clone>(
        &self,
        refs: &[(&str, &str, Option<Tip>, Vec<S>)],
    ) -> Result<Option<Vec<Option<Commit>>>> {
        let names: Vec<&str> = refs.iter().map(|r| r.0).collect();
        let mut retry = Retry::new();
        loop {
            let mut staged = Vec::with_capacity(refs.len());
            for (name, summary, tip, drafts) in refs {
                if self.tip(name)? != *tip {
                    return Ok(None);
                }
                if drafts.is_empty() {
                    staged.push(None);
                    continue;
                }
                let clock = match tip {
                    Some(t) => self.clock_at(name, *t)?,
                    None => 0,
                };
                staged.push(Some(self.stage(
                    name,
                    summary,
                    *tip,
                    clock,
                    drafts.clone(),
                    None,
                )?));
            }
            match self.land(&staged) {
                Ok(()) => {
                    return Ok(Some(
                        staged.into_iter().map(|s| s.map(|s| s.commit)).collect(),
                    ))
                }
                Err(e) => self.again(&mut retry, &names, e)?,
            }
        }
    }

    /// Stamps `drafts` after `clock` and writes their tree on `tip`'s and a commit, staged in
    /// memory until [`Store::land`] moves the ref. `current`, the records at `tip` when known,
    /// seeds the tree cache so the view refresh after the write does not read them again.
    fn stage<'a, S: Stamp>(
        &self,
        name: &'a str,
        summary: &str,
        tip: Option<Tip>,
        clock: u64,
        drafts: Vec<S>,
        current: Option<&[Record]>,
    ) -> Result<Staged<'a>> {
        let ts = self.now();
        let author = self.author.display();
        let records: Vec<Record> = drafts
            .into_iter()
            .enumerate()
            .map(|(i, d)| d.stamp(&ts, clock_of(clock, i), &author))
            .collect();
        let tree = write_records(&self.repo, name, tip.map(|t| t.tree), &records)?;
        if let Some(current) = current {
            let mut all = Vec::with_capacity(current.len() + records.len());
            all.extend(current.iter().cloned());
            all.extend(records.iter().cloned());
            self.cache.borrow_mut().insert(tree, Rc::new(all));
        }
        let message = commit_message(summary, records.len(), clock + records.len() as u64);
        let id = self.write_commit(&message, tree, tip.map(|t| t.commit), "a commit")?;
        Ok(Staged {
            name,
            log: format!("rune: {}", first_line(summary)),
            commit: Commit {
                id,
                parent: tip.map(|t| t.commit),
                records,
            },
        })
    }

    /// Writes the staged objects and moves every staged ref in one transaction.
    fn land(&self, staged: &[Option<Staged<'_>>]) -> Result<()> {
        let updates: Vec<Update<'_>> = staged
            .iter()
            .flatten()
            .map(|s| Update {
                name: s.name,
                expected: s.commit.parent,
                new: s.commit.id,
                log: s.log.clone(),
            })
            .collect();
        if updates.is_empty() {
            return Ok(());
        }
        self.flush_objects()?;
        self.swap_all(&updates)
    }

    /// The highest Lamport clock of the records at `tip`: its commit's `Rune-Clock` trailer,
    /// or (for commits written before the trailer existed) the records themselves.
    pub(crate) fn clock_at(&self, name: &str, tip: Tip) -> Result<u64> {
        let info = self.commit_info(tip.commit)?;
        let trailer = info
            .message
            .lines()
            .find_map(|l| l.strip_prefix("Rune-Clock: "))
            .and_then(|v| v.trim().parse().ok());
        match trailer {
            Some(clock) => Ok(clock),
            None => Ok(self
                .tip_records(name, tip)?
                .iter()
                .map(|r| r.meta.clock)
                .max()
                .unwrap_or(0)),
        }
    }

    /// Writes the objects staged in memory to the object database (before a ref moves).
    pub(super) fn flush_objects(&self) -> Result<()> {
        let mut owner = self.owner()?;
        let written =
            super::loose::flush(&self.repo, &mut owner).map_err(git_err("cannot write objects"))?;
        if written > 0 {
            self.note_written();
        }
        Ok(())
    }

    /// Writes a commit (`what` names it in an error) by the store's identity at the store's
    /// clock.
    pub(super) fn write_commit(
        &self,
        message: &str,
        tree: ObjectId,
        parents: impl IntoIterator<Item = ObjectId>,
        what: &str,
    ) -> Result<ObjectId> {
        let sig = self.signature();
        let mut buf = gix::date::parse::TimeBuf::default();
        let sig_ref = sig.to_ref(&mut buf);
        let commit = self
            .repo
            .new_commit_as(sig_ref, sig_ref, message, tree, parents)
            .map_err(git_err(format!("cannot write {what}")))?;
        Ok(commit.id)
    }

    pub(super) fn signature(&self) -> gix::actor::Signature {
        gix::actor::Signature {
            name: self.author.name.as_str().into(),
            email: self.author.email.as_str().into(),
            time: gix::date::Time {
                seconds: self.now_seconds(),
                offset: 0,
            },
        }
    }
}

/// A memory commit's message: the summary, then how many records it adds and the highest
/// Lamport clock of its records (so the next append need not read them).
pub(crate) fn commit_message(summary: &str, n: usize, clock: u64) -> String {
    let plural = if n == 1 { "record" } else { "records" };
    format!(
        "{}\n\nRune-Records: {n} {plural}\nRune-Clock: {clock}\n",
        first_line(summary)
    )
}

/// Why a ref could not be read: a loose ref file that holds no object id is damaged data, named
/// by its path (listing names no ref until it is read); anything else is git's own failure.
fn unreadable_ref(name: &str, e: gix::Error) -> StoreError {
    match e.downcast_any_ref::<gix::refs::file::find::ReferenceDecode>() {
        Some(bad) => StoreError::BadRef {
            name: bad.relative_path.display().to_string(),
            why: "its file in the git directory does not hold an object id".into(),
        },
        None => git_err(format!("cannot read {name}"))(e),
    }
}
