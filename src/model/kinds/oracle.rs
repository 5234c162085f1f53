//! The `oracle` record kind (seed 000's detach mode): a dispatch's record, the vocabulary
//! (the id and hash patterns, the enums, the statuses and the order concurrent status changes
//! fold in), the status changes themselves and which dispatches are orphaned. Pure.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::skip::is_empty_str;
use super::KindRules;
use crate::model::fields::{Field, Shape};
use crate::model::State;
use super::Record;
use crate::model::validate::{ensure, invalid, require, time_field};
use crate::model::{Body, ValidationError};

/// An oracle dispatch of seed 000's detach mode: a slow model asked in the background,
/// its answer picked up later (`git rune oracle`). Every status change is a new record
/// superseding the previous one; one live state per `session_id` (docs/storage.md).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Oracle {
    /// `oracle-<digits>-<lowercase alphanumerics>`, the caller's id.
    pub session_id: String,
    /// When it was dispatched (RFC 3339 UTC); kept by every status change.
    pub dispatched_at: String,
    /// `agent.stuck` or `manual`.
    pub trigger_signal: String,
    /// `debug`, `fix` or `manual`.
    pub source_skill: String,
    pub target_model: String,
    /// `sha256:<8 to 64 hex digits>` of the bundled context: the idempotency key.
    pub bundle_hash: String,
    /// `pending`, `complete`, `consumed`, `failed` or `orphaned`.
    pub status: String,
    /// When a pending dispatch times out (RFC 3339 UTC).
    pub timeout_at: String,
    /// The answer's id; empty until complete.
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub response_id: String,
    /// The answer, at most 500 characters; empty until complete.
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub response_excerpt: String,
    /// Why it failed or was orphaned (`timeout`, `orphaned`); empty otherwise.
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub reason: String,
}

impl KindRules for Oracle {
    field_rules!(title: session_id);

    fn fields_mut(&mut self, f: &mut dyn FnMut(&'static str, Shape, Field<'_>)) {
        f("target_model", Shape::Line, Field::One(&mut self.target_model));
        f("response_id", Shape::Line, Field::One(&mut self.response_id));
        f(
            "response_excerpt",
            Shape::Text,
            Field::One(&mut self.response_excerpt),
        );
    }

    fn validate(&self) -> Result<(), ValidationError> {
        let o = self;
        ensure(valid_session_id(&o.session_id), "sessionId", || {
            format!(
                "{:?} does not match ^oracle-\\d+-[a-z0-9]+$ (e.g. oracle-1714234500-abc123)",
                o.session_id
            )
        })?;
        ensure(
            TRIGGERS.contains(&o.trigger_signal.as_str()),
            "triggerSignal",
            || format!("{:?}: use agent.stuck or manual", o.trigger_signal),
        )?;
        ensure(
            SOURCES.contains(&o.source_skill.as_str()),
            "sourceSkill",
            || format!("{:?}: use debug, fix or manual", o.source_skill),
        )?;
        require("targetModel", &o.target_model)?;
        ensure(valid_bundle_hash(&o.bundle_hash), "bundleHash", || {
            format!(
                "{:?} does not match ^sha256:[a-f0-9]{{8,64}}$",
                o.bundle_hash
            )
        })?;
        let status = o.status.as_str();
        ensure(STATUSES.contains(&status), "status", || {
            format!("{status:?}: use pending, complete, consumed, failed or orphaned")
        })?;
        time_field("dispatchedAt", &o.dispatched_at)?;
        time_field("timeoutAt", &o.timeout_at)?;
        ensure(o.timeout_at > o.dispatched_at, "timeoutAt", || {
            "must be after dispatchedAt"
        })?;
        let answered = matches!(status, COMPLETE | CONSUMED);
        if answered && o.response_id.trim().is_empty() {
            return Err(invalid("responseId", "must not be empty once complete"));
        }
        if answered && o.response_excerpt.trim().is_empty() {
            return Err(invalid(
                "responseExcerpt",
                "must not be empty once complete",
            ));
        }
        let has_response = !o.response_id.is_empty() || !o.response_excerpt.is_empty();
        if !answered && has_response {
            return Err(invalid(
                "responseId",
                format!("a {status} dispatch has no response"),
            ));
        }
        let n = o.response_excerpt.chars().count();
        ensure(n <= MAX_EXCERPT, "responseExcerpt", || {
            format!("is {n} characters: at most {MAX_EXCERPT} are kept")
        })?;
        if matches!(status, FAILED | ORPHANED) {
            require("reason", &o.reason)?;
        }
        Ok(())
    }

    /// The seed's camelCase fields, as `.rune/oracle-pending/` files have them.
    fn json(&self, _full: bool, out: &mut Map<String, Value>) {
        if let Ok(Value::Object(fields)) = serde_json::to_value(self.seed_file()) {
            out.extend(fields);
        }
    }

    /// One live state per `session_id` (see [`oracle_wins`]), in dispatch order, which status
    /// changes do not move.
    fn fold(live: Vec<&Record>, _state: &mut State) -> Vec<Record> {
        let mut winner: HashMap<&str, &Record> = HashMap::new();
        for r in live {
            let Body::Oracle(o) = &r.body else {
                continue;
            };
            let slot = winner.entry(&o.session_id).or_insert(r);
            if oracle_wins(r, slot) {
                *slot = r;
            }
        }
        let mut list: Vec<(&str, &str, &Record)> = winner
            .into_iter()
            .map(|(id, r)| match &r.body {
                Body::Oracle(o) => (o.dispatched_at.as_str(), id, r),
                _ => ("", id, r),
            })
            .collect();
        list.sort_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)));
        list.into_iter().map(|(_, _, r)| r.clone()).collect()
    }
}

/// The seed's schema, in its field order (serde writes a struct's fields in order): what a
/// `.rune/oracle-pending/<sessionId>.json` file holds.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SeedFile<'a> {
    session_id: &'a str,
    dispatched_at: &'a str,
    trigger_signal: &'a str,
    source_skill: &'a str,
    target_model: &'a str,
    bundle_hash: &'a str,
    status: &'a str,
    timeout_at: &'a str,
    response_id: Option<&'a str>,
    response_excerpt: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<&'a str>,
}

impl Oracle {
    /// The record in the seed's schema: `null` for a response not given yet.
    pub fn seed_file<'a>(&'a self) -> SeedFile<'a> {
        let or_null = |s: &'a str| (!s.is_empty()).then_some(s);
        SeedFile {
            session_id: &self.session_id,
            dispatched_at: &self.dispatched_at,
            trigger_signal: &self.trigger_signal,
            source_skill: &self.source_skill,
            target_model: &self.target_model,
            bundle_hash: &self.bundle_hash,
            status: &self.status,
            timeout_at: &self.timeout_at,
            response_id: or_null(&self.response_id),
            response_excerpt: or_null(&self.response_excerpt),
            reason: or_null(&self.reason),
        }
    }
}

/// Whether oracle record `a` beats `b` for one session id (two clones changed it
/// concurrently, both superseding the same record): the status with the higher precedence
/// (consumed > complete > failed > orphaned > pending), then the higher Lamport clock, then
/// the greater id. Depends only on the two records, so every clone picks the same one.
pub fn oracle_wins(a: &Record, b: &Record) -> bool {
    let key = |r: &Record| {
        let p = match &r.body {
            Body::Oracle(o) => precedence(&o.status),
            _ => 0,
        };
        (p, r.meta.clock, r.id.clone())
    };
    key(a) > key(b)
}

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
    let parts = id
        .strip_prefix("oracle-")
        .and_then(|rest| rest.split_once('-'));
    parts.is_some_and(|(digits, tail)| {
        !digits.is_empty()
            && digits.bytes().all(|b| b.is_ascii_digit())
            && !tail.is_empty()
            && tail
                .bytes()
                .all(|b| b.is_ascii_digit() || b.is_ascii_lowercase())
    })
}

/// Whether `hash` matches `^sha256:[a-f0-9]{8,64}$`.
pub fn valid_bundle_hash(hash: &str) -> bool {
    hash.strip_prefix("sha256:").is_some_and(|hex| {
        (8..=64).contains(&hex.len())
            && hex
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    })
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

pub use crate::text::{add_secs, secs_between};

/// The record's status, session id and bundle hash.
pub fn status_of(r: &Record) -> (&str, &str, &str) {
    match &r.body {
        Body::Oracle(o) => (&o.status, &o.session_id, &o.bundle_hash),
        _ => ("", "", ""),
    }
}

/// The record's body moved to `status` (with `reason`, and a response when complete).
pub fn moved(r: &Record, to: &str, reason: &str, response: Option<(&str, &str)>) -> Option<Body> {
    let mut body = r.body.clone();
    let Body::Oracle(o) = &mut body else {
        return None;
    };
    o.status = to.to_owned();
    o.reason = reason.to_owned();
    if let Some((id, excerpt)) = response {
        o.response_id = id.to_owned();
        o.response_excerpt = excerpt.to_owned();
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
