/*
 * End-to-end graph benchmark (issue 7): the workloads W1, W2, W3 of
 * WORKLOADS.md at N = 1 and N = 16, compiled by lgraph under the NONE, GREEDY
 * and OPTIMAL strategies and built by hand from oneDNN primitives the way an
 * expert would (graph_dnnl.h). Every implementation's output is checked
 * against the scalar reference (workloads.h) before it is timed. Timing
 * alternates lgraph and oneDNN in one process (A B A B ...) and reports the
 * median of the per-pair ratios oneDNN time / lgraph time (> 1: lgraph is
 * faster) with its min-max.
 *
 * Usage: bench_graph [pairs] [workload] [N] [--dump]
 *   pairs     alternating pairs per comparison (default 15; odd is best)
 *   workload  W1, W2 or W3 (default: all)
 *   N         1 or 16, or any batch size (default: 1 and 16)
 *   --dump    print every compiled plan (lg_plan_dump text) to stderr
 * Prints a Markdown table, then the layouts and implementations oneDNN chose.
 */
#include "bench_util.h"
#include "graph_dnnl.h"
#include "workloads.h"

#include <lgraph.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define TOL 1e-4 /* on |got - ref| / (1 + |ref|); layout or fusion bugs give O(1) */

static const char *strategy_names[3] = {"NONE", "GREEDY", "OPTIMAL"};

typedef struct lg_run {
    lg_plan *plan;
    lg_binding in, out;
} lg_run;
static void run_lg(void *p) {
    lg_run *r = p;
    lg_plan_execute(r->plan, 1, &r->in, 1, &r->out);
}
static void run_dnnl(void *p) {
    gd_execute(p);
}

static float *alloc_floats(size_t bytes) {
    float *p = aligned_alloc(64, (bytes + 63) & ~(size_t)63);
    if (!p) {
        fprintf(stderr, "bench_graph: out of memory (%zu bytes)\n", bytes);
        exit(1);
    }
    return p;
}

/* Fill with NaN so that an output left unwritten fails the check. */
static void poison(float *p, size_t n) {
    for (size_t i = 0; i < n; i++) p[i] = NAN;
}

/* Does the plan's binding `name` have the nchw md of dims? */
static int plan_md_is_nchw(const lg_plan *plan, const char *name, const int64_t dims[4]) {
    lg_md got, want;
    if (lg_plan_query_md(plan, name, &got) != LG_OK) return 0;
    if (lg_md_init_tag(&want, 4, dims, LG_F32, "nchw") != LG_OK) return 0;
    return lg_md_equal(&got, &want);
}

/* One lgraph strategy at one workload: compiled plan, stats, check. */
typedef struct lg_case {
    lg_run run;
    lg_plan_stats st;
    int compiled, correct;
    double err;
    double first_s; /* the checked execution's time: sizes the timing */
    char why[200];
} lg_case;

static void lg_case_init(lg_case *c, const lg_graph *g, const wl_workload *w, lg_strategy s,
                         float *x, float *y, const float *ref, int dump) {
    memset(c, 0, sizeof *c);
    lg_compile_options o;
    lg_compile_options_init(&o);
    o.strategy = s;
    if (lg_graph_compile(g, &o, &c->run.plan) != LG_OK) {
        snprintf(c->why, sizeof c->why, "compile failed: %s", lg_last_error());
        return;
    }
    c->compiled = 1;
    lg_plan_stats_get(c->run.plan, &c->st);
    if (!plan_md_is_nchw(c->run.plan, WL_INPUT_NAME, w->dims[0]) ||
        !plan_md_is_nchw(c->run.plan, WL_OUTPUT_NAME, w->dims[w->spec->nops])) {
        snprintf(c->why, sizeof c->why, "input or output not nchw as the graph asked");
        return;
    }
    if (dump) {
        fprintf(stderr, "--- %s N=%lld %s plan\n", w->spec->name, (long long)w->n,
                strategy_names[s]);
        lg_plan_dump(c->run.plan, stderr, "text");
    }
    c->run.in = (lg_binding){WL_INPUT_NAME, x};
    c->run.out = (lg_binding){WL_OUTPUT_NAME, y};
    poison(y, wl_output_elems(w));
    double t0 = bench_now();
    lg_status es = lg_plan_execute(c->run.plan, 1, &c->run.in, 1, &c->run.out);
    c->first_s = bench_now() - t0;
    if (es != LG_OK) {
        snprintf(c->why, sizeof c->why, "execute failed: %s", lg_last_error());
        return;
    }
    size_t at;
    c->correct = wl_compare(y, ref, wl_output_elems(w), TOL, &c->err, &at);
    if (!c->correct) snprintf(c->why, sizeof c->why, "WRONG: max err %.3g at %zu", c->err, at);
}

/* Pairs for a comparison whose two runs take pair_s seconds together: all
 * that were asked for, fewer (odd, at least 3) where that would exceed about
 * 40 s, as with the scalar-reference convs of the NONE plans. */
static int pairs_for(int pairs, double pair_s) {
    int fit = (int)(40.0 / (pair_s > 1e-9 ? pair_s : 1e-9));
    if (fit >= pairs) return pairs;
    fit = fit < 3 ? 3 : fit;
    return fit % 2 ? fit : fit - 1;
}

static void print_ratio(bench_ratio r) {
    printf("%.3gx (%.3g-%.3g)", r.median, r.min, r.max);
}

/* Benchmark one workload at batch n; prints its table rows and appends the
 * oneDNN chain's description to notes. */
static void bench_one(wl_id id, int64_t n, int pairs, int dump, dnnl_engine_t eng,
                      dnnl_stream_t stream, char *notes, size_t notes_len) {
    wl_workload w;
    if (wl_create(&w, id, n, 42) != 0) {
        fprintf(stderr, "bench_graph: cannot create the workload\n");
        exit(1);
    }
    const size_t ne = wl_output_elems(&w);
    float *x = alloc_floats(wl_input_bytes(&w)), *ref = alloc_floats(wl_output_bytes(&w));
    float *yd = alloc_floats(wl_output_bytes(&w));
    float *yl[3];
    wl_fill_input(&w, x, 7);
    if (wl_reference(&w, x, ref) != 0) {
        fprintf(stderr, "bench_graph: out of memory in the reference\n");
        exit(1);
    }
    const double gflop = 2e-9 * wl_macs(&w);
    char label[32];
    snprintf(label, sizeof label, "%s N=%lld", w.spec->name, (long long)n);

    /* oneDNN, hand-built. */
    gd_chain dc;
    double t0 = bench_now();
    if (gd_create(&dc, &w, eng, stream, x, yd) != 0) exit(1);
    double dnnl_setup_ms = (bench_now() - t0) * 1e3;
    poison(yd, ne);
    double derr;
    size_t dat;
    t0 = bench_now();
    int dok = gd_execute(&dc) == 0;
    double dnnl_first_s = bench_now() - t0;
    dok = dok && wl_compare(yd, ref, ne, TOL, &derr, &dat);

    /* lgraph under each strategy, from one graph. */
    lg_graph *g = NULL;
    lg_case lc[3];
    lg_status bs = wl_build_graph(&w, NULL, NULL, &g);
    for (int s = 0; s < 3; s++) {
        yl[s] = alloc_floats(wl_output_bytes(&w));
        if (bs != LG_OK) {
            memset(&lc[s], 0, sizeof lc[s]);
            snprintf(lc[s].why, sizeof lc[s].why, "graph build failed: %s", lg_last_error());
            continue;
        }
        lg_case_init(&lc[s], g, &w, (lg_strategy)s, x, yl[s], ref, dump);
    }
    lg_graph_destroy(g);

    /* Timing: oneDNN's own time from oneDNN-first alternation against
     * OPTIMAL; each strategy's ratio from lgraph-first alternation. */
    bench_ratio rd = {0}, rs[3] = {{0}};
    int np[3] = {0};
    lg_case *opt = &lc[LG_STRATEGY_OPTIMAL];
    if (dok) {
        if (opt->correct)
            rd = bench_alternate(run_dnnl, &dc, run_lg, &opt->run, pairs);
        else
            rd = bench_alternate(run_dnnl, &dc, run_dnnl, &dc, pairs); /* its median time */
        for (int s = 0; s < 3; s++)
            if (lc[s].correct) {
                np[s] = pairs_for(pairs, lc[s].first_s + dnnl_first_s);
                rs[s] = bench_alternate(run_lg, &lc[s].run, run_dnnl, &dc, np[s]);
            }
    }

    printf("| %s oneDNN | %d | %.1f | %d | %.1f | - | - | %.1f | %.3f | %.1f | 1 | %s %.1e |\n",
           label, dc.runtime_reorders, dc.reorder_bytes / 1e6, dc.nsteps, dc.inter_bytes / 1e6,
           dnnl_setup_ms, rd.time_a * 1e3, rd.time_a > 0 ? gflop / rd.time_a : 0.0,
           dok ? "ok" : "WRONG", dok ? derr : NAN);
    for (int s = 0; s < 3; s++) {
        const lg_case *c = &lc[s];
        printf("| %s lgraph %s | ", label, strategy_names[s]);
        if (!c->compiled) {
            printf("- | - | - | - | - | - | - | - | - | - | %s |\n", c->why);
            continue;
        }
        printf("%d | %.1f | %d | %.1f | %.3g | %s | %.1f | ", c->st.runtime_reorders,
               c->st.reorder_bytes / 1e6, c->st.steps, c->st.arena_bytes / 1e6, c->st.model_cost,
               c->st.exact ? "yes" : "no", c->st.compile_ms);
        if (c->correct && dok) {
            printf("%.3f | %.1f | ", rs[s].time_a * 1e3, gflop / rs[s].time_a);
            print_ratio(rs[s]);
            if (np[s] < pairs) printf(", %d pairs", np[s]);
            printf(" | ok %.1e |\n", c->err);
        } else {
            printf("- | - | - | %s |\n", c->correct ? "oneDNN chain wrong: not timed" : c->why);
        }
    }
    fflush(stdout);
    /* The notes: oneDNN's choices, and the oneDNN-first alternation read the
     * other way (a second estimate of the OPTIMAL ratio). */
    size_t nl = strlen(notes);
    nl += (size_t)snprintf(notes + nl, notes_len - nl, "- %s: %s", label, dc.impls);
    if (opt->correct && dok && nl < notes_len)
        nl += (size_t)snprintf(notes + nl, notes_len - nl,
                               "; OPTIMAL with oneDNN first in each pair: %.3gx (%.3g-%.3g)",
                               1.0 / rd.median, 1.0 / rd.max, 1.0 / rd.min);
    if (nl < notes_len) snprintf(notes + nl, notes_len - nl, "\n");

    for (int s = 0; s < 3; s++) {
        lg_plan_destroy(lc[s].run.plan);
        free(yl[s]);
    }
    gd_destroy(&dc);
    wl_destroy(&w);
    free(x);
    free(ref);
    free(yd);
}

int main(int argc, char **argv) {
    int pairs = 15, dump = 0;
    const char *only_wl = NULL;
    int64_t only_n = 0;
    for (int i = 1, pos = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--dump"))
            dump = 1;
        else if (pos == 0)
            pairs = atoi(argv[i]), pos++;
        else if (pos == 1)
            only_wl = argv[i], pos++;
        else
            only_n = atoll(argv[i]), pos++;
    }
    if (pairs < 1) pairs = 1;
    dnnl_engine_t eng;
    dnnl_stream_t stream;
    if (dnnl_engine_create(&eng, dnnl_cpu, 0) != dnnl_success ||
        dnnl_stream_create(&stream, eng, dnnl_stream_default_flags) != dnnl_success) {
        fprintf(stderr, "bench_graph: cannot create a oneDNN engine\n");
        return 1;
    }
    printf("threads: %d, pairs per comparison: %d, tolerance %.0e on |got - ref| / (1 + |ref|)\n\n",
           omp_get_max_threads(), pairs, TOL);
    for (int id = 0; id < WL_COUNT; id++)
        printf("%s%s: %s", id ? ", " : "", wl_spec_get((wl_id)id)->name,
               wl_spec_get((wl_id)id)->title);
    printf(" (WORKLOADS.md; f32, nchw in and out)\n\n");
    printf(
        "| case | runtime reorders | reorder MB / exec | steps | arena MB | model cost | exact | "
        "compile ms | ms / exec | GFLOP/s | oneDNN / this (median, min-max) | check vs "
        "reference |\n");
    printf("|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    static char notes[8192];
    const int64_t batches[2] = {1, 16};
    for (int id = 0; id < WL_COUNT; id++) {
        if (only_wl && strcmp(only_wl, wl_spec_get((wl_id)id)->name)) continue;
        for (int b = 0; b < 2; b++) {
            if (only_n && b == 1) break;
            bench_one((wl_id)id, only_n ? only_n : batches[b], pairs, dump, eng, stream, notes,
                      sizeof notes);
        }
    }
    printf("\noneDNN's chains (implementation, src->dst layout of each primitive; \"arena MB\" "
           "above is the sum of its intermediate buffers, no reuse; \"compile ms\" its setup "
           "with the weight reorders):\n%s",
           notes);
    dnnl_stream_destroy(stream);
    dnnl_engine_destroy(eng);
    return 0;
}
