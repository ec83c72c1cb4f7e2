#!/usr/bin/env bash
# Runs the baselines and flawfinder on the demo suite and prints their scores side by side.
set -euo pipefail
bin=${1:-bin/vulnbench} suite=${2:-suites/demo/demo.jsonl} db=${3:-.demo/vulnbench.db}
mkdir -p "$(dirname "$db")"
rm -f "$db" "$db-wal" "$db-shm"
"$bin" suite validate "$suite"
stamp=$(date +%s)
runs=()
for subject in random constant:vul constant:ben flawfinder; do
  id="demo-${subject%%:*}${subject#*:}"
  [ "$subject" = "${subject%%:*}" ] && id="demo-$subject"
  id="$id-$stamp"
  echo "== $subject" >&2
  "$bin" run --db "$db" --suite "$suite" --subject "$subject" --run-id "$id" --no-score >/dev/null
  runs+=(--run "$id")
done
echo
"$bin" score --db "$db" --suite "$suite" "${runs[@]}"
