//! The context budget: what a session costs before any work begins — MCP tool schemas (about
//! 500 tokens each), agent descriptions (about 300 each) and CLAUDE.md (its characters / 4),
//! by the seed's formula `(tools × 500) + (agents × 300) + CLAUDE.md tokens`, against its
//! rules: fewer than 10 MCP servers, fewer than 80 MCP tools, CLAUDE.md under 150 lines.

use std::path::Path;

/// Tokens per MCP tool schema and per agent description, as the seed estimates them.
pub const TOKENS_PER_TOOL: u64 = 500;
pub const TOKENS_PER_AGENT: u64 = 300;
/// Tools assumed for a server whose tool count nothing states.
pub const ASSUMED_TOOLS: u64 = 10;
/// The seed's limits.
pub const MAX_SERVERS: usize = 10;
pub const MAX_TOOLS: u64 = 80;
pub const MAX_CLAUDE_MD_LINES: usize = 150;
/// The window the percentage is of (Claude's 200k context).
pub const WINDOW: u64 = 200_000;

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Server {
    pub name: String,
    /// Where it is configured.
    pub source: String,
    pub tools: u64,
    /// False when the count is the assumed default.
    pub tools_known: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Budget {
    pub servers: Vec<Server>,
    pub tools: u64,
    pub agents: usize,
    pub claude_md_lines: usize,
    pub claude_md_tokens: u64,
    pub baseline_tokens: u64,
    pub percent_of_window: u64,
    pub recommendations: Vec<String>,
    /// Files that could not be read as JSON (left out of the count), with why.
    pub unreadable: Vec<String>,
}

/// Reads the MCP servers of `.mcp.json` and the settings files' `mcpServers` under `root`,
/// the agents in `.claude/agents/*.md`, and `CLAUDE.md` (root and `.claude/`). `tool_counts`
/// gives known tool counts per server (git config `rune.context.mcpTools.<server>`).
pub fn budget(root: &Path, tool_counts: impl Fn(&str) -> Option<u64>) -> Budget {
    let mut servers: Vec<Server> = Vec::new();
    let mut unreadable = Vec::new();
    for source in [
        ".mcp.json",
        ".claude/settings.json",
        ".claude/settings.local.json",
    ] {
        let Ok(text) = std::fs::read_to_string(root.join(source)) else {
            continue;
        };
        let value = match serde_json::from_str::<serde_json::Value>(&text) {
            Ok(v) => v,
            Err(e) => {
                unreadable.push(format!(
                    "{source}: not valid JSON ({e}); its MCP servers are not counted"
                ));
                continue;
            }
        };
        let Some(map) = value.get("mcpServers").and_then(|v| v.as_object()) else {
            continue;
        };
        for (name, entry) in map {
            if servers.iter().any(|s| &s.name == name) {
                continue;
            }
            let stated = entry
                .get("tools")
                .and_then(|t| t.as_array())
                .map(|a| a.len() as u64)
                .or_else(|| entry.get("toolCount").and_then(|t| t.as_u64()));
            let known = tool_counts(name).or(stated);
            servers.push(Server {
                name: name.clone(),
                source: source.to_owned(),
                tools: known.unwrap_or(ASSUMED_TOOLS),
                tools_known: known.is_some(),
            });
        }
    }
    let agents = std::fs::read_dir(root.join(".claude/agents"))
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.path().extension().and_then(|x| x.to_str()) == Some("md"))
        .count();
    let (mut lines, mut chars) = (0usize, 0u64);
    for f in ["CLAUDE.md", ".claude/CLAUDE.md"] {
        if let Ok(text) = std::fs::read_to_string(root.join(f)) {
            lines += text.lines().count();
            chars += text.chars().count() as u64;
        }
    }
    let tools: u64 = servers.iter().map(|s| s.tools).sum();
    let claude_md_tokens = chars.div_ceil(4);
    let baseline_tokens =
        tools * TOKENS_PER_TOOL + agents as u64 * TOKENS_PER_AGENT + claude_md_tokens;
    let mut recommendations = Vec::new();
    if servers.len() >= MAX_SERVERS {
        recommendations.push(format!(
            "{} MCP servers: keep fewer than {MAX_SERVERS}; disable the ones this project does not use",
            servers.len()
        ));
    }
    if tools >= MAX_TOOLS {
        let mut by_size: Vec<&Server> = servers.iter().collect();
        by_size.sort_by(|a, b| b.tools.cmp(&a.tools).then_with(|| a.name.cmp(&b.name)));
        let top = by_size[0];
        recommendations.push(format!(
            "{tools} MCP tools: keep fewer than {MAX_TOOLS}; disabling {} would save ~{}k tokens",
            top.name,
            (top.tools * TOKENS_PER_TOOL).div_ceil(1000)
        ));
    }
    if lines >= MAX_CLAUDE_MD_LINES {
        recommendations.push(format!(
            "CLAUDE.md has {lines} lines: keep it under {MAX_CLAUDE_MD_LINES}, as an index; move details to .rune/ files"
        ));
    }
    if agents > 0 {
        recommendations.push(
            "agent descriptions load with every Task(): name a specific subagent_type instead of loading them all"
                .into(),
        );
    }
    Budget {
        percent_of_window: baseline_tokens * 100 / WINDOW,
        servers,
        tools,
        agents,
        claude_md_lines: lines,
        claude_md_tokens,
        baseline_tokens,
        recommendations,
        unreadable,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    #[test]
    fn the_seed_formula_and_rules() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(
            root.join(".mcp.json"),
            r#"{"mcpServers":{"big":{"command":"x","toolCount":70},"small":{"command":"y"}}}"#,
        )
        .unwrap();
        std::fs::create_dir_all(root.join(".claude/agents")).unwrap();
        std::fs::write(root.join(".claude/agents/a.md"), "x").unwrap();
        std::fs::write(root.join("CLAUDE.md"), "line\n".repeat(160)).unwrap();
        let b = budget(root, |_| None);
        assert_eq!(b.tools, 80);
        assert_eq!(b.agents, 1);
        assert_eq!(b.claude_md_lines, 160);
        assert_eq!(b.baseline_tokens, 80 * 500 + 300 + 200);
        assert!(
            b.recommendations[0].contains("disabling big would save ~35k tokens"),
            "{:?}",
            b.recommendations
        );
        assert!(b
            .recommendations
            .iter()
            .any(|r| r.contains("CLAUDE.md has 160 lines")));
        let known = BTreeMap::from([("small".to_owned(), 2)]);
        assert_eq!(budget(root, |n| known.get(n).copied()).tools, 72);
    }
}
