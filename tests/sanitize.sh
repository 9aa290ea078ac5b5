#!/usr/bin/env bash
# Build the native core, the `attn` tool and every registered test (Catch2 core tests, case
# files, the torch reference fixtures) with AddressSanitizer + UndefinedBehaviorSanitizer,
# and run them with CTest. Any report (out-of-bounds, use-after-free, leak, signed overflow,
# misaligned access, ...) aborts the test that triggered it.
#
#   tests/sanitize.sh            build/asan (Debug, top-level CMakeLists, no desktop app)
#   tests/sanitize.sh -R lesson  extra arguments go to ctest
set -euo pipefail
cd "$(dirname "$0")/.."

build=build/asan
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)

echo "==> configure $build (ASan + UBSan)"
cmake -S . -B "$build" "${generator[@]}" \
  -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_CXX_FLAGS="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer" \
  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
  -DATTN_BUILD_APP=OFF >/dev/null
echo "==> build"
cmake --build "$build" -j 2

# Abort on the first report, with a stack trace; leaks are reports too.
export ASAN_OPTIONS="${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
echo "==> ctest $build"
ctest --test-dir "$build" --output-on-failure -j 2 "$@"
