/* The SIMD binary f32 kernels (binary.h), written once over the vector
 * layer (eltwise/simd_avx2.h or simd_avx512.h). Not a normal header:
 * binary_avx2.c and binary_avx512.c each include their layer, name the
 * entry points LG_BIN_VV and LG_BIN_PAT, then include this file.
 *
 * One loop per algorithm, VL lanes, masked tails. minps / maxps give b when
 * either operand is NaN, as lg__binary_fwd. */
#if !defined(LG_BIN_VV) || !defined(LG_BIN_PAT)
#error "binary_simd.h is a template: include a vector layer and name the entry points first"
#endif

#include "primitives/binary/binary.h"

/* A switch over the algorithm around LOOP(OP), OP a vector operation. */
#define BY_ALG(LOOP)                                                                               \
    switch ((lg_binary_alg)alg) {                                                                  \
    case LG_BINARY_ADD:                                                                            \
        LOOP(v_add);                                                                               \
        break;                                                                                     \
    case LG_BINARY_SUB:                                                                            \
        LOOP(v_sub);                                                                               \
        break;                                                                                     \
    case LG_BINARY_MUL:                                                                            \
        LOOP(v_mul);                                                                               \
        break;                                                                                     \
    case LG_BINARY_DIV:                                                                            \
        LOOP(v_div);                                                                               \
        break;                                                                                     \
    case LG_BINARY_MIN:                                                                            \
        LOOP(v_min);                                                                               \
        break;                                                                                     \
    case LG_BINARY_MAX:                                                                            \
        LOOP(v_max);                                                                               \
        break;                                                                                     \
    }

/* Software prefetch distance in elements (see eltwise_simd.h). */
#define PF_AHEAD     512
#define PREFETCH1(p) _mm_prefetch((const char *)((p) + PF_AHEAD), _MM_HINT_T0)
#define PREFETCH2(p, q)                                                                            \
    (_mm_prefetch((const char *)((p) + PF_AHEAD), _MM_HINT_T0),                                    \
     _mm_prefetch((const char *)((q) + PF_AHEAD), _MM_HINT_T0))

#define VV_LOOP(OP)                                                                                \
    do {                                                                                           \
        int64_t i = 0;                                                                             \
        if (stream)                                                                                \
            for (; i + VL <= n; i += VL) {                                                         \
                PREFETCH2(a + i, b + i);                                                           \
                v_stream(d + i, OP(v_load(a + i), v_load(b + i)));                                 \
            }                                                                                      \
        else                                                                                       \
            for (; i + VL <= n; i += VL) {                                                         \
                PREFETCH2(a + i, b + i);                                                           \
                v_store(d + i, OP(v_load(a + i), v_load(b + i)));                                  \
            }                                                                                      \
        if (i < n)                                                                                 \
            v_store_part(d + i, OP(v_load_part(a + i, n - i), v_load_part(b + i, n - i)), n - i);  \
    } while (0)

void LG_BIN_VV(int alg, const float *a, const float *b, float *d, int64_t n, bool stream) {
    BY_ALG(VV_LOOP)
}

/* Most pattern vectors: patterns of up to 64 lanes. */
#define MAXP (64 / VL)

/* Pattern vectors: np of them (plen / VL), cycled; invalid lanes give +0. */
#define PAT_LOOP(OP)                                                                               \
    do {                                                                                           \
        int64_t i = 0;                                                                             \
        if (np == 1)                                                                               \
            for (; i + VL <= n; i += VL, PREFETCH1(a + i))                                         \
                v_store(d + i, v_keep(m[0], OP(v_load(a + i), p[0])));                             \
        else                                                                                       \
            for (int j = 0; i + VL <= n; i += VL, j = j + 1 == np ? 0 : j + 1, PREFETCH1(a + i))   \
                v_store(d + i, v_keep(m[j], OP(v_load(a + i), p[j])));                             \
        if (i < n) {                                                                               \
            int j = (int)((i / VL) % np);                                                          \
            v_store_part(d + i, v_keep(m[j], OP(v_load_part(a + i, n - i), p[j])), n - i);         \
        }                                                                                          \
    } while (0)

void LG_BIN_PAT(int alg, const float *a, const float *pat, const int32_t *valid, int plen, float *d,
                int64_t n) {
    vec p[MAXP];
    vmask m[MAXP];
    int np = plen / VL;
    for (int j = 0; j < np; j++) {
        p[j] = v_load(pat + VL * j);
        m[j] = v_flags(valid + VL * j);
    }
    BY_ALG(PAT_LOOP)
}
