#!/usr/bin/env bash
# Installs the real agent clients the end-to-end tests drive (tests/e2e/ and
# tests/it/agents_e2e/), into a project-local directory (target/e2e/clients, or
# $RUNE_E2E_CLIENTS): Claude Code, Codex CLI, Gemini CLI, GitHub Copilot CLI, OpenCode and the
# MCP Inspector from the npm registry (versions pinned in
# scripts/e2e/package.json and its lock), and the Python MCP SDK from PyPI. Nothing is
# installed globally; nothing here is committed. Needs node >= 18, npm and python3 >= 3.10.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
dest="${RUNE_E2E_CLIENTS:-$root/target/e2e/clients}"
mcp_version="${RUNE_E2E_MCP_VERSION:-1.27.0}"

for tool in node npm python3; do
  command -v "$tool" >/dev/null || { echo "e2e install: $tool is required" >&2; exit 1; }
done
mkdir -p "$dest"
cp "$here/package.json" "$dest/package.json"
if [ -f "$here/package-lock.json" ]; then
  cp "$here/package-lock.json" "$dest/package-lock.json"
  # npm 11's `npm ci` refuses a lock that records only this platform's build of a package
  # with per-platform optional packages (OpenCode: "Missing: opencode-darwin-arm64@ from lock
  # file"), and `npm install` writes such locks. `npm install` against the same lock installs
  # the pinned versions; the lock in the repository stays as it is.
  if ! npm ci --prefix "$dest" --no-audit --no-fund --loglevel=error 2>"$dest/npm-ci.log"; then
    echo "e2e install: npm ci refused the lock ($(grep -m1 -o 'Missing: [^ ]*' "$dest/npm-ci.log" || echo 'see npm-ci.log')); installing with npm install against it" >&2
    npm install --prefix "$dest" --no-audit --no-fund --loglevel=error
  fi
else
  npm install --prefix "$dest" --no-audit --no-fund --loglevel=error
  cp "$dest/package-lock.json" "$here/package-lock.json"
fi
# Claude Code's package puts its native binary in place in a postinstall step; run it if
# npm skipped install scripts.
claude="$dest/node_modules/@anthropic-ai/claude-code"
if [ -f "$claude/install.cjs" ] && ! "$dest/node_modules/.bin/claude" --version >/dev/null 2>&1; then
  (cd "$claude" && node install.cjs)
fi
python3 -m pip install --quiet --disable-pip-version-check --no-warn-conflicts --root-user-action=ignore --upgrade \
  --target "$dest/python" "mcp==$mcp_version"
echo "e2e clients installed in $dest:"
"$dest/node_modules/.bin/claude" --version
"$dest/node_modules/.bin/codex" --version
"$dest/node_modules/.bin/gemini" --version
"$dest/node_modules/.bin/copilot" --version
"$dest/node_modules/.bin/opencode" --version
PYTHONPATH="$dest/python" python3 -c 'import mcp, importlib.metadata as m; print("python mcp", m.version("mcp"))'
