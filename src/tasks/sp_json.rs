//! The seed's `sp.json` (`session-protocol.json`): read into task and context-block bodies,
//! and written from them in the seed's exact form — minified on one line, `version` "2.0",
//! UTC times with `Z`, metadata with the git branch and commit, at most 5 individual
//! completed tasks plus consolidated groups, paths relative or `~/`, secrets redacted. Pure.

use serde::Deserialize;
use serde_json::{json, Value};

use crate::model::kinds::{ContextBlock, Task};
use crate::model::task::{canonical_status, parse_task_id, task_id, COMPLETED};
use crate::model::{Body, Record};

/// Why a file cannot be read: the seed's own messages.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SpError {
    #[error("Cannot load: invalid JSON")]
    InvalidJson(String),
    #[error("Cannot load: missing metadata")]
    MissingMetadata,
    #[error("Cannot load: {0}")]
    Invalid(String),
}

#[derive(Debug, Deserialize)]
struct SpTask {
    id: String,
    title: String,
    status: String,
    #[serde(default)]
    priority: Option<String>,
    #[serde(default)]
    category: Option<String>,
    #[serde(default)]
    created: Option<String>,
    #[serde(default)]
    completed: Option<String>,
    #[serde(default)]
    consolidated: bool,
    #[serde(default)]
    consolidated_count: u32,
    #[serde(default)]
    context: Option<String>,
    #[serde(default)]
    files: Vec<String>,
    /// Keys the seed does not define: kept, and written back.
    #[serde(flatten)]
    rest: serde_json::Map<String, Value>,
}

/// The `after` of a task's extra that holds a key of its `sp.json` object the seed does not
/// define (label: the key; text: its value as compact JSON). `tasks.md` does not show them.
pub const SP_JSON_KEY: &str = "sp.json";

#[derive(Debug, Deserialize)]
struct SpBlock {
    title: String,
    content: String,
    #[serde(default)]
    updated: Option<String>,
    #[serde(default)]
    related_tasks: Vec<String>,
}

/// What a file holds, as record bodies (tasks without `uid` or `claimed`: the writer gives
/// them). The metadata must be there; its git state and times describe the file, not the
/// tasks, and an export writes them anew.
#[derive(Debug)]
pub struct SpFile {
    pub tasks: Vec<Body>,
    pub blocks: Vec<Body>,
    /// The metadata's `git_branch` and `git_commit`: the state the file was saved in, for the
    /// drift warning of the seed's WF2.
    pub git_branch: Option<String>,
    pub git_commit: Option<String>,
}

/// A time as RFC 3339 UTC with `Z`, to the second.
fn utc(t: &str) -> Option<String> {
    crate::text::add_secs(t.trim(), 0)
}

/// Reads a file; `now` stands in for times it leaves out.
pub fn parse(text: &str, now: &str) -> Result<SpFile, SpError> {
    // Some editors start a file with a byte-order mark; it is not JSON.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let v: Value = serde_json::from_str(text).map_err(|e| SpError::InvalidJson(e.to_string()))?;
    if !v.get("metadata").is_some_and(Value::is_object) {
        return Err(SpError::MissingMetadata);
    }
    let meta = |key: &str| {
        v["metadata"]
            .get(key)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
    };
    let (git_branch, git_commit) = (meta("git_branch"), meta("git_commit"));
    let tasks: Vec<SpTask> = serde_json::from_value(v.get("tasks").cloned().unwrap_or(json!([])))
        .map_err(|e| SpError::Invalid(format!("tasks: {e}")))?;
    let blocks: Vec<SpBlock> =
        serde_json::from_value(v.get("context_blocks").cloned().unwrap_or(json!([])))
            .map_err(|e| SpError::Invalid(format!("context_blocks: {e}")))?;
    let time = |field: &str, t: Option<&str>, id: &str, or: &str| match t {
        None => Ok(or.to_owned()),
        Some(t) => utc(t).ok_or_else(|| {
            SpError::Invalid(format!("{id}: {field} {t:?} is not an ISO 8601 time"))
        }),
    };
    let mut out_tasks = Vec::new();
    for t in tasks {
        let num = parse_task_id(&t.id)
            .ok_or_else(|| SpError::Invalid(format!("task id {:?} is not TASK_XXX", t.id)))?;
        let status = canonical_status(&t.status).ok_or_else(|| {
            SpError::Invalid(format!(
                "{}: status {:?} is not pending, in_progress or completed",
                t.id, t.status
            ))
        })?;
        out_tasks.push(Body::Task(Task {
            num,
            title: t.title,
            status: status.to_owned(),
            priority: t.priority.unwrap_or_default(),
            category: t.category.unwrap_or_default(),
            created: time("created", t.created.as_deref(), &t.id, now)?,
            completed: time("completed", t.completed.as_deref(), &t.id, "")?,
            consolidated: t.consolidated,
            consolidated_count: t.consolidated_count,
            context: t.context.unwrap_or_default(),
            files: t.files,
            extra: t
                .rest
                .into_iter()
                .map(|(key, value)| crate::model::Extra {
                    after: SP_JSON_KEY.into(),
                    label: key,
                    text: value.to_string(),
                })
                .collect(),
            ..Task::default()
        }));
    }
    let mut out_blocks = Vec::new();
    for b in blocks {
        out_blocks.push(Body::ContextBlock(ContextBlock {
            updated: time("updated", b.updated.as_deref(), &b.title, now)?,
            title: b.title,
            content: b.content,
            related_tasks: b.related_tasks,
        }));
    }
    Ok(SpFile {
        tasks: out_tasks,
        blocks: out_blocks,
        git_branch,
        git_commit,
    })
}

/// Where the export runs: the git state for the metadata, and the directories paths are
/// made relative to (the work tree) or shortened to `~/` (the home directory).
#[derive(Debug, Clone, Default)]
pub struct Place {
    pub branch: Option<String>,
    pub commit: Option<String>,
    pub work_tree: Option<String>,
    pub home: Option<String>,
    pub now: String,
}

impl Place {
    /// Text with the work tree's absolute path made relative and the home directory spelled
    /// `~`, then with secrets redacted.
    fn private(&self, text: &str) -> String {
        let mut t = text.to_owned();
        if let Some(w) = self.work_tree.as_deref().filter(|w| w.len() > 1) {
            let w = w.trim_end_matches('/');
            t = t.replace(&format!("{w}/"), "").replace(w, ".");
        }
        if let Some(h) = self.home.as_deref().filter(|h| h.len() > 1) {
            let h = h.trim_end_matches('/');
            t = t.replace(&format!("{h}/"), "~/").replace(h, "~");
        }
        crate::secrets::redact(&t)
    }
}

/// The file for `tasks` (the fold's, in number order) and `blocks`: completed tasks beyond
/// the 5 most recent individual ones are consolidated first (`groups`, made by
/// [`super::consolidate::plan`] and numbered after the highest task), as the seed's save
/// does; the store is not changed.
pub fn render(tasks: &[Record], blocks: &[Record], place: &Place) -> String {
    let mut bodies: Vec<Body> = tasks.iter().map(|r| r.body.clone()).collect();
    let mut groups: Vec<super::consolidate::Group<'_>> =
        super::consolidate::plan(tasks, blocks, &place.now);
    // The seed's cap holds in the file even for protected tasks: the oldest beyond 5 go
    // into one group of earlier work.
    let grouped: Vec<&str> = groups
        .iter()
        .flat_map(|g| g.members.iter().map(|r| r.id.as_str()))
        .collect();
    let mut individual: Vec<&Record> = tasks
        .iter()
        .filter(|r| matches!(&r.body, Body::Task(Task { status, consolidated: false, .. }) if status == COMPLETED))
        .filter(|r| !grouped.contains(&r.id.as_str()))
        .collect();
    individual.sort_by(|a, b| completed_of(b).cmp(&completed_of(a)));
    if individual.len() > super::consolidate::KEEP_INDIVIDUAL {
        let mut rest: Vec<&Record> = individual.split_off(super::consolidate::KEEP_INDIVIDUAL);
        rest.sort_by_key(|r| r.body.task_num());
        groups.push(super::consolidate::Group {
            title: "Earlier work".into(),
            category: String::new(),
            members: rest,
            criteria: [false; 4],
            by_cap: true,
        });
    }
    let gone: Vec<u32> = groups
        .iter()
        .flat_map(|g| g.members.iter().map(|r| r.body.task_num()))
        .collect();
    bodies.retain(|b| !gone.contains(&b.task_num()));
    let mut next = tasks.iter().map(|r| r.body.task_num()).max().unwrap_or(0);
    for g in &groups {
        next += 1;
        let mut b = g.body();
        if let Body::Task(Task { num, .. }) = &mut b {
            *num = next;
        }
        bodies.push(b);
    }

    let created = tasks
        .iter()
        .filter_map(|r| match &r.body {
            Body::Task(Task { created, .. }) => Some(created.clone()),
            _ => None,
        })
        .min()
        .unwrap_or_else(|| place.now.clone());
    let metadata = Obj::default()
        .put("version", json!("2.0"))
        .put("created", json!(created))
        .put("updated", json!(place.now))
        .put("git_branch", json!(place.branch))
        .put("git_commit", json!(place.commit));
    let tasks: Vec<String> = bodies.iter().filter_map(|b| task_json(b, place)).collect();
    let blocks: Vec<String> = blocks
        .iter()
        .filter_map(|r| match &r.body {
            Body::ContextBlock(ContextBlock {
                title,
                content,
                updated,
                related_tasks,
            }) => {
                let mut m = Obj::default()
                    .put("title", json!(place.private(title)))
                    .put("content", json!(place.private(content)))
                    .put("updated", json!(updated));
                if !related_tasks.is_empty() {
                    m = m.put("related_tasks", json!(related_tasks));
                }
                Some(m.text())
            }
            _ => None,
        })
        .collect();
    let mut file = Obj::default()
        .raw("metadata", metadata.text())
        .raw("tasks", format!("[{}]", tasks.join(",")));
    if !blocks.is_empty() {
        file = file.raw("context_blocks", format!("[{}]", blocks.join(",")));
    }
    file.text()
}

/// A JSON object written with its keys in the order given (the seed's order), minified.
#[derive(Default)]
struct Obj(Vec<String>);

impl Obj {
    fn put(self, key: &str, value: Value) -> Obj {
        let v = serde_json::to_string(&value).unwrap_or_else(|_| "null".into());
        self.raw(key, v)
    }

    /// `put` when `when`, else the object as it is.
    fn put_if(self, when: bool, key: &str, value: Value) -> Obj {
        if when {
            self.put(key, value)
        } else {
            self
        }
    }

    fn raw(mut self, key: &str, json: String) -> Obj {
        let k = serde_json::to_string(key).unwrap_or_default();
        self.0.push(format!("{k}:{json}"));
        self
    }

    fn text(&self) -> String {
        format!("{{{}}}", self.0.join(","))
    }
}

fn completed_of(r: &Record) -> (&str, u32) {
    match &r.body {
        Body::Task(Task { completed, num, .. }) => (completed, *num),
        _ => ("", 0),
    }
}

/// One task in the seed's key order; optional fields left out when empty.
fn task_json(b: &Body, place: &Place) -> Option<String> {
    let Body::Task(t) = b else {
        return None;
    };
    let files: Vec<String> = t.files.iter().map(|f| place.private(f)).collect();
    let mut m = Obj::default()
        .put("id", json!(task_id(t.num)))
        .put("title", json!(place.private(&t.title)))
        .put("status", json!(t.status))
        .put_if(!t.priority.is_empty(), "priority", json!(t.priority))
        .put_if(!t.category.is_empty(), "category", json!(t.category))
        .put("created", json!(t.created))
        .put(
            "completed",
            json!(Some(&t.completed).filter(|c| !c.is_empty())),
        )
        .put("consolidated", json!(t.consolidated))
        .put("consolidated_count", json!(t.consolidated_count))
        .put_if(
            !t.context.is_empty(),
            "context",
            json!(place.private(&t.context)),
        )
        .put_if(!files.is_empty(), "files", json!(files));
    // Keys the seed does not define, as the file had them.
    for x in t.extra.iter().filter(|x| x.after == SP_JSON_KEY) {
        if let Ok(v) = serde_json::from_str::<Value>(&x.text) {
            m = m.put(&x.label, v);
        }
    }
    Some(m.text())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_are_the_seeds() {
        assert_eq!(
            parse("{", "t").unwrap_err().to_string(),
            "Cannot load: invalid JSON"
        );
        assert_eq!(
            parse(r#"{"tasks":[]}"#, "t").unwrap_err().to_string(),
            "Cannot load: missing metadata"
        );
        assert!(parse(
            r#"{"metadata":{},"tasks":[{"id":"X","title":"t","status":"pending"}]}"#,
            "t"
        )
        .is_err());
    }

    #[test]
    fn paths_are_relative_or_home_and_secrets_redacted() {
        let place = Place {
            work_tree: Some("/home/ada/proj".into()),
            home: Some("/home/ada".into()),
            ..Place::default()
        };
        assert_eq!(
            place.private("see /home/ada/proj/src/a.rs:3"),
            "see src/a.rs:3"
        );
        assert_eq!(
            place.private("key at /home/ada/keys/pub.pem"),
            "key at ~/keys/pub.pem"
        );
        let secret = "ghp_0123456789abcdefABCDEF0123456789abcd";
        assert!(!place.private(&format!("token {secret}")).contains(secret));
    }
}
