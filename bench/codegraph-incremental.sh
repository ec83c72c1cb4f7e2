#!/usr/bin/env bash
# Benchmarks the incremental code graph: a snapshot indexed from the index of a sibling commit
# (codegraph.Options.Base: unchanged file contents are not parsed again) against a cold index
# of the same snapshot, in the same process (BenchmarkIncremental of internal/codegraph, each
# index with an empty cache of its own), ROUNDS rounds of cold then incremental. Prints how many
# indexed files and bytes changed between the commits, the median of each and their ratio
# (target: under 20 % of cold with under 5 % of the files changed), and how many bytes the
# incremental index parsed (edited files are parsed only where they changed) against the bytes
# of the changed files. Every round checks that the incremental index equals the cold one
# (BenchmarkIncremental fails otherwise, and so does this script).
# Usage: bench/codegraph-incremental.sh REPO [BASE_COMMIT [COMMIT [WORKDIR]]]
#   REPO is a git repository (a clone of a public project, e.g. git clone of curl under
#   /work/trials: never commit it); BASE_COMMIT defaults to COMMIT~20, COMMIT to HEAD.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { echo "usage: $0 REPO [BASE_COMMIT [COMMIT [WORKDIR]]]" >&2; exit 2; }
repo=$1
commit=$(git -C "$repo" rev-parse "${3:-HEAD}")
base=$(git -C "$repo" rev-parse "${2:-$commit~20}")
work=${4:-${TMPDIR:-/tmp}/vulnbench-codegraph-incremental}
rounds=${ROUNDS:-5}
rm -rf "$work"
mkdir -p "$work/base" "$work/head"
git -C "$repo" archive "$base" | tar -C "$work/base" -xf -
git -C "$repo" archive "$commit" | tar -C "$work/head" -xf -
ext='\.(c|h|cc|cpp|cxx|c\+\+|hpp|hh|hxx|java|py|pyw|go|js|mjs|cjs|jsx)$'
total=$(git -C "$repo" ls-tree -r --name-only "$commit" | grep -ciE "$ext" || true)
changed=$(git -C "$repo" diff --name-only "$base" "$commit" | grep -ciE "$ext" || true)
bytes=$(cd "$work/head" && git -C "$repo" diff --name-only "$base" "$commit" | grep -iE "$ext" | while read -r f; do [ -f "$f" ] && stat -c %s "$f"; done | awk '{s+=$1} END {print s+0}')
allbytes=$(cd "$work/head" && git -C "$repo" ls-tree -r --name-only "$commit" | grep -iE "$ext" | while read -r f; do [ -f "$f" ] && stat -c %s "$f"; done | awk '{s+=$1} END {print s+0}')
echo "== $(basename "$repo"): ${base:0:10} -> ${commit:0:10}: $changed of $total source files changed ($(echo "scale=1; 100 * $changed / $total" | bc -l) %), $bytes of $allbytes bytes ($(echo "scale=1; 100 * $bytes / $allbytes" | bc -l) %)"
go test -c -o "$work/codegraph.test" ./internal/codegraph
: >"$work/bench.txt"
for i in $(seq "$rounds"); do
  VULNBENCH_CODEGRAPH_BASE="$work/base" VULNBENCH_CODEGRAPH_REPO="$work/head" \
    "$work/codegraph.test" -test.run '^$' -test.bench '^BenchmarkIncremental$' -test.benchtime 3x | tee -a "$work/bench.txt" | grep -E '^Benchmark'
done
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
cold=$(awk '$1 ~ /Incremental\/cold/ {print $3}' "$work/bench.txt" | median)
inc=$(awk '$1 ~ /Incremental\/incremental/ {print $3}' "$work/bench.txt" | median)
printf 'median of %d rounds: cold %.1f ms, incremental %.1f ms: incremental / cold = %.1f %%  (cold / incremental = %.2fx)\n' \
  "$rounds" "$(echo "$cold / 1000000" | bc -l)" "$(echo "$inc / 1000000" | bc -l)" "$(echo "100 * $inc / $cold" | bc -l)" "$(echo "$cold / $inc" | bc -l)"
metric() { awk -v m="$1" '$1 ~ /Incremental\/incremental/ {for (i = 2; i < NF; i++) if ($(i+1) == m) print $i}' "$work/bench.txt" | median; }
parsed=$(metric parsed-bytes)
[ "$bytes" -gt 0 ] || bytes=1 # no file changed: the ratio below is then of nothing
printf 'incremental parsed %.0f bytes: %.1f %% of the %d bytes of the changed files, %.1f %% of all %d; %.0f contents parsed (%.0f in part), %.0f reused; equal to the cold index in every round\n' \
  "$parsed" "$(echo "100 * $parsed / $bytes" | bc -l)" "$bytes" "$(echo "100 * $parsed / $allbytes" | bc -l)" "$allbytes" "$(metric parsed)" "$(metric part-parsed)" "$(metric reused)"
