#!/usr/bin/env bash
# Set everything up, build, and run the main demo (samples/shufflenet_unit.c).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh >/dev/null
# The main demo: ShuffleNet's unit compiled under NONE, GREEDY and OPTIMAL
# (it writes each plan's Graphviz DOT next to the binary).
cd "${BUILD_DIR:-build}"/samples
./shufflenet_unit 1 10
