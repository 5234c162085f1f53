//! `git rune agent install|uninstall|status`: wiring agents to memory, and what the wiring
//! did, kept in `<git-dir>/rune/agent.json` so uninstall removes exactly that (the containers
//! install created in a settings file, the file itself, a newline it added).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context as _, Result};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use super::agents_md::{self, Added};
use super::claude::{self, Change};
use super::mcp_config;
use crate::context::session::{self, Session};
use crate::error;
use crate::store::Store;

/// Which Claude Code settings file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// `.claude/settings.json`, shared with the team.
    Project,
    /// `.claude/settings.local.json`, this clone only.
    Local,
    /// `~/.claude/settings.json`, every project of this user.
    User,
}

impl Scope {
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Project => "project",
            Scope::Local => "local",
            Scope::User => "user",
        }
    }
}

/// An MCP client git-rune's server can be registered with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum McpClient {
    /// Claude Code: `.mcp.json` at the top of the work tree (shared with the team).
    Claude,
    /// Cursor: `.cursor/mcp.json`.
    Cursor,
    /// Codex CLI: `~/.codex/config.toml` (Codex reads servers from the user's file only).
    Codex,
    /// Gemini CLI: `.gemini/settings.json`.
    Gemini,
}

impl McpClient {
    pub const ALL: [McpClient; 4] = [
        McpClient::Claude,
        McpClient::Cursor,
        McpClient::Codex,
        McpClient::Gemini,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            McpClient::Claude => "claude",
            McpClient::Cursor => "cursor",
            McpClient::Codex => "codex",
            McpClient::Gemini => "gemini",
        }
    }

    /// Where the client reads its servers.
    pub fn path(self, store: &Store) -> Result<PathBuf> {
        Ok(match self {
            McpClient::Claude => workdir(store)?.join(".mcp.json"),
            McpClient::Cursor => workdir(store)?.join(".cursor/mcp.json"),
            McpClient::Gemini => workdir(store)?.join(".gemini/settings.json"),
            McpClient::Codex => std::env::var_os("CODEX_HOME")
                .filter(|h| !h.is_empty())
                .map(PathBuf::from)
                .map_or_else(
                    || {
                        std::env::var_os("HOME")
                            .filter(|h| !h.is_empty())
                            .map(|h| PathBuf::from(h).join(".codex"))
                            .ok_or_else(|| {
                                // Codex reads its servers from the user's config only: there
                                // is no repository's file to fall back on.
                                error::environment(
                                    "neither CODEX_HOME nor HOME is set: cannot find Codex's config.toml",
                                    "set CODEX_HOME (or HOME) to where Codex keeps its config, then run the command again",
                                )
                            })
                    },
                    Ok,
                )?
                .join("config.toml"),
        })
    }

    fn toml(self) -> bool {
        self == McpClient::Codex
    }
}

/// What to wire.
#[derive(Debug, Clone)]
pub enum Target {
    Claude(Scope),
    /// Register `git rune mcp` with an MCP client.
    Mcp(McpClient),
    /// A file agents read, relative to the work tree (`AGENTS.md` by default).
    AgentsMd(PathBuf),
}

/// What install did, per file, so uninstall undoes exactly that.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(default)]
struct Record {
    claude: BTreeMap<String, ClaudeRecord>,
    agents_md: BTreeMap<String, Added>,
    /// MCP server registrations, per file: what install created there.
    mcp: BTreeMap<String, ClaudeRecord>,
}

#[derive(Debug, Default, Clone, Serialize, Deserialize)]
#[serde(default)]
struct ClaudeRecord {
    created: Vec<String>,
    file_created: bool,
}

/// What install did, kept in `<git-dir>/rune/<name>`: its default when missing or unreadable.
pub(super) fn read_json<T: DeserializeOwned + Default>(store: &Store, name: &str) -> T {
    std::fs::read(store.git_dir().join("rune").join(name))
        .ok()
        .and_then(|d| serde_json::from_slice(&d).ok())
        .unwrap_or_default()
}

pub(super) fn write_json<T: Serialize>(store: &Store, name: &str, r: &T) -> Result<()> {
    let path = store.git_dir().join("rune").join(name);
    let data = serde_json::to_vec_pretty(r)?;
    if let Some(d) = path.parent() {
        std::fs::create_dir_all(d)?;
    }
    crate::files::write_atomic(&path, &data)
        .map(drop)
        .with_context(|| format!("cannot write {}", path.display()))
}

const RECORD: &str = "agent.json";

pub(super) fn workdir(store: &Store) -> Result<&Path> {
    store.workdir().ok_or_else(|| {
        error::environment(
            "bare repository: agents work in a work tree",
            "run this in a clone with a work tree",
        )
    })
}

/// The settings file of `scope`.
pub fn settings_path(store: &Store, scope: Scope) -> Result<PathBuf> {
    Ok(match scope {
        Scope::Project => workdir(store)?.join(".claude/settings.json"),
        Scope::Local => workdir(store)?.join(".claude/settings.local.json"),
        Scope::User => home("the settings")?.join(".claude/settings.json"),
    })
}

/// `$HOME`, where `files` (named in the error) are.
pub(super) fn home(files: &str) -> Result<PathBuf> {
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
        .ok_or_else(|| {
            error::environment(
                format!("HOME is not set: cannot find {files} in your home directory"),
                "set HOME, or install for this repository only (without --user)",
            )
        })
}

fn target_path(store: &Store, target: &Target) -> Result<PathBuf> {
    match target {
        Target::Claude(scope) => settings_path(store, *scope),
        Target::Mcp(client) => client.path(store),
        Target::AgentsMd(file) if file.is_absolute() => Ok(file.clone()),
        Target::AgentsMd(file) => Ok(workdir(store)?.join(file)),
    }
}

fn key(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

/// What install or uninstall did.
#[derive(Debug, Clone)]
pub struct Wired {
    pub path: PathBuf,
    /// Hook entries added or removed (Claude Code), or `["block"]` (AGENTS.md); for the
    /// natively wired agents, what was added or removed there (`SessionStart`,
    /// `mcpServers.git-rune`, …).
    pub entries: Vec<String>,
    pub file_created: bool,
    pub file_removed: bool,
}

impl Wired {
    /// What `c` did to the file at `path`.
    pub(super) fn of(path: &Path, c: &Change) -> Wired {
        Wired {
            path: path.to_owned(),
            entries: c.entries.clone(),
            file_created: c.file_created,
            file_removed: c.file_removed,
        }
    }

    /// What adding or removing one thing (`name`, when `done`) did to the file at `path`.
    pub(super) fn single(
        path: PathBuf,
        name: &str,
        done: bool,
        file_created: bool,
        file_removed: bool,
    ) -> Wired {
        Wired {
            path,
            entries: done.then(|| name.to_owned()).into_iter().collect(),
            file_created,
            file_removed,
        }
    }
}

/// Wires `target`; idempotent.
pub fn install(store: &Store, target: &Target) -> Result<Wired> {
    let path = target_path(store, target)?;
    let mut record: Record = read_json(store, RECORD);
    let (change, files) = match target {
        Target::Claude(_) => (claude::install(&path)?, &mut record.claude),
        Target::Mcp(c) if c.toml() => (mcp_config::install_toml(&path)?, &mut record.mcp),
        Target::Mcp(_) => (mcp_config::install_json(&path)?, &mut record.mcp),
        Target::AgentsMd(_) => {
            let added = agents_md::install(&path)?;
            if added.block {
                record.agents_md.insert(key(&path), added);
                write_json(store, RECORD, &record)?;
            }
            let (block, created) = (added.block, added.file_created);
            return Ok(Wired::single(path, "block", block, created, false));
        }
    };
    if !change.entries.is_empty() {
        let r = files.entry(key(&path)).or_default();
        r.created.extend(change.created.iter().cloned());
        r.file_created |= change.file_created;
    }
    let mut wired = Wired::of(&path, &change);
    // Entries an older install wrote, brought up to date, are told as such.
    wired
        .entries
        .extend(change.upgraded.iter().map(|u| format!("updated {u}")));
    if !wired.entries.is_empty() {
        write_json(store, RECORD, &record)?;
    }
    Ok(wired)
}

/// Removes what install added to `target`.
pub fn uninstall(store: &Store, target: &Target) -> Result<Wired> {
    let path = target_path(store, target)?;
    let mut record: Record = read_json(store, RECORD);
    let files = match target {
        Target::Claude(_) => &mut record.claude,
        Target::Mcp(_) => &mut record.mcp,
        Target::AgentsMd(_) => {
            let how = record.agents_md.remove(&key(&path));
            let removed = agents_md::uninstall(&path, how)?;
            write_json(store, RECORD, &record)?;
            let file_removed = removed && !path.exists();
            return Ok(Wired::single(path, "block", removed, false, file_removed));
        }
    };
    let r = files.remove(&key(&path));
    let created = r.as_ref().map(|r| r.created.as_slice());
    let file_created = r.as_ref().is_some_and(|r| r.file_created);
    let change = match target {
        Target::Mcp(c) if c.toml() => mcp_config::uninstall_toml(&path, created, file_created)?,
        Target::Mcp(_) => mcp_config::uninstall_json(&path, created, file_created)?,
        _ => claude::uninstall(&path, created, file_created)?,
    };
    write_json(store, RECORD, &record)?;
    Ok(Wired::of(&path, &change))
}

/// How the wiring stands.
#[derive(Debug)]
pub struct Status {
    /// Per Claude Code settings file: its scope, path and git-rune's entries there (or why
    /// it could not be read).
    pub claude: Vec<(Scope, PathBuf, Result<Vec<String>, String>)>,
    /// Files with the block.
    pub agents_md: Vec<PathBuf>,
    /// Per MCP client: where it reads servers, and whether git-rune's is there (or why the
    /// file could not be read).
    pub mcp: Vec<(McpClient, PathBuf, Result<bool, String>)>,
    /// Sessions counted in this clone, newest first.
    pub sessions: Vec<Session>,
    /// The last lines of the agent log.
    pub log: Vec<String>,
    /// When git-rune's agent hooks last ran in this clone where git-rune was not on PATH
    /// (they did nothing then), if they did.
    pub ran_without: Option<String>,
    /// Whether `git-rune` is on this process's PATH (the hooks run it by that name).
    pub on_path: bool,
}

pub fn status(store: &Store) -> Result<Status> {
    let mut claude_files = Vec::new();
    for scope in [Scope::Project, Scope::Local, Scope::User] {
        let Ok(path) = settings_path(store, scope) else {
            continue;
        };
        let entries = claude::installed(&path).map_err(|e| e.to_string());
        claude_files.push((scope, path, entries));
    }
    let record: Record = read_json(store, RECORD);
    let mut candidates: Vec<PathBuf> = record.agents_md.keys().map(PathBuf::from).collect();
    if let Some(w) = store.workdir() {
        for name in ["AGENTS.md", "CLAUDE.md", "GEMINI.md"] {
            let p = w.join(name);
            if !candidates.contains(&p) {
                candidates.push(p);
            }
        }
    }
    let agents_md = candidates
        .into_iter()
        .filter(|p| agents_md::installed(p).unwrap_or(false))
        .collect();
    let mut mcp = Vec::new();
    for client in McpClient::ALL {
        let Ok(path) = client.path(store) else {
            continue;
        };
        let there = if client.toml() {
            mcp_config::installed_toml(&path)
        } else {
            mcp_config::installed_json(&path)
        };
        mcp.push((client, path, there.map_err(|e| e.to_string())));
    }
    Ok(Status {
        claude: claude_files,
        agents_md,
        mcp,
        sessions: session::all(store.git_dir()),
        log: super::answer::recent_log(store.git_dir(), 5),
        ran_without: super::answer::ran_without(store.git_dir()),
        on_path: on_path("git-rune"),
    })
}

/// Whether `program` is an executable file in a directory of PATH.
fn on_path(program: &str) -> bool {
    std::env::var_os("PATH").is_some_and(|paths| {
        std::env::split_paths(&paths).any(|d| {
            let p = d.join(program);
            std::fs::metadata(&p).is_ok_and(|m| m.is_file() && is_executable(&m))
        })
    })
}

#[cfg(unix)]
fn is_executable(m: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::PermissionsExt as _;
    m.permissions().mode() & 0o111 != 0
}

#[cfg(not(unix))]
fn is_executable(_: &std::fs::Metadata) -> bool {
    true
}
