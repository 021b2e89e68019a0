#!/usr/bin/env bash
# The tests that run threads, under ThreadSanitizer, into
# ${BUILD_DIR:-build-tsan}. Built with clang (-fsanitize=thread), so OpenMP
# is LLVM's libomp; GCC's libgomp is not instrumented and would need
# suppressions that hide real races. Two passes:
#   1. OMP_NUM_THREADS=1: the library's own threads only (the callers'
#      pthreads, the kernel cache, reference counts, last-error slots);
#   2. OMP_NUM_THREADS=2 with Archer (libarcher, LLVM's OpenMP tool that
#      tells TSan about OpenMP's barriers and tasks): the kernels' parallel
#      regions too.
# Both with ignore_noninstrumented_modules=1 (as Archer asks): libomp's own
# uninstrumented internals are not reported.
# No suppression file: every report is a failure. Criterion's runner cannot
# start under TSan (Snaipe/Criterion#274), so these test files are compiled
# against tests/reliability/tsan/criterion/criterion.h, an in-process
# stand-in that forks one child per test as Criterion does.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
dir=${BUILD_DIR:-build-tsan}

# CTest name : Criterion filter. Add a concurrency test here (one line);
# a test that sets its own OpenMP thread count (omp_set_num_threads) is
# marked "omp:" and runs in the Archer pass only: its parallel regions run
# several threads, whose barriers only Archer makes known to TSan (without
# it, and before the first pass ignored uninstrumented modules, CI saw a
# report of a mutex libomp initialises on one thread and locks on another).
tests=(
  "reliability_cache_concurrency:*/*"
  "reliability_plan_concurrency:*/*"
  "graph_async:*/*"
  "primitives_cache:*/*"
  "common_status:status/last_error_is_per_thread"
  "primitives_reorder_fast:reorder_fast/plan_shared_by_threads"
  "omp:primitives_reorder_fast:reorder_fast/larger_threaded"
  "primitives_conv_quant_threads:*/*"
  "primitives_shuffle:shuffle/one_kernel_many_threads"
  "primitives_shuffle:shuffle/large_problems_threads_and_streaming"
)

CC=clang cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Tsan -DCMAKE_C_FLAGS_TSAN="-O1 -gline-tables-only" \
  -DLG_BUILD_BENCH=OFF \
  -DLG_BUILD_SAMPLES=OFF -DLG_WITH_DNNL=OFF \
  -DCMAKE_C_FLAGS="-fsanitize=thread -fno-omit-frame-pointer -I$PWD/tests/reliability/tsan" \
  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=thread" >/dev/null
targets=()
for t in "${tests[@]}"; do t=${t#omp:}; targets+=("${t%%:*}"); done
mapfile -t targets < <(printf '%s\n' "${targets[@]}" | sort -u)
cmake --build "$dir" -j"$(nproc)" --target "${targets[@]}" >/dev/null

archer=$(clang -print-resource-dir)/../../libarcher.so
[ -f "$archer" ] || archer=$(ls /usr/lib/llvm-*/lib/libarcher.so 2>/dev/null | head -n 1)
# ignore_noninstrumented_modules=1 in both passes: what libomp (not
# instrumented) does inside itself, through libc's intercepted calls, is not
# reported; every access from lgraph and the tests still is. Without it
# pass 1 reported, now and then, libomp's memset of its own thread-state
# block, freed on one of primitives_cache's eight caller threads and
# reused on another (CI, 2026-11-29).
export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 ignore_noninstrumented_modules=1 ${TSAN_OPTIONS:-}"
run() { # pass-name omp-tests(0|1) env...
  local pass=$1 with_omp=$2; shift 2
  for t in "${tests[@]}"; do
    if [[ $t == omp:* ]]; then
      [ "$with_omp" = 1 ] || { echo "tsan: $pass: ${t#omp:} left to the Archer pass"; continue; }
      t=${t#omp:}
    fi
    local start; start=$(date +%s)
    env "$@" "$dir/tests/${t%%:*}" --jobs 1 --filter "${t#*:}" > "$dir/tsan.log" 2>&1 || {
      cat "$dir/tsan.log"; echo "tsan: $pass: ${t} FAILED"; exit 1; }
    grep -q "ThreadSanitizer" "$dir/tsan.log" && { cat "$dir/tsan.log"; exit 1; }
    echo "tsan: $pass: $t clean ($(( $(date +%s) - start )) s)"
  done
}
run "1 OpenMP thread" 0 OMP_NUM_THREADS=1
if [ -f "$archer" ]; then
  run "2 OpenMP threads + Archer" 1 OMP_NUM_THREADS=2 OMP_TOOL_LIBRARIES="$archer"
else
  echo "tsan: libarcher.so not found (libomp-dev); the OpenMP pass is skipped"
fi
