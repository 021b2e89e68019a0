#!/usr/bin/python3
"""Write the seed models of the ONNX fuzz target to tests/fuzz/corpus/onnx/
(small valid models: conv + batch norm + relu, a channel shuffle pattern, a
shape subgraph around a reshape). Run with Debian's python3-onnx:
    /usr/bin/python3 tests/fuzz/make_onnx_seeds.py
"""
import os

import numpy as np
from onnx import TensorProto, helper, numpy_helper

out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "onnx")
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(7)


def init(name, shape, dtype=np.float32):
    return numpy_helper.from_array((rng.standard_normal(shape)).astype(dtype), name)


def save(name, nodes, inits, ins, outs):
    g = helper.make_graph(nodes, name, ins, outs, inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    with open(os.path.join(out, name + ".onnx"), "wb") as f:
        f.write(m.SerializeToString())


x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 2, 4, 4])
save("conv_bn_relu",
     [helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1], name="conv"),
      helper.make_node("BatchNormalization", ["c", "g", "be", "m", "v"], ["n"], name="bn"),
      helper.make_node("Relu", ["n"], ["y"], name="relu")],
     [init("w", (2, 2, 3, 3)), init("b", (2,)), init("g", (2,)), init("be", (2,)),
      init("m", (2,)), numpy_helper.from_array(np.ones(2, np.float32), "v")],
     [x], [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 2, 4, 4])])

x6 = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 6, 2, 2])
save("shuffle",
     [helper.make_node("Reshape", ["x", "s5"], ["r"]),
      helper.make_node("Transpose", ["r"], ["t"], perm=[0, 2, 1, 3, 4]),
      helper.make_node("Reshape", ["t", "s4"], ["y"])],
     [numpy_helper.from_array(np.array([1, 3, 2, 2, 2], np.int64), "s5"),
      numpy_helper.from_array(np.array([1, 6, 2, 2], np.int64), "s4")],
     [x6], [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 6, 2, 2])])

save("shape_math",
     [helper.make_node("Shape", ["x"], ["sh"]),
      helper.make_node("Gather", ["sh", "zero"], ["n"], axis=0),
      helper.make_node("Unsqueeze", ["n", "ax"], ["nu"]),
      helper.make_node("Concat", ["nu", "rest"], ["s"], axis=0),
      helper.make_node("Reshape", ["x", "s"], ["r"]),
      helper.make_node("Sigmoid", ["r"], ["sg"]),
      helper.make_node("Mul", ["r", "sg"], ["y"])],
     [numpy_helper.from_array(np.array(0, np.int64), "zero"),
      numpy_helper.from_array(np.array([0], np.int64), "ax"),
      numpy_helper.from_array(np.array([2, 4, 4], np.int64), "rest")],
     [x], [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 2, 4, 4])])
print("make_onnx_seeds: wrote", sorted(os.listdir(out)))
