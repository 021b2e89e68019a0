#!/usr/bin/env python3
"""Predicted (lg_plan_stats.model_ms) against measured time per strategy on
one ONNX network, on one thread, measured by the process CPU time (the
fastest of K runs after one warm-up; a run over 3 s is run once), which
leaves out what other processes took of the core on a shared machine. One
JSON object per strategy on stdout (the fields of bench_model's lines).
  python3 scripts/model_cpu.py CHECKOUT MODEL.onnx N STRATEGIES K [NONE_MAX_MS]
STRATEGIES: comma-separated none,greedy,optimal,opt_min (opt_min: OPTIMAL
with optimal_margin 0, the model's minimum as it is); NONE is skipped when its
predicted time exceeds NONE_MAX_MS (ResNet-50 at N = 16: 5 minutes)."""
import ctypes, json, sys, time
sys.path.insert(0, sys.argv[1] + "/python")
import numpy as np
import lgraph
from lgraph import _lib
lib = _lib.lib
net, batch, strategies, iters = sys.argv[2], int(sys.argv[3]), sys.argv[4].split(","), int(sys.argv[5])
none_max = float(sys.argv[6]) if len(sys.argv) > 6 else 1e9
g, ins, outs = lgraph.load_onnx(net, batch=batch)
rows = []
for st in strategies:
    if st == "opt_min":
        plan = g.compile(strategy="optimal", threads=1, optimal_margin=0)
    else:
        plan = g.compile(strategy=st, threads=1)
    s = plan.stats()
    if st == "none" and s["model_ms"] > none_max:
        continue
    keep, bi, bo = [], [], []
    rng = np.random.default_rng(1)
    for names, lst in ((ins, bi), (outs, bo)):
        for n in names:
            md = plan.md(n)
            buf = rng.uniform(-1, 1, lib.lg_md_size(ctypes.byref(md)) // 4 + 16).astype(np.float32)
            keep.append(buf)
            lst.append(_lib.Binding(n.encode(), buf.ctypes.data))
    ai = (_lib.Binding * len(bi))(*bi)
    ao = (_lib.Binding * len(bo))(*bo)
    cpu, wall = [], []
    k = 0
    while k < iters + 1:
        c0, w0 = time.process_time(), time.perf_counter()
        assert lib.lg_plan_execute(plan._p, len(bi), ai, len(bo), ao) == 0
        c, w = (time.process_time() - c0) * 1e3, (time.perf_counter() - w0) * 1e3
        if k > 0 or c > 3000:
            cpu.append(c); wall.append(w)
        if c > 3000:
            break
        k += 1
    r = {"model": net, "batch": batch, "strategy": st, "disabled": None, "model_ms": s["model_ms"],
         "cpu_min_ms": min(cpu), "median_ms": sorted(wall)[len(wall) // 2], "min_ms": min(wall),
         "runtime_reorders": s["runtime_reorders"], "reorder_bytes": s["reorder_bytes"],
         "steps": s["steps"], "threads": 1, "iters": len(cpu)}
    print(json.dumps(r), flush=True)
