//! The store's side of sharing memory: fetching a remote's memory refs into a tracking
//! namespace, landing a merge (or a fast-forward) with compare-and-swap, and the tracking
//! refs themselves. Transport is `git fetch` / `git push`, so ssh config, credential helpers,
//! `insteadOf` and proxies work as they do for the user's own fetches.

use crate::text::first_line;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use gix::ObjectId;

use super::git_cli::git;
use super::notes::NOTES_REF;
use super::update::{Retry, Update};
use super::{git_err, Result, Store, StoreError};

/// Where a remote's memory is tracked: `refs/rune-remotes/<remote>/rune/…` for its
/// `refs/rune/…` and `refs/rune-remotes/<remote>/notes/rune` for its notes. Outside
/// `refs/rune/`, so nothing that lists memory mistakes it for local memory.
pub const TRACKING_PREFIX: &str = "refs/rune-remotes/";

/// Where each clone publishes its memory on a remote: `refs/rune-clones/<clone>/memory`,
/// `…/branches/<branch>` and `…/notes`, pushed by that clone alone, so writers never contend
/// on one ref (docs/storage.md, "Sharing memory"). Outside `refs/rune/`, so older git-rune
/// builds, which fetch `refs/rune/*`, never take them for memory refs of their own.
pub const CLONES_PREFIX: &str = "refs/rune-clones/";

/// The tracking ref of the local memory or notes ref `local` for `remote`.
pub fn tracking_ref(remote: &str, local: &str) -> String {
    let rest = local.strip_prefix("refs/").unwrap_or(local);
    format!("{TRACKING_PREFIX}{remote}/{rest}")
}

/// The ref clone `clone` publishes local ref `local` as (`None` for refs that are not
/// published: the detached session state).
pub fn published_ref(clone: &str, local: &str) -> Option<String> {
    let rest = if local == NOTES_REF {
        "notes".to_owned()
    } else if local == super::MEMORY_REF {
        "memory".to_owned()
    } else {
        format!("branches/{}", local.strip_prefix(super::BRANCHES_PREFIX)?)
    };
    Some(format!("{CLONES_PREFIX}{clone}/{rest}"))
}

/// The fetch refspecs that bring `remote`'s memory into the tracking namespace (forced, like
/// remote-tracking branches: a remote's compacted history replaces the old one there): the
/// shared refs older versions write, and every clone's published refs.
pub fn fetch_refspecs(remote: &str) -> [String; 3] {
    [
        format!("+refs/rune/*:{TRACKING_PREFIX}{remote}/rune/*"),
        format!("+refs/notes/rune*:{TRACKING_PREFIX}{remote}/notes/rune*"),
        format!("+{CLONES_PREFIX}*:{TRACKING_PREFIX}{remote}/clones/*"),
    ]
}

/// One remote ref as fetched into the tracking namespace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    /// The local ref it merges into (`refs/rune/memory`, `refs/rune/branches/<b>`,
    /// `refs/notes/rune`).
    pub local: String,
    /// Its tracking ref here.
    pub tracking: String,
    /// Its name on the remote.
    pub remote_ref: String,
    /// The clone that publishes it; `None` for the shared refs.
    pub clone: Option<String>,
    pub id: ObjectId,
}

/// How a transfer with a remote failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TransferError {
    /// What git said (its own stderr, trimmed).
    pub message: String,
}

impl Store {
    /// Fetches `remote`'s memory refs and notes into the tracking namespace (pruning tracking
    /// refs the remote no longer has). `slow` is called once if the transfer is still running
    /// after a moment, so the caller can say what is happening.
    pub(crate) fn fetch_memory(
        &self,
        remote: &str,
        slow: &dyn Fn(),
    ) -> Result<std::result::Result<(), TransferError>> {
        let mut cmd = git("--git-dir", self.git_dir());
        cmd // `--prune` deletes tracking refs, which takes `packed-refs.lock`; git gives up
            // on it after 1 s by default, git-rune's own writes wait as long as the command
            // may (several syncs in one clone take turns with it).
            .arg("-c")
            .arg(format!(
                "core.packedRefsTimeout={}",
                self.patience.get().as_millis()
            ))
            .args([
                "fetch",
                "--quiet",
                "--no-tags",
                "--no-write-fetch-head",
                "--prune",
                "--recurse-submodules=no",
                remote,
            ])
            .args(fetch_refspecs(remote));
        run_transfer(cmd, "fetch", slow)
    }

    /// Pushes `(local ref, remote ref, lease)` triples in one `git push`, not atomic: each ref
    /// lands or not on its own, and the outcome says which were rejected. A lease (`Some(id)`)
    /// lets the ref replace the remote's value only while that is still `id` (`Some(null id)`:
    /// only while the remote has no such ref). An empty local ref deletes the remote one.
    pub(crate) fn push_refs(
        &self,
        remote: &str,
        refs: &[(String, String, Option<ObjectId>)],
        slow: &dyn Fn(),
    ) -> Result<super::PushOutcome> {
        let refspecs: Vec<String> = refs
            .iter()
            .map(|(from, to, _)| format!("{from}:{to}"))
            .collect();
        let leases: Vec<String> = refs
            .iter()
            .filter_map(|(_, to, lease)| {
                lease.map(|id| {
                    if id.is_null() {
                        format!("--force-with-lease={to}:")
                    } else {
                        format!("--force-with-lease={to}:{id}")
                    }
                })
            })
            .collect();
        self.push_with(remote, &refspecs, &leases, false, slow)
    }

    /// The configured remotes, sorted.
    pub(crate) fn remotes(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .repo
            .remote_names()
            .into_iter()
            .map(|n| n.to_string())
            .collect();
        names.sort();
        names
    }

    /// The remote memory is shared with by default: the current branch's upstream remote,
    /// else `origin`, else the only remote there is.
    pub(crate) fn default_remote(&self) -> Option<String> {
        let remotes = self.remotes();
        let branch = self.head_info().ok().and_then(|h| h.branch);
        let upstream = branch.and_then(|b| {
            self.repo
                .config_snapshot()
                .string(format!("branch.{b}.remote").as_str())
                .map(|v| v.to_string())
        });
        upstream
            .filter(|r| remotes.contains(r))
            .or_else(|| remotes.iter().find(|r| *r == "origin").cloned())
            .or_else(|| (remotes.len() == 1).then(|| remotes[0].clone()))
    }

    /// The tracking refs of `remote`: the shared refs and every clone's published refs,
    /// each with the local ref it merges into.
    pub(crate) fn tracking(&self, remote: &str) -> Result<Vec<Source>> {
        let prefix = format!("{TRACKING_PREFIX}{remote}/");
        let mut out = Vec::new();
        for (name, id) in self.refs_under(&prefix)? {
            let rest = &name[prefix.len()..];
            if let Some(published) = rest.strip_prefix("clones/") {
                let Some((clone, what)) = published.split_once('/') else {
                    continue;
                };
                let local = match what {
                    "memory" => super::MEMORY_REF.to_owned(),
                    "notes" => NOTES_REF.to_owned(),
                    w => match w.strip_prefix("branches/") {
                        Some(b) if !b.is_empty() => format!("{}{b}", super::BRANCHES_PREFIX),
                        _ => continue,
                    },
                };
                out.push(Source {
                    local,
                    remote_ref: format!("{CLONES_PREFIX}{published}"),
                    tracking: name.clone(),
                    clone: Some(clone.to_owned()),
                    id,
                });
                continue;
            }
            let local = format!("refs/{rest}");
            if local == NOTES_REF || local.starts_with("refs/rune/") {
                out.push(Source {
                    remote_ref: local.clone(),
                    local,
                    tracking: name.clone(),
                    clone: None,
                    id,
                });
            }
        }
        Ok(out)
    }

    /// Deletes a tracking ref (a remote ref that was quarantined: nothing here keeps its
    /// objects reachable, and git's gc drops them).
    pub(crate) fn drop_tracking(&self, name: &str) -> Result<()> {
        use gix::refs::transaction::{Change, PreviousValue, RefEdit, RefLog};
        let Some(id) = self.ref_id(name)? else {
            return Ok(());
        };
        let edit = RefEdit {
            change: Change::Delete {
                expected: PreviousValue::MustExistAndMatch(gix::refs::Target::Object(id)),
                log: RefLog::AndReference,
            },
            name: name
                .try_into()
                .map_err(git_err::<gix::validate::reference::name::Error>(format!(
                    "invalid ref name {name}"
                )))?,
            deref: false,
        };
        // A tracking ref that moved meanwhile was fetched again: leave it.
        let _ = self.repo.edit_reference(edit);
        Ok(())
    }

    /// Every ref below `prefix` with the object it names, sorted by name.
    pub(crate) fn refs_under(&self, prefix: &str) -> Result<Vec<(String, ObjectId)>> {
        let platform = self
            .repo
            .references()
            .map_err(git_err("cannot list references"))?;
        let iter = platform
            .prefixed(prefix)
            .map_err(git_err("cannot list references"))?;
        let mut out = Vec::new();
        for r in iter {
            let mut r = r.map_err(|e| StoreError::Git {
                context: "cannot list references".into(),
                source: Box::new(e),
            })?;
            let name = r.name().as_bstr().to_string();
            // A direct ref's id needs no object read; a symbolic one is followed.
            if let Some(id) = r.target().try_id() {
                out.push((name, id.to_owned()));
            } else if let Ok(id) = r.peel_to_id() {
                out.push((name, id.detach()));
            }
        }
        out.sort();
        Ok(out)
    }

    /// Moves `name` from `expected` to `to`, a commit already in the object database (a
    /// fast-forward to what a remote has). Fails if `name` moved meanwhile.
    pub(crate) fn fast_forward(
        &self,
        name: &str,
        expected: Option<ObjectId>,
        to: ObjectId,
        log: &str,
    ) -> Result<()> {
        self.land_update(name, expected, to, log)
    }

    /// Writes a commit of `tree` with `parents` and moves `name` from `expected` to it, as
    /// merges do. `message` is the whole commit message. Fails if `name` moved meanwhile (the
    /// caller merges again), or reports a held lock as writes do.
    pub(crate) fn land_commit(
        &self,
        name: &str,
        expected: Option<ObjectId>,
        tree: ObjectId,
        parents: &[ObjectId],
        message: &str,
    ) -> Result<ObjectId> {
        let id = self.write_commit(message, tree, parents.iter().copied(), "a merge commit")?;
        self.flush_objects()?;
        self.land_update(name, expected, id, message)?;
        Ok(id)
    }

    /// One compare-and-swap of `name`, waiting out a held lock as writes do; a moved ref is
    /// an error for the caller to handle (it merges again).
    fn land_update(
        &self,
        name: &str,
        expected: Option<ObjectId>,
        new: ObjectId,
        log: &str,
    ) -> Result<()> {
        let mut retry = Retry::new();
        loop {
            let update = Update {
                name,
                expected,
                new,
                log: format!("rune: {}", first_line(log)),
            };
            match self.swap_all(&[update]) {
                Ok(()) => return Ok(()),
                Err(e) => {
                    if self.ref_id(name)? != expected {
                        return Err(StoreError::Contended {
                            name: name.into(),
                            attempts: 1,
                        });
                    }
                    self.again(&mut retry, &[name], e)?;
                }
            }
        }
    }

    fn push_with(
        &self,
        remote: &str,
        refspecs: &[String],
        leases: &[String],
        atomic: bool,
        slow: &dyn Fn(),
    ) -> Result<super::PushOutcome> {
        let mut cmd = git("--git-dir", self.git_dir());
        cmd.args(["push", "--no-verify", "--porcelain"])
            .args(leases);
        if atomic {
            cmd.arg("--atomic");
        }
        cmd.arg(remote).args(refspecs);
        let out = spawn_timed(cmd, "push", slow)?;
        Ok(super::git_cli::push_outcome(&out))
    }
}

/// Runs a transfer; `Ok(Err(_))` when git ran and failed (unreachable remote, refused).
fn run_transfer(
    cmd: Command,
    what: &str,
    slow: &dyn Fn(),
) -> Result<std::result::Result<(), TransferError>> {
    let out = spawn_timed(cmd, what, slow)?;
    if out.status.success() {
        Ok(Ok(()))
    } else {
        Ok(Err(TransferError {
            message: String::from_utf8_lossy(&out.stderr).trim().to_owned(),
        }))
    }
}

/// How long a transfer runs before the caller hears it is slow.
const SLOW: Duration = Duration::from_millis(800);

/// Runs git with its output captured (and hooks of git-rune off), calling `slow` once if it
/// is still running after [`SLOW`].
fn spawn_timed(mut cmd: Command, what: &str, slow: &dyn Fn()) -> Result<std::process::Output> {
    cmd.env("GIT_RUNE_SKIP_HOOKS", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().map_err(|e| StoreError::Io {
        context: format!("cannot run git {what} (is git on PATH?)"),
        source: e,
    })?;
    // Drain both pipes on threads so a chatty git never blocks on a full pipe.
    let mut stdout = child.stdout.take();
    let mut stderr = child.stderr.take();
    let out_reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        if let Some(s) = stdout.as_mut() {
            let _ = std::io::Read::read_to_end(s, &mut buf);
        }
        buf
    });
    let err_reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        if let Some(s) = stderr.as_mut() {
            let _ = std::io::Read::read_to_end(s, &mut buf);
        }
        buf
    });
    let started = Instant::now();
    let mut told = false;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) => {
                if !told && started.elapsed() >= SLOW {
                    told = true;
                    slow();
                }
                std::thread::sleep(Duration::from_millis(5));
            }
            Err(e) => {
                return Err(StoreError::Io {
                    context: format!("cannot wait for git {what}"),
                    source: e,
                })
            }
        }
    };
    Ok(std::process::Output {
        status,
        stdout: out_reader.join().unwrap_or_default(),
        stderr: err_reader.join().unwrap_or_default(),
    })
}
