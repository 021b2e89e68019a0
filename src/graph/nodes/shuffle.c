/* The shuffle node (forward channel shuffle): lg_graph_add_shuffle and its
 * hooks. Memory-bound: under GREEDY it runs in the layout that arrives. */
#include "graph/graph.h"
#include "primitives/shuffle/shuffle.h"

#include <string.h>

static lg_status shuffle_infer(const lg__node *node, const lg_md *in, int index, lg_md *out,
                               const char *where) {
    const lg_md *src = &in[0];
    int axis = node->p.shuffle.axis;
    int64_t gs = node->p.shuffle.group_size;
    if (axis < 0 || axis >= src->ndims)
        return lg__error(LG_INVALID_ARGUMENT, where,
                         "node %d (shuffle): axis %d is out of range for %d dims", index, axis,
                         src->ndims);
    if (gs <= 0)
        return lg__error(LG_INVALID_ARGUMENT, where,
                         "node %d (shuffle): group_size %lld is not positive", index,
                         (long long)gs);
    if (src->dims[axis] % gs != 0)
        return lg__error(LG_INVALID_GRAPH, where,
                         "node %d (shuffle): group_size %lld does not divide dims[%d] = %lld",
                         index, (long long)gs, axis, (long long)src->dims[axis]);
    *out = *src;
    out->format_kind = LG_FMT_ANY;
    return LG_OK;
}

/* Input and result may differ in layout (fuse_shuffle_reorder). */
static lg_status shuffle_create(const lg__node *node, const lg_md *in, const lg_md *out, int npost,
                                const lg__post_op *post, lg_kernel **k) {
    (void)npost, (void)post;
    return lg_shuffle_create_layouts(k, LG_FORWARD, &in[0], out, node->p.shuffle.axis,
                                     node->p.shuffle.group_size);
}

static void shuffle_describe(const lg__node *node, const lg_md *in, const lg_md *out, int npost,
                             const lg__post_op *post, char *buf, size_t len) {
    (void)in, (void)out, (void)npost, (void)post;
    snprintf(buf, len, "axis:%d group_size:%lld", node->p.shuffle.axis,
             (long long)node->p.shuffle.group_size);
}

const lg__node_ops lg__node_shuffle_ops = {
    .name = "shuffle",
    .layer_class = LG_LAYER_DATA_MOVEMENT,
    .in_args = {LG_ARG_SRC},
    .infer = shuffle_infer,
    .layout_none = lg__layout_all_plain,
    .layout_greedy = lg__layout_keep,
    .candidates = lg__candidates_same_layout,
    .create = shuffle_create,
    .describe = shuffle_describe,
};

lg_status lg_graph_add_shuffle(lg_graph *g, lg_value src, int axis, int64_t group_size,
                               lg_value *out) {
    if (!g || !out) return LG_ERROR(LG_INVALID_ARGUMENT, "%s is NULL", !g ? "graph" : "out");
    LG_CHECK(lg__graph_check_value(g, src, "src", "shuffle", __func__));
    lg__node node;
    memset(&node, 0, sizeof node);
    node.kind = LG_NODE_SHUFFLE;
    node.nin = 1;
    node.in[0] = src;
    node.p.shuffle.axis = axis;
    node.p.shuffle.group_size = group_size;
    return lg__graph_add_node(g, &node, out, __func__);
}
