/* lg_pool_create against oneDNN's pooling (pooling_v2: dilation) on a chosen
 * problem set: nchw, nhwc, nChw8c and nChw16c (channel tails included), 1D,
 * 2D and 3D, the three algorithms, padding on both sides (ONNX ceil_mode),
 * dilation, global average pooling, f32 and s8. Both sides get the same
 * physical src bytes. Max pooling must match bit for bit; averages within
 * a summation-order bound (oneDNN documents no order): |d| <= K 2^-23
 * max|x| for f32, and 1 for s8 (a quotient near a half may round either
 * way after a different f32 summation). Cases oneDNN refuses on this CPU
 * are counted as skipped; the f32 ones must run everywhere. */
#include "memory/convert.h"
#include "test_util.h"

#include <criterion/criterion.h>
#include <lgraph.h>
#include <math.h>
#include <oneapi/dnnl/dnnl.h>
#include <stdlib.h>
#include <string.h>

static dnnl_engine_t eng;
static dnnl_stream_t strm;

static void setup(void) {
    cr_assert_eq(dnnl_engine_create(&eng, dnnl_cpu, 0), dnnl_success);
    cr_assert_eq(dnnl_stream_create(&strm, eng, dnnl_stream_default_flags), dnnl_success);
}

static void teardown(void) {
    dnnl_stream_destroy(strm);
    dnnl_engine_destroy(eng);
}

static const char *const lg_tags[3][4] = {{"abc", "acb", "aBc8b", "aBc16b"},
                                          {"abcd", "acdb", "aBcd8b", "aBcd16b"},
                                          {"abcde", "acdeb", "aBcde8b", "aBcde16b"}};
static const dnnl_format_tag_t dn_tags[3][4] = {
    {dnnl_abc, dnnl_acb, dnnl_aBc8b, dnnl_aBc16b},
    {dnnl_abcd, dnnl_acdb, dnnl_aBcd8b, dnnl_aBcd16b},
    {dnnl_abcde, dnnl_acdeb, dnnl_aBcde8b, dnnl_aBcde16b}};

static bool next_idx(int64_t *idx, const int64_t *dims, int nd) {
    for (int d = nd - 1; d >= 0; d--) {
        if (++idx[d] < dims[d]) return true;
        idx[d] = 0;
    }
    return false;
}

typedef struct pcase {
    int nd;
    int64_t n, c, in[4], k[4], s[4], dil[4], pl[4], pr[4];
} pcase;

static const pcase cases[] = {
    {4, 2, 19, {13, 11}, {3, 3}, {2, 2}, {0, 0}, {1, 1}, {1, 1}}, /* resnet stem-like */
    {4, 1, 35, {12, 12}, {3, 3}, {2, 2}, {0, 0}, {0, 0}, {1, 1}}, /* ceil_mode pad_r */
    {4, 2, 17, {9, 10}, {2, 3}, {1, 2}, {1, 0}, {1, 0}, {0, 1}},  /* dilation */
    {4, 2, 40, {7, 7}, {7, 7}, {1, 1}, {0, 0}, {0, 0}, {0, 0}},   /* global */
    {3, 2, 21, {0, 0, 15}, {0, 0, 3}, {0, 0, 2}, {0}, {0, 0, 1}, {0, 0, 1}},
    {5, 1, 18, {0, 5, 6, 7}, {0, 2, 2, 3}, {0, 1, 2, 2}, {0}, {0, 1, 0, 1}, {0, 0, 1, 1}},
};

static void run(const pcase *pc, int fam, int alg, lg_dtype dt, lg_rng *r) {
    int nd = pc->nd, nsp = nd - 2, ti = nd - 3;
    int64_t sd[5] = {pc->n, pc->c}, dd[5] = {pc->n, pc->c};
    dnnl_dims_t dsd = {pc->n, pc->c}, ddd = {pc->n, pc->c}, ks, ss, ds, pls, prs;
    lg_pool_params p = {(lg_pool_alg)alg, {0}, {0}, {0}, {0}, {0}, {0}};
    int64_t kprod = 1;
    for (int i = 0; i < nsp; i++) {
        /* The cases list 2D entries in slots 0, 1; 1D in slot 2; 3D in 1..3. */
        int q = nd == 4 ? i : nd == 3 ? 2 : 1 + i;
        int64_t I = pc->in[q], K = pc->k[q], S = pc->s[q], Dl = pc->dil[q], L = pc->pl[q],
                R = pc->pr[q];
        sd[2 + i] = dsd[2 + i] = I;
        dd[2 + i] = ddd[2 + i] = (I + L + R - ((K - 1) * (Dl + 1) + 1)) / S + 1;
        p.kernel[i] = ks[i] = K;
        p.strides[i] = ss[i] = S;
        p.dilates[i] = ds[i] = Dl;
        p.pad_l[i] = pls[i] = L;
        p.pad_r[i] = prs[i] = R;
        kprod *= K;
    }
    lg_md sm, dm;
    cr_assert_eq(lg_md_init_tag(&sm, nd, sd, dt, lg_tags[ti][fam]), LG_OK, "%s", lg_last_error());
    cr_assert_eq(lg_md_init_tag(&dm, nd, dd, dt, lg_tags[ti][fam]), LG_OK, "%s", lg_last_error());
    size_t ssz = lg_md_size(&sm), dsz = lg_md_size(&dm), esz = lg_dtype_size(dt);
    void *src = calloc(1, ssz), *mine = malloc(dsz), *theirs = calloc(1, dsz);
    memset(mine, 0x5a, dsz);
    int64_t idx[LG_MAX_NDIMS] = {0};
    float amax = 0;
    do {
        int64_t off = lg_md_offset(&sm, idx);
        if (dt == LG_S8) {
            ((int8_t *)src)[off] = (int8_t)lg_rng_int(r, -128, 127);
            amax = 128;
        } else {
            float v = lg_rng_float(r, -4.0f, 4.0f);
            ((float *)src)[off] = v;
            amax = fabsf(v) > amax ? fabsf(v) : amax;
        }
    } while (next_idx(idx, sm.dims, nd));

    dnnl_data_type_t ddt = dt == LG_S8 ? dnnl_s8 : dnnl_f32;
    dnnl_memory_desc_t dsm, ddm;
    cr_assert_eq(dnnl_memory_desc_init_by_tag(&dsm, nd, dsd, ddt, dn_tags[ti][fam]), dnnl_success);
    cr_assert_eq(dnnl_memory_desc_init_by_tag(&ddm, nd, ddd, ddt, dn_tags[ti][fam]), dnnl_success);
    cr_assert_eq(dnnl_memory_desc_get_size(&dsm), ssz);
    const dnnl_alg_kind_t algs[3] = {dnnl_pooling_max, dnnl_pooling_avg_include_padding,
                                     dnnl_pooling_avg_exclude_padding};
    dnnl_pooling_v2_desc_t pdesc;
    cr_assert_eq(dnnl_pooling_v2_forward_desc_init(&pdesc, dnnl_forward_inference, algs[alg], &dsm,
                                                   &ddm, ss, ks, ds, pls, prs),
                 dnnl_success);
    dnnl_primitive_desc_t pd;
    cr_assert_eq(dnnl_primitive_desc_create(&pd, &pdesc, NULL, eng, NULL), dnnl_success);
    dnnl_primitive_t prim;
    cr_assert_eq(dnnl_primitive_create(&prim, pd), dnnl_success);
    dnnl_memory_t ms, md;
    cr_assert_eq(dnnl_memory_create(&ms, &dsm, eng, src), dnnl_success);
    cr_assert_eq(dnnl_memory_create(&md, &ddm, eng, theirs), dnnl_success);
    dnnl_exec_arg_t dargs[2] = {{DNNL_ARG_SRC, ms}, {DNNL_ARG_DST, md}};
    cr_assert_eq(dnnl_primitive_execute(prim, strm, 2, dargs), dnnl_success);
    cr_assert_eq(dnnl_stream_wait(strm), dnnl_success);

    lg_kernel *k;
    cr_assert_eq(lg_pool_create(&k, &p, &sm, &dm), LG_OK, "%s", lg_last_error());
    lg_arg args[2] = {{LG_ARG_SRC, src}, {LG_ARG_DST, mine}};
    cr_assert_eq(lg_kernel_execute(k, 2, args), LG_OK, "%s", lg_last_error());

    double tol = alg == 0 ? 0 : dt == LG_S8 ? 1 : (double)kprod * 0x1p-23 * amax;
    memset(idx, 0, sizeof idx);
    do {
        int64_t off = lg_md_offset(&dm, idx);
        double a = lg__load_f32(mine, dt, off), b = lg__load_f32(theirs, dt, off);
        cr_assert(fabs(a - b) <= tol, "%s %s alg %d nd %d: %g vs oneDNN %g (impl %s)",
                  lg_dtype_str(dt), lg_tags[ti][fam], alg, nd, a, b, lg_kernel_impl(k));
    } while (next_idx(idx, dm.dims, nd));
    /* Padding: zero on both sides (theirs started zeroed, mine as garbage). */
    memset(idx, 0, sizeof idx);
    do {
        int64_t off = lg_md_offset(&dm, idx);
        memset((char *)mine + off * (int64_t)esz, 0, esz);
        memset((char *)theirs + off * (int64_t)esz, 0, esz);
    } while (next_idx(idx, dm.dims, nd));
    cr_assert(memcmp(mine, theirs, dsz) == 0, "padding of dst is not zero");
    lg_kernel_destroy(k);
    dnnl_primitive_destroy(prim);
    dnnl_primitive_desc_destroy(pd);
    dnnl_memory_destroy(ms);
    dnnl_memory_destroy(md);
    free(src);
    free(mine);
    free(theirs);
}

Test(dnnl_pool, f32_every_case_layout_alg, .init = setup, .fini = teardown) {
    lg_rng r = {0x9001};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        for (int fam = 0; fam < 4; fam++)
            for (int alg = 0; alg < 3; alg++) run(&cases[c], fam, alg, LG_F32, &r);
}

Test(dnnl_pool, s8_max_and_avg, .init = setup, .fini = teardown) {
    lg_rng r = {0x9002};
    for (size_t c = 0; c < 4; c++)
        for (int fam = 0; fam < 4; fam++)
            for (int alg = 0; alg < 3; alg++) run(&cases[c], fam, alg, LG_S8, &r);
}
