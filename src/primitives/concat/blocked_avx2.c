/* The blocked engine's AVX2 rows: each dst row (one block of 16, 32 or 64
 * bytes) is assembled in registers from one unaligned window load per
 * segment, blended under the segment's byte mask, and stored once. A
 * window reads bytes of the source row's neighbours; where they would lie
 * outside the source plane (first or last row) the row is copied by the
 * scalar code. Only called when lg__cpu_isa() allows AVX2. */
#include "primitives/concat/concat.h"

#include <immintrin.h>

void lg__cc_rows_avx2(const lg__cc_blocked *b, const void *const *srcs, void *dst, int64_t n,
                      int64_t j, int64_t r0, int64_t r1) {
    const int64_t BB = b->BB, R = b->R;
    const uint8_t *base[LG_CC_MAXSEG];
    const int32_t ns = lg__cc_windows(b, srcs, n, j, base), k0 = b->seg0[j];
    if (ns < 0) {
        lg__cc_rows_scalar(b, srcs, dst, n, j, r0, r1);
        return;
    }
    bool lo_bad = false, hi_bad = false;
    for (int32_t s = 0; s < ns; s++) {
        lo_bad |= b->segs[k0 + s].so < b->segs[k0 + s].dof;
        hi_bad |= b->segs[k0 + s].so > b->segs[k0 + s].dof;
    }
    int64_t v0 = r0, v1 = r1;
    if (lo_bad && v0 == 0) v0 = 1;
    if (hi_bad && v1 == R) v1 = R - 1;
    if (v0 >= v1) {
        lg__cc_rows_scalar(b, srcs, dst, n, j, r0, r1);
        return;
    }
    if (v0 > r0) lg__cc_rows_scalar(b, srcs, dst, n, j, r0, v0);
    if (v1 < r1) lg__cc_rows_scalar(b, srcs, dst, n, j, v1, r1);
    const uint8_t *mk = b->masks + (size_t)k0 * (size_t)BB;
    uint8_t *d = (uint8_t *)dst + ((n * b->dcb + j) * R) * BB;
    if (BB == 64) {
        for (int64_t r = v0; r < v1; r++) {
            __m256i a0 = _mm256_setzero_si256(), a1 = a0;
            for (int32_t s = 0; s < ns; s++) {
                const uint8_t *p = base[s] + r * 64;
                const __m256i *m = (const __m256i *)(mk + (size_t)s * 64);
                a0 = _mm256_blendv_epi8(a0, _mm256_loadu_si256((const __m256i *)p),
                                        _mm256_loadu_si256(m));
                a1 = _mm256_blendv_epi8(a1, _mm256_loadu_si256((const __m256i *)(p + 32)),
                                        _mm256_loadu_si256(m + 1));
            }
            _mm256_storeu_si256((__m256i *)(d + r * 64), a0);
            _mm256_storeu_si256((__m256i *)(d + r * 64 + 32), a1);
        }
    } else if (BB == 32) {
        for (int64_t r = v0; r < v1; r++) {
            __m256i a = _mm256_setzero_si256();
            for (int32_t s = 0; s < ns; s++)
                a = _mm256_blendv_epi8(a, _mm256_loadu_si256((const __m256i *)(base[s] + r * 32)),
                                       _mm256_loadu_si256((const __m256i *)(mk + (size_t)s * 32)));
            _mm256_storeu_si256((__m256i *)(d + r * 32), a);
        }
    } else {
        for (int64_t r = v0; r < v1; r++) {
            __m128i a = _mm_setzero_si128();
            for (int32_t s = 0; s < ns; s++)
                a = _mm_blendv_epi8(a, _mm_loadu_si128((const __m128i *)(base[s] + r * 16)),
                                    _mm_loadu_si128((const __m128i *)(mk + (size_t)s * 16)));
            _mm_storeu_si128((__m128i *)(d + r * 16), a);
        }
    }
}
