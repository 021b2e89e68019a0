#!/usr/bin/env bash
# Compare a convolution between the library of a git revision (the base)
# and the working tree's build, in one process (bench/bench_ab_conv.c):
#
#   bash scripts/ab_conv.sh BASE_REV [PAIRS] [N,IC,OC,HW,K,STRIDE,PAD]
#   e.g. bash scripts/ab_conv.sh HEAD~1 200 1,3,64,224,7,2,3
#
# Builds BASE_REV's library (target lgraph only) in a temporary worktree and
# the working tree with scripts/build.sh, then runs both with
# OMP_NUM_THREADS (default 2). The ratio printed is time(base) / time(new):
# above 1, the working tree is faster. Run it more than once: the host moves
# every figure, this ratio least.
set -euo pipefail
cd "$(dirname "$0")/.."
rev=${1:?usage: ab_conv.sh BASE_REV [PAIRS] [N,IC,OC,HW,K,STRIDE,PAD]}
pairs=${2:-200}
problem=${3:-8,128,128,28,3,1,1}
tmp=$(mktemp -d)
trap 'git worktree remove --force "$tmp/src" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
git worktree add --detach "$tmp/src" "$rev" >/dev/null 2>&1
cmake -S "$tmp/src" -B "$tmp/build" -DCMAKE_BUILD_TYPE=Release -DLG_BUILD_BENCH=OFF \
  -DLG_BUILD_TESTS=OFF -DLG_BUILD_SAMPLES=OFF >/dev/null
cmake --build "$tmp/build" --target lgraph -j"$(nproc)" >/dev/null
bash scripts/build.sh >/dev/null
base=$(ls "$tmp"/build/liblgraph.so.*.*.* | head -1)
new=$(ls build/liblgraph.so.*.*.* | head -1)
echo "base $rev: $base; new: working tree ($new); problem $problem"
OMP_NUM_THREADS=${OMP_NUM_THREADS:-2} ./build/bench/bench_ab_conv "$base" "$new" "$pairs" "$problem"
