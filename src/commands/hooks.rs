//! `git rune hooks install|uninstall|status`, and `git rune hook <name>`, which the installed
//! shims call.

use std::io::Read as _;
use std::process::ExitCode;

use anyhow::Result;
use clap::{Args, Subcommand};

use super::Context;
use crate::error;
use crate::hooks::install::{self, HookState, HOOKS};
use crate::hooks::run::{recent_failures, run};
use crate::output::json::{self, HooksJson};

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

pub fn hooks(ctx: &Context, args: HooksArgs) -> Result<ExitCode> {
    let store = ctx.store()?;
    let dir =
        install::hooks_dir(&store).map_err(|e| error::environment(e.to_string(), e.hint()))?;
    let mut rows = Vec::new();
    for hook in HOOKS {
        let result = match args.action {
            HooksAction::Install => install::install(&dir, hook),
            HooksAction::Uninstall => install::uninstall(&dir, hook),
            HooksAction::Status => install::state(&dir, hook),
        };
        let state = result.map_err(|e| error::environment(e.to_string(), e.hint()))?;
        rows.push((hook, state));
    }
    let mut out = String::new();
    if ctx.ui.json {
        out = json::line(&HooksJson {
            dir: &dir,
            hooks: rows.iter().map(|(h, s)| (*h, s.as_str())).collect(),
            version: json::VERSION,
        }) + "\n";
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
            let failures = recent_failures(&store, 5);
            if !failures.is_empty() {
                out.push_str("recent hook failures (.git/rune/hooks.log):\n");
                for l in &failures {
                    out.push_str(&format!("  {}\n", l));
                }
            }
        }
    }
    if matches!(args.action, HooksAction::Install) {
        super::report_hooks_in_work_tree(ctx, &store, &dir);
    }
    // What install and uninstall did is a report (`-q` silences it); status is data.
    if matches!(args.action, HooksAction::Status) {
        return ctx.print(&out);
    }
    ctx.reported(&out)
}

/// Runs one hook; exits 0 whatever happens (a memory problem must not fail the user's git
/// command), except pre-push with `rune.strictPush` set.
pub fn hook(ctx: &Context, args: HookArgs) -> Result<ExitCode> {
    if std::env::var_os("GIT_RUNE_SKIP_HOOKS").is_some_and(|v| !v.is_empty()) {
        return Ok(ExitCode::SUCCESS);
    }
    // post-rewrite gets git's `<old> <new>` list on stdin, pre-push the refs it sends;
    // other hooks read nothing (nor does a hook run by hand at a terminal).
    let mut input = String::new();
    let reads = matches!(args.name.as_str(), "post-rewrite" | "pre-push");
    if reads && !std::io::IsTerminal::is_terminal(&std::io::stdin()) {
        if let Err(e) = std::io::stdin().read_to_string(&mut input) {
            ctx.ui.notice(format_args!(
                "git-rune: {} hook: cannot read what git passed it: {e}",
                args.name
            ));
            return Ok(ExitCode::SUCCESS);
        }
    }
    let report = run(&ctx.dir, &args.name, &args.args, Some(&input));
    // `git switch -q` and friends: git tells its hooks nothing of -q, so ask the command
    // that ran the hook; its status lines go quiet with it (warnings still show).
    let quiet = !report.status.is_empty() && git_was_quiet();
    for line in report.status.iter().filter(|_| !quiet) {
        ctx.ui.status(line);
    }
    for line in &report.warnings {
        ctx.ui.notice(line);
    }
    Ok(ExitCode::from(report.exit_code))
}

/// Whether the git command that ran this hook was given `-q`/`--quiet`: the nearest git
/// ancestor process other than the `git rune hook` that started us, read from /proc (Linux;
/// elsewhere the answer is no).
fn git_was_quiet() -> bool {
    #[cfg(target_os = "linux")]
    {
        let mut pid = std::os::unix::process::parent_id();
        for _ in 0..8 {
            let Ok(cmdline) = std::fs::read(format!("/proc/{pid}/cmdline")) else {
                return false;
            };
            let argv: Vec<String> = cmdline
                .split(|b| *b == 0)
                .filter(|a| !a.is_empty())
                .map(|a| String::from_utf8_lossy(a).into_owned())
                .collect();
            if let Some(quiet) = quiet_git(&argv) {
                return quiet;
            }
            let Some(parent) = parent_of(pid) else {
                return false;
            };
            pid = parent;
        }
    }
    false
}

/// For a git command line: whether it asked for quiet (`None`: not the git command that
/// ran the hook, so keep looking: a shell, or `git rune hook` itself).
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
fn quiet_git(argv: &[String]) -> Option<bool> {
    let program = std::path::Path::new(argv.first()?)
        .file_name()?
        .to_string_lossy()
        .into_owned();
    if program != "git" || argv.iter().any(|a| a == "rune") {
        return None;
    }
    let args = argv[1..].iter().take_while(|a| *a != "--");
    Some(args.into_iter().any(|a| {
        a == "--quiet"
            || (a.starts_with('-')
                && !a.starts_with("--")
                && a.len() > 1
                && a[1..].contains('q')
                && a[1..].bytes().all(|b| b.is_ascii_alphabetic()))
    }))
}

/// The parent of a process, from /proc/<pid>/stat.
#[cfg(target_os = "linux")]
fn parent_of(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // `pid (comm) state ppid …`: comm may hold spaces and parentheses; take what follows
    // the last `)`.
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(1)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::quiet_git;

    fn argv(s: &str) -> Vec<String> {
        s.split(' ').map(str::to_owned).collect()
    }

    #[test]
    fn quiet_is_read_from_the_git_command() {
        assert_eq!(quiet_git(&argv("git switch -q topic")), Some(true));
        assert_eq!(
            quiet_git(&argv("/usr/bin/git checkout --quiet main")),
            Some(true)
        );
        assert_eq!(quiet_git(&argv("git checkout -fq main")), Some(true));
        assert_eq!(quiet_git(&argv("git switch topic")), Some(false));
        assert_eq!(quiet_git(&argv("git switch -- -q")), Some(false));
        assert_eq!(quiet_git(&argv("git rune hook post-checkout a b 1")), None);
        assert_eq!(quiet_git(&argv("/bin/sh .git/hooks/post-checkout")), None);
    }
}
