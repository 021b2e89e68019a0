/* Kernels are asked, not created, while compiling: layout choice (GREEDY's
 * preferences, OPTIMAL's candidates), fusion and concat_inplace's check that
 * a producer or reader takes a strided view ask the kernel kinds
 * (lg__conv_query and the like) and create nothing. So compiling W1-W3
 * (WORKLOADS.md) and two concat graphs (an inception-like block, a
 * ShuffleNetV2 unit: split, branch, concat, shuffle) into a fresh kernel
 * cache, under every strategy, leaves exactly the kernels the compile runs:
 * the plan's steps, and one reorder per constant it folds (run once at
 * compile time). Before the queries, one conv + relu under GREEDY added 5
 * probe kernels and OPTIMAL 4 more. A successful compile also leaves
 * lg_last_error as it was: refused probes record nothing. */
#include "graph/plan.h"
#include "workloads.h"

#include <criterion/criterion.h>
#include <stdlib.h>
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

/* Compile g under `strategy` into a fresh cache and check what the cache
 * and lg_last_error hold afterwards; `what` names the case. */
static void check_graph(lg_graph *g, lg_strategy strategy, const char *what) {
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
    cr_assert_eq(lg_graph_compile(g, &o, &p), LG_OK, "%s: %s", what, lg_last_error());
    lg_kernel_cache_stats(&after);
    lg_plan_stats st;
    cr_assert_eq(lg_plan_stats_get(p, &st), LG_OK);
    int want = plan_kernels(p) + st.folded_reorders;
    cr_assert_eq(after.size, want,
                 "%s strategy %d: the cache holds %d kernels; the plan runs %d and %d constants "
                 "were folded",
                 what, (int)strategy, after.size, plan_kernels(p), st.folded_reorders);
    cr_assert_eq(after.misses - before.misses, (uint64_t)want,
                 "%s strategy %d: kernels built during the compile", what, (int)strategy);
    cr_assert_str_eq(lg_last_error(), last,
                     "%s strategy %d: a successful compile changed the last error to '%s'", what,
                     (int)strategy, lg_last_error());
    lg_plan_destroy(p);
}

static void check(wl_id id, int64_t n, const char *in_tag, lg_strategy strategy) {
    wl_workload w;
    cr_assert_eq(wl_create(&w, id, n, 42), 0);
    lg_graph *g = NULL;
    cr_assert_eq(wl_build_graph(&w, in_tag, NULL, &g), LG_OK, "%s", lg_last_error());
    char what[64];
    snprintf(what, sizeof what, "W%d N=%lld in=%s", (int)id + 1, (long long)n,
             in_tag ? in_tag : "nchw");
    check_graph(g, strategy, what);
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

/* y = a conv of src (oc x ic/groups x k x k, zero weights, a bias), padded
 * to keep the spatial size. */
static lg_value conv(lg_graph *g, lg_value src, int64_t ic, int64_t oc, int64_t k, int64_t groups) {
    static int count;
    int64_t wd[5] = {groups, oc / groups, ic / groups, k, k}, bd = oc;
    const bool grouped = groups > 1;
    lg_md wm, bm;
    cr_assert_eq(
        lg_md_init_tag(&wm, 4 + grouped, grouped ? wd : wd + 1, LG_F32, grouped ? "goihw" : "oihw"),
        LG_OK);
    cr_assert_eq(lg_md_init_tag(&bm, 1, &bd, LG_F32, "a"), LG_OK);
    void *data = calloc(1, lg_md_size(&wm));
    char wn[16], bn[16];
    snprintf(wn, sizeof wn, "w%d", count);
    snprintf(bn, sizeof bn, "b%d", count++);
    lg_value w, b, y;
    cr_assert_eq(lg_graph_add_constant(g, wn, &wm, data, &w), LG_OK);
    cr_assert_eq(lg_graph_add_constant(g, bn, &bm, data, &b), LG_OK);
    free(data);
    lg_conv_params p = {.strides = {1, 1}, .groups = groups};
    p.pad_l[0] = p.pad_l[1] = p.pad_r[0] = p.pad_r[1] = k / 2;
    cr_assert_eq(lg_graph_add_conv(g, src, w, b, &p, &y), LG_OK, "%s", lg_last_error());
    return y;
}

static lg_value input(lg_graph *g, int64_t n, int64_t c, const char *in_tag) {
    int64_t xd[4] = {n, c, 8, 8};
    lg_md xm;
    lg_value x;
    cr_assert_eq(lg_md_init_tag(&xm, 4, xd, LG_F32, in_tag ? in_tag : "nchw"), LG_OK);
    cr_assert_eq(lg_graph_add_input(g, "x", &xm, &x), LG_OK);
    return x;
}

/* Inception-like: x (n x 16 x 8 x 8) -> conv 1x1 to 16 and conv 3x3 to 24,
 * concatenated on channels (40), -> conv 1x1 to 16 -> y. */
static lg_graph *inception_graph(int64_t n, const char *in_tag) {
    lg_graph *g;
    cr_assert_eq(lg_graph_create(&g), LG_OK);
    lg_value x = input(g, n, 16, in_tag);
    lg_value parts[2] = {conv(g, x, 16, 16, 1, 1), conv(g, x, 16, 24, 3, 1)}, c;
    cr_assert_eq(lg_graph_add_concat(g, 1, 2, parts, &c), LG_OK, "%s", lg_last_error());
    cr_assert_eq(lg_graph_add_output(g, conv(g, c, 40, 16, 1, 1), "y", "any"), LG_OK);
    return g;
}

/* A ShuffleNetV2 unit: x (n x 116 x 8 x 8) split into 58 + 58 channels; the
 * second half through conv 1x1 (to 64), relu, depthwise 3x3, conv 1x1 (back
 * to 58), relu; concatenated with the first half, then a channel shuffle (2
 * groups) -> y. (The two 1x1 convs differ so that no two folded weights
 * reorders are one cached kernel: the count above stays exact.) */
static lg_graph *shufflenet_graph(int64_t n, const char *in_tag) {
    lg_graph *g;
    cr_assert_eq(lg_graph_create(&g), LG_OK);
    lg_value x = input(g, n, 116, in_tag), half[2], b, c, y;
    const int64_t sizes[2] = {58, 58};
    cr_assert_eq(lg_graph_add_split(g, x, 1, 2, sizes, half), LG_OK, "%s", lg_last_error());
    cr_assert_eq(lg_graph_add_eltwise(g, conv(g, half[1], 58, 64, 1, 1), LG_ELTWISE_RELU, 0, 0, &b),
                 LG_OK);
    b = conv(g, conv(g, b, 64, 64, 3, 64), 64, 58, 1, 1);
    cr_assert_eq(lg_graph_add_eltwise(g, b, LG_ELTWISE_RELU, 0, 0, &b), LG_OK);
    lg_value parts[2] = {half[0], b};
    cr_assert_eq(lg_graph_add_concat(g, 1, 2, parts, &c), LG_OK, "%s", lg_last_error());
    cr_assert_eq(lg_graph_add_shuffle(g, c, 1, 58, &y), LG_OK, "%s", lg_last_error());
    cr_assert_eq(lg_graph_add_output(g, y, "y", "any"), LG_OK);
    return g;
}

Test(kernel_queries, concat_graphs_create_only_what_runs) {
    int cap = lg_kernel_cache_capacity();
    static const char *const tags[] = {NULL, "nhwc", "any"};
    static const int64_t batches[] = {1, 4};
    for (int t = 0; t < 3; t++)
        for (int b = 0; b < 2; b++)
            for (int s = LG_STRATEGY_NONE; s <= LG_STRATEGY_OPTIMAL; s++) {
                char what[64];
                snprintf(what, sizeof what, "inception N=%lld in=%s", (long long)batches[b],
                         tags[t] ? tags[t] : "nchw");
                lg_graph *g = inception_graph(batches[b], tags[t]);
                check_graph(g, (lg_strategy)s, what);
                lg_graph_destroy(g);
                snprintf(what, sizeof what, "shufflenet N=%lld in=%s", (long long)batches[b],
                         tags[t] ? tags[t] : "nchw");
                g = shufflenet_graph(batches[b], tags[t]);
                check_graph(g, (lg_strategy)s, what);
                lg_graph_destroy(g);
            }
    lg_kernel_cache_set_capacity(cap);
}
