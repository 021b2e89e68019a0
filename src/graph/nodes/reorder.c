/* The reorder node: an explicit change of layout and/or data type, with the
 * reorder kernel's attributes (scales, zero points, a sum) when built by
 * lg_graph_add_reorder_attr. It is also the node the compiler inserts where
 * layouts disagree (inserted) and the copy into an output buffer (copy). In
 * every strategy it reads its input as it arrives and produces exactly the
 * md it was given. A quantising reorder reads its scale and zero-point
 * arrays as inputs 1.. (plain) and adds into its sum operand, which the
 * compiler treats as a fused sum's source (sum_operand hook). */
#include "graph/graph.h"
#include "primitives/reorder/reorder.h"

#include <string.h>

/* The attribute arrays, in input order, with their execution arguments. */
static const int attr_args[4] = {
    LG_ARG_ATTR_SCALES | LG_ARG_SRC,
    LG_ARG_ATTR_SCALES | LG_ARG_DST,
    LG_ARG_ATTR_ZERO_POINTS | LG_ARG_SRC,
    LG_ARG_ATTR_ZERO_POINTS | LG_ARG_DST,
};
static const char *const attr_names[4] = {"src_scales", "dst_scales", "src_zero_points",
                                          "dst_zero_points"};

/* The kernel attribute the node's parameters describe. */
static void node_attr(const lg__node *node, struct lg_attr *a) {
    lg__attr_init(a);
    if (!node->p.reorder.quant) return;
    a->scale_mask[0] = node->p.reorder.mask[0];
    a->scale_mask[1] = node->p.reorder.mask[1];
    a->zp_mask[0] = node->p.reorder.mask[2];
    a->zp_mask[1] = node->p.reorder.mask[3];
    if (node->p.reorder.sum) {
        a->npost = 1;
        memset(&a->post[0], 0, sizeof a->post[0]);
        a->post[0].kind = LG_POST_SUM;
        a->post[0].scale = node->p.reorder.sum_beta;
    }
}

/* Values an attribute array of `mask` holds on md (product of the masked
 * dims; the masks were checked against ndims and dims are positive and
 * their product bounded by the tensor's). */
static int64_t mask_count(const lg_md *md, int32_t mask) {
    int64_t n = 1;
    for (int d = 0; d < md->ndims; d++)
        if (mask & (1 << d)) n *= md->dims[d];
    return n;
}

static int reorder_in_arg(const lg__node *node, int i) {
    if (i == 0) return LG_ARG_SRC;
    for (int a = 0, k = 0; a < 4; a++)
        if (node->p.reorder.quant && node->p.reorder.mask[a] >= 0 && ++k == i) return attr_args[a];
    return 0;
}

static lg_value reorder_sum_operand(const lg__node *node) {
    return node->p.reorder.quant && node->p.reorder.sum ? node->p.reorder.sum_src : LG_NO_VALUE;
}

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
    /* The kernel's own validation (masks, post-ops), on src's dims in a
     * plain layout: the layouts are not chosen yet. */
    struct lg_attr a;
    node_attr(node, &a);
    lg_md plain;
    lg__md_plain(src, &plain);
    lg__reorder_pd pd;
    LG_CHECK(lg__reorder_query(&plain, dst, &a, where, &pd));
    for (int k = 0, i = 1; k < 4; k++) {
        if (!node->p.reorder.quant || node->p.reorder.mask[k] < 0) continue;
        const lg_md *v = &in[i++];
        lg_dtype want = k < 2 ? LG_F32 : LG_S32;
        int64_t n = mask_count(dst, node->p.reorder.mask[k]);
        if (v->dtype != want || v->ndims != 1 || v->dims[0] != n)
            return lg__error(LG_INVALID_ARGUMENT, where,
                             "node %d (reorder): %s must be a 1D %s tensor of %lld values (mask "
                             "0x%x on dims of %d), not %dD %s",
                             index, attr_names[k], lg_dtype_str(want), (long long)n,
                             (unsigned)node->p.reorder.mask[k], dst->ndims, v->ndims,
                             lg_dtype_str(v->dtype));
    }
    lg__md_canon(dst, out);
    return LG_OK;
}

/* Both strategies: read what arrives, write the given md. */
static lg_status reorder_layout(const lg__node *node, const lg_md *in, lg_md *read, lg_md *out) {
    read[0] = in[0];
    for (int i = 1; i < node->nin; i++) lg__md_plain(&in[i], &read[i]);
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
        for (int j = 1; j < node->nin; j++) lg__md_plain(&in[j], &cfg[i].in[j]);
        cfg[i].out = node->p.reorder.dst;
    }
    return ni;
}

/* The fast engine's copy and transpose jobs (lg__reorder_fast). */
static bool reorder_runs_fast(const lg__node *node, const lg_md *in, const lg_md *out, int npost,
                              const lg__post_op *post) {
    (void)npost, (void)post;
    struct lg_attr a;
    node_attr(node, &a);
    lg__reorder_pd pd;
    return lg__reorder_query(&in[0], out, &a, NULL, &pd) == LG_OK && lg__reorder_fast(&pd);
}

static lg_status reorder_create(const lg__node *node, const lg_md *in, const lg_md *out, int npost,
                                const lg__post_op *post, lg_kernel **k) {
    (void)npost, (void)post;
    struct lg_attr a;
    node_attr(node, &a);
    return lg_reorder_create(k, &in[0], out, &a);
}

static void reorder_describe(const lg__node *node, const lg_md *in, const lg_md *out, int npost,
                             const lg__post_op *post, char *buf, size_t len) {
    (void)in, (void)out, (void)npost, (void)post;
    char tag[LG_TAG_MAX * 2];
    if (!lg__md_tag_str(&node->p.reorder.dst, tag)) snprintf(tag, sizeof tag, "strided");
    int n = snprintf(buf, len, "to:%s:%s", lg_dtype_str(node->p.reorder.dst.dtype), tag);
    for (int k = 0; node->p.reorder.quant && k < 4; k++)
        if (node->p.reorder.mask[k] >= 0 && n >= 0 && (size_t)n < len)
            n += snprintf(buf + n, len - (size_t)n, " %s:mask%d", attr_names[k],
                          (int)node->p.reorder.mask[k]);
    if (node->p.reorder.quant && node->p.reorder.sum && n >= 0 && (size_t)n < len)
        snprintf(buf + n, len - (size_t)n, " sum:%g", (double)node->p.reorder.sum_beta);
}

const lg__node_ops lg__node_reorder_ops = {
    .name = "reorder",
    .layer_class = LG_LAYER_REORDER,
    .in_args = {LG_ARG_SRC},
    .in_arg = reorder_in_arg,
    .sum_operand = reorder_sum_operand,
    .foldable = true,
    .infer = reorder_infer,
    .layout_none = reorder_layout,
    .layout_greedy = reorder_layout,
    .candidates = reorder_candidates,
    .runs_fast = reorder_runs_fast,
    .create = reorder_create,
    .describe = reorder_describe,
};

/* Check an operand of a quantising reorder: present exactly when the
 * attribute asks for it. */
static lg_status check_operand(const lg_graph *g, lg_value v, bool wanted, const char *what,
                               const char *where) {
    if (wanted && v == LG_NO_VALUE)
        return lg__error(LG_INVALID_ARGUMENT, where,
                         "node %d (reorder): attr asks for %s but operands->%s is LG_NO_VALUE",
                         g->nnodes, what, what);
    if (!wanted && v != LG_NO_VALUE)
        return lg__error(LG_INVALID_ARGUMENT, where,
                         "node %d (reorder): operands->%s is given but attr does not ask for it "
                         "(pass LG_NO_VALUE)",
                         g->nnodes, what);
    return wanted ? lg__graph_check_value(g, v, what, "reorder", where) : LG_OK;
}

static lg_status add_reorder(lg_graph *g, lg_value src, const lg_md *dst, const lg_attr *attr,
                             const lg_reorder_operands *ops, lg_value *out, const char *where) {
    if (!g || !dst || !out)
        return lg__error(LG_INVALID_ARGUMENT, where, "%s is NULL",
                         !g     ? "graph"
                         : !dst ? "dst md"
                                : "out");
    LG_CHECK(lg__graph_check_value(g, src, "src", "reorder", where));
    LG_CHECK(lg__md_check(dst, where, "dst md"));
    struct lg_attr none;
    lg__attr_init(&none);
    const struct lg_attr *a = attr ? attr : &none;
    const int32_t masks[4] = {a->scale_mask[0], a->scale_mask[1], a->zp_mask[0], a->zp_mask[1]};
    if (a->comp_mask[0] >= 0 || a->comp_mask[1] >= 0)
        return lg__error(LG_UNIMPLEMENTED, where,
                         "node %d (reorder): compensation outputs are a kernel-level feature "
                         "(lg_reorder_create)",
                         g->nnodes);
    /* Typed / grouped scales and zero points and stochastic rounding are
     * kernel-level features too (lg_reorder_create). */
    LG_CHECK(lg__attr_check_quant_plain(a, "a reorder node", where));
    bool sum = a->npost > 0;
    if (a->npost > 1 || (sum && a->post[0].kind != LG_POST_SUM))
        return lg__error(LG_UNIMPLEMENTED, where,
                         "node %d (reorder): the only post-op a reorder takes is one sum",
                         g->nnodes);
    lg_reorder_operands noops = {LG_NO_VALUE, LG_NO_VALUE, LG_NO_VALUE, LG_NO_VALUE, LG_NO_VALUE};
    if (!ops) ops = &noops;
    const lg_value arrays[4] = {ops->src_scales, ops->dst_scales, ops->src_zero_points,
                                ops->dst_zero_points};
    lg__node node;
    memset(&node, 0, sizeof node);
    node.kind = LG_NODE_REORDER;
    node.nin = 1;
    node.in[0] = src;
    for (int k = 0; k < 4; k++) {
        LG_CHECK(check_operand(g, arrays[k], masks[k] >= 0, attr_names[k], where));
        if (masks[k] >= 0) node.in[node.nin++] = arrays[k];
    }
    LG_CHECK(check_operand(g, ops->sum, sum, "sum", where));
    lg__md_canon(dst, &node.p.reorder.dst);
    if (sum) {
        /* The sum's post-op must be the only one (the kernel's check runs
         * in infer); its operand holds dst_old: dst's dims and type. */
        const lg_md *s = &g->vals[ops->sum].md;
        bool same = s->ndims == dst->ndims && s->dtype == dst->dtype;
        for (int d = 0; same && d < dst->ndims; d++) same = s->dims[d] == dst->dims[d];
        if (!same)
            return lg__error(LG_INVALID_ARGUMENT, where,
                             "node %d (reorder): the sum operand (value %u) must have dst's dims "
                             "and type (%s)",
                             g->nnodes, (unsigned)ops->sum, lg_dtype_str(dst->dtype));
        node.p.reorder.sum = true;
        node.p.reorder.sum_beta = a->post[0].scale;
        node.p.reorder.sum_src = ops->sum;
    }
    node.p.reorder.quant = sum;
    for (int k = 0; k < 4; k++) {
        node.p.reorder.mask[k] = masks[k];
        node.p.reorder.quant |= masks[k] >= 0;
    }
    if (!node.p.reorder.quant) memset(node.p.reorder.mask, 0, sizeof node.p.reorder.mask);
    return lg__graph_add_node(g, &node, out, where);
}

lg_status lg_graph_add_reorder(lg_graph *g, lg_value src, const lg_md *dst, const lg_attr *attr,
                               lg_value *out) {
    return add_reorder(g, src, dst, attr, NULL, out, __func__);
}

lg_status lg_graph_add_reorder_attr(lg_graph *g, lg_value src, const lg_md *dst,
                                    const lg_attr *attr, const lg_reorder_operands *operands,
                                    lg_value *out) {
    return add_reorder(g, src, dst, attr, operands, out, __func__);
}
