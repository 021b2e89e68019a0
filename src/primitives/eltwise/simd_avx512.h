/* The AVX-512 vector layer of the eltwise and binary kernel templates
 * (eltwise_simd.h, binary_simd.h): 16 f32 lanes, lane predicates in mask
 * registers. simd_avx2.h defines the same names on 8 lanes. Include only
 * from files built with the AVX-512 flags (*avx512.c). */
#ifndef LG_ELTWISE_SIMD_AVX512_H
#define LG_ELTWISE_SIMD_AVX512_H

#include "primitives/eltwise/math_avx512.h"

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

#define v_abs      v16_abs
#define v_exp      v16_exp
#define v_expm1    v16_expm1
#define v_log      v16_log
#define v_tanh     v16_tanh
#define v_erf      v16_erf
#define v_erfc     v16_erfc
#define v_gelu_erf v16_gelu_erf

#endif /* LG_ELTWISE_SIMD_AVX512_H */
