#!/usr/bin/env bash
# Times vulnbench serve on a store of 1,000,000 verdicts (a random run and a constant:vul run
# of the same 1M-case suite): the first (cold) request of a run page and of a cases page, then
# 50 requests of each (cases pages cycle through pages, sorts, filters and flips), p50/p95;
# the anchors, in the same script: vulnbench score --run on the same store (what a cold run
# page must do at least) and GET /style.css (the server's floor). serve's peak RSS at the end,
# and the peak of its whole process tree (the server plus its scoring children), sampled every
# 50 ms throughout, split into anonymous and file-backed memory; then the peak once a second run
# page is scored while both case indexes are held. SCORING=child scores in child processes (the
# default, process, in the server itself).
# Usage: bench/serve.sh [WORKDIR]   (reuses WORKDIR's suite and store when they are there)
set -euo pipefail
cd "$(dirname "$0")/.."
work=${1:-$(mktemp -d)}
mkdir -p "$work" bin
go build -o bin/vulnbench ./cmd/vulnbench
go build -o bin/bench-gen ./bench/gen
bin=bin/vulnbench db="$work/serve1M.db"
[ -f "$work/s1M.jsonl" ] || bin/bench-gen --cases 1000000 --suite "$work/s1M.jsonl"
if [ ! -f "$db" ]; then
  echo "== building the store (two runs of 1,000,000 cases)" >&2
  $bin run --db "$db" --suite "$work/s1M.jsonl" --subject random --concurrency 2 --run-id big-random --no-score >/dev/null
  $bin run --db "$db" --suite "$work/s1M.jsonl" --subject constant:vul --concurrency 2 --run-id big-vul --no-score >/dev/null
fi

# median of the numbers on stdin
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
p95() { sort -g | awk '{a[NR]=$1} END {i=int(NR*0.95+0.999); if (i>NR) i=NR; print a[i]}'; }

echo "== anchor: vulnbench score --run big-random (1M verdicts from SQLite), 3 runs"
for i in 1 2 3; do /usr/bin/time -f '%e %M' -o "$work/t.txt" $bin score --db "$db" --run big-random --format json >/dev/null; cat "$work/t.txt"; done >"$work/score.txt"
score_med=$(cut -d' ' -f1 "$work/score.txt" | median)
score_rss=$(cut -d' ' -f2 "$work/score.txt" | sort -g | tail -1)
printf 'score --run: median %s s (runs: %s), peak RSS %.1f MiB (what serve'"'"'s scoring child holds once per run)\n' \
  "$score_med" "$(cut -d' ' -f1 "$work/score.txt" | tr '\n' ' ')" "$(echo "$score_rss/1024" | bc -l)"

log="$work/serve.log"
# The linker just wrote bin/vulnbench, and this kernel (ext4 with large folios) keeps a freshly
# written file in 2 MiB folios that it maps whole: serve would start with 80 MiB of its own
# executable resident instead of the 45 MiB an installed binary read from disk shows. Drop the
# file's cached pages so serve runs as an installed binary does.
dd if=$bin iflag=nocache count=0 status=none
$bin serve --db "$db" --addr 127.0.0.1:0 --scoring "${SCORING:-process}" >"$log" 2>&1 &
pid=$!
# sample: the summed VmRSS (KiB) of serve and its children, and serve's own anonymous and
# file-backed resident KiB, now
sample() {
  local sum=0 p r
  for p in $pid $(cat /proc/$pid/task/*/children 2>/dev/null); do
    r=$(awk '/VmRSS/ {print $2}' /proc/$p/status 2>/dev/null || true)
    sum=$((sum + ${r:-0}))
  done
  echo "$sum $(awk '/RssAnon/ {a=$2} /RssFile/ {f=$2} END {print a+0, f+0}' /proc/$pid/status 2>/dev/null)"
}
: >"$work/tree.txt"
( while kill -0 $pid 2>/dev/null; do sample >>"$work/tree.txt"; sleep 0.05; done ) &
sampler=$!
trap 'kill $pid $sampler 2>/dev/null || true' EXIT
for _ in $(seq 100); do grep -q 'http://' "$log" && break; sleep 0.1; done
base=$(grep -o 'http://[0-9.:]*' "$log" | head -1)
[ -n "$base" ] || { cat "$log" >&2; exit 1; }

# get PATH: prints the seconds one GET takes; fails on a status other than 200.
get() {
  local out
  out=$(curl -s -o /dev/null -w '%{http_code} %{time_total}' "$base$1")
  [ "${out%% *}" = 200 ] || { echo "GET $1: ${out%% *}" >&2; exit 1; }
  echo "${out#* }"
}

echo "== first requests (cold: scoring, case index)"
cold=$(get /runs/big-random)
printf '%-40s %8.2f s   (%.2f x score --run)\n' "run page big-random (scores 1M)" "$cold" "$(echo "$cold/$score_med" | bc -l)"
printf '%-40s %8.2f s\n' "cases page big-random (indexes 1M)" "$(get /runs/big-random/cases)"
printf '%-40s %8.2f s\n' "cases flipped against big-vul" "$(get '/runs/big-random/cases?flip=big-vul')"

echo "== 50 requests each (warm)"
: >"$work/run.txt"; : >"$work/cases.txt"; : >"$work/css.txt"
queries=("" "page=2" "page=9000" "label=vul" "outcome=fp&page=3" "cwe=CWE-787" "status=ok&sort=id&desc=1" "sort=outcome&page=500" "flip=big-vul" "label=ben&flip=big-vul&page=7")
for i in $(seq 0 49); do
  get /runs/big-random >>"$work/run.txt"
  get "/runs/big-random/cases?${queries[$((i % ${#queries[@]}))]}" >>"$work/cases.txt"
  get /style.css >>"$work/css.txt"
done
css95=$(p95 <"$work/css.txt")
for f in run cases css; do
  m=$(median <"$work/$f.txt") p=$(p95 <"$work/$f.txt")
  printf '%-12s p50 %7.1f ms   p95 %7.1f ms   p95 / style.css p95 %6.1f\n' "$f" "$(echo "$m*1000" | bc -l)" "$(echo "$p*1000" | bc -l)" "$(echo "$p/$css95" | bc -l)"
done
# memory: VmHWM (serve's peak RSS), and from the samples the tree's peak and serve's peak
# anonymous and file-backed RSS
mem() {
  local hwm tree anon file
  hwm=$(awk '/VmHWM/ {print $2}' /proc/$pid/status)
  tree=$(cut -d' ' -f1 "$work/tree.txt" | sort -g | tail -1)
  anon=$(cut -d' ' -f2 "$work/tree.txt" | sort -g | tail -1)
  file=$(cut -d' ' -f3 "$work/tree.txt" | sort -g | tail -1)
  printf 'serve memory (--scoring %s) %s: peak RSS %.1f MiB (anonymous %.1f, its executable and other files %.1f); process tree peak %.1f MiB\n' \
    "${SCORING:-process}" "$1" "$(echo "$hwm/1024" | bc -l)" "$(echo "${anon:-0}/1024" | bc -l)" "$(echo "${file:-0}/1024" | bc -l)" "$(echo "${tree:-0}/1024" | bc -l)"
}
mem "after the requests above"
echo "== a second run page scored while the two case indexes are held"
printf '%-40s %8.2f s\n' "run page big-vul (scores 1M)" "$(get /runs/big-vul)"
mem "after it too"
echo "inputs in $work"
