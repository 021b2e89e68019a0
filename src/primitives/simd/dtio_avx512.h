/* The typed vector loads and stores of the AVX-512 layer (F/BW/DQ/VL),
 * shared by every kernel kind: v_ld / v_st move VL (16) or the first n
 * elements of any lg_dtype (load / store kinds of simd/dt_kinds.h) to and
 * from f32 lanes with masked loads and stores, bit for bit
 * memory/convert.h's conversions; v_load_dt / v_store_dt are the f32 / f16
 * / bf16 element-index forms the eltwise, binary and bnorm templates use.
 * Included by simd_avx512.h; include only from files built with the
 * AVX-512 flags. */
#ifndef LG_PRIMITIVES_SIMD_DTIO_AVX512_H
#define LG_PRIMITIVES_SIMD_DTIO_AVX512_H

#include "memory/convert.h"
#include "primitives/simd/dt_kinds.h"
#include "primitives/simd/f8_avx512.h"
#include "primitives/simd/simd_avx512.h" /* VL, vec, v_from_f16, v_bf16_bits */

#include <immintrin.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

static inline __mmask16 v_lanes(int n) {
    return (__mmask16)((1u << n) - 1u);
}

static inline vec v_keep_n(vec v, int n) {
    return _mm512_maskz_mov_ps(v_lanes(n), v);
}

static inline vec v_ld(int lk, const char *p, int n) {
    __mmask16 m = v_lanes(n);
    switch (lk) {
    case LK_E4M3:
        return e4m3_to_f32(_mm512_cvtepu8_epi32(_mm_maskz_loadu_epi8(m, p)));
    case LK_E5M2:
        return v_from_f16(_mm256_slli_epi16(_mm256_cvtepu8_epi16(_mm_maskz_loadu_epi8(m, p)), 8));
    case LK_B16:
        return _mm512_castsi512_ps(_mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(m, p)));
    case LK_B8:
        return _mm512_castsi512_ps(_mm512_cvtepu8_epi32(_mm_maskz_loadu_epi8(m, p)));
    case LK_F16:
        return v_from_f16(_mm256_maskz_loadu_epi16(m, p));
    case LK_BF16:
        return _mm512_castsi512_ps(
            _mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(m, p)), 16));
    case LK_S32:
        return _mm512_cvtepi32_ps(_mm512_maskz_loadu_epi32(m, p));
    case LK_S8:
        return _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm_maskz_loadu_epi8(m, p)));
    case LK_U8:
        return _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(_mm_maskz_loadu_epi8(m, p)));
    default:
        return _mm512_maskz_loadu_ps(m, p);
    }
}

/* Round to nearest even and saturate to [lo, hi]; NaN gives 0. */
static inline __m512i v_to_int(vec v, float lo, float hi) {
    __mmask16 ord = _mm512_cmp_ps_mask(v, v, _CMP_ORD_Q);
    vec c = _mm512_min_ps(_mm512_max_ps(v, _mm512_set1_ps(lo)), _mm512_set1_ps(hi));
    return _mm512_maskz_cvtps_epi32(ord, c);
}

static inline void v_st(int sk, char *p, vec v, int n, bool nt) {
    __mmask16 m = v_lanes(n);
    switch (sk) {
    case SK_B16:
        _mm256_mask_storeu_epi16(p, m, _mm512_cvtepi32_epi16(_mm512_castps_si512(v)));
        return;
    case SK_B8:
        _mm_mask_storeu_epi8(p, m, _mm512_cvtepi32_epi8(_mm512_castps_si512(v)));
        return;
    case SK_F16:
        _mm256_mask_storeu_epi16(p, m,
                                 _mm512_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
        return;
    case SK_BF16:
        _mm256_mask_storeu_epi16(p, m, _mm512_cvtepi32_epi16(v_bf16_bits(v)));
        return;
    case SK_S32:
        _mm512_mask_storeu_epi32(p, m, v_to_int(v, LG_S32_F32_MIN, LG_S32_F32_MAX));
        return;
    case SK_S8:
        _mm_mask_storeu_epi8(p, m, _mm512_cvtepi32_epi8(v_to_int(v, -128.0f, 127.0f)));
        return;
    case SK_U8:
        _mm_mask_storeu_epi8(p, m, _mm512_cvtepi32_epi8(v_to_int(v, 0.0f, 255.0f)));
        return;
    case SK_E4M3:
        _mm_mask_storeu_epi8(p, m, _mm512_cvtepi32_epi8(f32_to_f8(v, 4, 7, 0x43e80000, 1)));
        return;
    case SK_E5M2:
        _mm_mask_storeu_epi8(p, m, _mm512_cvtepi32_epi8(f32_to_f8(v, 5, 15, 0x47700000, 2)));
        return;
    default:
        if (nt && n == VL && ((uintptr_t)p & 63) == 0)
            _mm512_stream_ps((float *)p, v);
        else
            _mm512_mask_storeu_ps(p, m, v);
        return;
    }
}

/* The 8-bit codes of sk (s8, u8, e4m3, e5m2) of v, in 32-bit v_lanes (s8
 * sign-extended), as v_st stores them, except that f8 codes lack the sign
 * bit (v_tr_b8 sets it on four vectors at once). */
static inline __m512i v_codes8(int sk, vec v) {
    switch (sk) {
    case SK_S8:
        return v_to_int(v, -128.0f, 127.0f);
    case SK_U8:
        return v_to_int(v, 0.0f, 255.0f);
    case SK_E4M3:
        return f32_to_f8_mag(v, 4, 7, 0x43e80000, 1);
    default:
        return f32_to_f8_mag(v, 5, 15, 0x47700000, 2);
    }
}

static inline vec v_attr_f(const float *p, int64_t s, int n) {
    if (s == 0) return _mm512_set1_ps(*p);
    if (s == 1) return _mm512_maskz_loadu_ps(v_lanes(n), p);
    float t[VL] = {0};
    for (int i = 0; i < n; i++) t[i] = p[i * s];
    return _mm512_loadu_ps(t);
}

static inline vec v_attr_i(const int32_t *p, int64_t s, int n) {
    if (s == 0) return _mm512_set1_ps((float)*p);
    if (s == 1) return _mm512_cvtepi32_ps(_mm512_maskz_loadu_epi32(v_lanes(n), p));
    int32_t t[VL] = {0};
    for (int i = 0; i < n; i++) t[i] = p[i * s];
    return _mm512_cvtepi32_ps(_mm512_loadu_si512(t));
}

#include "primitives/simd/dtio_tpl.h"

#endif /* LG_PRIMITIVES_SIMD_DTIO_AVX512_H */
