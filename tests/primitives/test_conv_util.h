/* Shared by the conv tests: a problem description, a naive double-precision
 * truth over logical (plain) arrays, and a runner that creates a kernel for
 * given layouts (or "any"), scatters the data into the kernel's layouts,
 * executes it and compares every element with the truth.
 *
 * Tolerance (stated once, used by every conv test): for an output whose
 * accumulation has K = ICg * KD * KH * KW + 1 terms (bias included) of
 * total magnitude M = |bias| + sum |src * wei|, an f32 result in any
 * summation order is within K * 2^-23 * M of the exact sum (each of the K
 * additions rounds by at most 2^-24 of a partial sum bounded by M; doubled
 * for the fused / unfused difference). A post-op chain carries that error
 * through each operation's Lipschitz constant on the tested range (post_lip)
 * and adds 2^-18 relative per operation for the vector math's own error and
 * 2^-23 * |beta * old| per sum. */
#ifndef LG_TEST_CONV_UTIL_H
#define LG_TEST_CONV_UTIL_H

#include "primitives/attr.h"
#include "primitives/cpu.h"
#include "primitives/eltwise/eltwise.h"
#include "test_util.h"

#include <criterion/criterion.h>
#include <lgraph.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct cpost {
    int kind; /* LG_POST_SUM or LG_POST_ELTWISE */
    lg_eltwise_alg alg;
    float alpha, beta; /* eltwise; a sum's scale is alpha */
} cpost;

typedef struct cprob {
    int nsp;
    int64_t n, g, icg, ocg;
    int64_t in[3], k[3], st[3], dl[3], pl[3], pr[3];
    bool bias;
    int npost;
    cpost post[4];
} cprob;

static inline int64_t cp_out(const cprob *p, int i) {
    int64_t ext = (p->k[i] - 1) * (p->dl[i] + 1) + 1;
    return (p->in[i] + p->pl[i] + p->pr[i] - ext) / p->st[i] + 1;
}

/* Logical dims of each tensor. */
static inline int cp_src_dims(const cprob *p, int64_t *d) {
    d[0] = p->n;
    d[1] = p->g * p->icg;
    for (int i = 0; i < p->nsp; i++) d[2 + i] = p->in[i];
    return 2 + p->nsp;
}
static inline int cp_dst_dims(const cprob *p, int64_t *d) {
    d[0] = p->n;
    d[1] = p->g * p->ocg;
    for (int i = 0; i < p->nsp; i++) d[2 + i] = cp_out(p, i);
    return 2 + p->nsp;
}
static inline int cp_wei_dims(const cprob *p, int64_t *d) {
    int o = 0;
    if (p->g > 1) d[o++] = p->g;
    d[o++] = p->ocg;
    d[o++] = p->icg;
    for (int i = 0; i < p->nsp; i++) d[o++] = p->k[i];
    return o;
}

static inline int64_t cp_prod(const int64_t *d, int nd) {
    int64_t r = 1;
    for (int i = 0; i < nd; i++) r *= d[i];
    return r;
}

static inline void cp_params(const cprob *p, lg_conv_params *cp) {
    memset(cp, 0, sizeof *cp);
    cp->groups = p->g;
    for (int i = 0; i < p->nsp; i++) {
        cp->strides[i] = p->st[i];
        cp->dilates[i] = p->dl[i];
        cp->pad_l[i] = p->pl[i];
        cp->pad_r[i] = p->pr[i];
    }
}

static inline lg_attr *cp_attr(const cprob *p) {
    lg_attr *a = NULL;
    cr_assert_eq(lg_attr_create(&a), LG_OK);
    for (int i = 0; i < p->npost; i++) {
        if (p->post[i].kind == LG_POST_SUM)
            cr_assert_eq(lg_attr_append_sum(a, p->post[i].alpha), LG_OK);
        else
            cr_assert_eq(
                lg_attr_append_eltwise(a, p->post[i].alg, p->post[i].alpha, p->post[i].beta),
                LG_OK);
    }
    return a;
}

/* Logical data of a problem: row-major arrays in the plain order of each
 * tensor's dims; old is dst's content before the call (the sum's input). */
typedef struct cdata {
    float *src, *wei, *bias, *old;
    int64_t nsrc, nwei, nbias, ndst;
    double *want, *tol; /* the truth per dst element (cp_truth) */
} cdata;

static inline void cp_truth_at(const cprob *p, const cdata *d, int64_t n, int64_t oc,
                               const int64_t *o, double *want, double *tol);

/* Advance idx over [0, dims); false after the last. */
static inline bool cp_next(int64_t *idx, const int64_t *dims, int nd) {
    for (int i = nd - 1; i >= 0; i--) {
        if (++idx[i] < dims[i]) return true;
        idx[i] = 0;
    }
    return false;
}

/* Fill d->want and d->tol (allocated here) for every dst element. */
static inline void cp_truth(const cprob *p, cdata *d) {
    int64_t dd[6], idx[6] = {0};
    int nd = cp_dst_dims(p, dd);
    d->want = malloc(sizeof(double) * (size_t)(d->ndst + 1));
    d->tol = malloc(sizeof(double) * (size_t)(d->ndst + 1));
    if (d->ndst == 0) return;
    int64_t i = 0;
    do {
        int64_t o3[3] = {0, 0, 0};
        for (int j = 0; j < p->nsp; j++) o3[3 - p->nsp + j] = idx[2 + j];
        cp_truth_at(p, d, idx[0], idx[1], o3, &d->want[i], &d->tol[i]);
        i++;
    } while (cp_next(idx, dd, nd));
}

static inline void cp_data(const cprob *p, lg_rng *r, cdata *d) {
    int64_t dims[6];
    d->nsrc = cp_prod(dims, cp_src_dims(p, dims));
    d->nwei = cp_prod(dims, cp_wei_dims(p, dims));
    d->ndst = cp_prod(dims, cp_dst_dims(p, dims));
    d->nbias = p->g * p->ocg;
    d->src = malloc(sizeof(float) * (size_t)(d->nsrc + 1));
    d->wei = malloc(sizeof(float) * (size_t)(d->nwei + 1));
    d->bias = malloc(sizeof(float) * (size_t)(d->nbias + 1));
    d->old = malloc(sizeof(float) * (size_t)(d->ndst + 1));
    for (int64_t i = 0; i < d->nsrc; i++) d->src[i] = lg_rng_float(r, -1.0f, 1.0f);
    for (int64_t i = 0; i < d->nwei; i++) d->wei[i] = lg_rng_float(r, -1.0f, 1.0f);
    for (int64_t i = 0; i < d->nbias; i++) d->bias[i] = lg_rng_float(r, -1.0f, 1.0f);
    for (int64_t i = 0; i < d->ndst; i++) d->old[i] = lg_rng_float(r, -1.0f, 1.0f);
    cp_truth(p, d);
}

static inline void cp_data_free(cdata *d) {
    free(d->src);
    free(d->wei);
    free(d->bias);
    free(d->old);
    free(d->want);
    free(d->tol);
}

/* Lipschitz constant of an eltwise post-op on the values the tests produce
 * (|x| below ~100). */
static inline double post_lip(const cpost *q, double x) {
    double a = fabs((double)q->alpha);
    switch (q->alg) {
    case LG_ELTWISE_EXP:
        return exp(x) * 1.01;
    case LG_ELTWISE_SQUARE:
        return 2 * fabs(x) + 1;
    case LG_ELTWISE_RELU:
    case LG_ELTWISE_ELU:
    case LG_ELTWISE_LINEAR:
        return a > 1 ? a : 1;
    case LG_ELTWISE_SWISH:
        return 1.1 * (a > 1 ? a : 1) + 0.1;
    case LG_ELTWISE_GELU_TANH:
    case LG_ELTWISE_GELU_ERF:
        return 1.13;
    case LG_ELTWISE_HARDSWISH:
        return 1 + 2 * a * 100;
    case LG_ELTWISE_HARDSIGMOID:
        return a;
    default:
        return 1;
    }
}

/* The truth for dst element (n, oc, od, oh, ow) (normalised 3D index), and
 * its error bound. */
static inline void cp_truth_at(const cprob *p, const cdata *d, int64_t n, int64_t oc,
                               const int64_t *o, double *want, double *tol) {
    int64_t in[3] = {1, 1, 1}, k[3] = {1, 1, 1}, st[3] = {1, 1, 1}, dl[3] = {1, 1, 1},
            pl[3] = {0, 0, 0}, od[3] = {1, 1, 1};
    for (int i = 0; i < p->nsp; i++) {
        int j = 3 - p->nsp + i;
        in[j] = p->in[i], k[j] = p->k[i], st[j] = p->st[i], dl[j] = p->dl[i] + 1;
        pl[j] = p->pl[i], od[j] = cp_out(p, i);
    }
    int64_t g = oc / p->ocg, oo = oc % p->ocg, ic = p->g * p->icg;
    double acc = p->bias ? d->bias[oc] : 0, mag = fabs(acc);
    for (int64_t i = 0; i < p->icg; i++)
        for (int64_t a = 0; a < k[0]; a++)
            for (int64_t b = 0; b < k[1]; b++)
                for (int64_t c = 0; c < k[2]; c++) {
                    int64_t x = o[0] * st[0] - pl[0] + a * dl[0];
                    int64_t y = o[1] * st[1] - pl[1] + b * dl[1];
                    int64_t z = o[2] * st[2] - pl[2] + c * dl[2];
                    if (x < 0 || x >= in[0] || y < 0 || y >= in[1] || z < 0 || z >= in[2]) continue;
                    double s =
                        d->src[(((n * ic + g * p->icg + i) * in[0] + x) * in[1] + y) * in[2] + z];
                    double w =
                        d->wei[((((g * p->ocg + oo) * p->icg + i) * k[0] + a) * k[1] + b) * k[2] +
                               c];
                    acc += s * w;
                    mag += fabs(s * w);
                }
    double kk = (double)(p->icg * k[0] * k[1] * k[2] + 1);
    double err = kk * 0x1p-23 * mag + 1e-30;
    int64_t di = (((n * p->g * p->ocg + oc) * od[0] + o[0]) * od[1] + o[1]) * od[2] + o[2];
    float v = (float)acc;
    for (int q = 0; q < p->npost; q++) {
        const cpost *pp = &p->post[q];
        if (pp->kind == LG_POST_SUM) {
            double t = (double)pp->alpha * d->old[di];
            v = v + (float)t;
            err += 0x1p-23 * (fabs(t) + fabs((double)v));
        } else {
            double x = fabs((double)v) + err;
            v = lg__eltwise_fwd(pp->alg, pp->alpha, pp->beta, v);
            err = err * post_lip(pp, x) + 0x1p-18 * fabs((double)v) + 1e-30;
        }
    }
    *want = v;
    *tol = err;
}

/* Scatter a logical row-major array into a buffer laid out as md. */
static inline void cp_scatter(const lg_md *md, const float *logical, float *buf) {
    int64_t idx[LG_MAX_NDIMS] = {0}, i = 0;
    if (cp_prod(md->dims, md->ndims) == 0) return;
    do {
        buf[lg_md_offset(md, idx)] = logical[i++];
    } while (cp_next(idx, md->dims, md->ndims));
}

#define CP_GUARD 256

/* A buffer of md's size plus a guard of CP_GUARD bytes of 0xA5, padding
 * and gaps filled with `fill` bytes. */
static inline float *cp_alloc(const lg_md *md, int fill) {
    size_t sz = lg_md_size(md);
    unsigned char *p = aligned_alloc(64, (sz + CP_GUARD + 63) & ~(size_t)63);
    memset(p, fill, sz);
    memset(p + sz, 0xA5, CP_GUARD);
    return (float *)p;
}

static inline void cp_check_guard(const lg_md *md, const float *buf, const char *what) {
    size_t sz = lg_md_size(md);
    const unsigned char *p = (const unsigned char *)buf + sz;
    for (int i = 0; i < CP_GUARD; i++)
        cr_assert_eq(p[i], 0xA5, "%s: byte %d past the buffer was written", what, i);
}

/* Check every padding element of a blocked buffer is zero. */
static inline void cp_check_padding(const lg_md *md, const float *buf, const char *what) {
    bool padded = false;
    for (int d = 0; d < md->ndims; d++) padded = padded || md->padded_dims[d] != md->dims[d];
    if (!padded) return;
    int64_t idx[LG_MAX_NDIMS] = {0};
    /* lg_md_offset refuses padding indices: walk the padded box by hand
     * through the blocking description. */
    int64_t blk[LG_MAX_NDIMS];
    for (int d = 0; d < md->ndims; d++) blk[d] = 1;
    for (int b = 0; b < md->blocking.inner_nblks; b++)
        blk[md->blocking.inner_idxs[b]] *= md->blocking.inner_blks[b];
    do {
        bool pad = false;
        for (int d = 0; d < md->ndims; d++) pad = pad || idx[d] >= md->dims[d];
        if (!pad) continue;
        int64_t off = md->offset0, rem[LG_MAX_NDIMS];
        for (int d = 0; d < md->ndims; d++) {
            off += idx[d] / blk[d] * md->blocking.strides[d];
            rem[d] = idx[d] % blk[d];
        }
        int64_t inner = 0;
        int64_t sub[LG_MAX_NDIMS];
        for (int d = 0; d < md->ndims; d++) sub[d] = blk[d];
        for (int b = 0; b < md->blocking.inner_nblks; b++) {
            int d = md->blocking.inner_idxs[b];
            int64_t bs = md->blocking.inner_blks[b];
            sub[d] /= bs;
            inner = inner * bs + rem[d] / sub[d] % bs;
        }
        off += inner;
        cr_assert_eq(buf[off], 0.0f, "%s: padding element at offset %lld is %g", what,
                     (long long)off, (double)buf[off]);
    } while (cp_next(idx, md->padded_dims, md->ndims));
}

/* Create the kernel of problem p with the given tags (NULL: "any"), run it
 * on d and compare with the truth. Returns the kernel's impl name (static
 * storage of this call). The kernel must be creatable. */
static inline const char *cp_run_out(const cprob *p, const cdata *d, const char *stag,
                                     const char *wtag, const char *dtag, const char *what,
                                     float *got_out);
static inline const char *cp_run(const cprob *p, const cdata *d, const char *stag, const char *wtag,
                                 const char *dtag, const char *what) {
    return cp_run_out(p, d, stag, wtag, dtag, what, NULL);
}

/* cp_run, also copying the result into got_out (logical row-major order)
 * when it is not NULL. */
static inline const char *cp_run_out(const cprob *p, const cdata *d, const char *stag,
                                     const char *wtag, const char *dtag, const char *what,
                                     float *got_out) {
    static char impl[64];
    int64_t sd[6], wd[6], dd[6];
    int ns = cp_src_dims(p, sd), nw = cp_wei_dims(p, wd), nds = cp_dst_dims(p, dd);
    lg_md sm, wm, dm, bm;
    cr_assert_eq(lg_md_init_tag(&sm, ns, sd, LG_F32, stag ? stag : "any"), LG_OK, "%s: %s", what,
                 lg_last_error());
    cr_assert_eq(lg_md_init_tag(&wm, nw, wd, LG_F32, wtag ? wtag : "any"), LG_OK, "%s: %s", what,
                 lg_last_error());
    cr_assert_eq(lg_md_init_tag(&dm, nds, dd, LG_F32, dtag ? dtag : "any"), LG_OK, "%s: %s", what,
                 lg_last_error());
    int64_t oc = p->g * p->ocg;
    cr_assert_eq(lg_md_init_tag(&bm, 1, &oc, LG_F32, "a"), LG_OK);
    lg_conv_params cp;
    cp_params(p, &cp);
    lg_attr *attr = cp_attr(p);
    lg_kernel *k = NULL;
    lg_status s = lg_conv_create(&k, &cp, &sm, &wm, p->bias ? &bm : NULL, &dm, attr);
    lg_attr_destroy(attr);
    cr_assert_eq(s, LG_OK, "%s: create: %s", what, lg_last_error());
    snprintf(impl, sizeof impl, "%s", lg_kernel_impl(k));
    lg_md qs, qw, qd;
    cr_assert_eq(lg_kernel_query_md(k, LG_ARG_SRC, &qs), LG_OK);
    cr_assert_eq(lg_kernel_query_md(k, LG_ARG_WEIGHTS, &qw), LG_OK);
    cr_assert_eq(lg_kernel_query_md(k, LG_ARG_DST, &qd), LG_OK);
    if (stag) cr_assert(lg_md_equal(&qs, &sm), "%s: src md changed", what);
    if (wtag) cr_assert(lg_md_equal(&qw, &wm), "%s: weights md changed", what);
    if (dtag) cr_assert(lg_md_equal(&qd, &dm), "%s: dst md changed", what);
    float *sb = cp_alloc(&qs, 0), *wb = cp_alloc(&qw, 0), *bb = cp_alloc(&bm, 0);
    float *db = cp_alloc(&qd, 0);
    cp_scatter(&qs, d->src, sb);
    cp_scatter(&qw, d->wei, wb);
    cp_scatter(&bm, d->bias, bb);
    /* dst: garbage (NaN bytes) in padding and gaps, old values in place. */
    memset(db, 0xFF, lg_md_size(&qd));
    cp_scatter(&qd, d->old, db);
    lg_arg args[4] = {{LG_ARG_SRC, sb}, {LG_ARG_WEIGHTS, wb}, {LG_ARG_DST, db}, {LG_ARG_BIAS, bb}};
    s = lg_kernel_execute(k, p->bias ? 4 : 3, args);
    cr_assert_eq(s, LG_OK, "%s: execute: %s", what, lg_last_error());
    /* Compare. */
    int64_t idx[LG_MAX_NDIMS] = {0}, i = 0;
    if (cp_prod(dd, nds) > 0) {
        do {
            double want = d->want[i], tol = d->tol[i];
            i++;
            float got = db[lg_md_offset(&qd, idx)];
            if (got_out) got_out[i - 1] = got;
            if (fabs((double)got - want) <= tol || (isnan(want) && isnan(got))) continue;
            int64_t o3[3] = {0, 0, 0};
            for (int j = 0; j < p->nsp; j++) o3[3 - p->nsp + j] = idx[2 + j];
            cr_assert(0, "%s (%s): dst[%lld,%lld,%lld,%lld,%lld] = %.9g, want %.9g (tol %.3g)",
                      what, impl, (long long)idx[0], (long long)idx[1], (long long)o3[0],
                      (long long)o3[1], (long long)o3[2], (double)got, want, tol);
        } while (cp_next(idx, dd, nds));
    }
    cp_check_padding(&qd, db, what);
    cp_check_guard(&qd, db, what);
    cp_check_guard(&qs, sb, what);
    cp_check_guard(&qw, wb, what);
    free(sb);
    free(wb);
    free(bb);
    free(db);
    lg_kernel_destroy(k);
    return impl;
}

#endif /* LG_TEST_CONV_UTIL_H */
