/* The eltwise kernel's internal interface: the problem (also its cache key),
 * the scalar truth, the f32 kernels per ISA, the vector math entry points
 * the tests sweep, and the stated error bounds. */
#ifndef LG_PRIMITIVES_ELTWISE_H
#define LG_PRIMITIVES_ELTWISE_H

#include "memory/md.h"
#include "primitives/cpu.h"

/* A validated eltwise problem, zeroed then filled (the kernel cache hashes
 * its bytes). md is src's and dst's (they are equal); alpha and beta are 0
 * for algorithms that ignore them, so that such problems share a kernel. */
typedef struct lg__eltwise_pd {
    lg_md md;
    int32_t alg;
    float alpha, beta;
} lg__eltwise_pd;

/* Stated maximum errors of the vector math (math_avx512.h, math_avx2.h), in
 * ulps of the exact result (ulp(y) = 2^(e - 23), e = max(floor(log2 |y|),
 * -126)), measured over every f32 input against libm in double and asserted
 * on dense sweeps by tests/primitives/test_eltwise_math.c. The measured
 * maxima (both ISAs give the same bits) are in the comments. */
#define LG_ELT_ULP_EXP      1.5 /* 1.077 */
#define LG_ELT_ULP_EXPM1    2.0 /* 1.627, x <= 18.5 */
#define LG_ELT_ULP_LOG      1.0 /* 0.957 */
#define LG_ELT_ULP_TANH     2.0 /* 1.498 */
#define LG_ELT_ULP_ERF      2.0 /* 1.269 */
#define LG_ELT_ULP_ERFC     5.0 /* 4.571 */
#define LG_ELT_ULP_GELU_ERF 6.0 /* 5.324, against 0.5 x erfc(z), z = f32(-x * f32(1/sqrt 2)) */

/* Bound of a kernel against the scalar reference (lg__eltwise_fwd, which
 * rounds libm's result once more), in ulps of the reference value; 0 means
 * bit-exact. For the composite algorithms (logistic, swish, gelu_tanh, elu)
 * it covers the exp / expm1 error carried through the remaining f32 ops,
 * which both sides perform identically. Results below 2^-126 are compared
 * with the subnormal ulp 2^-149. */
LG_INTERNAL double lg__eltwise_ulp_bound(int alg);

/* True if alg is a known algorithm; *ints set if s32 / s8 / u8 take it. */
LG_INTERNAL bool lg__eltwise_alg_known(int alg, bool *ints);

/* The algorithm's name, "relu" ("unknown" for none): the one table of
 * eltwise names (kernel descriptions, graph dumps, fused post-ops). */
LG_INTERNAL const char *lg__eltwise_alg_str(int alg);

/* The scalar truth for one element (f32 in, f32 out), libm-based:
 *   relu       x > 0 ? x : alpha x         elu     x > 0 ? x : alpha expm1f(x)
 *   tanh       tanhf(x)                    logistic 1 / (1 + expf(-x))
 *   gelu_tanh  x / (1 + expf(-2 g)), g = (k0 x)(1 + (k1 x) x), k0 = sqrt(2/pi),
 *              k1 = 0.044715 (= 0.5 x (1 + tanh g), without the cancellation)
 *   gelu_erf   (0.5 x) erfcf(-x / sqrt 2)  (= 0.5 x (1 + erf(x / sqrt 2)))
 *   swish      x / (1 + expf(-(alpha x)))  exp, log, sqrt: expf, logf, sqrtf
 *   abs        fabsf(x)                    square  x x
 *   linear     alpha x + beta              clip    s = x > alpha ? x : alpha;
 *                                                  s > beta ? beta : s
 *   hardsigmoid v = alpha x + beta; v <= 0 ? 0 : v >= 1 ? 1 : v
 *   hardswish  x hardsigmoid(x)
 *   pow        alpha x^beta, mish x tanh(softplus(x)), soft_relu softplus(alpha x) / alpha:
 *              each in double (softplus(v) = ln(1 + e^v)), rounded to f32 once
 *   clip_v2    as clip                     round   nearbyintf(x) (ties to even)
 * Each product and sum is one f32 operation, left to right, never fused: the
 * SIMD kernels perform the same operations, so every algorithm without a
 * transcendental call matches bit for bit. pow, mish and soft_relu are
 * computed by this function lane by lane in the SIMD kernels too (exact). */
LG_INTERNAL float lg__eltwise_fwd(int alg, float alpha, float beta, float x);

/* The whole-tensor reference: dst = f(src) element by element through
 * lg__md_off, converted as convert.h, then dst's padding zeroed. src may be
 * dst. The truth the tests compare every path with. */
LG_INTERNAL void lg__eltwise_ref(const lg__eltwise_pd *pd, const void *src, void *dst);

/* f32 kernels: dst[i] = f(src[i]) for i < n; src == dst or disjoint.
 * stream: non-temporal stores for the full vectors, dst must then be 64-byte
 * aligned (the caller fences). The scalar one is lg__eltwise_fwd in a loop
 * (it ignores stream). */
typedef void (*lg__eltwise_f32_fn)(const lg__eltwise_pd *pd, const float *src, float *dst,
                                   int64_t n, bool stream);
LG_INTERNAL void lg__eltwise_f32_scalar(const lg__eltwise_pd *pd, const float *src, float *dst,
                                        int64_t n, bool stream);
LG_INTERNAL void lg__eltwise_f32_avx2(const lg__eltwise_pd *pd, const float *src, float *dst,
                                      int64_t n, bool stream);
LG_INTERNAL void lg__eltwise_f32_avx512(const lg__eltwise_pd *pd, const float *src, float *dst,
                                        int64_t n, bool stream);

/* The same on f16 or bf16 data (pd->md.dtype): dst[i] = f(src[i]) for
 * i < n, each element converted to f32 and back in registers as convert.h
 * converts (bit for bit); src == dst or disjoint. */
typedef void (*lg__eltwise_half_fn)(const lg__eltwise_pd *pd, const void *src, void *dst,
                                    int64_t n);
LG_INTERNAL void lg__eltwise_half_avx2(const lg__eltwise_pd *pd, const void *src, void *dst,
                                       int64_t n);
LG_INTERNAL void lg__eltwise_half_avx512(const lg__eltwise_pd *pd, const void *src, void *dst,
                                         int64_t n);

/* The vector math functions themselves, for the error sweeps: y[i] = fn(x[i]). */
enum {
    LG_VMATH_EXP,
    LG_VMATH_EXPM1,
    LG_VMATH_LOG,
    LG_VMATH_TANH,
    LG_VMATH_ERF,
    LG_VMATH_ERFC,
    LG_VMATH_GELU_ERF,
    LG_VMATH_COUNT
};
LG_INTERNAL void lg__vmath_avx2(int fn, const float *x, float *y, int64_t n);
LG_INTERNAL void lg__vmath_avx512(int fn, const float *x, float *y, int64_t n);

#endif /* LG_PRIMITIVES_ELTWISE_H */
