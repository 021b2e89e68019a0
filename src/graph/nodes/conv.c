/* The conv node: lg_graph_add_conv and its hooks. Layouts: NONE runs it on
 * plain src/weights/dst; GREEDY takes what the kernel picks for src, weights
 * and dst "any" (lg__conv_query: asked, not created); OPTIMAL offers src and
 * dst in one layout family, or a plain src into any dst, each with the
 * weights the kernel picks. Cost: the kernel's flops and layout slowdown.
 * Fused post-ops (eltwise chain, one sum) become the kernel's attribute. */
#include "graph/graph.h"
#include "primitives/conv/conv.h"
#include "primitives/eltwise/eltwise.h"

#include <string.h>

static lg_status conv_infer(const lg__node *node, const lg_md *in, int index, lg_md *out,
                            const char *where) {
    const lg_md *src = &in[0], *wei = &in[1];
    const lg_conv_params *p = &node->p.conv;
    int nd = src->ndims, sp = nd - 2;
    int64_t g = p->groups;
#define FAIL(st, fmt, ...) lg__error((st), where, "node %d (conv): " fmt, index, __VA_ARGS__)
    if (nd < 3 || nd > 5)
        return FAIL(LG_INVALID_GRAPH, "src has %d dims (conv takes 3, 4 or 5)", nd);
    if (g < 1) return FAIL(LG_INVALID_ARGUMENT, "groups %lld is not positive", (long long)g);
    int wnd = nd + (g > 1);
    if (wei->ndims != wnd)
        return FAIL(LG_INVALID_GRAPH, "weights have %d dims; %d-dim src with groups %lld needs %d",
                    wei->ndims, nd, (long long)g, wnd);
    int64_t ic = src->dims[1];
    if (ic % g != 0)
        return FAIL(LG_INVALID_GRAPH, "groups %lld do not divide the %lld src channels",
                    (long long)g, (long long)ic);
    int64_t oc = wei->dims[0];
    if (g > 1 && !lg__mul_ok(wei->dims[0], wei->dims[1], &oc))
        return FAIL(LG_INVALID_GRAPH, "weights' G x O/G = %lld x %lld overflows int64",
                    (long long)wei->dims[0], (long long)wei->dims[1]);
    if (g > 1 && wei->dims[0] != g)
        return FAIL(LG_INVALID_GRAPH, "weights' group dim is %lld, groups is %lld",
                    (long long)wei->dims[0], (long long)g);
    if (wei->dims[wnd - sp - 1] != ic / g)
        return FAIL(LG_INVALID_GRAPH,
                    "weights take %lld input channels per group; src has %lld / %lld groups",
                    (long long)wei->dims[wnd - sp - 1], (long long)ic, (long long)g);
    if (node->nin > 2) {
        const lg_md *b = &in[2];
        if (b->ndims != 1 || b->dims[0] != oc)
            return FAIL(LG_INVALID_GRAPH,
                        "bias must be 1D with %lld elements (it has %d dims, "
                        "first %lld)",
                        (long long)oc, b->ndims, (long long)b->dims[0]);
    }
    for (int i = 0; i < node->nin; i++)
        if (in[i].dtype != LG_F32)
            return FAIL(LG_UNIMPLEMENTED, "%s is %s; conv takes f32",
                        i == 0   ? "src"
                        : i == 1 ? "weights"
                                 : "bias",
                        lg_dtype_str(in[i].dtype));
    int64_t dims[LG_MAX_NDIMS] = {src->dims[0], oc};
    for (int d = 0; d < sp; d++) {
        bool shape_fault;
        char why[256];
        if (lg__conv_out_size(p, sp, d, src->dims[2 + d], wei->dims[wnd - sp + d], &dims[2 + d],
                              &shape_fault, why, sizeof why) != LG_OK)
            return FAIL(shape_fault ? LG_INVALID_GRAPH : LG_INVALID_ARGUMENT, "%s", why);
    }
    /* The output must be describable: its byte size fits int64. */
    int64_t bytes = 4;
    for (int d = 0; d < nd; d++)
        if (!lg__mul_ok(bytes, dims[d] ? dims[d] : 1, &bytes))
            return FAIL(LG_INVALID_ARGUMENT,
                        "the output (dims[%d] = %lld) has a byte size that overflows int64", d,
                        (long long)dims[d]);
#undef FAIL
    lg_md md;
    memset(&md, 0, sizeof md);
    md.ndims = nd;
    md.dtype = LG_F32;
    md.format_kind = LG_FMT_ANY;
    for (int d = 0; d < nd; d++) md.dims[d] = md.padded_dims[d] = dims[d];
    *out = md;
    return LG_OK;
}

/* An "any" md of md's dims and type. */
static lg_md any_of(const lg_md *md) {
    lg_md a;
    lg__md_plain(md, &a);
    a.format_kind = LG_FMT_ANY;
    return a;
}

/* The kernel's answer for src and dst as given ("any" allowed), weights
 * "any" and a plain bias, without post-ops; errors name `where` (NULL: a
 * refusal is an answer, not an error). mds[0..2] = src, weights, dst. */
static lg_status query(const lg__node *node, const lg_md *in, const lg_md *src, const lg_md *dst,
                       const char *where, lg_md *mds) {
    lg_md wei = any_of(&in[1]), bias;
    if (node->nin > 2) lg__md_plain(&in[2], &bias);
    lg__conv_pd pd;
    LG_CHECK(lg__conv_query(&node->p.conv, src, &wei, node->nin > 2 ? &bias : NULL, dst, NULL,
                            where, &pd));
    mds[0] = pd.src;
    mds[1] = pd.wei;
    mds[2] = pd.dst;
    return LG_OK;
}

static lg_status conv_greedy(const lg__node *node, const lg_md *in, lg_md *read, lg_md *out) {
    lg_md mds[3], src = any_of(&in[0]), dst = any_of(out);
    LG_CHECK(query(node, in, &src, &dst, "lg_graph_compile", mds));
    read[0] = mds[0];
    read[1] = mds[1];
    if (node->nin > 2) lg__md_plain(&in[2], &read[2]);
    *out = mds[2];
    return LG_OK;
}

static bool conv_prefers(const lg__node *node, const lg_md *in, const lg_md *out, int i,
                         lg_md *md) {
    lg_md mds[3], src = any_of(&in[0]), dst = any_of(out);
    if (i != 0 || query(node, in, &src, &dst, NULL, mds) != LG_OK) return false;
    *md = mds[0];
    return true;
}

/* Src and dst in the same layout (plain, channels-last, blocked), or plain
 * src into any dst, each when the kernel accepts it, with the weights layout
 * it picks for that pair and a plain bias. */
static int conv_candidates(const lg__node *node, const lg_md *in, const lg_md *out,
                           lg__layout_cfg *cfg) {
    lg_md ls[3], ld[3];
    int ns = lg__layouts_of(&in[0], ls), nd = lg__layouts_of(out, ld), k = 0;
    for (int a = 0; a < ns; a++)
        for (int b = 0; b < nd; b++) {
            lg_md mds[3];
            if ((a != b && a != 0) || query(node, in, &ls[a], &ld[b], NULL, mds) != LG_OK) continue;
            memset(&cfg[k], 0, sizeof cfg[k]);
            cfg[k].in[0] = ls[a];
            cfg[k].in[1] = mds[1];
            if (node->nin > 2) lg__md_plain(&in[2], &cfg[k].in[2]);
            cfg[k++].out = ld[b];
        }
    return k;
}

static void conv_cost(const lg__node *node, const lg_md *in, const lg_md *out, lg__node_cost *c) {
    int64_t g = node->p.conv.groups;
    c->flops = lg__conv_flops(&in[0], &in[1], out, g);
    c->slowdown = lg__conv_slowdown(&in[0], out, in[0].dims[1] / g);
    c->path = lg__conv_path(&node->p.conv, &in[0], &in[1], node->nin > 2 ? &in[2] : NULL, out);
    /* Grouped (not depthwise) convs whose groups do not fill whole channel
     * blocks run their own, slower way: calibrated under their own key. */
    if (g > 1 && !(g == in[0].dims[1] && g == out->dims[1]) && (out->dims[1] / g) % 8 != 0)
        c->slowdown *= 1.5;
}

/* First conv (few input channels), depthwise, 1x1 or kxk (lg_layer_class). */
static lg_layer_class conv_classify(const lg__node *node, const lg_md *in, const lg_md *out) {
    int64_t g = node->p.conv.groups, ic = in[0].dims[1];
    if (ic <= 4) return LG_LAYER_FIRST_CONV;
    if (g > 1 && g == ic && g == out->dims[1]) return LG_LAYER_DEPTHWISE;
    const lg_md *w = &in[1];
    bool one = true;
    for (int d = w->ndims - (in[0].ndims - 2); d < w->ndims; d++) one = one && w->dims[d] == 1;
    return one ? LG_LAYER_CONV_1X1 : LG_LAYER_CONV_KXK;
}

static void attr_of(int npost, const lg__post_op *post, struct lg_attr *attr) {
    lg__attr_init(attr);
    attr->npost = npost;
    if (npost) memcpy(attr->post, post, (size_t)npost * sizeof *post);
}

static bool conv_accepts_post(const lg__node *node, const lg_md *in, const lg_md *out, int npost,
                              const lg__post_op *post) {
    struct lg_attr attr;
    attr_of(npost, post, &attr);
    lg__conv_pd pd;
    return lg__conv_query(&node->p.conv, &in[0], &in[1], node->nin > 2 ? &in[2] : NULL, out, &attr,
                          NULL, &pd) == LG_OK;
}

/* dst = src scaled per output channel (w's layout; the padding copied). */
static void scale_weights(const lg_md *w, bool grouped, int64_t oc, const float *src,
                          const float *scale, float *dst) {
    int64_t n = lg__md_nelems(w), idx[LG_MAX_NDIMS];
    lg_md plain;
    lg__md_plain(w, &plain);
    if (lg_md_equal(w, &plain)) {
        /* oihw / goihw: each output channel's weights are one run. */
        int64_t per = n / oc;
        for (int64_t o = 0; o < oc; o++) {
            const float *restrict s = src + o * per;
            float *restrict d = dst + o * per;
            const float a = scale[o];
            for (int64_t i = 0; i < per; i++) d[i] = s[i] * a;
        }
        return;
    }
    memcpy(dst, src, lg_md_size(w));
    for (int64_t i = 0; i < n; i++) {
        int64_t r = i;
        for (int d = w->ndims - 1; d >= 0; d--) {
            idx[d] = r % w->dims[d];
            r /= w->dims[d];
        }
        int64_t o = grouped ? idx[0] * w->dims[1] + idx[1] : idx[0];
        int64_t off = lg__md_off(w, idx);
        dst[off] = src[off] * scale[o];
    }
}

/* Weights scaled per output channel (of whatever layout they have; the
 * padding is copied as it is; with wei NULL, left to the caller: *wmask is
 * the output channel dims, o of oihw or g and o of goihw), bias = scale *
 * bias + shift. */
static bool conv_absorb_affine(const lg__node *node, const lg_md *in, const void *const *data,
                               const float *scale, const float *shift, void *wei, float *bias,
                               int *wmask) {
    const lg_md *w = &in[1];
    if (!data[1] || (node->nin > 2 && !data[2]) || w->format_kind != LG_FMT_BLOCKED) return false;
    bool grouped = node->p.conv.groups > 1;
    int64_t oc = grouped ? w->dims[0] * w->dims[1] : w->dims[0];
    *wmask = grouped ? 3 : 1;
    if (wei) scale_weights(w, grouped, oc, data[1], scale, wei);
    const float *b0 = node->nin > 2 ? data[2] : NULL;
    for (int64_t o = 0; o < oc; o++) bias[o] = (b0 ? b0[o] * scale[o] : 0.0f) + shift[o];
    return true;
}

static lg_status conv_create(const lg__node *node, const lg_md *in, const lg_md *out, int npost,
                             const lg__post_op *post, lg_kernel **k) {
    struct lg_attr attr;
    attr_of(npost, post, &attr);
    return lg_conv_create(k, &node->p.conv, &in[0], &in[1], node->nin > 2 ? &in[2] : NULL, out,
                          &attr);
}

static bool conv_runs_fast(const lg__node *node, const lg_md *in, const lg_md *out, int npost,
                           const lg__post_op *post) {
    struct lg_attr attr;
    attr_of(npost, post, &attr);
    return lg__conv_fast(&node->p.conv, &in[0], &in[1], node->nin > 2 ? &in[2] : NULL, out, &attr);
}

/* "k:3x3 stride:1x1 pad:1x1/1x1 groups:1 post:+relu+sum" (spatial dims only). */
static void conv_describe(const lg__node *node, const lg_md *in, const lg_md *out, int npost,
                          const lg__post_op *post, char *buf, size_t len) {
    (void)out;
    const lg_conv_params *p = &node->p.conv;
    const lg_md *w = &in[1];
    int sp = in[0].ndims - 2;
    const int64_t *fields[5] = {w->dims + w->ndims - sp, p->strides, p->dilates, p->pad_l,
                                p->pad_r};
    static const char *const names[5] = {"k:", " stride:", " dilate:", " pad:", "/"};
    int n = 0;
    for (int f = 0; f < 5 && n >= 0 && (size_t)n < len; f++) {
        bool zero = true;
        for (int d = 0; d < sp; d++) zero = zero && fields[f][d] == 0;
        if (f == 2 && zero) continue; /* dense */
        n += snprintf(buf + n, len - (size_t)n, "%s", names[f]);
        for (int d = 0; d < sp && n >= 0 && (size_t)n < len; d++)
            n += snprintf(buf + n, len - (size_t)n, d ? "x%lld" : "%lld", (long long)fields[f][d]);
    }
    if (n >= 0 && (size_t)n < len)
        n += snprintf(buf + n, len - (size_t)n, " groups:%lld", (long long)p->groups);
    for (int i = 0; i < npost && n >= 0 && (size_t)n < len; i++) {
        const lg__post_op *o = &post[i];
        n += snprintf(buf + n, len - (size_t)n, "%s+%s", i ? "" : " post:",
                      o->kind == LG_POST_SUM ? "sum" : lg__eltwise_alg_str(o->alg));
    }
}

/* A conv left at LG_CONV_DIRECT takes the compile's conv_alg; Winograd
 * only where the problem, in these layouts, takes it (issue 24). */
static const lg__node *conv_as_run(const lg__node *node, const lg_md *in, const lg_md *out,
                                   const lg__node_opts *o, lg__node *tmp) {
    if (node->p.conv.alg != LG_CONV_DIRECT || o->conv_alg == LG_CONV_DIRECT) return node;
    *tmp = *node;
    tmp->p.conv.alg = o->conv_alg;
    lg__conv_pd pd;
    if (o->conv_alg == LG_CONV_WINOGRAD &&
        lg__conv_query(&tmp->p.conv, &in[0], &in[1], node->nin > 2 ? &in[2] : NULL, out, NULL, NULL,
                       &pd) != LG_OK)
        return node;
    return tmp;
}

const lg__node_ops lg__node_conv_ops = {
    .name = "conv",
    .in_args = {LG_ARG_SRC, LG_ARG_WEIGHTS, LG_ARG_BIAS},
    .infer = conv_infer,
    .layout_none = lg__layout_all_plain,
    .layout_greedy = conv_greedy,
    .prefers = conv_prefers,
    .candidates = conv_candidates,
    .cost = conv_cost,
    .classify = conv_classify,
    .absorb_affine = conv_absorb_affine,
    .accepts_post = conv_accepts_post,
    .as_run = conv_as_run,
    .runs_fast = conv_runs_fast,
    .create = conv_create,
    .describe = conv_describe,
};

lg_status lg_graph_add_conv(lg_graph *g, lg_value src, lg_value weights, lg_value bias,
                            const lg_conv_params *p, lg_value *out) {
    if (!g || !p || !out)
        return LG_ERROR(LG_INVALID_ARGUMENT, "%s is NULL", !g ? "graph" : !p ? "params" : "out");
    LG_CHECK(lg__graph_check_value(g, src, "src", "conv", __func__));
    LG_CHECK(lg__graph_check_value(g, weights, "weights", "conv", __func__));
    if (bias != LG_NO_VALUE) LG_CHECK(lg__graph_check_value(g, bias, "bias", "conv", __func__));
    lg__node node;
    memset(&node, 0, sizeof node);
    node.kind = LG_NODE_CONV;
    node.nin = bias != LG_NO_VALUE ? 3 : 2;
    node.in[0] = src;
    node.in[1] = weights;
    node.in[2] = bias;
    node.p.conv = *p;
    return lg__graph_add_node(g, &node, out, __func__);
}
