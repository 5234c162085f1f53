//! Git hooks: installing git-rune's block beside the user's own hooks, and running one hook
//! (the installed shims call `git-rune hook <name>`).

pub mod install;
pub mod run;
