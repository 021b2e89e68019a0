/* The hostile-input sweep, graph half: builder parameters (conv, shuffle,
 * eltwise, binary; concat, softmax, inner product, batchnorm), value ids,
 * compile options (strategies, thread counts, pass lists) and plan
 * execution (binding counts, names, odd addresses), each from the extreme
 * values of extremes.h. See test_sweep.c for the rules every case obeys. */
#include "robustness/extremes.h"
#include "robustness/sweep.h"

#include <math.h>
#include <stdlib.h>

/* x (nchw f32 1x8x6x6) -> conv 3x3 -> relu -> y. */
static lg_graph *small_graph(void) {
    lg_graph *g;
    cr_assert_eq(lg_graph_create(&g), LG_OK);
    int64_t xd[4] = {1, 8, 6, 6}, wd[4] = {8, 8, 3, 3};
    lg_md x, w;
    lg_md_init_tag(&x, 4, xd, LG_F32, "nchw");
    lg_md_init_tag(&w, 4, wd, LG_F32, "oihw");
    float *wdata = calloc(1, lg_md_size(&w));
    lg_value vx, vw, c, r;
    cr_assert_eq(lg_graph_add_input(g, "x", &x, &vx), LG_OK);
    cr_assert_eq(lg_graph_add_constant(g, "w", &w, wdata, &vw), LG_OK);
    free(wdata);
    lg_conv_params p = {.strides = {1, 1}, .pad_l = {1, 1}, .pad_r = {1, 1}, .groups = 1};
    cr_assert_eq(lg_graph_add_conv(g, vx, vw, LG_NO_VALUE, &p, &c), LG_OK);
    cr_assert_eq(lg_graph_add_eltwise(g, c, LG_ELTWISE_RELU, 0, 0, &r), LG_OK);
    cr_assert_eq(lg_graph_add_output(g, r, "y", "nchw"), LG_OK);
    return g;
}

Test(robustness, graph_builders) {
    char what[128];
    lg_graph *g;
    cr_assert_eq(lg_graph_create(&g), LG_OK);
    int64_t xd[4] = {2, 16, 5, 5}, wd[4] = {16, 16, 3, 3};
    lg_md x, w;
    lg_md_init_tag(&x, 4, xd, LG_F32, "any");
    lg_md_init_tag(&w, 4, wd, LG_F32, "oihw");
    float *wdata = calloc(1, lg_md_size(&w));
    lg_value vx, vw, v;
    cr_assert_eq(lg_graph_add_input(g, "x", &x, &vx), LG_OK);
    cr_assert_eq(lg_graph_add_constant(g, "w", &w, wdata, &vw), LG_OK);
    free(wdata);
    const char *geo = "stride|dilate|padding|groups|geometry|kernel|channels|weights|output";
    for (int f = 0; f < 9; f++)
        for (int i = 0; i < LG_NX64; i++) {
            lg_conv_params p = {.strides = {1, 1, 1}, .groups = 1};
            int64_t *slot = f == 8  ? &p.groups
                            : f < 2 ? &p.strides[f]
                            : f < 4 ? &p.dilates[f - 2]
                            : f < 6 ? &p.pad_l[f - 4]
                                    : &p.pad_r[f - 6];
            *slot = lg_x64[i];
            snprintf(what, sizeof what, "conv field %d = %lld", f, (long long)lg_x64[i]);
            sweep_check(lg_graph_add_conv(g, vx, vw, LG_NO_VALUE, &p, &v), "lg_graph_add_conv", geo,
                        what);
        }
    /* Pads and dilations whose sums or products pass INT64_MAX (issue 23). */
    const int64_t big[][2] = {{INT64_MAX, 0},
                              {(int64_t)1 << 62, (int64_t)1 << 62},
                              {INT64_MAX - 2, 3},
                              {INT64_MAX / 2, INT64_MAX / 2 + 2}};
    for (int i = 0; i < 4; i++) {
        lg_conv_params p = {.strides = {1, 1}, .groups = 1};
        p.pad_l[1] = big[i][0];
        p.pad_r[1] = big[i][1];
        snprintf(what, sizeof what, "pads %lld/%lld", (long long)big[i][0], (long long)big[i][1]);
        sweep_check(lg_graph_add_conv(g, vx, vw, LG_NO_VALUE, &p, &v), "lg_graph_add_conv", geo,
                    what);
        p.pad_l[1] = p.pad_r[1] = 0;
        p.dilates[0] = big[i][0];
        sweep_check(lg_graph_add_conv(g, vx, vw, LG_NO_VALUE, &p, &v), "lg_graph_add_conv", geo,
                    what);
    }
    for (int a = 0; a < LG_NXINT; a++) {
        snprintf(what, sizeof what, "axis / alg %d", lg_xint[a]);
        for (int i = 0; i < LG_NX64; i++)
            sweep_check(lg_graph_add_shuffle(g, vx, lg_xint[a], lg_x64[i], &v),
                        "lg_graph_add_shuffle", "axis|group_size", what);
        sweep_check(lg_graph_add_eltwise(g, vx, (lg_eltwise_alg)lg_xint[a], 0, 0, &v),
                    "lg_graph_add_eltwise", "alg", what);
        sweep_check(lg_graph_add_binary(g, (lg_binary_alg)lg_xint[a], vx, vx, &v),
                    "lg_graph_add_binary", "alg", what);
    }
    /* Value ids that do not exist. */
    const lg_value ids[] = {LG_NO_VALUE, LG_NO_VALUE - 1, 1u << 31, 1u << 20, 100000};
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
        snprintf(what, sizeof what, "value %u", ids[i]);
        lg_conv_params p = {.strides = {1, 1}, .groups = 1};
        sweep_check(lg_graph_add_conv(g, ids[i], vw, LG_NO_VALUE, &p, &v), "lg_graph_add_conv",
                    "src", what);
        sweep_check(lg_graph_add_eltwise(g, ids[i], LG_ELTWISE_RELU, 0, 0, &v),
                    "lg_graph_add_eltwise", "src", what);
        sweep_check(lg_graph_add_binary(g, LG_BINARY_ADD, vx, ids[i], &v), "lg_graph_add_binary",
                    "src1", what);
        sweep_check(lg_graph_add_shuffle(g, ids[i], 1, 1, &v), "lg_graph_add_shuffle", "src", what);
        sweep_check(lg_graph_add_reorder(g, ids[i], &w, NULL, &v), "lg_graph_add_reorder", "src",
                    what);
        sweep_check(lg_graph_add_output(g, ids[i], "o", "any"), "lg_graph_add_output", "value",
                    what);
    }
    /* Input mds of extreme dims (an "any" md filled by hand past the
     * constructor's checks). */
    for (int i = 0; i < LG_NX64; i++) {
        lg_md m = x;
        m.dims[3] = m.padded_dims[3] = lg_x64[i];
        char name[32];
        snprintf(name, sizeof name, "in%d", i);
        snprintf(what, sizeof what, "input dims[3] = %lld", (long long)lg_x64[i]);
        sweep_check(lg_graph_add_input(g, name, &m, &v), "lg_graph_add_input", "md", what);
    }
    const char *tags[] = {"",  "abcdefghijklm", "aBcd0b", "aBcd-1b", "aBcd99999999999999999999b",
                          "x", "nChw16c",       "any"};
    for (size_t i = 0; i < sizeof tags / sizeof tags[0]; i++) {
        char name[32];
        snprintf(name, sizeof name, "out%zu", i);
        snprintf(what, sizeof what, "output tag '%s'", tags[i]);
        sweep_check(lg_graph_add_output(g, vx, name, tags[i]), "lg_graph_add_output", "tag", what);
    }
    lg_graph_destroy(g);
    sweep_report("graph builders");
}

/* An "any" input of dims `dims` and type dt, or LG_NO_VALUE when the md
 * constructor or the graph refuses the dims (each a case of its own). */
static lg_value sweep_input(lg_graph *g, int nd, const int64_t *dims, lg_dtype dt,
                            const char *what) {
    static int count;
    char name[32];
    snprintf(name, sizeof name, "v%d", count++);
    lg_md m;
    lg_value v;
    if (sweep_check(lg_md_init_tag(&m, nd, dims, dt, "any"), "lg_md_init_tag", "dims", what) !=
        LG_OK)
        return LG_NO_VALUE;
    if (sweep_check(lg_graph_add_input(g, name, &m, &v), "lg_graph_add_input", "md", what) != LG_OK)
        return LG_NO_VALUE;
    return v;
}

/* A case whose answer is known from the contract: `bad` ones refused with
 * LG_INVALID_ARGUMENT (LG_INVALID_GRAPH where operands of a node do not fit
 * each other), the others accepted. The message was checked by sweep_check. */
static void sweep_expect(lg_status s, bool bad, const char *what) {
    if (bad)
        cr_assert(s == LG_INVALID_ARGUMENT || s == LG_INVALID_GRAPH, "%s: %s (%s), not a refusal",
                  what, lg_status_str(s), lg_last_error());
    else
        cr_assert_eq(s, LG_OK, "%s: %s (%s)", what, lg_status_str(s), lg_last_error());
}

/* Does n x `per` elements of esize bytes fit int64 bytes (the size every md
 * must have)? */
static bool bytes_fit(int64_t per, int n, int64_t esize) {
    return per <= INT64_MAX / n / esize;
}

/* lg_graph_add_concat: the axis, the source count, and sources whose axis
 * dims (each valid alone) sum past INT64_MAX or whose result passes it in
 * bytes, directly and through the tree of more than five sources. */
static void sweep_concat(lg_graph *g, lg_value vx) {
    char what[160];
    lg_value v, many[LG_CONCAT_MAX_SRCS];
    for (int i = 0; i < LG_CONCAT_MAX_SRCS; i++) many[i] = vx;
    for (int i = 0; i < LG_NXINT; i++) {
        const int a = lg_xint[i];
        snprintf(what, sizeof what, "concat axis %d", a);
        sweep_expect(sweep_check(lg_graph_add_concat(g, a, 2, many, &v), "lg_graph_add_concat",
                                 "axis", what),
                     a < 0 || a >= 4, what);
        snprintf(what, sizeof what, "concat n %d", a);
        sweep_expect(
            sweep_check(lg_graph_add_concat(g, 1, a, many, &v), "lg_graph_add_concat", "n =", what),
            a < 1 || a > LG_CONCAT_MAX_SRCS, what);
    }
    const lg_dtype dts[2] = {LG_S8, LG_F32};
    for (int t = 0; t < 2; t++) {
        const int64_t es = (int64_t)lg_dtype_size(dts[t]);
        lg_value c[LG_NX64];
        for (int i = 0; i < LG_NX64; i++) {
            int64_t cd[3] = {1, lg_x64[i], 1};
            snprintf(what, sizeof what, "%s src of axis dim %lld", lg_dtype_str(dts[t]),
                     (long long)lg_x64[i]);
            c[i] = sweep_input(g, 3, cd, dts[t], what);
            cr_assert_eq(c[i] != LG_NO_VALUE, lg_x64[i] >= 0 && bytes_fit(lg_x64[i], 1, es), "%s",
                         what);
        }
        for (int i = 0; i < LG_NX64; i++)
            for (int j = 0; j < LG_NX64; j++) {
                if (c[i] == LG_NO_VALUE || c[j] == LG_NO_VALUE) continue;
                const int64_t a = lg_x64[i], b = lg_x64[j];
                lg_value pair[2] = {c[i], c[j]}, six[6] = {c[i], c[j], c[i], c[j], c[i], c[j]};
                bool fit2 = a <= INT64_MAX / es - b, fit6 = a <= (INT64_MAX / es) / 3 - b;
                bool zero = a == 0 || b == 0;
                snprintf(what, sizeof what, "concat of %s axis dims %lld + %lld",
                         lg_dtype_str(dts[t]), (long long)a, (long long)b);
                const char *words = "overflow|dim";
                sweep_expect(sweep_check(lg_graph_add_concat(g, 1, 2, pair, &v),
                                         "lg_graph_add_concat", words, what),
                             zero || !fit2, what);
                snprintf(what, sizeof what, "concat of %s axis dims 3 x (%lld + %lld)",
                         lg_dtype_str(dts[t]), (long long)a, (long long)b);
                sweep_expect(sweep_check(lg_graph_add_concat(g, 1, 6, six, &v),
                                         "lg_graph_add_concat", words, what),
                             zero || !fit6, what);
            }
    }
}

/* lg_graph_add_softmax: the axis, the algorithm, sources with an extreme dim. */
static void sweep_softmax(lg_graph *g, lg_value vx) {
    char what[160];
    lg_value v;
    for (int i = 0; i < LG_NXINT; i++) {
        const int a = lg_xint[i];
        snprintf(what, sizeof what, "softmax axis %d", a);
        sweep_expect(sweep_check(lg_graph_add_softmax(g, vx, LG_SOFTMAX, a, &v),
                                 "lg_graph_add_softmax", "axis", what),
                     a < 0 || a >= 4, what);
        snprintf(what, sizeof what, "softmax alg %d", a);
        sweep_expect(sweep_check(lg_graph_add_softmax(g, vx, (lg_softmax_alg)a, 1, &v),
                                 "lg_graph_add_softmax", "alg", what),
                     a != LG_SOFTMAX && a != LG_LOGSOFTMAX, what);
    }
    for (int i = 0; i < LG_NX64; i++)
        for (int d = 0; d < 2; d++) {
            int64_t sd[2] = {3, 3};
            sd[d] = lg_x64[i];
            snprintf(what, sizeof what, "softmax of a src with dims[%d] = %lld", d,
                     (long long)lg_x64[i]);
            lg_value s = sweep_input(g, 2, sd, LG_F32, what);
            if (s == LG_NO_VALUE) continue;
            sweep_expect(sweep_check(lg_graph_add_softmax(g, s, LG_SOFTMAX, 1 - d, &v),
                                     "lg_graph_add_softmax", "dims", what),
                         lg_x64[i] < 1, what);
        }
}

/* lg_graph_add_inner_product: OC, each weights dim, the bias length and the
 * batch at the extremes, src 2 x 16 x 5 x 5. */
static void sweep_inner_product(lg_graph *g, lg_value vx) {
    char what[160];
    lg_value v;
    const char *fn = "lg_graph_add_inner_product";
    int64_t w4[4] = {4, 16, 5, 5}, w2[2] = {4, 16};
    lg_value vw = sweep_input(g, 4, w4, LG_F32, "weights"),
             vw2 = sweep_input(g, 2, w2, LG_F32, "w2");
    cr_assert(vw != LG_NO_VALUE && vw2 != LG_NO_VALUE);
    sweep_expect(lg_graph_add_inner_product(g, vx, vw, LG_NO_VALUE, &v), false, "ip");
    for (int i = 0; i < LG_NX64; i++) {
        const int64_t e = lg_x64[i];
        for (int d = 0; d < 4; d++) {
            int64_t wd[4] = {4, 16, 5, 5};
            wd[d] = e;
            snprintf(what, sizeof what, "inner product weights dims[%d] = %lld", d, (long long)e);
            lg_value w = sweep_input(g, 4, wd, LG_F32, what);
            if (w == LG_NO_VALUE) continue;
            bool bad = d == 0 ? e < 1 : e != w4[d];
            sweep_expect(sweep_check(lg_graph_add_inner_product(g, vx, w, LG_NO_VALUE, &v), fn,
                                     "OC|weights|overflow", what),
                         bad, what);
        }
        snprintf(what, sizeof what, "inner product bias of %lld", (long long)e);
        lg_value b = sweep_input(g, 1, &e, LG_F32, what);
        if (b != LG_NO_VALUE)
            sweep_expect(
                sweep_check(lg_graph_add_inner_product(g, vx, vw, b, &v), fn, "bias", what), e != 4,
                what);
        int64_t sd[2] = {e, 16};
        snprintf(what, sizeof what, "inner product of batch %lld", (long long)e);
        lg_value s = sweep_input(g, 2, sd, LG_F32, what);
        if (s != LG_NO_VALUE)
            sweep_expect(sweep_check(lg_graph_add_inner_product(g, s, vw2, LG_NO_VALUE, &v), fn,
                                     "src|dst|overflow", what),
                         e < 1, what);
    }
    /* The largest OC whose weights fit in int64 bytes: the blocked layout the
     * kernel picks for "any" weights pads OC past it. Refused or accepted
     * (with plain weights), never an overflow. */
    for (int64_t oc = INT64_MAX / (16 * 5 * 5 * 4); oc > INT64_MAX / (16 * 5 * 5 * 4) - 16; oc--) {
        int64_t wd[4] = {oc, 16, 5, 5};
        snprintf(what, sizeof what, "inner product OC %lld", (long long)oc);
        lg_value w = sweep_input(g, 4, wd, LG_F32, what);
        cr_assert_neq(w, LG_NO_VALUE, "%s", what);
        lg_status s = sweep_check(lg_graph_add_inner_product(g, vx, w, LG_NO_VALUE, &v), fn,
                                  "OC|weights|overflow", what);
        if (s != LG_OK) sweep_expect(s, true, what);
    }
}

/* lg_graph_add_batchnorm: the epsilon, each statistic's length, the channel
 * count, src 2 x 16 x 5 x 5. */
static void sweep_batchnorm(lg_graph *g, lg_value vx) {
    char what[160];
    lg_value v;
    const char *fn = "lg_graph_add_batchnorm";
    int64_t c16 = 16;
    lg_value st[4];
    for (int k = 0; k < 4; k++) {
        st[k] = sweep_input(g, 1, &c16, LG_F32, "statistic");
        cr_assert_neq(st[k], LG_NO_VALUE);
    }
    const float eps[] = LG_XFLOAT_LIST;
    for (size_t i = 0; i < sizeof eps / sizeof eps[0]; i++) {
        snprintf(what, sizeof what, "batchnorm epsilon %g", (double)eps[i]);
        sweep_expect(sweep_check(lg_graph_add_batchnorm(g, vx, st[0], st[1], st[2], st[3], eps[i],
                                                        i & 1, &v),
                                 fn, "epsilon", what),
                     !(eps[i] >= 0.0f) || isinf(eps[i]), what);
    }
    static const char *const names[4] = {"mean", "variance", "gamma", "beta"};
    for (int i = 0; i < LG_NX64; i++) {
        const int64_t e = lg_x64[i];
        snprintf(what, sizeof what, "batchnorm statistic of %lld", (long long)e);
        lg_value s = sweep_input(g, 1, &e, LG_F32, what);
        for (int k = 0; s != LG_NO_VALUE && k < 4; k++) {
            lg_value a[4] = {st[0], st[1], st[2], st[3]};
            a[k] = s;
            snprintf(what, sizeof what, "batchnorm %s of %lld", names[k], (long long)e);
            sweep_expect(
                sweep_check(lg_graph_add_batchnorm(g, vx, a[0], a[1], a[2], a[3], 1e-5f, false, &v),
                            fn, names[k], what),
                e != 16, what);
        }
        /* A src of e channels with statistics of e values. */
        int64_t sd[3] = {1, e, 2};
        snprintf(what, sizeof what, "batchnorm of %lld channels", (long long)e);
        lg_value x = sweep_input(g, 3, sd, LG_F32, what);
        if (s == LG_NO_VALUE || x == LG_NO_VALUE) continue;
        sweep_expect(sweep_check(lg_graph_add_batchnorm(g, x, s, s, s, s, 1e-5f, true, &v), fn,
                                 "dims", what),
                     e < 1, what);
    }
}

Test(robustness, graph_layer_builders) {
    lg_graph *g;
    cr_assert_eq(lg_graph_create(&g), LG_OK);
    int64_t xd[4] = {2, 16, 5, 5};
    lg_value vx = sweep_input(g, 4, xd, LG_F32, "x");
    cr_assert_neq(vx, LG_NO_VALUE);
    sweep_concat(g, vx);
    sweep_softmax(g, vx);
    sweep_inner_product(g, vx);
    sweep_batchnorm(g, vx);
    lg_graph_destroy(g);
    sweep_report("graph layer builders");
}

Test(robustness, compile_and_execute) {
    char what[128];
    lg_graph *g = small_graph();
    size_t bytes = 8 * 6 * 6 * sizeof(float);
    unsigned char *xb = aligned_alloc(64, bytes + 64), *yb = aligned_alloc(64, bytes + 64);
    memset(xb, 0, bytes + 64);
    for (int v = 0; v < LG_NXINT; v++) {
        lg_compile_options o;
        lg_compile_options_init(&o);
        o.strategy = (lg_strategy)lg_xint[v];
        snprintf(what, sizeof what, "strategy %d", lg_xint[v]);
        lg_plan *plan;
        if (sweep_check(lg_graph_compile(g, &o, &plan), "lg_graph_compile", "strategy", what) ==
            LG_OK)
            lg_plan_destroy(plan);
        lg_compile_options_init(&o);
        o.num_threads = lg_xint[v];
        snprintf(what, sizeof what, "num_threads %d", lg_xint[v]);
        if (sweep_check(lg_graph_compile(g, &o, &plan), "lg_graph_compile", "num_threads", what) !=
            LG_OK)
            continue;
        if (lg_xint[v] <= 64) { /* a plan with a valid thread count runs */
            lg_binding in = {"x", xb}, out = {"y", yb};
            cr_assert_eq(lg_plan_execute(plan, 1, &in, 1, &out), LG_OK, "%s: %s", what,
                         lg_last_error());
        }
        lg_plan_destroy(plan);
    }
    const char *lists[] = {"",
                           ",",
                           "fuse,,fuse",
                           "nosuchpass",
                           "insert_reorders",
                           "fuse\n",
                           "eliminate_reorders,propagate"};
    for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++) {
        lg_compile_options o;
        lg_compile_options_init(&o);
        o.disable_passes = lists[i];
        snprintf(what, sizeof what, "disable_passes '%s'", lists[i]);
        lg_plan *plan;
        if (sweep_check(lg_graph_compile(g, &o, &plan), "lg_graph_compile", "disable_passes",
                        what) == LG_OK)
            lg_plan_destroy(plan);
    }
    lg_plan *plan;
    cr_assert_eq(lg_graph_compile(g, NULL, &plan), LG_OK);
    for (int v = 0; v < LG_NXINT; v++) {
        snprintf(what, sizeof what, "nin / nout %d", lg_xint[v]);
        lg_binding in = {"x", xb}, out = {"y", yb};
        sweep_check(lg_plan_execute(plan, lg_xint[v], NULL, 1, &out), "lg_plan_execute", "input",
                    what);
        sweep_check(lg_plan_execute(plan, 1, &in, lg_xint[v], NULL), "lg_plan_execute", "output",
                    what);
    }
    for (int o = 0; o < LG_NXOFF; o++)
        for (int side = 0; side < 2; side++) {
            lg_binding in = {"x", xb + (side ? 0 : lg_xoff[o])},
                       out = {"y", yb + (side ? lg_xoff[o] : 0)};
            snprintf(what, sizeof what, "%s at +%d", side ? "output" : "input", lg_xoff[o]);
            lg_status s = sweep_check(lg_plan_execute(plan, 1, &in, 1, &out), "lg_plan_execute",
                                      side ? "output 'y'" : "input 'x'", what);
            cr_assert_eq(s, lg_xoff[o] % 4 ? LG_INVALID_ARGUMENT : LG_OK, "%s: %s", what,
                         lg_last_error());
        }
    const char *names[] = {"", "X", "x ", "y\n", "xx"};
    FILE *sink = fopen("/dev/null", "w");
    cr_assert(sink);
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        lg_md md;
        snprintf(what, sizeof what, "name '%s'", names[i]);
        sweep_check(lg_plan_query_md(plan, names[i], &md), "lg_plan_query_md", "name|no input",
                    what);
        sweep_check(lg_plan_dump(plan, sink, names[i]), "lg_plan_dump", "format", what);
    }
    fclose(sink);
    lg_plan_destroy(plan);
    lg_graph_destroy(g);
    free(xb);
    free(yb);
    sweep_report("compile and execute");
}
