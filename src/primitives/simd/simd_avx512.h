/* The AVX-512 vector layer shared by the kernel templates of every kind
 * (<kind>_simd.h): 16 f32 lanes, lane predicates in mask registers, and the
 * vector math of math_tpl.h on them. simd_avx2.h defines the same names on
 * 8 lanes. Include only from files built with the AVX-512 flags
 * (*avx512.c). */
#ifndef LG_PRIMITIVES_SIMD_AVX512_H
#define LG_PRIMITIVES_SIMD_AVX512_H

#include "lgraph.h"

#include <immintrin.h>
#include <stdint.h>

#define VL 16
typedef __m512 vec;
typedef __mmask16 vmask; /* a lane predicate */

/* The first k lanes, 0 <= k <= VL. */
static inline vmask v_first(int64_t k) {
    return (vmask)((1u << k) - 1u);
}

static inline vec v_set1(float f) {
    return _mm512_set1_ps(f);
}
static inline vec v_zero(void) {
    return _mm512_setzero_ps();
}
static inline vec v_load(const float *p) {
    return _mm512_loadu_ps(p);
}
static inline void v_store(float *p, vec v) {
    _mm512_storeu_ps(p, v);
}
/* A non-temporal store; p 64-byte aligned. */
static inline void v_stream(float *p, vec v) {
    _mm512_stream_ps(p, v);
}
/* The first k lanes (0 < k < VL) at p, the others zero; and their store. */
static inline vec v_load_part(const float *p, int64_t k) {
    return _mm512_maskz_loadu_ps(v_first(k), p);
}
static inline void v_store_part(float *p, vec v, int64_t k) {
    _mm512_mask_storeu_ps(p, v_first(k), v);
}

static inline vec v_add(vec a, vec b) {
    return _mm512_add_ps(a, b);
}
static inline vec v_sub(vec a, vec b) {
    return _mm512_sub_ps(a, b);
}
static inline vec v_mul(vec a, vec b) {
    return _mm512_mul_ps(a, b);
}
static inline vec v_div(vec a, vec b) {
    return _mm512_div_ps(a, b);
}
/* minps / maxps: b when either is NaN. */
static inline vec v_min(vec a, vec b) {
    return _mm512_min_ps(a, b);
}
static inline vec v_max(vec a, vec b) {
    return _mm512_max_ps(a, b);
}
static inline vec v_sqrt(vec a) {
    return _mm512_sqrt_ps(a);
}
/* Fused, one rounding: a b + c, a b - c, c - a b, -(a b) - c. */
static inline vec v_fma(vec a, vec b, vec c) {
    return _mm512_fmadd_ps(a, b, c);
}
static inline vec v_fms(vec a, vec b, vec c) {
    return _mm512_fmsub_ps(a, b, c);
}
static inline vec v_fnma(vec a, vec b, vec c) {
    return _mm512_fnmadd_ps(a, b, c);
}
static inline vec v_fnms(vec a, vec b, vec c) {
    return _mm512_fnmsub_ps(a, b, c);
}
static inline vec v_abs(vec x) {
    return _mm512_castsi512_ps(
        _mm512_and_si512(_mm512_castps_si512(x), _mm512_set1_epi32(0x7fffffff)));
}
/* x (non-negative) with the sign bit of s OR-ed in. */
static inline vec v_orsign(vec x, vec s) {
    __m512i sign = _mm512_and_si512(_mm512_castps_si512(s), _mm512_set1_epi32((int)0x80000000u));
    return _mm512_castsi512_ps(_mm512_or_si512(_mm512_castps_si512(x), sign));
}

/* To nearest, ties to even (as nearbyintf in the default mode). */
static inline vec v_round(vec a) {
    return _mm512_roundscale_ps(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
}

/* Ordered comparisons (false on NaN). */
static inline vmask v_lt(vec a, vec b) {
    return _mm512_cmp_ps_mask(a, b, _CMP_LT_OQ);
}
static inline vmask v_gt(vec a, vec b) {
    return _mm512_cmp_ps_mask(a, b, _CMP_GT_OQ);
}
static inline vmask v_ge(vec a, vec b) {
    return _mm512_cmp_ps_mask(a, b, _CMP_GE_OQ);
}
static inline vmask v_le(vec a, vec b) {
    return _mm512_cmp_ps_mask(a, b, _CMP_LE_OQ);
}
static inline vmask v_eq(vec a, vec b) {
    return _mm512_cmp_ps_mask(a, b, _CMP_EQ_OQ);
}
/* Unordered: true on NaN. */
static inline vmask v_ne(vec a, vec b) {
    return _mm512_cmp_ps_mask(a, b, _CMP_NEQ_UQ);
}
static inline vmask v_nge(vec a, vec b) { /* not a >= b: a < b or NaN */
    return _mm512_cmp_ps_mask(a, b, _CMP_NGE_UQ);
}
/* m ? yes : no, per lane. */
static inline vec v_sel(vmask m, vec yes, vec no) {
    return _mm512_mask_blend_ps(m, no, yes);
}
/* v where m, +0 elsewhere. */
static inline vec v_keep(vmask m, vec v) {
    return _mm512_maskz_mov_ps(m, v);
}
/* The lanes of VL int32 flags at p that are non-zero. */
static inline vmask v_flags(const int32_t *p) {
    __m512i f = _mm512_loadu_si512(p);
    return _mm512_test_epi32_mask(f, f);
}

/* x on the first k lanes (0 <= k <= VL), no (or +0) on the others. */
static inline vec v_sel_first(int64_t k, vec x, vec no) {
    return _mm512_mask_blend_ps(v_first(k), no, x);
}
static inline vec v_keep_first(vec x, int64_t k) {
    return _mm512_maskz_mov_ps(v_first(k), x);
}
/* The sum and the maximum of the lanes. */
static inline float v_hsum(vec v) {
    return _mm512_reduce_add_ps(v);
}
static inline float v_hmax(vec v) {
    return _mm512_reduce_max_ps(v);
}
/* p[0], p[s], ..., p[15 s]. */
static inline vec v_gather(const float *p, int64_t s) {
    __m512i idx =
        _mm512_mullo_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                           _mm512_set1_epi32((int)s));
    return _mm512_i32gather_ps(idx, p, 4);
}

/* 16-bit float types, bit for bit convert.h's conversions. */

/* 16 f16 to f32 exactly: vcvtph2ps quiets signalling NaNs, convert.h keeps
 * them, so the quiet bit is cleared again on the lanes that were
 * signalling. */
static inline vec v_from_f16(__m256i h) {
    const __m512i q = _mm512_set1_epi32(0x00400000);
    __m512i f = _mm512_castps_si512(_mm512_cvtph_ps(h));
    __m512i w = _mm512_cvtepu16_epi32(h);
    __mmask16 nan = _mm512_cmpeq_epi32_mask(_mm512_and_si512(w, _mm512_set1_epi32(0x7e00)),
                                            _mm512_set1_epi32(0x7c00));
    __mmask16 snan = _mm512_mask_test_epi32_mask(nan, w, _mm512_set1_epi32(0x1ff));
    return _mm512_castsi512_ps(_mm512_mask_xor_epi32(f, snan, f, q));
}

/* 16 bf16 to f32 (exact: the top half of the f32). */
static inline vec v_from_bf16(__m256i h) {
    return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
}

/* f32 to bf16 bits in the low half of each 32-bit lane: round to nearest
 * even by integer arithmetic; NaN quieted (| 0x40). */
static inline __m512i v_bf16_bits(vec v) {
    __m512i u = _mm512_castps_si512(v), hi = _mm512_srli_epi32(u, 16);
    __m512i r = _mm512_add_epi32(_mm512_add_epi32(u, _mm512_set1_epi32(0x7fff)),
                                 _mm512_and_si512(hi, _mm512_set1_epi32(1)));
    r = _mm512_srli_epi32(r, 16);
    __mmask16 nan = _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
    return _mm512_mask_or_epi32(r, nan, hi, _mm512_set1_epi32(0x40));
}

/* f32 to 16 f16 / bf16 (dt), rounded to nearest even. */
static inline __m256i v_to_half(lg_dtype dt, vec v) {
    return dt == LG_F16 ? _mm512_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)
                        : _mm512_cvtepi32_epi16(v_bf16_bits(v));
}
static inline vec v_from_half(lg_dtype dt, __m256i h) {
    return dt == LG_F16 ? v_from_f16(h) : v_from_bf16(h);
}

/* The ISA's steps of the vector math (math_tpl.h). */

/* p * 2^n for integral n, rounded once (also into the subnormal range). */
static inline vec v_scalef(vec p, vec n) {
    return _mm512_scalef_ps(p, n);
}
/* 2^n for integral n in [-126, 127], exactly. */
static inline vec v_pow2n(vec n) {
    return _mm512_scalef_ps(_mm512_set1_ps(1.0f), n);
}
/* m in [0.75, 1.5) and *e with x = m 2^e, for finite x > 0 (subnormals
 * exact; other lanes: any value). */
static inline vec v_mant_exp(vec x, vec *e) {
    vec m = _mm512_getmant_ps(x, _MM_MANT_NORM_p75_1p5, _MM_MANT_SIGN_zero);
    vec ex = _mm512_getexp_ps(x);
    *e = _mm512_mask_add_ps(ex, _mm512_cmp_ps_mask(m, _mm512_set1_ps(1.0f), _CMP_LT_OQ), ex,
                            _mm512_set1_ps(1.0f));
    return m;
}
/* 1 / x within an ulp: rcp14 and a Newton step. */
static inline vec v_recip(vec x) {
    const vec one = _mm512_set1_ps(1.0f);
    vec t = _mm512_rcp14_ps(x);
    return _mm512_fmadd_ps(t, _mm512_fnmadd_ps(t, x, one), t);
}

#include "primitives/simd/math_tpl.h"

/* The typed loads and stores (v_ld, v_st, v_load_dt, ...) on this layer. */
#include "primitives/simd/dtio_avx512.h"

/* The register-tile steps of conv's and inner product's templates
 * (direct_tpl.h, pw_tpl.h, wino_tpl.h, ip_tpl.h). */

/* *p on every lane (a broadcast load). */
static inline vec v_bcast(const float *p) {
    return _mm512_set1_ps(*p);
}
/* max(v, +0) (maxps: +0 when v is NaN). */
static inline vec v_max0(vec v) {
    return _mm512_max_ps(v, _mm512_setzero_ps());
}
/* Lanes [lo, hi), 0 <= lo <= hi <= VL. */
static inline vmask v_mask_range(int lo, int hi) {
    return (vmask)(((1u << hi) - 1u) & ~((1u << lo) - 1u));
}
/* Lanes [0, n), 0 <= n <= VL. */
static inline vmask v_mask_first(int n) {
    return (vmask)((1u << n) - 1u);
}
/* The lanes m of p, the others zero; and the store of the lanes m. */
static inline vec v_load_mask(vmask m, const float *p) {
    return _mm512_maskz_loadu_ps(m, p);
}
static inline void v_store_mask(float *p, vmask m, vec v) {
    _mm512_mask_storeu_ps(p, m, v);
}

#endif /* LG_PRIMITIVES_SIMD_AVX512_H */
