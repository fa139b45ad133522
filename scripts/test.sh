#!/usr/bin/env bash
# test.sh — installs and builds everything (scripts/build.sh --browser --wheels), then runs every
# test: ctest (native unit + golden), node --test tests/wasm (wasm = native bytes, API,
# worker), tests/e2e (the page in Chromium, notebook helper), and the packages
# (scripts/package.sh into dist/, then tests/packages: the manylinux wheels' needs, the x86_64
# wheel in fresh venvs (3.11 and 3.8), the aarch64 one under qemu-user, the sdist built in a
# fresh venv, the npm package in an empty project, the site's zip, cmake --install). Exits
# non-zero on a failure.
# With --full, or when $CI is set, also the sanitizer run (unit + golden tests under
# ASan+UBSan in build/asan) and scripts/fuzz.sh 60.
set -euo pipefail
cd "$(dirname "$0")/.."

FULL=0; [ -n "${CI:-}" ] && FULL=1
args=()
for a in "$@"; do if [ "$a" = --full ]; then FULL=1; else args+=("$a"); fi; done

bash scripts/build.sh --browser --wheels "${args[@]}"

echo "[test] ctest build/native"
ctest --test-dir build/native --output-on-failure -j2

# ---- NODE TESTS: the wasm build, byte-identical to native; API, worker protocol --------
if [ -f build/wasm/tracemerge.mjs ]; then
  echo "[test] node --test tests/wasm"
  node --test tests/wasm/
fi
# ---- BROWSER TESTS: the page in Debian's Chromium via playwright-core; notebook helper --
if [ -f build/web/tracemerge.html ]; then
  echo "[test] node --test tests/e2e"
  node --test tests/e2e/
  echo "[test] python3 -m unittest tests/e2e/test_*.py"
  python3 -m unittest discover -s tests/e2e -p 'test_*.py'
  echo "[test] scripts/package.sh, then tests/packages"
  bash scripts/package.sh
  python3 -m unittest discover -s tests/packages
fi
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
