#!/usr/bin/env bash
# test.sh — installs and builds everything (scripts/build.sh --browser --wheels), then runs every
# test: ctest (native unit, golden, jobs), tests/code (no core file over 450 lines, no function
# over 80 unless it says why, each test suite in one file), node --test tests/wasm (wasm = native bytes, API,
# worker), tests/e2e (the page in Chromium, notebook helper), and the packages
# (scripts/package.sh into dist/, then tests/packages: the manylinux wheels' needs, the x86_64
# wheel in fresh venvs (3.11 and 3.8), the aarch64 one under qemu-user, the sdist built in a
# fresh venv, the npm package in an empty project, the site's zip, cmake --install). Exits
# non-zero on a failure.
# With --full, or when $CI is set, also the sanitizer run (the ctest suites under
# ASan+UBSan in build/asan) and scripts/fuzz.sh 60.
set -euo pipefail
cd "$(dirname "$0")/.."

FULL=0; [ -n "${CI:-}" ] && FULL=1
args=()
for a in "$@"; do if [ "$a" = --full ]; then FULL=1; else args+=("$a"); fi; done

bash scripts/build.sh --browser --wheels "${args[@]}"

# Runs one suite, its output shown as it comes; in CI ($CI set) a skipped test fails the run
# (GoogleTest's, node --test's and unittest's counts): a test that did not run checked nothing.
suite() {
  local name=$1 log; shift
  echo "[test] $name"
  log=$(mktemp)
  local rc=0
  "$@" 2>&1 | tee "$log" || rc=$?
  if [ "$rc" != 0 ]; then rm -f "$log"; return "$rc"; fi
  if [ -n "${CI:-}" ] && grep -Eq '^# skipped [1-9]|[(, ]skipped=[1-9]|\(Skipped\)|\[  SKIPPED \]' "$log"; then
    echo "[test] $name: a test was skipped (in CI every test runs):" >&2
    grep -E '^# skipped|skipped=|Skipped|SKIPPED|^not ok .*# SKIP|^ok .*# SKIP' "$log" >&2 || true
    rm -f "$log"; return 1
  fi
  rm -f "$log"
}

suite "ctest build/native" ctest --test-dir build/native --output-on-failure -j2
suite "tests/code (file and function sizes, test layout)" python3 -m unittest discover -s tests/code
# ---- NODE TESTS: the wasm build, byte-identical to native; API, worker protocol --------
suite "node --test tests/wasm" node --test tests/wasm/
# ---- BROWSER TESTS: the page in Debian's Chromium, Firefox, WebKit; notebook helper -------
suite "node --test tests/e2e" node --test tests/e2e/
suite "tests/cluster (the scan on a Dask LocalCluster, Debian's python3)" /usr/bin/python3 -m unittest discover -s tests/cluster
suite "python3 -m unittest tests/e2e/test_*.py" python3 -m unittest discover -s tests/e2e -p 'test_*.py'
echo "[test] scripts/package.sh, then tests/packages"
bash scripts/package.sh
suite "tests/packages" python3 -m unittest discover -s tests/packages
# ---- SANITIZERS AND FUZZING (CI or --full: about 6 minutes on 2 cores) ---------------
if [ "$FULL" = 1 ]; then
  echo "[test] ASan+UBSan RelWithDebInfo -> build/asan"
  cmake -S . -B build/asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTRACEMERGE_SANITIZE=ON \
    -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ >/dev/null
  cmake --build build/asan -j2
  suite "ctest build/asan" ctest --test-dir build/asan --output-on-failure -j2
  echo "[test] fuzz 60 s per target"
  bash scripts/fuzz.sh 60
fi
echo "[test] done"
