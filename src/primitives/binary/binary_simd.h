/* The SIMD binary f32 kernels (binary.h), written once over the vector
 * layer (eltwise/simd_avx2.h or simd_avx512.h). Not a normal header:
 * binary_avx2.c and binary_avx512.c each include their layer, name the
 * entry points LG_BIN_VV, LG_BIN_PAT and their typed forms LG_BIN_VV_DT,
 * LG_BIN_PAT_DT (operands of any float type, converted in registers), then
 * include this file.
 *
 * One loop per algorithm, VL lanes, masked tails. minps / maxps give b when
 * either operand is NaN, as lg__binary_fwd. */
#if !defined(LG_BIN_VV) || !defined(LG_BIN_PAT) || !defined(LG_BIN_VV_DT) || !defined(LG_BIN_PAT_DT)
#error "binary_simd.h is a template: include a vector layer and name the entry points first"
#endif

#include "primitives/binary/binary.h"

/* Comparisons: 1.0 where the predicate holds, +0 elsewhere. */
static inline vec v_cmp_ge(vec a, vec b) {
    return v_keep(v_ge(a, b), v_set1(1.0f));
}
static inline vec v_cmp_gt(vec a, vec b) {
    return v_keep(v_gt(a, b), v_set1(1.0f));
}
static inline vec v_cmp_le(vec a, vec b) {
    return v_keep(v_le(a, b), v_set1(1.0f));
}
static inline vec v_cmp_lt(vec a, vec b) {
    return v_keep(v_gt(b, a), v_set1(1.0f));
}
static inline vec v_cmp_eq(vec a, vec b) {
    return v_keep(v_eq(a, b), v_set1(1.0f));
}
static inline vec v_cmp_ne(vec a, vec b) {
    return v_keep(v_ne(a, b), v_set1(1.0f));
}

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
    case LG_BINARY_GE:                                                                             \
        LOOP(v_cmp_ge);                                                                            \
        break;                                                                                     \
    case LG_BINARY_GT:                                                                             \
        LOOP(v_cmp_gt);                                                                            \
        break;                                                                                     \
    case LG_BINARY_LE:                                                                             \
        LOOP(v_cmp_le);                                                                            \
        break;                                                                                     \
    case LG_BINARY_LT:                                                                             \
        LOOP(v_cmp_lt);                                                                            \
        break;                                                                                     \
    case LG_BINARY_EQ:                                                                             \
        LOOP(v_cmp_eq);                                                                            \
        break;                                                                                     \
    case LG_BINARY_NE:                                                                             \
        LOOP(v_cmp_ne);                                                                            \
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

/* Pattern vectors: np of them (plen / VL), cycled; invalid lanes give +0;
 * full vectors stored with ST (v_store, or v_stream). */
#define PAT_FULL(OP, ST)                                                                           \
    do {                                                                                           \
        if (np == 1)                                                                               \
            for (; i + VL <= n; i += VL, PREFETCH1(a + i))                                         \
                ST(d + i, v_keep(m[0], OP(v_load(a + i), p[0])));                                  \
        else                                                                                       \
            for (int j = 0; i + VL <= n; i += VL, j = j + 1 == np ? 0 : j + 1, PREFETCH1(a + i))   \
                ST(d + i, v_keep(m[j], OP(v_load(a + i), p[j])));                                  \
    } while (0)
#define PAT_LOOP(OP)                                                                               \
    do {                                                                                           \
        int64_t i = 0;                                                                             \
        if (stream)                                                                                \
            PAT_FULL(OP, v_stream);                                                                \
        else                                                                                       \
            PAT_FULL(OP, v_store);                                                                 \
        if (i < n) {                                                                               \
            int j = (int)((i / VL) % np);                                                          \
            v_store_part(d + i, v_keep(m[j], OP(v_load_part(a + i, n - i), p[j])), n - i);         \
        }                                                                                          \
    } while (0)

/* The tiled pattern in registers: plen / VL vectors and their lane masks;
 * returns their count. */
static inline __attribute__((always_inline)) int
load_pattern(const float *pat, const int32_t *valid, int plen, vec p[MAXP], vmask m[MAXP]) {
    int np = plen / VL;
    for (int j = 0; j < np; j++) {
        p[j] = v_load(pat + VL * j);
        m[j] = v_flags(valid + VL * j);
    }
    return np;
}

void LG_BIN_PAT(int alg, const float *a, const float *pat, const int32_t *valid, int plen, float *d,
                int64_t n, bool stream) {
    vec p[MAXP];
    vmask m[MAXP];
    int np = load_pattern(pat, valid, plen, p, m);
    BY_ALG(PAT_LOOP)
}

/* VV_LOOP with each operand in its own float type (ta, tb, td). */
#define VV_LOOP_DT(OP)                                                                             \
    do {                                                                                           \
        int64_t i = 0;                                                                             \
        for (; i + VL <= n; i += VL) {                                                             \
            _mm_prefetch((const char *)a + (i + PF_AHEAD) * za, _MM_HINT_T0);                      \
            _mm_prefetch((const char *)b + (i + PF_AHEAD) * zb, _MM_HINT_T0);                      \
            v_store_dt(td, d, i, OP(v_load_dt(ta, a, i), v_load_dt(tb, b, i)));                    \
        }                                                                                          \
        if (i < n)                                                                                 \
            v_store_dt_part(td, d, i,                                                              \
                            OP(v_load_dt_part(ta, a, i, n - i), v_load_dt_part(tb, b, i, n - i)),  \
                            n - i);                                                                \
    } while (0)

static inline __attribute__((always_inline)) void vv_dt(int alg, lg_dtype ta, const void *a,
                                                        lg_dtype tb, const void *b, lg_dtype td,
                                                        void *d, int64_t n) {
    const int64_t za = ta == LG_F32 ? 4 : 2, zb = tb == LG_F32 ? 4 : 2;
    BY_ALG(VV_LOOP_DT)
}

/* One instance per 16-bit type when all three operands have it, and when
 * src1 is f32 (bcast_last's tile of widened repeats) with src0 and dst of
 * one 16-bit type (the conversions fixed at compile time); one for any
 * mix. */
void LG_BIN_VV_DT(int alg, lg_dtype ta, const void *a, lg_dtype tb, const void *b, lg_dtype td,
                  void *d, int64_t n) {
    if (ta == LG_BF16 && tb == LG_BF16 && td == LG_BF16)
        vv_dt(alg, LG_BF16, a, LG_BF16, b, LG_BF16, d, n);
    else if (ta == LG_F16 && tb == LG_F16 && td == LG_F16)
        vv_dt(alg, LG_F16, a, LG_F16, b, LG_F16, d, n);
    else if (ta == LG_BF16 && tb == LG_F32 && td == LG_BF16)
        vv_dt(alg, LG_BF16, a, LG_F32, b, LG_BF16, d, n);
    else if (ta == LG_F16 && tb == LG_F32 && td == LG_F16)
        vv_dt(alg, LG_F16, a, LG_F32, b, LG_F16, d, n);
    else
        vv_dt(alg, ta, a, tb, b, td, d, n);
}

/* PAT_LOOP with src0 and dst in their own float types. */
#define PAT_LOOP_DT(OP)                                                                            \
    do {                                                                                           \
        int64_t i = 0;                                                                             \
        for (int j = 0; i + VL <= n; i += VL, j = j + 1 == np ? 0 : j + 1)                         \
            v_store_dt(td, d, i, v_keep(m[j], OP(v_load_dt(ta, a, i), p[j])));                     \
        if (i < n) {                                                                               \
            int j = (int)((i / VL) % np);                                                          \
            v_store_dt_part(td, d, i, v_keep(m[j], OP(v_load_dt_part(ta, a, i, n - i), p[j])),     \
                            n - i);                                                                \
        }                                                                                          \
    } while (0)

static inline __attribute__((always_inline)) void pat_dt(int alg, lg_dtype ta, const void *a,
                                                         const float *pat, const int32_t *valid,
                                                         int plen, lg_dtype td, void *d,
                                                         int64_t n) {
    vec p[MAXP];
    vmask m[MAXP];
    int np = load_pattern(pat, valid, plen, p, m);
    BY_ALG(PAT_LOOP_DT)
}

void LG_BIN_PAT_DT(int alg, lg_dtype ta, const void *a, const float *pat, const int32_t *valid,
                   int plen, lg_dtype td, void *d, int64_t n) {
    if (ta == LG_BF16 && td == LG_BF16)
        pat_dt(alg, LG_BF16, a, pat, valid, plen, LG_BF16, d, n);
    else if (ta == LG_F16 && td == LG_F16)
        pat_dt(alg, LG_F16, a, pat, valid, plen, LG_F16, d, n);
    else
        pat_dt(alg, ta, a, pat, valid, plen, td, d, n);
}
