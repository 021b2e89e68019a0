/* lg_softmax_create against oneDNN's softmax_v2 (accurate and log) on a
 * chosen problem set: nchw, nhwc, nChw8c, nChw16c with 19 channels over
 * axes 1 and 3, and a 16 x 1000 classifier row. oneDNN states no error
 * bound, so the two may differ by four times lgraph's stated bound (each
 * side's exp and summation order), computed from d = x - max of the row. */
#include "test_util.h"
#include "test_dnnl_util.h"
#include "test_layers_util.h"

#include <criterion/criterion.h>
#include <lgraph.h>
#include <math.h>
#include <oneapi/dnnl/dnnl.h>
#include <stdlib.h>
#include <string.h>

static void run(int nd, const int64_t *dims, const char *tag, dnnl_format_tag_t dtag, int alg,
                int axis, lg_rng *r) {
    lg_md md;
    cr_assert_eq(lg_md_init_tag(&md, nd, dims, LG_F32, tag), LG_OK, "%s", lg_last_error());
    size_t sz = lg_md_size(&md);
    float *src = calloc(1, sz), *mine = malloc(sz), *theirs = calloc(1, sz);
    int64_t idx[LG_MAX_NDIMS] = {0};
    do {
        src[lg_md_offset(&md, idx)] = lg_rng_float(r, -12.0f, 12.0f);
    } while (next_idx(idx, md.dims, nd));
    dnnl_dims_t dd;
    for (int d = 0; d < nd; d++) dd[d] = dims[d];
    dnnl_memory_desc_t dmd;
    cr_assert_eq(dnnl_memory_desc_init_by_tag(&dmd, nd, dd, dnnl_f32, dtag), dnnl_success);
    dnnl_softmax_v2_desc_t sd;
    cr_assert_eq(dnnl_softmax_v2_forward_desc_init(&sd, dnnl_forward_inference,
                                                   alg ? dnnl_softmax_log : dnnl_softmax_accurate,
                                                   &dmd, &dmd, axis),
                 dnnl_success);
    dnnl_primitive_desc_t pd;
    cr_assert_eq(dnnl_primitive_desc_create(&pd, &sd, NULL, eng, NULL), dnnl_success);
    dnnl_primitive_t prim;
    cr_assert_eq(dnnl_primitive_create(&prim, pd), dnnl_success);
    dnnl_memory_t ms, mdst;
    cr_assert_eq(dnnl_memory_create(&ms, &dmd, eng, src), dnnl_success);
    cr_assert_eq(dnnl_memory_create(&mdst, &dmd, eng, theirs), dnnl_success);
    dnnl_exec_arg_t args[2] = {{DNNL_ARG_SRC, ms}, {DNNL_ARG_DST, mdst}};
    cr_assert_eq(dnnl_primitive_execute(prim, strm, 2, args), dnnl_success);
    cr_assert_eq(dnnl_stream_wait(strm), dnnl_success);

    lg_kernel *k;
    cr_assert_eq(lg_softmax_create(&k, (lg_softmax_alg)alg, axis, &md, NULL), LG_OK, "%s",
                 lg_last_error());
    lg_arg a[2] = {{LG_ARG_SRC, src}, {LG_ARG_DST, mine}};
    cr_assert_eq(lg_kernel_execute(k, 2, a), LG_OK);

    int64_t ext[LG_MAX_NDIMS];
    for (int d = 0; d < nd; d++) ext[d] = d == axis ? 1 : dims[d];
    memset(idx, 0, sizeof idx);
    const double A = (double)dims[axis];
    do {
        float m = -INFINITY;
        for (idx[axis] = 0; idx[axis] < dims[axis]; idx[axis]++)
            m = fmaxf(m, src[lg_md_offset(&md, idx)]);
        for (idx[axis] = 0; idx[axis] < dims[axis]; idx[axis]++) {
            int64_t o = lg_md_offset(&md, idx);
            double d = fabs((double)src[o] - m), y = fabs((double)theirs[o]);
            double b =
                alg == 0 ? (d + A + 8) * 0x1p-24 * y + 0x1p-148 : (3 * d + 3 * y + A + 8) * 0x1p-24;
            cr_assert(fabs((double)mine[o] - theirs[o]) <= 4 * b,
                      "%s alg %d axis %d: %.9g vs oneDNN %.9g (%s)", tag, alg, axis,
                      (double)mine[o], (double)theirs[o], lg_kernel_impl(k));
        }
        idx[axis] = 0;
    } while (next_idx(idx, ext, nd));
    lg_kernel_destroy(k);
    dnnl_primitive_destroy(prim);
    dnnl_primitive_desc_destroy(pd);
    dnnl_memory_destroy(ms);
    dnnl_memory_destroy(mdst);
    free(src);
    free(mine);
    free(theirs);
}

Test(dnnl_softmax, layouts_axes_algs, .init = dnnl_setup, .fini = dnnl_teardown) {
    lg_rng r = {0x5f01};
    int64_t dims[4] = {2, 19, 5, 7};
    const char *tags[4] = {"nchw", "nhwc", "nChw8c", "nChw16c"};
    const dnnl_format_tag_t dt[4] = {dnnl_nchw, dnnl_nhwc, dnnl_nChw8c, dnnl_nChw16c};
    for (int t = 0; t < 4; t++)
        for (int alg = 0; alg < 2; alg++) {
            run(4, dims, tags[t], dt[t], alg, 1, &r);
            run(4, dims, tags[t], dt[t], alg, 3, &r);
        }
}

Test(dnnl_softmax, classifier, .init = dnnl_setup, .fini = dnnl_teardown) {
    lg_rng r = {0x5f02};
    int64_t dims[2] = {16, 1000};
    for (int alg = 0; alg < 2; alg++) run(2, dims, "ab", dnnl_ab, alg, 1, &r);
}
