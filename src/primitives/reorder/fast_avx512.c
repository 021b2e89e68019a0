/* AVX-512 (F/BW/DQ/VL) primitives of the fast reorder kernels: 16 lanes,
 * masked loads and stores for partial vectors, the 16x16 transpose of
 * simd/move_avx512.h. The kernels themselves are in fast_simd.h. Only called when
 * the plan's ISA is LG_ISA_AVX512. */
#include "primitives/reorder/fast_plan.h"

#include "memory/convert.h"
#include "primitives/simd/move_avx512.h" /* transposes, byte copies */
#include "primitives/simd/f8_avx512.h"
#include "primitives/simd/simd_avx512.h" /* VL, vec and the arithmetic */

#include <immintrin.h>
#include <stdint.h>
#include <string.h>

static inline __mmask16 lanes(int n) {
    return (__mmask16)((1u << n) - 1u);
}

static inline vec v_keep_n(vec v, int n) {
    return _mm512_maskz_mov_ps(lanes(n), v);
}

static inline vec v_ld(int lk, const char *p, int n) {
    __mmask16 m = lanes(n);
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
static inline __m512i to_int(vec v, float lo, float hi) {
    __mmask16 ord = _mm512_cmp_ps_mask(v, v, _CMP_ORD_Q);
    vec c = _mm512_min_ps(_mm512_max_ps(v, _mm512_set1_ps(lo)), _mm512_set1_ps(hi));
    return _mm512_maskz_cvtps_epi32(ord, c);
}

static inline void v_st(int sk, char *p, vec v, int n, bool nt) {
    __mmask16 m = lanes(n);
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
        _mm512_mask_storeu_epi32(p, m, to_int(v, LG_S32_F32_MIN, LG_S32_F32_MAX));
        return;
    case SK_S8:
        _mm_mask_storeu_epi8(p, m, _mm512_cvtepi32_epi8(to_int(v, -128.0f, 127.0f)));
        return;
    case SK_U8:
        _mm_mask_storeu_epi8(p, m, _mm512_cvtepi32_epi8(to_int(v, 0.0f, 255.0f)));
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

/* The 8-bit codes of sk (s8, u8, e4m3, e5m2) of v, in 32-bit lanes (s8
 * sign-extended), as v_st stores them, except that f8 codes lack the sign
 * bit (v_tr_b8 sets it on four vectors at once). */
static inline __m512i codes8(int sk, vec v) {
    switch (sk) {
    case SK_S8:
        return to_int(v, -128.0f, 127.0f);
    case SK_U8:
        return to_int(v, 0.0f, 255.0f);
    case SK_E4M3:
        return f32_to_f8_mag(v, 4, 7, 0x43e80000, 1);
    default:
        return f32_to_f8_mag(v, 5, 15, 0x47700000, 2);
    }
}

/* fast_avx2.c's v_tr_b8 on 16 pixels: rows a = 0..15 of 16 f32 at s + a *
 * sa (from nv on zeros) to 16 dst rows of 16 bytes at d + b * db. The packs,
 * the byte shuffle and the dword transpose work per 128-bit lane as in
 * AVX2, so lane L of h[i] is pixel 4L + i's 16 bytes, stored one lane at a
 * time. */
static inline void v_tr_b8(const char *s, int64_t sa, int nv, int sk, char *d, int64_t db,
                           bool nt) {
    (void)nt;
    const __m512i ctl =
        _mm512_broadcast_i32x4(_mm_setr_epi8(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15));
    __m512i w[4];
    for (int g = 0; g < 4; g++) {
        __m512i x[4], c[4];
        for (int k = 0; k < 4; k++) {
            int a = 4 * g + k;
            x[k] = a < nv ? _mm512_loadu_si512((const void *)(s + a * sa)) : _mm512_setzero_si512();
            c[k] = codes8(sk, _mm512_castsi512_ps(x[k]));
        }
        __m512i p01 = _mm512_packs_epi32(c[0], c[1]), p23 = _mm512_packs_epi32(c[2], c[3]);
        __m512i b = sk == SK_S8 ? _mm512_packs_epi16(p01, p23) : _mm512_packus_epi16(p01, p23);
        if (sk == SK_E4M3 || sk == SK_E5M2) { /* the signs, as in fast_avx2.c */
            __m512i sg =
                _mm512_packs_epi16(_mm512_packs_epi32(x[0], x[1]), _mm512_packs_epi32(x[2], x[3]));
            b = _mm512_or_si512(b, _mm512_and_si512(sg, _mm512_set1_epi8((char)0x80)));
        }
        w[g] = _mm512_shuffle_epi8(b, ctl);
    }
    __m512i t0 = _mm512_unpacklo_epi32(w[0], w[1]), t1 = _mm512_unpackhi_epi32(w[0], w[1]);
    __m512i t2 = _mm512_unpacklo_epi32(w[2], w[3]), t3 = _mm512_unpackhi_epi32(w[2], w[3]);
    __m512i h[4] = {_mm512_unpacklo_epi64(t0, t2), _mm512_unpackhi_epi64(t0, t2),
                    _mm512_unpacklo_epi64(t1, t3), _mm512_unpackhi_epi64(t1, t3)};
    for (int i = 0; i < 4; i++) {
        _mm_storeu_si128((__m128i *)(void *)(d + i * db), _mm512_extracti32x4_epi32(h[i], 0));
        _mm_storeu_si128((__m128i *)(void *)(d + (4 + i) * db), _mm512_extracti32x4_epi32(h[i], 1));
        _mm_storeu_si128((__m128i *)(void *)(d + (8 + i) * db), _mm512_extracti32x4_epi32(h[i], 2));
        _mm_storeu_si128((__m128i *)(void *)(d + (12 + i) * db),
                         _mm512_extracti32x4_epi32(h[i], 3));
    }
}

static inline vec v_attr_f(const float *p, int64_t s, int n) {
    if (s == 0) return _mm512_set1_ps(*p);
    if (s == 1) return _mm512_maskz_loadu_ps(lanes(n), p);
    float t[VL] = {0};
    for (int i = 0; i < n; i++) t[i] = p[i * s];
    return _mm512_loadu_ps(t);
}

static inline vec v_attr_i(const int32_t *p, int64_t s, int n) {
    if (s == 0) return _mm512_set1_ps((float)*p);
    if (s == 1) return _mm512_cvtepi32_ps(_mm512_maskz_loadu_epi32(lanes(n), p));
    int32_t t[VL] = {0};
    for (int i = 0; i < n; i++) t[i] = p[i * s];
    return _mm512_cvtepi32_ps(_mm512_loadu_si512(t));
}

#define LG_RF_ENTRY lg__rf_kernel_avx512
#define LG_RF_CVT   lg__cvt_avx512
#include "primitives/reorder/fast_simd.h"
