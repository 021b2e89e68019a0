/* The three workloads of WORKLOADS.md, built as graphs with constant weights
 * and biases, user data in nchw and outputs wanted in nchw:
 *  W1 ShuffleNet v1 unit (g = 3): x[N,240,S,S] -> conv1x1 g3 240->60 -> relu
 *     -> shuffle (axis 1, group_size 20) -> depthwise conv3x3 pad 1 (60)
 *     -> conv1x1 g3 60->240 -> add(x) -> relu;
 *  W2 ResNet bottleneck: x[N,256,S,S] -> conv1x1 256->64 -> relu -> conv3x3
 *     pad 1 64->64 -> relu -> conv1x1 64->256 -> add(x) -> relu;
 *  W3 MobileNet stem: x[N,3,S,S] -> conv3x3 s2 pad 1 3->32 -> relu ->
 *     depthwise conv3x3 pad 1 (32) -> relu -> conv1x1 32->64 -> relu.
 * Small variants (N = 1 or 2, reduced spatial sizes) keep the suite fast;
 * channel counts are the real ones. Outputs are compared with the scalar
 * reference chain (graph_ref.h) under every strategy, at every ISA cap, with
 * optional passes skipped; statistics are checked against hand counts.
 * Tolerance: 1e-4 absolute + 1e-4 relative (weights scaled by 1/sqrt(fan
 * in), so values stay O(1); f32 sums in another order than double). */
#include "graph/workloads.h"
#include "primitives/cpu.h"

#define ATOL 1e-4f
#define RTOL 1e-4f

static const lg_strategy strategies[] = {LG_STRATEGY_NONE, LG_STRATEGY_GREEDY, LG_STRATEGY_OPTIMAL};
static const char *const disables[] = {NULL, "fuse", "fold_constants", "plan_memory",
                                       "eliminate_reorders,eliminate_shuffles"};

/* Every strategy, pass set and ISA cap on one input. */
static void check_workload(int which, int64_t n, int64_t s, const char *in_tag, bool swap) {
    workload w = build(which, n, s, in_tag, swap, 100 + (uint64_t)which);
    lg_rng r = {(uint64_t)(7 * which + s)};
    tensor x = t_rand(4, w.xd, &r, -1, 1), want = reference(&w, &x);
    /* Every pass set at the machine's ISA; the defaults at the lower caps. */
    for (int isa = LG_ISA_SCALAR; isa <= (int)lg__cpu_isa_hw(); isa++) {
        lg__cpu_set_isa_cap(isa);
        size_t ndis = isa == (int)lg__cpu_isa_hw() ? sizeof disables / sizeof *disables : 1;
        for (int st = 0; st < 3; st++)
            for (size_t d = 0; d < ndis; d++) {
                lg_plan *p = compile_with(w.g, strategies[st], disables[d]);
                const char *in = "x", *out = "y";
                tensor got;
                run_plan(p, 1, &in, &x, 1, &out, &got);
                char what[160];
                snprintf(what, sizeof what, "W%d %lldx%lldx%lld %s%s, isa %s, %s, disabled %s",
                         which, (long long)n, (long long)s, (long long)s, in_tag,
                         swap ? " swapped" : "", lg__isa_name((lg__isa)isa),
                         strategy_name(strategies[st]), disables[d] ? disables[d] : "-");
                t_expect_near(&got, &want, ATOL, RTOL, what);
                t_free(&got);
                lg_plan_destroy(p);
            }
    }
    lg__cpu_set_isa_cap(-1);
    t_free(&x);
    t_free(&want);
    free_workload(&w);
}

Test(graph_workloads, w1_shufflenet_unit) {
    check_workload(1, 1, 9, "nchw", false);
    check_workload(1, 2, 5, "any", true);
}

Test(graph_workloads, w2_resnet_bottleneck) {
    check_workload(2, 1, 8, "nchw", false);
    check_workload(2, 2, 5, "any", true);
}

Test(graph_workloads, w3_mobilenet_stem) {
    check_workload(3, 1, 17, "nchw", false);
    check_workload(3, 2, 12, "any", false);
}

/* The real spatial sizes at N = 1 (W2 and W3 halved to keep it quick),
 * default options, the machine's own ISA. */
Test(graph_workloads, larger_sizes_default_options) {
    static const int64_t sizes[4] = {0, 28, 28, 112};
    for (int which = 1; which <= 3; which++) {
        workload w = build(which, 1, sizes[which], "nchw", false, 5);
        lg_rng r = {99};
        tensor x = t_rand(4, w.xd, &r, -1, 1), want = reference(&w, &x), got;
        lg_plan *p;
        cr_assert_eq(lg_graph_compile(w.g, NULL, &p), LG_OK, "%s", lg_last_error());
        const char *in = "x", *out = "y";
        run_plan(p, 1, &in, &x, 1, &out, &got);
        t_expect_near(&got, &want, ATOL, RTOL, "larger");
        t_free(&got);
        lg_plan_destroy(p);
        t_free(&x);
        t_free(&want);
        free_workload(&w);
    }
}

static lg_plan_stats stats_of(const lg_graph *g, lg_strategy st, const char *disable) {
    lg_plan *p = compile_with(g, st, disable);
    lg_plan_stats s;
    cr_assert_eq(lg_plan_stats_get(p, &s), LG_OK);
    lg_plan_destroy(p);
    return s;
}

/* Hand counts, for nchw in and out:
 *  - GREEDY with blocked convs (AVX2/AVX-512): x is reordered to the blocked
 *    layout once, shared by the first conv and the residual add (W1, W2;
 *    W3's first conv reads nchw itself), the result is reordered back to
 *    nchw: 2 runtime reorders for W1/W2, 1 for W3; the three weight tensors
 *    are folded (biases are already "a"); steps = convs (+ shuffle) +
 *    reorders, every relu and the add fused; the residual source (x
 *    reordered) dies at the last conv, which works in place on it.
 *  - NONE: no reorder but the copy of x into the output buffer that the
 *    fused residual add needs (W1/W2); no fused add: no reorder at all. */
Test(graph_workloads, hand_counted_stats) {
    lg__cpu_set_isa_cap(-1);
    bool blocked = lg__cpu_isa() != LG_ISA_SCALAR;
    int64_t s = 14;
    for (int which = 1; which <= 3; which++) {
        workload w = build(which, 1, s, "nchw", false, 1);
        int64_t plane = s * s * 4;
        lg_plan_stats g = stats_of(w.g, LG_STRATEGY_GREEDY, NULL);
        lg_plan_stats gu = stats_of(w.g, LG_STRATEGY_GREEDY, "fuse");
        lg_plan_stats n = stats_of(w.g, LG_STRATEGY_NONE, NULL);
        lg_plan_stats nu = stats_of(w.g, LG_STRATEGY_NONE, "fuse");
        int extra = which == 1 ? 1 : 0;   /* W1's shuffle */
        int eltwise = which == 2 ? 4 : 3; /* relus and adds that fuse */
        if (blocked) {
            int reorders = which == 3 ? 1 : 2;
            cr_expect_eq(g.runtime_reorders, reorders, "W%d", which);
            cr_expect_eq(g.folded_reorders, 3, "W%d", which);
            cr_expect_eq(g.steps, 3 + extra + reorders, "W%d", which);
            cr_expect_eq(gu.steps, 3 + extra + reorders + eltwise, "W%d", which);
            cr_expect_eq(gu.runtime_reorders, reorders, "W%d", which);
            if (which == 2) {
                /* 256 channels: no padding; x in and y out, both ways. */
                cr_expect_eq(g.reorder_bytes, 4 * 256 * plane);
                /* x reordered (kept for the residual, then the last conv's
                 * result in place), conv1's and conv2's results. */
                cr_expect_eq(g.arena_bytes, (256 + 64 + 64) * plane);
            }
            /* W2 and W3 are conv-heavy: blocked convs save more than the
             * reorders cost. (W1's grouped 1x1 convs are light: at 14x14
             * the model finds both about equal.) */
            if (which != 1)
                cr_expect(g.model_cost < n.model_cost,
                          "W%d: GREEDY %g must model cheaper than NONE %g", which, g.model_cost,
                          n.model_cost);
        }
        cr_expect_eq(n.folded_reorders, 0, "W%d", which);
        cr_expect_eq(n.runtime_reorders, which == 3 ? 0 : 1, "W%d", which);
        cr_expect_eq(n.steps, 3 + extra + (which == 3 ? 0 : 1), "W%d", which);
        cr_expect_eq(nu.runtime_reorders, 0, "W%d", which);
        cr_expect_eq(nu.steps, 3 + extra + eltwise, "W%d", which);
        cr_expect(!g.exact && !n.exact);
        free_workload(&w);
    }
}

/* W2 with x given as "any": GREEDY lets x arrive in the first conv's
 * layout, so no input reorder; the residual add then reads the caller's x
 * (which must not be written), so the fused conv first copies it into its
 * result: 1 output reorder + 1 copy. */
Test(graph_workloads, any_input_stats) {
    lg__cpu_set_isa_cap(-1);
    if (lg__cpu_isa() == LG_ISA_SCALAR) return;
    workload w = build(2, 1, 7, "any", false, 3);
    lg_plan *p = compile_with(w.g, LG_STRATEGY_GREEDY, NULL);
    lg_md md;
    cr_assert_eq(lg_plan_query_md(p, "x", &md), LG_OK);
    cr_expect_eq(md.blocking.inner_nblks, 1, "x is asked for in a blocked layout");
    lg_plan_stats s;
    cr_assert_eq(lg_plan_stats_get(p, &s), LG_OK);
    cr_expect_eq(s.runtime_reorders, 2);
    cr_expect_eq(s.steps, 5);
    lg_plan_destroy(p);
    free_workload(&w);
}
