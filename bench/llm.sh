#!/usr/bin/env bash
# Times the plain-LLM subject end to end against internal/llmtest's fake OpenAI server (a separate
# process on loopback): cases per second at 0 ms latency and concurrency 16 (our overhead), and the
# wall time at 200 ms latency and concurrency 32 against the ideal N x latency / concurrency.
# Medians of 3 runs, each on a fresh store (no cache hits).
# Usage: bench/llm.sh [WORKDIR]
set -euo pipefail
cd "$(dirname "$0")/.."
work=${1:-$(mktemp -d)}
mkdir -p "$work" bin
go build -o bin/vulnbench ./cmd/vulnbench
go build -o bin/bench-gen ./bench/gen
go build -o bin/llmserver ./bench/llmserver
export OPENAI_API_KEY=bench-key

# serve LATENCY: starts the fake server, sets $url; stop it with: exec 3>&-
serve() {
  coproc SRV { bin/llmserver --latency "$1"; }
  read -r url <&"${SRV[0]}"
}

bench() { # N CONCURRENCY LATENCY_MS
  local n=$1 c=$2 lat=$3 walls=()
  [ -f "$work/s$n.jsonl" ] || bin/bench-gen --cases "$n" --suite "$work/s$n.jsonl"
  serve "${lat}ms"
  for i in 1 2 3; do
    rm -f "$work/llm.db"*
    local t0 t1
    t0=$(date +%s.%N)
    bin/vulnbench run --db "$work/llm.db" --suite "$work/s$n.jsonl" --subject llm --model openai:bench \
      --base-url "$url" --concurrency "$c" --run-id b --no-score >/dev/null 2>"$work/err.txt" || { cat "$work/err.txt"; exit 1; }
    t1=$(date +%s.%N)
    walls+=("$(echo "$t1 - $t0" | bc -l)")
  done
  kill "$SRV_PID" 2>/dev/null || true
  wait "$SRV_PID" 2>/dev/null || true
  med=$(printf '%s\n' "${walls[@]}" | sort -g | sed -n 2p)
  echo "$med"
}

echo "== 0 ms latency, concurrency 16, 5000 cases"
med=$(bench 5000 16 0)
printf 'median wall %.2f s  ->  %.0f cases/s (target >= 500)\n' "$med" "$(echo "5000 / $med" | bc -l)"

echo "== 200 ms latency, concurrency 32, 1600 cases"
med=$(bench 1600 32 200)
ideal=$(echo "1600 * 0.2 / 32" | bc -l)
printf 'median wall %.2f s, ideal %.2f s  ->  %.1f%% over ideal (target <= 15%%)\n' "$med" "$ideal" "$(echo "($med / $ideal - 1) * 100" | bc -l)"
echo "inputs in $work"
