//! The record kinds: one module per kind, each a struct with its own fields and rules.

mod checkpoint;
mod context_block;
mod convention;
mod cumulative_note;
mod decision;
mod delete;
mod echo;
mod echo_ref;
mod instinct;
mod invariant;
mod learning;
mod oracle;
mod progress;
mod resolve;
mod session;
pub(crate) mod skip;
mod task;
mod task_note;

pub use checkpoint::Checkpoint;
pub use context_block::ContextBlock;
pub use convention::Convention;
pub use cumulative_note::CumulativeNote;
pub use decision::Decision;
pub use delete::Delete;
pub use echo::Echo;
pub use echo_ref::EchoRef;
pub use instinct::Instinct;
pub use invariant::Invariant;
pub use learning::Learning;
pub use oracle::Oracle;
pub use progress::Progress;
pub use resolve::Resolve;
pub use session::Session;
pub use task::Task;
pub use task_note::TaskNote;
