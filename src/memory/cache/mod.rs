//! Memory's local caches, together, each through the one interface (`crate::cache::Cache`:
//! a file per key under `<git-dir>/rune/cache/<name>/`, postcard with a versioned header,
//! written whole, the newest kept). Those keyed by a pair of memory trees live in the common
//! directory, where every worktree shares them: a tree id names its records exactly, so a
//! value made once serves every later read of the pair and needs no invalidation. Those that
//! describe one work tree's view live in its own git directory.
//!
//! * `digest`: `load`'s digest, per tree pair;
//! * `echoes`: the folded echoes, per tree pair (`echo show`, `load --role`);
//! * `echo_index`: `echo search`'s index of them, per tree pair;
//! * `gate`: the load gate's verdicts, per memory ref (the work tree's);
//! * `verdicts`: the gate's verdicts of the records briefings scanned, by id;
//! * `view_index`: what the view's refresh knows of the state it shows (the work tree's).

pub mod digest;
pub mod echo_index;
pub mod echoes;
pub mod gate;
pub mod verdicts;
pub mod view_index;

use crate::store::Tip;

/// The key of a memory tree and a session-state tree (either may be absent).
pub fn key(memory: Option<Tip>, branch: Option<Tip>) -> String {
    let tree = |t: Option<Tip>| t.map(|t| t.tree.to_string()).unwrap_or_else(|| "-".into());
    format!("{}-{}", tree(memory), tree(branch))
}
