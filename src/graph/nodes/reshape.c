/* The reshape node: lg_graph_add_reshape and its hooks. A reshape keeps the
 * elements in row-major logical order. Its kernel is a reorder from input
 * 0's bytes seen with the new dims (lg_md_reshape) into the result: a plain
 * copy when the layouts agree, and no step at all when, moreover, the input
 * dies at the reshape (plan_memory gives the result the input's buffer). Layouts: NONE reads and
 * writes plain; GREEDY keeps the layout the input arrives in when lg_md_reshape can view it in the
 * new dims (plain, or a blocked dim kept whole), else reads it plain (a reorder first); OPTIMAL
 * offers both. A flatten whose readers are all inner products is folded away before layouts are
 * chosen (the fold_flatten pass: the inner product reads the 4D tensor directly, in whatever layout
 * its producer writes). */
#include "graph/graph.h"

#include <string.h>

static lg_status reshape_infer(const lg__node *node, const lg_md *in, int index, lg_md *out,
                               const char *where) {
    const int nd = node->p.reshape.ndims;
    const int64_t *dims = node->p.reshape.dims;
    if (nd < 1 || nd > LG_MAX_NDIMS)
        return lg__error(LG_INVALID_ARGUMENT, where, "node %d (reshape): ndims %d is outside 1..%d",
                         index, nd, LG_MAX_NDIMS);
    /* span: the product with a dim of 0 counted as 1, as the strides of
     * an empty tensor's md are: (0, 2^62, 4) holds no element but has no
     * int64 strides either */
    int64_t n = 1, span = 1;
    for (int d = 0; d < nd; d++) {
        if (dims[d] < 0)
            return lg__error(LG_INVALID_ARGUMENT, where, "node %d (reshape): dims[%d] is %lld",
                             index, d, (long long)dims[d]);
        if (!lg__mul_ok(n, dims[d], &n) || !lg__mul_ok(span, dims[d] ? dims[d] : 1, &span))
            return lg__error(LG_INVALID_ARGUMENT, where,
                             "node %d (reshape): the element count (a dim of 0 counted as 1) "
                             "overflows int64",
                             index);
    }
    if (n != lg__md_nelems(&in[0]))
        return lg__error(LG_INVALID_GRAPH, where,
                         "node %d (reshape): %lld elements into dims of %lld elements", index,
                         (long long)lg__md_nelems(&in[0]), (long long)n);
    lg_md md;
    LG_CHECK(lg__md_init_tag(&md, nd, dims, in[0].dtype, "any", where));
    *out = md;
    return LG_OK;
}

/* in viewed with out's dims, into *view; false if that needs a copy. */
static bool view_of(const lg_md *in, const lg_md *out, lg_md *view) {
    if (!lg__md_dense_concrete(in)) return false;
    return lg_md_reshape(in, out->ndims, out->dims, view) == LG_OK;
}

static lg_status reshape_greedy(const lg__node *node, const lg_md *in, lg_md *read, lg_md *out) {
    (void)node;
    lg_md v;
    if (view_of(&in[0], out, &v)) {
        read[0] = in[0];
        lg__md_canon(&v, out);
        return LG_OK;
    }
    lg__md_plain(&in[0], &read[0]);
    lg__md_plain(out, out);
    return LG_OK;
}

/* Plain into plain, and every other layout of the input that views as the
 * new dims into that view. */
static int reshape_candidates(const lg__node *node, const lg_md *in, const lg_md *out,
                              lg__layout_cfg *cfg) {
    (void)node;
    lg_md ls[3];
    int ns = lg__layouts_of(&in[0], ls), k = 0;
    memset(&cfg[0], 0, sizeof cfg[0]);
    cfg[0].in[0] = ls[0];
    lg__md_plain(out, &cfg[k++].out);
    for (int a = 1; a < ns; a++) {
        lg_md v;
        if (!view_of(&ls[a], out, &v)) continue;
        memset(&cfg[k], 0, sizeof cfg[k]);
        cfg[k].in[0] = ls[a];
        lg__md_canon(&v, &cfg[k++].out);
    }
    return k;
}

static bool reshape_is_flatten(const lg__node *node, const lg_md *in, const lg_md *out) {
    (void)node;
    if (out->ndims != 2 || in->ndims < 2 || out->dims[0] != in->dims[0]) return false;
    int64_t k = 1;
    for (int d = 1; d < in->ndims; d++) k *= in->dims[d];
    return out->dims[1] == k;
}

/* The bytes are the same when input 0's layout viewed with the new dims is
 * the result's layout. */
static bool reshape_is_view(const lg__node *node, const lg_md *in, const lg_md *out) {
    (void)node;
    lg_md v;
    return view_of(&in[0], out, &v) && lg_md_equal(&v, out);
}

static lg_status reshape_create(const lg__node *node, const lg_md *in, const lg_md *out, int npost,
                                const lg__post_op *post, lg_kernel **k) {
    (void)node, (void)npost, (void)post;
    lg_md v;
    if (!view_of(&in[0], out, &v))
        return lg__error(LG_RUNTIME_ERROR, "lg_graph_compile",
                         "reshape: the input's layout cannot be seen with the new dims");
    return lg_reorder_create(k, &v, out, NULL);
}

static void reshape_describe(const lg__node *node, const lg_md *in, const lg_md *out, int npost,
                             const lg__post_op *post, char *buf, size_t len) {
    (void)in, (void)out, (void)npost, (void)post;
    int n = snprintf(buf, len, "dims:");
    for (int d = 0; d < node->p.reshape.ndims && n >= 0 && (size_t)n < len; d++)
        n += snprintf(buf + n, len - (size_t)n, d ? "x%lld" : "%lld",
                      (long long)node->p.reshape.dims[d]);
}

const lg__node_ops lg__node_reshape_ops = {
    .name = "reshape",
    .layer_class = LG_LAYER_DATA_MOVEMENT,
    .in_args = {LG_ARG_SRC},
    .foldable = true,
    .infer = reshape_infer,
    .layout_none = lg__layout_all_plain,
    .layout_greedy = reshape_greedy,
    .candidates = reshape_candidates,
    .is_flatten = reshape_is_flatten,
    .is_view = reshape_is_view,
    .create = reshape_create,
    .describe = reshape_describe,
};

lg_status lg_graph_add_reshape(lg_graph *g, lg_value src, int ndims, const int64_t *dims,
                               lg_value *out) {
    if (!g || !dims || !out)
        return LG_ERROR(LG_INVALID_ARGUMENT, "%s is NULL", !g ? "graph" : !dims ? "dims" : "out");
    LG_CHECK(lg__graph_check_value(g, src, "src", "reshape", __func__));
    if (ndims < 1 || ndims > LG_MAX_NDIMS)
        return LG_ERROR(LG_INVALID_ARGUMENT, "ndims %d is outside 1..%d", ndims, LG_MAX_NDIMS);
    lg__node node;
    memset(&node, 0, sizeof node);
    node.kind = LG_NODE_RESHAPE;
    node.nin = 1;
    node.in[0] = src;
    node.p.reshape.ndims = ndims;
    memcpy(node.p.reshape.dims, dims, (size_t)ndims * sizeof *dims);
    return lg__graph_add_node(g, &node, out, __func__);
}
