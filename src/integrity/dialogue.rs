//! Forged dialogue: chat-turn markers at the start of a line, and tool-call shapes (JSON
//! objects naming a tool and its arguments).

use super::*;

/// Role names that open a turn of a chat transcript when they start a line with a colon.
#[derive(Clone, Copy, PartialEq)]
enum Role {
    /// `Human:`, `Assistant:`: the turn names of chat formats, not of prose.
    Strong,
    /// `User:`: also a label ("User: admin"), so a turn only when a reply marker follows.
    Asker,
    /// `AI:`, `Bot:`, `GPT:`, `Claude:`: also labels ("AI: Bob fixes CI" in minutes).
    Replier,
}

fn role(word: &[u8], heading: bool) -> Option<Role> {
    let is = |names: &[&str]| {
        names
            .iter()
            .any(|n| word.eq_ignore_ascii_case(n.as_bytes()))
    };
    if is(&["human", "assistant"]) {
        Some(Role::Strong)
    } else if heading && is(&["instruction", "response", "input", "system", "user"]) {
        // Alpaca and similar prompt formats: `### Instruction:`, `### Response:`.
        Some(Role::Strong)
    } else if is(&["user"]) {
        Some(Role::Asker)
    } else if is(&["ai", "bot", "chatgpt", "gpt", "claude", "gemini", "llm"]) {
        Some(Role::Replier)
    } else {
        None
    }
}

/// `chat-turn-marker` (TAINTED): a line that opens with a chat role and a colon (`Human:`,
/// `Assistant:`, `**Assistant:**`, `> Human:`) or a prompt-format heading (`### Instruction:`,
/// `### Response:`, `## System:`) forges a turn of the conversation: the model reads what
/// follows as said by the user or by itself. `User:` alone is a label in prose ("User: admin",
/// a user story), and `AI:`, `Bot:` are labels too ("AI: Bob fixes CI" in meeting minutes):
/// they count only as a transcript, when a `User:` line and a reply line (`AI:`, `Bot:`,
/// `GPT:`, `ChatGPT:`, `Claude:`, `Gemini:`, `LLM:`) are both present. `System:` and `Model:`
/// without a heading are left alone ("System: Ubuntu 22.04", "Model: gpt-4o"). List items (`- Assistant: grey bubble`) are
/// not turns: a UI spec lists roles that way. Angle-bracket turn tokens (`<start_of_turn>`,
/// `<|im_start|>`) and `[INST]` are `forged-frame-marker`.
pub(super) fn scan_turns(text: &str, out: &mut Sink) {
    let b = text.as_bytes();
    // The first `User:` line and the first reply line, as spans.
    let mut asker: Option<(usize, usize)> = None;
    let mut replier: Option<(usize, usize)> = None;
    let mut at = 0;
    while at < b.len() {
        let end = at
            + b[at..]
                .iter()
                .position(|&c| c == b'\n')
                .unwrap_or(b.len() - at);
        if let Some((s, e, r)) = turn_marker(b, at, end) {
            match r {
                Role::Strong => out.hit("chat-turn-marker", s, e),
                Role::Asker => asker = asker.or(Some((s, e))),
                Role::Replier => replier = replier.or(Some((s, e))),
            }
        }
        at = end + 1;
    }
    if let (Some(a), Some(r)) = (asker, replier) {
        let (s, e) = a.max(r);
        out.hit("chat-turn-marker", s, e);
    }
}

/// The role marker opening the line `b[at..end]`, if any: its span and role.
fn turn_marker(b: &[u8], at: usize, end: usize) -> Option<(usize, usize, Role)> {
    let mut i = skip_blanks(b, at);
    while i < end && b[i] == b'>' {
        i = skip_blanks(b, i + 1);
    }
    let hashes = b[i..end].iter().take_while(|&&c| c == b'#').count();
    if hashes > 6 {
        return None;
    }
    i = skip_blanks(b, i + hashes);
    let start = i;
    let bold = b[i..end].starts_with(b"**") || b[i..end].starts_with(b"__");
    i += if bold { 2 } else { 0 };
    let ws = i;
    i = run_while(b, ws, end.min(ws + 13), |c| c.is_ascii_alphabetic());
    let r = role(&b[ws..i], hashes > 0)?;
    if bold && (b[i..end].starts_with(b"**") || b[i..end].starts_with(b"__")) {
        i += 2;
    }
    i = skip_blanks(b, i);
    (b.get(i) == Some(&b':') && i < end).then_some((start, i + 1, r))
}

// ---------------------------------------------------------------------------------------------
// Tool calls.

const TOOL_NAME: u16 = 1; // "tool", "tool_name", "function" (a string), "recipient_name", "action"
const NAME: u16 = 2; // "name"
const ARGS: u16 = 4; // "arguments", "tool_input", "action_input"
const ARGS_WEAK: u16 = 8; // "args", "parameters", "params", "input"
const NOT_A_CALL: u16 = 16; // keys of schemas, launch configs and test fixtures
const TOOL_TYPE: u16 = 32; // "type": "tool_use" | "tool_call" | "function_call"
const CALLS: u16 = 64; // "tool_calls", "function_call", "tool_use"

fn key_flag(key: &[u8], value: &[u8]) -> u16 {
    let k = key.to_ascii_lowercase();
    let string_value = value.first().is_some_and(|&c| c == b'"' || c == b'\'');
    match k.as_slice() {
        b"tool" | b"tool_name" | b"toolname" | b"recipient_name" | b"action" | b"function"
            if string_value =>
        {
            TOOL_NAME
        }
        b"name" => NAME,
        b"arguments" | b"tool_input" | b"action_input" => ARGS,
        b"args" | b"parameters" | b"params" | b"input" => ARGS_WEAK,
        b"tool_calls" | b"function_call" | b"tool_use" => CALLS,
        b"type" => {
            let v = value.get(1..).unwrap_or_default();
            let v = &v[..v
                .iter()
                .position(|&c| c == b'"' || c == b'\'')
                .unwrap_or(v.len())];
            let v = v.to_ascii_lowercase();
            if matches!(v.as_slice(), b"tool_use" | b"tool_call" | b"function_call") {
                TOOL_TYPE
            } else {
                NOT_A_CALL
            }
        }
        b"description" | b"properties" | b"request" | b"program" | b"command" | b"required"
        | b"schema" | b"$schema" | b"input_schema" | b"items" | b"enum" | b"default"
        | b"version" | b"label" | b"cwd" | b"env" | b"expected" | b"expect" | b"output"
        | b"want" | b"result" | b"results" => NOT_A_CALL,
        _ => 0,
    }
}

fn is_call(f: u16) -> bool {
    let named = f & (TOOL_NAME | NAME) != 0;
    f & CALLS != 0
        || (f & TOOL_TYPE != 0 && named)
        || (named && f & ARGS != 0)
        || (f & TOOL_NAME != 0 && f & ARGS_WEAK != 0)
        || (f & NAME != 0 && f & ARGS_WEAK != 0 && f & NOT_A_CALL == 0)
}

/// `tool-call-shape` (TAINTED): a JSON (or Python dict) object that names a tool and hands it
/// arguments is what a model emits to act, and what it may take for its own earlier action when
/// it reads one back: `{"tool": "bash", "args": {…}}`, `{"name": "run_shell", "arguments": …}`,
/// `{"type": "tool_use", "name": …, "input": …}`, `{"action": "terminal", "action_input": …}`,
/// and any `"tool_calls"` or `"function_call"` key. Tool definitions (`"description"`,
/// `"properties"`, `"input_schema"`), launch configurations (`"type"`, `"request"`) and test
/// fixtures (`"expected"`, `"output"`) with a `name` and `args` or `input` are not calls. Tags
/// such as `<tool_call>` and `<function_calls>` are `forged-frame-marker`. Keys must be quoted;
/// one forward pass keeps a stack of open objects (an unclosed one is judged at the end).
pub(super) fn scan_tool_calls(text: &str, out: &mut Sink) {
    let b = text.as_bytes();
    if !b.contains(&b'{') {
        return;
    }
    let mut stack: Vec<(usize, u16)> = Vec::new();
    let mut deep = 0usize; // objects open beyond the tracked depth
    let mut prev = 0u8; // the last byte that is not a blank
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        match c {
            b'{' => {
                if stack.len() < 32 {
                    stack.push((i, 0));
                } else {
                    deep += 1;
                }
            }
            b'}' if deep > 0 => deep -= 1,
            b'}' => {
                if let Some((at, f)) = stack.pop() {
                    if is_call(f) {
                        out.hit("tool-call-shape", at, i + 1);
                    }
                }
            }
            b'"' | b'\'' if !stack.is_empty() && (c == b'"' || b"{,:[".contains(&prev)) => {
                let s = i + 1;
                let mut e = s;
                while e < b.len() && b[e] != c && b[e] != b'\n' {
                    e += if b[e] == b'\\' { 2 } else { 1 };
                }
                let e = e.min(b.len());
                let colon = skip_blanks(b, (e + 1).min(b.len()));
                if b.get(e) == Some(&c) && b.get(colon) == Some(&b':') && deep == 0 {
                    let v = skip_blanks(b, colon + 1);
                    let value = &b[v..b.len().min(v + 24)];
                    // `{"name": ..., "arguments": ...}` describes the shape in prose.
                    let elided = [&b"..."[..], b"\"...\"", "…".as_bytes(), b"<"]
                        .iter()
                        .any(|x| value.starts_with(x));
                    let flag = if elided { 0 } else { key_flag(&b[s..e], value) };
                    if let Some(top) = stack.last_mut() {
                        top.1 |= flag;
                    }
                }
                prev = c;
                i = if b.get(e) == Some(&c) { e + 1 } else { e };
                continue;
            }
            _ => {}
        }
        if !c.is_ascii_whitespace() {
            prev = c;
        }
        i += 1;
    }
    for (at, f) in stack {
        if is_call(f) {
            out.hit("tool-call-shape", at, b.len().min(at + 40));
        }
    }
}
