/* Graphs of eltwise, binary, shuffle and reorder nodes compiled under every
 * strategy and with optional passes skipped, executed and compared with
 * independent scalar references (graph_ref.h): chains, diamonds, a value
 * that is an output and feeds another node, explicit reorders, "any"
 * outputs, constants as outputs and as binary operands; statistics on
 * hand-countable cases. Tolerance: eltwise/binary are one f32 operation per
 * element in both, so 1e-6 relative (SIMD may fuse multiply-adds). */
#include "graph_ref.h"

static const lg_strategy strategies[] = {LG_STRATEGY_NONE, LG_STRATEGY_GREEDY, LG_STRATEGY_OPTIMAL};
static const char *const disables[] = {
    NULL, "fold_constants", "plan_memory", "eliminate_reorders,eliminate_shuffles",
    "fuse,fold_constants,plan_memory,eliminate_reorders,eliminate_shuffles"};
#define ATOL 1e-6f
#define RTOL 1e-6f

/* x[2,24,5,7] -> relu(0.1) -> linear(2,1) -> shuffle(axis 1, gs 8) ->
 * add(b[1,24,1,1]) -> y. */
typedef struct chain {
    lg_graph *g;
    tensor b;
} chain;

static const int64_t xdims[4] = {2, 24, 5, 7};

static chain build_chain(const char *in_tag, const char *out_tag, lg_rng *r) {
    chain c;
    int64_t bd[4] = {1, 24, 1, 1};
    c.b = t_rand(4, bd, r, -1, 1);
    cr_assert_eq(lg_graph_create(&c.g), LG_OK);
    lg_md xmd;
    if (strcmp(in_tag, "any") == 0) {
        xmd = md_tag(4, xdims, "nchw");
        xmd.format_kind = LG_FMT_ANY;
        int64_t d[4];
        memcpy(d, xdims, sizeof d);
        cr_assert_eq(lg_md_init_tag(&xmd, 4, d, LG_F32, "any"), LG_OK);
    } else {
        xmd = md_tag(4, xdims, in_tag);
    }
    lg_md bmd = md_tag(4, bd, "nchw");
    lg_value x, b, a1, a2, a3, y;
    cr_assert_eq(lg_graph_add_input(c.g, "x", &xmd, &x), LG_OK, "%s", lg_last_error());
    void *bbuf = t_pack(&c.b, &bmd);
    cr_assert_eq(lg_graph_add_constant(c.g, "b", &bmd, bbuf, &b), LG_OK, "%s", lg_last_error());
    free(bbuf);
    cr_assert_eq(lg_graph_add_eltwise(c.g, x, LG_ELTWISE_RELU, 0.1f, 0, &a1), LG_OK);
    cr_assert_eq(lg_graph_add_eltwise(c.g, a1, LG_ELTWISE_LINEAR, 2.0f, 1.0f, &a2), LG_OK);
    cr_assert_eq(lg_graph_add_shuffle(c.g, a2, 1, 8, &a3), LG_OK, "%s", lg_last_error());
    cr_assert_eq(lg_graph_add_binary(c.g, LG_BINARY_ADD, a3, b, &y), LG_OK, "%s", lg_last_error());
    cr_assert_eq(lg_graph_add_output(c.g, y, "y", out_tag), LG_OK, "%s", lg_last_error());
    return c;
}

static tensor ref_chain(const tensor *x, const tensor *b) {
    tensor a1 = ref_relu(x, 0.1f), a2 = ref_linear(&a1, 2, 1), a3 = ref_shuffle(&a2, 1, 8);
    tensor y = ref_binary(0, &a3, b);
    t_free(&a1);
    t_free(&a2);
    t_free(&a3);
    return y;
}

Test(graph_exec, chain_all_layouts_strategies_and_passes) {
    static const char *const in_tags[] = {"nchw", "nhwc", "nChw16c", "nChw8c", "any"};
    static const char *const out_tags[] = {"nchw", "nChw16c", "nhwc", "any"};
    lg_rng r = {42};
    tensor x = t_rand(4, xdims, &r, -3, 3);
    for (size_t i = 0; i < sizeof in_tags / sizeof *in_tags; i++)
        for (size_t o = 0; o < sizeof out_tags / sizeof *out_tags; o++) {
            chain c = build_chain(in_tags[i], out_tags[o], &r);
            tensor want = ref_chain(&x, &c.b);
            for (int s = 0; s < 3; s++)
                for (size_t d = 0; d < sizeof disables / sizeof *disables; d++) {
                    lg_plan *p = compile_with(c.g, strategies[s], disables[d]);
                    tensor got;
                    const char *in = "x", *out = "y";
                    run_plan(p, 1, &in, &x, 1, &out, &got);
                    char what[128];
                    snprintf(what, sizeof what, "%s -> %s, %s, disabled %s", in_tags[i],
                             out_tags[o], strategy_name(strategies[s]),
                             disables[d] ? disables[d] : "-");
                    t_expect_near(&got, &want, ATOL, RTOL, what);
                    /* An output asked for in a tag comes in that tag. */
                    lg_md md;
                    cr_assert_eq(lg_plan_query_md(p, "y", &md), LG_OK);
                    if (strcmp(out_tags[o], "any") != 0) {
                        lg_md want_md = md_tag(4, xdims, out_tags[o]);
                        cr_assert(lg_md_equal(&md, &want_md), "%s: output layout", what);
                    }
                    t_free(&got);
                    lg_plan_destroy(p);
                }
            t_free(&want);
            t_free(&c.b);
            lg_graph_destroy(c.g);
        }
    t_free(&x);
}

/* Hand-counted statistics of the chain. */
Test(graph_exec, chain_stats) {
    lg_rng r = {7};
    /* NONE, nchw in and out: everything plain, no reorder at all; four
     * steps; relu writes an arena buffer, linear works in place on it,
     * shuffle needs another, add works in place: two tensors' worth. */
    chain c = build_chain("nchw", "nchw", &r);
    lg_plan *p = compile_with(c.g, LG_STRATEGY_NONE, NULL);
    lg_plan_stats st;
    cr_assert_eq(lg_plan_stats_get(p, &st), LG_OK);
    cr_expect_eq(st.runtime_reorders, 0);
    cr_expect_eq(st.folded_reorders, 0);
    cr_expect_eq(st.reorder_bytes, 0);
    cr_expect_eq(st.steps, 4);
    int64_t bytes = 2 * 24 * 5 * 7 * 4;
    cr_expect_eq(st.arena_bytes, 2 * ((bytes + 63) / 64 * 64), "arena %lld",
                 (long long)st.arena_bytes);
    cr_expect(st.model_cost > 0);
    cr_expect(!st.exact);
    cr_expect(st.compile_ms >= 0);
    lg_plan_destroy(p);
    /* Without the memory planner: one region per intermediate (3). */
    p = compile_with(c.g, LG_STRATEGY_NONE, "plan_memory");
    cr_assert_eq(lg_plan_stats_get(p, &st), LG_OK);
    cr_expect_eq(st.arena_bytes, 3 * ((bytes + 63) / 64 * 64));
    lg_plan_destroy(p);
    lg_graph_destroy(c.g);
    t_free(&c.b);

    /* GREEDY, nChw16c in, nchw out: everything stays blocked (the broadcast
     * constant is read as it is), one reorder at the end. */
    c = build_chain("nChw16c", "nchw", &r);
    p = compile_with(c.g, LG_STRATEGY_GREEDY, NULL);
    cr_assert_eq(lg_plan_stats_get(p, &st), LG_OK);
    cr_expect_eq(st.runtime_reorders, 1);
    cr_expect_eq(st.folded_reorders, 0);
    int64_t blk = 2 * 32 * 5 * 7 * 4;
    cr_expect_eq(st.reorder_bytes, blk + bytes);
    cr_expect_eq(st.steps, 5);
    lg_plan_destroy(p);
    /* NONE on the same graph: the input is reordered to plain first. */
    p = compile_with(c.g, LG_STRATEGY_NONE, NULL);
    cr_assert_eq(lg_plan_stats_get(p, &st), LG_OK);
    cr_expect_eq(st.runtime_reorders, 1);
    cr_expect_eq(st.reorder_bytes, blk + bytes);
    lg_plan_destroy(p);
    lg_graph_destroy(c.g);
    t_free(&c.b);
}

/* x -> relu -> a; a -> linear -> l; a -> shuffle -> s; y = l * s; a is also
 * an output ("a", also read by two nodes), y wanted as "any". */
Test(graph_exec, diamond_and_output_that_feeds_nodes) {
    lg_rng r = {3};
    tensor x = t_rand(4, xdims, &r, -2, 2);
    tensor a = ref_relu(&x, 0), l = ref_linear(&a, -1.5f, 0.25f), s = ref_shuffle(&a, 1, 6);
    tensor y = ref_binary(2, &l, &s);
    static const char *const in_tags[] = {"nchw", "nChw16c"};
    static const char *const a_tags[] = {"nchw", "nhwc", "any"};
    for (int it = 0; it < 2; it++)
        for (int at = 0; at < 3; at++) {
            lg_graph *g;
            cr_assert_eq(lg_graph_create(&g), LG_OK);
            lg_md xmd = md_tag(4, xdims, in_tags[it]);
            lg_value vx, va, vl, vs, vy;
            cr_assert_eq(lg_graph_add_input(g, "x", &xmd, &vx), LG_OK);
            cr_assert_eq(lg_graph_add_eltwise(g, vx, LG_ELTWISE_RELU, 0, 0, &va), LG_OK);
            cr_assert_eq(lg_graph_add_eltwise(g, va, LG_ELTWISE_LINEAR, -1.5f, 0.25f, &vl), LG_OK);
            cr_assert_eq(lg_graph_add_shuffle(g, va, 1, 6, &vs), LG_OK);
            cr_assert_eq(lg_graph_add_binary(g, LG_BINARY_MUL, vl, vs, &vy), LG_OK);
            cr_assert_eq(lg_graph_add_output(g, va, "a", a_tags[at]), LG_OK);
            cr_assert_eq(lg_graph_add_output(g, vy, "y", "any"), LG_OK);
            for (int st = 0; st < 3; st++)
                for (size_t d = 0; d < sizeof disables / sizeof *disables; d++) {
                    lg_plan *p = compile_with(g, strategies[st], disables[d]);
                    const char *in = "x", *outs[2] = {"y", "a"};
                    tensor got[2];
                    run_plan(p, 1, &in, &x, 2, outs, got);
                    char what[128];
                    snprintf(what, sizeof what, "diamond %s, a %s, %s, disabled %s", in_tags[it],
                             a_tags[at], strategy_name(strategies[st]),
                             disables[d] ? disables[d] : "-");
                    t_expect_near(&got[0], &y, ATOL, RTOL, what);
                    t_expect_near(&got[1], &a, 0, 0, what);
                    /* "any" outputs keep what arrives: blocked under GREEDY
                     * from a blocked input, plain under NONE (OPTIMAL picks
                     * whatever costs least; tests/graph/test_optimal.c). */
                    lg_md md;
                    cr_assert_eq(lg_plan_query_md(p, "y", &md), LG_OK);
                    bool blocked = md.blocking.inner_nblks > 0;
                    if (strategies[st] != LG_STRATEGY_OPTIMAL)
                        cr_expect_eq(blocked, it == 1 && strategies[st] == LG_STRATEGY_GREEDY, "%s",
                                     what);
                    t_free(&got[0]);
                    t_free(&got[1]);
                    lg_plan_destroy(p);
                }
            lg_graph_destroy(g);
        }
    t_free(&x);
    t_free(&a);
    t_free(&l);
    t_free(&s);
    t_free(&y);
}

/* An explicit reorder node in the middle: x(nchw) -> relu -> reorder to
 * nChw8c -> linear -> y ("any"). GREEDY keeps nChw8c to the end; NONE reads
 * it back in plain. */
Test(graph_exec, explicit_reorder_in_the_middle) {
    lg_rng r = {5};
    tensor x = t_rand(4, xdims, &r, -2, 2);
    tensor a = ref_relu(&x, 0), y = ref_linear(&a, 3, -1);
    lg_graph *g;
    cr_assert_eq(lg_graph_create(&g), LG_OK);
    lg_md xmd = md_tag(4, xdims, "nchw"), bmd = md_tag(4, xdims, "nChw8c");
    lg_value vx, va, vb, vy;
    cr_assert_eq(lg_graph_add_input(g, "x", &xmd, &vx), LG_OK);
    cr_assert_eq(lg_graph_add_eltwise(g, vx, LG_ELTWISE_RELU, 0, 0, &va), LG_OK);
    cr_assert_eq(lg_graph_add_reorder(g, va, &bmd, NULL, &vb), LG_OK, "%s", lg_last_error());
    cr_assert_eq(lg_graph_add_eltwise(g, vb, LG_ELTWISE_LINEAR, 3, -1, &vy), LG_OK);
    cr_assert_eq(lg_graph_add_output(g, vy, "y", "any"), LG_OK);
    for (int st = 0; st < 3; st++) {
        lg_plan *p = compile_with(g, strategies[st], NULL);
        const char *in = "x", *out = "y";
        tensor got;
        run_plan(p, 1, &in, &x, 1, &out, &got);
        t_expect_near(&got, &y, ATOL, RTOL, strategy_name(strategies[st]));
        lg_md md;
        cr_assert_eq(lg_plan_query_md(p, "y", &md), LG_OK);
        lg_plan_stats s;
        cr_assert_eq(lg_plan_stats_get(p, &s), LG_OK);
        if (strategies[st] == LG_STRATEGY_NONE) {
            cr_expect(lg_md_equal(&md, &xmd));
            /* The explicit one and back to plain cancel (eliminate_reorders). */
            cr_expect_eq(s.runtime_reorders, 0);
        } else if (strategies[st] == LG_STRATEGY_GREEDY) {
            cr_expect(lg_md_equal(&md, &bmd));
            cr_expect_eq(s.runtime_reorders, 1);
        } else {
            cr_expect_leq(s.runtime_reorders, 1);
        }
        t_free(&got);
        lg_plan_destroy(p);
        if (strategies[st] != LG_STRATEGY_NONE) continue;
        p = compile_with(g, strategies[st], "eliminate_reorders");
        cr_assert_eq(lg_plan_stats_get(p, &s), LG_OK);
        cr_expect_eq(s.runtime_reorders, 2, "the explicit reorder and back to plain");
        lg_plan_destroy(p);
    }
    lg_graph_destroy(g);
    t_free(&x);
    t_free(&a);
    t_free(&y);
}

/* A constant that is directly an output (twice, in two layouts), a constant
 * of x's shape added to a blocked x (reordered once at compile time), and
 * an input that is directly an output. */
Test(graph_exec, constants_as_outputs_and_operands) {
    lg_rng r = {11};
    tensor x = t_rand(4, xdims, &r, -2, 2), c = t_rand(4, xdims, &r, -2, 2);
    tensor y = ref_binary(1, &x, &c);
    lg_graph *g;
    cr_assert_eq(lg_graph_create(&g), LG_OK);
    lg_md xmd = md_tag(4, xdims, "nChw16c"), cmd = md_tag(4, xdims, "nchw");
    void *cbuf = t_pack(&c, &cmd);
    lg_value vx, vc, vy;
    cr_assert_eq(lg_graph_add_input(g, "x", &xmd, &vx), LG_OK);
    cr_assert_eq(lg_graph_add_constant(g, "c", &cmd, cbuf, &vc), LG_OK);
    free(cbuf);
    cr_assert_eq(lg_graph_add_binary(g, LG_BINARY_SUB, vx, vc, &vy), LG_OK);
    cr_assert_eq(lg_graph_add_output(g, vy, "y", "nChw16c"), LG_OK);
    cr_assert_eq(lg_graph_add_output(g, vc, "c_out", "nhwc"), LG_OK);
    cr_assert_eq(lg_graph_add_output(g, vc, "c_any", "any"), LG_OK);
    cr_assert_eq(lg_graph_add_output(g, vx, "x_copy", "any"), LG_OK);
    for (int st = 0; st < 3; st++)
        for (size_t d = 0; d < sizeof disables / sizeof *disables; d++) {
            lg_plan *p = compile_with(g, strategies[st], disables[d]);
            const char *in = "x", *outs[4] = {"y", "c_out", "c_any", "x_copy"};
            tensor got[4];
            run_plan(p, 1, &in, &x, 4, outs, got);
            t_expect_near(&got[0], &y, ATOL, RTOL, "y");
            t_expect_near(&got[1], &c, 0, 0, "c_out");
            t_expect_near(&got[2], &c, 0, 0, "c_any");
            t_expect_near(&got[3], &x, 0, 0, "x_copy");
            lg_plan_stats s;
            cr_assert_eq(lg_plan_stats_get(p, &s), LG_OK);
            bool fold = !disables[d] || !strstr(disables[d], "fold");
            if (strategies[st] != LG_STRATEGY_NONE) {
                /* c read in x's layout: folded, or run each time. Runtime:
                 * c -> nhwc, c -> c_any copy, x -> x_copy copy. */
                cr_expect_eq(s.folded_reorders, fold ? 1 : 0, "%s", disables[d]);
                cr_expect_eq(s.runtime_reorders, fold ? 3 : 4);
            } else {
                /* x read in plain, y reordered back to nChw16c, plus the
                 * three output copies/reorders. */
                cr_expect_eq(s.folded_reorders, 0);
                cr_expect_eq(s.runtime_reorders, 5);
            }
            for (int i = 0; i < 4; i++) t_free(&got[i]);
            lg_plan_destroy(p);
        }
    lg_graph_destroy(g);
    t_free(&x);
    t_free(&c);
    t_free(&y);
}

/* A graph of one input feeding an output through nothing else, and the
 * same input bound to two outputs in two layouts. */
Test(graph_exec, input_straight_to_outputs) {
    lg_rng r = {13};
    tensor x = t_rand(4, xdims, &r, -2, 2);
    lg_graph *g;
    cr_assert_eq(lg_graph_create(&g), LG_OK);
    lg_md xmd = md_tag(4, xdims, "nhwc");
    lg_value vx;
    cr_assert_eq(lg_graph_add_input(g, "x", &xmd, &vx), LG_OK);
    cr_assert_eq(lg_graph_add_output(g, vx, "a", "nhwc"), LG_OK);
    cr_assert_eq(lg_graph_add_output(g, vx, "b", "nChw8c"), LG_OK);
    for (int st = 0; st < 3; st++) {
        lg_plan *p = compile_with(g, strategies[st], NULL);
        const char *in = "x", *outs[2] = {"a", "b"};
        tensor got[2];
        run_plan(p, 1, &in, &x, 2, outs, got);
        t_expect_near(&got[0], &x, 0, 0, "a");
        t_expect_near(&got[1], &x, 0, 0, "b");
        lg_plan_stats s;
        cr_assert_eq(lg_plan_stats_get(p, &s), LG_OK);
        cr_expect_eq(s.steps, 2);
        cr_expect_eq(s.arena_bytes, 0);
        t_free(&got[0]);
        t_free(&got[1]);
        lg_plan_destroy(p);
    }
    lg_graph_destroy(g);
    t_free(&x);
}

/* bf16 through an explicit conversion: x f32 -> reorder to bf16 -> relu ->
 * reorder to f32 -> y; compared with a bf16 rounding of the reference. */
Test(graph_exec, dtype_conversion_chain) {
    lg_rng r = {17};
    tensor x = t_rand(4, xdims, &r, -2, 2);
    lg_graph *g;
    cr_assert_eq(lg_graph_create(&g), LG_OK);
    lg_md xmd = md_tag(4, xdims, "nchw"), hmd;
    cr_assert_eq(lg_md_init_tag(&hmd, 4, xdims, LG_BF16, "nChw16c"), LG_OK);
    lg_value vx, vh, vr, vy;
    cr_assert_eq(lg_graph_add_input(g, "x", &xmd, &vx), LG_OK);
    cr_assert_eq(lg_graph_add_reorder(g, vx, &hmd, NULL, &vh), LG_OK);
    cr_assert_eq(lg_graph_add_eltwise(g, vh, LG_ELTWISE_RELU, 0, 0, &vr), LG_OK);
    cr_assert_eq(lg_graph_add_reorder(g, vr, &xmd, NULL, &vy), LG_OK);
    cr_assert_eq(lg_graph_add_output(g, vy, "y", "nchw"), LG_OK);
    tensor want = ref_relu(&x, 0);
    for (int st = 0; st < 3; st++) {
        lg_plan *p = compile_with(g, strategies[st], NULL);
        const char *in = "x", *out = "y";
        tensor got;
        run_plan(p, 1, &in, &x, 1, &out, &got);
        t_expect_near(&got, &want, 0, 1.0f / 128, "bf16 chain"); /* bf16: 8 bits of mantissa */
        t_free(&got);
        lg_plan_destroy(p);
    }
    lg_graph_destroy(g);
    t_free(&x);
    t_free(&want);
}

/* An input with gaps (strided, not dense) and a broadcast operand with gaps:
 * nodes read them through a reorder to a dense layout (or, for binary's
 * broadcast operand, as they are); the plan reports the input's md as
 * given. */
Test(graph_exec, strided_inputs) {
    lg_rng r = {19};
    tensor x = t_rand(4, xdims, &r, -2, 2);
    int64_t bd[4] = {1, 24, 1, 1};
    tensor b = t_rand(4, bd, &r, -1, 1);
    int64_t xs[4] = {24 * 40 * 2, 40 * 2, 8 * 2, 2}, bs[4] = {100, 3, 1, 1};
    lg_md xmd, bmd;
    cr_assert_eq(lg_md_init_strides(&xmd, 4, xdims, LG_F32, xs), LG_OK, "%s", lg_last_error());
    cr_assert_eq(lg_md_init_strides(&bmd, 4, bd, LG_F32, bs), LG_OK, "%s", lg_last_error());
    lg_graph *g;
    cr_assert_eq(lg_graph_create(&g), LG_OK);
    lg_value vx, vb, a, y;
    cr_assert_eq(lg_graph_add_input(g, "x", &xmd, &vx), LG_OK);
    cr_assert_eq(lg_graph_add_input(g, "b", &bmd, &vb), LG_OK);
    cr_assert_eq(lg_graph_add_eltwise(g, vx, LG_ELTWISE_RELU, 0.5f, 0, &a), LG_OK);
    cr_assert_eq(lg_graph_add_binary(g, LG_BINARY_MUL, a, vb, &y), LG_OK);
    cr_assert_eq(lg_graph_add_output(g, y, "y", "any"), LG_OK);
    cr_assert_eq(lg_graph_add_output(g, vx, "x_out", "any"), LG_OK);
    tensor ta = ref_relu(&x, 0.5f), want = ref_binary(2, &ta, &b);
    for (int st = 0; st < 3; st++) {
        lg_plan *p = compile_with(g, strategies[st], NULL);
        lg_md md;
        cr_assert_eq(lg_plan_query_md(p, "x", &md), LG_OK);
        cr_expect(lg_md_equal(&md, &xmd), "an input keeps its md");
        const char *ins[2] = {"x", "b"}, *outs[2] = {"y", "x_out"};
        tensor in[2] = {x, b}, got[2];
        run_plan(p, 2, ins, in, 2, outs, got);
        t_expect_near(&got[0], &want, ATOL, RTOL, strategy_name(strategies[st]));
        t_expect_near(&got[1], &x, 0, 0, "x copied out");
        t_free(&got[0]);
        t_free(&got[1]);
        lg_plan_destroy(p);
    }
    lg_graph_destroy(g);
    t_free(&x);
    t_free(&b);
    t_free(&ta);
    t_free(&want);
}
