#!/usr/bin/env bash
# Benchmarks `vulnbench suite mine vex` at the size issue 34 sets: five generated repositories of
# 10,000 first-parent commits each (Go, PyPI, Maven, npm, npm with a lockfile; a quarter of the
# commits bump one to three of 40 dependencies) and 5,000 advisories of their packages, written
# once by the vexmine package's TestGenerateBench (git fast-import) under WORKDIR. Each of ROUNDS
# rounds times the real binary with /usr/bin/time (wall seconds, peak resident memory) and, as
# the anchor, the git log --first-parent --raw the miner reads, over the same five repositories.
# Prints the medians, the ratio to the anchor, and the targets: under 120 s and under 1 GiB.
# Usage: bench/vexmine.sh [WORKDIR]
set -euo pipefail
cd "$(dirname "$0")/.."
work=${1:-${TMPDIR:-/tmp}/vulnbench-vexmine-bench}
rounds=${ROUNDS:-3}
mkdir -p "$work"
VULNBENCH_VEXMINE_BENCH="$work" go test -count=1 -run '^TestGenerateBench$' ./internal/suite/vexmine >/dev/null
go build -o "$work/vulnbench" ./cmd/vulnbench
echo "== $(ls -d "$work"/repos/github.com/bench/* | wc -l) repositories, $(ls "$work/advisories" | wc -l) advisories; load: $(uptime | sed 's/.*load average: //')"
: >"$work/rounds.txt"
for i in $(seq "$rounds"); do
  /usr/bin/time -f '%e %M' -o "$work/time.txt" "$work/vulnbench" suite mine vex --repos "$work/repos" --advisories "$work/advisories" \
    --out "$work/mined.jsonl" --format json >"$work/report.json"
  read -r secs kib <"$work/time.txt"
  start=$(date +%s.%N)
  for r in "$work"/repos/github.com/bench/*; do
    git --git-dir="$r/.git" log --first-parent --diff-merges=first-parent --no-renames --raw --no-abbrev -z --format='%H %P %ct' HEAD >/dev/null
  done
  anchor=$(echo "$(date +%s.%N) - $start" | bc -l)
  echo "$secs $kib $anchor" | tee -a "$work/rounds.txt" | awk '{printf "round: mine %.2f s, peak %.0f MiB; git log anchor %.2f s\n", $1, $2/1024, $3}'
done
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
m=$(awk '{print $1}' "$work/rounds.txt" | median)
k=$(awk '{print $2}' "$work/rounds.txt" | median)
a=$(awk '{print $3}' "$work/rounds.txt" | median)
cands=$(grep -o '"candidates": [0-9]*' "$work/report.json" | head -1 | grep -o '[0-9]*$')
printf 'median of %d rounds: %.2f s (target < 120 s), peak %.0f MiB (target < 1024 MiB), %s candidates; mine / git log = %.1fx\n' \
  "$rounds" "$m" "$(echo "$k / 1024" | bc -l)" "$cands" "$(echo "$m / $a" | bc -l)"
