//! The `task` record kind.

use super::skip::{is_empty_str, is_empty_vec, is_false, is_zero};
use crate::model::record::Extra;
use serde::Serialize;

/// A task of the branch's list (the seed's session protocol). Edits supersede; every
/// version of one task shares its `uid`. `num` is the `TASK_<num>` the writer claimed at
/// `claimed`; the fold settles two tasks claiming one number (docs/storage.md).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Task {
    /// The task's identity across edits: hex, made when the task was created.
    pub uid: String,
    /// The number claimed (`TASK_007` is 7).
    pub num: u32,
    /// When `num` was claimed (RFC 3339 UTC): the earlier claim keeps a number.
    pub claimed: String,
    pub title: String,
    /// `pending`, `in_progress` or `completed`.
    pub status: String,
    /// `P1`, `P2`, `P3` or empty.
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub priority: String,
    /// `BUGFIX`, `FEATURE`, `CONFIG`, `DOCS`, `TEST`, `REFACTOR` or empty.
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub category: String,
    pub created: String,
    /// When it was completed; empty while it is not.
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub completed: String,
    #[serde(default, skip_serializing_if = "is_false")]
    pub consolidated: bool,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub consolidated_count: u32,
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub context: String,
    /// `path` or `path:line`.
    #[serde(default, skip_serializing_if = "is_empty_vec")]
    pub files: Vec<String>,
    /// Never consolidated (a unique pitfall or lesson).
    #[serde(default, skip_serializing_if = "is_false")]
    pub keep: bool,
    /// Numbers the task was shown under before it was renumbered (`TASK_003`).
    #[serde(default, skip_serializing_if = "is_empty_vec")]
    pub aliases: Vec<String>,
    /// What the view kept that the fields above do not hold (see [`Extra`]).
    #[serde(default, skip_serializing_if = "is_empty_vec")]
    pub extra: Vec<Extra>,
}
