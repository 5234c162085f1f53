//! The use cases of memory itself — reading it (snapshot, load, history, diff), writing it
//! (the seal, record, save) and keeping the `.rune/` view on disk — for the commands, hooks and
//! agents above. No clap and no printing: each returns what it did.

pub mod diff;
pub mod digest_cache;
pub mod echo_cache;
pub mod echo_index;
pub mod gate_cache;
pub mod history;
pub mod init;
pub mod load;
pub mod record;
pub mod rune_dir;
pub mod save;
mod save_tail;
pub mod seal;
mod snapshot;
pub mod user;
pub mod verify;
pub mod view_dir;
pub mod view_index;
pub mod write;

pub use snapshot::Snapshot;
