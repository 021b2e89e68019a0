/* Convolution in bf16 / f16 / int8 with scales, zero points, typed sums,
 * binary and eltwise post-ops (quant.h): seeded random problems in the three
 * layout families (plain, channels-last, channel-blocked "any") at every ISA
 * cap, each checked
 *  - bit for bit against the scalar reference lg__convq_ref (the data are
 *    small integers, so every f32 sum is exact and the fast path must give
 *    the reference's bits), and
 *  - against an independent model in this file (double arithmetic over
 *    logical indices, int64 sums for int8): within one unit of the last place
 *    of dst's type (integers: 1, the rounding of a .5 tie computed in double
 *    against f32; floats: 1e-5 relative, or one bf16 / f16 step);
 * plus full-range int8 data with large reductions (the split and reference
 * modes of the conversion path), hand-computed cases and the argument
 * checks. */
#include "memory/convert.h"
#include "memory/md.h"
#include "primitives/conv/quant.h"
#include "primitives/cpu.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng_state;
static uint32_t rnd(void) {
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (uint32_t)(rng_state >> 33);
}
static int64_t rint_in(int64_t lo, int64_t hi) { /* [lo, hi] */
    return lo + (int64_t)(rnd() % (uint32_t)(hi - lo + 1));
}

static void *alloc_md(const lg_md *md) {
    size_t n = lg_md_size(md);
    void *p = aligned_alloc(64, (n + 63) / 64 * 64 + 64);
    cr_assert(p);
    memset(p, 0, (n + 63) / 64 * 64 + 64);
    return p;
}

static double get(const lg_md *md, const void *buf, const int64_t *idx) {
    int64_t off = lg__md_off(md, idx);
    switch (md->dtype) {
    case LG_F32:
        return ((const float *)buf)[off];
    case LG_BF16:
        return lg__bf16_to_f32(((const uint16_t *)buf)[off]);
    case LG_F16:
        return lg__f16_to_f32(((const uint16_t *)buf)[off]);
    case LG_S32:
        return ((const int32_t *)buf)[off];
    case LG_S8:
        return ((const int8_t *)buf)[off];
    default:
        return ((const uint8_t *)buf)[off];
    }
}

static void put(const lg_md *md, void *buf, const int64_t *idx, double v) {
    int64_t off = lg__md_off(md, idx);
    switch (md->dtype) {
    case LG_F32:
        ((float *)buf)[off] = (float)v;
        break;
    case LG_BF16:
        ((uint16_t *)buf)[off] = lg__f32_to_bf16((float)v);
        break;
    case LG_F16:
        ((uint16_t *)buf)[off] = lg__f32_to_f16((float)v);
        break;
    case LG_S32:
        ((int32_t *)buf)[off] = (int32_t)v;
        break;
    case LG_S8:
        ((int8_t *)buf)[off] = (int8_t)v;
        break;
    default:
        ((uint8_t *)buf)[off] = (uint8_t)v;
    }
}

static bool next(int64_t *idx, const int64_t *dims, int nd) {
    for (int d = nd - 1; d >= 0; d--) {
        if (++idx[d] < dims[d]) return true;
        idx[d] = 0;
    }
    return false;
}

/* Fill md's logical elements with integers in [lo, hi]. */
static void fill(const lg_md *md, void *buf, int64_t lo, int64_t hi) {
    int64_t idx[LG_MAX_NDIMS] = {0};
    if (lg__md_nelems(md) == 0) return;
    do put(md, buf, idx, (double)rint_in(lo, hi));
    while (next(idx, md->dims, md->ndims));
}

static double sat(lg_dtype dt, double v) {
    if (dt == LG_S8) return fmin(127, fmax(-128, nearbyint(v)));
    if (dt == LG_U8) return fmin(255, fmax(0, nearbyint(v)));
    if (dt == LG_S32) return fmin(2147483647.0, fmax(-2147483648.0, nearbyint(v)));
    return v;
}

/* One random problem and its attributes. */
typedef struct problem {
    lg_conv_params p;
    int nsp;
    int64_t n, g, ic, oc, in[3], k[3], out[3];
    lg_dtype sdt, wdt, ddt, bdt;
    bool bias;
    int smask[3], zmask[3]; /* -1 none, 0 common, 1 per channel */
    float sum_beta;
    int32_t sum_zp;
    lg_dtype sum_dt;
    bool has_sum;
    int elt;         /* eltwise alg or -1 */
    float ea, eb;    /* its alpha, beta */
    int bin;         /* binary alg or -1 */
    bool bin_per_oc; /* src1 1 x OC x 1.. (else 1 x 1 x ..) */
} problem;

static const lg_dtype floats[3] = {LG_F32, LG_BF16, LG_F16};
static const lg_dtype dsts[6] = {LG_F32, LG_BF16, LG_F16, LG_S32, LG_S8, LG_U8};

static void draw(problem *pr, bool int8, bool full_range_k) {
    memset(pr, 0, sizeof *pr);
    pr->nsp = (int)rint_in(1, 3);
    pr->n = rint_in(1, 2);
    int kind = (int)rint_in(0, 2); /* dense, grouped, depthwise */
    pr->g = kind == 0 ? 1 : kind == 1 ? 2 : rint_in(2, 9);
    int64_t icg = kind == 2 ? 1 : rint_in(1, full_range_k ? 96 : 11);
    int64_t ocg = kind == 2 ? 1 : rint_in(1, 11);
    pr->ic = icg * pr->g;
    pr->oc = ocg * pr->g;
    pr->p.groups = pr->g;
    for (int i = 0; i < pr->nsp; i++) {
        pr->k[i] = rint_in(1, pr->nsp == 3 ? 2 : 3);
        pr->in[i] = rint_in(pr->k[i], pr->nsp == 3 ? 4 : 7);
        pr->p.strides[i] = rint_in(1, 2);
        pr->p.dilates[i] = pr->in[i] > 2 * pr->k[i] ? rint_in(0, 1) : 0;
        pr->p.pad_l[i] = rint_in(0, 1);
        pr->p.pad_r[i] = rint_in(0, 1);
        int64_t ek = (pr->k[i] - 1) * (pr->p.dilates[i] + 1) + 1;
        pr->out[i] = (pr->in[i] + pr->p.pad_l[i] + pr->p.pad_r[i] - ek) / pr->p.strides[i] + 1;
    }
    if (int8) {
        pr->sdt = rnd() % 2 ? LG_U8 : LG_S8;
        pr->wdt = LG_S8;
    } else {
        pr->sdt = floats[rnd() % 3];
        pr->wdt = floats[rnd() % 3];
    }
    pr->ddt = dsts[rnd() % 6];
    pr->bias = rnd() % 2;
    pr->bdt = floats[rnd() % 3];
    for (int i = 0; i < 3; i++) {
        pr->smask[i] = (int)(rnd() % 3) - 1;
        if (i != LG_CQ_WEI && pr->smask[i] > 0) pr->smask[i] = 0;
        pr->zmask[i] = int8 ? (int)(rnd() % 3) - 1 : -1;
        if (i == LG_CQ_WEI && pr->zmask[i] > 0) pr->zmask[i] = 0;
    }
    pr->has_sum = rnd() % 2;
    pr->sum_beta = (float)rint_in(-2, 2) * 0.5f;
    pr->sum_zp = rnd() % 2 ? (int32_t)rint_in(-2, 2) : 0;
    pr->sum_dt = LG_DT_UNDEF;
    if (rnd() % 3 == 0 && (pr->ddt == LG_S8 || pr->ddt == LG_U8))
        pr->sum_dt = pr->ddt == LG_S8 ? LG_U8 : LG_S8;
    static const int elts[6] = {LG_ELTWISE_RELU,  LG_ELTWISE_LINEAR, LG_ELTWISE_CLIP,
                                LG_ELTWISE_ROUND, LG_ELTWISE_SQUARE, LG_ELTWISE_ABS};
    pr->elt = rnd() % 2 ? elts[rnd() % 6] : -1;
    pr->ea = pr->elt == LG_ELTWISE_CLIP ? -4.0f : 0.5f;
    pr->eb = pr->elt == LG_ELTWISE_CLIP ? 60.0f : 1.0f;
    pr->bin = rnd() % 3 == 0 ? (int)(rnd() % 6) : -1;
    pr->bin_per_oc = rnd() % 2;
}

static void dims_of(const problem *pr, int64_t *sd, int64_t *wd, int *wnd, int64_t *dd) {
    sd[0] = dd[0] = pr->n;
    sd[1] = pr->ic;
    dd[1] = pr->oc;
    int w = 0;
    if (pr->g > 1) wd[w++] = pr->g;
    wd[w++] = pr->oc / pr->g;
    wd[w++] = pr->ic / pr->g;
    for (int i = 0; i < pr->nsp; i++) {
        sd[2 + i] = pr->in[i];
        dd[2 + i] = pr->out[i];
        wd[w++] = pr->k[i];
    }
    *wnd = w;
}

/* The independent model: dst's expected value at logical index idx. */
static double model(const problem *pr, const lg_md *s, const void *src, const lg_md *w,
                    const void *wei, const lg_md *b, const void *bias, const lg_md *d,
                    const void *dst_old, const float *const *scale, const int32_t *const *zp,
                    const lg_md *m1, const void *src1, const int64_t *idx) {
    int64_t oc = idx[1], ocg = pr->oc / pr->g, icg = pr->ic / pr->g;
    int64_t g = oc / ocg, o = oc % ocg;
    double acc = 0;
    int64_t tap[3] = {0, 0, 0};
    int64_t kd[3] = {1, 1, 1};
    for (int i = 0; i < pr->nsp; i++) kd[i] = pr->k[i];
    for (int64_t i = 0; i < icg; i++) {
        int64_t ic = g * icg + i;
        double zs = zp[0] ? zp[0][pr->zmask[0] > 0 ? ic : 0] : 0;
        double zw = zp[1] ? zp[1][0] : 0;
        memset(tap, 0, sizeof tap);
        do {
            int64_t si[5] = {idx[0], ic}, wi[6];
            bool inside = true;
            int wn = 0;
            if (pr->g > 1) wi[wn++] = g;
            wi[wn++] = o;
            wi[wn++] = i;
            for (int j = 0; j < pr->nsp; j++) {
                int64_t x = idx[2 + j] * pr->p.strides[j] - pr->p.pad_l[j] +
                            tap[j] * (pr->p.dilates[j] + 1);
                inside = inside && x >= 0 && x < pr->in[j];
                si[2 + j] = x;
                wi[wn++] = tap[j];
            }
            if (inside) acc += (get(s, src, si) - zs) * (get(w, wei, wi) - zw);
        } while (next(tap, kd, pr->nsp));
    }
    double v = w->dtype == LG_S8 ? (double)(float)acc : acc; /* s32 -> f32, as oneDNN */
    if (scale[0]) v *= scale[0][0];
    if (scale[1]) v *= scale[1][pr->smask[1] > 0 ? oc : 0];
    if (bias) v += get(b, bias, &oc);
    for (int step = 0; step < 3; step++) { /* the chain: sum, eltwise, binary */
        if (step == 0 && pr->has_sum) {
            lg_md sm = *d;
            if (pr->sum_dt != LG_DT_UNDEF) sm.dtype = pr->sum_dt;
            v += pr->sum_beta * (get(&sm, dst_old, idx) - pr->sum_zp);
        }
        if (step == 1 && pr->elt >= 0) {
            switch (pr->elt) {
            case LG_ELTWISE_RELU:
                v = v > 0 ? v : pr->ea * v;
                break;
            case LG_ELTWISE_LINEAR:
                v = pr->ea * v + pr->eb;
                break;
            case LG_ELTWISE_CLIP:
                v = fmin(fmax(v, pr->ea), pr->eb);
                break;
            case LG_ELTWISE_ROUND:
                v = nearbyint((float)v);
                break;
            case LG_ELTWISE_SQUARE:
                v = v * v;
                break;
            default:
                v = fabs(v);
            }
        }
        if (step == 2 && pr->bin >= 0) {
            int64_t i1[5] = {0, pr->bin_per_oc ? oc : 0, 0, 0, 0};
            double x = get(m1, src1, i1);
            switch (pr->bin) {
            case LG_BINARY_ADD:
                v += x;
                break;
            case LG_BINARY_SUB:
                v -= x;
                break;
            case LG_BINARY_MUL:
                v *= x;
                break;
            case LG_BINARY_DIV:
                v /= x;
                break;
            case LG_BINARY_MIN:
                v = fmin(v, x);
                break;
            default:
                v = fmax(v, x);
            }
        }
    }
    if (scale[2]) v /= scale[2][0];
    if (zp[2]) v += zp[2][pr->zmask[2] > 0 ? oc : 0];
    return sat(d->dtype, v);
}

static bool close_to(lg_dtype dt, double got, double want) {
    if (dt == LG_S32 || dt == LG_S8 || dt == LG_U8)
        return fabs(got - want) <= fmax(1.0, 1e-6 * fabs(want));
    if (isnan(want)) return isnan(got);
    if (isinf(want) || isinf(got)) return got == want || fabs(got - want) <= 1e-5 * fabs(got);
    double tol = dt == LG_F32 ? 1e-5 : dt == LG_BF16 ? 1.0 / 128 : 1.0 / 1024;
    return fabs(got - want) <= tol * fmax(fabs(want), 1.0) + 1e-6;
}

/* Build the problem in layout family fam (0 plain, 1 channels-last, 2 any,
 * 3 views: src and dst plain sub-memories at channel offsets 3 and 2 of
 * bigger buffers, so offset0 != 0 and dst's neighbours must stay untouched),
 * run it, and check it (see the top). data_hi: the magnitude of the data
 * (small: exact sums; 0: each type's full range). */
static void run_one(const problem *pr, int fam, int data_hi, const char *what) {
    int64_t sd[5], wd[6], dd[5];
    int wnd;
    dims_of(pr, sd, wd, &wnd, dd);
    int nd = pr->nsp + 2;
    static const char *const plain[4] = {"", "abc", "abcd", "abcde"};
    static const char *const last[4] = {"", "acb", "acdb", "acdeb"};
    static const char *const wplain[5] = {"", "", "abc", "abcd", "abcde"};
    const char *stag = fam == 1 ? last[nd - 2] : fam == 2 ? "any" : plain[nd - 2];
    char wtag[8];
    snprintf(wtag, sizeof wtag, "%s", fam == 2 ? "any" : wnd == 6 ? "abcdef" : wplain[wnd - 1]);
    lg_md s, w, b, d, m1;
    cr_assert_eq(lg_md_init_tag(&s, nd, sd, pr->sdt, stag), LG_OK);
    cr_assert_eq(lg_md_init_tag(&w, wnd, wd, pr->wdt, wtag), LG_OK);
    cr_assert_eq(lg_md_init_tag(&d, nd, dd, pr->ddt, stag), LG_OK);
    if (fam == 3) {
        lg_md ps, pd;
        int64_t psd[5], pdd[5], so[5] = {0, 3, 0, 0, 0}, dof[5] = {0, 2, 0, 0, 0};
        memcpy(psd, sd, sizeof psd);
        memcpy(pdd, dd, sizeof pdd);
        psd[1] += 5;
        pdd[1] += 4;
        cr_assert_eq(lg_md_init_tag(&ps, nd, psd, pr->sdt, stag), LG_OK);
        cr_assert_eq(lg_md_init_tag(&pd, nd, pdd, pr->ddt, stag), LG_OK);
        cr_assert_eq(lg_md_submemory(&ps, sd, so, &s), LG_OK);
        cr_assert_eq(lg_md_submemory(&pd, dd, dof, &d), LG_OK);
    }
    int64_t oc = pr->oc;
    cr_assert_eq(lg_md_init_tag(&b, 1, &oc, pr->bdt, "a"), LG_OK);
    int64_t d1[5] = {1, pr->bin_per_oc ? pr->oc : 1, 1, 1, 1};
    cr_assert_eq(lg_md_init_tag(&m1, nd, d1, LG_F32, plain[nd - 2]), LG_OK);
    lg_attr *attr;
    cr_assert_eq(lg_attr_create(&attr), LG_OK);
    static const int args[3] = {LG_ARG_SRC, LG_ARG_WEIGHTS, LG_ARG_DST};
    float *scale[3] = {NULL, NULL, NULL};
    int32_t *zp[3] = {NULL, NULL, NULL};
    for (int i = 0; i < 3; i++) {
        int64_t cnt = i == LG_CQ_SRC ? pr->ic : pr->oc;
        if (pr->smask[i] >= 0) {
            int m = pr->smask[i] ? (pr->g > 1 ? 3 : 1) : 0;
            cr_assert_eq(lg_attr_set_scales(attr, args[i], m), LG_OK);
            scale[i] = malloc(sizeof(float) * (size_t)cnt);
            for (int64_t k = 0; k < cnt; k++) scale[i][k] = (float)rint_in(1, 8) * 0.25f;
        }
        if (pr->zmask[i] >= 0) {
            cr_assert_eq(lg_attr_set_zero_points(attr, args[i], pr->zmask[i] ? 2 : 0), LG_OK);
            zp[i] = malloc(sizeof(int32_t) * (size_t)cnt);
            for (int64_t k = 0; k < cnt; k++) zp[i][k] = (int32_t)rint_in(-3, 3);
        }
    }
    if (pr->has_sum)
        cr_assert_eq(lg_attr_append_sum_dt(attr, pr->sum_beta, pr->sum_zp, pr->sum_dt), LG_OK);
    if (pr->elt >= 0)
        cr_assert_eq(lg_attr_append_eltwise(attr, (lg_eltwise_alg)pr->elt, pr->ea, pr->eb), LG_OK);
    if (pr->bin >= 0) cr_assert_eq(lg_attr_append_binary(attr, (lg_binary_alg)pr->bin, &m1), LG_OK);
    lg_kernel *k = NULL;
    lg_status st = lg_conv_create(&k, &pr->p, &s, &w, pr->bias ? &b : NULL, &d, attr);
    cr_assert_eq(st, LG_OK, "%s: %s", what, lg_last_error());
    cr_assert_eq(lg_kernel_query_md(k, LG_ARG_SRC, &s), LG_OK);
    cr_assert_eq(lg_kernel_query_md(k, LG_ARG_WEIGHTS, &w), LG_OK);
    cr_assert_eq(lg_kernel_query_md(k, LG_ARG_DST, &d), LG_OK);
    void *src = alloc_md(&s), *wei = alloc_md(&w), *bias = alloc_md(&b), *dst = alloc_md(&d);
    void *old = alloc_md(&d), *want = alloc_md(&d), *src1 = alloc_md(&m1);
    bool i8 = pr->wdt == LG_S8;
    if (data_hi)
        fill(&s, src, i8 && pr->sdt == LG_U8 ? 0 : -data_hi, data_hi);
    else
        fill(&s, src, pr->sdt == LG_U8 ? 0 : -128, pr->sdt == LG_U8 ? 255 : 127);
    fill(&w, wei, data_hi ? -data_hi : -128, data_hi ? data_hi : 127);
    fill(&b, bias, -8, 8);
    fill(&d, old, pr->ddt == LG_U8 ? 0 : -6, 6);
    fill(&m1, src1, 1, 4);
    memcpy(dst, old, lg_md_size(&d));
    memcpy(want, old, lg_md_size(&d));
    lg_arg a[16];
    int na = 0;
    a[na++] = (lg_arg){LG_ARG_SRC, src};
    a[na++] = (lg_arg){LG_ARG_WEIGHTS, wei};
    a[na++] = (lg_arg){LG_ARG_DST, dst};
    if (pr->bias) a[na++] = (lg_arg){LG_ARG_BIAS, bias};
    for (int i = 0; i < 3; i++) {
        if (scale[i]) a[na++] = (lg_arg){LG_ARG_ATTR_SCALES | args[i], scale[i]};
        if (zp[i]) a[na++] = (lg_arg){LG_ARG_ATTR_ZERO_POINTS | args[i], zp[i]};
    }
    int bin_i = (pr->has_sum ? 1 : 0) + (pr->elt >= 0 ? 1 : 0);
    if (pr->bin >= 0) a[na++] = (lg_arg){LG_ARG_ATTR_POST_OP_SRC1(bin_i), src1};
    st = lg_kernel_execute(k, na, a);
    cr_assert_eq(st, LG_OK, "%s: %s", what, lg_last_error());
    /* 1. the scalar reference, bit for bit */
    lg__convq_pd q;
    cr_assert_eq(lg__convq_query(&pr->p, &s, &w, pr->bias ? &b : NULL, &d, attr, "test", &q),
                 LG_OK);
    lg__conv_tabs t;
    cr_assert_eq(lg__conv_tabs_init(&q.f, &t), LG_OK);
    lg__convq_args ra;
    memset(&ra, 0, sizeof ra);
    ra.src = src;
    ra.wei = wei;
    ra.bias = pr->bias ? bias : NULL;
    ra.dst = want;
    for (int i = 0; i < 3; i++) {
        ra.scale[i] = scale[i];
        ra.zp[i] = zp[i];
    }
    ra.src1[bin_i] = src1;
    lg__convq_ref(&q, &t, &ra);
    lg__conv_tabs_free(&t);
    size_t bytes = lg_md_size(&d);
    if (memcmp(dst, want, bytes)) {
        size_t es = lg_dtype_size(d.dtype), i = 0;
        while (memcmp((char *)dst + i * es, (char *)want + i * es, es)) i++;
        for (size_t j = 0; j < bytes / es; j++)
            if (memcmp((char *)dst + j * es, (char *)want + j * es, es)) i = j;
        cr_assert_fail("%s (impl %s): element at offset %zu differs from the reference", what,
                       lg_kernel_impl(k), i);
    }
    /* 2. the independent model */
    const float *sc[3] = {scale[0], scale[1], scale[2]};
    const int32_t *zc[3] = {zp[0], zp[1], zp[2]};
    int64_t idx[5] = {0};
    if (lg__md_nelems(&d)) do {
            double wv = model(pr, &s, src, &w, wei, &b, pr->bias ? bias : NULL, &d, old, sc, zc,
                              &m1, pr->bin >= 0 ? src1 : NULL, idx);
            double gv = get(&d, dst, idx);
            cr_assert(close_to(d.dtype, gv, wv),
                      "%s (impl %s): dst(%lld, %lld, ...) = %g, model %g", what, lg_kernel_impl(k),
                      (long long)idx[0], (long long)idx[1], gv, wv);
        } while (next(idx, d.dims, nd));
    lg_kernel_destroy(k);
    lg_attr_destroy(attr);
    for (int i = 0; i < 3; i++) {
        free(scale[i]);
        free(zp[i]);
    }
    free(src);
    free(wei);
    free(bias);
    free(dst);
    free(old);
    free(want);
    free(src1);
}

static void sweep(bool int8, int count, int data_hi, bool big_k, uint64_t seed) {
    for (int isa = 0; isa <= (int)lg__cpu_isa_hw(); isa++) {
        lg__cpu_set_isa_cap(isa);
        rng_state = seed + (uint64_t)isa;
        for (int c = 0; c < count; c++) {
            problem pr;
            draw(&pr, int8, big_k);
            /* the model computes clip / round in double: keep the integer
             * results away from .5 ties by leaving the dst scale off */
            for (int fam = 0; fam < 4; fam++) {
                char what[64];
                snprintf(what, sizeof what, "isa %d problem %d family %d", isa, c, fam);
                run_one(&pr, fam, data_hi, what);
            }
        }
    }
    lg__cpu_set_isa_cap(-1);
}

Test(conv_quant, floats_random) {
    sweep(false, 40, 3, false, 1);
}

Test(conv_quant, int8_random) {
    sweep(true, 40, 3, false, 2);
}

/* Full-range u8 / s8 data with reductions up to 96 x 27 taps: the sums leave
 * f32's exact range, so the split (16 * hi + lo) and reference modes run. */
Test(conv_quant, int8_full_range) {
    sweep(true, 12, 0, true, 3);
}

/* A case computed by hand: 1x1 conv, u8 src with zero point, s8 weights,
 * scales, bias, sum with a zero point, u8 dst. */
Test(conv_quant, hand) {
    lg_conv_params p = {{1, 1, 1}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, 1, LG_CONV_DIRECT};
    int64_t sd[4] = {1, 2, 1, 1}, wd[4] = {1, 2, 1, 1}, dd[4] = {1, 1, 1, 1}, bd = 1;
    lg_md s, w, b, d;
    lg_md_init_tag(&s, 4, sd, LG_U8, "nchw");
    lg_md_init_tag(&w, 4, wd, LG_S8, "oihw");
    lg_md_init_tag(&b, 1, &bd, LG_F32, "a");
    lg_md_init_tag(&d, 4, dd, LG_U8, "nchw");
    lg_attr *attr;
    lg_attr_create(&attr);
    cr_assert_eq(lg_attr_set_scales(attr, LG_ARG_SRC, 0), LG_OK);
    cr_assert_eq(lg_attr_set_scales(attr, LG_ARG_WEIGHTS, 1), LG_OK);
    cr_assert_eq(lg_attr_set_scales(attr, LG_ARG_DST, 0), LG_OK);
    cr_assert_eq(lg_attr_set_zero_points(attr, LG_ARG_SRC, 0), LG_OK);
    cr_assert_eq(lg_attr_set_zero_points(attr, LG_ARG_DST, 0), LG_OK);
    cr_assert_eq(lg_attr_append_sum_dt(attr, 0.5f, 4, LG_DT_UNDEF), LG_OK);
    lg_kernel *k;
    cr_assert_eq(lg_conv_create(&k, &p, &s, &w, &b, &d, attr), LG_OK, "%s", lg_last_error());
    uint8_t src[2] = {10, 20}, dst[1] = {14};
    int8_t wei[2] = {3, -1};
    float bias = 1.5f, ss = 0.5f, ws = 2.0f, ds = 0.25f;
    int32_t zs = 8, zd = 3;
    lg_arg a[9] = {{LG_ARG_SRC, src},
                   {LG_ARG_WEIGHTS, wei},
                   {LG_ARG_BIAS, &bias},
                   {LG_ARG_DST, dst},
                   {LG_ARG_ATTR_SCALES | LG_ARG_SRC, &ss},
                   {LG_ARG_ATTR_SCALES | LG_ARG_WEIGHTS, &ws},
                   {LG_ARG_ATTR_SCALES | LG_ARG_DST, &ds},
                   {LG_ARG_ATTR_ZERO_POINTS | LG_ARG_SRC, &zs},
                   {LG_ARG_ATTR_ZERO_POINTS | LG_ARG_DST, &zd}};
    cr_assert_eq(lg_kernel_execute(k, 9, a), LG_OK, "%s", lg_last_error());
    /* acc = (10-8)*3 + (20-8)*(-1) = -6; v = -6 * 0.5 * 2 + 1.5 = -4.5;
     * + 0.5 * (14 - 4) = 0.5; / 0.25 = 2; + 3 = 5 */
    cr_assert_eq(dst[0], 5);
    lg_kernel_destroy(k);
    lg_attr_destroy(attr);
}

/* bf16 in, bf16 out, by hand: 1.5 * 2 + 0.25 * 4 = 4. */
Test(conv_quant, hand_bf16) {
    lg_conv_params p = {{1, 1, 1}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, 1, LG_CONV_DIRECT};
    int64_t sd[3] = {1, 2, 1}, wd[3] = {1, 2, 1}, dd[3] = {1, 1, 1};
    lg_md s, w, d;
    lg_md_init_tag(&s, 3, sd, LG_BF16, "abc");
    lg_md_init_tag(&w, 3, wd, LG_BF16, "abc");
    lg_md_init_tag(&d, 3, dd, LG_BF16, "abc");
    lg_kernel *k;
    cr_assert_eq(lg_conv_create(&k, &p, &s, &w, NULL, &d, NULL), LG_OK, "%s", lg_last_error());
    uint16_t src[2] = {lg__f32_to_bf16(1.5f), lg__f32_to_bf16(0.25f)};
    uint16_t wei[2] = {lg__f32_to_bf16(2.0f), lg__f32_to_bf16(4.0f)}, dst[1] = {0};
    lg_arg a[3] = {{LG_ARG_SRC, src}, {LG_ARG_WEIGHTS, wei}, {LG_ARG_DST, dst}};
    cr_assert_eq(lg_kernel_execute(k, 3, a), LG_OK, "%s", lg_last_error());
    cr_assert_float_eq(lg__bf16_to_f32(dst[0]), 4.0f, 0);
    lg_kernel_destroy(k);
}

Test(conv_quant, refusals) {
    lg_conv_params p = {{1, 1, 1}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, 1, LG_CONV_DIRECT};
    int64_t sd[4] = {1, 4, 3, 3}, wd[4] = {4, 4, 1, 1};
    lg_md s, w, d, sf;
    lg_md_init_tag(&s, 4, sd, LG_U8, "nchw");
    lg_md_init_tag(&sf, 4, sd, LG_F32, "nchw");
    lg_md_init_tag(&w, 4, wd, LG_U8, "oihw");
    lg_md_init_tag(&d, 4, sd, LG_F32, "nchw");
    lg_kernel *k = NULL;
    /* u8 weights */
    cr_assert_eq(lg_conv_create(&k, &p, &s, &w, NULL, &d, NULL), LG_UNIMPLEMENTED);
    cr_assert(strstr(lg_last_error(), "lg_conv_create"));
    lg_md_init_tag(&w, 4, wd, LG_S8, "oihw");
    lg_attr *attr;
    lg_attr_create(&attr);
    /* per-channel src scales */
    lg_attr_set_scales(attr, LG_ARG_SRC, 2);
    cr_assert_eq(lg_conv_create(&k, &p, &s, &w, NULL, &d, attr), LG_UNIMPLEMENTED);
    lg_attr_set_scales(attr, LG_ARG_SRC, 0);
    /* zero points on an f32 conv */
    lg_attr_set_zero_points(attr, LG_ARG_SRC, 0);
    lg_md wf = w;
    wf.dtype = LG_F32;
    cr_assert_eq(lg_conv_create(&k, &p, &sf, &wf, NULL, &d, attr), LG_UNIMPLEMENTED);
    lg_attr_destroy(attr);
    /* weights scales and typed sums on other kernels */
    lg_attr_create(&attr);
    lg_attr_set_scales(attr, LG_ARG_WEIGHTS, 0);
    cr_assert_eq(lg_reorder_create(&k, &sf, &d, attr), LG_UNIMPLEMENTED);
    cr_assert_eq(lg_eltwise_create_attr(&k, LG_ELTWISE_RELU, 0, 0, &sf, &d, attr),
                 LG_UNIMPLEMENTED);
    lg_attr_destroy(attr);
    lg_attr_create(&attr);
    cr_assert_eq(lg_attr_append_sum_dt(attr, 1.0f, 2, LG_DT_UNDEF), LG_OK);
    cr_assert_eq(lg_reorder_create(&k, &sf, &d, attr), LG_UNIMPLEMENTED);
    cr_assert_eq(lg_attr_append_sum_dt(attr, NAN, 0, LG_DT_UNDEF), LG_INVALID_ARGUMENT);
    cr_assert_eq(lg_attr_append_sum_dt(attr, 1.0f, 0, (lg_dtype)99), LG_INVALID_ARGUMENT);
    lg_attr_destroy(attr);
}
