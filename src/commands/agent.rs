//! `git rune agent install|uninstall|status|hook`: wiring agents to memory, and answering
//! Claude Code's hook events.

use std::io::{Read as _, Write as _};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::{Args, Subcommand, ValueEnum};

use super::Context;
use crate::agent::hook::{self, EVENTS};
use crate::agent::install::{self, McpClient, Scope, Target};
use crate::error;
use crate::output::json;

#[derive(Debug, Args)]
pub struct AgentArgs {
    #[command(subcommand)]
    pub action: AgentAction,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Agent {
    /// Claude Code: hooks in its settings file.
    Claude,
    /// Agents without hooks (Codex, Cursor, Aider, Gemini…): a marked block in AGENTS.md.
    AgentsMd,
    /// Claude Code's MCP servers: `git rune mcp` in .mcp.json (shared with the team).
    ClaudeMcp,
    /// Cursor's MCP servers: `git rune mcp` in .cursor/mcp.json.
    Cursor,
    /// Codex CLI's MCP servers: `git rune mcp` in ~/.codex/config.toml ($CODEX_HOME).
    Codex,
    /// Gemini CLI's MCP servers: `git rune mcp` in .gemini/settings.json.
    Gemini,
}

#[derive(Debug, Args)]
pub struct WireArgs {
    /// What to wire.
    pub agent: Agent,
    /// Claude Code: `.claude/settings.local.json` (this clone only) instead of
    /// `.claude/settings.json`.
    #[arg(long, conflicts_with_all = ["user", "file"])]
    pub local: bool,
    /// Claude Code: `~/.claude/settings.json` (every project of this user).
    #[arg(long, conflicts_with = "file")]
    pub user: bool,
    /// agents-md: the file to hold the block, relative to the work tree (default AGENTS.md;
    /// e.g. CLAUDE.md, GEMINI.md).
    #[arg(long, value_name = "FILE")]
    pub file: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
pub enum AgentAction {
    /// Wire an agent to memory: Claude Code's hooks (SessionStart, PreCompact, PostToolUse,
    /// Stop, SessionEnd) merged into its settings, the AGENTS.md block, or `git rune mcp`
    /// registered with an MCP client (claude-mcp, cursor, codex, gemini); idempotent.
    Install(WireArgs),
    /// Remove only what install added (the settings file, MCP configuration or AGENTS.md is
    /// left as it was).
    Uninstall(WireArgs),
    /// Show where agents are wired, the sessions counted here, and recent hook failures.
    Status,
    /// Answer one Claude Code hook event: its JSON on stdin, Claude Code's JSON on stdout.
    /// Never fails the agent: problems go to <git-dir>/rune/agent.log.
    Hook {
        /// SessionStart, PreCompact, PostToolUse, Stop or SessionEnd.
        event: String,
    },
}

fn target(a: &WireArgs) -> Result<Target> {
    let mcp = |client| {
        if a.local || a.user || a.file.is_some() {
            return Err(error::usage(
                "--local, --user and --file are for claude and agents-md",
                "an MCP client's file is fixed: run the command without them",
            ));
        }
        Ok(Target::Mcp(client))
    };
    match a.agent {
        Agent::ClaudeMcp => mcp(McpClient::Claude),
        Agent::Cursor => mcp(McpClient::Cursor),
        Agent::Codex => mcp(McpClient::Codex),
        Agent::Gemini => mcp(McpClient::Gemini),
        Agent::Claude => {
            if a.file.is_some() {
                return Err(error::usage(
                    "--file is for agents-md",
                    "Claude Code's settings file is chosen with --local or --user",
                ));
            }
            Ok(Target::Claude(if a.local {
                Scope::Local
            } else if a.user {
                Scope::User
            } else {
                Scope::Project
            }))
        }
        Agent::AgentsMd => {
            if a.local || a.user {
                return Err(error::usage(
                    "--local and --user are for claude",
                    "choose the file with --file (default AGENTS.md)",
                ));
            }
            Ok(Target::AgentsMd(
                a.file.clone().unwrap_or_else(|| PathBuf::from("AGENTS.md")),
            ))
        }
    }
}

fn wiring_error(e: anyhow::Error) -> anyhow::Error {
    match e.downcast_ref::<crate::agent::claude::SettingsError>() {
        Some(s) => error::data(
            s.to_string(),
            "fix the file (or move it aside) and run the command again; it was not changed",
        ),
        None => e,
    }
}

pub fn run(ctx: &Context, args: AgentArgs) -> Result<ExitCode> {
    match args.action {
        AgentAction::Install(a) => wire(ctx, &a, true),
        AgentAction::Uninstall(a) => wire(ctx, &a, false),
        AgentAction::Status => status(ctx),
        AgentAction::Hook { event } => hook_event(ctx, &event),
    }
}

fn wire(ctx: &Context, a: &WireArgs, on: bool) -> Result<ExitCode> {
    let store = ctx.open_store()?;
    let t = target(a)?;
    let wired = if on {
        install::install(&store, &t)
    } else {
        install::uninstall(&store, &t)
    }
    .map_err(wiring_error)?;
    let shown = wired.path.display().to_string();
    let out = if ctx.ui.json {
        json::line(&json::AgentWiredJson {
            changed: &wired.entries,
            file_created: wired.file_created,
            file_removed: wired.file_removed,
            installed: on,
            path: shown.clone(),
            version: json::VERSION,
        }) + "\n"
    } else if wired.entries.is_empty() {
        if on {
            format!("{shown}: already wired\n")
        } else {
            format!("{shown}: nothing of git-rune's to remove\n")
        }
    } else {
        let verb = if on { "added" } else { "removed" };
        let mut out = format!("{shown}: {verb} {}\n", wired.entries.join(", "));
        if wired.file_created {
            out.push_str(&format!("{shown}: created\n"));
        }
        if wired.file_removed {
            out.push_str(&format!("{shown}: removed (install had created it)\n"));
        }
        out
    };
    ctx.report(&out)?;
    Ok(ExitCode::SUCCESS)
}

fn status(ctx: &Context) -> Result<ExitCode> {
    let store = ctx.open_store()?;
    let st = install::status(&store)?;
    if ctx.ui.json {
        let claude: Vec<_> = st
            .claude
            .iter()
            .map(|(scope, path, entries)| json::ClaudeScopeJson {
                error: entries.as_ref().err(),
                hooks: entries.as_ref().ok(),
                path: path.display().to_string(),
                scope: scope.as_str(),
            })
            .collect();
        let sessions: Vec<_> = st
            .sessions
            .iter()
            .map(|s| json::AgentSessionJson {
                id: &s.id,
                started: &s.started,
                status: s.level().label(),
                tool_calls: s.tool_calls,
            })
            .collect();
        let mcp: Vec<_> = st
            .mcp
            .iter()
            .map(|(client, path, there)| json::McpClientJson {
                client: client.as_str(),
                error: there.as_ref().err(),
                path: path.display().to_string(),
                registered: there.as_ref().ok(),
            })
            .collect();
        let v = json::AgentStatusJson {
            agents_md: st
                .agents_md
                .iter()
                .map(|p| p.display().to_string())
                .collect(),
            claude,
            log: &st.log,
            mcp,
            sessions,
            version: json::VERSION,
        };
        ctx.ui.print(&(json::line(&v) + "\n"))?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut out = String::new();
    for (scope, path, entries) in &st.claude {
        let state = match entries {
            Ok(e) if e.is_empty() => "not wired".to_owned(),
            Ok(e) => format!("{} hooks ({})", e.len(), e.join(", ")),
            Err(e) => format!("unreadable: {e}"),
        };
        out.push_str(&format!(
            "claude ({}) {}: {state}\n",
            scope.as_str(),
            path.display()
        ));
    }
    if st.agents_md.is_empty() {
        out.push_str("agents-md: no file holds the block\n");
    }
    for p in &st.agents_md {
        out.push_str(&format!("agents-md {}: block present\n", p.display()));
    }
    for (client, path, there) in &st.mcp {
        let state = match there {
            Ok(true) => "git rune mcp registered".to_owned(),
            Ok(false) => "not registered".to_owned(),
            Err(e) => format!("unreadable: {e}"),
        };
        out.push_str(&format!(
            "mcp ({}) {}: {state}\n",
            client.as_str(),
            path.display()
        ));
    }
    match st.sessions.first() {
        Some(s) => out.push_str(&format!(
            "sessions: {} counted; newest {} ({} tool calls, {})\n",
            st.sessions.len(),
            s.id,
            s.tool_calls,
            s.level().label()
        )),
        None => out.push_str("sessions: none counted in this clone\n"),
    }
    if st.log.is_empty() {
        out.push_str("agent hook failures: none logged\n");
    } else {
        out.push_str("recent agent hook failures (.git/rune/agent.log):\n");
        for l in &st.log {
            out.push_str(&format!("  {l}\n"));
        }
    }
    ctx.ui.print(&out)?;
    Ok(ExitCode::SUCCESS)
}

/// Never fails: reads stdin, answers, exits 0.
fn hook_event(ctx: &Context, event: &str) -> Result<ExitCode> {
    let mut input = Vec::new();
    let _ = std::io::stdin().lock().read_to_end(&mut input);
    if !EVENTS.contains(&event) {
        ctx.ui.warn(format_args!(
            "git-rune: unknown agent hook event {event:?} (answers {})",
            EVENTS.join(", ")
        ));
    }
    let answer = hook::run(event, &input, &ctx.dir);
    let out = answer.to_stdout(event);
    if !out.is_empty() {
        let _ = std::io::stdout().lock().write_all(out.as_bytes());
    }
    Ok(ExitCode::SUCCESS)
}
