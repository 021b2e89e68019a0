"""Write a layout strategy in Python and compare it with OPTIMAL on a whole
network (docs/python.md, "Worked example"): a random-restart local search
over the cost model, run against GREEDY and OPTIMAL on an ONNX model.

    PYTHONPATH=python /usr/bin/python3 python/examples/strategy_resnet50.py \\
        /tmp/m/resnet50.onnx [batch] [iters]

The model comes from `scripts/export_models.py DIR resnet50` (PyTorch,
random weights). Prints, per strategy: the plan's modelled cost (`*`:
proven minimal), its predicted and measured time (median of `iters` runs
after a warm-up), runtime reorders, how long the strategy took, and the
largest difference of its output from OPTIMAL's."""
import random
import sys
import time

import numpy as np

import lgraph


def local_search(problem, restarts=3, seed=1):
    """From GREEDY's choice (configuration 0) and random ones, move one node
    at a time to the configuration that lowers the modelled cost most, until
    no move helps; keep the best of the restarts."""
    rnd = random.Random(seed)
    sizes = [problem.node(i)["num_configs"] for i in range(problem.num_nodes)]
    best, best_cost = None, float("inf")
    for r in range(restarts):
        cur = [0] * len(sizes) if r == 0 else [rnd.randrange(k) for k in sizes]
        cost, better = problem.cost(cur), True
        while better:
            better = False
            for i, k in enumerate(sizes):
                for c in range(k):
                    if c == cur[i]:
                        continue
                    trial = cur[:i] + [c] + cur[i + 1:]
                    t = problem.cost(trial)
                    if t < cost:
                        cur, cost, better = trial, t, True
        if cost < best_cost:
            best, best_cost = cur, cost
    return best


def main():
    path = sys.argv[1]
    batch = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    iters = int(sys.argv[3]) if len(sys.argv) > 3 else 20
    g, ins, outs = lgraph.load_onnx(path, batch=batch)
    x = np.random.default_rng(0).uniform(-1, 1, (batch, 3, 224, 224)).astype(np.float32)
    ref = None
    print("%-13s %12s %9s %9s %9s %9s %8s" % ("strategy", "model cost", "pred ms", "ms",
                                              "reorders", "solve s", "max diff"))
    for name, strategy in [("optimal", "optimal"), ("greedy", "greedy"),
                           ("local_search", local_search)]:
        t0 = time.perf_counter()
        plan = g.compile(strategy=strategy)
        solve = time.perf_counter() - t0
        times = []
        for k in range(iters + 1):
            t = time.perf_counter()
            y = plan.run({ins[0]: x})[outs[0]]
            if k:
                times.append((time.perf_counter() - t) * 1e3)
        if ref is None:
            ref = y
        s = plan.stats()
        print("%-13s %11.4g%s %9.2f %9.2f %9d %9.2f %8.1e" % (
            name, s["model_cost"], "*" if s["exact"] else " ", s["model_ms"],
            float(np.median(times)), s["runtime_reorders"], solve,
            float(np.max(np.abs(y - ref)))))


if __name__ == "__main__":
    main()
