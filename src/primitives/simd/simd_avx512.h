/* The AVX-512 vector layer of the eltwise and binary kernel templates
 * (eltwise_simd.h, binary_simd.h): 16 f32 lanes, lane predicates in mask
 * registers. simd_avx2.h defines the same names on 8 lanes. Include only
 * from files built with the AVX-512 flags (*avx512.c). */
#ifndef LG_ELTWISE_SIMD_AVX512_H
#define LG_ELTWISE_SIMD_AVX512_H

#include "primitives/simd/math_avx512.h"

#include "lgraph.h"

#include <stdint.h>

#define VL 16
typedef v16 vec;
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

/* To nearest, ties to even (as nearbyintf in the default mode). */
static inline vec v_round(vec a) {
    return _mm512_roundscale_ps(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
}

/* Ordered comparisons (false on NaN). */
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

/* VL (or the first k) elements of type dt (f32, f16 or bf16) at element i
 * of p, as f32; and the stores back, converted. */
static inline vec v_load_dt(lg_dtype dt, const void *p, int64_t i) {
    if (dt == LG_F32) return v_load((const float *)p + i);
    return v_from_half(
        dt, _mm256_loadu_si256((const __m256i *)(const void *)((const uint16_t *)p + i)));
}
static inline vec v_load_dt_part(lg_dtype dt, const void *p, int64_t i, int64_t k) {
    if (dt == LG_F32) return v_load_part((const float *)p + i, k);
    return v_from_half(dt, _mm256_maskz_loadu_epi16(v_first(k), (const uint16_t *)p + i));
}
static inline void v_store_dt(lg_dtype dt, void *p, int64_t i, vec v) {
    if (dt == LG_F32)
        v_store((float *)p + i, v);
    else
        _mm256_storeu_si256((__m256i *)(void *)((uint16_t *)p + i), v_to_half(dt, v));
}
static inline void v_store_dt_part(lg_dtype dt, void *p, int64_t i, vec v, int64_t k) {
    if (dt == LG_F32)
        v_store_part((float *)p + i, v, k);
    else
        _mm256_mask_storeu_epi16((uint16_t *)p + i, v_first(k), v_to_half(dt, v));
}

#define v_abs      v16_abs
#define v_exp      v16_exp
#define v_expm1    v16_expm1
#define v_log      v16_log
#define v_tanh     v16_tanh
#define v_erf      v16_erf
#define v_erfc     v16_erfc
#define v_gelu_erf v16_gelu_erf

#endif /* LG_ELTWISE_SIMD_AVX512_H */
