/* The AVX2 + FMA vector layer shared by the kernel templates of every kind
 * (<kind>_simd.h): 8 f32 lanes, lane predicates as all-ones lanes of a
 * vector; the names and meanings of simd_avx512.h, and the vector math of
 * math_tpl.h on them. Include only from files built with the AVX2 flags
 * (*avx2.c). */
#ifndef LG_PRIMITIVES_SIMD_AVX2_H
#define LG_PRIMITIVES_SIMD_AVX2_H

#include "lgraph.h"

#include <immintrin.h>
#include <stdint.h>
#include <string.h>

#define VL 8
typedef __m256 vec;
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
/* Fused, one rounding: a b + c, a b - c, c - a b, -(a b) - c. */
static inline vec v_fma(vec a, vec b, vec c) {
    return _mm256_fmadd_ps(a, b, c);
}
static inline vec v_fms(vec a, vec b, vec c) {
    return _mm256_fmsub_ps(a, b, c);
}
static inline vec v_fnma(vec a, vec b, vec c) {
    return _mm256_fnmadd_ps(a, b, c);
}
static inline vec v_fnms(vec a, vec b, vec c) {
    return _mm256_fnmsub_ps(a, b, c);
}
static inline vec v_abs(vec x) {
    return _mm256_and_ps(x, _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff)));
}
/* x (non-negative) with the sign bit of s OR-ed in. */
static inline vec v_orsign(vec x, vec s) {
    return _mm256_or_ps(x,
                        _mm256_and_ps(s, _mm256_castsi256_ps(_mm256_set1_epi32((int)0x80000000u))));
}

/* To nearest, ties to even (as nearbyintf in the default mode). */
static inline vec v_round(vec a) {
    return _mm256_round_ps(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
}

/* Ordered comparisons (false on NaN). */
static inline vmask v_lt(vec a, vec b) {
    return _mm256_cmp_ps(a, b, _CMP_LT_OQ);
}
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
static inline vmask v_nge(vec a, vec b) { /* not a >= b: a < b or NaN */
    return _mm256_cmp_ps(a, b, _CMP_NGE_UQ);
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

/* x on the first k lanes (0 <= k <= VL), no (or +0) on the others. */
static inline vec v_sel_first(int64_t k, vec x, vec no) {
    return _mm256_blendv_ps(no, x, _mm256_castsi256_ps(v_first(k)));
}
static inline vec v_keep_first(vec x, int64_t k) {
    return _mm256_and_ps(x, _mm256_castsi256_ps(v_first(k)));
}
/* The sum and the maximum of the lanes. */
static inline float v_hsum(vec v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}
static inline float v_hmax(vec v) {
    __m128 s = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_max_ps(s, _mm_movehl_ps(s, s));
    s = _mm_max_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}
/* p[0], p[s], ..., p[7 s]. */
static inline vec v_gather(const float *p, int64_t s) {
    __m256i idx =
        _mm256_mullo_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), _mm256_set1_epi32((int)s));
    return _mm256_i32gather_ps(p, idx, 4);
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

/* The ISA's steps of the vector math (math_tpl.h), emulated where AVX2
 * lacks the AVX-512 instruction. */

/* 2^k for integer k in [-126, 127]. */
static inline vec v_pow2i(__m256i k) {
    return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(k, _mm256_set1_epi32(127)), 23));
}
/* 2^n for integral n in [-126, 127], exactly. */
static inline vec v_pow2n(vec n) {
    return v_pow2i(_mm256_cvtps_epi32(n));
}
/* p * 2^n for integral n in [-252, 254], rounded once: two exact-or-final
 * multiplications by 2^(n/2) and 2^(n - n/2), both normal numbers. */
static inline vec v_scalef(vec p, vec n) {
    __m256i k = _mm256_cvtps_epi32(n), k1 = _mm256_srai_epi32(k, 1);
    __m256i k2 = _mm256_sub_epi32(k, k1);
    return _mm256_mul_ps(_mm256_mul_ps(p, v_pow2i(k1)), v_pow2i(k2));
}
/* m in [0.75, 1.5) and *e with x = m 2^e, for finite x > 0 (other lanes:
 * any value): the bits read as getmant / getexp would, subnormals scaled by
 * 2^23 (exact) and 23 taken off the exponent. */
static inline vec v_mant_exp(vec x, vec *e) {
    vmask den = _mm256_cmp_ps(x, _mm256_set1_ps(0x1p-126f), _CMP_LT_OQ);
    vec xs = v_sel(den, _mm256_mul_ps(x, _mm256_set1_ps(0x1p23f)), x);
    __m256i b = _mm256_castps_si256(xs);
    __m256i ei =
        _mm256_sub_epi32(_mm256_and_si256(_mm256_srli_epi32(b, 23), _mm256_set1_epi32(0xff)),
                         _mm256_set1_epi32(127));
    vec ex = _mm256_sub_ps(_mm256_cvtepi32_ps(ei), _mm256_and_ps(den, _mm256_set1_ps(23.0f)));
    vec m = _mm256_castsi256_ps(_mm256_or_si256(_mm256_and_si256(b, _mm256_set1_epi32(0x7fffff)),
                                                _mm256_set1_epi32(0x3f800000))); /* [1, 2) */
    vmask hi = _mm256_cmp_ps(m, _mm256_set1_ps(1.5f), _CMP_GE_OQ);
    *e = _mm256_add_ps(ex, _mm256_and_ps(hi, _mm256_set1_ps(1.0f)));
    return v_sel(hi, _mm256_mul_ps(m, _mm256_set1_ps(0.5f)), m);
}
/* 1 / x, correctly rounded (a division). */
static inline vec v_recip(vec x) {
    return _mm256_div_ps(_mm256_set1_ps(1.0f), x);
}

#include "primitives/simd/math_tpl.h"

/* The typed loads and stores (v_ld, v_st, v_load_dt, ...) on this layer. */
#include "primitives/simd/dtio_avx2.h"

/* The register-tile steps of conv's and inner product's templates
 * (direct_tpl.h, pw_tpl.h, wino_tpl.h, ip_tpl.h). */

/* *p on every lane (a broadcast load). */
static inline vec v_bcast(const float *p) {
    return _mm256_broadcast_ss(p);
}
/* max(v, +0) (maxps: +0 when v is NaN). */
static inline vec v_max0(vec v) {
    return _mm256_max_ps(v, _mm256_setzero_ps());
}
/* Lanes [lo, hi), 0 <= lo <= hi <= VL. */
static inline vmask v_mask_range(int lo, int hi) {
    __m256i idx = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    return _mm256_castsi256_ps(
        _mm256_and_si256(_mm256_cmpgt_epi32(_mm256_set1_epi32(hi), idx),
                         _mm256_cmpgt_epi32(idx, _mm256_set1_epi32(lo - 1))));
}
/* Lanes [0, n), 0 <= n <= VL. */
static inline vmask v_mask_first(int n) {
    return _mm256_castsi256_ps(
        _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7)));
}
/* The lanes m of p, the others zero; and the store of the lanes m. */
static inline vec v_load_mask(vmask m, const float *p) {
    return _mm256_maskload_ps(p, _mm256_castps_si256(m));
}
static inline void v_store_mask(float *p, vmask m, vec v) {
    _mm256_maskstore_ps(p, _mm256_castps_si256(m), v);
}

#endif /* LG_PRIMITIVES_SIMD_AVX2_H */
