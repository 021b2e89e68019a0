/* The hostile-input sweep, graph half: builder parameters, value ids,
 * compile options (strategies, thread counts, pass lists) and plan
 * execution (binding counts, names, odd addresses), each from the extreme
 * values of extremes.h. See test_sweep.c for the rules every case obeys. */
#include "robustness/extremes.h"
#include "robustness/sweep.h"

#include <stdlib.h>

/* x (nchw f32 1x8x6x6) -> conv 3x3 -> relu -> y. */
static lg_graph *small_graph(void) {
    lg_graph *g;
    cr_assert_eq(lg_graph_create(&g), LG_OK);
    int64_t xd[4] = {1, 8, 6, 6}, wd[4] = {8, 8, 3, 3};
    lg_md x, w;
    lg_md_init_tag(&x, 4, xd, LG_F32, "nchw");
    lg_md_init_tag(&w, 4, wd, LG_F32, "oihw");
    float *wdata = calloc(1, lg_md_size(&w));
    lg_value vx, vw, c, r;
    cr_assert_eq(lg_graph_add_input(g, "x", &x, &vx), LG_OK);
    cr_assert_eq(lg_graph_add_constant(g, "w", &w, wdata, &vw), LG_OK);
    free(wdata);
    lg_conv_params p = {.strides = {1, 1}, .pad_l = {1, 1}, .pad_r = {1, 1}, .groups = 1};
    cr_assert_eq(lg_graph_add_conv(g, vx, vw, LG_NO_VALUE, &p, &c), LG_OK);
    cr_assert_eq(lg_graph_add_eltwise(g, c, LG_ELTWISE_RELU, 0, 0, &r), LG_OK);
    cr_assert_eq(lg_graph_add_output(g, r, "y", "nchw"), LG_OK);
    return g;
}

Test(robustness, graph_builders) {
    char what[128];
    lg_graph *g;
    cr_assert_eq(lg_graph_create(&g), LG_OK);
    int64_t xd[4] = {2, 16, 5, 5}, wd[4] = {16, 16, 3, 3};
    lg_md x, w;
    lg_md_init_tag(&x, 4, xd, LG_F32, "any");
    lg_md_init_tag(&w, 4, wd, LG_F32, "oihw");
    float *wdata = calloc(1, lg_md_size(&w));
    lg_value vx, vw, v;
    cr_assert_eq(lg_graph_add_input(g, "x", &x, &vx), LG_OK);
    cr_assert_eq(lg_graph_add_constant(g, "w", &w, wdata, &vw), LG_OK);
    free(wdata);
    const char *geo = "stride|dilate|padding|groups|geometry|kernel|channels|weights|output";
    for (int f = 0; f < 9; f++)
        for (int i = 0; i < LG_NX64; i++) {
            lg_conv_params p = {.strides = {1, 1, 1}, .groups = 1};
            int64_t *slot = f == 8  ? &p.groups
                            : f < 2 ? &p.strides[f]
                            : f < 4 ? &p.dilates[f - 2]
                            : f < 6 ? &p.pad_l[f - 4]
                                    : &p.pad_r[f - 6];
            *slot = lg_x64[i];
            snprintf(what, sizeof what, "conv field %d = %lld", f, (long long)lg_x64[i]);
            sweep_check(lg_graph_add_conv(g, vx, vw, LG_NO_VALUE, &p, &v), "lg_graph_add_conv", geo,
                        what);
        }
    /* Pads and dilations whose sums or products pass INT64_MAX (issue 23). */
    const int64_t big[][2] = {{INT64_MAX, 0},
                              {(int64_t)1 << 62, (int64_t)1 << 62},
                              {INT64_MAX - 2, 3},
                              {INT64_MAX / 2, INT64_MAX / 2 + 2}};
    for (int i = 0; i < 4; i++) {
        lg_conv_params p = {.strides = {1, 1}, .groups = 1};
        p.pad_l[1] = big[i][0];
        p.pad_r[1] = big[i][1];
        snprintf(what, sizeof what, "pads %lld/%lld", (long long)big[i][0], (long long)big[i][1]);
        sweep_check(lg_graph_add_conv(g, vx, vw, LG_NO_VALUE, &p, &v), "lg_graph_add_conv", geo,
                    what);
        p.pad_l[1] = p.pad_r[1] = 0;
        p.dilates[0] = big[i][0];
        sweep_check(lg_graph_add_conv(g, vx, vw, LG_NO_VALUE, &p, &v), "lg_graph_add_conv", geo,
                    what);
    }
    for (int a = 0; a < LG_NXINT; a++) {
        snprintf(what, sizeof what, "axis / alg %d", lg_xint[a]);
        for (int i = 0; i < LG_NX64; i++)
            sweep_check(lg_graph_add_shuffle(g, vx, lg_xint[a], lg_x64[i], &v),
                        "lg_graph_add_shuffle", "axis|group_size", what);
        sweep_check(lg_graph_add_eltwise(g, vx, (lg_eltwise_alg)lg_xint[a], 0, 0, &v),
                    "lg_graph_add_eltwise", "alg", what);
        sweep_check(lg_graph_add_binary(g, (lg_binary_alg)lg_xint[a], vx, vx, &v),
                    "lg_graph_add_binary", "alg", what);
    }
    /* Value ids that do not exist. */
    const lg_value ids[] = {LG_NO_VALUE, LG_NO_VALUE - 1, 1u << 31, 1u << 20, 100000};
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
        snprintf(what, sizeof what, "value %u", ids[i]);
        lg_conv_params p = {.strides = {1, 1}, .groups = 1};
        sweep_check(lg_graph_add_conv(g, ids[i], vw, LG_NO_VALUE, &p, &v), "lg_graph_add_conv",
                    "src", what);
        sweep_check(lg_graph_add_eltwise(g, ids[i], LG_ELTWISE_RELU, 0, 0, &v),
                    "lg_graph_add_eltwise", "src", what);
        sweep_check(lg_graph_add_binary(g, LG_BINARY_ADD, vx, ids[i], &v), "lg_graph_add_binary",
                    "src1", what);
        sweep_check(lg_graph_add_shuffle(g, ids[i], 1, 1, &v), "lg_graph_add_shuffle", "src", what);
        sweep_check(lg_graph_add_reorder(g, ids[i], &w, NULL, &v), "lg_graph_add_reorder", "src",
                    what);
        sweep_check(lg_graph_add_output(g, ids[i], "o", "any"), "lg_graph_add_output", "value",
                    what);
    }
    /* Input mds of extreme dims (an "any" md filled by hand past the
     * constructor's checks). */
    for (int i = 0; i < LG_NX64; i++) {
        lg_md m = x;
        m.dims[3] = m.padded_dims[3] = lg_x64[i];
        char name[32];
        snprintf(name, sizeof name, "in%d", i);
        snprintf(what, sizeof what, "input dims[3] = %lld", (long long)lg_x64[i]);
        sweep_check(lg_graph_add_input(g, name, &m, &v), "lg_graph_add_input", "md", what);
    }
    const char *tags[] = {"",  "abcdefghijklm", "aBcd0b", "aBcd-1b", "aBcd99999999999999999999b",
                          "x", "nChw16c",       "any"};
    for (size_t i = 0; i < sizeof tags / sizeof tags[0]; i++) {
        char name[32];
        snprintf(name, sizeof name, "out%zu", i);
        snprintf(what, sizeof what, "output tag '%s'", tags[i]);
        sweep_check(lg_graph_add_output(g, vx, name, tags[i]), "lg_graph_add_output", "tag", what);
    }
    lg_graph_destroy(g);
    sweep_report("graph builders");
}

Test(robustness, compile_and_execute) {
    char what[128];
    lg_graph *g = small_graph();
    size_t bytes = 8 * 6 * 6 * sizeof(float);
    unsigned char *xb = aligned_alloc(64, bytes + 64), *yb = aligned_alloc(64, bytes + 64);
    memset(xb, 0, bytes + 64);
    for (int v = 0; v < LG_NXINT; v++) {
        lg_compile_options o;
        lg_compile_options_init(&o);
        o.strategy = (lg_strategy)lg_xint[v];
        snprintf(what, sizeof what, "strategy %d", lg_xint[v]);
        lg_plan *plan;
        if (sweep_check(lg_graph_compile(g, &o, &plan), "lg_graph_compile", "strategy", what) ==
            LG_OK)
            lg_plan_destroy(plan);
        lg_compile_options_init(&o);
        o.num_threads = lg_xint[v];
        snprintf(what, sizeof what, "num_threads %d", lg_xint[v]);
        if (sweep_check(lg_graph_compile(g, &o, &plan), "lg_graph_compile", "num_threads", what) !=
            LG_OK)
            continue;
        if (lg_xint[v] <= 64) { /* a plan with a valid thread count runs */
            lg_binding in = {"x", xb}, out = {"y", yb};
            cr_assert_eq(lg_plan_execute(plan, 1, &in, 1, &out), LG_OK, "%s: %s", what,
                         lg_last_error());
        }
        lg_plan_destroy(plan);
    }
    const char *lists[] = {"",
                           ",",
                           "fuse,,fuse",
                           "nosuchpass",
                           "insert_reorders",
                           "fuse\n",
                           "eliminate_reorders,propagate"};
    for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++) {
        lg_compile_options o;
        lg_compile_options_init(&o);
        o.disable_passes = lists[i];
        snprintf(what, sizeof what, "disable_passes '%s'", lists[i]);
        lg_plan *plan;
        if (sweep_check(lg_graph_compile(g, &o, &plan), "lg_graph_compile", "disable_passes",
                        what) == LG_OK)
            lg_plan_destroy(plan);
    }
    lg_plan *plan;
    cr_assert_eq(lg_graph_compile(g, NULL, &plan), LG_OK);
    for (int v = 0; v < LG_NXINT; v++) {
        snprintf(what, sizeof what, "nin / nout %d", lg_xint[v]);
        lg_binding in = {"x", xb}, out = {"y", yb};
        sweep_check(lg_plan_execute(plan, lg_xint[v], NULL, 1, &out), "lg_plan_execute", "input",
                    what);
        sweep_check(lg_plan_execute(plan, 1, &in, lg_xint[v], NULL), "lg_plan_execute", "output",
                    what);
    }
    for (int o = 0; o < LG_NXOFF; o++)
        for (int side = 0; side < 2; side++) {
            lg_binding in = {"x", xb + (side ? 0 : lg_xoff[o])},
                       out = {"y", yb + (side ? lg_xoff[o] : 0)};
            snprintf(what, sizeof what, "%s at +%d", side ? "output" : "input", lg_xoff[o]);
            lg_status s = sweep_check(lg_plan_execute(plan, 1, &in, 1, &out), "lg_plan_execute",
                                      side ? "output 'y'" : "input 'x'", what);
            cr_assert_eq(s, lg_xoff[o] % 4 ? LG_INVALID_ARGUMENT : LG_OK, "%s: %s", what,
                         lg_last_error());
        }
    const char *names[] = {"", "X", "x ", "y\n", "xx"};
    FILE *sink = fopen("/dev/null", "w");
    cr_assert(sink);
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        lg_md md;
        snprintf(what, sizeof what, "name '%s'", names[i]);
        sweep_check(lg_plan_query_md(plan, names[i], &md), "lg_plan_query_md", "name|no input",
                    what);
        sweep_check(lg_plan_dump(plan, sink, names[i]), "lg_plan_dump", "format", what);
    }
    fclose(sink);
    lg_plan_destroy(plan);
    lg_graph_destroy(g);
    free(xb);
    free(yb);
    sweep_report("compile and execute");
}
