/* lg_shuffle_create_layouts (a shuffle into another layout): every layout pair
 * among nchw, nhwc, nChw8c, nChw16c and a strided plain layout, padded
 * channel tails, all six data types, forward and backward, every ISA cap,
 * against an independent scalar loop; and every bad input.
 *
 * The truth: the permutation is built from the definition (dst channel
 * u + v * C/G takes src channel u * G + v, G the group size of the data
 * movement), elements are located with lg_md_offset, and the whole dst
 * buffer is compared: values, zeroed padding, untouched gaps. */
#include "primitives/shuffle/shuffle.h"

#include "test_util.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const lg_dtype all_dt[6] = {LG_F32, LG_F16, LG_BF16, LG_S32, LG_S8, LG_U8};

#define NLAYOUTS 5
static const char *const layout_name[NLAYOUTS] = {"nchw", "nhwc", "nChw8c", "nChw16c", "strided"};

/* Layout l of a 4-d tensor: a tag, or (l == 4) nchw with gaps after each row
 * and each image. */
static lg_md make_md(int l, const int64_t *dims, lg_dtype dt) {
    lg_md md;
    if (l < 4) {
        cr_assert_eq(lg_md_init_tag(&md, 4, dims, dt, layout_name[l]), LG_OK, "%s",
                     lg_last_error());
    } else {
        int64_t w = dims[3] + 3, img = dims[1] * dims[2] * w + 5;
        int64_t st[4] = {img, dims[2] * w, w, 1};
        cr_assert_eq(lg_md_init_strides(&md, 4, dims, dt, st), LG_OK, "%s", lg_last_error());
    }
    return md;
}

static bool next_index(int64_t *idx, const int64_t *ext, int nd) {
    for (int d = nd - 1; d >= 0; d--) {
        if (++idx[d] < ext[d]) return true;
        idx[d] = 0;
    }
    return false;
}

/* perm[c] = the source channel of output channel c, from the definition. */
static void make_perm(int64_t C, int64_t g, int64_t *perm) {
    int64_t k = C / g;
    for (int64_t u = 0; u < k; u++)
        for (int64_t v = 0; v < g; v++) perm[u + v * k] = u * g + v;
}

/* Random bytes everywhere, then zeros on md's padding (the contract: a
 * padded tensor's padding is zero; equal layouts run the plain shuffle,
 * which copies src padding of the other dims). */
static uint8_t *random_src(const lg_md *md, lg_rng *r) {
    size_t n = lg_md_size(md);
    uint8_t *b = malloc(n + 1);
    cr_assert(b);
    for (size_t i = 0; i < n + 1; i++) b[i] = (uint8_t)lg_rng_next(r);
    if (!lg__md_has_padding(md) || lg__md_nelems(md) == 0) return b;
    size_t esz = lg_dtype_size(md->dtype);
    int64_t idx[LG_MAX_NDIMS] = {0};
    do {
        bool pad = false;
        for (int d = 0; d < md->ndims; d++) pad = pad || idx[d] >= md->dims[d];
        if (pad) memset(b + lg__md_off(md, idx) * (int64_t)esz, 0, esz);
    } while (next_index(idx, md->padded_dims, md->ndims));
    return b;
}

/* The expected dst buffer: `fill` bytes, then every element of dst's padded
 * box (zero on padding, else its source element). */
static void truth(const lg_md *sm, const lg_md *dm, int axis, const int64_t *perm, const void *src,
                  uint8_t *want, size_t n, uint8_t fill) {
    memset(want, fill, n + 1);
    size_t esz = lg_dtype_size(dm->dtype);
    int64_t idx[LG_MAX_NDIMS] = {0}, sidx[LG_MAX_NDIMS];
    if (lg__md_nelems(dm) == 0) return;
    do {
        bool pad = false;
        for (int d = 0; d < dm->ndims; d++) pad = pad || idx[d] >= dm->dims[d];
        uint8_t *o = want + lg__md_off(dm, idx) * (int64_t)esz;
        if (pad) {
            memset(o, 0, esz);
            continue;
        }
        memcpy(sidx, idx, sizeof idx);
        sidx[axis] = perm[idx[axis]];
        memcpy(o, (const char *)src + lg_md_offset(sm, sidx) * (int64_t)esz, esz);
    } while (next_index(idx, dm->padded_dims, dm->ndims));
}

static int nchecks, nex;

/* One problem under every ISA cap through the API, plus the library's own
 * reference, against the truth. */
static void check(const lg_md *sm, const lg_md *dm, int axis, int64_t G, lg_prop prop, lg_rng *r,
                  const char *what) {
    int64_t C = sm->dims[axis], perm[512];
    cr_assert(C <= 512);
    make_perm(C, prop == LG_FORWARD ? G : C / G, perm);
    size_t nd = lg_md_size(dm);
    uint8_t *src = random_src(sm, r), *want = malloc(nd + 1), *got = malloc(nd + 1);
    cr_assert(want && got);
    truth(sm, dm, axis, perm, src, want, nd, 0xA5);

    lg__shuffle_pd pd;
    memset(&pd, 0, sizeof pd);
    lg__md_canon(sm, &pd.src);
    lg__md_canon(dm, &pd.dst);
    pd.prop = prop, pd.axis = axis, pd.group = G;
    memset(got, 0xA5, nd + 1);
    lg__shuffle_ref(&pd, src, got);
    cr_assert(memcmp(want, got, nd + 1) == 0, "%s: lg__shuffle_ref differs", what);

    /* The kind's one planner, asked directly: different layouts get its
     * offset-table mode, equal ones one of the others; both run through the
     * one executor. */
    lg__shuf_plan *plan;
    cr_assert_eq(lg__shuffle_plan(&pd, lg__cpu_isa_hw(), &plan), LG_OK, "%s", what);
    cr_assert_eq(plan->mode == LG_SHUF_LAYOUTS, !lg_md_equal(sm, dm), "%s: mode %d", what,
                 (int)plan->mode);
    memset(got, 0xA5, nd + 1);
    lg__shuffle_exec(plan, src, got);
    cr_assert(memcmp(want, got, nd + 1) == 0, "%s: lg__shuffle_plan's plan differs", what);
    lg__shuffle_plan_free(plan);

    bool fwd = prop == LG_FORWARD;
    for (int isa = LG_ISA_SCALAR; isa <= (int)lg__cpu_isa_hw(); isa++) {
        lg__cpu_set_isa_cap(isa);
        lg_kernel *k;
        cr_assert_eq(lg_shuffle_create_layouts(&k, prop, sm, dm, axis, G), LG_OK, "%s: %s", what,
                     lg_last_error());
        const char *impl = lg_kernel_impl(k);
        if (!lg_md_equal(sm, dm)) {
            cr_assert(strncmp(impl, "shuffle:ex:", 11) == 0, "%s: impl %s", what, impl);
            nex++;
        }
        lg_md q;
        cr_assert_eq(lg_kernel_query_md(k, fwd ? LG_ARG_SRC : LG_ARG_DIFF_DST, &q), LG_OK);
        cr_assert(lg_md_equal(&q, sm), "%s: src md", what);
        cr_assert_eq(lg_kernel_query_md(k, fwd ? LG_ARG_DST : LG_ARG_DIFF_SRC, &q), LG_OK);
        cr_assert(lg_md_equal(&q, dm), "%s: dst md", what);
        memset(got, 0xA5, nd + 1);
        lg_arg args[2] = {{fwd ? LG_ARG_SRC : LG_ARG_DIFF_DST, src},
                          {fwd ? LG_ARG_DST : LG_ARG_DIFF_SRC, got}};
        cr_assert_eq(lg_kernel_execute(k, 2, args), LG_OK, "%s", lg_last_error());
        if (memcmp(want, got, nd + 1) != 0) {
            size_t i = 0;
            while (want[i] == got[i]) i++;
            cr_assert_fail("%s, isa cap %s, %s: byte %zu differs (%02x vs %02x)", what,
                           lg__isa_name((lg__isa)isa), impl, i, got[i], want[i]);
        }
        lg_kernel_destroy(k);
        nchecks++;
    }
    lg__cpu_set_isa_cap(-1);
    free(src);
    free(want);
    free(got);
}

/* Every layout pair, type and prop for one shape. */
static void all_pairs(const int64_t *dims, int axis, int64_t G, lg_rng *r) {
    for (int ls = 0; ls < NLAYOUTS; ls++)
        for (int ld = 0; ld < NLAYOUTS; ld++)
            for (int t = 0; t < 6; t++)
                for (int prop = 0; prop < 2; prop++) {
                    lg_md sm = make_md(ls, dims, all_dt[t]), dm = make_md(ld, dims, all_dt[t]);
                    char what[200];
                    snprintf(what, sizeof what, "%lldx%lldx%lldx%lld axis %d G %lld %s %s -> %s %s",
                             (long long)dims[0], (long long)dims[1], (long long)dims[2],
                             (long long)dims[3], axis, (long long)G, lg_dtype_str(all_dt[t]),
                             layout_name[ls], layout_name[ld], prop ? "bwd" : "fwd");
                    check(&sm, &dm, axis, G, (lg_prop)prop, r, what);
                }
}

Test(shuffle_ex, padded_tails_every_pair) {
    lg_rng r = {11};
    static const int64_t cases[][5] = {
        {2, 24, 3, 5, 4}, {1, 60, 2, 3, 20}, {1, 282, 2, 2, 3}, {3, 16, 1, 7, 8}, {1, 6, 4, 4, 3},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        all_pairs(cases[i], 1, cases[i][4], &r);
    cr_assert_gt(nex, 0);
}

Test(shuffle_ex, seeded_random_problems) {
    lg_rng r = {2024};
    for (int it = 0; it < 40; it++) {
        int64_t dims[4] = {lg_rng_int(&r, 1, 3), 0, lg_rng_int(&r, 1, 6), lg_rng_int(&r, 1, 9)};
        int64_t k = lg_rng_int(&r, 1, 12), G = lg_rng_int(&r, 1, 12);
        dims[1] = k * G;
        int ls = (int)lg_rng_int(&r, 0, NLAYOUTS - 1), ld = (int)lg_rng_int(&r, 0, NLAYOUTS - 1);
        lg_dtype dt = all_dt[lg_rng_int(&r, 0, 5)];
        lg_prop prop = (lg_prop)lg_rng_int(&r, 0, 1);
        lg_md sm = make_md(ls, dims, dt), dm = make_md(ld, dims, dt);
        char what[200];
        snprintf(what, sizeof what, "random %d: C %lld G %lld %s -> %s", it, (long long)dims[1],
                 (long long)G, layout_name[ls], layout_name[ld]);
        check(&sm, &dm, 1, G, prop, &r, what);
    }
}

Test(shuffle_ex, other_axes) {
    /* Shuffles along H and W, where the blocked channel dim is a pixel dim. */
    lg_rng r = {5};
    int64_t dims[4] = {2, 20, 6, 8};
    for (int ls = 0; ls < NLAYOUTS; ls++)
        for (int ld = 0; ld < NLAYOUTS; ld++) {
            lg_md sm = make_md(ls, dims, LG_F32), dm = make_md(ld, dims, LG_F32);
            check(&sm, &dm, 2, 3, LG_FORWARD, &r, "axis 2");
            check(&sm, &dm, 3, 4, LG_BACKWARD, &r, "axis 3");
        }
}

Test(shuffle_ex, large_runs_on_threads) {
    /* Big enough to run on all threads (and to take whole-row memcpys). */
    lg_rng r = {9};
    int64_t dims[4] = {2, 48, 28, 28};
    for (int ls = 0; ls < NLAYOUTS; ls++)
        for (int ld = 0; ld < NLAYOUTS; ld++) {
            lg_md sm = make_md(ls, dims, LG_F32), dm = make_md(ld, dims, LG_F32);
            check(&sm, &dm, 1, 4, LG_FORWARD, &r, "large");
        }
}

Test(shuffle_ex, hand_computed) {
    /* nchw -> nhwc, C = 6, G = 2 (c' = 0, 2, 4, 1, 3, 5), N = H = 1, W = 2. */
    int64_t dims[4] = {1, 6, 1, 2};
    lg_md sm = make_md(0, dims, LG_S32), dm = make_md(1, dims, LG_S32);
    int32_t src[12], dst[12];
    for (int c = 0; c < 6; c++)
        for (int w = 0; w < 2; w++) src[c * 2 + w] = 10 * c + w;
    lg_kernel *k;
    cr_assert_eq(lg_shuffle_create_layouts(&k, LG_FORWARD, &sm, &dm, 1, 2), LG_OK, "%s",
                 lg_last_error());
    lg_arg args[2] = {{LG_ARG_SRC, src}, {LG_ARG_DST, dst}};
    cr_assert_eq(lg_kernel_execute(k, 2, args), LG_OK, "%s", lg_last_error());
    const int32_t want[12] = {0, 20, 40, 10, 30, 50, 1, 21, 41, 11, 31, 51};
    for (int i = 0; i < 12; i++) cr_assert_eq(dst[i], want[i], "element %d", i);
    lg_kernel_destroy(k);
}

Test(shuffle_ex, cached_and_equal_layouts) {
    int64_t dims[4] = {1, 32, 4, 4};
    lg_md a = make_md(0, dims, LG_F32), b = make_md(3, dims, LG_F32);
    lg_kernel *k1, *k2, *k3;
    cr_assert_eq(lg_shuffle_create_layouts(&k1, LG_FORWARD, &a, &b, 1, 4), LG_OK);
    cr_assert_eq(lg_shuffle_create_layouts(&k2, LG_FORWARD, &a, &b, 1, 4), LG_OK);
    cr_assert_eq(k1, k2, "the same problem is one cached kernel");
    /* Equal layouts: the plain shuffle's kernel (its SIMD paths). */
    cr_assert_eq(lg_shuffle_create_layouts(&k3, LG_FORWARD, &b, &b, 1, 4), LG_OK);
    cr_assert(strncmp(lg_kernel_impl(k3), "shuffle:ex:", 11) != 0, "%s", lg_kernel_impl(k3));
    /* One creator: lg_shuffle_create is its same-layout form, one kernel. */
    lg_kernel *k4;
    cr_assert_eq(lg_shuffle_create(&k4, LG_FORWARD, &b, 1, 4), LG_OK);
    cr_assert_eq(k3, k4, "lg_shuffle_create and lg_shuffle_create_layouts share the kernel");
    lg_kernel_destroy(k4);
    lg_kernel_destroy(k1);
    lg_kernel_destroy(k2);
    lg_kernel_destroy(k3);
}

/* The call fails with LG_INVALID_ARGUMENT and the message contains `frag`. */
static void expect_bad(lg_status s, const char *frag) {
    cr_assert_eq(s, LG_INVALID_ARGUMENT, "expected LG_INVALID_ARGUMENT for '%s'", frag);
    cr_assert(strstr(lg_last_error(), frag), "message '%s' lacks '%s'", lg_last_error(), frag);
    cr_assert(strstr(lg_last_error(), "lg_shuffle_create_layouts"), "%s", lg_last_error());
}

Test(shuffle_ex, bad_input) {
    int64_t dims[4] = {1, 12, 2, 2}, other[4] = {1, 12, 2, 3};
    lg_md a = make_md(0, dims, LG_F32), b = make_md(1, dims, LG_F32);
    lg_md c = make_md(1, dims, LG_F16), d = make_md(1, other, LG_F32), any, undef;
    cr_assert_eq(lg_md_init_tag(&any, 4, dims, LG_F32, "any"), LG_OK);
    memset(&undef, 0, sizeof undef);
    int64_t dims3[3] = {1, 12, 4};
    lg_md e = make_md(0, dims, LG_F32);
    cr_assert_eq(lg_md_init_tag(&e, 3, dims3, LG_F32, "abc"), LG_OK);
    lg_kernel *k = (lg_kernel *)0x1;
    expect_bad(lg_shuffle_create_layouts(NULL, LG_FORWARD, &a, &b, 1, 3), "kernel pointer");
    expect_bad(lg_shuffle_create_layouts(&k, LG_FORWARD, NULL, &b, 1, 3), "src md is NULL");
    expect_bad(lg_shuffle_create_layouts(&k, LG_FORWARD, &a, NULL, 1, 3), "dst md is NULL");
    expect_bad(lg_shuffle_create_layouts(&k, LG_FORWARD, &undef, &b, 1, 3), "not initialised");
    expect_bad(lg_shuffle_create_layouts(&k, LG_FORWARD, &a, &any, 1, 3), "dst md is 'any'");
    expect_bad(lg_shuffle_create_layouts(&k, LG_FORWARD, &any, &b, 1, 3), "src md is 'any'");
    expect_bad(lg_shuffle_create_layouts(&k, LG_FORWARD, &a, &c, 1, 3), "does not convert");
    expect_bad(lg_shuffle_create_layouts(&k, LG_FORWARD, &a, &d, 1, 3), "dims[3] differ");
    expect_bad(lg_shuffle_create_layouts(&k, LG_FORWARD, &a, &e, 1, 3), "dims");
    expect_bad(lg_shuffle_create_layouts(&k, (lg_prop)7, &a, &b, 1, 3), "prop 7");
    expect_bad(lg_shuffle_create_layouts(&k, LG_FORWARD, &a, &b, 4, 3), "axis 4");
    expect_bad(lg_shuffle_create_layouts(&k, LG_FORWARD, &a, &b, -1, 3), "axis -1");
    expect_bad(lg_shuffle_create_layouts(&k, LG_FORWARD, &a, &b, 1, 0), "not positive");
    expect_bad(lg_shuffle_create_layouts(&k, LG_BACKWARD, &a, &b, 1, 5), "does not divide");
    cr_assert_eq(k, (lg_kernel *)0x1, "*k untouched on failure");
}

Test(shuffle_ex, empty_tensor) {
    int64_t dims[4] = {0, 16, 2, 2};
    lg_md a = make_md(0, dims, LG_F32), b = make_md(3, dims, LG_F32);
    lg_kernel *k;
    cr_assert_eq(lg_shuffle_create_layouts(&k, LG_FORWARD, &a, &b, 1, 4), LG_OK, "%s",
                 lg_last_error());
    lg_arg args[2] = {{LG_ARG_SRC, NULL}, {LG_ARG_DST, NULL}};
    lg_status s = lg_kernel_execute(k, 2, args);
    (void)s; /* an empty tensor may or may not require buffers; it must not crash */
    lg_kernel_destroy(k);
}
