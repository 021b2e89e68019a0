/* AVX-512 (F/BW/DQ/VL) primitives of the fast reorder kernels: 16 lanes,
 * masked loads and stores for partial vectors, a 16x16 in-register
 * transpose. The kernels themselves are in fast_simd.h. Only called when
 * the plan's ISA is LG_ISA_AVX512. */
#include "primitives/reorder/fast_plan.h"

#include "memory/convert.h"
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

/* 16x16 transpose: unpack pairs, shuffle quads, then two rounds of 128-bit
 * lane shuffles. */
static inline void v_tr(vec r[VL]) {
    vec t[VL];
    for (int i = 0; i < 8; i++) {
        t[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]);
        t[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i], r[2 * i + 1]);
    }
    for (int i = 0; i < 4; i++) {
        r[4 * i + 0] = _mm512_shuffle_ps(t[4 * i + 0], t[4 * i + 2], 0x44);
        r[4 * i + 1] = _mm512_shuffle_ps(t[4 * i + 0], t[4 * i + 2], 0xee);
        r[4 * i + 2] = _mm512_shuffle_ps(t[4 * i + 1], t[4 * i + 3], 0x44);
        r[4 * i + 3] = _mm512_shuffle_ps(t[4 * i + 1], t[4 * i + 3], 0xee);
    }
    /* r[4i + k] now holds, in 128-bit lane L, rows 4i..4i+3 of column 4L + k. */
    for (int k = 0; k < 4; k++) {
        t[4 * k + 0] = _mm512_shuffle_f32x4(r[k], r[4 + k], 0x88);
        t[4 * k + 1] = _mm512_shuffle_f32x4(r[k], r[4 + k], 0xdd);
        t[4 * k + 2] = _mm512_shuffle_f32x4(r[8 + k], r[12 + k], 0x88);
        t[4 * k + 3] = _mm512_shuffle_f32x4(r[8 + k], r[12 + k], 0xdd);
    }
    for (int k = 0; k < 4; k++) {
        r[k] = _mm512_shuffle_f32x4(t[4 * k + 0], t[4 * k + 2], 0x88);
        r[8 + k] = _mm512_shuffle_f32x4(t[4 * k + 0], t[4 * k + 2], 0xdd);
        r[4 + k] = _mm512_shuffle_f32x4(t[4 * k + 1], t[4 * k + 3], 0x88);
        r[12 + k] = _mm512_shuffle_f32x4(t[4 * k + 1], t[4 * k + 3], 0xdd);
    }
}

/* Load and transpose a full 16x16 tile of 32-bit elements: register
 * a[4q + k] gets, in 128-bit lane L, quad q of row 4L + k (one load and
 * three inserts from memory, which run on the load ports and port 0);
 * then a 4x4 transpose inside the lanes of a[4q..4q+3] gives columns
 * 4q..4q+3 whole. Half the shuffle-port work of loads + v_tr. */
static inline __m128 quad(const char *p) {
    return _mm_loadu_ps((const float *)(const void *)p);
}
/* The 4x4 transposes inside the lanes of a[0..3], into r[0..3]. */
static inline void tr4_lanes(const vec a[4], vec *r) {
    vec t0 = _mm512_unpacklo_ps(a[0], a[1]), t1 = _mm512_unpackhi_ps(a[0], a[1]);
    vec t2 = _mm512_unpacklo_ps(a[2], a[3]), t3 = _mm512_unpackhi_ps(a[2], a[3]);
    r[0] = _mm512_shuffle_ps(t0, t2, 0x44);
    r[1] = _mm512_shuffle_ps(t0, t2, 0xee);
    r[2] = _mm512_shuffle_ps(t1, t3, 0x44);
    r[3] = _mm512_shuffle_ps(t1, t3, 0xee);
}

static inline void v_ld_tr(const char *s, int64_t sa, vec r[VL]) {
    for (int q = 0; q < 4; q++) {
        vec a[4];
        for (int k = 0; k < 4; k++) {
            const char *p = s + k * sa + q * 16;
            vec x = _mm512_castps128_ps512(quad(p));
            x = _mm512_insertf32x4(x, quad(p + 4 * sa), 1);
            x = _mm512_insertf32x4(x, quad(p + 8 * sa), 2);
            a[k] = _mm512_insertf32x4(x, quad(p + 12 * sa), 3);
        }
        tr4_lanes(a, r + 4 * q);
    }
}

/* v_ld_tr with the row addresses given (a partial tile points its missing
 * rows at zeros). */
static inline void v_ld_tr_rows(const char *const rows[VL], vec r[VL]) {
    for (int q = 0; q < 4; q++) {
        vec a[4];
        for (int k = 0; k < 4; k++) {
            vec x = _mm512_castps128_ps512(quad(rows[k] + q * 16));
            x = _mm512_insertf32x4(x, quad(rows[4 + k] + q * 16), 1);
            x = _mm512_insertf32x4(x, quad(rows[8 + k] + q * 16), 2);
            a[k] = _mm512_insertf32x4(x, quad(rows[12 + k] + q * 16), 3);
        }
        tr4_lanes(a, r + 4 * q);
    }
}

static inline __mmask64 byte_lanes(int64_t n) {
    return n >= 64 ? ~(__mmask64)0 : (((__mmask64)1 << n) - 1);
}

static inline void v_copy_bytes(char *d, const char *s, int64_t nb, bool nt) {
    if (nb == 32) {
        _mm256_storeu_si256((__m256i *)(void *)d,
                            _mm256_loadu_si256((const __m256i *)(const void *)s));
        return;
    }
    if (nb == 64) { /* a cache line (nhwc -> nChw16c rows) */
        __m512i v = _mm512_loadu_si512(s);
        if (nt && ((uintptr_t)d & 63) == 0)
            _mm512_stream_si512((__m512i *)(void *)d, v);
        else
            _mm512_storeu_si512(d, v);
        return;
    }
    int64_t i = 0;
    if (nt && nb >= 512) {
        int64_t head = (int64_t)(-(uintptr_t)d & 63);
        if (head) {
            __mmask64 m = byte_lanes(head);
            _mm512_mask_storeu_epi8(d, m, _mm512_maskz_loadu_epi8(m, s));
            i = head;
        }
        for (; i + 64 <= nb; i += 64)
            _mm512_stream_si512((__m512i *)(void *)(d + i), _mm512_loadu_si512(s + i));
    } else {
        for (; i + 128 <= nb; i += 128) {
            __m512i a = _mm512_loadu_si512(s + i), b = _mm512_loadu_si512(s + i + 64);
            _mm512_storeu_si512(d + i, a);
            _mm512_storeu_si512(d + i + 64, b);
        }
    }
    for (; i < nb; i += 64) {
        __mmask64 m = byte_lanes(nb - i);
        _mm512_mask_storeu_epi8(d + i, m, _mm512_maskz_loadu_epi8(m, s + i));
    }
}

/* Two 32-byte rows s0, s1 to the 64 bytes at d. */
static inline void v_copy_2x32(char *d, const char *s0, const char *s1, bool nt) {
    __m512i v = _mm512_castsi256_si512(_mm256_loadu_si256((const __m256i *)(const void *)s0));
    v = _mm512_inserti64x4(v, _mm256_loadu_si256((const __m256i *)(const void *)s1), 1);
    if (nt && ((uintptr_t)d & 63) == 0)
        _mm512_stream_si512((__m512i *)(void *)d, v);
    else
        _mm512_storeu_si512(d, v);
}

static inline void v_zero_bytes(char *d, int64_t nb) {
    for (int64_t i = 0; i < nb; i += 64)
        _mm512_mask_storeu_epi8(d + i, byte_lanes(nb - i), _mm512_setzero_si512());
}

#define LG_RF_ENTRY lg__rf_kernel_avx512
#define LG_RF_CVT   lg__cvt_avx512
#include "primitives/reorder/fast_simd.h"
