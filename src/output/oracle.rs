//! Oracle dispatches as text, one line each (`oracle list`, `show oracles`).

use crate::model::{Body, Record};
use crate::text::sanitize;

/// One dispatch as `oracle list` and `show oracles` print it: id, status, model, skill and
/// trigger, the times that matter.
pub fn line(r: &Record) -> String {
    use crate::integrity::gate::{mark, placeholder, text_gate, Gate};
    let Body::Oracle(o) = &r.body else {
        return String::new();
    };
    // Through the gate: a withheld dispatch shows its id (its shape is checked) and status,
    // then the placeholder; a SUSPICIOUS one is marked.
    let mark = match text_gate(r) {
        Gate::Withheld => {
            return format!(
                "{}  {}  {}",
                sanitize(&o.session_id),
                o.status,
                placeholder(r)
            )
        }
        Gate::Suspicious(rules) => mark(&rules),
        Gate::Clean => String::new(),
    };
    let mut line = format!(
        "{mark}{}  {}  {}  {}/{}  dispatched {}",
        sanitize(&o.session_id),
        o.status,
        sanitize(&o.target_model),
        o.source_skill,
        o.trigger_signal,
        o.dispatched_at
    );
    if o.status == crate::model::oracle::PENDING {
        line.push_str(&format!("  times out {}", o.timeout_at));
    }
    if !o.reason.is_empty() {
        line.push_str(&format!("  ({})", sanitize(&o.reason)));
    }
    line
}
