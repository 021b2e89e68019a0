/* The three workloads of WORKLOADS.md as test graphs (constant weights and
 * biases, x in the given layout, y wanted in nchw) and their scalar
 * reference chain; shared by tests/graph/test_graph_workloads.c (which
 * describes them) and tests/passes/test_user_strategy.c. */
#ifndef LG_TESTS_GRAPH_WORKLOADS_H
#define LG_TESTS_GRAPH_WORKLOADS_H

#include "graph/graph_ref.h"

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

static inline lg_value conv(lg_graph *g, lg_value src, int64_t ic, int64_t oc, int64_t k,
                            int64_t groups, int64_t stride, int64_t pad, lg_rng *r, conv_w *c,
                            const char *name) {
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

static inline lg_value relu(lg_graph *g, lg_value v) {
    lg_value y;
    cr_assert_eq(lg_graph_add_eltwise(g, v, LG_ELTWISE_RELU, 0, 0, &y), LG_OK);
    return y;
}

/* Build workload `which` (1..3) for x[n, C, s, s]; in_tag for x ("nchw" or
 * "any"), add_swap puts x first in the residual add. */
static inline workload build(int which, int64_t n, int64_t s, const char *in_tag, bool add_swap,
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

static inline void free_workload(workload *w) {
    for (int i = 0; i < 3; i++) {
        t_free(&w->c[i].w);
        t_free(&w->c[i].b);
    }
    lg_graph_destroy(w->g);
}

/* The reference chain, by independent scalar loops. */
static inline tensor reference(const workload *w, const tensor *x) {
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

#endif /* LG_TESTS_GRAPH_WORKLOADS_H */
