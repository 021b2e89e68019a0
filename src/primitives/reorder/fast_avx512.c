/* AVX-512 (F/BW/DQ/VL) primitives of the fast reorder kernels: 16 lanes,
 * masked loads and stores for partial vectors, the 16x16 transpose of
 * simd/move_avx512.h. The kernels themselves are in fast_simd.h. Only called when
 * the plan's ISA is LG_ISA_AVX512. */
#include "primitives/reorder/fast_plan.h"

#include "memory/convert.h"
#include "primitives/simd/move_avx512.h" /* transposes, byte copies */
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

/* f8 lanes to f32 and back, as fast_avx2.c (and convert.h) do. */
static inline vec e4m3_to_f32(__m512i b) {
    __m512i em = _mm512_and_si512(b, _mm512_set1_epi32(0x7f));
    __m512i sign = _mm512_slli_epi32(_mm512_and_si512(b, _mm512_set1_epi32(0x80)), 24);
    vec v = _mm512_mul_ps(_mm512_castsi512_ps(_mm512_slli_epi32(em, 20)), _mm512_set1_ps(0x1p120f));
    __mmask16 nan = _mm512_cmpeq_epi32_mask(em, _mm512_set1_epi32(0x7f));
    __m512i r = _mm512_mask_mov_epi32(_mm512_castps_si512(v), nan, _mm512_set1_epi32(0x7fc00000));
    return _mm512_castsi512_ps(_mm512_or_si512(r, sign));
}

/* fast_avx2.c's f32_to_f8, 16 lanes: clamp to sat, round by adding and
 * subtracting 2^(E + 23) (E raised to the smallest normal's exponent),
 * rescale by 2^(b - 127) and take the bits; NaN lanes then or nanbit. */
static inline __m512i f32_to_f8(vec v, int e, int b, int32_t sat, int32_t nanbit) {
    const int m = 7 - e;
    __m512i x = _mm512_castps_si512(v);
    __m512i sign = _mm512_and_si512(_mm512_srli_epi32(x, 24), _mm512_set1_epi32(0x80));
    __m512i ax = _mm512_and_si512(x, _mm512_set1_epi32(0x7fffffff));
    __mmask16 nan = _mm512_cmpgt_epi32_mask(ax, _mm512_set1_epi32(0x7f800000));
    __m512i a = _mm512_min_epi32(ax, _mm512_set1_epi32(sat));
    __m512i ex = _mm512_max_epi32(_mm512_and_si512(a, _mm512_set1_epi32(0x7f800000)),
                                  _mm512_set1_epi32((128 - b) << 23));
    vec magic = _mm512_castsi512_ps(_mm512_add_epi32(ex, _mm512_set1_epi32((23 - m) << 23)));
    vec r = _mm512_sub_ps(_mm512_add_ps(_mm512_castsi512_ps(a), magic), magic);
    r = _mm512_mul_ps(r, _mm512_castsi512_ps(_mm512_set1_epi32(b << 23)));
    __m512i c = _mm512_srli_epi32(_mm512_castps_si512(r), 23 - m);
    c = _mm512_mask_or_epi32(c, nan, c, _mm512_set1_epi32(nanbit));
    return _mm512_or_si512(c, sign);
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
