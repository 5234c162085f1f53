//! What a Claude Code transcript (`transcript_path`, JSON Lines) says about the conversation's
//! context: the tool calls made since its last compaction. Read only when a resumed session
//! has no counters of its own (they were cleaned after a day, or the hooks came later), so its
//! health count still follows the conversation. Lenient: a line that is not the shape expected
//! is skipped; a transcript that cannot be read says nothing.

use std::io::BufRead as _;
use std::path::Path;

use serde::Deserialize;

/// Tool calls in the current context (since the last compaction) and how many of them failed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Calls {
    pub calls: u32,
    pub failures: u32,
}

#[derive(Deserialize)]
struct Line {
    #[serde(default, rename = "type")]
    kind: String,
    #[serde(default)]
    subtype: Option<String>,
    #[serde(default)]
    message: Option<Message>,
}

#[derive(Deserialize)]
struct Message {
    #[serde(default)]
    content: Option<serde_json::Value>,
}

/// Counts the tool calls of the transcript at `path` since its last compaction; `None` when
/// it cannot be read.
pub fn calls(path: &Path) -> Option<Calls> {
    let file = std::fs::File::open(path).ok()?;
    let mut out = Calls::default();
    for line in std::io::BufReader::new(file).lines() {
        let Ok(line) = line else { break };
        // Most lines are neither: skip them without parsing.
        if !["tool_use", "tool_result", "compact_boundary"]
            .iter()
            .any(|w| line.contains(w))
        {
            continue;
        }
        let Ok(l) = serde_json::from_str::<Line>(&line) else {
            continue;
        };
        if l.kind == "system" && l.subtype.as_deref() == Some("compact_boundary") {
            out = Calls::default();
            continue;
        }
        let blocks = l
            .message
            .and_then(|m| m.content)
            .and_then(|c| c.as_array().cloned())
            .unwrap_or_default();
        for b in &blocks {
            match (l.kind.as_str(), b.get("type").and_then(|t| t.as_str())) {
                ("assistant", Some("tool_use")) => out.calls += 1,
                ("user", Some("tool_result"))
                    if b.get("is_error").and_then(|e| e.as_bool()) == Some(true) =>
                {
                    out.failures += 1
                }
                _ => {}
            }
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_since_the_last_compaction() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        let call = |id: u32| {
            format!(
                r#"{{"type":"assistant","message":{{"role":"assistant","content":[{{"type":"tool_use","id":"t{id}","name":"Bash","input":{{}}}}]}}}}"#
            )
        };
        let result = |id: u32, err: bool| {
            format!(
                r#"{{"type":"user","message":{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"t{id}","content":"x","is_error":{err}}}]}}}}"#
            )
        };
        let mut lines = vec![call(1), result(1, false), call(2), result(2, true)];
        lines.push(
            r#"{"type":"system","subtype":"compact_boundary","content":"Conversation compacted"}"#
                .into(),
        );
        lines.push("not json".into());
        for i in 3..6 {
            lines.push(call(i));
            lines.push(result(i, i == 4));
        }
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
        assert_eq!(
            calls(&path),
            Some(Calls {
                calls: 3,
                failures: 1
            })
        );
        assert_eq!(calls(&dir.path().join("missing.jsonl")), None);
    }
}
