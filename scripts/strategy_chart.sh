#!/usr/bin/env bash
# A chart of measured (and predicted) time per strategy and pass switched
# off, from lgraph-run --compare-strategies --csv=FILE output (issue 20 §4).
#   bash scripts/strategy_chart.sh OUT.png FILE.csv [FILE.csv ...]
# Several CSV files (one model and N each) become one panel each, side by
# side, on a log scale. Needs gnuplot (Debian: gnuplot-nox), installed here
# when missing.
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 OUT.png FILE.csv [FILE.csv ...]" >&2; exit 2; }
out=$1; shift
if ! command -v gnuplot >/dev/null; then
  echo "installing gnuplot-nox (Debian)" >&2
  apt-get install -y gnuplot-nox >/dev/null 2>&1 || { apt-get update >/dev/null && apt-get install -y gnuplot-nox >/dev/null; }
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=$#
{
  echo "set terminal pngcairo size $((420 * n + 80)),520 font ',9' noenhanced"
  echo "set output '$out'"
  echo "set multiplot layout 1,$n"
  echo "set datafile separator ','"
  echo "set style data histograms"
  echo "set style histogram clustered gap 1"
  echo "set style fill solid 0.8 border -1"
  echo "set logscale y"
  echo "set ylabel 'ms per run (log)'"
  echo "set xtics rotate by -50 scale 0"
  echo "set key top right"
  echo "set grid ytics"
  i=0
  for csv in "$@"; do
    i=$((i + 1))
    # label: strategy, or "-pass" for OPTIMAL with a pass off
    awk -F, 'NR > 1 { lab = ($4 == "-") ? $3 : "opt -" $4; print lab "," $11 "," $12 }' "$csv" \
      > "$tmp/p$i.csv"
    title=$(awk -F, 'NR == 2 { printf "%s N=%s (%s threads)", $1, $2, ($16 == 0 ? "default" : $16) }' "$csv")
    echo "set title '$title'"
    echo "plot '$tmp/p$i.csv' using 3:xtic(1) title 'measured (median)' lc rgb '#1f77b4', '' using 2 title 'predicted (model_ms)' lc rgb '#ff7f0e'"
  done
  echo "unset multiplot"
} > "$tmp/plot.gp"
gnuplot "$tmp/plot.gp"
echo "wrote $out"
