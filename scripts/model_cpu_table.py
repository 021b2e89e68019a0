#!/usr/bin/env python3
"""Markdown tables of predicted against measured (CPU min) from the JSON
lines of bench_model and scripts/model_cpu.py: per N, every row with its
error, then the strategies' order by prediction and by measurement and
OPTIMAL against GREEDY.  python3 scripts/model_cpu_table.py FILE.jsonl..."""
import json, os, sys

rows = [json.loads(l) for f in sys.argv[1:] for l in open(f) if l.strip()]
name = lambda r: os.path.basename(r["model"]).replace(".onnx", "")
for n in sorted({r["batch"] for r in rows}):
    print("\nN = %d (one thread; measured: the fastest process CPU time):\n" % n)
    print("| model | strategy | runtime reorders | predicted ms | measured ms | predicted vs measured |")
    print("|---|---|---|---|---|---|")
    groups = {}
    for r in rows:
        if r["batch"] == n and not r.get("disabled"):
            groups.setdefault(name(r), []).append(r)
    for m in groups:
        for r in groups[m]:
            e = 100.0 * (r["model_ms"] - r["cpu_min_ms"]) / r["cpu_min_ms"]
            print("| %s | %s | %s | %.3f | %.3f | %+.0f%% |" % (
                m, r["strategy"], r.get("runtime_reorders", "-"), r["model_ms"], r["cpu_min_ms"], e))
    print("\n| model | by predicted time | by measured time | same order | OPTIMAL / GREEDY measured |")
    print("|---|---|---|---|---|")
    for m, g in groups.items():
        # Strategies with the same prediction built the same plan: a tie.
        g = sorted(g, key=lambda r: r["model_ms"])
        tie = lambda a, b: abs(a["model_ms"] - b["model_ms"]) <= 1e-9 * b["model_ms"]
        p = g[0]["strategy"]
        for a, b in zip(g, g[1:]):
            p += (" = " if tie(a, b) else " < ") + b["strategy"]
        key = {}
        for r in g:  # a tied group is measured as its fastest member
            grp = [x for x in g if tie(x, r)]
            key[r["strategy"]] = min(x["cpu_min_ms"] for x in grp)
        q = " < ".join(r["strategy"] for r in sorted(g, key=lambda r: (key[r["strategy"]], r["model_ms"])))
        same = [r["strategy"] for r in g] == [r["strategy"] for r in sorted(g, key=lambda r: (key[r["strategy"]], r["model_ms"]))]
        t = {r["strategy"]: r["cpu_min_ms"] for r in g}
        ratio = "%.3f" % (t["optimal"] / t["greedy"]) if "optimal" in t and "greedy" in t else "-"
        print("| %s | %s | %s | %s | %s |" % (m, p, q, "yes" if same else "no", ratio))
