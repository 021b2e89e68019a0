#!/usr/bin/env bash
# Programs under valgrind memcheck: zero errors (invalid accesses, uses of
# uninitialised values, bad frees) and zero definitely or indirectly lost
# blocks. Runs the plain build (${BUILD_DIR:-build}): the sample, and every
# fuzz replay driver over its committed corpus (kernel creation and
# execution of every kind, without Criterion's forks).
#
# "Possibly lost" blocks are reported but not errors: libgomp keeps its
# worker threads parked until exit, and their thread-local blocks (glibc's
# pthread_create) are reachable only through interior pointers then. They
# are not lgraph allocations; definite and indirect leaks would be.
# valgrind does not emulate AVX-512: under it, lgraph finds AVX2 at most.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
dir=${BUILD_DIR:-build}
bash scripts/build.sh >/dev/null

# Programs (relative to the build dir) and their arguments. Add one here.
runs=("samples/memory_formats")
for bin in "$dir"/tests/fuzz_replay_*; do
  t=${bin##*/fuzz_replay_}
  runs+=("tests/fuzz_replay_$t tests/fuzz/corpus/$t")
done

for r in "${runs[@]}"; do
  read -r prog args <<< "$r"
  log="$dir/valgrind-${prog##*/}.log"
  start=$(date +%s)
  # shellcheck disable=SC2086
  if ! valgrind --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite,indirect \
       --show-leak-kinds=definite,indirect,possible "$dir/$prog" $args > /dev/null 2> "$log"; then
    cat "$log"
    echo "valgrind: $prog FAILED"
    exit 1
  fi
  errors=$(grep -o 'ERROR SUMMARY: [0-9]* errors' "$log" | grep -o '[0-9]*' || echo "?")
  possibly=$(grep -o 'possibly lost: [0-9,]* bytes' "$log" | grep -o '[0-9,]* bytes' || echo "0 bytes")
  echo "valgrind: $prog $args: $errors errors, no leak ($possibly possibly lost) in $(( $(date +%s) - start )) s"
done
