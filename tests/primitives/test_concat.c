/* lg_concat_create and lg_slice_create through the public API, against a
 * truth computed here by logical index (lg_md_offset): seeded random
 * problems over ranks 2-5, every axis, plain / channels-last / blocked by 8
 * and 16 layouts mixed freely among sources and dst (channel counts not
 * multiples of the block), "any" dst, every type, every ISA cap; dst is
 * (f8 included: concat and slice move bytes) filled with garbage first and must come back exactly
 * the truth with its padding bytes zero. The paths the header promises are asserted (ShuffleNet's
 * 58 + 58 into nChw16c runs the blocked engine, not the reference). Bad input names the argument.
 */
#include "primitives/cpu.h"
#include "test_layers_util.h"
#include "test_util.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const lg_dtype types[] = {LG_F32, LG_BF16, LG_F16,     LG_S8,
                                 LG_U8,  LG_S32,  LG_F8_E4M3, LG_F8_E5M2};
static const int ntypes = (int)(sizeof types / sizeof types[0]);

/* A buffer for md with random bytes at its logical elements, zeros elsewhere. */
static unsigned char *random_buf(lg_rng *r, const lg_md *md) {
    size_t sz = lg_md_size(md), es = lg_dtype_size(md->dtype);
    unsigned char *b = calloc(1, sz + 1);
    int64_t idx[LG_MAX_NDIMS] = {0};
    do {
        unsigned char *p = b + lg_md_offset(md, idx) * (int64_t)es;
        for (size_t i = 0; i < es; i++) p[i] = (unsigned char)lg_rng_next(r);
    } while (next_idx(idx, md->dims, md->ndims));
    return b;
}

/* The expected dst bytes: zeros, then piece i's src range [s0, s0 + len)
 * at [d0, d0 + len) on the axis. */
static unsigned char *expected(const lg_md *dst, int axis, int n, const lg_md *srcs,
                               unsigned char *const *sb, const int64_t *s0, const int64_t *d0,
                               const int64_t *len) {
    size_t es = lg_dtype_size(dst->dtype);
    unsigned char *e = calloc(1, lg_md_size(dst) + 1);
    for (int i = 0; i < n; i++) {
        int64_t ext[LG_MAX_NDIMS], idx[LG_MAX_NDIMS] = {0}, si[LG_MAX_NDIMS];
        memcpy(ext, dst->dims, sizeof ext);
        ext[axis] = len[i];
        do {
            memcpy(si, idx, sizeof si);
            si[axis] += s0[i];
            int64_t di[LG_MAX_NDIMS];
            memcpy(di, idx, sizeof di);
            di[axis] += d0[i];
            memcpy(e + lg_md_offset(dst, di) * (int64_t)es,
                   sb[i] + lg_md_offset(&srcs[i], si) * (int64_t)es, es);
        } while (next_idx(idx, ext, dst->ndims));
    }
    return e;
}

static void random_tag(lg_rng *r, int nd, char *tag) {
    family_tag((int)lg_rng_int(r, 0, 3), nd, tag);
}

/* Run k (created at each cap by `make`) and compare with the truth. */
typedef lg_status (*make_fn)(void *ctx, lg_kernel **k);

static void run_caps(make_fn make, void *ctx, int nargs, lg_arg *args, int dst_arg,
                     const unsigned char *want, size_t dsz, const char *what,
                     const char *want_impl) {
    for (int isa = 0; isa <= (int)lg__cpu_isa_hw(); isa++) {
        lg__cpu_set_isa_cap(isa);
        lg_kernel *k;
        cr_assert_eq(make(ctx, &k), LG_OK, "%s: %s", what, lg_last_error());
        const char *impl = lg_kernel_impl(k);
        if (want_impl && isa > 0)
            cr_assert(strstr(impl, want_impl), "%s: impl %s, wanted %s", what, impl, want_impl);
        memset(args[dst_arg].data, 0xa5, dsz);
        cr_assert_eq(lg_kernel_execute(k, nargs, args), LG_OK, "%s: %s", what, lg_last_error());
        const unsigned char *got = args[dst_arg].data;
        for (size_t b = 0; b < dsz; b++)
            cr_assert_eq(got[b], want[b], "%s (%s, isa %d): byte %zu is %#x, want %#x", what, impl,
                         isa, b, got[b], want[b]);
        lg_kernel_destroy(k);
    }
    lg__cpu_set_isa_cap(-1);
}

typedef struct concat_ctx {
    int axis, n;
    const lg_md *srcs, *dst;
} concat_ctx;

static lg_status make_concat(void *ctx, lg_kernel **k) {
    concat_ctx *c = ctx;
    return lg_concat_create(k, c->axis, c->n, c->srcs, c->dst);
}

/* One concat: sources of the given axis extents and tags, dst tag (NULL:
 * "any"). */
static void concat_case(lg_rng *r, int nd, const int64_t *dims, lg_dtype dt, int axis, int n,
                        const int64_t *ext, char (*tags)[32], const char *dtag,
                        const char *want_impl) {
    lg_md srcs[8], dst, any;
    unsigned char *sb[8];
    int64_t s0[8] = {0}, d0[8], len[8], total = 0;
    char what[256];
    int w = snprintf(what, sizeof what, "concat %s axis %d:", lg_dtype_str(dt), axis);
    for (int i = 0; i < n; i++) {
        int64_t d[LG_MAX_NDIMS];
        memcpy(d, dims, (size_t)nd * sizeof *dims);
        d[axis] = ext[i];
        cr_assert_eq(lg_md_init_tag(&srcs[i], nd, d, dt, tags[i]), LG_OK, "%s", lg_last_error());
        sb[i] = random_buf(r, &srcs[i]);
        d0[i] = total;
        len[i] = ext[i];
        total += ext[i];
        w += snprintf(what + w, sizeof what - (size_t)w, " %lld:%s", (long long)ext[i], tags[i]);
    }
    snprintf(what + w, sizeof what - (size_t)w, " -> %s", dtag ? dtag : "any");
    int64_t dd[LG_MAX_NDIMS];
    memcpy(dd, dims, (size_t)nd * sizeof *dims);
    dd[axis] = total;
    if (dtag)
        cr_assert_eq(lg_md_init_tag(&dst, nd, dd, dt, dtag), LG_OK, "%s", lg_last_error());
    else {
        cr_assert_eq(lg_md_init_tag(&any, nd, dd, dt, "any"), LG_OK);
        lg_kernel *k;
        cr_assert_eq(lg_concat_create(&k, axis, n, srcs, &any), LG_OK, "%s", lg_last_error());
        cr_assert_eq(lg_kernel_query_md(k, LG_ARG_DST, &dst), LG_OK);
        cr_assert(!lg_md_is_any(&dst));
        lg_kernel_destroy(k);
    }
    unsigned char *want = expected(&dst, axis, n, srcs, sb, s0, d0, len);
    size_t dsz = lg_md_size(&dst);
    unsigned char *db = malloc(dsz + 1);
    lg_arg args[9];
    for (int i = 0; i < n; i++) args[i] = (lg_arg){LG_ARG_MULTIPLE_SRC + i, sb[i]};
    args[n] = (lg_arg){LG_ARG_DST, db};
    concat_ctx c = {axis, n, srcs, dtag ? &dst : &any};
    run_caps(make_concat, &c, n + 1, args, n, want, dsz, what, want_impl);
    for (int i = 0; i < n; i++) free(sb[i]);
    free(want);
    free(db);
}

Test(concat, random_layouts_types_axes_isa) {
    lg_rng r = {20261124};
    for (int t = 0; t < 300; t++) {
        int nd = (int)lg_rng_int(&r, 2, 5), n = (int)lg_rng_int(&r, 1, 5);
        int axis = lg_rng_int(&r, 0, 2) ? 1 : (int)lg_rng_int(&r, 0, nd - 1);
        lg_dtype dt = types[lg_rng_int(&r, 0, ntypes - 1)];
        int64_t dims[LG_MAX_NDIMS], ext[8];
        for (int d = 0; d < nd; d++) dims[d] = lg_rng_int(&r, 1, d == 1 ? 21 : 5);
        for (int i = 0; i < n; i++) ext[i] = lg_rng_int(&r, 1, 40);
        char tags[8][32], dtag[32];
        bool same = lg_rng_int(&r, 0, 1);
        random_tag(&r, nd, tags[0]);
        for (int i = 1; i < n; i++)
            if (same)
                strcpy(tags[i], tags[0]);
            else
                random_tag(&r, nd, tags[i]);
        bool any = lg_rng_int(&r, 0, 4) == 0;
        if (same && lg_rng_int(&r, 0, 1))
            strcpy(dtag, tags[0]);
        else
            random_tag(&r, nd, dtag);
        concat_case(&r, nd, dims, dt, axis, n, ext, tags, any ? NULL : dtag, NULL);
    }
}

Test(concat, shufflenet_blocked_paths) {
    lg_rng r = {58};
    int64_t dims[4] = {2, 0, 28, 28};
    char t16[2][32] = {"aBcd16b", "aBcd16b"}, t8[3][32] = {"aBcd8b", "aBcd8b", "aBcd8b"};
    for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ti++) {
        concat_case(&r, 4, dims, types[ti], 1, 2, (int64_t[]){58, 58}, t16, "aBcd16b", "blocked");
        concat_case(&r, 4, dims, types[ti], 1, 2, (int64_t[]){116, 116}, t16, "aBcd16b", "blocked");
        concat_case(&r, 4, dims, types[ti], 1, 3, (int64_t[]){3, 13, 29}, t8, "aBcd8b", "blocked");
        concat_case(&r, 4, dims, types[ti], 1, 2, (int64_t[]){7, 5}, t16, NULL, "blocked");
    }
    /* A single row per block plane (2D), and rows of one byte per lane. */
    int64_t d2[2] = {3, 0};
    char p2[2][32] = {"aB16b", "aB16b"};
    concat_case(&r, 2, d2, LG_S8, 1, 2, (int64_t[]){9, 30}, p2, "aB16b", "blocked");
    concat_case(&r, 2, d2, LG_F32, 1, 2, (int64_t[]){17, 1}, p2, "aB16b", "blocked");
}

Test(concat, plain_and_channels_last_rows) {
    lg_rng r = {7};
    int64_t dims[4] = {2, 3, 9, 11};
    char pl[3][32] = {"abcd", "abcd", "abcd"}, cl[3][32] = {"acdb", "acdb", "acdb"};
    int64_t ext[3] = {5, 1, 12};
    for (int ax = 0; ax < 4; ax++) {
        concat_case(&r, 4, dims, LG_F32, ax, 3, ext, pl, "abcd", "rows");
        concat_case(&r, 4, dims, LG_BF16, ax, 3, ext, cl, "acdb", "rows");
    }
    /* Channels last with runs of every short length (the inline copies: 1 to
     * 3, 4 to 7, 8 to 15, 16 to 31 bytes, 32, 33 to 63, 64 and longer), two
     * pieces, three and eight. */
    char cl2[2][32] = {"acdb", "acdb"};
    for (int64_t c = 1; c <= 70; c += (c < 34 ? 1 : 9)) {
        concat_case(&r, 4, dims, LG_U8, 1, 2, (int64_t[]){c, 71 - c}, cl2, "acdb", "rows");
        concat_case(&r, 4, dims, LG_S32, 1, 3, (int64_t[]){c, 3, c + 5}, cl, "acdb", "rows");
    }
    char cl8[8][32];
    int64_t e8[8];
    for (int i = 0; i < 8; i++) {
        snprintf(cl8[i], sizeof cl8[i], "acdb");
        e8[i] = 1 + i % 4;
    }
    concat_case(&r, 4, dims, LG_F32, 1, 8, e8, cl8, "acdb", "rows");
    /* Mixed layouts on block boundaries: a reorder per source into a view. */
    char mix[2][32] = {"abcd", "acdb"};
    concat_case(&r, 4, dims, LG_F32, 1, 2, (int64_t[]){16, 5}, mix, "aBcd16b", "views");
}

Test(concat, densenet_many_inputs) {
    lg_rng r = {121};
    int64_t dims[4] = {1, 0, 7, 7}, ext[8];
    char tags[8][32];
    for (int i = 0; i < 8; i++) {
        ext[i] = i == 0 ? 64 : 32;
        strcpy(tags[i], "aBcd16b");
    }
    concat_case(&r, 4, dims, LG_F32, 1, 8, ext, tags, "aBcd16b", "blocked");
    /* 200 sources through the API limit's neighbourhood. */
    enum { N = 200 };
    lg_md *srcs = calloc(N, sizeof *srcs);
    lg_arg *args = calloc(N + 1, sizeof *args);
    float *bufs = calloc(N * 2 * 3, sizeof *bufs);
    int64_t d[2] = {2, 3};
    for (int i = 0; i < N; i++) {
        lg_md_init_tag(&srcs[i], 2, d, LG_F32, "ab");
        for (int j = 0; j < 6; j++) bufs[i * 6 + j] = (float)(i * 6 + j);
        args[i] = (lg_arg){LG_ARG_MULTIPLE_SRC + i, bufs + i * 6};
    }
    lg_kernel *k;
    cr_assert_eq(lg_concat_create(&k, 1, N, srcs, NULL), LG_OK, "%s", lg_last_error());
    float *out = calloc(N * 6, sizeof *out);
    args[N] = (lg_arg){LG_ARG_DST, out};
    cr_assert_eq(lg_kernel_execute(k, N + 1, args), LG_OK, "%s", lg_last_error());
    for (int i = 0; i < N; i++)
        for (int a = 0; a < 2; a++)
            for (int b = 0; b < 3; b++)
                cr_assert_eq(out[a * N * 3 + i * 3 + b], (float)(i * 6 + a * 3 + b));
    lg_kernel_destroy(k);
    free(out);
    free(bufs);
    free(args);
    free(srcs);
}

typedef struct slice_ctx {
    int axis;
    int64_t start;
    const lg_md *src, *dst;
} slice_ctx;

static lg_status make_slice(void *ctx, lg_kernel **k) {
    slice_ctx *c = ctx;
    return lg_slice_create(k, c->axis, c->start, c->src, c->dst);
}

static void slice_case(lg_rng *r, int nd, const int64_t *dims, lg_dtype dt, int axis, int64_t start,
                       int64_t len, const char *stag, const char *dtag, const char *want_impl) {
    lg_md src, dst;
    cr_assert_eq(lg_md_init_tag(&src, nd, dims, dt, stag), LG_OK);
    int64_t dd[LG_MAX_NDIMS];
    memcpy(dd, dims, (size_t)nd * sizeof *dims);
    dd[axis] = len;
    cr_assert_eq(lg_md_init_tag(&dst, nd, dd, dt, dtag), LG_OK);
    unsigned char *sb = random_buf(r, &src);
    int64_t d0 = 0;
    unsigned char *want = expected(&dst, axis, 1, &src, &sb, &start, &d0, &len);
    size_t dsz = lg_md_size(&dst);
    unsigned char *db = malloc(dsz + 1);
    lg_arg args[2] = {{LG_ARG_SRC, sb}, {LG_ARG_DST, db}};
    char what[160];
    snprintf(what, sizeof what, "slice %s axis %d [%lld, +%lld) of %lld %s -> %s", lg_dtype_str(dt),
             axis, (long long)start, (long long)len, (long long)dims[axis], stag, dtag);
    slice_ctx c = {axis, start, &src, &dst};
    run_caps(make_slice, &c, 2, args, 1, want, dsz, what, want_impl);
    free(sb);
    free(want);
    free(db);
}

Test(slice, random_layouts_types_axes_isa) {
    lg_rng r = {1811};
    for (int t = 0; t < 300; t++) {
        int nd = (int)lg_rng_int(&r, 2, 5);
        int axis = lg_rng_int(&r, 0, 2) ? 1 : (int)lg_rng_int(&r, 0, nd - 1);
        lg_dtype dt = types[lg_rng_int(&r, 0, ntypes - 1)];
        int64_t dims[LG_MAX_NDIMS];
        for (int d = 0; d < nd; d++) dims[d] = lg_rng_int(&r, 1, d == 1 ? 60 : 5);
        int64_t len = lg_rng_int(&r, 1, dims[axis]);
        int64_t start = lg_rng_int(&r, 0, dims[axis] - len);
        char st[32], dt_[32];
        random_tag(&r, nd, st);
        if (lg_rng_int(&r, 0, 1))
            strcpy(dt_, st);
        else
            random_tag(&r, nd, dt_);
        slice_case(&r, nd, dims, dt, axis, start, len, st, dt_, NULL);
    }
}

Test(slice, shufflenet_split_paths) {
    lg_rng r = {116};
    int64_t dims[4] = {2, 116, 28, 28};
    for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ti++) {
        slice_case(&r, 4, dims, types[ti], 1, 0, 58, "aBcd16b", "aBcd16b", "blocked");
        slice_case(&r, 4, dims, types[ti], 1, 58, 58, "aBcd16b", "aBcd16b", "blocked");
        slice_case(&r, 4, dims, types[ti], 1, 3, 100, "aBcd8b", "aBcd8b", "blocked");
    }
    slice_case(&r, 4, dims, LG_F32, 1, 58, 58, "abcd", "abcd", "rows");
    slice_case(&r, 4, dims, LG_F32, 1, 17, 58, "acdb", "acdb", "rows");
    slice_case(&r, 4, dims, LG_F32, 1, 16, 100, "aBcd16b", "abcd", "views");
}

static void expect_err(lg_status got, lg_status want, const char *fn, const char *needle) {
    cr_assert_eq(got, want, "%s", lg_last_error());
    cr_assert(strstr(lg_last_error(), fn), "%s", lg_last_error());
    cr_assert(strstr(lg_last_error(), needle), "'%s' lacks '%s'", lg_last_error(), needle);
}

Test(concat, bad_input) {
    int64_t a[4] = {2, 3, 4, 5}, b3[3] = {2, 3, 4}, c[4] = {2, 3, 4, 6};
    lg_md s[2], d, r3, f16, odd, any;
    lg_md_init_tag(&s[0], 4, a, LG_F32, "nchw");
    lg_md_init_tag(&s[1], 4, a, LG_F32, "nchw");
    lg_md_init_tag(&r3, 3, b3, LG_F32, "abc");
    lg_md_init_tag(&f16, 4, a, LG_F16, "nchw");
    lg_md_init_tag(&odd, 4, c, LG_F32, "nchw");
    lg_md_init_tag(&any, 4, a, LG_F32, "any");
    int64_t dd[4] = {2, 6, 4, 5};
    lg_md_init_tag(&d, 4, dd, LG_F32, "nchw");
    lg_kernel *k = (lg_kernel *)1;
    const char *fn = "lg_concat_create";
    expect_err(lg_concat_create(NULL, 1, 2, s, &d), LG_INVALID_ARGUMENT, fn, "kernel pointer");
    expect_err(lg_concat_create(&k, 1, 2, NULL, &d), LG_INVALID_ARGUMENT, fn, "srcs");
    cr_assert_null(k);
    expect_err(lg_concat_create(&k, 1, 0, s, &d), LG_INVALID_ARGUMENT, fn, "n = 0");
    expect_err(lg_concat_create(&k, 1, LG_CONCAT_MAX_SRCS + 1, s, &d), LG_INVALID_ARGUMENT, fn,
               "n = ");
    expect_err(lg_concat_create(&k, 4, 2, s, &d), LG_INVALID_ARGUMENT, fn, "axis 4");
    expect_err(lg_concat_create(&k, -1, 2, s, &d), LG_INVALID_ARGUMENT, fn, "axis -1");
    lg_md m[2] = {s[0], r3};
    expect_err(lg_concat_create(&k, 1, 2, m, NULL), LG_INVALID_ARGUMENT, fn, "srcs[1] has 3 dims");
    m[1] = f16;
    expect_err(lg_concat_create(&k, 1, 2, m, NULL), LG_INVALID_ARGUMENT, fn, "srcs[1] is f16");
    m[1] = odd;
    expect_err(lg_concat_create(&k, 1, 2, m, NULL), LG_INVALID_ARGUMENT, fn, "srcs[1] dim 3");
    m[1] = any;
    expect_err(lg_concat_create(&k, 1, 2, m, NULL), LG_INVALID_ARGUMENT, fn, "srcs[1] is 'any'");
    expect_err(lg_concat_create(&k, 1, 2, s, &s[0]), LG_INVALID_ARGUMENT, fn, "dst dim 1");
    expect_err(lg_concat_create(&k, 1, 2, s, &f16), LG_INVALID_ARGUMENT, fn, "dst is f16");
    lg_md bad = s[0];
    bad.ndims = 40;
    m[1] = bad;
    expect_err(lg_concat_create(&k, 1, 2, m, NULL), LG_INVALID_ARGUMENT, fn, "srcs[1]");
    cr_assert_null(k);
    /* Sources valid alone whose axis dims sum past INT64_MAX (was signed
     * overflow), or whose result passes it in bytes. */
    int64_t h[3] = {1, (int64_t)1 << 62, 1}, q[3] = {1, (int64_t)1 << 60, 1};
    lg_md big[2];
    cr_assert_eq(lg_md_init_tag(&big[0], 3, h, LG_S8, "abc"), LG_OK, "%s", lg_last_error());
    big[1] = big[0];
    expect_err(lg_concat_create(&k, 1, 2, big, NULL), LG_INVALID_ARGUMENT, fn, "overflow int64");
    cr_assert_eq(lg_md_init_tag(&big[0], 3, q, LG_F32, "abc"), LG_OK, "%s", lg_last_error());
    big[1] = big[0];
    expect_err(lg_concat_create(&k, 1, 2, big, NULL), LG_INVALID_ARGUMENT, fn, "in bytes");
    cr_assert_null(k);
    /* Executing with a source missing, or at the wrong argument. */
    cr_assert_eq(lg_concat_create(&k, 1, 2, s, &d), LG_OK, "%s", lg_last_error());
    float x[120], y[120], z[240];
    lg_arg args[3] = {{LG_ARG_MULTIPLE_SRC, x}, {LG_ARG_DST, z}, {LG_ARG_MULTIPLE_SRC + 2, y}};
    cr_assert_eq(lg_kernel_execute(k, 2, args), LG_INVALID_ARGUMENT);
    cr_assert_eq(lg_kernel_execute(k, 3, args), LG_INVALID_ARGUMENT);
    args[2].arg = LG_ARG_MULTIPLE_SRC + 1;
    cr_assert_eq(lg_kernel_execute(k, 3, args), LG_OK, "%s", lg_last_error());
    lg_kernel_destroy(k);
}

Test(slice, bad_input) {
    int64_t a[4] = {2, 8, 4, 5}, b[4] = {2, 3, 4, 5}, w[4] = {2, 3, 4, 6};
    lg_md s, d, wd, f16, any;
    lg_md_init_tag(&s, 4, a, LG_F32, "nchw");
    lg_md_init_tag(&d, 4, b, LG_F32, "nchw");
    lg_md_init_tag(&wd, 4, w, LG_F32, "nchw");
    lg_md_init_tag(&f16, 4, b, LG_F16, "nchw");
    lg_md_init_tag(&any, 4, a, LG_F32, "any");
    lg_kernel *k;
    const char *fn = "lg_slice_create";
    expect_err(lg_slice_create(NULL, 1, 0, &s, &d), LG_INVALID_ARGUMENT, fn, "kernel pointer");
    expect_err(lg_slice_create(&k, 1, 0, NULL, &d), LG_INVALID_ARGUMENT, fn, "src is NULL");
    expect_err(lg_slice_create(&k, 1, 0, &s, NULL), LG_INVALID_ARGUMENT, fn, "dst is NULL");
    expect_err(lg_slice_create(&k, 1, 0, &any, &d), LG_INVALID_ARGUMENT, fn, "src is 'any'");
    expect_err(lg_slice_create(&k, 7, 0, &s, &d), LG_INVALID_ARGUMENT, fn, "axis 7");
    expect_err(lg_slice_create(&k, 1, 6, &s, &d), LG_INVALID_ARGUMENT, fn, "start 6");
    expect_err(lg_slice_create(&k, 1, -1, &s, &d), LG_INVALID_ARGUMENT, fn, "start -1");
    expect_err(lg_slice_create(&k, 1, 0, &s, &wd), LG_INVALID_ARGUMENT, fn, "dst dim 3");
    expect_err(lg_slice_create(&k, 1, 0, &s, &f16), LG_INVALID_ARGUMENT, fn, "dst is f16");
    cr_assert_eq(lg_slice_create(&k, 1, 5, &s, &d), LG_OK, "%s", lg_last_error());
    lg_kernel_destroy(k);
}
