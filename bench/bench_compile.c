/*
 * Compile time of the workload graphs (issue 7: "compile time of each workload
 * under 10 ms"): W1, W2, W3 at N = 1 and 16 under NONE, GREEDY and OPTIMAL.
 * "first" is the first compile in the process (the kernel cache is cold: every
 * kernel, and every conv probed by OPTIMAL, is created); "warm" is the median
 * of `reps` later compiles (kernels come from the cache; weights are still
 * reordered). Each figure is lg_plan_stats.compile_ms, the wall time of
 * lg_graph_compile. No oneDNN: compile time has no counterpart there.
 *
 * Usage: bench_compile [reps]   (default 21)
 */
#include <lgraph.h>
#include <stdio.h>
#include <stdlib.h>

#include "workloads.h"

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double compile_ms(const lg_graph *g, lg_strategy s, bool *exact) {
    lg_compile_options o;
    lg_compile_options_init(&o);
    o.strategy = s;
    lg_plan *p;
    if (lg_graph_compile(g, &o, &p) != LG_OK) {
        fprintf(stderr, "compile: %s\n", lg_last_error());
        exit(1);
    }
    lg_plan_stats st;
    lg_plan_stats_get(p, &st);
    *exact = st.exact;
    lg_plan_destroy(p);
    return st.compile_ms;
}

int main(int argc, char **argv) {
    int reps = argc > 1 ? atoi(argv[1]) : 21;
    if (reps < 1 || reps > 1000) reps = 21;
    static const char *names[3] = {"NONE", "GREEDY", "OPTIMAL"};
    static const char *wl[3] = {"W1", "W2", "W3"};
    printf("| workload | N | strategy | first ms | warm ms (median of %d) | exact |\n", reps);
    printf("|---|---|---|---|---|---|\n");
    double *t = malloc((size_t)reps * sizeof *t);
    if (!t) return 1;
    for (int id = 0; id < 3; id++)
        for (int64_t n = 1; n <= 16; n += 15) {
            wl_workload w;
            lg_graph *g = NULL;
            if (wl_create(&w, (wl_id)id, n, 1) != 0 ||
                wl_build_graph(&w, NULL, NULL, &g) != LG_OK) {
                fprintf(stderr, "cannot build %s: %s\n", wl[id], lg_last_error());
                return 1;
            }
            for (int s = 0; s < 3; s++) {
                bool exact;
                double first = compile_ms(g, (lg_strategy)s, &exact);
                for (int r = 0; r < reps; r++) t[r] = compile_ms(g, (lg_strategy)s, &exact);
                qsort(t, (size_t)reps, sizeof *t, cmp);
                printf("| %s | %lld | %s | %.2f | %.2f | %s |\n", wl[id], (long long)n, names[s],
                       first, t[reps / 2], exact ? "yes" : "no");
            }
            lg_graph_destroy(g);
            wl_destroy(&w);
        }
    free(t);
    return 0;
}
