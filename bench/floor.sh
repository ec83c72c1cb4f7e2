#!/usr/bin/env bash
# Times a plain-LLM run of vulnbench against the floor: Go's bare HTTP client (bench/bareclient)
# sending the same requests to the same fake OpenAI server (bench/llmserver, 0 ms latency), both
# 16 at once, in the same script:
#   1. a first vulnbench run records the $N request bodies the server received (--record);
#   2. $ROUNDS rounds (default 5), alternating which goes first: vulnbench on a fresh SQLite store
#      (run --no-score, the whole process: start, the suite stored, every attempt committed) and
#      bareclient replaying the recorded bodies (the whole process too);
#   3. medians of the wall times and of the CPU seconds (user + system) of each process, and
#      their ratios (target: vulnbench within 4x of the bare client's wall).
# Usage: bench/floor.sh [WORKDIR]      env: N=CASES (2000) ROUNDS=R (5)   (needs GNU time, bc)
set -euo pipefail
cd "$(dirname "$0")/.."
work=${1:-$(mktemp -d)}
n=${N:-2000}
rounds=${ROUNDS:-5}
mkdir -p "$work" bin
go build -o bin/vulnbench ./cmd/vulnbench
go build -o bin/bench-gen ./bench/gen
go build -o bin/llmserver ./bench/llmserver
go build -o bin/bareclient ./bench/bareclient
export OPENAI_API_KEY=bench-key

serve() { # serve [FLAGS...]: starts the fake server at 0 ms, sets $url; stop it with stop
  coproc SRV { bin/llmserver --latency 0ms "$@" 2>/dev/null; }
  read -r url <&"${SRV[0]}"
}
stop() {
  eval "exec ${SRV[1]}>&-" # its input closes: it writes what it recorded and exits
  wait "$SRV_PID" 2>/dev/null || true
}
median() { sort -g | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }

# timed NAME CMD...: runs CMD under GNU time; appends its wall and CPU seconds to NAME.{wall,cpu}.
timed() {
  local name=$1
  shift
  /usr/bin/time -f '%e %U %S' -o "$work/time.txt" "$@" >/dev/null 2>"$work/err.txt" || { cat "$work/err.txt" >&2; exit 1; }
  awk '{print $1}' "$work/time.txt" >>"$work/$name.wall"
  awk '{printf "%.3f\n", $2 + $3}' "$work/time.txt" >>"$work/$name.cpu"
}
vulnbench() {
  rm -f "$work/floor.db"*
  timed "$1" bin/vulnbench run --db "$work/floor.db" --suite "$work/s$n.jsonl" --subject llm --model openai:bench \
    --base-url "$url" --concurrency 16 --run-id b --no-score
}
bare() { timed bare bin/bareclient --base-url "$url" --requests "$work/requests.jsonl" --concurrency 16; }

[ -f "$work/s$n.jsonl" ] || bin/bench-gen --cases "$n" --suite "$work/s$n.jsonl"
echo "== recording the $n requests of a vulnbench run"
serve --record "$work/requests.jsonl"
vulnbench warmup
stop
got=$(wc -l <"$work/requests.jsonl")
[ "$got" -eq "$n" ] || { echo "recorded $got requests, want $n" >&2; exit 1; }

echo "== $rounds rounds, alternating, $n cases, 0 ms latency, 16 at once; load $(cut -d' ' -f1-3 /proc/loadavg)"
rm -f "$work"/{vb,bare}.{wall,cpu}
serve
for r in $(seq "$rounds"); do
  if ((r % 2)); then vulnbench vb; bare; else bare; vulnbench vb; fi
  printf 'round %d: vulnbench %s s (%s CPU s)   bare client %s s (%s CPU s)   load %s\n' "$r" "$(tail -1 "$work/vb.wall")" \
    "$(tail -1 "$work/vb.cpu")" "$(tail -1 "$work/bare.wall")" "$(tail -1 "$work/bare.cpu")" "$(cut -d' ' -f1 /proc/loadavg)"
done
stop
vw=$(median <"$work/vb.wall")
bw=$(median <"$work/bare.wall")
vc=$(median <"$work/vb.cpu")
bc_=$(median <"$work/bare.cpu")
printf 'median wall: vulnbench %.3f s, bare client %.3f s  ->  %.2fx (target <= 4x)\n' "$vw" "$bw" "$(echo "$vw / $bw" | bc -l)"
printf 'median CPU:  vulnbench %.3f s, bare client %.3f s  ->  %.2fx (%.0f us a case against %.0f us a request)\n' "$vc" "$bc_" \
  "$(echo "$vc / $bc_" | bc -l)" "$(echo "$vc * 1000000 / $n" | bc -l)" "$(echo "$bc_ * 1000000 / $n" | bc -l)"
echo "load $(cut -d' ' -f1-3 /proc/loadavg); inputs in $work"
