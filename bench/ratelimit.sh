#!/usr/bin/env bash
# The rate-limit acceptance line of issue 23: a plain-LLM run of CASES units (default 3,000) with the
# real binary against bench/llmserver (internal/llmtest's fake OpenAI server, in another process)
# that accepts 600 requests a minute (sliding window; 429 with Retry-After and retry-after-ms over
# it, x-ratelimit-* headers on every answer). From the server's own per-second counts, from the
# second of the first request to the last whole second: the accepted rate in each whole minute and
# overall as a ratio of the limit (target >= 0.95 in every minute, the first included), and the
# share of requests refused (target < 2 %). Modes: "learned" (no --rpm: the limit is read from the
# headers and 429s) and "configured" (--rpm 600). 3,000 units at 600 a minute is 5 minutes a round.
# Usage: bench/ratelimit.sh [WORKDIR]   (env: CASES=3000 MODES="learned configured" ROUNDS=1
#                                        CONCURRENCY=16 LATENCY=200ms RPM=600 FIXED= (fixed windows))
set -euo pipefail
cd "$(dirname "$0")/.."
work=${1:-$(mktemp -d)}
cases=${CASES:-3000}
modes=${MODES:-learned configured}
rounds=${ROUNDS:-1}
conc=${CONCURRENCY:-16}
latency=${LATENCY:-200ms}
rpm=${RPM:-600}
mkdir -p "$work" bin
go build -o bin/vulnbench ./cmd/vulnbench
go build -o bin/bench-gen ./bench/gen
go build -o bin/llmserver ./bench/llmserver
export OPENAI_API_KEY=bench-key

serve() { # ARGS...: starts the fake server, sets $url
  coproc SRV { exec bin/llmserver "$@" 2>>"$work/server.txt"; }
  read -r url <&"${SRV[0]}"
}
stop() { # closes the server's input: it writes its counts and exits
  local pid=$SRV_PID
  eval "exec ${SRV[1]}>&-"
  wait "$pid" 2>/dev/null || true
}

# figures COUNTS_FILE LIMIT_PER_MIN: per-minute and overall accepted rate as a ratio of the limit,
# refused share; exit status 1 when a target is missed.
figures() {
  awk -v lim="$2" '
    { a[$1] = $2; r[$1] = $3; if ($2 + $3 > 0 && first == "") first = $1; if ($2 + $3 > 0) last = $1 }
    END {
      if (first == "") { print "no request counted"; exit 1 }
      end = last # the last second is partial: left out
      ok = 1; line = ""
      for (m = 0; first + 60 * (m + 1) <= end; m++) {
        acc = 0
        for (i = first + 60 * m; i < first + 60 * (m + 1); i++) acc += a[i]
        ratio = acc / lim
        line = line sprintf(" %.3f", ratio)
        if (ratio < 0.95) ok = 0
      }
      acc = 0; ref = 0
      for (i = first; i < end; i++) { acc += a[i]; ref += r[i] }
      ref += r[end]; accAll = acc + a[end]
      secs = end - first
      share = (accAll + ref) > 0 ? ref / (accAll + ref) : 0
      if (secs == 0 || m == 0) ok = 0
      printf "minutes:%s | overall %.3f of the limit over %d s | %d accepted, %d refused: %.2f%% refused | %s\n",
        line, (secs > 0 ? acc / secs * 60 / lim : 0), secs, accAll, ref, 100 * share,
        (ok && share < 0.02) ? "held (>= 0.95 each minute, < 2% refused)" : "SHORT of >= 0.95 each minute and < 2% refused"
      exit !(ok && share < 0.02)
    }' "$1"
}

[ -f "$work/s$cases.jsonl" ] || bin/bench-gen --cases "$cases" --suite "$work/s$cases.jsonl"
fixed=()
[ -n "${FIXED:-}" ] && fixed=(--fixed-window)
status=0
for round in $(seq "$rounds"); do
  for mode in $modes; do
    flags=()
    [ "$mode" = configured ] && flags=(--rpm "$rpm")
    echo "== round $round: $cases units, concurrency $conc, $latency latency, fake limit $rpm/min${FIXED:+ (fixed windows)}, $mode ${flags[*]:-(no --rpm)}"
    serve --latency "$latency" --rpm "$rpm" "${fixed[@]}" --counts "$work/counts-$mode-$round.txt"
    rm -f "$work/llm.db"*
    t0=$(date +%s.%N)
    bin/vulnbench run --db "$work/llm.db" --suite "$work/s$cases.jsonl" --subject llm --model openai:bench \
      --base-url "$url" --concurrency "$conc" --run-id b --no-score "${flags[@]}" >/dev/null 2>"$work/err.txt" || { cat "$work/err.txt" >&2; stop; exit 1; }
    t1=$(date +%s.%N)
    stop
    grep -E '^(run b:|usage:)' "$work/err.txt" | sed 's/^/    /'
    tail -1 "$work/server.txt" | sed 's/^/    /'
    printf '    wall %.1f s\n    ' "$(echo "$t1 - $t0" | bc -l)"
    figures "$work/counts-$mode-$round.txt" "$rpm" || status=1
  done
done
echo "inputs and counts in $work"
exit $status
