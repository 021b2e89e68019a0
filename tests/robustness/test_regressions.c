/* One regression test per defect of issue 23 (a hostile-input sweep of the
 * public API), each failing before its fix. */
#include <criterion/criterion.h>
#include <lgraph.h>

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void expect(lg_status got, lg_status want, const char *fn, const char *word) {
    cr_assert_eq(got, want, "want %s, got %s (%s)", lg_status_str(want), lg_status_str(got),
                 lg_last_error());
    if (want == LG_OK) return;
    const char *m = lg_last_error();
    cr_assert(strncmp(m, fn, strlen(fn)) == 0 && m[strlen(fn)] == ':',
              "message '%s' does not start with '%s:'", m, fn);
    cr_assert(strstr(m, word), "message '%s' lacks '%s'", m, word);
}

/* A graph with x (1 x 4 x W, "any" f32) and 1D conv weights 4 x 4 x k. */
static lg_graph *conv_graph(int64_t w, int64_t k, lg_value *x, lg_value *wv) {
    lg_graph *g;
    cr_assert_eq(lg_graph_create(&g), LG_OK);
    int64_t xd[3] = {1, 4, w}, wd[3] = {4, 4, k};
    lg_md xm, wm;
    cr_assert_eq(lg_md_init_tag(&xm, 3, xd, LG_F32, "any"), LG_OK, "%s", lg_last_error());
    cr_assert_eq(lg_md_init_tag(&wm, 3, wd, LG_F32, "oiw"), LG_OK);
    float *data = calloc(1, lg_md_size(&wm));
    cr_assert_eq(lg_graph_add_input(g, "x", &xm, x), LG_OK);
    cr_assert_eq(lg_graph_add_constant(g, "w", &wm, data, wv), LG_OK);
    free(data);
    return g;
}

/* 1: pads and dilations past INT64_MAX in the graph's conv node: rejected
 * by the geometry check lg_conv_create uses (was signed overflow, UB). */
Test(issue23, d1_conv_node_geometry_overflow) {
    lg_value x, w, y;
    lg_graph *g = conv_graph(16, 3, &x, &w);
    lg_conv_params p = {.strides = {1}, .groups = 1};
    p.dilates[0] = INT64_MAX;
    expect(lg_graph_add_conv(g, x, w, LG_NO_VALUE, &p, &y), LG_INVALID_ARGUMENT,
           "lg_graph_add_conv", "overflows");
    p.dilates[0] = (int64_t)1 << 62;
    expect(lg_graph_add_conv(g, x, w, LG_NO_VALUE, &p, &y), LG_INVALID_ARGUMENT,
           "lg_graph_add_conv", "overflows");
    p.dilates[0] = 0;
    p.pad_l[0] = INT64_MAX;
    expect(lg_graph_add_conv(g, x, w, LG_NO_VALUE, &p, &y), LG_INVALID_ARGUMENT,
           "lg_graph_add_conv", "overflows");
    p.pad_l[0] = INT64_MAX / 2;
    p.pad_r[0] = INT64_MAX / 2 + 2;
    expect(lg_graph_add_conv(g, x, w, LG_NO_VALUE, &p, &y), LG_INVALID_ARGUMENT,
           "lg_graph_add_conv", "overflows");
    /* The same values through lg_conv_create: the same check, same words. */
    int64_t sd[3] = {1, 4, 16}, wd[3] = {4, 4, 3}, dd[3] = {1, 4, 14};
    lg_md s, wm, d;
    lg_md_init_tag(&s, 3, sd, LG_F32, "ncw");
    lg_md_init_tag(&wm, 3, wd, LG_F32, "oiw");
    lg_md_init_tag(&d, 3, dd, LG_F32, "ncw");
    lg_kernel *k;
    expect(lg_conv_create(&k, &p, &s, &wm, NULL, &d, NULL), LG_INVALID_ARGUMENT, "lg_conv_create",
           "overflows");
    lg_graph_destroy(g);
}

/* 2: a thread count OpenMP cannot create is refused at compile time (was
 * accepted, then the process died at execute). */
Test(issue23, d2_num_threads_bounded) {
    lg_value x, w, y;
    lg_graph *g = conv_graph(16, 3, &x, &w);
    lg_conv_params p = {.strides = {1}, .groups = 1};
    cr_assert_eq(lg_graph_add_conv(g, x, w, LG_NO_VALUE, &p, &y), LG_OK);
    cr_assert_eq(lg_graph_add_output(g, y, "y", "ncw"), LG_OK);
    lg_compile_options o;
    lg_compile_options_init(&o);
    lg_plan *plan;
    const int bad[] = {INT_MAX, LG_MAX_THREADS + 1, -1, INT_MIN};
    for (int i = 0; i < 4; i++) {
        o.num_threads = bad[i];
        expect(lg_graph_compile(g, &o, &plan), LG_INVALID_ARGUMENT, "lg_graph_compile",
               "num_threads");
    }
    o.num_threads = 3;
    cr_assert_eq(lg_graph_compile(g, &o, &plan), LG_OK);
    lg_plan_destroy(plan);
    lg_graph_destroy(g);
}

/* 3: sizes overflowing int64 are refused where they arise: an "any" md, and
 * a conv node's inferred output (was a compile-time LG_RUNTIME_ERROR). */
Test(issue23, d3_sizes_overflowing_int64) {
    lg_md md;
    int64_t one[1] = {INT64_MAX}, two[2] = {(int64_t)1 << 31, (int64_t)1 << 31};
    expect(lg_md_init_tag(&md, 1, one, LG_F32, "any"), LG_INVALID_ARGUMENT, "lg_md_init_tag",
           "overflows int64");
    two[0] = two[1] = (int64_t)1 << 31;
    int64_t big[2] = {(int64_t)1 << 31, (int64_t)1 << 31};
    expect(lg_md_init_tag(&md, 2, big, LG_F32, "any"), LG_INVALID_ARGUMENT, "lg_md_init_tag",
           "overflows int64");
    cr_assert_eq(lg_md_init_tag(&md, 2, two, LG_U8, "any"), LG_OK); /* 2^62 bytes fit */
    lg_value x, w, y;
    lg_graph *g = conv_graph((int64_t)1 << 56, 1, &x, &w);
    lg_conv_params p = {.strides = {1}, .groups = 1};
    p.pad_l[0] = (int64_t)1 << 61; /* 4 channels x 2^61 outputs x 4 bytes */
    expect(lg_graph_add_conv(g, x, w, LG_NO_VALUE, &p, &y), LG_INVALID_ARGUMENT,
           "lg_graph_add_conv", "overflows int64");
    lg_graph_destroy(g);
}

/* 4: a conv whose dst is empty builds nothing in proportion to the other
 * dims (was 2.2 GB and 14 s at W = 2^27, an 8 TB allocation at 2^40). */
Test(issue23, d4_empty_conv_is_free) {
    int64_t sd[3] = {0, 1, (int64_t)1 << 40}, wd[3] = {1, 1, 1}, dd[3] = {0, 1, (int64_t)1 << 40};
    lg_md s, w, d;
    lg_md_init_tag(&s, 3, sd, LG_F32, "ncw");
    lg_md_init_tag(&w, 3, wd, LG_F32, "oiw");
    lg_md_init_tag(&d, 3, dd, LG_F32, "ncw");
    lg_conv_params p = {.strides = {1}, .groups = 1};
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    lg_kernel *k;
    cr_assert_eq(lg_conv_create(&k, &p, &s, &w, NULL, &d, NULL), LG_OK, "%s", lg_last_error());
    cr_assert_str_eq(lg_kernel_impl(k), "conv:empty");
    float wt = 1;
    lg_arg args[3] = {{LG_ARG_SRC, NULL}, {LG_ARG_WEIGHTS, &wt}, {LG_ARG_DST, NULL}};
    cr_assert_eq(lg_kernel_execute(k, 3, args), LG_OK, "%s", lg_last_error());
    lg_kernel_destroy(k);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double s_ = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    cr_assert(s_ < 1.0, "an empty conv took %.2f s", s_);
}

/* 5: a reorder without attributes refuses scale and zero-point arguments,
 * NULL or not (they were silently ignored). */
Test(issue23, d5_reorder_refuses_unasked_values) {
    int64_t dims[2] = {4, 8};
    lg_md s, d;
    lg_md_init_tag(&s, 2, dims, LG_F32, "ab");
    lg_md_init_tag(&d, 2, dims, LG_S8, "ba");
    lg_kernel *k;
    cr_assert_eq(lg_reorder_create(&k, &s, &d, NULL), LG_OK);
    float src[32] = {0}, scale = 2;
    signed char dst[32];
    const int extra[4] = {LG_ARG_ATTR_SCALES | LG_ARG_SRC, LG_ARG_ATTR_SCALES | LG_ARG_DST,
                          LG_ARG_ATTR_ZERO_POINTS | LG_ARG_SRC,
                          LG_ARG_ATTR_ZERO_POINTS | LG_ARG_DST};
    for (int i = 0; i < 4; i++)
        for (int null = 0; null < 2; null++) {
            lg_arg a[3] = {{LG_ARG_SRC, src}, {LG_ARG_DST, dst}, {extra[i], null ? NULL : &scale}};
            expect(lg_kernel_execute(k, 3, a), LG_INVALID_ARGUMENT, "lg_kernel_execute",
                   "takes no argument");
        }
    lg_kernel_destroy(k);
}

/* 6: messages name the public call, never an internal function. */
Test(issue23, d6_messages_name_the_public_call) {
    lg_value x, w, y;
    lg_graph *g = conv_graph(16, 3, &x, &w);
    lg_conv_params p = {.strides = {1}, .groups = 1};
    cr_assert_eq(lg_graph_add_conv(g, x, w, LG_NO_VALUE, &p, &y), LG_OK);
    cr_assert_eq(lg_graph_add_output(g, y, "y", "ncw"), LG_OK);
    lg_compile_options o;
    lg_compile_options_init(&o);
    lg_plan *plan;
    o.disable_passes = "no_such_pass";
    expect(lg_graph_compile(g, &o, &plan), LG_INVALID_ARGUMENT, "lg_graph_compile",
           "disable_passes");
    o.disable_passes = NULL;
    o.strategy = (lg_strategy)7;
    expect(lg_graph_compile(g, &o, &plan), LG_INVALID_ARGUMENT, "lg_graph_compile", "strategy");
    lg_graph_destroy(g);
    int64_t dims[2] = {4, 8};
    lg_md s;
    lg_md_init_tag(&s, 2, dims, LG_F32, "ab");
    lg_attr *a;
    lg_attr_create(&a);
    lg_attr_set_scales(a, LG_ARG_SRC, 4);
    lg_kernel *k;
    expect(lg_reorder_create(&k, &s, &s, a), LG_INVALID_ARGUMENT, "lg_reorder_create", "mask");
    lg_attr_destroy(a);
    cr_assert_eq(lg_reorder_create(&k, &s, &s, NULL), LG_OK);
    expect(lg_kernel_execute(k, 0, NULL), LG_INVALID_ARGUMENT, "lg_kernel_execute", "missing");
    expect(lg_kernel_execute(k, -1, NULL), LG_INVALID_ARGUMENT, "lg_kernel_execute", "arguments");
    lg_kernel_destroy(k);
}

/* 7: buffers not aligned to their element size are refused; element-aligned
 * ones work on every path (the conv reference, the binary generic path, the
 * reorder with zero points, which UBSan caught misaligned before). */
Test(issue23, d7_alignment_rule) {
    int64_t sd[4] = {1, 3, 5, 5}, wd[4] = {2, 3, 3, 3}, dd[4] = {1, 2, 3, 3};
    lg_md s, w, d;
    lg_md_init_tag(&s, 4, sd, LG_F32, "nhwc");
    lg_md_init_tag(&w, 4, wd, LG_F32, "ohwi");
    lg_md_init_tag(&d, 4, dd, LG_F32, "nhwc");
    lg_conv_params p = {.strides = {1, 1}, .groups = 1};
    lg_kernel *k;
    cr_assert_eq(lg_conv_create(&k, &p, &s, &w, NULL, &d, NULL), LG_OK);
    _Alignas(64) unsigned char sb[512] = {0}, wb[512] = {0}, db[512];
    for (int off = 1; off < 8; off++) {
        lg_arg a[3] = {{LG_ARG_SRC, sb + off}, {LG_ARG_WEIGHTS, wb}, {LG_ARG_DST, db}};
        lg_status st = lg_kernel_execute(k, 3, a);
        if (off % 4)
            expect(st, LG_INVALID_ARGUMENT, "lg_kernel_execute", "aligned");
        else
            cr_assert_eq(st, LG_OK, "%s", lg_last_error());
    }
    lg_kernel_destroy(k);
    /* Zero points: s32, so 4-byte aligned; a u8 tensor at any address. */
    int64_t dims[2] = {4, 8};
    lg_md u, f;
    lg_md_init_tag(&u, 2, dims, LG_U8, "ab");
    lg_md_init_tag(&f, 2, dims, LG_F32, "ba");
    lg_attr *at;
    lg_attr_create(&at);
    lg_attr_set_zero_points(at, LG_ARG_SRC, 0);
    cr_assert_eq(lg_reorder_create(&k, &u, &f, at), LG_OK);
    lg_attr_destroy(at);
    for (int off = 0; off < 8; off++) {
        lg_arg a[3] = {{LG_ARG_SRC, sb + off}, {LG_ARG_DST, db}, {LG_ARG_ATTR_ZERO_POINTS | 1, wb}};
        cr_assert_eq(lg_kernel_execute(k, 3, a), LG_OK, "u8 src at +%d: %s", off, lg_last_error());
        a[2].data = wb + off;
        lg_status st = lg_kernel_execute(k, 3, a);
        if (off % 4)
            expect(st, LG_INVALID_ARGUMENT, "lg_kernel_execute", "aligned");
        else
            cr_assert_eq(st, LG_OK);
    }
    lg_kernel_destroy(k);
}

/* 8: a hand-filled md with nonsense in its blocking is refused by every
 * function (lg_md_tag wrote past a stack buffer; lg_md_size indexed out of
 * bounds). */
Test(issue23, d8_hand_filled_md) {
    int64_t dims[4] = {2, 17, 5, 5};
    lg_md good, bad;
    lg_md_init_tag(&good, 4, dims, LG_F32, "nChw8c");
    char buf[64];
    for (int c = 0; c < 4; c++) {
        bad = good;
        if (c == 0) bad.blocking.inner_blks[0] = INT64_MIN;
        if (c == 1) bad.blocking.inner_idxs[0] = 40;
        if (c == 2) bad.blocking.inner_nblks = 13;
        if (c == 3) bad.blocking.strides[1] = INT64_MAX;
        expect(lg_md_tag(&bad, buf, sizeof buf), LG_INVALID_ARGUMENT, "lg_md_tag", "blocking");
        cr_assert_eq(lg_md_size(&bad), 0);
        int64_t idx[4] = {0};
        cr_assert_eq(lg_md_offset(&bad, idx), -1);
        lg_kernel *k;
        expect(lg_reorder_create(&k, &bad, &good, NULL), LG_INVALID_ARGUMENT, "lg_reorder_create",
               "src md is invalid");
        expect(lg_eltwise_create(&k, LG_ELTWISE_RELU, 0, 0, &bad, NULL), LG_INVALID_ARGUMENT,
               "lg_eltwise_create", "src md is invalid");
        lg_graph *g;
        lg_graph_create(&g);
        lg_value v;
        expect(lg_graph_add_input(g, "x", &bad, &v), LG_INVALID_ARGUMENT, "lg_graph_add_input",
               "md is invalid");
        lg_graph_destroy(g);
    }
}

/* Fuzzing (CI run 25) found a hand-filled md with stride 0 on a dim of
 * extent 3037000500: 2 KiB of buffer, 2.4e11 logical elements, and a
 * shuffle that ran for hours writing the same places. Overlapping strides
 * are refused in hand-filled mds as lg_md_init_strides refuses them, in
 * plain and in blocked layouts (the outer strides past the inner blocks). */
Test(issue23, d9_hand_filled_overlap) {
    int64_t dims[4] = {3, 16, 4, 4};
    lg_md good, bad;
    for (int c = 0; c < 4; c++) {
        lg_md_init_tag(&good, 4, dims, LG_F32, c < 2 ? "nchw" : "nChw8c");
        bad = good;
        if (c == 0) bad.blocking.strides[0] = 0;                       /* stride 0 */
        if (c == 1) bad.blocking.strides[1] = 3;                       /* c inside w rows */
        if (c == 2) bad.blocking.strides[3] = 4;                       /* w inside the 8c block */
        if (c == 3) bad.blocking.strides[0] = bad.blocking.strides[1]; /* n on top of C blocks */
        cr_assert_eq(lg_md_size(&bad), 0, "case %d", c);
        expect(lg_md_tag(&bad, (char[64]){0}, 64), LG_INVALID_ARGUMENT, "lg_md_tag", "overlap");
        lg_kernel *k;
        expect(lg_shuffle_create(&k, LG_FORWARD, &bad, 1, 2), LG_INVALID_ARGUMENT,
               "lg_shuffle_create", "overlap");
        expect(lg_reorder_create(&k, &good, &bad, NULL), LG_INVALID_ARGUMENT, "lg_reorder_create",
               "overlap");
    }
}
