#!/usr/bin/python3
"""The Python package against NumPy references: a conv + relu + add graph
under every strategy, a channel shuffle, plan statistics and DOT dumps,
errors raised with the library's message, layout strategies written in
Python (channels-last; OPTIMAL as an exhaustive search, checked against the
built-in; invalid answers), and (when the importer is built)
an ONNX model from the fuzz corpus. Run by CTest (python_lgraph) with
LGRAPH_LIBRARY_DIR set to the build directory."""
import itertools
import os
import sys
import unittest

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "python"))
import lgraph  # noqa: E402


def conv_ref(x, w, b, pad):
    n, c, h, wd = x.shape
    o, _, kh, kw = w.shape
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh, ow = h + 2 * pad - kh + 1, wd + 2 * pad - kw + 1
    y = np.zeros((n, o, oh, ow))
    for i in range(kh):
        for j in range(kw):
            y += np.einsum("nchw,oc->nohw", xp[:, :, i:i + oh, j:j + ow], w[:, :, i, j])
    return y + b[None, :, None, None]


class GraphTest(unittest.TestCase):
    def test_conv_relu_add_every_strategy(self):
        rng = np.random.default_rng(3)
        x = rng.standard_normal((2, 20, 9, 7)).astype(np.float32)
        w = rng.standard_normal((20, 20, 3, 3)).astype(np.float32) * 0.2
        b = rng.standard_normal(20).astype(np.float32)
        want = np.maximum(conv_ref(x, w, b, 1), 0) + x
        for s in ("none", "greedy", "optimal"):
            plan = self._conv_graph(x, w, b).compile(strategy=s)
            got = plan.run({"x": x})["y"]
            self.assertEqual(got.shape, want.shape)
            np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4, err_msg=s)
            st = plan.stats()
            self.assertGreaterEqual(st["steps"], 1)
            self.assertIn("digraph", plan.dump("dot"))
            self.assertIn("conv", plan.dump("text"))

    def test_shuffle_and_any_output(self):
        x = np.arange(2 * 12 * 3 * 2, dtype=np.float32).reshape(2, 12, 3, 2)
        g = lgraph.Graph()
        g.output(g.shuffle(g.input("x", x.shape), 1, 4), "y")  # "any" layout
        got = g.compile().run({"x": x})["y"]
        want = x.reshape(2, 3, 4, 3, 2).transpose(0, 2, 1, 3, 4).reshape(2, 12, 3, 2)
        np.testing.assert_array_equal(got, want)

    def test_errors_carry_the_library_message(self):
        g = lgraph.Graph()
        x = g.input("x", (1, 3, 4, 4))
        with self.assertRaises(lgraph.Error) as e:
            g.input("x", (1, 3, 4, 4))  # the name again
        self.assertEqual(e.exception.status, "LG_INVALID_ARGUMENT")
        self.assertIn("lg_graph_add_input", str(e.exception))
        with self.assertRaises(lgraph.Error):
            g.input("y", (1, 3), tag="nchw")  # a 4D tag on 2 dims
        with self.assertRaises(lgraph.Error):
            g.compile()  # no outputs
        del x

    def _conv_graph(self, x, w, b):
        g = lgraph.Graph()
        xv = g.input("x", x.shape)
        y = g.eltwise(g.conv(xv, g.constant("w", w), g.constant("b", b), pads=(1, 1)), "relu")
        g.output(g.binary("add", y, xv), "y", "nchw")
        return g

    def test_python_strategies(self):
        rng = np.random.default_rng(5)
        x = rng.standard_normal((2, 16, 6, 5)).astype(np.float32)
        w = rng.standard_normal((16, 16, 3, 3)).astype(np.float32) * 0.2
        b = rng.standard_normal(16).astype(np.float32)
        want = np.maximum(conv_ref(x, w, b, 1), 0) + x
        g = self._conv_graph(x, w, b)
        seen = {}

        def channels_last(problem):
            choice = []
            for i in range(problem.num_nodes):
                n = problem.node(i)
                score = [(problem.config_layout(i, c) == "acdb", -problem.config_cost(i, c))
                         for c in range(n["num_configs"])]
                choice.append(max(range(len(score)), key=score.__getitem__))
            seen["cost"] = problem.cost(choice)
            seen["kinds"] = [problem.node(i)["kind"] for i in range(problem.num_nodes)]
            return choice

        plan = g.compile(strategy=channels_last)
        np.testing.assert_allclose(plan.run({"x": x})["y"], want, rtol=1e-4, atol=1e-4)
        self.assertEqual(seen["kinds"], ["conv", "eltwise", "binary"])
        self.assertAlmostEqual(plan.stats()["model_cost"], seen["cost"], delta=1e-9 * seen["cost"])
        self.assertIn("acdb", plan.dump("text"))

        def exhaustive(problem):  # OPTIMAL written in Python
            sizes = [problem.node(i)["num_configs"] for i in range(problem.num_nodes)]
            best = min(itertools.product(*[range(k) for k in sizes]), key=problem.cost)
            return list(best)

        mine = g.compile(strategy=exhaustive).stats()
        ref = g.compile(strategy="optimal", optimal_margin=0).stats()  # the minimum itself
        for k in ("runtime_reorders", "reorder_bytes", "steps", "folded_reorders"):
            self.assertEqual(mine[k], ref[k], k)
        self.assertAlmostEqual(mine["model_cost"], ref["model_cost"],
                               delta=1e-9 * ref["model_cost"])
        self.assertTrue(ref["exact"])

        def edges(problem):  # the edge list agrees with node_input
            for i in range(problem.num_nodes):
                for j in range(problem.node(i)["num_inputs"]):
                    src, e = problem.node_input(i, j)
                    self.assertEqual(problem.edge(e), (src, i, j))
                    self.assertGreaterEqual(problem.edge_cost(e), 0.0)
            return [0] * problem.num_nodes

        g.compile(strategy=edges)

    def test_compare_strategies(self):
        rng = np.random.default_rng(6)
        x = rng.standard_normal((1, 16, 5, 5)).astype(np.float32)
        g = self._conv_graph(x, rng.standard_normal((16, 16, 3, 3)).astype(np.float32) * 0.2,
                             rng.standard_normal(16).astype(np.float32))
        rows = lgraph.compare_strategies(g, {"x": x}, iters=1,
                                         strategies={"first": lambda p: [0] * p.num_nodes})
        self.assertEqual([(r["strategy"], r["disabled"]) for r in rows][:4],
                         [("none", None), ("greedy", None), ("optimal", None), ("first", None)])
        self.assertEqual(len(rows), 4 + len(lgraph.OPTIONAL_PASSES))
        self.assertTrue(all(r["agree"] for r in rows))
        fuse_off = [r for r in rows if r["disabled"] == "fuse"][0]
        self.assertEqual(fuse_off["fused_steps"], 0)
        self.assertGreater(rows[2]["fused_steps"], 0)  # optimal: relu and add fused

    def test_python_strategy_errors(self):
        x = np.zeros((1, 16, 4, 4), np.float32)
        g = self._conv_graph(x, np.zeros((16, 16, 3, 3), np.float32), np.zeros(16, np.float32))
        with self.assertRaises(lgraph.Error) as e:
            g.compile(strategy=lambda p: [0, 99, 0])
        self.assertEqual(e.exception.status, "LG_INVALID_ARGUMENT")
        self.assertIn("problem node 1 (eltwise, graph node 1)", str(e.exception))
        with self.assertRaises(lgraph.Error) as e:
            g.compile(strategy=lambda p: [0])
        self.assertIn("n = 1 choices for 3 problem nodes", str(e.exception))
        with self.assertRaises(ZeroDivisionError):
            g.compile(strategy=lambda p: 1 / 0)
        kept = []
        g.compile(strategy=lambda p: kept.append(p) or [0, 0, 0])
        with self.assertRaises(lgraph.Error):
            kept[0].num_nodes  # the view ends with the call

    @unittest.skipIf(lgraph._lib.onnx_lib is None, "lgraph built without the ONNX importer")
    def test_onnx_shuffle_model(self):
        path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fuzz", "corpus",
                            "onnx", "shuffle.onnx")
        g, ins, outs = lgraph.load_onnx(path)
        self.assertEqual((ins, outs), (["x"], ["y"]))
        x = np.random.default_rng(1).standard_normal((1, 6, 2, 2)).astype(np.float32)
        got = g.compile(strategy="greedy").run({"x": x}, outs)["y"]
        want = x.reshape(1, 3, 2, 2, 2).transpose(0, 2, 1, 3, 4).reshape(1, 6, 2, 2)
        np.testing.assert_array_equal(got, want)
        with self.assertRaises(lgraph.Error) as e:
            lgraph.load_onnx("/nonexistent.onnx")
        self.assertIn("lg_onnx_load", str(e.exception))

    @unittest.skipIf(lgraph._lib.onnx_lib is None, "lgraph built without the ONNX importer")
    def test_example_local_search(self):
        """docs/python.md's worked example (python/examples/strategy_resnet50.py):
        its local search, on an ONNX model, reaches at most GREEDY's modelled
        cost and at least OPTIMAL's proven minimum, and its plan computes
        OPTIMAL's output."""
        here = os.path.dirname(os.path.abspath(__file__))
        sys.path.insert(0, os.path.join(here, "..", "..", "python", "examples"))
        import strategy_resnet50  # noqa: E402
        path = os.path.join(here, "..", "fuzz", "corpus", "onnx", "conv_bn_relu.onnx")
        g, ins, outs = lgraph.load_onnx(path, batch=2)
        x = np.random.default_rng(2).standard_normal((2, 2, 4, 4)).astype(np.float32)
        greedy = g.compile(strategy="greedy")
        best = g.compile(strategy="optimal", optimal_margin=0)
        mine = g.compile(strategy=strategy_resnet50.local_search)
        self.assertTrue(best.stats()["exact"])
        self.assertLessEqual(mine.stats()["model_cost"], greedy.stats()["model_cost"] * (1 + 1e-12))
        self.assertGreaterEqual(mine.stats()["model_cost"],
                                best.stats()["model_cost"] * (1 - 1e-12))
        want = best.run({ins[0]: x}, outs)[outs[0]]
        np.testing.assert_allclose(mine.run({ins[0]: x}, outs)[outs[0]], want, rtol=1e-5,
                                   atol=1e-6)


if __name__ == "__main__":
    unittest.main(verbosity=2)
