//! Both memory refs of the current branch, read and folded: the state every read of memory
//! starts from.

use std::rc::Rc;

use crate::model::{fold, Scope, State};
use crate::store::{self, branch_ref, HeadInfo, Store, Tip, MEMORY_REF};

/// `refs/rune/memory` and a branch's session-state ref, folded into one state.
pub struct Snapshot {
    pub head: HeadInfo,
    pub branch_ref: String,
    pub memory_tip: Option<Tip>,
    pub branch_tip: Option<Tip>,
    pub state: State,
}

/// Where memory is read from: the code commit, and the two memory commits.
#[derive(Clone)]
pub struct Tips {
    pub head: HeadInfo,
    pub branch_ref: String,
    pub memory: Option<Tip>,
    pub branch: Option<Tip>,
}

impl Tips {
    /// The current branch, and the tips of `refs/rune/memory` and of its state ref now.
    pub fn now(store: &Store) -> store::Result<Tips> {
        let head = store.head_info()?;
        let branch_ref = branch_ref(head.branch.as_deref());
        Ok(Tips {
            memory: store.tip(MEMORY_REF)?,
            branch: store.tip(&branch_ref)?,
            head,
            branch_ref,
        })
    }
}

impl Snapshot {
    /// Reads `refs/rune/memory` and the current branch's state ref.
    pub fn read(store: &Store) -> store::Result<Snapshot> {
        Snapshot::at_tips(store, Tips::now(store)?)
    }

    /// The records at two given memory commits (either may be absent), folded; `head` says
    /// where the code was.
    pub fn at_tips(store: &Store, t: Tips) -> store::Result<Snapshot> {
        let memory = match t.memory {
            Some(c) => store.tip_records(MEMORY_REF, c)?,
            None => Rc::default(),
        };
        let branch = match t.branch {
            Some(c) => store.tip_records(&t.branch_ref, c)?,
            None => Rc::default(),
        };
        let state = fold(memory.iter().chain(branch.iter()));
        Ok(Snapshot {
            head: t.head,
            branch_ref: t.branch_ref,
            memory_tip: t.memory,
            branch_tip: t.branch,
            state,
        })
    }

    /// The ref name and tip a record scope lives in.
    pub fn scope_ref(&self, scope: Scope) -> (&str, Option<Tip>) {
        match scope {
            Scope::Memory => (MEMORY_REF, self.memory_tip),
            Scope::Branch => (&self.branch_ref, self.branch_tip),
        }
    }
}
