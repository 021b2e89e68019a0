/* AVX2 (+FMA, F16C) primitives of the fast reorder kernels: 8 lanes, the
 * 8x8 transpose of simd/move_avx2.h. Partial vectors of 32-bit elements use
 * maskload / maskstore; partial 16- and 8-bit ones go through a small stack
 * buffer. The kernels themselves are in fast_simd.h. Only called when the
 * plan's ISA is LG_ISA_AVX2 or above. */
#include "primitives/reorder/fast_plan.h"

#include "memory/convert.h"
#include "primitives/simd/move_avx2.h" /* transposes, byte copies */
#include "primitives/simd/f8_avx2.h"
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

/* The 8-bit codes of sk (s8, u8, e4m3, e5m2) of v, in 32-bit lanes (s8
 * sign-extended), as v_st stores them, except that f8 codes lack the sign
 * bit (v_tr_b8 sets it on four vectors at once). */
static inline __m256i codes8(int sk, vec v) {
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

/* f32 to an 8-bit type, transposed, converting before transposing: rows a
 * = 0..15 of VL (8) f32 at s + a * sa (rows from nv on are zeros, whose code
 * is 0) become VL dst rows of 16 bytes, row b at d + b * db. Four rows'
 * codes pack into one vector (two packs; f8 signs from the same packs of the
 * f32 bits, which keep the sign; then a byte shuffle per 128-bit
 * lane makes dword i of lane L pixel 4L + i's four bytes); a 4x4 dword
 * transpose of the four such vectors gives, in lane L of h[i], pixel
 * 4L + i's 16 bytes. About 3 operations per 8 elements besides the
 * conversion, against about 10 for converting after the f32 transpose. */
static inline void v_tr_b8(const char *s, int64_t sa, int nv, int sk, char *d, int64_t db,
                           bool nt) {
    const __m256i ctl = _mm256_setr_epi8(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15, 0, 4,
                                         8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
    __m256i w[4];
    for (int g = 0; g < 4; g++) {
        __m256i x[4], c[4];
        for (int k = 0; k < 4; k++) {
            int a = 4 * g + k;
            x[k] = a < nv ? _mm256_loadu_si256((const __m256i *)(const void *)(s + a * sa))
                          : _mm256_setzero_si256();
            c[k] = codes8(sk, _mm256_castsi256_ps(x[k]));
        }
        __m256i p01 = _mm256_packs_epi32(c[0], c[1]), p23 = _mm256_packs_epi32(c[2], c[3]);
        __m256i b = sk == SK_S8 ? _mm256_packs_epi16(p01, p23) : _mm256_packus_epi16(p01, p23);
        if (sk == SK_E4M3 || sk == SK_E5M2) {
            /* signed saturation keeps the sign: x < 0 as int32 gives a byte < 0 */
            __m256i sg =
                _mm256_packs_epi16(_mm256_packs_epi32(x[0], x[1]), _mm256_packs_epi32(x[2], x[3]));
            b = _mm256_or_si256(b, _mm256_and_si256(sg, _mm256_set1_epi8((char)0x80)));
        }
        w[g] = _mm256_shuffle_epi8(b, ctl);
    }
    __m256i t0 = _mm256_unpacklo_epi32(w[0], w[1]), t1 = _mm256_unpackhi_epi32(w[0], w[1]);
    __m256i t2 = _mm256_unpacklo_epi32(w[2], w[3]), t3 = _mm256_unpackhi_epi32(w[2], w[3]);
    __m256i h[4] = {_mm256_unpacklo_epi64(t0, t2), _mm256_unpackhi_epi64(t0, t2),
                    _mm256_unpacklo_epi64(t1, t3), _mm256_unpackhi_epi64(t1, t3)};
    if (db == 16) { /* pixels (2i, 2i + 1) in one 32-byte store */
        __m256i o[4] = {_mm256_permute2x128_si256(h[0], h[1], 0x20),
                        _mm256_permute2x128_si256(h[2], h[3], 0x20),
                        _mm256_permute2x128_si256(h[0], h[1], 0x31),
                        _mm256_permute2x128_si256(h[2], h[3], 0x31)};
        if (nt && ((uintptr_t)d & 31) == 0)
            for (int i = 0; i < 4; i++) _mm256_stream_si256((__m256i *)(void *)(d + 32 * i), o[i]);
        else
            for (int i = 0; i < 4; i++) _mm256_storeu_si256((__m256i *)(void *)(d + 32 * i), o[i]);
        return;
    }
    for (int i = 0; i < 4; i++) {
        _mm_storeu_si128((__m128i *)(void *)(d + i * db), _mm256_castsi256_si128(h[i]));
        _mm_storeu_si128((__m128i *)(void *)(d + (4 + i) * db), _mm256_extracti128_si256(h[i], 1));
    }
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
