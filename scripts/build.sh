#!/usr/bin/env bash
# build.sh — run setup.sh, then the native Release build into build/native (CLI:
# build/native/tracemerge), the WebAssembly build into build/wasm (ES module, worker,
# Node CLI) and the page into build/web. --native-only skips wasm and web. Other args
# go to setup.sh (e.g. --browser installs Chromium for the browser tests).
set -euo pipefail
cd "$(dirname "$0")/.."

WASM=1
setup_args=()
for a in "$@"; do
  if [ "$a" = --native-only ]; then WASM=0; else setup_args+=("$a"); fi
done
[ "$WASM" = 1 ] && setup_args+=(--wasm)
bash scripts/setup.sh "${setup_args[@]}"

echo "[build] native Release -> build/native"
cmake -S . -B build/native -DCMAKE_BUILD_TYPE=Release
cmake --build build/native -j2

if [ "$WASM" = 1 ]; then
  # Debian's emcc needs NODE_PATH=/usr/share/nodejs (Node 20 does not look there by default).
  export NODE_PATH=/usr/share/nodejs
  echo "[build] wasm Release -> build/wasm"
  emcmake cmake -S . -B build/wasm -DCMAKE_BUILD_TYPE=Release
  cmake --build build/wasm -j2
  echo "[build] web page -> build/web (and build/web/tracemerge.html)"
  node web/build.mjs
fi
echo "[build] done"
