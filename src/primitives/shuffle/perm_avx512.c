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

/* Tiles of K sources (shuffle.h): the K source vectors of a tile are loaded
 * once into registers; window w is pair 0's two-source permute, the other
 * pairs merged over it under their lane masks (every lane belongs to one
 * pair, so nothing needs zeroing). Pixels run outermost, so src is read and
 * dst written in address order; with tile_pf each source vector is
 * prefetched tile_pf bytes (whole pixels) ahead. A prefetch past the end of
 * src is harmless: it never faults and loads nothing architecturally. */
#define DEFINE_TILE(NAME, K, PERM2, MOV, M)                                                        \
    static void NAME(const lg__shuf_plan *p, const char *src, char *dst, int64_t n, int64_t ps,    \
                     bool stream) {                                                                \
        enum { NP = K / 2 };                                                                       \
        const int64_t esz = p->esz, ts = p->tile_src * esz, is = p->tile_is * esz,                 \
                      td = p->tile_dst * esz, pf = p->tile_pf;                                     \
        __m512i ix[K * NP];                                                                        \
        M mk[K * NP];                                                                              \
        int64_t doff[K];                                                                           \
        for (int w = 0; w < K; w++) {                                                              \
            doff[w] = p->win[w].dst_off * esz;                                                     \
            for (int q = 0; q < NP; q++) {                                                         \
                ix[w * NP + q] = LOAD512(p->seg[w * NP + q].idx);                                  \
                mk[w * NP + q] = (M)p->seg[w * NP + q].mask;                                       \
            }                                                                                      \
        }                                                                                          \
        for (int64_t i = 0; i < n; i++)                                                            \
            for (int64_t t = 0; t < p->ntiles; t++) {                                              \
                const char *s = src + i * ps + t * ts;                                             \
                char *d = dst + i * ps + t * td;                                                   \
                __m512i v[K];                                                                      \
                if (pf)                                                                            \
                    for (int j = 0; j < K; j++) _mm_prefetch(s + pf + j * is, _MM_HINT_T0);        \
                for (int j = 0; j < K; j++) v[j] = LOAD512(s + j * is);                            \
                for (int w = 0; w < K; w++) {                                                      \
                    __m512i r = PERM2(v[0], ix[w * NP], v[1]);                                     \
                    for (int q = 1; q < NP; q++)                                                   \
                        r = MOV(r, mk[w * NP + q], PERM2(v[2 * q], ix[w * NP + q], v[2 * q + 1])); \
                    if (stream)                                                                    \
                        STREAM512(d + doff[w], r);                                                 \
                    else                                                                           \
                        STORE512(d + doff[w], r);                                                  \
                }                                                                                  \
            }                                                                                      \
    }

DEFINE_TILE(tile_d2, 2, PERM2_D, _mm512_mask_mov_epi32, __mmask16)
DEFINE_TILE(tile_d4, 4, PERM2_D, _mm512_mask_mov_epi32, __mmask16)
DEFINE_TILE(tile_d8, 8, PERM2_D, _mm512_mask_mov_epi32, __mmask16)
DEFINE_TILE(tile_w2, 2, PERM2_W, _mm512_mask_mov_epi16, __mmask32)
DEFINE_TILE(tile_w4, 4, PERM2_W, _mm512_mask_mov_epi16, __mmask32)
DEFINE_TILE(tile_w8, 8, PERM2_W, _mm512_mask_mov_epi16, __mmask32)

void lg__shuf_tile_avx512(const lg__shuf_plan *p, const char *src, char *dst, int64_t n,
                          bool stream) {
    int64_t ps = p->in_s * p->esz; /* m = 1: one pixel per group */
    bool w16 = p->vec == LG_SHUF_ZMM_W;
    switch (p->tile_k) {
    case 2:
        (w16 ? tile_w2 : tile_d2)(p, src, dst, n, ps, stream);
        break;
    case 4:
        (w16 ? tile_w4 : tile_d4)(p, src, dst, n, ps, stream);
        break;
    default:
        (w16 ? tile_w8 : tile_d8)(p, src, dst, n, ps, stream);
        break;
    }
}
