#!/usr/bin/env bash
# Times 'vulnbench suite curate' on synthetic raw data at PrimeVul's scale (235,000 functions,
# about 600 MB of JSONL): throughput in MB/s and peak RSS, median of RUNS runs.
# Usage: bench/curate.sh [N_FUNCTIONS] ; env: RUNS=3 WORK=/tmp/vulnbench-curate GOMAXPROCS=2
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-235000}
RUNS=${RUNS:-3}
WORK=${WORK:-/tmp/vulnbench-curate}
export GOMAXPROCS=${GOMAXPROCS:-2}
mkdir -p "$WORK"
go build -o "$WORK/vulnbench" ./cmd/vulnbench
if [ ! -s "$WORK/raw-$N.jsonl" ]; then
	go run ./bench/gencurate -n "$N" -out "$WORK/raw-$N.jsonl"
fi
size=$(stat -c %s "$WORK/raw-$N.jsonl")
secs=() ; rss=()
for i in $(seq "$RUNS"); do
	rm -rf "$WORK/out"
	/usr/bin/time -f '%e %M' -o "$WORK/time" "$WORK/vulnbench" suite curate --in "$WORK/raw-$N.jsonl" --out "$WORK/out" --quiet >"$WORK/summary.txt"
	read -r s m <"$WORK/time"
	secs+=("$s") ; rss+=("$m")
	echo "run $i: ${s}s, peak RSS $((m / 1024)) MB"
done
med() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
s=$(med "${secs[@]}") ; m=$(med "${rss[@]}")
awk -v b="$size" -v s="$s" -v m="$m" -v p="$GOMAXPROCS" 'BEGIN {
	printf "curate: %.1f MB in %.2fs (median) = %.1f MB/s on %d cores, peak RSS %.0f MB\n", b/1e6, s, b/1e6/s, p, m/1024 }'
cat "$WORK/summary.txt"
