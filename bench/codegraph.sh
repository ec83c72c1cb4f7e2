#!/usr/bin/env bash
# Benchmarks vulnbench's code graph against the JitVul paper's tools on glibc (Debian's
# glibc-source, about a million lines of C), both sides in the same run:
#   - wall time, CPU time and peak RSS, medians of 3 rounds (ROUNDS=n for more) in which the
#     tools take turns: `vulnbench code index` (cold: empty cache) against `ctags -R --kinds-C=f`
#     plus `cflow --format=posix -AA -i _` over every .c file; ctags over exactly the files
#     vulnbench indexed, and cflow over its .c and .h files, are timed too. On a shared machine,
#     look at the CPU seconds as well: other load slows a program using every core more than
#     single-threaded ones;
#   - a warm question: `vulnbench code callers` on the saved index, and the in-process query
#     latency (go test -bench on the loaded index);
#   - coverage: definitions found against ctags' C function entries in .c files, and call edges
#     against cflow's on stdio-common, libio, string and malloc, with the differences classified
#     (bench/cgcompare).
# Usage: bench/codegraph.sh [WORKDIR]   (needs glibc-source, universal-ctags, cflow, time, bc)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
work=${1:-${TMPDIR:-/tmp}/vulnbench-codegraph-bench}
mkdir -p "$work" bin
for tool in ctags cflow /usr/bin/time bc; do
  command -v "$tool" >/dev/null || { echo "bench: needs $tool (apt-get install universal-ctags cflow time bc)" >&2; exit 1; }
done
tarball=$(ls /usr/src/glibc/glibc-*.tar.xz 2>/dev/null | head -1 || true)
[ -n "$tarball" ] || { echo "bench: no /usr/src/glibc/glibc-*.tar.xz (apt-get install glibc-source)" >&2; exit 1; }
tree=$work/$(basename "$tarball" .tar.xz)
if [ ! -d "$tree" ]; then
  echo "bench: unpacking $tarball into $work" >&2
  tar -C "$work" -xf "$tarball"
fi

go build -o bin/vulnbench ./cmd/vulnbench
go build -o bin/cgcompare ./bench/cgcompare
bin=$root/bin/vulnbench
if ! "$bin" code --help >/dev/null 2>&1; then
  echo "bench: bin/vulnbench has no 'code' command (add newCodeCmd(e) to internal/cli/root.go)" >&2
  exit 1
fi

# measure LABEL CMD...: runs CMD 3 times (BEFORE is evaluated before each), prints the median
# wall seconds and the peak RSS; the median goes to $work/last.txt.
measure() {
  local label=$1; shift
  local walls=() rss=0
  for i in 1 2 3; do
    [ -n "${BEFORE:-}" ] && eval "$BEFORE"
    /usr/bin/time -f '%e %M' -o "$work/time.txt" "$@" >"$work/out.txt" 2>"$work/err.txt" || { cat "$work/err.txt" >&2; exit 1; }
    read -r wall kb <"$work/time.txt"
    walls+=("$wall")
    [ "$kb" -gt "$rss" ] && rss=$kb
  done
  local med
  med=$(printf '%s\n' "${walls[@]}" | sort -g | sed -n 2p)
  printf '%-52s median %6.2f s   (runs: %s)   peak RSS %7.1f MiB\n' "$label" "$med" "${walls[*]}" "$(echo "$rss/1024" | bc -l)"
  echo "$med" >"$work/last.txt"
}

cd "$tree"
find . -name '*.c' -type f | sort >"$work/cfiles.txt"
echo "== glibc: $(basename "$tree"), $(wc -l <"$work/cfiles.txt") .c files, $(cat $(cat "$work/cfiles.txt") | wc -l) lines of .c"

echo "== full index (cold: empty cache) against ctags + cflow; the tools take turns, round by round"
"$root/bin/vulnbench" code index --repo . --cache "$work/cache" >/dev/null # warms the page cache
"$root/bin/cgcompare" -repo . -cache "$work/cache" -list-files >"$work/ourfiles.txt"
grep -E '\.[ch]$' "$work/ourfiles.txt" >"$work/chfiles.txt" || true
declare -A wall rss cpu
run() { # run NAME CMD...: one timed run; wall, CPU (user+sys) and peak RSS appended
  local name=$1; shift
  /usr/bin/time -f '%e %M %U %S' -o "$work/time.txt" "$@" >"$work/out-$name.txt" 2>"$work/err.txt" || { cat "$work/err.txt" >&2; exit 1; }
  read -r w kb u s <"$work/time.txt"
  wall[$name]+="$w "
  cpu[$name]+="$(echo "$u + $s" | bc -l) "
  [ "$kb" -gt "${rss[$name]:-0}" ] && rss[$name]=$kb
  return 0
}
median() { printf '%s\n' $1 | sort -g | sed -n "$(( ($(printf '%s\n' $1 | wc -l) + 1) / 2 ))p"; }
rounds=${ROUNDS:-3}
for i in $(seq "$rounds"); do
  rm -rf "$work/cache"
  run vulnbench "$bin" code index --repo . --cache "$work/cache"
  rm -f "$work/tags" "$work/tags2"
  run ctagsR ctags -R --kinds-C=f -o "$work/tags" .
  run ctagsL ctags --kinds-C=f -L "$work/ourfiles.txt" -o "$work/tags2"
  run cflow cflow --format=posix -AA -i _ $(cat "$work/cfiles.txt")
  run cflowH cflow --format=posix -AA -i _ $(cat "$work/chfiles.txt")
done
for name in vulnbench ctagsR ctagsL cflow cflowH; do
  case $name in
    vulnbench) label="vulnbench code index (.c .h .py, $(nproc) cores)" ;;
    ctagsR) label="ctags -R --kinds-C=f (the whole tree)" ;;
    ctagsL) label="ctags --kinds-C=f (the files vulnbench indexed)" ;;
    cflow) label="cflow --format=posix -AA -i _ (every .c file)" ;;
    cflowH) label="cflow (the .c and .h files vulnbench indexed)" ;;
  esac
  printf '%-52s median %6.2f s  CPU %6.2f s  peak RSS %6.1f MiB  (runs: %s)\n' "$label" "$(median "${wall[$name]}")" \
    "$(median "${cpu[$name]}")" "$(echo "${rss[$name]}/1024" | bc -l)" "${wall[$name]}"
done
grep -E '^(files|functions|call sites|skipped|seconds)' "$work/out-vulnbench.txt" | sed 's/^/    /'
ours=$(median "${wall[vulnbench]}"); ctagsR=$(median "${wall[ctagsR]}"); ctagsL=$(median "${wall[ctagsL]}"); cflowT=$(median "${wall[cflow]}"); cflowH=$(median "${wall[cflowH]}")
printf 'speed-up, wall: (ctags -R + cflow) / vulnbench = (%s + %s) / %s = %.2fx\n' "$ctagsR" "$cflowT" "$ours" "$(echo "($ctagsR + $cflowT) / $ours" | bc -l)"
printf 'speed-up, wall: (ctags on the same files + cflow) / vulnbench = (%s + %s) / %s = %.2fx\n' "$ctagsL" "$cflowT" "$ours" "$(echo "($ctagsL + $cflowT) / $ours" | bc -l)"
printf 'speed-up, wall: (ctags and cflow both on the same files) / vulnbench = (%s + %s) / %s = %.2fx\n' "$ctagsL" "$cflowH" "$ours" "$(echo "($ctagsL + $cflowH) / $ours" | bc -l)"
printf 'CPU seconds: vulnbench %s, ctags -R + cflow %s\n' "$(median "${cpu[vulnbench]}")" "$(echo "$(median "${cpu[ctagsR]}") + $(median "${cpu[cflow]}")" | bc -l)"

echo "== warm: a second question on the same snapshot (stat the files, load the index, answer)"
measure "vulnbench code callers _IO_new_file_fopen" "$bin" code callers --repo . --cache "$work/cache" _IO_new_file_fopen
measure "vulnbench code callees __libc_malloc" "$bin" code callees --repo . --cache "$work/cache" __libc_malloc
(cd "$root" && VULNBENCH_CODEGRAPH_REPO="$tree" VULNBENCH_CODEGRAPH_CACHE="$work/cache" \
  VULNBENCH_CODEGRAPH_NAMES=malloc,free,_IO_new_file_fopen,__libc_malloc,memcpy,strlen,_int_malloc,printf \
  go test -run '^$' -bench 'Callers|Callees|Definitions' -benchtime 20000x ./internal/codegraph &&
  VULNBENCH_CODEGRAPH_REPO="$tree" VULNBENCH_CODEGRAPH_CACHE="$work/cache" \
  go test -run '^$' -bench 'OpenWarm' -benchtime 10x ./internal/codegraph) | grep -E '^Benchmark' | sed 's/^/    /'

echo "== coverage against the oracles"
rm -f "$work/tags.json" # ctags refuses to overwrite a file that is not a tags file
ctags --output-format=json --kinds-C=f --fields=+ne -L "$work/cfiles.txt" -o "$work/tags.json" 2>/dev/null
find stdio-common libio string malloc -name '*.c' -type f | sort >"$work/subtree.txt"
cflow --format=posix -AA -i _ $(cat "$work/subtree.txt") >"$work/cflow-subtree.txt" 2>/dev/null
"$root/bin/cgcompare" -repo . -cache "$work/cache" -ctags "$work/tags.json" \
  -cflow "$work/cflow-subtree.txt" -subtrees stdio-common,libio,string,malloc -examples 3
echo "inputs and outputs in $work"
