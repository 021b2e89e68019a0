/* PERMUTE kernels for AVX2 (also used under AVX-512 for these kinds):
 *  - XMM_B: 16-byte windows of any element size; each segment is a pshufb
 *    whose control zeroes the lanes it does not give, so the window is the
 *    OR of its segments (padding lanes stay zero);
 *  - YMM_D: 8 x 32-bit windows; vpermd per segment, blended in by lane
 *    mask (from zero). (No gathers: AVX2 gathers lose to 8 segments.)
 * Windows run outermost, pixel groups innermost, so a window's index
 * vectors stay in registers across the chunk (up to 8 segments unrolled;
 * more run a generic loop that reloads them). */
#include "primitives/shuffle/shuffle.h"

#include <immintrin.h>

#define INLINE static inline __attribute__((always_inline))

/* Store r at p: non-temporal when stream (then p is aligned), else plain. */
#define XSTORE(p, r, stream)                                                                       \
    do {                                                                                           \
        if (stream)                                                                                \
            _mm_stream_si128((__m128i *)(p), r);                                                   \
        else                                                                                       \
            _mm_storeu_si128((__m128i *)(p), r);                                                   \
    } while (0)
#define YSTORE(p, r, stream)                                                                       \
    do {                                                                                           \
        if (stream)                                                                                \
            _mm256_stream_si256((__m256i *)(p), r);                                                \
        else                                                                                       \
            _mm256_storeu_si256((__m256i *)(p), r);                                                \
    } while (0)

/* XMM_B with ns segments (a constant after inlining). */
INLINE void xmm_b_n(int ns, const lg__shuf_seg *sg, int esz, const char *s, char *d, int64_t n,
                    int64_t ps, bool stream) {
    __m128i ix[8];
    const char *sp[8];
    for (int j = 0; j < ns; j++) {
        ix[j] = _mm_load_si128((const __m128i *)sg[j].idx);
        sp[j] = s + sg[j].src_off * esz;
    }
    for (int64_t i = 0; i < n; i++) {
        __m128i r = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(sp[0] + i * ps)), ix[0]);
        for (int j = 1; j < ns; j++)
            r = _mm_or_si128(
                r, _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(sp[j] + i * ps)), ix[j]));
        XSTORE(d + i * ps, r, stream);
    }
}

static void xmm_b_any(int ns, const lg__shuf_seg *sg, int esz, const char *s, char *d, int64_t n,
                      int64_t ps, bool stream) {
    for (int64_t i = 0; i < n; i++) {
        __m128i r = _mm_setzero_si128();
        for (int j = 0; j < ns; j++) {
            __m128i v = _mm_loadu_si128((const __m128i *)(s + sg[j].src_off * esz + i * ps));
            r = _mm_or_si128(r, _mm_shuffle_epi8(v, _mm_load_si128((const __m128i *)sg[j].idx)));
        }
        XSTORE(d + i * ps, r, stream);
    }
}

/* YMM_D with ns segments. */
INLINE void ymm_d_n(int ns, const lg__shuf_seg *sg, int esz, const char *s, char *d, int64_t n,
                    int64_t ps, bool stream) {
    __m256i ix[8], mk[8];
    const char *sp[8];
    for (int j = 0; j < ns; j++) {
        ix[j] = _mm256_load_si256((const __m256i *)sg[j].idx);
        mk[j] = _mm256_load_si256((const __m256i *)(sg[j].idx + 32));
        sp[j] = s + sg[j].src_off * esz;
    }
    for (int64_t i = 0; i < n; i++) {
        __m256i r = _mm256_setzero_si256();
        for (int j = 0; j < ns; j++) {
            __m256i v = _mm256_loadu_si256((const __m256i *)(sp[j] + i * ps));
            r = _mm256_blendv_epi8(r, _mm256_permutevar8x32_epi32(v, ix[j]), mk[j]);
        }
        YSTORE(d + i * ps, r, stream);
    }
}

static void ymm_d_any(int ns, const lg__shuf_seg *sg, int esz, const char *s, char *d, int64_t n,
                      int64_t ps, bool stream) {
    for (int64_t i = 0; i < n; i++) {
        __m256i r = _mm256_setzero_si256();
        for (int j = 0; j < ns; j++) {
            __m256i v = _mm256_loadu_si256((const __m256i *)(s + sg[j].src_off * esz + i * ps));
            __m256i ix = _mm256_load_si256((const __m256i *)sg[j].idx);
            __m256i mk = _mm256_load_si256((const __m256i *)(sg[j].idx + 32));
            r = _mm256_blendv_epi8(r, _mm256_permutevar8x32_epi32(v, ix), mk);
        }
        YSTORE(d + i * ps, r, stream);
    }
}

void lg__shuf_chunk_avx2(const lg__shuf_plan *p, const char *src, char *dst, int64_t n,
                         bool stream) {
    int64_t ps = p->m * p->in_s * p->esz; /* bytes from one pixel group to the next */
    int esz = p->esz;
    for (int w = 0; w < p->nwin; w++) {
        const lg__shuf_win *win = &p->win[w];
        const lg__shuf_seg *sg = p->seg + win->seg0;
        char *d = dst + win->dst_off * esz;
        if (win->nseg == 0) { /* padding only */
            for (int64_t i = 0; i < n; i++)
                if (p->vec == LG_SHUF_XMM_B)
                    _mm_storeu_si128((__m128i *)(d + i * ps), _mm_setzero_si128());
                else
                    _mm256_storeu_si256((__m256i *)(d + i * ps), _mm256_setzero_si256());
        } else if (p->vec == LG_SHUF_XMM_B) {
            LG_SHUF_DISPATCH(xmm_b, win->nseg, sg, esz, src, d, n, ps, stream);
        } else {
            LG_SHUF_DISPATCH(ymm_d, win->nseg, sg, esz, src, d, n, ps, stream);
        }
    }
}
