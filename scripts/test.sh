#!/usr/bin/env bash
# test.sh — build (scripts/build.sh, same args), then run the native test suite with ctest.
# Exits non-zero if any test fails.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/build.sh "$@"

echo "[test] ctest build/native"
ctest --test-dir build/native --output-on-failure -j2

# ---- NODE TESTS (wasm module under node) go here --------------------------------------
# ---- BROWSER TESTS (playwright-core + /usr/bin/chromium) go here -----------------------
echo "[test] done"
