//! The `document` record kind: a file under `.rune/` or `.claude/echoes/` that no view
//! format reads (a plan, `.continue-here.md`, a design doc, `adr/…`, an echoes archive
//! backup), kept whole so that no file an agent writes there is lost; and the frame of a view
//! file (its text outside the entries: a custom title, an intro, an invariants template).

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::KindRules;
use crate::model::fields::{Field, Shape};
use super::Record;
use crate::model::validate::invalid;
use crate::model::{Body, State, ValidationError};

/// The directory a document path under `.rune/` starts with.
pub const RUNE_PREFIX: &str = ".rune/";
/// The directory a document path under the echoes directory starts with (whatever
/// `rune.echoes.dir` names, documents are stored under this name).
pub const ECHOES_PREFIX: &str = ".claude/echoes/";
/// The largest document kept, in bytes: memory is pushed and cloned whole, so big files stay
/// local (docs/storage.md).
pub const MAX_DOCUMENT_BYTES: usize = 256 * 1024;

/// A document record. One per `path` in the fold: the newest (clock, time, id) wins.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Document {
    /// Relative to the work tree, `/`-separated: `.rune/plan-auth.md`,
    /// `.claude/echoes/reviewer/archive/MEMORY-2026-01-01.md`.
    pub path: String,
    /// The file's text, byte for byte (UTF-8).
    pub content: String,
}

impl KindRules for Document {
    field_rules!(title: path);

    fn fields_mut(&mut self, f: &mut dyn FnMut(&'static str, Shape, Field<'_>)) {
        f("path", Shape::Line, Field::One(&mut self.path));
        f("content", Shape::Raw, Field::One(&mut self.content));
    }

    fn validate(&self) -> Result<(), ValidationError> {
        if let Some(problem) = path_problem(&self.path) {
            return Err(invalid("path", problem));
        }
        match content_problem(self.content.as_bytes()) {
            Some(problem) => Err(invalid("content", problem)),
            None => Ok(()),
        }
    }

    /// The latest writer per path (clock, time, id), by path.
    fn fold(live: Vec<&Record>, _state: &mut State) -> Vec<Record> {
        let mut winner: HashMap<&str, &Record> = HashMap::new();
        for r in live {
            let Body::Document(d) = &r.body else {
                continue;
            };
            let slot = winner.entry(&d.path).or_insert(r);
            if (r.meta.clock, &r.meta.ts, &r.id) > (slot.meta.clock, &slot.meta.ts, &slot.id) {
                *slot = r;
            }
        }
        let mut list: Vec<&Record> = winner.into_values().collect();
        list.sort_by(|a, b| a.body.title().cmp(b.body.title()));
        list.into_iter().cloned().collect()
    }
}

/// Why a path cannot name a document, or `None` when it can.
pub fn path_problem(path: &str) -> Option<String> {
    if !(path.starts_with(RUNE_PREFIX) || path.starts_with(ECHOES_PREFIX)) {
        return Some(format!(
            "{path:?} is not under {RUNE_PREFIX} or {ECHOES_PREFIX}"
        ));
    }
    let bad_part = path
        .split('/')
        .skip(1)
        .any(|p| p.is_empty() || p == "." || p == "..");
    if bad_part || path.contains('\\') || path.ends_with('/') {
        return Some(format!("{path:?} is not a plain relative file path"));
    }
    if path.chars().any(char::is_control) {
        return Some(format!("{path:?} holds control characters"));
    }
    None
}

/// Why content cannot be a document (binary, too large), or `None` when it can.
pub fn content_problem(content: &[u8]) -> Option<String> {
    if content.len() > MAX_DOCUMENT_BYTES {
        return Some(format!(
            "{} bytes is more than the {} KiB a document may hold",
            content.len(),
            MAX_DOCUMENT_BYTES / 1024
        ));
    }
    if content.contains(&0) || std::str::from_utf8(content).is_err() {
        return Some("it is binary (not UTF-8 text)".into());
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_relative_files_under_the_two_directories() {
        assert_eq!(path_problem(".rune/plan-auth.md"), None);
        assert_eq!(path_problem(".rune/adr/001-db.md"), None);
        assert_eq!(
            path_problem(".claude/echoes/reviewer/archive/MEMORY-2026-01-01.md"),
            None
        );
        for bad in [
            "plan.md",
            ".rune/../x",
            ".rune//x",
            ".rune/a/",
            "/etc/passwd",
            ".rune/a\\b",
        ] {
            assert!(path_problem(bad).is_some(), "{bad}");
        }
    }

    #[test]
    fn binary_and_oversized_content_is_refused() {
        assert_eq!(content_problem(b"# Plan\n"), None);
        assert!(content_problem(b"\x89PNG\r\n\x1a\n\0").is_some());
        assert!(content_problem(&[0xff, 0xfe]).is_some());
        assert!(content_problem(&vec![b'a'; MAX_DOCUMENT_BYTES + 1]).is_some());
    }
}
