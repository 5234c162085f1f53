//! What the command line hands over besides flags: text read from a file or standard input
//! (`-F FILE`, `--<flag>-file FILE`, `-` for stdin, as `git commit -F -`), and paths typed
//! relative to the current directory (as git takes them), turned into work-tree paths.

use std::io::Read as _;
use std::path::{Component, Path, PathBuf};

use anyhow::Result;

use super::Context;
use crate::error;
use crate::store::Store;

impl Context {
    /// The text of a flag that may also come from a file: `value` as typed (`-` reads
    /// standard input), or the contents of `file` (`-` for standard input). `flag` names the
    /// flag in messages. Trailing newlines of a file are dropped, as `git commit -F` does.
    pub fn text(
        &self,
        flag: &str,
        value: Option<String>,
        file: Option<PathBuf>,
    ) -> Result<Option<String>> {
        match (value, file) {
            (Some(v), _) if v == "-" => self.stdin_text(flag).map(Some),
            (Some(v), _) => Ok(Some(v)),
            (None, Some(f)) if f.as_os_str() == "-" => self.stdin_text(flag).map(Some),
            (None, Some(f)) => {
                let path = self.dir.join(&f);
                let data = std::fs::read(&path).map_err(|e| {
                    error::input(
                        format!("cannot read {} for {flag}: {}", f.display(), error::io_text(&e)),
                        "name a file that exists (relative to the current directory), or - for standard input",
                    )
                })?;
                let text = String::from_utf8(data).map_err(|_| {
                    error::input(
                        format!("{} (for {flag}) is not UTF-8 text", f.display()),
                        "give a text file",
                    )
                })?;
                Ok(Some(trim_end_newlines(text)))
            }
            (None, None) => Ok(None),
        }
    }

    /// [`Context::text`] for a flag the command needs (clap makes sure one form was given).
    pub fn required_text(
        &self,
        flag: &str,
        value: Option<String>,
        file: Option<PathBuf>,
    ) -> Result<String> {
        self.text(flag, value, file)?.ok_or_else(|| {
            error::usage(
                format!("{flag} is required"),
                format!("pass {flag} \"…\", or {flag}-file FILE (- for standard input)"),
            )
        })
    }

    /// Every value of a repeatable flag, `-` read from standard input.
    pub fn texts(&self, flag: &str, values: Vec<String>) -> Result<Vec<String>> {
        values
            .into_iter()
            .map(|v| {
                if v == "-" {
                    self.stdin_text(flag)
                } else {
                    Ok(v)
                }
            })
            .collect()
    }

    /// Standard input, read once: a second flag asking for it is an error, not an empty text.
    fn stdin_text(&self, flag: &str) -> Result<String> {
        if let Some(first) = self.stdin_read_by.replace(Some(flag.to_owned())) {
            return Err(error::usage(
                format!("{first} already read standard input; {flag} cannot read it too"),
                "give the other text in a file (--<flag>-file FILE)",
            ));
        }
        let mut data = Vec::new();
        std::io::stdin()
            .lock()
            .read_to_end(&mut data)
            .map_err(|e| {
                error::environment(
                    format!(
                        "cannot read standard input for {flag}: {}",
                        error::io_text(&e)
                    ),
                    "pipe the text in, or name a file",
                )
            })?;
        let text = String::from_utf8(data).map_err(|_| {
            error::input(
                format!("standard input (for {flag}) is not UTF-8 text"),
                "pipe text in",
            )
        })?;
        Ok(trim_end_newlines(text))
    }

    /// `path` as typed (relative to the current directory, or absolute) as a path relative
    /// to the work tree's root, with `/` separators; a path outside the work tree is an
    /// error that names it.
    pub fn repo_path(&self, store: &Store, path: &str) -> Result<String> {
        let Some(root) = store.workdir() else {
            return Ok(path.to_owned());
        };
        let typed = Path::new(path);
        let absolute = if typed.is_absolute() {
            typed.to_path_buf()
        } else {
            self.dir.join(typed)
        };
        let absolute = real(&normalize(&absolute));
        let root = real(&normalize(root));
        match absolute.strip_prefix(&root) {
            Ok(rel) => {
                let parts: Vec<String> = rel
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect();
                Ok(if parts.is_empty() {
                    ".".to_owned()
                } else {
                    parts.join("/")
                })
            }
            Err(_) => Err(error::input(
                format!("{path} is outside the work tree ({})", root.display()),
                "name files inside the repository (paths are relative to the current directory, as git takes them)",
            )),
        }
    }

    /// [`Context::repo_path`] for each path.
    pub fn repo_paths(&self, store: &Store, paths: &[String]) -> Result<Vec<String>> {
        paths.iter().map(|p| self.repo_path(store, p)).collect()
    }
}

/// `text` without the newlines (and carriage returns) at its end.
fn trim_end_newlines(mut text: String) -> String {
    while text.ends_with('\n') || text.ends_with('\r') {
        text.pop();
    }
    text
}

/// `.` and `..` taken out of a path without touching the file system.
fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// The path with symbolic links resolved as far as it exists (a file named for the first
/// time need not exist), so `/tmp` and its real name compare equal.
fn real(p: &Path) -> PathBuf {
    let mut existing = p.to_path_buf();
    let mut rest = Vec::new();
    while !existing.exists() {
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_owned());
                existing = parent.to_path_buf();
            }
            _ => return p.to_path_buf(),
        }
    }
    let mut out = existing.canonicalize().unwrap_or(existing);
    for name in rest.into_iter().rev() {
        out.push(name);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_normalized_lexically() {
        assert_eq!(
            normalize(Path::new("/a/b/../c/./d")),
            PathBuf::from("/a/c/d")
        );
        assert_eq!(trim_end_newlines("text\n\r\n".into()), "text");
    }
}
