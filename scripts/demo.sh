#!/usr/bin/env bash
# Set everything up, build, and run the main demo.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh >/dev/null
./"${BUILD_DIR:-build}"/samples/memory_formats
