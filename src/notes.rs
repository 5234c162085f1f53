//! The note git-rune attaches to each code commit (`refs/notes/rune`): which memory produced
//! the commit, in git-trailer form so `git log --notes=rune` reads well and programs parse it.

use crate::model::{Body, Record};

/// What a commit's note says.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CommitNote {
    pub branch: Option<String>,
    /// `refs/rune/memory` when the commit was made.
    pub memory: Option<String>,
    /// The branch's session-state ref when the commit was made.
    pub session: Option<String>,
    /// Records added since the previous commit on this branch: (kind, id, headline).
    pub records: Vec<(String, String, String)>,
    /// The open checkpoint's resume line.
    pub checkpoint: Option<String>,
}

/// Trailer keys, in the order they are written.
const BRANCH: &str = "Rune-Branch";
const MEMORY: &str = "Rune-Memory";
const SESSION: &str = "Rune-Session";
const CHECKPOINT: &str = "Rune-Checkpoint";

fn trailer_key(kind: &str) -> String {
    let mut k = String::from("Rune-");
    let mut upper = true;
    for c in kind.chars() {
        if c == '-' {
            upper = true;
            k.push('-');
        } else if upper {
            k.extend(c.to_uppercase());
            upper = false;
        } else {
            k.push(c);
        }
    }
    k
}

/// A one-line headline of a record for the note.
pub fn headline(r: &Record) -> String {
    let text = match &r.body {
        Body::Decision { title, .. } | Body::Convention { title, .. } => title.as_str(),
        Body::Learning { key, .. } => key,
        Body::Instinct { name, .. } => name,
        _ => "",
    };
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

impl CommitNote {
    /// The note text: a human summary line, a blank line, then trailers.
    pub fn render(&self) -> String {
        let mut out = String::new();
        if self.records.is_empty() {
            out.push_str("rune: no new memory since the previous commit\n");
        } else {
            let mut counts: Vec<(String, usize)> = Vec::new();
            for (kind, _, _) in &self.records {
                match counts.iter_mut().find(|(k, _)| k == kind) {
                    Some((_, n)) => *n += 1,
                    None => counts.push((kind.clone(), 1)),
                }
            }
            let parts: Vec<String> = counts
                .iter()
                .map(|(k, n)| format!("{n} {k}{}", if *n == 1 { "" } else { "s" }))
                .collect();
            out.push_str(&format!(
                "rune: {} recorded for this commit\n",
                parts.join(", ")
            ));
        }
        out.push('\n');
        let mut trailer = |k: &str, v: &str| {
            let v = v.split_whitespace().collect::<Vec<_>>().join(" ");
            out.push_str(&format!("{k}: {v}\n"));
        };
        if let Some(b) = &self.branch {
            trailer(BRANCH, b);
        }
        if let Some(m) = &self.memory {
            trailer(MEMORY, m);
        }
        if let Some(s) = &self.session {
            trailer(SESSION, s);
        }
        for (kind, id, title) in &self.records {
            trailer(&trailer_key(kind), &format!("{id} {title}"));
        }
        if let Some(c) = &self.checkpoint {
            trailer(CHECKPOINT, c);
        }
        out
    }

    /// Reads the trailers of a note (ours or hand-written); unknown lines are ignored.
    pub fn parse(text: &str) -> CommitNote {
        let mut note = CommitNote::default();
        for line in text.lines() {
            let Some((key, value)) = line.split_once(": ") else {
                continue;
            };
            let value = value.trim().to_owned();
            match key {
                BRANCH => note.branch = Some(value),
                MEMORY => note.memory = Some(value),
                SESSION => note.session = Some(value),
                CHECKPOINT => note.checkpoint = Some(value),
                k if k.starts_with("Rune-") => {
                    let kind = k["Rune-".len()..].to_ascii_lowercase();
                    let (id, title) = value.split_once(' ').unwrap_or((value.as_str(), ""));
                    note.records.push((kind, id.to_owned(), title.to_owned()));
                }
                _ => {}
            }
        }
        note
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn render_parse_round_trip() {
        let note = CommitNote {
            branch: Some("main".into()),
            memory: Some("a".repeat(40)),
            session: Some("b".repeat(40)),
            records: vec![
                ("decision".into(), "c".repeat(64), "Use Postgres".into()),
                ("cumulative-note".into(), "d".repeat(64), String::new()),
            ],
            checkpoint: Some("Continue the rollback".into()),
        };
        let text = note.render();
        assert!(
            text.starts_with("rune: 1 decision, 1 cumulative-note recorded for this commit\n\n"),
            "{text}"
        );
        assert!(text.contains("\nRune-Cumulative-Note: dddd"), "{text}");
        assert_eq!(CommitNote::parse(&text), note);
    }
}
