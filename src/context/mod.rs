//! The context engine (seed 001): deterministic bookkeeping of an agent session's context,
//! with zero model tokens spent on it — health by tool calls, per-session counters, artifact
//! folding, the preview gate, the context budget, behavioural modes and output density. No
//! clap, no printing.

pub mod artifacts;
pub mod budget;
pub mod health;
pub mod mode;
pub mod preview;
pub mod report;
pub mod session;
