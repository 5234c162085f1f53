//! Which agent called, and the per-agent routes around the one event model (`event`): its
//! events mapped onto the use cases by that agent's module, and the answer written back in
//! that agent's output shape.

use serde_json::json;

use super::answer::Answer;
use super::event::Mapped;
use super::{codex, copilot, cursor, gemini, opencode};

/// An agent git-rune answers hooks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Agent {
    Claude,
    Codex,
    Gemini,
    Copilot,
    Cursor,
    OpenCode,
}

impl Agent {
    pub const ALL: [Agent; 6] = [
        Agent::Claude,
        Agent::Codex,
        Agent::Gemini,
        Agent::Copilot,
        Agent::Cursor,
        Agent::OpenCode,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Agent::Claude => "claude",
            Agent::Codex => "codex",
            Agent::Gemini => "gemini",
            Agent::Copilot => "copilot",
            Agent::Cursor => "cursor",
            Agent::OpenCode => "opencode",
        }
    }

    pub fn parse(name: &str) -> Option<Agent> {
        Agent::ALL.into_iter().find(|a| a.as_str() == name)
    }
}

/// Maps one hook call of `agent` (its event name and stdin) onto the Claude Code path.
pub fn map(agent: Agent, event: &str, input: &[u8]) -> Mapped {
    match agent {
        // Claude Code's events go to the hook as they are (an unknown one is logged there).
        Agent::Claude => Mapped::Run {
            event: claude_name(event),
            input: input.to_vec(),
        },
        Agent::Codex => codex::map(event, input),
        Agent::Gemini => gemini::map(event, input),
        Agent::Copilot => copilot::map(event, input),
        Agent::Cursor => cursor::map(event, input),
        Agent::OpenCode => opencode::map(event, input),
    }
}

/// Claude Code's name for one of the events git-rune answers (`Stop` for any other, which
/// the hook logs as unknown).
fn claude_name(event: &str) -> &'static str {
    super::hook::EVENTS
        .iter()
        .copied()
        .find(|e| *e == event)
        .unwrap_or("Stop")
}

/// The answer in the calling agent's output shape (empty for silence).
pub fn render(agent: Agent, agent_event: &str, claude_event: &str, answer: &Answer) -> String {
    let text = match answer {
        Answer::Silent => return String::new(),
        Answer::Context(t) | Answer::Block(t) => t,
    };
    let v = match agent {
        Agent::Claude | Agent::Codex => return answer.to_stdout(claude_event),
        // Gemini CLI: SessionStart context is prepended to the prompt; AfterTool context is
        // appended to the tool's result. A block would replace the tool's result, so the RED
        // advice goes as context too.
        Agent::Gemini => json!({
            "hookSpecificOutput": { "hookEventName": agent_event, "additionalContext": text }
        }),
        // Copilot CLI reads only a top-level `additionalContext`.
        Agent::Copilot => json!({ "additionalContext": text }),
        Agent::Cursor => json!({ "additional_context": text }),
        // git-rune's own OpenCode plugin reads this shape.
        Agent::OpenCode => json!({ "additionalContext": text }),
    };
    v.to_string() + "\n"
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    #[test]
    fn answers_take_each_agents_shape() {
        let a = Answer::Context("brief".into());
        let v = |agent, ev| -> Value {
            serde_json::from_str(&render(agent, ev, "SessionStart", &a)).unwrap()
        };
        assert_eq!(
            v(Agent::Codex, "SessionStart")["hookSpecificOutput"]["additionalContext"],
            "brief"
        );
        assert_eq!(
            v(Agent::Copilot, "sessionStart")["additionalContext"],
            "brief"
        );
        assert!(v(Agent::Copilot, "sessionStart")
            .get("hookSpecificOutput")
            .is_none());
        assert_eq!(
            v(Agent::Cursor, "sessionStart")["additional_context"],
            "brief"
        );
        assert_eq!(
            v(Agent::Gemini, "AfterTool")["hookSpecificOutput"]["hookEventName"],
            "AfterTool"
        );
        assert_eq!(render(Agent::Gemini, "x", "Stop", &Answer::Silent), "");
    }
}
