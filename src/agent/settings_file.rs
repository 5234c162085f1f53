//! A JSON settings file of an agent edited through its concrete syntax tree, so everything
//! else in it stays exactly as written: reading it, parsing it (errors with line and column),
//! writing it whole, the error a refused file gives, what a change did, and removing
//! git-rune's hook handlers, which Claude Code's settings and the other agents' hook files
//! share.

use std::path::{Path, PathBuf};

use jsonc_parser::cst::{CstArray, CstObject, CstRootNode};
use jsonc_parser::ParseOptions;

/// How a hook file nests its handlers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// `hooks.<Event>: [{ "matcher"?: …, "hooks": [handler] }]`.
    Grouped,
    /// `hooks.<event>: [handler]`.
    Flat,
}

/// Why a settings file was not changed.
#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    #[error("{}:{line}:{column}: not valid JSON: {message}", path.display())]
    Invalid {
        path: PathBuf,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{}: the top level is not a JSON object", path.display())]
    NotAnObject { path: PathBuf },
    #[error("{}: {what} is not {expected}", path.display())]
    Shape {
        path: PathBuf,
        what: String,
        expected: &'static str,
    },
    #[error("cannot {what} {}: {}", path.display(), crate::error::io_text(source))]
    Io {
        what: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
}

/// What install or uninstall did to a settings file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Change {
    /// Hook entries added or removed, as `Event` or `Event (matcher)`.
    pub entries: Vec<String>,
    /// Containers install created (`hooks`, `hooks.<Event>`), so uninstall removes exactly
    /// those when they end up empty.
    pub created: Vec<String>,
    pub file_created: bool,
    pub file_removed: bool,
    /// Entries an older install wrote, brought up to date (guarded, new spelling).
    pub upgraded: Vec<String>,
}

/// The `hooks` object of a file opened for an install, created (and noted in
/// `change.created`) when missing.
pub(super) fn hooks_at(
    obj: &CstObject,
    path: &Path,
    change: &mut Change,
) -> Result<CstObject, SettingsError> {
    if obj.get("hooks").is_none() {
        change.created.push("hooks".into());
    }
    object_at(obj, "hooks", path)
}

/// The array `hooks.<event>`, created (and noted in `change.created`) when missing.
pub(super) fn event_array(
    hooks: &CstObject,
    event: &str,
    path: &Path,
    change: &mut Change,
) -> Result<CstArray, SettingsError> {
    match hooks.get(event) {
        Some(p) => p.array_value().ok_or_else(|| SettingsError::Shape {
            path: path.to_owned(),
            what: format!("hooks.{event}"),
            expected: "an array",
        }),
        None => {
            change.created.push(format!("hooks.{event}"));
            Ok(hooks.array_value_or_set(event))
        }
    }
}

pub(super) fn object_at(
    obj: &CstObject,
    name: &str,
    path: &Path,
) -> Result<CstObject, SettingsError> {
    match obj.get(name) {
        Some(p) => p.object_value().ok_or_else(|| SettingsError::Shape {
            path: path.to_owned(),
            what: name.to_owned(),
            expected: "an object",
        }),
        None => Ok(obj.object_value_or_set(name)),
    }
}

/// The error of an I/O step (`what`: "read", "remove", …) on `path`.
pub(super) fn io_error<'a>(
    what: &'static str,
    path: &'a Path,
) -> impl FnOnce(std::io::Error) -> SettingsError + 'a {
    move |source| SettingsError::Io {
        what,
        path: path.to_owned(),
        source,
    }
}

/// `$<var>`, else `$HOME/<sub>` (an empty variable counts as unset).
pub(super) fn env_or_home(var: &str, sub: &str) -> Option<PathBuf> {
    let dir = |v: &str| {
        std::env::var_os(v)
            .filter(|h| !h.is_empty())
            .map(PathBuf::from)
    };
    dir(var).or_else(|| dir("HOME").map(|h| h.join(sub)))
}

pub(super) fn read(path: &Path) -> Result<Option<String>, SettingsError> {
    match std::fs::read_to_string(path) {
        Ok(t) => Ok(Some(t)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(io_error("read", path)(e)),
    }
}

/// Parses strictly as JSON first (Claude Code reads it as JSON), then into the syntax tree.
pub(super) fn parse(path: &Path, text: &str) -> Result<CstRootNode, SettingsError> {
    if let Err(e) = serde_json::from_str::<serde_json::Value>(text) {
        return Err(SettingsError::Invalid {
            path: path.to_owned(),
            line: e.line(),
            column: e.column(),
            message: e.to_string(),
        });
    }
    CstRootNode::parse(text, &ParseOptions::default()).map_err(|e| SettingsError::Invalid {
        path: path.to_owned(),
        line: e.line_display(),
        column: e.column_display(),
        message: e.kind().to_string(),
    })
}

/// A JSON settings file opened for an install: its syntax tree (`{}` when there is no file),
/// its top-level object, and the change so far (whether the file is new).
pub(super) fn open_for_install(
    path: &Path,
) -> Result<(CstRootNode, CstObject, Change), SettingsError> {
    let existing = read(path)?;
    let change = Change {
        file_created: existing.is_none(),
        ..Change::default()
    };
    let root = parse(path, existing.as_deref().unwrap_or("{}\n"))?;
    let obj = root
        .object_value()
        .ok_or_else(|| SettingsError::NotAnObject {
            path: path.to_owned(),
        })?;
    Ok((root, obj, change))
}

/// Writes through a temporary file and a rename.
pub(super) fn write(path: &Path, text: &str) -> Result<(), SettingsError> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(io_error("create the directory of", path))?;
    }
    crate::files::write_atomic(path, text.as_bytes())
        .map(drop)
        .map_err(io_error("write", path))
}

pub(super) fn label(event: &str, matcher: Option<&str>) -> String {
    match matcher {
        Some(m) => format!("{event} ({m})"),
        None => event.to_owned(),
    }
}

pub(super) fn string_at(obj: &CstObject, key: &str) -> Option<String> {
    obj.get(key)?.value()?.as_string_lit()?.decoded_value().ok()
}

/// Whether a handler object runs git-rune's hook (its `command` or `bash`).
pub(super) fn handler_is_ours(obj: &CstObject, ours: &dyn Fn(&str) -> bool) -> bool {
    ["command", "bash"]
        .iter()
        .filter_map(|k| string_at(obj, k))
        .any(|c| ours(&c))
}

/// Where git-rune's handlers (those `ours` recognises) sit in a hook file: per group holding
/// any (flat layout: per handler), its event, its `matcher`, its index in `hooks.<event>` and
/// the indexes of those handlers in it (flat layout: `[0]`), as the agent counts them.
#[allow(clippy::type_complexity)]
pub(super) fn ours_at(
    path: &Path,
    layout: Layout,
    ours: &dyn Fn(&CstObject) -> bool,
) -> Result<Vec<(String, Option<String>, usize, Vec<usize>)>, SettingsError> {
    let Some(text) = read(path)? else {
        return Ok(Vec::new());
    };
    let root = parse(path, &text)?;
    let mut out = Vec::new();
    let Some(hooks) = root.object_value().and_then(|o| o.object_value("hooks")) else {
        return Ok(out);
    };
    for prop in hooks.properties() {
        let event = prop.decoded_name().unwrap_or_default();
        let groups = prop.array_value().map(|a| a.elements()).unwrap_or_default();
        for (g, obj) in groups.iter().enumerate() {
            let Some(obj) = obj.as_object() else { continue };
            let handlers: Vec<usize> = match layout {
                Layout::Flat => [0].into_iter().filter(|_| ours(&obj)).collect(),
                Layout::Grouped => (obj.array_value("hooks").map(|a| a.elements()))
                    .unwrap_or_default()
                    .iter()
                    .enumerate()
                    .filter(|(_, h)| h.as_object().is_some_and(|h| ours(&h)))
                    .map(|(h, _)| h)
                    .collect(),
            };
            if !handlers.is_empty() {
                out.push((event.clone(), string_at(&obj, "matcher"), g, handlers));
            }
        }
    }
    Ok(out)
}

/// Removes git-rune's hook handlers (those `ours` recognises), in either layout: handlers
/// directly in an event's array, or in matcher groups under `hooks` (Claude Code's). Then a group left without handlers goes, and so does a container in
/// `created` (what install made) left empty — or, when that is unknown, any container
/// git-rune's removal left empty. A file that install created and that ends as `{}` (or
/// holding only the `version` install wrote) is removed.
pub fn remove_hooks(
    path: &Path,
    created: Option<&[String]>,
    file_created: bool,
    ours: &dyn Fn(&str) -> bool,
) -> Result<Change, SettingsError> {
    let Some(text) = read(path)? else {
        return Ok(Change::default());
    };
    let root = parse(path, &text)?;
    let mut change = Change::default();
    let Some(obj) = root.object_value() else {
        return Ok(change);
    };
    let Some(hooks) = obj.object_value("hooks") else {
        return Ok(change);
    };
    let removable = |what: &str| created.is_none_or(|c| c.iter().any(|x| x == what));
    for prop in hooks.properties() {
        let event = prop.decoded_name().unwrap_or_default();
        let Some(arr) = prop.array_value() else {
            continue;
        };
        let mut touched = false;
        for item in arr.elements() {
            let Some(o) = item.as_object() else { continue };
            if handler_is_ours(&o, ours) {
                change.entries.push(event.clone());
                item.remove();
                touched = true;
                continue;
            }
            let Some(inner) = o.array_value("hooks") else {
                continue;
            };
            let mut removed = false;
            for h in inner.elements() {
                if h.as_object().is_some_and(|h| handler_is_ours(&h, ours)) {
                    h.remove();
                    removed = true;
                }
            }
            if removed {
                change
                    .entries
                    .push(label(&event, string_at(&o, "matcher").as_deref()));
                touched = true;
                if inner.elements().is_empty() {
                    item.remove();
                }
            }
        }
        if touched && arr.elements().is_empty() && removable(&format!("hooks.{event}")) {
            prop.remove();
        }
    }
    if change.entries.is_empty() {
        return Ok(change);
    }
    if hooks.properties().is_empty() && removable("hooks") {
        if let Some(p) = obj.get("hooks") {
            p.remove();
        }
    }
    // The version line install added goes with it.
    if created.is_some_and(|c| c.iter().any(|x| x == "version")) {
        if let Some(p) = obj.get("version") {
            p.remove();
        }
    }
    change.file_removed = finish_removal(path, &root, &obj, file_created)?;
    Ok(change)
}

/// The end of an uninstall: the file removed when install created it and nothing is left in
/// it (true), else written back.
pub(super) fn finish_removal(
    path: &Path,
    root: &CstRootNode,
    obj: &CstObject,
    file_created: bool,
) -> Result<bool, SettingsError> {
    if file_created && obj.properties().is_empty() {
        std::fs::remove_file(path).map_err(io_error("remove", path))?;
        return Ok(true);
    }
    write(path, &root.to_string())?;
    Ok(false)
}
