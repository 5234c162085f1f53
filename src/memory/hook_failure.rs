//! A git hook that failed is never silent: git went on (a hook must not break the user's git
//! command) and the one stderr line may have gone to an agent's discarded output, so the
//! failing hook leaves its error in `<git-dir>/rune/hook-failures`, and `status`, `load` and
//! the SessionStart briefing say so, until that hook runs again without failing.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// What one failing hook left.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HookFailure {
    /// The hook (`post-commit`, `pre-push`, …).
    pub hook: String,
    /// When it failed (RFC 3339).
    pub at: String,
    /// The error and its causes, on one line.
    pub error: String,
    /// What to do, when the error says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
}

impl HookFailure {
    /// The one line every reader shows.
    pub fn line(&self) -> String {
        let hint = self.hint.clone().unwrap_or_else(|| {
            "fix it, and the next run of that hook tries again; `git rune hooks status` lists recent failures".into()
        });
        format!(
            "git-rune: the {} hook failed ({}), git went on without it: {}; {hint}",
            self.hook, self.at, self.error
        )
    }
}

fn path(git_dir: &Path) -> PathBuf {
    git_dir.join("rune").join("hook-failures")
}

fn read_all(git_dir: &Path) -> BTreeMap<String, HookFailure> {
    std::fs::read(path(git_dir))
        .ok()
        .and_then(|d| serde_json::from_slice(&d).ok())
        .unwrap_or_default()
}

fn write_all(git_dir: &Path, all: &BTreeMap<String, HookFailure>) {
    let p = path(git_dir);
    if all.is_empty() {
        let _ = std::fs::remove_file(&p);
        return;
    }
    let data = serde_json::to_vec(all).expect("serializes");
    crate::files::put_quietly(&p, &data);
}

/// Remembers that `hook` failed with `err` (best effort, as the hook's log line is).
pub fn record(git_dir: &Path, hook: &str, at: &str, err: &anyhow::Error) {
    let error = crate::secrets::redact(&format!("{err:#}"));
    let mut all = read_all(git_dir);
    all.insert(
        hook.to_owned(),
        HookFailure {
            hook: hook.to_owned(),
            at: at.to_owned(),
            error: crate::text::one_line(&error),
            hint: super::hint_of(err).map(|h| crate::text::one_line(&h)),
        },
    );
    write_all(git_dir, &all);
}

/// `hook` ran without failing: what it left before is past.
pub fn clear(git_dir: &Path, hook: &str) {
    let mut all = read_all(git_dir);
    if all.remove(hook).is_some() {
        write_all(git_dir, &all);
    }
}

/// The failures hooks left, by hook name.
pub fn read(git_dir: &Path) -> Vec<HookFailure> {
    read_all(git_dir).into_values().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failure_stays_until_its_hook_succeeds() {
        let dir = tempfile::tempdir().unwrap();
        assert!(read(dir.path()).is_empty());
        let err = crate::error::data("refs/notes/rune is damaged", "fix the ref");
        record(dir.path(), "post-commit", "2026-01-01T00:00:00Z", &err);
        record(dir.path(), "pre-push", "2026-01-01T00:00:00Z", &err);
        let all = read(dir.path());
        assert_eq!(all.len(), 2);
        assert!(all[0].line().contains("the post-commit hook failed"));
        assert!(all[0].line().ends_with("fix the ref"));
        clear(dir.path(), "post-commit");
        assert_eq!(read(dir.path()).len(), 1);
        clear(dir.path(), "pre-push");
        assert!(!path(dir.path()).exists());
    }
}
