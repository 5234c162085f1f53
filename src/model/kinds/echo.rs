//! The `echo` record kind.

use super::skip::{is_empty_str, is_empty_vec, is_false};
use crate::model::record::Extra;
use serde::Serialize;

/// An echo (seed 002): one entry of a role's memory (`.claude/echoes/<role>/MEMORY.md`).
/// Edits, archiving and restoring are new versions superseding the previous one; every
/// version of one entry shares its `uid`, and the fold keeps one per uid (docs/storage.md).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Echo {
    /// The entry's identity across versions: [`super::echo::uid_for`] when created.
    pub uid: String,
    /// `planner`, `workers`, `reviewer`, `auditor`, `team`, or any role name.
    pub role: String,
    /// `etched`, `inscribed` or `traced`.
    pub layer: String,
    /// The date in the entry's heading (`YYYY-MM-DD`).
    pub date: String,
    /// Usually with its kind word (`Pattern: Unused imports in new files`, the seed's form);
    /// the Rune Echoes plugin's titles have none.
    pub title: String,
    /// `manual`, `rune:review PR #42`, …
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub source: String,
    pub confidence: f64,
    /// `` `file:lines` — what was found ``; empty when stripped or not given.
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub evidence: String,
    /// When it was last confirmed (`YYYY-MM-DD`).
    pub verified: String,
    /// The title of the entry it replaces (the seed's `supersedes`); empty for `none`.
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub supersedes_title: String,
    /// The learning, in 1 to 3 sentences.
    pub text: String,
    /// Moved to the role's archive: kept, shown with `--archived`, never loaded.
    #[serde(default, skip_serializing_if = "is_false")]
    pub archived: bool,
    /// A knowledge block (`knowledge.md`): the uids of the entries it compresses.
    #[serde(default, skip_serializing_if = "is_empty_vec")]
    pub members: Vec<String>,
    /// What the view kept that the fields above do not hold (see [`Extra`]).
    #[serde(default, skip_serializing_if = "is_empty_vec")]
    pub extra: Vec<Extra>,
}
