//! `learnings.jsonl`: the seed's machine-queryable learning log, one JSON object per line.

use serde::Serialize;
use serde_json::{Map, Value};

use super::text::{err, numbered};
use super::{normal, normalize, ParseError};
use crate::model::{Body, LearningType, Record};

/// One line, fields in the seed's order.
#[derive(Serialize)]
struct Line<'a> {
    ts: &'a str,
    skill: &'a str,
    #[serde(rename = "type")]
    ltype: LearningType,
    key: &'a str,
    insight: &'a str,
    confidence: f64,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    files: &'a [String],
}

/// No header and no trailing blank line: an empty log renders as `""`.
pub(crate) fn render(records: &[Record]) -> String {
    let mut out = String::new();
    for r in records {
        if let Body::Learning {
            skill,
            ltype,
            key,
            insight,
            confidence,
            files,
            ..
        } = normal(&r.body)
        {
            let line = Line {
                ts: &r.meta.ts,
                skill: &skill,
                ltype,
                key: &key,
                insight: &insight,
                confidence,
                files: &files,
            };
            // Serialising plain strings and numbers cannot fail; a non-finite confidence
            // becomes null, which parse then reports.
            out.push_str(&serde_json::to_string(&line).unwrap_or_default());
            out.push('\n');
        }
    }
    out
}

const EXAMPLE: &str = r#"{"ts":"2026-04-04T14:30:00Z","skill":"cook","type":"decision","key":"state-lib","insight":"Chose X because Y","confidence":0.8}"#;

pub(crate) fn parse(text: &str) -> Result<Vec<Body>, ParseError> {
    let mut out = Vec::new();
    for src in numbered(text) {
        if src.text.trim().is_empty() {
            continue;
        }
        let obj: Map<String, Value> = serde_json::from_str(src.text).map_err(|e| {
            err(
                src.no,
                format!("not a JSON object ({e}); each line must be one object like {EXAMPLE}"),
            )
        })?;
        let fail = |m: String| err(src.no, m);
        let string = |name: &str, required: bool| -> Result<String, ParseError> {
            match obj.get(name) {
                Some(Value::String(s)) => Ok(s.clone()),
                None | Some(Value::Null) if !required => Ok(String::new()),
                None => Err(fail(format!("missing \"{name}\" (a string)"))),
                Some(_) => Err(fail(format!("\"{name}\" must be a string"))),
            }
        };
        let types = LearningType::ALL.map(LearningType::as_str).join(", ");
        let ltype = LearningType::parse(&string("type", true)?)
            .ok_or_else(|| fail(format!("\"type\" must be one of {types}")))?;
        let confidence = match obj.get("confidence") {
            Some(Value::Number(n)) => exact_confidence(src.text)
                .or_else(|| n.as_f64())
                .ok_or_else(|| fail("\"confidence\" is out of range".into()))?,
            Some(_) => {
                return Err(fail(
                    "\"confidence\" must be a number from 0.1 to 1.0, like 0.8".into(),
                ))
            }
            None => {
                return Err(fail(
                    "missing \"confidence\" (a number from 0.1 to 1.0)".into(),
                ))
            }
        };
        let files = match obj.get("files") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(items)) => items
                .iter()
                .map(|v| v.as_str().map(str::to_owned))
                .collect::<Option<Vec<_>>>()
                .ok_or_else(|| fail("\"files\" must be a list of strings".into()))?,
            Some(_) => {
                return Err(fail(
                    "\"files\" must be a list of strings, like [\"src/a.rs\"]".into(),
                ))
            }
        };
        let mut body = Body::Learning {
            skill: string("skill", false)?,
            ltype,
            key: string("key", true)?,
            insight: string("insight", true)?,
            confidence,
            files,
            file_blobs: Default::default(),
        };
        normalize(&mut body);
        out.push(body);
    }
    Ok(out)
}

/// The top-level `"confidence"` of a line serde_json has already accepted, read with Rust's
/// exact float parser: serde_json without its `float_roundtrip` feature may be off by one ulp on
/// long literals, and an untouched line must read back as the very number it was rendered from
/// (else every save would see an edit).
fn exact_confidence(line: &str) -> Option<f64> {
    let b = line.as_bytes();
    let mut i = skip_ws(b, 0);
    if b.get(i) != Some(&b'{') {
        return None;
    }
    i += 1;
    let mut found = None;
    loop {
        i = skip_ws(b, i);
        match b.get(i)? {
            b'}' => return found,
            b',' => {
                i += 1;
                continue;
            }
            b'"' => {}
            _ => return None,
        }
        let key_end = skip_string(b, i)?;
        let key = line.get(i + 1..key_end - 1)?;
        i = skip_ws(b, key_end);
        if b.get(i) != Some(&b':') {
            return None;
        }
        i = skip_ws(b, i + 1);
        let end = skip_value(b, i)?;
        if key == "confidence" {
            found = line.get(i..end)?.parse::<f64>().ok();
        }
        i = end;
    }
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while b.get(i).is_some_and(u8::is_ascii_whitespace) {
        i += 1;
    }
    i
}

/// `b[i]` is an opening quote: the index after the closing one.
fn skip_string(b: &[u8], i: usize) -> Option<usize> {
    let mut j = i + 1;
    while j < b.len() {
        match b[j] {
            b'\\' => j += 2,
            b'"' => return Some(j + 1),
            _ => j += 1,
        }
    }
    None
}

fn skip_value(b: &[u8], i: usize) -> Option<usize> {
    match b.get(i)? {
        b'"' => skip_string(b, i),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut j = i;
            while j < b.len() {
                match b[j] {
                    b'"' => {
                        j = skip_string(b, j)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth = depth.checked_sub(1)?;
                        if depth == 0 {
                            return Some(j + 1);
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
            None
        }
        _ => {
            let mut j = i;
            while j < b.len() && !matches!(b[j], b',' | b'}' | b']') && !b[j].is_ascii_whitespace()
            {
                j += 1;
            }
            Some(j)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{fold, Draft};
    use crate::view::{self, ViewFile};

    fn learning(key: &str, files: &[&str]) -> Body {
        Body::Learning {
            skill: "cook".into(),
            ltype: LearningType::Decision,
            key: key.into(),
            insight: "Chose Zustand over Redux — fewer re-renders".into(),
            confidence: 0.8,
            files: files.iter().map(|s| s.to_string()).collect(),
            file_blobs: Default::default(),
        }
    }

    #[test]
    fn renders_the_seed_schema() {
        let a = Draft::new(learning("state-lib", &["src/store/index.ts"])).stamp(
            "2026-04-04T14:30:00Z",
            1,
            "a",
        );
        let b = Draft::new(Body::Learning {
            skill: String::new(),
            ltype: LearningType::Error,
            key: "k".into(),
            insight: "line one\nline two".into(),
            confidence: 1.0,
            files: vec![],
            file_blobs: Default::default(),
        })
        .stamp("2026-04-05T00:00:00Z", 2, "a");
        assert_eq!(
            view::render(ViewFile::Learnings, &fold([&a, &b])),
            r#"{"ts":"2026-04-04T14:30:00Z","skill":"cook","type":"decision","key":"state-lib","insight":"Chose Zustand over Redux — fewer re-renders","confidence":0.8,"files":["src/store/index.ts"]}
{"ts":"2026-04-05T00:00:00Z","skill":"","type":"error","key":"k","insight":"line one\nline two","confidence":1.0}
"#
        );
        assert_eq!(view::render(ViewFile::Learnings, &fold([])), "");
    }

    #[test]
    fn parses_seed_lines_with_optional_fields() {
        let text = r#"{"ts":"2026-04-04T14:30:00Z","skill":"cook","type":"decision","key":"state-lib","insight":"Chose Zustand over Redux — fewer re-renders","confidence":0.8,"files":["src/store/index.ts"]}

{"type":"decision","key":"bare","insight":"Chose Zustand over Redux — fewer re-renders","confidence":0.8,"extra":true}
"#;
        let mut bare = learning("bare", &[]);
        if let Body::Learning { skill, .. } = &mut bare {
            skill.clear();
        }
        assert_eq!(
            view::parse(ViewFile::Learnings, text).unwrap(),
            vec![learning("state-lib", &["src/store/index.ts"]), bare]
        );
    }

    #[test]
    fn confidence_reads_back_exactly() {
        for c in [
            1.0336648076968175e-88,
            0.30000000000000004,
            0.8,
            -0.0,
            1e300,
        ] {
            let line = format!(
                r#"{{"insight":"x \" \\ {{[","files":["a]"],"type":"error","key":"k","confidence":{c:?} }}"#
            );
            assert_eq!(exact_confidence(&line), Some(c), "{line}");
            match &view::parse(ViewFile::Learnings, &line).unwrap()[0] {
                Body::Learning { confidence, .. } => assert_eq!(confidence.to_bits(), c.to_bits()),
                other => panic!("{other:?}"),
            }
        }
    }

    #[test]
    fn errors_name_the_line() {
        let ok = r#"{"type":"insight","key":"k","insight":"i","confidence":0.5}"#;
        let cases = [
            ("not json", "not a JSON object"),
            (
                r#"{"type":"hunch","key":"k","insight":"i","confidence":0.5}"#,
                "decision, error, insight",
            ),
            (
                r#"{"type":"insight","insight":"i","confidence":0.5}"#,
                "missing \"key\"",
            ),
            (
                r#"{"type":"insight","key":"k","insight":"i","confidence":"high"}"#,
                "must be a number",
            ),
            (
                r#"{"type":"insight","key":"k","insight":"i","confidence":0.5,"files":"a"}"#,
                "list of strings",
            ),
            ("[1,2]", "not a JSON object"),
        ];
        for (bad, want) in cases {
            let e = view::parse(ViewFile::Learnings, &format!("{ok}\n\n{bad}\n")).unwrap_err();
            assert_eq!(e.line, 3, "{bad}");
            assert!(e.message.contains(want), "{e}");
        }
    }
}
