#!/usr/bin/env bash
# Issue 16, the git side: counting drift at 200,000 commits without a commit-graph, and what
# 1,000 single writes add to .git before any gc (docs/performance.md, "Drift counting" and
# "The object store").
#   bash benches/git-scale.sh                       # release build
#   RUNE=/path/to/git-rune bash benches/git-scale.sh
#   COMMITS=20000 ROUNDS=15 WRITES=200 bash benches/git-scale.sh
set -euo pipefail
cd "$(dirname "$0")/.."
COMMITS=${COMMITS:-200000}
ROUNDS=${ROUNDS:-21}
WRITES=${WRITES:-1000}
if [ -z "${RUNE:-}" ]; then
  cargo build --release --locked -q
  RUNE="$PWD/target/release/git-rune"
fi
[ -n "${EPOCHREALTIME:-}" ] || { echo "benches/git-scale.sh needs bash 5 (EPOCHREALTIME)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/bin" && cp "$RUNE" "$tmp/bin/git-rune" && RUNE="$tmp/bin/git-rune"
export GIT_CONFIG_GLOBAL="$tmp/gitconfig" GIT_CONFIG_NOSYSTEM=1 TZ=UTC LC_ALL=C
: >"$GIT_CONFIG_GLOBAL"
git config --global user.name bench
git config --global user.email bench@example.com
# us CMD…: the command's wall time in microseconds (output discarded).
us() { local s=$EPOCHREALTIME; "$@" >/dev/null 2>&1; local e=$EPOCHREALTIME; echo $(( ${e/./} - ${s/./} )); }
median() { sort -n "$1" | awk '{a[NR]=$1} END {printf "%8.2f ms", a[int((NR+1)/2)]/1000}'; }

echo "git-rune $("$RUNE" --version | cut -d' ' -f2), $(git --version), $(nproc) cores"

# --- drift: HEAD 10 commits past the save, $COMMITS commits, no commit-graph -------------
# A main line with a three-commit side branch merged back every 50 commits, one minute apart.
repo="$tmp/drift"; git init -q -b main "$repo"; cd "$repo"
git config gc.auto 0 && git config maintenance.auto false
awk -v n="$COMMITS" '
function commit(ref, p1, p2, msg) {
  mark++; t += 60
  printf "commit %s\nmark :%d\ncommitter B <b@example.com> %d +0000\ndata %d\n%s\n", ref, mark, t, length(msg), msg
  if (p1) printf "from :%d\n", p1
  if (p2) printf "merge :%d\n", p2
  printf "\n"
  return mark
}
BEGIN {
  t = 1600000000
  while (mark < n) {
    i++
    if (i % 50 == 0) {
      s = head
      for (k = 0; k < 3; k++) s = commit("refs/heads/side", s, 0, "s" i "." k)
      head = commit("refs/heads/main", head, s, "m" i)
    } else head = commit("refs/heads/main", head, 0, "c" i)
  }
}' | git fast-import --quiet
[ ! -e .git/objects/info/commit-graph ] || { echo "fast-import wrote a commit-graph" >&2; exit 1; }
# The save 10 commits back along a stretch without merges (what a fresh clone counts along
# a straight line), then one 60 first-parent commits back, with merges between (what needs
# generation numbers).
back=10
while [ "$(git rev-list --merges --count "main~$back..main")" != 0 ]; do back=$((back + 1)); done
saved=$(git rev-parse "main~$back")
git checkout -q --detach "$saved"
"$RUNE" -q init >/dev/null
"$RUNE" -q save -m saved >/dev/null
git checkout -q main
[ "$(git rev-list --left-right --count "$saved...main")" = "$(printf '0\t%d' "$back")" ]
"$RUNE" status | grep -q "HEAD is $back commits ahead of and 0 behind" || { echo "status did not count the drift" >&2; exit 1; }
ratio() { # A B: median(A) / median(B)
  paste <(sort -n "$1") <(sort -n "$2") | awk '{a[NR]=$1; b[NR]=$2} END {m=int((NR+1)/2); printf "%.2f", a[m]/b[m]}'
}
# counts NAME: a fresh clone's first count (no generation cache), 3 runs; then, interleaved
# with git's own count, the counts that follow.
counts() {
  : >"$tmp/cold.$1"
  for _ in 1 2 3; do
    rm -f .git/rune/generations
    us "$RUNE" status >>"$tmp/cold.$1"
  done
  : >"$tmp/revlist.$1"; : >"$tmp/warm.$1"
  for _ in $(seq 1 "$ROUNDS"); do
    us git rev-list --left-right --count "$saved...HEAD" >>"$tmp/revlist.$1"
    us "$RUNE" status >>"$tmp/warm.$1"
  done
}
counts line
merged=$(git rev-parse main~60)
[ "$(git rev-list --merges --count "$merged..main")" != 0 ]
git checkout -q --detach "$merged"
"$RUNE" -q save -m "saved before a merge" >/dev/null
git checkout -q main
saved=$merged
ahead=$(git rev-list --count "$merged..main")
"$RUNE" status | grep -q "HEAD is $ahead commits ahead of and 0 behind" || { echo "status did not count the drift past a merge" >&2; exit 1; }
counts merge
echo "drift at $COMMITS commits, no commit-graph (medians):"
echo "  HEAD $back plain commits past the save:"
echo "    git rev-list --left-right --count       $(median "$tmp/revlist.line")   ($ROUNDS runs)"
echo "    git rune status, no generation cache    $(median "$tmp/cold.line")   (3 runs: a fresh clone; counted along the line)"
echo "    git rune status, the counts after       $(median "$tmp/warm.line")   ($ROUNDS runs, $(ratio "$tmp/warm.line" "$tmp/revlist.line")x git's count)"
echo "  HEAD $ahead commits past the save, merges between:"
echo "    git rev-list --left-right --count       $(median "$tmp/revlist.merge")   ($ROUNDS runs)"
echo "    git rune status, no generation cache    $(median "$tmp/cold.merge")   (3 runs: the walk that fills the cache)"
echo "    git rune status, cache warm             $(median "$tmp/warm.merge")   ($ROUNDS runs, $(ratio "$tmp/warm.merge" "$tmp/revlist.merge")x git's count)"
echo "  generation cache: $(stat -c %s .git/rune/generations) bytes"

# --- the object store: $WRITES single `git rune learn` calls, before any gc ------------------
repo="$tmp/writes"; git init -q -b main "$repo"; cd "$repo"
git config gc.auto 0 && git config maintenance.auto false
git commit -q --allow-empty -m start
"$RUNE" -q init >/dev/null
before=$(du -sb .git | cut -f1)
# Insights of a dozen words drawn from a small vocabulary (deterministic): text that deflates
# about as well as real notes do, not one sentence repeated.
words=(build test cache parser index commit branch merge schema query timeout retry error
  config deploy review lint format module import export token session memory record hook
  path file line value field table column latency budget flaky race lock order fold view
  save load sync remote fetch push tree blob shard layout version migrate reader writer)
RANDOM=16
: >"$tmp/learn"
for i in $(seq 1 "$WRITES"); do
  insight="learning $i:"
  for _ in $(seq 1 12); do insight+=" ${words[RANDOM % ${#words[@]}]}"; done
  us "$RUNE" -q learn --type insight --key "key-$i" --insight "$insight" --confidence 0.6 >>"$tmp/learn"
done
after=$(du -sb .git | cut -f1)
loose=$(git count-objects -v | awk '/^count:/ {print $2}')
objects=$(find .git/objects -type f -printf '%s\n' | awk '{s += $1} END {print s}')
echo "$WRITES single learns:"
echo "  .git grew by $(( (after - before) / 1024 )) KiB (du -sb), $loose loose objects of $(( objects / 1024 )) KiB"
echo "  one learn                                 $(median "$tmp/learn")"
git gc -q
echo "  after git gc: $(du -sb .git/objects | cut -f1) bytes of objects"
