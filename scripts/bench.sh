#!/usr/bin/env bash
# Attention Lab: build and run the kernel benchmark suite (issue 6); write bench/RESULTS.md.
#
#   scripts/bench.sh              # everything: native (Google Benchmark), wasm under node and in Chromium
#   scripts/bench.sh --quick      # the target shapes only (T = 512 and 2048, d = 64, float32) + GEMM
#   scripts/bench.sh --no-chromium
#
# Builds into build/bench-native (Release, -DATTN_BUILD_BENCH=ON) and build/bench-web (em++), runs
#   build/bench-native/bench/attn_bench        (bench/attn_bench.cpp)
#   node bench/run_wasm.mjs --where node|chromium   (bench/wasm_bench.cpp)
# and merges the results with bench/report.mjs into bench/RESULTS.md (also printed), every target of
# the issue marked pass/short. Raw results: build/bench-results/*.json. Takes ~15-25 minutes on
# 2 cores (most of it the naive loops and float64 at T = 8192); run it on a quiet machine, the
# report records the load average.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
QUICK=0
CHROMIUM=1
for a in "$@"; do
  case $a in
    --quick) QUICK=1 ;;
    --no-chromium) CHROMIUM=0 ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    *) echo "bench: unknown option $a" >&2; exit 64 ;;
  esac
done

# Debian's emscripten imports acorn from there (DESIGN.md).
export NODE_PATH=${NODE_PATH:+$NODE_PATH:}/usr/share/nodejs
NATIVE=build/bench-native
WEB=build/bench-web
RESULTS=build/bench-results
JOBS=${BENCH_JOBS:-2}
mkdir -p "$RESULTS"

say() { printf 'bench: %s\n' "$*" >&2; }

say "configure + build native ($NATIVE)"
cmake -S . -B "$NATIVE" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DATTN_BUILD_BENCH=ON -DATTN_BUILD_APP=OFF -DATTN_BUILD_TESTS=OFF >/dev/null
cmake --build "$NATIVE" --target attn_bench -j "$JOBS"

say "configure + build wasm ($WEB)"
cmake -S . -B "$WEB" -G Ninja --toolchain /usr/share/emscripten/cmake/Modules/Platform/Emscripten.cmake \
  -DCMAKE_BUILD_TYPE=Release -DATTN_BUILD_BENCH=ON -DATTN_BUILD_APP=OFF -DATTN_BUILD_TESTS=OFF >/dev/null
cmake --build "$WEB" --target attn_bench_wasm -j "$JOBS"

LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
if [ "$QUICK" = 1 ]; then
  NATIVE_FILTER='--benchmark_filter=^f32/(fma_peak|gemm|(naive|dense|tiled)/T:(512|2048)/d:64)'
  WASM_ARGS='--filter f32/muladd_peak,f32/gemm,f32/dense/T:512/d:64,f32/tiled/T:512/d:64,f32/dense/T:2048/d:64,f32/tiled/T:2048/d:64 --min-time 0.3'
else
  NATIVE_FILTER=
  WASM_ARGS=
fi

say "native suite (load average $LOAD_BEFORE)"
"$NATIVE/bench/attn_bench" ${NATIVE_FILTER:+"$NATIVE_FILTER"} \
  --benchmark_out="$RESULTS/native.json" --benchmark_out_format=json >&2

run_wasm() {  # WHERE OUT
  node bench/run_wasm.mjs --dir "$WEB/bench" --where "$1" --args "$WASM_ARGS" --out "$2"
}

say "wasm under node"
run_wasm node "$RESULTS/wasm-node.json"
CHROMIUM_ARG=()
if [ "$CHROMIUM" = 1 ]; then
  say "wasm in headless Chromium"
  if run_wasm chromium "$RESULTS/wasm-chromium.json"; then
    CHROMIUM_ARG=(--chromium "$RESULTS/wasm-chromium.json")
  else
    say "Chromium run failed (playwright-core from scripts/setup.sh and /usr/bin/chromium are needed)"
  fi
fi
LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)

node bench/report.mjs --native "$RESULTS/native.json" --node "$RESULTS/wasm-node.json" "${CHROMIUM_ARG[@]}" \
  --load-before "$LOAD_BEFORE" --load-after "$LOAD_AFTER" > bench/RESULTS.md
cat bench/RESULTS.md
say "wrote bench/RESULTS.md"
