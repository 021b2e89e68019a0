/* Review of the compile-time passes (layout_space.c, propagate_optimal.c,
 * eliminate_reorders.c, eliminate_shuffles.c, the fusion part of
 * cost_model.c) on graphs tests/graph/test_optimal.c does not generate:
 * 3D/5D tensors, bf16/f16 values, binary with a broadcast src1, constants as
 * outputs, a value read twice by one node, explicit reorders to strided
 * layouts, "any" inputs feeding a conv, outputs sharing a value.
 *
 * Truths: the same graph compiled with NONE and every optional pass off
 * (each node run on its own in plain layouts) for results; the cost model
 * itself (lg__cost_assignment) for the factor problem's costs; exhaustive
 * enumeration for optimality; hand-computed values for the elimination
 * rules. Plus an allocation-failure sweep over lg_graph_compile. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "common/common.h"
#include "graph_ref.h"
#include "passes/cost_model.h"
#include "passes/layout_space.h"
#include "passes/passes.h"
#include "passes/solver.h"

/* ---- element access in any data type ---- */

static float f16_to_f32(uint16_t h) {
    uint32_t sign = (uint32_t)(h >> 15) << 31, e = (h >> 10) & 31, m = h & 1023;
    float f;
    if (e == 0)
        f = ldexpf((float)m, -24);
    else if (e == 31)
        f = m ? NAN : INFINITY;
    else
        f = ldexpf((float)(m | 1024), (int)e - 25);
    uint32_t u;
    memcpy(&u, &f, 4);
    u |= sign;
    memcpy(&f, &u, 4);
    return f;
}

static float load(const lg_md *md, const void *buf, int64_t off) {
    switch (md->dtype) {
    case LG_F32:
        return ((const float *)buf)[off];
    case LG_BF16: {
        uint32_t u = (uint32_t)((const uint16_t *)buf)[off] << 16;
        float f;
        memcpy(&f, &u, 4);
        return f;
    }
    case LG_F16:
        return f16_to_f32(((const uint16_t *)buf)[off]);
    case LG_S32:
        return (float)((const int32_t *)buf)[off];
    case LG_S8:
        return (float)((const int8_t *)buf)[off];
    case LG_U8:
        return (float)((const uint8_t *)buf)[off];
    default:
        cr_assert_fail("unexpected dtype %d", (int)md->dtype);
        return 0;
    }
}

static tensor unpack_any(const lg_md *md, const void *buf) {
    tensor t = t_new(md->ndims, md->dims);
    int64_t idx[LG_MAX_NDIMS];
    for (int64_t i = 0; i < t_count(&t); i++) {
        t_index(&t, i, idx);
        t.d[i] = load(md, buf, lg_md_offset(md, idx));
    }
    return t;
}

/* Run a plan: f32 inputs packed into the layouts it reports, every output
 * unpacked (any dtype). Inputs and outputs are named x0.., y0... */
static void run(const lg_plan *p, int nin, const tensor *ins, int nout, tensor *outs) {
    lg_binding bi[8], bo[32];
    char in_names[8][16], out_names[32][16];
    lg_md mdo[32];
    cr_assert_leq(nout, 32);
    for (int i = 0; i < nin; i++) {
        snprintf(in_names[i], 16, "x%d", i);
        lg_md md;
        cr_assert_eq(lg_plan_query_md(p, in_names[i], &md), LG_OK, "%s", lg_last_error());
        cr_assert_eq(md.dtype, LG_F32);
        bi[i] = (lg_binding){in_names[i], t_pack(&ins[i], &md)};
    }
    for (int o = 0; o < nout; o++) {
        snprintf(out_names[o], 16, "y%d", o);
        cr_assert_eq(lg_plan_query_md(p, out_names[o], &mdo[o]), LG_OK, "%s", lg_last_error());
        bo[o] = (lg_binding){out_names[o], t_garbage(&mdo[o])};
    }
    cr_assert_eq(lg_plan_execute(p, nin, bi, nout, bo), LG_OK, "execute: %s", lg_last_error());
    for (int o = 0; o < nout; o++) {
        outs[o] = unpack_any(&mdo[o], bo[o].data);
        free(bo[o].data);
    }
    for (int i = 0; i < nin; i++) free(bi[i].data);
}

static lg_plan *compile(const lg_graph *g, lg_strategy st, const char *disable) {
    lg_compile_options o;
    lg_compile_options_init(&o);
    o.strategy = st;
    o.disable_passes = disable;
    lg_plan *p = NULL;
    lg_status s = lg_graph_compile(g, &o, &p);
    cr_assert_eq(s, LG_OK, "compile (%s, off: %s): %s", strategy_name(st), disable ? disable : "-",
                 lg_last_error());
    return p;
}

/* The generator's seed: REVIEW_SEED in the environment (to explore more
 * graphs by hand), else the test's own. */
static uint64_t seed_or(uint64_t def) {
    const char *e = getenv("REVIEW_SEED");
    return e ? (uint64_t)atoll(e) : def;
}

#define ALL_OPTIONAL "eliminate_shuffles,eliminate_reorders,fold_constants,fuse,plan_memory"

/* ---- a generator of the graphs test_optimal.c does not make ---- */

#define GMAXV 32

typedef struct gval {
    lg_value v;
    int nd;
    int64_t dims[5];
    lg_dtype dt;
} gval;

typedef struct ggen {
    lg_graph *g;
    gval vals[GMAXV];
    bool read[GMAXV];
    int nv, nin, nout, nconst, nnodes;
    tensor ins[4];
    bool lowp; /* some value is bf16/f16 (looser tolerance) */
} ggen;

static const char *plain_tag[] = {"", "a", "ab", "abc", "abcd", "abcde", "abcdef"};
static const char *last_tag[] = {"", "a", "ba", "acb", "acdb", "acdeb"};

static lg_value add_const(ggen *G, lg_rng *r, int nd, const int64_t *dims, const char *tag,
                          float scale) {
    lg_md md;
    cr_assert_eq(lg_md_init_tag(&md, nd, dims, LG_F32, tag), LG_OK, "%s", lg_last_error());
    size_t n = lg_md_size(&md) / 4;
    float *w = malloc(n * 4 + 4);
    for (size_t i = 0; i < n; i++) w[i] = lg_rng_float(r, -1, 1) * scale;
    char name[16];
    snprintf(name, sizeof name, "c%d", G->nconst++);
    lg_value v;
    cr_assert_eq(lg_graph_add_constant(G->g, name, &md, w, &v), LG_OK, "%s", lg_last_error());
    free(w);
    return v;
}

static int push(ggen *G, lg_value v, int nd, const int64_t *dims, lg_dtype dt) {
    gval *x = &G->vals[G->nv];
    x->v = v;
    x->nd = nd;
    memcpy(x->dims, dims, (size_t)nd * sizeof *dims);
    x->dt = dt;
    G->read[G->nv] = false;
    return G->nv++;
}

/* A random layout of a value's shape for an explicit reorder: plain,
 * channels-last, blocked 8 or 16, or plain with gaps (strided). */
static lg_md random_layout(lg_rng *r, const gval *x, lg_dtype dt) {
    lg_md md;
    int k = (int)(lg_rng_next(r) % 5);
    static const char *blk8[] = {"", "", "aB8b", "aBc8b", "aBcd8b", "aBcde8b"};
    static const char *blk16[] = {"", "", "aB16b", "aBc16b", "aBcd16b", "aBcde16b"};
    const char *tag = k == 0   ? plain_tag[x->nd]
                      : k == 1 ? last_tag[x->nd]
                      : k == 2 ? blk8[x->nd]
                      : k == 3 ? blk16[x->nd]
                               : NULL;
    if (tag) {
        cr_assert_eq(lg_md_init_tag(&md, x->nd, x->dims, dt, tag), LG_OK, "%s", lg_last_error());
        return md;
    }
    int64_t strides[5], s = 1;
    for (int d = x->nd - 1; d >= 0; d--) {
        strides[d] = s;
        s *= x->dims[d] + (d == x->nd - 1 ? 3 : 0); /* a gap after each row */
    }
    cr_assert_eq(lg_md_init_strides(&md, x->nd, x->dims, dt, strides), LG_OK, "%s",
                 lg_last_error());
    return md;
}

/* A graph on [N, C, S...] tensors of rank nd (2..5). */
static void ggenerate(ggen *G, lg_rng *r, int nodes) {
    memset(G, 0, sizeof *G);
    cr_assert_eq(lg_graph_create(&G->g), LG_OK);
    int nd = 2 + (int)(lg_rng_next(r) % 4); /* 2D: no conv */
    int64_t dims[5] = {1 + (int64_t)(lg_rng_next(r) % 2), 16, 3, 3, 3};
    if (nd == 3) dims[2] = 7;
    G->nin = 1 + (int)(lg_rng_next(r) % 2);
    for (int i = 0; i < G->nin; i++) {
        int64_t d[5];
        memcpy(d, dims, sizeof d);
        if (i == 1) d[1] = 8;
        lg_md md;
        int k = (int)(lg_rng_next(r) % 3);
        cr_assert_eq(lg_md_init_tag(&md, nd, d, LG_F32,
                                    k == 0   ? "any"
                                    : k == 1 ? plain_tag[nd]
                                             : last_tag[nd]),
                     LG_OK);
        char name[16];
        snprintf(name, sizeof name, "x%d", i);
        lg_value v;
        cr_assert_eq(lg_graph_add_input(G->g, name, &md, &v), LG_OK, "%s", lg_last_error());
        push(G, v, nd, d, LG_F32);
        G->ins[i] = t_rand(nd, d, r, -1, 1);
    }
    while (G->nnodes < nodes) {
        int a = (int)(lg_rng_next(r) % (uint64_t)G->nv);
        gval x = G->vals[a];
        lg_value out;
        int64_t od[5];
        memcpy(od, x.dims, sizeof od);
        lg_dtype odt = x.dt;
        lg_status s = LG_OK;
        int b = -1;
        switch (lg_rng_next(r) % 8) {
        case 0:
        case 1: { /* conv over every spatial dim: 1x1 or 3x3 (pad 1), dense or depthwise */
            if (x.dt != LG_F32 || x.nd < 3) continue;
            int sp = x.nd - 2;
            int64_t k = lg_rng_next(r) % 2 ? 3 : 1, ic = x.dims[1];
            bool dw = lg_rng_next(r) % 4 == 0;
            int64_t oc = dw ? ic : (lg_rng_next(r) % 2 ? 16 : 8);
            lg_conv_params p = {.groups = dw ? ic : 1};
            int64_t wd[6];
            int wn = 0;
            if (dw) {
                wd[wn++] = ic;
                wd[wn++] = 1;
                wd[wn++] = 1;
            } else {
                wd[wn++] = oc;
                wd[wn++] = ic;
            }
            for (int d = 0; d < sp; d++) {
                p.strides[d] = 1;
                p.pad_l[d] = p.pad_r[d] = k / 2;
                wd[wn++] = k;
            }
            lg_value w = add_const(G, r, wn, wd, plain_tag[wn], 1.0f / (float)(ic * k));
            lg_value bias = LG_NO_VALUE;
            if (lg_rng_next(r) % 2) bias = add_const(G, r, 1, &oc, "a", 0.5f);
            s = lg_graph_add_conv(G->g, x.v, w, bias, &p, &out);
            od[1] = oc;
            break;
        }
        case 2: /* relu or linear, in the value's type */
            s = lg_graph_add_eltwise(G->g, x.v,
                                     lg_rng_next(r) % 2 ? LG_ELTWISE_RELU : LG_ELTWISE_LINEAR, 0.5f,
                                     0.25f, &out);
            break;
        case 3: { /* binary: same-shaped value, the value itself, or a broadcast constant */
            int k = (int)(lg_rng_next(r) % 3);
            lg_value src1 = x.v;
            if (k == 0) {
                for (int t = 0; t < G->nv && b < 0; t++) {
                    int c = (int)((a + 1 + t) % G->nv);
                    if (G->vals[c].dt == x.dt && !memcmp(G->vals[c].dims, x.dims, sizeof x.dims))
                        b = c;
                }
                if (b >= 0) src1 = G->vals[b].v;
            } else if (k == 1) {
                int64_t bd[5] = {1, x.dims[1], 1, 1, 1};
                src1 = add_const(G, r, x.nd, bd, plain_tag[x.nd], 1.0f);
                if (x.dt != LG_F32) { /* a broadcast constant of the value's type */
                    lg_md md;
                    cr_assert_eq(lg_md_init_tag(&md, x.nd, bd, x.dt, plain_tag[x.nd]), LG_OK);
                    cr_assert_eq(lg_graph_add_reorder(G->g, src1, &md, NULL, &src1), LG_OK, "%s",
                                 lg_last_error());
                }
            }
            s = lg_graph_add_binary(G->g, lg_rng_next(r) % 2 ? LG_BINARY_ADD : LG_BINARY_MUL, x.v,
                                    src1, &out);
            break;
        }
        case 4: /* shuffle on the channels */
            s = lg_graph_add_shuffle(G->g, x.v, 1, lg_rng_next(r) % 2 ? 4 : x.dims[1] / 4, &out);
            break;
        case 5:
        case 6: { /* explicit reorder, sometimes changing the type */
            int k = (int)(lg_rng_next(r) % 4);
            odt = x.dt != LG_F32 ? LG_F32 : k == 0 ? LG_BF16 : k == 1 ? LG_F16 : LG_F32;
            lg_md md = random_layout(r, &x, odt);
            s = lg_graph_add_reorder(G->g, x.v, &md, NULL, &out);
            if (odt != LG_F32) G->lowp = true;
            break;
        }
        default: /* a constant of the value's shape added in (becomes an output sometimes) */
            if (x.dt != LG_F32) continue;
            {
                lg_value c = add_const(G, r, x.nd, x.dims,
                                       lg_rng_next(r) % 2 ? plain_tag[x.nd] : last_tag[x.nd], 1.0f);
                push(G, c, x.nd, x.dims, LG_F32);
                G->read[G->nv - 1] = lg_rng_next(r) % 2; /* unread: an output */
                s = lg_graph_add_binary(G->g, LG_BINARY_ADD, x.v, c, &out);
            }
            break;
        }
        cr_assert_eq(s, LG_OK, "%s", lg_last_error());
        G->read[a] = true;
        if (b >= 0) G->read[b] = true;
        push(G, out, x.nd, od, odt);
        G->nnodes++;
    }
    /* Outputs: every unread value; some read ones; some values twice. */
    for (int v = G->nv - 1; v >= 0; v--) {
        if (G->read[v] && lg_rng_next(r) % 5 != 0) continue;
        int times = lg_rng_next(r) % 4 == 0 ? 2 : 1;
        for (int t = 0; t < times && G->nout < 16; t++) {
            char name[16];
            snprintf(name, sizeof name, "y%d", G->nout++);
            int k = (int)(lg_rng_next(r) % 3);
            const char *tag = k == 0   ? "any"
                              : k == 1 ? plain_tag[G->vals[v].nd]
                                       : last_tag[G->vals[v].nd];
            cr_assert_eq(lg_graph_add_output(G->g, G->vals[v].v, name, tag), LG_OK, "%s",
                         lg_last_error());
        }
    }
}

static void gfree(ggen *G) {
    for (int i = 0; i < G->nin; i++) t_free(&G->ins[i]);
    lg_graph_destroy(G->g);
}

/* ---- results ---- */

/* OPTIMAL, GREEDY and OPTIMAL without fusion compute what NONE computes with
 * every optional pass off. */
Test(review, plans_match_the_plain_reference_on_varied_graphs) {
    lg_rng r = {seed_or(424242)};
    for (int t = 0; t < 60; t++) {
        ggen G;
        ggenerate(&G, &r, 2 + t % 8);
        tensor want[16], got[16];
        lg_plan *ref = compile(G.g, LG_STRATEGY_NONE, ALL_OPTIONAL);
        run(ref, G.nin, G.ins, G.nout, want);
        lg_plan_destroy(ref);
        float tol = G.lowp ? 2e-2f : 1e-4f;
        const struct {
            lg_strategy st;
            const char *off;
        } cases[] = {{LG_STRATEGY_OPTIMAL, NULL},
                     {LG_STRATEGY_GREEDY, NULL},
                     {LG_STRATEGY_OPTIMAL, "fuse"},
                     {LG_STRATEGY_NONE, NULL}};
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
            lg_plan *p = compile(G.g, cases[c].st, cases[c].off);
            run(p, G.nin, G.ins, G.nout, got);
            for (int o = 0; o < G.nout; o++) {
                char what[160];
                snprintf(what, sizeof what, "graph %d, %s (off %s), output y%d", t,
                         strategy_name(cases[c].st), cases[c].off ? cases[c].off : "-", o);
                t_expect_near(&got[o], &want[o], tol, tol, what);
                t_free(&got[o]);
            }
            lg_plan_destroy(p);
        }
        for (int o = 0; o < G.nout; o++) t_free(&want[o]);
        gfree(&G);
    }
}

/* ---- costs: the factor problem against the cost model ---- */

/* The factor problem's cost of the node/input choice ch (nvars entries):
 * auxiliaries start all set (always feasible) and each is cleared when that
 * does not make the cost infinite; the factors of one value are separable
 * in its auxiliaries, so this is the minimum over them. */
static double factor_cost(const lg__layout_space *s, const int *ch) {
    int n = s->nvars + s->naux;
    int *full = malloc((size_t)n * sizeof *full + 4);
    memcpy(full, ch, (size_t)s->nvars * sizeof *full);
    for (int a = s->nvars; a < n; a++) full[a] = 1;
    lg__solver_problem p = {
        .nvars = n, .ncand = s->ncand, .nfactors = s->nfactors, .factors = s->factors};
    double c = lg__solver_cost(&p, full);
    for (int a = s->nvars; a < n; a++) {
        full[a] = 0;
        double c2 = lg__solver_cost(&p, full);
        if (c2 <= c)
            c = c2;
        else
            full[a] = 1;
    }
    free(full);
    return c;
}

/* For random choices of every variable, the factor problem's minimum over
 * the auxiliaries equals lg__cost_assignment of the applied choice; and
 * OPTIMAL reaches the enumerated minimum when the space is small. */
Test(review, factor_costs_equal_the_cost_model_on_varied_graphs) {
    lg_rng r = {seed_or(777)};
    int spaces = 0, enumerated = 0;
    for (int t = 0; t < 120; t++) {
        ggen G;
        ggenerate(&G, &r, 1 + t % 9);
        for (int fuse = 0; fuse < 2; fuse++) {
            lg__graph ir;
            cr_assert_eq(lg__ir_init(&ir, G.g), LG_OK);
            ir.fuse = fuse;
            cr_assert_eq(lg__pass_infer_shapes(&ir), LG_OK, "%s", lg_last_error());
            lg__layout_space s;
            cr_assert_eq(lg__layout_space_build(&ir, &s), LG_OK, "%s", lg_last_error());
            cr_assert(!s.too_large, "graph %d: %s", t, s.why);
            spaces++;
            int ch[64] = {0};
            cr_assert_leq(s.nvars, 64);
            double total = 1;
            for (int i = 0; i < s.nvars; i++) total *= s.ncand[i];
            double best = INFINITY;
            bool all = total <= 2e4;
            for (int k = 0; all || k < 200; k++) {
                if (!all)
                    for (int i = 0; i < s.nvars; i++)
                        ch[i] = (int)(lg_rng_next(&r) % (uint64_t)s.ncand[i]);
                lg__layout_space_apply(&ir, &s, ch);
                double model = lg__cost_assignment(&ir), fc = factor_cost(&s, ch);
                cr_assert(fabs(model - fc) <= 1e-9 * model,
                          "graph %d (fuse %d), choice %d: model %.17g, factors %.17g", t, fuse, k,
                          model, fc);
                if (model < best) best = model;
                if (all) {
                    int i = 0;
                    while (i < s.nvars && ++ch[i] == s.ncand[i]) ch[i++] = 0;
                    if (i == s.nvars) break;
                }
            }
            lg__layout_space_free(&s);
            lg__ir_free(&ir);
            if (!all) continue;
            enumerated++;
            cr_assert_eq(lg__ir_init(&ir, G.g), LG_OK);
            ir.fuse = fuse;
            cr_assert_eq(lg__pass_infer_shapes(&ir), LG_OK);
            cr_assert_eq(lg__propagate_optimal(&ir), LG_OK, "%s", lg_last_error());
            double opt = lg__cost_assignment(&ir);
            cr_assert(ir.exact);
            cr_assert(fabs(opt - best) <= 1e-9 * best, "graph %d: optimal %.17g, min %.17g", t, opt,
                      best);
            lg__ir_free(&ir);
        }
        gfree(&G);
    }
    cr_log_info("%d spaces checked, %d enumerated", spaces, enumerated);
    cr_assert_gt(enumerated, 20);
}

/* ---- allocation failures ---- */

/* W1 and W2 in small: x -> conv1x1 (groups 3) -> relu -> shuffle -> dwconv
 * -> conv1x1 (groups 3) -> add(x) -> relu, and a bottleneck with a residual;
 * plus an "any" input read by a conv and a value returned twice. */
static lg_graph *conv_graph(lg_rng *r, int which) {
    ggen G;
    memset(&G, 0, sizeof G);
    cr_assert_eq(lg_graph_create(&G.g), LG_OK);
    int64_t C = 24, M = 12, d[4] = {1, C, 6, 6};
    lg_md xmd;
    cr_assert_eq(lg_md_init_tag(&xmd, 4, d, LG_F32, which == 2 ? "any" : "nchw"), LG_OK);
    lg_value x, t, u;
    cr_assert_eq(lg_graph_add_input(G.g, "x0", &xmd, &x), LG_OK);
    if (which == 0) {
        lg_conv_params pw = {.strides = {1, 1}, .groups = 3};
        int64_t w1d[5] = {3, M / 3, C / 3, 1, 1}, w3d[5] = {3, C / 3, M / 3, 1, 1};
        cr_assert_eq(lg_graph_add_conv(G.g, x, add_const(&G, r, 5, w1d, "goihw", 0.2f), LG_NO_VALUE,
                                       &pw, &t),
                     LG_OK);
        cr_assert_eq(lg_graph_add_eltwise(G.g, t, LG_ELTWISE_RELU, 0, 0, &t), LG_OK);
        cr_assert_eq(lg_graph_add_shuffle(G.g, t, 1, M / 3, &t), LG_OK);
        lg_conv_params dw = {.strides = {1, 1}, .pad_l = {1, 1}, .pad_r = {1, 1}, .groups = M};
        int64_t w2d[5] = {M, 1, 1, 3, 3}, bd[1] = {M};
        cr_assert_eq(lg_graph_add_conv(G.g, t, add_const(&G, r, 5, w2d, "goihw", 0.2f),
                                       add_const(&G, r, 1, bd, "a", 0.1f), &dw, &t),
                     LG_OK);
        cr_assert_eq(lg_graph_add_conv(G.g, t, add_const(&G, r, 5, w3d, "goihw", 0.2f), LG_NO_VALUE,
                                       &pw, &t),
                     LG_OK);
    } else {
        lg_conv_params p1 = {.strides = {1, 1}, .groups = 1};
        lg_conv_params p3 = {.strides = {1, 1}, .pad_l = {1, 1}, .pad_r = {1, 1}, .groups = 1};
        int64_t w1d[4] = {8, C, 1, 1}, w2d[4] = {8, 8, 3, 3}, w3d[4] = {C, 8, 1, 1};
        cr_assert_eq(
            lg_graph_add_conv(G.g, x, add_const(&G, r, 4, w1d, "oihw", 0.2f), LG_NO_VALUE, &p1, &t),
            LG_OK);
        cr_assert_eq(lg_graph_add_eltwise(G.g, t, LG_ELTWISE_RELU, 0, 0, &t), LG_OK);
        cr_assert_eq(
            lg_graph_add_conv(G.g, t, add_const(&G, r, 4, w2d, "oihw", 0.2f), LG_NO_VALUE, &p3, &t),
            LG_OK);
        cr_assert_eq(lg_graph_add_eltwise(G.g, t, LG_ELTWISE_RELU, 0, 0, &t), LG_OK);
        cr_assert_eq(
            lg_graph_add_conv(G.g, t, add_const(&G, r, 4, w3d, "oihw", 0.2f), LG_NO_VALUE, &p1, &t),
            LG_OK);
    }
    cr_assert_eq(lg_graph_add_binary(G.g, LG_BINARY_ADD, t, x, &u), LG_OK);
    cr_assert_eq(lg_graph_add_eltwise(G.g, u, LG_ELTWISE_RELU, 0, 0, &u), LG_OK);
    cr_assert_eq(lg_graph_add_output(G.g, u, "y0", "nchw"), LG_OK);
    if (which == 2) {
        cr_assert_eq(lg_graph_add_output(G.g, t, "y1", "any"), LG_OK);
        cr_assert_eq(lg_graph_add_output(G.g, t, "y2", "nhwc"), LG_OK);
    }
    return G.g;
}

/* Every allocation of lg_graph_compile under OPTIMAL fails in turn: each
 * failure is LG_OUT_OF_MEMORY with a message (and leaks nothing: the ASan
 * build checks), until the compile succeeds; the plan then computes what the
 * plain reference computes. */
Test(review, compile_survives_every_allocation_failure) {
    lg_rng r = {5};
    for (int which = 0; which < 3; which++) {
        lg_graph *g = conv_graph(&r, which);
        int nout = which == 2 ? 3 : 1;
        int64_t d[4] = {1, 24, 6, 6};
        tensor x = t_rand(4, d, &r, -1, 1), want[3], got[3];
        lg_plan *ref = compile(g, LG_STRATEGY_NONE, ALL_OPTIONAL);
        run(ref, 1, &x, nout, want);
        lg_plan_destroy(ref);
        for (int st = LG_STRATEGY_GREEDY; st <= LG_STRATEGY_OPTIMAL; st++) {
            lg_compile_options o;
            lg_compile_options_init(&o);
            o.strategy = (lg_strategy)st;
            lg_plan *p = NULL;
            int64_t n = 0;
            for (;; n++) {
                cr_assert_lt(n, 200000, "compile never succeeds");
                lg__alloc_fail_after(n);
                lg_status s = lg_graph_compile(g, &o, &p);
                lg__alloc_fail_after(-1);
                if (s == LG_OK) break;
                cr_assert_eq(s, LG_OUT_OF_MEMORY, "graph %d, %s, failing allocation %lld: %s (%s)",
                             which, strategy_name(o.strategy), (long long)n, lg_status_str(s),
                             lg_last_error());
                cr_assert(lg_last_error()[0] != '\0');
            }
            cr_log_info("graph %d, %s: %lld allocations swept", which, strategy_name(o.strategy),
                        (long long)n);
            run(p, 1, &x, nout, got);
            for (int o2 = 0; o2 < nout; o2++) {
                t_expect_near(&got[o2], &want[o2], 1e-4f, 1e-4f, "after the sweep");
                t_free(&got[o2]);
            }
            lg_plan_destroy(p);
        }
        for (int o2 = 0; o2 < nout; o2++) t_free(&want[o2]);
        t_free(&x);
        lg_graph_destroy(g);
    }
}

/* ---- the elimination rules ---- */

/* A chain of explicit reorders x (f32) -> t1 -> t2 -> t3 -> y, each step in
 * the type and tag given; returns the graph. */
static lg_graph *reorder_chain(int nd, const int64_t *dims, int steps, const lg_dtype *dt,
                               const char *const *tag, const char *out_tag) {
    lg_graph *g;
    cr_assert_eq(lg_graph_create(&g), LG_OK);
    lg_md md;
    cr_assert_eq(lg_md_init_tag(&md, nd, dims, LG_F32, plain_tag[nd]), LG_OK);
    lg_value v;
    cr_assert_eq(lg_graph_add_input(g, "x0", &md, &v), LG_OK);
    for (int i = 0; i < steps; i++) {
        cr_assert_eq(lg_md_init_tag(&md, nd, dims, dt[i], tag[i]), LG_OK, "%s", lg_last_error());
        cr_assert_eq(lg_graph_add_reorder(g, v, &md, NULL, &v), LG_OK, "%s", lg_last_error());
    }
    cr_assert_eq(lg_graph_add_output(g, v, "y0", out_tag), LG_OK);
    return g;
}

static float sat_round(float f, float lo, float hi) {
    f = nearbyintf(f);
    return f < lo ? lo : f > hi ? hi : f;
}

/* Chains the pass merges through a lossless middle step, in every strategy:
 * u8 -> bf16 -> s8 (u8 values are exact in bf16; s8 saturates at 127 either
 * way), s8 -> f32 -> u8, f16 -> f32 -> bf16 (a direct f16 -> bf16 reorder),
 * and a blocked 1D/3D/5D inverse pair. The values are computed by hand. */
Test(review, lossless_chains_merge_and_keep_values) {
    lg_rng r = {11};
    int64_t d3[3] = {2, 12, 5};
    tensor x = t_rand(3, d3, &r, -300, 300);
    struct {
        int steps;
        lg_dtype dt[3];
        const char *tag[3];
    } cases[] = {
        {3, {LG_U8, LG_BF16, LG_S8}, {"abc", "acb", "aBc8b"}},
        {3, {LG_S8, LG_F32, LG_U8}, {"acb", "abc", "acb"}},
        {3, {LG_F16, LG_F32, LG_BF16}, {"abc", "aBc16b", "acb"}},
        {3, {LG_F32, LG_F32, LG_F32}, {"aBc8b", "abc", "aBc8b"}},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        /* The hand-computed result: each step converts through f32. */
        tensor want = t_new(3, d3);
        for (int64_t i = 0; i < t_count(&x); i++) {
            float f = x.d[i];
            for (int s = 0; s < cases[c].steps; s++) {
                lg_dtype dt = cases[c].dt[s];
                if (dt == LG_U8) f = sat_round(f, 0, 255);
                if (dt == LG_S8) f = sat_round(f, -128, 127);
                if (dt == LG_BF16) {
                    uint32_t u;
                    memcpy(&u, &f, 4);
                    u = (u + 0x7fffu + ((u >> 16) & 1u)) & 0xffff0000u;
                    memcpy(&f, &u, 4);
                }
                if (dt == LG_F16) f = (float)(_Float16)f; /* round to nearest even */
            }
            want.d[i] = f;
        }
        for (int st = 0; st < 3; st++) {
            lg_graph *g = reorder_chain(3, d3, cases[c].steps, cases[c].dt, cases[c].tag, "any");
            lg_plan *p = compile(g, (lg_strategy)st, NULL);
            lg_plan *q = compile(g, (lg_strategy)st, "eliminate_reorders");
            lg_plan_stats ps, qs;
            lg_plan_stats_get(p, &ps);
            lg_plan_stats_get(q, &qs);
            cr_expect_lt(ps.runtime_reorders, qs.runtime_reorders, "case %zu, %s: nothing merged",
                         c, strategy_name((lg_strategy)st));
            tensor got[2];
            run(p, 1, &x, 1, &got[0]);
            run(q, 1, &x, 1, &got[1]);
            char what[64];
            snprintf(what, sizeof what, "case %zu, %s", c, strategy_name((lg_strategy)st));
            t_expect_near(&got[0], &want, 0, 0, what);
            t_expect_near(&got[1], &want, 0, 0, what);
            t_free(&got[0]);
            t_free(&got[1]);
            lg_plan_destroy(p);
            lg_plan_destroy(q);
            lg_graph_destroy(g);
        }
        t_free(&want);
    }
    t_free(&x);
}

/* A shuffle pair whose middle value another node reads, in 5D: the second
 * shuffle goes (its readers read x), the first stays for its other reader. */
Test(review, shuffle_pair_with_a_middle_reader) {
    lg_rng r = {12};
    int64_t d[5] = {1, 12, 2, 3, 2};
    tensor x = t_rand(5, d, &r, -1, 1);
    lg_graph *g;
    cr_assert_eq(lg_graph_create(&g), LG_OK);
    lg_md md;
    cr_assert_eq(lg_md_init_tag(&md, 5, d, LG_F32, "abcde"), LG_OK);
    lg_value vx, a, b, y0, y1;
    cr_assert_eq(lg_graph_add_input(g, "x0", &md, &vx), LG_OK);
    cr_assert_eq(lg_graph_add_shuffle(g, vx, 1, 3, &a), LG_OK);
    cr_assert_eq(lg_graph_add_shuffle(g, a, 1, 4, &b), LG_OK);
    cr_assert_eq(lg_graph_add_eltwise(g, a, LG_ELTWISE_LINEAR, 2, 0, &y1), LG_OK);
    cr_assert_eq(lg_graph_add_binary(g, LG_BINARY_MUL, b, b, &y0), LG_OK);
    cr_assert_eq(lg_graph_add_output(g, y0, "y0", "abcde"), LG_OK);
    cr_assert_eq(lg_graph_add_output(g, y1, "y1", "any"), LG_OK);
    tensor sa = ref_shuffle(&x, 1, 3), want[2] = {ref_binary(2, &x, &x), ref_linear(&sa, 2, 0)};
    for (int st = 0; st < 3; st++) {
        lg_plan *p = compile(g, (lg_strategy)st, NULL);
        lg_plan_stats s;
        lg_plan_stats_get(p, &s);
        cr_expect_eq(s.steps - s.runtime_reorders, 3, "%s: shuffle a, linear, mul",
                     strategy_name((lg_strategy)st));
        tensor got[2];
        run(p, 1, &x, 2, got);
        t_expect_near(&got[0], &want[0], 0, 0, "y0");
        t_expect_near(&got[1], &want[1], 0, 0, "y1");
        t_free(&got[0]);
        t_free(&got[1]);
        lg_plan_destroy(p);
    }
    t_free(&sa);
    t_free(&want[0]);
    t_free(&want[1]);
    t_free(&x);
    lg_graph_destroy(g);
}

/* A constant returned twice in the same other layout (and once as "any"):
 * the reorder toward nhwc is one node and the cost model counts it once; the
 * factor problem's fixed cost must count it once too. */
Test(review, constant_output_twice_costs_one_reorder) {
    lg_rng r = {13};
    ggen G;
    memset(&G, 0, sizeof G);
    cr_assert_eq(lg_graph_create(&G.g), LG_OK);
    int64_t d[4] = {1, 16, 3, 3};
    lg_md md;
    cr_assert_eq(lg_md_init_tag(&md, 4, d, LG_F32, "nchw"), LG_OK);
    lg_value x, c, y;
    cr_assert_eq(lg_graph_add_input(G.g, "x0", &md, &x), LG_OK);
    c = add_const(&G, &r, 4, d, "nchw", 1.0f);
    cr_assert_eq(lg_graph_add_binary(G.g, LG_BINARY_ADD, x, c, &y), LG_OK);
    cr_assert_eq(lg_graph_add_output(G.g, y, "y0", "nchw"), LG_OK);
    cr_assert_eq(lg_graph_add_output(G.g, c, "y1", "nhwc"), LG_OK);
    cr_assert_eq(lg_graph_add_output(G.g, c, "y2", "nhwc"), LG_OK);
    cr_assert_eq(lg_graph_add_output(G.g, c, "y3", "any"), LG_OK);
    lg__graph ir;
    cr_assert_eq(lg__ir_init(&ir, G.g), LG_OK);
    cr_assert_eq(lg__pass_infer_shapes(&ir), LG_OK);
    lg__layout_space s;
    cr_assert_eq(lg__layout_space_build(&ir, &s), LG_OK, "%s", lg_last_error());
    int ch[8] = {0};
    lg__layout_space_apply(&ir, &s, ch);
    double model = lg__cost_assignment(&ir), fc = factor_cost(&s, ch);
    lg_md nhwc;
    cr_assert_eq(lg_md_init_tag(&nhwc, 4, d, LG_F32, "nhwc"), LG_OK);
    cr_expect(fabs(model - fc) <= 1e-9 * model, "model %.17g, factors %.17g (one reorder: %g)",
              model, fc, lg__cost_reorder(&ir, &md, &nhwc));
    lg__layout_space_free(&s);
    lg__ir_free(&ir);
    /* And the plan returns the constant in every output. */
    tensor xin = t_rand(4, d, &r, -1, 1), got[4], want[4];
    lg_plan *ref = compile(G.g, LG_STRATEGY_NONE, ALL_OPTIONAL);
    run(ref, 1, &xin, 4, want);
    lg_plan_destroy(ref);
    lg_plan *p = compile(G.g, LG_STRATEGY_OPTIMAL, NULL);
    run(p, 1, &xin, 4, got);
    for (int o = 0; o < 4; o++) {
        t_expect_near(&got[o], &want[o], 0, 0, "constant outputs");
        t_free(&got[o]);
        t_free(&want[o]);
    }
    lg_plan_destroy(p);
    t_free(&xin);
    gfree(&G);
}

/* A value wanted in more layouts than the factor model holds (MAX_LAYOUTS):
 * 18 outputs of one "any" input, each in another permutation of its dims.
 * OPTIMAL falls back to GREEDY's assignment (not exact) and the plan returns
 * the input in every layout. */
Test(review, too_many_layouts_fall_back_to_greedy) {
    static const char *tags[] = {"abcd", "abdc", "acbd", "acdb", "adbc", "adcb",
                                 "bacd", "badc", "bcad", "bcda", "bdac", "bdca",
                                 "cabd", "cadb", "cbad", "cbda", "cdab", "cdba"};
    const int n = (int)(sizeof tags / sizeof tags[0]);
    lg_rng r = {14};
    int64_t d[4] = {2, 3, 4, 5};
    lg_graph *g;
    cr_assert_eq(lg_graph_create(&g), LG_OK);
    lg_md md;
    cr_assert_eq(lg_md_init_tag(&md, 4, d, LG_F32, "any"), LG_OK);
    lg_value x, y;
    cr_assert_eq(lg_graph_add_input(g, "x0", &md, &x), LG_OK);
    cr_assert_eq(lg_graph_add_eltwise(g, x, LG_ELTWISE_LINEAR, 1, 0, &y), LG_OK);
    for (int o = 0; o < n; o++) {
        char name[16];
        snprintf(name, sizeof name, "y%d", o);
        cr_assert_eq(lg_graph_add_output(g, o % 2 ? x : y, name, tags[o]), LG_OK);
    }
    lg__graph ir;
    cr_assert_eq(lg__ir_init(&ir, g), LG_OK);
    cr_assert_eq(lg__pass_infer_shapes(&ir), LG_OK);
    lg__layout_space s;
    cr_assert_eq(lg__layout_space_build(&ir, &s), LG_OK, "%s", lg_last_error());
    cr_expect(!s.too_large, "9 layouts per value fit");
    lg__layout_space_free(&s);
    lg__ir_free(&ir);
    lg_graph_destroy(g);

    cr_assert_eq(lg_graph_create(&g), LG_OK);
    cr_assert_eq(lg_graph_add_input(g, "x0", &md, &x), LG_OK);
    for (int o = 0; o < n; o++) {
        char name[16];
        snprintf(name, sizeof name, "y%d", o);
        cr_assert_eq(lg_graph_add_output(g, x, name, tags[o]), LG_OK);
    }
    cr_assert_eq(lg__ir_init(&ir, g), LG_OK);
    cr_assert_eq(lg__pass_infer_shapes(&ir), LG_OK);
    cr_assert_eq(lg__layout_space_build(&ir, &s), LG_OK, "%s", lg_last_error());
    cr_expect(s.too_large, "18 layouts of one value do not fit");
    lg__layout_space_free(&s);
    cr_assert_eq(lg__propagate_optimal(&ir), LG_OK, "%s", lg_last_error());
    cr_expect(!ir.exact);
    lg__ir_free(&ir);
    tensor xin = t_rand(4, d, &r, -1, 1), got[18];
    lg_plan *p = compile(g, LG_STRATEGY_OPTIMAL, NULL);
    run(p, 1, &xin, n, got);
    for (int o = 0; o < n; o++) {
        t_expect_near(&got[o], &xin, 0, 0, tags[o]);
        t_free(&got[o]);
    }
    lg_plan_destroy(p);
    t_free(&xin);
    lg_graph_destroy(g);
}
