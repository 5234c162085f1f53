//! `git rune agent install|uninstall|status` for the agents with hooks of their own (Codex,
//! Gemini CLI, Copilot CLI, Cursor, OpenCode): everything one agent supports in one command —
//! its hooks, the MCP server, the AGENTS.md block where its hooks may not reach the model, and
//! Codex's trust step — each file edited in place, what was added kept in
//! `<git-dir>/rune/agent-wiring.json` so uninstall takes out exactly that.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::Result;
use serde::{Deserialize, Serialize};

use super::hook_file::{self, Spec};
use super::install::{self, McpClient, Target};
use super::route::Agent;
use super::{codex, copilot, cursor, gemini, mcp_config, opencode};
use crate::error;
use crate::store::Store;

/// Where an agent's hooks go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HookScope {
    /// The repository's own files, shared with the team.
    Project,
    /// The user's files, for every project.
    User,
}

impl HookScope {
    pub fn as_str(self) -> &'static str {
        match self {
            HookScope::Project => "project",
            HookScope::User => "user",
        }
    }
}

/// The hook file layout of an agent with command hooks.
pub fn spec(agent: Agent) -> Option<&'static Spec> {
    match agent {
        Agent::Codex => Some(&codex::SPEC),
        Agent::Gemini => Some(&gemini::SPEC),
        Agent::Copilot => Some(&copilot::SPEC),
        Agent::Cursor => Some(&cursor::SPEC),
        Agent::Claude | Agent::OpenCode => None,
    }
}

fn home() -> Result<PathBuf> {
    install::home("the agent's files")
}

/// The file an agent reads its hooks from (OpenCode: git-rune's plugin module).
pub fn hooks_path(store: &Store, agent: Agent, scope: HookScope) -> Result<PathBuf> {
    let project = |rel: &str| -> Result<PathBuf> { Ok(install::workdir(store)?.join(rel)) };
    Ok(match (agent, scope) {
        (Agent::Codex, HookScope::Project) => project(".codex/hooks.json")?,
        (Agent::Codex, HookScope::User) => codex::home_dir()
            .ok_or_else(|| {
                error::environment(
                    "neither CODEX_HOME nor HOME is set",
                    "set one of them, or install for this repository only",
                )
            })?
            .join("hooks.json"),
        (Agent::Gemini, HookScope::Project) => project(".gemini/settings.json")?,
        (Agent::Gemini, HookScope::User) => home()?.join(".gemini/settings.json"),
        (Agent::Copilot, HookScope::Project) => project(copilot::FILE)?,
        (Agent::Copilot, HookScope::User) => copilot_home()?.join("hooks").join("git-rune.json"),
        (Agent::Cursor, HookScope::Project) => project(".cursor/hooks.json")?,
        (Agent::Cursor, HookScope::User) => home()?.join(".cursor/hooks.json"),
        (Agent::OpenCode, HookScope::Project) => project(".opencode/plugin")?.join(opencode::FILE),
        (Agent::OpenCode, HookScope::User) => opencode::user_dir()
            .ok_or_else(|| {
                error::environment(
                    "neither XDG_CONFIG_HOME nor HOME is set",
                    "set one of them, or install for this repository only",
                )
            })?
            .join(opencode::FILE),
        (Agent::Claude, _) => {
            return Err(anyhow::anyhow!("claude is wired by the claude target"));
        }
    })
}

fn copilot_home() -> Result<PathBuf> {
    match std::env::var_os("COPILOT_HOME").filter(|h| !h.is_empty()) {
        Some(h) => Ok(PathBuf::from(h)),
        None => Ok(home()?.join(".copilot")),
    }
}

/// Where the agent's MCP servers are registered, and in which shape.
enum Mcp {
    /// Through the MCP targets of `install` (recorded there).
    Client(McpClient),
    /// `mcpServers` in this JSON file (Gemini CLI's user settings).
    Json(PathBuf),
    /// Not registered (OpenCode: its plugin carries the briefing).
    None,
}

fn mcp(store: &Store, agent: Agent, scope: HookScope) -> Result<Mcp> {
    Ok(match (agent, scope) {
        (Agent::Codex, _) => Mcp::Client(McpClient::Codex),
        (Agent::Gemini, HookScope::Project) => Mcp::Client(McpClient::Gemini),
        (Agent::Gemini, HookScope::User) => Mcp::Json(hooks_path(store, agent, scope)?),
        (Agent::Cursor, HookScope::Project) => Mcp::Client(McpClient::Cursor),
        (Agent::Cursor, HookScope::User) => Mcp::Json(home()?.join(".cursor/mcp.json")),
        (Agent::Copilot, HookScope::Project) => Mcp::Client(McpClient::Claude),
        (Agent::Copilot, HookScope::User) => Mcp::Json(copilot_home()?.join("mcp-config.json")),
        (Agent::OpenCode, _) | (Agent::Claude, _) => Mcp::None,
    })
}

/// Whether install also writes the AGENTS.md block: for the agents whose session start is
/// not proven to put context before the model (Cursor, whose CLI is not on the npm registry).
fn needs_instructions(agent: Agent, scope: HookScope) -> bool {
    agent == Agent::Cursor && scope == HookScope::Project
}

/// What install did for one agent and scope.
#[derive(Debug, Default, Clone, Serialize, Deserialize)]
#[serde(default)]
struct Done {
    hooks_path: String,
    created: Vec<String>,
    file_created: bool,
    /// Codex: the trust recorded in the user's config.toml.
    trust: Option<(String, codex::Trusted)>,
    /// Gemini and Cursor at user scope: `mcpServers` registered in this file by this module.
    mcp_json: Option<(String, Vec<String>, bool)>,
}

#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(default)]
struct Record {
    /// `<agent>/<scope>` → what install did.
    done: BTreeMap<String, Done>,
}

const RECORD: &str = "agent-wiring.json";

fn key(agent: Agent, scope: HookScope) -> String {
    format!("{}/{}", agent.as_str(), scope.as_str())
}

/// One file install or uninstall changed, and how.
pub use super::install::Wired as Step;

/// What install or uninstall did, and what the user must know (a trust step, a limit).
#[derive(Debug, Default)]
pub struct Outcome {
    pub steps: Vec<Step>,
    pub notes: Vec<String>,
}

/// Wires `agent` at `scope`: hooks, MCP server, trust, instruction file. Idempotent. Nothing
/// is written when a file on the way is invalid: every file is checked before the first
/// write.
pub fn install(store: &Store, agent: Agent, scope: HookScope) -> Result<Outcome> {
    let path = hooks_path(store, agent, scope)?;
    let mcp = mcp(store, agent, scope)?;
    preflight(store, agent, &path, &mcp)?;
    let mut record: Record = install::read_json(store, RECORD);
    let mut out = Outcome::default();
    let done = record.done.entry(key(agent, scope)).or_default();
    done.hooks_path = path.display().to_string();
    match spec(agent) {
        Some(spec) => {
            let c = hook_file::install(&path, spec)?;
            if !c.entries.is_empty() {
                done.created.extend(c.created.iter().cloned());
                done.file_created |= c.file_created;
            }
            out.steps.push(Step::of(&path, &c));
        }
        None => {
            let wrote = opencode::install(&path)?;
            done.file_created |= wrote;
            let step = Step::single(path.clone(), "plugin", wrote, wrote, false);
            out.steps.push(step);
        }
    }
    match &mcp {
        Mcp::Client(client) => out
            .steps
            .push(install::install(store, &Target::Mcp(*client))?),
        Mcp::Json(file) => {
            let c = mcp_config::install_json(file)?;
            if !c.entries.is_empty() {
                done.mcp_json = Some((
                    file.display().to_string(),
                    c.created.clone(),
                    c.file_created,
                ));
            }
            out.steps.push(Step::of(file, &c));
        }
        Mcp::None => {}
    }
    if needs_instructions(agent, scope) {
        let target = Target::AgentsMd(PathBuf::from("AGENTS.md"));
        out.steps.push(install::install(store, &target)?);
    }
    if agent == Agent::Codex {
        let config = codex_config()?;
        let entries = codex::trust_entries(&path)?;
        let t = codex::trust(&config, &entries)?;
        if !t.keys.is_empty() {
            out.steps.push(Step {
                path: config.clone(),
                entries: state_entries(&t.keys),
                file_created: t.file_created,
                file_removed: false,
            });
            match &mut done.trust {
                Some((_, old)) => {
                    old.keys.extend(t.keys);
                    old.created.extend(t.created);
                    old.file_created |= t.file_created;
                }
                None => done.trust = Some((config.display().to_string(), t)),
            }
        }
        out.notes.push(format!(
            "codex runs a hook only once it is trusted: git-rune recorded trust for its own hooks in {} (as codex's /hooks review does); if you edit them, review them again with /hooks",
            config.display()
        ));
        if scope == HookScope::Project {
            let root = install::workdir(store)?;
            if !codex::project_trusted(&config, root).unwrap_or(false) {
                out.notes.push(format!(
                    "codex reads .codex/ only in a trusted project, and {} is not trusted yet: codex asks when you start it there; `codex exec` does not ask and skips the hooks (trust the project once in codex, or install with --user)",
                    root.display()
                ));
            }
        }
    }
    if agent == Agent::Copilot {
        out.notes.push(
            "copilot loads a repository's hooks once you trust the folder (it asks at the first start there)"
                .into(),
        );
        if claude_wired(store) {
            out.notes.push("git-rune's Claude Code hooks are wired too (copilot runs .claude/settings.json hooks): they step aside when copilot calls them, so a tool is counted once".into());
        }
    }
    if agent == Agent::Cursor {
        out.notes.push("cursor's agent CLI cannot be run here to prove its session start reaches the model: the AGENTS.md block and the MCP server carry memory as well".into());
    }
    install::write_json(store, RECORD, &record)?;
    Ok(out)
}

/// Checks every file install will touch parses, so an invalid one stops install before any
/// write.
fn preflight(store: &Store, agent: Agent, path: &Path, mcp: &Mcp) -> Result<()> {
    if let Some(spec) = spec(agent) {
        hook_file::installed(path, spec)?;
    } else {
        opencode::installed(path)?;
    }
    match mcp {
        Mcp::Client(McpClient::Codex) => {
            mcp_config::installed_toml(&McpClient::Codex.path(store)?)?;
        }
        Mcp::Client(c) => {
            mcp_config::installed_json(&c.path(store)?)?;
        }
        Mcp::Json(f) => {
            mcp_config::installed_json(f)?;
        }
        Mcp::None => {}
    }
    if agent == Agent::Codex {
        codex::project_trusted(&codex_config()?, Path::new("/"))?;
    }
    Ok(())
}

/// Codex's trust keys as the entries of a step (`hooks.state."<key>"`).
fn state_entries(keys: &[String]) -> Vec<String> {
    keys.iter()
        .map(|k| format!("hooks.state.\"{k}\""))
        .collect()
}

fn codex_config() -> Result<PathBuf> {
    Ok(codex::home_dir()
        .ok_or_else(|| {
            error::environment(
                "neither CODEX_HOME nor HOME is set",
                "set one of them so git-rune can find codex's config.toml",
            )
        })?
        .join("config.toml"))
}

/// Removes what install added for `agent` at `scope`.
pub fn uninstall(store: &Store, agent: Agent, scope: HookScope) -> Result<Outcome> {
    let path = hooks_path(store, agent, scope)?;
    let mut record: Record = install::read_json(store, RECORD);
    let done = record.done.remove(&key(agent, scope));
    let mut out = Outcome::default();
    if let Some((config, t)) = done.as_ref().and_then(|d| d.trust.as_ref()) {
        let config = PathBuf::from(config);
        if codex::untrust(&config, t)? {
            out.steps.push(Step {
                path: config.clone(),
                entries: state_entries(&t.keys),
                file_created: false,
                file_removed: !config.exists(),
            });
        }
    }
    match mcp(store, agent, scope)? {
        Mcp::Client(client) => out
            .steps
            .push(install::uninstall(store, &Target::Mcp(client))?),
        Mcp::Json(file) => {
            let (created, file_created) = done
                .as_ref()
                .and_then(|d| d.mcp_json.as_ref())
                .map_or((None, false), |(_, c, f)| (Some(c.clone()), *f));
            let c = mcp_config::uninstall_json(&file, created.as_deref(), file_created)?;
            out.steps.push(Step::of(&file, &c));
        }
        Mcp::None => {}
    }
    match spec(agent) {
        Some(_) => {
            let created = done.as_ref().map(|d| d.created.as_slice());
            let file_created = done.as_ref().is_some_and(|d| d.file_created);
            let c = hook_file::uninstall(&path, created, file_created)?;
            out.steps.push(Step::of(&path, &c));
        }
        None => {
            let removed = opencode::uninstall(&path)?;
            let step = Step::single(path.clone(), "plugin", removed, false, removed);
            out.steps.push(step);
        }
    }
    if needs_instructions(agent, scope) {
        let target = Target::AgentsMd(PathBuf::from("AGENTS.md"));
        out.steps.push(install::uninstall(store, &target)?);
    }
    install::write_json(store, RECORD, &record)?;
    Ok(out)
}

/// How one agent is wired at one scope.
#[derive(Debug)]
pub struct AgentStatus {
    pub agent: Agent,
    pub scope: HookScope,
    pub path: PathBuf,
    /// git-rune's hook entries there (OpenCode: `plugin`, or `plugin (outdated)`), or why the
    /// file could not be read.
    pub hooks: Result<Vec<String>, String>,
    /// What stands between the wiring and the agent running it (trust), or a limit.
    pub notes: Vec<String>,
}

/// The wiring of every agent this module wires (Claude Code has its own path) at both scopes.
pub fn status(store: &Store) -> Vec<AgentStatus> {
    let mut out = Vec::new();
    for agent in Agent::ALL.into_iter().filter(|a| *a != Agent::Claude) {
        for scope in [HookScope::Project, HookScope::User] {
            let Ok(path) = hooks_path(store, agent, scope) else {
                continue;
            };
            let hooks = match spec(agent) {
                Some(spec) => hook_file::installed(&path, spec).map_err(|e| e.to_string()),
                None => match (opencode::installed(&path), opencode::current(&path)) {
                    (Ok(false), _) => Ok(Vec::new()),
                    (Ok(true), Ok(true)) => Ok(vec!["plugin".into()]),
                    (Ok(true), _) => Ok(vec!["plugin (outdated: run install again)".into()]),
                    (Err(e), _) => Err(e.to_string()),
                },
            };
            let mut notes = Vec::new();
            let wired = hooks.as_ref().is_ok_and(|h| !h.is_empty());
            if wired && agent == Agent::Codex {
                notes.extend(codex_notes(store, &path, scope));
            }
            if wired && agent == Agent::Copilot && claude_wired(store) {
                notes.push("also wired for Claude Code, whose hooks copilot runs too: those step aside for copilot's calls".into());
            }
            out.push(AgentStatus {
                agent,
                scope,
                path,
                hooks,
                notes,
            });
        }
    }
    out
}

fn codex_notes(store: &Store, hooks: &Path, scope: HookScope) -> Vec<String> {
    let mut notes = Vec::new();
    let Ok(config) = codex_config() else {
        return notes;
    };
    match codex::trust_state(hooks, &config) {
        Ok(t) if t.untrusted.is_empty() => notes.push(format!(
            "trusted in {} ({} hooks)",
            config.display(),
            t.trusted
        )),
        Ok(t) => notes.push(format!(
            "NOT trusted: codex skips {} of git-rune's hooks ({}); run `git rune agent install codex{}` again, or review them with /hooks in codex",
            t.untrusted.len(),
            t.untrusted.join(", "),
            if scope == HookScope::User { " --user" } else { "" }
        )),
        Err(e) => notes.push(format!("trust not known: {e}")),
    }
    if scope == HookScope::Project {
        if let Ok(root) = install::workdir(store) {
            match codex::project_trusted(&config, root) {
                Ok(true) => notes.push("project trusted".into()),
                Ok(false) => notes.push(format!(
                    "project {} NOT trusted by codex: it skips .codex/ (and `codex exec` does so without a word) until you trust it",
                    root.display()
                )),
                Err(e) => notes.push(format!("project trust not known: {e}")),
            }
        }
    }
    notes
}

/// Whether git-rune's Claude Code hooks are in any of Claude Code's settings files.
pub fn claude_wired(store: &Store) -> bool {
    [
        install::Scope::Project,
        install::Scope::Local,
        install::Scope::User,
    ]
    .into_iter()
    .filter_map(|s| install::settings_path(store, s).ok())
    .any(|p| super::claude::installed(&p).is_ok_and(|e| !e.is_empty()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The events each agent's table in docs/agents.md names, in backticks.
    fn documented(heading: &str) -> Vec<String> {
        let doc =
            std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/agents.md"))
                .unwrap();
        let at = doc
            .find(&format!("\n### {heading}\n"))
            .unwrap_or_else(|| panic!("docs/agents.md has no table for {heading}"));
        let row = doc[at..]
            .lines()
            .find(|l| l.starts_with("| events wired |"))
            .unwrap();
        row.split('`')
            .skip(1)
            .step_by(2)
            .map(str::to_owned)
            .collect()
    }

    /// docs/agents.md's tables name exactly the events install wires.
    #[test]
    fn the_docs_tables_name_the_events_wired() {
        for (agent, heading) in [
            (Agent::Codex, "Codex CLI"),
            (Agent::Gemini, "Gemini CLI"),
            (Agent::Copilot, "GitHub Copilot CLI"),
            (Agent::Cursor, "Cursor"),
        ] {
            let wired: Vec<String> = spec(agent)
                .unwrap()
                .events
                .iter()
                .map(|(e, _)| (*e).to_owned())
                .collect();
            assert_eq!(documented(heading), wired, "{heading}");
        }
        for event in documented("OpenCode") {
            assert!(
                opencode::PLUGIN.contains(&format!("\"{event}\"")),
                "{event}"
            );
        }
    }
}
