/* custom_strategy: layout strategies of your own, written over the view of
 * the layout problem that lg_graph_compile hands to lg_compile_options.
 * strategy_fn (include/lgraph.h, lg_layout_problem), run against the
 * built-in NONE, GREEDY and OPTIMAL on the workloads W1-W3 of the design:
 *
 *   channels_last  every node writes its result (and reads input 0) in
 *                  channels-last "acdb" where it can;
 *   local_search   random-restart local search over the view's cost
 *                  (lg_layout_cost): from GREEDY's choice and from random
 *                  ones, change one node at a time while the cost drops.
 *
 * For each plan: the model cost, the runtime reorders and the measured time
 * per run (median). Exits non-zero when a plan's output differs from NONE's
 * (1e-4 relative) or the local search ends above GREEDY's cost or below
 * OPTIMAL's proven minimum.
 *
 * Usage: custom_strategy [N] [runs] [scale]   (defaults 1, 10, 1; scale
 * divides the spatial sizes 28, 56, 224 to keep a quick run quick) */
#include "sample_common.h"

#define MAX_NODES 256
/* Return a failed call's status from the strategy (the compile fails with it). */
#define LG_TRY(call)                                                                               \
    do {                                                                                           \
        lg_status st_ = (call);                                                                    \
        if (st_ != LG_OK) return st_;                                                              \
    } while (0)

/* ---- the strategies: a few dozen lines ---- */

static bool is_channels_last(lg_layout_problem *p, int node, int cfg, int j) {
    lg_md md;
    char tag[64];
    return lg_layout_config_md(p, node, cfg, j, &md) == LG_OK &&
           lg_md_tag(&md, tag, sizeof tag) == LG_OK && strcmp(tag, "acdb") == 0;
}

/* Channels-last everywhere: per node the configuration with most of {result,
 * input 0} in "acdb"; among those the cheapest. */
static lg_status channels_last(lg_layout_problem *p, void *user) {
    (void)user;
    int n = lg_layout_num_nodes(p), choice[MAX_NODES] = {0};
    if (n > MAX_NODES) return LG_UNIMPLEMENTED;
    for (int i = 0; i < n; i++) {
        int nin, ncfg, best_score = -1;
        double best_cost = 0;
        LG_TRY(lg_layout_node(p, i, NULL, NULL, &nin, &ncfg));
        for (int c = 0; c < ncfg; c++) {
            int score = is_channels_last(p, i, c, -1) + (nin > 0 && is_channels_last(p, i, c, 0));
            double cost;
            LG_TRY(lg_layout_config_cost(p, i, c, &cost));
            if (score > best_score || (score == best_score && cost < best_cost))
                best_score = score, best_cost = cost, choice[i] = c;
        }
    }
    return lg_layout_choose(p, n, choice);
}

/* Random-restart local search over lg_layout_cost. */
static lg_status local_search(lg_layout_problem *p, void *user) {
    int n = lg_layout_num_nodes(p), cur[MAX_NODES], best[MAX_NODES], ncfg[MAX_NODES];
    if (n > MAX_NODES) return LG_UNIMPLEMENTED;
    uint32_t seed = 12345;
    double best_cost = INFINITY, cost, c;
    for (int i = 0; i < n; i++) LG_TRY(lg_layout_node(p, i, NULL, NULL, NULL, &ncfg[i]));
    for (int restart = 0; restart < 8; restart++) {
        for (int i = 0; i < n; i++) { /* restart 0: GREEDY's choice (configuration 0) */
            seed = seed * 1664525u + 1013904223u;
            cur[i] = restart == 0 ? 0 : (int)((seed >> 8) % (uint32_t)ncfg[i]);
        }
        LG_TRY(lg_layout_cost(p, n, cur, &cost));
        for (bool better = true; better;) { /* first improvement, node by node */
            better = false;
            for (int i = 0; i < n; i++)
                for (int k = 0, was = cur[i]; k < ncfg[i]; k++) {
                    cur[i] = k;
                    LG_TRY(lg_layout_cost(p, n, cur, &c));
                    if (c < cost) cost = c, was = k, better = true;
                    cur[i] = was;
                }
        }
        if (cost < best_cost) best_cost = cost, memcpy(best, cur, (size_t)n * sizeof(int));
    }
    *(double *)user = best_cost;
    return lg_layout_choose(p, n, best);
}

/* ---- the workloads (WORKLOADS.md), x and y in nchw ---- */

static lg_value conv(lg_graph *g, lg_value x, int64_t ic, int64_t oc, int64_t k, int64_t groups,
                     int64_t stride, uint32_t seed) {
    lg_conv_params cp = {.strides = {stride, stride},
                         .pad_l = {k / 2, k / 2},
                         .pad_r = {k / 2, k / 2},
                         .groups = groups};
    int64_t wd[5] = {groups, oc / groups, ic / groups, k, k}, bd[1] = {oc};
    char wn[16], bn[16];
    snprintf(wn, sizeof wn, "w%u", seed);
    snprintf(bn, sizeof bn, "b%u", seed);
    lg_value w = groups > 1 ? sample_constant(g, wn, 5, wd, "goihw", seed, ic / groups * k * k)
                            : sample_constant(g, wn, 4, wd + 1, "oihw", seed, ic * k * k);
    lg_value b = sample_constant(g, bn, 1, bd, "a", seed + 1, 1);
    lg_value y;
    sample_check(lg_graph_add_conv(g, x, w, b, &cp, &y), "conv");
    return y;
}

static lg_value relu(lg_graph *g, lg_value x) {
    lg_value y;
    sample_check(lg_graph_add_eltwise(g, x, LG_ELTWISE_RELU, 0, 0, &y), "relu");
    return y;
}

/* Workload w (1..3) at batch n, spatial size divided by scale; *xd gets x's dims. */
static lg_graph *workload(int w, int64_t n, int64_t scale, int64_t xd[4]) {
    static const int64_t channels[4] = {0, 240, 256, 3}, size[4] = {0, 28, 56, 224};
    lg_graph *g;
    sample_check(lg_graph_create(&g), "lg_graph_create");
    xd[0] = n, xd[1] = channels[w], xd[2] = xd[3] = size[w] / scale;
    lg_md xmd;
    lg_value x, t;
    sample_check(lg_md_init_tag(&xmd, 4, xd, LG_F32, "nchw"), "x");
    sample_check(lg_graph_add_input(g, "x", &xmd, &x), "x");
    if (w == 1) {
        t = relu(g, conv(g, x, 240, 60, 1, 3, 1, 1));
        sample_check(lg_graph_add_shuffle(g, t, 1, 20, &t), "shuffle");
        t = conv(g, conv(g, t, 60, 60, 3, 60, 1, 3), 60, 240, 1, 3, 1, 5);
    } else if (w == 2) {
        t = relu(g, conv(g, x, 256, 64, 1, 1, 1, 1));
        t = conv(g, relu(g, conv(g, t, 64, 64, 3, 1, 1, 3)), 64, 256, 1, 1, 1, 5);
    } else {
        t = relu(g, conv(g, x, 3, 32, 3, 1, 2, 1));
        t = conv(g, relu(g, conv(g, t, 32, 32, 3, 32, 1, 3)), 32, 64, 1, 1, 1, 5);
    }
    if (w != 3) sample_check(lg_graph_add_binary(g, LG_BINARY_ADD, t, x, &t), "add");
    sample_check(lg_graph_add_output(g, relu(g, t), "y", "nchw"), "y");
    return g;
}

/* ---- compile, run, compare ---- */

int main(int argc, char **argv) {
    int64_t n = argc > 1 ? atoll(argv[1]) : 1, scale = argc > 3 ? atoll(argv[3]) : 1;
    int runs = argc > 2 ? atoi(argv[2]) : 10;
    if (n < 1 || runs < 1 || runs > 64 || scale < 1 || scale > 8) {
        fprintf(stderr, "usage: custom_strategy [N >= 1] [runs 1..64] [scale 1..8]\n");
        return 2;
    }
    static const char *names[5] = {"none", "greedy", "optimal", "channels_last", "local_search"};
    static const char *wnames[4] = {"", "W1 ShuffleNet unit", "W2 ResNet bottleneck",
                                    "W3 MobileNet stem"};
    int bad = 0;
    for (int w = 1; w <= 3; w++) {
        int64_t xd[4];
        lg_graph *g = workload(w, n, scale, xd);
        size_t xn = (size_t)(xd[0] * xd[1] * xd[2] * xd[3]);
        float *x = malloc(xn * sizeof(float)), *y[5] = {0};
        if (!x) return 1;
        sample_fill(x, xn, 7, 1.0f);
        printf("%s, x[%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 "]\n", wnames[w], xd[0], xd[1],
               xd[2], xd[3]);
        printf("%-13s %12s %9s %10s\n", "strategy", "model cost", "reorders", "ms/run");
        double cost[5], searched = 0;
        bool exact = false;
        size_t yn = 0;
        for (int s = 0; s < 5; s++) {
            lg_compile_options o;
            lg_compile_options_init(&o);
            o.strategy = s < 3 ? (lg_strategy)s : LG_STRATEGY_OPTIMAL;
            o.strategy_fn = s == 3 ? channels_last : s == 4 ? local_search : NULL;
            o.strategy_data = &searched;
            lg_plan *plan;
            sample_check(lg_graph_compile(g, &o, &plan), names[s]);
            lg_md ymd;
            sample_check(lg_plan_query_md(plan, "y", &ymd), "lg_plan_query_md");
            yn = lg_md_size(&ymd) / sizeof(float); /* nchw: no padding */
            y[s] = malloc(lg_md_size(&ymd));
            if (!y[s]) return 1;
            lg_binding in = {"x", x}, out = {"y", y[s]};
            double t[64];
            for (int i = -1; i < runs; i++) { /* one warm-up run */
                double t0 = sample_now_ms();
                sample_check(lg_plan_execute(plan, 1, &in, 1, &out), "lg_plan_execute");
                if (i >= 0) t[i] = sample_now_ms() - t0;
            }
            qsort(t, (size_t)runs, sizeof t[0], sample_cmp_double);
            lg_plan_stats st;
            sample_check(lg_plan_stats_get(plan, &st), "lg_plan_stats_get");
            cost[s] = st.model_cost;
            exact |= s == 2 && st.exact;
            printf("%-13s %11.4g%s %9d %10.3f\n", names[s], st.model_cost, st.exact ? "*" : " ",
                   st.runtime_reorders, t[runs / 2]);
            lg_plan_destroy(plan);
        }
        double worst = 0;
        for (size_t i = 0; i < yn; i++)
            for (int s = 1; s < 5; s++) {
                double d = fabs((double)y[s][i] - y[0][i]) / (1.0 + fabs((double)y[0][i]));
                if (!(d <= worst)) worst = d; /* NaN counts as a disagreement */
            }
        bool ok_out = worst <= 1e-4;
        bool ok_search = cost[4] <= cost[1] * (1 + 1e-12) &&
                         (!exact || cost[4] >= cost[2] * (1 - 1e-12)) && searched == cost[4];
        printf("outputs agree: max relative difference %.2e (%s); local search %s\n\n", worst,
               ok_out ? "ok" : "MISMATCH",
               ok_search ? "between OPTIMAL and GREEDY (ok)" : "OUT OF BOUNDS");
        bad |= !ok_out || !ok_search;
        for (int s = 0; s < 5; s++) free(y[s]);
        free(x);
        lg_graph_destroy(g);
    }
    printf("(model cost: lgraph's cost model, byte-equivalents; * = proven minimal)\n");
    return bad;
}
