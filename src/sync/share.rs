//! Where memory may go: the per-remote opt-in (`remote.<name>.runeShare`), the clones set up
//! by older versions (a remote with git-rune's fetch refspecs), the fork rule (a remote named
//! `upstream`, or the one `gh` resolved as the base, is never opted in by default), which
//! branches' session state may travel to a remote (only those published there), and this
//! clone's id, under which it publishes its refs (docs/security.md, "Where memory goes").

use anyhow::Result;
use sha2::{Digest, Sha256};

use crate::store::{fetch_refspecs, Store, BRANCHES_PREFIX};

/// The setting that opts a remote in (`true`) or out (`false`).
pub fn share_key(remote: &str) -> String {
    format!("remote.{remote}.runeShare")
}

/// Whether memory may be pushed to a remote, and why (for `status` and the messages).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sharing {
    /// `remote.<name>.runeShare=true` (set by `init`, `remote add`, or a first `sync`).
    OptedIn,
    /// No setting, but an older git-rune set this remote up (its fetch refspecs are there)
    /// and it is the remote that version shared memory with.
    SetUpBefore,
    /// `remote.<name>.runeShare=false` (`git rune remote remove`).
    OptedOut,
    /// No setting and nothing from an older version: memory stays here.
    NotOptedIn,
    /// A fork's upstream (named `upstream`, or `gh`'s base): never shared unless asked.
    Upstream,
}

impl Sharing {
    /// Whether memory is pushed there.
    pub fn pushes(self) -> bool {
        matches!(self, Sharing::OptedIn | Sharing::SetUpBefore)
    }

    /// Why, in a few words.
    pub fn why(self) -> &'static str {
        match self {
            Sharing::OptedIn => "opted in",
            Sharing::SetUpBefore => "set up by an earlier git-rune (its fetch refspecs)",
            Sharing::OptedOut => "opted out (`git rune remote remove`)",
            Sharing::NotOptedIn => "not opted in",
            Sharing::Upstream => "a fork's upstream: not opted in",
        }
    }

    /// The word `status --json` uses.
    pub fn as_str(self) -> &'static str {
        match self {
            Sharing::OptedIn => "opted-in",
            Sharing::SetUpBefore => "set-up-before",
            Sharing::OptedOut => "opted-out",
            Sharing::NotOptedIn => "not-opted-in",
            Sharing::Upstream => "upstream",
        }
    }
}

/// Whether `remote` looks like a fork's upstream: named `upstream`, or marked as the base
/// repository by GitHub's CLI (`remote.<name>.gh-resolved=base`).
pub fn is_upstream(store: &Store, remote: &str) -> bool {
    remote == "upstream"
        || store
            .config_string(&format!("remote.{remote}.gh-resolved"))
            .is_some_and(|v| v == "base")
}

/// Whether memory may be pushed to `remote` (a configured remote's name).
pub fn sharing(store: &Store, remote: &str) -> Sharing {
    match store.config_bool(&share_key(remote)) {
        Some(true) => return Sharing::OptedIn,
        Some(false) => return Sharing::OptedOut,
        None => {}
    }
    if is_upstream(store, remote) {
        return Sharing::Upstream;
    }
    // An older init added the fetch refspecs to every remote and shared memory with the
    // default one: `origin`, or the only remote. That one keeps working; the others ask.
    let key = format!("remote.{remote}.fetch");
    let refspecs = fetch_refspecs(remote);
    let set_up = refspecs[..2].iter().all(|s| store.config_has(&key, s));
    let remotes = store.remotes();
    let was_default = remote == "origin" || (remotes.len() == 1 && remotes[0] == remote);
    if set_up && was_default {
        Sharing::SetUpBefore
    } else {
        Sharing::NotOptedIn
    }
}

/// Every configured remote with how memory goes to it, sorted by name.
pub fn where_memory_goes(store: &Store) -> Vec<(String, Sharing)> {
    store
        .remotes()
        .into_iter()
        .map(|r| {
            let s = sharing(store, &r);
            (r, s)
        })
        .collect()
}

/// Opts `remote` in: `remote.<name>.runeShare=true`, and the fetch refspecs that let a plain
/// `git fetch` bring its memory. Returns whether anything changed.
pub fn opt_in(store: &Store, remote: &str) -> Result<bool> {
    let changed = store.config_bool(&share_key(remote)) != Some(true);
    if changed {
        store.set_config(&share_key(remote), Some("true"), false)?;
    }
    Ok(super::track_remote(store, remote)? || changed)
}

/// Opts `remote` out: `remote.<name>.runeShare=false`, its fetch refspecs and tracking refs
/// removed (nothing of it is merged later). Returns whether it was sharing before.
pub fn opt_out(store: &Store, remote: &str) -> Result<bool> {
    let before = sharing(store, remote).pushes();
    store.set_config(&share_key(remote), Some("false"), false)?;
    let key = format!("remote.{remote}.fetch");
    for spec in fetch_refspecs(remote) {
        if store.config_has(&key, &spec) {
            store.set_config(&key, Some(&spec), true)?;
        }
    }
    let prefix = format!("{}{remote}/", crate::store::TRACKING_PREFIX);
    for (name, _) in store.refs_under(&prefix)? {
        store.drop_tracking(&name)?;
    }
    Ok(before)
}

/// The remote `init` brings memory from and opts in: `origin`, else the only remote; never a
/// fork's upstream. `None` when there is no such remote.
pub fn init_remote(store: &Store) -> Option<String> {
    let remotes = store.remotes();
    let pick = if remotes.iter().any(|r| r == "origin") {
        Some("origin".to_owned())
    } else if remotes.len() == 1 {
        Some(remotes[0].clone())
    } else {
        None
    };
    pick.filter(|r| !is_upstream(store, r))
}

/// The local branch refs whose session state may go to `remote`: branches the remote has
/// (`refs/remotes/<remote>/<branch>`) or that are being pushed there now (`pushing`).
/// Another branch's state stays here, however it is pushed.
pub fn shared_branches(store: &Store, remote: &str, pushing: &[String]) -> Result<Vec<String>> {
    let published: std::collections::HashSet<String> = store
        .refs_under(&format!("refs/remotes/{remote}/"))?
        .into_iter()
        .filter_map(|(n, _)| {
            n.strip_prefix(&format!("refs/remotes/{remote}/"))
                .map(str::to_owned)
        })
        .collect();
    Ok(store
        .memory_refs()?
        .into_iter()
        .filter(|r| {
            r.strip_prefix(BRANCHES_PREFIX)
                .is_some_and(|b| published.contains(b) || pushing.iter().any(|p| p == b))
        })
        .collect())
}

/// This clone's id (16 hex digits), made on first use and kept in `<common-dir>/rune/clone-id`:
/// the name it publishes its refs under on every remote.
pub fn clone_id(store: &Store) -> Result<String> {
    let dir = store.common_dir().join("rune");
    let path = dir.join("clone-id");
    if let Ok(text) = std::fs::read_to_string(&path) {
        let id = text.trim();
        if id.len() == 16 && id.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Ok(id.to_ascii_lowercase());
        }
    }
    std::fs::create_dir_all(&dir)?;
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let seed = format!(
        "{nanos} {} {}",
        std::process::id(),
        store.common_dir().display()
    );
    let digest = Sha256::digest(seed.as_bytes());
    let id: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
    // Written through a rename: two processes making it at once agree on one.
    let tmp = dir.join(format!("clone-id.tmp-{}", std::process::id()));
    std::fs::write(&tmp, format!("{id}\n"))?;
    let linked = std::fs::hard_link(&tmp, &path);
    let _ = std::fs::remove_file(&tmp);
    match linked {
        Ok(()) => Ok(id),
        Err(_) => Ok(std::fs::read_to_string(&path)?.trim().to_owned()),
    }
}

/// Whether this clone has said, for `target` (a remote name or URL), that a push there
/// carries no memory; records that it now has. Said once per target.
pub fn tell_once(store: &Store, target: &str) -> bool {
    let path = store.common_dir().join("rune").join("told-not-shared");
    let told = std::fs::read_to_string(&path).unwrap_or_default();
    if told.lines().any(|l| l == target) {
        return false;
    }
    crate::files::append_line(&path, &target.replace('\n', " "));
    true
}
