/* Performance mode's timing: lgraph and oneDNN alternating in one process,
 * the median of the per-pair ratios (the machine is shared and noisy, so no
 * single absolute time means much). */
#include "lgbench.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Seconds per call over `reps` calls in a row. */
static double time_reps(lgb_run_fn fn, void *arg, int reps) {
    double t0 = now_s();
    for (int i = 0; i < reps; i++) fn(arg);
    return (now_s() - t0) / reps;
}

/* Calls per measurement so that one lasts about 2 ms (the first two calls
 * warm caches, pages and threads). */
static int reps_for(lgb_run_fn fn, void *arg) {
    time_reps(fn, arg, 1);
    double t = time_reps(fn, arg, 1);
    int reps = (int)(2e-3 / (t > 1e-9 ? t : 1e-9));
    return reps < 1 ? 1 : reps > 100000 ? 100000 : reps;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

void lgb_perf(const lgb_ctx *ctx, lgb_run_fn lg, void *lg_ctx, lgb_run_fn dnnl, void *dnnl_ctx,
              lgb_result *res) {
    int pairs = ctx->pairs > 0 ? ctx->pairs : 1;
    double *ta = malloc(3 * sizeof(double) * (size_t)pairs);
    if (!ta) {
        lgb_set(res, LGB_FAILED, "out of memory (timing)");
        return;
    }
    double *tb = ta + pairs, *r = tb + pairs;
    int ra = reps_for(lg, lg_ctx), rb = dnnl ? reps_for(dnnl, dnnl_ctx) : 0;
    for (int i = 0; i < pairs; i++) {
        ta[i] = time_reps(lg, lg_ctx, ra);
        if (dnnl) {
            tb[i] = time_reps(dnnl, dnnl_ctx, rb);
            r[i] = tb[i] / ta[i];
        }
    }
    res->timed = true;
    res->lg_ms = median(ta, pairs) * 1e3;
    if (dnnl) {
        res->has_dnnl = true;
        res->dnnl_ms = median(tb, pairs) * 1e3;
        res->ratio = median(r, pairs); /* sorted by median() */
        res->rmin = r[0];
        res->rmax = r[pairs - 1];
    }
    free(ta);
}

lgb_status lgb_set(lgb_result *res, lgb_status st, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(res->msg, sizeof res->msg, fmt, ap);
    va_end(ap);
    res->status = st;
    return st;
}

lgb_status lgb_skip(lgb_result *res, const char *reason, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(res->msg, sizeof res->msg, fmt, ap);
    va_end(ap);
    snprintf(res->reason, sizeof res->reason, "%s", reason);
    res->status = LGB_SKIPPED;
    return LGB_SKIPPED;
}
