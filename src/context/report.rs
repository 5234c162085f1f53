//! The seed's Context Health report for one session: tool calls, status, recommendation,
//! the large-file multiplier, and the critical context a compaction must keep (the task,
//! decisions saved this session, files touched, blockers). Pure: counters and folded memory
//! in, the report out.

use serde::Serialize;

use super::session::Session;
use crate::model::kinds::Progress;
use crate::model::{Body, State};
use crate::text::one_line;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Health {
    /// `None` when no session has been counted in this clone.
    pub session: Option<String>,
    pub tool_calls: u32,
    /// Tool calls that failed (Claude Code's PostToolUseFailure), across compactions; each is
    /// counted in `tool_calls` too.
    pub failed_calls: u32,
    pub status: &'static str,
    pub recommendation: &'static str,
    /// The thresholds in force (YELLOW, ORANGE, RED start).
    pub thresholds: [u32; 3],
    pub large_reads: u32,
    pub multiplier: bool,
    pub density: &'static str,
    pub task: Option<String>,
    pub decisions_this_session: usize,
    pub files_touched: Vec<String>,
    pub blockers: Vec<String>,
}

/// The report of `session` (or of no session yet) over `state`; `density` is the output
/// density in force.
pub fn health(session: Option<&Session>, state: &State, density: &'static str) -> Health {
    let fallback = Session::default();
    let s = session.unwrap_or(&fallback);
    let level = s.level();
    let (y, o, r) = s.thresholds().effective(s.large_reads);
    // Record text through the gate: a withheld record is its placeholder, and each line of a
    // SUSPICIOUS one is marked (the lines shown here are not always the field a marked copy
    // carries the mark on).
    use crate::integrity::gate::{text_gate, Gate};
    let progress = state.progress.last();
    let gated = progress.map(|r| (r, text_gate(r)));
    let mark = match &gated {
        Some((_, Gate::Suspicious(rules))) => crate::integrity::gate::mark(rules),
        _ => String::new(),
    };
    let progress_shown = gated.filter(|(_, g)| *g != Gate::Withheld).map(|(r, _)| r);
    let task = state
        .open_checkpoint()
        .map(|r| one_line(&crate::integrity::gate::shown_title(r)))
        .or_else(|| match progress_shown.map(|r| &r.body) {
            Some(Body::Progress(Progress { in_progress, .. })) => in_progress
                .first()
                .map(|t| format!("{mark}{}", one_line(t))),
            _ => progress
                .filter(|_| progress_shown.is_none())
                .map(crate::integrity::gate::placeholder),
        });
    let blockers = match progress_shown.map(|r| &r.body) {
        Some(Body::Progress(Progress { blocked, .. })) => blocked
            .iter()
            .map(|b| format!("{mark}{}", one_line(b)))
            .collect(),
        _ => Vec::new(),
    };
    Health {
        session: session.map(|s| s.id.clone()),
        tool_calls: s.tool_calls,
        failed_calls: s.failures,
        status: level.label(),
        recommendation: level.recommendation(),
        thresholds: [y, o, r],
        large_reads: s.large_reads,
        multiplier: session.is_some_and(Session::multiplied),
        density,
        task,
        decisions_this_session: state.decisions.len().saturating_sub(s.decisions_at_start),
        files_touched: s.files.clone(),
        blockers,
    }
}

impl Health {
    /// The report as the seed writes it.
    pub fn text(&self) -> String {
        let mut out = String::from("## Context Health\n");
        out.push_str(&format!("- **Tool Calls**: {}\n", self.tool_calls));
        out.push_str(&format!("- **Status**: {}\n", self.status));
        out.push_str(&format!("- **Recommendation**: {}\n", self.recommendation));
        let [y, o, r] = self.thresholds;
        out.push_str(&format!(
            "- **Large-file multiplier**: {} ({} reads over the line limit; YELLOW at {y}, ORANGE at {o}, RED above {r})\n",
            if self.multiplier { "on" } else { "off" },
            self.large_reads
        ));
        out.push_str(&format!("- **Output density**: {}\n", self.density));
        if self.failed_calls > 0 {
            out.push_str(&format!(
                "- **Failed calls**: {} this session (counted in the tool calls)\n",
                self.failed_calls
            ));
        }
        out.push_str("- **Note**: Tool count is a directional proxy. Check CLI status bar for actual context usage.\n");
        if self.session.is_none() {
            out.push_str("- **Session**: none counted in this clone yet (wire Claude Code with `git rune agent install claude`)\n");
        }
        out.push_str("\n### Critical Context (preserved on compaction)\n");
        out.push_str(&format!(
            "- Task: {}\n",
            self.task.as_deref().unwrap_or("(none recorded)")
        ));
        out.push_str(&format!(
            "- Decisions: {} saved this session\n",
            self.decisions_this_session
        ));
        let files = if self.files_touched.is_empty() {
            "(none)".to_owned()
        } else {
            self.files_touched.join(", ")
        };
        out.push_str(&format!("- Files touched: {files}\n"));
        let blockers = if self.blockers.is_empty() {
            "(none)".to_owned()
        } else {
            self.blockers.join("; ")
        };
        out.push_str(&format!("- Blockers: {blockers}\n"));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_with_large_reads_reports_the_shrunk_thresholds() {
        let mut s = Session::new("s", "2026-01-01T00:00:00Z");
        for _ in 0..3 {
            s.count("Read", Some(600), None);
        }
        for _ in 0..40 {
            s.count("Edit", None, Some("src/a.rs"));
        }
        let h = health(Some(&s), &State::default(), "normal");
        assert_eq!((h.tool_calls, h.status, h.multiplier), (43, "YELLOW", true));
        assert_eq!(h.thresholds, [40, 65, 100]);
        insta::assert_snapshot!(h.text(), @r"
        ## Context Health
        - **Tool Calls**: 43
        - **Status**: YELLOW
        - **Recommendation**: load-essential-only
        - **Large-file multiplier**: on (3 reads over the line limit; YELLOW at 40, ORANGE at 65, RED above 100)
        - **Output density**: normal
        - **Note**: Tool count is a directional proxy. Check CLI status bar for actual context usage.

        ### Critical Context (preserved on compaction)
        - Task: (none recorded)
        - Decisions: 0 saved this session
        - Files touched: src/a.rs
        - Blockers: (none)
        ");
    }
}
