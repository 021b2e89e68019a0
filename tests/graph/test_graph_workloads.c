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
#include "graph_ref.h"
#include "primitives/cpu.h"

#define ATOL 1e-4f
#define RTOL 1e-4f

typedef struct conv_w {
    tensor w, b;
    lg_conv_params p;
} conv_w;

typedef struct workload {
    lg_graph *g;
    conv_w c[3];
    int64_t xd[4];
    int which;
} workload;

static lg_value conv(lg_graph *g, lg_value src, int64_t ic, int64_t oc, int64_t k, int64_t groups,
                     int64_t stride, int64_t pad, lg_rng *r, conv_w *c, const char *name) {
    c->p = (lg_conv_params){
        .strides = {stride, stride}, .pad_l = {pad, pad}, .pad_r = {pad, pad}, .groups = groups};
    float scale = 1.0f / sqrtf((float)(ic / groups * k * k));
    lg_md wmd;
    if (groups > 1) {
        int64_t wd[5] = {groups, oc / groups, ic / groups, k, k};
        c->w = t_rand(5, wd, r, -scale, scale);
        wmd = md_tag(5, wd, "goihw");
    } else {
        int64_t wd[4] = {oc, ic, k, k};
        c->w = t_rand(4, wd, r, -scale, scale);
        wmd = md_tag(4, wd, "oihw");
    }
    int64_t bd[1] = {oc};
    c->b = t_rand(1, bd, r, -0.2f, 0.2f);
    lg_md bmd = md_tag(1, bd, "a");
    char wn[32], bn[32];
    snprintf(wn, sizeof wn, "%s.weights", name);
    snprintf(bn, sizeof bn, "%s.bias", name);
    void *wb = t_pack(&c->w, &wmd);
    lg_value w, b, y;
    cr_assert_eq(lg_graph_add_constant(g, wn, &wmd, wb, &w), LG_OK);
    cr_assert_eq(lg_graph_add_constant(g, bn, &bmd, c->b.d, &b), LG_OK);
    free(wb);
    cr_assert_eq(lg_graph_add_conv(g, src, w, b, &c->p, &y), LG_OK, "%s: %s", name,
                 lg_last_error());
    return y;
}

static lg_value relu(lg_graph *g, lg_value v) {
    lg_value y;
    cr_assert_eq(lg_graph_add_eltwise(g, v, LG_ELTWISE_RELU, 0, 0, &y), LG_OK);
    return y;
}

/* Build workload `which` (1..3) for x[n, C, s, s]; in_tag for x ("nchw" or
 * "any"), add_swap puts x first in the residual add. */
static workload build(int which, int64_t n, int64_t s, const char *in_tag, bool add_swap,
                      uint64_t seed) {
    static const int64_t channels[4] = {0, 240, 256, 3};
    workload w = {.which = which, .xd = {n, channels[which], s, s}};
    lg_rng r = {seed};
    cr_assert_eq(lg_graph_create(&w.g), LG_OK);
    lg_md xmd;
    cr_assert_eq(lg_md_init_tag(&xmd, 4, w.xd, LG_F32, in_tag), LG_OK);
    lg_value x, v, y;
    cr_assert_eq(lg_graph_add_input(w.g, "x", &xmd, &x), LG_OK);
    if (which == 1) {
        v = relu(w.g, conv(w.g, x, 240, 60, 1, 3, 1, 0, &r, &w.c[0], "c1"));
        cr_assert_eq(lg_graph_add_shuffle(w.g, v, 1, 20, &v), LG_OK);
        v = conv(w.g, v, 60, 60, 3, 60, 1, 1, &r, &w.c[1], "dw");
        v = conv(w.g, v, 60, 240, 1, 3, 1, 0, &r, &w.c[2], "c3");
    } else if (which == 2) {
        v = relu(w.g, conv(w.g, x, 256, 64, 1, 1, 1, 0, &r, &w.c[0], "c1"));
        v = relu(w.g, conv(w.g, v, 64, 64, 3, 1, 1, 1, &r, &w.c[1], "c2"));
        v = conv(w.g, v, 64, 256, 1, 1, 1, 0, &r, &w.c[2], "c3");
    } else {
        v = relu(w.g, conv(w.g, x, 3, 32, 3, 1, 2, 1, &r, &w.c[0], "c1"));
        v = relu(w.g, conv(w.g, v, 32, 32, 3, 32, 1, 1, &r, &w.c[1], "dw"));
        v = conv(w.g, v, 32, 64, 1, 1, 1, 0, &r, &w.c[2], "c3");
    }
    if (which != 3)
        cr_assert_eq(
            lg_graph_add_binary(w.g, LG_BINARY_ADD, add_swap ? x : v, add_swap ? v : x, &v), LG_OK);
    y = relu(w.g, v);
    cr_assert_eq(lg_graph_add_output(w.g, y, "y", "nchw"), LG_OK);
    return w;
}

static void free_workload(workload *w) {
    for (int i = 0; i < 3; i++) {
        t_free(&w->c[i].w);
        t_free(&w->c[i].b);
    }
    lg_graph_destroy(w->g);
}

/* The reference chain, by independent scalar loops. */
static tensor reference(const workload *w, const tensor *x) {
    tensor a = ref_conv2d(x, &w->c[0].w, &w->c[0].b, &w->c[0].p), b = ref_relu(&a, 0), c, d;
    t_free(&a);
    if (w->which == 1) {
        a = ref_shuffle(&b, 1, 20);
        t_free(&b);
        b = ref_conv2d(&a, &w->c[1].w, &w->c[1].b, &w->c[1].p);
        t_free(&a);
    } else {
        a = ref_conv2d(&b, &w->c[1].w, &w->c[1].b, &w->c[1].p);
        t_free(&b);
        b = ref_relu(&a, 0);
        t_free(&a);
    }
    c = ref_conv2d(&b, &w->c[2].w, &w->c[2].b, &w->c[2].p);
    t_free(&b);
    if (w->which != 3) {
        d = ref_binary(0, &c, x);
        t_free(&c);
        c = d;
    }
    d = ref_relu(&c, 0);
    t_free(&c);
    return d;
}

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
