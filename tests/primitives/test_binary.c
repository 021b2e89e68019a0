/* lg_binary_create through the public API: every algorithm, layout mix,
 * broadcast shape and data type against the scalar reference (bit for bit:
 * each element is one f32 operation), at every ISA cap; the fast paths are
 * taken where they should be; dst padding zero over garbage; in place; hand
 * values; every bad input. */
#include "memory/convert.h"
#include "primitives/binary/binary.h"
#include "test_util.h"

#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const int64_t gaps_small[4] = {649, 16, 5, 1};   /* 2x40x3x3 with gaps */
static const int64_t gaps_big[4] = {21905, 300, 17, 1}; /* 2x73x16x16 with gaps */
static const int64_t gaps_bc[4] = {1000, 100, 10, 2};   /* 1xCx1x1-ish broadcast, strided */

/* tag NULL: plain with `strides`. */
static lg_md make(int nd, const int64_t *dims, lg_dtype dt, const char *tag,
                  const int64_t *strides) {
    lg_md md;
    lg_status s = tag ? lg_md_init_tag(&md, nd, dims, dt, tag)
                      : lg_md_init_strides(&md, nd, dims, dt, strides);
    cr_assert_eq(s, LG_OK, "%s: %s", tag ? tag : "strides", lg_last_error());
    return md;
}

static bool next_idx(int64_t *idx, const int64_t *dims, int nd) {
    for (int d = nd - 1; d >= 0; d--) {
        if (++idx[d] < dims[d]) return true;
        idx[d] = 0;
    }
    return false;
}

static const float specials[] = {0.0f,      -0.0f, 1e-40f, -1e-40f, INFINITY,
                                 -INFINITY, NAN,   1e38f,  -3e38f,  1.0f};

/* A buffer for md: padding zero, gaps garbage, logical elements random. */
static void *make_buf(const lg_md *md, lg_rng *r) {
    size_t sz = lg_md_size(md);
    void *p = malloc(sz + 64);
    memset(p, md->blocking.inner_nblks ? 0 : 0x5a, sz + 64);
    int64_t idx[LG_MAX_NDIMS] = {0};
    if (lg__md_nelems(md) == 0) return p;
    do {
        float v = lg_rng_int(r, 0, 11) == 0 ? specials[lg_rng_int(r, 0, 9)]
                                            : lg_rng_float(r, -10.0f, 10.0f);
        lg__store_f32(p, md->dtype, lg_md_offset(md, idx), v);
    } while (next_idx(idx, md->dims, md->ndims));
    return p;
}

/* Run alg on (s0, s1, d) at every ISA cap against the reference (computed
 * once), out of place over garbage and, when src0 and dst share a md, in
 * place. path: the fast path expected (NULL: generic). */
static void check(int alg, const lg_md *s0, const lg_md *s1, const lg_md *d, const char *path,
                  lg_rng *r, const char *what) {
    lg__binary_pd pd;
    memset(&pd, 0, sizeof pd);
    pd.src0 = *s0;
    pd.src1 = *s1;
    pd.alg = alg;
    void *a = make_buf(s0, r), *b = make_buf(s1, r), *got = NULL, *want = NULL, *inp = NULL,
         *want_in = NULL;
    size_t dsz = 0;
    for (int isa = 0; isa <= (int)lg__cpu_isa_hw(); isa++) {
        lg__cpu_set_isa_cap(isa);
        lg_kernel *k = NULL;
        cr_assert_eq(lg_binary_create(&k, alg, s0, s1, d), LG_OK, "%s: %s", what, lg_last_error());
        char want_impl[64] = "binary:generic";
        if (path) snprintf(want_impl, sizeof want_impl, "binary:%s:%s", lg__isa_name(isa), path);
        cr_assert_str_eq(lg_kernel_impl(k), want_impl, "%s isa %d", what, isa);
        if (!want) {
            cr_assert_eq(lg_kernel_query_md(k, LG_ARG_DST, &pd.dst), LG_OK);
            dsz = lg_md_size(&pd.dst);
            got = malloc(dsz + 64), want = malloc(dsz + 64);
            memset(want, 0xa7, dsz + 64);
            lg__binary_ref(&pd, a, b, want);
            if (lg_md_equal(s0, &pd.dst)) {
                want_in = malloc(dsz + 64), inp = malloc(dsz + 64);
                memcpy(want_in, a, dsz); /* the gaps keep src0's bytes */
                lg__binary_ref(&pd, a, b, want_in);
            }
        }
        memset(got, 0xa7, dsz + 64);
        lg_arg args[3] = {{LG_ARG_SRC, a}, {LG_ARG_SRC + 1, b}, {LG_ARG_DST, got}};
        cr_assert_eq(lg_kernel_execute(k, 3, args), LG_OK, "%s: %s", what, lg_last_error());
        size_t esz = lg_dtype_size(pd.dst.dtype);
        if (memcmp(got, want, dsz) != 0)
            for (size_t i = 0; i < dsz / esz; i++)
                cr_assert(memcmp((char *)got + i * esz, (char *)want + i * esz, esz) == 0,
                          "%s isa %d: element %zu: got %g, want %g", what, isa, i,
                          (double)lg__load_f32(got, pd.dst.dtype, (int64_t)i),
                          (double)lg__load_f32(want, pd.dst.dtype, (int64_t)i));
        if (inp) {
            memcpy(inp, a, dsz);
            lg_arg in[3] = {{LG_ARG_SRC, inp}, {LG_ARG_SRC + 1, b}, {LG_ARG_DST, inp}};
            cr_assert_eq(lg_kernel_execute(k, 3, in), LG_OK, "%s in place: %s", what,
                         lg_last_error());
            cr_assert(memcmp(inp, want_in, dsz) == 0, "%s isa %d: in place differs", what, isa);
        }
        lg_kernel_destroy(k);
    }
    lg__cpu_set_isa_cap(-1);
    free(a);
    free(b);
    free(got);
    free(want);
    free(inp);
    free(want_in);
}

typedef struct bcase {
    const char *t0, *t1, *td; /* NULL: the matching gaps_* strides */
    int64_t s1[4];            /* src1 dims; 0 means src0's */
    const char *path;         /* expected fast path, NULL: generic */
} bcase;

static void run_cases(const bcase *cs, size_t nc, const int64_t *dims, const int64_t *gaps,
                      lg_dtype dt0, lg_dtype dt1, lg_dtype dtd, uint64_t seed) {
    lg_rng r = {seed};
    for (size_t c = 0; c < nc; c++) {
        int64_t d1[4];
        for (int i = 0; i < 4; i++) d1[i] = cs[c].s1[i] ? cs[c].s1[i] : dims[i];
        bool full = memcmp(d1, dims, sizeof d1) == 0;
        lg_md s0 = make(4, dims, dt0, cs[c].t0, gaps);
        lg_md s1 = make(4, d1, dt1, cs[c].t1, full ? gaps : gaps_bc);
        lg_md d = make(4, dims, dtd, cs[c].td, gaps);
        for (int alg = 0; alg <= LG_BINARY_NE; alg++) {
            char what[160];
            snprintf(what, sizeof what, "case %zu (%s,%s,%s) %s/%s/%s alg %d", c,
                     cs[c].t0 ? cs[c].t0 : "gaps", cs[c].t1 ? cs[c].t1 : "gaps",
                     cs[c].td ? cs[c].td : "gaps", lg_dtype_str(dt0), lg_dtype_str(dt1),
                     lg_dtype_str(dtd), alg);
            /* s8 / u8 operands always take the generic path. */
            bool ints = dt0 == LG_S8 || dt0 == LG_U8 || dt1 == LG_S8 || dt1 == LG_U8 ||
                        dtd == LG_S8 || dtd == LG_U8;
            check(alg, &s0, &s1, &d, ints ? NULL : cs[c].path, &r, what);
        }
    }
}

#define PC                                                                                         \
    { 1, 0, 1, 1 } /* per-channel */
#define SC                                                                                         \
    { 1, 1, 1, 1 } /* scalar */
#define FULL                                                                                       \
    { 0, 0, 0, 0 }
static const bcase cases[] = {
    {"nchw", "nchw", "nchw", FULL, "same_layout"},
    {"nhwc", "nhwc", "nhwc", FULL, "same_layout"},
    {"nChw16c", "nChw16c", "nChw16c", FULL, "same_layout"},
    {"nChw8c", "nChw8c", "nChw8c", FULL, "same_layout"},
    {"nchw", "nchw", "nchw", PC, "bcast_channel"},
    {"nChw16c", "nchw", "nChw16c", PC, "bcast_channel"},
    {"nChw8c", "nChw16c", "nChw8c", PC, "bcast_channel"},
    {"nChw16c", NULL, "nChw16c", PC, "bcast_channel"},
    {"nChw4c", "nchw", "nChw4c", SC, "bcast_channel"},
    {"nchw", "nchw", "nchw", SC, "bcast_channel"},
    {"nChw16c", "nchw", "nChw16c", FULL, NULL}, /* src1 in another layout */
    {"nchw", "nChw16c", "nChw8c", FULL, NULL},  /* three layouts */
    {"nhwc", "nchw", "nhwc", PC, "bcast_last"}, /* per-channel, channels last */
    {"nhwc", NULL, "nhwc", PC, "bcast_last"},   /* ... src1 strided: gathered */
    {"nhwc", "nhwc", "nhwc", SC, "bcast_scalar"},
    {"ABcd16a16b", "nchw", "ABcd16a16b", SC, "bcast_scalar"}, /* padding zeroed after */
    {"nChw16c", "nchw", "nchw", PC, NULL},                    /* dst differs from src0 */
    {"nchw", "nchw", "nchw", {1, 1, 0, 0}, NULL},             /* spatial broadcast */
    {"nChw16c", "nchw", "nChw16c", {0, 1, 1, 1}, NULL},       /* per image */
    {"nchw", "nhwc", "nchw", {0, 1, 0, 1}, NULL},             /* mixed */
    {NULL, NULL, NULL, FULL, NULL},                           /* gaps everywhere */
    {NULL, "nchw", "nChw16c", PC, NULL},
};

Test(binary, s8_u8_operands) {
    int64_t dims[4] = {2, 40, 3, 3};
    size_t n = sizeof cases / sizeof cases[0];
    run_cases(cases, n, dims, gaps_small, LG_S8, LG_U8, LG_S8, 21);
    run_cases(cases, n, dims, gaps_small, LG_U8, LG_F32, LG_U8, 22);
    run_cases(cases, n, dims, gaps_small, LG_F32, LG_S8, LG_BF16, 23);
}

/* src1 "any" takes src0's tag on src1's dims (row-major when src0 has no
 * tag), and the kernel then computes as with that layout given. */
Test(binary, src1_any) {
    int64_t dims[4] = {2, 20, 3, 5}, pc[4] = {1, 20, 1, 1}, st[4] = {700, 30, 10, 1};
    const struct {
        const char *t0; /* NULL: strided */
        const int64_t *d1;
        const char *want, *path;
    } c[] = {{"nChw16c", pc, "aBcd16b", "bcast_channel"},
             {"nhwc", dims, "acdb", "same_layout"},
             {NULL, pc, "abcd", NULL},
             {"nchw", pc, "abcd", "bcast_channel"}};
    lg_rng r = {31};
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        lg_md s0 = make(4, dims, LG_F32, c[i].t0, st), any, got, want;
        cr_assert_eq(lg_md_init_tag(&any, 4, c[i].d1, LG_F32, "any"), LG_OK);
        lg_kernel *k;
        cr_assert_eq(lg_binary_create(&k, LG_BINARY_GE, &s0, &any, &s0), LG_OK, "%s",
                     lg_last_error());
        cr_assert_eq(lg_kernel_query_md(k, LG_ARG_SRC + 1, &got), LG_OK);
        cr_assert_eq(lg_md_init_tag(&want, 4, c[i].d1, LG_F32, c[i].want), LG_OK);
        cr_assert(lg_md_equal(&got, &want), "case %zu: src1 'any' is not %s", i, c[i].want);
        lg_kernel_destroy(k);
        check(LG_BINARY_GE, &s0, &want, &s0, c[i].path, &r, "src1 any");
    }
}

Test(binary, comparisons_by_hand) {
    int64_t dims[2] = {1, 6};
    lg_md m;
    cr_assert_eq(lg_md_init_tag(&m, 2, dims, LG_F32, "ab"), LG_OK);
    const float a[6] = {1, 2, 3, NAN, -0.0f, INFINITY}, b[6] = {2, 2, 2, 1, 0.0f, INFINITY};
    /* ge gt le lt eq ne, per element */
    const float want[6][6] = {{0, 1, 1, 0, 1, 1}, {0, 0, 1, 0, 0, 0}, {1, 1, 0, 0, 1, 1},
                              {1, 0, 0, 0, 0, 0}, {0, 1, 0, 0, 1, 1}, {1, 0, 1, 1, 0, 0}};
    for (int isa = 0; isa <= (int)lg__cpu_isa_hw(); isa++) {
        lg__cpu_set_isa_cap(isa);
        for (int alg = LG_BINARY_GE; alg <= LG_BINARY_NE; alg++) {
            lg_kernel *k;
            cr_assert_eq(lg_binary_create(&k, alg, &m, &m, &m), LG_OK);
            float d[6];
            lg_arg args[3] = {
                {LG_ARG_SRC, (void *)a}, {LG_ARG_SRC + 1, (void *)b}, {LG_ARG_DST, d}};
            cr_assert_eq(lg_kernel_execute(k, 3, args), LG_OK);
            for (int i = 0; i < 6; i++)
                cr_assert(d[i] == want[alg - LG_BINARY_GE][i], "isa %d alg %d [%d]: %g", isa, alg,
                          i, (double)d[i]);
            lg_kernel_destroy(k);
        }
    }
    lg__cpu_set_isa_cap(-1);
}

Test(binary, f32_small_all_cases) {
    int64_t dims[4] = {2, 40, 3, 3};
    run_cases(cases, sizeof cases / sizeof cases[0], dims, gaps_small, LG_F32, LG_F32, LG_F32, 1);
}

Test(binary, f32_tails_threaded) {
    int64_t dims[4] = {2, 73, 16, 16};
    run_cases(cases, sizeof cases / sizeof cases[0], dims, gaps_big, LG_F32, LG_F32, LG_F32, 2);
}

Test(binary, mixed_types) {
    int64_t dims[4] = {2, 40, 3, 3};
    /* Every fast path with every mix of the three float types (each
     * operand converted on its own), and the generic path. */
    const bcase some[] = {{"nChw16c", "nChw16c", "nChw16c", FULL, "same_layout"},
                          {"nhwc", "nhwc", "nhwc", FULL, "same_layout"},
                          {"nChw16c", "nchw", "nChw16c", PC, "bcast_channel"},
                          {"nchw", "nhwc", "nchw", SC, "bcast_channel"},
                          {"nhwc", "nchw", "nhwc", PC, "bcast_last"},
                          {"nhwc", NULL, "nhwc", PC, "bcast_last"},
                          {"ABcd16a16b", "nhwc", "ABcd16a16b", SC, "bcast_scalar"},
                          {"nchw", "nhwc", "nChw8c", SC, NULL}};
    const lg_dtype t[3] = {LG_F32, LG_BF16, LG_F16};
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            for (int k = 0; k < 3; k++)
                if (i || j || k)
                    run_cases(some, sizeof some / sizeof some[0], dims, gaps_small, t[i], t[j],
                              t[k], (uint64_t)(10 + i * 9 + j * 3 + k));
}

/* Larger problems in 16-bit types: several CHUNK steps per thread, tails,
 * pixels of many channels (a tile of few repeats) and of more channels than
 * the tile holds (src1 read in place when f32, else the generic path). */
Test(binary, typed_larger_and_wide_channels) {
    int64_t dims[4] = {2, 73, 16, 16};
    const bcase some[] = {{"nChw16c", "nChw16c", "nChw16c", FULL, "same_layout"},
                          {"nChw16c", "nchw", "nChw16c", PC, "bcast_channel"},
                          {"nhwc", "nchw", "nhwc", PC, "bcast_last"}};
    run_cases(some, 3, dims, gaps_big, LG_BF16, LG_F32, LG_F16, 21);
    run_cases(some, 3, dims, gaps_big, LG_F16, LG_BF16, LG_BF16, 22);
    /* one 16-bit type throughout: bcast_last's tile is f32, its own kernel */
    run_cases(some, 3, dims, gaps_big, LG_BF16, LG_BF16, LG_BF16, 24);
    run_cases(some, 3, dims, gaps_big, LG_F16, LG_F16, LG_F16, 25);
    lg_rng r = {23};
    int64_t wide[4] = {2, 2100, 3, 1}, pc[4] = {1, 2100, 1, 1};
    lg_md a = make(4, wide, LG_BF16, "nhwc", NULL), d = make(4, wide, LG_F32, "nhwc", NULL);
    lg_md b32 = make(4, pc, LG_F32, "nchw", NULL), b16 = make(4, pc, LG_BF16, "nchw", NULL);
    for (int alg = 0; alg < 6; alg++) {
        check(alg, &a, &b32, &d, "bcast_last", &r, "C 2100, f32 src1 in place");
        check(alg, &a, &b16, &d, NULL, &r, "C 2100, bf16 src1: generic");
    }
}

Test(binary, two_dims_and_empty) {
    lg_rng r = {5};
    int64_t dims[2] = {5, 33}, pc[2] = {1, 33};
    lg_md a = make(2, dims, LG_F32, "aB16b", NULL), b = make(2, pc, LG_F32, "ab", NULL);
    check(LG_BINARY_MUL, &a, &b, &a, "bcast_channel", &r, "2d aB16b per-channel");
    lg_md p = make(2, dims, LG_F32, "ab", NULL);
    check(LG_BINARY_DIV, &p, &b, &p, "bcast_last", &r, "2d ab per-channel");
    int64_t zero[4] = {2, 0, 3, 3}, zb[4] = {1, 0, 1, 1};
    lg_md e0 = make(4, zero, LG_F32, "nChw16c", NULL), e1 = make(4, zb, LG_F32, "nchw", NULL);
    lg_kernel *k;
    cr_assert_eq(lg_binary_create(&k, LG_BINARY_ADD, &e0, &e1, &e0), LG_OK, "%s", lg_last_error());
    lg_arg args[3] = {{LG_ARG_SRC, NULL}, {LG_ARG_SRC + 1, NULL}, {LG_ARG_DST, NULL}};
    cr_assert_eq(lg_kernel_execute(k, 3, args), LG_OK, "%s", lg_last_error());
    lg_kernel_destroy(k);
}

Test(binary, hand_values_and_dst_any) {
    int64_t dims[4] = {1, 2, 1, 3}, pc[4] = {1, 2, 1, 1};
    lg_md s0, s1, any;
    lg_md_init_tag(&s0, 4, dims, LG_F32, "nchw");
    lg_md_init_tag(&s1, 4, pc, LG_F32, "nchw");
    lg_md_init_tag(&any, 4, dims, LG_BF16, "any");
    float a[6] = {1, -2, 3, 0, NAN, 8}, b[2] = {2, 0};
    const float want[6][6] = {
        {3, 0, 5, 0, NAN, 8},                 /* add */
        {-1, -4, 1, 0, NAN, 8},               /* sub */
        {2, -4, 6, 0, NAN, 0},                /* mul */
        {0.5f, -1, 1.5f, NAN, NAN, INFINITY}, /* div: 0/0, NaN/0, 8/0 */
        {1, -2, 2, 0, 0, 0},                  /* min: b when a is NaN */
        {2, 2, 3, 0, 0, 8},                   /* max */
    };
    for (int isa = 0; isa <= (int)lg__cpu_isa_hw(); isa++) {
        lg__cpu_set_isa_cap(isa);
        for (int alg = 0; alg < 6; alg++) { /* the comparisons: comparisons_by_hand */
            lg_kernel *k;
            cr_assert_eq(lg_binary_create(&k, alg, &s0, &s1, &s0), LG_OK);
            float d[6];
            lg_arg args[3] = {{LG_ARG_SRC, a}, {LG_ARG_SRC + 1, b}, {LG_ARG_DST, d}};
            cr_assert_eq(lg_kernel_execute(k, 3, args), LG_OK);
            for (int i = 0; i < 6; i++)
                cr_assert(isnan(want[alg][i]) ? isnan(d[i]) : d[i] == want[alg][i],
                          "isa %d alg %d [%d]: %g, want %g", isa, alg, i, (double)d[i],
                          (double)want[alg][i]);
            lg_kernel_destroy(k);
        }
    }
    lg__cpu_set_isa_cap(-1);
    /* dst "any": src0's layout in dst's type. */
    lg_md blocked, q;
    lg_md_init_tag(&blocked, 4, dims, LG_F32, "nChw8c");
    lg_kernel *k;
    cr_assert_eq(lg_binary_create(&k, LG_BINARY_ADD, &blocked, &s1, &any), LG_OK);
    cr_assert_eq(lg_kernel_query_md(k, LG_ARG_DST, &q), LG_OK);
    lg_md expect;
    lg_md_init_tag(&expect, 4, dims, LG_BF16, "nChw8c");
    cr_assert(lg_md_equal(&q, &expect));
    lg_kernel_destroy(k);
}

static void expect_error(lg_status got, lg_status want, const char *word) {
    cr_assert_eq(got, want, "status %s, want %s (%s)", lg_status_str(got), lg_status_str(want),
                 lg_last_error());
    cr_assert(strstr(lg_last_error(), word), "message '%s' should name '%s'", lg_last_error(),
              word);
}

Test(binary, bad_inputs) {
    int64_t dims[4] = {2, 3, 4, 5}, bad[4] = {2, 2, 4, 5}, d3[3] = {2, 3, 4};
    lg_md m, any, zero, wrong, m3, s8, bc; /* s8: an s32 md, a type binary does not take */
    lg_md_init_tag(&m, 4, dims, LG_F32, "nchw");
    lg_md_init_tag(&any, 4, dims, LG_F32, "any");
    lg_md_init_tag(&wrong, 4, bad, LG_F32, "nchw");
    lg_md_init_tag(&m3, 3, d3, LG_F32, "abc");
    lg_md_init_tag(&s8, 4, dims, LG_S32, "nchw");
    int64_t one[4] = {1, 3, 1, 5};
    lg_md_init_tag(&bc, 4, one, LG_F32, "nchw");
    memset(&zero, 0, sizeof zero);
    lg_kernel *k;
    expect_error(lg_binary_create(NULL, LG_BINARY_ADD, &m, &m, &m), LG_INVALID_ARGUMENT, "kernel");
    expect_error(lg_binary_create(&k, LG_BINARY_ADD, NULL, &m, &m), LG_INVALID_ARGUMENT, "src0");
    expect_error(lg_binary_create(&k, LG_BINARY_ADD, &m, NULL, &m), LG_INVALID_ARGUMENT, "src1");
    expect_error(lg_binary_create(&k, LG_BINARY_ADD, &m, &m, NULL), LG_INVALID_ARGUMENT, "dst");
    expect_error(lg_binary_create(&k, LG_BINARY_ADD, &zero, &m, &m), LG_INVALID_ARGUMENT,
                 "src0 md is not initialised");
    expect_error(lg_binary_create(&k, LG_BINARY_ADD, &m, &zero, &m), LG_INVALID_ARGUMENT,
                 "src1 md is not initialised");
    expect_error(lg_binary_create(&k, LG_BINARY_ADD, &m, &m, &zero), LG_INVALID_ARGUMENT,
                 "dst md is not initialised");
    expect_error(lg_binary_create(&k, LG_BINARY_ADD, &any, &m, &m), LG_INVALID_ARGUMENT,
                 "src0 md is 'any'");
    expect_error(lg_binary_create(&k, (lg_binary_alg)12, &m, &m, &m), LG_INVALID_ARGUMENT, "alg");
    expect_error(lg_binary_create(&k, (lg_binary_alg)-1, &m, &m, &m), LG_INVALID_ARGUMENT, "alg");
    expect_error(lg_binary_create(&k, LG_BINARY_ADD, &m, &m3, &m), LG_INVALID_ARGUMENT, "src1");
    expect_error(lg_binary_create(&k, LG_BINARY_ADD, &m, &m, &m3), LG_INVALID_ARGUMENT, "dst");
    expect_error(lg_binary_create(&k, LG_BINARY_ADD, &m, &wrong, &m), LG_INVALID_ARGUMENT,
                 "src1 dims[1]");
    expect_error(lg_binary_create(&k, LG_BINARY_ADD, &m, &m, &wrong), LG_INVALID_ARGUMENT, "dst");
    expect_error(lg_binary_create(&k, LG_BINARY_ADD, &bc, &m, &bc), LG_INVALID_ARGUMENT, "src1");
    expect_error(lg_binary_create(&k, LG_BINARY_ADD, &s8, &m, &m), LG_UNIMPLEMENTED, "src0");
    expect_error(lg_binary_create(&k, LG_BINARY_ADD, &m, &s8, &m), LG_UNIMPLEMENTED, "src1");
    expect_error(lg_binary_create(&k, LG_BINARY_ADD, &m, &m, &s8), LG_UNIMPLEMENTED, "dst");
    /* In place is src0 with dst (equal mds); src1 with dst is an overlap. */
    cr_assert_eq(lg_binary_create(&k, LG_BINARY_ADD, &m, &m, &m), LG_OK);
    float *buf = calloc(120, sizeof *buf), *other = calloc(120, sizeof *other);
    lg_arg ok[3] = {{LG_ARG_SRC, buf}, {LG_ARG_SRC + 1, other}, {LG_ARG_DST, buf}};
    cr_assert_eq(lg_kernel_execute(k, 3, ok), LG_OK, "%s", lg_last_error());
    lg_arg no[3] = {{LG_ARG_SRC, other}, {LG_ARG_SRC + 1, buf}, {LG_ARG_DST, buf}};
    expect_error(lg_kernel_execute(k, 3, no), LG_INVALID_ARGUMENT, "overlap");
    free(buf);
    free(other);
    lg_kernel_destroy(k);
}

/* The floats right before and right after the n of dst, set to 0xff bytes
 * before the run, are untouched. */
static void assert_guards(const float *d, int64_t n) {
    uint32_t g0, g1;
    memcpy(&g0, &d[-1], 4);
    memcpy(&g1, &d[n], 4);
    cr_assert(g0 == 0xffffffffu && g1 == 0xffffffffu, "wrote outside dst");
}

Test(binary, large_streaming_and_misaligned) {
    /* 1x4x720x1000 f32 (11.5 MB each, 34.6 MB touched): non-temporal
     * stores, dst one float off alignment. */
    int64_t dims[4] = {1, 4, 720, 1000};
    lg_md md;
    lg_md_init_tag(&md, 4, dims, LG_F32, "nchw");
    int64_t n = lg__md_nelems(&md);
    float *a = malloc((size_t)n * 4), *b = malloc((size_t)n * 4);
    float *buf = malloc((size_t)(n + 16) * 4), *d = buf + 1;
    for (int64_t i = 0; i < n; i++) {
        a[i] = (float)(i % 1009) * 0.5f - 100.0f;
        b[i] = (float)(i % 13) - 6.0f;
    }
    for (int isa = 0; isa <= (int)lg__cpu_isa_hw(); isa++) {
        lg__cpu_set_isa_cap(isa);
        for (int alg = 0; alg < 6; alg += 3) { /* add, div */
            lg_kernel *k;
            cr_assert_eq(lg_binary_create(&k, alg, &md, &md, &md), LG_OK);
            memset(buf, 0xff, (size_t)(n + 16) * 4);
            lg_arg args[3] = {{LG_ARG_SRC, a}, {LG_ARG_SRC + 1, b}, {LG_ARG_DST, d}};
            cr_assert_eq(lg_kernel_execute(k, 3, args), LG_OK);
            for (int64_t i = 0; i < n; i++) {
                float want = lg__binary_fwd(alg, a[i], b[i]);
                cr_assert(memcmp(&d[i], &want, 4) == 0, "isa %d alg %d [%lld]", isa, alg,
                          (long long)i);
            }
            assert_guards(d, n);
            lg_kernel_destroy(k);
        }
    }
    lg__cpu_set_isa_cap(-1);
    free(a);
    free(b);
    free(buf);
}

Test(binary, large_per_channel_streaming) {
    /* 1x4x1024x1024 f32 with a per-channel src1 (bcast_channel; 32 MB of
     * src0 + dst: non-temporal stores), dst 64-byte aligned (rows streamed)
     * and one float off (no row aligned: plain stores). */
    int64_t dims[4] = {1, 4, 1024, 1024}, pc[4] = {1, 4, 1, 1};
    lg_md md, m1;
    lg_md_init_tag(&md, 4, dims, LG_F32, "nchw");
    lg_md_init_tag(&m1, 4, pc, LG_F32, "nchw");
    int64_t n = lg__md_nelems(&md), plane = n / 4;
    float *a = malloc((size_t)n * 4), b[4] = {1.5f, -2.0f, 0.25f, 3.0f};
    float *buf = aligned_alloc(64, (size_t)(n + 32) * 4);
    for (int64_t i = 0; i < n; i++) a[i] = (float)(i % 1009) * 0.5f - 100.0f;
    for (int isa = 0; isa <= (int)lg__cpu_isa_hw(); isa++) {
        lg__cpu_set_isa_cap(isa);
        for (int off = 0; off < 2; off++) {
            float *d = buf + 16 * (1 - off) + off;
            lg_kernel *k;
            cr_assert_eq(lg_binary_create(&k, LG_BINARY_MUL, &md, &m1, &md), LG_OK);
            if (isa > 0)
                cr_assert(strstr(lg_kernel_impl(k), "bcast_channel"), "%s", lg_kernel_impl(k));
            memset(buf, 0xff, (size_t)(n + 32) * 4);
            lg_arg args[3] = {{LG_ARG_SRC, a}, {LG_ARG_SRC + 1, b}, {LG_ARG_DST, d}};
            cr_assert_eq(lg_kernel_execute(k, 3, args), LG_OK);
            for (int64_t i = 0; i < n; i++) {
                float want = lg__binary_fwd(LG_BINARY_MUL, a[i], b[i / plane]);
                cr_assert(memcmp(&d[i], &want, 4) == 0, "isa %d off %d [%lld]", isa, off,
                          (long long)i);
            }
            assert_guards(d, n);
            lg_kernel_destroy(k);
        }
    }
    lg__cpu_set_isa_cap(-1);
    free(a);
    free(buf);
}

Test(binary, out_of_memory) {
    /* The generic path allocates offset tables and a padding table: each
     * allocation fails in turn (LG_OUT_OF_MEMORY, nothing leaked), then it
     * succeeds. */
    int64_t dims[4] = {2, 20, 3, 3};
    lg_md s0, s1, d;
    lg_md_init_tag(&s0, 4, dims, LG_F32, "nchw");
    lg_md_init_tag(&s1, 4, dims, LG_F32, "nhwc");
    lg_md_init_tag(&d, 4, dims, LG_F32, "nChw16c");
    lg_kernel_cache_set_capacity(0);
    bool ok = false;
    for (int n = 0; n < 32 && !ok; n++) {
        lg_kernel *k = NULL;
        lg__alloc_fail_after(n);
        lg_status s = lg_binary_create(&k, LG_BINARY_SUB, &s0, &s1, &d);
        lg__alloc_fail_after(-1);
        if (s == LG_OK) {
            ok = true;
            cr_assert_str_eq(lg_kernel_impl(k), "binary:generic");
            lg_kernel_destroy(k);
        } else {
            cr_assert_eq(s, LG_OUT_OF_MEMORY, "failing allocation %d gave %s", n, lg_status_str(s));
        }
    }
    cr_assert(ok);
}
