/* Results, the progress line and the summary. */
#include "lgbench.h"

#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *status_name(lgb_status s) {
    return s == LGB_PASSED ? "PASSED" : s == LGB_SKIPPED ? "SKIPPED" : "FAILED";
}

/* The summary's key of a skip: its reason, or its message up to the first
 * digit or quote (so that problems of different shapes share a line). */
static void reason_key(const lgb_result *res, char *key, size_t len) {
    if (res->reason[0]) {
        snprintf(key, len, "%s", res->reason);
        return;
    }
    size_t n = strcspn(res->msg, "0123456789'\"");
    if (n >= len) n = len - 1;
    memcpy(key, res->msg, n);
    key[n] = '\0';
    while (n > 0 && strchr(" :,(=", key[n - 1])) key[--n] = '\0';
}

static void count_skip(lgb_counts *c, const lgb_result *res) {
    char key[96];
    reason_key(res, key, sizeof key);
    int i = 0;
    while (i < c->nreasons && strcmp(c->reasons[i], key)) i++;
    if (i == c->nreasons) {
        if (c->nreasons == LGB_MAX_REASONS) {
            i = LGB_MAX_REASONS - 1;
            snprintf(c->reasons[i], sizeof c->reasons[i], "other reasons");
        } else {
            snprintf(c->reasons[i], sizeof c->reasons[i], "%s", key);
            c->nreasons++;
        }
    }
    c->nskip[i]++;
}

void lgb_report(const lgb_ctx *ctx, const lgb_job *job, const lgb_result *res, lgb_counts *c) {
    size_t id = c->tests++;
    if (res->status == LGB_PASSED) {
        c->passed++;
    } else if (res->status == LGB_SKIPPED) {
        c->skipped++;
        count_skip(c, res);
    } else {
        c->failed++;
    }

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
    for (int i = 0; i < c->nreasons; i++) printf("skipped:%zu %s\n", c->nskip[i], c->reasons[i]);
    printf("tests:%zu passed:%zu failed:%zu skipped:%zu\n", c->tests, c->passed, c->failed,
           c->skipped);
    fflush(stdout);
}
