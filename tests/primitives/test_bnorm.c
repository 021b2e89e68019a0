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
