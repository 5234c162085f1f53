//! One briefing per context. A new context (a session's start, `/clear`, a compaction) gets
//! the whole `load` briefing, and what else SessionStart hands over, within the budget. A
//! resumed conversation already holds what git-rune told it since its last compaction
//! (Claude Code replays the hook's earlier answers with the transcript): it gets only the items
//! of the briefing it does not hold — new ones, and those that replace one it holds, such as a
//! newer checkpoint — or, when memory did not change, one line saying so. The session's
//! counters remember what the context holds ([`Briefed`]); the answers of one context stay
//! within the budget together. Pure: briefings in, text out.

use xxhash_rust::xxh3::xxh3_64;

use crate::context::session::Briefed;
use crate::memory::load::{Briefing, FRAME_CLOSE, FRAME_OPEN};
use crate::model::GitState;

/// One item of a briefing, as it was shown (quoted, marked).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    /// The section's key (`checkpoint`, `decisions`, …) and heading.
    pub key: &'static str,
    pub heading: String,
    pub text: String,
}

impl Item {
    /// What the counters keep of an item: a hash of its section and text.
    pub fn hash(&self) -> u64 {
        let mut bytes = Vec::with_capacity(self.key.len() + 1 + self.text.len());
        bytes.extend_from_slice(self.key.as_bytes());
        bytes.push(0);
        bytes.extend_from_slice(self.text.as_bytes());
        xxh3_64(&bytes)
    }
}

/// What SessionStart takes of a briefing.
#[derive(Debug, Clone, Default)]
pub struct Brief {
    /// The whole text (framed).
    pub text: String,
    pub items: Vec<Item>,
    /// Decisions memory holds (a new session's report counts the ones it adds).
    pub decisions: usize,
    /// The save the code drifted from (branch, HEAD moved since), when it did.
    pub baseline: Option<GitState>,
}

impl Brief {
    pub fn of(b: &Briefing<'_>) -> Brief {
        let items = b
            .sections
            .iter()
            .flat_map(|s| {
                s.items.iter().map(|(text, _)| Item {
                    key: s.key,
                    heading: s.heading.clone(),
                    text: text.clone(),
                })
            })
            .collect();
        let d = b.drift;
        let moved = d.branch_changed
            || d.ahead.unwrap_or(0) > 0
            || d.behind.unwrap_or(0) > 0
            || d.saved_commit_missing;
        Brief {
            text: b.text(),
            items,
            decisions: b.totals.decisions,
            baseline: (d.saved && moved).then(|| GitState {
                branch: d.saved_branch.clone(),
                head: d.saved_head.clone(),
                upstream: None,
                dirty: Vec::new(),
            }),
        }
    }

    /// What the counters keep of a context that holds this whole briefing.
    pub fn held(&self, at: &str, chars: usize) -> Briefed {
        Briefed {
            at: at.to_owned(),
            items: self.items.iter().map(Item::hash).collect(),
            checkpoint: self.checkpoint(),
            chars,
            mode: 0,
            caveman: false,
        }
    }

    /// The hash of the checkpoint item (0: no checkpoint is open).
    pub fn checkpoint(&self) -> u64 {
        self.items
            .iter()
            .find(|it| it.key == "checkpoint")
            .map_or(0, Item::hash)
    }
}

/// A hash of the mode rules handed over (never 0 for a text).
pub fn mode_hash(text: &str) -> u64 {
    xxh3_64(text.as_bytes()).max(1)
}

/// What a resumed context is told: the items of `now` it does not hold, in the briefing's
/// order, as far as `room` characters allow, and what it holds that is no longer current; the
/// hashes of the items told. `None` when it holds every item and nothing it holds went
/// stale.
pub fn delta(now: &Brief, held: &Briefed, room: usize) -> Option<(String, Vec<u64>)> {
    let current: Vec<u64> = now.items.iter().map(Item::hash).collect();
    let new: Vec<(usize, &Item)> = now
        .items
        .iter()
        .enumerate()
        .filter(|(i, _)| !held.items.contains(&current[*i]))
        .collect();
    let gone = held.items.iter().filter(|h| !current.contains(h)).count();
    if new.is_empty() && gone == 0 {
        return None;
    }
    let checkpoint_gone = held.checkpoint != 0 && !current.contains(&held.checkpoint);
    let open_now = now.items.iter().any(|it| it.key == "checkpoint");
    let mut gone_line = String::new();
    if gone > 0 {
        gone_line = format!(
            "({gone} item{} shown earlier in this conversation {} no longer current{})\n",
            if gone == 1 { "" } else { "s" },
            if gone == 1 { "is" } else { "are" },
            if checkpoint_gone && !open_now {
                "; the checkpoint shown earlier is resolved: no checkpoint is open now"
            } else {
                ""
            }
        );
    }
    let mut out = String::from(FRAME_OPEN);
    let closing_room = FRAME_CLOSE.len() + gone_line.len() + 120;
    let mut told = Vec::new();
    let mut left_out = 0;
    let mut heading: Option<&str> = None;
    for (i, it) in &new {
        let mut piece = String::new();
        if heading != Some(it.heading.as_str()) {
            piece.push('\n');
            piece.push_str(&it.heading);
            if it.key == "checkpoint" && checkpoint_gone {
                piece.push_str(" — replaces the checkpoint shown earlier in this conversation");
            }
            piece.push('\n');
        }
        piece.push_str(&it.text);
        piece.push('\n');
        if out.len() + piece.len() + closing_room > room {
            left_out += 1;
            continue;
        }
        heading = Some(it.heading.as_str());
        out.push_str(&piece);
        told.push(current[*i]);
    }
    out.push('\n');
    if left_out > 0 {
        out.push_str(&format!(
            "({left_out} more changed item{} left out to fit the budget; `git rune load` shows them)\n",
            if left_out == 1 { "" } else { "s" }
        ));
    }
    out.push_str(&gone_line);
    out.push_str(FRAME_CLOSE);
    Some((out, told))
}

/// Cuts `text` to at most `max` characters on a line boundary, saying where the rest is.
pub fn capped(text: &str, max: usize, rest: &str) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let note = format!("…(cut to fit git-rune's budget; {rest})\n");
    let keep = max.saturating_sub(note.len());
    let mut end = 0;
    for (i, _) in text.match_indices('\n') {
        if i + 1 > keep {
            break;
        }
        end = i + 1;
    }
    format!("{}{note}", &text[..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(key: &'static str, text: &str) -> Item {
        Item {
            key,
            heading: format!("## {key}"),
            text: text.into(),
        }
    }

    fn brief(items: Vec<Item>) -> Brief {
        Brief {
            items,
            ..Brief::default()
        }
    }

    #[test]
    fn a_context_holding_everything_is_told_nothing() {
        let b = brief(vec![item("decisions", "- a"), item("decisions", "- b")]);
        let held = b.held("t", 100);
        assert!(delta(&b, &held, 8000).is_none());
    }

    #[test]
    fn only_new_items_are_told_and_a_replaced_checkpoint_says_so() {
        let before = brief(vec![
            item("checkpoint", "Since x: old"),
            item("decisions", "- a"),
        ]);
        let held = before.held("t", 100);
        let after = brief(vec![
            item("checkpoint", "Since y: new"),
            item("decisions", "- b"),
            item("decisions", "- a"),
        ]);
        let (text, told) = delta(&after, &held, 8000).unwrap();
        assert!(text.contains("Since y: new"), "{text}");
        assert!(
            text.contains("replaces the checkpoint shown earlier"),
            "{text}"
        );
        assert!(text.contains("- b"), "{text}");
        assert!(!text.contains("- a\n"), "{text}");
        assert!(text.contains("1 item shown earlier in this conversation is no longer current"));
        assert_eq!(told.len(), 2);
        // A resolved checkpoint is said to be gone.
        let resolved = brief(vec![item("decisions", "- a")]);
        let (text, _) = delta(&resolved, &held, 8000).unwrap();
        assert!(text.contains("no checkpoint is open now"), "{text}");
    }

    #[test]
    fn the_delta_stays_within_its_room() {
        let held = brief(vec![]).held("t", 0);
        let many = brief(
            (0..100)
                .map(|i| {
                    item(
                        "learnings",
                        &format!("- learning number {i} with some text"),
                    )
                })
                .collect(),
        );
        let (text, told) = delta(&many, &held, 1000).unwrap();
        assert!(text.len() <= 1000, "{}", text.len());
        assert!(told.len() < 100);
        assert!(text.contains("more changed items left out"));
    }

    #[test]
    fn capping_keeps_whole_lines() {
        let t: String = (0..10).map(|i| format!("line number {i}\n")).collect();
        assert_eq!(capped(&t, 200, "x"), t);
        let c = capped(&t, 80, "see x");
        assert!(c.len() <= 80, "{c}");
        assert!(
            c.starts_with("line number 0\nline number 1\n") && c.ends_with("see x)\n"),
            "{c}"
        );
    }
}
