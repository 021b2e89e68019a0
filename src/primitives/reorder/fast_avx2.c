/* AVX2 (+FMA, F16C) primitives of the fast reorder kernels: 8 lanes, the
 * 8x8 transpose of simd/move_avx2.h. Partial vectors of 32-bit elements use
 * maskload / maskstore; partial 16- and 8-bit ones go through a small stack
 * buffer. The kernels themselves are in fast_simd.h. Only called when the
 * plan's ISA is LG_ISA_AVX2 or above. */
#include "primitives/reorder/fast_plan.h"

#include "memory/convert.h"
#include "primitives/simd/move_avx2.h" /* transposes, byte copies */
#include "primitives/simd/simd_avx2.h" /* VL, vec and the arithmetic */

#include <immintrin.h>
#include <stdint.h>
#include <string.h>

static const int32_t lane_tab[16] = {-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0};

/* A lane mask of n ones (1 <= n <= 8). */
static inline __m256i lanes(int n) {
    return _mm256_loadu_si256((const __m256i *)(const void *)(lane_tab + 8 - n));
}

static inline vec v_keep_n(vec v, int n) {
    return _mm256_and_ps(v, _mm256_castsi256_ps(lanes(n)));
}

/* n elements of sz bytes into the low bytes of an xmm, the rest zero. */
static inline __m128i ld_part(const char *p, int n, int sz) {
    if (n == VL)
        return sz == 2 ? _mm_loadu_si128((const __m128i *)(const void *)p)
                       : _mm_loadl_epi64((const __m128i *)(const void *)p);
    char t[16] = {0};
    memcpy(t, p, (size_t)(n * sz));
    return _mm_loadu_si128((const __m128i *)(const void *)t);
}

static inline void st_part(char *p, __m128i x, int n, int sz) {
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

/* f8 lanes (bytes widened to 32 bits) to f32, exactly as convert.h. e4m3:
 * the exponent and mantissa fields shifted into f32's place give 2^-120
 * times the value (an f32 denormal for an e4m3 denormal), then the sign and
 * NaN (0x7f). e5m2 is f16's upper byte. */
static inline vec e4m3_to_f32(__m256i b) {
    __m256i em = _mm256_and_si256(b, _mm256_set1_epi32(0x7f));
    __m256i sign = _mm256_slli_epi32(_mm256_and_si256(b, _mm256_set1_epi32(0x80)), 24);
    vec v = _mm256_mul_ps(_mm256_castsi256_ps(_mm256_slli_epi32(em, 20)), _mm256_set1_ps(0x1p120f));
    __m256i nan = _mm256_cmpeq_epi32(em, _mm256_set1_epi32(0x7f));
    __m256i r = _mm256_blendv_epi8(_mm256_castps_si256(v), _mm256_set1_epi32(0x7fc00000), nan);
    return _mm256_castsi256_ps(_mm256_or_si256(r, sign));
}

/* f32 to f8 codes in 32-bit lanes, bit for bit convert.h's lg__f32_to_f8
 * (e exponent bits, bias b), by another route: magnitudes clamp to `sat`,
 * the tie above the largest finite value, which rounds to the overflow code
 * (e4m3: 448 by ties-to-even; e5m2: inf); adding and subtracting 2^(E + 23)
 * rounds to nearest even at the f8 quantum 2^(E - m), where E is the
 * exponent of |x| raised to the smallest normal's (so denormals get theirs);
 * the rounded value times 2^(b - 127) is an f32 (denormal for small codes)
 * whose bits, shifted, are the code. NaN lanes then set `nanbit` on the
 * overflow code (0x7e | 1 = 0x7f; 0x7c | 2 = 0x7e). */
static inline __m256i f32_to_f8(vec v, int e, int b, int32_t sat, int32_t nanbit) {
    const int m = 7 - e;
    __m256i x = _mm256_castps_si256(v);
    __m256i sign = _mm256_and_si256(_mm256_srli_epi32(x, 24), _mm256_set1_epi32(0x80));
    __m256i ax = _mm256_and_si256(x, _mm256_set1_epi32(0x7fffffff));
    __m256i nan = _mm256_cmpgt_epi32(ax, _mm256_set1_epi32(0x7f800000));
    __m256i a = _mm256_min_epi32(ax, _mm256_set1_epi32(sat));
    __m256i ex = _mm256_max_epi32(_mm256_and_si256(a, _mm256_set1_epi32(0x7f800000)),
                                  _mm256_set1_epi32((128 - b) << 23));
    vec magic = _mm256_castsi256_ps(_mm256_add_epi32(ex, _mm256_set1_epi32((23 - m) << 23)));
    vec r = _mm256_sub_ps(_mm256_add_ps(_mm256_castsi256_ps(a), magic), magic);
    r = _mm256_mul_ps(r, _mm256_castsi256_ps(_mm256_set1_epi32(b << 23)));
    __m256i c = _mm256_srli_epi32(_mm256_castps_si256(r), 23 - m);
    c = _mm256_or_si256(c, _mm256_and_si256(nan, _mm256_set1_epi32(nanbit)));
    return _mm256_or_si256(c, sign);
}

static inline vec v_ld(int lk, const char *p, int n) {
    switch (lk) {
    case LK_E4M3:
        return e4m3_to_f32(_mm256_cvtepu8_epi32(ld_part(p, n, 1)));
    case LK_E5M2:
        return v_from_f16(_mm_slli_epi16(_mm_cvtepu8_epi16(ld_part(p, n, 1)), 8));
    case LK_B16:
        return _mm256_castsi256_ps(_mm256_cvtepu16_epi32(ld_part(p, n, 2)));
    case LK_B8:
        return _mm256_castsi256_ps(_mm256_cvtepu8_epi32(ld_part(p, n, 1)));
    case LK_F16:
        return v_from_f16(ld_part(p, n, 2));
    case LK_BF16:
        return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(ld_part(p, n, 2)), 16));
    case LK_S8:
        return _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(ld_part(p, n, 1)));
    case LK_U8:
        return _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(ld_part(p, n, 1)));
    case LK_S32:
        return _mm256_cvtepi32_ps(
            n == VL ? _mm256_loadu_si256((const __m256i *)(const void *)p)
                    : _mm256_maskload_epi32((const int *)(const void *)p, lanes(n)));
    default:
        return n == VL ? _mm256_loadu_ps((const float *)(const void *)p)
                       : _mm256_maskload_ps((const float *)(const void *)p, lanes(n));
    }
}

/* Round to nearest even and saturate to [lo, hi]; NaN gives 0. */
static inline __m256i to_int(vec v, float lo, float hi) {
    __m256 ord = _mm256_cmp_ps(v, v, _CMP_ORD_Q);
    vec c = _mm256_min_ps(_mm256_max_ps(v, _mm256_set1_ps(lo)), _mm256_set1_ps(hi));
    return _mm256_and_si256(_mm256_cvtps_epi32(c), _mm256_castps_si256(ord));
}

/* Lanes holding 0..65535 (or any int16 for packs) to 8 x 16 bits. */
static inline __m128i pack16u(__m256i x) {
    return _mm_packus_epi32(_mm256_castsi256_si128(x), _mm256_extracti128_si256(x, 1));
}
static inline __m128i pack16s(__m256i x) {
    return _mm_packs_epi32(_mm256_castsi256_si128(x), _mm256_extracti128_si256(x, 1));
}

static inline void v_st(int sk, char *p, vec v, int n, bool nt) {
    __m256i x = _mm256_castps_si256(v);
    switch (sk) {
    case SK_B16:
        st_part(p, pack16u(x), n, 2);
        return;
    case SK_B8: {
        __m128i w = pack16u(x);
        st_part(p, _mm_packus_epi16(w, w), n, 1);
        return;
    }
    case SK_F16:
        st_part(p, _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC), n, 2);
        return;
    case SK_BF16:
        st_part(p, pack16u(v_bf16_bits(v)), n, 2);
        return;
    case SK_S8: {
        __m128i w = pack16s(to_int(v, -128.0f, 127.0f));
        st_part(p, _mm_packs_epi16(w, w), n, 1);
        return;
    }
    case SK_U8: {
        __m128i w = pack16s(to_int(v, 0.0f, 255.0f));
        st_part(p, _mm_packus_epi16(w, w), n, 1);
        return;
    }
    case SK_E4M3:
    case SK_E5M2: {
        __m256i c =
            sk == SK_E4M3 ? f32_to_f8(v, 4, 7, 0x43e80000, 1) : f32_to_f8(v, 5, 15, 0x47700000, 2);
        __m128i w = pack16u(c);
        st_part(p, _mm_packus_epi16(w, w), n, 1);
        return;
    }
    case SK_S32:
        x = to_int(v, LG_S32_F32_MIN, LG_S32_F32_MAX);
        v = _mm256_castsi256_ps(x);
        break;
    default:
        break;
    }
    if (n < VL)
        _mm256_maskstore_ps((float *)(void *)p, lanes(n), v);
    else if (nt && ((uintptr_t)p & 31) == 0)
        _mm256_stream_ps((float *)(void *)p, v);
    else
        _mm256_storeu_ps((float *)(void *)p, v);
}

static inline vec v_attr_f(const float *p, int64_t s, int n) {
    if (s == 0) return _mm256_set1_ps(*p);
    if (s == 1) return n == VL ? _mm256_loadu_ps(p) : _mm256_maskload_ps(p, lanes(n));
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

#define LG_RF_ENTRY lg__rf_kernel_avx2
#define LG_RF_CVT   lg__cvt_avx2
#include "primitives/reorder/fast_simd.h"
