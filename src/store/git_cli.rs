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

/// A ref a push did not update, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefusedRef {
    pub name: String,
    /// git's reason, e.g. `fetch first`, `non-fast-forward`, `pre-receive hook declined`.
    pub reason: String,
    /// Refused by the remote (a hook or a policy: `[remote rejected]`), not by git for
    /// being behind (`[rejected]`).
    pub by_remote: bool,
}

impl RefusedRef {
    /// Refused only because another ref of the same atomic push was.
    pub fn is_collateral(&self) -> bool {
        self.reason.contains("atomic push failed")
    }

    /// Whether the remote has commits this clone lacks (fetch and merge first).
    pub fn is_behind(&self) -> bool {
        !self.by_remote
            && (self.reason.contains("fetch first") || self.reason.contains("non-fast-forward"))
    }

    /// Whether the ref lost a race on the remote (behind, or another push took its lock or
    /// changed it while this one was on its way): worth a fetch, a merge and another try.
    pub fn is_race(&self) -> bool {
        self.is_behind()
            || [
                "stale info",
                "cannot lock ref",
                "reference already exists",
                "failed to update ref",
                "incorrect old value",
                "atomic transaction failed",
            ]
            .iter()
            .any(|s| self.reason.contains(s))
    }
}

/// How a `git push` ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PushOutcome {
    Pushed,
    /// The push failed. `refs` are the refused refs with git's reason for each (`fetch
    /// first`, `non-fast-forward`, `pre-receive hook declined`, …); `remote` what the remote
    /// itself said (git's `remote:` lines); `stderr` the rest of git's message.
    Rejected {
        refs: Vec<RefusedRef>,
        remote: Vec<String>,
        stderr: String,
    },
}

pub(super) fn git(dir_flag: &str, dir: &Path) -> Command {
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

    /// Every value of a setting that may be given several times, each split at commas.
    pub(crate) fn config_list(&self, key: &str) -> Vec<String> {
        self.repo
            .config_snapshot()
            .strings(key)
            .unwrap_or_default()
            .iter()
            .flat_map(|v| {
                String::from_utf8_lossy(AsRef::<[u8]>::as_ref(v))
                    .split(',')
                    .map(|p| p.trim().to_owned())
                    .filter(|p| !p.is_empty())
                    .collect::<Vec<_>>()
            })
            .collect()
    }

    /// A setting's last value, as text (`None` when unset).
    pub(crate) fn config_string(&self, key: &str) -> Option<String> {
        self.repo
            .config_snapshot()
            .string(key)
            .map(|v| v.to_string())
    }

    /// Every key set in `section` (`rune`) as `section[.subsection].name` with its last value
    /// (`None` for a key written without `=`), in file order, each key once.
    pub(crate) fn config_entries(&self, section: &str) -> Vec<(String, Option<String>)> {
        let snapshot = self.repo.config_snapshot();
        let mut out: Vec<(String, Option<String>)> = Vec::new();
        let Some(sections) = snapshot.plumbing().sections_by_name(section) else {
            return out;
        };
        for s in sections {
            let prefix = match s.header().subsection_name() {
                Some(sub) => format!("{section}.{sub}"),
                None => section.to_owned(),
            };
            let body = s.body();
            for name in body.value_names() {
                let key = format!("{prefix}.{name}");
                let value = body
                    .value_implicit(&name)
                    .map(|v| v.map(|v| v.to_string()))
                    .unwrap_or_default();
                out.retain(|(k, _)| !k.eq_ignore_ascii_case(&key));
                out.push((key, value));
            }
        }
        out
    }

    /// A boolean setting (`None` when unset or not a boolean).
    pub(crate) fn config_bool(&self, key: &str) -> Option<bool> {
        self.repo.config_snapshot().boolean(key)
    }

    /// A path setting, as git interprets it (`~` expanded).
    pub(crate) fn config_path(&self, key: &str) -> Option<std::path::PathBuf> {
        self.repo.config_snapshot().trusted_path(key).ok().flatten()
    }

    /// Sets `key=value` in the repository's own config file (replacing its value), with `git
    /// config`; `None` removes every value of `key`, or (`Some(value)` with `only`) removes
    /// the values equal to `value`.
    pub(crate) fn set_config(&self, key: &str, value: Option<&str>, only: bool) -> Result<()> {
        match (value, only) {
            (Some(v), false) => self.git_config(&[key, v], key),
            (Some(v), true) => self.git_config(&["--fixed-value", "--unset-all", key, v], key),
            (None, _) => self.git_config(&["--unset-all", key], key),
        }
    }

    /// Makes `value` one of the values of `key` (once, however often it runs, and whatever
    /// another process does meanwhile: git replaces the equal values, or adds it).
    pub(crate) fn ensure_config(&self, key: &str, value: &str) -> Result<()> {
        self.git_config(&["--fixed-value", "--replace-all", key, value, value], key)
    }

    /// Runs `git config --local` with `args`, waiting out another process's lock on the file.
    fn git_config(&self, args: &[&str], key: &str) -> Result<()> {
        for attempt in 0.. {
            let out = git("--git-dir", self.common_dir())
                .args(["config", "--local"])
                .args(args)
                .output()
                .map_err(run_failed("config"))?;
            // 5: asked to unset a value that is not there; nothing to do.
            if out.status.success() || out.status.code() == Some(5) {
                return Ok(());
            }
            let err = String::from_utf8_lossy(&out.stderr).trim().to_owned();
            if err.contains("could not lock config file") && attempt < 100 {
                std::thread::sleep(std::time::Duration::from_millis(20));
                continue;
            }
            return Err(StoreError::Io {
                context: format!("git config failed to change {key}"),
                source: std::io::Error::other(err),
            });
        }
        unreachable!("the loop returns")
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
}

/// What a finished `git push --porcelain` says.
pub(super) fn push_outcome(out: &std::process::Output) -> PushOutcome {
    if out.status.success() {
        return PushOutcome::Pushed;
    }
    // Porcelain: `!\t<src>:<dst>\t[rejected] (fetch first)` or `[remote rejected] (…)`.
    let refs = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.starts_with('!'))
        .map(|l| {
            let mut parts = l.split('\t');
            let spec = parts.nth(1).unwrap_or(l);
            let summary = parts.next().unwrap_or("");
            let name = spec.rsplit(':').next().unwrap_or(spec).to_owned();
            let reason = summary
                .split_once('(')
                .map(|(_, r)| r.trim_end_matches(')').to_owned())
                .unwrap_or_else(|| summary.to_owned());
            RefusedRef {
                name,
                reason,
                by_remote: summary.contains("[remote rejected]"),
            }
        })
        .collect();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let remote = stderr
        .lines()
        .filter_map(|l| l.strip_prefix("remote:"))
        .map(|l| l.trim().to_owned())
        .filter(|l| !l.is_empty())
        .collect();
    let rest: Vec<&str> = stderr
        .lines()
        .filter(|l| !l.starts_with("remote:") && !l.starts_with("To ") && !l.trim().is_empty())
        .collect();
    PushOutcome::Rejected {
        refs,
        remote,
        stderr: rest.join("\n"),
    }
}
