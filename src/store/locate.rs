//! Finding a repository's git directory by looking at the file system only, for the agent
//! hook that runs on every tool call: opening the repository reads its config and refs, which
//! costs more than that hook may take in all. Everything that reads git data still opens the
//! repository with [`Store::open`](super::Store::open).

use std::path::{Path, PathBuf};

/// Where a repository is, as far as the file system says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Located {
    /// The per-worktree git directory, as `Store::git_dir` names it.
    pub git_dir: PathBuf,
    /// The work tree's top directory (`None` when `$GIT_DIR` named the repository).
    pub work_tree: Option<PathBuf>,
}

/// The repository around `start`: `$GIT_DIR` when set, else the first `.git` found walking
/// up from `start` (a directory, or a file holding `gitdir: <path>` as linked worktrees and
/// submodules have). `None` outside a repository.
pub fn locate(start: &Path) -> Option<Located> {
    if let Some(dir) = std::env::var_os("GIT_DIR").filter(|d| !d.is_empty()) {
        let dir = PathBuf::from(dir);
        let git_dir = if dir.is_absolute() {
            dir
        } else {
            std::env::current_dir().ok()?.join(dir)
        };
        return Some(Located {
            git_dir,
            work_tree: None,
        });
    }
    let mut at = Some(start);
    while let Some(dir) = at {
        let dot_git = dir.join(".git");
        let git_dir = match std::fs::metadata(&dot_git) {
            Ok(m) if m.is_dir() => dot_git.join("HEAD").is_file().then_some(dot_git),
            Ok(m) if m.is_file() => linked(&dot_git),
            _ => {
                at = dir.parent();
                continue;
            }
        };
        return git_dir.map(|git_dir| Located {
            git_dir,
            work_tree: Some(dir.to_path_buf()),
        });
    }
    None
}

/// The directory a `.git` file points at (`gitdir: ../.git/worktrees/x`, relative to the
/// file's directory).
fn linked(dot_git: &Path) -> Option<PathBuf> {
    let text = std::fs::read_to_string(dot_git).ok()?;
    let target = text.lines().next()?.strip_prefix("gitdir:")?.trim();
    if target.is_empty() {
        return None;
    }
    let target = Path::new(target);
    let dir = if target.is_absolute() {
        target.to_path_buf()
    } else {
        dot_git.parent()?.join(target)
    };
    dir.is_dir().then_some(dir)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    fn git(dir: &Path, args: &[&str]) {
        let ok = Command::new("git")
            .args(args)
            .current_dir(dir)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@example.com")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@example.com")
            .status()
            .unwrap()
            .success();
        assert!(ok, "git {args:?}");
    }

    /// Agrees with the repository's own answer, from a subdirectory and a linked worktree.
    #[test]
    fn finds_what_the_store_finds() {
        if std::env::var_os("GIT_DIR").is_some() {
            return;
        }
        let tmp = tempfile::tempdir().unwrap();
        let repo = tmp.path().join("repo");
        std::fs::create_dir_all(repo.join("a/b")).unwrap();
        git(&repo, &["init", "-q"]);
        git(&repo, &["commit", "-q", "--allow-empty", "-m", "x"]);
        git(&repo, &["worktree", "add", "-q", "../wt"]);
        for start in [repo.clone(), repo.join("a/b"), tmp.path().join("wt")] {
            let store = super::super::Store::open(&start).unwrap();
            let found = locate(&start).unwrap();
            assert_eq!(
                found.work_tree.unwrap().canonicalize().unwrap(),
                store.workdir().unwrap().canonicalize().unwrap()
            );
            assert_eq!(
                found.git_dir.canonicalize().unwrap(),
                store.git_dir().canonicalize().unwrap(),
                "{}",
                start.display()
            );
        }
        assert_eq!(locate(tmp.path()), None);
    }
}
