#!/usr/bin/env bash
# Breaks vulnbench's binary down by module and package (bench/binsize: every symbol's bytes given
# to its package and module; the rest is the pc-line tables, type links and the symbol and debug
# tables), prints the size `make build` ships (symbol table and DWARF left out: -s -w), and with
# a git revision, builds that revision the same way in a temporary worktree and prints each
# module's change against it and the ratio of the two sizes (the anchor, measured in the same
# run).
# Usage: bench/binsize.sh [BASE_REVISION] [TOP]     e.g. bench/binsize.sh main 30
set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:-}
top=${2:-25}
work=$(mktemp -d)
trap 'git worktree remove --force "$work/base" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT

# build DIR OUT [LDFLAGS]: the binary of the tree at DIR, as make build builds it.
build() {
  (cd "$1" && go build -buildvcs=true -ldflags="${3:-}" -o "$2" ./cmd/vulnbench)
}

build . "$work/vulnbench"
build . "$work/vulnbench-shipped" "-s -w"
args=("$work/vulnbench")
if [ -n "$base" ]; then
  git worktree add --detach "$work/base" "$base" >/dev/null
  build "$work/base" "$work/vulnbench-base"
  build "$work/base" "$work/vulnbench-base-shipped" "-s -w"
  args+=("$work/vulnbench-base")
fi
go run ./bench/binsize -top "$top" "${args[@]}"
size() { stat -c %s "$1"; }
printf '\nshipped (make build: -s -w): %.2f MB' "$(echo "$(size "$work/vulnbench-shipped")/1000000" | bc -l)"
if [ -n "$base" ]; then
  printf '; %s shipped: %.2f MB; ratio %.3f' "$base" "$(echo "$(size "$work/vulnbench-base-shipped")/1000000" | bc -l)" \
    "$(echo "$(size "$work/vulnbench-shipped")/$(size "$work/vulnbench-base-shipped")" | bc -l)"
fi
echo
