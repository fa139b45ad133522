#!/usr/bin/env bash
# build.sh — run setup.sh (same args), then the native Release build into build/native
# (CLI: build/native/tracemerge). With --wasm (or TRACEMERGE_WASM=1) and emcmake present,
# also the emscripten build into build/wasm.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh "$@"

WASM=${TRACEMERGE_WASM:-0}
for a in "$@"; do [ "$a" = --wasm ] && WASM=1; done

echo "[build] native Release -> build/native"
cmake -S . -B build/native -DCMAKE_BUILD_TYPE=Release
cmake --build build/native -j2

# ---- WASM BUILD (emscripten) ----------------------------------------------------------
# Debian's emcc needs NODE_PATH=/usr/share/nodejs (Node 20 does not look there by default).
if [ "$WASM" = 1 ]; then
  if command -v emcmake >/dev/null; then
    export NODE_PATH=/usr/share/nodejs
    echo "[build] wasm Release -> build/wasm"
    emcmake cmake -S . -B build/wasm -DCMAKE_BUILD_TYPE=Release
    cmake --build build/wasm -j2
  else
    echo "[build] --wasm requested but emcmake not found (run scripts/setup.sh --wasm)" >&2
    exit 1
  fi
fi
echo "[build] done"
