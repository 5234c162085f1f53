//! The `--json` shapes of the commands' own results (status, save, log, init, agent, context,
//! mode, task consolidate, install-man, hooks, verify, repair, remote list, native agent
//! wiring), each a typed struct whose fields are
//! declared in the order the output prints them (docs/json.md). Records and the briefing are
//! mapped in `json/mod.rs`.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

use super::DriftJson;
/// `git rune status --json`.
#[derive(Serialize)]
pub struct StatusJson<'a> {
    pub bare: bool,
    /// Whether the `.rune/` view is checked out in this work tree.
    pub checked_out: bool,
    pub branch: &'a Option<String>,
    pub drift: DriftJson<'a>,
    pub head: Option<String>,
    /// Where memory goes: each remote, whether memory is pushed there, and why.
    pub remotes: Vec<RemoteJson>,
    pub version: u32,
    pub view: Vec<ViewFileJson>,
    /// The other files under `.rune/` that memory stores (documents, the seed's record
    /// files), when not clean.
    pub documents: Vec<ViewFileJson>,
    /// Files under `.rune/` memory does not store.
    pub unstored: Vec<UnstoredJson>,
    /// The last save failed, and none succeeded since: the one line saying where and what
    /// to do.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub save_failure: Option<String>,
    /// Hooks whose last run failed, git going on without them: one line each, saying which,
    /// when, and what to do.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub hook_failures: Vec<String>,
}

/// One remote in `status --json`: `memory` is whether memory goes there, `why` one of
/// `opted-in`, `set-up-before`, `opted-out`, `not-opted-in`, `upstream`.
#[derive(Serialize)]
pub struct RemoteJson {
    pub remote: String,
    pub memory: bool,
    pub why: &'static str,
}

/// `git rune repair --json`.
#[derive(Serialize)]
pub struct RepairJson<'a> {
    pub version: u32,
    pub remote: &'a str,
    pub replaced: &'a [String],
    pub removed: &'a [String],
    /// Refs not damaged but not readable here (a newer layout).
    pub left: Vec<RefReasonJson<'a>>,
    /// Refs that moved meanwhile.
    pub failed: Vec<RefReasonJson<'a>>,
}

/// A ref and why it was left as it was.
#[derive(Serialize)]
pub struct RefReasonJson<'a> {
    #[serde(rename = "ref")]
    pub remote_ref: &'a str,
    pub reason: &'a str,
}

/// `git rune agent install|uninstall <codex|gemini|copilot|cursor|opencode> --json`.
#[derive(Serialize)]
pub struct NativeWiringJson<'a> {
    pub version: u32,
    pub agent: &'a str,
    pub scope: &'a str,
    pub installed: bool,
    pub files: Vec<WiredFileJson<'a>>,
    pub notes: &'a [String],
}

/// One file the native wiring wrote or cleaned.
#[derive(Serialize)]
pub struct WiredFileJson<'a> {
    pub path: String,
    pub changed: &'a [String],
    pub file_created: bool,
    pub file_removed: bool,
}

/// One view file and its state (`clean`, `modified`, `added`, `missing`).
#[derive(Serialize)]
pub struct ViewFileJson {
    pub file: String,
    pub state: &'static str,
}

/// A file memory does not store: `local` by design, or `refused` (binary, too large).
#[derive(Serialize)]
pub struct UnstoredJson {
    pub file: String,
    pub reason: String,
    pub state: &'static str,
}

/// `git rune save --json`.
#[derive(Serialize)]
pub struct SaveJson<'a> {
    pub added: usize,
    pub changed: usize,
    /// Ref → the commit written on it.
    pub commits: BTreeMap<&'a str, String>,
    pub files: Vec<&'a str>,
    pub removed: usize,
    pub summary: &'a str,
    pub version: u32,
}

/// One line of `git rune log --json`.
#[derive(Serialize)]
pub struct LogJson<'a> {
    pub commit: String,
    pub records: Option<u64>,
    #[serde(rename = "ref")]
    pub refname: &'a str,
    pub summary: &'a str,
    pub time: Option<String>,
    pub version: u32,
}

/// `git rune init --json`.
#[derive(Serialize)]
pub struct InitJson<'a> {
    pub actions: &'a [String],
    pub version: u32,
}

// The shapes below were `json!` objects in the command files; their fields are declared in
// the order those printed them (serde_json's maps sort keys), so the output is unchanged.

/// `git rune resume --json`: the checkpoint as `show checkpoint --json` gives it.
#[derive(Serialize)]
pub struct ResumeJson {
    pub checkpoint: Value,
    pub version: u32,
}

/// `git rune restore --json`: the view files rendered again.
#[derive(Serialize)]
pub struct RestoreJson {
    pub restored: Vec<String>,
    pub version: u32,
}

/// `git rune agent install|uninstall --json`: what changed in which file.
#[derive(Serialize)]
pub struct AgentWiredJson<'a> {
    pub changed: &'a [String],
    pub file_created: bool,
    pub file_removed: bool,
    pub installed: bool,
    pub path: String,
    pub version: u32,
}

/// `git rune agent status --json`.
#[derive(Serialize)]
pub struct AgentStatusJson<'a> {
    /// The natively wired agents (Codex, Gemini CLI, Copilot CLI, Cursor, OpenCode).
    pub agents: Vec<NativeAgentJson<'a>>,
    pub agents_md: Vec<String>,
    pub claude: Vec<ClaudeScopeJson<'a>>,
    /// Settings files that enable git-rune's Claude Code plugin.
    pub claude_plugin: Vec<String>,
    pub git_rune_on_path: bool,
    /// When the agent hooks last ran in this clone without git-rune on PATH.
    pub hooks_ran_without_git_rune: Option<&'a str>,
    pub log: &'a [String],
    pub mcp: Vec<McpClientJson<'a>>,
    pub sessions: Vec<AgentSessionJson<'a>>,
    pub version: u32,
}

/// One natively wired agent's file in `agent status --json`: its hooks, or why it cannot be
/// read, and what to know (a trust step, a feature flag).
#[derive(Serialize)]
pub struct NativeAgentJson<'a> {
    pub agent: &'static str,
    pub error: Option<&'a String>,
    pub hooks: Option<&'a Vec<String>>,
    pub notes: &'a [String],
    pub path: String,
    pub scope: &'static str,
}

/// One Claude Code settings file in `agent status --json`: its hooks, or why it cannot be read.
#[derive(Serialize)]
pub struct ClaudeScopeJson<'a> {
    pub error: Option<&'a String>,
    pub hooks: Option<&'a Vec<String>>,
    pub path: String,
    pub scope: &'static str,
}

/// One MCP client's config in `agent status --json`.
#[derive(Serialize)]
pub struct McpClientJson<'a> {
    pub client: &'static str,
    pub error: Option<&'a String>,
    pub path: String,
    pub registered: Option<&'a bool>,
}

/// One agent session in `agent status --json`.
#[derive(Serialize)]
pub struct AgentSessionJson<'a> {
    pub id: &'a str,
    pub started: &'a str,
    pub status: &'static str,
    pub tool_calls: u32,
}

/// `git rune context status --json`.
#[derive(Serialize)]
pub struct HealthJson<T: Serialize> {
    pub health: T,
    pub version: u32,
}

/// `git rune context budget --json`.
#[derive(Serialize)]
pub struct BudgetJson<T: Serialize> {
    pub budget: T,
    pub version: u32,
}

/// `git rune context artifacts --json`.
#[derive(Serialize)]
pub struct ArtifactsJson {
    pub artifacts: Vec<ArtifactJson>,
    pub version: u32,
}

/// One folded output.
#[derive(Serialize)]
pub struct ArtifactJson {
    pub bytes: u64,
    pub path: String,
}

/// `git rune mode --json`.
#[derive(Serialize)]
pub struct ModeJson {
    pub density: &'static str,
    pub density_source: &'static str,
    pub mode: Option<String>,
    pub version: u32,
}

/// `git rune task consolidate --json`.
#[derive(Serialize)]
pub struct ConsolidateJson {
    pub dry_run: bool,
    pub groups: Vec<ConsolidateGroupJson>,
    pub summary: Value,
    pub version: u32,
}

/// One group consolidation made (or would make).
#[derive(Serialize)]
pub struct ConsolidateGroupJson {
    pub by_cap: bool,
    pub criteria: Vec<&'static str>,
    pub members: Vec<String>,
    pub task_id: Option<String>,
    pub title: String,
}

/// `git rune install-man --json`: where the pages went and how many were written.
#[derive(Serialize)]
pub struct InstallManJson<'a> {
    pub version: u32,
    pub dir: &'a std::path::Path,
    pub written: usize,
}

/// `git rune hooks … --json`: each hook's state (`installed`, `chained`, `absent`).
#[derive(Serialize)]
pub struct HooksJson<'a> {
    pub dir: &'a std::path::Path,
    pub hooks: BTreeMap<&'static str, &'static str>,
    pub version: u32,
}

/// One finding line of `git rune verify --json` (fields in this order).
#[derive(Serialize)]
pub struct FindingJson<'a> {
    pub verdict: &'static str,
    #[serde(rename = "ref")]
    pub refname: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub record: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<&'a str>,
    pub rule: &'a str,
    pub detail: &'a str,
    /// The text the rule matched, with `--show-text` only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub excerpt: Option<&'a str>,
}

/// The closing line of `git rune verify --json`.
#[derive(Serialize)]
pub struct VerifyJson {
    pub findings: usize,
    pub records: usize,
    pub refs: usize,
    pub verdict: &'static str,
    pub version: u32,
}
