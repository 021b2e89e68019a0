/* The softmax kernel's internal interface: the problem (also its cache
 * key), the execution plan of the vector paths, the reference and the
 * per-ISA rows. */
#ifndef LG_PRIMITIVES_SOFTMAX_H
#define LG_PRIMITIVES_SOFTMAX_H

#include "memory/md.h"
#include "primitives/cpu.h"

/* A validated problem, zeroed then filled (the cache hashes its bytes). */
typedef struct lg__softmax_pd {
    lg_md src, dst;
    int32_t alg, axis; /* alg 0 softmax, 1 log-softmax */
} lg__softmax_pd;

/* The scalar truth, in double: per row (every index but the axis's)
 * m = max x, s = sum exp(x - m), y = exp(x - m) / s or (x - m) - log(s),
 * rounded once to f32 and then to dst's type. dst's padding is zeroed
 * through padtab (lg__offtab_new over dst's padded dims; NULL when dst has
 * none). src may be dst. */
LG_INTERNAL void lg__softmax_ref(const lg__softmax_pd *pd, const int64_t *padtab, const void *src,
                                 void *dst);

/* Most outer loops of a plan. */
#define LG_SMX_MAX_OUTER LG_MAX_NDIMS

/*
 * A vector plan over a layout whose innermost elements are contiguous.
 * Rows are the outer index space (ext[i], stride st[i], outermost first).
 * horizontal: the axis is the contiguous one: a row is nseg segments of
 *   seglen contiguous elements, seg_stride apart, the last one holding
 *   last_valid axis elements (the rest is padding, written 0).
 * vertical: the axis steps by ax_stride (A elements); a row is a run of
 *   `run` contiguous lanes (split into chunks of `chunk` lanes, each a row of
 *   its own); on the outer loop `vdim` (-1: none) the lanes of index i are
 *   valid up to min(run, vlim - i * run) (a blocked channel dim: the rest is
 *   padding, written 0).
 */
typedef struct lg__softmax_plan {
    const lg__softmax_pd *pd;
    bool horizontal;
    int nouter;
    int64_t ext[LG_SMX_MAX_OUTER], st[LG_SMX_MAX_OUTER];
    int64_t nseg, seglen, seg_stride, last_valid;
    int64_t A, ax_stride, run, chunk, nchunk;
    int vdim;
    int64_t vlim;
} lg__softmax_plan;

static inline int64_t lg__softmax_rows(const lg__softmax_plan *p) {
    int64_t r = p->horizontal ? 1 : p->nchunk;
    for (int i = 0; i < p->nouter; i++) r *= p->ext[i];
    return r;
}

typedef void (*lg__softmax_fn)(const lg__softmax_plan *p, const void *src, void *dst, int64_t r0,
                               int64_t r1);
LG_INTERNAL void lg__softmax_rows_avx2(const lg__softmax_plan *p, const void *src, void *dst,
                                       int64_t r0, int64_t r1);
LG_INTERNAL void lg__softmax_rows_avx512(const lg__softmax_plan *p, const void *src, void *dst,
                                         int64_t r0, int64_t r1);

#endif /* LG_PRIMITIVES_SOFTMAX_H */
