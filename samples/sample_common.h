/* What the graph samples share: deterministic weights, a status check, and
 * the report that compiles one graph under NONE, GREEDY and OPTIMAL, prints
 * what each plan does and how fast it runs, writes each plan's Graphviz DOT,
 * and checks that the three plans compute the same output.
 *
 * Header-only on purpose: each sample stays one program a newcomer can build
 * with `cc sample.c -llgraph`. */
#ifndef LG_SAMPLE_COMMON_H
#define LG_SAMPLE_COMMON_H

#include <lgraph.h>

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Exit with lgraph's message when a call fails. */
static inline void sample_check(lg_status s, const char *what) {
    if (s != LG_OK) {
        fprintf(stderr, "%s: %s: %s\n", what, lg_status_str(s), lg_last_error());
        exit(1);
    }
}

/* Uniform values in [-scale, scale) from a fixed seed (xorshift32). */
static inline void sample_fill(float *x, size_t n, uint32_t seed, float scale) {
    uint32_t s = seed * 2654435761u + 1u;
    for (size_t i = 0; i < n; i++) {
        s ^= s << 13;
        s ^= s >> 17;
        s ^= s << 5;
        x[i] = scale * ((float)(s >> 8) / 8388608.0f - 1.0f);
    }
}

/* A constant of the given dims in plain layout (tag), filled with seeded
 * values scaled by 1/sqrt(fan_in) so activations stay of order one. */
static inline lg_value sample_constant(lg_graph *g, const char *name, int ndims,
                                       const int64_t *dims, const char *tag, uint32_t seed,
                                       int64_t fan_in) {
    lg_md md;
    sample_check(lg_md_init_tag(&md, ndims, dims, LG_F32, tag), name);
    size_t n = lg_md_size(&md) / sizeof(float);
    float *data = malloc(n * sizeof(float));
    if (!data) exit(1);
    sample_fill(data, n, seed, 1.0f / sqrtf((float)fan_in));
    lg_value v;
    sample_check(lg_graph_add_constant(g, name, &md, data, &v), name);
    free(data); /* the graph keeps its own copy */
    return v;
}

static inline double sample_now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static inline int sample_cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Compile g under the three strategies, run each plan `iters` times on input
 * x (bound as "x"; the output is "y"), print a table row per strategy, write
 * <prefix>_<strategy>.dot, and check the outputs agree to 1e-4 relative.
 * Returns 0 when they agree. */
static inline int sample_report(const lg_graph *g, const char *prefix, const float *x,
                                size_t y_elems, int iters) {
    static const char *names[3] = {"none", "greedy", "optimal"};
    float *y[3] = {NULL, NULL, NULL};
    printf("%-8s %9s %14s %6s %12s %7s %12s %11s %10s\n", "strategy", "reorders", "reorder bytes",
           "steps", "arena bytes", "folded", "model cost", "compile ms", "ms/run");
    for (int s = 0; s < 3; s++) {
        lg_compile_options o;
        lg_compile_options_init(&o);
        o.strategy = (lg_strategy)s;
        lg_plan *plan;
        sample_check(lg_graph_compile(g, &o, &plan), "lg_graph_compile");
        lg_md ymd;
        sample_check(lg_plan_query_md(plan, "y", &ymd), "lg_plan_query_md");
        y[s] = malloc(lg_md_size(&ymd));
        if (!y[s]) exit(1);
        lg_binding in = {"x", (void *)x}, out = {"y", y[s]};
        double t[64];
        int n = iters < 64 ? iters : 64;
        for (int i = -1; i < n; i++) { /* one warm-up run */
            double t0 = sample_now_ms();
            sample_check(lg_plan_execute(plan, 1, &in, 1, &out), "lg_plan_execute");
            if (i >= 0) t[i] = sample_now_ms() - t0;
        }
        qsort(t, (size_t)n, sizeof t[0], sample_cmp_double);
        lg_plan_stats st;
        sample_check(lg_plan_stats_get(plan, &st), "lg_plan_stats_get");
        printf("%-8s %9d %14" PRId64 " %6d %12" PRId64 " %7d %11.4g%s %11.2f %10.3f\n", names[s],
               st.runtime_reorders, st.reorder_bytes, st.steps, st.arena_bytes, st.folded_reorders,
               st.model_cost, st.exact ? "*" : " ", st.compile_ms, t[n / 2]);
        char path[256];
        snprintf(path, sizeof path, "%s_%s.dot", prefix, names[s]);
        FILE *f = fopen(path, "w");
        if (f) {
            sample_check(lg_plan_dump(plan, f, "dot"), "lg_plan_dump");
            fclose(f);
        }
        lg_plan_destroy(plan);
    }
    double worst = 0;
    for (size_t i = 0; i < y_elems; i++)
        for (int s = 1; s < 3; s++) {
            double d = fabs((double)y[s][i] - y[0][i]) / (1.0 + fabs((double)y[0][i]));
            if (!(d <= worst)) worst = d; /* NaN counts as a disagreement */
        }
    printf("outputs agree: max relative difference %.2e (%s)\n", worst,
           worst <= 1e-4 ? "ok" : "MISMATCH");
    printf("(model cost: lgraph's cost model, byte-equivalents; * = proven minimal)\n");
    printf("plans written to %s_{none,greedy,optimal}.dot (render: dot -Tpng file.dot)\n", prefix);
    for (int s = 0; s < 3; s++) free(y[s]);
    return worst <= 1e-4 ? 0 : 1;
}

#endif /* LG_SAMPLE_COMMON_H */
