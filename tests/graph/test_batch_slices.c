/* Micro-batching (lg_compile_options.batch_slices): a plan compiled from a
 * graph built at batch b with R slices takes inputs and outputs of batch R
 * * b and computes what the graph computes on each slice. Checked against
 * the scalar references of graph_ref.h on the whole batch, under every
 * strategy and ISA cap; the statistics, profile and dump that describe the
 * slices; and the errors: an option out of range, and inputs or outputs
 * whose layout does not keep dim 0 outermost (their slices would not be
 * consecutive). */
#include "graph/graph_ref.h"
#include "primitives/cpu.h"

#include <string.h>

#define ATOL 1e-4f
#define RTOL 1e-4f

static const lg_strategy strategies[] = {LG_STRATEGY_NONE, LG_STRATEGY_GREEDY, LG_STRATEGY_OPTIMAL};

/* The weights of the graph, kept for the reference. */
typedef struct weights {
    tensor cw, cb, fw, fb;
} weights;

static weights make_weights(lg_rng *r) {
    int64_t cwd[4] = {20, 3, 3, 3}, cbd[1] = {20}, fwd[2] = {10, 20 * 8 * 8}, fbd[1] = {10};
    return (weights){t_rand(4, cwd, r, -0.3f, 0.3f), t_rand(1, cbd, r, -0.5f, 0.5f),
                     t_rand(2, fwd, r, -0.05f, 0.05f), t_rand(1, fbd, r, -0.5f, 0.5f)};
}

static void free_weights(weights *w) {
    t_free(&w->cw), t_free(&w->cb), t_free(&w->fw), t_free(&w->fb);
}

/* x (n x 3 x 8 x 8, tag xtag) -> conv 3x3 pad 1 to 20 channels + bias ->
 * relu -> output "a" (tag atag) and -> flatten -> inner product 1280 -> 10
 * -> output "y" (tag ytag). */
static lg_graph *build(int64_t n, const weights *w, const char *xtag, const char *atag,
                       const char *ytag) {
    lg_graph *g;
    cr_assert_eq(lg_graph_create(&g), LG_OK);
    int64_t xd[4] = {n, 3, 8, 8}, fd[2] = {n, 20 * 8 * 8};
    lg_md xmd = md_tag(4, xd, xtag), cwm = md_tag(4, w->cw.dims, "oihw"),
          cbm = md_tag(1, w->cb.dims, "a"), fwm = md_tag(2, w->fw.dims, "ab"),
          fbm = md_tag(1, w->fb.dims, "a");
    lg_value x, cw, cb, fw, fb, c, a, f, y;
    cr_assert_eq(lg_graph_add_input(g, "x", &xmd, &x), LG_OK);
    cr_assert_eq(lg_graph_add_constant(g, "cw", &cwm, w->cw.d, &cw), LG_OK);
    cr_assert_eq(lg_graph_add_constant(g, "cb", &cbm, w->cb.d, &cb), LG_OK);
    cr_assert_eq(lg_graph_add_constant(g, "fw", &fwm, w->fw.d, &fw), LG_OK);
    cr_assert_eq(lg_graph_add_constant(g, "fb", &fbm, w->fb.d, &fb), LG_OK);
    lg_conv_params p = {.strides = {1, 1}, .pad_l = {1, 1}, .pad_r = {1, 1}, .groups = 1};
    cr_assert_eq(lg_graph_add_conv(g, x, cw, cb, &p, &c), LG_OK, "%s", lg_last_error());
    cr_assert_eq(lg_graph_add_eltwise(g, c, LG_ELTWISE_RELU, 0, 0, &a), LG_OK);
    cr_assert_eq(lg_graph_add_output(g, a, "a", atag), LG_OK);
    cr_assert_eq(lg_graph_add_reshape(g, a, 2, fd, &f), LG_OK, "%s", lg_last_error());
    cr_assert_eq(lg_graph_add_inner_product(g, f, fw, fb, &y), LG_OK, "%s", lg_last_error());
    cr_assert_eq(lg_graph_add_output(g, y, "y", ytag), LG_OK);
    return g;
}

/* The graph's results on the whole batch x, in double-accumulated scalar
 * code: a = relu(conv(x)), y = flatten(a) fw^T + fb. */
static void reference(const tensor *x, const weights *w, tensor *a, tensor *y) {
    lg_conv_params p = {.strides = {1, 1}, .pad_l = {1, 1}, .pad_r = {1, 1}, .groups = 1};
    tensor c = ref_conv2d(x, &w->cw, &w->cb, &p);
    *a = ref_relu(&c, 0);
    t_free(&c);
    int64_t n = x->dims[0], k = w->fw.dims[1], oc = w->fw.dims[0], yd[2] = {n, oc};
    *y = t_new(2, yd);
    for (int64_t i = 0; i < n; i++)
        for (int64_t o = 0; o < oc; o++) {
            double acc = w->fb.d[o];
            for (int64_t j = 0; j < k; j++) acc += (double)a->d[i * k + j] * w->fw.d[o * k + j];
            y->d[i * oc + o] = (float)acc;
        }
}

static lg_plan *compile_sliced(const lg_graph *g, lg_strategy st, int slices) {
    lg_compile_options o;
    lg_compile_options_init(&o);
    o.strategy = st;
    o.batch_slices = slices;
    lg_plan *p = NULL;
    cr_assert_eq(lg_graph_compile(g, &o, &p), LG_OK, "compile (%s, %d slices): %s",
                 strategy_name(st), slices, lg_last_error());
    return p;
}

/* Batches b x R in several splits, every strategy, every ISA cap: both
 * outputs against the reference on the whole batch, dim 0 of the plan's
 * inputs and outputs R * b, and the outputs' padding zero (run_plan). */
Test(batch_slices, whole_batch_matches_reference) {
    lg_rng r = {0xb51c};
    weights w = make_weights(&r);
    const int64_t splits[][2] = {{1, 4}, {2, 3}, {3, 2}, {5, 1}};
    for (int isa = 0; isa <= (int)lg__cpu_isa_hw(); isa++) {
        lg__cpu_set_isa_cap(isa);
        for (size_t k = 0; k < sizeof splits / sizeof splits[0]; k++) {
            int64_t b = splits[k][0], slices = splits[k][1], n = b * slices;
            int64_t xd[4] = {n, 3, 8, 8};
            tensor x = t_rand(4, xd, &r, -1, 1), want[2];
            reference(&x, &w, &want[0], &want[1]);
            lg_graph *g = build(b, &w, "nchw", "any", "any");
            for (int s = 0; s < 3; s++) {
                lg_plan *p = compile_sliced(g, strategies[s], (int)slices);
                lg_md md;
                cr_assert_eq(lg_plan_query_md(p, "x", &md), LG_OK);
                cr_assert_eq(md.dims[0], n);
                cr_assert_eq(lg_plan_query_md(p, "y", &md), LG_OK);
                cr_assert_eq(md.dims[0], n);
                const char *in = "x", *outs[2] = {"a", "y"};
                tensor got[2];
                run_plan(p, 1, &in, &x, 2, outs, got);
                char msg[128];
                for (int o = 0; o < 2; o++) {
                    snprintf(msg, sizeof msg, "%s: b %lld x %lld slices, isa %d, %s", outs[o],
                             (long long)b, (long long)slices, isa, strategy_name(strategies[s]));
                    t_expect_near(&got[o], &want[o], ATOL, RTOL, msg);
                    t_free(&got[o]);
                }
                lg_plan_destroy(p);
            }
            lg_graph_destroy(g);
            t_free(&x), t_free(&want[0]), t_free(&want[1]);
        }
    }
    lg__cpu_set_isa_cap(-1);
    free_weights(&w);
}

/* The counters describe one slice, batch_slices and model_ms the execute;
 * a profile's step sums its slices' runs and scales flops; the text dump
 * says the plan runs slices. */
Test(batch_slices, stats_profile_dump) {
    lg_rng r = {0xb51d};
    weights w = make_weights(&r);
    lg_graph *g = build(2, &w, "nchw", "any", "any");
    lg_plan *one = compile_sliced(g, LG_STRATEGY_OPTIMAL, 0);
    lg_plan *four = compile_sliced(g, LG_STRATEGY_OPTIMAL, 4);
    lg_plan_stats s1, s4;
    cr_assert_eq(lg_plan_stats_get(one, &s1), LG_OK);
    cr_assert_eq(lg_plan_stats_get(four, &s4), LG_OK);
    cr_assert_eq(s1.batch_slices, 1);
    cr_assert_eq(s4.batch_slices, 4);
    cr_assert_eq(s4.steps, s1.steps);
    cr_assert_eq(s4.arena_bytes, s1.arena_bytes);
    /* The constants: at least the conv's and the IP's weights and biases. */
    cr_assert_geq(s1.const_bytes, (20 * 3 * 3 * 3 + 20 + 10 * 1280 + 10) * 4);
    cr_assert_eq(s4.const_bytes, s1.const_bytes);
    cr_assert_float_eq(s4.model_ms, 4 * s1.model_ms, 1e-9 * s1.model_ms + 1e-12);

    int64_t xd[4] = {8, 3, 8, 8};
    tensor x = t_rand(4, xd, &r, -1, 1);
    lg_md xm, am, ym;
    cr_assert_eq(lg_plan_query_md(four, "x", &xm), LG_OK);
    cr_assert_eq(lg_plan_query_md(four, "a", &am), LG_OK);
    cr_assert_eq(lg_plan_query_md(four, "y", &ym), LG_OK);
    void *xb = t_pack(&x, &xm), *ab = t_garbage(&am), *yb = t_garbage(&ym);
    lg_binding in = {"x", xb}, out[2] = {{"a", ab}, {"y", yb}};
    lg_step_profile *prof1 = calloc((size_t)s1.steps, sizeof *prof1),
                    *prof4 = calloc((size_t)s4.steps, sizeof *prof4);
    cr_assert_eq(lg_plan_profile(four, 1, &in, 2, out, 2, prof4, s4.steps), LG_OK, "%s",
                 lg_last_error());
    for (int i = 0; i < s4.steps; i++) cr_assert(prof4[i].ms > 0, "step %d", i);
    /* The same steps, one slice each, through the unsliced plan on 2 items. */
    lg_md xm1, am1, ym1;
    cr_assert_eq(lg_plan_query_md(one, "x", &xm1), LG_OK);
    cr_assert_eq(lg_plan_query_md(one, "a", &am1), LG_OK);
    cr_assert_eq(lg_plan_query_md(one, "y", &ym1), LG_OK);
    cr_assert_eq(xm1.dims[0], 2);
    void *ab1 = t_garbage(&am1), *yb1 = t_garbage(&ym1);
    lg_binding in1 = {"x", xb}, out1[2] = {{"a", ab1}, {"y", yb1}};
    cr_assert_eq(lg_plan_profile(one, 1, &in1, 2, out1, 1, prof1, s1.steps), LG_OK);
    for (int i = 0; i < s1.steps; i++) {
        cr_assert_float_eq(prof4[i].flops, 4 * prof1[i].flops, 1e-6 * prof1[i].flops + 1e-9);
        cr_assert_eq(prof4[i].bytes, 4 * prof1[i].bytes);
    }
    /* The first slice of the sliced run is the unsliced run on its 2 items. */
    cr_assert_eq(memcmp(yb, yb1, lg_md_size(&ym1)), 0);

    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    cr_assert_eq(lg_plan_dump(four, f, "text"), LG_OK);
    fclose(f);
    cr_assert(strstr(text, "batch slices: 4"), "%s", text);
    free(text);
    free(prof1), free(prof4), free(xb), free(ab), free(yb), free(ab1), free(yb1);
    t_free(&x);
    lg_plan_destroy(one);
    lg_plan_destroy(four);
    lg_graph_destroy(g);
    free_weights(&w);
}

/* Out-of-range options, and layouts whose dim 0 is not outermost, fail the
 * compile with a message naming the option or the input or output. */
Test(batch_slices, errors) {
    lg_rng r = {0xb51e};
    weights w = make_weights(&r);
    lg_graph *g = build(2, &w, "nchw", "any", "any");
    lg_compile_options o;
    lg_compile_options_init(&o);
    lg_plan *p = NULL;
    const int bad[] = {-1, (1 << 20) + 1, -2147483647 - 1};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        o.batch_slices = bad[i];
        cr_assert_eq(lg_graph_compile(g, &o, &p), LG_INVALID_ARGUMENT);
        cr_assert(strstr(lg_last_error(), "batch_slices"), "%s", lg_last_error());
        cr_assert_null(p);
    }
    lg_graph_destroy(g);

    /* An output in "ba" (batch innermost), an input in "bacd", an output
     * blocked on dim 0: each compiles unsliced, and sliced fails naming it. */
    const char *cases[][4] = {{"nchw", "any", "ba", "'y'"},
                              {"bacd", "any", "any", "'x'"},
                              {"nchw", "Abcd8a", "any", "'a'"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        g = build(2, &w, cases[i][0], cases[i][1], cases[i][2]);
        o.batch_slices = 1;
        cr_assert_eq(lg_graph_compile(g, &o, &p), LG_OK, "%s", lg_last_error());
        lg_plan_destroy(p);
        p = NULL;
        o.batch_slices = 3;
        cr_assert_eq(lg_graph_compile(g, &o, &p), LG_UNIMPLEMENTED, "case %zu", i);
        cr_assert(strstr(lg_last_error(), cases[i][3]), "%s", lg_last_error());
        cr_assert(strstr(lg_last_error(), "dim 0"), "%s", lg_last_error());
        cr_assert_null(p);
        lg_graph_destroy(g);
    }
    free_weights(&w);
}
