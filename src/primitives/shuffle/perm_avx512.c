/* PERMUTE kernels for AVX-512 (F, BW, VL):
 *  - ZMM_D: 16 x 32-bit windows (nChw16c and nhwc f32/s32; nChw8c two
 *    pixels each);
 *  - ZMM_W: 32 x 16-bit windows (nhwc f16/bf16; nChw16c two pixels each);
 *  - YMM_W: 16 x 16-bit windows (blocks of 16 whose pixels are apart).
 * A window of up to 8 segments merges one masked permute (vpermd / vpermw)
 * per segment into a zero vector under the segment's lane mask, so padding
 * lanes stay zero. A window of more segments takes them in pairs: one
 * two-source permute (vpermt2d / vpermt2w) per pair, merged by a masked
 * move; that halves the permutes where a window reads many source vectors
 * (large G and C/G). Windows run outermost, pixel groups innermost; up to 8
 * segments or pairs run unrolled, with index vectors in registers. */
#include "primitives/shuffle/shuffle.h"

#include <immintrin.h>

#define INLINE static inline __attribute__((always_inline))

/* One kind: V vector, M mask type, PERM(r, m, ix, v) merge-masked permute,
 * PERM2(a, ix, b) two-source permute, MOV(r, m, t) masked move, and
 * LOAD / STORE / STREAM / ZERO. Defines NAME (single segments, through
 * NAME_n and NAME_any) and NAME##2 (pairs, through NAME2_n and NAME2_any). */
#define DEFINE_KIND(NAME, V, M, PERM, PERM2, MOV, LOAD, STORE, STREAM, ZERO)                       \
    INLINE void NAME##_n(int ns, const lg__shuf_seg *sg, int esz, const char *s, char *d,          \
                         int64_t n, int64_t ps, bool stream) {                                     \
        V ix[8];                                                                                   \
        M mk[8];                                                                                   \
        const char *sp[8];                                                                         \
        for (int j = 0; j < ns; j++) {                                                             \
            ix[j] = LOAD(sg[j].idx);                                                               \
            mk[j] = (M)sg[j].mask;                                                                 \
            sp[j] = s + sg[j].src_off * esz;                                                       \
        }                                                                                          \
        for (int64_t i = 0; i < n; i++) {                                                          \
            V r = ZERO();                                                                          \
            for (int j = 0; j < ns; j++) r = PERM(r, mk[j], ix[j], LOAD(sp[j] + i * ps));          \
            if (stream)                                                                            \
                STREAM(d + i * ps, r);                                                             \
            else                                                                                   \
                STORE(d + i * ps, r);                                                              \
        }                                                                                          \
    }                                                                                              \
    static void NAME##_any(int ns, const lg__shuf_seg *sg, int esz, const char *s, char *d,        \
                           int64_t n, int64_t ps, bool stream) {                                   \
        for (int64_t i = 0; i < n; i++) {                                                          \
            V r = ZERO();                                                                          \
            for (int j = 0; j < ns; j++)                                                           \
                r = PERM(r, (M)sg[j].mask, LOAD(sg[j].idx),                                        \
                         LOAD(s + sg[j].src_off * esz + i * ps));                                  \
            if (stream)                                                                            \
                STREAM(d + i * ps, r);                                                             \
            else                                                                                   \
                STORE(d + i * ps, r);                                                              \
        }                                                                                          \
    }                                                                                              \
    INLINE void NAME##2_n(int np, const lg__shuf_seg *sg, int esz, const char *s, char *d,         \
                          int64_t n, int64_t ps, bool stream) {                                    \
        V ix[8];                                                                                   \
        M mk[8];                                                                                   \
        const char *sa[8], *sb[8];                                                                 \
        for (int j = 0; j < np; j++) {                                                             \
            ix[j] = LOAD(sg[j].idx);                                                               \
            mk[j] = (M)sg[j].mask;                                                                 \
            sa[j] = s + sg[j].src_off * esz;                                                       \
            sb[j] = s + sg[j].src_off2 * esz;                                                      \
        }                                                                                          \
        for (int64_t i = 0; i < n; i++) {                                                          \
            V r = ZERO();                                                                          \
            for (int j = 0; j < np; j++)                                                           \
                r = MOV(r, mk[j], PERM2(LOAD(sa[j] + i * ps), ix[j], LOAD(sb[j] + i * ps)));       \
            if (stream)                                                                            \
                STREAM(d + i * ps, r);                                                             \
            else                                                                                   \
                STORE(d + i * ps, r);                                                              \
        }                                                                                          \
    }                                                                                              \
    static void NAME##2_any(int np, const lg__shuf_seg *sg, int esz, const char *s, char *d,       \
                            int64_t n, int64_t ps, bool stream) {                                  \
        for (int64_t i = 0; i < n; i++) {                                                          \
            V r = ZERO();                                                                          \
            for (int j = 0; j < np; j++)                                                           \
                r = MOV(r, (M)sg[j].mask,                                                          \
                        PERM2(LOAD(s + sg[j].src_off * esz + i * ps), LOAD(sg[j].idx),             \
                              LOAD(s + sg[j].src_off2 * esz + i * ps)));                           \
            if (stream)                                                                            \
                STREAM(d + i * ps, r);                                                             \
            else                                                                                   \
                STORE(d + i * ps, r);                                                              \
        }                                                                                          \
    }                                                                                              \
    static void NAME(int ns, const lg__shuf_seg *sg, int esz, const char *s, char *d, int64_t n,   \
                     int64_t ps, bool stream) {                                                    \
        if (ns == 0) {                                                                             \
            for (int64_t i = 0; i < n; i++) STORE(d + i * ps, ZERO());                             \
        } else if (ns > 0) {                                                                       \
            LG_SHUF_DISPATCH(NAME, ns, sg, esz, s, d, n, ps, stream);                              \
        } else {                                                                                   \
            LG_SHUF_DISPATCH(NAME##2, -ns, sg, esz, s, d, n, ps, stream);                          \
        }                                                                                          \
    }

#define LOAD512(p)           _mm512_loadu_si512((const void *)(p))
#define STORE512(p, v)       _mm512_storeu_si512((void *)(p), v)
#define STREAM512(p, v)      _mm512_stream_si512((void *)(p), v)
#define LOAD256(p)           _mm256_loadu_si256((const __m256i *)(p))
#define STORE256(p, v)       _mm256_storeu_si256((__m256i *)(p), v)
#define STREAM256(p, v)      _mm256_stream_si256((__m256i *)(p), v)
#define PERM_D(r, m, ix, v)  _mm512_mask_permutexvar_epi32(r, m, ix, v)
#define PERM_W(r, m, ix, v)  _mm512_mask_permutexvar_epi16(r, m, ix, v)
#define PERM_YW(r, m, ix, v) _mm256_mask_permutexvar_epi16(r, m, ix, v)
#define PERM2_D(a, ix, b)    _mm512_permutex2var_epi32(a, ix, b)
#define PERM2_W(a, ix, b)    _mm512_permutex2var_epi16(a, ix, b)
#define PERM2_YW(a, ix, b)   _mm256_permutex2var_epi16(a, ix, b)

DEFINE_KIND(zmm_d, __m512i, __mmask16, PERM_D, PERM2_D, _mm512_mask_mov_epi32, LOAD512, STORE512,
            STREAM512, _mm512_setzero_si512)
DEFINE_KIND(zmm_w, __m512i, __mmask32, PERM_W, PERM2_W, _mm512_mask_mov_epi16, LOAD512, STORE512,
            STREAM512, _mm512_setzero_si512)
DEFINE_KIND(ymm_w, __m256i, __mmask16, PERM_YW, PERM2_YW, _mm256_mask_mov_epi16, LOAD256, STORE256,
            STREAM256, _mm256_setzero_si256)

void lg__shuf_chunk_avx512(const lg__shuf_plan *p, const char *src, char *dst, int64_t n,
                           bool stream) {
    int64_t ps = p->m * p->in_s * p->esz; /* bytes from one pixel group to the next */
    int esz = p->esz;
    for (int w = 0; w < p->nwin; w++) {
        const lg__shuf_win *win = &p->win[w];
        const lg__shuf_seg *sg = p->seg + win->seg0;
        char *d = dst + win->dst_off * esz;
        switch (p->vec) {
        case LG_SHUF_ZMM_D:
            zmm_d(win->nseg, sg, esz, src, d, n, ps, stream);
            break;
        case LG_SHUF_ZMM_W:
            zmm_w(win->nseg, sg, esz, src, d, n, ps, stream);
            break;
        case LG_SHUF_YMM_W:
            ymm_w(win->nseg, sg, esz, src, d, n, ps, stream);
            break;
        default:
            break;
        }
    }
}
