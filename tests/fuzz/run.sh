#!/usr/bin/env bash
# Fuzz the core with libFuzzer (clang-14, AddressSanitizer + UndefinedBehaviorSanitizer).
#
#   tests/fuzz/run.sh [SECONDS]     the JSON and attention targets run SECONDS − SECONDS / 4 −
#                                   SECONDS / 8 each (default 60: 38 s), fuzz_safetensors
#                                   2 × (SECONDS / 4) − SECONDS / 8 (23 s) and fuzz_tokenizer
#                                   3 × (SECONDS / 8) (21 s, an eighth taken from each of the
#                                   others), so the run still takes 2 × SECONDS; each from a fresh
#                                   copy of the seed corpus; exit status 1 if any target finds
#                                   something
#
# Targets (tests/fuzz/*.cpp): fuzz_json_case (bytes -> run_case_text), fuzz_attention
# (attention with decoded shapes, masks, scales), fuzz_safetensors (bytes -> the safetensors
# reader and the model-file loader) and fuzz_tokenizer (bytes as vocab.json | merges.txt | text,
# split at 0xFF -> the BPE loaders and encoder). Build: the build preset fuzz of the project's
# asan configuration (CMakePresets.json: build/asan, clang-14, ATTN_BUILD_FUZZ; needs
# libclang-rt-14-dev), the build the sanitized tests use (tests/sanitize.sh).
# Seeds: tests/cases/*.json, tests/reference/fixtures/*.json, tests/kernels/cases/*.json, the tiled
# variants of the shared cases (tests/kernels/tiled_cases.mjs) and the request
# objects of tests/learn/fixtures/*.json; fuzz_safetensors: the model files of
# tests/reference/safetensors/ and an export of each shipped checkpoint; fuzz_tokenizer: the
# fixtures of tests/text/fixtures/ joined with 0xFF. Working corpus:
# build/asan/corpus/<target> (wiped each run); crash inputs: build/asan/artifacts/.
#
# A longer run (e.g. before a release; one hour per target, both cores, keeping the corpus):
#
#   FUZZ_KEEP_CORPUS=1 FUZZ_JOBS=2 tests/fuzz/run.sh 3600
#
# Reproduce a finding:  build/asan/fuzz_attention build/asan/artifacts/crash-<sha1>
set -euo pipefail
cd "$(dirname "$0")/../.."

seconds="${1:-60}"
jobs="${FUZZ_JOBS:-1}"
build=build/asan

for tool in clang-14 clang++-14 cmake; do
  command -v "$tool" >/dev/null || { echo "run.sh: $tool not found (apt-get install clang-14 libclang-rt-14-dev cmake)" >&2; exit 2; }
done

echo "==> configure and build $build (configure preset asan, build preset fuzz)"
cmake --preset asan >/dev/null
cmake --build --preset fuzz

export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
mkdir -p "$build/artifacts"
status=0
share=$((seconds / 4))   # from each of the two older targets, for fuzz_safetensors
tshare=$((seconds / 8))  # from each of the other three, for fuzz_tokenizer
for target in fuzz_json_case fuzz_attention fuzz_safetensors fuzz_tokenizer; do
  corpus="$build/corpus/$target"
  if [ -z "${FUZZ_KEEP_CORPUS:-}" ]; then rm -rf "$corpus"; fi
  mkdir -p "$corpus"
  if [ "$target" = fuzz_safetensors ]; then
    for f in tests/reference/safetensors/*.safetensors; do cp "$f" "$corpus/${f##*/}"; done
    if [ -x build/native/core/attn ]; then
      build/native/core/attn export checkpoints/learned_heads.ckpt "$corpus/learned_heads.safetensors" 2>/dev/null
      build/native/core/attn export checkpoints/translate.ckpt "$corpus/translate.safetensors" 2>/dev/null
    fi
    run_seconds=$((2 * share - tshare))
  elif [ "$target" = fuzz_tokenizer ]; then
    fx=tests/text/fixtures
    { cat $fx/tiny_vocab.json; printf '\377'; cat $fx/tiny_merges.txt; printf '\377abc abc! aaaaa a'"'"'s<|endoftext|>'; } \
      > "$corpus/tiny.bin"
    { cat $fx/tiny_tokenizer.json; printf '\377\377 caf\303\251 \342\200\251a  b\n\n c'; } > "$corpus/tiny-hf.bin"
    run_seconds=$((3 * tshare))
  else
    run_seconds=$((seconds - share - tshare))
    for f in tests/cases/*.json; do cp "$f" "$corpus/case-${f##*/}"; done
    for f in tests/reference/fixtures/*.json; do cp "$f" "$corpus/reference-${f##*/}"; done
    for f in tests/kernels/cases/*.json; do cp "$f" "$corpus/kernel-${f##*/}"; done  # "kernel":"tiled"
    node tests/kernels/tiled_cases.mjs "$corpus" kernel-  # the shared cases with "kernel":"tiled"
    # The learning ops: each PyTorch fixture's request object alone (attention_backward, model_gradients,
    # train_steps), small enough for -max_len.
    for f in tests/learn/fixtures/*.json; do
      node -e 'const f = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")); process.stdout.write(JSON.stringify(f.case));' \
        "$f" > "$corpus/learn-${f##*/}"
    done
    printf '%s' '{"op":"init_params","seed":3,"model":{"kind":"seq2seq","src_vocab":5,"tgt_vocab":6,"embed":3,"hidden":4,"attention":"additive","attn_dim":2}}' \
      > "$corpus/learn-init-seq2seq.json"
  fi
  args=(-max_total_time="$run_seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1
        -artifact_prefix="$build/artifacts/$target-")
  if [ "$target" = fuzz_json_case ]; then args+=(-dict=tests/fuzz/json_case.dict -max_len=65536); fi
  if [ "$target" = fuzz_safetensors ]; then args+=(-max_len=262144); fi
  if [ "$target" = fuzz_tokenizer ]; then args+=(-max_len=65536); fi
  if [ "$jobs" -gt 1 ]; then args+=(-fork="$jobs" -ignore_crashes=0); fi
  echo "==> $target for ${run_seconds}s (corpus $corpus)"
  if "$build/$target" "${args[@]}" "$corpus" 2>"$build/$target.log"; then
    grep -E '^stat::number_of_executed_units|^stat::peak_rss_mb|^#[0-9]+.*DONE' "$build/$target.log" || true
    echo "    $target: clean"
  else
    tail -n 60 "$build/$target.log" >&2
    echo "    $target: FAILED (log $build/$target.log, inputs in $build/artifacts/)" >&2
    status=1
  fi
done
exit "$status"
