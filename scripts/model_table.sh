#!/usr/bin/env bash
# The cost model against measurement (issue 20): every strategy's predicted
# time (lg_plan_stats.model_ms) beside its measured time on W1-W3
# (build/bench/bench_model) and on resnet50, mobilenet_v2 and
# shufflenet_v2_x1_0 (lgraph-run --compare-strategies: every strategy and
# every optional pass switched off), at N = 1 and 16. Writes, into OUTDIR
# (default build/model_table): one JSON and CSV file per model and N, a
# Markdown table (table.md) and a chart per network (PNG, gnuplot).
#   bash scripts/model_table.sh [OUTDIR]
# Environment: THREADS (default 1: the shipped model is calibrated on one
# thread), ITERS (default 7), BATCHES (default "1 16"; W_BATCHES for W1-W3
# alone), NETS (default the
# three networks), NETDIR (default /tmp/nets; scripts/export_models.py makes
# them). The machine is shared: figures are noisy; min and median are both
# kept.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-build/model_table}
threads=${THREADS:-1}
iters=${ITERS:-7}
batches=${BATCHES:-1 16}
nets=${NETS:-resnet50 mobilenet_v2 shufflenet_v2_x1_0}
netdir=${NETDIR:-/tmp/nets}
mkdir -p "$out"
cmake --build build --target lgraph-run bench_model >/dev/null
for n in ${W_BATCHES:-$batches}; do
  build/bench/bench_model "$iters" "$n" "$threads" > "$out/W_N$n.jsonl"
done
for net in $nets; do
  for n in $batches; do
    build/tools/lgraph-run "$netdir/$net.onnx" --batch="$n" --compare-strategies --json \
      --threads="$threads" --iters="$iters" --warmup=1 --csv="$out/${net}_N$n.csv" \
      > "$out/${net}_N$n.json"
  done
  csvs=()
  for n in $batches; do csvs+=("$out/${net}_N$n.csv"); done
  bash scripts/strategy_chart.sh "$out/${net}.png" "${csvs[@]}" || true
done
/usr/bin/python3 - "$out" <<'PY'
import glob, json, os, sys
out = sys.argv[1]
rows = []
for f in sorted(glob.glob(os.path.join(out, "W_N*.jsonl"))):
    rows += [json.loads(l) for l in open(f) if l.strip()]
for f in sorted(glob.glob(os.path.join(out, "*_N*.json"))):
    rows += json.load(open(f))
def name(r):
    return os.path.basename(r["model"]).replace(".onnx", "")
def err(p, m):
    return 100.0 * (p - m) / m if m > 0 else float("nan")
def best(r):
    # one thread: the process CPU time excludes what other processes took
    c = r.get("cpu_min_ms") if r.get("threads") == 1 else None
    return c if c else min(r["min_ms"], r.get("step_min_ms") or r["min_ms"])
lines = ["| model | N | strategy | pass off | predicted ms | measured: median | min | CPU min | error vs CPU min |",
         "|---|---|---|---|---|---|---|---|---|"]
groups = {}
for r in rows:
    groups.setdefault((name(r), r["batch"]), []).append(r)
worst = 0.0
for key in sorted(groups):
    for r in groups[key]:
        e = err(r["model_ms"], best(r))
        worst = max(worst, abs(e))
        lines.append("| %s | %d | %s | %s | %.3f | %.3f | %.3f | %.3f | %+.0f%% |" % (
            key[0], key[1], r["strategy"], r.get("disabled") or "-", r["model_ms"],
            r["median_ms"], r["min_ms"], best(r), e))
lines.append("")
lines.append("| model | N | strategies by predicted time | by measured time (CPU min) | same order |")
lines.append("|---|---|---|---|---|")
for key in sorted(groups):
    st = [r for r in groups[key] if not r.get("disabled")]
    p = [r["strategy"] for r in sorted(st, key=lambda r: r["model_ms"])]
    m = [r["strategy"] for r in sorted(st, key=best)]
    lines.append("| %s | %d | %s | %s | %s |" % (key[0], key[1], " < ".join(p), " < ".join(m),
                                                "yes" if p == m else "no"))
open(os.path.join(out, "table.md"), "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
print("worst |error| vs best: %.0f%%" % worst)
PY
