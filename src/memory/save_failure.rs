//! A save that failed is never silent: the failing save (a hook's, most often, which must exit
//! 0 and says nothing) leaves `<git-dir>/rune/save-failure`, and `status`, `load` and the
//! SessionStart briefing say so in one line, with the file and line and what to do, until a
//! save succeeds.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// What the failing save left.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SaveFailure {
    /// When it failed (RFC 3339).
    pub at: String,
    /// The error and its causes, on one line (`.rune/decisions.md:9: …`).
    pub error: String,
    /// What to do, when the error says (`fix … and run git rune save again`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    /// The save went through but left entries unsaved (refused: a secret, a broken field).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub partial: bool,
}

impl SaveFailure {
    /// The one line every reader shows.
    pub fn line(&self) -> String {
        let hint = self
            .hint
            .clone()
            .unwrap_or_else(|| "fix it and run `git rune save`".into());
        if self.partial {
            return format!(
                "git-rune: the last save ({}) left entries unsaved: {}; {hint}",
                self.at, self.error
            );
        }
        format!(
            "git-rune: the last save ({}) failed, and nothing since was saved: {}; {hint}",
            self.at, self.error
        )
    }
}

fn path(git_dir: &Path) -> PathBuf {
    git_dir.join("rune").join("save-failure")
}

/// Remembers that a save failed (best effort: a save that fails and cannot write this still
/// fails as before).
pub fn record(git_dir: &Path, at: &str, err: &anyhow::Error) {
    let error = err
        .chain()
        .map(|c| c.to_string())
        .collect::<Vec<_>>()
        .join(": ");
    let failure = SaveFailure {
        at: at.to_owned(),
        error: crate::text::one_line(&error),
        hint: super::hint_of(err).map(|h| crate::text::one_line(&h)),
        partial: false,
    };
    write(git_dir, &failure);
}

/// Remembers that a save left view entries unsaved (`file:line: why` each), so the next
/// `status`, `load` and session start say so until a save saves them.
pub fn record_partial(git_dir: &Path, at: &str, refused: &[String]) {
    let failure = SaveFailure {
        at: at.to_owned(),
        error: crate::text::one_line(&refused.join("; ")),
        hint: Some("fix them in their files and run `git rune save` again".into()),
        partial: true,
    };
    write(git_dir, &failure);
}

fn write(git_dir: &Path, failure: &SaveFailure) {
    let data = serde_json::to_vec(failure).expect("serializes");
    crate::files::put_quietly(&path(git_dir), &data);
}

/// A save succeeded: memory holds what the view said.
pub fn clear(git_dir: &Path) {
    let _ = std::fs::remove_file(path(git_dir));
}

/// The failure a save left, if the last save failed.
pub fn read(git_dir: &Path) -> Option<SaveFailure> {
    let data = std::fs::read(path(git_dir)).ok()?;
    serde_json::from_slice(&data).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failure_stays_until_a_save_clears_it() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(read(dir.path()), None);
        let err = crate::error::data(
            ".rune/decisions.md:9: \"2026-13-45\" is not a date",
            "fix .rune/decisions.md and run `git rune save` again",
        );
        record(dir.path(), "2026-01-01T00:00:00Z", &err);
        let f = read(dir.path()).unwrap();
        assert_eq!(
            f.line(),
            "git-rune: the last save (2026-01-01T00:00:00Z) failed, and nothing since was saved: .rune/decisions.md:9: \"2026-13-45\" is not a date; fix .rune/decisions.md and run `git rune save` again"
        );
        clear(dir.path());
        assert_eq!(read(dir.path()), None);
    }
}
