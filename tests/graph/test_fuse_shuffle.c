/* The pass fuse_shuffle_reorder (src/passes/fuse_shuffle_reorder.c): a
 * shuffle and a same-type reorder next to it become one kernel. Each graph
 * runs under NONE, GREEDY and OPTIMAL against a scalar reference (bits equal:
 * shuffles and same-type reorders move bits) and against the same graph
 * compiled with the pass disabled, which must run exactly `fused` more
 * reorders; where the pass must not apply, both run the same reorders. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "graph_ref.h"

static const int64_t dims[4] = {2, 24, 5, 3}; /* C = 24: nChw16c/8c pad nothing/8 */

static lg_plan_stats stats_of(const lg_plan *p) {
    lg_plan_stats s;
    cr_assert_eq(lg_plan_stats_get(p, &s), LG_OK);
    return s;
}

static lg_graph *new_graph(void) {
    lg_graph *g;
    cr_assert_eq(lg_graph_create(&g), LG_OK);
    return g;
}

/* Compile g under every strategy with and without the pass, run both on x
 * (input "x", output "y"), compare with want bit for bit and check that the
 * pass saved `fused[strategy]` runtime reorders (-1: at least none lost). */
static void check_graph(lg_graph *g, const tensor *x, const tensor *want, const int *fused,
                        const char *what) {
    for (int st = 0; st < 3; st++) {
        lg_plan *p = compile_with(g, (lg_strategy)st, NULL);
        lg_plan *q = compile_with(g, (lg_strategy)st, "fuse_shuffle_reorder");
        const char *in = "x", *out = "y";
        tensor got[2];
        run_plan(p, 1, &in, x, 1, &out, &got[0]);
        run_plan(q, 1, &in, x, 1, &out, &got[1]);
        char msg[160];
        snprintf(msg, sizeof msg, "%s, %s, fused", what, strategy_name((lg_strategy)st));
        t_expect_near(&got[0], want, 0, 0, msg);
        snprintf(msg, sizeof msg, "%s, %s, pass disabled", what, strategy_name((lg_strategy)st));
        t_expect_near(&got[1], want, 0, 0, msg);
        int rp = stats_of(p).runtime_reorders, rq = stats_of(q).runtime_reorders;
        if (fused[st] >= 0)
            cr_expect_eq(rq - rp, fused[st], "%s, %s: %d reorders fused, %d without the pass", what,
                         strategy_name((lg_strategy)st), rp, rq);
        else
            cr_expect_leq(rp, rq, "%s, %s", what, strategy_name((lg_strategy)st));
        cr_expect_eq(stats_of(q).steps - stats_of(p).steps, rq - rp, "%s: steps", what);
        t_free(&got[0]);
        t_free(&got[1]);
        lg_plan_destroy(p);
        lg_plan_destroy(q);
    }
}

/* x (nhwc) -> shuffle -> y (nchw): one reorder is needed somewhere (before
 * the shuffle under NONE, after it under GREEDY) and the pass fuses it. */
Test(fuse_shuffle, input_layout_to_output_layout) {
    lg_rng r = {1};
    tensor x = t_rand(4, dims, &r, -1, 1), want = ref_shuffle(&x, 1, 4);
    lg_graph *g = new_graph();
    lg_md xmd = md_tag(4, dims, "nhwc");
    lg_value vx, y;
    cr_assert_eq(lg_graph_add_input(g, "x", &xmd, &vx), LG_OK);
    cr_assert_eq(lg_graph_add_shuffle(g, vx, 1, 4, &y), LG_OK);
    cr_assert_eq(lg_graph_add_output(g, y, "y", "nchw"), LG_OK);
    const int fused[3] = {1, 1, 1};
    check_graph(g, &x, &want, fused, "nhwc -> shuffle -> nchw");
    lg_graph_destroy(g);
    t_free(&x);
    t_free(&want);
}

/* x (nchw) -> explicit reorder nChw16c -> shuffle -> relu -> y (any). */
Test(fuse_shuffle, explicit_reorder_before) {
    lg_rng r = {2};
    tensor x = t_rand(4, dims, &r, -1, 1), s = ref_shuffle(&x, 1, 6), want = ref_relu(&s, 0);
    lg_graph *g = new_graph();
    lg_md xmd = md_tag(4, dims, "nchw"), blk = md_tag(4, dims, "nChw16c");
    lg_value vx, a, b, y;
    cr_assert_eq(lg_graph_add_input(g, "x", &xmd, &vx), LG_OK);
    cr_assert_eq(lg_graph_add_reorder(g, vx, &blk, NULL, &a), LG_OK);
    cr_assert_eq(lg_graph_add_shuffle(g, a, 1, 6, &b), LG_OK);
    cr_assert_eq(lg_graph_add_eltwise(g, b, LG_ELTWISE_RELU, 0, 0, &y), LG_OK);
    cr_assert_eq(lg_graph_add_output(g, y, "y", "any"), LG_OK);
    /* NONE reads the shuffle plain: the explicit reorder and the one back
     * cancel (eliminate_reorders) before this pass sees them. */
    const int fused[3] = {0, 1, 1};
    check_graph(g, &x, &want, fused, "reorder nChw16c -> shuffle");
    lg_graph_destroy(g);
    t_free(&x);
    t_free(&s);
    t_free(&want);
}

/* x (nchw) -> shuffle -> explicit reorder nhwc -> y (any): the shuffle
 * writes the output in nhwc itself. */
Test(fuse_shuffle, explicit_reorder_after_is_output) {
    lg_rng r = {3};
    tensor x = t_rand(4, dims, &r, -1, 1), want = ref_shuffle(&x, 1, 3);
    lg_graph *g = new_graph();
    lg_md xmd = md_tag(4, dims, "nchw"), nhwc = md_tag(4, dims, "nhwc");
    lg_value vx, a, y;
    cr_assert_eq(lg_graph_add_input(g, "x", &xmd, &vx), LG_OK);
    cr_assert_eq(lg_graph_add_shuffle(g, vx, 1, 3, &a), LG_OK);
    cr_assert_eq(lg_graph_add_reorder(g, a, &nhwc, NULL, &y), LG_OK);
    cr_assert_eq(lg_graph_add_output(g, y, "y", "any"), LG_OK);
    const int fused[3] = {1, 1, 1};
    check_graph(g, &x, &want, fused, "shuffle -> reorder nhwc");
    lg_graph_destroy(g);
    t_free(&x);
    t_free(&want);
}

/* x (nhwc) -> reorder nchw -> shuffle -> reorder nChw8c (padded) -> y: both
 * reorders go; the shuffle runs nhwc -> nChw8c. */
Test(fuse_shuffle, both_sides) {
    lg_rng r = {4};
    const int64_t d[4] = {2, 20, 3, 4}; /* nChw8c pads C to 24 */
    tensor x = t_rand(4, d, &r, -1, 1), want = ref_shuffle(&x, 1, 5);
    lg_graph *g = new_graph();
    lg_md xmd = md_tag(4, d, "nhwc"), plain = md_tag(4, d, "nchw"), blk = md_tag(4, d, "nChw8c");
    lg_value vx, a, b, y;
    cr_assert_eq(lg_graph_add_input(g, "x", &xmd, &vx), LG_OK);
    cr_assert_eq(lg_graph_add_reorder(g, vx, &plain, NULL, &a), LG_OK);
    cr_assert_eq(lg_graph_add_shuffle(g, a, 1, 5, &b), LG_OK);
    cr_assert_eq(lg_graph_add_reorder(g, b, &blk, NULL, &y), LG_OK);
    cr_assert_eq(lg_graph_add_output(g, y, "y", "nChw8c"), LG_OK);
    const int fused[3] = {2, 2, 2};
    check_graph(g, &x, &want, fused, "reorder -> shuffle -> reorder");
    lg_graph_destroy(g);
    t_free(&x);
    t_free(&want);
}

/* A strided input (gaps after every row): the shuffle reads it directly. */
Test(fuse_shuffle, strided_input) {
    lg_rng r = {5};
    tensor x = t_rand(4, dims, &r, -1, 1), want = ref_shuffle(&x, 1, 8);
    lg_graph *g = new_graph();
    int64_t w = dims[3] + 2, st[4] = {dims[1] * dims[2] * w, dims[2] * w, w, 1};
    lg_md xmd;
    cr_assert_eq(lg_md_init_strides(&xmd, 4, dims, LG_F32, st), LG_OK);
    lg_value vx, y;
    cr_assert_eq(lg_graph_add_input(g, "x", &xmd, &vx), LG_OK);
    cr_assert_eq(lg_graph_add_shuffle(g, vx, 1, 8, &y), LG_OK);
    cr_assert_eq(lg_graph_add_output(g, y, "y", "nchw"), LG_OK);
    const int fused[3] = {1, 1, -1};
    check_graph(g, &x, &want, fused, "strided -> shuffle");
    lg_graph_destroy(g);
    t_free(&x);
    t_free(&want);
}

/* The reorder's result has another reader (relu), so it must stay; likewise
 * a shuffle result read by an output reorder and by a relu. */
Test(fuse_shuffle, not_when_shared) {
    lg_rng r = {6};
    tensor x = t_rand(4, dims, &r, -1, 1), s = ref_shuffle(&x, 1, 4), rx = ref_relu(&x, 0);
    tensor want = t_new(4, dims);
    for (int64_t i = 0; i < t_count(&x); i++) want.d[i] = s.d[i] + rx.d[i];
    /* x -> reorder nChw16c (a) -> shuffle -> add(., relu(a)) -> y */
    lg_graph *g = new_graph();
    lg_md xmd = md_tag(4, dims, "nchw"), blk = md_tag(4, dims, "nChw16c");
    lg_value vx, a, b, c, y;
    cr_assert_eq(lg_graph_add_input(g, "x", &xmd, &vx), LG_OK);
    cr_assert_eq(lg_graph_add_reorder(g, vx, &blk, NULL, &a), LG_OK);
    cr_assert_eq(lg_graph_add_shuffle(g, a, 1, 4, &b), LG_OK);
    cr_assert_eq(lg_graph_add_eltwise(g, a, LG_ELTWISE_RELU, 0, 0, &c), LG_OK);
    cr_assert_eq(lg_graph_add_binary(g, LG_BINARY_ADD, b, c, &y), LG_OK);
    cr_assert_eq(lg_graph_add_output(g, y, "y", "any"), LG_OK);
    const int none[3] = {0, 0, 0};
    check_graph(g, &x, &want, none, "shared reorder result");
    lg_graph_destroy(g);

    /* x (nhwc) -> shuffle (b) -> y (nchw: a reorder) ; b -> relu -> z */
    g = new_graph();
    xmd = md_tag(4, dims, "nhwc");
    cr_assert_eq(lg_graph_add_input(g, "x", &xmd, &vx), LG_OK);
    cr_assert_eq(lg_graph_add_shuffle(g, vx, 1, 4, &b), LG_OK);
    cr_assert_eq(lg_graph_add_eltwise(g, b, LG_ELTWISE_RELU, 0, 0, &c), LG_OK);
    cr_assert_eq(lg_graph_add_output(g, b, "y", "nchw"), LG_OK);
    cr_assert_eq(lg_graph_add_output(g, c, "z", "nhwc"), LG_OK);
    for (int st = 1; st < 3; st++) { /* GREEDY and OPTIMAL keep nhwc for the relu */
        lg_plan *p = compile_with(g, (lg_strategy)st, NULL);
        lg_plan *q = compile_with(g, (lg_strategy)st, "fuse_shuffle_reorder");
        const char *in = "x", *outs[2] = {"y", "z"};
        tensor got[2];
        run_plan(p, 1, &in, &x, 2, outs, got);
        t_expect_near(&got[0], &s, 0, 0, "y");
        tensor rs = ref_relu(&s, 0);
        t_expect_near(&got[1], &rs, 0, 0, "z");
        cr_expect_eq(stats_of(p).runtime_reorders, stats_of(q).runtime_reorders, "%s",
                     strategy_name((lg_strategy)st));
        t_free(&rs);
        for (int i = 0; i < 2; i++) t_free(&got[i]);
        lg_plan_destroy(p);
        lg_plan_destroy(q);
    }
    lg_graph_destroy(g);
    t_free(&x);
    t_free(&s);
    t_free(&rx);
    t_free(&want);
}

/* Round to bf16 and back (round to nearest even; the test data is finite). */
static float via_bf16(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    u += 0x7fffu + ((u >> 16) & 1u);
    u &= 0xffff0000u;
    memcpy(&f, &u, 4);
    return f;
}

/* Reorders that change the type stay: x -> reorder bf16 nChw16c -> shuffle
 * -> reorder f32 nchw -> y. */
Test(fuse_shuffle, not_across_types) {
    lg_rng r = {7};
    tensor x = t_rand(4, dims, &r, -1, 1), want = ref_shuffle(&x, 1, 2);
    for (int64_t i = 0; i < t_count(&want); i++) want.d[i] = via_bf16(want.d[i]);
    lg_graph *g = new_graph();
    lg_md xmd = md_tag(4, dims, "nchw"), half, back = md_tag(4, dims, "nchw");
    cr_assert_eq(lg_md_init_tag(&half, 4, dims, LG_BF16, "nChw16c"), LG_OK);
    lg_value vx, a, b, y;
    cr_assert_eq(lg_graph_add_input(g, "x", &xmd, &vx), LG_OK);
    cr_assert_eq(lg_graph_add_reorder(g, vx, &half, NULL, &a), LG_OK);
    cr_assert_eq(lg_graph_add_shuffle(g, a, 1, 2, &b), LG_OK);
    cr_assert_eq(lg_graph_add_reorder(g, b, &back, NULL, &y), LG_OK);
    cr_assert_eq(lg_graph_add_output(g, y, "y", "nchw"), LG_OK);
    /* NONE reads the shuffle in bf16 nchw: the reorder bf16 nChw16c -> bf16
     * nchw it inserts keeps the type and is fused; no other one is. */
    const int fused[3] = {1, 0, 0};
    check_graph(g, &x, &want, fused, "type-changing reorders");
    lg_graph_destroy(g);
    t_free(&x);
    t_free(&want);
}

/* LG_DISABLE_PASSES names the pass too; an unknown name lists it. */
Test(fuse_shuffle, disabled_by_environment) {
    lg_rng r = {8};
    tensor x = t_rand(4, dims, &r, -1, 1), want = ref_shuffle(&x, 1, 4);
    lg_graph *g = new_graph();
    lg_md xmd = md_tag(4, dims, "nhwc");
    lg_value vx, y;
    cr_assert_eq(lg_graph_add_input(g, "x", &xmd, &vx), LG_OK);
    cr_assert_eq(lg_graph_add_shuffle(g, vx, 1, 4, &y), LG_OK);
    cr_assert_eq(lg_graph_add_output(g, y, "y", "nchw"), LG_OK);
    lg_plan *p = compile_with(g, LG_STRATEGY_GREEDY, NULL);
    setenv("LG_DISABLE_PASSES", "fuse_shuffle_reorder", 1);
    lg_plan *q = compile_with(g, LG_STRATEGY_GREEDY, NULL);
    unsetenv("LG_DISABLE_PASSES");
    cr_expect_eq(stats_of(p).runtime_reorders, 0);
    cr_expect_eq(stats_of(q).runtime_reorders, 1);
    const char *in = "x", *out = "y";
    tensor got;
    run_plan(q, 1, &in, &x, 1, &out, &got);
    t_expect_near(&got, &want, 0, 0, "disabled by LG_DISABLE_PASSES");
    t_free(&got);
    lg_compile_options o;
    lg_compile_options_init(&o);
    o.disable_passes = "fuse_shufle";
    lg_plan *bad = NULL;
    cr_assert_eq(lg_graph_compile(g, &o, &bad), LG_INVALID_ARGUMENT);
    cr_expect(strstr(lg_last_error(), "fuse_shuffle_reorder"), "%s", lg_last_error());
    lg_plan_destroy(p);
    lg_plan_destroy(q);
    lg_graph_destroy(g);
    t_free(&x);
    t_free(&want);
}
