/* lg_softmax_create through the public API: every path and the reference
 * against exact results computed here in double, within the header's stated
 * bound, on seeded random problems over ranks 2-5, every axis, plain,
 * channels-last and channel-blocked layouts (channels not a multiple of the
 * block), f32 / bf16 / f16, both algorithms, every ISA cap, in place and
 * out of place over garbage (dst padding must come back zero); bad input. */
#include "memory/convert.h"
#include "primitives/softmax/softmax.h"
#include "test_layers_util.h"
#include "test_util.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Assert out (md, type dt) is within the stated bound of the exact result. */
static void check_bound(const lg_md *md, int alg, int axis, const void *in, const void *out,
                        const char *what) {
    int nd = md->ndims;
    int64_t ext[LG_MAX_NDIMS], idx[LG_MAX_NDIMS] = {0};
    for (int d = 0; d < nd; d++) ext[d] = d == axis ? 1 : md->dims[d];
    const int64_t A = md->dims[axis];
    const lg_dtype dt = md->dtype;
    const double half = dt == LG_BF16 ? 0x1p-8 : dt == LG_F16 ? 0x1p-11 : 0;
    const double floor_ = dt == LG_F16 ? 0x1p-24 : dt == LG_BF16 ? 0x1p-133 : 0;
    do {
        double m = -INFINITY, s = 0;
        for (idx[axis] = 0; idx[axis] < A; idx[axis]++) {
            double x = lg__load_f32(in, dt, lg_md_offset(md, idx));
            m = x > m ? x : m;
        }
        for (idx[axis] = 0; idx[axis] < A; idx[axis]++)
            s += exp(lg__load_f32(in, dt, lg_md_offset(md, idx)) - m);
        for (idx[axis] = 0; idx[axis] < A; idx[axis]++) {
            double d = lg__load_f32(in, dt, lg_md_offset(md, idx)) - m;
            double ys = alg == 0 ? exp(d) / s : d - log(s);
            double y = lg__load_f32(out, dt, lg_md_offset(md, idx));
            double b = alg == 0 ? (fabs(d) + (double)A + 8) * 0x1p-24 * ys + 0x1p-148
                                : (3 * fabs(d) + 3 * fabs(ys) + (double)A + 8) * 0x1p-24;
            b += half * fabs(ys) + floor_;
            cr_assert(fabs(y - ys) <= b, "%s: y %.9g, exact %.9g, bound %.3g (A %lld)", what, y, ys,
                      b, (long long)A);
        }
        idx[axis] = 0;
    } while (next_idx(idx, ext, nd));
}

/* Zero the logical elements of buf (md), leaving its padding. */
static void clear_logical(const lg_md *md, void *buf) {
    int64_t idx[LG_MAX_NDIMS] = {0};
    size_t esz = lg_dtype_size(md->dtype);
    do {
        memset((char *)buf + lg_md_offset(md, idx) * (int64_t)esz, 0, esz);
    } while (next_idx(idx, md->dims, md->ndims));
}

static void run_one(lg_rng *r, int nd, const int64_t *dims, int fam, lg_dtype dt, int alg, int axis,
                    float spread) {
    char tag[32];
    family_tag(fam, nd, tag);
    lg_md md;
    cr_assert_eq(lg_md_init_tag(&md, nd, dims, dt, tag), LG_OK, "%s %s", tag, lg_last_error());
    size_t sz = lg_md_size(&md);
    unsigned char *src = calloc(1, sz), *dst = malloc(sz + 64), *ip = malloc(sz);
    int64_t idx[LG_MAX_NDIMS] = {0};
    do {
        lg__store_f32(src, dt, lg_md_offset(&md, idx), lg_rng_float(r, -spread, spread));
    } while (next_idx(idx, md.dims, nd));
    char what[160];
    snprintf(what, sizeof what, "%s %s alg %d axis %d nd %d", lg_dtype_str(dt), tag, alg, axis, nd);
    for (int isa = 0; isa <= (int)lg__cpu_isa_hw(); isa++) {
        lg__cpu_set_isa_cap(isa);
        lg_kernel *k;
        cr_assert_eq(lg_softmax_create(&k, (lg_softmax_alg)alg, axis, &md, NULL), LG_OK, "%s: %s",
                     what, lg_last_error());
        const char *impl = lg_kernel_impl(k);
        if (isa > 0) cr_assert(!strstr(impl, "ref"), "%s: %s", what, impl);
        memset(dst, 0xa5, sz + 64);
        lg_arg a[2] = {{LG_ARG_SRC, src}, {LG_ARG_DST, dst}};
        cr_assert_eq(lg_kernel_execute(k, 2, a), LG_OK, "%s", lg_last_error());
        char w2[200];
        snprintf(w2, sizeof w2, "%s isa %d (%s)", what, isa, impl);
        check_bound(&md, alg, axis, src, dst, w2);
        for (size_t i = sz; i < sz + 64; i++) cr_assert_eq(dst[i], 0xa5, "%s: wrote past dst", w2);
        memcpy(ip, src, sz);
        lg_arg b[2] = {{LG_ARG_SRC, ip}, {LG_ARG_DST, ip}};
        cr_assert_eq(lg_kernel_execute(k, 2, b), LG_OK, "%s", lg_last_error());
        cr_assert(memcmp(ip, dst, sz) == 0, "%s: in place differs", w2);
        clear_logical(&md, dst);
        for (size_t i = 0; i < sz; i++) cr_assert_eq(dst[i], 0, "%s: padding byte %zu", w2, i);
        lg_kernel_destroy(k);
    }
    lg__cpu_set_isa_cap(-1);
    free(src);
    free(dst);
    free(ip);
}

Test(softmax, random_every_layout_axis_type_isa) {
    lg_rng r = {0x50f7};
    const lg_dtype dts[] = {LG_F32, LG_BF16, LG_F16};
    for (int t = 0; t < 250; t++) {
        int nd = (int)lg_rng_int(&r, 2, 5);
        int64_t dims[5];
        for (int d = 0; d < nd; d++) dims[d] = lg_rng_int(&r, 1, nd > 3 ? 7 : 21);
        int axis = (int)lg_rng_int(&r, 0, nd - 1);
        if (lg_rng_int(&r, 0, 4) == 0) dims[axis] = lg_rng_int(&r, 30, 300);
        int fam = (int)lg_rng_int(&r, 0, nd > 2 ? 3 : 0);
        if (nd == 2 && lg_rng_int(&r, 0, 1)) fam = (int)lg_rng_int(&r, 2, 3);
        run_one(&r, nd, dims, fam, dts[lg_rng_int(&r, 0, 2)], (int)lg_rng_int(&r, 0, 1), axis,
                lg_rng_int(&r, 0, 1) ? 5.0f : 60.0f);
    }
}

/* Classifier heads: 1000 classes, and a wide spread of logits. */
Test(softmax, classifier_rows) {
    lg_rng r = {0x50f8};
    int64_t d2[2] = {16, 1000}, d4[4] = {3, 1000, 1, 1};
    for (int alg = 0; alg < 2; alg++) {
        run_one(&r, 2, d2, 0, LG_F32, alg, 1, 30.0f);
        run_one(&r, 4, d4, 3, LG_F32, alg, 1, 30.0f);
        run_one(&r, 4, d4, 1, LG_BF16, alg, 1, 8.0f);
        run_one(&r, 2, d2, 0, LG_F32, alg, 0, 8.0f);
    }
}

/* Hand values: softmax of (0, ln 3) is (1/4, 3/4); equal inputs give 1/A. */
Test(softmax, hand_values) {
    float x[4] = {0.0f, logf(3.0f), 2.0f, 2.0f}, y[4];
    int64_t dims[2] = {2, 2};
    lg_md md;
    lg_md_init_tag(&md, 2, dims, LG_F32, "ab");
    lg_kernel *k;
    cr_assert_eq(lg_softmax_create(&k, LG_SOFTMAX, 1, &md, &md), LG_OK);
    lg_arg a[2] = {{LG_ARG_SRC, x}, {LG_ARG_DST, y}};
    cr_assert_eq(lg_kernel_execute(k, 2, a), LG_OK);
    cr_assert(fabsf(y[0] - 0.25f) < 1e-7f && fabsf(y[1] - 0.75f) < 1e-7f);
    cr_assert(y[2] == 0.5f && y[3] == 0.5f);
    lg_kernel_destroy(k);
    cr_assert_eq(lg_softmax_create(&k, LG_LOGSOFTMAX, 1, &md, NULL), LG_OK);
    cr_assert_eq(lg_kernel_execute(k, 2, a), LG_OK);
    cr_assert(fabsf(y[0] - logf(0.25f)) < 1e-6f && fabsf(y[3] - logf(0.5f)) < 1e-6f);
    lg_kernel_destroy(k);
    /* Large logits do not overflow: (1000, 1000) -> (1/2, 1/2). */
    float big[2] = {1000.0f, 1000.0f}, out[2];
    int64_t d1[2] = {1, 2};
    lg_md_init_tag(&md, 2, d1, LG_F32, "ab");
    cr_assert_eq(lg_softmax_create(&k, LG_SOFTMAX, 1, &md, NULL), LG_OK);
    lg_arg b[2] = {{LG_ARG_SRC, big}, {LG_ARG_DST, out}};
    cr_assert_eq(lg_kernel_execute(k, 2, b), LG_OK);
    cr_assert(out[0] == 0.5f && out[1] == 0.5f);
    lg_kernel_destroy(k);
}

/* src and dst in different layouts run the reference. */
Test(softmax, mixed_layouts) {
    int64_t dims[4] = {2, 19, 3, 5};
    lg_md s, d;
    lg_md_init_tag(&s, 4, dims, LG_F32, "nchw");
    lg_md_init_tag(&d, 4, dims, LG_F32, "nChw8c");
    lg_kernel *k;
    cr_assert_eq(lg_softmax_create(&k, LG_SOFTMAX, 1, &s, &d), LG_OK);
    cr_assert_str_eq(lg_kernel_impl(k), "softmax:ref");
    float *x = calloc(2 * 19 * 15, 4), *y = malloc(2 * 24 * 15 * 4);
    for (int i = 0; i < 2 * 19 * 15; i++) x[i] = (float)(i % 7);
    lg_arg a[2] = {{LG_ARG_SRC, x}, {LG_ARG_DST, y}};
    cr_assert_eq(lg_kernel_execute(k, 2, a), LG_OK);
    int64_t i0[4] = {1, 0, 2, 3};
    double sum = 0;
    for (i0[1] = 0; i0[1] < 19; i0[1]++) sum += y[lg_md_offset(&d, i0)];
    cr_assert(fabs(sum - 1.0) < 1e-5);
    lg_kernel_destroy(k);
    free(x);
    free(y);
}

static void bad(lg_status want, lg_softmax_alg alg, int axis, const lg_md *s, const lg_md *d,
                const char *needle) {
    lg_kernel *k;
    cr_assert_eq(lg_softmax_create(&k, alg, axis, s, d), want, "%s", lg_last_error());
    cr_assert(strstr(lg_last_error(), "lg_softmax_create"), "%s", lg_last_error());
    cr_assert(strstr(lg_last_error(), needle), "'%s' lacks '%s'", lg_last_error(), needle);
}

Test(softmax, bad_input) {
    int64_t dims[2] = {4, 10}, other[2] = {4, 11};
    lg_md md, o, i8;
    lg_md_init_tag(&md, 2, dims, LG_F32, "ab");
    lg_md_init_tag(&o, 2, other, LG_F32, "ab");
    lg_md_init_tag(&i8, 2, dims, LG_S8, "ab");
    cr_assert_eq(lg_softmax_create(NULL, LG_SOFTMAX, 1, &md, NULL), LG_INVALID_ARGUMENT);
    bad(LG_INVALID_ARGUMENT, LG_SOFTMAX, 1, NULL, NULL, "src");
    bad(LG_INVALID_ARGUMENT, LG_SOFTMAX, 2, &md, NULL, "axis 2");
    bad(LG_INVALID_ARGUMENT, LG_SOFTMAX, -1, &md, NULL, "axis -1");
    bad(LG_INVALID_ARGUMENT, (lg_softmax_alg)5, 1, &md, NULL, "alg");
    bad(LG_INVALID_ARGUMENT, LG_SOFTMAX, 1, &md, &o, "dst md dims");
    bad(LG_UNIMPLEMENTED, LG_SOFTMAX, 1, &i8, NULL, "s8");
    bad(LG_UNIMPLEMENTED, LG_SOFTMAX, 1, &md, &i8, "dst md is s8");
    int64_t z[2] = {4, 0};
    lg_md zm;
    if (lg_md_init_tag(&zm, 2, z, LG_F32, "ab") == LG_OK)
        bad(LG_INVALID_ARGUMENT, LG_SOFTMAX, 1, &zm, NULL, "dim 1");
    lg_md any;
    lg_md_init_tag(&any, 2, dims, LG_F32, "any");
    bad(LG_INVALID_ARGUMENT, LG_SOFTMAX, 1, &any, NULL, "'any'");
}
