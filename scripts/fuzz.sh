#!/usr/bin/env bash
# fuzz.sh [SECONDS] — build the libFuzzer targets (tests/fuzz, clang, ASan+UBSan) into
# build/fuzz, make seed corpora from ../shared/corpus, run each target SECONDS (default 60).
# Prints one line per target; exits non-zero on any finding (crash, leak, timeout, invalid
# output). Findings are written to build/fuzz/findings/<target>/ — reproduce one with
#   build/fuzz/tests/fuzz/fuzz_merge build/fuzz/findings/merge/crash-…
# New inputs the fuzzers keep collect in build/fuzz/corpus/<target>/ (reused by the next run).
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-60}

cmake -S . -B build/fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTRACEMERGE_FUZZ=ON \
  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ >/dev/null
cmake --build build/fuzz -j2 --target fuzz_tokenizer fuzz_gzip fuzz_merge fuzz_xplane >/dev/null
python3 tests/fuzz/make_seeds.py ../shared/corpus build/fuzz/seeds

status=0
for t in tokenizer gzip merge xplane; do
  mkdir -p "build/fuzz/corpus/$t" "build/fuzz/findings/$t"
  log=build/fuzz/$t.log
  if build/fuzz/tests/fuzz/fuzz_$t "build/fuzz/corpus/$t" "build/fuzz/seeds/$t" \
      -max_total_time="$secs" -rss_limit_mb=4096 -timeout=10 -print_final_stats=1 \
      -artifact_prefix="build/fuzz/findings/$t/" >"$log" 2>&1; then
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
    echo "[fuzz] $t: ok, ${secs}s, $execs runs ($rate/s), $cov"
  else
    echo "[fuzz] $t: FINDING, see $log and build/fuzz/findings/$t/" >&2
    grep -m3 -E '^(fuzz_|SUMMARY|==[0-9]+== ?ERROR)' "$log" >&2 || true
    status=1
  fi
done
exit $status
