/* The hostile-input sweep (issue 23): every public function's numeric
 * parameters driven through the extreme values of extremes.h (0, -1, the
 * int64 and int limits, products overflowing int64 and size_t, huge thread
 * counts, odd addresses), and every field of a hand-filled lg_md. Each case
 * must return a status (never crash, never trip ASan/UBSan, never leak: CI
 * runs this under both) whose message names the public function and the
 * argument (sweep.h). Accepted kernels and plans are run on buffers of the
 * size lg_md_size reports, so ASan sees any access past them. */
#include "robustness/extremes.h"
#include "robustness/sweep.h"

#include "primitives/cpu.h"

#include <math.h>
#include <stdlib.h>

static lg_md md4(const char *tag, lg_dtype dt) {
    lg_md md;
    int64_t dims[4] = {2, 17, 5, 5};
    cr_assert_eq(lg_md_init_tag(&md, 4, dims, dt, tag), LG_OK, "%s", lg_last_error());
    return md;
}

/* Buffers for a kernel's tensor arguments (as lg_kernel_query_md reports),
 * when small; then execute. Kernels asking for scales are not run here. */
static void run_kernel(lg_kernel *k, const char *what) {
    static const int ids[] = {LG_ARG_SRC, LG_ARG_SRC + 1,  LG_ARG_WEIGHTS, LG_ARG_BIAS,
                              LG_ARG_DST, LG_ARG_DIFF_SRC, LG_ARG_DIFF_DST};
    lg_arg args[7];
    int n = 0;
    for (int i = 0; i < 7; i++) {
        lg_md md;
        if (lg_kernel_query_md(k, ids[i], &md) != LG_OK) continue;
        size_t bytes = lg_md_size(&md);
        if (bytes > (1u << 22)) goto out;
        args[n].arg = ids[i];
        args[n].data = calloc(1, bytes ? bytes : 1);
        cr_assert(args[n].data);
        n++;
    }
    lg_status s = lg_kernel_execute(k, n, args);
    cr_assert_eq(s, LG_OK, "%s: execute: %s", what, lg_last_error());
out:
    for (int i = 0; i < n; i++) free(args[i].data);
    lg_kernel_destroy(k);
}

/* ------------------------------------------------------------------------ */

Test(robustness, md_constructors) {
    static const char *const tags[4][3] = {{"a", "any", "x"},
                                           {"ab", "any", "Ab16a"},
                                           {"abc", "any", "aBc8b"},
                                           {"abcd", "any", "aBcd16b"}};
    static const lg_dtype dts[3] = {LG_F32, LG_U8, LG_BF16};
    char what[160];
    for (int nd = 1; nd <= 4; nd++)
        for (int d = -1; d < nd; d++)
            for (int v = 0; v < LG_NX64; v++)
                for (int t = 0; t < 3; t++)
                    for (int di = 0; di < 3; di++) {
                        int64_t dims[4] = {2, 3, 4, 5}, strides[4];
                        for (int j = 0; j < nd; j++)
                            dims[j] = d < 0 || j == d ? lg_x64[v] : dims[j]; /* d < 0: all */
                        snprintf(what, sizeof what, "%dD %s %s dims[%d] = %lld", nd,
                                 tags[nd - 1][t], lg_dtype_str(dts[di]), d, (long long)lg_x64[v]);
                        lg_md md;
                        lg_status s = lg_md_init_tag(&md, nd, dims, dts[di], tags[nd - 1][t]);
                        sweep_check(s, "lg_md_init_tag", "dims|tag", what);
                        if (s == LG_OK && !lg_md_is_any(&md))
                            cr_assert(lg_md_size(&md) <= (size_t)INT64_MAX, "%s", what);
                        /* Strides: the same values as strides of a small tensor. */
                        for (int j = 0; j < nd; j++) {
                            int64_t sd[4] = {2, 3, 4, 5};
                            for (int q = 0; q < 4; q++) strides[q] = 1;
                            strides[j] = lg_x64[v];
                            s = lg_md_init_strides(&md, nd, sd, dts[di], strides);
                            sweep_check(s, "lg_md_init_strides", "strides", what);
                        }
                        s = lg_md_init_strides(&md, nd, dims, dts[di], NULL);
                        sweep_check(s, "lg_md_init_strides", "dims", what);
                    }
    int64_t dims[LG_MAX_NDIMS + 1] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    for (int v = 0; v < LG_NXINT; v++) {
        lg_md md;
        snprintf(what, sizeof what, "ndims %d / dtype %d", lg_xint[v], lg_xint[v]);
        sweep_check(lg_md_init_tag(&md, lg_xint[v], dims, LG_F32, "any"), "lg_md_init_tag", "ndims",
                    what);
        sweep_check(lg_md_init_strides(&md, lg_xint[v], dims, LG_F32, NULL), "lg_md_init_strides",
                    "ndims", what);
        if (lg_dtype_size((lg_dtype)lg_xint[v]) == 0)
            sweep_check(lg_md_init_tag(&md, 2, dims, (lg_dtype)lg_xint[v], "ab"), "lg_md_init_tag",
                        "data type", what);
    }
    sweep_report("md constructors");
}

/* Every field of a hand-filled md, set to each extreme value, given to every
 * function that takes an md. */
typedef struct field {
    const char *name;
    int kind; /* 0: int64, 1: int */
    size_t off;
} field;

#define F64(f)                                                                                     \
    { #f, 0, offsetof(lg_md, f) }
#define FI(f)                                                                                      \
    { #f, 1, offsetof(lg_md, f) }
static const field fields[] = {
    FI(ndims),
    F64(dims[0]),
    F64(dims[1]),
    F64(dims[3]),
    FI(dtype),
    FI(format_kind),
    F64(padded_dims[1]),
    F64(padded_dims[2]),
    F64(offset0),
    F64(blocking.strides[0]),
    F64(blocking.strides[1]),
    F64(blocking.strides[3]),
    FI(blocking.inner_nblks),
    F64(blocking.inner_blks[0]),
    F64(blocking.inner_blks[1]),
    FI(blocking.inner_idxs[0]),
    FI(blocking.inner_idxs[1]),
};

/* Every public function taking an md, on md (at the argument `slot`). */
static void feed_md(const lg_md *md, const char *what) {
    lg_md good = md4("aBcd8b", LG_F32), pl = md4("nchw", LG_F32), anyd = md4("any", LG_F32);
    int64_t idx[LG_MAX_NDIMS] = {0};
    char tag[256];
    bool valid = lg_md_tag(md, tag, sizeof tag) != LG_INVALID_ARGUMENT;
    size_t size = lg_md_size(md);
    if (!valid) {
        cr_assert_eq(size, 0, "%s: invalid md has size %zu", what, size);
        cr_assert_eq(lg_md_offset(md, idx), -1, "%s", what);
        cr_assert(!lg_md_equal(md, md), "%s", what);
        sweep_check(LG_INVALID_ARGUMENT, "lg_md_tag", "md", what);
    } else {
        (void)lg_md_offset(md, idx);
        (void)lg_md_equal(md, &good);
    }
    (void)lg_md_is_any(md);
    lg_kernel *k;
    lg_status s;
    /* The md itself, or how it relates to the other arguments. */
    const char *w = "md|dims|ndims|src|dst|type|f32|layout|channels";
    if ((s = sweep_check(lg_reorder_create(&k, md, &good, NULL), "lg_reorder_create", w, what)) ==
        LG_OK)
        run_kernel(k, what);
    if ((s = sweep_check(lg_reorder_create(&k, &good, md, NULL), "lg_reorder_create", w, what)) ==
        LG_OK)
        run_kernel(k, what);
    if (sweep_check(lg_shuffle_create(&k, LG_FORWARD, md, 1, 1), "lg_shuffle_create",
                    "md|axis|group_size|'any'", what) == LG_OK)
        run_kernel(k, what);
    if (sweep_check(lg_eltwise_create(&k, LG_ELTWISE_RELU, 0, 0, md, NULL), "lg_eltwise_create",
                    "md|alg|type", what) == LG_OK)
        run_kernel(k, what);
    if (sweep_check(lg_binary_create(&k, LG_BINARY_ADD, md, &pl, &anyd), "lg_binary_create", w,
                    what) == LG_OK)
        run_kernel(k, what);
    lg_conv_params p = {.strides = {1, 1, 1}, .groups = 1};
    int64_t wd[4] = {8, 17, 1, 1}, dd[4] = {2, 8, 5, 5};
    lg_md wei, dst;
    lg_md_init_tag(&wei, 4, wd, LG_F32, "any");
    lg_md_init_tag(&dst, 4, dd, LG_F32, "any");
    if (sweep_check(lg_conv_create(&k, &p, md, &wei, NULL, &dst, NULL), "lg_conv_create",
                    "md|dims|channels|batch|size|f32|groups", what) == LG_OK)
        run_kernel(k, what);
    lg_graph *g;
    cr_assert_eq(lg_graph_create(&g), LG_OK);
    lg_value v, x;
    sweep_check(lg_graph_add_input(g, "in", md, &v), "lg_graph_add_input", w, what);
    if (valid && size <= (1u << 22)) {
        void *data = calloc(1, size ? size : 1);
        sweep_check(lg_graph_add_constant(g, "c", md, data, &v), "lg_graph_add_constant",
                    "md|'any'", what);
        free(data);
    }
    cr_assert_eq(lg_graph_add_input(g, "x", &good, &x), LG_OK);
    sweep_check(lg_graph_add_reorder(g, x, md, NULL, &v), "lg_graph_add_reorder",
                "md|'any'|dims|ndims", what);
    lg_graph_destroy(g);
}

Test(robustness, md_hand_filled) {
    char what[160];
    const lg_md base = md4("aBcd8b", LG_F32);
    for (size_t f = 0; f < sizeof fields / sizeof fields[0]; f++) {
        int n = fields[f].kind ? LG_NXINT : LG_NX64;
        for (int v = 0; v < n; v++) {
            lg_md md = base;
            char *at = (char *)&md + fields[f].off;
            if (fields[f].kind) {
                int x = lg_xint[v];
                memcpy(at, &x, sizeof x);
                snprintf(what, sizeof what, "md.%s = %d", fields[f].name, x);
            } else {
                int64_t x = lg_x64[v];
                memcpy(at, &x, sizeof x);
                snprintf(what, sizeof what, "md.%s = %lld", fields[f].name, (long long)x);
            }
            feed_md(&md, what);
        }
    }
    /* Random garbage in every byte, and a zeroed md. */
    srand(23);
    for (int it = 0; it < 200; it++) {
        lg_md md;
        unsigned char *b = (unsigned char *)&md;
        for (size_t i = 0; i < sizeof md; i++) b[i] = (unsigned char)rand();
        if (it % 2) md.ndims = 1 + it % LG_MAX_NDIMS; /* get past the first check */
        if (it % 4 == 1) md.format_kind = LG_FMT_BLOCKED, md.dtype = LG_F32;
        snprintf(what, sizeof what, "random md %d", it);
        feed_md(&md, what);
    }
    lg_md zero;
    memset(&zero, 0, sizeof zero);
    feed_md(&zero, "zeroed md");
    sweep_report("hand-filled lg_md");
}

Test(robustness, attributes) {
    char what[96];
    lg_attr *a;
    cr_assert_eq(lg_attr_create(&a), LG_OK);
    for (int i = 0; i < LG_NXINT; i++)
        for (int j = 0; j < LG_NXINT; j++) {
            snprintf(what, sizeof what, "arg %d mask %d", lg_xint[i], lg_xint[j]);
            sweep_check(lg_attr_set_scales(a, lg_xint[i], lg_xint[j]), "lg_attr_set_scales",
                        "arg|mask", what);
            sweep_check(lg_attr_set_zero_points(a, lg_xint[i], lg_xint[j]),
                        "lg_attr_set_zero_points", "arg|mask", what);
        }
    lg_attr_destroy(a);
    /* Masks naming dims the tensors lack, at creation. */
    lg_md s = md4("nchw", LG_F32), d = md4("nChw16c", LG_S8);
    for (int j = 0; j < LG_NXINT; j++) {
        cr_assert_eq(lg_attr_create(&a), LG_OK);
        snprintf(what, sizeof what, "reorder mask %d", lg_xint[j]);
        lg_status st = lg_attr_set_scales(a, LG_ARG_SRC, lg_xint[j]);
        if (st == LG_OK) {
            lg_kernel *k;
            if (sweep_check(lg_reorder_create(&k, &s, &d, a), "lg_reorder_create", "mask", what) ==
                LG_OK)
                lg_kernel_destroy(k);
        }
        lg_attr_destroy(a);
    }
    const float xf[] = LG_XFLOAT_LIST;
    cr_assert_eq(lg_attr_create(&a), LG_OK);
    for (int i = 0; i < LG_NXINT; i++)
        for (size_t f = 0; f < sizeof xf / sizeof xf[0]; f++) {
            snprintf(what, sizeof what, "alg %d alpha %g", lg_xint[i], (double)xf[f]);
            lg_status st = lg_attr_append_eltwise(a, (lg_eltwise_alg)lg_xint[i], xf[f], xf[f]);
            sweep_check(st, "lg_attr_append_eltwise", "alg|alpha|beta|post-ops", what);
            sweep_check(lg_attr_append_sum(a, xf[f]), "lg_attr_append_sum", "beta|post-ops", what);
            if (i % 3 == 0) { /* start over so that appends are tried again */
                lg_attr_destroy(a);
                cr_assert_eq(lg_attr_create(&a), LG_OK);
            }
        }
    lg_attr_destroy(a);
    sweep_report("attributes");
}

Test(robustness, kernel_creation) {
    char what[128];
    lg_kernel *k;
    lg_md md = md4("nChw8c", LG_F32), u8 = md4("nhwc", LG_U8), any = md4("any", LG_F32);
    for (int a = 0; a < LG_NXINT; a++)
        for (int g = 0; g < LG_NX64; g++) {
            snprintf(what, sizeof what, "shuffle axis %d group %lld", lg_xint[a],
                     (long long)lg_x64[g]);
            if (sweep_check(lg_shuffle_create(&k, LG_FORWARD, &md, lg_xint[a], lg_x64[g]),
                            "lg_shuffle_create", "axis|group_size", what) == LG_OK)
                run_kernel(k, what);
            if (sweep_check(lg_shuffle_create(&k, (lg_prop)lg_xint[a], &u8, 1, lg_x64[g]),
                            "lg_shuffle_create", "prop|group_size", what) == LG_OK)
                run_kernel(k, what);
        }
    const float xf[] = LG_XFLOAT_LIST;
    for (int a = 0; a < LG_NXINT; a++)
        for (size_t f = 0; f < sizeof xf / sizeof xf[0]; f++) {
            snprintf(what, sizeof what, "eltwise/binary alg %d alpha %g", lg_xint[a],
                     (double)xf[f]);
            if (sweep_check(
                    lg_eltwise_create(&k, (lg_eltwise_alg)lg_xint[a], xf[f], -xf[f], &md, NULL),
                    "lg_eltwise_create", "alg", what) == LG_OK)
                run_kernel(k, what);
            if (sweep_check(
                    lg_eltwise_create(&k, (lg_eltwise_alg)(a % 16), xf[f], xf[f], &u8, NULL),
                    "lg_eltwise_create", "alg|u8", what) == LG_OK)
                run_kernel(k, what);
            if (f == 0 &&
                sweep_check(lg_binary_create(&k, (lg_binary_alg)lg_xint[a], &md, &md, &any),
                            "lg_binary_create", "alg", what) == LG_OK)
                run_kernel(k, what);
        }
    /* Conv: every geometry field of a 2D problem, each spatial dim. */
    int64_t sd[4] = {1, 8, 6, 6}, wd[4] = {8, 8, 3, 3}, dd[4] = {1, 8, 4, 4};
    lg_md src, wei, dst;
    lg_md_init_tag(&src, 4, sd, LG_F32, "any");
    lg_md_init_tag(&wei, 4, wd, LG_F32, "any");
    lg_md_init_tag(&dst, 4, dd, LG_F32, "any");
    for (int f = 0; f < 9; f++)
        for (int v = 0; v < LG_NX64; v++) {
            lg_conv_params p = {.strides = {1, 1, 1}, .groups = 1};
            int64_t *slot = f == 8  ? &p.groups
                            : f < 2 ? &p.strides[f]
                            : f < 4 ? &p.dilates[f - 2]
                            : f < 6 ? &p.pad_l[f - 4]
                                    : &p.pad_r[f - 6];
            *slot = lg_x64[v];
            snprintf(what, sizeof what, "conv field %d = %lld", f, (long long)lg_x64[v]);
            if (sweep_check(lg_conv_create(&k, &p, &src, &wei, NULL, &dst, NULL), "lg_conv_create",
                            "stride|dilate|padding|groups|geometry|dst size|kernel|channels|"
                            "weights",
                            what) == LG_OK)
                run_kernel(k, what);
        }
    sweep_report("kernel creation");
}

/* Kernels run at every offset of lg_xoff from an aligned buffer: refused
 * (with the argument named) where misaligned for the type, and equal to the
 * aligned run elsewhere. */
static void odd_addresses(lg_kernel *k, const int *ids, int n, const char *what) {
    enum { CAP = 1 << 16 };
    unsigned char *buf[4], *ref[4];
    lg_arg args[4];
    size_t bytes[4], elt[4];
    for (int i = 0; i < n; i++) {
        lg_md md;
        cr_assert_eq(lg_kernel_query_md(k, ids[i], &md), LG_OK);
        bytes[i] = lg_md_size(&md);
        elt[i] = lg_dtype_size(md.dtype);
        cr_assert(bytes[i] + 64 < CAP);
        buf[i] = aligned_alloc(64, CAP);
        ref[i] = aligned_alloc(64, CAP);
        for (size_t b = 0; b < CAP; b++) ref[i][b] = (unsigned char)(b * 7 % 61); /* finite */
        args[i] = (lg_arg){ids[i], ref[i]};
    }
    cr_assert_eq(lg_kernel_execute(k, n, args), LG_OK, "%s: %s", what, lg_last_error());
    for (int o = 0; o < LG_NXOFF; o++)
        for (int moved = 0; moved < n; moved++) {
            for (int i = 0; i < n; i++) {
                int off = i == moved ? lg_xoff[o] : 0;
                for (size_t b = 0; b < CAP - 64; b++) buf[i][b + off] = (unsigned char)(b * 7 % 61);
                args[i] = (lg_arg){ids[i], buf[i] + off};
            }
            char w[160];
            snprintf(w, sizeof w, "%s, argument %d at +%d", what, ids[moved], lg_xoff[o]);
            lg_status s =
                sweep_check(lg_kernel_execute(k, n, args), "lg_kernel_execute", "aligned", w);
            bool fits = lg_xoff[o] % (int)elt[moved] == 0;
            cr_assert_eq(s, fits ? LG_OK : LG_INVALID_ARGUMENT, "%s: %s", w, lg_last_error());
            if (s == LG_OK) /* the output is the last argument */
                cr_assert(memcmp(args[n - 1].data, ref[n - 1], bytes[n - 1]) == 0,
                          "%s: result differs from the aligned run", w);
        }
    for (int i = 0; i < n; i++) {
        free(buf[i]);
        free(ref[i]);
    }
}

Test(robustness, kernel_execution) {
    char what[128];
    lg_md f = md4("nchw", LG_F32), fb = md4("nChw8c", LG_F32), h = md4("nhwc", LG_F16),
          b = md4("nchw", LG_U8);
    lg_kernel *k;
    /* Argument lists: counts, ids, NULLs. */
    cr_assert_eq(lg_eltwise_create(&k, LG_ELTWISE_RELU, 0, 0, &f, NULL), LG_OK);
    float *x = calloc(1, lg_md_size(&f)), *y = calloc(1, lg_md_size(&f));
    for (int v = 0; v < LG_NXINT; v++) {
        snprintf(what, sizeof what, "nargs %d / arg id %d", lg_xint[v], lg_xint[v]);
        sweep_check(lg_kernel_execute(k, lg_xint[v], NULL), "lg_kernel_execute",
                    "arguments|missing", what);
        lg_arg args[3] = {{LG_ARG_SRC, x}, {LG_ARG_DST, y}, {lg_xint[v], x}};
        sweep_check(lg_kernel_execute(k, 3, args), "lg_kernel_execute", "argument", what);
        lg_md q;
        sweep_check(lg_kernel_query_md(k, lg_xint[v], &q), "lg_kernel_query_md", "argument", what);
    }
    lg_kernel_destroy(k);
    free(x);
    free(y);
    /* Odd addresses on every kind and every ISA level the CPU has. */
    for (int isa = LG_ISA_SCALAR; isa <= (int)lg__cpu_isa_hw(); isa++) {
        static const char *const caps[3] = {"scalar", "avx2", "avx512"};
        lg__cpu_set_isa_cap((lg__isa)isa);
        const int rd[2] = {LG_ARG_SRC, LG_ARG_DST},
                  bd[3] = {LG_ARG_SRC, LG_ARG_SRC + 1, LG_ARG_DST};
        snprintf(what, sizeof what, "%s reorder f32 nchw -> f16 nhwc", caps[isa]);
        cr_assert_eq(lg_reorder_create(&k, &f, &h, NULL), LG_OK);
        odd_addresses(k, rd, 2, what);
        lg_kernel_destroy(k);
        snprintf(what, sizeof what, "%s reorder u8 -> f32 blocked", caps[isa]);
        cr_assert_eq(lg_reorder_create(&k, &b, &fb, NULL), LG_OK);
        odd_addresses(k, rd, 2, what);
        lg_kernel_destroy(k);
        snprintf(what, sizeof what, "%s eltwise", caps[isa]);
        cr_assert_eq(lg_eltwise_create(&k, LG_ELTWISE_TANH, 0, 0, &fb, NULL), LG_OK);
        odd_addresses(k, rd, 2, what);
        lg_kernel_destroy(k);
        snprintf(what, sizeof what, "%s binary mixed layouts", caps[isa]);
        cr_assert_eq(lg_binary_create(&k, LG_BINARY_MUL, &f, &fb, &h), LG_OK);
        odd_addresses(k, bd, 3, what);
        lg_kernel_destroy(k);
        snprintf(what, sizeof what, "%s shuffle", caps[isa]);
        cr_assert_eq(lg_shuffle_create(&k, LG_FORWARD, &h, 1, 1), LG_OK);
        odd_addresses(k, rd, 2, what);
        lg_kernel_destroy(k);
        int64_t sd[4] = {1, 16, 6, 6}, wd[4] = {16, 16, 3, 3}, dd[4] = {1, 16, 4, 4};
        lg_md s, w, d;
        lg_md_init_tag(&s, 4, sd, LG_F32, isa ? "nChw8c" : "nchw");
        lg_md_init_tag(&w, 4, wd, LG_F32, isa ? "OIhw8i8o" : "oihw");
        lg_md_init_tag(&d, 4, dd, LG_F32, isa ? "nChw8c" : "nchw");
        lg_conv_params p = {.strides = {1, 1}, .groups = 1};
        const int cd[3] = {LG_ARG_SRC, LG_ARG_WEIGHTS, LG_ARG_DST};
        snprintf(what, sizeof what, "%s conv", caps[isa]);
        cr_assert_eq(lg_conv_create(&k, &p, &s, &w, NULL, &d, NULL), LG_OK, "%s", lg_last_error());
        odd_addresses(k, cd, 3, what);
        lg_kernel_destroy(k);
    }
    lg__cpu_set_isa_cap(lg__cpu_isa_hw());
    /* The cache capacity. */
    int cap = lg_kernel_cache_capacity();
    for (int v = 0; v < LG_NXINT; v++) {
        snprintf(what, sizeof what, "capacity %d", lg_xint[v]);
        if (lg_xint[v] > 1 << 20) continue; /* a valid, merely large, capacity */
        sweep_check(lg_kernel_cache_set_capacity(lg_xint[v]), "lg_kernel_cache_set_capacity",
                    "capacity", what);
    }
    cr_assert_eq(lg_kernel_cache_set_capacity(cap), LG_OK);
    sweep_report("kernel execution");
}
