/* The softmax node (softmax and log-softmax over one axis): lg_graph_add_softmax
 * and its hooks. Memory-bound; the kernel runs plain and channel-blocked
 * layouts (over channels too) with vector code, so under GREEDY it runs in
 * the layout its input arrives in and OPTIMAL offers every family. */
#include "graph/graph.h"

#include <string.h>

static lg_status softmax_infer(const lg__node *node, const lg_md *in, int index, lg_md *out,
                               const char *where) {
    const lg_md *src = &in[0];
    int alg = node->p.softmax.alg, axis = node->p.softmax.axis;
    if (alg != LG_SOFTMAX && alg != LG_LOGSOFTMAX)
        return lg__error(LG_INVALID_ARGUMENT, where,
                         "node %d (softmax): alg %d is not an lg_softmax_alg", index, alg);
    if (axis < 0 || axis >= src->ndims)
        return lg__error(LG_INVALID_ARGUMENT, where,
                         "node %d (softmax): axis %d is out of range for %d dims", index, axis,
                         src->ndims);
    lg_dtype dt = src->dtype;
    if (dt != LG_F32 && dt != LG_BF16 && dt != LG_F16)
        return lg__error(LG_UNIMPLEMENTED, where,
                         "node %d (softmax): src is %s; softmax takes f32, bf16 and f16", index,
                         lg_dtype_str(dt));
    for (int d = 0; d < src->ndims; d++)
        if (src->dims[d] < 1)
            return lg__error(LG_INVALID_ARGUMENT, where,
                             "node %d (softmax): src dims[%d] is %lld (must be >= 1)", index, d,
                             (long long)src->dims[d]);
    *out = *src;
    out->format_kind = LG_FMT_ANY;
    return LG_OK;
}

static lg_status softmax_create(const lg__node *node, const lg_md *in, const lg_md *out, int npost,
                                const lg__post_op *post, lg_kernel **k) {
    (void)npost, (void)post;
    return lg_softmax_create(k, (lg_softmax_alg)node->p.softmax.alg, node->p.softmax.axis, &in[0],
                             out);
}

static void softmax_describe(const lg__node *node, const lg_md *in, const lg_md *out, int npost,
                             const lg__post_op *post, char *buf, size_t len) {
    (void)in, (void)out, (void)npost, (void)post;
    snprintf(buf, len, "alg:%s axis:%d",
             node->p.softmax.alg == LG_LOGSOFTMAX ? "logsoftmax" : "softmax", node->p.softmax.axis);
}

const lg__node_ops lg__node_softmax_ops = {
    .name = "softmax",
    .layer_class = LG_LAYER_HEAD,
    .in_args = {LG_ARG_SRC},
    .inplace = true,
    .foldable = true,
    .infer = softmax_infer,
    .layout_none = lg__layout_all_plain,
    .layout_greedy = lg__layout_keep,
    .candidates = lg__candidates_same_layout,
    .create = softmax_create,
    .describe = softmax_describe,
};

lg_status lg_graph_add_softmax(lg_graph *g, lg_value src, lg_softmax_alg alg, int axis,
                               lg_value *out) {
    if (!g || !out) return LG_ERROR(LG_INVALID_ARGUMENT, "%s is NULL", !g ? "graph" : "out");
    LG_CHECK(lg__graph_check_value(g, src, "src", "softmax", __func__));
    lg__node node;
    memset(&node, 0, sizeof node);
    node.kind = LG_NODE_SOFTMAX;
    node.nin = 1;
    node.in[0] = src;
    node.p.softmax.alg = (int)alg;
    node.p.softmax.axis = axis;
    return lg__graph_add_node(g, &node, out, __func__);
}
