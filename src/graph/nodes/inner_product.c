/* The inner-product node: lg_graph_add_inner_product and its hooks.
 * Layouts: the kernel reads src in plain, channels-last or channel-blocked
 * layouts directly, so GREEDY keeps the layout src arrives in (when the
 * kernel's vector code reads it) and OPTIMAL offers each of them; the
 * weights take the layout the kernel picks for that src (lg__ip_query:
 * asked, not created), the result is N x OC "ab". NONE runs on a plain src.
 * Cost: 2 N OC K flops, slowdown 1 where the vector code reads src, 4
 * elsewhere. Fused post-ops (eltwise chain, one sum) become the kernel's
 * attribute. */
#include "graph/graph.h"
#include "primitives/eltwise/eltwise.h"
#include "primitives/ip/ip.h"

#include <string.h>

/* An "any" md of md's dims and type. */
static lg_md any_of(const lg_md *md) {
    lg_md a;
    lg__md_plain(md, &a);
    a.format_kind = LG_FMT_ANY;
    return a;
}

static lg_status ip_infer(const lg__node *node, const lg_md *in, int index, lg_md *out,
                          const char *where) {
    lg_md src = any_of(&in[0]), wei = any_of(&in[1]), bias, dst;
    if (node->nin > 2) bias = any_of(&in[2]);
    /* The kernel's own checks; its errors read "<where>: node <index>
     * (inner_product): ...", operands that do not fit each other
     * LG_INVALID_GRAPH. */
    char w[128];
    snprintf(w, sizeof w, "%s: node %d (inner_product)", where, index);
    memset(&dst, 0, sizeof dst);
    dst.ndims = 2;
    dst.dtype = in[0].dtype;
    dst.format_kind = LG_FMT_ANY;
    dst.dims[0] = dst.padded_dims[0] = in[0].dims[0];
    dst.dims[1] = dst.padded_dims[1] = in[1].dims[0];
    lg__ip_pd pd;
    lg_status s = lg__ip_query(&src, &wei, node->nin > 2 ? &bias : NULL, &dst, NULL, w, &pd);
    if (s != LG_OK) return s == LG_INVALID_ARGUMENT ? LG_INVALID_GRAPH : s;
    *out = dst;
    return LG_OK;
}

/* The kernel's answer for src as given ("any" allowed), weights "any", a
 * plain bias and an "ab" dst; errors name `where` (NULL: a probe). mds[0..1]
 * = src, weights. */
static lg_status query(const lg__node *node, const lg_md *in, const lg_md *src, const lg_md *out,
                       const char *where, lg_md *mds) {
    lg_md wei = any_of(&in[1]), bias, dst;
    if (node->nin > 2) lg__md_plain(&in[2], &bias);
    lg__md_plain(out, &dst);
    lg__ip_pd pd;
    LG_CHECK(lg__ip_query(src, &wei, node->nin > 2 ? &bias : NULL, &dst, NULL, where, &pd));
    mds[0] = pd.src;
    mds[1] = pd.wei;
    return LG_OK;
}

/* True if the vector code reads src in this layout. */
static bool reads_fast(const lg_md *src) {
    char wtag[LG_TAG_MAX + 1];
    return lg__md_dense_concrete(src) && lg__ip_weights_tag(src, 8, wtag);
}

static lg_status layout_with(const lg__node *node, const lg_md *in, const lg_md *src, lg_md *read,
                             lg_md *out) {
    lg_md mds[2];
    LG_CHECK(query(node, in, src, out, "lg_graph_compile", mds));
    read[0] = mds[0];
    read[1] = mds[1];
    if (node->nin > 2) lg__md_plain(&in[2], &read[2]);
    lg__md_plain(out, out);
    return LG_OK;
}

static lg_status ip_none(const lg__node *node, const lg_md *in, lg_md *read, lg_md *out) {
    lg_md src;
    lg__md_plain(&in[0], &src);
    return layout_with(node, in, &src, read, out);
}

static lg_status ip_greedy(const lg__node *node, const lg_md *in, lg_md *read, lg_md *out) {
    lg_md src;
    if (reads_fast(&in[0]))
        src = in[0];
    else
        src = any_of(&in[0]);
    return layout_with(node, in, &src, read, out);
}

static bool ip_prefers(const lg__node *node, const lg_md *in, const lg_md *out, int i, lg_md *md) {
    lg_md mds[2], src = any_of(&in[0]);
    if (i > 1 || query(node, in, &src, out, NULL, mds) != LG_OK) return false;
    *md = mds[i];
    return true;
}

/* Src in each layout the tensor may take, the weights the kernel picks for
 * it, a plain bias, an "ab" result. */
static int ip_candidates(const lg__node *node, const lg_md *in, const lg_md *out,
                         lg__layout_cfg *cfg) {
    lg_md ls[3];
    int ns = lg__layouts_of(&in[0], ls), k = 0;
    for (int a = 0; a < ns; a++) {
        lg_md mds[2];
        if (query(node, in, &ls[a], out, NULL, mds) != LG_OK) continue;
        memset(&cfg[k], 0, sizeof cfg[k]);
        cfg[k].in[0] = mds[0];
        cfg[k].in[1] = mds[1];
        if (node->nin > 2) lg__md_plain(&in[2], &cfg[k].in[2]);
        lg__md_plain(out, &cfg[k++].out);
    }
    return k;
}

static void ip_cost(const lg__node *node, const lg_md *in, const lg_md *out, lg__node_cost *c) {
    (void)node;
    c->flops = 2.0 * (double)lg__md_nelems(&in[0]) * (double)out->dims[1];
    c->slowdown = reads_fast(&in[0]) ? 1.0 : 4.0;
}

static void attr_of(int npost, const lg__post_op *post, struct lg_attr *attr) {
    lg__attr_init(attr);
    attr->npost = npost;
    if (npost) memcpy(attr->post, post, (size_t)npost * sizeof *post);
}

static bool ip_accepts_post(const lg__node *node, const lg_md *in, const lg_md *out, int npost,
                            const lg__post_op *post) {
    struct lg_attr attr;
    attr_of(npost, post, &attr);
    lg__ip_pd pd;
    return lg__ip_query(&in[0], &in[1], node->nin > 2 ? &in[2] : NULL, out, &attr, NULL, &pd) ==
           LG_OK;
}

static lg_status ip_create(const lg__node *node, const lg_md *in, const lg_md *out, int npost,
                           const lg__post_op *post, lg_kernel **k) {
    struct lg_attr attr;
    attr_of(npost, post, &attr);
    return lg_inner_product_create(k, &in[0], &in[1], node->nin > 2 ? &in[2] : NULL, out, &attr);
}

/* "oc:1000 k:2048 bias post:+relu". */
static void ip_describe(const lg__node *node, const lg_md *in, const lg_md *out, int npost,
                        const lg__post_op *post, char *buf, size_t len) {
    int n =
        snprintf(buf, len, "oc:%lld k:%lld%s", (long long)out->dims[1],
                 (long long)(lg__md_nelems(&in[0]) / in[0].dims[0]), node->nin > 2 ? " bias" : "");
    for (int i = 0; i < npost && n >= 0 && (size_t)n < len; i++) {
        const lg__post_op *o = &post[i];
        n += snprintf(buf + n, len - (size_t)n, "%s+%s", i ? "" : " post:",
                      o->kind == LG_POST_SUM ? "sum" : lg__eltwise_alg_str(o->alg));
    }
}

const lg__node_ops lg__node_inner_product_ops = {
    .name = "inner_product",
    .layer_class = LG_LAYER_HEAD,
    .in_args = {LG_ARG_SRC, LG_ARG_WEIGHTS, LG_ARG_BIAS},
    .infer = ip_infer,
    .layout_none = ip_none,
    .layout_greedy = ip_greedy,
    .prefers = ip_prefers,
    .candidates = ip_candidates,
    .cost = ip_cost,
    .accepts_post = ip_accepts_post,
    .reads_unflat = 1u, /* src, with the weights reshaped alike */
    .unflat_with = 1,
    .create = ip_create,
    .describe = ip_describe,
};

lg_status lg_graph_add_inner_product(lg_graph *g, lg_value src, lg_value weights, lg_value bias,
                                     lg_value *out) {
    if (!g || !out) return LG_ERROR(LG_INVALID_ARGUMENT, "%s is NULL", !g ? "graph" : "out");
    LG_CHECK(lg__graph_check_value(g, src, "src", "inner_product", __func__));
    LG_CHECK(lg__graph_check_value(g, weights, "weights", "inner_product", __func__));
    if (bias != LG_NO_VALUE)
        LG_CHECK(lg__graph_check_value(g, bias, "bias", "inner_product", __func__));
    lg__node node;
    memset(&node, 0, sizeof node);
    node.kind = LG_NODE_INNER_PRODUCT;
    node.nin = bias != LG_NO_VALUE ? 3 : 2;
    node.in[0] = src;
    node.in[1] = weights;
    node.in[2] = bias;
    return lg__graph_add_node(g, &node, out, __func__);
}
