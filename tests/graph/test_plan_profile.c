/* lg_plan_profile: one entry per step with the node kind, kernel, layer
 * class, bytes, flops (convs checked against the hand-computed count),
 * model cost and a median time; the outputs are those of lg_plan_execute;
 * bad arguments are refused naming the function and the argument. */
#include "common/common.h"
#include "graph_ref.h"

#include <math.h>

static const int64_t xd[4] = {2, 3, 16, 16};

static lg_value add_conv(lg_graph *g, lg_value x, int64_t ic, int64_t oc, int64_t k, int64_t groups,
                         lg_rng *r, const char *name) {
    int64_t wd5[5] = {groups, oc / groups, ic / groups, k, k}, wd4[4] = {oc, ic, k, k};
    lg_md wmd = groups > 1 ? md_tag(5, wd5, "goihw") : md_tag(4, wd4, "oihw");
    tensor w = groups > 1 ? t_rand(5, wd5, r, -0.5f, 0.5f) : t_rand(4, wd4, r, -0.5f, 0.5f);
    lg_value wv, y;
    cr_assert_eq(lg_graph_add_constant(g, name, &wmd, w.d, &wv), LG_OK, "%s", lg_last_error());
    t_free(&w);
    lg_conv_params p = {.groups = groups};
    for (int d = 0; d < 2; d++) {
        p.strides[d] = 1;
        p.pad_l[d] = p.pad_r[d] = k / 2;
    }
    cr_assert_eq(lg_graph_add_conv(g, x, wv, LG_NO_VALUE, &p, &y), LG_OK, "%s", lg_last_error());
    return y;
}

/* x(nchw 2x3x16x16) -> conv 3x3 3->16 -> relu -> conv 1x1 16->16 -> max
 * pool 2x2 s2 -> depthwise 3x3 -> conv 3x3 16->8 -> softmax(axis 1) ->
 * y (nchw). */
static lg_graph *small_net(void) {
    lg_graph *g;
    cr_assert_eq(lg_graph_create(&g), LG_OK);
    lg_rng r = {24};
    lg_md xmd = md_tag(4, xd, "nchw");
    lg_value x, v;
    cr_assert_eq(lg_graph_add_input(g, "x", &xmd, &x), LG_OK);
    v = add_conv(g, x, 3, 16, 3, 1, &r, "w0");
    cr_assert_eq(lg_graph_add_eltwise(g, v, LG_ELTWISE_RELU, 0, 0, &v), LG_OK);
    v = add_conv(g, v, 16, 16, 1, 1, &r, "w1");
    lg_pool_params pp = {
        .alg = LG_POOL_MAX, .kernel = {2, 2}, .strides = {2, 2}, .pad_l = {0, 0}, .pad_r = {0, 0}};
    cr_assert_eq(lg_graph_add_pool(g, v, &pp, &v), LG_OK, "%s", lg_last_error());
    v = add_conv(g, v, 16, 16, 3, 16, &r, "w2");
    v = add_conv(g, v, 16, 8, 3, 1, &r, "w3");
    cr_assert_eq(lg_graph_add_softmax(g, v, LG_SOFTMAX, 1, &v), LG_OK, "%s", lg_last_error());
    cr_assert_eq(lg_graph_add_output(g, v, "y", "nchw"), LG_OK);
    return g;
}

/* Hand count: 2 * N * OC * OH * OW * (IC / G) * KH * KW. */
static double conv_flops(int64_t hw, int64_t ic, int64_t oc, int64_t k, int64_t g) {
    return 2.0 * 2 * (double)oc * (double)(hw * hw) * (double)(ic / g) * (double)(k * k);
}

Test(plan_profile, reports_every_step) {
    lg_graph *g = small_net();
    for (int s = LG_STRATEGY_NONE; s <= LG_STRATEGY_OPTIMAL; s++) {
        lg_plan *p = compile_with(g, (lg_strategy)s, NULL);
        lg_plan_stats ps;
        cr_assert_eq(lg_plan_stats_get(p, &ps), LG_OK);
        lg_rng r = {7};
        tensor x = t_rand(4, xd, &r, -1, 1);
        lg_md xmd, ymd;
        cr_assert_eq(lg_plan_query_md(p, "x", &xmd), LG_OK);
        cr_assert_eq(lg_plan_query_md(p, "y", &ymd), LG_OK);
        void *xb = t_pack(&x, &xmd), *y0 = t_garbage(&ymd), *y1 = t_garbage(&ymd);
        lg_binding in = {"x", xb}, out0 = {"y", y0}, out1 = {"y", y1};
        cr_assert_eq(lg_plan_execute(p, 1, &in, 1, &out0), LG_OK, "%s", lg_last_error());
        lg_step_profile *st = calloc((size_t)ps.steps + 1, sizeof *st);
        cr_assert_eq(lg_plan_profile(p, 1, &in, 1, &out1, 5, st, ps.steps + 1), LG_OK, "%s",
                     lg_last_error());
        /* The profiled runs compute what an execute computes. */
        cr_expect_eq(memcmp(y0, y1, lg_md_size(&ymd)), 0, "%s", strategy_name(s));
        int convs = 0, classes[LG_LAYER_CLASS_COUNT] = {0};
        double sum_ms = 0;
        /* The four convs, in order: first, 1x1, depthwise, 3x3. */
        const double flops[4] = {conv_flops(16, 3, 16, 3, 1), conv_flops(16, 16, 16, 1, 1),
                                 conv_flops(8, 16, 16, 3, 16), conv_flops(8, 16, 8, 3, 1)};
        const lg_layer_class want[4] = {LG_LAYER_FIRST_CONV, LG_LAYER_CONV_1X1, LG_LAYER_DEPTHWISE,
                                        LG_LAYER_CONV_KXK};
        for (int i = 0; i < ps.steps; i++) {
            const lg_step_profile *e = &st[i];
            const char *sn = strategy_name(s);
            cr_assert(e->node_kind != NULL);
            cr_expect(e->impl[0] != '\0', "%s step %d: no impl", sn, i);
            cr_expect(strstr(e->layouts, "src:") && strstr(e->layouts, "dst:"),
                      "%s step %d: layouts '%s'", sn, i, e->layouts);
            cr_expect(strncmp(e->impl, e->node_kind, strlen(e->node_kind)) == 0 ||
                          strcmp(e->node_kind, "reorder") == 0,
                      "%s step %d: impl %s of a %s node", sn, i, e->impl, e->node_kind);
            cr_expect(e->ms >= 0 && isfinite(e->ms), "%s step %d: %g ms", sn, i, e->ms);
            cr_expect_gt(e->bytes, 0, "%s step %d", sn, i);
            /* Predicted ns: no step moves more than 1 TB/s. */
            cr_expect_geq(e->model_cost, (double)e->bytes * 1e-3, "%s step %d", sn, i);
            cr_expect(fabs(e->model_ms - e->model_cost * 1e-6) <= 1e-12 + 1e-9 * e->model_ms,
                      "%s step %d", sn, i);
            cr_assert(e->layer_class >= 0 && e->layer_class < LG_LAYER_CLASS_COUNT);
            classes[e->layer_class]++;
            sum_ms += e->ms;
            if (strcmp(e->node_kind, "conv") == 0) {
                cr_assert_lt(convs, 4, "%s: more than four convs", sn);
                cr_expect_eq(e->flops, flops[convs], "%s conv %d: %g flops, want %g", sn, convs,
                             e->flops, flops[convs]);
                cr_expect_eq(e->layer_class, want[convs], "%s conv %d: class %s", sn, convs,
                             lg_layer_class_name(e->layer_class));
                /* No core runs 1 TFLOP/s: at least 1e-3 ns per flop. */
                cr_expect_gt(e->model_cost, e->flops * 1e-3, "%s conv %d", sn, convs);
                convs++;
            } else if (strcmp(e->node_kind, "reorder") == 0) {
                cr_expect_eq(e->flops, 0, "%s step %d", sn, i);
                cr_expect_eq(e->layer_class, LG_LAYER_REORDER, "%s step %d", sn, i);
            } else if (strcmp(e->node_kind, "pool") == 0) {
                cr_expect_eq(e->layer_class, LG_LAYER_POOLING, "%s step %d", sn, i);
            } else if (strcmp(e->node_kind, "softmax") == 0) {
                cr_expect_eq(e->layer_class, LG_LAYER_HEAD, "%s step %d", sn, i);
            }
        }
        cr_expect_eq(convs, 4, "%s", strategy_name(s));
        cr_expect_eq(classes[LG_LAYER_POOLING], 1);
        cr_expect_eq(classes[LG_LAYER_HEAD], 1);
        /* The relu is a post-op of the first conv: no eltwise step. */
        cr_expect_eq(classes[LG_LAYER_ELTWISE], 0, "%s", strategy_name(s));
        cr_expect_eq(classes[LG_LAYER_REORDER], ps.runtime_reorders, "%s", strategy_name(s));
        /* Order of magnitude only (the machine may be loaded): a step sum
         * is no more than a very generous multiple of whole runs. */
        double t0 = lg__now_ms();
        for (int k = 0; k < 5; k++) cr_assert_eq(lg_plan_execute(p, 1, &in, 1, &out0), LG_OK);
        double whole = (lg__now_ms() - t0) / 5;
        cr_expect(sum_ms <= 50 * whole + 50, "%s: steps sum to %g ms, a run takes %g ms",
                  strategy_name(s), sum_ms, whole);
        free(st);
        free(xb);
        free(y0);
        free(y1);
        t_free(&x);
        lg_plan_destroy(p);
    }
    lg_graph_destroy(g);
}

Test(plan_profile, bad_arguments_name_the_argument) {
    lg_graph *g = small_net();
    lg_plan *p = compile_with(g, LG_STRATEGY_GREEDY, NULL);
    lg_plan_stats ps;
    cr_assert_eq(lg_plan_stats_get(p, &ps), LG_OK);
    lg_md xmd, ymd;
    cr_assert_eq(lg_plan_query_md(p, "x", &xmd), LG_OK);
    cr_assert_eq(lg_plan_query_md(p, "y", &ymd), LG_OK);
    void *xb = calloc(1, lg_md_size(&xmd)), *yb = calloc(1, lg_md_size(&ymd));
    lg_binding in = {"x", xb}, out = {"y", yb}, bad = {"z", yb};
    lg_step_profile st[32];
    cr_assert_lt(ps.steps, 32);
    struct {
        lg_status s;
        const char *what;
    } cases[] = {
        {lg_plan_profile(NULL, 1, &in, 1, &out, 1, st, 32), "plan"},
        {lg_plan_profile(p, 1, &in, 1, &out, 1, NULL, 32), "steps"},
        {lg_plan_profile(p, 1, &in, 1, &out, 0, st, 32), "runs"},
        {lg_plan_profile(p, 1, &in, 1, &out, 100001, st, 32), "runs"},
        {lg_plan_profile(p, 1, &in, 1, &out, 1, st, ps.steps - 1), "capacity"},
        {lg_plan_profile(p, 1, &in, 1, &bad, 1, st, 32), "'z'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        cr_expect_eq(cases[i].s, LG_INVALID_ARGUMENT, "case %zu", i);
    }
    /* Each message names the function and the argument. */
    lg_plan_profile(p, 1, &in, 1, &out, 1, st, ps.steps - 1);
    cr_expect(strstr(lg_last_error(), "lg_plan_profile") && strstr(lg_last_error(), "capacity"),
              "%s", lg_last_error());
    lg_plan_profile(p, 1, &in, 1, &bad, 1, st, 32);
    cr_expect(strstr(lg_last_error(), "lg_plan_profile") && strstr(lg_last_error(), "'z'"), "%s",
              lg_last_error());
    cr_expect_eq(lg_plan_profile(p, 1, &in, 1, &out, 1, st, ps.steps), LG_OK, "%s",
                 lg_last_error());
    free(xb);
    free(yb);
    lg_plan_destroy(p);
    lg_graph_destroy(g);
}

Test(plan_profile, layer_class_names) {
    cr_expect_str_eq(lg_layer_class_name(LG_LAYER_FIRST_CONV), "first_conv");
    cr_expect_str_eq(lg_layer_class_name(LG_LAYER_DEPTHWISE), "depthwise");
    cr_expect_str_eq(lg_layer_class_name(LG_LAYER_HEAD), "head");
    cr_expect_str_eq(lg_layer_class_name(LG_LAYER_OTHER), "other");
    cr_expect_str_eq(lg_layer_class_name(LG_LAYER_CLASS_COUNT), "unknown");
    cr_expect_str_eq(lg_layer_class_name((lg_layer_class)-1), "unknown");
    for (int c = 0; c < LG_LAYER_CLASS_COUNT; c++)
        cr_expect(lg_layer_class_name((lg_layer_class)c)[0] != '\0');
}
