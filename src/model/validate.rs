//! The checks every kind's `validate` is written with: a value that breaks the schema is a
//! [`ValidationError`] naming the field and what is allowed.

/// A value that breaks the schema; the message names the field and the allowed values.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {problem}")]
pub struct ValidationError {
    pub field: &'static str,
    pub problem: String,
}

pub(crate) fn invalid(field: &'static str, problem: impl Into<String>) -> ValidationError {
    ValidationError {
        field,
        problem: problem.into(),
    }
}

/// `Ok` when `ok`, else the field's error with the problem `problem` words.
pub(crate) fn ensure<P: Into<String>>(
    ok: bool,
    field: &'static str,
    problem: impl FnOnce() -> P,
) -> Result<(), ValidationError> {
    ok.then_some(()).ok_or_else(|| invalid(field, problem()))
}

pub(crate) fn require(field: &'static str, value: &str) -> Result<(), ValidationError> {
    ensure(!value.trim().is_empty(), field, || "must not be empty")
}

pub(crate) fn confidence_in(
    field: &'static str,
    v: f64,
    lo: f64,
    hi: f64,
) -> Result<(), ValidationError> {
    ensure((lo..=hi).contains(&v), field, || {
        format!("{v} is out of range: use a value from {lo:?} to {hi:?}")
    })
}

/// Checks an entry's own time: RFC 3339 in UTC, to the second (`2026-04-05T10:15:00Z`).
pub fn validate_time(ts: &str) -> Result<(), ValidationError> {
    let ok = ts.len() == 20
        && ts.ends_with('Z')
        && chrono::NaiveDateTime::parse_from_str(&ts[..19], "%Y-%m-%dT%H:%M:%S").is_ok();
    ensure(ok, "date", || {
        format!("{ts:?} is not a time like 2026-04-05T10:15:00Z")
    })
}

/// [`validate_time`] of a field other than `date`.
pub(crate) fn time_field(field: &'static str, ts: &str) -> Result<(), ValidationError> {
    validate_time(ts).map_err(|e| invalid(field, e.problem))
}

/// Checks a record's content against the seed's schema (its kind's `validate`).
pub fn validate(body: &super::Body) -> Result<(), ValidationError> {
    body.validate()
}
