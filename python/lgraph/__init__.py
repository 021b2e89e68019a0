"""lgraph from Python: build a graph or load an ONNX model, compile it with a
layout strategy, run NumPy arrays through the plan, read its statistics and
dump it as DOT. A thin ctypes layer over the shared libraries (liblgraph,
liblgraph_onnx); NumPy arrays cross it without copies where the plan's
layout is the plain one.

    import numpy as np, lgraph
    g = lgraph.Graph()
    x = g.input("x", (1, 16, 8, 8))
    w = g.constant("w", np.random.rand(32, 16, 3, 3).astype(np.float32))
    y = g.eltwise(g.conv(x, w, pads=(1, 1)), "relu")
    g.output(y, "y")
    plan = g.compile(strategy="optimal")
    out = plan.run({"x": np.random.rand(1, 16, 8, 8).astype(np.float32)})["y"]
    print(plan.stats())

Every failure raises lgraph.Error with the library's status and message.
docs/python.md is the guide.
"""
import ctypes
import os
import tempfile
import time

import numpy as np

from . import _lib
from ._lib import lib

__all__ = ["Error", "Graph", "LayoutProblem", "Plan", "Value", "compare_strategies", "load_onnx",
           "OPTIONAL_PASSES", "STRATEGIES"]

STRATEGIES = {"none": 0, "greedy": 1, "optimal": 2}
_DTYPES = {"f32": 1, "f16": 2, "bf16": 3, "s32": 4, "s8": 5, "u8": 6}
_ELTWISE = {name: k for k, name in enumerate(
    ["relu", "elu", "tanh", "logistic", "gelu_tanh", "gelu_erf", "swish", "exp", "log", "abs",
     "sqrt", "square", "linear", "clip", "hardswish", "hardsigmoid"])}
_BINARY = {name: k for k, name in enumerate(["add", "sub", "mul", "div", "min", "max"])}
_NO_VALUE = 0xFFFFFFFF
_ARG_SRC, _ARG_DST = 1, 17


class Error(RuntimeError):
    """A failed lgraph call: .status is the lg_status name, str() the message."""

    def __init__(self, status, message):
        super().__init__("%s: %s" % (status, message))
        self.status = status


def _check(status):
    if status != 0:
        raise Error(lib.lg_status_str(status).decode(), lib.lg_last_error().decode())


def _plain_tag(nd):
    return "abcdefghijkl"[:nd]


def _md(dims, dtype="f32", tag=None):
    md = _lib.Md()
    d = (ctypes.c_int64 * len(dims))(*dims)
    _check(lib.lg_md_init_tag(ctypes.byref(md), len(dims), d, _DTYPES[dtype],
                              (tag or _plain_tag(len(dims))).encode()))
    return md


class Value:
    """A tensor of a Graph: what the graph's builder calls return."""

    def __init__(self, graph, handle, name=None):
        self.graph, self.handle, self.name = graph, handle, name


class Graph:
    """An lgraph graph built call by call (lg_graph_add_*)."""

    def __init__(self, _handle=None):
        self._g = ctypes.c_void_p(_handle)
        if _handle is None:
            _check(lib.lg_graph_create(ctypes.byref(self._g)))
        self._keep = []  # constant data stays alive until compile copies it

    def __del__(self):
        if getattr(self, "_g", None):
            lib.lg_graph_destroy(self._g)
            self._g = None

    def _out(self, status, v):
        _check(status)
        return Value(self, v.value)

    def input(self, name, dims, tag=None):
        """A graph input of float32 dims in layout tag (plain by default, or "any")."""
        v = _lib._V()
        md = _md(dims, "f32", tag)
        return self._out(lib.lg_graph_add_input(self._g, name.encode(), ctypes.byref(md),
                                                ctypes.byref(v)), v)

    def constant(self, name, array, tag=None):
        """A constant (weights, bias) from a float32 NumPy array in C order;
        tag names the layout of its data (plain by default: oihw for 4D)."""
        a = np.ascontiguousarray(array, dtype=np.float32)
        md = _md(a.shape, "f32", tag)
        v = _lib._V()
        return self._out(lib.lg_graph_add_constant(self._g, name.encode(), ctypes.byref(md),
                                                   a.ctypes.data, ctypes.byref(v)), v)

    def conv(self, src, weights, bias=None, strides=None, pads=None, pads_r=None,
             dilations=None, groups=1):
        """A convolution (lg_graph_add_conv). pads is the padding before each
        spatial dim, pads_r after (default: pads); dilations as in oneDNN
        (0 = dense); groups > 1 takes goihw weights."""
        p = _lib.ConvParams()
        for k, s in enumerate(strides or (1, 1, 1)):
            p.strides[k] = s
        for k, s in enumerate(pads or ()):
            p.pad_l[k] = s
        for k, s in enumerate(pads_r if pads_r is not None else (pads or ())):
            p.pad_r[k] = s
        for k, s in enumerate(dilations or ()):
            p.dilates[k] = s
        p.groups = groups
        v = _lib._V()
        b = bias.handle if bias is not None else _NO_VALUE
        return self._out(lib.lg_graph_add_conv(self._g, src.handle, weights.handle, b,
                                               ctypes.byref(p), ctypes.byref(v)), v)

    def eltwise(self, src, alg, alpha=0.0, beta=0.0):
        """An eltwise node; alg is a name such as "relu", "clip", "swish"."""
        v = _lib._V()
        return self._out(lib.lg_graph_add_eltwise(self._g, src.handle, _ELTWISE[alg], alpha,
                                                  beta, ctypes.byref(v)), v)

    def binary(self, alg, src0, src1):
        """A binary node ("add", "sub", "mul", "div", "min", "max"); src1
        broadcasts into src0's shape."""
        v = _lib._V()
        return self._out(lib.lg_graph_add_binary(self._g, _BINARY[alg], src0.handle,
                                                 src1.handle, ctypes.byref(v)), v)

    def shuffle(self, src, axis, group_size):
        """A channel shuffle node (lg_graph_add_shuffle)."""
        v = _lib._V()
        return self._out(lib.lg_graph_add_shuffle(self._g, src.handle, axis, group_size,
                                                  ctypes.byref(v)), v)

    def output(self, value, name, tag="any"):
        """Mark value as the output `name`, in layout tag ("any": the
        compiler chooses; Plan.run returns plain arrays either way)."""
        _check(lib.lg_graph_add_output(self._g, value.handle, name.encode(), tag.encode()))
        self._outputs = getattr(self, "_outputs", []) + [name]

    def compile(self, strategy="optimal", fuse=True, threads=0, disable_passes=None,
                optimal_margin=None, batch_slices=0):
        """Compile into a Plan. strategy: "none", "greedy", "optimal", or a
        Python function f(problem) over a LayoutProblem returning one
        configuration index per problem node (a user strategy; see
        LayoutProblem); disable_passes: a list of optional pass names to skip;
        optimal_margin: OPTIMAL's tie-break (lg_compile_options.optimal_margin;
        None: the library's default, 0: the model's minimum as it is);
        batch_slices: micro-batching (lg_compile_options.batch_slices: the
        plan runs this graph once per slice of dim 0 of inputs that many
        times larger; 0 or 1: off).
        An invalid answer raises Error (LG_INVALID_ARGUMENT) naming the node;
        an exception raised by the function is raised again here."""
        o = _lib.CompileOptions()
        lib.lg_compile_options_init(ctypes.byref(o))
        raised = []
        if callable(strategy):
            o.strategy_fn = _lib.STRATEGY_FN(_strategy_trampoline(strategy, raised))
        else:
            o.strategy = STRATEGIES[strategy]
        o.fuse = fuse
        o.num_threads = threads
        passes = ",".join(disable_passes).encode() if disable_passes else None
        o.disable_passes = passes
        if optimal_margin is not None:
            o.optimal_margin = optimal_margin
        o.batch_slices = batch_slices
        p = ctypes.c_void_p()
        status = lib.lg_graph_compile(self._g, ctypes.byref(o), ctypes.byref(p))
        if raised:
            raise raised[0]
        _check(status)
        plan = Plan(p)
        plan.outputs = list(getattr(self, "_outputs", []))
        return plan


_LG_RUNTIME_ERROR = -5


def _strategy_trampoline(fn, raised):
    """The C callback around a Python strategy: it answers with fn's list
    (unless fn called choose itself); an exception is kept in `raised` and
    the compile fails with LG_RUNTIME_ERROR."""

    def call(handle, _user):
        problem = LayoutProblem(handle)
        try:
            choice = fn(problem)
            if choice is None:  # it called choose (else compile says it did not)
                return 0
            c = (ctypes.c_int * max(len(choice), 1))(*[int(k) for k in choice])
            return lib.lg_layout_choose(handle, len(choice), c)
        except BaseException as e:  # noqa: B902 - handed back to compile()
            raised.append(e)
            return _LG_RUNTIME_ERROR
        finally:
            problem._p = None  # the view is valid only during the call

    return call


class LayoutProblem:
    """The view of the layout problem a user strategy reads
    (lg_layout_problem, include/lgraph.h): problem nodes 0..num_nodes-1
    ("any" graph inputs first, then graph nodes in execution order), each
    with configurations (the layout each input is read in and the result
    written in) and their modelled costs, and edges (value, reader) with a
    reorder cost per pair of configurations. Configuration 0 is GREEDY's
    pick, configuration 1 NONE's. Valid only during the strategy call."""

    def __init__(self, handle):
        self._p = handle
        self._chosen = False

    def _h(self):
        if self._p is None:
            raise Error("LG_INVALID_ARGUMENT", "LayoutProblem used after its strategy returned")
        return self._p

    @property
    def num_nodes(self):
        """Number of problem nodes."""
        return lib.lg_layout_num_nodes(self._h())

    @property
    def num_edges(self):
        """Number of edges."""
        return lib.lg_layout_num_edges(self._h())

    def node(self, i):
        """Problem node i as a dict: kind ("conv", ..., "input"), graph_node
        (-1 for an input), num_inputs, num_configs, name (inputs only)."""
        kind, g, nin, nc = ctypes.c_char_p(), ctypes.c_int(), ctypes.c_int(), ctypes.c_int()
        _check(lib.lg_layout_node(self._h(), i, ctypes.byref(kind), ctypes.byref(g),
                                  ctypes.byref(nin), ctypes.byref(nc)))
        name = lib.lg_layout_node_name(self._p, i)
        return {"kind": kind.value.decode(), "graph_node": g.value, "num_inputs": nin.value,
                "num_configs": nc.value, "name": name.decode() if name else None}

    def node_input(self, i, j):
        """(source problem node or -1 for a fixed layout, edge) of input j of node i."""
        src, e = ctypes.c_int(), ctypes.c_int()
        _check(lib.lg_layout_node_input(self._h(), i, j, ctypes.byref(src), ctypes.byref(e)))
        return src.value, e.value

    def config_cost(self, i, c):
        """The modelled cost of running node i in configuration c."""
        v = ctypes.c_double()
        _check(lib.lg_layout_config_cost(self._h(), i, c, ctypes.byref(v)))
        return v.value

    def config_layout(self, i, c, j=-1):
        """The layout tag ("abcd", "acdb", "aBcd8b", ...) in which
        configuration c of node i reads input j, or writes its result (j=-1)."""
        md = _lib.Md()
        _check(lib.lg_layout_config_md(self._h(), i, c, j, ctypes.byref(md)))
        return _tag(md)

    def edge(self, e):
        """(src, dst, dst_input) of edge e; src -1: a fixed layout; dst -1:
        graph output number dst_input."""
        a, b, k = ctypes.c_int(), ctypes.c_int(), ctypes.c_int()
        _check(lib.lg_layout_edge(self._h(), e, ctypes.byref(a), ctypes.byref(b),
                                  ctypes.byref(k)))
        return a.value, b.value, k.value

    def edge_layouts(self, e, src_cfg=0, dst_cfg=0):
        """(stored layout, read layout) tags at edge e under the configurations."""
        f, t = _lib.Md(), _lib.Md()
        _check(lib.lg_layout_edge_mds(self._h(), e, src_cfg, dst_cfg, ctypes.byref(f),
                                      ctypes.byref(t)))
        return _tag(f), _tag(t)

    def edge_cost(self, e, src_cfg=0, dst_cfg=0):
        """The reorder cost of edge e under the configurations (0 for a side that is -1)."""
        v = ctypes.c_double()
        _check(lib.lg_layout_edge_cost(self._h(), e, src_cfg, dst_cfg, ctypes.byref(v)))
        return v.value

    def cost(self, choice):
        """The cost model's exact total of an assignment (one configuration
        per node): what the plan's model_cost would be."""
        c = (ctypes.c_int * max(len(choice), 1))(*[int(k) for k in choice])
        v = ctypes.c_double()
        _check(lib.lg_layout_cost(self._h(), len(choice), c, ctypes.byref(v)))
        return v.value

    def choose(self, choice):
        """Answer with one configuration per node (a strategy may instead
        return the list)."""
        c = (ctypes.c_int * max(len(choice), 1))(*[int(k) for k in choice])
        _check(lib.lg_layout_choose(self._h(), len(choice), c))
        self._chosen = True


def _tag(md):
    buf = ctypes.create_string_buffer(64)
    return buf.value.decode() if lib.lg_md_tag(ctypes.byref(md), buf, 64) == 0 else None


OPTIONAL_PASSES = ("eliminate_shuffles", "fold_batchnorm", "eliminate_reorders",
                   "fuse_shuffle_reorder", "fold_constants", "fuse", "plan_memory")


def compare_strategies(graph, inputs, iters=5, strategies=None, tol=1e-4):
    """What `lgraph-run --compare-strategies` prints, as a list of dicts: a
    row per strategy ("none", "greedy", "optimal", or {name: function} for
    user strategies in `strategies`) and per optional pass switched off
    under OPTIMAL, each with the plan's statistics, "median_ms" (of iters
    runs after one warm-up), "max_rel_diff" of every output against the
    first row's and "agree" (within tol)."""
    rows = [(name, name, None) for name in ("none", "greedy", "optimal")]
    rows += [(name, fn, None) for name, fn in (strategies or {}).items()]
    rows += [("optimal", "optimal", p) for p in OPTIONAL_PASSES]
    result, ref = [], None
    for name, strategy, off in rows:
        plan = graph.compile(strategy=strategy, disable_passes=[off] if off else None)
        times = []
        for k in range(iters + 1):
            t = time.perf_counter()
            out = plan.run(inputs)
            if k:
                times.append((time.perf_counter() - t) * 1e3)
        if ref is None:
            ref = out
        scale = max(float(np.max(np.abs(v))) if v.size else 0.0 for v in ref.values()) or 1.0
        diff = max(float(np.max(np.abs(out[k] - ref[k]))) if ref[k].size else 0.0 for k in ref)
        row = dict(plan.stats(), strategy=name, disabled=off, median_ms=float(np.median(times)),
                   max_rel_diff=diff / scale)
        row["agree"] = row["max_rel_diff"] <= tol
        result.append(row)
    return result


class Plan:
    """A compiled graph: run it on NumPy arrays, read its statistics."""

    def __init__(self, handle):
        self._p = handle
        self._kernels = {}

    def __del__(self):
        for k in self._kernels.values():
            if k:
                lib.lg_kernel_destroy(k)
        if getattr(self, "_p", None):
            lib.lg_plan_destroy(self._p)
            self._p = None

    def md(self, name):
        """The plan's descriptor of input or output `name`: (dims, tag)."""
        md = _lib.Md()
        _check(lib.lg_plan_query_md(self._p, name.encode(), ctypes.byref(md)))
        return md

    def layout(self, name):
        """The layout tag the plan reads input `name` in (or writes an output in)."""
        md = self.md(name)
        buf = ctypes.create_string_buffer(64)
        _check(lib.lg_md_tag(ctypes.byref(md), buf, 64))
        return buf.value.decode()

    def _reorder(self, key, src, dst):
        if key not in self._kernels:
            k = ctypes.c_void_p()
            _check(lib.lg_reorder_create(ctypes.byref(k), ctypes.byref(src), ctypes.byref(dst),
                                         None))
            self._kernels[key] = k
        return self._kernels[key]

    def _move(self, key, src_md, dst_md, src, dst):
        k = self._reorder(key, src_md, dst_md)
        args = (_lib.Arg * 2)(_lib.Arg(_ARG_SRC, src), _lib.Arg(_ARG_DST, dst))
        _check(lib.lg_kernel_execute(k, 2, args))

    def run(self, inputs, outputs=None):
        """Run the plan. inputs: {name: float32 array in plain C order};
        outputs: the names to return (default: every output of the graph).
        Returns {name: array in plain C order}. Where the plan's layout of
        an input or output is the plain one, the array is used in place;
        otherwise a reorder converts it."""
        names = outputs or getattr(self, "outputs", None)
        if not names:
            raise Error("LG_INVALID_ARGUMENT", "Plan.run: name the outputs")
        keep, ins, outs, result = [], [], [], {}
        for name, arr in inputs.items():
            md = self.md(name)
            a = np.ascontiguousarray(arr, dtype=np.float32)
            plain = _md(a.shape)
            if lib.lg_md_equal(ctypes.byref(md), ctypes.byref(plain)):
                buf = a
            else:
                buf = np.empty(lib.lg_md_size(ctypes.byref(md)) // 4 + 16, np.float32)
                self._move(("in", name), plain, md, a.ctypes.data, buf.ctypes.data)
            keep.append((a, buf))
            ins.append(_lib.Binding(name.encode(), buf.ctypes.data))
        post = []
        for name in names:
            md = self.md(name)
            dims = tuple(md.dims[d] for d in range(md.ndims))
            y = np.empty(dims, np.float32)
            plain = _md(dims)
            if lib.lg_md_equal(ctypes.byref(md), ctypes.byref(plain)):
                buf = y
            else:
                buf = np.empty(lib.lg_md_size(ctypes.byref(md)) // 4 + 16, np.float32)
                post.append((("out", name), md, plain, buf, y))
            keep.append(buf)
            outs.append(_lib.Binding(name.encode(), buf.ctypes.data))
            result[name] = y
        bi = (_lib.Binding * len(ins))(*ins)
        bo = (_lib.Binding * len(outs))(*outs)
        _check(lib.lg_plan_execute(self._p, len(ins), bi, len(outs), bo))
        for key, md, plain, buf, y in post:
            self._move(key, md, plain, buf.ctypes.data, y.ctypes.data)
        return result

    def stats(self):
        """The plan's statistics (lg_plan_stats) as a dict."""
        s = _lib.PlanStats()
        _check(lib.lg_plan_stats_get(self._p, ctypes.byref(s)))
        return {f: getattr(s, f) for f, _ in _lib.PlanStats._fields_}

    def dump(self, fmt="dot"):
        """The plan as text ("text") or Graphviz DOT ("dot")."""
        fd, path = tempfile.mkstemp(suffix="." + fmt)
        os.close(fd)
        try:
            f = _lib.libc.fopen(path.encode(), b"w")
            st = lib.lg_plan_dump(self._p, f, fmt.encode())
            _lib.libc.fclose(f)
            _check(st)
            with open(path) as fh:
                return fh.read()
        finally:
            os.unlink(path)


def load_onnx(path, batch=1, inputs_any=False):
    """Load an ONNX model (lgraph_onnx): returns (graph, input names,
    output names). batch fixes a symbolic first input dim; inputs_any lets
    the compiler choose the inputs' layouts."""
    if _lib.onnx_lib is None:
        raise Error("LG_UNIMPLEMENTED", "lgraph was built without the ONNX importer")
    o = _lib.OnnxOptions()
    _lib.onnx_lib.lg_onnx_options_init(ctypes.byref(o))
    o.batch = batch
    o.inputs_any = inputs_any
    g = ctypes.c_void_p()
    io = _lib.OnnxIo()
    _check(_lib.onnx_lib.lg_onnx_load_file(path.encode(), ctypes.byref(o), ctypes.byref(g),
                                           ctypes.byref(io)))
    ins = [io.inputs[k].decode() for k in range(io.n_inputs)]
    outs = [io.outputs[k].decode() for k in range(io.n_outputs)]
    _lib.onnx_lib.lg_onnx_io_free(ctypes.byref(io))
    graph = Graph(g.value)
    graph._outputs = outs
    return graph, ins, outs
