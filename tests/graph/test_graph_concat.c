/* Concat, slice and split nodes in graphs compiled under every strategy
 * (and with passes skipped), compared with scalar references here
 * (graph_ref.h): a ShuffleNetV2 unit (split 58 + 58, a conv branch, concat,
 * shuffle), a DenseNet-style concat of 8 sources (a tree of nodes), a
 * GoogLeNet-style concat of 4 conv branches read by a conv; bad input. The
 * copies are exact; the convs are checked at conv tolerance. */
#include "graph_ref.h"

static const lg_strategy strategies[] = {LG_STRATEGY_NONE, LG_STRATEGY_GREEDY, LG_STRATEGY_OPTIMAL};
static const char *const disables[] = {NULL, "eliminate_reorders,plan_memory,fuse"};
#define ATOL 1e-4f
#define RTOL 1e-4f

static tensor ref_slice(const tensor *x, int axis, int64_t start, int64_t len) {
    int64_t dims[LG_MAX_NDIMS];
    memcpy(dims, x->dims, sizeof dims);
    dims[axis] = len;
    tensor y = t_new(x->nd, dims);
    int64_t idx[LG_MAX_NDIMS] = {0};
    for (int64_t i = 0; i < t_count(&y); i++) {
        t_index(&y, i, idx);
        idx[axis] += start;
        int64_t j = 0;
        for (int d = 0; d < x->nd; d++) j = j * x->dims[d] + idx[d];
        y.d[i] = x->d[j];
    }
    return y;
}

static tensor ref_concat(int n, const tensor *xs, int axis) {
    int64_t dims[LG_MAX_NDIMS];
    memcpy(dims, xs[0].dims, sizeof dims);
    dims[axis] = 0;
    for (int i = 0; i < n; i++) dims[axis] += xs[i].dims[axis];
    tensor y = t_new(xs[0].nd, dims);
    int64_t idx[LG_MAX_NDIMS] = {0};
    for (int64_t i = 0; i < t_count(&y); i++) {
        t_index(&y, i, idx);
        int k = 0;
        while (idx[axis] >= xs[k].dims[axis]) idx[axis] -= xs[k++].dims[axis];
        int64_t j = 0;
        for (int d = 0; d < y.nd; d++) j = j * xs[k].dims[d] + idx[d];
        y.d[i] = xs[k].d[j];
    }
    return y;
}

static tensor conv1x1(const tensor *x, const tensor *w) {
    lg_conv_params p = {.strides = {1, 1}, .groups = 1};
    return ref_conv2d(x, w, NULL, &p);
}

static void check_all(lg_graph *g, const tensor *x, const tensor *want, const char *name) {
    for (int st = 0; st < 3; st++)
        for (size_t d = 0; d < sizeof disables / sizeof *disables; d++) {
            lg_plan *p = compile_with(g, strategies[st], disables[d]);
            const char *in = "x", *out = "y";
            tensor got;
            run_plan(p, 1, &in, x, 1, &out, &got);
            char what[128];
            snprintf(what, sizeof what, "%s %s disabled %s", name, strategy_name(strategies[st]),
                     disables[d] ? disables[d] : "-");
            t_expect_near(&got, want, ATOL, RTOL, what);
            t_free(&got);
            lg_plan_destroy(p);
        }
}

Test(graph_concat, shufflenet_unit) {
    lg_rng r = {58};
    int64_t xd[4] = {2, 116, 6, 6};
    tensor x = t_rand(4, xd, &r, -1, 1), w;
    const char *tags[] = {"nchw", "nhwc", "nChw8c", "nChw16c", "any"};
    for (int t = 0; t < 5; t++) {
        lg_graph *g;
        cr_assert_eq(lg_graph_create(&g), LG_OK);
        lg_md xm;
        cr_assert_eq(lg_md_init_tag(&xm, 4, xd, LG_F32, tags[t]), LG_OK);
        lg_value xv, parts[2], b, c, y;
        cr_assert_eq(lg_graph_add_input(g, "x", &xm, &xv), LG_OK);
        int64_t sizes[2] = {58, 58};
        cr_assert_eq(lg_graph_add_split(g, xv, 1, 2, sizes, parts), LG_OK, "%s", lg_last_error());
        lg_value cv = add_conv1x1(g, parts[1], 58, 58, &r, &w);
        cr_assert_eq(lg_graph_add_eltwise(g, cv, LG_ELTWISE_RELU, 0, 0, &b), LG_OK);
        lg_value cs[2] = {parts[0], b};
        cr_assert_eq(lg_graph_add_concat(g, 1, 2, cs, &c), LG_OK, "%s", lg_last_error());
        cr_assert_eq(lg_graph_add_shuffle(g, c, 1, 58, &y), LG_OK, "%s", lg_last_error());
        cr_assert_eq(lg_graph_add_output(g, y, "y", "nchw"), LG_OK);
        tensor p0 = ref_slice(&x, 1, 0, 58), p1 = ref_slice(&x, 1, 58, 58);
        tensor cb = conv1x1(&p1, &w), rb = ref_relu(&cb, 0);
        tensor both[2] = {p0, rb};
        tensor cat = ref_concat(2, both, 1), want = ref_shuffle(&cat, 1, 58);
        check_all(g, &x, &want, tags[t]);
        t_free(&p0), t_free(&p1), t_free(&cb), t_free(&rb), t_free(&cat), t_free(&want);
        t_free(&w);
        lg_graph_destroy(g);
    }
    t_free(&x);
}

Test(graph_concat, densenet_many_sources) {
    lg_rng r = {121};
    int64_t xd[4] = {1, 13, 5, 5};
    tensor x = t_rand(4, xd, &r, -1, 1), ws[8], ys[8];
    lg_graph *g;
    cr_assert_eq(lg_graph_create(&g), LG_OK);
    lg_md xm = md_tag(4, xd, "nchw");
    lg_value xv, srcs[8], y;
    cr_assert_eq(lg_graph_add_input(g, "x", &xm, &xv), LG_OK);
    srcs[0] = xv;
    ys[0] = x;
    for (int i = 1; i < 8; i++) {
        srcs[i] = add_conv1x1(g, xv, 13, 5 + i, &r, &ws[i]);
        ys[i] = conv1x1(&x, &ws[i]);
    }
    cr_assert_eq(lg_graph_add_concat(g, 1, 8, srcs, &y), LG_OK, "%s", lg_last_error());
    cr_assert_eq(lg_graph_add_output(g, y, "y", "any"), LG_OK);
    tensor want = ref_concat(8, ys, 1);
    check_all(g, &x, &want, "densenet");
    t_free(&want);
    for (int i = 1; i < 8; i++) t_free(&ws[i]), t_free(&ys[i]);
    t_free(&x);
    lg_graph_destroy(g);
}

Test(graph_concat, inception_concat_read_by_conv) {
    lg_rng r = {4};
    int64_t xd[2][4] = {{2, 10, 4, 4}, {1, 3, 6, 6}};
    for (int c = 0; c < 2; c++) {
        int64_t ic = xd[c][1];
        tensor x = t_rand(4, xd[c], &r, -1, 1), ws[5], ys[4];
        lg_graph *g;
        cr_assert_eq(lg_graph_create(&g), LG_OK);
        lg_md xm = md_tag(4, xd[c], "nchw");
        lg_value xv, br[4], cat, y;
        cr_assert_eq(lg_graph_add_input(g, "x", &xm, &xv), LG_OK);
        int64_t oc[4] = {16, 7, 9, 24}, tot = 0;
        for (int i = 0; i < 4; i++) {
            br[i] = add_conv1x1(g, xv, ic, oc[i], &r, &ws[i]);
            ys[i] = conv1x1(&x, &ws[i]);
            tot += oc[i];
        }
        cr_assert_eq(lg_graph_add_concat(g, 1, 4, br, &cat), LG_OK, "%s", lg_last_error());
        y = add_conv1x1(g, cat, tot, 8, &r, &ws[4]);
        cr_assert_eq(lg_graph_add_output(g, y, "y", "nchw"), LG_OK);
        tensor cref = ref_concat(4, ys, 1), want = conv1x1(&cref, &ws[4]);
        check_all(g, &x, &want, "inception");
        t_free(&cref), t_free(&want), t_free(&x);
        for (int i = 0; i < 4; i++) t_free(&ys[i]);
        for (int i = 0; i < 5; i++) t_free(&ws[i]);
        lg_graph_destroy(g);
    }
}

Test(graph_concat, bad_input) {
    lg_graph *g;
    cr_assert_eq(lg_graph_create(&g), LG_OK);
    int64_t a[4] = {1, 4, 3, 3}, b[4] = {1, 4, 3, 2}, c3[3] = {1, 4, 3};
    lg_md am = md_tag(4, a, "nchw"), bm = md_tag(4, b, "nchw"), cm = md_tag(3, c3, "abc");
    lg_value x, y, z, out, outs[3];
    lg_graph_add_input(g, "x", &am, &x);
    lg_graph_add_input(g, "y", &bm, &y);
    lg_graph_add_input(g, "z", &cm, &z);
    lg_value xy[2] = {x, y}, xz[2] = {x, z}, xx[2] = {x, 77};
    cr_assert_eq(lg_graph_add_concat(g, 1, 2, xy, &out), LG_INVALID_ARGUMENT);
    cr_assert(strstr(lg_last_error(), "srcs[1] dim 3"), "%s", lg_last_error());
    cr_assert_eq(lg_graph_add_concat(g, 1, 2, xz, &out), LG_INVALID_ARGUMENT);
    cr_assert(strstr(lg_last_error(), "srcs[1]"), "%s", lg_last_error());
    cr_assert_eq(lg_graph_add_concat(g, 1, 2, xx, &out), LG_INVALID_ARGUMENT);
    cr_assert(strstr(lg_last_error(), "srcs[1] value 77"), "%s", lg_last_error());
    cr_assert_eq(lg_graph_add_concat(g, 9, 2, xy, &out), LG_INVALID_ARGUMENT);
    cr_assert(strstr(lg_last_error(), "axis 9"), "%s", lg_last_error());
    cr_assert_eq(lg_graph_add_concat(g, 1, 0, xy, &out), LG_INVALID_ARGUMENT);
    cr_assert_eq(lg_graph_add_concat(g, 1, 2, NULL, &out), LG_INVALID_ARGUMENT);
    cr_assert(strstr(lg_last_error(), "lg_graph_add_concat"), "%s", lg_last_error());
    int64_t s1[2] = {2, 1}, s2[2] = {4, 0}, s3[3] = {1, 1, 1};
    cr_assert_eq(lg_graph_add_split(g, x, 1, 2, s1, outs), LG_INVALID_ARGUMENT);
    cr_assert(strstr(lg_last_error(), "sum of sizes"), "%s", lg_last_error());
    cr_assert_eq(lg_graph_add_split(g, x, 1, 2, s2, outs), LG_INVALID_ARGUMENT);
    cr_assert(strstr(lg_last_error(), "sizes[1]"), "%s", lg_last_error());
    cr_assert_eq(lg_graph_add_split(g, x, 5, 3, s3, outs), LG_INVALID_ARGUMENT);
    cr_assert(strstr(lg_last_error(), "axis 5"), "%s", lg_last_error());
    cr_assert_eq(lg_graph_add_slice(g, x, 1, 3, 2, &out), LG_INVALID_ARGUMENT);
    cr_assert(strstr(lg_last_error(), "range"), "%s", lg_last_error());
    lg_graph_destroy(g);
}
