/* The typed vector loads and stores of the AVX2 layer, shared by every
 * kernel kind: v_ld / v_st move VL (8) or the first n elements of any
 * lg_dtype (load / store kinds of simd/dt_kinds.h) to and from f32 lanes,
 * bit for bit memory/convert.h's conversions (f16 / bf16 / f8 round to
 * nearest even; s32 / s8 / u8 round to nearest even and saturate, NaN
 * giving 0); v_load_dt / v_store_dt are the f32 / f16 / bf16 element-index
 * forms the eltwise, binary and bnorm templates use. Partial vectors of
 * 32-bit elements use maskload / maskstore; partial 16- and 8-bit ones go
 * through a small stack buffer. Included by simd_avx2.h (so every file that
 * uses the AVX2 layer has them); include only from files built with the AVX2
 * flags. */
#ifndef LG_PRIMITIVES_SIMD_DTIO_AVX2_H
#define LG_PRIMITIVES_SIMD_DTIO_AVX2_H

#include "memory/convert.h"
#include "primitives/simd/dt_kinds.h"
#include "primitives/simd/f8_avx2.h"
#include "primitives/simd/simd_avx2.h" /* VL, vec, v_from_f16, v_bf16_bits */

#include <immintrin.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* A lane mask of n ones (1 <= n <= 8). */
static inline __m256i v_lanes(int n) {
    static const int32_t tab[16] = {-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0};
    return _mm256_loadu_si256((const __m256i *)(const void *)(tab + 8 - n));
}

static inline vec v_keep_n(vec v, int n) {
    return _mm256_and_ps(v, _mm256_castsi256_ps(v_lanes(n)));
}

/* n elements of sz bytes into the low bytes of an xmm, the rest zero. */
static inline __m128i v_ld_part(const char *p, int n, int sz) {
    if (n == VL)
        return sz == 2 ? _mm_loadu_si128((const __m128i *)(const void *)p)
                       : _mm_loadl_epi64((const __m128i *)(const void *)p);
    char t[16] = {0};
    memcpy(t, p, (size_t)(n * sz));
    return _mm_loadu_si128((const __m128i *)(const void *)t);
}

static inline void v_st_part(char *p, __m128i x, int n, int sz) {
    if (n == VL) {
        if (sz == 2)
            _mm_storeu_si128((__m128i *)(void *)p, x);
        else
            _mm_storel_epi64((__m128i *)(void *)p, x);
        return;
    }
    char t[16];
    _mm_storeu_si128((__m128i *)(void *)t, x);
    memcpy(p, t, (size_t)(n * sz));
}

static inline vec v_ld(int lk, const char *p, int n) {
    switch (lk) {
    case LK_E4M3:
        return e4m3_to_f32(_mm256_cvtepu8_epi32(v_ld_part(p, n, 1)));
    case LK_E5M2:
        return v_from_f16(_mm_slli_epi16(_mm_cvtepu8_epi16(v_ld_part(p, n, 1)), 8));
    case LK_B16:
        return _mm256_castsi256_ps(_mm256_cvtepu16_epi32(v_ld_part(p, n, 2)));
    case LK_B8:
        return _mm256_castsi256_ps(_mm256_cvtepu8_epi32(v_ld_part(p, n, 1)));
    case LK_F16:
        return v_from_f16(v_ld_part(p, n, 2));
    case LK_BF16:
        return _mm256_castsi256_ps(
            _mm256_slli_epi32(_mm256_cvtepu16_epi32(v_ld_part(p, n, 2)), 16));
    case LK_S8:
        return _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(v_ld_part(p, n, 1)));
    case LK_U8:
        return _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(v_ld_part(p, n, 1)));
    case LK_S32:
        return _mm256_cvtepi32_ps(
            n == VL ? _mm256_loadu_si256((const __m256i *)(const void *)p)
                    : _mm256_maskload_epi32((const int *)(const void *)p, v_lanes(n)));
    default:
        return n == VL ? _mm256_loadu_ps((const float *)(const void *)p)
                       : _mm256_maskload_ps((const float *)(const void *)p, v_lanes(n));
    }
}

/* Round to nearest even and saturate to [lo, hi]; NaN gives 0. */
static inline __m256i v_to_int(vec v, float lo, float hi) {
    __m256 ord = _mm256_cmp_ps(v, v, _CMP_ORD_Q);
    vec c = _mm256_min_ps(_mm256_max_ps(v, _mm256_set1_ps(lo)), _mm256_set1_ps(hi));
    return _mm256_and_si256(_mm256_cvtps_epi32(c), _mm256_castps_si256(ord));
}

/* Lanes holding 0..65535 (or any int16 for packs) to 8 x 16 bits. */
static inline __m128i v_pack16u(__m256i x) {
    return _mm_packus_epi32(_mm256_castsi256_si128(x), _mm256_extracti128_si256(x, 1));
}
static inline __m128i v_pack16s(__m256i x) {
    return _mm_packs_epi32(_mm256_castsi256_si128(x), _mm256_extracti128_si256(x, 1));
}

static inline void v_st(int sk, char *p, vec v, int n, bool nt) {
    __m256i x = _mm256_castps_si256(v);
    switch (sk) {
    case SK_B16:
        v_st_part(p, v_pack16u(x), n, 2);
        return;
    case SK_B8: {
        __m128i w = v_pack16u(x);
        v_st_part(p, _mm_packus_epi16(w, w), n, 1);
        return;
    }
    case SK_F16:
        v_st_part(p, _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC), n, 2);
        return;
    case SK_BF16:
        v_st_part(p, v_pack16u(v_bf16_bits(v)), n, 2);
        return;
    case SK_S8: {
        __m128i w = v_pack16s(v_to_int(v, -128.0f, 127.0f));
        v_st_part(p, _mm_packs_epi16(w, w), n, 1);
        return;
    }
    case SK_U8: {
        __m128i w = v_pack16s(v_to_int(v, 0.0f, 255.0f));
        v_st_part(p, _mm_packus_epi16(w, w), n, 1);
        return;
    }
    case SK_E4M3:
    case SK_E5M2: {
        __m256i c =
            sk == SK_E4M3 ? f32_to_f8(v, 4, 7, 0x43e80000, 1) : f32_to_f8(v, 5, 15, 0x47700000, 2);
        __m128i w = v_pack16u(c);
        v_st_part(p, _mm_packus_epi16(w, w), n, 1);
        return;
    }
    case SK_S32:
        x = v_to_int(v, LG_S32_F32_MIN, LG_S32_F32_MAX);
        v = _mm256_castsi256_ps(x);
        break;
    default:
        break;
    }
    if (n < VL)
        _mm256_maskstore_ps((float *)(void *)p, v_lanes(n), v);
    else if (nt && ((uintptr_t)p & 31) == 0)
        _mm256_stream_ps((float *)(void *)p, v);
    else
        _mm256_storeu_ps((float *)(void *)p, v);
}

/* The 8-bit codes of sk (s8, u8, e4m3, e5m2) of v, in 32-bit v_lanes (s8
 * sign-extended), as v_st stores them, except that f8 codes lack the sign
 * bit (v_tr_b8 sets it on four vectors at once). */
static inline __m256i v_codes8(int sk, vec v) {
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
    if (s == 0) return _mm256_set1_ps(*p);
    if (s == 1) return n == VL ? _mm256_loadu_ps(p) : _mm256_maskload_ps(p, v_lanes(n));
    float t[VL] = {0};
    for (int i = 0; i < n; i++) t[i] = p[i * s];
    return _mm256_loadu_ps(t);
}

static inline vec v_attr_i(const int32_t *p, int64_t s, int n) {
    if (s == 0) return _mm256_set1_ps((float)*p);
    int32_t t[VL] = {0};
    for (int i = 0; i < n; i++) t[i] = p[i * s];
    return _mm256_cvtepi32_ps(_mm256_loadu_si256((const __m256i *)(const void *)t));
}

#include "primitives/simd/dtio_tpl.h"

#endif /* LG_PRIMITIVES_SIMD_DTIO_AVX2_H */
