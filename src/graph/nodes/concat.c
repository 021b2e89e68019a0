/* The concat node: lg_graph_add_concat and its hooks. A node reads at most
 * LG_NODE_MAX_IN (5) values, so a concat of more sources is a balanced tree
 * of concat nodes (each level copies the data once more; see
 * docs/architecture.md). Memory-bound: it runs in one layout L, every input
 * read in L and the result written in L, which lets the kernel take its
 * blocked or row paths; OPTIMAL weighs L against the inputs' and readers'
 * layouts. */
#include "graph/graph.h"
#include "primitives/concat/concat.h"

#include <stdio.h>
#include <string.h>

/* Check srcs (count n) of axis against each other as lg_concat_create
 * does (every dim >= 1, equal off the axis, the result's axis dim and bytes
 * within int64); the result's md into *out (when non-NULL). Errors name
 * `where`, node `index` and srcs[i]. */
static lg_status check_srcs(int n, const lg_md *in, int axis, int index, const char *where,
                            lg_md *out) {
    const lg_md *s0 = &in[0];
    if (axis < 0 || axis >= s0->ndims)
        return lg__error(LG_INVALID_ARGUMENT, where,
                         "node %d (concat): axis %d is out of range for %d dims", index, axis,
                         s0->ndims);
    int64_t total = 0;
    for (int i = 0; i < n; i++) {
        const lg_md *m = &in[i];
        if (m->ndims != s0->ndims || m->dtype != s0->dtype)
            return lg__error(LG_INVALID_ARGUMENT, where,
                             "node %d (concat): srcs[%d] is %s with %d dims, srcs[0] %s with %d",
                             index, i, lg_dtype_str(m->dtype), m->ndims, lg_dtype_str(s0->dtype),
                             s0->ndims);
        for (int d = 0; d < s0->ndims; d++) {
            if (m->dims[d] < 1)
                return lg__error(LG_INVALID_ARGUMENT, where,
                                 "node %d (concat): srcs[%d] dim %d is %lld (must be >= 1)", index,
                                 i, d, (long long)m->dims[d]);
            if (d != axis && m->dims[d] != s0->dims[d])
                return lg__error(LG_INVALID_ARGUMENT, where,
                                 "node %d (concat): srcs[%d] dim %d is %lld, srcs[0]'s %lld", index,
                                 i, d, (long long)m->dims[d], (long long)s0->dims[d]);
        }
        if (!lg__add_ok(total, m->dims[axis], &total))
            return lg__error(LG_INVALID_ARGUMENT, where,
                             "node %d (concat): the sources' dims on axis %d overflow int64 at "
                             "srcs[%d]",
                             index, axis, i);
    }
    int64_t bytes = (int64_t)lg_dtype_size(s0->dtype);
    for (int d = 0; d < s0->ndims; d++)
        if (!lg__mul_ok(bytes, d == axis ? total : s0->dims[d], &bytes))
            return lg__error(LG_INVALID_ARGUMENT, where,
                             "node %d (concat): the result (%lld on axis %d) overflows int64 in "
                             "bytes",
                             index, (long long)total, axis);
    if (out) {
        *out = *s0;
        out->dims[axis] = out->padded_dims[axis] = total;
        out->format_kind = LG_FMT_ANY;
    }
    return LG_OK;
}

static lg_status concat_infer(const lg__node *node, const lg_md *in, int index, lg_md *out,
                              const char *where) {
    return check_srcs(node->nin, in, node->p.concat.axis, index, where, out);
}

/* GREEDY: the layout of input 0 (when dense), every input read in it. */
static lg_status concat_greedy(const lg__node *node, const lg_md *in, lg_md *read, lg_md *out) {
    lg_md lay;
    if (lg__md_dense_concrete(&in[0]))
        lg__md_like(&in[0], out, &lay);
    else
        lg__md_plain(out, &lay);
    for (int i = 0; i < node->nin; i++) lg__md_like(&lay, &in[i], &read[i]);
    *out = lay;
    return LG_OK;
}

/* OPTIMAL: plain, channels last, blocked by 8 and by 16 (where the shape
 * has them), each input read in the same layout. */
static int concat_candidates(const lg__node *node, const lg_md *in, const lg_md *out,
                             lg__layout_cfg *cfg) {
    lg_md lo[4];
    int no = lg__layouts_of(out, lo);
    if (no == 3) { /* add the other block size */
        const int nd = out->ndims;
        int64_t b = lo[2].blocking.inner_blks[0] == 16 ? 8 : 16;
        char tag[32] = "aB";
        for (int d = 2; d < nd; d++) tag[d] = (char)('a' + d);
        snprintf(tag + nd, sizeof tag - (size_t)nd, "%lldb", (long long)b);
        lg_md md;
        if (lg_md_init_tag(&md, nd, out->dims, out->dtype, tag) == LG_OK)
            lg__md_canon(&md, &lo[no++]);
    }
    for (int a = 0; a < no; a++) {
        memset(&cfg[a], 0, sizeof cfg[a]);
        cfg[a].out = lo[a];
        for (int i = 0; i < node->nin; i++) lg__md_like(&lo[a], &in[i], &cfg[a].in[i]);
    }
    return no;
}

/* The blocked, rows or views copy paths (lg__cc_fast). */
static bool concat_runs_fast(const lg__node *node, const lg_md *in, const lg_md *out, int npost,
                             const lg__post_op *post) {
    (void)npost, (void)post;
    lg__cc_pd *pd;
    size_t psize;
    if (lg__concat_query(node->p.concat.axis, node->nin, in, out, NULL, &pd, &psize) != LG_OK)
        return false;
    bool fast = lg__cc_fast(pd);
    lg__free(pd);
    return fast;
}

static lg_status concat_create(const lg__node *node, const lg_md *in, const lg_md *out, int npost,
                               const lg__post_op *post, lg_kernel **k) {
    (void)npost, (void)post;
    return lg_concat_create(k, node->p.concat.axis, node->nin, in, out);
}

static void concat_describe(const lg__node *node, const lg_md *in, const lg_md *out, int npost,
                            const lg__post_op *post, char *buf, size_t len) {
    (void)in, (void)out, (void)npost, (void)post;
    snprintf(buf, len, "axis:%d n:%d", node->p.concat.axis, node->nin);
}

_Static_assert(LG_NODE_MAX_IN == 5, "lg__node_concat_ops.in_args: one argument id per input");

const lg__node_ops lg__node_concat_ops = {
    .name = "concat",
    .layer_class = LG_LAYER_DATA_MOVEMENT,
    .in_args = {LG_ARG_MULTIPLE_SRC, LG_ARG_MULTIPLE_SRC + 1, LG_ARG_MULTIPLE_SRC + 2,
                LG_ARG_MULTIPLE_SRC + 3, LG_ARG_MULTIPLE_SRC + 4},
    .infer = concat_infer,
    .layout_none = lg__layout_all_plain,
    .layout_greedy = concat_greedy,
    .candidates = concat_candidates,
    .runs_fast = concat_runs_fast,
    .create = concat_create,
    .describe = concat_describe,
};

/* The tree over srcs[0..n) (checked): groups of at most LG_NODE_MAX_IN. */
static lg_status add_tree(lg_graph *g, int axis, int n, const lg_value *srcs, lg_value *out) {
    if (n == 1) {
        *out = srcs[0];
        return LG_OK;
    }
    lg__node node;
    memset(&node, 0, sizeof node);
    node.kind = LG_NODE_CONCAT;
    node.p.concat.axis = axis;
    if (n <= LG_NODE_MAX_IN) {
        node.nin = n;
        memcpy(node.in, srcs, (size_t)n * sizeof *srcs);
    } else {
        node.nin = LG_NODE_MAX_IN;
        for (int p = 0, at = 0; p < LG_NODE_MAX_IN; p++) {
            int cnt = n * (p + 1) / LG_NODE_MAX_IN - at;
            LG_CHECK(add_tree(g, axis, cnt, srcs + at, &node.in[p]));
            at += cnt;
        }
    }
    return lg__graph_add_node(g, &node, out, "lg_graph_add_concat");
}

lg_status lg_graph_add_concat(lg_graph *g, int axis, int n, const lg_value *srcs, lg_value *out) {
    if (!g || !srcs || !out)
        return LG_ERROR(LG_INVALID_ARGUMENT, "%s is NULL", !g ? "graph" : !srcs ? "srcs" : "out");
    if (n < 1 || n > LG_CONCAT_MAX_SRCS)
        return LG_ERROR(LG_INVALID_ARGUMENT, "node %d (concat): n = %d is outside 1..%d", g->nnodes,
                        n, LG_CONCAT_MAX_SRCS);
    lg_md *mds = lg__malloc((size_t)n * sizeof *mds);
    if (!mds) return LG_ERROR(LG_OUT_OF_MEMORY, "cannot allocate %d mds", n);
    lg_status s = LG_OK;
    for (int i = 0; i < n && s == LG_OK; i++) {
        char what[24];
        snprintf(what, sizeof what, "srcs[%d]", i);
        s = lg__graph_check_value(g, srcs[i], what, "concat", __func__);
        if (s == LG_OK) mds[i] = g->vals[srcs[i]].md;
    }
    if (s == LG_OK) s = check_srcs(n, mds, axis, g->nnodes, __func__, NULL);
    lg__free(mds);
    if (s != LG_OK) return s;
    if (n == 1) { /* one source: a copy node, so that *out is a new value */
        lg__node node;
        memset(&node, 0, sizeof node);
        node.kind = LG_NODE_CONCAT;
        node.p.concat.axis = axis;
        node.nin = 1;
        node.in[0] = srcs[0];
        return lg__graph_add_node(g, &node, out, __func__);
    }
    return add_tree(g, axis, n, srcs, out);
}
