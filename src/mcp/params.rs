//! The arguments of the MCP tools: one typed struct per tool, whose doc comments and serde
//! attributes are the JSON schema MCP clients see (`tools/list`).

use schemars::JsonSchema;
use serde::Deserialize;

/// The budget `memory_load` and the `resume` prompt use when none is given.
pub const DEFAULT_BUDGET: usize = 2000;

fn default_budget() -> usize {
    DEFAULT_BUDGET
}

/// Arguments of `memory_load`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LoadParams {
    /// Token budget for the briefing (estimated as characters / 4). Default 2000.
    #[serde(default = "default_budget")]
    pub budget: usize,
    /// The role the session works in. Role memories are not recorded yet: accepted, and the
    /// briefing is the same for every role.
    #[serde(default)]
    pub role: Option<String>,
    /// Memory as it was when this code commit was made (any revision: HEAD~3, a branch, an
    /// id). Omit for memory now.
    #[serde(default)]
    pub at: Option<String>,
}

/// Arguments of `memory_search`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchParams {
    /// Words to look for, e.g. "database migrations" or "why is the cache keyed by path".
    pub query: String,
    /// Record kinds to search: "decision", "learning", "convention", "task", "echo". Default: all.
    #[serde(default)]
    pub kinds: Vec<String>,
    /// At most this many results (default 10).
    #[serde(default)]
    pub limit: Option<usize>,
}

/// Arguments of `memory_show`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ShowParams {
    /// Which records: decisions, conventions, learnings, instincts, progress, checkpoint,
    /// session-log, cumulative-notes, task-notes or invariants.
    pub kind: String,
    /// Only records whose text contains this (case-insensitive).
    #[serde(default)]
    pub contains: Option<String>,
    /// Only records about this file (a path relative to the repository root).
    #[serde(default)]
    pub file: Option<String>,
    /// Only the newest N matching records.
    #[serde(default)]
    pub limit: Option<usize>,
    /// Memory as it was when this code commit was made. Omit for memory now.
    #[serde(default)]
    pub at: Option<String>,
}

/// Arguments of `record_decision`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DecisionParams {
    /// Short title, e.g. "Use SQLite for the local cache".
    pub title: String,
    /// Why the decision was needed.
    pub context: String,
    /// What was decided.
    pub decision: String,
    /// Why this approach over the alternatives.
    pub rationale: String,
    /// What files or modules are affected.
    pub impact: String,
    /// Files the decision is about; memory marks the decision stale when they change.
    #[serde(default)]
    pub files: Vec<String>,
}

/// Arguments of `record_learning`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LearningParams {
    /// Kind of learning: insight, error, performance, convention or decision.
    #[serde(rename = "type")]
    pub ltype: String,
    /// Short dedup key, e.g. "flaky-port-tests"; a later learning with the same key and
    /// type replaces this one.
    pub key: String,
    /// One or two sentences, in causal language ("X happens because Y").
    pub insight: String,
    /// How certain, from 0.1 (hunch) to 1.0. Default 0.7.
    #[serde(default)]
    pub confidence: Option<f64>,
    /// Which skill or tool produced the learning.
    #[serde(default)]
    pub skill: Option<String>,
    /// Affected files; memory marks the learning stale when they change.
    #[serde(default)]
    pub files: Vec<String>,
}

/// Arguments of `record_convention`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ConventionParams {
    /// Short title of the convention.
    pub title: String,
    /// What the convention is.
    pub pattern: String,
    /// A code example showing it.
    #[serde(default)]
    pub example: Option<String>,
    /// Where it applies, e.g. "src/api/**".
    #[serde(default)]
    pub applies_to: Option<String>,
}

/// Arguments of `set_checkpoint`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CheckpointParams {
    /// The exact task and sub-step in progress.
    pub doing: String,
    /// Remaining steps, in order.
    #[serde(default)]
    pub left: Vec<String>,
    /// Things the next session needs that are not in the code.
    #[serde(default)]
    pub context: Vec<String>,
    /// The instruction for the next session to pick up from, e.g. "implement validate() in
    /// src/auth.rs:47".
    #[serde(default)]
    pub resume: Option<String>,
}

/// Arguments of `task_add`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TaskAddParams {
    /// What is to be done, in a few words.
    pub title: String,
    /// P1 (urgent), P2 or P3.
    #[serde(default)]
    pub priority: Option<String>,
    /// BUGFIX, FEATURE, CONFIG, DOCS, TEST or REFACTOR.
    #[serde(default)]
    pub category: Option<String>,
    /// What the next session needs to know about it: pitfalls, where to start.
    #[serde(default)]
    pub context: Option<String>,
    /// Files it concerns, as "path" or "path:line".
    #[serde(default)]
    pub files: Vec<String>,
}

/// Arguments of `task_update`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TaskUpdateParams {
    /// The task's id, e.g. "TASK_003" (or 3).
    pub id: String,
    /// pending, in_progress or completed.
    #[serde(default)]
    pub status: Option<String>,
    #[serde(default)]
    pub title: Option<String>,
    #[serde(default)]
    pub priority: Option<String>,
    #[serde(default)]
    pub category: Option<String>,
    #[serde(default)]
    pub context: Option<String>,
    /// Replaces the task's files.
    #[serde(default)]
    pub files: Option<Vec<String>>,
}

/// Arguments of `memory_why`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WhyParams {
    /// A commit (any revision: HEAD~2, a branch, an id) or "<file>:<line>" for the commit
    /// that last changed that line.
    pub target: String,
}

/// Arguments of `memory_status` (none).
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StatusParams {}
