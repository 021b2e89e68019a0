/* lg_bnorm_create through the public API: every path bit for bit against the
 * scalar reference (lg__bnorm_ref) on seeded random problems over ranks 2-5,
 * plain, channels-last and channel-blocked layouts (channels not a multiple
 * of the block), f32 / bf16 / f16, every flag combination, every ISA cap,
 * out of place over garbage (padding must come back zero) and in place;
 * hand values; bad input. */
#include "memory/convert.h"
#include "primitives/bnorm/bnorm.h"
#include "primitives/layout.h"
#include "test_layers_util.h"
#include "test_util.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static void run_one(lg_rng *r, int nd, const int64_t *dims, int fam, lg_dtype dt, unsigned flags,
                    float eps) {
    char tag[32];
    family_tag(fam, nd, tag);
    lg_md md;
    cr_assert_eq(lg_md_init_tag(&md, nd, dims, dt, tag), LG_OK, "%s %s", tag, lg_last_error());
    const int64_t C = dims[1];
    size_t sz = lg_md_size(&md);
    unsigned char *src = calloc(1, sz), *want = malloc(sz + 64), *got = malloc(sz + 64),
                  *ip = malloc(sz);
    float *mean = malloc((size_t)C * 4), *var = malloc((size_t)C * 4), *sc = malloc((size_t)C * 4),
          *sh = malloc((size_t)C * 4);
    for (int64_t c = 0; c < C; c++) {
        mean[c] = lg_rng_float(r, -2, 2);
        var[c] = lg_rng_int(r, 0, 9) == 0 ? 0.0f : lg_rng_float(r, 0, 4);
        sc[c] = lg_rng_float(r, -3, 3);
        sh[c] = lg_rng_float(r, -1, 1);
    }
    int64_t idx[LG_MAX_NDIMS] = {0};
    do {
        lg__store_f32(src, dt, lg_md_offset(&md, idx), lg_rng_float(r, -6, 6));
    } while (next_idx(idx, md.dims, nd));
    lg__bnorm_pd pd;
    memset(&pd, 0, sizeof pd);
    pd.src = pd.dst = md;
    pd.eps = eps;
    pd.flags = flags;
    lg__bnorm_stats st = {mean, var, flags & LG_BNORM_USE_SCALE ? sc : NULL,
                          flags & LG_BNORM_USE_SHIFT ? sh : NULL};
    int64_t *tab = lg__md_has_padding(&md) ? lg__offtab_new(&md, md.padded_dims, false) : NULL;
    memset(want, 0xa5, sz + 64);
    lg__bnorm_ref(&pd, tab, &st, src, want);
    lg__free(tab);
    char what[160];
    snprintf(what, sizeof what, "%s %s flags 0x%x eps %g nd %d C %lld", lg_dtype_str(dt), tag,
             flags, (double)eps, nd, (long long)C);
    for (int isa = 0; isa <= (int)lg__cpu_isa_hw(); isa++) {
        lg__cpu_set_isa_cap(isa);
        lg_kernel *k;
        cr_assert_eq(lg_bnorm_create(&k, &md, NULL, eps, flags), LG_OK, "%s: %s", what,
                     lg_last_error());
        const char *impl = lg_kernel_impl(k);
        if (isa > 0) cr_assert(!strstr(impl, "ref"), "%s: %s", what, impl);
        lg_arg a[6] = {{LG_ARG_SRC, src},      {LG_ARG_DST, got},  {LG_ARG_MEAN, mean},
                       {LG_ARG_VARIANCE, var}, {LG_ARG_SCALE, sc}, {LG_ARG_SHIFT, sh}};
        int na = 4;
        if (flags & LG_BNORM_USE_SCALE) a[na++] = (lg_arg){LG_ARG_SCALE, sc};
        if (flags & LG_BNORM_USE_SHIFT) a[na++] = (lg_arg){LG_ARG_SHIFT, sh};
        memset(got, 0xa5, sz + 64);
        cr_assert_eq(lg_kernel_execute(k, na, a), LG_OK, "%s", lg_last_error());
        /* NaN (0 / 0 with var = eps = 0 at x = mean) compares as equal. */
        memset(idx, 0, sizeof idx);
        size_t esz = lg_dtype_size(dt);
        do {
            int64_t off = lg_md_offset(&md, idx);
            if (isnan(lg__load_f32(want, dt, off)) && isnan(lg__load_f32(got, dt, off)))
                memcpy(got + off * (int64_t)esz, want + off * (int64_t)esz, esz);
        } while (next_idx(idx, md.dims, nd));
        size_t at = 0;
        while (at < sz + 64 && want[at] == got[at]) at++;
        cr_assert(at == sz + 64, "%s isa %d (%s): byte %zu of %zu differs", what, isa, impl, at,
                  sz);
        memcpy(ip, src, sz);
        a[0].data = a[1].data = ip;
        cr_assert_eq(lg_kernel_execute(k, na, a), LG_OK, "%s", lg_last_error());
        memset(idx, 0, sizeof idx);
        do {
            int64_t off = lg_md_offset(&md, idx);
            if (isnan(lg__load_f32(want, dt, off)) && isnan(lg__load_f32(ip, dt, off)))
                memcpy(ip + off * (int64_t)esz, want + off * (int64_t)esz, esz);
        } while (next_idx(idx, md.dims, nd));
        cr_assert(memcmp(ip, want, sz) == 0, "%s isa %d: in place differs", what, isa);
        lg_kernel_destroy(k);
    }
    lg__cpu_set_isa_cap(-1);
    free(src);
    free(want);
    free(got);
    free(ip);
    free(mean);
    free(var);
    free(sc);
    free(sh);
}

Test(bnorm, random_every_layout_type_flags_isa) {
    lg_rng r = {0xb40};
    const lg_dtype dts[] = {LG_F32, LG_BF16, LG_F16};
    for (int t = 0; t < 200; t++) {
        int nd = (int)lg_rng_int(&r, 2, 5);
        int64_t dims[5];
        for (int d = 0; d < nd; d++) dims[d] = lg_rng_int(&r, 1, nd > 3 ? 9 : 21);
        if (lg_rng_int(&r, 0, 3) == 0) dims[1] = lg_rng_int(&r, 60, 300);
        int fam = (int)lg_rng_int(&r, 0, 3);
        unsigned flags = (unsigned)lg_rng_int(&r, 0, 7) << 2 & 0x1c;
        float eps = lg_rng_int(&r, 0, 5) == 0 ? 0.0f : 1e-5f;
        run_one(&r, nd, dims, fam, dts[lg_rng_int(&r, 0, 2)], flags, eps);
    }
}

/* A ResNet-like tensor in the blocked and channels-last layouts. */
Test(bnorm, larger) {
    lg_rng r = {0xb41};
    int64_t dims[4] = {2, 70, 17, 23};
    for (int fam = 0; fam < 4; fam++)
        run_one(&r, 4, dims, fam, LG_F32,
                LG_BNORM_USE_SCALE | LG_BNORM_USE_SHIFT | LG_BNORM_FUSE_RELU, 1e-5f);
}

/* Tensors above the streaming footprint (src + dst >= 32 MiB, f32): 32-byte
 * aligned buffers so that the non-temporal stores run; odd w and channels
 * not a multiple of the block; and channels last with more channels than
 * one table chunk (1024); tensors of enough planes that rows are whole
 * planes. Bit for bit against the reference. */
/* Random statistics (mean, variance > 0, scale, shift: C each) into stats,
 * and the reference's dst for src into want (sz bytes, 0xa5 first). */
static void stats_and_ref(lg_rng *r, const lg_md *sm, const lg_md *dm, unsigned fl, float *stats,
                          int64_t C, const void *src, void *want, size_t sz) {
    for (int64_t c = 0; c < C; c++) {
        stats[c] = lg_rng_float(r, -2, 2);
        stats[C + c] = lg_rng_float(r, 0.1f, 4);
        stats[2 * C + c] = lg_rng_float(r, -3, 3);
        stats[3 * C + c] = lg_rng_float(r, -1, 1);
    }
    lg__bnorm_pd pd;
    memset(&pd, 0, sizeof pd);
    pd.src = *sm;
    pd.dst = *dm;
    pd.eps = 1e-5f;
    pd.flags = fl;
    lg__bnorm_stats st = {stats, stats + C, stats + 2 * C, stats + 3 * C};
    int64_t *tab = lg__md_has_padding(dm) ? lg__offtab_new(dm, dm->padded_dims, false) : NULL;
    memset(want, 0xa5, sz);
    lg__bnorm_ref(&pd, tab, &st, src, want);
    lg__free(tab);
}

Test(bnorm, streaming_and_wide_channels) {
    lg_rng r = {0xb42};
    const struct {
        int64_t dims[4];
        const char *tag;
    } cases[] = {{{1, 261, 127, 127}, "nChw8c"},
                 {{1, 261, 127, 127}, "nChw16c"},
                 {{1, 261, 127, 127}, "nhwc"},
                 {{1, 261, 127, 127}, "nchw"},
                 {{2, 1100, 3, 5}, "nhwc"},
                 {{4, 130, 9, 11}, "nChw8c"}, /* 64 planes or more: rows of whole planes */
                 {{4, 130, 9, 11}, "nChw16c"},
                 {{4, 130, 9, 11}, "nchw"}};
    const unsigned fl = LG_BNORM_USE_SCALE | LG_BNORM_USE_SHIFT | LG_BNORM_FUSE_RELU;
    for (size_t t = 0; t < sizeof cases / sizeof cases[0]; t++) {
        lg_md md;
        cr_assert_eq(lg_md_init_tag(&md, 4, cases[t].dims, LG_F32, cases[t].tag), LG_OK);
        const int64_t C = cases[t].dims[1];
        size_t sz = (lg_md_size(&md) + 63) & ~(size_t)63;
        float *src = aligned_alloc(64, sz), *want = aligned_alloc(64, sz),
              *got = aligned_alloc(64, sz), *stats = malloc((size_t)C * 16);
        for (size_t i = 0; i < sz / 4; i++) src[i] = lg_rng_float(&r, -6, 6);
        stats_and_ref(&r, &md, &md, fl, stats, C, src, want, sz);
        for (int isa = 0; isa <= (int)lg__cpu_isa_hw(); isa++) {
            lg__cpu_set_isa_cap(isa);
            lg_kernel *k;
            cr_assert_eq(lg_bnorm_create(&k, &md, NULL, 1e-5f, fl), LG_OK, "%s", lg_last_error());
            lg_arg a[6] = {{LG_ARG_SRC, src},
                           {LG_ARG_DST, got},
                           {LG_ARG_MEAN, stats},
                           {LG_ARG_VARIANCE, stats + C},
                           {LG_ARG_SCALE, stats + 2 * C},
                           {LG_ARG_SHIFT, stats + 3 * C}};
            memset(got, 0xa5, sz);
            cr_assert_eq(lg_kernel_execute(k, 6, a), LG_OK, "%s", lg_last_error());
            cr_assert(memcmp(got, want, lg_md_size(&md)) == 0, "%s isa %d (%s) differs",
                      cases[t].tag, isa, lg_kernel_impl(k));
            lg_kernel_destroy(k);
        }
        lg__cpu_set_isa_cap(-1);
        free(src);
        free(want);
        free(got);
        free(stats);
    }
}

Test(bnorm, hand_values) {
    float x[4] = {1, 3, 10, 20}, y[4];
    float mean[2] = {2, 10}, var[2] = {4, 0.25f}, g[2] = {2, -1}, b[2] = {1, 0.5f};
    int64_t dims[4] = {1, 2, 1, 2};
    lg_md md;
    lg_md_init_tag(&md, 4, dims, LG_F32, "nchw");
    lg_kernel *k;
    cr_assert_eq(lg_bnorm_create(&k, &md, &md, 0.0f, LG_BNORM_USE_SCALE | LG_BNORM_USE_SHIFT),
                 LG_OK);
    lg_arg a[6] = {{LG_ARG_SRC, x},        {LG_ARG_DST, y},   {LG_ARG_MEAN, mean},
                   {LG_ARG_VARIANCE, var}, {LG_ARG_SCALE, g}, {LG_ARG_SHIFT, b}};
    cr_assert_eq(lg_kernel_execute(k, 6, a), LG_OK, "%s", lg_last_error());
    /* c0: a = 2 / 2 = 1: (1-2)+1 = 0, (3-2)+1 = 2; c1: a = -1 / 0.5 = -2: 0.5, -19.5. */
    cr_assert(y[0] == 0 && y[1] == 2 && y[2] == 0.5f && y[3] == -19.5f, "%g %g %g %g", (double)y[0],
              (double)y[1], (double)y[2], (double)y[3]);
    lg_kernel_destroy(k);
    cr_assert_eq(lg_bnorm_create(&k, &md, NULL, 0.0f,
                                 LG_BNORM_USE_SCALE | LG_BNORM_USE_SHIFT | LG_BNORM_FUSE_RELU),
                 LG_OK);
    cr_assert_eq(lg_kernel_execute(k, 6, a), LG_OK);
    cr_assert(y[0] == 0 && y[1] == 2 && y[2] == 0.5f && y[3] == 0);
    /* A missing statistic is refused. */
    cr_assert_eq(lg_kernel_execute(k, 5, a), LG_INVALID_ARGUMENT);
    lg_kernel_destroy(k);
}

static void bad(lg_status want, const lg_md *s, const lg_md *d, float eps, unsigned flags,
                const char *needle) {
    lg_kernel *k;
    cr_assert_eq(lg_bnorm_create(&k, s, d, eps, flags), want, "%s", lg_last_error());
    cr_assert(strstr(lg_last_error(), "lg_bnorm_create"), "%s", lg_last_error());
    cr_assert(strstr(lg_last_error(), needle), "'%s' lacks '%s'", lg_last_error(), needle);
}

Test(bnorm, bad_input) {
    int64_t dims[4] = {2, 8, 3, 3}, other[4] = {2, 9, 3, 3}, d1[1] = {8};
    lg_md md, o, i8, one;
    lg_md_init_tag(&md, 4, dims, LG_F32, "nchw");
    lg_md_init_tag(&o, 4, other, LG_F32, "nchw");
    lg_md_init_tag(&i8, 4, dims, LG_S8, "nchw");
    lg_md_init_tag(&one, 1, d1, LG_F32, "a");
    cr_assert_eq(lg_bnorm_create(NULL, &md, NULL, 1e-5f, 0), LG_INVALID_ARGUMENT);
    bad(LG_INVALID_ARGUMENT, NULL, NULL, 1e-5f, 0, "src");
    bad(LG_INVALID_ARGUMENT, &md, &o, 1e-5f, 0, "dst md dims");
    bad(LG_UNIMPLEMENTED, &i8, NULL, 1e-5f, 0, "s8");
    bad(LG_UNIMPLEMENTED, &one, NULL, 1e-5f, 0, "1 dims");
    bad(LG_INVALID_ARGUMENT, &md, NULL, -1.0f, 0, "epsilon");
    bad(LG_INVALID_ARGUMENT, &md, NULL, NAN, 0, "epsilon");
    bad(LG_INVALID_ARGUMENT, &md, NULL, 1e-5f, 0x1, "flags");
    lg_md any;
    lg_md_init_tag(&any, 4, dims, LG_F32, "any");
    bad(LG_INVALID_ARGUMENT, &any, NULL, 1e-5f, 0, "'any'");
}

/* src and dst views (lg_md_submemory) of bigger buffers, as the graph gives
 * a batch normalization reading a concat's channel range at N > 1 (the
 * view's batch stride is the concat's): the fast path for every family,
 * bit for bit against the reference over the whole dst buffer (outside the
 * view untouched, the view's padding lanes zero). */
Test(bnorm, views_of_bigger_buffers) {
    lg_rng r = {0xb43};
    const struct {
        const char *tag;
        int64_t n, hw, sc, s0, dc, d0, c; /* parents' channels, view offsets, view channels */
    } cases[] = {{"nChw8c", 3, 5, 21, 8, 29, 16, 13}, {"nChw8c", 10, 4, 72, 16, 64, 8, 56},
                 {"nChw8c", 2, 3, 24, 8, 16, 0, 16},  {"nChw16c", 2, 5, 37, 16, 21, 0, 21},
                 {"nhwc", 3, 5, 20, 5, 17, 3, 11},    {"nhwc", 16, 7, 116, 58, 58, 0, 58},
                 {"nchw", 3, 6, 20, 5, 17, 3, 11},    {"nChw8c", 2, 3, 16, 8, 8, 0, 8}};
    const unsigned fl = LG_BNORM_USE_SCALE | LG_BNORM_USE_SHIFT | LG_BNORM_FUSE_RELU;
    for (size_t t = 0; t < sizeof cases / sizeof cases[0]; t++) {
        const int64_t N = cases[t].n, HW = cases[t].hw, C = cases[t].c;
        int64_t pdims[4] = {N, cases[t].sc, HW, HW + 1}, qdims[4] = {N, cases[t].dc, HW, HW + 1};
        int64_t vdims[4] = {N, C, HW, HW + 1}, so[4] = {0, cases[t].s0, 0, 0},
                doff[4] = {0, cases[t].d0, 0, 0};
        lg_md pm, qm, sv, dv;
        cr_assert_eq(lg_md_init_tag(&pm, 4, pdims, LG_F32, cases[t].tag), LG_OK);
        cr_assert_eq(lg_md_init_tag(&qm, 4, qdims, LG_F32, cases[t].tag), LG_OK);
        cr_assert_eq(lg_md_submemory(&pm, vdims, so, &sv), LG_OK, "%s", lg_last_error());
        cr_assert_eq(lg_md_submemory(&qm, vdims, doff, &dv), LG_OK, "%s", lg_last_error());
        size_t ssz = lg_md_size(&pm), dsz = lg_md_size(&qm);
        float *src = malloc(ssz), *want = malloc(dsz), *got = malloc(dsz),
              *stats = malloc((size_t)C * 16);
        for (size_t i = 0; i < ssz / 4; i++) src[i] = lg_rng_float(&r, -6, 6);
        stats_and_ref(&r, &sv, &dv, fl, stats, C, src, want, dsz);
        for (int isa = 0; isa <= (int)lg__cpu_isa_hw(); isa++) {
            lg__cpu_set_isa_cap(isa);
            lg_kernel *k;
            cr_assert_eq(lg_bnorm_create(&k, &sv, &dv, 1e-5f, fl), LG_OK, "%s", lg_last_error());
            if (isa > 0)
                cr_assert(!strstr(lg_kernel_impl(k), "ref"), "case %zu: %s", t, lg_kernel_impl(k));
            lg_arg a[6] = {{LG_ARG_SRC, src},
                           {LG_ARG_DST, got},
                           {LG_ARG_MEAN, stats},
                           {LG_ARG_VARIANCE, stats + C},
                           {LG_ARG_SCALE, stats + 2 * C},
                           {LG_ARG_SHIFT, stats + 3 * C}};
            memset(got, 0xa5, dsz);
            cr_assert_eq(lg_kernel_execute(k, 6, a), LG_OK, "%s", lg_last_error());
            cr_assert(memcmp(got, want, dsz) == 0, "case %zu %s isa %d (%s) differs", t,
                      cases[t].tag, isa, lg_kernel_impl(k));
            lg_kernel_destroy(k);
        }
        lg__cpu_set_isa_cap(-1);
        free(src);
        free(want);
        free(got);
        free(stats);
    }
}
