/* The eltwise node: lg_graph_add_eltwise and its hooks. Memory-bound: under
 * GREEDY it runs in the layout its input arrives in. */
#include "graph/graph.h"
#include "primitives/eltwise/eltwise.h"

#include <string.h>

static lg_status eltwise_infer(const lg__node *node, const lg_md *in, int index, lg_md *out,
                               const char *where) {
    const lg_md *src = &in[0];
    bool ints = false;
    if (!lg__eltwise_alg_known(node->p.eltwise.alg, &ints))
        return lg__error(LG_INVALID_ARGUMENT, where,
                         "node %d (eltwise): alg %d is not an "
                         "lg_eltwise_alg",
                         index, node->p.eltwise.alg);
    lg_dtype dt = src->dtype;
    if (dt != LG_F32 && dt != LG_BF16 && dt != LG_F16 && !ints)
        return lg__error(LG_UNIMPLEMENTED, where,
                         "node %d (eltwise): %s on %s: integer types take relu, linear, clip and "
                         "abs only",
                         index, lg__eltwise_alg_str(node->p.eltwise.alg), lg_dtype_str(dt));
    *out = *src;
    out->format_kind = LG_FMT_ANY;
    return LG_OK;
}

static lg_status eltwise_create(const lg__node *node, const lg_md *in, const lg_md *out, int npost,
                                const lg__post_op *post, lg_kernel **k) {
    (void)npost, (void)post;
    return lg_eltwise_create(k, (lg_eltwise_alg)node->p.eltwise.alg, node->p.eltwise.alpha,
                             node->p.eltwise.beta, &in[0], out);
}

/* Any eltwise becomes an eltwise post-op of its producer. */
static bool eltwise_as_post_op(const lg__node *node, int slot, lg__post_op *op, int *other) {
    (void)slot;
    memset(op, 0, sizeof *op);
    op->kind = LG_POST_ELTWISE;
    op->alg = node->p.eltwise.alg;
    op->alpha = node->p.eltwise.alpha;
    op->beta = node->p.eltwise.beta;
    *other = -1;
    return true;
}

static void eltwise_describe(const lg__node *node, const lg_md *in, const lg_md *out, int npost,
                             const lg__post_op *post, char *buf, size_t len) {
    (void)in, (void)out, (void)npost, (void)post;
    snprintf(buf, len, "alg:%s alpha:%g beta:%g", lg__eltwise_alg_str(node->p.eltwise.alg),
             (double)node->p.eltwise.alpha, (double)node->p.eltwise.beta);
}

const lg__node_ops lg__node_eltwise_ops = {
    .name = "eltwise",
    .layer_class = LG_LAYER_ELTWISE,
    .in_args = {LG_ARG_SRC},
    .inplace = true,
    .infer = eltwise_infer,
    .layout_none = lg__layout_all_plain,
    .layout_greedy = lg__layout_keep,
    .candidates = lg__candidates_same_layout,
    .as_post_op = eltwise_as_post_op,
    .create = eltwise_create,
    .describe = eltwise_describe,
};

lg_status lg_graph_add_eltwise(lg_graph *g, lg_value src, lg_eltwise_alg alg, float alpha,
                               float beta, lg_value *out) {
    if (!g || !out) return LG_ERROR(LG_INVALID_ARGUMENT, "%s is NULL", !g ? "graph" : "out");
    LG_CHECK(lg__graph_check_value(g, src, "src", "eltwise", __func__));
    lg__node node;
    memset(&node, 0, sizeof node);
    node.kind = LG_NODE_ELTWISE;
    node.nin = 1;
    node.in[0] = src;
    node.p.eltwise.alg = (int)alg;
    node.p.eltwise.alpha = alpha;
    node.p.eltwise.beta = beta;
    return lg__graph_add_node(g, &node, out, __func__);
}
