/*
 * The cost model against measurement on the workloads W1-W3 (issue 20):
 * for each workload and strategy, the plan's predicted time
 * (lg_plan_stats.model_ms) beside its measured median and minimum over K
 * runs and its smallest process CPU time (cpu_min_ms: with one thread,
 * the run without the time other processes took), one JSON object per line
 * (scripts/model_table.sh reads them).
 *
 * Usage: bench_model [K] [N] [threads]   (defaults 21, 1, 0 = OpenMP's)
 */
#include "workloads.h"

#include <lgraph.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* CPU time of the process: with one thread, the run's time without the
 * time other processes took the core (the machine is shared). */
static double cpu_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    int k = argc > 1 ? atoi(argv[1]) : 21, threads = argc > 3 ? atoi(argv[3]) : 0;
    int64_t n = argc > 2 ? atoll(argv[2]) : 1;
    if (k < 1 || n < 1 || threads < 0) {
        fprintf(stderr, "usage: bench_model [K >= 1] [N >= 1] [threads >= 0]\n");
        return 2;
    }
    static const char *const names[3] = {"none", "greedy", "optimal"};
    double *t = malloc((size_t)k * sizeof *t);
    if (!t) return 1;
    for (int id = 0; id < WL_COUNT; id++) {
        wl_workload w;
        lg_graph *g;
        if (wl_create(&w, (wl_id)id, n, 7) || wl_build_graph(&w, NULL, NULL, &g) != LG_OK) {
            fprintf(stderr, "bench_model: cannot build W%d\n", id + 1);
            return 1;
        }
        float *x = malloc(wl_input_bytes(&w)), *y = malloc(wl_output_bytes(&w));
        if (!x || !y) return 1;
        wl_fill_input(&w, x, 3);
        for (int s = 0; s < 3; s++) {
            lg_compile_options o;
            lg_compile_options_init(&o);
            o.strategy = (lg_strategy)s;
            o.num_threads = threads;
            lg_plan *p;
            if (lg_graph_compile(g, &o, &p) != LG_OK) {
                fprintf(stderr, "bench_model: %s\n", lg_last_error());
                return 1;
            }
            lg_binding in = {WL_INPUT_NAME, x}, out = {WL_OUTPUT_NAME, y};
            lg_plan_execute(p, 1, &in, 1, &out);
            int runs = k; /* plans of seconds (NONE) are timed once */
            double cpu = 0;
            for (int r = 0; r < runs; r++) {
                double t0 = omp_get_wtime(), c0 = cpu_ms();
                lg_plan_execute(p, 1, &in, 1, &out);
                t[r] = (omp_get_wtime() - t0) * 1e3;
                double c = cpu_ms() - c0;
                cpu = r == 0 || c < cpu ? c : cpu;
                if (t[r] > 2000) runs = r + 1;
            }
            qsort(t, (size_t)runs, sizeof *t, cmp);
            lg_plan_stats st;
            lg_plan_stats_get(p, &st);
            /* The sum of each step's fastest run (lgraph-run's step_min_ms). */
            double step_min = t[0];
            lg_step_profile *prof = calloc((size_t)st.steps, sizeof *prof);
            double *best = calloc((size_t)st.steps, sizeof *best);
            for (int r = 0; t[0] < 2000 && prof && best && r < runs; r++) {
                if (lg_plan_profile(p, 1, &in, 1, &out, 1, prof, st.steps) != LG_OK) break;
                step_min = 0;
                for (int i = 0; i < st.steps; i++) {
                    best[i] = r == 0 || prof[i].ms < best[i] ? prof[i].ms : best[i];
                    step_min += best[i];
                }
            }
            free(prof);
            free(best);
            printf("{\"model\": \"%s\", \"batch\": %lld, \"strategy\": \"%s\", \"disabled\": null, "
                   "\"model_ms\": %.4f, \"median_ms\": %.4f, \"min_ms\": %.4f, \"step_min_ms\": "
                   "%.4f, \"cpu_min_ms\": %.4f, "
                   "\"iters\": %d, \"threads\": %d}\n",
                   w.spec->name, (long long)n, names[s], st.model_ms, t[runs / 2], t[0], step_min,
                   cpu, runs, threads);
            fflush(stdout);
            lg_plan_destroy(p);
        }
        free(x);
        free(y);
        lg_graph_destroy(g);
        wl_destroy(&w);
    }
    free(t);
    return 0;
}
