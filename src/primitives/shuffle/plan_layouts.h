/* The plan of a shuffle that changes layout on the way (src and dst in
 * different layouts): the offset-table plan that lg__shuffle_plan (plan.c,
 * the kind's one planner) makes for such a problem, mode LG_SHUF_LAYOUTS.
 *
 * Model. For a blocked md the offset of a logical index is a sum of one term
 * per dim, off(idx) = offset0 + sum_d T_d(idx[d]). The plan keeps, per dim,
 * dst's table over the padded extent and src's over the logical extent (on
 * the axis composed with the shuffle's permutation, so that src's table at
 * output channel c gives the offset of source channel c'). One dim, `in`, is
 * walked innermost in runs of R elements: R is dst's stride-1 run on that
 * dim (a channel block, a whole plain row) so each run writes contiguous
 * memory; the other dims and the runs of `in` form the outer loops, ordered
 * by dst stride (largest first), which are cut into contiguous ranges over
 * threads. A run whose src elements are contiguous too is one memcpy; other
 * runs gather through the table. Elements of dst's padding are written as
 * zeros; src padding is never read. */
#ifndef LG_PRIMITIVES_SHUFFLE_PLAN_LAYOUTS_H
#define LG_PRIMITIVES_SHUFFLE_PLAN_LAYOUTS_H

#include "primitives/shuffle/shuffle.h"

/* Outer loops of a plan: at most one per dim. */
typedef struct lg__shuf_lplan {
    int esz; /* element size, bytes */
    int nd;
    int64_t dims[LG_MAX_NDIMS], pdims[LG_MAX_NDIMS]; /* logical, dst's padded */
    int64_t *td[LG_MAX_NDIMS];                       /* dst offsets, [pdims[d]] */
    int64_t *ts[LG_MAX_NDIMS];                       /* src offsets, [dims[d]] */
    int64_t dbase, sbase;                            /* offset0 of dst, src */
    int in;                                          /* the dim walked innermost */
    int64_t R;                                       /* its run length (divides pdims[in]) */
    bool dst_run;                                    /* dst is stride 1 over each run */
    uint8_t *contig; /* [pdims[in] / R]: the run's logical part is stride 1 on both sides */
    int nloop;       /* outer loops, outermost first */
    int loop_dim[LG_MAX_NDIMS];
    int64_t loop_n[LG_MAX_NDIMS]; /* extents; the loop on `in` counts runs */
    int64_t units;                /* runs in all (product of loop_n) */
    int64_t bytes;                /* bytes moved, to decide on threads */
    int64_t *mem;                 /* one block holding td, ts */
    char impl[48];
} lg__shuf_lplan;

/* Plan pd (plan_layouts.c; called by lg__shuffle_plan only): LG_OK with *out set, or
 * LG_OUT_OF_MEMORY. */
LG_INTERNAL lg_status lg__shuffle_plan_layouts(const lg__shuffle_pd *pd, lg__shuf_lplan **out);
LG_INTERNAL void lg__shuffle_plan_layouts_free(lg__shuf_lplan *p);

/* Run a plan: OpenMP over contiguous ranges of runs, serial for small
 * problems; the same bits as lg__shuffle_ref. Does not allocate. */
LG_INTERNAL void lg__shuffle_exec_layouts(const lg__shuf_lplan *p, const void *src, void *dst);

#endif /* LG_PRIMITIVES_SHUFFLE_PLAN_LAYOUTS_H */
