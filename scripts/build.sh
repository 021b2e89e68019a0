#!/usr/bin/env bash
# Configure and build lgraph into ${BUILD_DIR:-build}. LG_SANITIZE=1 builds
# with AddressSanitizer + UndefinedBehaviorSanitizer (into build-asan by default).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${LG_SANITIZE:-0}" = 1 ]; then
  dir=${BUILD_DIR:-build-asan}
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLG_SANITIZE=ON >/dev/null
else
  dir=${BUILD_DIR:-build}
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
cmake --build "$dir" -j"$(nproc)"
