/* Reorder attributes beyond f32 scales and s32 zero points: scales of type
 * bf16 / f16 / f8 and zero points of type s8 / u8, both in groups along the
 * last dims (lg_attr_set_scales_ex, lg_attr_set_zero_points_ex), and
 * stochastic rounding of dst (lg_attr_set_rounding).
 * The truth for typed / grouped values: each element recomputed here from
 * its logical index (the group index worked out here, the formula of
 * lg_reorder_create in f32), over seeded random shapes in every layout
 * family (plain, permuted, blocked with padded tails) and every ISA level
 * the CPU has; plus a hand-computed case. For stochastic rounding: every
 * result is one of the two dst values around the exact one, a value dst
 * represents is kept, the share of values rounded up matches the dropped
 * fraction, the bits depend on the seed and the logical index only (not on
 * layout or ISA level). Then the error cases. */
#include "memory/convert.h"
#include "memory/md.h"
#include "primitives/cpu.h"
#include "primitives/reorder/reorder.h"
#include "test_util.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const tags4[] = {"abcd", "acdb", "aBcd8b", "aBcd16b", "ABcd4b4a", "dcba"};

/* A buffer of n bytes, 64-aligned, zeroed. */
static void *zalloc(size_t n) {
    size_t cap = (n + 64) / 64 * 64;
    void *p = aligned_alloc(64, cap);
    cr_assert(p);
    memset(p, 0, cap);
    return p;
}

/* One typed, grouped value array: type, mask, group size per dim (1: none). */
typedef struct quant {
    bool on;
    lg_dtype dt;
    int mask;
    int64_t group[4];
    void *vals;
} quant;

/* Index of idx's value: own arithmetic, independent of the library's. */
static int64_t qindex(const quant *q, const int64_t *dims, const int64_t *idx) {
    int64_t k = 0;
    for (int d = 0; d < 4; d++)
        if (q->mask & (1 << d)) k = k * (dims[d] / q->group[d]) + idx[d] / q->group[d];
    return k;
}

/* Draw a quant array on 4D dims: a random mask, groups on the last two
 * dims when they divide, values of the drawn type. */
static void draw_quant(lg_rng *r, quant *q, const int64_t *dims, bool zp, lg_attr *attr, int arg) {
    static const lg_dtype sdt[] = {LG_F32, LG_BF16, LG_F16, LG_F8_E4M3, LG_F8_E5M2};
    static const lg_dtype zdt[] = {LG_S32, LG_S8, LG_U8};
    q->on = lg_rng_int(r, 0, 3) != 0;
    if (!q->on) return;
    q->dt = zp ? zdt[lg_rng_int(r, 0, 2)] : sdt[lg_rng_int(r, 0, 4)];
    q->mask = (int)lg_rng_int(r, 0, 15);
    int64_t g[2] = {1, 1};
    for (int d = 0; d < 4; d++) q->group[d] = 1;
    for (int k = 0; k < 2; k++) {
        int d = 2 + k;
        int64_t cand = lg_rng_int(r, 1, 4);
        if ((q->mask & (1 << d)) && dims[d] % cand == 0) g[k] = q->group[d] = cand;
    }
    int gnd = (int)lg_rng_int(r, 0, 2); /* 0, 1 (last dim) or 2 group dims */
    if (gnd < 2 && g[0] > 1) gnd = 2;
    if (gnd < 1 && g[1] > 1) gnd = 1;
    int64_t gd[2] = {gnd == 2 ? g[0] : g[1], g[1]};
    lg_status s = zp ? lg_attr_set_zero_points_ex(attr, arg, q->mask, gnd, gnd ? gd : NULL, q->dt)
                     : lg_attr_set_scales_ex(attr, arg, q->mask, gnd, gnd ? gd : NULL, q->dt);
    cr_assert_eq(s, LG_OK, "%s", lg_last_error());
    int64_t n = 1;
    for (int d = 0; d < 4; d++)
        if (q->mask & (1 << d)) n *= dims[d] / q->group[d];
    q->vals = zalloc((size_t)n * 4 + 4);
    for (int64_t k = 0; k < n; k++) {
        float v = zp ? (float)lg_rng_int(r, q->dt == LG_U8 ? 0 : -20, 20)
                     : (float)(1 << lg_rng_int(r, 0, 3)) * (lg_rng_int(r, 0, 1) ? 0.75f : 0.5f);
        lg__store_f32(q->vals, q->dt, k, v);
    }
}

static float qvalue(const quant *q, const int64_t *dims, const int64_t *idx) {
    return lg__load_f32(q->vals, q->dt, qindex(q, dims, idx));
}

static void one_case(lg_rng *r, int it) {
    static const lg_dtype sdts[] = {LG_S8, LG_U8, LG_F32, LG_BF16};
    static const lg_dtype ddts[] = {LG_F32, LG_BF16, LG_F16, LG_S8, LG_U8};
    int64_t dims[4] = {lg_rng_int(r, 1, 5), lg_rng_int(r, 1, 20), lg_rng_int(r, 1, 8),
                       lg_rng_int(r, 1, 12)};
    const char *stag = tags4[lg_rng_int(r, 0, 5)], *dtag = tags4[lg_rng_int(r, 0, 5)];
    lg_dtype sdt = sdts[lg_rng_int(r, 0, 3)], ddt = ddts[lg_rng_int(r, 0, 4)];
    lg_md s, d;
    cr_assert_eq(lg_md_init_tag(&s, 4, dims, sdt, stag), LG_OK);
    cr_assert_eq(lg_md_init_tag(&d, 4, dims, ddt, dtag), LG_OK);
    lg_attr *attr;
    cr_assert_eq(lg_attr_create(&attr), LG_OK);
    quant q[4]; /* src scale, dst scale, src zp, dst zp */
    memset(q, 0, sizeof q);
    draw_quant(r, &q[0], dims, false, attr, LG_ARG_SRC);
    draw_quant(r, &q[1], dims, false, attr, LG_ARG_DST);
    draw_quant(r, &q[2], dims, true, attr, LG_ARG_SRC);
    draw_quant(r, &q[3], dims, true, attr, LG_ARG_DST);
    lg_kernel *k;
    cr_assert_eq(lg_reorder_create(&k, &s, &d, attr), LG_OK, "%s", lg_last_error());
    bool ex = false;
    for (int i = 0; i < 4; i++)
        ex = ex || (q[i].on && (q[i].dt != (i < 2 ? LG_F32 : LG_S32) || q[i].group[2] > 1 ||
                                q[i].group[3] > 1));
    if (ex) cr_assert_str_eq(lg_kernel_impl(k), "reorder:ref");

    size_t ssz = lg_md_size(&s), dsz = lg_md_size(&d);
    char *src = zalloc(ssz), *dst = zalloc(dsz), *want = zalloc(dsz);
    memset(dst, 0x5a, dsz);
    int64_t idx[4], n = lg__md_nelems(&s);
    for (int64_t e = 0; e < n; e++) {
        int64_t rem = e;
        for (int q2 = 3; q2 >= 0; q2--) {
            idx[q2] = rem % dims[q2];
            rem /= dims[q2];
        }
        float v = sdt == LG_S8   ? (float)lg_rng_int(r, -128, 127)
                  : sdt == LG_U8 ? (float)lg_rng_int(r, 0, 255)
                                 : lg_rng_float(r, -60, 60);
        lg__store_f32(src, sdt, lg__md_off(&s, idx), v);
        /* the truth, in lg_reorder_create's order */
        float x = lg__load_f32(src, sdt, lg__md_off(&s, idx));
        if (q[2].on) x = x - qvalue(&q[2], dims, idx);
        if (q[0].on || q[1].on) {
            float ss = q[0].on ? qvalue(&q[0], dims, idx) : 1.0f;
            float ds = q[1].on ? qvalue(&q[1], dims, idx) : 1.0f;
            float f = ss / ds;
            x = f * x;
        }
        if (q[3].on) x = x + qvalue(&q[3], dims, idx);
        lg__store_f32(want, ddt, lg__md_off(&d, idx), x);
    }
    lg_arg args[6] = {{LG_ARG_SRC, src}, {LG_ARG_DST, dst}};
    int na = 2;
    static const int ids[4] = {LG_ARG_ATTR_SCALES | LG_ARG_SRC, LG_ARG_ATTR_SCALES | LG_ARG_DST,
                               LG_ARG_ATTR_ZERO_POINTS | LG_ARG_SRC,
                               LG_ARG_ATTR_ZERO_POINTS | LG_ARG_DST};
    for (int i = 0; i < 4; i++)
        if (q[i].on) args[na++] = (lg_arg){ids[i], q[i].vals};
    cr_assert_eq(lg_kernel_execute(k, na, args), LG_OK, "%s", lg_last_error());
    cr_assert(memcmp(dst, want, dsz) == 0, "case %d: %s %s -> %s %s, %lldx%lldx%lldx%lld differs",
              it, lg_dtype_str(sdt), stag, lg_dtype_str(ddt), dtag, (long long)dims[0],
              (long long)dims[1], (long long)dims[2], (long long)dims[3]);
    lg_kernel_destroy(k);
    lg_attr_destroy(attr);
    for (int i = 0; i < 4; i++) free(q[i].vals);
    free(src);
    free(dst);
    free(want);
}

Test(reorder_quant, random_typed_grouped_values) {
    lg_rng r = {0x5eed17};
    for (int it = 0; it < 300; it++) one_case(&r, it);
}

/* The fast engine declines every typed / grouped / stochastic problem at
 * every ISA level (the reference runs it). */
Test(reorder_quant, fast_engine_declines) {
    int64_t dims[4] = {2, 32, 4, 16};
    lg_md s, d;
    cr_assert_eq(lg_md_init_tag(&s, 4, dims, LG_S8, "abcd"), LG_OK);
    cr_assert_eq(lg_md_init_tag(&d, 4, dims, LG_BF16, "aBcd16b"), LG_OK);
    for (int variant = 0; variant < 4; variant++) {
        lg_attr *attr;
        cr_assert_eq(lg_attr_create(&attr), LG_OK);
        int64_t g[1] = {8};
        if (variant == 0)
            cr_assert_eq(lg_attr_set_scales_ex(attr, LG_ARG_SRC, 2, 0, NULL, LG_F16), 0);
        if (variant == 1) cr_assert_eq(lg_attr_set_scales_ex(attr, LG_ARG_SRC, 8, 1, g, LG_F32), 0);
        if (variant == 2)
            cr_assert_eq(lg_attr_set_zero_points_ex(attr, LG_ARG_SRC, 0, 0, NULL, LG_U8), 0);
        if (variant == 3)
            cr_assert_eq(lg_attr_set_rounding(attr, LG_ARG_DST, LG_ROUNDING_STOCHASTIC), 0);
        lg__reorder_pd pd;
        cr_assert_eq(lg__reorder_query(&s, &d, attr, NULL, &pd), LG_OK);
        cr_assert(lg__reorder_needs_ref(&pd));
        for (int isa = LG_ISA_SCALAR; isa <= (int)lg__cpu_isa_hw(); isa++) {
            void *plan = NULL;
            const char *impl = NULL;
            cr_assert_eq(lg__reorder_fast_init(&pd, (lg__isa)isa, &plan, &impl), LG_UNIMPLEMENTED,
                         "variant %d isa %s", variant, lg__isa_name((lg__isa)isa));
            cr_assert_null(plan);
        }
        lg_attr_destroy(attr);
    }
}

/* Hand-computed: s8 2x4 -> f32 with bf16 src scales in groups of 2 along
 * dim 1 (mask 2: values {2, 0.5}) and a u8 common zero point 3. */
Test(reorder_quant, hand_computed) {
    int64_t dims[2] = {2, 4};
    lg_md s, d;
    cr_assert_eq(lg_md_init_tag(&s, 2, dims, LG_S8, "ab"), LG_OK);
    cr_assert_eq(lg_md_init_tag(&d, 2, dims, LG_F32, "ba"), LG_OK);
    lg_attr *attr;
    cr_assert_eq(lg_attr_create(&attr), LG_OK);
    int64_t g[2] = {1, 2};
    cr_assert_eq(lg_attr_set_scales_ex(attr, LG_ARG_SRC, 2, 2, g, LG_BF16), LG_OK);
    cr_assert_eq(lg_attr_set_zero_points_ex(attr, LG_ARG_SRC, 0, 0, NULL, LG_U8), LG_OK);
    lg_kernel *k;
    cr_assert_eq(lg_reorder_create(&k, &s, &d, attr), LG_OK, "%s", lg_last_error());
    int8_t src[8] = {5, 7, -1, 11, 3, 3, 4, 0};
    _Alignas(4) uint16_t sc[2] = {0x4000, 0x3f00}; /* bf16 2.0, 0.5 */
    _Alignas(4) uint8_t zp[4] = {3};
    float dst[8];
    lg_arg args[4] = {{LG_ARG_SRC, src},
                      {LG_ARG_DST, dst},
                      {LG_ARG_ATTR_SCALES | LG_ARG_SRC, sc},
                      {LG_ARG_ATTR_ZERO_POINTS | LG_ARG_SRC, zp}};
    cr_assert_eq(lg_kernel_execute(k, 4, args), LG_OK, "%s", lg_last_error());
    /* row 0: (5-3)*2, (7-3)*2, (-1-3)*.5, (11-3)*.5; row 1: 0, 0, .5, -1.5 */
    const float want[2][4] = {{4, 8, -2, 4}, {0, 0, 0.5f, -1.5f}};
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 4; j++)
            cr_assert_eq(dst[j * 2 + i], want[i][j], "[%d][%d]: %g", i, j, dst[j * 2 + i]);
    lg_kernel_destroy(k);
    lg_attr_destroy(attr);
}

/* The two dst values around x for type dt (toward zero, then away). */
static void neighbours(float x, lg_dtype dt, float *lo, float *hi) {
    int mant = dt == LG_BF16 ? 7 : dt == LG_F16 ? 10 : dt == LG_F8_E4M3 ? 3 : 2;
    int e;
    frexpf(fabsf(x), &e);
    float ulp = ldexpf(1.0f, e - 1 - mant);
    float t = truncf(x / ulp) * ulp;
    *lo = t;
    *hi = t + (x < 0 ? -ulp : ulp);
}

/* Run a stochastic f32 -> dt reorder of n values into a dst of tag. */
static void run_stochastic(const float *x, int64_t n, lg_dtype dt, const char *tag, int32_t seed,
                           void *out) {
    int64_t dims[2] = {4, n / 4};
    lg_md s, d;
    cr_assert_eq(lg_md_init_tag(&s, 2, dims, LG_F32, "ab"), LG_OK);
    cr_assert_eq(lg_md_init_tag(&d, 2, dims, dt, tag), LG_OK);
    lg_attr *attr;
    cr_assert_eq(lg_attr_create(&attr), LG_OK);
    cr_assert_eq(lg_attr_set_rounding(attr, LG_ARG_DST, LG_ROUNDING_STOCHASTIC), LG_OK);
    lg_kernel *k;
    cr_assert_eq(lg_reorder_create(&k, &s, &d, attr), LG_OK, "%s", lg_last_error());
    void *dst = zalloc(lg_md_size(&d));
    _Alignas(4) int32_t sd = seed;
    lg_arg args[3] = {{LG_ARG_SRC, (void *)x}, {LG_ARG_DST, dst}, {LG_ARG_ATTR_ROUNDING_SEED, &sd}};
    cr_assert_eq(lg_kernel_execute(k, 3, args), LG_OK, "%s", lg_last_error());
    /* back to ab order as f32 */
    int64_t idx[2];
    for (idx[0] = 0; idx[0] < dims[0]; idx[0]++)
        for (idx[1] = 0; idx[1] < dims[1]; idx[1]++)
            ((float *)out)[idx[0] * dims[1] + idx[1]] = lg__load_f32(dst, dt, lg__md_off(&d, idx));
    /* without the seed: refused */
    cr_assert_eq(lg_kernel_execute(k, 2, args), LG_INVALID_ARGUMENT);
    free(dst);
    lg_kernel_destroy(k);
    lg_attr_destroy(attr);
}

Test(reorder_quant, stochastic_rounding) {
    static const lg_dtype dts[] = {LG_BF16, LG_F16, LG_F8_E4M3, LG_F8_E5M2};
    enum { N = 4096 };
    float *x = zalloc(N * sizeof(float)), *a = zalloc(N * 4), *b = zalloc(N * 4),
          *c = zalloc(N * 4);
    for (int t = 0; t < 4; t++) {
        lg_dtype dt = dts[t];
        int mant = dt == LG_BF16 ? 7 : dt == LG_F16 ? 10 : dt == LG_F8_E4M3 ? 3 : 2;
        /* the same value 1 + ulp/4 (a quarter of the way up) everywhere */
        float q = 1.0f + ldexpf(1.0f, -mant - 2);
        for (int i = 0; i < N; i++) x[i] = i % 2 ? q : -q;
        run_stochastic(x, N, dt, "ab", 1234, a);
        int up = 0;
        for (int i = 0; i < N; i++) {
            float lo, hi;
            neighbours(x[i], dt, &lo, &hi);
            cr_assert(a[i] == lo || a[i] == hi, "%s: %a -> %a", lg_dtype_str(dt), x[i], a[i]);
            up += a[i] == hi;
        }
        /* a quarter rounded away from zero: 1024 expected, sd 28 */
        cr_assert(up > 880 && up < 1170, "%s: %d of %d rounded up", lg_dtype_str(dt), up, N);
        /* the same seed, another layout: the same values; another seed differs */
        run_stochastic(x, N, dt, "ba", 1234, b);
        cr_assert(memcmp(a, b, N * sizeof(float)) == 0, "%s: layout changed the bits",
                  lg_dtype_str(dt));
        run_stochastic(x, N, dt, "ab", 1235, c);
        cr_assert(memcmp(a, c, N * sizeof(float)) != 0, "%s: the seed changed nothing",
                  lg_dtype_str(dt));
        /* values dst represents (and 0, inf, NaN) are kept */
        for (int i = 0; i < N; i++)
            x[i] = i % 4 == 0 ? 1.5f : i % 4 == 1 ? -0.0f : i % 4 == 2 ? 0.25f : 2.0f;
        x[7] = INFINITY;
        x[11] = NAN;
        run_stochastic(x, N, dt, "ab", 99, a);
        for (int i = 0; i < N; i++) {
            if (i == 7 && dt == LG_F8_E4M3) continue; /* e4m3 saturates inf */
            if (i == 11)
                cr_assert(isnan(a[i]));
            else
                cr_assert(a[i] == x[i] && signbit(a[i]) == signbit(x[i]), "%s: %a -> %a",
                          lg_dtype_str(dt), x[i], a[i]);
        }
    }
    free(x);
    free(a);
    free(b);
    free(c);
}

Test(reorder_quant, errors) {
    int64_t dims[2] = {6, 8};
    lg_md s, d8, dbf;
    cr_assert_eq(lg_md_init_tag(&s, 2, dims, LG_F32, "ab"), LG_OK);
    cr_assert_eq(lg_md_init_tag(&d8, 2, dims, LG_S8, "ab"), LG_OK);
    cr_assert_eq(lg_md_init_tag(&dbf, 2, dims, LG_BF16, "ab"), LG_OK);
    lg_attr *attr;
    lg_kernel *k = NULL;
    int64_t g3[1] = {3}, g0[1] = {0};
    cr_assert_eq(lg_attr_create(&attr), LG_OK);
    /* setters */
    cr_assert_eq(lg_attr_set_scales_ex(NULL, LG_ARG_SRC, 0, 0, NULL, LG_F32), LG_INVALID_ARGUMENT);
    cr_assert_eq(lg_attr_set_scales_ex(attr, LG_ARG_SRC, 0, 0, NULL, LG_S8), LG_INVALID_ARGUMENT);
    cr_assert(strstr(lg_last_error(), "lg_attr_set_scales_ex"));
    cr_assert_eq(lg_attr_set_zero_points_ex(attr, LG_ARG_SRC, 0, 0, NULL, LG_F16),
                 LG_INVALID_ARGUMENT);
    cr_assert_eq(lg_attr_set_scales_ex(attr, LG_ARG_SRC, 1, 1, g0, LG_F32), LG_INVALID_ARGUMENT);
    cr_assert_eq(lg_attr_set_scales_ex(attr, LG_ARG_SRC, 1, 1, NULL, LG_F32), LG_INVALID_ARGUMENT);
    cr_assert_eq(lg_attr_set_scales_ex(attr, LG_ARG_SRC, 1, 13, g3, LG_F32), LG_INVALID_ARGUMENT);
    cr_assert_eq(lg_attr_set_scales_ex(attr, LG_ARG_SRC + 1, 0, 0, NULL, LG_F32),
                 LG_INVALID_ARGUMENT);
    cr_assert_eq(lg_attr_set_rounding(attr, LG_ARG_DST, (lg_rounding_mode)7), LG_INVALID_ARGUMENT);
    cr_assert_eq(lg_attr_set_rounding(attr, LG_ARG_WEIGHTS, LG_ROUNDING_STOCHASTIC),
                 LG_INVALID_ARGUMENT);
    /* a group of 3 along dim 1 (8): does not divide */
    cr_assert_eq(lg_attr_set_scales_ex(attr, LG_ARG_SRC, 2, 1, g3, LG_F32), LG_OK);
    cr_assert_eq(lg_reorder_create(&k, &s, &d8, attr), LG_INVALID_ARGUMENT);
    cr_assert(strstr(lg_last_error(), "lg_reorder_create") && strstr(lg_last_error(), "divide"));
    /* on dim 1 while the mask selects dim 0 only */
    cr_assert_eq(lg_attr_set_scales_ex(attr, LG_ARG_SRC, 1, 1, g3, LG_F32), LG_OK);
    cr_assert_eq(lg_reorder_create(&k, &s, &d8, attr), LG_INVALID_ARGUMENT);
    /* plain again: fine */
    cr_assert_eq(lg_attr_set_scales(attr, LG_ARG_SRC, 1), LG_OK);
    cr_assert_eq(lg_reorder_create(&k, &s, &d8, attr), LG_OK);
    lg_kernel_destroy(k);
    /* stochastic rounding to s8: unimplemented; to bf16 fine */
    cr_assert_eq(lg_attr_set_rounding(attr, LG_ARG_DST, LG_ROUNDING_STOCHASTIC), LG_OK);
    cr_assert_eq(lg_reorder_create(&k, &s, &d8, attr), LG_UNIMPLEMENTED);
    cr_assert_eq(lg_reorder_create(&k, &s, &dbf, attr), LG_OK);
    lg_kernel_destroy(k);
    /* other kernels refuse what only reorders implement */
    cr_assert_eq(lg_binary_create_attr(&k, LG_BINARY_ADD, &s, &s, &s, attr), LG_UNIMPLEMENTED);
    cr_assert(strstr(lg_last_error(), "stochastic"));
    lg_attr_destroy(attr);
    cr_assert_eq(lg_attr_create(&attr), LG_OK);
    cr_assert_eq(lg_attr_set_scales_ex(attr, LG_ARG_SRC, 0, 0, NULL, LG_BF16), LG_OK);
    cr_assert_eq(lg_binary_create_attr(&k, LG_BINARY_ADD, &s, &s, &s, attr), LG_UNIMPLEMENTED);
    cr_assert(strstr(lg_last_error(), "bf16"));
    cr_assert_eq(lg_eltwise_create_attr(&k, LG_ELTWISE_RELU, 0, 0, &s, &s, attr), LG_UNIMPLEMENTED);
    lg_attr_destroy(attr);
}
