#!/usr/bin/env bash
# test.sh — build (scripts/build.sh, same args), then run the native test suite with ctest.
# Exits non-zero if any test fails. With --full, or when $CI is set, also the sanitizer
# run: unit + golden tests under ASan+UBSan (build/asan), then scripts/fuzz.sh 60.
set -euo pipefail
cd "$(dirname "$0")/.."

FULL=0; [ -n "${CI:-}" ] && FULL=1
args=()
for a in "$@"; do if [ "$a" = --full ]; then FULL=1; else args+=("$a"); fi; done

bash scripts/build.sh "${args[@]}"

echo "[test] ctest build/native"
ctest --test-dir build/native --output-on-failure -j2

# ---- NODE TESTS: the wasm build, byte-identical to native; API, worker protocol --------
if [ -f build/wasm/tracemerge.mjs ]; then
  echo "[test] node --test tests/wasm"
  node --test tests/wasm/
fi
# ---- BROWSER TESTS (playwright-core + /usr/bin/chromium) go here -----------------------
# ---- SANITIZERS AND FUZZING (CI or --full: about 6 minutes on 2 cores) ---------------
if [ "$FULL" = 1 ]; then
  echo "[test] ASan+UBSan RelWithDebInfo -> build/asan"
  cmake -S . -B build/asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTRACEMERGE_SANITIZE=ON \
    -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ >/dev/null
  cmake --build build/asan -j2
  ctest --test-dir build/asan --output-on-failure -j2
  echo "[test] fuzz 60 s per target"
  bash scripts/fuzz.sh 60
fi
echo "[test] done"
