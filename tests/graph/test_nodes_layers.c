/* Graphs with pooling, softmax and batch-norm nodes (the layers of a
 * classifier: conv -> bn -> relu -> max pool -> ... -> global average pool
 * -> softmax), at every ISA cap the CPU has, under every strategy and with
 * optional passes skipped, against scalar references written here (pooling,
 * batch norm and softmax in double) and in graph_ref.h (conv in double); and
 * the errors of the three constructors, each naming the argument at fault.
 * Tolerance: values stay O(1); f32 sums in another order than the double
 * references, so 2e-4 absolute plus 2e-4 relative. */
#include "graph_ref.h"
#include "primitives/cpu.h"

#define ATOL 2e-4f
#define RTOL 2e-4f

static const lg_strategy strategies[] = {LG_STRATEGY_NONE, LG_STRATEGY_GREEDY, LG_STRATEGY_OPTIMAL};
static const char *const disables[] = {NULL, "fuse", "fold_constants,plan_memory",
                                       "fuse,fold_batchnorm"};
#define NDIS ((int)(sizeof disables / sizeof *disables))

/* ---- references ---- */

/* 2D pooling in double (alg as lg_pool_alg), geometry from p. */
static tensor ref_pool(const tensor *x, const lg_pool_params *p) {
    int64_t n = x->dims[0], c = x->dims[1], ih = x->dims[2], iw = x->dims[3];
    int64_t kh = p->kernel[0], kw = p->kernel[1];
    int64_t oh = (ih + p->pad_l[0] + p->pad_r[0] - kh) / p->strides[0] + 1;
    int64_t ow = (iw + p->pad_l[1] + p->pad_r[1] - kw) / p->strides[1] + 1;
    int64_t dims[4] = {n, c, oh, ow};
    tensor y = t_new(4, dims);
    for (int64_t b = 0; b < n * c; b++)
        for (int64_t i = 0; i < oh; i++)
            for (int64_t j = 0; j < ow; j++) {
                double acc = p->alg == LG_POOL_MAX ? -INFINITY : 0.0;
                int64_t taps = 0;
                for (int64_t r = 0; r < kh; r++)
                    for (int64_t s = 0; s < kw; s++) {
                        int64_t yy = i * p->strides[0] - p->pad_l[0] + r;
                        int64_t xx = j * p->strides[1] - p->pad_l[1] + s;
                        if (yy < 0 || yy >= ih || xx < 0 || xx >= iw) continue;
                        double v = x->d[(b * ih + yy) * iw + xx];
                        acc = p->alg == LG_POOL_MAX ? (v > acc ? v : acc) : acc + v;
                        taps++;
                    }
                if (p->alg == LG_POOL_AVG_INCLUDE_PADDING) acc /= (double)(kh * kw);
                if (p->alg == LG_POOL_AVG_EXCLUDE_PADDING) acc /= (double)taps;
                y.d[(b * oh + i) * ow + j] = taps ? (float)acc : 0.0f;
            }
    return y;
}

/* Batch norm in double over dim 1 of a 4D tensor. */
static tensor ref_bn(const tensor *x, const float *mean, const float *var, const float *gamma,
                     const float *beta, float eps, bool relu) {
    tensor y = t_new(x->nd, x->dims);
    int64_t c = x->dims[1], sp = x->dims[2] * x->dims[3];
    for (int64_t i = 0; i < t_count(x); i++) {
        int64_t ch = i / sp % c;
        double v = (x->d[i] - (double)mean[ch]) / sqrt((double)var[ch] + eps);
        if (gamma) v = v * gamma[ch] + beta[ch];
        y.d[i] = (float)(relu && v < 0 ? 0 : v);
    }
    return y;
}

/* Softmax (log: log-softmax) in double over `axis`. */
static tensor ref_softmax(const tensor *x, int axis, bool log_) {
    tensor y = t_new(x->nd, x->dims);
    int64_t inner = 1, a = x->dims[axis];
    for (int d = axis + 1; d < x->nd; d++) inner *= x->dims[d];
    int64_t outer = t_count(x) / (a * inner);
    for (int64_t o = 0; o < outer; o++)
        for (int64_t in = 0; in < inner; in++) {
            const float *s = x->d + o * a * inner + in;
            float *d = y.d + o * a * inner + in;
            double m = -INFINITY, sum = 0;
            for (int64_t k = 0; k < a; k++) m = s[k * inner] > m ? s[k * inner] : m;
            for (int64_t k = 0; k < a; k++) sum += exp(s[k * inner] - m);
            for (int64_t k = 0; k < a; k++)
                d[k * inner] =
                    (float)(log_ ? s[k * inner] - m - log(sum) : exp(s[k * inner] - m) / sum);
        }
    return y;
}

/* ---- graph builders ---- */

typedef struct conv_layer {
    tensor w, b;
    lg_conv_params p;
} conv_layer;

static lg_value add_conv(lg_graph *g, lg_value src, int64_t ic, int64_t oc, int64_t k, int64_t pad,
                         lg_rng *r, conv_layer *L, const char *name) {
    L->p =
        (lg_conv_params){.strides = {1, 1}, .pad_l = {pad, pad}, .pad_r = {pad, pad}, .groups = 1};
    float scale = 1.0f / sqrtf((float)(ic * k * k));
    int64_t wd[4] = {oc, ic, k, k}, bd[1] = {oc};
    L->w = t_rand(4, wd, r, -scale, scale);
    L->b = t_rand(1, bd, r, -0.2f, 0.2f);
    lg_md wmd = md_tag(4, wd, "oihw"), bmd = md_tag(1, bd, "a");
    char wn[64], bn[64];
    snprintf(wn, sizeof wn, "%s.w", name);
    snprintf(bn, sizeof bn, "%s.b", name);
    lg_value w, b, y;
    cr_assert_eq(lg_graph_add_constant(g, wn, &wmd, L->w.d, &w), LG_OK, "%s", lg_last_error());
    cr_assert_eq(lg_graph_add_constant(g, bn, &bmd, L->b.d, &b), LG_OK, "%s", lg_last_error());
    cr_assert_eq(lg_graph_add_conv(g, src, w, b, &L->p, &y), LG_OK, "%s: %s", name,
                 lg_last_error());
    return y;
}

typedef struct bn_layer {
    float mean[256], var[256], gamma[256], beta[256];
    bool affine, relu;
} bn_layer;

static lg_value add_bn(lg_graph *g, lg_value src, int64_t c, bool affine, bool relu, lg_rng *r,
                       bn_layer *L, const char *name) {
    cr_assert_leq(c, 256, "bn_layer holds 256 channels");
    L->affine = affine;
    L->relu = relu;
    for (int64_t i = 0; i < c; i++) {
        L->mean[i] = lg_rng_float(r, -0.5f, 0.5f);
        L->var[i] = lg_rng_float(r, 0.2f, 2.0f);
        L->gamma[i] = lg_rng_float(r, 0.5f, 1.5f);
        L->beta[i] = lg_rng_float(r, -0.3f, 0.3f);
    }
    int64_t d[1] = {c};
    lg_md md = md_tag(1, d, "a");
    const float *arrs[4] = {L->mean, L->var, L->gamma, L->beta};
    static const char *const sfx[4] = {"mean", "var", "gamma", "beta"};
    lg_value v[4] = {LG_NO_VALUE, LG_NO_VALUE, LG_NO_VALUE, LG_NO_VALUE}, y;
    for (int i = 0; i < (affine ? 4 : 2); i++) {
        char n[64];
        snprintf(n, sizeof n, "%s.%s", name, sfx[i]);
        cr_assert_eq(lg_graph_add_constant(g, n, &md, arrs[i], &v[i]), LG_OK, "%s",
                     lg_last_error());
    }
    cr_assert_eq(lg_graph_add_batchnorm(g, src, v[0], v[1], v[2], v[3], 1e-5f, relu, &y), LG_OK,
                 "%s: %s", name, lg_last_error());
    return y;
}

static tensor ref_bn_layer(const tensor *x, const bn_layer *L) {
    return ref_bn(x, L->mean, L->var, L->affine ? L->gamma : NULL, L->beta, 1e-5f, L->relu);
}

static lg_pool_params pool_p(lg_pool_alg alg, int64_t k, int64_t s, int64_t pl, int64_t pr) {
    return (lg_pool_params){
        .alg = alg, .kernel = {k, k}, .strides = {s, s}, .pad_l = {pl, pl}, .pad_r = {pr, pr}};
}

static lg_value add_pool(lg_graph *g, lg_value x, const lg_pool_params *p) {
    lg_value y;
    cr_assert_eq(lg_graph_add_pool(g, x, p, &y), LG_OK, "%s", lg_last_error());
    return y;
}

/* The ISA caps this CPU can run, best last. */
static int isa_caps(int *caps) {
    int n = 0;
    for (int i = LG_ISA_SCALAR; i <= (int)lg__cpu_isa_hw(); i++) caps[n++] = i;
    return n;
}

/* The classifier-shaped net: conv(3->12) -> bn -> relu -> maxpool 3x3 s2
 * p1 (pad_r 2: ceil mode) -> conv(12->20) -> bn(fused relu, no affine) ->
 * avg_np 3x3 s1 p1 -> avg_p 2x2 s2 -> global avg -> softmax and log-softmax
 * over channels. */
Test(nodes_layers, classifier_net_every_strategy) {
    lg_rng r = {18};
    int64_t xd[4] = {2, 3, 15, 15};
    lg_graph *g;
    cr_assert_eq(lg_graph_create(&g), LG_OK);
    lg_md xmd = md_tag(4, xd, "abcd");
    lg_value x, v, sm, lsm;
    cr_assert_eq(lg_graph_add_input(g, "x", &xmd, &x), LG_OK);
    conv_layer c1, c2;
    bn_layer b1, b2;
    v = add_conv(g, x, 3, 12, 3, 1, &r, &c1, "c1");
    v = add_bn(g, v, 12, true, false, &r, &b1, "b1");
    cr_assert_eq(lg_graph_add_eltwise(g, v, LG_ELTWISE_RELU, 0, 0, &v), LG_OK);
    lg_pool_params pm = pool_p(LG_POOL_MAX, 3, 2, 1, 2);
    v = add_pool(g, v, &pm);
    v = add_conv(g, v, 12, 20, 3, 1, &r, &c2, "c2");
    v = add_bn(g, v, 20, false, true, &r, &b2, "b2");
    lg_pool_params pa = pool_p(LG_POOL_AVG_EXCLUDE_PADDING, 3, 1, 1, 1);
    v = add_pool(g, v, &pa);
    lg_pool_params pp = pool_p(LG_POOL_AVG_INCLUDE_PADDING, 2, 2, 0, 0);
    v = add_pool(g, v, &pp);
    /* 15 -> 15 (conv) -> 9 (max, ceil) -> 9 -> 9 -> 4 (avg_p): global 4x4. */
    lg_pool_params pg = pool_p(LG_POOL_AVG_EXCLUDE_PADDING, 4, 1, 0, 0);
    v = add_pool(g, v, &pg);
    cr_assert_eq(lg_graph_add_softmax(g, v, LG_SOFTMAX, 1, &sm), LG_OK, "%s", lg_last_error());
    cr_assert_eq(lg_graph_add_softmax(g, v, LG_LOGSOFTMAX, 1, &lsm), LG_OK);
    cr_assert_eq(lg_graph_add_output(g, sm, "p", "abcd"), LG_OK);
    cr_assert_eq(lg_graph_add_output(g, lsm, "lp", "any"), LG_OK);

    tensor xt = t_rand(4, xd, &r, -1, 1);
    tensor t1 = ref_conv2d(&xt, &c1.w, &c1.b, &c1.p), t2 = ref_bn_layer(&t1, &b1),
           t3 = ref_relu(&t2, 0), t4 = ref_pool(&t3, &pm),
           t5 = ref_conv2d(&t4, &c2.w, &c2.b, &c2.p), t6 = ref_bn_layer(&t5, &b2),
           t7 = ref_pool(&t6, &pa), t8 = ref_pool(&t7, &pp), t9 = ref_pool(&t8, &pg);
    cr_assert_eq(t9.dims[2], 1);
    cr_assert_eq(t9.dims[3], 1);
    tensor want[2] = {ref_softmax(&t9, 1, false), ref_softmax(&t9, 1, true)};

    int caps[3], ncaps = isa_caps(caps);
    const char *in_names[1] = {"x"}, *out_names[2] = {"p", "lp"};
    for (int c = 0; c < ncaps; c++) {
        lg__cpu_set_isa_cap(caps[c]);
        for (int s = 0; s < 3; s++)
            for (int d = 0; d < NDIS; d++) {
                lg_plan *p = compile_with(g, strategies[s], disables[d]);
                tensor got[2];
                run_plan(p, 1, in_names, &xt, 2, out_names, got);
                for (int o = 0; o < 2; o++) {
                    t_expect_near(&got[o], &want[o], ATOL, RTOL, out_names[o]);
                    t_free(&got[o]);
                }
                lg_plan_destroy(p);
            }
    }
    lg__cpu_set_isa_cap(-1);
    tensor *all[] = {&xt, &t1, &t2,      &t3,      &t4,   &t5,   &t6,   &t7,
                     &t8, &t9, &want[0], &want[1], &c1.w, &c1.b, &c2.w, &c2.b};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) t_free(all[i]);
    lg_graph_destroy(g);
}

/* A standalone batch norm on a graph input (no conv to fold into), its relu
 * fused into the kernel: one step; and pooling kept in the blocked layout
 * its producer wrote (no reorder between conv and pool under GREEDY). */
Test(nodes_layers, standalone_bn_relu_fuses_and_pool_keeps_layout) {
    lg_rng r = {7};
    int64_t xd[4] = {1, 16, 8, 8};
    lg_graph *g;
    cr_assert_eq(lg_graph_create(&g), LG_OK);
    lg_md xmd = md_tag(4, xd, "abcd");
    lg_value x, v;
    cr_assert_eq(lg_graph_add_input(g, "x", &xmd, &x), LG_OK);
    bn_layer b;
    v = add_bn(g, x, 16, true, false, &r, &b, "bn");
    cr_assert_eq(lg_graph_add_eltwise(g, v, LG_ELTWISE_RELU, 0, 0, &v), LG_OK);
    cr_assert_eq(lg_graph_add_output(g, v, "y", "abcd"), LG_OK);
    lg_plan *p = compile_with(g, LG_STRATEGY_GREEDY, NULL);
    lg_plan_stats st;
    cr_assert_eq(lg_plan_stats_get(p, &st), LG_OK);
    cr_expect_eq(st.steps, 1, "bn + relu: %d steps", st.steps);
    tensor xt = t_rand(4, xd, &r, -2, 2), got;
    b.relu = true;
    tensor want = ref_bn_layer(&xt, &b);
    const char *in_names[1] = {"x"}, *out_names[1] = {"y"};
    run_plan(p, 1, in_names, &xt, 1, out_names, &got);
    t_expect_near(&got, &want, ATOL, RTOL, "bn+relu");
    t_free(&got);
    t_free(&want);
    t_free(&xt);
    lg_plan_destroy(p);
    lg_graph_destroy(g);

    /* "any" input -> conv -> max pool -> output "any": the pool reads the
     * conv's layout (no reorder anywhere). */
    cr_assert_eq(lg_graph_create(&g), LG_OK);
    int64_t yd[4] = {1, 8, 16, 16};
    lg_md ymd = md_tag(4, yd, "any");
    cr_assert_eq(lg_graph_add_input(g, "x", &ymd, &x), LG_OK);
    conv_layer c;
    v = add_conv(g, x, 8, 32, 3, 1, &r, &c, "c");
    lg_pool_params pm = pool_p(LG_POOL_MAX, 2, 2, 0, 0);
    v = add_pool(g, v, &pm);
    cr_assert_eq(lg_graph_add_output(g, v, "y", "any"), LG_OK);
    for (int s = 1; s < 3; s++) {
        p = compile_with(g, strategies[s], NULL);
        cr_assert_eq(lg_plan_stats_get(p, &st), LG_OK);
        lg_md om;
        cr_assert_eq(lg_plan_query_md(p, "y", &om), LG_OK);
        cr_expect_eq(st.runtime_reorders, 0, "%s: %d runtime reorders",
                     strategy_name(strategies[s]), st.runtime_reorders);
        cr_expect_eq(st.steps, 2, "%s: %d steps", strategy_name(strategies[s]), st.steps);
        if (lg__cpu_isa() >= LG_ISA_AVX2)
            cr_expect_gt(om.blocking.inner_nblks, 0, "%s: the pool's result is not blocked",
                         strategy_name(strategies[s]));
        lg_plan_destroy(p);
    }
    t_free(&c.w);
    t_free(&c.b);
    lg_graph_destroy(g);
}

static void expect_error(lg_status got, lg_status want, const char *word) {
    cr_expect_eq(got, want, "status %d, want %d (%s)", got, want, lg_last_error());
    cr_expect(strstr(lg_last_error(), word) != NULL, "'%s' not named in: %s", word,
              lg_last_error());
}

Test(nodes_layers, bad_input_names_the_argument) {
    lg_graph *g;
    cr_assert_eq(lg_graph_create(&g), LG_OK);
    int64_t xd[4] = {1, 4, 5, 5}, cd[1] = {4}, wd[1] = {3};
    lg_md xmd = md_tag(4, xd, "abcd"), cmd = md_tag(1, cd, "a"), wmd = md_tag(1, wd, "a");
    float zeros[4] = {0}, ones[4] = {1, 1, 1, 1};
    lg_value x, m, var, bad, y;
    cr_assert_eq(lg_graph_add_input(g, "x", &xmd, &x), LG_OK);
    cr_assert_eq(lg_graph_add_constant(g, "m", &cmd, zeros, &m), LG_OK);
    cr_assert_eq(lg_graph_add_constant(g, "v", &cmd, ones, &var), LG_OK);
    cr_assert_eq(lg_graph_add_constant(g, "bad", &wmd, ones, &bad), LG_OK);

    /* A kernel larger than the padded input (5 + 0 + 0 < 7). */
    lg_pool_params p = pool_p(LG_POOL_MAX, 7, 1, 0, 0);
    expect_error(lg_graph_add_pool(g, x, &p, &y), LG_INVALID_ARGUMENT, "kernel[0]");
    expect_error(lg_graph_add_pool(g, x, &p, &y), LG_INVALID_ARGUMENT, "lg_graph_add_pool");
    p = pool_p(LG_POOL_MAX, 3, 0, 0, 0);
    expect_error(lg_graph_add_pool(g, x, &p, &y), LG_INVALID_ARGUMENT, "strides[0]");
    p = pool_p((lg_pool_alg)7, 3, 1, 0, 0);
    expect_error(lg_graph_add_pool(g, x, &p, &y), LG_INVALID_ARGUMENT, "alg");
    p = pool_p(LG_POOL_MAX, 3, 1, -1, 0);
    expect_error(lg_graph_add_pool(g, x, &p, &y), LG_INVALID_ARGUMENT, "pad_l[0]");
    expect_error(lg_graph_add_pool(g, x, NULL, &y), LG_INVALID_ARGUMENT, "params");
    expect_error(lg_graph_add_pool(g, m, &p, &y), LG_UNIMPLEMENTED, "dims");

    /* Softmax axis out of range, either side. */
    expect_error(lg_graph_add_softmax(g, x, LG_SOFTMAX, 4, &y), LG_INVALID_ARGUMENT, "axis 4");
    expect_error(lg_graph_add_softmax(g, x, LG_SOFTMAX, -1, &y), LG_INVALID_ARGUMENT, "axis -1");
    expect_error(lg_graph_add_softmax(g, x, (lg_softmax_alg)3, 1, &y), LG_INVALID_ARGUMENT, "alg");

    /* Statistics of the wrong size, gamma without beta, a bad epsilon. */
    expect_error(lg_graph_add_batchnorm(g, x, bad, var, LG_NO_VALUE, LG_NO_VALUE, 1e-5f, false, &y),
                 LG_INVALID_ARGUMENT, "mean");
    expect_error(lg_graph_add_batchnorm(g, x, m, bad, LG_NO_VALUE, LG_NO_VALUE, 1e-5f, false, &y),
                 LG_INVALID_ARGUMENT, "variance");
    expect_error(lg_graph_add_batchnorm(g, x, m, var, var, bad, 1e-5f, false, &y),
                 LG_INVALID_ARGUMENT, "beta");
    expect_error(lg_graph_add_batchnorm(g, x, m, var, var, LG_NO_VALUE, 1e-5f, false, &y),
                 LG_INVALID_ARGUMENT, "gamma");
    expect_error(lg_graph_add_batchnorm(g, x, m, var, LG_NO_VALUE, LG_NO_VALUE, -1.0f, false, &y),
                 LG_INVALID_ARGUMENT, "epsilon");
    expect_error(lg_graph_add_batchnorm(g, x, 999, var, LG_NO_VALUE, LG_NO_VALUE, 0, false, &y),
                 LG_INVALID_ARGUMENT, "mean value 999");
    /* Nothing was added by the failures: the good calls still work. */
    p = pool_p(LG_POOL_AVG_EXCLUDE_PADDING, 5, 1, 0, 0);
    cr_expect_eq(lg_graph_add_pool(g, x, &p, &y), LG_OK, "%s", lg_last_error());
    cr_expect_eq(lg_graph_add_softmax(g, y, LG_SOFTMAX, 1, &y), LG_OK, "%s", lg_last_error());
    cr_expect_eq(lg_graph_add_batchnorm(g, x, m, var, LG_NO_VALUE, LG_NO_VALUE, 0, false, &y),
                 LG_OK, "%s", lg_last_error());
    lg_graph_destroy(g);
}

/* Pass fold_batchnorm: conv -> bn folds (with and without a conv bias, a
 * grouped conv, weights given blocked, a bn with a fused relu), the results
 * unchanged with the pass on and off, and the plan one step shorter; a conv
 * whose result has a second reader keeps its bn. */
static int plan_steps(const lg_plan *p) {
    lg_plan_stats st;
    cr_assert_eq(lg_plan_stats_get(p, &st), LG_OK);
    return st.steps;
}

Test(nodes_layers, fold_batchnorm_into_conv) {
    lg_rng r = {99};
    struct {
        int64_t ic, oc, groups;
        bool bias, affine, relu, second_reader;
        const char *wtag;
    } cases[] = {
        {3, 16, 1, true, true, false, false, "oihw"},
        {8, 12, 1, false, true, false, false, "oihw"},
        {8, 16, 4, true, false, false, false, "goihw"},
        {16, 16, 1, true, true, true, false, "OIhw8i8o"},
        {8, 8, 1, true, true, false, true, "oihw"},
    };
    for (size_t ci = 0; ci < sizeof cases / sizeof *cases; ci++) {
        int64_t ic = cases[ci].ic, oc = cases[ci].oc, G = cases[ci].groups;
        int64_t xd[4] = {2, ic, 9, 9};
        lg_graph *g;
        cr_assert_eq(lg_graph_create(&g), LG_OK);
        lg_md xmd = md_tag(4, xd, "abcd");
        lg_value x, w, b = LG_NO_VALUE, y, z;
        cr_assert_eq(lg_graph_add_input(g, "x", &xmd, &x), LG_OK);
        lg_conv_params cp = {.strides = {1, 1}, .pad_l = {1, 1}, .pad_r = {1, 1}, .groups = G};
        int64_t wd5[5] = {G, oc / G, ic / G, 3, 3}, wd4[4] = {oc, ic / G, 3, 3}, bd[1] = {oc};
        tensor wt = G > 1 ? t_rand(5, wd5, &r, -0.3f, 0.3f) : t_rand(4, wd4, &r, -0.3f, 0.3f);
        lg_md wmd = G > 1 ? md_tag(5, wd5, cases[ci].wtag) : md_tag(4, wd4, cases[ci].wtag);
        void *wb = t_pack(&wt, &wmd);
        cr_assert_eq(lg_graph_add_constant(g, "w", &wmd, wb, &w), LG_OK);
        free(wb);
        tensor bt = t_rand(1, bd, &r, -0.5f, 0.5f);
        lg_md bmd = md_tag(1, bd, "a");
        if (cases[ci].bias) cr_assert_eq(lg_graph_add_constant(g, "b", &bmd, bt.d, &b), LG_OK);
        cr_assert_eq(lg_graph_add_conv(g, x, w, b, &cp, &y), LG_OK, "%s", lg_last_error());
        bn_layer L;
        z = add_bn(g, y, oc, cases[ci].affine, cases[ci].relu, &r, &L, "bn");
        cr_assert_eq(lg_graph_add_output(g, z, "z", "abcd"), LG_OK);
        if (cases[ci].second_reader) cr_assert_eq(lg_graph_add_output(g, y, "y", "abcd"), LG_OK);

        tensor xt = t_rand(4, xd, &r, -1, 1);
        tensor yt = ref_conv2d(&xt, &wt, cases[ci].bias ? &bt : NULL, &cp);
        tensor want = ref_bn_layer(&yt, &L);
        const char *in_names[1] = {"x"}, *out_names[2] = {"z", "y"};
        int nout = cases[ci].second_reader ? 2 : 1;
        for (int s = 0; s < 3; s++) {
            lg_plan *on = compile_with(g, strategies[s], NULL);
            lg_plan *off = compile_with(g, strategies[s], "fold_batchnorm");
            tensor a[2], c[2];
            run_plan(on, 1, in_names, &xt, nout, out_names, a);
            run_plan(off, 1, in_names, &xt, nout, out_names, c);
            t_expect_near(&a[0], &want, ATOL, RTOL, "fold on");
            t_expect_near(&c[0], &want, ATOL, RTOL, "fold off");
            t_expect_near(&a[0], &c[0], ATOL, RTOL, "on vs off");
            if (nout == 2) t_expect_near(&a[1], &yt, ATOL, RTOL, "conv result");
            int fewer = cases[ci].second_reader ? 0 : 1;
            cr_expect_eq(plan_steps(on), plan_steps(off) - fewer,
                         "case %zu %s: %d steps with the pass, %d without", ci,
                         strategy_name(strategies[s]), plan_steps(on), plan_steps(off));
            for (int o = 0; o < nout; o++) {
                t_free(&a[o]);
                t_free(&c[o]);
            }
            lg_plan_destroy(on);
            lg_plan_destroy(off);
        }
        t_free(&xt);
        t_free(&yt);
        t_free(&want);
        t_free(&wt);
        t_free(&bt);
        lg_graph_destroy(g);
    }
}

/* Relu and clip (f(0) = 0) after a pool become its post-ops (one step),
 * a clip with f(0) != 0 stays a step of its own; results equal the
 * reference in every strategy, fused or not, at every ISA cap; the global
 * average pool's path takes post-ops too. */
Test(nodes_layers, pool_post_ops_fuse) {
    lg_rng r = {5};
    int64_t xd[4] = {2, 12, 9, 9};
    lg_graph *g;
    cr_assert_eq(lg_graph_create(&g), LG_OK);
    lg_md xmd = md_tag(4, xd, "any");
    lg_value x, a, b, c;
    cr_assert_eq(lg_graph_add_input(g, "x", &xmd, &x), LG_OK);
    lg_pool_params pm = pool_p(LG_POOL_MAX, 3, 2, 1, 1);
    a = add_pool(g, x, &pm);
    cr_assert_eq(lg_graph_add_eltwise(g, a, LG_ELTWISE_RELU, 0.1f, 0, &a), LG_OK);
    cr_assert_eq(lg_graph_add_eltwise(g, a, LG_ELTWISE_CLIP, -0.5f, 0.5f, &a), LG_OK);
    lg_pool_params pg = pool_p(LG_POOL_AVG_EXCLUDE_PADDING, 9, 1, 0, 0);
    b = add_pool(g, x, &pg);
    cr_assert_eq(lg_graph_add_eltwise(g, b, LG_ELTWISE_RELU, 0, 0, &b), LG_OK);
    lg_pool_params pa = pool_p(LG_POOL_AVG_INCLUDE_PADDING, 2, 2, 0, 0);
    c = add_pool(g, x, &pa);
    cr_assert_eq(lg_graph_add_eltwise(g, c, LG_ELTWISE_CLIP, 0.1f, 6.0f, &c), LG_OK);
    cr_assert_eq(lg_graph_add_output(g, a, "a", "abcd"), LG_OK);
    cr_assert_eq(lg_graph_add_output(g, b, "b", "abcd"), LG_OK);
    cr_assert_eq(lg_graph_add_output(g, c, "c", "abcd"), LG_OK);

    tensor xt = t_rand(4, xd, &r, -1, 1);
    tensor a1 = ref_pool(&xt, &pm), a2 = ref_relu(&a1, 0.1f), b1 = ref_pool(&xt, &pg),
           b2 = ref_relu(&b1, 0), c1 = ref_pool(&xt, &pa);
    tensor want[3] = {t_new(4, a2.dims), b2, t_new(4, c1.dims)};
    for (int64_t i = 0; i < t_count(&a2); i++)
        want[0].d[i] = a2.d[i] < -0.5f ? -0.5f : a2.d[i] > 0.5f ? 0.5f : a2.d[i];
    for (int64_t i = 0; i < t_count(&c1); i++)
        want[2].d[i] = c1.d[i] < 0.1f ? 0.1f : c1.d[i] > 6.0f ? 6.0f : c1.d[i];
    const char *in_names[1] = {"x"}, *out_names[3] = {"a", "b", "c"};
    int caps[3], ncaps = isa_caps(caps);
    for (int cp = 0; cp < ncaps; cp++) {
        lg__cpu_set_isa_cap(caps[cp]);
        for (int s = 0; s < 3; s++)
            for (int fuse = 0; fuse < 2; fuse++) {
                lg_plan *p = compile_with(g, strategies[s], fuse ? NULL : "fuse");
                tensor got[3];
                run_plan(p, 1, in_names, &xt, 3, out_names, got);
                for (int o = 0; o < 3; o++) {
                    t_expect_near(&got[o], &want[o], 1e-6f, 1e-6f, out_names[o]);
                    t_free(&got[o]);
                }
                /* Fused: 3 pools + the clip(0.1, 6) (+ output copies). */
                int steps = plan_steps(p);
                lg_plan_stats st;
                cr_assert_eq(lg_plan_stats_get(p, &st), LG_OK);
                int kernels = steps - st.runtime_reorders;
                cr_expect_eq(kernels, fuse ? 4 : 7, "%s fuse %d isa %d: %d kernel steps",
                             strategy_name(strategies[s]), fuse, caps[cp], kernels);
                lg_plan_destroy(p);
            }
    }
    lg__cpu_set_isa_cap(-1);
    tensor *all[] = {&xt, &a1, &a2, &b1, &c1, &want[0], &want[1], &want[2]};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) t_free(all[i]);
    lg_graph_destroy(g);
}

/* A ResNet-18-shaped network (stem conv + bn + relu + max pool, 8 basic
 * blocks over 4 stages with downsampling convs, global average pool,
 * softmax), small sizes: OPTIMAL stays exact on a whole network with
 * batchnorms folded or not, and every strategy gives the same result (the
 * three plans differ in every layout, so each checks the others). */
static lg_value conv_bn_relu(lg_graph *g, lg_value x, int64_t ic, int64_t oc, int64_t k, int64_t s,
                             bool relu, lg_rng *r, int *id) {
    char name[32];
    snprintf(name, sizeof name, "c%d", (*id)++);
    conv_layer L;
    L.p = (lg_conv_params){
        .strides = {s, s}, .pad_l = {k / 2, k / 2}, .pad_r = {k / 2, k / 2}, .groups = 1};
    float sc = 1.0f / sqrtf((float)(ic * k * k));
    int64_t wd[4] = {oc, ic, k, k};
    L.w = t_rand(4, wd, r, -sc, sc);
    lg_md wmd = md_tag(4, wd, "oihw");
    lg_value w, y;
    cr_assert_eq(lg_graph_add_constant(g, name, &wmd, L.w.d, &w), LG_OK);
    t_free(&L.w);
    cr_assert_eq(lg_graph_add_conv(g, x, w, LG_NO_VALUE, &L.p, &y), LG_OK, "%s", lg_last_error());
    bn_layer B;
    strcat(name, "bn");
    return add_bn(g, y, oc, true, relu, r, &B, name);
}

Test(nodes_layers, resnet18_shaped_network_exact_and_consistent) {
    lg_rng r = {18};
    int64_t xd[4] = {1, 3, 32, 32};
    lg_graph *g;
    cr_assert_eq(lg_graph_create(&g), LG_OK);
    lg_md xmd = md_tag(4, xd, "abcd");
    lg_value x, v;
    cr_assert_eq(lg_graph_add_input(g, "x", &xmd, &x), LG_OK);
    int id = 0;
    v = conv_bn_relu(g, x, 3, 16, 3, 1, true, &r, &id);
    lg_pool_params pm = pool_p(LG_POOL_MAX, 3, 2, 1, 1);
    v = add_pool(g, v, &pm);
    int64_t ic = 16;
    for (int st = 0; st < 4; st++) {
        int64_t oc = 16 << st;
        for (int b = 0; b < 2; b++) {
            int64_t s = b == 0 && st > 0 ? 2 : 1;
            lg_value y = conv_bn_relu(g, v, ic, oc, 3, s, true, &r, &id);
            y = conv_bn_relu(g, y, oc, oc, 3, 1, false, &r, &id);
            lg_value sc = s > 1 ? conv_bn_relu(g, v, ic, oc, 1, s, false, &r, &id) : v;
            cr_assert_eq(lg_graph_add_binary(g, LG_BINARY_ADD, y, sc, &v), LG_OK);
            cr_assert_eq(lg_graph_add_eltwise(g, v, LG_ELTWISE_RELU, 0, 0, &v), LG_OK);
            ic = oc;
        }
    }
    lg_pool_params pg = pool_p(LG_POOL_AVG_EXCLUDE_PADDING, 2, 1, 0, 0); /* 16 -> 8 -> 4 -> 2 */
    v = add_pool(g, v, &pg);
    cr_assert_eq(lg_graph_add_softmax(g, v, LG_LOGSOFTMAX, 1, &v), LG_OK);
    cr_assert_eq(lg_graph_add_output(g, v, "y", "abcd"), LG_OK);
    tensor xt = t_rand(4, xd, &r, -1, 1), got[2][3];
    const char *in_names[1] = {"x"}, *out_names[1] = {"y"};
    for (int f = 0; f < 2; f++)
        for (int s = 0; s < 3; s++) {
            lg_plan *p = compile_with(g, strategies[s], f ? "fold_batchnorm" : NULL);
            lg_plan_stats st;
            cr_assert_eq(lg_plan_stats_get(p, &st), LG_OK);
            if (strategies[s] == LG_STRATEGY_OPTIMAL)
                cr_expect(st.exact, "OPTIMAL is not exact (fold %s)", f ? "off" : "on");
            cr_log_info("resnet18-shaped, %s, fold_batchnorm %s: %d steps, %.1f ms, exact %d",
                        strategy_name(strategies[s]), f ? "off" : "on", st.steps, st.compile_ms,
                        (int)st.exact);
            run_plan(p, 1, in_names, &xt, 1, out_names, &got[f][s]);
            lg_plan_destroy(p);
        }
    for (int f = 0; f < 2; f++)
        for (int s = 0; s < 3; s++) {
            if (f || s) t_expect_near(&got[f][s], &got[0][0], ATOL, RTOL, "vs NONE with folding");
        }
    for (int f = 0; f < 2; f++)
        for (int s = 0; s < 3; s++) t_free(&got[f][s]);
    t_free(&xt);
    lg_graph_destroy(g);
}
