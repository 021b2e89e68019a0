/* The AVX2 vector layer of the eltwise and binary kernel templates
 * (eltwise_simd.h, binary_simd.h): 8 f32 lanes, lane predicates as all-ones
 * lanes of a vector; the names and meanings of simd_avx512.h. Include only
 * from files built with the AVX2 flags (*avx2.c). */
#ifndef LG_ELTWISE_SIMD_AVX2_H
#define LG_ELTWISE_SIMD_AVX2_H

#include "primitives/simd/math_avx2.h"

#include "lgraph.h"

#include <stdint.h>
#include <string.h>

#define VL 8
typedef v8 vec;
typedef __m256 vmask; /* a lane predicate: all-ones lanes */

/* The first k lanes, 0 <= k <= VL, as an integer mask for maskload. */
static inline __m256i v_first(int64_t k) {
    return _mm256_cmpgt_epi32(_mm256_set1_epi32((int)k), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

static inline vec v_set1(float f) {
    return _mm256_set1_ps(f);
}
static inline vec v_zero(void) {
    return _mm256_setzero_ps();
}
static inline vec v_load(const float *p) {
    return _mm256_loadu_ps(p);
}
static inline void v_store(float *p, vec v) {
    _mm256_storeu_ps(p, v);
}
/* A non-temporal store; p 32-byte aligned. */
static inline void v_stream(float *p, vec v) {
    _mm256_stream_ps(p, v);
}
/* The first k lanes (0 < k < VL) at p, the others zero; and their store. */
static inline vec v_load_part(const float *p, int64_t k) {
    return _mm256_maskload_ps(p, v_first(k));
}
static inline void v_store_part(float *p, vec v, int64_t k) {
    _mm256_maskstore_ps(p, v_first(k), v);
}

static inline vec v_add(vec a, vec b) {
    return _mm256_add_ps(a, b);
}
static inline vec v_sub(vec a, vec b) {
    return _mm256_sub_ps(a, b);
}
static inline vec v_mul(vec a, vec b) {
    return _mm256_mul_ps(a, b);
}
static inline vec v_div(vec a, vec b) {
    return _mm256_div_ps(a, b);
}
/* minps / maxps: b when either is NaN. */
static inline vec v_min(vec a, vec b) {
    return _mm256_min_ps(a, b);
}
static inline vec v_max(vec a, vec b) {
    return _mm256_max_ps(a, b);
}
static inline vec v_sqrt(vec a) {
    return _mm256_sqrt_ps(a);
}

/* To nearest, ties to even (as nearbyintf in the default mode). */
static inline vec v_round(vec a) {
    return _mm256_round_ps(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
}

/* Ordered comparisons (false on NaN). */
static inline vmask v_gt(vec a, vec b) {
    return _mm256_cmp_ps(a, b, _CMP_GT_OQ);
}
static inline vmask v_ge(vec a, vec b) {
    return _mm256_cmp_ps(a, b, _CMP_GE_OQ);
}
static inline vmask v_le(vec a, vec b) {
    return _mm256_cmp_ps(a, b, _CMP_LE_OQ);
}
static inline vmask v_eq(vec a, vec b) {
    return _mm256_cmp_ps(a, b, _CMP_EQ_OQ);
}
/* Unordered: true on NaN. */
static inline vmask v_ne(vec a, vec b) {
    return _mm256_cmp_ps(a, b, _CMP_NEQ_UQ);
}
/* m ? yes : no, per lane. */
static inline vec v_sel(vmask m, vec yes, vec no) {
    return _mm256_blendv_ps(no, yes, m);
}
/* v where m, +0 elsewhere. */
static inline vec v_keep(vmask m, vec v) {
    return _mm256_and_ps(m, v);
}
/* The lanes of VL int32 flags at p that are non-zero. */
static inline vmask v_flags(const int32_t *p) {
    __m256i f = _mm256_loadu_si256((const __m256i *)(const void *)p);
    __m256i z = _mm256_cmpeq_epi32(f, _mm256_setzero_si256());
    return _mm256_castsi256_ps(_mm256_cmpeq_epi32(z, _mm256_setzero_si256()));
}

/* 16-bit float types, bit for bit convert.h's conversions. */

/* 8 f16 to f32 exactly (F16C): the quiet bit is cleared again on the lanes
 * that were signalling NaNs (convert.h keeps them). */
static inline vec v_from_f16(__m128i h) {
    const __m256i q = _mm256_set1_epi32(0x00400000);
    __m256i f = _mm256_castps_si256(_mm256_cvtph_ps(h));
    __m256i w = _mm256_cvtepu16_epi32(h);
    __m256i nan = _mm256_cmpeq_epi32(_mm256_and_si256(w, _mm256_set1_epi32(0x7e00)),
                                     _mm256_set1_epi32(0x7c00));
    __m256i quiet =
        _mm256_cmpeq_epi32(_mm256_and_si256(w, _mm256_set1_epi32(0x1ff)), _mm256_setzero_si256());
    __m256i snan = _mm256_andnot_si256(quiet, nan);
    return _mm256_castsi256_ps(_mm256_xor_si256(f, _mm256_and_si256(snan, q)));
}

/* 8 bf16 to f32 (exact: the top half of the f32). */
static inline vec v_from_bf16(__m128i h) {
    return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
}

/* f32 to bf16 bits in the low half of each 32-bit lane: round to nearest
 * even by integer arithmetic; NaN quieted (| 0x40). */
static inline __m256i v_bf16_bits(vec v) {
    __m256i u = _mm256_castps_si256(v), hi = _mm256_srli_epi32(u, 16);
    __m256i r = _mm256_add_epi32(_mm256_add_epi32(u, _mm256_set1_epi32(0x7fff)),
                                 _mm256_and_si256(hi, _mm256_set1_epi32(1)));
    r = _mm256_srli_epi32(r, 16);
    __m256i qn = _mm256_or_si256(hi, _mm256_set1_epi32(0x40));
    return _mm256_blendv_epi8(r, qn, _mm256_castps_si256(_mm256_cmp_ps(v, v, _CMP_UNORD_Q)));
}

/* f32 to 8 f16 / bf16 (dt), rounded to nearest even. */
static inline __m128i v_to_half(lg_dtype dt, vec v) {
    if (dt == LG_F16) return _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m256i b = v_bf16_bits(v); /* 0..65535 per lane: packus keeps them */
    return _mm_packus_epi32(_mm256_castsi256_si128(b), _mm256_extracti128_si256(b, 1));
}
static inline vec v_from_half(lg_dtype dt, __m128i h) {
    return dt == LG_F16 ? v_from_f16(h) : v_from_bf16(h);
}

/* VL (or the first k) elements of type dt (f32, f16 or bf16) at element i
 * of p, as f32; and the stores back, converted. Partial 16-bit vectors go
 * through a 16-byte stack buffer. */
static inline vec v_load_dt(lg_dtype dt, const void *p, int64_t i) {
    if (dt == LG_F32) return v_load((const float *)p + i);
    return v_from_half(dt,
                       _mm_loadu_si128((const __m128i *)(const void *)((const uint16_t *)p + i)));
}
static inline vec v_load_dt_part(lg_dtype dt, const void *p, int64_t i, int64_t k) {
    if (dt == LG_F32) return v_load_part((const float *)p + i, k);
    uint16_t t[8] = {0};
    memcpy(t, (const uint16_t *)p + i, (size_t)k * 2);
    return v_from_half(dt, _mm_loadu_si128((const __m128i *)(const void *)t));
}
static inline void v_store_dt(lg_dtype dt, void *p, int64_t i, vec v) {
    if (dt == LG_F32)
        v_store((float *)p + i, v);
    else
        _mm_storeu_si128((__m128i *)(void *)((uint16_t *)p + i), v_to_half(dt, v));
}
static inline void v_store_dt_part(lg_dtype dt, void *p, int64_t i, vec v, int64_t k) {
    if (dt == LG_F32) {
        v_store_part((float *)p + i, v, k);
        return;
    }
    uint16_t t[8];
    _mm_storeu_si128((__m128i *)(void *)t, v_to_half(dt, v));
    memcpy((uint16_t *)p + i, t, (size_t)k * 2);
}

#define v_abs      v8_abs
#define v_exp      v8_exp
#define v_expm1    v8_expm1
#define v_log      v8_log
#define v_tanh     v8_tanh
#define v_erf      v8_erf
#define v_erfc     v8_erfc
#define v_gelu_erf v8_gelu_erf

#endif /* LG_ELTWISE_SIMD_AVX2_H */
