/* The slice node: lg_graph_add_slice, lg_graph_add_split (one slice node
 * per part) and their hooks. Memory-bound: it keeps its input's layout
 * (GREEDY), or runs in one layout for input and result (OPTIMAL). */
#include "graph/graph.h"
#include "primitives/concat/concat.h"

#include <stdio.h>
#include <string.h>

static lg_status slice_infer(const lg__node *node, const lg_md *in, int index, lg_md *out,
                             const char *where) {
    const lg_md *src = &in[0];
    int axis = node->p.slice.axis;
    int64_t start = node->p.slice.start, len = node->p.slice.len;
    if (axis < 0 || axis >= src->ndims)
        return lg__error(LG_INVALID_ARGUMENT, where,
                         "node %d (slice): axis %d is out of range for %d dims", index, axis,
                         src->ndims);
    if (len < 1 || start < 0 || start > src->dims[axis] - len)
        return lg__error(LG_INVALID_ARGUMENT, where,
                         "node %d (slice): range [start %lld, + len %lld) is outside src's dim %d "
                         "(%lld)",
                         index, (long long)start, (long long)len, axis, (long long)src->dims[axis]);
    *out = *src;
    out->dims[axis] = out->padded_dims[axis] = len;
    out->format_kind = LG_FMT_ANY;
    return LG_OK;
}

/* The blocked, rows or views copy paths (lg__cc_fast). */
static bool slice_runs_fast(const lg__node *node, const lg_md *in, const lg_md *out, int npost,
                            const lg__post_op *post) {
    (void)npost, (void)post;
    lg__cc_pd *pd;
    size_t psize;
    if (lg__slice_query(node->p.slice.axis, node->p.slice.start, &in[0], out, NULL, &pd, &psize) !=
        LG_OK)
        return false;
    bool fast = lg__cc_fast(pd);
    lg__free(pd);
    return fast;
}

static lg_status slice_create(const lg__node *node, const lg_md *in, const lg_md *out, int npost,
                              const lg__post_op *post, lg_kernel **k) {
    (void)npost, (void)post;
    return lg_slice_create(k, node->p.slice.axis, node->p.slice.start, &in[0], out);
}

static void slice_describe(const lg__node *node, const lg_md *in, const lg_md *out, int npost,
                           const lg__post_op *post, char *buf, size_t len) {
    (void)in, (void)out, (void)npost, (void)post;
    snprintf(buf, len, "axis:%d start:%lld len:%lld", node->p.slice.axis,
             (long long)node->p.slice.start, (long long)node->p.slice.len);
}

const lg__node_ops lg__node_slice_ops = {
    .name = "slice",
    .layer_class = LG_LAYER_DATA_MOVEMENT,
    .in_args = {LG_ARG_SRC},
    .infer = slice_infer,
    .layout_none = lg__layout_all_plain,
    .layout_greedy = lg__layout_keep,
    .candidates = lg__candidates_same_layout,
    .runs_fast = slice_runs_fast,
    .create = slice_create,
    .describe = slice_describe,
};

static lg_status add_slice(lg_graph *g, lg_value src, int axis, int64_t start, int64_t len,
                           lg_value *out, const char *where) {
    lg__node node;
    memset(&node, 0, sizeof node);
    node.kind = LG_NODE_SLICE;
    node.nin = 1;
    node.in[0] = src;
    node.p.slice.axis = axis;
    node.p.slice.start = start;
    node.p.slice.len = len;
    return lg__graph_add_node(g, &node, out, where);
}

lg_status lg_graph_add_slice(lg_graph *g, lg_value src, int axis, int64_t start, int64_t len,
                             lg_value *out) {
    if (!g || !out) return LG_ERROR(LG_INVALID_ARGUMENT, "%s is NULL", !g ? "graph" : "out");
    LG_CHECK(lg__graph_check_value(g, src, "src", "slice", __func__));
    return add_slice(g, src, axis, start, len, out, __func__);
}

lg_status lg_graph_add_split(lg_graph *g, lg_value src, int axis, int n, const int64_t *sizes,
                             lg_value *outs) {
    if (!g || !sizes || !outs)
        return LG_ERROR(LG_INVALID_ARGUMENT, "%s is NULL",
                        !g       ? "graph"
                        : !sizes ? "sizes"
                                 : "outs");
    LG_CHECK(lg__graph_check_value(g, src, "src", "split", __func__));
    const lg_md *m = &g->vals[src].md;
    if (axis < 0 || axis >= m->ndims)
        return LG_ERROR(LG_INVALID_ARGUMENT, "node %d (split): axis %d is out of range for %d dims",
                        g->nnodes, axis, m->ndims);
    if (n < 1) return LG_ERROR(LG_INVALID_ARGUMENT, "node %d (split): n = %d parts", g->nnodes, n);
    int64_t sum = 0;
    for (int i = 0; i < n; i++) {
        if (sizes[i] < 1)
            return LG_ERROR(LG_INVALID_ARGUMENT, "node %d (split): sizes[%d] = %lld is below 1",
                            g->nnodes, i, (long long)sizes[i]);
        sum += sizes[i];
        if (sum > m->dims[axis]) break;
    }
    if (sum != m->dims[axis])
        return LG_ERROR(LG_INVALID_ARGUMENT,
                        "node %d (split): the sum of sizes does not cover dim %d (%lld)", g->nnodes,
                        axis, (long long)m->dims[axis]);
    int64_t at = 0;
    for (int i = 0; i < n; i++) {
        LG_CHECK(add_slice(g, src, axis, at, sizes[i], &outs[i], __func__));
        at += sizes[i];
    }
    return LG_OK;
}
