//! The one-line form of each record kind in `load`'s sections: what a reader sees of a
//! decision, convention, learning, instinct, note or echo, with the day it was recorded.

use crate::model::kinds::{
    Convention, CumulativeNote, Decision, Echo, Instinct, Learning, TaskNote,
};
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
        Body::Decision(Decision {
            title, decision, ..
        }) => format!(
            "- [{}] {}: {}",
            pretty_time(&r.meta.ts),
            one_line(title),
            one_line(decision)
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
        Body::Learning(Learning {
            ltype,
            key,
            insight,
            confidence,
            ..
        }) => {
            format!(
                "- [{ltype}] {}: {} ({confidence}, {})",
                one_line(key),
                one_line(insight),
                day(r)
            )
        }
        _ => String::new(),
    }
}

pub(super) fn instinct_line(r: &Record) -> String {
    match &r.body {
        Body::Instinct(Instinct {
            name,
            trigger,
            action,
            confidence,
            ..
        }) => format!(
            "- {}: when {} → {} ({confidence}, {})",
            one_line(name),
            one_line(trigger),
            one_line(action),
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
        Body::TaskNote(TaskNote {
            task,
            section,
            text,
        }) => {
            let task = if task.is_empty() {
                String::new()
            } else {
                format!("{} / ", one_line(task))
            };
            format!("- {task}{section}: {} ({})", one_line(text), day(r))
        }
        _ => String::new(),
    }
}

pub(super) fn echo_line(r: &Record) -> String {
    match &r.body {
        Body::Echo(Echo {
            layer,
            title,
            text,
            evidence,
            confidence,
            ..
        }) => {
            let mut line = format!(
                "- [{layer} {}] {}: {}",
                crate::model::echo::format_confidence(*confidence),
                one_line(title),
                one_line(text)
            );
            if !evidence.is_empty() {
                line.push_str(&format!(" ({})", one_line(evidence)));
            }
            line
        }
        _ => String::new(),
    }
}
