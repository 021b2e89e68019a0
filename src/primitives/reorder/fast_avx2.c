/* AVX2 (+FMA, F16C) pieces of the fast reorder kernels: 8 lanes, the 8x8
 * transpose of simd/move_avx2.h, the typed loads and stores of
 * simd/dtio_avx2.h (shared with every kind), and the reorder's own
 * converting 8-bit transpose (v_tr_b8). The kernels themselves are in
 * fast_simd.h. Only called when the plan's ISA is LG_ISA_AVX2 or above. */
#include "primitives/reorder/fast_plan.h"

#include "primitives/simd/dtio_avx2.h" /* typed loads and stores (v_ld, v_st) */
#include "primitives/simd/move_avx2.h" /* transposes, byte copies */

#include <immintrin.h>
#include <stdint.h>
#include <string.h>

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
            c[k] = v_codes8(sk, _mm256_castsi256_ps(x[k]));
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

#define LG_RF_ENTRY lg__rf_kernel_avx2
#define LG_RF_CVT   lg__cvt_avx2
#include "primitives/reorder/fast_simd.h"
