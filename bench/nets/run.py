#!/usr/bin/python3
"""Whole networks side by side: lgraph (lgraph-run), ONNX Runtime
(onnxruntime-node) and PyTorch, 2 threads each, alternating run by run.

    /usr/bin/python3 bench/nets/run.py [--build=build] [--models=blocks]
        [--batches=1,16] [--rounds=15] [--iters=5] [--threads=2]
        [--none-rounds=1] [--profile] [--micro-batch=auto|B|none] [--json=OUT.json]

For each model and batch: export it (scripts/export_models.py: random weights
from a fixed seed, opset 13, symbolic batch), compare the three runtimes'
outputs on one input, then run R rounds; in each round every side runs
K timed iterations after a warm-up in its own process (lgraph under OPTIMAL,
GREEDY and NONE; ONNX Runtime; PyTorch in its fastest mode of eager
contiguous, eager channels_last and frozen TorchScript), and the round's
ratio is peer median / lgraph OPTIMAL median. Prints a Markdown table: the
median (min-max) of per-round ratios, each side's ms (median over rounds),
GFLOP/s and share of the machine's measured FMA peak (bench_fma_peak), and
lgraph's load + compile time (median over the timed OPTIMAL runs) beside
ONNX Runtime's session creation, and lgraph's memory (arena + weights)
beside ONNX Runtime's resident memory. NONE (no propagation: the model's nchw
everywhere) is a reference, not a contender: it is timed in the first
--none-rounds rounds only, one iteration each. --profile adds, per model
and batch, where lgraph's OPTIMAL time goes (lgraph-run --profile: share per
layer class). lgraph's OPTIMAL and GREEDY runs take lgraph-run's
--micro-batch (default auto: the whole batch unless its arena spills out of
the last-level cache and re-reading the weights per slice costs less, see
docs/onnx.md; the table's N column gives the micro-batch in parentheses). plot.sh
draws the chart from --json's file. README.md in this
folder says how to set it up.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx
import torch
from onnx import shape_inference

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import export_models  # noqa: E402


def flops(model_path, batch):
    """Multiply-adds x 2 of Conv and Gemm/MatMul nodes at this batch."""
    m = onnx.load(model_path)
    for vi in list(m.graph.input) + list(m.graph.output):
        d = vi.type.tensor_type.shape.dim
        if d and not d[0].HasField("dim_value"):
            d[0].dim_value = batch
    m = shape_inference.infer_shapes(m)
    shapes = {}
    for vi in list(m.graph.value_info) + list(m.graph.input) + list(m.graph.output):
        shapes[vi.name] = [x.dim_value for x in vi.type.tensor_type.shape.dim]
    for t in m.graph.initializer:
        shapes[t.name] = list(t.dims)
    total = 0
    for n in m.graph.node:
        if n.op_type == "Conv" and n.output[0] in shapes and n.input[1] in shapes:
            out, w = shapes[n.output[0]], shapes[n.input[1]]
            total += 2 * int(np.prod(out)) * int(np.prod(w[1:]))
        elif n.op_type in ("Gemm", "MatMul") and n.output[0] in shapes:
            a = shapes.get(n.input[0])
            if a:
                total += 2 * int(np.prod(shapes[n.output[0]])) * a[-1]
    return total


def run_json(cmd, env=None):
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env)
    return json.loads(out.stdout.strip().splitlines()[-1])


def lgraph_cmd(args, model, batch, strategy, inp, out="-", compare=None, iters=None,
               warmup=2):
    cmd = [os.path.join(args.build, "tools", "lgraph-run"), model, "--batch=%d" % batch,
           "--strategy=" + strategy, "--input=" + inp, "--iters=%d" % (iters or args.iters),
           "--warmup=%d" % warmup, "--threads=%d" % args.threads, "--json"]
    if strategy != "none" and args.micro_batch != "none":
        cmd.append("--micro-batch=" + args.micro_batch)
    if out != "-":
        cmd.append("--output=" + out)
    if compare:
        cmd += ["--compare=" + compare, "--tol=1e-3"]
    return cmd


def ort_cmd(args, model, inp, out="-"):
    return ["node", os.path.join(HERE, "ort_run.js"), model, inp, out, str(args.iters), "2",
            str(args.threads)]


def settle():
    """Let the previous side's threads go idle before the next side starts.
    PyTorch's OpenMP workers (libgomp) spin for some milliseconds after each
    parallel region, on the cores the next side needs: without this pause
    the side timed right after PyTorch (lgraph OPTIMAL, in every round) lost
    a core for part of a short run (MobileNetV2 N = 1 on an Intel host:
    OPTIMAL 3.61 ms against GREEDY 3.10 ms with the same plan)."""
    time.sleep(0.3)


class TorchSide:
    """PyTorch in this process, in its fastest mode on this machine."""

    def __init__(self, model, x):
        self.x = x
        modes = {"eager": (model, x), "eager channels_last":
                 (model.to(memory_format=torch.channels_last),
                  x.to(memory_format=torch.channels_last))}
        with torch.no_grad():
            cl = model.to(memory_format=torch.channels_last)
            xcl = x.to(memory_format=torch.channels_last)
            frozen = torch.jit.optimize_for_inference(torch.jit.freeze(torch.jit.script(cl)))
            modes["jit frozen channels_last"] = (frozen, xcl)
        best = None
        for name, (m, inp) in modes.items():
            t = self.time(m, inp, 3)
            if best is None or t < best[0]:
                best = (t, name, m, inp)
        _, self.mode, self.model, self.inp = best

    @staticmethod
    def time(m, inp, iters):
        with torch.no_grad():
            for _ in range(2):
                m(inp)
            ts = []
            for _ in range(iters):
                t = time.perf_counter()
                m(inp)
                ts.append((time.perf_counter() - t) * 1e3)
        return statistics.median(ts)

    def output(self):
        with torch.no_grad():
            y = self.model(self.inp)
            if isinstance(y, tuple):  # scripted GoogLeNet returns (logits, aux2, aux1)
                y = y[0]
            return y.float().contiguous().numpy()


def bench(args, name, batch, peak, rows):
    tmp = tempfile.mkdtemp(prefix="lgnets-")
    make, shape = export_models.all_models()[name]
    gen = torch.Generator().manual_seed(20261124)
    torch.manual_seed(20261124)
    model = make().eval()
    export_models.randomise_bn(model, gen)
    path = os.path.join(tmp, name + ".onnx")
    x = torch.randn((batch,) + shape, generator=gen)
    torch.onnx.export(model, x[:1], path, opset_version=13, input_names=["input"],
                      output_names=["output"],
                      dynamic_axes={"input": {0: "N"}, "output": {0: "N"}})
    inp = os.path.join(tmp, "in.npy")
    np.save(inp, x.numpy().astype("<f4"))
    ts = TorchSide(model, x)
    want = ts.output()
    ref = os.path.join(tmp, "torch.npy")
    np.save(ref, want.astype("<f4"))
    # Outputs compared before any timing.
    lg0 = run_json(lgraph_cmd(args, path, batch, "optimal", inp, compare=ref))
    ort_out = os.path.join(tmp, "ort.npy")
    run_json(ort_cmd(args, path, inp, ort_out))
    ort_diff = float(np.abs(np.load(ort_out) - want).max() / max(np.abs(want).max(), 1e-30))
    sides = {"optimal": [], "greedy": [], "none": [], "ort": [], "torch": []}
    ratio_ort, ratio_torch, ratio_greedy, rss = [], [], [], []
    # Load + compile: the median over the timed OPTIMAL runs (the first run
    # of a model, right after the export, pays for a cold start and is one
    # sample only).
    load_compile, ort_create = [], []
    for rnd in range(args.rounds):
        for s in ("optimal", "greedy"):
            settle()
            j = run_json(lgraph_cmd(args, path, batch, s, inp))
            sides[s].append(j["median_ms"])
            if s == "optimal":
                load_compile.append(j["load_ms"] + j["compile_ms"])
        if rnd < args.none_rounds:
            sides["none"].append(run_json(lgraph_cmd(args, path, batch, "none", inp, iters=1,
                                                     warmup=0))["median_ms"])
        settle()
        o = run_json(ort_cmd(args, path, inp))
        sides["ort"].append(o["median_ms"])
        rss.append(o["rss_mb"])
        ort_create.append(o["create_ms"])
        settle()
        sides["torch"].append(TorchSide.time(ts.model, ts.inp, args.iters))
        ratio_ort.append(sides["ort"][-1] / sides["optimal"][-1])
        ratio_torch.append(sides["torch"][-1] / sides["optimal"][-1])
        ratio_greedy.append(sides["greedy"][-1] / sides["optimal"][-1])
    f = flops(path, batch)
    weights = sum(int(np.prod(t.dims)) * 4 for t in onnx.load(path).graph.initializer)
    med = {k: statistics.median(v) if v else float("nan") for k, v in sides.items()}
    prof = None
    if args.profile:
        cmd = lgraph_cmd(args, path, batch, "optimal", inp, iters=max(args.iters, 10))
        prof = run_json(cmd + ["--profile"])["profile"]

    def gf(ms):
        return f / ms / 1e6

    row = {
        "model": name, "batch": batch, "flops": f,
        "lgraph_ms": med["optimal"], "greedy_ms": med["greedy"], "none_ms": med["none"],
        "ort_ms": med["ort"], "torch_ms": med["torch"], "torch_mode": ts.mode,
        "ratio_ort": [statistics.median(ratio_ort), min(ratio_ort), max(ratio_ort)],
        "ratio_torch": [statistics.median(ratio_torch), min(ratio_torch), max(ratio_torch)],
        "ratio_greedy": [statistics.median(ratio_greedy), min(ratio_greedy), max(ratio_greedy)],
        "lgraph_gflops": gf(med["optimal"]), "ort_gflops": gf(med["ort"]),
        "lgraph_peak_share": gf(med["optimal"]) / peak if peak else None,
        "load_compile_ms": statistics.median(load_compile),
        "load_compile_min_ms": min(load_compile),
        "ort_create_ms": statistics.median(ort_create),
        "lgraph_mem_mb": (lg0["arena_bytes"] + weights) / 1048576,
        "ort_rss_mb": statistics.median(rss),
        "max_rel_diff_lgraph": lg0.get("max_rel_diff"), "max_rel_diff_ort": ort_diff,
        "runtime_reorders": lg0["runtime_reorders"], "steps": lg0["steps"],
        "micro_batch": lg0.get("micro_batch", batch),
        "by_class": prof["by_class"] if prof else None,
        "by_kind": prof["by_kind"] if prof else None,
    }
    rows.append(row)
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--models", default="resnet50,mobilenet_v2,shufflenet_v2_x1_0")
    ap.add_argument("--batches", default="1,16")
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--iters", type=int, default=5)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--none-rounds", type=int, default=1)
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--micro-batch", default="auto",
                    help="lgraph-run's --micro-batch for OPTIMAL and GREEDY: auto (default), "
                         "a batch B, or none (the whole batch at once)")
    ap.add_argument("--json")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    os.environ["OMP_NUM_THREADS"] = str(args.threads)
    peak = run_json([os.path.join(args.build, "bench", "bench_fma_peak")])["fma_peak_gflops"]
    rows = []
    print("| network | N (micro-batch) | lgraph OPTIMAL ms | GREEDY ms | NONE ms | ONNX Runtime ms | "
          "PyTorch ms (mode) | ORT / lgraph | PyTorch / lgraph | lgraph GFLOP/s (peak share) | "
          "load + compile ms (ORT session creation) | lgraph mem MB (arena + weights) / ORT RSS MB |")
    print("|" + "---|" * 12)
    for name in args.models.split(","):
        for b in (int(x) for x in args.batches.split(",")):
            r = bench(args, name, b, peak, rows)
            print("| %s | %d (%d) | %.3f | %.3f | %.3f | %.3f | %.3f (%s) | %.2fx (%.2f-%.2f) | "
                  "%.2fx (%.2f-%.2f) | %.1f (%.0f%%) | %.1f (%.1f) | %.1f / %.0f |" % (
                      name, b, r["micro_batch"], r["lgraph_ms"], r["greedy_ms"], r["none_ms"], r["ort_ms"],
                      r["torch_ms"], r["torch_mode"], *r["ratio_ort"], *r["ratio_torch"],
                      r["lgraph_gflops"], 100 * (r["lgraph_peak_share"] or 0),
                      r["load_compile_ms"], r["ort_create_ms"], r["lgraph_mem_mb"],
                      r["ort_rss_mb"]), flush=True)
    print("\nFMA peak %.1f GFLOP/s (%d threads); outputs compared before timing "
          "(max |diff| / max |torch|): %s" % (
              peak, args.threads, ", ".join("%s N=%d lgraph %.1e, ORT %.1e" % (
                  r["model"], r["batch"], r["max_rel_diff_lgraph"], r["max_rel_diff_ort"])
                  for r in rows)))
    print("\nGREEDY / OPTIMAL time, median of per-round ratios (min-max; below 1: GREEDY "
          "faster); load + compile, fastest of the rounds: %s" % ", ".join(
              "%s N=%d %.3f (%.3f-%.3f), %.1f ms" % (r["model"], r["batch"], *r["ratio_greedy"],
                                                   r["load_compile_min_ms"]) for r in rows))
    if args.profile:
        classes = []
        for r in rows:
            classes += [c for c in r["by_class"] if c not in classes]
        print("\nWhere lgraph's OPTIMAL time goes (lgraph-run --profile, share of the steps' "
              "sum per layer class):\n")
        print("| network | N | " + " | ".join(classes) + " |")
        print("|" + "---|" * (len(classes) + 2))
        for r in rows:
            bc = r["by_class"]
            print("| %s | %d | " % (r["model"], r["batch"]) + " | ".join(
                "%.1f%%" % (100 * bc[c]["share"]) if c in bc else "-" for c in classes) + " |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"fma_peak_gflops": peak, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
