//! Installing git-rune's hooks beside the user's own: a marked block inside a shell hook,
//! removable byte for byte, in the directory git actually runs hooks from.

use std::path::{Path, PathBuf};

use crate::store::Store;
use crate::text::without_block;

/// The hooks git-rune installs.
pub const HOOKS: [&str; 4] = ["post-commit", "post-checkout", "post-rewrite", "pre-push"];

const BEGIN: &str = "# >>> git-rune >>>";
const END: &str = "# <<< git-rune <<<";
/// Marks a hook file git-rune created, so uninstall removes the whole file.
const CREATED: &str = "# (created by git rune hooks install; removed by git rune hooks uninstall)";

/// Why hooks could not be changed.
#[derive(Debug, thiserror::Error)]
pub enum HookError {
    #[error("cannot {action} {}: {}", path.display(), crate::error::io_text(source))]
    Io {
        action: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{} is not a shell script ({shebang}); git-rune can only add itself to sh/bash hooks", path.display())]
    NotShell { path: PathBuf, shebang: String },
    #[error(
        "bare repository: there is no work tree to keep a view of, and commits are not made here"
    )]
    Bare,
    #[error("the hooks directory {} is a file, not a folder; no hook was changed", path.display())]
    NotAFolder { path: PathBuf, configured: bool },
}

impl HookError {
    /// What to do about it, in the command line's words.
    pub fn hint(&self) -> &'static str {
        match self {
            HookError::Bare => "run this in a work tree",
            HookError::NotAFolder {
                configured: true, ..
            } => "core.hooksPath names a file: point it at a folder (`git config core.hooksPath <folder>`) or unset it",
            HookError::NotAFolder { .. } => {
                "move that file aside (git runs hooks from that folder), then try again"
            }
            HookError::Io { .. } | HookError::NotShell { .. } => {
                "add `git rune hook <name> \"$@\" || true` to that hook yourself, or make it a shell script"
            }
        }
    }
}

/// How one hook stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HookState {
    /// Not installed.
    Absent,
    /// Installed in a hook file git-rune created.
    Installed,
    /// Installed inside the user's own hook, which still runs.
    Chained,
}

impl HookState {
    /// The wire name (`--json`).
    pub fn as_str(self) -> &'static str {
        match self {
            HookState::Absent => "absent",
            HookState::Installed => "installed",
            HookState::Chained => "chained",
        }
    }
}

/// The block a hook file gets: skipped with `GIT_RUNE_SKIP_HOOKS=1` or when git-rune is not
/// on PATH. `alone` when nothing else is in the hook: then the shell hands over to git-rune
/// (`exec`, one process fewer on every commit). Otherwise the user's own hook below keeps its
/// stdin: pre-push's ref list (which branches go: their session state goes with them) and
/// post-rewrite's `<old> <new>` list are read, passed to git-rune and put back. `git rune hook` exits non-zero only for pre-push with
/// `rune.strictPush` set, so only then does the block stop the git command.
pub fn block(hook: &str, alone: bool) -> String {
    let run = match (hook, alone) {
        ("post-rewrite" | "pre-push", true) => format!("  exec git-rune hook {hook} \"$@\"\n"),
        (_, true) => format!("  exec git-rune hook {hook} \"$@\" </dev/null\n"),
        ("post-rewrite", false) => "  rune_rewritten=$(cat)\n  \
             printf '%s\\n' \"$rune_rewritten\" | git-rune hook post-rewrite \"$@\" || true\n  \
             exec <<RUNE_REWRITTEN\n$rune_rewritten\nRUNE_REWRITTEN\n"
            .to_owned(),
        ("pre-push", false) => "  rune_pushed=$(cat)\n  \
             printf '%s\\n' \"$rune_pushed\" | git-rune hook pre-push \"$@\" || exit 1\n  \
             exec <<RUNE_PUSHED\n$rune_pushed\nRUNE_PUSHED\n"
            .to_owned(),
        (_, false) => format!("  git-rune hook {hook} \"$@\" </dev/null || true\n"),
    };
    format!(
        "{BEGIN}\nif [ -z \"$GIT_RUNE_SKIP_HOOKS\" ] && command -v git-rune >/dev/null 2>&1; then\n\
         {run}fi\n{END}\n"
    )
}

/// Installs every hook git-rune has; returns the ones that were not installed before.
pub fn install_all(store: &Store) -> Result<Vec<&'static str>, HookError> {
    let dir = hooks_dir(store)?;
    let mut added = Vec::new();
    for hook in HOOKS {
        let before = state(&dir, hook)?;
        install(&dir, hook)?;
        if before == HookState::Absent {
            added.push(hook);
        }
    }
    Ok(added)
}

/// Whether none of git-rune's hooks is installed (`false` where there are no hooks to have:
/// a bare repository).
pub fn none_installed(store: &Store) -> bool {
    hooks_dir(store).is_ok_and(|dir| {
        HOOKS
            .iter()
            .all(|h| state(&dir, h).ok() == Some(HookState::Absent))
    })
}

/// When the hooks directory is inside the work tree (`core.hooksPath`, as husky sets it):
/// keeps the hook files git-rune created there out of `git status` by listing them in
/// `.git/info/exclude`, and returns the directory (relative to the work tree), the hooks
/// so excluded, and the user's own hooks git-rune added itself to (changed, tracked files
/// the user commits or not). `None` when the directory is git's own.
pub fn in_work_tree(store: &Store, dir: &Path) -> Result<Option<InWorkTree>, HookError> {
    let Some(workdir) = store.workdir() else {
        return Ok(None);
    };
    let real = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
    // `.git/hooks` lies under the work tree's path, but in git's own directory, which
    // `git status` never shows.
    if real(dir).starts_with(real(store.common_dir())) {
        return Ok(None);
    }
    let Ok(rel) = real(dir).strip_prefix(real(workdir)).map(Path::to_path_buf) else {
        return Ok(None);
    };
    let rel = rel.to_string_lossy().replace('\\', "/");
    let mut created = Vec::new();
    let mut chained = Vec::new();
    for hook in HOOKS {
        match state(dir, hook)? {
            HookState::Installed => created.push(hook),
            HookState::Chained => chained.push(hook),
            HookState::Absent => {}
        }
    }
    let exclude = store.common_dir().join("info").join("exclude");
    let existing = read(&exclude)?.unwrap_or_default();
    let mut text = existing.clone();
    for hook in &created {
        let line = format!("/{rel}/{hook}");
        if !existing.lines().any(|l| l.trim() == line) {
            if !text.is_empty() && !text.ends_with('\n') {
                text.push('\n');
            }
            text.push_str(&format!("{line}\n"));
        }
    }
    if text != existing {
        if let Some(info) = exclude.parent() {
            std::fs::create_dir_all(info).map_err(io("create", info))?;
        }
        std::fs::write(&exclude, text).map_err(io("write", &exclude))?;
    }
    Ok(Some(InWorkTree {
        dir: rel,
        created,
        chained,
    }))
}

/// Hooks in a directory inside the work tree ([`in_work_tree`]).
pub struct InWorkTree {
    /// The directory, relative to the work tree.
    pub dir: String,
    /// Hook files git-rune created there (kept out of `git status`).
    pub created: Vec<&'static str>,
    /// The user's own hooks git-rune added itself to.
    pub chained: Vec<&'static str>,
}

/// The directory git runs hooks from: `core.hooksPath` (relative to the work tree) or
/// `<common dir>/hooks`.
pub fn hooks_dir(store: &Store) -> Result<PathBuf, HookError> {
    let workdir = store.workdir().ok_or(HookError::Bare)?;
    let (path, configured) = match store.config_path("core.hooksPath") {
        Some(p) if p.is_absolute() => (p, true),
        Some(p) => (workdir.join(p), true),
        None => (store.common_dir().join("hooks"), false),
    };
    if path.exists() && !path.is_dir() {
        return Err(HookError::NotAFolder { path, configured });
    }
    Ok(path)
}

fn io<'a>(action: &'static str, path: &'a Path) -> impl FnOnce(std::io::Error) -> HookError + 'a {
    move |source| HookError::Io {
        action,
        path: path.to_path_buf(),
        source,
    }
}

/// Reads a hook file; `None` when there is none.
fn read(path: &Path) -> Result<Option<String>, HookError> {
    match std::fs::read(path) {
        Ok(d) => Ok(Some(String::from_utf8_lossy(&d).into_owned())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(io("read", path)(e)),
    }
}

/// The hook's state in `dir`.
pub fn state(dir: &Path, hook: &str) -> Result<HookState, HookError> {
    let Some(text) = read(&dir.join(hook))? else {
        return Ok(HookState::Absent);
    };
    Ok(match (text.contains(BEGIN), text.contains(CREATED)) {
        (false, _) => HookState::Absent,
        (true, true) => HookState::Installed,
        (true, false) => HookState::Chained,
    })
}

/// Installs one hook; idempotent. A hook the user already has keeps running: the block goes
/// right after its shebang line, so ours runs first and theirs decides the exit code.
pub fn install(dir: &Path, hook: &str) -> Result<HookState, HookError> {
    std::fs::create_dir_all(dir).map_err(io("create", dir))?;
    let path = dir.join(hook);
    let (text, created) = match read(&path)? {
        None => (format!("#!/bin/sh\n{CREATED}\n{}", block(hook, true)), true),
        Some(existing) => {
            let created = existing.contains(CREATED);
            let base = without_block(&existing, BEGIN, END);
            let (first, rest) = base.split_once('\n').unwrap_or((base.as_str(), ""));
            if !first.starts_with("#!") || !is_shell(first) {
                return Err(HookError::NotShell {
                    path,
                    shebang: first.chars().take(60).collect(),
                });
            }
            // Only our own lines: the shell can hand over to git-rune.
            let alone = rest.replace(&format!("{CREATED}\n"), "").trim().is_empty();
            (format!("{first}\n{}{rest}", block(hook, alone)), created)
        }
    };
    write_executable(&path, &text)?;
    Ok(if created {
        HookState::Installed
    } else {
        HookState::Chained
    })
}

/// Removes one hook: the file if git-rune created it, otherwise only our block, leaving the
/// user's hook exactly as it was before install.
pub fn uninstall(dir: &Path, hook: &str) -> Result<HookState, HookError> {
    let path = dir.join(hook);
    let Some(text) = read(&path)?.filter(|t| t.contains(BEGIN)) else {
        return Ok(HookState::Absent);
    };
    if text.contains(CREATED) {
        let rest = without_block(&text, BEGIN, END).replace(&format!("{CREATED}\n"), "");
        if rest.trim() == "#!/bin/sh" {
            std::fs::remove_file(&path).map_err(io("remove", &path))?;
        } else {
            // Someone added lines to the hook we created: keep theirs.
            write_executable(&path, &rest)?;
        }
        return Ok(HookState::Installed);
    }
    write_executable(&path, &without_block(&text, BEGIN, END))?;
    Ok(HookState::Chained)
}

fn is_shell(shebang: &str) -> bool {
    [
        "/sh", "/bash", "/dash", "/zsh", "/ksh", "env sh", "env bash", "env zsh",
    ]
    .iter()
    .any(|s| shebang.contains(s))
}

fn write_executable(path: &Path, text: &str) -> Result<(), HookError> {
    let tmp = path.with_extension("rune-tmp");
    std::fs::write(&tmp, text).map_err(io("write", &tmp))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(path)
            .map(|m| m.permissions().mode() | 0o111)
            .unwrap_or(0o755);
        std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(mode))
            .map_err(io("chmod", &tmp))?;
    }
    std::fs::rename(&tmp, path).map_err(io("replace", path))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn install_then_uninstall_restores_the_user_hook_byte_for_byte() {
        let dir = tempfile::tempdir().unwrap();
        let user = "#!/bin/bash\n# mine\necho hi\nexit 0\n";
        std::fs::write(dir.path().join("post-commit"), user).unwrap();
        assert_eq!(
            install(dir.path(), "post-commit").unwrap(),
            HookState::Chained
        );
        assert_eq!(
            install(dir.path(), "post-commit").unwrap(),
            HookState::Chained
        );
        let text = std::fs::read_to_string(dir.path().join("post-commit")).unwrap();
        assert_eq!(text.matches(BEGIN).count(), 1, "idempotent");
        assert!(
            text.starts_with("#!/bin/bash\n# >>> git-rune >>>"),
            "{text}"
        );
        // The user's hook runs after ours, so the shell must not hand over with exec.
        assert!(text.contains("git-rune hook post-commit \"$@\" </dev/null || true"));
        assert!(!text.contains("exec git-rune"), "{text}");
        assert_eq!(
            uninstall(dir.path(), "post-commit").unwrap(),
            HookState::Chained
        );
        assert_eq!(
            std::fs::read_to_string(dir.path().join("post-commit")).unwrap(),
            user
        );
    }

    #[test]
    fn the_shims_in_git_hooks_are_what_install_writes() {
        for hook in HOOKS {
            let path = Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("git-hooks")
                .join(hook);
            let shim = std::fs::read_to_string(&path).unwrap();
            assert_eq!(
                shim,
                format!("#!/bin/sh\n{}", block(hook, true)),
                "{}",
                path.display()
            );
        }
    }

    #[test]
    fn created_hooks_are_removed_and_foreign_interpreters_refused() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(
            install(dir.path(), "pre-push").unwrap(),
            HookState::Installed
        );
        assert_eq!(state(dir.path(), "pre-push").unwrap(), HookState::Installed);
        let created = std::fs::read_to_string(dir.path().join("pre-push")).unwrap();
        assert!(
            created.contains("  exec git-rune hook pre-push"),
            "{created}"
        );
        // Reinstalling a hook we created, alone, keeps the exec form.
        install(dir.path(), "pre-push").unwrap();
        let again = std::fs::read_to_string(dir.path().join("pre-push")).unwrap();
        assert!(again.contains("  exec git-rune hook pre-push"), "{again}");
        uninstall(dir.path(), "pre-push").unwrap();
        assert!(!dir.path().join("pre-push").exists());
        std::fs::write(
            dir.path().join("post-commit"),
            "#!/usr/bin/env python3\nprint(1)\n",
        )
        .unwrap();
        assert!(matches!(
            install(dir.path(), "post-commit"),
            Err(HookError::NotShell { .. })
        ));
    }
}
