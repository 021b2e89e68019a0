/* lgbench: a benchdnn-style driver for lgraph's kernels.
 *
 *   lgbench [--mode=C|P|CP] [-vN] [--pairs=N] [--match=STR] [--every=N]
 *           --DRIVER [--KNOB=V1,V2,...]... PROBLEM... [--batch=FILE]...
 *
 * Drivers: --reorder, --shuffle, --eltwise, --binary, --pool, --softmax,
 * --bnorm (and --conv when built with it). Comma lists expand to every combination. --mode=C
 * (default) checks each problem against lgraph's scalar reference, the padded area of blocked
 * outputs included; --mode=P times lgraph against oneDNN (when built with it) alternating in one
 * process, median of per-pair ratios. Prints failures (every test with -v1), perf lines in P mode,
 * a progress line on stderr for long runs and "tests:N passed:P failed:F skipped:S"; exits 1 if any
 * test failed, 2 on a usage error. See README.md here. */
#include "lgbench.h"

#include <stdio.h>
#include <string.h>

static const lgb_driver *const drivers[] = {
    &lgb_drv_reorder, &lgb_drv_shuffle, &lgb_drv_eltwise, &lgb_drv_binary,
    &lgb_drv_pool,    &lgb_drv_softmax, &lgb_drv_bnorm,   &lgb_drv_concat,
#if LGB_HAVE_CONV
    &lgb_drv_conv,
#endif
};

const lgb_driver *lgb_find_driver(const char *name) {
    for (size_t i = 0; i < sizeof drivers / sizeof drivers[0]; i++)
        if (!strcmp(drivers[i]->name, name)) return drivers[i];
    return NULL;
}

static void usage(void) {
    printf("usage: lgbench [--mode=C|P|CP] [-vN] [--pairs=N] [--match=STR] [--every=N]\n"
           "               [--fault=value|padding]\n"
           "               --DRIVER [--KNOB=V1,V2...]... PROBLEM... [--batch=FILE]...\n"
           "drivers and knobs (defaults in brackets):\n");
    for (size_t i = 0; i < sizeof drivers / sizeof drivers[0]; i++) {
        printf("  --%s", drivers[i]->name);
        for (int k = 0; k < drivers[i]->nknobs; k++)
            printf(" --%s=[%s]", drivers[i]->knobs[k], drivers[i]->defaults[k]);
        printf("\n");
    }
}

int main(int argc, char **argv) {
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        usage();
        return argc < 2 ? 2 : 0;
    }
    lgb_ctx ctx = {.mode = {true, false}, .pairs = 11};
    lgb_jobs jobs = {0};
    lgb_parser p = {.ctx = &ctx, .jobs = &jobs};
    bool ok = lgb_parse_tokens(&p, argc - 1, argv + 1, "command line", NULL);
    lgb_parser_free(&p);
    if (!ok) {
        lgb_jobs_free(&jobs);
        return 2;
    }
    lgb_counts c = {0};
    size_t every = ctx.every > 1 ? (size_t)ctx.every : 1, total = (jobs.n + every - 1) / every;
    for (size_t i = 0; i < jobs.n; i += every) {
        lgb_result res;
        memset(&res, 0, sizeof res);
        if (lgb_job_supported(&jobs.v[i], &res)) jobs.v[i].drv->run(&ctx, &jobs.v[i], &res);
        lgb_report(&ctx, &jobs.v[i], &res, &c);
        lgb_progress(&c, total, false);
    }
    lgb_progress(&c, total, true);
    lgb_summary(&c);
    lgb_jobs_free(&jobs);
    return c.failed ? 1 : 0;
}
