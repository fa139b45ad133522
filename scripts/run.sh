#!/usr/bin/env bash
# run.sh — build (scripts/build.sh, same args), then serve build/web/ on 127.0.0.1.
# Port: $PORT if set, else the first free port from 8765 on.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/build.sh "$@"  # also builds the page into build/web/

port_free() { python3 -c 'import socket,sys; s=socket.socket(); s.bind(("127.0.0.1", int(sys.argv[1])))' "$1" 2>/dev/null; }
if [ -n "${PORT:-}" ]; then
  port_free "$PORT" || { echo "[run] port $PORT is in use" >&2; exit 1; }
else
  PORT=8765
  until port_free "$PORT"; do PORT=$((PORT + 1)); done
fi
echo "[run] serving build/web at http://127.0.0.1:$PORT/  (Ctrl-C to stop)"
exec python3 -m http.server "$PORT" --bind 127.0.0.1 --directory build/web
