#!/usr/bin/env bash
# lgraph-run's options: a value that is not wholly a number of the option's
# range is refused (exit 2) with a message naming the option, before any
# model is read; valid values get past the parser (the missing model is
# then the error, exit 1).
#   lgraph_run_args.sh LGRAPH_RUN
set -uo pipefail
run=$1
fail=0
check() { # want_rc want_text args...
  local want=$1 text=$2 out rc
  shift 2
  out=$("$run" /nonexistent/model.onnx "$@" 2>&1)
  rc=$?
  if [ "$rc" != "$want" ] || [[ "$out" != *"$text"* ]]; then
    echo "FAIL: lgraph-run $*: exit $rc, want $want with '$text'; got: $out"
    fail=1
  fi
}
# refused by the parser
for a in --batch=0 --batch=-2 --batch=4x --batch= --batch=99999999999999999999; do
  check 2 "--batch takes an integer" "$a"
done
for a in --iters=1O --iters=-1 --iters=99999999999 --iters=; do check 2 "--iters takes" "$a"; done
for a in --warmup=x --warmup=-1; do check 2 "--warmup takes" "$a"; done
for a in --threads=two --threads=-1 --threads=2147483648; do check 2 "--threads takes" "$a"; done
for a in --tol=abc --tol=-1e-3 --tol=inf --tol=nan --tol=1e-3x; do check 2 "--tol takes" "$a"; done
for a in --seed=x --seed=-1 --seed=18446744073709551616 --seed=1.5; do check 2 "--seed takes" "$a"; done
for a in --micro-batch=0 --micro-batch=2x --micro-batch=; do
  check 2 "--micro-batch takes a batch >= 1 or auto" "$a"
done
check 2 "unknown option" --bogus
# accepted by the parser: the model is what fails
check 1 "cannot open" --batch=4 --iters=3 --warmup=0 --threads=2 --tol=1e-3 --seed=18446744073709551615
check 1 "cannot open" --micro-batch=auto --iters=0
check 1 "cannot open" --batch=4 --micro-batch=2 --tol=0
if [ "$fail" = 0 ]; then echo "lgraph_run_args: all cases as expected"; fi
exit "$fail"
