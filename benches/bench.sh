#!/usr/bin/env bash
# Benchmarks git-rune against the git CLI doing the same job, in the same run.
#   bash benches/bench.sh            # release build, 30 runs per case, 100 commit rounds
#   RUNS=10 HOOK_RUNS=30 bash benches/bench.sh
#   BIG_RUNS=5 bash benches/bench.sh   # rounds in the 100,000-learning repository (default 10)
#   RUNE=/path/to/git-rune bash benches/bench.sh   # time that binary, build nothing
#   RUNE_B=/path/to/other/git-rune bash benches/bench.sh
#       # also time another build's hooks in the same rounds (before/after a change)
# Prints the median and p90 wall time per case in milliseconds (docs/performance.md).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
RUNS=${RUNS:-30}
# The hook cases differ by fractions of a millisecond on a machine whose speed drifts: they
# need more rounds than the rest to give the same answer twice.
HOOK_RUNS=${HOOK_RUNS:-100}
if [ -z "${RUNE:-}" ]; then
  cargo build --release --locked -q
  RUNE="$PWD/target/release/git-rune"
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Time the binary as `cargo install` leaves it, a copy: on the bench machine the linker's own
# output file starts about 0.07 ms slower than a copy of the same bytes.
mkdir "$tmp/bin" && cp "$RUNE" "$tmp/bin/git-rune" && RUNE="$tmp/bin/git-rune"
kinds="none naive rune"
if [ -n "${RUNE_B:-}" ]; then
  mkdir "$tmp/bin-b" && cp "$RUNE_B" "$tmp/bin-b/git-rune" && RUNE_B="$tmp/bin-b/git-rune"
  kinds="$kinds runeb"
fi
export GIT_CONFIG_GLOBAL="$tmp/gitconfig" GIT_CONFIG_NOSYSTEM=1 TZ=UTC LC_ALL=C
: >"$GIT_CONFIG_GLOBAL"
git config --global user.name bench
git config --global user.email bench@example.com

# pack: `git gc`, once the automatic maintenance a git-rune write started in the background
# is done (git refuses a second gc meanwhile).
pack() { local n; for n in $(seq 1 120); do git gc -q 2>/dev/null && return; sleep 0.5; done; git gc -q; }

# Wall-clock stamps without forking a `date` process around what is measured (bash 5).
[ -n "${EPOCHREALTIME:-}" ] || { echo "benches/bench.sh needs bash 5 (EPOCHREALTIME)" >&2; exit 1; }
# stats NAME FILE: median and p90 of the numbers (ns) in FILE, printed in ms.
stats() {
  sort -n "$2" | awk -v name="$1" '{a[NR]=$1} END {
    m=a[int((NR+1)/2)]; p=a[int(NR*0.9)>0?int(NR*0.9):1];
    printf "%-44s median %7.2f ms   p90 %7.2f ms   (n=%d)\n", name, m/1e6, p/1e6, NR }'
}

# switch_bench NAME ROUNDS: in the current repository (its view checked out), `git switch`
# between main and a branch with its own session state, with a `true` post-checkout hook and
# with git-rune's (the shim `git rune init --hooks` writes), interleaved; memory does not move.
switch_bench() {
  local name=$1 rounds=$2 i
  mkdir -p "$tmp/hooks-true" "$tmp/hooks-rune"
  printf '#!/bin/sh\ntrue\n' >"$tmp/hooks-true/post-checkout"
  printf '#!/bin/sh\nexec "%s" hook post-checkout "$@" </dev/null\n' "$RUNE" >"$tmp/hooks-rune/post-checkout"
  chmod +x "$tmp/hooks-true/post-checkout" "$tmp/hooks-rune/post-checkout"
  git switch -q -c switch-bench
  "$RUNE" -q progress --next "work on the other branch" >/dev/null
  git -c core.hooksPath="$tmp/hooks-rune" switch -q main
  : >"$tmp/$name.true"; : >"$tmp/$name.rune"
  for i in $(seq 1 "$rounds"); do
    t0=${EPOCHREALTIME/./}000; git -c core.hooksPath="$tmp/hooks-true" switch -q switch-bench; t1=${EPOCHREALTIME/./}000
    echo $((t1 - t0)) >>"$tmp/$name.true"
    git -c core.hooksPath="$tmp/hooks-true" switch -q main
    t0=${EPOCHREALTIME/./}000; git -c core.hooksPath="$tmp/hooks-rune" switch -q switch-bench; t1=${EPOCHREALTIME/./}000
    echo $((t1 - t0)) >>"$tmp/$name.rune"
    git -c core.hooksPath="$tmp/hooks-rune" switch -q main
  done
}

# --- save: 8 edited view files vs. the git plumbing that commits 8 files ---------------
repo="$tmp/save"; git init -q -b main "$repo"; cd "$repo"
git commit -q --allow-empty -m start
"$RUNE" -q init >/dev/null
files=(decisions.md conventions.md instincts.md progress.md session-log.md cumulative-notes.md task-notes.md learnings.jsonl)
edit_view() {
  local i=$1
  printf '\n## Decision: d%s\n**Decision:** x%s\n' "$i" "$i" >>.rune/decisions.md
  printf '\n## Convention: c%s\n**Pattern:** p%s\n' "$i" "$i" >>.rune/conventions.md
  printf '\n## Instinct: i%s\n**Trigger:** t\n**Action:** a\n**Confidence:** 0.5\n**Evidence:** e\n' "$i" >>.rune/instincts.md
  printf '\n## Session Summary\n**Next Session Should:**\n- n%s\n' "$i" >>.rune/progress.md
  printf '[2026-01-01 00:00] — s%s\n' "$i" >>.rune/session-log.md
  sed -i "s/^## Attention Points\$/## Attention Points\n- a$i/" .rune/cumulative-notes.md
  sed -i "s/^## What Worked\$/## What Worked\n- w$i/" .rune/task-notes.md
  printf '{"type":"insight","key":"k%s","insight":"i","confidence":0.5}\n' "$i" >>.rune/learnings.jsonl
}
: >"$tmp/save.rune"
for i in $(seq 1 "$RUNS"); do
  edit_view "$i"
  t0=${EPOCHREALTIME/./}000; "$RUNE" -q save -m "s$i" >/dev/null; t1=${EPOCHREALTIME/./}000
  echo $((t1 - t0)) >>"$tmp/save.rune"
done
: >"$tmp/save.git"
for i in $(seq 1 "$RUNS"); do
  edit_view "p$i"
  t0=${EPOCHREALTIME/./}000
  tree=$(for f in "${files[@]}"; do
    printf '100644 blob %s\t%s\n' "$(git hash-object -w ".rune/$f")" "$f"
  done | git mktree)
  parent=$(git rev-parse -q --verify refs/bench/plumbing || true)
  c=$(git commit-tree "$tree" ${parent:+-p "$parent"} -m "s$i")
  git update-ref refs/bench/plumbing "$c" ${parent:+"$parent"}
  t1=${EPOCHREALTIME/./}000
  echo $((t1 - t0)) >>"$tmp/save.git"
done
git checkout -q .rune 2>/dev/null || true
"$RUNE" -q save >/dev/null || true

# --- load with 10,000 learnings vs. git reading the same objects -----------------------
repo="$tmp/load"; git init -q -b main "$repo"; cd "$repo"
git commit -q --allow-empty -m start
"$RUNE" -q init >/dev/null
for i in $(seq 1 10000); do
  printf '{"ts":"2026-01-01T00:00:00Z","skill":"bench","type":"insight","key":"key-%d","insight":"learning number %d says something useful about the code","confidence":0.%d}\n' "$i" "$i" $((i % 9 + 1))
done >>.rune/learnings.jsonl
t0=${EPOCHREALTIME/./}000; "$RUNE" -q save -m "10k learnings" >/dev/null; t1=${EPOCHREALTIME/./}000
echo $((t1 - t0)) >"$tmp/save10k.rune"
# Pack what the import wrote, as `git gc` would in a real repository, and keep git from
# starting its automatic maintenance (a background gc) in the middle of the timed commits.
git config gc.auto 0 && git config maintenance.auto false && pack
: >"$tmp/load.rune"; : >"$tmp/load.git"; : >"$tmp/status.rune"; : >"$tmp/load.revparse"; : >"$tmp/status.git"
for i in $(seq 1 "$RUNS"); do
  t0=${EPOCHREALTIME/./}000; "$RUNE" load >/dev/null; t1=${EPOCHREALTIME/./}000
  echo $((t1 - t0)) >>"$tmp/load.rune"
  t0=${EPOCHREALTIME/./}000; git rev-parse HEAD >/dev/null; t1=${EPOCHREALTIME/./}000
  echo $((t1 - t0)) >>"$tmp/load.revparse"
  t0=${EPOCHREALTIME/./}000; git ls-tree -r --object-only refs/rune/memory | git cat-file --batch >/dev/null; t1=${EPOCHREALTIME/./}000
  echo $((t1 - t0)) >>"$tmp/load.git"
  t0=${EPOCHREALTIME/./}000; "$RUNE" status >/dev/null; t1=${EPOCHREALTIME/./}000
  echo $((t1 - t0)) >>"$tmp/status.rune"
  t0=${EPOCHREALTIME/./}000; git status >/dev/null; t1=${EPOCHREALTIME/./}000
  echo $((t1 - t0)) >>"$tmp/status.git"
done

switch_bench switch10k "$RUNS"

# --- 100,000 learnings: load, SessionStart and status against git, then the writes ----------
# The same kind of repository ten times larger (BIG_RUNS rounds; the writes cost seconds each
# before issue 16's work). Reads are interleaved with `git rev-parse HEAD` and `git status`;
# then one `learn` per round (a new key, then a key shown), and one line appended to learnings.jsonl + `save` per round.
BIG_RUNS=${BIG_RUNS:-10}
repo="$tmp/big"; git init -q -b main "$repo"; cd "$repo"
git commit -q --allow-empty -m start
"$RUNE" -q init >/dev/null
for i in $(seq 1 100000); do
  printf '{"ts":"2026-01-01T00:00:00Z","skill":"bench","type":"insight","key":"key-%d","insight":"learning number %d says something useful about the code","confidence":0.%d}\n' "$i" "$i" $((i % 9 + 1))
done >>.rune/learnings.jsonl
t0=${EPOCHREALTIME/./}000; "$RUNE" -q save -m "100k learnings" >/dev/null; t1=${EPOCHREALTIME/./}000
echo $((t1 - t0)) >"$tmp/save100k.rune"
git config gc.auto 0 && git config maintenance.auto false && pack
sed -e "s#/home/user/project#$repo#g" -e 's#"session_id": "[^"]*"#"session_id": "bench-big"#' \
  "$ROOT/tests/fixtures/claude-code/SessionStart-startup.json" >"$tmp/ss-big.json"
for f in revparse load ss status gitstatus learn relearn append; do : >"$tmp/big.$f"; done
for i in $(seq 1 "$BIG_RUNS"); do
  t0=${EPOCHREALTIME/./}000; git rev-parse HEAD >/dev/null; t1=${EPOCHREALTIME/./}000
  echo $((t1 - t0)) >>"$tmp/big.revparse"
  t0=${EPOCHREALTIME/./}000; "$RUNE" load >/dev/null; t1=${EPOCHREALTIME/./}000
  echo $((t1 - t0)) >>"$tmp/big.load"
  t0=${EPOCHREALTIME/./}000; "$RUNE" agent hook SessionStart <"$tmp/ss-big.json" >/dev/null; t1=${EPOCHREALTIME/./}000
  echo $((t1 - t0)) >>"$tmp/big.ss"
  t0=${EPOCHREALTIME/./}000; "$RUNE" status >/dev/null; t1=${EPOCHREALTIME/./}000
  echo $((t1 - t0)) >>"$tmp/big.status"
  t0=${EPOCHREALTIME/./}000; git status >/dev/null; t1=${EPOCHREALTIME/./}000
  echo $((t1 - t0)) >>"$tmp/big.gitstatus"
done
switch_bench switch100k "$BIG_RUNS"
for i in $(seq 1 "$BIG_RUNS"); do
  t0=${EPOCHREALTIME/./}000; "$RUNE" -q learn --type insight --key "big-$i" --insight "one more" >/dev/null; t1=${EPOCHREALTIME/./}000
  echo $((t1 - t0)) >>"$tmp/big.learn"
  # A key shown already (early in the log): its line goes, the new one is appended.
  t0=${EPOCHREALTIME/./}000; "$RUNE" -q learn --type insight --key "key-$((i * 997))" --insight "revised" >/dev/null; t1=${EPOCHREALTIME/./}000
  echo $((t1 - t0)) >>"$tmp/big.relearn"
  # A line as an agent appends it: stamped now (bash's own clock, no process).
  printf '{"ts":"%(%Y-%m-%dT%H:%M:%SZ)T","type":"insight","key":"appended-%d","insight":"i","confidence":0.5}\n' -1 "$i" >>.rune/learnings.jsonl
  t0=${EPOCHREALTIME/./}000; "$RUNE" -q save -m "one more $i" >/dev/null; t1=${EPOCHREALTIME/./}000
  echo $((t1 - t0)) >>"$tmp/big.append"
done
# 10,000 lines appended at once (an imported log) + save, one run.
for i in $(seq 1 10000); do
  printf '{"type":"insight","key":"bulk-%d","insight":"bulk line %d","confidence":0.5}\n' "$i" "$i"
done >>.rune/learnings.jsonl
t0=${EPOCHREALTIME/./}000; "$RUNE" -q save -m "10k more" >/dev/null; t1=${EPOCHREALTIME/./}000
echo $((t1 - t0)) >"$tmp/big.bulk"
# A seed's 10,000-line learnings.jsonl imported into it (`import rune-dir`), one run.
mkdir -p "$tmp/seed10k"
for i in $(seq 1 10000); do
  printf '{"ts":"2026-03-01T00:00:00Z","skill":"seed","type":"insight","key":"imp-%d","insight":"imported learning %d","confidence":0.5}\n' "$i" "$i"
done >"$tmp/seed10k/learnings.jsonl"
t0=${EPOCHREALTIME/./}000; "$RUNE" -q import rune-dir "$tmp/seed10k" >/dev/null; t1=${EPOCHREALTIME/./}000
echo $((t1 - t0)) >"$tmp/big.import"

# The first commit off an un-noted parent (issue 16): a new branch at the first commit (made
# before memory existed, so it has no note) gets a commit made without hooks, then the
# post-commit hook runs alone, timed; its note lists 100 of the 100,000 learnings and counts
# the rest. Interleaved per round with `git rev-parse HEAD` and the naive hook's `git notes
# add` (and RUNE_B's hook on a branch of its own, when given).
start=$(git rev-list --max-parents=0 HEAD)
mkdir -p "$tmp/hooks.empty"
for f in unnoted unnoted-b unnoted-revparse unnoted-naive; do : >"$tmp/big.$f"; done
unnoted_commit() { # BRANCH
  git branch -q "$1" "$start"; git symbolic-ref HEAD "refs/heads/$1"
  git -c core.hooksPath="$tmp/hooks.empty" commit -q --allow-empty -m "$1"
}
for i in $(seq 1 "$BIG_RUNS"); do
  unnoted_commit "unnoted-$i"
  t0=${EPOCHREALTIME/./}000; git rev-parse HEAD >/dev/null; t1=${EPOCHREALTIME/./}000
  echo $((t1 - t0)) >>"$tmp/big.unnoted-revparse"
  t0=${EPOCHREALTIME/./}000; "$RUNE" hook post-commit </dev/null; t1=${EPOCHREALTIME/./}000
  echo $((t1 - t0)) >>"$tmp/big.unnoted"
  t0=${EPOCHREALTIME/./}000; git notes --ref=naive add -f -m "naive note" HEAD; t1=${EPOCHREALTIME/./}000
  echo $((t1 - t0)) >>"$tmp/big.unnoted-naive"
  git notes --ref=rune show HEAD | grep -q '^Rune-Omitted: ' || { echo "the un-noted note lists everything" >&2; exit 1; }
  if [ -n "${RUNE_B:-}" ]; then
    unnoted_commit "unnoted-b-$i"
    t0=${EPOCHREALTIME/./}000; "$RUNE_B" hook post-commit </dev/null; t1=${EPOCHREALTIME/./}000
    echo $((t1 - t0)) >>"$tmp/big.unnoted-b"
  fi
done
git symbolic-ref HEAD refs/heads/main

# The same briefing over MCP (`git rune mcp`), in the same repository: a memory_load call to a
# running server (bash's coprocess is the client: one JSON-RPC line out, one line back), and
# a whole server session per call (start, initialize, memory_load, stdin closed).
mcp_init='{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}'
mcp_load='{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"memory_load","arguments":{"budget":2000}}}'
: >"$tmp/mcp.call"; : >"$tmp/mcp.session"
coproc MCP { "$RUNE" mcp; }
printf '%s\n' "$mcp_init" >&"${MCP[1]}"
read -r _ <&"${MCP[0]}"
for i in $(seq 1 "$RUNS"); do
  t0=${EPOCHREALTIME/./}000
  printf '%s\n' "$mcp_load" >&"${MCP[1]}"
  read -r answer <&"${MCP[0]}"
  t1=${EPOCHREALTIME/./}000
  case $answer in *'"isError":false'*) ;; *) echo "memory_load failed: $answer" >&2; exit 1 ;; esac
  echo $((t1 - t0)) >>"$tmp/mcp.call"
  t0=${EPOCHREALTIME/./}000; printf '%s\n%s\n' "$mcp_init" "$mcp_load" | "$RUNE" mcp >/dev/null; t1=${EPOCHREALTIME/./}000
  echo $((t1 - t0)) >>"$tmp/mcp.session"
done
exec {MCP[1]}>&-
wait "$MCP_PID"

# --- commit hooks: no hook vs. the naive notes hook vs. git-rune's post-commit ------------
# In the 10,000-learning repository, interleaved (one commit of each kind per round, the hook
# chosen with core.hooksPath) so that machine noise hits all three alike. Each kind commits on
# its own branch (switched with symbolic-ref: same tree, no checkout), so git-rune's commits
# have noted parents, as they do once the hooks are installed.
export PATH="$(dirname "$RUNE"):$PATH"
cd "$tmp/load"
"$RUNE" -q decide "Bench" --context c --decision d --rationale r --impact i
mkdir -p "$tmp/hooks.none" "$tmp/hooks.naive" "$tmp/hooks.rune"
printf '#!/bin/sh\ngit notes --ref=naive add -f -m "naive note" HEAD\n' >"$tmp/hooks.naive/post-commit"
chmod +x "$tmp/hooks.naive/post-commit"
git config core.hooksPath "$tmp/hooks.rune"
"$RUNE" -q hooks install >/dev/null
git config --unset core.hooksPath
if [ -n "${RUNE_B:-}" ]; then
  # The same shims, calling the other build by its path.
  mkdir -p "$tmp/hooks.runeb"
  for h in "$tmp/hooks.rune"/*; do
    sed "s|git-rune hook|$RUNE_B hook|" "$h" >"$tmp/hooks.runeb/$(basename "$h")"
    chmod +x "$tmp/hooks.runeb/$(basename "$h")"
  done
fi
for kind in $kinds; do : >"$tmp/commit.$kind"; git branch -q "bench-$kind"; done
for i in $(seq 1 "$HOOK_RUNS"); do
  for kind in $kinds; do
    git symbolic-ref HEAD "refs/heads/bench-$kind"
    t0=${EPOCHREALTIME/./}000; git -c core.hooksPath="$tmp/hooks.$kind" commit -q --allow-empty -m "$kind $i"; t1=${EPOCHREALTIME/./}000
    echo $((t1 - t0)) >>"$tmp/commit.$kind"
  done
done
git notes --ref=rune show HEAD | grep -q '^Rune-Memory: ' # the hook really ran

# --- agent hooks: Claude Code's PostToolUse and SessionStart vs. git rev-parse HEAD --------
# In the same 10,000-learning repository, as Claude Code runs them (`git-rune agent hook
# <Event>`, the command install writes, with the recorded payload on stdin), interleaved with
# the process floor; PostToolUse also as `git rune agent hook` (git's process in front). The
# thresholds are raised so every PostToolUse takes the common path (count, no advice).
cd "$tmp/load"
git config rune.context.yellow 1000000; git config rune.context.orange 1000001; git config rune.context.red 1000002
sed "s#/home/user/project#$tmp/load#g" "$ROOT/tests/fixtures/claude-code/PostToolUse-Bash.json" >"$tmp/ptu.json"
# Its own session, so it does not reset the counter PostToolUse is timed on.
sed -e "s#/home/user/project#$tmp/load#g" -e 's#"session_id": "[^"]*"#"session_id": "bench-start"#' \
  "$ROOT/tests/fixtures/claude-code/SessionStart-startup.json" >"$tmp/ss.json"
git rune agent hook SessionStart <"$tmp/ss.json" | grep -q additionalContext
: >"$tmp/ptu.rune"; : >"$tmp/ptu.viagit"; : >"$tmp/ptu.git"; : >"$tmp/ss.rune"
refs_before=$(git for-each-ref refs/rune/ refs/notes/)
for i in $(seq 1 "$HOOK_RUNS"); do
  t0=${EPOCHREALTIME/./}000; git rev-parse HEAD >/dev/null; t1=${EPOCHREALTIME/./}000
  echo $((t1 - t0)) >>"$tmp/ptu.git"
  t0=${EPOCHREALTIME/./}000; git-rune agent hook PostToolUse <"$tmp/ptu.json" >/dev/null; t1=${EPOCHREALTIME/./}000
  echo $((t1 - t0)) >>"$tmp/ptu.rune"
  t0=${EPOCHREALTIME/./}000; git rune agent hook PostToolUse <"$tmp/ptu.json" >/dev/null; t1=${EPOCHREALTIME/./}000
  echo $((t1 - t0)) >>"$tmp/ptu.viagit"
  if [ $((i % 3)) -eq 0 ]; then
    t0=${EPOCHREALTIME/./}000; git-rune agent hook SessionStart <"$tmp/ss.json" >/dev/null; t1=${EPOCHREALTIME/./}000
    echo $((t1 - t0)) >>"$tmp/ss.rune"
  fi
done
grep -q '"tool_calls":'"$((2 * HOOK_RUNS))" .git/rune/context/3f6a2c1e-*.json || { echo "PostToolUse did not count" >&2; exit 1; }
[ "$(git for-each-ref refs/rune/ refs/notes/)" = "$refs_before" ] || { echo "a hook wrote memory" >&2; exit 1; }

# --- sync: merging 2 x 5,000 concurrent records, transport excluded ----------------------
# Two clones each record 5,000 learnings; B fetches A's memory with a plain `git fetch` (the
# transport, not timed), then the next git-rune command merges it (timed: the whole process,
# `git rune log -n 0`, which merges what was fetched and prints nothing). Beside it, git
# merging the same two memory commits (`git merge-tree --write-tree`: both sides add lines to
# the same shard files, so git reports conflicts where git-rune takes the union).
remote="$tmp/sync-remote.git"; git init -q --bare -b main "$remote"
make_side() { # DIR PREFIX
  git init -q -b main "$1"; cd "$1"; git commit -q --allow-empty -m start
  "$RUNE" -q init --no-hooks >/dev/null
  for i in $(seq 1 5000); do
    printf '{"ts":"2026-01-01T00:00:00Z","type":"insight","key":"%s-%d","insight":"learning %d from %s","confidence":0.5}\n' "$2" "$i" "$i" "$2"
  done >>.rune/learnings.jsonl
  "$RUNE" -q save -m "5,000 learnings from $2" >/dev/null
  git remote add origin "$remote"
}
make_side "$tmp/sync-a" a; "$RUNE" -q sync >/dev/null
make_side "$tmp/sync-b" b; "$RUNE" -q remote add origin >/dev/null; git fetch -q origin
git config gc.auto 0 && git config maintenance.auto false && pack
ours=$(git rev-parse refs/rune/memory); theirs=$(git rev-parse refs/rune-remotes/origin/rune/memory)
: >"$tmp/sync.rune"; : >"$tmp/sync.git"
for i in $(seq 1 "$RUNS"); do
  git update-ref refs/rune/memory "$ours"; rm -f .git/rune/merged-tracking
  t0=${EPOCHREALTIME/./}000; "$RUNE" -q log -n 0 >/dev/null; t1=${EPOCHREALTIME/./}000
  echo $((t1 - t0)) >>"$tmp/sync.rune"
  [ "$(git rev-list --count refs/rune/memory)" -gt 1 ] || { echo "the merge did not happen" >&2; exit 1; }
  t0=${EPOCHREALTIME/./}000; git merge-tree --write-tree --allow-unrelated-histories "$ours" "$theirs" >/dev/null || true; t1=${EPOCHREALTIME/./}000
  echo $((t1 - t0)) >>"$tmp/sync.git"
done
[ "$("$RUNE" show learnings --json | wc -l)" -eq 10000 ] || { echo "the merge lost records" >&2; exit 1; }

# --- import of a seed's .rune/ folder with 2,000 entries ----------------------------------
# 1,000 decisions, 500 learnings, 300 cumulative notes, 200 session-log lines; each run
# imports into a fresh repository (the whole process, sealing and one commit per ref).
seed="$tmp/seed-rune"; mkdir -p "$seed"
{ echo "# Decisions"; for i in $(seq 1 1000); do
  printf '\n## [2026-03-%02d 10:%02d] Decision: decision %d\n**Context:** why %d\n**Decision:** what %d\n**Rationale:** because\n' $((i % 28 + 1)) $((i % 60)) "$i" "$i" "$i"
done; } >"$seed/decisions.md"
for i in $(seq 1 500); do
  printf '{"ts":"2026-03-01T00:00:00Z","skill":"bench","type":"insight","key":"k-%d","insight":"learning %d","confidence":0.5}\n' "$i" "$i"
done >"$seed/learnings.jsonl"
{ echo "# Cumulative Notes"; echo; echo "## Active Topics"; for i in $(seq 1 300); do echo "- topic $i"; done; } >"$seed/cumulative-notes.md"
{ echo "# Session Log"; for i in $(seq 1 200); do printf '[2026-03-%02d 18:00] — session %d\n' $((i % 28 + 1)) "$i"; done; } >"$seed/session-log.md"
: >"$tmp/import.rune"
for i in $(seq 1 "$RUNS"); do
  repo="$tmp/import-$i"; git init -q -b main "$repo"; git -C "$repo" commit -q --allow-empty -m start
  t0=${EPOCHREALTIME/./}000; (cd "$repo" && "$RUNE" -q import rune-dir "$seed" >/dev/null); t1=${EPOCHREALTIME/./}000
  echo $((t1 - t0)) >>"$tmp/import.rune"
  rm -rf "$repo"
done

echo "git-rune $("$RUNE" --version | cut -d' ' -f2), $(git --version), $(nproc) cores, runs=$RUNS, commit rounds=$HOOK_RUNS"

# --- echoes: search and load --role at 10,000 echoes vs. git reading the same objects -----
# Five roles of 2,000 entries each, written as findings files and consolidated in one save
# (timed once), then `echo search` (BM25 over every active entry, weighted by Echo Score) and
# `load --role reviewer`, beside git reading every memory object. The day is pinned (Echo Score
# and pruning depend on it): inscribed entries are all under 90 days old then, and the traced
# ones older than 30 days are archived by the pruning that consolidation runs.
export GIT_RUNE_TIMESTAMP=2026-06-30T00:00:00Z
repo="$tmp/echoes"; git init -q -b main "$repo"; cd "$repo"
git commit -q --allow-empty -m start
"$RUNE" -q init >/dev/null
topics=(cache query import index retry)
layers=(traced inscribed inscribed)
for r in planner workers reviewer auditor team; do
  mkdir -p ".claude/echoes/$r"
  for i in $(seq 1 2000); do
    t=${topics[$((i % 5))]}
    printf '### [2026-0%d-%02d] Pattern: %s finding %d of %s\n- **layer**: %s\n- **source**: rune:review PR #%d\n- **confidence**: 0.%d\n- **evidence**: `src/%s/m%d.rs:%d` — seen %d times\n- **verified**: 2026-0%d-%02d\n- **supersedes**: none\n- The %s layer of module %d needs care: finding %d says so.\n\n' \
      $((i % 3 + 4)) $((i % 28 + 1)) "$t" "$i" "$r" "${layers[$((i % 3))]}" "$i" $((i % 9 + 1)) \
      "$t" $((i % 50)) "$i" $((i % 7)) $((i % 3 + 4)) $((i % 28 + 1)) "$t" $((i % 50)) "$i"
  done >".claude/echoes/$r/bench-findings.md"
done
t0=${EPOCHREALTIME/./}000; "$RUNE" -q echo consolidate >/dev/null; t1=${EPOCHREALTIME/./}000
echo $((t1 - t0)) >"$tmp/echo.consolidate"
git config gc.auto 0 && git config maintenance.auto false && pack
: >"$tmp/echo.search"; : >"$tmp/echo.load"; : >"$tmp/echo.git"
for i in $(seq 1 "$RUNS"); do
  t0=${EPOCHREALTIME/./}000; "$RUNE" echo search "query cache misses in module" >/dev/null; t1=${EPOCHREALTIME/./}000
  echo $((t1 - t0)) >>"$tmp/echo.search"
  t0=${EPOCHREALTIME/./}000; "$RUNE" load --role reviewer >/dev/null; t1=${EPOCHREALTIME/./}000
  echo $((t1 - t0)) >>"$tmp/echo.load"
  t0=${EPOCHREALTIME/./}000; git ls-tree -r --object-only refs/rune/memory | git cat-file --batch >/dev/null; t1=${EPOCHREALTIME/./}000
  echo $((t1 - t0)) >>"$tmp/echo.git"
done
# Cold: no echo cache, search index or digest (what every call cost before they existed,
# plus writing them back).
: >"$tmp/echo.search.cold"; : >"$tmp/echo.load.cold"
for i in $(seq 1 "$RUNS"); do
  rm -rf .git/rune/cache/echoes .git/rune/cache/echo-index .git/rune/cache/digest .git/rune/echoes .git/rune/echo-index .git/rune/digest
  t0=${EPOCHREALTIME/./}000; "$RUNE" echo search "query cache misses in module" >/dev/null; t1=${EPOCHREALTIME/./}000
  echo $((t1 - t0)) >>"$tmp/echo.search.cold"
  rm -rf .git/rune/cache/echoes .git/rune/cache/echo-index .git/rune/cache/digest .git/rune/echoes .git/rune/echo-index .git/rune/digest
  t0=${EPOCHREALTIME/./}000; "$RUNE" load --role reviewer >/dev/null; t1=${EPOCHREALTIME/./}000
  echo $((t1 - t0)) >>"$tmp/echo.load.cold"
done
unset GIT_RUNE_TIMESTAMP

stats "save, 8 edited view files (git rune save)" "$tmp/save.rune"
stats "same commit by git plumbing (8 hash-object," "$tmp/save.git"
echo "  … mktree, commit-tree, update-ref)"
stats "save of 10,000 new learnings (one run)" "$tmp/save10k.rune"
stats "load, 10,000 learnings (git rune load)" "$tmp/load.rune"
stats "git ls-tree -r | git cat-file --batch" "$tmp/load.git"
stats "status, 10,000 learnings (git rune status)" "$tmp/status.rune"
stats "git rev-parse HEAD (same rounds as load)" "$tmp/load.revparse"
stats "git status (same rounds as status)" "$tmp/status.git"
stats "git switch, true post-checkout (10k)" "$tmp/switch10k.true"
stats "git switch, git-rune's post-checkout (10k)" "$tmp/switch10k.rune"
stats "save of 100,000 new learnings (one run)" "$tmp/save100k.rune"
stats "load, 100,000 learnings" "$tmp/big.load"
stats "agent hook SessionStart, 100,000 learnings" "$tmp/big.ss"
stats "status, 100,000 learnings" "$tmp/big.status"
stats "git rev-parse HEAD (100k rounds)" "$tmp/big.revparse"
stats "git status (100k rounds)" "$tmp/big.gitstatus"
stats "git switch, true post-checkout (100k)" "$tmp/switch100k.true"
stats "git switch, git-rune's post-checkout (100k)" "$tmp/switch100k.rune"
stats "learn, one learning into 100,000" "$tmp/big.learn"
stats "learn of a key shown, 100,000" "$tmp/big.relearn"
stats "append one line + save, 100,000" "$tmp/big.append"
stats "append 10,000 lines + save, 100,000 (one run)" "$tmp/big.bulk"
stats "import rune-dir of 10,000 lines into 100,000 (one run)" "$tmp/big.import"
stats "post-commit, un-noted parent, 100,000" "$tmp/big.unnoted"
[ -z "${RUNE_B:-}" ] || stats "the same, RUNE_B" "$tmp/big.unnoted-b"
stats "git notes add (same rounds)" "$tmp/big.unnoted-naive"
stats "git rev-parse HEAD (same rounds)" "$tmp/big.unnoted-revparse"
stats "memory_load call, running git rune mcp" "$tmp/mcp.call"
stats "mcp session (start, init, memory_load)" "$tmp/mcp.session"
stats "agent hook PostToolUse (git-rune agent hook)" "$tmp/ptu.rune"
stats "the same as git rune agent hook (via git)" "$tmp/ptu.viagit"
stats "agent hook SessionStart, 10,000 learnings" "$tmp/ss.rune"
stats "git rev-parse HEAD (the process floor)" "$tmp/ptu.git"
ratio() { # A B: median(A) / median(B)
  a=$(sort -n "$1" | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
  b=$(sort -n "$2" | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
  awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f", a / b }'
}
echo "  load / rev-parse: 10k $(ratio "$tmp/load.rune" "$tmp/load.revparse")x (budget 8x), 100k $(ratio "$tmp/big.load" "$tmp/big.revparse")x (budget 15x); SessionStart 100k $(ratio "$tmp/big.ss" "$tmp/big.revparse")x"
echo "  status / git status: 10k $(ratio "$tmp/status.rune" "$tmp/status.git")x, 100k $(ratio "$tmp/big.status" "$tmp/big.gitstatus")x (budget 5x)"
echo "  PostToolUse / rev-parse: $(ratio "$tmp/ptu.rune" "$tmp/ptu.git")x (budget 2x; via git $(ratio "$tmp/ptu.viagit" "$tmp/ptu.git")x); SessionStart / rev-parse: $(ratio "$tmp/ss.rune" "$tmp/ptu.git")x (budget 25x)"
stats "sync merge of 2 x 5,000 learnings (process)" "$tmp/sync.rune"
stats "git merge-tree of the same commits" "$tmp/sync.git"
stats "import rune-dir, 2,000 entries (fresh repo)" "$tmp/import.rune"
stats "git commit, no hook (10k learnings)" "$tmp/commit.none"
stats "git commit, naive hook (git notes add)" "$tmp/commit.naive"
stats "git commit, git-rune hooks installed" "$tmp/commit.rune"
# What each hook adds, per round (the rounds are interleaved, so drift cancels out).
paste "$tmp/commit.none" "$tmp/commit.naive" | awk '{print $2 - $1}' >"$tmp/added.naive"
paste "$tmp/commit.none" "$tmp/commit.rune" | awk '{print $2 - $1}' >"$tmp/added.rune"
paste "$tmp/commit.naive" "$tmp/commit.rune" | awk '{print $2 - $1}' >"$tmp/added.diff"
stats "added by the naive hook (paired)" "$tmp/added.naive"
stats "added by git-rune's hooks (paired)" "$tmp/added.rune"
stats "git-rune minus naive (paired)" "$tmp/added.diff"
if [ -n "${RUNE_B:-}" ]; then
  echo "RUNE_B: $("$RUNE_B" --version)"
  stats "git commit, RUNE_B's hooks installed" "$tmp/commit.runeb"
  paste "$tmp/commit.runeb" "$tmp/commit.rune" | awk '{print $2 - $1}' >"$tmp/added.b"
  paste "$tmp/commit.runeb" "$tmp/commit.rune" | awk '{print ($2 - $1) * 100 / $1}' >"$tmp/added.bpct"
  stats "RUNE minus RUNE_B (paired)" "$tmp/added.b"
  sort -n "$tmp/added.bpct" | awk '{a[NR]=$1} END {printf "%-44s median %7.2f %%\n", "RUNE minus RUNE_B, of git commit (paired)", a[int((NR+1)/2)]}'
fi
stats "echo consolidate, 10,000 findings (once)" "$tmp/echo.consolidate"
stats "echo search (10,000 echoes, cached)" "$tmp/echo.search"
stats "echo search (10,000 echoes, cold)" "$tmp/echo.search.cold"
stats "load --role reviewer (10,000 echoes, cached)" "$tmp/echo.load"
stats "load --role reviewer (10,000 echoes, cold)" "$tmp/echo.load.cold"
stats "git reading the same objects" "$tmp/echo.git"
# Issue 16, the git side (drift at 200,000 commits, 1,000 single writes): benches/git-scale.sh.
