#!/usr/bin/env bash
# Fuzz every target of tests/cmake/fuzz.cmake for a bounded time with
# libFuzzer + AddressSanitizer + UndefinedBehaviorSanitizer (clang), into
# ${BUILD_DIR:-build-fuzz}.
#
#   bash scripts/fuzz.sh                 # every target, LG_FUZZ_SECONDS (30) each
#   LG_FUZZ_SECONDS=600 bash scripts/fuzz.sh reorder shuffle
#   LG_FUZZ_MERGE=1 bash scripts/fuzz.sh # then fold new edges into tests/fuzz/corpus
#   LG_FUZZ_OPT=-O1 bash scripts/fuzz.sh # optimise (slow to build, faster to run)
#
# Targets run LG_FUZZ_JOBS at a time (default: one per core), so the wall
# time is about LG_FUZZ_SECONDS x targets / cores.
#
# Each run starts from the committed corpus tests/fuzz/corpus/<target>/ (read
# only) and a scratch corpus under the build dir. A crash stops the script
# with the input that caused it: fix the bug, then commit that input to
# tests/fuzz/corpus/<target>/ so the normal test suite replays it for ever
# (fuzz_replay_<target>, docs/reliability.md).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
dir=${BUILD_DIR:-build-fuzz}
secs=${LG_FUZZ_SECONDS:-30}
# libFuzzer's random seed: 0 picks a new one per run (exploration); CI fixes
# it (LG_FUZZ_SEED=1) so a red CI names a reproducible input, not luck.
seed=${LG_FUZZ_SEED:-0}
# -O0 with line tables (file:line in every report). Clang 14 at -O1 with
# ASan, UBSan and coverage together needs over 5 CPU minutes for each of the
# conv kernel files (direct_avx2.c, direct_avx512.c; 11 s at -O0; 35 to 48 s
# with any two of the three at -O1): that alone would exceed CI's budget.
CC=clang cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Fuzz -DCMAKE_C_FLAGS_FUZZ="${LG_FUZZ_OPT:--O0} -gline-tables-only" \
  -DLG_SANITIZE=ON -DLG_FUZZ=ON \
  -DLG_BUILD_BENCH=OFF -DLG_BUILD_SAMPLES=OFF -DLG_WITH_DNNL=OFF \
  -DCMAKE_C_FLAGS="-fsanitize=fuzzer-no-link" >/dev/null
cmake --build "$dir" -j"$(nproc)" --target fuzz_all >/dev/null
if [ $# -gt 0 ]; then targets=("$@"); else mapfile -t targets < "$dir/fuzz_targets.txt"; fi
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# One OpenMP thread: libFuzzer runs one input at a time, and a pool of idle
# threads only slows every input down.
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
# Fuzz one target; its verdict goes to $work/verdict (0 or 1).
fuzz_one() {
  local t=$1 work="$dir/fuzz-work/$1" start
  mkdir -p "$work/corpus" "$work/artifacts" "tests/fuzz/corpus/$t"
  local dict=()
  [ -f "tests/fuzz/$t.dict" ] && dict=(-dict="tests/fuzz/$t.dict")
  start=$(date +%s)
  if ! "$dir/tests/fuzz_$t" -max_total_time="$secs" -seed="$seed" -timeout=20 -rss_limit_mb=2048 -max_len=1024 \
       -print_final_stats=1 -artifact_prefix="$work/artifacts/" "${dict[@]}" \
       "$work/corpus" "tests/fuzz/corpus/$t" > "$work/log" 2>&1; then
    echo 1 > "$work/verdict"
    return
  fi
  local runs cov
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log")
  cov=$(grep -o 'cov: [0-9]*' "$work/log" | tail -n 1)
  echo "fuzz: $t: $runs inputs in $(( $(date +%s) - start )) s, $cov edges, no failure" > "$work/summary"
  if [ "${LG_FUZZ_MERGE:-0}" = 1 ]; then
    "$dir/tests/fuzz_$t" -merge=1 -use_counters=0 -max_len=1024 "tests/fuzz/corpus/$t" \
      "$work/corpus" > "$work/merge.log" 2>&1
    echo "fuzz: $t: corpus now $(ls "tests/fuzz/corpus/$t" | wc -l) files" >> "$work/summary"
  fi
  echo 0 > "$work/verdict"
}

# Targets run LG_FUZZ_JOBS (default: one per core) at a time. GNU nproc
# answers OMP_NUM_THREADS (set to 1 above), so it is asked without it:
# with it, the targets ran one at a time on every machine.
par=${LG_FUZZ_JOBS:-$(env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc)}
for t in "${targets[@]}"; do
  rm -f "$dir/fuzz-work/$t/verdict" "$dir/fuzz-work/$t/summary"
  fuzz_one "$t" &
  while [ "$(jobs -rp | wc -l)" -ge "$par" ]; do wait -n || true; done
done
wait
failed=0
for t in "${targets[@]}"; do
  work="$dir/fuzz-work/$t"
  if [ "$(cat "$work/verdict" 2>/dev/null)" = 0 ]; then
    cat "$work/summary"
    continue
  fi
  failed=1
  tail -n 60 "$work/log"
  echo "fuzz: $t FAILED; the input is in $work/artifacts/:"
  ls -1 "$work/artifacts/"
  echo "fuzz: after the fix, commit it as tests/fuzz/corpus/$t/<name> (replayed by ctest)"
done
exit $failed
