#!/usr/bin/env bash
# Build the web page and serve it locally.
#
#   scripts/serve.sh [--port N] [--no-build]      (or PORT=N scripts/serve.sh)
#
# Runs scripts/setup.sh (installs/fetches what is missing; seconds when all is there),
# configures and builds the `web` preset, then serves build/web/site on
# http://127.0.0.1:PORT/ (default 8080) until Ctrl+C.
set -euo pipefail
cd "$(dirname "$0")/.."

port=${PORT:-8080}
build=1
while [ $# -gt 0 ]; do
  case "$1" in
    --port) [ $# -ge 2 ] || { echo "serve: --port needs a number" >&2; exit 2; }; port=$2; shift 2 ;;
    --port=*) port=${1#--port=}; shift ;;
    --no-build) build=0; shift ;;
    -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
    *) echo "serve: unknown argument '$1' (try --help)" >&2; exit 2 ;;
  esac
done
case "$port" in ''|*[!0-9]*) echo "serve: port must be a number, got '$port'" >&2; exit 2 ;; esac

if [ "$build" -eq 1 ]; then
  scripts/setup.sh
  export NODE_PATH=/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}  # Debian's emscripten needs acorn from here
  cmake --preset web
  cmake --build --preset web --target attn_site
fi
site=build/web/site
[ -f "$site/index.html" ] && [ -f "$site/attention_lab.wasm" ] || { echo "serve: $site is not built" >&2; exit 1; }

echo
echo "Attention Lab: http://127.0.0.1:$port/"
echo "(serving $site; Ctrl+C to stop)"
# http.server with .wasm mapped explicitly: browsers compile wasm while it streams only
# when it comes as application/wasm, and older Pythons or /etc/mime.types may map it otherwise.
exec python3 - "$port" "$site" <<'PY'
import functools, http.server, sys
port, root = int(sys.argv[1]), sys.argv[2]
class Handler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map,
                      ".wasm": "application/wasm", ".js": "text/javascript", ".html": "text/html"}
    def end_headers(self):
        self.send_header("Cache-Control", "no-store")  # always the page just built
        super().end_headers()
    def log_message(self, fmt, *args):
        pass
try:
    http.server.ThreadingHTTPServer(("127.0.0.1", port), functools.partial(Handler, directory=root)).serve_forever()
except OSError as e:
    sys.exit(f"serve: cannot listen on 127.0.0.1:{port}: {e.strerror} (try --port N)")
except KeyboardInterrupt:
    pass
PY
