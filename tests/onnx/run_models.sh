#!/usr/bin/env bash
# Export models of scripts/export_models.py with PyTorch (once per directory,
# again when the script changes), then run each through lgraph-run under
# every strategy and compare with PyTorch's output:
# max |lgraph - torch| <= 1e-4 * max |torch| (lgraph-run's --compare).
#   run_models.sh LGRAPH_RUN MODEL_DIR SOURCE_DIR
# MODELS= names the models (default: the small blocks, exported together);
# BATCHES= (default "1 4") and STRATEGIES= (default "none greedy optimal")
# choose the runs; NONE_BATCHES= (default "1") the batches NONE runs at (its
# plain-layout plans take minutes on ResNet-50 at N = 4: the same kernels as
# at N = 1, so nothing more is checked).
set -euo pipefail
run=$1 dir=$2 src=$3
py=/usr/bin/python3
if ! "$py" -c 'import torch, torchvision' 2>/dev/null; then
  echo "onnx_models: skipped: python3-torch is not installed (scripts/setup.sh installs it)"
  exit 77
fi
mkdir -p "$dir"
read -r -a names <<< "${MODELS:-}"
batches=${BATCHES:-1 4}
strategies=${STRATEGIES:-none greedy optimal}
none_batches=" ${NONE_BATCHES:-1} "
# Export what is missing or older than the exporter.
export_if_stale() { # name...
  local stale=()
  for name in "$@"; do
    if [ ! -f "$dir/$name.onnx" ] || [ "$src/scripts/export_models.py" -nt "$dir/$name.onnx" ]; then
      stale+=("$name")
    fi
  done
  if [ ${#stale[@]} -gt 0 ]; then
    OMP_NUM_THREADS=2 "$py" "$src/scripts/export_models.py" "$dir" "${stale[@]}" >/dev/null
  fi
}
if [ ${#names[@]} -eq 0 ]; then
  stamp="$dir/.exported"
  if [ ! -f "$stamp" ] || [ "$src/scripts/export_models.py" -nt "$stamp" ]; then
    OMP_NUM_THREADS=2 "$py" "$src/scripts/export_models.py" "$dir" >/dev/null
    touch "$stamp"
  fi
  mapfile -t names < <(OMP_NUM_THREADS=1 "$py" -c "import sys; sys.path.insert(0, '$src/scripts'); import export_models; print('\n'.join(sorted(export_models.models())))")
else
  export_if_stale "${names[@]}"
fi
# The same top-1 class in every row (a classifier's N x classes output;
# other outputs: the argmax of each row of the flattened rest).
top1_same() { # got.npy want.npy
  "$py" -c '
import sys, numpy as np
g, w = (np.load(f) for f in sys.argv[1:3])
g, w = g.reshape(g.shape[0], -1), w.reshape(w.shape[0], -1)
same = (g.argmax(1) == w.argmax(1))
print("%d of %d rows agree" % (same.sum(), len(same)))
sys.exit(0 if same.all() else 1)' "$1" "$2"
}
pass=0 fail=0
for name in "${names[@]}"; do
  model="$dir/$name.onnx"
  for n in $batches; do
    # Each strategy; above N = 1, OPTIMAL also micro-batched (one item per
    # slice, and lgraph-run's automatic choice).
    runs=()
    for s in $strategies; do runs+=("$s"); done
    if [ "$n" -gt 1 ] && [[ " $strategies " == *" optimal "* ]]; then
      runs+=("optimal --micro-batch=1" "optimal --micro-batch=auto")
    fi
    for r in "${runs[@]}"; do
      read -r s extra <<< "$r"
      if [ "$s" = none ] && [[ "$none_batches" != *" $n "* ]]; then continue; fi
      got="$dir/$name.got$n.$s.npy"
      # shellcheck disable=SC2086 # extra is one option or none
      if out=$("$run" "$model" --batch=$n --strategy=$s --input="$dir/$name.in$n.npy" $extra \
               --compare="$dir/$name.out$n.npy" --output="$got" --iters=1 --warmup=0 2>&1) &&
         top1=$(top1_same "$got" "$dir/$name.out$n.npy"); then
        pass=$((pass + 1))
        out="$out"$'\n'"compare top-1: $top1"
      else
        fail=$((fail + 1))
        echo "FAILED: $name N=$n $r ${top1:-}"
      fi
      echo "$out" | grep -E 'compare|lgraph-run' | sed "s|^|$name N=$n $r: |"
    done
  done
done
# --profile: one table row per plan step, summaries by node kind and layer
# class whose shares add up to 100%, the same in --json.
for name in "${names[@]}"; do
  model="$dir/$name.onnx"
  if ! txt=$("$run" "$model" --profile --iters=3 --warmup=1 2>&1) ||
     ! echo "$txt" | awk '
       /^profile: [0-9]+ steps/ { n = $2 }
       /^ *[0-9]+ [a-z_]+ +[a-z_0-9]+ +[a-z_]+:/ { rows++ }
       /^by node kind:/ { sec = 1; next } /^by layer class:/ { sec = 2; next }
       sec && /%/ { sh[sec] += $4 + 0 }
       END { exit !(n > 0 && rows == n && sh[1] > 99 && sh[1] < 101 && sh[2] > 99 && sh[2] < 101) }'
  then
    fail=$((fail + 1)); echo "FAILED: $name --profile"; echo "$txt"
  else
    pass=$((pass + 1))
  fi
  if ! "$run" "$model" --profile --json --iters=3 --warmup=1 | "$py" -c '
import json, sys
r = json.load(sys.stdin); p = r["profile"]; s = p["steps"]
assert len(s) == r["steps"] > 0, (len(s), r["steps"])
assert all(e["impl"] and e["kind"] and e["class"] and e["ms"] >= 0 and e["bytes"] > 0 for e in s)
for g in ("by_kind", "by_class"):
    assert sum(v["steps"] for v in p[g].values()) == len(s)
    assert abs(sum(v["share"] for v in p[g].values()) - 1) < 0.01 or p["step_sum_ms"] == 0
'; then
    fail=$((fail + 1)); echo "FAILED: $name --profile --json"
  else
    pass=$((pass + 1))
  fi
done
echo "onnx_models: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
