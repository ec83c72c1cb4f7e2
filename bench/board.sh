#!/usr/bin/env bash
# Times vulnbench board on a store of 50 runs of all four suite kinds: the demo suite (PrimeVul's
# kind, 66 cases) 15 runs, a jit suite (80 cases) 10, VEX-Bench's real 75 tasks (../shared/data)
# 15 with three repeats each, and the AppSecBench suite built with seed 42 (944 cases) 10, one of
# them answering every record with a fix whose checks run stores (scanners on PATH, in the
# sandbox). board reads the stored checks and never makes them. The anchors, in the same script:
# vulnbench runs (the store's floor) and score --run of each run in turn (what board's figures
# are, run by run). Medians of three; ratios of board to the sum of the scores.
# Usage: bench/board.sh [WORKDIR]   (reuses WORKDIR's store when it is there)
set -euo pipefail
cd "$(dirname "$0")/.."
work=${1:-$(mktemp -d)}
mkdir -p "$work" bin
go build -o bin/vulnbench ./cmd/vulnbench
go build -o bin/genboard ./bench/genboard
bin=bin/vulnbench db="$work/board50.db"
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

if [ ! -f "$db" ]; then
  echo "== building the store: 50 runs" >&2
  $bin suite import vexbench --in ../shared/data/vex-bench/vex_bench.jsonl --out "$work/vex.jsonl" >/dev/null
  $bin suite build appsec --seed 42 --out "$work/asb" >/dev/null
  bin/genboard --jit "$work/jit.jsonl" --pairs 40 --appsec "$work/asb/suite.jsonl" --predictions "$work/asb-fixes.jsonl"
  r() { $bin run --db "$db" --no-score "$@" >/dev/null 2>>"$work/runs.log"; }
  for s in $(seq 1 12); do r --suite suites/demo/demo.jsonl --subject random --seed "$s" --run-id "fn-$s"; done
  r --suite suites/demo/demo.jsonl --subject constant:vul --run-id fn-vul
  r --suite suites/demo/demo.jsonl --subject constant:ben --run-id fn-ben
  r --suite suites/demo/demo.jsonl --subject random --seed 99 --repeats 3 --run-id fn-r3
  for s in $(seq 1 9); do r --suite "$work/jit.jsonl" --subject random --seed "$s" --run-id "jit-$s"; done
  r --suite "$work/jit.jsonl" --subject constant:vul --run-id jit-vul
  for s in $(seq 1 14); do r --suite "$work/vex.jsonl" --subject random --seed "$s" --repeats 3 --run-id "vex-$s"; done
  r --suite "$work/vex.jsonl" --subject constant:ben --run-id vex-ben
  for s in $(seq 1 8); do r --suite "$work/asb/suite.jsonl" --subject random --seed "$s" --run-id "app-$s"; done
  r --suite "$work/asb/suite.jsonl" --subject constant:vul --run-id app-vul
  start=$(date +%s.%N)
  r --suite "$work/asb/suite.jsonl" --subject "predictions:$work/asb-fixes.jsonl" --run-id app-fixes
  echo "run app-fixes (the fix checks of $(grep -c '"label":"vul"' "$work/asb-fixes.jsonl") proposed fixes made and stored): $(echo "$(date +%s.%N) - $start" | bc) s" >&2
  grep 'fix checks' "$work/runs.log" >&2 || true
fi
echo "runs in the store: $($bin runs --db "$db" | tail -n +2 | wc -l); load: $(cut -d' ' -f1-3 /proc/loadavg)"

t() { /usr/bin/time -f '%e' -o "$work/t.txt" "$@" >/dev/null 2>>"$work/err.log"; cat "$work/t.txt"; }
runs_med=$(for i in 1 2 3; do t $bin runs --db "$db"; done | median)
board_med=$(for i in 1 2 3; do t $bin board --db "$db"; done | median)
ids=$($bin runs --db "$db" | tail -n +2 | awk '{print $1}')
scores=()
for i in 1 2 3; do
  s=0
  for id in $ids; do s=$(echo "$s + $(t $bin score --run "$id" --db "$db" --ci)" | bc -l); done
  scores+=("$s")
done
score_sum=$(printf '%s\n' "${scores[@]}" | median)
printf 'vulnbench runs:                   median %6.2f s (the floor)\n' "$runs_med"
printf 'vulnbench board (50 runs):        median %6.2f s\n' "$board_med"
printf 'score --run --ci of each run:     median %6.2f s summed over the runs\n' "$score_sum"
printf 'board / sum of scores: %.2f; board / runs: %.1f\n' "$(echo "$board_med / $score_sum" | bc -l)" "$(echo "$board_med / $runs_med" | bc -l)"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
