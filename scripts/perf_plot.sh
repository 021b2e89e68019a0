#!/usr/bin/env bash
# Plot lgraph against oneDNN per workload into docs/img/perf_vs_onednn.png:
# one bar per table row of docs/performance.md that carries a median ratio
# "R.RRx (min-max)" (oneDNN's time over lgraph's: above 1, lgraph is faster),
# with the min-max range as an error bar, grouped by section. Reads the
# tables the benchmarks produced (each section names its command); gnuplot
# (Debian's gnuplot-nox, installed here if missing) draws the chart.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v gnuplot >/dev/null; then
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq gnuplot-nox >/dev/null
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# section | workload | median | min | max, one line per row with a ratio.
awk -F'|' '
  /^## / { sec = substr($0, 4); sub(/ \(.*/, "", sec); next }
  /^\|/ {
    for (i = 3; i <= NF; i++)
      if (match($i, /[0-9.]+x \([0-9.]+-[0-9.]+\)/)) {
        r = substr($i, RSTART, RLENGTH); gsub(/[x()]/, "", r); split(r, p, /[ -]+/)
        w = $2; gsub(/^ +| +$/, "", w); gsub(/"/, "", w)
        printf "%d \"%s: %s\" %s %s %s\n", n++, sec, w, p[1], p[2], p[3]
        break
      }
  }' docs/performance.md >"$work/data"
rows=$(wc -l <"$work/data")
if [ "$rows" -eq 0 ]; then echo "perf_plot: no ratio rows in docs/performance.md" >&2; exit 1; fi
height=$((120 + 22 * rows))
gnuplot <<GP
set terminal pngcairo size 1100,${height} font "sans,10" noenhanced
set output "docs/img/perf_vs_onednn.png"
set title "oneDNN time / lgraph time: median of alternated pairs, bars min-max, clipped at 3.\nRight of the red line: lgraph is faster."
set xrange [0:3]
set yrange [-1:${rows}]
set ytics () nomirror
set grid x
set arrow from 1, graph 0 to 1, graph 1 nohead lw 2 lc rgb "#cc0000"
unset key
set offsets 0, 0.2, 0, 0
plot "$work/data" using 3:1:4:5:ytic(2) with xerrorbars pt 7 ps 1 lc rgb "#2060a0"
GP
echo "perf_plot: wrote docs/img/perf_vs_onednn.png ($rows workloads)"
