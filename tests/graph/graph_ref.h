/* Test helpers for the graph tests: plain row-major f32 tensors, packing into
 * and out of any md (through lg_md_offset only), and independent scalar
 * references of the operations graphs chain (conv, eltwise, binary add/mul
 * with broadcast, channel shuffle). Nothing here uses the library's kernels. */
#ifndef LG_TESTS_GRAPH_REF_H
#define LG_TESTS_GRAPH_REF_H

#include "lgraph.h"
#include "test_util.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct tensor {
    int nd;
    int64_t dims[LG_MAX_NDIMS];
    float *d;
} tensor;

static inline int64_t t_count(const tensor *t) {
    int64_t n = 1;
    for (int i = 0; i < t->nd; i++) n *= t->dims[i];
    return n;
}

static inline tensor t_new(int nd, const int64_t *dims) {
    tensor t = {.nd = nd};
    memcpy(t.dims, dims, (size_t)nd * sizeof *dims);
    t.d = calloc((size_t)t_count(&t) + 1, sizeof(float));
    return t;
}

static inline tensor t_rand(int nd, const int64_t *dims, lg_rng *r, float lo, float hi) {
    tensor t = t_new(nd, dims);
    for (int64_t i = 0; i < t_count(&t); i++) t.d[i] = lg_rng_float(r, lo, hi);
    return t;
}

static inline void t_free(tensor *t) {
    free(t->d);
    t->d = NULL;
}

/* Logical index of flat row-major position i. */
static inline void t_index(const tensor *t, int64_t i, int64_t *idx) {
    for (int d = t->nd - 1; d >= 0; d--) {
        idx[d] = i % t->dims[d];
        i /= t->dims[d];
    }
}

/* A buffer of lg_md_size(md) bytes (+64 slack) holding t in md's layout,
 * padding zero. */
static inline void *t_pack(const tensor *t, const lg_md *md) {
    size_t sz = lg_md_size(md);
    float *buf = aligned_alloc(64, (sz + 64 + 63) / 64 * 64);
    memset(buf, 0, sz + 64);
    int64_t idx[LG_MAX_NDIMS];
    for (int64_t i = 0; i < t_count(t); i++) {
        t_index(t, i, idx);
        buf[lg_md_offset(md, idx)] = t->d[i];
    }
    return buf;
}

/* A garbage-filled buffer for an output of md (NaN bytes). */
static inline void *t_garbage(const lg_md *md) {
    size_t sz = lg_md_size(md);
    void *buf = aligned_alloc(64, (sz + 64 + 63) / 64 * 64);
    memset(buf, 0xff, sz + 64);
    return buf;
}

/* The logical tensor held by buf in md's layout. */
static inline tensor t_unpack(const lg_md *md, const void *buf) {
    tensor t = t_new(md->ndims, md->dims);
    int64_t idx[LG_MAX_NDIMS];
    for (int64_t i = 0; i < t_count(&t); i++) {
        t_index(&t, i, idx);
        t.d[i] = ((const float *)buf)[lg_md_offset(md, idx)];
    }
    return t;
}

/* Assert that every element of buf outside t's logical positions (the
 * padding of a blocked md) is zero. */
static inline void t_expect_zero_padding(const lg_md *md, const void *buf, const char *what) {
    size_t n = lg_md_size(md) / sizeof(float);
    char *logical = calloc(n + 1, 1);
    int64_t idx[LG_MAX_NDIMS] = {0}, count = 1;
    for (int d = 0; d < md->ndims; d++) count *= md->dims[d];
    for (int64_t i = 0; i < count; i++) {
        int64_t q = i;
        for (int d = md->ndims - 1; d >= 0; d--) {
            idx[d] = q % md->dims[d];
            q /= md->dims[d];
        }
        logical[lg_md_offset(md, idx)] = 1;
    }
    for (size_t i = 0; i < n; i++)
        if (!logical[i])
            cr_assert(((const float *)buf)[i] == 0.0f, "%s: padding element %zu is %g", what, i,
                      (double)((const float *)buf)[i]);
    free(logical);
}

/* Assert |got - want| <= atol + rtol * |want| everywhere. */
static inline void t_expect_near(const tensor *got, const tensor *want, float atol, float rtol,
                                 const char *what) {
    cr_assert_eq(got->nd, want->nd, "%s: ndims", what);
    for (int d = 0; d < got->nd; d++)
        cr_assert_eq(got->dims[d], want->dims[d], "%s: dims[%d]", what, d);
    for (int64_t i = 0; i < t_count(want); i++) {
        float g = got->d[i], w = want->d[i];
        cr_assert(fabsf(g - w) <= atol + rtol * fabsf(w), "%s: element %lld: got %.9g, want %.9g",
                  what, (long long)i, (double)g, (double)w);
    }
}

/* ---- references ---- */

static inline tensor ref_relu(const tensor *x, float alpha) {
    tensor y = t_new(x->nd, x->dims);
    for (int64_t i = 0; i < t_count(x); i++) y.d[i] = x->d[i] > 0 ? x->d[i] : alpha * x->d[i];
    return y;
}

static inline tensor ref_linear(const tensor *x, float alpha, float beta) {
    tensor y = t_new(x->nd, x->dims);
    for (int64_t i = 0; i < t_count(x); i++) y.d[i] = alpha * x->d[i] + beta;
    return y;
}

/* a (op) b, b broadcast numpy-style; op 0 add, 1 sub, 2 mul. */
static inline tensor ref_binary(int op, const tensor *a, const tensor *b) {
    tensor y = t_new(a->nd, a->dims);
    int64_t idx[LG_MAX_NDIMS];
    for (int64_t i = 0; i < t_count(a); i++) {
        t_index(a, i, idx);
        int64_t j = 0;
        for (int d = 0; d < b->nd; d++) j = j * b->dims[d] + (b->dims[d] == 1 ? 0 : idx[d]);
        float u = a->d[i], v = b->d[j];
        y.d[i] = op == 0 ? u + v : op == 1 ? u - v : u * v;
    }
    return y;
}

/* Channel shuffle on axis with group size G: dst(c) = src(c'), where
 * c = u + v * (C/G) and c' = u * G + v. */
static inline tensor ref_shuffle(const tensor *x, int axis, int64_t g) {
    tensor y = t_new(x->nd, x->dims);
    int64_t c = x->dims[axis], cg = c / g, idx[LG_MAX_NDIMS];
    for (int64_t i = 0; i < t_count(x); i++) {
        t_index(x, i, idx);
        int64_t cc = idx[axis], u = cc % cg, v = cc / cg;
        idx[axis] = u * g + v;
        int64_t j = 0;
        for (int d = 0; d < x->nd; d++) j = j * x->dims[d] + idx[d];
        y.d[i] = x->d[j];
    }
    return y;
}

/* 2D conv, in double: src N x IC x H x W, weights OC x IC/G x KH x KW (the
 * group dim folded into OC, i.e. goihw read as (g*OC/G + o)), bias OC or
 * NULL. Strides, dilates (0 dense), pads from p. */
static inline tensor ref_conv2d(const tensor *src, const tensor *wei, const tensor *bias,
                                const lg_conv_params *p) {
    int64_t n = src->dims[0], ic = src->dims[1], ih = src->dims[2], iw = src->dims[3];
    int64_t g = p->groups, wnd = wei->nd;
    int64_t kh = wei->dims[wnd - 2], kw = wei->dims[wnd - 1];
    int64_t oc = g > 1 ? wei->dims[0] * wei->dims[1] : wei->dims[0];
    int64_t icg = ic / g, ocg = oc / g;
    int64_t oh =
        (ih + p->pad_l[0] + p->pad_r[0] - ((kh - 1) * (p->dilates[0] + 1) + 1)) / p->strides[0] + 1;
    int64_t ow =
        (iw + p->pad_l[1] + p->pad_r[1] - ((kw - 1) * (p->dilates[1] + 1) + 1)) / p->strides[1] + 1;
    int64_t dims[4] = {n, oc, oh, ow};
    tensor y = t_new(4, dims);
    for (int64_t b = 0; b < n; b++)
        for (int64_t o = 0; o < oc; o++) {
            int64_t grp = o / ocg;
            for (int64_t y0 = 0; y0 < oh; y0++)
                for (int64_t x0 = 0; x0 < ow; x0++) {
                    double acc = bias ? bias->d[o] : 0.0;
                    for (int64_t i = 0; i < icg; i++)
                        for (int64_t r = 0; r < kh; r++) {
                            int64_t yy = y0 * p->strides[0] - p->pad_l[0] + r * (p->dilates[0] + 1);
                            if (yy < 0 || yy >= ih) continue;
                            for (int64_t s = 0; s < kw; s++) {
                                int64_t xx =
                                    x0 * p->strides[1] - p->pad_l[1] + s * (p->dilates[1] + 1);
                                if (xx < 0 || xx >= iw) continue;
                                float sv = src->d[((b * ic + grp * icg + i) * ih + yy) * iw + xx];
                                float wv = wei->d[((o * icg + i) * kh + r) * kw + s];
                                acc += (double)sv * wv;
                            }
                        }
                    y.d[((b * oc + o) * oh + y0) * ow + x0] = (float)acc;
                }
        }
    return y;
}

/* ---- graph helpers ---- */

static inline lg_md md_tag(int nd, const int64_t *dims, const char *tag) {
    lg_md md;
    cr_assert_eq(lg_md_init_tag(&md, nd, dims, LG_F32, tag), LG_OK, "%s: %s", tag, lg_last_error());
    return md;
}

static inline const char *strategy_name(lg_strategy s) {
    return s == LG_STRATEGY_NONE ? "none" : s == LG_STRATEGY_GREEDY ? "greedy" : "optimal";
}

static inline lg_plan *compile_with(const lg_graph *g, lg_strategy st, const char *disable) {
    lg_compile_options o;
    lg_compile_options_init(&o);
    o.strategy = st;
    o.disable_passes = disable;
    lg_plan *p = NULL;
    lg_status s = lg_graph_compile(g, &o, &p);
    cr_assert_eq(s, LG_OK, "compile (%s, disabled %s): %s", strategy_name(st),
                 disable ? disable : "-", lg_last_error());
    return p;
}

/* Execute p on one input tensor (packed into the layout the plan reports)
 * and return its outputs unpacked. */
static inline void run_plan(const lg_plan *p, int nin, const char *const *in_names,
                            const tensor *ins, int nout, const char *const *out_names,
                            tensor *outs) {
    lg_binding bi[8], bo[8];
    void *bufs_o[8];
    lg_md mdo[8];
    for (int i = 0; i < nin; i++) {
        lg_md md;
        cr_assert_eq(lg_plan_query_md(p, in_names[i], &md), LG_OK, "%s", lg_last_error());
        bi[i] = (lg_binding){in_names[i], t_pack(&ins[i], &md)};
    }
    for (int i = 0; i < nout; i++) {
        cr_assert_eq(lg_plan_query_md(p, out_names[i], &mdo[i]), LG_OK, "%s", lg_last_error());
        bufs_o[i] = t_garbage(&mdo[i]);
        bo[i] = (lg_binding){out_names[i], bufs_o[i]};
    }
    lg_status s = lg_plan_execute(p, nin, bi, nout, bo);
    cr_assert_eq(s, LG_OK, "execute: %s", lg_last_error());
    for (int i = 0; i < nout; i++) {
        if (mdo[i].blocking.inner_nblks) t_expect_zero_padding(&mdo[i], bufs_o[i], out_names[i]);
        outs[i] = t_unpack(&mdo[i], bufs_o[i]);
        free(bufs_o[i]);
    }
    for (int i = 0; i < nin; i++) free(bi[i].data);
}

/* A 1x1 conv src -> oc channels with random weights (kept in *w). */
static inline lg_value add_conv1x1(lg_graph *g, lg_value src, int64_t ic, int64_t oc, lg_rng *r,
                                   tensor *w) {
    int64_t wd[4] = {oc, ic, 1, 1};
    *w = t_rand(4, wd, r, -0.5f, 0.5f);
    lg_md wm = md_tag(4, wd, "oihw");
    void *wb = t_pack(w, &wm);
    lg_value wv, y;
    static int count;
    char name[32];
    snprintf(name, sizeof name, "w%d", count++);
    cr_assert_eq(lg_graph_add_constant(g, name, &wm, wb, &wv), LG_OK, "%s", lg_last_error());
    free(wb);
    lg_conv_params p = {.strides = {1, 1}, .groups = 1};
    cr_assert_eq(lg_graph_add_conv(g, src, wv, LG_NO_VALUE, &p, &y), LG_OK, "%s", lg_last_error());
    return y;
}

#endif /* LG_TESTS_GRAPH_REF_H */
