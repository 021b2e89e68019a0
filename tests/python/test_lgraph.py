#!/usr/bin/python3
"""The Python package against NumPy references: a conv + relu + add graph
under every strategy, a channel shuffle, plan statistics and DOT dumps,
errors raised with the library's message, and (when the importer is built)
an ONNX model from the fuzz corpus. Run by CTest (python_lgraph) with
LGRAPH_LIBRARY_DIR set to the build directory."""
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
            g = lgraph.Graph()
            xv = g.input("x", x.shape)
            y = g.eltwise(g.conv(xv, g.constant("w", w), g.constant("b", b), pads=(1, 1)),
                          "relu")
            g.output(g.binary("add", y, xv), "y", "nchw")
            plan = g.compile(strategy=s)
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


if __name__ == "__main__":
    unittest.main(verbosity=2)
