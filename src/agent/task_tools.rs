//! Claude Code's Task tools (`TaskCreate`, `TaskUpdate`: its default since 2.1.142, in place
//! of TodoWrite) as the one todo each call changes, for the branch's tasks to follow.
//! TaskUpdate names a task by the id TaskCreate answered with, which only this session knows:
//! each created task's id and title are kept in `<git-dir>/rune/agent-tasks` (local, never
//! committed, its oldest lines dropped past [`KEEP`]).

use std::path::Path;

use serde::Deserialize;

use super::payload::Payload;
use crate::tasks::todo::Todo;

/// Lines the id file keeps (the newest).
const KEEP: usize = 2000;

fn path(git_dir: &Path) -> std::path::PathBuf {
    git_dir.join("rune").join("agent-tasks")
}

/// `{"task":{"id":"1","subject":"…"}}`: what TaskCreate answers.
#[derive(Deserialize)]
struct Created {
    task: CreatedTask,
}

#[derive(Deserialize)]
struct CreatedTask {
    id: String,
}

/// The todo a TaskCreate or TaskUpdate call makes (`None` for other tools, and for a call
/// that changes nothing the tasks keep: a task deleted from the agent's list stays a task).
pub fn todo(payload: &Payload<'_>, git_dir: &Path) -> Option<Todo> {
    let input = payload.tool_input.as_ref()?;
    let subject = input
        .subject
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty());
    let todo = |content: &str, status: &str, was: Option<String>| Todo {
        content: content.to_owned(),
        status: status.to_owned(),
        active_form: String::new(),
        was,
    };
    match payload.tool() {
        "TaskCreate" => {
            let subject = subject?;
            let created: Option<Created> = serde_json::from_str(payload.tool_response?.get()).ok();
            if let Some(c) = created {
                remember(git_dir, payload.session(), &c.task.id, subject);
            }
            Some(todo(subject, "pending", None))
        }
        "TaskUpdate" => {
            let id = input.task_id.as_deref()?;
            let known = recall(git_dir, payload.session(), id);
            let status = match input.status.as_deref() {
                Some("deleted") => return None,
                Some(s) => s,
                None => "",
            };
            let title = subject.or(known.as_deref())?;
            let was = known.clone().filter(|k| k != title);
            if was.is_some() {
                remember(git_dir, payload.session(), id, title);
            }
            if status.is_empty() && was.is_none() {
                return None;
            }
            Some(todo(title, status, was))
        }
        _ => None,
    }
}

/// Keeps `id`'s title for the session (a line `session<TAB>id<TAB>title`).
fn remember(git_dir: &Path, session: &str, id: &str, title: &str) {
    let line = |s: &str| crate::text::one_line(s).replace('\t', " ");
    let p = path(git_dir);
    let old = std::fs::read_to_string(&p).unwrap_or_default();
    let mut lines: Vec<&str> = old.lines().collect();
    let drop = (lines.len() + 1).saturating_sub(KEEP);
    lines.drain(..drop);
    let mut text = lines.join("\n");
    if !text.is_empty() {
        text.push('\n');
    }
    text.push_str(&format!(
        "{}\t{}\t{}\n",
        line(session),
        line(id),
        line(title)
    ));
    // A title not kept costs only a TaskUpdate that cannot be matched (it is logged there).
    let _ = crate::files::write_atomic(&p, text.as_bytes());
}

/// The title the session's task `id` has, if this clone saw it created.
fn recall(git_dir: &Path, session: &str, id: &str) -> Option<String> {
    let text = std::fs::read_to_string(path(git_dir)).ok()?;
    text.lines().rev().find_map(|l| {
        let mut parts = l.splitn(3, '\t');
        (parts.next()? == session && parts.next()? == id)
            .then(|| parts.next().map(str::to_owned))?
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn payload<'a>(json: &'a str) -> Payload<'a> {
        Payload::parse(json.as_bytes()).unwrap()
    }

    #[test]
    fn a_created_task_is_followed_by_its_updates() {
        let dir = tempfile::tempdir().unwrap();
        let git = dir.path();
        std::fs::create_dir_all(git.join("rune")).unwrap();
        let created = payload(
            r#"{"session_id":"s","tool_name":"TaskCreate","tool_input":{"subject":"Fix the parser","description":"d"},"tool_response":{"task":{"id":"3","subject":"Fix the parser"}}}"#,
        );
        let t = todo(&created, git).unwrap();
        assert_eq!(
            (t.content.as_str(), t.status.as_str(), t.was),
            ("Fix the parser", "pending", None)
        );
        let started = payload(
            r#"{"session_id":"s","tool_name":"TaskUpdate","tool_input":{"taskId":"3","status":"in_progress"}}"#,
        );
        let t = todo(&started, git).unwrap();
        assert_eq!(
            (t.content.as_str(), t.status.as_str()),
            ("Fix the parser", "in_progress")
        );
        let renamed = payload(
            r#"{"session_id":"s","tool_name":"TaskUpdate","tool_input":{"taskId":"3","subject":"Fix the lexer"}}"#,
        );
        let t = todo(&renamed, git).unwrap();
        assert_eq!(
            (t.content.as_str(), t.status.as_str(), t.was.as_deref()),
            ("Fix the lexer", "", Some("Fix the parser"))
        );
        let done = payload(
            r#"{"session_id":"s","tool_name":"TaskUpdate","tool_input":{"taskId":"3","status":"completed"}}"#,
        );
        assert_eq!(todo(&done, git).unwrap().content, "Fix the lexer");
        // Another session's id 3 is another task; a deleted task stays a task.
        let other = payload(
            r#"{"session_id":"t","tool_name":"TaskUpdate","tool_input":{"taskId":"3","status":"completed"}}"#,
        );
        assert!(todo(&other, git).is_none());
        let deleted = payload(
            r#"{"session_id":"s","tool_name":"TaskUpdate","tool_input":{"taskId":"3","status":"deleted"}}"#,
        );
        assert!(todo(&deleted, git).is_none());
    }
}
