//! git's own automatic maintenance after git-rune wrote objects, the way git commands start
//! it after theirs: `git maintenance run --auto --quiet`, which decides from `gc.auto`,
//! `gc.autoPackLimit` and the `maintenance.*` settings whether anything is due (usually not:
//! it returns at once) and runs what is in the background (`gc.autoDetach`). Without it, the
//! loose objects of thousands of memory writes would stay loose until the user's next `git
//! commit`.
//!
//! Started at most once per process, when its last store is dropped after a write; not at all
//! when `maintenance.auto` is false, nor in hooks (git's hooks run inside a git command that
//! starts maintenance itself, and an agent's hook must not pay for a process start).

use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};

use super::Store;

/// Set by hooks: this process never starts maintenance.
static OFF: AtomicBool = AtomicBool::new(false);
/// Maintenance was started (or judged not wanted) by this process already.
static STARTED: AtomicBool = AtomicBool::new(false);

/// Keeps this process from starting git's automatic maintenance (hooks).
pub fn no_auto_maintenance() {
    OFF.store(true, Ordering::Relaxed);
}

impl Store {
    /// Notes that this store wrote objects, so its drop starts git's automatic maintenance.
    pub(super) fn note_written(&self) {
        self.wrote.set(true);
    }

    /// Whether git's `maintenance.auto` allows automatic maintenance (git's default: yes).
    pub(crate) fn auto_maintenance_enabled(&self) -> bool {
        self.repo
            .config_snapshot()
            .boolean("maintenance.auto")
            .unwrap_or(true)
    }

    /// Starts `git maintenance run --auto --quiet` in the background, without waiting for it:
    /// its output goes nowhere and its end is collected by a thread (by init once this process
    /// has exited).
    pub(super) fn start_auto_maintenance(&self) {
        if !self.wrote.get()
            || OFF.load(Ordering::Relaxed)
            || STARTED.swap(true, Ordering::Relaxed)
            || !self.auto_maintenance_enabled()
        {
            return;
        }
        let child = Command::new("git")
            .arg("--git-dir")
            .arg(self.repo.git_dir())
            .args(["maintenance", "run", "--auto", "--quiet"])
            .env("GIT_RUNE_SKIP_HOOKS", "1")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn();
        // Maintenance that cannot start costs only disk space, never the command.
        if let Ok(mut child) = child {
            let _ = std::thread::Builder::new()
                .name("maintenance".into())
                .spawn(move || child.wait());
        }
    }
}

impl Drop for Store {
    fn drop(&mut self) {
        self.start_auto_maintenance();
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn maintenance_auto_false_turns_it_off() {
        let (dir, store) = crate::store::scratch();
        assert!(store.auto_maintenance_enabled(), "git's default");
        let ok = std::process::Command::new("git")
            .arg("-C")
            .arg(dir.path())
            .args(["config", "maintenance.auto", "false"])
            .status()
            .unwrap()
            .success();
        assert!(ok);
        let store = crate::store::Store::open(dir.path()).unwrap();
        assert!(!store.auto_maintenance_enabled());
    }
}
