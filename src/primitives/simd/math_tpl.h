/* Vector math, written once for every ISA: exp, expm1, log, tanh, erf, erfc
 * and gelu_erf on the vector layer's names (vec, vmask, v_fma, v_sel, ...).
 * Included at the end of simd_avx2.h and simd_avx512.h, which supply, besides
 * the arithmetic, the few steps an ISA does its own way:
 *  - v_scalef(p, n): p * 2^n for integral n in [-252, 254], rounded once
 *    (AVX-512 scalef; AVX2: two multiplications by normal powers of 2);
 *  - v_pow2n(n): 2^n for integral n in [-126, 127], exactly;
 *  - v_mant_exp(x, &e): m in [0.75, 1.5) and e with x = m 2^e for finite
 *    x > 0, subnormals exact (AVX-512 getmant / getexp; AVX2 reads the
 *    bits, subnormals scaled by 2^23 first);
 *  - v_recip(x): 1 / x within an ulp (AVX-512 rcp14 and a Newton step; AVX2
 *    a division);
 *  - v_abs(x), v_orsign(x, s) (x >= 0 with the sign bit of s OR-ed in).
 * The functions are static inline in each file that includes its ISA's
 * layer, so every ISA runs these same polynomials and operation order.
 *
 * Algorithms (polynomials fitted with mpmath's Chebyshev fit, coefficients
 * rounded to f32):
 *  - exp: n = round(x / ln2), r = x - n ln2 (two-part ln2, |r| <= ln2 / 2),
 *    e^r = 1 + r + r^2 q(r) (q of degree 4), then scalef by 2^n (one rounding,
 *    also into the subnormal range and to +inf). x is clamped to [-104, 89].
 *  - expm1 (x <= 18.5): the same reduction, expm1(r) = r + r^2 q(r), then
 *    expm1(x) = 2^n expm1(r) + (2^n - 1) in one fma.
 *  - log: x = 2^e m with m in [0.75, 1.5) (subnormals are exact), log1p(f) =
 *    f + f^2 Q(f) (Q of degree 8, f = m - 1), plus e ln2.
 *  - tanh: |x| + |x|^3 T(x^2) (T of degree 5) for |x| < 0.55, else
 *    expm1(2|x|) / (expm1(2|x|) + 2) with |x| clamped to 9.1 (tanh is 1 in
 *    f32 beyond); the sign is copied from x.
 *  - erfc(a), a = |z| <= 10.5: t S(u) e^{-a^2}, t = 1 / (1 + p a), u = p a t
 *    (= 1 - t, but rounded relative to itself), p = 0.3275911, S of degree 9
 *    in u - 0.384 fitted on a in [0, 10.1]; a^2 is split exactly (fma) into
 *    h + l and e^{-a^2} = e^{-h} (1 - l); the 2^n of e^{-h} is applied last,
 *    so a subnormal result is rounded once. erfc(z) = 2 - erfc(|z|), z < 0.
 *  - gelu_erf(x) = 0.5 x erfc(-x / sqrt 2) on the same pieces: x - S for
 *    x > 0, S for x <= 0, S = (x 0.5 w) 2^n (see v_gelu_erf).
 *  - erf: y P(y^2) (P of degree 5) for |y| < 0.875, else sign(y) (1 - erfc|y|).
 *
 * Maximum errors, measured over every f32 input against the double-precision
 * libm result (tests/primitives/test_eltwise_math.c asserts them on dense
 * sweeps under every ISA cap): see LG_ELT_ULP_* in eltwise.h. Special
 * values: NaN in gives NaN out; exp(-inf) = 0, exp(+inf) = +inf, log(0) =
 * -inf, log(x < 0) = NaN, log(+inf) = +inf, tanh(+-inf) = +-1, erf(+-inf) =
 * +-1, erfc(-inf) = 2, erfc(+inf) = 0; odd functions keep the sign of -0. */
#ifndef LG_PRIMITIVES_SIMD_MATH_TPL_H
#define LG_PRIMITIVES_SIMD_MATH_TPL_H

/* e^r - 1 - r = r^2 q(r), |r| <= ln2 / 2; returns expm1(r). */
static inline vec vm_expq(vec r) {
    vec q = v_set1(0.0013926175888627768f);
    q = v_fma(q, r, v_set1(0.008363173343241215f));
    q = v_fma(q, r, v_set1(0.041666556149721146f));
    q = v_fma(q, r, v_set1(0.16666577756404877f));
    q = v_fma(q, r, v_set1(0.5f));
    return v_fma(v_mul(r, r), q, r);
}

/* Range reduction: x = n ln2 + r. Returns r; *n gets n (an integral f32). */
static inline vec vm_reduce(vec x, vec *n) {
    *n = v_round(v_mul(x, v_set1(1.4426950216293335f)));
    vec r = v_fnma(*n, v_set1(0.693145751953125f), x);
    return v_fnma(*n, v_set1(1.428606765330187e-06f), r);
}

static inline vec v_exp(vec x) {
    x = v_max(v_set1(-104.0f), v_min(v_set1(89.0f), x)); /* NaN stays */
    vec n, r = vm_reduce(x, &n);
    return v_scalef(v_add(vm_expq(r), v_set1(1.0f)), n);
}

/* e^x - 1 for x <= 18.5 (larger x is clamped there: callers never need it). */
static inline vec v_expm1(vec x) {
    vec xc = v_max(v_set1(-26.0f), v_min(v_set1(18.5f), x));
    vec n, e = vm_expq(vm_reduce(xc, &n));
    vec two_n = v_pow2n(n);
    vec y = v_fma(two_n, e, v_sub(two_n, v_set1(1.0f)));
    return v_sel(v_eq(x, v_zero()), x, y); /* keep -0 (the reduction makes it +0) */
}

static inline vec v_log(vec x) {
    vec e, m = v_mant_exp(x, &e);
    vec f = v_sub(m, v_set1(1.0f));
    vec q = v_set1(-0.047382425516843796f);
    q = v_fma(q, f, v_set1(0.10625629127025604f));
    q = v_fma(q, f, v_set1(-0.13122877478599548f));
    q = v_fma(q, f, v_set1(0.14438456296920776f));
    q = v_fma(q, f, v_set1(-0.16647644340991974f));
    q = v_fma(q, f, v_set1(0.1999359279870987f));
    q = v_fma(q, f, v_set1(-0.25000154972076416f));
    q = v_fma(q, f, v_set1(0.33333396911621094f));
    q = v_fma(q, f, v_set1(-0.5f));
    vec y = v_fma(v_mul(f, f), q, f);
    y = v_fma(e, v_set1(1.428606765330187e-06f), y);
    y = v_fma(e, v_set1(0.693145751953125f), y);
    /* Specials: 0 -> -inf, < 0 -> NaN, +inf -> +inf, NaN -> NaN. */
    y = v_sel(v_eq(x, v_zero()), v_set1(-__builtin_inff()), y);
    y = v_sel(v_eq(x, v_set1(__builtin_inff())), x, y);
    return v_sel(v_nge(x, v_zero()), v_set1(__builtin_nanf("")), y);
}

static inline vec v_tanh(vec x) {
    vec a = v_min(v_set1(9.1f), v_abs(x));
    vec em = v_expm1(v_add(a, a));
    vec big = v_div(em, v_add(em, v_set1(2.0f)));
    vec u = v_mul(a, a);
    vec p = v_set1(0.0025263905990868807f);
    p = v_fma(p, u, v_set1(-0.008526332676410675f));
    p = v_fma(p, u, v_set1(0.021818449720740318f));
    p = v_fma(p, u, v_set1(-0.053964700549840927f));
    p = v_fma(p, u, v_set1(0.1333332359790802f));
    p = v_fma(p, u, v_set1(-0.3333333432674408f));
    vec small = v_fma(v_mul(a, u), p, a);
    return v_orsign(v_sel(v_lt(a, v_set1(0.55f)), small, big), x);
}

/* erfc(a) for 0 <= a <= 10.5 as w * 2^n (w in the normal range), so that a
 * caller can multiply w by a factor before the one rounding of the scaling;
 * k (a power of 2) scales w. No clamping here: erf / erfc clamp a to 10.5
 * (erfc is 0 in f32 beyond), gelu_erf masks those lanes instead. */
static inline vec vm_erfc_parts(vec a, vec k, vec *n) {
    /* The polynomial's variable is u = p a / (1 + p a) = 1 - t: its rounding
     * error is relative to u, so small a loses nothing (1 - t would carry
     * t's absolute error, amplified about 3x in erfc near 0). */
    vec pa = v_mul(a, v_set1(0.32759109139442444f));
    vec t = v_recip(v_add(pa, v_set1(1.0f)));
    vec c = v_fms(pa, t, v_set1(0.38395488262176514f));
    vec s = v_set1(-0.059778645634651184f);
    s = v_fma(s, c, v_set1(-0.002574083162471652f));
    s = v_fma(s, c, v_set1(0.16223473846912384f));
    s = v_fma(s, c, v_set1(-0.11164457350969315f));
    s = v_fma(s, c, v_set1(-0.30773168802261353f));
    s = v_fma(s, c, v_set1(0.87565195560455322f));
    s = v_fma(s, c, v_set1(-1.2127839326858521f));
    s = v_fma(s, c, v_set1(1.1460568904876709f));
    s = v_fma(s, c, v_set1(-0.80533665418624878f));
    s = v_fma(s, c, v_set1(0.43213561177253723f));
    vec h = v_mul(a, a);
    vec l = v_fms(a, a, h); /* a^2 = h + l exactly */
    /* e^-h = (1 + expm1(r)) 2^n, -h = n ln2 + r (h <= 110.25: no clamp); n
     * rounded by the 1.5 * 2^23 shifter. */
    vec sh = v_fma(h, v_set1(-1.4426950216293335f), v_set1(12582912.0f));
    *n = v_sub(sh, v_set1(12582912.0f));
    vec r = v_fnms(*n, v_set1(0.693145751953125f), h);
    r = v_fnma(*n, v_set1(1.428606765330187e-06f), r);
    /* k e^r = k + r (k + r k q(r)), Horner with q scaled by k. */
    vec q = v_mul(k, v_set1(0.0013926175888627768f));
    q = v_fma(q, r, v_mul(k, v_set1(0.008363173343241215f)));
    q = v_fma(q, r, v_mul(k, v_set1(0.041666556149721146f)));
    q = v_fma(q, r, v_mul(k, v_set1(0.16666577756404877f)));
    q = v_fma(q, r, v_mul(k, v_set1(0.5f)));
    q = v_fma(q, r, k);
    vec p = v_fma(q, r, k);
    vec w = v_mul(v_mul(t, s), p);
    return v_fnma(w, l, w); /* w (1 - l) */
}

static inline vec v_erfc(vec z) {
    vec n, w = vm_erfc_parts(v_min(v_set1(10.5f), v_abs(z)), v_set1(1.0f), &n);
    vec e = v_scalef(w, n);
    return v_sel(v_lt(z, v_zero()), v_sub(v_set1(2.0f), e), e);
}

static inline vec v_erf(vec y) {
    vec a = v_abs(y), u = v_mul(y, y);
    vec p = v_set1(-0.0006214585155248642f);
    p = v_fma(p, u, v_set1(0.0050343708135187626f));
    p = v_fma(p, u, v_set1(-0.026792947202920914f));
    p = v_fma(p, u, v_set1(0.11282496899366379f));
    p = v_fma(p, u, v_set1(-0.37612554430961609f));
    p = v_fma(p, u, v_set1(-6.7597682118503144e-08f));
    /* 2 / sqrt(pi) = 1.128379225730896 + p(0): the split keeps it exact. On
     * |y|, the sign OR-ed in after: keeps erf(-0) = -0. */
    vec small = v_orsign(v_fma(a, v_set1(1.128379225730896f), v_mul(a, p)), y);
    vec n, w = vm_erfc_parts(v_min(v_set1(10.5f), a), v_set1(1.0f), &n);
    vec big = v_orsign(v_sub(v_set1(1.0f), v_scalef(w, n)), y);
    return v_sel(v_lt(a, v_set1(0.875f)), small, big);
}

/* gelu_erf(x) = 0.5 x erfc(-x / sqrt 2), with z rounded as the scalar
 * reference rounds it. With w 2^n = 0.5 erfc(|z|) (k = 0.5): for x <= 0 the
 * result is S = (x w) 2^n, scaled last so that a subnormal result is rounded
 * once; for x > 0 it is x - S (no cancellation: S <= x / 2). Beyond |z| =
 * 10.5 w is 0: x for x > 0, x * 0 below (-0, NaN for -inf, as the
 * reference); x is clamped to 1e30 in the product so that +inf gives +inf.
 * a is clamped before erfc_parts so that n stays finite (scalef(NaN, -inf)
 * is 0; the emulated scalef needs a sane n). */
static inline vec v_gelu_erf(vec x) {
    vec a = v_abs(v_mul(x, v_set1(0.7071067690849304f)));
    vec n, w = vm_erfc_parts(v_min(v_set1(10.5f), a), v_set1(0.5f), &n);
    w = v_keep(v_le(a, v_set1(10.5f)), w);
    vec s = v_scalef(v_mul(v_min(v_set1(1e30f), x), w), n);
    return v_sel(v_gt(x, v_zero()), v_sub(x, s), s);
}

#endif /* LG_PRIMITIVES_SIMD_MATH_TPL_H */
