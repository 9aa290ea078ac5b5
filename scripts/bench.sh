#!/usr/bin/env bash
# Attention Lab: build and run the kernel benchmark suite (the fast kernels' targets); write bench/RESULTS.md.
#
#   scripts/bench.sh              # everything: native (Google Benchmark), wasm under node and in Chromium
#   scripts/bench.sh --quick      # the target shapes only (T = 512 and 2048, d = 64, float32) + GEMM
#   scripts/bench.sh --no-chromium
#   scripts/bench.sh --training     # only the training section (also part of a full run; --no-training skips it)
#
# Builds into build/bench-native (Release, -DATTN_BUILD_BENCH=ON) and build/bench-web (em++), runs
#   build/bench-native/bench/attn_bench        (bench/attn_bench.cpp)
#   node bench/run_wasm.mjs --where node|chromium   (bench/wasm_bench.cpp)
# and merges the results with bench/report.mjs into bench/RESULTS.md (also printed), every target of
# the fast kernels marked pass/short. Raw results: build/bench-results/*.json. Takes ~15-25 minutes on
# 2 cores (most of it the naive loops and float64 at T = 8192); run it on a quiet machine, the
# report records the load average.
#
# Training (the learning targets): Adam steps per second of the decoder and the seq2seq models
# (forward and bidirectional encoder), natively (build/bench-native/bench/train_bench, bench/train_bench.cpp), as wasm in headless Chromium
# (train_bench_wasm + bench/train_bench.html through bench/run_wasm.mjs) and in PyTorch eager on one
# thread, float64 (bench/train_torch.py with /usr/bin/python3, on the dump train_bench writes: the same
# parameters, batches and optimiser; skipped with a note when torch is absent). bench/train_report.mjs
# writes the "Training" section of bench/RESULTS.md (replacing the old one). The three take turns,
# BENCH_TRAIN_REPEATS times (default 2; each engine's best turn is reported). ~3-5 minutes plus builds.
# Then the Learned heads panel's default configuration trained in the built page (build/web/site or
# ATTN_SITE_DIR; not rebuilt here: cmake --build --preset web) in headless Chromium at 1280x800:
# bench/heads_train_page.mjs times set({learned_heads: {train: true}}) until "done" (target <= 20 s,
# frames <= 50 ms), with steps/s, held-out accuracy and the best induction / previous-token scores, into
# build/bench-results/heads_train_page.json; bench/heads_train_report.mjs writes the "Learned heads:
# time to train in the page" subsection of the Training section. ~1-2 minutes. Last, the Translate
# lesson's default pair natively (bench/translate_bench --check: the checkpoint reproduced) and in
# the page (bench/translate_train_page.mjs, target <= 20 s, its own "Translate: time to train in the
# page" section with both models' exact match per length bucket). ~2 minutes.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
QUICK=0
CHROMIUM=1
TRAINING=1       # a full run includes the training section
ONLY_TRAINING=0
for a in "$@"; do
  case $a in
    --quick) QUICK=1 ;;
    --no-chromium) CHROMIUM=0 ;;
    --training) ONLY_TRAINING=1 ;;
    --no-training) TRAINING=0 ;;
    -h|--help) sed -n '2,29p' "$0"; exit 0 ;;
    *) echo "bench: unknown option $a" >&2; exit 64 ;;
  esac
done

# Debian's emscripten imports acorn from there (its node modules live in /usr/share/nodejs).
export NODE_PATH=${NODE_PATH:+$NODE_PATH:}/usr/share/nodejs
NATIVE=build/bench-native
WEB=build/bench-web
RESULTS=build/bench-results
JOBS=${BENCH_JOBS:-2}
mkdir -p "$RESULTS"

say() { printf 'bench: %s\n' "$*" >&2; }
BUILD_NICE=(nice -n "${BENCH_BUILD_NICE:-19}")  # builds yield to other work; the runs do not

configure_native() {
  say "configure + build native ($NATIVE): $*"
  cmake -S . -B "$NATIVE" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DATTN_BUILD_BENCH=ON -DATTN_BUILD_APP=OFF -DATTN_BUILD_TESTS=OFF >/dev/null
  "${BUILD_NICE[@]}" cmake --build "$NATIVE" --target "$@" -j "$JOBS"
}
configure_web() {
  say "configure + build wasm ($WEB): $*"
  cmake -S . -B "$WEB" -G Ninja --toolchain /usr/share/emscripten/cmake/Modules/Platform/Emscripten.cmake \
    -DCMAKE_BUILD_TYPE=Release -DATTN_BUILD_BENCH=ON -DATTN_BUILD_APP=OFF -DATTN_BUILD_TESTS=OFF >/dev/null
  "${BUILD_NICE[@]}" cmake --build "$WEB" --target "$@" -j "$JOBS"
}

# The Learned heads panel trained in the built page; its subsection of the Training section is
# written even when it does not run, so no older figures stand for this run.
run_heads_page() {  # COMMAND
  local site=${ATTN_SITE_DIR:-build/web/site} out="$RESULTS/heads_train_page.json" why=()
  rm -f "$out"
  if [ "$CHROMIUM" = 0 ]; then
    why=(--failed "skipped (--no-chromium)")
  elif [ ! -f "$site/index.html" ]; then
    why=(--failed "no built page in $site (cmake --build --preset web builds it)")
    say "training: no built page in $site: the Learned heads page benchmark is skipped"
  else
    say "training: the Learned heads panel in the page (load average $(cut -d' ' -f1-3 /proc/loadavg))"
    if ! node bench/heads_train_page.mjs --site "$site" --out "$out" >&2; then
      why=(--failed "bench/heads_train_page.mjs failed (its output is above)")
    fi
  fi
  node bench/heads_train_report.mjs --in "$out" --results bench/RESULTS.md --command "$1" "${why[@]}"
}

# The training section: build, run native (writing the dump), torch on the dump, wasm in Chromium;
# then bench/train_report.mjs replaces the "Training" section of bench/RESULTS.md; last, the
# Learned heads panel in the page.
run_training() {
  configure_native train_bench
  if [ "$CHROMIUM" = 1 ]; then configure_web train_bench_wasm; fi
  local dump="$RESULTS/train-dump" targs=() load_before load_after torch_arg=() chromium_arg=()
  if [ "$QUICK" = 1 ]; then targs=(--rounds 3 --warmup-time 0.5); fi
  rm -rf "$dump" && mkdir -p "$dump"
  rm -f "$RESULTS"/train-native*.txt "$RESULTS"/train-torch*.txt "$RESULTS"/train-chromium*.json
  load_before=$(cut -d' ' -f1-3 /proc/loadavg)
  local have_torch=1 natives=() torches=() chromiums=() r
  if ! /usr/bin/python3 -c 'import torch' 2>/dev/null; then
    have_torch=0
    say "training: torch absent (/usr/bin/python3 -c 'import torch' fails): skipped"
    torch_arg=(--torch-absent "torch absent (/usr/bin/python3 -c 'import torch' fails): skipped")
  fi
  # Native, torch and Chromium take turns, BENCH_TRAIN_REPEATS times (default 2): a burst of load from
  # other processes then hits one turn, and the report keeps each engine's best turn.
  for r in $(seq 1 "${BENCH_TRAIN_REPEATS:-2}"); do
    say "training, turn $r: native (load average $(cut -d' ' -f1-3 /proc/loadavg))"
    if [ "$r" = 1 ]; then
      "$NATIVE/bench/train_bench" "${targs[@]}" --dump "$dump" > "$RESULTS/train-native-$r.txt"
    else
      "$NATIVE/bench/train_bench" "${targs[@]}" > "$RESULTS/train-native-$r.txt"
    fi
    natives+=("$RESULTS/train-native-$r.txt")
    if [ "$have_torch" = 1 ]; then
      say "training, turn $r: PyTorch (/usr/bin/python3 bench/train_torch.py)"
      if /usr/bin/python3 bench/train_torch.py --dump "$dump" --out "$RESULTS/train-torch-$r.txt" >/dev/null; then :; else
        say "train_torch.py failed or its first-step loss differs from the C++ one (see above)"
      fi
      if [ -s "$RESULTS/train-torch-$r.txt" ]; then torches+=("$RESULTS/train-torch-$r.txt"); fi
    fi
    if [ "$CHROMIUM" = 1 ]; then
      say "training, turn $r: wasm in headless Chromium"
      if node bench/run_wasm.mjs --dir "$WEB/bench" --where chromium --js train_bench_wasm.js --page train_bench.html \
          --args "${targs[*]}" --timeout-min 10 --out "$RESULTS/train-chromium-$r.json"; then
        chromiums+=("$RESULTS/train-chromium-$r.json")
      else
        say "Chromium run failed (playwright-core from scripts/setup.sh and /usr/bin/chromium are needed)"
      fi
    fi
  done
  if [ "${#torches[@]}" -gt 0 ]; then torch_arg=(--torch "$(IFS=,; echo "${torches[*]}")"); fi
  if [ "${#chromiums[@]}" -gt 0 ]; then chromium_arg=(--chromium "$(IFS=,; echo "${chromiums[*]}")"); fi
  load_after=$(cut -d' ' -f1-3 /proc/loadavg)
  local cmd="scripts/bench.sh --training"
  if [ "$ONLY_TRAINING" = 0 ]; then cmd="scripts/bench.sh"; fi
  if [ "$QUICK" = 1 ]; then cmd="$cmd --quick"; fi
  node bench/train_report.mjs --native "$(IFS=,; echo "${natives[*]}")" "${chromium_arg[@]}" "${torch_arg[@]}" \
    --results bench/RESULTS.md --load-before "$load_before" --load-after "$load_after" --command "$cmd"
  run_heads_page "$cmd"
  run_translate_native
  run_translate_page
}

# The Translate lesson's default pair trained natively from its seed (bench/translate_bench.cpp):
# sizes, time, both models' test exact match per length bucket, and the full bit-for-bit check of
# checkpoints/translate.ckpt (the test suite also retrains it). Printed and kept in
# build/bench-results/translate-native.txt (not a section of RESULTS.md).
run_translate_native() {
  configure_native translate_bench
  say "translate: the default pair, natively (load average $(cut -d' ' -f1-3 /proc/loadavg))"
  "$NATIVE/bench/translate_bench" --check checkpoints/translate.ckpt | tee "$RESULTS/translate-native.txt" >&2
}

# The Translate panel's default pair trained in the built page (bench/translate_train_page.mjs,
# target <= 20 s): its section "### Translate: time to train in the page" of bench/RESULTS.md.
run_translate_page() {
  local site=${ATTN_SITE_DIR:-build/web/site}
  if [ "$CHROMIUM" = 0 ]; then say "translate: the page benchmark is skipped (--no-chromium)"; return 0; fi
  if [ ! -f "$site/index.html" ]; then say "translate: no built page in $site: the page benchmark is skipped"; return 0; fi
  say "translate: the default pair in the page (load average $(cut -d' ' -f1-3 /proc/loadavg))"
  node bench/translate_train_page.mjs --site "$site" --out "$RESULTS/translate_train_page.json" \
    --results bench/RESULTS.md >&2 || say "bench/translate_train_page.mjs failed (its output is above)"
}

if [ "$ONLY_TRAINING" = 1 ]; then
  run_training
  say "wrote the Training section of bench/RESULTS.md"
  exit 0
fi

configure_native attn_bench
configure_web attn_bench_wasm

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

# report.mjs writes the kernel report; the Training section is kept (--no-training) or run anew.
OLD_TRAINING=$(awk '/^## Training[[:space:]]*$/ {f = 1} f && /^## / && !/^## Training/ {f = 0} f' bench/RESULTS.md 2>/dev/null || true)
node bench/report.mjs --native "$RESULTS/native.json" --node "$RESULTS/wasm-node.json" "${CHROMIUM_ARG[@]}" \
  --load-before "$LOAD_BEFORE" --load-after "$LOAD_AFTER" > bench/RESULTS.md
if [ "$TRAINING" = 1 ]; then
  run_training >/dev/null
elif [ -n "$OLD_TRAINING" ]; then
  printf '\n%s\n' "$OLD_TRAINING" >> bench/RESULTS.md
fi
cat bench/RESULTS.md
say "wrote bench/RESULTS.md"
