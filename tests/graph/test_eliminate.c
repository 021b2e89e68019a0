/* The elimination passes (src/passes/eliminate_shuffles.c,
 * eliminate_reorders.c): what they remove, what they must keep, and that
 * results are unchanged; each checked against the same graph compiled with
 * the pass disabled and against a scalar reference. */
#include <criterion/criterion.h>
#include <string.h>

#include "graph_ref.h"

static const int64_t dims[4] = {2, 24, 5, 3};

static lg_plan_stats stats_of(const lg_plan *p) {
    lg_plan_stats s;
    cr_assert_eq(lg_plan_stats_get(p, &s), LG_OK);
    return s;
}

/* x -> shuffle(g1) -> shuffle(g2) -> relu -> y, optionally with the middle
 * value as an output too. */
static lg_graph *shuffle_pair(int64_t g1, int64_t g2, bool middle_out) {
    lg_graph *g;
    cr_assert_eq(lg_graph_create(&g), LG_OK);
    lg_md xmd = md_tag(4, dims, "nchw");
    lg_value x, a, b, y;
    cr_assert_eq(lg_graph_add_input(g, "x", &xmd, &x), LG_OK);
    cr_assert_eq(lg_graph_add_shuffle(g, x, 1, g1, &a), LG_OK);
    cr_assert_eq(lg_graph_add_shuffle(g, a, 1, g2, &b), LG_OK);
    cr_assert_eq(lg_graph_add_eltwise(g, b, LG_ELTWISE_RELU, 0, 0, &y), LG_OK);
    cr_assert_eq(lg_graph_add_output(g, y, "y", "nchw"), LG_OK);
    if (middle_out) cr_assert_eq(lg_graph_add_output(g, a, "a", "nchw"), LG_OK);
    return g;
}

Test(eliminate, inverse_shuffles_disappear) {
    lg_rng r = {1};
    tensor x = t_rand(4, dims, &r, -1, 1);
    /* group 4 then 24/4 = 6 is the identity; 4 then 4 is not. */
    const int64_t second[2] = {6, 4};
    for (int k = 0; k < 2; k++)
        for (int mid = 0; mid < 2; mid++)
            for (int st = 0; st < 3; st++) {
                lg_graph *g = shuffle_pair(4, second[k], mid);
                tensor a = ref_shuffle(&x, 1, 4), b = ref_shuffle(&a, 1, second[k]);
                tensor want = ref_relu(&b, 0);
                const char *in = "x", *outs[2] = {"y", "a"};
                tensor got[2];
                lg_plan *p = compile_with(g, (lg_strategy)st, NULL);
                lg_plan *q = compile_with(g, (lg_strategy)st, "eliminate_shuffles");
                run_plan(p, 1, &in, &x, 1 + mid, outs, got);
                t_expect_near(&got[0], &want, 0, 0, "y");
                if (mid) t_expect_near(&got[1], &a, 0, 0, "a");
                int steps = stats_of(p).steps, all = stats_of(q).steps;
                int kept = k == 1 ? 3 : mid ? 2 : 1; /* relu, plus shuffles still needed */
                cr_expect_eq(steps - stats_of(p).runtime_reorders, kept,
                             "second %lld, middle output %d, strategy %d", (long long)second[k],
                             mid, st);
                cr_expect_eq(all - stats_of(q).runtime_reorders, 3);
                for (int i = 0; i < 1 + mid; i++) t_free(&got[i]);
                t_free(&a);
                t_free(&b);
                t_free(&want);
                lg_plan_destroy(p);
                lg_plan_destroy(q);
                lg_graph_destroy(g);
            }
    t_free(&x);
}

/* x(nchw) -> reorder nhwc -> reorder nChw8c -> relu -> y (any): the chain
 * merges into one reorder, and the nhwc step goes. */
Test(eliminate, reorder_chain_merges) {
    lg_rng r = {2};
    tensor x = t_rand(4, dims, &r, -1, 1), want = ref_relu(&x, 0);
    lg_graph *g;
    cr_assert_eq(lg_graph_create(&g), LG_OK);
    lg_md xmd = md_tag(4, dims, "nchw"), nhwc = md_tag(4, dims, "nhwc"),
          blk = md_tag(4, dims, "nChw8c");
    lg_value vx, a, b, y;
    cr_assert_eq(lg_graph_add_input(g, "x", &xmd, &vx), LG_OK);
    cr_assert_eq(lg_graph_add_reorder(g, vx, &nhwc, NULL, &a), LG_OK);
    cr_assert_eq(lg_graph_add_reorder(g, a, &blk, NULL, &b), LG_OK);
    cr_assert_eq(lg_graph_add_eltwise(g, b, LG_ELTWISE_RELU, 0, 0, &y), LG_OK);
    cr_assert_eq(lg_graph_add_output(g, y, "y", "any"), LG_OK);
    lg_plan *p = compile_with(g, LG_STRATEGY_GREEDY, NULL);
    lg_plan *q = compile_with(g, LG_STRATEGY_GREEDY, "eliminate_reorders");
    cr_expect_eq(stats_of(p).runtime_reorders, 1, "nchw -> nChw8c in one step");
    cr_expect_eq(stats_of(q).runtime_reorders, 2);
    cr_expect_lt(stats_of(p).reorder_bytes, stats_of(q).reorder_bytes);
    const char *in = "x", *out = "y";
    tensor got;
    run_plan(p, 1, &in, &x, 1, &out, &got);
    t_expect_near(&got, &want, 0, 0, "merged chain");
    t_free(&got);
    lg_plan_destroy(p);
    lg_plan_destroy(q);
    lg_graph_destroy(g);
    t_free(&x);
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

/* f32 -> bf16 -> f32 loses bits: the pair must stay. */
Test(eliminate, lossy_pair_is_kept) {
    lg_rng r = {3};
    tensor x = t_rand(4, dims, &r, -1, 1), want = t_new(4, dims);
    for (int64_t i = 0; i < t_count(&x); i++) want.d[i] = via_bf16(x.d[i]);
    lg_graph *g;
    cr_assert_eq(lg_graph_create(&g), LG_OK);
    lg_md xmd = md_tag(4, dims, "nchw"), half = xmd, back = xmd;
    cr_assert_eq(lg_md_init_tag(&half, 4, dims, LG_BF16, "nhwc"), LG_OK);
    lg_value vx, a, y;
    cr_assert_eq(lg_graph_add_input(g, "x", &xmd, &vx), LG_OK);
    cr_assert_eq(lg_graph_add_reorder(g, vx, &half, NULL, &a), LG_OK);
    cr_assert_eq(lg_graph_add_reorder(g, a, &back, NULL, &y), LG_OK);
    cr_assert_eq(lg_graph_add_output(g, y, "y", "nchw"), LG_OK);
    for (int st = 0; st < 3; st++) {
        lg_plan *p = compile_with(g, (lg_strategy)st, NULL);
        cr_expect_eq(stats_of(p).runtime_reorders, 2);
        const char *in = "x", *out = "y";
        tensor got;
        run_plan(p, 1, &in, &x, 1, &out, &got);
        t_expect_near(&got, &want, 0, 0, "through bf16");
        t_free(&got);
        lg_plan_destroy(p);
    }
    lg_graph_destroy(g);
    t_free(&x);
    t_free(&want);
}

/* f32 -> f8_e4m3 -> f16 -> f32: the first step rounds (it stays), the f8 ->
 * f16 step loses nothing (every e4m3 value is an f16), so the last two
 * merge into f8 -> f32; the outputs equal those of the unmerged plan bit
 * for bit. */
Test(eliminate, f8_widening_pair_merges) {
    lg_rng r = {4};
    tensor x = t_rand(4, dims, &r, -1, 1);
    lg_graph *g;
    cr_assert_eq(lg_graph_create(&g), LG_OK);
    lg_md xmd = md_tag(4, dims, "nchw"), f8 = xmd, f16 = xmd;
    cr_assert_eq(lg_md_init_tag(&f8, 4, dims, LG_F8_E4M3, "nchw"), LG_OK);
    cr_assert_eq(lg_md_init_tag(&f16, 4, dims, LG_F16, "nhwc"), LG_OK);
    lg_value vx, a, b, y;
    cr_assert_eq(lg_graph_add_input(g, "x", &xmd, &vx), LG_OK);
    cr_assert_eq(lg_graph_add_reorder(g, vx, &f8, NULL, &a), LG_OK);
    cr_assert_eq(lg_graph_add_reorder(g, a, &f16, NULL, &b), LG_OK);
    cr_assert_eq(lg_graph_add_reorder(g, b, &xmd, NULL, &y), LG_OK);
    cr_assert_eq(lg_graph_add_output(g, y, "y", "nchw"), LG_OK);
    lg_plan *p = compile_with(g, LG_STRATEGY_GREEDY, NULL);
    lg_plan *q = compile_with(g, LG_STRATEGY_GREEDY, "eliminate_reorders");
    cr_expect_eq(stats_of(p).runtime_reorders, 2, "f32 -> f8, then f8 -> f32");
    cr_expect_eq(stats_of(q).runtime_reorders, 3);
    const char *in = "x", *out = "y";
    tensor got, want;
    run_plan(p, 1, &in, &x, 1, &out, &got);
    run_plan(q, 1, &in, &x, 1, &out, &want);
    t_expect_near(&got, &want, 0, 0, "merged f8 chain");
    int64_t coarse = 0; /* e4m3 keeps 3 mantissa bits: most values moved */
    for (int64_t i = 0; i < t_count(&x); i++) coarse += got.d[i] != x.d[i];
    cr_expect_gt(coarse, t_count(&x) / 2, "the f8 rounding happened");
    t_free(&got);
    t_free(&want);
    lg_plan_destroy(p);
    lg_plan_destroy(q);
    lg_graph_destroy(g);
    t_free(&x);
}
