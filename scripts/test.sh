#!/usr/bin/env bash
# Set everything up, build, and run the whole test suite (CTest + Criterion).
# LG_SANITIZE=1 runs it under AddressSanitizer + UndefinedBehaviorSanitizer.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh >/dev/null
if [ "${LG_SANITIZE:-0}" = 1 ]; then dir=${BUILD_DIR:-build-asan}; else dir=${BUILD_DIR:-build}; fi
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
ctest --test-dir "$dir" --output-on-failure -j"$(nproc)"
