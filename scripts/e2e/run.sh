#!/usr/bin/env bash
# Runs the end-to-end suite with the real clients: installs them first when they are not
# (scripts/e2e/install.sh), then `cargo test --test e2e` and the agent-client tests of
# `cargo test --test it` (agents_e2e) with RUNE_E2E=require, so a client that is missing fails
# the run instead of skipping. Extra arguments go to the e2e test binary (a test name filter,
# --nocapture).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
dest="${RUNE_E2E_CLIENTS:-$root/target/e2e/clients}"
if [ ! -x "$dest/node_modules/.bin/claude" ] || [ ! -d "$dest/python/mcp" ] \
  || [ ! -x "$dest/node_modules/.bin/mcp-inspector" ] || [ ! -x "$dest/node_modules/.bin/copilot" ] \
  || [ ! -x "$dest/node_modules/.bin/opencode" ]; then
  "$root/scripts/e2e/install.sh"
fi
cd "$root"
export RUNE_E2E=require RUNE_E2E_CLIENTS="$dest"
cargo test --locked --test e2e -- "$@"
cargo test --locked --test it agents_e2e
