/* Results, the progress line and the summary. */
#include "lgbench.h"

#include <stdio.h>
#include <time.h>
#include <unistd.h>

static const char *status_name(lgb_status s) {
    return s == LGB_PASSED ? "PASSED" : s == LGB_SKIPPED ? "SKIPPED" : "FAILED";
}

void lgb_report(const lgb_ctx *ctx, const lgb_job *job, const lgb_result *res, lgb_counts *c) {
    size_t id = c->tests++;
    if (res->status == LGB_PASSED)
        c->passed++;
    else if (res->status == LGB_SKIPPED)
        c->skipped++;
    else
        c->failed++;

    /* Failures always; passes and skips (expected in sweeps: e.g. an
     * algorithm an integer type does not take) with -v1. */
    if (res->status == LGB_FAILED || ctx->verbose >= 1) {
        printf("%zu:%s%s%s __REPRO: %s\n", id, status_name(res->status),
               res->impl[0] ? " impl=" : "", res->impl, job->repro);
        if (res->msg[0] && res->status != LGB_PASSED) printf("    %s\n", res->msg);
    }
    if (res->timed && res->status != LGB_FAILED) {
        printf("perf,lgraph=%.4fms", res->lg_ms);
        if (res->has_dnnl)
            printf(",oneDNN=%.4fms,oneDNN/lgraph=%.2f(%.2f-%.2f)", res->dnnl_ms, res->ratio,
                   res->rmin, res->rmax);
        else
            printf(",oneDNN=n/a");
        if (res->bytes > 0) printf(",GB/s=%.3g", res->bytes / (res->lg_ms * 1e6));
        if (res->flops > 0) printf(",GFLOP/s=%.3g", res->flops / (res->lg_ms * 1e6));
        printf(",impl=%s", res->impl);
        if (res->has_dnnl)
            printf(",dnnl_impl=%s", res->dnnl_impl);
        else if (res->msg[0])
            printf(",note=%s", res->msg);
        printf(",%s\n", job->repro);
    }
    fflush(stdout);
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void lgb_progress(const lgb_counts *c, size_t total, bool last) {
    static double next;
    static bool shown;
    static int tty = -1;
    if (tty < 0) tty = isatty(2);
    if (total < 20) return;
    double t = now_s();
    if (next == 0) next = t + 1.0;
    if (!last && t < next) return;
    if (last && !shown) return;
    next = t + (tty ? 0.5 : 2.0);
    shown = true;
    fprintf(stderr, "%slgbench: [%zu/%zu] passed:%zu failed:%zu skipped:%zu%s", tty ? "\r" : "",
            c->tests, total, c->passed, c->failed, c->skipped, tty && !last ? "" : "\n");
    fflush(stderr);
}

void lgb_summary(const lgb_counts *c) {
    printf("tests:%zu passed:%zu failed:%zu skipped:%zu\n", c->tests, c->passed, c->failed,
           c->skipped);
    fflush(stdout);
}
