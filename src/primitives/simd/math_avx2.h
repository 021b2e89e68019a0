/* Vector math for the eltwise kernels, AVX2 + FMA (8 f32 lanes). Include only
 * from files built with the AVX2 flags (*avx2.c). The algorithms, polynomials
 * and error bounds are those of math_avx512.h (read its comment); what AVX2
 * lacks is emulated:
 *  - scalef(p, n) (p * 2^n with one rounding) is two exact-or-final
 *    multiplications by 2^(n/2) and 2^(n - n/2), both normal numbers;
 *  - getexp / getmant read the bits, subnormals scaled by 2^23 first;
 *  - the 14-bit reciprocal of erfc's t is a division (the Newton step that
 *    folds in the low part stays). */
#ifndef LG_ELTWISE_MATH_AVX2_H
#define LG_ELTWISE_MATH_AVX2_H

#include <immintrin.h>

typedef __m256 v8;

#define V8(c)  _mm256_set1_ps(c)
#define V8I(c) _mm256_set1_epi32(c)

static inline v8 v8_abs(v8 x) {
    return _mm256_and_ps(x, _mm256_castsi256_ps(V8I(0x7fffffff)));
}

/* x with the sign bit of s OR-ed in (x must be non-negative). */
static inline v8 v8_orsign(v8 x, v8 s) {
    return _mm256_or_ps(x, _mm256_and_ps(s, _mm256_castsi256_ps(V8I((int)0x80000000u))));
}

static inline v8 v8_sel(v8 mask, v8 yes, v8 no) {
    return _mm256_blendv_ps(no, yes, mask);
}

/* 2^k for integer k in [-126, 127]. */
static inline v8 v8_pow2i(__m256i k) {
    return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(k, V8I(127)), 23));
}

/* p * 2^n for integral n in [-252, 254], rounded once. */
static inline v8 v8_scalef(v8 p, v8 n) {
    __m256i k = _mm256_cvtps_epi32(n), k1 = _mm256_srai_epi32(k, 1);
    __m256i k2 = _mm256_sub_epi32(k, k1);
    return _mm256_mul_ps(_mm256_mul_ps(p, v8_pow2i(k1)), v8_pow2i(k2));
}

/* e^r - 1 - r = r^2 q(r), |r| <= ln2 / 2; returns expm1(r). */
static inline v8 v8_expq(v8 r) {
    v8 q = V8(0.0013926175888627768f);
    q = _mm256_fmadd_ps(q, r, V8(0.008363173343241215f));
    q = _mm256_fmadd_ps(q, r, V8(0.041666556149721146f));
    q = _mm256_fmadd_ps(q, r, V8(0.16666577756404877f));
    q = _mm256_fmadd_ps(q, r, V8(0.5f));
    return _mm256_fmadd_ps(_mm256_mul_ps(r, r), q, r);
}

static inline v8 v8_reduce(v8 x, v8 *n) {
    *n = _mm256_round_ps(_mm256_mul_ps(x, V8(1.4426950216293335f)),
                         _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    v8 r = _mm256_fnmadd_ps(*n, V8(0.693145751953125f), x);
    return _mm256_fnmadd_ps(*n, V8(1.428606765330187e-06f), r);
}

static inline v8 v8_exp_parts(v8 x, v8 *n) {
    x = _mm256_max_ps(V8(-104.0f), _mm256_min_ps(V8(89.0f), x)); /* NaN stays */
    v8 r = v8_reduce(x, n);
    return _mm256_add_ps(v8_expq(r), V8(1.0f));
}

static inline v8 v8_exp(v8 x) {
    v8 n, p = v8_exp_parts(x, &n);
    return v8_scalef(p, n);
}

/* e^x - 1 for x <= 18.5 (larger x is clamped there). */
static inline v8 v8_expm1(v8 x) {
    v8 xc = _mm256_max_ps(V8(-26.0f), _mm256_min_ps(V8(18.5f), x));
    v8 n, e = v8_expq(v8_reduce(xc, &n));
    v8 two_n = v8_pow2i(_mm256_cvtps_epi32(n));
    v8 y = _mm256_fmadd_ps(two_n, e, _mm256_sub_ps(two_n, V8(1.0f)));
    return v8_sel(_mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_EQ_OQ), x, y); /* keep -0 */
}

static inline v8 v8_log(v8 x) {
    /* Subnormals: scale by 2^23 (exact) and take 23 off the exponent. */
    v8 den = _mm256_cmp_ps(x, V8(0x1p-126f), _CMP_LT_OQ);
    v8 xs = v8_sel(den, _mm256_mul_ps(x, V8(0x1p23f)), x);
    __m256i b = _mm256_castps_si256(xs);
    __m256i ei = _mm256_sub_epi32(_mm256_and_si256(_mm256_srli_epi32(b, 23), V8I(0xff)), V8I(127));
    v8 e = _mm256_sub_ps(_mm256_cvtepi32_ps(ei), _mm256_and_ps(den, V8(23.0f)));
    v8 m = _mm256_castsi256_ps(
        _mm256_or_si256(_mm256_and_si256(b, V8I(0x7fffff)), V8I(0x3f800000))); /* [1, 2) */
    v8 hi = _mm256_cmp_ps(m, V8(1.5f), _CMP_GE_OQ); /* to [0.75, 1.5) as getmant */
    m = v8_sel(hi, _mm256_mul_ps(m, V8(0.5f)), m);
    e = _mm256_add_ps(e, _mm256_and_ps(hi, V8(1.0f)));
    v8 f = _mm256_sub_ps(m, V8(1.0f));
    v8 q = V8(-0.047382425516843796f);
    q = _mm256_fmadd_ps(q, f, V8(0.10625629127025604f));
    q = _mm256_fmadd_ps(q, f, V8(-0.13122877478599548f));
    q = _mm256_fmadd_ps(q, f, V8(0.14438456296920776f));
    q = _mm256_fmadd_ps(q, f, V8(-0.16647644340991974f));
    q = _mm256_fmadd_ps(q, f, V8(0.1999359279870987f));
    q = _mm256_fmadd_ps(q, f, V8(-0.25000154972076416f));
    q = _mm256_fmadd_ps(q, f, V8(0.33333396911621094f));
    q = _mm256_fmadd_ps(q, f, V8(-0.5f));
    v8 y = _mm256_fmadd_ps(_mm256_mul_ps(f, f), q, f);
    y = _mm256_fmadd_ps(e, V8(1.428606765330187e-06f), y);
    y = _mm256_fmadd_ps(e, V8(0.693145751953125f), y);
    y = v8_sel(_mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_EQ_OQ), V8(-__builtin_inff()), y);
    y = v8_sel(_mm256_cmp_ps(x, V8(__builtin_inff()), _CMP_EQ_OQ), x, y);
    v8 bad = _mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_NGE_UQ); /* < 0 or NaN */
    return v8_sel(bad, V8(__builtin_nanf("")), y);
}

static inline v8 v8_tanh(v8 x) {
    v8 a = _mm256_min_ps(V8(9.1f), v8_abs(x));
    v8 em = v8_expm1(_mm256_add_ps(a, a));
    v8 big = _mm256_div_ps(em, _mm256_add_ps(em, V8(2.0f)));
    v8 u = _mm256_mul_ps(a, a);
    v8 p = V8(0.0025263905990868807f);
    p = _mm256_fmadd_ps(p, u, V8(-0.008526332676410675f));
    p = _mm256_fmadd_ps(p, u, V8(0.021818449720740318f));
    p = _mm256_fmadd_ps(p, u, V8(-0.053964700549840927f));
    p = _mm256_fmadd_ps(p, u, V8(0.1333332359790802f));
    p = _mm256_fmadd_ps(p, u, V8(-0.3333333432674408f));
    v8 small = _mm256_fmadd_ps(_mm256_mul_ps(a, u), p, a);
    return v8_orsign(v8_sel(_mm256_cmp_ps(a, V8(0.55f), _CMP_LT_OQ), small, big), x);
}

/* erfc(a), 0 <= a <= 10.5, as w * 2^n (see math_avx512.h). */
static inline v8 v8_erfc_parts(v8 a, v8 k, v8 *n) {
    /* The polynomial's variable is u = p a / (1 + p a) = 1 - t: its rounding
     * error is relative to u, so small a loses nothing (1 - t would carry
     * t's absolute error, amplified about 3x in erfc near 0). */
    v8 one = V8(1.0f), pa = _mm256_mul_ps(a, V8(0.32759109139442444f));
    v8 dh = _mm256_add_ps(pa, one);
    v8 t = _mm256_div_ps(one, dh);
    v8 c = _mm256_fmsub_ps(pa, t, V8(0.38395488262176514f));
    v8 s = V8(-0.059778645634651184f);
    s = _mm256_fmadd_ps(s, c, V8(-0.002574083162471652f));
    s = _mm256_fmadd_ps(s, c, V8(0.16223473846912384f));
    s = _mm256_fmadd_ps(s, c, V8(-0.11164457350969315f));
    s = _mm256_fmadd_ps(s, c, V8(-0.30773168802261353f));
    s = _mm256_fmadd_ps(s, c, V8(0.87565195560455322f));
    s = _mm256_fmadd_ps(s, c, V8(-1.2127839326858521f));
    s = _mm256_fmadd_ps(s, c, V8(1.1460568904876709f));
    s = _mm256_fmadd_ps(s, c, V8(-0.80533665418624878f));
    s = _mm256_fmadd_ps(s, c, V8(0.43213561177253723f));
    v8 h = _mm256_mul_ps(a, a);
    v8 l = _mm256_fmsub_ps(a, a, h); /* a^2 = h + l exactly */
    /* e^-h = (1 + expm1(r)) 2^n, -h = n ln2 + r (h <= 110.25: no clamp); n
     * rounded by the 1.5 * 2^23 shifter. */
    v8 sh = _mm256_fmadd_ps(h, V8(-1.4426950216293335f), V8(12582912.0f));
    *n = _mm256_sub_ps(sh, V8(12582912.0f));
    v8 r = _mm256_fnmsub_ps(*n, V8(0.693145751953125f), h);
    r = _mm256_fnmadd_ps(*n, V8(1.428606765330187e-06f), r);
    /* k e^r = k + r (k + r k q(r)), Horner with q scaled by k (a power of 2). */
    v8 q = _mm256_mul_ps(k, V8(0.0013926175888627768f));
    q = _mm256_fmadd_ps(q, r, _mm256_mul_ps(k, V8(0.008363173343241215f)));
    q = _mm256_fmadd_ps(q, r, _mm256_mul_ps(k, V8(0.041666556149721146f)));
    q = _mm256_fmadd_ps(q, r, _mm256_mul_ps(k, V8(0.16666577756404877f)));
    q = _mm256_fmadd_ps(q, r, _mm256_mul_ps(k, V8(0.5f)));
    q = _mm256_fmadd_ps(q, r, k);
    v8 p = _mm256_fmadd_ps(q, r, k);
    v8 w = _mm256_mul_ps(_mm256_mul_ps(t, s), p);
    return _mm256_fnmadd_ps(w, l, w); /* w (1 - l) */
}

static inline v8 v8_erfc(v8 z) {
    v8 n, w = v8_erfc_parts(_mm256_min_ps(V8(10.5f), v8_abs(z)), V8(1.0f), &n);
    v8 e = v8_scalef(w, n);
    return v8_sel(_mm256_cmp_ps(z, _mm256_setzero_ps(), _CMP_LT_OQ), _mm256_sub_ps(V8(2.0f), e), e);
}

static inline v8 v8_erf(v8 y) {
    v8 a = v8_abs(y), u = _mm256_mul_ps(y, y);
    v8 p = V8(-0.0006214585155248642f);
    p = _mm256_fmadd_ps(p, u, V8(0.0050343708135187626f));
    p = _mm256_fmadd_ps(p, u, V8(-0.026792947202920914f));
    p = _mm256_fmadd_ps(p, u, V8(0.11282496899366379f));
    p = _mm256_fmadd_ps(p, u, V8(-0.37612554430961609f));
    p = _mm256_fmadd_ps(p, u, V8(-6.7597682118503144e-08f));
    v8 small = v8_orsign(_mm256_fmadd_ps(a, V8(1.128379225730896f), _mm256_mul_ps(a, p)), y);
    v8 n, w = v8_erfc_parts(_mm256_min_ps(V8(10.5f), a), V8(1.0f), &n);
    v8 big = v8_orsign(_mm256_sub_ps(V8(1.0f), v8_scalef(w, n)), y);
    return v8_sel(_mm256_cmp_ps(a, V8(0.875f), _CMP_LT_OQ), small, big);
}

/* gelu_erf(x) = 0.5 x erfc(-x / sqrt 2), as math_avx512.h; a is clamped
 * before erfc_parts so that the emulated scalef sees a sane n. */
static inline v8 v8_gelu_erf(v8 x) {
    v8 a = v8_abs(_mm256_mul_ps(x, V8(0.7071067690849304f)));
    v8 n, w = v8_erfc_parts(_mm256_min_ps(V8(10.5f), a), V8(0.5f), &n);
    w = _mm256_and_ps(_mm256_cmp_ps(a, V8(10.5f), _CMP_LE_OQ), w);
    v8 s = v8_scalef(_mm256_mul_ps(_mm256_min_ps(V8(1e30f), x), w), n);
    return v8_sel(_mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_GT_OQ), _mm256_sub_ps(x, s), s);
}

#endif /* LG_ELTWISE_MATH_AVX2_H */
