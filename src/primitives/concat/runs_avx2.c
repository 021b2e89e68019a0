/* The rows path's short runs with AVX2 (concat.h): each run copied by
 * 32-byte unaligned loads and stores, the last one overlapping the one
 * before it (so no tail loop and no call per run); runs under 32 bytes by
 * two overlapping 16-, 8-, 4- or 2-byte moves (or one byte). Only called when
 * lg__cpu_isa() allows AVX2. */
#include "primitives/concat/concat.h"

#include <immintrin.h>
#include <string.h>

/* n bytes, w <= n <= 2 w, as two overlapping moves of w bytes. */
static inline __attribute__((always_inline)) void two_moves(uint8_t *d, const uint8_t *s, int64_t n,
                                                            size_t w) {
    uint64_t a = 0, b = 0;
    memcpy(&a, s, w);
    memcpy(&b, s + n - (int64_t)w, w);
    memcpy(d, &a, w);
    memcpy(d + n - (int64_t)w, &b, w);
}

static inline __attribute__((always_inline)) void copy_run(uint8_t *d, const uint8_t *s,
                                                           int64_t n) {
    if (n >= 32) {
        const __m256i last = _mm256_loadu_si256((const __m256i *)(const void *)(s + n - 32));
        int64_t i = 0;
        for (; i + 64 <= n; i += 64) {
            __m256i a = _mm256_loadu_si256((const __m256i *)(const void *)(s + i));
            __m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(s + i + 32));
            _mm256_storeu_si256((__m256i *)(void *)(d + i), a);
            _mm256_storeu_si256((__m256i *)(void *)(d + i + 32), b);
        }
        if (i + 32 <= n)
            _mm256_storeu_si256((__m256i *)(void *)(d + i),
                                _mm256_loadu_si256((const __m256i *)(const void *)(s + i)));
        _mm256_storeu_si256((__m256i *)(void *)(d + n - 32), last);
    } else if (n >= 16) {
        __m128i a = _mm_loadu_si128((const __m128i *)(const void *)s);
        __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(s + n - 16));
        _mm_storeu_si128((__m128i *)(void *)d, a);
        _mm_storeu_si128((__m128i *)(void *)(d + n - 16), b);
    } else if (n >= 8) {
        two_moves(d, s, n, 8);
    } else if (n >= 4) {
        two_moves(d, s, n, 4);
    } else if (n >= 2) {
        two_moves(d, s, n, 2);
    } else if (n == 1) {
        d[0] = s[0];
    }
}

void lg__cc_runs_avx2(const lg__cc_runs *r, uint8_t *dst, int64_t o0, int64_t o1) {
    if (r->npc == 2) { /* the common concat of two: both runs per point, unrolled */
        for (int64_t o = o0; o < o1; o++) {
            uint8_t *d = dst + o * r->dstride;
            copy_run(d + r->doff[0], r->src[0] + o * r->sstride[0], r->run[0]);
            copy_run(d + r->doff[1], r->src[1] + o * r->sstride[1], r->run[1]);
        }
        return;
    }
    for (int64_t o = o0; o < o1; o++) {
        uint8_t *d = dst + o * r->dstride;
        for (int p = 0; p < r->npc; p++)
            copy_run(d + r->doff[p], r->src[p] + o * r->sstride[p], r->run[p]);
    }
}
