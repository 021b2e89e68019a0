/* The blocked engine's AVX-512 rows: as the AVX2 ones (blocked_avx2.c), but
 * each segment is one byte-masked load (AVX-512 BW), which touches only the
 * segment's own bytes, so every row takes the vector path. Only called when
 * lg__cpu_isa() allows AVX-512. */
#include "primitives/concat/concat.h"

#include <immintrin.h>

static inline uint64_t seg_mask(const lg__cc_seg *s) {
    uint64_t m = s->len >= 64 ? ~0ull : ((1ull << s->len) - 1);
    return m << s->dof;
}

void lg__cc_rows_avx512(const lg__cc_blocked *b, const void *const *srcs, void *dst, int64_t n,
                        int64_t j, int64_t r0, int64_t r1) {
    const int64_t BB = b->BB, R = b->R;
    const uint8_t *base[LG_CC_MAXSEG];
    const int32_t ns = lg__cc_windows(b, srcs, n, j, base), k0 = b->seg0[j];
    if (ns < 0) {
        lg__cc_rows_scalar(b, srcs, dst, n, j, r0, r1);
        return;
    }
    __mmask64 km[LG_CC_MAXSEG];
    for (int32_t s = 0; s < ns; s++) km[s] = (__mmask64)seg_mask(&b->segs[k0 + s]);
    uint8_t *d = (uint8_t *)dst + ((n * b->dcb + j) * R) * BB;
    if (BB == 64) {
        for (int64_t r = r0; r < r1; r++) {
            __m512i a = _mm512_setzero_si512();
            for (int32_t s = 0; s < ns; s++) a = _mm512_mask_loadu_epi8(a, km[s], base[s] + r * 64);
            _mm512_storeu_si512(d + r * 64, a);
        }
    } else if (BB == 32) {
        for (int64_t r = r0; r < r1; r++) {
            __m256i a = _mm256_setzero_si256();
            for (int32_t s = 0; s < ns; s++)
                a = _mm256_mask_loadu_epi8(a, (__mmask32)km[s], base[s] + r * 32);
            _mm256_storeu_si256((__m256i *)(d + r * 32), a);
        }
    } else {
        for (int64_t r = r0; r < r1; r++) {
            __m128i a = _mm_setzero_si128();
            for (int32_t s = 0; s < ns; s++)
                a = _mm_mask_loadu_epi8(a, (__mmask16)km[s], base[s] + r * 16);
            _mm_storeu_si128((__m128i *)(d + r * 16), a);
        }
    }
}
