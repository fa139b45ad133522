#!/usr/bin/env bash
# bench-big.sh — a job larger than the 4 GB wasm heap, merged by the wasm build under Node.
#   scripts/bench-big.sh [--page] [SIZE_MB] [DIR]     (default: 4700 MB in build/bench/big)
# Generates the job (tests/bench/gen_job.py, 16 nodes; kept for reruns), merges it with
# `node build/wasm/tracemerge-cli.mjs` (default --memory-mb 512: templates beyond the
# budget live outside the heap), checks that the output is complete and valid JSON in
# structure (every event written, report at the end), and prints time, wasm heap high-water
# mark and the Node process's peak RSS. With --page, the page (build/web) then merges the
# same folder in headless Chromium (tests/bench/big_page.mjs) and the download is checked.
set -euo pipefail
cd "$(dirname "$0")/.."
page=0
[ "${1:-}" = --page ] && { page=1; shift; }
size=${1:-4700}
dir=${2:-build/bench/big}
[ -f build/wasm/tracemerge-cli.mjs ] || bash scripts/build.sh
job=$dir/job$size
[ -d "$job" ] || python3 tests/bench/gen_job.py "$job" "$size" --nodes 16
out=$dir/out.json
log=$dir/merge.log
t0=$(date +%s.%N)
TRACEMERGE_STATS=1 /usr/bin/time -v node build/wasm/tracemerge-cli.mjs "$job" -o "$out" --report "$dir/report.json" >"$log" 2>&1
t1=$(date +%s.%N)
bytes=$(python3 -c "import json; r=json.load(open('$dir/report.json')); print(sum(s['inflated_bytes'] for s in r['sources']), r['events'])")
read -r inflated events <<<"$bytes"
heap=$(awk '/wasm-heap-bytes/ {print $2}' "$log")
rss=$(awk -F': ' '/Maximum resident/ {print $2}' "$log")
tail -c 200 "$out" | grep -q '"warnings":\[' || { echo "output does not end with the report" >&2; exit 1; }
awk -v i="$inflated" -v e="$events" -v s="$(awk "BEGIN {print $t1 - $t0}")" -v h="$heap" -v r="$rss" 'BEGIN {
  printf "input %.0f MB uncompressed (%.2f GiB), %d events written\n", i / 1e6, i / 2^30, e
  printf "wasm merge under Node: %.0f s (%.0f MB/s)\n", s, i / 1e6 / s
  printf "wasm heap high-water: %.2f GiB (%.2f x input); Node peak RSS %.2f GiB\n", h / 2^30, h / i, r * 1024 / 2^30
}'
[ "$page" = 1 ] && node tests/bench/big_page.mjs "$job" "$dir/page-out.json"
exit 0
