/* The prelu post-op against oneDNN: f32 conv with prelu per_oc then a sum
 * against oneDNN's conv with the same post-ops (dnnl_post_ops_append_prelu,
 * weights passed as DNNL_ARG_ATTR_MULTIPLE_POST_OP(i) | DNNL_ARG_WEIGHTS in
 * its plain layout); eltwise (identity) and binary add followed by prelu
 * with masks common, per_oc, per_dim_01, per_w and per_tensor, in plain,
 * channels-last and blocked (padded) layouts, against oneDNN's prelu
 * primitive on the same data and weights (oneDNN 2.6's eltwise and binary
 * create a prelu post-op but refuse its weights argument at execution, so
 * the post-op itself is checked through conv only). The conv data are
 * multiples of 1/4 small enough for every sum to be exact in f32, so no
 * summation order matters. Compared within 1e-6 relative (at least 1e-6
 * absolute), which holds whichever oneDNN implementation this CPU gets. */
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
    for (size_t i = 0; i < n; i++) p[i] = (float)lg_rng_int(r, -12, 12) * 0.25f;
}

static void close_enough(float got, float want, const char *what, int64_t off) {
    float tol = 1e-6f * fmaxf(1.0f, fabsf(want));
    cr_assert(fabsf(got - want) <= tol, "%s: offset %lld: lgraph %g, oneDNN %g", what,
              (long long)off, (double)got, (double)want);
}

/* oneDNN's prelu weights desc for mask on dims: f32, plain (acdb on 4D). */
static void dn_weights(int mask, const int64_t *dims, dnnl_memory_desc_t *out, int64_t *wd) {
    dnnl_dims_t d;
    for (int i = 0; i < 4; i++) d[i] = wd[i] = mask & (1 << i) ? dims[i] : 1;
    DN(dnnl_memory_desc_init_by_tag(out, 4, d, dnnl_f32, dnnl_acdb));
}

/* oneDNN's prelu primitive: out = prelu(in, w), data dmd, weights dwm. */
static void dn_prelu(const dnnl_memory_desc_t *dmd, void *in, void *out,
                     const dnnl_memory_desc_t *dwm, void *w) {
    dnnl_prelu_desc_t d;
    DN(dnnl_prelu_forward_desc_init(&d, dnnl_forward_inference, dmd, dwm));
    dnnl_primitive_desc_t pd;
    DN(dnnl_primitive_desc_create(&pd, &d, NULL, eng, NULL));
    dnnl_primitive_t prim;
    DN(dnnl_primitive_create(&prim, pd));
    dnnl_memory_t ms, mdst, mw;
    DN(dnnl_memory_create(&ms, dmd, eng, in));
    DN(dnnl_memory_create(&mdst, dmd, eng, out));
    DN(dnnl_memory_create(&mw, dwm, eng, w));
    dnnl_exec_arg_t da[3] = {{DNNL_ARG_SRC, ms}, {DNNL_ARG_DST, mdst}, {DNNL_ARG_WEIGHTS, mw}};
    DN(dnnl_primitive_execute(prim, strm, 3, da));
    DN(dnnl_stream_wait(strm));
    dnnl_memory_destroy(ms), dnnl_memory_destroy(mdst), dnnl_memory_destroy(mw);
    dnnl_primitive_destroy(prim), dnnl_primitive_desc_destroy(pd);
}

Test(postops_prelu_dnnl, eltwise_prelu, .init = dnnl_setup, .fini = dnnl_teardown) {
    const int64_t dims[4] = {2, 19, 5, 7};
    const dnnl_dims_t ddims = {2, 19, 5, 7};
    static const int masks[] = {0, 2, 3, 8, 15};
    lg_rng r = {77};
    for (size_t l = 0; l < sizeof lays / sizeof lays[0]; l++)
        for (size_t mi = 0; mi < sizeof masks / sizeof masks[0]; mi++) {
            const int mask = masks[mi];
            char what[64];
            snprintf(what, sizeof what, "%s mask %d", lays[l].lg, mask);
            lg_md md;
            cr_assert_eq(lg_md_init_tag(&md, 4, dims, LG_F32, lays[l].lg), LG_OK);
            size_t n = lg_md_size(&md) / 4, bytes = (n * 4 + 127) / 64 * 64;
            float *src = aligned_alloc(64, bytes), *ours = aligned_alloc(64, bytes),
                  *theirs = aligned_alloc(64, bytes), *w = malloc(2 * 19 * 5 * 7 * 4);
            memset(src, 0, bytes); /* oneDNN reads a blocked source's padding: zero */
            int64_t idx[4] = {0};
            for (idx[0] = 0; idx[0] < 2; idx[0]++)
                for (idx[1] = 0; idx[1] < 19; idx[1]++)
                    for (idx[2] = 0; idx[2] < 5; idx[2]++)
                        for (idx[3] = 0; idx[3] < 7; idx[3]++)
                            fill(src + lg_md_offset(&md, idx), 1, &r);
            dnnl_memory_desc_t dmd, dwm;
            int64_t wd[4];
            dn_weights(mask, dims, &dwm, wd);
            fill(w, (size_t)(wd[0] * wd[1] * wd[2] * wd[3]), &r);

            lg_attr *a = NULL;
            cr_assert_eq(lg_attr_create(&a), LG_OK);
            cr_assert_eq(lg_attr_append_prelu(a, mask), LG_OK);
            lg_kernel *k = NULL;
            cr_assert_eq(lg_eltwise_create_attr(&k, LG_ELTWISE_LINEAR, 1.0f, 0, &md, NULL, a),
                         LG_OK, "%s", lg_last_error());
            lg_attr_destroy(a);
            lg_arg args[3] = {
                {LG_ARG_SRC, src}, {LG_ARG_DST, ours}, {LG_ARG_ATTR_POST_OP_WEIGHTS(0), w}};
            cr_assert_eq(lg_kernel_execute(k, 3, args), LG_OK, "%s", lg_last_error());
            lg_kernel_destroy(k);

            DN(dnnl_memory_desc_init_by_tag(&dmd, 4, ddims, dnnl_f32, lays[l].dn));
            dn_prelu(&dmd, src, theirs, &dwm, w);
            for (idx[0] = 0; idx[0] < 2; idx[0]++)
                for (idx[1] = 0; idx[1] < 19; idx[1]++)
                    for (idx[2] = 0; idx[2] < 5; idx[2]++)
                        for (idx[3] = 0; idx[3] < 7; idx[3]++) {
                            int64_t o = lg_md_offset(&md, idx);
                            close_enough(ours[o], theirs[o], what, o);
                        }
            free(src), free(ours), free(theirs), free(w);
        }
}

Test(postops_prelu_dnnl, binary_prelu, .init = dnnl_setup, .fini = dnnl_teardown) {
    const int64_t dims[4] = {2, 19, 5, 7};
    const dnnl_dims_t ddims = {2, 19, 5, 7};
    lg_rng r = {78};
    for (size_t l = 0; l < 2; l++) { /* plain and channels-last */
        lg_md md;
        cr_assert_eq(lg_md_init_tag(&md, 4, dims, LG_F32, lays[l].lg), LG_OK);
        size_t n = lg_md_size(&md) / 4;
        float *a = malloc(n * 4), *b = malloc(n * 4), *ours = malloc(n * 4),
              *theirs = malloc(n * 4), w[19];
        fill(a, n, &r);
        fill(b, n, &r);
        fill(w, 19, &r);
        lg_attr *at = NULL;
        cr_assert_eq(lg_attr_create(&at), LG_OK);
        cr_assert_eq(lg_attr_append_prelu(at, 2), LG_OK);
        lg_kernel *k = NULL;
        cr_assert_eq(lg_binary_create_attr(&k, LG_BINARY_ADD, &md, &md, &md, at), LG_OK, "%s",
                     lg_last_error());
        lg_attr_destroy(at);
        lg_arg args[4] = {{LG_ARG_SRC, a},
                          {LG_ARG_SRC + 1, b},
                          {LG_ARG_DST, ours},
                          {LG_ARG_ATTR_POST_OP_WEIGHTS(0), w}};
        cr_assert_eq(lg_kernel_execute(k, 4, args), LG_OK, "%s", lg_last_error());
        lg_kernel_destroy(k);

        dnnl_memory_desc_t dmd, dwm;
        int64_t wd[4];
        DN(dnnl_memory_desc_init_by_tag(&dmd, 4, ddims, dnnl_f32, lays[l].dn));
        dn_weights(2, dims, &dwm, wd);
        dnnl_binary_desc_t bd;
        DN(dnnl_binary_desc_init(&bd, dnnl_binary_add, &dmd, &dmd, &dmd));
        dnnl_primitive_desc_t pd;
        DN(dnnl_primitive_desc_create(&pd, &bd, NULL, eng, NULL));
        dnnl_primitive_t prim;
        DN(dnnl_primitive_create(&prim, pd));
        dnnl_memory_t m0, m1, mdst;
        DN(dnnl_memory_create(&m0, &dmd, eng, a));
        DN(dnnl_memory_create(&m1, &dmd, eng, b));
        DN(dnnl_memory_create(&mdst, &dmd, eng, theirs));
        dnnl_exec_arg_t da[3] = {{DNNL_ARG_SRC_0, m0}, {DNNL_ARG_SRC_1, m1}, {DNNL_ARG_DST, mdst}};
        DN(dnnl_primitive_execute(prim, strm, 3, da));
        DN(dnnl_stream_wait(strm));
        dn_prelu(&dmd, theirs, theirs, &dwm, w);
        for (size_t i = 0; i < n; i++) close_enough(ours[i], theirs[i], lays[l].lg, (int64_t)i);
        dnnl_memory_destroy(m0), dnnl_memory_destroy(m1), dnnl_memory_destroy(mdst);
        dnnl_primitive_destroy(prim), dnnl_primitive_desc_destroy(pd);
        free(a), free(b), free(ours), free(theirs);
    }
}

Test(postops_prelu_dnnl, conv_prelu, .init = dnnl_setup, .fini = dnnl_teardown) {
    const int64_t sd[4] = {2, 13, 6, 5}, wdm[4] = {11, 13, 3, 3}, dd[4] = {2, 11, 6, 5}, oc = 11;
    const dnnl_dims_t dsd = {2, 13, 6, 5}, dwd = {11, 13, 3, 3}, ddd = {2, 11, 6, 5}, dbd = {11},
                      one = {1, 1}, pad = {1, 1};
    lg_rng r = {79};
    for (size_t l = 0; l < 2; l++) { /* plain and channels-last */
        lg_md ms_, mw_, mb_, md_;
        cr_assert_eq(lg_md_init_tag(&ms_, 4, sd, LG_F32, lays[l].lg), LG_OK);
        cr_assert_eq(lg_md_init_tag(&mw_, 4, wdm, LG_F32, "oihw"), LG_OK);
        cr_assert_eq(lg_md_init_tag(&mb_, 1, &oc, LG_F32, "a"), LG_OK);
        cr_assert_eq(lg_md_init_tag(&md_, 4, dd, LG_F32, lays[l].lg), LG_OK);
        size_t ns = lg_md_size(&ms_) / 4, nw = lg_md_size(&mw_) / 4, nd = lg_md_size(&md_) / 4;
        float *src = malloc(ns * 4), *wei = malloc(nw * 4), bias[11], w[11], *ours = malloc(nd * 4),
              *theirs = malloc(nd * 4);
        fill(src, ns, &r);
        fill(wei, nw, &r);
        fill(bias, 11, &r);
        fill(w, 11, &r);
        fill(ours, nd, &r);
        memcpy(theirs, ours, nd * 4); /* the sum's dst_old */
        lg_conv_params p;
        memset(&p, 0, sizeof p);
        p.groups = 1;
        p.strides[0] = p.strides[1] = 1;
        p.pad_l[0] = p.pad_l[1] = p.pad_r[0] = p.pad_r[1] = 1;
        lg_attr *at = NULL;
        cr_assert_eq(lg_attr_create(&at), LG_OK);
        cr_assert_eq(lg_attr_append_prelu(at, 2), LG_OK);
        cr_assert_eq(lg_attr_append_sum(at, 0.5f), LG_OK);
        lg_kernel *k = NULL;
        cr_assert_eq(lg_conv_create(&k, &p, &ms_, &mw_, &mb_, &md_, at), LG_OK, "%s",
                     lg_last_error());
        lg_attr_destroy(at);
        lg_arg args[5] = {{LG_ARG_SRC, src},
                          {LG_ARG_WEIGHTS, wei},
                          {LG_ARG_BIAS, bias},
                          {LG_ARG_DST, ours},
                          {LG_ARG_ATTR_POST_OP_WEIGHTS(0), w}};
        cr_assert_eq(lg_kernel_execute(k, 5, args), LG_OK, "%s", lg_last_error());
        lg_kernel_destroy(k);

        dnnl_memory_desc_t dms, dmw, dmb, dmd, dwm;
        int64_t wd[4];
        DN(dnnl_memory_desc_init_by_tag(&dms, 4, dsd, dnnl_f32, lays[l].dn));
        DN(dnnl_memory_desc_init_by_tag(&dmw, 4, dwd, dnnl_f32, dnnl_oihw));
        DN(dnnl_memory_desc_init_by_tag(&dmb, 1, dbd, dnnl_f32, dnnl_a));
        DN(dnnl_memory_desc_init_by_tag(&dmd, 4, ddd, dnnl_f32, lays[l].dn));
        dn_weights(2, dd, &dwm, wd);
        dnnl_post_ops_t po;
        DN(dnnl_post_ops_create(&po));
        DN(dnnl_post_ops_append_prelu(po, 2));
        DN(dnnl_post_ops_append_sum(po, 0.5f));
        dnnl_primitive_attr_t attr;
        DN(dnnl_primitive_attr_create(&attr));
        DN(dnnl_primitive_attr_set_post_ops(attr, po));
        dnnl_convolution_desc_t cd;
        DN(dnnl_convolution_forward_desc_init(&cd, dnnl_forward_inference, dnnl_convolution_direct,
                                              &dms, &dmw, &dmb, &dmd, one, pad, pad));
        dnnl_primitive_desc_t pd;
        DN(dnnl_primitive_desc_create(&pd, &cd, attr, eng, NULL));
        dnnl_primitive_t prim;
        DN(dnnl_primitive_create(&prim, pd));
        dnnl_memory_t m[5];
        DN(dnnl_memory_create(&m[0], &dms, eng, src));
        DN(dnnl_memory_create(&m[1], &dmw, eng, wei));
        DN(dnnl_memory_create(&m[2], &dmb, eng, bias));
        DN(dnnl_memory_create(&m[3], &dmd, eng, theirs));
        DN(dnnl_memory_create(&m[4], &dwm, eng, w));
        dnnl_exec_arg_t da[5] = {{DNNL_ARG_SRC, m[0]},
                                 {DNNL_ARG_WEIGHTS, m[1]},
                                 {DNNL_ARG_BIAS, m[2]},
                                 {DNNL_ARG_DST, m[3]},
                                 {DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_WEIGHTS, m[4]}};
        DN(dnnl_primitive_execute(prim, strm, 5, da));
        DN(dnnl_stream_wait(strm));
        for (size_t i = 0; i < nd; i++) close_enough(ours[i], theirs[i], lays[l].lg, (int64_t)i);
        for (int i = 0; i < 5; i++) dnnl_memory_destroy(m[i]);
        dnnl_primitive_destroy(prim), dnnl_primitive_desc_destroy(pd);
        dnnl_primitive_attr_destroy(attr), dnnl_post_ops_destroy(po);
        free(src), free(wei), free(ours), free(theirs);
    }
}
