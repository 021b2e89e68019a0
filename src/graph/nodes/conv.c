/* The conv node: lg_graph_add_conv and its hooks. Layouts: NONE runs it on
 * plain src/weights/dst; GREEDY creates the kernel with src, weights and dst
 * "any" and takes what lg_kernel_query_md reports. Fused post-ops (eltwise
 * chain, one sum) become the kernel's attribute. */
#include "graph/graph.h"
#include "primitives/conv/conv.h"

#include <string.h>

static const char where_compile[] = "lg_graph_compile";

static lg_status conv_infer(const lg__value *vals, const lg__node *node, int index, lg_md *out,
                            const char *where) {
    const lg_md *src = &vals[node->in[0]].md, *wei = &vals[node->in[1]].md;
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
        const lg_md *b = &vals[node->in[2]].md;
        if (b->ndims != 1 || b->dims[0] != oc)
            return FAIL(LG_INVALID_GRAPH,
                        "bias must be 1D with %lld elements (it has %d dims, "
                        "first %lld)",
                        (long long)oc, b->ndims, (long long)b->dims[0]);
    }
    for (int i = 0; i < node->nin; i++)
        if (vals[node->in[i]].md.dtype != LG_F32)
            return FAIL(LG_UNIMPLEMENTED, "%s is %s; conv takes f32",
                        i == 0   ? "src"
                        : i == 1 ? "weights"
                                 : "bias",
                        lg_dtype_str(vals[node->in[i]].md.dtype));
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

/* The layouts the conv kernel picks for src (given, or "any"), weights and
 * dst, without post-ops: mds[0..2] = src, weights, dst. */
static lg_status query(const lg__graph *ir, int n, const lg_md *src, lg_md *mds) {
    const lg__node *node = &ir->nodes[n];
    lg_md wei = any_of(&ir->vals[node->in[1]].md), dst = any_of(&ir->vals[node->out].md), bias;
    if (node->nin > 2) lg__md_plain(&ir->vals[node->in[2]].md, &bias);
    lg_kernel *k = NULL;
    lg_status s =
        lg_conv_create(&k, &node->p.conv, src, &wei, node->nin > 2 ? &bias : NULL, &dst, NULL);
    if (s != LG_OK) {
        char why[512];
        return lg__error(s, where_compile, "node %d (conv): cannot choose its layouts: %s", n,
                         lg__why(why, sizeof why));
    }
    static const int args[3] = {LG_ARG_SRC, LG_ARG_WEIGHTS, LG_ARG_DST};
    for (int i = 0; i < 3; i++) {
        lg_md md;
        lg_kernel_query_md(k, args[i], &md);
        lg__md_canon(&md, &mds[i]); /* not in place: it zeroes its output first */
    }
    lg_kernel_destroy(k);
    return LG_OK;
}

static lg_status conv_greedy(lg__graph *ir, int n) {
    lg__node *node = &ir->nodes[n];
    lg_md mds[3], src = any_of(&ir->vals[node->in[0]].md);
    LG_CHECK(query(ir, n, &src, mds));
    node->in_md[0] = mds[0];
    node->in_md[1] = mds[1];
    if (node->nin > 2) lg__md_plain(&ir->vals[node->in[2]].md, &node->in_md[2]);
    ir->vals[node->out].md = mds[2];
    return LG_OK;
}

static bool conv_prefers(const lg__graph *ir, int n, int i, lg_md *md) {
    if (i != 0) return false;
    lg_md mds[3], src = any_of(&ir->vals[ir->nodes[n].in[0]].md);
    if (query(ir, n, &src, mds) != LG_OK) return false;
    *md = mds[0];
    return true;
}

static lg_status conv_create(const lg__graph *ir, const lg__node *node, lg_kernel **k) {
    struct lg_attr attr;
    lg__attr_init(&attr);
    attr.npost = node->npost;
    memcpy(attr.post, node->post, sizeof attr.post);
    const lg_md *bias = node->nin > 2 ? &ir->vals[node->in[2]].md : NULL;
    return lg_conv_create(k, &node->p.conv, &ir->vals[node->in[0]].md, &ir->vals[node->in[1]].md,
                          bias, &ir->vals[node->out].md, &attr);
}

/* "k:3x3 stride:1x1 pad:1x1/1x1 groups:1 post:+relu+sum" (spatial dims only). */
static void conv_describe(const lg__graph *ir, const lg__node *node, char *buf, size_t len) {
    const lg_conv_params *p = &node->p.conv;
    const lg_md *w = &ir->vals[node->in[1]].md;
    int sp = ir->vals[node->in[0]].md.ndims - 2;
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
    for (int i = 0; i < node->npost && n >= 0 && (size_t)n < len; i++) {
        const lg__post_op *o = &node->post[i];
        n += snprintf(buf + n, len - (size_t)n, "%s+%s", i ? "" : " post:",
                      o->kind == LG_POST_SUM ? "sum" : lg__eltwise_alg_str(o->alg));
    }
}

const lg__node_ops lg__node_conv_ops = {
    .name = "conv",
    .in_args = {LG_ARG_SRC, LG_ARG_WEIGHTS, LG_ARG_BIAS},
    .infer = conv_infer,
    .layout_none = lg__layout_all_plain,
    .layout_greedy = conv_greedy,
    .prefers = conv_prefers,
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
