//! Seed 000's `oracle-pending/<sessionId>.json` files, read and written: a seed user's pending
//! dispatches imported as oracle records (`import rune-dir`) and written back (`export
//! rune-dir`). Reading is lenient as the view files are (snake_case keys, other cases, CRLF, a
//! byte-order mark, dates without times or zone, a missing `timeoutAt` or `sessionId`);
//! writing is the seed's schema, field for field. Pure.

use serde_json::{Map, Value};

use super::text::parse_time;
use crate::model::kinds::oracle::SeedFile;
use crate::model::kinds::Oracle;
use crate::model::oracle::{add_secs, FAILED, REASON_TIMEOUT};
use crate::model::Body;

/// The seed's default time to wait for an answer when a file gives no `timeoutAt`.
const DEFAULT_TIMEOUT_SECS: i64 = 600;

/// One file read: the record body, and the fields the record has no place for (kept by the
/// caller so nothing is lost).
#[derive(Debug, Clone, PartialEq)]
pub struct OracleFile {
    pub body: Body,
    /// Unknown top-level fields, in the file's order, as one JSON object's text (empty when
    /// there are none).
    pub extra: String,
}

/// Why a file could not be read: the 1-based line and the problem.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OracleFileError {
    pub line: usize,
    pub message: String,
}

fn error(line: usize, message: impl Into<String>) -> OracleFileError {
    OracleFileError {
        line,
        message: message.into(),
    }
}

/// A key as the seed spells it, whatever case or separators the file used
/// (`session_id`, `SessionId`, `session-id` → `sessionid`).
fn fold_key(k: &str) -> String {
    k.chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

/// The fields of the seed's schema (plus `reason`, which git-rune adds to a failed or orphaned
/// dispatch), folded as [`fold_key`] does.
const KNOWN: [&str; 11] = [
    "sessionid",
    "dispatchedat",
    "triggersignal",
    "sourceskill",
    "targetmodel",
    "bundlehash",
    "status",
    "timeoutat",
    "responseid",
    "responseexcerpt",
    "reason",
];

/// Reads one file; `stem` is its name without `.json`, the session id when the file gives
/// none. Values are not validated here: the seal does that, as for every record.
pub fn parse(text: &str, stem: &str) -> Result<OracleFile, OracleFileError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let value: Value =
        serde_json::from_str(text).map_err(|e| error(e.line().max(1), format!("not JSON: {e}")))?;
    let Value::Object(map) = value else {
        return Err(error(1, "not a JSON object"));
    };
    let mut known: Map<String, Value> = Map::new();
    let mut extra: Map<String, Value> = Map::new();
    for (k, v) in map {
        let folded = fold_key(&k);
        if KNOWN.contains(&folded.as_str()) && !known.contains_key(&folded) {
            known.insert(folded, v);
        } else {
            extra.insert(k, v);
        }
    }
    let text_of = |key: &str| -> Result<String, OracleFileError> {
        match known.get(key) {
            None | Some(Value::Null) => Ok(String::new()),
            Some(Value::String(s)) => Ok(s.trim().to_owned()),
            Some(Value::Number(n)) => Ok(n.to_string()),
            Some(other) => Err(error(
                line_of_key(text, key),
                format!("`{key}` is {other}, not a string"),
            )),
        }
    };
    let time_of = |key: &str, name: &str| -> Result<String, OracleFileError> {
        let raw = text_of(key)?;
        if raw.is_empty() {
            return Ok(String::new());
        }
        parse_time(&raw).ok_or_else(|| {
            error(
                line_of_key(text, key),
                format!("`{name}` {raw:?} is not a time like 2026-04-27T12:34:56Z"),
            )
        })
    };
    let dispatched_at = time_of("dispatchedat", "dispatchedAt")?;
    if dispatched_at.is_empty() {
        return Err(error(1, "no `dispatchedAt`"));
    }
    let mut timeout_at = time_of("timeoutat", "timeoutAt")?;
    if timeout_at.is_empty() {
        // The seed: timeoutAt defaults to dispatchedAt + 10 min.
        timeout_at = add_secs(&dispatched_at, DEFAULT_TIMEOUT_SECS).unwrap_or_default();
    }
    let mut session_id = text_of("sessionid")?;
    if session_id.is_empty() {
        session_id = stem.trim().to_owned();
    }
    let status = text_of("status")?.to_ascii_lowercase();
    let mut reason = text_of("reason")?;
    if reason.is_empty() && status == FAILED {
        // The seed's files carry no reason: the only way it fails a dispatch is a timeout.
        reason = REASON_TIMEOUT.to_owned();
    }
    let body = Body::Oracle(Oracle {
        session_id,
        dispatched_at,
        trigger_signal: text_of("triggersignal")?,
        source_skill: text_of("sourceskill")?.to_ascii_lowercase(),
        target_model: text_of("targetmodel")?,
        bundle_hash: text_of("bundlehash")?.to_ascii_lowercase(),
        status,
        timeout_at,
        response_id: text_of("responseid")?,
        response_excerpt: text_of("responseexcerpt")?,
        reason,
    });
    let extra = if extra.is_empty() {
        String::new()
    } else {
        Value::Object(extra).to_string()
    };
    Ok(OracleFile { body, extra })
}

/// The line a key (folded) first appears on, for reports (1 when it cannot be found).
fn line_of_key(text: &str, key: &str) -> usize {
    text.lines()
        .position(|l| l.split('"').nth(1).is_some_and(|k| fold_key(k) == key))
        .map_or(1, |i| i + 1)
}

/// The file name a record is written to (`<sessionId>.json`); `None` for other bodies.
pub fn file_name(body: &Body) -> Option<String> {
    match body {
        Body::Oracle(Oracle { session_id, .. }) => Some(format!("{session_id}.json")),
        _ => None,
    }
}

/// A record in the seed's schema (`None` for other bodies): what `render` writes.
pub fn seed_file(body: &Body) -> Option<SeedFile<'_>> {
    match body {
        Body::Oracle(o) => Some(o.seed_file()),
        _ => None,
    }
}

/// Writes a record in the seed's schema and field order (two-space indent, a final newline),
/// `null` for a response not given yet; `reason` follows only when there is one. `None` for
/// other bodies.
pub fn render(body: &Body) -> Option<String> {
    let mut out = serde_json::to_string_pretty(&seed_file(body)?).expect("strings serialize");
    out.push('\n');
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SEED: &str = r#"{
"sessionId": "oracle-1714234500-abc123",
"dispatchedAt": "2026-04-27T12:34:56Z",
"triggerSignal": "agent.stuck",
"sourceSkill": "debug",
"targetModel": "claude-opus-4-7",
"bundleHash": "sha256:9f3a1b2c",
"status": "pending",
"timeoutAt": "2026-04-27T12:44:56Z",
"responseId": null,
"responseExcerpt": null
}"#;

    #[test]
    fn reads_the_seeds_example_and_writes_it_back() {
        let f = parse(SEED, "ignored").unwrap();
        assert_eq!(f.extra, "");
        let Body::Oracle(Oracle {
            session_id, status, ..
        }) = &f.body
        else {
            panic!("{:?}", f.body)
        };
        assert_eq!(session_id, "oracle-1714234500-abc123");
        assert_eq!(status, "pending");
        let out = render(&f.body).unwrap();
        assert_eq!(parse(&out, "x").unwrap(), f);
        assert!(out.contains("\"responseId\": null"), "{out}");
        assert!(!out.contains("reason"), "{out}");
        // The seed's field order.
        let keys: Vec<&str> = out
            .lines()
            .filter_map(|l| l.trim().strip_prefix('"')?.split('"').next())
            .collect();
        assert_eq!(
            keys,
            [
                "sessionId",
                "dispatchedAt",
                "triggerSignal",
                "sourceSkill",
                "targetModel",
                "bundleHash",
                "status",
                "timeoutAt",
                "responseId",
                "responseExcerpt"
            ]
        );
    }

    #[test]
    fn sloppy_files_are_read() {
        let text = "\u{feff}{\r\n\"session_id\": \"oracle-1-x\",\r\n\"dispatched_at\": \"2026-04-27 12:34\",\r\n\"TriggerSignal\": \"manual\",\r\n\"source_skill\": \"FIX\",\r\n\"target_model\": \"m\",\r\n\"bundle_hash\": \"sha256:ABCDEF12\",\r\n\"status\": \"Pending\",\r\n\"note\": [1, 2]\r\n}\r\n";
        let f = parse(text, "oracle-1-x").unwrap();
        let Body::Oracle(Oracle {
            dispatched_at,
            timeout_at,
            source_skill,
            bundle_hash,
            status,
            ..
        }) = &f.body
        else {
            panic!()
        };
        assert_eq!(dispatched_at, "2026-04-27T12:34:00Z");
        assert_eq!(timeout_at, "2026-04-27T12:44:00Z", "dispatchedAt + 10 min");
        assert_eq!(source_skill, "fix");
        assert_eq!(bundle_hash, "sha256:abcdef12");
        assert_eq!(status, "pending");
        assert_eq!(f.extra, r#"{"note":[1,2]}"#);
        let failed = parse(&SEED.replace("pending", "failed"), "s").unwrap();
        assert!(
            matches!(failed.body, Body::Oracle(Oracle { ref reason, .. }) if reason == "timeout")
        );
    }

    #[test]
    fn the_session_id_defaults_to_the_file_name() {
        let text = SEED.replace("\"sessionId\": \"oracle-1714234500-abc123\",\n", "");
        let f = parse(&text, "oracle-9-zz").unwrap();
        assert!(
            matches!(f.body, Body::Oracle(Oracle { ref session_id, .. }) if session_id == "oracle-9-zz")
        );
    }

    #[test]
    fn what_cannot_be_read_says_where() {
        assert_eq!(parse("{\n\"a\": ", "s").unwrap_err().line, 2);
        assert_eq!(parse("[1]", "s").unwrap_err().message, "not a JSON object");
        let bad = SEED.replace("2026-04-27T12:44:56Z", "soon");
        let e = parse(&bad, "s").unwrap_err();
        assert_eq!(e.line, 9, "{e:?}");
        assert!(e.message.contains("timeoutAt"), "{e:?}");
        let e = parse("{\"status\": \"pending\"}", "s").unwrap_err();
        assert!(e.message.contains("dispatchedAt"), "{e:?}");
    }
}
