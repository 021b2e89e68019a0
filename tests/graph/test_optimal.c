/* LG_STRATEGY_OPTIMAL against exhaustive enumeration.
 *
 * A seeded generator builds random DAGs of up to 10 nodes (convs 1x1/3x3,
 * relu, shuffles, adds joining two earlier values, explicit reorders; inputs
 * fixed in nchw or "any"; outputs in nchw or "any", some values both outputs
 * and inputs of other nodes). For each, every assignment of the OPTIMAL
 * search space is applied and costed with the cost model itself
 * (lg__cost_assignment, independent of the factor tables the solver sees):
 * the strategy must reach that minimum exactly and say it is exact, and
 * never cost more than GREEDY or NONE. Compiled plans of both strategies
 * must compute the same outputs. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "passes/cost_model.h"
#include "passes/layout_space.h"
#include "passes/passes.h"
#include "test_util.h"

#define MAXV 24

typedef struct gen {
    lg_graph *g;
    lg_value vals[MAXV];
    int64_t ch[MAXV]; /* channels of each value */
    int src[MAXV][2]; /* the generated values each value reads (-1: none) */
    int nv, nnodes, nconst;
} gen;

static lg_value weights(gen *G, lg_rng *r, int64_t oc, int64_t ic, int64_t k) {
    lg_graph *g = G->g;
    char name[16];
    snprintf(name, sizeof name, "w%d", G->nconst++);
    int64_t d[4] = {oc, ic, k, k};
    lg_md md;
    cr_assert_eq(lg_md_init_tag(&md, 4, d, LG_F32, "oihw"), LG_OK);
    size_t n = lg_md_size(&md) / 4;
    float *w = malloc(n * 4);
    for (size_t i = 0; i < n; i++) w[i] = lg_rng_float(r, -0.5f, 0.5f) / (float)(ic * k);
    lg_value v;
    cr_assert_eq(lg_graph_add_constant(g, name, &md, w, &v), LG_OK, "%s", lg_last_error());
    free(w);
    return v;
}

/* A random graph of `nodes` nodes on [1, C, 5, 5] tensors. */
static void generate(gen *G, lg_rng *r, int nodes) {
    memset(G, 0, sizeof *G);
    cr_assert_eq(lg_graph_create(&G->g), LG_OK);
    int ninputs = 1 + (int)(lg_rng_next(r) % 2);
    for (int i = 0; i < ninputs; i++) {
        int64_t c = i == 0 ? 16 : 24, d[4] = {1, c, 5, 5};
        lg_md md;
        if (lg_rng_next(r) % 3 == 0)
            cr_assert_eq(lg_md_init_tag(&md, 4, d, LG_F32, "any"), LG_OK);
        else
            cr_assert_eq(lg_md_init_tag(&md, 4, d, LG_F32, "nchw"), LG_OK);
        char name[16];
        snprintf(name, sizeof name, "x%d", i);
        cr_assert_eq(lg_graph_add_input(G->g, name, &md, &G->vals[G->nv]), LG_OK);
        G->src[G->nv][0] = G->src[G->nv][1] = -1;
        G->ch[G->nv++] = c;
    }
    while (G->nnodes < nodes) {
        int a = (int)(lg_rng_next(r) % (uint64_t)G->nv);
        lg_value src = G->vals[a], out;
        int64_t c = G->ch[a], oc = c;
        lg_status s;
        int b2 = -1;
        switch (lg_rng_next(r) % 6) {
        case 0: { /* conv, sometimes changing the channel count */
            int64_t k = lg_rng_next(r) % 2 ? 3 : 1;
            oc = lg_rng_next(r) % 3 == 0 ? 24 : 16;
            lg_conv_params p = {
                .strides = {1, 1}, .pad_l = {k / 2, k / 2}, .pad_r = {k / 2, k / 2}, .groups = 1};
            s = lg_graph_add_conv(G->g, src, weights(G, r, oc, c, k), LG_NO_VALUE, &p, &out);
            break;
        }
        case 1:
        case 2:
            s = lg_graph_add_eltwise(G->g, src, LG_ELTWISE_RELU, 0, 0, &out);
            break;
        case 3:
            s = lg_graph_add_shuffle(G->g, src, 1, lg_rng_next(r) % 2 ? 4 : c / 4, &out);
            break;
        case 4: { /* add two values of the same shape */
            int b = -1;
            for (int t = 0; t < G->nv && b < 0; t++) {
                int cand = (int)((a + 1 + t) % G->nv);
                if (G->ch[cand] == c) b = cand;
            }
            b2 = b;
            s = lg_graph_add_binary(G->g, LG_BINARY_ADD, src, G->vals[b], &out);
            break;
        }
        default: { /* an explicit reorder to nhwc or nChw8c */
            int64_t d[4] = {1, c, 5, 5};
            lg_md md;
            cr_assert_eq(lg_md_init_tag(&md, 4, d, LG_F32, lg_rng_next(r) % 2 ? "nhwc" : "nChw8c"),
                         LG_OK);
            s = lg_graph_add_reorder(G->g, src, &md, NULL, &out);
        }
        }
        cr_assert_eq(s, LG_OK, "%s", lg_last_error());
        G->src[G->nv][0] = a;
        G->src[G->nv][1] = b2;
        G->vals[G->nv] = out;
        G->ch[G->nv++] = oc;
        G->nnodes++;
    }
    /* Every value nothing reads is an output (so nothing is unreachable), in
     * nchw or "any"; a random other one may be an output as well (a value
     * both read and returned). */
    bool read[MAXV] = {false};
    for (int v = 0; v < G->nv; v++)
        for (int u = 0; u < G->nv; u++)
            if (G->src[u][0] == v || G->src[u][1] == v) read[v] = true;
    int nouts = 0;
    for (int v = G->nv - 1; v >= 0; v--) {
        if (read[v] && lg_rng_next(r) % 6 != 0) continue;
        char name[16];
        snprintf(name, sizeof name, "y%d", nouts++);
        cr_assert_eq(
            lg_graph_add_output(G->g, G->vals[v], name, lg_rng_next(r) % 2 ? "nchw" : "any"), LG_OK,
            "%s", lg_last_error());
    }
}

/* The minimum of the cost model over every assignment of the space, or -1
 * when the space has more than `limit` assignments. */
static double brute_min(lg__graph *ir, const lg__layout_space *s, double limit) {
    double total = 1;
    for (int i = 0; i < s->nvars; i++) total *= s->ncand[i];
    if (total > limit) return -1;
    int ch[64] = {0};
    double best = INFINITY;
    for (;;) {
        lg__layout_space_apply(ir, s, ch);
        double c = lg__cost_assignment(ir);
        if (c < best) best = c;
        int i = 0;
        while (i < s->nvars && ++ch[i] == s->ncand[i]) ch[i++] = 0;
        if (i == s->nvars) break;
    }
    return best;
}

/* The model cost of a strategy on a fresh copy of g. */
static double strategy_cost(const lg_graph *g, lg__strategy_fn fn, bool fuse, bool *exact) {
    lg__graph ir;
    cr_assert_eq(lg__ir_init(&ir, g), LG_OK, "%s", lg_last_error());
    ir.fuse = fuse;
    cr_assert_eq(lg__pass_infer_shapes(&ir), LG_OK, "%s", lg_last_error());
    cr_assert_eq(fn(&ir), LG_OK, "%s", lg_last_error());
    double c = lg__cost_assignment(&ir);
    if (exact) *exact = ir.exact;
    lg__ir_free(&ir);
    return c;
}

/* The generator's graphs whose search space has at most 1e5 assignments
 * (larger ones are drawn again: enumeration is the truth here, and it must
 * stay fast); 200 of them, 1 to 10 nodes (50 under AddressSanitizer, which
 * makes enumeration about four times slower; the plain run covers all). */
#ifdef __SANITIZE_ADDRESS__
#define ENUMERATED_GRAPHS 50
#else
#define ENUMERATED_GRAPHS 200
#endif
Test(optimal, matches_exhaustive_enumeration_on_random_dags) {
    lg_rng r = {20261121};
    int checked = 0, redrawn = 0, max_nodes = 0, better = 0;
    double saved = 0;
    while (checked < ENUMERATED_GRAPHS) {
        gen G;
        generate(&G, &r, 1 + checked % 10);
        bool fuse = checked % 2 == 0; /* the cost model with and without fusion */
        lg__graph ir;
        cr_assert_eq(lg__ir_init(&ir, G.g), LG_OK);
        ir.fuse = fuse;
        cr_assert_eq(lg__pass_infer_shapes(&ir), LG_OK, "%s", lg_last_error());
        lg__layout_space s;
        cr_assert_eq(lg__layout_space_build(&ir, &s), LG_OK, "%s", lg_last_error());
        cr_assert(!s.too_large, "graph %d: %s", checked, s.why);
        double best = brute_min(&ir, &s, 1e5);
        lg__layout_space_free(&s);
        lg__ir_free(&ir);
        if (best < 0) {
            cr_assert_lt(++redrawn, 2000, "the generator keeps drawing spaces over 1e5");
            lg_graph_destroy(G.g);
            continue;
        }
        bool exact = false;
        double opt = strategy_cost(G.g, lg__propagate_optimal, fuse, &exact);
        double greedy = strategy_cost(G.g, lg__propagate_greedy, fuse, NULL);
        double none = strategy_cost(G.g, lg__propagate_none, fuse, NULL);
        cr_assert(exact, "graph %d: not exact", checked);
        cr_assert(fabs(opt - best) <= 1e-9 * best, "graph %d (%d nodes): optimal %.17g, min %.17g",
                  checked, G.nnodes, opt, best);
        cr_assert(opt <= greedy * (1 + 1e-12) && opt <= none * (1 + 1e-12),
                  "graph %d: optimal %g greedy %g none %g", checked, opt, greedy, none);
        if (opt < greedy * (1 - 1e-12)) {
            better++;
            saved += 1 - opt / greedy;
        }
        if (G.nnodes > max_nodes) max_nodes = G.nnodes;
        checked++;
        lg_graph_destroy(G.g);
    }
    cr_assert_eq(max_nodes, 10);
    cr_log_info("%d graphs enumerated, %d redrawn for a space over 1e5; OPTIMAL cheaper than "
                "GREEDY on %d (by %.1f%% on average there)",
                checked, redrawn, better, better ? 100 * saved / better : 0.0);
}

/* Run a compiled plan on seeded inputs; returns the outputs concatenated
 * (each in the layout the plan reports, converted to nchw by a reorder). */
static float *run(const lg_graph *g, lg_strategy st, size_t *n_out, double *cost) {
    lg_compile_options opts;
    lg_compile_options_init(&opts);
    opts.strategy = st;
    lg_plan *plan;
    cr_assert_eq(lg_graph_compile(g, &opts, &plan), LG_OK, "%s", lg_last_error());
    lg_plan_stats stats;
    cr_assert_eq(lg_plan_stats_get(plan, &stats), LG_OK);
    *cost = stats.model_cost;
    lg_binding in[2], out[16];
    void *bufs[10];
    int nin = 0, nout = 0;
    for (int i = 0; i < 2; i++) {
        char name[16];
        snprintf(name, sizeof name, "x%d", i);
        lg_md md;
        if (lg_plan_query_md(plan, name, &md) != LG_OK) continue;
        float *x = malloc(lg_md_size(&md));
        size_t n = lg_md_size(&md) / 4;
        lg_rng r = {7 + (uint64_t)i};
        for (size_t e = 0; e < n; e++) x[e] = lg_rng_float(&r, -0.5f, 0.5f);
        /* Same logical values whatever the layout: write them through offsets. */
        float *logical = malloc(lg_md_size(&md));
        memset(logical, 0, lg_md_size(&md));
        int64_t idx[4];
        for (idx[0] = 0; idx[0] < md.dims[0]; idx[0]++)
            for (idx[1] = 0; idx[1] < md.dims[1]; idx[1]++)
                for (idx[2] = 0; idx[2] < md.dims[2]; idx[2]++)
                    for (idx[3] = 0; idx[3] < md.dims[3]; idx[3]++) {
                        int64_t flat =
                            ((idx[0] * md.dims[1] + idx[1]) * md.dims[2] + idx[2]) * md.dims[3] +
                            idx[3];
                        logical[lg_md_offset(&md, idx)] = x[flat];
                    }
        free(x);
        in[nin] = (lg_binding){i == 0 ? "x0" : "x1", logical};
        bufs[nin++] = logical;
    }
    size_t total = 0;
    float *all = NULL;
    lg_md omd[16];
    for (int o = 0; o < 16; o++) {
        char *name = malloc(8);
        snprintf(name, 8, "y%d", o);
        if (lg_plan_query_md(plan, name, &omd[o]) != LG_OK) {
            free(name);
            break;
        }
        out[nout] = (lg_binding){name, calloc(1, lg_md_size(&omd[o]))};
        nout++;
    }
    cr_assert_eq(lg_plan_execute(plan, nin, in, nout, out), LG_OK, "%s", lg_last_error());
    for (int o = 0; o < nout; o++) {
        const lg_md *md = &omd[o];
        size_t n = (size_t)(md->dims[0] * md->dims[1] * md->dims[2] * md->dims[3]);
        all = realloc(all, (total + n) * sizeof(float));
        int64_t idx[4];
        size_t e = total;
        for (idx[0] = 0; idx[0] < md->dims[0]; idx[0]++)
            for (idx[1] = 0; idx[1] < md->dims[1]; idx[1]++)
                for (idx[2] = 0; idx[2] < md->dims[2]; idx[2]++)
                    for (idx[3] = 0; idx[3] < md->dims[3]; idx[3]++)
                        all[e++] = ((float *)out[o].data)[lg_md_offset(md, idx)];
        total += n;
        free(out[o].data);
        free((void *)out[o].name);
    }
    for (int i = 0; i < nin; i++) free(bufs[i]);
    lg_plan_destroy(plan);
    *n_out = total;
    return all;
}

Test(optimal, plans_compute_what_greedy_computes_and_cost_no_more) {
    lg_rng r = {99};
    for (int t = 0; t < 40; t++) {
        gen G;
        generate(&G, &r, 2 + t % 9);
        size_t ng, no;
        double cg, co;
        float *yg = run(G.g, LG_STRATEGY_GREEDY, &ng, &cg);
        float *yo = run(G.g, LG_STRATEGY_OPTIMAL, &no, &co);
        cr_assert_eq(ng, no);
        cr_assert(co <= cg * (1 + 1e-12), "graph %d: optimal %g > greedy %g", t, co, cg);
        for (size_t i = 0; i < ng; i++)
            cr_assert(fabsf(yg[i] - yo[i]) <= 1e-4f * (1 + fabsf(yg[i])),
                      "graph %d element %zu: greedy %g optimal %g", t, i, yg[i], yo[i]);
        free(yg);
        free(yo);
        lg_graph_destroy(G.g);
    }
}

/* Compile g under st (margin < 0: the default) and return the plan's stats. */
static lg_plan_stats compile_stats(const lg_graph *g, lg_strategy st, double margin) {
    lg_compile_options opts;
    lg_compile_options_init(&opts);
    opts.strategy = st;
    if (margin >= 0) opts.optimal_margin = margin;
    lg_plan *plan;
    cr_assert_eq(lg_graph_compile(g, &opts, &plan), LG_OK, "%s", lg_last_error());
    lg_plan_stats s;
    cr_assert_eq(lg_plan_stats_get(plan, &s), LG_OK);
    lg_plan_destroy(plan);
    return s;
}

/* The margin: OPTIMAL keeps GREEDY's assignment exactly when the proven
 * minimum (margin 0) saves less than the margin's share of GREEDY's cost,
 * and then reports the minimum as model_cost_bound. */
Test(optimal, margin_keeps_greedy_only_when_the_saving_is_inside_it) {
    lg_rng r = {2024};
    const double margins[] = {LG_OPTIMAL_MARGIN_DEFAULT, 0.5};
    int kept = 0, moved = 0;
    for (int t = 0; t < 60; t++) {
        gen G;
        generate(&G, &r, 2 + t % 9);
        lg_plan_stats sg = compile_stats(G.g, LG_STRATEGY_GREEDY, -1);
        lg_plan_stats s0 = compile_stats(G.g, LG_STRATEGY_OPTIMAL, 0);
        cr_assert(s0.exact && !s0.kept_greedy, "graph %d: margin 0", t);
        double cg = sg.model_cost, c0 = s0.model_cost, tol = 1e-9 * cg;
        for (int m = 0; m < 2; m++) {
            lg_plan_stats s = compile_stats(G.g, LG_STRATEGY_OPTIMAL, margins[m]);
            bool inside = c0 < cg - tol && c0 > cg * (1 - margins[m]) + tol;
            bool clear = c0 < cg * (1 - margins[m]) - tol;
            if (inside) {
                cr_assert(s.kept_greedy, "graph %d margin %g: greedy %g, min %g", t, margins[m], cg,
                          c0);
                cr_assert(fabs(s.model_cost - cg) <= tol, "graph %d: %g != greedy %g", t,
                          s.model_cost, cg);
                cr_assert(fabs(s.model_cost_bound - c0) <= tol, "graph %d: bound %g != min %g", t,
                          s.model_cost_bound, c0);
                cr_assert_eq(s.runtime_reorders, sg.runtime_reorders);
                kept++;
            } else if (clear || c0 >= cg - tol) {
                cr_assert(!s.kept_greedy, "graph %d margin %g: kept greedy", t, margins[m]);
                cr_assert(fabs(s.model_cost - c0) <= tol, "graph %d: %g != min %g", t, s.model_cost,
                          c0);
                moved += clear;
            }
        }
        lg_graph_destroy(G.g);
    }
    /* Both sides of the margin occur among these graphs. */
    cr_assert(kept > 0 && moved > 0, "kept %d, moved %d", kept, moved);
}

Test(optimal, margin_out_of_range_is_rejected) {
    lg_graph *g;
    cr_assert_eq(lg_graph_create(&g), LG_OK);
    int64_t d[4] = {1, 8, 4, 4};
    lg_md md;
    cr_assert_eq(lg_md_init_tag(&md, 4, d, LG_F32, "nchw"), LG_OK);
    lg_value x, y;
    cr_assert_eq(lg_graph_add_input(g, "x", &md, &x), LG_OK);
    cr_assert_eq(lg_graph_add_eltwise(g, x, LG_ELTWISE_RELU, 0, 0, &y), LG_OK);
    cr_assert_eq(lg_graph_add_output(g, y, "y", "nchw"), LG_OK);
    const double bad[] = {-0.01, 1.0, NAN};
    for (int i = 0; i < 3; i++) {
        lg_compile_options o;
        lg_compile_options_init(&o);
        o.optimal_margin = bad[i];
        lg_plan *p = NULL;
        cr_assert_eq(lg_graph_compile(g, &o, &p), LG_INVALID_ARGUMENT);
        cr_assert_null(p);
        cr_assert(strstr(lg_last_error(), "optimal_margin"), "%s", lg_last_error());
    }
    lg_graph_destroy(g);
}
