//! Oracle dispatches as text, one line each (`oracle list`, `show oracles`).

use crate::model::{Body, Record};
use crate::text::sanitize;

/// One dispatch as `oracle list` and `show oracles` print it: id, status, model, skill and
/// trigger, the times that matter.
pub fn line(r: &Record) -> String {
    let Body::Oracle(o) = &r.body else {
        return String::new();
    };
    let mut line = format!(
        "{}  {}  {}  {}/{}  dispatched {}",
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
