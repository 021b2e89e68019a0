"""ctypes declarations of the public C API (include/lgraph.h and
include/lgraph_onnx.h) and the loading of the shared libraries.

The libraries are found, in order, in the directories of LGRAPH_LIBRARY_DIR
(a path list), in the build directory of a source checkout (build/ and
build/onnx/ beside python/), and on the system's library path (an installed
lgraph).
"""
import ctypes
import ctypes.util
import os

MAX_NDIMS = 12


class Md(ctypes.Structure):
    """lg_md: a memory descriptor (the C struct, field for field)."""

    class _Blocking(ctypes.Structure):
        _fields_ = [("strides", ctypes.c_int64 * MAX_NDIMS), ("inner_nblks", ctypes.c_int),
                    ("inner_blks", ctypes.c_int64 * MAX_NDIMS),
                    ("inner_idxs", ctypes.c_int * MAX_NDIMS)]

    _fields_ = [("ndims", ctypes.c_int), ("dims", ctypes.c_int64 * MAX_NDIMS),
                ("dtype", ctypes.c_int), ("format_kind", ctypes.c_int),
                ("padded_dims", ctypes.c_int64 * MAX_NDIMS), ("offset0", ctypes.c_int64),
                ("blocking", _Blocking)]


class ConvParams(ctypes.Structure):
    _fields_ = [("strides", ctypes.c_int64 * 3), ("dilates", ctypes.c_int64 * 3),
                ("pad_l", ctypes.c_int64 * 3), ("pad_r", ctypes.c_int64 * 3),
                ("groups", ctypes.c_int64), ("alg", ctypes.c_int)]


# lg_strategy_fn: lg_status (*)(lg_layout_problem *p, void *user_data)
STRATEGY_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p)


class CompileOptions(ctypes.Structure):
    _fields_ = [("strategy", ctypes.c_int), ("fuse", ctypes.c_bool),
                ("num_threads", ctypes.c_int), ("disable_passes", ctypes.c_char_p),
                ("strategy_fn", STRATEGY_FN), ("strategy_data", ctypes.c_void_p),
                ("cost_model", ctypes.c_char_p), ("optimal_margin", ctypes.c_double),
                ("conv_alg", ctypes.c_int), ("batch_slices", ctypes.c_int)]


class PlanStats(ctypes.Structure):
    _fields_ = [("runtime_reorders", ctypes.c_int), ("folded_reorders", ctypes.c_int),
                ("reorder_bytes", ctypes.c_int64), ("steps", ctypes.c_int),
                ("arena_bytes", ctypes.c_int64), ("model_cost", ctypes.c_double),
                ("exact", ctypes.c_bool), ("compile_ms", ctypes.c_double),
                ("fused_steps", ctypes.c_int), ("views", ctypes.c_int),
                ("copy_steps_removed", ctypes.c_int), ("copy_bytes_removed", ctypes.c_int64),
                ("inexact_reason", ctypes.c_char * 160), ("model_cost_bound", ctypes.c_double),
                ("model_ms", ctypes.c_double), ("kept_greedy", ctypes.c_bool),
                ("batch_slices", ctypes.c_int), ("const_bytes", ctypes.c_int64)]


class Binding(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("data", ctypes.c_void_p)]


class Arg(ctypes.Structure):
    _fields_ = [("arg", ctypes.c_int), ("data", ctypes.c_void_p)]


class OnnxOptions(ctypes.Structure):
    _fields_ = [("batch", ctypes.c_int64), ("inputs_any", ctypes.c_bool)]


class OnnxIo(ctypes.Structure):
    _fields_ = [("n_inputs", ctypes.c_int), ("n_outputs", ctypes.c_int),
                ("inputs", ctypes.POINTER(ctypes.c_char_p)),
                ("outputs", ctypes.POINTER(ctypes.c_char_p))]


def _find(name, soname):
    dirs = []
    if os.environ.get("LGRAPH_LIBRARY_DIR"):
        dirs += os.environ["LGRAPH_LIBRARY_DIR"].split(os.pathsep)
    top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    dirs += [os.path.join(top, "build"), os.path.join(top, "build", "onnx")]
    for d in dirs:
        p = os.path.join(d, soname)
        if os.path.exists(p):
            return p
    found = ctypes.util.find_library(name)
    if not found:
        raise OSError("lgraph: cannot find %s (set LGRAPH_LIBRARY_DIR, build the checkout, "
                      "or install lgraph)" % soname)
    return found


lib = ctypes.CDLL(_find("lgraph", "liblgraph.so"), mode=ctypes.RTLD_GLOBAL)
try:
    onnx_lib = ctypes.CDLL(_find("lgraph_onnx", "liblgraph_onnx.so"))
except OSError:
    onnx_lib = None  # lgraph built without the ONNX importer

_S = ctypes.c_int  # lg_status
_P = ctypes.c_void_p
_I64P = ctypes.POINTER(ctypes.c_int64)
_V = ctypes.c_uint32  # lg_value
_VP = ctypes.POINTER(_V)
_MDP = ctypes.POINTER(Md)

_decls = {
    "lg_last_error": (ctypes.c_char_p, []),
    "lg_status_str": (ctypes.c_char_p, [_S]),
    "lg_md_init_tag": (_S, [_MDP, ctypes.c_int, _I64P, ctypes.c_int, ctypes.c_char_p]),
    "lg_md_size": (ctypes.c_size_t, [_MDP]),
    "lg_md_equal": (ctypes.c_bool, [_MDP, _MDP]),
    "lg_md_tag": (_S, [_MDP, ctypes.c_char_p, ctypes.c_size_t]),
    "lg_reorder_create": (_S, [ctypes.POINTER(_P), _MDP, _MDP, _P]),
    "lg_kernel_execute": (_S, [_P, ctypes.c_int, ctypes.POINTER(Arg)]),
    "lg_kernel_destroy": (None, [_P]),
    "lg_graph_create": (_S, [ctypes.POINTER(_P)]),
    "lg_graph_destroy": (None, [_P]),
    "lg_graph_add_input": (_S, [_P, ctypes.c_char_p, _MDP, _VP]),
    "lg_graph_add_constant": (_S, [_P, ctypes.c_char_p, _MDP, _P, _VP]),
    "lg_graph_add_conv": (_S, [_P, _V, _V, _V, ctypes.POINTER(ConvParams), _VP]),
    "lg_graph_add_eltwise": (_S, [_P, _V, ctypes.c_int, ctypes.c_float, ctypes.c_float, _VP]),
    "lg_graph_add_binary": (_S, [_P, ctypes.c_int, _V, _V, _VP]),
    "lg_graph_add_shuffle": (_S, [_P, _V, ctypes.c_int, ctypes.c_int64, _VP]),
    "lg_graph_add_output": (_S, [_P, _V, ctypes.c_char_p, ctypes.c_char_p]),
    "lg_compile_options_init": (None, [ctypes.POINTER(CompileOptions)]),
    "lg_graph_compile": (_S, [_P, ctypes.POINTER(CompileOptions), ctypes.POINTER(_P)]),
    "lg_plan_stats_get": (_S, [_P, ctypes.POINTER(PlanStats)]),
    "lg_plan_query_md": (_S, [_P, ctypes.c_char_p, _MDP]),
    "lg_plan_execute": (_S, [_P, ctypes.c_int, ctypes.POINTER(Binding), ctypes.c_int,
                             ctypes.POINTER(Binding)]),
    "lg_plan_dump": (_S, [_P, _P, ctypes.c_char_p]),
    "lg_plan_destroy": (None, [_P]),
    # the user-strategy view (lg_layout_problem)
    "lg_layout_num_nodes": (ctypes.c_int, [_P]),
    "lg_layout_node": (_S, [_P, ctypes.c_int, ctypes.POINTER(ctypes.c_char_p),
                            ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.c_int),
                            ctypes.POINTER(ctypes.c_int)]),
    "lg_layout_node_name": (ctypes.c_char_p, [_P, ctypes.c_int]),
    "lg_layout_node_input": (_S, [_P, ctypes.c_int, ctypes.c_int, ctypes.POINTER(ctypes.c_int),
                                  ctypes.POINTER(ctypes.c_int)]),
    "lg_layout_config_cost": (_S, [_P, ctypes.c_int, ctypes.c_int,
                                   ctypes.POINTER(ctypes.c_double)]),
    "lg_layout_config_md": (_S, [_P, ctypes.c_int, ctypes.c_int, ctypes.c_int, _MDP]),
    "lg_layout_num_edges": (ctypes.c_int, [_P]),
    "lg_layout_edge": (_S, [_P, ctypes.c_int, ctypes.POINTER(ctypes.c_int),
                            ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.c_int)]),
    "lg_layout_edge_mds": (_S, [_P, ctypes.c_int, ctypes.c_int, ctypes.c_int, _MDP, _MDP]),
    "lg_layout_edge_cost": (_S, [_P, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                                 ctypes.POINTER(ctypes.c_double)]),
    "lg_layout_cost": (_S, [_P, ctypes.c_int, ctypes.POINTER(ctypes.c_int),
                            ctypes.POINTER(ctypes.c_double)]),
    "lg_layout_choose": (_S, [_P, ctypes.c_int, ctypes.POINTER(ctypes.c_int)]),
}
for _name, (_res, _args) in _decls.items():
    _f = getattr(lib, _name)
    _f.restype = _res
    _f.argtypes = _args

if onnx_lib is not None:
    for _name, (_res, _args) in {
        "lg_onnx_options_init": (None, [ctypes.POINTER(OnnxOptions)]),
        "lg_onnx_load_file": (_S, [ctypes.c_char_p, ctypes.POINTER(OnnxOptions),
                                   ctypes.POINTER(_P), ctypes.POINTER(OnnxIo)]),
        "lg_onnx_io_free": (None, [ctypes.POINTER(OnnxIo)]),
    }.items():
        _f = getattr(onnx_lib, _name)
        _f.restype = _res
        _f.argtypes = _args

libc = ctypes.CDLL(ctypes.util.find_library("c"))
libc.fopen.restype = _P
libc.fopen.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
libc.fclose.argtypes = [_P]
