/* lg_bnorm_create against oneDNN's batch normalization (forward inference,
 * use_global_stats) on nchw, nhwc, nChw8c and nChw16c with 19 channels, and
 * 2D / 5D tensors, over the scale / shift / fused-relu flags. oneDNN may
 * fold the formula differently (e.g. a fused multiply-add, or
 * (x - mean) * (gamma / sqrt(var + eps))): the two may differ by a few f32
 * roundings of the terms, 2^-21 (|x - mean| |a| + |beta|) + 2^-126. */
#include "test_util.h"
#include "test_dnnl_util.h"
#include "test_layers_util.h"

#include <criterion/criterion.h>
#include <lgraph.h>
#include <math.h>
#include <oneapi/dnnl/dnnl.h>
#include <stdlib.h>
#include <string.h>

static void run(int nd, const int64_t *dims, const char *tag, dnnl_format_tag_t dtag,
                unsigned flags, lg_rng *r) {
    lg_md md;
    cr_assert_eq(lg_md_init_tag(&md, nd, dims, LG_F32, tag), LG_OK, "%s", lg_last_error());
    size_t sz = lg_md_size(&md);
    const int64_t C = dims[1];
    float *src = calloc(1, sz), *mine = malloc(sz), *theirs = calloc(1, sz);
    float *mean = malloc((size_t)C * 4), *var = malloc((size_t)C * 4), *g = malloc((size_t)C * 4),
          *b = malloc((size_t)C * 4);
    for (int64_t c = 0; c < C; c++) {
        mean[c] = lg_rng_float(r, -1, 1);
        var[c] = lg_rng_float(r, 0.1f, 3);
        g[c] = lg_rng_float(r, -2, 2);
        b[c] = lg_rng_float(r, -1, 1);
    }
    int64_t idx[LG_MAX_NDIMS] = {0};
    do {
        src[lg_md_offset(&md, idx)] = lg_rng_float(r, -5, 5);
    } while (next_idx(idx, md.dims, nd));
    const float eps = 1e-5f;

    dnnl_dims_t dd;
    for (int d = 0; d < nd; d++) dd[d] = dims[d];
    dnnl_memory_desc_t dmd, cmd;
    cr_assert_eq(dnnl_memory_desc_init_by_tag(&dmd, nd, dd, dnnl_f32, dtag), dnnl_success);
    dnnl_dims_t cd = {C};
    cr_assert_eq(dnnl_memory_desc_init_by_tag(&cmd, 1, cd, dnnl_f32, dnnl_a), dnnl_success);
    unsigned dflags = dnnl_use_global_stats;
    if (flags & LG_BNORM_USE_SCALE) dflags |= dnnl_use_scale;
    if (flags & LG_BNORM_USE_SHIFT) dflags |= dnnl_use_shift;
    if (flags & LG_BNORM_FUSE_RELU) dflags |= dnnl_fuse_norm_relu;
    dnnl_batch_normalization_desc_t bd;
    cr_assert_eq(
        dnnl_batch_normalization_forward_desc_init(&bd, dnnl_forward_inference, &dmd, eps, dflags),
        dnnl_success);
    dnnl_primitive_desc_t pd;
    cr_assert_eq(dnnl_primitive_desc_create(&pd, &bd, NULL, eng, NULL), dnnl_success);
    dnnl_primitive_t prim;
    cr_assert_eq(dnnl_primitive_create(&prim, pd), dnnl_success);
    dnnl_memory_t m[6];
    void *ptr[6] = {src, theirs, mean, var, g, b};
    int ids[6] = {DNNL_ARG_SRC,      DNNL_ARG_DST,   DNNL_ARG_MEAN,
                  DNNL_ARG_VARIANCE, DNNL_ARG_SCALE, DNNL_ARG_SHIFT};
    dnnl_exec_arg_t args[6];
    for (int i = 0; i < 6; i++) {
        cr_assert_eq(dnnl_memory_create(&m[i], i < 2 ? &dmd : &cmd, eng, ptr[i]), dnnl_success);
        args[i] = (dnnl_exec_arg_t){ids[i], m[i]};
    }
    cr_assert_eq(dnnl_primitive_execute(prim, strm, 6, args), dnnl_success);
    cr_assert_eq(dnnl_stream_wait(strm), dnnl_success);

    lg_kernel *k;
    cr_assert_eq(lg_bnorm_create(&k, &md, NULL, eps, flags), LG_OK, "%s", lg_last_error());
    lg_arg a[6] = {{LG_ARG_SRC, src},      {LG_ARG_DST, mine}, {LG_ARG_MEAN, mean},
                   {LG_ARG_VARIANCE, var}, {LG_ARG_SCALE, g},  {LG_ARG_SHIFT, b}};
    int na = 4;
    if (flags & LG_BNORM_USE_SCALE) a[na++] = (lg_arg){LG_ARG_SCALE, g};
    if (flags & LG_BNORM_USE_SHIFT) a[na++] = (lg_arg){LG_ARG_SHIFT, b};
    cr_assert_eq(lg_kernel_execute(k, na, a), LG_OK, "%s", lg_last_error());
    memset(idx, 0, sizeof idx);
    do {
        int64_t o = lg_md_offset(&md, idx), c = idx[1];
        double gg = flags & LG_BNORM_USE_SCALE ? g[c] : 1,
               bb = flags & LG_BNORM_USE_SHIFT ? b[c] : 0;
        double t = fabs(src[o] - mean[c]) * fabs(gg) / sqrt(var[c] + eps) + fabs(bb);
        cr_assert(fabs((double)mine[o] - theirs[o]) <= t * 0x1p-21 + 0x1p-126,
                  "%s flags 0x%x: %.9g vs oneDNN %.9g (%s)", tag, flags, (double)mine[o],
                  (double)theirs[o], lg_kernel_impl(k));
    } while (next_idx(idx, md.dims, nd));
    lg_kernel_destroy(k);
    dnnl_primitive_destroy(prim);
    dnnl_primitive_desc_destroy(pd);
    for (int i = 0; i < 6; i++) dnnl_memory_destroy(m[i]);
    free(src);
    free(mine);
    free(theirs);
    free(mean);
    free(var);
    free(g);
    free(b);
}

Test(dnnl_bnorm, layouts_flags, .init = dnnl_setup, .fini = dnnl_teardown) {
    lg_rng r = {0xb4d};
    int64_t dims[4] = {2, 19, 5, 7};
    const char *tags[4] = {"nchw", "nhwc", "nChw8c", "nChw16c"};
    const dnnl_format_tag_t dt[4] = {dnnl_nchw, dnnl_nhwc, dnnl_nChw8c, dnnl_nChw16c};
    for (int t = 0; t < 4; t++)
        for (unsigned f = 0; f < 8; f++) run(4, dims, tags[t], dt[t], f << 2, &r);
    int64_t d2[2] = {5, 37}, d5[5] = {1, 21, 3, 4, 5};
    run(2, d2, "ab", dnnl_ab, LG_BNORM_USE_SCALE | LG_BNORM_USE_SHIFT, &r);
    run(5, d5, "nCdhw16c", dnnl_nCdhw16c, LG_BNORM_USE_SCALE | LG_BNORM_FUSE_RELU, &r);
}
