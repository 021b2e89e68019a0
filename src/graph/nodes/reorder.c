/* The reorder node: an explicit change of layout and/or data type. It is
 * also the node the compiler inserts where layouts disagree (inserted) and
 * the copy into an output buffer (copy). In every strategy it reads its
 * input as it arrives and produces exactly the md it was given. */
#include "graph/graph.h"

#include <string.h>

static lg_status reorder_infer(const lg__value *vals, const lg__node *node, int index, lg_md *out,
                               const char *where) {
    const lg_md *src = &vals[node->in[0]].md, *dst = &node->p.reorder.dst;
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
static lg_status reorder_layout(lg__graph *ir, int n) {
    lg__node *node = &ir->nodes[n];
    node->in_md[0] = ir->vals[node->in[0]].md;
    ir->vals[node->out].md = node->p.reorder.dst;
    return LG_OK;
}

static lg_status reorder_create(const lg__graph *ir, const lg__node *node, lg_kernel **k) {
    return lg_reorder_create(k, &ir->vals[node->in[0]].md, &ir->vals[node->out].md, NULL);
}

static void reorder_describe(const lg__graph *ir, const lg__node *node, char *buf, size_t len) {
    (void)ir;
    char tag[LG_TAG_MAX * 2];
    if (!lg__md_tag_str(&node->p.reorder.dst, tag)) snprintf(tag, sizeof tag, "strided");
    snprintf(buf, len, "to:%s:%s%s", lg_dtype_str(node->p.reorder.dst.dtype), tag,
             node->copy       ? " (copy to output)"
             : node->inserted ? " (inserted)"
                              : "");
}

const lg__node_ops lg__node_reorder_ops = {
    .name = "reorder",
    .in_args = {LG_ARG_SRC},
    .infer = reorder_infer,
    .layout_none = reorder_layout,
    .layout_greedy = reorder_layout,
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
