//! The memory model: records, their validation and their fold. Pure: no git, no I/O.

mod fields;
pub mod fold;
pub mod kinds;
pub mod lines;
mod meta;
pub mod record;
mod state;
#[cfg(test)]
pub mod testing;
mod validate;
mod wire;

pub use fields::{Field, Shape};
pub use fold::{fold, State};
pub use kinds::{echo, oracle, task};
pub use record::{line_id, raw_id_matches};
pub use record::{Body, Extra, GitState, Kind, LearningType, Meta, Record, Scope};
pub use validate::{validate, validate_time, ValidationError};
pub use wire::decode as decode_line;

/// The fixed sections of `cumulative-notes.md`, in the seed's order.
pub const CUMULATIVE_SECTIONS: [&str; 8] = [
    "Project Profile",
    "Architecture Map",
    "Recurring Themes",
    "Active Topics",
    "Relationship Map",
    "Follow-Up Items",
    "Attention Points",
    "Resolved",
];

/// The fixed sections of `task-notes.md`, in the seed's order.
pub const TASK_SECTIONS: [&str; 4] = [
    "What Worked",
    "What Failed",
    "What's Left",
    "Key Context for Next Iteration",
];

/// The keys of a learning in the seed's `learnings.jsonl`.
pub const LEARNING_KEYS: [&str; 7] = [
    "ts",
    "skill",
    "type",
    "key",
    "insight",
    "confidence",
    "files",
];

/// A record not yet written: content plus what it edits. The store stamps time, author and
/// clock at commit time, so a retried commit gets a fresh clock.
#[derive(Debug, Clone, PartialEq)]
pub struct Draft {
    pub body: Body,
    pub supersedes: Vec<String>,
    /// The time the entry says it was written (a heading's date, a learning's `ts`), RFC 3339
    /// UTC; `None` takes the time of the commit.
    pub at: Option<String>,
}

impl Draft {
    pub fn new(body: Body) -> Draft {
        Draft::superseding(body, Vec::new())
    }

    /// A draft that supersedes the records `supersedes` names (an edit).
    pub fn superseding(body: Body, supersedes: Vec<String>) -> Draft {
        Draft {
            body,
            supersedes,
            at: None,
        }
    }

    /// The record this draft becomes, written at `ts` (unless it says its own time) with
    /// Lamport clock `clock` by `author`.
    pub fn stamp(self, ts: &str, clock: u64, author: &str) -> Record {
        Record::new(
            Meta {
                ts: self.at.unwrap_or_else(|| ts.to_owned()),
                clock,
                author: author.to_owned(),
                supersedes: self.supersedes,
            },
            self.body,
        )
    }
}

/// Matches a section name case-insensitively against a fixed list, also accepting
/// `attention-points` style slugs; returns the canonical spelling.
pub fn canonical_section(name: &str, sections: &[&'static str]) -> Option<&'static str> {
    let norm = |s: &str| {
        s.chars()
            .filter(|c| c.is_alphanumeric())
            .flat_map(char::to_lowercase)
            .collect::<String>()
    };
    let want = norm(name);
    sections.iter().copied().find(|s| norm(s) == want)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_match_loosely() {
        assert_eq!(
            canonical_section("attention-points", &CUMULATIVE_SECTIONS),
            Some("Attention Points")
        );
        assert_eq!(
            canonical_section("whats left", &TASK_SECTIONS),
            Some("What's Left")
        );
        assert_eq!(canonical_section("nope", &TASK_SECTIONS), None);
    }
}
