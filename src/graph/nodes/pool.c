/* The pool node: lg_graph_add_pool and its hooks. Pooling keeps the layout
 * it reads: NONE runs it plain; GREEDY reads what the producer wrote (dense)
 * and writes the same layout family; OPTIMAL offers src and dst in one
 * family (plain, channels last, channel-blocked). Cost: a flop per tap,
 * with the reference's slowdown where the kernel has no vector code for the
 * pair (lg__pool_query: asked, not created). A relu or clip (f(0) = 0)
 * after it becomes a post-op on f32 vector paths (lg__pool_create_post). */
#include "graph/graph.h"
#include "primitives/eltwise/eltwise.h"
#include "primitives/pool/pool.h"

#include <string.h>

/* The reference runs about this much slower than the vector paths. */
#define REF_SLOWDOWN 8.0

static lg_status pool_infer(const lg__node *node, const lg_md *in, int index, lg_md *out,
                            const char *where) {
    const lg_md *src = &in[0];
    int64_t dims[LG_MAX_NDIMS];
    char w[128]; /* errors read "<where>: node <index> (pool): params ..." */
    snprintf(w, sizeof w, "%s: node %d (pool)", where, index);
    LG_CHECK(lg__pool_out_dims(&node->p.pool, src, w, dims));
    lg_md md;
    memset(&md, 0, sizeof md);
    md.ndims = src->ndims;
    md.dtype = src->dtype;
    md.format_kind = LG_FMT_ANY;
    for (int d = 0; d < src->ndims; d++) md.dims[d] = md.padded_dims[d] = dims[d];
    /* The kernel's own checks (types, dims) on plain layouts. */
    lg_md ps, pdst;
    lg__md_plain(src, &ps);
    lg__md_plain(&md, &pdst);
    lg__pool_pd pd;
    LG_CHECK(lg__pool_query(&node->p.pool, &ps, &pdst, w, &pd, NULL));
    *out = md;
    return LG_OK;
}

/* OPTIMAL: src and dst in one family. */
static int pool_candidates(const lg__node *node, const lg_md *in, const lg_md *out,
                           lg__layout_cfg *cfg) {
    (void)node;
    lg_md lo[3];
    int no = lg__layouts_of(out, lo), k = 0;
    for (int a = 0; a < no; a++) {
        memset(&cfg[k], 0, sizeof cfg[k]);
        cfg[k].out = lo[a];
        lg__md_like(&lo[a], &in[0], &cfg[k].in[0]);
        k++;
    }
    return k;
}

static void pool_cost(const lg__node *node, const lg_md *in, const lg_md *out, lg__node_cost *c) {
    const lg_pool_params *p = &node->p.pool;
    double taps = 1;
    for (int i = 0; i < in[0].ndims - 2; i++) taps *= (double)p->kernel[i];
    double n = 1;
    for (int d = 0; d < out->ndims; d++) n *= (double)out->dims[d];
    c->flops = n * taps;
    lg__pool_pd pd;
    bool fast = false;
    if (lg__pool_query(p, &in[0], out, NULL, &pd, &fast) != LG_OK) fast = false;
    c->slowdown = fast ? 1.0 : REF_SLOWDOWN;
}

/* Eltwise post-ops with f(0) = 0 (relu, clip around 0) on f32 vector paths. */
static bool pool_accepts_post(const lg__node *node, const lg_md *in, const lg_md *out, int npost,
                              const lg__post_op *post) {
    return lg__pool_create_post(NULL, &node->p.pool, &in[0], out, npost, post, NULL) == LG_OK;
}

/* The vector paths (lg__pool_query's answer), running the post-ops too. */
static bool pool_runs_fast(const lg__node *node, const lg_md *in, const lg_md *out, int npost,
                           const lg__post_op *post) {
    lg__pool_pd pd;
    bool fast = false;
    return lg__pool_query(&node->p.pool, &in[0], out, NULL, &pd, &fast) == LG_OK && fast &&
           lg__pool_create_post(NULL, &node->p.pool, &in[0], out, npost, post, NULL) == LG_OK;
}

static lg_status pool_create(const lg__node *node, const lg_md *in, const lg_md *out, int npost,
                             const lg__post_op *post, lg_kernel **k) {
    return lg__pool_create_post(k, &node->p.pool, &in[0], out, npost, post, "lg_pool_create");
}

/* "alg:max k:3x3 stride:2x2 pad:1x1/1x1" (+ " ceil:1x1" when pad_r_ceil is set). */
static void pool_describe(const lg__node *node, const lg_md *in, const lg_md *out, int npost,
                          const lg__post_op *post, char *buf, size_t len) {
    (void)out;
    const lg_pool_params *p = &node->p.pool;
    static const char *const algs[] = {"max", "avg_p", "avg_np"};
    int sp = in[0].ndims - 2;
    const int64_t *fields[6] = {p->kernel, p->strides, p->dilates,
                                p->pad_l,  p->pad_r,   p->pad_r_ceil};
    static const char *const names[6] = {" k:", " stride:", " dilate:", " pad:", "/", " ceil:"};
    int n = snprintf(buf, len, "alg:%s", (unsigned)p->alg < 3u ? algs[p->alg] : "?");
    for (int f = 0; f < 6 && n >= 0 && (size_t)n < len; f++) {
        bool zero = true;
        for (int d = 0; d < sp; d++) zero = zero && fields[f][d] == 0;
        if ((f == 2 || f == 5) && zero) continue;
        n += snprintf(buf + n, len - (size_t)n, "%s", names[f]);
        for (int d = 0; d < sp && n >= 0 && (size_t)n < len; d++)
            n += snprintf(buf + n, len - (size_t)n, d ? "x%lld" : "%lld", (long long)fields[f][d]);
    }
    for (int i = 0; i < npost && n >= 0 && (size_t)n < len; i++)
        n += snprintf(buf + n, len - (size_t)n, "%s+%s",
                      i ? "" : " post:", lg__eltwise_alg_str(post[i].alg));
}

const lg__node_ops lg__node_pool_ops = {
    .name = "pool",
    .layer_class = LG_LAYER_POOLING,
    .in_args = {LG_ARG_SRC},
    .foldable = true,
    .infer = pool_infer,
    .layout_none = lg__layout_all_plain,
    .layout_greedy = lg__layout_keep,
    .candidates = pool_candidates,
    .cost = pool_cost,
    .accepts_post = pool_accepts_post,
    .runs_fast = pool_runs_fast,
    .create = pool_create,
    .describe = pool_describe,
};

lg_status lg_graph_add_pool(lg_graph *g, lg_value src, const lg_pool_params *p, lg_value *out) {
    if (!g || !p || !out)
        return LG_ERROR(LG_INVALID_ARGUMENT, "%s is NULL", !g ? "graph" : !p ? "params" : "out");
    LG_CHECK(lg__graph_check_value(g, src, "src", "pool", __func__));
    lg__node node;
    memset(&node, 0, sizeof node);
    node.kind = LG_NODE_POOL;
    node.nin = 1;
    node.in[0] = src;
    node.p.pool = *p;
    return lg__graph_add_node(g, &node, out, __func__);
}
