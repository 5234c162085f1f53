//! Registering `git rune mcp` where MCP clients look for servers: `mcpServers` in a JSON
//! settings file (Claude Code's `.mcp.json`, Cursor's `.cursor/mcp.json`, Gemini CLI's
//! `.gemini/settings.json`) edited through a syntax tree, or `[mcp_servers.git-rune]` in
//! Codex's `~/.codex/config.toml` edited with `toml_edit`. As with the hooks, everything
//! else in the file stays as written, and uninstall removes only what install added.

use std::path::Path;

use jsonc_parser::json;
use toml_edit::{Array, DocumentMut, Item, Table};

use super::settings_file::{
    finish_removal, io_error, object_at, open_for_install, parse, read, write, Change,
    SettingsError,
};

/// The server's name in every client's configuration.
pub const SERVER: &str = "git-rune";
/// How a client starts the server: `git rune mcp`, in the repository it runs in.
const COMMAND: &str = "git";
const ARGS: [&str; 2] = ["rune", "mcp"];

/// The container install may create, and the entry it adds, as [`Change`] names them.
const JSON_CONTAINER: &str = "mcpServers";
const TOML_CONTAINER: &str = "mcp_servers";
/// Line breaks install added to a TOML file before the table, recorded beside the
/// containers it created so uninstall takes out exactly those.
const FINAL_NEWLINE: &str = "final-newline";
const BLANK_LINE: &str = "blank-line";

/// Whether a JSON settings file registers git-rune's server.
pub fn installed_json(path: &Path) -> Result<bool, SettingsError> {
    let Some(text) = read(path)? else {
        return Ok(false);
    };
    let root = parse(path, &text)?;
    Ok(root
        .object_value()
        .and_then(|o| o.object_value(JSON_CONTAINER))
        .is_some_and(|s| s.get(SERVER).is_some()))
}

/// Adds `mcpServers.git-rune` to a JSON settings file (created if missing); an entry of that
/// name already there is left as it is.
pub fn install_json(path: &Path) -> Result<Change, SettingsError> {
    let (root, obj, mut change) = open_for_install(path)?;
    if obj.get(JSON_CONTAINER).is_none() {
        change.created.push(JSON_CONTAINER.into());
    }
    let servers = object_at(&obj, JSON_CONTAINER, path)?;
    if servers.get(SERVER).is_some() {
        return Ok(Change::default());
    }
    let (command, rune, mcp) = (COMMAND, ARGS[0], ARGS[1]);
    servers.append(SERVER, json!({ "command": command, "args": [rune, mcp] }));
    change.entries.push(format!("{JSON_CONTAINER}.{SERVER}"));
    write(path, &root.to_string())?;
    Ok(change)
}

/// Removes `mcpServers.git-rune`, then `mcpServers` when install created it and it is left
/// empty, then the file when install created it and it is left as `{}`.
pub fn uninstall_json(
    path: &Path,
    created: Option<&[String]>,
    file_created: bool,
) -> Result<Change, SettingsError> {
    let Some(text) = read(path)? else {
        return Ok(Change::default());
    };
    let root = parse(path, &text)?;
    let mut change = Change::default();
    let Some(obj) = root.object_value() else {
        return Ok(change);
    };
    let Some(servers) = obj.object_value(JSON_CONTAINER) else {
        return Ok(change);
    };
    let Some(ours) = servers.get(SERVER) else {
        return Ok(change);
    };
    ours.remove();
    change.entries.push(format!("{JSON_CONTAINER}.{SERVER}"));
    let removable = created.is_none_or(|c| c.iter().any(|x| x == JSON_CONTAINER));
    if servers.properties().is_empty() && removable {
        if let Some(p) = obj.get(JSON_CONTAINER) {
            p.remove();
        }
    }
    change.file_removed = finish_removal(path, &root, &obj, file_created)?;
    Ok(change)
}

/// Parses a TOML file, refusing it with its line and column when it is not valid.
pub(super) fn parse_toml(path: &Path, text: &str) -> Result<DocumentMut, SettingsError> {
    text.parse::<DocumentMut>().map_err(|e| {
        let at = e.span().map_or(0, |s| s.start).min(text.len());
        let before = &text[..at];
        let line = before.matches('\n').count() + 1;
        let column = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
        SettingsError::Invalid {
            path: path.to_owned(),
            line,
            column,
            message: e.message().to_owned(),
        }
    })
}

/// The table `what` (a dotted path: its last key is looked up in `table`), created implicit
/// (no header of its own) and noted in `created` when missing.
pub(super) fn implicit_table<'t>(
    table: &'t mut Table,
    what: &str,
    path: &Path,
    created: &mut Vec<String>,
) -> Result<&'t mut Table, SettingsError> {
    let key = what.rsplit('.').next().unwrap_or(what);
    if !table.contains_key(key) {
        let mut t = Table::new();
        t.set_implicit(true);
        table.insert(key, Item::Table(t));
        created.push(what.into());
    }
    (table.get_mut(key).and_then(Item::as_table_mut)).ok_or_else(|| SettingsError::Shape {
        path: path.to_owned(),
        what: what.into(),
        expected: "a table",
    })
}

/// The end of a TOML uninstall: the file removed when install created it and nothing is left
/// in it (true), else written back without the line breaks install added (those `added`
/// names).
pub(super) fn write_toml_back(
    path: &Path,
    doc: &DocumentMut,
    file_created: bool,
    added: &dyn Fn(&str) -> bool,
) -> Result<bool, SettingsError> {
    let mut out = doc.to_string();
    if file_created && out.trim().is_empty() {
        std::fs::remove_file(path).map_err(io_error("remove", path))?;
        return Ok(true);
    }
    if added(BLANK_LINE) && out.ends_with("\n\n") {
        out.pop();
    }
    if added(FINAL_NEWLINE) && out.ends_with('\n') {
        out.pop();
    }
    write(path, &out)?;
    Ok(false)
}

/// Whether a TOML file registers git-rune's server.
pub fn installed_toml(path: &Path) -> Result<bool, SettingsError> {
    let Some(text) = read(path)? else {
        return Ok(false);
    };
    let doc = parse_toml(path, &text)?;
    Ok(doc
        .get(TOML_CONTAINER)
        .and_then(Item::as_table_like)
        .is_some_and(|t| t.contains_key(SERVER)))
}

/// Adds `[mcp_servers.git-rune]` to a TOML file (created if missing).
pub fn install_toml(path: &Path) -> Result<Change, SettingsError> {
    let existing = read(path)?;
    let file_created = existing.is_none();
    let text = existing.unwrap_or_default();
    let mut doc = parse_toml(path, &text)?;
    let mut change = Change {
        file_created,
        ..Change::default()
    };
    // `[mcp_servers.git-rune]` alone, without an empty `[mcp_servers]` header.
    let servers = implicit_table(&mut doc, TOML_CONTAINER, path, &mut change.created)?;
    if servers.contains_key(SERVER) {
        return Ok(Change::default());
    }
    let mut ours = Table::new();
    ours.insert("command", toml_edit::value(COMMAND));
    ours.insert("args", toml_edit::value(Array::from_iter(ARGS)));
    servers.insert(SERVER, Item::Table(ours));
    change.entries.push(format!("{TOML_CONTAINER}.{SERVER}"));
    let mut out = doc.to_string();
    // The new table starts a paragraph of its own after the user's last line; uninstall
    // takes out the line breaks install added (named in `created`).
    if !text.is_empty() && !text.ends_with('\n') {
        change.created.push(FINAL_NEWLINE.into());
    }
    let table = format!("[{TOML_CONTAINER}.{SERVER}]");
    if !text.trim().is_empty() && !text.ends_with("\n\n") {
        if let Some(i) = out.find(&table).filter(|i| *i > 0) {
            out.insert(i, '\n');
            change.created.push(BLANK_LINE.into());
        }
    }
    write(path, &out)?;
    Ok(change)
}

/// Removes `[mcp_servers.git-rune]`, `mcp_servers` when install created it and it is left
/// empty, and the file when install created it and nothing else is in it.
pub fn uninstall_toml(
    path: &Path,
    created: Option<&[String]>,
    file_created: bool,
) -> Result<Change, SettingsError> {
    let Some(text) = read(path)? else {
        return Ok(Change::default());
    };
    let mut doc = parse_toml(path, &text)?;
    let mut change = Change::default();
    let Some(servers) = doc
        .get_mut(TOML_CONTAINER)
        .and_then(Item::as_table_like_mut)
    else {
        return Ok(change);
    };
    if servers.remove(SERVER).is_none() {
        return Ok(change);
    }
    change.entries.push(format!("{TOML_CONTAINER}.{SERVER}"));
    let removable = created.is_none_or(|c| c.iter().any(|x| x == TOML_CONTAINER));
    if servers.is_empty() && removable {
        doc.remove(TOML_CONTAINER);
    }
    let added = |what: &str| created.is_some_and(|c| c.iter().any(|x| x == what));
    change.file_removed = write_toml_back(path, &doc, file_created, &added)?;
    Ok(change)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MCP_JSON: &str = r#"{
  "mcpServers": {
    "github": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-github"]
    }
  },
  "zUnknown": true
}
"#;

    fn json_roundtrip(original: Option<&str>) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(".cursor/mcp.json");
        if let Some(text) = original {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, text).unwrap();
        }
        let added = install_json(&path).unwrap();
        assert_eq!(added.entries, ["mcpServers.git-rune"]);
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(v["mcpServers"]["git-rune"]["command"], "git");
        assert_eq!(v["mcpServers"]["git-rune"]["args"][1], "mcp");
        assert!(installed_json(&path).unwrap());
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(install_json(&path).unwrap().entries.is_empty());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
        let removed = uninstall_json(&path, Some(&added.created), added.file_created).unwrap();
        assert_eq!(removed.entries.len(), 1);
        match original {
            Some(o) => assert_eq!(std::fs::read_to_string(&path).unwrap(), o),
            None => assert!(!path.exists()),
        }
    }

    #[test]
    fn json_install_then_uninstall_gives_the_file_back() {
        json_roundtrip(Some(MCP_JSON));
        json_roundtrip(Some("{}\n"));
        json_roundtrip(Some("{\n  \"theme\": \"dark\"\n}\n"));
        json_roundtrip(None);
    }

    const CODEX: &str = "# my codex settings\nmodel = \"o4-mini\" # fast\n\n[mcp_servers.docs]\ncommand = \"docs-mcp\"\nargs = [\"--stdio\"]\n";

    fn toml_roundtrip(original: Option<&str>) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(".codex/config.toml");
        if let Some(text) = original {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, text).unwrap();
        }
        let added = install_toml(&path).unwrap();
        assert_eq!(added.entries, ["mcp_servers.git-rune"]);
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            text.contains(
                "[mcp_servers.git-rune]\ncommand = \"git\"\nargs = [\"rune\", \"mcp\"]\n"
            ),
            "{text}"
        );
        assert!(!text.contains("[mcp_servers]\n"), "{text}");
        if let Some(o) = original {
            assert!(text.starts_with(o), "{text}");
        }
        assert!(installed_toml(&path).unwrap());
        assert!(install_toml(&path).unwrap().entries.is_empty());
        let removed = uninstall_toml(&path, Some(&added.created), added.file_created).unwrap();
        assert_eq!(removed.entries.len(), 1);
        match original {
            Some(o) => assert_eq!(std::fs::read_to_string(&path).unwrap(), o),
            None => assert!(!path.exists()),
        }
    }

    #[test]
    fn toml_install_then_uninstall_gives_the_file_back() {
        toml_roundtrip(Some(CODEX));
        toml_roundtrip(Some("model = \"o3\"\n"));
        toml_roundtrip(Some("model = \"o3\""));
        toml_roundtrip(Some("model = \"o3\"\n\n"));
        toml_roundtrip(None);
    }

    #[test]
    fn invalid_files_are_refused_with_line_and_column() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        std::fs::write(&path, "model = \"o3\"\nbroken = \n").unwrap();
        let e = install_toml(&path).unwrap_err().to_string();
        assert!(e.contains("config.toml:2:"), "{e}");
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "model = \"o3\"\nbroken = \n"
        );
        let json = dir.path().join("mcp.json");
        std::fs::write(&json, "{\n  \"mcpServers\": {,}\n}\n").unwrap();
        assert!(install_json(&json)
            .unwrap_err()
            .to_string()
            .contains("mcp.json:2:"));
        std::fs::write(&json, "{\"mcpServers\": []}").unwrap();
        assert!(matches!(
            install_json(&json),
            Err(SettingsError::Shape { .. })
        ));
    }
}
