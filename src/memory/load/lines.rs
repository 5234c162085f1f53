//! The one-line form of each record kind in `load`'s sections: what a reader sees of a
//! decision, convention, learning, instinct, note or echo, with the day it was recorded.

use crate::model::kinds::{Convention, CumulativeNote};
use crate::model::{Body, Record};
use crate::text::pretty_time;

pub(super) fn one_line(s: &str) -> String {
    crate::text::one_line(s)
}

/// The day an entry was recorded, so a reader sees how old it is (the seed marks every loaded
/// entry with its session date).
pub(super) fn day(r: &Record) -> &str {
    r.meta.ts.get(..10).unwrap_or(&r.meta.ts)
}

pub(super) fn decision_line(r: &Record) -> String {
    match &r.body {
        Body::Decision(d) => format!(
            "- [{}] {}: {}",
            pretty_time(&r.meta.ts),
            one_line(&d.title),
            one_line(&d.decision)
        ),
        _ => String::new(),
    }
}

pub(super) fn convention_line(r: &Record) -> String {
    match &r.body {
        Body::Convention(Convention { title, pattern, .. }) => {
            format!("- {}: {} ({})", one_line(title), one_line(pattern), day(r))
        }
        _ => String::new(),
    }
}

pub(super) fn learning_line(r: &Record) -> String {
    match &r.body {
        Body::Learning(l) => format!(
            "- [{}] {}: {} ({}, {})",
            l.ltype,
            one_line(&l.key),
            one_line(&l.insight),
            l.confidence,
            day(r)
        ),
        _ => String::new(),
    }
}

pub(super) fn instinct_line(r: &Record) -> String {
    match &r.body {
        Body::Instinct(i) => format!(
            "- {}: when {} → {} ({}, {})",
            one_line(&i.name),
            one_line(&i.trigger),
            one_line(&i.action),
            i.confidence,
            day(r)
        ),
        _ => String::new(),
    }
}

pub(super) fn note_line(r: &Record) -> String {
    match &r.body {
        Body::CumulativeNote(CumulativeNote { section, text }) => {
            format!("- {section}: {} ({})", one_line(text), day(r))
        }
        Body::TaskNote(n) => {
            let task = if n.task.is_empty() {
                String::new()
            } else {
                format!("{} / ", one_line(&n.task))
            };
            format!("- {task}{}: {} ({})", n.section, one_line(&n.text), day(r))
        }
        _ => String::new(),
    }
}

pub(super) fn echo_line(r: &Record) -> String {
    match &r.body {
        Body::Echo(e) => {
            let mut line = format!(
                "- [{} {}] {}: {}",
                e.layer,
                crate::model::echo::format_confidence(e.confidence),
                one_line(&e.title),
                one_line(&e.text)
            );
            if !e.evidence.is_empty() {
                line.push_str(&format!(" ({})", one_line(&e.evidence)));
            }
            line
        }
        _ => String::new(),
    }
}
