#!/usr/bin/env bash
# bench.sh — performance of tracemerge against the parse-only ceiling, side by side.
#   scripts/bench.sh [SIZE_MB...]     (default: 50 200)   RUNS=3 (median)
# For each size it generates a synthetic profiler-output job (tests/bench/gen_job.py,
# cached in build/bench/) and measures, on the same files:
#   ceiling: inflate + simdjson On-Demand scan of every event (native, and wasm in Node)
#   keep:    the same, but every value validated and a compact copy of every event kept
#            (ceiling.cc --keep): the least a merge does before it sorts and writes
#   merge:   the native CLI and the wasm CLI in Node (wall time, MB/s of uncompressed input)
#   memory:  native peak RSS (/usr/bin/time -v), wasm heaps' high-water mark (with the
#            helper instance's, while it runs), and the
#            Node process's peak RSS (heap + JS + Node itself); as × input
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x build/native/tracemerge ] && [ -f build/wasm/tracemerge-cli.mjs ] || bash scripts/build.sh
RUNS=${RUNS:-3}
sizes=("$@"); [ ${#sizes[@]} -gt 0 ] || sizes=(50 200)

median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
calc() { awk "BEGIN { print $* }"; }
# Each timed run starts with the previous output written back and removed (sync
# and rm, not timed): the kernel's writeback of the last run, or freeing its
# 200 MB file, must not land in this one. (Writing over a file of the same name
# costs that file's removal, ~0.06 s per 200 MB here.)
secs() { local t0 t1; rm -f build/bench/out.json; sync; t0=$(date +%s.%N); "$@" >/dev/null 2>&1; t1=$(date +%s.%N); calc "$t1 - $t0"; }
peak_kb() { /usr/bin/time -v "$@" 2>&1 >/dev/null | awk -F': ' '/Maximum resident/ {print $2}'; }

printf '| input MB | ceiling native s | keep native s | merge native s (MB/s, × ceiling, × keep) | native peak RSS × input | ceiling wasm s | keep wasm s | merge wasm s (MB/s, × ceiling, × keep) | wasm heap × input | Node RSS × input |\n'
printf '|---|---|---|---|---|---|---|---|---|---|\n'
for size in "${sizes[@]}"; do
  job=build/bench/job$size
  [ -d "$job" ] || python3 tests/bench/gen_job.py "$job" "$size" >/dev/null
  mapfile -t files < <(find "$job" -type f ! -name '*.metadata' | sort)
  bytes=$(build/native/tracemerge_ceiling "${files[@]}" | cut -d' ' -f1)
  mb=$(calc "$bytes / 1000000")
  out=build/bench/out.json

  # The six timings take turns, run after run: this VM's speed drifts over
  # minutes, and a ratio should compare runs made under the same conditions.
  times=$(for _ in $(seq "$RUNS"); do
    echo "$(build/native/tracemerge_ceiling "${files[@]}" | cut -d' ' -f3) \
$(build/native/tracemerge_ceiling --keep "${files[@]}" | cut -d' ' -f3) \
$(secs build/native/tracemerge "$job" -o "$out" --quiet) \
$(node build/wasm/tracemerge-ceiling.cjs "${files[@]}" | cut -d' ' -f3) \
$(node build/wasm/tracemerge-ceiling.cjs --keep "${files[@]}" | cut -d' ' -f3) \
$(secs node build/wasm/tracemerge-cli.mjs "$job" -o "$out" --quiet)"
  done)
  column() { awk -v c="$1" '{print $c}' <<<"$times" | median; }
  c_nat=$(column 1); k_nat=$(column 2); m_nat=$(column 3)
  c_wasm=$(column 4); k_wasm=$(column 5); m_wasm=$(column 6)
  rss=$(peak_kb build/native/tracemerge "$job" -o "$out" --quiet)
  stats=$(TRACEMERGE_STATS=1 /usr/bin/time -v node build/wasm/tracemerge-cli.mjs "$job" -o "$out" --quiet 2>&1)
  heap=$(awk '/wasm-heap-bytes/ {print $2}' <<<"$stats")
  node_rss=$(awk -F': ' '/Maximum resident/ {print $2}' <<<"$stats")
  cmp -s <(build/native/tracemerge "$job" -o - --quiet) <(node build/wasm/tracemerge-cli.mjs "$job" -o - --quiet) \
    || echo "warning: native and wasm outputs differ for $job" >&2

  printf '| %.0f | %.3f | %.3f | %.3f (%.0f, %.1f×, %.1f×) | %.2f× | %.3f | %.3f | %.3f (%.0f, %.1f×, %.1f×) | %.2f× | %.2f× |\n' \
    "$mb" "$c_nat" "$k_nat" "$m_nat" "$(calc "$mb / $m_nat")" "$(calc "$m_nat / $c_nat")" "$(calc "$m_nat / $k_nat")" \
    "$(calc "$rss * 1024 / $bytes")" \
    "$c_wasm" "$k_wasm" "$m_wasm" "$(calc "$mb / $m_wasm")" "$(calc "$m_wasm / $c_wasm")" "$(calc "$m_wasm / $k_wasm")" \
    "$(calc "$heap / $bytes")" "$(calc "$node_rss * 1024 / $bytes")"
done
echo
echo "machine: $(nproc) cores, $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo); merge times include reading the files, the ceiling's do not"
