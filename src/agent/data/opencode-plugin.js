// git-rune: project memory for OpenCode (written by `git rune agent install opencode`; removed by `git rune agent uninstall opencode`).
// OpenCode has no command hooks, so this plugin runs git-rune itself: the briefing goes into
// the system prompt of a session's first model request (and again after a compaction), every
// tool call is counted, a compaction saves the state first, and an idle session is recorded.
// Without git-rune on PATH it does nothing.

export const GitRune = async ({ directory, worktree }) => {
  const cwd = worktree || directory
  const run = async (event, payload) => {
    try {
      const proc = Bun.spawn(["git-rune", "agent", "hook", "--agent", "opencode", event], {
        cwd,
        stdin: new Blob([JSON.stringify({ cwd, ...payload })]),
        stdout: "pipe",
        stderr: "ignore",
      })
      const out = await new Response(proc.stdout).text()
      await proc.exited
      if (!out.trim()) return null
      return JSON.parse(out).additionalContext ?? null
    } catch {
      return null
    }
  }
  // The briefing per session, computed once: a compaction clears it so the next request
  // carries it again, with the summary saved before the compaction.
  const briefings = new Map()
  const sources = new Map()
  return {
    "experimental.chat.system.transform": async (input, output) => {
      const id = input.sessionID
      if (!id) return
      if (!briefings.has(id)) {
        const source = sources.get(id) ?? "startup"
        briefings.set(id, await run("SessionStart", { session_id: id, source }))
      }
      const text = briefings.get(id)
      if (text) output.system.push(text)
    },
    "tool.execute.after": async (input, output) => {
      const text = await run("PostToolUse", {
        session_id: input.sessionID,
        tool_name: input.tool,
        tool_input: input.args ?? {},
        tool_response: typeof output?.output === "string" ? output.output : "",
      })
      if (text && output && typeof output.output === "string") {
        output.output = `${output.output}\n\n${text}`
      }
    },
    "experimental.session.compacting": async (input) => {
      await run("PreCompact", { session_id: input.sessionID, trigger: "auto" })
      briefings.delete(input.sessionID)
      sources.set(input.sessionID, "compact")
    },
    event: async ({ event }) => {
      const id = event?.properties?.sessionID ?? event?.properties?.info?.id
      if (!id) return
      if (event.type === "session.idle") await run("Stop", { session_id: id })
      if (event.type === "session.deleted") await run("SessionEnd", { session_id: id, reason: "other" })
    },
  }
}
