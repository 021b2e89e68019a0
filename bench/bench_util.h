/* Shared benchmark plumbing: a clock, alternating A/B timing with the median
 * of per-pair ratios, and a two-thread memcpy baseline. Header-only: each
 * benchmark is one program. */
#ifndef LG_BENCH_UTIL_H
#define LG_BENCH_UTIL_H

#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The clock: wall time, or with BENCH_CLOCK=thread the calling thread's CPU
 * time (meaningful with OMP_NUM_THREADS=1 only: it ignores the time other
 * processes hold the core, so it is steadier on a shared machine, but it
 * does not see other threads). */
static inline clockid_t bench_clock(void) {
    static int id = -1;
    if (id < 0) {
        const char *e = getenv("BENCH_CLOCK");
        id = e && strcmp(e, "thread") == 0 ? 1 : 0;
    }
    return id ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC;
}

static inline double bench_now(void) {
    struct timespec ts;
    clock_gettime(bench_clock(), &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef void (*bench_fn)(void *ctx);

/* Seconds per call of fn, running it `reps` times in a row. */
static inline double bench_time(bench_fn fn, void *ctx, int reps) {
    double t0 = bench_now();
    for (int i = 0; i < reps; i++) fn(ctx);
    return (bench_now() - t0) / reps;
}

/* Enough repetitions for one measurement to last about 2 ms. */
static inline int bench_reps(bench_fn fn, void *ctx) {
    double t = bench_time(fn, ctx, 1);
    t = bench_time(fn, ctx, 1); /* the first call warmed caches and threads */
    int reps = (int)(2e-3 / (t > 1e-9 ? t : 1e-9));
    return reps < 1 ? 1 : (reps > 100000 ? 100000 : reps);
}

static int bench_cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Ratio statistics of `pairs` alternating runs: ratio = time(b) / time(a),
 * so > 1 means a is faster. Also the median time of a, in seconds. */
typedef struct bench_ratio {
    double median, min, max, time_a;
} bench_ratio;

/* bench_alternate with `warm` untimed calls of each function right before
 * its timed ones, so each is timed in the cache state it leaves itself,
 * not the one the other left (a kernel of a few ms runs once a sample:
 * without this each library is timed right after the other's call). */
static inline bench_ratio bench_alternate_warm(bench_fn a, void *ca, bench_fn b, void *cb,
                                               int pairs, int warm) {
    int ra = bench_reps(a, ca), rb = bench_reps(b, cb);
    double *r = malloc(sizeof(double) * (size_t)pairs),
           *ta = malloc(sizeof(double) * (size_t)pairs);
    for (int i = 0; i < pairs; i++) {
        for (int k = 0; k < warm; k++) a(ca);
        ta[i] = bench_time(a, ca, ra);
        for (int k = 0; k < warm; k++) b(cb);
        double tb = bench_time(b, cb, rb);
        r[i] = tb / ta[i];
    }
    qsort(r, (size_t)pairs, sizeof(double), bench_cmp);
    qsort(ta, (size_t)pairs, sizeof(double), bench_cmp);
    bench_ratio out = {r[pairs / 2], r[0], r[pairs - 1], ta[pairs / 2]};
    free(r);
    free(ta);
    return out;
}

static inline bench_ratio bench_alternate(bench_fn a, void *ca, bench_fn b, void *cb, int pairs) {
    return bench_alternate_warm(a, ca, b, cb, pairs, 0);
}

/* memcpy of `bytes` split across the OpenMP threads: the practical limit of
 * a memory-bound kernel that reads and writes that many bytes. */
typedef struct bench_memcpy_ctx {
    void *dst;
    const void *src;
    size_t bytes;
} bench_memcpy_ctx;

static inline void bench_memcpy(void *p) {
    bench_memcpy_ctx *c = p;
#pragma omp parallel
    {
        int n = omp_get_num_threads(), t = omp_get_thread_num();
        size_t chunk = (c->bytes / (size_t)n + 63) & ~(size_t)63;
        size_t lo = chunk * (size_t)t, hi = lo + chunk > c->bytes ? c->bytes : lo + chunk;
        if (lo < hi) memcpy((char *)c->dst + lo, (const char *)c->src + lo, hi - lo);
    }
}

#endif /* LG_BENCH_UTIL_H */
