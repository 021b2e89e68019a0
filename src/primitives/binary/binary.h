/* The binary kernel's internal interface: the problem (also its cache key),
 * the scalar truth and the f32 SIMD kernels per ISA. */
#ifndef LG_PRIMITIVES_BINARY_H
#define LG_PRIMITIVES_BINARY_H

#include "memory/md.h"
#include "primitives/cpu.h"

/* A validated binary problem, zeroed then filled (the kernel cache hashes
 * its bytes). All three mds are concrete (dst "any" already resolved to
 * src0's layout); src0 and dst have the same dims; each src1 dim equals
 * src0's or is 1. */
typedef struct lg__binary_pd {
    lg_md src0, src1, dst;
    int32_t alg;
} lg__binary_pd;

/* The scalar truth for one element, one f32 operation:
 *   add a + b, sub a - b, mul a * b, div a / b,
 *   min a < b ? a : b, max a > b ? a : b (x86 minps / maxps: b when either is NaN);
 *   ge, gt, le, lt, eq: 1 where a (op) b holds, else 0 (0 on NaN); ne: 1 where
 *   a != b (1 on NaN), else 0. */
static inline float lg__binary_fwd(int alg, float a, float b) {
    switch ((lg_binary_alg)alg) {
    case LG_BINARY_ADD:
        return a + b;
    case LG_BINARY_SUB:
        return a - b;
    case LG_BINARY_MUL:
        return a * b;
    case LG_BINARY_DIV:
        return a / b;
    case LG_BINARY_MIN:
        return a < b ? a : b;
    case LG_BINARY_MAX:
        return a > b ? a : b;
    case LG_BINARY_GE:
        return a >= b ? 1.0f : 0.0f;
    case LG_BINARY_GT:
        return a > b ? 1.0f : 0.0f;
    case LG_BINARY_LE:
        return a <= b ? 1.0f : 0.0f;
    case LG_BINARY_LT:
        return a < b ? 1.0f : 0.0f;
    case LG_BINARY_EQ:
        return a == b ? 1.0f : 0.0f;
    case LG_BINARY_NE:
        return a != b ? 1.0f : 0.0f;
    }
    return a;
}

/* The whole-tensor reference: each dst element from src0 and src1 (broadcast
 * index 0 on src1's size-1 dims) through lg__md_off, in f32, converted as
 * convert.h; then dst's padding zeroed. The truth the tests compare with. */
/* The algorithm's name, "add" ("unknown" for none): the one table of binary
 * names. */
LG_INTERNAL const char *lg__binary_alg_str(int alg);

LG_INTERNAL void lg__binary_ref(const lg__binary_pd *pd, const void *src0, const void *src1,
                                void *dst);

/*
 * f32 kernels (bit-exact with lg__binary_fwd):
 *  - vv:  d[i] = a[i] op b[i], i < n;
 *  - pat: d[i] = a[i] op p[i % k] where lane i % k is valid, else +0, for
 *    i < n; the pattern is given tiled: p and valid hold plen = max(k, VL)
 *    entries (VL = 8 for AVX2, 16 for AVX-512; k a power of two <= 64) and
 *    the caller starts every call at a multiple of k.
 * d may equal a or b; otherwise no overlap. stream: non-temporal stores for
 * full vectors, d must then be 64-byte aligned (the caller fences).
 */
typedef void (*lg__binary_vv_fn)(int alg, const float *a, const float *b, float *d, int64_t n,
                                 bool stream);
typedef void (*lg__binary_pat_fn)(int alg, const float *a, const float *p, const int32_t *valid,
                                  int plen, float *d, int64_t n, bool stream);
LG_INTERNAL void lg__binary_vv_scalar(int alg, const float *a, const float *b, float *d, int64_t n,
                                      bool stream);
LG_INTERNAL void lg__binary_pat_scalar(int alg, const float *a, const float *p,
                                       const int32_t *valid, int plen, float *d, int64_t n,
                                       bool stream);
LG_INTERNAL void lg__binary_vv_avx2(int alg, const float *a, const float *b, float *d, int64_t n,
                                    bool stream);
LG_INTERNAL void lg__binary_pat_avx2(int alg, const float *a, const float *p, const int32_t *valid,
                                     int plen, float *d, int64_t n, bool stream);
LG_INTERNAL void lg__binary_vv_avx512(int alg, const float *a, const float *b, float *d, int64_t n,
                                      bool stream);
LG_INTERNAL void lg__binary_pat_avx512(int alg, const float *a, const float *p,
                                       const int32_t *valid, int plen, float *d, int64_t n,
                                       bool stream);

/*
 * Typed forms (AVX2 / AVX-512): the same with each of src0 (a), src1 (b,
 * vv only) and dst (d) in its own type (f32, f16 or bf16), converted in
 * registers as convert.h converts (bit for bit). a, b and d point at the
 * first element of the run.
 */
typedef void (*lg__binary_vv_dt_fn)(int alg, lg_dtype ta, const void *a, lg_dtype tb, const void *b,
                                    lg_dtype td, void *d, int64_t n);
typedef void (*lg__binary_pat_dt_fn)(int alg, lg_dtype ta, const void *a, const float *p,
                                     const int32_t *valid, int plen, lg_dtype td, void *d,
                                     int64_t n);
LG_INTERNAL void lg__binary_vv_dt_avx2(int alg, lg_dtype ta, const void *a, lg_dtype tb,
                                       const void *b, lg_dtype td, void *d, int64_t n);
LG_INTERNAL void lg__binary_pat_dt_avx2(int alg, lg_dtype ta, const void *a, const float *p,
                                        const int32_t *valid, int plen, lg_dtype td, void *d,
                                        int64_t n);
LG_INTERNAL void lg__binary_vv_dt_avx512(int alg, lg_dtype ta, const void *a, lg_dtype tb,
                                         const void *b, lg_dtype td, void *d, int64_t n);
LG_INTERNAL void lg__binary_pat_dt_avx512(int alg, lg_dtype ta, const void *a, const float *p,
                                          const int32_t *valid, int plen, lg_dtype td, void *d,
                                          int64_t n);

#endif /* LG_PRIMITIVES_BINARY_H */
