/* lgraph-run --compare-strategies (run_io.h): one row per strategy (NONE,
 * GREEDY, OPTIMAL, and OPTIMAL without its margin: "opt_min") and per
 * optional pass switched off under OPTIMAL, each
 * with the plan's counters, its model cost, the median of K measured runs
 * and whether its outputs agree with the first row's. */
#include <lgraph_onnx.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run_io.h"

static const struct {
    lg_strategy strategy;
    const char *name, *off; /* off: the pass switched off, or NULL */
    bool minimum;           /* OPTIMAL with margin 0: the model's minimum as it is */
} rows[] = {
    {LG_STRATEGY_NONE, "none", NULL, false},
    {LG_STRATEGY_GREEDY, "greedy", NULL, false},
    {LG_STRATEGY_OPTIMAL, "optimal", NULL, false},
    {LG_STRATEGY_OPTIMAL, "opt_min", NULL, true},
    {LG_STRATEGY_OPTIMAL, "optimal", "eliminate_shuffles", false},
    {LG_STRATEGY_OPTIMAL, "optimal", "fold_batchnorm", false},
    {LG_STRATEGY_OPTIMAL, "optimal", "eliminate_reorders", false},
    {LG_STRATEGY_OPTIMAL, "optimal", "fuse_shuffle_reorder", false},
    {LG_STRATEGY_OPTIMAL, "optimal", "fold_constants", false},
    {LG_STRATEGY_OPTIMAL, "optimal", "fuse", false},
    {LG_STRATEGY_OPTIMAL, "optimal", "plan_memory", false},
};
#define NROWS ((int)(sizeof rows / sizeof rows[0]))

typedef struct row_result {
    lg_plan_stats st;
    double median_ms, min_ms, max_rel;
    int iters;          /* runs timed (fewer than asked for slow plans) */
    double step_min_ms; /* sum over steps of each one's fastest run */
    double cpu_min_ms;  /* smallest process CPU time of a run (1 thread: the
                           run without other processes' time) */
} row_result;

/* Compile and run row r; outputs (plain, concatenated) into out. ref: the
 * first row's outputs to compare with (NULL for the first row). */
static int run_row(const lg_graph *g, const lg_onnx_io *io, const run_compare *c, int r, float *out,
                   const float *ref, row_result *res) {
    lg_compile_options o;
    lg_compile_options_init(&o);
    o.strategy = rows[r].strategy;
    o.disable_passes = rows[r].off;
    if (rows[r].minimum) o.optimal_margin = 0;
    o.num_threads = c->threads;
    lg_plan *plan = NULL;
    if (lg_graph_compile(g, &o, &plan) != LG_OK) {
        fprintf(stderr, "lgraph-run: compile (%s, off %s): %s\n", rows[r].name,
                rows[r].off ? rows[r].off : "-", lg_last_error());
        return -1;
    }
    lg_plan_stats_get(plan, &res->st);
    int nb = io->n_inputs + io->n_outputs, rc = -1;
    run_buf *bufs = calloc((size_t)nb, sizeof *bufs);
    lg_binding *bind = calloc((size_t)nb, sizeof *bind);
    double *times = calloc((size_t)c->iters, sizeof *times);
    unsigned long long s = c->seed * 6364136223846793005ull + 1442695040888963407ull;
    if (!bufs || !bind || !times) goto done;
    for (int k = 0; k < nb; k++) {
        const char *name = k < io->n_inputs ? io->inputs[k] : io->outputs[k - io->n_inputs];
        if (run_setup_buf(plan, name, &bufs[k])) goto done;
        bind[k] = (lg_binding){name, bufs[k].data};
        if (k < io->n_inputs) {
            run_fill(bufs[k].user, run_elems(&bufs[k].plain), &s);
            if (run_move(bufs[k].to_plan, bufs[k].user, bufs[k].data)) goto done;
        }
    }
    int iters = c->iters, warmup = c->warmup;
    res->cpu_min_ms = 0;
    for (int k = 0; k < warmup + iters; k++) {
        double t = run_now_ms(), c0 = run_cpu_ms();
        if (lg_plan_execute(plan, io->n_inputs, bind, io->n_outputs, bind + io->n_inputs) !=
            LG_OK) {
            fprintf(stderr, "lgraph-run: execute: %s\n", lg_last_error());
            goto done;
        }
        double dt = run_now_ms() - t, dc = run_cpu_ms() - c0;
        if (k >= warmup) times[k - warmup] = dt;
        if (k >= warmup && (k == warmup || dc < res->cpu_min_ms)) res->cpu_min_ms = dc;
        /* A plan that runs for seconds (NONE's reference convs) is timed
         * fewer times: no more warm-up, and what has been timed after 20 s;
         * one that runs for over 10 s only once. */
        if (dt > 10000 && k < warmup) { /* minutes: the warm-up run is the one timed */
            times[0] = dt;
            res->cpu_min_ms = dc;
            iters = 1;
            break;
        }
        if (dt > 2000 && k < warmup) warmup = k + 1;
        if (k >= warmup && dt * (k - warmup + 1) > 20000 && k + 1 < warmup + iters)
            iters = k - warmup + 1;
    }
    res->iters = iters;
    /* The sum of each step's fastest run: on a loaded machine whole runs
     * are preempted, short steps seldom (plans of seconds are skipped). */
    res->step_min_ms = times[0];
    if (times[0] < 2000) {
        lg_step_profile *st = calloc((size_t)res->st.steps + 1, sizeof *st);
        double *best = calloc((size_t)res->st.steps + 1, sizeof *best);
        for (int k = 0; st && best && k < iters; k++) {
            if (lg_plan_profile(plan, io->n_inputs, bind, io->n_outputs, bind + io->n_inputs, 1, st,
                                res->st.steps) != LG_OK)
                break;
            double sum = 0;
            for (int i = 0; i < res->st.steps; i++) {
                best[i] = k == 0 || st[i].ms < best[i] ? st[i].ms : best[i];
                sum += best[i];
            }
            res->step_min_ms = sum;
        }
        free(st);
        free(best);
    }
    qsort(times, (size_t)iters, sizeof *times, run_cmp_double);
    res->min_ms = times[0];
    res->median_ms = iters % 2 ? times[iters / 2] : 0.5 * (times[iters / 2 - 1] + times[iters / 2]);
    int64_t at = 0;
    double diff = 0, ref_max = 0;
    for (int k = io->n_inputs; k < nb; k++) {
        if (run_move(bufs[k].from_plan, bufs[k].data, bufs[k].user)) goto done;
        int64_t n = run_elems(&bufs[k].plain);
        memcpy(out + at, bufs[k].user, (size_t)n * sizeof(float));
        for (int64_t e = 0; ref && e < n; e++) {
            double d = fabs((double)out[at + e] - ref[at + e]);
            if (!(d <= diff)) diff = d; /* NaN propagates */
            if (fabs(ref[at + e]) > ref_max) ref_max = fabs(ref[at + e]);
        }
        at += n;
    }
    res->max_rel = diff / (ref_max > 0 ? ref_max : 1);
    rc = 0;
done:
    if (rc && !times) fprintf(stderr, "lgraph-run: out of memory\n");
    for (int k = 0; bufs && k < nb; k++) run_free_buf(&bufs[k]);
    free(bufs);
    free(bind);
    free(times);
    lg_plan_destroy(plan);
    return rc;
}

/* Plain elements of every output, from a plan of g (the dims do not depend
 * on the strategy). */
static int64_t output_elems(const lg_graph *g, const lg_onnx_io *io) {
    lg_compile_options o;
    lg_compile_options_init(&o);
    o.strategy = LG_STRATEGY_NONE;
    lg_plan *plan;
    if (lg_graph_compile(g, &o, &plan) != LG_OK) return -1;
    int64_t n = 0;
    for (int k = 0; k < io->n_outputs; k++) {
        lg_md md;
        if (lg_plan_query_md(plan, io->outputs[k], &md) != LG_OK) n = -1;
        if (n >= 0) n += run_elems(&md);
    }
    lg_plan_destroy(plan);
    return n;
}

static void print_row(const run_compare *c, int r, const row_result *x, bool ok) {
    const lg_plan_stats *s = &x->st;
    if (c->json) {
        printf("%s{\"model\": \"%s\", \"batch\": %lld, \"strategy\": \"%s\", \"disabled\": %s%s%s, "
               "\"runtime_reorders\": %d, \"reorder_bytes\": %lld, \"folded_reorders\": %d, "
               "\"fused_steps\": %d, \"steps\": %d, \"arena_bytes\": %lld, \"model_cost\": %g, "
               "\"model_ms\": %.4f, \"median_ms\": %.4f, \"min_ms\": %.4f, \"step_min_ms\": %.4f, "
               "\"cpu_min_ms\": %.4f, \"iters\": %d, "
               "\"threads\": %d, \"exact\": %s, \"max_rel_diff\": %g, \"agree\": %s}",
               r ? ",\n " : "[", c->model, (long long)c->batch, rows[r].name,
               rows[r].off ? "\"" : "", rows[r].off ? rows[r].off : "null", rows[r].off ? "\"" : "",
               s->runtime_reorders, (long long)s->reorder_bytes, s->folded_reorders, s->fused_steps,
               s->steps, (long long)s->arena_bytes, s->model_cost, s->model_ms, x->median_ms,
               x->min_ms, x->step_min_ms, x->cpu_min_ms, x->iters, c->threads,
               s->exact ? "true" : "false", x->max_rel, ok ? "true" : "false");
        if (r == NROWS - 1) printf("]\n");
        return;
    }
    if (r == 0) {
        printf("model %s, batch %lld, median of %d runs\n", c->model, (long long)c->batch,
               c->iters);
        printf("%-8s %-20s %8s %13s %6s %5s %6s %12s %10s %10s %5s %9s\n", "strategy", "pass off",
               "reorders", "reorder bytes", "folded", "fused", "steps", "arena bytes", "pred ms",
               "ms", "exact", "rel diff");
    }
    printf("%-8s %-20s %8d %13lld %6d %5d %6d %12lld %10.3f %10.3f %5s %9.2e%s\n", rows[r].name,
           rows[r].off ? rows[r].off : "-", s->runtime_reorders, (long long)s->reorder_bytes,
           s->folded_reorders, s->fused_steps, s->steps, (long long)s->arena_bytes, s->model_ms,
           x->median_ms, s->exact ? "yes" : "no", x->max_rel, ok ? "" : "  MISMATCH");
}

/* One CSV line per row (a header first). */
static void csv_row(FILE *f, const run_compare *c, int r, const row_result *x, bool ok) {
    const lg_plan_stats *s = &x->st;
    if (r == 0)
        fprintf(f,
                "model,batch,strategy,disabled,runtime_reorders,reorder_bytes,folded_reorders,"
                "fused_steps,steps,arena_bytes,model_ms,median_ms,min_ms,step_min_ms,iters,threads,"
                "exact,"
                "max_rel_diff,agree\n");
    const char *m = strrchr(c->model, '/');
    fprintf(f, "%s,%lld,%s,%s,%d,%lld,%d,%d,%d,%lld,%.4f,%.4f,%.4f,%.4f,%d,%d,%d,%g,%d\n",
            m ? m + 1 : c->model, (long long)c->batch, rows[r].name,
            rows[r].off ? rows[r].off : "-", s->runtime_reorders, (long long)s->reorder_bytes,
            s->folded_reorders, s->fused_steps, s->steps, (long long)s->arena_bytes, s->model_ms,
            x->median_ms, x->min_ms, x->step_min_ms, x->iters, c->threads, s->exact, x->max_rel,
            ok);
}

int run_compare_strategies(const lg_graph *g, const lg_onnx_io *io, const run_compare *c) {
    FILE *csv = NULL;
    if (c->csv && !(csv = fopen(c->csv, "w"))) {
        fprintf(stderr, "lgraph-run: cannot write %s\n", c->csv);
        return 1;
    }
    int64_t n = output_elems(g, io);
    if (n < 0) {
        fprintf(stderr, "lgraph-run: compile: %s\n", lg_last_error());
        if (csv) fclose(csv);
        return 1;
    }
    float *ref = malloc((size_t)n * sizeof(float) + 1),
          *out = malloc((size_t)n * sizeof(float) + 1);
    int rc = ref && out ? 0 : 1;
    for (int r = 0; r < NROWS && !rc; r++) {
        row_result x = {0};
        if (run_row(g, io, c, r, r ? out : ref, r ? ref : NULL, &x)) {
            rc = 1;
            break;
        }
        bool ok = x.max_rel <= c->tol;
        print_row(c, r, &x, ok);
        if (csv) csv_row(csv, c, r, &x, ok);
        if (!ok) rc = 1;
    }
    free(ref);
    free(out);
    if (csv && fclose(csv) != 0) {
        fprintf(stderr, "lgraph-run: cannot write %s\n", c->csv);
        rc = 1;
    }
    return rc;
}
