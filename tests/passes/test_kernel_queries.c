/* Kernels are asked, not created, while compiling: layout choice (GREEDY's
 * preferences, OPTIMAL's candidates) and fusion ask the kernel kinds
 * (lg__conv_query) and create nothing. So compiling W1-W3 (WORKLOADS.md) into
 * a fresh kernel cache, under every strategy, leaves exactly the kernels the
 * compile runs: the plan's steps, and one reorder per constant it folds
 * (run once at compile time). Before the queries, one conv + relu under
 * GREEDY added 5 probe kernels and OPTIMAL 4 more. A successful compile also
 * leaves lg_last_error as it was: refused probes record nothing. */
#include "graph/plan.h"
#include "workloads.h"

#include <criterion/criterion.h>
#include <string.h>

/* Distinct kernels of the plan's steps. */
static int plan_kernels(const lg_plan *p) {
    int n = 0;
    for (int i = 0; i < p->nsteps; i++) {
        bool seen = false;
        for (int j = 0; j < i && !seen; j++) seen = p->steps[j].kernel == p->steps[i].kernel;
        n += !seen;
    }
    return n;
}

static void check(wl_id id, int64_t n, const char *in_tag, lg_strategy strategy) {
    wl_workload w;
    cr_assert_eq(wl_create(&w, id, n, 42), 0);
    lg_graph *g = NULL;
    cr_assert_eq(wl_build_graph(&w, in_tag, NULL, &g), LG_OK, "%s", lg_last_error());
    /* A fresh cache: empty, then large enough to evict nothing. */
    cr_assert_eq(lg_kernel_cache_set_capacity(0), LG_OK);
    cr_assert_eq(lg_kernel_cache_set_capacity(4096), LG_OK);
    lg_cache_stats before, after;
    lg_kernel_cache_stats(&before);
    cr_assert_eq(before.size, 0);
    /* A last error from before the compile. */
    cr_assert_neq(lg_kernel_cache_set_capacity(-1), LG_OK);
    char last[1024];
    snprintf(last, sizeof last, "%s", lg_last_error());
    lg_compile_options o;
    lg_compile_options_init(&o);
    o.strategy = strategy;
    lg_plan *p = NULL;
    cr_assert_eq(lg_graph_compile(g, &o, &p), LG_OK, "%s", lg_last_error());
    lg_kernel_cache_stats(&after);
    lg_plan_stats st;
    cr_assert_eq(lg_plan_stats_get(p, &st), LG_OK);
    int want = plan_kernels(p) + st.folded_reorders;
    cr_assert_eq(after.size, want,
                 "W%d N=%lld in=%s strategy %d: the cache holds %d kernels; the plan runs %d and "
                 "%d constants were folded",
                 (int)id + 1, (long long)n, in_tag ? in_tag : "nchw", (int)strategy, after.size,
                 plan_kernels(p), st.folded_reorders);
    cr_assert_eq(after.misses - before.misses, (uint64_t)want, "kernels built during the compile");
    cr_assert_str_eq(lg_last_error(), last, "a successful compile changed the last error");
    lg_plan_destroy(p);
    lg_graph_destroy(g);
    wl_destroy(&w);
}

Test(kernel_queries, compile_creates_only_what_runs) {
    int cap = lg_kernel_cache_capacity();
    static const char *const tags[] = {NULL, "any"};
    for (int id = 0; id < WL_COUNT; id++)
        for (int t = 0; t < 2; t++)
            for (int s = LG_STRATEGY_NONE; s <= LG_STRATEGY_OPTIMAL; s++) {
                check((wl_id)id, 1, tags[t], (lg_strategy)s);
                check((wl_id)id, 16, tags[t], (lg_strategy)s);
            }
    lg_kernel_cache_set_capacity(cap);
}
