//! The `git` program, for what gix does not do: writing config the way the user's own file
//! keeps it, blame, and network transport (so ssh config, credential helpers, `insteadOf` and
//! proxies work). Never on a hot path.

use std::path::Path;
use std::process::Command;

use gix::ObjectId;

use super::{io_err, Result, Store, StoreError};

/// The commit that last changed one line, from `git blame --porcelain`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Blame {
    Commit(ObjectId),
    /// The line is not committed yet.
    Uncommitted,
    /// git refused (no such line, not a tracked file): its message.
    Failed(String),
}

/// How a `git push` ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PushOutcome {
    Pushed,
    /// The remote refused these refs (its porcelain lines), with git's stderr.
    Rejected {
        refs: Vec<String>,
        stderr: String,
    },
}

fn git(dir_flag: &str, dir: &Path) -> Command {
    let mut cmd = Command::new("git");
    cmd.arg(dir_flag).arg(dir);
    cmd
}

fn run_failed(what: &str) -> impl FnOnce(std::io::Error) -> StoreError + '_ {
    move |e| io_err(format!("cannot run git {what} (is git on PATH?)"))(e)
}

impl Store {
    /// Whether the repository config holds `key=value` among the values of `key`.
    pub(crate) fn config_has(&self, key: &str, value: &str) -> bool {
        self.repo
            .config_snapshot()
            .strings(key)
            .unwrap_or_default()
            .iter()
            .any(|v| AsRef::<[u8]>::as_ref(v) == value.as_bytes())
    }

    /// A boolean setting (`None` when unset or not a boolean).
    pub(crate) fn config_bool(&self, key: &str) -> Option<bool> {
        self.repo.config_snapshot().boolean(key)
    }

    /// A path setting, as git interprets it (`~` expanded).
    pub(crate) fn config_path(&self, key: &str) -> Option<std::path::PathBuf> {
        self.repo.config_snapshot().trusted_path(key).ok().flatten()
    }

    /// Adds `key=value` to the repository's own config file with `git config --add`: gix has
    /// no writer that keeps the user's file as it is.
    pub(crate) fn add_config(&self, key: &str, value: &str) -> Result<()> {
        let status = git("--git-dir", self.common_dir())
            .args(["config", "--local", "--add", key, value])
            .status()
            .map_err(run_failed("config"))?;
        if !status.success() {
            return Err(StoreError::Io {
                context: format!("git config failed to set {key}={value}"),
                source: std::io::Error::other(format!("git config exited with {status}")),
            });
        }
        Ok(())
    }

    /// The commit that last changed `line` (1-based) of `file` (relative to the work tree).
    pub(crate) fn blame_line(&self, file: &str, line: usize) -> Result<Blame> {
        let Some(workdir) = self.workdir() else {
            return Ok(Blame::Failed(
                "a bare repository has no files to blame".into(),
            ));
        };
        let out = Command::new("git")
            .current_dir(workdir)
            .args([
                "blame",
                "--porcelain",
                "-L",
                &format!("{line},{line}"),
                "--",
                file,
            ])
            .output()
            .map_err(run_failed("blame"))?;
        if !out.status.success() {
            return Ok(Blame::Failed(
                String::from_utf8_lossy(&out.stderr).trim().to_owned(),
            ));
        }
        let stdout = String::from_utf8_lossy(&out.stdout);
        Ok(
            match stdout
                .split_whitespace()
                .next()
                .and_then(|h| ObjectId::from_hex(h.as_bytes()).ok())
            {
                Some(id) if !id.is_null() => Blame::Commit(id),
                _ => Blame::Uncommitted,
            },
        )
    }

    /// Pushes `refspecs` to `remote`, never forced, without running the push hooks again.
    pub(crate) fn push(&self, remote: &str, refspecs: &[String]) -> Result<PushOutcome> {
        let out = git("--git-dir", self.git_dir())
            .args(["push", "--no-verify", "--porcelain", remote])
            .args(refspecs)
            .env("GIT_RUNE_SKIP_HOOKS", "1")
            .output()
            .map_err(run_failed("push"))?;
        if out.status.success() {
            return Ok(PushOutcome::Pushed);
        }
        let refs = String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter(|l| l.starts_with('!'))
            .map(|l| l.split('\t').nth(1).unwrap_or(l).to_owned())
            .collect();
        Ok(PushOutcome::Rejected {
            refs,
            stderr: String::from_utf8_lossy(&out.stderr).trim().to_owned(),
        })
    }
}
