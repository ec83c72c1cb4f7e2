#!/usr/bin/env bash
# Times the plain-LLM subject end to end against internal/llmtest's fake OpenAI server (a separate
# process on loopback), this tree against an anchor binary built in the same run from the commit
# $OLD (default 6a3fed3, main before the store's hot path changed), like with like:
#  1. harness overhead: cases per second at 0 ms latency and concurrency 16 over $N cases (5000),
#     old and new alternating for $ROUNDS rounds (5), each on a fresh store (no cache hits);
#     medians, and the ratio new/old (target >= 2.0); also cases per CPU second of the vulnbench
#     process (user + system, GNU time), which a loaded machine disturbs less than the wall;
#  2. a CPU profile of one run of each (perf at 999 Hz, when installed and allowed): the share of
#     the process's CPU under Store.PutResponse, Store.GetResponse, the attempts' commits and
#     database/sql's getting of a connection (children included);
#  3. the wall time of the new binary at 200 ms latency and concurrency 32 against the ideal
#     N x latency / concurrency (target <= 15 % over).
# Usage: bench/llm.sh [WORKDIR]        env: OLD=COMMIT N=CASES ROUNDS=R   (needs GNU time, bc)
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
work=${1:-$(mktemp -d)}
old=${OLD:-6a3fed3}
n=${N:-5000}
rounds=${ROUNDS:-5}
mkdir -p "$work" bin
go build -o bin/vulnbench ./cmd/vulnbench
go build -o bin/bench-gen ./bench/gen
go build -o bin/llmserver ./bench/llmserver
new=$repo/bin/vulnbench

# The anchor: a worktree of $old in a temp dir, built there, removed after.
oldtree=$(mktemp -d)
git worktree add --detach -q "$oldtree/src" "$old"
trap 'git -C "$repo" worktree remove --force "$oldtree/src"; rm -rf "$oldtree"' EXIT
(cd "$oldtree/src" && go build -o "$oldtree/vulnbench" ./cmd/vulnbench)
oldbin=$oldtree/vulnbench
export OPENAI_API_KEY=bench-key

# serve LATENCY: starts the fake server, sets $url; stop it with stop.
serve() {
  coproc SRV { bin/llmserver --latency "$1"; }
  read -r url <&"${SRV[0]}"
}
stop() {
  kill "$SRV_PID" 2>/dev/null || true
  wait "$SRV_PID" 2>/dev/null || true
}

# once BIN CASES CONCURRENCY [PREFIX...]: one run on a fresh store; prints its wall seconds and
# the CPU seconds (user + system) of the vulnbench process, which a loaded machine disturbs less.
once() {
  local bin=$1 cases=$2 c=$3
  shift 3
  rm -f "$work/llm.db"*
  "$@" /usr/bin/time -f '%e %U %S' -o "$work/time.txt" "$bin" run --db "$work/llm.db" --suite "$work/s$cases.jsonl" \
    --subject llm --model openai:bench --base-url "$url" --concurrency "$c" --run-id b --no-score >/dev/null 2>"$work/err.txt" ||
    { cat "$work/err.txt" >&2; exit 1; }
  awk '{printf "%s %.3f\n", $1, $2 + $3}' "$work/time.txt"
}

median() { sort -g | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }

[ -f "$work/s$n.jsonl" ] || bin/bench-gen --cases "$n" --suite "$work/s$n.jsonl"
echo "== harness overhead: $n cases, 0 ms latency, concurrency 16, $rounds rounds, old = $old"
serve 0ms
: >"$work/old.txt"
: >"$work/new.txt"
: >"$work/oldcpu.txt"
: >"$work/newcpu.txt"
for r in $(seq "$rounds"); do
  read -r ow oc < <(once "$oldbin" "$n" 16)
  read -r nw nc < <(once "$new" "$n" 16)
  echo "$n / $ow" | bc -l >>"$work/old.txt"
  echo "$n / $nw" | bc -l >>"$work/new.txt"
  echo "$n / $oc" | bc -l >>"$work/oldcpu.txt"
  echo "$n / $nc" | bc -l >>"$work/newcpu.txt"
  printf 'round %d: old %6.0f cases/s (%6.0f per CPU second)   new %6.0f cases/s (%6.0f per CPU second)\n' "$r" \
    "$(tail -1 "$work/old.txt")" "$(tail -1 "$work/oldcpu.txt")" "$(tail -1 "$work/new.txt")" "$(tail -1 "$work/newcpu.txt")"
done
mo=$(median <"$work/old.txt")
mn=$(median <"$work/new.txt")
co=$(median <"$work/oldcpu.txt")
cn=$(median <"$work/newcpu.txt")
printf 'median: old %.0f cases/s, new %.0f cases/s  ->  %.2fx (target >= 2.0x)\n' "$mo" "$mn" "$(echo "$mn / $mo" | bc -l)"
printf 'median: old %.0f, new %.0f cases per CPU second of vulnbench  ->  %.2fx\n' "$co" "$cn" "$(echo "$cn / $co" | bc -l)"

# share NAME PERFDATA: the process's CPU under each hot-path function, children included.
share() {
  perf report -i "$2" --children --stdio --sort symbol 2>/dev/null >"$work/$1.report.txt"
  for f in 'store.(*Store).PutResponse' 'store.(*Store).GetResponse' 'store.(*Store).PutAttempts' 'store.(*Store).flushCache' 'database/sql.(*DB).conn'; do
    pct=$(grep -F "] github.com/vulnbench/vulnbench/internal/$f" "$work/$1.report.txt" | head -1 | awk '{print $1}' || true)
    [ -z "$pct" ] && pct=$(grep -F "] $f" "$work/$1.report.txt" | head -1 | awk '{print $1}' || true)
    printf '  %-34s %s\n' "$f" "${pct:-0%}"
  done
}
if command -v perf >/dev/null && perf record -q -o "$work/probe.data" true 2>/dev/null; then
  echo "== CPU profile (perf, 999 Hz, one run of $n cases each): share of the process's CPU"
  for which in old new; do
    bin=$oldbin
    [ "$which" = new ] && bin=$new
    once "$bin" "$n" 16 perf record -q -F 999 -g -o "$work/$which.data" -- >/dev/null
    echo "$which:"
    share "$which" "$work/$which.data"
  done
else
  echo "== CPU profile: perf is not installed or not allowed here; skipped"
fi
stop

[ -f "$work/s1600.jsonl" ] || bin/bench-gen --cases 1600 --suite "$work/s1600.jsonl"
echo "== 200 ms latency, concurrency 32, 1600 cases (new binary, median of 3)"
serve 200ms
for i in 1 2 3; do once "$new" 1600 32 | cut -d' ' -f1; done | median >"$work/slow.txt"
stop
med=$(cat "$work/slow.txt")
ideal=$(echo "1600 * 0.2 / 32" | bc -l)
printf 'median wall %.2f s, ideal %.2f s  ->  %.1f%% over ideal (target <= 15%%)\n' "$med" "$ideal" "$(echo "($med / $ideal - 1) * 100" | bc -l)"
echo "inputs in $work"
