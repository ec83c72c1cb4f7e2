#!/usr/bin/env bash
# Runs the baselines, flawfinder and cppcheck on the demo suite and prints their scores side by side; then
# builds AppSecBench (seed 42), selects its C cases and does the same on them; last, writes the HTML
# report of each suite's runs and prints its path.
set -euo pipefail
bin=${1:-bin/vulnbench} suite=${2:-suites/demo/demo.jsonl} db=${3:-.demo/vulnbench.db}
dir=$(dirname "$db")
mkdir -p "$dir"
rm -f "$db" "$db-wal" "$db-shm"
stamp=$(date +%s)

# score_suite NAME SUITE: run every subject on SUITE and print the score table; the runs' flags
# are kept in reports[NAME] for the HTML report.
declare -A reports
score_suite() {
  local name=$1 suite=$2 runs=() subject id
  "$bin" suite validate "$suite"
  for subject in random constant:vul constant:ben flawfinder cppcheck; do
    id="$name-${subject%%:*}${subject#*:}"
    [ "$subject" = "${subject%%:*}" ] && id="$name-$subject"
    id="$id-$stamp"
    echo "== $subject" >&2
    "$bin" run --db "$db" --suite "$suite" --subject "$subject" --run-id "$id" --no-score >/dev/null
    runs+=(--run "$id")
  done
  echo
  "$bin" score --db "$db" --suite "$suite" "${runs[@]}"
  reports[$name]="${runs[*]}"
}

score_suite demo "$suite"

echo
echo "== AppSecBench (seed 42), C cases"
"$bin" suite build appsec --seed 42 --out "$dir/appsec"
"$bin" suite select --in "$dir/appsec/suite.jsonl" --out "$dir/appsec-c.jsonl" --language c
score_suite appsec-c "$dir/appsec-c.jsonl"

echo
echo "== HTML reports (open them in a browser; vulnbench serve --db $db browses the cases and traces)"
for name in demo appsec-c; do
  # shellcheck disable=SC2086 # the run flags, split on purpose
  "$bin" report --db "$db" ${reports[$name]} --html "$dir/report-$name"
done
