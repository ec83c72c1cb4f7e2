#!/usr/bin/env bash
# Times runs spread over River workers on a throwaway Postgres (Debian's postgresql-15), against
# the fake OpenAI server (bench/llmserver, another process):
#   1. 1 and 4 worker processes x concurrency 16, 4,000 units, 200 ms latency: the ratio of their
#      throughputs (target >= 3.5x), each against the ideal N x latency / (workers x 16);
#   2. the cost River adds per unit (claim, case read, commit with the job's completion): the
#      same 4,000 units at 0 ms latency with one worker x 16 against the local pool (run --queue
#      local, the anchor, measured in the same script); target < 1 ms per unit (issue 37);
#   3. a worker's start-up: launch to its first heartbeat in the store.
# Medians of $RUNS runs (default 3), each on a fresh database (no cache hits). With OLD=COMMIT,
# 1 and 2 also time a binary built from COMMIT (in a temporary worktree) in the same rounds,
# alternating with this tree's, and print its medians and ratios beside (where the time went
# since; OLD=aa2d672 is the last commit of wave 2).
# Usage: bench/workers.sh [WORKDIR]      env: RUNS=R OLD=COMMIT N=UNITS (4000)
set -euo pipefail
cd "$(dirname "$0")/.."
work=${1:-$(mktemp -d)}
runs=${RUNS:-3}
mkdir -p "$work" bin
go build -o bin/vulnbench ./cmd/vulnbench
go build -o bin/bench-gen ./bench/gen
go build -o bin/llmserver ./bench/llmserver
export OPENAI_API_KEY=bench-key
vb=$PWD/bin/vulnbench
bins=("$vb")
if [ -n "${OLD:-}" ]; then
  oldtree=$(mktemp -d)
  git worktree add --detach -q "$oldtree/src" "$OLD"
  (cd "$oldtree/src" && go build -o "$oldtree/vulnbench" ./cmd/vulnbench)
  bins=("$oldtree/vulnbench" "$vb")
fi

# A Postgres cluster on a Unix socket only; initdb and postgres refuse root.
pgbin=${VULNBENCH_PGBIN:-/usr/lib/postgresql/15/bin}
pg=$(mktemp -d /tmp/vbpgXXXX)
as_pg() { if [ "$(id -u)" = 0 ]; then su postgres -s /bin/sh -c "$*"; else sh -c "$*"; fi; }
[ "$(id -u)" = 0 ] && chown postgres "$pg"
as_pg "$pgbin/initdb -D $pg/data -A trust -U postgres" >/dev/null
as_pg "$pgbin/pg_ctl -D $pg/data -l $pg/log -w -o \"-k $pg -c listen_addresses='' -c fsync=off -c synchronous_commit=off -c max_connections=300\" start" >/dev/null
cleanup() {
  jobs -p | xargs -r kill 2>/dev/null || true
  as_pg "$pgbin/pg_ctl -D $pg/data -m immediate stop" >/dev/null 2>&1 || true
  rm -rf "$pg"
  if [ -n "${oldtree:-}" ]; then git worktree remove --force "$oldtree/src"; rm -rf "$oldtree"; fi
}
trap cleanup EXIT
freshdb() { # BIN: sets $dbname and $dsn to a new database with BIN's schema (runs in subshells: no counter)
  dbname="b$(date +%s%N)"
  "$pgbin/psql" -h "$pg" -U postgres -d postgres -qc "CREATE DATABASE $dbname" >/dev/null
  dsn="postgres:///$dbname?host=$pg&user=postgres&sslmode=disable"
  if "$1" migrate --help >/dev/null 2>&1; then
    "$1" migrate --db "$dsn" >/dev/null
  else # before the migrate command: any command that opens the store creates its schema
    "$1" runs --db "$dsn" >/dev/null 2>&1 || true
  fi
}

serve() { # LATENCY: starts the fake server, sets $url
  coproc SRV { bin/llmserver --latency "$1"; }
  read -r url <&"${SRV[0]}"
}
unserve() { kill "$SRV_PID" 2>/dev/null || true; wait "$SRV_PID" 2>/dev/null || true; }

now() { date +%s.%N; }
median() { printf '%s\n' "$@" | sort -g | sed -n "$(( ($# + 1) / 2 ))p"; }

n=${N:-4000}
[ -f "$work/s$n.jsonl" ] || bin/bench-gen --cases "$n" --suite "$work/s$n.jsonl"
suite="$work/s$n.jsonl"

# river BIN WORKERS: one River run of the suite on $url with WORKERS x 16; prints its wall time
# (enqueue to the last unit stored), with the workers already started and idle.
river() {
  local vb=$1 w=$2 pids=() t0 t1
  freshdb "$vb"
  for ((i = 0; i < w; i++)); do
    "$vb" worker --db "$dsn" --concurrency 16 2>>"$work/workers.log" &
    pids+=($!)
  done
  # Wait until every worker has its heartbeat in the store.
  until [ "$("$pgbin/psql" -h "$pg" -U postgres -d "$dbname" -Atc "SELECT COUNT(*) FROM workers" 2>/dev/null || echo 0)" -ge "$w" ]; do sleep 0.05; done
  t0=$(now)
  "$vb" run --db "$dsn" --suite "$suite" --subject llm --model openai:bench --base-url "$url" --queue river \
    --run-id b --no-score >/dev/null 2>"$work/err.txt" || { cat "$work/err.txt"; exit 1; }
  t1=$(now)
  kill -TERM "${pids[@]}"
  wait "${pids[@]}" 2>/dev/null || true
  echo "$t1 - $t0" | bc -l
}

local_pool() { # BIN: one run on the local pool, 16 at once, Postgres store
  local vb=$1 t0 t1
  freshdb "$vb"
  t0=$(now)
  "$vb" run --db "$dsn" --suite "$suite" --subject llm --model openai:bench --base-url "$url" --concurrency 16 \
    --run-id b --no-score >/dev/null 2>"$work/err.txt" || { cat "$work/err.txt"; exit 1; }
  t1=$(now)
  echo "$t1 - $t0" | bc -l
}

# label BIN: what the figures of BIN are called
label() { if [ "$1" = "$vb" ]; then echo "this tree"; else echo "$OLD"; fi; }

echo "== 200 ms latency, $n units, concurrency 16 per worker ($runs runs each); load $(cut -d' ' -f1-3 /proc/loadavg)"
serve 200ms
declare -A one four rv lp
for ((r = 0; r < runs; r++)); do
  for b in "${bins[@]}"; do
    one[$b]+=" $(river "$b" 1)"
    four[$b]+=" $(river "$b" 4)"
  done
done
unserve
for b in "${bins[@]}"; do
  m1=$(median ${one[$b]})
  m4=$(median ${four[$b]})
  echo "-- $(label "$b") (runs: 1 worker${one[$b]}; 4 workers${four[$b]})"
  printf '1 worker:  median %.2f s (ideal %.2f s) -> %.0f units/s\n' "$m1" "$(echo "$n * 0.2 / 16" | bc -l)" "$(echo "$n / $m1" | bc -l)"
  printf '4 workers: median %.2f s (ideal %.2f s) -> %.0f units/s\n' "$m4" "$(echo "$n * 0.2 / 64" | bc -l)" "$(echo "$n / $m4" | bc -l)"
  printf 'ratio 4 workers / 1 worker: %.2fx (target >= 3.5x)\n' "$(echo "$m1 / $m4" | bc -l)"
done
echo "load $(cut -d' ' -f1-3 /proc/loadavg)"

echo "== 0 ms latency, $n units, 1 worker x 16 against the local pool x 16 ($runs runs each)"
serve 0ms
for ((r = 0; r < runs; r++)); do
  for b in "${bins[@]}"; do
    rv[$b]+=" $(river "$b" 1)"
    lp[$b]+=" $(local_pool "$b")"
  done
done
unserve
for b in "${bins[@]}"; do
  mr=$(median ${rv[$b]})
  ml=$(median ${lp[$b]})
  echo "-- $(label "$b") (runs: River${rv[$b]}; local pool${lp[$b]})"
  printf 'River: median %.2f s (%.2f ms/unit); local pool: median %.2f s (%.2f ms/unit)\n' "$mr" "$(echo "$mr * 1000 / $n" | bc -l)" "$ml" "$(echo "$ml * 1000 / $n" | bc -l)"
  printf 'River claim + commit overhead: %.2f ms/unit over the local pool (target < 1 ms); ratio %.2fx\n' \
    "$(echo "($mr - $ml) * 1000 / $n" | bc -l)" "$(echo "$mr / $ml" | bc -l)"
done
echo "load $(cut -d' ' -f1-3 /proc/loadavg)"

echo "== worker start-up: launch to first heartbeat ($runs runs)"
ups=()
for ((r = 0; r < runs; r++)); do
  freshdb "$vb"
  t0=$(now)
  "$vb" worker --db "$dsn" --concurrency 16 2>>"$work/workers.log" &
  pid=$!
  until [ "$("$pgbin/psql" -h "$pg" -U postgres -d "$dbname" -Atc "SELECT COUNT(*) FROM workers" 2>/dev/null || echo 0)" -ge 1 ]; do sleep 0.01; done
  t1=$(now)
  kill -TERM "$pid"; wait "$pid" 2>/dev/null || true
  ups+=("$(echo "$t1 - $t0" | bc -l)")
done
printf 'worker start-up: median %.0f ms (River migrations checked, client started, first heartbeat)\n' "$(echo "$(median "${ups[@]}") * 1000" | bc -l)"
echo "inputs in $work"
