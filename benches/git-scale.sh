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
saved=$(git rev-parse main~10)
git checkout -q --detach "$saved"
"$RUNE" -q init >/dev/null
"$RUNE" -q save -m saved >/dev/null
git checkout -q main
[ "$(git rev-list --left-right --count "$saved...main")" = "$(printf '0\t10')" ]
"$RUNE" status | grep -q "HEAD is 10 commits ahead of and 0 behind" || { echo "status did not count the drift" >&2; exit 1; }
# Cold: no generation cache, which is what every count cost before the cache existed.
: >"$tmp/cold"
for _ in 1 2 3; do
  rm -f .git/rune/generations
  us "$RUNE" status >>"$tmp/cold"
done
# Warm, interleaved with git's own count.
: >"$tmp/revlist"; : >"$tmp/warm"
for _ in $(seq 1 "$ROUNDS"); do
  us git rev-list --left-right --count "$saved...HEAD" >>"$tmp/revlist"
  us "$RUNE" status >>"$tmp/warm"
done
ratio() { # A B: median(A) / median(B)
  paste <(sort -n "$1") <(sort -n "$2") | awk '{a[NR]=$1; b[NR]=$2} END {m=int((NR+1)/2); printf "%.2f", a[m]/b[m]}'
}
echo "drift at $COMMITS commits, HEAD 10 past the save, no commit-graph (medians):"
echo "  git rev-list --left-right --count         $(median "$tmp/revlist")   ($ROUNDS runs)"
echo "  git rune status, no generation cache      $(median "$tmp/cold")   (3 runs)"
echo "  git rune status, cache warm               $(median "$tmp/warm")   ($ROUNDS runs, $(ratio "$tmp/warm" "$tmp/revlist")x git's count)"
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
