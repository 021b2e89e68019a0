/* The int8 and bf16 convolution (quant.h) against oneDNN's, for what
 * oneDNN 2.x documents whatever implementation it picks on this CPU:
 *  - u8 / s8 src, s8 weights, dst f32 / s32 / s8 / u8, plain layouts,
 *    groups, strides, padding; oneDNN's output scales (common or per output
 *    channel) are lgraph's weights scales (src and dst scales 1, so both
 *    compute acc * scale in f32); src and dst zero points (common, run-time);
 *    weights within 7 bits, as oneDNN's int8 documentation asks for CPUs
 *    without VNNI (u8 x s8 pairs then stay inside s16);
 *  - bf16 src / weights / dst with an f32 accumulation, when this oneDNN has
 *    a bf16 convolution for the CPU (skipped otherwise).
 * Integer results may differ by one where the two libraries round a .5 tie
 * of the same f32 value differently; nothing else is allowed. */
#include "memory/convert.h"
#include "test_dnnl_util.h"

#include <lgraph.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

TestSuite(conv_quant_dnnl, .init = dnnl_setup, .fini = dnnl_teardown);

static uint64_t seed = 7;
static int64_t rnd(int64_t lo, int64_t hi) {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return lo + (int64_t)((seed >> 33) % (uint64_t)(hi - lo + 1));
}

static dnnl_data_type_t dnnl_dt(lg_dtype dt) {
    switch (dt) {
    case LG_F32:
        return dnnl_f32;
    case LG_BF16:
        return dnnl_bf16;
    case LG_S32:
        return dnnl_s32;
    case LG_S8:
        return dnnl_s8;
    default:
        return dnnl_u8;
    }
}

static double val(lg_dtype dt, const void *b, int64_t i) {
    switch (dt) {
    case LG_F32:
        return ((const float *)b)[i];
    case LG_BF16:
        return lg__bf16_to_f32(((const uint16_t *)b)[i]);
    case LG_S32:
        return ((const int32_t *)b)[i];
    case LG_S8:
        return ((const int8_t *)b)[i];
    default:
        return ((const uint8_t *)b)[i];
    }
}

static void setv(lg_dtype dt, void *b, int64_t i, int64_t v) {
    switch (dt) {
    case LG_BF16:
        ((uint16_t *)b)[i] = lg__f32_to_bf16((float)v);
        break;
    case LG_S8:
        ((int8_t *)b)[i] = (int8_t)v;
        break;
    default:
        ((uint8_t *)b)[i] = (uint8_t)v;
    }
}

static const char *impl_of(const_dnnl_primitive_desc_t pd) {
    const char *s = "?";
    dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &s);
    return s;
}

/* One problem: returns false when oneDNN has no implementation for it. */
static bool one(lg_dtype sdt, lg_dtype wdt, lg_dtype ddt, bool per_oc, bool zps, int c) {
    int64_t g = rnd(1, 2), icg = rnd(1, 8), ocg = rnd(1, 8), n = rnd(1, 2);
    int64_t ih = rnd(3, 8), iw = rnd(3, 8), kh = rnd(1, 3), kw = rnd(1, 3);
    int64_t sh = rnd(1, 2), sw = rnd(1, 2), ph = rnd(0, 1), pw = rnd(0, 1);
    int64_t oh = (ih + 2 * ph - kh) / sh + 1, ow = (iw + 2 * pw - kw) / sw + 1;
    int64_t ic = g * icg, oc = g * ocg;
    dnnl_dims_t sd = {n, ic, ih, iw}, dd = {n, oc, oh, ow};
    dnnl_dims_t wd = {g, ocg, icg, kh, kw}, wd1 = {ocg, icg, kh, kw};
    int wn = g > 1 ? 5 : 4;
    const int64_t *wdp = g > 1 ? wd : wd1;
    /* oneDNN */
    dnnl_memory_desc_t sm, wm, dm;
    DN(dnnl_memory_desc_init_by_tag(&sm, 4, sd, dnnl_dt(sdt), dnnl_abcd));
    DN(dnnl_memory_desc_init_by_tag(&wm, wn, wdp, dnnl_dt(wdt), g > 1 ? dnnl_abcde : dnnl_abcd));
    DN(dnnl_memory_desc_init_by_tag(&dm, 4, dd, dnnl_dt(ddt), dnnl_abcd));
    dnnl_dims_t st = {sh, sw}, pl = {ph, pw};
    dnnl_convolution_desc_t cd;
    DN(dnnl_convolution_forward_desc_init(&cd, dnnl_forward_inference, dnnl_convolution_direct, &sm,
                                          &wm, NULL, &dm, st, pl, pl));
    float *scales = malloc(sizeof(float) * (size_t)oc);
    for (int64_t i = 0; i < oc; i++) scales[i] = (float)rnd(1, 12) * 0.125f;
    int32_t zs = (int32_t)rnd(-3, 3), zd = (int32_t)rnd(-3, 3);
    bool i8 = wdt == LG_S8;
    dnnl_primitive_attr_t attr;
    DN(dnnl_primitive_attr_create(&attr));
    if (i8)
        DN(dnnl_primitive_attr_set_output_scales(attr, per_oc ? oc : 1, per_oc ? 2 : 0, scales));
    if (zps) {
        int32_t rt = DNNL_RUNTIME_S32_VAL;
        DN(dnnl_primitive_attr_set_zero_points(attr, DNNL_ARG_SRC, 1, 0, &rt));
        DN(dnnl_primitive_attr_set_zero_points(attr, DNNL_ARG_DST, 1, 0, &rt));
    }
    dnnl_primitive_desc_t pd;
    if (dnnl_primitive_desc_create(&pd, &cd, attr, eng, NULL) != dnnl_success) {
        dnnl_primitive_attr_destroy(attr);
        free(scales);
        return false;
    }
    dnnl_primitive_t prim;
    DN(dnnl_primitive_create(&prim, pd));
    /* lgraph */
    lg_md s, w, d;
    cr_assert_eq(lg_md_init_tag(&s, 4, sd, sdt, "abcd"), LG_OK);
    cr_assert_eq(lg_md_init_tag(&w, wn, wdp, wdt, g > 1 ? "abcde" : "abcd"), LG_OK);
    cr_assert_eq(lg_md_init_tag(&d, 4, dd, ddt, "abcd"), LG_OK);
    lg_conv_params p = {{sh, sw}, {0, 0}, {ph, pw}, {ph, pw}, g, LG_CONV_DIRECT};
    lg_attr *la;
    cr_assert_eq(lg_attr_create(&la), LG_OK);
    if (i8)
        cr_assert_eq(lg_attr_set_scales(la, LG_ARG_WEIGHTS, per_oc ? (g > 1 ? 3 : 1) : 0), LG_OK);
    if (zps) {
        cr_assert_eq(lg_attr_set_zero_points(la, LG_ARG_SRC, 0), LG_OK);
        cr_assert_eq(lg_attr_set_zero_points(la, LG_ARG_DST, 0), LG_OK);
    }
    lg_kernel *k;
    cr_assert_eq(lg_conv_create(&k, &p, &s, &w, NULL, &d, la), LG_OK, "%s", lg_last_error());
    /* data */
    size_t ss = lg_md_size(&s), ws = lg_md_size(&w), ds = lg_md_size(&d);
    void *src = calloc(1, ss), *wei = calloc(1, ws), *d1 = calloc(1, ds), *d2 = calloc(1, ds);
    for (int64_t i = 0; i < (int64_t)(ss / lg_dtype_size(sdt)); i++)
        setv(sdt, src, i, sdt == LG_U8 ? rnd(0, 255) : sdt == LG_S8 ? rnd(-128, 127) : rnd(-8, 8));
    for (int64_t i = 0; i < (int64_t)(ws / lg_dtype_size(wdt)); i++)
        setv(wdt, wei, i, i8 ? rnd(-63, 63) : rnd(-8, 8));
    dnnl_memory_t ms, mw, md, mzs = NULL, mzd = NULL;
    DN(dnnl_memory_create(&ms, &sm, eng, src));
    DN(dnnl_memory_create(&mw, &wm, eng, wei));
    DN(dnnl_memory_create(&md, &dm, eng, d1));
    dnnl_exec_arg_t args[5] = {{DNNL_ARG_SRC, ms}, {DNNL_ARG_WEIGHTS, mw}, {DNNL_ARG_DST, md}};
    int na = 3;
    if (zps) {
        dnnl_memory_desc_t zm;
        dnnl_dims_t one1 = {1};
        DN(dnnl_memory_desc_init_by_tag(&zm, 1, one1, dnnl_s32, dnnl_a));
        DN(dnnl_memory_create(&mzs, &zm, eng, &zs));
        DN(dnnl_memory_create(&mzd, &zm, eng, &zd));
        args[na++] = (dnnl_exec_arg_t){DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC, mzs};
        args[na++] = (dnnl_exec_arg_t){DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_DST, mzd};
    }
    DN(dnnl_primitive_execute(prim, strm, na, args));
    DN(dnnl_stream_wait(strm));
    lg_arg la_args[6] = {{LG_ARG_SRC, src}, {LG_ARG_WEIGHTS, wei}, {LG_ARG_DST, d2}};
    int nl = 3;
    if (i8) la_args[nl++] = (lg_arg){LG_ARG_ATTR_SCALES | LG_ARG_WEIGHTS, scales};
    if (zps) {
        la_args[nl++] = (lg_arg){LG_ARG_ATTR_ZERO_POINTS | LG_ARG_SRC, &zs};
        la_args[nl++] = (lg_arg){LG_ARG_ATTR_ZERO_POINTS | LG_ARG_DST, &zd};
    }
    cr_assert_eq(lg_kernel_execute(k, nl, la_args), LG_OK, "%s", lg_last_error());
    for (int64_t i = 0; i < (int64_t)(ds / lg_dtype_size(ddt)); i++) {
        double a = val(ddt, d1, i), b = val(ddt, d2, i);
        double tol = ddt == LG_F32    ? 1e-6 * fmax(1.0, fabs(a))
                     : ddt == LG_BF16 ? 1.0 / 128 * fmax(1.0, fabs(a))
                                      : 1.0;
        cr_assert(fabs(a - b) <= tol, "case %d (%s:%s:%s, %s): [%lld] oneDNN %g, lgraph %g", c,
                  lg_dtype_str(sdt), lg_dtype_str(wdt), lg_dtype_str(ddt), impl_of(pd),
                  (long long)i, a, b);
    }
    lg_kernel_destroy(k);
    lg_attr_destroy(la);
    dnnl_memory_destroy(ms);
    dnnl_memory_destroy(mw);
    dnnl_memory_destroy(md);
    if (mzs) dnnl_memory_destroy(mzs);
    if (mzd) dnnl_memory_destroy(mzd);
    dnnl_primitive_destroy(prim);
    dnnl_primitive_desc_destroy(pd);
    dnnl_primitive_attr_destroy(attr);
    free(scales);
    free(src);
    free(wei);
    free(d1);
    free(d2);
    return true;
}

Test(conv_quant_dnnl, int8) {
    static const lg_dtype dsts[4] = {LG_F32, LG_S32, LG_S8, LG_U8};
    int ran = 0;
    for (int c = 0; c < 48; c++)
        ran += one(c % 2 ? LG_S8 : LG_U8, LG_S8, dsts[(c / 2) % 4], c % 3 == 0, c % 4 >= 2, c);
    cr_assert(ran > 0, "oneDNN ran no int8 convolution");
}

Test(conv_quant_dnnl, bf16) {
    int ran = 0;
    for (int c = 0; c < 8; c++)
        ran += one(LG_BF16, LG_BF16, c % 2 ? LG_F32 : LG_BF16, false, false, c);
    if (!ran) fprintf(stderr, "oneDNN has no bf16 convolution for this CPU: not compared\n");
}
