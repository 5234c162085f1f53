//! `git rune context status|preview|budget|artifacts`, `git rune fold` and `git rune mode`:
//! the context engine's commands.

use std::io::{Read as _, Write as _};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::{Args, Subcommand, ValueEnum};

use super::Context;
use crate::context::{artifacts, budget, mode, preview, report, session};
use crate::error;
use crate::memory::view_dir::{View, VIEW_DIR};
use crate::memory::Snapshot;
use crate::output::json;
use crate::store::Store;

/// Exit status of `context preview` when the bundle is over the block threshold.
const BLOCKED: u8 = 3;

#[derive(Debug, Args)]
pub struct ContextArgs {
    #[command(subcommand)]
    pub action: ContextAction,
}

#[derive(Debug, Subcommand)]
pub enum ContextAction {
    /// The Context Health report of an agent session: tool calls, status, recommendation,
    /// and the critical context a compaction must keep.
    Status {
        /// The session to report (default: the newest counted in this clone).
        #[arg(long, value_name = "ID")]
        session: Option<String>,
    },
    /// Estimate what a bundle of files costs before sending it to a model; exit status 3
    /// when it is over the caller's block threshold.
    Preview {
        /// Who asks: adversary, team, review, audit (their thresholds), or a name set in
        /// `rune.context.preview.<name>` / RUNE_CONTEXT_THRESHOLDS_<NAME>.
        #[arg(long)]
        caller: String,
        /// Characters of prompt sent beside the files.
        #[arg(long, default_value_t = 0, value_name = "N")]
        prompt_chars: u64,
        /// The files of the bundle.
        #[arg(required = true, value_name = "FILE")]
        files: Vec<PathBuf>,
    },
    /// The baseline cost of a session before any work: MCP servers and tools, agent
    /// descriptions and CLAUDE.md, with the rules they break.
    Budget,
    /// List the folded outputs kept in .rune/artifacts/ (newest first).
    Artifacts,
}

pub fn run(ctx: &Context, args: ContextArgs) -> Result<ExitCode> {
    match args.action {
        ContextAction::Status { session } => status(ctx, session.as_deref()),
        ContextAction::Preview {
            caller,
            prompt_chars,
            files,
        } => preview_cmd(ctx, &caller, prompt_chars, &files),
        ContextAction::Budget => budget_cmd(ctx),
        ContextAction::Artifacts => artifacts_cmd(ctx),
    }
}

fn status(ctx: &Context, id: Option<&str>) -> Result<ExitCode> {
    let store = ctx.store()?;
    let git_dir = store.git_dir();
    let s = match id {
        Some(id) => Some(session::read(git_dir, id).ok_or_else(|| {
            error::input(
                format!("no session {id:?} is counted in this clone"),
                "list the sessions with `git rune agent status`, or leave out --session for the newest",
            )
        })?),
        None => session::all(git_dir).into_iter().next(),
    };
    let snap = Snapshot::read(&store)?;
    let density = mode::density(git_dir, s.as_ref().is_some_and(|s| s.auto_caveman)).0;
    let h = report::health(s.as_ref(), &snap.state, density);
    if ctx.ui.json {
        return ctx.print_json(&json::HealthJson {
            health: &h,
            version: json::VERSION,
        });
    }
    ctx.print(&h.text())
}

fn preview_cmd(
    ctx: &Context,
    caller: &str,
    prompt_chars: u64,
    files: &[PathBuf],
) -> Result<ExitCode> {
    // Outside a repository the environment and the defaults still apply.
    let store = Store::open(&ctx.dir).ok();
    let env = std::env::var(format!("RUNE_CONTEXT_THRESHOLDS_{}", caller.to_uppercase())).ok();
    let configured = store
        .as_ref()
        .and_then(|s| s.config_string(&format!("rune.context.preview.{caller}")));
    // Only a name git config takes as a key (a letter, then letters, digits and `-`) can be
    // given thresholds of its own.
    let nameable = caller.starts_with(|c: char| c.is_ascii_alphabetic())
        && caller
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-');
    let hint = if nameable {
        format!(
            "use adversary, team, review or audit, or set thresholds with `git config rune.context.preview.{caller} <warn>,<block>` or RUNE_CONTEXT_THRESHOLDS_{}=<warn>,<block>",
            caller.to_uppercase()
        )
    } else {
        "use adversary, team, review or audit, or a name of your own (a letter, then letters, digits and -) with thresholds set by `git config rune.context.preview.<name> <warn>,<block>`".to_owned()
    };
    let threshold = preview::thresholds(caller, env.as_deref(), configured.as_deref())
        .map_err(|e| error::input(e.to_string(), hint))?;
    let p = preview::preview(caller, threshold, prompt_chars, files, &ctx.dir)
        .map_err(|e| error::input(e.to_string(), "name files that exist and can be read"))?;
    let out = if ctx.ui.json {
        json::line(&json::context_preview(&p)) + "\n"
    } else {
        let mut out = format!(
            "{}: ~{} tokens in {} file{} (warn at {}, block at {}): {}\n",
            p.caller,
            p.estimated_tokens,
            p.file_count,
            if p.file_count == 1 { "" } else { "s" },
            p.threshold.warn_at,
            p.threshold.block_at,
            p.action
        );
        for f in &p.top_5_files_by_size {
            out.push_str(&format!("  {:>9} chars  {}\n", f.chars, f.path));
        }
        out
    };
    ctx.ui.print(&out)?;
    Ok(if p.action == "block" {
        ExitCode::from(BLOCKED)
    } else {
        ExitCode::SUCCESS
    })
}

fn budget_cmd(ctx: &Context) -> Result<ExitCode> {
    let store = ctx.store()?;
    let root = store
        .workdir()
        .ok_or_else(|| error::environment("bare repository", "run this in a work tree"))?;
    let b = budget::budget(root, |server| {
        store
            .config_string(&format!("rune.context.mcpTools.{server}"))
            .and_then(|n| crate::settings::parse_int(&n))
            .and_then(|n| n.try_into().ok())
    });
    for u in &b.unreadable {
        ctx.ui.warn(u);
    }
    if ctx.ui.json {
        return ctx.print_json(&json::BudgetJson {
            budget: &b,
            version: json::VERSION,
        });
    }
    let mut out = format!(
        "## Context Budget\n- MCP servers: {} ({} tools × {} tokens)\n",
        b.servers.len(),
        b.tools,
        budget::TOKENS_PER_TOOL
    );
    for s in &b.servers {
        out.push_str(&format!(
            "  - {} ({}): {} tools{}\n",
            s.name,
            s.source,
            s.tools,
            if s.tools_known {
                ""
            } else {
                " (assumed; set rune.context.mcpTools.<server>)"
            }
        ));
    }
    out.push_str(&format!(
        "- Agent descriptions: {} (× {} tokens)\n- CLAUDE.md: {} lines, ~{} tokens\n\
         - Baseline: ~{} tokens ({}% of a {}k window)\n",
        b.agents,
        budget::TOKENS_PER_AGENT,
        b.claude_md_lines,
        b.claude_md_tokens,
        b.baseline_tokens,
        b.percent_of_window,
        budget::WINDOW / 1000
    ));
    if b.recommendations.is_empty() {
        out.push_str("\nWithin the seed's rules: nothing to change.\n");
    } else {
        out.push_str("\n### Recommendations\n");
        for r in &b.recommendations {
            out.push_str(&format!("- {r}\n"));
        }
    }
    ctx.print(&out)
}

fn view_dir(store: &Store) -> Result<PathBuf> {
    View::open(store).map(|v| v.dir).ok_or_else(|| {
        error::environment(
            "bare repository: there is no .rune/ view",
            "run this in a work tree",
        )
    })
}

fn artifacts_cmd(ctx: &Context) -> Result<ExitCode> {
    let store = ctx.open_store()?;
    let dir = view_dir(&store)?;
    let list = artifacts::list(&dir);
    let out = if ctx.ui.json {
        let items: Vec<_> = list
            .iter()
            .map(|(name, size)| json::ArtifactJson {
                bytes: *size,
                path: format!("{VIEW_DIR}/artifacts/{name}"),
            })
            .collect();
        json::line(&json::ArtifactsJson {
            artifacts: items,
            version: json::VERSION,
        }) + "\n"
    } else {
        list.iter()
            .map(|(name, size)| format!("{VIEW_DIR}/artifacts/{name}\t{size}\n"))
            .collect()
    };
    ctx.print(&out)
}

#[derive(Debug, Args)]
pub struct FoldArgs {
    /// The tool name the artifact is filed under (default: the command's name).
    #[arg(long)]
    pub tool: Option<String>,
    /// Fold what is piped in instead of running a command.
    #[arg(long, conflicts_with = "command")]
    pub stdin: bool,
    /// The command to run, after `--`.
    #[arg(last = true, value_name = "COMMAND")]
    pub command: Vec<String>,
}

/// `git rune fold`: runs the command (or reads stdin); output over 4,000 characters or 120
/// lines is saved to .rune/artifacts/ and replaced by a preview. The command's exit status is
/// passed through; its stderr is not folded.
pub fn fold(ctx: &Context, args: FoldArgs) -> Result<ExitCode> {
    if !args.stdin && args.command.is_empty() {
        return Err(error::usage(
            "nothing to fold",
            "give a command after `--` (git rune fold -- cargo test), or pipe output in with --stdin",
        ));
    }
    let store = ctx.open_store()?;
    let dir = view_dir(&store)?;
    let (output, code, summary) = if args.stdin {
        let mut buf = Vec::new();
        std::io::stdin().lock().read_to_end(&mut buf)?;
        (buf, ExitCode::SUCCESS, "(stdin)".to_owned())
    } else {
        let run = std::process::Command::new(&args.command[0])
            .args(&args.command[1..])
            .stdin(std::process::Stdio::inherit())
            .stderr(std::process::Stdio::inherit())
            .output();
        let child = match run {
            Ok(child) => child,
            // As a shell says it: 127 for a command not found, 126 for one that cannot run,
            // so a script running `git rune fold -- cmd` sees what it would without fold.
            Err(e) => {
                let (code, why) = match e.kind() {
                    std::io::ErrorKind::NotFound => (127, "command not found".to_owned()),
                    std::io::ErrorKind::PermissionDenied => (126, "permission denied".to_owned()),
                    _ => (126, e.to_string()),
                };
                ctx.ui.notice(format_args!(
                    "git-rune fold: {}: {why} (check the command's name and that it is on PATH)",
                    args.command[0]
                ));
                return Ok(ExitCode::from(code));
            }
        };
        (
            child.stdout,
            exit_code(child.status),
            args.command.join(" "),
        )
    };
    let text = String::from_utf8_lossy(&output);
    if !artifacts::too_large(&text) {
        std::io::stdout().lock().write_all(&output)?;
        return Ok(code);
    }
    let tool = args.tool.clone().unwrap_or_else(|| {
        args.command
            .first()
            .and_then(|c| std::path::Path::new(c).file_name())
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "stdin".into())
    });
    let now = store.now();
    let stamp: String = now.chars().filter(|c| *c != '-' && *c != ':').collect();
    let (_, preview) = artifacts::fold(
        &dir,
        &format!("{VIEW_DIR}/artifacts"),
        &tool,
        &summary,
        &text,
        &stamp,
        &now,
    )
    .map_err(|e| {
        error::environment(
            format!(
                "cannot save the artifact in {}: {}",
                dir.display(),
                error::io_text(&e)
            ),
            "check that .rune/ is writable; nothing was folded",
        )
    })?;
    std::io::stdout().lock().write_all(preview.as_bytes())?;
    Ok(code)
}

/// The exit code a shell would report for `status` (128 + the signal when killed).
fn exit_code(status: std::process::ExitStatus) -> ExitCode {
    if let Some(c) = status.code() {
        return ExitCode::from(u8::try_from(c).unwrap_or(1));
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt as _;
        if let Some(sig) = status.signal() {
            return ExitCode::from(128u8.saturating_add(u8::try_from(sig).unwrap_or(0)));
        }
    }
    ExitCode::from(1)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ModeName {
    Dev,
    Research,
    Review,
    /// No mode: remove .rune/active-context.md.
    Off,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Density {
    Caveman,
    Normal,
}

#[derive(Debug, Args)]
pub struct ModeArgs {
    /// The mode to switch to; without it, print the current mode and density.
    pub mode: Option<ModeName>,
    /// Set output density by hand (wins over the automatic switch at ORANGE).
    #[arg(long)]
    pub density: Option<Density>,
}

/// A value's name on the command line (`dev`, `caveman`).
fn value_name(v: impl ValueEnum) -> String {
    v.to_possible_value()
        .map_or_else(String::new, |p| p.get_name().to_owned())
}

/// `git rune mode`: behavioural modes and output density.
pub fn mode_cmd(ctx: &Context, args: ModeArgs) -> Result<ExitCode> {
    let store = ctx.open_store()?;
    let dir = view_dir(&store)?;
    let git_dir = store.git_dir();
    if let Some(m) = args.mode {
        let path = mode::active_path(&dir);
        let name = &value_name(m);
        if m == ModeName::Off {
            match std::fs::remove_file(&path) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => {
                    return Err(error::environment(
                        format!("cannot remove {}: {}", path.display(), error::io_text(&e)),
                        "check the file's permissions",
                    ))
                }
            }
            ctx.ui
                .status("git-rune: no mode (.rune/active-context.md removed)");
        } else {
            let rules = mode::rules(&dir, name).unwrap_or_default();
            std::fs::create_dir_all(&dir)
                .and_then(|()| crate::files::write_atomic(&path, rules.as_bytes()).map(drop))
                .map_err(|e| {
                    error::environment(
                        format!("cannot write {}: {}", path.display(), error::io_text(&e)),
                        "check that .rune/ is a folder (not a file) you can write",
                    )
                })?;
            ctx.ui.status(format_args!("git-rune: mode {name} ({VIEW_DIR}/active-context.md; SessionStart hands it to the agent)"));
        }
    }
    if let Some(d) = args.density {
        let d = &value_name(d);
        mode::set_density(git_dir, d).map_err(|e| {
            error::environment(
                format!("cannot set the density: {}", error::io_text(&e)),
                "check that .git/rune/ is writable",
            )
        })?;
        ctx.ui
            .status(format_args!("git-rune: output density {d} (set by hand)"));
    }
    if args.mode.is_none() && args.density.is_none() || ctx.ui.json {
        let current = mode::active(&dir).map(|(n, _)| n);
        let newest = session::all(git_dir).into_iter().next();
        let (density, source) = mode::density(git_dir, newest.is_some_and(|s| s.auto_caveman));
        if ctx.ui.json {
            return ctx.print_json(&json::ModeJson {
                density,
                density_source: source,
                mode: current,
                version: json::VERSION,
            });
        }
        ctx.ui.print(&format!(
            "mode: {}\ndensity: {density} ({source})\n",
            current.as_deref().unwrap_or("none")
        ))?;
    }
    Ok(ExitCode::SUCCESS)
}
