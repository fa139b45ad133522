#!/usr/bin/env bash
# bench-ranks.sh — many rank traces: what the merge and its clock check cost.
#   scripts/bench-ranks.sh [RANKS...]     (default: 64 256 1024)   RUNS=3 (median)
# For each count it generates a Kineto job of that many ranks, 8 per host, whose
# hosts' clocks are off (tests/bench/gen_ranks.py, cached in build/bench/), and
# merges it with the native CLI (--threads 2) and the wasm CLI in Node (one
# helper), runs taking turns. Columns: the whole merge (wall time: reading,
# writing the output file included), the read+parse phase, the clock check (and
# its share of the merge), what else is planned between the last source parsed
# and the first byte written, the plan's share (clock check included) of the
# phases, and the writing; the wasm merge and its clock check.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x build/native/tracemerge ] && [ -f build/wasm/tracemerge-cli.mjs ] || bash scripts/build.sh
RUNS=${RUNS:-3}
counts=("$@"); [ ${#counts[@]} -gt 0 ] || counts=(64 256 1024)

median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
calc() { awk "BEGIN { print $* }"; }
out=build/bench/ranks-out.json
# One timed run: wall seconds, then the phases the CLI prints with TRACEMERGE_STATS=1.
run() {
  local t0 t1 stats
  rm -f "$out"; sync
  t0=$(date +%s.%N)
  stats=$(TRACEMERGE_STATS=1 "$@" -o "$out" --quiet 2>&1 >/dev/null | awk '/phase-seconds/ {print $3, $5, $7, $9}')
  t1=$(date +%s.%N)
  echo "$(calc "$t1 - $t0") $stats"
}

echo "| ranks (hosts) | files | MB | merge native s | read+parse s | clock check s (share) | rest of plan s | plan share | write s | merge wasm s | wasm clock check s (share) |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
for n in "${counts[@]}"; do
  job=build/bench/ranks$n
  hosts=$(( (n + 7) / 8 ))
  [ -d "$job" ] || python3 tests/bench/gen_ranks.py "$job" --hosts "$hosts" --ranks-per-host 8 \
    --offsets-us 0,350,-5800,120,900 --seed 7 >/dev/null
  files=$(find "$job" -type f | wc -l)
  mb=$(du -sb "$job" | awk '{printf "%.1f", $1 / 1e6}')
  rows=$(for _ in $(seq "$RUNS"); do
    echo "$(run build/native/tracemerge "$job" --threads 2) $(run node build/wasm/tracemerge-cli.mjs "$job" --threads 2)"
  done)
  col() { awk -v c="$1" '{print $c}' <<<"$rows" | median; }
  # columns: native wall, read+parse, plan, write, clock; wasm wall, read+parse, plan, write, clock
  wall=$(col 1); clock=$(col 5); wwall=$(col 6); wclock=$(col 10)
  share=$(awk '{print 100 * $3 / ($2 + $3 + $4)}' <<<"$rows" | median)
  printf '| %d (%d) | %d | %s | %.3f | %.3f | %.3f (%.1f%%) | %.3f | %.0f%% | %.3f | %.3f | %.3f (%.1f%%) |\n' \
    "$n" "$hosts" "$files" "$mb" "$wall" "$(col 2)" "$clock" "$(calc "100 * $clock / $wall")" \
    "$(calc "$(col 3) - $clock")" "$share" "$(col 4)" "$wwall" "$wclock" "$(calc "100 * $wclock / $wwall")"
done
echo
echo "machine: $(nproc) cores, $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo)"
