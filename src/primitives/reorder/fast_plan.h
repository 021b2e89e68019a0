/* The fast reorder engine's plan: the normalised problem that fast_plan.c
 * builds from an lg__reorder_pd and that the kernels (fast_scalar.c,
 * fast_avx2.c, fast_avx512.c) and the driver (fast.c) execute.
 *
 * Normal form. Every logical dim is cut into pieces at each block boundary of
 * both layouts; each piece is a loop dim with an extent and one stride (in
 * elements) per array: src, dst and the four attribute arrays (a stride of 0
 * means "does not vary along this dim"). The index space is covered by jobs,
 * each a box of loop dims with base offsets:
 *  - data jobs cover exactly the logical elements (the full blocks, then the
 *    tails of dims that are not multiples of the blocks, as separate boxes);
 *  - zero jobs cover exactly dst's padding (dst-only boxes), except the
 *    padding right after a data job's rows, which that job writes (apad).
 * Jobs write disjoint dst elements, so they may run in any order, on any
 * thread. Inside a job, loop dims are ordered by decreasing dst stride and
 * dims contiguous on every array are merged.
 *
 * Each job keeps up to three kernel dims kd[0..2] (kd[0] innermost) that one
 * kernel call handles, and outer dims that the driver iterates. For COPY
 * jobs kd[0] has src and dst stride 1; ZERO jobs write rows along kd[0]
 * (vectorised when its dst stride is 1); for TRANS
 * jobs kd[0] (A) has dst stride 1 and kd[1] (B) src stride 1 (with bflat, B
 * runs on through kd[2], which then has src stride kd[1].n); GENERIC jobs
 * have no such guarantee and run element by element. */
#ifndef LG_PRIMITIVES_REORDER_FAST_PLAN_H
#define LG_PRIMITIVES_REORDER_FAST_PLAN_H

#include "primitives/simd/dt_kinds.h" /* LK_* / SK_*: load and store kinds */
#include "primitives/reorder/reorder.h"

/* Arrays a loop dim strides over. */
enum { LG_RF_SRC, LG_RF_DST, LG_RF_SS, LG_RF_DS, LG_RF_SZP, LG_RF_DZP, LG_RF_NARR };

/* Most loop dims a job can have: each dim splits into at most one piece per
 * boundary of either layout, plus its outer piece. */
#define LG_RF_MAXD (3 * LG_MAX_NDIMS)

typedef struct lg__rf_dim {
    int64_t n;              /* extent (>= 1) */
    int64_t st[LG_RF_NARR]; /* stride per array, in elements */
} lg__rf_dim;

typedef enum lg__rf_kind {
    LG_RF_COPY,    /* kd[0]: src and dst stride 1 */
    LG_RF_TRANS,   /* kd[0] (A): dst stride 1; kd[1] (B): src stride 1 */
    LG_RF_ZERO,    /* dst padding: zeros along kd[0] */
    LG_RF_GENERIC, /* anything else, element by element */
} lg__rf_kind;

typedef struct lg__rf_job {
    lg__rf_kind kind;
    int nouter;
    lg__rf_dim outer[LG_RF_MAXD]; /* outermost first */
    lg__rf_dim kd[3];             /* kernel dims, kd[0] innermost; unused ones have n = 1 */
    int64_t base[LG_RF_NARR];     /* element offset of the job's first element, per array */
    /* Parallel units: every outer index times every chunk of kd[cdim], the
     * chunks being `chunk` long (the last one shorter). */
    int cdim;
    bool bflat; /* TRANS only: B runs over kd[1] x kd[2], contiguous in src */
    /* COPY / TRANS: each kd[0] row is followed in dst by apad elements of
     * padding, which the kernel writes as zeros (a blocked tail and its
     * padding in one pass; the zero job they would need is dropped). */
    int64_t apad;
    bool stream; /* store with non-temporal stores where full and aligned */
    int64_t chunk, nchunks, units;
    int64_t unit_cost; /* elements per full unit (for balancing) */
} lg__rf_job;

typedef struct lg__rf_plan lg__rf_plan;

/* Base pointers of one kernel call: the job's base plus the unit's offsets. */
typedef struct lg__rf_ptrs {
    const char *src;
    char *dst;
    const float *ss, *ds;
    const int32_t *szp, *dzp;
} lg__rf_ptrs;

/* A kernel: runs job j over the box n[0] x n[1] x n[2] of its kernel dims
 * (n[k] <= j->kd[k].n) starting at ptrs. */
typedef void (*lg__rf_kernel)(const lg__rf_plan *p, const lg__rf_job *j, const lg__rf_ptrs *ptrs,
                              const int64_t n[3]);

struct lg__rf_plan {
    lg__isa isa;
    lg_dtype sdt, ddt;
    int ssz, dsz; /* element sizes in bytes */
    bool copy;    /* no attributes and equal types: move bits */
    bool has_ss, has_ds, has_szp, has_dzp, has_sum;
    bool arith; /* some attribute is present (so values pass through arithmetic) */
    float beta;
    bool stream; /* some job streams (the driver then fences) */
    int njobs;
    lg__rf_job *jobs;
    int64_t total_cost; /* sum over jobs of units * unit_cost */
    int64_t bytes;      /* bytes the problem reads and writes, to decide on threads */
    lg__rf_kernel kernel;
    const char *impl;
};

/* Normalise pd into *plan (jobs allocated with lg__malloc). LG_UNIMPLEMENTED
 * if the blockings of some dim do not nest or the box count explodes,
 * LG_OUT_OF_MEMORY on allocation failure. Kernel choice is left to the
 * caller (plan->kernel, plan->impl). */
LG_INTERNAL lg_status lg__rf_plan_build(const lg__reorder_pd *pd, lg__rf_plan *plan);

/* Test hook: plans made from now on use non-temporal stores in copies when
 * the problem moves at least `bytes` bytes, src and dst together (a
 * negative value restores the default, 32 MB), and in scattered transposes
 * when it does or dst alone has half of that; transposes that write dst in
 * sequence likewise on CPUs with AVX512-FP16 only (fast.c). */
LG_INTERNAL void lg__reorder_fast_set_stream_bytes(int64_t bytes);

/* The kernels of each ISA level; each handles every job kind (the SIMD ones
 * hand GENERIC jobs to the scalar kernel). */
LG_INTERNAL void lg__rf_kernel_scalar(const lg__rf_plan *p, const lg__rf_job *j,
                                      const lg__rf_ptrs *ptrs, const int64_t n[3]);
LG_INTERNAL void lg__rf_kernel_avx2(const lg__rf_plan *p, const lg__rf_job *j,
                                    const lg__rf_ptrs *ptrs, const int64_t n[3]);
LG_INTERNAL void lg__rf_kernel_avx512(const lg__rf_plan *p, const lg__rf_job *j,
                                      const lg__rf_ptrs *ptrs, const int64_t n[3]);

#endif /* LG_PRIMITIVES_REORDER_FAST_PLAN_H */
