#!/usr/bin/python3
"""Write seeds of the graph fuzz target that reach each extreme-parameter
call of tests/fuzz/graph_extreme.c for concat, softmax, inner product and
batchnorm, to tests/fuzz/corpus/graph/extreme_<call>_<k>. Each seed builds
one "any" f32 input, then takes the extreme branch; the bytes follow the
order in which fuzz_graph.c and graph_extreme.c read them (reading past the
end gives zeros: no output mistakes, no allocation failure). Run:
    python3 tests/fuzz/make_graph_extreme_seeds.py
and check that the replay reaches them:
    LG_FUZZ_TRACE=1 build/tests/fuzz_replay_graph tests/fuzz/corpus/graph
"""
import os

out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "graph")

# Indices into extremes.h's lists (the byte is taken modulo the length).
X64 = {"0": 0, "-1": 1, "2": 3, "max": 4, "min": 5, "max-1": 6, "2^62": 8, "2^61": 10,
       "2^32": 11, "int32max": 13, "3037000500": 15, "2^40": 16}
XINT = {"-1": 1, "2": 3, "max": 4, "min": 5, "13": 8, "64": 12, "1025": 14}


def seed(dims, which, field, e, extra=()):
    """fz_begin's ISA byte; the graph's control byte (0); two ops; op 0 an
    input of dims (small_dims bytes: 1 + b % 7), "any" f32, its values (0);
    op 7 with the 1-in-8 byte 7: gf_extreme on value 0 (which, field, the
    extreme's index, then the call's own bytes)."""
    b = [0x02, 0x00, 0x01, 0x00, len(dims) - 1] + [d - 1 for d in dims] + [0x00]
    n = 1
    for d in dims:
        n *= d
    b += [0x00] * n
    b += [0x07, 0x07, 0x00, which, field, e] + list(extra)
    return bytes(b)


seeds = []
ones = [1, 1, 1]
small = [2, 3, 2]
# concat: the axis, the count, sources whose axis dims sum past INT64_MAX
# (field 0x40: every source the big one; 0x80: s8, so that it is valid alone;
# else x and the big one, f32, alternating).
for a in ("-1", "max", "min", "13"):
    seeds.append(("concat", seed(small, 6, 0x00, 0, [XINT[a]])))
for n in ("-1", "2", "64", "1025"):
    seeds.append(("concat", seed(small, 6, 0x05, 0, [XINT[n]])))
for e in ("max", "max-1", "2^62", "2^61", "3037000500"):
    for cnt in (0, 4):  # 2 or 6 sources (6: a tree)
        seeds.append(("concat", seed(ones, 6, 0xc6, X64[e], [cnt])))
seeds.append(("concat", seed(ones, 6, 0x86, X64["max"], [0])))
seeds.append(("concat", seed(small, 6, 0x46, X64["2^40"], [4])))
# softmax: the axis, the algorithm, a src with an extreme dim.
for a in ("-1", "max", "min", "13"):
    seeds.append(("softmax", seed(small, 7, 0x00, 0, [XINT[a]])))
for a in ("-1", "2", "max"):
    seeds.append(("softmax", seed(small, 7, 0x05, 0, [XINT[a]])))
for e in ("0", "-1", "max", "2^40"):
    seeds.append(("softmax", seed(small, 7, 0x26, X64[e])))
# inner product: OC and each weights dim, the bias, OC with its bias, the batch.
for dim in (0, 1, 2):
    for e in ("0", "-1", "max", "min", "2^40", "3037000500"):
        seeds.append(("inner_product", seed(ones, 8, dim << 2, X64[e])))
for e in ("0", "2", "max", "2^40"):
    seeds.append(("inner_product", seed(ones, 8, 0x01, X64[e])))
for e in ("max", "int32max", "2^40"):
    seeds.append(("inner_product", seed(ones, 8, 0x02, X64[e])))
for e in ("0", "max", "2^40"):
    seeds.append(("inner_product", seed(ones, 8, 0x03, X64[e])))
# batchnorm: epsilon (each float extreme, with gamma and beta, fused relu),
# one statistic's length, the channel count.
for i in range(9):
    seeds.append(("batchnorm", seed(small, 9, 0x30, 0, [i])))
for k in range(4):
    for e in ("0", "max", "2^40"):
        seeds.append(("batchnorm", seed(small, 9, 0x11 | k << 2, X64[e])))
for e in ("0", "-1", "max", "2^40", "2^32"):
    seeds.append(("batchnorm", seed(small, 9, 0x12, X64[e])))

count = {}
for name, data in seeds:
    k = count.get(name, 0)
    count[name] = k + 1
    with open(os.path.join(out, "extreme_%s_%d" % (name, k)), "wb") as f:
        f.write(data)
print("wrote", len(seeds), "seeds:", count)
