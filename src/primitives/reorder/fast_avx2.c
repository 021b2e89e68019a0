/* AVX2 (+FMA, F16C) primitives of the fast reorder kernels: 8 lanes, an
 * 8x8 in-register transpose. Partial vectors of 32-bit elements use
 * maskload / maskstore; partial 16- and 8-bit ones go through a small stack
 * buffer. The kernels themselves are in fast_simd.h. Only called when the
 * plan's ISA is LG_ISA_AVX2 or above. */
#include "primitives/reorder/fast_plan.h"

#include "memory/convert.h"
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

/* 8x8 transpose: unpack pairs, shuffle quads, swap 128-bit halves. */
static inline void v_tr(vec r[VL]) {
    vec t[VL], u[VL];
    for (int i = 0; i < 4; i++) {
        t[2 * i] = _mm256_unpacklo_ps(r[2 * i], r[2 * i + 1]);
        t[2 * i + 1] = _mm256_unpackhi_ps(r[2 * i], r[2 * i + 1]);
    }
    for (int i = 0; i < 2; i++) {
        u[4 * i + 0] = _mm256_shuffle_ps(t[4 * i + 0], t[4 * i + 2], 0x44);
        u[4 * i + 1] = _mm256_shuffle_ps(t[4 * i + 0], t[4 * i + 2], 0xee);
        u[4 * i + 2] = _mm256_shuffle_ps(t[4 * i + 1], t[4 * i + 3], 0x44);
        u[4 * i + 3] = _mm256_shuffle_ps(t[4 * i + 1], t[4 * i + 3], 0xee);
    }
    for (int k = 0; k < 4; k++) {
        r[k] = _mm256_permute2f128_ps(u[k], u[4 + k], 0x20);
        r[4 + k] = _mm256_permute2f128_ps(u[k], u[4 + k], 0x31);
    }
}

/* Load and transpose a full 8x8 tile of 32-bit elements: a[4q + k] gets,
 * in 128-bit lane L, quad q of row 4L + k (a load and an insert from
 * memory); a 4x4 transpose inside the lanes of a[4q..4q+3] then gives
 * columns 4q..4q+3 whole. */
/* The 4x4 transposes inside the lanes of a[0..3], into r[0..3]. */
static inline void tr4_lanes(const vec a[4], vec *r) {
    vec t0 = _mm256_unpacklo_ps(a[0], a[1]), t1 = _mm256_unpackhi_ps(a[0], a[1]);
    vec t2 = _mm256_unpacklo_ps(a[2], a[3]), t3 = _mm256_unpackhi_ps(a[2], a[3]);
    r[0] = _mm256_shuffle_ps(t0, t2, 0x44);
    r[1] = _mm256_shuffle_ps(t0, t2, 0xee);
    r[2] = _mm256_shuffle_ps(t1, t3, 0x44);
    r[3] = _mm256_shuffle_ps(t1, t3, 0xee);
}

static inline __m128 quad(const char *p) {
    return _mm_loadu_ps((const float *)(const void *)p);
}

static inline void v_ld_tr(const char *s, int64_t sa, vec r[VL]) {
    for (int q = 0; q < 2; q++) {
        vec a[4];
        for (int k = 0; k < 4; k++) {
            const char *p = s + k * sa + q * 16;
            a[k] = _mm256_insertf128_ps(_mm256_castps128_ps256(quad(p)), quad(p + 4 * sa), 1);
        }
        tr4_lanes(a, r + 4 * q);
    }
}

/* v_ld_tr with the row addresses given (a partial tile points its missing
 * rows at zeros). */
static inline void v_ld_tr_rows(const char *const rows[VL], vec r[VL]) {
    for (int q = 0; q < 2; q++) {
        vec a[4];
        for (int k = 0; k < 4; k++)
            a[k] = _mm256_insertf128_ps(_mm256_castps128_ps256(quad(rows[k] + q * 16)),
                                        quad(rows[4 + k] + q * 16), 1);
        tr4_lanes(a, r + 4 * q);
    }
}

static inline void v_copy_bytes(char *d, const char *s, int64_t nb, bool nt) {
    int64_t i = 0;
    if (nt && nb >= 512) {
        int64_t head = (int64_t)(-(uintptr_t)d & 31);
        memcpy(d, s, (size_t)head);
        for (i = head; i + 32 <= nb; i += 32)
            _mm256_stream_si256((__m256i *)(void *)(d + i),
                                _mm256_loadu_si256((const __m256i *)(const void *)(s + i)));
    } else {
        for (; i + 32 <= nb; i += 32)
            _mm256_storeu_si256((__m256i *)(void *)(d + i),
                                _mm256_loadu_si256((const __m256i *)(const void *)(s + i)));
    }
    if (i < nb) memcpy(d + i, s + i, (size_t)(nb - i));
}

/* Two 32-byte rows s0, s1 to the 64 bytes at d. */
static inline void v_copy_2x32(char *d, const char *s0, const char *s1, bool nt) {
    __m256i a = _mm256_loadu_si256((const __m256i *)(const void *)s0);
    __m256i b = _mm256_loadu_si256((const __m256i *)(const void *)s1);
    if (nt && ((uintptr_t)d & 31) == 0) {
        _mm256_stream_si256((__m256i *)(void *)d, a);
        _mm256_stream_si256((__m256i *)(void *)(d + 32), b);
        return;
    }
    _mm256_storeu_si256((__m256i *)(void *)d, a);
    _mm256_storeu_si256((__m256i *)(void *)(d + 32), b);
}

static inline void v_zero_bytes(char *d, int64_t nb) {
    int64_t i = 0;
    for (; i + 32 <= nb; i += 32)
        _mm256_storeu_si256((__m256i *)(void *)(d + i), _mm256_setzero_si256());
    if (i < nb) memset(d + i, 0, (size_t)(nb - i));
}

#define LG_RF_ENTRY lg__rf_kernel_avx2
#define LG_RF_CVT   lg__cvt_avx2
#include "primitives/reorder/fast_simd.h"
