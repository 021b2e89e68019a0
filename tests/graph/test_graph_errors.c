/* Every bad input to the graph builder, the compiler and the executor
 * returns a status and a message naming what and where (lg_last_error is
 * checked), and leaks nothing (run under ASan); allocation failures at every
 * point of building, compiling and executing are reported, not crashed on. */
#include "graph_ref.h"

#include <stdlib.h>

/* Test hook of the allocator (src/common/alloc.c). */
int64_t lg__alloc_fail_after(int64_t n);

#define EXPECT_ERR(call, status, fragment)                                                         \
    do {                                                                                           \
        lg_status s_ = (call);                                                                     \
        cr_expect_eq(s_, (status), "%s: got %s (%s)", #call, lg_status_str(s_), lg_last_error());  \
        cr_expect(strstr(lg_last_error(), (fragment)) != NULL, "%s: message '%s' lacks '%s'",      \
                  #call, lg_last_error(), (fragment));                                             \
    } while (0)

static const int64_t dims[4] = {2, 24, 5, 7};

static lg_graph *graph_with_x(lg_value *x) {
    lg_graph *g;
    cr_assert_eq(lg_graph_create(&g), LG_OK);
    lg_md md = md_tag(4, dims, "nchw");
    cr_assert_eq(lg_graph_add_input(g, "x", &md, x), LG_OK);
    return g;
}

Test(graph_errors, builder_nulls_names_and_mds) {
    lg_value x, v;
    EXPECT_ERR(lg_graph_create(NULL), LG_INVALID_ARGUMENT, "graph pointer is NULL");
    lg_graph *g = graph_with_x(&x);
    lg_md md = md_tag(4, dims, "nchw"), zero, any;
    memset(&zero, 0, sizeof zero);
    cr_assert_eq(lg_md_init_tag(&any, 4, dims, LG_F32, "any"), LG_OK);
    float data[2 * 24 * 5 * 7] = {0};
    EXPECT_ERR(lg_graph_add_input(NULL, "y", &md, &v), LG_INVALID_ARGUMENT, "graph is NULL");
    EXPECT_ERR(lg_graph_add_input(g, NULL, &md, &v), LG_INVALID_ARGUMENT, "name is NULL");
    EXPECT_ERR(lg_graph_add_input(g, "", &md, &v), LG_INVALID_ARGUMENT, "name is empty");
    EXPECT_ERR(lg_graph_add_input(g, "y", NULL, &v), LG_INVALID_ARGUMENT, "md is NULL");
    EXPECT_ERR(lg_graph_add_input(g, "y", &md, NULL), LG_INVALID_ARGUMENT, "out is NULL");
    EXPECT_ERR(lg_graph_add_input(g, "y", &zero, &v), LG_INVALID_ARGUMENT, "not initialised");
    EXPECT_ERR(lg_graph_add_input(g, "x", &md, &v), LG_INVALID_ARGUMENT, "name 'x' is already");
    EXPECT_ERR(lg_graph_add_constant(g, "x", &md, data, &v), LG_INVALID_ARGUMENT,
               "name 'x' is already");
    EXPECT_ERR(lg_graph_add_constant(g, "c", &any, data, &v), LG_INVALID_ARGUMENT, "'any'");
    EXPECT_ERR(lg_graph_add_constant(g, "c", &md, NULL, &v), LG_INVALID_ARGUMENT, "data is NULL");
    EXPECT_ERR(lg_graph_add_constant(g, "c", &zero, data, &v), LG_INVALID_ARGUMENT,
               "not initialised");
    EXPECT_ERR(lg_graph_add_constant(NULL, "c", &md, data, &v), LG_INVALID_ARGUMENT, "NULL");
    cr_assert_eq(lg_graph_add_output(g, x, "out", "nchw"), LG_OK);
    EXPECT_ERR(lg_graph_add_input(g, "out", &md, &v), LG_INVALID_ARGUMENT, "output 0");
    EXPECT_ERR(lg_graph_add_output(g, x, "out", "nchw"), LG_INVALID_ARGUMENT, "name 'out'");
    EXPECT_ERR(lg_graph_add_output(g, x, "x", "nchw"), LG_INVALID_ARGUMENT, "name 'x'");
    EXPECT_ERR(lg_graph_add_output(g, x, NULL, "nchw"), LG_INVALID_ARGUMENT, "name is NULL");
    EXPECT_ERR(lg_graph_add_output(g, x, "o2", NULL), LG_INVALID_ARGUMENT, "tag is NULL");
    EXPECT_ERR(lg_graph_add_output(g, x, "o2", "nChw16q"), LG_INVALID_ARGUMENT, "bad tag");
    EXPECT_ERR(lg_graph_add_output(g, x, "o2", "ncdhw"), LG_INVALID_ARGUMENT, "bad tag");
    EXPECT_ERR(lg_graph_add_output(g, 77, "o2", "nchw"), LG_INVALID_ARGUMENT,
               "value 77 does not exist");
    EXPECT_ERR(lg_graph_add_output(g, LG_NO_VALUE, "o2", "nchw"), LG_INVALID_ARGUMENT,
               "does not exist");
    EXPECT_ERR(lg_graph_add_output(NULL, x, "o2", "nchw"), LG_INVALID_ARGUMENT, "graph is NULL");
    lg_graph_destroy(g);
    lg_graph_destroy(NULL);
}

Test(graph_errors, builder_nodes) {
    lg_value x, v;
    lg_graph *g = graph_with_x(&x);
    int64_t d3[4] = {2, 3, 5, 7}, d1[1] = {24}, d5[5] = {1, 2, 3, 4, 5};
    lg_md m3 = md_tag(4, d3, "nchw"), m1 = md_tag(1, d1, "a"), m5 = md_tag(5, d5, "ncdhw");
    lg_md s8;
    cr_assert_eq(lg_md_init_tag(&s8, 4, dims, LG_S8, "nchw"), LG_OK);
    lg_value y3, y1, y5, ys8;
    cr_assert_eq(lg_graph_add_input(g, "y3", &m3, &y3), LG_OK);
    cr_assert_eq(lg_graph_add_input(g, "y1", &m1, &y1), LG_OK);
    cr_assert_eq(lg_graph_add_input(g, "y5", &m5, &y5), LG_OK);
    cr_assert_eq(lg_graph_add_input(g, "ys8", &s8, &ys8), LG_OK);
    /* eltwise */
    EXPECT_ERR(lg_graph_add_eltwise(g, 99, LG_ELTWISE_RELU, 0, 0, &v), LG_INVALID_ARGUMENT,
               "node 0 (eltwise): src value 99 does not exist");
    EXPECT_ERR(lg_graph_add_eltwise(g, x, (lg_eltwise_alg)99, 0, 0, &v), LG_INVALID_ARGUMENT,
               "alg 99");
    EXPECT_ERR(lg_graph_add_eltwise(g, ys8, LG_ELTWISE_TANH, 0, 0, &v), LG_UNIMPLEMENTED,
               "integer types");
    EXPECT_ERR(lg_graph_add_eltwise(NULL, x, LG_ELTWISE_RELU, 0, 0, &v), LG_INVALID_ARGUMENT,
               "graph is NULL");
    EXPECT_ERR(lg_graph_add_eltwise(g, x, LG_ELTWISE_RELU, 0, 0, NULL), LG_INVALID_ARGUMENT,
               "out is NULL");
    /* binary */
    EXPECT_ERR(lg_graph_add_binary(g, LG_BINARY_ADD, x, y3, &v), LG_INVALID_GRAPH,
               "not broadcastable");
    EXPECT_ERR(lg_graph_add_binary(g, LG_BINARY_ADD, x, y1, &v), LG_INVALID_GRAPH,
               "src0 has 4 dims, src1 1");
    EXPECT_ERR(lg_graph_add_binary(g, LG_BINARY_ADD, x, 1234, &v), LG_INVALID_ARGUMENT,
               "src1 value 1234");
    EXPECT_ERR(lg_graph_add_binary(g, (lg_binary_alg)17, x, x, &v), LG_INVALID_ARGUMENT, "alg 17");
    EXPECT_ERR(lg_graph_add_binary(g, LG_BINARY_ADD, ys8, x, &v), LG_UNIMPLEMENTED, "src0 is s8");
    /* shuffle */
    EXPECT_ERR(lg_graph_add_shuffle(g, x, 4, 2, &v), LG_INVALID_ARGUMENT, "axis 4");
    EXPECT_ERR(lg_graph_add_shuffle(g, x, -1, 2, &v), LG_INVALID_ARGUMENT, "axis -1");
    EXPECT_ERR(lg_graph_add_shuffle(g, x, 1, 0, &v), LG_INVALID_ARGUMENT, "not positive");
    EXPECT_ERR(lg_graph_add_shuffle(g, x, 1, 5, &v), LG_INVALID_GRAPH, "does not divide");
    EXPECT_ERR(lg_graph_add_shuffle(g, LG_NO_VALUE, 1, 2, &v), LG_INVALID_ARGUMENT,
               "does not exist");
    /* reorder */
    lg_md any, zero, nhwc = md_tag(4, dims, "nhwc");
    cr_assert_eq(lg_md_init_tag(&any, 4, dims, LG_F32, "any"), LG_OK);
    memset(&zero, 0, sizeof zero);
    EXPECT_ERR(lg_graph_add_reorder(g, x, NULL, NULL, &v), LG_INVALID_ARGUMENT, "dst md is NULL");
    EXPECT_ERR(lg_graph_add_reorder(g, x, &any, NULL, &v), LG_INVALID_ARGUMENT, "'any'");
    EXPECT_ERR(lg_graph_add_reorder(g, x, &zero, NULL, &v), LG_INVALID_ARGUMENT, "not initialised");
    EXPECT_ERR(lg_graph_add_reorder(g, x, &m3, NULL, &v), LG_INVALID_GRAPH, "dims[1] differ");
    EXPECT_ERR(lg_graph_add_reorder(g, x, &m5, NULL, &v), LG_INVALID_GRAPH, "src has 4 dims");
    lg_attr *attr;
    cr_assert_eq(lg_attr_create(&attr), LG_OK);
    cr_assert_eq(lg_attr_set_scales(attr, LG_ARG_SRC, 0), LG_OK);
    /* Scales need their values: lg_graph_add_reorder_attr takes them. */
    EXPECT_ERR(lg_graph_add_reorder(g, x, &nhwc, attr, &v), LG_INVALID_ARGUMENT,
               "operands->src_scales is LG_NO_VALUE");
    lg_attr_destroy(attr);
    /* A failed add leaves the graph as it was: it still compiles. */
    lg_value ok;
    cr_assert_eq(lg_graph_add_eltwise(g, x, LG_ELTWISE_RELU, 0, 0, &ok), LG_OK);
    cr_expect_eq(ok, 5, "values 0-4 exist, the relu's result is 5");
    lg_graph_destroy(g);
}

Test(graph_errors, builder_conv) {
    lg_value x, v;
    lg_graph *g = graph_with_x(&x); /* x: 2x24x5x7 */
    int64_t wd[4] = {16, 24, 3, 3}, wg[5] = {3, 4, 8, 3, 3}, wbad[4] = {16, 12, 3, 3};
    int64_t bd[1] = {16}, bbad[1] = {15}, big[4] = {16, 24, 9, 9};
    static float data[16 * 24 * 9 * 9];
    lg_md mw = md_tag(4, wd, "oihw"), mg = md_tag(5, wg, "goihw"), mb = md_tag(4, wbad, "oihw");
    lg_md bias = md_tag(1, bd, "a"), biasbad = md_tag(1, bbad, "a"), mbig = md_tag(4, big, "oihw");
    lg_value w, wgv, wb, b, bb, wbig;
    cr_assert_eq(lg_graph_add_constant(g, "w", &mw, data, &w), LG_OK);
    cr_assert_eq(lg_graph_add_constant(g, "wg", &mg, data, &wgv), LG_OK);
    cr_assert_eq(lg_graph_add_constant(g, "wb", &mb, data, &wb), LG_OK);
    cr_assert_eq(lg_graph_add_constant(g, "b", &bias, data, &b), LG_OK);
    cr_assert_eq(lg_graph_add_constant(g, "bb", &biasbad, data, &bb), LG_OK);
    cr_assert_eq(lg_graph_add_constant(g, "wbig", &mbig, data, &wbig), LG_OK);
    lg_conv_params p = {.strides = {1, 1, 1}, .pad_l = {1, 1}, .pad_r = {1, 1}, .groups = 1};
    EXPECT_ERR(lg_graph_add_conv(g, x, wb, LG_NO_VALUE, &p, &v), LG_INVALID_GRAPH,
               "node 0 (conv): weights take 12 input channels");
    EXPECT_ERR(lg_graph_add_conv(g, x, w, bb, &p, &v), LG_INVALID_GRAPH, "bias must be 1D");
    EXPECT_ERR(lg_graph_add_conv(g, x, w, 99, &p, &v), LG_INVALID_ARGUMENT,
               "bias value 99 does not exist");
    EXPECT_ERR(lg_graph_add_conv(g, x, 98, b, &p, &v), LG_INVALID_ARGUMENT, "weights value 98");
    EXPECT_ERR(lg_graph_add_conv(g, x, w, b, NULL, &v), LG_INVALID_ARGUMENT, "params is NULL");
    EXPECT_ERR(lg_graph_add_conv(g, x, wbig, LG_NO_VALUE, &p, &v), LG_INVALID_GRAPH,
               "does not fit");
    lg_conv_params q = p;
    q.strides[1] = 0;
    EXPECT_ERR(lg_graph_add_conv(g, x, w, b, &q, &v), LG_INVALID_ARGUMENT, "stride 0");
    q = p;
    q.pad_l[0] = -1;
    EXPECT_ERR(lg_graph_add_conv(g, x, w, b, &q, &v), LG_INVALID_ARGUMENT, "padding -1");
    q = p;
    q.groups = 4;
    EXPECT_ERR(lg_graph_add_conv(g, x, wgv, LG_NO_VALUE, &q, &v), LG_INVALID_GRAPH,
               "weights' group dim is 3, groups is 4");
    q.groups = 0;
    EXPECT_ERR(lg_graph_add_conv(g, x, w, b, &q, &v), LG_INVALID_ARGUMENT, "groups 0");
    q.groups = 3;
    EXPECT_ERR(lg_graph_add_conv(g, x, w, b, &q, &v), LG_INVALID_GRAPH, "weights have 4 dims");
    /* groups not dividing the channels: 24 channels, 5 groups */
    int64_t w5[5] = {5, 2, 4, 3, 3};
    lg_md m5 = md_tag(5, w5, "goihw");
    lg_value wv5;
    cr_assert_eq(lg_graph_add_constant(g, "w5", &m5, data, &wv5), LG_OK);
    q.groups = 5;
    EXPECT_ERR(lg_graph_add_conv(g, x, wv5, LG_NO_VALUE, &q, &v), LG_INVALID_GRAPH,
               "groups 5 do not divide the 24 src channels");
    /* src with 2 dims; bias as src */
    EXPECT_ERR(lg_graph_add_conv(g, b, w, LG_NO_VALUE, &p, &v), LG_INVALID_GRAPH, "src has 1 dims");
    lg_graph_destroy(g);
}

Test(graph_errors, compile) {
    lg_value x, r, v;
    lg_graph *g = graph_with_x(&x);
    lg_plan *p = NULL;
    EXPECT_ERR(lg_graph_compile(g, NULL, &p), LG_INVALID_GRAPH, "no outputs");
    cr_assert_eq(lg_graph_add_eltwise(g, x, LG_ELTWISE_RELU, 0, 0, &r), LG_OK);
    cr_assert_eq(lg_graph_add_eltwise(g, r, LG_ELTWISE_ABS, 0, 0, &v), LG_OK);
    cr_assert_eq(lg_graph_add_output(g, r, "r", "any"), LG_OK);
    EXPECT_ERR(lg_graph_compile(g, NULL, &p), LG_INVALID_GRAPH,
               "value 2 (the result of node 1, eltwise) reaches no output");
    cr_assert_eq(lg_graph_add_output(g, v, "v", "any"), LG_OK);
    lg_md md = md_tag(4, dims, "nchw");
    lg_value z;
    cr_assert_eq(lg_graph_add_input(g, "z", &md, &z), LG_OK);
    EXPECT_ERR(lg_graph_compile(g, NULL, &p), LG_INVALID_GRAPH, "input 'z' (value 3) reaches");
    cr_assert_eq(lg_graph_add_output(g, z, "zo", "nhwc"), LG_OK);
    float data[2 * 24 * 5 * 7] = {0};
    cr_assert_eq(lg_graph_add_constant(g, "k", &md, data, &z), LG_OK);
    EXPECT_ERR(lg_graph_compile(g, NULL, &p), LG_INVALID_GRAPH, "constant 'k' (value 4)");
    cr_assert_eq(lg_graph_add_output(g, z, "ko", "any"), LG_OK);
    cr_expect(p == NULL);
    EXPECT_ERR(lg_graph_compile(NULL, NULL, &p), LG_INVALID_ARGUMENT, "graph is NULL");
    EXPECT_ERR(lg_graph_compile(g, NULL, NULL), LG_INVALID_ARGUMENT, "plan is NULL");
    lg_compile_options o;
    lg_compile_options_init(&o);
    o.strategy = (lg_strategy)7;
    EXPECT_ERR(lg_graph_compile(g, &o, &p), LG_INVALID_ARGUMENT, "strategy 7");
    lg_compile_options_init(&o);
    o.num_threads = -2;
    EXPECT_ERR(lg_graph_compile(g, &o, &p), LG_INVALID_ARGUMENT, "num_threads -2");
    lg_compile_options_init(&o);
    o.disable_passes = "fuse,bogus";
    EXPECT_ERR(lg_graph_compile(g, &o, &p), LG_INVALID_ARGUMENT, "unknown pass 'bogus'");
    o.disable_passes = "create_kernels";
    EXPECT_ERR(lg_graph_compile(g, &o, &p), LG_INVALID_ARGUMENT,
               "pass 'create_kernels' cannot be skipped");
    o.disable_passes = " fuse , plan_memory,";
    cr_assert_eq(lg_graph_compile(g, &o, &p), LG_OK, "%s", lg_last_error());
    lg_plan_destroy(p);
    setenv("LG_DISABLE_PASSES", "infer_shapes", 1);
    EXPECT_ERR(lg_graph_compile(g, NULL, &p), LG_INVALID_ARGUMENT,
               "LG_DISABLE_PASSES: pass 'infer_shapes' cannot be skipped");
    setenv("LG_DISABLE_PASSES", "fold_constants", 1);
    cr_assert_eq(lg_graph_compile(g, NULL, &p), LG_OK, "%s", lg_last_error());
    lg_plan_destroy(p);
    unsetenv("LG_DISABLE_PASSES");
    lg_compile_options_init(NULL);
    lg_graph_destroy(g);
}

/* x -> relu -> y and x -> abs -> z, compiled. */
static lg_plan *two_output_plan(void) {
    lg_value x, y, z;
    lg_graph *g = graph_with_x(&x);
    cr_assert_eq(lg_graph_add_eltwise(g, x, LG_ELTWISE_RELU, 0, 0, &y), LG_OK);
    cr_assert_eq(lg_graph_add_eltwise(g, x, LG_ELTWISE_ABS, 0, 0, &z), LG_OK);
    cr_assert_eq(lg_graph_add_output(g, y, "y", "nchw"), LG_OK);
    cr_assert_eq(lg_graph_add_output(g, z, "z", "nchw"), LG_OK);
    lg_plan *p;
    cr_assert_eq(lg_graph_compile(g, NULL, &p), LG_OK, "%s", lg_last_error());
    lg_graph_destroy(g); /* the plan outlives its graph */
    return p;
}

Test(graph_errors, bindings) {
    lg_plan *p = two_output_plan();
    size_t n = 2 * 24 * 5 * 7;
    float *xb = calloc(n, 4), *yb = calloc(n, 4), *zb = calloc(n, 4);
    for (size_t i = 0; i < n; i++) xb[i] = (float)i - 100.0f;
    lg_binding in = {"x", xb}, out[2] = {{"y", yb}, {"z", zb}};
    EXPECT_ERR(lg_plan_execute(NULL, 1, &in, 2, out), LG_INVALID_ARGUMENT, "plan is NULL");
    EXPECT_ERR(lg_plan_execute(p, 0, NULL, 2, out), LG_INVALID_ARGUMENT, "input 'x' is not bound");
    EXPECT_ERR(lg_plan_execute(p, 1, NULL, 2, out), LG_INVALID_ARGUMENT, "1 input bindings");
    EXPECT_ERR(lg_plan_execute(p, -1, &in, 2, out), LG_INVALID_ARGUMENT, "-1 input bindings");
    EXPECT_ERR(lg_plan_execute(p, 1, &in, 1, out), LG_INVALID_ARGUMENT, "output 'z' is not bound");
    lg_binding dup[2] = {{"y", yb}, {"y", zb}};
    EXPECT_ERR(lg_plan_execute(p, 1, &in, 2, dup), LG_INVALID_ARGUMENT,
               "output 'y' is bound twice");
    lg_binding in2[2] = {{"x", xb}, {"x", xb}};
    EXPECT_ERR(lg_plan_execute(p, 2, in2, 2, out), LG_INVALID_ARGUMENT, "input 'x' is bound twice");
    lg_binding unk = {"w", xb};
    EXPECT_ERR(lg_plan_execute(p, 1, &unk, 2, out), LG_INVALID_ARGUMENT, "no input 'w'");
    lg_binding wrong = {"y", xb};
    EXPECT_ERR(lg_plan_execute(p, 1, &wrong, 2, out), LG_INVALID_ARGUMENT, "(it is an output)");
    lg_binding nul = {"x", NULL};
    EXPECT_ERR(lg_plan_execute(p, 1, &nul, 2, out), LG_INVALID_ARGUMENT, "bound to NULL");
    lg_binding noname = {NULL, xb};
    EXPECT_ERR(lg_plan_execute(p, 1, &noname, 2, out), LG_INVALID_ARGUMENT, "NULL name");
    lg_binding same[2] = {{"y", yb}, {"z", yb + 10}};
    EXPECT_ERR(lg_plan_execute(p, 1, &in, 2, same), LG_INVALID_ARGUMENT,
               "output 'y' overlaps output 'z'");
    lg_binding over[2] = {{"y", xb}, {"z", zb}};
    EXPECT_ERR(lg_plan_execute(p, 1, &in, 2, over), LG_INVALID_ARGUMENT,
               "output 'y' overlaps input 'x'");
    /* Still usable afterwards. */
    cr_assert_eq(lg_plan_execute(p, 1, &in, 2, out), LG_OK, "%s", lg_last_error());
    for (size_t i = 0; i < n; i++) {
        cr_assert_eq(yb[i], xb[i] > 0 ? xb[i] : 0.0f);
        cr_assert_eq(zb[i], fabsf(xb[i]));
    }
    /* Queries, stats and dumps. */
    lg_md md;
    EXPECT_ERR(lg_plan_query_md(p, "nope", &md), LG_INVALID_ARGUMENT, "no input or output named");
    EXPECT_ERR(lg_plan_query_md(p, NULL, &md), LG_INVALID_ARGUMENT, "name is NULL");
    EXPECT_ERR(lg_plan_query_md(p, "x", NULL), LG_INVALID_ARGUMENT, "md is NULL");
    EXPECT_ERR(lg_plan_query_md(NULL, "x", &md), LG_INVALID_ARGUMENT, "plan is NULL");
    lg_plan_stats st;
    EXPECT_ERR(lg_plan_stats_get(p, NULL), LG_INVALID_ARGUMENT, "stats is NULL");
    EXPECT_ERR(lg_plan_stats_get(NULL, &st), LG_INVALID_ARGUMENT, "plan is NULL");
    EXPECT_ERR(lg_plan_dump(p, stdout, "svg"), LG_INVALID_ARGUMENT, "format 'svg'");
    EXPECT_ERR(lg_plan_dump(p, NULL, "text"), LG_INVALID_ARGUMENT, "file is NULL");
    EXPECT_ERR(lg_plan_dump(p, stdout, NULL), LG_INVALID_ARGUMENT, "format is NULL");
    EXPECT_ERR(lg_plan_dump(NULL, stdout, "text"), LG_INVALID_ARGUMENT, "plan is NULL");
    EXPECT_ERR(lg_plan_execute_async(p, NULL, 1, &in, 2, out, NULL, NULL), LG_INVALID_ARGUMENT,
               "loop is NULL");
    lg_plan_destroy(p);
    lg_plan_destroy(NULL);
    free(xb);
    free(yb);
    free(zb);
}

/* Fail the k-th allocation, for every k, while building, compiling and
 * executing a graph that folds, fuses nothing, shares reorders and plans
 * memory: each failure is LG_OUT_OF_MEMORY with a message, and the next
 * attempt with enough memory succeeds (ASan checks for leaks). */
Test(graph_errors, out_of_memory_everywhere) {
    lg_rng r = {1};
    int64_t cd[4] = {1, 24, 1, 1};
    tensor c = t_rand(4, cd, &r, -1, 1);
    lg_md cmd = md_tag(4, cd, "nhwc"), xmd = md_tag(4, dims, "nChw16c");
    void *cb = t_pack(&c, &cmd);
    size_t n = 2 * 32 * 5 * 7;
    float *xb = calloc(n, 4), *yb = calloc(n, 4), *zb = calloc(n, 4);
    bool done = false;
    for (int64_t k = 0; !done && k < 10000; k++) {
        lg__alloc_fail_after(k);
        lg_graph *g = NULL;
        lg_plan *p = NULL;
        lg_value x, cv, a, b, y;
        lg_status s = lg_graph_create(&g);
        if (s == LG_OK) s = lg_graph_add_input(g, "x", &xmd, &x);
        if (s == LG_OK) s = lg_graph_add_constant(g, "c", &cmd, cb, &cv);
        if (s == LG_OK) s = lg_graph_add_eltwise(g, x, LG_ELTWISE_RELU, 0, 0, &a);
        if (s == LG_OK) s = lg_graph_add_binary(g, LG_BINARY_MUL, a, cv, &b);
        if (s == LG_OK) s = lg_graph_add_shuffle(g, b, 1, 4, &y);
        if (s == LG_OK) s = lg_graph_add_output(g, y, "y", "nchw");
        if (s == LG_OK) s = lg_graph_add_output(g, a, "a", "nhwc");
        if (s == LG_OK) s = lg_graph_compile(g, NULL, &p);
        lg_binding in = {"x", xb}, out[2] = {{"y", yb}, {"a", zb}};
        if (s == LG_OK) s = lg_plan_execute(p, 1, &in, 2, out);
        lg__alloc_fail_after(-1);
        if (s != LG_OK) {
            cr_assert_eq(s, LG_OUT_OF_MEMORY, "k=%lld: %s: %s", (long long)k, lg_status_str(s),
                         lg_last_error());
            cr_assert(strlen(lg_last_error()) > 0);
        } else {
            done = true;
        }
        lg_plan_destroy(p);
        lg_graph_destroy(g);
    }
    cr_assert(done, "never succeeded");
    free(cb);
    free(xb);
    free(yb);
    free(zb);
    t_free(&c);
}

/* The same with a conv graph (layout query, folded weights, fusion of a
 * relu and a residual add, in place), under GREEDY and NONE. */
Test(graph_errors, out_of_memory_with_conv) {
    int64_t xd[4] = {1, 16, 5, 5}, wd[4] = {16, 16, 3, 3}, bd[1] = {16};
    static float wdata[16 * 16 * 9], bdata[16];
    lg_md xmd = md_tag(4, xd, "nchw"), wmd = md_tag(4, wd, "oihw"), bmd = md_tag(1, bd, "a");
    lg_conv_params cp = {.strides = {1, 1}, .pad_l = {1, 1}, .pad_r = {1, 1}, .groups = 1};
    float *xb = calloc(16 * 25, 4), *yb = calloc(16 * 25, 4);
    for (int st = 0; st < 2; st++) {
        bool done = false;
        for (int64_t k = 0; !done && k < 10000; k++) {
            lg__alloc_fail_after(k);
            lg_graph *g = NULL;
            lg_plan *p = NULL;
            lg_value x, w, b, c, a, s;
            lg_status e = lg_graph_create(&g);
            if (e == LG_OK) e = lg_graph_add_input(g, "x", &xmd, &x);
            if (e == LG_OK) e = lg_graph_add_constant(g, "w", &wmd, wdata, &w);
            if (e == LG_OK) e = lg_graph_add_constant(g, "b", &bmd, bdata, &b);
            if (e == LG_OK) e = lg_graph_add_conv(g, x, w, b, &cp, &c);
            if (e == LG_OK) e = lg_graph_add_eltwise(g, c, LG_ELTWISE_RELU, 0, 0, &a);
            if (e == LG_OK) e = lg_graph_add_binary(g, LG_BINARY_ADD, a, x, &s);
            if (e == LG_OK) e = lg_graph_add_output(g, s, "y", "nchw");
            lg_compile_options o;
            lg_compile_options_init(&o);
            o.strategy = st ? LG_STRATEGY_GREEDY : LG_STRATEGY_NONE;
            if (e == LG_OK) e = lg_graph_compile(g, &o, &p);
            lg_binding in = {"x", xb}, out = {"y", yb};
            if (e == LG_OK) e = lg_plan_execute(p, 1, &in, 1, &out);
            lg__alloc_fail_after(-1);
            if (e != LG_OK)
                cr_assert_eq(e, LG_OUT_OF_MEMORY, "k=%lld: %s: %s", (long long)k, lg_status_str(e),
                             lg_last_error());
            else
                done = true;
            lg_plan_destroy(p);
            lg_graph_destroy(g);
        }
        cr_assert(done);
    }
    free(xb);
    free(yb);
}
