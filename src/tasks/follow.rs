//! Following an agent's todo list (Claude Code's TodoWrite): the list's changes written as
//! task records, the items whose text holds a secret left out and reported (never silently
//! dropped, never echoed).

use anyhow::Result;

use super::todo::{self, Refused};
use super::{pins, seal};
use crate::memory::seal::Sealer;
use crate::memory::write::write_records;
use crate::model::kinds::Task;
use crate::model::{task, Body, Scope};
use crate::store::Store;

/// What following a todo list did.
#[derive(Debug)]
pub struct Followed {
    /// The items left out because their text holds a secret.
    pub refused: Vec<Refused>,
}

impl Followed {
    /// What to tell the agent and the log about the items left out of the list its `tool`
    /// wrote (`None` when none was).
    pub fn refusal(&self, tool: &str) -> Option<String> {
        if self.refused.is_empty() {
            return None;
        }
        let items: Vec<String> = self
            .refused
            .iter()
            .map(|r| format!("item {} ({})", r.item, r.rule))
            .collect();
        Some(format!(
            "{tool}: {} of the todo list not recorded as a task: it holds a secret; the other items were recorded. Take the secret out of the todo text (refer to where it is kept instead).",
            items.join(", ")
        ))
    }
}

/// Makes the branch's tasks follow an agent's todo list ([`todo::changes`]), without the
/// items whose text holds a secret; writes nothing when the list changes nothing.
pub fn follow_todos(store: &Store, todos: &[todo::Todo]) -> Result<Followed> {
    let (todos, refused) = todo::without_secrets(todos);
    let salt = task::salt();
    let mut sealer = Sealer::default();
    write_records(
        store,
        Scope::Branch,
        "task: follow the agent's todo list",
        |state| {
            let drafts = todo::changes(&state.tasks, &todos);
            if drafts.is_empty() {
                return Ok(Vec::new());
            }
            let now = store.now();
            let mut next = task::next_number(state);
            let edited: Vec<&str> = drafts
                .iter()
                .flat_map(|d| d.supersedes.iter().map(String::as_str))
                .collect();
            let mut out = pins(&mut sealer, state, &now, &edited)?;
            for mut d in drafts {
                if d.supersedes.iter().any(|id| state.renumbered.contains(id)) {
                    if let Body::Task(Task { claimed, .. }) = &mut d.body {
                        claimed.clear();
                    }
                }
                task::complete(&mut d.body, &mut next, &now, &salt);
                out.push(seal(&mut sealer, d, "the agent's todo list")?);
            }
            Ok::<_, anyhow::Error>(out)
        },
    )?;
    Ok(Followed { refused })
}
