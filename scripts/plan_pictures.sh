#!/usr/bin/env bash
# Render the compiled plans of W1 (samples/shufflenet_unit) and W2
# (samples/resnet_block) under NONE, GREEDY and OPTIMAL into
# docs/img/plan_{w1,w2}_{none,greedy,optimal}.png for docs/propagation.md.
# The samples write each plan's Graphviz DOT (lg_plan_dump "dot"); Graphviz's
# dot (Debian's graphviz, installed here if missing) draws it.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
if ! command -v dot >/dev/null; then
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq graphviz >/dev/null
fi
build=${BUILD_DIR:-build}
BUILD_DIR=$build bash scripts/build.sh >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
"$root/$build/samples/shufflenet_unit" 1 1 >/dev/null
"$root/$build/samples/resnet_block" 1 1 >/dev/null
for s in none greedy optimal; do
  dot -Tpng -Gdpi=72 "shufflenet_unit_$s.dot" -o "$root/docs/img/plan_w1_$s.png"
  dot -Tpng -Gdpi=72 "resnet_block_$s.dot" -o "$root/docs/img/plan_w2_$s.png"
done
echo "plan_pictures: wrote docs/img/plan_w{1,2}_{none,greedy,optimal}.png"
