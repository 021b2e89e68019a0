/* The binary node: lg_graph_add_binary and its hooks. Under GREEDY it runs in
 * src0's layout; src1 is read in that layout too when it has the same dims
 * (reordered if needed), and as it is when it is broadcast. */
#include "graph/graph.h"
#include "primitives/binary/binary.h"

#include <string.h>

static bool dtype_ok(lg_dtype dt) {
    return dt == LG_F32 || dt == LG_BF16 || dt == LG_F16;
}

static lg_status binary_infer(const lg__node *node, const lg_md *in, int index, lg_md *out,
                              const char *where) {
    const lg_md *a = &in[0], *b = &in[1];
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
        lg_dtype dt = in[i].dtype;
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

static lg_status binary_greedy(const lg__node *node, const lg_md *in, lg_md *read, lg_md *out) {
    (void)node;
    const lg_md *a = &in[0], *b = &in[1];
    if (lg__md_dense_concrete(a))
        read[0] = *a;
    else
        lg__md_plain(a, &read[0]);
    if (same_dims(a, b))
        lg__md_like(&read[0], b, &read[1]);
    else if (lg__md_dense_concrete(b))
        read[1] = *b;
    else
        lg__md_plain(b, &read[1]);
    lg_md md;
    lg__md_like(&read[0], out, &md);
    *out = md;
    return LG_OK;
}

/* An add of two distinct values becomes a sum post-op of the producer of
 * either; the other input is the sum's source. */
static bool binary_as_post_op(const lg__node *node, int slot, lg__post_op *op, int *other) {
    if (node->p.binary.alg != LG_BINARY_ADD || node->in[0] == node->in[1]) return false;
    memset(op, 0, sizeof *op);
    op->kind = LG_POST_SUM;
    op->scale = 1.0f;
    *other = 1 - slot;
    return true;
}

static lg_status binary_create(const lg__node *node, const lg_md *in, const lg_md *out, int npost,
                               const lg__post_op *post, lg_kernel **k) {
    (void)npost, (void)post;
    return lg_binary_create(k, (lg_binary_alg)node->p.binary.alg, &in[0], &in[1], out);
}

static void binary_describe(const lg__node *node, const lg_md *in, const lg_md *out, int npost,
                            const lg__post_op *post, char *buf, size_t len) {
    (void)in, (void)out, (void)npost, (void)post;
    snprintf(buf, len, "alg:%s", lg__binary_alg_str(node->p.binary.alg));
}

const lg__node_ops lg__node_binary_ops = {
    .name = "binary",
    .layer_class = LG_LAYER_ELTWISE,
    .in_args = {LG_ARG_SRC, LG_ARG_SRC + 1},
    .inplace = true,
    .infer = binary_infer,
    .layout_none = lg__layout_all_plain,
    .layout_greedy = binary_greedy,
    .candidates = lg__candidates_same_layout,
    .as_post_op = binary_as_post_op,
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
