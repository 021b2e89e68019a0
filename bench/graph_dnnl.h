/*
 * A workload of workloads.h built by hand from oneDNN 2.6 primitives the way
 * an expert would: every conv created with format `any` for src, weights and
 * dst (oneDNN's best implementation and layouts), relu and the residual add
 * as eltwise and sum post-ops, weights reordered once at creation to the
 * layout each conv chose, the shuffle run by dnnl_shuffle_forward on the
 * blocked layout, and reorders only where the user's nchw input enters and
 * the nchw output leaves. The residual sum runs in place in the buffer that
 * already holds the input in the conv's dst layout when there is one.
 */
#ifndef LG_BENCH_GRAPH_DNNL_H
#define LG_BENCH_GRAPH_DNNL_H

#include "workloads.h"

#include <oneapi/dnnl/dnnl.h>

#define GD_MAX_STEPS 16
#define GD_MAX_MEMS  48

typedef struct gd_step {
    dnnl_primitive_t prim;
    int nargs;
    dnnl_exec_arg_t args[6];
} gd_step;

typedef struct gd_chain {
    dnnl_stream_t stream;
    int nsteps;
    gd_step steps[GD_MAX_STEPS];
    int nmems;
    dnnl_memory_t mems[GD_MAX_MEMS]; /* owned: user wrappers, intermediates, weights */
    int runtime_reorders;            /* reorder steps per execution */
    int64_t reorder_bytes;           /* bytes they read and write per execution */
    int64_t inter_bytes;             /* intermediate buffers (no reuse) */
    int64_t weights_bytes;           /* reordered weights and biases */
    char impls[1024]; /* "reorder(jit:uni abcd->acdb) conv(brgconv:avx512_core acdb->acdb) ..." */
} gd_chain;

/* Build the chain for w on engine eng, reading the nchw input x and writing
 * the nchw output y (buffers of wl_input_bytes / wl_output_bytes, kept alive
 * by the caller). Weight reorders run here, once. Returns 0, or -1 with a
 * message on stderr (the chain is then released). */
int gd_create(gd_chain *c, const wl_workload *w, dnnl_engine_t eng, dnnl_stream_t stream,
              const float *x, float *y);

/* Run every step and wait for the stream. Returns 0, or -1 (message on
 * stderr). */
int gd_execute(const gd_chain *c);

/* Release everything the chain owns; safe on a zeroed or released chain. */
void gd_destroy(gd_chain *c);

#endif /* LG_BENCH_GRAPH_DNNL_H */
