/* The compiled plan behind lg_plan: an immutable array of steps, each a
 * kernel with the places of its buffers, plus what executions share (a pool
 * of arenas) and what asynchronous executions count.
 *
 * A buffer's place is bases[base] + offset bytes, where an execution's bases
 * are: [0] its arena, [1, 1 + nin) the bound inputs, [1 + nin, 1 + nin +
 * nout) the bound outputs, then the plan's constants. */
#ifndef LG_GRAPH_PLAN_H
#define LG_GRAPH_PLAN_H

#include "graph/graph.h"

#include <uv.h>

/* Where a buffer lives during an execution: bases[base] + offset (the
 * compiler's memory planner and plan builder fill it in). */
typedef struct lg__place {
    int base; /* -1: not placed yet */
    int64_t offset;
} lg__place;

/* One kernel run. bufs[] follows the kernel's slots (base -1: an absent
 * optional argument). The rest describes the step for dumps. */
typedef struct lg__step {
    lg_kernel *kernel; /* one reference owned by the plan */
    void *state;       /* kernel->prep's state for the plan's constants (NULL: none) */
    int nbufs;
    lg__place bufs[LG_KERNEL_MAX_ARGS];
    lg__node_kind node_kind;
    bool inserted; /* a reorder the compiler added */
    bool copy;     /* a copy into an output, or of a fused sum's source */
    char desc[192];
    int nin;
    int tin[LG_NODE_MAX_IN + 1]; /* tensors read (ids into lg_plan.tensors) */
    int tout;                    /* tensor written */
    /* For profiles (lg_step_profile): */
    lg_layer_class layer_class;
    int64_t bytes;
    double flops, model_cost;
    char cost_key[48]; /* the cost model's key of the step (issue 20) */
    double cost_bytes; /* the bytes the cost model counts */
} lg__step;

/* A tensor of the plan, for dumps. */
typedef struct lg__tensor {
    char name[64];
    lg_md md;
    lg__place place;
    lg__val_kind kind;
    bool output;
} lg__tensor;

/* An input or output of the plan. */
typedef struct lg__io {
    char *name;
    lg_md md;
} lg__io;

/* One execution's scratch: the arena and its bases table. */
typedef struct lg__arena {
    struct lg__arena *next;
    void *mem;
    void **bases;
} lg__arena;

struct lg_plan {
    lg__step *steps;
    int nsteps;
    lg__io *ins, *outs;
    int nin, nout;
    void **consts;
    int nconst;
    int nbases;
    lg__tensor *tensors;
    int ntensors;
    int64_t arena_bytes;
    int64_t const_bytes; /* the constants' bytes (lg_plan_stats.const_bytes) */
    /* Micro-batching (lg_compile_options.batch_slices): each execute runs
     * the steps `slices` times, the k-th time with every input and output
     * base moved by k * slice_bytes[i] (i in plan order, inputs first). */
    int slices;
    int64_t *slice_bytes; /* NULL when slices == 1 */
    int num_threads;
    const char *strategy;
    lg_plan_stats stats;
    uv_mutex_t pool_mu; /* guards pool */
    lg__arena *pool;    /* arenas not in use */
    uv_mutex_t async_mu;
    uv_cond_t async_cv;
    int inflight; /* asynchronous executions not finished */
};

/* A plan with its locks initialised and nothing else, or NULL. */
LG_INTERNAL lg_plan *lg__plan_new(void);

/* The plan is built by the compiler (src/passes/plan_build.c,
 * lg__plan_build); this header is all it needs of the plan. */

/* Check the bindings against the plan's inputs and outputs (every one bound
 * once, by a known name, to a non-NULL buffer; outputs overlapping nothing
 * else) and write the buffers into ptrs[0, nin + nout) in plan order. */
LG_INTERNAL lg_status lg__plan_resolve(const lg_plan *p, int nin, const lg_binding *in, int nout,
                                       const lg_binding *out, void **ptrs, const char *where);

/* lg_plan_execute that also writes each step's wall time into ms[0,
 * nsteps) (`where` names the public function in errors). */
LG_INTERNAL lg_status lg__plan_execute_timed(const lg_plan *p, int nin, const lg_binding *in,
                                             int nout, const lg_binding *out, double *ms,
                                             const char *where);

/* Make every execute of p run its steps `slices` times over consecutive
 * slices of dim 0 of its inputs and outputs, whose mds grow to `slices`
 * times their dim 0 (lg_compile_options.batch_slices; `where` names the
 * public function in errors). LG_UNIMPLEMENTED, naming the input or output,
 * where dim 0 is not outermost and unblocked in its layout; the plan is
 * then unchanged. slices <= 1 does nothing. */
LG_INTERNAL lg_status lg__plan_set_slices(lg_plan *p, int slices, const char *where);

/* Run the plan on resolved buffers (ptrs as lg__plan_resolve writes them). */
LG_INTERNAL lg_status lg__plan_run(const lg_plan *p, void *const *ptrs);

#endif /* LG_GRAPH_PLAN_H */
