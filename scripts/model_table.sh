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
# them), TABLE_ONLY=1 (only rebuild table.md from OUTDIR's files). The
# machine is shared: figures are noisy; min and median are both kept.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-build/model_table}
threads=${THREADS:-1}
iters=${ITERS:-7}
batches=${BATCHES:-1 16}
nets=${NETS:-resnet50 mobilenet_v2 shufflenet_v2_x1_0}
netdir=${NETDIR:-/tmp/nets}
mkdir -p "$out"
if [ "${TABLE_ONLY:-0}" != 1 ]; then
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
fi
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
lines = ["| model | N | strategy | pass off | predicted ms | measured: median | min | best | error vs best | error vs median |",
         "|---|---|---|---|---|---|---|---|---|---|"]
groups = {}
for r in rows:
    groups.setdefault((name(r), r["batch"]), []).append(r)
worst = worst_med = 0.0
for key in sorted(groups):
    for r in groups[key]:
        e, em = err(r["model_ms"], best(r)), err(r["model_ms"], r["median_ms"])
        if not r.get("disabled"):
            worst, worst_med = max(worst, abs(e)), max(worst_med, abs(em))
        lines.append("| %s | %d | %s | %s | %.3f | %.3f | %.3f | %.3f | %+.0f%% | %+.0f%% |" % (
            key[0], key[1], r["strategy"], r.get("disabled") or "-", r["model_ms"],
            r["median_ms"], r["min_ms"], best(r), e, em))
# Ranking, ties aside: predicted times within PTIE of each other are one
# plan's or a tie; measured times within MTIE are the machine's noise. Two
# strategies disagree when the model orders them (apart by more than PTIE)
# and the measurement orders them the other way (by more than MTIE).
PTIE, MTIE = 0.01, 0.03
def order(st, f, tie, sym):
    st = sorted(st, key=f)
    out = st[0]["strategy"]
    for a, b in zip(st, st[1:]):
        out += (" %s " % sym if f(b) <= f(a) * (1 + tie) else " < ") + b["strategy"]
    return out
lines.append("")
lines.append("| model | N | by predicted time (= within 1%) | by measured best (~ within 3%) | disagreements |")
lines.append("|---|---|---|---|---|")
bad = 0
for key in sorted(groups):
    st = [r for r in groups[key] if not r.get("disabled")]
    dis = []
    for i, a in enumerate(st):
        for b in st[i + 1:]:
            pa, pb, ma, mb = a["model_ms"], b["model_ms"], best(a), best(b)
            if abs(pa - pb) <= PTIE * min(pa, pb) or abs(ma - mb) <= MTIE * min(ma, mb):
                continue
            if (pa < pb) != (ma < mb):
                dis.append("%s / %s" % (a["strategy"], b["strategy"]))
    bad += len(dis)
    lines.append("| %s | %d | %s | %s | %s |" % (key[0], key[1],
                 order(st, lambda r: r["model_ms"], PTIE, "="), order(st, best, MTIE, "~"),
                 ", ".join(dis) or "none"))
open(os.path.join(out, "table.md"), "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
print("strategy rows: worst |error| vs best %.0f%%, vs median %.0f%%; ranking disagreements: %d"
      % (worst, worst_med, bad))
PY
