/* AVX-512 binary f32 kernels (binary.h): one loop per algorithm, 16 lanes,
 * masked tails. minps / maxps give b when either operand is NaN, as
 * lg__binary_fwd. Only called when lg__cpu_isa() allows AVX-512. */
#include "primitives/binary/binary.h"

#include <immintrin.h>

typedef __m512 vec;

static inline __mmask16 first_lanes(int64_t k) {
    return (__mmask16)((1u << k) - 1u);
}

/* A switch over the algorithm around LOOP(OP), OP a vector operation. */
#define BY_ALG(LOOP)                                                                               \
    switch ((lg_binary_alg)alg) {                                                                  \
    case LG_BINARY_ADD:                                                                            \
        LOOP(_mm512_add_ps);                                                                       \
        break;                                                                                     \
    case LG_BINARY_SUB:                                                                            \
        LOOP(_mm512_sub_ps);                                                                       \
        break;                                                                                     \
    case LG_BINARY_MUL:                                                                            \
        LOOP(_mm512_mul_ps);                                                                       \
        break;                                                                                     \
    case LG_BINARY_DIV:                                                                            \
        LOOP(_mm512_div_ps);                                                                       \
        break;                                                                                     \
    case LG_BINARY_MIN:                                                                            \
        LOOP(_mm512_min_ps);                                                                       \
        break;                                                                                     \
    case LG_BINARY_MAX:                                                                            \
        LOOP(_mm512_max_ps);                                                                       \
        break;                                                                                     \
    }

/* Software prefetch distance in elements (see eltwise_avx512.c). */
#define PF_AHEAD     512
#define PREFETCH1(p) _mm_prefetch((const char *)((p) + PF_AHEAD), _MM_HINT_T0)
#define PREFETCH2(p, q)                                                                            \
    (_mm_prefetch((const char *)((p) + PF_AHEAD), _MM_HINT_T0),                                    \
     _mm_prefetch((const char *)((q) + PF_AHEAD), _MM_HINT_T0))

#define VV_LOOP(OP)                                                                                \
    do {                                                                                           \
        int64_t i = 0;                                                                             \
        if (stream)                                                                                \
            for (; i + 16 <= n; i += 16) {                                                         \
                PREFETCH2(a + i, b + i);                                                           \
                _mm512_stream_ps(d + i, OP(_mm512_loadu_ps(a + i), _mm512_loadu_ps(b + i)));       \
            }                                                                                      \
        else                                                                                       \
            for (; i + 16 <= n; i += 16) {                                                         \
                PREFETCH2(a + i, b + i);                                                           \
                _mm512_storeu_ps(d + i, OP(_mm512_loadu_ps(a + i), _mm512_loadu_ps(b + i)));       \
            }                                                                                      \
        if (i < n) {                                                                               \
            __mmask16 m = first_lanes(n - i);                                                      \
            _mm512_mask_storeu_ps(                                                                 \
                d + i, m, OP(_mm512_maskz_loadu_ps(m, a + i), _mm512_maskz_loadu_ps(m, b + i)));   \
        }                                                                                          \
    } while (0)

void lg__binary_vv_avx512(int alg, const float *a, const float *b, float *d, int64_t n,
                          bool stream) {
    BY_ALG(VV_LOOP)
}

/* Pattern vectors: np of them (plen / 16), cycled; invalid lanes give +0. */
#define PAT_LOOP(OP)                                                                               \
    do {                                                                                           \
        int64_t i = 0;                                                                             \
        if (np == 1)                                                                               \
            for (; i + 16 <= n; i += 16, PREFETCH1(a + i))                                         \
                _mm512_storeu_ps(d + i,                                                            \
                                 _mm512_maskz_mov_ps(m[0], OP(_mm512_loadu_ps(a + i), p[0])));     \
        else                                                                                       \
            for (int j = 0; i + 16 <= n; i += 16, j = j + 1 == np ? 0 : j + 1, PREFETCH1(a + i))   \
                _mm512_storeu_ps(d + i,                                                            \
                                 _mm512_maskz_mov_ps(m[j], OP(_mm512_loadu_ps(a + i), p[j])));     \
        if (i < n) {                                                                               \
            int j = (int)((i / 16) % np);                                                          \
            __mmask16 t = first_lanes(n - i);                                                      \
            vec r = _mm512_maskz_mov_ps(m[j], OP(_mm512_maskz_loadu_ps(t, a + i), p[j]));          \
            _mm512_mask_storeu_ps(d + i, t, r);                                                    \
        }                                                                                          \
    } while (0)

void lg__binary_pat_avx512(int alg, const float *a, const float *pat, const int32_t *valid,
                           int plen, float *d, int64_t n) {
    vec p[4];
    __mmask16 m[4];
    int np = plen / 16;
    for (int j = 0; j < np; j++) {
        p[j] = _mm512_loadu_ps(pat + 16 * j);
        m[j] = _mm512_test_epi32_mask(_mm512_loadu_si512(valid + 16 * j), _mm512_set1_epi32(-1));
    }
    BY_ALG(PAT_LOOP)
}
