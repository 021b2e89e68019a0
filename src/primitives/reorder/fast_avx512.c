/* AVX-512 (F/BW/DQ/VL) pieces of the fast reorder kernels: 16 lanes, the
 * 16x16 transpose of simd/move_avx512.h, the typed loads and stores of
 * simd/dtio_avx512.h (shared with every kind), and the reorder's own
 * converting 8-bit transpose (v_tr_b8). The kernels themselves are in
 * fast_simd.h. Only called when the plan's ISA is LG_ISA_AVX512. */
#include "primitives/reorder/fast_plan.h"

#include "primitives/simd/dtio_avx512.h" /* typed loads and stores (v_ld, v_st) */
#include "primitives/simd/move_avx512.h" /* transposes, byte copies */

#include <immintrin.h>
#include <stdint.h>
#include <string.h>

/* fast_avx2.c's v_tr_b8 on 16 pixels: rows a = 0..15 of 16 f32 at s + a *
 * sa (from nv on zeros) to 16 dst rows of 16 bytes at d + b * db. The packs,
 * the byte shuffle and the dword transpose work per 128-bit lane as in
 * AVX2, so lane L of h[i] is pixel 4L + i's 16 bytes. Dst rows 16 bytes
 * apart (nChw16c) are one 256-byte run: a transpose of the lanes makes it
 * four 64-byte stores (the lane-by-lane stores took 12 extracts and 16
 * stores); other row steps store one lane at a time. */
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
            c[k] = v_codes8(sk, _mm512_castsi512_ps(x[k]));
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
    if (db == 16) { /* the 16 rows are contiguous: a 4 x 4 transpose of 128-bit lanes */
        __m512i u0 = _mm512_shuffle_i32x4(h[0], h[1], 0x44),
                u1 = _mm512_shuffle_i32x4(h[2], h[3], 0x44);
        __m512i u2 = _mm512_shuffle_i32x4(h[0], h[1], 0xee),
                u3 = _mm512_shuffle_i32x4(h[2], h[3], 0xee);
        __m512i o[4] = {_mm512_shuffle_i32x4(u0, u1, 0x88), _mm512_shuffle_i32x4(u0, u1, 0xdd),
                        _mm512_shuffle_i32x4(u2, u3, 0x88), _mm512_shuffle_i32x4(u2, u3, 0xdd)};
        for (int k = 0; k < 4; k++) _mm512_storeu_si512((void *)(d + 64 * k), o[k]);
        return;
    }
    for (int i = 0; i < 4; i++) {
        _mm_storeu_si128((__m128i *)(void *)(d + i * db), _mm512_extracti32x4_epi32(h[i], 0));
        _mm_storeu_si128((__m128i *)(void *)(d + (4 + i) * db), _mm512_extracti32x4_epi32(h[i], 1));
        _mm_storeu_si128((__m128i *)(void *)(d + (8 + i) * db), _mm512_extracti32x4_epi32(h[i], 2));
        _mm_storeu_si128((__m128i *)(void *)(d + (12 + i) * db),
                         _mm512_extracti32x4_epi32(h[i], 3));
    }
}

#define LG_RF_ENTRY lg__rf_kernel_avx512
#define LG_RF_CVT   lg__cvt_avx512
#include "primitives/reorder/fast_simd.h"
