//! The vocabulary of oracle dispatch records (seed 000's detach mode): the id and hash
//! patterns, the enums, the statuses and the order concurrent status changes fold in, the
//! status changes themselves and which dispatches are orphaned. Pure.

use super::{Body, Record, State};
use crate::model::kinds::Oracle;

/// `triggerSignal` values.
pub const TRIGGERS: [&str; 2] = ["agent.stuck", "manual"];
/// `sourceSkill` values.
pub const SOURCES: [&str; 3] = ["debug", "fix", "manual"];

pub const PENDING: &str = "pending";
pub const COMPLETE: &str = "complete";
pub const CONSUMED: &str = "consumed";
pub const FAILED: &str = "failed";
pub const ORPHANED: &str = "orphaned";

/// Statuses, lowest precedence first: when two clones changed one session concurrently, the
/// fold keeps the status later in this list (see [`precedence`]).
pub const STATUSES: [&str; 5] = [PENDING, ORPHANED, FAILED, COMPLETE, CONSUMED];

/// The longest `responseExcerpt`, in characters.
pub const MAX_EXCERPT: usize = 500;

/// Hours after `dispatchedAt` a still-pending dispatch is marked orphaned at session start.
pub const ORPHAN_HOURS: i64 = 24;

/// The `reason` a timed-out dispatch fails with, and the one an orphaned one carries.
pub const REASON_TIMEOUT: &str = "timeout";
pub const REASON_ORPHANED: &str = "orphaned";

/// Where a status stands in [`STATUSES`] (unknown statuses lowest).
pub fn precedence(status: &str) -> usize {
    STATUSES.iter().position(|s| *s == status).unwrap_or(0)
}

/// Whether `id` matches `^oracle-\d+-[a-z0-9]+$`.
pub fn valid_session_id(id: &str) -> bool {
    let Some(rest) = id.strip_prefix("oracle-") else {
        return false;
    };
    let Some((digits, tail)) = rest.split_once('-') else {
        return false;
    };
    !digits.is_empty()
        && digits.bytes().all(|b| b.is_ascii_digit())
        && !tail.is_empty()
        && tail
            .bytes()
            .all(|b| b.is_ascii_digit() || b.is_ascii_lowercase())
}

/// Whether `hash` matches `^sha256:[a-f0-9]{8,64}$`.
pub fn valid_bundle_hash(hash: &str) -> bool {
    let Some(hex) = hash.strip_prefix("sha256:") else {
        return false;
    };
    (8..=64).contains(&hex.len())
        && hex
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// A timeout like `10m`, `30s`, `1h` or `90` (seconds), in seconds; `None` when it is not one
/// or is zero.
pub fn parse_timeout(s: &str) -> Option<i64> {
    let s = s.trim();
    let (digits, unit) = match s.char_indices().find(|(_, c)| !c.is_ascii_digit()) {
        Some((i, _)) => (&s[..i], &s[i..]),
        None => (s, "s"),
    };
    let n: i64 = digits.parse().ok()?;
    let per = match unit {
        "s" => 1,
        "m" => 60,
        "h" => 3600,
        _ => return None,
    };
    n.checked_mul(per).filter(|t| *t > 0 && *t <= 7 * 24 * 3600)
}

/// `ts` plus `secs` seconds, as RFC 3339 UTC to the second; `None` when `ts` is not a time.
pub fn add_secs(ts: &str, secs: i64) -> Option<String> {
    let t = chrono::DateTime::parse_from_rfc3339(ts).ok()?;
    let t = t.with_timezone(&chrono::Utc) + chrono::Duration::seconds(secs);
    Some(t.format("%Y-%m-%dT%H:%M:%SZ").to_string())
}

/// Seconds from `earlier` to `later` (negative when `later` is earlier; 0 when either is not
/// a time).
pub fn secs_between(earlier: &str, later: &str) -> i64 {
    let parse = |s: &str| chrono::DateTime::parse_from_rfc3339(s).ok();
    match (parse(earlier), parse(later)) {
        (Some(a), Some(b)) => (b - a).num_seconds(),
        _ => 0,
    }
}

/// The record's status, session id and bundle hash.
pub fn status_of(r: &Record) -> (&str, &str, &str) {
    match &r.body {
        Body::Oracle(Oracle {
            status,
            session_id,
            bundle_hash,
            ..
        }) => (status, session_id, bundle_hash),
        _ => ("", "", ""),
    }
}

/// The record's body moved to `status` (with `reason`, and a response when complete).
pub fn moved(r: &Record, to: &str, reason: &str, response: Option<(&str, &str)>) -> Option<Body> {
    let mut body = r.body.clone();
    let Body::Oracle(Oracle {
        status,
        reason: why,
        response_id,
        response_excerpt,
        ..
    }) = &mut body
    else {
        return None;
    };
    *status = to.to_owned();
    *why = reason.to_owned();
    if let Some((id, excerpt)) = response {
        *response_id = id.to_owned();
        *response_excerpt = excerpt.to_owned();
    }
    Some(body)
}

/// Pending dispatches older than [`ORPHAN_HOURS`] at `now`, and their orphaned form.
pub fn orphans<'a>(state: &'a State, now: &str) -> Vec<(&'a Record, Body)> {
    state
        .oracles
        .iter()
        .filter_map(|r| match &r.body {
            Body::Oracle(Oracle {
                status,
                dispatched_at,
                ..
            }) if status == PENDING && secs_between(dispatched_at, now) > ORPHAN_HOURS * 3600 => {
                moved(r, ORPHANED, REASON_ORPHANED, None).map(|b| (r, b))
            }
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn session_ids_follow_the_seed_pattern() {
        assert!(valid_session_id("oracle-1714234500-abc123"));
        for bad in [
            "oracle-abc-1",
            "oracle-1-",
            "oracle--x",
            "oracle-1-ABC",
            "oracle-1-a_b",
            "oracle-1-a-b",
            "orcl-1-a",
            "",
        ] {
            assert!(!valid_session_id(bad), "{bad}");
        }
    }

    #[test]
    fn bundle_hashes_follow_the_seed_pattern() {
        assert!(valid_bundle_hash("sha256:9f3a0b1c"));
        assert!(valid_bundle_hash(&format!("sha256:{}", "a".repeat(64))));
        for bad in [
            "sha256:9f3a0b1",
            "sha256:9F3A0B1C",
            "sha1:9f3a0b1c",
            "9f3a0b1c",
            &format!("sha256:{}", "a".repeat(65)),
            "sha256:9f3a0b1g",
        ] {
            assert!(!valid_bundle_hash(bad), "{bad}");
        }
    }

    #[test]
    fn timeouts_parse() {
        assert_eq!(parse_timeout("10m"), Some(600));
        assert_eq!(parse_timeout("30s"), Some(30));
        assert_eq!(parse_timeout("1h"), Some(3600));
        assert_eq!(parse_timeout("45"), Some(45));
        for bad in ["", "0m", "m", "10d", "-1m", "1.5h", "9999h"] {
            assert_eq!(parse_timeout(bad), None, "{bad}");
        }
    }

    #[test]
    fn precedence_orders_statuses() {
        assert!(precedence(CONSUMED) > precedence(COMPLETE));
        assert!(precedence(COMPLETE) > precedence(FAILED));
        assert!(precedence(FAILED) > precedence(ORPHANED));
        assert!(precedence(ORPHANED) > precedence(PENDING));
    }
}
