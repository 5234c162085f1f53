#!/usr/bin/env bash
# Installs the real agent clients the end-to-end tests drive (tests/it/agents_e2e/) into
# target/e2e-clients, from the npm registry. Without them those tests pass with a SKIPPED
# notice. Nothing here is committed (target/ is ignored).
set -euo pipefail
cd "$(dirname "$0")/.."
dir=target/e2e-clients
mkdir -p "$dir"
cd "$dir"
[ -f package.json ] || npm init -y >/dev/null
npm install --no-audit --no-fund \
  @openai/codex @google/gemini-cli @github/copilot opencode-ai @anthropic-ai/claude-code
