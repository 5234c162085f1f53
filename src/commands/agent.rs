//! `git rune agent install|uninstall|status|hook`: wiring agents to memory, and answering
//! their hook events (Claude Code's, and through the shared event model Codex's, Gemini CLI's,
//! Copilot CLI's, Cursor's and git-rune's OpenCode plugin's).

use std::io::{Read as _, Write as _};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::{Args, Subcommand, ValueEnum};

use super::Context;
use crate::agent::event::{self, Mapped};
use crate::agent::hook::{self, EVENTS};
use crate::agent::install::{self, McpClient, Scope, Target, Wired};
use crate::agent::route;
use crate::agent::wiring::{self, HookScope};
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
    /// Agents without hooks (Aider, …): a marked block in AGENTS.md.
    AgentsMd,
    /// Claude Code's MCP servers: `git rune mcp` in .mcp.json (shared with the team).
    ClaudeMcp,
    /// Codex CLI: hooks in .codex/hooks.json, their trust and `git rune mcp` in
    /// ~/.codex/config.toml ($CODEX_HOME).
    Codex,
    /// Gemini CLI: hooks and `git rune mcp` in .gemini/settings.json.
    Gemini,
    /// GitHub Copilot CLI: hooks in .github/hooks/git-rune.json, `git rune mcp` in .mcp.json.
    Copilot,
    /// Cursor: hooks in .cursor/hooks.json, `git rune mcp` in .cursor/mcp.json, the AGENTS.md
    /// block.
    Cursor,
    /// OpenCode: git-rune's plugin module in .opencode/plugin/git-rune.js.
    Opencode,
}

#[derive(Debug, Args)]
pub struct WireArgs {
    /// What to wire.
    pub agent: Agent,
    /// Claude Code: `.claude/settings.local.json` (this clone only) instead of
    /// `.claude/settings.json`.
    #[arg(long, conflicts_with_all = ["user", "file"])]
    pub local: bool,
    /// The user's files instead of the repository's (every project of this user):
    /// `~/.claude/settings.json`, `~/.codex/hooks.json`, `~/.gemini/settings.json`,
    /// `~/.copilot/hooks/`, `~/.cursor/hooks.json`, `~/.config/opencode/plugin/`.
    #[arg(long, conflicts_with = "file")]
    pub user: bool,
    /// agents-md: the file to hold the block, relative to the work tree (default AGENTS.md;
    /// e.g. CLAUDE.md, GEMINI.md).
    #[arg(long, value_name = "FILE")]
    pub file: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
pub enum AgentAction {
    /// Wire an agent to memory: its hooks (session start, tool calls, compaction, stop) merged
    /// into its own files, `git rune mcp` registered, and whatever else it needs (Codex's
    /// hook trust, the AGENTS.md block for Cursor); the AGENTS.md block alone (agents-md), or
    /// Claude Code's MCP server alone (claude-mcp). Idempotent.
    Install(WireArgs),
    /// Remove only what install added (the settings file, MCP configuration or AGENTS.md is
    /// left as it was).
    Uninstall(WireArgs),
    /// Show where agents are wired, the sessions counted here, and recent hook failures.
    Status,
    /// Answer one agent hook event: its JSON on stdin, the agent's JSON on stdout.
    /// Never fails the agent: problems go to <git-dir>/rune/agent.log.
    Hook {
        /// The agent calling (its event names and payloads): claude (default), codex, gemini,
        /// copilot, cursor, opencode.
        #[arg(long, default_value = "claude")]
        agent: String,
        /// Called by git-rune's Claude Code plugin: does nothing when a settings file wires
        /// git-rune's hook for the same event.
        #[arg(long, hide = true)]
        plugin: bool,
        /// The event in the agent's spelling (Claude Code: SessionStart, PreCompact,
        /// PostToolUse, Stop or SessionEnd).
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
        Agent::Codex | Agent::Gemini | Agent::Copilot | Agent::Cursor | Agent::Opencode => {
            Err(anyhow::anyhow!("{:?} is wired natively", a.agent))
        }
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

/// The agent and scope of a natively wired agent, or `None` for the other targets.
fn native(a: &WireArgs) -> Result<Option<(route::Agent, HookScope)>> {
    let agent = match a.agent {
        Agent::Codex => route::Agent::Codex,
        Agent::Gemini => route::Agent::Gemini,
        Agent::Copilot => route::Agent::Copilot,
        Agent::Cursor => route::Agent::Cursor,
        Agent::Opencode => route::Agent::OpenCode,
        _ => return Ok(None),
    };
    if a.local || a.file.is_some() {
        return Err(error::usage(
            format!("--local and --file are not for {}", agent.as_str()),
            "use --user for your own files, or nothing for the repository's",
        ));
    }
    let scope = if a.user {
        HookScope::User
    } else {
        HookScope::Project
    };
    Ok(Some((agent, scope)))
}

fn wiring_error(e: anyhow::Error) -> anyhow::Error {
    use crate::agent::claude::SettingsError;
    match e.downcast_ref::<SettingsError>() {
        // A file that cannot be read or written (a file where a folder goes, no permission)
        // is in the surroundings; one that reads but is not settings is damaged data.
        Some(s @ SettingsError::Io { path, .. }) => error::environment(
            s.to_string(),
            format!(
                "check that {} can be read and written (a file where a folder goes, or a HOME that is not a folder, stops it), then run the command again; nothing was changed",
                path.display()
            ),
        ),
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
        AgentAction::Hook {
            agent,
            plugin,
            event,
        } => hook_event(ctx, &agent, plugin, &event),
    }
}

fn wire(ctx: &Context, a: &WireArgs, on: bool) -> Result<ExitCode> {
    if let Some((agent, scope)) = native(a)? {
        return wire_native(ctx, agent, scope, on);
    }
    let store = ctx.open_store()?;
    let t = target(a)?;
    let wired = if on {
        install::install(&store, &t)
    } else {
        install::uninstall(&store, &t)
    }
    .map_err(wiring_error)?;
    let out = if ctx.ui.json {
        json::line(&json::AgentWiredJson {
            changed: &wired.entries,
            file_created: wired.file_created,
            file_removed: wired.file_removed,
            installed: on,
            path: wired.path.display().to_string(),
            version: json::VERSION,
        }) + "\n"
    } else {
        wired_text(&wired, on)
    };
    ctx.reported(&out)
}

/// What install (`on`) or uninstall did to one file, in words.
fn wired_text(w: &Wired, on: bool) -> String {
    let shown = w.path.display();
    if w.entries.is_empty() {
        return if on {
            format!("{shown}: already wired\n")
        } else {
            format!("{shown}: nothing of git-rune's to remove\n")
        };
    }
    let verb = if on { "added" } else { "removed" };
    let mut out = format!("{shown}: {verb} {}\n", w.entries.join(", "));
    if w.file_created {
        out.push_str(&format!("{shown}: created\n"));
    }
    if w.file_removed {
        out.push_str(&format!("{shown}: removed (install had created it)\n"));
    }
    out
}

/// git-rune's hook entries in one file, in words.
fn hooks_state(entries: &Result<Vec<String>, String>) -> String {
    match entries {
        Ok(e) if e.is_empty() => "not wired".to_owned(),
        Ok(e) => format!("{} hooks ({})", e.len(), e.join(", ")),
        Err(e) => format!("unreadable: {e}"),
    }
}

fn status(ctx: &Context) -> Result<ExitCode> {
    let store = ctx.open_store()?;
    let st = install::status(&store)?;
    let agents = wiring::status(&store);
    let plugin_in = crate::agent::plugin::enabled_in(store.workdir());
    if ctx.ui.json {
        let agents_json: Vec<_> = agents
            .iter()
            .map(|a| json::NativeAgentJson {
                agent: a.agent.as_str(),
                error: a.hooks.as_ref().err(),
                hooks: a.hooks.as_ref().ok(),
                notes: &a.notes,
                path: a.path.display().to_string(),
                scope: a.scope.as_str(),
            })
            .collect();
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
        return ctx.print_json(&json::AgentStatusJson {
            agents: agents_json,
            agents_md: st
                .agents_md
                .iter()
                .map(|p| p.display().to_string())
                .collect(),
            claude,
            claude_plugin: plugin_in.iter().map(|p| p.display().to_string()).collect(),
            git_rune_on_path: st.on_path,
            hooks_ran_without_git_rune: st.ran_without.as_deref(),
            log: &st.log,
            mcp,
            sessions,
            version: json::VERSION,
        });
    }
    let mut out = String::new();
    for (scope, path, entries) in &st.claude {
        out.push_str(&format!(
            "claude ({}) {}: {}\n",
            scope.as_str(),
            path.display(),
            hooks_state(entries)
        ));
    }
    for p in &plugin_in {
        out.push_str(&format!(
            "claude plugin git-rune: enabled in {} (its hooks step aside for events a settings file wires)\n",
            p.display()
        ));
    }
    for a in &agents {
        out.push_str(&format!(
            "{} ({}) {}: {}\n",
            a.agent.as_str(),
            a.scope.as_str(),
            a.path.display(),
            hooks_state(&a.hooks)
        ));
        for n in &a.notes {
            out.push_str(&format!("  {n}\n"));
        }
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
    let wired = st
        .claude
        .iter()
        .any(|(_, _, e)| e.as_ref().is_ok_and(|e| !e.is_empty()));
    if let Some(when) = &st.ran_without {
        out.push_str(&format!(
            "this clone: the agent's hooks ran without git-rune on PATH (last at {when}) and did nothing; install git-rune where the agent runs, or put it on the agent's PATH\n"
        ));
    }
    if wired && !st.on_path {
        out.push_str("this clone: git-rune is not on PATH here, so the hooks installed above do nothing in an agent started from this shell; put git-rune on PATH\n");
    }
    if st.log.is_empty() {
        out.push_str("agent hook failures: none logged\n");
    } else {
        out.push_str("recent agent hook failures (.git/rune/agent.log):\n");
        for l in &st.log {
            out.push_str(&format!("  {l}\n"));
        }
    }
    ctx.print(&out)
}

/// Never fails: reads stdin, answers in the calling agent's shape, exits 0.
fn hook_event(ctx: &Context, agent: &str, plugin: bool, event: &str) -> Result<ExitCode> {
    let mut input = Vec::new();
    let _ = std::io::stdin().lock().read_to_end(&mut input);
    record_payload(agent, plugin, event, &input);
    let Some(mut agent) = route::Agent::parse(agent) else {
        ctx.ui.warn(format_args!(
            "git-rune: unknown agent {agent:?} (answers claude, codex, gemini, copilot, cursor, opencode)"
        ));
        return Ok(ExitCode::SUCCESS);
    };
    if agent == route::Agent::Claude && !EVENTS.contains(&event) {
        ctx.ui.warn(format_args!(
            "git-rune: unknown agent hook event {event:?} (answers {})",
            EVENTS.join(", ")
        ));
    }
    if agent == route::Agent::Claude {
        let located = crate::store::locate(&ctx.dir);
        let work_tree = located.as_ref().and_then(|l| l.work_tree.clone());
        // The plugin and the settings files never both answer one event.
        if plugin && crate::agent::plugin::settings_wire(work_tree.as_deref(), event) {
            return Ok(ExitCode::SUCCESS);
        }
        // Copilot CLI runs Claude Code's hooks too: when git-rune is wired for Copilot
        // itself, this call steps aside; otherwise it answers as Copilot's hook would.
        if event::parse(&input).is_some_and(|raw| crate::agent::copilot::sent_this(&raw)) {
            if copilot_wired(work_tree.as_deref()) {
                return Ok(ExitCode::SUCCESS);
            }
            agent = route::Agent::Copilot;
        }
    }
    let (claude_event, answer) = match route::map(agent, event, &input) {
        Mapped::Skip => return Ok(ExitCode::SUCCESS),
        Mapped::Run {
            event: claude_event,
            input,
        } => {
            if agent == route::Agent::Claude {
                (claude_event, hook::run(event, &input, &ctx.dir))
            } else {
                (claude_event, hook::run(claude_event, &input, &ctx.dir))
            }
        }
    };
    let out = route::render(agent, event, claude_event, &answer);
    if !out.is_empty() {
        let _ = std::io::stdout().lock().write_all(out.as_bytes());
    }
    Ok(ExitCode::SUCCESS)
}

/// With `GIT_RUNE_HOOK_RECORD=<dir>`, keeps each payload an agent sent as
/// `<dir>/<agent>-<event>-<n>.json`: how the recorded shapes in `tests/fixtures/<agent>/` are
/// taken from the real clients.
fn record_payload(agent: &str, plugin: bool, event: &str, input: &[u8]) {
    let Some(dir) = std::env::var_os("GIT_RUNE_HOOK_RECORD").filter(|d| !d.is_empty()) else {
        return;
    };
    let dir = PathBuf::from(dir);
    let _ = std::fs::create_dir_all(&dir);
    let via = if plugin { "-plugin" } else { "" };
    for n in 1..1000 {
        let path = dir.join(format!("{agent}{via}-{event}-{n}.json"));
        if let Ok(mut f) = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
        {
            let _ = f.write_all(input);
            return;
        }
    }
}

/// Whether git-rune's Copilot CLI hooks are in the repository (or the user's Copilot home).
fn copilot_wired(work_tree: Option<&std::path::Path>) -> bool {
    let spec = &crate::agent::copilot::SPEC;
    let mut files = Vec::new();
    if let Some(w) = work_tree {
        if let Ok(rd) = std::fs::read_dir(w.join(".github/hooks")) {
            files.extend(rd.flatten().map(|e| e.path()));
        }
    }
    let home = std::env::var_os("COPILOT_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".copilot")));
    if let Some(h) = home {
        files.push(h.join("hooks/git-rune.json"));
    }
    files
        .iter()
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .any(|p| crate::agent::hook_file::installed(p, spec).is_ok_and(|e| !e.is_empty()))
}

fn wire_native(ctx: &Context, agent: route::Agent, scope: HookScope, on: bool) -> Result<ExitCode> {
    let store = ctx.open_store()?;
    let done = if on {
        wiring::install(&store, agent, scope)
    } else {
        wiring::uninstall(&store, agent, scope)
    }
    .map_err(wiring_error)?;
    if ctx.ui.json {
        let v = json::NativeWiringJson {
            version: json::VERSION,
            agent: agent.as_str(),
            scope: scope.as_str(),
            installed: on,
            files: done
                .steps
                .iter()
                .map(|s| json::WiredFileJson {
                    path: s.path.display().to_string(),
                    changed: &s.entries,
                    file_created: s.file_created,
                    file_removed: s.file_removed,
                })
                .collect(),
            notes: &done.notes,
        };
        return ctx.reported(&(json::line(&v) + "\n"));
    }
    let mut out: String = done.steps.iter().map(|s| wired_text(s, on)).collect();
    if on {
        for n in &done.notes {
            out.push_str(&format!("note: {n}\n"));
        }
    }
    ctx.reported(&out)
}
