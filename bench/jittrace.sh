#!/usr/bin/env bash
# Traces 200 fix records on a generated repository of 2,000 commits (git fast-import, built by the
# benchmark itself in a temporary directory): `suite jit` batch mode through jitvul.Session.Batch,
# each walk going back 500 commits. Prints the time for the 200 records and records/s; the issue's
# target is under 10 s. Usage: bench/jittrace.sh [ROUNDS]   (default 3)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
out=$(go test -run '^$' -bench '^BenchmarkTrace200$' -benchtime 1x -count "$rounds" ./internal/suite/jitvul/)
echo "$out" | grep '^BenchmarkTrace200' | awk '{printf "jittrace: 200 records in %.2f s, %s records/s\n", $3/1e9, $5}'
