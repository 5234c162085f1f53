//! Oracle dispatches as text, one line each (`oracle list`, `show oracles`).

use crate::model::kinds::Oracle;
use crate::model::{Body, Record};
use crate::text::sanitize;

/// One dispatch as `oracle list` and `show oracles` print it: id, status, model, skill and
/// trigger, the times that matter.
pub fn line(r: &Record) -> String {
    let Body::Oracle(Oracle {
        session_id,
        dispatched_at,
        trigger_signal,
        source_skill,
        target_model,
        status,
        timeout_at,
        reason,
        ..
    }) = &r.body
    else {
        return String::new();
    };
    let mut line = format!(
        "{}  {status}  {}  {source_skill}/{trigger_signal}  dispatched {dispatched_at}",
        sanitize(session_id),
        sanitize(target_model)
    );
    if status == crate::model::oracle::PENDING {
        line.push_str(&format!("  times out {timeout_at}"));
    }
    if !reason.is_empty() {
        line.push_str(&format!("  ({})", sanitize(reason)));
    }
    line
}
