/* lg_eltwise_create through the public API: every algorithm against the
 * scalar reference (lg__eltwise_ref) on seeded random problems over layout
 * families, data types and ISA caps; in place; padding and gaps; hand values;
 * every bad input. Algorithms without a transcendental call must match the
 * reference bit for bit, the others within lg__eltwise_ulp_bound. */
#include "memory/convert.h"
#include "primitives/eltwise/eltwise.h"
#include "test_util.h"

#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NALGS 21

typedef struct layout {
    const char *name;
    const char *tag;        /* NULL: strides */
    const int64_t *strides; /* for lg_md_init_strides (gaps) */
} layout;

static const int64_t str_small[4] = {649, 16, 5, 1};   /* 2x40x3x3 with gaps */
static const int64_t str_step2[4] = {931, 23, 7, 2};   /* rows of stride 2 */
static const int64_t str_big[4] = {21905, 300, 17, 1}; /* 2x73x16x16 with gaps */

static lg_md make_md(int nd, const int64_t *dims, lg_dtype dt, const layout *l) {
    lg_md md;
    lg_status s = l->tag ? lg_md_init_tag(&md, nd, dims, dt, l->tag)
                         : lg_md_init_strides(&md, nd, dims, dt, l->strides);
    cr_assert_eq(s, LG_OK, "%s: %s", l->name, lg_last_error());
    return md;
}

/* Advance idx over [0, dims); false after the last. */
static bool next_idx(int64_t *idx, const int64_t *dims, int nd) {
    for (int d = nd - 1; d >= 0; d--) {
        if (++idx[d] < dims[d]) return true;
        idx[d] = 0;
    }
    return false;
}

/* Inputs that matter for each algorithm, mixed into the random values. */
static const float specials[] = {0.0f,     -0.0f,     1e-40f,  -1e-40f, FLT_MIN, -FLT_MIN,
                                 INFINITY, -INFINITY, NAN,     1e30f,   -1e30f,  88.72f,
                                 -87.4f,   -103.9f,   -104.5f, 1.0f,    -1.0f,   0.55f,
                                 -0.875f,  9.2f,      -14.0f,  3.0f,    -3.0f,   1e-8f};

static float random_value(lg_rng *r, int alg, lg_dtype dt) {
    if (lg_rng_int(r, 0, 9) == 0 && dt != LG_S32 && dt != LG_S8 && dt != LG_U8)
        return specials[lg_rng_int(r, 0, (int64_t)(sizeof specials / sizeof specials[0]) - 1)];
    switch (alg) {
    case LG_ELTWISE_EXP:
        return lg_rng_float(r, -110.0f, 95.0f);
    case LG_ELTWISE_ROUND: /* half the values ties */
        if (lg_rng_int(r, 0, 1)) return 0.5f * (float)lg_rng_int(r, -40, 40);
        return lg_rng_float(r, -12.0f, 12.0f);
    case LG_ELTWISE_LOG:
    case LG_ELTWISE_SQRT:
        return ldexpf(lg_rng_float(r, -0.05f, 1.0f), (int)lg_rng_int(r, -140, 120));
    default:
        return dt == LG_S32 || dt == LG_S8 || dt == LG_U8 ? lg_rng_float(r, -300.0f, 300.0f)
                                                          : lg_rng_float(r, -12.0f, 12.0f);
    }
}

/* Buffer for md: padding 0, gaps `gap` bytes, logical elements random. */
static void *make_src(const lg_md *md, lg_rng *r, int alg, int gap) {
    size_t sz = lg_md_size(md);
    void *p = malloc(sz + 64);
    memset(p, gap, sz + 64);
    if (md->blocking.inner_nblks) memset(p, 0, sz);
    int64_t idx[LG_MAX_NDIMS] = {0};
    if (lg__md_nelems(md) == 0) return p;
    do {
        lg__store_f32(p, md->dtype, lg_md_offset(md, idx), random_value(r, alg, md->dtype));
    } while (next_idx(idx, md->dims, md->ndims));
    return p;
}

static double ulp_f32(float want) {
    float a = fabsf(want);
    if (a < FLT_MIN) return 0x1p-149;
    int e;
    frexpf(a, &e);
    return ldexp(1.0, e - 24);
}

/* Compare every element of the buffers: exact where bound is 0, else
 * within bound ulps (f32) or 1 step of the 16-bit type. */
static void compare(const lg_md *md, const void *got, const void *want, double bound,
                    const char *what) {
    size_t sz = lg_md_size(md), esz = lg_dtype_size(md->dtype);
    if (bound == 0.0 || esz == 1 || md->dtype == LG_S32) {
        if (memcmp(got, want, sz) == 0) return;
        for (size_t i = 0; i < sz / esz; i++)
            cr_assert(memcmp((const char *)got + i * esz, (const char *)want + i * esz, esz) == 0,
                      "%s: element %zu: got %g, want %g", what, i,
                      (double)lg__load_f32(got, md->dtype, (int64_t)i),
                      (double)lg__load_f32(want, md->dtype, (int64_t)i));
        return;
    }
    for (size_t i = 0; i < sz / esz; i++) {
        float g = lg__load_f32(got, md->dtype, (int64_t)i);
        float w = lg__load_f32(want, md->dtype, (int64_t)i);
        if (isnan(w) || isnan(g)) {
            cr_assert(isnan(w) && isnan(g), "%s: element %zu: got %g, want %g", what, i, (double)g,
                      (double)w);
            continue;
        }
        if (g == w) continue;
        cr_assert(!isinf(g) && !isinf(w), "%s: element %zu: got %g, want %g", what, i, (double)g,
                  (double)w);
        if (md->dtype == LG_F32) {
            double e = fabs((double)g - (double)w) / ulp_f32(w);
            cr_assert(e <= bound, "%s: element %zu: got %a, want %a (%.2f ulp > %.2f)", what, i,
                      (double)g, (double)w, e, bound);
        } else {
            int16_t a, b;
            memcpy(&a, (const char *)got + i * 2, 2);
            memcpy(&b, (const char *)want + i * 2, 2);
            cr_assert((a ^ b) >= 0 && abs(a - b) <= 1, "%s: element %zu: got %g, want %g", what, i,
                      (double)g, (double)w);
        }
    }
}

/* ... pow, clip_v2, round, mish, soft_relu last. */
static const float alphas[NALGS] = {0.1f, 1.5f, 0,     0,        0,    0,      1.25f, 0, 0, 0,   0,
                                    0,    2.5f, -1.5f, 1.0f / 6, 0.2f, -0.75f, -1.5f, 0, 0, 0.5f};
static const float betas[NALGS] = {0, 0,      0,    0,    0,    0,    0,    0, 0, 0, 0,
                                   0, -0.75f, 4.0f, 0.5f, 0.5f, 1.5f, 4.0f, 0, 0, 0};

static bool int_alg(int alg) {
    return alg == LG_ELTWISE_RELU || alg == LG_ELTWISE_LINEAR || alg == LG_ELTWISE_CLIP ||
           alg == LG_ELTWISE_ABS || alg == LG_ELTWISE_CLIP_V2 || alg == LG_ELTWISE_ROUND;
}

/* One problem at the current ISA cap: out of place over garbage dst, and in
 * place; both against the reference. */
static void check_problem(int alg, const lg_md *md, lg_rng *r, const char *expect_path,
                          const char *what) {
    lg__eltwise_pd pd;
    memset(&pd, 0, sizeof pd);
    pd.md = *md;
    pd.alg = alg;
    pd.alpha = alphas[alg];
    pd.beta = betas[alg];
    lg_kernel *k = NULL;
    cr_assert_eq(lg_eltwise_create(&k, alg, pd.alpha, pd.beta, md, NULL), LG_OK, "%s: %s", what,
                 lg_last_error());
    if (expect_path) {
        char want[64];
        snprintf(want, sizeof want, "eltwise:%s:%s", lg__isa_name(lg__cpu_isa()), expect_path);
        cr_assert_str_eq(lg_kernel_impl(k), want, "%s", what);
    }
    size_t sz = lg_md_size(md);
    void *src = make_src(md, r, alg, 0x5a);
    void *dst = malloc(sz + 64), *ref = malloc(sz + 64), *inp = malloc(sz + 64);
    memset(dst, 0xa7, sz + 64); /* garbage, a finite float */
    memcpy(ref, dst, sz + 64);
    lg__eltwise_ref(&pd, src, ref);
    lg_arg args[2] = {{LG_ARG_SRC, src}, {LG_ARG_DST, dst}};
    cr_assert_eq(lg_kernel_execute(k, 2, args), LG_OK, "%s: %s", what, lg_last_error());
    double bound = lg__eltwise_ulp_bound(alg);
    compare(md, dst, ref, bound, what);
    /* In place: the gaps keep src's bytes, the padding stays zero. */
    memcpy(inp, src, sz + 64);
    memcpy(ref, src, sz + 64);
    lg__eltwise_ref(&pd, src, ref);
    lg_arg args2[2] = {{LG_ARG_SRC, inp}, {LG_ARG_DST, inp}};
    cr_assert_eq(lg_kernel_execute(k, 2, args2), LG_OK, "%s in place: %s", what, lg_last_error());
    compare(md, inp, ref, bound, what);
    free(src);
    free(dst);
    free(ref);
    free(inp);
    lg_kernel_destroy(k);
}

static const layout layouts[] = {
    {"nchw", "nchw", NULL},       {"nhwc", "nhwc", NULL},       {"nChw4c", "aBcd4b", NULL},
    {"nChw8c", "aBcd8b", NULL},   {"nChw16c", "aBcd16b", NULL}, {"strided", NULL, str_small},
    {"stride2", NULL, str_step2},
};

/* Every algorithm over the layouts, for dtype dt, at every ISA cap. */
static void sweep(lg_dtype dt, uint64_t seed) {
    lg_rng r = {seed};
    int64_t dims[4] = {2, 40, 3, 3};
    for (int isa = 0; isa <= (int)lg__cpu_isa_hw(); isa++) {
        lg__cpu_set_isa_cap(isa);
        for (int alg = 0; alg < NALGS; alg++) {
            if ((dt == LG_S32 || dt == LG_S8 || dt == LG_U8) && !int_alg(alg)) continue;
            for (size_t l = 0; l < sizeof layouts / sizeof layouts[0]; l++) {
                lg_md md = make_md(4, dims, dt, &layouts[l]);
                char what[96];
                snprintf(what, sizeof what, "%s alg %d %s isa %d", lg_dtype_str(dt), alg,
                         layouts[l].name, isa);
                check_problem(alg, &md, &r, layouts[l].tag ? "dense" : "strided", what);
            }
        }
    }
    lg__cpu_set_isa_cap(-1);
}

Test(eltwise, f32_all_algs_layouts_isas) {
    sweep(LG_F32, 1);
}
Test(eltwise, bf16_all_algs) {
    sweep(LG_BF16, 2);
}
Test(eltwise, f16_all_algs) {
    sweep(LG_F16, 3);
}
Test(eltwise, s32_s8_u8_int_algs) {
    sweep(LG_S32, 4);
    sweep(LG_S8, 5);
    sweep(LG_U8, 6);
}

/* Raw bits in non-f32 types through the algorithms the kernels match bit
 * for bit (bound 0): every 16-bit pattern class (signalling and quiet NaNs
 * with payloads, infinities, subnormals, -0) and the whole integer ranges,
 * in the vector conversions' full vectors and tails, at every ISA cap. */
Test(eltwise, raw_bits_in_every_type) {
    lg_rng r = {77};
    static const lg_dtype dts[5] = {LG_F16, LG_BF16, LG_S32, LG_S8, LG_U8};
    int64_t dims[4] = {3, 37, 5, 7}; /* 3885 elements: chunks and a tail */
    const layout ls[2] = {{"nchw", "nchw", NULL}, {"nChw16c", "aBcd16b", NULL}};
    for (int isa = 0; isa <= (int)lg__cpu_isa_hw(); isa++) {
        lg__cpu_set_isa_cap(isa);
        for (int t = 0; t < 5; t++)
            for (int alg = 0; alg < NALGS; alg++) {
                bool ints = dts[t] == LG_S32 || dts[t] == LG_S8 || dts[t] == LG_U8;
                if (lg__eltwise_ulp_bound(alg) != 0.0 || (ints && !int_alg(alg))) continue;
                for (int l = 0; l < 2; l++) {
                    lg_md md = make_md(4, dims, dts[t], &ls[l]);
                    lg__eltwise_pd pd;
                    memset(&pd, 0, sizeof pd);
                    pd.md = md;
                    pd.alg = alg;
                    pd.alpha = alphas[alg];
                    pd.beta = betas[alg];
                    size_t sz = lg_md_size(&md), esz = lg_dtype_size(dts[t]);
                    uint8_t *src = calloc(sz, 1), *got = malloc(sz), *want = malloc(sz);
                    int64_t idx[4] = {0};
                    do { /* raw bits in the elements, the padding stays zero */
                        uint32_t v = (uint32_t)lg_rng_next(&r);
                        memcpy(src + lg_md_offset(&md, idx) * (int64_t)esz, &v, esz);
                    } while (next_idx(idx, dims, 4));
                    memset(got, 0xa7, sz);
                    memset(want, 0xa7, sz);
                    lg__eltwise_ref(&pd, src, want);
                    lg_kernel *k;
                    cr_assert_eq(lg_eltwise_create(&k, alg, pd.alpha, pd.beta, &md, NULL), LG_OK);
                    lg_arg args[2] = {{LG_ARG_SRC, src}, {LG_ARG_DST, got}};
                    cr_assert_eq(lg_kernel_execute(k, 2, args), LG_OK);
                    char what[96];
                    snprintf(what, sizeof what, "%s alg %d %s isa %d (%s)", lg_dtype_str(dts[t]),
                             alg, ls[l].name, isa, lg_kernel_impl(k));
                    compare(&md, got, want, 0.0, what);
                    lg_kernel_destroy(k);
                    free(src);
                    free(got);
                    free(want);
                }
            }
    }
    lg__cpu_set_isa_cap(-1);
}

Test(eltwise, larger_tails_threaded) {
    /* 2x73x16x16: a channel tail in every blocked layout, enough work for
     * all threads, and a plain layout with gaps. */
    lg_rng r = {7};
    int64_t dims[4] = {2, 73, 16, 16};
    const layout big[] = {{"nChw16c", "aBcd16b", NULL},
                          {"nChw8c", "aBcd8b", NULL},
                          {"nhwc", "nhwc", NULL},
                          {"strided", NULL, str_big}};
    const int algs[] = {LG_ELTWISE_RELU, LG_ELTWISE_GELU_ERF, LG_ELTWISE_LOGISTIC, LG_ELTWISE_LOG,
                        LG_ELTWISE_LINEAR};
    for (int isa = 0; isa <= (int)lg__cpu_isa_hw(); isa++) {
        lg__cpu_set_isa_cap(isa);
        for (size_t a = 0; a < sizeof algs / sizeof algs[0]; a++)
            for (size_t l = 0; l < sizeof big / sizeof big[0]; l++) {
                lg_md md = make_md(4, dims, LG_F32, &big[l]);
                char what[96];
                snprintf(what, sizeof what, "alg %d %s isa %d", algs[a], big[l].name, isa);
                check_problem(algs[a], &md, &r, big[l].tag ? "dense" : "strided", what);
            }
    }
    lg__cpu_set_isa_cap(-1);
}

Test(eltwise, padding_zero_where_f0_is_not_zero) {
    /* f(0) != +0: logistic (0.5), exp (1), log (-inf), linear (beta), relu
     * with a negative slope (-0), hardsigmoid (beta). The padding of dst must
     * be +0 bits, out of place over garbage and in place. */
    int64_t dims[4] = {1, 17, 2, 3};
    lg_md md;
    lg_md_init_tag(&md, 4, dims, LG_F32, "nChw16c");
    const struct {
        int alg;
        float a, b;
    } cases[] = {{LG_ELTWISE_LOGISTIC, 0, 0}, {LG_ELTWISE_EXP, 0, 0},
                 {LG_ELTWISE_LOG, 0, 0},      {LG_ELTWISE_LINEAR, 2, 3},
                 {LG_ELTWISE_RELU, -1, 0},    {LG_ELTWISE_HARDSIGMOID, 0.2f, 0.5f}};
    for (int isa = 0; isa <= (int)lg__cpu_isa_hw(); isa++) {
        lg__cpu_set_isa_cap(isa);
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
            lg_kernel *k;
            cr_assert_eq(lg_eltwise_create(&k, cases[c].alg, cases[c].a, cases[c].b, &md, &md),
                         LG_OK);
            float src[32 * 6] = {0}, dst[32 * 6];
            for (int i = 0; i < 32 * 6; i++) src[i] = (i % 32) < 17 ? -0.5f * (float)i : 0.0f;
            /* nChw16c: offset ((c / 16) * 6 + hw) * 16 + c % 16. */
            memset(dst, 0xff, sizeof dst);
            lg_arg args[2] = {{LG_ARG_SRC, src}, {LG_ARG_DST, dst}};
            for (int pass = 0; pass < 2; pass++) {
                cr_assert_eq(lg_kernel_execute(k, 2, args), LG_OK);
                float *out = args[1].data;
                for (int cb = 0; cb < 2; cb++)
                    for (int hw = 0; hw < 6; hw++)
                        for (int l = 0; l < 16; l++) {
                            int ch = cb * 16 + l, off = (cb * 6 + hw) * 16 + l;
                            uint32_t bits = lg__f32_bits(out[off]);
                            if (ch >= 17)
                                cr_assert_eq(bits, 0u, "alg %d pass %d c%d: %08x", cases[c].alg,
                                             pass, ch, bits);
                        }
                args[1].data = src; /* second pass: in place */
            }
            lg_kernel_destroy(k);
        }
    }
    lg__cpu_set_isa_cap(-1);
}

Test(eltwise, hand_values) {
    const struct {
        int alg;
        float a, b, x, want;
    } v[] = {
        {LG_ELTWISE_RELU, 0.5f, 0, -2.0f, -1.0f},
        {LG_ELTWISE_RELU, 0.5f, 0, 3.0f, 3.0f},
        {LG_ELTWISE_ELU, 2.0f, 0, -1.0f, -1.2642411f}, /* 2 (e^-1 - 1) */
        {LG_ELTWISE_ELU, 2.0f, 0, 1.5f, 1.5f},
        {LG_ELTWISE_TANH, 0, 0, 0.5f, 0.46211716f},
        {LG_ELTWISE_LOGISTIC, 0, 0, 0.0f, 0.5f},
        {LG_ELTWISE_LOGISTIC, 0, 0, 2.0f, 0.88079708f},
        {LG_ELTWISE_GELU_TANH, 0, 0, 1.0f, 0.84119199f},
        {LG_ELTWISE_GELU_ERF, 0, 0, 1.0f, 0.84134475f},
        {LG_ELTWISE_GELU_ERF, 0, 0, -1.0f, -0.15865525f},
        {LG_ELTWISE_SWISH, 1.0f, 0, 1.0f, 0.73105858f},
        {LG_ELTWISE_SWISH, 2.0f, 0, -1.0f, -0.11920292f},
        {LG_ELTWISE_EXP, 0, 0, 1.0f, 2.7182818f},
        {LG_ELTWISE_LOG, 0, 0, 10.0f, 2.3025851f},
        {LG_ELTWISE_ABS, 0, 0, -3.0f, 3.0f},
        {LG_ELTWISE_SQRT, 0, 0, 2.0f, 1.4142135f},
        {LG_ELTWISE_SQUARE, 0, 0, -3.0f, 9.0f},
        {LG_ELTWISE_LINEAR, 3.0f, -1.0f, 2.0f, 5.0f},
        {LG_ELTWISE_CLIP, 0.0f, 3.0f, 5.0f, 3.0f},
        {LG_ELTWISE_CLIP, 0.0f, 3.0f, -5.0f, 0.0f},
        {LG_ELTWISE_HARDSWISH, 1.0f / 6, 0.5f, 1.0f, 0.66666669f},
        {LG_ELTWISE_HARDSWISH, 1.0f / 6, 0.5f, 4.0f, 4.0f},
        {LG_ELTWISE_HARDSIGMOID, 1.0f / 6, 0.5f, -4.0f, 0.0f},
        {LG_ELTWISE_HARDSIGMOID, 1.0f / 6, 0.5f, 1.0f, 0.66666669f},
        {LG_ELTWISE_POW, 2.0f, 3.0f, -1.5f, -6.75f},
        {LG_ELTWISE_POW, 0.5f, 0.5f, 4.0f, 1.0f},
        {LG_ELTWISE_POW, 3.0f, 0.0f, -7.0f, 3.0f}, /* x^0 = 1 */
        {LG_ELTWISE_CLIP_V2, -1.0f, 2.0f, 5.0f, 2.0f},
        {LG_ELTWISE_CLIP_V2, -1.0f, 2.0f, -5.0f, -1.0f},
        {LG_ELTWISE_ROUND, 0, 0, 2.5f, 2.0f}, /* ties to even */
        {LG_ELTWISE_ROUND, 0, 0, -3.5f, -4.0f},
        {LG_ELTWISE_ROUND, 0, 0, 1.25f, 1.0f},
        {LG_ELTWISE_MISH, 0, 0, 1.0f, 0.86509839f},   /* tanh(ln(1 + e)) */
        {LG_ELTWISE_MISH, 0, 0, -2.0f, -0.25250148f}, /* -2 tanh(ln(1 + e^-2)) */
        {LG_ELTWISE_MISH, 0, 0, 100.0f, 100.0f},
        {LG_ELTWISE_SOFT_RELU, 1.0f, 0, 0.0f, 0.69314718f},   /* ln 2 */
        {LG_ELTWISE_SOFT_RELU, 0.5f, 0, 2.0f, 2.6265233f},    /* 2 ln(1 + e) */
        {LG_ELTWISE_SOFT_RELU, -1.0f, 0, 1.0f, -0.31326169f}, /* -ln(1 + e^-1) */
        {LG_ELTWISE_SOFT_RELU, 1.0f, 0, 200.0f, 200.0f},
    };
    int64_t dims[1] = {1};
    lg_md md;
    lg_md_init_tag(&md, 1, dims, LG_F32, "a");
    for (int isa = 0; isa <= (int)lg__cpu_isa_hw(); isa++) {
        lg__cpu_set_isa_cap(isa);
        for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
            lg_kernel *k;
            cr_assert_eq(lg_eltwise_create(&k, v[i].alg, v[i].a, v[i].b, &md, NULL), LG_OK);
            float x = v[i].x, y = NAN;
            lg_arg args[2] = {{LG_ARG_SRC, &x}, {LG_ARG_DST, &y}};
            cr_assert_eq(lg_kernel_execute(k, 2, args), LG_OK);
            cr_assert(fabsf(y - v[i].want) <= 2e-7f * fabsf(v[i].want),
                      "alg %d isa %d: f(%g) = %.9g, want %.9g", v[i].alg, isa, (double)x, (double)y,
                      (double)v[i].want);
            lg_kernel_destroy(k);
        }
    }
    lg__cpu_set_isa_cap(-1);
}

Test(eltwise, blocked_with_gaps_takes_ref_and_empty_is_fine) {
    int64_t dims[4] = {2, 20, 3, 3};
    lg_md md;
    lg_md_init_tag(&md, 4, dims, LG_F32, "nChw16c");
    md.blocking.strides[0] += 16; /* a gap between images: blocked, not dense */
    lg_rng r = {9};
    check_problem(LG_ELTWISE_GELU_TANH, &md, &r, NULL, "gapped nChw16c");
    lg_kernel *k;
    cr_assert_eq(lg_eltwise_create(&k, LG_ELTWISE_RELU, 0, 0, &md, &md), LG_OK);
    cr_assert_str_eq(lg_kernel_impl(k), "eltwise:ref");
    lg_kernel_destroy(k);
    int64_t zero[4] = {2, 0, 3, 3};
    lg_md e;
    lg_md_init_tag(&e, 4, zero, LG_F32, "nChw16c");
    cr_assert_eq(lg_eltwise_create(&k, LG_ELTWISE_EXP, 0, 0, &e, NULL), LG_OK);
    lg_arg args[2] = {{LG_ARG_SRC, NULL}, {LG_ARG_DST, NULL}};
    cr_assert_eq(lg_kernel_execute(k, 2, args), LG_OK, "%s", lg_last_error());
    lg_kernel_destroy(k);
}

Test(eltwise, cache_shares_kernels_and_dst_any) {
    int64_t dims[2] = {4, 8};
    lg_md md, any;
    lg_md_init_tag(&md, 2, dims, LG_F32, "ab");
    lg_md_init_tag(&any, 2, dims, LG_F32, "any");
    lg_kernel *a, *b, *c;
    cr_assert_eq(lg_eltwise_create(&a, LG_ELTWISE_TANH, 1.0f, 2.0f, &md, NULL), LG_OK);
    cr_assert_eq(lg_eltwise_create(&b, LG_ELTWISE_TANH, 3.0f, 4.0f, &md, &any), LG_OK);
    cr_assert_eq(a, b, "tanh ignores alpha and beta: one kernel");
    cr_assert_eq(lg_eltwise_create(&c, LG_ELTWISE_RELU, 0.5f, 0.0f, &md, &md), LG_OK);
    cr_assert_neq(a, c);
    lg_md q;
    cr_assert_eq(lg_kernel_query_md(b, LG_ARG_DST, &q), LG_OK);
    cr_assert(lg_md_equal(&q, &md));
    lg_kernel_destroy(a);
    lg_kernel_destroy(b);
    lg_kernel_destroy(c);
}

static void expect_error(lg_status got, lg_status want, const char *word) {
    cr_assert_eq(got, want, "status %s, want %s (%s)", lg_status_str(got), lg_status_str(want),
                 lg_last_error());
    cr_assert(strstr(lg_last_error(), word), "message '%s' should name '%s'", lg_last_error(),
              word);
}

Test(eltwise, bad_inputs) {
    int64_t dims[4] = {2, 3, 4, 5}, other[4] = {2, 3, 4, 6};
    lg_md md, blocked, wrong, bf, any_md, any_wrong, zero;
    lg_md_init_tag(&md, 4, dims, LG_F32, "nchw");
    lg_md_init_tag(&blocked, 4, dims, LG_F32, "nChw8c");
    lg_md_init_tag(&wrong, 4, other, LG_F32, "nchw");
    lg_md_init_tag(&bf, 4, dims, LG_BF16, "nchw");
    lg_md_init_tag(&any_md, 4, dims, LG_F32, "any");
    lg_md_init_tag(&any_wrong, 4, other, LG_F32, "any");
    memset(&zero, 0, sizeof zero);
    lg_kernel *k = NULL;
    expect_error(lg_eltwise_create(NULL, LG_ELTWISE_RELU, 0, 0, &md, NULL), LG_INVALID_ARGUMENT,
                 "kernel");
    expect_error(lg_eltwise_create(&k, LG_ELTWISE_RELU, 0, 0, NULL, NULL), LG_INVALID_ARGUMENT,
                 "src");
    expect_error(lg_eltwise_create(&k, LG_ELTWISE_RELU, 0, 0, &zero, NULL), LG_INVALID_ARGUMENT,
                 "src md is not initialised");
    expect_error(lg_eltwise_create(&k, LG_ELTWISE_RELU, 0, 0, &any_md, NULL), LG_INVALID_ARGUMENT,
                 "src md is 'any'");
    expect_error(lg_eltwise_create(&k, (lg_eltwise_alg)99, 0, 0, &md, NULL), LG_INVALID_ARGUMENT,
                 "alg");
    expect_error(lg_eltwise_create(&k, (lg_eltwise_alg)-1, 0, 0, &md, NULL), LG_INVALID_ARGUMENT,
                 "alg");
    expect_error(lg_eltwise_create(&k, LG_ELTWISE_SOFT_RELU, 0, 0, &md, NULL), LG_INVALID_ARGUMENT,
                 "alpha");
    expect_error(lg_eltwise_create(&k, LG_ELTWISE_RELU, 0, 0, &md, &zero), LG_INVALID_ARGUMENT,
                 "dst md is not initialised");
    expect_error(lg_eltwise_create(&k, LG_ELTWISE_RELU, 0, 0, &md, &wrong), LG_INVALID_ARGUMENT,
                 "dst");
    expect_error(lg_eltwise_create(&k, LG_ELTWISE_RELU, 0, 0, &md, &blocked), LG_INVALID_ARGUMENT,
                 "dst");
    expect_error(lg_eltwise_create(&k, LG_ELTWISE_RELU, 0, 0, &md, &bf), LG_INVALID_ARGUMENT,
                 "dst");
    expect_error(lg_eltwise_create(&k, LG_ELTWISE_RELU, 0, 0, &md, &any_wrong), LG_INVALID_ARGUMENT,
                 "dst");
    const lg_dtype ints[3] = {LG_S32, LG_S8, LG_U8};
    for (int i = 0; i < 3; i++) {
        lg_md im;
        lg_md_init_tag(&im, 4, dims, ints[i], "nchw");
        expect_error(lg_eltwise_create(&k, LG_ELTWISE_TANH, 0, 0, &im, NULL), LG_UNIMPLEMENTED,
                     "tanh");
        expect_error(lg_eltwise_create(&k, LG_ELTWISE_MISH, 0, 0, &im, NULL), LG_UNIMPLEMENTED,
                     "mish");
        cr_assert_eq(lg_eltwise_create(&k, LG_ELTWISE_CLIP, 0, 0, &im, NULL), LG_OK);
        lg_kernel_destroy(k);
    }
    /* Execution: overlap that is not exact in place is rejected. */
    cr_assert_eq(lg_eltwise_create(&k, LG_ELTWISE_RELU, 0, 0, &md, NULL), LG_OK);
    float buf[121];
    lg_arg args[2] = {{LG_ARG_SRC, buf}, {LG_ARG_DST, buf + 1}};
    expect_error(lg_kernel_execute(k, 2, args), LG_INVALID_ARGUMENT, "overlap");
    lg_arg one[1] = {{LG_ARG_SRC, buf}};
    expect_error(lg_kernel_execute(k, 1, one), LG_INVALID_ARGUMENT, "missing");
    lg_kernel_destroy(k);
}

Test(eltwise, large_streaming_and_misaligned) {
    /* 1x4x1024x1040 f32: 17 MB each way, past the non-temporal footprint;
     * dst one float off 64-byte alignment so each thread peels a head. */
    int64_t dims[4] = {1, 4, 1024, 1040};
    lg_md md;
    lg_md_init_tag(&md, 4, dims, LG_F32, "nchw");
    int64_t n = lg__md_nelems(&md);
    float *src = malloc((size_t)n * 4), *buf = malloc((size_t)(n + 16) * 4), *dst = buf + 1;
    for (int64_t i = 0; i < n; i++) src[i] = (float)(i % 1001) * 0.01f - 5.0f;
    const int algs[2] = {LG_ELTWISE_RELU, LG_ELTWISE_LINEAR};
    for (int isa = 0; isa <= (int)lg__cpu_isa_hw(); isa++) {
        lg__cpu_set_isa_cap(isa);
        for (int a = 0; a < 2; a++) {
            lg_kernel *k;
            cr_assert_eq(lg_eltwise_create(&k, algs[a], 0.25f, 1.0f, &md, NULL), LG_OK);
            memset(buf, 0xff, (size_t)(n + 16) * 4);
            lg_arg args[2] = {{LG_ARG_SRC, src}, {LG_ARG_DST, dst}};
            cr_assert_eq(lg_kernel_execute(k, 2, args), LG_OK);
            float beta = algs[a] == LG_ELTWISE_LINEAR ? 1.0f : 0.0f;
            for (int64_t i = 0; i < n; i++) {
                float want = lg__eltwise_fwd(algs[a], 0.25f, beta, src[i]);
                cr_assert(memcmp(&dst[i], &want, 4) == 0, "isa %d alg %d [%lld]: %g vs %g", isa,
                          algs[a], (long long)i, (double)dst[i], (double)want);
            }
            uint32_t guard;
            memcpy(&guard, &buf[0], 4);
            cr_assert_eq(guard, 0xffffffffu, "wrote before dst");
            memcpy(&guard, &dst[n], 4);
            cr_assert_eq(guard, 0xffffffffu, "wrote past dst");
            lg_kernel_destroy(k);
        }
    }
    lg__cpu_set_isa_cap(-1);
    free(src);
    free(buf);
}

Test(eltwise, out_of_memory) {
    /* Every allocation of a create that needs a padding table fails in turn:
     * LG_OUT_OF_MEMORY and nothing leaked (ASan), then success. */
    int64_t dims[4] = {2, 20, 3, 3};
    lg_md md;
    lg_md_init_tag(&md, 4, dims, LG_F32, "nChw16c");
    lg_kernel_cache_set_capacity(0);
    bool ok = false;
    for (int n = 0; n < 32 && !ok; n++) {
        lg_kernel *k = NULL;
        lg__alloc_fail_after(n);
        lg_status s = lg_eltwise_create(&k, LG_ELTWISE_EXP, 0, 0, &md, NULL);
        lg__alloc_fail_after(-1);
        if (s == LG_OK) {
            ok = true;
            lg_kernel_destroy(k);
        } else {
            cr_assert_eq(s, LG_OUT_OF_MEMORY, "failing allocation %d gave %s", n, lg_status_str(s));
        }
    }
    cr_assert(ok);
}
