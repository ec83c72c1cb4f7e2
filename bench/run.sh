#!/usr/bin/env bash
# Times the real binary on synthetic inputs and prints figures: engine overhead per case
# (run --subject random over 10,000 and 100,000 cases: memory must stay flat), and score over
# 1,000,000 verdicts (from a predictions file and from the store). Medians of 3 runs.
# Usage: bench/run.sh [WORKDIR]   (needs GNU time: apt-get install time)
set -euo pipefail
cd "$(dirname "$0")/.."
work=${1:-$(mktemp -d)}
mkdir -p "$work" bin
command -v /usr/bin/time >/dev/null || { echo "bench: needs GNU time (apt-get install time)" >&2; exit 1; }
go build -o bin/vulnbench ./cmd/vulnbench
go build -o bin/bench-gen ./bench/gen
bin=bin/vulnbench

# measure LABEL CMD...: runs CMD 3 times, prints median wall seconds and max RSS (MiB).
measure() {
  local label=$1; shift
  local walls=() rss=0
  for i in 1 2 3; do
    [ -n "${BEFORE:-}" ] && eval "$BEFORE"
    /usr/bin/time -f '%e %M' -o "$work/time.txt" "$@" >/dev/null 2>"$work/err.txt" || { cat "$work/err.txt" >&2; exit 1; }
    read -r wall kb <"$work/time.txt"
    walls+=("$wall")
    [ "$kb" -gt "$rss" ] && rss=$kb
  done
  local med
  med=$(printf '%s\n' "${walls[@]}" | sort -g | sed -n 2p)
  printf '%-44s median %7.2f s   (runs: %s)   peak RSS %6.1f MiB\n' "$label" "$med" "${walls[*]}" "$(echo "$rss/1024" | bc -l)"
  echo "$med" >"$work/last.txt"
}

for n in 10000 100000; do
  [ -f "$work/s$n.jsonl" ] || bin/bench-gen --cases $n --suite "$work/s$n.jsonl"
done
[ -f "$work/s1M.jsonl" ] || bin/bench-gen --cases 1000000 --suite "$work/s1M.jsonl" --predictions "$work/p1M.jsonl"

echo "== engine: run --subject random --concurrency 2 (fresh store each time)"
for n in 10000 100000; do
  BEFORE="rm -f $work/run$n.db*"
  measure "run random, $n cases" $bin run --db "$work/run$n.db" --suite "$work/s$n.jsonl" --subject random --concurrency 2 --run-id bench --no-score
  printf '%-44s %7.1f µs per case (wall: validation pass, judging, storing)\n' "  overhead" "$(echo "$(cat "$work/last.txt")*1000000/$n" | bc -l)"
done
BEFORE=""

echo "== score over 1,000,000 verdicts"
measure "score --predictions (1M JSONL verdicts)" $bin score --suite "$work/s1M.jsonl" --predictions "$work/p1M.jsonl" --format json
rm -f "$work/run1M.db"*
/usr/bin/time -f '%e %M' -o "$work/time.txt" $bin run --db "$work/run1M.db" --suite "$work/s1M.jsonl" --subject random --concurrency 2 --run-id big --no-score >/dev/null 2>&1
read -r wall kb <"$work/time.txt"
printf '%-44s %7.2f s   peak RSS %6.1f MiB   (%.1f µs per case)\n' "run random, 1000000 cases (once)" "$wall" "$(echo "$kb/1024" | bc -l)" "$(echo "$wall*1000000/1000000" | bc -l)"
measure "score --run (1M verdicts from SQLite)" $bin score --db "$work/run1M.db" --suite "$work/s1M.jsonl" --run big --format json
echo "inputs in $work"
