//! The load gate for one record: everything memory hands to an agent passes here first.

use super::{scan_text, verdict, Verdict};
use crate::model::Record;

/// What the gate lets through.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Gate {
    /// Shown as quoted data.
    Clean,
    /// Shown, marked with the rules that fired (sorted, once each).
    Suspicious(Vec<&'static str>),
    /// Withheld: TAINTED text, or an id that no longer matches the content.
    Withheld,
}

/// Whether the gate withholds a record (the view then shows a placeholder instead).
pub fn withheld(r: &Record) -> bool {
    gate(r) == Gate::Withheld
}

/// Scans every field of a record.
pub fn gate(r: &Record) -> Gate {
    let issues: Vec<super::Issue> = r
        .body
        .texts()
        .iter()
        .flat_map(|(_, t)| scan_text(t))
        .collect();
    if !r.id_matches() || verdict(&issues) == Verdict::Tainted {
        return Gate::Withheld;
    }
    if issues.is_empty() {
        return Gate::Clean;
    }
    let mut rules: Vec<&'static str> = issues.iter().map(|i| i.rule).collect();
    rules.sort_unstable();
    rules.dedup();
    Gate::Suspicious(rules)
}
