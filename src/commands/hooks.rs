//! `git rune hooks install|uninstall|status` and `git rune hook <name>`, the entry point the
//! installed shims call. A hook never breaks git: failures print one line and are logged.

use std::io::{Read as _, Write as _};
use std::process::{Command, ExitCode};

use anyhow::Result;
use clap::{Args, Subcommand};

use super::Ctx;
use crate::checkout::{Snapshot, View, VIEW_DIR};
use crate::hooks::{self, HookState};
use crate::model::Kind;
use crate::notes::CommitNote;
use crate::output::{print, user_error};
use crate::rewrite;
use crate::store::{branch_ref, Store, BRANCHES_PREFIX, MEMORY_REF};

#[derive(Debug, Args)]
pub struct HooksArgs {
    #[command(subcommand)]
    pub action: HooksAction,
}

#[derive(Debug, Subcommand)]
pub enum HooksAction {
    /// Install the post-commit, post-checkout, post-rewrite and pre-push hooks (idempotent;
    /// an existing shell hook keeps running, with git-rune's block added between marker lines).
    Install,
    /// Remove git-rune's hooks, restoring the user's own hooks byte for byte.
    Uninstall,
    /// Show which hooks are installed, and where.
    Status,
}

#[derive(Debug, Args)]
pub struct HookArgs {
    /// The git hook being run.
    pub name: String,
    /// The arguments git passed to the hook.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    pub args: Vec<String>,
}

pub fn hooks(ctx: &Ctx, args: HooksArgs) -> Result<ExitCode> {
    let store = ctx.store()?;
    let dir = hooks::hooks_dir(&store)
        .map_err(|e| user_error(e.to_string(), "run this in a work tree"))?;
    let mut rows = Vec::new();
    for hook in hooks::HOOKS {
        let result = match args.action {
            HooksAction::Install => hooks::install(&dir, hook),
            HooksAction::Uninstall => hooks::uninstall(&dir, hook),
            HooksAction::Status => hooks::state(&dir, hook),
        };
        let state = result.map_err(|e| {
            user_error(
                e.to_string(),
                "add `git rune hook <name> \"$@\" || true` to that hook yourself, or make it a shell script",
            )
        })?;
        rows.push((hook, state));
    }
    let mut out = String::new();
    if ctx.ui.json {
        let hooks: serde_json::Map<String, serde_json::Value> = rows
            .iter()
            .map(|(h, s)| (h.to_string(), serde_json::to_value(s).unwrap_or_default()))
            .collect();
        out = serde_json::json!({ "version": 1, "dir": dir, "hooks": hooks }).to_string();
        out.push('\n');
    } else {
        let verb = match args.action {
            HooksAction::Install => "installed",
            HooksAction::Uninstall => "removed",
            HooksAction::Status => "",
        };
        for (hook, state) in rows {
            let line = match (&args.action, state) {
                (HooksAction::Status, HookState::Absent) => format!("{hook}: not installed"),
                (HooksAction::Status, HookState::Installed) => format!("{hook}: installed"),
                (HooksAction::Status, HookState::Chained) => {
                    format!("{hook}: installed inside your own hook")
                }
                (HooksAction::Uninstall, HookState::Absent) => format!("{hook}: not installed"),
                (_, HookState::Chained) => format!("{hook}: {verb} (your own hook still runs)"),
                (_, _) => format!("{hook}: {verb}"),
            };
            out.push_str(&format!("{line}\n"));
        }
        out.push_str(&format!("hooks directory: {}\n", dir.display()));
        if matches!(args.action, HooksAction::Status) {
            let log = std::fs::read_to_string(store.git_dir().join("rune").join("hooks.log"))
                .unwrap_or_default();
            let lines: Vec<&str> = log.lines().collect();
            if !lines.is_empty() {
                out.push_str("recent hook failures (.git/rune/hooks.log):\n");
                for l in &lines[lines.len().saturating_sub(5)..] {
                    out.push_str(&format!("  {}\n", crate::output::sanitize(l)));
                }
            }
        }
    }
    print(&out)?;
    Ok(ExitCode::SUCCESS)
}

/// `git-rune hook <name> <args>…` exactly as the shims call it, without the full parser.
/// `None` for anything else (options, an unknown hook name): the parser handles it.
pub fn run_direct(mut argv: impl Iterator<Item = std::ffi::OsString>) -> Option<Result<ExitCode>> {
    let _program = argv.next()?;
    if argv.next()? != "hook" {
        return None;
    }
    let name = argv.next()?.into_string().ok()?;
    if !hooks::HOOKS.contains(&name.as_str()) {
        return None;
    }
    let args = argv.map(|a| a.to_string_lossy().into_owned()).collect();
    let dir = std::env::current_dir().ok()?;
    let ctx = Ctx {
        dir,
        ui: crate::output::Ui::default(),
        redact: false,
    };
    Some(hook(&ctx, HookArgs { name, args }))
}

/// Runs one hook. Always exits 0 (a memory problem must not fail the user's git command),
/// except pre-push with `rune.strictPush` set.
pub fn hook(ctx: &Ctx, args: HookArgs) -> Result<ExitCode> {
    if std::env::var_os("GIT_RUNE_SKIP_HOOKS").is_some_and(|v| !v.is_empty()) {
        return Ok(ExitCode::SUCCESS);
    }
    let result = ctx.store().and_then(|store| run_hook(ctx, &store, &args));
    match result {
        Ok(code) => Ok(code),
        Err(e) => {
            eprintln!(
                "git-rune: {} hook: {e:#} (git went on; see .git/rune/hooks.log)",
                args.name
            );
            if let Ok(store) = ctx.store() {
                log(&store, &args.name, &format!("{e:#}"));
                if args.name == "pre-push" && strict_push(&store) {
                    return Ok(ExitCode::from(1));
                }
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn run_hook(ctx: &Ctx, store: &Store, args: &HookArgs) -> Result<ExitCode> {
    match args.name.as_str() {
        "post-checkout" => post_checkout(ctx, store, args),
        "pre-push" => pre_push(ctx, store, args),
        "post-commit" => post_commit(store),
        "post-rewrite" => post_rewrite(ctx, store, args),
        other => Err(user_error(
            format!("unknown hook {other:?}"),
            format!("git-rune handles {}", hooks::HOOKS.join(", ")),
        )),
    }
}

/// Attaches the commit note: which memory produced the commit, and the decisions, learnings
/// and conventions recorded since the previous commit. A commit with nothing new still gets
/// a short note, so every commit maps to the memory of its time.
fn post_commit(store: &Store) -> Result<ExitCode> {
    let mut head = store.head_info()?;
    let Some(commit) = head.head else {
        return Ok(ExitCode::SUCCESS);
    };
    if head.branch.is_none() {
        // A rebase replays commits on a detached HEAD; they belong to the branch it rebases.
        head.branch = rebasing_branch(store);
    }
    let session_ref = branch_ref(head.branch.as_deref());
    let memory = store.ref_id(MEMORY_REF)?;
    let session = store.ref_id(&session_ref)?;
    let parent = store
        .repo
        .find_commit(commit)
        .map_err(crate::store::git_err("cannot read HEAD"))?
        .parent_ids()
        .next()
        .map(|p| p.detach());
    // One read of the notes tree serves the parent's note and the write.
    store.edit_notes("post-commit", |notes| {
        let previous = match parent {
            Some(p) => notes.get(p)?.map(|t| CommitNote::parse(&t)),
            None => None,
        };
        let records = new_records(store, parent, previous.as_ref(), memory)?;
        // The parent's note already names the open checkpoint of an unchanged session.
        let checkpoint = match (&previous, session) {
            (Some(prev), Some(s)) if prev.session.as_deref() == Some(s.to_string().as_str()) => {
                prev.checkpoint.clone()
            }
            (_, Some(s)) => open_checkpoint(store, &session_ref, s)?,
            (_, None) => None,
        };
        let mut note = CommitNote {
            branch: head.branch.clone(),
            memory: memory.map(|m| m.to_string()),
            session: session.map(|s| s.to_string()),
            checkpoint,
            ..CommitNote::default()
        };
        note.list_records(&records);
        Ok(vec![(commit, note.render())])
    })?;
    Ok(ExitCode::SUCCESS)
}

/// The decisions, learnings and conventions in `memory` that the parent commit's memory (its
/// note's, or memory as of its time) did not hold.
fn new_records(
    store: &Store,
    parent: Option<gix::ObjectId>,
    previous: Option<&CommitNote>,
    memory: Option<gix::ObjectId>,
) -> crate::store::Result<Vec<crate::model::Record>> {
    let Some(memory) = memory else {
        return Ok(Vec::new());
    };
    let noted = previous
        .and_then(|n| n.memory.as_deref())
        .and_then(|m| gix::ObjectId::from_hex(m.as_bytes()).ok());
    if noted == Some(memory) {
        return Ok(Vec::new());
    }
    let base = match (noted, parent) {
        (Some(m), _) if store.repo.has_object(m) => Some(store.tip_of(MEMORY_REF, m)?),
        (Some(_), _) | (None, None) => None,
        (None, Some(_)) if previous.is_some() => None,
        (None, Some(p)) => {
            let time = store
                .repo
                .find_commit(p)
                .ok()
                .and_then(|c| c.time().ok())
                .map(|t| t.seconds)
                .unwrap_or(0);
            // Memory written in the parent's own second counts as new: listing a record twice
            // is better than never listing it.
            store.tip_before(MEMORY_REF, time - 1)?
        }
    };
    store.records_added(
        MEMORY_REF,
        base,
        store.tip_of(MEMORY_REF, memory)?,
        &[Kind::Decision, Kind::Convention, Kind::Learning],
    )
}

/// The open checkpoint's resume line (or what it was doing) on a branch's session state.
fn open_checkpoint(
    store: &Store,
    session_ref: &str,
    session: gix::ObjectId,
) -> crate::store::Result<Option<String>> {
    let tip = store.tip_of(session_ref, session)?;
    let records = store.records_of(
        session_ref,
        tip,
        &[Kind::Checkpoint, Kind::Resolve, Kind::Delete],
    )?;
    Ok(crate::model::fold(records.iter())
        .open_checkpoint()
        .and_then(|c| match &c.body {
            crate::model::Body::Checkpoint { resume, doing, .. } => Some(if resume.is_empty() {
                doing.clone()
            } else {
                resume.clone()
            }),
            _ => None,
        }))
}

/// The branch a rebase in progress is rebasing, from git's rebase state.
fn rebasing_branch(store: &Store) -> Option<String> {
    ["rebase-merge", "rebase-apply"].iter().find_map(|dir| {
        let name = std::fs::read_to_string(store.git_dir().join(dir).join("head-name")).ok()?;
        name.trim().strip_prefix("refs/heads/").map(str::to_owned)
    })
}

/// After an amend or a rebase (git lists `<old> <new>` on stdin): every new commit gets one
/// note combining its own and its old commits' notes, and saved session heads and open
/// checkpoints that named an old commit name the new one.
fn post_rewrite(ctx: &Ctx, store: &Store, args: &HookArgs) -> Result<ExitCode> {
    let command = args.args.first().map(String::as_str).unwrap_or("rebase");
    let mut input = String::new();
    std::io::stdin().read_to_string(&mut input).map_err(|e| {
        user_error(
            format!("cannot read the rewritten commits: {e}"),
            "git passes them on stdin; run this only from the post-rewrite hook",
        )
    })?;
    let pairs = rewrite::parse_list(&input);
    if pairs.is_empty() {
        return Ok(ExitCode::SUCCESS);
    }
    let copy = store
        .repo
        .config_snapshot()
        .boolean(format!("notes.rewrite.{command}").as_str())
        .unwrap_or(true);
    rewrite::carry_notes(store, command, &pairs, copy)?;
    let remapped = rewrite::remap_heads(store, &pairs)?;
    if !remapped.is_empty() {
        for (name, n) in &remapped {
            ctx.ui.status(format_args!(
                "git-rune: {name}: {n} saved head{} moved to the rewritten commit",
                if *n == 1 { "" } else { "s" }
            ));
        }
        super::refresh_view(ctx, store)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// A branch switch re-renders the view for the new branch, unless it holds unsaved edits.
fn post_checkout(ctx: &Ctx, store: &Store, args: &HookArgs) -> Result<ExitCode> {
    // The third argument is 1 for a branch checkout, 0 for a file checkout.
    if args.args.get(2).map(String::as_str) != Some("1") {
        return Ok(ExitCode::SUCCESS);
    }
    // A rebase checks out commits on its way; the view stays with the branch being rebased.
    if rebasing_branch(store).is_some() {
        return Ok(ExitCode::SUCCESS);
    }
    let Some(view) = View::open(store) else {
        return Ok(ExitCode::SUCCESS);
    };
    let manifest = view.manifest();
    let unsaved: Vec<_> = view
        .states(&manifest)
        .into_iter()
        .filter(|(_, s)| {
            matches!(
                s,
                crate::checkout::FileState::Modified | crate::checkout::FileState::Added
            )
        })
        .map(|(f, _)| f.name())
        .collect();
    if !unsaved.is_empty() {
        eprintln!(
            "git-rune: {VIEW_DIR}/ has unsaved edits ({}); it was left as it was, still showing the previous branch's session. Run `git rune save` to keep them (they go to the branch they were made on) and refresh the view.",
            unsaved.join(", ")
        );
        return Ok(ExitCode::SUCCESS);
    }
    let snap = Snapshot::read(store)?;
    view.checkout(&snap, &[])?;
    ctx.ui.status(format_args!(
        "git-rune: {VIEW_DIR}/ now shows {}",
        snap.head.branch.as_deref().unwrap_or("the detached HEAD")
    ));
    Ok(ExitCode::SUCCESS)
}

/// Pushes memory refs beside the user's push: non-forced, so a remote that moved on is
/// reported, never overwritten (the sync feature merges).
fn pre_push(ctx: &Ctx, store: &Store, args: &HookArgs) -> Result<ExitCode> {
    let Some(remote) = args.args.first() else {
        return Ok(ExitCode::SUCCESS);
    };
    let mut refspecs: Vec<String> = store
        .memory_refs()?
        .into_iter()
        .filter(|r| r == MEMORY_REF || r.starts_with(BRANCHES_PREFIX))
        .map(|r| format!("{r}:{r}"))
        .collect();
    if store.repo.try_find_reference("refs/notes/rune")?.is_some() {
        refspecs.push("refs/notes/rune:refs/notes/rune".into());
    }
    if refspecs.is_empty() {
        return Ok(ExitCode::SUCCESS);
    }
    let out = Command::new("git")
        .arg("--git-dir")
        .arg(store.git_dir())
        .args(["push", "--no-verify", "--porcelain", remote])
        .args(&refspecs)
        .env("GIT_RUNE_SKIP_HOOKS", "1")
        .output()
        .map_err(|e| {
            user_error(
                format!("cannot run git push: {e}"),
                "make sure git is on PATH",
            )
        })?;
    if out.status.success() {
        ctx.ui
            .status(format_args!("git-rune: pushed memory to {remote}"));
        return Ok(ExitCode::SUCCESS);
    }
    let rejected: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.starts_with('!'))
        .map(|l| l.split('\t').nth(1).unwrap_or(l).to_owned())
        .collect();
    Err(user_error(
        format!(
            "memory was not pushed to {remote}: {}",
            if rejected.is_empty() {
                String::from_utf8_lossy(&out.stderr).trim().to_owned()
            } else {
                format!(
                    "rejected {} (the remote has memory this clone lacks)",
                    rejected.join(", ")
                )
            }
        ),
        "fetch and merge memory, then push again; memory is never force-pushed",
    ))
}

fn strict_push(store: &Store) -> bool {
    store
        .repo
        .config_snapshot()
        .boolean("rune.strictPush")
        .unwrap_or(false)
}

/// Appends one line to `<git dir>/rune/hooks.log`.
fn log(store: &Store, hook: &str, msg: &str) {
    let dir = store.git_dir().join("rune");
    let _ = std::fs::create_dir_all(&dir);
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(dir.join("hooks.log"))
    {
        let _ = writeln!(f, "{} {hook}: {}", store.now(), msg.replace('\n', " "));
    }
}
