//! Commit notes (`refs/notes/rune`): the link from each code commit to the memory that
//! produced it. The note format, composing a new commit's note, carrying notes across amend
//! and rebase, joining two clones' notes (sync), and reading memory back through notes
//! (`why`, `--at`).

pub mod carriers;
pub mod compose;
mod format;
pub mod join;
pub mod rewrite;
pub mod status;
pub mod why;

pub use format::CommitNote;
