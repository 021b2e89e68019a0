/* The binary node: lg_graph_add_binary and its hooks. Under GREEDY it runs in
 * src0's layout; src1 is read in that layout too when it has the same dims
 * (reordered if needed), and as it is when it is broadcast. */
#include "graph/graph.h"

#include <string.h>

static const char *alg_str(int alg) {
    static const char *const names[] = {"add", "sub", "mul", "div", "min", "max"};
    return alg >= 0 && alg < 6 ? names[alg] : "unknown";
}

static bool dtype_ok(lg_dtype dt) {
    return dt == LG_F32 || dt == LG_BF16 || dt == LG_F16;
}

static lg_status binary_infer(const lg__value *vals, const lg__node *node, int index, lg_md *out,
                              const char *where) {
    const lg_md *a = &vals[node->in[0]].md, *b = &vals[node->in[1]].md;
    int alg = node->p.binary.alg;
    if (alg < LG_BINARY_ADD || alg > LG_BINARY_MAX)
        return lg__error(LG_INVALID_ARGUMENT, where,
                         "node %d (binary): alg %d is not an lg_binary_alg", index, alg);
    if (a->ndims != b->ndims)
        return lg__error(LG_INVALID_GRAPH, where,
                         "node %d (binary): src0 has %d dims, src1 %d (not broadcastable)", index,
                         a->ndims, b->ndims);
    for (int d = 0; d < a->ndims; d++)
        if (b->dims[d] != a->dims[d] && b->dims[d] != 1)
            return lg__error(LG_INVALID_GRAPH, where,
                             "node %d (binary): src1 dims[%d] = %lld is neither src0's %lld nor 1 "
                             "(not broadcastable)",
                             index, d, (long long)b->dims[d], (long long)a->dims[d]);
    for (int i = 0; i < 2; i++) {
        lg_dtype dt = vals[node->in[i]].md.dtype;
        if (!dtype_ok(dt))
            return lg__error(LG_UNIMPLEMENTED, where,
                             "node %d (binary): src%d is %s; binary takes f32, bf16 and f16", index,
                             i, lg_dtype_str(dt));
    }
    *out = *a;
    out->format_kind = LG_FMT_ANY;
    return LG_OK;
}

static bool same_dims(const lg_md *a, const lg_md *b) {
    for (int d = 0; d < a->ndims; d++)
        if (a->dims[d] != b->dims[d]) return false;
    return true;
}

static lg_status binary_greedy(lg__graph *ir, int n) {
    lg__node *node = &ir->nodes[n];
    const lg_md *a = &ir->vals[node->in[0]].md, *b = &ir->vals[node->in[1]].md;
    if (lg__md_dense_concrete(a))
        node->in_md[0] = *a;
    else
        lg__md_plain(a, &node->in_md[0]);
    if (same_dims(a, b))
        lg__md_like(&node->in_md[0], b, &node->in_md[1]);
    else if (lg__md_dense_concrete(b))
        node->in_md[1] = *b;
    else
        lg__md_plain(b, &node->in_md[1]);
    lg_md out;
    lg__md_like(&node->in_md[0], &ir->vals[node->out].md, &out);
    ir->vals[node->out].md = out;
    return LG_OK;
}

static lg_status binary_create(const lg__graph *ir, const lg__node *node, lg_kernel **k) {
    return lg_binary_create(k, (lg_binary_alg)node->p.binary.alg, &ir->vals[node->in[0]].md,
                            &ir->vals[node->in[1]].md, &ir->vals[node->out].md);
}

static void binary_describe(const lg__graph *ir, const lg__node *node, char *buf, size_t len) {
    (void)ir;
    snprintf(buf, len, "alg:%s", alg_str(node->p.binary.alg));
}

const lg__node_ops lg__node_binary_ops = {
    .name = "binary",
    .in_args = {LG_ARG_SRC, LG_ARG_SRC + 1},
    .infer = binary_infer,
    .layout_none = lg__layout_all_plain,
    .layout_greedy = binary_greedy,
    .create = binary_create,
    .describe = binary_describe,
};

lg_status lg_graph_add_binary(lg_graph *g, lg_binary_alg alg, lg_value src0, lg_value src1,
                              lg_value *out) {
    if (!g || !out) return LG_ERROR(LG_INVALID_ARGUMENT, "%s is NULL", !g ? "graph" : "out");
    LG_CHECK(lg__graph_check_value(g, src0, "src0", "binary", __func__));
    LG_CHECK(lg__graph_check_value(g, src1, "src1", "binary", __func__));
    lg__node node;
    memset(&node, 0, sizeof node);
    node.kind = LG_NODE_BINARY;
    node.nin = 2;
    node.in[0] = src0;
    node.in[1] = src1;
    node.p.binary.alg = (int)alg;
    return lg__graph_add_node(g, &node, out, __func__);
}
