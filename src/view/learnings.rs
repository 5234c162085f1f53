//! `learnings.jsonl`: the seed's machine-queryable learning log, one JSON object per line.

use serde::Serialize;
use serde_json::{Map, Value};

use super::text::{err, parse_time};
use super::{normal, normalize, ParseError, Parsed, Withhold};
use crate::model::kinds::Learning;
use crate::model::{Body, Extra, LearningType, Record, LEARNING_KEYS};

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

/// The confidence of a line that gives none, as the CLI's `learn` defaults it.
const DEFAULT_CONFIDENCE: f64 = 0.7;

/// No header and no trailing blank line: an empty log renders as `""`.
pub(crate) fn render(records: &[Record], withhold: Withhold<'_>) -> String {
    let mut out = String::new();
    for r in records {
        if withhold(r) {
            let line = serde_json::json!({
                "withheld": r.id,
                "reason": "TAINTED: inspect it with `git rune verify`",
            });
            out.push_str(&line.to_string());
            out.push('\n');
            continue;
        }
        if let Body::Learning(l) = normal(&r.body) {
            let line = Line {
                ts: &r.meta.ts,
                skill: &l.skill,
                ltype: l.ltype,
                key: &l.key,
                insight: &l.insight,
                confidence: l.confidence,
                files: &l.files,
            };
            // Serialising plain strings and numbers cannot fail; a non-finite confidence
            // becomes null, which parse then reports.
            let mut text = serde_json::to_string(&line).unwrap_or_default();
            if !l.extra.is_empty() {
                text.pop();
                for x in &l.extra {
                    text.push(',');
                    text.push_str(&serde_json::to_string(&x.label).unwrap_or_default());
                    text.push(':');
                    text.push_str(&x.text);
                }
                text.push('}');
            }
            out.push_str(&text);
            out.push('\n');
        }
    }
    out
}

/// The run of a rendered line that names `r`'s group (type and key):
/// `,"type":…,"key":…,"insight":`, which [`render`] writes once per line and text inside a
/// JSON string cannot contain (its quotes are escaped). `None` for a record of another kind.
pub(crate) fn group_run(r: &Record) -> Option<Vec<u8>> {
    let Body::Learning(Learning { ltype, key, .. }) = normal(&r.body) else {
        return None;
    };
    let run = format!(
        ",\"type\":{},\"key\":{},\"insight\":",
        serde_json::to_string(&ltype).ok()?,
        serde_json::to_string(&key).ok()?
    );
    Some(run.into_bytes())
}

/// Reads what one line of a rendered `learnings.jsonl` says of its place: its `ts` (as
/// written, without quotes) and its group run ([`group_run`]). A withheld line gives
/// neither; a line [`render`] did not write may give either or neither. Holds its searchers,
/// made once for the lines of a whole log.
pub(crate) struct LineReader {
    ty: memchr::memmem::Finder<'static>,
    insight: memchr::memmem::Finder<'static>,
}

impl LineReader {
    const TS: &'static [u8] = b"{\"ts\":\"";

    pub(crate) fn new() -> LineReader {
        LineReader {
            ty: memchr::memmem::Finder::new(b",\"type\":"),
            insight: memchr::memmem::Finder::new(b",\"insight\":"),
        }
    }

    pub(crate) fn ts<'l>(&self, line: &'l [u8]) -> Option<&'l [u8]> {
        let rest = line.strip_prefix(Self::TS)?;
        let ts = &rest[..memchr::memchr(b'"', rest)?];
        // A time with an escape in it is no time render wrote.
        (!ts.contains(&b'\\')).then_some(ts)
    }

    pub(crate) fn group<'l>(&self, line: &'l [u8]) -> Option<&'l [u8]> {
        let rest = line.strip_prefix(Self::TS)?;
        let at = self.ty.find(rest)?;
        let end = self.insight.find(&rest[at..])? + self.insight.needle().len();
        Some(&rest[at..at + end])
    }
}

const EXAMPLE: &str = r#"{"ts":"2026-04-04T14:30:00Z","skill":"cook","type":"decision","key":"state-lib","insight":"Chose X because Y","confidence":0.8}"#;

/// Reads one JSON object a line, as the seed writes them; an object may also be spread over
/// several lines (pretty-printed).
pub(crate) fn parse(text: &str) -> Result<Vec<Parsed>, ParseError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut out = Vec::new();
    let mut stream = serde_json::Deserializer::from_str(text).into_iter::<Value>();
    let mut start = 0;
    // Lines are counted as the stream moves on, never from the top again: counting from the
    // top for every object made a 10,000-line import quadratic.
    let mut counted = LineCounter::default();
    loop {
        let value = match stream.next() {
            None => break,
            Some(Ok(v)) => v,
            Some(Err(e)) => {
                return Err(err(
                    e.line().max(1),
                    format!("not a JSON object ({e}); each line must be one object like {EXAMPLE}"),
                ))
            }
        };
        let end = stream.byte_offset();
        let object_text = &text[start..end];
        let line = counted.line_at(
            text,
            start + (object_text.len() - object_text.trim_start().len()),
        );
        start = end;
        let Value::Object(obj) = value else {
            return Err(err(
                line,
                format!("not a JSON object; each line must be one object like {EXAMPLE}"),
            ));
        };
        if let Some(Value::String(id)) = obj.get("withheld") {
            out.push(Parsed::Withheld(id.clone()));
            continue;
        }
        out.push(entry(&obj, object_text, line)?);
    }
    Ok(out)
}

/// The 1-based line of byte offsets asked for in increasing order.
#[derive(Default)]
struct LineCounter {
    offset: usize,
    newlines: usize,
}

impl LineCounter {
    fn line_at(&mut self, text: &str, offset: usize) -> usize {
        let offset = offset.min(text.len());
        if offset > self.offset {
            self.newlines += text.as_bytes()[self.offset..offset]
                .iter()
                .filter(|&&b| b == b'\n')
                .count();
            self.offset = offset;
        }
        1 + self.newlines
    }
}

fn entry(obj: &Map<String, Value>, object_text: &str, line: usize) -> Result<Parsed, ParseError> {
    let fail = |m: String| err(line, m);
    let string = |name: &str, required: bool| -> Result<String, ParseError> {
        match obj.get(name) {
            Some(Value::String(s)) => Ok(s.clone()),
            None | Some(Value::Null) if !required => Ok(String::new()),
            None => Err(fail(format!("missing \"{name}\" (a string)"))),
            Some(_) => Err(fail(format!("\"{name}\" must be a string"))),
        }
    };
    let types = LearningType::ALL.map(LearningType::as_str).join(", ");
    let ltype = LearningType::parse(&string("type", true)?.to_lowercase())
        .ok_or_else(|| fail(format!("\"type\" must be one of {types}")))?;
    let confidence = match obj.get("confidence") {
        Some(Value::Number(n)) => exact_confidence(object_text)
            .or_else(|| n.as_f64())
            .ok_or_else(|| fail("\"confidence\" is out of range".into()))?,
        None | Some(Value::Null) => DEFAULT_CONFIDENCE,
        Some(_) => {
            return Err(fail(
                "\"confidence\" must be a number from 0.1 to 1.0, like 0.8".into(),
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
        Some(Value::String(one)) => vec![one.clone()],
        Some(_) => {
            return Err(fail(
                "\"files\" must be a list of strings, like [\"src/a.rs\"]".into(),
            ))
        }
    };
    let at = match obj.get("ts") {
        None | Some(Value::Null) => None,
        Some(Value::String(ts)) if ts.trim().is_empty() => None,
        Some(Value::String(ts)) => Some(parse_time(ts).ok_or_else(|| {
            fail(format!(
                "\"ts\" must be a time like \"2026-04-04T14:30:00Z\"; found {ts:?}"
            ))
        })?),
        Some(_) => return Err(fail("\"ts\" must be a string".into())),
    };
    let extra = obj
        .iter()
        .filter(|(k, _)| !LEARNING_KEYS.contains(&k.as_str()))
        .map(|(k, v)| Extra {
            after: String::new(),
            label: k.clone(),
            text: v.to_string(),
        })
        .collect();
    let mut body = Body::Learning(Learning {
        skill: string("skill", false)?,
        ltype,
        key: string("key", true)?,
        insight: string("insight", true)?,
        confidence,
        files,
        file_blobs: Default::default(),
        extra,
    });
    normalize(&mut body);
    Ok(Parsed::entry(body, at))
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
    use crate::model::testing::learning as rec;

    #[test]
    fn a_lines_group_and_time_are_read_only_where_the_renderer_wrote_them() {
        let mut tricky = rec(
            2,
            "k",
            "mentions ,\"type\":\"insight\",\"key\":\"k\",\"insight\": inside",
        );
        if let Body::Learning(Learning { key, .. }) = &mut tricky.body {
            *key = "other \"quoted\"".into();
        }
        let records = vec![rec(1, "k", "first"), tricky, rec(3, "k2", "third")];
        let text = render(&records, &|_| false);
        let reader = LineReader::new();
        let facts: Vec<_> = text
            .lines()
            .map(|l| (reader.ts(l.as_bytes()), reader.group(l.as_bytes())))
            .collect();
        for (r, (ts, group)) in records.iter().zip(&facts) {
            assert_eq!(*ts, Some(r.meta.ts.as_bytes()));
            assert_eq!(group.map(<[u8]>::to_vec), group_run(r), "{r:?}");
        }
        // The group run of a new learning in a shown group is that line's.
        assert_eq!(
            facts[0].1.map(<[u8]>::to_vec),
            group_run(&rec(9, "k", "new"))
        );
        assert_ne!(facts[1].1, facts[0].1);
        // Withheld: the line shows neither time nor key.
        let withheld = render(&records[..1], &|_| true);
        for line in [withheld.as_bytes(), b"not json\n"] {
            assert_eq!((reader.ts(line), reader.group(line)), (None, None));
        }
    }

    use super::*;
    use crate::model::{fold, Draft};
    use crate::view::{self, ViewFile};

    fn learning(key: &str, files: &[&str]) -> Body {
        Body::Learning(Learning {
            skill: "cook".into(),
            ltype: LearningType::Decision,
            key: key.into(),
            insight: "Chose Zustand over Redux — fewer re-renders".into(),
            confidence: 0.8,
            files: files.iter().map(|s| s.to_string()).collect(),
            file_blobs: Default::default(),
            extra: Vec::new(),
        })
    }

    #[test]
    fn renders_the_seed_schema() {
        let a = Draft::new(learning("state-lib", &["src/store/index.ts"])).stamp(
            "2026-04-04T14:30:00Z",
            1,
            "a",
        );
        let b = Draft::new(Body::Learning(Learning {
            skill: String::new(),
            ltype: LearningType::Error,
            key: "k".into(),
            insight: "line one\nline two".into(),
            confidence: 1.0,
            files: vec![],
            file_blobs: Default::default(),
            extra: Vec::new(),
        }))
        .stamp("2026-04-05T00:00:00Z", 2, "a");
        assert_eq!(
            view::render_all(ViewFile::Learnings, &fold([&a, &b])),
            r#"{"ts":"2026-04-04T14:30:00Z","skill":"cook","type":"decision","key":"state-lib","insight":"Chose Zustand over Redux — fewer re-renders","confidence":0.8,"files":["src/store/index.ts"]}
{"ts":"2026-04-05T00:00:00Z","skill":"","type":"error","key":"k","insight":"line one\nline two","confidence":1.0}
"#
        );
        assert_eq!(view::render_all(ViewFile::Learnings, &fold([])), "");
    }

    #[test]
    fn parses_seed_lines_with_optional_fields() {
        let text = r#"{"ts":"2026-04-04T14:30:00Z","skill":"cook","type":"decision","key":"state-lib","insight":"Chose Zustand over Redux — fewer re-renders","confidence":0.8,"files":["src/store/index.ts"]}

{"type":"decision","key":"bare","insight":"Chose Zustand over Redux — fewer re-renders","confidence":0.8,"extra":true}
"#;
        let mut bare = learning("bare", &[]);
        if let Body::Learning(Learning { skill, extra, .. }) = &mut bare {
            skill.clear();
            // A key the seed does not define is kept, with its JSON value.
            extra.push(Extra {
                after: String::new(),
                label: "extra".into(),
                text: "true".into(),
            });
        }
        assert_eq!(
            view::parse_bodies(ViewFile::Learnings, text).unwrap(),
            vec![learning("state-lib", &["src/store/index.ts"]), bare]
        );
    }

    #[test]
    fn pretty_printed_objects_missing_confidence_and_times_are_read() {
        let text = "{\n  \"ts\": \"2026-04-05T10:15:00+02:00\",\n  \"type\": \"Error\",\n  \"key\": \"k\",\n  \"insight\": \"i\",\n  \"tags\": [\"a\", \"b\"]\n}\n{\"type\":\"insight\",\"key\":\"j\",\"insight\":\"x\"}";
        let parsed = view::parse(ViewFile::Learnings, text).unwrap();
        let Parsed::Entry(first) = &parsed[0] else {
            panic!("{parsed:?}")
        };
        assert_eq!(first.at.as_deref(), Some("2026-04-05T08:15:00Z"));
        match &first.body {
            Body::Learning(Learning {
                ltype,
                confidence,
                extra,
                ..
            }) => {
                assert_eq!(*ltype, LearningType::Error);
                assert_eq!(*confidence, 0.7);
                assert_eq!(extra[0].label, "tags");
                assert_eq!(extra[0].text, "[\"a\",\"b\"]");
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(parsed.len(), 2);
        // An error in a pretty-printed object names the line it is on.
        let e = view::parse(ViewFile::Learnings, "{\n  \"type\": \"x\",\n").unwrap_err();
        assert_eq!(e.line, 3, "{e}");
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
            match &view::parse_bodies(ViewFile::Learnings, &line).unwrap()[0] {
                Body::Learning(Learning { confidence, .. }) => {
                    assert_eq!(confidence.to_bits(), c.to_bits())
                }
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
                r#"{"type":"insight","key":"k","insight":"i","ts":"yesterday"}"#,
                "must be a time",
            ),
            (
                r#"{"type":"insight","key":"k","insight":"i","confidence":0.5,"files":3}"#,
                "list of strings",
            ),
            ("[1,2]", "not a JSON object"),
        ];
        for (bad, want) in cases {
            let e =
                view::parse_bodies(ViewFile::Learnings, &format!("{ok}\n\n{bad}\n")).unwrap_err();
            assert_eq!(e.line, 3, "{bad}");
            assert!(e.message.contains(want), "{e}");
        }
    }
}
