/* Size overflow. Descriptors: on seeded random dims around the int64
 * boundary, lg_md_init_tag / lg_md_init_strides accept exactly the sizes
 * that fit (a 128-bit computation here is the truth) and reject the others
 * with LG_INVALID_ARGUMENT and a message naming the overflow. Kernels: on
 * valid descriptors too large for any machine, creation returns LG_OK,
 * LG_OUT_OF_MEMORY or LG_INVALID_ARGUMENT naming the overflow, never
 * crashes (ASan), and every tensor argument of a created kernel reports its
 * true byte size (no wrapped size_t that would let small buffers through). */
#include "memory/md.h"
#include "test_util.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

typedef unsigned __int128 u128;
#define I64MAX ((u128)INT64_MAX)

/* a * b, saturated just above INT64_MAX (enough to compare with it). */
static u128 mul_sat(u128 a, u128 b) {
    if (a > I64MAX + 1) a = I64MAX + 1;
    if (b > I64MAX + 1) b = I64MAX + 1;
    u128 r = a * b; /* both <= 2^63: fits in 128 bits */
    return r > I64MAX + 1 ? I64MAX + 1 : r;
}

static const lg_dtype dts[6] = {LG_F32, LG_F16, LG_BF16, LG_S32, LG_S8, LG_U8};

/* 4D tags and their block product per dim. */
static const struct {
    const char *tag;
    int64_t blk[4];
} tags[] = {
    {"abcd", {1, 1, 1, 1}},         {"acdb", {1, 1, 1, 1}},          {"aBcd16b", {1, 16, 1, 1}},
    {"ABcd16b16a", {16, 16, 1, 1}}, {"ABcd4b16a4b", {16, 16, 1, 1}}, {"Acdb32a", {32, 1, 1, 1}},
    {"aBCd2b3c", {1, 2, 3, 1}},
};

/* A dim near a power of two, or small, or 0. */
static int64_t random_dim(lg_rng *r) {
    switch (lg_rng_int(r, 0, 5)) {
    case 0:
        return lg_rng_int(r, 0, 3);
    case 1:
        return lg_rng_int(r, 1, 100);
    case 2:
        return INT64_MAX - lg_rng_int(r, 0, 40);
    default: {
        int64_t p = (int64_t)1 << lg_rng_int(r, 2, 62);
        return p + lg_rng_int(r, -3, 3);
    }
    }
}

static void expect_overflow_error(lg_status s, const char *what) {
    cr_assert_eq(s, LG_INVALID_ARGUMENT, "%s: overflowing size accepted (%s)", what,
                 lg_status_str(s));
    cr_assert(strstr(lg_last_error(), "overflow") != NULL, "%s: message '%s'", what,
              lg_last_error());
}

Test(overflow, init_tag_accepts_exactly_what_fits) {
    lg_rng r = {7};
    int ok = 0, rejected = 0;
    for (int it = 0; it < 40000; it++) {
        int64_t dims[4];
        for (int d = 0; d < 4; d++) dims[d] = random_dim(&r);
        int ti = (int)lg_rng_int(&r, 0, (int64_t)(sizeof tags / sizeof tags[0]));
        lg_dtype dt = dts[lg_rng_int(&r, 0, 5)];
        bool any = ti == (int)(sizeof tags / sizeof tags[0]);
        /* Truth: padded dims, the dense element count (extent 0 counts as 1)
         * and the bytes must fit in int64; "any" needs the logical element
         * count (extent 0 counting as 1) times the type size to fit. */
        u128 elems = 1, logical = 1;
        bool fits = true;
        for (int d = 0; d < 4; d++) {
            int64_t b = any ? 1 : tags[ti].blk[d];
            u128 padded = ((u128)dims[d] + (u128)b - 1) / (u128)b * (u128)b;
            if (padded > I64MAX) fits = false;
            u128 ext = padded / (u128)b;
            elems = mul_sat(elems, ext ? ext * (u128)b : (u128)b);
            logical = mul_sat(logical, dims[d] ? (u128)dims[d] : 1);
        }
        if (any) /* the byte size too (issue 23) */
            fits = mul_sat(logical, lg_dtype_size(dt)) <= I64MAX;
        else
            fits = fits && elems <= I64MAX && mul_sat(elems, lg_dtype_size(dt)) <= I64MAX;
        lg_md md;
        lg_status s = lg_md_init_tag(&md, 4, dims, dt, any ? "any" : tags[ti].tag);
        char what[160];
        snprintf(what, sizeof what, "%s %s dims %lld x %lld x %lld x %lld",
                 any ? "any" : tags[ti].tag, lg_dtype_str(dt), (long long)dims[0],
                 (long long)dims[1], (long long)dims[2], (long long)dims[3]);
        if (!fits) {
            expect_overflow_error(s, what);
            rejected++;
            continue;
        }
        cr_assert_eq(s, LG_OK, "%s: rejected (%s)", what, lg_last_error());
        ok++;
        if (any) continue;
        bool empty = false;
        for (int d = 0; d < 4; d++) empty = empty || dims[d] == 0;
        u128 want = empty ? 0 : mul_sat(elems, lg_dtype_size(dt));
        cr_assert_eq((u128)lg_md_size(&md), want, "%s: lg_md_size %zu", what, lg_md_size(&md));
    }
    cr_assert_gt(ok, 1000);
    cr_assert_gt(rejected, 1000);
}

Test(overflow, init_strides_accepts_exactly_what_fits) {
    lg_rng r = {11};
    int ok = 0, rejected = 0;
    for (int it = 0; it < 40000; it++) {
        int nd = (int)lg_rng_int(&r, 1, 4);
        int64_t dims[4], strides[4];
        for (int d = 0; d < nd; d++) dims[d] = random_dim(&r);
        lg_dtype dt = dts[lg_rng_int(&r, 0, 5)];
        bool dense = lg_rng_int(&r, 0, 1);
        /* Row-major strides with a gap of 0..2 elements per dim, built in
         * 128 bits; a stride that does not fit int64 cannot be passed. */
        u128 s = 1, total = 1;
        bool passable = true;
        for (int d = nd - 1; d >= 0; d--) {
            u128 sd = dense ? s : s + (u128)lg_rng_int(&r, 0, 2);
            if (sd > I64MAX) passable = false;
            strides[d] = (int64_t)sd;
            u128 e = mul_sat(sd, dims[d] ? (u128)dims[d] : 1);
            if (e > total) total = e;
            s = mul_sat(sd, dims[d] ? (u128)dims[d] : 1);
        }
        if (!passable) continue;
        bool fits = total <= I64MAX && mul_sat(total, lg_dtype_size(dt)) <= I64MAX;
        lg_md md;
        lg_status st = lg_md_init_strides(&md, nd, dims, dt, dense ? NULL : strides);
        char what[160];
        snprintf(what, sizeof what, "%s %dD %s dims[0] %lld", dense ? "dense" : "strided", nd,
                 lg_dtype_str(dt), (long long)dims[0]);
        if (!fits) {
            expect_overflow_error(st, what);
            rejected++;
            continue;
        }
        cr_assert_eq(st, LG_OK, "%s: rejected (%s)", what, lg_last_error());
        ok++;
    }
    cr_assert_gt(ok, 1000);
    cr_assert_gt(rejected, 1000);
}

/* Bytes of md in 128 bits: what lg_md_size must report. */
static u128 true_size(const lg_md *md) {
    int64_t n = lg__md_nelems_padded(md);
    return md->format_kind == LG_FMT_BLOCKED ? mul_sat((u128)n, lg_dtype_size(md->dtype)) : 0;
}

/* A created kernel's tensors must report their true sizes. */
static void check_created(lg_status s, lg_kernel **kp, const char *what) {
    lg_kernel *k = *kp;
    *kp = NULL;
    printf("overflow: %-44s -> %s%s%s\n", what, lg_status_str(s), s == LG_OK ? "" : ": ",
           s == LG_OK ? "" : lg_last_error());
    if (s == LG_OUT_OF_MEMORY) return;
    if (s == LG_INVALID_ARGUMENT) {
        cr_assert(strstr(lg_last_error(), "overflow") != NULL, "%s: '%s'", what, lg_last_error());
        return;
    }
    cr_assert_eq(s, LG_OK, "%s: %s (%s)", what, lg_status_str(s), lg_last_error());
    static const int args[] = {LG_ARG_SRC, LG_ARG_SRC + 1, LG_ARG_DST, LG_ARG_DIFF_SRC,
                               LG_ARG_DIFF_DST};
    for (size_t i = 0; i < sizeof args / sizeof args[0]; i++) {
        lg_md md;
        if (lg_kernel_query_md(k, args[i], &md) != LG_OK) continue;
        cr_assert(true_size(&md) <= I64MAX, "%s: argument %d of %s bytes", what, args[i],
                  "more than INT64_MAX");
        cr_assert_eq((u128)lg_md_size(&md), true_size(&md), "%s: argument %d size wrapped", what,
                     args[i]);
    }
    lg_kernel_destroy(k);
}

static lg_md md_tag(int nd, const int64_t *dims, lg_dtype dt, const char *tag) {
    lg_md md;
    cr_assert_eq(lg_md_init_tag(&md, nd, dims, dt, tag), LG_OK, "%s: %s", tag, lg_last_error());
    return md;
}

/* Tables a creator builds per channel or per index (shuffle channel
 * offsets, eltwise/binary offset tables) must not wrap their byte count.
 * Sizes are chosen so that every allocation asked for is at least 2^48
 * bytes: it fails on any machine, whatever the overcommit policy. */
Test(overflow, huge_kernels_fail_cleanly) {
    const int64_t e61 = (int64_t)1 << 61, e45 = (int64_t)1 << 45;
    lg_kernel *k = NULL;
    /* Shuffle: one u8 channel axis of 2^61 (offset tables of 2^64 bytes). */
    int64_t c61[1] = {e61}, c45[2] = {e45, 2};
    lg_md m = md_tag(1, c61, LG_U8, "a");
    check_created(lg_shuffle_create(&k, LG_FORWARD, &m, 0, 1), &k, "shuffle u8 C = 2^61");
    m = md_tag(2, c45, LG_U8, "ab");
    check_created(lg_shuffle_create(&k, LG_BACKWARD, &m, 0, 2), &k, "shuffle u8 C = 2^45");
    /* Eltwise whose f(0) != 0 needs a padding table over the padded dims. */
    int64_t pad61[2] = {1, e61 + 1};
    m = md_tag(2, pad61, LG_U8, "aB16b");
    check_created(lg_eltwise_create(&k, LG_ELTWISE_LINEAR, 1.0f, 1.0f, &m, NULL), &k,
                  "eltwise u8 linear aB16b 2^61 + 1");
    /* Binary with offset tables per dim (mixed layouts). */
    int64_t b61[2] = {1, e61}, one[2] = {1, 1};
    lg_md s0 = md_tag(2, b61, LG_F16, "ab"), s1 = md_tag(2, one, LG_F16, "ab");
    lg_md d = md_tag(2, b61, LG_F16, "ba");
    check_created(lg_binary_create(&k, LG_BINARY_ADD, &s0, &s1, &d), &k,
                  "binary f16 ab + broadcast -> ba, 2^61");
    /* An "any" md whose bytes would not fit is refused when it is made
     * (issue 23), so no creator sees one. */
    int64_t r62[1] = {(int64_t)1 << 62};
    lg_md dany;
    expect_overflow_error(lg_md_init_tag(&dany, 1, r62, LG_F32, "any"), "any f32 2^62");
    expect_overflow_error(lg_md_init_tag(&dany, 2, b61, LG_F32, "any"), "any f32 2 x 2^61");
    /* A plain huge reorder between layouts plans without touching data. */
    int64_t big[4] = {e45, 3, 5, 7};
    lg_md a = md_tag(4, big, LG_S8, "nchw"), b = md_tag(4, big, LG_S8, "nhwc");
    check_created(lg_reorder_create(&k, &a, &b, NULL), &k, "reorder s8 nchw -> nhwc 2^45 x 105");
}
