#!/usr/bin/env bash
# The four kernels of issue 17 part 4 against oneDNN, several rounds in one
# command:
#
#   bash scripts/parity_rounds.sh [ROUNDS] [PAIRS]     (default 10 rounds, 15 pairs)
#
# A round runs, one after another, with OMP_NUM_THREADS (default 2):
# bench_conv "128->128" (the 3x3 row), bench_conv 7x7, bench_reorder
# 'nchw->nChw16c' and bench_shuffle (the nhwc g4 row), each PAIRS
# alternated pairs. Prints one Markdown row per round (UTC time, 1-minute
# load average, each workload's oneDNN / lgraph time with its min-max,
# and lgraph's reorder time in ms, which tells the host's memory state: on
# the Zen 5 host about 0.4 ms when memory is quiet, 0.7 ms and more when
# it is contended), then each column's median over the rounds with
# the rounds' min-max.
# Builds first with scripts/build.sh if build/bench is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-10}
pairs=${2:-15}
case "$rounds$pairs" in *[!0-9]*) rounds=0 ;; esac
if [ "$rounds" -lt 1 ] || [ "$pairs" -lt 1 ]; then
  echo "usage: parity_rounds.sh [ROUNDS] [PAIRS]   (both at least 1)" >&2
  exit 2
fi
[ -x build/bench/bench_conv ] || bash scripts/build.sh >/dev/null
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-2}
b=build/bench
# cell COLUMN: the ratio cell "R.RRx (min-max)" of a Markdown row on stdin
cell() { awk -F'|' -v c="$1" '{ gsub(/^ +| +$/, "", $c); print $c; exit }'; }
echo "threads: $OMP_NUM_THREADS, pairs per workload: $pairs"
echo
echo "| round | UTC | load | conv 3x3 128->128 28x28 N=8 | conv 7x7 s2 3->64 224x224 N=1 | reorder nchw->nChw16c 8x256x56x56 | shuffle nhwc 8x256x56x56 g4 | lgraph reorder ms |"
echo "|---|---|---|---|---|---|---|---|"
rows=$(mktemp)
trap 'rm -f "$rows"' EXIT
for r in $(seq 1 "$rounds"); do
  t=$(date -u +%H:%M:%S)
  load=$(cut -d' ' -f1 /proc/loadavg)
  c3=$("$b/bench_conv" "$pairs" "128->128" | grep '^| 3x3 128->128' | cell 7)
  c7=$("$b/bench_conv" "$pairs" 7x7 | grep '^| 7x7' | cell 7)
  ro_row=$("$b/bench_reorder" "$pairs" 'nchw->nChw16c' | grep '^| nchw->nChw16c |')
  ro=$(echo "$ro_row" | cell 5)
  ro_ms=$(echo "$ro_row" | cell 4)
  sh=$("$b/bench_shuffle" "$pairs" | grep '^| f32 nhwc 8x256x56x56 g4' | cell 6)
  echo "| $r | $t | $load | $c3 | $c7 | $ro | $sh | $ro_ms |" | tee -a "$rows"
done
# each column over the rounds: the median of the rounds' medians, with
# their min-max (ratio columns 5-8, the reorder time 9)
awk -F'|' '
  { n = NR; for (c = 5; c <= 9; c++) { v = $c; gsub(/^ +|x.*$| +$/, "", v); a[c, NR - 1] = v + 0 } }
  END {
    printf "| median of %d rounds (min-max) | | |", n
    for (c = 5; c <= 9; c++) {
      for (i = 0; i < n; i++) s[i] = a[c, i]
      for (i = 1; i < n; i++) for (j = i; j > 0 && s[j - 1] > s[j]; j--) { t = s[j]; s[j] = s[j - 1]; s[j - 1] = t }
      m = n % 2 ? s[int(n / 2)] : (s[n / 2 - 1] + s[n / 2]) / 2
      printf (c < 9 ? " %.3fx (%.2f-%.2f) |" : " %.3f (%.3f-%.3f) |"), m, s[0], s[n - 1]
    }
    printf "\n"
  }' "$rows"
