/* AVX2 binary f32 kernels (binary.h): as binary_avx512.c on 8 lanes, masked
 * tails with maskload / maskstore. Only called when lg__cpu_isa() allows
 * AVX2. */
#include "primitives/binary/binary.h"

#include <immintrin.h>

typedef __m256 vec;

static inline __m256i first_lanes(int64_t k) {
    return _mm256_cmpgt_epi32(_mm256_set1_epi32((int)k), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

#define BY_ALG(LOOP)                                                                               \
    switch ((lg_binary_alg)alg) {                                                                  \
    case LG_BINARY_ADD:                                                                            \
        LOOP(_mm256_add_ps);                                                                       \
        break;                                                                                     \
    case LG_BINARY_SUB:                                                                            \
        LOOP(_mm256_sub_ps);                                                                       \
        break;                                                                                     \
    case LG_BINARY_MUL:                                                                            \
        LOOP(_mm256_mul_ps);                                                                       \
        break;                                                                                     \
    case LG_BINARY_DIV:                                                                            \
        LOOP(_mm256_div_ps);                                                                       \
        break;                                                                                     \
    case LG_BINARY_MIN:                                                                            \
        LOOP(_mm256_min_ps);                                                                       \
        break;                                                                                     \
    case LG_BINARY_MAX:                                                                            \
        LOOP(_mm256_max_ps);                                                                       \
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
            for (; i + 8 <= n; i += 8) {                                                           \
                PREFETCH2(a + i, b + i);                                                           \
                _mm256_stream_ps(d + i, OP(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i)));       \
            }                                                                                      \
        else                                                                                       \
            for (; i + 8 <= n; i += 8) {                                                           \
                PREFETCH2(a + i, b + i);                                                           \
                _mm256_storeu_ps(d + i, OP(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i)));       \
            }                                                                                      \
        if (i < n) {                                                                               \
            __m256i m = first_lanes(n - i);                                                        \
            _mm256_maskstore_ps(d + i, m,                                                          \
                                OP(_mm256_maskload_ps(a + i, m), _mm256_maskload_ps(b + i, m)));   \
        }                                                                                          \
    } while (0)

void lg__binary_vv_avx2(int alg, const float *a, const float *b, float *d, int64_t n, bool stream) {
    BY_ALG(VV_LOOP)
}

#define PAT_LOOP(OP)                                                                               \
    do {                                                                                           \
        int64_t i = 0;                                                                             \
        for (int j = 0; i + 8 <= n; i += 8, j = j + 1 == np ? 0 : j + 1, PREFETCH1(a + i))         \
            _mm256_storeu_ps(d + i, _mm256_and_ps(m[j], OP(_mm256_loadu_ps(a + i), p[j])));        \
        if (i < n) {                                                                               \
            int j = (int)((i / 8) % np);                                                           \
            __m256i t = first_lanes(n - i);                                                        \
            vec r = _mm256_and_ps(m[j], OP(_mm256_maskload_ps(a + i, t), p[j]));                   \
            _mm256_maskstore_ps(d + i, t, r);                                                      \
        }                                                                                          \
    } while (0)

void lg__binary_pat_avx2(int alg, const float *a, const float *pat, const int32_t *valid, int plen,
                         float *d, int64_t n) {
    vec p[8], m[8];
    int np = plen / 8;
    for (int j = 0; j < np; j++) {
        p[j] = _mm256_loadu_ps(pat + 8 * j);
        __m256i v = _mm256_loadu_si256((const __m256i *)(valid + 8 * j));
        m[j] = _mm256_castsi256_ps(_mm256_cmpeq_epi32(_mm256_cmpeq_epi32(v, _mm256_setzero_si256()),
                                                      _mm256_setzero_si256()));
    }
    BY_ALG(PAT_LOOP)
}
