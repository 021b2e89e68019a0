/* Data-type conversions (memory/convert.h) against independent truths:
 *  - f16 <-> f32 against GCC's _Float16 conversions (libgcc's soft-fp
 *    __extendhfsf2 / __truncsfhf2, or F16C, both correct IEEE RNE), on all
 *    65536 f16 patterns, a strided sweep of all 2^32 f32 patterns and every
 *    f16 rounding boundary (midpoints and a few ulps around them);
 *  - f32 -> bf16 against a rounding computed in double from the two bf16
 *    candidates bracketing the value; bf16 -> f32 from the fields by ldexp;
 *  - f32 -> s8 / u8 / s32 against nearbyint in double with clamping, on
 *    hand-written boundaries and ties and a seeded random sweep;
 *  - lg__load_f32 / lg__store_f32 for every data type on known bit patterns.
 * Hand-written edge cases pin down the expected bits independently of both. */
#include "memory/convert.h"
#include "test_util.h"

#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* References                                                               */
/* ------------------------------------------------------------------------ */

static _Float16 f16_from_bits(uint16_t h) {
    _Float16 v;
    memcpy(&v, &h, sizeof v);
    return v;
}

static uint16_t f16_bits(_Float16 v) {
    uint16_t h;
    memcpy(&h, &v, sizeof h);
    return h;
}

/* The compiler's f32 -> f16 (RNE). volatile keeps it a run-time conversion. */
static uint16_t ref_f32_to_f16(float f) {
    volatile float vf = f;
    _Float16 h = (_Float16)vf;
    return f16_bits(h);
}

static float ref_f16_to_f32(uint16_t h) {
    volatile _Float16 v = f16_from_bits(h);
    return (float)v;
}

static bool f16_is_nan(uint16_t h) {
    return (h & 0x7c00u) == 0x7c00u && (h & 0x3ffu) != 0;
}

static bool bf16_is_nan(uint16_t h) {
    return (h & 0x7f80u) == 0x7f80u && (h & 0x7fu) != 0;
}

/* Value of a bf16 pattern from its fields (no bit reinterpretation); inf for
 * an all-ones exponent with a zero mantissa. Not for NaN. */
static double bf16_value(uint16_t h) {
    int e = (h >> 7) & 0xff, m = h & 0x7f;
    double v;
    if (e == 0xff)
        v = INFINITY;
    else if (e == 0)
        v = ldexp((double)m, -133); /* m * 2^-7 * 2^-126 */
    else
        v = ldexp((double)(128 + m), e - 134); /* (1 + m/128) * 2^(e-127) */
    return (h & 0x8000u) ? -v : v;
}

/* Round f to bf16 in double arithmetic: a is |f| truncated to bf16, b the next
 * bf16 away from zero (for the largest finite one, a virtual 2^128 that stands
 * for inf); pick the nearer, ties to an even mantissa. */
static uint16_t ref_f32_to_bf16(float f) {
    double x = (double)f;
    uint16_t sign = signbit(f) ? 0x8000u : 0;
    double ax = fabs(x);
    if (isinf(ax)) return (uint16_t)(sign | 0x7f80u);
    /* Largest bf16 magnitude a <= ax, by search on the monotone magnitudes. */
    uint16_t lo = 0, hi = 0x7f7f;
    while (lo < hi) {
        uint16_t mid = (uint16_t)((lo + hi + 1) / 2);
        if (bf16_value(mid) <= ax)
            lo = mid;
        else
            hi = (uint16_t)(mid - 1);
    }
    uint16_t a = lo, b = (uint16_t)(lo + 1);
    double va = bf16_value(a), vb = (b == 0x7f80u) ? ldexp(1.0, 128) : bf16_value(b);
    if (va == ax) return (uint16_t)(sign | a);
    double da = ax - va, db = vb - ax; /* exact: f32 values of close magnitude */
    uint16_t r = da < db ? a : (db < da ? b : ((a & 1u) == 0 ? a : b));
    return (uint16_t)(sign | r);
}

static int64_t ref_round_clamp(float f, double lo, double hi) {
    double x = (double)f;
    if (isnan(x)) return 0;
    double r = nearbyint(x);
    if (r < lo) r = lo;
    if (r > hi) r = hi;
    return (int64_t)r;
}

/* ------------------------------------------------------------------------ */
/* The references themselves, on hand-worked values                         */
/* ------------------------------------------------------------------------ */

Test(convert, references_are_sane) {
    cr_assert_eq(ref_f32_to_f16(1.0f), 0x3c00);
    cr_assert_eq(ref_f32_to_f16(65520.0f), 0x7c00);
    cr_assert_eq(ref_f32_to_f16(1.0f + 0x1p-11f), 0x3c00);
    cr_assert_eq(ref_f32_to_f16(1.0f + 3 * 0x1p-11f), 0x3c02);
    cr_assert(ref_f16_to_f32(0x3555) == 0x1.554p-2f);
    cr_assert_eq(ref_f32_to_bf16(1.0f), 0x3f80);
    cr_assert_eq(ref_f32_to_bf16(1.0f + 0x1p-8f), 0x3f80);
    cr_assert_eq(ref_f32_to_bf16(1.0f + 3 * 0x1p-8f), 0x3f82);
    cr_assert_eq(ref_f32_to_bf16(-3.0f), 0xc040);
    cr_assert_eq(ref_f32_to_bf16(0x1p-149f), 0x0000);
    cr_assert_eq(ref_f32_to_bf16(FLT_MAX), 0x7f80);
    cr_assert_eq(ref_f32_to_bf16(0x1.fep127f), 0x7f7f);
    cr_assert(bf16_value(0x0001) == 0x1p-133);
    cr_assert(bf16_value(0x3fc0) == 1.5);
    cr_assert_eq(ref_round_clamp(2.5f, -128, 127), 2);
    cr_assert_eq(ref_round_clamp(-3.5f, -128, 127), -4);
}

/* ------------------------------------------------------------------------ */
/* f16                                                                      */
/* ------------------------------------------------------------------------ */

Test(convert, f16_to_f32_all_patterns) {
    int nans = 0;
    for (uint32_t i = 0; i <= 0xffffu; i++) {
        uint16_t h = (uint16_t)i;
        float want = ref_f16_to_f32(h), got = lg__f16_to_f32(h);
        if (isnan(want)) {
            cr_assert(isnan(got), "f16 0x%04x: NaN gave %a", h, (double)got);
            cr_assert_eq(signbit(got) != 0, (h & 0x8000u) != 0, "f16 0x%04x: NaN sign", h);
            nans++;
        } else {
            cr_assert_eq(lg__f32_bits(got), lg__f32_bits(want), "f16 0x%04x: %a, want %a", h,
                         (double)got, (double)want);
        }
    }
    cr_assert_eq(nans, 2 * 1023);
}

Test(convert, f16_round_trip_all_patterns) {
    for (uint32_t i = 0; i <= 0xffffu; i++) {
        uint16_t h = (uint16_t)i;
        uint16_t back = lg__f32_to_f16(lg__f16_to_f32(h));
        if (f16_is_nan(h)) {
            cr_assert(f16_is_nan(back), "f16 0x%04x: NaN came back as 0x%04x", h, back);
            cr_assert(back & 0x200u, "f16 0x%04x: NaN came back signalling (0x%04x)", h, back);
            cr_assert_eq(back & 0x8000u, h & 0x8000u, "f16 0x%04x: NaN sign", h);
        } else {
            cr_assert_eq(back, h, "f16 0x%04x came back as 0x%04x", h, back);
        }
    }
}

/* Compare lg__f32_to_f16 with the compiler on one f32 pattern. */
static void check_f16(uint32_t u) {
    float f = lg__bits_f32(u);
    uint16_t got = lg__f32_to_f16(f), want = ref_f32_to_f16(f);
    if (isnan(f)) {
        cr_assert(f16_is_nan(got) && (got & 0x200u), "f32 0x%08x: NaN gave 0x%04x", u, got);
        cr_assert_eq(got & 0x8000u, (u >> 16) & 0x8000u, "f32 0x%08x: NaN sign", u);
        cr_assert(f16_is_nan(want), "reference: f32 0x%08x gave 0x%04x", u, want);
    } else {
        cr_assert_eq(got, want, "f32 0x%08x (%a): got 0x%04x, want 0x%04x", u, (double)f, got,
                     want);
    }
}

Test(convert, f32_to_f16_strided_sweep) {
    uint64_t n = 0;
    for (uint64_t u = 0; u <= 0xffffffffull; u += 1021, n++) check_f16((uint32_t)u);
    /* The last patterns, which the stride does not reach. */
    for (uint32_t u = 0xffffff00u; u != 0; u++, n++) check_f16(u);
    printf("f32 -> f16: %llu strided patterns\n", (unsigned long long)n);
    cr_assert_gt(n, 4000000);
}

Test(convert, f32_to_f16_every_rounding_boundary) {
    uint64_t n = 0;
    /* Each f16 magnitude v and the next one (the virtual 65536 after 65504):
     * the midpoint is exact in f32; test it and +-4 ulps around it, and the
     * f32 patterns next to v itself. */
    for (uint32_t v = 0; v < 0x7c00u; v++) {
        float a = lg__f16_to_f32((uint16_t)v);
        cr_assert(a == ref_f16_to_f32((uint16_t)v));
        float b = v + 1 == 0x7c00u ? 65536.0f : ref_f16_to_f32((uint16_t)(v + 1));
        float mid = (a + b) / 2;
        cr_assert(mid > a && mid < b && mid - a == b - mid, "midpoint after f16 0x%04x", v);
        uint32_t m = lg__f32_bits(mid), s = lg__f32_bits(a);
        for (uint32_t s2 = 0; s2 < 2; s2++) {
            uint32_t sign = s2 << 31;
            for (int k = -4; k <= 4; k++, n++) check_f16(sign | (uint32_t)((int64_t)m + k));
            for (int k = -2; k <= 2; k++)
                if ((int64_t)s + k >= 0) {
                    check_f16(sign | (uint32_t)((int64_t)s + k));
                    n++;
                }
        }
    }
    printf("f32 -> f16: %llu patterns at rounding boundaries\n", (unsigned long long)n);
    cr_assert_gt(n, 400000);
}

Test(convert, f32_to_f16_edge_cases) {
    static const struct {
        float f;
        uint16_t h;
    } cases[] = {
        {0.0f, 0x0000},
        {-0.0f, 0x8000},
        {0x1p-149f, 0x0000},           /* f32 denormals */
        {-0x1p-149f, 0x8000},          /* keep the sign */
        {0x1.fffffcp-127f, 0x0000},    /* largest f32 denormal */
        {0x1p-126f, 0x0000},           /* smallest f32 normal */
        {0x1p-25f, 0x0000},            /* half the smallest subnormal: tie to 0 */
        {0x1.000002p-25f, 0x0001},     /* just above the tie */
        {0x1.fffffep-26f, 0x0000},     /* just below */
        {0x1p-24f, 0x0001},            /* smallest f16 subnormal */
        {-0x1p-24f, 0x8001},           /* negative subnormal */
        {0x1.8p-24f, 0x0002},          /* 1.5 ulp: tie to even 2 */
        {0x1.4p-23f, 0x0002},          /* 2.5 ulp: tie to even 2 */
        {0x1.ffp-15f, 0x03fe},         /* 1022 * 2^-24 */
        {0x1.ff4p-15f, 0x03fe},        /* 1022.5 * 2^-24: tie to even 1022 */
        {0x1.ff8p-15f, 0x03ff},        /* largest subnormal 1023 * 2^-24 */
        {0x1.ffcp-15f, 0x0400},        /* 1023.5 * 2^-24: tie to even 1024, the smallest normal */
        {0x1p-14f, 0x0400},            /* smallest normal */
        {1.0f, 0x3c00},                /* */
        {1.0f + 0x1p-11f, 0x3c00},     /* tie to even (down) */
        {1.0f + 3 * 0x1p-11f, 0x3c02}, /* tie to even (up) */
        {2049.0f, 0x6800},             /* 2048 + 1: tie to even 2048 */
        {2051.0f, 0x6802},             /* tie to even 2052 */
        {-2.5f, 0xc100},               /* */
        {65504.0f, 0x7bff},            /* largest finite */
        {65519.99f, 0x7bff},           /* below the overflow boundary */
        {0x1.ffdffep15f, 0x7bff},      /* 65519.998: the last f32 below 65520 */
        {65520.0f, 0x7c00},            /* the boundary itself: tie to even -> inf */
        {-65520.0f, 0xfc00},           /* */
        {1e10f, 0x7c00},               /* */
        {FLT_MAX, 0x7c00},             /* */
        {INFINITY, 0x7c00},            /* */
        {-INFINITY, 0xfc00},           /* */
        {0.333333343f, 0x3555},        /* 1/3 */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        float f = cases[i].f;
        uint16_t want = cases[i].h;
        cr_assert_eq(lg__f32_to_f16(f), want, "%a: got 0x%04x, want 0x%04x", (double)f,
                     lg__f32_to_f16(f), want);
        cr_assert_eq(ref_f32_to_f16(f), want, "reference: %a", (double)f);
    }
    /* NaN: quiet, sign kept, also for a signalling NaN and a payload that
     * lives only in the low f32 mantissa bits. */
    static const uint32_t nans[] = {0x7fc00000u, 0xffc00000u, 0x7f800001u, 0xff800001u,
                                    0x7fa00000u, 0x7fffffffu, 0x7f801fffu};
    for (size_t i = 0; i < sizeof nans / sizeof nans[0]; i++) {
        uint16_t h = lg__f32_to_f16(lg__bits_f32(nans[i]));
        cr_assert(f16_is_nan(h) && (h & 0x200u), "0x%08x gave 0x%04x", nans[i], h);
        cr_assert_eq(h & 0x8000u, (nans[i] >> 16) & 0x8000u, "0x%08x: sign", nans[i]);
    }
}

/* ------------------------------------------------------------------------ */
/* bf16                                                                     */
/* ------------------------------------------------------------------------ */

Test(convert, bf16_all_patterns) {
    for (uint32_t i = 0; i <= 0xffffu; i++) {
        uint16_t h = (uint16_t)i;
        float f = lg__bf16_to_f32(h);
        uint16_t back = lg__f32_to_bf16(f);
        if (bf16_is_nan(h)) {
            cr_assert(isnan(f), "bf16 0x%04x: not NaN in f32", h);
            cr_assert(bf16_is_nan(back), "bf16 0x%04x: NaN came back as 0x%04x", h, back);
            cr_assert_eq(back & 0x8000u, h & 0x8000u, "bf16 0x%04x: NaN sign", h);
        } else {
            double want = bf16_value(h);
            cr_assert((double)f == want && !signbit(f) == !signbit(want),
                      "bf16 0x%04x: %a, want %a", h, (double)f, want);
            cr_assert_eq(back, h, "bf16 0x%04x came back as 0x%04x", h, back);
        }
    }
}

static void check_bf16(uint32_t u) {
    float f = lg__bits_f32(u);
    uint16_t got = lg__f32_to_bf16(f);
    if (isnan(f)) {
        cr_assert(bf16_is_nan(got) && (got & 0x40u), "f32 0x%08x: NaN gave 0x%04x", u, got);
        cr_assert_eq(got & 0x8000u, (u >> 16) & 0x8000u, "f32 0x%08x: NaN sign", u);
        return;
    }
    uint16_t want = ref_f32_to_bf16(f);
    cr_assert_eq(got, want, "f32 0x%08x (%a): got 0x%04x, want 0x%04x", u, (double)f, got, want);
}

Test(convert, f32_to_bf16_strided_sweep) {
    uint64_t n = 0;
    for (uint64_t u = 0; u <= 0xffffffffull; u += 4099, n++) check_bf16((uint32_t)u);
    for (uint32_t u = 0xffffff00u; u != 0; u++, n++) check_bf16(u);
    printf("f32 -> bf16: %llu strided patterns\n", (unsigned long long)n);
    cr_assert_gt(n, 1000000);
}

Test(convert, f32_to_bf16_every_rounding_boundary) {
    uint64_t n = 0;
    /* For each finite bf16 magnitude p: the exact halfway point to the next
     * one (p << 16 | 0x8000; for the largest finite one, the overflow
     * boundary) and +-2 ulps around it, and p itself with its f32
     * neighbours. */
    for (uint32_t p = 0; p < 0x7f80u; p++)
        for (uint32_t s2 = 0; s2 < 2; s2++) {
            uint32_t sign = s2 << 31, mid = p << 16 | 0x8000u;
            for (int k = -2; k <= 2; k++, n++) check_bf16(sign | (uint32_t)((int64_t)mid + k));
            for (int k = -1; k <= 1; k++)
                if ((int64_t)(p << 16) + k >= 0) {
                    check_bf16(sign | (uint32_t)((int64_t)(p << 16) + k));
                    n++;
                }
        }
    printf("f32 -> bf16: %llu patterns at rounding boundaries\n", (unsigned long long)n);
    cr_assert_gt(n, 500000);
}

Test(convert, f32_to_bf16_edge_cases) {
    static const struct {
        float f;
        uint16_t h;
    } cases[] = {
        {0.0f, 0x0000},
        {-0.0f, 0x8000},
        {0x1p-149f, 0x0000},
        {-0x1p-149f, 0x8000},
        {0x1p-133f, 0x0001},          /* smallest bf16 subnormal */
        {0x1p-134f, 0x0000},          /* half of it: tie to 0 */
        {0x1.8p-133f, 0x0002},        /* 1.5 ulp: tie to even 2 */
        {1.0f + 0x1p-8f, 0x3f80},     /* tie down to even */
        {1.0f + 3 * 0x1p-8f, 0x3f82}, /* tie up to even */
        {0x1.010002p0f, 0x3f81},      /* 1 + 2^-8 + 2^-23: above the tie */
        {0x1.fep127f, 0x7f7f},        /* largest finite bf16 */
        {0x1.fefffep127f, 0x7f7f},    /* just below the overflow boundary */
        {0x1.ffp127f, 0x7f80},        /* the boundary: tie to even -> inf */
        {-0x1.ffp127f, 0xff80},
        {FLT_MAX, 0x7f80},
        {INFINITY, 0x7f80},
        {-INFINITY, 0xff80},
        {3.14159274f, 0x4049},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cr_assert_eq(lg__f32_to_bf16(cases[i].f), cases[i].h, "%a: got 0x%04x, want 0x%04x",
                     (double)cases[i].f, lg__f32_to_bf16(cases[i].f), cases[i].h);
        cr_assert_eq(ref_f32_to_bf16(cases[i].f), cases[i].h, "reference: %a", (double)cases[i].f);
    }
    /* NaN: a payload only in the low 16 bits must not truncate to inf. */
    static const uint32_t nans[] = {0x7fc00000u, 0xffc00000u, 0x7f800001u,
                                    0xff800001u, 0x7f80ffffu, 0x7fffffffu};
    for (size_t i = 0; i < sizeof nans / sizeof nans[0]; i++) {
        uint16_t h = lg__f32_to_bf16(lg__bits_f32(nans[i]));
        cr_assert(bf16_is_nan(h) && (h & 0x40u), "0x%08x gave 0x%04x", nans[i], h);
        cr_assert_eq(h & 0x8000u, (nans[i] >> 16) & 0x8000u, "0x%08x: sign", nans[i]);
    }
}

/* ------------------------------------------------------------------------ */
/* Integers                                                                 */
/* ------------------------------------------------------------------------ */

Test(convert, integer_edge_cases) {
    static const struct {
        float f;
        int s8;
    } s8[] = {
        {0.0f, 0},       {-0.0f, 0},      {0.5f, 0},       {1.5f, 2},        {2.5f, 2},
        {-0.5f, 0},      {-1.5f, -2},     {-2.5f, -2},     {0.49999997f, 0}, {0.50000006f, 1},
        {126.5f, 126},   {127.0f, 127},   {127.5f, 127},   {128.0f, 127},    {200.0f, 127},
        {-127.5f, -128}, {-128.0f, -128}, {-128.5f, -128}, {-129.0f, -128},  {-1e30f, -128},
        {1e30f, 127},    {NAN, 0},        {-NAN, 0},       {INFINITY, 127},  {-INFINITY, -128},
        {0x1p-149f, 0},  {-0x1p-149f, 0}, {99.49999f, 99},
    };
    for (size_t i = 0; i < sizeof s8 / sizeof s8[0]; i++)
        cr_assert_eq(lg__f32_to_s8(s8[i].f), s8[i].s8, "s8(%a) = %d, want %d", (double)s8[i].f,
                     lg__f32_to_s8(s8[i].f), s8[i].s8);

    static const struct {
        float f;
        int u8;
    } u8[] = {
        {0.0f, 0},     {-0.0f, 0},      {0.5f, 0},      {1.5f, 2},     {2.5f, 2},
        {-0.5f, 0},    {-3.0f, 0},      {-1e30f, 0},    {254.5f, 254}, {253.5f, 254},
        {255.0f, 255}, {255.5f, 255},   {256.0f, 255},  {300.0f, 255}, {1e30f, 255},
        {NAN, 0},      {INFINITY, 255}, {-INFINITY, 0}, {127.5f, 128}, {128.5f, 128},
    };
    for (size_t i = 0; i < sizeof u8 / sizeof u8[0]; i++)
        cr_assert_eq(lg__f32_to_u8(u8[i].f), u8[i].u8, "u8(%a) = %d, want %d", (double)u8[i].f,
                     lg__f32_to_u8(u8[i].f), u8[i].u8);

    static const struct {
        float f;
        int32_t s32;
    } s32[] = {
        {0.0f, 0},
        {0.5f, 0},
        {1.5f, 2},
        {-2.5f, -2},
        {2147483520.0f, 2147483520},
        {2147483648.0f, 2147483520},
        {1e10f, 2147483520},
        {-2147483648.0f, INT32_MIN},
        {-2147483520.0f, -2147483520},
        {-1e10f, INT32_MIN},
        {4194304.5f, 4194304},
        {4194305.5f, 4194306},
        {-4194304.5f, -4194304},
        {8388607.5f, 8388608},
        {16777216.0f, 16777216},
        {NAN, 0},
        {INFINITY, 2147483520},
        {-INFINITY, INT32_MIN},
    };
    for (size_t i = 0; i < sizeof s32 / sizeof s32[0]; i++)
        cr_assert_eq(lg__f32_to_s32(s32[i].f), s32[i].s32, "s32(%a) = %d, want %d",
                     (double)s32[i].f, lg__f32_to_s32(s32[i].f), s32[i].s32);
    cr_assert_eq(lg__f32_to_s32(LG_S32_F32_MAX), 2147483520);
    cr_assert_eq(lg__f32_to_s32(LG_S32_F32_MIN), INT32_MIN);
}

/* A random f32 for the integer sweep: magnitudes 2^-3 .. 2^34 with random
 * mantissas, ties k + 0.5, integers, and now and then an arbitrary pattern. */
static float random_float(lg_rng *r) {
    uint64_t z = lg_rng_next(r);
    float sign = (z & 1) ? -1.0f : 1.0f;
    switch ((z >> 1) % 8) {
    case 0:
        return lg__bits_f32((uint32_t)(z >> 32)); /* any pattern, NaN and inf too */
    case 1:
    case 2: { /* a tie k + 0.5, exact for |k| < 2^23 */
        int e = (int)((z >> 4) % 24);
        int64_t k = (int64_t)((z >> 9) & ((1ull << e) - 1));
        return sign * ((float)k + 0.5f);
    }
    case 3: { /* an integer near a bound */
        static const float bounds[] = {127.0f, 128.0f,        255.0f,
                                       256.0f, 2147483520.0f, 2147483648.0f};
        float b = bounds[(z >> 4) % 6];
        return sign * (b + (float)((int)((z >> 8) % 7) - 3));
    }
    default: { /* random mantissa, exponent -3 .. 34 */
        int e = (int)((z >> 4) % 38) - 3;
        float m = 1.0f + (float)((z >> 40) * 0x1p-24);
        return sign * ldexpf(m, e);
    }
    }
}

Test(convert, integer_random_sweep) {
    lg_rng r = {0x5eed0001u};
    const int n = 4000000;
    for (int i = 0; i < n; i++) {
        float f = random_float(&r);
        int64_t s8 = ref_round_clamp(f, -128, 127), u8 = ref_round_clamp(f, 0, 255),
                s32 = ref_round_clamp(f, -2147483648.0, 2147483520.0);
        cr_assert_eq(lg__f32_to_s8(f), s8, "s8(%a) = %d, want %lld", (double)f, lg__f32_to_s8(f),
                     (long long)s8);
        cr_assert_eq(lg__f32_to_u8(f), u8, "u8(%a) = %d, want %lld", (double)f, lg__f32_to_u8(f),
                     (long long)u8);
        cr_assert_eq(lg__f32_to_s32(f), s32, "s32(%a) = %d, want %lld", (double)f,
                     lg__f32_to_s32(f), (long long)s32);
    }
    printf("f32 -> s8/u8/s32: %d random values\n", n);
}

/* ------------------------------------------------------------------------ */
/* Load / store                                                             */
/* ------------------------------------------------------------------------ */

Test(convert, load_store_every_dtype) {
    unsigned char buf[64];
    /* f32: exact, bits kept (-0). */
    float f32s[3] = {0};
    lg__store_f32(f32s, LG_F32, 1, -0.0f);
    lg__store_f32(f32s, LG_F32, 2, 0x1.234568p-100f);
    cr_assert_eq(lg__f32_bits(f32s[1]), 0x80000000u);
    cr_assert(lg__load_f32(f32s, LG_F32, 2) == 0x1.234568p-100f);
    cr_assert_eq(lg__f32_bits(lg__load_f32(f32s, LG_F32, 1)), 0x80000000u);

    /* f16: 1.5 = 0x3e00; 1 + 2^-11 ties to 0x3c00; 70000 -> inf. */
    uint16_t h[4] = {0xaaaa, 0xaaaa, 0xaaaa, 0xaaaa};
    lg__store_f32(h, LG_F16, 0, 1.5f);
    lg__store_f32(h, LG_F16, 1, 1.0f + 0x1p-11f);
    lg__store_f32(h, LG_F16, 2, 70000.0f);
    cr_assert_eq(h[0], 0x3e00);
    cr_assert_eq(h[1], 0x3c00);
    cr_assert_eq(h[2], 0x7c00);
    cr_assert_eq(h[3], 0xaaaa, "store touched the next element");
    h[3] = 0xc500; /* -5 */
    cr_assert(lg__load_f32(h, LG_F16, 3) == -5.0f);
    h[3] = 0x0001;
    cr_assert(lg__load_f32(h, LG_F16, 3) == 0x1p-24f);

    /* bf16: 1 + 2^-8 ties to 0x3f80; 1 + 3 * 2^-8 to 0x3f82; load 0xc0a0 = -5. */
    uint16_t b[3] = {0x5555, 0x5555, 0x5555};
    lg__store_f32(b, LG_BF16, 0, 1.0f + 0x1p-8f);
    lg__store_f32(b, LG_BF16, 1, 1.0f + 3 * 0x1p-8f);
    cr_assert_eq(b[0], 0x3f80);
    cr_assert_eq(b[1], 0x3f82);
    cr_assert_eq(b[2], 0x5555);
    b[2] = 0xc0a0;
    cr_assert(lg__load_f32(b, LG_BF16, 2) == -5.0f);
    cr_assert(lg__load_f32(b, LG_BF16, 1) == 1.015625f);

    /* s32: ties to even and saturation; load is exact up to 2^24. */
    int32_t s[3] = {7, 7, 7};
    lg__store_f32(s, LG_S32, 0, 2.5f);
    lg__store_f32(s, LG_S32, 1, 3e9f);
    cr_assert_eq(s[0], 2);
    cr_assert_eq(s[1], 2147483520);
    cr_assert_eq(s[2], 7);
    s[2] = -16777216;
    cr_assert(lg__load_f32(s, LG_S32, 2) == -16777216.0f);

    /* s8 */
    int8_t s8[3] = {9, 9, 9};
    lg__store_f32(s8, LG_S8, 0, 300.0f);
    lg__store_f32(s8, LG_S8, 1, -3.5f);
    cr_assert_eq(s8[0], 127);
    cr_assert_eq(s8[1], -4);
    cr_assert_eq(s8[2], 9);
    s8[2] = -128;
    cr_assert(lg__load_f32(s8, LG_S8, 2) == -128.0f);

    /* u8: loads are unsigned (200, not -56). */
    uint8_t u8[3] = {9, 9, 9};
    lg__store_f32(u8, LG_U8, 0, -3.0f);
    lg__store_f32(u8, LG_U8, 1, 254.5f);
    cr_assert_eq(u8[0], 0);
    cr_assert_eq(u8[1], 254);
    cr_assert_eq(u8[2], 9);
    u8[2] = 200;
    cr_assert(lg__load_f32(u8, LG_U8, 2) == 200.0f);

    /* undef: store writes nothing, load gives 0. */
    memset(buf, 0x5a, sizeof buf);
    lg__store_f32(buf, LG_DT_UNDEF, 0, 1.0f);
    for (size_t i = 0; i < sizeof buf; i++) cr_assert_eq(buf[i], 0x5a);
    cr_assert(lg__load_f32(buf, LG_DT_UNDEF, 0) == 0.0f);
}
