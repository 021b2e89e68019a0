#!/usr/bin/env bash
# scripts/check_layers.sh must fail on the two kinds of break it guards
# against: a folder include cycle (graph including passes) and a kernel kind
# including another kind's private header. Each is planted in a copy of src/.
set -u
root=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
plant() { # $1: file under src/, $2: the include line; the check must fail naming the file
  rm -rf "$tmp/src" && cp -r "$root/src" "$tmp/src"
  echo "$2" >>"$tmp/src/$1"
  if out=$(bash "$root/scripts/check_layers.sh" "$tmp/src"); then
    echo "check_layers.sh passed with $2 in $1"; fail=1
  elif ! grep -q "$1" <<<"$out"; then
    echo "check_layers.sh failed without naming $1: $out"; fail=1
  fi
}
bash "$root/scripts/check_layers.sh" "$root/src" >/dev/null || { echo "the tree itself fails"; fail=1; }
plant graph/plan.c '#include "passes/ir.h"'
plant primitives/binary/binary.c '#include "primitives/reorder/fast_plan.h"'
plant primitives/conv/conv.c '#include "primitives/eltwise/eltwise_simd.h"'
[ "$fail" = 0 ] && echo "check_layers.sh catches a folder cycle and a private cross-kind include"
exit "$fail"
