//! Running one git hook. A hook never breaks git: a failure becomes one line on stderr and
//! one in `<git dir>/rune/hooks.log`, and the exit code is 0 — except pre-push with
//! `rune.strictPush` set.

use std::path::Path;

use anyhow::Result;

use super::install::HOOKS;
use crate::error;
use crate::memory::save::{save, SaveOptions};
use crate::memory::seal::Sealer;
use crate::memory::view_dir::{View, VIEW_DIR};
use crate::notes::{compose, rewrite};
use crate::store::{Store, NOTES_REF};
use crate::sync::share;
use crate::sync::{sync, SyncOptions};

/// Fetch-merge-push rounds the pre-push hook tries before leaving memory for a later sync.
const HOOK_SYNC_ROUNDS: usize = 3;

/// What a hook run has to say, and how it exits.
#[derive(Debug, Default)]
pub struct HookReport {
    /// Status lines (`-q` silences them).
    pub status: Vec<String>,
    /// Lines always shown.
    pub warnings: Vec<String>,
    /// Non-zero only when the hook must stop git (strict pre-push).
    pub exit_code: u8,
}

/// Runs hook `name` with git's `args` in the repository around `dir`; `input` is what git
/// passed on stdin (post-rewrite's list). Never fails: see the module docs.
pub fn run(dir: &Path, name: &str, args: &[String], input: Option<&str>) -> HookReport {
    let mut report = HookReport::default();
    // A lock another process holds must not stall the user's git command: the hook gives up
    // soon (post-commit then leaves the note for its next run).
    let result = crate::open::open(dir, crate::open::Opener::Hook).and_then(|o| {
        // The note's headlines pass the gate: the records' verdicts were kept by the command
        // that wrote them (or a reader), so a commit scans only what none of them has.
        crate::memory::cache::verdicts::recall(&o.store);
        let ran = dispatch(&o.store, name, args, input, &mut report);
        crate::memory::cache::verdicts::keep(&o.store);
        ran?;
        crate::memory::hook_failure::clear(o.store.git_dir(), name);
        Ok(())
    });
    if let Err(e) = result {
        // With rune.strictPush a failed memory push blocks the push: say that, not that git
        // went on.
        let strict = name == "pre-push"
            && Store::open(dir)
                .ok()
                .and_then(|s| s.config_bool("rune.strictPush"))
                .unwrap_or(false);
        let outcome = if strict {
            "the push was stopped because rune.strictPush is set; run `git rune sync`, then push again, or push with GIT_RUNE_SKIP_HOOKS=1"
        } else {
            "git went on"
        };
        report.warnings.push(format!(
            "git-rune: {name} hook: {e:#} ({outcome}; see .git/rune/hooks.log)"
        ));
        if let Ok(store) = Store::open(dir) {
            log(&store, name, &format!("{e:#}"));
            // The next command and session start say so too (status, load, SessionStart).
            if HOOKS.contains(&name) {
                crate::memory::hook_failure::record(store.git_dir(), name, &store.now(), &e);
            }
        }
        if strict {
            report.exit_code = 1;
        }
    }
    report
}

fn dispatch(
    store: &Store,
    name: &str,
    args: &[String],
    input: Option<&str>,
    report: &mut HookReport,
) -> Result<()> {
    match name {
        "post-commit" => {
            save_view_edits(store, report);
            Ok(compose::note_head(store)?)
        }
        "post-checkout" => post_checkout(store, args, report),
        "post-rewrite" => {
            let command = args.first().map(String::as_str).unwrap_or("rebase");
            let followed = rewrite::follow(store, command, input.unwrap_or_default())?;
            for (name, n) in &followed.moved {
                report.status.push(format!(
                    "git-rune: {name}: {n} saved head{} moved to the rewritten commit",
                    if *n == 1 { "" } else { "s" }
                ));
            }
            for file in followed.view.map(|v| v.kept).unwrap_or_default() {
                report.warnings.push(format!(
                    "warning: {VIEW_DIR}/{} has unsaved edits and was not refreshed; run `git rune save` to keep them",
                    file.name()
                ));
            }
            Ok(())
        }
        "pre-push" => pre_push(store, args, input, report),
        other => Err(error::input(
            format!("unknown hook {other:?}"),
            format!("git-rune handles {}", HOOKS.join(", ")),
        )),
    }
}

/// Agents edit `.rune/` and commit, as the seeds say: edits left unsaved are saved with the
/// commit, so its note lists them. Cheap when there are none (the view's files are compared by
/// stat, then blob id, never parsed). A save that fails is reported and the commit still gets
/// its note.
fn save_view_edits(store: &Store, report: &mut HookReport) {
    if View::open(store).is_none_or(|v| v.unsaved().is_empty()) {
        return;
    }
    match save(store, &mut Sealer::default(), SaveOptions::default(), None) {
        Ok(saved) => report.status.push(format!(
            "git-rune: saved {} edited {VIEW_DIR}/ file{} with the commit",
            saved.files.len(),
            if saved.files.len() == 1 { "" } else { "s" }
        )),
        Err(e) => {
            report.warnings.push(format!(
                "git-rune: post-commit hook: {VIEW_DIR}/ edits were not saved: {e:#} (run `git rune save`)"
            ));
            log(
                store,
                "post-commit",
                &format!("view edits not saved: {e:#}"),
            );
        }
    }
}

/// A branch switch re-renders the view for the new branch, unless it holds unsaved edits.
fn post_checkout(store: &Store, args: &[String], report: &mut HookReport) -> Result<()> {
    // The third argument is 1 for a branch checkout, 0 for a file checkout.
    if args.get(2).map(String::as_str) != Some("1") {
        return Ok(());
    }
    // A rebase checks out commits on its way; the view stays with the branch being rebased.
    if store.rebasing_branch().is_some() {
        return Ok(());
    }
    // A branch renamed since (`git branch -m`) takes its session state along.
    let head = store.head_info()?;
    crate::memory::write::follow_rename(store, &crate::store::branch_ref(head.branch.as_deref()))?;
    let Some(view) = View::open(store) else {
        return Ok(());
    };
    let unsaved: Vec<&str> = view.unsaved().into_iter().map(|f| f.name()).collect();
    if !unsaved.is_empty() {
        report.warnings.push(format!(
            "git-rune: {VIEW_DIR}/ has unsaved edits ({}); it was left as it was, still showing the previous branch's session. Run `git rune save` to keep them (they go to the branch they were made on) and refresh the view.",
            unsaved.join(", ")
        ));
        return Ok(());
    }
    view.switch(store)?;
    report.status.push(format!(
        "git-rune: {VIEW_DIR}/ now shows {}",
        head.branch.as_deref().unwrap_or("the detached HEAD")
    ));
    Ok(())
}

/// Shares memory beside the user's push, only where the user said: to a remote that opted in
/// (`git rune remote add`), a sync (fetch, merge, push, never forced; again if someone pushed
/// in between, a bounded number of times) carrying project memory, notes and the session
/// state of the branches that remote has or is being sent now (git's ref list on stdin),
/// never another branch's. A push to any other remote, or to a URL, carries no memory, and
/// says so once.
fn pre_push(
    store: &Store,
    args: &[String],
    input: Option<&str>,
    report: &mut HookReport,
) -> Result<()> {
    let Some(remote) = args.first() else {
        return Ok(());
    };
    if store.memory_refs()?.is_empty() && store.ref_id(NOTES_REF)?.is_none() {
        return Ok(());
    }
    if !store.remotes().iter().any(|r| r == remote) {
        // Said once, so never silenced by `-q`: the user learns where memory does not go.
        if share::tell_once(store, remote) {
            report.warnings.push(format!(
                "git-rune: this push carries no memory: memory goes only to remotes opted in (`git remote add <name> {remote}`, then `git rune remote add <name>`)"
            ));
        }
        return Ok(());
    }
    let sharing = share::sharing(store, remote);
    if !sharing.pushes() {
        if share::tell_once(store, remote) {
            report.warnings.push(format!(
                "git-rune: this push carries no memory: {remote} is {}; `git rune remote add {remote}` shares memory with it",
                sharing.why()
            ));
        }
        return Ok(());
    }
    let (pushing, sending) = pushed(input.unwrap_or_default());
    let opts = SyncOptions {
        rounds: HOOK_SYNC_ROUNDS,
        pushing,
        sending,
        ..SyncOptions::default()
    };
    let synced = sync(store, remote, opts, &|_| {})?;
    let came: usize = synced.incoming().values().sum();
    if came > 0 {
        report.status.push(format!(
            "git-rune: merged {came} memory record{} from {remote}",
            if came == 1 { "" } else { "s" }
        ));
    }
    for s in &synced.skipped {
        report.warnings.push(format!(
            "git-rune: skipped {remote}'s {}: {}; {}",
            s.remote_ref, s.why, s.hint
        ));
    }
    if !synced.refused().is_empty() {
        report.warnings.push(format!(
            "git-rune: refused {} record(s) from {remote}; the rest merged (`git rune repair {remote}` publishes clean tips)",
            synced.refused().len()
        ));
    }
    if let Some(why) = synced.gave_up {
        return Err(error::conflict(
            format!("memory was not pushed: {why}"),
            "run `git rune sync` later; memory is never force-pushed",
        ));
    }
    if !synced.pushed.is_empty() {
        report
            .status
            .push(format!("git-rune: pushed memory to {remote}"));
    }
    Ok(())
}

/// The local branches a push sends and the commits it sends, from git's pre-push list
/// (`<local ref> <local id> <remote ref> <remote id>` per line; a deletion sends nothing). A
/// local ref that is not a branch (`HEAD:refs/heads/x`, a commit id) sends its commit, not any
/// branch's session state.
fn pushed(input: &str) -> (Vec<String>, Vec<crate::store::ObjectId>) {
    let mut branches = Vec::new();
    let mut commits = Vec::new();
    for l in input.lines() {
        let mut parts = l.split_whitespace();
        let (Some(local), Some(id)) = (parts.next(), parts.next()) else {
            continue;
        };
        if id.bytes().all(|b| b == b'0') {
            continue;
        }
        if let Ok(oid) = crate::store::ObjectId::from_hex(id.as_bytes()) {
            commits.push(oid);
        }
        if let Some(b) = local.strip_prefix("refs/heads/") {
            branches.push(b.to_owned());
        }
    }
    (branches, commits)
}

/// Appends one line to `<git dir>/rune/hooks.log`.
fn log(store: &Store, hook: &str, msg: &str) {
    let msg = crate::secrets::redact(msg);
    let line = format!("{} {hook}: {}", store.now(), msg.replace('\n', " "));
    crate::files::append_line(&store.git_dir().join("rune").join("hooks.log"), &line);
}

/// The last `n` lines of the hook failure log.
pub fn recent_failures(store: &Store, n: usize) -> Vec<String> {
    let log =
        std::fs::read_to_string(store.git_dir().join("rune").join("hooks.log")).unwrap_or_default();
    let lines: Vec<&str> = log.lines().collect();
    lines[lines.len().saturating_sub(n)..]
        .iter()
        .map(|l| l.to_string())
        .collect()
}
