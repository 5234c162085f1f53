//! An agent's todo list (Claude Code's TodoWrite, or one task of its Task tools) as task
//! changes: pure. Each todo is matched to a task by its text (case and surrounding space
//! aside; by the title it had before when it was renamed), open tasks first, then individual
//! completed ones; a matched task whose status or title differs gets an edit (an empty status
//! keeps the task's), a todo matching none becomes a new task. Tasks missing from the list are
//! left as they are (the list is the agent's current work, not the whole history), so a list
//! that did not change changes nothing.

use crate::model::kinds::Task;
use crate::model::task::{canonical_status, COMPLETED};
use crate::model::{Body, Draft, Record};

/// One item of a TodoWrite list.
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
pub struct Todo {
    #[serde(default)]
    pub content: String,
    #[serde(default)]
    pub status: String,
    #[serde(default, rename = "activeForm")]
    pub active_form: String,
    /// The title the agent's task had before (Claude Code's TaskUpdate renaming it): the task
    /// of that title is renamed. Not in a TodoWrite list.
    #[serde(skip)]
    pub was: Option<String>,
}

fn key(s: &str) -> String {
    crate::text::one_line(s).to_lowercase()
}

/// The drafts that make `tasks` follow `todos`: edits (superseding the task's record) and
/// new tasks (numbered and identified by [`crate::model::task::complete`] at write time).
pub fn changes(tasks: &[Record], todos: &[Todo]) -> Vec<Draft> {
    let mut used: Vec<bool> = vec![false; tasks.len()];
    let mut out = Vec::new();
    for todo in todos {
        let want = key(todo.was.as_deref().unwrap_or(&todo.content));
        let status = match todo.status.as_str() {
            "" => None,
            s => match canonical_status(s) {
                Some(s) => Some(s),
                None => continue,
            },
        };
        if want.is_empty() || key(&todo.content).is_empty() {
            continue;
        }
        let matches = |open: bool| {
            (0..tasks.len()).find(|&i| {
                !used[i]
                    && matches!(&tasks[i].body, Body::Task(Task { title, status: s, consolidated: false, .. })
                        if key(title) == want && (s != COMPLETED) == open)
            })
        };
        match matches(true).or_else(|| matches(false)) {
            Some(i) => {
                used[i] = true;
                let r = &tasks[i];
                let mut body = r.body.clone();
                if let Body::Task(Task {
                    status: s,
                    completed,
                    title,
                    ..
                }) = &mut body
                {
                    let renamed = key(title) != key(&todo.content);
                    let status = status.unwrap_or(s.as_str()).to_owned();
                    if *s == status && !renamed {
                        continue;
                    }
                    if *s != status {
                        *s = status;
                        completed.clear();
                    }
                    if renamed {
                        *title = crate::text::one_line(&todo.content);
                    }
                }
                out.push(Draft::superseding(body, vec![r.id.clone()]));
            }
            None => out.push(Draft::new(Body::Task(Task {
                title: crate::text::one_line(&todo.content),
                status: status.unwrap_or(crate::model::task::PENDING).to_owned(),
                ..Task::default()
            }))),
        }
    }
    out
}

/// A todo left out of the tasks because its text holds a secret: its place in the list
/// (from 1) and the rule that found it, never the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused {
    pub item: usize,
    pub rule: &'static str,
}

/// The todos to follow, and those left out because their text holds a secret (the others are
/// followed: a task missing from the list is left as it is).
pub fn without_secrets(todos: &[Todo]) -> (Vec<Todo>, Vec<Refused>) {
    let mut kept = Vec::with_capacity(todos.len());
    let mut refused = Vec::new();
    for (i, todo) in todos.iter().enumerate() {
        match crate::secrets::scan(&todo.content).first() {
            Some(f) => refused.push(Refused {
                item: i + 1,
                rule: f.rule,
            }),
            None => kept.push(todo.clone()),
        }
    }
    (kept, refused)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn todo(content: &str, status: &str) -> Todo {
        Todo {
            content: content.into(),
            status: status.into(),
            active_form: String::new(),
            was: None,
        }
    }

    fn task(num: u32, title: &str, status: &str) -> Record {
        Draft::new(Body::Task(Task {
            uid: format!("{num:04x}"),
            num,
            claimed: "2026-04-01T00:00:00Z".into(),
            title: title.into(),
            status: status.into(),
            priority: String::new(),
            category: String::new(),
            created: "2026-04-01T00:00:00Z".into(),
            completed: String::new(),
            consolidated: false,
            consolidated_count: 0,
            context: String::new(),
            files: Vec::new(),
            keep: false,
            aliases: Vec::new(),
            extra: Vec::new(),
        }))
        .stamp("2026-04-01T00:00:00Z", u64::from(num), "a")
    }

    #[test]
    fn a_todo_list_becomes_task_changes() {
        let tasks = vec![task(1, "Fix auth", "pending"), task(2, "Old", "completed")];
        let todos = vec![
            todo("fix auth ", "in_progress"),
            todo("Write tests", "pending"),
            todo("Old", "completed"),
            todo("", "pending"),
            todo("Bad status", "whatever"),
        ];
        let got = changes(&tasks, &todos);
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].supersedes, vec![tasks[0].id.clone()]);
        assert!(matches!(&got[0].body, Body::Task(Task { status, .. }) if status == "in_progress"));
        assert!(
            matches!(&got[1].body, Body::Task(Task { title, num: 0, .. }) if title == "Write tests")
        );
        // The same list again, once applied, changes nothing.
        let applied = vec![
            task(1, "Fix auth", "in_progress"),
            task(2, "Old", "completed"),
            task(3, "Write tests", "pending"),
        ];
        assert!(changes(&applied, &todos).is_empty());
    }

    #[test]
    fn a_todo_holding_a_secret_is_left_out_and_named_by_its_place() {
        // Built by concatenation so no literal credential sits in the source.
        let secret = format!("ghp_{}", "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8");
        let todos = vec![
            todo("Rotate the deploy key", "pending"),
            todo(&format!("Push with token {secret}"), "pending"),
            todo("Write tests", "pending"),
        ];
        let (kept, refused) = without_secrets(&todos);
        assert_eq!(kept, vec![todos[0].clone(), todos[2].clone()]);
        assert_eq!(refused.len(), 1);
        assert_eq!(refused[0].item, 2);
        assert!(!refused[0].rule.is_empty());
        assert!(!format!("{refused:?}").contains(&secret));
    }
}
