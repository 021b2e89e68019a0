/* lgraph-run: load an ONNX model, compile it with a strategy, run it and
 * report compile time, plan statistics and run times; optionally read the
 * input from and write the output to .npy files, and compare the output with
 * a reference. What onnxruntime_perf_test and benchncnn are to their
 * runtimes. `lgraph-run --help` lists the options. */
#include "npy.h"
#include "run_io.h"
#include "profile.h"

#include <lgraph.h>
#include <errno.h>
#include <lgraph_onnx.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char usage[] =
    "usage: lgraph-run MODEL.onnx [--batch=N] [--strategy=none|greedy|optimal]\n"
    "                  [--input=IN.npy] [--output=OUT.npy] [--compare=REF.npy] [--tol=T]\n"
    "                  [--iters=K] [--warmup=W] [--threads=T] [--dump=PLAN.dot] [--json]\n"
    "                  [--inputs-any] [--seed=S] [--compare-strategies] [--profile]\n"
    "                  [--optimal-margin=F]\n"
    "                  [--conv-alg=direct|winograd|auto] [--micro-batch=B]\n"
    "--conv-alg: the 3x3 conv algorithm (default auto: Winograd where measured faster;\n"
    "winograd: wherever it applies; direct: never).\n"
    "Without --input, every input gets seeded uniform random data in [-1, 1).\n"
    "--compare fails (exit 1) when max |out - ref| > T * max |ref| (T default 1e-4).\n"
    "--compare-strategies: a row per strategy and per optional pass switched off (runtime\n"
    "reorders, reorder bytes, folded reorders, fused steps, arena bytes, model cost, median ms\n"
    "of K runs, exact); fails when a plan's outputs differ from NONE's (tolerance T). With\n"
    "--json, a JSON array of the rows; --csv=FILE also writes them as CSV (a chart:\n"
    "scripts/strategy_chart.sh). --input, --output, --compare and --dump do not apply.\n"
    "--profile times every step (median of --iters runs) and prints a table and the time\n"
    "by node kind and layer class, the cost model's prediction beside it (in --json too).\n"
    "--iters=0 loads and compiles only: load and compile ms and the process's CPU time for\n"
    "both (every thread; LG_PASS_TIMES=1 prints the load's phases and each pass's time).\n"
    "--optimal-margin=F: OPTIMAL keeps GREEDY's plan unless the model's minimum saves more\n"
    "than F of its cost (default: the library's, LG_OPTIMAL_MARGIN_DEFAULT; 0: the minimum).\n"
    "--micro-batch=B: load the model at batch B and run it N/B times per inference, once per\n"
    "slice of B items (lg_compile_options.batch_slices; B must divide N): the activations of\n"
    "a memory-bound network stay in cache. auto: where the whole batch's arena exceeds the\n"
    "last-level cache, the largest B whose arena fits, if re-reading the weights N/B times\n"
    "costs less than the activations' spill (else N). Valid for models whose batch items are\n"
    "computed independently (classifiers). Default: the whole batch at once.\n";

typedef struct args {
    const char *model, *input, *output, *compare, *dump, *csv;
    int64_t batch, micro; /* micro 0: the whole batch; MICRO_AUTO: chosen */
    lg_strategy strategy;
    lg_conv_alg conv_alg;
    int iters, warmup, threads;
    double tol, margin; /* margin < 0: the library's default */
    bool json, inputs_any, compare_strategies, profile;
    unsigned long long seed;
} args;

/* v, the text after an option's '=', as a whole decimal integer in
 * [lo, hi] into *out; false otherwise, so that "--iters=1O" or
 * "--batch=4x" is an error, not 1 or 4. */
static bool parse_int(const char *v, long long lo, long long hi, long long *out) {
    char *end;
    errno = 0;
    long long x = strtoll(v, &end, 10);
    if (!*v || *end || errno || x < lo || x > hi) return false;
    *out = x;
    return true;
}

/* parse_int, printing what the option takes when v is not that. */
static bool int_arg(const char *opt, const char *v, long long lo, long long hi, long long *out) {
    if (parse_int(v, lo, hi, out)) return true;
    fprintf(stderr, "lgraph-run: %s takes an integer in [%lld, %lld], not '%s'\n", opt, lo, hi, v);
    return false;
}

/* The same for a finite number >= 0. */
static bool num_arg(const char *opt, const char *v, double *out) {
    char *end;
    double x = strtod(v, &end);
    if (!*v || *end || !isfinite(x) || x < 0) {
        fprintf(stderr, "lgraph-run: %s takes a number >= 0, not '%s'\n", opt, v);
        return false;
    }
    *out = x;
    return true;
}

static int parse_args(int argc, char **argv, args *a) {
    *a = (args){.batch = 1,
                .strategy = LG_STRATEGY_OPTIMAL,
                .conv_alg = LG_CONV_AUTO,
                .iters = 10,
                .warmup = 2,
                .tol = 1e-4,
                .margin = -1,
                .seed = 1};
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i], *v = strchr(s, '=');
        v = v ? v + 1 : "";
#define OPT(name) (strncmp(s, name "=", sizeof name) == 0)
        if (strcmp(s, "--help") == 0 || strcmp(s, "-h") == 0) {
            fputs(usage, stdout);
            exit(0);
        } else if (OPT("--batch")) {
            long long x;
            if (!int_arg("--batch", v, 1, INT64_MAX, &x)) return -1;
            a->batch = x;
        } else if (OPT("--micro-batch")) {
            long long x = MICRO_AUTO;
            if (strcmp(v, "auto") != 0 && !parse_int(v, 1, INT64_MAX, &x))
                return fprintf(stderr, "lgraph-run: --micro-batch takes a batch >= 1 or auto\n"),
                       -1;
            a->micro = x;
        } else if (OPT("--strategy")) {
            if (strcmp(v, "none") == 0)
                a->strategy = LG_STRATEGY_NONE;
            else if (strcmp(v, "greedy") == 0)
                a->strategy = LG_STRATEGY_GREEDY;
            else if (strcmp(v, "optimal") == 0)
                a->strategy = LG_STRATEGY_OPTIMAL;
            else
                return fprintf(stderr, "lgraph-run: unknown strategy '%s'\n", v), -1;
        } else if (OPT("--conv-alg")) {
            if (strcmp(v, "direct") == 0)
                a->conv_alg = LG_CONV_DIRECT;
            else if (strcmp(v, "winograd") == 0)
                a->conv_alg = LG_CONV_WINOGRAD;
            else if (strcmp(v, "auto") == 0)
                a->conv_alg = LG_CONV_AUTO;
            else
                return fprintf(stderr, "lgraph-run: unknown conv algorithm '%s'\n", v), -1;
        } else if (OPT("--input")) {
            a->input = v;
        } else if (OPT("--output")) {
            a->output = v;
        } else if (OPT("--compare")) {
            a->compare = v;
        } else if (OPT("--csv")) {
            a->csv = v;
        } else if (OPT("--dump")) {
            a->dump = v;
        } else if (OPT("--tol")) {
            if (!num_arg("--tol", v, &a->tol)) return -1;
        } else if (OPT("--iters")) {
            long long x;
            if (!int_arg("--iters", v, 0, 1 << 24, &x)) return -1;
            a->iters = (int)x;
        } else if (OPT("--warmup")) {
            long long x;
            if (!int_arg("--warmup", v, 0, 1 << 24, &x)) return -1;
            a->warmup = (int)x;
        } else if (OPT("--threads")) {
            long long x;
            if (!int_arg("--threads", v, 0, INT32_MAX, &x)) return -1;
            a->threads = (int)x;
        } else if (OPT("--optimal-margin")) {
            char *end;
            a->margin = strtod(v, &end);
            if (!*v || *end || !(a->margin >= 0 && a->margin < 1))
                return fprintf(stderr, "lgraph-run: --optimal-margin takes a number in [0, 1)\n"),
                       -1;
        } else if (OPT("--seed")) {
            char *end;
            errno = 0;
            a->seed = strtoull(v, &end, 10);
            if (*v < '0' || *v > '9' || *end || errno)
                return fprintf(stderr,
                               "lgraph-run: --seed takes an integer in [0, 2^64), not '%s'\n", v),
                       -1;
        } else if (strcmp(s, "--json") == 0) {
            a->json = true;
        } else if (strcmp(s, "--compare-strategies") == 0) {
            a->compare_strategies = true;
        } else if (strcmp(s, "--profile") == 0) {
            a->profile = true;
        } else if (strcmp(s, "--inputs-any") == 0) {
            a->inputs_any = true;
        } else if (s[0] == '-') {
            return fprintf(stderr, "lgraph-run: unknown option '%s'\n%s", s, usage), -1;
        } else if (!a->model) {
            a->model = s;
        } else {
            return fprintf(stderr, "lgraph-run: more than one model\n"), -1;
        }
#undef OPT
    }
    if (!a->model) return fprintf(stderr, "%s", usage), -1;
    if (a->micro == MICRO_AUTO && a->batch > (1 << 20))
        return fprintf(stderr, "lgraph-run: --micro-batch=auto takes --batch <= 2^20\n"), -1;
    if (a->micro > 0 && (a->batch % a->micro || a->batch / a->micro > (1 << 20)))
        return fprintf(stderr,
                       "lgraph-run: --micro-batch=%lld must divide --batch=%lld (at most "
                       "2^20 slices)\n",
                       (long long)a->micro, (long long)a->batch),
               -1;
    if (a->micro && a->compare_strategies)
        return fprintf(stderr,
                       "lgraph-run: --micro-batch does not apply to --compare-strategies\n"),
               -1;
    if (a->iters == 0 && (a->profile || a->compare || a->output || a->compare_strategies))
        return fprintf(stderr, "lgraph-run: --iters=0 (load and compile only) takes no "
                               "--profile, --compare, --output or --compare-strategies\n"),
               -1;
    return 0;
}

/* Load the model at `batch` and compile it with `slices` batch slices (0:
 * none); load and compile times are added to *load_ms and *compile_ms.
 * Prints the error and returns 1 on failure. */
static int load_compile(const args *a, int64_t batch, int slices, lg_plan **plan, lg_onnx_io *io,
                        double *load_ms, double *compile_ms) {
    lg_onnx_options o;
    lg_onnx_options_init(&o);
    o.batch = batch;
    o.inputs_any = a->inputs_any;
    lg_graph *g;
    double t0 = run_now_ms();
    if (lg_onnx_load_file(a->model, &o, &g, io) != LG_OK) {
        fprintf(stderr, "lgraph-run: %s\n", lg_last_error());
        return 1;
    }
    *load_ms += run_now_ms() - t0;
    lg_compile_options co;
    lg_compile_options_init(&co);
    co.strategy = a->strategy;
    co.num_threads = a->threads;
    if (a->margin >= 0) co.optimal_margin = a->margin;
    co.conv_alg = a->conv_alg;
    co.batch_slices = slices;
    lg_status st = lg_graph_compile(g, &co, plan);
    lg_graph_destroy(g);
    if (st != LG_OK) {
        fprintf(stderr, "lgraph-run: compile: %s\n", lg_last_error());
        lg_onnx_io_free(io);
        return 1;
    }
    lg_plan_stats ps;
    lg_plan_stats_get(*plan, &ps);
    *compile_ms += ps.compile_ms;
    return 0;
}

/* The plan for --micro-batch: B given, or with auto the whole batch N
 * unless slicing pays (run_micro_auto judges it from the whole batch's
 * plan, which is kept otherwise: auto costs a second load and compile only
 * where it slices). *micro gets B. */
static int micro_plan(const args *a, lg_plan **plan, lg_onnx_io *io, int64_t *micro,
                      double *load_ms, double *compile_ms) {
    int64_t n = a->batch, b = a->micro;
    if (b == MICRO_AUTO) {
        if (load_compile(a, n, 0, plan, io, load_ms, compile_ms)) return 1;
        lg_plan_stats ps;
        lg_plan_stats_get(*plan, &ps);
        b = run_micro_auto(n, ps.arena_bytes, ps.const_bytes, run_llc_bytes());
        *micro = b;
        if (b == n) return 0;
        lg_plan_destroy(*plan);
        lg_onnx_io_free(io);
    }
    *micro = b ? b : n;
    return load_compile(a, *micro, (int)(n / *micro), plan, io, load_ms, compile_ms);
}

int main(int argc, char **argv) {
    args a;
    if (parse_args(argc, argv, &a)) return 2;
    lg_onnx_io io;
    double load_ms = 0, compile_ms = 0, cpu0 = run_cpu_ms();
    if (a.compare_strategies) {
        lg_onnx_options o;
        lg_onnx_options_init(&o);
        o.batch = a.batch;
        o.inputs_any = a.inputs_any;
        lg_graph *g;
        if (lg_onnx_load_file(a.model, &o, &g, &io) != LG_OK) {
            fprintf(stderr, "lgraph-run: %s\n", lg_last_error());
            return 1;
        }
        run_compare c = {a.model, a.batch, a.iters, a.warmup, a.threads,
                         a.tol,   a.seed,  a.json,  a.csv};
        int rc = run_compare_strategies(g, &io, &c);
        lg_graph_destroy(g);
        lg_onnx_io_free(&io);
        return rc;
    }
    lg_plan *plan;
    int64_t micro = a.batch;
    if (micro_plan(&a, &plan, &io, &micro, &load_ms, &compile_ms)) return 1;
    double cpu_ms = run_cpu_ms() - cpu0; /* load + compile, every thread of the process */
    lg_plan_stats ps;
    lg_plan_stats_get(plan, &ps);
    ps.compile_ms = compile_ms; /* with auto, both compiles */
    static const char *strat[] = {"none", "greedy", "optimal"};
    if (a.iters == 0) {
        /* Load and compile only: what the load + compile figure measures. */
        if (a.json)
            printf("{\"model\": \"%s\", \"batch\": %lld, \"strategy\": \"%s\", \"load_ms\": "
                   "%.3f, \"compile_ms\": %.3f, \"load_compile_cpu_ms\": %.3f, \"iters\": 0, "
                   "\"micro_batch\": %lld}\n",
                   a.model, (long long)a.batch, strat[a.strategy], load_ms, ps.compile_ms, cpu_ms,
                   (long long)micro);
        else
            printf("model %s, batch %lld, strategy %s\nload %.2f ms, compile %.2f ms (process "
                   "cpu %.2f ms)\n",
                   a.model, (long long)a.batch, strat[a.strategy], load_ms, ps.compile_ms, cpu_ms);
        lg_plan_destroy(plan);
        lg_onnx_io_free(&io);
        return 0;
    }
    int nb = io.n_inputs + io.n_outputs, rc = 1;
    run_buf *bufs = calloc((size_t)nb, sizeof *bufs);
    lg_binding *bind = calloc((size_t)nb, sizeof *bind);
    double *times = calloc((size_t)a.iters, sizeof *times);
    lg_step_profile *prof = NULL;
    int nprof = 0;
    if (!bufs || !bind || !times) goto done;
    for (int k = 0; k < nb; k++) {
        const char *name = k < io.n_inputs ? io.inputs[k] : io.outputs[k - io.n_inputs];
        if (run_setup_buf(plan, name, &bufs[k])) {
            fprintf(stderr, "lgraph-run: buffers for '%s': %s\n", name, lg_last_error());
            goto done;
        }
        bind[k] = (lg_binding){name, bufs[k].data};
    }
    /* Inputs: the .npy file for the first, seeded random data otherwise. */
    unsigned long long s = a.seed * 6364136223846793005ull + 1442695040888963407ull;
    for (int k = 0; k < io.n_inputs; k++) {
        run_buf *b = &bufs[k];
        int64_t n = run_elems(&b->plain);
        if (a.input && k == 0) {
            npy_array arr;
            char err[512];
            if (npy_read(a.input, &arr, err, sizeof err)) {
                fprintf(stderr, "lgraph-run: %s\n", err);
                goto done;
            }
            bool same = arr.nd == b->plain.ndims;
            for (int d = 0; same && d < arr.nd; d++) same = arr.dims[d] == b->plain.dims[d];
            if (!same) {
                fprintf(stderr, "lgraph-run: %s: shape differs from input '%s'\n", a.input,
                        b->name);
                free(arr.data);
                goto done;
            }
            memcpy(b->user, arr.data, (size_t)n * sizeof(float));
            free(arr.data);
        } else {
            run_fill(b->user, n, &s);
        }
        if (run_move(b->to_plan, b->user, b->data)) goto done;
    }
    for (int k = 0; k < a.warmup + a.iters; k++) {
        double t = run_now_ms();
        if (lg_plan_execute(plan, io.n_inputs, bind, io.n_outputs, bind + io.n_inputs) != LG_OK) {
            fprintf(stderr, "lgraph-run: execute: %s\n", lg_last_error());
            goto done;
        }
        if (k >= a.warmup) times[k - a.warmup] = run_now_ms() - t;
        if (!a.json && k == a.warmup && times[0] * a.iters > 2000)
            fprintf(stderr, "lgraph-run: %d runs of about %.0f ms each\n", a.iters, times[0]);
    }
    if (a.profile && profile_collect(plan, io.n_inputs, bind, io.n_outputs, bind + io.n_inputs,
                                     a.iters, &prof, &nprof))
        goto done;
    for (int k = io.n_inputs; k < nb; k++)
        if (run_move(bufs[k].from_plan, bufs[k].data, bufs[k].user)) goto done;
    qsort(times, (size_t)a.iters, sizeof *times, run_cmp_double);
    double med =
        a.iters % 2 ? times[a.iters / 2] : 0.5 * (times[a.iters / 2 - 1] + times[a.iters / 2]);
    run_buf *out = &bufs[io.n_inputs];
    if (a.output && npy_write(a.output, out->plain.ndims, out->plain.dims, out->user)) {
        perror(a.output);
        goto done;
    }
    if (a.dump) {
        FILE *f = fopen(a.dump, "w");
        if (!f || lg_plan_dump(plan, f, "dot") != LG_OK) {
            fprintf(stderr, "lgraph-run: cannot write %s\n", a.dump);
            if (f) fclose(f);
            goto done;
        }
        fclose(f);
    }
    double max_abs = -1, max_rel = -1;
    bool cmp_ok = true;
    if (a.compare) {
        npy_array ref;
        char err[512];
        if (npy_read(a.compare, &ref, err, sizeof err)) {
            fprintf(stderr, "lgraph-run: %s\n", err);
            goto done;
        }
        if (ref.n != run_elems(&out->plain)) {
            fprintf(stderr, "lgraph-run: %s holds %lld values, output '%s' %lld\n", a.compare,
                    (long long)ref.n, out->name, (long long)run_elems(&out->plain));
            free(ref.data);
            goto done;
        }
        double ref_max = 0;
        max_abs = 0;
        for (int64_t e = 0; e < ref.n; e++) {
            double d = fabs((double)out->user[e] - ref.data[e]);
            if (!(d <= max_abs)) max_abs = d; /* NaN propagates */
            if (fabs(ref.data[e]) > ref_max) ref_max = fabs(ref.data[e]);
        }
        max_rel = max_abs / (ref_max > 0 ? ref_max : 1);
        cmp_ok = max_rel <= a.tol;
        free(ref.data);
    }
    if (a.json) {
        printf("{\"model\": \"%s\", \"batch\": %lld, \"strategy\": \"%s\", \"load_ms\": %.3f, "
               "\"compile_ms\": %.3f, \"median_ms\": %.4f, \"min_ms\": %.4f, \"max_ms\": %.4f, "
               "\"iters\": %d, \"runtime_reorders\": %d, \"folded_reorders\": %d, "
               "\"reorder_bytes\": %lld, \"steps\": %d, \"arena_bytes\": %lld, "
               "\"model_cost\": %g, \"model_ms\": %.4f, \"exact\": %s, \"kept_greedy\": %s, "
               "\"load_compile_cpu_ms\": %.3f",
               a.model, (long long)a.batch, strat[a.strategy], load_ms, ps.compile_ms, med,
               times[0], times[a.iters - 1], a.iters, ps.runtime_reorders, ps.folded_reorders,
               (long long)ps.reorder_bytes, ps.steps, (long long)ps.arena_bytes, ps.model_cost,
               ps.model_ms, ps.exact ? "true" : "false", ps.kept_greedy ? "true" : "false", cpu_ms);
        printf(", \"views\": %d, \"copy_steps_removed\": %d, \"copy_bytes_removed\": %lld",
               ps.views, ps.copy_steps_removed, (long long)ps.copy_bytes_removed);
        printf(", \"micro_batch\": %lld, \"batch_slices\": %d, \"const_bytes\": %lld",
               (long long)micro, ps.batch_slices, (long long)ps.const_bytes);
        if (a.compare) printf(", \"max_abs_diff\": %g, \"max_rel_diff\": %g", max_abs, max_rel);
        if (prof) {
            printf(", ");
            profile_print_json(stdout, prof, nprof, a.iters);
        }
        printf("}\n");
    } else {
        printf("model %s, batch %lld, strategy %s\n", a.model, (long long)a.batch,
               strat[a.strategy]);
        printf("load %.2f ms, compile %.2f ms\n", load_ms, ps.compile_ms);
        if (ps.batch_slices > 1)
            printf("micro-batch %lld: each run executes the plan's steps %d times, once per "
                   "slice (the counters below are one slice's)\n",
                   (long long)micro, ps.batch_slices);
        printf("plan: %d steps, %d runtime reorders (%lld bytes), %d folded reorders, arena "
               "%lld bytes, constants %lld bytes, exact %s\n",
               ps.steps, ps.runtime_reorders, (long long)ps.reorder_bytes, ps.folded_reorders,
               (long long)ps.arena_bytes, (long long)ps.const_bytes, ps.exact ? "yes" : "no");
        if (ps.kept_greedy)
            printf("optimal: kept GREEDY's plan (model cost %.9g); the minimum %.9g saves less "
                   "than the margin\n",
                   ps.model_cost, ps.model_cost_bound);
        if (!ps.exact)
            printf("not exact: %s; model cost %.9g, proven minimum >= %.9g (gap %.3g%%)\n",
                   ps.inexact_reason, ps.model_cost, ps.model_cost_bound,
                   ps.model_cost > 0 ? 100 * (ps.model_cost - ps.model_cost_bound) / ps.model_cost
                                     : 0.0);
        printf("views: %d values placed in another's buffer, %d concat/slice steps removed "
               "(%lld bytes per run)\n",
               ps.views, ps.copy_steps_removed, (long long)ps.copy_bytes_removed);
        printf("run: median %.3f ms, min %.3f, max %.3f over %d runs; cost model predicts "
               "%.3f ms\n",
               med, times[0], times[a.iters - 1], a.iters, ps.model_ms);
        if (a.compare)
            printf("compare with %s: max abs diff %g, max rel diff %g (tol %g): %s\n", a.compare,
                   max_abs, max_rel, a.tol, cmp_ok ? "ok" : "FAILED");
        if (prof) profile_print_text(stdout, prof, nprof, a.iters);
    }
    rc = cmp_ok ? 0 : 1;
done:
    for (int k = 0; bufs && k < nb; k++) run_free_buf(&bufs[k]);
    free(bufs);
    free(bind);
    free(times);
    free(prof);
    lg_plan_destroy(plan);
    lg_onnx_io_free(&io);
    return rc;
}
