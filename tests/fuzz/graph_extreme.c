/* The graph fuzz target's extreme-parameter calls (gf_extreme, declared in
 * graph_fuzz.h): one builder call given one parameter from the sweep's
 * extremes (tests/robustness/extremes.h: 0, -1, the int64 and int limits,
 * products that overflow) on a scratch graph whose input "x" is shaped like
 * a value of the main graph, which stays untouched. The calls: conv
 * geometry and groups; shuffle axis and group size; slice axis, start and
 * length; pool geometry; a reshape dim or count; a quantising reorder's
 * scale mask; the concat axis, source count, and axis dims that sum past
 * INT64_MAX; the softmax axis, algorithm and dims; inner-product OC, weights
 * dims, bias length and batch; batchnorm epsilon, statistic lengths and
 * channel count.
 *
 * Properties: every call returns an lg_status; a failure is one the
 * contracts name (LG_INVALID_ARGUMENT, LG_INVALID_GRAPH, LG_UNIMPLEMENTED,
 * LG_OUT_OF_MEMORY) with a message that begins with the public function
 * called; an accepted node's result has no negative dim; nothing overflows
 * (UBSan) or crashes (ASan). */
#include "fuzz/graph_fuzz.h"

#include "graph/graph.h"

#include <string.h>

/* The checks above for one call to `fn` (out: the node's result, or
 * LG_NO_VALUE); the call's status is returned. */
static lg_status check(lg_graph *g, lg_status st, const char *fn, lg_value out, int64_t e) {
    gf_trace("extreme %s (%lld): %s %s\n", fn, (long long)e, lg_status_str(st),
             st == LG_OK ? "" : lg_last_error());
    if (st == LG_OK) {
        if (out == LG_NO_VALUE) return st;
        const lg_md *om = &g->vals[out].md;
        for (int k = 0; k < om->ndims; k++)
            if (om->dims[k] < 0)
                fz_fail(T, "%s (%lld): accepted with a result dim %lld", fn, (long long)e,
                        (long long)om->dims[k]);
        return st;
    }
    if (st != LG_INVALID_ARGUMENT && st != LG_INVALID_GRAPH && st != LG_UNIMPLEMENTED &&
        st != LG_OUT_OF_MEMORY)
        fz_fail(T, "%s (%lld): %s (%s)", fn, (long long)e, lg_status_str(st), lg_last_error());
    const char *msg = lg_last_error();
    size_t n = strlen(fn);
    if (strncmp(msg, fn, n) != 0 || msg[n] != ':')
        fz_fail(T, "%s (%lld): %s with the message '%s'", fn, (long long)e, lg_status_str(st), msg);
    return st;
}

/* An "any" input of type dt and dims `dims` named `name`, or LG_NO_VALUE
 * when the md or the graph refuses them (checked as a call of its own). */
static lg_value input(lg_graph *g, const char *name, int nd, const int64_t *dims, lg_dtype dt,
                      int64_t e) {
    lg_md md;
    lg_value v;
    if (check(g, lg_md_init_tag(&md, nd, dims, dt, "any"), "lg_md_init_tag", LG_NO_VALUE, e) !=
            LG_OK ||
        check(g, lg_graph_add_input(g, name, &md, &v), "lg_graph_add_input", LG_NO_VALUE, e) !=
            LG_OK)
        return LG_NO_VALUE;
    return v;
}

/* x's dims with dims[d] = e. */
static void with_dim(const gm_value *x, int d, int64_t e, int64_t *dims) {
    memcpy(dims, x->dims, sizeof x->dims);
    dims[d] = e;
}

static void conv_call(lg_graph *g, const gm_value *x, lg_value in, uint8_t field, int d,
                      int64_t e) {
    /* 1 output channel, a 1-tap kernel, one geometry field extreme. */
    int64_t wd[LG_MAX_NDIMS] = {1, x->nd > 1 ? x->dims[1] : 1};
    for (int k = 2; k < x->nd; k++) wd[k] = 1;
    lg_value w = input(g, "w", x->nd, wd, LG_F32, e), out = LG_NO_VALUE;
    if (w == LG_NO_VALUE) return;
    lg_conv_params p;
    memset(&p, 0, sizeof p);
    for (int k = 0; k < 3; k++) p.strides[k] = 1;
    p.groups = 1;
    int64_t *fields[5] = {p.strides, p.dilates, p.pad_l, p.pad_r, &p.groups};
    int fi = (field >> 2) % 5;
    fields[fi][fi == 4 ? 0 : d] = e;
    check(g, lg_graph_add_conv(g, in, w, LG_NO_VALUE, &p, &out), "lg_graph_add_conv", out, e);
}

static void pool_call(lg_graph *g, lg_value in, uint8_t field, int d, int64_t e) {
    /* 1-tap max, one geometry field extreme. */
    lg_pool_params p;
    memset(&p, 0, sizeof p);
    p.alg = LG_POOL_MAX;
    for (int k = 0; k < 3; k++) p.kernel[k] = p.strides[k] = 1;
    int64_t *fields[5] = {p.kernel, p.strides, p.dilates, p.pad_l, p.pad_r};
    fields[(field >> 2) % 5][d] = e;
    lg_value out = LG_NO_VALUE;
    check(g, lg_graph_add_pool(g, in, &p, &out), "lg_graph_add_pool", out, e);
}

static void reorder_call(fz *f, lg_graph *g, const gm_value *x, lg_value in) {
    /* A quantising reorder with an extreme scale mask. */
    lg_attr *a;
    if (lg_attr_create(&a) != LG_OK) return;
    int mask = fz_xint(f);
    if (check(g, lg_attr_set_scales(a, LG_ARG_SRC, mask), "lg_attr_set_scales", LG_NO_VALUE,
              mask) == LG_OK) {
        int64_t one = 1;
        lg_md md;
        memset(&md, 0, sizeof md); /* a refused init leaves it untouched: zeroed, then invalid */
        lg_value sv = input(g, "s", 1, &one, LG_F32, mask), out = LG_NO_VALUE;
        char tag[LG_MAX_NDIMS + 1] = {0}; /* plain: the first nd letters */
        for (int k = 0; k < x->nd && k < LG_MAX_NDIMS; k++) tag[k] = (char)('a' + k);
        lg_md_init_tag(&md, x->nd, x->dims, LG_S8, tag);
        if (sv != LG_NO_VALUE) {
            lg_reorder_operands o = {sv, LG_NO_VALUE, LG_NO_VALUE, LG_NO_VALUE, LG_NO_VALUE};
            check(g, lg_graph_add_reorder_attr(g, in, &md, a, &o, &out),
                  "lg_graph_add_reorder_attr", out, mask);
        }
    }
    lg_attr_destroy(a);
}

static void concat_call(fz *f, lg_graph *g, const gm_value *x, lg_value in, uint8_t field,
                        int64_t e) {
    static const char fn[] = "lg_graph_add_concat";
    lg_value srcs[LG_CONCAT_MAX_SRCS], out = LG_NO_VALUE;
    for (int i = 0; i < LG_CONCAT_MAX_SRCS; i++) srcs[i] = in;
    int axis = (field >> 2) % x->nd;
    switch (field & 3) {
    case 0: {
        int a = fz_xint(f);
        check(g, lg_graph_add_concat(g, a, 2, srcs, &out), fn, out, a);
        break;
    }
    case 1: {
        int n = fz_xint(f);
        check(g, lg_graph_add_concat(g, axis, n, srcs, &out), fn, out, n);
        break;
    }
    default: { /* 2 to 6 sources (6: a tree) with an extreme dim on the axis:
                * all b (f32 or s8), or x and b (f32) alternating */
        bool all = field & 0x40;
        int64_t dims[LG_MAX_NDIMS];
        with_dim(x, axis, e, dims);
        lg_value b = input(g, "b", x->nd, dims, all && (field & 0x80) ? LG_S8 : LG_F32, e);
        if (b == LG_NO_VALUE) return;
        for (int i = 0; i < 6; i++) srcs[i] = all || (i & 1) ? b : in;
        int n = 2 + fz_u8(f) % 5;
        check(g, lg_graph_add_concat(g, axis, n, srcs, &out), fn, out, e);
        break;
    }
    }
}

static void softmax_call(fz *f, lg_graph *g, const gm_value *x, lg_value in, uint8_t field,
                         int64_t e) {
    static const char fn[] = "lg_graph_add_softmax";
    lg_value out = LG_NO_VALUE;
    int axis = (field >> 2) % x->nd;
    switch (field & 3) {
    case 0: {
        int a = fz_xint(f);
        check(g, lg_graph_add_softmax(g, in, LG_SOFTMAX, a, &out), fn, out, a);
        break;
    }
    case 1: {
        int alg = fz_xint(f);
        check(g, lg_graph_add_softmax(g, in, (lg_softmax_alg)alg, axis, &out), fn, out, alg);
        break;
    }
    default: {
        int64_t dims[LG_MAX_NDIMS];
        with_dim(x, (field >> 5) % x->nd, e, dims);
        lg_value b = input(g, "b", x->nd, dims, LG_F32, e);
        if (b != LG_NO_VALUE)
            check(g, lg_graph_add_softmax(g, b, LG_LOGSOFTMAX, axis, &out), fn, out, e);
        break;
    }
    }
}

static void inner_product_call(lg_graph *g, const gm_value *x, lg_value in, uint8_t field,
                               int64_t e) {
    static const char fn[] = "lg_graph_add_inner_product";
    lg_value src = in, w, bias = LG_NO_VALUE, out = LG_NO_VALUE;
    int64_t wd[LG_MAX_NDIMS];
    with_dim(x, 0, 4, wd); /* OC 4 x (x's dims but the first) */
    switch (field & 3) {
    case 0: /* OC or one weights dim */
        wd[(field >> 2) % x->nd] = e;
        break;
    case 1: /* the bias length */
        bias = input(g, "b", 1, &e, LG_F32, e);
        if (bias == LG_NO_VALUE) return;
        break;
    case 2: /* a bias of OC values with an extreme OC */
        wd[0] = e;
        bias = input(g, "b", 1, &e, LG_F32, e);
        if (bias == LG_NO_VALUE) return;
        break;
    default: { /* the batch */
        int64_t dims[LG_MAX_NDIMS];
        with_dim(x, 0, e, dims);
        src = input(g, "s", x->nd, dims, LG_F32, e);
        if (src == LG_NO_VALUE) return;
        break;
    }
    }
    w = input(g, "w", x->nd, wd, LG_F32, e);
    if (w != LG_NO_VALUE) check(g, lg_graph_add_inner_product(g, src, w, bias, &out), fn, out, e);
}

static void batchnorm_call(fz *f, lg_graph *g, const gm_value *x, lg_value in, uint8_t field,
                           int64_t e) {
    static const char fn[] = "lg_graph_add_batchnorm";
    static const char *const names[4] = {"m", "v", "g", "b"};
    int64_t c = x->nd > 1 ? x->dims[1] : 1, sd = c;
    lg_value src = in, st[4], out = LG_NO_VALUE;
    float eps = 1e-5f;
    int odd = -1; /* the statistic given e values */
    switch (field & 3) {
    case 0:
        eps = lg_xfloat_at(fz_u8(f));
        break;
    case 1:
        odd = (field >> 2) % 4;
        break;
    default: { /* src of e channels, statistics of e values */
        if (x->nd < 2) return;
        int64_t dims[LG_MAX_NDIMS];
        with_dim(x, 1, e, dims);
        src = input(g, "s", x->nd, dims, LG_F32, e);
        if (src == LG_NO_VALUE) return;
        sd = e;
        break;
    }
    }
    for (int k = 0; k < 4; k++) {
        st[k] = input(g, names[k], 1, k == odd ? &e : &sd, LG_F32, e);
        if (st[k] == LG_NO_VALUE) return;
    }
    bool affine = field & 0x10;
    check(g,
          lg_graph_add_batchnorm(g, src, st[0], st[1], affine ? st[2] : LG_NO_VALUE,
                                 affine ? st[3] : LG_NO_VALUE, eps, field & 0x20, &out),
          fn, out, e);
}

void gf_extreme(fz *f, const gm_value *x) {
    lg_graph *g;
    if (lg_graph_create(&g) != LG_OK) return;
    lg_md md;
    lg_value in, out = LG_NO_VALUE;
    if (lg_md_init_tag(&md, x->nd, x->dims, LG_F32, "any") != LG_OK ||
        lg_graph_add_input(g, "x", &md, &in) != LG_OK) {
        lg_graph_destroy(g);
        return;
    }
    uint8_t which = fz_u8(f) % 10, field = fz_u8(f);
    int64_t e = fz_x64(f);
    int sp = x->nd - 2 > 0 ? (x->nd - 2 > 3 ? 3 : x->nd - 2) : 1;
    int d = field % sp;
    switch (which) {
    case 0:
        conv_call(g, x, in, field, d, e);
        break;
    case 1:
        if (field & 1) {
            int axis = fz_xint(f);
            check(g, lg_graph_add_shuffle(g, in, axis, 1, &out), "lg_graph_add_shuffle", out, axis);
        } else {
            check(g, lg_graph_add_shuffle(g, in, x->nd > 1, e, &out), "lg_graph_add_shuffle", out,
                  e);
        }
        break;
    case 2: {
        int axis = field & 3 ? 0 : fz_xint(f);
        int64_t start = field & 1 ? e : 0, len = field & 2 ? e : 1;
        check(g, lg_graph_add_slice(g, in, axis, start, len, &out), "lg_graph_add_slice", out, e);
        break;
    }
    case 3:
        pool_call(g, in, field, d, e);
        break;
    case 4: { /* one target dim extreme (the others x's), or the dim count */
        int64_t rd[LG_MAX_NDIMS];
        with_dim(x, field % x->nd, e, rd);
        int nd = field & 0x80 ? fz_xint(f) : x->nd;
        check(g, lg_graph_add_reshape(g, in, nd, rd, &out), "lg_graph_add_reshape", out, e);
        break;
    }
    case 5:
        reorder_call(f, g, x, in);
        break;
    case 6:
        concat_call(f, g, x, in, field, e);
        break;
    case 7:
        softmax_call(f, g, x, in, field, e);
        break;
    case 8:
        inner_product_call(g, x, in, field, e);
        break;
    default:
        batchnorm_call(f, g, x, in, field, e);
        break;
    }
    lg_graph_destroy(g);
}
