#!/usr/bin/env bash
# Run oneDNN's own benchdnn batch files through lgbench (correctness mode)
# for reorder, shuffle, eltwise, binary and conv, and print per driver: run,
# passed, failed, crashed, skipped by reason, and the share of the
# forward-inference f32/bf16/f16/s8/u8 problems that were skipped.
#
#   scripts/benchdnn_suite.sh [DIR]
#
# DIR holds oneDNN's tests/benchdnn/inputs/<driver>/ folders (default:
# ../shared/benchdnn relative to the repository). The batch files are read
# from there, never copied. Environment:
#   LGBENCH=path       the lgbench binary (default build/bench/lgbench; built
#                      with scripts/build.sh when missing)
#   EVERY_<driver>=N   run every N-th expanded problem of that driver only
#                      (deterministic sampling; default 1, conv 100: its
#                      126,000 problems take hours of scalar reference here)
#   BATCH_<driver>=F   the batch file (default test_<driver>_all)
#   DRIVERS="a b"      the drivers to run (default: reorder shuffle eltwise
#                      binary conv)
#   LOG_DIR=dir        where each driver's full lgbench output goes
#                      (default build/benchdnn_suite)
# Exit status: 0 when no problem failed or crashed, 1 otherwise.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
dir=${1:-../shared/benchdnn}
dir=$(cd "$dir" 2>/dev/null && pwd) || {
  echo "benchdnn_suite: no directory ${1:-../shared/benchdnn}" >&2
  exit 2
}
lgbench=${LGBENCH:-$root/build/bench/lgbench}
if [ ! -x "$lgbench" ]; then
  bash scripts/build.sh >/dev/null || exit 2
fi
logs=${LOG_DIR:-$root/build/benchdnn_suite}
mkdir -p "$logs"

# Skip reasons that are not forward-inference problems in the five types
# (or that benchdnn itself skips): excluded from the 5% share.
out_of_scope='backward out of scope|data type out of scope|invalid case'

status=0
printf '| driver | batch | sampled | run | passed | failed | crashed | skipped | in-scope skipped |\n'
printf '| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |\n'
reasons=""
for drv in ${DRIVERS:-reorder shuffle eltwise binary conv}; do
  def_every=1
  [ "$drv" = conv ] && def_every=100
  var=EVERY_$drv
  every=${!var:-$def_every}
  var=BATCH_$drv
  batch=${!var:-test_${drv}_all}
  log=$logs/$drv.log
  if [ ! -f "$dir/$drv/$batch" ]; then
    echo "benchdnn_suite: $dir/$drv/$batch not found" >&2
    status=1
    continue
  fi
  (cd "$dir/$drv" && "$lgbench" --every="$every" "--$drv" --batch="$batch") >"$log" 2>/dev/null
  rc=$?
  summary=$(grep -E '^tests:[0-9]+ passed:' "$log" | tail -1)
  crashed=0
  if [ -z "$summary" ] || [ "$rc" -gt 1 ]; then
    crashed=1 # killed by a signal, or stopped on a batch it could not read
    status=1
  fi
  get() { printf '%s\n' "$summary" | sed -n "s/.*$1:\([0-9]*\).*/\1/p"; }
  run=$(get tests)
  passed=$(get passed)
  failed=$(get failed)
  skipped=$(get skipped)
  [ "${failed:-0}" != 0 ] && status=1
  oos=$(grep -E "^skipped:[0-9]+ ($out_of_scope)" "$log" | sed 's/^skipped:\([0-9]*\).*/\1/' |
    awk '{s += $1} END {print s + 0}')
  scope=$((${run:-0} - oos))
  inskip=$((${skipped:-0} - oos))
  pct=$(awk -v a="$inskip" -v b="$scope" 'BEGIN {printf "%.1f", b ? 100 * a / b : 0}')
  sampled=all
  [ "$every" != 1 ] && sampled="1 in $every"
  printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s of %s (%s%%) |\n' "$drv" "$batch" \
    "$sampled" "${run:-?}" "${passed:-?}" "${failed:-?}" "$crashed" "${skipped:-?}" \
    "$inskip" "$scope" "$pct"
  reasons+=$(grep -E '^skipped:[0-9]+ ' "$log" | sed "s/^skipped:\([0-9]*\) \(.*\)/| $drv | \2 | \1 |/")
  reasons+=$'\n'
done
printf '\n| driver | skipped because | problems |\n| --- | --- | ---: |\n%s' "$reasons"
exit $status
