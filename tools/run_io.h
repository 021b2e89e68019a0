/* What lgraph-run's single run and its strategy comparison share: the
 * buffers of a plan's inputs and outputs, and a clock. */
#ifndef LG_TOOLS_RUN_IO_H
#define LG_TOOLS_RUN_IO_H

#include <lgraph.h>
#include <stdint.h>

/* A tensor the caller sees in plain row-major order, and the buffer the
 * plan reads or writes in the layout it reports (a reorder between them
 * when they differ). */
typedef struct run_buf {
    const char *name;
    lg_md plain, plan;
    float *user;
    void *data;
    lg_kernel *to_plan, *from_plan;
} run_buf;

/* Set up b for the input or output `name` of p; -1 on failure. */
int run_setup_buf(const lg_plan *p, const char *name, run_buf *b);
/* Free what b holds (b may be zeroed). */
void run_free_buf(run_buf *b);
/* Run reorder k from src to dst (nothing when k is NULL); -1 on failure. */
int run_move(lg_kernel *k, void *src, void *dst);
/* Elements of md's dims. */
int64_t run_elems(const lg_md *md);
/* Monotonic wall clock in ms; qsort comparator of doubles. */
double run_now_ms(void);
/* The process's CPU time in ms (all its threads). */
double run_cpu_ms(void);
int run_cmp_double(const void *x, const void *y);
/* n uniform values in [-1, 1) from the generator state *state (advanced). */
void run_fill(float *x, int64_t n, unsigned long long *state);

/* --micro-batch=auto's choice (lgraph-run), from the plan of the whole
 * batch n (its arena and constants): n when the arena fits in the
 * last-level cache (llc bytes); else the largest divisor b of n whose
 * arena, in proportion (arena * b / n), fits (1 when none does), unless
 * reading the weights n / b times instead of once costs more bytes than
 * the arena that would spill ((n / b - 1) * consts >= arena: then n). A
 * traffic estimate, not a measurement: docs/onnx.md says what it picks. */
#define MICRO_AUTO (-1)
int64_t run_micro_auto(int64_t n, int64_t arena, int64_t consts, int64_t llc);
/* The last-level cache in bytes: the largest cache of cpu0 in sysfs (glibc's
 * sysconf reports the host's whole L3 on some virtual machines), else 32 MiB. */
int64_t run_llc_bytes(void);

/* lgraph-run --compare-strategies (compare.c): compile g under every
 * strategy and with each optional pass switched off, run each plan `iters`
 * times after `warmup` runs on the same seeded inputs, print one row per
 * plan (a table, or with json a JSON array) and check every plan's outputs
 * against the first's (max |diff| <= tol * max |ref|). Returns 0 when all
 * agree, 1 otherwise or on failure. */
struct lg_onnx_io;
typedef struct run_compare {
    const char *model;
    int64_t batch;
    int iters, warmup, threads;
    double tol;
    unsigned long long seed;
    bool json;
    const char *csv; /* NULL, or a CSV file to write the rows to */
} run_compare;
int run_compare_strategies(const lg_graph *g, const struct lg_onnx_io *io, const run_compare *c);

#endif /* LG_TOOLS_RUN_IO_H */
