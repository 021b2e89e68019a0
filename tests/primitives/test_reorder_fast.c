/* The fast reorder engine against the scalar reference, byte for byte.
 *
 * Every case builds an lg__reorder_pd directly, runs lg__reorder_ref and the
 * fast engine on copies of the same garbage-filled dst (so dst padding must
 * come out zero and gaps untouched) and compares the whole buffers. Each
 * case runs under every ISA level the CPU has. The random cases cover the 36
 * dtype pairs over plain permutations, strided layouts with gaps, blocked
 * layouts with tails, weights formats, two-level blocks and nChw8c <->
 * nChw16c, with and without every attribute, on values that include
 * saturation edges, .5 ties, NaNs, infinities and denormals. Every case must
 * be accepted (LG_OK): all the layouts here nest, so a silent fallback to the
 * reference fails the test. */
#include "primitives/reorder/reorder.h"

#include "primitives/simd/cvt.h"
#include "primitives/reorder/fast_plan.h" /* lg__reorder_fast_set_stream_bytes */

#include "memory/convert.h"
#include "test_util.h"

#include <criterion/criterion.h>
#include <math.h>
#include <omp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const lg_dtype all_dt[8] = {LG_F32, LG_F16, LG_BF16,    LG_S32,
                                   LG_S8,  LG_U8,  LG_F8_E4M3, LG_F8_E5M2};

/* ISA levels to run: every one up to what the hardware has. */
static int isa_levels(lg__isa *out) {
    int n = 0;
    for (int i = LG_ISA_SCALAR; i <= (int)lg__cpu_isa_hw(); i++) out[n++] = (lg__isa)i;
    return n;
}

static const float special[] = {0.0f,          -0.0f,         0.5f,
                                1.5f,          2.5f,          -0.5f,
                                -1.5f,         -2.5f,         126.5f,
                                127.5f,        128.0f,        -128.5f,
                                -129.0f,       254.5f,        255.5f,
                                256.0f,        2147483520.0f, 2147483648.0f,
                                -2147483648.f, -2147483904.f, 3e9f,
                                -3e9f,         INFINITY,      -INFINITY,
                                NAN,           65504.0f,      65519.99f,
                                65520.0f,      1e-7f,         0x1p-24f,
                                0x1p-25f,      0x3p-25f,      1e-40f,
                                -1e-40f,       1.00390625f,   1.01171875f,
                                3.4e38f,       -3.4e38f,      0x1.fffffep127f,
                                16777217.0f,   8388608.5f,    -7.5f};
#define NSPECIAL ((int)(sizeof special / sizeof special[0]))

/* A random f32 value: specials, small values with ties, wide exponents, or
 * raw bits (NaN payloads included) unless finite is requested. */
static float rand_f32(lg_rng *r, bool finite) {
    switch (lg_rng_int(r, 0, 9)) {
    case 0:
    case 1:
    case 2: {
        float f = special[lg_rng_int(r, 0, NSPECIAL - 1)];
        return finite && !isfinite(f) ? 1.0f : f;
    }
    case 3:
    case 4:
        return (float)lg_rng_int(r, -600, 600) * 0.5f;
    case 5:
    case 6:
        return lg_rng_float(r, -300.0f, 300.0f);
    case 7:
    case 8: {
        float m = lg_rng_float(r, -1.0f, 1.0f);
        return ldexpf(m, (int)lg_rng_int(r, -140, 127));
    }
    default: {
        float f = lg__bits_f32((uint32_t)lg_rng_next(r));
        return finite && !isfinite(f) ? 2.0f : f;
    }
    }
}

/* Store a random value of dt at element i of buf. */
static void rand_elem(lg_rng *r, void *buf, lg_dtype dt, int64_t i, bool finite) {
    switch (dt) {
    case LG_F32:
        ((float *)buf)[i] = rand_f32(r, finite);
        break;
    case LG_F16:
    case LG_BF16: {
        uint16_t h;
        if (!finite && lg_rng_int(r, 0, 1))
            h = (uint16_t)lg_rng_next(r);
        else {
            float f = rand_f32(r, finite);
            h = dt == LG_F16 ? lg__f32_to_f16(f) : lg__f32_to_bf16(f);
            if (finite && (h & 0x7fff) >= (dt == LG_F16 ? 0x7c00 : 0x7f80)) h = 0x3c00;
        }
        ((uint16_t *)buf)[i] = h;
        break;
    }
    case LG_S32: {
        static const int32_t sp[] = {INT32_MIN, INT32_MAX,  0,        1,
                                     -1,        2147483520, 16777217, -16777217};
        int32_t v = lg_rng_int(r, 0, 3) == 0   ? sp[lg_rng_int(r, 0, 7)]
                    : lg_rng_int(r, 0, 1) == 0 ? (int32_t)lg_rng_int(r, -1000, 1000)
                                               : (int32_t)(uint32_t)lg_rng_next(r);
        ((int32_t *)buf)[i] = v;
        break;
    }
    case LG_S8:
    case LG_U8:
    case LG_F8_E4M3:
    case LG_F8_E5M2:
        ((uint8_t *)buf)[i] = (uint8_t)lg_rng_next(r);
        break;
    case LG_DT_UNDEF:
        break;
    }
}

/* Elements in an attribute array of mask over md (1 for mask 0). */
static int64_t mask_count(const lg_md *md, int32_t mask) {
    int64_t n = 1;
    for (int d = 0; d < md->ndims; d++)
        if (mask & (1 << d)) n *= md->dims[d];
    return n;
}

/* One problem with its buffers and attribute arrays. */
typedef struct problem {
    lg__reorder_pd pd;
    char desc[256];
    void *src;
    size_t src_bytes, dst_bytes;
    void *dst_init; /* the garbage dst starts from */
    float *ss, *ds;
    int32_t *szp, *dzp;
} problem;

static void problem_free(problem *p) {
    free(p->src);
    free(p->dst_init);
    free(p->ss);
    free(p->ds);
    free(p->szp);
    free(p->dzp);
    memset(p, 0, sizeof *p);
}

static float rand_scale(lg_rng *r) {
    switch (lg_rng_int(r, 0, 5)) {
    case 0:
        return 4294967295.f;
    case 1:
        return -lg_rng_float(r, 0.1f, 3.0f);
    case 2:
        return 1.0f / 3.0f;
    default:
        return lg_rng_float(r, 0.01f, 4.0f);
    }
}

static int32_t rand_zp(lg_rng *r) {
    return lg_rng_int(r, 0, 7) == 0 ? (int32_t)lg_rng_int(r, -100000, 100000)
                                    : (int32_t)lg_rng_int(r, -20, 20);
}

static int32_t rand_mask(lg_rng *r, int ndims) {
    int k = (int)lg_rng_int(r, 0, 5);
    if (k <= 1 || ndims < 2) return 0;
    if (k <= 4) return 2;
    return (int32_t)lg_rng_int(r, 0, (1 << ndims) - 1);
}

/* Random attribute arrays for mask over md (NULL without the attribute). */
static float *rand_scales(lg_rng *r, const lg_md *md, int32_t mask) {
    if (mask < 0) return NULL;
    int64_t n = mask_count(md, mask);
    float *a = malloc(sizeof(float) * (size_t)n);
    for (int64_t i = 0; i < n; i++) a[i] = rand_scale(r);
    return a;
}

static int32_t *rand_zps(lg_rng *r, const lg_md *md, int32_t mask) {
    if (mask < 0) return NULL;
    int64_t n = mask_count(md, mask);
    int32_t *a = malloc(sizeof(int32_t) * (size_t)n);
    for (int64_t i = 0; i < n; i++) a[i] = rand_zp(r);
    return a;
}

/* Fill buffers and attributes; attrs is a bit set: 1 src scale, 2 dst
 * scale, 4 src zp, 8 dst zp, 16 sum. */
static void problem_fill(problem *p, lg_rng *r, unsigned attrs) {
    lg__reorder_pd *pd = &p->pd;
    int nd = pd->src.ndims;
    pd->src_scale_mask = pd->dst_scale_mask = pd->src_zp_mask = pd->dst_zp_mask = -1;
    if (attrs & 1) pd->src_scale_mask = rand_mask(r, nd);
    if (attrs & 2) pd->dst_scale_mask = rand_mask(r, nd);
    if (attrs & 4) pd->src_zp_mask = rand_mask(r, nd);
    if (attrs & 8) pd->dst_zp_mask = rand_mask(r, nd);
    if (attrs & 16) {
        static const float betas[] = {1.0f, 0.5f, -2.0f, 0.3f};
        pd->has_sum = 1;
        pd->sum_beta = betas[lg_rng_int(r, 0, 3)];
    }
    p->src_bytes = lg_md_size(&pd->src);
    p->dst_bytes = lg_md_size(&pd->dst);
    p->src = malloc(p->src_bytes + 1);
    p->dst_init = malloc(p->dst_bytes + 1);
    cr_assert(p->src && p->dst_init);
    int64_t ns = (int64_t)(p->src_bytes / lg_dtype_size(pd->src.dtype));
    for (int64_t i = 0; i < ns; i++) rand_elem(r, p->src, pd->src.dtype, i, false);
    memset(p->dst_init, 0xA5, p->dst_bytes + 1);
    if (pd->has_sum) { /* finite old values, so that NaN payload order cannot matter */
        int64_t nd_el = (int64_t)(p->dst_bytes / lg_dtype_size(pd->dst.dtype));
        for (int64_t i = 0; i < nd_el; i++) rand_elem(r, p->dst_init, pd->dst.dtype, i, true);
    }
    p->ss = rand_scales(r, &pd->src, pd->src_scale_mask);
    p->ds = rand_scales(r, &pd->dst, pd->dst_scale_mask);
    p->szp = rand_zps(r, &pd->src, pd->src_zp_mask);
    p->dzp = rand_zps(r, &pd->dst, pd->dst_zp_mask);
}

static lg__reorder_args args_of(const problem *p, void *dst) {
    lg__reorder_args a = {p->src, dst, p->ss, p->ds, p->szp, p->dzp, {NULL, NULL}, 0};
    return a;
}

/* Run the reference and every ISA level; fail on any differing byte. When
 * must_accept, the fast engine may not decline. Returns the last impl. */
static const char *check(const problem *p, bool must_accept) {
    /* 64-byte aligned, as tensors are, so that aligned (streaming) stores occur. */
    size_t cap = (p->dst_bytes + 64) / 64 * 64;
    char *want = aligned_alloc(64, cap), *got = aligned_alloc(64, cap);
    cr_assert(want && got);
    memcpy(want, p->dst_init, p->dst_bytes + 1);
    lg__reorder_args a = args_of(p, want);
    lg__reorder_ref(&p->pd, &a);
    lg__isa isas[3];
    int nisa = isa_levels(isas);
    const char *impl = NULL;
    for (int k = 0; k < nisa; k++) {
        void *plan = NULL;
        lg_status s = lg__reorder_fast_init(&p->pd, isas[k], &plan, &impl);
        if (s == LG_UNIMPLEMENTED && !must_accept) continue;
        cr_assert_eq(s, LG_OK, "%s: fast init under %s returned %d", p->desc, lg__isa_name(isas[k]),
                     (int)s);
        memcpy(got, p->dst_init, p->dst_bytes + 1);
        a = args_of(p, got);
        lg__reorder_fast_exec(plan, &a);
        lg__reorder_fast_destroy(plan);
        if (memcmp(want, got, p->dst_bytes + 1) != 0) {
            size_t i = 0;
            while (want[i] == got[i]) i++;
            size_t esz = lg_dtype_size(p->pd.dst.dtype), e = i / esz * esz;
            uint32_t w = 0, g = 0;
            memcpy(&w, want + e, esz);
            memcpy(&g, got + e, esz);
            cr_assert_fail("%s: %s (%s) differs at dst element %zu: want 0x%x got 0x%x", p->desc,
                           lg__isa_name(isas[k]), impl, e / esz, w, g);
        }
    }
    free(want);
    free(got);
    return impl;
}

/* ---- layouts ---------------------------------------------------------- */

/* Tags by ndims, mixing plain, blocked, weights and two-level blocks. All
 * block sizes are powers of two, so every pair nests. */
static const char *const tags2[] = {"ab", "ba", "Ab16a", "aB8b", "AB16b16a", "BA4b8a"};
static const char *const tags3[] = {"abc",   "acb",    "cba",       "bac",
                                    "aBc4b", "aBc16b", "ABc16a16b", "xba"};
static const char *const tags4[] = {
    "abcd",    "acdb",       "cdba",   "bacd",       "xba",        "aBcd4b",
    "aBcd8b",  "aBcd16b",    "nChw8c", "nChw16c",    "OIhw16i16o", "ABcd4b16a4b",
    "Acdb16a", "ABcd16a16b", "aBdc8b", "BAcd16a16b", "aCdb4c",     "aBCd16b16c"};
static const char *const tags5[] = {"abcde",       "acdeb", "aBcde16b", "aBcde8b",
                                    "gOIhw16i16o", "edcba", "Abcde4a"};

static const char *rand_tag(lg_rng *r, int nd) {
    switch (nd) {
    case 2:
        return tags2[lg_rng_int(r, 0, 5)];
    case 3:
        return tags3[lg_rng_int(r, 0, 7)];
    case 4:
        return tags4[lg_rng_int(r, 0, 17)];
    default:
        return tags5[lg_rng_int(r, 0, 6)];
    }
}

/* A plain layout with a random dim order and gaps (sometimes innermost). */
static void rand_strided(lg_rng *r, lg_md *md, int nd, const int64_t *dims, lg_dtype dt, char *desc,
                         size_t len) {
    int order[LG_MAX_NDIMS];
    for (int i = 0; i < nd; i++) order[i] = i;
    for (int i = nd - 1; i > 0; i--) {
        int k = (int)lg_rng_int(r, 0, i), t = order[i];
        order[i] = order[k];
        order[k] = t;
    }
    int64_t st[LG_MAX_NDIMS], s = lg_rng_int(r, 0, 3) == 0 ? 2 : 1;
    for (int i = nd - 1; i >= 0; i--) {
        st[order[i]] = s;
        s = s * dims[order[i]] + lg_rng_int(r, 0, 2) * lg_rng_int(r, 1, 5);
    }
    cr_assert_eq(lg_md_init_strides(md, nd, dims, dt, st), LG_OK, "%s", lg_last_error());
    size_t o = strlen(desc);
    snprintf(desc + o, len - o, "strides(");
    for (int i = 0; i < nd; i++) {
        o = strlen(desc);
        snprintf(desc + o, len - o, "%lld%s", (long long)st[i], i + 1 < nd ? "," : ")");
    }
}

static void rand_layout(lg_rng *r, lg_md *md, int nd, const int64_t *dims, lg_dtype dt, char *desc,
                        size_t len) {
    if (lg_rng_int(r, 0, 4) == 0) {
        rand_strided(r, md, nd, dims, dt, desc, len);
        return;
    }
    const char *tag = rand_tag(r, nd);
    cr_assert_eq(lg_md_init_tag(md, nd, dims, dt, tag), LG_OK, "%s: %s", tag, lg_last_error());
    size_t o = strlen(desc);
    snprintf(desc + o, len - o, "%s", tag);
}

/* Random dims: tails around the block sizes, a few larger shapes. */
static void rand_dims(lg_rng *r, int nd, int64_t *dims) {
    static const int64_t shapes[][4] = {{2, 40, 3, 3}, {2, 73, 16, 16}, {1, 17, 5, 5},
                                        {3, 16, 7, 9}, {2, 116, 4, 4},  {33, 19, 3, 3}};
    if (nd == 4 && lg_rng_int(r, 0, 2) == 0) {
        memcpy(dims, shapes[lg_rng_int(r, 0, 5)], sizeof shapes[0]);
        return;
    }
    int64_t budget = 6000;
    for (int d = 0; d < nd; d++) {
        int64_t hi = d < 2 ? 40 : 12;
        dims[d] = lg_rng_int(r, 1, hi);
        if (lg_rng_int(r, 0, 5) == 0) dims[d] = 16 * lg_rng_int(r, 1, 2) + lg_rng_int(r, -1, 1);
        while (dims[d] > 1 && budget / dims[d] < 1) dims[d] /= 2;
        budget /= dims[d];
        if (budget < 1) budget = 1;
    }
}

static void rand_problem(lg_rng *r, problem *p, lg_dtype sdt, lg_dtype ddt, int idx) {
    memset(p, 0, sizeof *p);
    int nd = (int)lg_rng_int(r, 2, 5);
    int64_t dims[LG_MAX_NDIMS];
    rand_dims(r, nd, dims);
    snprintf(p->desc, sizeof p->desc, "#%d %s->%s dims", idx, lg_dtype_str(sdt), lg_dtype_str(ddt));
    for (int d = 0; d < nd; d++) {
        size_t o = strlen(p->desc);
        snprintf(p->desc + o, sizeof p->desc - o, "%c%lld", d ? 'x' : ' ', (long long)dims[d]);
    }
    strcat(p->desc, " ");
    rand_layout(r, &p->pd.src, nd, dims, sdt, p->desc, sizeof p->desc);
    strcat(p->desc, " -> ");
    rand_layout(r, &p->pd.dst, nd, dims, ddt, p->desc, sizeof p->desc);
    unsigned attrs = 0;
    if (lg_rng_int(r, 0, 2) != 0) attrs = (unsigned)lg_rng_int(r, 1, 31);
    problem_fill(p, r, attrs);
    size_t o = strlen(p->desc);
    snprintf(p->desc + o, sizeof p->desc - o, " attrs ss%d ds%d szp%d dzp%d sum%d",
             p->pd.src_scale_mask, p->pd.dst_scale_mask, p->pd.src_zp_mask, p->pd.dst_zp_mask,
             p->pd.has_sum);
}

/* Random cases for every dst type with one src type. */
static void random_cases(lg_dtype sdt, uint64_t seed) {
    lg_rng r = {seed};
    for (int k = 0; k < 8; k++)
        for (int i = 0; i < 70; i++) {
            problem p;
            rand_problem(&r, &p, sdt, all_dt[k], i);
            check(&p, true);
            problem_free(&p);
        }
}

Test(reorder_fast, random_from_f32) {
    random_cases(LG_F32, 1);
}
Test(reorder_fast, random_from_f16) {
    random_cases(LG_F16, 2);
}
Test(reorder_fast, random_from_bf16) {
    random_cases(LG_BF16, 3);
}
Test(reorder_fast, random_from_s32) {
    random_cases(LG_S32, 4);
}
Test(reorder_fast, random_from_s8) {
    random_cases(LG_S8, 5);
}
Test(reorder_fast, random_from_u8) {
    random_cases(LG_U8, 6);
}
Test(reorder_fast, random_from_f8_e4m3) {
    random_cases(LG_F8_E4M3, 7);
}
Test(reorder_fast, random_from_f8_e5m2) {
    random_cases(LG_F8_E5M2, 8);
}

/* ---- named cases -------------------------------------------------------- */

/* A tag-to-tag problem with the given attributes (see problem_fill). */
static void tag_problem(problem *p, lg_rng *r, int nd, const int64_t *dims, lg_dtype sdt,
                        const char *st, lg_dtype ddt, const char *dt, unsigned attrs) {
    memset(p, 0, sizeof *p);
    cr_assert_eq(lg_md_init_tag(&p->pd.src, nd, dims, sdt, st), LG_OK);
    cr_assert_eq(lg_md_init_tag(&p->pd.dst, nd, dims, ddt, dt), LG_OK);
    snprintf(p->desc, sizeof p->desc, "%s:%s -> %s:%s attrs %u dims[%d] %lld", lg_dtype_str(sdt),
             st, lg_dtype_str(ddt), dt, attrs, nd - 1, (long long)dims[nd - 1]);
    problem_fill(p, r, attrs);
}

/* The common cases must take the fast path (and name the expected kernel
 * under the best ISA), including conversions and attributes. */
Test(reorder_fast, common_cases_accepted) {
    lg_rng r = {7};
    static const struct {
        const char *s, *d;
        const char *kernel; /* expected impl suffix under a SIMD ISA */
    } cases[] = {
        {"nchw", "nChw16c", "transpose"},    {"nChw16c", "nchw", "transpose"},
        {"nhwc", "nChw16c", "copy"},         {"nchw", "nhwc", "transpose"},
        {"nChw8c", "nChw16c", "copy"},       {"nchw", "nchw", "copy"},
        {"oihw", "OIhw16i16o", "transpose"},
    };
    static const lg_dtype dts[][2] = {
        {LG_F32, LG_F32}, {LG_F32, LG_S8}, {LG_F32, LG_BF16}, {LG_U8, LG_F32}, {LG_F16, LG_F16}};
    int64_t dims[4] = {2, 37, 9, 11};
    lg__isa best = lg__cpu_isa_hw();
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        for (size_t t = 0; t < sizeof dts / sizeof dts[0]; t++)
            for (unsigned attrs = 0; attrs < 32; attrs += 31) {
                problem p;
                tag_problem(&p, &r, 4, dims, dts[t][0], cases[c].s, dts[t][1], cases[c].d, attrs);
                const char *impl = check(&p, true);
                cr_assert(impl != NULL);
                if (best != LG_ISA_SCALAR)
                    cr_assert(strstr(impl, cases[c].kernel) != NULL, "%s: impl %s", p.desc, impl);
                cr_assert(strncmp(impl, lg__isa_name(best), strlen(lg__isa_name(best))) == 0,
                          "%s: impl %s", p.desc, impl);
                problem_free(&p);
            }
}

/* Larger problems: several threads, several chunks per job, the padded
 * tails of the key shapes. Run with two and with three threads, so that
 * thread shares start inside an outer index's chunks (the driver runs a
 * thread's chunks of one outer index as one kernel call). */
Test(reorder_fast, larger_threaded) {
    lg_rng r = {8};
    static const struct {
        int64_t dims[4];
        const char *s, *d;
        lg_dtype sdt, ddt;
        unsigned attrs;
    } cases[] = {
        {{2, 116, 28, 28}, "nchw", "nChw16c", LG_F32, LG_F32, 0},
        {{1, 64, 14, 14}, "nchw", "nChw16c", LG_F32, LG_F32, 0},
        {{2, 64, 30, 30}, "nChw16c", "nchw", LG_F32, LG_F32, 0},
        {{2, 64, 30, 30}, "nhwc", "nChw16c", LG_F32, LG_F32, 0},
        {{2, 64, 30, 30}, "nchw", "nhwc", LG_F32, LG_F32, 0},
        {{2, 64, 30, 30}, "nChw8c", "nChw16c", LG_F32, LG_F32, 0},
        {{64, 48, 3, 3}, "oihw", "OIhw16i16o", LG_F32, LG_F32, 0},
        {{2, 64, 30, 30}, "nchw", "nChw16c", LG_F32, LG_S8, 1},
        {{2, 64, 30, 30}, "nchw", "nChw16c", LG_F32, LG_BF16, 0},
        {{1, 1, 1, 300000}, "nchw", "nchw", LG_F32, LG_F32, 0},
        {{1, 3, 1, 100001}, "nchw", "nchw", LG_S8, LG_S8, 0},
        {{2, 61, 33, 35}, "nhwc", "nChw16c", LG_U8, LG_F16, 31},
    };
    int saved = omp_get_max_threads();
    for (int nthr = 2; nthr <= 3; nthr++) {
        omp_set_num_threads(nthr);
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
            problem p;
            tag_problem(&p, &r, 4, cases[c].dims, cases[c].sdt, cases[c].s, cases[c].ddt,
                        cases[c].d, cases[c].attrs);
            check(&p, true);
            problem_free(&p);
        }
    }
    omp_set_num_threads(saved);
}

/* Non-temporal stores (normally only for destinations of tens of MB): with
 * the threshold at 0 every SIMD job that may stream does (copies and
 * scattered transposes; transposes writing dst in sequence on CPUs with
 * AVX512-FP16 only), from aligned and unaligned row starts, with and
 * without conversions. */
Test(reorder_fast, streaming_stores) {
    lg_rng r = {11};
    lg__reorder_fast_set_stream_bytes(0);
    static const struct {
        int64_t dims[4];
        const char *s, *d;
        lg_dtype sdt, ddt;
        unsigned attrs;
    } cases[] = {
        {{2, 64, 20, 20}, "nchw", "nChw16c", LG_F32, LG_F32, 0},
        {{2, 64, 20, 20}, "nchw", "nhwc", LG_F32, LG_F32, 0},
        {{2, 64, 20, 20}, "nhwc", "nchw", LG_F32, LG_F32, 0},
        {{2, 61, 20, 20}, "nhwc", "nChw16c", LG_F32, LG_F32, 0},
        {{1, 3, 1, 5001}, "nchw", "nchw", LG_F32, LG_F32, 0},
        {{1, 3, 1, 5001}, "nchw", "nchw", LG_S8, LG_S8, 0},
        {{1, 3, 1, 5001}, "nchw", "nchw", LG_F32, LG_U8, 1},
        {{2, 64, 20, 20}, "nchw", "nChw16c", LG_F32, LG_S8, 1},
        {{2, 40, 20, 20}, "nchw", "nhwc", LG_BF16, LG_F32, 0},
        {{2, 61, 20, 20}, "nchw", "nChw16c", LG_F32, LG_F32, 0},
        {{2, 61, 9, 20}, "nChw16c", "nchw", LG_S32, LG_S32, 0},
        {{48, 40, 3, 3}, "oihw", "OIhw16i16o", LG_F32, LG_F32, 0},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        problem p;
        tag_problem(&p, &r, 4, cases[c].dims, cases[c].sdt, cases[c].s, cases[c].ddt, cases[c].d,
                    cases[c].attrs);
        check(&p, true);
        problem_free(&p);
    }
    /* Rows that start off any alignment: a dst row pitch of 1003 elements. */
    problem p;
    memset(&p, 0, sizeof p);
    int64_t dims[2] = {7, 1001}, pitch[2] = {1003, 1};
    cr_assert_eq(lg_md_init_tag(&p.pd.src, 2, dims, LG_F32, "ab"), LG_OK);
    cr_assert_eq(lg_md_init_strides(&p.pd.dst, 2, dims, LG_F32, pitch), LG_OK);
    snprintf(p.desc, sizeof p.desc, "f32 7x1001 ab -> pitch 1003 (streaming)");
    problem_fill(&p, &r, 0);
    check(&p, true);
    problem_free(&p);
    lg__reorder_fast_set_stream_bytes(-1);
}

/* The row conversions (cvt.h) that eltwise and binary use: every type to
 * and from f32, raw bits and special values, every length up to a few
 * vectors (full vectors and tails), every ISA level, against convert.h. */
Test(reorder_fast, row_conversions) {
    lg_rng r = {13};
    lg__isa isas[3];
    int nisa = isa_levels(isas);
    enum { N = 100 };
    for (int k = 0; k < 8; k++)
        for (int dir = 0; dir < 2; dir++)
            for (int64_t n = 0; n <= N; n += n < 40 ? 1 : 13) {
                lg_dtype sdt = dir ? all_dt[k] : LG_F32, ddt = dir ? LG_F32 : all_dt[k];
                size_t ssz = lg_dtype_size(sdt), dsz = lg_dtype_size(ddt);
                uint8_t src[N * 4], want[N * 4 + 8], got[N * 4 + 8];
                for (int64_t i = 0; i < n; i++) rand_elem(&r, src, sdt, i, false);
                memset(want, 0x5a, sizeof want);
                for (int64_t i = 0; i < n; i++)
                    lg__store_f32(want, ddt, i, lg__load_f32(src, sdt, i));
                if (sdt == ddt) memcpy(want, src, (size_t)n * ssz); /* bits */
                for (int t = 0; t < nisa; t++) {
                    memset(got, 0x5a, sizeof got);
                    lg__cvt_for_isa(isas[t])(sdt, src, ddt, got, n);
                    cr_assert(memcmp(got, want, (size_t)n * dsz + 8) == 0,
                              "%s -> %s, n %lld, %s: differs", lg_dtype_str(sdt), lg_dtype_str(ddt),
                              (long long)n, lg__isa_name(isas[t]));
                }
            }
}

/* Blockings that do not nest are declined; an empty tensor writes nothing. */
Test(reorder_fast, declines_and_edges) {
    lg__reorder_pd pd;
    memset(&pd, 0, sizeof pd);
    int64_t dims[4] = {2, 24, 3, 3};
    cr_assert_eq(lg_md_init_tag(&pd.src, 4, dims, LG_F32, "aBcd3b"), LG_OK);
    cr_assert_eq(lg_md_init_tag(&pd.dst, 4, dims, LG_F32, "aBcd8b"), LG_OK);
    pd.src_scale_mask = pd.dst_scale_mask = pd.src_zp_mask = pd.dst_zp_mask = -1;
    void *plan = (void *)&pd;
    const char *impl = "x";
    cr_assert_eq(lg__reorder_fast_init(&pd, LG_ISA_SCALAR, &plan, &impl), LG_UNIMPLEMENTED);
    cr_assert_null(plan);

    lg_rng r = {9};
    int64_t empty[4] = {2, 0, 3, 3};
    problem p;
    tag_problem(&p, &r, 4, empty, LG_F32, "nchw", LG_F32, "nChw16c", 0);
    check(&p, true);
    problem_free(&p);
    /* A single element, and a 1-d tensor with a blocked tail. */
    int64_t one[4] = {1, 1, 1, 1};
    tag_problem(&p, &r, 4, one, LG_S8, "nchw", LG_F32, "nChw16c", 31);
    check(&p, true);
    problem_free(&p);
    int64_t d1[1] = {37};
    tag_problem(&p, &r, 1, d1, LG_BF16, "a", LG_F16, "A16a", 1);
    check(&p, true);
    problem_free(&p);
}

/* Allocation failures surface as LG_OUT_OF_MEMORY with nothing leaked. */
Test(reorder_fast, out_of_memory) {
    lg__reorder_pd pd;
    memset(&pd, 0, sizeof pd);
    int64_t dims[4] = {2, 17, 3, 3};
    cr_assert_eq(lg_md_init_tag(&pd.src, 4, dims, LG_F32, "nchw"), LG_OK);
    cr_assert_eq(lg_md_init_tag(&pd.dst, 4, dims, LG_F32, "nChw16c"), LG_OK);
    pd.src_scale_mask = pd.dst_scale_mask = pd.src_zp_mask = pd.dst_zp_mask = -1;
    for (int n = 0; n < 2; n++) {
        void *plan = NULL;
        const char *impl = NULL;
        lg__alloc_fail_after(n);
        lg_status s = lg__reorder_fast_init(&pd, LG_ISA_SCALAR, &plan, &impl);
        lg__alloc_fail_after(-1);
        cr_assert_eq(s, LG_OUT_OF_MEMORY, "failing allocation %d gave %d", n, (int)s);
        cr_assert_null(plan);
    }
}

/* One plan executed from several threads at once, into separate buffers. */
typedef struct run_arg {
    const void *plan;
    lg__reorder_args a;
} run_arg;

static void *run_plan(void *v) {
    run_arg *ra = v;
    for (int i = 0; i < 20; i++) lg__reorder_fast_exec(ra->plan, &ra->a);
    return NULL;
}

Test(reorder_fast, plan_shared_by_threads) {
    lg_rng r = {10};
    int64_t dims[4] = {2, 70, 40, 40};
    problem p;
    tag_problem(&p, &r, 4, dims, LG_F32, "nchw", LG_BF16, "nChw16c", 1);
    char *want = malloc(p.dst_bytes), *got[3];
    memcpy(want, p.dst_init, p.dst_bytes);
    lg__reorder_args a = args_of(&p, want);
    lg__reorder_ref(&p.pd, &a);
    void *plan;
    const char *impl;
    cr_assert_eq(lg__reorder_fast_init(&p.pd, lg__cpu_isa_hw(), &plan, &impl), LG_OK);
    pthread_t th[3];
    run_arg ra[3];
    for (int t = 0; t < 3; t++) {
        got[t] = malloc(p.dst_bytes);
        memcpy(got[t], p.dst_init, p.dst_bytes);
        ra[t].plan = plan;
        ra[t].a = args_of(&p, got[t]);
        cr_assert_eq(pthread_create(&th[t], NULL, run_plan, &ra[t]), 0);
    }
    for (int t = 0; t < 3; t++) {
        pthread_join(th[t], NULL);
        cr_assert(memcmp(want, got[t], p.dst_bytes) == 0, "thread %d differs", t);
        free(got[t]);
    }
    lg__reorder_fast_destroy(plan);
    free(want);
    problem_free(&p);
}
