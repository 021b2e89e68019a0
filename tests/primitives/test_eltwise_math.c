/* Error bounds of the vector math (math_avx2.h, math_avx512.h) against libm
 * in double: a strided sweep over every f32 bit pattern, dense windows of
 * consecutive floats around the places that matter (0, subnormals, 1, branch
 * thresholds, exp's overflow and underflow boundaries, the range-reduction
 * boundaries), and the special values, which must come out exactly (sign of
 * zero included). The bounds asserted are the stated LG_ELT_ULP_* of
 * eltwise.h. */
#include "primitives/eltwise/eltwise.h"

#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef void (*vmath_fn)(int fn, const float *x, float *y, int64_t n);

static const char *const fn_names[LG_VMATH_COUNT] = {"exp", "expm1", "log",     "tanh",
                                                     "erf", "erfc",  "gelu_erf"};
static const double bounds[LG_VMATH_COUNT] = {LG_ELT_ULP_EXP,     LG_ELT_ULP_EXPM1, LG_ELT_ULP_LOG,
                                              LG_ELT_ULP_TANH,    LG_ELT_ULP_ERF,   LG_ELT_ULP_ERFC,
                                              LG_ELT_ULP_GELU_ERF};

static double truth(int fn, float x) {
    double d = x;
    switch (fn) {
    case LG_VMATH_EXP:
        return exp(d);
    case LG_VMATH_EXPM1:
        return expm1(d);
    case LG_VMATH_LOG:
        return log(d);
    case LG_VMATH_TANH:
        return tanh(d);
    case LG_VMATH_ERF:
        return erf(d);
    case LG_VMATH_ERFC:
        return erfc(d);
    default: {
        float z = -x * 0.70710677f; /* the reference's f32 argument */
        return 0.5 * d * erfc((double)z);
    }
    }
}

static double ulp_of(double t) {
    double a = fabs(t);
    if (a < 0x1p-126) return 0x1p-149;
    int e;
    frexp(a, &e);
    return ldexp(1.0, e - 24);
}

/* Error of got in ulps of the exact t; 1e30 for a wrong special value (NaN,
 * infinity, sign of an exact zero). */
static double ulp_err(float got, double t) {
    if (isnan(t) || isnan(got)) return isnan(t) && isnan(got) ? 0.0 : 1e30;
    float tf = (float)t;
    if (isinf(tf) || isinf(got)) return tf == got ? 0.0 : 1e30;
    if (t == 0.0 && (got != 0.0f || !signbit(got) != !signbit(t))) return 1e30;
    return fabs((double)got - t) / ulp_of(t);
}

typedef struct stats {
    double max;
    float at;
    int64_t n;
} stats;

static void run(vmath_fn f, int fn, const float *x, int64_t n, stats *st) {
    float *y = malloc((size_t)n * sizeof *y);
    f(fn, x, y, n);
    for (int64_t i = 0; i < n; i++) {
        if (fn == LG_VMATH_EXPM1 && x[i] > 18.5f) continue; /* its stated domain */
        double e = ulp_err(y[i], truth(fn, x[i]));
        if (e > st->max) st->max = e, st->at = x[i];
    }
    st->n += n;
    free(y);
}

static float from_bits(uint32_t u) {
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static uint32_t to_bits(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static void sweep(vmath_fn f, int fn) {
    enum { WIN = 8192, STRIDE = 509 };
    stats st = {0, 0, 0};
    /* Every STRIDE-th bit pattern: all exponents, both signs, NaNs, infinities. */
    int64_t n = (int64_t)(((uint64_t)1 << 32) / STRIDE);
    float *x = malloc((size_t)n * sizeof *x);
    for (int64_t i = 0; i < n; i++) x[i] = from_bits((uint32_t)(i * STRIDE + 7));
    run(f, fn, x, n, &st);
    /* Consecutive floats around the points that matter, on both sides. */
    const float centres[] = {0.0f,     FLT_MIN,    1.0f,        0.3465736f, 1.0397208f, 0.55f,
                             0.875f,   2.0f,       9.1f,        10.5f,      14.849242f, 88.72283f,
                             88.3763f, -87.33654f, -103.97208f, -104.0f,    18.5f,      -17.33f,
                             3.92f,    0.4769363f, 7.0f};
    for (size_t c = 0; c < sizeof centres / sizeof centres[0]; c++)
        for (int sign = 0; sign < 2; sign++) {
            uint32_t b = to_bits(fabsf(centres[c])) | (sign ? 0x80000000u : 0u);
            for (int64_t i = 0; i < WIN; i++) {
                uint32_t m = b & 0x7fffffffu;
                int64_t k = (int64_t)m - WIN / 2 + i; /* magnitude bits around the centre */
                x[i] = k < 0 ? from_bits((uint32_t)(-k) | ((b & 0x80000000u) ^ 0x80000000u))
                             : from_bits((uint32_t)k | (b & 0x80000000u));
            }
            run(f, fn, x, WIN, &st);
        }
    /* Specials, each exact. */
    const float sp[] = {0.0f,     -0.0f,    1e-45f,    -1e-45f, FLT_MIN, -FLT_MIN, FLT_MAX,
                        -FLT_MAX, INFINITY, -INFINITY, NAN,     -NAN,    1e-38f,   -1e-38f};
    run(f, fn, sp, (int64_t)(sizeof sp / sizeof sp[0]), &st);
    free(x);
    cr_log_info("%s: %lld inputs, max %.3f ulp at %a (bound %.1f)", fn_names[fn], (long long)st.n,
                st.max, (double)st.at, bounds[fn]);
    cr_assert(st.max <= bounds[fn], "%s: %.3f ulp at %a (%g) exceeds the stated %.1f", fn_names[fn],
              st.max, (double)st.at, (double)st.at, bounds[fn]);
}

static void sweep_isa(lg__isa isa, int fn) {
    if (lg__cpu_isa_hw() < isa) cr_skip_test("the CPU lacks %s", lg__isa_name(isa));
    sweep(isa == LG_ISA_AVX512 ? lg__vmath_avx512 : lg__vmath_avx2, fn);
}

#define MATH_TESTS(name, fn)                                                                       \
    Test(eltwise_math, name##_avx512) {                                                            \
        sweep_isa(LG_ISA_AVX512, fn);                                                              \
    }                                                                                              \
    Test(eltwise_math, name##_avx2) {                                                              \
        sweep_isa(LG_ISA_AVX2, fn);                                                                \
    }

MATH_TESTS(exp, LG_VMATH_EXP)
MATH_TESTS(expm1, LG_VMATH_EXPM1)
MATH_TESTS(log, LG_VMATH_LOG)
MATH_TESTS(tanh, LG_VMATH_TANH)
MATH_TESTS(erf, LG_VMATH_ERF)
MATH_TESTS(erfc, LG_VMATH_ERFC)
MATH_TESTS(gelu_erf, LG_VMATH_GELU_ERF)

Test(eltwise_math, special_values_exact) {
    /* The documented specials, on each ISA the CPU has. */
    const struct {
        int fn;
        float x, want;
    } v[] = {
        {LG_VMATH_EXP, -INFINITY, 0.0f},    {LG_VMATH_EXP, INFINITY, INFINITY},
        {LG_VMATH_EXP, 0.0f, 1.0f},         {LG_VMATH_EXP, -0.0f, 1.0f},
        {LG_VMATH_EXP, 89.0f, INFINITY},    {LG_VMATH_EXP, -104.0f, 0.0f},
        {LG_VMATH_EXPM1, -0.0f, -0.0f},     {LG_VMATH_EXPM1, -INFINITY, -1.0f},
        {LG_VMATH_LOG, 0.0f, -INFINITY},    {LG_VMATH_LOG, -0.0f, -INFINITY},
        {LG_VMATH_LOG, INFINITY, INFINITY}, {LG_VMATH_LOG, 1.0f, 0.0f},
        {LG_VMATH_TANH, -0.0f, -0.0f},      {LG_VMATH_TANH, INFINITY, 1.0f},
        {LG_VMATH_TANH, -INFINITY, -1.0f},  {LG_VMATH_ERF, -0.0f, -0.0f},
        {LG_VMATH_ERF, INFINITY, 1.0f},     {LG_VMATH_ERF, -INFINITY, -1.0f},
        {LG_VMATH_ERFC, INFINITY, 0.0f},    {LG_VMATH_ERFC, -INFINITY, 2.0f},
        {LG_VMATH_ERFC, 0.0f, 1.0f},        {LG_VMATH_GELU_ERF, INFINITY, INFINITY},
        {LG_VMATH_GELU_ERF, -0.0f, -0.0f},  {LG_VMATH_GELU_ERF, -20.0f, -0.0f},
    };
    const float nan_in[] = {NAN, -NAN, -1.0f, -1e-45f, -INFINITY}; /* log: all NaN */
    for (int isa = LG_ISA_AVX2; isa <= (int)lg__cpu_isa_hw(); isa++) {
        vmath_fn f = isa == LG_ISA_AVX512 ? lg__vmath_avx512 : lg__vmath_avx2;
        for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
            float y;
            f(v[i].fn, &v[i].x, &y, 1);
            cr_assert(memcmp(&y, &v[i].want, 4) == 0, "isa %d %s(%g) = %g, want %g", isa,
                      fn_names[v[i].fn], (double)v[i].x, (double)y, (double)v[i].want);
        }
        float y[5];
        f(LG_VMATH_LOG, nan_in, y, 5);
        for (int i = 0; i < 5; i++)
            cr_assert(isnan(y[i]), "isa %d log(%g) = %g", isa, (double)nan_in[i], (double)y[i]);
        for (int fn = 0; fn < LG_VMATH_COUNT; fn++) {
            float q = NAN, r;
            f(fn, &q, &r, 1);
            cr_assert(isnan(r), "isa %d %s(NaN) = %g", isa, fn_names[fn], (double)r);
        }
    }
}
