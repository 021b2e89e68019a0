/* Inner-product and reshape nodes in compiled graphs, against the scalar
 * references of graph_ref.h and one here, under NONE, GREEDY and OPTIMAL,
 * every ISA cap, with optional passes skipped: a classifier head (conv ->
 * flatten -> IP -> relu -> IP), whose flatten must cost no reorder where the
 * conv writes a blocked layout (fold_flatten), and whose relu fuses into
 * the IP; reshapes that are not flattens; shape errors naming the node. */
#include "graph/graph_ref.h"
#include "primitives/cpu.h"

#define ATOL 1e-4f
#define RTOL 1e-4f

static const lg_strategy strategies[] = {LG_STRATEGY_NONE, LG_STRATEGY_GREEDY, LG_STRATEGY_OPTIMAL};
static const char *const disables[] = {NULL, "fuse", "fold_flatten", "fold_constants,plan_memory",
                                       "fold_flatten,fuse,fold_constants,plan_memory"};
#define NDIS ((int)(sizeof disables / sizeof *disables))

/* y = x W^T + b over x's rows flattened (N x K), W OC x K, in double. */
static tensor ref_ip(const tensor *x, const tensor *w, const tensor *b) {
    int64_t n = x->dims[0], k = t_count(x) / n, oc = w->dims[0];
    int64_t dims[2] = {n, oc};
    tensor y = t_new(2, dims);
    for (int64_t i = 0; i < n; i++)
        for (int64_t o = 0; o < oc; o++) {
            double acc = b ? b->d[o] : 0.0;
            for (int64_t j = 0; j < k; j++) acc += (double)x->d[i * k + j] * w->d[o * k + j];
            y.d[i * oc + o] = (float)acc;
        }
    return y;
}

/* Constants W (OC x K, plain) and b (OC), and an IP node. */
static lg_value add_ip(lg_graph *g, lg_value src, int64_t k, int64_t oc, lg_rng *r, tensor *w,
                       tensor *b, const char *name) {
    int64_t wd[2] = {oc, k}, bd[1] = {oc};
    float sc = 1.0f / sqrtf((float)k);
    *w = t_rand(2, wd, r, -sc, sc);
    *b = t_rand(1, bd, r, -0.5f, 0.5f);
    lg_md wmd = md_tag(2, wd, "ab"), bmd = md_tag(1, bd, "a");
    char wn[64], bn[64];
    snprintf(wn, sizeof wn, "%s.w", name);
    snprintf(bn, sizeof bn, "%s.b", name);
    lg_value wv, bv, y;
    cr_assert_eq(lg_graph_add_constant(g, wn, &wmd, w->d, &wv), LG_OK);
    cr_assert_eq(lg_graph_add_constant(g, bn, &bmd, b->d, &bv), LG_OK);
    cr_assert_eq(lg_graph_add_inner_product(g, src, wv, bv, &y), LG_OK, "%s", lg_last_error());
    return y;
}

/* Compile g every way, run on x, compare "y" with want. */
static void check_all(const lg_graph *g, const tensor *x, const tensor *want, const char *what) {
    for (int isa = 0; isa <= (int)lg__cpu_isa_hw(); isa++) {
        lg__cpu_set_isa_cap(isa);
        int ndis = isa == (int)lg__cpu_isa_hw() ? NDIS : 1;
        for (int s = 0; s < 3; s++)
            for (int d = 0; d < ndis; d++) {
                lg_plan *p = compile_with(g, strategies[s], disables[d]);
                const char *in = "x", *out = "y";
                tensor got;
                run_plan(p, 1, &in, x, 1, &out, &got);
                char msg[256];
                snprintf(msg, sizeof msg, "%s, isa %d, %s, disabled %s", what, isa,
                         strategy_name(strategies[s]), disables[d] ? disables[d] : "-");
                t_expect_near(&got, want, ATOL, RTOL, msg);
                t_free(&got);
                lg_plan_destroy(p);
            }
    }
    lg__cpu_set_isa_cap(-1);
}

/* x (N x 3 x 6 x 6) -> conv 3x3 to 20 channels -> flatten -> IP 720->37
 * -> relu -> IP 37->10 -> y. */
static lg_graph *head(int64_t n, lg_rng *r, tensor *x, tensor *want) {
    lg_graph *g;
    cr_assert_eq(lg_graph_create(&g), LG_OK);
    int64_t xd[4] = {n, 3, 6, 6}, wd[4] = {20, 3, 3, 3}, fd[2] = {n, 720};
    *x = t_rand(4, xd, r, -1, 1);
    lg_md xmd = md_tag(4, xd, "nchw"), wmd = md_tag(4, wd, "oihw");
    tensor cw = t_rand(4, wd, r, -0.3f, 0.3f), w1, b1, w2, b2;
    lg_value xv, cwv, c, f, h, h2, y;
    cr_assert_eq(lg_graph_add_input(g, "x", &xmd, &xv), LG_OK);
    cr_assert_eq(lg_graph_add_constant(g, "cw", &wmd, cw.d, &cwv), LG_OK);
    lg_conv_params cp = {.strides = {1, 1}, .pad_l = {1, 1}, .pad_r = {1, 1}, .groups = 1};
    cr_assert_eq(lg_graph_add_conv(g, xv, cwv, LG_NO_VALUE, &cp, &c), LG_OK);
    cr_assert_eq(lg_graph_add_reshape(g, c, 2, fd, &f), LG_OK, "%s", lg_last_error());
    h = add_ip(g, f, 720, 37, r, &w1, &b1, "fc1");
    cr_assert_eq(lg_graph_add_eltwise(g, h, LG_ELTWISE_RELU, 0, 0, &h2), LG_OK);
    y = add_ip(g, h2, 37, 10, r, &w2, &b2, "fc2");
    cr_assert_eq(lg_graph_add_output(g, y, "y", "any"), LG_OK);
    tensor cy = ref_conv2d(x, &cw, NULL, &cp), t1 = ref_ip(&cy, &w1, &b1);
    tensor t2 = ref_relu(&t1, 0);
    *want = ref_ip(&t2, &w2, &b2);
    t_free(&cw), t_free(&w1), t_free(&b1), t_free(&w2), t_free(&b2);
    t_free(&cy), t_free(&t1), t_free(&t2);
    return g;
}

Test(graph_ip, classifier_head_every_strategy) {
    lg_rng r = {0x9a01};
    const int64_t ns[3] = {1, 3, 16};
    for (int i = 0; i < 3; i++) {
        tensor x, want;
        lg_graph *g = head(ns[i], &r, &x, &want);
        check_all(g, &x, &want, "head");
        lg_graph_destroy(g);
        t_free(&x);
        t_free(&want);
    }
}

/* The flatten costs no reorder and the relu fuses: three steps (conv, IP +
 * relu, IP), none a reorder, under GREEDY and OPTIMAL. */
Test(graph_ip, flatten_folds_relu_fuses) {
    lg_rng r = {0x9a02};
    tensor x, want;
    lg_graph *g = head(2, &r, &x, &want);
    for (int s = 1; s < 3; s++) {
        lg_plan *p = compile_with(g, strategies[s], NULL);
        lg_plan_stats st;
        cr_assert_eq(lg_plan_stats_get(p, &st), LG_OK);
        cr_assert_eq(st.runtime_reorders, 0, "%s: %d reorders", strategy_name(strategies[s]),
                     st.runtime_reorders);
        cr_assert_eq(st.steps, 3, "%s: %d steps", strategy_name(strategies[s]), st.steps);
        lg_plan_destroy(p);
        /* Without the fold the flatten is a step of its own. */
        p = compile_with(g, strategies[s], "fold_flatten");
        cr_assert_eq(lg_plan_stats_get(p, &st), LG_OK);
        cr_assert_geq(st.steps, 4);
        lg_plan_destroy(p);
    }
    lg_graph_destroy(g);
    t_free(&x);
    t_free(&want);
}

/* Reshapes that are not flattens: N x 20 x 6 x 6 -> N x 20 x 36 -> N x 720
 * -> N x 2 x 360 (the output), from a conv. */
Test(graph_ip, reshapes) {
    lg_rng r = {0x9a03};
    lg_graph *g;
    cr_assert_eq(lg_graph_create(&g), LG_OK);
    int64_t xd[4] = {2, 3, 6, 6}, wd[4] = {20, 3, 3, 3};
    int64_t r1[3] = {2, 20, 36}, r2[2] = {2, 720}, r3[3] = {2, 2, 360};
    tensor x = t_rand(4, xd, &r, -1, 1), cw = t_rand(4, wd, &r, -0.3f, 0.3f);
    lg_md xmd = md_tag(4, xd, "nchw"), wmd = md_tag(4, wd, "oihw");
    lg_value xv, cwv, c, a, b, y;
    cr_assert_eq(lg_graph_add_input(g, "x", &xmd, &xv), LG_OK);
    cr_assert_eq(lg_graph_add_constant(g, "cw", &wmd, cw.d, &cwv), LG_OK);
    lg_conv_params cp = {.strides = {1, 1}, .pad_l = {1, 1}, .pad_r = {1, 1}, .groups = 1};
    cr_assert_eq(lg_graph_add_conv(g, xv, cwv, LG_NO_VALUE, &cp, &c), LG_OK);
    cr_assert_eq(lg_graph_add_reshape(g, c, 3, r1, &a), LG_OK);
    cr_assert_eq(lg_graph_add_reshape(g, a, 2, r2, &b), LG_OK);
    cr_assert_eq(lg_graph_add_reshape(g, b, 3, r3, &y), LG_OK);
    cr_assert_eq(lg_graph_add_output(g, y, "y", "any"), LG_OK);
    tensor want = ref_conv2d(&x, &cw, NULL, &cp);
    want.nd = 3;
    memcpy(want.dims, r3, sizeof r3);
    check_all(g, &x, &want, "reshapes");
    lg_graph_destroy(g);
    t_free(&x), t_free(&cw), t_free(&want);
}

Test(graph_ip, shape_errors_name_the_node) {
    lg_graph *g;
    cr_assert_eq(lg_graph_create(&g), LG_OK);
    int64_t xd[2] = {4, 8}, wd[2] = {5, 9}, bd[1] = {6}, rd[2] = {3, 11};
    lg_md xmd = md_tag(2, xd, "ab"), wmd = md_tag(2, wd, "ab"), bmd = md_tag(1, bd, "a");
    float buf[64] = {0};
    lg_value x, w, b, y;
    cr_assert_eq(lg_graph_add_input(g, "x", &xmd, &x), LG_OK);
    cr_assert_eq(lg_graph_add_constant(g, "w", &wmd, buf, &w), LG_OK);
    cr_assert_eq(lg_graph_add_constant(g, "b", &bmd, buf, &b), LG_OK);
    cr_assert_eq(lg_graph_add_inner_product(g, x, w, LG_NO_VALUE, &y), LG_INVALID_GRAPH);
    cr_assert(strstr(lg_last_error(), "inner_product") && strstr(lg_last_error(), "weights"), "%s",
              lg_last_error());
    cr_assert_eq(lg_graph_add_inner_product(g, x, x, b, &y), LG_INVALID_GRAPH);
    cr_assert(strstr(lg_last_error(), "bias"), "%s", lg_last_error());
    cr_assert_eq(lg_graph_add_inner_product(NULL, x, x, b, &y), LG_INVALID_ARGUMENT);
    cr_assert_eq(lg_graph_add_inner_product(g, x, 999, b, &y), LG_INVALID_ARGUMENT);
    cr_assert(strstr(lg_last_error(), "weights"), "%s", lg_last_error());
    cr_assert_eq(lg_graph_add_reshape(g, x, 2, rd, &y), LG_INVALID_GRAPH);
    cr_assert(strstr(lg_last_error(), "reshape") && strstr(lg_last_error(), "32 elements"), "%s",
              lg_last_error());
    cr_assert_eq(lg_graph_add_reshape(g, x, 0, rd, &y), LG_INVALID_ARGUMENT);
    cr_assert_eq(lg_graph_add_reshape(g, x, 2, NULL, &y), LG_INVALID_ARGUMENT);
    cr_assert(strstr(lg_last_error(), "dims"), "%s", lg_last_error());
    lg_graph_destroy(g);
}

/* An empty tensor reshaped: dims holding no element are accepted while
 * their strides fit int64 (a 0 counted as 1), else refused by the call
 * itself, with the node named (the graph fuzz target found the md
 * initialiser's own message reaching the user instead). */
Test(graph_ip, reshape_of_an_empty_tensor) {
    lg_graph *g;
    cr_assert_eq(lg_graph_create(&g), LG_OK);
    int64_t xd[2] = {0, 4};
    lg_md xmd = md_tag(2, xd, "ab");
    lg_value x, y;
    cr_assert_eq(lg_graph_add_input(g, "x", &xmd, &x), LG_OK);
    int64_t ok[3] = {0, 1 << 20, 4}, huge[3] = {0, (int64_t)1 << 62, 4};
    cr_assert_eq(lg_graph_add_reshape(g, x, 3, ok, &y), LG_OK, "%s", lg_last_error());
    cr_assert_eq(lg_graph_add_reshape(g, x, 3, huge, &y), LG_INVALID_ARGUMENT);
    const char *msg = lg_last_error();
    cr_assert(strncmp(msg, "lg_graph_add_reshape: ", 22) == 0 && strstr(msg, "(reshape)") &&
                  strstr(msg, "overflows int64"),
              "%s", msg);
    lg_graph_destroy(g);
}

/* A reshape whose input is plain and dies there is a view: no step runs for
 * it (plan_memory gives the result the input's buffer); with plan_memory
 * skipped it is a copy. Both give the same values. */
Test(graph_ip, plain_reshape_is_a_view) {
    lg_rng r = {0x9a04};
    lg_graph *g;
    cr_assert_eq(lg_graph_create(&g), LG_OK);
    int64_t xd[3] = {2, 6, 10}, rd[2] = {12, 10};
    tensor x = t_rand(3, xd, &r, -1, 1);
    lg_md xmd = md_tag(3, xd, "abc");
    lg_value xv, a, b, y;
    cr_assert_eq(lg_graph_add_input(g, "x", &xmd, &xv), LG_OK);
    cr_assert_eq(lg_graph_add_eltwise(g, xv, LG_ELTWISE_RELU, 0, 0, &a), LG_OK);
    cr_assert_eq(lg_graph_add_reshape(g, a, 2, rd, &b), LG_OK);
    cr_assert_eq(lg_graph_add_eltwise(g, b, LG_ELTWISE_LINEAR, 2, 1, &y), LG_OK);
    cr_assert_eq(lg_graph_add_output(g, y, "y", "ab"), LG_OK);
    tensor t = ref_relu(&x, 0), want = ref_linear(&t, 2, 1);
    want.nd = 2;
    memcpy(want.dims, rd, sizeof rd);
    for (int s = 0; s < 3; s++)
        for (int d = 0; d < 2; d++) {
            lg_plan *p = compile_with(g, strategies[s], d ? "plan_memory" : NULL);
            lg_plan_stats st;
            cr_assert_eq(lg_plan_stats_get(p, &st), LG_OK);
            cr_assert_eq(st.steps, d ? 3 : 2, "%s, plan_memory %s: %d steps",
                         strategy_name(strategies[s]), d ? "off" : "on", st.steps);
            const char *in = "x", *out = "y";
            tensor got;
            run_plan(p, 1, &in, &x, 1, &out, &got);
            t_expect_near(&got, &want, 0, 0, "view");
            t_free(&got);
            lg_plan_destroy(p);
        }
    lg_graph_destroy(g);
    t_free(&x), t_free(&t), t_free(&want);
}
