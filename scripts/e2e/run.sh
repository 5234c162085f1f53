#!/usr/bin/env bash
# Runs the end-to-end suite with the real clients: installs them first when they are not
# (scripts/e2e/install.sh), then `cargo test --test e2e` with RUNE_E2E=require, so a client
# that is missing fails the run instead of skipping. Extra arguments go to the test binary
# (a test name filter, --nocapture).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
dest="${RUNE_E2E_CLIENTS:-$root/target/e2e/clients}"
if [ ! -x "$dest/node_modules/.bin/claude" ] || [ ! -d "$dest/python/mcp" ] \
  || [ ! -x "$dest/node_modules/.bin/mcp-inspector" ]; then
  "$root/scripts/e2e/install.sh"
fi
cd "$root"
RUNE_E2E=require RUNE_E2E_CLIENTS="$dest" cargo test --locked --test e2e -- "$@"
