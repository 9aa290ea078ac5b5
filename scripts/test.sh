#!/usr/bin/env bash
# Run every test: installs what is missing (scripts/setup.sh), then builds and
# tests the native preset (Catch2 core tests, attn cases, PyTorch reference
# fixtures, headless ImGui), the same tests under ASan+UBSan, bounded fuzzing,
# and the web preset (the same core tests compiled with em++ under node, attn.js
# cases, browser end-to-end tests in headless Chromium).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh
export NODE_PATH=/usr/share/nodejs  # Debian's emscripten imports acorn from there

status=0
run() { echo "==> $*"; "$@"; }

run cmake --preset native
run cmake --build --preset native
run ctest --preset native -j2 || status=1

# The native tests again under AddressSanitizer + UndefinedBehaviorSanitizer (build/asan),
# then each libFuzzer target for a bounded time (build/asan, the same clang build; longer runs: see tests/fuzz/run.sh).
run tests/sanitize.sh || status=1
run tests/fuzz/run.sh "${ATTN_FUZZ_SECONDS:-30}" || status=1

run cmake --preset web
run cmake --build --preset web
run ctest --preset web -j2 || status=1

if [ "$status" -ne 0 ]; then
  echo "Some tests failed (see above; browser screenshots are in test-artifacts/)." >&2
fi
exit "$status"
