/* lg_shuffle_create: hand-computed semantics, every path against the scalar
 * reference byte for byte, and every bad input.
 *
 * A check runs a problem on random src bytes (src padding zeroed, as the
 * contract assumes) into a dst pre-filled with garbage, and compares the
 * whole dst buffer with the reference's: values, zeroed padding and
 * untouched gaps. Plan-level checks build the plan for every ISA level the
 * CPU has (lg__shuffle_plan) and record which mode / vector kind / pairs ran,
 * so that the random test can assert that every path was exercised;
 * API-level checks go through lg_shuffle_create under lg__cpu_set_isa_cap. */
#include "primitives/shuffle/shuffle.h"

#include "test_util.h"

#include <criterion/criterion.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const lg_dtype all_dt[6] = {LG_F32, LG_F16, LG_BF16, LG_S32, LG_S8, LG_U8};

static lg_md md_tag(int nd, const int64_t *dims, lg_dtype dt, const char *tag) {
    lg_md md;
    cr_assert_eq(lg_md_init_tag(&md, nd, dims, dt, tag), LG_OK, "%s: %s", tag, lg_last_error());
    return md;
}

static bool next_index(int64_t *idx, const int64_t *ext, int nd) {
    for (int d = nd - 1; d >= 0; d--) {
        if (++idx[d] < ext[d]) return true;
        idx[d] = 0;
    }
    return false;
}

/* Random bytes everywhere, then zeros on md's padding. */
static void *make_src(const lg_md *md, lg_rng *r) {
    size_t n = lg_md_size(md);
    uint8_t *b = malloc(n + 64);
    cr_assert(b);
    for (size_t i = 0; i < n; i++) b[i] = (uint8_t)lg_rng_next(r);
    if (lg__md_has_padding(md) && lg__md_nelems(md) > 0) {
        size_t esz = lg_dtype_size(md->dtype);
        int64_t idx[LG_MAX_NDIMS] = {0};
        do {
            bool pad = false;
            for (int d = 0; d < md->ndims; d++) pad = pad || idx[d] >= md->dims[d];
            if (pad) memset(b + lg__md_off(md, idx) * (int64_t)esz, 0, esz);
        } while (next_index(idx, md->padded_dims, md->ndims));
    }
    return b;
}

/* Paths exercised by plan-level checks: [mode][vec][pairs]; PERMUTE plans
 * whose windows span several pixels, per vec, and those with a partial
 * group at the end of a row. */
static int seen[3][5][2], seen_group[5], seen_tail;
/* Tiled PERMUTE plans per vector kind and tile size k (2, 4, 8); plans
 * that stream dst, and tiled ones among them that prefetch src. */
static int seen_tile[5][9], seen_stream, seen_tile_pf;

static void describe(const lg__shuffle_pd *pd, char *buf, size_t len) {
    char m[96];
    lg__md_describe(&pd->src, m, sizeof m);
    snprintf(buf, len, "%s %s axis %d group %lld", pd->prop == LG_FORWARD ? "fwd" : "bwd", m,
             (int)pd->axis, (long long)pd->group);
}

/* The plan for every ISA level, and the kernel lg_shuffle_create gives
 * under that ISA cap, against the reference; dst at byte offset `mis` from
 * a 64-byte boundary (non-zero: streaming must switch off). */
static void check_plans(const lg__shuffle_pd *pd, lg_rng *r, size_t mis) {
    char what[160];
    describe(pd, what, sizeof what);
    size_t n = lg_md_size(&pd->src);
    void *src = make_src(&pd->src, r);
    uint8_t *want = aligned_alloc(64, (n + mis + 64 + 63) & ~(size_t)63);
    uint8_t *got = aligned_alloc(64, (n + mis + 64 + 63) & ~(size_t)63);
    cr_assert(want && got);
    memset(want, 0xA5, n + mis + 64);
    lg__shuffle_ref(pd, src, want + mis);
    for (int isa = LG_ISA_SCALAR; isa <= (int)lg__cpu_isa_hw(); isa++) {
        lg__shuf_plan *p;
        cr_assert_eq(lg__shuffle_plan(pd, (lg__isa)isa, &p), LG_OK, "%s", what);
        memset(got, 0xA5, n + mis + 64);
        lg__shuffle_exec(p, src, got + mis);
        bool pairs = false;
        for (int w = 0; p->mode == LG_SHUF_PERMUTE && w < p->nwin; w++)
            pairs = pairs || p->win[w].nseg < 0;
        seen[p->mode][p->mode == LG_SHUF_PERMUTE ? p->vec : 0][pairs]++;
        if (p->mode == LG_SHUF_PERMUTE && p->tile_k) seen_tile[p->vec][p->tile_k]++;
        seen_stream += p->stream && mis == 0;
        seen_tile_pf += p->mode == LG_SHUF_PERMUTE && p->tile_k && p->tile_pf > 0;
        if (p->mode == LG_SHUF_PERMUTE && p->m > 1) {
            seen_group[p->vec]++;
            seen_tail += p->in_n % p->m != 0;
        }
        if (memcmp(want, got, n + mis + 64) != 0) {
            size_t i = 0;
            while (want[i] == got[i]) i++;
            cr_assert_fail("%s, isa %s, path %s: byte %zu differs (%02x vs ref %02x)", what,
                           lg__isa_name((lg__isa)isa), p->impl, i - mis, got[i], want[i]);
        }
        lg__shuffle_plan_free(p);
        /* The same ISA through the API: lg_shuffle_create under the cap (the
         * ISA is part of the cache key, so each level has its kernel). */
        lg__cpu_set_isa_cap(isa);
        lg_kernel *k;
        cr_assert_eq(lg_shuffle_create(&k, (lg_prop)pd->prop, &pd->src, pd->axis, pd->group), LG_OK,
                     "%s: %s", what, lg_last_error());
        memset(got, 0xA5, n + mis + 64);
        bool fwd = pd->prop == LG_FORWARD;
        lg_arg args[2] = {{fwd ? LG_ARG_SRC : LG_ARG_DIFF_DST, src},
                          {fwd ? LG_ARG_DST : LG_ARG_DIFF_SRC, got + mis}};
        cr_assert_eq(lg_kernel_execute(k, 2, args), LG_OK, "%s", lg_last_error());
        cr_assert(memcmp(want, got, n + mis + 64) == 0, "%s, isa cap %s, kernel %s: differs", what,
                  lg__isa_name((lg__isa)isa), lg_kernel_impl(k));
        lg_kernel_destroy(k);
        lg__cpu_set_isa_cap(-1);
    }
    free(src);
    free(want);
    free(got);
}

static lg__shuffle_pd make_pd(const lg_md *md, int axis, int64_t g, lg_prop prop) {
    lg__shuffle_pd pd;
    memset(&pd, 0, sizeof pd);
    lg__md_canon(md, &pd.src);
    pd.dst = pd.src;
    pd.axis = axis;
    pd.group = g;
    pd.prop = prop;
    return pd;
}

/* Through the public API under each ISA cap: the kernel's impl must start
 * with want[isa] (NULL: anything) and its output equal the reference's. */
static void check_api(const lg_md *md, int axis, int64_t g, lg_prop prop, const char *const *want,
                      lg_rng *r) {
    lg__shuffle_pd pd = make_pd(md, axis, g, prop);
    char what[160];
    describe(&pd, what, sizeof what);
    size_t n = lg_md_size(md);
    void *src = make_src(md, r);
    uint8_t *ref = malloc(n + 1), *got = malloc(n + 1);
    memset(ref, 0x5A, n + 1);
    lg__shuffle_ref(&pd, src, ref);
    for (int isa = LG_ISA_SCALAR; isa <= (int)lg__cpu_isa_hw(); isa++) {
        lg__cpu_set_isa_cap(isa);
        lg_kernel *k;
        cr_assert_eq(lg_shuffle_create(&k, prop, md, axis, g), LG_OK, "%s: %s", what,
                     lg_last_error());
        const char *impl = lg_kernel_impl(k);
        if (want && want[isa])
            cr_assert(strncmp(impl, want[isa], strlen(want[isa])) == 0, "%s, isa %d: impl %s", what,
                      isa, impl);
        memset(got, 0x5A, n + 1);
        bool fwd = prop == LG_FORWARD;
        lg_arg args[2] = {{fwd ? LG_ARG_SRC : LG_ARG_DIFF_DST, src},
                          {fwd ? LG_ARG_DST : LG_ARG_DIFF_SRC, got}};
        cr_assert_eq(lg_kernel_execute(k, 2, args), LG_OK, "%s", lg_last_error());
        cr_assert(memcmp(ref, got, n + 1) == 0, "%s, %s: differs from the reference", what, impl);
        lg_kernel_destroy(k);
    }
    lg__cpu_set_isa_cap(-1);
    free(src);
    free(ref);
    free(got);
}

Test(shuffle, hand_computed_c6_g2) {
    /* C = 6, G = 2: c' for c = 0..5 is 0, 2, 4, 1, 3, 5; backward (G = 3): 0, 3, 1, 4, 2, 5. */
    int64_t dims[2] = {2, 6};
    const int fwd[6] = {0, 2, 4, 1, 3, 5}, bwd[6] = {0, 3, 1, 4, 2, 5};
    for (int isa = LG_ISA_SCALAR; isa <= (int)lg__cpu_isa_hw(); isa++)
        for (int t = 0; t < 2; t++) {
            lg__cpu_set_isa_cap(isa);
            lg_md md = md_tag(2, dims, LG_S32, t ? "ba" : "ab");
            int32_t src[12], dst[12];
            for (int n = 0; n < 2; n++)
                for (int c = 0; c < 6; c++) src[t ? c * 2 + n : n * 6 + c] = 100 * n + c;
            for (int prop = 0; prop < 2; prop++) {
                lg_kernel *k;
                cr_assert_eq(lg_shuffle_create(&k, (lg_prop)prop, &md, 1, 2), LG_OK, "%s",
                             lg_last_error());
                lg_arg args[2] = {{prop ? LG_ARG_DIFF_DST : LG_ARG_SRC, src},
                                  {prop ? LG_ARG_DIFF_SRC : LG_ARG_DST, dst}};
                cr_assert_eq(lg_kernel_execute(k, 2, args), LG_OK, "%s", lg_last_error());
                for (int n = 0; n < 2; n++)
                    for (int c = 0; c < 6; c++)
                        cr_assert_eq(dst[t ? c * 2 + n : n * 6 + c],
                                     100 * n + (prop ? bwd[c] : fwd[c]), "isa %d %s %s n%d c%d",
                                     isa, t ? "ba" : "ab", prop ? "bwd" : "fwd", n, c);
                lg_kernel_destroy(k);
            }
        }
    lg__cpu_set_isa_cap(-1);
}

Test(shuffle, backward_is_forward_with_c_over_g) {
    lg_rng r = {7};
    int64_t dims[4] = {2, 48, 3, 5};
    const char *tags[3] = {"nchw", "nhwc", "nChw16c"};
    for (int t = 0; t < 3; t++)
        for (int64_t g = 1; g <= 48; g++) {
            if (48 % g) continue;
            lg_md md = md_tag(4, dims, LG_F32, tags[t]);
            size_t n = lg_md_size(&md);
            void *src = make_src(&md, &r);
            uint8_t *a = malloc(n), *b = malloc(n);
            lg_kernel *kb, *kf;
            cr_assert_eq(lg_shuffle_create(&kb, LG_BACKWARD, &md, 1, g), LG_OK);
            cr_assert_eq(lg_shuffle_create(&kf, LG_FORWARD, &md, 1, 48 / g), LG_OK);
            lg_arg ab[2] = {{LG_ARG_DIFF_DST, src}, {LG_ARG_DIFF_SRC, a}};
            lg_arg af[2] = {{LG_ARG_SRC, src}, {LG_ARG_DST, b}};
            cr_assert_eq(lg_kernel_execute(kb, 2, ab), LG_OK, "%s", lg_last_error());
            cr_assert_eq(lg_kernel_execute(kf, 2, af), LG_OK, "%s", lg_last_error());
            cr_assert(memcmp(a, b, n) == 0, "%s g %lld", tags[t], (long long)g);
            /* Forward then backward is the identity. */
            lg_arg back[2] = {{LG_ARG_DIFF_DST, b}, {LG_ARG_DIFF_SRC, a}};
            lg_kernel *kb2;
            cr_assert_eq(lg_shuffle_create(&kb2, LG_BACKWARD, &md, 1, 48 / g), LG_OK);
            cr_assert_eq(lg_kernel_execute(kb2, 2, back), LG_OK);
            cr_assert(memcmp(a, src, n) == 0, "%s g %lld: round trip", tags[t], (long long)g);
            lg_kernel_destroy(kb);
            lg_kernel_destroy(kf);
            lg_kernel_destroy(kb2);
            free(src);
            free(a);
            free(b);
        }
}

Test(shuffle, named_cases_every_isa_and_type) {
    lg_rng r = {11};
    const char *blk512[3] = {"shuffle:table", "shuffle:avx2:blocked8", "shuffle:avx512:blocked16"};
    const char *planes[3] = {"shuffle:planes", "shuffle:planes", "shuffle:planes"};
    const char *inner[3] = {"shuffle:table", "shuffle:avx2:innermost", "shuffle:avx512:innermost"};
    const char *small[3] = {"shuffle:table", "shuffle:avx2:innermost8x",
                            "shuffle:avx512:innermost16x"};
    const char *blk8[3] = {"shuffle:table", "shuffle:avx2:blocked8",
                           "shuffle:avx512:blocked16x2px"};
    struct {
        int64_t dims[4];
        const char *tag;
        int64_t g;
        const char *const *want; /* for f32 */
    } cases[] = {
        {{2, 282, 3, 2}, "aBcd16b", 3, blk512}, {{2, 116, 3, 3}, "nChw16c", 2, blk512},
        {{1, 60, 4, 3}, "nChw16c", 20, blk512}, {{2, 60, 5, 3}, "nchw", 4, planes},
        {{2, 256, 2, 3}, "nhwc", 4, inner},     {{2, 256, 2, 2}, "nhwc", 16, inner},
        {{2, 64, 3, 3}, "nChw8c", 8, NULL},     {{1, 120, 2, 2}, "nChw4c", 3, NULL},
        {{3, 36, 2, 2}, "nhwc", 12, inner},     {{2, 282, 2, 1}, "nhwc", 3, NULL},
        {{2, 48, 3, 2}, "ABcd16b16a", 4, NULL}, {{4, 40, 3, 2}, "ABcd4b16a4b", 5, NULL},
        {{2, 32, 3, 3}, "Acdb16a", 2, NULL},    {{17, 24, 2, 2}, "aBcd8b", 6, blk8},
        {{2, 4, 5, 3}, "nhwc", 2, small},       {{3, 6, 4, 3}, "nhwc", 3, small},
        {{2, 12, 3, 7}, "nhwc", 4, NULL},       {{2, 2, 3, 1}, "nhwc", 2, NULL},
        {{1, 20, 1, 1}, "nChw16c", 4, NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        for (int t = 0; t < 6; t++)
            for (int prop = 0; prop < 2; prop++) {
                lg_md md = md_tag(4, cases[i].dims, all_dt[t], cases[i].tag);
                check_api(&md, 1, cases[i].g, (lg_prop)prop,
                          all_dt[t] == LG_F32 ? cases[i].want : NULL, &r);
                lg__shuffle_pd pd = make_pd(&md, 1, cases[i].g, (lg_prop)prop);
                check_plans(&pd, &r, 0);
            }
}

/* Random tags: a permutation of the dims, maybe one blocked dim (often the
 * axis) with one or two blocks. */
static void random_tag(lg_rng *r, int nd, int axis, char *tag) {
    int order[LG_MAX_NDIMS];
    for (int i = 0; i < nd; i++) order[i] = i;
    int kind = (int)lg_rng_int(r, 0, 5);
    if (kind >= 3) /* a random permutation */
        for (int i = nd - 1; i > 0; i--) {
            int j = (int)lg_rng_int(r, 0, i), t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
    else if (kind == 2 && nd > 2) { /* channels last */
        for (int i = axis; i < nd - 1; i++) order[i] = order[i + 1];
        order[nd - 1] = axis;
    }
    int bd = -1, bd2 = -1;
    int64_t b = 0, b2 = 0;
    static const int64_t blks[4] = {4, 8, 16, 2};
    if (lg_rng_int(r, 0, 2) > 0) {
        bd = lg_rng_int(r, 0, 3) > 0 ? axis : (int)lg_rng_int(r, 0, nd - 1);
        b = blks[lg_rng_int(r, 0, 3)];
        if (lg_rng_int(r, 0, 5) == 0)
            bd2 = (int)lg_rng_int(r, 0, nd - 1), b2 = blks[lg_rng_int(r, 0, 2)];
    }
    int n = 0;
    for (int i = 0; i < nd; i++) {
        int d = order[i];
        tag[n++] = (char)((d == bd || d == bd2 ? 'A' : 'a') + d);
    }
    if (bd2 >= 0) n += sprintf(tag + n, "%lld%c", (long long)b2, 'a' + bd2);
    if (bd >= 0) n += sprintf(tag + n, "%lld%c", (long long)b, 'a' + bd);
    tag[n] = 0;
    /* oneDNN's "x" shorthand for the plain-order channel-blocked family. */
    if (bd == 1 && bd2 < 0 && nd >= 3 && kind < 2 && lg_rng_int(r, 0, 1))
        sprintf(tag, "aBx%lldb", (long long)b);
}

static void random_problem(lg_rng *r, lg__shuffle_pd *pd) {
    static const int64_t groups[6] = {2, 3, 4, 8, 16, 1};
    int nd = (int)lg_rng_int(r, 1, 5), axis = (int)lg_rng_int(r, 0, nd - 1);
    int64_t dims[LG_MAX_NDIMS], g = groups[lg_rng_int(r, 0, 5)];
    int64_t budget = 6000;
    dims[axis] = g * lg_rng_int(r, 1, lg_rng_int(r, 0, 3) ? 8 : 40);
    if (lg_rng_int(r, 0, 3) == 0) g = dims[axis] / g; /* C / G */
    budget /= dims[axis];
    for (int d = 0; d < nd; d++) {
        if (d == axis) continue;
        int64_t hi = budget < 2 ? 1 : (budget < 9 ? budget : 9);
        dims[d] = lg_rng_int(r, 1, hi);
        budget /= dims[d];
    }
    lg_dtype dt = all_dt[lg_rng_int(r, 0, 5)];
    lg_md md;
    if (lg_rng_int(r, 0, 4) == 0) { /* strided with gaps */
        int order[LG_MAX_NDIMS];
        for (int i = 0; i < nd; i++) order[i] = i;
        for (int i = nd - 1; i > 0; i--) {
            int j = (int)lg_rng_int(r, 0, i), t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
        int64_t st[LG_MAX_NDIMS], s = lg_rng_int(r, 1, 2);
        for (int i = nd - 1; i >= 0; i--) {
            st[order[i]] = s;
            s = s * dims[order[i]] + lg_rng_int(r, 0, 3);
        }
        cr_assert_eq(lg_md_init_strides(&md, nd, dims, dt, st), LG_OK, "%s", lg_last_error());
    } else {
        char tag[64];
        random_tag(r, nd, axis, tag);
        cr_assert_eq(lg_md_init_tag(&md, nd, dims, dt, tag), LG_OK, "%s: %s", tag, lg_last_error());
    }
    *pd = make_pd(&md, axis, g, (lg_prop)lg_rng_int(r, 0, 1));
}

Test(shuffle, random_problems_every_path) {
    lg_rng r = {2024};
    memset(seen, 0, sizeof seen);
    memset(seen_group, 0, sizeof seen_group);
    memset(seen_tile, 0, sizeof seen_tile);
    seen_tail = 0;
    for (int i = 0; i < 1500; i++) {
        lg__shuffle_pd pd;
        random_problem(&r, &pd);
        check_plans(&pd, &r, 0);
    }
    /* Targeted problems for the paths random shapes rarely reach: windows
     * of many segments (large G and C/G: pairs, generic loops) in every
     * vector kind, each type, both props. */
    static const struct {
        int64_t dims[4];
        const char *tag;
        int64_t g;
    } t[] = {
        {{2, 256, 2, 2}, "nhwc", 16},
        {{2, 64, 3, 2}, "nhwc", 8},
        {{1, 96, 2, 3}, "nChw16c", 32},
        {{1, 1024, 1, 2}, "nhwc", 32},
        {{2, 256, 1, 1}, "nChw16c", 16},
        {{2, 512, 1, 1}, "nChw16c", 32},
        /* Tiles: G or C/G of 2, 4, 8 with the other a multiple of 16 or 32
         * (backward swaps the two), and near misses that must not tile. */
        {{2, 64, 3, 1}, "nhwc", 2},
        {{1, 256, 2, 3}, "nhwc", 4},
        {{3, 256, 1, 2}, "nhwc", 8},
        {{2, 128, 1, 3}, "nhwc", 4},
        {{2, 48, 2, 1}, "nhwc", 2},
        {{2, 96, 2, 1}, "nhwc", 3},
        {{2, 512, 1, 1}, "nhwc", 16},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        for (int d = 0; d < 6; d++)
            for (int prop = 0; prop < 2; prop++) {
                lg_md md = md_tag(4, t[i].dims, all_dt[d], t[i].tag);
                lg__shuffle_pd pd = make_pd(&md, 1, t[i].g, (lg_prop)prop);
                check_plans(&pd, &r, 0);
            }
    cr_assert(seen[LG_SHUF_PLANES][0][0] > 0, "planes never ran");
    cr_assert(seen[LG_SHUF_TABLE][0][0] > 0, "table never ran");
    if (lg__cpu_isa_hw() >= LG_ISA_AVX2) {
        cr_assert(seen[LG_SHUF_PERMUTE][LG_SHUF_XMM_B][0] > 0, "xmm pshufb never ran");
        cr_assert(seen[LG_SHUF_PERMUTE][LG_SHUF_YMM_D][0] > 0, "ymm vpermd never ran");
        cr_assert(seen_group[LG_SHUF_XMM_B] > 0, "xmm pixel groups never ran");
        cr_assert(seen_group[LG_SHUF_YMM_D] > 0, "ymm pixel groups never ran");
        cr_assert(seen_tail > 0, "partial pixel groups never ran");
    }
    if (lg__cpu_isa_hw() >= LG_ISA_AVX512) {
        cr_assert(seen[LG_SHUF_PERMUTE][LG_SHUF_ZMM_D][0] > 0, "zmm vpermd never ran");
        cr_assert(seen[LG_SHUF_PERMUTE][LG_SHUF_ZMM_D][1] > 0, "zmm vpermt2d never ran");
        cr_assert(seen[LG_SHUF_PERMUTE][LG_SHUF_ZMM_W][1] > 0, "zmm vpermt2w never ran");
        cr_assert(seen[LG_SHUF_PERMUTE][LG_SHUF_YMM_W][1] > 0, "ymm vpermt2w never ran");
        cr_assert(seen[LG_SHUF_PERMUTE][LG_SHUF_ZMM_W][0] > 0, "zmm vpermw never ran");
        cr_assert(seen[LG_SHUF_PERMUTE][LG_SHUF_YMM_W][0] > 0, "ymm vpermw never ran");
        cr_assert(seen_group[LG_SHUF_ZMM_D] > 0, "zmm pixel groups never ran");
        cr_assert(seen_group[LG_SHUF_ZMM_W] > 0, "zmm 16-bit pixel groups never ran");
        for (int k = 2; k <= 8; k *= 2) {
            cr_assert(seen_tile[LG_SHUF_ZMM_D][k] > 0, "32-bit tiles of %d never ran", k);
            cr_assert(seen_tile[LG_SHUF_ZMM_W][k] > 0, "16-bit tiles of %d never ran", k);
        }
    }
}

Test(shuffle, large_problems_threads_and_streaming) {
    /* Beyond the thread and streaming thresholds (big: 9.4 MB of f32, 4.7
     * MB of bf16); dst aligned and not. With AVX-512, nhwc runs the tiled
     * kernel, which then prefetches src ahead, past the end of each thread's
     * range and of src itself: prefetches, not loads (the sanitizer build
     * would flag a load there). */
    lg_rng r = {99};
    int64_t big[4] = {2, 128, 96, 96}, mid[4] = {2, 64, 30, 31};
    const char *tags[3] = {"nchw", "nhwc", "nChw16c"};
    seen_stream = seen_tile_pf = 0;
    for (int t = 0; t < 3; t++)
        for (int m = 0; m < 2; m++) {
            lg_md md = md_tag(4, m ? mid : big, LG_F32, tags[t]);
            lg__shuffle_pd pd = make_pd(&md, 1, 4, LG_FORWARD);
            check_plans(&pd, &r, 0);
            if (!m) check_plans(&pd, &r, 4);
        }
    lg_md md = md_tag(4, big, LG_BF16, "nChw16c");
    lg__shuffle_pd pd = make_pd(&md, 1, 2, LG_BACKWARD);
    check_plans(&pd, &r, 0);
    int64_t big16[4] = {2, 256, 96, 96}; /* 9.4 MB of bf16: 16-bit tiles that stream */
    md = md_tag(4, big16, LG_BF16, "nhwc");
    pd = make_pd(&md, 1, 4, LG_FORWARD);
    check_plans(&pd, &r, 0);
    cr_assert(seen_stream > 0, "no plan streamed dst");
    if (lg__cpu_isa_hw() >= LG_ISA_AVX512)
        cr_assert(seen_tile_pf >= 2, "tiled plans prefetched src %d times, want f32 and bf16",
                  seen_tile_pf);
}

Test(shuffle, huge_channel_counts_fall_back_to_tables) {
    /* 2^17 s8 channels, G = 256: every 16-byte window reads 16 source
     * vectors, beyond the segment budget: the TABLE mode runs instead. */
    lg_rng r = {3};
    int64_t dims[4] = {2, 1 << 17, 1, 1};
    lg_md md = md_tag(4, dims, LG_S8, "nhwc");
    lg__shuffle_pd pd = make_pd(&md, 1, 256, LG_FORWARD);
    check_plans(&pd, &r, 0);
    lg__shuf_plan *p;
    cr_assert_eq(lg__shuffle_plan(&pd, lg__cpu_isa_hw(), &p), LG_OK);
    cr_assert_eq(p->mode, LG_SHUF_TABLE, "%s", p->impl);
    lg__shuffle_plan_free(p);
}

/* Allocation failures surface as LG_OUT_OF_MEMORY with nothing leaked (the
 * sanitizer build checks leaks), for every mode and through the API. */
Test(shuffle, out_of_memory) {
    int64_t dims[4] = {2, 48, 3, 5};
    const char *tags[3] = {"nchw", "nChw16c", "nhwc"};
    for (int t = 0; t < 3; t++)
        for (int isa = LG_ISA_SCALAR; isa <= (int)lg__cpu_isa_hw(); isa++) {
            lg_md md = md_tag(4, dims, LG_F32, tags[t]);
            lg__shuffle_pd pd = make_pd(&md, 1, 4, LG_FORWARD);
            for (int n = 0;; n++) {
                lg__shuf_plan *p = (lg__shuf_plan *)(uintptr_t)1;
                lg__alloc_fail_after(n);
                lg_status s = lg__shuffle_plan(&pd, (lg__isa)isa, &p);
                lg__alloc_fail_after(-1);
                if (s == LG_OK) {
                    lg__shuffle_plan_free(p);
                    break;
                }
                cr_assert_eq(s, LG_OUT_OF_MEMORY, "%s: allocation %d gave %d", tags[t], n, (int)s);
                cr_assert_null(p);
            }
        }
    /* Through the API: a problem not in the cache yet. */
    int64_t d2[4] = {3, 40, 7, 7};
    lg_md md = md_tag(4, d2, LG_U8, "nhwc");
    lg_kernel *k = NULL;
    lg__alloc_fail_after(1);
    lg_status s = lg_shuffle_create(&k, LG_BACKWARD, &md, 1, 5);
    lg__alloc_fail_after(-1);
    cr_assert_eq(s, LG_OUT_OF_MEMORY, "gave %d: %s", (int)s, lg_last_error());
    cr_assert_eq(lg_shuffle_create(&k, LG_BACKWARD, &md, 1, 5), LG_OK);
    lg_kernel_destroy(k);
}

/* One kernel run from several threads at once, into separate buffers. */
typedef struct run_arg {
    lg_kernel *k;
    void *src, *dst;
} run_arg;

static void *run_kernel(void *v) {
    run_arg *ra = v;
    lg_arg args[2] = {{LG_ARG_SRC, ra->src}, {LG_ARG_DST, ra->dst}};
    for (int i = 0; i < 20; i++)
        if (lg_kernel_execute(ra->k, 2, args) != LG_OK) return v;
    return NULL;
}

Test(shuffle, one_kernel_many_threads) {
    lg_rng r = {42};
    int64_t dims[4] = {2, 96, 20, 20};
    lg_md md = md_tag(4, dims, LG_F32, "nChw16c");
    lg__shuffle_pd pd = make_pd(&md, 1, 3, LG_FORWARD);
    size_t n = lg_md_size(&md);
    void *src = make_src(&md, &r), *want = malloc(n);
    lg__shuffle_ref(&pd, src, want);
    lg_kernel *k;
    cr_assert_eq(lg_shuffle_create(&k, LG_FORWARD, &md, 1, 3), LG_OK);
    pthread_t th[4];
    run_arg ra[4];
    for (int i = 0; i < 4; i++) {
        ra[i] = (run_arg){k, src, malloc(n)};
        cr_assert_eq(pthread_create(&th[i], NULL, run_kernel, &ra[i]), 0);
    }
    for (int i = 0; i < 4; i++) {
        void *ret;
        pthread_join(th[i], &ret);
        cr_assert_null(ret, "execute failed");
        cr_assert(memcmp(ra[i].dst, want, n) == 0, "thread %d", i);
        free(ra[i].dst);
    }
    lg_kernel_destroy(k);
    free(src);
    free(want);
}

Test(shuffle, empty_tensor_and_query_md) {
    int64_t dims[3] = {0, 8, 3};
    lg_md md = md_tag(3, dims, LG_F32, "aBc8b");
    lg_kernel *k;
    cr_assert_eq(lg_shuffle_create(&k, LG_FORWARD, &md, 1, 2), LG_OK, "%s", lg_last_error());
    float dummy;
    lg_arg args[2] = {{LG_ARG_SRC, &dummy}, {LG_ARG_DST, &dummy + 1}};
    cr_assert_eq(lg_kernel_execute(k, 2, args), LG_OK, "%s", lg_last_error());
    lg_kernel_destroy(k);

    int64_t d2[4] = {2, 17, 3, 3};
    lg_md m2 = md_tag(4, d2, LG_BF16, "nChw8c"), q;
    cr_assert_eq(lg_shuffle_create(&k, LG_BACKWARD, &m2, 1, 17), LG_OK);
    cr_assert_eq(lg_kernel_query_md(k, LG_ARG_DIFF_DST, &q), LG_OK);
    cr_assert(lg_md_equal(&q, &m2));
    cr_assert_eq(lg_kernel_query_md(k, LG_ARG_DIFF_SRC, &q), LG_OK);
    cr_assert(lg_md_equal(&q, &m2));
    cr_assert_eq(lg_kernel_query_md(k, LG_ARG_SRC, &q), LG_INVALID_ARGUMENT);
    cr_assert(strncmp(lg_kernel_impl(k), "shuffle:", 8) == 0, "%s", lg_kernel_impl(k));
    lg_kernel_destroy(k);
    cr_assert_eq(lg_shuffle_create(&k, LG_FORWARD, &m2, 1, 1), LG_OK);
    cr_assert_eq(lg_kernel_query_md(k, LG_ARG_SRC, &q), LG_OK);
    cr_assert(lg_md_equal(&q, &m2));
    cr_assert_eq(lg_kernel_query_md(k, LG_ARG_DST, &q), LG_OK);
    cr_assert(lg_md_equal(&q, &m2));
    lg_kernel_destroy(k);
}

static void expect_bad(lg_status s, const char *needle) {
    cr_assert_eq(s, LG_INVALID_ARGUMENT, "expected LG_INVALID_ARGUMENT for '%s'", needle);
    cr_assert(strstr(lg_last_error(), needle) != NULL, "message '%s' lacks '%s'", lg_last_error(),
              needle);
}

Test(shuffle, bad_inputs) {
    int64_t dims[4] = {2, 12, 3, 3};
    lg_md md = md_tag(4, dims, LG_F32, "nchw"), any = md_tag(4, dims, LG_F32, "any"), zero;
    memset(&zero, 0, sizeof zero);
    lg_kernel *k = (lg_kernel *)(uintptr_t)1;
    expect_bad(lg_shuffle_create(NULL, LG_FORWARD, &md, 1, 2), "kernel pointer");
    expect_bad(lg_shuffle_create(&k, LG_FORWARD, NULL, 1, 2), "md is NULL");
    expect_bad(lg_shuffle_create(&k, LG_FORWARD, &zero, 1, 2), "not initialised");
    expect_bad(lg_shuffle_create(&k, LG_FORWARD, &any, 1, 2), "'any'");
    expect_bad(lg_shuffle_create(&k, LG_FORWARD, &md, 4, 2), "axis 4");
    expect_bad(lg_shuffle_create(&k, LG_FORWARD, &md, -1, 2), "axis -1");
    expect_bad(lg_shuffle_create(&k, LG_FORWARD, &md, 1, 0), "not positive");
    expect_bad(lg_shuffle_create(&k, LG_FORWARD, &md, 1, -3), "not positive");
    expect_bad(lg_shuffle_create(&k, LG_FORWARD, &md, 1, 5), "does not divide");
    expect_bad(lg_shuffle_create(&k, LG_FORWARD, &md, 1, 24), "does not divide");
    expect_bad(lg_shuffle_create(&k, (lg_prop)2, &md, 1, 2), "prop 2");
    expect_bad(lg_shuffle_create(&k, (lg_prop)-1, &md, 1, 2), "prop -1");
    cr_assert_eq(k, (lg_kernel *)(uintptr_t)1, "k written on failure");
    /* Execution-time argument checks come from the generic execute. */
    cr_assert_eq(lg_shuffle_create(&k, LG_FORWARD, &md, 1, 3), LG_OK);
    float buf[2 * 12 * 9 * 2];
    lg_arg wrong[2] = {{LG_ARG_DIFF_DST, buf}, {LG_ARG_DST, buf + 216}};
    cr_assert_eq(lg_kernel_execute(k, 2, wrong), LG_INVALID_ARGUMENT);
    lg_arg overlap[2] = {{LG_ARG_SRC, buf}, {LG_ARG_DST, buf + 1}};
    cr_assert_eq(lg_kernel_execute(k, 2, overlap), LG_INVALID_ARGUMENT);
    lg_kernel_destroy(k);
}
