/* The batchnorm node (inference): lg_graph_add_batchnorm and its hooks.
 * Inputs: src, mean, variance, then gamma and beta when given (f32 arrays of
 * C values, read plain). Batch norm keeps the layout it reads: NONE runs it
 * plain; GREEDY reads what the producer wrote; OPTIMAL offers src and dst in
 * one family (plain, channels last, channel-blocked), each with vector code.
 * A relu after it (alpha 0) fuses into the kernel's LG_BNORM_FUSE_RELU. */
#include "graph/graph.h"
#include "primitives/bnorm/bnorm.h"
#include "primitives/eltwise/eltwise.h"

#include <math.h>
#include <string.h>

static const char *const stat_names[] = {"src", "mean", "variance", "gamma", "beta"};

static lg_status batchnorm_infer(const lg__node *node, const lg_md *in, int index, lg_md *out,
                                 const char *where) {
    const lg_md *src = &in[0];
#define FAIL(st, fmt, ...) lg__error((st), where, "node %d (batchnorm): " fmt, index, __VA_ARGS__)
    if (src->ndims < 2 || src->ndims > 5)
        return FAIL(LG_INVALID_GRAPH, "src has %d dims (batch norm takes 2 to 5)", src->ndims);
    lg_dtype dt = src->dtype;
    if (dt != LG_F32 && dt != LG_BF16 && dt != LG_F16)
        return FAIL(LG_UNIMPLEMENTED, "src is %s; batch norm takes f32, bf16 and f16",
                    lg_dtype_str(dt));
    for (int d = 0; d < src->ndims; d++)
        if (src->dims[d] < 1)
            return FAIL(LG_INVALID_ARGUMENT, "src dims[%d] is %lld (must be >= 1)", d,
                        (long long)src->dims[d]);
    float eps = node->p.batchnorm.eps;
    if (!(eps >= 0.0f) || eps == (float)INFINITY)
        return FAIL(LG_INVALID_ARGUMENT, "epsilon %g is not a finite value >= 0", (double)eps);
    int64_t c = src->dims[1];
    for (int i = 1; i < node->nin; i++) {
        const lg_md *m = &in[i];
        if (m->ndims != 1 || m->dims[0] != c)
            return FAIL(LG_INVALID_ARGUMENT,
                        "%s must be 1D with the %lld channels of src (it has %d dims, first "
                        "%lld)",
                        stat_names[i], (long long)c, m->ndims, (long long)m->dims[0]);
        if (m->dtype != LG_F32)
            return FAIL(LG_INVALID_ARGUMENT, "%s is %s; statistics are f32", stat_names[i],
                        lg_dtype_str(m->dtype));
    }
#undef FAIL
    *out = *src;
    out->format_kind = LG_FMT_ANY;
    return LG_OK;
}

/* OPTIMAL: src and dst in one family, statistics plain. */
static int batchnorm_candidates(const lg__node *node, const lg_md *in, const lg_md *out,
                                lg__layout_cfg *cfg) {
    lg_md lo[3];
    int no = lg__layouts_of(out, lo);
    for (int a = 0; a < no; a++) {
        memset(&cfg[a], 0, sizeof cfg[a]);
        cfg[a].out = lo[a];
        lg__md_like(&lo[a], &in[0], &cfg[a].in[0]);
        for (int i = 1; i < node->nin; i++) lg__md_plain(&in[i], &cfg[a].in[i]);
    }
    return no;
}

/* a = gamma / sqrt(var + eps) (in f32 as the kernel), shift = beta - mean a. */
static bool batchnorm_channel_affine(const lg__node *node, const lg_md *in, const void *const *data,
                                     float *scale, float *shift, bool *relu) {
    for (int i = 1; i < node->nin; i++)
        if (!data[i]) return false;
    const float *mean = data[1], *var = data[2];
    const float *gamma = node->nin > 3 ? data[3] : NULL, *beta = node->nin > 3 ? data[4] : NULL;
    float eps = node->p.batchnorm.eps;
    for (int64_t c = 0; c < in[0].dims[1]; c++) {
        float a = (gamma ? gamma[c] : 1.0f) / sqrtf(var[c] + eps);
        scale[c] = a;
        shift[c] = (beta ? beta[c] : 0.0f) - mean[c] * a;
    }
    *relu = (node->p.batchnorm.flags & LG_BNORM_FUSE_RELU) != 0;
    return true;
}

/* One relu (alpha 0) when the node has no fused relu of its own. */
static bool batchnorm_accepts_post(const lg__node *node, const lg_md *in, const lg_md *out,
                                   int npost, const lg__post_op *post) {
    (void)in, (void)out;
    if (npost == 0) return true;
    return npost == 1 && !(node->p.batchnorm.flags & LG_BNORM_FUSE_RELU) &&
           post[0].kind == LG_POST_ELTWISE && post[0].alg == LG_ELTWISE_RELU &&
           post[0].alpha == 0.0f;
}

/* The vector rows (lg__bnorm_query's answer) for the flags create gives. */
static bool batchnorm_runs_fast(const lg__node *node, const lg_md *in, const lg_md *out, int npost,
                                const lg__post_op *post) {
    (void)post;
    unsigned flags = node->p.batchnorm.flags | (npost ? LG_BNORM_FUSE_RELU : 0u);
    lg__bnorm_pd pd;
    bool fast = false;
    return lg__bnorm_query(&in[0], out, node->p.batchnorm.eps, flags, NULL, &pd, &fast) == LG_OK &&
           fast;
}

static lg_status batchnorm_create(const lg__node *node, const lg_md *in, const lg_md *out,
                                  int npost, const lg__post_op *post, lg_kernel **k) {
    (void)post;
    unsigned flags = node->p.batchnorm.flags | (npost ? LG_BNORM_FUSE_RELU : 0u);
    return lg_bnorm_create(k, &in[0], out, node->p.batchnorm.eps, flags);
}

static void batchnorm_describe(const lg__node *node, const lg_md *in, const lg_md *out, int npost,
                               const lg__post_op *post, char *buf, size_t len) {
    (void)in, (void)out, (void)post;
    unsigned f = node->p.batchnorm.flags | (npost ? LG_BNORM_FUSE_RELU : 0u);
    snprintf(buf, len, "eps:%g flags:%s%s%s", (double)node->p.batchnorm.eps,
             f & LG_BNORM_USE_SCALE ? "C" : "", f & LG_BNORM_USE_SHIFT ? "H" : "",
             f & LG_BNORM_FUSE_RELU ? "R" : "");
}

const lg__node_ops lg__node_batchnorm_ops = {
    .name = "batchnorm",
    .in_args = {LG_ARG_SRC, LG_ARG_MEAN, LG_ARG_VARIANCE, LG_ARG_SCALE, LG_ARG_SHIFT},
    .inplace = true,
    .foldable = true,
    .infer = batchnorm_infer,
    .layout_none = lg__layout_all_plain,
    .layout_greedy = lg__layout_keep,
    .candidates = batchnorm_candidates,
    .channel_affine = batchnorm_channel_affine,
    .accepts_post = batchnorm_accepts_post,
    .runs_fast = batchnorm_runs_fast,
    .create = batchnorm_create,
    .describe = batchnorm_describe,
};

lg_status lg_graph_add_batchnorm(lg_graph *g, lg_value src, lg_value mean, lg_value variance,
                                 lg_value gamma, lg_value beta, float epsilon, bool fuse_relu,
                                 lg_value *out) {
    if (!g || !out) return LG_ERROR(LG_INVALID_ARGUMENT, "%s is NULL", !g ? "graph" : "out");
    if ((gamma == LG_NO_VALUE) != (beta == LG_NO_VALUE))
        return LG_ERROR(LG_INVALID_ARGUMENT,
                        "node %d (batchnorm): %s is given without %s (give both or neither)",
                        g->nnodes, gamma == LG_NO_VALUE ? "beta" : "gamma",
                        gamma == LG_NO_VALUE ? "gamma" : "beta");
    lg__node node;
    memset(&node, 0, sizeof node);
    node.kind = LG_NODE_BATCHNORM;
    node.nin = gamma == LG_NO_VALUE ? 3 : 5;
    lg_value vs[5] = {src, mean, variance, gamma, beta};
    for (int i = 0; i < node.nin; i++) {
        LG_CHECK(lg__graph_check_value(g, vs[i], stat_names[i], "batchnorm", __func__));
        node.in[i] = vs[i];
    }
    node.p.batchnorm.eps = epsilon;
    node.p.batchnorm.flags = (fuse_relu ? LG_BNORM_FUSE_RELU : 0u) |
                             (node.nin == 5 ? LG_BNORM_USE_SCALE | LG_BNORM_USE_SHIFT : 0u);
    return lg__graph_add_node(g, &node, out, __func__);
}
