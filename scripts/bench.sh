#!/usr/bin/env bash
# bench.sh — the merge against simdjson's DOM parser on the same files, side by side.
#   scripts/bench.sh [SIZE_MB...]     (default: 50 200 dense160)   RUNS=3 (median)   THREADS="1 2"
# For each size it generates a synthetic profiler-output job (tests/bench/gen_job.py,
# cached in build/bench/; "denseN": its --dense job of N MB, smdebug's sources only, ~80
# bytes an event) and measures, on the same files (system metrics included):
#   dom:     inflate + simdjson's dom::parser::parse of every file — structure, strings,
#            numbers and UTF-8 validated, one thread (tests/bench/ceiling.cc --dom), with
#            the heap on huge pages as the CLI has it (page faults cost ~8 µs on this VM);
#            natively and in wasm under Node (simdjson's fallback kernel)
#   held:    the same, each file's document kept to the end (a parser per file): reading
#            the whole job and holding it, as a merge that orders events across files must
#   + write: writing the merged output's bytes to a new file (cp of the merge's output,
#            page cache as for the merge): what a merge must do beyond a DOM. The merges'
#            ratios are × (DOM + write), natively and in wasm (the same write)
#   merge:   the native CLI with --threads 1 and 2 (THREADS), and the wasm CLI in Node
#            with 0 and 1 helper instances (--threads 1 and 2): wall time, file reading and
#            writing the output included; "parse" is the read+parse phase alone, for
#            the 1 → 2 threads speed-up; "plan" the share of the merge (native, the last
#            thread count) between the last source parsed and the first byte written
#   memory:  native peak RSS (/usr/bin/time -v) and the wasm heaps' high-water mark (the
#            merging instance's plus, while they run, the helpers'), × the input
#   touch:   what first writing that much memory fresh from the system costs here
#            (ceiling.cc --touch 256, natively with huge pages as the CLI and in wasm
#            under Node, scaled to the RSS and the heaps): a merge must hold its events
#            until it has ordered them, a DOM holds one file at a time
#   scripts/bench.sh --bomb: the native CLI's peak memory and time on decompression bombs
#            (tests/bench/gen_bomb.py: 20 GB of spaces, 6 GB of events) with the default
#            memory budget (three quarters of this machine's memory) and with --memory-mb 512
#   scripts/bench.sh --many-files [N]: the page (build/web, headless Chromium) with N one-event
#            files (default 20000, kept in build/bench/; about 2 minutes) chosen on its file input
#            — its file table, scan and merge times and its longest task — beside the Node CLI's
#            merge of the same files (tests/bench/many_page.mjs; the download must be its bytes)
#   scripts/bench.sh --xplane: an XSpace job (tests/bench/gen_xplane.py: 4 hosts × 8 GPUs, 200
#            steps, kept in build/bench/) against the same events as one JSON trace (the
#            merge of it): wall time and ns per event, native (--threads 1 and 2) and wasm,
#            and peak memory against the input and against the largest plane's bytes; then
#            one host's 69 MB XSpace under --memory-mb 64 (over the file limit it sets: read a
#            plane at a time): events kept, RSS
# The timings take turns run after run: this VM's speed drifts over minutes, and each
# ratio compares runs made under the same conditions (the thread counts in both orders).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x build/native/tracemerge ] && [ -f build/wasm/tracemerge-cli.mjs ] || bash scripts/build.sh
RUNS=${RUNS:-3}
read -r -a threads <<<"${THREADS:-1 2}"
sizes=("$@"); [ ${#sizes[@]} -gt 0 ] || sizes=(50 200 dense160)

median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
calc() { awk "BEGIN { print $* }"; }
# The events a job merges to (its report's count; an untimed run).
events_of() { build/native/tracemerge "$1" -o build/bench/out.json --quiet --report /dev/stdout | python3 -c 'import json,sys; print(json.load(sys.stdin)["events"])'; }
# Each timed run starts with the previous output removed and written back (untimed).
secs() { local t0 t1; rm -f build/bench/out.json; sync; t0=$(date +%s.%N); "$@" >/dev/null 2>&1; t1=$(date +%s.%N); calc "$t1 - $t0"; }
# The phases: "read+parse plan write" seconds, as one word (read:plan:write).
phase() { rm -f build/bench/out.json; sync; TRACEMERGE_STATS=1 "$@" 2>&1 >/dev/null | awk '/phase-seconds/ {print $3 ":" $5 ":" $7}'; }
# Runs FN ARGS --threads T for each thread count in this round's order; prints the results
# (each after a space) in THREADS' order.
turns() {
  local fn=$1 t; shift
  declare -A got=()
  for t in "${order[@]}"; do got[$t]=$("$fn" "$@" --threads "$t"); done
  for t in "${threads[@]}"; do printf ' %s' "${got[$t]}"; done
}
# Writing the output's bytes again: a plain copy to a new file (page cache, as the merge's).
copy() { local t0 t1; rm -f build/bench/copy.json; sync; t0=$(date +%s.%N); cp build/bench/out.json build/bench/copy.json; t1=$(date +%s.%N); rm -f build/bench/copy.json; calc "$t1 - $t0"; }
if [ "${1:-}" = --bomb ]; then
  mkdir -p build/bench
  echo "| bomb | inflates to | gzip MB | --memory-mb | peak resident MB | s | kept |"
  echo "|---|---|---|---|---|---|---|"
  for spec in "spaces 20480" "events 6144"; do
    read -r kind mib <<<"$spec"
    gz=build/bench/bomb-$kind.json.gz
    [ -f "$gz" ] || python3 tests/bench/gen_bomb.py "$kind" "$mib" "$gz"
    for budget in "" 512; do
      t0=$(date +%s.%N)
      err=$(TRACEMERGE_STATS=1 build/native/tracemerge "$gz" -o build/bench/bomb-out.json ${budget:+--memory-mb $budget} 2>&1 >/dev/null || true)
      t1=$(date +%s.%N)
      kept=$(grep -o 'limit of [0-9]* bytes ([^)]*)' <<<"$err" | head -1)
      echo "| $kind | $((mib >> 10)) GB | $(( $(stat -c %s "$gz") >> 20 )) | ${budget:-default} | $(awk '/peak-resident-mb/ {print $2}' <<<"$err") | $(calc "$t1 - $t0") | ${kept:-all} |"
    done
  done
  rm -f build/bench/bomb-out.json
  exit 0
fi
if [ "${1:-}" = --many-files ]; then
  [ -f build/web/index.html ] || bash scripts/build.sh
  exec node tests/bench/many_page.mjs "${2:-20000}"
fi

if [ "${1:-}" = --xplane ]; then
  mkdir -p build/bench
  job=build/bench/xplane json=build/bench/xplane-as.json out=build/bench/out.json
  [ -d "$job" ] || python3 tests/bench/gen_xplane.py "$job" --hosts 4 --gpus-per-host 8 --steps 200 --collectives 20 --seed 5 >/dev/null
  [ -f "$json" ] || build/native/tracemerge "$job" -o "$json" --quiet
  events=$(events_of "$json")
  # The largest plane's bytes (an XSpace's field 1, length-delimited, at its top level).
  plane=$(python3 - "$job" <<'PY'
import os, sys
def varint(b, i):
    v = s = 0
    while True:
        v |= (b[i] & 0x7f) << s; s += 7; i += 1
        if b[i - 1] < 0x80: return v, i
best = 0
for d, _, names in os.walk(sys.argv[1]):
    for n in names:
        b, i = open(os.path.join(d, n), "rb").read(), 0
        while i < len(b):
            key, i = varint(b, i)
            if key & 7 == 2:
                size, i = varint(b, i)
                if key >> 3 == 1: best = max(best, size)
                i += size
            elif key & 7 == 0: _, i = varint(b, i)
            else: i += 8 if key & 7 == 1 else 4
print(best)
PY
)
  echo "| input | MB | events | native 1 thread s (ns/event) | native 2 threads s (ns/event) | wasm 1 helper s (ns/event) | native RSS MB (× input, × largest plane) |"
  echo "|---|---|---|---|---|---|---|"
  times=$(for round in $(seq "$RUNS"); do
    line=""
    for input in "$job" "$json"; do
      for t in 1 2; do line+=" $(secs build/native/tracemerge "$input" -o "$out" --quiet --threads $t)"; done
      line+=" $(secs node build/wasm/tracemerge-cli.mjs "$input" -o "$out" --quiet --threads 2)"
    done
    echo "$line"
  done)
  column() { awk -v c="$1" '{print $c}' <<<"$times" | median; }
  k=0
  for input in "$job" "$json"; do
    bytes=$(du -bc $(find "$input" -type f) | tail -1 | cut -f1)
    row="| $([ "$input" = "$job" ] && echo "XSpaces ($(find "$job" -name '*.xplane.pb' | wc -l) hosts)" || echo 'the same as JSON') | $(printf %.0f "$(calc "$bytes / 1e6")") | $events"
    for c in 1 2 3; do m=$(column $((k + c))); row+=" | $(printf '%.3f (%.0f)' "$m" "$(calc "$m * 1e9 / $events")")"; done
    rss=$(/usr/bin/time -v build/native/tracemerge "$input" -o "$out" --quiet --threads 2 2>&1 >/dev/null | awk -F': ' '/Maximum resident/ {print $2}')
    row+=" | $(printf '%.0f (%.2f×, %.1f×)' "$(calc "$rss / 1024")" "$(calc "$rss * 1024 / $bytes")" "$(calc "$rss * 1024 / $plane")") |"
    echo "$row"
    k=$((k + 3))
  done
  echo
  echo "largest plane: $(calc "$plane / 1e6") MB; machine: $(nproc) cores, $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo)"
  # One host's XSpace larger than the file limit that --memory-mb 64 sets (an eighth: 64 MB): read
  # a plane at a time as it comes. Its events all kept; its RSS, and the input it held at most.
  big=build/bench/xplane-one-host
  [ -d "$big" ] || python3 tests/bench/gen_xplane.py "$big" --hosts 1 --gpus-per-host 16 --steps 800 --collectives 20 --seed 7 >/dev/null
  file=$(find "$big" -name '*.xplane.pb')
  line=$(/usr/bin/time -v build/native/tracemerge "$big" -o "$out" --memory-mb 64 --report build/bench/report.json 2>&1 >/dev/null)
  rss=$(awk -F': ' '/Maximum resident/ {print $2}' <<<"$line")
  read -r got large <<<"$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r["events"], sum(w["code"]=="TOO_LARGE" for w in r["warnings"]))' build/bench/report.json)"
  echo
  echo "one host's XSpace, $(calc "$(stat -c %s "$file") / 1e6") MB, --memory-mb 64 (file limit 64 MB): $got events written of $(events_of "$big"), $large TOO_LARGE; RSS $(calc "$rss / 1024") MB"
  exit 0
fi

head="| input MB | events | DOM native s | + write s | DOM held native s"
for t in "${threads[@]}"; do head+=" | merge native --threads $t s (× DOM + write)"; done
head+=" | parse 1→${threads[-1]} threads | plan share | native RSS × input | DOM wasm s"
for t in "${threads[@]}"; do head+=" | merge wasm $((t - 1)) helpers s (× DOM + write)"; done
head+=" | wasm heaps × input | first touch of the RSS, native s | of the heaps, wasm s |"
echo "$head"
echo "$head" | sed 's/[^|]*|/---|/g; s/^---|/|/'
for size in "${sizes[@]}"; do
  job=build/bench/job$size
  dense=""; [[ $size == dense* ]] && dense=--dense
  [ -d "$job" ] || python3 tests/bench/gen_job.py "$job" "${size#dense}" $dense >/dev/null
  mapfile -t files < <(find "$job" -type f ! -name '*.metadata' | sort)
  bytes=$(build/native/tracemerge_ceiling --dom "${files[@]}" | cut -d' ' -f1)
  mb=$(calc "$bytes / 1000000")
  out=build/bench/out.json
  times=$(for round in $(seq "$RUNS"); do
    # The thread counts take turns in both orders, round after round: a run right after one
    # that freed as much memory finds it backed already (~25% faster here, at 191 MB).
    order=("${threads[@]}")
    [ $((round % 2)) = 0 ] && mapfile -t order < <(printf '%s\n' "${threads[@]}" | tac)
    line="$(GLIBC_TUNABLES=glibc.malloc.hugetlb=1 build/native/tracemerge_ceiling --dom "${files[@]}" | cut -d' ' -f3)"
    line+="$(turns secs build/native/tracemerge "$job" -o "$out" --quiet)"
    line+="$(turns phase build/native/tracemerge "$job" -o "$out" --quiet)"
    line+=" $(node build/wasm/tracemerge-ceiling.cjs --dom "${files[@]}" | cut -d' ' -f3)"
    line+="$(turns secs node build/wasm/tracemerge-cli.mjs "$job" -o "$out" --quiet)"
    line+=" $(GLIBC_TUNABLES=glibc.malloc.hugetlb=1 build/native/tracemerge_ceiling --dom-all "${files[@]}" | cut -d' ' -f3)"
    line+=" $(copy)"  # (the output of the last merge above)
    line+=" $(GLIBC_TUNABLES=glibc.malloc.hugetlb=1 build/native/tracemerge_ceiling --touch 256 | cut -d' ' -f3)"
    line+=" $(node build/wasm/tracemerge-ceiling.cjs --touch 256 | cut -d' ' -f3)"
    echo "$line"
  done)
  column() { awk -v c="$1" '{print $c}' <<<"$times" | median; }
  n=${#threads[@]}
  dom_n=$(column 1)
  write=$(column $((4 + 3 * n)))
  ref_n=$(calc "$dom_n + $write")
  events=$(events_of "$job")
  row="| $(printf %.0f "$mb")${dense:+ (dense)} | $events | $(printf %.3f "$dom_n") | $(printf %.3f "$write") | $(printf %.3f "$(column $((3 + 3 * n)))")"
  for k in $(seq 1 "$n"); do
    m=$(column $((1 + k)))
    row+=" | $(printf '%.3f (%.2f×)' "$m" "$(calc "$m / $ref_n")")"
  done
  phases() { awk -v c="$1" -v f="$2" '{split($c, p, ":"); print p[f]}' <<<"$times" | median; }
  row+=" | $(printf '%.2f×' "$(calc "$(phases $((2 + n)) 1) / $(phases $((1 + 2 * n)) 1)")")"
  row+=" | $(printf '%.0f%%' "$(awk -v c=$((1 + 2 * n)) '{split($c, p, ":"); print 100 * p[2] / (p[1] + p[2] + p[3])}' <<<"$times" | median)")"
  rss=$(/usr/bin/time -v build/native/tracemerge "$job" -o "$out" --quiet --threads "${threads[-1]}" 2>&1 >/dev/null |
        awk -F': ' '/Maximum resident/ {print $2}')
  row+=" | $(printf '%.2f×' "$(calc "$rss * 1024 / $bytes")")"
  dom_w=$(column $((2 + 2 * n)))
  row+=" | $(printf %.3f "$dom_w")"
  for k in $(seq 1 "$n"); do
    m=$(column $((2 + 2 * n + k)))
    row+=" | $(printf '%.3f (%.2f×)' "$m" "$(calc "$m / ($dom_w + $write)")")"
  done
  heap=$(TRACEMERGE_STATS=1 node build/wasm/tracemerge-cli.mjs "$job" -o "$out" --quiet --threads "${threads[-1]}" 2>&1 |
         awk '/wasm-heap-bytes/ {print $2}')
  row+=" | $(printf '%.2f×' "$(calc "$heap / $bytes")")"
  row+=" | $(printf %.3f "$(calc "$(column $((5 + 3 * n))) * $rss / 1024 / 256")")"
  row+=" | $(printf %.3f "$(calc "$(column $((6 + 3 * n))) * $heap / 1048576 / 256")") |"
  echo "$row"
  cmp -s <(build/native/tracemerge "$job" -o - --quiet) <(node build/wasm/tracemerge-cli.mjs "$job" -o - --quiet) \
    || echo "warning: native and wasm outputs differ for $job" >&2
done
echo
echo "machine: $(nproc) cores, $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo); merge times include reading the files, the DOM's do not"
