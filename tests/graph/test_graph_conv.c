/* Graphs with conv nodes, at every ISA cap the CPU has (so the layouts the
 * conv prefers are plain, nChw8c and nChw16c), under every strategy and with
 * optional passes skipped, against the scalar reference chain of graph_ref.h
 * (conv in double): single convs of every kind, fusion of eltwise chains and
 * residual adds (both operand orders, a residual produced after the conv, a
 * residual that is a graph input), fusion refused where it must be, and the
 * hand-counted statistics of fused plans.
 * Tolerance: weights are scaled by 1/sqrt(fan-in) so values stay O(1); the
 * conv sums in f32 in another order than the double reference, so 1e-4
 * absolute plus 1e-4 relative. */
#include "graph_ref.h"
#include "primitives/cpu.h"

#define ATOL 1e-4f
#define RTOL 1e-4f

static const lg_strategy strategies[] = {LG_STRATEGY_NONE, LG_STRATEGY_GREEDY, LG_STRATEGY_OPTIMAL};
static const char *const disables[] = {
    NULL,
    "fuse",
    "fold_constants",
    "plan_memory",
    "eliminate_reorders,eliminate_shuffles",
    "fuse,fold_constants,plan_memory,eliminate_reorders,eliminate_shuffles"};
#define NDIS ((int)(sizeof disables / sizeof *disables))

/* A conv layer's constants (kept for the reference). */
typedef struct layer {
    tensor w, b;
    lg_conv_params p;
    bool bias;
} layer;

/* Add constants and a conv node: oc outputs, k x k kernel, groups, stride,
 * pad, dilate; weights oihw (goihw when grouped), bias "a" if with_bias. */
static lg_value add_conv(lg_graph *g, lg_value src, int64_t ic, int64_t oc, int64_t k,
                         int64_t groups, int64_t stride, int64_t pad, int64_t dil, bool with_bias,
                         lg_rng *r, layer *L, const char *name) {
    memset(L, 0, sizeof *L);
    L->p = (lg_conv_params){.strides = {stride, stride},
                            .dilates = {dil, dil},
                            .pad_l = {pad, pad},
                            .pad_r = {pad, pad},
                            .groups = groups};
    float scale = 1.0f / sqrtf((float)(ic / groups * k * k));
    lg_md wmd;
    if (groups > 1) {
        int64_t wd[5] = {groups, oc / groups, ic / groups, k, k};
        L->w = t_rand(5, wd, r, -scale, scale);
        wmd = md_tag(5, wd, "goihw");
    } else {
        int64_t wd[4] = {oc, ic, k, k};
        L->w = t_rand(4, wd, r, -scale, scale);
        wmd = md_tag(4, wd, "oihw");
    }
    char wn[64], bn[64];
    snprintf(wn, sizeof wn, "%s.w", name);
    snprintf(bn, sizeof bn, "%s.b", name);
    void *wb = t_pack(&L->w, &wmd);
    lg_value w, b = LG_NO_VALUE, y;
    cr_assert_eq(lg_graph_add_constant(g, wn, &wmd, wb, &w), LG_OK, "%s", lg_last_error());
    free(wb);
    if (with_bias) {
        int64_t bd[1] = {oc};
        L->b = t_rand(1, bd, r, -0.5f, 0.5f);
        L->bias = true;
        lg_md bmd = md_tag(1, bd, "a");
        cr_assert_eq(lg_graph_add_constant(g, bn, &bmd, L->b.d, &b), LG_OK);
    }
    cr_assert_eq(lg_graph_add_conv(g, src, w, b, &L->p, &y), LG_OK, "%s: %s", name,
                 lg_last_error());
    return y;
}

static tensor ref_layer(const tensor *x, const layer *L) {
    return ref_conv2d(x, &L->w, L->bias ? &L->b : NULL, &L->p);
}

static void free_layer(layer *L) {
    t_free(&L->w);
    if (L->bias) t_free(&L->b);
}

/* The ISA caps this CPU can run, best last. */
static int isa_caps(int *caps) {
    int n = 0;
    for (int i = LG_ISA_SCALAR; i <= (int)lg__cpu_isa_hw(); i++) caps[n++] = i;
    return n;
}

static lg_graph *graph_x(const int64_t *xd, const char *tag, lg_value *x) {
    lg_graph *g;
    cr_assert_eq(lg_graph_create(&g), LG_OK);
    lg_md md;
    cr_assert_eq(lg_md_init_tag(&md, 4, xd, LG_F32, tag), LG_OK);
    cr_assert_eq(lg_graph_add_input(g, "x", &md, x), LG_OK);
    return g;
}

/* Compile g every way, run on x and compare the output "y" with want. */
static void check_all(const lg_graph *g, const tensor *x, const tensor *want, const char *what) {
    int caps[3], ncaps = isa_caps(caps);
    /* Every pass set at the machine's ISA; the defaults at the lower caps. */
    for (int c = 0; c < ncaps; c++) {
        lg__cpu_set_isa_cap(caps[c]);
        int ndis = c == ncaps - 1 ? NDIS : 1;
        for (int s = 0; s < 3; s++)
            for (int d = 0; d < ndis; d++) {
                lg_plan *p = compile_with(g, strategies[s], disables[d]);
                const char *in = "x", *out = "y";
                tensor got;
                run_plan(p, 1, &in, x, 1, &out, &got);
                char msg[256];
                snprintf(msg, sizeof msg, "%s, isa %s, %s, disabled %s", what,
                         lg__isa_name((lg__isa)caps[c]), strategy_name(strategies[s]),
                         disables[d] ? disables[d] : "-");
                t_expect_near(&got, want, ATOL, RTOL, msg);
                t_free(&got);
                lg_plan_destroy(p);
            }
    }
    lg__cpu_set_isa_cap(-1);
}

Test(graph_conv, single_convs_every_kind) {
    static const struct {
        int64_t n, ic, h, w, oc, k, groups, stride, pad, dil;
        bool bias;
        const char *in_tag, *out_tag;
    } cases[] = {
        {2, 16, 9, 8, 32, 3, 1, 1, 1, 0, true, "nchw", "nchw"},
        {1, 3, 15, 15, 16, 3, 1, 2, 1, 0, true, "nchw", "any"},     /* first layer */
        {1, 24, 8, 8, 24, 3, 24, 1, 1, 0, false, "nhwc", "nChw8c"}, /* depthwise */
        {2, 30, 6, 5, 45, 1, 3, 1, 0, 0, true, "nChw16c", "nhwc"},  /* grouped 1x1 */
        {1, 20, 11, 9, 17, 3, 1, 1, 2, 1, false, "any", "nchw"},    /* dilated */
    };
    lg_rng r = {2024};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        int64_t xd[4] = {cases[i].n, cases[i].ic, cases[i].h, cases[i].w};
        lg_value x, y;
        lg_graph *g = graph_x(xd, cases[i].in_tag, &x);
        layer L;
        y = add_conv(g, x, cases[i].ic, cases[i].oc, cases[i].k, cases[i].groups, cases[i].stride,
                     cases[i].pad, cases[i].dil, cases[i].bias, &r, &L, "c");
        cr_assert_eq(lg_graph_add_output(g, y, "y", cases[i].out_tag), LG_OK);
        tensor tx = t_rand(4, xd, &r, -1, 1), want = ref_layer(&tx, &L);
        char what[64];
        snprintf(what, sizeof what, "case %zu", i);
        check_all(g, &tx, &want, what);
        t_free(&tx);
        t_free(&want);
        free_layer(&L);
        lg_graph_destroy(g);
    }
}

/* conv -> relu -> linear -> clip: the chain folds into the conv (one step
 * when the layouts agree); without fusion each runs on its own. */
Test(graph_conv, eltwise_chain_fuses) {
    lg_rng r = {1};
    int64_t xd[4] = {1, 16, 7, 7};
    lg_value x, c, a, b, y;
    lg_graph *g = graph_x(xd, "nchw", &x);
    layer L;
    c = add_conv(g, x, 16, 16, 3, 1, 1, 1, 0, true, &r, &L, "c");
    cr_assert_eq(lg_graph_add_eltwise(g, c, LG_ELTWISE_RELU, 0.25f, 0, &a), LG_OK);
    cr_assert_eq(lg_graph_add_eltwise(g, a, LG_ELTWISE_LINEAR, 1.5f, -0.1f, &b), LG_OK);
    cr_assert_eq(lg_graph_add_eltwise(g, b, LG_ELTWISE_CLIP, -0.2f, 0.9f, &y), LG_OK);
    cr_assert_eq(lg_graph_add_output(g, y, "y", "nchw"), LG_OK);
    tensor tx = t_rand(4, xd, &r, -1, 1), t0 = ref_layer(&tx, &L), t1 = ref_relu(&t0, 0.25f);
    tensor want = ref_linear(&t1, 1.5f, -0.1f);
    for (int64_t i = 0; i < t_count(&want); i++) want.d[i] = fminf(fmaxf(want.d[i], -0.2f), 0.9f);
    check_all(g, &tx, &want, "conv+relu+linear+clip");
    /* NONE: one step fused, four without fusion. */
    lg_plan *p = compile_with(g, LG_STRATEGY_NONE, NULL);
    lg_plan_stats st;
    cr_assert_eq(lg_plan_stats_get(p, &st), LG_OK);
    cr_expect_eq(st.steps, 1);
    cr_expect_eq(st.runtime_reorders, 0);
    cr_expect_eq(st.arena_bytes, 0);
    lg_plan_destroy(p);
    p = compile_with(g, LG_STRATEGY_NONE, "fuse");
    cr_assert_eq(lg_plan_stats_get(p, &st), LG_OK);
    cr_expect_eq(st.steps, 4);
    lg_plan_destroy(p);
    lg_compile_options o;
    lg_compile_options_init(&o);
    o.fuse = false;
    o.strategy = LG_STRATEGY_NONE;
    cr_assert_eq(lg_graph_compile(g, &o, &p), LG_OK);
    cr_assert_eq(lg_plan_stats_get(p, &st), LG_OK);
    cr_expect_eq(st.steps, 4, "options.fuse = false skips fusion too");
    lg_plan_destroy(p);
    t_free(&tx);
    t_free(&t0);
    t_free(&t1);
    t_free(&want);
    free_layer(&L);
    lg_graph_destroy(g);
}

/* Fusion refused: the conv's result is a graph output, or read twice. */
Test(graph_conv, fusion_refused_where_it_must_be) {
    lg_rng r = {2};
    int64_t xd[4] = {1, 8, 6, 6};
    lg_value x, c, a, b;
    lg_graph *g = graph_x(xd, "nchw", &x);
    layer L;
    c = add_conv(g, x, 8, 8, 1, 1, 1, 0, 0, false, &r, &L, "c");
    cr_assert_eq(lg_graph_add_eltwise(g, c, LG_ELTWISE_RELU, 0, 0, &a), LG_OK);
    cr_assert_eq(lg_graph_add_eltwise(g, c, LG_ELTWISE_ABS, 0, 0, &b), LG_OK);
    cr_assert_eq(lg_graph_add_output(g, a, "y", "nchw"), LG_OK);
    cr_assert_eq(lg_graph_add_output(g, b, "b", "nchw"), LG_OK);
    lg_plan *p = compile_with(g, LG_STRATEGY_NONE, NULL);
    lg_plan_stats st;
    cr_assert_eq(lg_plan_stats_get(p, &st), LG_OK);
    cr_expect_eq(st.steps, 3, "c has two readers: nothing fuses");
    tensor tx = t_rand(4, xd, &r, -1, 1), t0 = ref_layer(&tx, &L), ta = ref_relu(&t0, 0);
    const char *in = "x", *outs[2] = {"y", "b"};
    tensor got[2];
    run_plan(p, 1, &in, &tx, 2, outs, got);
    t_expect_near(&got[0], &ta, ATOL, RTOL, "relu branch");
    for (int64_t i = 0; i < t_count(&t0); i++) t0.d[i] = fabsf(t0.d[i]);
    t_expect_near(&got[1], &t0, ATOL, RTOL, "abs branch");
    t_free(&got[0]);
    t_free(&got[1]);
    lg_plan_destroy(p);
    lg_graph_destroy(g);
    t_free(&ta);

    /* c is an output and feeds a relu: the relu stays a step. */
    g = graph_x(xd, "nchw", &x);
    free_layer(&L);
    c = add_conv(g, x, 8, 8, 1, 1, 1, 0, 0, false, &r, &L, "c");
    cr_assert_eq(lg_graph_add_eltwise(g, c, LG_ELTWISE_RELU, 0, 0, &a), LG_OK);
    cr_assert_eq(lg_graph_add_output(g, a, "y", "nchw"), LG_OK);
    cr_assert_eq(lg_graph_add_output(g, c, "c", "nchw"), LG_OK);
    p = compile_with(g, LG_STRATEGY_NONE, NULL);
    cr_assert_eq(lg_plan_stats_get(p, &st), LG_OK);
    cr_expect_eq(st.steps, 2);
    lg_plan_destroy(p);
    lg_graph_destroy(g);
    t_free(&tx);
    t_free(&t0);
    free_layer(&L);
}

/* Residual adds: y = relu(conv2(relu(conv1(x))) + w) where w is x itself
 * (a graph input, src1) or relu(x) computed after the convs (so the fused
 * conv must move after it), with the add's operands in both orders. */
Test(graph_conv, residual_add_fuses) {
    lg_rng r = {3};
    int64_t xd[4] = {2, 16, 6, 5};
    for (int variant = 0; variant < 4; variant++) {
        bool late = variant & 1, swap = variant & 2;
        lg_value x, c1, a1, c2, w, s, y;
        lg_graph *g = graph_x(xd, "nchw", &x);
        layer L1, L2;
        c1 = add_conv(g, x, 16, 16, 3, 1, 1, 1, 0, true, &r, &L1, "c1");
        cr_assert_eq(lg_graph_add_eltwise(g, c1, LG_ELTWISE_RELU, 0, 0, &a1), LG_OK);
        c2 = add_conv(g, a1, 16, 16, 1, 1, 1, 0, 0, true, &r, &L2, "c2");
        w = x;
        if (late) cr_assert_eq(lg_graph_add_eltwise(g, x, LG_ELTWISE_RELU, 0.5f, 0, &w), LG_OK);
        cr_assert_eq(lg_graph_add_binary(g, LG_BINARY_ADD, swap ? w : c2, swap ? c2 : w, &s),
                     LG_OK);
        cr_assert_eq(lg_graph_add_eltwise(g, s, LG_ELTWISE_RELU, 0, 0, &y), LG_OK);
        cr_assert_eq(lg_graph_add_output(g, y, "y", "nchw"), LG_OK);
        tensor tx = t_rand(4, xd, &r, -1, 1);
        tensor t1 = ref_layer(&tx, &L1), u1 = ref_relu(&t1, 0), t2 = ref_layer(&u1, &L2);
        tensor tw = late ? ref_relu(&tx, 0.5f) : tx;
        tensor ts = ref_binary(0, &t2, &tw), want = ref_relu(&ts, 0);
        char what[64];
        snprintf(what, sizeof what, "residual late %d swap %d", late, swap);
        check_all(g, &tx, &want, what);
        /* NONE (plain everywhere): c1+relu, [relu(x)], copy of w into y's
         * buffer or in place, c2+sum+relu. */
        lg_plan *p = compile_with(g, LG_STRATEGY_NONE, NULL);
        lg_plan_stats st;
        cr_assert_eq(lg_plan_stats_get(p, &st), LG_OK);
        /* w = x (an input): it is copied into the output buffer first;
         * w = relu(x) (arena, dies at the add): c2 works in place on it,
         * then... y is the output, so w is copied too. */
        cr_expect_eq(st.steps, late ? 4 : 3, "%s: %d steps", what, st.steps);
        cr_expect_eq(st.runtime_reorders, 1, "%s: the copy", what);
        lg_plan_destroy(p);
        t_free(&tx);
        t_free(&t1);
        t_free(&u1);
        t_free(&t2);
        if (late) t_free(&tw);
        t_free(&ts);
        t_free(&want);
        free_layer(&L1);
        free_layer(&L2);
        lg_graph_destroy(g);
    }
}

/* A conv diamond: x -> convA -> relu -> a; x -> convB -> b; s = a + b ->
 * shuffle -> y. convA is added first but its residual b comes later: the
 * fused convA moves after convB and, b dying there, writes in place on b's
 * buffer (no copy). NONE: 3 steps, no reorder, one buffer of arena (b's,
 * holding A's result afterwards; the shuffle writes the caller's y). */
Test(graph_conv, diamond_with_late_residual_in_place) {
    lg_rng r = {4};
    int64_t xd[4] = {1, 16, 6, 6};
    lg_value x, ca, a, cb, s, y;
    lg_graph *g = graph_x(xd, "nchw", &x);
    layer LA, LB;
    ca = add_conv(g, x, 16, 32, 3, 1, 1, 1, 0, true, &r, &LA, "A");
    cr_assert_eq(lg_graph_add_eltwise(g, ca, LG_ELTWISE_RELU, 0, 0, &a), LG_OK);
    cb = add_conv(g, x, 16, 32, 1, 1, 1, 0, 0, false, &r, &LB, "B");
    cr_assert_eq(lg_graph_add_binary(g, LG_BINARY_ADD, a, cb, &s), LG_OK);
    cr_assert_eq(lg_graph_add_shuffle(g, s, 1, 4, &y), LG_OK);
    cr_assert_eq(lg_graph_add_output(g, y, "y", "nchw"), LG_OK);
    tensor tx = t_rand(4, xd, &r, -1, 1), ta0 = ref_layer(&tx, &LA), ta = ref_relu(&ta0, 0);
    tensor tb = ref_layer(&tx, &LB), ts = ref_binary(0, &ta, &tb), want = ref_shuffle(&ts, 1, 4);
    check_all(g, &tx, &want, "diamond");
    lg_plan *p = compile_with(g, LG_STRATEGY_NONE, NULL);
    lg_plan_stats st;
    cr_assert_eq(lg_plan_stats_get(p, &st), LG_OK);
    cr_expect_eq(st.steps, 3);
    cr_expect_eq(st.runtime_reorders, 0);
    cr_expect_eq(st.arena_bytes, 32 * 36 * 4, "b's buffer, reused in place by A's result");
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    cr_assert_eq(lg_plan_dump(p, f, "text"), LG_OK);
    fclose(f);
    cr_expect(strstr(text, "post:+relu+sum") != NULL, "%s", text);
    /* convB runs first: its line comes before convA's. */
    cr_expect(strstr(text, "k:1x1") < strstr(text, "k:3x3"), "%s", text);
    free(text);
    lg_plan_destroy(p);
    t_free(&tx);
    t_free(&ta0);
    t_free(&ta);
    t_free(&tb);
    t_free(&ts);
    t_free(&want);
    free_layer(&LA);
    free_layer(&LB);
    lg_graph_destroy(g);
}

/* Weights given through an explicit reorder (oihw -> ohwi), then read by the
 * conv in its own layout: a chain of two reorders of a constant, both
 * folded. A constant residual (y = conv(x) + c) is copied into the result
 * buffer before the fused conv. */
Test(graph_conv, folded_chains_and_constant_residual) {
    lg_rng r = {6};
    int64_t xd[4] = {1, 16, 5, 5}, wd[4] = {16, 16, 3, 3}, yd[4] = {1, 16, 5, 5};
    float scale = 1.0f / 12;
    tensor w = t_rand(4, wd, &r, -scale, scale), c = t_rand(4, yd, &r, -1, 1);
    lg_md wmd = md_tag(4, wd, "oihw"), ohwi = md_tag(4, wd, "ohwi"), cmd = md_tag(4, yd, "nchw");
    lg_value x, vw, vw2, vc, y, s;
    lg_graph *g = graph_x(xd, "nchw", &x);
    void *wb = t_pack(&w, &wmd), *cb = t_pack(&c, &cmd);
    cr_assert_eq(lg_graph_add_constant(g, "w", &wmd, wb, &vw), LG_OK);
    cr_assert_eq(lg_graph_add_constant(g, "c", &cmd, cb, &vc), LG_OK);
    free(wb);
    free(cb);
    cr_assert_eq(lg_graph_add_reorder(g, vw, &ohwi, NULL, &vw2), LG_OK);
    lg_conv_params p = {.strides = {1, 1}, .pad_l = {1, 1}, .pad_r = {1, 1}, .groups = 1};
    cr_assert_eq(lg_graph_add_conv(g, x, vw2, LG_NO_VALUE, &p, &y), LG_OK);
    cr_assert_eq(lg_graph_add_binary(g, LG_BINARY_ADD, y, vc, &s), LG_OK);
    cr_assert_eq(lg_graph_add_output(g, s, "y", "nchw"), LG_OK);
    tensor tx = t_rand(4, xd, &r, -1, 1), ty = ref_conv2d(&tx, &w, NULL, &p);
    tensor want = ref_binary(0, &ty, &c);
    check_all(g, &tx, &want, "folded chain + constant residual");
    lg_plan *pl = compile_with(g, LG_STRATEGY_NONE, NULL);
    lg_plan_stats st;
    cr_assert_eq(lg_plan_stats_get(pl, &st), LG_OK);
    cr_expect_eq(st.folded_reorders, 0, "oihw -> ohwi -> oihw cancels: nothing to fold");
    cr_expect_eq(st.steps, 2, "the copy of c, then conv+sum");
    cr_expect_eq(st.runtime_reorders, 1);
    lg_plan_destroy(pl);
    pl = compile_with(g, LG_STRATEGY_NONE, "eliminate_reorders");
    cr_assert_eq(lg_plan_stats_get(pl, &st), LG_OK);
    cr_expect_eq(st.folded_reorders, 2, "oihw -> ohwi -> oihw, both at compile time");
    cr_expect_eq(st.steps, 2, "the copy of c, then conv+sum");
    lg_plan_destroy(pl);
    pl = compile_with(g, LG_STRATEGY_NONE, "fold_constants,eliminate_reorders");
    cr_assert_eq(lg_plan_stats_get(pl, &st), LG_OK);
    cr_expect_eq(st.folded_reorders, 0);
    cr_expect_eq(st.steps, 4, "two weight reorders at run time, the copy, the conv");
    lg_plan_destroy(pl);
    t_free(&w);
    t_free(&c);
    t_free(&tx);
    t_free(&ty);
    t_free(&want);
    lg_graph_destroy(g);
}

static int released[2];
static void count_release(void *ctx) {
    released[(int *)ctx - released]++;
}

/* lg_graph_add_constant_ref: weights and bias read in place (not copied),
 * correct under every strategy and pass set; released exactly once, by
 * lg_graph_destroy; a plan keeps no pointer into them (it still computes
 * the same after they are overwritten and released). Refused: no release
 * callback, data not 64-byte aligned, a name already used (nothing kept,
 * release not called). */
Test(graph_conv, constant_ref_borrows_and_releases) {
    lg_rng r = {11};
    int64_t xd[4] = {2, 24, 6, 6}, wd[4] = {32, 24, 3, 3}, bd[1] = {32};
    float scale = 1.0f / 15;
    tensor w = t_rand(4, wd, &r, -scale, scale), b = t_rand(1, bd, &r, -1, 1);
    lg_md wmd = md_tag(4, wd, "oihw"), bmd = md_tag(1, bd, "a");
    void *wb = t_pack(&w, &wmd), *bb = t_pack(&b, &bmd);
    lg_value x, vw, vb, y, bad;
    released[0] = released[1] = 0;
    lg_graph *g = graph_x(xd, "nchw", &x);
    cr_assert_eq(lg_graph_add_constant_ref(g, "w", &wmd, wb, count_release, &released[0], &vw),
                 LG_OK, "%s", lg_last_error());
    cr_assert_eq(lg_graph_add_constant_ref(g, "b", &bmd, bb, count_release, &released[1], &vb),
                 LG_OK, "%s", lg_last_error());
    cr_expect_eq(lg_graph_add_constant_ref(g, "c", &bmd, bb, NULL, NULL, &bad),
                 LG_INVALID_ARGUMENT);
    cr_expect(strstr(lg_last_error(), "release") != NULL, "%s", lg_last_error());
    cr_expect_eq(
        lg_graph_add_constant_ref(g, "c", &bmd, (char *)bb + 4, count_release, &released[1], &bad),
        LG_INVALID_ARGUMENT);
    cr_expect(strstr(lg_last_error(), "aligned") != NULL, "%s", lg_last_error());
    cr_expect_eq(lg_graph_add_constant_ref(g, "w", &bmd, bb, count_release, &released[1], &bad),
                 LG_INVALID_ARGUMENT, "a name already used");
    cr_expect_eq(released[0] + released[1], 0, "refusals release nothing");
    lg_conv_params p = {.strides = {1, 1}, .pad_l = {1, 1}, .pad_r = {1, 1}, .groups = 1};
    cr_assert_eq(lg_graph_add_conv(g, x, vw, vb, &p, &y), LG_OK);
    cr_assert_eq(lg_graph_add_output(g, y, "y", "nchw"), LG_OK);
    tensor tx = t_rand(4, xd, &r, -1, 1), want = ref_conv2d(&tx, &w, &b, &p);
    check_all(g, &tx, &want, "weights and bias by reference");
    lg_plan *pl[2] = {compile_with(g, LG_STRATEGY_OPTIMAL, NULL),
                      compile_with(g, LG_STRATEGY_NONE, "fold_constants")};
    cr_expect_eq(released[0] + released[1], 0, "compiling releases nothing");
    lg_graph_destroy(g);
    cr_expect_eq(released[0], 1, "the weights released once");
    cr_expect_eq(released[1], 1, "the bias released once");
    memset(wb, 0xff, lg_md_size(&wmd)); /* NaN: a plan reading them would show it */
    memset(bb, 0xff, lg_md_size(&bmd));
    free(wb);
    free(bb);
    for (int k = 0; k < 2; k++) {
        const char *in = "x", *out = "y";
        tensor got;
        run_plan(pl[k], 1, &in, &tx, 1, &out, &got);
        t_expect_near(&got, &want, ATOL, RTOL, k ? "plan without folding" : "optimal plan");
        t_free(&got);
        lg_plan_destroy(pl[k]);
    }
    t_free(&w);
    t_free(&b);
    t_free(&tx);
    t_free(&want);
}

/* ---- Winograd layers sharing one cached kernel (issue 24) ---- */

/* A 3x3 pad-1 conv c -> c asking for Winograd, random weights into L. */
static lg_value add_wino(lg_graph *g, lg_value src, int64_t c, lg_rng *r, layer *L,
                         const char *name) {
    memset(L, 0, sizeof *L);
    L->p = (lg_conv_params){.strides = {1, 1}, .pad_l = {1, 1}, .pad_r = {1, 1}, .groups = 1};
    L->p.alg = LG_CONV_WINOGRAD;
    int64_t wd[4] = {c, c, 3, 3};
    float scale = 1.0f / sqrtf((float)(c * 9));
    L->w = t_rand(4, wd, r, -scale, scale);
    lg_md wmd = md_tag(4, wd, "oihw");
    void *wb = t_pack(&L->w, &wmd);
    lg_value w, y;
    cr_assert_eq(lg_graph_add_constant(g, name, &wmd, wb, &w), LG_OK, "%s", lg_last_error());
    free(wb);
    cr_assert_eq(lg_graph_add_conv(g, src, w, LG_NO_VALUE, &L->p, &y), LG_OK, "%s",
                 lg_last_error());
    return y;
}

/* Steps of p whose impl names the Winograd path. */
static int wino_steps(const lg_plan *p, const tensor *x) {
    lg_plan_stats st;
    cr_assert_eq(lg_plan_stats_get(p, &st), LG_OK);
    lg_md mi, mo;
    cr_assert_eq(lg_plan_query_md(p, "x", &mi), LG_OK);
    cr_assert_eq(lg_plan_query_md(p, "y", &mo), LG_OK);
    lg_binding bi = {"x", t_pack(x, &mi)}, bo = {"y", t_garbage(&mo)};
    lg_step_profile *sp = calloc((size_t)st.steps, sizeof *sp);
    cr_assert_eq(lg_plan_profile(p, 1, &bi, 1, &bo, 1, sp, st.steps), LG_OK, "%s", lg_last_error());
    int n = 0;
    for (int i = 0; i < st.steps; i++) n += strstr(sp[i].impl, "wino4x4") != NULL;
    free(sp);
    free(bi.data);
    free(bo.data);
    return n;
}

/* Layers of one shape share one kernel through the cache, within a plan
 * and between plans, each with its own constant weights: every step keeps
 * the transform of its own weights (made at compile time), and a direct
 * user of the same kernel changing the weights between executes neither
 * disturbs the plans nor is disturbed by them. Plans are run interleaved,
 * in both orders, at every ISA cap with AVX2. */
Test(graph_conv, winograd_shared_kernel) {
    if (lg__cpu_isa_hw() < LG_ISA_AVX2) cr_skip_test("no AVX2");
    int caps[3], ncaps = isa_caps(caps);
    for (int c = 0; c < ncaps; c++) {
        if (caps[c] < LG_ISA_AVX2) continue;
        lg__cpu_set_isa_cap(caps[c]);
        lg_rng r = {41 + (uint64_t)c};
        int64_t xd[4] = {1, 16, 8, 8};
        tensor x = t_rand(4, xd, &r, -1, 1);
        layer L[3];
        lg_value gx, hx;
        lg_graph *g1 = graph_x(xd, "nchw", &gx), *g2 = graph_x(xd, "nchw", &hx);
        lg_value y1 = add_wino(g1, gx, 16, &r, &L[0], "a.w");
        y1 = add_wino(g1, y1, 16, &r, &L[1], "b.w");
        cr_assert_eq(lg_graph_add_output(g1, y1, "y", "nchw"), LG_OK);
        lg_value y2 = add_wino(g2, hx, 16, &r, &L[2], "c.w");
        cr_assert_eq(lg_graph_add_output(g2, y2, "y", "nchw"), LG_OK);
        tensor t1 = ref_layer(&x, &L[0]), want1 = ref_layer(&t1, &L[1]),
               want2 = ref_layer(&x, &L[2]);
        lg_plan *p1 = compile_with(g1, LG_STRATEGY_OPTIMAL, NULL),
                *p2 = compile_with(g2, LG_STRATEGY_OPTIMAL, NULL);
        cr_expect_eq(wino_steps(p1, &x), 2, "plan 1 runs both layers by Winograd");
        cr_expect_eq(wino_steps(p2, &x), 1, "plan 2 runs its layer by Winograd");
        /* A direct user of the plans' kernel (same problem: the cache's
         * kernel), with weights of its own that change between calls. */
        lg_md sm, wm, dm;
        sm = md_tag(4, xd, caps[c] >= LG_ISA_AVX512 ? "aBcd16b" : "aBcd8b");
        int64_t wd[4] = {16, 16, 3, 3};
        wm = md_tag(4, wd, "any");
        dm = sm;
        lg_kernel *k;
        cr_assert_eq(lg_conv_create(&k, &L[2].p, &sm, &wm, NULL, &dm, NULL), LG_OK, "%s",
                     lg_last_error());
        cr_expect(strstr(lg_kernel_impl(k), "wino4x4") != NULL, "%s", lg_kernel_impl(k));
        lg_md kw;
        cr_assert_eq(lg_kernel_query_md(k, LG_ARG_WEIGHTS, &kw), LG_OK);
        void *ks = t_pack(&x, &sm), *kd = t_garbage(&dm);
        for (int rep = 0; rep < 4; rep++) {
            const char *in = "x", *out = "y";
            tensor got;
            run_plan(rep % 2 ? p2 : p1, 1, &in, &x, 1, &out, &got);
            t_expect_near(&got, rep % 2 ? &want2 : &want1, ATOL, RTOL,
                          rep % 2 ? "plan 2" : "plan 1 (two layers, one kernel)");
            t_free(&got);
            run_plan(rep % 2 ? p1 : p2, 1, &in, &x, 1, &out, &got);
            t_expect_near(&got, rep % 2 ? &want1 : &want2, ATOL, RTOL, "the other plan");
            t_free(&got);
            /* The direct user: layer rep % 3's weights. */
            const layer *Lk = &L[rep % 3];
            void *kwb = t_pack(&Lk->w, &kw);
            lg_arg args[3] = {{LG_ARG_SRC, ks}, {LG_ARG_WEIGHTS, kwb}, {LG_ARG_DST, kd}};
            cr_assert_eq(lg_kernel_execute(k, 3, args), LG_OK, "%s", lg_last_error());
            tensor kgot = t_unpack(&dm, kd), kwant = ref_layer(&x, Lk);
            t_expect_near(&kgot, &kwant, ATOL, RTOL, "direct user of the shared kernel");
            t_free(&kgot);
            t_free(&kwant);
            free(kwb);
        }
        free(ks);
        free(kd);
        lg_kernel_destroy(k);
        lg_plan_destroy(p1);
        lg_plan_destroy(p2);
        lg_graph_destroy(g1);
        lg_graph_destroy(g2);
        for (int i = 0; i < 3; i++) free_layer(&L[i]);
        t_free(&x);
        t_free(&t1);
        t_free(&want1);
        t_free(&want2);
    }
    lg__cpu_set_isa_cap(-1);
}
