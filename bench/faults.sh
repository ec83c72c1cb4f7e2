#!/usr/bin/env bash
# Times the plain-LLM subject against provider faults and rate limits, end to end: the real
# binary (go build) against bench/llmserver, internal/llmtest's fake OpenAI server, in another
# process on loopback.
#  (a) 2,000 cases, concurrency 8, 50 ms latency: fault-free, then with 5% of requests answered
#      429 (Retry-After: 0) and 5% answered 500. Prints the wall ratio (target <= 1.3x); medians of
#      RUNS runs, each on a fresh store.
#  (b) a fake that accepts 600 requests a minute (sliding window; 429 with Retry-After over it):
#      CASES_B cases at concurrency 8 and 50 ms latency (about 110 s of calls at the limit), once
#      with --rpm 600 and once with no --rpm (the limit learned from x-ratelimit-* headers and
#      429s). From the server's own per-second counts, after the first 30 s (the last, partial
#      second left out): sustained throughput as a fraction of the limit (target >= 90%) and the
#      share of requests refused (target < 5%).
# Usage: bench/faults.sh [WORKDIR]   (env: RUNS=3 CASES_B=1100 SKIP_A= SKIP_B=)
set -euo pipefail
cd "$(dirname "$0")/.."
work=${1:-$(mktemp -d)}
runs=${RUNS:-3}
cases_b=${CASES_B:-1100}
mkdir -p "$work" bin
go build -o bin/vulnbench ./cmd/vulnbench
go build -o bin/bench-gen ./bench/gen
go build -o bin/llmserver ./bench/llmserver
export OPENAI_API_KEY=bench-key

# serve ARGS...: starts the fake server, sets $url; stop it with: stop
serve() {
  coproc SRV { exec bin/llmserver "$@" 2>>"$work/server.txt"; }
  read -r url <&"${SRV[0]}"
}
stop() { # closes the server's input: it writes its counts and exits
  local pid=$SRV_PID
  eval "exec ${SRV[1]}>&-"
  wait "$pid" 2>/dev/null || true
}

# run_once N CONCURRENCY [FLAGS...]: one run on a fresh store; prints the wall time in seconds
run_once() {
  local n=$1 c=$2 t0 t1
  shift 2
  rm -f "$work/llm.db"*
  t0=$(date +%s.%N)
  bin/vulnbench run --db "$work/llm.db" --suite "$work/s$n.jsonl" --subject llm --model openai:bench \
    --base-url "$url" --concurrency "$c" --run-id b --no-score "$@" >/dev/null 2>"$work/err.txt" || { cat "$work/err.txt" >&2; exit 1; }
  t1=$(date +%s.%N)
  grep -E '^(run b:|usage:)' "$work/err.txt" | sed 's/^/    /' >&2
  echo "$t1 - $t0" | bc -l
}

median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

gen() { [ -f "$work/s$1.jsonl" ] || bin/bench-gen --cases "$1" --suite "$work/s$1.jsonl"; }

if [ -z "${SKIP_A:-}" ]; then
  echo "== (a) 2000 cases, concurrency 8, 50 ms latency: fault-free vs 5% 429 (Retry-After: 0) + 5% 500; $runs runs each"
  gen 2000
  clean=() faulty=()
  for i in $(seq "$runs"); do
    serve --latency 50ms
    clean+=("$(run_once 2000 8)")
    stop
    serve --latency 50ms --p429 0.05 --p500 0.05 --seed "$i"
    faulty+=("$(run_once 2000 8)")
    stop
    printf '  run %d: fault-free %.2f s, faults %.2f s\n' "$i" "${clean[-1]}" "${faulty[-1]}"
  done
  mc=$(printf '%s\n' "${clean[@]}" | median)
  mf=$(printf '%s\n' "${faulty[@]}" | median)
  printf '(a) median wall: fault-free %.2f s, with faults %.2f s  ->  ratio %.2fx (target <= 1.3x)\n' "$mc" "$mf" "$(echo "$mf / $mc" | bc -l)"
fi

# ratios COUNTS_FILE LIMIT_PER_MIN: throughput fraction and refused share after the first 30 s
ratios() {
  awk -v lim="$2" '{s[$1]=$1; a[$1]=$2; r[$1]=$3; if ($1 > last) last=$1}
    END {
      for (i = 30; i < last; i++) { acc += a[i]; ref += r[i]; n++ }
      if (n == 0) { print "the run lasted under 31 s: no figures"; exit 1 }
      printf "%d s after the first 30 s: %d accepted, %d refused  ->  throughput %.1f%% of the limit (target >= 90%%), refused %.2f%% (target < 5%%)\n",
        n, acc, ref, 100 * acc / n / (lim / 60), 100 * ref / (acc + ref)
    }' "$1"
}

if [ -z "${SKIP_B:-}" ]; then
  gen "$cases_b"
  for mode in configured learned; do
    flags=()
    [ "$mode" = configured ] && flags=(--rpm 600)
    echo "== (b) $cases_b cases, concurrency 8, 50 ms latency, fake limit 600/min (sliding), $mode limit ${flags[*]:-(no --rpm)}"
    serve --latency 50ms --rpm 600 --counts "$work/counts-$mode.txt"
    wall=$(run_once "$cases_b" 8 "${flags[@]}")
    stop
    tail -1 "$work/server.txt" | sed 's/^/    /'
    printf '    wall %.1f s\n' "$wall"
    printf '(b) %s: ' "$mode"
    ratios "$work/counts-$mode.txt" 600
  done
fi
echo "inputs and counts in $work"
