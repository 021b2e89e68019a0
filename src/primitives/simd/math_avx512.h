/* Vector math for the eltwise kernels, AVX-512 (16 f32 lanes). Include only
 * from files built with the AVX-512 flags (*avx512.c). math_avx2.h has the
 * same functions, same algorithms and same polynomials on 8 lanes.
 *
 * Algorithms (polynomials fitted with mpmath's Chebyshev fit, coefficients
 * rounded to f32):
 *  - exp: n = round(x / ln2), r = x - n ln2 (two-part ln2, |r| <= ln2 / 2),
 *    e^r = 1 + r + r^2 q(r) (q of degree 4), then scalef by 2^n (one rounding,
 *    also into the subnormal range and to +inf). x is clamped to [-104, 89].
 *  - expm1 (x <= 18.5): the same reduction, expm1(r) = r + r^2 q(r), then
 *    expm1(x) = 2^n expm1(r) + (2^n - 1) in one fma.
 *  - log: x = 2^e m with m in [0.75, 1.5) (getexp / getmant: subnormals are
 *    exact), log1p(f) = f + f^2 Q(f) (Q of degree 8, f = m - 1), plus e ln2.
 *  - tanh: |x| + |x|^3 T(x^2) (T of degree 5) for |x| < 0.55, else
 *    expm1(2|x|) / (expm1(2|x|) + 2) with |x| clamped to 9.1 (tanh is 1 in
 *    f32 beyond); the sign is copied from x.
 *  - erfc(a), a = |z| <= 10.5: t S(u) e^{-a^2}, t = 1 / (1 + p a), u = p a t
 *    (= 1 - t, but rounded relative to itself), p = 0.3275911, S of degree 9
 *    in u - 0.384 fitted on a in [0, 10.1]; a^2 is split exactly (fma) into
 *    h + l and e^{-a^2} = e^{-h} (1 - l); the 2^n of e^{-h} is applied last,
 *    so a subnormal result is rounded once. erfc(z) = 2 - erfc(|z|), z < 0.
 *  - gelu_erf(x) = 0.5 x erfc(-x / sqrt 2) on the same pieces: x - S for
 *    x > 0, S for x <= 0, S = (x 0.5 w) 2^n (see v16_gelu_erf).
 *  - erf: y P(y^2) (P of degree 5) for |y| < 0.875, else sign(y) (1 - erfc|y|).
 *
 * Maximum errors, measured over every f32 input against the double-precision
 * libm result (tests/primitives/test_eltwise_math.c asserts them on dense
 * sweeps): see LG_ELT_ULP_* in eltwise.h. Special values: NaN in gives NaN
 * out; exp(-inf) = 0, exp(+inf) = +inf, log(0) = -inf, log(x < 0) = NaN,
 * log(+inf) = +inf, tanh(+-inf) = +-1, erf(+-inf) = +-1, erfc(-inf) = 2,
 * erfc(+inf) = 0; odd functions keep the sign of -0. */
#ifndef LG_ELTWISE_MATH_AVX512_H
#define LG_ELTWISE_MATH_AVX512_H

#include <immintrin.h>

typedef __m512 v16;

#define V16(c) _mm512_set1_ps(c)

static inline v16 v16_abs(v16 x) {
    return _mm512_castsi512_ps(
        _mm512_and_si512(_mm512_castps_si512(x), _mm512_set1_epi32(0x7fffffff)));
}

/* x with the sign bit of s OR-ed in (|x| must be non-negative). */
static inline v16 v16_orsign(v16 x, v16 s) {
    __m512i sign = _mm512_and_si512(_mm512_castps_si512(s), _mm512_set1_epi32((int)0x80000000u));
    return _mm512_castsi512_ps(_mm512_or_si512(_mm512_castps_si512(x), sign));
}

/* e^r - 1 - r = r^2 q(r), |r| <= ln2 / 2. */
static inline v16 v16_expq(v16 r) {
    v16 q = V16(0.0013926175888627768f);
    q = _mm512_fmadd_ps(q, r, V16(0.008363173343241215f));
    q = _mm512_fmadd_ps(q, r, V16(0.041666556149721146f));
    q = _mm512_fmadd_ps(q, r, V16(0.16666577756404877f));
    q = _mm512_fmadd_ps(q, r, V16(0.5f));
    return _mm512_fmadd_ps(_mm512_mul_ps(r, r), q, r); /* expm1(r) */
}

/* Range reduction: x = n ln2 + r. Returns r; *n gets n (an integral f32). */
static inline v16 v16_reduce(v16 x, v16 *n) {
    *n = _mm512_roundscale_ps(_mm512_mul_ps(x, V16(1.4426950216293335f)),
                              _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    v16 r = _mm512_fnmadd_ps(*n, V16(0.693145751953125f), x);
    return _mm512_fnmadd_ps(*n, V16(1.428606765330187e-06f), r);
}

/* e^x = p * 2^n with p in [0.7, 1.42]: the parts, x clamped to [-104, 89]. */
static inline v16 v16_exp_parts(v16 x, v16 *n) {
    x = _mm512_max_ps(V16(-104.0f), _mm512_min_ps(V16(89.0f), x)); /* NaN stays */
    v16 r = v16_reduce(x, n);
    return _mm512_add_ps(v16_expq(r), V16(1.0f));
}

static inline v16 v16_exp(v16 x) {
    v16 n, p = v16_exp_parts(x, &n);
    return _mm512_scalef_ps(p, n);
}

/* e^x - 1 for x <= 18.5 (larger x is clamped there: callers never need it). */
static inline v16 v16_expm1(v16 x) {
    v16 xc = _mm512_max_ps(V16(-26.0f), _mm512_min_ps(V16(18.5f), x));
    v16 n, e = v16_expq(v16_reduce(xc, &n));
    v16 two_n = _mm512_scalef_ps(V16(1.0f), n);
    v16 y = _mm512_fmadd_ps(two_n, e, _mm512_sub_ps(two_n, V16(1.0f)));
    /* Keep -0 (the reduction turns it into +0). */
    return _mm512_mask_mov_ps(y, _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_EQ_OQ), x);
}

static inline v16 v16_log(v16 x) {
    v16 m = _mm512_getmant_ps(x, _MM_MANT_NORM_p75_1p5, _MM_MANT_SIGN_zero);
    v16 e = _mm512_getexp_ps(x);
    e = _mm512_mask_add_ps(e, _mm512_cmp_ps_mask(m, V16(1.0f), _CMP_LT_OQ), e, V16(1.0f));
    v16 f = _mm512_sub_ps(m, V16(1.0f));
    v16 q = V16(-0.047382425516843796f);
    q = _mm512_fmadd_ps(q, f, V16(0.10625629127025604f));
    q = _mm512_fmadd_ps(q, f, V16(-0.13122877478599548f));
    q = _mm512_fmadd_ps(q, f, V16(0.14438456296920776f));
    q = _mm512_fmadd_ps(q, f, V16(-0.16647644340991974f));
    q = _mm512_fmadd_ps(q, f, V16(0.1999359279870987f));
    q = _mm512_fmadd_ps(q, f, V16(-0.25000154972076416f));
    q = _mm512_fmadd_ps(q, f, V16(0.33333396911621094f));
    q = _mm512_fmadd_ps(q, f, V16(-0.5f));
    v16 y = _mm512_fmadd_ps(_mm512_mul_ps(f, f), q, f);
    y = _mm512_fmadd_ps(e, V16(1.428606765330187e-06f), y);
    y = _mm512_fmadd_ps(e, V16(0.693145751953125f), y);
    /* Specials: 0 -> -inf, < 0 -> NaN, +inf -> +inf, NaN -> NaN. */
    y = _mm512_mask_mov_ps(y, _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_EQ_OQ),
                           V16(-__builtin_inff()));
    y = _mm512_mask_mov_ps(y, _mm512_cmp_ps_mask(x, V16(__builtin_inff()), _CMP_EQ_OQ), x);
    __mmask16 bad = _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_NGE_UQ); /* < 0 or NaN */
    return _mm512_mask_mov_ps(y, bad, V16(__builtin_nanf("")));
}

static inline v16 v16_tanh(v16 x) {
    v16 a = _mm512_min_ps(V16(9.1f), v16_abs(x));
    v16 em = v16_expm1(_mm512_add_ps(a, a));
    v16 big = _mm512_div_ps(em, _mm512_add_ps(em, V16(2.0f)));
    v16 u = _mm512_mul_ps(a, a);
    v16 p = V16(0.0025263905990868807f);
    p = _mm512_fmadd_ps(p, u, V16(-0.008526332676410675f));
    p = _mm512_fmadd_ps(p, u, V16(0.021818449720740318f));
    p = _mm512_fmadd_ps(p, u, V16(-0.053964700549840927f));
    p = _mm512_fmadd_ps(p, u, V16(0.1333332359790802f));
    p = _mm512_fmadd_ps(p, u, V16(-0.3333333432674408f));
    v16 small = _mm512_fmadd_ps(_mm512_mul_ps(a, u), p, a);
    v16 t = _mm512_mask_mov_ps(big, _mm512_cmp_ps_mask(a, V16(0.55f), _CMP_LT_OQ), small);
    return v16_orsign(t, x);
}

/* erfc(a) for 0 <= a <= 10.5 as w * 2^n (w in the normal range), so that a
 * caller can multiply w by a factor before the one rounding of the scaling.
 * No clamping here: erf / erfc clamp a to 10.5 (erfc is 0 in f32 beyond),
 * gelu_erf masks those lanes instead. */
static inline v16 v16_erfc_parts(v16 a, v16 k, v16 *n) {
    /* The polynomial's variable is u = p a / (1 + p a) = 1 - t: its rounding
     * error is relative to u, so small a loses nothing (1 - t would carry
     * t's absolute error, amplified about 3x in erfc near 0). */
    v16 one = V16(1.0f), pa = _mm512_mul_ps(a, V16(0.32759109139442444f));
    v16 dh = _mm512_add_ps(pa, one);
    v16 t = _mm512_rcp14_ps(dh);
    t = _mm512_fmadd_ps(t, _mm512_fnmadd_ps(t, dh, one), t); /* Newton: within an ulp */
    v16 c = _mm512_fmsub_ps(pa, t, V16(0.38395488262176514f));
    v16 s = V16(-0.059778645634651184f);
    s = _mm512_fmadd_ps(s, c, V16(-0.002574083162471652f));
    s = _mm512_fmadd_ps(s, c, V16(0.16223473846912384f));
    s = _mm512_fmadd_ps(s, c, V16(-0.11164457350969315f));
    s = _mm512_fmadd_ps(s, c, V16(-0.30773168802261353f));
    s = _mm512_fmadd_ps(s, c, V16(0.87565195560455322f));
    s = _mm512_fmadd_ps(s, c, V16(-1.2127839326858521f));
    s = _mm512_fmadd_ps(s, c, V16(1.1460568904876709f));
    s = _mm512_fmadd_ps(s, c, V16(-0.80533665418624878f));
    s = _mm512_fmadd_ps(s, c, V16(0.43213561177253723f));
    v16 h = _mm512_mul_ps(a, a);
    v16 l = _mm512_fmsub_ps(a, a, h); /* a^2 = h + l exactly */
    /* e^-h = (1 + expm1(r)) 2^n, -h = n ln2 + r (h <= 110.25: no clamp); n
     * rounded by the 1.5 * 2^23 shifter. */
    v16 sh = _mm512_fmadd_ps(h, V16(-1.4426950216293335f), V16(12582912.0f));
    *n = _mm512_sub_ps(sh, V16(12582912.0f));
    v16 r = _mm512_fnmsub_ps(*n, V16(0.693145751953125f), h);
    r = _mm512_fnmadd_ps(*n, V16(1.428606765330187e-06f), r);
    /* k e^r = k + r (k + r k q(r)), Horner with q scaled by k (a power of 2). */
    v16 q = _mm512_mul_ps(k, V16(0.0013926175888627768f));
    q = _mm512_fmadd_ps(q, r, _mm512_mul_ps(k, V16(0.008363173343241215f)));
    q = _mm512_fmadd_ps(q, r, _mm512_mul_ps(k, V16(0.041666556149721146f)));
    q = _mm512_fmadd_ps(q, r, _mm512_mul_ps(k, V16(0.16666577756404877f)));
    q = _mm512_fmadd_ps(q, r, _mm512_mul_ps(k, V16(0.5f)));
    q = _mm512_fmadd_ps(q, r, k);
    v16 p = _mm512_fmadd_ps(q, r, k);
    v16 w = _mm512_mul_ps(_mm512_mul_ps(t, s), p);
    return _mm512_fnmadd_ps(w, l, w); /* w (1 - l) */
}

static inline v16 v16_erfc(v16 z) {
    v16 n, w = v16_erfc_parts(_mm512_min_ps(V16(10.5f), v16_abs(z)), V16(1.0f), &n);
    v16 e = _mm512_scalef_ps(w, n);
    __mmask16 neg = _mm512_cmp_ps_mask(z, _mm512_setzero_ps(), _CMP_LT_OQ);
    return _mm512_mask_sub_ps(e, neg, V16(2.0f), e);
}

static inline v16 v16_erf(v16 y) {
    v16 a = v16_abs(y);
    v16 u = _mm512_mul_ps(y, y);
    v16 p = V16(-0.0006214585155248642f);
    p = _mm512_fmadd_ps(p, u, V16(0.0050343708135187626f));
    p = _mm512_fmadd_ps(p, u, V16(-0.026792947202920914f));
    p = _mm512_fmadd_ps(p, u, V16(0.11282496899366379f));
    p = _mm512_fmadd_ps(p, u, V16(-0.37612554430961609f));
    p = _mm512_fmadd_ps(p, u, V16(-6.7597682118503144e-08f));
    /* 2 / sqrt(pi) = 1.128379225730896 + p(0): the split keeps it exact. On
     * |y|, the sign OR-ed in after: keeps erf(-0) = -0. */
    v16 small = v16_orsign(_mm512_fmadd_ps(a, V16(1.128379225730896f), _mm512_mul_ps(a, p)), y);
    v16 n, w = v16_erfc_parts(_mm512_min_ps(V16(10.5f), a), V16(1.0f), &n);
    v16 big = v16_orsign(_mm512_sub_ps(V16(1.0f), _mm512_scalef_ps(w, n)), y);
    return _mm512_mask_mov_ps(big, _mm512_cmp_ps_mask(a, V16(0.875f), _CMP_LT_OQ), small);
}

/* gelu_erf(x) = 0.5 x erfc(-x / sqrt 2), with z rounded as the scalar
 * reference rounds it. With w 2^n = 0.5 erfc(|z|) (k = 0.5): for x <= 0 the
 * result is S = (x w) 2^n, scaled last so that a subnormal result is rounded
 * once; for x > 0 it is x - S (no cancellation: S <= x / 2). Beyond |z| =
 * 10.5 w is 0: x for x > 0, x * 0 below (-0, NaN for -inf, as the
 * reference); x is clamped to 1e30 in the product so that +inf gives +inf. */
static inline v16 v16_gelu_erf(v16 x) {
    v16 a = v16_abs(_mm512_mul_ps(x, V16(0.7071067690849304f)));
    /* Clamped: scalef(NaN, -inf) is 0, so n must stay finite. */
    v16 n, w = v16_erfc_parts(_mm512_min_ps(V16(10.5f), a), V16(0.5f), &n);
    w = _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(a, V16(10.5f), _CMP_LE_OQ), w);
    v16 s = _mm512_scalef_ps(_mm512_mul_ps(_mm512_min_ps(V16(1e30f), x), w), n);
    return _mm512_mask_sub_ps(s, _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_GT_OQ), x, s);
}

#endif /* LG_ELTWISE_MATH_AVX512_H */
