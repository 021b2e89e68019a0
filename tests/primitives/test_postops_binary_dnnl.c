/* Binary post-ops against oneDNN: eltwise relu with add (one value) and
 * mul (per channel) post-ops, the chain of test_eltwise_all, and binary add
 * per channel with per-element add and relu post-ops, in plain,
 * channels-last and blocked (padded) layouts. Compared within 1e-6
 * relative (at least 1e-6 absolute), which holds whichever oneDNN
 * implementation this CPU gets (fused or not, any order of the same f32
 * operations). */
#include "memory/md.h"
#include "test_dnnl_util.h"

#include "test_util.h"

#include <lgraph.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *lg;
    dnnl_format_tag_t dn;
} lays[] = {
    {"nchw", dnnl_nchw}, {"nhwc", dnnl_nhwc}, {"nChw16c", dnnl_nChw16c}, {"nChw8c", dnnl_nChw8c}};

static void fill(float *p, size_t n, lg_rng *r) {
    for (size_t i = 0; i < n; i++) p[i] = lg_rng_float(r, -4.0f, 4.0f);
}

static void close_enough(const float *got, const float *want, size_t n, const char *what) {
    for (size_t i = 0; i < n; i++) {
        float tol = 1e-6f * fmaxf(1.0f, fabsf(want[i]));
        cr_assert(fabsf(got[i] - want[i]) <= tol, "%s: element %zu: lgraph %g, oneDNN %g", what, i,
                  (double)got[i], (double)want[i]);
    }
}

Test(postops_binary_dnnl, eltwise_add_mul, .init = dnnl_setup, .fini = dnnl_teardown) {
    const int64_t dims[4] = {2, 19, 5, 7}, dc[4] = {1, 19, 1, 1}, d1[4] = {1, 1, 1, 1};
    const dnnl_dims_t ddims = {2, 19, 5, 7}, ddc = {1, 19, 1, 1}, dd1 = {1, 1, 1, 1};
    lg_rng r = {99};
    for (size_t l = 0; l < sizeof lays / sizeof lays[0]; l++) {
        lg_md md, mc, m1;
        cr_assert_eq(lg_md_init_tag(&md, 4, dims, LG_F32, lays[l].lg), LG_OK);
        cr_assert_eq(lg_md_init_tag(&mc, 4, dc, LG_F32, "nchw"), LG_OK);
        cr_assert_eq(lg_md_init_tag(&m1, 4, d1, LG_F32, "nchw"), LG_OK);
        size_t n = lg_md_size(&md) / 4, bytes = (n * 4 + 127) / 64 * 64; /* 64-multiple */
        float *src = aligned_alloc(64, bytes), *ours = aligned_alloc(64, bytes),
              *theirs = aligned_alloc(64, bytes), one, chan[19];
        fill(src, n, &r);
        fill(&one, 1, &r);
        fill(chan, 19, &r);
        /* oneDNN reads the padding of a blocked source too: keep it zero. */
        if (l >= 2)
            for (int64_t c = 19; c < md.padded_dims[1]; c++)
                for (int64_t nn = 0; nn < 2; nn++)
                    for (int64_t h = 0; h < 5; h++)
                        for (int64_t w = 0; w < 7; w++)
                            src[lg__md_off(&md, (int64_t[4]){nn, c, h, w})] = 0.0f; /* padding */
        lg_attr *a = NULL;
        cr_assert_eq(lg_attr_create(&a), LG_OK);
        cr_assert_eq(lg_attr_append_binary(a, LG_BINARY_ADD, &m1), LG_OK);
        cr_assert_eq(lg_attr_append_binary(a, LG_BINARY_MUL, &mc), LG_OK);
        lg_kernel *k = NULL;
        cr_assert_eq(lg_eltwise_create_attr(&k, LG_ELTWISE_RELU, 0, 0, &md, NULL, a), LG_OK);
        lg_attr_destroy(a);
        lg_arg args[4] = {{LG_ARG_SRC, src},
                          {LG_ARG_DST, ours},
                          {LG_ARG_ATTR_POST_OP_SRC1(0), &one},
                          {LG_ARG_ATTR_POST_OP_SRC1(1), chan}};
        cr_assert_eq(lg_kernel_execute(k, 4, args), LG_OK, "%s", lg_last_error());
        lg_kernel_destroy(k);

        dnnl_memory_desc_t dmd, dm1, dmc;
        DN(dnnl_memory_desc_init_by_tag(&dmd, 4, ddims, dnnl_f32, lays[l].dn));
        DN(dnnl_memory_desc_init_by_tag(&dm1, 4, dd1, dnnl_f32, dnnl_nchw));
        DN(dnnl_memory_desc_init_by_tag(&dmc, 4, ddc, dnnl_f32, dnnl_nchw));
        dnnl_post_ops_t po;
        DN(dnnl_post_ops_create(&po));
        DN(dnnl_post_ops_append_binary(po, dnnl_binary_add, &dm1));
        DN(dnnl_post_ops_append_binary(po, dnnl_binary_mul, &dmc));
        dnnl_primitive_attr_t attr;
        DN(dnnl_primitive_attr_create(&attr));
        DN(dnnl_primitive_attr_set_post_ops(attr, po));
        dnnl_eltwise_desc_t ed;
        DN(dnnl_eltwise_forward_desc_init(&ed, dnnl_forward_inference, dnnl_eltwise_relu, &dmd, 0,
                                          0));
        dnnl_primitive_desc_t pd;
        DN(dnnl_primitive_desc_create(&pd, &ed, attr, eng, NULL));
        dnnl_primitive_t prim;
        DN(dnnl_primitive_create(&prim, pd));
        dnnl_memory_t ms, md_, m1_, mc_;
        DN(dnnl_memory_create(&ms, &dmd, eng, src));
        DN(dnnl_memory_create(&md_, &dmd, eng, theirs));
        DN(dnnl_memory_create(&m1_, &dm1, eng, &one));
        DN(dnnl_memory_create(&mc_, &dmc, eng, chan));
        dnnl_exec_arg_t da[4] = {{DNNL_ARG_SRC, ms},
                                 {DNNL_ARG_DST, md_},
                                 {DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1, m1_},
                                 {DNNL_ARG_ATTR_MULTIPLE_POST_OP(1) | DNNL_ARG_SRC_1, mc_}};
        DN(dnnl_primitive_execute(prim, strm, 4, da));
        DN(dnnl_stream_wait(strm));
        /* Logical elements only (oneDNN may leave f(0) op ... in padding). */
        for (int64_t nn = 0; nn < 2; nn++)
            for (int64_t c = 0; c < 19; c++)
                for (int64_t h = 0; h < 5; h++)
                    for (int64_t w = 0; w < 7; w++) {
                        int64_t o = lg_md_offset(&md, (int64_t[4]){nn, c, h, w});
                        close_enough(ours + o, theirs + o, 1, lays[l].lg);
                    }
        dnnl_memory_destroy(ms), dnnl_memory_destroy(md_), dnnl_memory_destroy(m1_);
        dnnl_memory_destroy(mc_), dnnl_primitive_destroy(prim), dnnl_primitive_desc_destroy(pd);
        dnnl_primitive_attr_destroy(attr), dnnl_post_ops_destroy(po);
        free(src), free(ours), free(theirs);
    }
}

Test(postops_binary_dnnl, binary_with_post_ops, .init = dnnl_setup, .fini = dnnl_teardown) {
    const int64_t dims[4] = {2, 19, 5, 7}, dc[4] = {1, 19, 1, 1};
    const dnnl_dims_t ddims = {2, 19, 5, 7}, ddc = {1, 19, 1, 1};
    lg_rng r = {98};
    for (size_t l = 0; l < 2; l++) { /* plain and channels-last */
        lg_md md, mc;
        cr_assert_eq(lg_md_init_tag(&md, 4, dims, LG_F32, lays[l].lg), LG_OK);
        cr_assert_eq(lg_md_init_tag(&mc, 4, dc, LG_F32, "nchw"), LG_OK);
        size_t n = lg_md_size(&md) / 4;
        float *a = malloc(n * 4), *t = malloc(n * 4), *ours = malloc(n * 4),
              *theirs = malloc(n * 4), chan[19];
        fill(a, n, &r);
        fill(t, n, &r);
        fill(chan, 19, &r);
        lg_attr *at = NULL;
        cr_assert_eq(lg_attr_create(&at), LG_OK);
        cr_assert_eq(lg_attr_append_binary(at, LG_BINARY_ADD, &md), LG_OK);
        cr_assert_eq(lg_attr_append_eltwise(at, LG_ELTWISE_RELU, 0, 0), LG_OK);
        lg_kernel *k = NULL;
        cr_assert_eq(lg_binary_create_attr(&k, LG_BINARY_MUL, &md, &mc, &md, at), LG_OK, "%s",
                     lg_last_error());
        lg_attr_destroy(at);
        lg_arg args[4] = {{LG_ARG_SRC, a},
                          {LG_ARG_SRC + 1, chan},
                          {LG_ARG_DST, ours},
                          {LG_ARG_ATTR_POST_OP_SRC1(0), t}};
        cr_assert_eq(lg_kernel_execute(k, 4, args), LG_OK, "%s", lg_last_error());
        lg_kernel_destroy(k);

        dnnl_memory_desc_t dmd, dmc;
        DN(dnnl_memory_desc_init_by_tag(&dmd, 4, ddims, dnnl_f32, lays[l].dn));
        DN(dnnl_memory_desc_init_by_tag(&dmc, 4, ddc, dnnl_f32, dnnl_nchw));
        dnnl_post_ops_t po;
        DN(dnnl_post_ops_create(&po));
        DN(dnnl_post_ops_append_binary(po, dnnl_binary_add, &dmd));
        DN(dnnl_post_ops_append_eltwise(po, 1.0f, dnnl_eltwise_relu, 0, 0));
        dnnl_primitive_attr_t attr;
        DN(dnnl_primitive_attr_create(&attr));
        DN(dnnl_primitive_attr_set_post_ops(attr, po));
        dnnl_binary_desc_t bd;
        DN(dnnl_binary_desc_init(&bd, dnnl_binary_mul, &dmd, &dmc, &dmd));
        dnnl_primitive_desc_t pd;
        DN(dnnl_primitive_desc_create(&pd, &bd, attr, eng, NULL));
        dnnl_primitive_t prim;
        DN(dnnl_primitive_create(&prim, pd));
        dnnl_memory_t m0, m1, mt, mdst;
        DN(dnnl_memory_create(&m0, &dmd, eng, a));
        DN(dnnl_memory_create(&m1, &dmc, eng, chan));
        DN(dnnl_memory_create(&mt, &dmd, eng, t));
        DN(dnnl_memory_create(&mdst, &dmd, eng, theirs));
        dnnl_exec_arg_t da[4] = {{DNNL_ARG_SRC_0, m0},
                                 {DNNL_ARG_SRC_1, m1},
                                 {DNNL_ARG_DST, mdst},
                                 {DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1, mt}};
        DN(dnnl_primitive_execute(prim, strm, 4, da));
        DN(dnnl_stream_wait(strm));
        close_enough(ours, theirs, n, lays[l].lg);
        dnnl_memory_destroy(m0), dnnl_memory_destroy(m1), dnnl_memory_destroy(mt);
        dnnl_memory_destroy(mdst), dnnl_primitive_destroy(prim), dnnl_primitive_desc_destroy(pd);
        dnnl_primitive_attr_destroy(attr), dnnl_post_ops_destroy(po);
        free(a), free(t), free(ours), free(theirs);
    }
}
