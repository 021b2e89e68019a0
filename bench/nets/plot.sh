#!/usr/bin/env bash
# Draw the whole-network chart from run.py's --json file: time per network
# and batch for lgraph (OPTIMAL), ONNX Runtime and PyTorch, as multiples of
# lgraph's time (the median of per-round ratios peer / lgraph; lgraph = 1,
# a taller bar is a slower runtime), one bar group per row.
#   bash bench/nets/plot.sh NETS.json OUT.png
# Needs gnuplot (Debian gnuplot-nox; installed here when missing).
set -euo pipefail
json=${1:?usage: plot.sh NETS.json OUT.png}
png=${2:?usage: plot.sh NETS.json OUT.png}
if ! command -v gnuplot > /dev/null; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gnuplot-nox > /dev/null
fi
dat=$(mktemp)
trap 'rm -f "$dat"' EXIT
/usr/bin/python3 - "$json" > "$dat" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))["rows"]
for r in rows:
    print('"%s N=%d" 1.0 %.4f %.4f' % (r["model"], r["batch"], r["ratio_ort"][0],
                                       r["ratio_torch"][0]))
PY
gnuplot <<GP
set terminal pngcairo size 1200,500 font ",10" noenhanced
set output "$png"
set title "Whole networks, 2 threads: time relative to lgraph OPTIMAL (higher = slower than lgraph)"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set ylabel "time / lgraph time"
set yrange [0:*]
set grid ytics
set xtics rotate by -20
set key top left
set rmargin 10
set bmargin 5
plot "$dat" using 2:xtic(1) title "lgraph OPTIMAL", '' using 3 title "ONNX Runtime", '' using 4 title "PyTorch (best mode)"
GP
echo "plot.sh: wrote $png"
