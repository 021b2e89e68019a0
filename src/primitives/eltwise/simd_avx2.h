/* The AVX2 vector layer of the eltwise and binary kernel templates
 * (eltwise_simd.h, binary_simd.h): 8 f32 lanes, lane predicates as all-ones
 * lanes of a vector; the names and meanings of simd_avx512.h. Include only
 * from files built with the AVX2 flags (*avx2.c). */
#ifndef LG_ELTWISE_SIMD_AVX2_H
#define LG_ELTWISE_SIMD_AVX2_H

#include "primitives/eltwise/math_avx2.h"

#include <stdint.h>

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

#define v_abs      v8_abs
#define v_exp      v8_exp
#define v_expm1    v8_expm1
#define v_log      v8_log
#define v_tanh     v8_tanh
#define v_erf      v8_erf
#define v_erfc     v8_erfc
#define v_gelu_erf v8_gelu_erf

#endif /* LG_ELTWISE_SIMD_AVX2_H */
