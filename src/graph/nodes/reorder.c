/* The reorder node: an explicit change of layout and/or data type. It is
 * also the node the compiler inserts where layouts disagree (inserted) and
 * the copy into an output buffer (copy). In every strategy it reads its
 * input as it arrives and produces exactly the md it was given. */
#include "graph/graph.h"

#include <string.h>

static lg_status reorder_infer(const lg__node *node, const lg_md *in, int index, lg_md *out,
                               const char *where) {
    const lg_md *src = &in[0], *dst = &node->p.reorder.dst;
    if (!lg__md_ok(dst))
        return lg__error(LG_INVALID_ARGUMENT, where, "node %d (reorder): dst md is not initialised",
                         index);
    if (lg_md_is_any(dst))
        return lg__error(LG_INVALID_ARGUMENT, where,
                         "node %d (reorder): dst md is 'any' (an explicit reorder names its "
                         "layout)",
                         index);
    if (dst->ndims != src->ndims)
        return lg__error(LG_INVALID_GRAPH, where, "node %d (reorder): src has %d dims, dst %d",
                         index, src->ndims, dst->ndims);
    for (int d = 0; d < src->ndims; d++)
        if (src->dims[d] != dst->dims[d])
            return lg__error(LG_INVALID_GRAPH, where,
                             "node %d (reorder): dims[%d] differ: src %lld, dst %lld", index, d,
                             (long long)src->dims[d], (long long)dst->dims[d]);
    lg__md_canon(dst, out);
    return LG_OK;
}

/* Both strategies: read what arrives, write the given md. */
static lg_status reorder_layout(const lg__node *node, const lg_md *in, lg_md *read, lg_md *out) {
    read[0] = in[0];
    *out = node->p.reorder.dst;
    return LG_OK;
}

/* OPTIMAL: the result is fixed; the input may be read in any layout. */
static int reorder_candidates(const lg__node *node, const lg_md *in, const lg_md *out,
                              lg__layout_cfg *cfg) {
    (void)out;
    lg_md li[3];
    int ni = lg__layouts_of(&in[0], li);
    for (int i = 0; i < ni; i++) {
        memset(&cfg[i], 0, sizeof cfg[i]);
        cfg[i].in[0] = li[i];
        cfg[i].out = node->p.reorder.dst;
    }
    return ni;
}

static lg_status reorder_create(const lg__node *node, const lg_md *in, const lg_md *out, int npost,
                                const lg__post_op *post, lg_kernel **k) {
    (void)node, (void)npost, (void)post;
    return lg_reorder_create(k, &in[0], out, NULL);
}

static void reorder_describe(const lg__node *node, const lg_md *in, const lg_md *out, int npost,
                             const lg__post_op *post, char *buf, size_t len) {
    (void)in, (void)out, (void)npost, (void)post;
    char tag[LG_TAG_MAX * 2];
    if (!lg__md_tag_str(&node->p.reorder.dst, tag)) snprintf(tag, sizeof tag, "strided");
    snprintf(buf, len, "to:%s:%s", lg_dtype_str(node->p.reorder.dst.dtype), tag);
}

const lg__node_ops lg__node_reorder_ops = {
    .name = "reorder",
    .layer_class = LG_LAYER_REORDER,
    .in_args = {LG_ARG_SRC},
    .foldable = true,
    .infer = reorder_infer,
    .layout_none = reorder_layout,
    .layout_greedy = reorder_layout,
    .candidates = reorder_candidates,
    .create = reorder_create,
    .describe = reorder_describe,
};

static bool attr_empty(const lg_attr *a) {
    return a->scale_mask[0] < 0 && a->scale_mask[1] < 0 && a->zp_mask[0] < 0 && a->zp_mask[1] < 0 &&
           a->npost == 0;
}

lg_status lg_graph_add_reorder(lg_graph *g, lg_value src, const lg_md *dst, const lg_attr *attr,
                               lg_value *out) {
    if (!g || !dst || !out)
        return LG_ERROR(LG_INVALID_ARGUMENT, "%s is NULL", !g ? "graph" : !dst ? "dst md" : "out");
    LG_CHECK(lg__graph_check_value(g, src, "src", "reorder", __func__));
    LG_CHECK(lg__md_check(dst, __func__, "dst md"));
    /* A plan has no way to receive scale or zero-point values at execution,
     * and a sum would read a dst that holds nothing yet. */
    if (attr && !attr_empty(attr))
        return LG_ERROR(LG_UNIMPLEMENTED,
                        "node %d (reorder): attributes (scales, zero points, post-ops) are not "
                        "supported in a graph",
                        g->nnodes);
    lg__node node;
    memset(&node, 0, sizeof node);
    node.kind = LG_NODE_REORDER;
    node.nin = 1;
    node.in[0] = src;
    lg__md_canon(dst, &node.p.reorder.dst);
    return lg__graph_add_node(g, &node, out, __func__);
}
