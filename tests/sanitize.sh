#!/usr/bin/env bash
# Build the native core, the `attn` tool and every registered test (Catch2 core tests, case
# files, the torch reference fixtures) with AddressSanitizer + UndefinedBehaviorSanitizer,
# and run them with CTest. Any report (out-of-bounds, use-after-free, leak, signed overflow,
# misaligned access, ...) aborts the test that triggered it.
#
#   tests/sanitize.sh            preset asan (CMakePresets.json): build/asan, clang-14, Debug, no desktop app
#                                (the libFuzzer targets of tests/fuzz/ are built in the same tree)
#   tests/sanitize.sh -R lesson  extra arguments go to ctest
set -euo pipefail
cd "$(dirname "$0")/.."

build=build/asan

echo "==> configure $build (preset asan: clang-14, ASan + UBSan, Debug, no desktop app)"
cmake --preset asan >/dev/null
echo "==> build"
cmake --build --preset asan

# Abort on the first report, with a stack trace; leaks are reports too.
export ASAN_OPTIONS="${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
echo "==> ctest $build"
ctest --preset asan -j 2 "$@"
