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
#  (c) a database outage: CASES_C cases on the local pool, concurrency 8, 50 ms latency, on a
#      throwaway Postgres (Debian's postgresql-15) restarted twice mid-run (pg_ctl restart -m fast:
#      every session cut off); the run must finish with exactly one attempt per unit and no error
#      verdict. Wall time against the same run without restarts (the anchor, same script).
#  (d) a dead worker: 3 River workers x 8 on that Postgres, CASES_D cases at 50 ms latency and the
#      default --timeout (10 min: River's own rescue would wait 11 min); one worker SIGKILLed
#      while it holds units: the run must finish within 60 s of the kill, one attempt per unit.
# Usage: bench/faults.sh [WORKDIR]   (env: RUNS=3 CASES_B=1100 CASES_C=2000 CASES_D=2000
#        SKIP_A= SKIP_B= SKIP_C= SKIP_D=)
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

# ---- (c) and (d): a throwaway Postgres on a Unix socket only (initdb and postgres refuse root).
if [ -z "${SKIP_C:-}" ] || [ -z "${SKIP_D:-}" ]; then
  pgbin=${VULNBENCH_PGBIN:-/usr/lib/postgresql/15/bin}
  pg=$(mktemp -d /tmp/vbpgXXXX)
  as_pg() { if [ "$(id -u)" = 0 ]; then su postgres -s /bin/sh -c "$*"; else sh -c "$*"; fi; }
  [ "$(id -u)" = 0 ] && chown postgres "$pg"
  as_pg "$pgbin/initdb -D $pg/data -A trust -U postgres" >/dev/null
  as_pg "$pgbin/pg_ctl -D $pg/data -l $pg/log -w -o \"-k $pg -c listen_addresses='' -c fsync=off -c synchronous_commit=off -c max_connections=300\" start" >/dev/null
  pgdown() {
    jobs -p | xargs -r kill 2>/dev/null || true
    as_pg "$pgbin/pg_ctl -D $pg/data -m immediate stop" >/dev/null 2>&1 || true
    rm -rf "$pg"
  }
  trap pgdown EXIT
  psql_() { "$pgbin/psql" -h "$pg" -U postgres -d "$dbname" -Atc "$1" 2>/dev/null; }
  freshdb() {
    dbname="f$(date +%s%N)"
    "$pgbin/psql" -h "$pg" -U postgres -d postgres -qc "CREATE DATABASE $dbname" >/dev/null
    dsn="postgres:///$dbname?host=$pg&user=postgres&sslmode=disable"
    bin/vulnbench migrate --db "$dsn" >/dev/null
  }
  stored() { psql_ "SELECT COUNT(*) FROM attempts WHERE run_id = '$1'" || echo 0; }
  # check RUN UNITS: one attempt per unit, no error verdict; prints the figures
  check() {
    local line
    line=$(psql_ "SELECT COUNT(*), COUNT(DISTINCT (case_id, repeat_idx)), COUNT(*) FILTER (WHERE status = 'error'),
      (SELECT state FROM runs WHERE id = '$1') FROM attempts WHERE run_id = '$1'")
    IFS='|' read -r n u e state <<<"$line"
    printf '    run %s: %s, %s attempts for %s units (of %s), %s error verdicts\n' "$1" "$state" "$n" "$u" "$2" "$e"
    [ "$state" = done ] && [ "$n" = "$2" ] && [ "$u" = "$2" ] && [ "$e" = 0 ]
  }
fi

if [ -z "${SKIP_C:-}" ]; then
  cases_c=${CASES_C:-2000}
  gen "$cases_c"
  echo "== (c) $cases_c cases on the local pool, concurrency 8, 50 ms latency, Postgres: no restart vs restarted twice mid-run"
  serve --latency 50ms
  freshdb
  t0=$(date +%s.%N)
  bin/vulnbench run --db "$dsn" --suite "$work/s$cases_c.jsonl" --subject llm --model openai:bench --base-url "$url" \
    --concurrency 8 --run-id c --no-score >/dev/null 2>"$work/err-c.txt" || { cat "$work/err-c.txt" >&2; exit 1; }
  anchor=$(echo "$(date +%s.%N) - $t0" | bc -l)
  check c "$cases_c" || { echo "(c) the anchor run is wrong" >&2; exit 1; }
  freshdb
  t0=$(date +%s.%N)
  bin/vulnbench run --db "$dsn" --suite "$work/s$cases_c.jsonl" --subject llm --model openai:bench --base-url "$url" \
    --concurrency 8 --run-id c --no-score >/dev/null 2>"$work/err-c.txt" &
  runpid=$!
  for at in $((cases_c / 3)) $((2 * cases_c / 3)); do
    until [ "$(stored c)" -ge "$at" ]; do
      kill -0 "$runpid" 2>/dev/null || break
      sleep 0.05
    done
    r0=$(date +%s.%N)
    as_pg "$pgbin/pg_ctl -D $pg/data -m fast -w restart" >/dev/null
    printf '    Postgres restarted at %s units stored: down %.2f s\n' "$at" "$(echo "$(date +%s.%N) - $r0" | bc -l)"
  done
  if ! wait "$runpid"; then
    echo "(c) FAILED: the run did not ride out the restarts:" >&2
    cat "$work/err-c.txt" >&2
    exit 1
  fi
  wall=$(echo "$(date +%s.%N) - $t0" | bc -l)
  stop
  if check c "$cases_c"; then verdict=ok; else verdict=FAILED; fi
  printf '(c) %s: restarted twice, the run finished in %.2f s against %.2f s without restarts (%.2fx), exactly one attempt per unit\n' \
    "$verdict" "$wall" "$anchor" "$(echo "$wall / $anchor" | bc -l)"
fi

if [ -z "${SKIP_D:-}" ]; then
  cases_d=${CASES_D:-2000}
  gen "$cases_d"
  echo "== (d) $cases_d cases, 3 River workers x 8, 50 ms latency, default --timeout; one worker SIGKILLed mid-run"
  serve --latency 50ms
  freshdb
  wpids=()
  for i in 1 2 3; do
    bin/vulnbench worker --db "$dsn" --concurrency 8 2>>"$work/workers-d.log" &
    wpids+=($!)
  done
  until [ "$(psql_ "SELECT COUNT(*) FROM workers" || echo 0)" -ge 3 ]; do sleep 0.05; done
  bin/vulnbench run --db "$dsn" --suite "$work/s$cases_d.jsonl" --subject llm --model openai:bench --base-url "$url" \
    --queue river --detach --run-id d --no-score >/dev/null 2>"$work/err-d.txt" || { cat "$work/err-d.txt" >&2; exit 1; }
  until [ "$(stored d)" -ge $((cases_d / 3)) ]; do sleep 0.05; done
  victim=${wpids[0]}
  held=$(psql_ "SELECT COUNT(*) FROM river_job WHERE state = 'running' AND attempted_by[array_length(attempted_by, 1)] LIKE '%-$victim-%'")
  kill -9 "$victim"
  k0=$(date +%s.%N)
  until [ "$(psql_ "SELECT state FROM runs WHERE id = 'd'")" = done ]; do
    if [ "$(echo "$(date +%s.%N) - $k0 > 120" | bc -l)" = 1 ]; then echo "(d) FAILED: the run is not done 120 s after the kill" >&2; exit 1; fi
    sleep 0.1
  done
  after=$(echo "$(date +%s.%N) - $k0" | bc -l)
  kill -TERM "${wpids[1]}" "${wpids[2]}" 2>/dev/null || true
  wait "${wpids[1]}" "${wpids[2]}" 2>/dev/null || true
  stop
  if check d "$cases_d" && [ "$(echo "$after <= 60" | bc -l)" = 1 ]; then verdict=ok; else verdict=FAILED; fi
  printf '(d) %s: worker killed holding %s units at %s stored; the run finished %.1f s after the kill (target <= 60 s), one attempt per unit\n' \
    "$verdict" "$held" "$((cases_d / 3))" "$after"
fi
echo "inputs and counts in $work"
