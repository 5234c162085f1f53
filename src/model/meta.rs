//! A record's metadata and the plain values its kinds share: which ref it lives under, who
//! wrote it and when, the view's extras, the state of the code.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::kinds::skip::{is_empty_str, is_empty_vec};

/// Which ref a record lives under.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Scope {
    /// `refs/rune/memory`: project-wide knowledge.
    Memory,
    /// `refs/rune/branches/<branch>`: per-branch session state.
    Branch,
}

/// The type of a learning, as the seed's `learnings.jsonl` defines it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LearningType {
    Decision,
    Error,
    Insight,
    Convention,
    Performance,
}

impl LearningType {
    pub const ALL: [LearningType; 5] = [
        LearningType::Decision,
        LearningType::Error,
        LearningType::Insight,
        LearningType::Convention,
        LearningType::Performance,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            LearningType::Decision => "decision",
            LearningType::Error => "error",
            LearningType::Insight => "insight",
            LearningType::Convention => "convention",
            LearningType::Performance => "performance",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.as_str() == s)
    }
}

impl fmt::Display for LearningType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Something the view holds that a record's own fields do not: a labelled field or a section
/// the parser does not know (`**Alternatives considered:** …`, `## Notes`), or prose it cannot
/// attribute to a field, in the order written. Rendered back where it was: after the known
/// field (or section) named by `after`. In `learnings.jsonl` it is an unknown JSON key, with
/// its value as compact JSON.
// A field this build does not know inside a nested value is refused rather than dropped, so
// the record is read as one from a newer git-rune and kept byte for byte (`model::wire`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Extra {
    /// The known field or section it came after; empty when it came before any.
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub after: String,
    /// The label or heading as written; empty for prose; `#` for the text a heading carries
    /// after its word when the format has no title (`## Session Summary: sprint 3`).
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub label: String,
    pub text: String,
}

/// The state of the code when a session or checkpoint was recorded.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GitState {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub head: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub upstream: Option<String>,
    #[serde(default, skip_serializing_if = "is_empty_vec")]
    pub dirty: Vec<String>,
}

/// Who wrote a record, when, and what it replaces.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Meta {
    /// RFC 3339 UTC, second precision (`2026-04-04T14:30:00Z`).
    pub ts: String,
    /// Lamport clock: one more than the highest clock the writer saw on the ref.
    pub clock: u64,
    pub author: String,
    /// Ids of records this one edits (they leave the fold).
    #[serde(default, skip_serializing_if = "is_empty_vec")]
    pub supersedes: Vec<String>,
}
