//! The record kinds: one module per kind, each a struct with its fields and the rules only it
//! knows ([`KindRules`]), and the one table below that every per-kind dispatch is generated
//! from: the `Body` and `Kind` enums, the `kind` tag, the ref a kind lives under, the decoder
//! of stored lines, validation, the walk over text fields, `--json` and the fold's lists.
//!
//! Adding a kind is one module (a struct deriving `Serialize` and `Deserialize`, and its
//! `impl KindRules`) plus one line in the table; `probe` (tests only) is such a kind, and its
//! tests prove that nothing else needs to change.

use serde::Serialize;
use serde_json::{Map, Value};

use super::fields::{Field, Shape};
use super::meta::{Extra, Meta, Scope};
use super::State;
use super::ValidationError;

/// The [`KindRules`] methods most kinds say alike: `title` as one of the kind's fields, and
/// with `extra` the view's extras as its field `extra`.
macro_rules! field_rules {
    (title: $field:ident $(, $extra:ident)?) => {
        fn title(&self) -> &str {
            &self.$field
        }
        $(field_rules!($extra);)?
    };
    (extra) => {
        fn extra(&self) -> &[Extra] {
            &self.extra
        }

        fn extra_mut(&mut self) -> Option<&mut Vec<Extra>> {
            Some(&mut self.extra)
        }
    };
}

#[macro_use]
mod table;

/// A record as stored: its id, then its content.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    pub id: String,
    pub meta: Meta,
    pub body: Body,
    /// The stored line, kept when it holds something this build would not write back
    /// identically (a field it does not know, a kind it does not know): a record from a newer
    /// git-rune. [`Record::to_line`] writes it back byte for byte and the id is checked
    /// against it, so nothing a newer build wrote is lost or called altered here.
    pub raw: Option<std::sync::Arc<str>>,
}

pub(crate) mod skip;

pub mod future;
pub use future::Future;

kinds! {
    // variant       module           tag                scope                 fold list
    Decision       in decision       = "decision",        Some(Scope::Memory) => decisions;
    Convention     in convention     = "convention",      Some(Scope::Memory) => conventions;
    Learning       in learning       = "learning",        Some(Scope::Memory) => learnings;
    Instinct       in instinct       = "instinct",        Some(Scope::Memory) => instincts;
    Progress       in progress       = "progress",        Some(Scope::Branch) => progress;
    Checkpoint     in checkpoint     = "checkpoint",      Some(Scope::Branch) => checkpoints;
    Resolve        in resolve        = "resolve",         Some(Scope::Branch) => _;
    Session        in session        = "session",         Some(Scope::Branch) => sessions;
    CumulativeNote in cumulative_note = "cumulative-note", Some(Scope::Memory) => cumulative_notes;
    TaskNote       in task_note      = "task-note",       Some(Scope::Branch) => task_notes;
    Invariant      in invariant      = "invariant",       Some(Scope::Memory) => invariants;
    Task           in task           = "task",            Some(Scope::Branch) => tasks;
    ContextBlock   in context_block  = "context-block",   Some(Scope::Branch) => context_blocks;
    Oracle         in oracle         = "oracle",          Some(Scope::Branch) => oracles;
    Echo           in echo           = "echo",            Some(Scope::Memory) => echoes;
    EchoRef        in echo_ref       = "echo-ref",        Some(Scope::Memory) => echo_refs;
    Document       in document       = "document",        Some(Scope::Memory) => documents;
    Delete         in delete         = "delete",          None                => _;
    #[cfg(test)]
    Probe          in probe          = "probe",           Some(Scope::Memory) => _;
}

/// What a record kind knows about itself. The table dispatches each of these over `Body`.
pub trait KindRules: Serialize {
    /// The headline of a record: its title, name, key or first text; the kind's name for
    /// records without one.
    fn title(&self) -> &str;

    /// What the view kept beside the record's own fields (see [`Extra`]).
    fn extra(&self) -> &[Extra] {
        &[]
    }

    /// [`KindRules::extra`], to change; `None` for kinds that cannot hold extras.
    fn extra_mut(&mut self) -> Option<&mut Vec<Extra>> {
        None
    }

    /// Ids this record removes from the fold (tombstones) or resolves.
    fn targets(&self) -> &[String] {
        &[]
    }

    /// Visits every human-written field once, with its name and [`Shape`]: the one walk the
    /// seal's normalizer and secret filter and the integrity scan all use.
    fn fields_mut(&mut self, f: &mut dyn FnMut(&'static str, Shape, Field<'_>));

    /// Checks the content against the seed's schema.
    fn validate(&self) -> Result<(), ValidationError>;

    /// The `--json` fields of a record of this kind (docs/json.md), beside `kind` and
    /// `extra`, which the caller adds. `full` adds what only `show --all` shows. By default
    /// the stored fields as serde writes them, without `extra` and, unless `full`,
    /// `file_blobs`.
    fn json(&self, full: bool, out: &mut Map<String, Value>) {
        stored_json(self, full, out);
    }

    /// The kind's list in the folded state, from its live records in `(ts, clock, id)` order.
    /// By default every one of them.
    fn fold(live: Vec<&Record>, _state: &mut State) -> Vec<Record>
    where
        Self: Sized,
    {
        live.into_iter().cloned().collect()
    }
}

/// The default `--json` fields: the stored ones (see [`KindRules::json`]).
pub(crate) fn stored_json<T: Serialize + ?Sized>(
    kind: &T,
    full: bool,
    out: &mut Map<String, Value>,
) {
    if let Ok(Value::Object(fields)) = serde_json::to_value(kind) {
        for (k, v) in fields {
            if k == "extra" || (k == "file_blobs" && !full) {
                continue;
            }
            out.insert(k, v);
        }
    }
}

impl Body {
    /// Visits every human-written string in the record (field name, value), so filters
    /// see all text and can rewrite it (redaction) before the record is sealed.
    pub fn texts_mut(&mut self, f: &mut dyn FnMut(&'static str, &mut String)) {
        self.fields_mut(&mut |name, _, field| match field {
            Field::One(s) => f(name, s),
            Field::Many(list) => list.iter_mut().for_each(|s| f(name, s)),
        });
    }

    /// Every human-written string in the record, with its field name.
    pub fn texts(&self) -> Vec<(&'static str, String)> {
        let mut out = Vec::new();
        self.clone()
            .texts_mut(&mut |name, s| out.push((name, std::mem::take(s))));
        out
    }
}
