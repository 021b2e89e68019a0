/* Pass concat_inplace: concat inputs written by their producers into the
 * concat's buffer, concats and slices as views. Every graph is compiled
 * under each strategy with the pass, without it, and with it but without
 * plan_memory; the outputs must be bit-identical and match the scalar
 * references of graph_ref.h; the plan's stats must say what was removed
 * (steps fewer by copy_steps_removed). Cases: a DenseNet block (each layer
 * concatenates every earlier feature map: the concats become prefixes of
 * the block's last one), concat inputs that are graph inputs, graph outputs,
 * read by other nodes (one of which could have run in place) or given
 * twice, nested concats, slices as views (of a node result and of a graph
 * input) read by in-place kinds, batch 2 in plain layouts (the convs'
 * strided-view dst would be the reference path: the pass leaves those
 * parts alone), and batches 1, 2, 16 in nChw8c, nChw16c and nhwc with
 * parts that become strided views (58 + 58 channels among them). */
#include "graph_ref.h"

static const lg_strategy strategies[] = {LG_STRATEGY_NONE, LG_STRATEGY_GREEDY, LG_STRATEGY_OPTIMAL};
#define ATOL  1e-4f
#define RTOL  1e-4f
#define MAXIO 4

typedef struct net {
    lg_graph *g;
    int nin, nout;
    const char *in[MAXIO], *out[MAXIO];
    tensor x[MAXIO], want[MAXIO];
} net;

static tensor ref_conv1x1(const tensor *x, const tensor *w) {
    lg_conv_params p = {.strides = {1, 1}, .groups = 1};
    return ref_conv2d(x, w, NULL, &p);
}

static lg_value cat(lg_graph *g, int n, const lg_value *v) {
    lg_value y;
    cr_assert_eq(lg_graph_add_concat(g, 1, n, v, &y), LG_OK, "%s", lg_last_error());
    return y;
}

static lg_value relu(lg_graph *g, lg_value x) {
    lg_value y;
    cr_assert_eq(lg_graph_add_eltwise(g, x, LG_ELTWISE_RELU, 0, 0, &y), LG_OK, "%s",
                 lg_last_error());
    return y;
}

static lg_value slice(lg_graph *g, lg_value x, int64_t start, int64_t len) {
    lg_value y;
    cr_assert_eq(lg_graph_add_slice(g, x, 1, start, len, &y), LG_OK, "%s", lg_last_error());
    return y;
}

static tensor ref_concat(int n, const tensor *const *xs) {
    int64_t dims[LG_MAX_NDIMS];
    memcpy(dims, xs[0]->dims, sizeof dims);
    dims[1] = 0;
    for (int i = 0; i < n; i++) dims[1] += xs[i]->dims[1];
    tensor y = t_new(xs[0]->nd, dims);
    int64_t idx[LG_MAX_NDIMS] = {0};
    for (int64_t i = 0; i < t_count(&y); i++) {
        t_index(&y, i, idx);
        int k = 0;
        while (idx[1] >= xs[k]->dims[1]) idx[1] -= xs[k++]->dims[1];
        int64_t j = 0;
        for (int d = 0; d < y.nd; d++) j = j * xs[k]->dims[d] + idx[d];
        y.d[i] = xs[k]->d[j];
    }
    return y;
}

static tensor ref_slice(const tensor *x, int64_t start, int64_t len) {
    int64_t dims[LG_MAX_NDIMS];
    memcpy(dims, x->dims, sizeof dims);
    dims[1] = len;
    tensor y = t_new(x->nd, dims);
    int64_t idx[LG_MAX_NDIMS] = {0};
    for (int64_t i = 0; i < t_count(&y); i++) {
        t_index(&y, i, idx);
        idx[1] += start;
        int64_t j = 0;
        for (int d = 0; d < x->nd; d++) j = j * x->dims[d] + idx[d];
        y.d[i] = x->d[j];
    }
    return y;
}

static void add_output(net *n, lg_value v, const char *name, const char *tag, tensor want) {
    cr_assert_eq(lg_graph_add_output(n->g, v, name, tag), LG_OK, "%s", lg_last_error());
    n->out[n->nout] = name;
    n->want[n->nout++] = want;
}

static void net_free(net *n) {
    for (int i = 0; i < n->nin; i++) t_free(&n->x[i]);
    for (int i = 0; i < n->nout; i++) t_free(&n->want[i]);
    lg_graph_destroy(n->g);
}

/* Compile and run n under every strategy with the pass on, off, and on
 * without plan_memory: outputs bit-identical and near the references.
 * views[s] gets strategy s's lg_plan_stats.views with the pass on. */
static void check(const net *n, const char *name, int *views) {
    static const char *const disables[] = {NULL, "concat_inplace", "plan_memory"};
    for (int s = 0; s < 3; s++) {
        tensor base[MAXIO];
        for (int d = 0; d < 3; d++) {
            lg_plan *p = compile_with(n->g, strategies[s], disables[d]);
            lg_plan_stats st, st_off;
            cr_assert_eq(lg_plan_stats_get(p, &st), LG_OK);
            char what[160];
            snprintf(what, sizeof what, "%s %s disabled %s", name, strategy_name(strategies[s]),
                     disables[d] ? disables[d] : "-");
            tensor got[MAXIO];
            run_plan(p, n->nin, n->in, n->x, n->nout, n->out, got);
            for (int o = 0; o < n->nout; o++) {
                t_expect_near(&got[o], &n->want[o], ATOL, RTOL, what);
                if (d == 0)
                    base[o] = got[o];
                else {
                    cr_assert(memcmp(got[o].d, base[o].d, (size_t)t_count(&got[o]) * 4) == 0,
                              "%s: output %s differs from the plan with every pass", what,
                              n->out[o]);
                    t_free(&got[o]);
                }
            }
            if (d == 1) {
                cr_expect_eq(st.views, 0, "%s", what);
                cr_expect_eq(st.copy_steps_removed, 0, "%s", what);
                cr_expect_eq(st.copy_bytes_removed, 0, "%s", what);
            }
            if (d == 0) {
                views[s] = st.views;
                lg_plan *q = compile_with(n->g, strategies[s], "concat_inplace");
                cr_assert_eq(lg_plan_stats_get(q, &st_off), LG_OK);
                cr_expect_eq(st.steps, st_off.steps - st.copy_steps_removed,
                             "%s: %d steps, %d without the pass, %d removed", what, st.steps,
                             st_off.steps, st.copy_steps_removed);
                cr_expect_geq(st.copy_bytes_removed, 0, "%s", what);
                cr_log_info("%s: views %d, steps %d -> %d, copy bytes removed %lld, arena %lld -> "
                            "%lld",
                            what, st.views, st_off.steps, st.steps,
                            (long long)st.copy_bytes_removed, (long long)st_off.arena_bytes,
                            (long long)st.arena_bytes);
                lg_plan_destroy(q);
            }
            lg_plan_destroy(p);
        }
        for (int o = 0; o < n->nout; o++) t_free(&base[o]);
    }
}

/* A DenseNet block: f0 = conv(x); layer k reads relu(concat(f0..fk-1)) and
 * adds fk (16 channels); the block's concat goes through a transition conv. */
static void dense_block(int64_t batch, int *views, int *removed) {
    lg_rng r = {121};
    net n = {0};
    cr_assert_eq(lg_graph_create(&n.g), LG_OK);
    int64_t xd[4] = {batch, 16, 5, 5};
    n.x[0] = t_rand(4, xd, &r, -1, 1);
    n.in[0] = "x";
    n.nin = 1;
    lg_md xm = md_tag(4, xd, "nchw");
    lg_value xv, f[8];
    tensor ft[8], w, *fp[8];
    cr_assert_eq(lg_graph_add_input(n.g, "x", &xm, &xv), LG_OK);
    f[0] = add_conv1x1(n.g, xv, 16, 16, &r, &w);
    ft[0] = ref_conv1x1(&n.x[0], &w);
    t_free(&w);
    const int layers = 6;
    for (int k = 1; k <= layers; k++) {
        for (int i = 0; i < k; i++) fp[i] = &ft[i];
        lg_value c = cat(n.g, k, f);
        tensor ct = ref_concat(k, (const tensor *const *)fp), ht = ref_relu(&ct, 0);
        f[k] = add_conv1x1(n.g, relu(n.g, c), 16 * k, 16, &r, &w);
        ft[k] = ref_conv1x1(&ht, &w);
        t_free(&w), t_free(&ct), t_free(&ht);
    }
    for (int i = 0; i <= layers; i++) fp[i] = &ft[i];
    lg_value all = cat(n.g, layers + 1, f);
    tensor at = ref_concat(layers + 1, (const tensor *const *)fp);
    lg_value y = add_conv1x1(n.g, all, 16 * (layers + 1), 16, &r, &w);
    add_output(&n, y, "y", "nchw", ref_conv1x1(&at, &w));
    t_free(&w), t_free(&at);
    for (int i = 0; i <= layers; i++) t_free(&ft[i]);
    check(&n, batch == 1 ? "dense block N=1" : "dense block N=2", views);
    lg_plan *p = compile_with(n.g, LG_STRATEGY_NONE, NULL);
    lg_plan_stats st;
    lg_plan_stats_get(p, &st);
    *removed = st.copy_steps_removed;
    lg_plan_destroy(p);
    net_free(&n);
}

Test(concat_inplace, dense_block) {
    int views[3], removed;
    dense_block(1, views, &removed);
    /* Every concat goes at batch 1: plain (NONE) and blocked layouts alike. */
    for (int s = 0; s < 3; s++) cr_expect_gt(views[s], 0, "%s", strategy_name(strategies[s]));
    /* 7 concats of 1..7 sources (the 6-source one a tree of 2 nodes, the
     * 7-source one of 3) and no copies left. */
    cr_expect_eq(removed, 10, "NONE removed %d concat steps", removed);
    /* Batch 2, plain nchw: a channel range is no dense view of the batch,
     * and a conv writing a strided plain view runs the reference, which the
     * pass refuses; only the one-source concat (a copy of f0) becomes f0
     * itself. */
    dense_block(2, views, &removed);
    cr_expect_eq(views[0], 1);
    cr_expect_eq(removed, 1);
}

/* Concat inputs of every kind: a graph input, a value given twice, a value
 * also read by a relu that could otherwise run in place after the concat,
 * a value that is also a graph output. */
Test(concat_inplace, special_inputs) {
    lg_rng r = {7};
    net n = {0};
    cr_assert_eq(lg_graph_create(&n.g), LG_OK);
    int64_t xd[4] = {1, 16, 4, 4};
    n.x[0] = t_rand(4, xd, &r, -1, 1);
    n.in[0] = "x";
    n.nin = 1;
    lg_md xm = md_tag(4, xd, "nchw");
    lg_value xv;
    tensor wa, wb, wy;
    cr_assert_eq(lg_graph_add_input(n.g, "x", &xm, &xv), LG_OK);
    lg_value a = add_conv1x1(n.g, xv, 16, 16, &r, &wa), b = add_conv1x1(n.g, xv, 16, 32, &r, &wb);
    tensor at = ref_conv1x1(&n.x[0], &wa), bt = ref_conv1x1(&n.x[0], &wb);
    lg_value srcs[4] = {xv, a, a, b};
    lg_value c = cat(n.g, 4, srcs);
    lg_value ra = relu(n.g, a); /* a's last reader: in place unless a is shared */
    lg_value y = add_conv1x1(n.g, c, 80, 16, &r, &wy);
    const tensor *ts[4] = {&n.x[0], &at, &at, &bt};
    tensor ct = ref_concat(4, ts);
    add_output(&n, y, "y", "nchw", ref_conv1x1(&ct, &wy));
    add_output(&n, ra, "ra", "any", ref_relu(&at, 0));
    add_output(&n, b, "b", "nchw", bt);
    int views[3];
    check(&n, "special inputs", views);
    for (int s = 0; s < 3; s++) cr_expect_gt(views[s], 0, "%s", strategy_name(strategies[s]));
    t_free(&wa), t_free(&wb), t_free(&wy), t_free(&at), t_free(&ct);
    net_free(&n);
}

/* Nested: inner = concat(a, b) is read by a conv and by the outer concat;
 * the outer one by a relu (in place candidate) and a conv; a concat that is
 * a graph output. */
Test(concat_inplace, nested_and_output) {
    lg_rng r = {11};
    net n = {0};
    cr_assert_eq(lg_graph_create(&n.g), LG_OK);
    int64_t xd[4] = {1, 16, 3, 5};
    n.x[0] = t_rand(4, xd, &r, -1, 1);
    n.in[0] = "x";
    n.nin = 1;
    lg_md xm = md_tag(4, xd, "nchw");
    lg_value xv;
    tensor wa, wb, wc, wi, wo;
    cr_assert_eq(lg_graph_add_input(n.g, "x", &xm, &xv), LG_OK);
    lg_value a = add_conv1x1(n.g, xv, 16, 16, &r, &wa), b = add_conv1x1(n.g, xv, 16, 16, &r, &wb),
             c = add_conv1x1(n.g, xv, 16, 32, &r, &wc);
    tensor at = ref_conv1x1(&n.x[0], &wa), bt = ref_conv1x1(&n.x[0], &wb),
           ctt = ref_conv1x1(&n.x[0], &wc);
    lg_value ab[2] = {a, b};
    lg_value inner = cat(n.g, 2, ab);
    lg_value ic = add_conv1x1(n.g, inner, 32, 16, &r, &wi);
    lg_value oc[2] = {inner, c};
    lg_value outer = cat(n.g, 2, oc);
    lg_value ro = relu(n.g, outer);
    lg_value y = add_conv1x1(n.g, ro, 64, 16, &r, &wo);
    lg_value bc[2] = {b, c};
    lg_value out_cat = cat(n.g, 2, bc);
    const tensor *abt[2] = {&at, &bt}, *bct[2] = {&bt, &ctt};
    tensor it = ref_concat(2, abt);
    const tensor *oct[2] = {&it, &ctt};
    tensor ot = ref_concat(2, oct), rt = ref_relu(&ot, 0);
    add_output(&n, y, "y", "nchw", ref_conv1x1(&rt, &wo));
    add_output(&n, ic, "ic", "nchw", ref_conv1x1(&it, &wi));
    add_output(&n, out_cat, "bc", "any", ref_concat(2, bct));
    int views[3];
    check(&n, "nested", views);
    for (int s = 0; s < 3; s++) cr_expect_gt(views[s], 0, "%s", strategy_name(strategies[s]));
    t_free(&wa), t_free(&wb), t_free(&wc), t_free(&wi), t_free(&wo);
    t_free(&at), t_free(&bt), t_free(&ctt), t_free(&it), t_free(&ot), t_free(&rt);
    net_free(&n);
}

/* Slices as views: three slices of a conv result (one read by a relu that
 * could run in place, one by a conv, one by an add), a slice of a graph
 * input, and a slice off the block boundary (a copy under blocked
 * layouts). */
Test(concat_inplace, slice_views) {
    lg_rng r = {3};
    net n = {0};
    cr_assert_eq(lg_graph_create(&n.g), LG_OK);
    int64_t xd[4] = {1, 32, 4, 3};
    n.x[0] = t_rand(4, xd, &r, -1, 1);
    n.in[0] = "x";
    n.nin = 1;
    lg_md xm = md_tag(4, xd, "nchw");
    lg_value xv;
    tensor wt, wv, wz, wq;
    cr_assert_eq(lg_graph_add_input(n.g, "x", &xm, &xv), LG_OK);
    lg_value t = add_conv1x1(n.g, xv, 32, 48, &r, &wt);
    tensor tt = ref_conv1x1(&n.x[0], &wt);
    lg_value s0 = slice(n.g, t, 0, 16), s1 = slice(n.g, t, 16, 16), s2 = slice(n.g, t, 32, 16);
    lg_value u = relu(n.g, s0), v = add_conv1x1(n.g, s1, 16, 16, &r, &wv), w;
    cr_assert_eq(lg_graph_add_binary(n.g, LG_BINARY_ADD, u, s2, &w), LG_OK, "%s", lg_last_error());
    lg_value s3 = slice(n.g, xv, 16, 16), z = add_conv1x1(n.g, s3, 16, 16, &r, &wz);
    lg_value s4 = slice(n.g, t, 4, 20), q = add_conv1x1(n.g, s4, 20, 16, &r, &wq);
    tensor s0t = ref_slice(&tt, 0, 16), s1t = ref_slice(&tt, 16, 16), s2t = ref_slice(&tt, 32, 16);
    tensor s3t = ref_slice(&n.x[0], 16, 16), s4t = ref_slice(&tt, 4, 20);
    tensor ut = ref_relu(&s0t, 0);
    add_output(&n, w, "w", "nchw", ref_binary(LG_BINARY_ADD, &ut, &s2t));
    add_output(&n, v, "v", "any", ref_conv1x1(&s1t, &wv));
    add_output(&n, z, "z", "nchw", ref_conv1x1(&s3t, &wz));
    add_output(&n, q, "q", "nchw", ref_conv1x1(&s4t, &wq));
    int views[3];
    check(&n, "slices", views);
    for (int s = 0; s < 3; s++) cr_expect_geq(views[s], 3, "%s", strategy_name(strategies[s]));
    t_free(&wt), t_free(&wv), t_free(&wz), t_free(&wq), t_free(&tt);
    t_free(&s0t), t_free(&s1t), t_free(&s2t), t_free(&s3t), t_free(&s4t), t_free(&ut);
    net_free(&n);
}

/* ShuffleNetV2's 58 + 58: no part starts on an 8- or 16-channel block in a
 * blocked layout; under NONE (nchw, batch 1) both parts are views. */
Test(concat_inplace, unaligned_falls_back) {
    lg_rng r = {58};
    net n = {0};
    cr_assert_eq(lg_graph_create(&n.g), LG_OK);
    int64_t xd[4] = {1, 58, 4, 4};
    n.x[0] = t_rand(4, xd, &r, -1, 1);
    n.in[0] = "x";
    n.nin = 1;
    lg_md xm = md_tag(4, xd, "nChw8c");
    lg_value xv;
    tensor wa, wb;
    cr_assert_eq(lg_graph_add_input(n.g, "x", &xm, &xv), LG_OK);
    lg_value a = add_conv1x1(n.g, xv, 58, 58, &r, &wa), b = add_conv1x1(n.g, xv, 58, 58, &r, &wb);
    tensor at = ref_conv1x1(&n.x[0], &wa), bt = ref_conv1x1(&n.x[0], &wb);
    lg_value ab[2] = {a, b};
    lg_value c = cat(n.g, 2, ab), y;
    cr_assert_eq(lg_graph_add_shuffle(n.g, c, 1, 2, &y), LG_OK, "%s", lg_last_error());
    const tensor *abt[2] = {&at, &bt};
    tensor ct = ref_concat(2, abt);
    add_output(&n, y, "y", "nchw", ref_shuffle(&ct, 1, 2));
    int views[3];
    check(&n, "58+58", views);
    cr_expect_eq(views[0], 2, "NONE: both parts in place");
    t_free(&wa), t_free(&wb), t_free(&at), t_free(&bt), t_free(&ct);
    net_free(&n);
}

/* Max pooling 3x3, stride 1, padding 1 (the reference of the pool leaf). */
static tensor ref_maxpool3(const tensor *x) {
    tensor y = t_new(x->nd, x->dims);
    const int64_t H = x->dims[2], W = x->dims[3];
    for (int64_t nc = 0; nc < x->dims[0] * x->dims[1]; nc++)
        for (int64_t h = 0; h < H; h++)
            for (int64_t w = 0; w < W; w++) {
                float m = -INFINITY;
                for (int64_t i = h - 1; i <= h + 1; i++)
                    for (int64_t j = w - 1; j <= w + 1; j++)
                        if (i >= 0 && i < H && j >= 0 && j < W) {
                            float v = x->d[(nc * H + i) * W + j];
                            m = v > m ? v : m;
                        }
                y.d[(nc * H + h) * W + w] = m;
            }
    return y;
}

/* Batch normalization with relu, the kernel's order (bnorm.h). */
static tensor ref_bn_relu(const tensor *x, const float *st) {
    const int64_t C = x->dims[1], S = x->dims[2] * x->dims[3];
    tensor y = t_new(x->nd, x->dims);
    for (int64_t i = 0; i < t_count(x); i++) {
        const int64_t c = i / S % C;
        float a = st[2 * C + c] / sqrtf(st[C + c] + 1e-5f);
        float v = (x->d[i] - st[c]) * a;
        v = v + st[3 * C + c];
        y.d[i] = v < 0.0f ? 0.0f : v;
    }
    return y;
}

static lg_value add_bn_relu(net *n, lg_value x, int64_t C, lg_rng *r, float *st) {
    for (int64_t c = 0; c < C; c++) {
        st[c] = lg_rng_float(r, -1, 1);
        st[C + c] = lg_rng_float(r, 0.1f, 2);
        st[2 * C + c] = lg_rng_float(r, -2, 2);
        st[3 * C + c] = lg_rng_float(r, -1, 1);
    }
    int64_t cd[1] = {C};
    lg_md cm = md_tag(1, cd, "a");
    lg_value s[4], y;
    static int count;
    for (int k = 0; k < 4; k++) {
        char name[32];
        snprintf(name, sizeof name, "bn%d_%d", count, k);
        cr_assert_eq(lg_graph_add_constant(n->g, name, &cm, st + k * C, &s[k]), LG_OK, "%s",
                     lg_last_error());
    }
    count++;
    cr_assert_eq(lg_graph_add_batchnorm(n->g, x, s[0], s[1], s[2], s[3], 1e-5f, true, &y), LG_OK,
                 "%s", lg_last_error());
    return y;
}

/* Concats at batch 1, 2 and 16 in channel-blocked (8, 16) and channels-last
 * layouts: x -> maxpool p (16 channels), convs a and b; c = concat(p, a, b)
 * and its prefix concat(p, a) (DenseNet), each read by a batch
 * normalization with relu and a conv. At batch > 1 (and in nhwc at any
 * batch) a part's place is a strided view (a channel range of each image,
 * the concat's batch stride); 58 + 58 channels (ShuffleNetV2) start off
 * the block in blocked layouts (copies) but not in nhwc. Outputs
 * bit-identical with and without the pass and near the references. */
static void strided_case(int64_t batch, const char *tag, int64_t ca, int64_t cb, int *views) {
    lg_rng r = {(uint64_t)(batch * 1000 + ca + cb)};
    net n = {0};
    cr_assert_eq(lg_graph_create(&n.g), LG_OK);
    int64_t xd[4] = {batch, 16, 4, 5};
    n.x[0] = t_rand(4, xd, &r, -1, 1);
    n.in[0] = "x";
    n.nin = 1;
    lg_md xm = md_tag(4, xd, tag);
    lg_value xv, p;
    tensor wa, wb, wy, wz;
    cr_assert_eq(lg_graph_add_input(n.g, "x", &xm, &xv), LG_OK);
    lg_pool_params pp = {LG_POOL_MAX, {3, 3}, {1, 1}, {0, 0}, {1, 1}, {1, 1}, {0, 0}};
    cr_assert_eq(lg_graph_add_pool(n.g, xv, &pp, &p), LG_OK, "%s", lg_last_error());
    lg_value a = add_conv1x1(n.g, xv, 16, ca, &r, &wa), b = add_conv1x1(n.g, xv, 16, cb, &r, &wb);
    tensor pt = ref_maxpool3(&n.x[0]), at = ref_conv1x1(&n.x[0], &wa),
           bt = ref_conv1x1(&n.x[0], &wb);
    lg_value all[3] = {p, a, b};
    lg_value c = cat(n.g, 3, all), c2 = cat(n.g, 2, all);
    const int64_t C = 16 + ca + cb, C2 = 16 + ca;
    float *st = malloc((size_t)C * 16), *st2 = malloc((size_t)C2 * 16);
    lg_value y = add_conv1x1(n.g, add_bn_relu(&n, c, C, &r, st), C, 16, &r, &wy);
    lg_value z = add_conv1x1(n.g, add_bn_relu(&n, c2, C2, &r, st2), C2, 8, &r, &wz);
    const tensor *ts[3] = {&pt, &at, &bt};
    tensor ct = ref_concat(3, ts), c2t = ref_concat(2, ts);
    tensor h = ref_bn_relu(&ct, st), h2 = ref_bn_relu(&c2t, st2);
    add_output(&n, y, "y", "nchw", ref_conv1x1(&h, &wy));
    add_output(&n, z, "z", "nchw", ref_conv1x1(&h2, &wz));
    char what[64];
    snprintf(what, sizeof what, "N=%lld %s %lld+%lld", (long long)batch, tag, (long long)ca,
             (long long)cb);
    check(&n, what, views);
    t_free(&wa), t_free(&wb), t_free(&wy), t_free(&wz), t_free(&pt), t_free(&at), t_free(&bt);
    t_free(&ct), t_free(&c2t), t_free(&h), t_free(&h2);
    free(st), free(st2);
    net_free(&n);
}

Test(concat_inplace, strided_views_batches_layouts) {
    static const char *const tags[] = {"nChw8c", "nChw16c", "nhwc"};
    static const int64_t batches[] = {1, 2, 16};
    for (int t = 0; t < 3; t++)
        for (int b = 0; b < 3; b++) {
            int views[3];
            /* 16 + 64 + 32: every part starts on a block. */
            strided_case(batches[b], tags[t], 64, 32, views);
            /* In place under at least one strategy at every batch. */
            cr_expect_gt(views[0] + views[1] + views[2], 0, "%s N=%lld: no view", tags[t],
                         (long long)batches[b]);
            strided_case(batches[b], tags[t], 58, 58, views);
        }
}
