/* Plumbing shared by the kernel benchmarks (reorder, shuffle, eltwise,
 * binary, conv): an lgraph kernel and a oneDNN primitive with their
 * arguments, each runnable as a bench_fn; CHECK for setup calls; aligned,
 * zeroed buffers. Header-only, like bench_util.h. */
#ifndef LG_BENCH_KERNEL_H
#define LG_BENCH_KERNEL_H

#include "bench_util.h"

#include <lgraph.h>
#include <oneapi/dnnl/dnnl.h>
#include <stdio.h>

#define BENCH_MAX_ARGS 4

/* An lgraph kernel and its first `nargs` arguments. */
typedef struct lg_ctx {
    lg_kernel *k;
    int nargs;
    lg_arg args[BENCH_MAX_ARGS];
} lg_ctx;
static inline void run_lg(void *p) {
    lg_ctx *c = p;
    lg_kernel_execute(c->k, c->nargs, c->args);
}

/* A oneDNN primitive, its stream and its first `nargs` arguments; a run
 * waits for the stream, so it times the whole execution. */
typedef struct dnnl_ctx {
    dnnl_primitive_t prim;
    dnnl_stream_t stream;
    int nargs;
    dnnl_exec_arg_t args[BENCH_MAX_ARGS];
} dnnl_ctx;
static inline void run_dnnl(void *p) {
    dnnl_ctx *c = p;
    dnnl_primitive_execute(c->prim, c->stream, c->nargs, c->args);
    dnnl_stream_wait(c->stream);
}

/* A setup call of either library (both return 0 on success) must succeed:
 * otherwise the benchmark stops, naming the call and lgraph's last error. */
#define CHECK(x)                                                                                   \
    do {                                                                                           \
        if ((x) != 0) {                                                                            \
            fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #x, lg_last_error());    \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

/* `bytes` (rounded up to 64) aligned to 64 and zeroed; exits if out of memory. */
static inline void *bench_alloc(size_t bytes) {
    size_t n = (bytes + 63) & ~(size_t)63;
    void *p = aligned_alloc(64, n ? n : 64);
    if (!p) {
        fprintf(stderr, "bench: cannot allocate %zu bytes\n", bytes);
        exit(1);
    }
    memset(p, 0, n);
    return p;
}

#endif
