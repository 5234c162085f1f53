//! Moving refs: one compare-and-swap transaction for one or several refs, what to do when it
//! fails (another writer won the race, a lock is held, a dead git-rune left a lock), and the
//! owner file that lets the next process clear what a killed one left (`owner.rs`).

use crate::text::first_line;
use std::cell::RefMut;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use gix::refs::transaction::{Change, LogChange, PreviousValue, RefEdit, RefLog};
use gix::refs::Target;
use gix::ObjectId;

use super::owner::{recover, Owner};
use super::{git_err, Result, Store, StoreError};

/// How often a write is retried after losing a race before giving up.
const MAX_ATTEMPTS: usize = 32;

/// How long a command waits for a ref lock another process holds before it says so
/// (hooks wait less: see [`Store::set_lock_patience`]).
pub const COMMAND_PATIENCE: Duration = Duration::from_secs(3);

/// How long a hook (git's or an agent's) waits for a ref lock held by another process: a lock
/// must not stall the user's git command or the agent.
pub const HOOK_PATIENCE: Duration = Duration::from_millis(300);

/// One ref's move in a transaction: from `expected` (`None`: the ref must not exist) to
/// `new`, with `log` as the reflog message.
pub(crate) struct Update<'a> {
    pub name: &'a str,
    pub expected: Option<ObjectId>,
    pub new: ObjectId,
    pub log: String,
}

/// Where a write stands in its retries.
pub(crate) struct Retry {
    attempt: usize,
    started: Instant,
}

impl Retry {
    pub(crate) fn new() -> Retry {
        Retry {
            attempt: 0,
            started: Instant::now(),
        }
    }
}

impl Store {
    /// How long writes wait for a ref lock held by another process (default
    /// [`COMMAND_PATIENCE`]); hooks set a few hundred milliseconds so a stuck lock never
    /// stalls a git command.
    pub fn set_lock_patience(&self, patience: Duration) {
        self.patience.set(patience);
    }

    /// This process's owner file, registered (and dead owners' leftovers cleared) on first use.
    pub(super) fn owner(&self) -> Result<RefMut<'_, Owner>> {
        let mut slot = self.owner.borrow_mut();
        if slot.is_none() {
            let (owner, _removed) =
                Owner::register(self.repo.common_dir()).map_err(|e| StoreError::Io {
                    context: format!(
                        "cannot register this process in {}",
                        self.repo.common_dir().join("rune/owners").display()
                    ),
                    source: e,
                })?;
            *slot = Some(owner);
        }
        Ok(RefMut::map(slot, |o| o.as_mut().expect("registered above")))
    }

    /// The lock files a transaction over `names` may create: each ref's, and `packed-refs`'
    /// when that file exists (gix locks it for every update then).
    fn lock_paths(&self, names: &[&str]) -> Vec<PathBuf> {
        let common = self.repo.common_dir();
        let mut out: Vec<PathBuf> = names
            .iter()
            .map(|n| common.join(format!("{n}.lock")))
            .collect();
        if common.join("packed-refs").exists() {
            out.push(common.join("packed-refs.lock"));
        }
        out
    }

    /// Moves every ref of `updates` in one transaction: all of them or none (git's files
    /// backend can still be interrupted between two renames by a crash, never by a lost
    /// race). Fails at once if any ref moved since or a lock is held.
    pub(crate) fn swap_all(&self, updates: &[Update<'_>]) -> Result<()> {
        let mut edits = Vec::with_capacity(updates.len());
        for u in updates {
            edits.push(RefEdit {
                change: Change::Update {
                    log: LogChange {
                        mode: RefLog::AndReference,
                        force_create_reflog: false,
                        message: first_line(&u.log).into(),
                    },
                    expected: match u.expected {
                        Some(id) => PreviousValue::MustExistAndMatch(Target::Object(id)),
                        None => PreviousValue::MustNotExist,
                    },
                    new: Target::Object(u.new),
                },
                name: u.name.try_into().map_err(
                    git_err::<gix::validate::reference::name::Error>(format!(
                        "invalid ref name {}",
                        u.name
                    )),
                )?,
                deref: false,
            });
        }
        let names: Vec<&str> = updates.iter().map(|u| u.name).collect();
        let locks = self.lock_paths(&names);
        let io = |e: std::io::Error| StoreError::Io {
            context: "cannot write this process's owner file".into(),
            source: e,
        };
        {
            let mut owner = self.owner()?;
            for l in &locks {
                owner.lock(l, true).map_err(io)?;
            }
        }
        let sig = self.signature();
        let mut buf = gix::date::parse::TimeBuf::default();
        let result = self
            .repo
            .refs
            .transaction()
            .prepare(
                edits,
                gix::lock::acquire::Fail::Immediately,
                gix::lock::acquire::Fail::Immediately,
            )
            .and_then(|t| t.commit(Some(sig.to_ref(&mut buf))))
            .map(|_| ())
            .map_err(git_err(format!("cannot update {}", names.join(" and "))));
        let mut owner = self.owner()?;
        for l in &locks {
            owner.lock(l, false).map_err(io)?;
        }
        result
    }

    /// After a failed transaction over `names`: `Ok(())` when it is worth trying again (after
    /// a pause), the error to report otherwise. A lost race is retried up to 32 times; a held
    /// lock is cleared at once if a git-rune that died left it, waited for up to the lock
    /// patience otherwise, then reported the way git reports it.
    pub(crate) fn again(&self, retry: &mut Retry, names: &[&str], err: StoreError) -> Result<()> {
        retry.attempt += 1;
        // gix takes `packed-refs.lock` for an update even where no `packed-refs` file exists
        // yet: one left there fails every attempt, and is a held lock, not a lost race.
        let mut paths = self.lock_paths(names);
        let packed = self.repo.common_dir().join("packed-refs.lock");
        if !paths.contains(&packed) {
            paths.push(packed);
        }
        let held: Vec<PathBuf> = paths.into_iter().filter(|l| l.exists()).collect();
        let Some(first) = held.first() else {
            if retry.attempt < MAX_ATTEMPTS {
                backoff(retry.attempt);
                return Ok(());
            }
            return Err(StoreError::Contended {
                name: names.join(" and "),
                attempts: MAX_ATTEMPTS,
            });
        };
        let me = self.owner.borrow().as_ref().map(|o| o.path().to_owned());
        let removed = recover(self.repo.common_dir(), me.as_deref());
        if held.iter().any(|l| removed.contains(l)) {
            return Ok(());
        }
        if retry.started.elapsed() < self.patience.get() {
            std::thread::sleep(Duration::from_millis(
                5 + (retry.attempt as u64 * 5).min(45),
            ));
            return Ok(());
        }
        drop(err);
        Err(StoreError::Locked {
            path: first.clone(),
        })
    }
}

/// Sleeps a little longer after each lost compare-and-swap, with per-process jitter so racing
/// writers spread out.
pub(super) fn backoff(attempt: usize) {
    let jitter = (std::process::id() as u64 + attempt as u64 * 7) % 5;
    std::thread::sleep(Duration::from_millis(1 + attempt as u64 * 2 + jitter));
}
